/* The MSM cases every MSM implementation runs, written once: test_msm checks the CPU MSM on
 * each against the naive reference, test_gpu_msm the GPU MSM against the CPU's (and both
 * against the answer where the case knows it in closed form).
 *
 * A case says how n bases are made from n distinct random points (identities mixed in or
 * alone, one point or a few repeated, negated runs, P and -P pairs that cancel) and how the n
 * scalars are drawn (uniform, mostly zero and one, digit-edge values, all zero, all one,
 * all r - 1, one scalar for every point); each test runs every case at msm_case_sizes and at
 * the larger sizes its reference can afford. Making a case also says what is known of its
 * answer: the identity, the plain sum of the bases or its negation, or the MSM of a prefix
 * (the pairs after it cancel).
 *
 * Header-only (a test is built as name.c + test_util.c); scalars come from test_rng, so a case
 * is reproducible with CUZK_TEST_SEED. */
#ifndef CUZK_TESTS_MSM_CASES_H
#define CUZK_TESTS_MSM_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ff/ff_constants.h"
#include "msm/msm.h"
#include "test_util.h"

/* How a case draws its scalars. */
enum msm_scalars {
    MSM_RANDOM,    /* uniform below r */
    MSM_ZERO_ONE,  /* 40% zero, 40% one, the rest uniform */
    MSM_BITS,      /* 90% zero and one (a Filecoin witness), the rest uniform */
    MSM_SOMEZERO,  /* 30% zero, the rest uniform */
    MSM_EDGE,      /* digit-edge values (msm_scalar_edge) */
    MSM_ZERO,      /* all zero */
    MSM_ONE,       /* all one */
    MSM_MAX,       /* all r - 1 */
    MSM_SMALL,     /* 1 to 5: many equal bucket sums */
    MSM_SAME,      /* one uniform scalar for every point: one bucket per window */
    MSM_SAME_EDGE, /* one digit-edge value for every point */
};

static const char *const msm_scalars_name[] = {
    [MSM_RANDOM] = "random",
    [MSM_ZERO_ONE] = "40% zero, 40% one",
    [MSM_BITS] = "90% zero and one",
    [MSM_SOMEZERO] = "30% zero",
    [MSM_EDGE] = "edge",
    [MSM_ZERO] = "all zero",
    [MSM_ONE] = "all one",
    [MSM_MAX] = "all r - 1",
    [MSM_SMALL] = "1 to 5",
    [MSM_SAME] = "one scalar",
    [MSM_SAME_EDGE] = "one edge scalar",
};

/* A digit-edge value (drawn from test_rng): r - 1; r, r + 1 and 2^255 - 1 (not reduced, but
 * below 2^255 as every MSM input must be); 2^254, alternating bits both ways, a small value, a
 * 64-bit value, zero, one, or uniform. */
static inline void msm_scalar_edge(cuzk_scalar *k) {
    static const uint64_t r[4] = CUZK_FR_MODULUS;
    uint64_t *l = k->l;
    switch (cuzk_rng_u64(&test_rng) % 14) {
    case 0: memcpy(l, r, sizeof r), l[0]--; break;
    case 1: memcpy(l, r, sizeof r); break;
    case 2: memcpy(l, r, sizeof r), l[0]++; break; /* r[0] is odd and below 2^64 - 1 */
    case 3: memset(l, 0xff, 4 * sizeof *l), l[3] >>= 1; break;
    case 4: test_scalar_set(k, 0), l[3] = UINT64_C(1) << 62; break;
    case 5: memset(l, 0xaa, 4 * sizeof *l), l[3] >>= 1; break; /* ...1010 */
    case 6: memset(l, 0x55, 4 * sizeof *l); break;             /* ...0101 */
    case 7: test_scalar_set(k, 2 + cuzk_rng_u64(&test_rng) % 1000); break;
    case 8: test_scalar_set(k, cuzk_rng_u64(&test_rng)); break;
    case 9: test_scalar_set(k, 0); break;
    case 10: test_scalar_set(k, 1); break;
    default: test_scalar_random(k); break;
    }
}

