/* The v1 Poseidon circuit. See poseidon_gadget.h for the contract.
 *
 * The state mirrors neptune's Elt: an element is either an allocated variable or a linear
 * combination (kept only when the builder keeps terms), and its value is tracked beside it
 * whenever the builder computes values. Every operation on the linear combinations is the one
 * neptune performs (a scalar product accumulates scaled copies and merges them), because the
 * number of terms in each row depends on it. */
#include "circuits/poseidon_gadget.h"

#include <string.h>

#include "cuzk/error.h"

#define W CUZK_POSEIDON_MAX_WIDTH

struct pstate {
    struct cuzk_builder *b;
    const struct cuzk_poseidon_params *p;
    int t;
    int terms;     /* the builder keeps LC terms */
    int vals;      /* the builder computes values */
    int is_var[W]; /* element i is the variable var[i]; else the LC lc[i] */
    cuzk_var var[W];
    struct cuzk_lc lc[W], tmp[W];
    cuzk_fr val[W]; /* values (when vals) */
};

/* An LC holding the single term 1 * v; the caller frees it. */
static void lc_term(struct cuzk_lc *lc, struct cuzk_builder *b, cuzk_var v) {
    cuzk_lc_init(lc, b);
    cuzk_lc_add(lc, NULL, v);
}

/* neptune's Elt::ensure_allocated: a linear combination becomes a new variable with the row
 * LC * ONE = v; a variable stays as it is. */
static cuzk_var ensure_var(struct pstate *s, int i) {
    if (s->is_var[i]) return s->var[i];
    cuzk_var v = cuzk_builder_alloc(s->b, s->vals ? &s->val[i] : NULL);
    struct cuzk_lc one, lv;
    lc_term(&one, s->b, CUZK_VAR_ONE);
    lc_term(&lv, s->b, v);
    cuzk_builder_enforce(s->b, &s->lc[i], &one, &lv);
    cuzk_lc_free(&one);
    cuzk_lc_free(&lv);
    s->is_var[i] = 1;
    s->var[i] = v;
    return v;
}

/* Element i <- (x + pre)^5 + post, with x element i as a variable; pre and post may be NULL.
 * Three rows: (x + pre)^2 = x2, x2 * x2 = x4, (x + pre) * x4 = x5 - post. */
static void sbox(struct pstate *s, int i, const cuzk_fr *pre, const cuzk_fr *post) {
    struct cuzk_builder *b = s->b;
    cuzk_var x = ensure_var(s, i);
    cuzk_fr xp, x2, x4, x5;
    if (s->vals) {
        xp = s->val[i];
        if (pre) cuzk_fr_add(&xp, &xp, pre);
        cuzk_fr_sqr(&x2, &xp);
        cuzk_fr_sqr(&x4, &x2);
        cuzk_fr_mul(&x5, &x4, &xp);
        if (post) cuzk_fr_add(&x5, &x5, post);
    }
    struct cuzk_lc lx, l2, l4, l5;
    lc_term(&lx, b, x); /* x + pre */
    if (pre) cuzk_lc_add(&lx, pre, CUZK_VAR_ONE);

    cuzk_var v2 = cuzk_builder_alloc(b, s->vals ? &x2 : NULL);
    lc_term(&l2, b, v2);
    cuzk_builder_enforce(b, &lx, &lx, &l2);

    cuzk_var v4 = cuzk_builder_alloc(b, s->vals ? &x4 : NULL);
    lc_term(&l4, b, v4);
    cuzk_builder_enforce(b, &l2, &l2, &l4);

    cuzk_var v5 = cuzk_builder_alloc(b, s->vals ? &x5 : NULL);
    lc_term(&l5, b, v5);
    if (post) cuzk_lc_sub(&l5, post, CUZK_VAR_ONE);
    cuzk_builder_enforce(b, &lx, &l4, &l5);

    cuzk_lc_free(&lx);
    cuzk_lc_free(&l2);
    cuzk_lc_free(&l4);
    cuzk_lc_free(&l5);
    s->var[i] = v5;
    s->is_var[i] = 1;
    if (s->vals) s->val[i] = x5;
}

