/* The GPU boundary: plain C on this side, CUDA behind it (src/gpu/cuda).
 *
 * Contract: no CUDA type crosses this header. Every function returns a cuzk error code; a
 * machine without a GPU, or without a driver, is not an error for enumeration: it has zero
 * devices. When cuzk is built without CUDA the same functions exist and report zero devices.
 * Thread-safety: enumeration functions are thread-safe. */
#ifndef CUZK_GPU_GPU_H
#define CUZK_GPU_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cuzk_gpu_info {
    char name[256];
    int cc_major, cc_minor; /* compute capability */
    int multiprocessors;
    size_t total_mem; /* bytes of device memory */
    int clock_khz;
};

/* 1 if this build contains the CUDA backend. */
int cuzk_gpu_compiled(void);
/* *n = number of usable CUDA devices (0 without GPU or driver). Returns CUZK_OK. */
int cuzk_gpu_count(int *n);
/* Describes device dev. CUZK_EINVAL for a bad index, CUZK_EGPU if the driver fails. */
int cuzk_gpu_describe(int dev, struct cuzk_gpu_info *info);
/* Device memory of dev now: *free_bytes free (for any process), *total_bytes in all. Makes the
 * device's context if the process has none yet; leaves the calling thread's current device as
 * it was. CUZK_EINVAL for a bad index or NULL outputs, CUZK_EGPU if the driver fails. */
int cuzk_gpu_mem_info(int dev, size_t *free_bytes, size_t *total_bytes);

#ifdef __cplusplus
}
#endif

#endif
