/* Multi-scalar multiplication on the CPU: out = sum over i of scalars[i] * points[i], on G1 and
 * on G2. This is the hot path of the CPU prover (the A, B and C queries and the h-polynomial
 * sum of a Groth16 proof) and the reference that the GPU MSM is tested against.
 *
 * Promises:
 *   - The result is exact for every input: identity points (stored x = y = 0, as in snarkjs
 *     keys), zero scalars, repeated points, points that cancel (P and -P), and every scalar
 *     below 2^255 (all canonical scalars are below r < 2^255).
 *   - Zero scalars and identity points are skipped at the cost of a comparison; points whose
 *     scalar is 1 (most of a Filecoin witness is 0 or 1) are summed with plain additions and
 *     never enter the windowed part.
 *   - The rest goes through Pippenger's bucket method with signed window digits; buckets are
 *     accumulated in affine coordinates with one shared inversion per batch of additions.
 *   - The result, as a group element, does not depend on the number of threads.
 *
 * Scalars are plain integers (cuzk_scalar), not Montgomery field elements: convert a witness
 * once with cuzk_scalar_batch_from_fr, which may work in place.
 *
 * Memory: an MSM allocates its scratch and frees it before returning: 8 bytes per point, and
 * per thread that takes part at most 8 MiB of sort space, one window's buckets (2^(c-1)
 * affine points for a window of c bits, c <= 16 unless forced: 3 MiB on G1, 6 MiB on G2) and
 * a batch of 8192 points (0.8 MiB on G1, 1.6 MiB on G2).
 *
 * Thread-safety: every function is reentrant. An MSM runs its work on `pool` (NULL: the
 * calling thread alone); it must not be called from inside a job of the same pool. */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "ff/scalar.h" /* cuzk_scalar and its conversions from Fr */
#include "util/pool.h"

/* *out = sum of scalars[i] * points[i] for i < n (the identity when n = 0). Scalars must be
 * below 2^255. Returns CUZK_OK, CUZK_ENOMEM (out untouched) or CUZK_EINVAL when n >= 2^31.
 * Variable time. */
int cuzk_g1_msm(struct cuzk_pool *pool, cuzk_g1 *out, const cuzk_g1_affine *points,
                const cuzk_scalar *scalars, size_t n);
int cuzk_g2_msm(struct cuzk_pool *pool, cuzk_g2 *out, const cuzk_g2_affine *points,
                const cuzk_scalar *scalars, size_t n);

/* Overrides of the choices an MSM makes by itself, for tests and tuning; a field left 0 keeps
 * the automatic choice. The result does not depend on them. */
struct cuzk_msm_tuning {
    unsigned window; /* window width in bits, 1..18 (18 means 2^17 buckets per thread) */
    size_t chunks;   /* ranges each window's points are cut into (one work item each) */
    size_t pass;     /* points of a range sorted by bucket at a time (8 bytes each per thread) */
    size_t slab;     /* points summed per batch of affine additions, at least 2 */
};

/* cuzk_g*_msm with the choices in *tune (NULL: all automatic). Returns CUZK_EINVAL for a
 * window above 18 or a slab of 1, besides the errors of cuzk_g*_msm. */
int cuzk_g1_msm_tuned(struct cuzk_pool *pool, cuzk_g1 *out, const cuzk_g1_affine *points,
                      const cuzk_scalar *scalars, size_t n, const struct cuzk_msm_tuning *tune);
int cuzk_g2_msm_tuned(struct cuzk_pool *pool, cuzk_g2 *out, const cuzk_g2_affine *points,
                      const cuzk_scalar *scalars, size_t n, const struct cuzk_msm_tuning *tune);

/* The same sums as the naive sum of one scalar multiplication per point (cuzk_g*_mul_var):
 * slow, single-threaded, for tests. */
void cuzk_g1_msm_ref(cuzk_g1 *out, const cuzk_g1_affine *points, const cuzk_scalar *scalars,
                     size_t n);
void cuzk_g2_msm_ref(cuzk_g2 *out, const cuzk_g2_affine *points, const cuzk_scalar *scalars,
                     size_t n);

#endif
