/* The GPU SpMV and density gather (src/gpu/gpu_groth16.h) against the CPU (src/r1cs), on random
 * systems: rows of 0 to 40 terms with a few long ones (hundreds to thousands of terms, longer
 * than a warp's piece of work) and runs of empty rows, repeated columns within a row,
 * coefficients 0, 1, -1 and values from a table of a few thousand, an empty B matrix, no rows
 * at all, n_pub_rows 0 and > 0, n beyond rows + n_pub_rows. The reference is cuzk_cs_eval
 * followed by the public-input rows and the zero tail (cuzk_groth16_pk_eval's layout).
 *   - Everywhere (builds with nvcc): the host twin cuzk_gpu_twin_spmv, and cuzk_gpu_twin_gather
 *     against a plain loop.
 *   - On a GPU: cuzk_gpu_g16_spmv_eval; the work-area path (a resident system, the witness in
 *     the second slot W1, A and B poisoned on the device first so that an unwritten element
 *     shows, read back with cuzk_gpu_g16_download); a witness uploaded to W by a second thread
 *     while the first runs SpMVs on W1; the gather into S; the argument checks.
 * Host outputs are poisoned before every run. Exit status: 0 when everything that could run
 * passed (without a GPU the device part is reported as skipped), 1 on a failure, 77 in a build
 * without CUDA (the twin does not exist there). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "r1cs/cs.h"
#include "test_util.h"

#define POISON 0xa5 /* 0xa5a5...: not a reduced element (above r), so never a valid result */

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "test_gpu_spmv: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- random systems ------------------------------------------------------------------------ */

struct shape {
    const char *name;
    size_t rows, cols, n_public;
    int max_len;     /* row lengths 0 .. max_len (most short, see row_len) */
    int long_rows;   /* rows of 300 .. 3000 terms, at random places */
    int empty_b;     /* B has no terms at all */
    int narrow_cols; /* columns from a range of 3 in every 5th row: repeated columns */
};

static size_t rnd(size_t n) { return n ? (size_t)(cuzk_rng_u64(&test_rng) % n) : 0; }

/* Filecoin-like lengths: mostly 1..3 terms, some 0, some up to max_len. */
static size_t row_len(int max_len) {
    size_t u = rnd(100);
    if (u < 5) return 0;
    if (u < 80) return 1 + rnd(3 < max_len ? 3 : (size_t)max_len);
    return rnd((size_t)max_len + 1);
}

/* The coefficient of a term: 0, 1, -1, or one of the table's values (so the system's table has
 * about `table` distinct values). */
static void term_coef(cuzk_fr *c, const cuzk_fr *table, size_t table_n) {
    switch (rnd(10)) {
    case 0: cuzk_fr_set_zero(c); break;
    case 1:
    case 2: cuzk_fr_set_one(c); break;
    case 3:
    case 4:
        cuzk_fr_set_one(c);
        cuzk_fr_neg(c, c);
        break;
    default: *c = table[rnd(table_n)];
    }
}

static int build(struct cuzk_cs *cs, const struct shape *sh, const cuzk_fr *table, size_t table_n) {
    if (cuzk_cs_init(cs, sh->cols, sh->n_public) != CUZK_OK) return 0;
    int ok = 1;
    for (size_t r = 0; r < sh->rows && ok; r++) {
        ok &= cuzk_cs_begin_row(cs) == CUZK_OK;
        /* runs of empty rows now and then: pieces made of row ends only */
        const int empty_run = (r / 997) % 7 == 3;
        for (int m = CUZK_CS_A; m <= CUZK_CS_C && !empty_run; m++) {
            if (m == CUZK_CS_B && sh->empty_b) continue;
            size_t len = row_len(sh->max_len);
            if (sh->long_rows && rnd(sh->rows) < (size_t)sh->long_rows) len = 300 + rnd(2700);
            for (size_t t = 0; t < len; t++) {
                uint32_t col =
                    (uint32_t)(sh->narrow_cols && r % 5 == 0 && sh->cols > 3 ? rnd(3)
                                                                             : rnd(sh->cols));
                cuzk_fr c;
                term_coef(&c, table, table_n);
                ok &= cuzk_cs_add_term(cs, (enum cuzk_cs_matrix)m, col, &c) == CUZK_OK;
            }
        }
        ok &= cuzk_cs_end_row(cs) == CUZK_OK;
    }
    ok &= cuzk_cs_finish(cs) == CUZK_OK;
    return ok;
}

/* cuzk_cs_eval's a and b, then the public-input rows and zeros up to n. */
static void reference(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub, cuzk_fr *a,
                      cuzk_fr *b, size_t n) {
    memset(a, 0, n * sizeof *a);
    memset(b, 0, n * sizeof *b);
    CHECK(cuzk_cs_eval(NULL, cs, w, a, b, NULL) == CUZK_OK);
    for (uint32_t s = 0; s < n_pub; s++) a[cs->n_rows + s] = w[s];
}

