/* Multi-scalar multiplication against the naive sum of scalar multiplications, on G1 and G2:
 * random inputs of many sizes, the shapes a Groth16 witness and key take (zero and one
 * scalars, identity points), the exceptional cases of the group law (repeated points, equal
 * scalars, pairs that cancel), digit-edge scalars, and thread counts 1, 2 and 4, which must
 * all agree. Larger inputs are checked against identities that need no reference (a split
 * sum, or k times a plain sum). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ff/ff_constants.h"
#include "msm/msm.h"
#include "test_util.h"

#define NPOOLS 3
static struct cuzk_pool *pools[NPOOLS]; /* 1, 2 and 4 threads (the first is NULL) */
static const unsigned pool_threads[NPOOLS] = {1, 2, 4};

static void random_scalar(cuzk_scalar *k) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_scalar_from_fr(k, &s);
}

static void set_small(cuzk_scalar *k, uint64_t v) {
    memset(k, 0, sizeof *k);
    k->l[0] = v;
}

/* The scalar shapes a test can ask for. */
enum shape {
    RANDOM,   /* uniform below r */
    ZERO_ONE, /* 40% zero, 40% one, the rest uniform */
    EDGE,     /* digit-edge values: r - 1, 2^255 - 1, 2^254, alternating bits, small */
};

static void make_scalars(cuzk_scalar *k, size_t n, enum shape sh) {
    static const uint64_t r[4] = CUZK_FR_MODULUS;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cuzk_rng_u64(&test_rng) % 10;
        if (sh == RANDOM || (sh == ZERO_ONE && u >= 8)) {
            random_scalar(&k[i]);
        } else if (sh == ZERO_ONE) {
            set_small(&k[i], u < 4 ? 0 : 1);
        } else {
            uint64_t *l = k[i].l;
            switch (u) {
            case 0: /* r - 1 */
                memcpy(l, r, sizeof r);
                l[0]--;
                break;
            case 1: /* 2^255 - 1: above r, still a valid input */
                memset(l, 0xff, 4 * sizeof *l);
                l[3] >>= 1;
                break;
            case 2: /* 2^254 */
                set_small(&k[i], 0);
                l[3] = UINT64_C(1) << 62;
                break;
            case 3: /* ...1010 */
                memset(l, 0xaa, 4 * sizeof *l);
                l[3] >>= 1;
                break;
            case 4: memset(l, 0x55, 4 * sizeof *l); break; /* ...0101 */
            case 5: set_small(&k[i], 2 + cuzk_rng_u64(&test_rng) % 1000); break;
            case 6: set_small(&k[i], cuzk_rng_u64(&test_rng)); break;
            default: random_scalar(&k[i]); break;
            }
        }
    }
}

