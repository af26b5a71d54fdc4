/* Groth16 end to end on the CPU backend: a multiplication-chain circuit built in memory, the
 * dev setup, proofs (two at once on one pool, from two threads), verification, and the
 * rejections: a wrong public input, a tampered proof, a witness that does not satisfy the
 * circuit (its proof must fail verification), a witness of the wrong length or with w[0] != 1
 * (refused up front). Then the points-only keys of pre-compiled systems (cuzk_groth16_keygen):
 * with the same secrets and the same r and s, the proof of the density-filtered key is
 * byte-identical to the snarkjs zkey's and to the unfiltered key's, in memory and through key
 * files (compressed and not), and the filtered key is smaller. Then keys in bellperson's
 * coefficient H basis (CUZK_H_COEFF, n - 1 points tau^i t(tau) / delta): H' is h(tau) t(tau) /
 * delta in either basis, so with the same secrets and r, s the proof equals the snarkjs key's
 * byte for byte, in memory and through key files (version 2, flag bit 1); it verifies; a tampered
 * H point or a witness that does not satisfy the circuit gives a proof that does not; and the h
 * of cuzk_groth16_pk_h equals, on 2^2 and 2^3 domains, what naive polynomial arithmetic gives
 * (Lagrange interpolation of a, b, c, the product, long division by x^n - 1 with no remainder;
 * for the snarkjs basis the evaluations of A B - C at the odd 2n-th roots). */
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

/* ---- bellperson's coefficient basis ------------------------------------------------------- */

/* Naive polynomials over Fr, coefficients lowest first, at most NP of them. */
#define NP 32

/* p = prod_(k != j) (x - x_k) / (x_j - x_k): the j-th Lagrange basis polynomial of x[0..n) */
static void lagrange_poly(cuzk_fr *p, const cuzk_fr *x, size_t n, size_t j) {
    memset(p, 0, NP * sizeof *p);
    cuzk_fr_set_one(&p[0]);
    cuzk_fr den, t;
    cuzk_fr_set_one(&den);
    size_t deg = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == j) continue;
        /* p <- p (x - x_k): p_i <- p_(i-1) - x_k p_i, from the new top down */
        for (size_t i = deg + 2; i-- > 0;) {
            cuzk_fr_mul(&t, &p[i], &x[k]);
            if (i)
                cuzk_fr_sub(&p[i], &p[i - 1], &t);
            else
                cuzk_fr_neg(&p[0], &t);
        }
        deg++;
        cuzk_fr_sub(&t, &x[j], &x[k]);
        cuzk_fr_mul(&den, &den, &t);
    }
    cuzk_fr_inv(&den, &den);
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&p[i], &p[i], &den);
}

/* The coefficients of the polynomial of degree < n through (x_j, v_j). */
static void interpolate(cuzk_fr *out, const cuzk_fr *x, const cuzk_fr *v, size_t n) {
    cuzk_fr l[NP], t;
    memset(out, 0, NP * sizeof *out);
    for (size_t j = 0; j < n; j++) {
        lagrange_poly(l, x, n, j);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_mul(&t, &l[i], &v[j]);
            cuzk_fr_add(&out[i], &out[i], &t);
        }
    }
}

static void poly_eval(cuzk_fr *r, const cuzk_fr *p, size_t len, const cuzk_fr *x) {
    cuzk_fr_set_zero(r);
    for (size_t i = len; i-- > 0;) {
        cuzk_fr_mul(r, r, x);
        cuzk_fr_add(r, r, &p[i]);
    }
}

/* pk_h's h against naive arithmetic for the chain of `len` constraints (domain 2^2 or 2^3), its
 * witness satisfying the system or not: the coefficient basis gives the quotient of A B - C by
 * x^n - 1 (and a zero last value), the snarkjs basis the values of A B - C at the odd 2n-th
 * roots. */
