// The device side of the Groth16 prover (contract: src/gpu/gpu_groth16.h).
//
// DESIGN: the work area keeps two streams. The copy stream carries the host-to-device uploads
// (and the zeroing of a vector's tail after its data), in the order they are queued, and
// records one event per vector when its upload is complete. The compute stream runs the
// pointwise kernels; before a kernel it waits (on the device, cudaStreamWaitEvent) for the
// events of the vectors the kernel reads, so a kernel can be queued while uploads of other
// vectors are still in flight, and the host waits only for the kernel itself. The NTT and the
// MSM modules run on streams of their own that this file cannot see; every kernel call
// therefore returns only when its result is in device memory, which orders it before whatever
// the caller queues next on those streams.
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it
#endif

// The field headers are C without C++ linkage guards; their GCC loop pragmas mean nothing to
// the CUDA front end (diagnostic 1675).
#pragma nv_diag_suppress 1675
extern "C" {
#include "ff/fr.h"
}
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"

#define CUZK_CUDA_MODULE "groth16.cu"
#include "gpu/cuda/cuda_errors.cuh"

using cuzk_cuda::fr_mem;
using cuzk_cuda::fr_t;

static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");

#define G16_THREADS 256           // threads per block of the pointwise kernels
#define G16_MAX_BLOCKS (1u << 20) // grid-stride beyond this many blocks
#define G16_NVEC 4

// ---- errors ---------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, CU_LAUNCHED: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_g16_last_error(void) { return g_last_error; }

static unsigned grid_for(size_t n) {
    size_t b = (n + G16_THREADS - 1) / G16_THREADS;
    return static_cast<unsigned>(b < G16_MAX_BLOCKS ? (b ? b : 1) : G16_MAX_BLOCKS);
}

// ---- pinned host memory ---------------------------------------------------------------------

static std::atomic<size_t> g_pinned_bytes{0};

extern "C" int cuzk_gpu_pinned_alloc(size_t bytes, void **out) {
    if (!out || bytes == 0) return set_error(CUZK_EINVAL, "bad pinned allocation arguments");
    *out = nullptr;
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) return set_error(CUZK_ENODEV, "no CUDA device");
    void *p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    // the driver reports a refusal to lock host pages as cudaErrorMemoryAllocation: EGPUOOM
    if (e != cudaSuccess) return cuda_fail(e, "cudaHostAlloc", __LINE__);
    g_pinned_bytes += bytes;
    *out = p;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_pinned_free(void *p, size_t bytes) {
    if (!p) return;
    (void)cudaFreeHost(p);
    (void)cudaGetLastError();
    g_pinned_bytes -= bytes;
}

extern "C" size_t cuzk_gpu_pinned_bytes(void) { return g_pinned_bytes.load(); }

// ---- kernels --------------------------------------------------------------------------------

// c_i = a_i b_i
__global__ void g16_mul_kernel(fr_mem *c, const fr_mem *a, const fr_mem *b, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        cuzk_cuda::fr_store(
            c + i, cuzk_cuda::fr_mul(cuzk_cuda::fr_load(a + i), cuzk_cuda::fr_load(b + i)));
}

// h_i = a_i b_i - c_i; h may be a (each element is read before it is written, by one thread).
__global__ void g16_h_kernel(fr_mem *h, const fr_mem *a, const fr_mem *b, const fr_mem *c,
                             size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        fr_t ab = cuzk_cuda::fr_mul(cuzk_cuda::fr_load(a + i), cuzk_cuda::fr_load(b + i));
        cuzk_cuda::fr_store(h + i, cuzk_cuda::fr_sub(ab, cuzk_cuda::fr_load(c + i)));
    }
}

// w_i = w_i R^2 / R = w_i R: the Montgomery form of the canonical integer w_i < r.
__global__ void g16_to_mont_kernel(fr_mem *w, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        cuzk_cuda::fr_store(w + i,
                            cuzk_cuda::fr_mul(cuzk_cuda::fr_load(w + i), cuzk_cuda::fr_r2()));
}

// ---- the work area --------------------------------------------------------------------------

struct cuzk_gpu_g16 {
    int device;
    size_t cap[G16_NVEC];
    fr_mem *vec[G16_NVEC];
    int owned[G16_NVEC];
    size_t vram;
    cudaStream_t copy, comp;
    cudaEvent_t ev_begin, ev_ready[G16_NVEC];
    int uploaded[G16_NVEC]; // an upload of the vector was queued in this round
    int began;
};

