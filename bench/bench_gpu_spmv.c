/* GPU SpMV benchmark: a = A w, b = B w on the device with the system resident there
 * (cuzk_gpu_g16_spmv), on synthetic Filecoin-shaped systems or on a recorded Filecoin circuit.
 *
 *   bench_gpu_spmv [--quick] [--log-rows 24,27] [--general PCT] [--profile NAME] [--reps R]
 *                  [--csv FILE]
 *     --quick      2^16 and 2^18 rows, 3 repetitions (the CI smoke test)
 *     --log-rows   the synthetic sizes, as base-2 logarithms of the row count (default 24,27)
 *     --general P  P% of A's terms have a coefficient other than 1 and -1 (default 62, what
 *                  the recorded porep-c1 circuit has; the rest is 1 and -1 in equal parts)
 *     --profile N  instead, the recorded circuit of Filecoin profile N (e.g. porep-c18, the
 *                  real PoRep partition: 130 M rows; recording takes about a minute)
 *     --reps R     timed repetitions per size after one warm-up (default 9)
 *     --csv FILE   append the CSV lines to FILE as well
 *
 * A synthetic system has n_cols = rows, uniformly random columns, and the row lengths of the
 * recorded porep-c1 circuit (A: 59 % one term, 32 % two, 8 % three, 0.12 % nine, 0.12 % 10 to
 * 64 and 0.12 % 65 to 929; B: one term per row, coefficient 1), with 2,700 distinct
 * coefficients. For each system it prints one CSV line
 *   spmv,<source>,<log_rows>,<rows>,<nnz_a>,<nnz_b>,<general_pct>,<ms_min>,<ms_median>,
 *       <gb_per_s>,<upload_ms>,<upload_gb_per_s>,<gather_half_ms>,<gather_random_ms>
 * where ms is the wall-clock time of cuzk_gpu_g16_spmv (synchronous: the launch to the end of
 * the kernels), gb_per_s the bytes the kernels must move at least (the matrices, one 32-byte
 * witness element per term, the outputs) over the median time, upload the time of
 * cuzk_gpu_cs_upload, and the gathers' medians those of cuzk_gpu_g16_gather from the witness
 * into S: a density list (a sorted random half of the columns, as the MSMs gather) and as many
 * random indices as columns (the SpMV's witness reads are like it: the floor of their cost). Every
 * system's result is checked in full against cuzk_cs_eval before it is timed; a wrong result prints
 * the first bad row and exits 1. Lines starting with '#' are comments. Exit status: 0, 1 for a
 * wrong result or a failure, 2 for bad usage, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_gpu_spmv"
#include "bench_util.h"
#include "cuzk/error.h"
#include "ff/fr_vec.h"
#include "filecoin/pce.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "r1cs/cs.h"
#include "util/pool.h"

#define N_COEFS 2700
#define MAX_SIZES 8
#define MAX_REPS 64
#define ROW_BLOCK 65536 /* rows per pool item while generating */

static struct cuzk_pool *pool;

/* ---- synthetic systems ----------------------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The A length of row r: porep-c1's histogram. */
static uint32_t a_len(uint64_t r) {
    const uint64_t h = mix(r ^ 0xa11ce), u = h % 100000;
    if (u < 59300) return 1;
    if (u < 91730) return 2;
    if (u < 99600) return 3;
    if (u < 99720) return 9;
    if (u < 99740) return 12;
    if (u < 99880) return 10 + (uint32_t)((h >> 20) % 55);   /* 10 .. 64 */
    if (u < 100000) return 65 + (uint32_t)((h >> 20) % 865); /* 65 .. 929 */
    return 1;
}

static uint32_t b_len(uint64_t r) {
    const uint64_t u = mix(r ^ 0xb0b) % 100000;
    return u < 3 ? 0 : u < 40 ? 2 : 1;
}

struct gen_job {
    struct cuzk_cs *cs;
    int general;
    int pass; /* 0: lengths into row_ptr[r + 1]; 1: the terms */
};

