/* GPU MSM benchmark: G1 (or G2) MSMs with the bases resident in device memory.
 *
 *   bench_gpu_msm [--quick] [--log-n 20,22,24,26] [--g2] [--bits PCT] [--reps R]
 *                 [--window C] [--fold W] [--pinned] [--chunk N] [--ones-tree T] [--presum P]
 *                 [--csv FILE]
 *     --quick    2^16 and 2^18, 3 repetitions (the CI smoke test)
 *     --log-n    the sizes, as base-2 logarithms (default 20,22,24,26; G2: 18,20,22)
 *     --g2       G2 instead of G1
 *     --bits P   P% of the scalars are 0 or 1 (a Filecoin-like witness), the rest uniform
 *     --reps R   timed repetitions per size after one warm-up (default 7)
 *     --window C bound the widest window (cuzk_gpu_msm_tune, 8..24; default automatic)
 *     --fold W   fold the bases for the folded layout of W bits (cuzk_gpu_bases_fold; 0: its
 *                automatic choice for the bases' count) in a context sized for folded MSMs
 *                (CUZK_GPU_MSM_FOLD); the time the fold took and each size's windows and sets
 *                are printed as comments
 *     --pinned   the host scalars in page-locked memory (cuzk_gpu_pinned_alloc: transferred in
 *                place), not in pageable memory (through the context's staging buffers)
 *     --chunk N  scalars per upload chunk (the tuning's upload_chunk; default the context's)
 *     --ones-tree T  the sum of the ones (the tuning's ones_tree): 0 automatic (default), 1
 *                batch-affine levels down to one point, -1 XYZZ sums only
 *     --presum P a context with a presum space (CUZK_GPU_MSM_PRESUM, with --g2 sized for G2:
 *                CUZK_GPU_MSM_PRESUM_G2) and the tuning's presum P: 0 automatic, 1 every set
 *                the space holds, -1 none (the same context's memory without the level);
 *                without the option, a context without the space
 *     --csv FILE append the CSV lines to FILE as well
 *
 * For each size it prints one CSV line
 *   msm,<group>,<log_n>,<bits_pct>,<window>,<ms_min>,<ms_median>,<dev_ms_min>,<dev_ms_median>,
 *       <upload_ms>,<bits_ms>,<sort_ms>,<accum_ms>,<reduce_ms>
 * where window is the widest window the MSM used (forced or automatic), ms is the wall-clock time
 * of cuzk_gpu_g*_msm with the scalars in host memory (upload included: the "wall" of an MSM from
 * host memory, to compare with dev_ms: the upload overlaps the classification of the scalars chunk
 * by chunk), dev_ms the time with the scalars already in device memory (G1: the scalars as
 * Montgomery Fr in an NTT context's buffer, cuzk_gpu_g1_msm_dev_fr; G2: the event time of the host
 * call less its upload), and the phase times (cuzk_gpu_msm_last_timing) are the medians of the
 * host-scalar calls. Lines starting with '#' are comments.
 *
 * Bases: 2^16 distinct random points repeated (bases[i] = pool[i mod 2^16]), which makes every
 * size exactly checkable: sum_i s_i P_(i mod T) = sum_j (sum of the s_i with i = j mod T) P_j,
 * an MSM of 2^16 points that the CPU computes in a moment. Every size is checked before it is
 * timed (and the device-scalar result too); a wrong result prints both points and exits 1.
 * Exit status: 0, 1 for a wrong result or a failure, 2 for bad usage, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_gpu_msm"
#include "bench_util.h"
#include "cuzk/error.h"
#include "ff/fr_vec.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "msm/msm.h"

#define POOL_LOG 16
#define POOL_N ((size_t)1 << POOL_LOG)
#define MAX_SIZES 16
#define MAX_REPS 64

static struct cuzk_pool *pool;

static int fail(int err, const char *what, int k) {
    fprintf(stderr, "bench_gpu_msm: %s at 2^%d failed: %s (%s)\n", what, k, cuzk_strerror(err),
            cuzk_gpu_msm_last_error());
    return 0;
}

/* ---- inputs ---------------------------------------------------------------------------------- */

/* agg[j] = sum of s[i] over i = j mod POOL_N (i < n), in parallel over blocks of j. */
struct agg_job {
    const cuzk_fr *s;
    cuzk_fr *agg;
    size_t n;
};
#define AGG_BLOCK 1024

