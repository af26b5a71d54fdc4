/* The cuzk.v1 service's blocking calls (server/service.h, service_wait.c) on a real engine, with
 * this program as the transport: it defines the cuzk_rpc_call functions the service calls
 * (grpc_server.c is not linked), records when and how each call is finished, and plays a client
 * that leaves by calling the call's cancel function as the gRPC server does.
 *
 * What is checked:
 *   - parked calls hold no thread: 32 Prove and 32 AwaitProof calls waiting on queued jobs (an
 *     engine that is not started) leave the process with the threads it had before them (its
 *     tasks counted in /proc/self/task), each holding a slot; cancelling the jobs answers all
 *     of them, and the slots come back;
 *   - a client that leaves is answered CANCELLED at once: over 20 rounds, each leaving at a
 *     random point of a 200 ms period, at least 18 answers come within ANSWER_MS of the
 *     leaving (a design that looks for departed clients every 200 ms makes this with a
 *     probability below 1e-14; the two rounds of slack absorb a descheduled thread on a loaded
 *     machine); the job goes on;
 *   - a job that ends is answered at once: 20 small proofs on a started engine, each Prove
 *     answered within ANSWER_MS of the job's final trace line in at least 18 of them;
 *   - AwaitProof's timeout_ms, by the service's one timer, in deadline order, the job going on;
 *   - daemon.cancel_on_disconnect: a departed Prove cancels its job only when no other call
 *     waits for it, also when its client left before its job was queued; a departed AwaitProof
 *     never does;
 *   - a shutdown of the engine answers every parked call, and the service stops (the leak
 *     check of the sanitizer build sees every record freed). */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "cuzk/v1/proving.pb-c.h"
#include "engine/trace.h"
#include "server/grpc_server.h"
#include "server/service.h"
#include "util/log.h"
#include "engine_harness.h"
#include "test_util.h"

#define ANSWER_MS 25.0 /* an answer this soon after its cause is "at once" */
#define ROUNDS 20
#define ROUNDS_AT_ONCE 18
#define PARKED 32 /* Prove calls, and as many AwaitProof calls */

/* ---- the transport ------------------------------------------------------------------------ */

struct cuzk_rpc_call {
    const char *method;
    int finished; /* times finished (must end at 1) */
    int status;
    double t_finish; /* test_now_ms() */
    uint8_t *resp;
    size_t len;
    atomic_int cancelled;
    cuzk_rpc_cancel_fn on_cancel;
    void *on_cancel_ctx;
};

static pthread_mutex_t call_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t call_cv = PTHREAD_COND_INITIALIZER;

void cuzk_rpc_call_finish(struct cuzk_rpc_call *c, int status, const char *details,
                          const uint8_t *resp, size_t len) {
    (void)details;
    const double t = test_now_ms();
    pthread_mutex_lock(&call_mu);
    c->finished++;
    c->status = status;
    c->t_finish = t;
    free(c->resp);
    c->resp = test_xmalloc(len);
    if (len) memcpy(c->resp, resp, len);
    c->len = len;
    pthread_cond_broadcast(&call_cv);
    pthread_mutex_unlock(&call_mu);
}

int cuzk_rpc_call_cancelled(const struct cuzk_rpc_call *c) { return atomic_load(&c->cancelled); }

void cuzk_rpc_call_on_cancel(struct cuzk_rpc_call *c, cuzk_rpc_cancel_fn fn, void *ctx) {
    pthread_mutex_lock(&call_mu);
    if (!atomic_load(&c->cancelled)) c->on_cancel = fn, c->on_cancel_ctx = ctx;
    pthread_mutex_unlock(&call_mu);
}

const char *cuzk_rpc_call_method(const struct cuzk_rpc_call *c) { return c->method; }

static struct cuzk_rpc_call *call_new(const char *method) {
    struct cuzk_rpc_call *c = test_xmalloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->method = method;
    return c;
}

static void call_free(struct cuzk_rpc_call *c) {
    free(c->resp);
    free(c);
}