static void gen_item(void *vctx, size_t item, unsigned worker) {
    (void)worker;
    const struct gen_job *j = vctx;
    struct cuzk_cs *cs = j->cs;
    const size_t lo = item * ROW_BLOCK,
                 hi = lo + ROW_BLOCK < cs->n_rows ? lo + ROW_BLOCK : cs->n_rows;
    for (size_t r = lo; r < hi; r++) {
        if (j->pass == 0) {
            cs->m[CUZK_CS_A].row_ptr[r + 1] = a_len(r);
            cs->m[CUZK_CS_B].row_ptr[r + 1] = b_len(r);
            continue;
        }
        for (int m = CUZK_CS_A; m <= CUZK_CS_B; m++) {
            struct cuzk_cs_csr *x = &cs->m[m];
            for (uint64_t k = x->row_ptr[r]; k < x->row_ptr[r + 1]; k++) {
                const uint64_t h = mix(k * 2 + (uint64_t)m);
                x->col[k] = (uint32_t)(h % cs->n_cols);
                const uint32_t u = (uint32_t)((h >> 32) % 100);
                if (m == CUZK_CS_B)
                    x->coef[k] = CUZK_CS_COEF_ONE;
                else if (u < (uint32_t)j->general)
                    x->coef[k] = 2 + (uint32_t)((h >> 40) % (N_COEFS - 2));
                else
                    x->coef[k] = (u & 1) ? CUZK_CS_COEF_ONE : CUZK_CS_COEF_MINUS_ONE;
            }
        }
    }
}

/* A finished system of 2^log_rows rows over as many columns (C empty). */
static void make_synthetic(struct cuzk_cs *cs, int log_rows, int general) {
    const size_t rows = (size_t)1 << log_rows;
    memset(cs, 0, sizeof *cs);
    cs->n_rows = rows;
    cs->n_cols = rows;
    cs->rows_cap = rows + 1;
    for (int m = 0; m < 3; m++) {
        cs->m[m].row_ptr = bench_xmalloc((rows + 1) * sizeof(uint64_t));
        memset(cs->m[m].row_ptr, 0, (rows + 1) * sizeof(uint64_t));
    }
    struct gen_job j = {cs, general, 0};
    const size_t items = (rows + ROW_BLOCK - 1) / ROW_BLOCK;
    cuzk_pool_run(pool, items, gen_item, &j);
    for (int m = CUZK_CS_A; m <= CUZK_CS_B; m++) {
        uint64_t *rp = cs->m[m].row_ptr;
        for (size_t r = 0; r < rows; r++) rp[r + 1] += rp[r];
        cs->m[m].nnz = cs->m[m].cap = rp[rows];
        cs->m[m].col = bench_xmalloc(rp[rows] * sizeof(uint32_t));
        cs->m[m].coef = bench_xmalloc(rp[rows] * sizeof(uint32_t));
    }
    j.pass = 1;
    cuzk_pool_run(pool, items, gen_item, &j);
    cs->coefs.n = cs->coefs.cap = N_COEFS;
    cs->coefs.v = bench_xmalloc(N_COEFS * sizeof(cuzk_fr));
    cuzk_fr_vec_random(pool, cs->coefs.v, N_COEFS, 0xc0ef);
    cuzk_fr_set_one(&cs->coefs.v[CUZK_CS_COEF_ONE]);
    cuzk_fr_neg(&cs->coefs.v[CUZK_CS_COEF_MINUS_ONE], &cs->coefs.v[CUZK_CS_COEF_ONE]);
}

/* ---- one system ------------------------------------------------------------------------------ */

struct opts {
    int reps;
    FILE *csv;
};

static int fail(int err, const char *what, const char *src) {
    fprintf(stderr, "bench_gpu_spmv: %s on %s failed: %s (%s)\n", what, src, cuzk_strerror(err),
            cuzk_gpu_g16_last_error());
    return 0;
}

static uint64_t general_terms(const struct cuzk_cs_csr *x) {
    uint64_t g = 0;
    for (uint64_t k = 0; k < x->nnz; k++) g += x->coef[k] > CUZK_CS_COEF_MINUS_ONE;
    return g;
}

/* Checks every row of the device's a and b against cuzk_cs_eval (and the public rows and the
 * zero tail). Returns 1 if they agree. */
static int check(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub, const cuzk_fr *a,
                 const cuzk_fr *b, size_t n, const char *src) {
    const size_t rows = cs->n_rows;
    cuzk_fr *ra = bench_xmalloc(rows * sizeof *ra), *rb = bench_xmalloc(rows * sizeof *rb), zero;
    cuzk_fr_set_zero(&zero);
    int ok = cuzk_cs_eval(pool, cs, w, ra, rb, NULL) == CUZK_OK;
    size_t bad = n;
    for (size_t i = 0; ok && i < n && bad == n; i++) {
        const cuzk_fr *wa = i < rows ? &ra[i] : i < rows + n_pub ? &w[i - rows] : &zero;
        const cuzk_fr *wb = i < rows ? &rb[i] : &zero;
        if (memcmp(&a[i], wa, sizeof *wa) || memcmp(&b[i], wb, sizeof *wb)) bad = i;
    }
    if (ok && bad < n) fprintf(stderr, "bench_gpu_spmv: %s: wrong result at row %zu\n", src, bad);
    free(ra);
    free(rb);
    return ok && bad == n;
}

