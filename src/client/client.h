/* A small blocking gRPC client over the gRPC core C library: one channel to the daemon, unary
 * calls with deadlines, protobuf-c messages.
 *
 * Addresses: "unix:///abs/path" (or "unix:rel/path", or a bare "/abs/path") for a Unix socket;
 * "host:port", "[v6]:port" or "http://host:port" for TCP (the scheme is dropped: the channel is
 * plaintext HTTP/2, as the daemon serves it). cuzk_client_target shows the mapping.
 *
 * Contract: a call sends one message and receives one; it returns CUZK_OK only when the server
 * answered with gRPC status OK and a message. Any other outcome returns a negative code and puts
 * "<method>: <STATUS_NAME>: <details>" in err; *status (when given) receives the gRPC status
 * code (GRPC_STATUS_*) so callers can tell a refused request from an unreachable daemon:
 *   DEADLINE_EXCEEDED -> CUZK_ETIMEOUT    NOT_FOUND          -> CUZK_ENOTFOUND
 *   INVALID_ARGUMENT  -> CUZK_EINVAL      UNIMPLEMENTED      -> CUZK_EUNSUPPORTED
 *   CANCELLED         -> CUZK_ECANCELLED  RESOURCE_EXHAUSTED -> CUZK_ERANGE (message too large)
 *   ALREADY_EXISTS    -> CUZK_EEXIST      UNAVAILABLE        -> CUZK_ESHUTDOWN when the server
 *   said it is shutting down, else CUZK_EIO (no connection); anything else -> CUZK_EIO.
 * A response that does not unpack is CUZK_EFORMAT. Calls fail fast when the daemon cannot be
 * reached, unless wait_for_ready is set (then they wait for a connection until the deadline).
 *
 * Thread-safety: a client may be used by any number of threads at once (each call has its own
 * completion queue; the channel multiplexes calls over one connection). open/close are not
 * concurrent with calls on the same client. The gRPC library is initialised by the first open
 * and shut down by the last close (reference counted by gRPC itself). */
#ifndef CUZK_CLIENT_CLIENT_H
#define CUZK_CLIENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#define CUZK_CLIENT_MAX_MESSAGE (128u << 20) /* default send/receive limit: the daemon's */

struct cuzk_client;

struct cuzk_client_opts {
    size_t max_message_bytes; /* send and receive limit; 0 = CUZK_CLIENT_MAX_MESSAGE */
    int wait_for_ready;       /* 1: calls wait for the connection instead of failing fast */
};

/* Maps an address to a gRPC target string. Returns CUZK_OK, CUZK_EINVAL (empty, no port,
 * https: which the daemon does not serve) or CUZK_ERANGE (out too small), with a sentence in
 * err. */
int cuzk_client_target(const char *addr, char *out, size_t outlen, char *err, size_t errlen);

/* Creates a channel (connecting lazily, on the first call). opts may be NULL. Returns CUZK_OK,
 * CUZK_EINVAL (bad address) or CUZK_ENOMEM. */
int cuzk_client_open(struct cuzk_client **out, const char *addr,
                     const struct cuzk_client_opts *opts, char *err, size_t errlen);
/* Closes the channel; NULL is fine. Calls must have returned. */
void cuzk_client_close(struct cuzk_client *c);
/* The target the client dialled ("unix:///run/cuzk.sock", "127.0.0.1:9820"). */
const char *cuzk_client_target_of(const struct cuzk_client *c);

/* One unary call with raw message bytes. method is the full path "/pkg.Service/Method".
 * timeout_ms <= 0: no deadline. On CUZK_OK *resp is a malloc'd buffer (free it; non-NULL even
 * for an empty message) of *resp_len bytes. status may be NULL. */
int cuzk_client_call(struct cuzk_client *c, const char *method, const void *req, size_t req_len,
                     int64_t timeout_ms, void **resp, size_t *resp_len, int *status, char *err,
                     size_t errlen);

/* The same with protobuf-c messages: packs req, unpacks the answer with resp_desc into *resp
 * (free with protobuf_c_message_free_unpacked). */
int cuzk_client_call_pb(struct cuzk_client *c, const char *method, const ProtobufCMessage *req,
                        const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                        ProtobufCMessage **resp, int *status, char *err, size_t errlen);

/* "OK", "CANCELLED", ... "UNAUTHENTICATED" for a gRPC status code; "UNKNOWN_STATUS" otherwise. */
const char *cuzk_client_status_name(int status);

#endif
