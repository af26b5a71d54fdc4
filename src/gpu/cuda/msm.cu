// The GPU MSM over BLS12-381 G1 and G2 (contract: src/gpu/gpu_msm.h): its driver, the resident
// bases and the MSM entry points, and the MSM's host twin (src/gpu/gpu_twin.h). This file owns
// the module's last-error text; the contexts (stream, events, scratch memory) are msm_ctx.cu's;
// msm_common.cuh lists the module's other files.
//
// DESIGN. An MSM sum_i s_i P_i runs on the context's compute stream, in phases:
//   upload   the scalars (canonical 4 x 64-bit integers) into the context's scalar buffer; for
//            device Fr scalars a kernel converts Montgomery form to canonical instead. Scalars
//            in host memory travel in chunks (MSM_UPLOAD_CHUNK, or the tuning's upload_chunk):
//            the calling thread copies chunk c into one of the context's two pinned staging
//            buffers (once the buffer's previous transfer is done: an event), queues its
//            transfer on the context's copy stream and moves on to chunk c + 1; the compute
//            stream waits for chunk c's transfer (an event) and classifies its scalars (the
//            bits phase's first kernel, the earliest work that needs only its own scalars: every
//            later kernel reads all of them, the selection and the sorts by construction). A
//            page-locked source (cudaPointerGetAttributes) is transferred in place, chunk by
//            chunk. The host twin runs the same chunk loop with memcpy for the transfers.
//   bits     (unless forbidden) one thread per scalar classifies it as 0, 1 or other and
//            CUB's DeviceSelect lists the indices of the ones and of the others; the host reads
//            the two counts. When zeros and ones are more than MSM_BIT_PCT percent of n (a
//            Filecoin witness) or the path is forced, the bases of the ones are summed by a
//            tree of additions (batch-affine levels of pairwise sums while they fill the GPU,
//            in chunks that the then unused bucket space holds, see run_ones; then each thread
//            sums a run of what is left by mixed additions; then levels of 32-to-1 sums) and
//            only the others go through the windows. Otherwise all n scalars do.
//   windows  Pippenger with signed digits over nw windows of two adjacent widths c and c + 1
//            that sum to 256 bits (see msm_layout, msm_digit), the narrow windows first and
//            then the wide ones, sorted and accumulated in batches of wb windows of one width
//            (as many as the context's sort space holds), whose buckets fill the context's
//            bucket space one after another; the windows in it are reduced together when the
//            next batch does not fit, and at the end (the space holds every window of a G1 MSM
//            of the context's size, about half of them for G2). For a batch:
//     sort     one thread per scalar writes, for each window of the batch, the key |digit|
//              (0 for a zero digit) and the value point index | sign << 31; CUB's radix sort
//              orders each window's pairs by key (c bits only) into the batch's buffers.
//     presum   (a context with a presum space, CUZK_GPU_MSM_PRESUM; see the tuning's presum)
//              the sorted entries of a set in pairs (2p, 2p + 1): where both have one key,
//              their two points are summed in affine coordinates into the presum space
//              (presum_body: MSM_PRESUM_K pairs a thread share one inversion; 6 products a sum
//              against the mixed addition's 10), the first entry's value becomes that point's
//              index (MSM_PRESUM_BIT) and CUB's selection drops the second, into the spare
//              buffer; the set's new length stays on the device, where the accumulation reads
//              it. A G1 batch's sets all fit the space (half the sort space's entries); a G2
//              batch's first ones do. It runs when a set gives MSM_PRESUM_MIN_THREADS threads
//              and averages MSM_PRESUM_MIN_RUN entries a bucket (or when forced).
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
//   reduce   (once the bucket space is full) each window's sum sum_b b S_b over its
//              2^(c_w - 1) buckets, by levels over all the windows in the space at once: each
//              thread turns 32 consecutive buckets (8 items at the levels above) into one with
//              a running sum (see reduce_body; a narrow window's items past its buckets are the
//              identity), until one item per window remains: the window sum. Reducing many
//              windows per launch keeps the GPU full at the upper levels, whose few long chains
//              of additions would otherwise run one window at a time; each reduction also costs
//              a fixed few ms of such levels, which is why the widths share one.
//   combine  the host reads the window sums (and the sum of the ones) and combines them by
//            doubling with the CPU group code: sum_w 2^pos(w) W_w.
//   folding  bases folded once (cuzk_gpu_bases_fold: fold_pts = 2^T pts, T the shift of a
//            folded layout, see msm_layout) let a context sized for it (CUZK_GPU_MSM_FOLD) run
//            the folded layout: a pair of windows T bits apart shares one set of buckets, its
//            batch sorting 2 m entries (the lower window's digits with the bases, the upper's
//            with the multiples, MSM_UPPER_BIT in the value), so there are about half the
//            buckets to reduce and the cost model affords wider windows (11 of 23 and 24 bits
//            in 6 sets at 2^27 instead of 12 of 21 and 22). "Windows" above are then sets, and
//            the combination takes them in the order of their bit positions. The folded
//            layout runs when the cost model prices it below the plain one for the m scalars
//            the windows take (msm_plan_for; the tuning may force or forbid it).
// All scratch memory belongs to the context and is allocated at its creation (sized from
// max_n, see msm_sizes_for), the pinned staging buffers too (through cuzk_gpu_pinned_alloc,
// which counts them); the MSM path never calls cudaMalloc or cudaHostAlloc. Phases are timed by
// events on the compute stream (the upload phase ends when the last chunk is in and classified).
//
// Every kernel is a thin wrapper (msm_kernel, msm_exec.cu) around a functor (msm_bodies.cuh) whose
// operator() is __host__ __device__ (and inlined into the kernel) and computes one thread's work;
// the driver (msm_run) is a template over an executor (msm_exec.cuh), which launches the functors
// on the GPU (dev_exec: kernels, CUB) or runs them in loops on the host (host_exec:
// std::stable_sort for the radix sort).
// The host twin of an MSM (cuzk_gpu_twin_g1_msm) is thus the same driver, planning, buffer juggling
// and per-thread code as the GPU's, on the host's portable field arithmetic: tests compare it with
// src/msm on machines without a GPU.
#define CUZK_CUDA_MODULE "msm.cu"
#include "gpu/cuda/msm_ctx.cuh"

