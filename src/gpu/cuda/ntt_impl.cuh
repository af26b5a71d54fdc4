// The GPU NTT's bodies (ntt.cu's DESIGN): the table entries, a pass's phases, the passes of a
// transform and their launches, shared by the kernels (ntt.cu) and the host twin that runs the
// same phases thread by thread (ntt_twin.cu). Included by those two files only.
#ifndef CUZK_GPU_CUDA_NTT_IMPL_CUH
#define CUZK_GPU_CUDA_NTT_IMPL_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it

#endif

// The field headers are C without C++ linkage guards; their GCC loop pragmas mean nothing to
// the CUDA front end (diagnostic 1675), which would otherwise warn at every one.
#pragma nv_diag_suppress 1675
extern "C" {
#include "ff/fr.h"
}
#include "gpu/gpu_twin.h" // the twin's contract (it includes the MSM's C headers)
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"

using cuzk_cuda::fr_mem;
using cuzk_cuda::fr_t;

static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the 8 x 32-bit device limbs equal the 4 x 64-bit host limbs on little-endian hosts");

// Tunables (see cuzk_gpu_ntt_tune). Chosen on the H200 at 2^24 and 2^27 (forward, kernels alone,
// docs/perf-log/2026-12.md): blocks of 2^10 elements as 4 columns, 128 threads, compiled for 2
// blocks of 256 threads (128 registers): 4.16 / 38.0 ms; 2^10 x 256 threads 4.49; 2^11 x 4 or 8
// columns x 256 threads 4.42 / 38.9 and 4.41 / 40.3; 2^9 x 128 threads 4.59; 2^12 x 256 threads
// 6.15; with no register bound (154 registers) 4.35 / 40.2 ms. The last pass's columns, 4 or
// 2 by size (pass_cols), measured 2026-12-03: 2^27 33.6 ms against 34.4 with 4 at every size,
// 2^24 3.77 against 3.75 with 2 at every size, 8 columns 3.87 / 34.6.
#define NTT_LOG_BLOCK 10     // elements per block: 2^10 x 32 B = 32 KiB of shared memory
#define NTT_LOG_COLS 2       // last-pass columns: 4 elements = 128-byte runs (see pass_cols)
#define NTT_THREADS 128      // threads per block
#define NTT_MAX_LOG_BLOCK 12 // shared memory opted in at creation: 128 KiB
#define NTT_MAX_THREADS 256  // the register budget the kernel is compiled for
// Resident blocks of NTT_MAX_THREADS the kernel is compiled for (128 registers); a build may
// set it (-D) for comparisons.
#ifndef NTT_MIN_BLOCKS
#define NTT_MIN_BLOCKS 2

#endif
#define SHIFT_LO_LOG 12 // coset powers: s^i = s_hi[i >> 12] * s_lo[i & 4095]
#define SHIFT_LO_N (1u << SHIFT_LO_LOG)
#define TABLE_THREADS 256 // threads per block of the table and elementwise kernels

// ---- small helpers --------------------------------------------------------------------------

static inline fr_t to_dev(const cuzk_fr &x) {
    fr_t r;
    std::memcpy(&r, &x, sizeof r);
    return r;
}

static inline unsigned blocks_for(size_t n, unsigned threads) {
    return static_cast<unsigned>((n + threads - 1) / threads);
}

// ---- table bodies (kernels and host twin) ---------------------------------------------------
// Each body computes one thread's entry; the kernels below run it for their index, the twin
// (cuzk_gpu_twin_ntt) in a loop.

// out[j] = scale * base^(j * mult).
CUZK_HD void pow_table_at(fr_mem *out, const fr_t &base, uint64_t mult, const fr_t &scale,
                          size_t j) {
    cuzk_cuda::fr_store(out + j, cuzk_cuda::fr_mul(cuzk_cuda::fr_pow(base, j * mult), scale));
}

