/* HTTP status pages on libmicrohttpd (see http_status.h). */
#define _GNU_SOURCE
#include "server/http_status.h"

#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "cuzk/error.h"
#include "util/log.h"

struct cuzk_http_server {
    struct MHD_Daemon *mhd;
    const struct cuzk_http_route *routes;
    size_t n_routes;
    void *ctx;
    char address[300];
};

static void mhd_log(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t l = strlen(msg);
    while (l && (msg[l - 1] == '\n' || msg[l - 1] == '\r')) msg[--l] = 0;
    cuzk_log_debug("http", "%s", msg);
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *type,
                              char *body, size_t len, int must_free) {
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (must_free) free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
    (void)version;
    (void)upload;
    struct cuzk_http_server *s = cls;
    /* A request body (none is expected) arrives in further calls: skip it, answer at the end. */
    if (*con_cls == NULL) {
        *con_cls = s;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    static char not_found[] = "404 Not Found\n", not_allowed[] = "405 Method Not Allowed\n",
                failed[] = "500 Internal Server Error\n";
    for (size_t i = 0; i < s->n_routes; i++) {
        if (strcmp(url, s->routes[i].path)) continue;
        if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
            return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                          sizeof not_allowed - 1, 0);
        size_t len = 0;
        char *body = s->routes[i].render(s->ctx, &len);
        if (!body)
            return answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", failed,
                          sizeof failed - 1, 0);
        return answer(conn, MHD_HTTP_OK, s->routes[i].content_type, body, len, 1);
    }
    return answer(conn, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof not_found - 1, 0);
}

/* listen ("host:port") resolved for binding: CUZK_OK and *out (freeaddrinfo it), or
 * CUZK_EINVAL with the sentence. */
static int resolve(const char *listen, struct addrinfo **out, char *err, size_t errlen) {
    *out = NULL;
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || (size_t)(colon - listen) >= sizeof host || colon == listen) {
        return cuzk_errf(err, errlen, CUZK_EINVAL, "bad HTTP address %s (want host:port)", listen);
    }
    const char *h = listen;
    size_t hl = (size_t)(colon - listen);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') h++, hl -= 2;
    memcpy(host, h, hl);
    host[hl] = 0;
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                    *ai = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &ai);
    if (gai || !ai) {
        if (ai) freeaddrinfo(ai);
        return cuzk_errf(err, errlen, CUZK_EINVAL, "HTTP address %s: %s", listen,
                         gai ? gai_strerror(gai) : "no address");
    }
    *out = ai;
    return CUZK_OK;
}

int cuzk_http_check_address(const char *listen, char *err, size_t errlen) {
    struct addrinfo *ai;
    const int rc = resolve(listen, &ai, err, errlen);
    if (!rc) freeaddrinfo(ai);
    return rc;
}

int cuzk_http_start(const char *listen, const struct cuzk_http_route *routes, size_t n_routes,
                    void *ctx, struct cuzk_http_server **out, char *err, size_t errlen) {
    *out = NULL;
    struct addrinfo *ai;
    int rc = resolve(listen, &ai, err, errlen);
    if (rc) return rc;
    struct cuzk_http_server *s = calloc(1, sizeof *s);
    if (!s) {
        freeaddrinfo(ai);
        return CUZK_ENOMEM;
    }
    s->routes = routes;
    s->n_routes = n_routes;
    s->ctx = ctx;
    /* One polling thread (epoll where the system has it, so no FD_SETSIZE bound) serves every
     * connection: a slow or idle client costs a slot and its memory, never the thread. Slow
     * clients that trickle a header line now and then (never idle for the timeout) are held
     * off by the slots: many of them, and a quarter at most from one address. */
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    /* the connection cap stays below a quarter of the descriptors' limit: key files, sockets
     * and the gRPC connections need the rest */
    unsigned cap = CUZK_HTTP_MAX_CONNECTIONS;
    struct rlimit rl;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < cap)
        cap = rl.rlim_cur / 4 > 8 ? (unsigned)(rl.rlim_cur / 4) : 8;
    if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                              MHD_OPTION_CONNECTION_LIMIT, cap, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                              cap / 4 ? cap / 4 : 1, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                              (size_t)16384, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!s->mhd) {
        (void)cuzk_errf(err, errlen, 0,
                        "cannot listen on %s (address in use, or not an address of this host)",
                        listen);
        free(s);
        return CUZK_EBUSY;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : 0;
    const char *colon = strrchr(listen, ':'); /* (resolve checked it) */
    snprintf(s->address, sizeof s->address, "%.*s:%u", (int)(colon - listen), listen, port);
    *out = s;
    return CUZK_OK;
}

const char *cuzk_http_address(const struct cuzk_http_server *s) { return s->address; }

void cuzk_http_stop(struct cuzk_http_server *s) {
    if (!s) return;
    MHD_stop_daemon(s->mhd);
    free(s);
}