#include "gpu/cuda/bases.cuh"

// ---- errors -------------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, TRY: gpu/cuda/cuda_errors.cuh

thread_local char cuzk_gpu_msm_error_text[320]; // the module's (msm_common.cuh)

extern "C" const char *cuzk_gpu_msm_last_error(void) { return g_last_error; }

// ---- the driver ---------------------------------------------------------------------------------

// The plan of the last windowed pass, for the timing of benchmarks (window and batches).
struct msm_report {
    unsigned c, nw, sets, folded, wb, presum_sets; // c: the widest window
    size_t m, ones;
};

// The reduction of k windows' buckets (from `buckets`: B = 2^(c-1) each, but for the first
// `narrow` windows, which have B / 2, packed before the others) into the window sums win[0, k):
// a first level of 2^MSM_RED_LOG buckets per thread, then levels of 2^MSM_RED_LOG_UP items, all
// k windows in each launch (see reduce_body).
template <class F, class X>
static int reduce_windows(X &x, const msm_mem &mm, const msm_sizes &sz, unsigned B, unsigned narrow,
                          const xyzz_mem<F> *buckets, unsigned k, xyzz_mem<F> *win) {
    auto *items = static_cast<xyzz_mem<F> *>(mm.items);
    if ((static_cast<size_t>(k) * B >> MSM_RED_LOG) > sz.item_cap) // the plan's promise
        return set_error(CUZK_ERANGE, "MSM reduction items exceed the context's item space");
    reduce_body<F> r;
    r.in_acc = buckets;
    r.in_run = buckets;
    r.cnt_in = B;
    r.narrow = narrow;
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
        r.narrow = 0; // every window has cnt_out items from here on
        r.mode = REDUCE_WEIGHTED;
        ping ^= 1;
        lg_step = MSM_RED_LOG_UP;
    }
    return CUZK_OK;
}

