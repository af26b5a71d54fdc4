/* DESIGN: the reading functions split the rows into blocks of CS_ROWS_PER_ITEM and hand the
 * blocks to cuzk_pool_run; a block writes only its own rows of the outputs, so workers share
 * nothing but the read-only system and witness, and results do not depend on the pool size.
 * The satisfaction check keeps the smallest failing row in one atomic, lowered with
 * compare-and-swap; blocks that start after the best failure found so far stop early.
 * Coefficients are deduplicated while building by an open-addressing hash table of indices
 * (linear probing, at most half full), keyed by a mix of the value's limbs. */
#include "r1cs/cs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

#define CS_ROWS_PER_ITEM 1024 /* rows per pool item: coarse enough to amortise the hand-out */
#define CS_MIN_CAP 64         /* first allocation of the growing arrays */
#define CS_MIN_SLOTS 64       /* first size of the coefficients' hash table (a power of two) */

/* ---- coefficients -------------------------------------------------------------------------- */

static size_t coef_hash(const cuzk_fr *v) {
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ull) ^ (v->l[2] >> 7) ^ (v->l[3] << 3);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(h ^ (h >> 29));
}

static int coefs_rehash(struct cuzk_cs_coefs *c, size_t cap) {
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return CUZK_ENOMEM;
    for (uint32_t i = 0; i < c->n; i++) {
        size_t k = coef_hash(&c->v[i]) & (cap - 1);
        while (slot[k]) k = (k + 1) & (cap - 1);
        slot[k] = i + 1;
    }
    free(c->slot);
    c->slot = slot;
    c->slot_cap = cap;
    return CUZK_OK;
}

/* *idx = the index of value x, added to the table when new. */
static int coefs_index(struct cuzk_cs_coefs *c, const cuzk_fr *x, uint32_t *idx) {
    if (!c->slot) return CUZK_EINVAL; /* finished or loaded: read-only */
    size_t k = coef_hash(x) & (c->slot_cap - 1);
    for (; c->slot[k]; k = (k + 1) & (c->slot_cap - 1))
        if (cuzk_fr_eq(&c->v[c->slot[k] - 1], x)) {
            *idx = c->slot[k] - 1;
            return CUZK_OK;
        }
    if (c->n == UINT32_MAX - 1) return CUZK_ENOMEM;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? (c->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : 2 * c->cap) : 16;
        cuzk_fr *v = realloc(c->v, (size_t)cap * sizeof *v);
        if (!v) return CUZK_ENOMEM;
        c->v = v;
        c->cap = cap;
    }
    if (2 * ((size_t)c->n + 1) > c->slot_cap) {
        int err = coefs_rehash(c, 2 * c->slot_cap);
        if (err) return err;
        for (k = coef_hash(x) & (c->slot_cap - 1); c->slot[k]; k = (k + 1) & (c->slot_cap - 1)) {
        }
    }
    c->v[c->n] = *x;
    c->slot[k] = c->n + 1;
    *idx = c->n++;
    return CUZK_OK;
}

static int coefs_init(struct cuzk_cs_coefs *c) {
    memset(c, 0, sizeof *c);
    if (!(c->slot = calloc(CS_MIN_SLOTS, sizeof *c->slot))) return CUZK_ENOMEM;
    c->slot_cap = CS_MIN_SLOTS;
    cuzk_fr one, minus_one;
    uint32_t i;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&minus_one, &one);
    int err = coefs_index(c, &one, &i);
    if (!err) err = coefs_index(c, &minus_one, &i);
    return err;
}

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
        if (cap > SIZE_MAX / 2 / sizeof(uint32_t)) return CUZK_ENOMEM;
        cap *= 2;
    }
    uint32_t *col = realloc(m->col, (size_t)cap * sizeof *col);
    if (!col) return CUZK_ENOMEM;
    m->col = col;
    uint32_t *coef = realloc(m->coef, (size_t)cap * sizeof *coef);
    if (!coef) return CUZK_ENOMEM; /* col is larger than cap now, which is harmless */
    m->coef = coef;
    m->cap = cap;
    return CUZK_OK;
}

