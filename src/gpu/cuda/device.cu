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