// The windows of m entries (scalars[list[j]] or scalars[j]) into the set sums win[0, sets):
// the narrow sets of the layout, then the wide ones (see msm_plan), each as its paired sets
// (folded layouts: 2 m entries a set, the upper windows' with qbases) and then its single ones,
// in batches of one width and kind; consecutive batches share the bucket space (narrow sets'
// buckets packed before the wide ones') until the next batch does not fit, when that group is
// reduced. F's bucket size decides how many sets a group holds (msm_plan_for): every set of a
// G1 MSM of the context's size.
template <class F, class X>
static int run_windows(X &x, const msm_mem &mm, const msm_sizes &sz, const aff_mem<F> *bases,
                       const aff_mem<F> *qbases, unsigned fold_window, int fold_mode,
                       const uint32_t *list, size_t m, unsigned forced_window, int presum_mode,
                       msm_plan *out, unsigned *presum_sets) {
    const msm_plan p =
        msm_plan_for(m, forced_window, sz, sizeof(xyzz_mem<F>), fold_window, fold_mode);
    *out = p;
    auto *buckets = static_cast<xyzz_mem<F> *>(mm.buckets);
    auto *heads = static_cast<xyzz_mem<F> *>(mm.heads);
    auto *win = static_cast<xyzz_mem<F> *>(mm.win);
    uint64_t kofs[5];
    msm_digit_offset(kofs, p.L);
    auto *presum = static_cast<aff_mem<F> *>(mm.presum);
    const size_t presum_cap = sz.presum_cap * sizeof(aff_mem<fp_t>) / sizeof(aff_mem<F>);

    unsigned g0 = 0;  // the first set of the reduction group being filled
    size_t gfill = 0; // the buckets its sets use
    const unsigned fw = p.L.first_wide(), ns = p.L.sets();
    // reduces sets [g0, g1): narrow ones first (B / 2 buckets each), then wide ones
    auto reduce_group = [&](unsigned g1) -> int {
        const bool any_wide = g1 > fw;
        const unsigned narrow = any_wide ? (g0 < fw ? fw - g0 : 0) : 0;
        const unsigned B = 1u << (p.L.c - (any_wide ? 0 : 1));
        TRY(reduce_windows<F>(x, mm, sz, B, narrow, buckets, g1 - g0, win + g0));
        TRY(x.mark(PH_REDUCE));
        g0 = g1;
        gfill = 0;
        return CUZK_OK;
    };
    // the runs of sets of one width and kind: narrow pairs, narrow single(s), wide pairs, wide
    // single(s) (a plain layout has no pairs)
    const unsigned np = p.L.fold ? p.L.n0() / 2 : 0, wp = p.L.fold ? p.L.wide / 2 : 0;
    const unsigned runs[4][2] = {{0, np}, {np, fw}, {fw, fw + wp}, {fw + wp, ns}};
    for (int r = 0; r < 4; r++) {
        const unsigned first = runs[r][0], end = runs[r][1];
        const bool paired = (r % 2) == 0;
        const size_t em = paired ? 2 * m : m; // entries per set
        const unsigned wb = paired ? p.wb2 : p.wb;
        const unsigned c = p.L.c + (r >= 2 ? 1 : 0), B = 1u << (c - 1);
        for (unsigned w0 = first; w0 < end; w0 += wb) {
            const unsigned k = std::min(wb, end - w0);
            const size_t items = (static_cast<size_t>(w0 + k - g0) * B) >> MSM_RED_LOG;
            if (gfill + static_cast<size_t>(k) * B > p.cap || items > p.item_cap)
                TRY(reduce_group(w0));
            // sort: set w of the batch into buffer w; buffer k is the spare the sorts swap with
            digits_body d;
            d.scalars = mm.scalars;
            d.list = list;
            std::memcpy(d.kofs, kofs, sizeof kofs);
            d.L = p.L;
            d.w0 = w0;
            d.k = k;
            d.paired = paired;
            d.m = m;
            uint32_t *spare_k = mm.keys + k * em, *spare_v = mm.vals + k * em;
            for (unsigned w = 0; w < k; w++) {
                d.keys[w] = mm.keys + w * em;
                d.vals[w] = mm.vals + w * em;
            }
            TRY(x.launch(d, m));
            for (unsigned w = 0; w < k; w++) {
                int in_alt = 0;
                TRY(x.sort(d.keys[w], spare_k, d.vals[w], spare_v, em, static_cast<int>(c),
                           &in_alt));
                if (in_alt) {
                    std::swap(d.keys[w], spare_k);
                    std::swap(d.vals[w], spare_v);
                }
            }
            TRY(x.mark(PH_SORT));

            // the presum level on the batch's first kp sets (as many as the presum space holds:
            // all of a G1 batch), set by set: pair sums into the presum space (set w's from w em
            // / 2), then the selection of the entries left, into the spare; the sets' counts on
            // the device (em for the sets past kp)
            const size_t half = em / 2, nt = (half + MSM_PRESUM_K - 1) / MSM_PRESUM_K;
            const bool pre =
                presum && presum_mode >= 0 && half > 0 && half <= presum_cap &&
                (presum_mode > 0 || (nt >= MSM_PRESUM_MIN_THREADS &&
                                     em >= static_cast<size_t>(MSM_PRESUM_MIN_RUN) * B));
            const unsigned kp =
                pre ? static_cast<unsigned>(std::min<size_t>(k, presum_cap / half)) : 0;
            const int64_t *cnt = nullptr;
            if (pre) {
                presum_body<F> ps;
                ps.bases = bases;
                ps.qbases = paired ? qbases : bases;
                ps.flags = mm.pflag;
                ps.m = em;
                ps.nt = nt;
                for (unsigned w = 0; w < kp; w++) {
                    ps.keys = d.keys[w];
                    ps.vals = d.vals[w];
                    ps.out = presum + w * half;
                    ps.ofs = static_cast<uint32_t>(w * half);
                    TRY(x.launch(ps, nt));
                    TRY(x.select(d.keys[w], mm.pflag, spare_k, mm.counts + 2 + w, em));
                    TRY(x.select(d.vals[w], mm.pflag, spare_v, mm.counts + 2 + w, em));
                    std::swap(d.keys[w], spare_k);
                    std::swap(d.vals[w], spare_v);
                }
                const count_body cb = {mm.counts + 2, kp, static_cast<int64_t>(em)};
                TRY(x.launch(cb, k - kp));
                cnt = mm.counts + 2;
                *presum_sets += kp;
            }

            // accumulate into the group's next k B buckets
            xyzz_mem<F> *bk = buckets + gfill;
            gfill += static_cast<size_t>(k) * B;
            TRY(x.zero(bk, static_cast<size_t>(k) * B * sizeof(xyzz_mem<F>)));
            accum_body<F> a;
            a.bases = bases;
            a.qbases = paired ? qbases : bases;
            a.presum = pre ? presum : bases;
            a.cnt = cnt;
            for (unsigned w = 0; w < k; w++) {
                a.keys[w] = d.keys[w];
                a.vals[w] = d.vals[w];
            }
            // a set keeps at least half its entries (rounded up) through the presum level
            const size_t cpw = p.chunks_per_window(k, pre ? em - half : em);
            a.buckets = bk;
            a.heads = heads;
            a.m = em;
            a.cpw = cpw;
            a.B = B;
            TRY(x.launch(a, static_cast<size_t>(k) * cpw));
            // the fix-up tree's levels (after the heads' level 0), then the fix-up
            xyzz_mem<F> *tree = heads + sz.head_cap;
            fixtree_body<F> ft;
            for (unsigned w = 0; w < k; w++) ft.keys[w] = d.keys[w];
            ft.cnt = cnt;
            ft.in = heads;
            ft.n_in = cpw;
            ft.m = em;
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
            f.cnt = cnt;
            f.buckets = bk;
            f.heads = heads;
            f.tree = tree;
            f.m = em;
            f.cpw = cpw;
            f.B = B;
            f.k = k;
            TRY(x.launch(f, static_cast<size_t>(k) * cpw));
            TRY(x.mark(PH_ACCUM));
        }
    }
    return reduce_group(ns);
}

