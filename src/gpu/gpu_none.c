/* The GPU boundary when cuzk is built without CUDA: no devices. */
#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"

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

/* The GPU NTT (gpu_ntt.h) without CUDA: no device to run on. */
size_t cuzk_gpu_ntt_ctx_vram(int max_log_n) {
    (void)max_log_n;
    return 0;
}

int cuzk_gpu_ntt_ctx_create(int device, int max_log_n, struct cuzk_gpu_ntt_ctx **out) {
    (void)device;
    (void)max_log_n;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_ntt_ctx_free(struct cuzk_gpu_ntt_ctx *ctx) { (void)ctx; }

int cuzk_gpu_ntt_ctx_max_log(const struct cuzk_gpu_ntt_ctx *ctx) {
    (void)ctx;
    return 0;
}

int cuzk_gpu_ntt(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host_data, int log_n,
                 enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift) {
    (void)ctx;
    (void)host_data;
    (void)log_n;
    (void)kind;
    (void)shift;
    return CUZK_ENODEV;
}

int cuzk_gpu_ntt_device(struct cuzk_gpu_ntt_ctx *ctx, void *dev_data, int log_n,
                        enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift) {
    (void)ctx;
    (void)dev_data;
    (void)log_n;
    (void)kind;
    (void)shift;
    return CUZK_ENODEV;
}

int cuzk_gpu_ntt_sync(struct cuzk_gpu_ntt_ctx *ctx) {
    (void)ctx;
    return CUZK_ENODEV;
}

void *cuzk_gpu_ntt_ctx_buffer(struct cuzk_gpu_ntt_ctx *ctx) {
    (void)ctx;
    return NULL;
}

int cuzk_gpu_ntt_load(struct cuzk_gpu_ntt_ctx *ctx, const cuzk_fr *host, size_t n) {
    (void)ctx;
    (void)host;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_ntt_store(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host, size_t n) {
    (void)ctx;
    (void)host;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_ntt_run(struct cuzk_gpu_ntt_ctx *ctx, int log_n, enum cuzk_gpu_ntt_kind kind,
                     const cuzk_fr *shift, float *kernel_ms) {
    (void)ctx;
    (void)log_n;
    (void)kind;
    (void)shift;
    (void)kernel_ms;
    return CUZK_ENODEV;
}

int cuzk_gpu_ntt_tune(struct cuzk_gpu_ntt_ctx *ctx, int log_block, int log_cols, int threads) {
    (void)ctx;
    (void)log_block;
    (void)log_cols;
    (void)threads;
    return CUZK_ENODEV;
}

const char *cuzk_gpu_ntt_last_error(void) { return "built without CUDA"; }

int cuzk_gpu_fr_eval(int device, enum cuzk_gpu_fr_op op, const cuzk_fr *a, const cuzk_fr *b,
                     cuzk_fr *out, size_t n) {
    (void)device;
    (void)op;
    (void)a;
    (void)b;
    (void)out;
    (void)n;
    return CUZK_ENODEV;
}