/* The median times of two gathers from W1 into S, each checked first: [0] a density list (a
 * sorted random half of the columns, what the MSMs gather), [1] as many random indices as
 * columns, unsorted (the witness reads of the SpMV are like it: the floor of their cost). */
static int time_gathers(const struct opts *o, struct cuzk_gpu_g16 *g, const cuzk_fr *w, size_t cols,
                        const char *src, double ms[2]) {
    uint32_t *idx = bench_xmalloc(cols * sizeof *idx);
    cuzk_fr *got = bench_xmalloc(cols * sizeof *got);
    int ok = 1;
    for (int kind = 0; kind < 2 && ok; kind++) {
        size_t count = 0;
        for (size_t j = 0; j < cols; j++) {
            const uint64_t h = mix(j ^ (0x9a7e + (uint64_t)kind));
            if (kind)
                idx[count++] = (uint32_t)(h % cols);
            else if (h & 1)
                idx[count++] = (uint32_t)j;
        }
        struct cuzk_gpu_idx *x = NULL;
        int rc = cuzk_gpu_idx_upload(0, idx, count, &x);
        if (!rc) rc = cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, CUZK_GPU_G16_W1, x);
        if (!rc) rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_S, got, count);
        if (rc) {
            ok = fail(rc, "gather", src);
        } else {
            for (size_t k = 0; k < count && ok; k++)
                if (memcmp(&got[k], &w[idx[k]], sizeof *got)) {
                    fprintf(stderr, "bench_gpu_spmv: %s: wrong gather at %zu\n", src, k);
                    ok = 0;
                }
        }
        double t[MAX_REPS];
        for (int r = 0; r < o->reps && ok; r++) {
            double s = bench_now_ms();
            if ((rc = cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, CUZK_GPU_G16_W1, x)))
                ok = fail(rc, "gather", src);
            t[r] = bench_now_ms() - s;
        }
        if (ok) {
            bench_sort(t, (size_t)o->reps);
            ms[kind] = t[o->reps / 2];
        }
        cuzk_gpu_idx_free(x);
    }
    free(idx);
    free(got);
    return ok;
}

static int run(const struct opts *o, const struct cuzk_cs *cs, uint32_t n_pub, const char *src,
               int log_rows) {
    const size_t rows = cs->n_rows, cols = cs->n_cols;
    size_t n = 1;
    while (n < rows + n_pub) n <<= 1;
    const uint64_t nnz_a = cs->m[CUZK_CS_A].nnz, nnz_b = cs->m[CUZK_CS_B].nnz;
    const double general =
        100.0 * (double)general_terms(&cs->m[CUZK_CS_A]) / (double)(nnz_a ? nnz_a : 1);

    cuzk_fr *w = bench_xmalloc(cols * sizeof *w);
    cuzk_fr_vec_random(pool, w, cols, 0x5eed + (uint64_t)log_rows);
    cuzk_fr_set_one(&w[0]);
    struct cuzk_gpu_g16 *g = NULL;
    struct cuzk_gpu_cs *dcs = NULL;
    int rc, ok = 1;
    if ((rc = cuzk_gpu_g16_create2(0, n, cols, NULL, CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S,
                                   &g)))
        return fail(rc, "work area", src);
    double t0 = bench_now_ms();
    if ((rc = cuzk_gpu_cs_upload(0, cs, &dcs))) {
        cuzk_gpu_g16_free(g);
        return fail(rc, "system upload", src);
    }
    const double upload_ms = bench_now_ms() - t0;
    const double cs_gb = (double)cuzk_gpu_cs_vram(dcs) * 1e-9;
    if ((rc = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W1, w, cols, cols)) ||
        (rc = cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W1, cols, n_pub, n))) {
        ok = fail(rc, "SpMV", src);
        goto out;
    }
    {
        cuzk_fr *a = bench_xmalloc(n * sizeof *a), *b = bench_xmalloc(n * sizeof *b);
        memset(a, 0xa5, n * sizeof *a);
        memset(b, 0xa5, n * sizeof *b);
        if ((rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, a, n)) ||
            (rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_B, b, n)))
            ok = fail(rc, "download", src);
        else
            ok = check(cs, w, n_pub, a, b, n, src);
        free(a);
        free(b);
        if (!ok) goto out;
    }
    double t[MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        double s = bench_now_ms();
        if ((rc = cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W1, cols, n_pub, n))) {
            ok = fail(rc, "SpMV", src);
            goto out;
        }
        t[r] = bench_now_ms() - s;
    }
    bench_sort(t, (size_t)o->reps);
    double gather_ms[2];
    if (!time_gathers(o, g, w, cols, src, gather_ms)) {
        ok = 0;
        goto out;
    }
    {
        /* the least the kernels must move: row offsets and terms of A and B, one witness element
         * per term, the two output vectors of n elements */
        const double bytes = 2.0 * (double)(rows + 1) * 8 + (double)(nnz_a + nnz_b) * (8 + 32) +
                             2.0 * (double)n * 32;
        const double med = t[o->reps / 2];
        char line[512];
        snprintf(line, sizeof line,
                 "spmv,%s,%d,%zu,%llu,%llu,%.1f,%.3f,%.3f,%.0f,%.1f,%.2f,%.3f,%.3f", src, log_rows,
                 rows, (unsigned long long)nnz_a, (unsigned long long)nnz_b, general, t[0], med,
                 bytes / (med * 1e-3) * 1e-9, upload_ms, cs_gb / (upload_ms * 1e-3), gather_ms[0],
                 gather_ms[1]);
        printf("%s\n", line);
        if (o->csv) fprintf(o->csv, "%s\n", line);
        fflush(stdout);
    }
