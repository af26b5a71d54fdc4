/* The GPU MSM's code run on the host (gpu_twin.h) against the CPU library, so that a machine
 * without a GPU still checks the device arithmetic, the curve formulas and the MSM's algorithm:
 *   - Fp and Fp2 add, sub, mul, sqr on every pair of edge values and 10^4 random pairs, and
 *     inversion, bit for bit against src/ff;
 *   - the XYZZ formulas through the eval chain of cuzk_gpu_g*_add_eval (a + b and 2a) on random
 *     points and on the exceptional cases: a = b, a = -b, b = 3a, identities;
 *   - the signed window digits of edge and random scalars at every window width: they
 *     recombine to the scalar and stay in range;
 *   - whole MSMs (the GPU driver and per-thread code) against cuzk_g*_msm: many sizes, scalar
 *     shapes (zeros, ones, r - 1, 2^255 - 1, equal scalars), identity, repeated and negated
 *     bases, the bit-witness path forced on and off, forced window widths, and context shapes
 *     that cut the work into several batches and into short and long accumulation chunks;
 *   - batch multiplication against cuzk_g*_mul_var.
 * A build without CUDA has no twins: the test reports itself skipped (exit 77). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ff/ff_constants.h"
#include "gpu/gpu_twin.h"
#include "msm/msm.h"
#include "test_util.h"

static void random_scalar(cuzk_scalar *k) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_scalar_from_fr(k, &s);
}

static void set_small(cuzk_scalar *k, uint64_t v) {
    memset(k, 0, sizeof *k);
    k->l[0] = v;
}

/* Scalar edge values, all below 2^255. */
static void edge_scalar(cuzk_scalar *k, unsigned which) {
    static const uint64_t r[4] = CUZK_FR_MODULUS;
    uint64_t *l = k->l;
    switch (which % 9) {
    case 0: set_small(k, 0); break;
    case 1: set_small(k, 1); break;
    case 2: memcpy(l, r, sizeof r), l[0]--; break;  /* r - 1 */
    case 3: memset(l, 0xff, 32), l[3] >>= 1; break; /* 2^255 - 1 */
    case 4: set_small(k, 0), l[3] = UINT64_C(1) << 62; break;
    case 5: memset(l, 0xaa, 32), l[3] >>= 1; break;
    case 6: memset(l, 0x55, 32); break;
    case 7: set_small(k, cuzk_rng_u64(&test_rng)); break;
    default: random_scalar(k); break;
    }
}

/* ---- fields ---------------------------------------------------------------------------------- */

static void fp_hex(char out[99], const cuzk_fp *a) {
    char *o = out;
    o += sprintf(o, "0x");
    for (int i = 5; i >= 0; i--) o += sprintf(o, "%016llx", (unsigned long long)a->l[i]);
}

