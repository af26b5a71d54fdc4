/* The development setup (contract and DESIGN: setup.h). */
#include "groth16/setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "groth16/cuda_backend.h"
#include "groth16/groth16.h"
#include "util/log.h"
#include "util/pool.h"

#define BLOCK 1024   /* points (or scalars) per pool item */
#define FB_WINDOW 8  /* the CPU's fixed-base tables */
#define MAX_LOG_N 28 /* the largest domain the setup makes */

static void wipe(void *p, size_t n) {
    volatile unsigned char *q = p;
    while (n--) *q++ = 0;
}

uint32_t cuzk_groth16_domain_for(uint64_t n_rows, uint64_t n_public) {
    /* snarkjs: cirPower = floor(log2(nConstraints + nPublic)) + 1 */
    uint64_t span = n_rows + n_public;
    int k = 1;
    while (k < 63 && (span >> k)) k++;
    return k > MAX_LOG_N ? 0 : (uint32_t)1 << k;
}

/* ---- phase 1: secrets, the Lagrange basis, the QAP columns ------------------------------- */

enum section { SEC_A, SEC_B1, SEC_B2, SEC_IC, SEC_C, SEC_H, SEC_COUNT };

struct setup_ctx {
    const struct cuzk_cs *cs;
    uint32_t n_vars, n_public, n, n_a, n_b;
    int log_n;
    const uint32_t *a_wires, *b_wires; /* NULL: every wire */
    cuzk_fr *lag;                      /* L_i(tau), i < n */
    cuzk_fr *u, *v, *w;                /* the QAP columns at tau, n_vars each */
    cuzk_fr tau, alpha, beta, delta, delta_inv;
    enum cuzk_h_basis h_basis;
    cuzk_fr omega2;  /* primitive 2n-th root */
    cuzk_fr h_scale; /* snarkjs: (tau^(2n) - 1) / (2n) / delta; coefficients: t(tau) / delta */
};

struct lagrange_ctx {
    cuzk_fr *lag;
    size_t n;
    cuzk_fr omega, tau, scale; /* scale = (tau^n - 1)/n */
};

/* L_i(tau) = (tau^n - 1)/n * omega^i / (tau - omega^i), one block of BLOCK indices per item */
static void lagrange_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct lagrange_ctx *c = ctxp;
    size_t start = item * BLOCK, len = c->n - start < BLOCK ? c->n - start : BLOCK;
    cuzk_fr den[BLOCK], inv[BLOCK], x;
    uint64_t e[1] = {start};
    cuzk_fr_pow(&x, &c->omega, e, 1);
    for (size_t k = 0; k < len; k++) {
        c->lag[start + k] = x;
        cuzk_fr_sub(&den[k], &c->tau, &x);
        cuzk_fr_mul(&x, &x, &c->omega);
    }
    cuzk_fr_batch_inv(inv, den, len);
    for (size_t k = 0; k < len; k++) {
        cuzk_fr_mul(&c->lag[start + k], &c->lag[start + k], &inv[k]);
        cuzk_fr_mul(&c->lag[start + k], &c->lag[start + k], &c->scale);
    }
    wipe(den, sizeof den);
}

/* u, v, w over the columns [lo, hi) of one item: every row scanned, only its columns added */
struct columns_ctx {
    struct setup_ctx *c;
    size_t items;
};

static void columns_item(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct columns_ctx *cc = ctxp;
    struct setup_ctx *c = cc->c;
    const struct cuzk_cs *cs = c->cs;
    const uint32_t lo = (uint32_t)((uint64_t)c->n_vars * item / cc->items);
    const uint32_t hi = (uint32_t)((uint64_t)c->n_vars * (item + 1) / cc->items);
    if (lo == hi) return;
    cuzk_fr *col[3] = {c->u, c->v, c->w}, t;
    const cuzk_fr *coefs = cs->coefs.v;
    for (int m = 0; m < 3; m++) {
        const struct cuzk_cs_csr *x = &cs->m[m];
        size_t row = 0;
        for (uint64_t k = 0; k < x->nnz; k++) {
            const uint32_t j = x->col[k];
            if (j < lo || j >= hi) continue;
            while (x->row_ptr[row + 1] <= k) row++;
            cuzk_fr *acc = &col[m][j];
            const uint32_t ci = x->coef[k];
            if (ci == CUZK_CS_COEF_ONE) {
                cuzk_fr_add(acc, acc, &c->lag[row]);
            } else if (ci == CUZK_CS_COEF_MINUS_ONE) {
                cuzk_fr_sub(acc, acc, &c->lag[row]);
            } else {
                cuzk_fr_mul(&t, &coefs[ci], &c->lag[row]);
                cuzk_fr_add(acc, acc, &t);
            }
        }
    }
    /* the public-input rows w_s * 0 = 0 (s = 0 .. n_public), after the constraints */
    for (uint32_t s = lo; s < hi && s <= c->n_public; s++)
        cuzk_fr_add(&c->u[s], &c->u[s], &c->lag[cs->n_rows + s]);
}

static int random_nonzero(cuzk_fr *x, struct cuzk_rng *rng) {
    do {
        int e = cuzk_fr_random(x, rng);
        if (e) return e;
    } while (cuzk_fr_is_zero(x));
    return CUZK_OK;
}