extern "C" size_t cuzk_gpu_g16_vram_for(size_t max_n, size_t max_w, int borrow_c) {
    return ((borrow_c ? 2 : 3) * max_n + max_w) * sizeof(fr_mem);
}

extern "C" void cuzk_gpu_g16_free(struct cuzk_gpu_g16 *g) {
    if (!g) return;
    (void)cudaSetDevice(g->device);
    if (g->copy) (void)cudaStreamSynchronize(g->copy);
    if (g->comp) (void)cudaStreamSynchronize(g->comp);
    for (int v = 0; v < G16_NVEC; v++) {
        if (g->owned[v]) (void)cudaFree(g->vec[v]);
        if (g->ev_ready[v]) (void)cudaEventDestroy(g->ev_ready[v]);
    }
    if (g->ev_begin) (void)cudaEventDestroy(g->ev_begin);
    if (g->copy) (void)cudaStreamDestroy(g->copy);
    if (g->comp) (void)cudaStreamDestroy(g->comp);
    (void)cudaGetLastError();
    std::free(g);
}

static int g16_init(cuzk_gpu_g16 *g, void *dev_c) {
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking));
    CU_TRY(cudaStreamCreateWithFlags(&g->comp, cudaStreamNonBlocking));
    CU_TRY(cudaEventCreate(&g->ev_begin));
    for (int v = 0; v < G16_NVEC; v++) {
        CU_TRY(cudaEventCreate(&g->ev_ready[v]));
        if (v == CUZK_GPU_G16_C && dev_c) {
            g->vec[v] = static_cast<fr_mem *>(dev_c);
            continue;
        }
        CU_TRY(cudaMalloc(&g->vec[v], g->cap[v] * sizeof(fr_mem)));
        g->owned[v] = 1;
        g->vram += g->cap[v] * sizeof(fr_mem);
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_create(int device, size_t max_n, size_t max_w, void *dev_c,
                                   struct cuzk_gpu_g16 **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (max_n == 0 || max_w == 0 || (reinterpret_cast<uintptr_t>(dev_c) & 15))
        return set_error(CUZK_EINVAL, "bad work area size or unaligned C vector");
    auto *g = static_cast<cuzk_gpu_g16 *>(std::calloc(1, sizeof(cuzk_gpu_g16)));
    if (!g) return CUZK_ENOMEM;
    g->device = device;
    g->cap[CUZK_GPU_G16_A] = g->cap[CUZK_GPU_G16_B] = g->cap[CUZK_GPU_G16_C] = max_n;
    g->cap[CUZK_GPU_G16_W] = max_w;
    err = g16_init(g, dev_c);
    if (err != CUZK_OK) {
        cuzk_gpu_g16_free(g);
        return err;
    }
    *out = g;
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_g16_vram(const struct cuzk_gpu_g16 *g) { return g ? g->vram : 0; }

extern "C" void *cuzk_gpu_g16_vec(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    if (!g || v < CUZK_GPU_G16_A || v > CUZK_GPU_G16_W) return nullptr;
    return g->vec[v];
}

extern "C" int cuzk_gpu_g16_begin(struct cuzk_gpu_g16 *g) {
    if (!g) return set_error(CUZK_EINVAL, "work area is NULL");
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaEventRecord(g->ev_begin, g->copy));
    for (int v = 0; v < G16_NVEC; v++) g->uploaded[v] = 0;
    g->began = 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_upload(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v,
                                   const void *host, size_t count, size_t len) {
    if (!g || v < CUZK_GPU_G16_A || v > CUZK_GPU_G16_W || count > len || len > g->cap[v] ||
        (!host && count))
        return set_error(CUZK_EINVAL, "bad upload arguments");
    CU_TRY(cudaSetDevice(g->device));
    if (count)
        CU_TRY(cudaMemcpyAsync(g->vec[v], host, count * sizeof(fr_mem), cudaMemcpyHostToDevice,
                               g->copy));
    if (len > count)
        CU_TRY(cudaMemsetAsync(g->vec[v] + count, 0, (len - count) * sizeof(fr_mem), g->copy));
    CU_TRY(cudaEventRecord(g->ev_ready[v], g->copy));
    g->uploaded[v] = 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_wait(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    if (!g || v < CUZK_GPU_G16_A || v > CUZK_GPU_G16_W)
        return set_error(CUZK_EINVAL, "bad wait arguments");
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaEventSynchronize(g->ev_ready[v]));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_upload_ms(struct cuzk_gpu_g16 *g, float *ms) {
    if (!g || !ms) return set_error(CUZK_EINVAL, "bad arguments");
    *ms = 0;
    if (!g->began) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaStreamSynchronize(g->copy));
    for (int v = 0; v < G16_NVEC; v++) {
        if (!g->uploaded[v]) continue;
        float t = 0;
        CU_TRY(cudaEventElapsedTime(&t, g->ev_begin, g->ev_ready[v]));
        if (t > *ms) *ms = t;
    }
    return CUZK_OK;
}

// Makes the compute stream wait for the uploads of the vectors in `reads` (a bit mask).
static int comp_after_uploads(cuzk_gpu_g16 *g, unsigned reads) {
    for (int v = 0; v < G16_NVEC; v++)
        if ((reads >> v & 1) && g->uploaded[v])
            CU_TRY(cudaStreamWaitEvent(g->comp, g->ev_ready[v], 0));
    return CUZK_OK;
}

static int check_kernel_args(const cuzk_gpu_g16 *g, size_t n, unsigned uses) {
    if (!g) return set_error(CUZK_EINVAL, "work area is NULL");
    for (int v = 0; v < G16_NVEC; v++)
        if ((uses >> v & 1) && n > g->cap[v]) return set_error(CUZK_EINVAL, "n above capacity");
    return CUZK_OK;
}

#define BIT(v) (1u << (v))

extern "C" int cuzk_gpu_g16_mul(struct cuzk_gpu_g16 *g, size_t n) {
    const unsigned reads = BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_B);
    int err = check_kernel_args(g, n, reads | BIT(CUZK_GPU_G16_C));
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_mul_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(
        g->vec[CUZK_GPU_G16_C], g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_B], n);
    CU_LAUNCHED(g16_mul_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_h(struct cuzk_gpu_g16 *g, size_t n) {
    const unsigned reads = BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_B) | BIT(CUZK_GPU_G16_C);
    int err = check_kernel_args(g, n, reads);
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_h_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(
        g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_B],
        g->vec[CUZK_GPU_G16_C], n);
    CU_LAUNCHED(g16_h_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_to_mont(struct cuzk_gpu_g16 *g, size_t n) {
    const unsigned reads = BIT(CUZK_GPU_G16_W);
    int err = check_kernel_args(g, n, reads);
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_to_mont_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(g->vec[CUZK_GPU_G16_W], n);
    CU_LAUNCHED(g16_to_mont_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

// ---- the check ------------------------------------------------------------------------------

extern "C" int cuzk_gpu_g16_eval(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a,
                                 const cuzk_fr *b, const cuzk_fr *c, cuzk_fr *out, size_t n) {
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (op < CUZK_GPU_G16_OP_MUL || op > CUZK_GPU_G16_OP_TO_MONT || !a || !out ||
        (op != CUZK_GPU_G16_OP_TO_MONT && !b) || (op == CUZK_GPU_G16_OP_H && !c))
        return set_error(CUZK_EINVAL, "bad eval arguments");
    if (n == 0) return CUZK_OK;
    cuzk_gpu_g16 *g = nullptr;
    if ((err = cuzk_gpu_g16_create(device, n, n, nullptr, &g)) != CUZK_OK) return err;
    if ((err = cuzk_gpu_g16_begin(g)) != CUZK_OK) goto out;
    switch (op) {
    case CUZK_GPU_G16_OP_MUL:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, b, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_mul(g, n)) != CUZK_OK)
            goto out;
        break;
    case CUZK_GPU_G16_OP_H:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, b, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_C, c, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_h(g, n)) != CUZK_OK)
            goto out;
        break;
    default:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_to_mont(g, n)) != CUZK_OK)
            goto out;
        break;
    }
    {
        const int res = op == CUZK_GPU_G16_OP_MUL ? CUZK_GPU_G16_C
                        : op == CUZK_GPU_G16_OP_H ? CUZK_GPU_G16_A
                                                  : CUZK_GPU_G16_W;
        cudaError_t e = cudaMemcpy(out, g->vec[res], n * sizeof(fr_mem), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) err = cuda_fail(e, "cudaMemcpy", __LINE__);
    }
out:
    cuzk_gpu_g16_free(g);
    return err;
}
