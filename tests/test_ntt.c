/* The NTT: every transform against a direct O(n^2) evaluation for n = 2^1 .. 2^10, spot checks
 * (Horner at sampled points) up to 2^21 so that every pass layout of the fast transform is
 * exercised, roundtrips up to 2^18, identical results for pools of 1, 2 and 4 threads, the
 * domain constants, the cache and argument checks. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ntt/ntt.h"
#include "test_util.h"

static struct cuzk_pool *pools[3]; /* 1, 2 and 4 threads */

static cuzk_fr *random_vec(size_t n) {
    cuzk_fr *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&v[i], &test_rng);
    return v;
}

static cuzk_fr *copy_vec(const cuzk_fr *a, size_t n) {
    cuzk_fr *v = malloc(n * sizeof *v);
    memcpy(v, a, n * sizeof *v);
    return v;
}

static int vec_eq(const cuzk_fr *a, const cuzk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&a[i], &b[i])) return 0;
    return 1;
}

static void pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e) { cuzk_fr_pow(r, a, &e, 1); }

/* sum_i a_i x^i by Horner. */
static void poly_eval(cuzk_fr *r, const cuzk_fr *a, size_t n, const cuzk_fr *x) {
    cuzk_fr acc;
    cuzk_fr_set_zero(&acc);
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &a[i]);
    }
    *r = acc;
}

/* out_j = scale * sum_i a_i (s w^j)^i for all j: the reference for every transform
 * (forward: s = 1, w = omega; inverse: s = 1, w = omega^-1, scale = 1/n). */
static void dft_ref(cuzk_fr *out, const cuzk_fr *a, size_t n, const cuzk_fr *s, const cuzk_fr *w,
                    const cuzk_fr *scale) {
    cuzk_fr x = *s;
    for (size_t j = 0; j < n; j++) {
        poly_eval(&out[j], a, n, &x);
        cuzk_fr_mul(&out[j], &out[j], scale);
        cuzk_fr_mul(&x, &x, w);
    }
}

static void test_domain_constants(void) {
    for (int k = 1; k <= 20; k++) {
        struct cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_create(pools[2], k, &d) == CUZK_OK);
        cuzk_fr t, one, minus_one;
        cuzk_fr_set_one(&one);
        cuzk_fr_neg(&minus_one, &one);
        CHECK(d->n == (size_t)1 << k && d->log_n == k);
        pow_u64(&t, &d->omega, d->n);
        CHECK(cuzk_fr_is_one(&t));
        pow_u64(&t, &d->omega, d->n / 2); /* primitive: omega^(n/2) = -1 */
        CHECK(cuzk_fr_eq(&t, &minus_one));
        cuzk_fr_mul(&t, &d->omega, &d->omega_inv);
        CHECK(cuzk_fr_is_one(&t));
        cuzk_fr_sqr(&t, &d->omega_2n);
        CHECK(cuzk_fr_eq(&t, &d->omega));
        cuzk_fr_from_u64(&t, d->n);
        cuzk_fr_mul(&t, &t, &d->n_inv);
        CHECK(cuzk_fr_is_one(&t));
        cuzk_fr r;
        CHECK(cuzk_fr_root_of_unity(&r, k) == CUZK_OK && cuzk_fr_eq(&r, &d->omega));
        /* the stage-contiguous layout: twiddles[m + j] = omega_(2m)^j */
        int ok = cuzk_fr_is_one(&d->twiddles[0]);
        for (size_t m = 1; m < d->n; m *= 2) {
            cuzk_fr w2m;
            pow_u64(&w2m, &d->omega, d->n / (2 * m));
            size_t j = cuzk_rng_u64(&test_rng) % m;
            pow_u64(&t, &w2m, j);
            ok &= cuzk_fr_eq(&t, &d->twiddles[m + j]) && cuzk_fr_is_one(&d->twiddles[m]);
        }
        CHECK(ok);
        cuzk_ntt_domain_free(d);
    }
}

