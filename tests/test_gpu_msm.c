/* The GPU MSM against the CPU (src/msm/msm.h, cuzk_g*_mul_var), on fresh random inputs:
 *   - the device field arithmetic (Fp and Fp2 add, sub, mul, sqr) on every pair of edge values
 *     and 10^4 random pairs, bit for bit, and the device XYZZ formulas (cuzk_gpu_g*_add_eval)
 *     on random points and on a = b, a = -b, b = 3a and identities;
 *   - G1 MSMs at n = 1, 2, 3, 7, every 2^k up to 2^20 and 1000003, against cuzk_g1_msm on a pool
 *     of all cores; at some sizes also: forced window widths, the bit-witness path forced on
 *     and off on a 90% zero/one vector, edge scalars (r - 1, 2^255 - 1, patterns), zero
 *     scalars, all zero, all one, identity, repeated and negated bases (P and -P with equal
 *     scalars), offset ranges of the resident bases; G2 likewise at smaller sizes;
 *   - scalars in device memory as Montgomery Fr (an NTT context's buffer, cuzk_gpu_ntt_load);
 *   - batch multiplication against cuzk_g*_mul_var, across a chunk boundary;
 *   - argument errors (n above max_n, bases of the other group, ranges outside the bases).
 * A machine without a GPU reports the test skipped (exit 77). On a wrong MSM the test prints
 * the size, the case and the MSM's phase times. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ff/ff_constants.h"
#include "ff/fr_vec.h"
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "msm/msm.h"
#include "test_util.h"

#define G1_MAX_LOG 20
#define G2_MAX_LOG 16
#define OFFSET_ROOM 4096 /* bases beyond 2^max_log, for offset ranges */
#define CTX_MAX_N ((size_t)1 << G1_MAX_LOG)

static struct cuzk_pool *pool;
static struct cuzk_gpu_msm_ctx *ctx;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "test_gpu_msm: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* A GPU call that must succeed; prints the CUDA failure otherwise. */
static int gpu_ok(int err, const char *what) {
    CHECK(err == CUZK_OK);
    if (err != CUZK_OK)
        fprintf(stderr, "test_gpu_msm: %s failed: %s (%s)\n", what, cuzk_strerror(err),
                cuzk_gpu_msm_last_error());
    return err == CUZK_OK;
}

static void random_scalar(cuzk_scalar *k) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_scalar_from_fr(k, &s);
}

static void set_small(cuzk_scalar *k, uint64_t v) {
    memset(k, 0, sizeof *k);
    k->l[0] = v;
}

/* The scalar shapes of a case. */
enum shape {
    RANDOM,   /* uniform below r */
    EDGE,     /* r - 1, 2^255 - 1, 2^254, bit patterns, small values, zeros and ones */
    BITS,     /* 90% zeros and ones, the rest uniform */
    ZERO,     /* all zero */
    ONE,      /* all one */
    MAX,      /* all r - 1 */
    SOMEZERO, /* uniform with 30% zeros */
};

static void make_scalars(cuzk_scalar *k, size_t n, enum shape sh) {
    static const uint64_t r[4] = CUZK_FR_MODULUS;
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = cuzk_rng_u64(&test_rng) % 10;
        uint64_t *l = k[i].l;
        switch (sh) {
        case RANDOM: random_scalar(&k[i]); break;
        case BITS: u < 9 ? set_small(&k[i], u & 1) : random_scalar(&k[i]); break;
        case ZERO: set_small(&k[i], 0); break;
        case ONE: set_small(&k[i], 1); break;
        case MAX: memcpy(l, r, sizeof r), l[0]--; break;
        case SOMEZERO: u < 3 ? set_small(&k[i], 0) : random_scalar(&k[i]); break;
        default:
            switch (u) {
            case 0: memcpy(l, r, sizeof r), l[0]--; break;
            case 1: memset(l, 0xff, 32), l[3] >>= 1; break;
            case 2: set_small(&k[i], 0), l[3] = UINT64_C(1) << 62; break;
            case 3: memset(l, 0xaa, 32), l[3] >>= 1; break;
            case 4: memset(l, 0x55, 32); break;
            case 5: set_small(&k[i], cuzk_rng_u64(&test_rng)); break;
            case 6: set_small(&k[i], 0); break;
            case 7: set_small(&k[i], 1); break;
            default: random_scalar(&k[i]); break;
            }
        }
    }
}

