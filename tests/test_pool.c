/* The thread pool: every item runs exactly once, worker ids are in range and never shared by two
 * running calls, several threads may submit jobs to one pool, and a NULL pool runs inline. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cuzk/error.h"
#include "util/pool.h"
#include "test_util.h"

struct job {
    size_t n;
    atomic_int *hits;
    atomic_int in_use[64];
    atomic_int bad_worker;
    unsigned size;
};

static void item(void *ctx, size_t i, unsigned worker) {
    struct job *j = ctx;
    if (worker >= j->size || atomic_fetch_add(&j->in_use[worker], 1) != 0)
        atomic_store(&j->bad_worker, 1);
    atomic_fetch_add(&j->hits[i], 1);
    volatile unsigned spin = 0;
    for (unsigned k = 0; k < (unsigned)(i % 97) * 50; k++) spin += k;
    (void)spin;
    if (worker < j->size) atomic_fetch_sub(&j->in_use[worker], 1);
}

static int run_job(struct cuzk_pool *pool, size_t n) {
    struct job j = {.n = n, .size = cuzk_pool_size(pool)};
    j.hits = calloc(n ? n : 1, sizeof *j.hits);
    for (int w = 0; w < 64; w++) atomic_init(&j.in_use[w], 0);
    atomic_init(&j.bad_worker, 0);
    cuzk_pool_run(pool, n, item, &j);
    int ok = !atomic_load(&j.bad_worker);
    for (size_t i = 0; i < n; i++) ok &= atomic_load(&j.hits[i]) == 1;
    free(j.hits);
    return ok;
}

static void *submitter(void *arg) {
    struct cuzk_pool *pool = arg;
    int ok = 1;
    for (int r = 0; r < 50; r++) ok &= run_job(pool, 1000 + (size_t)r);
    return (void *)(long)ok;
}

int main(void) {
    test_init("test_pool");
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 4, "test") == CUZK_OK);
    CHECK(cuzk_pool_size(pool) == 4);
    CHECK(run_job(pool, 0));
    CHECK(run_job(pool, 1));
    CHECK(run_job(pool, 100000));
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, submitter, pool);
    for (int i = 0; i < 4; i++) {
        void *ok;
        pthread_join(t[i], &ok);
        CHECK(ok == (void *)1);
    }
    cuzk_pool_destroy(pool);
    CHECK(cuzk_pool_size(NULL) == 1);
    CHECK(run_job(NULL, 1000));
    CHECK(cuzk_pool_create(&pool, 0, "auto") == CUZK_OK);
    CHECK(cuzk_pool_size(pool) == cuzk_cpu_count());
    CHECK(run_job(pool, 5000));
    cuzk_pool_destroy(pool);
    return test_finish();
}
