#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ff/ff_constants.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"

struct cuzk_rng test_rng;
long test_checks, test_failures;
static const char *test_name = "test";

void test_init(const char *name) {
    test_name = name;
    uint64_t seed;
    const char *env = getenv("CUZK_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    else if (cuzk_rand_bytes(&seed, sizeof seed) != 0)
        seed = 1;
    printf("%s: seed %llu (rerun with CUZK_TEST_SEED=%llu)\n", name, (unsigned long long)seed,
           (unsigned long long)seed);
    cuzk_rng_seed(&test_rng, seed);
}

int test_finish(void) {
    printf("%s: %ld passed, %ld failed\n", test_name, test_checks - test_failures, test_failures);
    return test_failures ? 1 : 0;
}

int test_skip(const char *why) {
    printf("%s: %s: skipped\n", test_name, why);
    const int rc = test_finish();
    return rc ? rc : 77;
}

void *test_xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: out of host memory (%zu bytes)\n", test_name, bytes);
        exit(1);
    }
    return p;
}

double test_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void test_scalar_random(cuzk_scalar *k) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_scalar_from_fr(k, &s);
}

void test_scalar_set(cuzk_scalar *k, uint64_t v) {
    memset(k, 0, sizeof *k);
    k->l[0] = v;
}

void test_gpu_banner(int dev) {
    struct cuzk_gpu_info info;
    if (cuzk_gpu_describe(dev, &info) == CUZK_OK)
        printf("%s: device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", test_name, dev, info.name,
               info.cc_major, info.cc_minor, info.multiprocessors,
               (double)info.total_mem / (1 << 30));
}

void test_fp_edges(cuzk_fp out[TEST_FP_NEDGES]) {
    static const uint64_t p[6] = CUZK_FP_MODULUS, half[6] = CUZK_FP_HALF;
    const uint64_t edges[TEST_FP_NEDGES][6] = {
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
    for (int i = 0; i < TEST_FP_NEDGES; i++) memcpy(out[i].l, edges[i], sizeof out[i].l);
}

void test_fr_edges(cuzk_fr out[TEST_FR_NEDGES]) {
    static const uint64_t r[4] = CUZK_FR_MODULUS, half[4] = CUZK_FR_HALF;
    const uint64_t edges[TEST_FR_NEDGES][4] = {
        {0, 0, 0, 0},
        {1, 0, 0, 0},
        {2, 0, 0, 0},
        {r[0] - 1, r[1], r[2], r[3]},
        {r[0] - 2, r[1], r[2], r[3]},
        {half[0], half[1], half[2], half[3]},
        {half[0] + 1, half[1], half[2], half[3]},
        {0xffffffffull, 0, 0, 0},
        {~0ull, 0, 0, 0},
        {~0ull, ~0ull, 0, 0},
        {~0ull, ~0ull, ~0ull, 0},
        {0, 0, 0, 1ull << 62},
        {0, r[1], r[2], r[3]},                   /* r less its low limb: below r */
        {r[0] - (1ull << 32), r[1], r[2], r[3]}, /* r - 2^32 */
        {~0ull, ~0ull, ~0ull, r[3] - 1},         /* the largest value with top limb r[3] - 1 */
        CUZK_FR_R1,
    };
    for (int i = 0; i < TEST_FR_NEDGES; i++) memcpy(out[i].l, edges[i], sizeof out[i].l);
}

void test_fr_pairs(cuzk_fr *a, cuzk_fr *b, size_t nrand) {
    cuzk_fr edges[TEST_FR_NEDGES];
    test_fr_edges(edges);
    const size_t ne = TEST_FR_NEDGES;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            a[i * ne + j] = edges[i];
            b[i * ne + j] = edges[j];
        }
    for (size_t i = ne * ne; i < ne * ne + nrand; i++) {
        cuzk_fr_random(&a[i], &test_rng);
        cuzk_fr_random(&b[i], &test_rng);
    }
}

void test_fr_hex(char out[67], const cuzk_fr *a) {
    snprintf(out, 67, "0x%016llx%016llx%016llx%016llx", (unsigned long long)a->l[3],
             (unsigned long long)a->l[2], (unsigned long long)a->l[1], (unsigned long long)a->l[0]);
}

