#include "pairing/pairing.h"

#include "ec/ec_constants.h"

/* Line functions. With T on the twist in Jacobian coordinates and P = (xp, yp) in G1, the
 * line through T (tangent) or through T and Q, untwisted and multiplied by w^3 and by an Fp2
 * factor (both vanish in the final exponentiation), is d0 + d1 xp v + d4 yp v w: the sparse
 * shape cuzk_fp12_mul_014 takes. The step functions return (d0, d1, d4) and advance T. */
struct line {
    cuzk_fp2 d0, d1, d4;
};

static void dbl_step(struct line *l, cuzk_g2 *t) {
    /* slope 3X^2 / (2YZ); scaled by 2YZ^3: d0 = 3X^3 - 2Y^2, d1 = -3X^2 Z^2, d4 = 2YZ^3 */
    cuzk_fp2 a, b, c, d, e, f, z2, s;
    cuzk_fp2_sqr(&a, &t->x);
    cuzk_fp2_sqr(&b, &t->y);
    cuzk_fp2_sqr(&c, &b);
    cuzk_fp2_sqr(&z2, &t->z);
    cuzk_fp2_dbl(&e, &a);
    cuzk_fp2_add(&e, &e, &a); /* 3X^2 */

    cuzk_fp2_mul(&l->d0, &e, &t->x);
    cuzk_fp2_dbl(&s, &b);
    cuzk_fp2_sub(&l->d0, &l->d0, &s);
    cuzk_fp2_mul(&l->d1, &e, &z2);
    cuzk_fp2_neg(&l->d1, &l->d1);

    cuzk_fp2_add(&d, &t->x, &b); /* dbl-2009-l */
    cuzk_fp2_sqr(&d, &d);
    cuzk_fp2_sub(&d, &d, &a);
    cuzk_fp2_sub(&d, &d, &c);
    cuzk_fp2_dbl(&d, &d);
    cuzk_fp2_sqr(&f, &e);
    cuzk_fp2_mul(&t->z, &t->y, &t->z);
    cuzk_fp2_dbl(&t->z, &t->z);
    cuzk_fp2_dbl(&s, &d);
    cuzk_fp2_sub(&t->x, &f, &s);
    cuzk_fp2_sub(&s, &d, &t->x);
    cuzk_fp2_mul(&s, &e, &s);
    cuzk_fp2_dbl(&c, &c);
    cuzk_fp2_dbl(&c, &c);
    cuzk_fp2_dbl(&c, &c);
    cuzk_fp2_sub(&t->y, &s, &c);

    cuzk_fp2_mul(&l->d4, &t->z, &z2); /* 2YZ * Z^2 */
}

static void add_step(struct line *l, cuzk_g2 *t, const cuzk_g2_affine *q) {
    /* slope N / D with N = yq Z^3 - Y, D = (xq Z^2 - X) Z; scaled by D:
     * d0 = N xq - yq D, d1 = -N, d4 = D, and D is also the new Z */
    cuzk_fp2 z2, u2, s2, h, n, hh, hhh, v, s;
    cuzk_fp2_sqr(&z2, &t->z);
    cuzk_fp2_mul(&u2, &q->x, &z2);
    cuzk_fp2_mul(&s2, &q->y, &t->z);
    cuzk_fp2_mul(&s2, &s2, &z2);
    cuzk_fp2_sub(&h, &u2, &t->x);
    cuzk_fp2_sub(&n, &s2, &t->y);

    cuzk_fp2_sqr(&hh, &h);
    cuzk_fp2_mul(&hhh, &hh, &h);
    cuzk_fp2_mul(&v, &t->x, &hh);
    cuzk_fp2_mul(&t->z, &t->z, &h);
    cuzk_fp2_sqr(&t->x, &n);
    cuzk_fp2_sub(&t->x, &t->x, &hhh);
    cuzk_fp2_sub(&t->x, &t->x, &v);
    cuzk_fp2_sub(&t->x, &t->x, &v);
    cuzk_fp2_mul(&s, &t->y, &hhh);
    cuzk_fp2_sub(&v, &v, &t->x);
    cuzk_fp2_mul(&v, &n, &v);
    cuzk_fp2_sub(&t->y, &v, &s);

    cuzk_fp2_mul(&l->d0, &n, &q->x);
    cuzk_fp2_mul(&s, &q->y, &t->z);
    cuzk_fp2_sub(&l->d0, &l->d0, &s);
    cuzk_fp2_neg(&l->d1, &n);
    l->d4 = t->z;
}

static void ell(cuzk_fp12 *f, const struct line *l, const cuzk_g1_affine *p) {
    cuzk_fp2 d1, d4;
    cuzk_fp2_mul_fp(&d1, &l->d1, &p->x);
    cuzk_fp2_mul_fp(&d4, &l->d4, &p->y);
    cuzk_fp12_mul_014(f, f, &l->d0, &d1, &d4);
}

