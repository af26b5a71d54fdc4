// The pipe-rate kernels (contract: src/gpu/gpu_pipes.h) and their host twin: one source for
// both, as in ff_fp.cuh, where each step is one PTX instruction on the device and the same
// arithmetic in portable C++ on the host.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>

#include "cuzk/error.h"
#include "gpu/cuda/ff_fp.cuh"
#include "gpu/gpu_pipes.h"

#define CUZK_PIPES_HD __host__ __device__ __forceinline__

namespace {

constexpr unsigned kThreads = 256, kBlocksPerSm = 8, kN = CUZK_GPU_PIPE_CHAINS;
constexpr uint32_t kMul = 0x9e3779b1u;
constexpr double kC = 0.9999999, kE = 1e-9;

CUZK_PIPES_HD uint32_t step_lo(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a) : "r"(kMul), "r"(b));
    return a;
#else
    return a * kMul + b;
#endif
}
CUZK_PIPES_HD uint32_t step_hi(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(a) : "r"(kMul), "r"(b));
    return a;
#else
    return static_cast<uint32_t>((static_cast<uint64_t>(a) * kMul) >> 32) + b;
#endif
}
CUZK_PIPES_HD uint64_t step_wide(uint64_t w) {
#ifdef __CUDA_ARCH__
    asm volatile("mad.wide.u32 %0, %1, %2, %0;"
                 : "+l"(w)
                 : "r"(static_cast<uint32_t>(w)), "r"(kMul));
    return w;
#else
    return static_cast<uint64_t>(static_cast<uint32_t>(w)) * kMul + w;
#endif
}
CUZK_PIPES_HD double step_fma(double d) {
#ifdef __CUDA_ARCH__
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(d) : "d"(kC), "d"(kE));
    return d;
#else
    return std::fma(d, kC, kE);
#endif
}
CUZK_PIPES_HD uint32_t step_add(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    asm volatile("add.u32 %0, %0, %1;" : "+r"(a) : "r"(b));
    return a;
#else
    return a + b;
#endif
}
CUZK_PIPES_HD uint64_t bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

// Thread t's chains after iters steps of kind K, folded into one value.
template <int K> CUZK_PIPES_HD uint64_t pipe_thread(unsigned t, unsigned iters) {
    uint32_t a[kN], b[kN];
    uint64_t w[kN];
    double d[kN];
    for (unsigned j = 0; j < kN; j++) {
        a[j] = t * 77u + j * 0x9e37u + 1u;
        b[j] = a[j] ^ 5u;
        w[j] = a[j];
        d[j] = static_cast<double>(t % 1000u) * 1e-3 + j;
    }
#ifdef __CUDA_ARCH__
#pragma unroll 4
#endif
    for (unsigned i = 0; i < iters; i++) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (unsigned j = 0; j < kN; j++) {
            const unsigned n = (j + 1) % kN;
            if (K == CUZK_GPU_PIPE_IMAD_LO || K == CUZK_GPU_PIPE_IMAD_DFMA ||
                K == CUZK_GPU_PIPE_IMAD_IADD)
                a[j] = step_lo(a[j], a[n]);
            if (K == CUZK_GPU_PIPE_IMAD_HI) a[j] = step_hi(a[j], a[n]);
            if (K == CUZK_GPU_PIPE_IMAD_WIDE) w[j] = step_wide(w[j]);
            if (K == CUZK_GPU_PIPE_DFMA || K == CUZK_GPU_PIPE_IMAD_DFMA) d[j] = step_fma(d[j]);
            if (K == CUZK_GPU_PIPE_IADD) a[j] = step_add(a[j], a[n]);
            if (K == CUZK_GPU_PIPE_IMAD_IADD) b[j] = step_add(b[j], b[n]);
        }
    }
    uint64_t v = 0;
    for (unsigned j = 0; j < kN; j++) {
        if (K == CUZK_GPU_PIPE_IMAD_WIDE)
            v ^= w[j] << j;
        else if (K == CUZK_GPU_PIPE_DFMA)
            v ^= bits(d[j]) << j;
        else if (K == CUZK_GPU_PIPE_IMAD_DFMA)
            v ^= (bits(d[j]) << j) ^ a[j];
        else if (K == CUZK_GPU_PIPE_IMAD_IADD)
            v ^= (static_cast<uint64_t>(b[j]) << 32) ^ a[j];
        else
            v ^= static_cast<uint64_t>(a[j]) << j;
    }
    return v;
}

