#include "groth16/groth16.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"
#include "util/pool.h"

uint64_t cuzk_groth16_pk_uid(void) {
    static atomic_uint_fast64_t next = 1;
    return atomic_fetch_add(&next, 1);
}

int cuzk_groth16_domain_log(uint32_t n, int *log_n) {
    int k = 0;
    while (k < 31 && ((uint32_t)1 << k) < n) k++;
    /* the odd 2n-th roots must exist: 2n <= 2^32; a proof needs n >= 2 */
    if (n < 2 || (n & (n - 1)) || k + 1 > CUZK_FR_TWO_ADICITY) return CUZK_EFORMAT;
    *log_n = k;
    return CUZK_OK;
}

int cuzk_groth16_pk_prepare(struct cuzk_groth16_pk *pk, const struct cuzk_zkey *z) {
    memset(pk, 0, sizeof *pk);
    int log_n;
    if (cuzk_groth16_domain_log(z->domain_size, &log_n)) return CUZK_EFORMAT;
    pk->n_vars = z->n_vars;
    pk->n_public = z->n_public;
    pk->domain_size = z->domain_size;
    pk->log_n = log_n;
    pk->alpha1 = z->alpha1;
    pk->beta1 = z->beta1;
    pk->delta1 = z->delta1;
    pk->beta2 = z->beta2;
    pk->gamma2 = z->gamma2;
    pk->delta2 = z->delta2;
    pk->ic = z->ic;
    pk->n_a = pk->n_b = z->n_vars;
    pk->a = z->a;
    pk->b1 = z->b1;
    pk->b2 = z->b2;
    pk->c = z->c;
    pk->h = z->h;
    pk->uid = cuzk_groth16_pk_uid();

    /* order the coefficients by row (counting sort, stable), then build the CSR rows */
    size_t rows = 0;
    for (uint32_t i = 0; i < z->n_coefs; i++)
        if (z->coefs[i].constraint + (size_t)1 > rows) rows = z->coefs[i].constraint + (size_t)1;
    uint32_t *start = calloc(rows + 1, sizeof *start),
             *order = malloc((z->n_coefs ? z->n_coefs : 1) * sizeof *order);
    int rc = CUZK_ENOMEM;
    if (!start || !order) goto out;
    for (uint32_t i = 0; i < z->n_coefs; i++) start[z->coefs[i].constraint + 1]++;
    for (size_t r = 0; r < rows; r++) start[r + 1] += start[r];
    for (uint32_t i = 0; i < z->n_coefs; i++) order[start[z->coefs[i].constraint]++] = i;
    /* start[r] now holds the end of row r */
    if ((rc = cuzk_cs_init(&pk->own, z->n_vars, z->n_public))) goto out;
    uint32_t k = 0;
    for (size_t r = 0; r < rows && !rc; r++) {
        rc = cuzk_cs_begin_row(&pk->own);
        for (; k < start[r] && !rc; k++) {
            const struct cuzk_zkey_coef *c = &z->coefs[order[k]];
            rc = cuzk_cs_add_term(&pk->own, c->matrix == 0 ? CUZK_CS_A : CUZK_CS_B, c->signal,
                                  &c->value);
        }
        if (!rc) rc = cuzk_cs_end_row(&pk->own);
    }
    if (!rc) rc = cuzk_cs_finish(&pk->own);
    if (!rc && rows > z->domain_size) rc = CUZK_EFORMAT;
    pk->cs = &pk->own;
out:
    free(start);
    free(order);
    if (rc) cuzk_groth16_pk_free(pk);
    return rc;
}

void cuzk_groth16_pk_free(struct cuzk_groth16_pk *pk) {
    cuzk_cs_free(&pk->own);
    memset(pk, 0, sizeof *pk);
}

/* The verification key of the parts a proving key carries (pk's or a zkey's), alphabeta
 * computed. */
