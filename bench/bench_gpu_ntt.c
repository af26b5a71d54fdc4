/* GPU NTT benchmark: every transform kind (forward, inverse, coset forward, coset inverse,
 * inverse to the coset; natural order in and out; shift 7, the bellperson h-polynomial's) at
 * 2^20, 2^22, 2^24, 2^26 and 2^27.
 *
 * For each size and kind it prints one CSV line
 *   ntt,<kind>,<log_n>,<kernel_ms_min>,<kernel_ms_median>,<total_ms_median>
 * where kernel_ms is the device time of the transform's kernels with the data already in device
 * memory (CUDA events; min and median of the samples after a warm-up) and total_ms the
 * wall-clock time of the whole call from host memory (copy in, transform, copy out; pageable
 * host memory). Lines starting with '#' are comments (device, kernel shape, checks, and after
 * each CSV line the median device time of each of the transform's passes, top pass first).
 *
 * Every size is checked before it is timed: the GPU roundtrips inverse(forward(a)) and
 * coset_inverse(coset_forward(a)) must give a back, and at 2^16 and 2^20 the forward and the
 * coset inverse must equal the CPU NTT's result (test_gpu_ntt checks every kind). A wrong result
 * prints the first differing index and exits 1.
 *
 *   bench_gpu_ntt [--quick] [--log K] [--shape LOG_BLOCK,LOG_COLS,THREADS]
 *     --quick  2^16 and 2^20 only, fewer samples
 *     --log K  this size only (1 <= K <= 28)
 *     --shape  a kernel shape (cuzk_gpu_ntt_tune; LOG_COLS -1: the last pass's columns chosen
 *              per size, as by default) instead of the library's default
 * Exit status: 0, 1 for a wrong result or a failure, 77 without a GPU (skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_gpu_ntt"
#include "bench_util.h"
#include "cuzk/error.h"
#include "ff/fr_vec.h"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"
#include "ntt/ntt.h"

static struct cuzk_pool *pool;

/* 1 if equal; otherwise prints the first difference. */
static int same(const char *what, int k, const cuzk_fr *got, const cuzk_fr *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (cuzk_fr_eq(&got[i], &want[i])) continue;
        fprintf(stderr,
                "bench_gpu_ntt: WRONG RESULT %s at 2^%d: first difference at index %zu:\n"
                "  gpu 0x%016llx%016llx%016llx%016llx\n  ref 0x%016llx%016llx%016llx%016llx\n",
                what, k, i, (unsigned long long)got[i].l[3], (unsigned long long)got[i].l[2],
                (unsigned long long)got[i].l[1], (unsigned long long)got[i].l[0],
                (unsigned long long)want[i].l[3], (unsigned long long)want[i].l[2],
                (unsigned long long)want[i].l[1], (unsigned long long)want[i].l[0]);
        return 0;
    }
    return 1;
}

static int fail(int err, const char *what, int k) {
    fprintf(stderr, "bench_gpu_ntt: %s at 2^%d failed: %s (%s)\n", what, k, cuzk_strerror(err),
            cuzk_gpu_ntt_last_error());
    return 0;
}

#define TRY(call, what)                                                                            \
    do {                                                                                           \
        int e_ = (call);                                                                           \
        if (e_ != CUZK_OK) return fail(e_, what, k);                                               \
    } while (0)

/* The checks of one size (see the header comment). Returns 1 if all pass. */
static int check_size(struct cuzk_gpu_ntt_ctx *ctx, int k, const cuzk_fr *in, cuzk_fr *x,
                      const cuzk_fr *shift) {
    const size_t n = (size_t)1 << k;
    TRY(cuzk_gpu_ntt_load(ctx, in, n), "load");
    TRY(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_FORWARD, NULL, NULL), "forward");
    TRY(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_INVERSE, NULL, NULL), "inverse");
    TRY(cuzk_gpu_ntt_store(ctx, x, n), "store");
    if (!same("roundtrip inverse(forward(a))", k, x, in, n)) return 0;
    TRY(cuzk_gpu_ntt_load(ctx, in, n), "load");
    TRY(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_COSET_FORWARD, shift, NULL), "coset_forward");
    TRY(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_COSET_INVERSE, shift, NULL), "coset_inverse");
    TRY(cuzk_gpu_ntt_store(ctx, x, n), "store");
    if (!same("roundtrip coset_inverse(coset_forward(a))", k, x, in, n)) return 0;
    if (k != 16 && k != 20) return 1;

    struct cuzk_ntt_domain *d;
    if (cuzk_ntt_domain_create(pool, k, &d) != CUZK_OK) return fail(CUZK_ENOMEM, "domain", k);
    cuzk_fr *ref = bench_xmalloc(n * sizeof *ref);
    int ok = 1;
    for (int kind = CUZK_GPU_NTT_FORWARD; ok && kind <= CUZK_GPU_NTT_COSET_INVERSE; kind += 3) {
        memcpy(ref, in, n * sizeof *ref);
        memcpy(x, in, n * sizeof *x);
        if (kind == CUZK_GPU_NTT_FORWARD)
            cuzk_ntt_forward(pool, d, ref);
        else
            cuzk_ntt_coset_inverse(pool, d, ref, shift);
        int err = cuzk_gpu_ntt(ctx, x, k, (enum cuzk_gpu_ntt_kind)kind, shift);
        ok = err == CUZK_OK ? same(kind ? "coset_inverse vs cpu" : "forward vs cpu", k, x, ref, n)
                            : fail(err, "transform", k);
    }
    free(ref);
    cuzk_ntt_domain_free(d);
    return ok;
}

