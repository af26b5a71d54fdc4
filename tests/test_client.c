/* The gRPC client against a small gRPC core server run by the test itself on a Unix socket (no
 * daemon needed): address mapping, a raw echo round trip (empty and 100 KB messages), a
 * protobuf-c call with the cuzk.v1 messages, server errors mapped to cuzk codes with their
 * details, deadlines, message size limits on both sides, a response that does not unpack,
 * concurrent calls on one client, and an unreachable daemon (fail fast, and wait_for_ready
 * running into its deadline). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

#include "client/client.h"
#include "cuzk/error.h"
#include "cuzk/v1/proving.pb-c.h"
#include "test_util.h"

/* ---- the test server: one call at a time, behaviour chosen by the method name ------------- */

#define TAG_REQUEST ((void *)1)
#define TAG_BATCH ((void *)2)
#define TAG_SHUTDOWN ((void *)3)

struct server {
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t thread;
    int seen_shutdown;
    char addr[128];
};

static int wait_tag(struct server *s, void *tag) {
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE) return 0;
        if (ev.tag == TAG_SHUTDOWN) {
            s->seen_shutdown = 1;
            continue;
        }
        if (ev.tag == tag) return ev.success;
    }
}

static grpc_byte_buffer *buffer_of(const void *data, size_t n) {
    grpc_slice sl = grpc_slice_from_copied_buffer(data, n);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    return bb;
}

static size_t read_buffer(grpc_byte_buffer *bb, uint8_t **out) {
    grpc_byte_buffer_reader rd;
    grpc_byte_buffer_reader_init(&rd, bb);
    grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    size_t n = GRPC_SLICE_LENGTH(all);
    *out = malloc(n ? n : 1);
    memcpy(*out, GRPC_SLICE_START_PTR(all), n);
    grpc_slice_unref(all);
    return n;
}

static void handle(struct server *s, grpc_call *call, const grpc_call_details *d) {
    grpc_byte_buffer *req = NULL;
    grpc_op op = {.op = GRPC_OP_RECV_MESSAGE};
    op.data.recv_message.recv_message = &req;
    if (grpc_call_start_batch(call, &op, 1, TAG_BATCH, NULL) != GRPC_CALL_OK ||
        !wait_tag(s, TAG_BATCH))
        return;
    uint8_t *in = NULL;
    size_t in_len = req ? read_buffer(req, &in) : 0;
    if (req) grpc_byte_buffer_destroy(req);

    grpc_status_code status = GRPC_STATUS_OK;
    const char *details = "";
    uint8_t *out = NULL;
    size_t out_len = 0;
    if (!grpc_slice_str_cmp(d->method, "/test.T/Echo")) {
        out = in, out_len = in_len, in = NULL;
    } else if (!grpc_slice_str_cmp(d->method, "/test.T/Fail")) {
        status = GRPC_STATUS_INVALID_ARGUMENT, details = "bad thing happened";
    } else if (!grpc_slice_str_cmp(d->method, "/test.T/Gone")) {
        status = GRPC_STATUS_NOT_FOUND, details = "job not found: x";
    } else if (!grpc_slice_str_cmp(d->method, "/test.T/Slow")) {
        usleep(600 * 1000);
        out = in, out_len = in_len, in = NULL;
    } else if (!grpc_slice_str_cmp(d->method, "/test.T/Big")) {
        out_len = 2u << 20;
        out = calloc(1, out_len);
    } else if (!grpc_slice_str_cmp(d->method, "/test.T/Garbage")) {
        out_len = 12;
        out = malloc(out_len);
        memset(out, 0xff, out_len);
    } else if (!grpc_slice_str_cmp(d->method, "/cuzk.v1.ProvingEngine/GetStatus")) {
        Cuzk__V1__GetStatusRequest *r = cuzk__v1__get_status_request__unpack(NULL, in_len, in);
        Cuzk__V1__GetStatusResponse resp = CUZK__V1__GET_STATUS_RESPONSE__INIT;
        Cuzk__V1__QueueStatus q = CUZK__V1__QUEUE_STATUS__INIT, *qs[1] = {&q};
        q.proof_kind = "synthetic";
        q.pending = 7;
        resp.uptime_seconds = r ? 42 : 0;
        resp.n_queues = 1;
        resp.queues = qs;
        if (r) cuzk__v1__get_status_request__free_unpacked(r, NULL);
        out_len = cuzk__v1__get_status_response__get_packed_size(&resp);
        out = malloc(out_len ? out_len : 1);
        cuzk__v1__get_status_response__pack(&resp, out);
    } else {
        status = GRPC_STATUS_UNIMPLEMENTED, details = "no such method";
    }
    free(in);

    grpc_slice det = grpc_slice_from_copied_string(details);
    grpc_byte_buffer *send = status == GRPC_STATUS_OK ? buffer_of(out, out_len) : NULL;
    int cancelled = 0;
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (send) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = send;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = status;
    ops[n++].data.send_status_from_server.status_details = &det;
    ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[n++].data.recv_close_on_server.cancelled = &cancelled;
    if (grpc_call_start_batch(call, ops, n, TAG_BATCH, NULL) == GRPC_CALL_OK)
        wait_tag(s, TAG_BATCH);
    if (send) grpc_byte_buffer_destroy(send);
    grpc_slice_unref(det);
    free(out);
}

