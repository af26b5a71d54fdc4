// The plan of an MSM, part of the GPU MSM module (see msm_common.cuh): the module's tunables,
// the signed window digits of a scalar, the sizes of a context's scratch memory and the plan of
// one windowed pass (window width, sort batches, reduction groups).
//
// Promise: sizes and plans depend only on the counts and overrides they are given, never on the
// scalars; a plan made by msm_plan_for for m <= max_n entries fits the scratch msm_sizes_for
// sized for max_n (msm_bytes_for gives its bytes). Host code, pure and reentrant (msm_plan.cu),
// but for msm_offset_scalar and msm_digit, which the digits kernel runs too.
#ifndef CUZK_GPU_CUDA_MSM_PLAN_CUH
#define CUZK_GPU_CUDA_MSM_PLAN_CUH

#include "gpu/cuda/msm_common.cuh"

// ---- tunables -----------------------------------------------------------------------------------

#define MSM_MIN_WINDOW 8           // widest-window bounds the tuning accepts (contract: 8..24)
#define MSM_MAX_WINDOW 24          //   and the widest window the cost model picks
#define MSM_MAX_WINDOWS 32         // ceil(256 / MSM_MIN_WINDOW)
#ifndef MSM_SORT_BUDGET            // a build may set it (-D) for comparisons
#define MSM_SORT_BUDGET (1u << 25) // sorted (key, value) pairs a context holds for a batch
#endif
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
// The cost model of the automatic window layout (see msm_layout), in mixed additions: each
// point costs one per window, each bucket about MSM_COST_BUCKET / 10 (two general additions in
// the reduction and the bucket's traffic), each window a fixed MSM_COST_WINDOW (its sort call
// and launches). On the H200 test machine a mixed addition of the accumulation takes 0.44 ns and
// a bucket of the reduction 1.8 ns with 13 x 2^19 buckets, 1.25 ns with 12 x 2^21 (a larger
// reduction fills the GPU better): 3.5 sits between them. With layouts of nw windows of two
// adjacent widths summing to 256 bits it picks 13 windows (19 and 20 bits) at 2^24 and 2^25 and
// 12 (21 and 22 bits) at 2^26 and 2^27: the window counts measured fastest there with windows
// of one width (20 and 22 bits: 2^26 took 411.1 ms against 420.8 with 20 bits).
#define MSM_COST_BUCKET 35
#define MSM_COST_WINDOW 30000
// Scalars per chunk of an upload from host memory: a context has two pinned staging buffers of
// this many scalars (8 MiB each), so that the host copies a chunk into one while the other's
// transfer runs (see msm.cu's DESIGN).
#define MSM_UPLOAD_CHUNK (1u << 18)
#define MSM_FB_WINDOW 10              // batch multiplication: fixed-base table window
#define MSM_FB_CHUNK (1u << 22)       // scalars per batch-multiplication chunk
#define MSM_ONES_SLOT MSM_MAX_WINDOWS // the window-sum slot holding the sum of the ones

// The largest bucket type: buffers shared by both groups are sized with it.
using xyzz_big = xyzz_mem<fp2_t>;

// ---- window layout and signed digits ------------------------------------------------------------
// A layout cuts the 256 bits of a scalar into nw windows of as equal widths as sum to 256: the
// low nw - wide windows are c bits wide, the top `wide` windows c + 1 bits (c nw + wide = 256,
// wide < nw). Window w starts at bit pos(w). msm_layout_for(W) takes the fewest windows no wider
// than W bits: nw = ceil(256 / W), so its widest window is at most W bits, and has the fewest
// buckets of any nw windows that cover 256 bits (20-bit windows, 13 of them covering 260 bits,
// become 4 of 19 bits and 9 of 20: 5.8 M buckets instead of 6.8 M).
struct msm_layout {
    unsigned nw, c, wide;
    CUZK_HD unsigned first_wide() const { return nw - wide; }
    CUZK_HD unsigned width(unsigned w) const { return c + (w >= first_wide() ? 1u : 0u); }
    CUZK_HD unsigned pos(unsigned w) const {
        return c * w + (w > first_wide() ? w - first_wide() : 0u);
    }
    CUZK_HD unsigned widest() const { return c + (wide ? 1u : 0u); }
};

// The layout of the fewest windows no wider than `window` bits (MSM_MIN_WINDOW..MSM_MAX_WINDOW).
CUZK_HD msm_layout msm_layout_for(unsigned window) {
    msm_layout l;
    l.nw = (256 + window - 1) / window;
    l.c = 256 / l.nw;
    l.wide = 256 - l.c * l.nw;
    return l;
}

