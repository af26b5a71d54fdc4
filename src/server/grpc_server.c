/* Unary gRPC server on the gRPC core library (see grpc_server.h for the contract and DESIGN). */
#define _GNU_SOURCE
#include "server/grpc_server.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include "cuzk/error.h"
#include "util/file.h"
#include "util/log.h"

#define REQUESTS_PER_METHOD 4 /* calls accepted ahead per method while handlers run */

_Static_assert((int)CUZK_RPC_INVALID_ARGUMENT == (int)GRPC_STATUS_INVALID_ARGUMENT, "status codes");
_Static_assert((int)CUZK_RPC_NOT_FOUND == (int)GRPC_STATUS_NOT_FOUND, "status codes");
_Static_assert((int)CUZK_RPC_RESOURCE_EXHAUSTED == (int)GRPC_STATUS_RESOURCE_EXHAUSTED,
               "status codes");
_Static_assert((int)CUZK_RPC_UNAVAILABLE == (int)GRPC_STATUS_UNAVAILABLE, "status codes");
_Static_assert((int)CUZK_RPC_UNIMPLEMENTED == (int)GRPC_STATUS_UNIMPLEMENTED, "status codes");
_Static_assert((int)CUZK_RPC_PERMISSION_DENIED == (int)GRPC_STATUS_PERMISSION_DENIED,
               "status codes");

enum tag_kind { TAG_REQUEST, TAG_CLOSE, TAG_SEND, TAG_SHUTDOWN };

struct tag {
    enum tag_kind kind;
};

/* One armed grpc_server_request_registered_call. */
struct request_slot {
    struct tag tag; /* TAG_REQUEST; first member */
    struct cuzk_rpc_server *srv;
    size_t method;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_byte_buffer *payload;
};

struct cuzk_rpc_call {
    struct tag close_tag; /* TAG_CLOSE */
    struct tag send_tag;  /* TAG_SEND */
    struct cuzk_rpc_server *srv;
    grpc_call *call;
    size_t method;
    pthread_mutex_t mu;
    int refs;                     /* the close batch, and the handler until its final batch ends */
    int close_cancelled;          /* written by the core when the close batch completes */
    atomic_int cancelled;         /* published copy, read by waiting threads (set under mu) */
    cuzk_rpc_cancel_fn on_cancel; /* under mu: called once when cancelled turns 1 */
    void *on_cancel_ctx;
    grpc_byte_buffer *resp; /* alive until the final batch completes */
    grpc_slice details;     /* idem */
    int has_details;
};

struct cuzk_rpc_server {
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t thread;
    int thread_started;
    struct cuzk_rpc_method *methods;
    void **registered;
    size_t n_methods;
    void *ctx;
    struct request_slot *slots;
    size_t n_slots;
    struct tag shutdown_tag;
    pthread_mutex_t mu; /* guards the fields below */
    pthread_cond_t cond;
    int shutdown_started, shutdown_done;
    size_t live_calls;
    char address[256];
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    dev_t unix_dev;
    ino_t unix_ino;
};

/* gRPC core messages go through the cuzk log (module "grpc"). */
static void grpc_log_to_cuzk(gpr_log_func_args *a) {
    if (a->severity == GPR_LOG_SEVERITY_ERROR)
        cuzk_log_warn("grpc", "%s", a->message);
    else
        cuzk_log_debug("grpc", "%s", a->message);
}

/* ---- calls ------------------------------------------------------------------------------- */

