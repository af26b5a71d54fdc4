/* Inline bodies of the builder's hot operations (included by builder.h only). Each handles the
 * common case inline (COUNT and WITNESS bookkeeping, an append to an LC with room) and calls an
 * out-of-line function of builder.c for everything else. */
#ifndef CUZK_CIRCUITS_BUILDER_IMPL_H
#define CUZK_CIRCUITS_BUILDER_IMPL_H

/* out-of-line parts (builder.c); not for direct use */
cuzk_var cuzk_builder_alloc_bit_slow_(struct cuzk_builder *b, int bit);
void cuzk_builder_enforce_record_(struct cuzk_builder *b, const struct cuzk_lc *a,
                                  const struct cuzk_lc *bb, const struct cuzk_lc *c);
void cuzk_lc_add_slow_(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v, int neg);
void cuzk_lc_free_storage_(struct cuzk_lc *lc);
extern cuzk_fr cuzk_lc_pow2_table_[256];
extern int cuzk_lc_consts_ready_;
void cuzk_lc_consts_init_(void);

static inline const cuzk_fr *cuzk_lc_pow2(unsigned i) {
    if (!__atomic_load_n(&cuzk_lc_consts_ready_, __ATOMIC_ACQUIRE)) cuzk_lc_consts_init_();
    return &cuzk_lc_pow2_table_[i & 255];
}

static inline cuzk_var cuzk_builder_alloc_bit(struct cuzk_builder *b, int bit) {
    if (b->mode == CUZK_BUILDER_COUNT && b->err == 0 && b->counts.n_aux <= CUZK_VAR_MAX_INDEX) {
        b->counts.n_bool++;
        return CUZK_VAR_AUX | (cuzk_var)b->counts.n_aux++;
    }
    return cuzk_builder_alloc_bit_slow_(b, bit);
}

static inline void cuzk_lc_init(struct cuzk_lc *lc, struct cuzk_builder *b) {
    lc->b = b;
    lc->n = 0;
    lc->cap = CUZK_LC_INLINE;
    lc->hvar = NULL;
    lc->hcoef = NULL;
}

static inline void cuzk_lc_free(struct cuzk_lc *lc) {
    if (lc->cap > CUZK_LC_INLINE) cuzk_lc_free_storage_(lc);
    lc->n = 0;
}

/* Appends when v sorts after every term and there is room (the usual case: variables are
 * mostly added in allocation order); anything else goes through the slow path. */
static inline void cuzk_lc_term_(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v, int neg) {
    const enum cuzk_builder_mode mode = lc->b->mode;
    if (mode == CUZK_BUILDER_WITNESS) return;
    uint32_t n = lc->n;
    cuzk_var *vars = lc->cap > CUZK_LC_INLINE ? lc->hvar : lc->ivar;
    if (n && vars[n - 1] == v) { /* the last term again (e.g. a + a): merge */
        if (mode == CUZK_BUILDER_RECORD) {
            cuzk_fr *cf = (lc->cap > CUZK_LC_INLINE ? lc->hcoef : lc->icoef) + n - 1, t;
            if (coeff)
                t = *coeff;
            else
                cuzk_fr_set_one(&t);
            if (neg)
                cuzk_fr_sub(cf, cf, &t);
            else
                cuzk_fr_add(cf, cf, &t);
        }
        return;
    }
    if (n < lc->cap && (n == 0 || vars[n - 1] < v)) {
        vars[n] = v;
        if (mode == CUZK_BUILDER_RECORD) {
            cuzk_fr *cf = (lc->cap > CUZK_LC_INLINE ? lc->hcoef : lc->icoef) + n;
            if (coeff)
                *cf = *coeff;
            else
                cuzk_fr_set_one(cf);
            if (neg) cuzk_fr_neg(cf, cf);
        }
        lc->n = n + 1;
        return;
    }
    if (mode == CUZK_BUILDER_COUNT && n < lc->cap && n <= CUZK_LC_INLINE) {
        /* a short LC (e.g. x + c, a constant joining a variable): insert in place */
        uint32_t i = n;
        while (i > 0 && vars[i - 1] > v) i--;
        if (i > 0 && vars[i - 1] == v) return;
        for (uint32_t j = n; j > i; j--) vars[j] = vars[j - 1];
        vars[i] = v;
        lc->n = n + 1;
        return;
    }
    cuzk_lc_add_slow_(lc, coeff, v, neg);
}

static inline void cuzk_lc_add(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v) {
    cuzk_lc_term_(lc, coeff, v, 0);
}

static inline void cuzk_lc_sub(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v) {
    cuzk_lc_term_(lc, coeff, v, 1);
}

static inline void cuzk_builder_enforce(struct cuzk_builder *b, const struct cuzk_lc *a,
                                        const struct cuzk_lc *bb, const struct cuzk_lc *c) {
    if (b->err != 0) return;
    if (b->mode == CUZK_BUILDER_RECORD) {
        cuzk_builder_enforce_record_(b, a, bb, c);
        return;
    }
    b->counts.constraints++;
    if (b->mode == CUZK_BUILDER_COUNT) {
        if (a) b->counts.nnz[0] += a->n;
        if (bb) b->counts.nnz[1] += bb->n;
        if (c) b->counts.nnz[2] += c->n;
    }
}

#endif
