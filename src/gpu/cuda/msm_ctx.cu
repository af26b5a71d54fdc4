// The MSM contexts (contract: src/gpu/gpu_msm.h; the struct: msm_ctx.cuh): what a context of
// max_n scalars costs in VRAM and pinned memory, its creation (streams, events, pinned staging
// buffers, every scratch buffer, sized by msm_sizes_for), its presum space released and
// allocated again, its tuning, its last timing and its release. Part of the GPU MSM module (see
// msm_common.cuh). Host code only: the MSMs themselves run in msm.cu.
#define CUZK_CUDA_MODULE "msm_ctx.cu"
#include "gpu/cuda/msm_ctx.cuh"

#include "gpu/gpu_groth16.h" // cuzk_gpu_pinned_alloc / _free: the staging buffers

// The presum space of the flags: 0 none, 1 sized for G1, 2 for G2 (msm_sizes_for).
static unsigned presum_level(unsigned flags) {
    if (!(flags & CUZK_GPU_MSM_PRESUM)) return 0;
    return (flags & CUZK_GPU_MSM_PRESUM_G2) ? 2u : 1u;
}

// The largest sort of a context: a paired set's 2 max_n entries when it folds.
static size_t ctx_sort_max(size_t max_n, unsigned flags) {
    return (flags & CUZK_GPU_MSM_FOLD) ? 2 * max_n : max_n;
}

extern "C" size_t cuzk_gpu_msm_ctx_vram2(size_t max_n, unsigned flags) {
    if (max_n < 1 || max_n > MSM_MAX_N) return 0;
    int dev = 0;
    const size_t acc =
        cudaGetDevice(&dev) == cudaSuccess ? msm_acc_threads_for(dev) : MSM_ACC_THREADS;
    (void)cudaGetLastError();
    const msm_sizes sz = msm_sizes_for(max_n, MSM_SORT_BUDGET, acc,
                                       (flags & CUZK_GPU_MSM_FOLD) ? msm_fold_window(max_n) : 0,
                                       presum_level(flags));
    const size_t sort_n = ctx_sort_max(max_n, flags);
    size_t cub = 0;
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0 || msm_cub_bytes_for(sort_n, &cub) != CUZK_OK)
        cub = sort_n * 2 * sizeof(uint32_t) + (1u << 20); // no device to ask: an upper estimate
    return msm_bytes_for(sz).total() + cub;
}

extern "C" size_t cuzk_gpu_msm_ctx_vram(size_t max_n) { return cuzk_gpu_msm_ctx_vram2(max_n, 0); }

extern "C" size_t cuzk_gpu_msm_ctx_pinned(size_t max_n) {
    if (max_n < 1 || max_n > MSM_MAX_N) return 0;
    return 2 * std::min<size_t>(max_n, MSM_UPLOAD_CHUNK) * sizeof(cuzk_scalar);
}

extern "C" void cuzk_gpu_msm_ctx_free(struct cuzk_gpu_msm_ctx *ctx) {
    if (!ctx) return;
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    if (ctx->copy_stream) (void)cudaStreamSynchronize(ctx->copy_stream);
    void *bufs[] = {ctx->mm.scalars,  ctx->mm.idx,       ctx->mm.ones,   ctx->mm.rest,
                    ctx->mm.flag_one, ctx->mm.flag_rest, ctx->mm.counts, ctx->mm.keys,
                    ctx->mm.vals,     ctx->mm.buckets,   ctx->mm.items,  ctx->mm.heads,
                    ctx->mm.win,      ctx->mm.presum,    ctx->mm.pflag,  ctx->cub_tmp};
    for (void *p : bufs) (void)cudaFree(p);
    for (int i = 0; i < ctx->nev_created; i++) (void)cudaEventDestroy(ctx->ev[i]);
    for (int i = 0; i < ctx->nev_copy; i++) (void)cudaEventDestroy(ctx->ev_copy[i]);
    for (void *p : ctx->stage) cuzk_gpu_pinned_free(p, ctx->stage_n * sizeof(cuzk_scalar));
    if (ctx->stream) (void)cudaStreamDestroy(ctx->stream);
    if (ctx->copy_stream) (void)cudaStreamDestroy(ctx->copy_stream);
    (void)cudaGetLastError();
    std::free(ctx);
}

