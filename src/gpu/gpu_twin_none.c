/* The host twins (gpu_twin.h) when cuzk is built without CUDA: the twin code lives in the CUDA
 * sources, so there is nothing to run. */
#include "cuzk/error.h"
#include "gpu/gpu_twin.h"

int cuzk_gpu_twin_fp(enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out, size_t n) {
    (void)op;
    (void)a;
    (void)b;
    (void)out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_fp_inv(int degree, const void *a, void *out, size_t n) {
    (void)degree;
    (void)a;
    (void)out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g1_add(const cuzk_g1_affine *a, const cuzk_g1_affine *b, cuzk_g1 *sum_out,
                         cuzk_g1 *dbl_out, size_t n) {
    (void)a;
    (void)b;
    (void)sum_out;
    (void)dbl_out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g2_add(const cuzk_g2_affine *a, const cuzk_g2_affine *b, cuzk_g2 *sum_out,
                         cuzk_g2 *dbl_out, size_t n) {
    (void)a;
    (void)b;
    (void)sum_out;
    (void)dbl_out;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_digits(const cuzk_scalar *s, unsigned window, int32_t *digits) {
    (void)s;
    (void)window;
    (void)digits;
    return CUZK_ENODEV;
}

unsigned cuzk_gpu_twin_auto_window(size_t n) {
    (void)n;
    return 0;
}

int cuzk_gpu_twin_g1_msm(const struct cuzk_gpu_twin_shape *shape, const cuzk_g1_affine *bases,
                         const cuzk_scalar *scalars, size_t n,
                         const struct cuzk_gpu_msm_tuning *tune, cuzk_g1 *out,
                         struct cuzk_gpu_twin_report *report) {
    (void)shape;
    (void)bases;
    (void)scalars;
    (void)n;
    (void)tune;
    (void)out;
    (void)report;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g2_msm(const struct cuzk_gpu_twin_shape *shape, const cuzk_g2_affine *bases,
                         const cuzk_scalar *scalars, size_t n,
                         const struct cuzk_gpu_msm_tuning *tune, cuzk_g2 *out,
                         struct cuzk_gpu_twin_report *report) {
    (void)shape;
    (void)bases;
    (void)scalars;
    (void)n;
    (void)tune;
    (void)out;
    (void)report;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g1_batch_mul(const cuzk_g1_affine *base, const cuzk_fr *scalars, size_t n,
                               cuzk_g1_affine *out) {
    (void)base;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g2_batch_mul(const cuzk_g2_affine *base, const cuzk_fr *scalars, size_t n,
                               cuzk_g2_affine *out) {
    (void)base;
    (void)scalars;
    (void)n;
    (void)out;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_fp_sqrt(int degree, const void *a, void *out, int *is_square, size_t n) {
    (void)degree;
    (void)a;
    (void)out;
    (void)is_square;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g1_decompress(const uint8_t *in, size_t n, cuzk_g1_affine *out, size_t *bad) {
    (void)in;
    (void)n;
    (void)out;
    if (bad) *bad = SIZE_MAX;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_g2_decompress(const uint8_t *in, size_t n, cuzk_g2_affine *out, size_t *bad) {
    (void)in;
    (void)n;
    (void)out;
    if (bad) *bad = SIZE_MAX;
    return CUZK_ENODEV;
}
