/* The GPU MSM's code run on the host (gpu_twin.h) against the CPU library, so that a machine
 * without a GPU still checks the device arithmetic, the curve formulas and the MSM's algorithm:
 *   - Fp and Fp2 add, sub, mul, sqr on every pair of edge values and 10^4 random pairs, and
 *     inversion (the binary GCD) on the special inputs of test_util.h (small, power-of-two,
 *     near-p and near-2^380 values, runs of ones, one half zero in Fp2) and 20 000 random Fp /
 *     4000 random Fp2 elements, bit for bit against src/ff; Fr add, sub, mul, sqr, neg on
 *     every pair of edge values and 20 000 random pairs;
 *   - the XYZZ formulas through the eval chain of cuzk_gpu_g*_add_eval (a + b and 2a) on random
 *     points and on the exceptional cases: a = b, a = -b, b = 3a, identities; the same chain
 *     with its mixed additions made into a running sum in memory (madd_mem, the summing
 *     loops' form);
 *   - the signed window digits of edge and random scalars at every window width: they
 *     recombine to the scalar and stay in range;
 *   - whole MSMs (the GPU driver and per-thread code) against cuzk_g*_msm: many sizes, scalar
 *     shapes (zeros, ones, r - 1, 2^255 - 1, equal scalars), identity, repeated and negated
 *     bases, the bit-witness path forced on and off, forced window widths, and context shapes
 *     that cut the work into several batches and into short and long accumulation chunks;
 *   - batch multiplication against cuzk_g*_mul_var;
 *   - the device square roots (Fp, Fp2) against src/ff, edge values included, and the point
 *     decompression of the key loader against cuzk_g*_from_compressed: random points and their
 *     negations (both roots of each x), identities, points outside the subgroup (accepted: the
 *     GPU skips that check), every kind of bad encoding alone and mixed (the first bad index
 *     reported exactly, the identity stored), random x under every flag combination;
 *   - the NTT (the kernel's phases, every thread's share in turn, over a host tile) against
 *     src/ntt's CPU NTT, bit for bit: every kind at every size 2^1..2^14 with the library's
 *     kernel shape and at 2^1..2^12 with shapes that cut small sizes into several passes, and
 *     2^16 and 2^18 forward; no two threads may touch one tile slot between two barriers, and at
 *     2^16 and 2^18 (the passes of 2^24 and of 2^27) the default shape's tile accesses must have
 *     no bank-group collisions within quarter warps.
 * A build without CUDA has no twins: the test reports itself skipped (exit 77). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ec/encode.h"
#include "ff/ff_constants.h"
#include "gpu/gpu_twin.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
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
    cuzk_fp edges[TEST_FP_NEDGES]; /* raw Montgomery limbs, all below p (test_util) */
    test_fp_edges(edges);
    const size_t ne = TEST_FP_NEDGES, nrand = 10000, n = ne * ne + nrand;
    cuzk_fp *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got),
            *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            a[i * ne + j] = edges[i];
            b[i * ne + j] = edges[j];
        }
    for (size_t i = ne * ne; i < n; i++) {
        cuzk_fp_random(&a[i], &test_rng);
        cuzk_fp_random(&b[i], &test_rng);
    }
    static const int ops[] = {CUZK_GPU_FP_ADD, CUZK_GPU_FP_SUB, CUZK_GPU_FP_MUL, CUZK_GPU_FP_SQR};
    static const char *names[] = {"add", "sub", "mul", "sqr"};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        const int op = ops[o];
        const char *opname = names[o];
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case CUZK_GPU_FP_ADD: cuzk_fp_add(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_SUB: cuzk_fp_sub(&want[i], &a[i], &b[i]); break;
            case CUZK_GPU_FP_SQR: cuzk_fp_sqr(&want[i], &a[i]); break;
            default: cuzk_fp_mul(&want[i], &a[i], &b[i]); break;
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
                        opname, i, x, y, g, w);
            }
        }
        CHECK(bad == 0);
    }
    /* inversion (the binary GCD): the special inputs, then random elements */
    const size_t nspec = test_fp_specials(NULL), ninv = nspec + 20000;
    cuzk_fp *x = malloc(ninv * sizeof *x), *xgot = malloc(ninv * sizeof *xgot),
            *xwant = malloc(ninv * sizeof *xwant);
    test_fp_specials(x);
    for (size_t i = nspec; i < ninv; i++) cuzk_fp_random(&x[i], &test_rng);
    for (size_t i = 0; i < ninv; i++) cuzk_fp_inv(&xwant[i], &x[i]);
    memset(xgot, 0xa5, ninv * sizeof *xgot);
    CHECK(cuzk_gpu_twin_fp(CUZK_GPU_FP_INV, x, NULL, xgot, ninv) == CUZK_OK);
    size_t bad = 0;
    for (size_t i = 0; i < ninv; i++) {
        if (cuzk_fp_eq(&xgot[i], &xwant[i])) continue;
        if (!bad++) {
            char v[99], g[99], w[99];
            fp_hex(v, &x[i]), fp_hex(g, &xgot[i]), fp_hex(w, &xwant[i]);
            fprintf(stderr, "test_gpu_twin: fp inv at %zu:\n  a %s\n  got  %s\n  want %s\n", i, v,
                    g, w);
        }
    }
    CHECK(bad == 0);
    /* the product on the special inputs: each one times another and times a random element */
    cuzk_fp *y = malloc(ninv * sizeof *y);
    for (size_t i = 0; i < ninv; i++) {
        y[i] = i < nspec ? x[(i * 7919 + 1) % nspec] : x[i - nspec];
        cuzk_fp_mul(&xwant[i], &x[i], &y[i]);
    }
    memset(xgot, 0xa5, ninv * sizeof *xgot);
    CHECK(cuzk_gpu_twin_fp(CUZK_GPU_FP_MUL, x, y, xgot, ninv) == CUZK_OK);
    bad = 0; /* the inversions' count: a failure there must not hide this one's first report */
    for (size_t i = 0; i < ninv; i++) {
        if (cuzk_fp_eq(&xgot[i], &xwant[i])) continue;
        if (!bad++) {
            char v[99], u[99], g[99], w[99];
            fp_hex(v, &x[i]), fp_hex(u, &y[i]), fp_hex(g, &xgot[i]), fp_hex(w, &xwant[i]);
            fprintf(
                stderr,
                "test_gpu_twin: fp mul (specials) at %zu:\n  a %s\n  b %s\n  got  %s\n  want %s\n",
                i, v, u, g, w);
        }
    }
    CHECK(bad == 0);
    free(y);
    printf("test_gpu_twin: Fp: %zu pairs per operation, %zu inversions and products (%zu "
           "special inputs)\n",
           n, ninv, nspec);
    free(x);
    free(xgot);
    free(xwant);
    free(a);
    free(b);
    free(got);
    free(want);
}

