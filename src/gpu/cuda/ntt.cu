// The GPU NTT over Fr (contract: src/gpu/gpu_ntt.h): the kernels, the context and the
// transforms. The bodies the kernels share with the host twin (the table entries, a pass's
// phases, a transform's passes) are in ntt_impl.cuh, the twin in ntt_twin.cu.
//
// DESIGN: the forward transform is a radix-2 decimation-in-frequency NTT (natural order in,
// bit-reversed order out) organised in passes; each pass reads and writes the vector once:
//   - a pass does g consecutive stages, on global bits [lo, lo + g) of the index: the stages
//     mix elements whose indices differ only in those bits, 2^g rows at a stride of 2^lo. A
//     thread block loads a tile of 2^g rows x 2^logc columns (2^log_block elements) into shared
//     memory, runs the g stages there in steps and writes the tile back. A step is two stages
//     (radix 4: each thread holds 4 elements of a column in registers and does their 2 + 2
//     butterflies between two barriers), or one (an odd stage on top), or, at the bottom of the
//     last pass, the three lowest stages of the transform (global half-sizes 4, 2, 1: radix 8),
//     whose twiddles are the same for every thread, so that 7 of their 12 butterflies have
//     twiddle 1 and skip their multiplication (pass_step);
//   - the passes go from the top bits down; in every pass but the last the tile's columns are
//     adjacent indices (so each row is one run of 2^logc elements in memory) and the tile is
//     written back where it came from;
//   - the last pass takes the lowest bits: its rows are contiguous, and its columns are 2^logc
//     segments whose bit-reversed indices are adjacent, so that the bit-reversal permutation
//     that turns the output into natural order is fused into its write, again in runs of
//     2^logc elements. It writes to another vector (the permutation moves elements between
//     tiles), so the passes ping-pong: data -> scratch, scratch in place, scratch -> data. A
//     transform that fits one block is a single pass in place (the block holds the whole
//     vector in shared memory before it writes anything);
//   - with blocks of 2^10 elements the last pass has 4 columns (8 stages, 128-byte runs), or 2
//     (9 stages) where that makes fewer passes (pass_cols): 2^25..2^27 take three passes
//     instead of four (2^17 and 2^18 two instead of three), one read and write of the vector
//     fewer; the other passes then have 2 columns too (64-byte runs), which cost less than the
//     pass they save.
// A pass's work is written once, as the phases of a block (pass_block: load, each step of
// stages, store) over its tile, for one thread of the block at a time; the kernel runs the
// phases with a barrier between them, and the host twin (cuzk_gpu_twin_ntt, gpu_twin.h) runs
// each phase for every thread in turn over a host tile, noting races between the threads of a
// phase and the 16-byte bank groups of each quarter warp's tile accesses (the tile's swizzle,
// pass_block::slot, makes them conflict-free in every phase of the default shape). The table
// kernels are thin wrappers around per-entry bodies the twin runs too.
// Twiddles come from one table of 2^max_log elements built at context creation: entry m + j
// is omega_(2m)^j (omega_(2m) = cuzk_fr_root_of_unity(log2 2m)), so the stage of half-size m
// reads entries [m, 2m), adjacent columns read adjacent entries, and every size shares the
// table; a radix-4 step reads 3 entries for its 4 butterflies. The inverse is the forward
// transform followed by a_j <- a_(n-j) / n (as on the CPU), which the last pass applies while
// it writes; the coset shift's powers s^i (or s^-i / n, or s^i / n) are products of two small
// tables, s^(4096 a) and s^b, applied in the first pass's load (coset forward) or the last
// pass's write (coset inverse, and the inverse to the coset: two multiplications per element,
// the power and the product, instead of the inverse's one for 1/n and the coset forward's two,
// when a forward transform follows in place of the coset forward). Everything runs on the context's
// one stream, which orders the passes; the host waits only where the contract says it returns after
// the work.
//
// Speed, on the H200 (data in device memory, forward natural -> natural, kernels alone;
// docs/perf-log/2026-12.md): 2^24 3.75 ms, 2^26 16.1, 2^27 33.6 (2026-12-03, three passes of 9
// stages: 16.5 and 34.4 in four); the multiplication whose steps fold their division into the
// multiply-adds (ff_fr.cuh) took 2^24 to 3.75 and 2^27 to 34.3; before it 2^20 0.251 ms,
// 2^22 1.019, 2^24 4.165, 2^26 18.24, 2^27 38.00 (2026-12-02); the coset inverse about 13 % more.
// The radix-2 kernel that preceded this one took 0.273, 1.069, 4.361, 18.95 and 39.10 ms. The
// kernel is bound by the multiplier pipe, not by memory (a pass over 2^24 elements moves 1 GiB,
// 0.25 ms): on sm_90 an IMAD occupies it 2 cycles per warp and a wide one (IMAD.WIDE, IMAD.HI) 4,
// an ALU instruction its own pipe 2 cycles, and ptxas moves plain adds and moves between the two to
// balance them. Per butterfly (SASS of the step loops, ptxas for sm_90):
//                   instructions  wide IMAD  other IMAD  ALU   multiplier-pipe cycles/warp
//   radix 2 (old)       340          120         21       185        522
//   radix 4             338          112         18.8     200        485.5
//   radix 8, bottom     170          46.7        10.3     110        207 (5 of 12 multiply)
// The multiplication's m r_1 product is made on the ALU (r_1 = 2^32 - 1: ff_fr.cuh), 8 wide
// products fewer. Per element at 2^24 that is 5411 multiplier cycles per warp against 6264 (-14
// %), 3821 instructions against 4080; at 2^27 (passes of 7, 6, 6 and 8 stages) 6142 against
// 7047 (-13 %): the measured gain (-4.5 % and -2.8 %) is a third of that. Registers: 128 (the
// kernel is compiled for 2 blocks of 256 threads: the default 128-thread blocks run 4 per
// multiprocessor), no spills in the step loops; unbounded (154 registers) it ran 5 % slower at
// 2^24, and every other block shape measured was slower than 2^10 elements as 4 columns of 128
// threads.
// (The instruction counts above are those of the multiplication before 2026-12-03; its steps
// now add one word where they added nine, 64 additions fewer per multiplication, which took
// 9-10 % off the transforms of 2^24 and 2^27.) Blocks of 2^11 elements (2^27 in three passes
// instead of four) measured slower, before (38.9 ms) and after (35.7 against 34.4) that change.
#include "gpu/cuda/ntt_impl.cuh"

