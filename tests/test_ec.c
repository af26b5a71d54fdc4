/* Group laws of G1 and G2 on random points (seeded), scalar multiplication, batch affine
 * conversion, and the endomorphism subgroup checks against multiplication by r. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "test_util.h"

#define ROUNDS 200

static const uint64_t r_limbs[4] = CUZK_FR_MODULUS;

static void random_scalar(uint64_t k[4]) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_fr_to_canonical(k, &s);
}

/* The group-law checks, written once for both groups. */
#define GROUP_PROPERTIES(G, FT, FF)                                                                \
    static void G##_random_point(G *p) {                                                           \
        G##_affine g;                                                                              \
        G gj;                                                                                      \
        uint64_t k[4];                                                                             \
        G##_generator(&g);                                                                         \
        G##_from_affine(&gj, &g);                                                                  \
        random_scalar(k);                                                                          \
        G##_mul_var(p, &gj, k, 4);                                                                 \
    }                                                                                              \
    /* a point on the curve from a random x: almost never in the subgroup */                       \
    static void G##_random_curve_point(G##_affine *p) {                                            \
        static const FT b = G##_B_INIT;                                                            \
        for (;;) {                                                                                 \
            FT rhs;                                                                                \
            FF##_random(&p->x, &test_rng);                                                         \
            FF##_sqr(&rhs, &p->x);                                                                 \
            FF##_mul(&rhs, &rhs, &p->x);                                                           \
            FF##_add(&rhs, &rhs, &b);                                                              \
            if (FF##_sqrt(&p->y, &rhs) == CUZK_OK) return;                                         \
        }                                                                                          \
    }                                                                                              \
    static void G##_properties(void) {                                                             \
        G inf, p, q, s, t, u;                                                                      \
        G##_affine pa, qa;                                                                         \
        G##_set_inf(&inf);                                                                         \
        for (int i = 0; i < ROUNDS; i++) {                                                         \
            G##_random_point(&p);                                                                  \
            G##_random_point(&q);                                                                  \
            G##_random_point(&s);                                                                  \
            CHECK(G##_is_on_curve(&p));                                                            \
            G##_add(&t, &p, &q);                                                                   \
            G##_add(&u, &q, &p);                                                                   \
            CHECK(G##_eq(&t, &u));                                                                 \
            G##_add(&t, &t, &s);                                                                   \
            G##_add(&u, &q, &s);                                                                   \
            G##_add(&u, &p, &u);                                                                   \
            CHECK(G##_eq(&t, &u));                                                                 \
            G##_add(&t, &p, &inf);                                                                 \
            CHECK(G##_eq(&t, &p));                                                                 \
            G##_add(&t, &inf, &p);                                                                 \
            CHECK(G##_eq(&t, &p));                                                                 \
            G##_neg(&t, &p);                                                                       \
            G##_add(&t, &t, &p);                                                                   \
            CHECK(G##_is_inf(&t));                                                                 \
            G##_add(&t, &p, &p);                                                                   \
            G##_dbl(&u, &p);                                                                       \
            CHECK(G##_eq(&t, &u));                                                                 \
            G##_to_affine(&qa, &q);                                                                \
            CHECK(G##_affine_is_on_curve(&qa));                                                    \
            G##_add_affine(&t, &p, &qa);                                                           \
            G##_add(&u, &p, &q);                                                                   \
            CHECK(G##_eq(&t, &u));                                                                 \
            G##_to_affine(&pa, &p);                                                                \
            G##_add_affine(&t, &p, &pa); /* doubling through the mixed path */                     \
            G##_dbl(&u, &p);                                                                       \
            CHECK(G##_eq(&t, &u));                                                                 \
            G##_affine_neg(&pa, &pa);                                                              \
            G##_add_affine(&t, &p, &pa);                                                           \
            CHECK(G##_is_inf(&t));                                                                 \
            /* [a][b]P = [ab]P and [a]P + [b]P = [a + b]P */                                       \
            cuzk_fr a, b, ab;                                                                      \
            uint64_t ka[4], kb[4], kab[4];                                                         \
            cuzk_fr_random(&a, &test_rng);                                                         \
            cuzk_fr_random(&b, &test_rng);                                                         \
            cuzk_fr_to_canonical(ka, &a);                                                          \
            cuzk_fr_to_canonical(kb, &b);                                                          \
            cuzk_fr_mul(&ab, &a, &b);                                                              \
            cuzk_fr_to_canonical(kab, &ab);                                                        \
            G##_mul_var(&t, &p, ka, 4);                                                            \
            G##_mul_var(&t, &t, kb, 4);                                                            \
            G##_mul_var(&u, &p, kab, 4);                                                           \
            CHECK(G##_eq(&t, &u));                                                                 \
            cuzk_fr_add(&ab, &a, &b);                                                              \
            cuzk_fr_to_canonical(kab, &ab);                                                        \
            G##_mul_var(&t, &p, ka, 4);                                                            \
            G##_mul_var(&u, &p, kb, 4);                                                            \
            G##_add(&t, &t, &u);                                                                   \
            G##_mul_var(&u, &p, kab, 4);                                                           \
            CHECK(G##_eq(&t, &u));                                                                 \
            /* [r]P = O, and subgroup membership */                                                \
            G##_mul_var(&t, &p, r_limbs, 4);                                                       \
            CHECK(G##_is_inf(&t));                                                                 \
            CHECK(G##_is_in_subgroup(&p));                                                         \
            /* a random curve point: the endomorphism check agrees with [r]P = O */                \
            G##_affine c;                                                                          \
            G##_random_curve_point(&c);                                                            \
            G##_from_affine(&t, &c);                                                               \
            CHECK(G##_is_on_curve(&t));                                                            \
            G##_mul_var(&u, &t, r_limbs, 4);                                                       \
            CHECK(G##_is_in_subgroup(&t) == G##_is_inf(&u));                                       \
            CHECK(!G##_is_in_subgroup(&t));                                                        \
        }                                                                                          \
        CHECK(G##_is_in_subgroup(&inf));                                                           \
        CHECK(G##_is_on_curve(&inf));                                                              \
        G##_to_affine(&pa, &inf);                                                                  \
        CHECK(G##_affine_is_inf(&pa));                                                             \
        G##_dbl(&t, &inf);                                                                         \
        CHECK(G##_is_inf(&t));                                                                     \
        uint64_t zero[4] = {0};                                                                    \
        G##_mul_var(&t, &p, zero, 4);                                                              \
        CHECK(G##_is_inf(&t));                                                                     \
        /* batch conversion, with identities mixed in */                                           \
        G pts[9];                                                                                  \
        G##_affine aff[9], one;                                                                    \
        for (int i = 0; i < 9; i++) {                                                              \
            if (i % 4 == 1)                                                                        \
                G##_set_inf(&pts[i]);                                                              \
            else                                                                                   \
                G##_random_point(&pts[i]);                                                         \
        }                                                                                          \
        G##_batch_to_affine(aff, pts, 9);                                                          \
        for (int i = 0; i < 9; i++) {                                                              \
            G##_to_affine(&one, &pts[i]);                                                          \
            CHECK(G##_affine_eq(&one, &aff[i]));                                                   \
        }                                                                                          \
        /* fixed-base tables agree with the generic multiplication, across window sizes */         \
        for (int w = 3; w <= 9; w += 3) {                                                          \
            G##_affine base, *tab = malloc(G##_fb_table_len(w) * sizeof *tab);                     \
            CHECK(tab != NULL);                                                                    \
            if (!tab) break;                                                                       \
            G##_random_point(&p);                                                                  \
            G##_to_affine(&base, &p);                                                              \
            CHECK(G##_fb_table_init(tab, &base, w) == CUZK_OK);                                    \
            for (int i = 0; i < 20; i++) {                                                         \
                uint64_t k[4];                                                                     \
                random_scalar(k);                                                                  \
                if (i == 0) memset(k, 0, sizeof k);                                                \
                if (i == 1) memset(k, 0xff, sizeof k);                                             \
                if (i == 2) memcpy(k, r_limbs, sizeof k);                                          \
                G##_fb_mul(&t, tab, w, k);                                                         \
                G##_mul_var(&u, &p, k, 4);                                                         \
                CHECK(G##_eq(&t, &u));                                                             \
            }                                                                                      \
            free(tab);                                                                             \
        }                                                                                          \
        CHECK(G##_fb_table_init(NULL, &pa, 1) == CUZK_EINVAL);                                     \
        /* the generator has order r */                                                            \
        G##_generator(&pa);                                                                        \
        CHECK(G##_affine_is_on_curve(&pa) && G##_affine_is_in_subgroup(&pa));                      \
    }

#define cuzk_g1_B_INIT CUZK_G1_B
#define cuzk_g2_B_INIT CUZK_G2_B
GROUP_PROPERTIES(cuzk_g1, cuzk_fp, cuzk_fp)
GROUP_PROPERTIES(cuzk_g2, cuzk_fp2, cuzk_fp2)

static void psi_is_x(void) {
    /* psi acts as [x] = -[|x|] on G2 */
    static const uint64_t x_abs[1] = {CUZK_BLS_X_ABS};
    for (int i = 0; i < 20; i++) {
        cuzk_g2 p, a, b;
        cuzk_g2_random_point(&p);
        cuzk_g2_psi(&a, &p);
        cuzk_g2_mul_var(&b, &p, x_abs, 1);
        cuzk_g2_neg(&b, &b);
        CHECK(cuzk_g2_eq(&a, &b));
    }
}

int main(void) {
    test_init("test_ec");
    cuzk_g1_properties();
    cuzk_g2_properties();
    psi_is_x();
    return test_finish();
}