/* forward, inverse and both cosets against the O(n^2) reference, n = 2^1 .. 2^10 */
static void test_against_dft(void) {
    for (int k = 1; k <= 10; k++) {
        const struct cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_get(k, &d) == CUZK_OK);
        size_t n = d->n;
        cuzk_fr one, seven, rnd, *ref = malloc(n * sizeof *ref);
        cuzk_fr_set_one(&one);
        cuzk_fr_generator(&seven);
        cuzk_fr_random(&rnd, &test_rng);
        cuzk_fr *a = random_vec(n), *x = copy_vec(a, n);

        cuzk_ntt_forward(pools[k % 3], d, x);
        dft_ref(ref, a, n, &one, &d->omega, &one);
        CHECK(vec_eq(x, ref, n));

        memcpy(x, a, n * sizeof *x);
        cuzk_ntt_inverse(pools[k % 3], d, x);
        dft_ref(ref, a, n, &one, &d->omega_inv, &d->n_inv);
        CHECK(vec_eq(x, ref, n));

        const cuzk_fr *shifts[3] = {&seven, &d->omega_2n, &rnd};
        for (int s = 0; s < 3; s++) {
            memcpy(x, a, n * sizeof *x);
            cuzk_ntt_coset_forward(pools[s], d, x, shifts[s]);
            dft_ref(ref, a, n, shifts[s], &d->omega, &one);
            CHECK(vec_eq(x, ref, n));
            /* the coset inverse takes those evaluations back to a */
            cuzk_ntt_coset_inverse(pools[2 - s], d, x, shifts[s]);
            CHECK(vec_eq(x, a, n));
        }
        /* snarkjs's odd coset: evaluations at omega_2n^(2j+1) */
        memcpy(x, a, n * sizeof *x);
        cuzk_ntt_coset_forward(NULL, d, x, &d->omega_2n);
        int ok = 1;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr pt, v;
            pow_u64(&pt, &d->omega_2n, 2 * j + 1);
            poly_eval(&v, a, n, &pt);
            ok &= cuzk_fr_eq(&v, &x[j]);
        }
        CHECK(ok);
        free(a);
        free(x);
        free(ref);
    }
}

/* 1 if x = forward(a) at indices 0, 1, n-1 and `extra` random ones, each recomputed by Horner. */
static int spot_check(const struct cuzk_ntt_domain *d, const cuzk_fr *a, const cuzk_fr *x,
                      int extra) {
    const size_t n = d->n;
    int ok = 1;
    for (int p = 0; p < 3 + extra; p++) {
        size_t j = p == 0 ? 0 : p == 1 ? 1 : p == 2 ? n - 1 : cuzk_rng_u64(&test_rng) % n;
        cuzk_fr pt, v;
        pow_u64(&pt, &d->omega, j);
        poly_eval(&v, a, n, &pt);
        ok &= cuzk_fr_eq(&v, &x[j]);
    }
    return ok;
}

/* Forward at sizes beyond the O(n^2) test. On one thread the layouts are: one block pass (11,
 * 12), then one gathered-row pass of 1, 2, 5 and the full 8 stages (13, 14, 17, 20); two row
 * passes (21) are checked in test_pools_agree. Larger pools use smaller blocks and more rows. */
static void test_spot_checks(void) {
    static const int ks[] = {11, 12, 13, 14, 17, 20};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        const struct cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_get(ks[t], &d) == CUZK_OK);
        cuzk_fr *a = random_vec(d->n), *x = copy_vec(a, d->n);
        cuzk_ntt_forward(pools[0], d, x);
        CHECK(spot_check(d, a, x, ks[t] < 20 ? 5 : 1));
        free(a);
        free(x);
    }
}

static void test_roundtrips(void) {
    cuzk_fr seven;
    cuzk_fr_generator(&seven);
    for (int k = 1; k <= 18; k++) {
        const struct cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_get(k, &d) == CUZK_OK);
        size_t n = d->n;
        struct cuzk_pool *pool = pools[k % 3];
        cuzk_fr *a = random_vec(n), *x = copy_vec(a, n);
        cuzk_ntt_forward(pool, d, x);
        cuzk_ntt_inverse(pool, d, x);
        CHECK(vec_eq(x, a, n));
        cuzk_ntt_inverse(pool, d, x);
        cuzk_ntt_forward(pool, d, x);
        CHECK(vec_eq(x, a, n));
        if (k <= 16) {
            cuzk_ntt_coset_forward(pool, d, x, &seven);
            CHECK(!vec_eq(x, a, n));
            cuzk_ntt_coset_inverse(pool, d, x, &seven);
            CHECK(vec_eq(x, a, n));
            cuzk_ntt_coset_inverse(pool, d, x, &d->omega_2n);
            cuzk_ntt_coset_forward(pool, d, x, &d->omega_2n);
            CHECK(vec_eq(x, a, n));
        }
        free(a);
        free(x);
    }
}