#define CUZK_CUDA_MODULE "ntt.cu"
#include "gpu/cuda/cuda_errors.cuh"

// ---- errors ---------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, CU_LAUNCHED: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_ntt_last_error(void) { return g_last_error; }

// ---- kernels: tables ------------------------------------------------------------------------

__global__ void pow_table_kernel(fr_mem *out, fr_t base, uint64_t mult, size_t count, fr_t scale) {
    const size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < count) pow_table_at(out, base, mult, scale, j);
}

__global__ void twiddle_top_kernel(fr_mem *top, const fr_mem *hi, const fr_mem *lo, size_t half) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < half) twiddle_top_at(top, hi, lo, i);
}

__global__ void twiddle_lower_kernel(fr_mem *tw, size_t half) {
    const size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e < half) twiddle_lower_at(tw, half, e);
}

__global__ void fr_eval_kernel(int op, const fr_mem *a, const fr_mem *b, fr_mem *out, size_t n) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) fr_eval_at(op, a, b, out, i);
}

// ---- kernel: one pass -----------------------------------------------------------------------

// The register budget: 2 blocks of NTT_MAX_THREADS, 128 registers (the radix-8 bottom step
// holds 8 elements; with no minimum of resident blocks ptxas took 158 registers, 3 blocks of
// 128 threads per multiprocessor instead of 4).
__global__ void __launch_bounds__(NTT_MAX_THREADS, NTT_MIN_BLOCKS)
    ntt_pass_kernel(const pass_args a) {
    extern __shared__ uint4 sm[];
    const pass_block b(a, blockIdx.x);
    const dev_tile t = {sm, sm + b.elems};
    b.load(t, threadIdx.x, blockDim.x);
    __syncthreads();
    const int nsteps = pass_nsteps(a.g, a.last);
    for (int k = 0; k < nsteps; k++) {
        b.step(t, k, threadIdx.x, blockDim.x);
        __syncthreads();
    }
    b.store(t, threadIdx.x, blockDim.x);
}

