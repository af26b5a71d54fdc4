/* Shared by the benchmark programs: a monotonic clock and sorting of samples (min = t[0],
 * median = t[n / 2] after bench_sort). Header-only, since every bench_*.c is its own program. */
#ifndef CUZK_BENCH_UTIL_H
#define CUZK_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#endif
