/* Fr: the BLS12-381 scalar field, r = 0x73eda753...00000001 (255 bits), on four 64-bit limbs.
 *
 * The whole contract is the field template in field_tmpl.h, instantiated as cuzk_fr_*; this
 * header adds the two-adic roots of unity that NTT domains are built from.
 * Thread-safety: pure functions. */
#ifndef CUZK_FF_FR_H
#define CUZK_FF_FR_H

#include <stddef.h>
#include <stdint.h>

#include "ff/ff_constants.h"
#include "ff/mont.h"
#include "util/rand.h"

#define CUZK_FR_LIMBS 4
#define CUZK_FR_BYTES 32
#define CUZK_FR_DEC_MAX 78 /* decimal digits of r, plus the NUL */

#define CUZK_F_T cuzk_fr
#define CUZK_F(name) cuzk_fr_##name
#define CUZK_F_NL CUZK_FR_LIMBS
#define CUZK_F_MODULUS CUZK_FR_MODULUS
#define CUZK_F_M0INV CUZK_FR_M0INV
#define CUZK_F_R1 CUZK_FR_R1
#define CUZK_F_R2 CUZK_FR_R2
#include "ff/field_tmpl.h"
#undef CUZK_F_T
#undef CUZK_F
#undef CUZK_F_NL
#undef CUZK_F_MODULUS
#undef CUZK_F_M0INV
#undef CUZK_F_R1
#undef CUZK_F_R2

/* r = a primitive 2^k-th root of unity, for 0 <= k <= CUZK_FR_TWO_ADICITY (32). These are the
 * roots snarkjs uses (powers of 5^((r-1)/2^32)), so that cuzk's NTT domains match the Lagrange
 * bases inside .zkey files. Returns CUZK_EINVAL for k out of range. */
int cuzk_fr_root_of_unity(cuzk_fr *r, int k);

/* r = 7, the multiplicative generator used as a coset shift. */
void cuzk_fr_generator(cuzk_fr *r);

#endif
