/* One proof on the CUDA backend (cuda_backend_impl.h): the compute section and the witness
 * buffers. Its DESIGN opens cuda_backend_impl.h. */
#define _GNU_SOURCE
#include "groth16/cuda_backend_impl.h"

#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_points.h"
#include "util/log.h"

/* ---- one proof ---------------------------------------------------------------------------- */

/* Returns from compute with the stage and module recorded in err when call_ fails. */
#define STEP(stage_, mod_, call_)                                                                  \
    do {                                                                                           \
        if ((rc = (call_))) return cuzk_cuda_failed(err, errlen, stage_, mod_, rc);                \
    } while (0)

/* The coset of h's basis and, for the coefficient basis, 1/t there (see h_queue). */
static void h_params(const struct key_entry *k, cuzk_fr *shift, cuzk_fr *t_inv) {
    if (k->h_basis == CUZK_H_COEFF) {
        cuzk_fr one;
        uint64_t e = k->domain;
        cuzk_fr_set_one(&one);
        cuzk_fr_generator(shift);
        cuzk_fr_pow(t_inv, shift, &e, 1);
        cuzk_fr_sub(t_inv, t_inv, &one);
        cuzk_fr_inv(t_inv, t_inv);
    } else {
        cuzk_fr_root_of_unity(shift, k->log_n + 1);
        memset(t_inv, 0, sizeof *t_inv); /* unused */
    }
}

/* h as cuzk_groth16_pk_h computes it, first part: c = a o b (returns after it), then each of
 * a and b to coefficients scaled by the coset's powers and 1/n (two multiplications per
 * element, where the inverse's 1/n and the coset forward's powers took three) and a plain
 * forward transform: the coset evaluations a', b' (snarkjs: the odd 2n-th roots,
 * omega_2n <omega_n>; bellperson: 7 <omega_n>). For snarkjs's basis c goes to its coset
 * evaluations c' the same way (six transforms). For bellperson's coefficient basis c only goes
 * to its coefficients (five): h = coset_inverse((a' o b' - c') / t), the inverse coset transform
 * is linear and takes c' back to c's coefficients, so h = (coset_inverse(a' o b') - c's
 * coefficients) / t, the same values with one transform fewer (h_finish; cuzk_groth16_pk_h
 * takes the same order). The transforms are queued on the NTT context's stream and this returns
 * without waiting for them; h_finish waits. */
static int h_queue(struct cuda_state *st, const struct key_entry *k, void *const vec[3],
                   const cuzk_fr *shift, char *err, size_t errlen) {
    int rc;
    STEP("c = a o b", MOD_G16, cuzk_gpu_g16_mul(st->g16, k->domain));
    const int coeff = k->h_basis == CUZK_H_COEFF, steps = coeff ? 5 : 6;
    for (int i = 0; i < steps; i++) {
        const int inv = i % 2 == 0;
        const enum cuzk_gpu_ntt_kind kind = coeff && i == 4 ? CUZK_GPU_NTT_INVERSE
                                            : inv           ? CUZK_GPU_NTT_INVERSE_TO_COSET
                                                            : CUZK_GPU_NTT_FORWARD;
        if ((rc = cuzk_gpu_ntt_device(st->ntt, vec[i / 2], k->log_n, kind,
                                      kind == CUZK_GPU_NTT_INVERSE_TO_COSET ? shift : NULL))) {
            /* the transforms already queued finish before the device is given back */
            rc = cuzk_cuda_failed(err, errlen, inv ? "inverse NTT" : "coset NTT", MOD_NTT, rc);
            (void)cuzk_gpu_ntt_sync(st->ntt);
            return rc;
        }
    }
    return CUZK_OK;
}

/* The second part: waits for the transforms, then h into A: a' o b' - c', or for a key in
 * bellperson's coefficient basis (coset_inverse(a' o b') - c's coefficients) / t. */