/* The Miller loop keeps at most this many pairs' running points at once; more pairs are
 * processed in chunks whose results are multiplied. Groth16 verification uses 3 or 4. */
#define MILLER_CHUNK 8

static void miller_chunk(cuzk_fp12 *f, const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n) {
    cuzk_g2 t[MILLER_CHUNK];
    size_t idx[MILLER_CHUNK], m = 0;
    for (size_t i = 0; i < n; i++) {
        if (cuzk_g1_affine_is_inf(&p[i]) || cuzk_g2_affine_is_inf(&q[i])) continue;
        cuzk_g2_from_affine(&t[m], &q[i]);
        idx[m++] = i;
    }
    cuzk_fp12_set_one(f);
    struct line l;
    for (int bit = 62; bit >= 0; bit--) {
        cuzk_fp12_sqr(f, f);
        for (size_t j = 0; j < m; j++) {
            dbl_step(&l, &t[j]);
            ell(f, &l, &p[idx[j]]);
        }
        if ((CUZK_BLS_X_ABS >> bit) & 1) {
            for (size_t j = 0; j < m; j++) {
                add_step(&l, &t[j], &q[idx[j]]);
                ell(f, &l, &p[idx[j]]);
            }
        }
    }
    cuzk_fp12_conj(f, f); /* x < 0 */
}

void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n) {
    cuzk_fp12 acc, part;
    cuzk_fp12_set_one(&acc);
    for (size_t i = 0; i < n; i += MILLER_CHUNK) {
        size_t k = n - i < MILLER_CHUNK ? n - i : MILLER_CHUNK;
        miller_chunk(&part, p + i, q + i, k);
        cuzk_fp12_mul(&acc, &acc, &part);
    }
    *r = acc;
}

/* r = a^e for a in the cyclotomic subgroup and e of elimbs limbs (public). */
static void cyclotomic_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, int elimbs) {
    int top = elimbs * 64 - 1;
    while (top >= 0 && !((e[top / 64] >> (top % 64)) & 1)) top--;
    if (top < 0) {
        cuzk_fp12_set_one(r);
        return;
    }
    cuzk_fp12 acc = *a;
    for (int i = top - 1; i >= 0; i--) {
        cuzk_fp12_cyclotomic_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) cuzk_fp12_mul(&acc, &acc, a);
    }
    *r = acc;
}

/* r = a^x = conj(a^|x|) (x < 0, and conj inverts in the cyclotomic subgroup). */
static void cyclotomic_pow_x(cuzk_fp12 *r, const cuzk_fp12 *a) {
    static const uint64_t x_abs[1] = {CUZK_BLS_X_ABS};
    cyclotomic_pow(r, a, x_abs, 1);
    cuzk_fp12_conj(r, r);
}

void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f) {
    /* easy part: f^((p^6 - 1)(p^2 + 1)) */
    cuzk_fp12 t, inv, u, v;
    cuzk_fp12_inv_var(&inv, f);
    cuzk_fp12_conj(&t, f);
    cuzk_fp12_mul(&t, &t, &inv);
    cuzk_fp12_frobenius(&u, &t, 2);
    cuzk_fp12_mul(&t, &u, &t);

    /* hard part, cubed: 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 */
    cyclotomic_pow_x(&u, &t); /* u = t^(x - 1), twice */
    cuzk_fp12_conj(&v, &t);
    cuzk_fp12_mul(&u, &u, &v);
    cyclotomic_pow_x(&inv, &u);
    cuzk_fp12_conj(&u, &u);
    cuzk_fp12_mul(&u, &inv, &u);
    cyclotomic_pow_x(&v, &u); /* u = u^(x + p) */
    cuzk_fp12_frobenius(&u, &u, 1);
    cuzk_fp12_mul(&u, &v, &u);
    cyclotomic_pow_x(&v, &u); /* u = u^(x^2 + p^2 - 1) */
    cyclotomic_pow_x(&v, &v);
    cuzk_fp12_frobenius(&inv, &u, 2);
    cuzk_fp12_mul(&v, &v, &inv);
    cuzk_fp12_conj(&u, &u);
    cuzk_fp12_mul(&u, &v, &u);
    cuzk_fp12_cyclotomic_sqr(&v, &t); /* times t^3 */
    cuzk_fp12_mul(&v, &v, &t);
    cuzk_fp12_mul(r, &u, &v);
}

void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q) {
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, 1);
    cuzk_final_exp(r, &f);
}

int cuzk_pairing_check(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n) {
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, n);
    cuzk_final_exp(&f, &f);
    return cuzk_fp12_is_one(&f);
}
