/* The CUDA Groth16 backend against the CPU backend, on random circuits built in memory:
 *   - the work area's kernels (c = a o b, h = a b - c, canonical -> Montgomery) against the CPU
 *     field on random vectors and on edge values;
 *   - the GPU dev setup (CUZK_SETUP_GPU_ONLY, and AUTO with CUZK_SETUP_GPU=1) against the CPU
 *     setup: the same key bytes for the same seeded secrets;
 *   - at domains 2^2 .. 2^16 (full domains and half-full ones, so that the device zeroes a
 *     tail; 1 to 5 public inputs; a circuit whose wires are all public, so C' is empty): the
 *     CUDA proof equals the CPU proof byte for byte for the same seeded blinding, and verifies;
 *     a witness that does not satisfy the circuit gives identical (invalid) proofs too;
 *   - keys proved in growing and then shrinking size order (the work contexts grow once and
 *     serve smaller keys), two threads proving concurrently on one backend (same key, and two
 *     keys: one proof's witness uploads while the other computes), a witness in the backend's
 *     pinned buffers, evict and re-prove, the stage times;
 *   - points-only keys of a pre-compiled system (cuzk_groth16_keygen, density-filtered):
 *     uploaded from host memory, and from key files straight to the device (compressed points
 *     decoded on the GPU, and uncompressed ones), the CUDA proof equal to the CPU's of the
 *     host key; a corrupt key file refused with CUZK_EFORMAT; a device memory budget one byte
 *     short of the key with its smallest work space refused with CUZK_EUNSUPPORTED and a
 *     sentence (by the upload and by a proof), and the key held and proved at the edge;
 *   - keys in bellperson's coefficient H basis (CUZK_H_COEFF: the h of (A B - C) / t, an
 *     inverse coset NTT on the device), at domains 2^2 .. 2^14, from host memory and from key
 *     files: the CUDA proof equals the CPU's byte for byte, verifies, and equals the proof of
 *     the snarkjs-basis key of the same secrets; a witness that does not satisfy the circuit
 *     gives the CPU's (invalid) proof; the h kernel with its division (h = (a b - c) k) against
 *     the CPU field;
 *   - dense queries folded after a key's first proof (all five for a random witness, only H
 *     for a witness of 0s and 1s; none with the threshold 0 or a budget without room): the
 *     key's bytes, the stats and the proofs, equal to the CPU's before and after;
 *   - refusals: a witness of the wrong length or with w[0] != 1.
 * With CUZK_GPU_PROOF_DIR set, one CUDA proof is written there as proof.json, public.json and
 * verification_key.json, for `snarkjs groth16 verify`.
 * Without a GPU it checks that every GPU entry point reports CUZK_ENODEV and that the setup
 * falls back to the CPU (CUZK_SETUP_GPU_ON), then reports itself skipped (exit 77). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "formats/g16key.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "groth16/cuda_backend.h"
#include "groth16/cuda_plan.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "util/pool.h"
#include "test_util.h"

static struct cuzk_pool *pool;

/* Sets one of be's settings (a field of struct cuzk_cuda_config) to v, the others as they are. */
#define CUDA_SET(be, field, v)                                                                     \
    do {                                                                                           \
        struct cuzk_cuda_config cc_;                                                               \
        CHECK(cuzk_cuda_backend_config(be, &cc_) == CUZK_OK);                                      \
        cc_.field = v;                                                                             \
        CHECK(cuzk_cuda_backend_configure(be, &cc_) == CUZK_OK);                                   \
    } while (0)

/* ---- circuits -------------------------------------------------------------------------------- */

/* nc constraints over wires [1 | n_pub public inputs | 2 private inputs | one wire per
 * constraint]; constraint i: (c1 w_x + c2 w_y) * (c3 w_z) = w_new with x, y, z random earlier
 * wires (the constant one included) and random coefficients, so every wire is a random field
 * element. */
static void build_random(struct cuzk_r1cs *r, cuzk_fr **w_out, uint32_t nc, uint32_t n_pub,
                         uint64_t seed) {
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    memset(r, 0, sizeof *r);
    r->n_wires = n_pub + 3 + nc;
    r->n_pub_in = n_pub;
    r->n_prv_in = 2;
    r->n_constraints = nc;
    r->lc = calloc(3 * (size_t)nc + 1, sizeof *r->lc);
    r->wire = calloc(4 * (size_t)nc + 1, sizeof *r->wire);
    r->coef = calloc(4 * (size_t)nc + 1, sizeof *r->coef);
    cuzk_fr *w = calloc(r->n_wires, sizeof *w);
    if (!r->lc || !r->wire || !r->coef || !w) {
        fprintf(stderr, "test_gpu_groth16: out of memory\n");
        exit(1);
    }
    cuzk_fr_set_one(&w[0]);
    for (uint32_t i = 1; i < n_pub + 3; i++) cuzk_fr_random(&w[i], &rng);
    uint64_t t = 0;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t cur = n_pub + 3 + i;
        uint32_t x = (uint32_t)(cuzk_rng_u64(&rng) % cur), y = (uint32_t)(cuzk_rng_u64(&rng) % cur),
                 z = (uint32_t)(cuzk_rng_u64(&rng) % cur);
        cuzk_fr c1, c2, c3, a, b, s;
        cuzk_fr_random(&c1, &rng);
        cuzk_fr_random(&c2, &rng);
        if (i % 3 == 0)
            cuzk_fr_set_one(&c3);
        else
            cuzk_fr_random(&c3, &rng);
        r->lc[3 * i] = t;
        r->wire[t] = x, r->coef[t++] = c1;
        r->wire[t] = y, r->coef[t++] = c2;
        r->lc[3 * i + 1] = t;
        r->wire[t] = z, r->coef[t++] = c3;
        r->lc[3 * i + 2] = t;
        cuzk_fr_set_one(&r->coef[t]);
        r->wire[t++] = cur;
        cuzk_fr_mul(&a, &c1, &w[x]);
        cuzk_fr_mul(&s, &c2, &w[y]);
        cuzk_fr_add(&a, &a, &s);
        cuzk_fr_mul(&b, &c3, &w[z]);
        cuzk_fr_mul(&w[cur], &a, &b);
    }
    r->lc[3 * (size_t)nc] = t;
    r->n_terms = t;
    *w_out = w;
}

/* Wires [1, x, y], both public, one constraint x * x = y: no private wire, so C' is empty. */
static void build_all_public(struct cuzk_r1cs *r, cuzk_fr **w_out) {
    memset(r, 0, sizeof *r);
    r->n_wires = 3;
    r->n_pub_in = 2;
    r->n_constraints = 1;
    r->lc = calloc(4, sizeof *r->lc);
    r->wire = calloc(3, sizeof *r->wire);
    r->coef = calloc(3, sizeof *r->coef);
    cuzk_fr *w = calloc(3, sizeof *w);
    if (!r->lc || !r->wire || !r->coef || !w) exit(1);
    r->lc[0] = 0, r->lc[1] = 1, r->lc[2] = 2, r->lc[3] = 3;
    r->wire[0] = 1, r->wire[1] = 1, r->wire[2] = 2;
    for (int i = 0; i < 3; i++) cuzk_fr_set_one(&r->coef[i]);
    r->n_terms = 3;
    cuzk_fr_set_one(&w[0]);
    cuzk_fr_from_u64(&w[1], 12345);
    cuzk_fr_sqr(&w[2], &w[1]);
    *w_out = w;
}

/* A circuit with its key, prepared key and verification key. */
struct kit {
    struct cuzk_r1cs r;
    cuzk_fr *w;
    struct cuzk_zkey z;
    struct cuzk_groth16_pk pk;
    struct cuzk_snarkjs_vk vk;
    int log_n;
};

static int kit_make(struct kit *k, int all_public, uint32_t nc, uint32_t n_pub, uint64_t seed) {
    memset(k, 0, sizeof *k);
    if (all_public)
        build_all_public(&k->r, &k->w);
    else
        build_random(&k->r, &k->w, nc, n_pub, seed);
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed ^ 0x5e7u);
    struct cuzk_setup_opts cpu = {.gpu = CUZK_SETUP_GPU_OFF};
    char err[256];
    int ok = cuzk_groth16_setup_ex(pool, &k->r, &rng, &cpu, &k->z, err, sizeof err) == CUZK_OK &&
             cuzk_groth16_pk_prepare(&k->pk, &k->z) == CUZK_OK &&
             cuzk_groth16_vk_from_zkey(&k->vk, &k->z) == CUZK_OK;
    CHECK(ok);
    if (ok) k->log_n = k->pk.log_n;
    return ok;
}

static void kit_free(struct kit *k) {
    cuzk_snarkjs_vk_free(&k->vk);
    cuzk_groth16_pk_free(&k->pk);
    cuzk_zkey_free(&k->z);
    cuzk_r1cs_free(&k->r);
    free(k->w);
    memset(k, 0, sizeof *k);
}

/* ---- comparisons ----------------------------------------------------------------------------- */

