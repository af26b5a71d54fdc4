/* Whole vectors of Fr elements, filled on a thread pool.
 *
 * Contract: cuzk_fr_vec_random fills v[0..n) with uniform elements drawn from seeded generators,
 * one per block of CUZK_FR_VEC_BLOCK elements (seeded from seed and the block index), so the
 * result depends only on (seed, n), never on the pool size or on scheduling. It is for tests,
 * benchmarks and synthetic workloads, not for secrets (struct cuzk_rng is not cryptographic).
 * Thread-safety: reentrant; pool may be NULL (the calling thread). */
#ifndef CUZK_FF_FR_VEC_H
#define CUZK_FF_FR_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

struct cuzk_pool;

#define CUZK_FR_VEC_BLOCK 65536

void cuzk_fr_vec_random(struct cuzk_pool *pool, cuzk_fr *v, size_t n, uint64_t seed);

#endif