static void agg_item(void *vctx, size_t item, unsigned worker) {
    (void)worker;
    const struct agg_job *a = vctx;
    for (size_t j = item * AGG_BLOCK; j < (item + 1) * AGG_BLOCK; j++) {
        cuzk_fr acc;
        cuzk_fr_set_zero(&acc);
        for (size_t i = j; i < a->n; i += POOL_N) cuzk_fr_add(&acc, &acc, &a->s[i]);
        a->agg[j] = acc;
    }
}

/* Fills fr with n random elements, bits_pct% of them 0 or 1. */
static void make_scalars(cuzk_fr *fr, size_t n, int bits_pct, uint64_t seed) {
    cuzk_fr_vec_random(pool, fr, n, seed);
    if (bits_pct <= 0) return;
    for (size_t i = 0; i < n; i++) {
        /* a cheap hash of i decides; the uniform values stay as they are */
        uint64_t h = (i + seed) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        if ((h % 100) < (uint64_t)bits_pct) {
            if (h & (1ull << 40))
                cuzk_fr_set_one(&fr[i]);
            else
                cuzk_fr_set_zero(&fr[i]);
        }
    }
}

/* ---- one size -------------------------------------------------------------------------------- */

struct opts {
    int g2, bits, reps, window, pinned, fold, ones_tree, presum, presum_ctx;
    size_t chunk;
    FILE *csv;
};

/* G1: times cuzk_gpu_g1_msm_dev_fr on the scalars as Montgomery Fr in the NTT context's buffer
 * (when there is one) into dev[], after checking its result. G2 keeps the event times. */
static int cuzk_g1_dev_times(const struct opts *o, struct cuzk_gpu_msm_ctx *ctx,
                             struct cuzk_gpu_ntt_ctx *nctx, const struct cuzk_gpu_bases *db,
                             const cuzk_fr *fr, size_t n, const cuzk_g1 *want, int k, double *dev) {
    if (!nctx) return 1;
    int err = cuzk_gpu_ntt_load(nctx, fr, n);
    if (err != CUZK_OK) return fail(err, "ntt load", k);
    void *dfr = cuzk_gpu_ntt_ctx_buffer(nctx);
    cuzk_g1 got;
    if ((err = cuzk_gpu_g1_msm_dev_fr(ctx, db, 0, dfr, n, &got)) != CUZK_OK)
        return fail(err, "msm_dev_fr", k);
    if (!cuzk_g1_eq(&got, want)) {
        fprintf(stderr, "bench_gpu_msm: WRONG RESULT g1 2^%d (device scalars)\n", k);
        return 0;
    }
    for (int r = 0; r < o->reps; r++) {
        const double t0 = bench_now_ms();
        if ((err = cuzk_gpu_g1_msm_dev_fr(ctx, db, 0, dfr, n, &got)) != CUZK_OK)
            return fail(err, "timed msm_dev_fr", k);
        dev[r] = bench_now_ms() - t0;
    }
    return 1;
}

static int cuzk_g2_dev_times(const struct opts *o, struct cuzk_gpu_msm_ctx *ctx,
                             struct cuzk_gpu_ntt_ctx *nctx, const struct cuzk_gpu_bases *db,
                             const cuzk_fr *fr, size_t n, const cuzk_g2 *want, int k, double *dev) {
    (void)o, (void)ctx, (void)nctx, (void)db, (void)fr, (void)n, (void)want, (void)k, (void)dev;
    return 1;
}

