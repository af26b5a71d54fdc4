// The plan of an MSM (contract: msm_plan.cuh): the digit offset, the window width the cost
// model picks, the sizes of a context's scratch and the plan of a windowed pass; and the host
// twins of the digits and of the width (src/gpu/gpu_twin.h). Host code only.
#define CUZK_CUDA_MODULE "msm_plan.cu"
#include "gpu/cuda/msm_plan.cuh"

static unsigned msm_window_count(unsigned c) { return (256 + c - 1) / c; }

void msm_digit_offset(uint64_t k[5], unsigned c) {
    for (int i = 0; i < 5; i++) k[i] = 0;
    const unsigned nw = msm_window_count(c);
    const uint64_t v = (static_cast<uint64_t>(1) << (c - 1)) - 1;
    for (unsigned w = 0; w < nw; w++) {
        const unsigned pos = c * w, limb = pos / 64, off = pos % 64;
        k[limb] |= v << off;
        if (off + c > 64) k[limb + 1] |= v >> (64 - off); // the windows do not overlap
    }
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

msm_sizes msm_sizes_for(size_t max_n, size_t sort_budget, size_t acc_threads) {
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

msm_bytes msm_bytes_for(const msm_sizes &s) {
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

msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s, size_t bucket_bytes) {
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

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

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
