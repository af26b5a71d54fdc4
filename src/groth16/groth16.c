#include "groth16/groth16.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "pairing/pairing.h"

int cuzk_groth16_pk_prepare(struct cuzk_groth16_pk *pk, const struct cuzk_zkey *z) {
    memset(pk, 0, sizeof *pk);
    uint32_t n = z->domain_size;
    int log_n = 0;
    while (log_n < 31 && ((uint32_t)1 << log_n) < n) log_n++;
    /* the odd 2n-th roots must exist: 2n <= 2^32 */
    if (n == 0 || (n & (n - 1)) || log_n + 1 > CUZK_FR_TWO_ADICITY) return CUZK_EFORMAT;
    pk->zkey = z;
    pk->log_n = log_n;

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
    if ((rc = cuzk_cs_init(&pk->ab, z->n_vars, z->n_public))) goto out;
    uint32_t k = 0;
    for (size_t r = 0; r < rows && !rc; r++) {
        rc = cuzk_cs_begin_row(&pk->ab);
        for (; k < start[r] && !rc; k++) {
            const struct cuzk_zkey_coef *c = &z->coefs[order[k]];
            rc = cuzk_cs_add_term(&pk->ab, c->matrix == 0 ? CUZK_CS_A : CUZK_CS_B, c->signal,
                                  &c->value);
        }
        if (!rc) rc = cuzk_cs_end_row(&pk->ab);
    }
out:
    free(start);
    free(order);
    if (rc) cuzk_groth16_pk_free(pk);
    return rc;
}

void cuzk_groth16_pk_free(struct cuzk_groth16_pk *pk) {
    cuzk_cs_free(&pk->ab);
    memset(pk, 0, sizeof *pk);
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

void cuzk_groth16_assemble(const struct cuzk_zkey *z, const struct cuzk_groth16_msms *m,
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

int cuzk_groth16_prove_start(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                             const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                             struct cuzk_prove_pending **out) {
    cuzk_fr r, s;
    int rc = cuzk_fr_random(&r, rng);
    if (!rc) rc = cuzk_fr_random(&s, rng);
    if (rc) return rc;
    rc = be->prove_start(be, pk, w, n_w, &r, &s, out);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    return rc;
}

int cuzk_groth16_prove_finish(const struct cuzk_backend *be, struct cuzk_prove_pending *p,
                              struct cuzk_snarkjs_proof *out) {
    return be->prove_finish(p, out);
}

int cuzk_groth16_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                       const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                       struct cuzk_snarkjs_proof *out) {
    struct cuzk_prove_pending *p;
    int rc = cuzk_groth16_prove_start(be, pk, w, n_w, rng, &p);
    return rc ? rc : cuzk_groth16_prove_finish(be, p, out);
}
