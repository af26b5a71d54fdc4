/* DESIGN: the reading functions split the rows into blocks of CS_ROWS_PER_ITEM and hand the
 * blocks to cuzk_pool_run; a block writes only its own rows of the outputs, so workers share
 * nothing but the read-only system and witness, and results do not depend on the pool size.
 * The satisfaction check keeps the smallest failing row in one atomic, lowered with
 * compare-and-swap; blocks that start after the best failure found so far stop early. */
#include "r1cs/cs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

#define CS_ROWS_PER_ITEM 1024 /* rows per pool item: coarse enough to amortise the hand-out */
#define CS_MIN_CAP 64         /* first allocation of the growing arrays */

/* ---- building ---------------------------------------------------------------------------- */

/* Grows every row_ptr to at least `need` entries. */
static int grow_rows(struct cuzk_cs *cs, size_t need) {
    if (need <= cs->rows_cap) return CUZK_OK;
    size_t cap = cs->rows_cap ? cs->rows_cap : CS_MIN_CAP;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / sizeof(uint64_t)) return CUZK_ENOMEM;
        cap *= 2;
    }
    for (int k = 0; k < 3; k++) {
        uint64_t *p = realloc(cs->m[k].row_ptr, cap * sizeof *p);
        if (!p) return CUZK_ENOMEM; /* the arrays grown so far stay valid, only larger */
        cs->m[k].row_ptr = p;
    }
    cs->rows_cap = cap;
    return CUZK_OK;
}

/* Grows the term arrays of one matrix to at least `need` terms. */
static int grow_terms(struct cuzk_cs_csr *m, uint64_t need) {
    if (need <= m->cap) return CUZK_OK;
    uint64_t cap = m->cap ? m->cap : CS_MIN_CAP;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / sizeof(cuzk_fr)) return CUZK_ENOMEM;
        cap *= 2;
    }
    uint32_t *col = realloc(m->col, (size_t)cap * sizeof *col);
    if (!col) return CUZK_ENOMEM;
    m->col = col;
    cuzk_fr *val = realloc(m->val, (size_t)cap * sizeof *val);
    if (!val) return CUZK_ENOMEM; /* col is larger than cap now, which is harmless */
    m->val = val;
    m->cap = cap;
    return CUZK_OK;
}

int cuzk_cs_init(struct cuzk_cs *cs, size_t n_cols, size_t n_public) {
    memset(cs, 0, sizeof *cs);
    if (n_public >= n_cols || n_cols - 1 > UINT32_MAX) return CUZK_EINVAL;
    cs->n_cols = n_cols;
    cs->n_public = n_public;
    int err = grow_rows(cs, 1);
    if (err != CUZK_OK) {
        cuzk_cs_free(cs);
        return err;
    }
    for (int k = 0; k < 3; k++) cs->m[k].row_ptr[0] = 0;
    return CUZK_OK;
}

int cuzk_cs_reserve(struct cuzk_cs *cs, size_t n_rows, uint64_t nnz_a, uint64_t nnz_b,
                    uint64_t nnz_c) {
    if (n_rows == SIZE_MAX) return CUZK_ENOMEM;
    int err = grow_rows(cs, n_rows + 1);
    if (err == CUZK_OK) err = grow_terms(&cs->m[CUZK_CS_A], nnz_a);
    if (err == CUZK_OK) err = grow_terms(&cs->m[CUZK_CS_B], nnz_b);
    if (err == CUZK_OK) err = grow_terms(&cs->m[CUZK_CS_C], nnz_c);
    return err;
}

int cuzk_cs_begin_row(struct cuzk_cs *cs) {
    if (cs->row_open) return CUZK_EINVAL;
    /* end_row writes row_ptr[n_rows + 1] */
    if (cs->n_rows >= SIZE_MAX - 2) return CUZK_ENOMEM;
    int err = grow_rows(cs, cs->n_rows + 2);
    if (err != CUZK_OK) return err;
    cs->row_open = 1;
    return CUZK_OK;
}

int cuzk_cs_add_term(struct cuzk_cs *cs, enum cuzk_cs_matrix m, uint32_t col, const cuzk_fr *coef) {
    if (!cs->row_open || (unsigned)m > CUZK_CS_C || col >= cs->n_cols) return CUZK_EINVAL;
    struct cuzk_cs_csr *mat = &cs->m[m];
    int err = grow_terms(mat, mat->nnz + 1);
    if (err != CUZK_OK) return err;
    mat->col[mat->nnz] = col;
    mat->val[mat->nnz] = *coef;
    mat->nnz++;
    return CUZK_OK;
}

int cuzk_cs_end_row(struct cuzk_cs *cs) {
    if (!cs->row_open) return CUZK_EINVAL;
    for (int k = 0; k < 3; k++) cs->m[k].row_ptr[cs->n_rows + 1] = cs->m[k].nnz;
    cs->n_rows++;
    cs->row_open = 0;
    return CUZK_OK;
}

void cuzk_cs_free(struct cuzk_cs *cs) {
    for (int k = 0; k < 3; k++) {
        free(cs->m[k].row_ptr);
        free(cs->m[k].col);
        free(cs->m[k].val);
    }
    memset(cs, 0, sizeof *cs);
}

