/* The CUDA backend of the Groth16 prover (contract: cuda_backend.h).
 *
 * DESIGN
 * Threads. prove_start checks the arguments, records the key, the witness pointer (the caller
 * keeps the witness alive until prove_finish) and the blinding factors, and starts one
 * background thread ("cuzk-gpu-prove") per proof; prove_finish joins it and assembles the proof
 * on the caller's thread, as the CPU backend does. The background thread of a proof:
 *   1. takes a free staging set (pinned host buffers; waits when all CUZK_CUDA_STAGING_SLOTS are
 *      taken) and grows it if the key is larger than any it served;
 *   2. on the pool: a copy of the witness into the pinned buffer (the device MSMs take it in
 *      the Montgomery form it has: no conversion on either side); then it starts one more thread
 * ("cuzk-gpu-spmv") that computes a = A w and b = B w by the SpMV, on the pool, straight into the
 * pinned buffers (rows of the key only: the device zeroes the rest of the domain), and meanwhile
 * waits for the device lock;
 *   3. under the device lock: the work contexts and the key's points made resident if needed;
 *      the upload of the witness; the MSMs A' and B1' (the MSMs on the
 *      witness need no SpMV result, so on an idle GPU they run while the SpMV does); it joins
 *      the SpMV thread and queues the uploads of a and b (asynchronous, copy stream), which move
 *      while the MSMs C' and B2' (G2) run; then c = a o b on the device (the same products the
 *      CPU takes, so c needs no upload), the three inverse and three coset NTTs (the NTT
 *      context's stream), h = a b - c in place of a, and the MSM H' with h read from device
 *      memory. The MSMs run one after another on the MSM context;
 *   4. joins the SpMV thread if step 3 failed before it did, and gives the staging set back.
 * So while one proof holds the GPU, a second one runs its SpMV on the CPU (the daemon runs two
 * GPU workers per device for that overlap), and a proof that finds the GPU idle overlaps its
 * own SpMV with its first MSMs. The pool serialises the CPU work of all of them.
 *
 * Locks (never two held at once): slot_mu guards which staging sets are busy (held only to pick
 * or return one; a busy set belongs to its proof alone, growth included); dev_mu guards every
 * device object (contexts, work area, resident keys) and is held for a proof's whole GPU
 * section, for preload, evict and the per-key query; info_mu guards the last timing and the
 * last error. Totals for cuzk_cuda_backend_stats are atomics, so status readers never wait for
 * the device.
 *
 * Memory. Device: per backend one NTT context, one MSM context (max(n, n_vars) points) and the
 * work area (vectors A, B, W; C is the NTT context's own buffer), created on the first proof
 * and recreated larger only when a larger key comes; the resident points of each key. Host:
 * the pinned staging sets. Nothing on the proof path allocates device or pinned memory once
 * sizes have settled. */
#define _GNU_SOURCE
#include "groth16/cuda_backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "msm/msm.h"
#include "util/pool.h"

/* Pinned host buffers of one proof in flight. */
struct staging {
    cuzk_fr *ab; /* a = ab[0 .. cap_n), b = ab[cap_n .. 2 cap_n) */
    cuzk_fr *ws; /* the witness (Montgomery form, as the device MSMs take it), cap_w */
    size_t cap_n, cap_w;
    int busy;
};

/* What identifies a key's resident points besides its pk pointer (see cuda_backend.h). */
struct key_print {
    const struct cuzk_zkey *z;
    uint32_t n_vars, n_public, domain_size;
    cuzk_g1_affine delta1, a_last, h_first, h_last;
    cuzk_g2_affine b2_last;
};

struct key_entry {
    const struct cuzk_groth16_pk *pk;
    struct key_print print;
    struct cuzk_gpu_bases *a, *b1, *b2, *c, *h; /* c is NULL when the key has no private wire */
    size_t bytes;
    struct key_entry *next;
};

struct cuda_state {
    int device;
    struct cuzk_pool *pool;

    pthread_mutex_t slot_mu;
    pthread_cond_t slot_cv;
    struct staging slot[CUZK_CUDA_STAGING_SLOTS];

    pthread_mutex_t dev_mu;
    struct cuzk_gpu_ntt_ctx *ntt;
    struct cuzk_gpu_msm_ctx *msm;
    struct cuzk_gpu_g16 *g16;
    int cap_log_n; /* the sizes the work objects have (or had, before a GPU failure) */
    size_t cap_w, cap_msm;
    struct key_entry *keys;

