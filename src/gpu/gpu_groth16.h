/* The device side of the Groth16 prover (src/gpu/cuda/groth16.cu; the SpMV, the gather and
 * their twins in src/gpu/cuda/spmv.cu): pinned host memory, the prover's device vectors, the
 * constraint system resident in device memory with its SpMV, and the pointwise kernels around
 * the NTTs, behind a plain C boundary.
 *
 * Promise: the kernels compute exactly what the CPU prover computes on the same cuzk_fr values
 * (fully reduced Montgomery form, the same bytes on both sides), bit for bit:
 *   cuzk_gpu_g16_spmv     a = A w, b = B w with the public-input rows (cuzk_cs_eval's a, b)
 *   cuzk_gpu_g16_gather   s_k = w_(idx_k)                (the density-filtered MSM scalars)
 *   cuzk_gpu_g16_mul      c_i = a_i b_i                 (c = a o b, snarkjs's c)
 *   cuzk_gpu_g16_mul_a    a_i = a_i b_i                 (in place)
 *   cuzk_gpu_g16_h        a_i = a_i b_i - c_i            (h on the odd 2n-th roots, in place)
 *   cuzk_gpu_g16_sub_k    a_i = (a_i - c_i) k            (bellperson's h from its parts, k = 1/t)
 *   cuzk_gpu_g16_to_mont  w_i = the Montgomery form of the canonical integer w_i (< r)
 * cuzk_gpu_g16_eval and cuzk_gpu_g16_spmv_eval run them on host arrays, for tests against the
 * CPU; cuzk_gpu_twin_spmv and cuzk_gpu_twin_gather run the SpMV's and the gather's per-thread
 * code on the host (see "host twins" below).
 *
 * A work area (struct cuzk_gpu_g16) belongs to one device. It owns the vectors A, B and W
 * (max_n, max_n and max_w elements, allocated once at creation), on request a second witness
 * slot W1 and a scratch vector S (max_w elements each: one proof's witness uploads into one slot
 * while another proof computes on the other; S holds gathered scalars), and may borrow C, a
 * device vector of at least max_n elements owned by someone else (the GPU NTT context's buffer:
 * the prover saves one vector of VRAM that way); it has a copy stream, a compute stream and, per
 * vector, an upload-start and an upload-ready event. Uploads are queued on the copy stream and
 * return at once (host memory from cuzk_gpu_pinned_alloc makes them asynchronous and fast; it
 * must stay untouched until the upload is waited for); the kernels wait for the uploads they
 * read on the device, and return when their result is in device memory, so that other modules'
 * streams (the NTT's, the MSM's) may use the vectors next without further synchronisation.
 *
 * A resident system (struct cuzk_gpu_cs) holds the A and B matrices of a constraint system and
 * its coefficient table on one device (C is never needed: the prover takes c = a o b). It is
 * read-only once uploaded and may serve any number of work areas of its device, concurrently.
 *
 * Pinned memory: cuzk_gpu_pinned_alloc is the one allocator of page-locked host memory; it
 * counts every byte it hands out (cuzk_gpu_pinned_bytes).
 *
 * Errors: CUZK_OK or a negative cuzk code: CUZK_ENODEV (no usable GPU), CUZK_EINVAL (bad argument),
 * CUZK_ENOMEM (host memory), CUZK_EGPUOOM (device or pinned memory exhausted), CUZK_EGPU (any other
 * CUDA failure; cuzk_gpu_g16_last_error() names the call). After a fault in device work the area is
 * unusable: free it.
 *
 * Thread-safety: a work area is used by one thread at a time, with one exception: an upload to
 * one vector (typically the witness slot W or W1 of the next proof), its cuzk_gpu_g16_wait and
 * cuzk_gpu_g16_upload_ms_of may run on one thread while another thread runs uploads and kernels
 * on the other vectors of the same area (the area's round bookkeeping is behind a mutex; the
 * kernels wait for their inputs through per-vector events only). The round functions
 * cuzk_gpu_g16_begin and cuzk_gpu_g16_upload_ms cover every upload of the area, whichever
 * thread queued it: with two threads, use cuzk_gpu_g16_upload_ms_of. Resident systems and
 * index lists are read-only and thread-safe; pinned allocation and the counters are
 * thread-safe. Functions make the object's device current on the calling thread. */
#ifndef CUZK_GPU_GPU_GROTH16_H
#define CUZK_GPU_GPU_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pinned host memory ------------------------------------------------------------------- */

/* *out = bytes of page-locked host memory usable for fast transfers to every device (bytes > 0).
 * CUZK_ENODEV without a GPU, CUZK_EGPUOOM when the driver cannot lock that much. */