/* The key as its file bytes (malloc'd; *len set), or NULL. */
static char *zkey_bytes(const struct cuzk_zkey *z, size_t *len) {
    char *buf = NULL, err[256];
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    int rc = cuzk_zkey_write(f, z, err, sizeof err);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int zkeys_same(const struct cuzk_zkey *x, const struct cuzk_zkey *y) {
    size_t lx = 0, ly = 0;
    char *bx = zkey_bytes(x, &lx), *by = zkey_bytes(y, &ly);
    int same = bx && by && lx == ly && !memcmp(bx, by, lx);
    free(bx);
    free(by);
    return same;
}

/* The same proof.json text and the same point bytes. */
static int proofs_same(const struct cuzk_snarkjs_proof *x, const struct cuzk_snarkjs_proof *y) {
    char *jx = cuzk_snarkjs_proof_to_json(x), *jy = cuzk_snarkjs_proof_to_json(y);
    int same = jx && jy && !strcmp(jx, jy) && !memcmp(x, y, sizeof *x);
    free(jx);
    free(jy);
    return same;
}

/* The last failure's sentence, per thread. */
static __thread char last_err[512];

static int prove_pk(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                    const cuzk_fr *w, size_t n, uint64_t seed, struct cuzk_snarkjs_proof *out) {
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    last_err[0] = 0;
    return cuzk_groth16_prove(be, pk, w, n, &rng, NULL, out, NULL, last_err, sizeof last_err);
}

static int prove_seeded(const struct cuzk_backend *be, const struct kit *k, const cuzk_fr *w,
                        uint64_t seed, struct cuzk_snarkjs_proof *out) {
    return prove_pk(be, &k->pk, w, k->r.n_wires, seed, out);
}

/* CPU and CUDA proofs of w for one seed: identical, and valid iff `valid`. */
static void check_same_proof(const struct cuzk_backend *cpu, const struct cuzk_backend *gpu,
                             const struct kit *k, const cuzk_fr *w, uint64_t seed, int valid) {
    struct cuzk_snarkjs_proof pc, pg;
    int rc_c = prove_seeded(cpu, k, w, seed, &pc), rc_g = prove_seeded(gpu, k, w, seed, &pg);
    CHECK(rc_c == CUZK_OK);
    CHECK(rc_g == CUZK_OK);
    if (rc_g != CUZK_OK) {
        fprintf(stderr, "test_gpu_groth16: cuda prove at 2^%d failed: %s\n", k->log_n, last_err);
        return;
    }
    int same = proofs_same(&pc, &pg);
    CHECK(same);
    if (!same) {
        /* which part differs points at the MSM behind it */
        fprintf(stderr,
                "test_gpu_groth16: 2^%d (%u vars, %u public): cpu and cuda proofs differ: "
                "pi_a %s, pi_b %s, pi_c %s\n",
                k->log_n, k->z.n_vars, k->z.n_public,
                cuzk_g1_affine_eq(&pc.a, &pg.a) ? "same" : "DIFFERENT",
                cuzk_g2_affine_eq(&pc.b, &pg.b) ? "same" : "DIFFERENT",
                cuzk_g1_affine_eq(&pc.c, &pg.c) ? "same" : "DIFFERENT");
    }
    CHECK(cuzk_groth16_verify(&k->vk, w + 1, k->z.n_public, &pg) == valid);
    CHECK(cuzk_groth16_verify(&k->vk, w + 1, k->z.n_public, &pc) == valid);
}

/* ---- the kernels' CPU twins ------------------------------------------------------------------ */

static void test_kernels(void) {
    const size_t sizes[] = {1, 7, 1000, ((size_t)1 << 20) + 3};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        cuzk_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c),
                *out = malloc(n * sizeof *out);
        if (!a || !b || !c || !out) exit(1);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_random(&a[i], &test_rng);
            cuzk_fr_random(&b[i], &test_rng);
            cuzk_fr_random(&c[i], &test_rng);
        }
        /* edge values up front: 0, 1, -1 in every combination that fits */
        cuzk_fr edge[3];
        memset(&edge[0], 0, sizeof edge[0]);
        cuzk_fr_set_one(&edge[1]);
        cuzk_fr_neg(&edge[2], &edge[1]);
        for (size_t i = 0; i < 27 && i < n; i++) {
            a[i] = edge[i % 3];
            b[i] = edge[i / 3 % 3];
            c[i] = edge[i / 9];
        }
        size_t bad = 0;
        CHECK(cuzk_gpu_g16_eval(0, CUZK_GPU_G16_OP_MUL, a, b, NULL, out, n) == CUZK_OK);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &a[i], &b[i]);
            bad += !cuzk_fr_eq(&t, &out[i]);
        }
        CHECK(bad == 0);
        CHECK(cuzk_gpu_g16_eval(0, CUZK_GPU_G16_OP_H, a, b, c, out, n) == CUZK_OK);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &a[i], &b[i]);
            cuzk_fr_sub(&t, &t, &c[i]);
            bad += !cuzk_fr_eq(&t, &out[i]);
        }
        CHECK(bad == 0);
        CHECK(cuzk_gpu_g16_eval(0, CUZK_GPU_G16_OP_MUL_A, a, b, NULL, out, n) == CUZK_OK);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &a[i], &b[i]);
            bad += !cuzk_fr_eq(&t, &out[i]);
        }
        CHECK(bad == 0);
        cuzk_fr k;
        cuzk_fr_random(&k, &test_rng);
        CHECK(cuzk_gpu_g16_eval_k(0, CUZK_GPU_G16_OP_SUB_K, a, NULL, c, &k, out, n) == CUZK_OK);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr t;
            cuzk_fr_sub(&t, &a[i], &c[i]);
            cuzk_fr_mul(&t, &t, &k);
            bad += !cuzk_fr_eq(&t, &out[i]);
        }
        CHECK(bad == 0);
        CHECK(cuzk_gpu_g16_eval_k(0, CUZK_GPU_G16_OP_SUB_K, a, NULL, c, NULL, out, n) ==
              CUZK_EINVAL);
        CHECK(cuzk_gpu_g16_eval_k(0, CUZK_GPU_G16_OP_SUB_K, a, b, NULL, &k, out, n) == CUZK_EINVAL);
        /* canonical integers in, Montgomery form out: the inverse of cuzk_fr_to_canonical */
        for (size_t i = 0; i < n; i++) cuzk_fr_to_canonical(c[i].l, &a[i]);
        CHECK(cuzk_gpu_g16_eval(0, CUZK_GPU_G16_OP_TO_MONT, c, NULL, NULL, out, n) == CUZK_OK);
        for (size_t i = 0; i < n; i++) bad += !cuzk_fr_eq(&a[i], &out[i]);
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "test_gpu_groth16: kernels: %zu wrong of %zu\n", bad, n);
        free(a);
        free(b);
        free(c);
        free(out);
    }
}

/* ---- setup ----------------------------------------------------------------------------------- */

static void test_setup(uint32_t nc, uint32_t n_pub, int all_public) {
    struct cuzk_r1cs r;
    cuzk_fr *w;
    if (all_public)
        build_all_public(&r, &w);
    else
        build_random(&r, &w, nc, n_pub, cuzk_rng_u64(&test_rng));
    uint64_t seed = cuzk_rng_u64(&test_rng);
    struct cuzk_zkey zc = {0}, zg = {0}, ze = {0};
    struct cuzk_rng rng;
    char err[256];
    struct cuzk_setup_opts cpu = {.gpu = CUZK_SETUP_GPU_OFF}, gpu = {.gpu = CUZK_SETUP_GPU_ONLY};
    cuzk_rng_seed(&rng, seed);
    CHECK(cuzk_groth16_setup_ex(pool, &r, &rng, &cpu, &zc, err, sizeof err) == CUZK_OK);
    cuzk_rng_seed(&rng, seed);
    int rc = cuzk_groth16_setup_ex(pool, &r, &rng, &gpu, &zg, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) fprintf(stderr, "test_gpu_groth16: GPU setup: %s\n", err);
    int same = rc == CUZK_OK && zkeys_same(&zc, &zg);
    CHECK(same);
    if (rc == CUZK_OK && !same)
        fprintf(stderr, "test_gpu_groth16: GPU setup (%u constraints) differs from the CPU's\n",
                r.n_constraints);
    /* the environment switch of the AUTO mode */
    setenv("CUZK_SETUP_GPU", "1", 1);
    cuzk_rng_seed(&rng, seed);
    CHECK(cuzk_groth16_setup(pool, &r, &rng, &ze, err, sizeof err) == CUZK_OK);
    CHECK(zkeys_same(&zc, &ze));
    unsetenv("CUZK_SETUP_GPU");
    cuzk_zkey_free(&zc);
    cuzk_zkey_free(&zg);
    cuzk_zkey_free(&ze);
    cuzk_r1cs_free(&r);
    free(w);
}

/* ---- concurrency ----------------------------------------------------------------------------- */

#define THREAD_PROOFS 3

struct prover_job {
    const struct cuzk_backend *be;
    const struct kit *k;
    uint64_t seed[THREAD_PROOFS];
    struct cuzk_snarkjs_proof out[THREAD_PROOFS];
    int rc[THREAD_PROOFS];
    char err[512];
};

static void *prover_main(void *arg) {
    struct prover_job *j = arg;
    for (int i = 0; i < THREAD_PROOFS; i++) {
        j->rc[i] = prove_seeded(j->be, j->k, j->k->w, j->seed[i], &j->out[i]);
        if (j->rc[i]) snprintf(j->err, sizeof j->err, "%s", last_err);
    }
    return NULL;
}

/* Two threads prove THREAD_PROOFS proofs each on gpu (keys k1 and k2, possibly the same); every
 * proof must equal the CPU's for its seed. */
static void test_threads(const struct cuzk_backend *cpu, const struct cuzk_backend *gpu,
                         const struct kit *k1, const struct kit *k2) {
    struct prover_job j[2] = {{.be = gpu, .k = k1}, {.be = gpu, .k = k2}};
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < THREAD_PROOFS; i++) j[t].seed[i] = cuzk_rng_u64(&test_rng);
    pthread_t th[2];
    for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, prover_main, &j[t]) == 0);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < THREAD_PROOFS; i++) {
            CHECK(j[t].rc[i] == CUZK_OK);
            if (j[t].rc[i]) fprintf(stderr, "test_gpu_groth16: threads: %s\n", j[t].err);
            struct cuzk_snarkjs_proof ref;
            CHECK(prove_seeded(cpu, j[t].k, j[t].k->w, j[t].seed[i], &ref) == CUZK_OK);
            CHECK(j[t].rc[i] || proofs_same(&ref, &j[t].out[i]));
        }
    }
}

/* ---- points-only keys --------------------------------------------------------------------- */

/* ---- residency plans (groth16/cuda_plan.h) ----------------------------------------------- */

/* A fresh backend on device 0 with budget `budget`, no folds and no presum space (the plan's
 * rules then decide alone). */
static void plan_backend(struct cuzk_backend *b, uint64_t budget) {
    CHECK(cuzk_cuda_backend_init(b, 0, pool) == CUZK_OK);
    CUDA_SET(b, fold_h_min, 0);
    CUDA_SET(b, fold_dense_min, 0);
    CUDA_SET(b, presum, 0);
    if (budget) CUDA_SET(b, vram_budget, budget);
}

