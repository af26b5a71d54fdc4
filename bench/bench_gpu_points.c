/* Key loading benchmark: points streamed through the GPU loader (src/gpu/gpu_points.h) into
 * resident bases, compressed (decoded on the GPU) and LEM (copied), G1 and G2.
 *
 *   bench_gpu_points [--quick] [--log-n 22,24] [--reps R] [--chunk-mib M] [--csv FILE]
 *     --quick       2^16 and 2^18, 2 repetitions (the CI smoke test)
 *     --log-n       the sizes, as base-2 logarithms (default 22,24)
 *     --reps R      timed repetitions per case after one warm-up (default 3)
 *     --chunk-mib M the loader's buffer size in MiB (default 64)
 *     --csv FILE    append the CSV lines to FILE as well
 *
 * For each group, encoding and size it prints one CSV line
 *   points,<group>,<enc>,<log_n>,<chunk_mib>,<ms_min>,<ms_median>,<mpts_per_s>,<gib_per_s>
 * where ms is the wall-clock time of a whole load: for every chunk, _buffer, a memcpy of the
 * chunk's encodings into the pinned buffer (standing in for the read from the key file),
 * _submit; then _finish. mpts_per_s (millions of points per second) and gib_per_s (encoded
 * bytes per second) are of the median. Lines starting with '#' are comments; they project the
 * time of a 430M G1 + 33M G2 compressed key (a PoRep 32 GiB key's size) from the rates.
 *
 * Inputs: 2^16 distinct points (random multiples of the generator, every other negated, so
 * both roots appear) repeated; the decoding does the same work whatever the repetition. After
 * the timed loads, the first, the last and 4096 random points are read back and compared with
 * the CPU's decoding of their encoding (cuzk_g*_from_compressed; the pool's points for LEM),
 * and no point may be reported bad; a mismatch prints the index and exits 1.
 * Exit status: 0, 1 for a wrong result or a failure, 2 for bad usage, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_gpu_points"
#include "bench_util.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "gpu/gpu.h"
#include "gpu/gpu_points.h"
#include "msm/msm.h"

#define POOL_LOG 16
#define POOL_N ((size_t)1 << POOL_LOG)
#define MAX_SIZES 16
#define MAX_REPS 64
#define SAMPLE 4096
#define KEY_G1 430000000.0 /* the points of a PoRep 32 GiB key: the projection's sizes */
#define KEY_G2 33000000.0

struct opts {
    int reps;
    size_t chunk;
    FILE *csv;
};

static int fail(int err, const char *what) {
    fprintf(stderr, "bench_gpu_points: %s failed: %s (%s)\n", what, cuzk_strerror(err),
            cuzk_gpu_points_last_error());
    return 0;
}

/* One load of n points whose encodings (eb bytes each) repeat the POOL_N at src. */
static int load(struct cuzk_gpu_points_loader *l, struct cuzk_gpu_bases *b, const uint8_t *src,
                size_t n, size_t eb, enum cuzk_gpu_point_enc enc) {
    const size_t per = cuzk_gpu_points_loader_chunk_bytes(l) / eb;
    for (size_t at = 0; at < n; at += per) {
        const size_t k = n - at < per ? n - at : per;
        void *buf = NULL;
        int err = cuzk_gpu_points_loader_buffer(l, &buf);
        if (err != CUZK_OK) return fail(err, "loader buffer");
        for (size_t j = 0; j < k;) { /* the tiles of the pool that the chunk covers */
            const size_t i = (at + j) % POOL_N, m = k - j < POOL_N - i ? k - j : POOL_N - i;
            memcpy((uint8_t *)buf + j * eb, src + i * eb, m * eb);
            j += m;
        }
        if ((err = cuzk_gpu_points_loader_submit(l, b, at, k, enc)) != CUZK_OK)
            return fail(err, "loader submit");
    }
    size_t bad = 0;
    const int err = cuzk_gpu_points_loader_finish(l, &bad);
    if (err != CUZK_OK) return fail(err, "loader finish");
    return 1;
}

