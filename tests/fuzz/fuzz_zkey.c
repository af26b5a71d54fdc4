/* libFuzzer harness of the .zkey reader (formats/zkey.h, on formats/binfile.h).
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - the outcome is a key, or one of the reader's documented codes with a "zkey: " sentence;
 *   - a key, written again (cuzk_zkey_write) and read back, is the same key, and writing that
 *     one gives the same bytes (the writer's output is a fixed point of read + write);
 *   - a key whose file already has sections 1..10 in id order and nothing else is written back
 *     byte for byte (zkey.h: the writer matches snarkjs's section order).
 * The subgroup check runs as in the daemon (AUTO: every point of a key this small). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/binfile.h"
#include "formats/fmt.h"
#include "formats/zkey.h"
#include "fuzz_util.h"

static const uint64_t zkey_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                    FUZZ_ERR(CUZK_ENOTONCURVE) | FUZZ_ERR(CUZK_ENOTINSUBGROUP) |
                                    FUZZ_ERR(CUZK_EUNSUPPORTED) | FUZZ_ERR(CUZK_ENOMEM);

static int same_key(const struct cuzk_zkey *a, const struct cuzk_zkey *b) {
    if (a->n_vars != b->n_vars || a->n_public != b->n_public || a->domain_size != b->domain_size ||
        a->n_coefs != b->n_coefs || a->n_contributions != b->n_contributions ||
        a->contributions_size != b->contributions_size)
        return 0;
    const size_t n_c = a->n_vars - a->n_public - 1;
    if (memcmp(&a->alpha1, &b->alpha1, sizeof a->alpha1) ||
        memcmp(&a->beta1, &b->beta1, sizeof a->beta1) ||
        memcmp(&a->delta1, &b->delta1, sizeof a->delta1) ||
        memcmp(&a->beta2, &b->beta2, sizeof a->beta2) ||
        memcmp(&a->gamma2, &b->gamma2, sizeof a->gamma2) ||
        memcmp(&a->delta2, &b->delta2, sizeof a->delta2) ||
        memcmp(a->ic, b->ic, (a->n_public + 1) * sizeof *a->ic) ||
        memcmp(a->a, b->a, a->n_vars * sizeof *a->a) ||
        memcmp(a->b1, b->b1, a->n_vars * sizeof *a->b1) ||
        memcmp(a->b2, b->b2, a->n_vars * sizeof *a->b2) || memcmp(a->c, b->c, n_c * sizeof *a->c) ||
        memcmp(a->h, b->h, (size_t)a->domain_size * sizeof *a->h) ||
        memcmp(a->cs_hash, b->cs_hash, sizeof a->cs_hash) ||
        (a->contributions_size &&
         memcmp(a->contributions, b->contributions, a->contributions_size)))
        return 0;
    for (uint32_t i = 0; i < a->n_coefs; i++) {
        const struct cuzk_zkey_coef *x = &a->coefs[i], *y = &b->coefs[i];
        if (x->matrix != y->matrix || x->constraint != y->constraint || x->signal != y->signal ||
            !cuzk_fr_eq(&x->value, &y->value))
            return 0;
    }
    return 1;
}

static uint8_t *write_key(const struct cuzk_zkey *z, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    FUZZ_CHECK(f != NULL);
    char err[256] = "";
    int rc = cuzk_zkey_write(f, z, err, sizeof err);
    if (rc) fprintf(stderr, "zkey write: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    FUZZ_CHECK(fclose(f) == 0);
    return (uint8_t *)buf;
}

/* 1 when the file's section table is exactly ids 1..10 in order (what the writer emits). */
static int in_id_order(const uint8_t *data, size_t size) {
    size_t off = CUZK_BINFILE_HEADER;
    if (size < off || cuzk_fmt_le32(data + 8) != 10) return 0;
    for (uint32_t id = 1; id <= 10; id++) {
        if (size - off < 12 || cuzk_fmt_le32(data + off) != id) return 0;
        uint64_t n = cuzk_fmt_le64(data + off + 4);
        if (n > size - off - 12) return 0;
        off += 12 + (size_t)n;
    }
    return off == size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct cuzk_zkey z;
    char err[256] = "";
    int rc = cuzk_zkey_parse(&z, data, size, NULL, err, sizeof err);
    if (!fuzz_outcome(rc, err, zkey_errors, "zkey: ")) {
        cuzk_zkey_free(&z); /* safe on a failed load */
        return 0;
    }
    size_t n1, n2;
    uint8_t *w1 = write_key(&z, &n1);
    struct cuzk_zkey again;
    err[0] = 0;
    rc = cuzk_zkey_parse(&again, w1, n1, NULL, err, sizeof err);
    if (rc) fprintf(stderr, "zkey re-read: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    FUZZ_CHECK(same_key(&z, &again));
    uint8_t *w2 = write_key(&again, &n2);
    FUZZ_CHECK(n1 == n2 && memcmp(w1, w2, n1) == 0);
    if (in_id_order(data, size)) FUZZ_CHECK(n1 == size && memcmp(w1, data, size) == 0);
    free(w1);
    free(w2);
    cuzk_zkey_free(&again);
    cuzk_zkey_free(&z);
    return 0;
}
