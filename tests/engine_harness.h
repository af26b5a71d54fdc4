/* Shared pieces of the engine tests: a trace capture, a wrapper backend that can hold proofs at
 * a gate and fail chosen partitions on demand, a test configuration (small circuits, the CPU
 * backend, a private key cache) and the engine made from it. Header-only: each test is one
 * program. */
#ifndef CUZK_TESTS_ENGINE_HARNESS_H
#define CUZK_TESTS_ENGINE_HARNESS_H

#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "kinds/kinds.h"
#include "kinds/synthetic.h"
#include "groth16/groth16.h"
#include "util/pool.h"

/* ---- trace capture ---- */

struct trace_cap {
    pthread_mutex_t mu;
    char **lines;
    size_t n, cap;
};

static inline void trace_cap_init(struct trace_cap *t) {
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
}

static inline void trace_cap_fn(void *ctx, const char *line) {
    struct trace_cap *t = ctx;
    pthread_mutex_lock(&t->mu);
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->lines = realloc(t->lines, t->cap * sizeof *t->lines);
    }
    t->lines[t->n++] = strdup(line);
    pthread_mutex_unlock(&t->mu);
}

static inline void trace_cap_free(struct trace_cap *t) {
    for (size_t i = 0; i < t->n; i++) free(t->lines[i]);
    free(t->lines);
    pthread_mutex_destroy(&t->mu);
}

/* Index of the first captured line at or after `from` that starts with prefix and contains
 * every one of the (NULL-terminated) substrings, or -1. */
static inline long trace_find(struct trace_cap *t, size_t from, const char *prefix, ...) {
    long found = -1;
    pthread_mutex_lock(&t->mu);
    for (size_t i = from; i < t->n && found < 0; i++) {
        if (strncmp(t->lines[i], prefix, strlen(prefix))) continue;
        va_list ap;
        va_start(ap, prefix);
        int ok = 1;
        for (const char *s; ok && (s = va_arg(ap, const char *));) ok = strstr(t->lines[i], s) != 0;
        va_end(ap);
        if (ok) found = (long)i;
    }
    pthread_mutex_unlock(&t->mu);
    return found;
}

/* ---- a wrapper backend: a gate, and failures on demand ---- */

struct wrap {
    struct cuzk_backend be;
    const struct cuzk_backend *inner;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int gate_closed;
    int in_gate; /* proofs waiting at the gate */
    /* fail the proof of the partition whose public s0 (w[2] of the synthetic circuit) is
     * fail_s0, fail_times times (-1: always): before the inner backend runs (fail_start), or
     * after it (fail_finish); wrong_proof returns a wrong proof instead of an error */
    int fail_start, fail_finish, wrong_proof, fail_times;
    uint64_t fail_s0;
    atomic_int starts, failures;
};

static inline int wrap_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                             const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                             const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                             struct cuzk_prove_info *info, char *err, size_t errlen) {
    struct wrap *x = be->impl;
    pthread_mutex_lock(&x->mu);
    x->in_gate++;
    pthread_cond_broadcast(&x->cv);
    while (x->gate_closed) pthread_cond_wait(&x->cv, &x->mu);
    x->in_gate--;
    int fail = 0;
    if ((x->fail_start || x->fail_finish || x->wrong_proof) && x->fail_times != 0 && n_w > 2) {
        cuzk_fr t;
        cuzk_fr_from_u64(&t, x->fail_s0);
        if (cuzk_fr_eq(&t, &w[2])) {
            fail = 1;
            if (x->fail_times > 0) x->fail_times--;
        }
    }
    int at_start = x->fail_start, wrong = x->wrong_proof;
    pthread_mutex_unlock(&x->mu);
    atomic_fetch_add(&x->starts, 1);
    if (fail && at_start) {
        atomic_fetch_add(&x->failures, 1);
        if (hooks && hooks->witness_done) hooks->witness_done(hooks->ctx);
        snprintf(err, errlen, "wrap: an injected failure before the proof");
        return CUZK_EGPU;
    }
    int rc = x->inner->prove(x->inner, pk, w, n_w, r, s, hooks, out, info, err, errlen);
    if (!rc && fail && wrong) {
        atomic_fetch_add(&x->failures, 1);
        out->a = pk->alpha1; /* a valid point, but not this proof's */
    } else if (!rc && fail) {
        atomic_fetch_add(&x->failures, 1);
        snprintf(err, errlen, "wrap: an injected failure after the proof");
        rc = CUZK_EGPU;
    }
    return rc;
}

static inline void wrap_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                            struct cuzk_backend_mem *out) {
    const struct wrap *x = be->impl;
    x->inner->mem(x->inner, n_vars, domain, out);
}