int cuzk_cs_init(struct cuzk_cs *cs, size_t n_cols, size_t n_public) {
    memset(cs, 0, sizeof *cs);
    if (n_public >= n_cols || n_cols - 1 > UINT32_MAX) return CUZK_EINVAL;
    cs->n_cols = n_cols;
    cs->n_public = n_public;
    int err = coefs_init(&cs->coefs);
    if (err == CUZK_OK) err = grow_rows(cs, 1);
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
    uint32_t idx = CUZK_CS_COEF_ONE;
    if (err == CUZK_OK && !cuzk_fr_is_one(coef)) err = coefs_index(&cs->coefs, coef, &idx);
    if (err != CUZK_OK) return err;
    mat->col[mat->nnz] = col;
    mat->coef[mat->nnz] = idx;
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

int cuzk_cs_finish(struct cuzk_cs *cs) {
    if (cs->row_open) return CUZK_EINVAL;
    void *p;
    for (int k = 0; k < 3; k++) {
        struct cuzk_cs_csr *x = &cs->m[k];
        size_t n = x->nnz ? (size_t)x->nnz : 1;
        if ((p = realloc(x->col, n * sizeof *x->col))) x->col = p;
        if ((p = realloc(x->coef, n * sizeof *x->coef))) x->coef = p;
        if ((p = realloc(x->row_ptr, (cs->n_rows + 1) * sizeof *x->row_ptr))) x->row_ptr = p;
        x->cap = x->nnz;
    }
    cs->rows_cap = cs->n_rows + 1;
    struct cuzk_cs_coefs *c = &cs->coefs;
    if (c->n && (p = realloc(c->v, (size_t)c->n * sizeof *c->v))) c->v = p, c->cap = c->n;
    free(c->slot);
    c->slot = NULL;
    c->slot_cap = 0;
    return CUZK_OK;
}

void cuzk_cs_free(struct cuzk_cs *cs) {
    for (int k = 0; k < 3; k++) {
        free(cs->m[k].row_ptr);
        free(cs->m[k].col);
        free(cs->m[k].coef);
    }
    free(cs->coefs.v);
    free(cs->coefs.slot);
    memset(cs, 0, sizeof *cs);
}

uint64_t cuzk_cs_bytes_for(uint64_t n_rows, uint64_t nnz_a, uint64_t nnz_b, uint64_t nnz_c,
                           uint64_t n_coefs) {
    return 3 * (n_rows + 1) * sizeof(uint64_t) + (nnz_a + nnz_b + nnz_c) * 2 * sizeof(uint32_t) +
           n_coefs * sizeof(cuzk_fr);
}

uint64_t cuzk_cs_bytes(const struct cuzk_cs *cs) {
    return cuzk_cs_bytes_for(cs->n_rows, cs->m[0].nnz, cs->m[1].nnz, cs->m[2].nnz, cs->coefs.n);
}

int cuzk_cs_validate(const struct cuzk_cs *cs) {
    const struct cuzk_cs_coefs *c = &cs->coefs;
    cuzk_fr one, minus_one;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&minus_one, &one);
    if (cs->row_open || c->n < 2 || !cuzk_fr_eq(&c->v[CUZK_CS_COEF_ONE], &one) ||
        !cuzk_fr_eq(&c->v[CUZK_CS_COEF_MINUS_ONE], &minus_one) || cs->n_public >= cs->n_cols)
        return CUZK_EFORMAT;
    for (uint32_t i = 0; i < c->n; i++) {
        cuzk_fr t; /* a stored value must be fully reduced */
        if (cuzk_fr_from_mont_le(&t, (const uint8_t *)&c->v[i])) return CUZK_EFORMAT;
    }
    for (int k = 0; k < 3; k++) {
        const struct cuzk_cs_csr *x = &cs->m[k];
        if (x->row_ptr[0] != 0 || x->row_ptr[cs->n_rows] != x->nnz) return CUZK_EFORMAT;
        for (size_t r = 0; r < cs->n_rows; r++)
            if (x->row_ptr[r + 1] < x->row_ptr[r]) return CUZK_EFORMAT;
        for (uint64_t t = 0; t < x->nnz; t++)
            if (x->col[t] >= cs->n_cols || x->coef[t] >= c->n) return CUZK_EFORMAT;
    }
    return CUZK_OK;
}

/* ---- reading ------------------------------------------------------------------------------- */

/* <M_row, w>. Coefficients 1 and -1 are common (wiring, bits, linear constraints) and cost an
 * addition instead of a multiplication; their indices are fixed, so no value is compared. */
static void row_dot(cuzk_fr *r, const struct cuzk_cs_csr *m, const cuzk_fr *coefs, size_t row,
                    const cuzk_fr *w) {
    cuzk_fr acc, t;
    cuzk_fr_set_zero(&acc);
    for (uint64_t k = m->row_ptr[row], end = m->row_ptr[row + 1]; k < end; k++) {
        const cuzk_fr *x = &w[m->col[k]];
        const uint32_t c = m->coef[k];
        if (c == CUZK_CS_COEF_ONE) {
            cuzk_fr_add(&acc, &acc, x);
        } else if (c == CUZK_CS_COEF_MINUS_ONE) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, &coefs[c], x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *r = acc;
}

struct eval_job {
    const struct cuzk_cs *cs;
    const cuzk_fr *w;
    cuzk_fr *out[3];         /* a, b, c (c may be NULL) */
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
            row_dot(&job->out[k][i], &job->cs->m[k], job->cs->coefs.v, i, job->w);
    }
}

int cuzk_cs_eval(struct cuzk_pool *pool, const struct cuzk_cs *cs, const cuzk_fr *w, cuzk_fr *a,
                 cuzk_fr *b, cuzk_fr *c) {
    if (cs->row_open || !w || !a || !b) return CUZK_EINVAL;
    struct eval_job job = {.cs = cs, .w = w, .out = {a, b, c}};
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
        const cuzk_fr *coefs = job->cs->coefs.v;
        row_dot(&x, &job->cs->m[CUZK_CS_A], coefs, i, job->w);
        row_dot(&y, &job->cs->m[CUZK_CS_B], coefs, i, job->w);
        row_dot(&z, &job->cs->m[CUZK_CS_C], coefs, i, job->w);
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
        if (!cuzk_fr_is_zero(&cs->coefs.v[mat->coef[k]])) present[mat->col[k]] = 1;
    if (count) {
        size_t nz = 0;
        for (size_t j = 0; j < cs->n_cols; j++) nz += present[j];
        *count = nz;
    }
    return CUZK_OK;
}
