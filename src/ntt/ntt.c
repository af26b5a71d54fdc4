/* DESIGN: the forward transform is a radix-2 decimation-in-time NTT preceded by a bit-reversal
 * permutation, organised in passes so that every pass reads and writes the array once while
 * its butterflies run on data held in cache:
 *   1. bit reversal, in tiles of 2^TILE_LOG x 2^TILE_LOG elements: a tile and its mirror image
 *      are swapped together, so both are read as short contiguous runs instead of one random
 *      access per element;
 *   2. the first stages, which only mix elements inside contiguous blocks: each block of up to
 *      2^CUZK_NTT_BLOCK_LOG elements is a complete small transform done in cache (blocks shrink
 *      when the pool would otherwise get fewer than four per worker);
 *   3. the remaining stages, CUZK_NTT_GROUP_LOG at most per pass: a group of stages [s0, s0+G)
 *      mixes elements whose indices differ only in bits s0..s0+G-1, i.e. 2^G rows at a stride of
 *      2^s0. Rows are gathered CUZK_NTT_COLS adjacent columns at a time into a stack buffer
 *      (a power-of-two stride would map every row to the same cache sets), transformed there and
 *      scattered back.
 * Every pass is a cuzk_pool_run over independent items (tile ranges, blocks, row groups), so
 * the pool threads share nothing but the read-only domain; the caller's thread takes part and
 * cuzk_pool_run returns when the pass is complete, which orders the passes. Every layout
 * computes the same butterflies on the same values, only in another order, so results are
 * identical for any pool size.
 * The inverse runs the forward transform and then one elementwise pass that reverses a_1..a_(n-1)
 * and applies 1/n (and, for the coset inverse, s^-i) in the same sweep. */
#include "ntt/ntt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

/* Tunables. A block of 2^12 elements is 128 KiB (private L2); a group buffer, on the worker's
 * stack, holds 2^GROUP_LOG rows of COLS elements (64 KiB). COLS = 8 elements = 256 bytes, four
 * cache lines per row gathered. */
#define CUZK_NTT_BLOCK_LOG 12
#define CUZK_NTT_MIN_BLOCK_LOG 6 /* at least COLS: later passes gather COLS columns */
#define CUZK_NTT_GROUP_LOG 8
#define CUZK_NTT_COLS 8
#define TILE_LOG 3         /* bit-reversal tiles of 8 x 8 */
#define TILE_MIDS 64       /* tile pairs per bit-reversal item */
#define SCALE_BLOCK 2048   /* elements per item of the elementwise passes */
#define TWIDDLE_BLOCK 4096 /* powers per item when building twiddles */

/* ---- small helpers ------------------------------------------------------------------------- */

static uint64_t bitrev64(uint64_t x) {
    x = __builtin_bswap64(x);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    return x;
}

/* The low `bits` bits of x in reverse order (bits >= 1). */
static size_t bitrev(size_t x, int bits) { return (size_t)(bitrev64(x) >> (64 - bits)); }

static void fr_swap(cuzk_fr *x, cuzk_fr *y) {
    cuzk_fr t = *x;
    *x = *y;
    *y = t;
}

/* (x, y) <- (x + w y, x - w y) */
CUZK_INLINE void butterfly(cuzk_fr *x, cuzk_fr *y, const cuzk_fr *w) {
    cuzk_fr t;
    cuzk_fr_mul(&t, y, w);
    cuzk_fr_sub(y, x, &t);
    cuzk_fr_add(x, x, &t);
}

/* (x, y) <- (x + y, x - y) */
CUZK_INLINE void butterfly1(cuzk_fr *x, cuzk_fr *y) {
    cuzk_fr t = *y;
    cuzk_fr_sub(y, x, &t);
    cuzk_fr_add(x, x, &t);
}

static void fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e) { cuzk_fr_pow(r, a, &e, 1); }

static size_t div_ceil(size_t a, size_t b) { return (a + b - 1) / b; }

/* ---- domains ------------------------------------------------------------------------------- */

struct twiddle_job {
    cuzk_fr *top; /* top[j] = omega^j for j < half */
    size_t half;
    const cuzk_fr *omega;
};

static void twiddle_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct twiddle_job *job = ctx;
    size_t lo = item * TWIDDLE_BLOCK,
           hi = lo + TWIDDLE_BLOCK < job->half ? lo + TWIDDLE_BLOCK : job->half;
    cuzk_fr p;
    fr_pow_u64(&p, job->omega, lo);
    for (size_t j = lo; j < hi; j++) {
        job->top[j] = p;
        cuzk_fr_mul(&p, &p, job->omega);
    }
}