/* The tests, written once for both groups. */
#define MSM_TESTS(G)                                                                               \
    /* n points P_i = P_0 + i Q from random P_0 and Q: one chain of additions */                   \
    static void G##_random_points(G##_affine *out, size_t n) {                                     \
        G##_affine gen;                                                                            \
        G p, q, *jac = malloc((n ? n : 1) * sizeof *jac);                                          \
        cuzk_scalar k;                                                                             \
        CHECK(jac != NULL);                                                                        \
        if (!jac) return;                                                                          \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&p, &gen);                                                                 \
        random_scalar(&k);                                                                         \
        G##_mul_var(&q, &p, k.l, 4);                                                               \
        random_scalar(&k);                                                                         \
        G##_mul_var(&p, &p, k.l, 4);                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = p;                                                                            \
            G##_add(&p, &p, &q);                                                                   \
        }                                                                                          \
        G##_batch_to_affine(out, jac, n);                                                          \
        free(jac);                                                                                 \
    }                                                                                              \
    /* msm on every pool equals want */                                                            \
    static void G##_check_msm(const G##_affine *pts, const cuzk_scalar *k, size_t n,               \
                              const G *want) {                                                     \
        for (int p = 0; p < NPOOLS; p++) {                                                         \
            G got;                                                                                 \
            int err = G##_msm(pools[p], &got, pts, k, n);                                          \
            CHECK(err == CUZK_OK);                                                                 \
            CHECK(G##_is_on_curve(&got));                                                          \
            CHECK(G##_eq(&got, want));                                                             \
            if (err != CUZK_OK || !G##_eq(&got, want))                                             \
                fprintf(stderr, #G " msm: n = %zu, %u threads: wrong sum\n", n, pool_threads[p]);  \
        }                                                                                          \
    }                                                                                              \
    /* the same with forced choices */                                                             \
    static void G##_check_tuned(const G##_affine *pts, const cuzk_scalar *k, size_t n,             \
                                const G *want, struct cuzk_msm_tuning tune) {                      \
        for (int p = 0; p < NPOOLS; p++) {                                                         \
            G got;                                                                                 \
            int err = G##_msm_tuned(pools[p], &got, pts, k, n, &tune);                             \
            CHECK(err == CUZK_OK);                                                                 \
            CHECK(G##_eq(&got, want));                                                             \
            if (err != CUZK_OK || !G##_eq(&got, want))                                             \
                fprintf(stderr,                                                                    \
                        #G " msm: n = %zu, %u threads, window %u, chunks %zu, pass %zu, "          \
                           "slab %zu: wrong\n",                                                    \
                        n, pool_threads[p], tune.window, tune.chunks, tune.pass, tune.slab);       \
        }                                                                                          \
    }                                                                                              \
    /* Every window width up to max_window, split windows, short sort passes and tiny slabs        \
     * (bucket sums carried across passes and slabs), on the scalar shapes that stress them;       \
     * one reference per input. */                                                                 \
    static void G##_tuning(size_t n, unsigned max_window) {                                        \
        G##_affine *pts = malloc(n * sizeof *pts);                                                 \
        cuzk_scalar *k = malloc(n * sizeof *k);                                                    \
        G want;                                                                                    \
        CHECK(pts &&k);                                                                            \
        if (!pts || !k) goto out;                                                                  \
        G##_random_points(pts, n);                                                                 \
        make_scalars(k, n, EDGE);                                                                  \
        for (size_t i = 0; i < n; i += 5) set_small(&k[i], i % 2); /* some zeros and ones */       \
        G##_msm_ref(&want, pts, k, n);                                                             \
        for (unsigned c = 1; c <= max_window; c++)                                                 \
            G##_check_tuned(pts, k, n, &want, (struct cuzk_msm_tuning){.window = c});              \
        static const size_t chunks[] = {2, 3, 7, 50};                                              \
        for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)                              \
            G##_check_tuned(pts, k, n, &want, (struct cuzk_msm_tuning){.chunks = chunks[i]});      \
        static const size_t passes[] = {1, 7, 50};                                                 \
        for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {                            \
            G##_check_tuned(pts, k, n, &want, (struct cuzk_msm_tuning){.pass = passes[i]});        \
            G##_check_tuned(                                                                       \
                pts, k, n, &want,                                                                  \
                (struct cuzk_msm_tuning){.window = 3, .chunks = 2, .pass = passes[i]});            \
        }                                                                                          \
        /* tiny slabs cost an inversion per addition: a fifth of the points */                     \
        n /= 5;                                                                                    \
        G##_msm_ref(&want, pts, k, n);                                                             \
        static const size_t slabs[] = {2, 3, 5, 64};                                               \
        for (size_t i = 0; i < sizeof slabs / sizeof slabs[0]; i++) {                              \
            G##_check_tuned(pts, k, n, &want, (struct cuzk_msm_tuning){.slab = slabs[i]});         \
            G##_check_tuned(                                                                       \
                pts, k, n, &want,                                                                  \
                (struct cuzk_msm_tuning){.window = 2, .chunks = 3, .pass = 4, .slab = slabs[i]});  \
        }                                                                                          \
        /* one scalar, few points: deep buckets cut into many slabs */                             \
        random_scalar(&k[0]);                                                                      \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        for (size_t i = 8; i < n; i++) pts[i] = pts[i % 8];                                        \
        G##_msm_ref(&want, pts, k, n);                                                             \
        for (size_t i = 0; i < sizeof slabs / sizeof slabs[0]; i++) {                              \
            G##_check_tuned(pts, k, n, &want, (struct cuzk_msm_tuning){.slab = slabs[i]});         \
            G##_check_tuned(pts, k, n, &want,                                                      \
                            (struct cuzk_msm_tuning){.pass = 9, .slab = slabs[i]});                \
        }                                                                                          \
        G##_check_tuned(pts, k, n, &want,                                                          \
                        (struct cuzk_msm_tuning){.window = 1, .chunks = 2, .slab = 7});            \
    out:                                                                                           \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }                                                                                              \
    static void G##_check_ref(const G##_affine *pts, const cuzk_scalar *k, size_t n) {             \
        G want;                                                                                    \
        G##_msm_ref(&want, pts, k, n);                                                             \
        G##_check_msm(pts, k, n, &want);                                                           \
    }                                                                                              \
    /* random points and scalars of the given shape, every size, against the reference */          \
    static void G##_sizes(const size_t *sizes, size_t nsizes, enum shape sh) {                     \
        for (size_t s = 0; s < nsizes; s++) {                                                      \
            size_t n = sizes[s];                                                                   \
            G##_affine *pts = malloc((n ? n : 1) * sizeof *pts);                                   \
            cuzk_scalar *k = malloc((n ? n : 1) * sizeof *k);                                      \
            CHECK(pts &&k);                                                                        \
            if (pts && k) {                                                                        \
                G##_random_points(pts, n);                                                         \
                make_scalars(k, n, sh);                                                            \
                G##_check_ref(pts, k, n);                                                          \
            }                                                                                      \
            free(pts);                                                                             \
            free(k);                                                                               \
        }                                                                                          \
    }                                                                                              \
    /* the special shapes at size n (small enough for the reference) */                            \
    static void G##_special(size_t n) {                                                            \
        G##_affine *pts = malloc(n * sizeof *pts);                                                 \
        cuzk_scalar *k = malloc(n * sizeof *k);                                                    \
        G want;                                                                                    \
        CHECK(pts &&k);                                                                            \
        if (!pts || !k) goto out;                                                                  \
        G##_random_points(pts, n);                                                                 \
        /* all-zero scalars: the identity */                                                       \
        memset(k, 0, n * sizeof *k);                                                               \
        G##_set_inf(&want);                                                                        \
        G##_check_msm(pts, k, n, &want);                                                           \
        /* all scalars 1: the plain sum */                                                         \
        G##_set_inf(&want);                                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            set_small(&k[i], 1);                                                                   \
            G##_add_affine(&want, &want, &pts[i]);                                                 \
        }                                                                                          \
        G##_check_msm(pts, k, n, &want);                                                           \
        /* identity points mixed in, with every scalar shape */                                    \
        make_scalars(k, n, ZERO_ONE);                                                              \
        for (size_t i = 0; i < n; i += 3) G##_affine_set_inf(&pts[i]);                             \
        G##_check_ref(pts, k, n);                                                                  \
        make_scalars(k, n, EDGE);                                                                  \
        G##_check_ref(pts, k, n);                                                                  \
        /* only identity points */                                                                 \
        for (size_t i = 0; i < n; i++) G##_affine_set_inf(&pts[i]);                                \
        G##_set_inf(&want);                                                                        \
        G##_check_msm(pts, k, n, &want);                                                           \
        /* scalars r - 1: minus the plain sum */                                                   \
        G##_random_points(pts, n);                                                                 \
        static const uint64_t r[4] = CUZK_FR_MODULUS;                                              \
        G##_set_inf(&want);                                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(k[i].l, r, sizeof r);                                                           \
            k[i].l[0]--;                                                                           \
            G##_add_affine(&want, &want, &pts[i]);                                                 \
        }                                                                                          \
        G##_neg(&want, &want);                                                                     \
        G##_check_msm(pts, k, n, &want);                                                           \
        /* one scalar for every point: all in one bucket per window */                             \
        random_scalar(&k[0]);                                                                      \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        G##_check_ref(pts, k, n);                                                                  \
        /* one point many times: doublings in the buckets and in their reduction */                \
        for (size_t i = 1; i < n; i++) pts[i] = pts[0];                                            \
        make_scalars(k, n, RANDOM);                                                                \
        G##_check_ref(pts, k, n);                                                                  \
        make_scalars(k, n, EDGE);                                                                  \
        G##_check_ref(pts, k, n);                                                                  \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        G##_check_ref(pts, k, n);                                                                  \
        /* a few distinct points, each repeated, and small scalars: many equal sums */             \
        G##_random_points(pts, 4);                                                                 \
        for (size_t i = 4; i < n; i++) pts[i] = pts[i % 4];                                        \
        for (size_t i = 0; i < n; i++) set_small(&k[i], 1 + cuzk_rng_u64(&test_rng) % 5);          \
        G##_check_ref(pts, k, n);                                                                  \
        /* P and -P with the same scalar cancel; the pairs alone sum to the identity */            \
        G##_random_points(pts, n / 2);                                                             \
        make_scalars(k, n / 2, EDGE);                                                              \
        for (size_t i = n / 2; i-- > 0;) {                                                         \
            pts[2 * i] = pts[i];                                                                   \
            G##_affine_neg(&pts[2 * i + 1], &pts[i]);                                              \
            k[2 * i] = k[2 * i + 1] = k[i];                                                        \
        }                                                                                          \
        G##_set_inf(&want);                                                                        \
        G##_check_msm(pts, k, n / 2 * 2, &want);                                                   \
        /* ... and next to other points they leave those points' sum */                            \
        G##_random_points(pts, n / 8 * 2); /* overwrites whole pairs */                            \
        make_scalars(k, n / 8 * 2, RANDOM);                                                        \
        G##_msm_ref(&want, pts, k, n / 8 * 2);                                                     \
        G##_check_msm(pts, k, n / 2 * 2, &want);                                                   \
    out:                                                                                           \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }                                                                                              \
    /* Sizes past the reference's reach: msm(all) = msm(first half) + msm(second half) for         \
     * random scalars, k * (plain sum) for one scalar k (one bucket larger than a slab), and       \
     * the plain sum for scalars all 1. */                                                         \
    static void G##_large(size_t n) {                                                              \
        G##_affine *pts = malloc(n * sizeof *pts);                                                 \
        cuzk_scalar *k = malloc(n * sizeof *k);                                                    \
        G want, lo, hi, sum;                                                                       \
        CHECK(pts &&k);                                                                            \
        if (!pts || !k) goto out;                                                                  \
        G##_random_points(pts, n);                                                                 \
        make_scalars(k, n, RANDOM);                                                                \
        CHECK(G##_msm(pools[1], &lo, pts, k, n / 2) == CUZK_OK);                                   \
        CHECK(G##_msm(pools[1], &hi, pts + n / 2, k + n / 2, n - n / 2) == CUZK_OK);               \
        G##_add(&want, &lo, &hi);                                                                  \
        CHECK(!G##_is_inf(&want));                                                                 \
        G##_check_msm(pts, k, n, &want);                                                           \
        G##_set_inf(&sum);                                                                         \
        for (size_t i = 0; i < n; i++) G##_add_affine(&sum, &sum, &pts[i]);                        \
        random_scalar(&k[0]);                                                                      \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        G##_mul_var(&want, &sum, k[0].l, 4);                                                       \
        G##_check_msm(pts, k, n, &want);                                                           \
        for (size_t i = 0; i < n; i++) set_small(&k[i], 1);                                        \
        G##_check_msm(pts, k, n, &sum);                                                            \
    out:                                                                                           \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }

MSM_TESTS(cuzk_g1)
MSM_TESTS(cuzk_g2)

static void test_scalar_conversion(void) {
    enum { N = 40000 }; /* several conversion blocks */
    cuzk_fr *f = malloc(N * sizeof *f);
    cuzk_scalar *k = malloc(N * sizeof *k);
    CHECK(f && k);
    if (!f || !k) goto out;
    for (size_t i = 0; i < N; i++) cuzk_fr_random(&f[i], &test_rng);
    cuzk_fr_set_zero(&f[0]);
    cuzk_fr_set_one(&f[1]);
    for (int p = 0; p < NPOOLS; p++) {
        int ok = 1;
        cuzk_scalar_batch_from_fr(pools[p], k, f, N);
        for (size_t i = 0; i < N; i++) {
            uint64_t want[4];
            cuzk_fr_to_canonical(want, &f[i]);
            ok &= memcmp(want, k[i].l, sizeof want) == 0;
        }
        CHECK(ok);
    }
    CHECK(k[0].l[0] == 0 && k[1].l[0] == 1 && k[1].l[1] == 0);
    /* in place */
    cuzk_scalar *inplace = (cuzk_scalar *)f;
    cuzk_scalar_batch_from_fr(pools[1], inplace, f, N);
    CHECK(memcmp(inplace, k, N * sizeof *k) == 0);
    cuzk_fr one;
    cuzk_scalar s;
    cuzk_fr_set_one(&one);
    cuzk_scalar_from_fr(&s, &one);
    CHECK(s.l[0] == 1 && s.l[1] == 0 && s.l[2] == 0 && s.l[3] == 0);
out:
    free(f);
    free(k);
}

static void test_errors(void) {
    cuzk_g1 g1;
    cuzk_g2 g2;
    /* too many points: refused before any input is read */
    CHECK(cuzk_g1_msm(NULL, &g1, NULL, NULL, (size_t)1 << 31) == CUZK_EINVAL);
    CHECK(cuzk_g2_msm(NULL, &g2, NULL, NULL, (size_t)1 << 31) == CUZK_EINVAL);
    struct cuzk_msm_tuning wide = {.window = 19}, slab1 = {.slab = 1};
    CHECK(cuzk_g1_msm_tuned(NULL, &g1, NULL, NULL, 0, &wide) == CUZK_EINVAL);
    CHECK(cuzk_g2_msm_tuned(NULL, &g2, NULL, NULL, 0, &slab1) == CUZK_EINVAL);
    /* no points: the identity */
    CHECK(cuzk_g1_msm(pools[1], &g1, NULL, NULL, 0) == CUZK_OK && cuzk_g1_is_inf(&g1));
    CHECK(cuzk_g2_msm(pools[1], &g2, NULL, NULL, 0) == CUZK_OK && cuzk_g2_is_inf(&g2));
}

int main(void) {
    test_init("test_msm");
    for (int p = 1; p < NPOOLS; p++) {
        if (cuzk_pool_create(&pools[p], pool_threads[p], "msm-test") != CUZK_OK) {
            fprintf(stderr, "cannot create a pool\n");
            return 1;
        }
    }
    static const size_t g1_sizes[] = {0, 1, 2, 3, 7, 31, 100, 1000, 4096};
    static const size_t g2_sizes[] = {0, 1, 2, 3, 7, 31, 100, 600};
    static const size_t mixed_sizes[] = {5, 64, 1000};
    test_scalar_conversion();
    test_errors();
    cuzk_g1_sizes(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], RANDOM);
    cuzk_g1_sizes(mixed_sizes, sizeof mixed_sizes / sizeof mixed_sizes[0], ZERO_ONE);
    cuzk_g1_sizes(mixed_sizes, sizeof mixed_sizes / sizeof mixed_sizes[0], EDGE);
    cuzk_g1_special(300);
    cuzk_g1_tuning(300, 12);
    cuzk_g1_large(1 << 14);
    cuzk_g2_sizes(g2_sizes, sizeof g2_sizes / sizeof g2_sizes[0], RANDOM);
    cuzk_g2_sizes(mixed_sizes, 2, ZERO_ONE);
    cuzk_g2_sizes(mixed_sizes, 2, EDGE);
    cuzk_g2_special(100);
    cuzk_g2_tuning(100, 9);
    cuzk_g2_large(1 << 12);
    for (int p = 1; p < NPOOLS; p++) cuzk_pool_destroy(pools[p]);
    return test_finish();
}