void test_fr_apply(int op, cuzk_fr *want, const cuzk_fr *a, const cuzk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (op) {
        case CUZK_GPU_FR_ADD: cuzk_fr_add(&want[i], &a[i], &b[i]); break;
        case CUZK_GPU_FR_SUB: cuzk_fr_sub(&want[i], &a[i], &b[i]); break;
        case CUZK_GPU_FR_MUL: cuzk_fr_mul(&want[i], &a[i], &b[i]); break;
        case CUZK_GPU_FR_SQR: cuzk_fr_sqr(&want[i], &a[i]); break;
        default: cuzk_fr_neg(&want[i], &a[i]); break;
        }
    }
}

/* r = a + b (add) or a - b (sub) on six limbs, the carry or borrow out dropped. */
static void limbs6_add(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], int sub) {
    unsigned c = 0;
    for (int i = 0; i < 6; i++) {
        const uint64_t x = a[i], y = b[i];
        r[i] = sub ? x - y - c : x + y + c;
        c = sub ? (x < y || (x == y && c)) : (r[i] < x || (r[i] == x && c));
    }
}

/* l = 2^(lo + len) - 2^lo: a run of len ones from bit lo (lo + len <= 384). */
static void limbs6_run(uint64_t l[6], unsigned lo, unsigned len) {
    memset(l, 0, 6 * sizeof *l);
    for (unsigned b = lo; b < lo + len; b++) l[b / 64] |= 1ull << (b % 64);
}

/* out[(*n)++] = l, or only the count when out is NULL. */
static void put_fp(cuzk_fp *out, size_t *n, const uint64_t l[6]) {
    if (out) memcpy(out[*n].l, l, sizeof out[*n].l);
    (*n)++;
}

size_t test_fp_specials(cuzk_fp *out) {
    static const uint64_t p[6] = CUZK_FP_MODULUS;
    static const unsigned runs[] = {7, 31, 32, 33, 63, 64, 65, 127, 191, 255, 300};
    size_t n = 0;
    uint64_t v[6], w[6];
    const uint64_t one[6] = {1, 0, 0, 0, 0, 0};
    cuzk_fp edges[TEST_FP_NEDGES];
    test_fp_edges(edges);
    for (int i = 0; i < TEST_FP_NEDGES; i++) put_fp(out, &n, edges[i].l);
    for (uint64_t k = 3; k <= 1000; k++) put_fp(out, &n, (uint64_t[6]){k, 0, 0, 0, 0, 0});
    for (unsigned k = 0; k <= 380; k++) {
        limbs6_run(v, k, 1);
        put_fp(out, &n, v);
        limbs6_add(w, v, one, 1);
        put_fp(out, &n, w);
        limbs6_add(w, v, one, 0);
        put_fp(out, &n, w);
        limbs6_add(w, p, v, 1);
        put_fp(out, &n, w);
    }
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (unsigned lo = 0; lo + runs[r] <= 380; lo += 17) {
            limbs6_run(v, lo, runs[r]);
            put_fp(out, &n, v);
        }
    uint64_t top[6];
    limbs6_run(top, 380, 1);
    for (uint64_t d = 1; d <= 64; d++) {
        const uint64_t dl[6] = {d, 0, 0, 0, 0, 0};
        limbs6_add(w, top, dl, 0);
        put_fp(out, &n, w);
        limbs6_add(w, top, dl, 1);
        put_fp(out, &n, w);
    }
    for (unsigned k = 0; k < 380; k++) {
        limbs6_run(v, k, 1);
        limbs6_add(w, top, v, 1);
        put_fp(out, &n, w);
    }
    return n;
}

