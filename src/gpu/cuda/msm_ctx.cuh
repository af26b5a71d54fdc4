// The MSM context (struct cuzk_gpu_msm_ctx, contract: src/gpu/gpu_msm.h) as the files of the GPU
// MSM module see it (see msm_common.cuh): msm_ctx.cu sizes, creates, resizes and frees it; the
// MSM entry points (msm.cu) run MSMs on its streams, in its scratch memory.
//
// Invariants, from a successful cuzk_gpu_msm_ctx_create2 to cuzk_gpu_msm_ctx_free: every
// resource belongs to `device`; mm's device buffers hold what sz (msm_sizes_for of max_n and the
// creation flags) asks for, allocated at creation and never on the MSM path, but for the presum
// space (mm.presum, mm.pflag), which cuzk_gpu_msm_ctx_release_presum frees (sz.presum_cap 0:
// no presum level) and cuzk_gpu_msm_ctx_set_presum allocates again; cub_tmp holds cub_bytes of
// CUB temporary storage for the largest sort (2 max_n entries when the context folds); stage
// holds two pinned staging buffers of stage_n scalars each (cuzk_gpu_pinned_alloc, which counts
// them). ev[0, nev_created) and ev_copy[0, nev_copy) are the created events: the phase marks
// (ev_phase: the phase each mark ends) and the uploads' copy events (msm_exec.cuh, dev_exec).
// tune is the tuning the MSMs use (cuzk_gpu_msm_tune), timing the last MSM's phase times.
// A context is used by one thread at a time. Host code only.
#ifndef CUZK_GPU_CUDA_MSM_CTX_CUH
#define CUZK_GPU_CUDA_MSM_CTX_CUH

#include "gpu/cuda/msm_exec.cuh"

struct cuzk_gpu_msm_ctx {
    int device;
    msm_sizes sz;
    msm_mem mm;
    void *cub_tmp;
    size_t cub_bytes;
    cudaStream_t stream, copy_stream;
    void *stage[2]; // pinned, stage_n scalars each
    size_t stage_n;
    cudaEvent_t ev_copy[3];
    int nev_copy;
    cudaEvent_t ev[MSM_MAX_EVENTS];
    int ev_phase[MSM_MAX_EVENTS];
    int nev_created;
    cuzk_gpu_msm_tuning tune;
    cuzk_gpu_msm_timing timing;
};

#endif