// top[i] = hi[i >> 12] * lo[i & 4095] = omega^i, given hi[a] = omega^(4096 a) and lo[b] = omega^b.
CUZK_HD void twiddle_top_at(fr_mem *top, const fr_mem *hi, const fr_mem *lo, size_t i) {
    cuzk_cuda::fr_store(top + i,
                        cuzk_cuda::fr_mul(cuzk_cuda::fr_load_ro(hi + (i >> SHIFT_LO_LOG)),
                                          cuzk_cuda::fr_load_ro(lo + (i & (SHIFT_LO_N - 1)))));
}

// The lower levels of the table from the top one (entries [half, 2 half) = omega^j with omega
// of order 2 half): entry m + j = omega_(2m)^j = omega^(j half / m); entry 0 is one. Entry e <
// half only reads the top level, which no thread writes.
CUZK_HD void twiddle_lower_at(fr_mem *tw, size_t half, size_t e) {
    if (e == 0) {
        cuzk_cuda::fr_store(tw, cuzk_cuda::fr_one());
        return;
    }
    const int lg = cuzk_cuda::fr_top_bit(e);
    const size_t m = static_cast<size_t>(1) << lg, j = e - m;
    cuzk_cuda::fr_store(tw + e, cuzk_cuda::fr_load(tw + half + j * (half >> lg)));
}

// out[i] = op(a[i], b[i]): the field checks' body, run by fr_eval_kernel and by the host twin
// (cuzk_gpu_twin_fr).
CUZK_HD void fr_eval_at(int op, const fr_mem *a, const fr_mem *b, fr_mem *out, size_t i) {
    fr_t x = cuzk_cuda::fr_load(a + i), y = cuzk_cuda::fr_load(b + i), r;
    switch (op) {
    case CUZK_GPU_FR_ADD: r = cuzk_cuda::fr_add(x, y); break;
    case CUZK_GPU_FR_SUB: r = cuzk_cuda::fr_sub(x, y); break;
    case CUZK_GPU_FR_MUL: r = cuzk_cuda::fr_mul(x, y); break;
    case CUZK_GPU_FR_SQR: r = cuzk_cuda::fr_sqr(x); break;
    default: r = cuzk_cuda::fr_neg(x); break;
    }
    cuzk_cuda::fr_store(out + i, r);
}

// ---- one pass: the phases of a block --------------------------------------------------------

enum out_mode {
    OUT_BITREV = 0,        // a[bitrev(p)] <- x_p: natural order (forward)
    OUT_REVERSE_SCALE = 1, // then a_j <- a_(n-j) * scale (inverse)
    OUT_REVERSE_POWERS = 2 // then a_j <- a_(n-j) * s_hi[j >> 12] * s_lo[j & 4095] (coset
                           // inverse, inverse to the coset)
};

struct pass_args {
    const fr_mem *src;
    fr_mem *dst;
    const fr_mem *tw;   // the twiddle table
    const fr_mem *s_lo; // coset powers (in_powers or OUT_REVERSE_POWERS)
    const fr_mem *s_hi;
    fr_t scale;      // OUT_REVERSE_SCALE
    int log_n;       // k
    int lo, g, logc; // global bits [lo, lo + g); 2^logc columns
    int last;        // the last pass: contiguous rows, columns = segments, permuted write
    int in_powers;   // multiply a_i by s^i on load (the coset forward's first pass)
    int out_mode;    // enum out_mode, last pass only
};

// A block's tile in shared memory: element slot s is two 16-byte words, plane0[s] and
// plane1[s], so that a warp reading adjacent slots reads adjacent 16-byte words.
struct dev_tile {
    uint4 *plane0, *plane1;
    CUZK_HD fr_t get(uint32_t s) const { return cuzk_cuda::fr_from_words(plane0[s], plane1[s]); }
    CUZK_HD void put(uint32_t s, const fr_t &v) const {
        plane0[s] = cuzk_cuda::fr_lo_words(v);
        plane1[s] = cuzk_cuda::fr_hi_words(v);
    }
};

// The stages a barrier encloses: local stages [t0, t0 + s) of the tile's rows, each thread
// holding 2^s elements of a column in registers (a radix-2^s step); trivial: the last pass's
// lowest stages (global half-sizes 4, 2, 1), whose twiddles are the same for every thread.
struct step_shape {
    int t0, s;
    bool trivial;
};