extern "C" size_t cuzk_gpu_msm_ctx_release_presum(struct cuzk_gpu_msm_ctx *ctx) {
    if (!ctx || !ctx->mm.presum) return 0;
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    if (ctx->copy_stream) (void)cudaStreamSynchronize(ctx->copy_stream);
    const msm_bytes b = msm_bytes_for(ctx->sz);
    (void)cudaFree(ctx->mm.presum);
    (void)cudaFree(ctx->mm.pflag);
    (void)cudaGetLastError();
    ctx->mm.presum = nullptr;
    ctx->mm.pflag = nullptr;
    ctx->sz.presum_cap = 0; // run_windows: no presum level
    ctx->sz.presum_flags = 0;
    return b.presum + b.presum_flags;
}

template <class T> static int dev_alloc(T **p, size_t bytes) {
    void *q = nullptr;
    CU_TRY(cudaMalloc(&q, bytes ? bytes : 16));
    *p = static_cast<T *>(q);
    return CUZK_OK;
}

extern "C" int cuzk_gpu_msm_ctx_set_presum(struct cuzk_gpu_msm_ctx *ctx, unsigned flags) {
    if (!ctx) return set_error(CUZK_EINVAL, "ctx is NULL");
    if (flags & ~(CUZK_GPU_MSM_PRESUM | CUZK_GPU_MSM_PRESUM_G2))
        return set_error(CUZK_EINVAL, "flags other than the presum space's");
    (void)cuzk_gpu_msm_ctx_release_presum(ctx);
    if (!presum_level(flags)) return CUZK_OK;
    const msm_sizes sz = msm_sizes_for(ctx->sz.max_n, MSM_SORT_BUDGET, ctx->sz.acc_threads,
                                       ctx->sz.fold, presum_level(flags));
    const msm_bytes b = msm_bytes_for(sz);
    int err = dev_alloc(&ctx->mm.presum, b.presum);
    if (err == CUZK_OK) err = dev_alloc(&ctx->mm.pflag, b.presum_flags);
    if (err != CUZK_OK) {
        (void)cuzk_gpu_msm_ctx_release_presum(ctx); // what was allocated: none is left
        return err;
    }
    ctx->sz.presum_cap = sz.presum_cap;
    ctx->sz.presum_flags = sz.presum_flags;
    return CUZK_OK;
}

