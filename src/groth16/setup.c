#include "groth16/setup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#include "util/pool.h"

/* DESIGN: the setup is three phases. (1) Sequential: secrets, the Lagrange basis at tau (in
 * parallel blocks), and the QAP column values u, v, w by one pass over the constraints. (2) The
 * point sections, cut into blocks of BLOCK points; every block is one pool item that computes
 * its scalars, multiplies fixed-base tables (shared, read-only) and converts to affine with one
 * inversion into its own slice of the output. Workers share nothing writable. On the GPU path
 * the pool computes each section's scalars the same way into one array, and the GPU's batch
 * multiplication of the generator (gpu_msm.h) writes the section's affine points; both paths
 * give the same points, so the same key bytes. A GPU failure falls back to the CPU path, which
 * rewrites every point. (3) Header. */

#define BLOCK 1024
#define FB_WINDOW 8

static int fail(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

enum section { SEC_A, SEC_B1, SEC_B2, SEC_IC, SEC_C, SEC_H, SEC_COUNT };

struct setup_ctx {
    struct cuzk_zkey *z;
    const cuzk_fr *u, *v, *w; /* QAP columns at tau, n_vars each */
    cuzk_fr alpha, beta, delta_inv, tau;
    cuzk_fr omega2;  /* primitive 2n-th root */
    cuzk_fr h_scale; /* (tau^(2n) - 1) / (2n) / delta */
    const cuzk_g1_affine *g1_table;
    const cuzk_g2_affine *g2_table;
    size_t count[SEC_COUNT], first_item[SEC_COUNT + 1];
    int failed;
};

/* scalar of point i of section s (canonical limbs out) */
static void section_scalar(const struct setup_ctx *c, enum section s, size_t i, cuzk_fr *out) {
    size_t var = s == SEC_C ? i + c->z->n_public + 1 : i;
    cuzk_fr t;
    switch (s) {
    case SEC_A: *out = c->u[i]; break;
    case SEC_B1:
    case SEC_B2: *out = c->v[i]; break;
    case SEC_IC:
    case SEC_C:
        cuzk_fr_mul(out, &c->beta, &c->u[var]);
        cuzk_fr_mul(&t, &c->alpha, &c->v[var]);
        cuzk_fr_add(out, out, &t);
        cuzk_fr_add(out, out, &c->w[var]);
        if (s == SEC_C) cuzk_fr_mul(out, out, &c->delta_inv);
        break;
    default: break; /* SEC_H is computed per block (it needs an inversion) */
    }
}

/* The scalars of points [start, start + len) of section s into out. Returns 0, or -1 when out
 * of memory. */
static int section_scalars(const struct setup_ctx *c, enum section s, size_t start, size_t len,
                           cuzk_fr *out) {
    if (s != SEC_H) {
        for (size_t k = 0; k < len; k++) section_scalar(c, s, start + k, &out[k]);
        return 0;
    }
    /* L^(2n)_j(tau) = (tau^(2n) - 1)/(2n) * x_j / (tau - x_j), x_j = omega2^j, j = 2i + 1 */
    cuzk_fr x, step, *den = malloc(len * sizeof *den), *inv = malloc(len * sizeof *inv);
    if (!den || !inv) {
        free(den);
        free(inv);
        return -1;
    }
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
    free(inv);
    free(den);
    return 0;
}

static void setup_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct setup_ctx *c = ctxp;
    enum section s = SEC_A;
    while (item >= c->first_item[s + 1]) s++;
    size_t start = (item - c->first_item[s]) * BLOCK;
    size_t len = c->count[s] - start < BLOCK ? c->count[s] - start : BLOCK;
    cuzk_fr *sc = malloc(len * sizeof *sc);
    void *jac = malloc(len * (s == SEC_B2 ? sizeof(cuzk_g2) : sizeof(cuzk_g1)));
    if (!sc || !jac || section_scalars(c, s, start, len, sc)) {
        c->failed = 1;
        free(sc);
        free(jac);
        return;
    }
    for (size_t k = 0; k < len; k++) {
        uint64_t lim[4];
        cuzk_fr_to_canonical(lim, &sc[k]);
        if (s == SEC_B2)
            cuzk_g2_fb_mul(&((cuzk_g2 *)jac)[k], c->g2_table, FB_WINDOW, lim);
        else
            cuzk_g1_fb_mul(&((cuzk_g1 *)jac)[k], c->g1_table, FB_WINDOW, lim);
    }
    struct cuzk_zkey *z = c->z;
    switch (s) {
    case SEC_A: cuzk_g1_batch_to_affine(z->a + start, jac, len); break;
    case SEC_B1: cuzk_g1_batch_to_affine(z->b1 + start, jac, len); break;
    case SEC_B2: cuzk_g2_batch_to_affine(z->b2 + start, jac, len); break;
    case SEC_IC: cuzk_g1_batch_to_affine(z->ic + start, jac, len); break;
    case SEC_C: cuzk_g1_batch_to_affine(z->c + start, jac, len); break;
    case SEC_H: cuzk_g1_batch_to_affine(z->h + start, jac, len); break;
    default: break;
    }
    free(sc);
    free(jac);
}

