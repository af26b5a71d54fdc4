/* The proving engine when things go wrong: a partition whose backend fails twice fails its job
 * at once and frees its siblings' memory, a single failure is retried (on the same device, on
 * another device, on the fallback backend, before and after the inner proof), and shutdown
 * answers every waiter (cancelling or finishing the jobs). Backends are the CPU backend behind
 * a wrapper that holds proofs at a gate and fails chosen partitions. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "kinds/synthetic.h"
#include "util/log.h"
#include "engine_harness.h"
#include "test_util.h"

static struct cuzk_pool *pool;
static struct cuzk_backend cpu;

static struct cuzk_job_request req(const char *circuit, uint64_t seed, const char *rid) {
    struct cuzk_job_request r = {.kind = "synthetic",
                                 .circuit_id = circuit,
                                 .request_id = rid,
                                 .priority = CUZK_PRIORITY_DEFAULT,
                                 .seed = seed};
    return r;
}

static uint64_t partition_bytes(struct cuzk_engine *e) {
    struct cuzk_engine_status st;
    uint64_t b = UINT64_MAX;
    if (cuzk_engine_status(e, &st) == CUZK_OK) {
        b = st.memory.by_owner[CUZK_MEM_PARTITION];
        cuzk_engine_status_free(&st);
    }
    return b;
}

/* Waits (5 s at most) until no partition memory is held. */
static int wait_partitions_freed(struct cuzk_engine *e) {
    for (int i = 0; i < 500; i++) {
        if (partition_bytes(e) == 0) return 1;
        harness_sleep_ms(10);
    }
    return 0;
}

static void test_failure(int at_start) {
    struct wrap wr;
    wrap_init(&wr, &cpu, "flaky");
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 2};
    struct cuzk_engine_config c;
    struct trace_cap t;
    trace_cap_init(&t);
    harness_config(&c, &t);
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];

    /* partition 3 of 5 fails twice: the job fails, naming it; the rest is dropped */
    wrap_fail(&wr, at_start, cuzk_synth_partition_seed(11, 3), -1);
    struct cuzk_job_request r = req("256x5", 11, "bad-job");
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    int prc = cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err);
    CHECK(prc == CUZK_EGPU);
    CHECK(res.state == CUZK_JOB_FAILED && res.err == CUZK_EGPU && res.proof == NULL);
    CHECK(strstr(res.error, "partition 3 GPU prove failed") != NULL);
    CHECK(strstr(res.error, at_start ? "failure before the proof" : "failure after the proof") !=
          NULL);
    CHECK(res.timings.retries == 1);
    CHECK(atomic_load(&wr.failures) == 2);
    cuzk_job_result_free(&res);
    CHECK(wait_partitions_freed(e));
    CHECK(trace_find(&t, 0, "CUZK_TIMING ", "job=bad-job", "state=failed", (char *)NULL) >= 0);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.failed == 1 && st.n_jobs == 0 && st.devices[0].errors == 2);
    cuzk_engine_status_free(&st);
    /* other jobs are unaffected, and the failed id may be retried: it runs again */
    wrap_fail(&wr, at_start, 0, 0);
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(!info.attached && res.state == CUZK_JOB_DONE && res.n_partitions == 5);
    cuzk_job_result_free(&res);

    /* one failure only: retried once on the same device (the only one), and the job is done */
    atomic_store(&wr.failures, 0);
    wrap_fail(&wr, at_start, cuzk_synth_partition_seed(12, 1), 1);
    r = req("256x3", 12, "retry-job");
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.retries == 1);
    CHECK(atomic_load(&wr.failures) == 1);
    /* the retried partition was queued for the device twice */
    long q1 = trace_find(&t, 0, "TIMELINE,", ",GPU_QUEUE,retry-job,", "partition=1", (char *)NULL);
    CHECK(q1 >= 0 && trace_find(&t, (size_t)q1 + 1, "TIMELINE,", ",GPU_QUEUE,retry-job,",
                                "partition=1", (char *)NULL) > q1);
    cuzk_job_result_free(&res);
    CHECK(wait_partitions_freed(e));
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    trace_cap_free(&t);
    wrap_destroy(&wr);
}

/* Two devices: the retry avoids the device that failed. A fallback: the retry runs there. */
static void test_retry_elsewhere(void) {
    struct wrap a, b, fb;
    wrap_init(&a, &cpu, "dev-a");
    wrap_init(&b, &cpu, "dev-b");
    wrap_init(&fb, &cpu, "fallback");
    struct cuzk_engine_device devs[2] = {{.backend = &a.be, .workers = 1},
                                         {.backend = &b.be, .workers = 1}};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = devs;
    c.n_devices = 2;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    /* both devices always fail partition 0: its two attempts ran on different devices (the
     * retry avoids the device that failed), then the job fails */
    uint64_t s0 = cuzk_synth_partition_seed(21, 0);
    wrap_fail(&a, 1, s0, -1);
    wrap_fail(&b, 1, s0, -1);
    struct cuzk_job_request r = req("256x2", 21, NULL);
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_EGPU);
    CHECK(res.state == CUZK_JOB_FAILED && res.timings.retries == 1);
    CHECK(atomic_load(&a.failures) == 1 && atomic_load(&b.failures) == 1);
    cuzk_job_result_free(&res);
    /* without failures both devices prove */
    wrap_fail(&a, 1, 0, 0);
    wrap_fail(&b, 1, 0, 0);
    r = req("256x4", 23, NULL);
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    cuzk_job_result_free(&res);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_devices == 2 && st.devices[0].proofs + st.devices[1].proofs >= 4);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);

    /* a fallback backend: the primary always fails partition 1, the fallback proves it */
    struct cuzk_engine_device fdev = {.backend = &fb.be, .name = "cpu-fallback"};
    harness_config(&c, NULL);
    c.devices = devs;
    c.n_devices = 1;
    c.fallback = &fdev;
    e = harness_engine(&c, &ks, HARNESS_STARTED);
    atomic_store(&a.failures, 0);
    wrap_fail(&a, 0, cuzk_synth_partition_seed(22, 1), -1);
    r = req("256x3", 22, NULL);
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.retries == 1);
    CHECK(atomic_load(&a.failures) == 1 && atomic_load(&fb.starts) == 1);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_devices == 2 && st.devices[1].is_fallback && st.devices[1].proofs == 1);
    CHECK(st.devices[0].errors == 1 && !strcmp(st.devices[1].name, "cpu-fallback"));
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&a);
    wrap_destroy(&b);
    wrap_destroy(&fb);
}