// The batch-affine levels a chunk of len ones takes (ones_tree_body): while a level keeps
// MSM_TREE_MIN_THREADS threads busy (tree 0), down to one point (tree > 0), none (tree < 0).
// Sets *left to the points the last level leaves.
static unsigned ones_levels(size_t len, int tree, size_t *left) {
    unsigned l = 0;
    size_t n = len;
    while (n > 1 && (tree > 0 || (tree == 0 &&
                                  (n / 2 + MSM_TREE_K - 1) / MSM_TREE_K >= MSM_TREE_MIN_THREADS))) {
        n = (n + 1) / 2;
        l++;
    }
    *left = n;
    return l;
}

// The sum of the bases of the cnt list entries into win[MSM_ONES_SLOT]. The list goes in chunks
// of `chunk` ones (at most what the bucket space holds as two levels' points: the buckets are
// free until the windows run), each through its batch-affine levels (ones_levels), whose
// outputs alternate between two regions of the bucket space; the points each chunk leaves are
// summed by XYZZ mixed additions, sz a thread, into items (ones_body), and the items by levels of
// 32-to-1 sums (reduce_body).
template <class F, class X>
static int run_ones(X &x, const msm_mem &mm, const msm_sizes &sz, const aff_mem<F> *bases,
                    const uint32_t *list, size_t cnt, int tree, size_t tree_chunk) {
    auto *items = static_cast<xyzz_mem<F> *>(mm.items);
    auto *win = static_cast<xyzz_mem<F> *>(mm.win);
    auto *pts = static_cast<aff_mem<F> *>(mm.buckets);
    const size_t step = static_cast<size_t>(1) << MSM_RED_LOG;
    const size_t cap = msm_bytes_for(sz).buckets / sizeof(aff_mem<F>);
    // ceil(chunk / 2) + ceil(chunk / 4) <= cap; with more chunks than half the items (no
    // context comes near: its buckets are many more than the square root of its points), no
    // levels and one chunk
    size_t chunk = cap > 8 ? (cap - 2) / 3 * 4 : 2;
    if (tree_chunk) chunk = std::min(chunk, std::max<size_t>(tree_chunk, 2));
    if ((cnt + chunk - 1) / chunk > sz.item_cap / 2) {
        tree = -1;
        chunk = cnt;
    }
    const size_t nchunks = (cnt + chunk - 1) / chunk;
    size_t left_all = 0;
    for (size_t off = 0; off < cnt; off += chunk) {
        size_t left;
        ones_levels(std::min(chunk, cnt - off), tree, &left);
        left_all += left;
    }
    ones_body<F> o;
    o.sz = std::max(step, (left_all + sz.item_cap - nchunks - 1) / (sz.item_cap - nchunks));
    size_t n_out = 0; // items written
    for (size_t off = 0; off < cnt; off += chunk) {
        const size_t len = std::min(chunk, cnt - off);
        size_t left;
        const unsigned levels = ones_levels(len, tree, &left);
        ones_tree_body<F> t;
        t.bases = bases;
        t.list = list + off;
        t.in = nullptr;
        t.n = len;
        aff_mem<F> *const region[2] = {pts, pts + (chunk + 1) / 2};
        for (unsigned l = 0; l < levels; l++) {
            t.out = region[l & 1];
            t.nt = (t.n / 2 + MSM_TREE_K - 1) / MSM_TREE_K;
            TRY(x.launch(t, std::max<size_t>(t.nt, 1)));
            t.list = nullptr;
            t.in = t.out;
            t.n = (t.n + 1) / 2;
        }
        o.bases = levels ? t.in : bases;
        o.list = levels ? nullptr : list + off;
        o.cnt = left;
        const size_t k = (left + o.sz - 1) / o.sz;
        o.out = n_out == 0 && k == 1 && nchunks == 1 ? win + MSM_ONES_SLOT : items + n_out;
        TRY(x.launch(o, k));
        n_out += k;
    }
    reduce_body<F> r;
    r.in_acc = items;
    r.in_run = nullptr;
    r.out_run = nullptr;
    r.mlog = 0;
    r.narrow = 0;
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

// out = sum_i s_i bases[i] for the n canonical scalars at host (uploaded into mm.scalars in
// chunks of `chunk`) or, for host = NULL, already in mm.scalars (see DESIGN).
// qbases (NULL: none) are the bases' folded multiples for the folded layout of fold_window
// (used unless the tuning forbids it or the context cannot hold it: see msm_plan_for).
template <class G, class X>
static int msm_run(X &x, const msm_mem &mm, const msm_sizes &sz,
                   const aff_mem<typename G::F> *bases, const aff_mem<typename G::F> *qbases,
                   unsigned fold_window, size_t n, const cuzk_gpu_msm_tuning &tune,
                   const cuzk_scalar *host, size_t chunk, typename G::host_jac *out,
                   msm_report *rep) {
    using F = typename G::F;
    const uint32_t *list = nullptr;
    size_t m = n, n_ones = 0;
    const bool classify = tune.bit_path >= 0;
    classify_body cl = {mm.scalars, mm.idx, mm.flag_one, mm.flag_rest, 0};
    if (host) {
        for (size_t off = 0; off < n; off += chunk) {
            const size_t len = std::min(chunk, n - off);
            TRY(x.upload(mm.scalars + 4 * off, host + off, len * sizeof(cuzk_scalar)));
            cl.first = off;
            if (classify) TRY(x.launch(cl, len));
        }
        TRY(x.mark(PH_UPLOAD));
    } else if (classify) {
        TRY(x.launch(cl, n));
    }
    if (classify) {
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
    if (n_ones)
        TRY(run_ones<F>(x, mm, sz, bases, mm.ones, n_ones, tune.ones_tree, tune.tree_chunk));
    TRY(x.mark(PH_BITS));
    msm_plan p = {};
    rep->presum_sets = 0;
    const bool fold = qbases && fold_window;
    if (m)
        TRY(run_windows<F>(x, mm, sz, bases, qbases, fold ? fold_window : 0, tune.fold, list, m,
                           tune.window, tune.presum, &p, &rep->presum_sets));
    rep->c = p.L.widest();
    rep->nw = m ? p.L.nw : 0;
    rep->sets = m ? p.L.sets() : 0;
    rep->folded = m ? p.L.fold : 0;
    rep->wb = p.wb;
    rep->m = m;
    rep->ones = n_ones;

    // combine on the host: Horner over the sets from the highest bit position down (sum_s
    // 2^pos(s) W_s), then the ones
    std::vector<xyzz_mem<F>> w(MSM_MAX_WINDOWS + 1);
    TRY(x.to_host(w.data(), mm.win, w.size() * sizeof(xyzz_mem<F>)));
    std::vector<unsigned> order(rep->sets);
    for (unsigned i = 0; i < rep->sets; i++) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](unsigned a, unsigned b) { return p.L.pos(a) > p.L.pos(b); });
    typename G::host_jac acc, t;
    G::set_inf(&acc);
    unsigned at = 0; // the bit position acc stands at
    for (unsigned i : order) {
        for (unsigned b = p.L.pos(i); b < at; b++) G::dbl(&acc, &acc);
        at = p.L.pos(i);
        xyzz_to_host<G>(&t, &w[i]);
        G::add(&acc, &acc, &t);
    }
    for (; at > 0; at--) G::dbl(&acc, &acc);
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
    if (b->pts || b->fold_pts) {
        (void)cudaSetDevice(b->device);
        if (b->pts) (void)cudaFree(b->pts);
        if (b->fold_pts) (void)cudaFree(b->fold_pts);
        (void)cudaGetLastError();
    }
    std::free(b);
}

