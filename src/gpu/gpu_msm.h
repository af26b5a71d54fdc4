/* Multi-scalar multiplication and batch scalar multiplication over BLS12-381 G1 and G2 on a
 * CUDA GPU, behind a plain C boundary (src/gpu/cuda/msm*.cu and its device ff/ec headers).
 *
 * Promise: every result equals, as a group element, what the CPU computes (src/msm/msm.h for
 * MSMs, cuzk_g*_mul_var for batch multiplication) on the same inputs, for every input the CPU
 * accepts: identity points (stored x = y = 0, as in snarkjs keys), zero scalars, scalar 1,
 * repeated and negated points, any scalar below 2^255. Results come back as Jacobian points of
 * the CPU types (cuzk_g1 / cuzk_g2) or, for batch multiplication, affine points.
 *
 * Bases live in VRAM: a cuzk_gpu_bases object holds n affine points uploaded once (an SRS
 * section stays on the card between proofs) in the device storage layout; MSMs read a range
 * [offset, offset + n) of it. Scalars come either from host memory (canonical integers,
 * cuzk_scalar) or from device memory as Montgomery-form Fr values (cuzk_fr bytes: what the GPU
 * NTT leaves in its buffer), so the H-polynomial never travels back to the host.
 *
 * The algorithm (see docs/gpu.md): Pippenger with signed digits over windows of two adjacent
 * widths that sum to 256 bits; the (digit, point) pairs are sorted by bucket on the GPU (CUB
 * radix sort), buckets accumulated in XYZZ coordinates, reduced per window by a parallel running
 * sum and combined by doubling.
 * When most scalars are 0 or 1 (a Filecoin witness), the bit-witness path sums the bases whose
 * scalar is 1 by a parallel tree of additions and sends only the other scalars through the
 * windowed MSM (a smaller tail). Callers do not choose: the split is made from the scalars.
 *
 * A context (struct cuzk_gpu_msm_ctx) belongs to one device and one thread at a time: it holds
 * two streams (compute, copy; of the device's highest priority, so that an MSM sharing the
 * device with other work takes the multiprocessors first) and all scratch memory for MSMs of up
 * to max_n points, allocated at creation, so the MSM path never calls cudaMalloc.
 * cuzk_gpu_msm_ctx_vram tells the scratch size; cuzk_gpu_msm_ctx_pinned the page-locked host memory
 * of its two staging buffers (from cuzk_gpu_pinned_alloc, so counted by cuzk_gpu_pinned_bytes),
 * through which scalars in pageable host memory travel in chunks, each chunk's work on the device
 * overlapping the next chunk's transfer (docs/gpu.md).
 *
 * Errors: CUZK_OK or a negative cuzk code: CUZK_ENODEV (no usable GPU), CUZK_EINVAL (bad argument,
 * n above the context's max_n, range outside the bases, bases of another device or group),
 * CUZK_EGPUOOM (device memory exhausted: the caller may retry later or fall back to the CPU),
 * CUZK_EGPU (any other CUDA failure; cuzk_gpu_msm_last_error() says which call). After a fault
 * inside device work the context is unusable: free it.
 *
 * Thread-safety: bases are read-only after upload and may be shared by contexts of their
 * device used from different threads; a context is used by one thread at a time. Functions
 * make the device current on the calling thread. */
#ifndef CUZK_GPU_GPU_MSM_H
#define CUZK_GPU_GPU_MSM_H

#include <stddef.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "ff/scalar.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_gpu_group { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 };

struct cuzk_gpu_bases;
struct cuzk_gpu_msm_ctx;

/* ---- resident bases ----------------------------------------------------------------------- */

/* Uploads n affine points to device `device` (synchronously; the host arrays may be freed on
 * return). Points are not checked (keys are validated when loaded). */
int cuzk_gpu_g1_bases_upload(int device, const cuzk_g1_affine *pts, size_t n,
                             struct cuzk_gpu_bases **out);
