/* A small test harness: seeded randomness (printed, and reproducible with CUZK_TEST_SEED),
 * checks that count and report failures without stopping, and hex helpers for vectors. */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "util/rand.h"

extern struct cuzk_rng test_rng;
extern long test_checks, test_failures;

/* Seeds test_rng from CUZK_TEST_SEED or the kernel and prints the seed. */
void test_init(const char *name);
/* Prints "<name>: N passed, M failed" and returns the process exit code. */
int test_finish(void);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            if (test_failures <= 50)                                                               \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                                          \
    } while (0)

/* Random points from test_rng: in the r-order subgroup (a random multiple of the generator), and
 * on the curve but outside the subgroup (a random x; the cofactor makes membership negligible). */
void test_g1_random(cuzk_g1_affine *out);
void test_g2_random(cuzk_g2_affine *out);
void test_g1_nonsub(cuzk_g1_affine *out);
void test_g2_nonsub(cuzk_g2_affine *out);

/* Parses exactly 2*n hex digits into n bytes. Returns 0 on success. */
int test_hex_to_bytes(uint8_t *out, size_t n, const char *hex, size_t hexlen);
void test_bytes_to_hex(char *out, const uint8_t *in, size_t n);

/* SANITIZED: 1 in a sanitizer build (ASan, TSan: 10-20 times slower; tests shrink their largest
 * cases there), else 0. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
