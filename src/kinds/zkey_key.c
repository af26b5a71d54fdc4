/* Keys from .zkey files (contract: zkey_key.h). */
#include "kinds/zkey_key.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

uint64_t cuzk_kind_zkey_bytes(uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                              uint64_t n_coefs) {
    const uint64_t g1 = sizeof(cuzk_g1_affine), g2 = sizeof(cuzk_g2_affine);
    uint64_t nv = n_vars, np = n_public, n = domain_size;
    uint64_t zkey = (np + 1) * g1                             /* ic */
                    + n_coefs * sizeof(struct cuzk_zkey_coef) /* coefficients */
                    + nv * (2 * g1 + g2)                      /* a, b1, b2 */
                    + (nv > np + 1 ? nv - np - 1 : 0) * g1    /* c */
                    + n * g1;                                 /* h */
    uint64_t vk = (np + 1) * g1 + 1024;
    return zkey + cuzk_kind_zkey_rows_bytes(domain_size, n_coefs) + vk;
}

uint64_t cuzk_kind_zkey_rows_bytes(uint32_t domain_size, uint64_t n_coefs) {
    /* CSR of A and B, whose arrays grow by doubling (up to twice the terms), row pointers for
     * three matrices */
    return 2 * n_coefs * (sizeof(uint32_t) + sizeof(cuzk_fr)) +
           3 * 2 * ((uint64_t)domain_size + 1) * 8;
}

uint64_t cuzk_kind_zkey_hot_bytes(uint32_t n_public) {
    return 2 * ((uint64_t)n_public + 1) * sizeof(cuzk_g1_affine) + 1024;
}

int cuzk_kind_key_prepare(struct cuzk_kind_key *key) {
    int rc = cuzk_groth16_pk_prepare(&key->pk, &key->zkey);
    if (rc) return rc;
    rc = cuzk_groth16_vk_from_pk(&key->vk, &key->pk);
    if (rc) cuzk_groth16_pk_free(&key->pk);
    return rc;
}

void cuzk_kind_key_trim_zkey(struct cuzk_kind_key *key) {
    struct cuzk_zkey *z = &key->zkey;
    struct cuzk_groth16_pk *pk = &key->pk;
    free(z->a);
    free(z->b1);
    free(z->b2);
    free(z->c);
    free(z->h);
    free(z->coefs);
    z->a = z->b1 = z->c = z->h = NULL;
    z->b2 = NULL;
    z->coefs = NULL;
    z->n_coefs = 0;
    pk->a = pk->b1 = pk->c = pk->h = NULL;
    pk->b2 = NULL;
    /* the rows stay described (sizes) but hold no terms any more: nothing reads them on the
     * host once the devices hold them, unless a device's plan left them on the host */
    if (key->keep_rows) return;
    cuzk_cs_free(&pk->own);
    pk->cs = NULL;
}

void cuzk_kind_key_release(struct cuzk_kind_key *key) {
    cuzk_snarkjs_vk_free(&key->vk);
    cuzk_groth16_pk_free(&key->pk);
    cuzk_zkey_free(&key->zkey);
}
