/* Host twins of the GPU MSM, point decompression and NTT code (src/gpu/cuda/msm*.cu, points.cu,
 * ntt.cu, ff_fp.cuh, ff_fr.cuh, ec.cuh), for tests on machines without a GPU.
 *
 * Promise: each function runs, on the host, the very functions the GPU runs (the device field
 * and curve code is __host__ __device__ with portable C++ in place of the PTX carry chains),
 * so comparing a twin with src/ff, src/ec and src/msm checks the GPU's arithmetic, formulas,
 * digit decomposition, MSM driver, batch multiplication and NTT everywhere but in the PTX of the
 * fields' carry chains and the CUB calls (which the GPU tests in tests/test_gpu_msm.c and
 * tests/test_gpu_ntt.c cover). The twins are slow (portable 32-bit arithmetic, one thread): for
 * thousands of field operations and MSMs of a few thousand points.
 *
 * Every function returns CUZK_OK or a negative cuzk code: CUZK_EINVAL for bad arguments,
 * CUZK_ENOMEM. The twin code lives in the CUDA sources: a build without CUDA has none (nor
 * test_gpu_twin). Thread-safety: reentrant. */
#ifndef CUZK_GPU_GPU_TWIN_H
#define CUZK_GPU_GPU_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = op(a[i], b[i]) by the device field code on the host (as cuzk_gpu_fp_eval). */
int cuzk_gpu_twin_fp(enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out, size_t n);
/* The same for Fr (as cuzk_gpu_fr_eval; b may be NULL for SQR and NEG). */
int cuzk_gpu_twin_fr(enum cuzk_gpu_fr_op op, const cuzk_fr *a, const cuzk_fr *b, cuzk_fr *out,
                     size_t n);
/* As cuzk_gpu_g*_add_eval: the device XYZZ formulas, their exceptional cases included. */
int cuzk_gpu_twin_g1_add(const cuzk_g1_affine *a, const cuzk_g1_affine *b, cuzk_g1 *sum_out,
                         cuzk_g1 *dbl_out, size_t n);
int cuzk_gpu_twin_g2_add(const cuzk_g2_affine *a, const cuzk_g2_affine *b, cuzk_g2 *sum_out,
                         cuzk_g2 *dbl_out, size_t n);
/* The same sums with the mixed additions made into a running sum in memory (madd_mem: the
 * summing loops' form). */
int cuzk_gpu_twin_g1_add_mem(const cuzk_g1_affine *a, const cuzk_g1_affine *b, cuzk_g1 *sum_out,
                             cuzk_g1 *dbl_out, size_t n);
int cuzk_gpu_twin_g2_add_mem(const cuzk_g2_affine *a, const cuzk_g2_affine *b, cuzk_g2 *sum_out,
                             cuzk_g2 *dbl_out, size_t n);

/* The MSM's signed digits of s (below 2^255) for windows at most `window` bits wide (8..24):
 * nw = ceil(256 / window) windows whose widths (widths[w], bits) are two adjacent values that
 * sum to 256, the wider on top; s = sum_w digits[w] 2^(widths[0] + ... + widths[w-1]) with
 * -(2^(widths[w]-1) - 1) <= digits[w] <= 2^(widths[w]-1). digits and widths must hold 32
 * entries. Returns nw, or CUZK_EINVAL. */
int cuzk_gpu_twin_digits(const cuzk_scalar *s, unsigned window, int32_t *digits, unsigned *widths);
/* The widest window the MSM picks by itself for n points (its layout as above). */
unsigned cuzk_gpu_twin_auto_window(size_t n);
/* The positions and widths of the windows of the folded layout of `window` bits (8..24), in bit
 * order, and its shift T: pos[w], widths[w] for w < the returned count (or CUZK_EINVAL); each
 * window belongs to set[w], and the upper window of a pair starts T bits above the lower. The
 * windows tile [0, 256). Arrays of 32 entries. */
int cuzk_gpu_twin_fold_layout(unsigned window, unsigned *pos, unsigned *widths, unsigned *set,
                              unsigned *shift);

/* The context an MSM twin imitates: its capacity, and two internal limits that decide how the
 * work is cut (0 = the library's value): the sorted pairs a batch of windows may use
 * (smaller: more batches) and the number of accumulation chunks per batch (smaller: longer
 * chunks, fewer runs crossing chunk boundaries). fold (8..24; 0: none) folds the bases first,
 * as cuzk_gpu_bases_fold(b, fold) does on the device (the multiples made on the host by the
 * same per-thread code), and sizes the context as CUZK_GPU_MSM_FOLD does. */