/* Phase 1 into c (secrets, lag, u, v, w, the derived constants). */
static int phase1(struct cuzk_pool *pool, struct setup_ctx *c, struct cuzk_rng *rng, char *err,
                  size_t errlen) {
    const struct cuzk_cs *cs = c->cs;
    c->n = cuzk_groth16_domain_for(cs->n_rows, c->n_public);
    if (!c->n)
        return cuzk_errf(err, errlen, CUZK_ERANGE,
                         "setup: %zu constraints need a domain above 2^%d", cs->n_rows, MAX_LOG_N);
    if (cuzk_groth16_domain_log(c->n, &c->log_n))
        return cuzk_errf(err, errlen, CUZK_ERANGE, "setup: bad domain %u", c->n);
    size_t n = c->n, nv = c->n_vars;
    c->lag = malloc(n * sizeof *c->lag);
    c->u = calloc(3 * nv, sizeof *c->u);
    if (!c->lag || !c->u) return cuzk_errf(err, errlen, CUZK_ENOMEM, "setup: out of memory");
    c->v = c->u + nv;
    c->w = c->u + 2 * nv;
    int rc;
    if ((rc = random_nonzero(&c->tau, rng)) || (rc = random_nonzero(&c->alpha, rng)) ||
        (rc = random_nonzero(&c->beta, rng)) || (rc = random_nonzero(&c->delta, rng)))
        return cuzk_errf(err, errlen, rc, "setup: randomness: %s", cuzk_strerror(rc));

    /* tau is not a root of unity (its order is not a power of two with overwhelming
     * probability; checked, since a hit would divide by zero) */
    struct lagrange_ctx lc = {.lag = c->lag, .n = n, .tau = c->tau};
    cuzk_fr one;
    cuzk_fr_set_one(&one);
    cuzk_fr_root_of_unity(&lc.omega, c->log_n);
    uint64_t en[1] = {n};
    cuzk_fr_pow(&lc.scale, &c->tau, en, 1);
    cuzk_fr_sub(&lc.scale, &lc.scale, &one);
    if (cuzk_fr_is_zero(&lc.scale))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: tau is a root of unity (retry)");
    cuzk_fr n_inv;
    cuzk_fr_from_u64(&n_inv, n);
    cuzk_fr_inv(&n_inv, &n_inv);
    cuzk_fr_mul(&lc.scale, &lc.scale, &n_inv);
    cuzk_pool_run(pool, (n + BLOCK - 1) / BLOCK, lagrange_block, &lc);
    wipe(&lc, sizeof lc);

    unsigned threads = cuzk_pool_size(pool);
    struct columns_ctx cc = {.c = c, .items = threads > 1 ? threads : 1};
    if (cc.items > nv) cc.items = nv;
    cuzk_pool_run(pool, cc.items, columns_item, &cc);

    cuzk_fr_inv(&c->delta_inv, &c->delta);
    if (c->h_basis == CUZK_H_COEFF) { /* t(tau) / delta = (tau^n - 1) / delta */
        cuzk_fr_pow(&c->h_scale, &c->tau, en, 1);
        cuzk_fr_sub(&c->h_scale, &c->h_scale, &one);
        cuzk_fr_mul(&c->h_scale, &c->h_scale, &c->delta_inv);
        return CUZK_OK;
    }
    cuzk_fr_root_of_unity(&c->omega2, c->log_n + 1);
    uint64_t e2n[1] = {2 * (uint64_t)n};
    cuzk_fr_pow(&c->h_scale, &c->tau, e2n, 1);
    cuzk_fr_sub(&c->h_scale, &c->h_scale, &one);
    cuzk_fr two_n_inv;
    cuzk_fr_from_u64(&two_n_inv, 2 * (uint64_t)n);
    cuzk_fr_inv(&two_n_inv, &two_n_inv);
    cuzk_fr_mul(&c->h_scale, &c->h_scale, &two_n_inv);
    cuzk_fr_mul(&c->h_scale, &c->h_scale, &c->delta_inv);
    return CUZK_OK;
}

static void ctx_wipe(struct setup_ctx *c) {
    if (c->u) wipe(c->u, 3 * (size_t)c->n_vars * sizeof *c->u);
    if (c->lag) wipe(c->lag, (size_t)c->n * sizeof *c->lag);
    free(c->u);
    free(c->lag);
    wipe(c, sizeof *c);
}

/* ---- phase 2: the sections ---------------------------------------------------------------- */

static size_t section_count(const struct setup_ctx *c, enum section s) {
    switch (s) {
    case SEC_A: return c->n_a;
    case SEC_B1:
    case SEC_B2: return c->n_b;
    case SEC_IC: return (size_t)c->n_public + 1;
    case SEC_C: return (size_t)c->n_vars - c->n_public - 1;
    default: return cuzk_h_basis_points(c->h_basis, c->n);
    }
}

