/* The CPU backend of the Groth16 prover.
 *
 * DESIGN: prove runs on the calling thread and hands its heavy loops to the backend's pool: the
 * SpMV for a and b, h (cuzk_groth16_pk_h: c = a o b, three inverse NTTs and three coset NTTs,
 * the pointwise products, and for a coefficient-basis key the division by t and one inverse
 * coset NTT), the scalar conversions and the five MSMs. Every buffer is allocated and freed inside
 * the call. The pool serialises its jobs, so two proofs on one pool share the cores instead of
 * fighting over them. The whole call counts as "the device" for the hooks (device_begin at entry,
 * device_end before the assembly); the witness is read until its conversion to scalars, before
 * the MSMs, and given back then (witness_done). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "groth16/groth16.h"
#include "msm/msm.h"
#include "util/pool.h"
#include "util/clock.h"

#define PW_BLOCK 4096 /* elements per pool item of the gather */

/* dst[k] = src[idx[k]]: the scalars of a density-filtered query */
struct gather_ctx {
    cuzk_scalar *dst;
    const cuzk_scalar *src;
    const uint32_t *idx;
    size_t n;
};

static void gather_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct gather_ctx *c = ctxp;
    size_t lo = item * PW_BLOCK, hi = lo + PW_BLOCK < c->n ? lo + PW_BLOCK : c->n;
    for (size_t k = lo; k < hi; k++) c->dst[k] = c->src[c->idx[k]];
}

/* The scalars of a query over `wires` (NULL: ws itself). *out is ws or a gathered copy in buf. */
static const cuzk_scalar *query_scalars(struct cuzk_pool *pool, const cuzk_scalar *ws,
                                        const uint32_t *wires, size_t n, cuzk_scalar *buf) {
    if (!wires) return ws;
    struct gather_ctx g = {.dst = buf, .src = ws, .idx = wires, .n = n};
    cuzk_pool_run(pool, (n + PW_BLOCK - 1) / PW_BLOCK, gather_block, &g);
    return buf;
}

static int heavy(struct cuzk_pool *pool, const struct cuzk_groth16_pk *pk, const cuzk_fr *w,
                 const struct cuzk_prove_hooks *hooks, int *given_back, struct cuzk_groth16_msms *m,
                 char *stage, size_t stagelen) {
    size_t n = pk->domain_size, nv = pk->n_vars, npub = pk->n_public;
    size_t n_h = cuzk_h_basis_points(pk->h_basis, pk->domain_size);
    int rc;
    int filtered = pk->a_wires || pk->b_wires;
    size_t nq = pk->n_a > pk->n_b ? pk->n_a : pk->n_b;
    cuzk_fr *abc = malloc(3 * n * sizeof *abc);
    cuzk_scalar *h = malloc((n_h ? n_h : 1) * sizeof *h);
    cuzk_scalar *ws = malloc(nv * sizeof *ws);
    cuzk_scalar *wq = filtered ? malloc((nq ? nq : 1) * sizeof *wq) : NULL;
    rc = CUZK_ENOMEM;
    snprintf(stage, stagelen, "host memory");
    if (!abc || !h || !ws || (filtered && !wq)) goto out;
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;

    /* a = A w, b = B w on the key's rows; the rest of the domain zero */
    snprintf(stage, stagelen, "SpMV");
    if ((rc = cuzk_groth16_pk_eval(pool, pk, w, a, b))) goto out;
    snprintf(stage, stagelen, "h");
    if ((rc = cuzk_groth16_pk_h(pool, pk, a, b, c))) goto out;
    cuzk_scalar_batch_from_fr(pool, h, a, n_h);

    cuzk_scalar_batch_from_fr(pool, ws, w, nv);
    /* the MSMs read the scalars: the witness is free for the next partition */
    if (hooks->witness_done) hooks->witness_done(hooks->ctx);
    *given_back = 1;
    snprintf(stage, stagelen, "MSM");
    const cuzk_scalar *sa = query_scalars(pool, ws, pk->a_wires, pk->n_a, wq);
    if ((rc = cuzk_g1_msm(pool, &m->a, pk->a, sa, pk->n_a))) goto out;
    const cuzk_scalar *sb = query_scalars(pool, ws, pk->b_wires, pk->n_b, wq);
    if ((rc = cuzk_g1_msm(pool, &m->b1, pk->b1, sb, pk->n_b)) ||
        (rc = cuzk_g2_msm(pool, &m->b2, pk->b2, sb, pk->n_b)) ||
        (rc = cuzk_g1_msm(pool, &m->c, pk->c, ws + npub + 1, nv - npub - 1)) ||
        (rc = cuzk_g1_msm(pool, &m->h, pk->h, h, n_h)))
        goto out;
    rc = CUZK_OK;
out:
    free(abc);
    free(h);
    free(ws);
    free(wq);
    return rc;
}

