/* libFuzzer harness of PoRep C1 outputs (filecoin/c1.h): the JSON, wrapped or bare, that a
 * daemon reads from every PoRep request of a Filecoin client, then the request-side checks and
 * the consistency check of what it became.
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - cuzk_c1_parse ends in a C1 or a documented code with a "C1: " sentence;
 *   - a parsed C1 written back (cuzk_c1_write, bare and wrapped) parses to the same vanilla set
 *     and the same header values, and writing it again gives the same bytes;
 *   - cuzk_c1_check (miners 0, 106 and 1000: the seeds' are the last two; the wrapper's sector) is
 * CUZK_OK or CUZK_EINVAL with a "C1: " sentence; every partition's consistency check is CUZK_OK or
 * CUZK_EFORMAT. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/c1.h"
#include "fuzz_util.h"

static const uint64_t parse_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                     FUZZ_ERR(CUZK_EINVAL) | FUZZ_ERR(CUZK_EUNSUPPORTED) |
                                     FUZZ_ERR(CUZK_ENOMEM);

static int same_set(const struct cuzk_vanilla *a, const struct cuzk_vanilla *b) {
    uint8_t *fa, *fb;
    size_t na, nb;
    FUZZ_CHECK(cuzk_vanilla_serialize(a, &fa, &na) == CUZK_OK);
    FUZZ_CHECK(cuzk_vanilla_serialize(b, &fb, &nb) == CUZK_OK);
    const int same = na == nb && !memcmp(fa, fb, na);
    free(fa);
    free(fb);
    return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct cuzk_c1 c, again;
    char err[512] = "";
    int rc = cuzk_c1_parse(data, size, &c, err, sizeof err);
    if (!fuzz_outcome(rc, err, parse_errors, "C1: ")) return 0;
    FUZZ_CHECK(c.v.n_parts == c.reg.partitions && !strcmp(c.v.profile.name, c.reg.profile.name));
    for (int wrap = 0; wrap < 2; wrap++) {
        char *t1, *t2;
        size_t n1, n2;
        FUZZ_CHECK(cuzk_c1_write(&c.v, &c.reg, c.seed, c.ticket, wrap, c.sector_num, &t1, &n1, err,
                                 sizeof err) == CUZK_OK);
        rc = cuzk_c1_parse((const uint8_t *)t1, n1, &again, err, sizeof err);
        if (rc) fprintf(stderr, "re-parse: %s\n", err);
        FUZZ_CHECK(rc == CUZK_OK && same_set(&c.v, &again.v) && again.wrapped == wrap &&
                   again.reg.number == c.reg.number && !memcmp(again.seed, c.seed, 32) &&
                   !memcmp(again.ticket, c.ticket, 32) && !memcmp(again.comm_r, c.comm_r, 32));
        FUZZ_CHECK(cuzk_c1_write(&again.v, &again.reg, again.seed, again.ticket, wrap,
                                 again.sector_num, &t2, &n2, err, sizeof err) == CUZK_OK);
        FUZZ_CHECK(n1 == n2 && !memcmp(t1, t2, n1));
        free(t1);
        free(t2);
        cuzk_c1_free(&again);
    }
    static const uint64_t miners[3] = {0, 106, 1000}; /* and the seeds' miners */
    for (int m = 0; m < 3; m++) {
        err[0] = 0;
        rc = cuzk_c1_check(&c, miners[m], 0, err, sizeof err);
        fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EINVAL) | FUZZ_ERR(CUZK_ENOMEM), "C1: ");
    }
    for (uint32_t k = 0; k < c.v.n_parts; k++) {
        err[0] = 0;
        rc = cuzk_vanilla_check_part(&c.v, k, err, sizeof err);
        fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EFORMAT), "vanilla: ");
    }
    cuzk_c1_free(&c);
    return 0;
}
