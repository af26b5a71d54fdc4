/* Groth16 end to end on the CPU backend: a multiplication-chain circuit built in memory, the
 * dev setup, proofs (two at once on one pool, from two threads), verification, and the
 * rejections: a wrong public input, a tampered proof, a witness that does not satisfy the
 * circuit (its proof must fail verification), a witness of the wrong length or with w[0] != 1
 * (refused up front). Then the points-only keys of pre-compiled systems (cuzk_groth16_keygen):
 * with the same secrets and the same r and s, the proof of the density-filtered key is
 * byte-identical to the snarkjs zkey's and to the unfiltered key's, in memory and through key
 * files (compressed and not), and the filtered key is smaller. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/g16key.h"

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

struct prove_arg {
    const struct cuzk_backend *be;
    const struct cuzk_groth16_pk *pk;
    const cuzk_fr *w;
    size_t n;
    uint64_t seed;
    struct cuzk_snarkjs_proof pr;
    int rc;
};

static void *prove_thread(void *arg) {
    struct prove_arg *a = arg;
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, a->seed);
    a->rc = cuzk_groth16_prove(a->be, a->pk, a->w, a->n, &rng, NULL, &a->pr, NULL, NULL, 0);
    return NULL;
}

static int prove_seeded(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                        const cuzk_fr *w, size_t n, uint64_t seed, struct cuzk_snarkjs_proof *out) {
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    return cuzk_groth16_prove(be, pk, w, n, &rng, NULL, out, NULL, NULL, 0);
}

/* The points-only keys of the chain's system against its zkey (see the file's comment). */
static void test_keygen(struct cuzk_pool *pool) {
    const uint32_t n = 37;
    struct cuzk_r1cs r;
    cuzk_fr *w;
    build_chain(&r, n, &w, 5, 9);
    struct cuzk_cs cs;
    CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
    struct cuzk_backend be;
    cuzk_cpu_backend_init(&be, pool);
    char err[256];
    /* the zkey of the same secrets */
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, 1234);
    struct cuzk_setup_opts cpu = {.gpu = CUZK_SETUP_GPU_OFF};
    struct cuzk_zkey z = {0};
    CHECK(cuzk_groth16_setup_ex(pool, &r, &rng, &cpu, &z, err, sizeof err) == CUZK_OK);
    struct cuzk_groth16_pk pz;
    CHECK(cuzk_groth16_pk_prepare(&pz, &z) == CUZK_OK);
    struct cuzk_snarkjs_proof ref;
    CHECK(prove_seeded(&be, &pz, w, r.n_wires, 77, &ref) == CUZK_OK);
    struct cuzk_snarkjs_vk vk = {0};
    CHECK(cuzk_groth16_vk_from_pk(&vk, &pz) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &ref) == 1);
    for (int dense = 0; dense < 2; dense++) {
        struct cuzk_keygen_opts ko = {.setup = cpu, .rng = &rng, .dense = dense};
        cuzk_rng_seed(&rng, 1234);
        struct cuzk_groth16_keydata kd;
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &kd, err, sizeof err) == CUZK_OK);
        /* A holds every wire (the public ones through their rows); the filtered B leaves out
         * the constant one and the two public wires */
        CHECK(kd.info.n_a == r.n_wires);
        CHECK(kd.info.n_b == (dense ? r.n_wires : r.n_wires - 3));
        CHECK(kd.info.domain_size == z.domain_size);
        struct cuzk_groth16_pk pk;
        CHECK(cuzk_groth16_pk_from_keydata(&pk, &kd, &cs, NULL) == CUZK_OK);
        CHECK(pk.n_pub_rows == 3);
        struct cuzk_snarkjs_proof pr;
        CHECK(prove_seeded(&be, &pk, w, r.n_wires, 77, &pr) == CUZK_OK);
        CHECK(!memcmp(&pr, &ref, sizeof pr));
        struct cuzk_snarkjs_vk vk2 = {0};
        CHECK(cuzk_groth16_vk_from_keydata(&vk2, &kd) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk2, w + 1, 2, &pr) == 1);
        cuzk_snarkjs_vk_free(&vk2);
        /* the same through a key file, both encodings */
        for (int comp = 0; comp < 2; comp++) {
            char path[] = "/tmp/cuzk-test-keygen-XXXXXX";
            int fd = mkstemp(path);
            CHECK(fd >= 0);
            if (fd >= 0) close(fd);
            ko.compressed = comp;
            ko.chunk_points = 7; /* several chunks per section */
            cuzk_rng_seed(&rng, 1234);
            CHECK(cuzk_groth16_keygen_file(pool, &cs, &ko, path, err, sizeof err) == CUZK_OK);
            struct cuzk_g16key *f = NULL;
            CHECK(cuzk_g16key_open(&f, path, err, sizeof err) == CUZK_OK);
            struct cuzk_groth16_keydata fk;
            CHECK(f && cuzk_groth16_keydata_load(&fk, f, pool, 1, err, sizeof err) == CUZK_OK);
            struct cuzk_groth16_pk fp;
            CHECK(cuzk_groth16_pk_from_keydata(&fp, &fk, &cs, f) == CUZK_OK);
            CHECK(prove_seeded(&be, &fp, w, r.n_wires, 77, &pr) == CUZK_OK);
            CHECK(!memcmp(&pr, &ref, sizeof pr));
            cuzk_groth16_keydata_free(&fk);
            cuzk_g16key_close(f);
            unlink(path);
        }
        cuzk_groth16_keydata_free(&kd);
    }
    cuzk_snarkjs_vk_free(&vk);
    cuzk_groth16_pk_free(&pz);
    cuzk_zkey_free(&z);
    cuzk_cs_free(&cs);
    cuzk_r1cs_free(&r);
    free(w);
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
        struct cuzk_snarkjs_vk vk2 = {0};
        CHECK(cuzk_groth16_vk_from_pk(&vk2, &pk) == CUZK_OK);
        CHECK(!memcmp(vk.ic, vk2.ic, (vk.n_public + 1) * sizeof *vk.ic));
        CHECK(cuzk_fp12_eq(&vk.alphabeta, &vk2.alphabeta));
        cuzk_snarkjs_vk_free(&vk2);
        struct cuzk_backend be;
        cuzk_cpu_backend_init(&be, pool);

        /* two proofs at once on one pool, from two threads */
        struct prove_arg a1 = {.be = &be, .pk = &pk, .w = w, .n = r.n_wires};
        a1.seed = cuzk_rng_u64(&test_rng);
        struct prove_arg a2 = a1;
        a2.seed = cuzk_rng_u64(&test_rng);
        pthread_t t1, t2;
        pthread_create(&t1, NULL, prove_thread, &a1);
        pthread_create(&t2, NULL, prove_thread, &a2);
        pthread_join(t1, NULL);
        pthread_join(t2, NULL);
        CHECK(a1.rc == CUZK_OK && a2.rc == CUZK_OK);
        struct cuzk_snarkjs_proof pr1 = a1.pr, pr2 = a2.pr;
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
            CHECK(prove_seeded(&be, &pk, w, r.n_wires, 5, &t) == CUZK_OK);
            CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);
        }
        /* malformed witnesses are refused, with a sentence */
        CHECK(cuzk_groth16_prove(&be, &pk, w, r.n_wires - 1, &test_rng, NULL, &t, NULL, err,
                                 sizeof err) == CUZK_EINVAL);
        CHECK(strstr(err, "witness") != NULL);
        cuzk_fr_add(&w[0], &w[0], &one);
        CHECK(prove_seeded(&be, &pk, w, r.n_wires, 5, &t) == CUZK_EINVAL);

        cuzk_cs_free(&cs);
        cuzk_snarkjs_vk_free(&vk);
        cuzk_groth16_pk_free(&pk);
        cuzk_zkey_free(&z);
        cuzk_r1cs_free(&r);
        free(w);
    }
    test_keygen(pool);
    cuzk_pool_destroy(pool);
    return test_finish();
}