static void call_unref(struct cuzk_rpc_call *c) {
    pthread_mutex_lock(&c->mu);
    int left = --c->refs;
    pthread_mutex_unlock(&c->mu);
    if (left) return;
    struct cuzk_rpc_server *s = c->srv;
    if (c->resp) grpc_byte_buffer_destroy(c->resp);
    if (c->has_details) grpc_slice_unref(c->details);
    grpc_call_unref(c->call);
    pthread_mutex_destroy(&c->mu);
    free(c);
    pthread_mutex_lock(&s->mu);
    s->live_calls--;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

void cuzk_rpc_call_finish(struct cuzk_rpc_call *c, int status, const char *details,
                          const uint8_t *resp, size_t len) {
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[n].data.send_initial_metadata.count = 0;
    n++;
    grpc_byte_buffer *rb = NULL;
    if (status == CUZK_RPC_OK) {
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)resp, len);
        rb = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
    }
    const int has_details = details && *details;
    grpc_slice ds = has_details ? grpc_slice_from_copied_string(details) : grpc_empty_slice();
    /* The call is written and read here under c->mu, which the completion thread's call_unref
     * takes before it frees it: gRPC core orders the completion after the batch, but out of
     * ThreadSanitizer's sight (the library is not instrumented); the lock makes that order one
     * TSan sees (it is held for a few stores). */
    pthread_mutex_lock(&c->mu);
    c->resp = rb;
    c->details = ds;
    c->has_details = has_details;
    if (rb) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n].data.send_message.send_message = rb;
        n++;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.trailing_metadata_count = 0;
    ops[n].data.send_status_from_server.status = (grpc_status_code)status;
    ops[n].data.send_status_from_server.status_details = has_details ? &c->details : NULL;
    n++;
    grpc_call *call = c->call;
    pthread_mutex_unlock(&c->mu);
    grpc_call_error e = grpc_call_start_batch(call, ops, n, &c->send_tag, NULL);
    if (e != GRPC_CALL_OK) {
        cuzk_log_warn("grpc", "%s: final batch refused (%s)", c->srv->methods[c->method].path,
                      grpc_call_error_to_string(e));
        call_unref(c); /* no completion will come for it */
    }
}

int cuzk_rpc_call_cancelled(const struct cuzk_rpc_call *c) {
    return atomic_load_explicit(&c->cancelled, memory_order_acquire);
}

void cuzk_rpc_call_on_cancel(struct cuzk_rpc_call *c, cuzk_rpc_cancel_fn fn, void *ctx) {
    pthread_mutex_lock(&c->mu);
    if (!atomic_load_explicit(&c->cancelled, memory_order_relaxed)) {
        c->on_cancel = fn;
        c->on_cancel_ctx = ctx;
    }
    pthread_mutex_unlock(&c->mu);
}

const char *cuzk_rpc_call_method(const struct cuzk_rpc_call *c) {
    return c->srv->methods[c->method].path;
}

/* ---- the completion-queue thread --------------------------------------------------------- */

static int arm(struct request_slot *r) {
    struct cuzk_rpc_server *s = r->srv;
    grpc_metadata_array_init(&r->md);
    r->call = NULL;
    r->payload = NULL;
    grpc_call_error e = grpc_server_request_registered_call(s->server, s->registered[r->method],
                                                            &r->call, &r->deadline, &r->md,
                                                            &r->payload, s->cq, s->cq, &r->tag);
    if (e != GRPC_CALL_OK) {
        grpc_metadata_array_destroy(&r->md);
        return -1;
    }
    return 0;
}

#define RELEASE_STEP (16u << 20)

/* A stream reader over a received message's slice buffer: moves the bytes out, which
 * releases every slice read to its end. The slices are small blocks of the C library's heap,
 * which keeps freed blocks for reuse: every RELEASE_STEP bytes their pages go back to the
 * system (malloc_trim), so that the copy the handler makes and the slices it has read are
 * never both resident. */
static int slices_read(struct cuzk_rpc_reader *r, void *dst, size_t n) {
    if (n > r->left) return -1;
    if (n) grpc_slice_buffer_move_first_into_buffer(r->impl, n, dst);
    r->left -= n;
    r->released += n;
    if (r->released >= RELEASE_STEP) {
        malloc_trim(0);
        r->released = 0;
    }
    return 0;
}

