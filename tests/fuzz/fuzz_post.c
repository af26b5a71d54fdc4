/* libFuzzer harness of PoSt vanilla proofs in bincode (filecoin/post_proof.h): the entries a
 * daemon reads from every WindowPoSt and WinningPoSt request of a Filecoin client, then their
 * conversion to a partition and the checks that run on it.
 *
 * Input: one selector byte, then the entries. The selector picks the registered proof (and so
 * the tree levels and the counts): StackedDrgWindow2KiBV1_1, StackedDrgWinning2KiBV1,
 * StackedDrgWindow32GiBV1_1 or StackedDrgWindow32GiBV1 (api 1.0, as partition 1).
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - cuzk_post_entries_parse ends in a set of entries or a documented code with a
 *     "vanilla_proofs: " sentence;
 *   - parsed entries written back (cuzk_post_entries_write) parse to the same values, and
 *     writing those gives the same bytes again;
 *   - the conversion to a partition (zero randomness) ends in a partition of the profile or
 *     CUZK_EINVAL with a sentence; a partition's consistency check in OK or CUZK_EFORMAT. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/post_proof.h"
#include "fuzz_util.h"

static const uint64_t parse_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                     FUZZ_ERR(CUZK_EINVAL) | FUZZ_ERR(CUZK_EUNSUPPORTED) |
                                     FUZZ_ERR(CUZK_ENOMEM);

static int same_entries(const struct cuzk_post_entries *a, const struct cuzk_post_entries *b) {
    if (a->n != b->n || a->levels != b->levels || a->top != b->top) return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct cuzk_post_entry *x = &a->e[i], *y = &b->e[i];
        const size_t nc = x->n_challenges, path = (size_t)a->levels * 7 + a->top;
        if (x->sector_id != y->sector_id || nc != y->n_challenges ||
            !cuzk_fr_eq(&x->comm_r, &y->comm_r) || !cuzk_fr_eq(&x->comm_c, &y->comm_c) ||
            !cuzk_fr_eq(&x->comm_r_last, &y->comm_r_last) ||
            memcmp(x->indices, y->indices, nc * 8) ||
            memcmp(x->leaves, y->leaves, nc * sizeof(cuzk_fr)) ||
            memcmp(x->roots, y->roots, nc * sizeof(cuzk_fr)) ||
            memcmp(x->paths, y->paths, nc * path * sizeof(cuzk_fr)))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const struct {
        enum cuzk_fc_kind kind;
        uint64_t number;
        uint32_t partition;
    } pick[4] = {{CUZK_FC_WPOST, 10, 0},
                 {CUZK_FC_WINNING, 0, 0},
                 {CUZK_FC_WPOST, 13, 0},
                 {CUZK_FC_WPOST, 8, 1}};
    const unsigned s = data[0] % 4;
    struct cuzk_fc_registered reg;
    char err[512] = "";
    FUZZ_CHECK(cuzk_fc_registered_get(pick[s].kind, pick[s].number, &reg, err, sizeof err) ==
               CUZK_OK);
    const size_t max = pick[s].kind == CUZK_FC_WINNING ? 1 : reg.profile.sectors;
    struct cuzk_post_entries pe, again;
    int rc = cuzk_post_entries_parse(data + 1, size - 1, reg.profile.tree_r_levels,
                                     reg.profile.top_arity, max, &pe, err, sizeof err);
    if (!fuzz_outcome(rc, err, parse_errors, "vanilla_proofs: ")) return 0;
    FUZZ_CHECK(pe.n >= 1 && pe.n <= max && pe.levels == reg.profile.tree_r_levels);

    uint8_t *b1, *b2;
    size_t n1, n2;
    FUZZ_CHECK(cuzk_post_entries_write(&pe, 0, pe.n, &b1, &n1) == CUZK_OK);
    rc = cuzk_post_entries_parse(b1, n1, pe.levels, pe.top ? 2 : 0, max, &again, err, sizeof err);
    if (rc) fprintf(stderr, "re-parse: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK && same_entries(&pe, &again));
    FUZZ_CHECK(cuzk_post_entries_write(&again, 0, again.n, &b2, &n2) == CUZK_OK);
    FUZZ_CHECK(n1 == n2 && !memcmp(b1, b2, n1));
    free(b1);
    free(b2);
    cuzk_post_entries_free(&again);

    static const uint8_t zero[32];
    struct cuzk_vanilla v;
    err[0] = 0;
    rc = cuzk_post_vanilla_of_entries(&pe, &reg, zero, pick[s].partition, &v, err, sizeof err);
    if (fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EINVAL) | FUZZ_ERR(CUZK_ENOMEM), NULL)) {
        FUZZ_CHECK(v.n_parts == 1 && !strcmp(v.profile.name, reg.profile.name));
        /* a real 32 GiB partition is 2,349 sectors: check a 2 KiB one only (seconds otherwise) */
        if (reg.profile.sectors <= 66) {
            err[0] = 0;
            rc = cuzk_vanilla_check_part(&v, 0, err, sizeof err);
            fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EFORMAT), "vanilla: ");
        }
        cuzk_vanilla_free(&v);
    }
    cuzk_post_entries_free(&pe);
    return 0;
}