static int h_finish(struct cuda_state *st, const struct key_entry *k, void *const vec[3],
                    const cuzk_fr *shift, const cuzk_fr *t_inv, char *err, size_t errlen) {
    int rc;
    STEP("NTTs", MOD_NTT, cuzk_gpu_ntt_sync(st->ntt));
    if (k->h_basis == CUZK_H_COEFF) {
        STEP("a' o b'", MOD_G16, cuzk_gpu_g16_mul_a(st->g16, k->domain));
        STEP("inverse coset NTT", MOD_NTT,
             cuzk_gpu_ntt_device(st->ntt, vec[0], k->log_n, CUZK_GPU_NTT_COSET_INVERSE, shift));
        STEP("inverse coset NTT", MOD_NTT, cuzk_gpu_ntt_sync(st->ntt));
        STEP("h = (a b - c) / t", MOD_G16, cuzk_gpu_g16_sub_k(st->g16, k->domain, t_inv));
    } else {
        STEP("h = a b - c", MOD_G16, cuzk_gpu_g16_h(st->g16, k->domain));
    }
    return CUZK_OK;
}

/* The MSM of query q (resident, sliced or streamed: cuzk_cuda_query_msm); *windowed = the
 * scalars its windows took. */
#define QUERY_MSM(q_, bases_, s_, n_, out_, windowed_)                                             \
    cuzk_cuda_query_msm(st, k, (q_), (bases_), (s_), (n_), (out_), (windowed_))

/* The MSMs on the witness: A and B over their wires (gathered into S when filtered), B2 in G2,
 * C over the private wires. dense[q]: the scalars each one took through its windows. */
static int witness_msms(struct cuda_state *st, const struct key_entry *k, enum cuzk_gpu_g16_vec wv,
                        struct cuzk_groth16_msms *m, size_t dense[Q_N], struct cuzk_cuda_timing *t,
                        char *err, size_t errlen) {
    struct cuzk_gpu_g16 *g = st->g16;
    const size_t nc = k->n_vars - k->n_public - 1;
    const unsigned char *w = cuzk_gpu_g16_vec(g, wv);
    const void *s = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_S);
    int rc;
    double t1 = cuzk_clock_ms();
    if (k->a_idx) STEP("A gather", MOD_G16, cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, wv, k->a_idx));
    STEP("A MSM", MOD_MSM,
         QUERY_MSM(CUZK_CUDA_Q_A, k->a, k->a_idx ? s : w, k->n_a, &m->a, &dense[Q_A]));
    if (k->b_idx) STEP("B gather", MOD_G16, cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, wv, k->b_idx));
    const void *sb = k->b_idx ? s : w;
    STEP("B1 MSM", MOD_MSM, QUERY_MSM(CUZK_CUDA_Q_B1, k->b1, sb, k->n_b, &m->b1, &dense[Q_B1]));
    double t2 = cuzk_clock_ms();
    STEP("B2 MSM", MOD_MSM, QUERY_MSM(CUZK_CUDA_Q_B2, k->b2, sb, k->n_b, &m->b2, &dense[Q_B2]));
    double t3 = cuzk_clock_ms();
    dense[Q_C] = 0;
    if (nc) {
        STEP("C MSM", MOD_MSM,
             QUERY_MSM(CUZK_CUDA_Q_C, k->c, w + (k->n_public + 1) * sizeof(cuzk_fr), nc, &m->c,
                       &dense[Q_C]));
    } else {
        cuzk_g1_set_inf(&m->c);
    }
    t->msm_ms = (t2 - t1) + (cuzk_clock_ms() - t3);
    t->g2_msm_ms = t3 - t2;
    return CUZK_OK;
}

/* a = A w, b = B w on the CPU, for a key whose plan leaves its rows in host memory (rule 5):
 * on a thread of its own, beside the witness MSMs on the device (they read W, not A or B),
 * into the key's pinned a and b, zeros up to the domain included, as the device's SpMV leaves
 * them; then uploaded into A and B. The plan is lean, so cuzk_cuda_prove holds the witness w
 * until the compute section is over. */
