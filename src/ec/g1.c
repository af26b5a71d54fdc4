#include "ec/g1.h"

#include "ec/ec_constants.h"

#define CUZK_E(name) cuzk_g1_##name
#define CUZK_E_T cuzk_g1
#define CUZK_E_AFF cuzk_g1_affine
#define CUZK_E_FT cuzk_fp
#define CUZK_E_FF(name) cuzk_fp_##name
#define CUZK_E_B CUZK_G1_B
#define CUZK_E_GEN_X CUZK_G1_GEN_X
#define CUZK_E_GEN_Y CUZK_G1_GEN_Y
#include "ec/ec_impl.h"

int cuzk_g1_is_in_subgroup(const cuzk_g1 *p) {
    /* phi(x, y) = (beta x, y) acts as [-x^2] on G1, and for BLS12-381 the converse holds on
     * E(Fp): a point with phi(P) = -x^2 P is in G1 (Scott, "A note on group membership tests
     * for G1, G2 and GT on BLS pairing-friendly curves", 2021). */
    static const cuzk_fp beta = CUZK_G1_BETA;
    cuzk_g1 phi, t;
    phi = *p;
    cuzk_fp_mul(&phi.x, &phi.x, &beta);
    cuzk_g1_mul_by_x_abs(&t, p);
    cuzk_g1_mul_by_x_abs(&t, &t);
    cuzk_g1_add(&t, &t, &phi); /* x^2 P + phi(P) must be the identity */
    return cuzk_g1_is_inf(&t);
}
