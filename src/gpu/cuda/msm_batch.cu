// Batch scalar multiplication on the GPU, for the GPU dev setup (contract: src/gpu/gpu_msm.h),
// and its host twin (src/gpu/gpu_twin.h); part of the GPU MSM module (see msm_common.cuh).
//
// A fixed-base table of the base (computed on the host by cuzk_g*_fb_table_init) is uploaded,
// and one thread per scalar sums at most ceil(256 / MSM_FB_WINDOW) table points by mixed
// additions and converts to affine with one Fermat inversion (fb_mul_body); the work goes in
// chunks of MSM_FB_CHUNK scalars, synchronously, in device memory the call allocates and frees
// itself (a setup tool, not the proving path).
#define CUZK_CUDA_MODULE "msm_batch.cu"
#include "gpu/cuda/msm_exec.cuh"

template <class G>
static int batch_mul(int device, const typename G::host_aff *base, const cuzk_fr *scalars, size_t n,
                     typename G::host_aff *out) {
    using F = typename G::F;
    TRY(check_device(device));
    if (!base || (n && (!scalars || !out))) return set_error(CUZK_EINVAL, "NULL argument");
    if (n == 0) return CUZK_OK;
    const int w = MSM_FB_WINDOW;
    const size_t tlen = G::fb_len(w);
    std::vector<typename G::host_aff> table(tlen);
    if (G::fb_init(table.data(), base, w) != CUZK_OK)
        return set_error(CUZK_ENOMEM, "fixed-base table");
    CU_TRY(cudaSetDevice(device));
    const size_t chunk = std::min<size_t>(n, MSM_FB_CHUNK);
    dev_buffers d;
    aff_mem<F> *dtable = nullptr, *dout = nullptr;
    fr_mem *dk = nullptr;
    TRY(d.alloc(&dtable, tlen * sizeof(aff_mem<F>)));
    TRY(d.alloc(&dk, chunk * sizeof(fr_mem)));
    TRY(d.alloc(&dout, chunk * sizeof(aff_mem<F>)));
    CU_TRY(cudaMemcpy(dtable, table.data(), tlen * sizeof(aff_mem<F>), cudaMemcpyHostToDevice));
    dev_exec x = {};
    x.stream = 0;
    for (size_t at = 0; at < n; at += chunk) {
        const size_t c = std::min(chunk, n - at);
        CU_TRY(cudaMemcpy(dk, scalars + at, c * sizeof(fr_mem), cudaMemcpyHostToDevice));
        TRY(x.launch(fr_canonical_body{dk, dk}, c));
        fb_mul_body<F> b = {dtable, reinterpret_cast<const uint64_t *>(dk), dout,
                            static_cast<unsigned>(w), static_cast<unsigned>((256 + w - 1) / w)};
        TRY(x.launch(b, c));
        CU_TRY(cudaMemcpy(out + at, dout, c * sizeof(aff_mem<F>), cudaMemcpyDeviceToHost));
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_batch_mul(int device, const cuzk_g1_affine *base, const cuzk_fr *scalars,
                                     size_t n, cuzk_g1_affine *out) {
    return batch_mul<g1_group>(device, base, scalars, n, out);
}

extern "C" int cuzk_gpu_g2_batch_mul(int device, const cuzk_g2_affine *base, const cuzk_fr *scalars,
                                     size_t n, cuzk_g2_affine *out) {
    return batch_mul<g2_group>(device, base, scalars, n, out);
}

// ---- host twin (gpu_twin.h) ---------------------------------------------------------------------

template <class G>
static int twin_batch_mul(const typename G::host_aff *base, const cuzk_fr *scalars, size_t n,
                          typename G::host_aff *out) {
    using F = typename G::F;
    if (!base || (n && (!scalars || !out))) return CUZK_EINVAL;
    const int w = MSM_FB_WINDOW;
    std::vector<typename G::host_aff> table(G::fb_len(w));
    if (G::fb_init(table.data(), base, w) != CUZK_OK) return CUZK_ENOMEM;
    std::vector<cuzk_scalar> k(n);
    for (size_t i = 0; i < n; i++) cuzk_scalar_from_fr(&k[i], &scalars[i]);
    fb_mul_body<F> b = {reinterpret_cast<const aff_mem<F> *>(table.data()),
                        reinterpret_cast<const uint64_t *>(k.data()),
                        reinterpret_cast<aff_mem<F> *>(out), static_cast<unsigned>(w),
                        static_cast<unsigned>((256 + w - 1) / w)};
    host_exec x;
    return x.launch(b, n);
}

extern "C" int cuzk_gpu_twin_g1_batch_mul(const cuzk_g1_affine *base, const cuzk_fr *scalars,
                                          size_t n, cuzk_g1_affine *out) {
    return twin_batch_mul<g1_group>(base, scalars, n, out);
}

extern "C" int cuzk_gpu_twin_g2_batch_mul(const cuzk_g2_affine *base, const cuzk_fr *scalars,
                                          size_t n, cuzk_g2_affine *out) {
    return twin_batch_mul<g2_group>(base, scalars, n, out);
}