int cuzk_gpu_g2_bases_upload(int device, const cuzk_g2_affine *pts, size_t n,
                             struct cuzk_gpu_bases **out);
/* Frees the device memory (NULL is ignored). No MSM may be using the bases. */
void cuzk_gpu_bases_free(struct cuzk_gpu_bases *b);
size_t cuzk_gpu_bases_count(const struct cuzk_gpu_bases *b);
/* Bytes of device memory the bases occupy. */
size_t cuzk_gpu_bases_vram(const struct cuzk_gpu_bases *b);
/* Bytes of device memory n bases of group g would occupy (for budgeting before upload); their
 * folded multiples take as much again. */
size_t cuzk_gpu_bases_vram_for(enum cuzk_gpu_group g, size_t n);

/* Folds the bases (synchronously): computes, on the device, the multiples Q_i = 2^T P_i for the
 * folded window layout of `window` bits (8..24; 0: cuzk_gpu_msm_fold_window(n)), where T is
 * that layout's shift, and keeps them beside the bases (cuzk_gpu_bases_vram then counts both).
 * An MSM over folded bases puts each pair of windows T bits apart into one set of buckets (the
 * upper window's digits applied to Q): about half the buckets of the plain layout of as many
 * windows, so it takes wider windows, fewer additions, at the price of a second copy of the
 * points. It takes the folded layout when that is the cheaper one (see the tuning's fold). Folding
 * again with another window replaces the multiples. The MSM's result does not change. No MSM may be
 * using the bases meanwhile. CUZK_EINVAL (window outside 8..24), CUZK_EGPUOOM, CUZK_EGPU. */
int cuzk_gpu_bases_fold(struct cuzk_gpu_bases *b, unsigned window);
/* The window of the bases' folded multiples (0: not folded). */
unsigned cuzk_gpu_bases_fold_window(const struct cuzk_gpu_bases *b);
/* The folded layout the cost model picks for MSMs over n bases. */
unsigned cuzk_gpu_msm_fold_window(size_t n);

/* ---- MSM ---------------------------------------------------------------------------------- */

/* Flags of cuzk_gpu_msm_ctx_create2: CUZK_GPU_MSM_FOLD sizes the context for folded MSMs of
 * up to max_n points (their sort of 2 max_n entries, the buckets of the folded layout
 * cuzk_gpu_msm_fold_window(max_n)). An MSM of m points over folded bases takes the folded
 * layout where the context's sizes hold it (2 m sorted entries and a spare, the layout's
 * buckets) and the cost model prefers it, else the plain one (same result): without the flag,
 * only an MSM small against max_n does. */
#define CUZK_GPU_MSM_FOLD 1u
/* CUZK_GPU_MSM_PRESUM gives the context a presum space: room for the affine G1 sums of half a
 * sort batch's entries (48 bytes an entry, six times its key and value; a G2 batch's first sets
 * that fit), so that its MSMs may sum adjacent sorted entries of one bucket in affine pairs
 * before the accumulation (see the tuning's presum). */
#define CUZK_GPU_MSM_PRESUM 2u
/* With CUZK_GPU_MSM_PRESUM: a space of twice the bytes, G2 points for half a batch's entries, so
 * that G2 batches take the presum level on every set too. */
#define CUZK_GPU_MSM_PRESUM_G2 4u

/* Bytes of device memory a context for MSMs of up to max_n points takes (with flags). */
size_t cuzk_gpu_msm_ctx_vram(size_t max_n);
size_t cuzk_gpu_msm_ctx_vram2(size_t max_n, unsigned flags);
/* Bytes of pinned host memory it takes (its staging buffers). */
size_t cuzk_gpu_msm_ctx_pinned(size_t max_n);
/* Creates a context on `device` for MSMs of up to max_n points (G1 and G2 alike; 1 <= max_n <=
 * 2^29 - 1: a sorted entry keeps a point index in 29 bits). */