/* pk (host points, or the key file `file` names) under budgets that force each rule of the
 * residency plan: everything resident with the full MSM context, then in slices, then H
 * streamed from pinned host memory, then every query streamed at the edge of the smallest
 * layout; each proves twice, byte-identical to the CPU's proof `ref` (seed `seed`), and its
 * stats show the plan. One byte below the smallest layout: refused with the sizes
 * (CUZK_EUNSUPPORTED), by the upload and by a proof. */
static void test_plans(const struct cuzk_backend *cpu, const struct cuzk_groth16_pk *pk,
                       const char *file, const cuzk_fr *w, size_t n_w, uint64_t seed,
                       const struct cuzk_snarkjs_proof *ref) {
    (void)cpu;
    char err[512];
    struct cuzk_backend b;
    struct cuzk_cuda_plan_sizes sz;
    struct cuzk_cuda_plan plan;
    plan_backend(&b, 0);
    CHECK(cuzk_cuda_backend_plan(&b, pk, &sz, &plan, err, sizeof err) == CUZK_OK);
    cuzk_cuda_backend_free(&b);
    CHECK(sz.n_slices >= 2);
    if (sz.n_slices < 2) return;
    uint64_t total = sz.fixed, least = UINT64_MAX;
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) total += sz.query[q];
    for (unsigned i = 0; i < sz.n_slices; i++)
        if (sz.work_slice[i] + sz.stage[i] < least) least = sz.work_slice[i] + sz.stage[i];
    const uint64_t h = sz.query[CUZK_CUDA_Q_H];
    /* the premises of the budgets below: rule 1 needs more than the largest slice's rule 2, and
     * rule 2 with any slice more than H streamed with the smallest layout (a small key's H is
     * no larger than a large slice's staging buffers, hence the smallest) */
    uint64_t min_ws = UINT64_MAX;
    for (unsigned i = 0; i < sz.n_slices; i++)
        if (sz.work_slice[i] < min_ws) min_ws = sz.work_slice[i];
    const uint64_t h_budget = total - h + least;
    CHECK(sz.work_full > sz.work_slice[0] && total + min_ws > h_budget);
    if (sz.work_full <= sz.work_slice[0] || total + min_ws <= h_budget) {
        char line[512];
        cuzk_cuda_plan_sizes_describe(&sz, line, sizeof line);
        fprintf(stderr, "test_gpu_groth16: the plan test's premises fail: %s\n", line);
        return;
    }
    /* the lean work space's smallest layout: below every other one */
    uint64_t least_lean = UINT64_MAX;
    for (unsigned i = 0; i < sz.n_slices; i++)
        if (sz.work_slice[i] - sz.lean_save + sz.stage[i] < least_lean)
            least_lean = sz.work_slice[i] - sz.lean_save + sz.stage[i];
    CHECK(sz.lean_save > 0 && least_lean < least);
    /* the tight work space's (rule 6) smaller still */
    const uint64_t least_tight = least_lean - sz.tight_save;
    CHECK(sz.tight_save > 0 && sz.tight_save < least_lean);
    const struct {
        const char *what;
        uint64_t budget;
        unsigned streamed; /* the mask expected (lean: the pure plan's) */
        int sliced, lean;  /* lean: 1 lean, 2 and rows in host memory, 3 tight */
    } cases[] = {
        {"all resident", total + sz.work_full, 0, 0, 0},
        {"all resident, MSMs in slices", total + sz.work_slice[0], 0, 1, 0},
        {"H streamed", h_budget, 1u << CUZK_CUDA_Q_H, 1, 0},
        {"every query streamed", sz.fixed + least, (1u << CUZK_CUDA_Q_N) - 1, 1, 0},
        {"lean work space", sz.fixed + least_lean, 0, 1, 1},
        {"lean work space, rows in host memory", sz.fixed - sz.rows + least_lean, 0, 1, 2},
        {"tight work space", sz.fixed - sz.rows + least_tight, 0, 1, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct cuzk_cuda_plan_sizes at = sz;
        struct cuzk_cuda_plan want;
        at.budget = cases[c].budget;
        CHECK(cuzk_cuda_plan_make(&at, &want, err, sizeof err) == CUZK_OK);
        CHECK(want.lean == (cases[c].lean == 1 || cases[c].lean == 2) &&
              want.host_rows == (cases[c].lean >= 2) && want.tight == (cases[c].lean == 3));
        if (!cases[c].lean) CHECK(want.streamed == cases[c].streamed);
        plan_backend(&b, cases[c].budget);
        uint64_t v = 0;
        int rc = b.key_upload(&b, pk, &v, err, sizeof err);
        CHECK(rc == CUZK_OK);
        if (rc) fprintf(stderr, "test_gpu_groth16: plan %s: %s\n", cases[c].what, err);
        struct cuzk_cuda_stats ss;
        cuzk_cuda_backend_stats(&b, &ss);
        CHECK(cuzk_cuda_backend_plan(&b, pk, &sz, &plan, err, sizeof err) == CUZK_OK);
        CHECK(plan.streamed == want.streamed && plan.sliced == cases[c].sliced &&
              plan.lean == want.lean && plan.host_rows == want.host_rows &&
              plan.tight == want.tight && plan.work == want.work);
        CHECK(b.key_needs_rows(&b, pk) == want.host_rows);
        { /* the status line: the ledger's parts and this key's plan */
            char line[1024], plan_line[512], key[64];
            b.describe(&b, line, sizeof line);
            cuzk_cuda_plan_describe(&plan, cases[c].budget, plan_line, sizeof plan_line);
            snprintf(key, sizeof key, "key %016llx: ", (unsigned long long)pk->uid);
            CHECK(!strncmp(line, "device memory: keys ", 20) && strstr(line, key) &&
                  strstr(line, plan_line));
        }
        CHECK(ss.keys == 1 && ss.bases_vram == plan.device_key && v == plan.device_key);
        CHECK(ss.bases_vram + ss.work_vram <= cases[c].budget);
        /* pinned: the streamed queries, and a and b of a CPU SpMV for a plan with host rows
         * (and c for a tight one) */
        const uint64_t ab = (plan.tight       ? 3
                             : plan.host_rows ? 2
                                              : 0) *
                            (uint64_t)pk->domain_size * sizeof(cuzk_fr);
        CHECK(ss.host_bases == plan.host_key + ab && ss.streamed_keys == (plan.streamed != 0));
        CHECK(b.key_host(&b, pk) == 0); /* resident: the upload made them */
        CHECK(ss.msm_points == plan.msm_max);
        for (int rep = 0; rep < 2; rep++) {
            struct cuzk_snarkjs_proof pg;
            rc = prove_pk(&b, pk, w, n_w, seed, &pg);
            CHECK(rc == CUZK_OK);
            const int same = rc == CUZK_OK && proofs_same(ref, &pg);
            CHECK(same);
            if (!same)
                fprintf(stderr, "test_gpu_groth16: plan %s (%s): proof %s: %s\n", cases[c].what,
                        file ? file : "host points", rc ? "failed" : "differs", last_err);
        }
        /* the key trimmed on the host once resident (the kinds free its rows and points): the
         * plan its upload followed still holds, the proof is the same */
        struct cuzk_groth16_pk trimmed = *pk;
        trimmed.cs = NULL;
        trimmed.a = trimmed.b1 = trimmed.c = trimmed.h = NULL;
        trimmed.b2 = NULL;
        struct cuzk_snarkjs_proof pt;
        rc = prove_pk(&b, &trimmed, w, n_w, seed, &pt);
        if (plan.host_rows) { /* but not the rows such a plan leaves on the host */
            CHECK(rc == CUZK_EINVAL && strstr(last_err, "not in host memory"));
            trimmed.cs = pk->cs;
            rc = prove_pk(&b, &trimmed, w, n_w, seed, &pt);
        }
        CHECK(rc == CUZK_OK && proofs_same(ref, &pt));
        if (rc)
            fprintf(stderr, "test_gpu_groth16: plan %s, trimmed key: %s\n", cases[c].what,
                    last_err);
        cuzk_cuda_backend_stats(&b, &ss);
        /* each proof copies the streamed queries' bytes once (B1 and B2 share no copy) */
        CHECK(ss.link_bytes == 3 * plan.host_key);
        CHECK(!plan.host_key || ss.link_ms > 0);
        char line[256];
        cuzk_cuda_plan_describe(&plan, cases[c].budget, line, sizeof line);
        printf("test_gpu_groth16: plan %s (%s): %s: cpu == cuda; %zu bytes streamed in %.3f ms\n",
               cases[c].what, file ? file : "host points", line, ss.link_bytes, ss.link_ms);
        b.key_drop(&b, pk);
        cuzk_cuda_backend_stats(&b, &ss);
        CHECK(ss.keys == 0 && ss.host_bases == 0 && ss.streamed_keys == 0);
        cuzk_cuda_backend_free(&b);
    }
    /* below the smallest layout, the budget set before any upload and after one */
    for (int e = 0; e < 2; e++) {
        plan_backend(&b, 0);
        uint64_t v = 0;
        if (e) {
            CHECK(b.key_upload(&b, pk, &v, err, sizeof err) == CUZK_OK);
            b.key_drop(&b, pk);
        }
        /* the smallest layout: tight, the rows in host memory, every query streamed */
        CUDA_SET(&b, vram_budget, sz.fixed - sz.rows + least_tight - 1);
        CHECK(b.key_upload(&b, pk, &v, err, sizeof err) == CUZK_EUNSUPPORTED);
        CHECK(strstr(err, "even with no other key resident") && strstr(err, "cannot hold"));
        struct cuzk_snarkjs_proof pg;
        CHECK(prove_pk(&b, pk, w, n_w, seed, &pg) == CUZK_EUNSUPPORTED);
        struct cuzk_cuda_stats ss;
        cuzk_cuda_backend_stats(&b, &ss);
        CHECK(ss.keys == 0 && ss.host_bases == 0);
        cuzk_cuda_backend_free(&b);
    }
    /* far below: the same refusal */
    plan_backend(&b, (uint64_t)1 << 20);
    uint64_t v;
    CHECK(b.key_upload(&b, pk, &v, err, sizeof err) == CUZK_EUNSUPPORTED);
    CHECK(strstr(err, "budget") != NULL);
    cuzk_cuda_backend_free(&b);
    /* the H-streamed plan with the daemon's defaults (folds and the presum space wanted): they
     * are refused or fit beside it, the proof stays the CPU's */
    CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
    CUDA_SET(&b, vram_budget, cases[2].budget);
    struct cuzk_snarkjs_proof pg;
    CHECK(prove_pk(&b, pk, w, n_w, seed, &pg) == CUZK_OK && proofs_same(ref, &pg));
    cuzk_cuda_backend_free(&b);
}

