/* The GPU MSM against the CPU (src/msm/msm.h, cuzk_g*_mul_var), on fresh random inputs:
 *   - the device field arithmetic (Fp and Fp2 add, sub, mul, sqr) on every pair of edge values
 *     and 10^4 random pairs, bit for bit, the inversions (Fp and Fp2, the binary GCD) on the
 *     special inputs of test_util.h and 20 000 / 4000 random elements, and the device XYZZ
 *     formulas (cuzk_gpu_g*_add_eval) on random points and on a = b, a = -b, b = 3a and
 *     identities;
 *   - every shared MSM case (tests/msm_cases.h, the cases test_msm runs on the CPU: zero, one,
 *     edge and above-r scalars, identity, repeated and negated bases, P and -P pairs, one
 *     scalar everywhere) at its small sizes and at 2^12 (G2: 2^10), each against cuzk_g*_msm on
 *     a pool of all cores and against the answer where the case knows it;
 *   - G1 MSMs over resident bases at n = 1, 2, 3, 7, every 2^k up to 2^20 and 1000003; at 2^12
 *     also every scalar shape, forced window widths, the bit-witness path forced on and off on
 *     a 90% zero/one vector, offset ranges and the last bases; G2 likewise at smaller sizes;
 *   - scalars in device memory as Montgomery Fr (an NTT context's buffer, cuzk_gpu_ntt_load);
 *   - batch multiplication against cuzk_g*_mul_var, across a chunk boundary;
 *   - argument errors (n above max_n, bases of the other group, ranges outside the bases).
 * A machine without a GPU reports the test skipped (exit 77). On a wrong MSM the test prints
 * the size, the case and the MSM's phase times. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ff/fr_vec.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "msm/msm.h"
#include "msm_cases.h"
#include "test_util.h"

#define G1_MAX_LOG 20
#define G2_MAX_LOG 16
#define OFFSET_ROOM 4096 /* bases beyond 2^max_log, for offset ranges */
#define CTX_MAX_N ((size_t)1 << G1_MAX_LOG)

static struct cuzk_pool *pool;
static struct cuzk_gpu_msm_ctx *ctx; /* with a presum space (CUZK_GPU_MSM_PRESUM) */
/* Set while ctx's tuning forces the presum level: each check then also wants it to have run on
 * every set of a G1 windowed pass of two scalars or more (ctx's space holds every G1 batch), and
 * on some set of a G2 one (the first sets of a batch that the space holds). */
static int presum_forced;

/* A GPU call that must succeed; prints the CUDA failure otherwise. */
static int gpu_ok(int err, const char *what) {
    CHECK(err == CUZK_OK);
    if (err != CUZK_OK)
        fprintf(stderr, "test_gpu_msm: %s failed: %s (%s)\n", what, cuzk_strerror(err),
                cuzk_gpu_msm_last_error());
    return err == CUZK_OK;
}

/* ---- device field arithmetic ----------------------------------------------------------------- */

static void test_field(void) {
    cuzk_fp edges[TEST_FP_NEDGES];
    test_fp_edges(edges);
    const size_t ne = TEST_FP_NEDGES, n = ne * ne + 10000;
    /* Fp2 pairs are built from two Fp pairs: 2n Fp values per operand */
    cuzk_fp *a = test_xmalloc(2 * n * sizeof *a), *b = test_xmalloc(2 * n * sizeof *b),
            *got = test_xmalloc(2 * n * sizeof *got), *want = test_xmalloc(2 * n * sizeof *want);
    for (size_t i = 0; i < 2 * n; i++) {
        cuzk_fp_random(&a[i], &test_rng);
        cuzk_fp_random(&b[i], &test_rng);
    }
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            a[i * ne + j] = edges[i];
            b[i * ne + j] = edges[j];
            /* in Fp2: the edge values in both halves */
            a[2 * n - 1 - (i * ne + j)] = edges[j];
            b[2 * n - 1 - (i * ne + j)] = edges[i];
        }
    static const char *name[] = {"fp add",  "fp sub",  "fp mul",  "fp sqr",
                                 "fp2 add", "fp2 sub", "fp2 mul", "fp2 sqr"};
    for (int op = CUZK_GPU_FP_ADD; op <= CUZK_GPU_FP2_SQR; op++) {
        const int two = op >= CUZK_GPU_FP2_ADD;
        const cuzk_fp2 *a2 = (const cuzk_fp2 *)a, *b2 = (const cuzk_fp2 *)b;
        cuzk_fp2 *w2 = (cuzk_fp2 *)want;
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case CUZK_GPU_FP_ADD: cuzk_fp_add(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_SUB: cuzk_fp_sub(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_MUL: cuzk_fp_mul(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_SQR: cuzk_fp_sqr(&want[i], &a[i]); break;
            case CUZK_GPU_FP2_ADD: cuzk_fp2_add(&w2[i], &a2[i], &b2[i]); break;
            case CUZK_GPU_FP2_SUB: cuzk_fp2_sub(&w2[i], &a2[i], &b2[i]); break;
            case CUZK_GPU_FP2_MUL: cuzk_fp2_mul(&w2[i], &a2[i], &b2[i]); break;
            default: cuzk_fp2_sqr(&w2[i], &a2[i]); break;
            }
        }
        memset(got, 0xa5, 2 * n * sizeof *got);
        if (!gpu_ok(cuzk_gpu_fp_eval(0, (enum cuzk_gpu_fp_op)op, a, b, got, n), "fp_eval"))
            continue;
        const size_t words = two ? 2 * n : n;
        size_t bad = 0;
        for (size_t i = 0; i < words; i++) {
            if (cuzk_fp_eq(&got[i], &want[i])) continue;
            if (!bad++) {
                const size_t e = two ? i / 2 : i; /* the element whose result differs */
                fprintf(stderr, "test_gpu_msm: %s wrong at element %zu (word %zu)\n", name[op], e,
                        i);
                const cuzk_fp *x = two ? &a[2 * e] : &a[e], *y = two ? &b[2 * e] : &b[e];
                for (int h = 0; h <= two; h++)
                    fprintf(stderr, "  a%d 0x%016llx..%016llx  b%d 0x%016llx..%016llx\n", h,
                            (unsigned long long)x[h].l[5], (unsigned long long)x[h].l[0], h,
                            (unsigned long long)y[h].l[5], (unsigned long long)y[h].l[0]);
            }
        }
        CHECK(bad == 0);
        if (bad)
            fprintf(stderr, "test_gpu_msm: %s: %zu of %zu words wrong\n", name[op], bad, words);
    }
    printf("test_gpu_msm: device Fp and Fp2 arithmetic checked on %zu pairs\n", n);
    free(a);
    free(b);
    free(got);
    free(want);
}

/* The device inversion (the binary GCD: variable time, so the special inputs of test_util.h
 * that take it longest or along rare paths) against cuzk_fp_inv / cuzk_fp2_inv, with random
 * elements; b is left NULL, as the contract allows. */
