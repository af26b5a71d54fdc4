// Error reporting shared by the CUDA modules (ntt.cu, msm.cu, groth16.cu): every failure becomes
// a cuzk error code plus a sentence in the module's per-thread last-error text, which the
// module's cuzk_gpu_*_last_error() returns.
//
// Promise: cuda_fail maps cudaErrorMemoryAllocation to CUZK_EGPUOOM, a missing device or driver
// to CUZK_ENODEV and everything else to CUZK_EGPU, names the call, the CUDA error and the
// module's line, and clears a non-sticky CUDA error so that the next call does not report it
// again. Include it after defining CUZK_CUDA_MODULE (the file's name, for the messages): the
// functions are internal to the including file. The last-error text is too, so each module
// keeps its own; a module of several files (msm*.cu) shares one by also defining
// CUZK_CUDA_ERROR_TEXT as the name of its text, defined (thread_local char NAME[320]) by one of
// them. Host code only.
#ifndef CUZK_GPU_CUDA_CUDA_ERRORS_CUH
#define CUZK_GPU_CUDA_CUDA_ERRORS_CUH

#include <cuda_runtime.h>

#include <cstdio>

#include "cuzk/error.h"
#include "gpu/gpu.h"

#ifndef CUZK_CUDA_MODULE
#error "define CUZK_CUDA_MODULE (the module's file name) before including cuda_errors.cuh"
#endif

#ifdef CUZK_CUDA_ERROR_TEXT
extern thread_local char CUZK_CUDA_ERROR_TEXT[320]; // the module's, shared by its files
#define g_last_error CUZK_CUDA_ERROR_TEXT
#endif

namespace {

#ifndef CUZK_CUDA_ERROR_TEXT
thread_local char g_last_error[320];
#endif

// Records msg as the last error and returns code.
inline int set_error(int code, const char *msg) {
    std::snprintf(g_last_error, sizeof g_last_error, "%s", msg);
    return code;
}

// Records a failed CUDA call and maps it to a cuzk error code (see the promise above).
inline int cuda_fail(cudaError_t e, const char *what, int line) {
    std::snprintf(g_last_error, sizeof g_last_error, "%s failed: %s (%s) [%s:%d]", what,
                  cudaGetErrorName(e), cudaGetErrorString(e), CUZK_CUDA_MODULE, line);
    (void)cudaGetLastError(); // clear a non-sticky error so it is not reported twice
    switch (e) {
    case cudaErrorMemoryAllocation: return CUZK_EGPUOOM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return CUZK_ENODEV;
    default: return CUZK_EGPU;
    }
}

// Resolves device availability: CUZK_OK, CUZK_ENODEV (no GPU at all) or CUZK_EINVAL.
inline int check_device(int device) {
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) return set_error(CUZK_ENODEV, "no CUDA device");
    if (device < 0 || device >= count) return set_error(CUZK_EINVAL, "device index out of range");
    return CUZK_OK;
}

} // namespace

// Returns from the calling function with the mapped code when a CUDA call fails.
#define CU_TRY(call)                                                                               \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return cuda_fail(e_, #call, __LINE__);                              \
    } while (0)

// After a kernel launch: reports a bad launch configuration at once.
#define CU_LAUNCHED(name)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = cudaPeekAtLastError();                                                    \
        if (e_ != cudaSuccess) return cuda_fail(e_, "launch of " #name, __LINE__);                 \
    } while (0)

// Returns from the calling function when a cuzk call fails.
#define TRY(call)                                                                                  \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ != CUZK_OK) return err_;                                                          \
    } while (0)

#endif
