/* DESIGN: one struct, three modes (see builder.h). Values live in two growing arrays (inputs,
 * aux) or in one caller buffer in the final layout; the recorded rows go straight into a
 * struct cuzk_cs whose columns hold the building encoding of cuzk_var (inputs below 2^31, aux
 * tagged with bit 31, so the system is created with 2^32 columns) and are rewritten to final
 * columns by cuzk_builder_finish. LC terms are kept sorted by variable; variables are mostly
 * added in allocation order, so the common insertion is an append. */
#include "circuits/builder.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

#define BUILDER_MIN_CAP 1024 /* first allocation of the value arrays */
#define LC_MIN_HEAP 32       /* first heap allocation of an LC that outgrows its inline room */

/* ---- shared constants ---------------------------------------------------------------------- */

cuzk_fr cuzk_lc_pow2_table_[256]; /* 2^i */
int cuzk_lc_consts_ready_;        /* set (release) once the tables are built */
static cuzk_fr minus_one_const;   /* -1 */
static pthread_once_t consts_once = PTHREAD_ONCE_INIT;

static void consts_build(void) {
    cuzk_fr_set_one(&cuzk_lc_pow2_table_[0]);
    for (int i = 1; i < 256; i++) cuzk_fr_dbl(&cuzk_lc_pow2_table_[i], &cuzk_lc_pow2_table_[i - 1]);
    cuzk_fr_set_one(&minus_one_const);
    cuzk_fr_neg(&minus_one_const, &minus_one_const);
    __atomic_store_n(&cuzk_lc_consts_ready_, 1, __ATOMIC_RELEASE);
}

void cuzk_lc_consts_init_(void) { pthread_once(&consts_once, consts_build); }

const cuzk_fr *cuzk_lc_minus_one(void) {
    cuzk_lc_consts_init_();
    return &minus_one_const;
}

/* ---- life cycle ---------------------------------------------------------------------------- */

static void set_err(struct cuzk_builder *b, int err) {
    if (b->err == CUZK_OK) b->err = err;
}

/* Grows a value array to hold at least `need` elements (doubling). */
static int grow_values(cuzk_fr **arr, size_t *cap, size_t need) {
    if (need <= *cap) return CUZK_OK;
    size_t c = *cap ? *cap : BUILDER_MIN_CAP;
    while (c < need) {
        if (c > SIZE_MAX / 2 / sizeof(cuzk_fr)) return CUZK_ENOMEM;
        c *= 2;
    }
    cuzk_fr *p = realloc(*arr, c * sizeof *p);
    if (!p) return CUZK_ENOMEM;
    *arr = p;
    *cap = c;
    return CUZK_OK;
}

/* Grows the boolean bitmap to cover at least `n_aux` aux. */
static int grow_bool_map(struct cuzk_builder *b, size_t n_aux) {
    size_t need = (n_aux + 63) / 64;
    if (need <= b->bool_map_words) return CUZK_OK;
    size_t c = b->bool_map_words ? b->bool_map_words : BUILDER_MIN_CAP / 64;
    while (c < need) c *= 2;
    uint64_t *p = realloc(b->bool_map, c * sizeof *p);
    if (!p) return CUZK_ENOMEM;
    memset(p + b->bool_map_words, 0, (c - b->bool_map_words) * sizeof *p);
    b->bool_map = p;
    b->bool_map_words = c;
    return CUZK_OK;
}