/* ---- phase 2 on the GPU ------------------------------------------------------------------- */

/* One section's scalars into one array, a block of BLOCK per pool item. */
struct scalars_job {
    const struct setup_ctx *c;
    enum section s;
    cuzk_fr *out;
    int failed;
};

static void scalars_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct scalars_job *j = ctxp;
    size_t start = item * BLOCK, count = j->c->count[j->s];
    size_t len = count - start < BLOCK ? count - start : BLOCK;
    if (section_scalars(j->c, j->s, start, len, j->out + start)) j->failed = 1;
}

static void wipe(void *p, size_t n);

/* Every point section by the GPU's batch multiplication on `device`. Returns CUZK_OK or an
 * error (CUZK_ENOMEM, or a GPU error: cuzk_gpu_msm_last_error() says more). */
static int points_gpu(struct cuzk_pool *pool, const struct setup_ctx *c, int device) {
    struct cuzk_zkey *z = c->z;
    cuzk_g1_affine g1;
    cuzk_g2_affine g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    size_t nv = z->n_vars;
    int rc;
    /* A and B take u and v as they are */
    if ((rc = cuzk_gpu_g1_batch_mul(device, &g1, c->u, nv, z->a)) ||
        (rc = cuzk_gpu_g1_batch_mul(device, &g1, c->v, nv, z->b1)) ||
        (rc = cuzk_gpu_g2_batch_mul(device, &g2, c->v, nv, z->b2)))
        return rc;
    const enum section rest[3] = {SEC_IC, SEC_C, SEC_H};
    cuzk_g1_affine *dst[3] = {z->ic, z->c, z->h};
    size_t max = 0;
    for (int i = 0; i < 3; i++)
        if (c->count[rest[i]] > max) max = c->count[rest[i]];
    cuzk_fr *buf = malloc(max * sizeof *buf);
    if (!buf) return CUZK_ENOMEM;
    for (int i = 0; i < 3 && !rc; i++) {
        size_t count = c->count[rest[i]];
        if (!count) continue;
        struct scalars_job j = {.c = c, .s = rest[i], .out = buf};
        cuzk_pool_run(pool, (count + BLOCK - 1) / BLOCK, scalars_block, &j);
        rc = j.failed ? CUZK_ENOMEM : cuzk_gpu_g1_batch_mul(device, &g1, buf, count, dst[i]);
    }
    wipe(buf, max * sizeof *buf);
    free(buf);
    return rc;
}

/* Whether phase 2 runs on the GPU (see cuzk_groth16_setup_ex). */
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

struct lagrange_ctx {
    cuzk_fr *lag;
    size_t n;
    cuzk_fr omega, tau, scale; /* scale = (tau^n - 1)/n */
    int failed;
};

/* L_i(tau) = (tau^n - 1)/n * omega^i / (tau - omega^i), one block of BLOCK indices per item */
static void lagrange_block(void *ctxp, size_t item, unsigned worker) {
    (void)worker;
    struct lagrange_ctx *c = ctxp;
    size_t start = item * BLOCK, len = c->n - start < BLOCK ? c->n - start : BLOCK;
    cuzk_fr *den = malloc(len * sizeof *den), x;
    if (!den) {
        c->failed = 1;
        return;
    }
    uint64_t e[1] = {start};
    cuzk_fr_pow(&x, &c->omega, e, 1);
    for (size_t k = 0; k < len; k++) {
        c->lag[start + k] = x;
        cuzk_fr_sub(&den[k], &c->tau, &x);
        cuzk_fr_mul(&x, &x, &c->omega);
    }
    cuzk_fr *inv = malloc(len * sizeof *inv);
    if (!inv) {
        c->failed = 1;
        free(den);
        return;
    }
    cuzk_fr_batch_inv(inv, den, len);
    for (size_t k = 0; k < len; k++) {
        cuzk_fr_mul(&c->lag[start + k], &c->lag[start + k], &inv[k]);
        cuzk_fr_mul(&c->lag[start + k], &c->lag[start + k], &c->scale);
    }
    free(inv);
    free(den);
}

static int random_nonzero(cuzk_fr *x, struct cuzk_rng *rng) {
    do {
        int e = cuzk_fr_random(x, rng);
        if (e) return e;
    } while (cuzk_fr_is_zero(x));
    return CUZK_OK;
}