size_t test_fp2_specials(cuzk_fp2 *out) {
    const size_t ns = test_fp_specials(NULL);
    size_t n = 2 * ns + TEST_FP_NEDGES * TEST_FP_NEDGES;
    if (!out) return n;
    cuzk_fp *s = test_xmalloc(ns * sizeof *s), edges[TEST_FP_NEDGES];
    test_fp_specials(s);
    test_fp_edges(edges);
    n = 0;
    for (size_t i = 0; i < ns; i++) {
        out[n].c0 = s[i], memset(&out[n].c1, 0, sizeof out[n].c1), n++;
        memset(&out[n].c0, 0, sizeof out[n].c0), out[n].c1 = s[i], n++;
    }
    for (int i = 0; i < TEST_FP_NEDGES; i++)
        for (int j = 0; j < TEST_FP_NEDGES; j++) out[n].c0 = edges[i], out[n].c1 = edges[j], n++;
    free(s);
    return n;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int test_hex_to_bytes(uint8_t *out, size_t n, const char *hex, size_t hexlen) {
    if (hexlen != 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void test_bytes_to_hex(char *out, const uint8_t *in, size_t n) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The same construction for both groups, written once. */
#define RANDOM_POINTS(G, FT, FF, B)                                                                \
    void test_##G##_random(cuzk_##G##_affine *out) {                                               \
        cuzk_##G##_affine g;                                                                       \
        cuzk_##G j;                                                                                \
        cuzk_scalar k;                                                                             \
        cuzk_##G##_generator(&g);                                                                  \
        cuzk_##G##_from_affine(&j, &g);                                                            \
        test_scalar_random(&k);                                                                    \
        cuzk_##G##_mul_var(&j, &j, k.l, 4);                                                        \
        cuzk_##G##_to_affine(out, &j);                                                             \
    }                                                                                              \
    void test_##G##_nonsub(cuzk_##G##_affine *p) {                                                 \
        static const FT b = B;                                                                     \
        for (;;) {                                                                                 \
            FT rhs;                                                                                \
            FF##_random(&p->x, &test_rng);                                                         \
            FF##_sqr(&rhs, &p->x);                                                                 \
            FF##_mul(&rhs, &rhs, &p->x);                                                           \
            FF##_add(&rhs, &rhs, &b);                                                              \
            if (FF##_sqrt(&p->y, &rhs) == CUZK_OK && !cuzk_##G##_affine_is_in_subgroup(p)) return; \
        }                                                                                          \
    }

RANDOM_POINTS(g1, cuzk_fp, cuzk_fp, CUZK_G1_B)
RANDOM_POINTS(g2, cuzk_fp2, cuzk_fp2, CUZK_G2_B)

/* n points P_0 + i Q, a chunk of POINTS_CHUNK per pool item: each chunk starts from
 * P_0 + (its first index) Q, so the points do not depend on how the chunks are shared out.
 * G is the group's type prefix, S its short name. */
#define POINTS_CHUNK 16384
#define POINT_CHAIN(G, S)                                                                          \
    struct S##_chain {                                                                             \
        G##_affine *out;                                                                           \
        size_t n;                                                                                  \
        G p0, q;                                                                                   \
    };                                                                                             \
    static void S##_chain_item(void *vctx, size_t item, unsigned worker) {                         \
        (void)worker;                                                                              \
        const struct S##_chain *c = vctx;                                                          \
        const size_t lo = item * POINTS_CHUNK;                                                     \
        const size_t m = c->n - lo < POINTS_CHUNK ? c->n - lo : POINTS_CHUNK;                      \
        G *jac = test_xmalloc(m * sizeof *jac), p;                                                 \
        const uint64_t first[1] = {lo};                                                            \
        G##_mul_var(&p, &c->q, first, 1);                                                          \
        G##_add(&p, &p, &c->p0);                                                                   \
        for (size_t i = 0; i < m; i++) {                                                           \
            jac[i] = p;                                                                            \
            G##_add(&p, &p, &c->q);                                                                \
        }                                                                                          \
        G##_batch_to_affine(c->out + lo, jac, m);                                                  \
        free(jac);                                                                                 \
    }                                                                                              \
    void test_##S##_points(struct cuzk_pool *pool, G##_affine *out, size_t n) {                    \
        struct S##_chain c = {.out = out, .n = n};                                                 \
        G##_affine gen;                                                                            \
        cuzk_scalar k;                                                                             \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&c.p0, &gen);                                                              \
        test_scalar_random(&k);                                                                    \
        G##_mul_var(&c.q, &c.p0, k.l, 4);                                                          \
        test_scalar_random(&k);                                                                    \
        G##_mul_var(&c.p0, &c.p0, k.l, 4);                                                         \
        cuzk_pool_run(pool, (n + POINTS_CHUNK - 1) / POINTS_CHUNK, S##_chain_item, &c);            \
    }

POINT_CHAIN(cuzk_g1, g1)
POINT_CHAIN(cuzk_g2, g2)
