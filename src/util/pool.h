/* A fixed pool of worker threads for data-parallel loops (NTT butterflies, MSM windows, SpMV
 * rows, batch point checks).
 *
 * Contract: cuzk_pool_run(pool, n, fn, ctx) calls fn(ctx, i, worker) exactly once for every
 * i in [0, n), spread over the pool's threads and the calling thread, and returns when all calls
 * have returned. `worker` is in [0, cuzk_pool_size(pool)) and is unique among the calls running
 * at the same moment, so fn may use per-worker scratch indexed by it. Items are handed out one
 * at a time from an atomic counter: make each item coarse (a block of rows, a window). A NULL
 * pool runs everything on the calling thread as worker 0.
 *
 * DESIGN: threads are created once by cuzk_pool_create and sleep on a condition variable
 * between jobs; a job is published under the pool mutex with a generation number, workers take
 * items with an atomic fetch-add without holding the lock, and the last worker to finish
 * signals the caller. Every spawned worker takes part in every job (the caller waits for all of
 * them), so none can miss one. One job runs at a time per pool: a second caller waits on `idle`
 * until the first job is over. One mutex guards all shared state. fn must not call
 * cuzk_pool_run on the same pool (that would deadlock); nested parallelism uses another pool.
 * Thread-safety: cuzk_pool_run is thread-safe; create/destroy are not. */
#ifndef CUZK_UTIL_POOL_H
#define CUZK_UTIL_POOL_H

#include <stddef.h>

struct cuzk_pool;

typedef void (*cuzk_pool_fn)(void *ctx, size_t item, unsigned worker);

/* Creates a pool of nthreads threads in total, counting the caller (so nthreads - 1 are spawned);
 * nthreads = 0 means one per online CPU. Returns CUZK_OK, CUZK_ENOMEM or CUZK_EINVAL. */
int cuzk_pool_create(struct cuzk_pool **out, unsigned nthreads, const char *name);
void cuzk_pool_destroy(struct cuzk_pool *pool);
/* Number of workers (threads including the caller); 1 for a NULL pool. */
unsigned cuzk_pool_size(const struct cuzk_pool *pool);
void cuzk_pool_run(struct cuzk_pool *pool, size_t n, cuzk_pool_fn fn, void *ctx);

/* Number of online CPUs (at least 1). */
unsigned cuzk_cpu_count(void);

#endif
