/* libFuzzer harness of the .r1cs reader (formats/r1cs.h, on formats/binfile.h). There is no
 * .r1cs writer, so instead of a round trip the harness checks what the reader promises.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - the outcome is a system, or one of the documented codes with an "r1cs: " sentence;
 *   - a system has 1 + nPubOut + nPubIn + nPrvIn <= nWires, offsets lc[] that start at 0, never
 *     decrease and end at n_terms, every wire below nWires and every label below nLabels;
 *   - its conversion to CSR (cuzk_r1cs_to_cs) keeps the counts and passes cuzk_cs_validate,
 *     the check a loaded constraint system must pass before a prover reads it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/r1cs.h"
#include "fuzz_util.h"
#include "r1cs/cs.h"

static const uint64_t r1cs_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                    FUZZ_ERR(CUZK_EUNSUPPORTED) | FUZZ_ERR(CUZK_ENOMEM);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct cuzk_r1cs r;
    char err[256] = "";
    int rc = cuzk_r1cs_parse(&r, data, size, err, sizeof err);
    if (!fuzz_outcome(rc, err, r1cs_errors, "r1cs: ")) {
        cuzk_r1cs_free(&r);
        return 0;
    }
    FUZZ_CHECK(1ull + r.n_pub_out + r.n_pub_in + r.n_prv_in <= r.n_wires);
    FUZZ_CHECK(r.lc[0] == 0 && r.lc[3 * (size_t)r.n_constraints] == r.n_terms);
    for (size_t i = 0; i < 3 * (size_t)r.n_constraints; i++) FUZZ_CHECK(r.lc[i] <= r.lc[i + 1]);
    for (uint64_t k = 0; k < r.n_terms; k++) FUZZ_CHECK(r.wire[k] < r.n_wires);
    if (r.label)
        for (uint32_t w = 0; w < r.n_wires; w++) FUZZ_CHECK(r.label[w] < r.n_labels);

    struct cuzk_cs cs;
    rc = cuzk_r1cs_to_cs(&r, &cs);
    FUZZ_CHECK(rc == CUZK_OK || rc == CUZK_ENOMEM);
    if (rc == CUZK_OK) {
        FUZZ_CHECK(cs.n_rows == r.n_constraints && cs.n_cols == r.n_wires);
        FUZZ_CHECK(cs.n_public == cuzk_r1cs_n_public(&r));
        FUZZ_CHECK(cs.m[0].nnz + cs.m[1].nnz + cs.m[2].nnz == r.n_terms);
        FUZZ_CHECK(cuzk_cs_validate(&cs) == CUZK_OK);
        cuzk_cs_free(&cs);
    }
    cuzk_r1cs_free(&r);
    return 0;
}
