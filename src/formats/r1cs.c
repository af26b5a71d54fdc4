#include "formats/r1cs.h"

#include <string.h>

#include "cuzk/error.h"
#include "formats/binfile.h"
#include "formats/fmt.h"
#include "r1cs/cs.h"

#define R1CS_HEADER_SIZE (4 + CUZK_FR_BYTES + 4 * 4 + 8 + 4)
#define R1CS_TERM_SIZE (4 + CUZK_FR_BYTES)

static const char *const lc_name[3] = {"A", "B", "C"};

static int parse_header(struct cuzk_r1cs *r, const struct cuzk_binfile *bf, char *err,
                        size_t errlen) {
    const struct cuzk_binfile_section *s;
    int rc = cuzk_binfile_require(bf, 1, "header", &s, err, errlen);
    if (rc) return rc;
    const uint8_t *p = cuzk_binfile_ptr(bf, s);
    if (s->size < 4)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: section 1 (header) is %llu bytes, too short for n8",
                         (unsigned long long)s->size);
    uint32_t n8 = cuzk_fmt_le32(p);
    if (n8 != CUZK_FR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: field size n8 = %u, expected %d (BLS12-381 scalar field)", n8,
                         CUZK_FR_BYTES);
    if (s->size != R1CS_HEADER_SIZE)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: section 1 (header) is %llu bytes, expected %d",
                         (unsigned long long)s->size, R1CS_HEADER_SIZE);
    if (!cuzk_fmt_is_modulus(p + 4, cuzk_fr_modulus_, CUZK_FR_LIMBS))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: the prime is not the BLS12-381 scalar field r (compile the "
                         "circuit with --prime bls12381)");
    p += 4 + CUZK_FR_BYTES;
    r->n_wires = cuzk_fmt_le32(p);
    r->n_pub_out = cuzk_fmt_le32(p + 4);
    r->n_pub_in = cuzk_fmt_le32(p + 8);
    r->n_prv_in = cuzk_fmt_le32(p + 12);
    r->n_labels = cuzk_fmt_le64(p + 16);
    r->n_constraints = cuzk_fmt_le32(p + 24);
    uint64_t need = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (need > r->n_wires)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: %u wires cannot hold the constant 1, %u outputs, %u public "
                         "and %u private inputs",
                         r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
    return CUZK_OK;
}

/* Walks section 2 once to validate its layout and count the terms. A term costs 36 bytes, so
 * every count is checked against the bytes left before it is believed. */
static int count_terms(const struct cuzk_r1cs *r, const uint8_t *data, uint64_t size,
                       uint64_t *n_terms, char *err, size_t errlen) {
    struct cuzk_bincursor c = {data, size};
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            const uint8_t *p = cuzk_bincursor_take(&c, 4);
            if (p == NULL)
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "r1cs: section 2 (constraints) ends inside constraint %u "
                                 "of %u (%s)",
                                 i, r->n_constraints, lc_name[m]);
            uint32_t nt = cuzk_fmt_le32(p);
            p = cuzk_bincursor_take(&c, (uint64_t)nt * R1CS_TERM_SIZE);
            if (p == NULL)
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "r1cs: constraint %u (%s) announces %u terms, section 2 "
                                 "has only %llu bytes left",
                                 i, lc_name[m], nt, (unsigned long long)c.left);
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t wire = cuzk_fmt_le32(p + (uint64_t)t * R1CS_TERM_SIZE);
                if (wire >= r->n_wires)
                    return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                     "r1cs: constraint %u (%s) term %u uses wire %u, there "
                                     "are %u wires",
                                     i, lc_name[m], t, wire, r->n_wires);
            }
            total += nt;
        }
    }
    if (c.left != 0)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: %llu stray bytes after the %u constraints of section 2",
                         (unsigned long long)c.left, r->n_constraints);
    *n_terms = total;
    return CUZK_OK;
}

static int parse_constraints(struct cuzk_r1cs *r, const struct cuzk_binfile *bf, char *err,
                             size_t errlen) {
    const struct cuzk_binfile_section *s;
    int rc = cuzk_binfile_require(bf, 2, "constraints", &s, err, errlen);
    if (rc) return rc;
    const uint8_t *data = cuzk_binfile_ptr(bf, s);
    uint64_t n_terms = 0;
    if ((rc = count_terms(r, data, s->size, &n_terms, err, errlen))) return rc;
    r->lc = cuzk_fmt_alloc(3 * (size_t)r->n_constraints + 1, sizeof *r->lc);
    r->wire = cuzk_fmt_alloc(n_terms, sizeof *r->wire);
    r->coef = cuzk_fmt_alloc(n_terms, sizeof *r->coef);
    if (r->lc == NULL || r->wire == NULL || r->coef == NULL)
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "r1cs: out of memory for %llu constraint terms",
                         (unsigned long long)n_terms);
    r->n_terms = n_terms;
    /* the layout is known good: the second pass only converts the coefficients */
    const uint8_t *p = data;
    uint64_t k = 0;
    r->lc[0] = 0;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt = cuzk_fmt_le32(p);
            p += 4;
            for (uint32_t t = 0; t < nt; t++, k++, p += R1CS_TERM_SIZE) {
                r->wire[k] = cuzk_fmt_le32(p);
                if (cuzk_fr_from_bytes_le(&r->coef[k], p + 4) != CUZK_OK)
                    return cuzk_errf(err, errlen, CUZK_ENONCANON,
                                     "r1cs: constraint %u (%s) term %u: coefficient is not "
                                     "below r",
                                     i, lc_name[m], t);
            }
            r->lc[3 * (size_t)i + m + 1] = k;
        }
    }
    return CUZK_OK;
}

