/* The NTT over Fr on a CUDA GPU, behind a plain C boundary (src/gpu/cuda/ntt.cu).
 *
 * Promise: for 1 <= log_n <= the context's max_log_n, every transform computes exactly what the
 * CPU NTT of src/ntt/ntt.h computes on the same domain (generator cuzk_fr_root_of_unity(log_n),
 * natural order in and out), bit for bit:
 *   CUZK_GPU_NTT_FORWARD        a_j <- sum_i a_i omega^(ij)
 *   CUZK_GPU_NTT_INVERSE        the inverse of forward, 1/n included
 *   CUZK_GPU_NTT_COSET_FORWARD  a_i <- a_i s^i, then forward          (evaluations at s omega^j)
 *   CUZK_GPU_NTT_COSET_INVERSE  inverse, then a_i <- a_i s^-i          (the exact inverse)
 *   CUZK_GPU_NTT_INVERSE_TO_COSET  inverse, then a_i <- a_i s^i (as cuzk_ntt_scale_powers): a
 *                               forward transform after it gives the coset forward of the
 *                               inverse, with one multiplication per element fewer
 * Elements are cuzk_fr values, fully reduced Montgomery form; the device holds the same bytes,
 * so vectors move between host and device without conversion. Inputs that are not reduced
 * give unspecified (but memory-safe) results, as on the CPU.
 *
 * A context belongs to one device and holds everything a transform needs, allocated once at
 * creation (nothing is allocated on the transform path): a stream, the twiddle table for every
 * size up to 2^max_log_n (one table of 2^max_log_n elements: entry m + j is omega_(2m)^j, the
 * layout of the CPU domain's table, so every smaller size reads a prefix of it), a vector
 * buffer and a scratch vector of 2^max_log_n elements each, and small tables of coset-shift
 * powers (rebuilt when the shift, the shifted kind or the size changes). cuzk_gpu_ntt_ctx_vram says
 * how many bytes of device memory that is (about 96 * 2^max_log_n).
 *
 * Errors: every function returns CUZK_OK or a negative cuzk error code: CUZK_ENODEV when the
 * machine has no usable GPU, CUZK_EINVAL for an argument outside its documented domain,
 * CUZK_EGPUOOM when device memory runs out, CUZK_EGPU for any other CUDA failure.
 * cuzk_gpu_ntt_last_error() then describes the failing CUDA call (per thread). A failure
 * inside the device's work (a fault) leaves the context unusable: free it.
 *
 * Thread-safety: a context must be used by one thread at a time (its stream and buffers are
 * shared state); different contexts may be used concurrently. The functions make the
 * context's device current on the calling thread. A build without CUDA has no GPU module
 * (groth16/cuda_backend.h is its one boundary). */
#ifndef CUZK_GPU_GPU_NTT_H
#define CUZK_GPU_GPU_NTT_H

#include <stddef.h>

#include "ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest transform a context can be built for: 2^28 elements (8 GiB per vector). */
#define CUZK_GPU_NTT_MAX_LOG 28

enum cuzk_gpu_ntt_kind {
    CUZK_GPU_NTT_FORWARD = 0,
    CUZK_GPU_NTT_INVERSE = 1,
    CUZK_GPU_NTT_COSET_FORWARD = 2,
    CUZK_GPU_NTT_COSET_INVERSE = 3,
    CUZK_GPU_NTT_INVERSE_TO_COSET = 4,
};

struct cuzk_gpu_ntt_ctx;

/* Bytes of device memory a context for max_log_n takes (0 if max_log_n is out of range);
 * cuzk_gpu_ntt_ctx_vram2 with flags (CUZK_GPU_NTT_LENT_TWIDDLES: without its twiddle table). */
size_t cuzk_gpu_ntt_ctx_vram(int max_log_n);
size_t cuzk_gpu_ntt_ctx_vram2(int max_log_n, unsigned flags);

/* A context whose twiddle table lives in room its owner lends it (cuzk_gpu_ntt_ctx_create2):
 * the owner uses that room for something else between transforms and says so with
 * cuzk_gpu_ntt_ctx_twiddles_lost; the next transform builds the table there again first (a few
 * kernels, about 2^max_log_n multiplications, on the context's stream). The device memory of a
 * small card is then shared by phases of a proof that never overlap. */
#define CUZK_GPU_NTT_LENT_TWIDDLES 1u

/* A context without a vector buffer or a scratch vector of its own (the two vectors of
 * 2^max_log_n elements): its owner lends the scratch, a room of the owner's that holds nothing
 * the transform needs (cuzk_gpu_ntt_ctx_lend_scratch), and calls cuzk_gpu_ntt_device only
 * (cuzk_gpu_ntt, _load, _store and _run are CUZK_EINVAL: they use the buffer). With
 * CUZK_GPU_NTT_LENT_TWIDDLES too the context holds only its small coset tables: a card's
 * three work vectors then serve as the transformed vector, the scratch and the table. */
#define CUZK_GPU_NTT_LENT_SCRATCH 2u

/* Creates a context on device `device` for transforms of up to 2^max_log_n elements
 * (1 <= max_log_n <= CUZK_GPU_NTT_MAX_LOG) and builds its twiddle table on the device.
 * CUZK_ENODEV without a GPU, CUZK_EINVAL for a bad device index or size, CUZK_EGPUOOM. */
int cuzk_gpu_ntt_ctx_create(int device, int max_log_n, struct cuzk_gpu_ntt_ctx **out);
/* The same with flags (0, CUZK_GPU_NTT_LENT_TWIDDLES, CUZK_GPU_NTT_LENT_SCRATCH or both). A
 * context with lent twiddles has no table until cuzk_gpu_ntt_ctx_lend_twiddles, one with a lent
 * scratch no scratch until cuzk_gpu_ntt_ctx_lend_scratch; a transform before that, or of the
 * lent rooms themselves, is CUZK_EINVAL. */