#define GROUP(G, S, GG, NAME, CBYTES)                                                              \
    /* The pool: bench_g*_points with every other point negated (so both roots appear), its LEM    \
     * bytes and compressed encodings. */                                                          \
    static void G##_pool(G##_affine *pts, uint8_t *cmp) {                                          \
        bench_##S##_points(NULL, pts, POOL_N);                                                     \
        for (size_t i = 0; i < POOL_N; i++) {                                                      \
            if (i % 2) G##_affine_neg(&pts[i], &pts[i]);                                           \
            G##_to_compressed(cmp + i * CBYTES, &pts[i]);                                          \
        }                                                                                          \
    }                                                                                              \
    /* The sample read back from b against the CPU's decoding. */                                  \
    static int G##_verify(const struct cuzk_gpu_bases *b, size_t n, const G##_affine *pts,         \
                          const uint8_t *cmp, enum cuzk_gpu_point_enc enc, int k) {                \
        for (size_t s = 0; s < SAMPLE + 2; s++) {                                                  \
            const size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)rand() * 7919 % n;              \
            G##_affine got, want = pts[i % POOL_N];                                                \
            int err = cuzk_gpu_bases_read(b, i, &got, 1);                                          \
            if (err != CUZK_OK) return fail(err, "read back");                                     \
            if (enc == CUZK_GPU_PT_COMPRESSED &&                                                   \
                (err = G##_from_compressed(&want, cmp + (i % POOL_N) * CBYTES)) != CUZK_OK)        \
                return fail(err, "CPU decoding");                                                  \
            if (memcmp(&got, &want, sizeof got)) {                                                 \
                fprintf(stderr, "bench_gpu_points: WRONG RESULT " NAME " 2^%d: point %zu\n", k,    \
                        i);                                                                        \
                return 0;                                                                          \
            }                                                                                      \
        }                                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    /* Every encoding and size; *rate[enc] = the compressed and LEM rates at the largest size. */  \
    static int G##_run(const struct opts *o, struct cuzk_gpu_points_loader *l, const int *sizes,   \
                       int nsizes, double rate[2]) {                                               \
        G##_affine *pts = bench_xmalloc(POOL_N * sizeof *pts);                                     \
        uint8_t *cmp = bench_xmalloc(POOL_N * CBYTES);                                             \
        int ok = 1;                                                                                \
        G##_pool(pts, cmp);                                                                        \
        for (int s = 0; s < nsizes && ok; s++) {                                                   \
            const int k = sizes[s];                                                                \
            const size_t n = (size_t)1 << k;                                                       \
            struct cuzk_gpu_bases *b = NULL;                                                       \
            int err = cuzk_gpu_bases_create(0, GG, n, &b);                                         \
            if (err != CUZK_OK) {                                                                  \
                ok = fail(err, "bases create");                                                    \
                break;                                                                             \
            }                                                                                      \
            for (int e = 1; e >= 0 && ok; e--) {                                                   \
                const enum cuzk_gpu_point_enc enc = e ? CUZK_GPU_PT_COMPRESSED : CUZK_GPU_PT_LEM;  \
                const size_t eb = cuzk_gpu_point_enc_bytes(GG, enc);                               \
                const uint8_t *src = e ? cmp : (const uint8_t *)pts;                               \
                double t[MAX_REPS];                                                                \
                ok = load(l, b, src, n, eb, enc); /* warm-up */                                    \
                for (int r = 0; r < o->reps && ok; r++) {                                          \
                    const double t0 = bench_now_ms();                                              \
                    ok = load(l, b, src, n, eb, enc);                                              \
                    t[r] = bench_now_ms() - t0;                                                    \
                }                                                                                  \
                if (ok) ok = G##_verify(b, n, pts, cmp, enc, k);                                   \
                if (!ok) break;                                                                    \
                bench_sort(t, (size_t)o->reps);                                                    \
                const double med = t[o->reps / 2], pps = (double)n / (med * 1e-3);                 \
                rate[e] = pps;                                                                     \
                char line[256];                                                                    \
                snprintf(line, sizeof line, "points,%s,%s,%d,%zu,%.3f,%.3f,%.2f,%.3f", NAME,       \
                         e ? "compressed" : "lem", k, o->chunk >> 20, t[0], med, pps * 1e-6,       \
                         pps * (double)eb / (double)(1u << 30));                                   \
                printf("%s\n", line);                                                              \
                if (o->csv) fprintf(o->csv, "%s\n", line);                                         \
                fflush(stdout);                                                                    \
            }                                                                                      \
            cuzk_gpu_bases_free(b);                                                                \
        }                                                                                          \
        free(pts);                                                                                 \
        free(cmp);                                                                                 \
        return ok;                                                                                 \
    }
GROUP(cuzk_g1, g1, CUZK_GPU_G1, "g1", CUZK_G1_COMPRESSED)
GROUP(cuzk_g2, g2, CUZK_GPU_G2, "g2", CUZK_G2_COMPRESSED)

static int usage(const char *argv0) {
    fprintf(stderr, "usage: %s [--quick] [--log-n 22,24] [--reps R] [--chunk-mib M] [--csv FILE]\n",
            argv0);
    return 2;
}

int main(int argc, char **argv) {
    struct opts o = {3, (size_t)64 << 20, NULL};
    int quick = 0, sizes[MAX_SIZES], nsizes = 0;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--log-n") && v) {
            if ((nsizes = bench_parse_logs(argv[++i], sizes, MAX_SIZES, 28)) < 0)
                return usage(argv[0]);
        } else if (!strcmp(a, "--reps") && v) {
            o.reps = atoi(argv[++i]);
            if (o.reps < 1 || o.reps > MAX_REPS) return usage(argv[0]);
        } else if (!strcmp(a, "--chunk-mib") && v) {
            const int m = atoi(argv[++i]);
            if (m < 1 || m > 4096) return usage(argv[0]);
            o.chunk = (size_t)m << 20;
        } else if (!strcmp(a, "--csv") && v) {
            csv = argv[++i];
        } else {
            return usage(argv[0]);
        }
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;
    if (!nsizes) {
        static const int full[] = {22, 24}, short_[] = {16, 18};
        nsizes = 2;
        memcpy(sizes, quick ? short_ : full, sizeof full);
    }
    if (quick) o.reps = o.reps < 2 ? o.reps : 2;
    if (csv && !(o.csv = fopen(csv, "a"))) {
        fprintf(stderr, "bench_gpu_points: cannot open %s\n", csv);
        return 1;
    }
    struct cuzk_gpu_points_loader *l = NULL;
    int err = cuzk_gpu_points_loader_create(0, o.chunk, &l);
    if (err != CUZK_OK) return !fail(err, "loader create");
    printf("# loader buffers: 2 x %zu MiB pinned, 2 x %zu MiB device; %d timed loads after a "
           "warm-up\n",
           o.chunk >> 20, o.chunk >> 20, o.reps);
    printf("op,group,enc,log_n,chunk_mib,ms_min,ms_median,mpts_per_s,gib_per_s\n");
    double r1[2] = {0, 0}, r2[2] = {0, 0};
    const int ok = cuzk_g1_run(&o, l, sizes, nsizes, r1) && cuzk_g2_run(&o, l, sizes, nsizes, r2);
    if (ok && r1[1] > 0 && r2[1] > 0)
        printf("# projected: a key of %.0fM G1 + %.0fM G2 compressed points in %.1f s (LEM: "
               "%.1f s)\n",
               KEY_G1 * 1e-6, KEY_G2 * 1e-6, KEY_G1 / r1[1] + KEY_G2 / r2[1],
               KEY_G1 / r1[0] + KEY_G2 / r2[0]);
    cuzk_gpu_points_loader_free(l);
    if (o.csv) fclose(o.csv);
    return ok ? 0 : 1;
}
