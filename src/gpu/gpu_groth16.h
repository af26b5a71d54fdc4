/* The device side of the Groth16 prover (src/gpu/cuda/groth16.cu): pinned host memory, the
 * prover's device vectors and the pointwise kernels around the NTTs, behind a plain C boundary.
 *
 * Promise: the kernels compute exactly what the CPU prover computes on the same cuzk_fr values
 * (fully reduced Montgomery form, the same bytes on both sides), bit for bit:
 *   cuzk_gpu_g16_mul      c_i = a_i b_i                 (c = a o b, snarkjs's c)
 *   cuzk_gpu_g16_h        a_i = a_i b_i - c_i            (h on the odd 2n-th roots, in place)
 *   cuzk_gpu_g16_to_mont  w_i = the Montgomery form of the canonical integer w_i (< r)
 * cuzk_gpu_g16_eval runs each of them on host arrays, for tests against the CPU.
 *
 * A work area (struct cuzk_gpu_g16) belongs to one device. It owns the vectors A, B and W
 * (max_n, max_n and max_w elements, allocated once at creation) and may borrow C, a device
 * vector of at least max_n elements owned by someone else (the GPU NTT context's buffer: the
 * prover saves one vector of VRAM that way); it has a copy stream, a compute stream and one
 * event per vector. Uploads are queued on the copy stream and return at once (host memory from
 * cuzk_gpu_pinned_alloc makes them asynchronous and fast; it must stay untouched until the
 * upload is waited for); the kernels wait for the uploads they read on the device, and return
 * when their result is in device memory, so that other modules' streams (the NTT's, the MSM's)
 * may use the vectors next without further synchronisation.
 *
 * Pinned memory: cuzk_gpu_pinned_alloc is the one allocator of page-locked host memory; it
 * counts every byte it hands out (cuzk_gpu_pinned_bytes).
 *
 * Errors: CUZK_OK or a negative cuzk code: CUZK_ENODEV (no usable GPU; every call of a build
 * without CUDA), CUZK_EINVAL (bad argument), CUZK_ENOMEM (host memory), CUZK_EGPUOOM (device
 * or pinned memory exhausted), CUZK_EGPU (any other CUDA failure; cuzk_gpu_g16_last_error()
 * names the call). After a fault in device work the area is unusable: free it.
 *
 * Thread-safety: a work area is used by one thread at a time; pinned allocation and the
 * counters are thread-safe. Functions make the area's device current on the calling thread. */
#ifndef CUZK_GPU_GPU_GROTH16_H
#define CUZK_GPU_GPU_GROTH16_H

#include <stddef.h>

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
    CUZK_GPU_G16_W = 3
};

struct cuzk_gpu_g16;

/* Bytes of device memory a work area for (max_n, max_w) takes (C borrowed or not). */
size_t cuzk_gpu_g16_vram_for(size_t max_n, size_t max_w, int borrow_c);
/* Creates a work area on `device` for vectors of up to max_n (A, B, C) and max_w (W) elements
 * (both >= 1). dev_c: a device vector of >= max_n elements (16-byte aligned) to use as C, which
 * must outlive the area; NULL: the area allocates its own. */
int cuzk_gpu_g16_create(int device, size_t max_n, size_t max_w, void *dev_c,
                        struct cuzk_gpu_g16 **out);
/* Waits for the area's work and frees it (NULL is ignored); a borrowed C is left alone. */
void cuzk_gpu_g16_free(struct cuzk_gpu_g16 *g);
/* Bytes of device memory the area allocated (a borrowed C not counted). */
size_t cuzk_gpu_g16_vram(const struct cuzk_gpu_g16 *g);
/* The device address of a vector (cuzk_fr layout). */
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

/* The kernels, on the first n elements of the vectors (n <= capacity); each waits (on the
 * device) for the pending uploads of the vectors it reads and returns when it is done. */
int cuzk_gpu_g16_mul(struct cuzk_gpu_g16 *g, size_t n);     /* C = A o B */
int cuzk_gpu_g16_h(struct cuzk_gpu_g16 *g, size_t n);       /* A = A o B - C */
int cuzk_gpu_g16_to_mont(struct cuzk_gpu_g16 *g, size_t n); /* W = Montgomery(W) */

/* ---- checks (CPU twins in tests) ---------------------------------------------------------- */

enum cuzk_gpu_g16_op {
    CUZK_GPU_G16_OP_MUL = 0,    /* out = a o b */
    CUZK_GPU_G16_OP_H = 1,      /* out = a o b - c */
    CUZK_GPU_G16_OP_TO_MONT = 2 /* out = Montgomery form of the canonical integers in a */
};
/* One kernel of the work area on host arrays of n elements (b, c ignored where unused; a holds
 * canonical integers below r for TO_MONT, 4 little-endian 64-bit limbs each). Allocates and
 * frees its own device memory: a check, not a fast path. */
int cuzk_gpu_g16_eval(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a, const cuzk_fr *b,
                      const cuzk_fr *c, cuzk_fr *out, size_t n);

/* A description of the last CUDA failure this thread saw in this module ("" if none). */
const char *cuzk_gpu_g16_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