// ---- the context ----------------------------------------------------------------------------

struct cuzk_gpu_ntt_ctx {
    int device;
    int max_log;
    cudaStream_t stream;
    cudaEvent_t ev_start, ev_stop;
    // ev_pass[p] before pass p, ev_pass[np] after the last: recorded by timed runs, whose
    // per-pass times (pass_ms[0 .. timed_passes)) cuzk_gpu_ntt_pass_ms reports
    cudaEvent_t ev_pass[CUZK_GPU_NTT_MAX_LOG + 2];
    float pass_ms[CUZK_GPU_NTT_MAX_LOG + 1];
    int timed_passes;
    fr_mem *tw;      // 2^max_log: entry m + j = omega_(2m)^j (lent: the owner's room)
    unsigned flags;  // CUZK_GPU_NTT_LENT_TWIDDLES, CUZK_GPU_NTT_LENT_SCRATCH
    int tw_valid;    // tw holds the table (a lent room may have been written over since)
    fr_mem *buf;     // 2^max_log: the context's vector (none with a lent scratch)
    fr_mem *scratch; // 2^max_log: the passes' other vector (lent: the owner's room)
    fr_mem *s_lo;    // SHIFT_LO_N entries
    fr_mem *s_hi;    // max(1, 2^max_log >> SHIFT_LO_LOG) entries
    size_t s_hi_len;
    // what s_lo / s_hi hold: the powers of shift_key for size 2^shift_log_n, as shift_mode says
    // (see shift_params); shift_valid = 0 when they hold nothing usable
    int shift_valid, shift_mode, shift_log_n;
    cuzk_fr shift_key;
    int log_block, log_cols, threads; // the kernel shape; log_cols -1: per size (pass_cols)
};

extern "C" size_t cuzk_gpu_ntt_ctx_vram2(int max_log_n, unsigned flags) {
    if (max_log_n < 1 || max_log_n > CUZK_GPU_NTT_MAX_LOG) return 0;
    const size_t n = static_cast<size_t>(1) << max_log_n;
    const size_t s_hi = n >> SHIFT_LO_LOG ? n >> SHIFT_LO_LOG : 1;
    const size_t vecs = ((flags & CUZK_GPU_NTT_LENT_TWIDDLES) ? 0 : 1) +
                        ((flags & CUZK_GPU_NTT_LENT_SCRATCH) ? 0 : 2);
    return (vecs * n + SHIFT_LO_N + s_hi) * sizeof(fr_mem);
}

extern "C" size_t cuzk_gpu_ntt_ctx_vram(int max_log_n) {
    return cuzk_gpu_ntt_ctx_vram2(max_log_n, 0);
}

extern "C" void cuzk_gpu_ntt_ctx_free(struct cuzk_gpu_ntt_ctx *ctx) {
    if (!ctx) return;
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    if (!(ctx->flags & CUZK_GPU_NTT_LENT_TWIDDLES)) (void)cudaFree(ctx->tw);
    (void)cudaFree(ctx->buf);
    if (!(ctx->flags & CUZK_GPU_NTT_LENT_SCRATCH)) (void)cudaFree(ctx->scratch);
    (void)cudaFree(ctx->s_lo);
    (void)cudaFree(ctx->s_hi);
    if (ctx->ev_start) (void)cudaEventDestroy(ctx->ev_start);
    if (ctx->ev_stop) (void)cudaEventDestroy(ctx->ev_stop);
    for (cudaEvent_t e : ctx->ev_pass)
        if (e) (void)cudaEventDestroy(e);
    if (ctx->stream) (void)cudaStreamDestroy(ctx->stream);
    (void)cudaGetLastError();
    std::free(ctx);
}

extern "C" int cuzk_gpu_ntt_ctx_max_log(const struct cuzk_gpu_ntt_ctx *ctx) {
    return ctx ? ctx->max_log : 0;
}

