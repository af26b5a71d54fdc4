#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ff/fr.h"

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
        cuzk_fr s;                                                                                 \
        uint64_t k[4];                                                                             \
        cuzk_##G##_generator(&g);                                                                  \
        cuzk_##G##_from_affine(&j, &g);                                                            \
        cuzk_fr_random(&s, &test_rng);                                                             \
        cuzk_fr_to_canonical(k, &s);                                                               \
        cuzk_##G##_mul_var(&j, &j, k, 4);                                                          \
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
