/* Randomness: the operating system's generator, and a seeded generator for tests.
 *
 * Contract: cuzk_rand_bytes() fills a buffer from getrandom(2) (blocking until the kernel pool
 * is initialised) and fails only if the kernel refuses. struct cuzk_rng is a small,
 * deterministic xoshiro256** generator for reproducible tests and benchmarks; it is NOT
 * cryptographically secure and must never feed a proof's blinding factors outside tests.
 * Thread-safety: cuzk_rand_bytes is thread-safe; a struct cuzk_rng must not be shared between
 * threads without external locking. */
#ifndef CUZK_UTIL_RAND_H
#define CUZK_UTIL_RAND_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf[0..n) from the kernel. Returns CUZK_OK or CUZK_EIO. */
int cuzk_rand_bytes(void *buf, size_t n);

struct cuzk_rng {
    uint64_t s[4];
};

/* Seeds rng deterministically from seed (any value, 0 included). */
void cuzk_rng_seed(struct cuzk_rng *rng, uint64_t seed);
uint64_t cuzk_rng_u64(struct cuzk_rng *rng);
/* Fills buf[0..n) from rng, or from the kernel when rng is NULL. Returns CUZK_OK or CUZK_EIO. */
int cuzk_rng_fill(struct cuzk_rng *rng, void *buf, size_t n);

#endif
