/* The CUDA backend of the Groth16 prover: the same vtable (struct cuzk_backend) and the same
 * math as the CPU backend, with the SpMV, the NTTs, the h polynomial and the five MSMs on one
 * GPU.
 *
 * Promise: for the same key, witness and blinding factors (r, s) a proof from this backend is
 * byte-identical to the CPU backend's (the GPU modules compute the CPU's exact field and group
 * values). Everything after the witness's upload runs on the device: a = A w and b = B w come
 * from the key's A/B rows resident in device memory (gpu_groth16.h's SpMV), the density-
 * filtered queries' scalars are gathered there, and the key's points stay resident between
 * proofs. A key becomes resident through key_upload (the engine's SRS manager calls it when it
 * loads the key) or on its first proof; its points come from host memory or, when the pk has
 * none, straight from its key file (formats/g16key.h): compressed points are read chunk by
 * chunk into pinned buffers and decoded on the device (gpu_points.h), so the key never exists
 * whole in host memory. After the upload the backend reads nothing of the pk's host arrays.
 *
 * Memory. Device: the resident keys (points, rows, wire lists) and one work area (an NTT
 * context, an MSM context, the prover's vectors with two witness slots), sized for the largest
 * key and grown only at a key upload, all counted against the device's memory budget
 * (struct cuzk_cuda_config's vram_budget; default: the device's memory less
 * cuzk_cuda_vram_reserve, cuda_plan.h).
 * A key that does not fit the budget is refused with CUZK_EGPUOOM and a sentence naming the
 * sizes (the SRS manager then evicts idle keys and tries again); one that would not fit even
 * with no other key resident and the smallest work space (no folding, no presum space) is
 * refused with CUZK_EUNSUPPORTED and the sizes, by key_upload and by prove, and nothing is
 * evicted for it; a cudaMalloc that fails within the budget is CUZK_EGPUOOM too. Never a
 * crash. Host: the witness buffers (pinned, from witness_alloc) and two pinned staging buffers
 * of the key loader while a key uploads; a proof itself allocates nothing.
 *
 * Errors: prove returns CUZK_EINVAL (witness length, w[0] != 1, a key with neither points nor
 * file), CUZK_EUNSUPPORTED (a domain above 2^CUZK_GPU_NTT_MAX_LOG, or a key the budget can never
 * hold), CUZK_EGPUOOM, CUZK_EGPU, CUZK_ENODEV, always with a sentence naming the stage, the
 * error and the CUDA call. After a GPU failure the work contexts are dropped and recreated by
 * the next proof.
 *
 * Without CUDA. This header is the one boundary between the CPU-only build and the GPU code:
 * a build without CUDA compiles cuda_backend_none.c in place of the backend's other cuda_*.c
 * files and src/gpu/cuda, and every function here then answers CUZK_ENODEV (or nothing held);
 * gpu/gpu.h's enumeration reports zero devices. No other module calls the GPU modules
 * (gpu_msm.h, gpu_ntt.h, ...).
 *
 * Thread-safety: see DESIGN in cuda_backend_impl.h; every function may be called from any thread,
 * except init and free. */
#ifndef CUZK_GROTH16_CUDA_BACKEND_H
#define CUZK_GROTH16_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/groth16.h"

/* The stages of one proof, in milliseconds of wall-clock time (also the prove's stage line). */
struct cuzk_cuda_timing {
    double slot_wait_ms;  /* waiting for a free witness slot on the device */
    double upload_ms;     /* the witness's upload (device time) */
    double lock_wait_ms;  /* waiting for the device (another proof's compute section) */
    double key_upload_ms; /* making the key resident (0 when it was) */
    double spmv_ms;       /* a = A w, b = B w on the device */
    double msm_ms;        /* A', B1', C' (with the gathers of the filtered queries) */
    double g2_msm_ms;     /* B2' */
    double ntt_ms;        /* c = a o b, the six NTTs and h (cuzk_groth16_pk_h's order: in the
                             coefficient basis a b and (the last NTT) its inverse coset
                             transform, then h = (that - c) / t); with the overlap on
                             (overlap_ntt) only what they add to the section: c, the
                             queueing, and the wait for the transforms after the MSMs, with
                             h */
    double h_msm_ms;      /* H' from the device-resident h */
    double fold_ms;       /* the dense queries folded after the MSMs (only in a key's first
                             proof, see fold_dense_min; 0 otherwise) */
    double gpu_total_ms;  /* the compute section, device lock held */
    double total_ms;      /* prove's entry to the end of the device's work */
    double link_mb;       /* MB (10^6 bytes) of streamed queries copied host -> device (0 when
                             the key's plan streams none; residency plans in DESIGN) */
    double vec_mb;        /* MB of the vectors a, b, c crossing the link either way, for a plan
                             with its rows in host memory (a and b up) or a tight work space
                             (five vectors up, two back); 0 otherwise */
    double link_ms;       /* the copies' device time: link_mb / link_ms is the link's rate; the
                             copies overlap the MSMs, so this is not time added to the section */
};

