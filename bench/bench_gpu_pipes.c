/* GPU pipe rates (src/gpu/gpu_pipes.h): how many 32-bit multiply-adds (low and high halves,
 * and whole 32 x 32-bit products), double-precision FMAs and 32-bit additions a multiprocessor
 * issues per clock, alone and two kinds interleaved. These set what a field product built from
 * each kind of instruction can cost (docs/gpu.md, "The pipes").
 *
 * For each kind it prints one CSV line
 *   pipe,<kind>,<iters>,<ms_min>,<ms_median>,<lane_ops_per_clk_sm_median>
 * (lane operations: instructions x 32 threads; at the device's maximum clock). The kinds fp.mul,
 * fp.mul64 and fp.mul+mul64 run whole Fp products (the integer one, the FP64 one, one of each a
 * call) for iters / 64 steps and count one operation per product. Every run is
 * checked: the final values of the launch's first 64 threads must equal the host's twin
 * (cuzk_gpu_pipe_thread), else the program says which and exits 1.
 *
 *   bench_gpu_pipes [--quick] [--iters N] [--reps R]
 *     --quick    256 steps, 2 repetitions (the CI smoke test)
 *     --iters N  steps per chain (default 16384: a few ms per kernel)
 *     --reps R   timed repetitions per kind (default 5)
 * Exit status: 0, 1 for a wrong value or a failure, 2 for bad usage, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_gpu_pipes"
#include "bench_util.h"
#include "gpu/gpu_pipes.h"

#define SAMPLE 64

static int usage(void) {
    fprintf(stderr, "usage: bench_gpu_pipes [--quick] [--iters N] [--reps R]\n");
    return 2;
}

int main(int argc, char **argv) {
    unsigned iters = 16384, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            iters = 256;
            reps = 2;
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            const long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > (1L << 20)) return usage();
            iters = (unsigned)v;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            const long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > 1000) return usage();
            reps = (unsigned)v;
        } else {
            return usage();
        }
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;
    printf("op,kind,iters,ms_min,ms_median,lane_ops_per_clk_sm_median\n");
    double *ms = bench_xmalloc(reps * sizeof *ms), *rate = bench_xmalloc(reps * sizeof *rate);
    int status = 0;
    for (int kind = 0; kind < CUZK_GPU_PIPE_KINDS && !status; kind++) {
        uint64_t got[SAMPLE];
        for (unsigned r = 0; r < reps && !status; r++) {
            struct cuzk_gpu_pipe_result res;
            const int rc = cuzk_gpu_pipe_run(0, kind, iters, &res, got, SAMPLE);
            if (rc != CUZK_OK) {
                fprintf(stderr, BENCH_NAME ": %s: %s\n", cuzk_gpu_pipe_name(kind),
                        cuzk_strerror(rc));
                status = 1;
                break;
            }
            for (unsigned t = 0; t < SAMPLE; t++)
                if (got[t] != cuzk_gpu_pipe_thread(kind, t, iters)) {
                    fprintf(stderr, BENCH_NAME ": %s: thread %u's value differs from the host's\n",
                            cuzk_gpu_pipe_name(kind), t);
                    status = 1;
                    break;
                }
            ms[r] = res.ms;
            rate[r] = res.lane_ops_per_clk_sm;
        }
        if (status) break;
        bench_sort(ms, reps);
        bench_sort(rate, reps);
        printf("pipe,%s,%u,%.4f,%.4f,%.4g\n", cuzk_gpu_pipe_name(kind), iters, ms[0], ms[reps / 2],
               rate[reps / 2]);
    }
    free(ms);
    free(rate);
    return status;
}
