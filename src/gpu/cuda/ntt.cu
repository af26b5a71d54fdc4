// The GPU NTT over Fr (contract: src/gpu/gpu_ntt.h).
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

#define CUZK_CUDA_MODULE "ntt.cu"
#include "gpu/cuda/cuda_errors.cuh"

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

// ---- errors ---------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, CU_LAUNCHED: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_ntt_last_error(void) { return g_last_error; }

// ---- small helpers --------------------------------------------------------------------------

static fr_t to_dev(const cuzk_fr &x) {
    fr_t r;
    std::memcpy(&r, &x, sizeof r);
    return r;
}

static unsigned blocks_for(size_t n, unsigned threads) {
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

__global__ void fr_eval_kernel(int op, const fr_mem *a, const fr_mem *b, fr_mem *out, size_t n) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) fr_eval_at(op, a, b, out, i);
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
    unsigned flags;  // CUZK_GPU_NTT_LENT_TWIDDLES
    int tw_valid;    // tw holds the table (a lent room may have been written over since)
    fr_mem *buf;     // 2^max_log: the context's vector
    fr_mem *scratch; // 2^max_log: the passes' other vector
    fr_mem *s_lo;    // SHIFT_LO_N entries
    fr_mem *s_hi;    // max(1, 2^max_log >> SHIFT_LO_LOG) entries
    size_t s_hi_len;
    // what s_lo / s_hi hold: the powers of shift_key for size 2^shift_log_n, as shift_mode says
    // (see shift_params); shift_valid = 0 when they hold nothing usable
    int shift_valid, shift_mode, shift_log_n;
    cuzk_fr shift_key;
    int log_block, log_cols, threads; // the kernel shape; log_cols -1: per size (pass_cols)
};

struct pass_plan {
    int lo, g, logc, last;
};

// The last pass's columns for a transform of 2^k elements: log_cols when given (>= 0, a tuned
// shape), else NTT_LOG_COLS (128-byte runs) unless one column bit fewer makes fewer passes. A
// transform of more than one block takes ceil(k / (log_block - log_cols)) passes: with blocks of
// 2^10, 2^25..2^27 take three passes with 2 columns instead of four with 4 (2^17 and 2^18 two
// instead of three); 2^27 forward 33.6 ms instead of 34.4 (docs/perf-log/2026-12.md, 2026-12-03).
static int pass_cols(int k, int log_block, int log_cols) {
    if (log_cols >= 0) return log_cols;
    const int per = log_block - NTT_LOG_COLS;
    return (k + per - 1) / per > (k + per) / (per + 1) ? NTT_LOG_COLS - 1 : NTT_LOG_COLS;
}