// A scalar s < 2^255 is written as s = sum_(w < nw) d_w 2^pos(w) with digits
// -(2^(c_w-1) - 1) <= d_w <= 2^(c_w-1) for window w of c_w bits, as follows: t = s + K with
// K = sum_w (2^(c_w-1) - 1) 2^pos(w), and d_w = (bits [pos(w), pos(w) + c_w) of t) -
// (2^(c_w-1) - 1). Every digit is local (no carry chain between windows: the addition of K did
// the carrying), so each thread computes its digits independently. t fits 256 bits: K = 2^255 -
// 1 - sum_(w > 0) 2^(pos(w) - 1) < 2^255 and s < 2^255. A digit's bucket is |d| (1..2^(c_w-1)),
// its sign negates the base.

// K for a layout, as five 64-bit limbs (the fifth is zero: kept for msm_offset_scalar's carry).
void msm_digit_offset(uint64_t k[5], const msm_layout &l);

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

// The digit of the window of `width` bits at bit pos of t (= s + K).
CUZK_HD int msm_digit(const uint64_t t[5], unsigned pos, unsigned width) {
    const unsigned limb = pos / 64, off = pos % 64;
    uint64_t v = t[limb] >> off;
    if (off + width > 64 && limb + 1 < 5) v |= t[limb + 1] << (64 - off);
    v &= (static_cast<uint64_t>(1) << width) - 1;
    return static_cast<int>(v) - ((1 << (width - 1)) - 1);
}

// ---- sizes and plans ----------------------------------------------------------------------------

// The scratch of a context for MSMs of up to max_n points (both groups: point buffers are sized
// for G2). sort_entries pairs hold a batch's windows (wb + 1 buffers of one window each: see
// run_windows); bucket_cap G1 buckets (half as many G2 buckets) hold the buckets of every window
// of an MSM of max_n G1 points at its automatic layout, so that one reduction serves them all;
// item_cap items each of the four reduction arrays (acc and run, two levels: the first level of
// a reduction of every window of that MSM, narrow windows padded to the wide ones); head_cap chunk
// heads, and as many again for the fix-up tree's block sums (see fixtree_body).
struct msm_sizes {
    size_t max_n, sort_entries, bucket_cap, item_cap, head_cap, acc_threads;
};

msm_sizes msm_sizes_for(size_t max_n, size_t sort_budget, size_t acc_threads);

// Bytes of every scratch array (device or twin host memory alike).
struct msm_bytes {
    size_t scalars, lists, flags, counts, sort, buckets, items, heads, win;
    size_t total() const {
        return scalars + 3 * lists + 2 * flags + counts + 2 * sort + buckets + items + heads + win;
    }
};

msm_bytes msm_bytes_for(const msm_sizes &s);

// The scratch arrays of a context (device memory) or of a twin run (host memory).
struct msm_mem {
    uint64_t *scalars;             // max_n canonical scalars, four limbs each
    uint32_t *idx, *ones, *rest;   // max_n each: 0..n-1, then the two selected lists
    uint8_t *flag_one, *flag_rest; // max_n each
    int64_t *counts;               // the two list lengths
    uint32_t *keys, *vals;         // sort_entries each
    void *buckets, *items, *heads, *win;
};

// One windowed pass over m entries: the layout L, its windows in batches of at most wb (sorted
// and accumulated together; a batch holds windows of one width: the narrow windows
// [0, L.first_wide()) come first, then the wide ones), and cap buckets of F in the bucket space,
// which consecutive batches fill until the next one does not fit it, or its windows' first
// reduction level (2^(c-1-MSM_RED_LOG) items per window for the widest width c among them) would
// not fit the item_cap items; then those windows are reduced together (wb windows of the widest
// width fit both). A batch of k windows is accumulated by chunks_per_window(k) chunks per window.
struct msm_plan {
    msm_layout L;
    unsigned wb;
    size_t cap, item_cap, m, acc_threads;
    size_t chunks_per_window(unsigned k) const {
        return std::max<size_t>(1, std::min(acc_threads / k, m)); // k cpw <= max(acc_threads, k)
    }
};

// The plan for points whose bucket is bucket_bytes bytes (G1 or G2).
// forced_window (0: automatic) bounds the widest window as msm_layout_for does.
msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s, size_t bucket_bytes);

#endif
