/* Blocking unary gRPC calls over the gRPC core library (contract in client.h).
 *
 * DESIGN: a client owns one grpc_channel. Each call creates its own pluck completion queue and
 * grpc_call, starts one batch with all six client ops (send initial metadata, send message, send
 * close, receive initial metadata, receive message, receive status) and plucks that batch's
 * tag: the batch completes once the status has arrived, so there is exactly one event per call
 * and nothing outlives the call but the response bytes copied out of the gRPC buffer. */
#include "client/client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "cuzk/error.h"

struct cuzk_client {
    grpc_channel *channel;
    size_t max_message;
    int wait_for_ready;
    char target[];
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *cuzk_client_status_name(int status) {
    static const char *const names[] = {
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    };
    return status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status]
                                                                         : "UNKNOWN_STATUS";
}

int cuzk_client_target(const char *addr, char *out, size_t outlen, char *err, size_t errlen) {
    if (!addr || !*addr) {
        set_err(err, errlen, "empty daemon address");
        return CUZK_EINVAL;
    }
    char buf[1024];
    if (strncmp(addr, "unix:", 5) == 0) {
        if (!addr[5] || strcmp(addr, "unix://") == 0) {
            set_err(err, errlen, "address %s names no socket path", addr);
            return CUZK_EINVAL;
        }
        snprintf(buf, sizeof buf, "%s", addr);
    } else if (addr[0] == '/') {
        snprintf(buf, sizeof buf, "unix://%s", addr);
    } else if (strncmp(addr, "https://", 8) == 0) {
        set_err(err, errlen, "address %s: the daemon serves plaintext gRPC only (no TLS)", addr);
        return CUZK_EINVAL;
    } else {
        const char *hp = strncmp(addr, "http://", 7) == 0 ? addr + 7 : addr;
        size_t n = strlen(hp);
        while (n && hp[n - 1] == '/') n--; /* "http://host:port/" */
        const char *colon = memchr(hp, ':', n);
        const char *bracket = hp[0] == '[' ? memchr(hp, ']', n) : NULL;
        /* a port after the last ':' (and after "]" for an IPv6 literal) */
        const char *last = NULL;
        for (size_t i = 0; i < n; i++)
            if (hp[i] == ':') last = hp + i;
        int has_port = colon && last && last + 1 < hp + n && (!bracket || last > bracket);
        for (const char *p = last ? last + 1 : hp + n; has_port && p < hp + n; p++)
            if (*p < '0' || *p > '9') has_port = 0;
        if (!has_port || n >= sizeof buf) {
            set_err(err, errlen, "address %s: expected host:port or unix:///path", addr);
            return CUZK_EINVAL;
        }
        memcpy(buf, hp, n);
        buf[n] = 0;
    }
    if (strlen(buf) + 1 > outlen) {
        set_err(err, errlen, "address %s is too long", addr);
        return CUZK_ERANGE;
    }
    memcpy(out, buf, strlen(buf) + 1);
    return CUZK_OK;
}

int cuzk_client_open(struct cuzk_client **out, const char *addr,
                     const struct cuzk_client_opts *opts, char *err, size_t errlen) {
    *out = NULL;
    char target[1024];
    int rc = cuzk_client_target(addr, target, sizeof target, err, errlen);
    if (rc) return rc;
    struct cuzk_client *c = calloc(1, sizeof *c + strlen(target) + 1);
    if (!c) return CUZK_ENOMEM;
    memcpy(c->target, target, strlen(target) + 1);
    c->max_message =
        opts && opts->max_message_bytes ? opts->max_message_bytes : CUZK_CLIENT_MAX_MESSAGE;
    if (c->max_message > (size_t)INT32_MAX) c->max_message = INT32_MAX; /* a channel arg is int */
    c->wait_for_ready = opts && opts->wait_for_ready;

    grpc_init();
    grpc_arg args[2] = {
        {.type = GRPC_ARG_INTEGER,
         .key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
         .value.integer = (int)c->max_message},
        {.type = GRPC_ARG_INTEGER,
         .key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH,
         .value.integer = (int)c->max_message},
    };
    grpc_channel_args ca = {.num_args = 2, .args = args};
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    c->channel = creds ? grpc_channel_create(c->target, creds, &ca) : NULL;
    if (creds) grpc_channel_credentials_release(creds);
    if (!c->channel) {
        grpc_shutdown();
        free(c);
        set_err(err, errlen, "cannot create a gRPC channel to %s", target);
        return CUZK_ENOMEM;
    }
    *out = c;
    return CUZK_OK;
}

void cuzk_client_close(struct cuzk_client *c) {
    if (!c) return;
    grpc_channel_destroy(c->channel);
    free(c);
    grpc_shutdown();
}

const char *cuzk_client_target_of(const struct cuzk_client *c) { return c->target; }

static int map_status(grpc_status_code s, const char *details) {
    switch (s) {
    case GRPC_STATUS_OK: return CUZK_OK;
    case GRPC_STATUS_DEADLINE_EXCEEDED: return CUZK_ETIMEOUT;
    case GRPC_STATUS_NOT_FOUND: return CUZK_ENOTFOUND;
    case GRPC_STATUS_INVALID_ARGUMENT: return CUZK_EINVAL;
    case GRPC_STATUS_UNIMPLEMENTED: return CUZK_EUNSUPPORTED;
    case GRPC_STATUS_CANCELLED: return CUZK_ECANCELLED;
    case GRPC_STATUS_RESOURCE_EXHAUSTED: return CUZK_ERANGE;
    case GRPC_STATUS_ALREADY_EXISTS: return CUZK_EEXIST;
    case GRPC_STATUS_UNAVAILABLE:
        return details && strstr(details, "shutting down") ? CUZK_ESHUTDOWN : CUZK_EIO;
    default: return CUZK_EIO;
    }
}