/* dst += coeff * element i (neptune's scalar-product step: scale, then merge). */
static void acc_elt(struct pstate *s, struct cuzk_lc *dst, const cuzk_fr *coeff, int i) {
    if (s->is_var[i])
        cuzk_lc_add(dst, coeff, s->var[i]);
    else
        cuzk_lc_add_lc(dst, coeff, &s->lc[i]);
}

/* state <- state * m (row vector times a dense matrix). */
static void mix_dense(struct pstate *s, const cuzk_fr (*m)[W]) {
    const int t = s->t;
    if (s->terms) {
        for (int j = 0; j < t; j++) {
            cuzk_lc_clear(&s->tmp[j]);
            for (int i = 0; i < t; i++) acc_elt(s, &s->tmp[j], &m[i][j], i);
        }
        for (int j = 0; j < t; j++) {
            struct cuzk_lc x = s->lc[j]; /* swap: the structs move, their storage with them */
            s->lc[j] = s->tmp[j];
            s->tmp[j] = x;
        }
    }
    if (s->vals) {
        cuzk_fr out[W], x;
        for (int j = 0; j < t; j++) {
            cuzk_fr_set_zero(&out[j]);
            for (int i = 0; i < t; i++) {
                cuzk_fr_mul(&x, &s->val[i], &m[i][j]);
                cuzk_fr_add(&out[j], &out[j], &x);
            }
        }
        memcpy(s->val, out, (size_t)t * sizeof *out);
    }
    for (int j = 0; j < t; j++) s->is_var[j] = 0;
}

/* state <- state * M''_k: out_0 = sum_i x_i w_hat_i, out_j = x_j + x_0 v_j. Element 0 is a
 * variable (its S-box just ran), the others linear combinations. */
static void mix_sparse(struct pstate *s, int k) {
    const int t = s->t;
    const cuzk_fr *wh = s->p->w_hat[k], *vr = s->p->v_rest[k];
    if (s->terms) {
        struct cuzk_lc *r0 = &s->tmp[0];
        cuzk_lc_clear(r0);
        for (int i = 0; i < t; i++) acc_elt(s, r0, &wh[i], i);
        for (int j = 1; j < t; j++) cuzk_lc_add(&s->lc[j], &vr[j - 1], s->var[0]);
        struct cuzk_lc x = s->lc[0];
        s->lc[0] = *r0;
        *r0 = x;
    }
    if (s->vals) {
        cuzk_fr acc, x;
        cuzk_fr_set_zero(&acc);
        for (int i = 0; i < t; i++) {
            cuzk_fr_mul(&x, &s->val[i], &wh[i]);
            cuzk_fr_add(&acc, &acc, &x);
        }
        for (int j = 1; j < t; j++) {
            cuzk_fr_mul(&x, &s->val[0], &vr[j - 1]);
            cuzk_fr_add(&s->val[j], &s->val[j], &x);
        }
        s->val[0] = acc;
    }
    s->is_var[0] = 0;
}

/* The hash of in[0 .. arity) (values in_val, or looked up in the builder when NULL); the
 * output's value goes to *out_val when the builder has values and out_val is not NULL. */