static void wipe(void *p, size_t n) {
    volatile unsigned char *q = p;
    while (n--) *q++ = 0;
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
        return fail(err, errlen, CUZK_EINVAL, "setup: device %d does not exist", opts->device);
    uint32_t n_public = cuzk_r1cs_n_public(r1cs), n_vars = r1cs->n_wires;
    uint32_t nc = r1cs->n_constraints;
    if (n_vars < n_public + 1)
        return fail(err, errlen, CUZK_EINVAL, "setup: %u wires cannot hold %u public signals",
                    n_vars, n_public);
    /* snarkjs: cirPower = floor(log2(nConstraints + nPublic)) + 1 */
    uint64_t span = (uint64_t)nc + n_public;
    int k = 1;
    while (span >> k) k++;
    if (k > 28)
        return fail(err, errlen, CUZK_ERANGE, "setup: %u constraints need a 2^%d domain (max 2^28)",
                    nc, k);
    size_t n = (size_t)1 << k;

    /* coefficients: A and B terms in constraint order, then one A entry per public row */
    uint64_t n_coefs = n_public + 1;
    for (uint32_t c = 0; c < nc; c++)
        n_coefs += r1cs->lc[3 * (uint64_t)c + 2] - r1cs->lc[3 * (uint64_t)c];
    if (n_coefs > UINT32_MAX) return fail(err, errlen, CUZK_ERANGE, "setup: too many coefficients");
    int rc = cuzk_zkey_alloc(z, n_vars, n_public, (uint32_t)n, (uint32_t)n_coefs);
    if (rc) return fail(err, errlen, rc, "setup: cannot allocate the key");

    /* every secret lives in these and is wiped at out, on success and failure alike */
    cuzk_fr tau, alpha, beta, delta, one;
    struct lagrange_ctx lc = {0};
    struct setup_ctx sc = {0};
    int have_msg = 0; /* err already holds a specific message */
    cuzk_fr_set_one(&one);
    cuzk_fr *lag = malloc(n * sizeof *lag);
    cuzk_fr *uvw = calloc(3 * (size_t)n_vars, sizeof *uvw);
    cuzk_g1_affine *t1 = malloc(cuzk_g1_fb_table_len(FB_WINDOW) * sizeof *t1);
    cuzk_g2_affine *t2 = malloc(cuzk_g2_fb_table_len(FB_WINDOW) * sizeof *t2);
    rc = CUZK_ENOMEM;
    if (!lag || !uvw || !t1 || !t2) goto out;
    if ((rc = random_nonzero(&tau, rng)) || (rc = random_nonzero(&alpha, rng)) ||
        (rc = random_nonzero(&beta, rng)) || (rc = random_nonzero(&delta, rng)))
        goto out;

    /* phase 1: Lagrange basis at tau (tau is not a root of unity: its order is not a power of
     * two with overwhelming probability; checked, since a hit would divide by zero) */
    lc.lag = lag;
    lc.n = n;
    lc.tau = tau;
    cuzk_fr_root_of_unity(&lc.omega, k);
    uint64_t en[1] = {n};
    cuzk_fr_pow(&lc.scale, &tau, en, 1);
    cuzk_fr_sub(&lc.scale, &lc.scale, &one);
    rc = CUZK_EINVAL;
    if (cuzk_fr_is_zero(&lc.scale)) goto out; /* tau^n = 1: astronomically unlikely */
    cuzk_fr n_inv;
    cuzk_fr_from_u64(&n_inv, n);
    cuzk_fr_inv(&n_inv, &n_inv);
    cuzk_fr_mul(&lc.scale, &lc.scale, &n_inv);
    cuzk_pool_run(pool, (n + BLOCK - 1) / BLOCK, lagrange_block, &lc);
    rc = CUZK_ENOMEM;
    if (lc.failed) goto out;

    cuzk_fr *u = uvw, *v = uvw + n_vars, *w = uvw + 2 * (size_t)n_vars;
    cuzk_fr *col[3] = {u, v, w}, t;
    uint32_t ci = 0;
    for (uint32_t c = 0; c < nc; c++) {
        for (int m = 0; m < 3; m++) {
            uint64_t lo = r1cs->lc[3 * (uint64_t)c + m], hi = r1cs->lc[3 * (uint64_t)c + m + 1];
            for (uint64_t e = lo; e < hi; e++) {
                uint32_t s = r1cs->wire[e];
                cuzk_fr_mul(&t, &r1cs->coef[e], &lag[c]);
                cuzk_fr_add(&col[m][s], &col[m][s], &t);
                if (m < 2) {
                    z->coefs[ci].matrix = (uint32_t)m;
                    z->coefs[ci].constraint = c;
                    z->coefs[ci].signal = s;
                    z->coefs[ci].value = r1cs->coef[e];
                    ci++;
                }
            }
        }
    }
    for (uint32_t s = 0; s <= n_public; s++) { /* the public-input rows w_s * 0 = 0 */
        cuzk_fr_add(&u[s], &u[s], &lag[nc + s]);
        z->coefs[ci].matrix = 0;
        z->coefs[ci].constraint = nc + s;
        z->coefs[ci].signal = s;
        z->coefs[ci].value = one;
        ci++;
    }

    /* phase 2: the point sections */
    cuzk_g1_affine g1;
    cuzk_g2_affine g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    if ((rc = cuzk_g1_fb_table_init(t1, &g1, FB_WINDOW)) ||
        (rc = cuzk_g2_fb_table_init(t2, &g2, FB_WINDOW)))
        goto out;
    sc.z = z;
    sc.u = u;
    sc.v = v;
    sc.w = w;
    sc.alpha = alpha;
    sc.beta = beta;
    sc.tau = tau;
    sc.g1_table = t1;
    sc.g2_table = t2;
    cuzk_fr_inv(&sc.delta_inv, &delta);
    cuzk_fr_root_of_unity(&sc.omega2, k + 1);
    uint64_t e2n[1] = {2 * n};
    cuzk_fr_pow(&sc.h_scale, &tau, e2n, 1);
    cuzk_fr_sub(&sc.h_scale, &sc.h_scale, &one);
    cuzk_fr two_n_inv;
    cuzk_fr_from_u64(&two_n_inv, 2 * n);
    cuzk_fr_inv(&two_n_inv, &two_n_inv);
    cuzk_fr_mul(&sc.h_scale, &sc.h_scale, &two_n_inv);
    cuzk_fr_mul(&sc.h_scale, &sc.h_scale, &sc.delta_inv);
    sc.count[SEC_A] = sc.count[SEC_B1] = sc.count[SEC_B2] = n_vars;
    sc.count[SEC_IC] = n_public + 1;
    sc.count[SEC_C] = n_vars - n_public - 1;
    sc.count[SEC_H] = n;
    sc.first_item[0] = 0;
    for (int s = 0; s < SEC_COUNT; s++)
        sc.first_item[s + 1] = sc.first_item[s] + (sc.count[s] + BLOCK - 1) / BLOCK;
    int on_gpu = gpu_wanted(opts, k);
    if (on_gpu && (rc = points_gpu(pool, &sc, opts->device))) {
        const char *why = rc == CUZK_ENOMEM ? "" : cuzk_gpu_msm_last_error();
        if (opts->gpu == CUZK_SETUP_GPU_ONLY) {
            fail(err, errlen, rc, "setup: the GPU failed: %s%s%s", cuzk_strerror(rc),
                 *why ? ": " : "", why);
            have_msg = 1;
            goto out;
        }
        fprintf(stderr, "cuzk: setup: the GPU failed (%s%s%s); computing the points on the CPU\n",
                cuzk_strerror(rc), *why ? ": " : "", why);
        on_gpu = 0;
    }
    if (!on_gpu) {
        cuzk_pool_run(pool, sc.first_item[SEC_COUNT], setup_block, &sc);
        rc = CUZK_ENOMEM;
        if (sc.failed) goto out;
    }

    /* phase 3: the header points; gamma = 1 */
    cuzk_fr ks[3] = {alpha, beta, delta};
    cuzk_g1_affine *dst1[3] = {&z->alpha1, &z->beta1, &z->delta1};
    cuzk_g2_affine *dst2[3] = {NULL, &z->beta2, &z->delta2};
    for (int i = 0; i < 3; i++) {
        uint64_t lim[4];
        cuzk_g1 p1;
        cuzk_g2 p2;
        cuzk_fr_to_canonical(lim, &ks[i]);
        cuzk_g1_fb_mul(&p1, t1, FB_WINDOW, lim);
        cuzk_g1_to_affine(dst1[i], &p1);
        if (dst2[i]) {
            cuzk_g2_fb_mul(&p2, t2, FB_WINDOW, lim);
            cuzk_g2_to_affine(dst2[i], &p2);
        }
        wipe(lim, sizeof lim);
    }
    z->gamma2 = g2;
    memset(z->cs_hash, 0, sizeof z->cs_hash);
    z->n_contributions = 0;
    rc = CUZK_OK;
out:
    wipe(&tau, sizeof tau);
    wipe(&alpha, sizeof alpha);
    wipe(&beta, sizeof beta);
    wipe(&delta, sizeof delta);
    wipe(&lc, sizeof lc);
    wipe(&sc, sizeof sc);
    if (uvw) wipe(uvw, 3 * (size_t)n_vars * sizeof *uvw);
    if (lag) wipe(lag, n * sizeof *lag);
    free(lag);
    free(uvw);
    free(t1);
    free(t2);
    if (rc) {
        cuzk_zkey_free(z);
        return have_msg ? rc : fail(err, errlen, rc, "setup: %s", cuzk_strerror(rc));
    }
    return CUZK_OK;
}