// The steps of a pass of g stages, run top first (k = 0 first). The last pass ends with one
// step of its lowest min(g, 3) stages (global half-sizes 4, 2 and 1): there j = u mod 2^k for
// the element u of a thread's group in stage k, the same for every thread, so 7 of its 12
// butterflies (u = 0: twiddle 1) skip their multiplication. The other stages go by two
// (radix 4: a thread's 2 + 2 butterflies between two barriers), with a single stage on top
// when their number is odd. In every step the groups' rows put the bits that the 8 lanes of a
// quarter warp vary into row bits 0-2, or into the bits 2-4 / 0, 1, 4 / 3-5 that the tile's
// swizzle (pass_block::slot) spreads over the bank groups.
CUZK_HD int pass_nsteps(int g, int last) {
    const int bottom = last ? (g < 3 ? g : 3) : 0;
    return (bottom ? 1 : 0) + (g - bottom + 1) / 2;
}
CUZK_HD step_shape pass_step(int g, int last, int k) {
    const int bottom = last ? (g < 3 ? g : 3) : 0, rest = g - bottom, pairs = (rest + 1) / 2;
    if (k == pairs) return step_shape{0, bottom, true};
    const int i = pairs - 1 - k; // from the bottom of the rest
    return step_shape{bottom + 2 * i, i == pairs - 1 ? rest - 2 * i : 2, false};
}

// x <- x + y, y <- (x - y) w: the decimation-in-frequency butterfly; w = 1 when one (a
// compile-time fact at every call).
CUZK_HD void bfly(fr_t &x, fr_t &y, const fr_t &w, bool one) {
    const fr_t d = cuzk_cuda::fr_sub(x, y);
    x = cuzk_cuda::fr_add(x, y);
    y = one ? d : cuzk_cuda::fr_mul(d, w);
}

// What block `blk` of a pass does, phase by phase. A phase is one thread's share of the work
// between two barriers: load (global memory -> tile), step k (stages in the tile), store (tile
// -> global memory); thread tid of nthreads. The kernel runs the phases with __syncthreads
// between them, the host twin runs each phase for every thread in turn: the code is one.
struct pass_block {
    pass_args a;
    uint32_t rows, cols, elems;
    uint32_t swz_mask; // min(rows, 8) - 1
    int swz_shift;     // 3 - logc when there are fewer than 8 columns: spreads them over the groups
    // tile geometry: element (r, c) has global index base + r * rs + c * cs
    uint64_t base, rs, cs, col0;

    CUZK_HD pass_block(const pass_args &args, uint64_t blk) : a(args) {
        rows = 1u << a.g;
        cols = 1u << a.logc;
        elems = rows << a.logc;
        swz_mask = (rows < 8 ? rows : 8) - 1;
        swz_shift = a.logc < 3 ? 3 - a.logc : 0;
        if (a.last) {
            base = blk << a.g;
            rs = 1;
            cs = static_cast<uint64_t>(1) << (a.log_n - a.logc);
            col0 = 0;
        } else {
            const int lcg = a.lo - a.logc; // column groups per set of rows: 2^lcg
            const uint64_t cg = blk & ((static_cast<uint64_t>(1) << lcg) - 1), hh = blk >> lcg;
            col0 = cg << a.logc;
            base = (hh << (a.lo + a.g)) + col0;
            rs = static_cast<uint64_t>(1) << a.lo;
            cs = 1;
        }
    }

    // The slot of tile element (r, c): column-major (rows adjacent, so the groups of a warp
    // touch adjacent slots), with the low three row bits XORed with a function of the column
    // and of row bits 3-5 (bit 3 -> 1, bit 4 -> 6, bit 5 -> 4) so that 8 lanes of a quarter
    // warp fall in the 8 different 16-byte bank groups in every phase: the elements the
    // global-memory order visits together (all columns of one row, then the next rows: a
    // normal pass's load and store, the last pass's store; adjacent rows: the last pass's
    // load), and the rows of the steps' groups (see pass_step). The XOR stays below
    // min(rows, 8), so the map is a bijection within a column.
    CUZK_HD uint32_t slot(uint32_t r, uint32_t c) const {
        const uint32_t h = r >> 3;
        return ((c << a.g) | r) ^ ((c << swz_shift ^ (h & 5) ^ (h & 2) ^ (h & 2) << 1) & swz_mask);
    }