/* Times one kind at one size and prints its CSV line. Returns 1 on success. */
static int measure(struct cuzk_gpu_ntt_ctx *ctx, int k, int kind, const cuzk_fr *in, cuzk_fr *x,
                   const cuzk_fr *shift, int samples) {
    static const char *name[] = {"forward", "inverse", "coset_forward", "coset_inverse",
                                 "inverse_to_coset"};
    const size_t n = (size_t)1 << k;
    double kt[64], tt[64], pt[CUZK_GPU_NTT_MAX_LOG + 1][64];
    float ms = 0, pms[CUZK_GPU_NTT_MAX_LOG + 1];
    int np = 0;
    /* kernels alone: the data stays in device memory; each run transforms the previous
     * result, which is as random as the input */
    TRY(cuzk_gpu_ntt_load(ctx, in, n), "load");
    TRY(cuzk_gpu_ntt_run(ctx, k, (enum cuzk_gpu_ntt_kind)kind, shift, &ms), "warm-up");
    for (int s = 0; s < samples; s++) {
        TRY(cuzk_gpu_ntt_run(ctx, k, (enum cuzk_gpu_ntt_kind)kind, shift, &ms), "timed run");
        kt[s] = ms;
        np = cuzk_gpu_ntt_pass_ms(ctx, pms, CUZK_GPU_NTT_MAX_LOG + 1);
        for (int p = 0; p < np; p++) pt[p][s] = pms[p];
    }
    /* the whole call from host memory */
    const int tsamples = samples < 5 ? samples : 5;
    memcpy(x, in, n * sizeof *x);
    for (int s = 0; s < tsamples; s++) {
        double t0 = bench_now_ms();
        TRY(cuzk_gpu_ntt(ctx, x, k, (enum cuzk_gpu_ntt_kind)kind, shift), "timed call");
        tt[s] = bench_now_ms() - t0;
    }
    bench_sort(kt, (size_t)samples);
    bench_sort(tt, (size_t)tsamples);
    printf("ntt,%s,%d,%.3f,%.3f,%.3f\n", name[kind], k, kt[0], kt[samples / 2], tt[tsamples / 2]);
    printf("# %s 2^%d, median ms of each pass, top first:", name[kind], k);
    for (int p = 0; p < np; p++) {
        bench_sort(pt[p], (size_t)samples);
        printf(" %.3f", pt[p][samples / 2]);
    }
    printf("\n");
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv) {
    int quick = 0, only = 0, lb = 0, lc = 0, th = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--log") && i + 1 < argc) {
            only = atoi(argv[++i]);
            if (only < 1 || only > CUZK_GPU_NTT_MAX_LOG) only = -1;
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d,%d", &lb, &lc, &th) != 3) only = -1;
        } else {
            only = -1;
        }
        if (only < 0) {
            fprintf(stderr, "usage: %s [--quick] [--log K] [--shape LOG_BLOCK,LOG_COLS,THREADS]\n",
                    argv[0]);
            return 2;
        }
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;

    static const int full[] = {20, 22, 24, 26, 27}, short_[] = {16, 20};
    const int *sizes = quick ? short_ : full;
    int nsizes = quick ? 2 : 5, samples = quick ? 5 : 9;
    if (only) {
        sizes = &only;
        nsizes = 1;
    }
    int max = 0;
    for (int s = 0; s < nsizes; s++) max = sizes[s] > max ? sizes[s] : max;

    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "bench-gpu-ntt") != CUZK_OK) {
        fprintf(stderr, "bench_gpu_ntt: cannot create the thread pool\n");
        return 1;
    }
    struct cuzk_gpu_ntt_ctx *ctx;
    int err = cuzk_gpu_ntt_ctx_create(0, max, &ctx);
    if (err != CUZK_OK) {
        fprintf(stderr, "bench_gpu_ntt: context for 2^%d: %s (%s)\n", max, cuzk_strerror(err),
                cuzk_gpu_ntt_last_error());
        return 1;
    }
    if (lb) {
        if (cuzk_gpu_ntt_tune(ctx, lb, lc, th) != CUZK_OK) {
            fprintf(stderr, "bench_gpu_ntt: bad kernel shape %d,%d,%d\n", lb, lc, th);
            return 2;
        }
        printf("# kernel shape: log_block %d, log_cols %d, threads %d\n", lb, lc, th);
    } else {
        printf("# kernel shape: the library's default\n");
    }
    printf("# %d samples of the kernels, %d of the whole call\n", samples,
           samples < 5 ? samples : 5);
    printf("op,kind,log_n,kernel_ms_min,kernel_ms_median,total_ms_median\n");

    cuzk_fr shift;
    cuzk_fr_generator(&shift);
    int failed = 0;
    for (int s = 0; s < nsizes && !failed; s++) {
        const int k = sizes[s];
        const size_t n = (size_t)1 << k;
        cuzk_fr *in = bench_xmalloc(n * sizeof *in), *x = bench_xmalloc(n * sizeof *x);
        cuzk_fr_vec_random(pool, in, n, 0x6e74742d62656e63ull + (uint64_t)k);
        if (!check_size(ctx, k, in, x, &shift)) {
            failed = 1;
        } else {
            printf("# 2^%d: roundtrips%s ok\n", k,
                   k == 16 || k == 20 ? " and the CPU comparison" : "");
            for (int kind = CUZK_GPU_NTT_FORWARD; kind <= CUZK_GPU_NTT_INVERSE_TO_COSET; kind++)
                failed |= !measure(ctx, k, kind, in, x, &shift, samples);
        }
        free(in);
        free(x);
    }
    cuzk_gpu_ntt_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    return failed;
}
