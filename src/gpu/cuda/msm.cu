// The GPU MSM, batch scalar multiplication and device arithmetic checks over BLS12-381 G1 and
// G2 (contract: src/gpu/gpu_msm.h), and their host twins (src/gpu/gpu_twin.h).
//
// DESIGN. An MSM sum_i s_i P_i runs on the context's one stream, in phases:
//   upload   the scalars (canonical 4 x 64-bit integers) into the context's scalar buffer; for
//            device Fr scalars a kernel converts Montgomery form to canonical instead.
//   bits     (unless forbidden) one thread per scalar classifies it as 0, 1 or other and
//            CUB's DeviceSelect lists the indices of the ones and of the others; the host reads
//            the two counts. When zeros and ones are more than MSM_BIT_PCT percent of n (a
//            Filecoin witness) or the path is forced, the bases of the ones are summed by a
//            tree of additions (first level: each thread sums a run of them by mixed
//            additions; then levels of 32-to-1 sums) and only the others go through the
//            windows. Otherwise all n scalars do.
//   windows  Pippenger with signed c-bit digits, nw = ceil(256 / c) windows (see msm_digit),
//            sorted and accumulated in batches of wb windows (as many as the context's sort
//            space holds) and reduced in groups of wr windows (as many as its bucket space
//            holds: every window of a G1 MSM of the context's size, half of them for G2). For
//            a batch:
//     sort     one thread per scalar writes, for each window of the batch, the key |digit|
//              (0 for a zero digit) and the value point index | sign << 31; CUB's radix sort
//              orders each window's pairs by key (c bits only) into the batch's buffers.
//     accum    the sorted pairs of a window are cut into cpw chunks of consecutive entries
//              (lengths differ by at most one; k cpw is about the context's accumulation
//              thread count, whole waves of the GPU), one thread each: it walks its chunk and
//              sums each run of equal keys by XYZZ mixed additions of the (negated for a
//              negative digit) affine bases, one addition per entry in a flat loop, storing a
//              run's sum when the key changes (so the threads of a warp stay in step: with a
//              loop per run, a warp waited for its longest run). A run that starts in a chunk
//              belongs to that chunk, which writes its sum to the run's bucket; a chunk whose
//              first run started in an earlier chunk writes that partial sum to its head slot
//              instead. A fix-up kernel then adds, for each run that crosses chunk boundaries,
//              the heads of the chunks it covers into its bucket (one thread per owning
//              chunk), taking the heads of a long run in whole blocks of 4^l chunks whose sums
//              a small tree of launches (fixtree_body) made before. Chunks of equal length keep
//              every thread equally busy whatever the distribution of the digits (equal
//              scalars make one huge bucket), and the tree keeps the fix-up of such a bucket
//              from becoming one thread's long chain of additions.
//   reduce   (once a group's buckets are full) each window's sum sum_b b S_b over its
//              B = 2^(c-1) buckets, by levels over all the group's windows at once: each
//              thread turns 32 consecutive buckets (8 items at the levels above) into one with
//              a running sum (see reduce_body), until one item per window remains: the window
//              sum. Reducing many windows per launch keeps the GPU full at the upper levels,
//              whose few long chains of additions would otherwise run one window at a time.
//   combine  the host reads the window sums (and the sum of the ones) and combines them by
//            doubling with the CPU group code: sum_w 2^(c w) W_w.
// All scratch memory belongs to the context and is allocated at its creation (sized from
// max_n, see msm_sizes_for); the MSM path never calls cudaMalloc. Phases are timed by events.
//
// Every kernel is a thin wrapper (msm_kernel) around a functor whose operator() is
// __host__ __device__ (and inlined into the kernel) and computes one thread's work; the driver
// (msm_run) is a template over an executor, which launches the functors on the GPU (dev_exec:
// kernels, CUB) or runs them in loops on the host (host_exec: std::stable_sort for the radix sort).
// The host twin of an MSM (cuzk_gpu_twin_g1_msm) is thus the same driver, planning, buffer juggling
// and per-thread code as the GPU's, on the host's portable field arithmetic: tests compare it with
// src/msm on machines without a GPU.
//
// Batch multiplication (the GPU dev setup): a fixed-base table of the base (computed on the
// host by cuzk_g*_fb_table_init) is uploaded, and one thread per scalar sums at most
// ceil(256 / MSM_FB_WINDOW) table points by mixed additions and converts to affine with one
// Fermat inversion; the work goes in chunks of MSM_FB_CHUNK scalars.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it
#endif

// The C headers have no C++ linkage guards; their GCC loop pragmas mean nothing to the CUDA
// front end (diagnostic 1675). They must come before gpu_msm.h, which includes them outside
// its own extern "C" block.
#pragma nv_diag_suppress 1675
extern "C" {
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "msm/msm.h"
}
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ec.cuh"
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_twin.h"

#define CUZK_CUDA_MODULE "msm.cu"
#include "gpu/cuda/cuda_errors.cuh"

#include "gpu/cuda/bases.cuh"

using namespace cuzk_cuda;

static_assert(sizeof(cuzk_fp) == sizeof(fp_mem), "host and device Fp must have one layout");
static_assert(sizeof(cuzk_fp2) == sizeof(fp2_mem), "host and device Fp2 must have one layout");
static_assert(sizeof(cuzk_g1_affine) == sizeof(aff_mem<fp_t>), "G1 affine layout");
static_assert(sizeof(cuzk_g2_affine) == sizeof(aff_mem<fp2_t>), "G2 affine layout");
static_assert(sizeof(cuzk_g1) == sizeof(jac_mem<fp_t>), "G1 Jacobian layout");
static_assert(sizeof(cuzk_g2) == sizeof(jac_mem<fp2_t>), "G2 Jacobian layout");
static_assert(sizeof(cuzk_scalar) == 4 * sizeof(uint64_t), "scalar layout");
static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the 32-bit device limbs equal the 64-bit host limbs on little-endian hosts");

// ---- tunables -----------------------------------------------------------------------------------

#define MSM_MIN_WINDOW 8           // window widths the tuning accepts (contract: 8..20)
#define MSM_MAX_WINDOW 20          //   and the widest the cost model picks
#define MSM_MAX_WINDOWS 32         // ceil(256 / MSM_MIN_WINDOW)
#define MSM_SORT_BUDGET (1u << 25) // sorted (key, value) pairs a context holds for a batch
#define MSM_MIN_BUCKETS (1u << 15) // bucket space of the smallest context
#define MSM_ACC_THREADS (1u << 17) // accumulation chunks per batch (about: whole waves on a GPU)
#define MSM_RED_LOG 5              // the reduction's first level: 2^5 buckets per thread
#define MSM_RED_LOG_UP 3           //   the levels above it: 2^3 items per thread
#define MSM_MIN_ITEMS (1u << 12)   // reduction buffer of the smallest context
#define MSM_BIT_PCT 50             // the bit-witness path when more than this % is 0 or 1
#define MSM_THREADS 128            // threads per block of every MSM kernel
#define MSM_MAX_N 0x7fffffffu      // point indices keep a sign in bit 31
#define MSM_MAX_EVENTS 160         // timing marks per MSM (a few per batch)
#define MSM_FIX_LOG 2              // the fix-up tree: blocks of 4^l chunks at level l,
#define MSM_FIX_LEVELS 6           //   l = 1..6 (see fixtree_body)
// The register bound of the G1 accumulation (see msm_min_blocks); a build may set it (-D).
#ifndef MSM_ACC_MIN_BLOCKS_G1
#define MSM_ACC_MIN_BLOCKS_G1 3
#endif
#ifndef MSM_ACC_MIN_BLOCKS_G2
#define MSM_ACC_MIN_BLOCKS_G2 1
#endif
// The cost model of the automatic window width, in mixed additions: each point costs one per
// window, each bucket about MSM_COST_BUCKET / 10 (two general additions in the reduction),
// each window a fixed MSM_COST_WINDOW (its sort call and launches).
#define MSM_COST_BUCKET 28
#define MSM_COST_WINDOW 30000
#define MSM_FB_WINDOW 10              // batch multiplication: fixed-base table window
#define MSM_FB_CHUNK (1u << 22)       // scalars per batch-multiplication chunk
#define MSM_ONES_SLOT MSM_MAX_WINDOWS // the window-sum slot holding the sum of the ones

// ---- errors -------------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, TRY: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_msm_last_error(void) { return g_last_error; }

// ---- the groups ---------------------------------------------------------------------------------

// What the driver needs of a group: its coordinate field and the host types and operations
// (the final combination of window sums and the fixed-base tables run on the CPU).
struct g1_group {
    using F = fp_t;
    using host_aff = cuzk_g1_affine;
    using host_jac = cuzk_g1;
    static constexpr int id = CUZK_GPU_G1;
    static void set_inf(cuzk_g1 *r) { cuzk_g1_set_inf(r); }
    static void dbl(cuzk_g1 *r, const cuzk_g1 *p) { cuzk_g1_dbl(r, p); }
    static void add(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q) { cuzk_g1_add(r, p, q); }
    static size_t fb_len(int w) { return cuzk_g1_fb_table_len(w); }
    static int fb_init(cuzk_g1_affine *t, const cuzk_g1_affine *b, int w) {
        return cuzk_g1_fb_table_init(t, b, w);
    }
};
struct g2_group {
    using F = fp2_t;
    using host_aff = cuzk_g2_affine;
    using host_jac = cuzk_g2;
    static constexpr int id = CUZK_GPU_G2;
    static void set_inf(cuzk_g2 *r) { cuzk_g2_set_inf(r); }
    static void dbl(cuzk_g2 *r, const cuzk_g2 *p) { cuzk_g2_dbl(r, p); }
    static void add(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2 *q) { cuzk_g2_add(r, p, q); }
    static size_t fb_len(int w) { return cuzk_g2_fb_table_len(w); }
    static int fb_init(cuzk_g2_affine *t, const cuzk_g2_affine *b, int w) {
        return cuzk_g2_fb_table_init(t, b, w);
    }
};

// The largest bucket type: buffers shared by both groups are sized with it.
using xyzz_big = xyzz_mem<fp2_t>;

