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

#define MSM_MIN_WINDOW 8           // window widths the tuning accepts (contract: 8..22)
#define MSM_MAX_WINDOW 22          //   and the widest the cost model picks
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
// window, each bucket about MSM_COST_BUCKET / 10 (two general additions in the reduction and
// the bucket's traffic), each window a fixed MSM_COST_WINDOW (its sort call and launches). On
// the H200 test machine a mixed addition of the accumulation takes 0.44 ns and a bucket of the
// reduction 1.8 ns with 13 x 2^19 buckets, 1.25 ns with 12 x 2^21 (a larger reduction fills the
// GPU better): 3.5 sits between them. It picks 11 bits at 2^10, 13 at 2^16, 16 at 2^20, 20 at
// 2^24 and 2^25, and 22 at 2^26 and 2^27 (12 windows instead of 13): the widths measured fastest
// at 2^24, 2^26 (411.1 ms against 420.8 with 20 bits) and 2^27.
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

// ---- signed window digits -----------------------------------------------------------------------
// A scalar s < 2^255 is written as s = sum_(w < nw) d_w 2^(c w) with digits
// -(2^(c-1) - 1) <= d_w <= 2^(c-1), nw = ceil(256 / c), as follows: t = s + K with
// K = sum_w (2^(c-1) - 1) 2^(c w), and d_w = (bits [c w, c w + c) of t) - (2^(c-1) - 1). Every
// digit is local (no carry chain between windows: the addition of K did the carrying), so each
// thread computes its digits independently. t fits c nw bits: 2^(c nw) - K exceeds
// 2^(c nw - 1) >= 2^255 > s. A digit's bucket is |d| (1..2^(c-1)), its sign negates the base.

// K for window width c, as five 64-bit limbs (c nw <= 275 bits).
void msm_digit_offset(uint64_t k[5], unsigned c);

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
msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s, size_t bucket_bytes);

#endif