/* The client leaves, as the gRPC server reports it: the flag, then the function. */
static void call_leave(struct cuzk_rpc_call *c) {
    pthread_mutex_lock(&call_mu);
    atomic_store(&c->cancelled, 1);
    cuzk_rpc_cancel_fn fn = c->on_cancel;
    void *ctx = c->on_cancel_ctx;
    c->on_cancel = NULL;
    pthread_mutex_unlock(&call_mu);
    if (fn) fn(ctx, c);
}

/* Waits up to ms for the call's answer; 1 when it came. */
static int call_wait(struct cuzk_rpc_call *c, double ms) {
    const double end = test_now_ms() + ms;
    pthread_mutex_lock(&call_mu);
    while (!c->finished && test_now_ms() < end) {
        pthread_mutex_unlock(&call_mu);
        harness_sleep_ms(1);
        pthread_mutex_lock(&call_mu);
    }
    const int done = c->finished;
    pthread_mutex_unlock(&call_mu);
    return done;
}

static int call_done(struct cuzk_rpc_call *c) {
    pthread_mutex_lock(&call_mu);
    const int done = c->finished;
    pthread_mutex_unlock(&call_mu);
    return done;
}

/* ---- requests and answers ----------------------------------------------------------------- */

#define M_PROVE "/cuzk.v1.ProvingEngine/Prove"
#define M_AWAIT "/cuzk.v1.ProvingEngine/AwaitProof"

static const struct cuzk_rpc_method *method_of(const char *path) {
    size_t n;
    const struct cuzk_rpc_method *ms = cuzk_service_methods(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ms[i].path, path)) return &ms[i];
    return NULL;
}

/* Hands the packed request to the method's handler, as the gRPC server does. */
static void call_method(struct cuzk_service *s, struct cuzk_rpc_call *c, const uint8_t *req,
                        size_t len) {
    const struct cuzk_rpc_method *m = method_of(c->method);
    if (m->stream) {
        struct cuzk_rpc_reader rd;
        cuzk_rpc_reader_flat(&rd, req, len);
        m->stream(s, c, &rd);
    } else {
        m->handler(s, c, req, len);
    }
}

/* A Prove of a synthetic job of `circuit` with the request id `rid`. */
static struct cuzk_rpc_call *prove(struct cuzk_service *s, const char *rid, const char *circuit,
                                   uint64_t seed, int leave_first) {
    char sel[64];
    snprintf(sel, sizeof sel, "synthetic:%s", circuit);
    ProtobufCBinaryData vp = {strlen(sel), (uint8_t *)sel};
    Cuzk__V1__SubmitProofRequest sub = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    sub.request_id = (char *)rid;
    sub.n_vanilla_proofs = 1;
    sub.vanilla_proofs = &vp;
    sub.sector_number = seed;
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
    pr.submit = &sub;
    uint8_t buf[512];
    size_t n = cuzk__v1__prove_request__pack(&pr, buf);
    struct cuzk_rpc_call *c = call_new(M_PROVE);
    if (leave_first) atomic_store(&c->cancelled, 1); /* gone before its job is queued */
    call_method(s, c, buf, n);
    return c;
}

static struct cuzk_rpc_call *await(struct cuzk_service *s, const char *job_id,
                                   uint64_t timeout_ms) {
    Cuzk__V1__AwaitProofRequest ar = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    ar.job_id = (char *)job_id;
    ar.timeout_ms = timeout_ms;
    uint8_t buf[256];
    size_t n = cuzk__v1__await_proof_request__pack(&ar, buf);
    struct cuzk_rpc_call *c = call_new(M_AWAIT);
    call_method(s, c, buf, n);
    return c;
}

/* The result status of an answered Prove or AwaitProof (-1: not an OK answer with one). */
static int result_status(const struct cuzk_rpc_call *c) {
    if (c->finished != 1 || c->status != CUZK_RPC_OK) return -1;
    int st = -1;
    if (!strcmp(c->method, M_PROVE)) {
        Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, c->len, c->resp);
        if (r && r->result) st = (int)r->result->status;
        cuzk__v1__prove_response__free_unpacked(r, NULL);
    } else {
        Cuzk__V1__AwaitProofResponse *r =
            cuzk__v1__await_proof_response__unpack(NULL, c->len, c->resp);
        if (r) st = (int)r->status;
        cuzk__v1__await_proof_response__free_unpacked(r, NULL);
    }
    return st;
}

