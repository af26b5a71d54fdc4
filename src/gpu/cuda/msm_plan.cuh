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
#define MSM_MIN_BUCKETS (1u << 15)   // bucket space of the smallest context
#define MSM_ACC_THREADS (1u << 17)   // accumulation chunks per batch (about: whole waves on a GPU)
#define MSM_RED_LOG 5                // the reduction's first level: 2^5 buckets per thread
#define MSM_RED_LOG_UP 3             //   the levels above it: 2^3 items per thread
#define MSM_MIN_ITEMS (1u << 12)     // reduction buffer of the smallest context
#define MSM_BIT_PCT 50               // the bit-witness path when more than this % is 0 or 1
#define MSM_TREE_K 32                // the sum of the ones' batch-affine levels: pairs per thread
#define MSM_TREE_MIN_THREADS 50000   //   (one inversion for them), a level while it has this many
#define MSM_THREADS 128              // threads per block of every MSM kernel
#ifndef MSM_PRESUM_K                 // a build may set it (-D) for comparisons
#define MSM_PRESUM_K 32              // the presum level (presum_body): pairs per thread,
#endif                               //   one inversion for them
#define MSM_PRESUM_MIN_THREADS 50000 // the presum level (presum_body) runs when a set gives this
#define MSM_PRESUM_MIN_RUN 4       //   many threads and its runs average at least this many entries
#define MSM_MAX_N 0x1fffffffu      // indices keep a sign in bit 31, "upper" in 30, "presum" in 29
#define MSM_SIGN_BIT 0x80000000u   // a sorted value: the base negated
#define MSM_UPPER_BIT 0x40000000u  //   the base's folded multiple 2^T P (msm_layout)
#define MSM_PRESUM_BIT 0x20000000u //   a point of the presum space (presum_body), not a base
#define MSM_IDX_MASK 0x1fffffffu   //   the base's (or presum point's) index
#define MSM_MAX_EVENTS 160         // timing marks per MSM (a few per batch)
#define MSM_FIX_LOG 2              // the fix-up tree: blocks of 4^l chunks at level l,
#define MSM_FIX_LEVELS 6           //   l = 1..6 (see fixtree_body)
// The register bounds of the G1 and G2 summing loops (see msm_min_blocks); a build may set them
// (-D).
#ifndef MSM_ACC_MIN_BLOCKS_G1
#define MSM_ACC_MIN_BLOCKS_G1 4
#endif
#ifndef MSM_ACC_MIN_BLOCKS_G2
#define MSM_ACC_MIN_BLOCKS_G2 3
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
// The priority of a context's streams: 1 the device's highest, 0 the default (see ctx_init in
// msm.cu; a build may set it for comparisons).
#ifndef MSM_STREAM_HIGH
#define MSM_STREAM_HIGH 1
#endif
#define MSM_FB_WINDOW 10              // batch multiplication: fixed-base table window
#define MSM_FB_CHUNK (1u << 22)       // scalars per batch-multiplication chunk
#define MSM_ONES_SLOT MSM_MAX_WINDOWS // the window-sum slot holding the sum of the ones

// The largest bucket type: buffers shared by both groups are sized with it.
using xyzz_big = xyzz_mem<fp2_t>;