    pthread_mutex_t info_mu;
    struct cuzk_cuda_timing last;
    int have_last;
    char last_err[CUZK_CUDA_ERR_LEN];

    atomic_size_t n_keys, bases_vram, work_vram, pinned, proofs;
};

struct cuzk_prove_pending {
    struct cuda_state *st;
    const struct cuzk_groth16_pk *pk;
    const cuzk_fr *w;
    cuzk_fr r, s;
    pthread_t thread;
    double t_start;
    int rc;
    char err[CUZK_CUDA_ERR_LEN]; /* what failed, when rc says so */
    struct cuzk_groth16_msms msms;
    struct cuzk_cuda_timing timing;
};

/* The SpMV of one proof, on its own thread (see DESIGN, step 2). */
struct spmv_job {
    struct cuda_state *st;
    const struct cuzk_groth16_pk *pk;
    const cuzk_fr *w;
    struct staging *sl;
    pthread_t thread;
    int running; /* started and not yet joined */
    int rc;
    double ms;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The GPU module whose last error explains a failure (each keeps it per thread). */
enum gpu_mod { MOD_HOST, MOD_NTT, MOD_MSM, MOD_G16 };

static const char *mod_error(enum gpu_mod m) {
    switch (m) {
    case MOD_NTT: return cuzk_gpu_ntt_last_error();
    case MOD_MSM: return cuzk_gpu_msm_last_error();
    case MOD_G16: return cuzk_gpu_g16_last_error();
    default: return "";
    }
}

/* Records in err what failed (the stage, the code, the module's description) and returns rc. */
static int failed(char *err, const char *stage, enum gpu_mod m, int rc) {
    const char *why = mod_error(m);
    snprintf(err, CUZK_CUDA_ERR_LEN, "%s: %s%s%s", stage, cuzk_strerror(rc), *why ? ": " : "", why);
    return rc;
}

/* ---- staging sets ------------------------------------------------------------------------- */

/* A free set, preferring the largest (sequential proofs keep reusing one set). */
static struct staging *slot_acquire(struct cuda_state *st) {
    pthread_mutex_lock(&st->slot_mu);
    struct staging *best = NULL;
    for (;;) {
        for (int i = 0; i < CUZK_CUDA_STAGING_SLOTS; i++) {
            struct staging *s = &st->slot[i];
            if (!s->busy && (!best || s->cap_n + s->cap_w > best->cap_n + best->cap_w)) best = s;
        }
        if (best) break;
        pthread_cond_wait(&st->slot_cv, &st->slot_mu);
    }
    best->busy = 1;
    pthread_mutex_unlock(&st->slot_mu);
    return best;
}

static void slot_release(struct cuda_state *st, struct staging *s) {
    pthread_mutex_lock(&st->slot_mu);
    s->busy = 0;
    pthread_cond_signal(&st->slot_cv);
    pthread_mutex_unlock(&st->slot_mu);
}

static void slot_free(struct cuda_state *st, struct staging *s) {
    cuzk_gpu_pinned_free(s->ab, 2 * s->cap_n * sizeof *s->ab);
    cuzk_gpu_pinned_free(s->ws, s->cap_w * sizeof *s->ws);
    atomic_fetch_sub(&st->pinned, (2 * s->cap_n * sizeof *s->ab) + s->cap_w * sizeof *s->ws);
    s->ab = NULL;
    s->ws = NULL;
    s->cap_n = s->cap_w = 0;
}

/* Grows a busy set (owned by the caller) to n domain elements and nw scalars. */
static int slot_reserve(struct cuda_state *st, struct staging *s, size_t n, size_t nw) {
    void *p;
    int rc;
    if (s->cap_n < n) {
        cuzk_gpu_pinned_free(s->ab, 2 * s->cap_n * sizeof *s->ab);
        atomic_fetch_sub(&st->pinned, 2 * s->cap_n * sizeof *s->ab);
        s->ab = NULL;
        s->cap_n = 0;
        if ((rc = cuzk_gpu_pinned_alloc(2 * n * sizeof *s->ab, &p))) return rc;
        s->ab = p;
        s->cap_n = n;
        atomic_fetch_add(&st->pinned, 2 * n * sizeof *s->ab);
    }
    if (s->cap_w < nw) {
        cuzk_gpu_pinned_free(s->ws, s->cap_w * sizeof *s->ws);
        atomic_fetch_sub(&st->pinned, s->cap_w * sizeof *s->ws);
        s->ws = NULL;
        s->cap_w = 0;
        if ((rc = cuzk_gpu_pinned_alloc(nw * sizeof *s->ws, &p))) return rc;
        s->ws = p;
        s->cap_w = nw;
        atomic_fetch_add(&st->pinned, nw * sizeof *s->ws);
    }
    return CUZK_OK;
}

/* ---- the work objects (dev_mu held) ------------------------------------------------------- */

static void work_drop(struct cuda_state *st) {
    cuzk_gpu_g16_free(st->g16); /* first: it borrows the NTT context's buffer */
    cuzk_gpu_ntt_ctx_free(st->ntt);
    cuzk_gpu_msm_ctx_free(st->msm);
    st->g16 = NULL;
    st->ntt = NULL;
    st->msm = NULL;
    atomic_store(&st->work_vram, 0);
}

static int work_create(struct cuda_state *st, char *err) {
    int rc;
    if ((rc = cuzk_gpu_ntt_ctx_create(st->device, st->cap_log_n, &st->ntt)))
        return failed(err, "NTT context", MOD_NTT, rc);
    if ((rc = cuzk_gpu_msm_ctx_create(st->device, st->cap_msm, &st->msm))) {
        work_drop(st);
        return failed(err, "MSM context", MOD_MSM, rc);
    }
    if ((rc = cuzk_gpu_g16_create(st->device, (size_t)1 << st->cap_log_n, st->cap_w,
                                  cuzk_gpu_ntt_ctx_buffer(st->ntt), &st->g16))) {
        work_drop(st);
        return failed(err, "work area", MOD_G16, rc);
    }
    atomic_store(&st->work_vram, cuzk_gpu_ntt_ctx_vram(st->cap_log_n) +
                                     cuzk_gpu_msm_ctx_vram(st->cap_msm) +
                                     cuzk_gpu_g16_vram(st->g16));
    return CUZK_OK;
}

static void keys_clear(struct cuda_state *st);

/* Makes the work objects big enough for a domain of 2^log_n and nw witness values. */
static int work_reserve(struct cuda_state *st, int log_n, size_t nw, char *err) {
    size_t n = (size_t)1 << log_n, msm_n = n > nw ? n : nw;
    if (st->g16 && st->cap_log_n >= log_n && st->cap_w >= nw && st->cap_msm >= msm_n)
        return CUZK_OK;
    if (st->cap_log_n < log_n) st->cap_log_n = log_n;
    if (st->cap_w < nw) st->cap_w = nw;
    if (st->cap_msm < msm_n) st->cap_msm = msm_n;
    work_drop(st);
    int rc = work_create(st, err);
    if (rc == CUZK_EGPUOOM && st->keys) { /* resident keys give way to the work space */
        keys_clear(st);
        rc = work_create(st, err);
    }
    return rc;
}

/* ---- resident keys (dev_mu held) ---------------------------------------------------------- */

static void key_print_make(struct key_print *p, const struct cuzk_groth16_pk *pk) {
    const struct cuzk_zkey *z = pk->zkey;
    memset(p, 0, sizeof *p); /* padding included: prints are compared with memcmp */
    p->z = z;
    p->n_vars = z->n_vars;
    p->n_public = z->n_public;
    p->domain_size = z->domain_size;
    p->delta1 = z->delta1;
    p->a_last = z->a[z->n_vars - 1];
    p->h_first = z->h[0];
    p->h_last = z->h[z->domain_size - 1];
    p->b2_last = z->b2[z->n_vars - 1];
}

static void key_entry_free(struct key_entry *e) {
    cuzk_gpu_bases_free(e->a);
    cuzk_gpu_bases_free(e->b1);
    cuzk_gpu_bases_free(e->b2);
    cuzk_gpu_bases_free(e->c);
    cuzk_gpu_bases_free(e->h);
    free(e);
}

static void key_unlink(struct cuda_state *st, struct key_entry **link) {
    struct key_entry *e = *link;
    *link = e->next;
    atomic_fetch_sub(&st->bases_vram, e->bytes);
    atomic_fetch_sub(&st->n_keys, 1);
    key_entry_free(e);
}

static void keys_clear(struct cuda_state *st) {
    while (st->keys) key_unlink(st, &st->keys);
}

static int key_upload(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                      const struct key_print *print, struct key_entry **out) {
    const struct cuzk_zkey *z = pk->zkey;
    size_t nv = z->n_vars, nc = nv - z->n_public - 1;
    struct key_entry *e = calloc(1, sizeof *e);
    if (!e) return CUZK_ENOMEM;
    int rc;
    if ((rc = cuzk_gpu_g1_bases_upload(st->device, z->a, nv, &e->a)) ||
        (rc = cuzk_gpu_g1_bases_upload(st->device, z->b1, nv, &e->b1)) ||
        (rc = cuzk_gpu_g2_bases_upload(st->device, z->b2, nv, &e->b2)) ||
        (nc && (rc = cuzk_gpu_g1_bases_upload(st->device, z->c, nc, &e->c))) ||
        (rc = cuzk_gpu_g1_bases_upload(st->device, z->h, z->domain_size, &e->h))) {
        key_entry_free(e);
        return rc;
    }
    e->pk = pk;
    e->print = *print;
    e->bytes = cuzk_gpu_bases_vram(e->a) + cuzk_gpu_bases_vram(e->b1) + cuzk_gpu_bases_vram(e->b2) +
               (e->c ? cuzk_gpu_bases_vram(e->c) : 0) + cuzk_gpu_bases_vram(e->h);
    *out = e;
    return CUZK_OK;
}

/* *out = pk's resident entry, uploading the points when they are not (or no longer) there. */
static int key_resident(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                        struct key_entry **out, double *upload_ms, char *err) {
    struct key_print print;
    key_print_make(&print, pk);
    *upload_ms = 0;
    for (struct key_entry **l = &st->keys; *l; l = &(*l)->next) {
        if ((*l)->pk != pk) continue;
        if (!memcmp(&(*l)->print, &print, sizeof print)) {
            *out = *l;
            return CUZK_OK;
        }
        key_unlink(st, l); /* another key at the same address: its points are stale */
        break;
    }
    double t0 = now_ms();
    struct key_entry *e;
    int rc = key_upload(st, pk, &print, &e);
    if (rc == CUZK_EGPUOOM && st->keys) {
        keys_clear(st);
        rc = key_upload(st, pk, &print, &e);
    }
    *upload_ms = now_ms() - t0;
    if (rc) return failed(err, "key upload", rc == CUZK_ENOMEM ? MOD_HOST : MOD_MSM, rc);
    e->next = st->keys;
    st->keys = e;
    atomic_fetch_add(&st->bases_vram, e->bytes);
    atomic_fetch_add(&st->n_keys, 1);
    *out = e;
    return CUZK_OK;
}

/* ---- one proof ---------------------------------------------------------------------------- */

/* The witness into pinned staging, in blocks on the pool. */
#define WCOPY_BLOCK ((size_t)1 << 16)
struct wcopy {
    cuzk_fr *out;
    const cuzk_fr *in;
    size_t n;
};

static void wcopy_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct wcopy *c = ctx;
    size_t lo = item * WCOPY_BLOCK, hi = lo + WCOPY_BLOCK < c->n ? lo + WCOPY_BLOCK : c->n;
    memcpy(c->out + lo, c->in + lo, (hi - lo) * sizeof *c->out);
}