/* A call arrived on slot r: set it up, re-arm the slot, run the handler. */
static void on_request(struct request_slot *r, int ok) {
    struct cuzk_rpc_server *s = r->srv;
    grpc_call *gc = r->call;
    grpc_byte_buffer *payload = r->payload;
    grpc_metadata_array_destroy(&r->md);
    if (!ok) { /* the server is shutting down: the slot stays idle */
        if (payload) grpc_byte_buffer_destroy(payload);
        return;
    }
    struct cuzk_rpc_call *c = calloc(1, sizeof *c);
    if (!c) {
        cuzk_log_error("grpc", "out of memory accepting a call");
        grpc_call_cancel_with_status(gc, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
        grpc_call_unref(gc);
        if (payload) grpc_byte_buffer_destroy(payload);
        arm(r);
        return;
    }
    c->close_tag.kind = TAG_CLOSE;
    c->send_tag.kind = TAG_SEND;
    c->srv = s;
    c->call = gc;
    c->method = r->method;
    c->refs = 2;
    atomic_init(&c->cancelled, 0);
    pthread_mutex_init(&c->mu, NULL);
    pthread_mutex_lock(&s->mu);
    s->live_calls++;
    pthread_mutex_unlock(&s->mu);

    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->close_cancelled;
    if (grpc_call_start_batch(gc, &op, 1, &c->close_tag, NULL) != GRPC_CALL_OK) {
        atomic_store(&c->cancelled, 1);
        c->refs--; /* no close completion will come */
    }

    if (arm(r))
        cuzk_log_debug("grpc", "not re-arming %s (shutting down)", s->methods[r->method].path);

    if (!payload) {
        cuzk_rpc_call_finish(c, CUZK_RPC_INVALID_ARGUMENT, "the call carries no request message",
                             NULL, 0);
        return;
    }
    const struct cuzk_rpc_method *m = &s->methods[c->method];
    if (m->stream && payload->type == GRPC_BB_RAW &&
        payload->data.raw.compression == GRPC_COMPRESS_NONE) {
        /* the slices themselves, each released once read */

        struct cuzk_rpc_reader sr = {.left = payload->data.raw.slice_buffer.length,
                                     .read = slices_read,
                                     .impl = &payload->data.raw.slice_buffer};
        m->stream(s->ctx, c, &sr);
        grpc_byte_buffer_destroy(payload);
        /* a large message the handler did not read (refused: daemon.max_input_bytes) goes
         * back to the system too, not only to the heap */
        if (sr.left + sr.released >= RELEASE_STEP) malloc_trim(0);
        return;
    }
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, payload)) {
        grpc_byte_buffer_destroy(payload);
        cuzk_rpc_call_finish(c, CUZK_RPC_INTERNAL, "unreadable request message", NULL, 0);
        return;
    }
    grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    grpc_byte_buffer_destroy(payload);
    if (m->stream) {
        struct cuzk_rpc_reader fr;
        cuzk_rpc_reader_flat(&fr, GRPC_SLICE_START_PTR(all), GRPC_SLICE_LENGTH(all));
        m->stream(s->ctx, c, &fr);
    } else {
        m->handler(s->ctx, c, GRPC_SLICE_START_PTR(all), GRPC_SLICE_LENGTH(all));
    }
    grpc_slice_unref(all);
}

static void dispatch(struct cuzk_rpc_server *s, grpc_event ev) {
    struct tag *t = ev.tag;
    switch (t->kind) {
    case TAG_REQUEST: on_request((struct request_slot *)t, ev.success); break;
    case TAG_CLOSE: {
        struct cuzk_rpc_call *c =
            (struct cuzk_rpc_call *)((char *)t - offsetof(struct cuzk_rpc_call, close_tag));
        cuzk_rpc_cancel_fn fn = NULL;
        void *ctx = NULL;
        if (c->close_cancelled || !ev.success) {
            pthread_mutex_lock(&c->mu); /* against a registration now */
            atomic_store(&c->cancelled, 1);
            fn = c->on_cancel;
            ctx = c->on_cancel_ctx;
            c->on_cancel = NULL;
            pthread_mutex_unlock(&c->mu);
        }
        if (fn) fn(ctx, c); /* the close batch's reference keeps c */
        call_unref(c);
        break;
    }
    case TAG_SEND: {
        struct cuzk_rpc_call *c =
            (struct cuzk_rpc_call *)((char *)t - offsetof(struct cuzk_rpc_call, send_tag));
        if (!ev.success)
            cuzk_log_debug("grpc", "%s: the client was gone before the answer",
                           s->methods[c->method].path);
        call_unref(c);
        break;
    }
    case TAG_SHUTDOWN:
        pthread_mutex_lock(&s->mu);
        s->shutdown_done = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->mu);
        break;
    }
}

