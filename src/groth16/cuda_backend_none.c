/* The CUDA backend (cuda_backend.h) in a build without CUDA: the one place where the CPU-only
 * build meets the GPU code. Nothing can be proved here, so every entry answers CUZK_ENODEV
 * (or holds nothing); the engine, the daemon and the tools then use the CPU backend. */
#include <string.h>

#include "cuzk/error.h"
#include "groth16/cuda_backend.h"

int cuzk_cuda_backend_init(struct cuzk_backend *be, int device, struct cuzk_pool *pool) {
    (void)device;
    (void)pool;
    if (be) memset(be, 0, sizeof *be);
    return CUZK_ENODEV;
}

void cuzk_cuda_backend_free(struct cuzk_backend *be) { (void)be; }

int cuzk_cuda_backend_configure(struct cuzk_backend *be, const struct cuzk_cuda_config *cfg) {
    (void)be;
    (void)cfg;
    return CUZK_ENODEV;
}

int cuzk_cuda_backend_config(const struct cuzk_backend *be, struct cuzk_cuda_config *out) {
    (void)be;
    cuzk_cuda_config_default(out);
    return CUZK_ENODEV;
}

int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk, char *err,
                              size_t errlen) {
    (void)be;
    (void)pk;
    return cuzk_errf(err, errlen, CUZK_ENODEV, "this build has no CUDA backend");
}

int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    (void)be;
    (void)pk;
    return CUZK_ENODEV;
}

size_t cuzk_cuda_backend_resident_bytes(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    (void)be;
    (void)pk;
    return 0;
}

void cuzk_cuda_backend_stats(const struct cuzk_backend *be, struct cuzk_cuda_stats *out) {
    (void)be;
    memset(out, 0, sizeof *out);
    out->device = -1;
}

int cuzk_cuda_batch_mul(int device, int g2, const void *base, const cuzk_fr *scalars, size_t n,
                        void *out, char *err, size_t errlen) {
    (void)device;
    (void)g2;
    (void)base;
    (void)scalars;
    (void)n;
    (void)out;
    return cuzk_errf(err, errlen, CUZK_ENODEV, "this build has no CUDA backend");
}

int cuzk_cuda_backend_last_timing(const struct cuzk_backend *be, struct cuzk_cuda_timing *out) {
    (void)be;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_cuda_backend_plan(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                           struct cuzk_cuda_plan_sizes *sizes, struct cuzk_cuda_plan *plan,
                           char *err, size_t errlen) {
    (void)be;
    (void)pk;
    (void)sizes;
    (void)plan;
    return cuzk_errf(err, errlen, CUZK_ENODEV, "this build has no CUDA backend");
}
