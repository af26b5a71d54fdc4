/* Fp: the BLS12-381 base field, p = 0x1a0111ea...ffffaaab (381 bits), on six 64-bit limbs.
 *
 * The whole contract (Montgomery form, reduction, aliasing, timing, encodings) is the field
 * template in field_tmpl.h; this header instantiates it as cuzk_fp_* and adds the square
 * root that point decompression needs. Thread-safety: pure functions. */
#ifndef CUZK_FF_FP_H
#define CUZK_FF_FP_H

#include <stddef.h>
#include <stdint.h>

#include "ff/ff_constants.h"
#include "ff/mont.h"
#include "util/rand.h"

#define CUZK_FP_LIMBS 6
#define CUZK_FP_BYTES 48
#define CUZK_FP_DEC_MAX 117 /* decimal digits of p, plus the NUL */

#define CUZK_F_T cuzk_fp
#define CUZK_F(name) cuzk_fp_##name
#define CUZK_F_NL CUZK_FP_LIMBS
#define CUZK_F_MODULUS CUZK_FP_MODULUS
#define CUZK_F_M0INV CUZK_FP_M0INV
#define CUZK_F_R1 CUZK_FP_R1
#define CUZK_F_R2 CUZK_FP_R2
#include "ff/field_tmpl.h"
#undef CUZK_F_T
#undef CUZK_F
#undef CUZK_F_NL
#undef CUZK_F_MODULUS
#undef CUZK_F_M0INV
#undef CUZK_F_R1
#undef CUZK_F_R2

/* r = a square root of a (a^((p+1)/4), p = 3 mod 4). Returns CUZK_OK, or CUZK_ENOSQRT (r
 * unspecified) when a is not a square. Which of the two roots is returned is unspecified;
 * callers pick the sign they need with cuzk_fp_is_lexlarger. */
int cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);

#endif