    // Load: in memory order (rows contiguous in the last pass, columns in the others).
    template <class Tile> CUZK_HD void load(const Tile &t, uint32_t tid, uint32_t nthreads) const {
        for (uint32_t e = tid; e < elems; e += nthreads) {
            uint32_t r, c;
            if (a.last) {
                r = e & (rows - 1);
                c = e >> a.g;
            } else {
                c = e & (cols - 1);
                r = e >> a.logc;
            }
            const uint64_t i = base + r * rs + c * cs;
            fr_t v = cuzk_cuda::fr_load(a.src + i);
            if (a.in_powers) {
                const fr_t p =
                    cuzk_cuda::fr_mul(cuzk_cuda::fr_load_ro(a.s_hi + (i >> SHIFT_LO_LOG)),
                                      cuzk_cuda::fr_load_ro(a.s_lo + (i & (SHIFT_LO_N - 1))));
                v = cuzk_cuda::fr_mul(v, p);
            }
            t.put(slot(r, c), v);
        }
    }

    // Stages [t0, t0 + S), top first: for local stage t, rows r and r + 2^t, global half-size
    // m = 2^(lo + t), twiddle omega_(2m)^j with j = (global index of row r) mod m. Group q
    // holds the 2^S rows r0 + u 2^t0 of one column; groups are numbered column by column with
    // r0 innermost, so the threads of a warp work on nearby rows of one column. Stage t0 + k
    // of the group pairs u and u + 2^k with j = j0 + (u mod 2^k) 2^(lo + t0), j0 the group's
    // own part: its 2^k distinct twiddles are read once each. TRIVIAL (the last pass's bottom
    // step: t0 = lo = 0, no column part) makes j0 = 0 and skips the multiplications by
    // omega^0 = 1.
    template <int S, bool TRIVIAL, class Tile>
    CUZK_HD void stages(const Tile &t, int t0, uint32_t tid, uint32_t nthreads) const {
        constexpr int E = 1 << S;
        const uint32_t groups = elems >> S, low = (1u << t0) - 1;
        for (uint32_t q = tid; q < groups; q += nthreads) {
            const uint32_t c = q >> (a.g - S), rr = q & ((1u << (a.g - S)) - 1);
            const uint32_t r0 = ((rr >> t0) << (t0 + S)) | (rr & low);
            uint32_t sl[E];
            fr_t x[E];
            CUZK_UNROLL
            for (int u = 0; u < E; u++) {
                sl[u] = slot(r0 + (static_cast<uint32_t>(u) << t0), c);
                x[u] = t.get(sl[u]);
            }
            const uint64_t j0 =
                TRIVIAL ? 0 : (static_cast<uint64_t>(r0 & low) << a.lo) + (a.last ? 0 : col0 + c);
            CUZK_UNROLL
            for (int k = S - 1; k >= 0; k--) {
                const fr_mem *tw = a.tw + (static_cast<uint64_t>(1) << (a.lo + t0 + k));
                CUZK_UNROLL
                for (int v = 0; v < (1 << k); v++) { // the stage's distinct twiddles
                    const bool one = TRIVIAL && v == 0;
                    fr_t w;
                    if (!one)
                        w = cuzk_cuda::fr_load_ro(tw + j0 +
                                                  (static_cast<uint64_t>(v) << (a.lo + t0)));
                    CUZK_UNROLL
                    for (int u = v; u < E; u += 2 << k) bfly(x[u], x[u + (1 << k)], w, one);
                }
            }
            CUZK_UNROLL
            for (int u = 0; u < E; u++) t.put(sl[u], x[u]);
        }
    }