/* The index of the first element where x and y differ, or n. */
static size_t first_diff(const cuzk_fr *x, const cuzk_fr *y, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &y[i], sizeof *x)) return i;
    return n;
}

static void check_same(const char *what, const struct shape *sh, const cuzk_fr *got,
                       const cuzk_fr *want, size_t n) {
    size_t i = first_diff(got, want, n);
    CHECK(i == n);
    if (i != n)
        fprintf(stderr, "  %s on %s: first difference at element %zu of %zu\n", what, sh->name, i,
                n);
}

/* ---- the device: the work-area path ---------------------------------------------------------- */

struct uploader {
    struct cuzk_gpu_g16 *g;
    const cuzk_fr *w;
    size_t n;
    int rc;
};

/* The second thread: uploads the next witness into W while the first runs SpMVs on W1. */
static void *upload_main(void *arg) {
    struct uploader *u = arg;
    u->rc = cuzk_gpu_g16_upload(u->g, CUZK_GPU_G16_W, u->w, u->n, u->n);
    if (u->rc == CUZK_OK) u->rc = cuzk_gpu_g16_wait(u->g, CUZK_GPU_G16_W);
    float ms = -1;
    if (u->rc == CUZK_OK) u->rc = cuzk_gpu_g16_upload_ms_of(u->g, CUZK_GPU_G16_W, &ms);
    if (u->rc == CUZK_OK && ms < 0) u->rc = CUZK_EGPU;
    return NULL;
}

static void device_area(const struct shape *sh, const struct cuzk_cs *cs, const cuzk_fr *w,
                        const cuzk_fr *w2, uint32_t n_pub, size_t n) {
    const size_t cols = cs->n_cols;
    struct cuzk_gpu_g16 *g = NULL;
    struct cuzk_gpu_cs *dcs = NULL;
    int rc = cuzk_gpu_g16_create2(0, n + 7, cols + 5, NULL,
                                  CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S, &g);
    CHECK(rc == CUZK_OK);
    if (rc == CUZK_OK) CHECK((rc = cuzk_gpu_cs_upload(0, cs, &dcs)) == CUZK_OK);
    if (rc != CUZK_OK) {
        fprintf(stderr, "  %s: %s (%s)\n", sh->name, cuzk_strerror(rc), cuzk_gpu_g16_last_error());
        cuzk_gpu_g16_free(g);
        return;
    }
    CHECK(cuzk_gpu_cs_rows(dcs) == cs->n_rows && cuzk_gpu_cs_cols(dcs) == cols);
    CHECK(cuzk_gpu_cs_vram(dcs) == cuzk_gpu_cs_vram_for(cs));
    CHECK(cuzk_gpu_g16_vram(g) ==
          cuzk_gpu_g16_vram_for2(n + 7, cols + 5, 0, CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S));

    cuzk_fr *poison = xmalloc((n + 7) * sizeof *poison), *a = xmalloc(n * sizeof *a),
            *b = xmalloc(n * sizeof *b), *ra = xmalloc(n * sizeof *ra),
            *rb = xmalloc(n * sizeof *rb);
    memset(poison, POISON, (n + 7) * sizeof *poison);
    reference(cs, w, n_pub, ra, rb, n);

    /* W1, with A and B poisoned on the device first (and their tails beyond n) */
    CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, poison, n + 7, n + 7) == CUZK_OK);
    CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, poison, n + 7, n + 7) == CUZK_OK);
    CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W1, w, cols, cols) == CUZK_OK);
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W1, cols, n_pub, n) == CUZK_OK);
    memset(a, POISON, n * sizeof *a);
    memset(b, POISON, n * sizeof *b);
    CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, a, n) == CUZK_OK);
    CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_B, b, n) == CUZK_OK);
    check_same("device a (W1)", sh, a, ra, n);
    check_same("device b (W1)", sh, b, rb, n);
    float ms = -1;
    CHECK(cuzk_gpu_g16_upload_ms_of(g, CUZK_GPU_G16_W1, &ms) == CUZK_OK && ms >= 0);

    /* the next witness goes to W from another thread while SpMVs run on W1 */
    struct uploader u = {g, w2, cols, CUZK_EGPU};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, upload_main, &u) == 0);
    for (int rep = 0; rep < 3; rep++)
        CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W1, cols, n_pub, n) == CUZK_OK);
    pthread_join(th, NULL);
    CHECK(u.rc == CUZK_OK);
    CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, a, n) == CUZK_OK);
    check_same("device a (W1, during an upload to W)", sh, a, ra, n);
    reference(cs, w2, n_pub, ra, rb, n);
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W, cols, n_pub, n) == CUZK_OK);
    memset(a, POISON, n * sizeof *a);
    memset(b, POISON, n * sizeof *b);
    CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, a, n) == CUZK_OK);
    CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_B, b, n) == CUZK_OK);
    check_same("device a (W)", sh, a, ra, n);
    check_same("device b (W)", sh, b, rb, n);

    /* refusals */
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W1, cols - 1, n_pub, n) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_S, cols, n_pub, n) == CUZK_EINVAL);
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W, cols, n_pub, n + 8) == CUZK_EINVAL);
    if (cs->n_rows + n_pub > 0)
        CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W, cols, n_pub, cs->n_rows + n_pub - 1) ==
              CUZK_EINVAL);
    CHECK(cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W, cols, (uint32_t)cols + 1, n + 7) ==
          CUZK_EINVAL);

    cuzk_gpu_cs_free(dcs);
    cuzk_gpu_g16_free(g);
    free(poison);
    free(a);
    free(b);
    free(ra);
    free(rb);
}

