/* GPU enumeration through the C boundary, and the CUDA backend's answer where no GPU can
 * prove (a machine without one, or a build without CUDA: the ENODEV boundary of
 * cuda_backend.h). Without a GPU the test says so and reports itself skipped (exit 77) once
 * those checks pass, instead of passing silently. */
#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "groth16/cuda_backend.h"
#include "test_util.h"

int main(void) {
    test_init("test_gpu");
    int n = -1;
    CHECK(cuzk_gpu_count(&n) == CUZK_OK);
    CHECK(n >= 0);
    printf("test_gpu: CUDA backend %s, %d device(s)\n", cuzk_gpu_compiled() ? "built" : "not built",
           n);
    struct cuzk_gpu_info info;
    CHECK(cuzk_gpu_describe(-1, &info) == CUZK_EINVAL);
    CHECK(cuzk_gpu_describe(n, &info) == CUZK_EINVAL);
    size_t vfree = 1, vtotal = 1;
    CHECK(cuzk_gpu_mem_info(-1, &vfree, &vtotal) == CUZK_EINVAL);
    CHECK(cuzk_gpu_mem_info(n, &vfree, &vtotal) == CUZK_EINVAL);
    CHECK(vfree == 1 && vtotal == 1); /* untouched on failure */
    if (n <= 0) {
        /* no device: the CUDA backend refuses to start, and says why where it can */
        struct cuzk_backend be;
        CHECK(cuzk_cuda_backend_init(&be, 0, NULL) == CUZK_ENODEV);
        char err[128] = "";
        cuzk_g1_affine g1, out;
        cuzk_g1_generator(&g1);
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        CHECK(cuzk_cuda_batch_mul(0, 0, &g1, &one, 1, &out, err, sizeof err) == CUZK_ENODEV);
        CHECK(err[0] != 0); /* a sentence says why */
        CHECK(cuzk_cuda_batch_mul(0, 0, &g1, &one, 1, &out, NULL, 0) == CUZK_ENODEV);
        printf("test_gpu: no GPU on this machine: GPU checks skipped\n");
        int rc = test_finish();
        return rc ? rc : 77;
    }
    for (int d = 0; d < n; d++) {
        CHECK(cuzk_gpu_describe(d, &info) == CUZK_OK);
        printf("test_gpu: device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", d, info.name, info.cc_major,
               info.cc_minor, info.multiprocessors, (double)info.total_mem / (1 << 30));
        CHECK(info.multiprocessors > 0 && info.total_mem > 0);
        CHECK(cuzk_gpu_mem_info(d, NULL, &vtotal) == CUZK_EINVAL);
        CHECK(cuzk_gpu_mem_info(d, &vfree, &vtotal) == CUZK_OK);
        CHECK(vtotal == info.total_mem && vfree > 0 && vfree <= vtotal);
        printf("test_gpu: device %d: %.1f GiB free of %.1f GiB\n", d, (double)vfree / (1 << 30),
               (double)vtotal / (1 << 30));
    }
    return test_finish();
}