/* ---- device field arithmetic ----------------------------------------------------------------- */

static void test_field(void) {
    static const uint64_t p[6] = CUZK_FP_MODULUS, half[6] = CUZK_FP_HALF;
    const uint64_t edges[][6] = {
        {0, 0, 0, 0, 0, 0},
        {1, 0, 0, 0, 0, 0},
        {2, 0, 0, 0, 0, 0},
        {p[0] - 1, p[1], p[2], p[3], p[4], p[5]},
        {p[0] - 2, p[1], p[2], p[3], p[4], p[5]},
        {half[0], half[1], half[2], half[3], half[4], half[5]},
        {half[0] + 1, half[1], half[2], half[3], half[4], half[5]},
        {0xffffffffull, 0, 0, 0, 0, 0},
        {~0ull, 0, 0, 0, 0, 0},
        {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, 0},
        {0, 0, 0, 0, 0, p[5] - 1},
        {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, p[5] - 1},
        {0, p[1], p[2], p[3], p[4], p[5]},
        {0xffffffff00000000ull, 0xffffffffull, 0, 0, 0, 0},
        CUZK_FP_R1,
    };
    const size_t ne = sizeof edges / sizeof edges[0], n = ne * ne + 10000;
    /* Fp2 pairs are built from two Fp pairs: 2n Fp values per operand */
    cuzk_fp *a = xmalloc(2 * n * sizeof *a), *b = xmalloc(2 * n * sizeof *b),
            *got = xmalloc(2 * n * sizeof *got), *want = xmalloc(2 * n * sizeof *want);
    for (size_t i = 0; i < 2 * n; i++) {
        cuzk_fp_random(&a[i], &test_rng);
        cuzk_fp_random(&b[i], &test_rng);
    }
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            memcpy(a[i * ne + j].l, edges[i], sizeof a->l);
            memcpy(b[i * ne + j].l, edges[j], sizeof b->l);
            /* in Fp2: the edge values in both halves */
            memcpy(a[2 * n - 1 - (i * ne + j)].l, edges[j], sizeof a->l);
            memcpy(b[2 * n - 1 - (i * ne + j)].l, edges[i], sizeof b->l);
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

/* ---- points ---------------------------------------------------------------------------------- */

/* n points P_0 + i Q from random P_0 and Q, generated on the pool in chunks of CHUNK (each
 * chunk starts from P_0 + (first index) Q). */
#define CHUNK 16384
#define POINTS(G)                                                                                  \
    struct G##_points_job {                                                                        \
        G##_affine *out;                                                                           \
        size_t n;                                                                                  \
        G p0, q;                                                                                   \
    };                                                                                             \
    static void G##_points_item(void *vctx, size_t item, unsigned worker) {                        \
        (void)worker;                                                                              \
        const struct G##_points_job *j = vctx;                                                     \
        const size_t lo = item * CHUNK, hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;                \
        G *jac = xmalloc(CHUNK * sizeof *jac), p;                                                  \
        uint64_t k[1] = {lo};                                                                      \
        G##_mul_var(&p, &j->q, k, 1);                                                              \
        G##_add(&p, &p, &j->p0);                                                                   \
        for (size_t i = lo; i < hi; i++) {                                                         \
            jac[i - lo] = p;                                                                       \
            G##_add(&p, &p, &j->q);                                                                \
        }                                                                                          \
        G##_batch_to_affine(j->out + lo, jac, hi - lo);                                            \
        free(jac);                                                                                 \
    }                                                                                              \
    static void G##_points(G##_affine *out, size_t n) {                                            \
        struct G##_points_job j;                                                                   \
        G##_affine gen;                                                                            \
        cuzk_scalar k;                                                                             \
        j.out = out;                                                                               \
        j.n = n;                                                                                   \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&j.p0, &gen);                                                              \
        random_scalar(&k);                                                                         \
        G##_mul_var(&j.q, &j.p0, k.l, 4);                                                          \
        random_scalar(&k);                                                                         \
        G##_mul_var(&j.p0, &j.p0, k.l, 4);                                                         \
        cuzk_pool_run(pool, (n + CHUNK - 1) / CHUNK, G##_points_item, &j);                         \
    }
