/* The GPU MSM (gpu_msm.h) when cuzk is built without CUDA: no device to run on. */
#include "cuzk/error.h"
#include "gpu/gpu_msm.h"

int cuzk_gpu_g1_bases_upload(int device, const cuzk_g1_affine *pts, size_t n,
                             struct cuzk_gpu_bases **out) {
    (void)device;
    (void)pts;
    (void)n;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

int cuzk_gpu_g2_bases_upload(int device, const cuzk_g2_affine *pts, size_t n,
                             struct cuzk_gpu_bases **out) {
    (void)device;
    (void)pts;
    (void)n;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_bases_free(struct cuzk_gpu_bases *b) { (void)b; }

size_t cuzk_gpu_bases_count(const struct cuzk_gpu_bases *b) {
    (void)b;
    return 0;
}

size_t cuzk_gpu_bases_vram(const struct cuzk_gpu_bases *b) {
    (void)b;
    return 0;
}

size_t cuzk_gpu_bases_vram_for(enum cuzk_gpu_group g, size_t n) {
    (void)g;
    (void)n;
    return 0;
}

size_t cuzk_gpu_msm_ctx_vram(size_t max_n) {
    (void)max_n;
    return 0;
}

int cuzk_gpu_msm_ctx_create(int device, size_t max_n, struct cuzk_gpu_msm_ctx **out) {
    (void)device;
    (void)max_n;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_msm_ctx_free(struct cuzk_gpu_msm_ctx *ctx) { (void)ctx; }

int cuzk_gpu_msm_ctx_device(const struct cuzk_gpu_msm_ctx *ctx) {
    (void)ctx;
    return -1;
}

int cuzk_gpu_g1_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases, size_t offset,
                    const cuzk_scalar *scalars, size_t n, cuzk_g1 *out) {
    (void)ctx;
    (void)bases;
    (void)offset;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_g2_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases, size_t offset,
                    const cuzk_scalar *scalars, size_t n, cuzk_g2 *out) {
    (void)ctx;
    (void)bases;
    (void)offset;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_g1_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                           size_t offset, const void *dev_scalars_fr, size_t n, cuzk_g1 *out) {
    (void)ctx;
    (void)bases;
    (void)offset;
    (void)dev_scalars_fr;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_g2_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                           size_t offset, const void *dev_scalars_fr, size_t n, cuzk_g2 *out) {
    (void)ctx;
    (void)bases;
    (void)offset;
    (void)dev_scalars_fr;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

void cuzk_gpu_msm_tune(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_msm_tuning *t) {
    (void)ctx;
    (void)t;
}

void cuzk_gpu_msm_last_timing(const struct cuzk_gpu_msm_ctx *ctx, struct cuzk_gpu_msm_timing *t) {
    (void)ctx;
    if (t) *t = (struct cuzk_gpu_msm_timing){0};
}

int cuzk_gpu_g1_batch_mul(int device, const cuzk_g1_affine *base, const cuzk_fr *scalars, size_t n,
                          cuzk_g1_affine *out) {
    (void)device;
    (void)base;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_g2_batch_mul(int device, const cuzk_g2_affine *base, const cuzk_fr *scalars, size_t n,
                          cuzk_g2_affine *out) {
    (void)device;
    (void)base;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

const char *cuzk_gpu_msm_last_error(void) { return "built without CUDA"; }

int cuzk_gpu_fp_eval(int device, enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out,
                     size_t n) {
    (void)device;
    (void)op;
    (void)a;
    (void)b;
    (void)out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_g1_add_eval(int device, const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                         cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    (void)device;
    (void)a;
    (void)b;
    (void)sum_out;
    (void)dbl_out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_g2_add_eval(int device, const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                         cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    (void)device;
    (void)a;
    (void)b;
    (void)sum_out;
    (void)dbl_out;
    (void)n;
    return CUZK_ENODEV;
}
