#include "test_util.h"

#include <stdlib.h>
#include <string.h>

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