struct host_spmv {
    struct cuzk_pool *pool;
    const struct cuzk_groth16_pk *pk;
    const cuzk_fr *w;
    cuzk_fr *a, *b, *c; /* c: c = a o b too (a tight work space), else NULL */
    size_t n;           /* the domain */
    int rc;
    pthread_t thread;
    int threaded; /* the thread runs (else the SpMV ran on the caller's thread) */
};

static void *host_spmv_run(void *arg) {
    struct host_spmv *h = arg;
    h->rc = cuzk_groth16_pk_eval(h->pool, h->pk, h->w, h->a, h->b);
    if (!h->rc && h->c) cuzk_groth16_hadamard(h->pool, h->a, h->b, h->c, h->n);
    return NULL;
}

/* Starts it (dev_mu held), with c = a o b when with_c (into the third host vector). CUZK_EINVAL
 * with a sentence when the rows are gone from the host. */
static int host_spmv_start(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                           const struct key_entry *k, const cuzk_fr *w, int with_c,
                           struct host_spmv *h, char *err, size_t errlen) {
    if (!pk->cs || !k->ab_host) {
        snprintf(err, errlen,
                 "cuda: the key's A/B rows are not in host memory, and its residency plan "
                 "leaves them there (the SpMV runs on the CPU)");
        return CUZK_EINVAL;
    }
    *h = (struct host_spmv){.pool = st->pool, .pk = pk, .w = w, .a = k->ab_host, .n = k->domain};
    h->b = h->a + k->domain;
    if (with_c) h->c = h->b + k->domain;
    h->threaded = pthread_create(&h->thread, NULL, host_spmv_run, h) == 0;
    if (!h->threaded) host_spmv_run(h); /* no thread to be had: in line, not beside */
    return CUZK_OK;
}

/* Waits for it and, when `upload`, uploads a and b into A and B. */
static int host_spmv_finish(struct cuda_state *st, const struct key_entry *k, struct host_spmv *h,
                            int upload, char *err, size_t errlen) {
    if (h->threaded) pthread_join(h->thread, NULL);
    h->threaded = 0;
    int rc = h->rc;
    if (!upload) return CUZK_OK;
    if (rc) return cuzk_errf(err, errlen, rc, "cuda: SpMV on the CPU: %s", cuzk_strerror(rc));
    struct cuzk_gpu_g16 *g = st->g16;
    STEP("upload of a and b", MOD_G16,
         cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, h->a, k->domain, k->domain));
    STEP("upload of a and b", MOD_G16,
         cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, h->b, k->domain, k->domain));
    STEP("upload of a and b", MOD_G16, cuzk_gpu_g16_wait(g, CUZK_GPU_G16_A));
    STEP("upload of a and b", MOD_G16, cuzk_gpu_g16_wait(g, CUZK_GPU_G16_B));
    return CUZK_OK;
}

/* ---- the tight work space ----------------------------------------------------------------- */

/* One transform of A, queued and waited for (a failure waits for what was queued). */
static int ntt_a(struct cuda_state *st, const struct key_entry *k, void *a,
                 enum cuzk_gpu_ntt_kind kind, const cuzk_fr *shift, char *err, size_t errlen) {
    const int inv = kind != CUZK_GPU_NTT_FORWARD && kind != CUZK_GPU_NTT_COSET_FORWARD;
    int rc = cuzk_gpu_ntt_device(st->ntt, a, k->log_n, kind, shift);
    if (!rc)
        rc = cuzk_gpu_ntt_sync(st->ntt);
    else
        (void)cuzk_gpu_ntt_sync(st->ntt);
    return rc ? cuzk_cuda_failed(err, errlen, inv ? "inverse NTT" : "coset NTT", MOD_NTT, rc)
              : CUZK_OK;
}

