/* The CPU backend of the Groth16 prover.
 *
 * DESIGN: prove_start copies nothing big: it records the key, the witness pointer (the caller
 * keeps the witness alive until prove_finish) and the blinding factors, and starts one
 * background thread ("cuzk-prove") that runs the heavy part on the backend's pool: SpMV for a
 * and b, c = a o b, three inverse NTTs and three coset NTTs, h, the scalar conversion and the
 * five MSMs. That thread owns every buffer it allocates and frees them before it exits.
 * prove_finish joins it and assembles the proof on the caller's thread. The pool serialises
 * its jobs, so two pending proofs on one pool share the cores instead of fighting over them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "groth16/groth16.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/pool.h"

struct cuzk_prove_pending {
    const struct cuzk_groth16_pk *pk;
    struct cuzk_pool *pool;
    const cuzk_fr *w;
    cuzk_fr r, s;
    pthread_t thread;
    int rc;
    struct cuzk_groth16_msms msms;
};

/* c[i] = a[i] * b[i] (pool item = a block) */
struct pointwise_ctx {
    cuzk_fr *a, *b, *c;
    cuzk_scalar *h;
    size_t n;
    int mode; /* 0: c = a b; 1: h = a b - c as canonical scalars */
};

#define PW_BLOCK 4096

static void pointwise_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct pointwise_ctx *c = ctxp;
    size_t lo = item * PW_BLOCK, hi = lo + PW_BLOCK < c->n ? lo + PW_BLOCK : c->n;
    for (size_t i = lo; i < hi; i++) {
        if (c->mode == 0) {
            cuzk_fr_mul(&c->c[i], &c->a[i], &c->b[i]);
        } else {
            cuzk_fr t;
            cuzk_fr_mul(&t, &c->a[i], &c->b[i]);
            cuzk_fr_sub(&t, &t, &c->c[i]);
            cuzk_scalar_from_fr(&c->h[i], &t);
        }
    }
}

static int heavy(struct cuzk_prove_pending *p) {
    const struct cuzk_groth16_pk *pk = p->pk;
    const struct cuzk_zkey *z = pk->zkey;
    size_t n = z->domain_size, nv = z->n_vars, npub = z->n_public;
    const struct cuzk_ntt_domain *dom;
    int rc = cuzk_ntt_domain_get(pk->log_n, &dom);
    if (rc) return rc;
    cuzk_fr *abc = calloc(3 * n, sizeof *abc);
    cuzk_scalar *h = malloc(n * sizeof *h);
    cuzk_scalar *ws = malloc(nv * sizeof *ws);
    rc = CUZK_ENOMEM;
    if (!abc || !h || !ws) goto out;
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;

    /* a = A w, b = B w on the key's rows; the rest of the domain stays zero */
    if ((rc = cuzk_cs_eval(p->pool, &pk->ab, p->w, a, b, NULL))) goto out;
    struct pointwise_ctx pw = {.a = a, .b = b, .c = c, .h = h, .n = n, .mode = 0};
    size_t blocks = (n + PW_BLOCK - 1) / PW_BLOCK;
    cuzk_pool_run(p->pool, blocks, pointwise_block, &pw);

    /* to coefficients, then to the odd 2n-th roots: the coset omega_2n * <omega_n> */
    cuzk_fr shift;
    cuzk_fr_root_of_unity(&shift, pk->log_n + 1);
    for (int k = 0; k < 3; k++) {
        cuzk_ntt_inverse(p->pool, dom, abc + k * n);
        cuzk_ntt_coset_forward(p->pool, dom, abc + k * n, &shift);
    }
    pw.mode = 1;
    cuzk_pool_run(p->pool, blocks, pointwise_block, &pw);

    cuzk_scalar_batch_from_fr(p->pool, ws, p->w, nv);
    if ((rc = cuzk_g1_msm(p->pool, &p->msms.a, z->a, ws, nv)) ||
        (rc = cuzk_g1_msm(p->pool, &p->msms.b1, z->b1, ws, nv)) ||
        (rc = cuzk_g2_msm(p->pool, &p->msms.b2, z->b2, ws, nv)) ||
        (rc = cuzk_g1_msm(p->pool, &p->msms.c, z->c, ws + npub + 1, nv - npub - 1)) ||
        (rc = cuzk_g1_msm(p->pool, &p->msms.h, z->h, h, n)))
        goto out;
    rc = CUZK_OK;
out:
    free(abc);
    free(h);
    free(ws);
    return rc;
}

static void *heavy_main(void *arg) {
    struct cuzk_prove_pending *p = arg;
    p->rc = heavy(p);
    return NULL;
}

static int cpu_prove_start(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                           const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                           struct cuzk_prove_pending **out) {
    if (n_w != pk->zkey->n_vars || !cuzk_fr_is_one(&w[0])) return CUZK_EINVAL;
    struct cuzk_prove_pending *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ENOMEM;
    p->pk = pk;
    p->pool = be->impl;
    p->w = w;
    p->r = *r;
    p->s = *s;
    if (pthread_create(&p->thread, NULL, heavy_main, p) != 0) {
        free(p);
        return CUZK_ENOMEM;
    }
    pthread_setname_np(p->thread, "cuzk-prove");
    *out = p;
    return CUZK_OK;
}

static int cpu_prove_finish(struct cuzk_prove_pending *p, struct cuzk_snarkjs_proof *out) {
    pthread_join(p->thread, NULL);
    int rc = p->rc;
    if (!rc) cuzk_groth16_assemble(p->pk->zkey, &p->msms, &p->r, &p->s, out);
    memset(p, 0, sizeof *p); /* wipes r and s */
    free(p);
    return rc;
}

void cuzk_cpu_backend_init(struct cuzk_backend *be, struct cuzk_pool *pool) {
    be->name = "cpu";
    be->prove_start = cpu_prove_start;
    be->prove_finish = cpu_prove_finish;
    be->impl = pool;
}