/* ---- points-only keys -------------------------------------------------------------------- */

/* A key of a pre-compiled system (public-input rows implicit, queries filtered by density)
 * made three ways from the same secrets: in memory, and in key files with compressed and with
 * uncompressed points. The file keys carry no host points: the device loads them from the
 * file. Every CUDA proof equals the CPU's proof with the host key. */
static void test_points_only(const struct cuzk_backend *cpu, const struct cuzk_backend *gpu) {
    struct cuzk_r1cs r;
    cuzk_fr *w;
    build_random(&r, &w, 3000, 3, 99);
    struct cuzk_cs cs;
    CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
    char err[512];
    struct cuzk_rng rng;
    struct cuzk_keygen_opts ko = {
        .setup = {.gpu = CUZK_SETUP_GPU_ON}, .rng = &rng, .chunk_points = 1000};
    cuzk_rng_seed(&rng, 31);
    struct cuzk_groth16_keydata kd;
    CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &kd, err, sizeof err) == CUZK_OK);
    struct cuzk_groth16_pk hp;
    CHECK(cuzk_groth16_pk_from_keydata(&hp, &kd, &cs, NULL) == CUZK_OK);
    CHECK(hp.n_b < hp.n_vars); /* filtered: B holds the wires of the z positions only */
    uint64_t seed = cuzk_rng_u64(&test_rng);
    struct cuzk_snarkjs_proof ref, pg;
    CHECK(prove_pk(cpu, &hp, w, r.n_wires, seed, &ref) == CUZK_OK);
    CHECK(prove_pk(gpu, &hp, w, r.n_wires, seed, &pg) == CUZK_OK);
    CHECK(proofs_same(&ref, &pg));
    for (int comp = 0; comp < 2; comp++) {
        char path[] = "/tmp/cuzk-test-gpukey-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) close(fd);
        ko.compressed = comp;
        cuzk_rng_seed(&rng, 31);
        CHECK(cuzk_groth16_keygen_file(pool, &cs, &ko, path, err, sizeof err) == CUZK_OK);
        struct cuzk_g16key *f = NULL;
        struct cuzk_groth16_keydata fk;
        struct cuzk_groth16_pk fp;
        CHECK(cuzk_g16key_open(&f, path, err, sizeof err) == CUZK_OK);
        CHECK(f && cuzk_groth16_keydata_load(&fk, f, pool, 0, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&fp, &fk, &cs, f) == CUZK_OK && !fp.a);
        uint64_t vram = 0;
        int rc = gpu->key_upload(gpu, &fp, &vram, err, sizeof err);
        CHECK(rc == CUZK_OK && vram > 0);
        if (rc) fprintf(stderr, "test_gpu_groth16: key from file: %s\n", err);
        CHECK(prove_pk(gpu, &fp, w, r.n_wires, seed, &pg) == CUZK_OK);
        CHECK(proofs_same(&ref, &pg));
        if (!proofs_same(&ref, &pg))
            fprintf(stderr, "test_gpu_groth16: the %s key file's proof differs: %s\n",
                    comp ? "compressed" : "uncompressed", last_err);
        gpu->key_drop(gpu, &fp);
        if (comp) test_plans(cpu, &fp, "a compressed key file", w, r.n_wires, seed, &ref);
        cuzk_groth16_keydata_free(&fk);
        cuzk_g16key_close(f);
        /* a flipped byte in a point section: the upload refuses the file */
        FILE *fx = fopen(path, "r+b");
        CHECK(fx != NULL);
        if (fx) {
            fseek(fx, -10, SEEK_END); /* inside H */
            int ch = fgetc(fx);
            fseek(fx, -10, SEEK_END);
            fputc(ch ^ 0x40, fx);
            fclose(fx);
        }
        CHECK(cuzk_g16key_open(&f, path, err, sizeof err) == CUZK_OK);
        CHECK(f && cuzk_groth16_keydata_load(&fk, f, pool, 0, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&fp, &fk, &cs, f) == CUZK_OK);
        CHECK(gpu->key_upload(gpu, &fp, &vram, err, sizeof err) == CUZK_EFORMAT);
        CHECK(strstr(err, "checksum") != NULL);
        cuzk_groth16_keydata_free(&fk);
        cuzk_g16key_close(f);
        unlink(path);
    }
    test_plans(cpu, &hp, NULL, w, r.n_wires, seed, &ref);
    gpu->key_drop(gpu, &hp);
    cuzk_groth16_keydata_free(&kd);
    cuzk_cs_free(&cs);
    cuzk_r1cs_free(&r);
    free(w);
    printf("test_gpu_groth16: points-only keys (memory, compressed and uncompressed files): cpu == "
           "cuda\n");
}

/* ---- bellperson's coefficient basis --------------------------------------------------------- */

/* Keys of a pre-compiled system with H in the coefficient basis (and, from the same secrets, in
 * the snarkjs basis): the CUDA proofs equal the CPU's and the snarkjs key's, in host memory and
 * from a compressed key file, and verify. */
static void test_coeff_basis(const struct cuzk_backend *cpu, const struct cuzk_backend *gpu) {
    static const struct {
        uint32_t nc, n_pub;
    } shapes[] = {{1, 1}, {5, 2}, {100, 3}, {3000, 2}, {(1u << 14) - 5, 3}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        struct cuzk_r1cs r;
        cuzk_fr *w;
        build_random(&r, &w, shapes[si].nc, shapes[si].n_pub, 1000 + si);
        struct cuzk_cs cs;
        CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
        char err[512];
        struct cuzk_rng rng;
        struct cuzk_keygen_opts ko = {.setup = {.gpu = CUZK_SETUP_GPU_ON},
                                      .rng = &rng,
                                      .chunk_points = 1000,
                                      .h_basis = CUZK_H_COEFF};
        struct cuzk_groth16_keydata kc, ks;
        cuzk_rng_seed(&rng, 77 + si);
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &kc, err, sizeof err) == CUZK_OK);
        ko.h_basis = CUZK_H_SNARKJS;
        cuzk_rng_seed(&rng, 77 + si);
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &ks, err, sizeof err) == CUZK_OK);
        struct cuzk_groth16_pk pc, ps;
        CHECK(cuzk_groth16_pk_from_keydata(&pc, &kc, &cs, NULL) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&ps, &ks, &cs, NULL) == CUZK_OK);
        CHECK(pc.h_basis == CUZK_H_COEFF);
        struct cuzk_snarkjs_vk vk = {0};
        CHECK(cuzk_groth16_vk_from_keydata(&vk, &kc) == CUZK_OK);
        uint64_t seed = cuzk_rng_u64(&test_rng);
        struct cuzk_snarkjs_proof ref, pg, pss;
        CHECK(prove_pk(cpu, &pc, w, r.n_wires, seed, &ref) == CUZK_OK);
        int rc = prove_pk(gpu, &pc, w, r.n_wires, seed, &pg);
        CHECK(rc == CUZK_OK);
        if (rc) fprintf(stderr, "test_gpu_groth16: coefficient basis: %s\n", last_err);
        CHECK(proofs_same(&ref, &pg));
        CHECK(cuzk_groth16_verify(&vk, w + 1, r.n_pub_in, &pg) == 1);
        CHECK(prove_pk(gpu, &ps, w, r.n_wires, seed, &pss) == CUZK_OK);
        CHECK(proofs_same(&ref, &pss)); /* H' = h(tau) t(tau) / delta in both bases */
        /* from a compressed key file, decoded on the device */
        char path[] = "/tmp/cuzk-test-gpucoeff-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) close(fd);
        ko.h_basis = CUZK_H_COEFF;
        ko.compressed = 1;
        cuzk_rng_seed(&rng, 77 + si);
        CHECK(cuzk_groth16_keygen_file(pool, &cs, &ko, path, err, sizeof err) == CUZK_OK);
        struct cuzk_g16key *f = NULL;
        struct cuzk_groth16_keydata fk;
        struct cuzk_groth16_pk fp;
        CHECK(cuzk_g16key_open(&f, path, err, sizeof err) == CUZK_OK);
        CHECK(f && cuzk_groth16_keydata_load(&fk, f, pool, 0, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&fp, &fk, &cs, f) == CUZK_OK && !fp.h &&
              fp.h_basis == CUZK_H_COEFF);
        rc = prove_pk(gpu, &fp, w, r.n_wires, seed, &pg);
        CHECK(rc == CUZK_OK && proofs_same(&ref, &pg));
        if (rc) fprintf(stderr, "test_gpu_groth16: coefficient key file: %s\n", last_err);
        gpu->key_drop(gpu, &fp);
        cuzk_groth16_keydata_free(&fk);
        cuzk_g16key_close(f);
        unlink(path);
        /* a witness that does not satisfy the circuit: the same invalid proof */
        if (shapes[si].nc > 1) {
            cuzk_fr one;
            cuzk_fr_set_one(&one);
            cuzk_fr_add(&w[r.n_wires - 1], &w[r.n_wires - 1], &one);
            CHECK(prove_pk(cpu, &pc, w, r.n_wires, seed, &ref) == CUZK_OK);
            CHECK(prove_pk(gpu, &pc, w, r.n_wires, seed, &pg) == CUZK_OK);
            CHECK(proofs_same(&ref, &pg));
            CHECK(cuzk_groth16_verify(&vk, w + 1, r.n_pub_in, &pg) == 0);
        }
        printf("test_gpu_groth16: coefficient basis, 2^%d (%u constraints): cpu == cuda\n",
               pc.log_n, shapes[si].nc);
        gpu->key_drop(gpu, &pc);
        gpu->key_drop(gpu, &ps);
        cuzk_snarkjs_vk_free(&vk);
        cuzk_groth16_keydata_free(&kc);
        cuzk_groth16_keydata_free(&ks);
        cuzk_cs_free(&cs);
        cuzk_r1cs_free(&r);
        free(w);
    }
}

