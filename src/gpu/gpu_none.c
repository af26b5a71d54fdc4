/* The GPU boundary when cuzk is built without CUDA: no devices. */
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