// Splits the k stages into passes, top bits first (see DESIGN). Returns the number of passes.
static int plan_passes(int k, int log_block, int log_cols, pass_plan *plan) {
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

extern "C" size_t cuzk_gpu_ntt_ctx_vram2(int max_log_n, unsigned flags) {
    if (max_log_n < 1 || max_log_n > CUZK_GPU_NTT_MAX_LOG) return 0;
    const size_t n = static_cast<size_t>(1) << max_log_n;
    const size_t s_hi = n >> SHIFT_LO_LOG ? n >> SHIFT_LO_LOG : 1;
    const size_t vecs = (flags & CUZK_GPU_NTT_LENT_TWIDDLES) ? 2 : 3;
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
    (void)cudaFree(ctx->scratch);
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
    CU_TRY(cudaMalloc(&ctx->buf, n * sizeof(fr_mem)));
    CU_TRY(cudaMalloc(&ctx->scratch, n * sizeof(fr_mem)));
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
    if (flags & ~CUZK_GPU_NTT_LENT_TWIDDLES) return set_error(CUZK_EINVAL, "unknown flags");
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

extern "C" void cuzk_gpu_ntt_ctx_twiddles_lost(struct cuzk_gpu_ntt_ctx *ctx) {
    if (ctx && (ctx->flags & CUZK_GPU_NTT_LENT_TWIDDLES)) ctx->tw_valid = 0;
}

// Whether a kernel shape is one cuzk_gpu_ntt_tune accepts.
static bool shape_ok(int log_block, int log_cols, int threads) {
    return log_block >= 4 && log_block <= NTT_MAX_LOG_BLOCK && log_cols >= -1 &&
           log_cols < log_block && threads >= 32 && threads <= NTT_MAX_THREADS &&
           (threads & (threads - 1)) == 0;
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

// Whether a kind multiplies by powers of a shift (and so needs one).
static bool kind_shifted(int kind) {
    return kind == CUZK_GPU_NTT_COSET_FORWARD || kind == CUZK_GPU_NTT_COSET_INVERSE ||
           kind == CUZK_GPU_NTT_INVERSE_TO_COSET;
}

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

// The coset tables' parameters for a shifted kind: s_lo[b] = t^b, s_hi[a] = c t^(4096 a); for
// the coset forward t = s and c = 1, for the coset inverse t = 1/s and c = 1/n, for the inverse
// to the coset t = s and c = 1/n (the inverse's 1/n and the coset forward's powers in one).
static void shift_params(int log_n, const cuzk_fr *shift, int kind, fr_t *t_out, fr_t *c_out) {
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

// One kernel launch of a transform: the pass, the grid, the block and its shared memory.
struct pass_launch {
    pass_args a;
    unsigned blocks, threads;
    size_t smem;
};

// The launches of the transform of data[0 .. 2^log_n) (arguments checked) with the given kernel
// shape, in order, with scratch as the passes' other vector; returns their number. The device
// (enqueue) and the host twin run the same list.
static int plan_transform(fr_mem *data, fr_mem *scratch, const fr_mem *tw, const fr_mem *s_lo,
                          const fr_mem *s_hi, int log_n, int kind, int log_block, int log_cols,
                          int want_threads, pass_launch *out) {
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

// ---- host twin (gpu_twin.h) -----------------------------------------------------------------

extern "C" int cuzk_gpu_twin_fr(enum cuzk_gpu_fr_op op, const cuzk_fr *a, const cuzk_fr *b,
                                cuzk_fr *out, size_t n) {
    if (op < CUZK_GPU_FR_ADD || op > CUZK_GPU_FR_NEG ||
        (n && (!a || !out || (!b && op != CUZK_GPU_FR_SQR && op != CUZK_GPU_FR_NEG))))
        return CUZK_EINVAL;
    const fr_mem *fa = reinterpret_cast<const fr_mem *>(a);
    const fr_mem *fb = reinterpret_cast<const fr_mem *>(b ? b : a);
    for (size_t i = 0; i < n; i++) fr_eval_at(op, fa, fb, reinterpret_cast<fr_mem *>(out), i);
    return CUZK_OK;
}

// What the twin watches while it runs a block's phases: every tile access is noted with the
// thread making it. Within one phase (between two barriers) a slot must be touched by one
// thread only: a second thread reading or writing it would race on the device, where the
// phase's threads run concurrently (the twin, running them in turn, would hide that). And the
// k-th access of the threads of a quarter warp (lanes 8q .. 8q + 7: the threads whose 16-byte
// words one shared-memory wavefront serves) should fall in 8 different 16-byte bank groups
// (slot mod 8; plane1 repeats plane0's pattern, the tile size being a multiple of 8); each
// access to a group already used counts one collision.
struct twin_check {
    uint32_t *owner; // per slot: 1 + the thread that touched it in this phase, 0: none
    uint32_t *count; // per thread: its accesses so far in this phase
    uint8_t *banks;  // per (quarter warp, access number): bank groups used
    uint32_t kmax;   // access numbers per quarter warp in banks
    uint32_t tid;    // the thread running
    uint64_t races, accesses, collisions;
    CUZK_HD void note(uint32_t s) {
        if (owner[s] != 0 && owner[s] != tid + 1) races++;
        owner[s] = tid + 1;
        const uint32_t k = count[tid]++;
        uint8_t &used = banks[static_cast<size_t>(tid / 8) * kmax + (k < kmax ? k : kmax - 1)];
        const uint8_t bit = static_cast<uint8_t>(1u << (s & 7));
        if (used & bit) collisions++;
        used |= bit;
        accesses++;
    }
};

// The kernel's tile accessors on host memory, each access noted.
struct twin_tile {
    dev_tile mem;
    twin_check *chk;
    CUZK_HD fr_t get(uint32_t s) const {
        chk->note(s);
        return mem.get(s);
    }
    CUZK_HD void put(uint32_t s, const fr_t &v) const {
        chk->note(s);
        mem.put(s, v);
    }
};

// Runs one launch the way the device does: for each block, each phase for every thread in
// turn, a barrier (the end of a phase's loop) clearing the per-phase records.
static void twin_pass(const pass_launch &l, twin_check &chk) {
    const uint32_t elems = static_cast<uint32_t>(l.smem / sizeof(fr_mem));
    std::vector<uint4> sm(2 * static_cast<size_t>(elems));
    std::vector<uint32_t> owner(elems), count(l.threads);
    chk.kmax = 2 * elems + 2; // above any thread's accesses in a phase
    std::vector<uint8_t> banks(static_cast<size_t>((l.threads + 7) / 8) * chk.kmax);
    chk.owner = owner.data();
    chk.count = count.data();
    chk.banks = banks.data();
    const auto barrier = [&]() {
        std::fill(owner.begin(), owner.end(), 0);
        std::fill(count.begin(), count.end(), 0);
        std::fill(banks.begin(), banks.end(), 0);
    };
    const int nsteps = pass_nsteps(l.a.g, l.a.last);
    for (unsigned blk = 0; blk < l.blocks; blk++) {
        const pass_block b(l.a, blk);
        const twin_tile t = {{sm.data(), sm.data() + elems}, &chk};
        for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.load(t, chk.tid, l.threads);
        barrier();
        for (int k = 0; k < nsteps; k++) {
            for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.step(t, k, chk.tid, l.threads);
            barrier();
        }
        for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.store(t, chk.tid, l.threads);
        barrier();
    }
}

extern "C" int cuzk_gpu_twin_ntt(cuzk_fr *data, int log_n, enum cuzk_gpu_ntt_kind kind,
                                 const cuzk_fr *shift, int log_block, int log_cols, int threads,
                                 struct cuzk_gpu_twin_ntt_report *report) {
    if (log_block == 0) {
        log_block = NTT_LOG_BLOCK;
        log_cols = -1;
        threads = NTT_THREADS;
    }
    const bool coset = kind_shifted(kind);
    if (!data || log_n < 1 || log_n > CUZK_GPU_TWIN_NTT_MAX_LOG || kind < CUZK_GPU_NTT_FORWARD ||
        kind > CUZK_GPU_NTT_INVERSE_TO_COSET || (coset && (!shift || cuzk_fr_is_zero(shift))) ||
        !shape_ok(log_block, log_cols, threads))
        return CUZK_EINVAL;
    // the context's tables for max_log = log_n, built by the kernels' bodies
    const size_t n = static_cast<size_t>(1) << log_n, half = n / 2;
    const size_t s_hi_len = n >> SHIFT_LO_LOG ? n >> SHIFT_LO_LOG : 1;
    std::vector<fr_mem> tw(n), scratch(n), s_lo(SHIFT_LO_N), s_hi(s_hi_len);
    cuzk_fr omega;
    cuzk_fr_root_of_unity(&omega, log_n);
    const fr_t one = cuzk_cuda::fr_one();
    const size_t hi_len = (half + SHIFT_LO_N - 1) / SHIFT_LO_N;
    for (size_t j = 0; j < SHIFT_LO_N; j++) pow_table_at(s_lo.data(), to_dev(omega), 1, one, j);
    for (size_t j = 0; j < hi_len; j++)
        pow_table_at(s_hi.data(), to_dev(omega), SHIFT_LO_N, one, j);
    for (size_t i = 0; i < half; i++) twiddle_top_at(tw.data() + half, s_hi.data(), s_lo.data(), i);
    for (size_t e = 0; e < half; e++) twiddle_lower_at(tw.data(), half, e);
    if (coset) {
        fr_t t, c;
        shift_params(log_n, shift, kind, &t, &c);
        for (size_t j = 0; j < SHIFT_LO_N; j++) pow_table_at(s_lo.data(), t, 1, one, j);
        for (size_t j = 0; j < (n + SHIFT_LO_N - 1) / SHIFT_LO_N; j++)
            pow_table_at(s_hi.data(), t, SHIFT_LO_N, c, j);
    }
    pass_launch l[CUZK_GPU_NTT_MAX_LOG + 1];
    const int np =
        plan_transform(reinterpret_cast<fr_mem *>(data), scratch.data(), tw.data(), s_lo.data(),
                       s_hi.data(), log_n, kind, log_block, log_cols, threads, l);
    twin_check chk = {};
    for (int p = 0; p < np; p++) twin_pass(l[p], chk);
    if (report) {
        report->passes = np;
        report->races = chk.races;
        report->accesses = chk.accesses;
        report->collisions = chk.collisions;
    }
    return CUZK_OK;
}
