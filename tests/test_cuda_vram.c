/* The device-memory ledger (src/groth16/vram.h) as a fake device with its own limit: what fits,
 * with parts being replaced left out, at the edges; charges and uncharges; a refusal's sentence;
 * a lowered limit. Pure: runs on every machine. */
#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "groth16/vram.h"
#include "test_util.h"

#define GiB ((uint64_t)1 << 30)

static void test_fits(void) {
    struct cuzk_vram v;
    cuzk_vram_init(&v, 24 * GiB);
    CHECK(cuzk_vram_used(&v) == 0 && cuzk_vram_limit(&v) == 24 * GiB);
    CHECK(cuzk_vram_fits(&v, 24 * GiB, 0) && !cuzk_vram_fits(&v, 24 * GiB + 1, 0));
    /* a lean porep-c18 work space, its presum space, the wire lists */
    cuzk_vram_charge(&v, CUZK_VRAM_WORK, 22 * GiB);
    cuzk_vram_charge(&v, CUZK_VRAM_PRESUM, GiB);
    cuzk_vram_charge(&v, CUZK_VRAM_KEYS, GiB / 2);
    CHECK(cuzk_vram_used(&v) == 23 * GiB + GiB / 2);
    CHECK(cuzk_vram_fits(&v, GiB / 2, 0) && !cuzk_vram_fits(&v, GiB / 2 + 1, 0));
    /* the presum space yields: a key of 1.5 GiB fits once it is left out */
    CHECK(!cuzk_vram_fits(&v, GiB + GiB / 2, 0));
    CHECK(cuzk_vram_fits(&v, GiB + GiB / 2, CUZK_VRAM_BIT(CUZK_VRAM_PRESUM)));
    /* new work objects replace the old ones and their presum space: only the keys count */
    CHECK(cuzk_vram_fits(&v, 24 * GiB - GiB / 2,
                         CUZK_VRAM_BIT(CUZK_VRAM_WORK) | CUZK_VRAM_BIT(CUZK_VRAM_PRESUM)));
    CHECK(!cuzk_vram_fits(&v, 24 * GiB - GiB / 2 + 1,
                          CUZK_VRAM_BIT(CUZK_VRAM_WORK) | CUZK_VRAM_BIT(CUZK_VRAM_PRESUM)));
    /* more than any limit never wraps around */
    CHECK(!cuzk_vram_fits(&v, UINT64_MAX, CUZK_VRAM_BIT(CUZK_VRAM_WORK)));
    /* uncharge, set, and an uncharge of more than a part holds (a bug: reported, part zeroed) */
    CHECK(cuzk_vram_uncharge(&v, CUZK_VRAM_KEYS, GiB / 2) == CUZK_OK);
    CHECK(cuzk_vram_part(&v, CUZK_VRAM_KEYS) == 0);
    cuzk_vram_set(&v, CUZK_VRAM_PRESUM, 2 * GiB);
    CHECK(cuzk_vram_part(&v, CUZK_VRAM_PRESUM) == 2 * GiB && cuzk_vram_used(&v) == 24 * GiB);
    CHECK(cuzk_vram_fits(&v, 0, 0) && !cuzk_vram_fits(&v, 1, 0));
    CHECK(cuzk_vram_uncharge(&v, CUZK_VRAM_PRESUM, 3 * GiB) == CUZK_EINVAL);
    CHECK(cuzk_vram_part(&v, CUZK_VRAM_PRESUM) == 0);
    CHECK(cuzk_vram_uncharge(&v, (enum cuzk_vram_part)CUZK_VRAM_PARTS, 1) == CUZK_EINVAL);
    CHECK(cuzk_vram_part(&v, (enum cuzk_vram_part)CUZK_VRAM_PARTS) == 0);
    /* a limit lowered below what is charged: nothing fits, nothing is lost */
    cuzk_vram_set_limit(&v, 16 * GiB);
    CHECK(!cuzk_vram_fits(&v, 0, 0) && cuzk_vram_part(&v, CUZK_VRAM_WORK) == 22 * GiB);
    CHECK(cuzk_vram_fits(&v, 16 * GiB, CUZK_VRAM_BIT(CUZK_VRAM_WORK)));
}

static void test_words(void) {
    struct cuzk_vram v;
    char err[256], line[128];
    cuzk_vram_init(&v, 80 * GiB);
    cuzk_vram_charge(&v, CUZK_VRAM_KEYS, 37 * GiB);
    cuzk_vram_charge(&v, CUZK_VRAM_WORK, 37 * GiB);
    CHECK(cuzk_vram_refuse(&v, "a key", 12 * GiB, err, sizeof err) == CUZK_EGPUOOM);
    char want[256];
    snprintf(want, sizeof want,
             "a key needs %llu bytes of device memory; the budget of %llu holds %llu of keys, "
             "%llu of work space and 0 of presum space",
             (unsigned long long)(12 * GiB), (unsigned long long)(80 * GiB),
             (unsigned long long)(37 * GiB), (unsigned long long)(37 * GiB));
    CHECK(strcmp(err, want) == 0);
    cuzk_vram_describe(&v, line, sizeof line);
    CHECK(strcmp(line, "keys 37.00 GiB, work 37.00, presum 0.00 of 80.00 GiB") == 0);
    printf("test_cuda_vram: %s\n", line);
}

int main(void) {
    test_init("test_cuda_vram");
    test_fits();
    test_words();
    return test_finish();
}
