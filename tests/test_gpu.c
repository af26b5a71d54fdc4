/* GPU enumeration through the C boundary. On a machine without a GPU (or a build without
 * CUDA) the test says so and reports itself skipped (exit 77) instead of passing silently. */
#include "cuzk/error.h"
#include "gpu/gpu.h"
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