static int vk_of(struct cuzk_snarkjs_vk *vk, uint32_t n_public, const cuzk_g1_affine *ic,
                 const cuzk_g1_affine *alpha1, const cuzk_g2_affine *beta2,
                 const cuzk_g2_affine *gamma2, const cuzk_g2_affine *delta2) {
    memset(vk, 0, sizeof *vk);
    vk->ic = malloc(((size_t)n_public + 1) * sizeof *vk->ic);
    if (!vk->ic) return CUZK_ENOMEM;
    memcpy(vk->ic, ic, ((size_t)n_public + 1) * sizeof *vk->ic);
    vk->n_public = n_public;
    vk->alpha1 = *alpha1;
    vk->beta2 = *beta2;
    vk->gamma2 = *gamma2;
    vk->delta2 = *delta2;
    cuzk_pairing(&vk->alphabeta, alpha1, beta2);
    return CUZK_OK;
}

int cuzk_groth16_vk_from_pk(struct cuzk_snarkjs_vk *vk, const struct cuzk_groth16_pk *pk) {
    return vk_of(vk, pk->n_public, pk->ic, &pk->alpha1, &pk->beta2, &pk->gamma2, &pk->delta2);
}

int cuzk_groth16_pk_eval(struct cuzk_pool *pool, const struct cuzk_groth16_pk *pk, const cuzk_fr *w,
                         cuzk_fr *a, cuzk_fr *b) {
    const struct cuzk_cs *cs = pk->cs;
    size_t rows = cs->n_rows, n = pk->domain_size;
    if (rows + pk->n_pub_rows > n || cs->n_cols != pk->n_vars) return CUZK_EINVAL;
    int rc = cuzk_cs_eval(pool, cs, w, a, b, NULL);
    if (rc) return rc;
    for (size_t s = 0; s < pk->n_pub_rows; s++) { /* the public-input rows w_s * 0 = 0 */
        a[rows + s] = w[s];
        cuzk_fr_set_zero(&b[rows + s]);
    }
    size_t used = rows + pk->n_pub_rows;
    memset(a + used, 0, (n - used) * sizeof *a);
    memset(b + used, 0, (n - used) * sizeof *b);
    return CUZK_OK;
}

/* The elementwise passes of cuzk_groth16_pk_h, one block of PW_BLOCK elements per pool item. */
enum pointwise_op {
    PW_MUL,   /* c = a b */
    PW_MUL_A, /* a = a b */
    PW_H,     /* a = a b - c */
    PW_SUB_K  /* a = (a - c) k */
};

struct pointwise_ctx {
    cuzk_fr *a, *b, *c;
    cuzk_fr k;
    size_t n;
    enum pointwise_op op;
};

#define PW_BLOCK 4096

static void pointwise_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct pointwise_ctx *c = ctxp;
    size_t lo = item * PW_BLOCK, hi = lo + PW_BLOCK < c->n ? lo + PW_BLOCK : c->n;
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr t;
        switch (c->op) {
        case PW_MUL: cuzk_fr_mul(&c->c[i], &c->a[i], &c->b[i]); break;
        case PW_MUL_A: cuzk_fr_mul(&c->a[i], &c->a[i], &c->b[i]); break;
        case PW_H:
            cuzk_fr_mul(&t, &c->a[i], &c->b[i]);
            cuzk_fr_sub(&c->a[i], &t, &c->c[i]);
            break;
        case PW_SUB_K:
            cuzk_fr_sub(&t, &c->a[i], &c->c[i]);
            cuzk_fr_mul(&c->a[i], &t, &c->k);
            break;
        }
    }
}

void cuzk_groth16_hadamard(struct cuzk_pool *pool, const cuzk_fr *a, const cuzk_fr *b, cuzk_fr *c,
                           size_t n) {
    struct pointwise_ctx pw = {.a = (cuzk_fr *)a, .b = (cuzk_fr *)b, .c = c, .n = n, .op = PW_MUL};
    cuzk_pool_run(pool, (n + PW_BLOCK - 1) / PW_BLOCK, pointwise_block, &pw);
}