// The device of ctx current on this thread.
static int use_device(const cuzk_gpu_ntt_ctx *ctx) {
    CU_TRY(cudaSetDevice(ctx->device));
    return CUZK_OK;
}

// The twiddle table: omega = root of unity of order 2^max_log; the top level [half, 2 half)
// from two power tables (in the shift buffers, free at this point), the lower ones from it.
static int build_twiddles(cuzk_gpu_ntt_ctx *ctx) {
    const size_t half = static_cast<size_t>(1) << (ctx->max_log - 1);
    cuzk_fr omega, one;
    cuzk_fr_root_of_unity(&omega, ctx->max_log);
    cuzk_fr_set_one(&one);
    const size_t hi_len = (half + SHIFT_LO_N - 1) / SHIFT_LO_N; // <= ctx->s_hi_len
    pow_table_kernel<<<blocks_for(SHIFT_LO_N, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->s_lo, to_dev(omega), 1, SHIFT_LO_N, to_dev(one));
    CU_LAUNCHED(pow_table_kernel);
    pow_table_kernel<<<blocks_for(hi_len, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->s_hi, to_dev(omega), SHIFT_LO_N, hi_len, to_dev(one));
    CU_LAUNCHED(pow_table_kernel);
    twiddle_top_kernel<<<blocks_for(half, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->tw + half, ctx->s_hi, ctx->s_lo, half);
    CU_LAUNCHED(twiddle_top_kernel);
    twiddle_lower_kernel<<<blocks_for(half, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->tw, half);
    CU_LAUNCHED(twiddle_lower_kernel);
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    ctx->shift_valid = 0;
    ctx->tw_valid = 1;
    return CUZK_OK;
}