static void spmv_run(struct spmv_job *j) {
    double t0 = now_ms();
    struct staging *sl = j->sl;
    j->rc = cuzk_cs_eval(j->st->pool, &j->pk->ab, j->w, sl->ab, sl->ab + sl->cap_n, NULL);
    j->ms = now_ms() - t0;
}

static void *spmv_main(void *arg) {
    spmv_run(arg);
    return NULL;
}

/* Starts the SpMV on its own thread, or runs it here when no thread can be made. */
static void spmv_start(struct spmv_job *j) {
    if (pthread_create(&j->thread, NULL, spmv_main, j) == 0) {
        pthread_setname_np(j->thread, "cuzk-gpu-spmv");
        j->running = 1;
    } else {
        spmv_run(j);
    }
}

/* Waits for the SpMV; its status. */
static int spmv_join(struct spmv_job *j) {
    if (j->running) {
        pthread_join(j->thread, NULL);
        j->running = 0;
    }
    return j->rc;
}

/* Returns from gpu_section with the stage and module recorded when call_ fails. */
#define STEP(stage_, mod_, call_)                                                                  \
    do {                                                                                           \
        if ((rc = (call_))) return failed(p->err, stage_, mod_, rc);                               \
    } while (0)

/* The GPU section of a proof (dev_mu held): see DESIGN, step 3. */
static int gpu_section(struct cuda_state *st, struct cuzk_prove_pending *p, struct staging *sl,
                       struct spmv_job *spmv) {
    const struct cuzk_groth16_pk *pk = p->pk;
    const struct cuzk_zkey *z = pk->zkey;
    size_t n = z->domain_size, nv = z->n_vars, npub = z->n_public, nc = nv - npub - 1;
    size_t rows = pk->ab.n_rows;
    struct cuzk_cuda_timing *t = &p->timing;
    struct cuzk_groth16_msms *m = &p->msms;
    struct key_entry *k;
    int rc;
    if ((rc = work_reserve(st, pk->log_n, nv, p->err)) ||
        (rc = key_resident(st, pk, &k, &t->key_upload_ms, p->err)))
        return rc;
    struct cuzk_gpu_g16 *g = st->g16;
    void *vec[3] = {cuzk_gpu_g16_vec(g, CUZK_GPU_G16_A), cuzk_gpu_g16_vec(g, CUZK_GPU_G16_B),
                    cuzk_gpu_g16_vec(g, CUZK_GPU_G16_C)};
    const unsigned char *vw = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_W);
    const unsigned char *w_private = vw + (npub + 1) * sizeof(cuzk_fr); /* C: wires npub + 1 .. */

    /* the witness: upload, and the first two MSMs on it */
    float up_w = 0, up_ab = 0;
    STEP("upload", MOD_G16, cuzk_gpu_g16_begin(g));
    STEP("upload of the witness", MOD_G16, cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W, sl->ws, nv, nv));
    STEP("upload timing", MOD_G16, cuzk_gpu_g16_upload_ms(g, &up_w)); /* waits for it */
    double t0 = now_ms();
    STEP("A MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->a, 0, vw, nv, &m->a));
    STEP("B1 MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->b1, 0, vw, nv, &m->b1));
    double t1 = now_ms();

    /* a and b from the SpMV: their uploads move while the C and B2 MSMs run */
    if ((rc = spmv_join(spmv))) return failed(p->err, "SpMV", MOD_HOST, rc);
    double t2 = now_ms();
    STEP("upload", MOD_G16, cuzk_gpu_g16_begin(g));
    STEP("upload of a", MOD_G16, cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, sl->ab, rows, n));
    STEP("upload of b", MOD_G16,
         cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, sl->ab + sl->cap_n, rows, n));
    if (nc)
        STEP("C MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->c, 0, w_private, nc, &m->c));
    else
        cuzk_g1_set_inf(&m->c);
    double t3 = now_ms();
    t->msm_ms = (t1 - t0) + (t3 - t2);
    STEP("B2 MSM", MOD_MSM, cuzk_gpu_g2_msm_dev_fr(st->msm, k->b2, 0, vw, nv, &m->b2));
    double t4 = now_ms();
    t->g2_msm_ms = t4 - t3;

    /* c = a o b; to coefficients, then to the odd 2n-th roots (the CPU backend's coset
     * omega_2n); h = a b - c into A */
    STEP("c = a o b", MOD_G16, cuzk_gpu_g16_mul(g, n));
    cuzk_fr shift;
    cuzk_fr_root_of_unity(&shift, pk->log_n + 1);
    for (int i = 0; i < 3; i++) {
        STEP("inverse NTT", MOD_NTT,
             cuzk_gpu_ntt_device(st->ntt, vec[i], pk->log_n, CUZK_GPU_NTT_INVERSE, NULL));
        STEP("coset NTT", MOD_NTT,
             cuzk_gpu_ntt_device(st->ntt, vec[i], pk->log_n, CUZK_GPU_NTT_COSET_FORWARD, &shift));
    }
    STEP("NTTs", MOD_NTT, cuzk_gpu_ntt_sync(st->ntt));
    STEP("h = a b - c", MOD_G16, cuzk_gpu_g16_h(g, n));
    STEP("upload timing", MOD_G16, cuzk_gpu_g16_upload_ms(g, &up_ab));
    double t5 = now_ms();
    t->upload_ms = up_w + up_ab;
    t->ntt_ms = t5 - t4;

    STEP("H MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->h, 0, vec[0], n, &m->h));
    t->h_msm_ms = now_ms() - t5;
    return CUZK_OK;
}

#undef STEP

static int heavy(struct cuzk_prove_pending *p) {
    struct cuda_state *st = p->st;
    const struct cuzk_groth16_pk *pk = p->pk;
    size_t n = pk->zkey->domain_size, nv = pk->zkey->n_vars;
    struct cuzk_cuda_timing *t = &p->timing;

    struct staging *sl = slot_acquire(st);
    int rc = slot_reserve(st, sl, n, nv);
    if (rc) failed(p->err, "pinned staging", MOD_G16, rc);
    double t0 = now_ms();
    t->staging_ms = t0 - p->t_start;
    struct spmv_job spmv = {.st = st, .pk = pk, .w = p->w, .sl = sl};
    double copy_ms = 0;
    if (!rc) {
        struct wcopy wc = {sl->ws, p->w, nv};
        cuzk_pool_run(st->pool, (nv + WCOPY_BLOCK - 1) / WCOPY_BLOCK, wcopy_item, &wc);
        copy_ms = now_ms() - t0;
        spmv_start(&spmv);

        double t1 = now_ms();
        pthread_mutex_lock(&st->dev_mu);
        double t2 = now_ms();
        t->lock_wait_ms = t2 - t1;
        rc = gpu_section(st, p, sl, &spmv);
        /* after any failure the contexts may be unusable (and uploads from the staging set may
         * still be in flight: freeing the work area waits for them) */
        if (rc) work_drop(st);
        pthread_mutex_unlock(&st->dev_mu);
        t->gpu_total_ms = now_ms() - t2;
        spmv_join(&spmv); /* the staging set is the SpMV's until it ends */
    }
    t->spmv_ms = copy_ms + spmv.ms;
    slot_release(st, sl);
    t->total_ms = now_ms() - p->t_start;
    return rc;
}

static void *heavy_main(void *arg) {
    struct cuzk_prove_pending *p = arg;
    p->rc = heavy(p);
    return NULL;
}

static int cuda_prove_start(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                            const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                            struct cuzk_prove_pending **out) {
    struct cuda_state *st = be->impl;
    if (!st || n_w != pk->zkey->n_vars || !cuzk_fr_is_one(&w[0]) || pk->log_n < 1)
        return CUZK_EINVAL;
    if (pk->log_n > CUZK_GPU_NTT_MAX_LOG) return CUZK_EUNSUPPORTED;
    struct cuzk_prove_pending *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ENOMEM;
    p->st = st;
    p->pk = pk;
    p->w = w;
    p->r = *r;
    p->s = *s;
    p->t_start = now_ms();
    if (pthread_create(&p->thread, NULL, heavy_main, p) != 0) {
        free(p);
        return CUZK_ENOMEM;
    }
    pthread_setname_np(p->thread, "cuzk-gpu-prove");
    *out = p;
    return CUZK_OK;
}

static void timing_log(const struct cuzk_cuda_timing *t) {
    const char *e = getenv("CUZK_TIMING_LOG");
    if (!e || strcmp(e, "1")) return;
    fprintf(stderr,
            "CUZK_TIMING: spmv_ms=%.2f upload_ms=%.2f ntt_ms=%.2f h_msm_ms=%.2f msm_ms=%.2f "
            "g2_msm_ms=%.2f lock_wait_ms=%.2f gpu_total_ms=%.2f key_upload_ms=%.2f "
            "staging_ms=%.2f total_ms=%.2f\n",
            t->spmv_ms, t->upload_ms, t->ntt_ms, t->h_msm_ms, t->msm_ms, t->g2_msm_ms,
            t->lock_wait_ms, t->gpu_total_ms, t->key_upload_ms, t->staging_ms, t->total_ms);
}

static int cuda_prove_finish(struct cuzk_prove_pending *p, struct cuzk_snarkjs_proof *out) {
    pthread_join(p->thread, NULL);
    int rc = p->rc;
    struct cuda_state *st = p->st;
    if (!rc) {
        cuzk_groth16_assemble(p->pk->zkey, &p->msms, &p->r, &p->s, out);
        pthread_mutex_lock(&st->info_mu);
        st->last = p->timing;
        st->have_last = 1;
        pthread_mutex_unlock(&st->info_mu);
        atomic_fetch_add(&st->proofs, 1);
        timing_log(&p->timing);
    } else {
        pthread_mutex_lock(&st->info_mu);
        snprintf(st->last_err, sizeof st->last_err, "%s", p->err);
        pthread_mutex_unlock(&st->info_mu);
    }
    memset(p, 0, sizeof *p); /* wipes r and s */
    free(p);
    return rc;
}

/* ---- the backend -------------------------------------------------------------------------- */

int cuzk_cuda_backend_init(struct cuzk_backend *be, int device, struct cuzk_pool *pool) {
    memset(be, 0, sizeof *be);
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) return CUZK_ENODEV;
    if (device < 0 || device >= count) return CUZK_EINVAL;
    struct cuda_state *st = calloc(1, sizeof *st);
    if (!st) return CUZK_ENOMEM;
    st->device = device;
    st->pool = pool;
    pthread_mutex_init(&st->slot_mu, NULL);
    pthread_cond_init(&st->slot_cv, NULL);
    pthread_mutex_init(&st->dev_mu, NULL);
    pthread_mutex_init(&st->info_mu, NULL);
    be->name = "cuda";
    be->prove_start = cuda_prove_start;
    be->prove_finish = cuda_prove_finish;
    be->impl = st;
    return CUZK_OK;
}