/* k[0..n) drawn as sh says. */
static inline void msm_scalars_make(cuzk_scalar *k, size_t n, enum msm_scalars sh) {
    static const uint64_t r[4] = CUZK_FR_MODULUS;
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = cuzk_rng_u64(&test_rng) % 10;
        switch (sh) {
        case MSM_RANDOM: test_scalar_random(&k[i]); break;
        case MSM_ZERO_ONE:
            u < 8 ? test_scalar_set(&k[i], u >= 4) : test_scalar_random(&k[i]);
            break;
        case MSM_BITS: u < 9 ? test_scalar_set(&k[i], u & 1) : test_scalar_random(&k[i]); break;
        case MSM_SOMEZERO: u < 3 ? test_scalar_set(&k[i], 0) : test_scalar_random(&k[i]); break;
        case MSM_EDGE: msm_scalar_edge(&k[i]); break;
        case MSM_ZERO: test_scalar_set(&k[i], 0); break;
        case MSM_ONE: test_scalar_set(&k[i], 1); break;
        case MSM_MAX: memcpy(k[i].l, r, sizeof r), k[i].l[0]--; break;
        case MSM_SMALL: test_scalar_set(&k[i], 1 + u % 5); break;
        case MSM_SAME:
            if (i == 0) test_scalar_random(&k[0]);
            k[i] = k[0];
            break;
        case MSM_SAME_EDGE:
            if (i == 0) msm_scalar_edge(&k[0]);
            k[i] = k[0];
            break;
        }
    }
}

/* How a case makes its bases from n distinct random points src[0..n). */
enum msm_bases {
    MSM_DISTINCT,    /* src itself */
    MSM_SOME_INF,    /* src with every third point (0, 3, 6, ...) the identity */
    MSM_ALL_INF,     /* only identities */
    MSM_ONE_POINT,   /* src[0] n times: doublings in the buckets and in their reduction */
    MSM_FEW_POINTS,  /* src[0..4) repeated */
    MSM_TILED,       /* src[0..16) repeated, every third run of 16 negated, every 13th point the
                      * identity */
    MSM_PAIRS,       /* P, -P pairs with equal scalars: all cancel (an odd last point is the
                      * identity) */
    MSM_PAIRS_AFTER, /* the first n/8*2 points and scalars as the case says, then P, -P pairs
                      * with digit-edge scalars: the answer is the prefix's MSM */
};

static const char *const msm_bases_name[] = {
    [MSM_DISTINCT] = "distinct bases",
    [MSM_SOME_INF] = "identities mixed in",
    [MSM_ALL_INF] = "only identities",
    [MSM_ONE_POINT] = "one base repeated",
    [MSM_FEW_POINTS] = "four bases repeated",
    [MSM_TILED] = "repeated, negated and identity bases",
    [MSM_PAIRS] = "P and -P pairs",
    [MSM_PAIRS_AFTER] = "P and -P pairs after distinct bases",
};

struct msm_case {
    enum msm_bases bases;
    enum msm_scalars scalars;
};

/* Every case runs in test_msm and in test_gpu_msm; "known" marks the answers known in closed
 * form. One case a line: */
/* clang-format off */
static const struct msm_case msm_cases[] = {
    {MSM_DISTINCT, MSM_RANDOM},
    {MSM_DISTINCT, MSM_ZERO_ONE},
    {MSM_DISTINCT, MSM_BITS},
    {MSM_DISTINCT, MSM_SOMEZERO},
    {MSM_DISTINCT, MSM_EDGE},
    {MSM_DISTINCT, MSM_ZERO},       /* known: the identity */
    {MSM_DISTINCT, MSM_ONE},        /* known: the plain sum */
    {MSM_DISTINCT, MSM_MAX},        /* known: minus the plain sum */
    {MSM_DISTINCT, MSM_SAME},
    {MSM_SOME_INF, MSM_ZERO_ONE},
    {MSM_SOME_INF, MSM_EDGE},
    {MSM_SOME_INF, MSM_ONE},        /* known: the plain sum */
    {MSM_ALL_INF, MSM_EDGE},        /* known: the identity */
    {MSM_ONE_POINT, MSM_RANDOM},
    {MSM_ONE_POINT, MSM_EDGE},
    {MSM_ONE_POINT, MSM_SAME_EDGE},
    {MSM_FEW_POINTS, MSM_SMALL},
    {MSM_TILED, MSM_RANDOM},
    {MSM_TILED, MSM_SAME},
    {MSM_PAIRS, MSM_EDGE},          /* known: the identity */
    {MSM_PAIRS, MSM_RANDOM},        /* known: the identity */
    {MSM_PAIRS_AFTER, MSM_RANDOM},  /* the prefix's MSM */
    {MSM_PAIRS_AFTER, MSM_EDGE},    /* the prefix's MSM */
};
/* clang-format on */
#define MSM_NCASES (sizeof msm_cases / sizeof msm_cases[0])

