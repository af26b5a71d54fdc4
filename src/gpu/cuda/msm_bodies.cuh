// The per-thread work of every kernel of the GPU MSM module (see msm_common.cuh). A body is a
// functor: its fields are a launch's arguments and operator()(i) computes thread i's share. It
// is __host__ __device__ (inlined into its kernel, msm_kernel in msm_exec.cu), so the kernels
// and the host twins (host_exec, a loop over i) run the very same code; fr_canonical_body alone
// is device only.
//
// Promise: the threads of one launch write disjoint elements and read none that another thread
// of the launch writes, so they may run in any order (the twins run them in index order); what
// a launch reads from an earlier one, the executor has finished first. Each body says what its
// thread computes; msm.cu's DESIGN comment says how the MSM's phases use them.
#ifndef CUZK_GPU_CUDA_MSM_BODIES_CUH
#define CUZK_GPU_CUDA_MSM_BODIES_CUH

#include "gpu/cuda/msm_plan.cuh"

// Out-of-line copies of the point formulas. Only the summing loops' mixed addition (madd_mem in
// accum_body and ones_body, the hot loops) is inlined; the other kernels call these: a call costs
// about 1% of a point operation, and inlining every call site made the module's device code several
// times larger and its compilation (ptxas) several times slower.
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
// that DeviceSelect compacts, for the scalars first + t (a chunk of them: an upload from host
// memory classifies each chunk as soon as it is in).
struct classify_body {
    const uint64_t *scalars;
    uint32_t *idx;
    uint8_t *flag_one, *flag_rest;
    size_t first;
    CUZK_HD void operator()(size_t t) const {
        const size_t i = first + t;
        const uint64_t *s = scalars + 4 * i;
        const uint64_t high = s[1] | s[2] | s[3];
        const bool zero = (s[0] | high) == 0, one = s[0] == 1 && high == 0;
        idx[i] = static_cast<uint32_t>(i);
        flag_one[i] = one;
        flag_rest[i] = !zero && !one;
    }
};