static void test_field_inv(void) {
    const size_t ns1 = test_fp_specials(NULL), n1 = ns1 + 20000;
    const size_t ns2 = test_fp2_specials(NULL), n2 = ns2 + 4000;
    cuzk_fp *a = test_xmalloc(n1 * sizeof *a), *got = test_xmalloc(n1 * sizeof *got),
            *want = test_xmalloc(n1 * sizeof *want);
    cuzk_fp2 *a2 = test_xmalloc(n2 * sizeof *a2), *got2 = test_xmalloc(n2 * sizeof *got2),
             *want2 = test_xmalloc(n2 * sizeof *want2);
    test_fp_specials(a);
    for (size_t i = ns1; i < n1; i++) cuzk_fp_random(&a[i], &test_rng);
    for (size_t i = 0; i < n1; i++) cuzk_fp_inv(&want[i], &a[i]);
    test_fp2_specials(a2);
    for (size_t i = ns2; i < n2; i++) cuzk_fp2_random(&a2[i], &test_rng);
    for (size_t i = 0; i < n2; i++) cuzk_fp2_inv(&want2[i], &a2[i]);
    memset(got, 0xa5, n1 * sizeof *got);
    memset(got2, 0xa5, n2 * sizeof *got2);
    if (gpu_ok(cuzk_gpu_fp_eval(0, CUZK_GPU_FP_INV, a, NULL, got, n1), "fp_eval (fp inv)")) {
        size_t bad = 0;
        for (size_t i = 0; i < n1; i++) {
            if (cuzk_fp_eq(&got[i], &want[i])) continue;
            if (!bad++)
                fprintf(stderr, "test_gpu_msm: fp inv wrong at %zu: a 0x%016llx..%016llx\n", i,
                        (unsigned long long)a[i].l[5], (unsigned long long)a[i].l[0]);
        }
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "test_gpu_msm: fp inv: %zu of %zu wrong\n", bad, n1);
    }
    if (gpu_ok(cuzk_gpu_fp_eval(0, CUZK_GPU_FP2_INV, a2, NULL, got2, n2), "fp_eval (fp2 inv)")) {
        size_t bad = 0;
        for (size_t i = 0; i < n2; i++) bad += !cuzk_fp2_eq(&got2[i], &want2[i]);
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "test_gpu_msm: fp2 inv: %zu of %zu wrong\n", bad, n2);
    }
    /* the product on the special inputs: each one times another special and times a random
     * element, then random pairs */
    cuzk_fp *b = test_xmalloc(n1 * sizeof *b);
    for (size_t i = 0; i < n1; i++) {
        b[i] = i < ns1 ? a[(i * 7919 + 1) % ns1] : a[i - ns1];
        cuzk_fp_mul(&want[i], &a[i], &b[i]);
    }
    memset(got, 0xa5, n1 * sizeof *got);
    if (gpu_ok(cuzk_gpu_fp_eval(0, CUZK_GPU_FP_MUL, a, b, got, n1), "fp_eval (fp mul)")) {
        size_t bad = 0;
        for (size_t i = 0; i < n1; i++) {
            if (cuzk_fp_eq(&got[i], &want[i])) continue;
            if (!bad++)
                fprintf(stderr,
                        "test_gpu_msm: fp mul wrong at %zu: a 0x%016llx..%016llx b "
                        "0x%016llx..%016llx\n",
                        i, (unsigned long long)a[i].l[5], (unsigned long long)a[i].l[0],
                        (unsigned long long)b[i].l[5], (unsigned long long)b[i].l[0]);
        }
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "test_gpu_msm: fp mul: %zu of %zu wrong\n", bad, n1);
    }
    free(b);
    printf("test_gpu_msm: device inversion and product checked on %zu Fp (%zu special) and "
           "%zu Fp2 (%zu special) elements\n",
           n1, ns1, n2, ns2);
    free(a);
    free(got);
    free(want);
    free(a2);
    free(got2);
    free(want2);
}

/* ---- the XYZZ formulas ----------------------------------------------------------------------- */

#define ADD_TEST(G, S, N)                                                                          \
    static void G##_test_add(void) {                                                               \
        const size_t n = N;                                                                        \
        G##_affine *a = test_xmalloc(n * sizeof *a), *b = test_xmalloc(n * sizeof *b);             \
        G *sum = test_xmalloc(n * sizeof *sum), *dbl = test_xmalloc(n * sizeof *dbl);              \
        test_##S##_points(pool, a, n);                                                             \
        test_##S##_points(pool, b, n);                                                             \
        b[0] = a[0];                                                                               \
        G##_affine_neg(&b[1], &a[1]);                                                              \
        G##_affine_set_inf(&a[2]);                                                                 \
        G##_affine_set_inf(&b[3]);                                                                 \
        G##_affine_set_inf(&a[4]);                                                                 \
        G##_affine_set_inf(&b[4]);                                                                 \
        for (size_t i = 5; i < 8; i++) {                                                           \
            G t;                                                                                   \
            uint64_t three[1] = {3};                                                               \
            G##_from_affine(&t, &a[i]);                                                            \
            G##_mul_var(&t, &t, three, 1);                                                         \
            G##_to_affine(&b[i], &t);                                                              \
        }                                                                                          \
        if (gpu_ok(cuzk_gpu_##S##_add_eval(0, a, b, sum, dbl, n), #G " add_eval")) {               \
            size_t bad = 0;                                                                        \
            for (size_t i = 0; i < n; i++) {                                                       \
                G ja, jb, ws, wd;                                                                  \
                G##_from_affine(&ja, &a[i]);                                                       \
                G##_from_affine(&jb, &b[i]);                                                       \
                G##_add(&ws, &ja, &jb);                                                            \
                G##_dbl(&wd, &ja);                                                                 \
                int ok = G##_eq(&sum[i], &ws) && G##_eq(&dbl[i], &wd) &&                           \
                         G##_is_on_curve(&sum[i]) && G##_is_on_curve(&dbl[i]);                     \
                if (!ok && bad++ < 5)                                                              \
                    fprintf(stderr, "test_gpu_msm: " #G " add_eval wrong at %zu%s\n", i,           \
                            i < 8 ? " (an edge case)" : "");                                       \
            }                                                                                      \
            CHECK(bad == 0);                                                                       \
            printf("test_gpu_msm: " #G " XYZZ formulas on %zu pairs: %s\n", n,                     \
                   bad ? "WRONG" : "ok");                                                          \
        }                                                                                          \
        free(a);                                                                                   \
        free(b);                                                                                   \
        free(sum);                                                                                 \
        free(dbl);                                                                                 \
    }
ADD_TEST(cuzk_g1, g1, 20000)
ADD_TEST(cuzk_g2, g2, 5000)

/* ---- MSM ------------------------------------------------------------------------------------- */