int cuzk_builder_init(struct cuzk_builder *b, enum cuzk_builder_mode mode, int with_values) {
    memset(b, 0, sizeof *b);
    if ((unsigned)mode > CUZK_BUILDER_WITNESS) return b->err = CUZK_EINVAL;
    cuzk_lc_consts_init_();
    b->mode = mode;
    b->values = mode == CUZK_BUILDER_WITNESS || (mode == CUZK_BUILDER_RECORD && with_values);
    b->counts.n_inputs = 1; /* ONE */
    if (mode == CUZK_BUILDER_RECORD) {
        /* every 32-bit building column is valid until finish narrows n_cols */
        int err = cuzk_cs_init(&b->cs, (size_t)1 << 32, 0);
        if (err != CUZK_OK) return b->err = err;
    }
    if (b->values) {
        int err = grow_values(&b->inputs, &b->inputs_cap, 1);
        if (err != CUZK_OK) return b->err = err;
        cuzk_fr_set_one(&b->inputs[0]);
    }
    return CUZK_OK;
}

int cuzk_builder_use_buffer(struct cuzk_builder *b, cuzk_fr *w, size_t cap, size_t n_inputs) {
    if (!b->values || !w || n_inputs < 1 || n_inputs > cap || b->counts.n_inputs != 1 ||
        b->counts.n_aux != 0 || b->caller_buffer)
        return CUZK_EINVAL;
    free(b->inputs);
    free(b->aux);
    b->caller_buffer = 1;
    b->n_inputs_fixed = n_inputs;
    b->inputs = w;
    b->inputs_cap = n_inputs;
    b->aux = w + n_inputs;
    b->aux_cap = cap - n_inputs;
    cuzk_fr_set_one(&b->inputs[0]);
    return CUZK_OK;
}

int cuzk_builder_reserve(struct cuzk_builder *b, const struct cuzk_builder_counts *c) {
    int err = CUZK_OK;
    if (b->values && !b->caller_buffer) {
        err = grow_values(&b->aux, &b->aux_cap, c->n_aux);
        if (err == CUZK_OK) err = grow_values(&b->inputs, &b->inputs_cap, c->n_inputs);
        if (err == CUZK_OK) err = grow_bool_map(b, c->n_aux);
    } else if (b->values) {
        err = grow_bool_map(b, c->n_aux);
    }
    if (err == CUZK_OK && b->mode == CUZK_BUILDER_RECORD)
        err = cuzk_cs_reserve(&b->cs, c->constraints, c->nnz[0], c->nnz[1], c->nnz[2]);
    if (err != CUZK_OK) set_err(b, err);
    return err;
}

void cuzk_builder_free(struct cuzk_builder *b) {
    if (!b->caller_buffer) {
        free(b->inputs);
        free(b->aux);
    }
    free(b->bool_map);
    if (b->mode == CUZK_BUILDER_RECORD) cuzk_cs_free(&b->cs);
    memset(b, 0, sizeof *b);
}

int cuzk_builder_finish(struct cuzk_builder *b, struct cuzk_cs *cs, cuzk_fr **w, size_t *w_len) {
    if (cs) memset(cs, 0, sizeof *cs);
    if (w) *w = NULL;
    if (w_len) *w_len = 0;
    if (b->err != CUZK_OK) return b->err;
    const size_t n_in = b->counts.n_inputs, n_aux = b->counts.n_aux;
    if (b->caller_buffer && n_in != b->n_inputs_fixed) return b->err = CUZK_ERANGE;

    if (b->mode == CUZK_BUILDER_RECORD && cs) {
        for (int k = 0; k < 3; k++) {
            struct cuzk_cs_csr *m = &b->cs.m[k];
            for (uint64_t t = 0; t < m->nnz; t++) {
                cuzk_var v = m->col[t];
                m->col[t] = cuzk_var_is_aux(v) ? (uint32_t)(n_in + cuzk_var_index(v)) : v;
            }
        }
        b->cs.n_cols = n_in + n_aux;
        b->cs.n_public = n_in - 1;
        int err = cuzk_cs_finish(&b->cs); /* exact sizes; read-only from here */
        if (err != CUZK_OK) return b->err = err;
        *cs = b->cs;
        memset(&b->cs, 0, sizeof b->cs); /* handed over */
    }

    if (b->values && w) {
        if (b->caller_buffer) {
            *w = b->inputs;
        } else {
            cuzk_fr *out = malloc((n_in + n_aux) * sizeof *out);
            if (!out) {
                if (cs) cuzk_cs_free(cs);
                return b->err = CUZK_ENOMEM;
            }
            memcpy(out, b->inputs, n_in * sizeof *out);
            if (n_aux) memcpy(out + n_in, b->aux, n_aux * sizeof *out);
            *w = out;
        }
        if (w_len) *w_len = n_in + n_aux;
    }
    return CUZK_OK;
}