POINTS(cuzk_g1)
POINTS(cuzk_g2)

/* ---- the XYZZ formulas ----------------------------------------------------------------------- */

#define ADD_TEST(G, S, N)                                                                          \
    static void G##_test_add(void) {                                                               \
        const size_t n = N;                                                                        \
        G##_affine *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);                       \
        G *sum = xmalloc(n * sizeof *sum), *dbl = xmalloc(n * sizeof *dbl);                        \
        G##_points(a, n);                                                                          \
        G##_points(b, n);                                                                          \
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

static const char *shape_name[] = {"random",  "edge",    "90% bits", "all zero",
                                   "all one", "all r-1", "30% zero"};

#define MSM_TESTS(G, S)                                                                            \
    /* one GPU MSM against the CPU's; returns 1 if equal */                                        \
    static int G##_check(const char *what, const struct cuzk_gpu_bases *db, const G##_affine *hb,  \
                         size_t offset, const cuzk_scalar *k, size_t n) {                          \
        G want, got;                                                                               \
        double t0 = now_ms();                                                                      \
        CHECK(G##_msm(pool, &want, hb + offset, k, n) == CUZK_OK);                                 \
        double t1 = now_ms();                                                                      \
        int err = cuzk_gpu_##S##_msm(ctx, db, offset, k, n, &got);                                 \
        double t2 = now_ms();                                                                      \
        if (!gpu_ok(err, #G " msm")) return 0;                                                     \
        int ok = G##_eq(&got, &want) && G##_is_on_curve(&got);                                     \
        CHECK(ok);                                                                                 \
        struct cuzk_gpu_msm_timing t;                                                              \
        cuzk_gpu_msm_last_timing(ctx, &t);                                                         \
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
                               enum shape sh) {                                                    \
        char label[160];                                                                           \
        snprintf(label, sizeof label, "%.100s, %s scalars", what, shape_name[sh]);                 \
        make_scalars(k, n, sh);                                                                    \
        return G##_check(label, db, hb, offset, k, n);                                             \
    }                                                                                              \
    static void G##_tuned(const char *what, const struct cuzk_gpu_bases *db, const G##_affine *hb, \
                          cuzk_scalar *k, size_t n, enum shape sh, unsigned window, int bits) {    \
        struct cuzk_gpu_msm_tuning t = {window, bits};                                             \
        char label[160];                                                                           \
        snprintf(label, sizeof label, "%.100s (window %u, bit path %d)", what, window, bits);      \
        cuzk_gpu_msm_tune(ctx, &t);                                                                \
        G##_check_shape(label, db, hb, 0, k, n, sh);                                               \
        cuzk_gpu_msm_tune(ctx, NULL);                                                              \
    }                                                                                              \
    /* bases with identities, repeats and negations, and equal scalars */                          \
    static void G##_special_bases(const G##_affine *src, size_t n, cuzk_scalar *k) {               \
        G##_affine *hb = xmalloc(n * sizeof *hb);                                                  \
        struct cuzk_gpu_bases *db = NULL;                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            hb[i] = src[i % 16];                                                                   \
            if ((i / 16) % 3 == 1) G##_affine_neg(&hb[i], &hb[i]);                                 \
            if (i % 13 == 12) G##_affine_set_inf(&hb[i]);                                          \
        }                                                                                          \
        if (!gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, n, &db), "bases upload")) goto out;         \
        G##_check_shape("identity, repeated, negated bases", db, hb, 0, k, n, RANDOM);             \
        random_scalar(&k[0]);                                                                      \
        for (size_t i = 1; i < n; i++) k[i] = k[0];                                                \
        G##_check("the same with one scalar everywhere", db, hb, 0, k, n);                         \
        for (size_t i = 0; i < n; i++) { /* P and -P with equal scalars: the identity */           \
            hb[i] = src[i / 2];                                                                    \
            if (i % 2) G##_affine_neg(&hb[i], &hb[i]);                                             \
            if (i % 2 == 0)                                                                        \
                random_scalar(&k[i]);                                                              \
            else                                                                                   \
                k[i] = k[i - 1];                                                                   \
        }                                                                                          \
        cuzk_gpu_bases_free(db);                                                                   \
        db = NULL;                                                                                 \
        if (!gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, n, &db), "bases upload")) goto out;         \
        G##_check("P and -P pairs", db, hb, 0, k, n);                                              \
    out:                                                                                           \
        cuzk_gpu_bases_free(db);                                                                   \
        free(hb);                                                                                  \
    }                                                                                              \
    static void G##_test_msm(int max_log, int special_log, int odd) {                              \
        const size_t nb = ((size_t)1 << max_log) + OFFSET_ROOM;                                    \
        G##_affine *hb = xmalloc(nb * sizeof *hb);                                                 \
        cuzk_scalar *k = xmalloc(nb * sizeof *k);                                                  \
        struct cuzk_gpu_bases *db = NULL;                                                          \
        double t0 = now_ms();                                                                      \
        G##_points(hb, nb);                                                                        \
        printf("test_gpu_msm: " #G ": %zu random bases in %.0f ms\n", nb, now_ms() - t0);          \
        if (!gpu_ok(cuzk_gpu_##S##_bases_upload(0, hb, nb, &db), #G " bases upload")) goto out;    \
        CHECK(cuzk_gpu_bases_count(db) == nb);                                                     \
        CHECK(cuzk_gpu_bases_vram(db) == cuzk_gpu_bases_vram_for(CUZK_GPU_##S##_ID, nb));          \
        static const size_t tiny[] = {1, 2, 3, 7};                                                 \
        for (size_t i = 0; i < 4; i++) {                                                           \
            G##_check_shape("tiny", db, hb, 0, k, tiny[i], RANDOM);                                \
            G##_check_shape("tiny", db, hb, 0, k, tiny[i], EDGE);                                  \
            G##_check_shape("tiny", db, hb, 5, k, tiny[i], ONE);                                   \
        }                                                                                          \
        size_t ok = 0, runs = 0;                                                                   \
        for (int lg = 4; lg <= max_log; lg++) {                                                    \
            const size_t n = (size_t)1 << lg;                                                      \
            ok += G##_check_shape("2^k", db, hb, 0, k, n, RANDOM), runs++;                         \
            ok += G##_check_shape("2^k", db, hb, 0, k, n, BITS), runs++;                           \
        }                                                                                          \
        printf("test_gpu_msm: " #G " 2^4..2^%d, random and 90%% bits: %zu of %zu right\n",         \
               max_log, ok, runs);                                                                 \
        G##_check_shape("odd size", db, hb, 0, k, (size_t)odd, RANDOM);                            \
        G##_check_shape("odd size, offset", db, hb, OFFSET_ROOM - 1, k, (size_t)odd, SOMEZERO);    \
        const size_t ns = (size_t)1 << special_log;                                                \
        for (int sh = EDGE; sh <= SOMEZERO; sh++)                                                  \
            G##_check_shape("special", db, hb, 0, k, ns, (enum shape)sh);                          \
        G##_check_shape("offset range", db, hb, 1000, k, ns, RANDOM);                              \
        G##_check_shape("last bases", db, hb, nb - ns, k, ns, EDGE);                               \
        static const unsigned windows[] = {8, 9, 12, 13, 16, 17, 20};                              \
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {                          \
            G##_tuned("forced window", db, hb, k, ns, RANDOM, windows[w], 0);                      \
            G##_tuned("forced window", db, hb, k, ns + 17, EDGE, windows[w], 0);                   \
        }                                                                                          \
        for (int bits = -1; bits <= 1; bits++) {                                                   \
            G##_tuned("bit path", db, hb, k, ns, BITS, 0, bits);                                   \
            G##_tuned("bit path", db, hb, k, ns, ONE, 0, bits);                                    \
            G##_tuned("bit path", db, hb, k, ns, RANDOM, 0, bits);                                 \
            G##_tuned("bit path", db, hb, k, (size_t)1 << max_log, BITS, 0, bits);                 \
        }                                                                                          \
        G##_special_bases(hb, ns, k);                                                              \
    out:                                                                                           \
        cuzk_gpu_bases_free(db);                                                                   \
        free(hb);                                                                                  \
        free(k);                                                                                   \
    }
#define CUZK_GPU_g1_ID CUZK_GPU_G1
#define CUZK_GPU_g2_ID CUZK_GPU_G2
MSM_TESTS(cuzk_g1, g1)
MSM_TESTS(cuzk_g2, g2)

/* Scalars in device memory: Montgomery Fr in an NTT context's buffer. */
static void test_dev_fr(void) {
    const size_t n = CTX_MAX_N;
    struct cuzk_gpu_ntt_ctx *nctx = NULL;
    cuzk_g1_affine *hb = xmalloc(n * sizeof *hb);
    cuzk_fr *fr = xmalloc(n * sizeof *fr);
    cuzk_scalar *k = xmalloc(n * sizeof *k);
    struct cuzk_gpu_bases *db = NULL;
    cuzk_g1_points(hb, n);
    if (!gpu_ok(cuzk_gpu_g1_bases_upload(0, hb, n, &db), "bases upload")) goto out;
    if (cuzk_gpu_ntt_ctx_create(0, G1_MAX_LOG, &nctx) != CUZK_OK) {
        CHECK(0);
        fprintf(stderr, "test_gpu_msm: NTT context: %s\n", cuzk_gpu_ntt_last_error());
        goto out;
    }
    static const size_t sizes[] = {1, 12345, CTX_MAX_N};
    for (int bits = 0; bits < 2; bits++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t m = sizes[s];
            cuzk_fr_vec_random(pool, fr, m, cuzk_rng_u64(&test_rng));
            if (bits)
                for (size_t i = 0; i < m; i++)
                    if (i % 10 < 9) i % 2 ? cuzk_fr_set_one(&fr[i]) : cuzk_fr_set_zero(&fr[i]);
            cuzk_scalar_batch_from_fr(pool, k, fr, m);
            cuzk_g1 want, got;
            CHECK(cuzk_g1_msm(pool, &want, hb, k, m) == CUZK_OK);
            if (!gpu_ok(cuzk_gpu_ntt_load(nctx, fr, m), "ntt load")) continue;
            if (!gpu_ok(cuzk_gpu_g1_msm_dev_fr(ctx, db, 0, cuzk_gpu_ntt_ctx_buffer(nctx), m, &got),
                        "msm_dev_fr"))
                continue;
            CHECK(cuzk_g1_eq(&got, &want));
            printf("test_gpu_msm: device Fr scalars, n = %zu%s: %s\n", m,
                   bits ? " (90% zeros and ones)" : "", cuzk_g1_eq(&got, &want) ? "ok" : "WRONG");
        }
    }
    /* G2 from the same device scalars (smaller sizes: the CPU reference is slower) */
    cuzk_g2_affine *hb2 = xmalloc(4096 * sizeof *hb2);
    struct cuzk_gpu_bases *db2 = NULL;
    cuzk_g2_points(hb2, 4096);
    if (gpu_ok(cuzk_gpu_g2_bases_upload(0, hb2, 4096, &db2), "g2 bases upload")) {
        static const size_t sizes2[] = {1, 4096};
        for (int bits = 0; bits < 2; bits++) {
            for (size_t s = 0; s < sizeof sizes2 / sizeof sizes2[0]; s++) {
                const size_t m = sizes2[s];
                cuzk_fr_vec_random(pool, fr, m, cuzk_rng_u64(&test_rng));
                if (bits)
                    for (size_t i = 0; i < m; i++)
                        if (i % 10 < 9) i % 2 ? cuzk_fr_set_one(&fr[i]) : cuzk_fr_set_zero(&fr[i]);
                cuzk_scalar_batch_from_fr(pool, k, fr, m);
                cuzk_g2 want, got;
                CHECK(cuzk_g2_msm(pool, &want, hb2, k, m) == CUZK_OK);
                if (!gpu_ok(cuzk_gpu_ntt_load(nctx, fr, m), "ntt load")) continue;
                if (!gpu_ok(
                        cuzk_gpu_g2_msm_dev_fr(ctx, db2, 0, cuzk_gpu_ntt_ctx_buffer(nctx), m, &got),
                        "g2 msm_dev_fr"))
                    continue;
                CHECK(cuzk_g2_eq(&got, &want));
                printf("test_gpu_msm: G2, device Fr scalars, n = %zu%s: %s\n", m,
                       bits ? " (90% zeros and ones)" : "",
                       cuzk_g2_eq(&got, &want) ? "ok" : "WRONG");
            }
        }
    }
    cuzk_gpu_bases_free(db2);
    free(hb2);
    /* misaligned device scalars are refused */
    cuzk_g1 r;
    CHECK(cuzk_gpu_g1_msm_dev_fr(ctx, db, 0, (char *)cuzk_gpu_ntt_ctx_buffer(nctx) + 8, 4, &r) ==
          CUZK_EINVAL);
out:
    cuzk_gpu_ntt_ctx_free(nctx);
    cuzk_gpu_bases_free(db);
    free(hb);
    free(fr);
    free(k);
}

/* ---- batch multiplication -------------------------------------------------------------------- */

#define BATCH_TEST(G, S)                                                                           \
    /* all n results when check_all, else a sample: the first and last 100 and 100 around          \
     * every multiple of 2^22 (the chunk boundaries) */                                            \
    static void G##_test_batch(size_t n, int check_all) {                                          \
        G##_affine base, *got = xmalloc(n * sizeof *got);                                          \
        cuzk_fr *s = xmalloc(n * sizeof *s);                                                       \
        G##_points(&base, 1);                                                                      \
        cuzk_fr_vec_random(pool, s, n, cuzk_rng_u64(&test_rng));                                   \
        cuzk_fr_set_zero(&s[0]);                                                                   \
        cuzk_fr_set_one(&s[1]);                                                                    \
        cuzk_fr_neg(&s[2], &s[1]);                                                                 \
        double t0 = now_ms();                                                                      \
        if (gpu_ok(cuzk_gpu_##S##_batch_mul(0, &base, s, n, got), #G " batch_mul")) {              \
            double t1 = now_ms();                                                                  \
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
    cuzk_g1_points(p1, 8);
    cuzk_g2_points(p2, 8);
    struct cuzk_gpu_bases *b1 = NULL, *b2 = NULL;
    if (!gpu_ok(cuzk_gpu_g1_bases_upload(0, p1, 8, &b1), "upload") ||
        !gpu_ok(cuzk_gpu_g2_bases_upload(0, p2, 8, &b2), "upload"))
        goto out;
    struct cuzk_gpu_bases *bad = (struct cuzk_gpu_bases *)&bad;
    CHECK(cuzk_gpu_g1_bases_upload(count, p1, 8, &bad) == CUZK_EINVAL && bad == NULL);
    cuzk_scalar k[8];
    for (int i = 0; i < 8; i++) random_scalar(&k[i]);
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
        printf("test_gpu_msm: no GPU on this machine: skipped\n");
        int rc = test_finish();
        return rc ? rc : 77;
    }
    struct cuzk_gpu_info info;
    if (cuzk_gpu_describe(0, &info) == CUZK_OK)
        printf("test_gpu_msm: device 0: %s, sm_%d%d, %d SMs, %.1f GiB\n", info.name, info.cc_major,
               info.cc_minor, info.multiprocessors, (double)info.total_mem / (1 << 30));
    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "test-gpu-msm") != CUZK_OK) {
        fprintf(stderr, "test_gpu_msm: cannot create the thread pool\n");
        return 1;
    }
    if (!gpu_ok(cuzk_gpu_msm_ctx_create(0, CTX_MAX_N, &ctx), "context creation"))
        return test_finish();
    printf("test_gpu_msm: context for 2^%d points: %.2f GiB of device memory\n", G1_MAX_LOG,
           (double)cuzk_gpu_msm_ctx_vram(CTX_MAX_N) / (1 << 30));

    test_args();
    test_field();
    cuzk_g1_test_add();
    cuzk_g2_test_add();
    cuzk_g1_test_msm(G1_MAX_LOG, 12, 1000003);
    cuzk_g2_test_msm(G2_MAX_LOG, 10, 5003);
    test_dev_fr();
    cuzk_g1_test_batch(3000, 1);
    cuzk_g2_test_batch(500, 1);
    cuzk_g1_test_batch(((size_t)1 << 22) + 1000, 0);

    cuzk_gpu_msm_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    return test_finish();
}
