/* The optimal ate pairing of BLS12-381, e: G1 x G2 -> GT (the r-th roots of unity in Fp12).
 *
 * Contract: inputs are affine points that the caller has validated (on the curve, in the
 * subgroup; the decoders of ec/encode.h do that); the identity on either side gives 1. The
 * Miller loop runs over |x| = 0xd201000000010000 with x negative (the result is conjugated).
 * The final exponentiation raises to 3 (p^12 - 1)/r, whose hard part is sparse in x; the values
 * are the cubes of the textbook pairing, exactly the values @noble/curves computes. Cubing is a
 * bijection on GT (3 does not divide r), so bilinearity, non-degeneracy and every product
 * check are the same. Variable time (the points are public in every use cuzk makes).
 * No allocation. Thread-safety: pure functions. */
#ifndef CUZK_PAIRING_PAIRING_H
#define CUZK_PAIRING_PAIRING_H

#include <stddef.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp12.h"

/* r = prod_i f_{|x|,Q_i}(P_i), conjugated (the Miller loop value before final exponentiation)
 * for n pairs, sharing the squarings. */
void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n);
/* r = f^(3 (p^12 - 1)/r). */
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f);
/* r = e(p, q). */
void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q);
/* 1 if prod_i e(P_i, Q_i) = 1, with one shared Miller loop and one final exponentiation
 * (the shape of a Groth16 verification). */
int cuzk_pairing_check(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n);

#endif