// ---- signed window digits -----------------------------------------------------------------------
// A scalar s < 2^255 is written as s = sum_(w < nw) d_w 2^(c w) with digits
// -(2^(c-1) - 1) <= d_w <= 2^(c-1), nw = ceil(256 / c), as follows: t = s + K with
// K = sum_w (2^(c-1) - 1) 2^(c w), and d_w = (bits [c w, c w + c) of t) - (2^(c-1) - 1). Every
// digit is local (no carry chain between windows: the addition of K did the carrying), so each
// thread computes its digits independently. t fits c nw bits: 2^(c nw) - K exceeds
// 2^(c nw - 1) >= 2^255 > s. A digit's bucket is |d| (1..2^(c-1)), its sign negates the base.

static unsigned msm_window_count(unsigned c) { return (256 + c - 1) / c; }

// K for window width c, as five 64-bit limbs (c nw <= 275 bits).
static void msm_digit_offset(uint64_t k[5], unsigned c) {
    for (int i = 0; i < 5; i++) k[i] = 0;
    const unsigned nw = msm_window_count(c);
    const uint64_t v = (static_cast<uint64_t>(1) << (c - 1)) - 1;
    for (unsigned w = 0; w < nw; w++) {
        const unsigned pos = c * w, limb = pos / 64, off = pos % 64;
        k[limb] |= v << off;
        if (off + c > 64) k[limb + 1] |= v >> (64 - off); // the windows do not overlap
    }
}

// t = s + K (s of four limbs, t and K of five).
CUZK_HD void msm_offset_scalar(uint64_t t[5], const uint64_t s[4], const uint64_t k[5]) {
    uint64_t carry = 0;
    for (int i = 0; i < 5; i++) {
        const uint64_t a = i < 4 ? s[i] : 0;
        const uint64_t x = a + k[i];
        const uint64_t c1 = x < a;
        t[i] = x + carry;
        carry = c1 | (t[i] < x);
    }
}

// The digit of window w of t (= s + K) for width c.
CUZK_HD int msm_digit(const uint64_t t[5], unsigned c, unsigned w) {
    const unsigned pos = c * w, limb = pos / 64, off = pos % 64;
    uint64_t v = t[limb] >> off;
    if (off + c > 64 && limb + 1 < 5) v |= t[limb + 1] << (64 - off);
    v &= (static_cast<uint64_t>(1) << c) - 1;
    return static_cast<int>(v) - ((1 << (c - 1)) - 1);
}

// The automatic window width for m points: the cost model's minimum over the allowed widths.
static unsigned msm_auto_window(size_t m) {
    unsigned best = MSM_MIN_WINDOW;
    double best_cost = 0;
    for (unsigned c = MSM_MIN_WINDOW; c <= MSM_MAX_WINDOW; c++) {
        const double cost =
            msm_window_count(c) *
            (static_cast<double>(m) + MSM_COST_BUCKET / 10.0 * static_cast<double>(1u << (c - 1)) +
             MSM_COST_WINDOW);
        if (c == MSM_MIN_WINDOW || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

// ---- sizes and plans ----------------------------------------------------------------------------

// The scratch of a context for MSMs of up to max_n points (both groups: point buffers are sized
// for G2). sort_entries pairs hold a batch's windows (wb + 1 buffers of one window each: see
// run_windows); bucket_cap G1 buckets (half as many G2 buckets) hold the buckets of every window
// of an MSM of max_n G1 points at its automatic width, so that one reduction serves them all;
// item_cap items each of the four reduction arrays (acc and run, two levels); head_cap chunk
// heads, and as many again for the fix-up tree's block sums (see fixtree_body).
struct msm_sizes {
    size_t max_n, sort_entries, bucket_cap, item_cap, head_cap, acc_threads;
};

static msm_sizes msm_sizes_for(size_t max_n, size_t sort_budget, size_t acc_threads) {
    msm_sizes s;
    const unsigned c = msm_auto_window(max_n);
    const size_t nw = msm_window_count(c);
    size_t wb = sort_budget / max_n;
    wb = wb < 1 ? 1 : (wb > nw ? nw : wb);
    s.max_n = max_n;
    s.sort_entries = (wb + 1) * max_n;
    // an even number of windows' worth, so that G2 (half as many buckets) takes two groups
    s.bucket_cap =
        std::max<size_t>(2 * static_cast<size_t>(MSM_MIN_BUCKETS), (nw + (nw & 1)) << (c - 1));
    s.item_cap = std::max<size_t>(MSM_MIN_ITEMS, s.bucket_cap >> MSM_RED_LOG);
    s.acc_threads = acc_threads;
    s.head_cap = acc_threads + MSM_MAX_WINDOWS;
    return s;
}

// Bytes of every scratch array (device or twin host memory alike).
struct msm_bytes {
    size_t scalars, lists, flags, counts, sort, buckets, items, heads, win;
    size_t total() const {
        return scalars + 3 * lists + 2 * flags + counts + 2 * sort + buckets + items + heads + win;
    }
};

static msm_bytes msm_bytes_for(const msm_sizes &s) {
    msm_bytes b;
    b.scalars = s.max_n * sizeof(cuzk_scalar);
    b.lists = s.max_n * sizeof(uint32_t); // idx, ones, rest
    b.flags = s.max_n;                    // flag_one, flag_rest
    b.counts = 2 * sizeof(int64_t);
    b.sort = s.sort_entries * sizeof(uint32_t); // keys, values
    b.buckets = s.bucket_cap * sizeof(xyzz_mem<fp_t>);
    b.items = 4 * s.item_cap * sizeof(xyzz_big);
    b.heads = 2 * s.head_cap * sizeof(xyzz_big); // heads, then the fix-up tree
    b.win = (MSM_MAX_WINDOWS + 1) * sizeof(xyzz_big);
    return b;
}

// The scratch arrays of a context (device memory) or of a twin run (host memory).
struct msm_mem {
    uint64_t *scalars;             // max_n canonical scalars, four limbs each
    uint32_t *idx, *ones, *rest;   // max_n each: 0..n-1, then the two selected lists
    uint8_t *flag_one, *flag_rest; // max_n each
    int64_t *counts;               // the two list lengths
    uint32_t *keys, *vals;         // sort_entries each
    void *buckets, *items, *heads, *win;
};

// One windowed pass over m entries: width c, nw windows in batches of wb (sorted and
// accumulated together), reduced in groups of wr windows (a multiple of wb: as many windows as
// the bucket space holds), B buckets per window. A batch of k windows is accumulated by
// chunks_per_window(k) chunks per window.
struct msm_plan {
    unsigned c, nw, wb, wr, B;
    size_t m, acc_threads;
    size_t chunks_per_window(unsigned k) const {
        return std::max<size_t>(1, std::min(acc_threads / k, m)); // k cpw <= max(acc_threads, k)
    }
};

// The plan for points whose bucket is bucket_bytes bytes (G1 or G2).
static msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s,
                             size_t bucket_bytes) {
    msm_plan p;
    const size_t cap = s.bucket_cap * sizeof(xyzz_mem<fp_t>) / bucket_bytes; // buckets of F
    unsigned c = forced_window ? forced_window : msm_auto_window(m);
    c = c < MSM_MIN_WINDOW ? MSM_MIN_WINDOW : (c > MSM_MAX_WINDOW ? MSM_MAX_WINDOW : c);
    // a window whose buckets do not fit the context is narrowed (the result is the same)
    while (c > MSM_MIN_WINDOW && (static_cast<size_t>(1) << (c - 1)) > cap) c--;
    p.c = c;
    p.nw = msm_window_count(c);
    p.B = 1u << (c - 1);
    p.m = m;
    size_t wb = s.sort_entries / m - 1; // m <= max_n, so at least one window and a spare
    const size_t wr = std::min<size_t>(cap / p.B, p.nw);
    wb = std::min<size_t>(wb, wr);
    p.wb = static_cast<unsigned>(wb);
    p.wr = static_cast<unsigned>(wr / wb * wb);
    p.acc_threads = s.acc_threads;
    return p;
}

// ---- per-thread work: the functors --------------------------------------------------------------

// Out-of-line copies of the point formulas. Only the accumulation's mixed addition is inlined
// (the hot loop); the other kernels call these: a call costs about 1% of a point operation,
// and inlining every call site made this file's device code several times larger and its
// compilation (ptxas) several times slower.
template <class F> __host__ __device__ __noinline__ xyzz<F> call_dbl(const xyzz<F> &p) {
    return dbl(p);
}
template <class F>
__host__ __device__ __noinline__ xyzz<F> call_madd(const xyzz<F> &p, const affine<F> &q) {
    return madd(p, q);
}
template <class F>
__host__ __device__ __noinline__ xyzz<F> call_add(const xyzz<F> &p, const xyzz<F> &q) {
    return add(p, q);
}
template <class F> __host__ __device__ __noinline__ jac<F> call_to_jac(const xyzz<F> &p) {
    return to_jac(p);
}
template <class F> __host__ __device__ __noinline__ affine<F> call_to_affine(const xyzz<F> &p) {
    return to_affine(p);
}

// Scalar classification for the bit-witness split: flags and the identity list idx[i] = i
// that DeviceSelect compacts.
struct classify_body {
    const uint64_t *scalars;
    uint32_t *idx;
    uint8_t *flag_one, *flag_rest;
    CUZK_HD void operator()(size_t i) const {
        const uint64_t *s = scalars + 4 * i;
        const uint64_t high = s[1] | s[2] | s[3];
        const bool zero = (s[0] | high) == 0, one = s[0] == 1 && high == 0;
        idx[i] = static_cast<uint32_t>(i);
        flag_one[i] = one;
        flag_rest[i] = !zero && !one;
    }
};

// The keys and values of k windows (from w0) for entry j: the scalar of index list[j] (or j).
struct digits_body {
    const uint64_t *scalars;
    const uint32_t *list;
    uint64_t kofs[5];
    unsigned c, w0, k;
    uint32_t *keys[MSM_MAX_WINDOWS], *vals[MSM_MAX_WINDOWS];
    CUZK_HD void operator()(size_t j) const {
        const uint32_t idx = list ? list[j] : static_cast<uint32_t>(j);
        const uint64_t *s = scalars + 4 * static_cast<size_t>(idx);
        uint64_t sc[4] = {s[0], s[1], s[2], s[3]}, t[5];
        msm_offset_scalar(t, sc, kofs);
        CUZK_UNROLL
        for (unsigned w = 0; w < MSM_MAX_WINDOWS; w++) { // constant indices (see pick)
            if (w >= k) break;
            const int d = msm_digit(t, c, w0 + w);
            keys[w][j] = static_cast<uint32_t>(d < 0 ? -d : d);
            vals[w][j] = idx | (d < 0 ? 0x80000000u : 0u);
        }
    }
};

// a[j] for a runtime j by selects over constant indices: indexing a kernel parameter's array
// with a runtime index would make each thread copy the array to local memory.
template <class T> CUZK_HD T pick(T const (&a)[MSM_MAX_WINDOWS], size_t j) {
    T r = a[0];
    CUZK_UNROLL
    for (unsigned w = 1; w < MSM_MAX_WINDOWS; w++)
        if (w == j) r = a[w];
    return r;
}

// The affine base of a sorted value: index in the low 31 bits, negated when bit 31 is set.
template <class F> CUZK_HD affine<F> msm_base(const aff_mem<F> *bases, uint32_t v) {
    affine<F> p = load_ro(bases + (v & 0x7fffffffu));
    if (v >> 31) p.y = neg(p.y);
    return p;
}

// Chunk t of a window of m entries split into cpw chunks: entries [chunk_begin(t), chunk_begin(t +
// 1)). The chunks differ in length by at most one and none is empty (cpw <= m).
CUZK_HD size_t chunk_begin(size_t t, size_t m, size_t cpw) { return t * m / cpw; }

// Starts moving the base of a sorted value towards the multiprocessor (the L2 cache) a few
// iterations before the accumulation reads it; nothing on the host.
template <class F> CUZK_HD void msm_prefetch(const aff_mem<F> *bases, uint32_t v) {
#ifdef __CUDA_ARCH__
    const char *p = reinterpret_cast<const char *>(bases + (v & 0x7fffffffu));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + sizeof(aff_mem<F>) - 1));
#else
    (void)bases;
    (void)v;
#endif
}