out:
    cuzk_gpu_cs_free(dcs);
    cuzk_gpu_g16_free(g);
    free(w);
    return ok;
}

/* ---- main ------------------------------------------------------------------------------------ */

static int usage(void) {
    fprintf(stderr, "usage: bench_gpu_spmv [--quick] [--log-rows 24,27] [--general PCT] "
                    "[--profile NAME] [--reps R] [--csv FILE]\n");
    return 2;
}

int main(int argc, char **argv) {
    int sizes[MAX_SIZES] = {24, 27}, n_sizes = 2, quick = 0, general = 62;
    const char *profile = NULL, *csv_path = NULL;
    struct opts o = {9, NULL};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--log-rows") && i + 1 < argc) {
            if ((n_sizes = bench_parse_logs(argv[++i], sizes, MAX_SIZES, 30)) < 0) return usage();
        } else if (!strcmp(argv[i], "--general") && i + 1 < argc) {
            general = atoi(argv[++i]);
            if (general < 0 || general > 100) return usage();
        } else if (!strcmp(argv[i], "--profile") && i + 1 < argc) {
            profile = argv[++i];
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            o.reps = atoi(argv[++i]);
            if (o.reps < 1 || o.reps > MAX_REPS) return usage();
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else {
            return usage();
        }
    }
    if (quick) {
        sizes[0] = 16, sizes[1] = 18, n_sizes = 2;
        o.reps = 3;
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;
    if (csv_path && !(o.csv = fopen(csv_path, "a"))) {
        fprintf(stderr, "bench_gpu_spmv: cannot open %s\n", csv_path);
        return 1;
    }
    if (cuzk_pool_create(&pool, 0, "bench") != CUZK_OK) return 1;
    printf("# spmv,source,log_rows,rows,nnz_a,nnz_b,general_pct,ms_min,ms_median,gb_per_s,"
           "upload_ms,upload_gb_per_s,gather_half_ms,gather_random_ms\n");
    int ok = 1;
    if (profile) {
        struct cuzk_fc_profile p;
        struct cuzk_pce pce;
        char err[256];
        if (cuzk_fc_profile_parse(profile, &p, err, sizeof err) ||
            cuzk_pce_record(&p, &pce, err, sizeof err)) {
            fprintf(stderr, "bench_gpu_spmv: %s: %s\n", profile, err);
            ok = 0;
        } else {
            int lg = 0;
            while (((size_t)1 << lg) < pce.cs.n_rows) lg++;
            ok = run(&o, &pce.cs, (uint32_t)pce.cs.n_public + 1, p.name, lg);
            cuzk_pce_free(&pce);
        }
    } else {
        for (int i = 0; i < n_sizes && ok; i++) {
            struct cuzk_cs cs;
            make_synthetic(&cs, sizes[i], general);
            if (cuzk_cs_validate(&cs) != CUZK_OK) {
                fprintf(stderr, "bench_gpu_spmv: bad synthetic system\n");
                ok = 0;
            } else {
                char src[32];
                snprintf(src, sizeof src, "synthetic");
                ok = run(&o, &cs, 0, src, sizes[i]);
            }
            cuzk_cs_free(&cs);
        }
    }
    if (o.csv) fclose(o.csv);
    cuzk_pool_destroy(pool);
    return ok ? 0 : 1;
}
