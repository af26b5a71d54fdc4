/* libFuzzer harness of bellperson's parameter and verifying-key readers (formats/bellperson.h):
 * each input is read as a .params file (from memory, and peeked through a memfd path) and as a
 * .vk file.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - every reader ends in success or a documented code with a "bellperson: " sentence;
 *   - peek (layout only) and open agree: a layout peek refuses is refused by open, and an opened
 *     file has the counts peek reports; a file open accepts with every check is accepted with the
 *     subgroup check skipped, with the same verifying key;
 *   - an opened file whose five vectors all load, written again by cuzk_bp_params_write, is the
 *     input byte for byte (the uncompressed encoding has one form per point, and the layout none
 *     to spare); the same for a .vk and cuzk_bp_vk_write. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/encode.h"
#include "formats/bellperson.h"
#include "fuzz_util.h"

static const uint64_t errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENOMEM) |
                               FUZZ_ERR(CUZK_ENONCANON) | FUZZ_ERR(CUZK_ENOTONCURVE) |
                               FUZZ_ERR(CUZK_ENOTINSUBGROUP) | FUZZ_ERR(CUZK_EFLAGS);

static int same_vk(const struct cuzk_bp_vk *a, const struct cuzk_bp_vk *b) {
    return !memcmp(&a->alpha1, &b->alpha1, sizeof a->alpha1) &&
           !memcmp(&a->beta1, &b->beta1, sizeof a->beta1) &&
           !memcmp(&a->delta1, &b->delta1, sizeof a->delta1) &&
           !memcmp(&a->beta2, &b->beta2, sizeof a->beta2) &&
           !memcmp(&a->gamma2, &b->gamma2, sizeof a->gamma2) &&
           !memcmp(&a->delta2, &b->delta2, sizeof a->delta2) && a->n_ic == b->n_ic &&
           (!a->n_ic || !memcmp(a->ic, b->ic, a->n_ic * sizeof *a->ic));
}

static void as_params(const uint8_t *data, size_t size) {
    char path[64], err[512] = "", perr[512] = "";
    int fd = fuzz_memfd(data, size, path, sizeof path);
    struct cuzk_bp_params peek, p, q;
    int prc = cuzk_bp_params_peek(&peek, path, perr, sizeof perr);
    close(fd);
    fuzz_outcome(prc, perr, FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENOMEM), "bellperson: ");
    int rc = cuzk_bp_params_from_mem(&p, data, size, CUZK_CHECK_ALL, err, sizeof err);
    if (prc) FUZZ_CHECK(rc != CUZK_OK);
    if (!fuzz_outcome(rc, err, errors, "bellperson: ")) {
        cuzk_bp_params_close(&peek);
        return;
    }
    FUZZ_CHECK(prc == CUZK_OK && !memcmp(peek.count, p.count, sizeof p.count) &&
               peek.vk.n_ic == p.vk.n_ic && peek.vk.ic == NULL);
    cuzk_bp_params_close(&peek);
    FUZZ_CHECK(cuzk_bp_params_from_mem(&q, data, size, CUZK_CHECK_NO_SUBGROUP, err, sizeof err) ==
               CUZK_OK);
    FUZZ_CHECK(same_vk(&p.vk, &q.vk));
    cuzk_bp_params_close(&q);

    void *pts[CUZK_BP_VECTORS] = {0};
    int all = 1;
    for (int v = 0; v < CUZK_BP_VECTORS; v++) {
        size_t sz = v == CUZK_BP_B_G2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
        pts[v] = malloc(((size_t)p.count[v] + 1) * sz);
        FUZZ_CHECK(pts[v] != NULL);
        err[0] = 0;
        int lrc = cuzk_bp_params_load(&p, (enum cuzk_bp_vector)v, CUZK_CHECK_ALL, NULL, pts[v], err,
                                      sizeof err);
        all &= fuzz_outcome(lrc, err, errors, "bellperson: ");
    }
    if (all) {
        char *mem = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&mem, &len);
        FUZZ_CHECK(m != NULL);
        struct cuzk_bp_query w = {.h = pts[0],
                                  .n_h = p.count[0],
                                  .l = pts[1],
                                  .n_l = p.count[1],
                                  .a = pts[2],
                                  .n_a = p.count[2],
                                  .b_g1 = pts[3],
                                  .n_b_g1 = p.count[3],
                                  .b_g2 = pts[4],
                                  .n_b_g2 = p.count[4]};
        rc = cuzk_bp_params_write(m, &p.vk, &w, err, sizeof err);
        fclose(m);
        if (rc) fprintf(stderr, "bellperson write: %s\n", err);
        FUZZ_CHECK(rc == CUZK_OK && len == size && !memcmp(mem, data, size));
        free(mem);
    }
    for (int v = 0; v < CUZK_BP_VECTORS; v++) free(pts[v]);
    cuzk_bp_params_close(&p);
}

static void as_vk(const uint8_t *data, size_t size) {
    char err[512] = "";
    struct cuzk_bp_vk vk;
    int rc = cuzk_bp_vk_parse(&vk, data, size, CUZK_CHECK_ALL, err, sizeof err);
    if (!fuzz_outcome(rc, err, errors, "bellperson: ")) return;
    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    FUZZ_CHECK(m != NULL);
    rc = cuzk_bp_vk_write(m, &vk, err, sizeof err);
    fclose(m);
    FUZZ_CHECK(rc == CUZK_OK && len == size && !memcmp(mem, data, size));
    free(mem);
    cuzk_bp_vk_free(&vk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    as_params(data, size);
    as_vk(data, size);
    return 0;
}