int cuzk_gpu_pinned_alloc(size_t bytes, void **out);
/* Frees memory from cuzk_gpu_pinned_alloc; bytes is the size it was allocated with (NULL is
 * ignored). No transfer may be using it. */
void cuzk_gpu_pinned_free(void *p, size_t bytes);
/* Bytes of pinned memory allocated and not freed, process-wide. */
size_t cuzk_gpu_pinned_bytes(void);

/* ---- the prover's work area --------------------------------------------------------------- */

enum cuzk_gpu_g16_vec {
    CUZK_GPU_G16_A = 0,
    CUZK_GPU_G16_B = 1,
    CUZK_GPU_G16_C = 2,
    CUZK_GPU_G16_W = 3,
    CUZK_GPU_G16_W1 = 4, /* the second witness slot (CUZK_GPU_G16_WITH_W1) */
    CUZK_GPU_G16_S = 5   /* scratch for gathered scalars (CUZK_GPU_G16_WITH_S) */
};

/* The optional vectors of a work area (flags of cuzk_gpu_g16_create2): max_w elements each. */
#define CUZK_GPU_G16_WITH_W1 1u
#define CUZK_GPU_G16_WITH_S 2u
/* A lean area, for small cards: S is C's room (no memory of its own; max_w <= max_n), so
 * gathered scalars and C never live at once; and W's room holds max(max_w, max_n) elements, so
 * that its owner may lend it to the NTT context's twiddle table between a proof's witness MSMs
 * and its next witness upload (CUZK_GPU_NTT_LENT_TWIDDLES). Not with CUZK_GPU_G16_WITH_S. */
#define CUZK_GPU_G16_S_IN_C 4u
#define CUZK_GPU_G16_W_WIDE 8u
/* The smallest area, for 16 GiB cards: C is B's room too (with S_IN_C, so is S), and dev_c must
 * be NULL: three vectors (A, B, W). Its owner keeps c apart from b (in host memory, say) and
 * uploads c into C only once b is no longer needed; the kernels that read C then read B. */
#define CUZK_GPU_G16_C_IN_B 16u

struct cuzk_gpu_g16;

/* Bytes of device memory a work area for (max_n, max_w) takes (C borrowed or not), without
 * and with the optional vectors in flags. */
size_t cuzk_gpu_g16_vram_for(size_t max_n, size_t max_w, int borrow_c);
size_t cuzk_gpu_g16_vram_for2(size_t max_n, size_t max_w, int borrow_c, unsigned flags);
/* Creates a work area on `device` for vectors of up to max_n (A, B, C) and max_w (W, W1, S)
 * elements (both >= 1), with the optional vectors of flags (0 or CUZK_GPU_G16_WITH_* or'ed;
 * cuzk_gpu_g16_create is flags 0). dev_c: a device vector of >= max_n elements (16-byte
 * aligned) to use as C, which must outlive the area; NULL: the area allocates its own. */
int cuzk_gpu_g16_create(int device, size_t max_n, size_t max_w, void *dev_c,
                        struct cuzk_gpu_g16 **out);
int cuzk_gpu_g16_create2(int device, size_t max_n, size_t max_w, void *dev_c, unsigned flags,
                         struct cuzk_gpu_g16 **out);
/* Waits for the area's work and frees it (NULL is ignored); a borrowed C is left alone. */
void cuzk_gpu_g16_free(struct cuzk_gpu_g16 *g);
/* Bytes of device memory the area allocated (a borrowed C not counted). */
size_t cuzk_gpu_g16_vram(const struct cuzk_gpu_g16 *g);
/* The device address of a vector (cuzk_fr layout); NULL for a vector the area lacks. */
void *cuzk_gpu_g16_vec(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v);

/* Starts a round of uploads: cuzk_gpu_g16_upload_ms measures from here. */
int cuzk_gpu_g16_begin(struct cuzk_gpu_g16 *g);
/* Queues the copy of count elements (32 bytes each) from host to the start of vector v, then
 * zeroes elements [count, len) on the device; count <= len <= the vector's capacity. Returns at
 * once; host must stay unchanged until the upload is waited for (cuzk_gpu_g16_wait, or any
 * kernel below that reads v, or cuzk_gpu_g16_free). */
int cuzk_gpu_g16_upload(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, const void *host,
                        size_t count, size_t len);
/* Waits until the last upload queued to v is complete. */
int cuzk_gpu_g16_wait(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v);
/* Device time from cuzk_gpu_g16_begin to the end of the last upload of the round (waits for
 * it). */