static int parse_labels(struct cuzk_r1cs *r, const struct cuzk_binfile *bf, char *err,
                        size_t errlen) {
    const struct cuzk_binfile_section *s = cuzk_binfile_find(bf, 3);
    if (s == NULL) return CUZK_OK;
    if (s->size != (uint64_t)r->n_wires * 8)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "r1cs: section 3 (wire labels) is %llu bytes, %u wires need %llu",
                         (unsigned long long)s->size, r->n_wires,
                         (unsigned long long)r->n_wires * 8);
    r->label = cuzk_fmt_alloc(r->n_wires, sizeof *r->label);
    if (r->label == NULL)
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "r1cs: out of memory for %u labels", r->n_wires);
    const uint8_t *p = cuzk_binfile_ptr(bf, s);
    for (uint32_t i = 0; i < r->n_wires; i++) {
        r->label[i] = cuzk_fmt_le64(p + 8 * (size_t)i);
        if (r->label[i] >= r->n_labels)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "r1cs: wire %u has label %llu, there are %llu labels", i,
                             (unsigned long long)r->label[i], (unsigned long long)r->n_labels);
    }
    return CUZK_OK;
}

static int parse(struct cuzk_r1cs *r, const struct cuzk_binfile *bf, char *err, size_t errlen) {
    if (cuzk_binfile_find(bf, 4) != NULL || cuzk_binfile_find(bf, 5) != NULL)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "r1cs: custom gates (sections 4 and 5) are not supported");
    int rc = parse_header(r, bf, err, errlen);
    if (!rc) rc = parse_constraints(r, bf, err, errlen);
    if (!rc) rc = parse_labels(r, bf, err, errlen);
    return rc;
}

static int finish(struct cuzk_r1cs *r, struct cuzk_binfile *bf, int rc, char *err, size_t errlen) {
    if (!rc) rc = parse(r, bf, err, errlen);
    cuzk_binfile_close(bf);
    if (rc) cuzk_r1cs_free(r);
    return rc;
}

int cuzk_r1cs_load(struct cuzk_r1cs *r, const char *path, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_open(&bf, path, "r1cs", CUZK_R1CS_VERSION, err, errlen);
    return finish(r, &bf, rc, err, errlen);
}

int cuzk_r1cs_parse(struct cuzk_r1cs *r, const void *data, size_t size, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_from_mem(&bf, data, size, "r1cs", CUZK_R1CS_VERSION, err, errlen);
    return finish(r, &bf, rc, err, errlen);
}

void cuzk_r1cs_free(struct cuzk_r1cs *r) {
    cuzk_fmt_free(r->lc);
    cuzk_fmt_free(r->wire);
    cuzk_fmt_free(r->coef);
    cuzk_fmt_free(r->label);
    memset(r, 0, sizeof *r);
}

int cuzk_r1cs_to_cs(const struct cuzk_r1cs *r, struct cuzk_cs *cs) {
    int rc = cuzk_cs_init(cs, r->n_wires, cuzk_r1cs_n_public(r));
    if (rc) return rc;
    uint64_t nnz[3] = {0, 0, 0};
    for (size_t lc = 0; lc < 3 * (size_t)r->n_constraints; lc++)
        nnz[lc % 3] += r->lc[lc + 1] - r->lc[lc];
    rc = cuzk_cs_reserve(cs, r->n_constraints, nnz[0], nnz[1], nnz[2]);
    for (uint32_t i = 0; i < r->n_constraints && !rc; i++) {
        rc = cuzk_cs_begin_row(cs);
        for (int m = 0; m < 3 && !rc; m++) {
            size_t lc = 3 * (size_t)i + m;
            for (uint64_t k = r->lc[lc]; k < r->lc[lc + 1] && !rc; k++)
                rc = cuzk_cs_add_term(cs, (enum cuzk_cs_matrix)m, r->wire[k], &r->coef[k]);
        }
        if (!rc) rc = cuzk_cs_end_row(cs);
    }
    if (!rc) rc = cuzk_cs_finish(cs);
    if (rc) cuzk_cs_free(cs);
    return rc;
}