static int ctx_init(cuzk_gpu_msm_ctx *ctx) {
    CU_TRY(cudaSetDevice(ctx->device));
    // The highest priority the device offers (MSM_STREAM_HIGH 1; 0: the default priority):
    // where an MSM shares the device with other work (the Groth16 backend runs a proof's NTTs
    // beside its witness MSMs), the MSM's kernels take the multiprocessors first and the other
    // work fills what they leave.
    int least = 0, greatest = 0;
    CU_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const int prio = MSM_STREAM_HIGH ? greatest : least;
    CU_TRY(cudaStreamCreateWithPriority(&ctx->stream, cudaStreamNonBlocking, prio));
    CU_TRY(cudaStreamCreateWithPriority(&ctx->copy_stream, cudaStreamNonBlocking, prio));
    for (; ctx->nev_created < MSM_MAX_EVENTS; ctx->nev_created++)
        CU_TRY(cudaEventCreate(&ctx->ev[ctx->nev_created]));
    for (; ctx->nev_copy < 3; ctx->nev_copy++)
        CU_TRY(cudaEventCreateWithFlags(&ctx->ev_copy[ctx->nev_copy], cudaEventDisableTiming));
    for (void *&p : ctx->stage) {
        const int err = cuzk_gpu_pinned_alloc(ctx->stage_n * sizeof(cuzk_scalar), &p);
        if (err != CUZK_OK) return set_error(err, "pinned staging buffer of the MSM context");
    }
    const msm_bytes b = msm_bytes_for(ctx->sz);
    msm_mem &m = ctx->mm;
    TRY(dev_alloc(&m.scalars, b.scalars));
    TRY(dev_alloc(&m.idx, b.lists));
    TRY(dev_alloc(&m.ones, b.lists));
    TRY(dev_alloc(&m.rest, b.lists));
    TRY(dev_alloc(&m.flag_one, b.flags));
    TRY(dev_alloc(&m.flag_rest, b.flags));
    TRY(dev_alloc(&m.counts, b.counts));
    TRY(dev_alloc(&m.keys, b.sort));
    TRY(dev_alloc(&m.vals, b.sort));
    TRY(dev_alloc(&m.buckets, b.buckets));
    TRY(dev_alloc(&m.items, b.items));
    TRY(dev_alloc(&m.heads, b.heads));
    TRY(dev_alloc(&m.win, b.win));
    if (b.presum) {
        TRY(dev_alloc(&m.presum, b.presum));
        TRY(dev_alloc(&m.pflag, b.presum_flags));
    }
    TRY(msm_cub_bytes_for(ctx->sz.fold ? 2 * ctx->sz.max_n : ctx->sz.max_n, &ctx->cub_bytes));
    TRY(dev_alloc(&ctx->cub_tmp, ctx->cub_bytes));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_msm_ctx_create(int device, size_t max_n, struct cuzk_gpu_msm_ctx **out) {
    return cuzk_gpu_msm_ctx_create2(device, max_n, 0, out);
}

extern "C" int cuzk_gpu_msm_ctx_create2(int device, size_t max_n, unsigned flags,
                                        struct cuzk_gpu_msm_ctx **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (max_n < 1 || max_n > MSM_MAX_N) return set_error(CUZK_EINVAL, "max_n out of range");
    auto *ctx = static_cast<cuzk_gpu_msm_ctx *>(std::calloc(1, sizeof(cuzk_gpu_msm_ctx)));
    if (!ctx) return CUZK_ENOMEM;
    ctx->device = device;
    if (cudaSetDevice(device) != cudaSuccess) {
        std::free(ctx);
        return cuda_fail(cudaGetLastError(), "cudaSetDevice", __LINE__);
    }
    ctx->sz = msm_sizes_for(max_n, MSM_SORT_BUDGET, msm_acc_threads_for(device),
                            (flags & CUZK_GPU_MSM_FOLD) ? msm_fold_window(max_n) : 0,
                            presum_level(flags));
    ctx->stage_n = std::min<size_t>(max_n, MSM_UPLOAD_CHUNK);
    const int err = ctx_init(ctx);
    if (err != CUZK_OK) {
        cuzk_gpu_msm_ctx_free(ctx);
        return err;
    }
    *out = ctx;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_msm_ctx_device(const struct cuzk_gpu_msm_ctx *ctx) {
    return ctx ? ctx->device : -1;
}

extern "C" void cuzk_gpu_msm_tune(struct cuzk_gpu_msm_ctx *ctx,
                                  const struct cuzk_gpu_msm_tuning *t) {
    if (!ctx) return;
    cuzk_gpu_msm_tuning v = {0, 0, 0, 0, 0, 0, 0};
    if (t) {
        v = *t;
        if (v.window && (v.window < MSM_MIN_WINDOW || v.window > MSM_MAX_WINDOW)) v.window = 0;
        v.bit_path = v.bit_path > 0 ? 1 : (v.bit_path < 0 ? -1 : 0);
        v.fold = v.fold > 0 ? 1 : (v.fold < 0 ? -1 : 0);
        v.ones_tree = v.ones_tree > 0 ? 1 : (v.ones_tree < 0 ? -1 : 0);
        v.presum = v.presum > 0 ? 1 : (v.presum < 0 ? -1 : 0);
    }
    ctx->tune = v;
}

extern "C" void cuzk_gpu_msm_last_timing(const struct cuzk_gpu_msm_ctx *ctx,
                                         struct cuzk_gpu_msm_timing *t) {
    if (!t) return;
    if (!ctx) {
        std::memset(t, 0, sizeof *t);
        return;
    }
    *t = ctx->timing;
}