static void test_fp(void) {
    static const uint64_t p[6] = CUZK_FP_MODULUS, half[6] = CUZK_FP_HALF;
    /* raw Montgomery limbs, all below p */
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
    const size_t ne = sizeof edges / sizeof edges[0], nrand = 10000, n = ne * ne + nrand;
    cuzk_fp *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got),
            *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            memcpy(a[i * ne + j].l, edges[i], sizeof a->l);
            memcpy(b[i * ne + j].l, edges[j], sizeof b->l);
        }
    for (size_t i = ne * ne; i < n; i++) {
        cuzk_fp_random(&a[i], &test_rng);
        cuzk_fp_random(&b[i], &test_rng);
    }
    static const char *name[] = {"add", "sub", "mul", "sqr"};
    for (int op = CUZK_GPU_FP_ADD; op <= CUZK_GPU_FP_SQR; op++) {
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case CUZK_GPU_FP_ADD: cuzk_fp_add(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_SUB: cuzk_fp_sub(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_MUL: cuzk_fp_mul(&want[i], &a[i], &b[i]); break;
            default: cuzk_fp_sqr(&want[i], &a[i]); break;
            }
        }
        memset(got, 0xa5, n * sizeof *got);
        CHECK(cuzk_gpu_twin_fp((enum cuzk_gpu_fp_op)op, a, b, got, n) == CUZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            if (cuzk_fp_eq(&got[i], &want[i])) continue;
            if (!bad++) {
                char x[99], y[99], g[99], w[99];
                fp_hex(x, &a[i]), fp_hex(y, &b[i]), fp_hex(g, &got[i]), fp_hex(w, &want[i]);
                fprintf(stderr,
                        "test_gpu_twin: fp %s at %zu:\n  a %s\n  b %s\n  got  %s\n  want %s\n",
                        name[op], i, x, y, g, w);
            }
        }
        CHECK(bad == 0);
    }
    /* inversion (slow: a few hundred) */
    const size_t ninv = 300;
    for (size_t i = 0; i < ninv; i++) cuzk_fp_inv(&want[i], &a[i]);
    CHECK(cuzk_gpu_twin_fp_inv(1, a, got, ninv) == CUZK_OK);
    for (size_t i = 0; i < ninv; i++) CHECK(cuzk_fp_eq(&got[i], &want[i]));
    printf("test_gpu_twin: Fp: %zu pairs per operation, %zu inversions\n", n, ninv);
    free(a);
    free(b);
    free(got);
    free(want);
}

static void test_fp2(void) {
    const size_t n = 10000;
    cuzk_fp2 *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got),
             *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++) {
        cuzk_fp2_random(&a[i], &test_rng);
        cuzk_fp2_random(&b[i], &test_rng);
    }
    /* edge pairs: zero, one, u, p - 1 in either half, equal and opposite operands */
    static const uint64_t p[6] = CUZK_FP_MODULUS;
    cuzk_fp pm1;
    memcpy(pm1.l, p, sizeof p);
    pm1.l[0]--;
    cuzk_fp2_set_zero(&a[0]);
    cuzk_fp2_set_one(&b[1]);
    cuzk_fp2_set_zero(&a[2]), cuzk_fp_set_one(&a[2].c1);
    a[3].c0 = pm1, a[3].c1 = pm1;
    b[4] = a[4];
    cuzk_fp2_neg(&b[5], &a[5]);
    a[6].c1 = pm1, b[6].c0 = pm1;
    static const char *name[] = {"fp2 add", "fp2 sub", "fp2 mul", "fp2 sqr"};
    for (int op = CUZK_GPU_FP2_ADD; op <= CUZK_GPU_FP2_SQR; op++) {
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case CUZK_GPU_FP2_ADD: cuzk_fp2_add(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP2_SUB: cuzk_fp2_sub(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP2_MUL: cuzk_fp2_mul(&want[i], &a[i], &b[i]); break;
            default: cuzk_fp2_sqr(&want[i], &a[i]); break;
            }
        }
        memset(got, 0xa5, n * sizeof *got);
        CHECK(cuzk_gpu_twin_fp((enum cuzk_gpu_fp_op)op, a, b, got, n) == CUZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += !cuzk_fp2_eq(&got[i], &want[i]);
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "test_gpu_twin: %s: %zu of %zu wrong\n", name[op - 4], bad, n);
    }
    const size_t ninv = 100;
    for (size_t i = 0; i < ninv; i++) cuzk_fp2_inv(&want[i], &a[i]);
    CHECK(cuzk_gpu_twin_fp_inv(2, a, got, ninv) == CUZK_OK);
    for (size_t i = 0; i < ninv; i++) CHECK(cuzk_fp2_eq(&got[i], &want[i]));
    printf("test_gpu_twin: Fp2: %zu pairs per operation, %zu inversions\n", n, ninv);
    free(a);
    free(b);
    free(got);
    free(want);
}

/* ---- signed digits --------------------------------------------------------------------------- */