/* ---- shutdown answers every waiter ---- */

struct waiter {
    struct cuzk_engine *e;
    char id[64];
    int rc;
    struct cuzk_job_result res;
    pthread_t th;
};

static void *waiter_main(void *arg) {
    struct waiter *w = arg;
    w->rc = cuzk_engine_await(w->e, w->id, -1, &w->res);
    return NULL;
}

struct opener {
    struct wrap *w;
    unsigned delay_ms;
};

static void *open_later(void *arg) {
    struct opener *o = arg;
    harness_sleep_ms(o->delay_ms);
    wrap_gate(o->w, 0);
    return NULL;
}

static void test_shutdown(enum cuzk_shutdown_mode mode) {
    struct wrap wr;
    wrap_init(&wr, &cpu, "gated");
    wrap_gate(&wr, 1);
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 2};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    enum { NJ = 4, NW = 8 };
    for (int i = 0; i < NJ; i++) {
        char id[32];
        snprintf(id, sizeof id, "sd-%d", i);
        struct cuzk_job_request r = req("256x2", 100 + (uint64_t)i, id);
        struct cuzk_submit_info info;
        CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    }
    CHECK(wrap_wait_in_gate(&wr, 1)); /* one proof held inside the backend's prove */
    struct waiter w[NW];
    for (int i = 0; i < NW; i++) {
        w[i].e = e;
        snprintf(w[i].id, sizeof w[i].id, "sd-%d", i % NJ);
        w[i].rc = 12345;
        pthread_create(&w[i].th, NULL, waiter_main, &w[i]);
    }
    harness_sleep_ms(50); /* let the waiters block */
    struct opener o = {&wr, 100};
    pthread_t opener_th;
    pthread_create(&opener_th, NULL, open_later, &o); /* the held proofs must end for shutdown */
    cuzk_engine_shutdown(e, mode);
    pthread_join(opener_th, NULL);
    for (int i = 0; i < NW; i++) {
        pthread_join(w[i].th, NULL);
        if (mode == CUZK_SHUTDOWN_CANCEL) {
            CHECK(w[i].rc == CUZK_ESHUTDOWN);
            CHECK(w[i].res.state == CUZK_JOB_CANCELLED && w[i].res.err == CUZK_ESHUTDOWN);
        } else {
            CHECK(w[i].rc == CUZK_OK && w[i].res.state == CUZK_JOB_DONE);
            CHECK(w[i].res.n_partitions == 2);
        }
        cuzk_job_result_free(&w[i].res);
    }
    /* after shutdown: no new work, stored answers still there */
    struct cuzk_job_request r = req("256", 1, "late");
    struct cuzk_submit_info info;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_ESHUTDOWN);
    struct cuzk_job_result res;
    int rc = cuzk_engine_await(e, "sd-0", 0, &res);
    CHECK(mode == CUZK_SHUTDOWN_CANCEL ? rc == CUZK_ESHUTDOWN : rc == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(partition_bytes(e) == 0);
    cuzk_engine_shutdown(e, mode); /* idempotent */
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&wr);
}

/* An engine that never started answers its waiters at shutdown too. */
static void test_shutdown_unstarted(void) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_UNSTARTED);
    char err[256];
    struct cuzk_job_request r = req("256x2", 1, "never");
    struct cuzk_submit_info info;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    struct waiter w = {.e = e, .id = "never", .rc = 1};
    pthread_create(&w.th, NULL, waiter_main, &w);
    harness_sleep_ms(30);
    cuzk_engine_shutdown(e, CUZK_SHUTDOWN_FINISH); /* unstarted: cancels */
    pthread_join(w.th, NULL);
    CHECK(w.rc == CUZK_ESHUTDOWN && w.res.state == CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&w.res);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

int main(void) {
    test_init("test_engine_faults");
    cuzk_log_set_level(CUZK_LOG_ERROR);
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    cuzk_cpu_backend_init(&cpu, pool);
    test_failure(1);
    test_failure(0);
    test_retry_elsewhere();
    test_shutdown(CUZK_SHUTDOWN_CANCEL);
    test_shutdown(CUZK_SHUTDOWN_FINISH);
    test_shutdown_unstarted();
    cuzk_pool_destroy(pool);
    harness_cache_remove();
    return test_finish();
}