void cuzk_cuda_backend_free(struct cuzk_backend *be) {
    struct cuda_state *st = be->impl;
    if (!st) return;
    keys_clear(st);
    work_drop(st);
    for (int i = 0; i < CUZK_CUDA_STAGING_SLOTS; i++) slot_free(st, &st->slot[i]);
    pthread_mutex_destroy(&st->slot_mu);
    pthread_cond_destroy(&st->slot_cv);
    pthread_mutex_destroy(&st->dev_mu);
    pthread_mutex_destroy(&st->info_mu);
    free(st);
    memset(be, 0, sizeof *be);
}

int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st || !pk) return CUZK_EINVAL;
    struct key_entry *k;
    double ms;
    char err[CUZK_CUDA_ERR_LEN];
    pthread_mutex_lock(&st->dev_mu);
    int rc = key_resident(st, pk, &k, &ms, err);
    pthread_mutex_unlock(&st->dev_mu);
    if (rc) {
        pthread_mutex_lock(&st->info_mu);
        snprintf(st->last_err, sizeof st->last_err, "%s", err);
        pthread_mutex_unlock(&st->info_mu);
    }
    return rc;
}

int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    int rc = CUZK_ENOTFOUND;
    pthread_mutex_lock(&st->dev_mu);
    if (!pk) {
        keys_clear(st);
        rc = CUZK_OK;
    }
    for (struct key_entry **l = &st->keys; *l;) {
        if ((*l)->pk == pk) {
            key_unlink(st, l);
            rc = CUZK_OK;
        } else {
            l = &(*l)->next;
        }
    }
    pthread_mutex_unlock(&st->dev_mu);
    return rc;
}