/* ---- the tight work space ------------------------------------------------------------------ */

/* Rule 6 with keys of both H bases and a small key beside them: a budget that holds a 2^14
 * key only in the tight work space; a small key proved before (its own plan, today's layout),
 * then the large key in the coefficient basis (the work space rebuilt tight), the small key
 * again in the tight work space (its SpMV on the device, read back, its host vectors made at
 * its first proof there), the large key in the snarkjs basis: every proof the CPU's. */
static void test_tight(const struct cuzk_backend *cpu) {
    struct cuzk_r1cs r[2];
    cuzk_fr *w[2];
    struct cuzk_cs cs[2];
    struct cuzk_groth16_keydata kd[3];
    struct cuzk_groth16_pk pk[3]; /* large coefficient, large snarkjs, small coefficient */
    char err[512];
    const uint32_t nc[2] = {(1u << 14) - 5, 100};
    for (int i = 0; i < 2; i++) {
        build_random(&r[i], &w[i], nc[i], 2, 4000 + i);
        CHECK(cuzk_r1cs_to_cs(&r[i], &cs[i]) == CUZK_OK);
    }
    for (int k = 0; k < 3; k++) {
        struct cuzk_rng rng;
        struct cuzk_keygen_opts ko = {.setup = {.gpu = CUZK_SETUP_GPU_ON},
                                      .rng = &rng,
                                      .chunk_points = 1000,
                                      .h_basis = k == 1 ? CUZK_H_SNARKJS : CUZK_H_COEFF};
        cuzk_rng_seed(&rng, 90 + k);
        CHECK(cuzk_groth16_keygen_mem(pool, &cs[k / 2], &ko, &kd[k], err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&pk[k], &kd[k], &cs[k / 2], NULL) == CUZK_OK);
    }
    struct cuzk_backend b;
    struct cuzk_cuda_plan_sizes sz;
    struct cuzk_cuda_plan plan;
    plan_backend(&b, 0);
    CHECK(cuzk_cuda_backend_plan(&b, &pk[2], &sz, &plan, err, sizeof err) == CUZK_OK);
    const uint64_t small = plan.device_key; /* resident beside the large key */
    CHECK(cuzk_cuda_backend_plan(&b, &pk[0], &sz, &plan, err, sizeof err) == CUZK_OK);
    cuzk_cuda_backend_free(&b);
    uint64_t least = UINT64_MAX;
    for (unsigned i = 0; i < sz.n_slices; i++)
        if (sz.work_slice[i] - sz.lean_save - sz.tight_save + sz.stage[i] < least)
            least = sz.work_slice[i] - sz.lean_save - sz.tight_save + sz.stage[i];
    CHECK(small + 4096 < sz.tight_save); /* the margin below keeps the large key's plan tight */
    plan_backend(&b, sz.fixed - sz.rows + least + small + 4096);
    static const int order[4] = {2, 0, 2, 1};
    for (int i = 0; i < 4; i++) {
        const int k = order[i];
        if (k == 1) b.key_drop(&b, &pk[0]); /* the budget holds one large key */
        const uint64_t seed = cuzk_rng_u64(&test_rng);
        struct cuzk_snarkjs_proof ref, pg;
        CHECK(prove_pk(cpu, &pk[k], w[k / 2], r[k / 2].n_wires, seed, &ref) == CUZK_OK);
        const int rc = prove_pk(&b, &pk[k], w[k / 2], r[k / 2].n_wires, seed, &pg);
        CHECK(rc == CUZK_OK && proofs_same(&ref, &pg));
        if (rc || !proofs_same(&ref, &pg))
            fprintf(stderr, "test_gpu_groth16: tight work space, step %d: %s\n", i,
                    rc ? last_err : "the proof differs");
        CHECK(cuzk_cuda_backend_plan(&b, &pk[k], &sz, &plan, err, sizeof err) == CUZK_OK);
        CHECK(plan.tight == (k < 2));
    }
    struct cuzk_cuda_stats ss;
    cuzk_cuda_backend_stats(&b, &ss);
    /* pinned: the large key's streamed queries (plan: the last key's), and the host vectors
     * a, b, c of the large key resident and, since its proof in the tight space, of the small
     * one */
    CHECK(ss.keys == 2 &&
          ss.host_bases == plan.host_key + 3 * (uint64_t)(pk[1].domain_size + pk[2].domain_size) *
                                               sizeof(cuzk_fr));
    printf("test_gpu_groth16: tight work space, both H bases and a small key beside: cpu == "
           "cuda\n");
    cuzk_cuda_backend_free(&b);
    for (int k = 0; k < 3; k++) cuzk_groth16_keydata_free(&kd[k]);
    for (int i = 0; i < 2; i++) {
        cuzk_cs_free(&cs[i]);
        cuzk_r1cs_free(&r[i]);
        free(w[i]);
    }
}

/* ---- folded H queries ------------------------------------------------------------------------ */

/* A backend that folds every H query (fold_h_min 1): its proofs equal the
 * CPU's (and verify) for keys of 2^4 to 2^16 in the snarkjs basis, and the stats count the
 * folded keys; a budget that holds the plain key and work space (without the presum space) but
 * not the folded ones leaves the key plain, with the same proof. */
