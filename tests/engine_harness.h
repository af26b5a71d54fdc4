/* Shared pieces of the engine tests: a trace capture, a wrapper backend that can hold proofs at
 * a gate and fail chosen partitions on demand, and a test configuration (small circuits, the
 * CPU backend, a private key cache). Header-only: each test is one program. */
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
#include "engine/synthetic.h"
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
    int in_gate; /* prove_start calls waiting at the gate */
    /* fail prove_start (start) or prove_finish (finish) of the partition whose public s0
     * (w[2] of the synthetic circuit) is fail_s0, fail_times times (-1: always) */
    int fail_start, fail_finish, fail_times;
    uint64_t fail_s0;
    atomic_int starts, failures;
};

struct wrap_pending {
    struct wrap *w;
    struct cuzk_prove_pending *inner;
    int fail;
};

static inline int wrap_prove_start(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                                   const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                                   struct cuzk_prove_pending **out) {
    struct wrap *x = be->impl;
    pthread_mutex_lock(&x->mu);
    x->in_gate++;
    pthread_cond_broadcast(&x->cv);
    while (x->gate_closed) pthread_cond_wait(&x->cv, &x->mu);
    x->in_gate--;
    int fail = 0;
    if ((x->fail_start || x->fail_finish) && x->fail_times != 0 && n_w > 2) {
        cuzk_fr t;
        cuzk_fr_from_u64(&t, x->fail_s0);
        if (cuzk_fr_eq(&t, &w[2])) {
            fail = 1;
            if (x->fail_times > 0) x->fail_times--;
        }
    }
    pthread_mutex_unlock(&x->mu);
    atomic_fetch_add(&x->starts, 1);
    if (fail && x->fail_start) {
        atomic_fetch_add(&x->failures, 1);
        return CUZK_EGPU;
    }
    struct wrap_pending *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ENOMEM;
    p->w = x;
    p->fail = fail && x->fail_finish;
    int rc = x->inner->prove_start(x->inner, pk, w, n_w, r, s, &p->inner);
    if (rc) {
        free(p);
        return rc;
    }
    *out = (struct cuzk_prove_pending *)p;
    return CUZK_OK;
}

static inline int wrap_prove_finish(struct cuzk_prove_pending *pp, struct cuzk_snarkjs_proof *out) {
    struct wrap_pending *p = (struct wrap_pending *)pp;
    int rc = p->w->inner->prove_finish(p->inner, out);
    if (!rc && p->fail) {
        atomic_fetch_add(&p->w->failures, 1);
        rc = CUZK_EGPU;
    }
    free(p);
    return rc;
}

static inline void wrap_init(struct wrap *x, const struct cuzk_backend *inner, const char *name) {
    memset(x, 0, sizeof *x);
    x->inner = inner;
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    x->be.name = name;
    x->be.prove_start = wrap_prove_start;
    x->be.prove_finish = wrap_prove_finish;
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

static inline void harness_config(struct cuzk_engine_config *c, struct trace_cap *t) {
    cuzk_engine_config_default(c);
    c->total_budget = "1GiB";
    c->cpu_threads = 2;
    c->synth_workers = 2;
    c->cache_dir = harness_cache_dir();
    c->trace_file = NULL;
    if (t) {
        c->trace_fn = trace_cap_fn;
        c->trace_ctx = t;
    }
}

static inline double harness_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void harness_sleep_ms(unsigned ms) { usleep(ms * 1000u); }

#endif