#define HEAP_CHECK_MS 1000           /* how often the thread looks at the heap's free bytes */
#define HEAP_TRIM_STEP (64ull << 20) /* free bytes gained since the last trim that start one */

/* Messages the gRPC core refuses itself (over daemon.max_message_size) are read whole into
 * small blocks of the heap first, then freed where no handler sees them: the heap keeps their
 * pages. Every HEAP_CHECK_MS the thread compares the heap's free bytes (mallinfo2, which still
 * counts trimmed pages as free) with those after its last trim, and gives the pages back when
 * HEAP_TRIM_STEP more are free. */
static void heap_check(size_t *after_trim) {
    const struct mallinfo2 m = mallinfo2();
    if (m.fordblks < *after_trim) *after_trim = m.fordblks; /* reused since */
    if (m.fordblks < *after_trim + HEAP_TRIM_STEP) return;
    malloc_trim(0);
    *after_trim = mallinfo2().fordblks;
}

static void *cq_thread(void *arg) {
    struct cuzk_rpc_server *s = arg;
    pthread_setname_np(pthread_self(), "cuzk-grpc");
    size_t after_trim = mallinfo2().fordblks;
    gpr_timespec next_check = gpr_now(GPR_CLOCK_MONOTONIC);
    const gpr_timespec period = gpr_time_from_millis(HEAP_CHECK_MS, GPR_TIMESPAN);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_time_add(next_check, period), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type == GRPC_OP_COMPLETE) dispatch(s, ev);
        const gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
        if (gpr_time_cmp(now, gpr_time_add(next_check, period)) >= 0) {
            heap_check(&after_trim);
            next_check = now;
        }
    }
    return NULL;
}

/* ---- listening --------------------------------------------------------------------------- */

static int mkdir_parents(const char *path, char *err, size_t errlen) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return CUZK_OK;
    *slash = 0;
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(dir, 0755) && errno != EEXIST) {
                return cuzk_errf(err, errlen, CUZK_EIO, "cannot create directory %s: %s", dir,
                                 strerror(errno));
            }
            *p = c;
            if (!c) break;
        }
    }
    return CUZK_OK;
}