int cuzk_ntt_domain_create(struct cuzk_pool *pool, int log_n, struct cuzk_ntt_domain **out) {
    if (log_n < 1 || log_n > CUZK_NTT_MAX_LOG || !out) return CUZK_EINVAL;
    struct cuzk_ntt_domain *d = calloc(1, sizeof *d);
    if (!d) return CUZK_ENOMEM;
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->twiddles = malloc(d->n * sizeof *d->twiddles);
    if (!d->twiddles) {
        free(d);
        return CUZK_ENOMEM;
    }
    cuzk_fr_root_of_unity(&d->omega, log_n);
    cuzk_fr_root_of_unity(&d->omega_2n, log_n + 1);
    cuzk_fr_inv(&d->omega_inv, &d->omega);
    cuzk_fr_from_u64(&d->n_inv, d->n);
    cuzk_fr_inv(&d->n_inv, &d->n_inv);

    /* The last stage (m = n/2) uses omega^j; each smaller stage takes every other power of the
     * stage above it, since omega_(2m)^j = omega_(4m)^(2j). */
    size_t half = d->n / 2;
    struct twiddle_job job = {d->twiddles + half, half, &d->omega};
    cuzk_pool_run(pool, div_ceil(half, TWIDDLE_BLOCK), twiddle_item, &job);
    for (size_t m = half / 2; m >= 1; m /= 2)
        for (size_t j = 0; j < m; j++) d->twiddles[m + j] = d->twiddles[2 * m + 2 * j];
    cuzk_fr_set_one(&d->twiddles[0]);
    *out = d;
    return CUZK_OK;
}

void cuzk_ntt_domain_free(struct cuzk_ntt_domain *d) {
    if (!d) return;
    free(d->twiddles);
    free(d);
}

/* The cache: one slot per size, filled under the lock. A build holds the lock for its whole
 * duration (at most a few seconds at k = 28) so that two threads never build, and hold memory
 * for, the same large domain twice. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cuzk_ntt_domain *cache[CUZK_NTT_MAX_LOG + 1];

int cuzk_ntt_domain_get(int log_n, const struct cuzk_ntt_domain **out) {
    if (log_n < 1 || log_n > CUZK_NTT_MAX_LOG || !out) return CUZK_EINVAL;
    int err = CUZK_OK;
    pthread_mutex_lock(&cache_lock);
    if (!cache[log_n]) err = cuzk_ntt_domain_create(NULL, log_n, &cache[log_n]);
    if (err == CUZK_OK) *out = cache[log_n];
    pthread_mutex_unlock(&cache_lock);
    return err;
}

void cuzk_ntt_cache_clear(void) {
    pthread_mutex_lock(&cache_lock);
    for (int k = 0; k <= CUZK_NTT_MAX_LOG; k++) {
        cuzk_ntt_domain_free(cache[k]);
        cache[k] = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
}

/* ---- pass 1: bit reversal ------------------------------------------------------------------ */

struct bitrev_job {
    cuzk_fr *a;
    int log_n;
};

/* Index i = (h, mid, l) with h and l of TILE_LOG bits maps to (rev l, rev mid, rev h): the tile
 * of `mid` exchanges with the transposed tile of rev(mid). Each item takes TILE_MIDS values of
 * mid and handles the pairs whose smaller member it holds. */
static void bitrev_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct bitrev_job *job = ctx;
    const int k = job->log_n, mbits = k - 2 * TILE_LOG;
    const size_t t = (size_t)1 << TILE_LOG, nmid = (size_t)1 << mbits;
    size_t lo = item * TILE_MIDS, hi = lo + TILE_MIDS < nmid ? lo + TILE_MIDS : nmid;
    cuzk_fr *a = job->a;
    for (size_t mid = lo; mid < hi; mid++) {
        size_t mr = mbits ? bitrev(mid, mbits) : 0;
        if (mid > mr) continue;
        for (size_t h = 0; h < t; h++) {
            size_t rh = bitrev(h, TILE_LOG);
            for (size_t l = 0; l < t; l++) {
                size_t i = (h << (k - TILE_LOG)) | (mid << TILE_LOG) | l;
                size_t j = (bitrev(l, TILE_LOG) << (k - TILE_LOG)) | (mr << TILE_LOG) | rh;
                if (mid < mr || i < j) fr_swap(&a[i], &a[j]);
            }
        }
    }
}