static void test_folded_h(const struct cuzk_backend *cpu, struct kit *kits, size_t nkits) {
    struct cuzk_backend fb;
    CHECK(cuzk_cuda_backend_init(&fb, 0, pool) == CUZK_OK);
    CUDA_SET(&fb, fold_h_min, 1);
    size_t resident = 0;
    for (size_t i = 1; i < nkits; i += 3) {
        check_same_proof(cpu, &fb, &kits[i], kits[i].w, cuzk_rng_u64(&test_rng), 1);
        struct cuzk_cuda_stats st;
        cuzk_cuda_backend_stats(&fb, &st);
        resident++;
        CHECK(st.keys == resident && st.folded == resident);
        printf("test_gpu_groth16: folded H, 2^%d: cpu == cuda (%zu keys, %zu folded)\n",
               kits[i].log_n, st.keys, st.folded);
    }
    check_same_proof(cpu, &fb, &kits[nkits - 1], kits[nkits - 1].w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_free(&fb);

    /* the budget of the plain key and work space: no folding, the same proof */
    struct kit *k = &kits[nkits - 1];
    struct cuzk_backend plain, tight;
    struct cuzk_cuda_stats ps, ts;
    CHECK(cuzk_cuda_backend_init(&plain, 0, pool) == CUZK_OK);
    CUDA_SET(&plain, fold_h_min, 0);
    CUDA_SET(&plain, presum, 0); /* the plain work space */
    check_same_proof(cpu, &plain, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&plain, &ps);
    cuzk_cuda_backend_free(&plain);
    CHECK(ps.folded == 0);
    CHECK(cuzk_cuda_backend_init(&tight, 0, pool) == CUZK_OK);
    CUDA_SET(&tight, fold_h_min, 1);
    CUDA_SET(&tight, vram_budget, ps.bases_vram + ps.work_vram);
    check_same_proof(cpu, &tight, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&tight, &ts);
    CHECK(ts.keys == 1 && ts.folded == 0 && ts.bases_vram == ps.bases_vram);
    printf("test_gpu_groth16: folded H refused by a budget of %zu bytes: plain, cpu == cuda\n",
           ps.bases_vram + ps.work_vram);
    cuzk_cuda_backend_free(&tight);
}

/* ---- dense queries folded after a first proof ------------------------------------------------ */

/* The bytes of multiples a backend folding every query of k (at least `min` points) adds. */
static size_t dense_fold_bytes(const struct kit *k, size_t min, size_t *smallest, size_t *count) {
    const struct cuzk_groth16_pk *pk = &k->pk;
    const size_t n[5] = {pk->n_a, pk->n_b, pk->n_b, (size_t)pk->n_vars - pk->n_public - 1,
                         cuzk_h_basis_points(pk->h_basis, pk->domain_size)};
    size_t sum = 0;
    *smallest = SIZE_MAX;
    *count = 0;
    for (int q = 0; q < 5; q++) {
        if (n[q] < min || n[q] == 0) continue;
        const size_t b = cuzk_gpu_bases_vram_for(q == 2 ? CUZK_GPU_G2 : CUZK_GPU_G1, n[q]);
        sum += b;
        if (b < *smallest) *smallest = b;
        ++*count;
    }
    return sum;
}

/* A witness of random 0s and 1s after the leading 1 (NULL when out of memory): the proofs
 * differ from the CPU's nowhere, but do not verify. */
static cuzk_fr *bits_witness(uint32_t n_wires) {
    cuzk_fr *bits = malloc(n_wires * sizeof *bits);
    if (!bits) return NULL;
    cuzk_fr_set_one(&bits[0]);
    for (uint32_t i = 1; i < n_wires; i++) {
        if (cuzk_rng_u64(&test_rng) & 1)
            cuzk_fr_set_one(&bits[i]);
        else
            cuzk_fr_set_zero(&bits[i]);
    }
    return bits;
}

/* After a key's first proof, a backend folding dense queries of at least one point
 * (fold_dense_min 1, no H fold at upload) folds every query whose MSM
 * took at least half of its scalars through the windows: all of them for a random witness,
 * only H for a witness of 0s and 1s (its A, B and C scalars are summed apart). The key's bytes
 * grow by exactly the multiples, the first proof's fold_ms says what they cost and later
 * proofs fold nothing more; an eviction frees them and the next residency learns again. Every
 * proof, before and after, equals the CPU's. Threshold 0 folds nothing; a budget that would
 * leave less than the key's plain size free folds nothing either. A rebuild of the work objects
 * (for big, a larger key, proved with a witness of bits) makes the presum space sized for G1
 * again, and the next proof of k, whose first B2 was dense, grows it for G2 again. */
static void test_dense_folds(const struct cuzk_backend *cpu, const struct kit *k,
                             const struct kit *big) {
    struct cuzk_backend plain, db, bb, tb;
    struct cuzk_cuda_stats ps, ds, bs, ts;
    struct cuzk_cuda_timing tm;
    size_t smallest, nq;
    const size_t extra = dense_fold_bytes(k, 1, &smallest, &nq);
    CHECK(nq == 5 && extra > 0);

    CHECK(cuzk_cuda_backend_init(&plain, 0, pool) == CUZK_OK);
    CUDA_SET(&plain, fold_dense_min, 0);
    for (int rep = 0; rep < 2; rep++)
        check_same_proof(cpu, &plain, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&plain, &ps);
    CHECK(ps.dense_folded == 0 && ps.folded == 0);
    const size_t plain_bytes = cuzk_cuda_backend_resident_bytes(&plain, &k->pk);
    cuzk_cuda_backend_free(&plain);

    CHECK(cuzk_cuda_backend_init(&db, 0, pool) == CUZK_OK);
    CUDA_SET(&db, fold_h_min, 0);
    CUDA_SET(&db, fold_dense_min, 1);
    for (int residency = 0; residency < 2; residency++) {
        for (int rep = 0; rep < 3; rep++) {
            check_same_proof(cpu, &db, k, k->w, cuzk_rng_u64(&test_rng), 1);
            CHECK(cuzk_cuda_backend_last_timing(&db, &tm) == CUZK_OK);
            CHECK(rep == 0 ? tm.fold_ms > 0 : tm.fold_ms == 0);
            cuzk_cuda_backend_stats(&db, &ds);
            CHECK(ds.dense_folded == 5 && ds.folded == 0);
            CHECK(ds.presum_space == 2); /* B2 was dense: the presum space grew for G2 */
            CHECK(cuzk_cuda_backend_resident_bytes(&db, &k->pk) == plain_bytes + extra);
        }
        CHECK(cuzk_cuda_backend_evict(&db, &k->pk) == CUZK_OK);
        cuzk_cuda_backend_stats(&db, &ds);
        CHECK(ds.dense_folded == 0 && ds.keys == 0 && ds.bases_vram == 0);
    }
    printf("test_gpu_groth16: dense queries folded after the first proof, 2^%d: 5 queries, "
           "%zu bytes more, presum space sized for G2, cpu == cuda\n",
           k->log_n, extra);

    /* the work objects rebuilt for a larger key whose B2 is not dense: the space is sized for G1
     * until the next proof of k, a learned key whose first B2 was dense */
    CHECK(big->log_n > k->log_n);
    cuzk_fr *bits = bits_witness(k->r.n_wires), *big_bits = bits_witness(big->r.n_wires);
    CHECK(bits != NULL && big_bits != NULL);
    if (!bits || !big_bits) {
        free(bits), free(big_bits);
        cuzk_cuda_backend_free(&db);
        return;
    }
    check_same_proof(cpu, &db, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&db, &ds);
    CHECK(ds.presum_space == 2);
    const size_t work_k = ds.work_vram;
    check_same_proof(cpu, &db, big, big_bits, cuzk_rng_u64(&test_rng), 0);
    cuzk_cuda_backend_stats(&db, &ds);
    CHECK(ds.presum_space == 1 && ds.keys == 2 && ds.work_vram > work_k);
    const size_t work_big = ds.work_vram;
    check_same_proof(cpu, &db, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&db, &ds);
    CHECK(ds.presum_space == 2 && ds.keys == 2 && ds.work_vram > work_big);
    check_same_proof(cpu, &db, big, big_bits, cuzk_rng_u64(&test_rng), 0);
    check_same_proof(cpu, &db, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&db, &ds);
    CHECK(ds.presum_space == 2 && ds.keys == 2);
    free(big_bits);
    printf("test_gpu_groth16: work space rebuilt for 2^%d (presum space for G1), grown for G2 "
           "again by the next proof of the 2^%d key, cpu == cuda\n",
           big->log_n, k->log_n);

    /* a witness of 0s and 1s: only H is dense */
    CHECK(cuzk_cuda_backend_init(&bb, 0, pool) == CUZK_OK);
    CUDA_SET(&bb, fold_h_min, 0);
    CUDA_SET(&bb, fold_dense_min, 1);
    for (int rep = 0; rep < 2; rep++) {
        check_same_proof(cpu, &bb, k, bits, cuzk_rng_u64(&test_rng), 0);
        cuzk_cuda_backend_stats(&bb, &bs);
        CHECK(bs.dense_folded == 1);
        CHECK(bs.presum_space == 1); /* B2 of bits: the presum space stays sized for G1 */
    }
    CHECK(work_k > bs.work_vram); /* the space sized for G2 against G1 */
    const size_t h_bytes =
        cuzk_gpu_bases_vram_for(CUZK_GPU_G1, cuzk_h_basis_points(k->pk.h_basis, k->pk.domain_size));
    CHECK(cuzk_cuda_backend_resident_bytes(&bb, &k->pk) == plain_bytes + h_bytes);
    cuzk_cuda_backend_free(&bb);
    free(bits);
    printf("test_gpu_groth16: a witness of 0s and 1s: only H folded, cpu == cuda\n");

    /* a budget that holds the key, its folding work space (without a presum space, which
     * would yield) and a second key of its size, but not the smallest query's multiples
     * besides: nothing folded, the same proofs */
    CHECK(cuzk_cuda_backend_init(&tb, 0, pool) == CUZK_OK);
    CUDA_SET(&tb, fold_h_min, 0);
    CUDA_SET(&tb, fold_dense_min, 1);
    CUDA_SET(&tb, presum, 0);
    check_same_proof(cpu, &tb, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&tb, &ts);
    const size_t work0 = ts.work_vram; /* the folding work space without a presum space */
    CHECK(ts.presum_space == 0 && work0 < work_k);
    cuzk_cuda_backend_free(&tb);
    const size_t tight = work0 + 2 * plain_bytes + smallest - 1;
    for (int presum = 0; presum < 2; presum++) {
        CHECK(cuzk_cuda_backend_init(&tb, 0, pool) == CUZK_OK);
        CUDA_SET(&tb, fold_h_min, 0);
        CUDA_SET(&tb, fold_dense_min, 1);
        CUDA_SET(&tb, presum, presum);
        CUDA_SET(&tb, vram_budget, tight);
        for (int rep = 0; rep < 2; rep++)
            check_same_proof(cpu, &tb, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&tb, &ts);
        CHECK(ts.keys == 1 && ts.dense_folded == 0);
        /* a space kept grows for G2 exactly when the budget holds the key with the work space
         * that has it (work_k: the same sizes) */
        if (ts.presum_space) CHECK((ts.presum_space == 2) == (work_k + plain_bytes <= tight));
        CHECK(ts.work_vram == (ts.presum_space == 2 ? work_k
                               : ts.presum_space    ? bs.work_vram
                                                    : work0));
        CHECK(cuzk_cuda_backend_resident_bytes(&tb, &k->pk) == plain_bytes);
        cuzk_cuda_backend_free(&tb);
    }
    cuzk_cuda_backend_free(&db);
    printf("test_gpu_groth16: dense folds refused by a budget of %zu bytes: plain, cpu == cuda\n",
           tight);
}

/* ---- the MSM context's presum space ---------------------------------------------------------- */

/* A G2 growth that waits for an eviction: k (its B2 dense and of fold_dense_min points, which
 * k2's queries, all smaller, are not) grows the space for G2 at its first proof in a budget that
 * holds it with k and k2 but for one byte; k2's upload frees the space, which its proof takes
 * back sized for G1 (that fits); the next proof of k finds no room for G2 while k2 is resident,
 * and the one after k2's eviction grows it. Every proof equals the CPU's. */
static void test_presum_g2_waits(const struct cuzk_backend *cpu, const struct kit *k,
                                 const struct kit *k2) {
    struct cuzk_backend b;
    struct cuzk_cuda_stats s;
    /* the sizes: k alone (its folds made, the space sized for G2), then k2 beside it */
    CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
    CUDA_SET(&b, fold_h_min, 0);
    CUDA_SET(&b, fold_dense_min, k->pk.n_b);
    check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&b, &s);
    CHECK(s.presum_space == 2 && s.keys == 1);
    const size_t w2 = s.work_vram, k1 = s.bases_vram;
    check_same_proof(cpu, &b, k2, k2->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&b, &s);
    CHECK(s.presum_space == 2 && s.keys == 2 && s.work_vram == w2 && s.dense_folded > 0);
    const size_t b2 = s.bases_vram - k1, budget = w2 + k1 + b2 - 1;
    cuzk_cuda_backend_free(&b);

    CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
    CUDA_SET(&b, fold_h_min, 0);
    CUDA_SET(&b, fold_dense_min, k->pk.n_b);
    CUDA_SET(&b, vram_budget, budget);
    check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&b, &s);
    CHECK(s.presum_space == 2 && s.keys == 1 && s.work_vram == w2 && s.bases_vram == k1);
    check_same_proof(cpu, &b, k2, k2->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&b, &s);
    CHECK(s.presum_space == 1 && s.keys == 2 && s.work_vram < w2 && s.bases_vram == k1 + b2);
    CHECK(s.bases_vram + s.work_vram <= budget);
    const size_t w1 = s.work_vram;
    check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&b, &s);
    CHECK(s.presum_space == 1 && s.keys == 2 && s.work_vram == w1);
    CHECK(cuzk_cuda_backend_evict(&b, &k2->pk) == CUZK_OK);
    for (int rep = 0; rep < 2; rep++) {
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s);
        CHECK(s.presum_space == 2 && s.keys == 1 && s.work_vram == w2 && s.bases_vram == k1);
    }
    cuzk_cuda_backend_free(&b);
    printf("test_gpu_groth16: presum space for G2 refused beside a second key (%zu bytes), grown "
           "after its eviction, in a budget of %zu bytes: cpu == cuda\n",
           b2, budget);
}