int cuzk_gpu_msm_ctx_create(int device, size_t max_n, struct cuzk_gpu_msm_ctx **out);
int cuzk_gpu_msm_ctx_create2(int device, size_t max_n, unsigned flags,
                             struct cuzk_gpu_msm_ctx **out);
/* Waits for the context's work and frees it (NULL is ignored). */
void cuzk_gpu_msm_ctx_free(struct cuzk_gpu_msm_ctx *ctx);
/* Waits for the context's work and frees its presum space (CUZK_GPU_MSM_PRESUM), so that its
 * device memory can serve something else; the context's MSMs then run without the presum level,
 * with the same results. Returns the bytes freed: cuzk_gpu_msm_ctx_vram2 with the flag less
 * without it, 0 for a context without the space (or NULL). */
size_t cuzk_gpu_msm_ctx_release_presum(struct cuzk_gpu_msm_ctx *ctx);
/* Gives the context the presum space of flags (CUZK_GPU_MSM_PRESUM, with or without
 * CUZK_GPU_MSM_PRESUM_G2; 0: none) in place of the one it has: waits for its work, frees the
 * old space and allocates the new one. CUZK_EINVAL for other flags; CUZK_EGPUOOM (or
 * CUZK_EGPU) leaves the context without a presum space, usable. */
int cuzk_gpu_msm_ctx_set_presum(struct cuzk_gpu_msm_ctx *ctx, unsigned flags);
int cuzk_gpu_msm_ctx_device(const struct cuzk_gpu_msm_ctx *ctx);

/* *out = sum over i < n of scalars[i] * bases[offset + i]; scalars in host memory (any memory
 * works; page-locked memory is transferred in place, without the staging copy). Synchronous.
 * g1 bases for g1_msm, g2 for g2_msm. */
int cuzk_gpu_g1_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases, size_t offset,
                    const cuzk_scalar *scalars, size_t n, cuzk_g1 *out);
int cuzk_gpu_g2_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases, size_t offset,
                    const cuzk_scalar *scalars, size_t n, cuzk_g2 *out);

/* The same with scalars in device memory of the context's device, as n Montgomery-form Fr
 * values (cuzk_fr layout, fully reduced). The scalars are read, not modified. */
int cuzk_gpu_g1_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                           size_t offset, const void *dev_scalars_fr, size_t n, cuzk_g1 *out);
int cuzk_gpu_g2_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                           size_t offset, const void *dev_scalars_fr, size_t n, cuzk_g2 *out);

/* Overrides for tests and tuning (0 = automatic). The result does not depend on them.
 * window: the widest window in bits, 8..24: the MSM takes nw = ceil(256 / window) windows of
 * two adjacent widths that sum to 256 bits (20: 4 of 19 bits and 9 of 20). bit_path: 0
 * automatic, 1 force the bit-witness split, -1 forbid it. upload_chunk: scalars per chunk of an
 * upload from host memory, at most the staging size (larger values are that size). fold, for
 * folded bases: 0 their folded layout when the cost model prices it below the plain one for the
 * scalars the windows take (a table made for many bases is too wide for an MSM of a few, or for
 * the few a bit-witness split leaves), 1 always (when the context holds it), -1 never.
 * ones_tree, the bit-witness path's sum of the bases with scalar 1: 0 batch-affine levels of
 * pairwise sums while a level has enough pairs to fill the GPU, then XYZZ sums; 1 such levels
 * down to one point; -1 XYZZ sums only. tree_chunk: at most this many ones per chunk of the
 * levels (0: as many as the context's bucket space holds; chunks so small that they outnumber
 * half the reduction's first-level items turn the levels off). presum, in a context created with
 * CUZK_GPU_MSM_PRESUM: 0 the presum level (adjacent sorted entries of one bucket summed in
 * affine pairs before the accumulation) for the sets that fill the GPU with it and average at
 * least a few entries a bucket; 1 for every set the context's presum space holds; -1 never. */