/* ---- reading ------------------------------------------------------------------------------- */

/* <M_row, w>. Coefficients 1 and -1 are common (circom emits them for wiring and linear
 * constraints) and cost an addition instead of a multiplication. */
static void row_dot(cuzk_fr *r, const struct cuzk_cs_csr *m, size_t row, const cuzk_fr *w,
                    const cuzk_fr *minus_one) {
    cuzk_fr acc, t;
    cuzk_fr_set_zero(&acc);
    for (uint64_t k = m->row_ptr[row], end = m->row_ptr[row + 1]; k < end; k++) {
        const cuzk_fr *v = &m->val[k], *x = &w[m->col[k]];
        if (cuzk_fr_is_one(v)) {
            cuzk_fr_add(&acc, &acc, x);
        } else if (cuzk_fr_eq(v, minus_one)) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, v, x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *r = acc;
}

struct eval_job {
    const struct cuzk_cs *cs;
    const cuzk_fr *w;
    cuzk_fr *out[3]; /* a, b, c (c may be NULL) */
    cuzk_fr minus_one;
    atomic_size_t first_bad; /* is_satisfied: smallest failing row, n_rows if none */
};

static void rows_of(const struct eval_job *job, size_t item, size_t *lo, size_t *hi) {
    *lo = item * CS_ROWS_PER_ITEM;
    *hi = *lo + CS_ROWS_PER_ITEM < job->cs->n_rows ? *lo + CS_ROWS_PER_ITEM : job->cs->n_rows;
}

static size_t items_of(const struct cuzk_cs *cs) {
    return (cs->n_rows + CS_ROWS_PER_ITEM - 1) / CS_ROWS_PER_ITEM;
}

static void eval_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    struct eval_job *job = ctx;
    size_t lo, hi;
    rows_of(job, item, &lo, &hi);
    for (int k = 0; k < 3; k++) {
        if (!job->out[k]) continue;
        for (size_t i = lo; i < hi; i++)
            row_dot(&job->out[k][i], &job->cs->m[k], i, job->w, &job->minus_one);
    }
}

int cuzk_cs_eval(struct cuzk_pool *pool, const struct cuzk_cs *cs, const cuzk_fr *w, cuzk_fr *a,
                 cuzk_fr *b, cuzk_fr *c) {
    if (cs->row_open || !w || !a || !b) return CUZK_EINVAL;
    struct eval_job job = {.cs = cs, .w = w, .out = {a, b, c}};
    cuzk_fr_set_one(&job.minus_one);
    cuzk_fr_neg(&job.minus_one, &job.minus_one);
    cuzk_pool_run(pool, items_of(cs), eval_item, &job);
    return CUZK_OK;
}

static void check_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    struct eval_job *job = ctx;
    size_t lo, hi;
    rows_of(job, item, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        size_t best = atomic_load_explicit(&job->first_bad, memory_order_relaxed);
        if (i >= best) return; /* a smaller failing row is known already */
        cuzk_fr x, y, z;
        row_dot(&x, &job->cs->m[CUZK_CS_A], i, job->w, &job->minus_one);
        row_dot(&y, &job->cs->m[CUZK_CS_B], i, job->w, &job->minus_one);
        row_dot(&z, &job->cs->m[CUZK_CS_C], i, job->w, &job->minus_one);
        cuzk_fr_mul(&x, &x, &y);
        if (cuzk_fr_eq(&x, &z)) continue;
        while (i < best &&
               !atomic_compare_exchange_weak_explicit(&job->first_bad, &best, i,
                                                      memory_order_relaxed, memory_order_relaxed)) {
        }
        return; /* later rows of this block cannot be smaller */
    }
}

int cuzk_cs_is_satisfied(struct cuzk_pool *pool, const struct cuzk_cs *cs, const cuzk_fr *w,
                         size_t *first_bad_row) {
    if (cs->row_open || !w) return CUZK_EINVAL;
    if (!cuzk_fr_is_one(&w[0])) {
        if (first_bad_row) *first_bad_row = cs->n_rows;
        return 0;
    }
    struct eval_job job = {.cs = cs, .w = w};
    cuzk_fr_set_one(&job.minus_one);
    cuzk_fr_neg(&job.minus_one, &job.minus_one);
    atomic_init(&job.first_bad, cs->n_rows);
    cuzk_pool_run(pool, items_of(cs), check_item, &job);
    size_t bad = atomic_load(&job.first_bad);
    if (bad == cs->n_rows) return 1;
    if (first_bad_row) *first_bad_row = bad;
    return 0;
}

int cuzk_cs_density(const struct cuzk_cs *cs, enum cuzk_cs_matrix m, uint8_t *present,
                    size_t *count) {
    if (cs->row_open || (unsigned)m > CUZK_CS_C || !present) return CUZK_EINVAL;
    const struct cuzk_cs_csr *mat = &cs->m[m];
    memset(present, 0, cs->n_cols);
    for (uint64_t k = 0; k < mat->nnz; k++)
        if (!cuzk_fr_is_zero(&mat->val[k])) present[mat->col[k]] = 1;
    if (count) {
        size_t nz = 0;
        for (size_t j = 0; j < cs->n_cols; j++) nz += present[j];
        *count = nz;
    }
    return CUZK_OK;
}