#define MSM_PREFETCH_AHEAD 2 // entries ahead of the accumulation that msm_prefetch fetches

// Chunk t of window j: sums each run of equal keys of its entries (see DESIGN). Zero keys come
// first in a sorted window, so a binary search skips them. The loop does one mixed addition per
// entry for every thread alike, and a thread whose run ends stores its sum (a short branch):
// threads of a warp never wait for the longest run among them.
template <class F> struct accum_body {
    const aff_mem<F> *bases;
    const uint32_t *keys[MSM_MAX_WINDOWS], *vals[MSM_MAX_WINDOWS];
    xyzz_mem<F> *buckets, *heads;
    size_t m, cpw;
    unsigned B;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cpw, t = tid % cpw;
        const size_t b = chunk_begin(t, m, cpw), e = chunk_begin(t + 1, m, cpw);
        const uint32_t *K = pick(keys, j), *V = pick(vals, j);
        size_t i = b;
        if (K[b] == 0) {           // the first non-zero key in (b, e), or e
            size_t lo = b, hi = e; // K[lo] == 0; K[hi] != 0 or hi == e
            while (hi - lo > 1) {
                const size_t mid = lo + (hi - lo) / 2;
                if (K[mid] == 0)
                    lo = mid;
                else
                    hi = mid;
            }
            i = hi;
        }
        if (i == e) return;
        uint32_t cur = K[i];
        bool head = i == b && b > 0 && K[b - 1] == cur; // the run began in an earlier chunk
        for (size_t a = i; a < i + MSM_PREFETCH_AHEAD && a < e; a++) msm_prefetch(bases, V[a]);
        xyzz<F> acc = xyzz_inf<F>();
        for (; i < e; i++) {
            const uint32_t k = K[i];
            if (k != cur) {
                store(head ? heads + j * cpw + t : buckets + static_cast<size_t>(j) * B + (cur - 1),
                      acc);
                head = false;
                cur = k;
                acc = xyzz_inf<F>();
            }
            if (i + MSM_PREFETCH_AHEAD < e) msm_prefetch(bases, V[i + MSM_PREFETCH_AHEAD]);
            acc = madd(acc, msm_base(bases, V[i]));
        }
        store(head ? heads + j * cpw + t : buckets + static_cast<size_t>(j) * B + (cur - 1), acc);
    }
};

// The fix-up tree: the chunks of a window in aligned blocks of 4^l chunks at levels l = 1..6. A
// block is whole when every chunk of it starts inside one run that began before the block (the
// head of each of its chunks is valid and of one key): then the sum of its heads is stored at
// level l, from the sums of its four sub-blocks at level l - 1 (level 0: the heads). Whole
// blocks exist only where a run covers many chunks (a key shared by a large part of the
// scalars: equal scalars, or the top window of a width that leaves it few bits); elsewhere a
// thread reads three keys and returns. The fix-up then adds a long run's heads a block at a
// time, so its serial chain of additions is at most about 2 * 3 * 6 long plus one per 4^6
// chunks, instead of one per chunk (a 2^22-point MSM's top window had runs over 2,400 chunks).
CUZK_HD bool fix_whole(const uint32_t *K, size_t m, size_t cpw, size_t a, size_t z) {
    if (a == 0) return false;
    const size_t ba = chunk_begin(a, m, cpw);
    const uint32_t k = K[ba];
    return k != 0 && K[ba - 1] == k && K[chunk_begin(z, m, cpw)] == k;
}

template <class F> struct fixtree_body {
    const uint32_t *keys[MSM_MAX_WINDOWS];
    const xyzz_mem<F> *in; // level l - 1: n_in per window
    xyzz_mem<F> *out;      // level l: n_out = cpw >> (l MSM_FIX_LOG) per window
    size_t m, cpw, n_in, n_out;
    unsigned lg; // l MSM_FIX_LOG: a block is 2^lg chunks
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / n_out, i = tid % n_out, a = i << lg;
        if (!fix_whole(pick(keys, j), m, cpw, a, a + (static_cast<size_t>(1) << lg) - 1)) return;
        const xyzz_mem<F> *q = in + j * n_in + (i << MSM_FIX_LOG);
        xyzz<F> acc = load(q);
        for (unsigned u = 1; u < (1u << MSM_FIX_LOG); u++) acc = call_add(acc, load(q + u));
        store(out + j * n_out + i, acc);
    }
};

// The offset of fix-up tree level l (1..MSM_FIX_LEVELS) in the tree buffer, for k windows of
// cpw chunks: the levels below it, k (cpw >> (l' MSM_FIX_LOG)) items each.
CUZK_HD size_t fix_level_offset(unsigned l, size_t k, size_t cpw) {
    size_t off = 0;
    for (unsigned u = 1; u < l; u++) off += k * (cpw >> (u * MSM_FIX_LOG));
    return off;
}

// For chunk t of window j whose last run began in it and continues past it: adds the heads
// of the following chunks that the run covers into the run's bucket, a whole block of the
// fix-up tree at a time where one starts.
template <class F> struct fixup_body {
    const uint32_t *keys[MSM_MAX_WINDOWS];
    xyzz_mem<F> *buckets;
    const xyzz_mem<F> *heads, *tree;
    size_t m, cpw;
    unsigned B, k;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cpw, t = tid % cpw;
        const size_t b = chunk_begin(t, m, cpw), e = chunk_begin(t + 1, m, cpw);
        const uint32_t *K = pick(keys, j);
        const uint32_t key = K[e - 1];
        if (key == 0 || e == m || K[e] != key) return;       // the last run ends in this chunk
        if (K[b] == key && b > 0 && K[b - 1] == key) return; // it began before: not the owner
        xyzz_mem<F> *bucket = buckets + static_cast<size_t>(j) * B + (key - 1);
        xyzz<F> acc = load(bucket);
        for (size_t u = t + 1;;) {
            // chunk u starts inside the run: the largest whole block starting at u, if any
            unsigned l = MSM_FIX_LEVELS;
            for (; l > 0; l--) {
                const unsigned lg = l * MSM_FIX_LOG;
                const size_t n_l = cpw >> lg, z = u + (static_cast<size_t>(1) << lg) - 1;
                if ((u & ((static_cast<size_t>(1) << lg) - 1)) == 0 && (u >> lg) < n_l &&
                    K[chunk_begin(z, m, cpw)] == key)
                    break;
            }
            if (l > 0) {
                const unsigned lg = l * MSM_FIX_LOG;
                acc = call_add(
                    acc, load(tree + fix_level_offset(l, k, cpw) + j * (cpw >> lg) + (u >> lg)));
                u += static_cast<size_t>(1) << lg;
            } else {
                acc = call_add(acc, load(heads + j * cpw + u));
                u++;
            }
            const size_t eu = chunk_begin(u, m, cpw);
            if (eu >= m || K[eu] != key) break; // the run ended within chunk u - 1
        }
        store(bucket, acc);
    }
};

