/* libFuzzer harness of the PCE cache file loader (filecoin/pce.h). The loader takes a path,
 * so the input is handed over as a memory file (fuzz_util.h).
 *
 * Every input is loaded twice: as it is, and "repaired": its circuit fingerprint, payload
 * checksum and header checksum (bytes 80, 144 and 152 of the header) recomputed, so that the
 * structural checks behind them (counts, file size, the CSR invariants) see every mutation
 * instead of the few that survive two 64-bit hashes. The profile asked for is the one the
 * header names (the name check itself is a strcmp).
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - cuzk_pce_load ends in a system or a documented code with a "pce: " sentence, and
 *     cuzk_pce_read_counts (the header alone) agrees with it: a header it refuses fails the load
 *     with the same code, and a loaded system has the counts and checksum it reports;
 *   - a loaded system keeps its header's counts, converts to an .r1cs structure
 *     (cuzk_pce_to_r1cs) and evaluates on a witness (cuzk_cs_eval) without a fault;
 *   - saved again (cuzk_pce_save) and loaded, it is the same system, and the second file is the
 *     first byte for byte; when the input's profile field is zero-padded (what save writes), the
 *     saved file is the input itself. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/pce.h"
#include "fuzz_util.h"
#include "util/checksum.h"

/* Header offsets of the fields the repair rewrites (pce.h's layout). */
#define PCE_PROFILE 16
#define PCE_FINGERPRINT 80
#define PCE_PAYLOAD_SUM 144
#define PCE_HEADER_SUM 152

static const uint64_t pce_errors =
    FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_EUNSUPPORTED) | FUZZ_ERR(CUZK_ENOMEM);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    cuzk_pce_fingerprint(); /* a COUNT run, once per process: not any input's time */
    return 0;
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static int same_system(const struct cuzk_pce *a, const struct cuzk_pce *b) {
    const struct cuzk_cs *x = &a->cs, *y = &b->cs;
    if (memcmp(&a->counts, &b->counts, sizeof a->counts) || a->checksum != b->checksum ||
        x->n_rows != y->n_rows || x->n_cols != y->n_cols || x->n_public != y->n_public ||
        x->coefs.n != y->coefs.n || memcmp(x->coefs.v, y->coefs.v, x->coefs.n * sizeof *x->coefs.v))
        return 0;
    for (int m = 0; m < 3; m++) {
        const struct cuzk_cs_csr *p = &x->m[m], *q = &y->m[m];
        if (p->nnz != q->nnz || memcmp(p->row_ptr, q->row_ptr, (x->n_rows + 1) * 8) ||
            (p->nnz &&
             (memcmp(p->col, q->col, p->nnz * 4) || memcmp(p->coef, q->coef, p->nnz * 4))))
            return 0;
    }
    return 1;
}

static uint8_t *save(struct cuzk_pce *pce, const char *profile, size_t *len) {
    char path[64], err[256] = "";
    int fd = fuzz_memfd(NULL, 0, path, sizeof path);
    int rc = cuzk_pce_save(path, profile, pce, err, sizeof err);
    if (rc) fprintf(stderr, "pce save: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    uint8_t *b = fuzz_memfd_read(fd, len);
    close(fd);
    return b;
}

static void load(const uint8_t *data, size_t size) {
    /* the name the header holds, cut to 63 characters as a struct cuzk_fc_profile's name is
     * (a 64-byte name without a NUL is then refused as another profile's file) */
    char profile[64] = "", path[64], err[256] = "", cerr[256] = "";
    if (size >= CUZK_PCE_HEADER_BYTES) memcpy(profile, data + PCE_PROFILE, 63);
    int fd = fuzz_memfd(data, size, path, sizeof path);
    struct cuzk_builder_counts counts;
    uint64_t sum = 0;
    int crc = cuzk_pce_read_counts(path, profile, &counts, &sum, cerr, sizeof cerr);
    fuzz_outcome(crc, cerr, pce_errors, "pce: ");
    struct cuzk_pce pce;
    int rc = cuzk_pce_load(path, profile, &pce, err, sizeof err);
    close(fd);
    if (crc) FUZZ_CHECK(rc == crc);
    if (!fuzz_outcome(rc, err, pce_errors, "pce: ")) return;

    const struct cuzk_cs *cs = &pce.cs;
    FUZZ_CHECK(!memcmp(&pce.counts, &counts, sizeof counts) && pce.checksum == sum);
    FUZZ_CHECK(cs->n_rows == counts.constraints && cs->n_cols == counts.n_inputs + counts.n_aux);
    for (int m = 0; m < 3; m++) FUZZ_CHECK(cs->m[m].nnz == counts.nnz[m]);
    FUZZ_CHECK(cuzk_cs_validate(cs) == CUZK_OK);
    struct cuzk_r1cs r;
    rc = cuzk_pce_to_r1cs(&pce, &r);
    FUZZ_CHECK(rc == CUZK_OK || rc == CUZK_ENOMEM || rc == CUZK_ERANGE);
    if (rc == CUZK_OK) FUZZ_CHECK(r.n_wires == cs->n_cols && r.n_constraints == cs->n_rows);
    cuzk_r1cs_free(&r);
    if (cs->n_cols <= 4096 && cs->n_rows <= 4096) {
        cuzk_fr *w = malloc((cs->n_cols + 3 * cs->n_rows) * sizeof *w);
        FUZZ_CHECK(w != NULL);
        for (size_t i = 0; i < cs->n_cols; i++) cuzk_fr_from_u64(&w[i], i + 1);
        cuzk_fr *out = w + cs->n_cols;
        FUZZ_CHECK(cuzk_cs_eval(NULL, cs, w, out, out + cs->n_rows, out + 2 * cs->n_rows) ==
                   CUZK_OK);
        free(w);
    }

    size_t n1, n2;
    uint8_t *f1 = save(&pce, profile, &n1);
    fd = fuzz_memfd(f1, n1, path, sizeof path);
    struct cuzk_pce again;
    rc = cuzk_pce_load(path, profile, &again, err, sizeof err);
    close(fd);
    if (rc) fprintf(stderr, "pce re-load: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    FUZZ_CHECK(same_system(&pce, &again));
    uint8_t *f2 = save(&again, profile, &n2);
    FUZZ_CHECK(n1 == n2 && !memcmp(f1, f2, n1));
    int padded = 1;
    for (size_t i = strlen(profile); i < 64; i++) padded &= data[PCE_PROFILE + i] == 0;
    if (padded) FUZZ_CHECK(n1 == size && !memcmp(f1, data, size));
    free(f1);
    free(f2);
    cuzk_pce_free(&again);
    cuzk_pce_free(&pce);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load(data, size);
    if (size < CUZK_PCE_HEADER_BYTES) return 0;
    uint8_t *fixed = malloc(size);
    FUZZ_CHECK(fixed != NULL);
    memcpy(fixed, data, size);
    put64(fixed + PCE_FINGERPRINT, cuzk_pce_fingerprint());
    put64(fixed + PCE_PAYLOAD_SUM,
          cuzk_checksum64(fixed + CUZK_PCE_HEADER_BYTES, size - CUZK_PCE_HEADER_BYTES));
    put64(fixed + PCE_HEADER_SUM, cuzk_checksum64(fixed, PCE_HEADER_SUM));
    load(fixed, size);
    free(fixed);
    return 0;
}
