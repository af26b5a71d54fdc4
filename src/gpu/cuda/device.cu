// Device enumeration for the CUDA backend. CUDA types stay in this file; callers see gpu.h.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "cuzk/error.h"
#include "gpu/gpu.h"

extern "C" int cuzk_gpu_compiled(void) { return 1; }

extern "C" int cuzk_gpu_count(int *n) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        // no device or no driver: clear the sticky error and report an empty machine
        (void)cudaGetLastError();
        count = 0;
    }
    *n = count;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_describe(int dev, struct cuzk_gpu_info *info) {
    int n = 0;
    cuzk_gpu_count(&n);
    if (dev < 0 || dev >= n) return CUZK_EINVAL;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return CUZK_EGPU;
    std::memset(info, 0, sizeof *info);
    std::snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_mem = prop.totalGlobalMem;
    int clock = 0;
    if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev) == cudaSuccess)
        info->clock_khz = clock;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_mem_info(int dev, size_t *free_bytes, size_t *total_bytes) {
    int n = 0;
    cuzk_gpu_count(&n);
    if (dev < 0 || dev >= n || !free_bytes || !total_bytes) return CUZK_EINVAL;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    size_t f = 0, t = 0;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
    if (prev >= 0 && prev != dev) (void)cudaSetDevice(prev);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return CUZK_EGPU;
    }
    *free_bytes = f;
    *total_bytes = t;
    return CUZK_OK;
}