// One level of the reduction, for item K of window j: the inputs k in [K sz, K sz + sz) of the
// window (cnt_in per window) become one output (cnt_out per window). Three modes:
//   REDUCE_BUCKETS  the inputs are buckets S_k for the digit values k + 1: out_acc = sum_k S_k
//                   + sum_k (k - K sz) S_k and out_run = sum_k S_k;
//   REDUCE_WEIGHTED the inputs are (acc_k, run_k) of a level whose item k stands for
//                   acc_k + 2^mlog k run_k (in the window's total): out_acc = sum_k acc_k +
//                   2^mlog sum_k (k - K sz) run_k and out_run = sum_k run_k;
//   REDUCE_PLAIN    out_acc = sum_k acc_k (the sum of the ones; a partial last chunk is fine).
// The window's total is then sum_K out_acc_K + 2^(mlog + log2 sz) sum_K K out_run_K, the same
// form one level up; with one item left it is out_acc. The weighted sum uses the running sum
// from the top: w += run (the items above), then run += item, so item k is counted
// (k - K sz) times.
enum { REDUCE_BUCKETS = 0, REDUCE_WEIGHTED = 1, REDUCE_PLAIN = 2 };
template <class F> struct reduce_body {
    const xyzz_mem<F> *in_acc, *in_run;
    xyzz_mem<F> *out_acc, *out_run; // out_run is NULL at the last level and in REDUCE_PLAIN
    size_t cnt_in, sz, cnt_out;
    unsigned mlog;
    int mode;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cnt_out, kk = tid % cnt_out, lo = kk * sz;
        const size_t hi = lo + sz < cnt_in ? lo + sz : cnt_in;
        const size_t base = j * cnt_in;
        xyzz<F> a = xyzz_inf<F>(), run = xyzz_inf<F>(), w = xyzz_inf<F>();
        for (size_t k = hi; k-- > lo;) {
            if (mode == REDUCE_PLAIN) {
                a = call_add(a, load(in_acc + base + k));
                continue;
            }
            w = call_add(w, run);
            run = call_add(run, load(in_run + base + k));
            if (mode == REDUCE_WEIGHTED) a = call_add(a, load(in_acc + base + k));
        }
        if (mode == REDUCE_BUCKETS) a = run;
        if (mode != REDUCE_PLAIN) {
            for (unsigned d = 0; d < mlog; d++) w = call_dbl(w);
            a = call_add(a, w);
        }
        store(out_acc + j * cnt_out + kk, a);
        if (out_run) store(out_run + j * cnt_out + kk, run);
    }
};

// The first level of the sum of the ones: item kk sums the bases of list entries
// [kk sz, kk sz + sz).
template <class F> struct ones_body {
    const aff_mem<F> *bases;
    const uint32_t *list;
    size_t cnt, sz;
    xyzz_mem<F> *out;
    CUZK_HD void operator()(size_t kk) const {
        const size_t lo = kk * sz, hi = lo + sz < cnt ? lo + sz : cnt;
        xyzz<F> a = xyzz_inf<F>();
        for (size_t k = lo; k < hi; k++) a = call_madd(a, load_ro(bases + list[k]));
        store(out + kk, a);
    }
};

// Montgomery Fr -> canonical integer (multiplication by the plain integer 1 divides by R), in
// place or not. Device only: the Fr arithmetic (ff_fr.cuh) has no host path.
struct fr_canonical_body {
    const fr_mem *in;
    fr_mem *out;
    __device__ __forceinline__ void operator()(size_t i) const {
        fr_t one_plain = fr_zero();
        one_plain.l[0] = 1;
        fr_store(out + i, fr_mul(fr_load(in + i), one_plain));
    }
};

// Batch multiplication: out[i] = k_i B from the fixed-base table of B (window w, nwin windows:
// entry j (2^w - 1) + d - 1 is d 2^(w j) B), k_i canonical.
template <class F> struct fb_mul_body {
    const aff_mem<F> *table;
    const uint64_t *scalars;
    aff_mem<F> *out;
    unsigned w, nwin;
    CUZK_HD void operator()(size_t i) const {
        const uint64_t *k = scalars + 4 * i;
        const size_t per = (static_cast<size_t>(1) << w) - 1;
        xyzz<F> acc = xyzz_inf<F>();
        for (unsigned j = 0; j < nwin; j++) {
            const unsigned bit = j * w, limb = bit / 64, off = bit % 64;
            uint64_t d = k[limb] >> off;
            if (off + w > 64 && limb + 1 < 4) d |= k[limb + 1] << (64 - off);
            d &= per;
            if (d) acc = call_madd(acc, load_ro(table + j * per + d - 1));
        }
        store(out + i, call_to_affine(acc));
    }
};

// ---- the arithmetic checks' bodies (device eval and host twin alike) ----------------------------

CUZK_HD bool fp_op_is_fp2(int op) { return op >= CUZK_GPU_FP2_ADD; }

struct fp_eval_body {
    int op;
    const void *a, *b;
    void *out;
    CUZK_HD void operator()(size_t i) const {
        if (fp_op_is_fp2(op)) {
            const fp2_t x = load(static_cast<const fp2_mem *>(a) + i);
            const fp2_t y = load(static_cast<const fp2_mem *>(b) + i);
            fp2_t r;
            switch (op) {
            case CUZK_GPU_FP2_ADD: r = add(x, y); break;
            case CUZK_GPU_FP2_SUB: r = sub(x, y); break;
            case CUZK_GPU_FP2_MUL: r = mul(x, y); break;
            default: r = sqr(x); break;
            }
            store(static_cast<fp2_mem *>(out) + i, r);
        } else {
            const fp_t x = load(static_cast<const fp_mem *>(a) + i);
            const fp_t y = load(static_cast<const fp_mem *>(b) + i);
            fp_t r;
            switch (op) {
            case CUZK_GPU_FP_ADD: r = add(x, y); break;
            case CUZK_GPU_FP_SUB: r = sub(x, y); break;
            case CUZK_GPU_FP_MUL: r = mul(x, y); break;
            default: r = sqr(x); break;
            }
            store(static_cast<fp_mem *>(out) + i, r);
        }
    }
};

// Inversion in Fp (degree 1) or Fp2 (2), for the twin (the device runs it inside to_affine).
struct fp_inv_body {
    int degree;
    const void *a;
    void *out;
    CUZK_HD void operator()(size_t i) const {
        if (degree == 2)
            store(static_cast<fp2_mem *>(out) + i, inv(load(static_cast<const fp2_mem *>(a) + i)));
        else
            store(static_cast<fp_mem *>(out) + i, inv(load(static_cast<const fp_mem *>(a) + i)));
    }
};

// sum = a + b and dbl = 2a through every XYZZ routine and their exceptional branches:
//   X = dbl(a) = 2a (doubling with ZZ = 1)
//   Y = madd(b, -a) = b - a (b = a: the identity; b = -a: the doubling branch, -2a)
//   sum = add(X, Y) (a = b: Y is the identity; a = -b: X + (-X), the identity; b = 3a: X + X)
//   P = madd(madd(a, b), -b) = a with ZZ != 1 in general, dbl = add(P, P) (the doubling branch
//   of the general addition).
template <class F> struct add_eval_body {
    const aff_mem<F> *a, *b;
    jac_mem<F> *sum, *dbl_out;
    CUZK_HD void operator()(size_t i) const {
        const affine<F> pa = load(a + i), pb = load(b + i);
        const xyzz<F> xa = xyzz_from_affine(pa);
        const xyzz<F> x = call_dbl(xa);
        const xyzz<F> y = call_madd(xyzz_from_affine(pb), neg(pa));
        store(sum + i, call_to_jac(call_add(x, y)));
        const xyzz<F> p = call_madd(call_madd(xa, pb), neg(pb));
        store(dbl_out + i, call_to_jac(call_add(p, p)));
    }
};

// ---- executors ----------------------------------------------------------------------------------

// Resident blocks per multiprocessor a kernel is compiled for (its register bound): 1 lets the
// compiler use up to 255 registers per thread. The G1 accumulation runs fastest at 3 blocks (166
// registers, no spills: 3 % faster than 4 blocks at 128 registers with spills, 4 % faster than
// 5); the G2 one at 1 (3 blocks spill heavily and ran 3 % slower). Measured in
// docs/performance.md.
template <class B> struct msm_min_blocks { static constexpr int v = 1; };
template <> struct msm_min_blocks<accum_body<fp_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G1;
};
template <> struct msm_min_blocks<accum_body<fp2_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G2;
};

template <class B>
__global__ void __launch_bounds__(MSM_THREADS, msm_min_blocks<B>::v)
    msm_kernel(const B b, size_t n) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) b(i);
}

enum msm_phase { PH_START = 0, PH_UPLOAD, PH_BITS, PH_SORT, PH_ACCUM, PH_REDUCE };

// Runs the functors on the GPU, on one stream; sort and select are CUB's.
struct dev_exec {
    cudaStream_t stream;
    void *tmp; // CUB temporary storage
    size_t tmp_bytes;
    cudaEvent_t *ev; // MSM_MAX_EVENTS, NULL: no timing
    int *ev_phase;
    int nev;

    template <class B> int launch(const B &b, size_t n) {
        if (n == 0) return CUZK_OK;
        const size_t blocks = (n + MSM_THREADS - 1) / MSM_THREADS;
        msm_kernel<B><<<static_cast<unsigned>(blocks), MSM_THREADS, 0, stream>>>(b, n);
        CU_TRY(cudaPeekAtLastError());
        return CUZK_OK;
    }
    // Sorts (keys, vals)[0, m) by the low end_bit bits of the keys, stably, using (keys_alt,
    // vals_alt) as the other buffer; *in_alt = 1 when the result is in the alt buffers.
    int sort(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t m,
             int end_bit, int *in_alt) {
        cub::DoubleBuffer<uint32_t> dk(keys, keys_alt), dv(vals, vals_alt);
        size_t bytes = tmp_bytes;
        CU_TRY(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, static_cast<int64_t>(m), 0,
                                               end_bit, stream));
        if (dk.selector != dv.selector)
            return set_error(CUZK_EGPU, "radix sort left keys and values in different buffers");
        *in_alt = dk.selector;
        return CUZK_OK;
    }
    int select(const uint32_t *in, const uint8_t *flags, uint32_t *out, int64_t *count, size_t n) {
        size_t bytes = tmp_bytes;
        CU_TRY(cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, count,
                                          static_cast<int64_t>(n), stream));
        return CUZK_OK;
    }
    int zero(void *p, size_t bytes) {
        CU_TRY(cudaMemsetAsync(p, 0, bytes, stream));
        return CUZK_OK;
    }
    int to_host(void *dst, const void *src, size_t bytes) {
        CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
        CU_TRY(cudaStreamSynchronize(stream));
        return CUZK_OK;
    }
    // The work queued since the previous mark belongs to `phase`.
    int mark(int phase) {
        if (!ev || nev >= MSM_MAX_EVENTS) return CUZK_OK;
        CU_TRY(cudaEventRecord(ev[nev], stream));
        ev_phase[nev++] = phase;
        return CUZK_OK;
    }
};

