/* Multi-scalar multiplication: the parts shared by both groups (window digits, the choice of
 * window width and work split; the scalars' conversion from Fr is ff/scalar.c's), then the
 * algorithm itself, written once in msm_impl.h and instantiated for G1 and G2.
 *
 * DESIGN (threads): one MSM call makes two passes over the pool, each a cuzk_pool_run.
 *   1. Scan: items are blocks of CUZK_MSM_SCAN_BLOCK indices; each sorts its indices into
 *      "skip" (zero scalar or identity point), "one" (scalar 1) and "big" lists written into
 *      the block's own slice of two index arrays. The caller then compacts the slices.
 *   2. Work: items are (window, range of the big list) pairs, then slabs of the "one" list.
 *      A window item accumulates its range into private buckets and reduces them to one
 *      partial window sum; a slab item sums its points. Each item writes only its own result
 *      slot, and each worker owns a workspace indexed by its worker id (allocated on its first
 *      item), so nothing is shared but read-only inputs. The caller combines the results
 *      in a fixed order after the run, so the output does not depend on scheduling.
 * No locks are taken; an allocation failure in a worker sets an atomic flag that the caller
 * turns into CUZK_ENOMEM after the run. */
#include "msm/msm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

/* Tunables. */
#define CUZK_MSM_MAX_WINDOW 18      /* widest window: 2^17 buckets per worker */
#define CUZK_MSM_AUTO_MAX_WINDOW 16 /* widest the cost model picks (bounds the memory) */
#define CUZK_MSM_SLAB 8192          /* points per batch of affine additions (per worker) */
#define CUZK_MSM_PASS (1u << 20)    /* points sorted at a time (at least 16 per bucket) */
#define CUZK_MSM_SCAN_BLOCK 16384   /* indices per scan item */
#define CUZK_MSM_MAX_N 0x7fffffffu  /* index lists keep a sign in bit 31 */
/* The cost model that picks the window width and the split, in field multiplications. */
#define CUZK_MSM_COST_POINT 7   /* one point into a bucket, one window (batch affine + sort) */
#define CUZK_MSM_COST_BUCKET 24 /* one bucket of the running-sum reduction (XYZZ madd + add) */
#define CUZK_MSM_COST_ITEM 300  /* one work item: c doublings to combine it, conversions */

/* ---- scalars ---------------------------------------------------------------------------- */