/* The gather from W1 into S against a plain loop and the twin; its refusals. */
static void device_gather(const cuzk_fr *w, size_t cols) {
    struct cuzk_gpu_g16 *g = NULL, *plain = NULL;
    CHECK(cuzk_gpu_g16_create2(0, 16, cols, NULL, CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S, &g) ==
          CUZK_OK);
    CHECK(cuzk_gpu_g16_create(0, 16, cols, NULL, &plain) == CUZK_OK);
    if (!g || !plain) {
        cuzk_gpu_g16_free(g);
        cuzk_gpu_g16_free(plain);
        return;
    }
    CHECK(cuzk_gpu_g16_vec(plain, CUZK_GPU_G16_W1) == NULL);
    CHECK(cuzk_gpu_g16_vec(plain, CUZK_GPU_G16_S) == NULL);
    CHECK(cuzk_gpu_g16_vec(g, CUZK_GPU_G16_S) != NULL);
    const size_t counts[] = {0, 1, 257, cols};
    CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W1, w, cols, cols) == CUZK_OK);
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        const size_t count = counts[t];
        uint32_t *idx = xmalloc(count * sizeof *idx);
        for (size_t k = 0; k < count; k++) /* repeats, and sorted runs as density lists are */
            idx[k] = (uint32_t)(k % 3 ? rnd(cols) : (k * 7) % cols);
        cuzk_fr *want = xmalloc(count * sizeof *want), *got = xmalloc(count * sizeof *got),
                *twin = xmalloc(count * sizeof *twin);
        for (size_t k = 0; k < count; k++) want[k] = w[idx[k]];
        memset(twin, POISON, count * sizeof *twin);
        CHECK(cuzk_gpu_twin_gather(w, idx, count, twin) == CUZK_OK);
        CHECK(first_diff(twin, want, count) == count);
        struct cuzk_gpu_idx *x = NULL;
        CHECK(cuzk_gpu_idx_upload(0, idx, count, &x) == CUZK_OK);
        CHECK(cuzk_gpu_idx_count(x) == count && cuzk_gpu_idx_vram(x) == count * sizeof *idx);
        CHECK(cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, CUZK_GPU_G16_W1, x) == CUZK_OK);
        memset(got, POISON, count * sizeof *got);
        CHECK(cuzk_gpu_g16_download(g, CUZK_GPU_G16_S, got, count) == CUZK_OK);
        CHECK(first_diff(got, want, count) == count);
        /* refusals: wrong vectors, an area without S */
        CHECK(cuzk_gpu_g16_gather(g, CUZK_GPU_G16_A, CUZK_GPU_G16_W1, x) == CUZK_EINVAL);
        CHECK(cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, CUZK_GPU_G16_S, x) == CUZK_EINVAL);
        CHECK(cuzk_gpu_g16_gather(plain, CUZK_GPU_G16_S, CUZK_GPU_G16_W, x) == CUZK_EINVAL);
        cuzk_gpu_idx_free(x);
        free(idx);
        free(want);
        free(got);
        free(twin);
    }
    /* an index beyond the slot */
    uint32_t bad = (uint32_t)cols;
    struct cuzk_gpu_idx *x = NULL;
    CHECK(cuzk_gpu_idx_upload(0, &bad, 1, &x) == CUZK_OK);
    CHECK(cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, CUZK_GPU_G16_W1, x) == CUZK_EINVAL);
    cuzk_gpu_idx_free(x);
    CHECK(cuzk_gpu_g16_upload(plain, CUZK_GPU_G16_W1, w, 1, 1) == CUZK_EINVAL);
    cuzk_gpu_g16_free(g);
    cuzk_gpu_g16_free(plain);
}