struct cuzk_gpu_msm_tuning {
    unsigned window;
    int bit_path;
    size_t upload_chunk;
    int fold;
    int ones_tree;
    size_t tree_chunk;
    int presum;
};
void cuzk_gpu_msm_tune(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_msm_tuning *t);

/* Device time of the last MSM on this context, in milliseconds, split into its phases
 * (measured with events; for benchmarks and timing lines). */
struct cuzk_gpu_msm_timing {
    float upload_ms; /* scalars host -> device, with the classification of each chunk that the
                      * transfers overlap (0 for device scalars) */
    float bits_ms;   /* bit-witness split and the sum of the bases with scalar 1 */
    float sort_ms;   /* digits and the sort by bucket */
    float accum_ms;  /* bucket accumulation */
    float reduce_ms; /* bucket reduction and window combination */
    float total_ms;
    unsigned window; /* the widest window of the windowed pass (0: none ran, all scalars 0/1) */
    unsigned windows, sets; /* its windows and bucket sets (fewer sets than windows: folded) */
    unsigned folded;        /* 1 when it ran a folded layout */
    size_t windowed;        /* the scalars its windows took: all n, or the others (neither 0
                             * nor 1) of a bit-witness split; 0 when none ran */
    unsigned presum_sets;   /* its sets that ran the presum level (see the tuning's presum) */
};
void cuzk_gpu_msm_last_timing(const struct cuzk_gpu_msm_ctx *ctx, struct cuzk_gpu_msm_timing *t);

/* ---- batch scalar multiplication (the GPU dev setup) -------------------------------------- */

/* out[i] = scalars[i] * base for i < n, as affine points (the identity as x = y = 0), scalars
 * as Montgomery-form Fr values in host memory; out in host memory. Works in chunks, so n is
 * limited only by host memory. */
int cuzk_gpu_g1_batch_mul(int device, const cuzk_g1_affine *base, const cuzk_fr *scalars, size_t n,
                          cuzk_g1_affine *out);
int cuzk_gpu_g2_batch_mul(int device, const cuzk_g2_affine *base, const cuzk_fr *scalars, size_t n,
                          cuzk_g2_affine *out);

/* A description of the last CUDA failure this thread saw in this module ("" if none). */
const char *cuzk_gpu_msm_last_error(void);

/* ---- device arithmetic checks (CPU twins in tests) ---------------------------------------- */

/* out[i] = op(a[i], b[i]) on the device for the base field and the curve formulas, so tests
 * compare every device routine with the CPU on random inputs. Allocates its own memory: a
 * check, not a fast path. Fp values in cuzk_fp layout (Montgomery), Fp2 in cuzk_fp2 layout.
 * The one-operand ops (SQR, INV) ignore b, which may be NULL; INV maps 0 to 0, as
 * cuzk_fp_inv / cuzk_fp2_inv do. */
enum cuzk_gpu_fp_op {
    CUZK_GPU_FP_ADD = 0,
    CUZK_GPU_FP_SUB = 1,
    CUZK_GPU_FP_MUL = 2,
    CUZK_GPU_FP_SQR = 3,
    CUZK_GPU_FP2_ADD = 4,
    CUZK_GPU_FP2_SUB = 5,
    CUZK_GPU_FP2_MUL = 6,
    CUZK_GPU_FP2_SQR = 7,
    CUZK_GPU_FP_INV = 8,
    CUZK_GPU_FP2_INV = 9,
};
int cuzk_gpu_fp_eval(int device, enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out,
                     size_t n);
/* out[i] = a[i] + b[i] computed by the device's XYZZ formulas (a[i] == b[i], a[i] == -b[i] and
 * identities included), converted back to Jacobian; and dbl_out[i] = 2 a[i]. */
int cuzk_gpu_g1_add_eval(int device, const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                         cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n);
int cuzk_gpu_g2_add_eval(int device, const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                         cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