/* The backend's settings (the daemon's [gpus] keys bind straight to these fields). Each can be
 * changed while the backend runs (cuzk_cuda_backend_configure). */
struct cuzk_cuda_config {
    /* The device memory budget in bytes: the resident keys and the work space are counted
     * against it (see Memory above); 0: the device's memory less cuzk_cuda_vram_reserve's. */
    uint64_t vram_budget;
    /* H queries of at least this many points are folded at key upload (see DESIGN in
     * cuda_backend_impl.h): the H MSM of a porep-c18 partition (2^27 points) takes fewer bucket
     * additions for a second copy of its points in device memory (12 GiB there, and 6 GiB more
     * of MSM context). Default 2^26; 0: never. Applies to keys uploaded from then on. */
    int64_t fold_h_min;
    /* Dense queries are folded after a key's first proof (see DESIGN in cuda_backend_impl.h):
     * each of the key's queries (A, B1, B2, C, H) of at least this many points whose MSM in that
     * proof took at least half of its scalars through the windows (a random witness, a circom
     * circuit's; not the mostly 0/1 witness of a Filecoin circuit, whose ones are summed apart),
     * when the budget holds its multiples and still leaves room for a second key of the same
     * plain size. The MSM context is sized for folding for keys with a query this large.
     * Default 2^22; 0: never. Applies to keys whose first proof comes from then on. */
    int64_t fold_dense_min;
    /* Whether the MSM context is to have a presum space (default on; see DESIGN in
     * cuda_backend_impl.h): its MSMs then sum adjacent sorted entries of one bucket in affine
     * pairs before the accumulation where that pays (CUZK_GPU_MSM_PRESUM). The space is taken
     * only when the budget holds it with the key (and its folded H query) and the rest of the
     * work space, and it is freed again when a key or a fold needs its room. After a key's first
     * proof whose B2 MSM (of at least fold_dense_min points) was dense, it grows to a space
     * sized for G2 points when the budget holds that. Turned on, the next proof rebuilds the
     * work objects with it when the budget allows; turned off, the space goes when they are
     * next rebuilt (a larger key). The proof's bytes are the same either way. */
    int presum;
    /* Whether a proof's NTTs (the h polynomial's transforms: all six for a key in snarkjs's
     * basis, the first five in bellperson's coefficient basis, whose last needs a b first) run
     * on the device beside its A, B1, B2 and C MSMs (default on) or after them, for proofs that
     * start from then on. The proof's bytes are the same either way. */
    int overlap_ntt;
};

/* Every setting at its default: the one place the defaults are written. */
void cuzk_cuda_config_default(struct cuzk_cuda_config *cfg);

/* Sets up be as a CUDA backend on `device` with the default settings, its CPU part (none on the
 * proof path) on pool (NULL: the calling thread; the pool must outlive the backend). Nothing is
 * allocated on the device until the first key. Returns CUZK_OK, CUZK_ENODEV (no GPU, or a build
 * without CUDA), CUZK_EINVAL (no such device) or CUZK_ENOMEM. */