static void check_h_naive(struct cuzk_pool *pool, uint32_t len, int satisfied) {
    struct cuzk_r1cs r;
    cuzk_fr *w;
    build_chain(&r, len, &w, 2, 3);
    if (!satisfied) cuzk_fr_add(&w[3], &w[3], &w[2]); /* x changes: v_1 no longer x^2 + y */
    struct cuzk_cs cs;
    CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
    struct cuzk_groth16_pk pk = {.n_vars = r.n_wires, .n_public = 2, .cs = &cs, .n_pub_rows = 3};
    pk.domain_size = cuzk_groth16_domain_for(cs.n_rows, 2);
    CHECK(cuzk_groth16_domain_log(pk.domain_size, &pk.log_n) == CUZK_OK);
    const size_t n = pk.domain_size;
    CHECK(n == 4 || n == 8);
    cuzk_fr a[8], b[8], c[8], h[8], x[8], ca[NP], cb[NP], cc[NP], p[NP], q[NP], omega, t;
    CHECK(cuzk_groth16_pk_eval(pool, &pk, w, a, b) == CUZK_OK);
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    cuzk_fr_root_of_unity(&omega, pk.log_n);
    cuzk_fr_set_one(&x[0]);
    for (size_t i = 1; i < n; i++) cuzk_fr_mul(&x[i], &x[i - 1], &omega);
    interpolate(ca, x, a, n);
    interpolate(cb, x, b, n);
    interpolate(cc, x, c, n);
    /* p = A B - C, degree <= 2n - 2 */
    memset(p, 0, sizeof p);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            cuzk_fr_mul(&t, &ca[i], &cb[j]);
            cuzk_fr_add(&p[i + j], &p[i + j], &t);
        }
    for (size_t i = 0; i < n; i++) cuzk_fr_sub(&p[i], &p[i], &cc[i]);
    for (int basis = 0; basis < 2; basis++) {
        pk.h_basis = basis ? CUZK_H_COEFF : CUZK_H_SNARKJS;
        cuzk_fr sb[8], sc[8]; /* pk_h's scratch */
        memcpy(h, a, sizeof a);
        memcpy(sb, b, sizeof b);
        CHECK(cuzk_groth16_pk_h(pool, &pk, h, sb, sc) == CUZK_OK);
        if (basis) {
            /* long division of p by x^n - 1: q_(i-n) = r_i from the top, r_(i-n) += r_i */
            cuzk_fr rem[NP];
            memcpy(rem, p, sizeof rem);
            memset(q, 0, sizeof q);
            for (size_t i = 2 * n - 2; i >= n; i--) {
                q[i - n] = rem[i];
                cuzk_fr_add(&rem[i - n], &rem[i - n], &rem[i]);
                cuzk_fr_set_zero(&rem[i]);
            }
            /* c = a o b: t divides A B - C whether or not the witness satisfies the system */
            int rem_zero = 1, same = 1;
            for (size_t i = 0; i < n; i++) rem_zero &= cuzk_fr_is_zero(&rem[i]);
            CHECK(rem_zero);
            for (size_t i = 0; i < n - 1; i++) same &= cuzk_fr_eq(&h[i], &q[i]);
            CHECK(same);
            CHECK(cuzk_fr_is_zero(&h[n - 1])); /* degree n - 2: the key has n - 1 points */
        } else {
            cuzk_fr om2, y;
            cuzk_fr_root_of_unity(&om2, pk.log_n + 1);
            int same = 1;
            for (size_t j = 0; j < n; j++) {
                uint64_t e = 2 * j + 1;
                cuzk_fr_pow(&y, &om2, &e, 1);
                poly_eval(&t, p, 2 * n - 1, &y);
                same &= cuzk_fr_eq(&t, &h[j]);
            }
            CHECK(same);
        }
    }
    cuzk_cs_free(&cs);
    cuzk_r1cs_free(&r);
    free(w);
}

