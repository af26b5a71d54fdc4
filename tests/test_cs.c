/* The constraint system: SpMV against a naive accumulation over the term list on random systems
 * (duplicate columns, zero and +-1 coefficients, empty rows), equal results for pools of 1, 2
 * and 4 threads, the satisfaction check on a multiplication chain and on broken witnesses (the
 * first failing row is reported), column densities, and the argument checks of the builder. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "r1cs/cs.h"
#include "test_util.h"

static struct cuzk_pool *pools[3]; /* 1, 2 and 4 threads */

struct term {
    int m;
    size_t row;
    uint32_t col;
    cuzk_fr coef;
};

/* A random system with its term list kept aside for the naive reference. */
struct sys {
    struct cuzk_cs cs;
    struct term *terms;
    size_t n_terms;
};

static void random_coef(cuzk_fr *c) {
    switch (cuzk_rng_u64(&test_rng) % 5) {
    case 0: cuzk_fr_set_one(c); break;
    case 1:
        cuzk_fr_set_one(c);
        cuzk_fr_neg(c, c);
        break;
    case 2: cuzk_fr_set_zero(c); break;
    default: cuzk_fr_random(c, &test_rng);
    }
}

static int build_random(struct sys *s, size_t n_rows, size_t n_cols, int reserve) {
    int ok = cuzk_cs_init(&s->cs, n_cols, n_cols / 3) == CUZK_OK;
    if (reserve) ok &= cuzk_cs_reserve(&s->cs, n_rows, 4 * n_rows, 4 * n_rows, 4 * n_rows) == 0;
    s->terms = malloc((24 * n_rows + 1) * sizeof *s->terms);
    s->n_terms = 0;
    for (size_t r = 0; r < n_rows; r++) {
        ok &= cuzk_cs_begin_row(&s->cs) == CUZK_OK;
        for (int m = 0; m < 3; m++) {
            int nt = (int)(cuzk_rng_u64(&test_rng) % 8); /* 0..7 terms, empty rows included */
            for (int t = 0; t < nt; t++) {
                struct term *x = &s->terms[s->n_terms++];
                x->m = m;
                x->row = r;
                /* a narrow column range in some rows forces repeated columns */
                x->col =
                    (uint32_t)(cuzk_rng_u64(&test_rng) % (r % 4 == 0 && n_cols > 2 ? 2 : n_cols));
                random_coef(&x->coef);
                ok &= cuzk_cs_add_term(&s->cs, (enum cuzk_cs_matrix)m, x->col, &x->coef) == 0;
            }
        }
        ok &= cuzk_cs_end_row(&s->cs) == CUZK_OK;
    }
    return ok && s->cs.n_rows == n_rows;
}

static void free_sys(struct sys *s) {
    cuzk_cs_free(&s->cs);
    free(s->terms);
}

static cuzk_fr *random_vec(size_t n) {
    cuzk_fr *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&v[i], &test_rng);
    return v;
}

static int vec_eq(const cuzk_fr *a, const cuzk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&a[i], &b[i])) return 0;
    return 1;
}

/* out[m][row] = sum of coef * w[col] over the term list */
static void naive_eval(const struct sys *s, const cuzk_fr *w, cuzk_fr *out[3]) {
    for (int m = 0; m < 3; m++)
        for (size_t r = 0; r < s->cs.n_rows; r++) cuzk_fr_set_zero(&out[m][r]);
    for (size_t i = 0; i < s->n_terms; i++) {
        const struct term *x = &s->terms[i];
        cuzk_fr t;
        cuzk_fr_mul(&t, &x->coef, &w[x->col]);
        cuzk_fr_add(&out[x->m][x->row], &out[x->m][x->row], &t);
    }
}