static int msm_scalar_is_zero(const cuzk_scalar *k) {
    return (k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0;
}

static int msm_scalar_is_one(const cuzk_scalar *k) {
    return ((k->l[0] ^ 1) | k->l[1] | k->l[2] | k->l[3]) == 0;
}

/* ---- window digits ---------------------------------------------------------------------- */

/* Bits [pos, pos + nbits) of the 256-bit k, nbits <= 32; bits past 255 read as zero. */
static inline uint64_t msm_bits(const uint64_t *k, unsigned pos, unsigned nbits) {
    unsigned limb = pos >> 6, off = pos & 63;
    if (limb >= 4) return 0;
    uint64_t v = k[limb] >> off;
    if (off + nbits > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
    return v & ((UINT64_C(1) << nbits) - 1);
}

/* The signed digit of window w of width c (Booth recoding): the window's c bits, plus the bit
 * just below the window (the carry in), minus 2^c when the window's own top bit is set (the
 * carry out, taken in by window w + 1). The digits lie in [-2^(c-1), 2^(c-1)], so 2^(c-1)
 * buckets serve a window, and sum_w d_w 2^(wc) = k as long as bit nwin * c - 1 of k is zero,
 * which nwin = ceil(256 / c) windows guarantee for k < 2^255. Each digit depends on k alone,
 * so windows are independent work items. */
static inline int32_t msm_digit(const uint64_t *k, unsigned w, unsigned c) {
    unsigned lo = w * c;
    /* v: bit 0 is bit lo - 1 of k (zero for the first window), bits 1..c the window */
    uint64_t v = lo ? msm_bits(k, lo - 1, c + 1) : msm_bits(k, 0, c) << 1;
    return (int32_t)(v >> 1) + (int32_t)(v & 1) - (int32_t)((v >> c) << c);
}

/* ---- the plan: window width and work split ---------------------------------------------- */

struct msm_plan {
    unsigned c;    /* window width in bits, 1..CUZK_MSM_MAX_WINDOW */
    unsigned nwin; /* windows: ceil(256 / c) */
    unsigned nb;   /* buckets per window: 2^(c-1) */
    size_t chunks; /* items per window: the big list is cut into this many ranges */
    size_t range;  /* points per range (the last one may be shorter) */
    size_t pass;   /* points of a range sorted at a time, bounding the sort's memory */
};

/* Chooses c and the split of m windowed points (m >= 1) over `threads` workers to minimise
 * the estimated makespan: items run in rounds of `threads`, and splitting a window into ranges
 * trades idle workers against one more bucket reduction per range. The work on n_ones points
 * of scalar 1 runs in the same job and fills idle workers. Non-zero fix_c, fix_chunks and
 * fix_pass are taken as given. */
static void msm_plan_make(struct msm_plan *p, size_t m, size_t n_ones, unsigned threads,
                          unsigned fix_c, size_t fix_chunks, size_t fix_pass) {
    double best = 0;
    unsigned c_lo = fix_c ? fix_c : 1, c_hi = fix_c ? fix_c : CUZK_MSM_AUTO_MAX_WINDOW;
    size_t ch_lo = 1, ch_hi = 4 * (size_t)threads;
    if (fix_chunks) ch_lo = ch_hi = fix_chunks;
    if (ch_hi > m) ch_hi = m;
    if (ch_lo > ch_hi) ch_lo = ch_hi;
    memset(p, 0, sizeof *p);
    for (unsigned c = c_lo; c <= c_hi; c++) {
        unsigned nwin = (256 + c - 1) / c;
        double nb = (double)(1u << (c - 1));
        for (size_t ch = ch_lo; ch <= ch_hi; ch++) {
            size_t range = (m + ch - 1) / ch;
            size_t chunks = (m + range - 1) / range; /* ch, or fewer: no range is left empty */
            if (chunks < ch && ch > ch_lo) continue; /* the same split as an earlier ch */
            double item = CUZK_MSM_COST_POINT * (double)range + CUZK_MSM_COST_BUCKET * nb +
                          CUZK_MSM_COST_ITEM;
            size_t items = nwin * chunks;
            double rounds = (double)((items + threads - 1) / threads);
            double total = (double)items * item + CUZK_MSM_COST_POINT * (double)n_ones;
            double t = rounds * item;
            if (t < total / threads) t = total / threads;
            if (p->c == 0 || t < best) {
                best = t;
                p->c = c;
                p->nwin = nwin;
                p->nb = 1u << (c - 1);
                p->chunks = chunks;
                p->range = range;
            }
        }
    }
    if (fix_pass)
        p->pass = fix_pass;
    else /* bounded memory, and at least 16 points a bucket so that carries stay rare */
        p->pass = (size_t)16 * p->nb > CUZK_MSM_PASS ? (size_t)16 * p->nb : CUZK_MSM_PASS;
    if (p->pass > p->range) p->pass = p->range;
}

/* ---- shared workspace helpers ----------------------------------------------------------- */

/* One group of slab entries being summed: entries [start, start + size) of the slab, all
 * belonging to one bucket. */
struct msm_group {
    uint32_t start, size, bucket;
};

#define CUZK_MSM_NEG 0x80000000u  /* in an index list: use -P */
#define CUZK_MSM_NONE 0xffffffffu /* in a digit list: digit 0, no bucket */

/* Reserves size bytes at *off of the block base (a cache line apart); with base NULL it only
 * measures. */
static void *msm_take(char *base, size_t *off, size_t size) {
    void *r = base ? base + *off : NULL;
    *off += (size + 63) & ~(size_t)63;
    return r;
}

/* ---- the algorithm, once per group ------------------------------------------------------ */

#define CUZK_E(name) cuzk_g1_##name
#define CUZK_M(name) msm_g1_##name
#define CUZK_E_T cuzk_g1
#define CUZK_E_AFF cuzk_g1_affine
#define CUZK_E_FT cuzk_fp
#define CUZK_E_FF(name) cuzk_fp_##name
#include "msm/msm_impl.h"
#undef CUZK_E
#undef CUZK_M
#undef CUZK_E_T
#undef CUZK_E_AFF
#undef CUZK_E_FT
#undef CUZK_E_FF

#define CUZK_E(name) cuzk_g2_##name
#define CUZK_M(name) msm_g2_##name
#define CUZK_E_T cuzk_g2
#define CUZK_E_AFF cuzk_g2_affine
#define CUZK_E_FT cuzk_fp2
#define CUZK_E_FF(name) cuzk_fp2_##name
#include "msm/msm_impl.h"
#undef CUZK_E
#undef CUZK_M
#undef CUZK_E_T
#undef CUZK_E_AFF
#undef CUZK_E_FT
#undef CUZK_E_FF
