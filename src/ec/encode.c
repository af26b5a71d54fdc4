#include "ec/encode.h"

#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"

enum { FLAG_C = 0x80, FLAG_I = 0x40, FLAG_S = 0x20, FLAG_MASK = 0xe0 };

/* 1 if buf[0..n) is zero once the flag bits of buf[0] are ignored. */
static int zero_but_flags(const uint8_t *buf, size_t n) {
    uint8_t acc = buf[0] & (uint8_t)~FLAG_MASK;
    for (size_t i = 1; i < n; i++) acc |= buf[i];
    return acc == 0;
}

/* Parses a big-endian Fp from 48 bytes whose flag bits (when first) are masked off. */
static int fp_from_be_masked(cuzk_fp *r, const uint8_t *in, int mask_flags) {
    uint8_t b[CUZK_FP_BYTES];
    memcpy(b, in, sizeof b);
    if (mask_flags) b[0] &= (uint8_t)~FLAG_MASK;
    return cuzk_fp_from_bytes_be(r, b);
}

static int g1_finish(cuzk_g1_affine *out, const cuzk_g1_affine *p, enum cuzk_point_check c) {
    if (!cuzk_g1_affine_is_on_curve(p)) return CUZK_ENOTONCURVE;
    if (c != CUZK_CHECK_NO_SUBGROUP && !cuzk_g1_affine_is_in_subgroup(p))
        return CUZK_ENOTINSUBGROUP;
    *out = *p;
    return CUZK_OK;
}

static int g2_finish(cuzk_g2_affine *out, const cuzk_g2_affine *p, enum cuzk_point_check c) {
    if (!cuzk_g2_affine_is_on_curve(p)) return CUZK_ENOTONCURVE;
    if (c != CUZK_CHECK_NO_SUBGROUP && !cuzk_g2_affine_is_in_subgroup(p))
        return CUZK_ENOTINSUBGROUP;
    *out = *p;
    return CUZK_OK;
}

/* ---- zcash G1 ----------------------------------------------------------------------------- */

void cuzk_g1_to_compressed(uint8_t out[CUZK_G1_COMPRESSED], const cuzk_g1_affine *p) {
    if (cuzk_g1_affine_is_inf(p)) {
        memset(out, 0, CUZK_G1_COMPRESSED);
        out[0] = FLAG_C | FLAG_I;
        return;
    }
    cuzk_fp_to_bytes_be(out, &p->x);
    out[0] |= FLAG_C;
    if (cuzk_fp_is_lexlarger(&p->y)) out[0] |= FLAG_S;
}

void cuzk_g1_to_uncompressed(uint8_t out[CUZK_G1_UNCOMPRESSED], const cuzk_g1_affine *p) {
    if (cuzk_g1_affine_is_inf(p)) {
        memset(out, 0, CUZK_G1_UNCOMPRESSED);
        out[0] = FLAG_I;
        return;
    }
    cuzk_fp_to_bytes_be(out, &p->x);
    cuzk_fp_to_bytes_be(out + CUZK_FP_BYTES, &p->y);
}

/* Common flag rules; returns 1 (and sets the identity) when the encoding is the identity. */
static int check_flags(const uint8_t *in, size_t n, int compressed, int *is_inf, int *sort) {
    uint8_t f = in[0];
    if (!!(f & FLAG_C) != compressed) return CUZK_EFLAGS;
    *sort = !!(f & FLAG_S);
    *is_inf = !!(f & FLAG_I);
    if (*is_inf) {
        if (*sort || !zero_but_flags(in, n)) return CUZK_EFLAGS;
    } else if (!compressed && *sort) {
        return CUZK_EFLAGS;
    }
    return CUZK_OK;
}

int cuzk_g1_from_compressed(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_COMPRESSED]) {
    return cuzk_g1_from_compressed_ex(out, in, CUZK_CHECK_ALL);
}

int cuzk_g1_from_compressed_ex(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_COMPRESSED],
                               enum cuzk_point_check c) {
    int inf, sort, err = check_flags(in, CUZK_G1_COMPRESSED, 1, &inf, &sort);
    if (err) return err;
    if (inf) {
        cuzk_g1_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g1_affine p;
    if ((err = fp_from_be_masked(&p.x, in, 1))) return err;
    static const cuzk_fp b = CUZK_G1_B;
    cuzk_fp rhs;
    cuzk_fp_sqr(&rhs, &p.x);
    cuzk_fp_mul(&rhs, &rhs, &p.x);
    cuzk_fp_add(&rhs, &rhs, &b);
    if (cuzk_fp_sqrt(&p.y, &rhs)) return CUZK_ENOTONCURVE;
    if (cuzk_fp_is_lexlarger(&p.y) != sort) cuzk_fp_neg(&p.y, &p.y);
    return g1_finish(out, &p, c);
}

int cuzk_g1_from_uncompressed(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_UNCOMPRESSED]) {
    return cuzk_g1_from_uncompressed_ex(out, in, CUZK_CHECK_ALL);
}