/* The presum space yields: a second key (k2, smaller than k in every size, so the work space
 * stays) that fits the budget only without it gets it freed, and the proofs stay the CPU's; so
 * does a second key whose H query is folded (fold_min 1) when only the fold needs the room.
 * Once k2 is evicted, the next proof of k takes the space back; k2 again frees it again.
 * son: a default backend's stats after a proof of k alone. */
static void test_presum_yields(const struct cuzk_backend *cpu, struct kit *k, struct kit *k2,
                               const struct cuzk_cuda_stats *son) {
    struct cuzk_backend b;
    struct cuzk_cuda_stats s1, s2;
    /* the bytes of k2's key, plain and with its H query folded (next to k's) */
    size_t plain2 = 0, folded1 = 0, folded2 = 0, fwork = 0;
    for (int f = 0; f < 2; f++) {
        CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
        CUDA_SET(&b, fold_h_min, f ? 1 : 0);
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s1);
        check_same_proof(cpu, &b, k2, k2->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s2);
        CHECK(s1.presum_space == 1 && s2.presum_space == 1 && s2.keys == 2);
        CHECK(s2.work_vram == s1.work_vram); /* k2 fits k's work space */
        if (f) {
            CHECK(s2.folded == 2);
            folded1 = s1.bases_vram;
            folded2 = s2.bases_vram - s1.bases_vram;
            fwork = s1.work_vram;
        } else {
            CHECK(s1.bases_vram == son->bases_vram && s1.work_vram == son->work_vram);
            plain2 = s2.bases_vram - s1.bases_vram;
        }
        cuzk_cuda_backend_free(&b);
    }
    /* one byte short of both keys with the space: k2 gets it freed */
    for (int f = 0; f < 2; f++) {
        const size_t budget =
            f ? folded1 + fwork + folded2 - 1 : son->bases_vram + son->work_vram + plain2 - 1;
        CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
        CUDA_SET(&b, fold_h_min, f ? 1 : 0);
        CUDA_SET(&b, vram_budget, budget);
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 1 && s1.keys == 1);
        const size_t with = s1.work_vram; /* the work space with the presum space */
        check_same_proof(cpu, &b, k2, k2->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s2);
        CHECK(s2.presum_space == 0 && s2.keys == 2 && s2.work_vram < s1.work_vram);
        CHECK(s2.bases_vram == (f ? folded1 + folded2 : son->bases_vram + plain2));
        CHECK(!f || s2.folded == 2);
        CHECK(s2.bases_vram + s2.work_vram <= budget);
        /* and k again, on the work space without it: the budget does not hold it yet */
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 0 && s1.keys == 2 && s1.work_vram == s2.work_vram);
        /* k2 evicted: the next proof of k takes the space back, the same bytes as before */
        CHECK(cuzk_cuda_backend_evict(&b, &k2->pk) == CUZK_OK);
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 0 && s1.keys == 1 && s1.work_vram == s2.work_vram);
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 1 && s1.keys == 1 && s1.work_vram == with);
        CHECK(s1.bases_vram + s1.work_vram <= budget);
        check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1); /* on it, no rebuild */
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 1 && s1.keys == 1 && s1.work_vram == with);
        /* and k2 again: freed again for it, both keys resident */
        check_same_proof(cpu, &b, k2, k2->w, cuzk_rng_u64(&test_rng), 1);
        cuzk_cuda_backend_stats(&b, &s1);
        CHECK(s1.presum_space == 0 && s1.keys == 2 && s1.work_vram == s2.work_vram);
        printf("test_gpu_groth16: presum space (%zu bytes) freed for a second key%s in a budget "
               "of %zu bytes, taken back after its eviction: cpu == cuda\n",
               (size_t)(with - s2.work_vram), f ? " with its folded H query" : "", budget);
        cuzk_cuda_backend_free(&b);
    }
}

/* A default backend gives its MSM context a presum space (the setting presum), one set
 * off does not, with the same proofs; a budget one byte short of the key and the work space with
 * the space refuses it (the work space of the one without), and one of exactly that keeps it.
 * Then test_presum_yields. */
static void test_presum(const struct cuzk_backend *cpu, struct kit *kits, size_t nkits) {
    struct kit *k = &kits[nkits - 1];
    struct cuzk_backend on, off, none = {0};
    struct cuzk_cuda_stats son, soff;
    struct cuzk_cuda_config cc;
    CHECK(cuzk_cuda_backend_config(&none, &cc) == CUZK_EINVAL); /* cc: the defaults */
    CHECK(cuzk_cuda_backend_configure(&none, &cc) == CUZK_EINVAL);
    CHECK(cuzk_cuda_backend_init(&on, 0, pool) == CUZK_OK);
    check_same_proof(cpu, &on, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&on, &son);
    cuzk_cuda_backend_free(&on);
    CHECK(cuzk_cuda_backend_init(&off, 0, pool) == CUZK_OK);
    CUDA_SET(&off, presum, 0);
    check_same_proof(cpu, &off, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&off, &soff);
    CHECK(son.presum_space == 1 && soff.presum_space == 0);
    CHECK(son.work_vram > soff.work_vram && son.bases_vram == soff.bases_vram);
    printf("test_gpu_groth16: presum space (%zu bytes of work space against %zu): cpu == cuda\n",
           son.work_vram, soff.work_vram);
    /* turned on again: the next proof rebuilds the work space with it */
    CUDA_SET(&off, presum, 1);
    check_same_proof(cpu, &off, k, k->w, cuzk_rng_u64(&test_rng), 1);
    cuzk_cuda_backend_stats(&off, &soff);
    CHECK(soff.presum_space == 1 && soff.work_vram == son.work_vram);
    cuzk_cuda_backend_free(&off);
    const size_t edge = son.bases_vram + son.work_vram;
    for (int d = 1; d >= 0; d--) {
        struct cuzk_backend b;
        struct cuzk_cuda_stats sb;
        CHECK(cuzk_cuda_backend_init(&b, 0, pool) == CUZK_OK);
        CUDA_SET(&b, vram_budget, edge - (size_t)d);
        for (int rep = 0; rep < 2; rep++) { /* refused: not taken at a later proof either */
            check_same_proof(cpu, &b, k, k->w, cuzk_rng_u64(&test_rng), 1);
            cuzk_cuda_backend_stats(&b, &sb);
            CHECK(sb.presum_space == !d && sb.keys == 1);
        }
        printf("test_gpu_groth16: a budget of %zu bytes: presum space %s, cpu == cuda\n",
               edge - (size_t)d, sb.presum_space ? "kept" : "refused");
        cuzk_cuda_backend_free(&b);
    }
    test_presum_yields(cpu, k, &kits[nkits - 3], &son);
}

/* ---- the NTTs after the MSMs ----------------------------------------------------------------- */

/* The default backend runs a proof's NTTs beside its witness MSMs; with the overlap off
 * (overlap_ntt 0) it runs them after, and its proofs are the same bytes. Configuring refuses a
 * backend that was never set up. */
static void test_no_overlap(const struct cuzk_backend *cpu, struct kit *kits, size_t nkits) {
    struct cuzk_backend seq, none = {0};
    struct cuzk_cuda_config cc;
    cuzk_cuda_config_default(&cc);
    cc.overlap_ntt = 0;
    CHECK(cuzk_cuda_backend_configure(&none, &cc) == CUZK_EINVAL);
    CHECK(cuzk_cuda_backend_init(&seq, 0, pool) == CUZK_OK);
    CUDA_SET(&seq, overlap_ntt, 0);
    for (size_t i = 0; i < nkits; i += 4)
        check_same_proof(cpu, &seq, &kits[i], kits[i].w, cuzk_rng_u64(&test_rng), 1);
    check_same_proof(cpu, &seq, &kits[nkits - 1], kits[nkits - 1].w, cuzk_rng_u64(&test_rng), 1);
    /* and on again, on the same contexts */
    CUDA_SET(&seq, overlap_ntt, 1);
    check_same_proof(cpu, &seq, &kits[nkits - 1], kits[nkits - 1].w, cuzk_rng_u64(&test_rng), 1);
    printf("test_gpu_groth16: NTTs after the MSMs, 2^%d to 2^%d: cpu == cuda\n", kits[0].log_n,
           kits[nkits - 1].log_n);
    cuzk_cuda_backend_free(&seq);
}

/* ---- files for snarkjs ----------------------------------------------------------------------- */

static void write_for_snarkjs(const char *dir, const struct kit *k,
                              const struct cuzk_snarkjs_proof *p) {
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/proof.json", dir);
    CHECK(cuzk_snarkjs_proof_save(path, p, err, sizeof err) == CUZK_OK);
    snprintf(path, sizeof path, "%s/public.json", dir);
    CHECK(cuzk_snarkjs_public_save(path, k->w + 1, k->z.n_public, err, sizeof err) == CUZK_OK);
    snprintf(path, sizeof path, "%s/verification_key.json", dir);
    CHECK(cuzk_snarkjs_vk_save(path, &k->vk, err, sizeof err) == CUZK_OK);
    printf("test_gpu_groth16: wrote proof.json, public.json and verification_key.json (2^%d, %u "
           "public) to %s\n",
           k->log_n, k->z.n_public, dir);
}

/* ---- without a GPU --------------------------------------------------------------------------- */