/* The scalars of points [start, start + len) of section s into out (len <= BLOCK). */
static void section_scalars(const struct setup_ctx *c, enum section s, size_t start, size_t len,
                            cuzk_fr *out) {
    if (s == SEC_H && c->h_basis == CUZK_H_COEFF) {
        /* tau^i t(tau) / delta, i = start .. start + len - 1 */
        cuzk_fr x;
        uint64_t e[1] = {start};
        cuzk_fr_pow(&x, &c->tau, e, 1);
        cuzk_fr_mul(&x, &x, &c->h_scale);
        for (size_t k = 0; k < len; k++) {
            out[k] = x;
            cuzk_fr_mul(&x, &x, &c->tau);
        }
        wipe(&x, sizeof x);
        return;
    }
    if (s == SEC_H) {
        /* L^(2n)_j(tau) = (tau^(2n) - 1)/(2n) * x_j / (tau - x_j), x_j = omega2^j, j = 2i + 1 */
        cuzk_fr x, step, den[BLOCK], inv[BLOCK];
        uint64_t e[1] = {2 * start + 1};
        cuzk_fr_pow(&x, &c->omega2, e, 1);
        cuzk_fr_sqr(&step, &c->omega2);
        for (size_t k = 0; k < len; k++) {
            out[k] = x;
            cuzk_fr_sub(&den[k], &c->tau, &x);
            cuzk_fr_mul(&x, &x, &step);
        }
        cuzk_fr_batch_inv(inv, den, len);
        for (size_t k = 0; k < len; k++) {
            cuzk_fr_mul(&out[k], &out[k], &inv[k]);
            cuzk_fr_mul(&out[k], &out[k], &c->h_scale);
        }
        wipe(den, sizeof den);
        return;
    }
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k;
        cuzk_fr t;
        switch (s) {
        case SEC_A: out[k] = c->u[c->a_wires ? c->a_wires[i] : i]; break;
        case SEC_B1:
        case SEC_B2: out[k] = c->v[c->b_wires ? c->b_wires[i] : i]; break;
        default: { /* IC and C: beta u + alpha v + w (C divided by delta) */
            size_t var = s == SEC_C ? i + c->n_public + 1 : i;
            cuzk_fr_mul(&out[k], &c->beta, &c->u[var]);
            cuzk_fr_mul(&t, &c->alpha, &c->v[var]);
            cuzk_fr_add(&out[k], &out[k], &t);
            cuzk_fr_add(&out[k], &out[k], &c->w[var]);
            if (s == SEC_C) cuzk_fr_mul(&out[k], &out[k], &c->delta_inv);
            break;
        }
        }
    }
}

/* One chunk of a section: scalars (and, on the CPU, points) in blocks of BLOCK on the pool. */
struct chunk_job {
    const struct setup_ctx *c;
    enum section s;
    size_t first, len;
    cuzk_fr *scalars;               /* len */
    void *points;                   /* len affine points (CPU path) */
    const cuzk_g1_affine *g1_table; /* NULL: scalars only */
    const cuzk_g2_affine *g2_table;
    int failed;
};

static void chunk_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct chunk_job *j = ctxp;
    size_t at = item * BLOCK, len = j->len - at < BLOCK ? j->len - at : BLOCK;
    cuzk_fr *sc = j->scalars + at;
    section_scalars(j->c, j->s, j->first + at, len, sc);
    if (!j->g1_table) return;
    int g2 = j->s == SEC_B2;
    void *jac = malloc(len * (g2 ? sizeof(cuzk_g2) : sizeof(cuzk_g1)));
    if (!jac) {
        j->failed = 1;
        return;
    }
    for (size_t k = 0; k < len; k++) {
        uint64_t lim[4];
        cuzk_fr_to_canonical(lim, &sc[k]);
        if (g2)
            cuzk_g2_fb_mul(&((cuzk_g2 *)jac)[k], j->g2_table, FB_WINDOW, lim);
        else
            cuzk_g1_fb_mul(&((cuzk_g1 *)jac)[k], j->g1_table, FB_WINDOW, lim);
        wipe(lim, sizeof lim);
    }
    if (g2)
        cuzk_g2_batch_to_affine((cuzk_g2_affine *)j->points + at, jac, len);
    else
        cuzk_g1_batch_to_affine((cuzk_g1_affine *)j->points + at, jac, len);
    free(jac);
}

/* Whether phase 2 runs on the GPU. */
static int gpu_wanted(const struct cuzk_setup_opts *o, int log_n) {
    switch (o->gpu) {
    case CUZK_SETUP_GPU_OFF: return 0;
    case CUZK_SETUP_GPU_ON:
    case CUZK_SETUP_GPU_ONLY: return 1;
    default: break;
    }
    const char *e = getenv("CUZK_SETUP_GPU");
    if (e && !strcmp(e, "0")) return 0;
    if (e && !strcmp(e, "1")) return 1;
    int count = 0;
    cuzk_gpu_count(&count);
    return o->device < count && log_n >= CUZK_SETUP_GPU_MIN_LOG;
}

/* Where phase 2 writes: the sink (sections A, B1, B2, C, H) and IC into ic. */
struct emit {
    const struct cuzk_setup_opts *opts;
    int on_gpu;
    const struct cuzk_keygen_sink *sink;
    cuzk_g1_affine *ic; /* n_public + 1 */
    cuzk_g1_affine *t1; /* CPU fixed-base tables */
    cuzk_g2_affine *t2;
    cuzk_fr *scalars; /* chunk */
    void *points;     /* chunk G2 affine points (room for either group) */
    size_t chunk;     /* points per chunk: CUZK_KEYGEN_CHUNK, or the largest section */
};

