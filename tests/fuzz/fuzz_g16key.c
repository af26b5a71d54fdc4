/* libFuzzer harness of the .g16k key-file reader (formats/g16key.h). The reader takes a path,
 * so the input is handed over as a memory file (fuzz_util.h).
 *
 * Every input is opened twice: as it is, and "repaired": every checksum it holds recomputed
 * from the bytes it covers (the SUMS entries of IC, the wire lists and each point chunk, found
 * through the header's own region table and counts; then the SUMS checksum and the header
 * checksum), so that the checks behind the checksums (counts, layout, wire lists, points) see
 * every mutation. The key directory is trusted (g16key.h), but the reader promises that no
 * bytes make it abort, read out of bounds or allocate more than the file holds.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - open and peek end in a key (a header) or a documented code with a "g16key: " sentence,
 *     and agree: a header peek refuses fails open with the same code, an opened key has the
 *     header peek reports;
 *   - of an opened key, every section reads whole (or fails its checksum: CUZK_EFORMAT) and
 *     loads (or fails a point check), and a range that is not whole chunks is CUZK_EINVAL;
 *   - a key whose sections all load, written again by the streaming writer and opened, is the
 *     same key, and writing that one gives the same bytes. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/encode.h"
#include "filecoin/pce.h"
#include "formats/fmt.h"
#include "formats/g16key.h"
#include "fuzz_util.h"
#include "util/checksum.h"

/* Header offsets (g16key.h's layout). */
#define H_FLAGS 12
#define H_CHUNK 36
#define H_TABLE 912
#define H_SUMS_CHECKSUM 1056
#define H_CHECKSUM (CUZK_G16KEY_HEADER_BYTES - 8)
#define REGIONS 9 /* SUMS, IC, A_WIRES, B_WIRES, then the five point sections */

static const uint64_t open_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_EUNSUPPORTED) |
                                    FUZZ_ERR(CUZK_ENOMEM) | FUZZ_ERR(CUZK_ENONCANON) |
                                    FUZZ_ERR(CUZK_ENOTONCURVE) | FUZZ_ERR(CUZK_ENOTINSUBGROUP) |
                                    FUZZ_ERR(CUZK_EFLAGS) | FUZZ_ERR(CUZK_ENOSQRT);

/* Region r of the header's table, when it lies inside the file. */
static int region(const uint8_t *d, size_t size, int r, uint64_t *off, uint64_t *bytes) {
    *off = cuzk_fmt_le64(d + H_TABLE + 16 * r);
    *bytes = cuzk_fmt_le64(d + H_TABLE + 16 * r + 8);
    return *off <= size && *bytes <= size - *off;
}

static void repair(uint8_t *d, size_t size) {
    uint64_t so, sb, off, bytes;
    if (region(d, size, 0, &so, &sb)) {
        uint8_t *sums = d + so;
        const size_t n_sums = (size_t)(sb / 8);
        size_t at = 0;
        for (int r = 1; r <= 3 && at < n_sums; r++, at++)
            if (region(d, size, r, &off, &bytes))
                cuzk_fmt_put64(sums + 8 * at, cuzk_checksum64(d + off, (size_t)bytes));
        const int compressed = cuzk_fmt_le32(d + H_FLAGS) & CUZK_G16KEY_FLAG_COMPRESSED;
        const uint64_t cp = cuzk_fmt_le32(d + H_CHUNK);
        for (int s = 0; s < CUZK_G16KEY_SECTIONS && cp; s++) {
            uint64_t pb = s == CUZK_G16KEY_B2 ? (compressed ? CUZK_G2_COMPRESSED : CUZK_G2_LEM)
                                              : (compressed ? CUZK_G1_COMPRESSED : CUZK_G1_LEM);
            if (!region(d, size, 4 + s, &off, &bytes)) break;
            for (uint64_t first = 0; first < bytes / pb && at < n_sums; first += cp, at++) {
                uint64_t n = bytes / pb - first < cp ? bytes / pb - first : cp;
                cuzk_fmt_put64(sums + 8 * at,
                               cuzk_checksum64(d + off + first * pb, (size_t)(n * pb)));
            }
        }
        cuzk_fmt_put64(d + H_SUMS_CHECKSUM, cuzk_checksum64(sums, (size_t)sb));
    }
    cuzk_fmt_put64(d + H_CHECKSUM, cuzk_checksum64(d, H_CHECKSUM));
}

static int same_info(const struct cuzk_g16key_info *a, const struct cuzk_g16key_info *b) {
    return a->n_vars == b->n_vars && a->n_public == b->n_public &&
           a->domain_size == b->domain_size && a->n_a == b->n_a && a->n_b == b->n_b &&
           a->chunk_points == b->chunk_points && a->compressed == b->compressed &&
           a->h_basis == b->h_basis && a->cs_checksum == b->cs_checksum &&
           !memcmp(&a->alpha1, &b->alpha1, sizeof a->alpha1) &&
           !memcmp(&a->beta1, &b->beta1, sizeof a->beta1) &&
           !memcmp(&a->delta1, &b->delta1, sizeof a->delta1) &&
           !memcmp(&a->beta2, &b->beta2, sizeof a->beta2) &&
           !memcmp(&a->gamma2, &b->gamma2, sizeof a->gamma2) &&
           !memcmp(&a->delta2, &b->delta2, sizeof a->delta2);
}

