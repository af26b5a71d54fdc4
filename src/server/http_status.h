/* A small HTTP/1.1 server (libmicrohttpd) for read-only pages: GET /status and GET /metrics.
 *
 * Contract: each route is a path and a renderer that returns a freshly allocated body; GET and
 * HEAD on a route answer 200 with the route's content type, other methods on a route 405,
 * anything else 404. A renderer returning NULL answers 500. Every answer carries
 * "Cache-Control: no-store" and "Access-Control-Allow-Origin: *" (dashboards in a browser).
 * Listening: "host:port" (an IPv4 or IPv6 address or a host name; IPv6 in brackets; port 0
 * picks a free port).
 * DESIGN: libmicrohttpd's own polling thread (epoll) serves every connection; renderers run on
 * it, one at a time, so they may take locks but must not wait long. A slow client (one that
 * trickles its request) holds a connection slot, not the thread: at most
 * CUZK_HTTP_MAX_CONNECTIONS connections (fewer, a quarter of the descriptors' soft limit, where
 * that is smaller: the daemon raises it to the hard limit at start), a quarter of them from one
 * address, 16 KiB of memory
 * each, idle ones closed after 10 s; 100 slow clients leave /status answering at once.
 * Thread-safety: start and stop from one thread. */
#ifndef CUZK_SERVER_HTTP_STATUS_H
#define CUZK_SERVER_HTTP_STATUS_H

#include <stddef.h>

#define CUZK_HTTP_MAX_CONNECTIONS 1024

struct cuzk_http_server;

/* Returns a malloc'd body (*len bytes) or NULL on failure. */
typedef char *(*cuzk_http_render)(void *ctx, size_t *len);

struct cuzk_http_route {
    const char *path; /* "/status" */
    const char *content_type;
    cuzk_http_render render;
};

/* Starts serving. Returns CUZK_OK, CUZK_EINVAL (bad address), CUZK_EBUSY (cannot bind) or
 * CUZK_ENOMEM, with a sentence in err. routes must outlive the server. */
int cuzk_http_start(const char *listen, const struct cuzk_http_route *routes, size_t n_routes,
                    void *ctx, struct cuzk_http_server **out, char *err, size_t errlen);
/* What cuzk_http_start would refuse of listen before it binds (a malformed address, a host
 * that does not resolve): CUZK_OK or CUZK_EINVAL with the start's sentence. */
int cuzk_http_check_address(const char *listen, char *err, size_t errlen);
/* "host:port" with the bound port. */
const char *cuzk_http_address(const struct cuzk_http_server *s);
/* Stops the thread, closes every connection and frees the server (NULL is a no-op). */
void cuzk_http_stop(struct cuzk_http_server *s);

#endif