int cuzk_groth16_pk_h(struct cuzk_pool *pool, const struct cuzk_groth16_pk *pk, cuzk_fr *a,
                      cuzk_fr *b, cuzk_fr *c) {
    const struct cuzk_ntt_domain *dom;
    int rc = cuzk_ntt_domain_get(pk->log_n, &dom);
    if (rc) return rc;
    const size_t n = dom->n, blocks = (n + PW_BLOCK - 1) / PW_BLOCK;
    struct pointwise_ctx pw = {.a = a, .b = b, .c = c, .n = n, .op = PW_MUL};
    cuzk_pool_run(pool, blocks, pointwise_block, &pw);
    /* the coset the products are taken on: snarkjs's odd 2n-th roots omega_2n <omega_n>, or
     * bellperson's 7 <omega_n>, where t = x^n - 1 is the constant 7^n - 1 */
    cuzk_fr shift;
    const int coeff = pk->h_basis == CUZK_H_COEFF;
    if (coeff) {
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        cuzk_fr_generator(&shift);
        uint64_t e = n;
        cuzk_fr_pow(&pw.k, &shift, &e, 1);
        cuzk_fr_sub(&pw.k, &pw.k, &one);
        cuzk_fr_inv(&pw.k, &pw.k);
    } else {
        shift = dom->omega_2n;
    }
    /* a and b to their coset evaluations a', b'; c too for snarkjs's basis, where h = a' b' - c'
     * there. Bellperson's h is the inverse coset transform of (a' b' - c') / t; that transform is
     * linear and takes c' back to c's coefficients, so h = (coset_inverse(a' b') - c) / t with c
     * only taken to its coefficients: six transforms instead of seven, the same values. */
    cuzk_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        cuzk_ntt_inverse(pool, dom, v[k]);
        if (k < 2 || !coeff) cuzk_ntt_coset_forward(pool, dom, v[k], &shift);
    }
    pw.op = coeff ? PW_MUL_A : PW_H;
    cuzk_pool_run(pool, blocks, pointwise_block, &pw);
    if (coeff) {
        cuzk_ntt_coset_inverse(pool, dom, a, &shift);
        pw.op = PW_SUB_K;
        cuzk_pool_run(pool, blocks, pointwise_block, &pw);
#ifndef NDEBUG
        /* deg(A B - C) <= 2n - 2 and t divides it (groth16.h): the quotient's top is zero */
        if (!cuzk_fr_is_zero(&a[n - 1])) abort();
#endif
    }
    return CUZK_OK;
}

int cuzk_groth16_verify(const struct cuzk_snarkjs_vk *vk, const cuzk_fr *pub, size_t n_pub,
                        const struct cuzk_snarkjs_proof *proof) {
    if (n_pub != vk->n_public) return CUZK_EINVAL;
    /* e(-A, B) e(alpha, beta) e(IC_0 + sum pub_i IC_i, gamma) e(C, delta) = 1 */
    cuzk_g1 acc, t;
    cuzk_g1_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n_pub; i++) {
        uint64_t k[4];
        cuzk_fr_to_canonical(k, &pub[i]);
        cuzk_g1_from_affine(&t, &vk->ic[i + 1]);
        cuzk_g1_mul_var(&t, &t, k, 4);
        cuzk_g1_add(&acc, &acc, &t);
    }
    cuzk_g1_affine p[4];
    cuzk_g2_affine q[4];
    cuzk_g1_affine_neg(&p[0], &proof->a);
    q[0] = proof->b;
    p[1] = vk->alpha1;
    q[1] = vk->beta2;
    cuzk_g1_to_affine(&p[2], &acc);
    q[2] = vk->gamma2;
    p[3] = proof->c;
    q[3] = vk->delta2;
    return cuzk_pairing_check(p, q, 4);
}