// The product kinds: thread t's two chains x <- x y over `steps` steps, folded into one value.
constexpr unsigned kProdBlocksPerSm = 2, kProdStepDiv = 64;
CUZK_PIPES_HD cuzk_cuda::fp_t prod_seed(unsigned t, unsigned j) {
    cuzk_cuda::fp_t x;
    uint32_t h = t * 0x9e3779b1u + j * 0x85ebca6bu + 1u;
    for (int i = 0; i < 12; i++) {
        h ^= h >> 15;
        h *= 0x2c1b3c6du;
        h ^= h >> 12;
        x.l[i] = h;
    }
    x.l[11] &= 0x0fffffffu; // below p, whose top word is 0x1a0111ea
    return x;
}
template <int K> CUZK_PIPES_HD uint64_t prod_thread(unsigned t, unsigned steps) {
    using namespace cuzk_cuda;
    fp_t x0 = prod_seed(t, 0), x1 = prod_seed(t, 1);
    const fp_t y = prod_seed(t, 2);
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    for (unsigned i = 0; i < steps; i++) {
        fp_pair r;
        if (K == CUZK_GPU_PIPE_FP_MUL) r = mul2(x0, y, x1, y);
        if (K == CUZK_GPU_PIPE_FP_MUL64) r = mul2_64(x0, y, x1, y);
        if (K == CUZK_GPU_PIPE_FP_MUL_MIX) r = mul2_mix(x0, y, x1, y);
        x0 = r.a;
        x1 = r.b;
    }
    uint64_t v = 0;
    for (int i = 0; i < 12; i++) v ^= (static_cast<uint64_t>(x0.l[i]) << 32 | x1.l[i]) << i;
    return v;
}

template <int K>
__global__ void __launch_bounds__(kThreads, kProdBlocksPerSm)
    prod_kernel(unsigned steps, uint64_t *vals, unsigned sample) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t v = prod_thread<K>(t, steps);
    if (t < sample)
        vals[t] = v;
    else if (v == 0)
        vals[kThreads] = v;
}

bool is_prod(int kind) { return kind >= CUZK_GPU_PIPE_FP_MUL && kind <= CUZK_GPU_PIPE_FP_MUL_MIX; }
unsigned prod_steps(unsigned iters) { return iters / kProdStepDiv ? iters / kProdStepDiv : 1; }

template <int K> __global__ void pipe_kernel(unsigned iters, uint64_t *vals, unsigned sample) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t v = pipe_thread<K>(t, iters);
    if (t < sample)
        vals[t] = v;
    else if (v == 0)
        vals[kThreads] = v; // the value is observable for every thread
}

// The instructions a step of K counts (per chain).
int ops_per_step(int kind) {
    if (is_prod(kind)) return 2;
    return kind == CUZK_GPU_PIPE_IMAD_DFMA || kind == CUZK_GPU_PIPE_IMAD_IADD ? 2 : 1;
}

int launch(int kind, unsigned blocks, unsigned iters, uint64_t *vals, unsigned sample) {
    switch (kind) {
    case CUZK_GPU_PIPE_IMAD_LO:
        pipe_kernel<CUZK_GPU_PIPE_IMAD_LO><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_IMAD_HI:
        pipe_kernel<CUZK_GPU_PIPE_IMAD_HI><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_IMAD_WIDE:
        pipe_kernel<CUZK_GPU_PIPE_IMAD_WIDE><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_DFMA:
        pipe_kernel<CUZK_GPU_PIPE_DFMA><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_IADD:
        pipe_kernel<CUZK_GPU_PIPE_IADD><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_IMAD_DFMA:
        pipe_kernel<CUZK_GPU_PIPE_IMAD_DFMA><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_FP_MUL:
        prod_kernel<CUZK_GPU_PIPE_FP_MUL><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_FP_MUL64:
        prod_kernel<CUZK_GPU_PIPE_FP_MUL64><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    case CUZK_GPU_PIPE_FP_MUL_MIX:
        prod_kernel<CUZK_GPU_PIPE_FP_MUL_MIX><<<blocks, kThreads>>>(iters, vals, sample);
        break;
    default: pipe_kernel<CUZK_GPU_PIPE_IMAD_IADD><<<blocks, kThreads>>>(iters, vals, sample); break;
    }
    return cudaPeekAtLastError() == cudaSuccess ? CUZK_OK : CUZK_EGPU;
}

} // namespace

