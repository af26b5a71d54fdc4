/* The issue rates of the arithmetic pipes a field multiplication can use, measured on a CUDA
 * GPU (src/gpu/cuda/pipes.cu): an input to the design of the device's field arithmetic (which
 * instructions a product is made of), not part of proving.
 *
 * Each kind is one kernel over 8 blocks of 256 threads per multiprocessor in which every thread
 * runs CUZK_GPU_PIPE_CHAINS independent dependency chains of one instruction for `iters` steps
 * (two kinds interleaved for the mixed ones):
 *   CUZK_GPU_PIPE_IMAD_LO    a <- lo32(a k) + b          (mad.lo.u32)
 *   CUZK_GPU_PIPE_IMAD_HI    a <- hi32(a k) + b          (mad.hi.u32)
 *   CUZK_GPU_PIPE_IMAD_WIDE  w <- lo32(w) k + w           (mad.wide.u32: a whole 32 x 32 product)
 *   CUZK_GPU_PIPE_DFMA       d <- d c + e                 (fma.rn.f64)
 *   CUZK_GPU_PIPE_IADD       a <- a + b                   (add.u32)
 *   CUZK_GPU_PIPE_IMAD_DFMA  IMAD_LO and DFMA interleaved (do the pipes run side by side?)
 *   CUZK_GPU_PIPE_IMAD_IADD  IMAD_LO and IADD interleaved
 * (b is the next chain's value; k, c and e are constants.) Three kinds measure whole Fp
 * Montgomery products (src/gpu/cuda/ff_fp.cuh, ff_fp64.cuh) instead, over 2 blocks of 256
 * threads per multiprocessor (at most 128 registers a thread, as the G1 MSM's summing loop), each
 * thread running 2 chains x <- x y for iters / 64 steps (at least 1) through one call a step:
 *   CUZK_GPU_PIPE_FP_MUL      the integer product (mul2)
 *   CUZK_GPU_PIPE_FP_MUL64    the FP64 product (mul2_64)
 *   CUZK_GPU_PIPE_FP_MUL_MIX  one of each (mul2_mix)
 * and count one operation per product. The rate is the instructions of the
 * kernel per clock (at the device's maximum clock) per multiprocessor, counted per thread ("lane
 * operations"), so a pipe that takes a warp's instruction in two clocks on each of the four
 * partitions reads 64.
 *
 * Promise: cuzk_gpu_pipe_thread computes on the host, with the same formulas (the twin), the
 * final value a thread of the kernel computes; cuzk_gpu_pipe_run returns the values of a sample
 * of threads for the caller to compare with it, so a benchmark that reports a rate also shows
 * that the kernel did the work it counted.
 *
 * Errors: CUZK_OK, CUZK_EINVAL (a kind or sample outside the range, a NULL pointer),
 * CUZK_ENODEV (no such device), CUZK_EGPU (a CUDA failure). Thread-safe: each call makes and
 * frees its own buffers and events on `device`. A build without CUDA has no GPU module. */
#ifndef CUZK_GPU_GPU_PIPES_H
#define CUZK_GPU_GPU_PIPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_gpu_pipe_kind {
    CUZK_GPU_PIPE_IMAD_LO,
    CUZK_GPU_PIPE_IMAD_HI,
    CUZK_GPU_PIPE_IMAD_WIDE,
    CUZK_GPU_PIPE_DFMA,
    CUZK_GPU_PIPE_IADD,
    CUZK_GPU_PIPE_IMAD_DFMA,
    CUZK_GPU_PIPE_IMAD_IADD,
    CUZK_GPU_PIPE_FP_MUL,
    CUZK_GPU_PIPE_FP_MUL64,
    CUZK_GPU_PIPE_FP_MUL_MIX,
    CUZK_GPU_PIPE_KINDS
};

#define CUZK_GPU_PIPE_CHAINS 8

/* The kind's short name ("imad.lo", ...), or NULL for a kind out of range. */
const char *cuzk_gpu_pipe_name(int kind);

/* What cuzk_gpu_pipe_run measured. */
struct cuzk_gpu_pipe_result {
    double ms;                  /* the kernel's time (CUDA events) */
    double lane_ops_per_clk_sm; /* instructions x 32 lanes / (seconds x max clock x SMs) */
    unsigned blocks, threads;   /* the launch */
};

/* Runs kind's kernel on device for iters steps (1 .. 2^20) and, for the first `sample` threads
 * of the launch (sample <= 256), writes each thread's final value to values[0, sample). */
int cuzk_gpu_pipe_run(int device, int kind, unsigned iters, struct cuzk_gpu_pipe_result *out,
                      uint64_t *values, unsigned sample);

/* The final value of thread t (its index in the launch) of kind's kernel after iters steps,
 * computed on the host. */
uint64_t cuzk_gpu_pipe_thread(int kind, unsigned t, unsigned iters);

#ifdef __cplusplus
}
#endif

#endif
