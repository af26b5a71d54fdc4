/* The CUDA backend of the Groth16 prover: the same vtable (struct cuzk_backend) and the same
 * math as the CPU backend, with the NTTs, the h polynomial and the five MSMs on one GPU.
 *
 * Promise: for the same key, witness and blinding factors (r, s) a proof from this backend is
 * byte-identical to the CPU backend's (the GPU modules compute the CPU's exact field and group
 * values). a = A w and b = B w come from the CPU SpMV on the backend's pool; everything after
 * runs on the device, and the key's A, B1, B2, C and H points stay resident in device memory
 * between proofs (uploaded on a key's first proof, or by cuzk_cuda_backend_preload).
 *
 * Resources: per backend, one GPU NTT context, one GPU MSM context and the prover's device
 * vectors, sized by the largest key seen (grown, never shrunk, when a larger key comes; never
 * allocated per proof), and up to CUZK_CUDA_STAGING_SLOTS sets of pinned host staging buffers
 * (one per proof between its SpMV and the end of its GPU work; allocated on demand, grown like
 * the rest). Resident keys are cached by pk pointer, with a fingerprint of the key's header and
 * a few points as a guard against a freed pk whose address is reused; a key is uploaded again
 * when its fingerprint changes. Call cuzk_cuda_backend_evict before freeing a pk all the same.
 * When device memory runs out while uploading a key, the other resident keys are evicted and the
 * upload is tried once more.
 *
 * Errors: prove_start returns CUZK_EINVAL (witness length, w[0] != 1), CUZK_EUNSUPPORTED (a
 * domain above 2^CUZK_GPU_NTT_MAX_LOG) or CUZK_ENOMEM at once; GPU failures (CUZK_ENODEV,
 * CUZK_EGPUOOM, CUZK_EGPU) come from prove_finish, never as an abort, so the caller may retry or
 * fall back to the CPU backend. After a GPU failure the work contexts are dropped and recreated
 * by the next proof.
 *
 * Thread-safety: prove_start / prove_finish may be called from several threads on one backend
 * (see DESIGN in cuda_backend.c); the other functions too, except init and free. */
#ifndef CUZK_GROTH16_CUDA_BACKEND_H
#define CUZK_GROTH16_CUDA_BACKEND_H

#include <stddef.h>

#include "groth16/groth16.h"

/* Proofs whose CPU part may run while another proof holds the GPU (each needs its own pinned
 * staging: about 32 (2n + n_vars) bytes). A further concurrent proof waits for a free set. */
#define CUZK_CUDA_STAGING_SLOTS 2

/* The stages of one proof, in milliseconds of wall-clock time. */
struct cuzk_cuda_timing {
    double staging_ms;    /* waiting for a free staging set and growing it (first proofs) */
    double spmv_ms;       /* CPU: the witness copied to staging, a = A w and b = B w (the
                           * SpMV's own thread: it overlaps the lock wait and the first MSMs) */
    double lock_wait_ms;  /* waiting for the device (another proof's GPU section) */
    double key_upload_ms; /* uploading the key's points (0 when already resident) */
    double upload_ms;     /* device time of the uploads of the witness, and of a and b (these
                           * overlap the C and B2 MSMs) */
    double ntt_ms;        /* c = a o b, 3 inverse + 3 coset NTTs, h */
    double h_msm_ms;      /* H' from the device-resident h */
    double msm_ms;        /* A', B1', C' */
    double g2_msm_ms;     /* B2' */
    double gpu_total_ms;  /* the GPU section, device lock held (key upload included) */
    double total_ms;      /* prove_start to the end of the background work */
};

/* Sets up be as a CUDA backend on `device`, its CPU part (SpMV, scalar conversion) on pool
 * (NULL: one thread; the pool must outlive the backend). Nothing is allocated on the device
 * until the first proof. Returns CUZK_OK, CUZK_ENODEV (no GPU, or a build without CUDA),
 * CUZK_EINVAL (no such device) or CUZK_ENOMEM. */
int cuzk_cuda_backend_init(struct cuzk_backend *be, int device, struct cuzk_pool *pool);
/* Frees everything the backend holds on the device and the host. No proof may be pending. */
void cuzk_cuda_backend_free(struct cuzk_backend *be);

/* Uploads pk's points now, unless they are resident already (a daemon loading a key ahead of
 * its first proof). Waits for the device. Returns CUZK_OK or a GPU error. */
int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
/* Frees pk's resident points (pk NULL: every key's). Waits for the device; a proof of pk started
 * later uploads them again. Returns CUZK_OK, or CUZK_ENOTFOUND when pk was not resident. */
int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
/* Bytes of device memory pk's resident points take (pk NULL: all keys'; 0 if none). */
size_t cuzk_cuda_backend_resident_bytes(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);

/* What the backend holds now (read without waiting for the device). */
struct cuzk_cuda_stats {
    int device;
    size_t keys;       /* resident keys */
    size_t bases_vram; /* bytes of device memory their points take */
    size_t work_vram;  /* bytes of device memory of the NTT and MSM contexts and the vectors */
    size_t pinned;     /* bytes of pinned host staging */
    size_t proofs;     /* proofs finished */
};
void cuzk_cuda_backend_stats(const struct cuzk_backend *be, struct cuzk_cuda_stats *out);

/* The stage times of the last proof finished on this backend. Returns CUZK_OK, or
 * CUZK_ENOTFOUND before the first one. With the environment variable CUZK_TIMING_LOG=1 every
 * prove_finish also writes them to stderr as one line:
 *   CUZK_TIMING: spmv_ms=.. upload_ms=.. ntt_ms=.. h_msm_ms=.. msm_ms=.. g2_msm_ms=..
 *   lock_wait_ms=.. gpu_total_ms=.. key_upload_ms=.. staging_ms=.. total_ms=..   (one line) */
int cuzk_cuda_backend_last_timing(const struct cuzk_backend *be, struct cuzk_cuda_timing *out);

/* What made the last failed proof fail, as one line naming the stage, the error and the CUDA
 * call (e.g. "H MSM: GPU memory exhausted: cudaMalloc failed: ..."); "" if none failed. */
#define CUZK_CUDA_ERR_LEN 512
void cuzk_cuda_backend_last_error(const struct cuzk_backend *be, char *buf, size_t len);

#endif