static void test_spmv(void) {
    static const size_t shapes[][2] = {{0, 1},     {1, 1},     {7, 3},     {300, 40},
                                       {1024, 17}, {1025, 60}, {5000, 200}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        size_t n_rows = shapes[sh][0], n_cols = shapes[sh][1];
        struct sys s;
        CHECK(build_random(&s, n_rows, n_cols, (int)(sh & 1)));
        cuzk_fr *w = random_vec(n_cols), *ref[3], *out[3];
        for (int m = 0; m < 3; m++) ref[m] = random_vec(n_rows);
        naive_eval(&s, w, ref);
        for (int p = 0; p < 3; p++) {
            for (int m = 0; m < 3; m++) out[m] = random_vec(n_rows);
            CHECK(cuzk_cs_eval(pools[p], &s.cs, w, out[0], out[1], out[2]) == CUZK_OK);
            for (int m = 0; m < 3; m++) CHECK(vec_eq(out[m], ref[m], n_rows));
            /* without c: a and b as before, c untouched */
            cuzk_fr *keep = random_vec(n_rows);
            memcpy(out[2], keep, n_rows * sizeof *keep);
            for (int m = 0; m < 2; m++) memset(out[m], 0, n_rows * sizeof(cuzk_fr));
            CHECK(cuzk_cs_eval(pools[p], &s.cs, w, out[0], out[1], NULL) == CUZK_OK);
            CHECK(vec_eq(out[0], ref[0], n_rows) && vec_eq(out[1], ref[1], n_rows));
            CHECK(vec_eq(out[2], keep, n_rows));
            free(keep);
            for (int m = 0; m < 3; m++) free(out[m]);
        }
        for (int m = 0; m < 3; m++) free(ref[m]);
        free(w);
        free_sys(&s);
    }
}

/* Row i: (3 x_i - 2 x_i) * x_i = x_(i+1) - k, over w = [1, x_0 (public), x_1 .. x_N]: a chain
 * x_(i+1) = x_i^2 + k whose A rows repeat a column. */
static void build_chain(struct cuzk_cs *cs, size_t n, const cuzk_fr *k) {
    cuzk_fr one, three, minus_two, minus_k;
    cuzk_fr_set_one(&one);
    cuzk_fr_from_u64(&three, 3);
    cuzk_fr_from_u64(&minus_two, 2);
    cuzk_fr_neg(&minus_two, &minus_two);
    cuzk_fr_neg(&minus_k, k);
    int ok = cuzk_cs_init(cs, n + 2, 1) == CUZK_OK;
    for (size_t i = 0; i < n; i++) {
        uint32_t xi = (uint32_t)(i + 1), xn = (uint32_t)(i + 2);
        ok &= cuzk_cs_begin_row(cs) == CUZK_OK;
        ok &= cuzk_cs_add_term(cs, CUZK_CS_A, xi, &three) == CUZK_OK;
        ok &= cuzk_cs_add_term(cs, CUZK_CS_A, xi, &minus_two) == CUZK_OK;
        ok &= cuzk_cs_add_term(cs, CUZK_CS_B, xi, &one) == CUZK_OK;
        ok &= cuzk_cs_add_term(cs, CUZK_CS_C, xn, &one) == CUZK_OK;
        ok &= cuzk_cs_add_term(cs, CUZK_CS_C, 0, &minus_k) == CUZK_OK;
        ok &= cuzk_cs_end_row(cs) == CUZK_OK;
    }
    CHECK(ok);
}