/* Uploads n elements of host into v and waits for them. */
static int up_wait(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, const cuzk_fr *host, size_t n,
                   char *err, size_t errlen) {
    int rc = cuzk_gpu_g16_upload(g, v, host, n, n);
    if (!rc) rc = cuzk_gpu_g16_wait(g, v);
    return rc ? cuzk_cuda_failed(err, errlen, "upload for h", MOD_G16, rc) : CUZK_OK;
}

/* h into A in the tight work space (see DESIGN, "Tight work space"): a, b and c are in the key's
 * host vectors. The transforms run in A, with B as their scratch and W as their twiddle table
 * (rebuilt by the first: the witness was there), one vector at a time: c to its coefficients
 * (bellperson's basis) or coset evaluations (snarkjs's) and a to a', each read back over its
 * input in host memory; b to b', left in A; a' into B and A = a' o b'; for the coefficient
 * basis the inverse coset transform of A; c's result into C (B's room: B is free once the
 * transforms are over) and h = (A - C) k, with k = 1/t or 1. The same values as h_queue and
 * h_finish, vector for vector. *mb: the megabytes that crossed the link. */
static int h_tight(struct cuda_state *st, const struct key_entry *k, cuzk_fr *ha,
                   const cuzk_fr *shift, const cuzk_fr *t_inv, double *mb, char *err,
                   size_t errlen) {
    struct cuzk_gpu_g16 *g = st->g16;
    void *a_dev = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_A);
    const size_t n = k->domain;
    const int coeff = k->h_basis == CUZK_H_COEFF;
    cuzk_fr *hb = ha + n, *hc = hb + n, one;
    cuzk_fr *v[3] = {hc, ha, hb};
    int rc;
    for (int i = 0; i < 3; i++) {
        if ((rc = up_wait(g, CUZK_GPU_G16_A, v[i], n, err, errlen))) return rc;
        if (i == 0 && coeff) {
            rc = ntt_a(st, k, a_dev, CUZK_GPU_NTT_INVERSE, NULL, err, errlen);
        } else if (!(rc = ntt_a(st, k, a_dev, CUZK_GPU_NTT_INVERSE_TO_COSET, shift, err, errlen))) {
            rc = ntt_a(st, k, a_dev, CUZK_GPU_NTT_FORWARD, NULL, err, errlen);
        }
        if (rc) return rc;
        if (i < 2 && (rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, v[i], n)))
            return cuzk_cuda_failed(err, errlen, "read back for h", MOD_G16, rc);
    }
    if ((rc = up_wait(g, CUZK_GPU_G16_B, ha, n, err, errlen))) return rc;
    STEP("a' o b'", MOD_G16, cuzk_gpu_g16_mul_a(g, n));
    if (coeff && (rc = ntt_a(st, k, a_dev, CUZK_GPU_NTT_COSET_INVERSE, shift, err, errlen)))
        return rc;
    if ((rc = up_wait(g, CUZK_GPU_G16_C, hc, n, err, errlen))) return rc;
    cuzk_fr_set_one(&one);
    STEP(coeff ? "h = (a b - c) / t" : "h = a b - c", MOD_G16,
         cuzk_gpu_g16_sub_k(g, n, coeff ? t_inv : &one));
    *mb += 7.0 * (double)(n * sizeof(cuzk_fr)) / 1e6;
    return CUZK_OK;
}

/* The compute section in the tight work space (dev_mu held; see DESIGN): the witness MSMs (the
 * gathered scalars in B's room) beside the CPU's SpMV and c = a o b into the key's host vectors,
 * or after them the device's SpMV read back and c on the CPU; then h_tight and the H MSM. */
