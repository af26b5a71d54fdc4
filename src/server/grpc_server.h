/* A unary gRPC server on the gRPC core C library: the transport under the cuzk.v1 service.
 *
 * It knows nothing of the messages: a method is a path ("/cuzk.v1.ProvingEngine/Prove") and a
 * handler that receives the request's bytes and answers with response bytes or a status.
 *
 * Contract:
 *   - A handler runs on the server's completion-queue thread and must not block: work that
 *     waits (a proof, a key load) is handed to another thread, which finishes the call later.
 *   - Every call is finished exactly once, by cuzk_rpc_call_finish from any thread. The request
 *     bytes (or reader) are valid only during the handler; the call handle until it is
 *     finished. A stream handler's reader hands out the received slices as it reads them and
 *     releases each one once read (an uncompressed message; a compressed one is decompressed
 *     into one block first).
 *   - cuzk_rpc_call_cancelled turns 1 when the client has gone away (cancelled, deadline passed,
 *     connection lost), and cuzk_rpc_call_on_cancel's function is called then; finishing such
 *     a call is still required and harmless.
 *   - Listening: "unix:///absolute/path" (the parent directory is created if missing; a stale
 *     socket file, one nobody accepts on, is replaced; a live one or a non-socket file is an
 *     error; the socket is created with mode 0600 and removed by cuzk_rpc_server_destroy) or
 *     "host:port" (TCP; port 0 picks a free port; SO_REUSEPORT is off, so a second daemon on
 *     the same port fails instead of sharing it).
 *   - Messages larger than max_message_size are refused by the gRPC core with
 *     RESOURCE_EXHAUSTED before any handler runs.
 *
 * DESIGN: one completion queue and one thread ("cuzk-grpc") that drives it: it accepts calls
 * (several requests armed per method), starts a RECV_CLOSE_ON_SERVER batch on each call to
 * learn of cancellation (its completion, cancelled, runs the call's cancel function), and runs
 * the handler. cuzk_rpc_call_finish starts the final batch (initial metadata, message, status)
 * on the calling thread; the gRPC core allows batches of one call from any thread. A call is
 * released when both its close batch and its final batch have completed (a reference count
 * under the call's mutex). The thread also gives the heap's free pages back to the system when
 * 64 MiB more are free than after its last trim (checked every second): a message the core
 * refuses itself is freed where no handler sees it. Shutdown: stop accepting
 * (grpc_server_shutdown_and_notify), wait for the calls in progress up to a timeout, cancel the
 * rest, then stop the thread.
 * Thread-safety: cuzk_rpc_call_* from any thread; start/shutdown/destroy from one thread. */
#ifndef CUZK_SERVER_GRPC_SERVER_H
#define CUZK_SERVER_GRPC_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* gRPC status codes used by cuzk (the values of grpc_status_code). */
enum cuzk_rpc_status {
    CUZK_RPC_OK = 0,
    CUZK_RPC_CANCELLED = 1,
    CUZK_RPC_INVALID_ARGUMENT = 3,
    CUZK_RPC_DEADLINE_EXCEEDED = 4,
    CUZK_RPC_NOT_FOUND = 5,
    CUZK_RPC_ALREADY_EXISTS = 6,
    CUZK_RPC_PERMISSION_DENIED = 7,
    CUZK_RPC_RESOURCE_EXHAUSTED = 8,
    CUZK_RPC_FAILED_PRECONDITION = 9,
    CUZK_RPC_UNIMPLEMENTED = 12,
    CUZK_RPC_INTERNAL = 13,
    CUZK_RPC_UNAVAILABLE = 14,
};

struct cuzk_rpc_server;
struct cuzk_rpc_call;

typedef void (*cuzk_rpc_handler)(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req,
                                 size_t len);

/* A request message read front to back. read copies the next n bytes to dst and lets go of
 * them: the transport frees what was read, so that a handler that moves a large message into
 * memory of its own never holds it twice. Returns 0, or -1 when fewer than n bytes are left
 * (nothing is read then). Valid only during the handler. */
struct cuzk_rpc_reader {
    size_t left; /* bytes not read yet */
    int (*read)(struct cuzk_rpc_reader *r, void *dst, size_t n);
    const uint8_t *pos; /* a flat reader's next byte */
    void *impl;         /* the transport's */
    size_t released;    /* the transport's: bytes read since it last returned memory */
};

static inline int cuzk_rpc_reader_flat_read_(struct cuzk_rpc_reader *r, void *dst, size_t n) {
    if (n > r->left) return -1;
    if (n) memcpy(dst, r->pos, n);
    r->pos += n;
    r->left -= n;
    return 0;
}