/* Coefficient-basis keys of the chain (see the file's comment). */
static void test_coeff(struct cuzk_pool *pool) {
    for (uint32_t len = 1; len <= 3; len += 2) {
        check_h_naive(pool, len, 1);
        check_h_naive(pool, len, 0);
    }
    struct cuzk_backend be;
    cuzk_cpu_backend_init(&be, pool);
    char err[256];
    for (uint32_t len = 1; len <= 300; len = len * 5 + 3) {
        struct cuzk_r1cs r;
        cuzk_fr *w;
        build_chain(&r, len, &w, 7, 4 + len);
        struct cuzk_cs cs;
        CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
        struct cuzk_rng rng;
        struct cuzk_keygen_opts ks = {.setup = {.gpu = CUZK_SETUP_GPU_OFF}, .rng = &rng};
        struct cuzk_keygen_opts kc = ks;
        kc.h_basis = CUZK_H_COEFF;
        struct cuzk_groth16_keydata ds, dc;
        cuzk_rng_seed(&rng, 500 + len);
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ks, &ds, err, sizeof err) == CUZK_OK);
        cuzk_rng_seed(&rng, 500 + len);
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &kc, &dc, err, sizeof err) == CUZK_OK);
        CHECK(dc.info.h_basis == CUZK_H_COEFF && ds.info.h_basis == CUZK_H_SNARKJS);
        const uint32_t n = dc.info.domain_size;
        /* the same secrets: every point but H's the same */
        CHECK(!memcmp(dc.c, ds.c, ((size_t)r.n_wires - 3) * sizeof *dc.c));
        CHECK(!memcmp(dc.a, ds.a, dc.info.n_a * sizeof *dc.a));
        struct cuzk_groth16_pk ps, pc;
        CHECK(cuzk_groth16_pk_from_keydata(&ps, &ds, &cs, NULL) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&pc, &dc, &cs, NULL) == CUZK_OK);
        CHECK(pc.h_basis == CUZK_H_COEFF && cuzk_h_basis_points(pc.h_basis, n) == n - 1);
        struct cuzk_snarkjs_proof pr_s, pr_c, t;
        CHECK(prove_seeded(&be, &ps, w, r.n_wires, 31, &pr_s) == CUZK_OK);
        CHECK(prove_seeded(&be, &pc, w, r.n_wires, 31, &pr_c) == CUZK_OK);
        CHECK(!memcmp(&pr_s, &pr_c, sizeof pr_s));
        struct cuzk_snarkjs_vk vk = {0};
        CHECK(cuzk_groth16_vk_from_keydata(&vk, &dc) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &pr_c) == 1);
        CHECK(prove_seeded(&be, &pc, w, r.n_wires, 32, &t) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 1 && memcmp(&t, &pr_c, sizeof t));
        /* through key files, both encodings: version 2, the flag, n - 1 points */
        for (int comp = 0; comp < 2; comp++) {
            char path[] = "/tmp/cuzk-test-coeff-XXXXXX";
            int fd = mkstemp(path);
            CHECK(fd >= 0);
            if (fd >= 0) close(fd);
            kc.compressed = comp;
            kc.chunk_points = 3;
            cuzk_rng_seed(&rng, 500 + len);
            CHECK(cuzk_groth16_keygen_file(pool, &cs, &kc, path, err, sizeof err) == CUZK_OK);
            FILE *f = fopen(path, "rb");
            unsigned char head[16] = {0};
            CHECK(f && fread(head, 1, sizeof head, f) == sizeof head);
            if (f) fclose(f);
            CHECK(head[8] == 2 && head[12] == (comp ? 3 : 2));
            struct cuzk_g16key *g = NULL;
            CHECK(cuzk_g16key_open(&g, path, err, sizeof err) == CUZK_OK);
            CHECK(g && cuzk_g16key_get_info(g)->h_basis == CUZK_H_COEFF &&
                  cuzk_g16key_count(g, CUZK_G16KEY_H) == n - 1);
            struct cuzk_groth16_keydata fk;
            CHECK(g && cuzk_groth16_keydata_load(&fk, g, pool, 1, err, sizeof err) == CUZK_OK);
            CHECK(!memcmp(fk.h, dc.h, (n - 1) * sizeof *fk.h));
            struct cuzk_groth16_pk fp;
            CHECK(cuzk_groth16_pk_from_keydata(&fp, &fk, &cs, g) == CUZK_OK);
            CHECK(prove_seeded(&be, &fp, w, r.n_wires, 31, &t) == CUZK_OK);
            CHECK(!memcmp(&t, &pr_c, sizeof t));
            cuzk_groth16_keydata_free(&fk);
            cuzk_g16key_close(g);
            unlink(path);
        }
        /* a tampered H point: the proof does not verify */
        cuzk_g1 hp;
        cuzk_g1_affine gen;
        cuzk_g1_generator(&gen);
        cuzk_g1_from_affine(&hp, &dc.h[(n - 1) / 2]);
        cuzk_g1_add_affine(&hp, &hp, &gen);
        cuzk_g1_affine saved = dc.h[(n - 1) / 2];
        cuzk_g1_to_affine(&dc.h[(n - 1) / 2], &hp);
        CHECK(prove_seeded(&be, &pc, w, r.n_wires, 31, &t) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);
        dc.h[(n - 1) / 2] = saved;
        /* a witness that does not satisfy the circuit: the proof does not verify */
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        cuzk_fr_add(&w[3], &w[3], &one);
        CHECK(prove_seeded(&be, &pc, w, r.n_wires, 31, &t) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, w + 1, 2, &t) == 0);
        cuzk_snarkjs_vk_free(&vk);
        cuzk_groth16_keydata_free(&ds);
        cuzk_groth16_keydata_free(&dc);
        cuzk_cs_free(&cs);
        cuzk_r1cs_free(&r);
        free(w);
    }
    /* an unknown basis is refused */
    struct cuzk_r1cs r;
    cuzk_fr *w;
    build_chain(&r, 2, &w, 1, 1);
    struct cuzk_cs cs;
    CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
    struct cuzk_keygen_opts bad = {.setup = {.gpu = CUZK_SETUP_GPU_OFF}, .h_basis = 7};
    struct cuzk_groth16_keydata kd;
    CHECK(cuzk_groth16_keygen_mem(pool, &cs, &bad, &kd, err, sizeof err) == CUZK_EINVAL);
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
        CHECK(cuzk_groth16_vk_from_zkey(&vk, &z) == CUZK_OK);
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
    test_coeff(pool);
    cuzk_pool_destroy(pool);
    return test_finish();
}