static int compute_tight(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                         struct key_entry *k, const cuzk_fr *w, enum cuzk_gpu_g16_vec wv,
                         struct cuzk_groth16_msms *m, size_t dense[Q_N], struct cuzk_cuda_timing *t,
                         char *err, size_t errlen) {
    struct cuzk_gpu_g16 *g = st->g16;
    const size_t n = k->domain;
    int rc;
    /* a key planned before the work space turned tight gets its third vector now */
    if ((rc = cuzk_cuda_key_vectors(st, k, 3 * n * sizeof(cuzk_fr), err, errlen))) return rc;
    cuzk_fr *ha = k->ab_host, *hb = ha + n, shift, t_inv;
    cuzk_gpu_ntt_ctx_twiddles_lost(st->ntt);
    h_params(k, &shift, &t_inv);
    struct host_spmv hs;
    const int host = !k->cs;
    if (host && (rc = host_spmv_start(st, pk, k, w, 1, &hs, err, errlen))) return rc;
    rc = witness_msms(st, k, wv, m, dense, t, err, errlen);
    const double t1 = cuzk_clock_ms();
    if (host) {
        (void)host_spmv_finish(st, k, &hs, 0, err, errlen); /* waits only */
        if (!rc && hs.rc)
            rc = cuzk_errf(err, errlen, hs.rc, "cuda: SpMV on the CPU: %s", cuzk_strerror(hs.rc));
    } else if (!rc) {
        STEP("SpMV", MOD_G16, cuzk_gpu_g16_spmv(g, k->cs, wv, k->n_vars, k->n_pub_rows, n));
        if ((rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, ha, n)) ||
            (rc = cuzk_gpu_g16_download(g, CUZK_GPU_G16_B, hb, n)))
            return cuzk_cuda_failed(err, errlen, "read back of a and b", MOD_G16, rc);
        cuzk_groth16_hadamard(st->pool, ha, hb, hb + n, n);
        t->vec_mb += 2.0 * (double)(n * sizeof(cuzk_fr)) / 1e6;
    }
    if (rc) return rc;
    const double t2 = cuzk_clock_ms();
    t->spmv_ms = t2 - t1;
    if ((rc = h_tight(st, k, ha, &shift, &t_inv, &t->vec_mb, err, errlen))) return rc;
    const double t3 = cuzk_clock_ms();
    t->ntt_ms = t3 - t2;
    STEP("H MSM", MOD_MSM,
         cuzk_cuda_query_msm(st, k, CUZK_CUDA_Q_H, k->h, cuzk_gpu_g16_vec(g, CUZK_GPU_G16_A),
                             k->n_h, &m->h, &dense[Q_H]));
    t->h_msm_ms = cuzk_clock_ms() - t3;
    return CUZK_OK;
}

/* The compute section (dev_mu held): see DESIGN, step 2. With the overlap on, the transforms
 * of h run on the NTT context's stream while the witness MSMs run on the MSM context's; the
 * MSM context's streams have the higher priority, so the transforms take what the MSMs leave
 * of the device (their short kernels, the host's work between them). ntt_ms is then the time
 * c = a o b and the transforms add to the section: c's product and the queueing, and the wait
 * for the transforms after the MSMs, with h. */