    template <class Tile>
    CUZK_HD void step(const Tile &t, int k, uint32_t tid, uint32_t nthreads) const {
        const step_shape sh = pass_step(a.g, a.last, k);
        if (sh.trivial) {
            if (sh.s == 3)
                stages<3, true>(t, 0, tid, nthreads);
            else if (sh.s == 2)
                stages<2, true>(t, 0, tid, nthreads);
            else
                stages<1, true>(t, 0, tid, nthreads);
        } else if (sh.s == 2) {
            stages<2, false>(t, sh.t0, tid, nthreads);
        } else {
            stages<1, false>(t, sh.t0, tid, nthreads);
        }
    }

    // Write: a normal pass puts the tile back; the last pass sends the element at index p to
    // bitrev(p) (natural order), or to n - bitrev(p) scaled, for the inverse kinds. Columns are
    // innermost: in the last pass they go to adjacent outputs.
    template <class Tile> CUZK_HD void store(const Tile &t, uint32_t tid, uint32_t nthreads) const {
        const uint64_t n = static_cast<uint64_t>(1) << a.log_n;
        for (uint32_t e = tid; e < elems; e += nthreads) {
            const uint32_t c = e & (cols - 1), r = e >> a.logc;
            fr_t v = t.get(slot(r, c));
            const uint64_t i = base + r * rs + c * cs;
            if (!a.last) {
                cuzk_cuda::fr_store(a.dst + i, v);
                continue;
            }
            uint64_t d = bitrev64(i) >> (64 - a.log_n);
            if (a.out_mode != OUT_BITREV) {
                d = (n - d) & (n - 1);
                if (a.out_mode == OUT_REVERSE_SCALE) {
                    v = cuzk_cuda::fr_mul(v, a.scale);
                } else {
                    const fr_t p =
                        cuzk_cuda::fr_mul(cuzk_cuda::fr_load_ro(a.s_hi + (d >> SHIFT_LO_LOG)),
                                          cuzk_cuda::fr_load_ro(a.s_lo + (d & (SHIFT_LO_N - 1))));
                    v = cuzk_cuda::fr_mul(v, p);
                }
            }
            cuzk_cuda::fr_store(a.dst + d, v);
        }
    }

    static CUZK_HD uint64_t bitrev64(uint64_t x) {
#ifdef __CUDA_ARCH__
        return __brevll(x);
#else
        x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
        x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
        x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
        return __builtin_bswap64(x);
#endif
    }
};

// ---- the passes of a transform ---------------------------------------------------------------

struct pass_plan {
    int lo, g, logc, last;
};

// The last pass's columns for a transform of 2^k elements: log_cols when given (>= 0, a tuned
// shape), else NTT_LOG_COLS (128-byte runs) unless one column bit fewer makes fewer passes. A
// transform of more than one block takes ceil(k / (log_block - log_cols)) passes: with blocks of
// 2^10, 2^25..2^27 take three passes with 2 columns instead of four with 4 (2^17 and 2^18 two
// instead of three); 2^27 forward 33.6 ms instead of 34.4 (docs/perf-log/2026-12.md, 2026-12-03).
static inline int pass_cols(int k, int log_block, int log_cols) {
    if (log_cols >= 0) return log_cols;
    const int per = log_block - NTT_LOG_COLS;
    return (k + per - 1) / per > (k + per) / (per + 1) ? NTT_LOG_COLS - 1 : NTT_LOG_COLS;
}

// Splits the k stages into passes, top bits first (see DESIGN). Returns the number of passes.
static inline int plan_passes(int k, int log_block, int log_cols, pass_plan *plan) {
    log_cols = pass_cols(k, log_block, log_cols);
    if (k <= log_block) {
        plan[0] = {0, k, 0, 1};
        return 1;
    }
    const int g_last = log_block - log_cols; // k > log_block: the segments exist
    const int rest = k - g_last, per = log_block - log_cols;
    const int np = (rest + per - 1) / per;
    int lo = k, count = 0;
    for (int p = 0; p < np; p++) {
        const int g = (rest - (k - lo) + (np - p) - 1) / (np - p); // even split of what is left
        lo -= g;
        const int logc = log_block - g < lo ? log_block - g : lo;
        plan[count++] = {lo, g, logc, 0};
    }
    plan[count++] = {0, g_last, log_cols, 1};
    return count;
}