/* ---- variables ----------------------------------------------------------------------------- */

void cuzk_builder_value(const struct cuzk_builder *b, cuzk_var v, cuzk_fr *out) {
    uint32_t i = cuzk_var_index(v);
    if (!b->values) {
        cuzk_fr_set_zero(out);
    } else if (cuzk_var_is_aux(v)) {
        if (i < b->counts.n_aux)
            *out = b->aux[i];
        else
            cuzk_fr_set_zero(out);
    } else {
        if (i < b->counts.n_inputs)
            *out = b->inputs[i];
        else
            cuzk_fr_set_zero(out);
    }
}

/* Reserves aux slot j = n_aux and stores its value. Returns 0 on failure (error set). */
static int new_aux(struct cuzk_builder *b, const cuzk_fr *value) {
    uint64_t j = b->counts.n_aux;
    if (j > CUZK_VAR_MAX_INDEX) {
        set_err(b, CUZK_ERANGE);
        return 0;
    }
    if (b->values) {
        if (j >= b->aux_cap) {
            if (b->caller_buffer) {
                set_err(b, CUZK_ERANGE);
                return 0;
            }
            int err = grow_values(&b->aux, &b->aux_cap, j + 1);
            if (err != CUZK_OK) {
                set_err(b, err);
                return 0;
            }
        }
        if (value)
            b->aux[j] = *value;
        else
            cuzk_fr_set_zero(&b->aux[j]);
    }
    b->counts.n_aux = j + 1;
    return 1;
}

cuzk_var cuzk_builder_alloc(struct cuzk_builder *b, const cuzk_fr *value) {
    if (b->err != CUZK_OK || !new_aux(b, value)) return CUZK_VAR_AUX;
    return CUZK_VAR_AUX | (cuzk_var)(b->counts.n_aux - 1);
}

cuzk_var cuzk_builder_alloc_bit_slow_(struct cuzk_builder *b, int bit) {
    if (b->err != CUZK_OK) return CUZK_VAR_AUX;
    cuzk_fr v;
    if (b->values) {
        if (bit)
            cuzk_fr_set_one(&v);
        else
            cuzk_fr_set_zero(&v);
    }
    if (!new_aux(b, b->values ? &v : NULL)) return CUZK_VAR_AUX;
    uint64_t j = b->counts.n_aux - 1;
    b->counts.n_bool++;
    if (b->values) {
        if (j / 64 >= b->bool_map_words) {
            int err = grow_bool_map(b, j + 1);
            if (err != CUZK_OK) {
                set_err(b, err);
                return CUZK_VAR_AUX;
            }
        }
        b->bool_map[j / 64] |= (uint64_t)1 << (j % 64);
    }
    return CUZK_VAR_AUX | (cuzk_var)j;
}

cuzk_var cuzk_builder_alloc_input(struct cuzk_builder *b, const cuzk_fr *value) {
    if (b->err != CUZK_OK) return CUZK_VAR_ONE;
    uint64_t i = b->counts.n_inputs;
    if (i > CUZK_VAR_MAX_INDEX) {
        set_err(b, CUZK_ERANGE);
        return CUZK_VAR_ONE;
    }
    if (b->values) {
        if (i >= b->inputs_cap) {
            if (b->caller_buffer) {
                set_err(b, CUZK_ERANGE);
                return CUZK_VAR_ONE;
            }
            int err = grow_values(&b->inputs, &b->inputs_cap, i + 1);
            if (err != CUZK_OK) {
                set_err(b, err);
                return CUZK_VAR_ONE;
            }
        }
        if (value)
            b->inputs[i] = *value;
        else
            cuzk_fr_set_zero(&b->inputs[i]);
    }
    b->counts.n_inputs = i + 1;
    return (cuzk_var)i;
}