int cuzk_gpu_g16_upload_ms(struct cuzk_gpu_g16 *g, float *ms);
/* Device time of the last upload queued to v alone, its zeroed tail included (waits for it);
 * 0 if v was never uploaded. */
int cuzk_gpu_g16_upload_ms_of(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, float *ms);
/* Copies count elements from the start of vector v to host, after the pending upload to v (a
 * check for tests and tools, not a fast path: synchronous, from any host memory). */
int cuzk_gpu_g16_download(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, void *host,
                          size_t count);

/* The kernels, on the first n elements of the vectors (n <= capacity); each waits (on the
 * device) for the pending uploads of the vectors it reads and returns when it is done. */
int cuzk_gpu_g16_mul(struct cuzk_gpu_g16 *g, size_t n);   /* C = A o B */
int cuzk_gpu_g16_mul_a(struct cuzk_gpu_g16 *g, size_t n); /* A = A o B */
int cuzk_gpu_g16_h(struct cuzk_gpu_g16 *g, size_t n);     /* A = A o B - C */
/* A = (A - C) k: the last step of the coefficient basis's h (groth16/groth16.h,
 * cuzk_groth16_pk_h), with A the inverse coset transform of a' o b', C c's coefficients and k
 * the inverse of the constant g^n - 1 that t takes on the coset g <omega_n>. */
int cuzk_gpu_g16_sub_k(struct cuzk_gpu_g16 *g, size_t n, const cuzk_fr *k);
int cuzk_gpu_g16_to_mont(struct cuzk_gpu_g16 *g, size_t n); /* W = Montgomery(W) */

/* ---- the constraint system on the device, SpMV and gather -------------------------------- */

struct cuzk_cs; /* r1cs/cs.h */

/* The A and B matrices of a system and its coefficient table, resident on one device. Format
 * there: per matrix the row offsets as on the host (u64, n_rows + 1), the terms as one 8-byte
 * (column, coefficient index) pair each, and a partition of the rows into pieces of work for
 * one warp each (a u32 row index per 256 terms and rows: spmv.cu's DESIGN); the table as
 * cuzk_fr values. About 8 bytes per term and 8 per row: Filecoin's PoRep partition (130 M
 * rows, 310 M + 130 M terms) takes 5.6 GB. */
struct cuzk_gpu_cs;

/* Bytes of device memory cuzk_gpu_cs_upload will take for cs. */
size_t cuzk_gpu_cs_vram_for(const struct cuzk_cs *cs);
/* Copies the A and B matrices and the coefficient table of cs (finished: no row open; at most
 * 2^32 - 2 rows) to `device`, through a small pinned staging buffer (pageable memory when no
 * pinned memory can be had). Synchronous: cs may be freed afterwards. Returns CUZK_OK,
 * CUZK_EINVAL, CUZK_ENOMEM, CUZK_EGPUOOM, CUZK_EGPU or CUZK_ENODEV. */
int cuzk_gpu_cs_upload(int device, const struct cuzk_cs *cs, struct cuzk_gpu_cs **out);
/* Frees a resident system (NULL is ignored); no SpMV may be using it. */
void cuzk_gpu_cs_free(struct cuzk_gpu_cs *g);
/* Bytes of device memory it holds (= cuzk_gpu_cs_vram_for of its system). */
size_t cuzk_gpu_cs_vram(const struct cuzk_gpu_cs *g);
/* Its rows (the system's n_rows) and columns (n_cols: the witness length). */
size_t cuzk_gpu_cs_rows(const struct cuzk_gpu_cs *g);
size_t cuzk_gpu_cs_cols(const struct cuzk_gpu_cs *g);

/* A[i] = <A_i, Wv>, B[i] = <B_i, Wv> for i < rows; A[rows + s] = Wv[s] and B[rows + s] = 0 for
 * s < n_pub_rows (the snarkjs public-input rows); zeros for i in [rows + n_pub_rows, n). That is
 * cuzk_cs_eval's a and b followed by cuzk_groth16_pk_eval's public rows and zeros, bit for bit.
 * wv is CUZK_GPU_G16_W or CUZK_GPU_G16_W1; n_w (the elements uploaded to it) must equal the
 * system's n_cols; n_pub_rows <= n_w; rows + n_pub_rows <= n <= max_n. cs must live on the
 * area's device. Waits (on the device) for the pending upload of wv and returns when A and B
 * are in device memory. */
int cuzk_gpu_g16_spmv(struct cuzk_gpu_g16 *g, const struct cuzk_gpu_cs *cs,
                      enum cuzk_gpu_g16_vec wv, size_t n_w, uint32_t n_pub_rows, size_t n);

