#define _GNU_SOURCE
#include "util/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuzk/error.h"

struct cuzk_pool {
    pthread_mutex_t lock; /* guards the fields below */
    pthread_cond_t wake;  /* workers: a new job or stop */
    pthread_cond_t done;  /* the caller: the last worker left the job */
    pthread_cond_t idle;  /* other callers: the pool is free */
    int busy;             /* a job is in progress */
    unsigned nthreads; /* spawned threads; workers are these plus the caller */
    pthread_t *threads;
    unsigned long generation; /* bumped for every job */
    int stopping;
    /* the current job */
    cuzk_pool_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next;
    unsigned active; /* spawned threads still inside the current job */
};

struct worker_arg {
    struct cuzk_pool *pool;
    unsigned id;
};

static void drain(struct cuzk_pool *p, cuzk_pool_fn fn, void *ctx, size_t n, unsigned id) {
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= n) return;
        fn(ctx, i, id);
    }
}

static void *worker_main(void *argp) {
    struct worker_arg *arg = argp;
    struct cuzk_pool *p = arg->pool;
    unsigned id = arg->id;
    free(arg);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stopping) break;
        seen = p->generation;
        cuzk_pool_fn fn = p->fn;
        void *ctx = p->ctx;
        size_t n = p->n;
        pthread_mutex_unlock(&p->lock);
        drain(p, fn, ctx, n, id);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

unsigned cuzk_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int cuzk_pool_create(struct cuzk_pool **out, unsigned nthreads, const char *name) {
    if (nthreads == 0) nthreads = cuzk_cpu_count();
    if (nthreads > 4096) return CUZK_EINVAL;
    struct cuzk_pool *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ENOMEM;
    p->nthreads = nthreads - 1;
    p->threads = calloc(p->nthreads ? p->nthreads : 1, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return CUZK_ENOMEM;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (unsigned i = 0; i < p->nthreads; i++) {
        struct worker_arg *arg = malloc(sizeof *arg);
        if (arg) {
            arg->pool = p;
            arg->id = i + 1; /* the caller is worker 0 */
        }
        if (!arg || pthread_create(&p->threads[i], NULL, worker_main, arg) != 0) {
            free(arg);
            p->nthreads = i;
            cuzk_pool_destroy(p);
            return CUZK_ENOMEM;
        }
        char tname[32];
        snprintf(tname, sizeof tname, "%.8s-%u", name ? name : "pool", i + 1);
        tname[15] = '\0'; /* the kernel keeps 15 characters */
        pthread_setname_np(p->threads[i], tname);
    }
    *out = p;
    return CUZK_OK;
}

void cuzk_pool_destroy(struct cuzk_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->idle);
    free(p->threads);
    free(p);
}

unsigned cuzk_pool_size(const struct cuzk_pool *p) { return p ? p->nthreads + 1 : 1; }

void cuzk_pool_run(struct cuzk_pool *p, size_t n, cuzk_pool_fn fn, void *ctx) {
    if (n == 0) return;
    if (!p || p->nthreads == 0 || n == 1) {
        for (size_t i = 0; i < n; i++) fn(ctx, i, 0);
        return;
    }
    pthread_mutex_lock(&p->lock);
    while (p->busy) pthread_cond_wait(&p->idle, &p->lock);
    p->busy = 1;
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->active = p->nthreads;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    drain(p, fn, ctx, n, 0);
    pthread_mutex_lock(&p->lock);
    while (p->active > 0) pthread_cond_wait(&p->done, &p->lock);
    p->busy = 0;
    pthread_cond_signal(&p->idle);
    pthread_mutex_unlock(&p->lock);
}
