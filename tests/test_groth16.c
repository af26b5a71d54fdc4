/* Groth16 end to end on the CPU backend, without files: a multiplication-chain circuit built in
 * memory, the dev setup, proofs through the split prover (two proofs pending at once on one
 * pool), verification, and the rejections: a wrong public input, a tampered proof, a witness
 * that does not satisfy the circuit (its proof must fail verification), a witness of the wrong
 * length or with w[0] != 1 (refused up front). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "util/pool.h"
#include "test_util.h"

/* v[i+1] = v[i]^2 + y with public y and output v[N]: wires [1, out, y, x, v1 .. v(N-1)],
 * constraint i: (v_i) * (v_i) = v_(i+1) - y, with v_0 = x and v_N = out. */
static void build_chain(struct cuzk_r1cs *r, uint32_t n, cuzk_fr **w_out, uint64_t x, uint64_t y) {
    memset(r, 0, sizeof *r);
    r->n_wires = 4 + (n - 1);
    r->n_pub_out = 1;
    r->n_pub_in = 1;
    r->n_prv_in = 1;
    r->n_constraints = n;
    r->lc = calloc(3 * (size_t)n + 1, sizeof *r->lc);
    r->wire = calloc(4 * (size_t)n, sizeof *r->wire);
    r->coef = calloc(4 * (size_t)n, sizeof *r->coef);
    cuzk_fr *w = calloc(r->n_wires, sizeof *w);
    cuzk_fr one, minus_one;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&minus_one, &one);
    uint64_t t = 0;
    /* wire index of v_i */
#define V(i) ((i) == 0 ? 3u : (i) == n ? 1u : 3u + (i))
    for (uint32_t i = 0; i < n; i++) {
        r->lc[3 * i] = t;
        r->wire[t] = V(i), r->coef[t++] = one; /* A */
        r->lc[3 * i + 1] = t;
        r->wire[t] = V(i), r->coef[t++] = one; /* B */
        r->lc[3 * i + 2] = t;
        r->wire[t] = V(i + 1), r->coef[t++] = one; /* C = v_(i+1) - y */
        r->wire[t] = 2, r->coef[t++] = minus_one;
    }
    r->lc[3 * (size_t)n] = t;
    r->n_terms = t;
    cuzk_fr_set_one(&w[0]);
    cuzk_fr_from_u64(&w[2], y);
    cuzk_fr_from_u64(&w[3], x);
    cuzk_fr v = w[3];
    for (uint32_t i = 0; i < n; i++) {
        cuzk_fr_sqr(&v, &v);
        cuzk_fr_add(&v, &v, &w[2]);
        w[V(i + 1)] = v;
    }
#undef V
    *w_out = w;
}

int main(void) {
    test_init("test_groth16");
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    for (uint32_t n = 1; n <= 300; n = n * 7 + 2) {
        struct cuzk_r1cs r;
        cuzk_fr *w;
        build_chain(&r, n, &w, 3 + n, 11);
        struct cuzk_cs cs;
        size_t bad;
        CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
        CHECK(cuzk_cs_is_satisfied(pool, &cs, w, &bad) == 1);
        struct cuzk_zkey z = {0};
        char err[256];
        CHECK(cuzk_groth16_setup(pool, &r, &test_rng, &z, err, sizeof err) == CUZK_OK);
        struct cuzk_groth16_pk pk;
        CHECK(cuzk_groth16_pk_prepare(&pk, &z) == CUZK_OK);
        struct cuzk_snarkjs_vk vk = {0};
        CHECK(cuzk_snarkjs_vk_from_zkey(&vk, &z) == CUZK_OK);
        struct cuzk_backend be;
        cuzk_cpu_backend_init(&be, pool);

        /* two proofs in flight on one pool */
        struct cuzk_prove_pending *p1, *p2;
        struct cuzk_snarkjs_proof pr1, pr2;
        CHECK(cuzk_groth16_prove_start(&be, &pk, w, r.n_wires, &test_rng, &p1) == CUZK_OK);
        CHECK(cuzk_groth16_prove_start(&be, &pk, w, r.n_wires, &test_rng, &p2) == CUZK_OK);
        CHECK(cuzk_groth16_prove_finish(&be, p2, &pr2) == CUZK_OK);
        CHECK(cuzk_groth16_prove_finish(&be, p1, &pr1) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &pr1) == 1);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &pr2) == 1);
        CHECK(!cuzk_g1_affine_eq(&pr1.a, &pr2.a)); /* fresh blinding each time */

        /* rejections */
        cuzk_fr pub[2] = {w[1], w[2]};
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        cuzk_fr_add(&pub[1], &pub[1], &one);
        CHECK(cuzk_groth16_verify(&vk, pub, 2, &pr1) == 0);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 1, &pr1) == CUZK_EINVAL);
        struct cuzk_snarkjs_proof t = pr1;
        t.a = pr1.c;
        t.c = pr1.a;
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);
        t = pr1;
        t.c = pr2.c; /* parts of two valid proofs do not make one */
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);

        /* a wrong v_(n-1) breaks constraint n - 2 (first): proving works, verification fails */
        cuzk_fr_add(&w[r.n_wires - 1], &w[r.n_wires - 1], &one);
        if (n > 1) {
            CHECK(cuzk_cs_is_satisfied(pool, &cs, w, &bad) == 0 && bad == n - 2);
            CHECK(cuzk_groth16_prove(&be, &pk, w, r.n_wires, &test_rng, &t) == CUZK_OK);
            CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);
        }
        /* malformed witnesses are refused */
        CHECK(cuzk_groth16_prove(&be, &pk, w, r.n_wires - 1, &test_rng, &t) == CUZK_EINVAL);
        cuzk_fr_add(&w[0], &w[0], &one);
        CHECK(cuzk_groth16_prove(&be, &pk, w, r.n_wires, &test_rng, &t) == CUZK_EINVAL);

        cuzk_cs_free(&cs);
        cuzk_snarkjs_vk_free(&vk);
        cuzk_groth16_pk_free(&pk);
        cuzk_zkey_free(&z);
        cuzk_r1cs_free(&r);
        free(w);
    }
    cuzk_pool_destroy(pool);
    return test_finish();
}
