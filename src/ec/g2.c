#include "ec/g2.h"

#include "ec/ec_constants.h"

#define CUZK_E(name) cuzk_g2_##name
#define CUZK_E_T cuzk_g2
#define CUZK_E_AFF cuzk_g2_affine
#define CUZK_E_FT cuzk_fp2
#define CUZK_E_FF(name) cuzk_fp2_##name
#define CUZK_E_B CUZK_G2_B
#define CUZK_E_GEN_X CUZK_G2_GEN_X
#define CUZK_E_GEN_Y CUZK_G2_GEN_Y
#include "ec/ec_impl.h"

void cuzk_g2_psi(cuzk_g2 *r, const cuzk_g2 *p) {
    /* on Jacobian coordinates conj commutes with the divisions by Z^2 and Z^3 */
    static const cuzk_fp2 cx = CUZK_G2_PSI_X, cy = CUZK_G2_PSI_Y;
    cuzk_fp2_conj(&r->x, &p->x);
    cuzk_fp2_mul(&r->x, &r->x, &cx);
    cuzk_fp2_conj(&r->y, &p->y);
    cuzk_fp2_mul(&r->y, &r->y, &cy);
    cuzk_fp2_conj(&r->z, &p->z);
}

int cuzk_g2_is_in_subgroup(const cuzk_g2 *p) {
    /* psi(P) = x P holds exactly on G2 for BLS12 twists (Scott 2021); x < 0, so check
     * psi(P) + |x| P = 0. */
    cuzk_g2 psi, t;
    cuzk_g2_psi(&psi, p);
    cuzk_g2_mul_by_x_abs(&t, p);
    cuzk_g2_add(&t, &t, &psi);
    return cuzk_g2_is_inf(&t);
}