// The keys and values of k sets (from w0) of layout L for entry j: the scalar of index list[j]
// (or j). A paired batch (the sets paired in a folded layout) writes two entries per set: the
// lower window's digit at j with the base, the upper window's at m + j with the base's folded
// multiple (MSM_UPPER_BIT in the value).
struct digits_body {
    const uint64_t *scalars;
    const uint32_t *list;
    uint64_t kofs[5];
    msm_layout L;
    unsigned w0, k;
    bool paired;
    size_t m;
    uint32_t *keys[MSM_MAX_WINDOWS], *vals[MSM_MAX_WINDOWS];
    CUZK_HD void operator()(size_t j) const {
        const uint32_t idx = list ? list[j] : static_cast<uint32_t>(j);
        const uint64_t *s = scalars + 4 * static_cast<size_t>(idx);
        uint64_t sc[4] = {s[0], s[1], s[2], s[3]}, t[5];
        msm_offset_scalar(t, sc, kofs);
        CUZK_UNROLL
        for (unsigned w = 0; w < MSM_MAX_WINDOWS; w++) { // constant indices (see pick)
            if (w >= k) break;
            const unsigned pos = L.pos(w0 + w), width = L.width(w0 + w);
            const int d = msm_digit(t, pos, width);
            keys[w][j] = static_cast<uint32_t>(d < 0 ? -d : d);
            vals[w][j] = idx | (d < 0 ? MSM_SIGN_BIT : 0u);
            if (paired) {
                const int u = msm_digit(t, pos + L.shift(), width);
                keys[w][m + j] = static_cast<uint32_t>(u < 0 ? -u : u);
                vals[w][m + j] = idx | MSM_UPPER_BIT | (u < 0 ? MSM_SIGN_BIT : 0u);
            }
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

// The affine base of a sorted value: the base (or, with MSM_UPPER_BIT, its folded multiple in
// qbases: bases itself for a plain layout) of its index, negated when MSM_SIGN_BIT is set; with
// MSM_PRESUM_BIT the point of that index in the presum space (a pair's sum, never negated).
template <class F>
CUZK_HD const aff_mem<F> *msm_base_ptr(const aff_mem<F> *bases, const aff_mem<F> *qbases,
                                       const aff_mem<F> *presum, uint32_t v) {
    const aff_mem<F> *b = (v & MSM_UPPER_BIT) ? qbases : bases;
    return ((v & MSM_PRESUM_BIT) ? presum : b) + (v & MSM_IDX_MASK);
}
template <class F>
CUZK_HD affine<F> msm_base(const aff_mem<F> *bases, const aff_mem<F> *qbases,
                           const aff_mem<F> *presum, uint32_t v) {
    affine<F> p = load_ro(msm_base_ptr(bases, qbases, presum, v));
    if (v & MSM_SIGN_BIT) p.y = neg(p.y);
    return p;
}

// Chunk t of a window of m entries split into cpw chunks: entries [chunk_begin(t), chunk_begin(t +
// 1)). The chunks differ in length by at most one and none is empty (cpw <= m).
CUZK_HD size_t chunk_begin(size_t t, size_t m, size_t cpw) { return t * m / cpw; }

// Starts moving the base of a sorted value towards the multiprocessor (the L2 cache) a few
// iterations before the accumulation reads it; nothing on the host.
template <class F>
CUZK_HD void msm_prefetch(const aff_mem<F> *bases, const aff_mem<F> *qbases,
                          const aff_mem<F> *presum, uint32_t v) {
#ifdef __CUDA_ARCH__
    const char *p = reinterpret_cast<const char *>(msm_base_ptr(bases, qbases, presum, v));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + sizeof(aff_mem<F>) - 1));
#else
    (void)bases;
    (void)qbases;
    (void)presum;
    (void)v;
#endif
}

#define MSM_PREFETCH_AHEAD 2 // entries ahead of the accumulation that msm_prefetch fetches

// The running sum of a summing thread (accum_body, ones_body; add_mem_eval_body's checks): on
// the device a slot of shared memory of its own (MSM_THREADS slots a block: 24 KiB on G1, 48 KiB
// on G2), added to in place by madd_mem, which is what keeps the G2 loop within its registers
// (ec.cuh); on the host, where the twins run one thread at a time, a member.
template <class F> struct acc_slot {
#ifdef __CUDA_ARCH__
    __device__ __forceinline__ xyzz_mem<F> *get() {
        __shared__ xyzz_mem<F> slots[MSM_THREADS];
        return slots + threadIdx.x;
    }
#else
    xyzz_mem<F> mem;
    xyzz_mem<F> *get() { return &mem; }
#endif
};

// The entries of set j of a batch: m each, or cnt[j] after the presum level (cnt not NULL).
CUZK_HD size_t set_entries(const int64_t *cnt, size_t m, size_t j) {
    return cnt ? static_cast<size_t>(cnt[j]) : m;
}

// Chunk t of window j: sums each run of equal keys of its entries (see DESIGN). Zero keys come
// first in a sorted window, so a binary search skips them. The loop does one mixed addition per
// entry for every thread alike, and a thread whose run ends stores its sum (a short branch):
// threads of a warp never wait for the longest run among them.
template <class F> struct accum_body {
    const aff_mem<F> *bases, *qbases; // qbases: the folded multiples (bases for a plain layout)
    const aff_mem<F> *presum;         // the presum level's points (NULL: none)
    const uint32_t *keys[MSM_MAX_WINDOWS], *vals[MSM_MAX_WINDOWS];
    const int64_t *cnt; // the sets' entries after the presum level (NULL: m each)
    xyzz_mem<F> *buckets, *heads;
    size_t m, cpw;
    unsigned B;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cpw, t = tid % cpw, mj = set_entries(cnt, m, j);
        const size_t b = chunk_begin(t, mj, cpw), e = chunk_begin(t + 1, mj, cpw);
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
        for (size_t a = i; a < i + MSM_PREFETCH_AHEAD && a < e; a++)
            msm_prefetch(bases, qbases, presum, V[a]);
        acc_slot<F> slot;
        xyzz_mem<F> *acc = slot.get();
        store_sh(acc, xyzz_inf<F>());
        for (; i < e; i++) {
            const uint32_t k = K[i];
            if (k != cur) {
                store(head ? heads + j * cpw + t : buckets + static_cast<size_t>(j) * B + (cur - 1),
                      load_sh(acc));
                head = false;
                cur = k;
                store_sh(acc, xyzz_inf<F>());
            }
            if (i + MSM_PREFETCH_AHEAD < e)
                msm_prefetch(bases, qbases, presum, V[i + MSM_PREFETCH_AHEAD]);
            madd_mem(acc, msm_base(bases, qbases, presum, V[i]));
        }
        store(head ? heads + j * cpw + t : buckets + static_cast<size_t>(j) * B + (cur - 1),
              load_sh(acc));
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
    const int64_t *cnt;    // as accum_body's
    const xyzz_mem<F> *in; // level l - 1: n_in per window
    xyzz_mem<F> *out;      // level l: n_out = cpw >> (l MSM_FIX_LOG) per window
    size_t m, cpw, n_in, n_out;
    unsigned lg; // l MSM_FIX_LOG: a block is 2^lg chunks
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / n_out, i = tid % n_out, a = i << lg;
        if (!fix_whole(pick(keys, j), set_entries(cnt, m, j), cpw, a,
                       a + (static_cast<size_t>(1) << lg) - 1))
            return;
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
    const int64_t *cnt; // as accum_body's
    xyzz_mem<F> *buckets;
    const xyzz_mem<F> *heads, *tree;
    size_t m, cpw;
    unsigned B, k;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cpw, t = tid % cpw, mj = set_entries(cnt, m, j);
        const size_t b = chunk_begin(t, mj, cpw), e = chunk_begin(t + 1, mj, cpw);
        const uint32_t *K = pick(keys, j);
        const uint32_t key = K[e - 1];
        if (key == 0 || e == mj || K[e] != key) return;      // the last run ends in this chunk
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
                    K[chunk_begin(z, mj, cpw)] == key)
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
            const size_t eu = chunk_begin(u, mj, cpw);
            if (eu >= mj || K[eu] != key) break; // the run ended within chunk u - 1
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
// (k - K sz) times. In REDUCE_BUCKETS the first `narrow` windows have cnt_in / 2 buckets (a
// group of both widths of a layout: the narrow windows' buckets first, packed, then the wide
// ones'): their inputs past cnt_in / 2 are empty buckets, which nothing reads (items of none
// are the identity).
enum { REDUCE_BUCKETS = 0, REDUCE_WEIGHTED = 1, REDUCE_PLAIN = 2 };
template <class F> struct reduce_body {
    const xyzz_mem<F> *in_acc, *in_run;
    xyzz_mem<F> *out_acc, *out_run; // out_run is NULL at the last level and in REDUCE_PLAIN
    size_t cnt_in, sz, cnt_out;
    unsigned mlog, narrow;
    int mode;
    CUZK_HD void operator()(size_t tid) const {
        const size_t j = tid / cnt_out, kk = tid % cnt_out, lo = kk * sz;
        const size_t half = cnt_in / 2, cnt = j < narrow ? half : cnt_in;
        const size_t hi = lo + sz < cnt ? lo + sz : cnt;
        const size_t base = j < narrow ? j * half : narrow * half + (j - narrow) * cnt_in;
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

// The first XYZZ level of the sum of the ones: item kk sums the points of entries [kk sz, kk sz
// + sz): bases[list[k]], or bases[k] with no list (the last batch-affine level's points).
template <class F> struct ones_body {
    const aff_mem<F> *bases;
    const uint32_t *list;
    size_t cnt, sz;
    xyzz_mem<F> *out;
    CUZK_HD void operator()(size_t kk) const {
        const size_t lo = kk * sz, hi = lo + sz < cnt ? lo + sz : cnt;
        acc_slot<F> slot;
        xyzz_mem<F> *a = slot.get();
        store_sh(a, xyzz_inf<F>());
        for (size_t k = lo; k < hi; k++) madd_mem(a, load_ro(bases + (list ? list[k] : k)));
        store(out + kk, load_sh(a));
    }
};

// The affine sum a + b is lambda = num / den away (tree_sum); den is b.x - a.x for distinct x,
// 2 a.y for a doubling, and 1 when no division is needed (an identity term, or b = -a).
template <class F> CUZK_HD F tree_den(const affine<F> &a, const affine<F> &b) {
    if (is_inf(a) || is_inf(b)) return field_traits<F>::one();
    if (!eq(a.x, b.x)) return sub(b.x, a.x);
    if (eq(a.y, b.y)) return dbl(a.y);
    return field_traits<F>::one();
}

// a + b in affine coordinates, given inv = 1 / tree_den(a, b) (the identity is (0, 0)).
template <class F>
CUZK_HD affine<F> tree_sum(const affine<F> &a, const affine<F> &b, const F &inv) {
    if (is_inf(a)) return b;
    if (is_inf(b)) return a;
    F lambda;
    if (!eq(a.x, b.x)) {
        lambda = mul(sub(b.y, a.y), inv);
    } else if (eq(a.y, b.y)) {
        const F xx = sqr(a.x);
        lambda = mul(add(dbl(xx), xx), inv); // 3 x^2 / 2 y
    } else {
        const F z = field_traits<F>::zero();
        return affine<F>{z, z};
    }
    const F x3 = sub(sub(sqr(lambda), a.x), b.x);
    return affine<F>{x3, sub(mul(lambda, sub(a.x, x3)), a.y)};
}

// One batch-affine level of the sum of the ones: the level's n points (bases[list[i]], or in[i]
// with no list) are summed in pairs (2p, 2p + 1) into out[p], an odd last point copied to
// out[n / 2]. Thread tid takes the pairs p = tid + r nt for r < MSM_TREE_K and inverts their
// denominators together (Montgomery's trick: prefix products forward, one inversion, then
// backward), so each affine sum costs 6 products and a share of one inversion, against 10
// products for a mixed XYZZ addition. Nothing but the prefix products is kept between the two
// passes (a local array: kept in the x of each pair's output slot instead, they made the level
// slower, docs/perf-log/2026-12.md 2026-12-06); the backward pass reads its pairs again.
template <class F> struct ones_tree_body {
    const aff_mem<F> *bases, *in;
    const uint32_t *list;
    aff_mem<F> *out;
    size_t n, nt;
    CUZK_HD affine<F> point(size_t i) const { return load_ro(list ? bases + list[i] : in + i); }
    CUZK_HD void operator()(size_t tid) const {
        const size_t pairs = n / 2;
        if (tid == 0 && (n & 1)) store(out + pairs, point(n - 1));
        F pre[MSM_TREE_K];
        F acc = field_traits<F>::one();
        unsigned cnt = 0;
        for (size_t p = tid; cnt < MSM_TREE_K && p < pairs; p += nt) {
            acc = mul(acc, tree_den(point(2 * p), point(2 * p + 1)));
            pre[cnt++] = acc;
        }
        if (cnt == 0) return;
        F inv = inv_var(acc);
        for (unsigned r = cnt; r-- > 0;) {
            const size_t p = tid + r * nt;
            const affine<F> a = point(2 * p), b = point(2 * p + 1);
            const F ir = r ? mul(inv, pre[r - 1]) : inv; // 1 / den_r
            inv = mul(inv, tree_den(a, b));              // 1 / (den_0 .. den_(r-1))
            store(out + p, tree_sum(a, b, ir));
        }
    }
};

// The presum level of set j of a batch (see msm.cu's DESIGN): its m sorted entries in pairs
// (2p, 2p + 1). A pair of one non-zero key (one bucket) is summed in affine coordinates into
// out[p], the point of index ofs + p of the presum space; its first entry's value becomes
// MSM_PRESUM_BIT | (ofs + p) and its second entry's flag 0, so that selecting the entries by
// their flags leaves the set one entry per such pair, still in key order. A pair of two keys, or
// of key 0, keeps both entries. Thread tid takes the pairs p = tid + r nt for r < MSM_PRESUM_K
// and inverts their denominators together, as ones_tree_body does (6 products and a share of one
// inversion for a sum, against the 10 of the mixed addition it saves the accumulation).
template <class F> struct presum_body {
    const aff_mem<F> *bases, *qbases; // as accum_body's
    const uint32_t *keys;
    uint32_t *vals;
    uint8_t *flags;
    aff_mem<F> *out;
    uint32_t ofs;
    size_t m, nt;
    CUZK_HD bool same(size_t p) const {
        const uint32_t k = keys[2 * p];
        return k != 0 && keys[2 * p + 1] == k;
    }
    // the sorted values name bases only (no MSM_PRESUM_BIT yet): no presum space to pass
    CUZK_HD affine<F> point(size_t i) const { return msm_base(bases, qbases, bases, vals[i]); }
    CUZK_HD void operator()(size_t tid) const {
        const size_t pairs = m / 2;
        if (tid == 0 && (m & 1)) flags[m - 1] = 1;
        F pre[MSM_PRESUM_K]; // the running products of the denominators
        F acc = field_traits<F>::one();
        unsigned cnt = 0, summed = 0;
        for (size_t p = tid; cnt < MSM_PRESUM_K && p < pairs; p += nt) {
            if (same(p)) {
                acc = mul(acc, tree_den(point(2 * p), point(2 * p + 1)));
                summed++;
            }
            pre[cnt++] = acc;
        }
        F inv = summed ? inv_var(acc) : acc;
        for (unsigned r = cnt; r-- > 0;) {
            const size_t p = tid + r * nt;
            if (!same(p)) {
                flags[2 * p] = 1;
                flags[2 * p + 1] = 1;
                continue;
            }
            const affine<F> a = point(2 * p), b = point(2 * p + 1);
            const F ir = r ? mul(inv, pre[r - 1]) : inv; // 1 / den_r
            inv = mul(inv, tree_den(a, b));              // 1 / (den_0 .. den_(r-1))
            store(out + p, tree_sum(a, b, ir));
            vals[2 * p] = MSM_PRESUM_BIT | (ofs + static_cast<uint32_t>(p));
            flags[2 * p] = 1;
            flags[2 * p + 1] = 0;
        }
    }
};

// The entry counts of the sets of a batch that skip the presum level: cnt[first + i] = m.
struct count_body {
    int64_t *cnt;
    unsigned first;
    int64_t m;
    CUZK_HD void operator()(size_t i) const { cnt[first + i] = m; }
};

// Montgomery Fr -> canonical integer (multiplication by the plain integer 1 divides by R), in
// place or not. Device only: the twins convert their scalars with the CPU's
// cuzk_scalar_from_fr instead (twin_batch_mul); test_gpu_msm compares the device's MSMs of
// Montgomery scalars (an NTT context's buffer) and batch multiplications with the CPU's.
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

// The folded multiples of bases: out[i] = 2^T in[i] (T doublings, then affine; the identity
// stays the identity).
template <class F> struct fold_body {
    const aff_mem<F> *in;
    aff_mem<F> *out;
    unsigned T;
    CUZK_HD void operator()(size_t i) const {
        xyzz<F> acc = xyzz_from_affine(load_ro(in + i));
        for (unsigned d = 0; d < T; d++) acc = call_dbl(acc);
        store(out + i, call_to_affine(acc));
    }
};

// ---- the arithmetic checks' bodies (device eval and host twin alike) ----------------------------

CUZK_HD bool fp_op_is_fp2(int op) {
    return (op >= CUZK_GPU_FP2_ADD && op <= CUZK_GPU_FP2_SQR) || op == CUZK_GPU_FP2_INV;
}

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
            case CUZK_GPU_FP2_INV: r = inv_var(x); break;
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
            case CUZK_GPU_FP_INV: r = inv_var(x); break;
            default: r = sqr(x); break;
            }
            store(static_cast<fp_mem *>(out) + i, r);
        }
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

// The same chain with the mixed additions made by madd_mem into a running sum in a slot, as the
// summing loops make them (the slot starts as b, then as a, or as the identity when that point
// is: madd_mem's branch for a sum that is the identity). Run by the host twins; the device runs
// madd_mem inside the MSM (test_gpu_msm).
template <class F> struct add_mem_eval_body {
    const aff_mem<F> *a, *b;
    jac_mem<F> *sum, *dbl_out;
    CUZK_HD void operator()(size_t i) const {
        const affine<F> pa = load(a + i), pb = load(b + i);
        acc_slot<F> slot;
        xyzz_mem<F> *acc = slot.get();
        store_sh(acc, xyzz_from_affine(pb));
        madd_mem(acc, neg(pa));
        store(sum + i, call_to_jac(call_add(call_dbl(xyzz_from_affine(pa)), load_sh(acc))));
        store_sh(acc, xyzz_from_affine(pa));
        madd_mem(acc, pb);
        madd_mem(acc, neg(pb));
        const xyzz<F> p = load_sh(acc);
        store(dbl_out + i, call_to_jac(call_add(p, p)));
    }
};

#endif
