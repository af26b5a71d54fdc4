/* libFuzzer harness of SnapDeals vanilla proofs in bincode (filecoin/snap_proof.h): the
 * PartitionProof entries a daemon reads from every SnapDeals request of a Filecoin client, as
 * the entries of a StackedDrg8MiBV1 (update) sector, then the checks that run on what they
 * became.
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - cuzk_snap_vanilla_of_entries ends in the registered proof's partitions or a documented
 *     code with a "vanilla_proofs: " sentence;
 *   - the partitions written back (cuzk_snap_entry_write) are the input's bytes, entry after
 *     entry (what was read is all there is: positions, apex paths and new leaves follow from
 *     the values kept);
 *   - every partition's consistency check ends in OK or CUZK_EFORMAT. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/snap_proof.h"
#include "fuzz_util.h"

static const uint64_t parse_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                     FUZZ_ERR(CUZK_EINVAL) | FUZZ_ERR(CUZK_EUNSUPPORTED) |
                                     FUZZ_ERR(CUZK_ENOMEM);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct cuzk_fc_registered reg;
    static int ready;
    char err[512] = "";
    if (!ready) {
        FUZZ_CHECK(cuzk_fc_registered_get(CUZK_FC_SNAP, 1, &reg, err, sizeof err) == CUZK_OK);
        ready = 1;
    }
    struct cuzk_vanilla v;
    int rc = cuzk_snap_vanilla_of_entries(data, size, &reg, &v, err, sizeof err);
    if (!fuzz_outcome(rc, err, parse_errors, "vanilla_proofs: ")) return 0;
    FUZZ_CHECK(v.n_parts == reg.partitions && !strcmp(v.profile.name, reg.profile.name));
    size_t off = 0;
    for (uint32_t q = 0; q < v.n_parts; q++) {
        uint8_t *e;
        size_t n;
        FUZZ_CHECK(cuzk_snap_entry_write(&v, &reg, q, &e, &n) == CUZK_OK);
        FUZZ_CHECK(off + n <= size && !memcmp(data + off, e, n));
        off += n;
        free(e);
    }
    FUZZ_CHECK(off == size);
    for (uint32_t q = 0; q < v.n_parts; q++) {
        err[0] = 0;
        rc = cuzk_vanilla_check_part(&v, q, err, sizeof err);
        fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EFORMAT), "vanilla: ");
    }
    cuzk_vanilla_free(&v);
    return 0;
}
