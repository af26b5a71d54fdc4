/* Pairing properties on random inputs (seeded): bilinearity e(aP, bQ) = e(P, Q)^(ab),
 * non-degeneracy, e(P, Q)^r = 1, identities, and the multi-pairing check used by Groth16
 * verification. Known values from an independent implementation are in test_kat.c. */
#include "cuzk/error.h"
#include "ff/fr.h"
#include "pairing/pairing.h"
#include "test_util.h"

static void scalar(cuzk_fr *s, uint64_t k[4]) {
    cuzk_fr_random(s, &test_rng);
    cuzk_fr_to_canonical(k, s);
}

int main(void) {
    test_init("test_pairing");
    static const uint64_t r_limbs[4] = CUZK_FR_MODULUS;
    cuzk_g1_affine g1, p, inf1;
    cuzk_g2_affine g2, q, inf2;
    cuzk_g1 pj;
    cuzk_g2 qj;
    cuzk_fp12 e, e2, t;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    cuzk_g1_affine_set_inf(&inf1);
    cuzk_g2_affine_set_inf(&inf2);

    cuzk_pairing(&e, &g1, &g2);
    CHECK(!cuzk_fp12_is_one(&e)); /* non-degenerate */
    cuzk_fp12_pow(&t, &e, r_limbs, 4);
    CHECK(cuzk_fp12_is_one(&t)); /* in GT */
    cuzk_pairing(&t, &inf1, &g2);
    CHECK(cuzk_fp12_is_one(&t));
    cuzk_pairing(&t, &g1, &inf2);
    CHECK(cuzk_fp12_is_one(&t));

    for (int i = 0; i < 20; i++) {
        cuzk_fr a, b, ab;
        uint64_t ka[4], kb[4], kab[4];
        scalar(&a, ka);
        scalar(&b, kb);
        cuzk_fr_mul(&ab, &a, &b);
        cuzk_fr_to_canonical(kab, &ab);
        cuzk_g1_from_affine(&pj, &g1);
        cuzk_g1_mul_var(&pj, &pj, ka, 4);
        cuzk_g1_to_affine(&p, &pj);
        cuzk_g2_from_affine(&qj, &g2);
        cuzk_g2_mul_var(&qj, &qj, kb, 4);
        cuzk_g2_to_affine(&q, &qj);
        cuzk_pairing(&e2, &p, &q);
        cuzk_fp12_pow(&t, &e, kab, 4);
        CHECK(cuzk_fp12_eq(&e2, &t)); /* e(aG1, bG2) = e(G1, G2)^(ab) */

        /* e(aP, Q) * e(-P, aQ) = 1 through the multi-pairing check */
        cuzk_g1_affine ps[2];
        cuzk_g2_affine qs[2];
        cuzk_g1_from_affine(&pj, &p);
        cuzk_g1_mul_var(&pj, &pj, ka, 4);
        cuzk_g1_to_affine(&ps[0], &pj);
        qs[0] = q;
        cuzk_g1_affine_neg(&ps[1], &p);
        cuzk_g2_from_affine(&qj, &q);
        cuzk_g2_mul_var(&qj, &qj, ka, 4);
        cuzk_g2_to_affine(&qs[1], &qj);
        CHECK(cuzk_pairing_check(ps, qs, 2));
        /* and not with a wrong point */
        qs[1] = q;
        CHECK(!cuzk_pairing_check(ps, qs, 2));
        /* the product of Miller loops equals the product of pairings */
        cuzk_fp12 m, e_a, e_b;
        cuzk_miller_loop(&m, ps, qs, 2);
        cuzk_final_exp(&m, &m);
        cuzk_pairing(&e_a, &ps[0], &qs[0]);
        cuzk_pairing(&e_b, &ps[1], &qs[1]);
        cuzk_fp12_mul(&e_a, &e_a, &e_b);
        CHECK(cuzk_fp12_eq(&m, &e_a));
    }

    /* more pairs than one Miller chunk holds: sum of a_i P with Q, and -sum with Q */
    enum { N = 11 };
    cuzk_g1_affine ps[N + 1];
    cuzk_g2_affine qs[N + 1];
    cuzk_g1 sum;
    cuzk_g1_set_inf(&sum);
    for (int i = 0; i < N; i++) {
        cuzk_fr a;
        uint64_t ka[4];
        scalar(&a, ka);
        cuzk_g1_from_affine(&pj, &g1);
        cuzk_g1_mul_var(&pj, &pj, ka, 4);
        cuzk_g1_add(&sum, &sum, &pj);
        cuzk_g1_to_affine(&ps[i], &pj);
        qs[i] = g2;
    }
    cuzk_g1_neg(&sum, &sum);
    cuzk_g1_to_affine(&ps[N], &sum);
    qs[N] = g2;
    CHECK(cuzk_pairing_check(ps, qs, N + 1));
    CHECK(!cuzk_pairing_check(ps, qs, N));
    return test_finish();
}