/* Makes `path` free for a new socket: nothing there, or a socket nobody accepts on (removed). */
static int clear_stale_socket(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (lstat(path, &st)) {
        if (errno == ENOENT) return CUZK_OK;
        return cuzk_errf(err, errlen, CUZK_EIO, "%s: %s", path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode)) {
        return cuzk_errf(err, errlen, CUZK_EBUSY, "%s exists and is not a socket", path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return cuzk_errf(err, errlen, CUZK_EIO, "socket: %s", strerror(errno));
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN;
    close(fd);
    if (live) {
        return cuzk_errf(err, errlen, CUZK_EBUSY, "%s: another process is serving on this socket",
                         path);
    }
    if (unlink(path) && errno != ENOENT) {
        return cuzk_errf(err, errlen, CUZK_EIO, "cannot remove the stale socket %s: %s", path,
                         strerror(errno));
    }
    cuzk_log_info("grpc", "removed the stale socket file %s", path);
    return CUZK_OK;
}

#define PEM_MAX (1 << 20) /* a certificate chain or key file is small */

static int set(const char *p) { return p && *p; }

/* Whether host (of "host:port") is a loopback address: 127.0.0.0/8, ::1, localhost. */
static int loopback_host(const char *listen) {
    const char *colon = strrchr(listen, ':');
    size_t n = colon ? (size_t)(colon - listen) : strlen(listen);
    if (n >= 2 && listen[0] == '[' && listen[n - 1] == ']') listen++, n -= 2;
    if ((n == 9 && !strncmp(listen, "localhost", 9)) || (n == 3 && !strncmp(listen, "::1", 3)))
        return 1;
    return n >= 4 && !strncmp(listen, "127.", 4);
}

/* The listener's credentials: TLS from the PEM files, or insecure. */
static int make_creds(const struct cuzk_rpc_config *cfg, grpc_server_credentials **out, char *err,
                      size_t errlen) {
    *out = NULL;
    if (!set(cfg->tls_cert) && !set(cfg->tls_key) && !set(cfg->tls_client_ca)) {
        *out = grpc_insecure_server_credentials_create();
        return *out ? CUZK_OK : CUZK_ENOMEM;
    }
    if (!set(cfg->tls_cert) || !set(cfg->tls_key)) {
        return cuzk_errf(
            err, errlen, CUZK_EINVAL,
            "TLS needs both a certificate and its key (daemon.tls_cert, "
            "daemon.tls_key)%s",
            set(cfg->tls_client_ca) && !set(cfg->tls_cert) ? "; a client CA alone is not TLS" : "");
    }
    uint8_t *pem[3] = {NULL, NULL, NULL};
    size_t len;
    const char *path[3] = {cfg->tls_cert, cfg->tls_key, cfg->tls_client_ca};
    int rc = CUZK_OK;
    for (int i = 0; i < 3 && !rc; i++) {
        if (!set(path[i])) continue;
        char why[512];
        rc = cuzk_file_read(path[i], PEM_MAX, &pem[i], &len, why, sizeof why);
        if (rc)
            (void)cuzk_errf(err, errlen, 0, "TLS: %s", why);
        else if (!strstr((const char *)pem[i], "-----BEGIN ")) {
            (void)cuzk_errf(err, errlen, 0, "TLS: %s is not a PEM file", path[i]);
            rc = CUZK_EINVAL;
        }
    }
    if (!rc) {
        grpc_ssl_pem_key_cert_pair pair = {.private_key = (const char *)pem[1],
                                           .cert_chain = (const char *)pem[0]};
        *out = grpc_ssl_server_credentials_create_ex(
            (const char *)pem[2], &pair, 1,
            pem[2] ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                   : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
        if (!*out) {
            (void)cuzk_errf(err, errlen, 0, "TLS: the gRPC core refused the certificate or key");
            rc = CUZK_EINVAL;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (pem[i] && i == 1) memset(pem[i], 0, strlen((const char *)pem[i])); /* the key */
        free(pem[i]);
    }
    return rc;
}

int cuzk_rpc_check_tls(const struct cuzk_rpc_config *cfg, char *err, size_t errlen) {
    grpc_init();
    grpc_server_credentials *creds = NULL;
    const int rc = make_creds(cfg, &creds, err, errlen);
    if (creds) grpc_server_credentials_release(creds);
    grpc_shutdown();
    return rc;
}

static int add_port(struct cuzk_rpc_server *s, const struct cuzk_rpc_config *cfg, char *err,
                    size_t errlen) {
    const char *listen = cfg->listen;
    grpc_server_credentials *creds;
    int rc = make_creds(cfg, &creds, err, errlen);
    if (rc) return rc;
    int tls = set(cfg->tls_cert);
    int port;
    if (!strncmp(listen, "unix://", 7)) {
        const char *path = listen + 7;
        if (path[0] != '/' || strlen(path) >= sizeof s->unix_path) {
            grpc_server_credentials_release(creds);
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "bad unix socket address %s (want unix:///absolute/path)", listen);
        }
        rc = mkdir_parents(path, err, errlen);
        if (!rc) rc = clear_stale_socket(path, err, errlen);
        if (rc) {
            grpc_server_credentials_release(creds);
            return rc;
        }
        /* The socket file is created by bind inside the core: the umask makes it 0600 from the
         * start (the chmod below is a second guard). Other threads creating files at this
         * instant would get the same mask; at start-up none does. */
        mode_t old = umask(0177);
        port = grpc_server_add_http2_port(s->server, listen, creds);
        umask(old);
        if (port > 0) {
            struct stat st;
            snprintf(s->unix_path, sizeof s->unix_path, "%s", path);
            if (chmod(path, 0600) || stat(path, &st)) {
                (void)cuzk_errf(err, errlen, 0, "%s: %s", path, strerror(errno));
                grpc_server_credentials_release(creds);
                return CUZK_EIO;
            }
            s->unix_dev = st.st_dev;
            s->unix_ino = st.st_ino;
        }
        snprintf(s->address, sizeof s->address, "%s", listen);
    } else {
        port = grpc_server_add_http2_port(s->server, listen, creds);
        const char *colon = strrchr(listen, ':');
        if (port > 0 && colon)
            snprintf(s->address, sizeof s->address, "%.*s:%d", (int)(colon - listen), listen, port);
    }
    grpc_server_credentials_release(creds);
    if (port <= 0) {
        return cuzk_errf(err, errlen, CUZK_EBUSY,
                         "cannot listen on %s (address in use, or not an address of this host)",
                         listen);
    }
    if (tls)
        cuzk_log_info("grpc", "TLS on %s%s", s->address,
                      set(cfg->tls_client_ca) ? ", client certificates required" : "");
    else if (strncmp(listen, "unix://", 7) && !loopback_host(listen))
        cuzk_log_warn("grpc",
                      "%s is reachable from other hosts without TLS or authentication: any "
                      "client there can submit and cancel jobs (set daemon.tls_cert and "
                      "daemon.tls_key, and daemon.tls_client_ca for client certificates)",
                      s->address);
    return CUZK_OK;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

/* Frees a server whose shutdown is complete, or (start-up errors) one that never ran its thread:
 * then the queue is driven here until the shutdown completes. */
static void free_server(struct cuzk_rpc_server *s) {
    if (s->server) {
        if (s->shutdown_started && !s->thread_started) {
            while (!s->shutdown_done) {
                grpc_event ev =
                    grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
                if (ev.type == GRPC_OP_COMPLETE) dispatch(s, ev);
            }
        }
        grpc_server_destroy(s->server);
    }
    if (s->cq) {
        grpc_completion_queue_shutdown(s->cq);
        if (s->thread_started) {
            pthread_join(s->thread, NULL);
        } else {
            while (
                grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
                GRPC_QUEUE_SHUTDOWN) {
            }
        }
        grpc_completion_queue_destroy(s->cq);
    }
    if (s->unix_path[0]) {
        struct stat st;
        if (!stat(s->unix_path, &st) && st.st_dev == s->unix_dev && st.st_ino == s->unix_ino)
            unlink(s->unix_path);
    }
    free(s->methods);
    free(s->registered);
    free(s->slots);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cond);
    free(s);
    grpc_shutdown();
}

int cuzk_rpc_server_start(const struct cuzk_rpc_config *cfg, struct cuzk_rpc_server **out,
                          char *err, size_t errlen) {
    *out = NULL;
    if (cfg->max_message_size == 0 || cfg->max_message_size > INT_MAX || !cfg->n_methods) {
        return cuzk_errf(err, errlen, CUZK_EINVAL, "bad server configuration");
    }
    gpr_set_log_function(grpc_log_to_cuzk);
    gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
    grpc_init();
    struct cuzk_rpc_server *s = calloc(1, sizeof *s);
    if (!s) {
        grpc_shutdown();
        return CUZK_ENOMEM;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->ctx = cfg->ctx;
    s->n_methods = cfg->n_methods;
    s->n_slots = cfg->n_methods * REQUESTS_PER_METHOD;
    s->methods = calloc(cfg->n_methods, sizeof *s->methods);
    s->registered = calloc(cfg->n_methods, sizeof *s->registered);
    s->slots = calloc(s->n_slots, sizeof *s->slots);
    s->shutdown_tag.kind = TAG_SHUTDOWN;
    if (!s->methods || !s->registered || !s->slots) {
        free_server(s);
        return CUZK_ENOMEM;
    }
    memcpy(s->methods, cfg->methods, cfg->n_methods * sizeof *s->methods);

    grpc_arg args[3];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = (int)cfg->max_message_size;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = (int)cfg->max_message_size;
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
    args[2].value.integer = 0;
    grpc_channel_args cargs = {3, args};
    s->cq = grpc_completion_queue_create_for_next(NULL);
    s->server = grpc_server_create(&cargs, NULL);
    if (!s->cq || !s->server) {
        free_server(s);
        return CUZK_ENOMEM;
    }
    for (size_t i = 0; i < cfg->n_methods; i++) {
        s->registered[i] = grpc_server_register_method(
            s->server, cfg->methods[i].path, NULL, GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
        if (!s->registered[i]) {
            (void)cuzk_errf(err, errlen, 0, "cannot register %s", cfg->methods[i].path);
            free_server(s);
            return CUZK_EINVAL;
        }
    }
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    int rc = add_port(s, cfg, err, errlen);
    if (rc) {
        free_server(s);
        return rc;
    }
    grpc_server_start(s->server);
    for (size_t i = 0; i < s->n_slots; i++) {
        s->slots[i].tag.kind = TAG_REQUEST;
        s->slots[i].srv = s;
        s->slots[i].method = i / REQUESTS_PER_METHOD;
        if (arm(&s->slots[i])) {
            (void)cuzk_errf(err, errlen, 0, "cannot accept calls");
            cuzk_rpc_server_destroy(s, 0);
            return CUZK_EIO;
        }
    }
    if (pthread_create(&s->thread, NULL, cq_thread, s)) {
        (void)cuzk_errf(err, errlen, 0, "cannot start the gRPC thread");
        cuzk_rpc_server_shutdown(s);
        /* no thread drives the queue: drain the shutdown here */
        free_server(s);
        return CUZK_ENOMEM;
    }
    s->thread_started = 1;
    *out = s;
    return CUZK_OK;
}

const char *cuzk_rpc_server_address(const struct cuzk_rpc_server *s) { return s->address; }

void cuzk_rpc_server_shutdown(struct cuzk_rpc_server *s) {
    pthread_mutex_lock(&s->mu);
    int started = s->shutdown_started;
    s->shutdown_started = 1;
    pthread_mutex_unlock(&s->mu);
    if (!started) grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
}

/* Waits until the shutdown is complete and every call released, or until `deadline` (NULL:
 * forever). Returns 1 when done. */
static int wait_idle(struct cuzk_rpc_server *s, const struct timespec *deadline) {
    pthread_mutex_lock(&s->mu);
    while (!(s->shutdown_done && s->live_calls == 0)) {
        if (!deadline) {
            pthread_cond_wait(&s->cond, &s->mu);
        } else if (pthread_cond_timedwait(&s->cond, &s->mu, deadline) == ETIMEDOUT) {
            break;
        }
    }
    int done = s->shutdown_done && s->live_calls == 0;
    pthread_mutex_unlock(&s->mu);
    return done;
}

void cuzk_rpc_server_destroy(struct cuzk_rpc_server *s, int64_t timeout_ms) {
    if (!s) return;
    cuzk_rpc_server_shutdown(s);
    if (s->thread_started) {
        int done;
        if (timeout_ms < 0) {
            done = wait_idle(s, NULL);
        } else {
            struct timespec dl;
            clock_gettime(CLOCK_REALTIME, &dl);
            dl.tv_sec += timeout_ms / 1000;
            dl.tv_nsec += (timeout_ms % 1000) * 1000000;
            if (dl.tv_nsec >= 1000000000) dl.tv_sec++, dl.tv_nsec -= 1000000000;
            done = wait_idle(s, &dl);
        }
        if (!done) {
            cuzk_log_warn("grpc", "cancelling the calls still in progress");
            grpc_server_cancel_all_calls(s->server);
            wait_idle(s, NULL);
        }
    }
    free_server(s);
}
