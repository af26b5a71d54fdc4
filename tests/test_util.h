/* A small test harness: seeded randomness (printed, and reproducible with CUZK_TEST_SEED),
 * checks that count and report failures without stopping, random inputs (scalars, points),
 * hex helpers for vectors, and the few lines every test would otherwise write again (an
 * allocation that cannot fail, a clock, the skipped exit, the device line of a GPU test).
 * Linked into every test (tests/CMakeLists.txt builds each as name.c + test_util.c). */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "msm/msm.h"
#include "util/pool.h"
#include "util/rand.h"

extern struct cuzk_rng test_rng;
extern long test_checks, test_failures;

/* Seeds test_rng from CUZK_TEST_SEED or the kernel and prints the seed. */
void test_init(const char *name);
/* Prints "<name>: N passed, M failed" and returns the process exit code. */
int test_finish(void);
/* Prints "<name>: <why>: skipped" and returns the exit code of a skipped test: 77 (CTest's
 * SKIP_RETURN_CODE for the GPU tests), or 1 when a check made before the skip failed. */
int test_skip(const char *why);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            if (test_failures <= 50)                                                               \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                                          \
    } while (0)

/* malloc that exits the test (status 1, after saying how much) instead of returning NULL: a test
 * without the memory for its inputs has nothing to check. A size of 0 allocates 1 byte. */
void *test_xmalloc(size_t bytes);
/* Milliseconds on the monotonic clock. */
double test_now_ms(void);

/* Scalars (canonical integers, cuzk_scalar): uniform below r from test_rng, and the small v. */
void test_scalar_random(cuzk_scalar *k);
void test_scalar_set(cuzk_scalar *k, uint64_t v);

/* The edge values of Fp as raw Montgomery limbs, all below p: 0, 1, 2, p - 1, p - 2, (p - 1) / 2
 * and one above, values at limb and carry boundaries, p less its low limb, R mod p (one). */
#define TEST_FP_NEDGES 15
void test_fp_edges(cuzk_fp out[TEST_FP_NEDGES]);
/* The edge values of Fr as raw Montgomery limbs, all below r: 0, 1, 2, r - 1, r - 2, (r - 1) / 2
 * and one above, values at limb and carry boundaries (32-bit ones too: the GPU code works on
 * 32-bit words), r less its low limb, the largest value below r's top limb, R mod r (one). */
#define TEST_FR_NEDGES 16
void test_fr_edges(cuzk_fr out[TEST_FR_NEDGES]);
/* The operands of the GPU Fr checks: a[i], b[i] for i < TEST_FR_NEDGES^2 are every pair of the
 * edge values, the next nrand pairs random (test_rng). */
void test_fr_pairs(cuzk_fr *a, cuzk_fr *b, size_t nrand);
/* a as "0x" and 64 hex digits, most significant first (the raw limbs). */
void test_fr_hex(char out[67], const cuzk_fr *a);
/* want[i] = op(a[i], b[i]) by src/ff, op an enum cuzk_gpu_fr_op (add, sub, mul, sqr, neg). */
void test_fr_apply(int op, cuzk_fr *want, const cuzk_fr *a, const cuzk_fr *b, size_t n);
/* The inputs that make an inversion by the binary GCD work hardest or take rare paths, as raw
 * Montgomery limbs below p: the edge values, the integers 3..1000, each 2^k (k <= 380) with
 * 2^k - 1, 2^k + 1 and p - 2^k, runs of ones (2^j - 1) 2^i of several lengths, 2^380 + d for
 * |d| <= 64 and 2^380 - 2^k (2^380 and p - 2^k need the most steps). Written to out unless it
 * is NULL; returns their number. */
size_t test_fp_specials(cuzk_fp *out);
/* The same for Fp2: (s, 0) and (0, s) for every special s, and every pair of edge values. */
size_t test_fp2_specials(cuzk_fp2 *out);

/* Random points from test_rng: in the r-order subgroup (a random multiple of the generator), and
 * on the curve but outside the subgroup (a random x; the cofactor makes membership negligible). */
void test_g1_random(cuzk_g1_affine *out);
void test_g2_random(cuzk_g2_affine *out);
void test_g1_nonsub(cuzk_g1_affine *out);
void test_g2_nonsub(cuzk_g2_affine *out);
/* n points P_0 + i Q for random P_0 and Q of the subgroup: pairwise distinct, and cheap (one
 * addition each, made in chunks on pool; NULL: the calling thread). The result depends on
 * test_rng only, not on the pool. */
void test_g1_points(struct cuzk_pool *pool, cuzk_g1_affine *out, size_t n);
void test_g2_points(struct cuzk_pool *pool, cuzk_g2_affine *out, size_t n);

/* Prints "<name>: device D: <model>, sm_XY, N SMs, G GiB" when device D can be described. */
void test_gpu_banner(int dev);

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