/* A reader over buf[0 .. len) (which it does not free). */
static inline void cuzk_rpc_reader_flat(struct cuzk_rpc_reader *r, const uint8_t *buf, size_t len) {
    r->left = len;
    r->read = cuzk_rpc_reader_flat_read_;
    r->pos = buf;
    r->impl = NULL;
}

typedef void (*cuzk_rpc_stream_handler)(void *ctx, struct cuzk_rpc_call *call,
                                        struct cuzk_rpc_reader *req);

/* A method has one of the two handlers: handler gets the request as one contiguous block,
 * stream reads it (for methods whose requests may be large). */
struct cuzk_rpc_method {
    const char *path; /* "/package.Service/Method" */
    cuzk_rpc_handler handler;
    cuzk_rpc_stream_handler stream;
};

struct cuzk_rpc_config {
    const char *listen;
    /* TLS (PEM files; NULL or "" = none): with tls_cert and tls_key the listener speaks TLS
     * only; with tls_client_ca too, a client must present a certificate signed by it (mutual
     * TLS). Without them a TCP listener is plaintext: the start logs a warning when its host
     * is not a loopback address. */
    const char *tls_cert, *tls_key, *tls_client_ca;
    size_t max_message_size;
    const struct cuzk_rpc_method *methods;
    size_t n_methods;
    void *ctx; /* passed to every handler */
};

/* Starts serving. Returns CUZK_OK, CUZK_EINVAL (bad address; a TLS certificate without its
 * key or the other way round; a client CA without a certificate; a PEM file that does not
 * parse), CUZK_ENOTFOUND (a TLS file missing), CUZK_EBUSY (the unix socket is live, or the port
 * is taken), CUZK_EIO (a file-system error), CUZK_ENOMEM, with a sentence in err. */
int cuzk_rpc_server_start(const struct cuzk_rpc_config *cfg, struct cuzk_rpc_server **out,
                          char *err, size_t errlen);
/* What cuzk_rpc_server_start would refuse of cfg's TLS settings (a missing or unreadable file,
 * a file that is not PEM, a certificate without its key, a pair the gRPC core refuses), checked
 * without listening: CUZK_OK, or the start's code and sentence (for cuzk-daemon --check). */
int cuzk_rpc_check_tls(const struct cuzk_rpc_config *cfg, char *err, size_t errlen);
/* The address served: the configured one, with the port chosen when it was 0. */
const char *cuzk_rpc_server_address(const struct cuzk_rpc_server *s);
/* Stops accepting calls (new ones fail with UNAVAILABLE); calls in progress go on. */
void cuzk_rpc_server_shutdown(struct cuzk_rpc_server *s);
/* Shuts down if needed, waits up to timeout_ms (< 0: forever) for calls in progress to be
 * finished, cancels the others (their handlers must still finish them), waits for every call
 * to be released, stops the thread, removes the unix socket file and frees everything. */
void cuzk_rpc_server_destroy(struct cuzk_rpc_server *s, int64_t timeout_ms);

/* Finishes a call: status CUZK_RPC_OK with the response (len may be 0), or an error status
 * with a message (details may be NULL). Exactly once per call; the handle is gone after. */
void cuzk_rpc_call_finish(struct cuzk_rpc_call *call, int status, const char *details,
                          const uint8_t *resp, size_t len);
/* 1 when the client has gone away. */
int cuzk_rpc_call_cancelled(const struct cuzk_rpc_call *call);
/* Called when a call's client goes away: see cuzk_rpc_call_on_cancel. */
typedef void (*cuzk_rpc_cancel_fn)(void *ctx, struct cuzk_rpc_call *call);
/* Asks for fn(ctx, call) when the client goes away (cancelled, deadline passed, connection
 * lost), so that a call waiting for something else learns of it without polling. fn is called
 * at most once, on the server's thread, with no lock of the server held, after
 * cuzk_rpc_call_cancelled has turned 1; a later registration replaces an earlier one. A client
 * gone before the registration calls nothing: check cuzk_rpc_call_cancelled after registering.
 * The handle is valid while fn runs, but the call may have been finished by then (a client that
 * left as its answer was sent): fn must learn from its own records whether the call is still
 * its to finish. fn must return soon (it holds up every call of the server), and ctx must stay
 * valid until the server is destroyed. Call it before the call is finished. */
void cuzk_rpc_call_on_cancel(struct cuzk_rpc_call *call, cuzk_rpc_cancel_fn fn, void *ctx);
/* The path of the call's method (for logs). */
const char *cuzk_rpc_call_method(const struct cuzk_rpc_call *call);

#endif