static int emit_section(struct cuzk_pool *pool, const struct setup_ctx *c, struct emit *em,
                        enum section s, char *err, size_t errlen) {
    static const enum cuzk_g16key_section to_key[SEC_COUNT] = {
        CUZK_G16KEY_A, CUZK_G16KEY_B1, CUZK_G16KEY_B2, 0, CUZK_G16KEY_C, CUZK_G16KEY_H};
    size_t count = section_count(c, s);
    cuzk_g1_affine g1;
    cuzk_g2_affine g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    for (size_t first = 0; first < count; first += em->chunk) {
        size_t len = count - first < em->chunk ? count - first : em->chunk;
        void *out = s == SEC_IC ? (void *)(em->ic + first) : em->points;
        struct chunk_job j = {
            .c = c, .s = s, .first = first, .len = len, .scalars = em->scalars, .points = out};
        if (!em->on_gpu) j.g1_table = em->t1, j.g2_table = em->t2;
        cuzk_pool_run(pool, (len + BLOCK - 1) / BLOCK, chunk_block, &j);
        if (j.failed) return cuzk_errf(err, errlen, CUZK_ENOMEM, "setup: out of memory");
        if (em->on_gpu) {
            char why[256] = "";
            int rc = s == SEC_B2 ? cuzk_cuda_batch_mul(em->opts->device, 1, &g2, em->scalars, len,
                                                       out, why, sizeof why)
                                 : cuzk_cuda_batch_mul(em->opts->device, 0, &g1, em->scalars, len,
                                                       out, why, sizeof why);
            if (rc) {
                if (em->opts->gpu == CUZK_SETUP_GPU_ONLY)
                    return cuzk_errf(err, errlen, rc, "setup: the GPU failed: %s", why);
                /* this chunk and the rest on the CPU: the same points (the caller's err is
                 * left alone: it may be NULL, and nothing failed) */
                cuzk_log_warn("setup", "the GPU failed: %s; computing the points on the CPU", why);
                em->on_gpu = 0;
                j.g1_table = em->t1;
                j.g2_table = em->t2;
                cuzk_pool_run(pool, (len + BLOCK - 1) / BLOCK, chunk_block, &j);
                if (j.failed) return cuzk_errf(err, errlen, CUZK_ENOMEM, "setup: out of memory");
            }
        }
        if (s == SEC_IC) continue;
        int rc = em->sink->put(em->sink->ctx, to_key[s], out, len, err, errlen);
        if (rc) return rc;
    }
    return CUZK_OK;
}

/* Phase 2 and 3 over c: the header points into info, IC, then the point sections into sink.
 * The GPU is tried first when wanted; a failure there falls back to the CPU (unless ONLY)
 * from the chunk that failed on. */
static int emit_key(struct cuzk_pool *pool, const struct setup_ctx *c,
                    const struct cuzk_setup_opts *opts, struct cuzk_g16key_info *info,
                    const struct cuzk_keygen_sink *sink, char *err, size_t errlen) {
    struct emit em = {.opts = opts, .sink = sink};
    em.on_gpu = gpu_wanted(opts, c->log_n);
    /* a chunk of the largest section at most: small keys take small buffers */
    em.chunk = CUZK_KEYGEN_CHUNK;
    size_t largest = 0;
    for (int s = 0; s < SEC_COUNT; s++)
        if (section_count(c, (enum section)s) > largest)
            largest = section_count(c, (enum section)s);
    if (largest < em.chunk) em.chunk = largest ? largest : 1;
    em.ic = malloc(((size_t)c->n_public + 1) * sizeof *em.ic);
    em.t1 = malloc(cuzk_g1_fb_table_len(FB_WINDOW) * sizeof *em.t1);
    em.t2 = malloc(cuzk_g2_fb_table_len(FB_WINDOW) * sizeof *em.t2);
    em.scalars = malloc(em.chunk * sizeof *em.scalars);
    em.points = malloc(em.chunk * sizeof(cuzk_g2_affine));
    int rc = CUZK_ENOMEM;
    cuzk_g1_affine g1;
    cuzk_g2_affine g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    if (!em.ic || !em.t1 || !em.t2 || !em.scalars || !em.points) {
        cuzk_errf(err, errlen, rc, "setup: out of memory");
        goto out;
    }
    if ((rc = cuzk_g1_fb_table_init(em.t1, &g1, FB_WINDOW)) ||
        (rc = cuzk_g2_fb_table_init(em.t2, &g2, FB_WINDOW))) {
        cuzk_errf(err, errlen, rc, "setup: fixed-base tables: %s", cuzk_strerror(rc));
        goto out;
    }
    /* phase 3 first: the header points (gamma = 1) and IC go with begin */
    const cuzk_fr ks[3] = {c->alpha, c->beta, c->delta};
    cuzk_g1_affine *dst1[3] = {&info->alpha1, &info->beta1, &info->delta1};
    cuzk_g2_affine *dst2[3] = {NULL, &info->beta2, &info->delta2};
    for (int i = 0; i < 3; i++) {
        uint64_t lim[4];
        cuzk_g1 p1;
        cuzk_g2 p2;
        cuzk_fr_to_canonical(lim, &ks[i]);
        cuzk_g1_fb_mul(&p1, em.t1, FB_WINDOW, lim);
        cuzk_g1_to_affine(dst1[i], &p1);
        if (dst2[i]) {
            cuzk_g2_fb_mul(&p2, em.t2, FB_WINDOW, lim);
            cuzk_g2_to_affine(dst2[i], &p2);
        }
        wipe(lim, sizeof lim);
    }
    info->gamma2 = g2;
    {
        int on_gpu = em.on_gpu;
        em.on_gpu = 0; /* IC is small: the CPU */
        rc = emit_section(pool, c, &em, SEC_IC, err, errlen);
        em.on_gpu = on_gpu;
        if (rc) goto out;
    }
    if ((rc = sink->begin(sink->ctx, info, em.ic, c->a_wires, c->b_wires, err, errlen))) goto out;
    static const enum section order[5] = {SEC_A, SEC_B1, SEC_B2, SEC_C, SEC_H};
    for (int i = 0; i < 5 && !rc; i++) rc = emit_section(pool, c, &em, order[i], err, errlen);
    if (rc) goto out;
    rc = CUZK_OK;
out:
    free(em.ic);
    free(em.t1);
    free(em.t2);
    if (em.scalars) wipe(em.scalars, em.chunk * sizeof *em.scalars);
    free(em.scalars);
    free(em.points);
    return rc;
}