// ---- window layout and signed digits ------------------------------------------------------------
// A layout cuts the 256 bits of a scalar into nw windows of as equal widths as sum to 256: nw -
// wide windows of c bits ("narrow") and `wide` windows of c + 1 bits (c nw + wide = 256, wide <
// nw). msm_layout_for(W) takes the fewest windows no wider than W bits: nw = ceil(256 / W), so
// its widest window is at most W bits, and has the fewest buckets of any nw windows that cover
// 256 bits (20-bit windows, 13 of them covering 260 bits, become 4 of 19 bits and 9 of 20: 5.8 M
// buckets instead of 6.8 M).
//
// The windows' buckets are kept in "sets": a set is one window's 2^(width - 1) buckets, or in a
// folded layout (fold = 1) those of a pair of windows of one width T bits apart, T = shift():
// over bases P_i and their multiples Q_i = 2^T P_i (precomputed once, cuzk_gpu_bases_fold), the
// upper window's digit d of s_i at bit pos + T goes with Q_i into the lower one's buckets, since
// d 2^(pos + T) P_i = d 2^pos Q_i. A folded layout thus has about half the sets (and buckets
// to reduce) of the plain layout of as many windows, which lets it take wider windows (fewer
// additions) for the same reduction.
//   plain   set s = window s, narrow ones first: window s starts at bit pos(s).
//   folded  with N0 = nw - wide narrow windows and N1 = wide wide ones, a = N0 / 2 and b = N1 / 2
//           pairs of each and sn = N0 % 2, sw = N1 % 2 single windows (N0 and N1 are never both
//           odd: c nw + N1 = 256), the windows lie from bit 0 up as: the pairs' lower windows (a
//           narrow, b wide), the singles (sn narrow, sw wide), the pairs' upper windows (a
//           narrow, b wide): T is the width of the first two groups. The sets are, narrow ones
//           first: the a narrow pairs, the narrow single, the b wide pairs, the wide single;
//           pos(s) is the set's lower (or only) window's bit.
// Sets [0, first_wide()) are c bits wide, the others c + 1.
struct msm_layout {
    unsigned nw, c, wide, fold;
    CUZK_HD unsigned n0() const { return nw - wide; }
    CUZK_HD unsigned sets() const { return fold ? (n0() + 1) / 2 + (wide + 1) / 2 : nw; }
    CUZK_HD unsigned first_wide() const { return fold ? (n0() + 1) / 2 : n0(); }
    CUZK_HD unsigned width(unsigned s) const { return c + (s >= first_wide() ? 1u : 0u); }
    CUZK_HD unsigned pos(unsigned s) const {
        const unsigned fw = first_wide();
        if (!fold) return c * s + (s > fw ? s - fw : 0u);
        const unsigned a = n0() / 2, sn = n0() % 2, b = wide / 2;
        const unsigned singles = a * c + b * (c + 1);      // bit of the first single window
        if (s < a) return s * c;                           // a narrow pair
        if (s < fw) return singles;                        // the narrow single
        if (s < fw + b) return a * c + (s - fw) * (c + 1); // a wide pair
        return singles + sn * c;                           // the wide single
    }
    CUZK_HD bool paired(unsigned s) const {
        if (!fold) return false;
        const unsigned a = n0() / 2, fw = first_wide();
        return s < a || (s >= fw && s < fw + wide / 2);
    }
    CUZK_HD unsigned shift() const { // T: the bit distance of a pair's windows
        const unsigned a = n0() / 2, b = wide / 2;
        return fold ? a * c + b * (c + 1) + (n0() % 2) * c + (wide % 2) * (c + 1) : 0u;
    }
    CUZK_HD unsigned widest() const { return c + (wide ? 1u : 0u); }
};

// The layout of the fewest windows no wider than `window` bits (MSM_MIN_WINDOW..MSM_MAX_WINDOW),
// folded or not.
CUZK_HD msm_layout msm_layout_for(unsigned window, unsigned fold = 0) {
    msm_layout l;
    l.nw = (256 + window - 1) / window;
    l.c = 256 / l.nw;
    l.wide = 256 - l.c * l.nw;
    l.fold = fold;
    return l;
}

// A scalar s < 2^255 is written as s = sum_(w < nw) d_w 2^pos(w) with digits
// -(2^(c_w-1) - 1) <= d_w <= 2^(c_w-1) for window w of c_w bits, as follows: t = s + K with
// K = sum_w (2^(c_w-1) - 1) 2^pos(w), and d_w = (bits [pos(w), pos(w) + c_w) of t) -
// (2^(c_w-1) - 1). Every digit is local (no carry chain between windows: the addition of K did
// the carrying), so each thread computes its digits independently. t fits 256 bits: K = 2^255 -
// 1 - sum_(w > 0) 2^(pos(w) - 1) < 2^255 and s < 2^255. A digit's bucket is |d| (1..2^(c_w-1)),
// its sign negates the base. (Windows in bit order, whatever their sets: a folded pair's upper
// window starts at pos(s) + T.)

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
// A context sized for folded MSMs of the folded layout of fold bits (0: none) also holds a
// paired set (2 max_n entries and a spare of as many), and that layout's buckets and items.
// A context with presums (presum 1) holds presum_cap G1 affine points (half as many G2 points),
// the pair sums of a G1 batch's sets (half its entries: the sort space less a spare; a G2
// batch's first sets, as many as fit); with presum 2 twice as many, the pair sums of a G2
// batch's sets; and the flags of its largest set (presum_flags bytes); 0 without (see
// presum_body).
struct msm_sizes {
    size_t max_n, sort_entries, bucket_cap, item_cap, head_cap, acc_threads, presum_cap,
        presum_flags;
    unsigned fold;
};