int cuzk_g1_from_uncompressed_ex(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_UNCOMPRESSED],
                                 enum cuzk_point_check c) {
    int inf, sort, err = check_flags(in, CUZK_G1_UNCOMPRESSED, 0, &inf, &sort);
    if (err) return err;
    if (inf) {
        cuzk_g1_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g1_affine p;
    if ((err = fp_from_be_masked(&p.x, in, 1))) return err;
    if ((err = fp_from_be_masked(&p.y, in + CUZK_FP_BYTES, 0))) return err;
    return g1_finish(out, &p, c);
}

/* ---- zcash G2 ----------------------------------------------------------------------------- */

static void fp2_to_be(uint8_t *out, const cuzk_fp2 *a) {
    cuzk_fp_to_bytes_be(out, &a->c1);
    cuzk_fp_to_bytes_be(out + CUZK_FP_BYTES, &a->c0);
}

static int fp2_from_be(cuzk_fp2 *r, const uint8_t *in, int mask_flags) {
    int err = fp_from_be_masked(&r->c1, in, mask_flags);
    return err ? err : fp_from_be_masked(&r->c0, in + CUZK_FP_BYTES, 0);
}

void cuzk_g2_to_compressed(uint8_t out[CUZK_G2_COMPRESSED], const cuzk_g2_affine *p) {
    if (cuzk_g2_affine_is_inf(p)) {
        memset(out, 0, CUZK_G2_COMPRESSED);
        out[0] = FLAG_C | FLAG_I;
        return;
    }
    fp2_to_be(out, &p->x);
    out[0] |= FLAG_C;
    if (cuzk_fp2_is_lexlarger(&p->y)) out[0] |= FLAG_S;
}

void cuzk_g2_to_uncompressed(uint8_t out[CUZK_G2_UNCOMPRESSED], const cuzk_g2_affine *p) {
    if (cuzk_g2_affine_is_inf(p)) {
        memset(out, 0, CUZK_G2_UNCOMPRESSED);
        out[0] = FLAG_I;
        return;
    }
    fp2_to_be(out, &p->x);
    fp2_to_be(out + 2 * CUZK_FP_BYTES, &p->y);
}

int cuzk_g2_from_compressed(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_COMPRESSED]) {
    return cuzk_g2_from_compressed_ex(out, in, CUZK_CHECK_ALL);
}

int cuzk_g2_from_compressed_ex(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_COMPRESSED],
                               enum cuzk_point_check c) {
    int inf, sort, err = check_flags(in, CUZK_G2_COMPRESSED, 1, &inf, &sort);
    if (err) return err;
    if (inf) {
        cuzk_g2_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g2_affine p;
    if ((err = fp2_from_be(&p.x, in, 1))) return err;
    static const cuzk_fp2 b = CUZK_G2_B;
    cuzk_fp2 rhs;
    cuzk_fp2_sqr(&rhs, &p.x);
    cuzk_fp2_mul(&rhs, &rhs, &p.x);
    cuzk_fp2_add(&rhs, &rhs, &b);
    if (cuzk_fp2_sqrt(&p.y, &rhs)) return CUZK_ENOTONCURVE;
    if (cuzk_fp2_is_lexlarger(&p.y) != sort) cuzk_fp2_neg(&p.y, &p.y);
    return g2_finish(out, &p, c);
}

int cuzk_g2_from_uncompressed(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_UNCOMPRESSED]) {
    return cuzk_g2_from_uncompressed_ex(out, in, CUZK_CHECK_ALL);
}