/* every transform gives the same bits whatever the pool, including sizes with several passes */
static void test_pools_agree(void) {
    static const int ks[] = {3, 9, 13, 16, 21};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        const struct cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_get(ks[t], &d) == CUZK_OK);
        size_t n = d->n;
        cuzk_fr *a = random_vec(n), *x[3];
        for (int p = 0; p < 3; p++) {
            x[p] = copy_vec(a, n);
            cuzk_ntt_forward(pools[p], d, x[p]);
            if (ks[t] < 21) {
                cuzk_ntt_coset_inverse(pools[p], d, x[p], &d->omega_2n);
                cuzk_ntt_coset_forward(pools[p], d, x[p], &d->omega_2n);
                cuzk_ntt_inverse(pools[p], d, x[p]);
            }
        }
        CHECK(vec_eq(x[0], x[1], n));
        CHECK(vec_eq(x[0], x[2], n));
        CHECK(ks[t] < 21 ? vec_eq(x[0], a, n) : spot_check(d, a, x[0], 1));
        for (int p = 0; p < 3; p++) free(x[p]);
        free(a);
    }
}

static void test_scale_powers(void) {
    static const size_t ns[] = {1, 2, 7, 2048, 2049, 20000};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t];
        cuzk_fr s, p;
        cuzk_fr_random(&s, &test_rng);
        cuzk_fr *a = random_vec(n), *ref = copy_vec(a, n);
        cuzk_fr_set_one(&p);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_mul(&ref[i], &ref[i], &p);
            cuzk_fr_mul(&p, &p, &s);
        }
        for (int q = 0; q < 3; q++) {
            cuzk_fr *x = copy_vec(a, n);
            cuzk_ntt_scale_powers(pools[q], x, n, &s);
            CHECK(vec_eq(x, ref, n));
            free(x);
        }
        free(a);
        free(ref);
    }
}

static void test_cache_and_args(void) {
    const struct cuzk_ntt_domain *d1, *d2, *d3;
    CHECK(cuzk_ntt_domain_get(8, &d1) == CUZK_OK);
    CHECK(cuzk_ntt_domain_get(8, &d2) == CUZK_OK);
    CHECK(d1 == d2);
    CHECK(cuzk_ntt_domain_get(9, &d3) == CUZK_OK);
    CHECK(d3 != d1 && d3->log_n == 9 && d1->log_n == 8);
    static const int bad[] = {-1, 0, CUZK_NTT_MAX_LOG + 1, 40};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cuzk_ntt_domain *d = NULL;
        CHECK(cuzk_ntt_domain_get(bad[i], &d1) == CUZK_EINVAL);
        CHECK(cuzk_ntt_domain_create(NULL, bad[i], &d) == CUZK_EINVAL && d == NULL);
    }
    cuzk_ntt_cache_clear();
    CHECK(cuzk_ntt_domain_get(8, &d1) == CUZK_OK && d1->log_n == 8);
    cuzk_ntt_cache_clear();
}

int main(void) {
    test_init("test_ntt");
    CHECK(cuzk_pool_create(&pools[0], 1, "ntt1") == CUZK_OK);
    CHECK(cuzk_pool_create(&pools[1], 2, "ntt2") == CUZK_OK);
    CHECK(cuzk_pool_create(&pools[2], 4, "ntt4") == CUZK_OK);
    test_domain_constants();
    test_against_dft();
    test_spot_checks();
    test_roundtrips();
    test_pools_agree();
    test_scale_powers();
    test_cache_and_args();
    cuzk_ntt_cache_clear();
    for (int p = 0; p < 3; p++) cuzk_pool_destroy(pools[p]);
    return test_finish();
}