static int compute(struct cuda_state *st, const struct cuzk_groth16_pk *pk, struct key_entry *k,
                   const cuzk_fr *w, enum cuzk_gpu_g16_vec wv, struct cuzk_groth16_msms *m,
                   size_t dense[Q_N], struct cuzk_cuda_timing *t, char *err, size_t errlen) {
    const int space = atomic_load(&st->cap_space);
    if (space == SPACE_TIGHT) return compute_tight(st, pk, k, w, wv, m, dense, t, err, errlen);
    void *vec[3] = {cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_A),
                    cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_B),
                    cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_C)};
    /* a lean work space: the gathered scalars live in C's room and the twiddle table in W's,
     * which this proof's witness upload wrote over: the transforms come after the witness MSMs
     * (see DESIGN) and build the table again first */
    const int lean = space == SPACE_LEAN;
    const int overlap = atomic_load(&st->overlap) && !lean;
    if (lean) cuzk_gpu_ntt_ctx_twiddles_lost(st->ntt);
    cuzk_fr shift, t_inv;
    int rc;
    double t0 = cuzk_clock_ms();
    struct host_spmv hs;
    const int host = !k->cs; /* rule 5: a lean plan, so no overlap below */
    if (!host)
        STEP("SpMV", MOD_G16,
             cuzk_gpu_g16_spmv(st->g16, k->cs, wv, k->n_vars, k->n_pub_rows, k->domain));
    else if ((rc = host_spmv_start(st, pk, k, w, 0, &hs, err, errlen)))
        return rc;
    double t1 = cuzk_clock_ms();
    t->spmv_ms = t1 - t0;
    h_params(k, &shift, &t_inv);
    if (host) { /* the witness MSMs beside the CPU's SpMV; spmv_ms: what it adds after them */
        rc = witness_msms(st, k, wv, m, dense, t, err, errlen);
        const double t2 = cuzk_clock_ms();
        const int up = host_spmv_finish(st, k, &hs, !rc, err, errlen);
        if (!rc) rc = up;
        if (!rc) t->vec_mb = 2.0 * (double)(k->domain * sizeof(cuzk_fr)) / 1e6;
        const double t3 = cuzk_clock_ms();
        t->spmv_ms += t3 - t2;
        if (rc || (rc = h_queue(st, k, vec, &shift, err, errlen))) return rc;
        t->ntt_ms = cuzk_clock_ms() - t3;
    } else if (overlap) {
        if ((rc = h_queue(st, k, vec, &shift, err, errlen))) return rc;
        t->ntt_ms = cuzk_clock_ms() - t1;
        if ((rc = witness_msms(st, k, wv, m, dense, t, err, errlen))) {
            (void)cuzk_gpu_ntt_sync(st->ntt); /* nothing of this proof runs after it returns */
            return rc;
        }
    } else {
        if ((rc = witness_msms(st, k, wv, m, dense, t, err, errlen))) return rc;
        double t2 = cuzk_clock_ms();
        if ((rc = h_queue(st, k, vec, &shift, err, errlen))) return rc;
        t->ntt_ms = cuzk_clock_ms() - t2;
    }
    double t3 = cuzk_clock_ms();
    if ((rc = h_finish(st, k, vec, &shift, &t_inv, err, errlen))) return rc;
    double t4 = cuzk_clock_ms();
    t->ntt_ms += t4 - t3;
    STEP("H MSM", MOD_MSM, QUERY_MSM(CUZK_CUDA_Q_H, k->h, vec[0], k->n_h, &m->h, &dense[Q_H]));
    t->h_msm_ms = cuzk_clock_ms() - t4;
    return CUZK_OK;
}

#undef QUERY_MSM
#undef STEP

static void stage_line(const struct cuzk_cuda_timing *t, char *out, size_t len) {
    snprintf(out, len,
             "slot_wait_ms=%.2f upload_ms=%.2f lock_wait_ms=%.2f key_upload_ms=%.2f spmv_ms=%.2f "
             "msm_ms=%.2f g2_msm_ms=%.2f ntt_ms=%.2f h_msm_ms=%.2f fold_ms=%.2f "
             "gpu_total_ms=%.2f total_ms=%.2f link_mb=%.1f link_ms=%.2f vec_mb=%.1f",
             t->slot_wait_ms, t->upload_ms, t->lock_wait_ms, t->key_upload_ms, t->spmv_ms,
             t->msm_ms, t->g2_msm_ms, t->ntt_ms, t->h_msm_ms, t->fold_ms, t->gpu_total_ms,
             t->total_ms, t->link_mb, t->link_ms, t->vec_mb);
}

