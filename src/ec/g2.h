/* G2: the r-order subgroup of the sextic M-twist E'(Fp2): y^2 = x^3 + 4(u + 1).
 *
 * The contract is the group template in ec_tmpl.h, instantiated as cuzk_g2_* on Fp2
 * coordinates (cuzk_g2 Jacobian, cuzk_g2_affine). Thread-safety: pure functions. */
#ifndef CUZK_EC_G2_H
#define CUZK_EC_G2_H

#include "ff/fp2.h"

#define CUZK_E(name) cuzk_g2_##name
#define CUZK_E_T cuzk_g2
#define CUZK_E_AFF cuzk_g2_affine
#define CUZK_E_FT cuzk_fp2
#include "ec/ec_tmpl.h"
#undef CUZK_E
#undef CUZK_E_T
#undef CUZK_E_AFF
#undef CUZK_E_FT

/* r = psi(p) = untwist-Frobenius-twist, which acts on G2 as multiplication by x. */
void cuzk_g2_psi(cuzk_g2 *r, const cuzk_g2 *p);

#endif