extern "C" size_t cuzk_gpu_bases_count(const struct cuzk_gpu_bases *b) { return b ? b->n : 0; }

extern "C" size_t cuzk_gpu_bases_vram(const struct cuzk_gpu_bases *b) {
    return b ? b->bytes + b->fold_bytes : 0;
}

// The folded multiples of n bases of F into out (device or host memory alike, by x).
template <class F, class X>
static int fold_points(X &x, const aff_mem<F> *in, aff_mem<F> *out, size_t n, unsigned window) {
    fold_body<F> f = {in, out, msm_layout_for(window, 1).shift()};
    return x.launch(f, n);
}

extern "C" unsigned cuzk_gpu_msm_fold_window(size_t n) { return msm_fold_window(n); }

extern "C" int cuzk_gpu_bases_fold(struct cuzk_gpu_bases *b, unsigned window) {
    if (!b) return set_error(CUZK_EINVAL, "bases are NULL");
    if (window && (window < MSM_MIN_WINDOW || window > MSM_MAX_WINDOW))
        return set_error(CUZK_EINVAL, "fold window outside 8..24");
    if (b->n > MSM_MAX_N) return set_error(CUZK_EINVAL, "too many bases to fold");
    if (!window) window = msm_fold_window(b->n);
    if (b->fold_pts && b->fold_window == window) return CUZK_OK;
    CU_TRY(cudaSetDevice(b->device));
    void *q = nullptr;
    if (b->n) CU_TRY(cudaMalloc(&q, b->bytes));
    dev_exec x = {};
    x.stream = 0;
    int err = CUZK_OK;
    if (b->group == CUZK_GPU_G2)
        err = fold_points(x, static_cast<const aff_mem<fp2_t> *>(b->pts),
                          static_cast<aff_mem<fp2_t> *>(q), b->n, window);
    else
        err = fold_points(x, static_cast<const aff_mem<fp_t> *>(b->pts),
                          static_cast<aff_mem<fp_t> *>(q), b->n, window);
    if (err == CUZK_OK) {
        const cudaError_t e = cudaStreamSynchronize(0);
        if (e != cudaSuccess) err = cuda_fail(e, "fold of the bases", __LINE__);
    }
    if (err != CUZK_OK) {
        if (q) (void)cudaFree(q);
        return err;
    }
    if (b->fold_pts) (void)cudaFree(b->fold_pts);
    b->fold_pts = q;
    b->fold_window = window;
    b->fold_bytes = b->bytes;
    return CUZK_OK;
}