int cuzk_groth16_wire_lists(const struct cuzk_cs *cs, uint32_t **a_wires, uint32_t *n_a,
                            uint32_t **b_wires, uint32_t *n_b) {
    *a_wires = *b_wires = NULL;
    const uint32_t n_vars = cs->n_cols;
    uint8_t *pa = malloc(n_vars ? n_vars : 1), *pb = malloc(n_vars ? n_vars : 1);
    uint32_t *la = NULL, *lb = NULL;
    int rc = CUZK_ENOMEM;
    if (!pa || !pb) goto out;
    size_t na = 0, nb = 0;
    if ((rc = cuzk_cs_density(cs, CUZK_CS_A, pa, NULL)) ||
        (rc = cuzk_cs_density(cs, CUZK_CS_B, pb, NULL)))
        goto out;
    for (uint32_t j = 0; j <= cs->n_public && j < n_vars; j++) pa[j] = 1;
    for (uint32_t j = 0; j < n_vars; j++) na += pa[j], nb += pb[j];
    rc = CUZK_ENOMEM;
    la = malloc((na ? na : 1) * sizeof *la);
    lb = malloc((nb ? nb : 1) * sizeof *lb);
    if (!la || !lb) goto out;
    na = nb = 0;
    for (uint32_t j = 0; j < n_vars; j++) {
        if (pa[j]) la[na++] = j;
        if (pb[j]) lb[nb++] = j;
    }
    *n_a = (uint32_t)na;
    *n_b = (uint32_t)nb;
    *a_wires = la;
    *b_wires = lb;
    la = lb = NULL;
    rc = CUZK_OK;
out:
    free(pa);
    free(pb);
    free(la);
    free(lb);
    return rc;
}

/* The density lists of cs into c (NULL lists and every wire when dense). */
static int density(const struct cuzk_cs *cs, int dense, struct setup_ctx *c, uint32_t **a_out,
                   uint32_t **b_out) {
    *a_out = *b_out = NULL;
    c->n_a = c->n_b = c->n_vars;
    if (dense) return CUZK_OK;
    return cuzk_groth16_wire_lists(cs, a_out, &c->n_a, b_out, &c->n_b);
}

int cuzk_groth16_keygen(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                        const struct cuzk_keygen_opts *opts, const struct cuzk_keygen_sink *sink,
                        char *err, size_t errlen) {
    static const struct cuzk_keygen_opts defaults = {0};
    if (!opts) opts = &defaults;
    if (opts->setup.device < 0)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: device %d does not exist",
                         opts->setup.device);
    if (cs->row_open || cs->n_cols > UINT32_MAX || cs->n_cols < cs->n_public + 1)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: the constraint system is not complete");
    if (opts->h_basis != CUZK_H_SNARKJS && opts->h_basis != CUZK_H_COEFF)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: H basis %d is unknown",
                         (int)opts->h_basis);
    struct setup_ctx c = {.cs = cs,
                          .n_vars = (uint32_t)cs->n_cols,
                          .n_public = (uint32_t)cs->n_public,
                          .h_basis = opts->h_basis};
    uint32_t *aw = NULL, *bw = NULL;
    int rc = density(cs, opts->dense, &c, &aw, &bw);
    if (rc) {
        cuzk_errf(err, errlen, rc, "setup: out of memory");
        goto out;
    }
    c.a_wires = aw;
    c.b_wires = bw;
    if ((rc = phase1(pool, &c, opts->rng, err, errlen))) goto out;
    struct cuzk_g16key_info info;
    memset(&info, 0, sizeof info);
    info.n_vars = c.n_vars;
    info.n_public = c.n_public;
    info.domain_size = c.n;
    info.n_a = c.n_a;
    info.n_b = c.n_b;
    info.chunk_points = opts->chunk_points ? opts->chunk_points : CUZK_G16KEY_CHUNK_DEFAULT;
    info.compressed = opts->compressed;
    info.cs_checksum = opts->cs_checksum;
    info.h_basis = opts->h_basis;
    rc = emit_key(pool, &c, &opts->setup, &info, sink, err, errlen);