/* A section's points, loaded (NULL when the load failed). */
static void *load(struct cuzk_g16key *k, enum cuzk_g16key_section s) {
    size_t n = cuzk_g16key_count(k, s), pb = cuzk_g16key_point_bytes(k, s);
    size_t psize = s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    const size_t cp = cuzk_g16key_get_info(k)->chunk_points;
    char err[512] = "";
    uint8_t *raw = malloc(n * pb + 1);
    FUZZ_CHECK(raw != NULL);
    int rc = cuzk_g16key_read(k, s, 0, n, raw, err, sizeof err);
    fuzz_outcome(rc, err, FUZZ_ERR(CUZK_EFORMAT), "g16key: ");
    if (cp > 1 && n > 1) /* part of a chunk, not at the end: refused */
        FUZZ_CHECK(cuzk_g16key_read(k, s, 0, 1, raw, err, sizeof err) == CUZK_EINVAL);
    FUZZ_CHECK(cuzk_g16key_read(k, s, n, 1, raw, err, sizeof err) == CUZK_EINVAL);
    free(raw);
    void *pts = malloc(n * psize + 1);
    FUZZ_CHECK(pts != NULL);
    err[0] = 0;
    int lrc = cuzk_g16key_load(k, s, NULL, pts, err, sizeof err);
    fuzz_outcome(lrc, err, open_errors, "g16key: ");
    if (rc) FUZZ_CHECK(lrc != CUZK_OK); /* a chunk that fails its checksum fails the load too */
    if (!lrc) return pts;
    free(pts);
    return NULL;
}

/* Writes k (with its loaded sections pts) to a memory file; its bytes, or NULL. */
static uint8_t *write_key(struct cuzk_g16key *k, void *const pts[CUZK_G16KEY_SECTIONS],
                          size_t *len) {
    char path[64], err[512] = "";
    int fd = fuzz_memfd(NULL, 0, path, sizeof path);
    struct cuzk_g16key_writer *w;
    int rc = cuzk_g16key_writer_open(&w, path, cuzk_g16key_get_info(k), cuzk_g16key_ic(k),
                                     cuzk_g16key_a_wires(k), cuzk_g16key_b_wires(k), NULL, err,
                                     sizeof err);
    for (int s = 0; s < CUZK_G16KEY_SECTIONS && !rc; s++)
        if (cuzk_g16key_count(k, s))
            rc = cuzk_g16key_writer_put(w, s, pts[s], cuzk_g16key_count(k, s), err, sizeof err);
    if (!rc) {
        rc = cuzk_g16key_writer_close(w, err, sizeof err);
    } else {
        cuzk_g16key_writer_abort(w);
    }
    if (rc) fprintf(stderr, "g16key write: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    uint8_t *b = fuzz_memfd_read(fd, len);
    close(fd);
    return b;
}

static void check(const uint8_t *data, size_t size) {
    char path[64], err[512] = "", perr[512] = "";
    int fd = fuzz_memfd(data, size, path, sizeof path);
    struct cuzk_g16key_info info;
    int prc = cuzk_g16key_peek(path, &info, perr, sizeof perr);
    fuzz_outcome(prc, perr, open_errors, "g16key: ");
    struct cuzk_g16key *k;
    int rc = cuzk_g16key_open(&k, path, err, sizeof err);
    close(fd);
    if (prc) FUZZ_CHECK(rc == prc);
    if (!fuzz_outcome(rc, err, open_errors, "g16key: ")) return;
    FUZZ_CHECK(same_info(&info, cuzk_g16key_get_info(k)));

    void *pts[CUZK_G16KEY_SECTIONS];
    int all = 1;
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) all &= (pts[s] = load(k, s)) != NULL;
    if (all) {
        size_t n1, n2;
        uint8_t *f1 = write_key(k, pts, &n1);
        fd = fuzz_memfd(f1, n1, path, sizeof path);
        struct cuzk_g16key *again;
        rc = cuzk_g16key_open(&again, path, err, sizeof err);
        close(fd);
        if (rc) fprintf(stderr, "g16key re-open: %s\n", err);
        FUZZ_CHECK(rc == CUZK_OK);
        const struct cuzk_g16key_info *a = cuzk_g16key_get_info(k);
        FUZZ_CHECK(same_info(a, cuzk_g16key_get_info(again)));
        FUZZ_CHECK(!memcmp(cuzk_g16key_ic(k), cuzk_g16key_ic(again),
                           (a->n_public + 1) * sizeof(cuzk_g1_affine)));
        FUZZ_CHECK(!a->n_a || !memcmp(cuzk_g16key_a_wires(k), cuzk_g16key_a_wires(again),
                                      a->n_a * sizeof(uint32_t)));
        FUZZ_CHECK(!a->n_b || !memcmp(cuzk_g16key_b_wires(k), cuzk_g16key_b_wires(again),
                                      a->n_b * sizeof(uint32_t)));
        void *qts[CUZK_G16KEY_SECTIONS];
        for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
            qts[s] = load(again, s);
            size_t psize = s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
            FUZZ_CHECK(qts[s] != NULL && !memcmp(pts[s], qts[s], cuzk_g16key_count(k, s) * psize));
        }
        uint8_t *f2 = write_key(again, qts, &n2);
        FUZZ_CHECK(n1 == n2 && !memcmp(f1, f2, n1));
        for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) free(qts[s]);
        cuzk_g16key_close(again);
        free(f1);
        free(f2);
    }
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) free(pts[s]);
    cuzk_g16key_close(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check(data, size);
    if (size < CUZK_G16KEY_HEADER_BYTES) return 0;
    uint8_t *fixed = malloc(size);
    FUZZ_CHECK(fixed != NULL);
    memcpy(fixed, data, size);
    repair(fixed, size);
    check(fixed, size);
    free(fixed);
    return 0;
}