/* Fr: the NTT's multiplication and the butterfly's addition and subtraction, on the host
 * spelling of their carry chains (the device spelling: test_gpu_ntt's field checks). */
static void test_fr(void) {
    const size_t nrand = 20000, n = TEST_FR_NEDGES * TEST_FR_NEDGES + nrand;
    cuzk_fr *a = test_xmalloc(n * sizeof *a), *b = test_xmalloc(n * sizeof *b),
            *got = test_xmalloc(n * sizeof *got), *want = test_xmalloc(n * sizeof *want);
    test_fr_pairs(a, b, nrand); /* every pair of the edge values, then random pairs */
    static const char *name[] = {"add", "sub", "mul", "sqr", "neg"};
    for (int op = CUZK_GPU_FR_ADD; op <= CUZK_GPU_FR_NEG; op++) {
        test_fr_apply(op, want, a, b, n);
        memset(got, 0xa5, n * sizeof *got);
        CHECK(cuzk_gpu_twin_fr((enum cuzk_gpu_fr_op)op, a, b, got, n) == CUZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            if (cuzk_fr_eq(&got[i], &want[i])) continue;
            if (!bad++) {
                char x[67], y[67], g[67], w[67];
                test_fr_hex(x, &a[i]), test_fr_hex(y, &b[i]), test_fr_hex(g, &got[i]),
                    test_fr_hex(w, &want[i]);
                fprintf(stderr,
                        "test_gpu_twin: fr %s at %zu:\n  a %s\n  b %s\n  got  %s\n  want %s\n",
                        name[op], i, x, y, g, w);
            }
        }
        CHECK(bad == 0);
    }
    /* bad arguments are refused */
    CHECK(cuzk_gpu_twin_fr((enum cuzk_gpu_fr_op)7, a, b, got, 1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_fr(CUZK_GPU_FR_MUL, a, NULL, got, 1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_fr(CUZK_GPU_FR_SQR, a, NULL, got, 1) == CUZK_OK);
    free(a), free(b), free(got), free(want);
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
    /* the product and the square on every pair of elements whose halves are edge values: the
     * extremes of Karatsuba's middle terms (a0 b0 - a1 b1 near -p^2 and p^2, a0 b1 + a1 b0
     * near 2 p^2), where a product form with fewer reductions would first go wrong */
    const size_t ne = TEST_FP_NEDGES * TEST_FP_NEDGES, ne2 = ne * ne;
    cuzk_fp edges[TEST_FP_NEDGES];
    test_fp_edges(edges);
    cuzk_fp2 *ea = test_xmalloc(ne2 * sizeof *ea), *eb = test_xmalloc(ne2 * sizeof *eb),
             *egot = test_xmalloc(ne2 * sizeof *egot), *ewant = test_xmalloc(ne2 * sizeof *ewant);
    for (size_t i = 0; i < ne2; i++) {
        const size_t x = i / ne, y = i % ne;
        ea[i].c0 = edges[x / TEST_FP_NEDGES], ea[i].c1 = edges[x % TEST_FP_NEDGES];
        eb[i].c0 = edges[y / TEST_FP_NEDGES], eb[i].c1 = edges[y % TEST_FP_NEDGES];
    }
    for (int op = CUZK_GPU_FP2_MUL; op <= CUZK_GPU_FP2_SQR; op++) {
        for (size_t i = 0; i < ne2; i++) {
            if (op == CUZK_GPU_FP2_MUL)
                cuzk_fp2_mul(&ewant[i], &ea[i], &eb[i]);
            else
                cuzk_fp2_sqr(&ewant[i], &ea[i]);
        }
        memset(egot, 0xa5, ne2 * sizeof *egot);
        CHECK(cuzk_gpu_twin_fp((enum cuzk_gpu_fp_op)op, ea, eb, egot, ne2) == CUZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < ne2; i++) bad += !cuzk_fp2_eq(&egot[i], &ewant[i]);
        CHECK(bad == 0);
        if (bad)
            fprintf(stderr, "test_gpu_twin: %s on edges: %zu of %zu wrong\n", name[op - 4], bad,
                    ne2);
    }
    free(ea), free(eb), free(egot), free(ewant);
    /* inversion: the special inputs (one half zero, edge pairs), then random elements */
    const size_t nspec = test_fp2_specials(NULL), ninv = nspec + 4000;
    cuzk_fp2 *x = malloc(ninv * sizeof *x), *xgot = malloc(ninv * sizeof *xgot),
             *xwant = malloc(ninv * sizeof *xwant);
    test_fp2_specials(x);
    for (size_t i = nspec; i < ninv; i++) cuzk_fp2_random(&x[i], &test_rng);
    for (size_t i = 0; i < ninv; i++) cuzk_fp2_inv(&xwant[i], &x[i]);
    memset(xgot, 0xa5, ninv * sizeof *xgot);
    CHECK(cuzk_gpu_twin_fp(CUZK_GPU_FP2_INV, x, NULL, xgot, ninv) == CUZK_OK);
    size_t bad = 0;
    for (size_t i = 0; i < ninv; i++) bad += !cuzk_fp2_eq(&xgot[i], &xwant[i]);
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "test_gpu_twin: fp2 inv: %zu of %zu wrong\n", bad, ninv);
    printf("test_gpu_twin: Fp2: %zu pairs per operation, %zu inversions (%zu special inputs)\n", n,
           ninv, nspec);
    free(x);
    free(xgot);
    free(xwant);
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

/* The layout and the digits of every widest-window bound: nw = ceil(256 / W) windows whose
 * widths are two adjacent values summing to 256, the wider on top, none wider than W; the
 * digits in range and recombining to the scalar (400 edge and random scalars per bound). */
static void test_digits(void) {
    int32_t d[32];
    unsigned wd[32];
    size_t count = 0;
    for (unsigned c = 8; c <= 24; c++) {
        for (unsigned t = 0; t < 400; t++) {
            cuzk_scalar k;
            edge_scalar(&k, t);
            int nw = cuzk_gpu_twin_digits(&k, c, d, wd);
            CHECK(nw == (int)((256 + c - 1) / c));
            if (nw <= 0) return;
            uint64_t acc[6] = {0};
            unsigned pos = 0;
            int ok = 1;
            for (int w = 0; w < nw; w++) {
                ok &= wd[w] <= c && wd[w] >= wd[0] && wd[w] <= wd[0] + 1;
                ok &= w == 0 || wd[w] >= wd[w - 1];
                ok &= d[w] >= -((1 << (wd[w] - 1)) - 1) && d[w] <= (1 << (wd[w] - 1));
                add_shifted(acc, d[w], pos);
                pos += wd[w];
            }
            ok &= pos == 256 && !memcmp(acc, k.l, sizeof k.l) && acc[4] == 0 && acc[5] == 0;
            CHECK(ok);
            if (!ok)
                fprintf(stderr,
                        "test_gpu_twin: digits of scalar %u (widest window %u) do not recombine\n",
                        t, c);
            count++;
        }
    }
    /* the documented example: a bound of 20 bits is 4 windows of 19 bits and 9 of 20 */
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 20, d, wd) == 13 && wd[0] == 19 &&
          wd[3] == 19 && wd[4] == 20 && wd[12] == 20);
    CHECK(cuzk_gpu_twin_digits(NULL, 12, d, wd) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 12, d, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 7, d, wd) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_digits(&(cuzk_scalar){{1, 0, 0, 0}}, 25, d, wd) == CUZK_EINVAL);
    /* the folded layouts: windows that tile [0, 256) in bit order, each set one window or a pair
     * of one width T bits apart, fewer sets than windows */
    for (unsigned c = 8; c <= 24; c++) {
        unsigned pos[32], w[32], set[32], shift = 0, covered = 0, sets = 0;
        const int nw = cuzk_gpu_twin_fold_layout(c, pos, w, set, &shift);
        CHECK(nw > 0 && nw <= 32);
        if (nw <= 0 || nw > 32) continue;
        for (int i = 0; i < nw; i++) {
            CHECK(pos[i] == covered && w[i] >= 8 && w[i] <= c && set[i] < (unsigned)nw);
            covered += w[i];
            sets = set[i] + 1 > sets ? set[i] + 1 : sets;
            int members = 0;
            for (int j = 0; j < nw; j++) {
                if (set[j] != set[i]) continue;
                members++;
                CHECK(w[j] == w[i] &&
                      (j == i || pos[j] == pos[i] + shift || pos[i] == pos[j] + shift));
            }
            CHECK(members == 1 || members == 2);
        }
        CHECK(covered == 256 && sets < (unsigned)nw && shift > 0 && shift < 256);
    }
    {
        unsigned pos[32], w[32], set[32], shift = 0;
        /* 11 windows of 23 and 24 bits: pairs 23+23+23+23+24 below, a single 24, shift 140 */
        CHECK(cuzk_gpu_twin_fold_layout(24, pos, w, set, &shift) == 11 && shift == 140 &&
              w[4] == 24 && w[5] == 24 && pos[6] == 140 && set[5] == 5 && set[10] == 4);
        CHECK(cuzk_gpu_twin_fold_layout(7, pos, w, set, &shift) == CUZK_EINVAL);
        CHECK(cuzk_gpu_twin_fold_layout(25, pos, w, set, &shift) == CUZK_EINVAL);
    }
    printf("test_gpu_twin: signed digits of %zu scalars recombine (widest windows 8..24)\n", count);
}