/* A list of witness indices on one device, for the density gather (read-only once uploaded). */
struct cuzk_gpu_idx;
/* Copies idx[0 .. count) to `device` (count may be 0). Synchronous: idx may be freed after. */
int cuzk_gpu_idx_upload(int device, const uint32_t *idx, size_t count, struct cuzk_gpu_idx **out);
void cuzk_gpu_idx_free(struct cuzk_gpu_idx *x); /* NULL is ignored; no gather may be using it */
size_t cuzk_gpu_idx_count(const struct cuzk_gpu_idx *x);
size_t cuzk_gpu_idx_vram(const struct cuzk_gpu_idx *x); /* bytes of device memory it holds */

/* dst[k] = src[idx[k]] for k < count(idx): dst is CUZK_GPU_G16_S, src CUZK_GPU_G16_W or
 * CUZK_GPU_G16_W1; count <= max_w and every index below max_w (checked: the list's largest
 * index is kept with it), and below the elements uploaded to src (the caller's promise: above,
 * the gather reads the slot's stale elements). Waits (on the device) for the pending upload of
 * src; returns when dst is in device memory. */
int cuzk_gpu_g16_gather(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec dst,
                        enum cuzk_gpu_g16_vec src, const struct cuzk_gpu_idx *idx);

/* ---- checks (CPU twins in tests) ---------------------------------------------------------- */

enum cuzk_gpu_g16_op {
    CUZK_GPU_G16_OP_MUL = 0,     /* out = a o b (cuzk_gpu_g16_mul) */
    CUZK_GPU_G16_OP_H = 1,       /* out = a o b - c */
    CUZK_GPU_G16_OP_TO_MONT = 2, /* out = Montgomery form of the canonical integers in a */
    CUZK_GPU_G16_OP_SUB_K = 3,   /* out = (a - c) k (cuzk_gpu_g16_eval_k only) */
    CUZK_GPU_G16_OP_MUL_A = 4    /* out = a o b (cuzk_gpu_g16_mul_a: in place) */
};
/* One kernel of the work area on host arrays of n elements (b, c ignored where unused; a holds
 * canonical integers below r for TO_MONT, 4 little-endian 64-bit limbs each). Allocates and
 * frees its own device memory: a check, not a fast path. */
int cuzk_gpu_g16_eval(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a, const cuzk_fr *b,
                      const cuzk_fr *c, cuzk_fr *out, size_t n);
/* The same with the constant k of CUZK_GPU_G16_OP_SUB_K (ignored, may be NULL, otherwise). */
int cuzk_gpu_g16_eval_k(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a, const cuzk_fr *b,
                        const cuzk_fr *c, const cuzk_fr *k, cuzk_fr *out, size_t n);

/* cuzk_gpu_g16_spmv of cs on w (n_cols elements) into host arrays a and b of n elements, on a
 * work area, a resident copy of cs and uploads of its own (allocated and freed here: a check,
 * not a fast path). */
int cuzk_gpu_g16_spmv_eval(int device, const struct cuzk_cs *cs, const cuzk_fr *w,
                           uint32_t n_pub_rows, cuzk_fr *a, cuzk_fr *b, size_t n);

/* ---- host twins --------------------------------------------------------------------------- */

/* The SpMV and the gather run on the host by the very per-warp and per-thread code the device
 * runs (the same functors, the same device data layout and work partition, lanes and warps in
 * loops), so that comparing them with src/r1cs checks the kernels' indexing, merge walk and
 * carry resolution on machines without a GPU. One difference: the field operations there are
 * src/ff's (gpu/cuda/ff_fr.cuh is device-only); the device's Fr arithmetic is checked by the
 * GPU tests. Slow (one thread): for systems of up to a few million terms. Same arguments and
 * results as cuzk_gpu_g16_spmv_eval (cs finished, n >= n_rows + n_pub_rows, n_pub_rows <=
 * n_cols) and as cuzk_gpu_g16_gather (dst[k] = src[idx[k]]). CUZK_OK, CUZK_EINVAL or CUZK_ENOMEM
 * (the twin code lives in the CUDA sources: a build without CUDA has none). */
int cuzk_gpu_twin_spmv(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub_rows, cuzk_fr *a,
                       cuzk_fr *b, size_t n);
int cuzk_gpu_twin_gather(const cuzk_fr *src, const uint32_t *idx, size_t count, cuzk_fr *dst);

/* A description of the last CUDA failure this thread saw in this module ("" if none). */
const char *cuzk_gpu_g16_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