extern "C" const char *cuzk_gpu_pipe_name(int kind) {
    static const char *const names[CUZK_GPU_PIPE_KINDS] = {
        "imad.lo",      "imad.hi",      "imad.wide", "dfma",     "iadd",
        "imad.lo+dfma", "imad.lo+iadd", "fp.mul",    "fp.mul64", "fp.mul+mul64"};
    return kind >= 0 && kind < CUZK_GPU_PIPE_KINDS ? names[kind] : nullptr;
}

extern "C" uint64_t cuzk_gpu_pipe_thread(int kind, unsigned t, unsigned iters) {
    switch (kind) {
    case CUZK_GPU_PIPE_IMAD_LO: return pipe_thread<CUZK_GPU_PIPE_IMAD_LO>(t, iters);
    case CUZK_GPU_PIPE_IMAD_HI: return pipe_thread<CUZK_GPU_PIPE_IMAD_HI>(t, iters);
    case CUZK_GPU_PIPE_IMAD_WIDE: return pipe_thread<CUZK_GPU_PIPE_IMAD_WIDE>(t, iters);
    case CUZK_GPU_PIPE_DFMA: return pipe_thread<CUZK_GPU_PIPE_DFMA>(t, iters);
    case CUZK_GPU_PIPE_IADD: return pipe_thread<CUZK_GPU_PIPE_IADD>(t, iters);
    case CUZK_GPU_PIPE_IMAD_DFMA: return pipe_thread<CUZK_GPU_PIPE_IMAD_DFMA>(t, iters);
    case CUZK_GPU_PIPE_IMAD_IADD: return pipe_thread<CUZK_GPU_PIPE_IMAD_IADD>(t, iters);
    case CUZK_GPU_PIPE_FP_MUL: return prod_thread<CUZK_GPU_PIPE_FP_MUL>(t, prod_steps(iters));
    case CUZK_GPU_PIPE_FP_MUL64: return prod_thread<CUZK_GPU_PIPE_FP_MUL64>(t, prod_steps(iters));
    case CUZK_GPU_PIPE_FP_MUL_MIX:
        return prod_thread<CUZK_GPU_PIPE_FP_MUL_MIX>(t, prod_steps(iters));
    default: return 0;
    }
}

extern "C" int cuzk_gpu_pipe_run(int device, int kind, unsigned iters,
                                 struct cuzk_gpu_pipe_result *out, uint64_t *values,
                                 unsigned sample) {
    if (!out || (!values && sample) || kind < 0 || kind >= CUZK_GPU_PIPE_KINDS || iters < 1 ||
        iters > (1u << 20) || sample > kThreads)
        return CUZK_EINVAL;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
        (void)cudaGetLastError();
        return CUZK_ENODEV;
    }
    int sms = 0, clk_khz = 0;
    if (cudaSetDevice(device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return CUZK_EGPU;
    }
    const unsigned blocks =
        static_cast<unsigned>(sms) * (is_prod(kind) ? kProdBlocksPerSm : kBlocksPerSm);
    const unsigned steps = is_prod(kind) ? prod_steps(iters) : iters;
    uint64_t *vals = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    int rc = CUZK_EGPU;
    float ms = 0;
    if (cudaMalloc(&vals, (kThreads + 1) * sizeof(uint64_t)) == cudaSuccess &&
        cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess &&
        launch(kind, blocks, 1, vals, 0) == CUZK_OK && // warm-up
        cudaEventRecord(e0) == cudaSuccess &&
        launch(kind, blocks, steps, vals, sample) == CUZK_OK &&
        cudaEventRecord(e1) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
        cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess &&
        (!sample || cudaMemcpy(values, vals, sample * sizeof(uint64_t), cudaMemcpyDeviceToHost) ==
                        cudaSuccess))
        rc = CUZK_OK;
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    if (vals) (void)cudaFree(vals);
    (void)cudaGetLastError();
    if (rc != CUZK_OK) return rc;
    const double ops = static_cast<double>(blocks) * kThreads * steps * (is_prod(kind) ? 1 : kN) *
                       ops_per_step(kind);
    out->ms = ms;
    out->lane_ops_per_clk_sm = ops / (ms * 1e-3) / (clk_khz * 1e3) / sms;
    out->blocks = blocks;
    out->threads = kThreads;
    return CUZK_OK;
}
