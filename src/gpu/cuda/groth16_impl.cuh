// What the two files of the device-side Groth16 prover share (contract: src/gpu/gpu_groth16.h):
//   groth16.cu  pinned host memory, the work area (its vectors, streams and upload events), the
//               pointwise kernels around the NTTs and their checks on host arrays; its DESIGN
//               comment explains the work area's streams and locking;
//   spmv.cu     the constraint system resident on the device, the SpMV, index lists and the
//               gather, and their host twins; its DESIGN comment explains the SpMV.
// This header holds the includes in the order the C headers need, the layouts host and device
// agree on, the work area's structure with the two helpers both files use on it, the field
// access that runs on both sides and the executors of a per-element functor, and the module's
// one last-error text (defined in groth16.cu). A file defines CUZK_CUDA_MODULE as its own name
// before including it (cuda_errors.cuh: the file and line in error messages). Host and device
// code; only these two files include it.
#ifndef CUZK_GPU_CUDA_GROTH16_IMPL_CUH
#define CUZK_GPU_CUDA_GROTH16_IMPL_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it
#endif

// The field headers are C without C++ linkage guards; their GCC loop pragmas mean nothing to
// the CUDA front end (diagnostic 1675).
#pragma nv_diag_suppress 1675
extern "C" {
#include "ff/fr.h"
#include "r1cs/cs.h"
}
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"

#define CUZK_CUDA_ERROR_TEXT cuzk_gpu_g16_error_text // one last error for groth16.cu and spmv.cu
#include "gpu/cuda/cuda_errors.cuh"

using cuzk_cuda::fr_mem;
using cuzk_cuda::fr_t;

static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");

static_assert(sizeof(cuzk_fr) == sizeof(cuzk_cuda::fr_t), "host and device Fr registers");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the 32-bit device limbs equal the 64-bit host limbs on little-endian hosts");

#define G16_THREADS 256           // threads per block of the pointwise kernels
#define G16_MAX_BLOCKS (1u << 20) // grid-stride beyond this many blocks
#define G16_NVEC 6                // A, B, C, W, W1, S

#ifndef CUZK_HD
#define CUZK_HD __host__ __device__ __forceinline__
#endif

#define BIT(v) (1u << (v))

// ---- the work area -----------------------------------------------------------------------------

struct cuzk_gpu_g16 {
    int device;
    size_t cap[G16_NVEC];
    fr_mem *vec[G16_NVEC]; // NULL: a vector the area lacks
    int owned[G16_NVEC];
    int s_in_c; // S is C's room (CUZK_GPU_G16_S_IN_C)
    int c_in_b; // C is B's room (CUZK_GPU_G16_C_IN_B)
    size_t vram;
    cudaStream_t copy, comp;
    cudaEvent_t ev_begin, ev_start[G16_NVEC], ev_ready[G16_NVEC];
    std::mutex mu;          // serialises enqueueing on the copy stream; guards the fields below
    int uploaded[G16_NVEC]; // an upload of the vector was queued in this round
    int ever[G16_NVEC];     // an upload of the vector was ever queued
    int began;
};

namespace {

inline unsigned grid_for(size_t n) {
    size_t b = (n + G16_THREADS - 1) / G16_THREADS;
    return static_cast<unsigned>(b < G16_MAX_BLOCKS ? (b ? b : 1) : G16_MAX_BLOCKS);
}

inline bool has_vec(const cuzk_gpu_g16 *g, int v) {
    return g && v >= 0 && v < G16_NVEC && g->vec[v];
}

// Makes the compute stream wait for the pending uploads of the vectors in `uses` (a bit mask).
// Waiting for an event never recorded, or long complete, costs nothing.
inline int comp_after_uploads(cuzk_gpu_g16 *g, unsigned uses) {
    for (int v = 0; v < G16_NVEC; v++)
        if ((uses >> v & 1) && g->vec[v]) CU_TRY(cudaStreamWaitEvent(g->comp, g->ev_ready[v], 0));
    return CUZK_OK;
}

// ---- field access on both sides ------------------------------------------------------------

// The SpMV's and the gather's functors run on the device and, as host twins, on the host. These
// wrappers give them one set of Fr operations: ff_fr.cuh's on the device, src/ff's on the host
// (the same values: both are fully reduced Montgomery form, with the same bytes).

CUZK_HD fr_t hd_zero() {
    fr_t r;
    for (int i = 0; i < 8; i++) r.l[i] = 0;
    return r;
}

// Read-only load: for data no thread writes during the kernel.
CUZK_HD fr_t hd_load_ro(const fr_mem *p) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_load_ro(p);
#else
    fr_t r;
    std::memcpy(&r, p, sizeof r);
    return r;
#endif
}

// Coherent load (shared memory, data written earlier in the kernel).
CUZK_HD fr_t hd_load(const fr_mem *p) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_load(p);
#else
    fr_t r;
    std::memcpy(&r, p, sizeof r);
    return r;
#endif
}

CUZK_HD void hd_store(fr_mem *p, const fr_t &a) {
#ifdef __CUDA_ARCH__
    cuzk_cuda::fr_store(p, a);
#else
    std::memcpy(p, &a, sizeof a);
#endif
}

#ifndef __CUDA_ARCH__
inline cuzk_fr to_host(const fr_t &a) {
    cuzk_fr r;
    std::memcpy(&r, &a, sizeof r);
    return r;
}
inline fr_t from_host(const cuzk_fr &a) {
    fr_t r;
    std::memcpy(&r, &a, sizeof r);
    return r;
}
#endif

CUZK_HD fr_t hd_add(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_add(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_add(&x, &x, &y);
    return from_host(x);
#endif
}

CUZK_HD fr_t hd_sub(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_sub(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_sub(&x, &x, &y);
    return from_host(x);
#endif
}

CUZK_HD fr_t hd_mul(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_mul(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_mul(&x, &x, &y);
    return from_host(x);
#endif
}

template <class T> CUZK_HD T hd_ldg(const T *p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

CUZK_HD uint64_t ld_u64(const uint64_t *p) {
    return hd_ldg(reinterpret_cast<const unsigned long long *>(p));
}

// ---- executors of a per-element functor --------------------------------------------------------

template <class F> __global__ void each_kernel(F f, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        f(i);
}

// Launches f(i) for i < n on stream s.
template <class F> int dev_each(cudaStream_t s, const F &f, size_t n) {
    if (n == 0) return CUZK_OK;
    each_kernel<<<grid_for(n), G16_THREADS, 0, s>>>(f, n);
    CU_LAUNCHED(each_kernel);
    return CUZK_OK;
}

// The same on the host.
template <class F> void host_each(const F &f, size_t n) {
    for (size_t i = 0; i < n; i++) f(i);
}

} // namespace

#endif