int cuzk_cuda_backend_init(struct cuzk_backend *be, int device, struct cuzk_pool *pool);
/* Frees everything the backend holds on the device and the host. No proof may be running. */
void cuzk_cuda_backend_free(struct cuzk_backend *be);
/* Applies every setting of cfg, at start or while the backend runs. Each call forgets what the
 * budget refused before (a folding context, a presum space), so the next key or proof asks for
 * it again under the settings now in force. Returns CUZK_OK, or CUZK_EINVAL (a budget larger
 * than the device's memory, a negative threshold) with nothing changed; CUZK_ENODEV without
 * CUDA. */
int cuzk_cuda_backend_configure(struct cuzk_backend *be, const struct cuzk_cuda_config *cfg);
/* The settings in force (vram_budget as the bytes it came to), for a caller that changes one of
 * them with cuzk_cuda_backend_configure. Returns CUZK_OK, or CUZK_EINVAL (CUZK_ENODEV without
 * CUDA) with *out at the defaults. */
int cuzk_cuda_backend_config(const struct cuzk_backend *be, struct cuzk_cuda_config *out);
/* be->key_upload / key_drop, callable directly (tests, benchmarks). */
int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk, char *err,
                              size_t errlen);
/* Frees pk's resident copy (pk NULL: every key's). Returns CUZK_OK, or CUZK_ENOTFOUND when pk
 * was not resident. */
int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
/* Bytes of device memory pk's resident copy takes (pk NULL: all keys'; 0 if none). */
size_t cuzk_cuda_backend_resident_bytes(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);

/* What the backend holds now (read without waiting for the device). */
struct cuzk_cuda_stats {
    int device;
    size_t keys;          /* resident keys */
    size_t bases_vram;    /* bytes of device memory the keys take (points, rows, wire lists) */
    size_t work_vram;     /* bytes of device memory of the NTT and MSM contexts and the vectors */
    size_t vram_budget;   /* the device memory budget */
    size_t pinned;        /* bytes of pinned host memory of witness buffers handed out */
    size_t proofs;        /* proofs finished */
    size_t folded;        /* resident keys whose H query is folded (at upload) */
    size_t dense_folded;  /* queries of resident keys folded after a first proof */
    int presum_space;     /* the MSM context's presum space: 0 none, 1 sized for G1 points, 2 for
                           * G2 points (see cuzk_cuda_config) */
    size_t msm_points;    /* the MSM context's points: smaller than a key's MSM when its plan
                           * runs MSMs in slices (residency plans, DESIGN) */
    size_t streamed_keys; /* resident keys whose plan streams queries from host memory */
    size_t host_bases;    /* bytes of pinned host memory of those queries */
    size_t link_bytes;    /* bytes the streamer copied host -> device since the work objects were
                           * made, and the copies' device time in ms (bytes / ms: the link's rate) */
    double link_ms;
};
/* The residency plan (groth16/cuda_plan.h) pk would get on this device now, from its budget:
 * CUZK_OK, or CUZK_EUNSUPPORTED with the sizes in err when none holds it; CUZK_ENODEV without
 * CUDA. For tests, benchmarks and the daemon's preload line. */
struct cuzk_cuda_plan;
struct cuzk_cuda_plan_sizes;
int cuzk_cuda_backend_plan(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                           struct cuzk_cuda_plan_sizes *sizes, struct cuzk_cuda_plan *plan,
                           char *err, size_t errlen);
void cuzk_cuda_backend_stats(const struct cuzk_backend *be, struct cuzk_cuda_stats *out);

/* The fixed-base multiplications of a key setup on `device`, outside any backend: out[i] =
 * scalars[i] * base for i < n, in G2 when g2 (base a cuzk_g2_affine, out cuzk_g2_affine[n]), else
 * in G1 (cuzk_g1_affine). Returns CUZK_OK, CUZK_ENODEV (no such GPU, or a build without CUDA),
 * CUZK_ENOMEM, CUZK_EGPUOOM or CUZK_EGPU, with a sentence in err (which may be NULL). */
int cuzk_cuda_batch_mul(int device, int g2, const void *base, const cuzk_fr *scalars, size_t n,
                        void *out, char *err, size_t errlen);

/* The stage times of the last proof finished on this backend. Returns CUZK_OK, or
 * CUZK_ENOTFOUND before the first one. */
int cuzk_cuda_backend_last_timing(const struct cuzk_backend *be, struct cuzk_cuda_timing *out);

#endif