size_t cuzk_cuda_backend_resident_bytes(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st) return 0;
    if (!pk) return atomic_load(&st->bases_vram);
    size_t bytes = 0;
    pthread_mutex_lock(&st->dev_mu);
    for (struct key_entry *e = st->keys; e; e = e->next)
        if (e->pk == pk) bytes += e->bytes;
    pthread_mutex_unlock(&st->dev_mu);
    return bytes;
}

void cuzk_cuda_backend_stats(const struct cuzk_backend *be, struct cuzk_cuda_stats *out) {
    struct cuda_state *st = be->impl;
    memset(out, 0, sizeof *out);
    if (!st) return;
    out->device = st->device;
    out->keys = atomic_load(&st->n_keys);
    out->bases_vram = atomic_load(&st->bases_vram);
    out->work_vram = atomic_load(&st->work_vram);
    out->pinned = atomic_load(&st->pinned);
    out->proofs = atomic_load(&st->proofs);
}

int cuzk_cuda_backend_last_timing(const struct cuzk_backend *be, struct cuzk_cuda_timing *out) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    pthread_mutex_lock(&st->info_mu);
    int have = st->have_last;
    if (have) *out = st->last;
    pthread_mutex_unlock(&st->info_mu);
    return have ? CUZK_OK : CUZK_ENOTFOUND;
}

void cuzk_cuda_backend_last_error(const struct cuzk_backend *be, char *buf, size_t len) {
    struct cuda_state *st = be->impl;
    if (!len) return;
    buf[0] = 0;
    if (!st) return;
    pthread_mutex_lock(&st->info_mu);
    snprintf(buf, len, "%s", st->last_err);
    pthread_mutex_unlock(&st->info_mu);
}