#define ST_COMPLETED CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED
#define ST_CANCELLED CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED
#define ST_TIMEOUT CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT

/* ---- the daemon's innards ----------------------------------------------------------------- */

/* The time of each job's final trace line (CUZK_TIMING), by round. */
static pthread_mutex_t final_mu = PTHREAD_MUTEX_INITIALIZER;
static double final_at[ROUNDS];

static void trace_fn(void *ctx, const char *line) {
    (void)ctx;
    const double t = test_now_ms();
    int round;
    if (strncmp(line, CUZK_TRACE_JOB, strlen(CUZK_TRACE_JOB))) return;
    const char *j = strstr(line, " job=end-");
    if (!j || sscanf(j, " job=end-%d", &round) != 1 || round < 0 || round >= ROUNDS) return;
    pthread_mutex_lock(&final_mu);
    final_at[round] = t;
    pthread_mutex_unlock(&final_mu);
}

struct rig {
    struct cuzk_engine *e;
    struct cuzk_kinds *ks;
    struct cuzk_service *s;
};

static void rig_up(struct rig *r, int cancel_on_disconnect, int start) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.trace_fn = trace_fn;
    char err[256];
    CHECK(cuzk_engine_create(&r->e, &c, err, sizeof err) == CUZK_OK);
    r->ks = harness_kinds(r->e);
    if (start) CHECK(cuzk_engine_start(r->e) == CUZK_OK);
    struct cuzk_service_config sc = {.engine = r->e,
                                     .max_blocking_calls = 4 * PARKED,
                                     .cancel_on_disconnect = cancel_on_disconnect};
    CHECK(cuzk_service_create(&sc, &r->s) == CUZK_OK);
}

static void rig_down(struct rig *r) {
    cuzk_engine_shutdown(r->e, CUZK_SHUTDOWN_CANCEL);
    cuzk_service_destroy(r->s);
    cuzk_engine_destroy(r->e);
    cuzk_kinds_destroy(r->ks);
}

static int threads_now(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *x; (x = readdir(d));) n += x->d_name[0] != '.';
    closedir(d);
    return n;
}

