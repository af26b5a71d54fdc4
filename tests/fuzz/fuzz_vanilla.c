/* libFuzzer harness of the vanilla-proof file (filecoin/vanilla.h): the parser a daemon runs
 * on every Filecoin request at submission, then the checks that run on what it accepts.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - cuzk_vanilla_parse, and cuzk_vanilla_read_file on the same bytes as a file, end in the
 *     same code: a set of partitions, or one of the documented codes with a "vanilla: "
 *     sentence;
 *   - a parsed set serializes (cuzk_vanilla_serialize) to bytes that parse to a set serializing
 *     to the same bytes; an input holding a single file is serialized back byte for byte;
 *   - every partition's public inputs come out (cuzk_vanilla_public_inputs: the count of the
 *     profile; one slot fewer is CUZK_ERANGE with nothing written);
 *   - the consistency check (cuzk_vanilla_check_part), "total" by its contract, ends in
 *     CUZK_OK or CUZK_EFORMAT with a sentence, for every partition. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/vanilla.h"
#include "fuzz_util.h"

static const uint64_t vanilla_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                       FUZZ_ERR(CUZK_EUNSUPPORTED) | FUZZ_ERR(CUZK_ENOMEM);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct cuzk_vanilla v, f;
    char err[512] = "", ferr[512] = "", path[64];
    int rc = cuzk_vanilla_parse(&v, data, size, err, sizeof err);
    int fd = fuzz_memfd(data, size, path, sizeof path);
    int frc = cuzk_vanilla_read_file(&f, path, ferr, sizeof ferr);
    close(fd);
    cuzk_vanilla_free(&f);
    FUZZ_CHECK(frc == rc);
    if (!fuzz_outcome(rc, err, vanilla_errors, "vanilla: ")) return 0;
    FUZZ_CHECK(v.n_parts >= 1 && v.n_parts <= CUZK_VANILLA_MAX_PARTS);

    uint8_t *b1, *b2;
    size_t n1, n2;
    FUZZ_CHECK(cuzk_vanilla_serialize(&v, &b1, &n1) == CUZK_OK);
    struct cuzk_vanilla again;
    rc = cuzk_vanilla_parse(&again, b1, n1, err, sizeof err);
    if (rc) fprintf(stderr, "re-parse: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    FUZZ_CHECK(again.n_parts == v.n_parts && !strcmp(again.profile.name, v.profile.name));
    FUZZ_CHECK(cuzk_vanilla_serialize(&again, &b2, &n2) == CUZK_OK);
    FUZZ_CHECK(n1 == n2 && !memcmp(b1, b2, n1));
    /* a concatenation has a header per file; one file has exactly the serializer's length */
    if (size == n1) FUZZ_CHECK(!memcmp(b1, data, size));
    free(b1);
    free(b2);
    cuzk_vanilla_free(&again);

    const size_t want = cuzk_vanilla_public_count(&v.profile);
    cuzk_fr *pub = malloc((want + 1) * sizeof *pub);
    FUZZ_CHECK(pub != NULL);
    for (uint32_t i = 0; i < v.n_parts; i++) {
        size_t n = 0;
        FUZZ_CHECK(cuzk_vanilla_public_inputs(&v, i, pub, want, &n) == CUZK_OK && n == want);
        if (want) FUZZ_CHECK(cuzk_vanilla_public_inputs(&v, i, pub, want - 1, &n) == CUZK_ERANGE);
        err[0] = 0;
        rc = cuzk_vanilla_check_part(&v, i, err, sizeof err);
        fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EFORMAT), "vanilla: ");
    }
    free(pub);
    cuzk_vanilla_free(&v);
    return 0;
}
