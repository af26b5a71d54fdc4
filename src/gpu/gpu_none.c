/* GPU enumeration (gpu.h) in a build without CUDA: zero devices. The GPU modules themselves
 * (gpu_msm.h, gpu_ntt.h, ...) are not part of such a build; the CUDA backend's
 * cuda_backend_none.c answers CUZK_ENODEV in their place. */
#include "cuzk/error.h"
#include "gpu/gpu.h"

int cuzk_gpu_compiled(void) { return 0; }

int cuzk_gpu_count(int *n) {
    *n = 0;
    return CUZK_OK;
}

int cuzk_gpu_describe(int dev, struct cuzk_gpu_info *info) {
    (void)dev;
    (void)info;
    return CUZK_EINVAL;
}

int cuzk_gpu_mem_info(int dev, size_t *free_bytes, size_t *total_bytes) {
    (void)dev;
    (void)free_bytes;
    (void)total_bytes;
    return CUZK_EINVAL;
}
