#include "ff/fp2.h"

#include "cuzk/error.h"

void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    /* Karatsuba: three base multiplications */
    cuzk_fp t0, t1, sa, sb;
    cuzk_fp_mul(&t0, &a->c0, &b->c0);
    cuzk_fp_mul(&t1, &a->c1, &b->c1);
    cuzk_fp_add(&sa, &a->c0, &a->c1);
    cuzk_fp_add(&sb, &b->c0, &b->c1);
    cuzk_fp_mul(&sa, &sa, &sb);
    cuzk_fp_sub(&r->c0, &t0, &t1);
    cuzk_fp_sub(&sa, &sa, &t0);
    cuzk_fp_sub(&r->c1, &sa, &t1);
}

void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a) {
    /* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u */
    cuzk_fp s, d, m;
    cuzk_fp_add(&s, &a->c0, &a->c1);
    cuzk_fp_sub(&d, &a->c0, &a->c1);
    cuzk_fp_mul(&m, &a->c0, &a->c1);
    cuzk_fp_mul(&r->c0, &s, &d);
    cuzk_fp_dbl(&r->c1, &m);
}

void cuzk_fp2_mul_nr(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp t;
    cuzk_fp_sub(&t, &a->c0, &a->c1);
    cuzk_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

/* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2), with the base inversion chosen by the caller. */
static void fp2_inv_with(cuzk_fp2 *r, const cuzk_fp2 *a, void (*inv)(cuzk_fp *, const cuzk_fp *)) {
    cuzk_fp n, t;
    cuzk_fp_sqr(&n, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&n, &n, &t);
    inv(&n, &n);
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&t, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &t);
}

void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_inv_with(r, a, cuzk_fp_inv); }
void cuzk_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_inv_with(r, a, cuzk_fp_inv_var); }

void cuzk_fp2_batch_inv(cuzk_fp2 *out, const cuzk_fp2 *in, size_t n) {
    if (n == 0) return;
    cuzk_fp2 acc;
    cuzk_fp2_set_one(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!cuzk_fp2_is_zero(&in[i])) cuzk_fp2_mul(&acc, &acc, &in[i]);
    }
    cuzk_fp2_inv_var(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cuzk_fp2_is_zero(&in[i])) {
            cuzk_fp2_set_zero(&out[i]);
            continue;
        }
        cuzk_fp2 t;
        cuzk_fp2_mul(&t, &acc, &out[i]);
        cuzk_fp2_mul(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, int elimbs) {
    cuzk_fp2 acc, base = *a;
    cuzk_fp2_set_one(&acc);
    for (int i = elimbs * 64 - 1; i >= 0; i--) {
        cuzk_fp2_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) cuzk_fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

int cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a) {
    /* Square roots in Fp2 for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root
     * computation over even extension fields", algorithm 9). */
    static const uint64_t p34[CUZK_FP_LIMBS] = CUZK_FP_P34_EXP; /* (p-3)/4 */
    static const uint64_t half[CUZK_FP_LIMBS] = CUZK_FP_HALF;   /* (p-1)/2 */
    cuzk_fp2 a1, alpha, norm, x0, x, minus_one, chk;
    cuzk_fp2_pow(&a1, a, p34, CUZK_FP_LIMBS);
    cuzk_fp2_mul(&x0, &a1, a);      /* a^((p+1)/4) */
    cuzk_fp2_mul(&alpha, &a1, &x0); /* a^((p-1)/2) */
    cuzk_fp2_conj(&norm, &alpha);
    cuzk_fp2_mul(&norm, &norm, &alpha);
    cuzk_fp2_set_one(&minus_one);
    cuzk_fp2_neg(&minus_one, &minus_one);
    if (cuzk_fp2_eq(&norm, &minus_one)) return CUZK_ENOSQRT;
    if (cuzk_fp2_eq(&alpha, &minus_one)) {
        /* x = u * x0 */
        cuzk_fp_neg(&x.c0, &x0.c1);
        x.c1 = x0.c0;
    } else {
        cuzk_fp2 b;
        cuzk_fp2_set_one(&b);
        cuzk_fp2_add(&b, &b, &alpha);
        cuzk_fp2_pow(&b, &b, half, CUZK_FP_LIMBS);
        cuzk_fp2_mul(&x, &b, &x0);
    }
    cuzk_fp2_sqr(&chk, &x);
    if (!cuzk_fp2_eq(&chk, a)) return CUZK_ENOSQRT;
    *r = x;
    return CUZK_OK;
}

int cuzk_fp2_is_lexlarger(const cuzk_fp2 *a) {
    if (!cuzk_fp_is_zero(&a->c1)) return cuzk_fp_is_lexlarger(&a->c1);
    return cuzk_fp_is_lexlarger(&a->c0);
}

int cuzk_fp2_random(cuzk_fp2 *r, struct cuzk_rng *rng) {
    int err = cuzk_fp_random(&r->c0, rng);
    return err ? err : cuzk_fp_random(&r->c1, rng);
}