static int ctx_init(cuzk_gpu_ntt_ctx *ctx) {
    const size_t n = static_cast<size_t>(1) << ctx->max_log;
    CU_TRY(cudaSetDevice(ctx->device));
    CU_TRY(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    CU_TRY(cudaEventCreate(&ctx->ev_start));
    CU_TRY(cudaEventCreate(&ctx->ev_stop));
    for (cudaEvent_t &e : ctx->ev_pass) CU_TRY(cudaEventCreate(&e));
    if (!(ctx->flags & CUZK_GPU_NTT_LENT_TWIDDLES))
        CU_TRY(cudaMalloc(&ctx->tw, n * sizeof(fr_mem)));
    if (!(ctx->flags & CUZK_GPU_NTT_LENT_SCRATCH)) {
        CU_TRY(cudaMalloc(&ctx->buf, n * sizeof(fr_mem)));
        CU_TRY(cudaMalloc(&ctx->scratch, n * sizeof(fr_mem)));
    }
    CU_TRY(cudaMalloc(&ctx->s_lo, SHIFT_LO_N * sizeof(fr_mem)));
    ctx->s_hi_len = n >> SHIFT_LO_LOG ? n >> SHIFT_LO_LOG : 1;
    CU_TRY(cudaMalloc(&ctx->s_hi, ctx->s_hi_len * sizeof(fr_mem)));
    CU_TRY(cudaFuncSetAttribute(ntt_pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(sizeof(fr_mem) << NTT_MAX_LOG_BLOCK)));
    return ctx->tw ? build_twiddles(ctx) : CUZK_OK; // a lent room comes later
}

extern "C" int cuzk_gpu_ntt_ctx_create2(int device, int max_log_n, unsigned flags,
                                        struct cuzk_gpu_ntt_ctx **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (max_log_n < 1 || max_log_n > CUZK_GPU_NTT_MAX_LOG)
        return set_error(CUZK_EINVAL, "max_log_n out of range");
    if (flags & ~(CUZK_GPU_NTT_LENT_TWIDDLES | CUZK_GPU_NTT_LENT_SCRATCH))
        return set_error(CUZK_EINVAL, "unknown flags");
    auto *ctx = static_cast<cuzk_gpu_ntt_ctx *>(std::calloc(1, sizeof(cuzk_gpu_ntt_ctx)));
    if (!ctx) return CUZK_ENOMEM;
    ctx->device = device;
    ctx->flags = flags;
    ctx->max_log = max_log_n;
    ctx->log_block = NTT_LOG_BLOCK;
    ctx->log_cols = -1; // per size (pass_cols)
    ctx->threads = NTT_THREADS;
    err = ctx_init(ctx);
    if (err != CUZK_OK) {
        cuzk_gpu_ntt_ctx_free(ctx);
        return err;
    }
    *out = ctx;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_ctx_create(int device, int max_log_n, struct cuzk_gpu_ntt_ctx **out) {
    return cuzk_gpu_ntt_ctx_create2(device, max_log_n, 0, out);
}

extern "C" int cuzk_gpu_ntt_ctx_lend_twiddles(struct cuzk_gpu_ntt_ctx *ctx, void *room) {
    if (!ctx || !(ctx->flags & CUZK_GPU_NTT_LENT_TWIDDLES) || !room ||
        (reinterpret_cast<uintptr_t>(room) & 15))
        return set_error(CUZK_EINVAL, "no lent twiddles, or a NULL or unaligned room");
    ctx->tw = static_cast<fr_mem *>(room);
    ctx->tw_valid = 0;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_ctx_lend_scratch(struct cuzk_gpu_ntt_ctx *ctx, void *room) {
    if (!ctx || !(ctx->flags & CUZK_GPU_NTT_LENT_SCRATCH) || !room ||
        (reinterpret_cast<uintptr_t>(room) & 15))
        return set_error(CUZK_EINVAL, "no lent scratch, or a NULL or unaligned room");
    ctx->scratch = static_cast<fr_mem *>(room);
    return CUZK_OK;
}

extern "C" void cuzk_gpu_ntt_ctx_twiddles_lost(struct cuzk_gpu_ntt_ctx *ctx) {
    if (ctx && (ctx->flags & CUZK_GPU_NTT_LENT_TWIDDLES)) ctx->tw_valid = 0;
}

extern "C" int cuzk_gpu_ntt_tune(struct cuzk_gpu_ntt_ctx *ctx, int log_block, int log_cols,
                                 int threads) {
    if (!ctx || !shape_ok(log_block, log_cols, threads))
        return set_error(CUZK_EINVAL, "bad kernel shape");
    ctx->log_block = log_block;
    ctx->log_cols = log_cols;
    ctx->threads = threads;
    return CUZK_OK;
}

extern "C" void *cuzk_gpu_ntt_ctx_buffer(struct cuzk_gpu_ntt_ctx *ctx) {
    return ctx ? ctx->buf : nullptr;
}

// ---- transforms -----------------------------------------------------------------------------

static int check_args(const cuzk_gpu_ntt_ctx *ctx, int log_n, int kind, const cuzk_fr *shift) {
    if (!ctx) return set_error(CUZK_EINVAL, "ctx is NULL");
    if (log_n < 1 || log_n > ctx->max_log) return set_error(CUZK_EINVAL, "log_n out of range");
    if (kind < CUZK_GPU_NTT_FORWARD || kind > CUZK_GPU_NTT_INVERSE_TO_COSET)
        return set_error(CUZK_EINVAL, "unknown transform kind");
    if (kind_shifted(kind)) {
        if (!shift) return set_error(CUZK_EINVAL, "coset transform without a shift");
        if (cuzk_fr_is_zero(shift)) return set_error(CUZK_EINVAL, "coset shift is zero");
    }
    return CUZK_OK;
}

// Fills the coset tables for shift, kind and size, unless they already hold them.
static int prepare_shift(cuzk_gpu_ntt_ctx *ctx, int log_n, const cuzk_fr *shift, int kind) {
    if (ctx->shift_valid && ctx->shift_mode == kind && ctx->shift_log_n == log_n &&
        cuzk_fr_eq(&ctx->shift_key, shift))
        return CUZK_OK;
    const size_t n = static_cast<size_t>(1) << log_n;
    fr_t t, c;
    shift_params(log_n, shift, kind, &t, &c);
    const size_t hi_len = (n + SHIFT_LO_N - 1) / SHIFT_LO_N;
    ctx->shift_valid = 0;
    pow_table_kernel<<<blocks_for(SHIFT_LO_N, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->s_lo, t, 1, SHIFT_LO_N, cuzk_cuda::fr_one());
    CU_LAUNCHED(pow_table_kernel);
    pow_table_kernel<<<blocks_for(hi_len, TABLE_THREADS), TABLE_THREADS, 0, ctx->stream>>>(
        ctx->s_hi, t, SHIFT_LO_N, hi_len, c);
    CU_LAUNCHED(pow_table_kernel);
    ctx->shift_valid = 1;
    ctx->shift_mode = kind;
    ctx->shift_log_n = log_n;
    ctx->shift_key = *shift;
    return CUZK_OK;
}

// Queues the transform of data[0 .. 2^log_n) on the context's stream (arguments checked);
// with `timed`, records the pass events around its passes and returns their number in *np_out.
static int enqueue(cuzk_gpu_ntt_ctx *ctx, fr_mem *data, int log_n, int kind, const cuzk_fr *shift,
                   bool timed = false, int *np_out = nullptr) {
    if (!ctx->tw_valid) { // a lent room: the table first (it also uses the shift tables)
        if (!ctx->tw) return set_error(CUZK_EINVAL, "no room lent for the twiddle table");
        int err = build_twiddles(ctx);
        if (err != CUZK_OK) return err;
    }
    if (kind_shifted(kind)) {
        int err = prepare_shift(ctx, log_n, shift, kind);
        if (err != CUZK_OK) return err;
    }
    if (!ctx->scratch) return set_error(CUZK_EINVAL, "no room lent for the scratch vector");
    if (data == ctx->scratch || data == ctx->tw)
        return set_error(CUZK_EINVAL, "the vector is the context's scratch or twiddle room");
    pass_launch l[CUZK_GPU_NTT_MAX_LOG + 1];
    const int np = plan_transform(data, ctx->scratch, ctx->tw, ctx->s_lo, ctx->s_hi, log_n, kind,
                                  ctx->log_block, ctx->log_cols, ctx->threads, l);
    if (timed) CU_TRY(cudaEventRecord(ctx->ev_pass[0], ctx->stream));
    for (int p = 0; p < np; p++) {
        ntt_pass_kernel<<<l[p].blocks, l[p].threads, l[p].smem, ctx->stream>>>(l[p].a);
        CU_LAUNCHED(ntt_pass_kernel);
        if (timed) CU_TRY(cudaEventRecord(ctx->ev_pass[p + 1], ctx->stream));
    }
    if (np_out) *np_out = np;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_device(struct cuzk_gpu_ntt_ctx *ctx, void *dev_data, int log_n,
                                   enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift) {
    int err = check_args(ctx, log_n, kind, shift);
    if (err != CUZK_OK) return err;
    if (!dev_data || (reinterpret_cast<uintptr_t>(dev_data) & 15))
        return set_error(CUZK_EINVAL, "device vector is NULL or not 16-byte aligned");
    if ((err = use_device(ctx)) != CUZK_OK) return err;
    return enqueue(ctx, static_cast<fr_mem *>(dev_data), log_n, kind, shift);
}

extern "C" int cuzk_gpu_ntt_sync(struct cuzk_gpu_ntt_ctx *ctx) {
    if (!ctx) return set_error(CUZK_EINVAL, "ctx is NULL");
    int err = use_device(ctx);
    if (err != CUZK_OK) return err;
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_load(struct cuzk_gpu_ntt_ctx *ctx, const cuzk_fr *host, size_t n) {
    if (!ctx || (!host && n) || n > (static_cast<size_t>(1) << ctx->max_log))
        return set_error(CUZK_EINVAL, "bad load arguments");
    if (!ctx->buf) return set_error(CUZK_EINVAL, "the context has no buffer (lent scratch)");
    int err = use_device(ctx);
    if (err != CUZK_OK) return err;
    CU_TRY(
        cudaMemcpyAsync(ctx->buf, host, n * sizeof(cuzk_fr), cudaMemcpyHostToDevice, ctx->stream));
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_store(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host, size_t n) {
    if (!ctx || (!host && n) || n > (static_cast<size_t>(1) << ctx->max_log))
        return set_error(CUZK_EINVAL, "bad store arguments");
    if (!ctx->buf) return set_error(CUZK_EINVAL, "the context has no buffer (lent scratch)");
    int err = use_device(ctx);
    if (err != CUZK_OK) return err;
    CU_TRY(
        cudaMemcpyAsync(host, ctx->buf, n * sizeof(cuzk_fr), cudaMemcpyDeviceToHost, ctx->stream));
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_run(struct cuzk_gpu_ntt_ctx *ctx, int log_n,
                                enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift,
                                float *kernel_ms) {
    int err = check_args(ctx, log_n, kind, shift);
    if (err != CUZK_OK) return err;
    if (!ctx->buf) return set_error(CUZK_EINVAL, "the context has no buffer (lent scratch)");
    if ((err = use_device(ctx)) != CUZK_OK) return err;
    ctx->timed_passes = 0;
    int np = 0;
    if (kernel_ms) CU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    if ((err = enqueue(ctx, ctx->buf, log_n, kind, shift, kernel_ms != nullptr, &np)) != CUZK_OK)
        return err;
    if (kernel_ms) CU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    if (kernel_ms) {
        CU_TRY(cudaEventElapsedTime(kernel_ms, ctx->ev_start, ctx->ev_stop));
        for (int p = 0; p < np; p++)
            CU_TRY(cudaEventElapsedTime(&ctx->pass_ms[p], ctx->ev_pass[p], ctx->ev_pass[p + 1]));
        ctx->timed_passes = np;
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_ntt_pass_ms(const struct cuzk_gpu_ntt_ctx *ctx, float *ms, int cap) {
    if (!ctx) return 0;
    for (int p = 0; p < ctx->timed_passes && p < cap; p++) ms[p] = ctx->pass_ms[p];
    return ctx->timed_passes;
}

extern "C" int cuzk_gpu_ntt(struct cuzk_gpu_ntt_ctx *ctx, cuzk_fr *host_data, int log_n,
                            enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift) {
    int err = check_args(ctx, log_n, kind, shift);
    if (err != CUZK_OK) return err;
    if (!host_data) return set_error(CUZK_EINVAL, "host_data is NULL");
    const size_t n = static_cast<size_t>(1) << log_n;
    if ((err = cuzk_gpu_ntt_load(ctx, host_data, n)) != CUZK_OK) return err;
    if ((err = cuzk_gpu_ntt_run(ctx, log_n, kind, shift, nullptr)) != CUZK_OK) return err;
    return cuzk_gpu_ntt_store(ctx, host_data, n);
}

// ---- the arithmetic check -------------------------------------------------------------------

struct eval_buffers {
    fr_mem *a = nullptr, *b = nullptr, *out = nullptr;
    ~eval_buffers() {
        (void)cudaFree(a);
        (void)cudaFree(b);
        (void)cudaFree(out);
    }
};

extern "C" int cuzk_gpu_fr_eval(int device, enum cuzk_gpu_fr_op op, const cuzk_fr *a,
                                const cuzk_fr *b, cuzk_fr *out, size_t n) {
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (op < CUZK_GPU_FR_ADD || op > CUZK_GPU_FR_NEG || !a || !out ||
        (!b && op != CUZK_GPU_FR_SQR && op != CUZK_GPU_FR_NEG))
        return set_error(CUZK_EINVAL, "bad eval arguments");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(device));
    eval_buffers d;
    const size_t bytes = n * sizeof(fr_mem);
    CU_TRY(cudaMalloc(&d.a, bytes));
    CU_TRY(cudaMalloc(&d.b, bytes));
    CU_TRY(cudaMalloc(&d.out, bytes));
    CU_TRY(cudaMemcpy(d.a, a, bytes, cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(d.b, b ? b : a, bytes, cudaMemcpyHostToDevice));
    fr_eval_kernel<<<blocks_for(n, TABLE_THREADS), TABLE_THREADS>>>(op, d.a, d.b, d.out, n);
    CU_LAUNCHED(fr_eval_kernel);
    CU_TRY(cudaMemcpy(out, d.out, bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}
