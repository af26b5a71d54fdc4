/* Multi-scalar multiplication against the naive sum of scalar multiplications, on G1 and G2:
 * every shared MSM case (tests/msm_cases.h: the shapes a Groth16 witness and key take, zero
 * and one scalars, identity points, the exceptional cases of the group law such as repeated
 * points, equal scalars and pairs that cancel, digit-edge scalars and scalars above r) at
 * small sizes and at the largest size the reference affords, random inputs of larger sizes,
 * forced window widths, splits, passes and slabs, and thread counts 1, 2 and 4, which must
 * all agree. Larger inputs are checked against identities that need no reference (a split
 * sum, or k times a plain sum). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "msm/msm.h"
#include "msm_cases.h"
#include "test_util.h"

#define NPOOLS 3
static struct cuzk_pool *pools[NPOOLS]; /* 1, 2 and 4 threads (the first is NULL) */
static const unsigned pool_threads[NPOOLS] = {1, 2, 4};

/* The tests, written once for both groups: G the type prefix, S the short name. */
#define MSM_TESTS(G, S)                                                                            \
    /* msm on every pool equals want */                                                            \
    static void G##_check_msm(const char *what, const G##_affine *pts, const cuzk_scalar *k,       \
                              size_t n, const G *want) {                                           \
        for (int p = 0; p < NPOOLS; p++) {                                                         \
            G got;                                                                                 \
            int err = G##_msm(pools[p], &got, pts, k, n);                                          \
            CHECK(err == CUZK_OK);                                                                 \
            CHECK(G##_is_on_curve(&got));                                                          \
            CHECK(G##_eq(&got, want));                                                             \
            if (err != CUZK_OK || !G##_eq(&got, want))                                             \
                fprintf(stderr, #G " msm: %s, n = %zu, %u threads: wrong sum\n", what, n,          \
                        pool_threads[p]);                                                          \
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
    /* Every shared case at size n against its answer: the closed form (which the reference        \
     * must give too) or the reference over the prefix that does not cancel. */                    \
    static void G##_cases(size_t n) {                                                              \
        G##_affine *src = test_xmalloc(n * sizeof *src), *pts = test_xmalloc(n * sizeof *pts);     \
        cuzk_scalar *k = test_xmalloc(n * sizeof *k);                                              \
        test_##S##_points(NULL, src, n);                                                           \
        for (size_t c = 0; c < MSM_NCASES; c++) {                                                  \
            const struct msm_case *mc = &msm_cases[c];                                             \
            G want, ref;                                                                           \
            char what[160];                                                                        \
            const struct msm_answer a = G##_case_make(mc, n, src, pts, k, &want);                  \
            msm_case_name(what, sizeof what, mc);                                                  \
            G##_msm_ref(&ref, pts, k, a.known ? n : a.prefix);                                     \
            if (a.known) {                                                                         \
                CHECK(G##_eq(&ref, &want));                                                        \
                if (!G##_eq(&ref, &want))                                                          \
                    fprintf(stderr, #G " msm_ref: %s, n = %zu: not the known answer\n", what, n);  \
            } else {                                                                               \
                want = ref;                                                                        \
            }                                                                                      \
            G##_check_msm(what, pts, k, n, &want);                                                 \
        }                                                                                          \
        free(src);                                                                                 \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }                                                                                              \
    /* random points and scalars of the given shape, every size, against the reference */          \
    static void G##_sizes(const size_t *sizes, size_t nsizes, enum msm_scalars sh) {               \
        for (size_t s = 0; s < nsizes; s++) {                                                      \
            const size_t n = sizes[s];                                                             \
            G##_affine *pts = test_xmalloc(n * sizeof *pts);                                       \
            cuzk_scalar *k = test_xmalloc(n * sizeof *k);                                          \
            G want;                                                                                \
            test_##S##_points(NULL, pts, n);                                                       \
            msm_scalars_make(k, n, sh);                                                            \
            G##_msm_ref(&want, pts, k, n);                                                         \
            G##_check_msm(msm_scalars_name[sh], pts, k, n, &want);                                 \
            free(pts);                                                                             \
            free(k);                                                                               \
        }                                                                                          \
    }                                                                                              \
    /* Every window width up to max_window, split windows, short sort passes and tiny slabs        \
     * (bucket sums carried across passes and slabs), on the scalar shapes that stress them;       \
     * one reference per input. */                                                                 \
    static void G##_tuning(size_t n, unsigned max_window) {                                        \
        G##_affine *pts = test_xmalloc(n * sizeof *pts);                                           \
        cuzk_scalar *k = test_xmalloc(n * sizeof *k);                                              \
        G want;                                                                                    \
        test_##S##_points(NULL, pts, n);                                                           \
        msm_scalars_make(k, n, MSM_EDGE);                                                          \
        for (size_t i = 0; i < n; i += 5) test_scalar_set(&k[i], i % 2); /* more zeros and ones */ \
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
        test_scalar_random(&k[0]);                                                                 \
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
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }                                                                                              \
    /* Sizes past the reference's reach: msm(all) = msm(first half) + msm(second half) for         \
     * random scalars, k * (plain sum) for one scalar k (one bucket larger than a slab), and       \
     * the plain sum for scalars all 1. */                                                         \
    static void G##_large(size_t n) {                                                              \
        G##_affine *pts = test_xmalloc(n * sizeof *pts);                                           \
        cuzk_scalar *k = test_xmalloc(n * sizeof *k);                                              \
        G want, lo, hi, sum;                                                                       \
        test_##S##_points(NULL, pts, n);                                                           \
        msm_scalars_make(k, n, MSM_RANDOM);                                                        \
        CHECK(G##_msm(pools[1], &lo, pts, k, n / 2) == CUZK_OK);                                   \
        CHECK(G##_msm(pools[1], &hi, pts + n / 2, k + n / 2, n - n / 2) == CUZK_OK);               \
        G##_add(&want, &lo, &hi);                                                                  \
        CHECK(!G##_is_inf(&want));                                                                 \
        G##_check_msm("halves", pts, k, n, &want);                                                 \
        G##_set_inf(&sum);                                                                         \
        for (size_t i = 0; i < n; i++) G##_add_affine(&sum, &sum, &pts[i]);                        \
        test_scalar_random(&k[0]);                                                                 \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        G##_mul_var(&want, &sum, k[0].l, 4);                                                       \
        G##_check_msm("one scalar", pts, k, n, &want);                                             \
        for (size_t i = 0; i < n; i++) test_scalar_set(&k[i], 1);                                  \
        G##_check_msm("all one", pts, k, n, &sum);                                                 \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }

MSM_TESTS(cuzk_g1, g1)
MSM_TESTS(cuzk_g2, g2)

static void test_scalar_conversion(void) {
    enum { N = 40000 }; /* several conversion blocks */
    cuzk_fr *f = test_xmalloc(N * sizeof *f);
    cuzk_scalar *k = test_xmalloc(N * sizeof *k);
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
    static const size_t g1_random[] = {1000, 4096}, g1_mixed[] = {1000}, g2_random[] = {600};
    test_scalar_conversion();
    test_errors();
    for (size_t s = 0; s < MSM_NCASE_SIZES; s++) cuzk_g1_cases(msm_case_sizes[s]);
    cuzk_g1_cases(300);
    cuzk_g1_sizes(g1_random, sizeof g1_random / sizeof g1_random[0], MSM_RANDOM);
    cuzk_g1_sizes(g1_mixed, sizeof g1_mixed / sizeof g1_mixed[0], MSM_ZERO_ONE);
    cuzk_g1_sizes(g1_mixed, sizeof g1_mixed / sizeof g1_mixed[0], MSM_EDGE);
    cuzk_g1_tuning(300, 12);
    cuzk_g1_large(1 << 14);
    for (size_t s = 0; s < MSM_NCASE_SIZES; s++) cuzk_g2_cases(msm_case_sizes[s]);
    cuzk_g2_cases(100);
    cuzk_g2_sizes(g2_random, sizeof g2_random / sizeof g2_random[0], MSM_RANDOM);
    cuzk_g2_tuning(100, 9);
    cuzk_g2_large(1 << 12);
    for (int p = 1; p < NPOOLS; p++) cuzk_pool_destroy(pools[p]);
    return test_finish();
}
