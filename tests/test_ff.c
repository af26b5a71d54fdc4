/* Field properties on random inputs (seeded): axioms, inversion, square roots, encodings,
 * roots of unity, and the Fp2/Fp6/Fp12 tower. Known answers are in test_kat.c. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ff/fp.h"
#include "ff/fp12.h"
#include "ff/fr.h"
#include "ff/fr_vec.h"
#include "util/pool.h"
#include "test_util.h"

#define ROUNDS 1000

/* The same property checks for both prime fields, written once over the field template. */
#define FIELD_PROPERTIES(T, F, NBYTES, DECMAX)                                                     \
    static void F##_properties(void) {                                                             \
        T zero, one, a, b, c, t, u;                                                                \
        F##_set_zero(&zero);                                                                       \
        F##_set_one(&one);                                                                         \
        for (int i = 0; i < ROUNDS; i++) {                                                         \
            F##_random(&a, &test_rng);                                                             \
            F##_random(&b, &test_rng);                                                             \
            F##_random(&c, &test_rng);                                                             \
            F##_add(&t, &a, &b);                                                                   \
            F##_add(&u, &b, &a);                                                                   \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_mul(&t, &a, &b);                                                                   \
            F##_mul(&u, &b, &a);                                                                   \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_add(&t, &a, &b); /* (a + b) c = ac + bc */                                         \
            F##_mul(&t, &t, &c);                                                                   \
            T ac, bc;                                                                              \
            F##_mul(&ac, &a, &c);                                                                  \
            F##_mul(&bc, &b, &c);                                                                  \
            F##_add(&u, &ac, &bc);                                                                 \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_mul(&t, &a, &b); /* (ab)c = a(bc) */                                               \
            F##_mul(&t, &t, &c);                                                                   \
            F##_mul(&u, &a, &bc);                                                                  \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_sub(&t, &a, &b); /* (a - b) + b = a */                                             \
            F##_add(&t, &t, &b);                                                                   \
            CHECK(F##_eq(&t, &a));                                                                 \
            F##_neg(&t, &a);                                                                       \
            F##_add(&t, &t, &a);                                                                   \
            CHECK(F##_is_zero(&t));                                                                \
            F##_dbl(&t, &a);                                                                       \
            F##_add(&u, &a, &a);                                                                   \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_sqr(&t, &a);                                                                       \
            F##_mul(&u, &a, &a);                                                                   \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_mul(&t, &a, &one);                                                                 \
            CHECK(F##_eq(&t, &a));                                                                 \
            F##_inv(&t, &a);                                                                       \
            F##_inv_var(&u, &a);                                                                   \
            CHECK(F##_eq(&t, &u));                                                                 \
            F##_mul(&t, &t, &a);                                                                   \
            CHECK(F##_is_one(&t));                                                                 \
            uint8_t buf[NBYTES];                                                                   \
            F##_to_bytes_le(buf, &a);                                                              \
            CHECK(F##_from_bytes_le(&t, buf) == CUZK_OK && F##_eq(&t, &a));                        \
            F##_to_bytes_be(buf, &a);                                                              \
            CHECK(F##_from_bytes_be(&t, buf) == CUZK_OK && F##_eq(&t, &a));                        \
            F##_to_mont_le(buf, &a);                                                               \
            CHECK(F##_from_mont_le(&t, buf) == CUZK_OK && F##_eq(&t, &a));                         \
            char dec[DECMAX];                                                                      \
            CHECK(F##_to_dec(dec, sizeof dec, &a) > 0);                                            \
            CHECK(F##_from_dec(&t, dec) == CUZK_OK && F##_eq(&t, &a));                             \
        }                                                                                          \
        /* zero: 1/0 = 0, -0 = 0, 0 encodes as "0" */                                              \
        F##_inv(&t, &zero);                                                                        \
        CHECK(F##_is_zero(&t));                                                                    \
        F##_inv_var(&t, &zero);                                                                    \
        CHECK(F##_is_zero(&t));                                                                    \
        F##_neg(&t, &zero);                                                                        \
        CHECK(F##_is_zero(&t));                                                                    \
        char dec[DECMAX];                                                                          \
        CHECK(F##_to_dec(dec, sizeof dec, &zero) == 1 && strcmp(dec, "0") == 0);                   \
        CHECK(F##_to_dec(dec, 2, &one) == 1 && strcmp(dec, "1") == 0);                             \
        /* m - 1 = -1: (-1)^2 = 1, and its canonical bytes are m - 1 */                            \
        T m1;                                                                                      \
        F##_neg(&m1, &one);                                                                        \
        F##_sqr(&t, &m1);                                                                          \
        CHECK(F##_is_one(&t));                                                                     \
        uint64_t lim[NBYTES / 8];                                                                  \
        F##_to_canonical(lim, &m1);                                                                \
        lim[0] += 1; /* m - 1 + 1 = m: must be rejected (the low limb of m is odd) */              \
        CHECK(F##_from_canonical(&t, lim) == CUZK_ENONCANON);                                      \
        memset(lim, 0xff, sizeof lim);                                                             \
        CHECK(F##_from_canonical(&t, lim) == CUZK_ENONCANON);                                      \
        /* batch inversion with zeros in it */                                                     \
        T in[17], out[17];                                                                         \
        for (int i = 0; i < 17; i++) {                                                             \
            if (i % 5 == 0)                                                                        \
                F##_set_zero(&in[i]);                                                              \
            else                                                                                   \
                F##_random(&in[i], &test_rng);                                                     \
        }                                                                                          \
        F##_batch_inv(out, in, 17);                                                                \
        for (int i = 0; i < 17; i++) {                                                             \
            F##_inv(&t, &in[i]);                                                                   \
            CHECK(F##_eq(&t, &out[i]));                                                            \
        }                                                                                          \
        /* decimal input errors */                                                                 \
        CHECK(F##_from_dec(&t, "") == CUZK_EFORMAT);                                               \
        CHECK(F##_from_dec(&t, "12a") == CUZK_EFORMAT);                                            \
        CHECK(F##_from_dec(&t, "-1") == CUZK_EFORMAT);                                             \
        CHECK(F##_from_dec(&t, "9999999999999999999999999999999999999999999999999999999999999"     \
                               "9999999999999999999999999999999999999999999999999999999999999"     \
                               "9999999999999999999999999999999999999999") != CUZK_OK);            \
    }

FIELD_PROPERTIES(cuzk_fp, cuzk_fp, CUZK_FP_BYTES, CUZK_FP_DEC_MAX)
FIELD_PROPERTIES(cuzk_fr, cuzk_fr, CUZK_FR_BYTES, CUZK_FR_DEC_MAX)

static void fp_sqrt(void) {
    int squares = 0;
    for (int i = 0; i < ROUNDS; i++) {
        cuzk_fp a, s, t;
        cuzk_fp_random(&a, &test_rng);
        int is_sq = cuzk_fp_is_square(&a);
        int err = cuzk_fp_sqrt(&s, &a);
        CHECK((err == CUZK_OK) == is_sq);
        if (err == CUZK_OK) {
            squares++;
            cuzk_fp_sqr(&t, &s);
            CHECK(cuzk_fp_eq(&t, &a));
        }
        cuzk_fp_sqr(&t, &a); /* a^2 always has a root, +-a */
        CHECK(cuzk_fp_sqrt(&s, &t) == CUZK_OK);
        cuzk_fp n;
        cuzk_fp_neg(&n, &a);
        CHECK(cuzk_fp_eq(&s, &a) || cuzk_fp_eq(&s, &n));
        CHECK(cuzk_fp_is_lexlarger(&a) != cuzk_fp_is_lexlarger(&n) || cuzk_fp_is_zero(&a));
    }
    CHECK(squares > ROUNDS / 4 && squares < 3 * ROUNDS / 4);
}

static void fr_roots(void) {
    cuzk_fr w, t, one, m1;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&m1, &one);
    for (int k = 1; k <= CUZK_FR_TWO_ADICITY; k++) {
        CHECK(cuzk_fr_root_of_unity(&w, k) == CUZK_OK);
        t = w;
        for (int i = 0; i < k - 1; i++) cuzk_fr_sqr(&t, &t);
        CHECK(cuzk_fr_eq(&t, &m1)); /* w^(2^(k-1)) = -1: primitive */
        cuzk_fr_sqr(&t, &t);
        CHECK(cuzk_fr_is_one(&t));
    }
    CHECK(cuzk_fr_root_of_unity(&w, 0) == CUZK_OK && cuzk_fr_is_one(&w));
    CHECK(cuzk_fr_root_of_unity(&w, 33) == CUZK_EINVAL);
    CHECK(cuzk_fr_root_of_unity(&w, -1) == CUZK_EINVAL);
    /* snarkjs: w_32 = 5^((r-1)/2^32) */
    static const uint64_t t_exp[4] = {0xfffe5bfeffffffffull, 0x09a1d80553bda402ull,
                                      0x299d7d483339d808ull,
                                      0x0000000073eda753ull}; /* (r-1)/2^32 */
    cuzk_fr five;
    cuzk_fr_from_u64(&five, 5);
    cuzk_fr_pow(&t, &five, t_exp, 4);
    cuzk_fr_root_of_unity(&w, 32);
    CHECK(cuzk_fr_eq(&t, &w));
    cuzk_fr g;
    cuzk_fr_generator(&g);
    cuzk_fr_from_u64(&t, 7);
    CHECK(cuzk_fr_eq(&g, &t));
    CHECK(!cuzk_fr_is_square(&g));
}

static void fp2_properties(void) {
    for (int i = 0; i < ROUNDS; i++) {
        cuzk_fp2 a, b, t, u;
        cuzk_fp2_random(&a, &test_rng);
        cuzk_fp2_random(&b, &test_rng);
        cuzk_fp2_mul(&t, &a, &b);
        cuzk_fp2_mul(&u, &b, &a);
        CHECK(cuzk_fp2_eq(&t, &u));
        cuzk_fp2_sqr(&t, &a);
        cuzk_fp2_mul(&u, &a, &a);
        CHECK(cuzk_fp2_eq(&t, &u));
        cuzk_fp2_inv(&t, &a);
        cuzk_fp2_inv_var(&u, &a);
        CHECK(cuzk_fp2_eq(&t, &u));
        cuzk_fp2_mul(&t, &t, &a);
        CHECK(cuzk_fp2_is_one(&t));
        cuzk_fp2_sqr(&t, &a);
        CHECK(cuzk_fp2_sqrt(&u, &t) == CUZK_OK);
        cuzk_fp2_sqr(&u, &u);
        CHECK(cuzk_fp2_eq(&u, &t));
        cuzk_fp2 nr;
        cuzk_fp_set_one(&nr.c0);
        cuzk_fp_set_one(&nr.c1);
        cuzk_fp2_mul(&t, &a, &nr);
        cuzk_fp2_mul_nr(&u, &a);
        CHECK(cuzk_fp2_eq(&t, &u));
    }
}

static void fp12_properties(void) {
    for (int i = 0; i < 50; i++) {
        cuzk_fp12 a, b, t, u;
        cuzk_fp12_random(&a, &test_rng);
        cuzk_fp12_random(&b, &test_rng);
        cuzk_fp12_mul(&t, &a, &b);
        cuzk_fp12_mul(&u, &b, &a);
        CHECK(cuzk_fp12_eq(&t, &u));
        cuzk_fp12_sqr(&t, &a);
        cuzk_fp12_mul(&u, &a, &a);
        CHECK(cuzk_fp12_eq(&t, &u));
        cuzk_fp12_inv_var(&t, &a);
        cuzk_fp12_mul(&t, &t, &a);
        CHECK(cuzk_fp12_is_one(&t));
        /* Frobenius: twelve applications of a^p, and powers composing */
        t = a;
        for (int k = 0; k < 12; k++) cuzk_fp12_frobenius(&t, &t, 1);
        CHECK(cuzk_fp12_eq(&t, &a));
        for (int k = 0; k < 12; k++) {
            cuzk_fp12_frobenius(&t, &a, k);
            u = a;
            for (int j = 0; j < k; j++) cuzk_fp12_frobenius(&u, &u, 1);
            CHECK(cuzk_fp12_eq(&t, &u));
        }
        /* a^p by exponentiation */
        static const uint64_t p[6] = CUZK_FP_MODULUS;
        cuzk_fp12_pow(&t, &a, p, 6);
        cuzk_fp12_frobenius(&u, &a, 1);
        CHECK(cuzk_fp12_eq(&t, &u));
        /* sparse product equals the dense one */
        cuzk_fp2 d0, d1, d4;
        cuzk_fp2_random(&d0, &test_rng);
        cuzk_fp2_random(&d1, &test_rng);
        cuzk_fp2_random(&d4, &test_rng);
        cuzk_fp12 line;
        memset(&line, 0, sizeof line);
        line.c0.c0 = d0;
        line.c0.c1 = d1;
        line.c1.c1 = d4;
        cuzk_fp12_mul(&t, &a, &line);
        cuzk_fp12_mul_014(&u, &a, &d0, &d1, &d4);
        CHECK(cuzk_fp12_eq(&t, &u));
        /* cyclotomic squaring on a cyclotomic element a^((p^6 - 1)(p^2 + 1)) */
        cuzk_fp12 inv, c;
        cuzk_fp12_inv_var(&inv, &a);
        cuzk_fp12_conj(&c, &a);
        cuzk_fp12_mul(&c, &c, &inv);
        cuzk_fp12_frobenius(&t, &c, 2);
        cuzk_fp12_mul(&c, &t, &c);
        cuzk_fp12_sqr(&t, &c);
        cuzk_fp12_cyclotomic_sqr(&u, &c);
        CHECK(cuzk_fp12_eq(&t, &u));
        cuzk_fp12_conj(&t, &c); /* conj inverts there */
        cuzk_fp12_mul(&t, &t, &c);
        CHECK(cuzk_fp12_is_one(&t));
    }
}

/* The assembly multiplication (when built) against its portable C twin, on random and extreme
 * inputs of both fields. */
static void mont_twins(void) {
#ifdef CUZK_MONT_ADX
    static const uint64_t p[6] = CUZK_FP_MODULUS, r[4] = CUZK_FR_MODULUS;
    for (int i = 0; i < 20000; i++) {
        cuzk_fp a, b, x, y;
        cuzk_fr c, d, u, v;
        cuzk_fp_random(&a, &test_rng);
        cuzk_fp_random(&b, &test_rng);
        cuzk_fr_random(&c, &test_rng);
        cuzk_fr_random(&d, &test_rng);
        if (i < 4) { /* m - 1 and m - 2 as inputs */
            memcpy(a.l, p, sizeof a.l);
            a.l[0] -= 1 + (unsigned)(i & 1);
            memcpy(c.l, r, sizeof c.l);
            c.l[0] -= 1 + (unsigned)(i >> 1);
            if (i >= 2) b = a, d = c;
        }
        cuzk_mont_mul(x.l, a.l, b.l, p, CUZK_FP_M0INV, 6);
        cuzk_mont_mul_c(y.l, a.l, b.l, p, CUZK_FP_M0INV, 6);
        CHECK(cuzk_fp_eq(&x, &y));
        cuzk_mont_mul(u.l, c.l, d.l, r, CUZK_FR_M0INV, 4);
        cuzk_mont_mul_c(v.l, c.l, d.l, r, CUZK_FR_M0INV, 4);
        CHECK(cuzk_fr_eq(&u, &v));
    }
    printf("test_ff: assembly multiplication checked against the portable twin\n");
#else
    printf("test_ff: portable build, no assembly twin to compare\n");
#endif
}

/* Parallel random vectors depend only on (seed, n), not on the pool. */
static void fr_vec(void) {
    size_t n = 2 * CUZK_FR_VEC_BLOCK + 123;
    cuzk_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    struct cuzk_pool *pool;
    CHECK(a && b && cuzk_pool_create(&pool, 3, "t") == CUZK_OK);
    if (!a || !b) return;
    uint64_t seed = cuzk_rng_u64(&test_rng);
    cuzk_fr_vec_random(NULL, a, n, seed);
    cuzk_fr_vec_random(pool, b, n, seed);
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    CHECK(!cuzk_fr_eq(&a[0], &a[1]) && !cuzk_fr_eq(&a[0], &a[CUZK_FR_VEC_BLOCK]));
    cuzk_fr_vec_random(pool, b, n, seed + 1);
    CHECK(!cuzk_fr_eq(&a[n - 1], &b[n - 1]));
    cuzk_pool_destroy(pool);
    free(a);
    free(b);
}

int main(void) {
    test_init("test_ff");
    fr_vec();
    mont_twins();
    cuzk_fp_properties();
    cuzk_fr_properties();
    fp_sqrt();
    fr_roots();
    fp2_properties();
    fp12_properties();
    return test_finish();
}