/* ---- linear combinations ------------------------------------------------------------------- */

static inline int lc_coefs(const struct cuzk_lc *lc) { return lc->b->mode == CUZK_BUILDER_RECORD; }
static inline cuzk_var *lc_vars(struct cuzk_lc *lc) {
    return lc->cap > CUZK_LC_INLINE ? lc->hvar : lc->ivar;
}
static inline cuzk_fr *lc_cf(struct cuzk_lc *lc) {
    return lc->cap > CUZK_LC_INLINE ? lc->hcoef : lc->icoef;
}
static inline const cuzk_var *lc_cvars(const struct cuzk_lc *lc) {
    return lc->cap > CUZK_LC_INLINE ? lc->hvar : lc->ivar;
}
static inline const cuzk_fr *lc_ccf(const struct cuzk_lc *lc) {
    return lc->cap > CUZK_LC_INLINE ? lc->hcoef : lc->icoef;
}

void cuzk_lc_free_storage_(struct cuzk_lc *lc) {
    free(lc->hvar);
    free(lc->hcoef);
    lc->hvar = NULL;
    lc->hcoef = NULL;
    lc->n = 0;
    lc->cap = CUZK_LC_INLINE;
}

/* Ensures room for `need` terms. Returns 0 on failure (the builder's error is set). */
static int lc_reserve(struct cuzk_lc *lc, uint32_t need) {
    if (need <= lc->cap) return 1;
    uint32_t c = lc->cap < LC_MIN_HEAP ? LC_MIN_HEAP : lc->cap * 2;
    while (c < need) c *= 2;
    int coefs = lc_coefs(lc);
    cuzk_var *v = malloc((size_t)c * sizeof *v);
    cuzk_fr *f = coefs ? malloc((size_t)c * sizeof *f) : NULL;
    if (!v || (coefs && !f)) {
        free(v);
        free(f);
        set_err(lc->b, CUZK_ENOMEM);
        return 0;
    }
    memcpy(v, lc_vars(lc), lc->n * sizeof *v);
    if (coefs) memcpy(f, lc_cf(lc), lc->n * sizeof *f);
    free(lc->hvar);
    free(lc->hcoef);
    lc->hvar = v;
    lc->hcoef = f;
    lc->cap = c;
    return 1;
}