static void bitrev_permute(struct cuzk_pool *pool, cuzk_fr *a, int log_n) {
    size_t n = (size_t)1 << log_n;
    if (log_n < 2 * TILE_LOG) {
        for (size_t i = 0; i < n; i++) {
            size_t j = bitrev(i, log_n);
            if (i < j) fr_swap(&a[i], &a[j]);
        }
        return;
    }
    struct bitrev_job job = {a, log_n};
    cuzk_pool_run(pool, div_ceil((size_t)1 << (log_n - 2 * TILE_LOG), TILE_MIDS), bitrev_item,
                  &job);
}

/* ---- pass 2: the first stages, block by block ---------------------------------------------- */

struct stages_job {
    const struct cuzk_ntt_domain *d;
    cuzk_fr *a;
    int s0, g; /* stages [s0, s0 + g) */
};

/* Stages 0 .. g-1 on the contiguous block a[0 .. 2^g). Within it, i mod m is the offset from
 * the start of each 2m-group, so stage m reads twiddles[m .. 2m) in order. */
static void block_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct stages_job *job = ctx;
    const size_t len = (size_t)1 << job->g;
    cuzk_fr *a = job->a + item * len;
    const cuzk_fr *tw = job->d->twiddles;
    for (size_t i = 0; i < len; i += 2) butterfly1(&a[i], &a[i + 1]);
    for (size_t m = 2; m < len; m *= 2) {
        for (size_t g = 0; g < len; g += 2 * m) {
            cuzk_fr *x = a + g, *y = a + g + m;
            butterfly1(&x[0], &y[0]);
            for (size_t j = 1; j < m; j++) butterfly(&x[j], &y[j], &tw[m + j]);
        }
    }
}

/* ---- pass 3: later stages on gathered rows ------------------------------------------------- */

/* Stages [s0, s0 + g) for one item: the 2^g rows base + r 2^s0 (r < 2^g), columns
 * [c0, c0 + COLS). For global stage half-size m = 2^(s0+t) the element of row r (bit t clear)
 * and column c has i mod m = (r mod 2^t) 2^s0 + c, so a row's COLS twiddles are contiguous. */
static void group_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct stages_job *job = ctx;
    const int s0 = job->s0, g = job->g;
    const size_t rows = (size_t)1 << g, stride = (size_t)1 << s0;
    const size_t col_blocks = stride / CUZK_NTT_COLS;
    const size_t base = (item / col_blocks) << (s0 + g), c0 = (item % col_blocks) * CUZK_NTT_COLS;
    const cuzk_fr *tw = job->d->twiddles;
    cuzk_fr buf[CUZK_NTT_COLS << CUZK_NTT_GROUP_LOG];
    cuzk_fr *a = job->a + base + c0;

    for (size_t r = 0; r < rows; r++)
        memcpy(&buf[r * CUZK_NTT_COLS], &a[r * stride], CUZK_NTT_COLS * sizeof(cuzk_fr));
    for (int t = 0; t < g; t++) {
        const size_t h = (size_t)1 << t, m = (size_t)1 << (s0 + t);
        for (size_t r0 = 0; r0 < rows; r0 += 2 * h) {
            for (size_t r = 0; r < h; r++) {
                cuzk_fr *x = &buf[(r0 + r) * CUZK_NTT_COLS], *y = x + h * CUZK_NTT_COLS;
                const cuzk_fr *w = &tw[m + (r << s0) + c0];
                for (size_t c = 0; c < CUZK_NTT_COLS; c++) butterfly(&x[c], &y[c], &w[c]);
            }
        }
    }
    for (size_t r = 0; r < rows; r++)
        memcpy(&a[r * stride], &buf[r * CUZK_NTT_COLS], CUZK_NTT_COLS * sizeof(cuzk_fr));
}

