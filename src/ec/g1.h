/* G1: the r-order subgroup of E(Fp): y^2 = x^3 + 4, the curve of most Groth16 points.
 *
 * The contract is the group template in ec_tmpl.h, instantiated as cuzk_g1_* on Fp
 * coordinates (cuzk_g1 Jacobian, cuzk_g1_affine). Thread-safety: pure functions. */
#ifndef CUZK_EC_G1_H
#define CUZK_EC_G1_H

#include "ff/fp.h"

#define CUZK_E(name) cuzk_g1_##name
#define CUZK_E_T cuzk_g1
#define CUZK_E_AFF cuzk_g1_affine
#define CUZK_E_FT cuzk_fp
#include "ec/ec_tmpl.h"
#undef CUZK_E
#undef CUZK_E_T
#undef CUZK_E_AFF
#undef CUZK_E_FT

#endif