// Runs the functors in loops on the host (the twin). The sort is a stable sort by key that
// leaves its result alternately in place and in the alt buffers, as the GPU's may.
struct host_exec {
    int flip = 0;
    template <class B> int launch(const B &b, size_t n) {
        for (size_t i = 0; i < n; i++) b(i);
        return CUZK_OK;
    }
    int sort(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t m,
             int end_bit, int *in_alt) {
        std::vector<size_t> perm(m);
        for (size_t i = 0; i < m; i++) perm[i] = i;
        const uint32_t mask = end_bit >= 32 ? ~0u : (1u << end_bit) - 1;
        std::stable_sort(perm.begin(), perm.end(),
                         [&](size_t x, size_t y) { return (keys[x] & mask) < (keys[y] & mask); });
        std::vector<uint32_t> k(m), v(m);
        for (size_t i = 0; i < m; i++) {
            k[i] = keys[perm[i]];
            v[i] = vals[perm[i]];
        }
        flip ^= 1;
        std::memcpy(flip ? keys_alt : keys, k.data(), m * sizeof(uint32_t));
        std::memcpy(flip ? vals_alt : vals, v.data(), m * sizeof(uint32_t));
        *in_alt = flip;
        return CUZK_OK;
    }
    int select(const uint32_t *in, const uint8_t *flags, uint32_t *out, int64_t *count, size_t n) {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++)
            if (flags[i]) out[c++] = in[i];
        *count = c;
        return CUZK_OK;
    }
    int zero(void *p, size_t bytes) {
        std::memset(p, 0, bytes);
        return CUZK_OK;
    }
    int to_host(void *dst, const void *src, size_t bytes) {
        std::memcpy(dst, src, bytes);
        return CUZK_OK;
    }
    int mark(int) { return CUZK_OK; }
};

// ---- the driver ---------------------------------------------------------------------------------

// The plan of the last windowed pass, for the timing of benchmarks (window and batches).
struct msm_report {
    unsigned c, nw, wb;
    size_t m, ones;
};

// The reduction of k windows' buckets (B each, from `buckets`) into the window sums win[0, k):
// a first level of 2^MSM_RED_LOG buckets per thread, then levels of 2^MSM_RED_LOG_UP items, all
// k windows in each launch (see reduce_body).
template <class F, class X>
static int reduce_windows(X &x, const msm_mem &mm, const msm_sizes &sz, const msm_plan &p,
                          const xyzz_mem<F> *buckets, unsigned k, xyzz_mem<F> *win) {
    auto *items = static_cast<xyzz_mem<F> *>(mm.items);
    reduce_body<F> r;
    r.in_acc = buckets;
    r.in_run = buckets;
    r.cnt_in = p.B;
    r.mlog = 0;
    r.mode = REDUCE_BUCKETS;
    int ping = 0;
    unsigned lg_step = MSM_RED_LOG;
    while (r.cnt_in > 1) {
        r.sz = std::min<size_t>(r.cnt_in, static_cast<size_t>(1) << lg_step);
        r.cnt_out = r.cnt_in / r.sz; // powers of two
        if (r.cnt_out == 1) {
            r.out_acc = win;
            r.out_run = nullptr;
        } else {
            r.out_acc = items + (2 * ping) * sz.item_cap;
            r.out_run = items + (2 * ping + 1) * sz.item_cap;
        }
        TRY(x.launch(r, static_cast<size_t>(k) * r.cnt_out));
        unsigned lg = 0;
        while ((static_cast<size_t>(1) << lg) < r.sz) lg++;
        r.in_acc = r.out_acc;
        r.in_run = r.out_run;
        r.cnt_in = r.cnt_out;
        r.mlog += lg;
        r.mode = REDUCE_WEIGHTED;
        ping ^= 1;
        lg_step = MSM_RED_LOG_UP;
    }
    return CUZK_OK;
}

// The windows of m entries (scalars[list[j]] or scalars[j]) into the window sums win[0, nw).
// F's bucket size decides how many windows one reduction takes (msm_plan_for).
template <class F, class X>
static int run_windows(X &x, const msm_mem &mm, const msm_sizes &sz, const aff_mem<F> *bases,
                       const uint32_t *list, size_t m, unsigned forced_window, msm_plan *out) {
    const msm_plan p = msm_plan_for(m, forced_window, sz, sizeof(xyzz_mem<F>));
    *out = p;
    auto *buckets = static_cast<xyzz_mem<F> *>(mm.buckets);
    auto *heads = static_cast<xyzz_mem<F> *>(mm.heads);
    auto *win = static_cast<xyzz_mem<F> *>(mm.win);
    uint64_t kofs[5];
    msm_digit_offset(kofs, p.c);

    unsigned g0 = 0; // the first window of the reduction group being filled
    for (unsigned w0 = 0; w0 < p.nw; w0 += p.wb) {
        const unsigned k = std::min(p.wb, p.nw - w0);
        // sort: window w of the batch into buffer w; buffer k is the spare the sorts swap with
        digits_body d;
        d.scalars = mm.scalars;
        d.list = list;
        std::memcpy(d.kofs, kofs, sizeof kofs);
        d.c = p.c;
        d.w0 = w0;
        d.k = k;
        uint32_t *spare_k = mm.keys + k * m, *spare_v = mm.vals + k * m;
        for (unsigned w = 0; w < k; w++) {
            d.keys[w] = mm.keys + w * m;
            d.vals[w] = mm.vals + w * m;
        }
        TRY(x.launch(d, m));
        for (unsigned w = 0; w < k; w++) {
            int in_alt = 0;
            TRY(x.sort(d.keys[w], spare_k, d.vals[w], spare_v, m, static_cast<int>(p.c), &in_alt));
            if (in_alt) {
                std::swap(d.keys[w], spare_k);
                std::swap(d.vals[w], spare_v);
            }
        }
        TRY(x.mark(PH_SORT));

        // accumulate into the buckets of windows w0 - g0 .. of the group
        xyzz_mem<F> *bk = buckets + static_cast<size_t>(w0 - g0) * p.B;
        TRY(x.zero(bk, static_cast<size_t>(k) * p.B * sizeof(xyzz_mem<F>)));
        accum_body<F> a;
        a.bases = bases;
        for (unsigned w = 0; w < k; w++) {
            a.keys[w] = d.keys[w];
            a.vals[w] = d.vals[w];
        }
        const size_t cpw = p.chunks_per_window(k);
        a.buckets = bk;
        a.heads = heads;
        a.m = m;
        a.cpw = cpw;
        a.B = p.B;
        TRY(x.launch(a, static_cast<size_t>(k) * cpw));
        // the fix-up tree's levels (after the heads' level 0), then the fix-up
        xyzz_mem<F> *tree = heads + sz.head_cap;
        fixtree_body<F> ft;
        for (unsigned w = 0; w < k; w++) ft.keys[w] = d.keys[w];
        ft.in = heads;
        ft.n_in = cpw;
        ft.m = m;
        ft.cpw = cpw;
        for (unsigned l = 1; l <= MSM_FIX_LEVELS; l++) {
            ft.lg = l * MSM_FIX_LOG;
            ft.n_out = cpw >> ft.lg;
            if (ft.n_out == 0) break;
            ft.out = tree + fix_level_offset(l, k, cpw);
            TRY(x.launch(ft, static_cast<size_t>(k) * ft.n_out));
            ft.in = ft.out;
            ft.n_in = ft.n_out;
        }
        fixup_body<F> f;
        for (unsigned w = 0; w < k; w++) f.keys[w] = d.keys[w];
        f.buckets = bk;
        f.heads = heads;
        f.tree = tree;
        f.m = m;
        f.cpw = cpw;
        f.B = p.B;
        f.k = k;
        TRY(x.launch(f, static_cast<size_t>(k) * cpw));
        TRY(x.mark(PH_ACCUM));

        // reduce: when the group is full or the windows are done, B buckets per window -> 1
        if (w0 + k - g0 == p.wr || w0 + k == p.nw) {
            TRY(reduce_windows<F>(x, mm, sz, p, buckets, w0 + k - g0, win + g0));
            TRY(x.mark(PH_REDUCE));
            g0 = w0 + k;
        }
    }
    return CUZK_OK;
}

// The sum of the bases of the cnt list entries into win[MSM_ONES_SLOT].
template <class F, class X>
static int run_ones(X &x, const msm_mem &mm, const msm_sizes &sz, const aff_mem<F> *bases,
                    const uint32_t *list, size_t cnt) {
    auto *items = static_cast<xyzz_mem<F> *>(mm.items);
    auto *win = static_cast<xyzz_mem<F> *>(mm.win);
    const size_t step = static_cast<size_t>(1) << MSM_RED_LOG;
    ones_body<F> o;
    o.bases = bases;
    o.list = list;
    o.cnt = cnt;
    o.sz = std::max(step, (cnt + sz.item_cap - 1) / sz.item_cap);
    size_t n_out = (cnt + o.sz - 1) / o.sz;
    o.out = n_out == 1 ? win + MSM_ONES_SLOT : items;
    TRY(x.launch(o, n_out));
    reduce_body<F> r;
    r.in_acc = o.out;
    r.in_run = nullptr;
    r.out_run = nullptr;
    r.mlog = 0;
    r.mode = REDUCE_PLAIN;
    int ping = 1;
    while (n_out > 1) {
        r.cnt_in = n_out;
        r.sz = std::min(step, n_out);
        r.cnt_out = (n_out + r.sz - 1) / r.sz;
        r.out_acc = r.cnt_out == 1 ? win + MSM_ONES_SLOT : items + 2 * ping * sz.item_cap;
        TRY(x.launch(r, r.cnt_out));
        r.in_acc = r.out_acc;
        n_out = r.cnt_out;
        ping ^= 1;
    }
    return CUZK_OK;
}

// The host's Jacobian point of a device XYZZ point (host copy).
template <class G>
static void xyzz_to_host(typename G::host_jac *out, const xyzz_mem<typename G::F> *p) {
    const jac<typename G::F> j = to_jac(load(p));
    std::memcpy(out, &j, sizeof *out);
}