#define MSM_TESTS(G, S)                                                                            \
    /* One GPU MSM against the CPU's, and against *known (NULL: none) when the case knows its      \
     * answer; returns 1 if all agree. */                                                          \
    static int G##_check(const char *what, const struct cuzk_gpu_bases *db, const G##_affine *hb,  \
                         size_t offset, const cuzk_scalar *k, size_t n, const G *known) {          \
        G want, got;                                                                               \
        double t0 = test_now_ms();                                                                 \
        CHECK(G##_msm(pool, &want, hb + offset, k, n) == CUZK_OK);                                 \
        double t1 = test_now_ms();                                                                 \
        int err = cuzk_gpu_##S##_msm(ctx, db, offset, k, n, &got);                                 \
        double t2 = test_now_ms();                                                                 \
        if (!gpu_ok(err, #G " msm")) return 0;                                                     \
        int ok = G##_eq(&got, &want) && G##_is_on_curve(&got);                                     \
        CHECK(ok);                                                                                 \
        if (known) {                                                                               \
            const int cpu_known = G##_eq(&want, known), gpu_known = G##_eq(&got, known);           \
            CHECK(cpu_known);                                                                      \
            CHECK(gpu_known);                                                                      \
            if (!cpu_known)                                                                        \
                fprintf(stderr,                                                                    \
                        "test_gpu_msm: " #G " n=%zu %s: the CPU MSM is not the known "             \
                        "answer\n",                                                                \
                        n, what);                                                                  \
            ok &= gpu_known;                                                                       \
        }                                                                                          \
        struct cuzk_gpu_msm_timing t;                                                              \
        cuzk_gpu_msm_last_timing(ctx, &t);                                                         \
        if (presum_forced && t.windowed >= 2) {                                                    \
            const int pre_ok = sizeof(G##_affine) == sizeof(cuzk_g1_affine)                        \
                                   ? t.presum_sets == t.sets                                       \
                                   : t.presum_sets > 0;                                            \
            CHECK(pre_ok);                                                                         \
            if (!pre_ok)                                                                           \
                fprintf(stderr, "test_gpu_msm: " #G " n=%zu %s: presum level on %u of %u sets\n",  \
                        n, what, t.presum_sets, t.sets);                                           \
            ok &= pre_ok;                                                                          \
        }                                                                                          \
        if (!ok || n >= ((size_t)1 << 18))                                                         \
            printf("test_gpu_msm: " #G " n=%zu %s offset %zu: %s; gpu %.2f ms (events %.2f: "      \
                   "upload %.2f bits %.2f sort %.2f accum %.2f reduce %.2f), cpu %.1f ms\n",       \
                   n, what, offset, ok ? "ok" : "WRONG", t2 - t1, (double)t.total_ms,              \
                   (double)t.upload_ms, (double)t.bits_ms, (double)t.sort_ms, (double)t.accum_ms,  \
                   (double)t.reduce_ms, t1 - t0);                                                  \
        return ok;                                                                                 \
    }                                                                                              \
    static int G##_check_shape(const char *what, const struct cuzk_gpu_bases *db,                  \
                               const G##_affine *hb, size_t offset, cuzk_scalar *k, size_t n,      \
                               enum msm_scalars sh) {                                              \
        char label[160];                                                                           \
        snprintf(label, sizeof label, "%.100s, %s scalars", what, msm_scalars_name[sh]);           \
        msm_scalars_make(k, n, sh);                                                                \
        return G##_check(label, db, hb, offset, k, n, NULL);                                       \
    }                                                                                              \
    static void G##_tuned(const char *what, const struct cuzk_gpu_bases *db, const G##_affine *hb, \
                          cuzk_scalar *k, size_t n, enum msm_scalars sh, unsigned window,          \
                          int bits) {                                                              \
        struct cuzk_gpu_msm_tuning t = {window, bits, 0, 0, 0, 0, 0};                              \
        char label[160];                                                                           \
        snprintf(label, sizeof label, "%.100s (window %u, bit path %d)", what, window, bits);      \
        cuzk_gpu_msm_tune(ctx, &t);                                                                \
        G##_check_shape(label, db, hb, 0, k, n, sh);                                               \
        cuzk_gpu_msm_tune(ctx, NULL);                                                              \
    }                                                                                              \
    /* Every shared case (tests/msm_cases.h) at size n, each with its bases uploaded on their      \
     * own: against the CPU, and against the answer the case knows (the closed form, or the CPU's  \
     * MSM of the prefix that does not cancel). Returns how many were right. */                    \
    static size_t G##_cases(size_t n) {                                                            \
        G##_affine *src = test_xmalloc(n * sizeof *src), *hb = test_xmalloc(n * sizeof *hb);       \
        cuzk_scalar *k = test_xmalloc(n * sizeof *k);                                              \
        size_t right = 0;                                                                          \
        test_##S##_points(pool, src, n);                                                           \
        for (size_t c = 0; c < MSM_NCASES; c++) {                                                  \
            const struct msm_case *mc = &msm_cases[c];                                             \
            struct cuzk_gpu_bases *db = NULL;                                                      \
            char what[160];                                                                        \
            G ans;                                                                                 \
            const struct msm_answer a = G##_case_make(mc, n, src, hb, k, &ans);                    \
            msm_case_name(what, sizeof what, mc);                                                  \
            if (!a.known && a.prefix < n) CHECK(G##_msm(pool, &ans, hb, k, a.prefix) == CUZK_OK);  \
            if (gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, n, &db), #G " case bases upload"))       \
                right += (size_t)G##_check(what, db, hb, 0, k, n,                                  \
                                           a.known || a.prefix < n ? &ans : NULL);                 \
            cuzk_gpu_bases_free(db);                                                               \
        }                                                                                          \
        free(src);                                                                                 \
        free(hb);                                                                                  \
        free(k);                                                                                   \
        return right;                                                                              \
    }                                                                                              \
    /* Scalars from host memory in chunks of several sizes, from pageable and from page-locked     \
     * memory (transferred in place): the same bytes as the default upload, and the right sum. */  \
    static void G##_chunks(const struct cuzk_gpu_bases *db, const G##_affine *hb, cuzk_scalar *k,  \
                           size_t n, enum msm_scalars sh) {                                        \
        G one, got;                                                                                \
        cuzk_scalar *pk = NULL;                                                                    \
        G##_check_shape("chunk reference", db, hb, 0, k, n, sh);                                   \
        if (!gpu_ok(cuzk_gpu_##S##_msm(ctx, db, 0, k, n, &one), "msm")) return;                    \
        if (!gpu_ok(cuzk_gpu_pinned_alloc(n * sizeof *pk, (void **)&pk), "pinned alloc")) return;  \
        memcpy(pk, k, n * sizeof *pk);                                                             \
        static const size_t chunks[] = {1, 1000, 4099, 65536, 1u << 30};                           \
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {                            \
            if (chunks[c] == 1 && n > 5000) continue; /* one launch per scalar: small n only */    \
            struct cuzk_gpu_msm_tuning t = {0, 0, chunks[c], 0, 0, 0, 0};                          \
            cuzk_gpu_msm_tune(ctx, &t);                                                            \
            for (int pinned = 0; pinned <= 1; pinned++) {                                          \
                const int ok = gpu_ok(cuzk_gpu_##S##_msm(ctx, db, 0, pinned ? pk : k, n, &got),    \
                                      "chunked msm") &&                                            \
                               !memcmp(&got, &one, sizeof got);                                    \
                CHECK(ok);                                                                         \
                if (!ok)                                                                           \
                    fprintf(stderr, "test_gpu_msm: " #G " n=%zu: chunks of %zu (%s) differ\n", n,  \
                            chunks[c], pinned ? "pinned" : "pageable");                            \
            }                                                                                      \
        }                                                                                          \
        cuzk_gpu_msm_tune(ctx, NULL);                                                              \
        cuzk_gpu_pinned_free(pk, n * sizeof *pk);                                                  \
    }                                                                                              \
    static void G##_test_msm(int max_log, int special_log, int odd) {                              \
        const size_t nb = ((size_t)1 << max_log) + OFFSET_ROOM;                                    \
        const size_t ns = (size_t)1 << special_log;                                                \
        size_t right = 0, runs = 0;                                                                \
        for (size_t s = 0; s < MSM_NCASE_SIZES; s++)                                               \
            right += G##_cases(msm_case_sizes[s]), runs += MSM_NCASES;                             \
        right += G##_cases(ns), runs += MSM_NCASES;                                                \
        printf("test_gpu_msm: " #G " shared cases at %zu sizes up to %zu: %zu of %zu right\n",     \
               MSM_NCASE_SIZES + 1, ns, right, runs);                                              \
        { /* the shared cases again with the bit path and the ones' batch-affine levels forced     \
           * (down to one point; identity bases, equal and cancelling points among the ones) */    \
            const struct cuzk_gpu_msm_tuning tree = {0, 1, 0, 0, 1, 0, 0};                         \
            size_t tright = 0;                                                                     \
            cuzk_gpu_msm_tune(ctx, &tree);                                                         \
            tright += G##_cases(ns);                                                               \
            cuzk_gpu_msm_tune(ctx, NULL);                                                          \
            printf("test_gpu_msm: " #G                                                             \
                   " shared cases at %zu, ones tree forced: %zu of %d right\n",                    \
                   ns, tright, (int)MSM_NCASES);                                                   \
        }                                                                                          \
        { /* and with the presum level forced on every set: pair sums of one bucket, among them    \
           * doublings, cancelling pairs and identity bases */                                     \
            const struct cuzk_gpu_msm_tuning pre = {0, 0, 0, 0, 0, 0, 1};                          \
            size_t pright = 0;                                                                     \
            cuzk_gpu_msm_tune(ctx, &pre);                                                          \
            presum_forced = 1;                                                                     \
            for (size_t s = 0; s < MSM_NCASE_SIZES; s++) pright += G##_cases(msm_case_sizes[s]);   \
            pright += G##_cases(ns);                                                               \
            presum_forced = 0;                                                                     \
            cuzk_gpu_msm_tune(ctx, NULL);                                                          \
            printf("test_gpu_msm: " #G                                                             \
                   " shared cases at %zu sizes up to %zu, presum forced: %zu of %d right\n",       \
                   MSM_NCASE_SIZES + 1, ns, pright, (int)((MSM_NCASE_SIZES + 1) * MSM_NCASES));    \
        }                                                                                          \
        G##_affine *hb = test_xmalloc(nb * sizeof *hb);                                            \
        cuzk_scalar *k = test_xmalloc(nb * sizeof *k);                                             \
        struct cuzk_gpu_bases *db = NULL;                                                          \
        double t0 = test_now_ms();                                                                 \
        test_##S##_points(pool, hb, nb);                                                           \
        printf("test_gpu_msm: " #G ": %zu random bases in %.0f ms\n", nb, test_now_ms() - t0);     \
        if (!gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, nb, &db), #G " bases upload")) goto out;    \
        CHECK(cuzk_gpu_bases_count(db) == nb);                                                     \
        CHECK(cuzk_gpu_bases_vram(db) == cuzk_gpu_bases_vram_for(CUZK_GPU_##S##_ID, nb));          \
        /* ranges of the resident bases: tiny ones, at offsets too */                              \
        static const size_t tiny[] = {1, 2, 3, 7};                                                 \
        for (size_t i = 0; i < 4; i++) {                                                           \
            G##_check_shape("tiny", db, hb, 0, k, tiny[i], MSM_RANDOM);                            \
            G##_check_shape("tiny", db, hb, 0, k, tiny[i], MSM_EDGE);                              \
            G##_check_shape("tiny", db, hb, 5, k, tiny[i], MSM_ONE);                               \
        }                                                                                          \
        right = runs = 0;                                                                          \
        for (int lg = 4; lg <= max_log; lg++) {                                                    \
            const size_t n = (size_t)1 << lg;                                                      \
            right += G##_check_shape("2^k", db, hb, 0, k, n, MSM_RANDOM), runs++;                  \
            right += G##_check_shape("2^k", db, hb, 0, k, n, MSM_BITS), runs++;                    \
        }                                                                                          \
        printf("test_gpu_msm: " #G " 2^4..2^%d, random and 90%% bits: %zu of %zu right\n",         \
               max_log, right, runs);                                                              \
        G##_check_shape("odd size", db, hb, 0, k, (size_t)odd, MSM_RANDOM);                        \
        G##_check_shape("odd size, offset", db, hb, OFFSET_ROOM - 1, k, (size_t)odd,               \
                        MSM_SOMEZERO);                                                             \
        /* every scalar shape on a range of the resident bases (the cases upload their own) */     \
        for (int sh = MSM_RANDOM; sh <= MSM_SAME_EDGE; sh++)                                       \
            G##_check_shape("resident", db, hb, 0, k, ns, (enum msm_scalars)sh);                   \
        G##_check_shape("offset range", db, hb, 1000, k, ns, MSM_RANDOM);                          \
        G##_chunks(db, hb, k, 3001, MSM_BITS);                                                     \
        G##_chunks(db, hb, k, (size_t)odd, MSM_RANDOM);                                            \
        G##_check_shape("last bases", db, hb, nb - ns, k, ns, MSM_EDGE);                           \
        static const unsigned windows[] = {8, 9, 12, 13, 16, 17, 20, 22};                          \
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {                          \
            G##_tuned("forced window", db, hb, k, ns, MSM_RANDOM, windows[w], 0);                  \
            G##_tuned("forced window", db, hb, k, ns + 17, MSM_EDGE, windows[w], 0);               \
        }                                                                                          \
        for (int bits = -1; bits <= 1; bits++) {                                                   \
            G##_tuned("bit path", db, hb, k, ns, MSM_BITS, 0, bits);                               \
            G##_tuned("bit path", db, hb, k, ns, MSM_ONE, 0, bits);                                \
            G##_tuned("bit path", db, hb, k, ns, MSM_RANDOM, 0, bits);                             \
            G##_tuned("bit path", db, hb, k, (size_t)1 << max_log, MSM_BITS, 0, bits);             \
        }                                                                                          \
        /* the sum of the ones by batch-affine levels down to one point, in one chunk and in       \
         * chunks of an odd length, and by XYZZ sums alone */                                      \
        static const struct cuzk_gpu_msm_tuning trees[] = {                                        \
            {0, 1, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 1, 1001, 0}, {0, 1, 0, 0, -1, 0, 0}};              \
        for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {                              \
            cuzk_gpu_msm_tune(ctx, &trees[t]);                                                     \
            G##_check_shape("ones tree", db, hb, 0, k, ns, MSM_BITS);                              \
            G##_check_shape("ones tree", db, hb, 0, k, ns, MSM_ONE);                               \
            G##_check_shape("ones tree", db, hb, 0, k, (size_t)1 << max_log, MSM_BITS);            \
            cuzk_gpu_msm_tune(ctx, NULL);                                                          \
        }                                                                                          \
        { /* the presum level forced: every scalar shape, the largest size, an offset, narrow      \
           * windows (short runs: many pairs of two buckets), the bit path's rest */               \
            const struct cuzk_gpu_msm_tuning pre = {0, 0, 0, 0, 0, 0, 1},                          \
                                             pre_narrow = {8, 0, 0, 0, 0, 0, 1},                   \
                                             pre_wide = {22, 0, 0, 0, 0, 0, 1};                    \
            presum_forced = 1;                                                                     \
            cuzk_gpu_msm_tune(ctx, &pre);                                                          \
            for (int sh = MSM_RANDOM; sh <= MSM_SAME_EDGE; sh++)                                   \
                G##_check_shape("presum", db, hb, 0, k, ns, (enum msm_scalars)sh);                 \
            G##_check_shape("presum", db, hb, 0, k, (size_t)1 << max_log, MSM_RANDOM);             \
            G##_check_shape("presum", db, hb, 0, k, (size_t)1 << max_log, MSM_BITS);               \
            G##_check_shape("presum, offset", db, hb, OFFSET_ROOM - 1, k, (size_t)odd, MSM_EDGE);  \
            cuzk_gpu_msm_tune(ctx, &pre_narrow);                                                   \
            G##_check_shape("presum, 8-bit windows", db, hb, 0, k, ns + 17, MSM_RANDOM);           \
            cuzk_gpu_msm_tune(ctx, &pre_wide);                                                     \
            G##_check_shape("presum, 22-bit windows", db, hb, 0, k, ns + 17, MSM_EDGE);            \
            cuzk_gpu_msm_tune(ctx, NULL);                                                          \
            presum_forced = 0;                                                                     \
        }                                                                                          \
    out:                                                                                           \
        cuzk_gpu_bases_free(db);                                                                   \
        free(hb);                                                                                  \
        free(k);                                                                                   \
    }
#define CUZK_GPU_g1_ID CUZK_GPU_G1
#define CUZK_GPU_g2_ID CUZK_GPU_G2
MSM_TESTS(cuzk_g1, g1)
MSM_TESTS(cuzk_g2, g2)

/* Scalars in device memory: Montgomery Fr in an NTT context's buffer, uniform and with 90%
 * zeros and ones, at every size in sizes (the last the largest) over bases made for it. */
#define DEV_FR_TEST(G, S)                                                                          \
    static void G##_dev_fr(struct cuzk_gpu_ntt_ctx *nctx, const size_t *sizes, size_t nsizes,      \
                           cuzk_fr *fr, cuzk_scalar *k) {                                          \
        const size_t nb = sizes[nsizes - 1];                                                       \
        G##_affine *hb = test_xmalloc(nb * sizeof *hb);                                            \
        struct cuzk_gpu_bases *db = NULL;                                                          \
        test_##S##_points(pool, hb, nb);                                                           \
        if (!gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, nb, &db), #G " bases upload")) goto out;    \
        for (int bits = 0; bits < 2; bits++) {                                                     \
            for (size_t s = 0; s < nsizes; s++) {                                                  \
                const size_t m = sizes[s];                                                         \
                cuzk_fr_vec_random(pool, fr, m, cuzk_rng_u64(&test_rng));                          \
                if (bits)                                                                          \
                    for (size_t i = 0; i < m; i++)                                                 \
                        if (i % 10 < 9)                                                            \
                            i % 2 ? cuzk_fr_set_one(&fr[i]) : cuzk_fr_set_zero(&fr[i]);            \
                cuzk_scalar_batch_from_fr(pool, k, fr, m);                                         \
                G want, got;                                                                       \
                CHECK(G##_msm(pool, &want, hb, k, m) == CUZK_OK);                                  \
                if (!gpu_ok(cuzk_gpu_ntt_load(nctx, fr, m), "ntt load")) continue;                 \
                if (!gpu_ok(cuzk_gpu_##S##_msm_dev_fr(ctx, db, 0, cuzk_gpu_ntt_ctx_buffer(nctx),   \
                                                      m, &got),                                    \
                            #G " msm_dev_fr"))                                                     \
                    continue;                                                                      \
                CHECK(G##_eq(&got, &want));                                                        \
                printf("test_gpu_msm: " #G ", device Fr scalars, n = %zu%s: %s\n", m,              \
                       bits ? " (90% zeros and ones)" : "", G##_eq(&got, &want) ? "ok" : "WRONG"); \
            }                                                                                      \
        }                                                                                          \
    out:                                                                                           \
        cuzk_gpu_bases_free(db);                                                                   \
        free(hb);                                                                                  \
    }
DEV_FR_TEST(cuzk_g1, g1)
DEV_FR_TEST(cuzk_g2, g2)

static void test_dev_fr(void) {
    struct cuzk_gpu_ntt_ctx *nctx = NULL;
    cuzk_fr *fr = test_xmalloc(CTX_MAX_N * sizeof *fr);
    cuzk_scalar *k = test_xmalloc(CTX_MAX_N * sizeof *k);
    if (cuzk_gpu_ntt_ctx_create(0, G1_MAX_LOG, &nctx) != CUZK_OK) {
        CHECK(0);
        fprintf(stderr, "test_gpu_msm: NTT context: %s\n", cuzk_gpu_ntt_last_error());
        goto out;
    }
    static const size_t g1_sizes[] = {1, 12345, CTX_MAX_N};
    static const size_t g2_sizes[] = {1, 4096}; /* smaller: the CPU reference is slower */
    cuzk_g1_dev_fr(nctx, g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], fr, k);
    cuzk_g2_dev_fr(nctx, g2_sizes, sizeof g2_sizes / sizeof g2_sizes[0], fr, k);
    /* misaligned device scalars are refused */
    cuzk_g1_affine p[4];
    struct cuzk_gpu_bases *db = NULL;
    test_g1_points(pool, p, 4);
    if (gpu_ok(cuzk_gpu_g1_bases_upload(0, p, 4, &db), "bases upload")) {
        cuzk_g1 r;
        CHECK(cuzk_gpu_g1_msm_dev_fr(ctx, db, 0, (char *)cuzk_gpu_ntt_ctx_buffer(nctx) + 8, 4,
                                     &r) == CUZK_EINVAL);
    }
    cuzk_gpu_bases_free(db);
out:
    cuzk_gpu_ntt_ctx_free(nctx);
    free(fr);
    free(k);
}

/* ---- batch multiplication -------------------------------------------------------------------- */

#define BATCH_TEST(G, S)                                                                           \
    /* all n results when check_all, else a sample: the first and last 100 and 100 around          \
     * every multiple of 2^22 (the chunk boundaries) */                                            \
    static void G##_test_batch(size_t n, int check_all) {                                          \
        G##_affine base, *got = test_xmalloc(n * sizeof *got);                                     \
        cuzk_fr *s = test_xmalloc(n * sizeof *s);                                                  \
        test_##S##_points(pool, &base, 1);                                                         \
        cuzk_fr_vec_random(pool, s, n, cuzk_rng_u64(&test_rng));                                   \
        cuzk_fr_set_zero(&s[0]);                                                                   \
        cuzk_fr_set_one(&s[1]);                                                                    \
        cuzk_fr_neg(&s[2], &s[1]);                                                                 \
        double t0 = test_now_ms();                                                                 \
        if (gpu_ok(cuzk_gpu_##S##_batch_mul(0, &base, s, n, got), #G " batch_mul")) {              \
            double t1 = test_now_ms();                                                             \
            size_t bad = 0, checked = 0;                                                           \
            for (size_t i = 0; i < n; i++) {                                                       \
                const size_t r = i % ((size_t)1 << 22);                                            \
                if (!check_all && i >= 100 && i + 100 < n && r >= 100 && r + 100 < (1u << 22))     \
                    continue;                                                                      \
                G j;                                                                               \
                G##_affine w;                                                                      \
                uint64_t k[4];                                                                     \
                cuzk_fr_to_canonical(k, &s[i]);                                                    \
                G##_from_affine(&j, &base);                                                        \
                G##_mul_var(&j, &j, k, 4);                                                         \
                G##_to_affine(&w, &j);                                                             \
                bad += !G##_affine_eq(&got[i], &w);                                                \
                checked++;                                                                         \
            }                                                                                      \
            CHECK(bad == 0);                                                                       \
            printf("test_gpu_msm: " #G " batch multiplication of %zu scalars in %.1f ms: %zu of "  \
                   "%zu checked results wrong\n",                                                  \
                   n, t1 - t0, bad, checked);                                                      \
        }                                                                                          \
        free(got);                                                                                 \
        free(s);                                                                                   \
    }
BATCH_TEST(cuzk_g1, g1)
BATCH_TEST(cuzk_g2, g2)

/* ---- wide windows ---------------------------------------------------------------------------- */

/* Layouts bounded by 20, 22 and 24 bits (13 windows of 19 and 20 bits, 12 of 21 and 22, 11 of
 * 23 and 24: the automatic layout takes 12 windows at 2^26 and 2^27; bench_gpu_msm checks those
 * sizes) on 2^22 + 3 points in a context for 2^26, whose bucket space (8 windows of 21 bits) holds
 * a 24-bit window (a smaller context would narrow it): GPU == CPU, the widest window the MSM
 * reports the bound. */
static void test_wide_windows(void) {
    const size_t n = ((size_t)1 << 22) + 3;
    struct cuzk_gpu_msm_ctx *wide = NULL;
    struct cuzk_gpu_bases *db = NULL;
    cuzk_g1_affine *hb = test_xmalloc(n * sizeof *hb);
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    if (!gpu_ok(cuzk_gpu_msm_ctx_create(0, (size_t)1 << 26, &wide), "2^26 context")) goto out;
    test_g1_points(pool, hb, n);
    msm_scalars_make(k, n, MSM_RANDOM);
    if (!gpu_ok(cuzk_gpu_g1_bases_upload(0, hb, n, &db), "bases upload")) goto out;
    cuzk_g1 want, got;
    CHECK(cuzk_g1_msm(pool, &want, hb, k, n) == CUZK_OK);
    for (unsigned w = 20; w <= 24; w += 2) {
        const struct cuzk_gpu_msm_tuning t = {w, -1, 0, 0, 0, 0, 0};
        struct cuzk_gpu_msm_timing tm;
        cuzk_gpu_msm_tune(wide, &t);
        const int ran = gpu_ok(cuzk_gpu_g1_msm(wide, db, 0, k, n, &got), "wide-window msm");
        cuzk_gpu_msm_last_timing(wide, &tm);
        const int ok = ran && cuzk_g1_eq(&got, &want) && tm.window == w;
        CHECK(ok);
        printf(
            "test_gpu_msm: cuzk_g1 n=%zu, window %u (ran %u): %s; accum %.2f ms, reduce %.2f ms\n",
            n, w, tm.window, ok ? "ok" : "WRONG", (double)tm.accum_ms, (double)tm.reduce_ms);
    }
out:
    cuzk_gpu_msm_ctx_free(wide);
    free(hb);
    free(k);
}

/* ---- folded bases ---------------------------------------------------------------------------- */

/* Bases folded for the automatic folded layout and for 16 and 24 bits (cuzk_gpu_bases_fold: the
 * multiples 2^T P made on the device), in a context sized for folded MSMs of 2^26 points: GPU ==
 * CPU on 2^22 + 3 points with random, bit-witness, edge and equal scalars, over a range at an
 * offset, with the folded layout forced, chosen by the cost model and forbidden (the plain
 * layout, the same point); the timing says which layout ran. G2: 2^14 + 5 points folded for 12
 * bits. */
static void test_folded(void) {
    const size_t n = ((size_t)1 << 22) + 3, off = 1000;
    static const unsigned windows[] = {0, 16, 24};
    static const enum msm_scalars kinds[] = {MSM_RANDOM, MSM_BITS, MSM_EDGE, MSM_SAME};
    enum { NK = sizeof kinds / sizeof kinds[0] };
    struct cuzk_gpu_msm_ctx *fc = NULL;
    struct cuzk_gpu_bases *db = NULL, *db2 = NULL;
    cuzk_g1_affine *hb = test_xmalloc((n + off) * sizeof *hb);
    cuzk_scalar *ks[NK], *k;
    cuzk_g1 want[NK], want_off;
    const size_t n2 = ((size_t)1 << 14) + 5;
    cuzk_g2_affine *hb2 = test_xmalloc(n2 * sizeof *hb2);
    CHECK(cuzk_gpu_msm_ctx_vram2((size_t)1 << 26, CUZK_GPU_MSM_FOLD) >
          cuzk_gpu_msm_ctx_vram((size_t)1 << 26));
    CHECK(cuzk_gpu_msm_ctx_vram2((size_t)1 << 26, CUZK_GPU_MSM_PRESUM) >
          cuzk_gpu_msm_ctx_vram((size_t)1 << 26));
    test_g1_points(pool, hb, n + off);
    for (size_t ki = 0; ki < NK; ki++) { /* the scalars and the CPU's answers, once */
        ks[ki] = test_xmalloc(n * sizeof *ks[ki]);
        msm_scalars_make(ks[ki], n, kinds[ki]);
        CHECK(cuzk_g1_msm(pool, &want[ki], hb, ks[ki], n) == CUZK_OK);
    }
    k = ks[0];
    CHECK(cuzk_g1_msm(pool, &want_off, hb + off, ks[0], n) == CUZK_OK);
    if (!gpu_ok(cuzk_gpu_msm_ctx_create2(0, (size_t)1 << 26,
                                         CUZK_GPU_MSM_FOLD | CUZK_GPU_MSM_PRESUM, &fc),
                "folding context"))
        goto out;
    if (!gpu_ok(cuzk_gpu_g1_bases_upload(0, hb, n + off, &db), "bases upload")) goto out;
    CHECK(cuzk_gpu_bases_fold_window(db) == 0);
    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        const size_t vram = cuzk_gpu_bases_vram(db);
        if (!gpu_ok(cuzk_gpu_bases_fold(db, windows[wi]), "fold")) goto out;
        const unsigned fw = cuzk_gpu_bases_fold_window(db);
        CHECK(fw == (windows[wi] ? windows[wi] : cuzk_gpu_msm_fold_window(n + off)));
        CHECK(cuzk_gpu_bases_vram(db) == 2 * cuzk_gpu_bases_vram_for(CUZK_GPU_G1, n + off));
        CHECK(wi == 0 || cuzk_gpu_bases_vram(db) == vram);
        for (size_t ki = 0; ki < NK; ki++)
            for (int mode = 1; mode >= -1; mode--) {             /* forced, automatic, forbidden */
                const size_t at = ki == 0 && mode > 0 ? off : 0; /* a range at an offset once */
                cuzk_g1 got;
                struct cuzk_gpu_msm_timing tm;
                const struct cuzk_gpu_msm_tuning t = {0, 0, 0, mode, 0, 0, 0};
                cuzk_gpu_msm_tune(fc, &t);
                const int ran = gpu_ok(cuzk_gpu_g1_msm(fc, db, at, ks[ki], n, &got), "folded msm");
                cuzk_gpu_msm_last_timing(fc, &tm);
                /* automatic, random scalars: the cost model takes the table it made for these
                 * bases and leaves the 24-bit one (33.5 M buckets for 2^22 points) for the plain
                 * layout; the 16-bit one is about a tie (not checked) */
                const int want_fold = mode > 0 || (mode == 0 && windows[wi] == 0);
                int ok =
                    ran && cuzk_g1_eq(&got, at ? &want_off : &want[ki]) &&
                    (tm.folded ? tm.sets < tm.windows && tm.window == fw : tm.sets == tm.windows);
                if (mode != 0 || (kinds[ki] == MSM_RANDOM && windows[wi] != 16))
                    ok = ok && tm.folded == (unsigned)want_fold;
                /* the automatic presum level: on every set of the plain layout of 2^22 random
                 * scalars (65 536 threads a set, 16 or more entries a bucket) */
                if (mode < 0 && kinds[ki] == MSM_RANDOM) ok = ok && tm.presum_sets == tm.sets;
                CHECK(ok);
                printf("test_gpu_msm: cuzk_g1 n=%zu folded for %u bits, %s scalars, offset %zu, "
                       "fold %s: %s (%u windows in %u sets, widest %u, %u presummed); sort %.2f "
                       "accum %.2f reduce %.2f ms\n",
                       n, fw, msm_scalars_name[kinds[ki]], at,
                       mode > 0   ? "forced"
                       : mode < 0 ? "forbidden"
                                  : "automatic",
                       ok ? "ok" : "WRONG", tm.windows, tm.sets, tm.window, tm.presum_sets,
                       (double)tm.sort_ms, (double)tm.accum_ms, (double)tm.reduce_ms);
            }
    }
    CHECK(cuzk_gpu_bases_fold(db, 7) == CUZK_EINVAL && cuzk_gpu_bases_fold(db, 25) == CUZK_EINVAL);
    CHECK(cuzk_gpu_bases_fold(NULL, 0) == CUZK_EINVAL);
    /* a context sized without the flag runs the plain layout over folded bases */
    {
        const size_t m = (size_t)1 << 20;
        cuzk_g1 want, got;
        struct cuzk_gpu_msm_timing tm;
        msm_scalars_make(k, m, MSM_RANDOM);
        CHECK(cuzk_g1_msm(pool, &want, hb, k, m) == CUZK_OK);
        const int ran = gpu_ok(cuzk_gpu_g1_msm(ctx, db, 0, k, m, &got), "msm");
        cuzk_gpu_msm_last_timing(ctx, &tm);
        CHECK(ran && cuzk_g1_eq(&got, &want) && tm.folded == 0);
    }
    /* G2 */
    test_g2_points(pool, hb2, n2);
    if (!gpu_ok(cuzk_gpu_g2_bases_upload(0, hb2, n2, &db2), "G2 bases upload") ||
        !gpu_ok(cuzk_gpu_bases_fold(db2, 12), "G2 fold"))
        goto out;
    const struct cuzk_gpu_msm_tuning forced = {0, 0, 0, 1, 0, 0, 0};
    cuzk_gpu_msm_tune(fc, &forced);
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        cuzk_g2 want, got;
        struct cuzk_gpu_msm_timing tm;
        msm_scalars_make(k, n2, kinds[ki]);
        CHECK(cuzk_g2_msm(pool, &want, hb2, k, n2) == CUZK_OK);
        const int ran = gpu_ok(cuzk_gpu_g2_msm(fc, db2, 0, k, n2, &got), "G2 folded msm");
        cuzk_gpu_msm_last_timing(fc, &tm);
        const int ok = ran && cuzk_g2_eq(&got, &want) && tm.folded == 1 && tm.window == 12;
        CHECK(ok);
        printf("test_gpu_msm: cuzk_g2 n=%zu folded for 12 bits, %s scalars: %s (%u windows in %u "
               "sets)\n",
               n2, msm_scalars_name[kinds[ki]], ok ? "ok" : "WRONG", tm.windows, tm.sets);
    }
    /* one G2 MSM for the blocks below: random scalars in k, the CPU's answer */
    cuzk_g2 want2;
    msm_scalars_make(k, n2, MSM_RANDOM);
    CHECK(cuzk_g2_msm(pool, &want2, hb2, k, n2) == CUZK_OK);
    { /* the presum space freed (cuzk_gpu_msm_ctx_release_presum): its bytes, then the same
       * MSMs with the level forced but not run, folded and plain, G1 and G2 */
        const size_t freed = cuzk_gpu_msm_ctx_release_presum(fc);
        CHECK(freed > 0 && freed == cuzk_gpu_msm_ctx_vram2(
                                        (size_t)1 << 26, CUZK_GPU_MSM_FOLD | CUZK_GPU_MSM_PRESUM) -
                                        cuzk_gpu_msm_ctx_vram2((size_t)1 << 26, CUZK_GPU_MSM_FOLD));
        CHECK(cuzk_gpu_msm_ctx_release_presum(fc) == 0);
        CHECK(cuzk_gpu_msm_ctx_release_presum(NULL) == 0);
        int ok = 1;
        for (int fold = 1; fold >= -1; fold -= 2) {
            const struct cuzk_gpu_msm_tuning t = {0, 0, 0, fold, 0, 0, 1};
            cuzk_gpu_msm_tune(fc, &t);
            for (size_t ki = 1; ki < NK; ki++) { /* ks[0] is k, the scratch of the G2 part */
                cuzk_g1 got;
                struct cuzk_gpu_msm_timing tm;
                const int ran = gpu_ok(cuzk_gpu_g1_msm(fc, db, 0, ks[ki], n, &got), "msm");
                cuzk_gpu_msm_last_timing(fc, &tm);
                ok = ok && ran && cuzk_g1_eq(&got, &want[ki]) && tm.presum_sets == 0 &&
                     tm.folded == (fold > 0);
            }
            cuzk_g2 got2;
            struct cuzk_gpu_msm_timing tm;
            const int ran = gpu_ok(cuzk_gpu_g2_msm(fc, db2, 0, k, n2, &got2), "G2 msm");
            cuzk_gpu_msm_last_timing(fc, &tm);
            ok = ok && ran && cuzk_g2_eq(&got2, &want2) && tm.presum_sets == 0;
        }
        CHECK(ok);
        printf("test_gpu_msm: presum space released (%zu bytes): G1 n=%zu and G2 n=%zu, folded "
               "and plain, presum forced: %s, no set presummed\n",
               freed, n, n2, ok ? "ok" : "WRONG");
    }
    { /* a presum space sized for G2 (CUZK_GPU_MSM_PRESUM_G2): every set of a G2 batch takes
       * the level, where one sized for G1 holds about half of them; cuzk_gpu_msm_ctx_set_presum
       * switches between the two and none, and back to G1 (the plain layout: folding
       * forbidden, which a context without CUZK_GPU_MSM_FOLD would take where it holds it) */
        struct cuzk_gpu_msm_ctx *c2 = NULL;
        CHECK(cuzk_gpu_msm_ctx_vram2(n2, CUZK_GPU_MSM_PRESUM | CUZK_GPU_MSM_PRESUM_G2) >
              cuzk_gpu_msm_ctx_vram2(n2, CUZK_GPU_MSM_PRESUM));
        CHECK(cuzk_gpu_msm_ctx_set_presum(NULL, 0) == CUZK_EINVAL);
        if (!gpu_ok(cuzk_gpu_msm_ctx_create2(0, n2, CUZK_GPU_MSM_PRESUM, &c2), "G2 context"))
            goto out;
        CHECK(cuzk_gpu_msm_ctx_set_presum(c2, CUZK_GPU_MSM_FOLD) == CUZK_EINVAL);
        const struct cuzk_gpu_msm_tuning t = {0, 0, 0, -1, 0, 0, 1};
        cuzk_gpu_msm_tune(c2, &t);
        static const char *const names[3] = {"sized for G1", "sized for G2", "none"};
        for (int level = 0; level < 3; level++) {
            if (level == 1)
                CHECK(cuzk_gpu_msm_ctx_set_presum(c2, CUZK_GPU_MSM_PRESUM |
                                                          CUZK_GPU_MSM_PRESUM_G2) == CUZK_OK);
            if (level == 2) CHECK(cuzk_gpu_msm_ctx_set_presum(c2, 0) == CUZK_OK);
            cuzk_g2 got;
            struct cuzk_gpu_msm_timing tm;
            const int ran = gpu_ok(cuzk_gpu_g2_msm(c2, db2, 0, k, n2, &got), "G2 msm");
            cuzk_gpu_msm_last_timing(c2, &tm);
            const int sets_ok = level == 0   ? tm.presum_sets > 0 && tm.presum_sets < tm.sets
                                : level == 1 ? tm.presum_sets == tm.sets
                                             : tm.presum_sets == 0;
            const int ok = ran && cuzk_g2_eq(&got, &want2) && tm.folded == 0 && sets_ok;
            CHECK(ok);
            printf("test_gpu_msm: cuzk_g2 n=%zu, presum space %s, presum forced: %s (%u of %u "
                   "sets presummed)\n",
                   n2, names[level], ok ? "ok" : "WRONG", tm.presum_sets, tm.sets);
        }
        CHECK(cuzk_gpu_msm_ctx_set_presum(c2, CUZK_GPU_MSM_PRESUM) == CUZK_OK);
        cuzk_g1 want1, got1;
        struct cuzk_gpu_msm_timing tm;
        CHECK(cuzk_g1_msm(pool, &want1, hb, k, n2) == CUZK_OK);
        const int ran = gpu_ok(cuzk_gpu_g1_msm(c2, db, 0, k, n2, &got1), "msm");
        cuzk_gpu_msm_last_timing(c2, &tm);
        CHECK(ran && cuzk_g1_eq(&got1, &want1) && tm.presum_sets == tm.sets);
        cuzk_gpu_msm_ctx_free(c2);
    }
out:
    cuzk_gpu_msm_tune(fc, NULL);
    cuzk_gpu_msm_ctx_free(fc);
    cuzk_gpu_bases_free(db);
    cuzk_gpu_bases_free(db2);
    free(hb);
    free(hb2);
    for (size_t ki = 0; ki < NK; ki++) free(ks[ki]);
}

/* ---- arguments ------------------------------------------------------------------------------- */

static void test_args(void) {
    int count = 0;
    cuzk_gpu_count(&count);
    struct cuzk_gpu_msm_ctx *c = (struct cuzk_gpu_msm_ctx *)&c;
    CHECK(cuzk_gpu_msm_ctx_create(count, 10, &c) == CUZK_EINVAL && c == NULL);
    CHECK(cuzk_gpu_msm_ctx_create(0, 0, &c) == CUZK_EINVAL);
    CHECK(cuzk_gpu_msm_ctx_vram(0) == 0 && cuzk_gpu_msm_ctx_vram(1 << 20) > 32 * (1 << 20));
    CHECK(cuzk_gpu_msm_ctx_device(ctx) == 0);

    cuzk_g1_affine p1[8];
    cuzk_g2_affine p2[8];
    test_g1_points(pool, p1, 8);
    test_g2_points(pool, p2, 8);
    struct cuzk_gpu_bases *b1 = NULL, *b2 = NULL;
    if (!gpu_ok(cuzk_gpu_g1_bases_upload(0, p1, 8, &b1), "upload") ||
        !gpu_ok(cuzk_gpu_g2_bases_upload(0, p2, 8, &b2), "upload"))
        goto out;
    struct cuzk_gpu_bases *bad = (struct cuzk_gpu_bases *)&bad;
    CHECK(cuzk_gpu_g1_bases_upload(count, p1, 8, &bad) == CUZK_EINVAL && bad == NULL);
    cuzk_scalar k[8];
    for (int i = 0; i < 8; i++) test_scalar_random(&k[i]);
    cuzk_g1 r1, want1;
    cuzk_g2 r2;
    CHECK(cuzk_gpu_g1_msm(ctx, b2, 0, k, 8, &r1) == CUZK_EINVAL); /* G2 bases for G1 */
    CHECK(cuzk_gpu_g2_msm(ctx, b1, 0, k, 8, &r2) == CUZK_EINVAL); /* G1 bases for G2 */
    CHECK(cuzk_gpu_g1_msm(ctx, b1, 1, k, 8, &r1) == CUZK_EINVAL); /* past the end */
    CHECK(cuzk_gpu_g1_msm(ctx, b1, 9, k, 0, &r1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g1_msm(ctx, b1, 0, NULL, 8, &r1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g1_msm(ctx, NULL, 0, k, 8, &r1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g1_msm(NULL, b1, 0, k, 8, &r1) == CUZK_EINVAL);
    /* n above max_n: a small context */
    struct cuzk_gpu_msm_ctx *small = NULL;
    if (gpu_ok(cuzk_gpu_msm_ctx_create(0, 4, &small), "small context")) {
        CHECK(cuzk_gpu_g1_msm(small, b1, 0, k, 5, &r1) == CUZK_EINVAL);
        CHECK(cuzk_gpu_g1_msm(small, b1, 4, k, 4, &r1) == CUZK_OK);
        CHECK(cuzk_g1_msm(NULL, &want1, p1 + 4, k, 4) == CUZK_OK);
        CHECK(cuzk_g1_eq(&r1, &want1));
        cuzk_gpu_msm_ctx_free(small);
    }
    /* n = 0 is the identity; the rejected calls left the context usable */
    CHECK(cuzk_gpu_g1_msm(ctx, b1, 8, k, 0, &r1) == CUZK_OK && cuzk_g1_is_inf(&r1));
    CHECK(cuzk_gpu_g1_msm(ctx, b1, 0, k, 8, &r1) == CUZK_OK);
    CHECK(cuzk_g1_msm(NULL, &want1, p1, k, 8) == CUZK_OK);
    CHECK(cuzk_g1_eq(&r1, &want1));
    CHECK(cuzk_gpu_g1_batch_mul(count, p1, NULL, 0, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g1_batch_mul(0, p1, NULL, 0, NULL) == CUZK_OK);
out:
    cuzk_gpu_bases_free(b1);
    cuzk_gpu_bases_free(b2);
}

int main(void) {
    test_init("test_gpu_msm");
    int count = 0;
    CHECK(cuzk_gpu_count(&count) == CUZK_OK);
    if (count <= 0) {
        struct cuzk_gpu_msm_ctx *c = NULL;
        CHECK(cuzk_gpu_msm_ctx_create(0, 16, &c) == CUZK_ENODEV && c == NULL);
        return test_skip("no GPU on this machine");
    }
    test_gpu_banner(0);
    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "test-gpu-msm") != CUZK_OK) {
        fprintf(stderr, "test_gpu_msm: cannot create the thread pool\n");
        return 1;
    }
    if (!gpu_ok(cuzk_gpu_msm_ctx_create2(0, CTX_MAX_N, CUZK_GPU_MSM_PRESUM, &ctx),
                "context creation"))
        return test_finish();
    printf("test_gpu_msm: context for 2^%d points: %.2f GiB of device memory (presum space)\n",
           G1_MAX_LOG, (double)cuzk_gpu_msm_ctx_vram2(CTX_MAX_N, CUZK_GPU_MSM_PRESUM) / (1 << 30));

    test_args();
    test_field();
    test_field_inv();
    cuzk_g1_test_add();
    cuzk_g2_test_add();
    cuzk_g1_test_msm(G1_MAX_LOG, 12, 1000003);
    cuzk_g2_test_msm(G2_MAX_LOG, 10, 5003);
    test_wide_windows();
    test_folded();
    test_dev_fr();
    cuzk_g1_test_batch(3000, 1);
    cuzk_g2_test_batch(500, 1);
    cuzk_g1_test_batch(((size_t)1 << 22) + 1000, 0);

    cuzk_gpu_msm_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    return test_finish();
}