#define RUN_SIZE(G, S, NAME)                                                                       \
    static int G##_run(const struct opts *o, struct cuzk_gpu_msm_ctx *ctx,                         \
                       struct cuzk_gpu_ntt_ctx *nctx, const struct cuzk_gpu_bases *db,             \
                       const G##_affine *pts, int k) {                                             \
        const size_t n = (size_t)1 << k;                                                           \
        cuzk_fr *fr = bench_xmalloc(n * sizeof *fr), *agg = bench_xmalloc(POOL_N * sizeof *agg);   \
        cuzk_scalar *sc = NULL, *aggs = bench_xmalloc(POOL_N * sizeof *aggs);                      \
        int ok = 1, err;                                                                           \
        if (!o->pinned)                                                                            \
            sc = bench_xmalloc(n * sizeof *sc);                                                    \
        else if ((err = cuzk_gpu_pinned_alloc(n * sizeof *sc, (void **)&sc)) != CUZK_OK) {         \
            ok = fail(err, "pinned scalars", k);                                                   \
            goto out;                                                                              \
        }                                                                                          \
        make_scalars(fr, n, o->bits, 0x6d736d2d62656e63ull + (uint64_t)k);                         \
        cuzk_scalar_batch_from_fr(pool, sc, fr, n);                                                \
        struct agg_job aj = {fr, agg, n};                                                          \
        cuzk_pool_run(pool, POOL_N / AGG_BLOCK, agg_item, &aj);                                    \
        cuzk_scalar_batch_from_fr(pool, aggs, agg, POOL_N);                                        \
        G want, got;                                                                               \
        double t0 = bench_now_ms();                                                                \
        if (G##_msm(pool, &want, pts, aggs, POOL_N) != CUZK_OK) {                                  \
            ok = fail(CUZK_ENOMEM, "cpu msm", k);                                                  \
            goto out;                                                                              \
        }                                                                                          \
        printf("# 2^%d: reference (an MSM of 2^%d points on the CPU) %.0f ms\n", k, POOL_LOG,      \
               bench_now_ms() - t0);                                                               \
        if ((err = cuzk_gpu_##S##_msm(ctx, db, 0, sc, n, &got)) != CUZK_OK) {                      \
            ok = fail(err, "msm", k);                                                              \
            goto out;                                                                              \
        }                                                                                          \
        if (!G##_eq(&got, &want)) {                                                                \
            fprintf(stderr, "bench_gpu_msm: WRONG RESULT " NAME " 2^%d (host scalars)\n", k);      \
            ok = 0;                                                                                \
            goto out;                                                                              \
        }                                                                                          \
        double wall[MAX_REPS], dev[MAX_REPS];                                                      \
        double ph[5][MAX_REPS];                                                                    \
        struct cuzk_gpu_msm_timing t;                                                              \
        for (int r = 0; r < o->reps; r++) {                                                        \
            t0 = bench_now_ms();                                                                   \
            if ((err = cuzk_gpu_##S##_msm(ctx, db, 0, sc, n, &got)) != CUZK_OK) {                  \
                ok = fail(err, "timed msm", k);                                                    \
                goto out;                                                                          \
            }                                                                                      \
            wall[r] = bench_now_ms() - t0;                                                         \
            cuzk_gpu_msm_last_timing(ctx, &t);                                                     \
            ph[0][r] = t.upload_ms, ph[1][r] = t.bits_ms, ph[2][r] = t.sort_ms;                    \
            ph[3][r] = t.accum_ms, ph[4][r] = t.reduce_ms;                                         \
            dev[r] = (double)(t.total_ms - t.upload_ms);                                           \
        }                                                                                          \
        if (!G##_dev_times(o, ctx, nctx, db, fr, n, &want, k, dev)) {                              \
            ok = 0;                                                                                \
            goto out;                                                                              \
        }                                                                                          \
        bench_sort(wall, (size_t)o->reps);                                                         \
        bench_sort(dev, (size_t)o->reps);                                                          \
        for (int p = 0; p < 5; p++) bench_sort(ph[p], (size_t)o->reps);                            \
        const int m = o->reps / 2;                                                                 \
        char line[256];                                                                            \
        snprintf(line, sizeof line,                                                                \
                 "msm,%s,%d,%d,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", NAME, k, o->bits, \
                 t.window, wall[0], wall[m], dev[0], dev[m], ph[0][m], ph[1][m], ph[2][m],         \
                 ph[3][m], ph[4][m]);                                                              \
        printf("%s\n", line);                                                                      \
        if (o->csv) fprintf(o->csv, "%s\n", line);                                                 \
        printf("# 2^%d: %u windows in %u sets (%s)\n", k, t.windows, t.sets,                       \
               t.folded ? "folded" : "plain");                                                     \
        fflush(stdout);                                                                            \
    out:                                                                                           \
        free(fr);                                                                                  \
        free(agg);                                                                                 \
        if (o->pinned)                                                                             \
            cuzk_gpu_pinned_free(sc, n * sizeof *sc);                                              \
        else                                                                                       \
            free(sc);                                                                              \
        free(aggs);                                                                                \
        return ok;                                                                                 \
    }
RUN_SIZE(cuzk_g1, g1, "g1")
RUN_SIZE(cuzk_g2, g2, "g2")

/* Uploads 2^max tiled bases of the group, then runs every size. */
#define RUN_ALL(G, S, NAME)                                                                        \
    static int G##_all(const struct opts *o, const int *sizes, int nsizes, int max,                \
                       struct cuzk_gpu_msm_ctx *ctx, struct cuzk_gpu_ntt_ctx *nctx) {              \
        const size_t nb = (size_t)1 << max;                                                        \
        G##_affine *pts = bench_xmalloc(POOL_N * sizeof *pts),                                     \
                   *tiled = bench_xmalloc(nb * sizeof *tiled);                                     \
        struct cuzk_gpu_bases *db = NULL;                                                          \
        double t0 = bench_now_ms();                                                                \
        bench_##S##_points(pool, pts, POOL_N);                                                     \
        for (size_t i = 0; i < nb; i += POOL_N)                                                    \
            memcpy(tiled + i, pts, (nb - i < POOL_N ? nb - i : POOL_N) * sizeof *pts);             \
        int err = cuzk_gpu_##S##_bases_upload(0, tiled, nb, &db);                                  \
        free(tiled);                                                                               \
        int ok = 1;                                                                                \
        if (err != CUZK_OK) {                                                                      \
            ok = fail(err, "bases upload", max);                                                   \
        } else {                                                                                   \
            printf("# " NAME " bases: 2^%d (%.2f GiB of device memory), made and uploaded in "     \
                   "%.0f ms\n",                                                                    \
                   max, (double)cuzk_gpu_bases_vram(db) / (1 << 30), bench_now_ms() - t0);         \
            if (o->fold >= 0) {                                                                    \
                t0 = bench_now_ms();                                                               \
                if ((err = cuzk_gpu_bases_fold(db, (unsigned)o->fold)) != CUZK_OK)                 \
                    ok = fail(err, "fold of the bases", max);                                      \
                else                                                                               \
                    printf("# folded for %u bits in %.0f ms (%.2f GiB with the multiples)\n",      \
                           cuzk_gpu_bases_fold_window(db), bench_now_ms() - t0,                    \
                           (double)cuzk_gpu_bases_vram(db) / (1 << 30));                           \
            }                                                                                      \
            for (int s = 0; s < nsizes && ok; s++) ok = G##_run(o, ctx, nctx, db, pts, sizes[s]);  \
        }                                                                                          \
        cuzk_gpu_bases_free(db);                                                                   \
        free(pts);                                                                                 \
        return ok;                                                                                 \
    }