static void *server_main(void *arg) {
    struct server *s = arg;
    for (;;) {
        grpc_call *call = NULL;
        grpc_call_details d;
        grpc_metadata_array md;
        grpc_call_details_init(&d);
        grpc_metadata_array_init(&md);
        int ok = grpc_server_request_call(s->server, &call, &d, &md, s->cq, s->cq, TAG_REQUEST) ==
                     GRPC_CALL_OK &&
                 wait_tag(s, TAG_REQUEST);
        if (ok) handle(s, call, &d);
        if (call) grpc_call_unref(call);
        grpc_call_details_destroy(&d);
        grpc_metadata_array_destroy(&md);
        if (!ok) break;
    }
    return NULL;
}

static int server_start(struct server *s) {
    memset(s, 0, sizeof *s);
    snprintf(s->addr, sizeof s->addr, "unix:///tmp/cuzk-test-client-%d.sock", (int)getpid());
    unlink(s->addr + 7);
    grpc_init();
    s->cq = grpc_completion_queue_create_for_next(NULL);
    s->server = grpc_server_create(NULL, NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    int port = grpc_server_add_http2_port(s->server, s->addr, creds);
    grpc_server_credentials_release(creds);
    if (!port) return -1;
    grpc_server_start(s->server);
    return pthread_create(&s->thread, NULL, server_main, s);
}

static void server_stop(struct server *s) {
    grpc_server_shutdown_and_notify(s->server, s->cq, TAG_SHUTDOWN);
    grpc_server_cancel_all_calls(s->server);
    pthread_join(s->thread, NULL);
    while (!s->seen_shutdown) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE || ev.tag == TAG_SHUTDOWN) s->seen_shutdown = 1;
    }
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(s->cq);
    unlink(s->addr + 7);
    grpc_shutdown();
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_targets(void) {
    char out[256], err[256];
    struct {
        const char *in, *want;
    } ok[] = {
        {"unix:///run/cuzk.sock", "unix:///run/cuzk.sock"},
        {"unix:rel.sock", "unix:rel.sock"},
        {"/run/cuzk.sock", "unix:///run/cuzk.sock"},
        {"http://127.0.0.1:9820", "127.0.0.1:9820"},
        {"http://localhost:9820/", "localhost:9820"},
        {"127.0.0.1:9820", "127.0.0.1:9820"},
        {"[::1]:9820", "[::1]:9820"},
        {"dns:///example.org:9820", "dns:///example.org:9820"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int rc = cuzk_client_target(ok[i].in, out, sizeof out, err, sizeof err);
        CHECK(rc == CUZK_OK && strcmp(out, ok[i].want) == 0);
        if (rc || strcmp(out, ok[i].want)) fprintf(stderr, "%s -> %s (%s)\n", ok[i].in, out, err);
    }
    const char *bad[] = {"",      "unix:", "unix://", "https://h:1", "localhost",
                         "[::1]", "h:",    "h:12x",   "http://"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(cuzk_client_target(bad[i], out, sizeof out, err, sizeof err) == CUZK_EINVAL);
        CHECK(err[0] != 0);
    }
    CHECK(cuzk_client_target("127.0.0.1:9820", out, 8, err, sizeof err) == CUZK_ERANGE);
    CHECK(strcmp(cuzk_client_status_name(14), "UNAVAILABLE") == 0);
    CHECK(strcmp(cuzk_client_status_name(99), "UNKNOWN_STATUS") == 0);
}

struct worker {
    struct cuzk_client *c;
    int ok;
};

static void *concurrent_echo(void *arg) {
    struct worker *w = arg;
    w->ok = 1;
    for (int i = 0; i < 20; i++) {
        char msg[32], err[256];
        int n = snprintf(msg, sizeof msg, "msg %p %d", (void *)w, i);
        void *resp;
        size_t len;
        int rc = cuzk_client_call(w->c, "/test.T/Echo", msg, (size_t)n, 5000, &resp, &len, NULL,
                                  err, sizeof err);
        w->ok &= rc == CUZK_OK && len == (size_t)n && memcmp(resp, msg, len) == 0;
        if (rc == CUZK_OK) free(resp);
    }
    return NULL;
}

static void test_calls(const char *addr) {
    struct cuzk_client *c;
    char err[512];
    struct cuzk_client_opts o = {.max_message_bytes = 1u << 20};
    CHECK(cuzk_client_open(&c, addr, &o, err, sizeof err) == CUZK_OK);
    CHECK(strcmp(cuzk_client_target_of(c), addr) == 0);
    void *resp;
    size_t len;
    int st;

    /* echo: an empty message and a 100 KB one */
    CHECK(cuzk_client_call(c, "/test.T/Echo", "", 0, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_OK);
    CHECK(resp != NULL && len == 0 && st == GRPC_STATUS_OK);
    free(resp);
    size_t big = 100000;
    uint8_t *msg = malloc(big);
    for (size_t i = 0; i < big; i++) msg[i] = (uint8_t)(i * 31 + 7);
    CHECK(cuzk_client_call(c, "/test.T/Echo", msg, big, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_OK);
    CHECK(len == big && memcmp(resp, msg, big) == 0);
    free(resp);

    /* protobuf-c call with the cuzk.v1 messages */
    Cuzk__V1__GetStatusRequest sreq = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *m = NULL;
    CHECK(cuzk_client_call_pb(c, "/cuzk.v1.ProvingEngine/GetStatus", &sreq.base,
                              &cuzk__v1__get_status_response__descriptor, 5000, &m, &st, err,
                              sizeof err) == CUZK_OK);
    if (m) {
        const Cuzk__V1__GetStatusResponse *sr = (const Cuzk__V1__GetStatusResponse *)m;
        CHECK(sr->uptime_seconds == 42 && sr->n_queues == 1 &&
              strcmp(sr->queues[0]->proof_kind, "synthetic") == 0 && sr->queues[0]->pending == 7);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    CHECK(cuzk_client_call_pb(c, "/test.T/Garbage", &sreq.base,
                              &cuzk__v1__get_status_response__descriptor, 5000, &m, &st, err,
                              sizeof err) == CUZK_EFORMAT);
    CHECK(m == NULL && strstr(err, "not a valid") != NULL);

    /* server errors: mapped codes, the status, the details in err */
    CHECK(cuzk_client_call(c, "/test.T/Fail", "x", 1, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_EINVAL);
    CHECK(st == GRPC_STATUS_INVALID_ARGUMENT && resp == NULL);
    CHECK(strstr(err, "/test.T/Fail: INVALID_ARGUMENT: bad thing happened") != NULL);
    CHECK(cuzk_client_call(c, "/test.T/Gone", "x", 1, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_ENOTFOUND);
    CHECK(cuzk_client_call(c, "/test.T/Nope", "x", 1, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_EUNSUPPORTED);
    CHECK(st == GRPC_STATUS_UNIMPLEMENTED);

    /* deadline: the server answers after 600 ms */
    CHECK(cuzk_client_call(c, "/test.T/Slow", "x", 1, 200, &resp, &len, &st, err, sizeof err) ==
          CUZK_ETIMEOUT);
    CHECK(st == GRPC_STATUS_DEADLINE_EXCEEDED);
    /* the same call without a deadline gets its answer */
    CHECK(cuzk_client_call(c, "/test.T/Slow", "y", 1, 0, &resp, &len, &st, err, sizeof err) ==
          CUZK_OK);
    CHECK(len == 1 && ((char *)resp)[0] == 'y');
    free(resp);

    /* size limits: a 2 MiB answer over the 1 MiB receive limit, a request over the send limit */
    CHECK(cuzk_client_call(c, "/test.T/Big", "x", 1, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_ERANGE);
    CHECK(st == GRPC_STATUS_RESOURCE_EXHAUSTED);
    uint8_t *huge = calloc(1, (1u << 20) + 1);
    CHECK(cuzk_client_call(c, "/test.T/Echo", huge, (1u << 20) + 1, 5000, &resp, &len, &st, err,
                           sizeof err) == CUZK_ERANGE);
    free(huge);

    /* concurrent calls on one client */
    struct worker w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i].c = c;
        pthread_create(&th[i], NULL, concurrent_echo, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].ok);
    }
    free(msg);
    cuzk_client_close(c);
}

static void test_unreachable(void) {
    char addr[128], err[512];
    snprintf(addr, sizeof addr, "unix:///tmp/cuzk-test-client-missing-%d.sock", (int)getpid());
    struct cuzk_client *c;
    void *resp;
    size_t len;
    int st;
    CHECK(cuzk_client_open(&c, addr, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_client_call(c, "/test.T/Echo", "x", 1, 5000, &resp, &len, &st, err, sizeof err) ==
          CUZK_EIO);
    CHECK(st == GRPC_STATUS_UNAVAILABLE && strstr(err, "UNAVAILABLE") != NULL);
    cuzk_client_close(c);
    struct cuzk_client_opts o = {.wait_for_ready = 1};
    CHECK(cuzk_client_open(&c, addr, &o, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_client_call(c, "/test.T/Echo", "x", 1, 300, &resp, &len, &st, err, sizeof err) ==
          CUZK_ETIMEOUT);
    cuzk_client_close(c);
    CHECK(cuzk_client_open(&c, "nonsense", NULL, err, sizeof err) == CUZK_EINVAL && c == NULL);
}

int main(void) {
    test_init("test_client");
    test_targets();
    struct server s;
    int up = server_start(&s) == 0;
    CHECK(up);
    if (up) {
        test_calls(s.addr);
        server_stop(&s);
    }
    test_unreachable();
    return test_finish();
}