/* ---- one system ------------------------------------------------------------------------------ */

static void run_shape(const struct shape *sh, int gpu, const cuzk_fr *table, size_t table_n) {
    struct cuzk_cs cs;
    int ok = build(&cs, sh, table, table_n);
    CHECK(ok);
    if (!ok) {
        cuzk_cs_free(&cs);
        return;
    }
    const size_t cols = cs.n_cols;
    cuzk_fr *w = xmalloc(cols * sizeof *w), *w2 = xmalloc(cols * sizeof *w2);
    for (size_t j = 0; j < cols; j++) {
        cuzk_fr_random(&w[j], &test_rng);
        cuzk_fr_random(&w2[j], &test_rng);
    }
    cuzk_fr_set_one(&w[0]);
    cuzk_fr_set_one(&w2[0]);
    /* no public rows; the snarkjs rows (ONE and the inputs); and a tail of zeros beyond them */
    const uint32_t pubs[2] = {0, (uint32_t)(sh->n_public + 1)};
    for (int p = 0; p < 2; p++) {
        const uint32_t n_pub = pubs[p];
        const size_t n = cs.n_rows + n_pub + (p ? 37 : 0);
        cuzk_fr *ra = xmalloc(n * sizeof *ra), *rb = xmalloc(n * sizeof *rb),
                *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
        reference(&cs, w, n_pub, ra, rb, n);
        memset(a, POISON, n * sizeof *a);
        memset(b, POISON, n * sizeof *b);
        CHECK(cuzk_gpu_twin_spmv(&cs, w, n_pub, a, b, n) == CUZK_OK);
        check_same("twin a", sh, a, ra, n);
        check_same("twin b", sh, b, rb, n);
        if (gpu) {
            memset(a, POISON, n * sizeof *a);
            memset(b, POISON, n * sizeof *b);
            int rc = cuzk_gpu_g16_spmv_eval(0, &cs, w, n_pub, a, b, n);
            CHECK(rc == CUZK_OK);
            if (rc != CUZK_OK)
                fprintf(stderr, "  spmv_eval on %s: %s (%s)\n", sh->name, cuzk_strerror(rc),
                        cuzk_gpu_g16_last_error());
            check_same("device a", sh, a, ra, n);
            check_same("device b", sh, b, rb, n);
            if (n > 0) device_area(sh, &cs, w, w2, n_pub, n);
        } else {
            CHECK(cuzk_gpu_g16_spmv_eval(0, &cs, w, n_pub, a, b, n) == CUZK_ENODEV);
        }
        /* refusals of the twin */
        if (n > 0)
            CHECK(cuzk_gpu_twin_spmv(&cs, w, n_pub, a, b, n - 1 - (p ? 37 : 0)) == CUZK_EINVAL);
        CHECK(cuzk_gpu_twin_spmv(&cs, w, (uint32_t)cols + 1, a, b, n + cols + 1) == CUZK_EINVAL);
        free(ra);
        free(rb);
        free(a);
        free(b);
    }
    free(w);
    free(w2);
    cuzk_cs_free(&cs);
}

int main(void) {
    test_init("test_gpu_spmv");
    if (cuzk_gpu_twin_gather(NULL, NULL, 0, NULL) == CUZK_ENODEV) {
        printf("test_gpu_spmv: built without CUDA: skipped\n");
        return 77;
    }
    int count = 0;
    cuzk_gpu_count(&count);
    const int gpu = count > 0;

    /* a few thousand distinct coefficient values, as Filecoin's circuits have */
    const size_t table_n = 3000;
    cuzk_fr *table = xmalloc(table_n * sizeof *table);
    for (size_t i = 0; i < table_n; i++) cuzk_fr_random(&table[i], &test_rng);

    const struct shape shapes[] = {
        {"no rows", 0, 4, 2, 3, 0, 0, 0},          {"one row", 1, 3, 1, 3, 0, 0, 0},
        {"small", 37, 19, 3, 40, 0, 0, 1},         {"filecoin-like", 20000, 15000, 5, 40, 0, 0, 1},
        {"long rows", 6000, 3000, 2, 40, 6, 0, 1}, {"empty B", 5000, 4000, 4, 40, 2, 1, 0},
        {"wide rows", 3000, 500, 0, 300, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        run_shape(&shapes[i], gpu, table, table_n);

    if (gpu) {
        cuzk_fr *w = xmalloc(5000 * sizeof *w);
        for (size_t j = 0; j < 5000; j++) cuzk_fr_random(&w[j], &test_rng);
        device_gather(w, 5000);
        free(w);
    } else {
        printf("test_gpu_spmv: no GPU: the device part was skipped (the host twin ran)\n");
    }
    free(table);
    return test_finish();
}
