/* Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates.
 *
 * Contract: an element is c0 + c1*u with both halves fully reduced Montgomery Fp elements
 * (fp.h), so equality is limb equality. Outputs may alias inputs. Functions named _var are
 * variable time; the rest do not branch on values. Thread-safety: pure functions. */
#ifndef CUZK_FF_FP2_H
#define CUZK_FF_FP2_H

#include "ff/fp.h"

typedef struct {
    cuzk_fp c0, c1;
} cuzk_fp2;

CUZK_INLINE void cuzk_fp2_set_zero(cuzk_fp2 *r) {
    cuzk_fp_set_zero(&r->c0);
    cuzk_fp_set_zero(&r->c1);
}
CUZK_INLINE void cuzk_fp2_set_one(cuzk_fp2 *r) {
    cuzk_fp_set_one(&r->c0);
    cuzk_fp_set_zero(&r->c1);
}
CUZK_INLINE int cuzk_fp2_is_zero(const cuzk_fp2 *a) {
    return cuzk_fp_is_zero(&a->c0) & cuzk_fp_is_zero(&a->c1);
}
CUZK_INLINE int cuzk_fp2_is_one(const cuzk_fp2 *a) {
    return cuzk_fp_is_one(&a->c0) & cuzk_fp_is_zero(&a->c1);
}
CUZK_INLINE int cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b) {
    return cuzk_fp_eq(&a->c0, &b->c0) & cuzk_fp_eq(&a->c1, &b->c1);
}
CUZK_INLINE void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    cuzk_fp_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp_add(&r->c1, &a->c1, &b->c1);
}
CUZK_INLINE void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    cuzk_fp_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp_sub(&r->c1, &a->c1, &b->c1);
}
CUZK_INLINE void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp_dbl(&r->c0, &a->c0);
    cuzk_fp_dbl(&r->c1, &a->c1);
}
CUZK_INLINE void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp_neg(&r->c0, &a->c0);
    cuzk_fp_neg(&r->c1, &a->c1);
}
/* r = conj(a) = c0 - c1*u, which is also the Frobenius map a^p. */
CUZK_INLINE void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a) {
    r->c0 = a->c0;
    cuzk_fp_neg(&r->c1, &a->c1);
}
CUZK_INLINE void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b) {
    cuzk_fp_mul(&r->c0, &a->c0, b);
    cuzk_fp_mul(&r->c1, &a->c1, b);
}
CUZK_INLINE void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *a, int c) {
    cuzk_fp_cmov(&r->c0, &a->c0, c);
    cuzk_fp_cmov(&r->c1, &a->c1, c);
}

void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a);
/* r = a * (u + 1), the non-residue that builds Fp6. */
void cuzk_fp2_mul_nr(cuzk_fp2 *r, const cuzk_fp2 *a);
/* r = 1/a (1/0 = 0); constant time, and a faster variable-time twin. */
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a);
/* out[i] = 1/in[i] with one inversion; zeros map to zero; out and in must not overlap. */
void cuzk_fp2_batch_inv(cuzk_fp2 *out, const cuzk_fp2 *in, size_t n);
/* r = a^e, e of elimbs little-endian limbs (public). */
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, int elimbs);
/* r = a square root of a; CUZK_ENOSQRT if there is none. Which root is unspecified. */
int cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a);
/* The zcash "lexicographically largest" rule: c1 > (p-1)/2, or c1 = 0 and c0 > (p-1)/2. */
int cuzk_fp2_is_lexlarger(const cuzk_fp2 *a);
int cuzk_fp2_random(cuzk_fp2 *r, struct cuzk_rng *rng);

#endif