static int no_gpu(void) {
    struct cuzk_backend be;
    CHECK(cuzk_cuda_backend_init(&be, 0, pool) == CUZK_ENODEV);
    cuzk_fr x;
    cuzk_fr_set_one(&x);
    CHECK(cuzk_gpu_g16_eval(0, CUZK_GPU_G16_OP_MUL, &x, &x, NULL, &x, 1) == CUZK_ENODEV);
    CHECK(cuzk_gpu_g16_eval_k(0, CUZK_GPU_G16_OP_SUB_K, &x, NULL, &x, &x, &x, 1) == CUZK_ENODEV);
    void *p = NULL;
    CHECK(cuzk_gpu_pinned_alloc(64, &p) == CUZK_ENODEV && p == NULL);
    /* the setup: ONLY fails, ON falls back to the CPU (with a warning) and gives the CPU's key */
    struct cuzk_r1cs r;
    cuzk_fr *w;
    build_random(&r, &w, 100, 2, 1);
    struct cuzk_zkey zc = {0}, zg = {0};
    struct cuzk_rng rng;
    char err[256];
    struct cuzk_setup_opts cpu = {.gpu = CUZK_SETUP_GPU_OFF}, only = {.gpu = CUZK_SETUP_GPU_ONLY},
                           on = {.gpu = CUZK_SETUP_GPU_ON};
    cuzk_rng_seed(&rng, 7);
    CHECK(cuzk_groth16_setup_ex(pool, &r, &rng, &cpu, &zc, err, sizeof err) == CUZK_OK);
    cuzk_rng_seed(&rng, 7);
    CHECK(cuzk_groth16_setup_ex(pool, &r, &rng, &only, &zg, err, sizeof err) == CUZK_ENODEV);
    cuzk_rng_seed(&rng, 7);
    CHECK(cuzk_groth16_setup_ex(pool, &r, &rng, &on, &zg, err, sizeof err) == CUZK_OK);
    CHECK(zkeys_same(&zc, &zg));
    cuzk_zkey_free(&zc);
    cuzk_zkey_free(&zg);
    cuzk_r1cs_free(&r);
    free(w);
    printf("test_gpu_groth16: no GPU on this machine: skipped\n");
    int rc = test_finish();
    return rc ? rc : 77;
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(void) {
    test_init("test_gpu_groth16");
    CHECK(cuzk_pool_create(&pool, 0, "t") == CUZK_OK);
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) {
        int rc = no_gpu();
        cuzk_pool_destroy(pool);
        return rc;
    }
    struct cuzk_gpu_info info;
    if (cuzk_gpu_describe(0, &info) == CUZK_OK)
        printf("test_gpu_groth16: device 0: %s, %zu MiB\n", info.name, info.total_mem >> 20);

    test_kernels();
    test_setup(0, 0, 1);
    test_setup(100, 2, 0);
    test_setup(3000, 5, 0);
    test_setup((1u << 16) - 4, 3, 0); /* a 2^16 domain: every section in many chunks */

    struct cuzk_backend cpu, gpu;
    cuzk_cpu_backend_init(&cpu, pool);
    CHECK(cuzk_cuda_backend_init(&gpu, count, pool) == CUZK_EINVAL);
    int rc = cuzk_cuda_backend_init(&gpu, 0, pool);
    CHECK(rc == CUZK_OK);
    if (rc) {
        cuzk_pool_destroy(pool);
        return test_finish();
    }
    struct cuzk_cuda_timing tm;
    CHECK(cuzk_cuda_backend_last_timing(&gpu, &tm) == CUZK_ENOTFOUND);

    /* the sizes: (domain log, full or half, public inputs); all-public circuit first */
    static const struct {
        int log_n, full;
        uint32_t n_pub;
    } sizes[] = {{2, 0, 0},  {4, 1, 1},  {5, 0, 2},  {6, 1, 3},  {8, 0, 1},  {10, 1, 2},
                 {12, 0, 5}, {13, 1, 1}, {14, 1, 2}, {15, 0, 1}, {16, 1, 3}, {16, 0, 2}};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    struct kit kits[sizeof sizes / sizeof sizes[0]];
    const char *dir = getenv("CUZK_GPU_PROOF_DIR");
    for (size_t i = 0; i < nsizes; i++) {
        uint32_t n_pub = sizes[i].n_pub, span = (1u << sizes[i].log_n) - n_pub - 1;
        uint32_t nc = sizes[i].full ? span : span / 2 + 1;
        if (!kit_make(&kits[i], i == 0, nc, n_pub, cuzk_rng_u64(&test_rng))) return test_finish();
        struct kit *k = &kits[i];
        CHECK(k->log_n == sizes[i].log_n);
        for (int rep = 0; rep < 2; rep++)
            check_same_proof(&cpu, &gpu, k, k->w, cuzk_rng_u64(&test_rng), 1);
        if (dir && *dir && k->log_n == 10) {
            struct cuzk_snarkjs_proof p;
            CHECK(prove_seeded(&gpu, k, k->w, cuzk_rng_u64(&test_rng), &p) == CUZK_OK);
            write_for_snarkjs(dir, k, &p);
        }
        printf("test_gpu_groth16: 2^%d (%u constraints, %u public): cpu == cuda\n", k->log_n,
               k->r.n_constraints, k->z.n_public);
        fflush(stdout);
    }
    CHECK(cuzk_cuda_backend_last_timing(&gpu, &tm) == CUZK_OK);
    CHECK(tm.total_ms > 0 && tm.gpu_total_ms > 0 && tm.total_ms >= tm.gpu_total_ms);
    printf("test_gpu_groth16: last proof (2^16): spmv %.1f ms, upload %.1f, ntt %.1f, h msm %.1f, "
           "msm %.1f, g2 msm %.1f, gpu %.1f, total %.1f\n",
           tm.spmv_ms, tm.upload_ms, tm.ntt_ms, tm.h_msm_ms, tm.msm_ms, tm.g2_msm_ms,
           tm.gpu_total_ms, tm.total_ms);

    /* smaller keys again after the largest, on the grown contexts; a wrong witness */
    for (size_t i = nsizes; i-- > 0;) {
        struct kit *k = &kits[i];
        check_same_proof(&cpu, &gpu, k, k->w, cuzk_rng_u64(&test_rng), 1);
        if (k->r.n_constraints > 1 && i < 8) {
            cuzk_fr *bad = malloc(k->r.n_wires * sizeof *bad), one;
            memcpy(bad, k->w, k->r.n_wires * sizeof *bad);
            cuzk_fr_set_one(&one);
            cuzk_fr_add(&bad[k->r.n_wires - 1], &bad[k->r.n_wires - 1], &one);
            check_same_proof(&cpu, &gpu, k, bad, cuzk_rng_u64(&test_rng), 0);
            free(bad);
        }
    }

    /* the witness in the backend's own (pinned) buffer, as the engine's synthesis writes it */
    struct kit *mid = &kits[6];
    cuzk_fr *pw = NULL;
    CHECK(gpu.witness_alloc(&gpu, mid->r.n_wires, &pw) == CUZK_OK);
    struct cuzk_cuda_stats st;
    cuzk_cuda_backend_stats(&gpu, &st);
    CHECK(st.pinned == mid->r.n_wires * sizeof(cuzk_fr));
    if (pw) {
        memcpy(pw, mid->w, mid->r.n_wires * sizeof *pw);
        check_same_proof(&cpu, &gpu, mid, pw, cuzk_rng_u64(&test_rng), 1);
        gpu.witness_free(&gpu, pw, mid->r.n_wires);
    }
    cuzk_cuda_backend_stats(&gpu, &st);
    CHECK(st.pinned == 0);

    test_folded_h(&cpu, kits, nsizes);
    test_dense_folds(&cpu, &kits[8], &kits[10]);    /* 2^14 and 2^16, full */
    test_presum_g2_waits(&cpu, &kits[8], &kits[7]); /* 2^14 and 2^13, full */
    test_presum(&cpu, kits, nsizes);
    test_no_overlap(&cpu, kits, nsizes);

    /* threads: one key, then two keys */
    test_threads(&cpu, &gpu, mid, mid);
    test_threads(&cpu, &gpu, &kits[nsizes - 1], &kits[3]);

    /* evict and prove again */
    cuzk_cuda_backend_stats(&gpu, &st);
    CHECK(st.keys == nsizes && st.bases_vram > 0 && st.work_vram > 0 && st.vram_budget > 0);
    size_t res = cuzk_cuda_backend_resident_bytes(&gpu, &mid->pk);
    CHECK(res > 0 && res < st.bases_vram);
    CHECK(cuzk_cuda_backend_evict(&gpu, &mid->pk) == CUZK_OK);
    CHECK(cuzk_cuda_backend_evict(&gpu, &mid->pk) == CUZK_ENOTFOUND);
    CHECK(cuzk_cuda_backend_resident_bytes(&gpu, &mid->pk) == 0);
    CHECK(cuzk_cuda_backend_resident_bytes(&gpu, NULL) == st.bases_vram - res);
    check_same_proof(&cpu, &gpu, mid, mid->w, cuzk_rng_u64(&test_rng), 1);
    CHECK(cuzk_cuda_backend_resident_bytes(&gpu, &mid->pk) == res);
    CHECK(cuzk_cuda_backend_evict(&gpu, NULL) == CUZK_OK);
    cuzk_cuda_backend_stats(&gpu, &st);
    CHECK(st.keys == 0 && st.bases_vram == 0);
    char err[512];
    CHECK(cuzk_cuda_backend_preload(&gpu, &kits[4].pk, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cuda_backend_resident_bytes(&gpu, &kits[4].pk) > 0);
    check_same_proof(&cpu, &gpu, &kits[4], kits[4].w, cuzk_rng_u64(&test_rng), 1);
    CHECK(cuzk_cuda_backend_last_timing(&gpu, &tm) == CUZK_OK && tm.key_upload_ms == 0);

    test_points_only(&cpu, &gpu);
    test_coeff_basis(&cpu, &gpu);
    test_tight(&cpu);

    /* refusals, with a sentence */
    struct cuzk_snarkjs_proof t;
    CHECK(prove_pk(&gpu, &mid->pk, mid->w, mid->r.n_wires - 1, 1, &t) == CUZK_EINVAL);
    CHECK(strstr(last_err, "witness") != NULL);
    cuzk_fr_add(&mid->w[0], &mid->w[0], &mid->w[0]);
    CHECK(prove_seeded(&gpu, mid, mid->w, 2, &t) == CUZK_EINVAL);

    cuzk_cuda_backend_free(&gpu);
    for (size_t i = 0; i < nsizes; i++) kit_free(&kits[i]);
    CHECK(cuzk_gpu_pinned_bytes() == 0);
    cuzk_pool_destroy(pool);
    return test_finish();
}