struct cuzk_gpu_twin_shape {
    size_t max_n; /* 0: n */
    size_t sort_budget;
    size_t acc_threads;
    unsigned fold;
};
/* What an MSM did: window width, number of windows and windows per batch of the windowed
 * part, its bucket sets (windows, or fewer when folded) and whether its layout was folded, its
 * number of scalars, and the number of scalars 1 summed by the bit-witness path; presum_sets:
 * the sets that ran the presum level (a twin context always has a presum space, as one created
 * with CUZK_GPU_MSM_PRESUM). */
struct cuzk_gpu_twin_report {
    unsigned window, windows, windows_per_batch, sets, folded, presum_sets;
    size_t windowed, ones;
};

/* *out = sum of scalars[i] * bases[i] by the GPU MSM's driver and per-thread code on the
 * host (tune as in cuzk_gpu_msm_tune; NULL: automatic). report may be NULL. */
int cuzk_gpu_twin_g1_msm(const struct cuzk_gpu_twin_shape *shape, const cuzk_g1_affine *bases,
                         const cuzk_scalar *scalars, size_t n,
                         const struct cuzk_gpu_msm_tuning *tune, cuzk_g1 *out,
                         struct cuzk_gpu_twin_report *report);
int cuzk_gpu_twin_g2_msm(const struct cuzk_gpu_twin_shape *shape, const cuzk_g2_affine *bases,
                         const cuzk_scalar *scalars, size_t n,
                         const struct cuzk_gpu_msm_tuning *tune, cuzk_g2 *out,
                         struct cuzk_gpu_twin_report *report);

/* As cuzk_gpu_g*_batch_mul, on the host. */
int cuzk_gpu_twin_g1_batch_mul(const cuzk_g1_affine *base, const cuzk_fr *scalars, size_t n,
                               cuzk_g1_affine *out);
int cuzk_gpu_twin_g2_batch_mul(const cuzk_g2_affine *base, const cuzk_fr *scalars, size_t n,
                               cuzk_g2_affine *out);

/* out[i] = the device's square root of a[i] in Fp (degree 1) or Fp2 (degree 2), is_square[i]
 * whether there is one (out[i] is then unspecified). The root may be the negation of the one
 * cuzk_fp_sqrt / cuzk_fp2_sqrt return (the Fp2 method differs: see ff_fp.cuh). */
int cuzk_gpu_twin_fp_sqrt(int degree, const void *a, void *out, int *is_square, size_t n);
/* The point decompression of the loader (gpu_points.h) on the n compressed encodings at in
 * (48 / 96 bytes each): out[i] as cuzk_gpu_bases_write would store it, *bad (may be NULL) the
 * smallest index of a bad point or SIZE_MAX. CUZK_OK, CUZK_EFORMAT when some point was bad,
 * CUZK_EINVAL. */
int cuzk_gpu_twin_g1_decompress(const uint8_t *in, size_t n, cuzk_g1_affine *out, size_t *bad);
int cuzk_gpu_twin_g2_decompress(const uint8_t *in, size_t n, cuzk_g2_affine *out, size_t *bad);

/* ---- the NTT (ntt.cu) ---------------------------------------------------------------------- */

/* The largest transform the NTT twin takes: 2^20 elements (it is slow: one thread, portable
 * arithmetic). */
#define CUZK_GPU_TWIN_NTT_MAX_LOG 20

/* What the NTT twin saw while it ran the kernel's phases (see cuzk_gpu_twin_ntt). */
struct cuzk_gpu_twin_ntt_report {
    int passes;          /* kernel launches */
    uint64_t races;      /* accesses to a tile slot another thread touched in the same phase */
    uint64_t accesses;   /* tile element accesses (each two 16-byte shared-memory accesses) */
    uint64_t collisions; /* accesses whose 16-byte bank group another lane of their quarter warp
                            used at the same access number (0: conflict-free) */
};

/* The transform of data[0 .. 2^log_n) in place, as cuzk_gpu_ntt with a context of
 * max_log_n = log_n shaped by cuzk_gpu_ntt_tune(log_block, log_cols, threads) (log_block = 0:
 * the library's default shape, the other two ignored), by the GPU's code on the host: the twiddle
 * and coset tables built by the table kernels' bodies, the same plan of passes, and each pass's
 * blocks run phase by phase (load, the steps of stages, store), every thread's share of a phase in
 * turn, over a host array standing in for shared memory. 1 <= log_n <= CUZK_GPU_TWIN_NTT_MAX_LOG;
 * shift as for cuzk_gpu_ntt. report (may be NULL) receives what the run saw: races must be 0 (a
 * nonzero count is a bug the device may or may not show), collisions measure the bank behaviour of
 * the shared-memory layout. CUZK_OK or CUZK_EINVAL. */
int cuzk_gpu_twin_ntt(cuzk_fr *data, int log_n, enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift,
                      int log_block, int log_cols, int threads,
                      struct cuzk_gpu_twin_ntt_report *report);

#ifdef __cplusplus
}
#endif

#endif