void cuzk_ntt_forward(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a) {
    const int k = d->log_n;
    bitrev_permute(pool, a, k);
    /* Blocks as large as the cache allows, but small enough that every worker gets a few. */
    const size_t workers = cuzk_pool_size(pool), want = workers > 1 ? 4 * workers : 1;
    int first = k < CUZK_NTT_BLOCK_LOG ? k : CUZK_NTT_BLOCK_LOG;
    while (first > CUZK_NTT_MIN_BLOCK_LOG && (d->n >> first) < want) first--;
    struct stages_job job = {d, a, 0, first};
    cuzk_pool_run(pool, d->n >> first, block_item, &job);
    /* The rest in as few passes as the group size allows, split evenly. */
    int left = k - first, passes = (left + CUZK_NTT_GROUP_LOG - 1) / CUZK_NTT_GROUP_LOG;
    for (job.s0 = first; left > 0; passes--) {
        job.g = (left + passes - 1) / passes;
        cuzk_pool_run(pool, d->n >> job.g >> __builtin_ctz(CUZK_NTT_COLS), group_item, &job);
        job.s0 += job.g;
        left -= job.g;
    }
}

/* ---- elementwise passes -------------------------------------------------------------------- */

struct scale_job {
    cuzk_fr *a;
    size_t n;
    cuzk_fr c, t, t_inv; /* see reverse_scale */
    int geometric;       /* t != 1 */
};

static void scale_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct scale_job *job = ctx;
    size_t lo = item * SCALE_BLOCK, hi = lo + SCALE_BLOCK < job->n ? lo + SCALE_BLOCK : job->n;
    cuzk_fr p;
    fr_pow_u64(&p, &job->t, lo);
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr_mul(&job->a[i], &job->a[i], &p);
        cuzk_fr_mul(&p, &p, &job->t);
    }
}

void cuzk_ntt_scale_powers(struct cuzk_pool *pool, cuzk_fr *a, size_t n, const cuzk_fr *s) {
    struct scale_job job = {.a = a, .n = n, .t = *s};
    cuzk_pool_run(pool, div_ceil(n, SCALE_BLOCK), scale_item, &job);
}

/* For j in [1, n/2): pairs (j, n-j). a_j <- c t^j a_(n-j) and a_(n-j) <- c t^(n-j) a_j; a_0 and
 * a_(n/2) stay in place, scaled by c and c t^(n/2). Applied after a forward transform this is
 * the inverse transform (c = 1/n, t = 1), or the coset inverse (c = 1/n, t = 1/s). */
static void reverse_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct scale_job *job = ctx;
    const size_t n = job->n, half = n / 2;
    size_t lo = item * SCALE_BLOCK, hi = lo + SCALE_BLOCK < half + 1 ? lo + SCALE_BLOCK : half + 1;
    cuzk_fr *a = job->a;
    cuzk_fr p = job->c, q = job->c; /* c t^j and c t^(n-j) */
    if (job->geometric) {
        cuzk_fr e;
        fr_pow_u64(&e, &job->t, lo);
        cuzk_fr_mul(&p, &p, &e);
        fr_pow_u64(&e, &job->t, n - lo);
        cuzk_fr_mul(&q, &q, &e);
    }
    for (size_t j = lo; j < hi; j++) {
        if (j == 0 || j == half) {
            cuzk_fr_mul(&a[j], &a[j], &p);
        } else {
            cuzk_fr x = a[j];
            cuzk_fr_mul(&a[j], &a[n - j], &p);
            cuzk_fr_mul(&a[n - j], &x, &q);
        }
        if (job->geometric) {
            cuzk_fr_mul(&p, &p, &job->t);
            cuzk_fr_mul(&q, &q, &job->t_inv);
        }
    }
}

static void reverse_scale(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                          const cuzk_fr *shift) {
    struct scale_job job = {.a = a, .n = d->n, .c = d->n_inv};
    if (shift) {
        job.t_inv = *shift;
        cuzk_fr_inv(&job.t, shift);
        job.geometric = 1;
    }
    cuzk_pool_run(pool, div_ceil(d->n / 2 + 1, SCALE_BLOCK), reverse_item, &job);
}

/* ---- the transforms ------------------------------------------------------------------------ */

void cuzk_ntt_inverse(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a) {
    cuzk_ntt_forward(pool, d, a);
    reverse_scale(pool, d, a, NULL);
}

void cuzk_ntt_coset_forward(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                            const cuzk_fr *shift) {
    cuzk_ntt_scale_powers(pool, a, d->n, shift);
    cuzk_ntt_forward(pool, d, a);
}

void cuzk_ntt_coset_inverse(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                            const cuzk_fr *shift) {
    cuzk_ntt_forward(pool, d, a);
    reverse_scale(pool, d, a, shift);
}