out:
    ctx_wipe(&c);
    free(aw);
    free(bw);
    return rc;
}

/* ---- sinks --------------------------------------------------------------------------------- */

uint64_t cuzk_groth16_keydata_bytes(uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                                    uint32_t n_a, uint32_t n_b, int points) {
    const uint64_t g1 = sizeof(cuzk_g1_affine), g2 = sizeof(cuzk_g2_affine);
    uint64_t head = ((uint64_t)n_public + 1) * g1 + ((uint64_t)n_a + n_b) * 4;
    if (!points) return head;
    /* H as domain_size points: the snarkjs basis, one more than the coefficient basis */
    return head + (uint64_t)n_a * g1 + (uint64_t)n_b * (g1 + g2) +
           ((uint64_t)n_vars - n_public - 1) * g1 + (uint64_t)domain_size * g1;
}

void cuzk_groth16_keydata_drop_points(struct cuzk_groth16_keydata *kd) {
    free(kd->a);
    free(kd->b1);
    free(kd->b2);
    free(kd->c);
    free(kd->h);
    kd->a = kd->b1 = kd->c = kd->h = NULL;
    kd->b2 = NULL;
}

void cuzk_groth16_keydata_free(struct cuzk_groth16_keydata *kd) {
    cuzk_groth16_keydata_drop_points(kd);
    free(kd->ic);
    free(kd->a_wires);
    free(kd->b_wires);
    memset(kd, 0, sizeof *kd);
}

/* Allocates the arrays of kd for kd->info (points too when `points`). */
static int keydata_alloc(struct cuzk_groth16_keydata *kd, int points) {
    const struct cuzk_g16key_info *i = &kd->info;
    size_t nc = (size_t)i->n_vars - i->n_public - 1;
    kd->ic = malloc(((size_t)i->n_public + 1) * sizeof *kd->ic);
    kd->a_wires = malloc(((size_t)i->n_a + 1) * sizeof *kd->a_wires);
    kd->b_wires = malloc(((size_t)i->n_b + 1) * sizeof *kd->b_wires);
    if (!kd->ic || !kd->a_wires || !kd->b_wires) return CUZK_ENOMEM;
    if (!points) return CUZK_OK;
    kd->a = malloc(((size_t)i->n_a + 1) * sizeof *kd->a);
    kd->b1 = malloc(((size_t)i->n_b + 1) * sizeof *kd->b1);
    kd->b2 = malloc(((size_t)i->n_b + 1) * sizeof *kd->b2);
    kd->c = malloc((nc + 1) * sizeof *kd->c);
    kd->h = malloc(((size_t)i->domain_size + 1) * sizeof *kd->h);
    return kd->a && kd->b1 && kd->b2 && kd->c && kd->h ? CUZK_OK : CUZK_ENOMEM;
}

struct mem_sink {
    struct cuzk_groth16_keydata *kd;
    size_t at[5]; /* points written per section */
};

static int mem_begin(void *ctx, const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                     const uint32_t *a_wires, const uint32_t *b_wires, char *err, size_t errlen) {
    struct mem_sink *m = ctx;
    struct cuzk_groth16_keydata *kd = m->kd;
    kd->info = *info;
    if (keydata_alloc(kd, 1)) return cuzk_errf(err, errlen, CUZK_ENOMEM, "setup: out of memory");
    memcpy(kd->ic, ic, ((size_t)info->n_public + 1) * sizeof *ic);
    for (uint32_t k = 0; k < info->n_a; k++) kd->a_wires[k] = a_wires ? a_wires[k] : k;
    for (uint32_t k = 0; k < info->n_b; k++) kd->b_wires[k] = b_wires ? b_wires[k] : k;
    return CUZK_OK;
}

static int mem_put(void *ctx, enum cuzk_g16key_section s, const void *points, size_t n, char *err,
                   size_t errlen) {
    struct mem_sink *m = ctx;
    struct cuzk_groth16_keydata *kd = m->kd;
    void *dst[5] = {kd->a, kd->b1, kd->b2, kd->c, kd->h};
    size_t sz = s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    if ((unsigned)s > CUZK_G16KEY_H)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: bad section");
    memcpy((char *)dst[s] + m->at[s] * sz, points, n * sz);
    m->at[s] += n;
    return CUZK_OK;
}

int cuzk_groth16_keygen_mem(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                            const struct cuzk_keygen_opts *opts, struct cuzk_groth16_keydata *out,
                            char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    struct mem_sink m = {.kd = out};
    struct cuzk_keygen_sink sink = {.ctx = &m, .begin = mem_begin, .put = mem_put};
    int rc = cuzk_groth16_keygen(pool, cs, opts, &sink, err, errlen);
    if (rc) cuzk_groth16_keydata_free(out);
    return rc;
}

struct file_sink {
    const char *path;
    struct cuzk_pool *pool;
    struct cuzk_g16key_writer *w;
};