int cuzk_cuda_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                    const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                    const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                    struct cuzk_prove_info *info, char *err, size_t errlen) {
    static const struct cuzk_prove_hooks none = {0};
    struct cuda_state *st = be->impl;
    if (!hooks) hooks = &none;
    if (info) memset(info, 0, sizeof *info);
    struct cuzk_cuda_timing t;
    memset(&t, 0, sizeof t);
    double t0 = cuzk_clock_ms();
    int rc = CUZK_OK;
    if (!st || n_w != pk->n_vars || !cuzk_fr_is_one(&w[0])) {
        snprintf(err, errlen, "cuda: the witness has %zu values%s, the key wants %u with w[0] = 1",
                 n_w, n_w == pk->n_vars ? " and w[0] != 1" : "", pk->n_vars);
        rc = CUZK_EINVAL;
    } else if (pk->log_n > CUZK_GPU_NTT_MAX_LOG) {
        snprintf(err, errlen, "cuda: a domain of 2^%d is above the GPU NTT's 2^%d", pk->log_n,
                 CUZK_GPU_NTT_MAX_LOG);
        rc = CUZK_EUNSUPPORTED;
    }
    if (rc) {
        if (hooks->witness_done) hooks->witness_done(hooks->ctx);
        return rc;
    }

    /* 1. a free slot whose work objects fit the key (grown, or rebuilt after a GPU failure,
     * with no slot taken): the check needs no device lock, so a proof uploads its witness while
     * another computes. A failure elsewhere can break the objects again between the growth and
     * the next slot: a few tries, then the error. */
    int slot = -1;
    for (int tries = 0; !rc; tries++) {
        slot = cuzk_cuda_slot_acquire(st, hooks->priority);
        if (cuzk_cuda_work_fits_pk(st, pk)) break;
        cuzk_cuda_slot_release(st, slot);
        slot = -1;
        if (tries == 3) {
            snprintf(err, errlen, "cuda: the device's work objects failed %d times in a row",
                     tries);
            rc = CUZK_EGPU;
        } else if (!(rc = cuzk_cuda_never_fits(st, pk, "cuda", err, errlen))) {
            rc = cuzk_cuda_work_grow(st, pk, err, errlen);
        }
    }
    if (rc) {
        if (hooks->witness_done) hooks->witness_done(hooks->ctx);
        return rc;
    }
    double t1 = cuzk_clock_ms();
    t.slot_wait_ms = t1 - t0;
    enum cuzk_gpu_g16_vec wv = slot ? CUZK_GPU_G16_W1 : CUZK_GPU_G16_W;
    float up = 0;
    /* the work area is not resized while a slot is taken (see DESIGN) */
    struct cuzk_gpu_g16 *g = st->g16;
    if ((rc = cuzk_gpu_g16_upload(g, wv, w, n_w, n_w)) ||
        (rc = cuzk_gpu_g16_upload_ms_of(g, wv, &up))) {
        cuzk_cuda_failed(err, errlen, "upload of the witness", MOD_G16, rc);
        /* a CUDA failure: the area is unusable (see compute's) */
        if (rc != CUZK_EINVAL) atomic_store(&st->broken, 1);
    }
    t.upload_ms = up;
    /* a lean work space keeps the witness until the compute section is over: a plan with the
     * rows in host memory reads it there for the CPU's SpMV (host_spmv), and its one slot lets
     * no other witness in meanwhile anyway */
    const int hold_w = atomic_load(&st->cap_space) != SPACE_FULL;
    if (hooks->witness_done && !hold_w) hooks->witness_done(hooks->ctx);

    /* 2. the compute section */
    struct cuzk_groth16_msms m;
    size_t dense[Q_N] = {0};
    if (!rc) {
        double t2 = cuzk_clock_ms();
        pthread_mutex_lock(&st->dev_mu);
        double t3 = cuzk_clock_ms();
        t.lock_wait_ms = t3 - t2;
        if (hooks->device_begin) hooks->device_begin(hooks->ctx);
        /* a key proved before it was uploaded (tests, the CLI), or dropped since, is made
         * resident now, inside the compute section (it occupies the device) */
        struct key_entry *k = NULL;
        if (atomic_load(&st->broken)) {
            snprintf(err, errlen,
                     "cuda: the device failed in another proof; its contexts are "
                     "being rebuilt");
            rc = CUZK_EGPU;
        } else if (!(rc = cuzk_cuda_key_resident_locked(st, pk, &k, &t.key_upload_ms, err,
                                                        errlen))) {
            if (t.key_upload_ms > 0)
                cuzk_log_info("cuda", "device %d: key resident (%llu bytes, %.1f s)", st->device,
                              (unsigned long long)k->bytes, t.key_upload_ms / 1e3);
            size_t lb0 = 0, lb1 = 0;
            double lm0 = 0, lm1 = 0;
            cuzk_gpu_streamer_copied(st->streamer, &lb0, &lm0);
            rc = compute(st, pk, k, w, wv, &m, dense, &t, err, errlen);
            cuzk_gpu_streamer_copied(st->streamer, &lb1, &lm1);
            t.link_mb = (double)(lb1 - lb0) / 1e6;
            t.link_ms = lm1 - lm0;
            if (!rc && !k->learned) { /* the key's first proof: its dense queries (DESIGN) */
                const double tf = cuzk_clock_ms();
                k->dense_b2 = dense[Q_B2];
                if (cuzk_cuda_fold_dense(st, k, dense)) atomic_store(&st->broken, 1);
                t.fold_ms = cuzk_clock_ms() - tf;
            }
            if (!rc) {
                cuzk_cuda_presum_regain(st);
                cuzk_cuda_presum_g2(st, k);
            }
        }
        /* after a GPU failure the contexts may be unusable: rebuilt before the next proof, once
         * no slot is taken (another proof may be uploading into the area now) */
        if (rc && rc != CUZK_EINVAL && rc != CUZK_EGPUOOM && rc != CUZK_ENOMEM &&
            rc != CUZK_EUNSUPPORTED)
            atomic_store(&st->broken, 1);
        if (hooks->device_end) hooks->device_end(hooks->ctx);
        pthread_mutex_unlock(&st->dev_mu);
        t.gpu_total_ms = cuzk_clock_ms() - t3;
    }
    if (hooks->witness_done && hold_w) hooks->witness_done(hooks->ctx);
    cuzk_cuda_slot_release(st, slot);
    t.total_ms = cuzk_clock_ms() - t0;
    if (info) {
        info->lock_ms = t.lock_wait_ms + t.slot_wait_ms;
        info->device_ms = t.gpu_total_ms;
        stage_line(&t, info->stages, sizeof info->stages);
    }
    if (rc) return rc;
    cuzk_groth16_assemble(pk, &m, r, s, out);
    pthread_mutex_lock(&st->info_mu);
    st->last = t;
    st->have_last = 1;
    pthread_mutex_unlock(&st->info_mu);
    atomic_fetch_add(&st->proofs, 1);
    return CUZK_OK;
}

void cuzk_cuda_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                   struct cuzk_backend_mem *out) {
    (void)be;
    (void)n_vars;
    (void)domain;
    /* everything a proof uses on the device is reserved at the key's upload; on the host it
     * allocates nothing but its stack */
    memset(out, 0, sizeof *out);
}

int cuzk_cuda_witness_alloc(const struct cuzk_backend *be, size_t n, cuzk_fr **out) {
    struct cuda_state *st = be->impl;
    void *p;
    int rc = cuzk_gpu_pinned_alloc(n * sizeof(cuzk_fr), &p);
    if (rc) return rc;
    atomic_fetch_add(&st->pinned, n * sizeof(cuzk_fr));
    *out = p;
    return CUZK_OK;
}

void cuzk_cuda_witness_free(const struct cuzk_backend *be, cuzk_fr *w, size_t n) {
    struct cuda_state *st = be->impl;
    cuzk_gpu_pinned_free(w, n * sizeof(cuzk_fr));
    atomic_fetch_sub(&st->pinned, n * sizeof(cuzk_fr));
}
