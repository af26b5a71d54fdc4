/* Shared by the benchmark programs: a monotonic clock and sorting of samples (min = t[0],
 * median = t[n / 2] after bench_sort), the options and lists they parse, an allocation that
 * cannot fail, the start of a GPU benchmark (skipped without a GPU, else a line naming the
 * device), and the deterministic bases the GPU benchmarks tile. Header-only, since every
 * bench_*.c is its own program; each defines BENCH_NAME (its name, the prefix of its messages)
 * before including it. */
#ifndef CUZK_BENCH_UTIL_H
#define CUZK_BENCH_UTIL_H

#ifndef BENCH_NAME
#error "define BENCH_NAME (the program's name) before including bench_util.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"
#include "util/pool.h"

static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline double bench_now_ms(void) { return bench_now_ns() * 1e-6; }

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void bench_sort(double *t, size_t n) { qsort(t, n, sizeof *t, bench_cmp_double); }

/* malloc that exits (status 1, after saying how much) instead of returning NULL: a benchmark
 * without the memory for its inputs has nothing to measure. A size of 0 allocates 1 byte. */
static inline void *bench_xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, BENCH_NAME ": out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* Parses the options every benchmark with a short mode and CSV output takes. Returns 0, or 2
 * (the usage exit code) after printing the usage for anything else. */
static inline int bench_args(int argc, char **argv, int *quick, int *csv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            *quick = 1;
        } else if (!strcmp(argv[i], "--csv")) {
            *csv = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--csv]\n", argv[0]);
            return 2;
        }
    }
    return 0;
}

/* Parses a comma-separated list of base-2 logarithms ("20,22,24"), each in [1, max_log], into
 * out[0..cap). Returns how many, or -1 for an empty or malformed list, a value out of range or
 * more than cap values. */
static inline int bench_parse_logs(const char *s, int *out, int cap, int max_log) {
    int n = 0;
    while (*s) {
        char *end;
        const long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > max_log || n == cap || (*end && *end != ',')) return -1;
        out[n++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return n ? n : -1;
}

/* The start of a GPU benchmark: returns 77 (the skipped exit code) after saying so when the
 * machine has no GPU, else 0 after the comment line that names device 0. */
static inline int bench_gpu_start(void) {
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) {
        printf(BENCH_NAME ": no GPU: skipped\n");
        return 77;
    }
    struct cuzk_gpu_info info;
    if (cuzk_gpu_describe(0, &info) == CUZK_OK)
        printf("# device 0: %s, sm_%d%d, %d SMs, %d MHz, %.1f GiB\n", info.name, info.cc_major,
               info.cc_minor, info.multiprocessors, info.clock_khz / 1000,
               (double)info.total_mem / (1 << 30));
    return 0;
}

/* n bases P_0 + i Q with fixed P_0 = [a]G and Q = [b]G, so every run measures the same points:
 * one addition each, made on pool (NULL: the calling thread) in chunks of BENCH_POINTS_CHUNK,
 * each starting from P_0 + (its first index) Q. G is the group's type prefix, S its short name:
 * bench_g1_points, bench_g2_points. */
#define BENCH_POINTS_CHUNK 4096
#define BENCH_POINTS(G, S)                                                                         \
    struct bench_##S##_chain {                                                                     \
        G##_affine *out;                                                                           \
        size_t n;                                                                                  \
        G p0, q;                                                                                   \
    };                                                                                             \
    static inline void bench_##S##_chain_item(void *vctx, size_t item, unsigned worker) {          \
        (void)worker;                                                                              \
        const struct bench_##S##_chain *c = vctx;                                                  \
        const size_t lo = item * BENCH_POINTS_CHUNK;                                               \
        const size_t m = c->n - lo < BENCH_POINTS_CHUNK ? c->n - lo : BENCH_POINTS_CHUNK;          \
        G *jac = bench_xmalloc(m * sizeof *jac), p;                                                \
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
    static inline void bench_##S##_points(struct cuzk_pool *pool, G##_affine *out, size_t n) {     \
        static const uint64_t a[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 7, 0};         \
        static const uint64_t b[4] = {0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull, 9, 0};         \
        struct bench_##S##_chain c = {.out = out, .n = n};                                         \
        G##_affine gen;                                                                            \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&c.p0, &gen);                                                              \
        G##_mul_var(&c.q, &c.p0, b, 4);                                                            \
        G##_mul_var(&c.p0, &c.p0, a, 4);                                                           \
        cuzk_pool_run(pool, (n + BENCH_POINTS_CHUNK - 1) / BENCH_POINTS_CHUNK,                     \
                      bench_##S##_chain_item, &c);                                                 \
    }
BENCH_POINTS(cuzk_g1, g1)
BENCH_POINTS(cuzk_g2, g2)

#endif