int cuzk_gpu_ntt_ctx_create2(int device, int max_log_n, unsigned flags,
                             struct cuzk_gpu_ntt_ctx **out);
/* Lends a context made with CUZK_GPU_NTT_LENT_TWIDDLES the room for its table: a device vector
 * of at least 2^max_log_n elements, 16-byte aligned, which outlives the context (or the next
 * lending). The table is built there before the next transform. CUZK_EINVAL otherwise. */
int cuzk_gpu_ntt_ctx_lend_twiddles(struct cuzk_gpu_ntt_ctx *ctx, void *room);
/* Lends a context made with CUZK_GPU_NTT_LENT_SCRATCH its scratch: a device vector of at least
 * 2^max_log_n elements, 16-byte aligned, which outlives the context (or the next lending) and
 * which the owner leaves alone while a transform is queued (the passes write all of it). */
int cuzk_gpu_ntt_ctx_lend_scratch(struct cuzk_gpu_ntt_ctx *ctx, void *room);
/* The lent room was written over (ignored for a context with a table of its own): the next
 * transform builds the table again. Call it with no transform of the context in flight. */
void cuzk_gpu_ntt_ctx_twiddles_lost(struct cuzk_gpu_ntt_ctx *ctx);
/* Waits for the context's work and frees it (NULL is ignored). */
void cuzk_gpu_ntt_ctx_free(struct cuzk_gpu_ntt_ctx *ctx);
int cuzk_gpu_ntt_ctx_max_log(const struct cuzk_gpu_ntt_ctx *ctx);

/* The transform of host_data[0 .. 2^log_n) in place: copies the vector to the device,
 * transforms it there and copies it back; returns when the result is in host_data. shift is
 * the coset shift s (nonzero) for the coset kinds and is ignored (may be NULL) otherwise. */
int cuzk_gpu_ntt(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host_data, int log_n,
                 enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift);

/* ---- device-resident use ------------------------------------------------------------------ */

/* The transform of a vector already in device memory of the context's device: dev_data holds
 * 2^log_n cuzk_fr values (16-byte aligned). The work is queued on the context's stream and the
 * call returns without waiting (the shift is read before it returns); cuzk_gpu_ntt_sync waits.
 * Uses the context's scratch vector, so transforms on one context run one after another. */
int cuzk_gpu_ntt_device(struct cuzk_gpu_ntt_ctx *ctx, void *dev_data, int log_n,
                        enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift);
/* Waits until all work queued on the context is done; reports a failure of that work. */
int cuzk_gpu_ntt_sync(struct cuzk_gpu_ntt_ctx *ctx);

/* The context's vector buffer (2^max_log_n elements of device memory; NULL with a lent scratch),
 * for other GPU code to fill or read, and synchronous copies between it and host memory (n <=
 * 2^max_log_n). */
void *cuzk_gpu_ntt_ctx_buffer(struct cuzk_gpu_ntt_ctx *ctx);
int cuzk_gpu_ntt_load(struct cuzk_gpu_ntt_ctx *ctx, const cuzk_fr *host, size_t n);
int cuzk_gpu_ntt_store(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host, size_t n);

/* The transform of the context's buffer (its first 2^log_n elements) in place, synchronous.
 * When kernel_ms is not NULL it receives the device time of the transform alone, measured
 * with events around its kernels (coset-shift tables included when they had to be rebuilt). */
int cuzk_gpu_ntt_run(struct cuzk_gpu_ntt_ctx *ctx, int log_n, enum cuzk_gpu_ntt_kind kind,
                     const cuzk_fr *shift, float *kernel_ms);

/* The device time of each pass of the last cuzk_gpu_ntt_run on this context, top pass first, in
 * ms, when that run was timed (kernel_ms not NULL): writes min(passes, cap) of them to ms and
 * returns the number of passes (0 when that run was not timed, or none ran; the other entry
 * points leave the figures as they are). The passes' times add up to kernel_ms less the
 * coset-shift tables' time. */
int cuzk_gpu_ntt_pass_ms(const struct cuzk_gpu_ntt_ctx *ctx, float *ms, int cap);

/* ---- tuning and diagnostics --------------------------------------------------------------- */

/* The kernel shape, for benchmarks: each thread block transforms 2^log_block elements in
 * shared memory (4 <= log_block <= 12), the last pass as 2^log_cols columns of contiguous rows
 * (-1 <= log_cols < log_block; 4 columns = 128-byte runs in memory; -1 chooses per size, as the
 * default shape does: 4 unless 2 make fewer passes), with `threads` threads (a power of two,
 * 32 .. 256). Results do not depend on the shape. */
int cuzk_gpu_ntt_tune(struct cuzk_gpu_ntt_ctx *ctx, int log_block, int log_cols, int threads);

/* A description of the last CUDA failure seen by this thread in this module ("" if none). */
const char *cuzk_gpu_ntt_last_error(void);

/* The device arithmetic the NTT is built on, for tests against the CPU field: out[i] = op(a[i],
 * b[i]) for i < n on device `device` (b is ignored by SQR and NEG). Allocates and frees its own
 * device memory: a check, not a fast path. */
enum cuzk_gpu_fr_op {
    CUZK_GPU_FR_ADD = 0,
    CUZK_GPU_FR_SUB = 1,
    CUZK_GPU_FR_MUL = 2,
    CUZK_GPU_FR_SQR = 3,
    CUZK_GPU_FR_NEG = 4,
};
int cuzk_gpu_fr_eval(int device, enum cuzk_gpu_fr_op op, const cuzk_fr *a, const cuzk_fr *b,
                     cuzk_fr *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