int cuzk_g2_from_uncompressed_ex(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_UNCOMPRESSED],
                                 enum cuzk_point_check c) {
    int inf, sort, err = check_flags(in, CUZK_G2_UNCOMPRESSED, 0, &inf, &sort);
    if (err) return err;
    if (inf) {
        cuzk_g2_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g2_affine p;
    if ((err = fp2_from_be(&p.x, in, 1))) return err;
    if ((err = fp2_from_be(&p.y, in + 2 * CUZK_FP_BYTES, 0))) return err;
    return g2_finish(out, &p, c);
}

/* ---- snarkjs LEM -------------------------------------------------------------------------- */

static int all_zero(const uint8_t *buf, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= buf[i];
    return acc == 0;
}

void cuzk_g1_to_lem(uint8_t out[CUZK_G1_LEM], const cuzk_g1_affine *p) {
    cuzk_fp_to_mont_le(out, &p->x); /* the identity (0, 0) writes zeros */
    cuzk_fp_to_mont_le(out + CUZK_FP_BYTES, &p->y);
}

int cuzk_g1_from_lem(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_LEM], enum cuzk_point_check c) {
    if (all_zero(in, CUZK_G1_LEM)) {
        cuzk_g1_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g1_affine p;
    int err = cuzk_fp_from_mont_le(&p.x, in);
    if (!err) err = cuzk_fp_from_mont_le(&p.y, in + CUZK_FP_BYTES);
    return err ? err : g1_finish(out, &p, c);
}

void cuzk_g2_to_lem(uint8_t out[CUZK_G2_LEM], const cuzk_g2_affine *p) {
    const cuzk_fp *c[4] = {&p->x.c0, &p->x.c1, &p->y.c0, &p->y.c1};
    for (int i = 0; i < 4; i++) cuzk_fp_to_mont_le(out + i * CUZK_FP_BYTES, c[i]);
}

int cuzk_g2_from_lem(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_LEM], enum cuzk_point_check c) {
    if (all_zero(in, CUZK_G2_LEM)) {
        cuzk_g2_affine_set_inf(out);
        return CUZK_OK;
    }
    cuzk_g2_affine p;
    cuzk_fp *dst[4] = {&p.x.c0, &p.x.c1, &p.y.c0, &p.y.c1};
    for (int i = 0; i < 4; i++) {
        int err = cuzk_fp_from_mont_le(dst[i], in + i * CUZK_FP_BYTES);
        if (err) return err;
    }
    return g2_finish(out, &p, c);
}

/* ---- decimal ------------------------------------------------------------------------------ */

int cuzk_g1_from_dec(cuzk_g1_affine *out, const char *const xyz[3]) {
    cuzk_g1 j;
    int err;
    if ((err = cuzk_fp_from_dec(&j.x, xyz[0])) || (err = cuzk_fp_from_dec(&j.y, xyz[1])) ||
        (err = cuzk_fp_from_dec(&j.z, xyz[2])))
        return err;
    cuzk_g1_affine p;
    cuzk_g1_to_affine(&p, &j); /* z = 0 gives the identity, z = 1 the point itself */
    return g1_finish(out, &p, CUZK_CHECK_ALL);
}

int cuzk_g2_from_dec(cuzk_g2_affine *out, const char *const xyz[6]) {
    cuzk_g2 j;
    cuzk_fp *dst[6] = {&j.x.c0, &j.x.c1, &j.y.c0, &j.y.c1, &j.z.c0, &j.z.c1};
    for (int i = 0; i < 6; i++) {
        int err = cuzk_fp_from_dec(dst[i], xyz[i]);
        if (err) return err;
    }
    cuzk_g2_affine p;
    cuzk_g2_to_affine(&p, &j);
    return g2_finish(out, &p, CUZK_CHECK_ALL);
}

static void fp_dec(char *buf, const cuzk_fp *a) { (void)cuzk_fp_to_dec(buf, CUZK_FP_DEC_MAX, a); }

void cuzk_g1_to_dec(char xyz[3][CUZK_FP_DEC_MAX], const cuzk_g1_affine *p) {
    int inf = cuzk_g1_affine_is_inf(p);
    fp_dec(xyz[0], &p->x);
    if (inf)
        strcpy(xyz[1], "1");
    else
        fp_dec(xyz[1], &p->y);
    strcpy(xyz[2], inf ? "0" : "1");
}

void cuzk_g2_to_dec(char xyz[6][CUZK_FP_DEC_MAX], const cuzk_g2_affine *p) {
    int inf = cuzk_g2_affine_is_inf(p);
    fp_dec(xyz[0], &p->x.c0);
    fp_dec(xyz[1], &p->x.c1);
    if (inf) {
        strcpy(xyz[2], "1");
        strcpy(xyz[3], "0");
    } else {
        fp_dec(xyz[2], &p->y.c0);
        fp_dec(xyz[3], &p->y.c1);
    }
    strcpy(xyz[4], inf ? "0" : "1");
    strcpy(xyz[5], "0");
}