// Whether a kind multiplies by powers of a shift (and so needs one).
static inline bool kind_shifted(int kind) {
    return kind == CUZK_GPU_NTT_COSET_FORWARD || kind == CUZK_GPU_NTT_COSET_INVERSE ||
           kind == CUZK_GPU_NTT_INVERSE_TO_COSET;
}

// The coset tables' parameters for a shifted kind: s_lo[b] = t^b, s_hi[a] = c t^(4096 a); for
// the coset forward t = s and c = 1, for the coset inverse t = 1/s and c = 1/n, for the inverse
// to the coset t = s and c = 1/n (the inverse's 1/n and the coset forward's powers in one).
static inline void shift_params(int log_n, const cuzk_fr *shift, int kind, fr_t *t_out,
                                fr_t *c_out) {
    cuzk_fr t = *shift, c;
    cuzk_fr_set_one(&c);
    if (kind != CUZK_GPU_NTT_COSET_FORWARD) {
        cuzk_fr_from_u64(&c, static_cast<uint64_t>(1) << log_n);
        cuzk_fr_inv(&c, &c);
    }
    if (kind == CUZK_GPU_NTT_COSET_INVERSE) cuzk_fr_inv(&t, shift);
    *t_out = to_dev(t);
    *c_out = to_dev(c);
}

// One kernel launch of a transform: the pass, the grid, the block and its shared memory.
struct pass_launch {
    pass_args a;
    unsigned blocks, threads;
    size_t smem;
};

// The launches of the transform of data[0 .. 2^log_n) (arguments checked) with the given kernel
// shape, in order, with scratch as the passes' other vector; returns their number. The device
// (enqueue) and the host twin run the same list.
static inline int plan_transform(fr_mem *data, fr_mem *scratch, const fr_mem *tw,
                                 const fr_mem *s_lo, const fr_mem *s_hi, int log_n, int kind,
                                 int log_block, int log_cols, int want_threads, pass_launch *out) {
    pass_plan plan[CUZK_GPU_NTT_MAX_LOG + 1];
    const int np = plan_passes(log_n, log_block, log_cols, plan);
    int out_mode = OUT_BITREV;
    cuzk_fr scale;
    cuzk_fr_set_one(&scale);
    if (kind == CUZK_GPU_NTT_INVERSE) {
        out_mode = OUT_REVERSE_SCALE;
        cuzk_fr_from_u64(&scale, static_cast<uint64_t>(1) << log_n);
        cuzk_fr_inv(&scale, &scale);
    } else if (kind == CUZK_GPU_NTT_COSET_INVERSE || kind == CUZK_GPU_NTT_INVERSE_TO_COSET) {
        out_mode = OUT_REVERSE_POWERS;
    }
    for (int p = 0; p < np; p++) {
        pass_args &a = out[p].a;
        a.src = np == 1 || p == 0 ? data : scratch;
        a.dst = np == 1 || p == np - 1 ? data : scratch;
        a.tw = tw;
        a.s_lo = s_lo;
        a.s_hi = s_hi;
        a.scale = to_dev(scale);
        a.log_n = log_n;
        a.lo = plan[p].lo;
        a.g = plan[p].g;
        a.logc = plan[p].logc;
        a.last = plan[p].last;
        a.in_powers = p == 0 && kind == CUZK_GPU_NTT_COSET_FORWARD;
        a.out_mode = out_mode;
        const int log_elems = a.g + a.logc;
        const unsigned elems = 1u << log_elems;
        const unsigned half = elems / 2, want = static_cast<unsigned>(want_threads);
        out[p].threads = want < half ? want : (half > 32 ? half : 32);
        out[p].blocks = static_cast<unsigned>(static_cast<size_t>(1) << (log_n - log_elems));
        out[p].smem = elems * sizeof(fr_mem);
    }
    return np;
}

// Whether a kernel shape is one cuzk_gpu_ntt_tune accepts.
static inline bool shape_ok(int log_block, int log_cols, int threads) {
    return log_block >= 4 && log_block <= NTT_MAX_LOG_BLOCK && log_cols >= -1 &&
           log_cols < log_block && threads >= 32 && threads <= NTT_MAX_THREADS &&
           (threads & (threads - 1)) == 0;
}

#endif