/* lc += s * v where s = coeff (NULL: one) negated when neg. */
void cuzk_lc_add_slow_(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v, int neg) {
    if (lc->b->mode == CUZK_BUILDER_WITNESS) return;
    int coefs = lc_coefs(lc);
    cuzk_fr s;
    if (coefs) {
        if (coeff)
            s = *coeff;
        else
            cuzk_fr_set_one(&s);
        if (neg) cuzk_fr_neg(&s, &s);
    }
    uint32_t n = lc->n;
    cuzk_var *vars = lc_vars(lc);
    uint32_t pos = n;
    if (n && vars[n - 1] >= v) {
        uint32_t lo = 0, hi = n; /* first index with vars[idx] >= v */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (vars[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        pos = lo;
        if (vars[pos] == v) {
            if (coefs) cuzk_fr_add(&lc_cf(lc)[pos], &lc_cf(lc)[pos], &s);
            return;
        }
    }
    if (!lc_reserve(lc, n + 1)) return;
    vars = lc_vars(lc);
    if (pos < n) memmove(vars + pos + 1, vars + pos, (n - pos) * sizeof *vars);
    vars[pos] = v;
    if (coefs) {
        cuzk_fr *cf = lc_cf(lc);
        if (pos < n) memmove(cf + pos + 1, cf + pos, (n - pos) * sizeof *cf);
        cf[pos] = s;
    }
    lc->n = n + 1;
}

/* lc += s * other, s = coeff (NULL: one) negated when neg. A backward merge in place: the union
 * size is counted first, so every term lands at its final position and nothing is overwritten
 * before it is read. */
static void lc_merge(struct cuzk_lc *lc, const cuzk_fr *coeff, const struct cuzk_lc *other,
                     int neg) {
    if (lc->b->mode == CUZK_BUILDER_WITNESS || other->n == 0) return;
    int coefs = lc_coefs(lc);
    cuzk_fr s;
    int s_is_one = 0;
    if (coefs) {
        if (coeff)
            s = *coeff;
        else
            cuzk_fr_set_one(&s);
        if (neg) cuzk_fr_neg(&s, &s);
        s_is_one = cuzk_fr_is_one(&s);
    }
    const cuzk_var *ov = lc_cvars(other);
    const cuzk_fr *oc = coefs ? lc_ccf(other) : NULL;
    uint32_t n1 = lc->n, n2 = other->n;
    /* Shared prefixes: Poseidon's state elements hold the same variables (plus the newest ones
     * at the end), so most merges find other's variables as a prefix of lc's or the reverse;
     * a vectorised compare then replaces the merge. */
    const cuzk_var *v1c = lc_cvars(lc);
    uint32_t shared = n1 < n2 ? n1 : n2;
    if (shared && memcmp(v1c, ov, shared * sizeof *ov) == 0) {
        if (n1 < n2) {
            if (!lc_reserve(lc, n2)) return;
            memcpy(lc_vars(lc) + n1, ov + n1, (n2 - n1) * sizeof *ov);
        }
        if (coefs) {
            cuzk_fr *c1 = lc_cf(lc), t;
            for (uint32_t i = 0; i < n2; i++) {
                if (s_is_one)
                    t = oc[i];
                else
                    cuzk_fr_mul(&t, &oc[i], &s);
                if (i < n1)
                    cuzk_fr_add(&c1[i], &c1[i], &t);
                else
                    c1[i] = t;
            }
        }
        if (n2 > n1) lc->n = n2;
        return;
    }
    /* every variable of other sorts before lc's (a fresh variable merged with older ones):
     * lc moves up and other goes in front */
    if (n1 && ov[n2 - 1] < v1c[0]) {
        if (!lc_reserve(lc, n1 + n2)) return;
        cuzk_var *v1 = lc_vars(lc);
        memmove(v1 + n2, v1, n1 * sizeof *v1);
        memcpy(v1, ov, n2 * sizeof *v1);
        if (coefs) {
            cuzk_fr *c1 = lc_cf(lc);
            memmove(c1 + n2, c1, n1 * sizeof *c1);
            for (uint32_t i = 0; i < n2; i++) {
                if (s_is_one)
                    c1[i] = oc[i];
                else
                    cuzk_fr_mul(&c1[i], &oc[i], &s);
            }
        }
        lc->n = n1 + n2;
        return;
    }
    /* union size */
    uint32_t u = 0;
    {
        const cuzk_var *v1 = lc_cvars(lc);
        uint32_t i = 0, j = 0;
        if (n1 == 0 || v1[n1 - 1] < ov[0]) {
            u = n1 + n2;
        } else {
            while (i < n1 && j < n2) {
                if (v1[i] < ov[j])
                    i++;
                else if (v1[i] > ov[j])
                    j++;
                else
                    i++, j++;
                u++;
            }
            u += (n1 - i) + (n2 - j);
        }
    }
    if (!lc_reserve(lc, u)) return;
    cuzk_var *v1 = lc_vars(lc);
    cuzk_fr *c1 = coefs ? lc_cf(lc) : NULL;
    int64_t i = (int64_t)n1 - 1, j = (int64_t)n2 - 1, k = (int64_t)u - 1;
    while (j >= 0) {
        if (i >= 0 && v1[i] > ov[j]) {
            v1[k] = v1[i];
            if (coefs) c1[k] = c1[i];
            i--;
        } else {
            cuzk_fr t;
            if (coefs) {
                if (s_is_one)
                    t = oc[j];
                else
                    cuzk_fr_mul(&t, &oc[j], &s);
            }
            if (i >= 0 && v1[i] == ov[j]) {
                if (coefs) cuzk_fr_add(&t, &c1[i], &t);
                i--;
            }
            v1[k] = ov[j];
            if (coefs) c1[k] = t;
            j--;
        }
        k--;
    }
    lc->n = u;
}

void cuzk_lc_add_lc(struct cuzk_lc *lc, const cuzk_fr *coeff, const struct cuzk_lc *other) {
    lc_merge(lc, coeff, other, 0);
}

void cuzk_lc_sub_lc(struct cuzk_lc *lc, const cuzk_fr *coeff, const struct cuzk_lc *other) {
    lc_merge(lc, coeff, other, 1);
}

void cuzk_lc_copy(struct cuzk_lc *dst, const struct cuzk_lc *src) {
    dst->n = 0;
    if (src->b->mode == CUZK_BUILDER_WITNESS) return;
    if (!lc_reserve(dst, src->n)) return;
    memcpy(lc_vars(dst), lc_cvars(src), src->n * sizeof(cuzk_var));
    if (lc_coefs(dst)) memcpy(lc_cf(dst), lc_ccf(src), src->n * sizeof(cuzk_fr));
    dst->n = src->n;
}

void cuzk_lc_scale(struct cuzk_lc *lc, const cuzk_fr *coeff) {
    if (!lc_coefs(lc)) return;
    cuzk_fr *cf = lc_cf(lc);
    for (uint32_t i = 0; i < lc->n; i++) cuzk_fr_mul(&cf[i], &cf[i], coeff);
}

cuzk_var cuzk_lc_var(const struct cuzk_lc *lc, uint32_t i) { return lc_cvars(lc)[i]; }

const cuzk_fr *cuzk_lc_coeff(const struct cuzk_lc *lc, uint32_t i) {
    return lc_coefs(lc) ? &lc_ccf(lc)[i] : NULL;
}

/* ---- constraints --------------------------------------------------------------------------- */

void cuzk_builder_enforce_counted(struct cuzk_builder *b, uint64_t nnz_a, uint64_t nnz_b,
                                  uint64_t nnz_c) {
    if (b->err != CUZK_OK) return;
    if (b->mode != CUZK_BUILDER_COUNT) {
        set_err(b, CUZK_EINVAL);
        return;
    }
    b->counts.constraints++;
    b->counts.nnz[0] += nnz_a;
    b->counts.nnz[1] += nnz_b;
    b->counts.nnz[2] += nnz_c;
}

void cuzk_builder_enforce_record_(struct cuzk_builder *b, const struct cuzk_lc *a,
                                  const struct cuzk_lc *bb, const struct cuzk_lc *c) {
    b->counts.constraints++;
    const struct cuzk_lc *lcs[3] = {a, bb, c};
    int err = cuzk_cs_begin_row(&b->cs);
    for (int k = 0; k < 3 && err == CUZK_OK; k++) {
        if (!lcs[k]) continue;
        const cuzk_var *v = lc_cvars(lcs[k]);
        const cuzk_fr *cf = lc_ccf(lcs[k]);
        for (uint32_t t = 0; t < lcs[k]->n && err == CUZK_OK; t++)
            err = cuzk_cs_add_term(&b->cs, (enum cuzk_cs_matrix)k, v[t], &cf[t]);
        b->counts.nnz[k] += lcs[k]->n;
    }
    if (err == CUZK_OK) err = cuzk_cs_end_row(&b->cs);
    if (err != CUZK_OK) set_err(b, err);
}