static inline void wrap_init(struct wrap *x, const struct cuzk_backend *inner, const char *name) {
    memset(x, 0, sizeof *x);
    x->inner = inner;
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    /* the inner backend's memory model; its witness buffers and key hooks are not wrapped (the
     * engine tests run the CPU backend, which has none) */
    x->be.name = name;
    x->be.prove = wrap_prove;
    x->be.mem = wrap_mem;
    x->be.impl = x;
}

static inline void wrap_gate(struct wrap *x, int closed) {
    pthread_mutex_lock(&x->mu);
    x->gate_closed = closed;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* Waits until n proofs wait at the gate (5 s at most); returns 1 when they do. */
static inline int wrap_wait_in_gate(struct wrap *x, int n) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5;
    pthread_mutex_lock(&x->mu);
    int rc = 0;
    while (x->in_gate < n && rc == 0) rc = pthread_cond_timedwait(&x->cv, &x->mu, &dl);
    int ok = x->in_gate >= n;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

static inline void wrap_fail(struct wrap *x, int at_start, uint64_t s0, int times) {
    pthread_mutex_lock(&x->mu);
    x->fail_start = at_start;
    x->fail_finish = !at_start;
    x->wrong_proof = 0;
    x->fail_s0 = s0;
    x->fail_times = times;
    pthread_mutex_unlock(&x->mu);
}

static inline void wrap_destroy(struct wrap *x) {
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

/* ---- configuration ---- */

static char harness_cache[256];

/* A private key cache directory for this test program (removed at exit by the test). */
static inline const char *harness_cache_dir(void) {
    if (!harness_cache[0]) {
        snprintf(harness_cache, sizeof harness_cache, "/tmp/cuzk-engine-test-XXXXXX");
        if (!mkdtemp(harness_cache)) snprintf(harness_cache, sizeof harness_cache, "/tmp");
    }
    return harness_cache;
}

static inline void harness_cache_remove(void) {
    if (!harness_cache[0] || !strcmp(harness_cache, "/tmp")) return;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", harness_cache);
    if (system(cmd)) {
    }
}

/* A wrong proof (a valid point in A) for the partition of s0, `times` times. */
static inline void wrap_wrong(struct wrap *x, uint64_t s0, int times) {
    pthread_mutex_lock(&x->mu);
    x->fail_start = x->fail_finish = 0;
    x->wrong_proof = 1;
    x->fail_s0 = s0;
    x->fail_times = times;
    pthread_mutex_unlock(&x->mu);
}

/* The kinds every engine test uses (synthetic, snarkjs; no Filecoin kinds), with the private
 * key cache: registered with e, destroyed by cuzk_kinds_destroy after the engine. */
static inline struct cuzk_kinds *harness_kinds(struct cuzk_engine *e) {
    struct cuzk_kinds_config kc;
    cuzk_kinds_config_default(&kc);
    kc.cache_dir = harness_cache_dir();
    kc.filecoin = 0;
    struct cuzk_kinds *ks = NULL;
    char err[256];
    if (cuzk_kinds_create(&ks, &kc, err, sizeof err) ||
        cuzk_kinds_register(ks, e, err, sizeof err)) {
        fprintf(stderr, "harness: %s\n", err);
        exit(1);
    }
    return ks;
}

static inline void harness_config(struct cuzk_engine_config *c, struct trace_cap *t) {
    cuzk_engine_config_default(c);
    c->total_budget = (uint64_t)1 << 30;
    c->cpu_threads = 2;
    c->synth_workers = 2;
    c->trace_file = NULL;
    if (t) {
        c->trace_fn = trace_cap_fn;
        c->trace_ctx = t;
    }
}

enum harness_start { HARNESS_STARTED, HARNESS_UNSTARTED };

/* What every engine test does before its own checks: an engine made from c (harness_config and
 * the test's own settings, set at the call site), the harness kinds registered (*ks, destroyed
 * by the caller after the engine) and, unless the test queues work before the threads run
 * (HARNESS_UNSTARTED: cuzk_engine_start is the test's), started. Exits the test when any of it
 * fails: nothing the test checks afterwards could run. */
static inline struct cuzk_engine *harness_engine(const struct cuzk_engine_config *c,
                                                 struct cuzk_kinds **ks, enum harness_start s) {
    struct cuzk_engine *e = NULL;
    char err[256];
    int rc = cuzk_engine_create(&e, c, err, sizeof err);
    if (rc) {
        fprintf(stderr, "harness: engine: %s\n", err);
        exit(1);
    }
    *ks = harness_kinds(e);
    if (s == HARNESS_STARTED && (rc = cuzk_engine_start(e))) {
        fprintf(stderr, "harness: engine start: %s\n", cuzk_strerror(rc));
        exit(1);
    }
    return e;
}

static inline double harness_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void harness_sleep_ms(unsigned ms) { usleep(ms * 1000u); }

#endif
