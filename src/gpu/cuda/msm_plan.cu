// The plan of an MSM (contract: msm_plan.cuh): the digit offset, the window width the cost
// model picks, the sizes of a context's scratch and the plan of a windowed pass; and the host
// twins of the digits and of the width (src/gpu/gpu_twin.h). Host code only.
#define CUZK_CUDA_MODULE "msm_plan.cu"
#include "gpu/cuda/msm_plan.cuh"

// K's term for the window of c bits at bit pos.
static void add_offset(uint64_t k[5], unsigned pos, unsigned c) {
    const unsigned limb = pos / 64, off = pos % 64;
    const uint64_t v = (static_cast<uint64_t>(1) << (c - 1)) - 1;
    k[limb] |= v << off;
    if (off + c > 64) k[limb + 1] |= v >> (64 - off); // the windows do not overlap
}

void msm_digit_offset(uint64_t k[5], const msm_layout &l) {
    for (int i = 0; i < 5; i++) k[i] = 0;
    for (unsigned s = 0; s < l.sets(); s++) {
        add_offset(k, l.pos(s), l.width(s));
        if (l.paired(s)) add_offset(k, l.pos(s) + l.shift(), l.width(s));
    }
}

// The buckets of sets [a, b) of a layout (2^(c_s - 1) each).
static size_t layout_buckets(const msm_layout &l, unsigned a, unsigned b) {
    size_t n = 0;
    for (unsigned s = a; s < b; s++) n += static_cast<size_t>(1) << (l.width(s) - 1);
    return n;
}

// The cost model's price of a layout for m scalars, in mixed additions: one per window and
// scalar (m counts the scalars, not the 2 m entries of a paired set: the additions are one per
// window and scalar either way), MSM_COST_WINDOW per set, MSM_COST_BUCKET / 10 per bucket.
static double layout_cost(const msm_layout &l, size_t m) {
    return l.nw * static_cast<double>(m) + l.sets() * static_cast<double>(MSM_COST_WINDOW) +
           MSM_COST_BUCKET / 10.0 * static_cast<double>(layout_buckets(l, 0, l.sets()));
}

