/* The number-theoretic transform over Fr on domains of size n = 2^k (CPU reference and fallback).
 *
 * Promise: for a domain D of size n with generator omega = cuzk_fr_root_of_unity(k) (the roots
 * snarkjs uses, so evaluation points match the Lagrange bases of .zkey files), every transform
 * works in place on n elements in natural order in and natural order out:
 *   forward         a_j <- sum_i a_i omega^(ij)                   (evaluations at omega^j)
 *   inverse         the inverse of forward, 1/n scaling included  (coefficients from evaluations)
 *   coset forward   a_j <- sum_i a_i (s omega^j)^i                (evaluations at s omega^j)
 *   coset inverse   the exact inverse of coset forward
 * Results are exact field values: the same input gives the same output for any pool size.
 *
 * The two coset shifts Groth16 needs:
 *   - s = cuzk_fr_generator() = 7, bellperson's coset: h is computed as
 *     inverse -> coset forward(7) -> a*b - c -> times 1/(7^n - 1) -> coset inverse(7), giving the
 *     coefficients of h for the tau^i Z(tau)/delta bases.
 *   - s = D->omega_2n = cuzk_fr_root_of_unity(k + 1), snarkjs's odd coset: inverse then coset
 *     forward(omega_2n) gives the evaluations at omega_2n^(2j+1), the odd 2n-th roots, on which
 *     a*b - c is taken directly (Z = -2 there, no division, no final transform) for the .zkey H
 *     points L^(2n)_(2j+1)(tau)/delta.
 *
 * Invariants: a domain is immutable once created; its twiddle table holds, for every stage
 * half-size m = 2^s < n, the m powers omega_(2m)^j (j < m) contiguously at twiddles[m + j], so a
 * stage reads its twiddles as one sequential run (twiddles[0] is one). The inverse transform is
 * the forward one followed by a reversal of a_1..a_(n-1) (omega^-ij = omega^(i(n-j))), so one
 * table serves both directions: a domain costs 32n bytes (8 GiB at k = 28).
 *
 * Thread-safety: domains are read-only after creation and may be shared by any number of
 * threads. The transforms only touch the array they are given. The process-wide cache is
 * guarded by a mutex; cuzk_ntt_cache_clear must not run while a cached domain is still used. */
#ifndef CUZK_NTT_NTT_H
#define CUZK_NTT_NTT_H

#include <stddef.h>

#include "ff/fr.h"
#include "util/pool.h"

/* The largest domain, 2^28 elements: memory, not the field (two-adicity 32), is the limit. */
#define CUZK_NTT_MAX_LOG 28

struct cuzk_ntt_domain {
    int log_n;         /* k, 1 <= k <= CUZK_NTT_MAX_LOG */
    size_t n;          /* 2^k */
    cuzk_fr omega;     /* a primitive n-th root of unity: cuzk_fr_root_of_unity(k) */
    cuzk_fr omega_inv; /* omega^-1 */
    cuzk_fr n_inv;     /* 1/n */
    cuzk_fr omega_2n;  /* cuzk_fr_root_of_unity(k + 1), a square root of omega (snarkjs shift) */
    cuzk_fr *twiddles; /* n entries, the stage-contiguous layout described above */
};

/* Builds the domain of size 2^log_n, computing its twiddles on pool (NULL: this thread).
 * Returns CUZK_OK, CUZK_EINVAL for log_n outside [1, CUZK_NTT_MAX_LOG], or CUZK_ENOMEM. */
int cuzk_ntt_domain_create(struct cuzk_pool *pool, int log_n, struct cuzk_ntt_domain **out);
/* Frees a domain from cuzk_ntt_domain_create (NULL is ignored); never one from the cache. */
void cuzk_ntt_domain_free(struct cuzk_ntt_domain *d);

/* The process-wide domain of size 2^log_n: built on first use, then the same pointer for every
 * later call until cuzk_ntt_cache_clear. The first call builds single-threaded while holding the
 * cache lock (about n/2 multiplications; concurrent first calls wait rather than build twice).
 * Returns CUZK_OK, CUZK_EINVAL or CUZK_ENOMEM (a failed build is not cached; a later call tries
 * again). */
int cuzk_ntt_domain_get(int log_n, const struct cuzk_ntt_domain **out);
/* Frees every cached domain (tests and shutdown). Pointers handed out before become invalid. */
void cuzk_ntt_cache_clear(void);

/* The transforms, on a[0..d->n). pool may be NULL (this thread only); shift must be nonzero.
 * They allocate nothing and cannot fail. */
void cuzk_ntt_forward(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a);
void cuzk_ntt_inverse(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a);
void cuzk_ntt_coset_forward(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                            const cuzk_fr *shift);
void cuzk_ntt_coset_inverse(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                            const cuzk_fr *shift);

/* a_i <- a_i s^i for i < n (s^0 = 1), on pool. Used by the coset transforms; exposed for
 * callers that fold the coset shift into other passes. */
void cuzk_ntt_scale_powers(struct cuzk_pool *pool, cuzk_fr *a, size_t n, const cuzk_fr *s);

#endif