/* acc += d 2^shift (shift < 320) on a 6-limb two's-complement integer. */
static void add_shifted(uint64_t acc[6], int64_t d, unsigned shift) {
    const uint64_t ext = d < 0 ? ~0ull : 0;
    const uint64_t x[6] = {(uint64_t)d, ext, ext, ext, ext, ext};
    const int limb = (int)(shift / 64), off = (int)(shift % 64);
    uint64_t v[6];
    for (int i = 0; i < 6; i++) {
        const uint64_t hi = i - limb >= 0 ? x[i - limb] : 0;
        const uint64_t lo = i - limb - 1 >= 0 ? x[i - limb - 1] : 0;
        v[i] = off ? (hi << off) | (lo >> (64 - off)) : hi;
    }
    unsigned char c = 0;
    for (int i = 0; i < 6; i++) {
        unsigned __int128 s = (unsigned __int128)acc[i] + v[i] + c;
        acc[i] = (uint64_t)s;
        c = (unsigned char)(s >> 64);
    }
}

static void test_digits(void) {
    int32_t d[32];
    size_t count = 0;
    for (unsigned c = 8; c <= 20; c++) {
        for (unsigned t = 0; t < 400; t++) {
            cuzk_scalar k;
            edge_scalar(&k, t);
            int nw = cuzk_gpu_twin_digits(&k, c, d);
            CHECK(nw == (int)((256 + c - 1) / c));
            if (nw <= 0) return;
            uint64_t acc[6] = {0};
            int ok = 1;
            for (int w = 0; w < nw; w++) {
                ok &= d[w] >= -((1 << (c - 1)) - 1) && d[w] <= (1 << (c - 1));
                add_shifted(acc, d[w], c * (unsigned)w);
            }
            ok &= !memcmp(acc, k.l, sizeof k.l) && acc[4] == 0 && acc[5] == 0;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "test_gpu_twin: digits of scalar %u (window %u) do not recombine\n",
                        t, c);
            count++;
        }
    }
    CHECK(cuzk_gpu_twin_digits(NULL, 12, d) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 7, d) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 21, d) == CUZK_EINVAL);
    printf("test_gpu_twin: signed digits of %zu scalars recombine (windows 8..20)\n", count);
}

/* ---- curve formulas, MSM and batch multiplication, written once for both groups -------------- */

/* Contexts the MSM twins imitate: the library's defaults, several batches, long chunks, one
 * entry per chunk (every run crosses chunks). */
