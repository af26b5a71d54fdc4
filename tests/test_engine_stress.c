/* 1,000 concurrent submissions from 8 threads (mixed priorities, some request ids submitted
 * twice from different threads): every job is answered, each exactly once, nothing is lost or
 * duplicated in the queues (unique keys), the counters add up and nothing is left behind.
 * The device is a stand-in backend that returns a fixed proof at once (self-verification
 * off): this test is about the queues; the other engine tests check real proofs. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "util/log.h"
#include "engine_harness.h"
#include "test_util.h"

#define THREADS 8
#define PER_THREAD 125 /* 1,000 submissions */
#define SHARED 50      /* request ids submitted by two threads each */

struct sub {
    struct cuzk_engine *e;
    int t;
    int ok, attached, bad;
    char ids[PER_THREAD][CUZK_JOB_ID_MAX];
    uint32_t parts[PER_THREAD];
};

static pthread_barrier_t start;

/* A backend that proves nothing: it returns the generators at once. */
static int fake_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                      const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                      const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                      struct cuzk_prove_info *info, char *err, size_t errlen) {
    (void)be, (void)pk, (void)w, (void)n_w, (void)r, (void)s, (void)info, (void)err, (void)errlen;
    if (hooks && hooks->witness_done) hooks->witness_done(hooks->ctx);
    cuzk_g1_generator(&out->a);
    cuzk_g2_generator(&out->b);
    cuzk_g1_generator(&out->c);
    return CUZK_OK;
}

static void fake_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                     struct cuzk_backend_mem *out) {
    (void)be, (void)n_vars, (void)domain;
    memset(out, 0, sizeof *out);
}

static void *submitter(void *arg) {
    struct sub *s = arg;
    char err[256];
    pthread_barrier_wait(&start);
    for (int i = 0; i < PER_THREAD; i++) {
        /* threads 0 and 1 share the ids of their first SHARED jobs */
        char rid[64];
        int shared = s->t < 2 && i < SHARED;
        if (shared)
            snprintf(rid, sizeof rid, "shared-%d", i);
        else
            snprintf(rid, sizeof rid, "t%d-j%d", s->t, i);
        uint32_t parts = 1 + ((s->t + i) % 4 == 0);
        char circuit[32];
        snprintf(circuit, sizeof circuit, "195x%u", shared ? 2 : parts);
        struct cuzk_job_request r = {.kind = "synthetic",
                                     .circuit_id = circuit,
                                     .request_id = (i % 7 == 3 && !shared) ? NULL : rid,
                                     .priority = (s->t + 3 * i) % 4,
                                     /* a shared id is the same request from both threads */
                                     .seed = shared ? (uint64_t)i : (uint64_t)(s->t * 1000 + i)};
        struct cuzk_submit_info info;
        if (cuzk_engine_submit(s->e, &r, &info, err, sizeof err) != CUZK_OK) {
            s->bad++;
            continue;
        }
        s->attached += info.attached;
        snprintf(s->ids[i], sizeof s->ids[i], "%s", info.job_id);
        s->parts[i] = shared ? 2 : parts;
    }
    for (int i = 0; i < PER_THREAD; i++) {
        struct cuzk_job_result res;
        if (!s->ids[i][0]) continue;
        int rc = cuzk_engine_await(s->e, s->ids[i], 120000, &res);
        if (rc == CUZK_OK && res.state == CUZK_JOB_DONE && !strcmp(res.job_id, s->ids[i]) &&
            res.n_partitions == s->parts[i] && res.proof_len == s->parts[i] * CUZK_PROOF_BYTES)
            s->ok++;
        else
            s->bad++;
        cuzk_job_result_free(&res);
    }
    return NULL;
}

static size_t count_lines(struct trace_cap *t, const char *prefix, const char *needle) {
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n; i++)
        if (!strncmp(t->lines[i], prefix, strlen(prefix)) && strstr(t->lines[i], needle)) n++;
    pthread_mutex_unlock(&t->mu);
    return n;
}

int main(void) {
    test_init("test_engine_stress");
    cuzk_log_set_level(CUZK_LOG_WARN);
    struct trace_cap t;
    trace_cap_init(&t);
    struct cuzk_engine_config c;
    harness_config(&c, &t);
    c.self_verify = 0;
    struct cuzk_backend fake = {.name = "fake", .prove = fake_prove, .mem = fake_mem};
    struct cuzk_engine_device dev = {.backend = &fake};
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    static struct sub subs[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    double t0 = harness_ms();
    for (int i = 0; i < THREADS; i++) {
        subs[i].e = e;
        subs[i].t = i;
        pthread_create(&th[i], NULL, submitter, &subs[i]);
    }
    int ok = 0, attached = 0, bad = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        ok += subs[i].ok;
        attached += subs[i].attached;
        bad += subs[i].bad;
    }
    double ms = harness_ms() - t0;
    pthread_barrier_destroy(&start);
    CHECK(bad == 0);
    CHECK(ok == THREADS * PER_THREAD); /* every submission answered with its own job's proof */
    CHECK(attached == SHARED);         /* each shared id: one job, one attach */
    uint64_t jobs = THREADS * PER_THREAD - SHARED;
    uint64_t parts = 0;
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < PER_THREAD; k++)
            if (!(i == 1 && k < SHARED)) parts += subs[i].parts[k];
    /* every thread's last lines are out once the engine has stopped */
    cuzk_engine_shutdown(e, CUZK_SHUTDOWN_FINISH);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.completed == jobs && st.failed == 0 && st.cancelled == 0);
    CHECK(st.n_jobs == 0 && st.memory.by_owner[CUZK_MEM_PARTITION] == 0);
    CHECK(st.memory.by_owner[CUZK_MEM_OTHER] == 0);
    cuzk_engine_status_free(&st);
    /* each job was finished once, each partition proved and finalized once */
    CHECK(count_lines(&t, "CUZK_TIMING ", "state=done") == jobs);
    CHECK(count_lines(&t, "TIMELINE,", ",FIN_END,") == parts);
    CHECK(count_lines(&t, "TIMELINE,", ",GPU_QUEUE,") == parts);
    CHECK(count_lines(&t, "TIMELINE,", ",SYNTH_START,") == parts);
    printf("test_engine_stress: %llu jobs, %llu partitions in %.0f ms\n", (unsigned long long)jobs,
           (unsigned long long)parts, ms);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    trace_cap_free(&t);
    harness_cache_remove();
    return test_finish();
}