static int job_live(struct cuzk_engine *e, const char *id) {
    enum cuzk_job_state st;
    return cuzk_engine_job_state(e, id, &st, NULL) == CUZK_OK && st < CUZK_JOB_DONE;
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_no_thread_per_wait(void) {
    struct rig r;
    rig_up(&r, 0, 0); /* jobs stay queued */
    const int base = threads_now();
    CHECK(base > 0);
    struct cuzk_rpc_call *calls[2 * PARKED];
    char id[PARKED][32];
    for (int i = 0; i < PARKED; i++) {
        snprintf(id[i], sizeof id[i], "park-%d", i);
        calls[i] = prove(r.s, id[i], "256", (uint64_t)i, 0);
    }
    /* the submits run on work threads; each Prove then parks on its queued job */
    double end = test_now_ms() + 60000;
    for (int i = 0; i < PARKED; i++)
        while (!job_live(r.e, id[i]) && test_now_ms() < end) harness_sleep_ms(2);
    for (int i = 0; i < PARKED; i++) calls[PARKED + i] = await(r.s, id[i], 0);
    int threads = threads_now();
    while (threads > base && test_now_ms() < end) { /* the work threads end with their submits */
        harness_sleep_ms(5);
        threads = threads_now();
    }
    printf("test_service: %d calls parked, %d threads before them, %d now\n", 2 * PARKED, base,
           threads);
    CHECK(threads <= base);
    CHECK(cuzk_service_waiting(r.s) == 2 * PARKED);
    for (int i = 0; i < 2 * PARKED; i++) CHECK(!call_done(calls[i]));

    for (int i = 0; i < PARKED; i++) CHECK(cuzk_engine_cancel(r.e, id[i], NULL) == CUZK_OK);
    for (int i = 0; i < 2 * PARKED; i++) {
        CHECK(call_wait(calls[i], 10000));
        CHECK(result_status(calls[i]) == ST_CANCELLED);
    }
    CHECK(cuzk_service_waiting(r.s) == 0);
    rig_down(&r);
    for (int i = 0; i < 2 * PARKED; i++) call_free(calls[i]);
}

static int count_at_once(const double *lat, double *max) {
    int n = 0;
    *max = 0;
    for (int i = 0; i < ROUNDS; i++) {
        n += lat[i] >= 0 && lat[i] <= ANSWER_MS;
        if (lat[i] > *max) *max = lat[i];
    }
    return n;
}

static void test_departed_at_once(void) {
    struct rig r;
    rig_up(&r, 0, 0);
    double lat[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        char id[32];
        snprintf(id, sizeof id, "gone-%d", i);
        struct cuzk_rpc_call *p = prove(r.s, id, "256", (uint64_t)i, 0);
        const double end = test_now_ms() + 60000;
        while (!job_live(r.e, id) && test_now_ms() < end) harness_sleep_ms(1);
        struct cuzk_rpc_call *a = await(r.s, id, 0);
        /* leave at a random point of a 200 ms period */
        harness_sleep_ms(20 + (unsigned)(cuzk_rng_u64(&test_rng) % 200));
        CHECK(!call_done(p) && !call_done(a));
        const double t0 = test_now_ms();
        call_leave(i % 2 ? a : p);
        struct cuzk_rpc_call *gone = i % 2 ? a : p, *stays = i % 2 ? p : a;
        CHECK(call_wait(gone, 10000));
        lat[i] = gone->t_finish - t0;
        CHECK(gone->status == CUZK_RPC_CANCELLED);
        CHECK(!call_done(stays) && job_live(r.e, id)); /* the job goes on */
        CHECK(cuzk_engine_cancel(r.e, id, NULL) == CUZK_OK);
        CHECK(call_wait(stays, 10000) && result_status(stays) == ST_CANCELLED);
        call_free(p);
        call_free(a);
    }
    double max;
    const int n = count_at_once(lat, &max);
    printf("test_service: a departed client answered within %.0f ms in %d of %d rounds (max %.1f "
           "ms)\n",
           ANSWER_MS, n, ROUNDS, max);
    CHECK(n >= ROUNDS_AT_ONCE);
    rig_down(&r);
}

static void test_final_at_once(void) {
    struct rig r;
    rig_up(&r, 0, 1);
    double lat[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        char id[32];
        snprintf(id, sizeof id, "end-%d", i);
        struct cuzk_rpc_call *p = prove(r.s, id, "256", (uint64_t)i, 0);
        CHECK(call_wait(p, 120000));
        CHECK(result_status(p) == ST_COMPLETED);
        pthread_mutex_lock(&final_mu);
        lat[i] = final_at[i] > 0 ? p->t_finish - final_at[i] : -1;
        pthread_mutex_unlock(&final_mu);
        call_free(p);
    }
    double max;
    const int n = count_at_once(lat, &max);
    printf("test_service: a proof answered within %.0f ms of its job's end in %d of %d rounds "
           "(max %.1f ms)\n",
           ANSWER_MS, n, ROUNDS, max);
    CHECK(n >= ROUNDS_AT_ONCE);
    rig_down(&r);
}

static void test_timeouts(void) {
    struct rig r;
    rig_up(&r, 0, 0);
    struct cuzk_rpc_call *p = prove(r.s, "slow", "256", 1, 0);
    const double end = test_now_ms() + 60000;
    while (!job_live(r.e, "slow") && test_now_ms() < end) harness_sleep_ms(1);
    const double t0 = test_now_ms();
    struct cuzk_rpc_call *a[3] = {await(r.s, "slow", 600), await(r.s, "slow", 200),
                                  await(r.s, "slow", 400)};
    struct cuzk_rpc_call *nf = await(r.s, "no-such-job", 100);
    CHECK(call_wait(nf, 10000) && nf->status == CUZK_RPC_NOT_FOUND);
    for (int i = 0; i < 3; i++) {
        CHECK(call_wait(a[i], 20000));
        CHECK(result_status(a[i]) == ST_TIMEOUT);
    }
    CHECK(a[1]->t_finish - t0 >= 190 && a[1]->t_finish <= a[2]->t_finish &&
          a[2]->t_finish <= a[0]->t_finish && a[0]->t_finish - t0 >= 590);
    CHECK(!call_done(p) && job_live(r.e, "slow"));
    /* a timeout that the job's end beats */
    struct cuzk_rpc_call *b = await(r.s, "slow", 60000);
    CHECK(cuzk_engine_cancel(r.e, "slow", NULL) == CUZK_OK);
    CHECK(call_wait(b, 10000) && result_status(b) == ST_CANCELLED);
    CHECK(call_wait(p, 10000) && result_status(p) == ST_CANCELLED);
    rig_down(&r);
    for (int i = 0; i < 3; i++) call_free(a[i]);
    call_free(nf);
    call_free(b);
    call_free(p);
}

static void test_cancel_on_disconnect(void) {
    struct rig r;
    rig_up(&r, 1, 0);
    const int base = threads_now();
    /* two Prove calls of one request id, and an AwaitProof: the job goes when the last Prove
     * leaves, not before */
    struct cuzk_rpc_call *p1 = prove(r.s, "cod", "256", 1, 0);
    double end = test_now_ms() + 60000;
    while (!job_live(r.e, "cod") && test_now_ms() < end) harness_sleep_ms(1);
    while (threads_now() > base && test_now_ms() < end) harness_sleep_ms(1); /* p1 parked */
    struct cuzk_rpc_call *p2 = prove(r.s, "cod", "256", 1, 0);               /* attaches */
    /* p2 is parked once its work thread is gone */
    while (threads_now() > base && test_now_ms() < end) harness_sleep_ms(1);
    struct cuzk_rpc_call *a = await(r.s, "cod", 0);
    call_leave(a);
    CHECK(call_wait(a, 10000) && a->status == CUZK_RPC_CANCELLED);
    CHECK(job_live(r.e, "cod"));
    call_leave(p1);
    CHECK(call_wait(p1, 10000) && p1->status == CUZK_RPC_CANCELLED);
    CHECK(job_live(r.e, "cod")); /* p2 still waits */
    call_leave(p2);
    CHECK(call_wait(p2, 10000) && p2->status == CUZK_RPC_CANCELLED);
    CHECK(!job_live(r.e, "cod"));
    /* a client gone before its job was queued */
    struct cuzk_rpc_call *p3 = prove(r.s, "cod-early", "256", 2, 1);
    CHECK(call_wait(p3, 60000) && p3->status == CUZK_RPC_CANCELLED);
    enum cuzk_job_state st;
    CHECK(cuzk_engine_job_state(r.e, "cod-early", &st, NULL) == CUZK_OK &&
          st == CUZK_JOB_CANCELLED);
    rig_down(&r);
    call_free(p1);
    call_free(p2);
    call_free(a);
    call_free(p3);
}

static void test_shutdown(void) {
    struct rig r;
    rig_up(&r, 0, 0);
    struct cuzk_rpc_call *calls[8];
    for (int i = 0; i < 4; i++) {
        char id[32];
        snprintf(id, sizeof id, "shut-%d", i);
        calls[i] = prove(r.s, id, "256", (uint64_t)i, 0);
        const double end = test_now_ms() + 60000;
        while (!job_live(r.e, id) && test_now_ms() < end) harness_sleep_ms(1);
        calls[4 + i] = await(r.s, id, 3600000);
    }
    cuzk_engine_shutdown(r.e, CUZK_SHUTDOWN_FINISH); /* never started: cancels */
    for (int i = 0; i < 8; i++) /* (a Prove still parking is answered as it parks) */
        CHECK(call_wait(calls[i], 10000) && result_status(calls[i]) == ST_CANCELLED);
    cuzk_service_stop(r.s);
    CHECK(cuzk_service_waiting(r.s) == 0);
    rig_down(&r);
    for (int i = 0; i < 8; i++) call_free(calls[i]);
}

int main(void) {
    test_init("test_service");
    cuzk_log_set_level(CUZK_LOG_ERROR);
    test_no_thread_per_wait();
    test_departed_at_once();
    test_final_at_once();
    test_timeouts();
    test_cancel_on_disconnect();
    test_shutdown();
    harness_cache_remove();
    return test_finish();
}
