/* Fp6 = Fp2[v]/(v^3 - (u + 1)) and Fp12 = Fp6[w]/(w^2 - v): the BLS12-381 tower, where pairing
 * values live.
 *
 * Contract: elements are built from fully reduced Fp2 elements (fp2.h): Fp6 is c0 + c1 v +
 * c2 v^2 and Fp12 is c0 + c1 w. The sparse products take the shape of the Miller loop's line
 * functions. Cyclotomic squaring is only valid for elements of the cyclotomic subgroup (after
 * the easy part of the final exponentiation); the caller guarantees that. Outputs may alias
 * inputs. Thread-safety: pure functions. */
#ifndef CUZK_FF_FP12_H
#define CUZK_FF_FP12_H

#include "ff/fp2.h"

typedef struct {
    cuzk_fp2 c0, c1, c2;
} cuzk_fp6;

typedef struct {
    cuzk_fp6 c0, c1;
} cuzk_fp12;

void cuzk_fp6_set_zero(cuzk_fp6 *r);
void cuzk_fp6_set_one(cuzk_fp6 *r);
int cuzk_fp6_is_zero(const cuzk_fp6 *a);
int cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * v */
void cuzk_fp6_mul_nr(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * (b0 + b1 v) and r = a * (b1 v): the sparse products of line evaluation. */
void cuzk_fp6_mul_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
void cuzk_fp6_mul_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* r = 1/a (1/0 = 0), variable time. */
void cuzk_fp6_inv_var(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a^(p^k) for 0 <= k < 12. */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, int k);

void cuzk_fp12_set_one(cuzk_fp12 *r);
int cuzk_fp12_is_one(const cuzk_fp12 *a);
int cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a * (d0 + d1 v + d4 v w): the shape of one Miller loop line. */
void cuzk_fp12_mul_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *d0, const cuzk_fp2 *d1,
                       const cuzk_fp2 *d4);
/* r = 1/a (1/0 = 0), variable time. */
void cuzk_fp12_inv_var(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = c0 - c1 w, which is a^(p^6), and 1/a for elements of the cyclotomic subgroup. */
void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^(p^k) for 0 <= k < 12. */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, int k);
/* r = a^2 for a in the cyclotomic subgroup (Granger-Scott), cheaper than cuzk_fp12_sqr. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^e, e of elimbs little-endian limbs (public). */
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, int elimbs);
int cuzk_fp12_random(cuzk_fp12 *r, struct cuzk_rng *rng);

#endif