// out = sum_i s_i bases[i] for the n canonical scalars in mm.scalars (see DESIGN).
template <class G, class X>
static int msm_run(X &x, const msm_mem &mm, const msm_sizes &sz,
                   const aff_mem<typename G::F> *bases, size_t n, const cuzk_gpu_msm_tuning &tune,
                   typename G::host_jac *out, msm_report *rep) {
    using F = typename G::F;
    const uint32_t *list = nullptr;
    size_t m = n, n_ones = 0;
    if (tune.bit_path >= 0) {
        classify_body cl = {mm.scalars, mm.idx, mm.flag_one, mm.flag_rest};
        TRY(x.launch(cl, n));
        TRY(x.select(mm.idx, mm.flag_one, mm.ones, mm.counts, n));
        TRY(x.select(mm.idx, mm.flag_rest, mm.rest, mm.counts + 1, n));
        int64_t counts[2];
        TRY(x.to_host(counts, mm.counts, sizeof counts));
        const size_t ones = static_cast<size_t>(counts[0]), rest = static_cast<size_t>(counts[1]);
        if (tune.bit_path > 0 || (n - rest) * 100 > n * MSM_BIT_PCT) {
            list = mm.rest;
            m = rest;
            n_ones = ones;
        }
    }
    TRY(x.zero(mm.win, (MSM_MAX_WINDOWS + 1) * sizeof(xyzz_mem<F>)));
    if (n_ones) TRY(run_ones<F>(x, mm, sz, bases, mm.ones, n_ones));
    TRY(x.mark(PH_BITS));
    msm_plan p = {};
    if (m) TRY(run_windows<F>(x, mm, sz, bases, list, m, tune.window, &p));
    rep->c = p.c;
    rep->nw = m ? p.nw : 0;
    rep->wb = p.wb;
    rep->m = m;
    rep->ones = n_ones;

    // combine on the host: Horner over the windows from the top, then the ones
    std::vector<xyzz_mem<F>> w(MSM_MAX_WINDOWS + 1);
    TRY(x.to_host(w.data(), mm.win, w.size() * sizeof(xyzz_mem<F>)));
    typename G::host_jac acc, t;
    G::set_inf(&acc);
    for (unsigned i = rep->nw; i-- > 0;) {
        for (unsigned b = 0; b < p.c && i + 1 < rep->nw; b++) G::dbl(&acc, &acc);
        xyzz_to_host<G>(&t, &w[i]);
        G::add(&acc, &acc, &t);
    }
    xyzz_to_host<G>(&t, &w[MSM_ONES_SLOT]);
    G::add(out, &acc, &t);
    return CUZK_OK;
}

// ---- resident bases -----------------------------------------------------------------------------

// struct cuzk_gpu_bases, bases_point_bytes, bases_alloc: gpu/cuda/bases.cuh

static int bases_upload(int device, int group, const void *pts, size_t n,
                        struct cuzk_gpu_bases **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (!pts && n) return set_error(CUZK_EINVAL, "points are NULL");
    cuzk_gpu_bases *b = nullptr;
    TRY(bases_alloc(device, group, n, &b));
    const cudaError_t e =
        n ? cudaMemcpy(b->pts, pts, b->bytes, cudaMemcpyHostToDevice) : cudaSuccess;
    if (e != cudaSuccess) {
        const int err = cuda_fail(e, "bases upload", __LINE__);
        cuzk_gpu_bases_free(b);
        return err;
    }
    *out = b;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_bases_upload(int device, const cuzk_g1_affine *pts, size_t n,
                                        struct cuzk_gpu_bases **out) {
    return bases_upload(device, CUZK_GPU_G1, pts, n, out);
}

extern "C" int cuzk_gpu_g2_bases_upload(int device, const cuzk_g2_affine *pts, size_t n,
                                        struct cuzk_gpu_bases **out) {
    return bases_upload(device, CUZK_GPU_G2, pts, n, out);
}

extern "C" void cuzk_gpu_bases_free(struct cuzk_gpu_bases *b) {
    if (!b) return;
    if (b->pts) {
        (void)cudaSetDevice(b->device);
        (void)cudaFree(b->pts);
        (void)cudaGetLastError();
    }
    std::free(b);
}

extern "C" size_t cuzk_gpu_bases_count(const struct cuzk_gpu_bases *b) { return b ? b->n : 0; }

extern "C" size_t cuzk_gpu_bases_vram(const struct cuzk_gpu_bases *b) { return b ? b->bytes : 0; }

extern "C" size_t cuzk_gpu_bases_vram_for(enum cuzk_gpu_group g, size_t n) {
    if (g != CUZK_GPU_G1 && g != CUZK_GPU_G2) return 0;
    return n * bases_point_bytes(g);
}

// ---- contexts -----------------------------------------------------------------------------------

struct cuzk_gpu_msm_ctx {
    int device;
    msm_sizes sz;
    msm_mem mm;
    void *cub_tmp;
    size_t cub_bytes;
    cudaStream_t stream;
    cudaEvent_t ev[MSM_MAX_EVENTS];
    int ev_phase[MSM_MAX_EVENTS];
    int nev_created;
    cuzk_gpu_msm_tuning tune;
    cuzk_gpu_msm_timing timing;
};

// CUB's temporary storage for the largest sort and select of a context (needs the device).
static int cub_bytes_for(size_t max_n, size_t *out) {
    size_t sort_bytes = 0, sel_bytes = 0;
    cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
    CU_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv, static_cast<int64_t>(max_n),
                                           0, 32));
    CU_TRY(cub::DeviceSelect::Flagged(
        nullptr, sel_bytes, static_cast<const uint32_t *>(nullptr),
        static_cast<const uint8_t *>(nullptr), static_cast<uint32_t *>(nullptr),
        static_cast<int64_t *>(nullptr), static_cast<int64_t>(max_n)));
    *out = std::max(sort_bytes, sel_bytes);
    return CUZK_OK;
}

// The accumulation's chunk count on `device`: MSM_ACC_THREADS rounded to a whole number of
// waves of the G1 accumulation kernel's resident threads, so that no last wave runs part-full
// (each chunk is the same work). MSM_ACC_THREADS when the device cannot be asked.
static size_t acc_threads_for(int device) {
    int sms = 0, blocks = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, msm_kernel<accum_body<fp_t>>,
                                                      MSM_THREADS, 0) != cudaSuccess ||
        sms <= 0 || blocks <= 0) {
        (void)cudaGetLastError();
        return MSM_ACC_THREADS;
    }
    const size_t wave = static_cast<size_t>(sms) * blocks * MSM_THREADS;
    const size_t waves = std::max<size_t>(1, (MSM_ACC_THREADS + wave / 2) / wave);
    return waves * wave;
}

extern "C" size_t cuzk_gpu_msm_ctx_vram(size_t max_n) {
    if (max_n < 1 || max_n > MSM_MAX_N) return 0;
    int dev = 0;
    const size_t acc = cudaGetDevice(&dev) == cudaSuccess ? acc_threads_for(dev) : MSM_ACC_THREADS;
    (void)cudaGetLastError();
    const msm_sizes sz = msm_sizes_for(max_n, MSM_SORT_BUDGET, acc);
    size_t cub = 0;
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0 || cub_bytes_for(max_n, &cub) != CUZK_OK)
        cub = max_n * 2 * sizeof(uint32_t) + (1u << 20); // no device to ask: an upper estimate
    return msm_bytes_for(sz).total() + cub;
}

extern "C" void cuzk_gpu_msm_ctx_free(struct cuzk_gpu_msm_ctx *ctx) {
    if (!ctx) return;
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    void *bufs[] = {ctx->mm.scalars,   ctx->mm.idx,    ctx->mm.ones, ctx->mm.rest, ctx->mm.flag_one,
                    ctx->mm.flag_rest, ctx->mm.counts, ctx->mm.keys, ctx->mm.vals, ctx->mm.buckets,
                    ctx->mm.items,     ctx->mm.heads,  ctx->mm.win,  ctx->cub_tmp};
    for (void *p : bufs) (void)cudaFree(p);
    for (int i = 0; i < ctx->nev_created; i++) (void)cudaEventDestroy(ctx->ev[i]);
    if (ctx->stream) (void)cudaStreamDestroy(ctx->stream);
    (void)cudaGetLastError();
    std::free(ctx);
}

template <class T> static int dev_alloc(T **p, size_t bytes) {
    void *q = nullptr;
    CU_TRY(cudaMalloc(&q, bytes ? bytes : 16));
    *p = static_cast<T *>(q);
    return CUZK_OK;
}