static void free_buffer(void *p) { free(p); }

/* Copies a received message into one malloc'd buffer. */
static int take_message(grpc_byte_buffer *bb, void **resp, size_t *resp_len) {
    size_t n = grpc_byte_buffer_length(bb), off = 0;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return CUZK_ENOMEM;
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) {
        free(buf);
        return CUZK_EFORMAT; /* a compressed message that does not decompress */
    }
    grpc_slice s;
    while (grpc_byte_buffer_reader_next(&rd, &s)) {
        size_t len = GRPC_SLICE_LENGTH(s);
        if (len > n - off) len = n - off;
        memcpy(buf + off, GRPC_SLICE_START_PTR(s), len);
        off += len;
        grpc_slice_unref(s);
    }
    grpc_byte_buffer_reader_destroy(&rd);
    *resp = buf;
    *resp_len = off;
    return CUZK_OK;
}

/* The call itself; req is a malloc'd buffer that this function owns (gRPC frees it once
 * sent), so a large request is never copied. */
static int call_owned(struct cuzk_client *c, const char *method, void *req, size_t req_len,
                      int64_t timeout_ms, void **resp, size_t *resp_len, int *status, char *err,
                      size_t errlen) {
    *resp = NULL;
    *resp_len = 0;
    if (status) *status = GRPC_STATUS_UNKNOWN;
    if (req_len > c->max_message) {
        free(req);
        if (status) *status = GRPC_STATUS_RESOURCE_EXHAUSTED;
        set_err(err, errlen, "%s: request of %zu bytes exceeds the %zu-byte message limit", method,
                req_len, c->max_message);
        return CUZK_ERANGE;
    }
    grpc_slice req_slice = grpc_slice_new(req, req_len, free_buffer);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&req_slice, 1);
    grpc_slice_unref(req_slice);
    grpc_slice method_slice = grpc_slice_from_copied_string(method);

    gpr_timespec deadline = timeout_ms > 0
                                ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                               gpr_time_from_millis(timeout_ms, GPR_TIMESPAN))
                                : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_call *call = grpc_channel_create_call(c->channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                               method_slice, NULL, deadline, NULL);
    grpc_metadata_array init_md, trail_md;
    grpc_metadata_array_init(&init_md);
    grpc_metadata_array_init(&trail_md);
    grpc_byte_buffer *recv = NULL;
    grpc_status_code st = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    const char *error_string = NULL;

    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].flags = c->wait_for_ready ? GRPC_INITIAL_METADATA_WAIT_FOR_READY : 0;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
    ops[5].data.recv_status_on_client.status = &st;
    ops[5].data.recv_status_on_client.status_details = &details;
    ops[5].data.recv_status_on_client.error_string = &error_string;

    int rc;
    void *tag = &ops; /* any unique address */
    grpc_call_error ce = grpc_call_start_batch(call, ops, 6, tag, NULL);
    if (ce != GRPC_CALL_OK) {
        set_err(err, errlen, "%s: cannot start the call (gRPC call error %d)", method, (int)ce);
        rc = CUZK_EIO;
    } else {
        grpc_event ev =
            grpc_completion_queue_pluck(cq, tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
            set_err(err, errlen, "%s: the call did not complete", method);
            rc = CUZK_EIO;
        } else if (st != GRPC_STATUS_OK) {
            char *d = grpc_slice_to_c_string(details);
            rc = map_status(st, d);
            set_err(err, errlen, "%s: %s: %s", method, cuzk_client_status_name((int)st),
                    d && *d ? d : (error_string ? error_string : "no details"));
            gpr_free(d);
        } else if (!recv) {
            set_err(err, errlen, "%s: the server sent no message", method);
            rc = CUZK_EFORMAT;
        } else {
            rc = take_message(recv, resp, resp_len);
            if (rc) set_err(err, errlen, "%s: cannot read the response", method);
        }
        if (status) *status = (int)st;
    }

    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_slice_unref(details);
    if (error_string) gpr_free((void *)error_string);
    grpc_metadata_array_destroy(&init_md);
    grpc_metadata_array_destroy(&trail_md);
    grpc_call_unref(call);
    grpc_slice_unref(method_slice);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    return rc;
}

int cuzk_client_call(struct cuzk_client *c, const char *method, const void *req, size_t req_len,
                     int64_t timeout_ms, void **resp, size_t *resp_len, int *status, char *err,
                     size_t errlen) {
    void *copy = malloc(req_len ? req_len : 1);
    if (!copy) return CUZK_ENOMEM;
    if (req_len) memcpy(copy, req, req_len);
    return call_owned(c, method, copy, req_len, timeout_ms, resp, resp_len, status, err, errlen);
}

int cuzk_client_call_pb(struct cuzk_client *c, const char *method, const ProtobufCMessage *req,
                        const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                        ProtobufCMessage **resp, int *status, char *err, size_t errlen) {
    *resp = NULL;
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return CUZK_ENOMEM;
    protobuf_c_message_pack(req, buf);
    void *out;
    size_t out_len;
    int rc = call_owned(c, method, buf, n, timeout_ms, &out, &out_len, status, err, errlen);
    if (rc) return rc;
    *resp = protobuf_c_message_unpack(resp_desc, NULL, out_len, out);
    free(out);
    if (!*resp) {
        set_err(err, errlen, "%s: the response is not a valid %s message", method, resp_desc->name);
        return CUZK_EFORMAT;
    }
    return CUZK_OK;
}