static void test_satisfied(void) {
    const size_t n = 5000;
    cuzk_fr k;
    cuzk_fr_random(&k, &test_rng);
    struct cuzk_cs cs;
    build_chain(&cs, n, &k);
    cuzk_fr *w = malloc((n + 2) * sizeof *w);
    cuzk_fr_set_one(&w[0]);
    cuzk_fr_random(&w[1], &test_rng);
    for (size_t i = 1; i <= n; i++) {
        cuzk_fr_sqr(&w[i + 1], &w[i]);
        cuzk_fr_add(&w[i + 1], &w[i + 1], &k);
    }
    for (int p = 0; p < 3; p++) {
        size_t bad = 12345;
        CHECK(cuzk_cs_is_satisfied(pools[p], &cs, w, &bad) == 1 && bad == 12345);
        CHECK(cuzk_cs_is_satisfied(pools[p], &cs, w, NULL) == 1);
    }
    /* c = a o b for the satisfying witness */
    cuzk_fr *a = random_vec(n), *b = random_vec(n), *c = random_vec(n);
    CHECK(cuzk_cs_eval(pools[2], &cs, w, a, b, c) == CUZK_OK);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &a[i], &b[i]);
        ok &= cuzk_fr_eq(&t, &c[i]);
    }
    CHECK(ok);

    /* breaking x_j breaks row j-1 first (and row j after it); the last wire breaks only the
     * last row; two broken wires report the earlier one */
    size_t js[] = {1 + cuzk_rng_u64(&test_rng) % 1000 + 1, 2, 1025, 3000, n + 1};
    for (size_t t = 0; t < sizeof js / sizeof js[0]; t++) {
        size_t j = js[t];
        cuzk_fr saved = w[j], one;
        cuzk_fr_set_one(&one);
        cuzk_fr_add(&w[j], &w[j], &one);
        for (int p = 0; p < 3; p++) {
            size_t bad = 0;
            CHECK(cuzk_cs_is_satisfied(pools[p], &cs, w, &bad) == 0 && bad == j - 2);
        }
        if (j + 2 < n) {
            cuzk_fr saved2 = w[n];
            cuzk_fr_add(&w[n], &w[n], &one);
            size_t bad = 0;
            CHECK(cuzk_cs_is_satisfied(pools[2], &cs, w, &bad) == 0 && bad == j - 2);
            w[n] = saved2;
        }
        w[j] = saved;
    }
    CHECK(cuzk_cs_is_satisfied(pools[1], &cs, w, NULL) == 1);

    /* the zero vector satisfies every row but is no witness: column 0 must be one */
    cuzk_fr *z = calloc(n + 2, sizeof *z);
    size_t bad = 0;
    CHECK(cuzk_cs_is_satisfied(pools[1], &cs, z, &bad) == 0 && bad == n);
    free(z);
    free(a);
    free(b);
    free(c);
    free(w);
    cuzk_cs_free(&cs);
}

static void test_density(void) {
    for (int round = 0; round < 4; round++) {
        struct sys s;
        size_t n_cols = 40 + 100 * (size_t)round;
        CHECK(build_random(&s, 10 + 10 * (size_t)round, n_cols, 0));
        uint8_t *present = malloc(n_cols), *ref = malloc(n_cols);
        for (int m = 0; m < 3; m++) {
            memset(ref, 0, n_cols);
            size_t ref_count = 0;
            for (size_t i = 0; i < s.n_terms; i++)
                if (s.terms[i].m == m && !cuzk_fr_is_zero(&s.terms[i].coef))
                    ref[s.terms[i].col] = 1;
            for (size_t j = 0; j < n_cols; j++) ref_count += ref[j];
            size_t count = 0;
            memset(present, 7, n_cols);
            CHECK(cuzk_cs_density(&s.cs, (enum cuzk_cs_matrix)m, present, &count) == CUZK_OK);
            CHECK(!memcmp(present, ref, n_cols) && count == ref_count);
            CHECK(count < n_cols); /* sparse enough that some column is absent */
        }
        free(present);
        free(ref);
        free_sys(&s);
    }
    /* a column that appears only with a zero coefficient is absent */
    struct cuzk_cs cs;
    cuzk_fr zero, one;
    cuzk_fr_set_zero(&zero);
    cuzk_fr_set_one(&one);
    CHECK(cuzk_cs_init(&cs, 4, 1) == CUZK_OK);
    CHECK(cuzk_cs_begin_row(&cs) == CUZK_OK);
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_A, 2, &zero) == CUZK_OK);
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_A, 3, &one) == CUZK_OK);
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_B, 2, &one) == CUZK_OK);
    CHECK(cuzk_cs_end_row(&cs) == CUZK_OK);
    uint8_t pa[4], pb[4], pc[4];
    size_t ca, cb, cc;
    CHECK(cuzk_cs_density(&cs, CUZK_CS_A, pa, &ca) == CUZK_OK && ca == 1);
    CHECK(pa[0] == 0 && pa[1] == 0 && pa[2] == 0 && pa[3] == 1);
    CHECK(cuzk_cs_density(&cs, CUZK_CS_B, pb, &cb) == CUZK_OK && cb == 1 && pb[2] == 1);
    CHECK(cuzk_cs_density(&cs, CUZK_CS_C, pc, &cc) == CUZK_OK && cc == 0);
    CHECK(cuzk_cs_density(&cs, CUZK_CS_C, pc, NULL) == CUZK_OK);
    cuzk_cs_free(&cs);
}