/* "<bases>, <scalars> scalars": the case's name in messages. */
static inline void msm_case_name(char *out, size_t cap, const struct msm_case *c) {
    snprintf(out, cap, "%s, %s scalars", msm_bases_name[c->bases], msm_scalars_name[c->scalars]);
}

/* The sizes every implementation runs every case at; each test adds larger ones. */
static const size_t msm_case_sizes[] = {0, 1, 2, 3, 5, 7, 31, 64, 100};
#define MSM_NCASE_SIZES (sizeof msm_case_sizes / sizeof msm_case_sizes[0])

/* What making a case says of its answer. */
struct msm_answer {
    int known;     /* 1: *want holds the answer */
    size_t prefix; /* else the answer is the MSM of the first prefix (base, scalar) pairs (the
                    * rest cancel); prefix = n when nothing simpler is known */
};

/* G##_case_make(c, n, src, pts, k, want): makes case c at size n into pts[0..n) and k[0..n)
 * from the n distinct points src. G is the group's type prefix (cuzk_g1, cuzk_g2). */
#define MSM_CASE_MAKE(G)                                                                           \
    static inline struct msm_answer G##_case_make(const struct msm_case *c, size_t n,              \
                                                  const G##_affine *src, G##_affine *pts,          \
                                                  cuzk_scalar *k, G *want) {                       \
        struct msm_answer a = {0, n};                                                              \
        msm_scalars_make(k, n, c->scalars);                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            switch (c->bases) {                                                                    \
            case MSM_ONE_POINT: pts[i] = src[0]; break;                                            \
            case MSM_FEW_POINTS: pts[i] = src[i % 4]; break;                                       \
            case MSM_TILED:                                                                        \
                pts[i] = src[i % 16];                                                              \
                if ((i / 16) % 3 == 1) G##_affine_neg(&pts[i], &pts[i]);                           \
                if (i % 13 == 12) G##_affine_set_inf(&pts[i]);                                     \
                break;                                                                             \
            default: pts[i] = src[i]; break;                                                       \
            }                                                                                      \
            if (c->bases == MSM_ALL_INF || (c->bases == MSM_SOME_INF && i % 3 == 0))               \
                G##_affine_set_inf(&pts[i]);                                                       \
        }                                                                                          \
        if (c->bases == MSM_PAIRS || c->bases == MSM_PAIRS_AFTER) {                                \
            a.prefix = c->bases == MSM_PAIRS ? 0 : n / 8 * 2;                                      \
            size_t i = a.prefix;                                                                   \
            for (; i + 1 < n; i += 2) {                                                            \
                if (c->bases == MSM_PAIRS_AFTER) msm_scalar_edge(&k[i]);                           \
                G##_affine_neg(&pts[i + 1], &pts[i]);                                              \
                k[i + 1] = k[i];                                                                   \
            }                                                                                      \
            if (i < n) G##_affine_set_inf(&pts[i]);                                                \
        }                                                                                          \
        if (a.prefix == 0 || c->bases == MSM_ALL_INF || c->scalars == MSM_ZERO) {                  \
            G##_set_inf(want);                                                                     \
            a.known = 1;                                                                           \
        } else if (a.prefix == n && (c->scalars == MSM_ONE || c->scalars == MSM_MAX)) {            \
            G##_set_inf(want);                                                                     \
            for (size_t j = 0; j < n; j++) G##_add_affine(want, want, &pts[j]);                    \
            if (c->scalars == MSM_MAX) G##_neg(want, want);                                        \
            a.known = 1;                                                                           \
        }                                                                                          \
        return a;                                                                                  \
    }
MSM_CASE_MAKE(cuzk_g1)
MSM_CASE_MAKE(cuzk_g2)

#endif