msm_sizes msm_sizes_for(size_t max_n, size_t sort_budget, size_t acc_threads,
                        unsigned fold_window = 0, unsigned presum = 0);

// The automatic widest window of a folded layout over n bases (what cuzk_gpu_bases_fold takes
// for window 0): the cost model's choice with the folded layouts' buckets.
unsigned msm_fold_window(size_t n);

// Bytes of every scratch array (device or twin host memory alike).
struct msm_bytes {
    size_t scalars, lists, flags, counts, sort, buckets, items, heads, win, presum, presum_flags;
    size_t total() const {
        return scalars + 3 * lists + 2 * flags + counts + 2 * sort + buckets + items + heads + win +
               presum + presum_flags;
    }
};

msm_bytes msm_bytes_for(const msm_sizes &s);

// The scratch arrays of a context (device memory) or of a twin run (host memory).
struct msm_mem {
    uint64_t *scalars;             // max_n canonical scalars, four limbs each
    uint32_t *idx, *ones, *rest;   // max_n each: 0..n-1, then the two selected lists
    uint8_t *flag_one, *flag_rest; // max_n each
    int64_t *counts;               // the two list lengths, then a batch's sets' entries after
                                   //   the presum level (MSM_MAX_WINDOWS)
    uint32_t *keys, *vals;         // sort_entries each
    void *buckets, *items, *heads, *win;
    void *presum;   // presum_cap G1 affine points (NULL: no presum level)
    uint8_t *pflag; // presum_flags
};

// One windowed pass over m entries: the layout L, its sets in batches (sorted and accumulated
// together; a batch holds sets of one width and kind: the narrow sets [0, L.first_wide()) come
// first, then the wide ones, each as the paired sets, then the single one: see run_windows) of
// at most wb single sets (m entries each) or wb2 paired ones (2 m entries each: the lower
// window's digits with the bases, the upper's with their multiples), and cap buckets of F in
// the bucket space, which consecutive batches fill until the next one does not fit it, or its
// sets' first reduction level (2^(c-1-MSM_RED_LOG) items per set for the widest width c among
// them) would not fit the item_cap items; then those sets are reduced together (a batch of the
// widest width fits both). A batch of k sets of em entries is accumulated by
// chunks_per_window(k, em) chunks per set.
struct msm_plan {
    msm_layout L;
    unsigned wb, wb2;
    size_t cap, item_cap, m, acc_threads;
    size_t chunks_per_window(unsigned k, size_t em) const {
        return std::max<size_t>(1, std::min(acc_threads / k, em)); // k cpw <= max(acc_threads, k)
    }
};

// The plan for points whose bucket is bucket_bytes bytes (G1 or G2). forced_window (0:
// automatic) bounds the widest window of the plain layout as msm_layout_for does. fold_window
// (0: none) is the layout of the bases' folded multiples: the pass may take that folded layout
// when the context's scratch holds it (its sort space a paired set and a spare, its bucket and
// item spaces a set of the widest width: sets that do not fit together are reduced in several
// groups); fold_mode 0 takes it when the cost model prices it below the plain layout for m
// scalars (a table made for many bases is too wide for a few: the bit path leaves few), 1
// whenever it fits, -1 never.
msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s, size_t bucket_bytes,
                      unsigned fold_window = 0, int fold_mode = 0);

#endif