RUN_ALL(cuzk_g1, g1, "g1")
RUN_ALL(cuzk_g2, g2, "g2")

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--quick] [--log-n 20,22,24,26] [--g2] [--bits PCT] [--reps R] "
            "[--window C] [--fold W] [--pinned] [--chunk N] [--ones-tree T] [--presum P] "
            "[--csv FILE]\n",
            argv0);
    return 2;
}

int main(int argc, char **argv) {
    struct opts o = {0, 0, 7, 0, 0, -1, 0, 0, 0, 0, NULL};
    int quick = 0, sizes[MAX_SIZES], nsizes = 0;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--g2")) {
            o.g2 = 1;
        } else if (!strcmp(a, "--log-n") && v) {
            if ((nsizes = bench_parse_logs(argv[++i], sizes, MAX_SIZES, 28)) < 0)
                return usage(argv[0]);
        } else if (!strcmp(a, "--bits") && v) {
            o.bits = atoi(argv[++i]);
            if (o.bits < 0 || o.bits > 100) return usage(argv[0]);
        } else if (!strcmp(a, "--reps") && v) {
            o.reps = atoi(argv[++i]);
            if (o.reps < 1 || o.reps > MAX_REPS) return usage(argv[0]);
        } else if (!strcmp(a, "--fold") && v) {
            o.fold = atoi(argv[++i]);
            if (o.fold != 0 && (o.fold < 8 || o.fold > 24)) return usage(argv[0]);
        } else if (!strcmp(a, "--window") && v) {
            o.window = atoi(argv[++i]);
            if (o.window < 8 || o.window > 24) return usage(argv[0]);
        } else if (!strcmp(a, "--pinned")) {
            o.pinned = 1;
        } else if (!strcmp(a, "--chunk") && v) {
            const long c = atol(argv[++i]);
            if (c < 1) return usage(argv[0]);
            o.chunk = (size_t)c;
        } else if (!strcmp(a, "--ones-tree") && v) {
            o.ones_tree = atoi(argv[++i]);
            if (o.ones_tree < -1 || o.ones_tree > 1) return usage(argv[0]);
        } else if (!strcmp(a, "--presum") && v) {
            o.presum = atoi(argv[++i]);
            o.presum_ctx = 1;
            if (o.presum < -1 || o.presum > 1) return usage(argv[0]);
        } else if (!strcmp(a, "--csv") && v) {
            csv = argv[++i];
        } else {
            return usage(argv[0]);
        }
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;
    if (!nsizes) {
        static const int g1_full[] = {20, 22, 24, 26}, g2_full[] = {18, 20, 22},
                         short_[] = {16, 18};
        const int *src = quick ? short_ : o.g2 ? g2_full : g1_full;
        nsizes = quick ? 2 : o.g2 ? 3 : 4;
        memcpy(sizes, src, (size_t)nsizes * sizeof *sizes);
    }
    if (quick) o.reps = o.reps < 3 ? o.reps : 3;
    int max = POOL_LOG;
    for (int s = 0; s < nsizes; s++) max = sizes[s] > max ? sizes[s] : max;

    if (csv && !(o.csv = fopen(csv, "a"))) {
        fprintf(stderr, "bench_gpu_msm: cannot open %s\n", csv);
        return 1;
    }
    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "bench-gpu-msm") != CUZK_OK) {
        fprintf(stderr, "bench_gpu_msm: cannot create the thread pool\n");
        return 1;
    }
    struct cuzk_gpu_msm_ctx *ctx = NULL;
    struct cuzk_gpu_ntt_ctx *nctx = NULL;
    const unsigned flags = (o.fold >= 0 ? CUZK_GPU_MSM_FOLD : 0u) |
                           (o.presum_ctx ? CUZK_GPU_MSM_PRESUM : 0u) |
                           (o.presum_ctx && o.g2 ? CUZK_GPU_MSM_PRESUM_G2 : 0u);
    int err = cuzk_gpu_msm_ctx_create2(0, (size_t)1 << max, flags, &ctx);
    if (err != CUZK_OK) return !fail(err, "context creation", max);
    if (o.window || o.chunk || o.ones_tree || o.presum) {
        struct cuzk_gpu_msm_tuning t = {(unsigned)o.window, 0, o.chunk, 0,
                                        o.ones_tree,        0, o.presum};
        cuzk_gpu_msm_tune(ctx, &t);
    }
    if (!o.g2 && cuzk_gpu_ntt_ctx_create(0, max, &nctx) != CUZK_OK) {
        printf("# no room for an NTT context of 2^%d: device-scalar times are event times\n", max);
        nctx = NULL;
    }
    printf("# MSM context for 2^%d: %.2f GiB; %d timed repetitions after a warm-up; window %s\n",
           max, (double)cuzk_gpu_msm_ctx_vram2((size_t)1 << max, flags) / (1 << 30), o.reps,
           o.window ? "forced" : "automatic");
    printf("# host scalars in %s memory, upload chunks of %zu scalars (%s)\n",
           o.pinned ? "page-locked" : "pageable",
           o.chunk ? o.chunk : cuzk_gpu_msm_ctx_pinned((size_t)1 << max) / 2 / sizeof(cuzk_scalar),
           o.chunk ? "forced, at most the staging size" : "the staging size");
    printf("op,group,log_n,bits_pct,window,ms_min,ms_median,dev_ms_min,dev_ms_median,upload_ms,"
           "bits_ms,sort_ms,accum_ms,reduce_ms\n");
    const int ok = o.g2 ? cuzk_g2_all(&o, sizes, nsizes, max, ctx, nctx)
                        : cuzk_g1_all(&o, sizes, nsizes, max, ctx, nctx);
    cuzk_gpu_ntt_ctx_free(nctx);
    cuzk_gpu_msm_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    if (o.csv) fclose(o.csv);
    return ok ? 0 : 1;
}