/* ---- curve formulas, MSM and batch multiplication, written once for both groups -------------- */

/* Contexts the MSM twins imitate: the library's defaults, several batches, long chunks, one
 * entry per chunk (every run crosses chunks); then folded bases (cuzk_gpu_bases_fold) of
 * layouts with a narrow single window (9 bits: 29 windows in 15 sets), a wide single one (14
 * bits: 19 windows in 10 sets) and none (16 bits: 16 windows in 8 sets), with the defaults,
 * several batches of paired sets, one entry per chunk. */
static const struct cuzk_gpu_twin_shape shapes[] = {
    {0, 0, 0, 0}, {0, 4000, 0, 0},  {0, 0, 7, 0},  {0, 2500, 3, 0},
    {0, 0, 0, 9}, {0, 2500, 0, 14}, {0, 0, 3, 16},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
/* Folded shapes force the folded layout (tuning fold 1) unless this is set: then the cost
 * model chooses, and only the sum is checked. */
static int fold_automatic;

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
        /* the formulas in registers, then with the mixed additions into a sum in memory */        \
        for (int mem = 0; mem < 2; mem++) {                                                        \
            memset(sum, 0xa5, n * sizeof *sum); /* no result of the first pass left */             \
            memset(dbl, 0xa5, n * sizeof *dbl);                                                    \
            CHECK((mem ? cuzk_gpu_twin_##S##_add_mem(a, b, sum, dbl, n)                            \
                       : cuzk_gpu_twin_##S##_add(a, b, sum, dbl, n)) == CUZK_OK);                  \
            size_t bad = 0;                                                                        \
            for (size_t i = 0; i < n; i++) {                                                       \
                G ja, jb, ws, wd;                                                                  \
                G##_from_affine(&ja, &a[i]);                                                       \
                G##_from_affine(&jb, &b[i]);                                                       \
                G##_add(&ws, &ja, &jb);                                                            \
                G##_dbl(&wd, &ja);                                                                 \
                int ok = G##_eq(&sum[i], &ws) && G##_eq(&dbl[i], &wd) &&                           \
                         G##_is_on_curve(&sum[i]) && G##_is_on_curve(&dbl[i]);                     \
                if (!ok && !bad)                                                                   \
                    fprintf(stderr, "test_gpu_twin: " #G " add/dbl%s wrong at %zu\n",              \
                            mem ? " (sum in memory)" : "", i);                                     \
                bad += !ok;                                                                        \
            }                                                                                      \
            CHECK(bad == 0);                                                                       \
            printf("test_gpu_twin: " #G " XYZZ formulas%s on %zu pairs (edge cases included)\n",   \
                   mem ? " into a sum in memory" : "", n);                                         \
        }                                                                                          \
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
            struct cuzk_gpu_msm_tuning tt = tune;                                                  \
            if (shapes[s].fold && tt.fold == 0 && !fold_automatic) tt.fold = 1;                    \
            int err = cuzk_gpu_twin_##S##_msm(&shapes[s], pts, k, n, &tt, &got, &rep);             \
            int ok = err == CUZK_OK && G##_eq(&got, &want) && G##_is_on_curve(&got);               \
            /* folded bases make a folded layout when forced, none when forbidden; a forced        \
             * presum level without the bit path runs on every G1 set of two entries or more (the  \
             * presum space holds every G1 batch of max_n scalars) and on some G2 sets (the first  \
             * sets of a batch that it holds), and none runs unless forced at these sizes */       \
            if (ok && rep.windowed)                                                                \
                ok = (tt.fold == 0 || rep.folded == (shapes[s].fold && tt.fold > 0)) &&            \
                     (rep.folded ? rep.sets < rep.windows : rep.sets == rep.windows) &&            \
                     (tt.presum > 0 ? tt.bit_path >= 0 || n < 2 ||                                 \
                                          (sizeof(G##_affine) == sizeof(cuzk_g1_affine)            \
                                               ? rep.presum_sets == rep.sets                       \
                                               : rep.presum_sets > 0)                              \
                                    : rep.presum_sets == 0);                                       \
            CHECK(ok);                                                                             \
            if (!ok) {                                                                             \
                bad++;                                                                             \
                fprintf(stderr,                                                                    \
                        "test_gpu_twin: " #G                                                       \
                        " msm %s: n = %zu, shape %zu, window %u (%u windows in %u sets, "          \
                        "folded %u, %u per batch, %u presummed), bit path %d, %zu windowed, "      \
                        "%zu ones: %s\n",                                                          \
                        what, n, s, rep.window, rep.windows, rep.sets, rep.folded,                 \
                        rep.windows_per_batch, rep.presum_sets, tune.bit_path, rep.windowed,       \
                        rep.ones, err ? cuzk_strerror(err) : "wrong sum or layout");               \
            }                                                                                      \
            if (s || tune.upload_chunk) continue;                                                  \
            /* the scalars uploaded in several chunks (the last one shorter): the same bytes */    \
            struct cuzk_gpu_msm_tuning tc = tune;                                                  \
            tc.upload_chunk = n / 3 + 1;                                                           \
            G chunked;                                                                             \
            err = cuzk_gpu_twin_##S##_msm(&shapes[s], pts, k, n, &tc, &chunked, NULL);             \
            ok = err == CUZK_OK && !memcmp(&chunked, &got, sizeof got);                            \
            CHECK(ok);                                                                             \
            if (!ok) {                                                                             \
                bad++;                                                                             \
                fprintf(stderr, "test_gpu_twin: " #G " msm %s: n = %zu, chunks of %zu differ\n",   \
                        what, n, tc.upload_chunk);                                                 \
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
            const struct cuzk_gpu_msm_tuning autot = {0, 0, 0, 0, 0, 0, 0},                        \
                                             bits_on = {0, 1, 0, 0, 0, 0, 0},                      \
                                             bits_off = {0, -1, 0, 0, 0, 0, 0},                    \
                                             no_fold = {0, 0, 0, -1, 0, 0, 0},                     \
                                             tree = {0, 1, 0, 0, 1, 0, 0},                         \
                                             tree_chunks = {0, 1, 0, 0, 1, n / 5 + 3, 0},          \
                                             no_tree = {0, 1, 0, 0, -1, 0, 0},                     \
                                             presum = {0, -1, 0, 0, 0, 0, 1},                      \
                                             presum_bits = {0, 1, 0, 0, 0, 0, 1};                  \
            /* random scalars; then every forced window width */                                   \
            for (size_t i = 0; i < n; i++) random_scalar(&k[i]);                                   \
            G##_check_msm("random", pts, k, n, autot, NSHAPES), runs += NSHAPES;                   \
            G##_check_msm("random, fold forbidden", pts, k, n, no_fold, NSHAPES), runs += NSHAPES; \
            G##_check_msm("random, presum", pts, k, n, presum, NSHAPES), runs += NSHAPES;          \
            fold_automatic = 1;                                                                    \
            G##_check_msm("random, fold automatic", pts, k, n, autot, NSHAPES), runs += NSHAPES;   \
            fold_automatic = 0;                                                                    \
            for (size_t w = 0; w < nwindows; w++) {                                                \
                struct cuzk_gpu_msm_tuning t = {windows[w], 0, 0, 0, 0, 0, 0};                     \
                G##_check_msm("forced window", pts, k, n, t, 2), runs += 2;                        \
            }                                                                                      \
            /* edge scalars (zeros, ones, r - 1, 2^255 - 1, patterns) */                           \
            for (size_t i = 0; i < n; i++) edge_scalar(&k[i], (unsigned)cuzk_rng_u64(&test_rng));  \
            G##_check_msm("edge scalars", pts, k, n, autot, NSHAPES), runs += NSHAPES;             \
            G##_check_msm("edge scalars, presum", pts, k, n, presum, NSHAPES), runs += NSHAPES;    \
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
            G##_check_msm("bits on, presum", pts, k, n, presum_bits, NSHAPES), runs += NSHAPES;    \
            G##_check_msm("bits off", pts, k, n, bits_off, NSHAPES), runs += NSHAPES;              \
            /* the sum of the ones by batch-affine levels down to one point, in one chunk and in   \
             * several, and by XYZZ sums alone */                                                  \
            G##_check_msm("bits on, ones tree", pts, k, n, tree, 2), runs += 2;                    \
            G##_check_msm("bits on, ones tree in chunks", pts, k, n, tree_chunks, 1), runs++;      \
            G##_check_msm("bits on, no ones tree", pts, k, n, no_tree, 1), runs++;                 \
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
            G##_check_msm("the same, presum", q, k, n, presum, NSHAPES);                           \
            runs += NSHAPES;                                                                       \
            /* scalar 1 over pairs P + P, P + (-P), identity + P: the tree's first level meets     \
             * each case, the later ones their sums (odd counts, chunks of an odd length) */       \
            G##_affine *o = malloc(n * sizeof *o);                                                 \
            for (size_t i = 0; i < n; i++) {                                                       \
                set_small(&k[i], 1);                                                               \
                o[i] = pool[(i / 6) % 8];                                                          \
                if (i % 6 == 3) G##_affine_neg(&o[i], &o[i]);                                      \
                if (i % 6 == 4) G##_affine_set_inf(&o[i]);                                         \
            }                                                                                      \
            G##_check_msm("ones over doubled, cancelling and identity pairs, tree", o, k, n, tree, \
                          1);                                                                      \
            G##_check_msm("the same, tree in chunks", o, k, n, tree_chunks, 1);                    \
            G##_check_msm("the same, no tree", o, k, n, no_tree, 1);                               \
            runs += 3;                                                                             \
            free(o);                                                                               \
            random_scalar(&k[0]);                                                                  \
            for (size_t i = 1; i < n; i++) k[i] = k[0];                                            \
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
            G##_check_msm("pairs that cancel, presum", q, k, n, presum, NSHAPES), runs += NSHAPES; \
            free(q);                                                                               \
        }                                                                                          \
        G zero;                                                                                    \
        CHECK(cuzk_gpu_twin_##S##_msm(&shapes[0], pts, k, 0, NULL, &zero, NULL) == CUZK_OK &&      \
              G##_is_inf(&zero));                                                                  \
        const struct cuzk_gpu_twin_shape small = {4, 0, 0, 0};                                     \
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

/* ---- square roots and point decompression (the key loader's decoder, gpu_points.h) ---------- */

/* The device square roots against cuzk_fp_sqrt / cuzk_fp2_sqrt: the same answer to "is it a
 * square", and a root equal to the CPU's up to sign (the Fp2 method differs). Edge values:
 * 0, 1, -1 and, in Fp2, elements with one half zero (the method's special case a1 = 0), both
 * with the other half a square and not. */
static void cuzk_fp_sqrt_edges(cuzk_fp *a) { (void)a; }
/* a[3..40): one half zero (c1 = 0: always a square in Fp2, by a0's root in Fp or not; c0 = 0),
 * the other half random or a square */
static void cuzk_fp2_sqrt_edges(cuzk_fp2 *a) {
    for (size_t i = 3; i < 40; i++) cuzk_fp_set_zero((i / 2) % 2 ? &a[i].c1 : &a[i].c0);
}

#define SQRT_TEST(FF, DEGREE, N)                                                                   \
    static void FF##_test_sqrt(void) {                                                             \
        const size_t n = N;                                                                        \
        FF *a = malloc(n * sizeof *a), *got = malloc(n * sizeof *got);                             \
        int *sq = malloc(n * sizeof *sq);                                                          \
        size_t squares = 0, bad = 0;                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            FF##_random(&a[i], &test_rng);                                                         \
            if (i % 2) FF##_sqr(&a[i], &a[i]);                                                     \
        }                                                                                          \
        memset(&a[0], 0, sizeof a[0]);                                                             \
        FF##_set_one(&a[1]);                                                                       \
        FF##_neg(&a[2], &a[1]);                                                                    \
        FF##_sqrt_edges(a);                                                                        \
        CHECK(cuzk_gpu_twin_fp_sqrt(DEGREE, a, got, sq, n) == CUZK_OK);                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            FF want, chk, neg;                                                                     \
            const int cpu = FF##_sqrt(&want, &a[i]) == CUZK_OK;                                    \
            int ok = sq[i] == cpu;                                                                 \
            if (cpu) {                                                                             \
                FF##_sqr(&chk, &got[i]);                                                           \
                FF##_neg(&neg, &want);                                                             \
                ok &= FF##_eq(&chk, &a[i]) && (FF##_eq(&got[i], &want) || FF##_eq(&got[i], &neg)); \
                squares++;                                                                         \
            }                                                                                      \
            if (!ok && !bad) fprintf(stderr, "test_gpu_twin: " #FF " sqrt wrong at %zu\n", i);     \
            bad += !ok;                                                                            \
        }                                                                                          \
        CHECK(bad == 0);                                                                           \
        printf("test_gpu_twin: " #FF " square roots of %zu elements (%zu squares)\n", n, squares); \
        free(a);                                                                                   \
        free(got);                                                                                 \
        free(sq);                                                                                  \
    }
SQRT_TEST(cuzk_fp, 1, 400)
SQRT_TEST(cuzk_fp2, 2, 200)

/* The decompression twin for group G (BYTES per encoding, HALVES base field elements in x,
 * field FF) against cuzk_g*_from_compressed. */
#define DECOMPRESS_TESTS(G, S, FF, BYTES, HALVES)                                                  \
    /* Decodes n encodings: a point the CPU accepts, or rejects only for the subgroup check, must  \
     * decode to a curve point that re-encodes to the same bytes (the CPU's point, bit for bit,    \
     * when the CPU accepts it); any other point must come out as the identity (zero bytes); the   \
     * twin must report the first of them and CUZK_EFORMAT. Returns the number of bad points.      \
     */                                                                                            \
    static size_t G##_check_decompress(const char *what, const uint8_t *enc, size_t n) {           \
        G##_affine *got = malloc(n * sizeof *got), zero;                                           \
        memset(got, 0xa5, n * sizeof *got);                                                        \
        memset(&zero, 0, sizeof zero);                                                             \
        size_t bad = 0, first = SIZE_MAX, nbad = 0, wrong = 0;                                     \
        const int err = cuzk_gpu_twin_##S##_decompress(enc, n, got, &bad);                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            const uint8_t *e = enc + i * BYTES;                                                    \
            G##_affine want;                                                                       \
            const int cpu = G##_from_compressed(&want, e);                                         \
            int ok;                                                                                \
            if (cpu == CUZK_OK || cpu == CUZK_ENOTINSUBGROUP) {                                    \
                uint8_t re[BYTES];                                                                 \
                G##_to_compressed(re, &got[i]);                                                    \
                ok = G##_affine_is_on_curve(&got[i]) && !memcmp(re, e, BYTES) &&                   \
                     (cpu != CUZK_OK || !memcmp(&got[i], &want, sizeof want));                     \
            } else {                                                                               \
                ok = !memcmp(&got[i], &zero, sizeof zero);                                         \
                first = first == SIZE_MAX ? i : first;                                             \
                nbad++;                                                                            \
            }                                                                                      \
            if (!ok && !wrong)                                                                     \
                fprintf(stderr, "test_gpu_twin: " #G " decompress %s: point %zu (CPU: %s)\n",      \
                        what, i, cuzk_strerror(cpu));                                              \
            wrong += !ok;                                                                          \
        }                                                                                          \
        CHECK(wrong == 0);                                                                         \
        CHECK(bad == first);                                                                       \
        CHECK(err == (first == SIZE_MAX ? CUZK_OK : CUZK_EFORMAT));                                \
        if (bad != first)                                                                          \
            fprintf(stderr, "test_gpu_twin: " #G " decompress %s: bad %zu, want %zu\n", what, bad, \
                    first);                                                                        \
        free(got);                                                                                 \
        return nbad;                                                                               \
    }                                                                                              \
    /* An encoding of each way to be bad (kind < G##_BAD_KINDS), made from a valid one. */         \
    static void G##_make_bad(uint8_t *out, const uint8_t *valid, const uint8_t *off_curve,         \
                             int kind) {                                                           \
        static const uint64_t p[6] = CUZK_FP_MODULUS;                                              \
        memcpy(out, valid, BYTES);                                                                 \
        switch (kind) {                                                                            \
        case 0: out[0] &= 0x7f; break; /* the compressed flag missing */                           \
        case 1: out[0] = 0x40, memset(out + 1, 0, BYTES - 1); break; /* identity, no 0x80 */       \
        case 2: out[0] = 0xc0, memset(out + 1, 0, BYTES - 1), out[BYTES - 1] = 1; break;           \
        case 3: out[0] = 0xe0, memset(out + 1, 0, BYTES - 1); break; /* identity and sort flag */  \
        case 4: out[0] |= 0x40; break;                               /* identity flag, x != 0 */   \
        case 5: memset(out, 0xff, 48), out[0] = 0x9f; break;         /* x = 2^381 - 1 */           \
        case 6:                                                      /* x (or x.c0) = p */         \
        case 7:                                                                                    \
            for (int b = 0; b < 48; b++) {                                                         \
                uint8_t *q = out + (kind == 7 && HALVES == 2 ? 48 : 0);                            \
                q[b] = (uint8_t)(p[5 - b / 8] >> (8 * (7 - b % 8)));                               \
            }                                                                                      \
            out[0] |= 0x80;                                                                        \
            break;                                                                                 \
        default: memcpy(out, off_curve, BYTES); break; /* x^3 + b not a square */                  \
        }                                                                                          \
    }                                                                                              \
    static void G##_test_decompress(size_t n) {                                                    \
        enum { BAD_KINDS = 9 };                                                                    \
        /* valid: n points, their negations (each x with both roots), identities, points outside   \
         * the subgroup */                                                                         \
        const size_t nv = 2 * n + 16;                                                              \
        G##_affine *pts = malloc(nv * sizeof *pts);                                                \
        const size_t nv_bytes = nv * BYTES;                                                        \
        uint8_t *enc = malloc(nv_bytes), *mix = malloc(nv_bytes), off_curve[BYTES];                \
        G##_points(pts, n);                                                                        \
        for (size_t i = 0; i < n; i++) G##_affine_neg(&pts[n + i], &pts[i]);                       \
        for (size_t i = 2 * n; i < 2 * n + 8; i++) G##_affine_set_inf(&pts[i]);                    \
        for (size_t i = 2 * n + 8; i < nv; i++) test_##S##_nonsub(&pts[i]);                        \
        size_t larger = 0;                                                                         \
        for (size_t i = 0; i < nv; i++) {                                                          \
            G##_to_compressed(enc + i * BYTES, &pts[i]);                                           \
            larger += (enc[i * BYTES] & 0x20) != 0;                                                \
        }                                                                                          \
        CHECK(G##_check_decompress("valid", enc, nv) == 0);                                        \
        G##_affine *got = malloc(nv * sizeof *got);                                                \
        size_t bad = 0;                                                                            \
        CHECK(cuzk_gpu_twin_##S##_decompress(enc, nv, got, &bad) == CUZK_OK && bad == SIZE_MAX);   \
        CHECK(!memcmp(got, pts, nv * sizeof *pts)); /* outside the subgroup too */                 \
        /* an x with no curve point */                                                             \
        for (;;) {                                                                                 \
            G##_affine t, w;                                                                       \
            FF##_random(&t.x, &test_rng);                                                          \
            t.y = t.x;                                                                             \
            G##_to_compressed(off_curve, &t);                                                      \
            if (G##_from_compressed(&w, off_curve) == CUZK_ENOTONCURVE) break;                     \
        }                                                                                          \
        /* each kind alone, at index 3 of 8 valid points */                                        \
        for (int k = 0; k < BAD_KINDS; k++) {                                                      \
            memcpy(mix, enc, 8 * BYTES);                                                           \
            G##_make_bad(mix + 3 * BYTES, enc + 3 * BYTES, off_curve, k);                          \
            CHECK(G##_check_decompress("one bad point", mix, 8) == 1);                             \
            CHECK(cuzk_gpu_twin_##S##_decompress(mix, 8, got, &bad) == CUZK_EFORMAT && bad == 3);  \
        }                                                                                          \
        /* every kind at once among the valid points: the first bad index is reported */           \
        memcpy(mix, enc, nv_bytes);                                                                \
        size_t first = SIZE_MAX;                                                                   \
        for (int k = 0; k < BAD_KINDS; k++) {                                                      \
            const size_t at = 5 + (size_t)(cuzk_rng_u64(&test_rng) % (2 * n - 5)); /* not inf */   \
            G##_make_bad(mix + at * BYTES, enc + at * BYTES, off_curve, k);                        \
            first = at < first ? at : first;                                                       \
        }                                                                                          \
        const size_t nb = G##_check_decompress("mixed", mix, nv);                                  \
        CHECK(nb >= 1 && nb <= BAD_KINDS);                                                         \
        CHECK(cuzk_gpu_twin_##S##_decompress(mix, nv, got, &bad) == CUZK_EFORMAT && bad == first); \
        /* random x below p under every combination of the three flags: the CPU's verdict */       \
        const size_t nr = 8 * (n / 4);                                                             \
        for (size_t i = 0; i < nr; i++) {                                                          \
            G##_affine t;                                                                          \
            FF##_random(&t.x, &test_rng);                                                          \
            t.y = t.x;                                                                             \
            G##_to_compressed(mix + i * BYTES, &t);                                                \
            mix[i * BYTES] = (uint8_t)((mix[i * BYTES] & 0x1f) | (i % 8) << 5);                    \
        }                                                                                          \
        const size_t nrb = G##_check_decompress("random x, all flags", mix, nr);                   \
        CHECK(cuzk_gpu_twin_##S##_decompress(NULL, 1, got, &bad) == CUZK_EINVAL);                  \
        CHECK(cuzk_gpu_twin_##S##_decompress(NULL, 0, NULL, &bad) == CUZK_OK && bad == SIZE_MAX);  \
        printf("test_gpu_twin: " #G " decompression: %zu valid points (%zu with the larger y), "   \
               "%d kinds of bad encodings, %zu random x (%zu bad)\n",                              \
               nv, larger, BAD_KINDS, nr, nrb);                                                    \
        free(pts);                                                                                 \
        free(enc);                                                                                 \
        free(mix);                                                                                 \
        free(got);                                                                                 \
    }
DECOMPRESS_TESTS(cuzk_g1, g1, cuzk_fp, CUZK_G1_COMPRESSED, 1)
DECOMPRESS_TESTS(cuzk_g2, g2, cuzk_fp2, CUZK_G2_COMPRESSED, 2)

/* ---- the NTT --------------------------------------------------------------------------------- */

/* Kernel shapes (log_block, log_cols, threads; 0: the library's): small blocks give small sizes
 * several passes, so that every pass layout and step shape is run. */
static const int ntt_shapes[][3] = {
    {0, 0, 0}, {4, 1, 32}, {5, 2, 32}, {6, 0, 32}, {7, 3, 64}, {8, 2, 128}, {11, 3, 256},
};
#define NTT_NSHAPES (sizeof ntt_shapes / sizeof ntt_shapes[0])
#define NTT_MAX_LOG 14   /* every size up to this one with the library's shape */
#define NTT_SHAPE_LOG 12 /* and up to this one with the others */

static void test_ntt(void) {
    static const char *kind_name[] = {"forward", "inverse", "coset_forward", "coset_inverse",
                                      "inverse_to_coset"};
    const size_t nmax = (size_t)1 << NTT_MAX_LOG;
    cuzk_fr *a = malloc(nmax * sizeof *a), *got = malloc(nmax * sizeof *got),
            *want = malloc(nmax * sizeof *want);
    size_t runs = 0;
    uint64_t races = 0, accesses = 0, collisions = 0;
    for (size_t sh = 0; sh < NTT_NSHAPES; sh++) {
        const int *shape = ntt_shapes[sh];
        for (int log_n = 1; log_n <= (sh ? NTT_SHAPE_LOG : NTT_MAX_LOG); log_n++) {
            const size_t n = (size_t)1 << log_n;
            const struct cuzk_ntt_domain *d;
            CHECK(cuzk_ntt_domain_get(log_n, &d) == CUZK_OK);
            for (int kind = CUZK_GPU_NTT_FORWARD; kind <= CUZK_GPU_NTT_INVERSE_TO_COSET; kind++) {
                cuzk_fr shift; /* random, the generator 7 and snarkjs's omega_2n in turn */
                switch (runs % 3) {
                case 0: cuzk_fr_random(&shift, &test_rng); break;
                case 1: cuzk_fr_from_u64(&shift, 7); break;
                default: shift = d->omega_2n; break;
                }
                for (size_t i = 0; i < n; i++) cuzk_fr_random(&a[i], &test_rng);
                memcpy(got, a, n * sizeof *a);
                memcpy(want, a, n * sizeof *a);
                switch (kind) {
                case CUZK_GPU_NTT_FORWARD: cuzk_ntt_forward(NULL, d, want); break;
                case CUZK_GPU_NTT_INVERSE: cuzk_ntt_inverse(NULL, d, want); break;
                case CUZK_GPU_NTT_COSET_FORWARD:
                    cuzk_ntt_coset_forward(NULL, d, want, &shift);
                    break;
                case CUZK_GPU_NTT_COSET_INVERSE:
                    cuzk_ntt_coset_inverse(NULL, d, want, &shift);
                    break;
                default: /* CUZK_GPU_NTT_INVERSE_TO_COSET */
                    cuzk_ntt_inverse(NULL, d, want);
                    cuzk_ntt_scale_powers(NULL, want, n, &shift);
                    break;
                }
                struct cuzk_gpu_twin_ntt_report rep;
                CHECK(cuzk_gpu_twin_ntt(got, log_n, (enum cuzk_gpu_ntt_kind)kind, &shift, shape[0],
                                        shape[1], shape[2], &rep) == CUZK_OK);
                size_t bad = 0, first = 0;
                for (size_t i = 0; i < n; i++)
                    if (!cuzk_fr_eq(&got[i], &want[i]) && !bad++) first = i;
                CHECK(bad == 0 && rep.races == 0);
                if (bad || rep.races)
                    fprintf(stderr,
                            "test_gpu_twin: ntt %s log_n=%d shape (%d, %d, %d): %zu of %zu "
                            "elements differ (first %zu), %llu races\n",
                            kind_name[kind], log_n, shape[0], shape[1], shape[2], bad, n, first,
                            (unsigned long long)rep.races);
                races += rep.races;
                if (sh == 0 && log_n >= 10) { /* the default shape with full tiles */
                    accesses += rep.accesses;
                    collisions += rep.collisions;
                }
                runs++;
            }
        }
    }
    /* The default shape's full-size passes: 2^16 has those of 2^24 (8 stages, 4 columns), 2^18
     * those of 2^27 (9 stages, 2 columns: pass_cols picks them there, two passes instead of
     * three). Each must equal the CPU's forward NTT, and its tile accesses must be free of
     * bank-group collisions within quarter warps. */
    static const int big_log[] = {16, 18};
    for (size_t b = 0; b < sizeof big_log / sizeof big_log[0]; b++) {
        const int lg = big_log[b];
        const size_t nbig = (size_t)1 << lg;
        cuzk_fr *big = test_xmalloc(nbig * sizeof *big),
                *big_want = test_xmalloc(nbig * sizeof *big_want);
        const struct cuzk_ntt_domain *dbig;
        CHECK(cuzk_ntt_domain_get(lg, &dbig) == CUZK_OK);
        for (size_t i = 0; i < nbig; i++) cuzk_fr_random(&big[i], &test_rng);
        memcpy(big_want, big, nbig * sizeof *big);
        cuzk_ntt_forward(NULL, dbig, big_want);
        struct cuzk_gpu_twin_ntt_report big_rep;
        CHECK(cuzk_gpu_twin_ntt(big, lg, CUZK_GPU_NTT_FORWARD, NULL, 0, 0, 0, &big_rep) == CUZK_OK);
        CHECK(!memcmp(big, big_want, nbig * sizeof *big));
        CHECK(big_rep.passes == 2 && big_rep.races == 0 && big_rep.collisions == 0);
        printf("test_gpu_twin: NTT 2^%d forward (default shape, %d passes) equals the CPU's: %llu "
               "tile accesses, %llu races, %llu bank-group collisions\n",
               lg, big_rep.passes, (unsigned long long)big_rep.accesses,
               (unsigned long long)big_rep.races, (unsigned long long)big_rep.collisions);
        free(big);
        free(big_want);
    }
    /* arguments */
    cuzk_fr zero;
    cuzk_fr_set_zero(&zero);
    CHECK(cuzk_gpu_twin_ntt(NULL, 4, CUZK_GPU_NTT_FORWARD, NULL, 0, 0, 0, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_ntt(a, 0, CUZK_GPU_NTT_FORWARD, NULL, 0, 0, 0, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_ntt(a, CUZK_GPU_TWIN_NTT_MAX_LOG + 1, CUZK_GPU_NTT_FORWARD, NULL, 0, 0, 0,
                            NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_ntt(a, 4, CUZK_GPU_NTT_COSET_FORWARD, &zero, 0, 0, 0, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_ntt(a, 4, CUZK_GPU_NTT_FORWARD, NULL, 5, 5, 32, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_twin_ntt(a, 4, CUZK_GPU_NTT_FORWARD, NULL, 5, 2, 48, NULL) == CUZK_EINVAL);
    printf("test_gpu_twin: NTT: %zu transforms (5 kinds, 2^1..2^%d, %zu kernel shapes) equal the "
           "CPU's, %llu races; default shape 2^10..2^%d: %llu tile accesses, %llu bank-group "
           "collisions\n",
           runs, NTT_MAX_LOG, NTT_NSHAPES, (unsigned long long)races, NTT_MAX_LOG,
           (unsigned long long)accesses, (unsigned long long)collisions);
    free(a);
    free(got);
    free(want);
}

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
    test_fr();
    test_digits();
    cuzk_g1_test_add();
    cuzk_g2_test_add();
    printf("test_gpu_twin: automatic windows: 2^10 -> %u, 2^16 -> %u, 2^20 -> %u, 2^24 -> %u, "
           "2^26 -> %u, 2^27 -> %u bits\n",
           cuzk_gpu_twin_auto_window(1 << 10), cuzk_gpu_twin_auto_window(1 << 16),
           cuzk_gpu_twin_auto_window(1 << 20), cuzk_gpu_twin_auto_window(1 << 24),
           cuzk_gpu_twin_auto_window(1 << 26), cuzk_gpu_twin_auto_window(1 << 27));
    /* the window counts measured fastest on the H200 test machine (docs/perf-log/2026-12.md): 13
     * windows at 2^24 and 2^25 (widest 20 bits), 12 at 2^26 and 2^27 (widest 22: the
     * porep-c18 H query); 2^16 and 2^20 keep their counts, 2^10 takes 22 windows of 11 and 12
     * bits where it took 24 of 11 */
    CHECK(cuzk_gpu_twin_auto_window(1 << 24) == 20 && cuzk_gpu_twin_auto_window(1 << 25) == 20);
    CHECK(cuzk_gpu_twin_auto_window(1 << 26) == 22 && cuzk_gpu_twin_auto_window(1 << 27) == 22);
    CHECK(cuzk_gpu_twin_auto_window(1 << 10) == 12 && cuzk_gpu_twin_auto_window(1 << 16) == 13 &&
          cuzk_gpu_twin_auto_window(1 << 20) == 16);
    /* folded: 12 windows of 21 and 22 bits in 6 sets at 2^26, 11 of 23 and 24 in 6 sets at 2^27
     * (the porep-c18 H query), the layouts measured fastest there (docs/perf-log/2026-12.md) */
    printf("test_gpu_twin: automatic folded windows: 2^24 -> %u, 2^26 -> %u, 2^27 -> %u bits\n",
           cuzk_gpu_msm_fold_window(1 << 24), cuzk_gpu_msm_fold_window(1 << 26),
           cuzk_gpu_msm_fold_window(1 << 27));
    CHECK(cuzk_gpu_msm_fold_window(1 << 26) == 22 && cuzk_gpu_msm_fold_window(1 << 27) == 24);
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
    cuzk_fp_test_sqrt();
    cuzk_fp2_test_sqrt();
    cuzk_g1_test_decompress(200);
    cuzk_g2_test_decompress(60);
    test_ntt();
    return test_finish();
}
