#include "ff/fr_vec.h"

#include "util/pool.h"
#include "util/rand.h"

struct fill_job {
    cuzk_fr *v;
    size_t n;
    uint64_t seed;
};

static void fill_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    const struct fill_job *job = ctxp;
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, job->seed ^ (0x9e3779b97f4a7c15ull * (item + 1)));
    size_t lo = item * CUZK_FR_VEC_BLOCK;
    size_t hi = lo + CUZK_FR_VEC_BLOCK < job->n ? lo + CUZK_FR_VEC_BLOCK : job->n;
    for (size_t i = lo; i < hi; i++) cuzk_fr_random(&job->v[i], &rng);
}

void cuzk_fr_vec_random(struct cuzk_pool *pool, cuzk_fr *v, size_t n, uint64_t seed) {
    struct fill_job job = {v, n, seed};
    cuzk_pool_run(pool, (n + CUZK_FR_VEC_BLOCK - 1) / CUZK_FR_VEC_BLOCK, fill_block, &job);
}