static void g1_mul_fr(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k) {
    uint64_t lim[4];
    cuzk_fr_to_canonical(lim, k);
    cuzk_g1_mul_var(r, p, lim, 4);
}

void cuzk_groth16_assemble(const struct cuzk_groth16_pk *z, const struct cuzk_groth16_msms *m,
                           const cuzk_fr *r, const cuzk_fr *s, struct cuzk_snarkjs_proof *out) {
    cuzk_g1 delta1, t, pi_a, b1, pi_c;
    cuzk_g2 delta2, pi_b;
    uint64_t lim[4];
    cuzk_g1_from_affine(&delta1, &z->delta1);
    cuzk_g2_from_affine(&delta2, &z->delta2);

    g1_mul_fr(&t, &delta1, r); /* pi_a = alpha1 + A' + r delta1 */
    cuzk_g1_add_affine(&pi_a, &m->a, &z->alpha1);
    cuzk_g1_add(&pi_a, &pi_a, &t);

    cuzk_fr_to_canonical(lim, s); /* pi_b = beta2 + B2' + s delta2 */
    cuzk_g2_mul_var(&pi_b, &delta2, lim, 4);
    cuzk_g2_add(&pi_b, &pi_b, &m->b2);
    cuzk_g2_add_affine(&pi_b, &pi_b, &z->beta2);

    g1_mul_fr(&t, &delta1, s); /* b1 = beta1 + B1' + s delta1 */
    cuzk_g1_add_affine(&b1, &m->b1, &z->beta1);
    cuzk_g1_add(&b1, &b1, &t);

    cuzk_g1_add(&pi_c, &m->c, &m->h); /* pi_c = C' + H' + s pi_a + r b1 - r s delta1 */
    g1_mul_fr(&t, &pi_a, s);
    cuzk_g1_add(&pi_c, &pi_c, &t);
    g1_mul_fr(&t, &b1, r);
    cuzk_g1_add(&pi_c, &pi_c, &t);
    cuzk_fr rs;
    cuzk_fr_mul(&rs, r, s);
    g1_mul_fr(&t, &delta1, &rs);
    cuzk_g1_neg(&t, &t);
    cuzk_g1_add(&pi_c, &pi_c, &t);
    memset(&rs, 0, sizeof rs);
    memset(lim, 0, sizeof lim);

    cuzk_g1_to_affine(&out->a, &pi_a);
    cuzk_g2_to_affine(&out->b, &pi_b);
    cuzk_g1_to_affine(&out->c, &pi_c);
}

int cuzk_groth16_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                       const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                       const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                       struct cuzk_prove_info *info, char *err, size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    err[0] = 0;
    cuzk_fr r, s;
    int rc = cuzk_fr_random(&r, rng);
    if (!rc) rc = cuzk_fr_random(&s, rng);
    if (!rc) rc = be->prove(be, pk, w, n_w, &r, &s, hooks, out, info, err, errlen);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    return rc;
}

int cuzk_groth16_vk_from_zkey(struct cuzk_snarkjs_vk *vk, const struct cuzk_zkey *z) {
    return vk_of(vk, z->n_public, z->ic, &z->alpha1, &z->beta2, &z->gamma2, &z->delta2);
}

int cuzk_groth16_vk_check(const struct cuzk_snarkjs_vk *vk, char *err, size_t errlen) {
    cuzk_fp12 e;
    cuzk_pairing(&e, &vk->alpha1, &vk->beta2);
    if (!cuzk_fp12_eq(&e, &vk->alphabeta))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vk: vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)");
    return CUZK_OK;
}

int cuzk_groth16_vk_load(struct cuzk_snarkjs_vk *vk, const char *path, char *err, size_t errlen) {
    int rc = cuzk_snarkjs_vk_load(vk, path, err, errlen);
    if (!rc && (rc = cuzk_groth16_vk_check(vk, err, errlen))) cuzk_snarkjs_vk_free(vk);
    return rc;
}