static int cpu_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                     const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                     const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                     struct cuzk_prove_info *info, char *err, size_t errlen) {
    static const struct cuzk_prove_hooks none = {0};
    if (!hooks) hooks = &none;
    if (info) memset(info, 0, sizeof *info);
    int rc = CUZK_OK;
    if (n_w != pk->n_vars || !cuzk_fr_is_one(&w[0])) {
        snprintf(err, errlen, "cpu: the witness has %zu values%s, the key wants %u with w[0] = 1",
                 n_w, n_w == pk->n_vars ? " and w[0] != 1" : "", pk->n_vars);
        rc = CUZK_EINVAL;
    } else if (!pk->a || !pk->b1 || !pk->b2 || !pk->c || !pk->h) {
        snprintf(err, errlen, "cpu: the key's points are not in host memory");
        rc = CUZK_EINVAL;
    }
    if (rc) {
        if (hooks->witness_done) hooks->witness_done(hooks->ctx);
        return rc;
    }
    double t0 = cuzk_clock_ms();
    if (hooks->device_begin) hooks->device_begin(hooks->ctx);
    struct cuzk_groth16_msms m;
    char stage[32];
    int given_back = 0;
    rc = heavy(be->impl, pk, w, hooks, &given_back, &m, stage, sizeof stage);
    if (hooks->device_end) hooks->device_end(hooks->ctx);
    if (!given_back && hooks->witness_done) hooks->witness_done(hooks->ctx);
    double t1 = cuzk_clock_ms();
    if (info) {
        info->device_ms = t1 - t0;
        snprintf(info->stages, sizeof info->stages, "total_ms=%.2f", t1 - t0);
    }
    if (rc) {
        snprintf(err, errlen, "cpu: %s: %s", stage, cuzk_strerror(rc));
        return rc;
    }
    cuzk_groth16_assemble(pk, &m, r, s, out);
    return CUZK_OK;
}

/* A proof: a, b, c and h over the domain, the witness as scalars, the gathered scalars of a
 * filtered query, and the MSM scratch of msm/msm.h: 8 bytes a point plus, per pool thread, the
 * sort space, one window's buckets and a batch of 8192 points. A key: the NTT's domain tables
 * (ntt/ntt.h: 32 bytes an element, cached for the life of the process; charged with every key
 * of that size, an over-estimate when two keys share a size). */
static void cpu_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                    struct cuzk_backend_mem *out) {
    unsigned threads = cuzk_pool_size(be->impl);
    uint64_t n = domain, nv = n_vars, m = n > nv ? n : nv;
    unsigned c = 1;
    while (c < 16 && ((uint64_t)1 << c) < m) c++;
    uint64_t sort = 8 * m < ((uint64_t)8 << 20) ? 8 * m : ((uint64_t)8 << 20);
    uint64_t batch = (m < 8192 ? m : 8192) * 400;
    uint64_t per_thread = sort + ((uint64_t)1 << (c - 1)) * sizeof(cuzk_g2_affine) + batch;
    out->proof_host = 4 * n * sizeof(cuzk_fr) + 2 * nv * sizeof(cuzk_scalar) + 8 * m +
                      (uint64_t)threads * per_thread + 64 * 1024;
    out->proof_vram = 0;
    out->key_host = n * sizeof(cuzk_fr);
}

void cuzk_cpu_backend_init(struct cuzk_backend *be, struct cuzk_pool *pool) {
    memset(be, 0, sizeof *be);
    be->name = "cpu";
    be->prove = cpu_prove;
    be->mem = cpu_mem;
    be->impl = pool;
}