static int file_begin(void *ctx, const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                      const uint32_t *a_wires, const uint32_t *b_wires, char *err, size_t errlen) {
    struct file_sink *f = ctx;
    uint32_t *aw = NULL, *bw = NULL; /* a dense key lists every wire */
    if (!a_wires || !b_wires) {
        aw = malloc(((size_t)info->n_a + 1) * sizeof *aw);
        bw = malloc(((size_t)info->n_b + 1) * sizeof *bw);
        if (!aw || !bw) {
            free(aw);
            free(bw);
            return cuzk_errf(err, errlen, CUZK_ENOMEM, "setup: out of memory");
        }
        for (uint32_t k = 0; k < info->n_a; k++) aw[k] = k;
        for (uint32_t k = 0; k < info->n_b; k++) bw[k] = k;
    }
    int rc = cuzk_g16key_writer_open(&f->w, f->path, info, ic, a_wires ? a_wires : aw,
                                     b_wires ? b_wires : bw, f->pool, err, errlen);
    free(aw);
    free(bw);
    return rc;
}

static int file_put(void *ctx, enum cuzk_g16key_section s, const void *points, size_t n, char *err,
                    size_t errlen) {
    struct file_sink *f = ctx;
    return cuzk_g16key_writer_put(f->w, s, points, n, err, errlen);
}

int cuzk_groth16_keygen_file(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                             const struct cuzk_keygen_opts *opts, const char *path, char *err,
                             size_t errlen) {
    struct file_sink f = {.path = path, .pool = pool};
    struct cuzk_keygen_sink sink = {.ctx = &f, .begin = file_begin, .put = file_put};
    int rc = cuzk_groth16_keygen(pool, cs, opts, &sink, err, errlen);
    if (f.w) {
        if (rc)
            cuzk_g16key_writer_abort(f.w);
        else
            rc = cuzk_g16key_writer_close(f.w, err, errlen);
    }
    return rc;
}

int cuzk_groth16_keydata_load(struct cuzk_groth16_keydata *kd, struct cuzk_g16key *file,
                              struct cuzk_pool *pool, int points, char *err, size_t errlen) {
    memset(kd, 0, sizeof *kd);
    kd->info = *cuzk_g16key_get_info(file);
    int rc = keydata_alloc(kd, points);
    if (rc) {
        cuzk_groth16_keydata_free(kd);
        return cuzk_errf(err, errlen, rc, "key: out of memory for the key's points");
    }
    memcpy(kd->ic, cuzk_g16key_ic(file), ((size_t)kd->info.n_public + 1) * sizeof *kd->ic);
    memcpy(kd->a_wires, cuzk_g16key_a_wires(file), (size_t)kd->info.n_a * sizeof *kd->a_wires);
    memcpy(kd->b_wires, cuzk_g16key_b_wires(file), (size_t)kd->info.n_b * sizeof *kd->b_wires);
    if (points) {
        void *dst[5] = {kd->a, kd->b1, kd->b2, kd->c, kd->h};
        for (int s = CUZK_G16KEY_A; s <= CUZK_G16KEY_H && !rc; s++)
            rc = cuzk_g16key_load(file, (enum cuzk_g16key_section)s, pool, dst[s], err, errlen);
    }
    if (rc) cuzk_groth16_keydata_free(kd);
    return rc;
}

int cuzk_groth16_vk_from_keydata(struct cuzk_snarkjs_vk *vk,
                                 const struct cuzk_groth16_keydata *kd) {
    struct cuzk_groth16_pk pk = {0};
    const struct cuzk_g16key_info *i = &kd->info;
    pk.n_public = i->n_public;
    pk.alpha1 = i->alpha1;
    pk.beta2 = i->beta2;
    pk.gamma2 = i->gamma2;
    pk.delta2 = i->delta2;
    pk.ic = kd->ic;
    return cuzk_groth16_vk_from_pk(vk, &pk);
}

int cuzk_groth16_pk_from_keydata(struct cuzk_groth16_pk *pk, const struct cuzk_groth16_keydata *kd,
                                 const struct cuzk_cs *cs, struct cuzk_g16key *file) {
    memset(pk, 0, sizeof *pk);
    const struct cuzk_g16key_info *i = &kd->info;
    int log_n;
    if (cuzk_groth16_domain_log(i->domain_size, &log_n) || cs->n_cols != i->n_vars ||
        cs->n_public != i->n_public || cs->n_rows + i->n_public + 1 > i->domain_size ||
        i->n_a < i->n_public + 1)
        return CUZK_EFORMAT;
    for (uint32_t s = 0; s <= i->n_public; s++) /* the public-input rows need every public wire */
        if (kd->a_wires[s] != s) return CUZK_EFORMAT;
    pk->n_vars = i->n_vars;
    pk->n_public = i->n_public;
    pk->domain_size = i->domain_size;
    pk->log_n = log_n;
    pk->alpha1 = i->alpha1;
    pk->beta1 = i->beta1;
    pk->delta1 = i->delta1;
    pk->beta2 = i->beta2;
    pk->gamma2 = i->gamma2;
    pk->delta2 = i->delta2;
    pk->ic = kd->ic;
    pk->cs = cs;
    pk->n_pub_rows = i->n_public + 1;
    pk->n_a = i->n_a;
    pk->n_b = i->n_b;
    pk->a_wires = kd->a_wires;
    pk->b_wires = kd->b_wires;
    pk->a = kd->a;
    pk->b1 = kd->b1;
    pk->b2 = kd->b2;
    pk->c = kd->c;
    pk->h = kd->h;
    pk->h_basis = i->h_basis;
    pk->file = file;
    pk->uid = cuzk_groth16_pk_uid();
    return CUZK_OK;
}

