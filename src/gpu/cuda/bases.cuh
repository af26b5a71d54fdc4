// The resident bases (struct cuzk_gpu_bases, contract: src/gpu/gpu_msm.h) as the CUDA modules
// that fill and read them see it: msm.cu uploads host arrays and runs MSMs over them, points.cu
// decodes encoded points into them (src/gpu/gpu_points.h).
//
// Invariants: pts holds n points of `group` in the device storage layout aff_mem<fp_t> or
// aff_mem<fp2_t> (ec.cuh: the bytes of the host's cuzk_g1_affine / cuzk_g2_affine, the identity
// as all zeros), bytes = n * bases_point_bytes(group) of VRAM on `device`; pts is NULL when
// n = 0. Once folded (cuzk_gpu_bases_fold, msm.cu), fold_pts holds the n multiples 2^T pts[i] of
// the folded layout of fold_window bits (T = msm_layout_for(fold_window, 1).shift()) in another
// fold_bytes = bytes; before, fold_pts is NULL and fold_window 0. cuzk_gpu_bases_free (msm.cu)
// frees any object bases_alloc made.
//
// Include after gpu/gpu_msm.h and gpu/cuda/cuda_errors.cuh: bases_alloc reports its failures
// through the including module's last-error text. Host code only.
#ifndef CUZK_GPU_CUDA_BASES_CUH
#define CUZK_GPU_CUDA_BASES_CUH

#include <cstdlib>

#include "gpu/cuda/ec.cuh"

#if !defined(CUZK_GPU_GPU_MSM_H) || !defined(CUZK_GPU_CUDA_CUDA_ERRORS_CUH)
#error "include gpu/gpu_msm.h and gpu/cuda/cuda_errors.cuh before gpu/cuda/bases.cuh"
#endif

struct cuzk_gpu_bases {
    int device;
    int group; // enum cuzk_gpu_group
    size_t n;
    size_t bytes;
    void *pts;
    void *fold_pts;
    unsigned fold_window;
    size_t fold_bytes;
};

static inline size_t bases_point_bytes(int group) {
    return group == CUZK_GPU_G2 ? sizeof(cuzk_cuda::aff_mem<cuzk_cuda::fp2_t>)
                                : sizeof(cuzk_cuda::aff_mem<cuzk_cuda::fp_t>);
}

// *out = an object for n points of `group` on `device` with uninitialised contents. The device
// must have been checked (check_device). CUZK_ENOMEM, or a CUDA failure (*out NULL).
static inline int bases_alloc(int device, int group, size_t n, cuzk_gpu_bases **out) {
    *out = nullptr;
    auto *b = static_cast<cuzk_gpu_bases *>(std::calloc(1, sizeof(cuzk_gpu_bases)));
    if (!b) return set_error(CUZK_ENOMEM, "bases: host memory");
    b->device = device;
    b->group = group;
    b->n = n;
    b->bytes = n * bases_point_bytes(group);
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess && n) e = cudaMalloc(&b->pts, b->bytes);
    if (e != cudaSuccess) {
        std::free(b);
        return cuda_fail(e, "bases allocation", __LINE__);
    }
    *out = b;
    return CUZK_OK;
}

#endif