extern "C" unsigned cuzk_gpu_bases_fold_window(const struct cuzk_gpu_bases *b) {
    return b && b->fold_pts ? b->fold_window : 0;
}

extern "C" size_t cuzk_gpu_bases_vram_for(enum cuzk_gpu_group g, size_t n) {
    if (g != CUZK_GPU_G1 && g != CUZK_GPU_G2) return 0;
    return n * bases_point_bytes(g);
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
    x.copy_stream = ctx->copy_stream;
    x.stage[0] = ctx->stage[0];
    x.stage[1] = ctx->stage[1];
    x.stage_bytes = ctx->stage_n * sizeof(cuzk_scalar);
    for (int i = 0; i < 3; i++) x.ev_copy[i] = ctx->ev_copy[i];
    x.src_pinned = false;
    x.uploads = 0;
    size_t chunk = ctx->stage_n;
    if (ctx->tune.upload_chunk) chunk = std::min(chunk, ctx->tune.upload_chunk);
    TRY(x.mark(PH_START));
    if (host_scalars) {
        cudaPointerAttributes pa;
        if (cudaPointerGetAttributes(&pa, host_scalars) == cudaSuccess)
            x.src_pinned = pa.type == cudaMemoryTypeHost;
        (void)cudaGetLastError(); // an unknown pointer is pageable memory
    } else {
        fr_canonical_body cv = {static_cast<const fr_mem *>(dev_fr),
                                reinterpret_cast<fr_mem *>(ctx->mm.scalars)};
        TRY(x.launch(cv, n));
        TRY(x.mark(PH_SORT));
    }
    const auto *pts = static_cast<const aff_mem<F> *>(bases->pts) + offset;
    const auto *qpts =
        bases->fold_pts ? static_cast<const aff_mem<F> *>(bases->fold_pts) + offset : nullptr;
    msm_report rep;
    TRY(msm_run<G>(x, ctx->mm, ctx->sz, pts, qpts, bases->fold_window, n, ctx->tune, host_scalars,
                   chunk, out, &rep));
    CU_TRY(cudaStreamSynchronize(ctx->stream));
    TRY(collect_timing(ctx, x.nev));
    ctx->timing.window = rep.nw ? rep.c : 0;
    ctx->timing.windows = rep.nw;
    ctx->timing.sets = rep.sets;
    ctx->timing.folded = rep.folded;
    ctx->timing.windowed = rep.nw ? rep.m : 0;
    ctx->timing.presum_sets = rep.presum_sets;
    return CUZK_OK;
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

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

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
               alloc(&mm.heads, b.heads) && alloc(&mm.win, b.win) && alloc(&mm.presum, b.presum) &&
               alloc(&mm.pflag, b.presum_flags);
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
    if (shape->fold && (shape->fold < MSM_MIN_WINDOW || shape->fold > MSM_MAX_WINDOW))
        return CUZK_EINVAL;
    const msm_sizes sz =
        msm_sizes_for(max_n, shape->sort_budget ? shape->sort_budget : MSM_SORT_BUDGET,
                      shape->acc_threads ? shape->acc_threads : MSM_ACC_THREADS, shape->fold, 1);
    cuzk_gpu_msm_tuning t = {0, 0, 0, 0, 0, 0, 0};
    if (tune) t = *tune;
    host_mem h;
    if (!h.init(sz)) return CUZK_ENOMEM;
    // the chunks of a context for max_n (msm_entry): its staging size, or the tuning's if smaller
    size_t chunk = std::min<size_t>(max_n, MSM_UPLOAD_CHUNK);
    if (t.upload_chunk) chunk = std::min(chunk, t.upload_chunk);
    host_exec x;
    using F = typename G::F;
    const auto *pts = reinterpret_cast<const aff_mem<F> *>(bases);
    std::vector<aff_mem<F>> q(shape->fold ? n : 0); // the folded multiples, made on the host
    if (shape->fold) TRY(fold_points(x, pts, q.data(), n, shape->fold));
    msm_report rep;
    TRY(msm_run<G>(x, h.mm, sz, pts, shape->fold ? q.data() : nullptr, shape->fold, n, t, scalars,
                   chunk, out, &rep));
    if (report) {
        report->window = rep.c;
        report->windows = rep.nw;
        report->sets = rep.sets;
        report->folded = rep.folded;
        report->windows_per_batch = rep.wb;
        report->windowed = rep.m;
        report->ones = rep.ones;
        report->presum_sets = rep.presum_sets;
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