static const struct cuzk_gpu_twin_shape shapes[] = {
    {0, 0, 0},
    {0, 4000, 0},
    {0, 0, 7},
    {0, 2500, 3},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

#define GROUP_TESTS(G, S, NPAIRS)                                                                  \
    /* n points P_i = P_0 + i Q from random P_0 and Q */                                           \
    static void G##_points(G##_affine *out, size_t n) {                                            \
        G##_affine gen;                                                                            \
        G p, q, *jac = malloc((n ? n : 1) * sizeof *jac);                                          \
        cuzk_scalar k;                                                                             \
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
    static void G##_test_add(void) {                                                               \
        const size_t n = NPAIRS;                                                                   \
        G##_affine *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);                         \
        G *sum = malloc(n * sizeof *sum), *dbl = malloc(n * sizeof *dbl);                          \
        G##_points(a, n);                                                                          \
        G##_points(b, n);                                                                          \
        /* edge cases in the first slots */                                                        \
        b[0] = a[0];                  /* a = b */                                                  \
        G##_affine_neg(&b[1], &a[1]); /* a = -b */                                                 \
        G##_affine_set_inf(&a[2]);    /* identity + b */                                           \
        G##_affine_set_inf(&b[3]);    /* a + identity */                                           \
        G##_affine_set_inf(&a[4]);                                                                 \
        G##_affine_set_inf(&b[4]);       /* identity + identity */                                 \
        for (size_t i = 5; i < 8; i++) { /* b = 3a: the general addition's doubling */             \
            G t;                                                                                   \
            uint64_t three[1] = {3};                                                               \
            G##_from_affine(&t, &a[i]);                                                            \
            G##_mul_var(&t, &t, three, 1);                                                         \
            G##_to_affine(&b[i], &t);                                                              \
        }                                                                                          \
        CHECK(cuzk_gpu_twin_##S##_add(a, b, sum, dbl, n) == CUZK_OK);                              \
        size_t bad = 0;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            G ja, jb, ws, wd;                                                                      \
            G##_from_affine(&ja, &a[i]);                                                           \
            G##_from_affine(&jb, &b[i]);                                                           \
            G##_add(&ws, &ja, &jb);                                                                \
            G##_dbl(&wd, &ja);                                                                     \
            int ok = G##_eq(&sum[i], &ws) && G##_eq(&dbl[i], &wd) && G##_is_on_curve(&sum[i]) &&   \
                     G##_is_on_curve(&dbl[i]);                                                     \
            if (!ok && !bad) fprintf(stderr, "test_gpu_twin: " #G " add/dbl wrong at %zu\n", i);   \
            bad += !ok;                                                                            \
        }                                                                                          \
        CHECK(bad == 0);                                                                           \
        printf("test_gpu_twin: " #G " XYZZ formulas on %zu pairs (edge cases included)\n", n);     \
        free(a);                                                                                   \
        free(b);                                                                                   \
        free(sum);                                                                                 \
        free(dbl);                                                                                 \
    }                                                                                              \
    /* the twin MSM of every shape against the CPU MSM; returns the number of mismatches */        \
    static int G##_check_msm(const char *what, const G##_affine *pts, const cuzk_scalar *k,        \
                             size_t n, struct cuzk_gpu_msm_tuning tune, size_t nshapes) {          \
        G want, got;                                                                               \
        int bad = 0;                                                                               \
        CHECK(G##_msm(NULL, &want, pts, k, n) == CUZK_OK);                                         \
        for (size_t s = 0; s < nshapes; s++) {                                                     \
            struct cuzk_gpu_twin_report rep = {0};                                                 \
            int err = cuzk_gpu_twin_##S##_msm(&shapes[s], pts, k, n, &tune, &got, &rep);           \
            int ok = err == CUZK_OK && G##_eq(&got, &want) && G##_is_on_curve(&got);               \
            CHECK(ok);                                                                             \
            if (!ok) {                                                                             \
                bad++;                                                                             \
                fprintf(stderr,                                                                    \
                        "test_gpu_twin: " #G                                                       \
                        " msm %s: n = %zu, shape %zu, window %u (%u windows, "                     \
                        "%u per batch), bit path %d, %zu windowed, %zu ones: %s\n",                \
                        what, n, s, rep.window, rep.windows, rep.windows_per_batch, tune.bit_path, \
                        rep.windowed, rep.ones, err ? cuzk_strerror(err) : "wrong sum");           \
            }                                                                                      \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static void G##_test_msm(const size_t *sizes, size_t nsizes, const unsigned *windows,          \
                             size_t nwindows) {                                                    \
        size_t max = 0, runs = 0;                                                                  \
        for (size_t s = 0; s < nsizes; s++) max = sizes[s] > max ? sizes[s] : max;                 \
        G##_affine *pts = malloc(max * sizeof *pts), *pool = malloc(8 * sizeof *pool);             \
        cuzk_scalar *k = malloc(max * sizeof *k);                                                  \
        G##_points(pts, max);                                                                      \
        G##_points(pool, 8);                                                                       \
        for (size_t s = 0; s < nsizes; s++) {                                                      \
            const size_t n = sizes[s];                                                             \
            const struct cuzk_gpu_msm_tuning autot = {0, 0}, bits_on = {0, 1}, bits_off = {0, -1}; \
            /* random scalars; then every forced window width */                                   \
            for (size_t i = 0; i < n; i++) random_scalar(&k[i]);                                   \
            G##_check_msm("random", pts, k, n, autot, NSHAPES), runs += NSHAPES;                   \
            for (size_t w = 0; w < nwindows; w++) {                                                \
                struct cuzk_gpu_msm_tuning t = {windows[w], 0};                                    \
                G##_check_msm("forced window", pts, k, n, t, 2), runs += 2;                        \
            }                                                                                      \
            /* edge scalars (zeros, ones, r - 1, 2^255 - 1, patterns) */                           \
            for (size_t i = 0; i < n; i++) edge_scalar(&k[i], (unsigned)cuzk_rng_u64(&test_rng));  \
            G##_check_msm("edge scalars", pts, k, n, autot, NSHAPES), runs += NSHAPES;             \
            /* 90% zeros and ones: the bit path forced on, off and automatic */                    \
            for (size_t i = 0; i < n; i++) {                                                       \
                uint64_t u = cuzk_rng_u64(&test_rng) % 10;                                         \
                if (u < 9)                                                                         \
                    set_small(&k[i], u & 1);                                                       \
                else                                                                               \
                    random_scalar(&k[i]);                                                          \
            }                                                                                      \
            G##_check_msm("bits auto", pts, k, n, autot, NSHAPES), runs += NSHAPES;                \
            G##_check_msm("bits on", pts, k, n, bits_on, 2), runs += 2;                            \
            G##_check_msm("bits off", pts, k, n, bits_off, NSHAPES), runs += NSHAPES;              \
            /* all zero, all one */                                                                \
            for (size_t i = 0; i < n; i++) set_small(&k[i], 0);                                    \
            G##_check_msm("all zero", pts, k, n, autot, 2), runs += 2;                             \
            G##_check_msm("all zero, no bit path", pts, k, n, bits_off, 1), runs++;                \
            for (size_t i = 0; i < n; i++) set_small(&k[i], 1);                                    \
            G##_check_msm("all one", pts, k, n, autot, 2), runs += 2;                              \
            G##_check_msm("all one, no bit path", pts, k, n, bits_off, NSHAPES), runs += NSHAPES;  \
            /* one scalar everywhere over a few repeated points and their negations: deep buckets, \
             * runs across many chunks, cancelling pairs; some identity bases */                   \
            G##_affine *q = malloc(n * sizeof *q);                                                 \
            random_scalar(&k[0]);                                                                  \
            for (size_t i = 0; i < n; i++) {                                                       \
                k[i] = k[0];                                                                       \
                q[i] = pool[i % 8];                                                                \
                if ((i / 8) % 3 == 1) G##_affine_neg(&q[i], &q[i]);                                \
                if (i % 11 == 10) G##_affine_set_inf(&q[i]);                                       \
            }                                                                                      \
            G##_check_msm("equal scalars, repeated and negated bases", q, k, n, autot, NSHAPES);   \
            G##_check_msm("the same, no bit path", q, k, n, bits_off, 2);                          \
            runs += NSHAPES + 2;                                                                   \
            /* P and -P with equal random scalars: the sum is the identity */                      \
            for (size_t i = 0; i < n; i++) {                                                       \
                if (i % 2 == 0) random_scalar(&k[i]);                                              \
                q[i] = pts[i / 2];                                                                 \
                if (i % 2) {                                                                       \
                    k[i] = k[i - 1];                                                               \
                    G##_affine_neg(&q[i], &q[i]);                                                  \
                }                                                                                  \
            }                                                                                      \
            G##_check_msm("pairs that cancel", q, k, n, autot, NSHAPES), runs += NSHAPES;          \
            free(q);                                                                               \
        }                                                                                          \
        G zero;                                                                                    \
        CHECK(cuzk_gpu_twin_##S##_msm(&shapes[0], pts, k, 0, NULL, &zero, NULL) == CUZK_OK &&      \
              G##_is_inf(&zero));                                                                  \
        const struct cuzk_gpu_twin_shape small = {4, 0, 0};                                        \
        CHECK(cuzk_gpu_twin_##S##_msm(&small, pts, k, 5, NULL, &zero, NULL) == CUZK_EINVAL);       \
        printf("test_gpu_twin: " #G " MSM twin: %zu runs over %zu sizes up to %zu\n", runs,        \
               nsizes, max);                                                                       \
        free(pts);                                                                                 \
        free(pool);                                                                                \
        free(k);                                                                                   \
    }                                                                                              \
    static void G##_test_batch_mul(size_t n) {                                                     \
        G##_affine base, *got = malloc(n * sizeof *got);                                           \
        cuzk_fr *s = malloc(n * sizeof *s);                                                        \
        G##_points(&base, 1);                                                                      \
        for (size_t i = 0; i < n; i++) cuzk_fr_random(&s[i], &test_rng);                           \
        cuzk_fr_set_zero(&s[0]);                                                                   \
        cuzk_fr_set_one(&s[1]);                                                                    \
        cuzk_fr_neg(&s[2], &s[1]); /* r - 1 */                                                     \
        CHECK(cuzk_gpu_twin_##S##_batch_mul(&base, s, n, got) == CUZK_OK);                         \
        size_t bad = 0;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            G j;                                                                                   \
            G##_affine w;                                                                          \
            uint64_t k[4];                                                                         \
            cuzk_fr_to_canonical(k, &s[i]);                                                        \
            G##_from_affine(&j, &base);                                                            \
            G##_mul_var(&j, &j, k, 4);                                                             \
            G##_to_affine(&w, &j);                                                                 \
            bad += !G##_affine_eq(&got[i], &w);                                                    \
        }                                                                                          \
        CHECK(bad == 0);                                                                           \
        G##_affine inf;                                                                            \
        G##_affine_set_inf(&inf);                                                                  \
        CHECK(cuzk_gpu_twin_##S##_batch_mul(&inf, s, 4, got) == CUZK_OK);                          \
        for (size_t i = 0; i < 4; i++) CHECK(G##_affine_is_inf(&got[i]));                          \
        printf("test_gpu_twin: " #G " batch multiplication of %zu scalars%s\n", n,                 \
               bad ? ": WRONG" : "");                                                              \
        free(got);                                                                                 \
        free(s);                                                                                   \
    }

GROUP_TESTS(cuzk_g1, g1, 2000)
GROUP_TESTS(cuzk_g2, g2, 500)

int main(void) {
    test_init("test_gpu_twin");
    cuzk_fp a = {{0}};
    if (cuzk_gpu_twin_fp(CUZK_GPU_FP_ADD, &a, &a, &a, 1) == CUZK_ENODEV) {
        printf("test_gpu_twin: built without CUDA (no twin code): skipped\n");
        int rc = test_finish();
        return rc ? rc : 77;
    }
    test_fp();
    test_fp2();
    test_digits();
    cuzk_g1_test_add();
    cuzk_g2_test_add();
    printf("test_gpu_twin: automatic windows: 2^10 -> %u, 2^16 -> %u, 2^20 -> %u, 2^24 -> %u, "
           "2^26 -> %u bits\n",
           cuzk_gpu_twin_auto_window(1 << 10), cuzk_gpu_twin_auto_window(1 << 16),
           cuzk_gpu_twin_auto_window(1 << 20), cuzk_gpu_twin_auto_window(1 << 24),
           cuzk_gpu_twin_auto_window(1 << 26));
    static const size_t g1_sizes[] = {1, 2, 3, 7, 16, 100, 257, 1000};
    static const unsigned g1_windows[] = {8, 9, 11, 13};
    cuzk_g1_test_msm(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], g1_windows,
                     sizeof g1_windows / sizeof g1_windows[0]);
    static const size_t g2_sizes[] = {1, 3, 33, 200};
    static const unsigned g2_windows[] = {8, 10};
    cuzk_g2_test_msm(g2_sizes, sizeof g2_sizes / sizeof g2_sizes[0], g2_windows,
                     sizeof g2_windows / sizeof g2_windows[0]);
    cuzk_g1_test_batch_mul(200);
    cuzk_g2_test_batch_mul(40);
    return test_finish();
}