static int hash_impl(struct cuzk_builder *b, int arity, const cuzk_fr *tag, const cuzk_var *in,
                     const cuzk_fr *in_val, cuzk_var *out, cuzk_fr *out_val) {
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(arity);
    if (!p || !tag || !in || !out) return CUZK_EINVAL;
    const int t = p->width, hf = p->full_rounds / 2, rp = p->partial_rounds;
    struct pstate s;
    s.b = b;
    s.p = p;
    s.t = t;
    s.terms = cuzk_builder_keeps_terms(b);
    s.vals = cuzk_builder_has_values(b);
    for (int i = 0; i < t; i++) {
        cuzk_lc_init(&s.lc[i], b);
        cuzk_lc_init(&s.tmp[i], b);
    }
    const cuzk_fr *c = p->crc;

    /* First round. The tag's S-box is computed as a constant: element 0 becomes the LC
     * ((tag + c_0)^5 + c'_0) * ONE; the inputs are variables already. */
    cuzk_fr k0 = *tag;
    cuzk_fr_add(&k0, &k0, &c[0]);
    {
        cuzk_fr k2, k4;
        cuzk_fr_sqr(&k2, &k0);
        cuzk_fr_sqr(&k4, &k2);
        cuzk_fr_mul(&k0, &k0, &k4);
        cuzk_fr_add(&k0, &k0, &c[t]);
    }
    s.is_var[0] = 0;
    s.val[0] = k0;
    cuzk_lc_add(&s.lc[0], &k0, CUZK_VAR_ONE);
    for (int i = 1; i < t; i++) {
        s.is_var[i] = 1;
        s.var[i] = in[i - 1];
        if (s.vals && in_val)
            s.val[i] = in_val[i - 1];
        else if (s.vals)
            cuzk_builder_value(b, in[i - 1], &s.val[i]);
        sbox(&s, i, &c[i], &c[t + i]);
    }
    c += 2 * t;
    mix_dense(&s, p->mds);

    /* The other initial full rounds; the last multiplies by the pre-sparse matrix. */
    for (int r = 1; r < hf; r++, c += t) {
        for (int i = 0; i < t; i++) sbox(&s, i, NULL, &c[i]);
        mix_dense(&s, r == hf - 1 ? p->pre_sparse : p->mds);
    }
    for (int k = 0; k < rp; k++) {
        sbox(&s, 0, NULL, c++);
        mix_sparse(&s, k);
    }
    /* Final full rounds; the last adds no constant. */
    for (int r = 0; r < hf; r++) {
        for (int i = 0; i < t; i++) sbox(&s, i, NULL, r < hf - 1 ? &c[i] : NULL);
        if (r < hf - 1) c += t;
        mix_dense(&s, p->mds);
    }
    *out = ensure_var(&s, 1);
    if (out_val) {
        if (s.vals)
            *out_val = s.val[1];
        else
            cuzk_fr_set_zero(out_val);
    }

    for (int i = 0; i < t; i++) {
        cuzk_lc_free(&s.lc[i]);
        cuzk_lc_free(&s.tmp[i]);
    }
    return CUZK_OK;
}

int cuzk_poseidon_gadget_hash(struct cuzk_builder *b, int arity, const cuzk_fr *tag,
                              const cuzk_var *in, cuzk_var *out) {
    return hash_impl(b, arity, tag, in, NULL, out, NULL);
}

int cuzk_poseidon_gadget_hash_merkle(struct cuzk_builder *b, size_t n_in, const cuzk_var *in,
                                     cuzk_var *out) {
    if (n_in > CUZK_POSEIDON_MAX_ARITY) return CUZK_EINVAL;
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get((int)n_in);
    if (!p) return CUZK_EINVAL;
    return hash_impl(b, (int)n_in, &p->merkle_tag, in, NULL, out, NULL);
}

int cuzk_poseidon_gadget_hash_num(struct cuzk_builder *b, int arity, const cuzk_fr *tag,
                                  const struct cuzk_num *in, struct cuzk_num *out) {
    if (!cuzk_poseidon_arity_ok(arity) || !in || !out) return CUZK_EINVAL;
    cuzk_var v[CUZK_POSEIDON_MAX_ARITY];
    cuzk_fr x[CUZK_POSEIDON_MAX_ARITY];
    for (int i = 0; i < arity; i++) {
        v[i] = in[i].var;
        x[i] = in[i].value;
    }
    return hash_impl(b, arity, tag, v, x, &out->var, &out->value);
}

int cuzk_poseidon_gadget_hash_merkle_num(struct cuzk_builder *b, size_t n_in,
                                         const struct cuzk_num *in, struct cuzk_num *out) {
    if (n_in > CUZK_POSEIDON_MAX_ARITY) return CUZK_EINVAL;
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get((int)n_in);
    if (!p) return CUZK_EINVAL;
    return cuzk_poseidon_gadget_hash_num(b, (int)n_in, &p->merkle_tag, in, out);
}