static void test_args(void) {
    struct cuzk_cs cs;
    cuzk_fr one, w[3], a[1], b[1];
    uint8_t present[3];
    cuzk_fr_set_one(&one);
    CHECK(cuzk_cs_init(&cs, 0, 0) == CUZK_EINVAL);
    CHECK(cuzk_cs_init(&cs, 3, 3) == CUZK_EINVAL);
    CHECK(cuzk_cs_init(&cs, ((size_t)1 << 32) + 1, 0) == CUZK_EINVAL);
    CHECK(cuzk_cs_init(&cs, 3, 2) == CUZK_OK);
    CHECK(cs.n_rows == 0 && cs.n_cols == 3 && cs.n_public == 2);
    /* an empty system: nothing to compute, every row (none) holds */
    w[0] = w[1] = w[2] = one;
    CHECK(cuzk_cs_eval(pools[2], &cs, w, a, b, NULL) == CUZK_OK);
    CHECK(cuzk_cs_is_satisfied(pools[2], &cs, w, NULL) == 1);

    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_A, 0, &one) == CUZK_EINVAL); /* no row open */
    CHECK(cuzk_cs_end_row(&cs) == CUZK_EINVAL);
    CHECK(cuzk_cs_begin_row(&cs) == CUZK_OK);
    CHECK(cuzk_cs_begin_row(&cs) == CUZK_EINVAL);
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_A, 3, &one) == CUZK_EINVAL); /* col == n_cols */
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_B, UINT32_MAX, &one) == CUZK_EINVAL);
    CHECK(cuzk_cs_add_term(&cs, (enum cuzk_cs_matrix)3, 0, &one) == CUZK_EINVAL);
    CHECK(cs.m[0].nnz == 0 && cs.m[1].nnz == 0 && cs.m[2].nnz == 0); /* nothing added */
    CHECK(cuzk_cs_add_term(&cs, CUZK_CS_A, 2, &one) == CUZK_OK);
    /* reading functions refuse a system with an open row */
    CHECK(cuzk_cs_eval(NULL, &cs, w, a, b, NULL) == CUZK_EINVAL);
    CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, NULL) == CUZK_EINVAL);
    CHECK(cuzk_cs_density(&cs, CUZK_CS_A, present, NULL) == CUZK_EINVAL);
    CHECK(cuzk_cs_end_row(&cs) == CUZK_OK);
    CHECK(cs.n_rows == 1 && cs.m[0].row_ptr[0] == 0 && cs.m[0].row_ptr[1] == 1);
    CHECK(cs.m[1].row_ptr[1] == 0 && cs.m[2].row_ptr[1] == 0);
    CHECK(cuzk_cs_density(&cs, (enum cuzk_cs_matrix)3, present, NULL) == CUZK_EINVAL);
    CHECK(cuzk_cs_eval(NULL, &cs, w, a, b, NULL) == CUZK_OK);
    CHECK(cuzk_fr_is_one(&a[0]) && cuzk_fr_is_zero(&b[0]));
    /* row 0: w2 * 0 = 0 holds */
    size_t bad = 9;
    CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, &bad) == 1 && bad == 9);
    cuzk_cs_free(&cs);
    cuzk_cs_free(&cs); /* freeing twice is harmless: free clears the struct */
}

int main(void) {
    test_init("test_cs");
    CHECK(cuzk_pool_create(&pools[0], 1, "cs1") == CUZK_OK);
    CHECK(cuzk_pool_create(&pools[1], 2, "cs2") == CUZK_OK);
    CHECK(cuzk_pool_create(&pools[2], 4, "cs4") == CUZK_OK);
    test_spmv();
    test_satisfied();
    test_density();
    test_args();
    for (int p = 0; p < 3; p++) cuzk_pool_destroy(pools[p]);
    return test_finish();
}