// The automatic widest window for m points: the cost model's minimum over the layouts of
// ceil(256 / MSM_MAX_WINDOW) .. ceil(256 / MSM_MIN_WINDOW) windows (the fewer windows first:
// ties keep the wider), plain or folded.
static unsigned auto_window(size_t m, unsigned fold) {
    unsigned best = MSM_MAX_WINDOW;
    double best_cost = 0;
    for (unsigned w = MSM_MAX_WINDOW; w >= MSM_MIN_WINDOW; w--) {
        const msm_layout l = msm_layout_for(w, fold);
        if (l.widest() != w) continue; // the same layout as a wider bound's
        const double cost = layout_cost(l, m);
        if (w == MSM_MAX_WINDOW || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

static unsigned msm_auto_window(size_t m) { return auto_window(m, 0); }

unsigned msm_fold_window(size_t n) { return auto_window(n, 1); }

msm_sizes msm_sizes_for(size_t max_n, size_t sort_budget, size_t acc_threads, unsigned fold_window,
                        unsigned presum) {
    msm_sizes s;
    const msm_layout l = msm_layout_for(msm_auto_window(max_n));
    size_t wb = sort_budget / max_n;
    wb = wb < 1 ? 1 : (wb > l.nw ? l.nw : wb);
    s.max_n = max_n;
    s.fold = fold_window;
    s.sort_entries = (wb + 1) * max_n;
    s.bucket_cap =
        std::max<size_t>(2 * static_cast<size_t>(MSM_MIN_BUCKETS), layout_buckets(l, 0, l.nw));
    // the first level's items of a reduction: a narrow window's are as many as a wide one's
    // (its upper half the identity), so every window of the layout counts as a wide one
    size_t padded = static_cast<size_t>(l.nw) << (l.widest() - 1);
    if (fold_window) {
        const msm_layout f = msm_layout_for(fold_window, 1);
        s.sort_entries = std::max(s.sort_entries, 4 * max_n); // a paired set and its spare
        s.bucket_cap = std::max(s.bucket_cap, layout_buckets(f, 0, f.sets()));
        padded = std::max(padded, static_cast<size_t>(f.sets()) << (f.widest() - 1));
    }
    s.item_cap = std::max<size_t>(MSM_MIN_ITEMS, std::max(s.bucket_cap, padded) >> MSM_RED_LOG);
    s.acc_threads = acc_threads;
    s.head_cap = acc_threads + MSM_MAX_WINDOWS;
    // the presum space: G1 points (presum 1) or as many bytes of G2 points (presum 2) for half
    // of a batch's entries (the sort space less the spare of its largest set), their indices
    // within MSM_IDX_MASK
    const size_t set_max = fold_window ? 2 * max_n : max_n;
    s.presum_cap =
        presum ? std::min<size_t>(presum * ((s.sort_entries - set_max) / 2), MSM_IDX_MASK) : 0;
    s.presum_flags = presum ? set_max : 0;
    return s;
}

msm_bytes msm_bytes_for(const msm_sizes &s) {
    msm_bytes b;
    b.scalars = s.max_n * sizeof(cuzk_scalar);
    b.lists = s.max_n * sizeof(uint32_t); // idx, ones, rest
    b.flags = s.max_n;                    // flag_one, flag_rest
    b.counts = (2 + MSM_MAX_WINDOWS) * sizeof(int64_t);
    b.sort = s.sort_entries * sizeof(uint32_t); // keys, values
    b.buckets = s.bucket_cap * sizeof(xyzz_mem<fp_t>);
    b.items = 4 * s.item_cap * sizeof(xyzz_big);
    b.heads = 2 * s.head_cap * sizeof(xyzz_big); // heads, then the fix-up tree
    b.win = (MSM_MAX_WINDOWS + 1) * sizeof(xyzz_big);
    b.presum = s.presum_cap * sizeof(aff_mem<fp_t>);
    b.presum_flags = s.presum_flags;
    return b;
}

msm_plan msm_plan_for(size_t m, unsigned forced_window, const msm_sizes &s, size_t bucket_bytes,
                      unsigned fold_window, int fold_mode) {
    msm_plan p;
    const size_t cap = s.bucket_cap * sizeof(xyzz_mem<fp_t>) / bucket_bytes; // buckets of F
    unsigned w = forced_window ? forced_window : msm_auto_window(m);
    w = w < MSM_MIN_WINDOW ? MSM_MIN_WINDOW : (w > MSM_MAX_WINDOW ? MSM_MAX_WINDOW : w);
    msm_layout l = msm_layout_for(w);
    // a layout whose widest window's buckets do not fit the context is narrowed (the result is
    // the same)
    while (l.widest() > MSM_MIN_WINDOW && (static_cast<size_t>(1) << (l.widest() - 1)) > cap)
        l = msm_layout_for(l.widest() - 1);
    const msm_layout f = msm_layout_for(fold_window ? fold_window : MSM_MAX_WINDOW, 1);
    if (fold_window && fold_mode >= 0 && s.sort_entries >= 4 * m &&
        (static_cast<size_t>(1) << (f.widest() - 1)) <= cap &&
        (static_cast<size_t>(1) << (f.widest() - 1) >> MSM_RED_LOG) <= s.item_cap &&
        (fold_mode > 0 || layout_cost(f, m) < layout_cost(l, m)))
        l = f;
    p.L = l;
    p.m = m;
    p.cap = cap;
    p.item_cap = s.item_cap;
    // a batch: as many sets as the sort space holds (m <= max_n: at least one single set and a
    // spare; a paired set has 2 m entries), and as the bucket space holds of the widest (at
    // least one)
    const size_t fit = std::min<size_t>(
        std::min<size_t>(cap, s.item_cap << MSM_RED_LOG) >> (l.widest() - 1), l.sets());
    p.wb = static_cast<unsigned>(std::min<size_t>(s.sort_entries / m - 1, fit));
    p.wb2 = l.fold ? static_cast<unsigned>(std::min<size_t>(s.sort_entries / (2 * m) - 1, fit)) : 0;
    p.acc_threads = s.acc_threads;
    return p;
}

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

extern "C" int cuzk_gpu_twin_digits(const cuzk_scalar *s, unsigned window, int32_t *digits,
                                    unsigned *widths) {
    if (!s || !digits || !widths || window < MSM_MIN_WINDOW || window > MSM_MAX_WINDOW)
        return CUZK_EINVAL;
    const msm_layout l = msm_layout_for(window);
    uint64_t k[5], t[5];
    msm_digit_offset(k, l);
    msm_offset_scalar(t, s->l, k);
    for (unsigned w = 0; w < l.nw; w++) {
        widths[w] = l.width(w);
        digits[w] = msm_digit(t, l.pos(w), l.width(w));
    }
    return static_cast<int>(l.nw);
}

extern "C" unsigned cuzk_gpu_twin_auto_window(size_t n) { return msm_auto_window(n); }

extern "C" int cuzk_gpu_twin_fold_layout(unsigned window, unsigned *pos, unsigned *widths,
                                         unsigned *set, unsigned *shift) {
    if (!pos || !widths || !set || !shift || window < MSM_MIN_WINDOW || window > MSM_MAX_WINDOW)
        return CUZK_EINVAL;
    const msm_layout l = msm_layout_for(window, 1);
    unsigned n = 0;
    for (unsigned s = 0; s < l.sets(); s++)
        for (unsigned u = 0; u < (l.paired(s) ? 2u : 1u); u++) {
            pos[n] = l.pos(s) + u * l.shift();
            widths[n] = l.width(s);
            set[n++] = s;
        }
    for (unsigned i = 1; i < n; i++) // bit order (insertion sort of at most 32)
        for (unsigned j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
            std::swap(pos[j - 1], pos[j]);
            std::swap(widths[j - 1], widths[j]);
            std::swap(set[j - 1], set[j]);
        }
    *shift = l.shift();
    return static_cast<int>(n);
}