static int ctx_init(cuzk_gpu_msm_ctx *ctx) {
    CU_TRY(cudaSetDevice(ctx->device));
    CU_TRY(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    for (; ctx->nev_created < MSM_MAX_EVENTS; ctx->nev_created++)
        CU_TRY(cudaEventCreate(&ctx->ev[ctx->nev_created]));
    const msm_bytes b = msm_bytes_for(ctx->sz);
    msm_mem &m = ctx->mm;
    TRY(dev_alloc(&m.scalars, b.scalars));
    TRY(dev_alloc(&m.idx, b.lists));
    TRY(dev_alloc(&m.ones, b.lists));
    TRY(dev_alloc(&m.rest, b.lists));
    TRY(dev_alloc(&m.flag_one, b.flags));
    TRY(dev_alloc(&m.flag_rest, b.flags));
    TRY(dev_alloc(&m.counts, b.counts));
    TRY(dev_alloc(&m.keys, b.sort));
    TRY(dev_alloc(&m.vals, b.sort));
    TRY(dev_alloc(&m.buckets, b.buckets));
    TRY(dev_alloc(&m.items, b.items));
    TRY(dev_alloc(&m.heads, b.heads));
    TRY(dev_alloc(&m.win, b.win));
    TRY(cub_bytes_for(ctx->sz.max_n, &ctx->cub_bytes));
    TRY(dev_alloc(&ctx->cub_tmp, ctx->cub_bytes));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_msm_ctx_create(int device, size_t max_n, struct cuzk_gpu_msm_ctx **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (max_n < 1 || max_n > MSM_MAX_N) return set_error(CUZK_EINVAL, "max_n out of range");
    auto *ctx = static_cast<cuzk_gpu_msm_ctx *>(std::calloc(1, sizeof(cuzk_gpu_msm_ctx)));
    if (!ctx) return CUZK_ENOMEM;
    ctx->device = device;
    if (cudaSetDevice(device) != cudaSuccess) {
        std::free(ctx);
        return cuda_fail(cudaGetLastError(), "cudaSetDevice", __LINE__);
    }
    ctx->sz = msm_sizes_for(max_n, MSM_SORT_BUDGET, acc_threads_for(device));
    const int err = ctx_init(ctx);
    if (err != CUZK_OK) {
        cuzk_gpu_msm_ctx_free(ctx);
        return err;
    }
    *out = ctx;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_msm_ctx_device(const struct cuzk_gpu_msm_ctx *ctx) {
    return ctx ? ctx->device : -1;
}

extern "C" void cuzk_gpu_msm_tune(struct cuzk_gpu_msm_ctx *ctx,
                                  const struct cuzk_gpu_msm_tuning *t) {
    if (!ctx) return;
    cuzk_gpu_msm_tuning v = {0, 0};
    if (t) {
        v = *t;
        if (v.window && (v.window < MSM_MIN_WINDOW || v.window > MSM_MAX_WINDOW)) v.window = 0;
        v.bit_path = v.bit_path > 0 ? 1 : (v.bit_path < 0 ? -1 : 0);
    }
    ctx->tune = v;
}

extern "C" void cuzk_gpu_msm_last_timing(const struct cuzk_gpu_msm_ctx *ctx,
                                         struct cuzk_gpu_msm_timing *t) {
    if (!t) return;
    if (!ctx) {
        std::memset(t, 0, sizeof *t);
        return;
    }
    *t = ctx->timing;
}

// ---- MSM entry points ---------------------------------------------------------------------------

// Turns the marks of the last run into the phase times.
static int collect_timing(cuzk_gpu_msm_ctx *ctx, int nev) {
    cuzk_gpu_msm_timing &t = ctx->timing;
    std::memset(&t, 0, sizeof t);
    for (int i = 1; i < nev; i++) {
        float ms = 0;
        CU_TRY(cudaEventElapsedTime(&ms, ctx->ev[i - 1], ctx->ev[i]));
        switch (ctx->ev_phase[i]) {
        case PH_UPLOAD: t.upload_ms += ms; break;
        case PH_BITS: t.bits_ms += ms; break;
        case PH_SORT: t.sort_ms += ms; break;
        case PH_ACCUM: t.accum_ms += ms; break;
        default: t.reduce_ms += ms; break;
        }
    }
    if (nev > 1) CU_TRY(cudaEventElapsedTime(&t.total_ms, ctx->ev[0], ctx->ev[nev - 1]));
    return CUZK_OK;
}

// Argument checks shared by the MSM entry points.
template <class G>
static int msm_check(const cuzk_gpu_msm_ctx *ctx, const cuzk_gpu_bases *bases, size_t offset,
                     const void *scalars, size_t n, const void *out) {
    if (!ctx || !bases || !out || (!scalars && n)) return set_error(CUZK_EINVAL, "NULL argument");
    if (bases->group != G::id) return set_error(CUZK_EINVAL, "bases of the other group");
    if (bases->device != ctx->device) return set_error(CUZK_EINVAL, "bases of another device");
    if (n > ctx->sz.max_n) return set_error(CUZK_EINVAL, "n above the context's max_n");
    if (offset > bases->n || n > bases->n - offset)
        return set_error(CUZK_EINVAL, "range outside the bases");
    return CUZK_OK;
}

// The MSM proper once the scalars' source is known: host scalars are uploaded, device Fr
// scalars converted.
template <class G>
static int msm_entry(cuzk_gpu_msm_ctx *ctx, const cuzk_gpu_bases *bases, size_t offset,
                     const cuzk_scalar *host_scalars, const void *dev_fr, size_t n,
                     typename G::host_jac *out) {
    using F = typename G::F;
    std::memset(&ctx->timing, 0, sizeof ctx->timing);
    if (n == 0) {
        G::set_inf(out);
        return CUZK_OK;
    }
    CU_TRY(cudaSetDevice(ctx->device));
    dev_exec x;
    x.stream = ctx->stream;
    x.tmp = ctx->cub_tmp;
    x.tmp_bytes = ctx->cub_bytes;
    x.ev = ctx->ev;
    x.ev_phase = ctx->ev_phase;
    x.nev = 0;
    TRY(x.mark(PH_START));
    if (host_scalars) {
        CU_TRY(cudaMemcpyAsync(ctx->mm.scalars, host_scalars, n * sizeof(cuzk_scalar),
                               cudaMemcpyHostToDevice, ctx->stream));
        TRY(x.mark(PH_UPLOAD));
    } else {
        fr_canonical_body cv = {static_cast<const fr_mem *>(dev_fr),
                                reinterpret_cast<fr_mem *>(ctx->mm.scalars)};
        TRY(x.launch(cv, n));
        TRY(x.mark(PH_SORT));
    }
    const auto *pts = static_cast<const aff_mem<F> *>(bases->pts) + offset;
    msm_report rep;
    TRY(msm_run<G>(x, ctx->mm, ctx->sz, pts, n, ctx->tune, out, &rep));
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    return collect_timing(ctx, x.nev);
}

extern "C" int cuzk_gpu_g1_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                               size_t offset, const cuzk_scalar *scalars, size_t n, cuzk_g1 *out) {
    TRY(msm_check<g1_group>(ctx, bases, offset, scalars, n, out));
    return msm_entry<g1_group>(ctx, bases, offset, scalars, nullptr, n, out);
}

extern "C" int cuzk_gpu_g2_msm(struct cuzk_gpu_msm_ctx *ctx, const struct cuzk_gpu_bases *bases,
                               size_t offset, const cuzk_scalar *scalars, size_t n, cuzk_g2 *out) {
    TRY(msm_check<g2_group>(ctx, bases, offset, scalars, n, out));
    return msm_entry<g2_group>(ctx, bases, offset, scalars, nullptr, n, out);
}

template <class G>
static int msm_dev_fr(cuzk_gpu_msm_ctx *ctx, const cuzk_gpu_bases *bases, size_t offset,
                      const void *dev_scalars_fr, size_t n, typename G::host_jac *out) {
    TRY(msm_check<G>(ctx, bases, offset, dev_scalars_fr, n, out));
    if (reinterpret_cast<uintptr_t>(dev_scalars_fr) & 15)
        return set_error(CUZK_EINVAL, "device scalars not 16-byte aligned");
    return msm_entry<G>(ctx, bases, offset, nullptr, dev_scalars_fr, n, out);
}

extern "C" int cuzk_gpu_g1_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx,
                                      const struct cuzk_gpu_bases *bases, size_t offset,
                                      const void *dev_scalars_fr, size_t n, cuzk_g1 *out) {
    return msm_dev_fr<g1_group>(ctx, bases, offset, dev_scalars_fr, n, out);
}

extern "C" int cuzk_gpu_g2_msm_dev_fr(struct cuzk_gpu_msm_ctx *ctx,
                                      const struct cuzk_gpu_bases *bases, size_t offset,
                                      const void *dev_scalars_fr, size_t n, cuzk_g2 *out) {
    return msm_dev_fr<g2_group>(ctx, bases, offset, dev_scalars_fr, n, out);
}

// ---- batch multiplication -----------------------------------------------------------------------

// Device buffers freed on every return path.
struct dev_buffers {
    std::vector<void *> p;
    ~dev_buffers() {
        for (void *q : p) (void)cudaFree(q);
    }
    template <class T> int alloc(T **out, size_t bytes) {
        void *q = nullptr;
        CU_TRY(cudaMalloc(&q, bytes ? bytes : 16));
        p.push_back(q);
        *out = static_cast<T *>(q);
        return CUZK_OK;
    }
};

template <class G>
static int batch_mul(int device, const typename G::host_aff *base, const cuzk_fr *scalars, size_t n,
                     typename G::host_aff *out) {
    using F = typename G::F;
    TRY(check_device(device));
    if (!base || (n && (!scalars || !out))) return set_error(CUZK_EINVAL, "NULL argument");
    if (n == 0) return CUZK_OK;
    const int w = MSM_FB_WINDOW;
    const size_t tlen = G::fb_len(w);
    std::vector<typename G::host_aff> table(tlen);
    if (G::fb_init(table.data(), base, w) != CUZK_OK)
        return set_error(CUZK_ENOMEM, "fixed-base table");
    CU_TRY(cudaSetDevice(device));
    const size_t chunk = std::min<size_t>(n, MSM_FB_CHUNK);
    dev_buffers d;
    aff_mem<F> *dtable = nullptr, *dout = nullptr;
    fr_mem *dk = nullptr;
    TRY(d.alloc(&dtable, tlen * sizeof(aff_mem<F>)));
    TRY(d.alloc(&dk, chunk * sizeof(fr_mem)));
    TRY(d.alloc(&dout, chunk * sizeof(aff_mem<F>)));
    CU_TRY(cudaMemcpy(dtable, table.data(), tlen * sizeof(aff_mem<F>), cudaMemcpyHostToDevice));
    dev_exec x = {};
    x.stream = 0;
    for (size_t at = 0; at < n; at += chunk) {
        const size_t c = std::min(chunk, n - at);
        CU_TRY(cudaMemcpy(dk, scalars + at, c * sizeof(fr_mem), cudaMemcpyHostToDevice));
        TRY(x.launch(fr_canonical_body{dk, dk}, c));
        fb_mul_body<F> b = {dtable, reinterpret_cast<const uint64_t *>(dk), dout,
                            static_cast<unsigned>(w), static_cast<unsigned>((256 + w - 1) / w)};
        TRY(x.launch(b, c));
        CU_TRY(cudaMemcpy(out + at, dout, c * sizeof(aff_mem<F>), cudaMemcpyDeviceToHost));
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_batch_mul(int device, const cuzk_g1_affine *base, const cuzk_fr *scalars,
                                     size_t n, cuzk_g1_affine *out) {
    return batch_mul<g1_group>(device, base, scalars, n, out);
}

extern "C" int cuzk_gpu_g2_batch_mul(int device, const cuzk_g2_affine *base, const cuzk_fr *scalars,
                                     size_t n, cuzk_g2_affine *out) {
    return batch_mul<g2_group>(device, base, scalars, n, out);
}

// ---- device arithmetic checks -------------------------------------------------------------------

static size_t fp_op_bytes(int op) { return fp_op_is_fp2(op) ? sizeof(fp2_mem) : sizeof(fp_mem); }

extern "C" int cuzk_gpu_fp_eval(int device, enum cuzk_gpu_fp_op op, const void *a, const void *b,
                                void *out, size_t n) {
    TRY(check_device(device));
    if (op < CUZK_GPU_FP_ADD || op > CUZK_GPU_FP2_SQR || !a || !out)
        return set_error(CUZK_EINVAL, "bad eval arguments");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(device));
    const size_t bytes = n * fp_op_bytes(op);
    dev_buffers d;
    void *da = nullptr, *db = nullptr, *dout = nullptr;
    TRY(d.alloc(&da, bytes));
    TRY(d.alloc(&db, bytes));
    TRY(d.alloc(&dout, bytes));
    CU_TRY(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(db, b ? b : a, bytes, cudaMemcpyHostToDevice));
    dev_exec x = {};
    TRY(x.launch(fp_eval_body{static_cast<int>(op), da, db, dout}, n));
    CU_TRY(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

template <class G>
static int add_eval(int device, const typename G::host_aff *a, const typename G::host_aff *b,
                    typename G::host_jac *sum, typename G::host_jac *dbl_out, size_t n) {
    using F = typename G::F;
    TRY(check_device(device));
    if (n && (!a || !b || !sum || !dbl_out)) return set_error(CUZK_EINVAL, "NULL argument");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(device));
    dev_buffers d;
    aff_mem<F> *da = nullptr, *db = nullptr;
    jac_mem<F> *ds = nullptr, *dd = nullptr;
    TRY(d.alloc(&da, n * sizeof *da));
    TRY(d.alloc(&db, n * sizeof *db));
    TRY(d.alloc(&ds, n * sizeof *ds));
    TRY(d.alloc(&dd, n * sizeof *dd));
    CU_TRY(cudaMemcpy(da, a, n * sizeof *da, cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(db, b, n * sizeof *db, cudaMemcpyHostToDevice));
    dev_exec x = {};
    TRY(x.launch(add_eval_body<F>{da, db, ds, dd}, n));
    CU_TRY(cudaMemcpy(sum, ds, n * sizeof *ds, cudaMemcpyDeviceToHost));
    CU_TRY(cudaMemcpy(dbl_out, dd, n * sizeof *dd, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_add_eval(int device, const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                                    cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    return add_eval<g1_group>(device, a, b, sum_out, dbl_out, n);
}

extern "C" int cuzk_gpu_g2_add_eval(int device, const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                                    cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    return add_eval<g2_group>(device, a, b, sum_out, dbl_out, n);
}

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

extern "C" int cuzk_gpu_twin_fp(enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out,
                                size_t n) {
    if (op < CUZK_GPU_FP_ADD || op > CUZK_GPU_FP2_SQR || (n && (!a || !out))) return CUZK_EINVAL;
    host_exec x;
    return x.launch(fp_eval_body{static_cast<int>(op), a, b ? b : a, out}, n);
}

extern "C" int cuzk_gpu_twin_fp_inv(int degree, const void *a, void *out, size_t n) {
    if ((degree != 1 && degree != 2) || (n && (!a || !out))) return CUZK_EINVAL;
    host_exec x;
    return x.launch(fp_inv_body{degree, a, out}, n);
}

extern "C" int cuzk_gpu_twin_g1_add(const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                                    cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    host_exec x;
    return x.launch(add_eval_body<fp_t>{reinterpret_cast<const aff_mem<fp_t> *>(a),
                                        reinterpret_cast<const aff_mem<fp_t> *>(b),
                                        reinterpret_cast<jac_mem<fp_t> *>(sum_out),
                                        reinterpret_cast<jac_mem<fp_t> *>(dbl_out)},
                    n);
}

extern "C" int cuzk_gpu_twin_g2_add(const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                                    cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    host_exec x;
    return x.launch(add_eval_body<fp2_t>{reinterpret_cast<const aff_mem<fp2_t> *>(a),
                                         reinterpret_cast<const aff_mem<fp2_t> *>(b),
                                         reinterpret_cast<jac_mem<fp2_t> *>(sum_out),
                                         reinterpret_cast<jac_mem<fp2_t> *>(dbl_out)},
                    n);
}

extern "C" int cuzk_gpu_twin_digits(const cuzk_scalar *s, unsigned window, int32_t *digits) {
    if (!s || !digits || window < MSM_MIN_WINDOW || window > MSM_MAX_WINDOW) return CUZK_EINVAL;
    uint64_t k[5], t[5];
    msm_digit_offset(k, window);
    msm_offset_scalar(t, s->l, k);
    const unsigned nw = msm_window_count(window);
    for (unsigned w = 0; w < nw; w++) digits[w] = msm_digit(t, window, w);
    return static_cast<int>(nw);
}

extern "C" unsigned cuzk_gpu_twin_auto_window(size_t n) { return msm_auto_window(n); }

// Host memory laid out as a context's scratch.
struct host_mem {
    msm_mem mm = {};
    std::vector<void *> p;
    ~host_mem() {
        for (void *q : p) std::free(q);
    }
    template <class T> bool alloc(T **out, size_t bytes) {
        void *q = std::calloc(1, bytes ? bytes : 16);
        if (!q) return false;
        p.push_back(q);
        *out = static_cast<T *>(q);
        return true;
    }
    bool init(const msm_sizes &sz) {
        const msm_bytes b = msm_bytes_for(sz);
        return alloc(&mm.scalars, b.scalars) && alloc(&mm.idx, b.lists) &&
               alloc(&mm.ones, b.lists) && alloc(&mm.rest, b.lists) &&
               alloc(&mm.flag_one, b.flags) && alloc(&mm.flag_rest, b.flags) &&
               alloc(&mm.counts, b.counts) && alloc(&mm.keys, b.sort) && alloc(&mm.vals, b.sort) &&
               alloc(&mm.buckets, b.buckets) && alloc(&mm.items, b.items) &&
               alloc(&mm.heads, b.heads) && alloc(&mm.win, b.win);
    }
};

template <class G>
static int twin_msm(const cuzk_gpu_twin_shape *shape, const typename G::host_aff *bases,
                    const cuzk_scalar *scalars, size_t n, const cuzk_gpu_msm_tuning *tune,
                    typename G::host_jac *out, struct cuzk_gpu_twin_report *report) {
    if (!shape || !out || (n && (!bases || !scalars))) return CUZK_EINVAL;
    const size_t max_n = shape->max_n ? shape->max_n : n;
    if (n > max_n || max_n > MSM_MAX_N) return CUZK_EINVAL;
    if (n == 0) {
        G::set_inf(out);
        return CUZK_OK;
    }
    const msm_sizes sz =
        msm_sizes_for(max_n, shape->sort_budget ? shape->sort_budget : MSM_SORT_BUDGET,
                      shape->acc_threads ? shape->acc_threads : MSM_ACC_THREADS);
    cuzk_gpu_msm_tuning t = {0, 0};
    if (tune) t = *tune;
    host_mem h;
    if (!h.init(sz)) return CUZK_ENOMEM;
    std::memcpy(h.mm.scalars, scalars, n * sizeof(cuzk_scalar));
    host_exec x;
    msm_report rep;
    TRY(msm_run<G>(x, h.mm, sz, reinterpret_cast<const aff_mem<typename G::F> *>(bases), n, t, out,
                   &rep));
    if (report) {
        report->window = rep.c;
        report->windows = rep.nw;
        report->windows_per_batch = rep.wb;
        report->windowed = rep.m;
        report->ones = rep.ones;
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_twin_g1_msm(const struct cuzk_gpu_twin_shape *shape,
                                    const cuzk_g1_affine *bases, const cuzk_scalar *scalars,
                                    size_t n, const struct cuzk_gpu_msm_tuning *tune, cuzk_g1 *out,
                                    struct cuzk_gpu_twin_report *report) {
    return twin_msm<g1_group>(shape, bases, scalars, n, tune, out, report);
}

extern "C" int cuzk_gpu_twin_g2_msm(const struct cuzk_gpu_twin_shape *shape,
                                    const cuzk_g2_affine *bases, const cuzk_scalar *scalars,
                                    size_t n, const struct cuzk_gpu_msm_tuning *tune, cuzk_g2 *out,
                                    struct cuzk_gpu_twin_report *report) {
    return twin_msm<g2_group>(shape, bases, scalars, n, tune, out, report);
}

template <class G>
static int twin_batch_mul(const typename G::host_aff *base, const cuzk_fr *scalars, size_t n,
                          typename G::host_aff *out) {
    using F = typename G::F;
    if (!base || (n && (!scalars || !out))) return CUZK_EINVAL;
    const int w = MSM_FB_WINDOW;
    std::vector<typename G::host_aff> table(G::fb_len(w));
    if (G::fb_init(table.data(), base, w) != CUZK_OK) return CUZK_ENOMEM;
    std::vector<cuzk_scalar> k(n);
    for (size_t i = 0; i < n; i++) cuzk_scalar_from_fr(&k[i], &scalars[i]);
    fb_mul_body<F> b = {reinterpret_cast<const aff_mem<F> *>(table.data()),
                        reinterpret_cast<const uint64_t *>(k.data()),
                        reinterpret_cast<aff_mem<F> *>(out), static_cast<unsigned>(w),
                        static_cast<unsigned>((256 + w - 1) / w)};
    host_exec x;
    return x.launch(b, n);
}

extern "C" int cuzk_gpu_twin_g1_batch_mul(const cuzk_g1_affine *base, const cuzk_fr *scalars,
                                          size_t n, cuzk_g1_affine *out) {
    return twin_batch_mul<g1_group>(base, scalars, n, out);
}

extern "C" int cuzk_gpu_twin_g2_batch_mul(const cuzk_g2_affine *base, const cuzk_fr *scalars,
                                          size_t n, cuzk_g2_affine *out) {
    return twin_batch_mul<g2_group>(base, scalars, n, out);
}