/* ---- the snarkjs zkey setup ------------------------------------------------------------------ */

/* A dense key straight into a zkey's arrays. */
struct zkey_sink {
    struct cuzk_zkey *z;
    size_t at[5];
};

static int zkey_begin(void *ctx, const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                      const uint32_t *a_wires, const uint32_t *b_wires, char *err, size_t errlen) {
    (void)a_wires;
    (void)b_wires;
    (void)err;
    (void)errlen;
    struct zkey_sink *k = ctx;
    struct cuzk_zkey *z = k->z;
    z->alpha1 = info->alpha1;
    z->beta1 = info->beta1;
    z->delta1 = info->delta1;
    z->beta2 = info->beta2;
    z->gamma2 = info->gamma2;
    z->delta2 = info->delta2;
    memcpy(z->ic, ic, ((size_t)z->n_public + 1) * sizeof *ic);
    return CUZK_OK;
}

static int zkey_put(void *ctx, enum cuzk_g16key_section s, const void *points, size_t n, char *err,
                    size_t errlen) {
    struct zkey_sink *k = ctx;
    struct cuzk_zkey *z = k->z;
    void *dst[5] = {z->a, z->b1, z->b2, z->c, z->h};
    size_t sz = s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    if ((unsigned)s > CUZK_G16KEY_H)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: bad section");
    memcpy((char *)dst[s] + k->at[s] * sz, points, n * sz);
    k->at[s] += n;
    return CUZK_OK;
}

int cuzk_groth16_setup(struct cuzk_pool *pool, const struct cuzk_r1cs *r1cs, struct cuzk_rng *rng,
                       struct cuzk_zkey *z, char *err, size_t errlen) {
    return cuzk_groth16_setup_ex(pool, r1cs, rng, NULL, z, err, errlen);
}

int cuzk_groth16_setup_ex(struct cuzk_pool *pool, const struct cuzk_r1cs *r1cs,
                          struct cuzk_rng *rng, const struct cuzk_setup_opts *opts,
                          struct cuzk_zkey *z, char *err, size_t errlen) {
    static const struct cuzk_setup_opts defaults = {.gpu = CUZK_SETUP_GPU_AUTO, .device = 0};
    if (!opts) opts = &defaults;
    if (opts->device < 0)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: device %d does not exist", opts->device);
    uint32_t n_public = cuzk_r1cs_n_public(r1cs), n_vars = r1cs->n_wires;
    uint32_t nc = r1cs->n_constraints;
    if (n_vars < n_public + 1)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "setup: %u wires cannot hold %u public signals",
                         n_vars, n_public);
    uint32_t n = cuzk_groth16_domain_for(nc, n_public);
    if (!n)
        return cuzk_errf(err, errlen, CUZK_ERANGE,
                         "setup: %u constraints need a domain above 2^%d (max 2^28)", nc,
                         MAX_LOG_N);

    struct cuzk_cs cs;
    int rc = cuzk_r1cs_to_cs(r1cs, &cs);
    if (rc) return cuzk_errf(err, errlen, rc, "setup: %s", cuzk_strerror(rc));
    /* coefficients: A and B terms in constraint order, then one A entry per public row */
    uint64_t n_coefs = n_public + 1;
    n_coefs += cs.m[CUZK_CS_A].nnz + cs.m[CUZK_CS_B].nnz;
    if (n_coefs > UINT32_MAX) {
        cuzk_cs_free(&cs);
        return cuzk_errf(err, errlen, CUZK_ERANGE, "setup: too many coefficients");
    }
    rc = cuzk_zkey_alloc(z, n_vars, n_public, n, (uint32_t)n_coefs);
    if (rc) {
        cuzk_cs_free(&cs);
        return cuzk_errf(err, errlen, rc, "setup: cannot allocate the key");
    }
    uint32_t ci = 0;
    for (uint32_t c = 0; c < nc; c++)
        for (int m = 0; m < 2; m++) {
            const struct cuzk_cs_csr *x = &cs.m[m];
            for (uint64_t e = x->row_ptr[c]; e < x->row_ptr[c + 1]; e++, ci++) {
                z->coefs[ci].matrix = (uint32_t)m;
                z->coefs[ci].constraint = c;
                z->coefs[ci].signal = x->col[e];
                z->coefs[ci].value = cs.coefs.v[x->coef[e]];
            }
        }
    for (uint32_t s = 0; s <= n_public; s++, ci++) { /* the public-input rows w_s * 0 = 0 */
        z->coefs[ci].matrix = 0;
        z->coefs[ci].constraint = nc + s;
        z->coefs[ci].signal = s;
        cuzk_fr_set_one(&z->coefs[ci].value);
    }

    struct zkey_sink k = {.z = z};
    struct cuzk_keygen_sink sink = {.ctx = &k, .begin = zkey_begin, .put = zkey_put};
    struct cuzk_keygen_opts ko = {.setup = *opts, .rng = rng, .dense = 1};
    rc = cuzk_groth16_keygen(pool, &cs, &ko, &sink, err, errlen);
    cuzk_cs_free(&cs);
    if (rc) {
        cuzk_zkey_free(z);
        return rc;
    }
    memset(z->cs_hash, 0, sizeof z->cs_hash);
    z->n_contributions = 0;
    return CUZK_OK;
}
