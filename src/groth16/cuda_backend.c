/* The CUDA backend of the Groth16 prover (contract: cuda_backend.h).
 *
 * DESIGN
 * Threads. prove runs on the caller's thread (the engine's device workers: two per device by
 * default) and creates none. A proof:
 *   1. takes a free witness slot of the work area (W or W1; slot_mu; waits when both are
 *      taken or while the work area is being resized), checks without the device lock that
 *      the work objects fit the key (they change only while no slot is taken; when they do
 *      not, it gives the slot back and grows them first), queues the witness's upload into
 *      the slot on the area's copy stream, waits for it, then tells the caller the witness
 *      buffer is free (witness_done);
 *   2. takes the device (dev_mu) for its compute section: the key made resident if needed;
 *      the SpMV a = A w, b = B w from the slot (the public-input rows included, zeros up to
 *      the domain); c = a o b and the NTTs that take a and b to their coset evaluations a',
 *      b' and c to its coset evaluations (snarkjs's basis) or to its coefficients
 *      (bellperson's coefficient basis), queued on the NTT context's stream; meanwhile, on the
 *      MSM context's (higher-priority) streams, the gathers of the filtered queries' scalars
 *      into S and the MSMs A', B1', B2' (G2), C' on the slot; then, once the transforms are
 *      done, h in place of a: a' b' - c', or (the inverse coset NTT of a' b' - c) / t (see
 *      h_queue); and the MSM H' from device memory. The two sets of work share no
 *      buffer (the transforms touch A, B, C and the NTT context's scratch; the MSMs read W
 *      or W1 and S); cuzk_cuda_backend_set_overlap(0) runs them one after the other;
 *   3. gives the device and the slot back and assembles the proof on the host.
 * So while one proof computes, the next one's witness moves into the other slot (the copy
 * engine is independent of the compute units), and a proof that finds the GPU idle starts at
 * once. Only the compute section is serialised.
 *
 * Locks (never two held at once; a taken slot is not a lock: it is held across dev_mu):
 * slot_mu guards which slots are busy and the resize flag;
 * dev_mu guards every device object (contexts, work area, resident keys) and is held for a
 * proof's compute section, for key uploads and drops and for the per-key query; info_mu guards
 * the last timing. A resize of the work area (a key larger than any before) first sets the
 * resize flag under slot_mu and waits until no slot is taken (no upload can touch the area),
 * then rebuilds the area under dev_mu, then clears the flag. Totals for the stats are atomics,
 * so status readers never wait for the device.
 *
 * Memory. Device: per backend one NTT context, one MSM context (max(n, n_vars) points) and
 * the work area (A, B, W, W1, S; C is the NTT context's own buffer), created at the first key
 * and recreated larger only for a larger key; the resident keys. Everything is counted against
 * the budget before it is allocated (vram_used). A key that the budget could not hold even
 * alone, with the smallest work objects (never_fits: no folding, no presum space), is refused
 * with CUZK_EUNSUPPORTED (no eviction helps), checked by an upload, by a proof about to grow
 * the work objects and by key_make (dev_mu held), never on a proof's witness path. Host:
 * nothing on the proof path.
 *
 * Folded H. A key whose H query has at least fold_min points (default CUZK_CUDA_FOLD_MIN) has
 * its H bases folded once at upload (cuzk_gpu_bases_fold: a second copy, the multiples 2^T P,
 * made on the device), and the MSM context is sized for folded MSMs (CUZK_GPU_MSM_FOLD), so the
 * H MSM takes the folded layout: the same point, fewer bucket additions. Both are counted against
 * the budget; when the budget cannot hold them (with the key) the key stays plain (the context
 * too, and the backend stops asking for a folding context until the budget or the threshold is
 * set again), which is logged.
 *
 * Dense queries folded after a first proof. Whether folding a witness query pays depends on
 * its scalars, which only a proof shows: a random or circom witness sends every scalar through
 * the windows, a Filecoin witness (mostly 0 and 1) only a few, its ones being summed apart.
 * So after a key's first successful proof, still in its compute section (dev_mu held), the
 * backend folds each query (B2 first: a G2 MSM gains most, then H, A, B1, C) of at least
 * fold_dense_min points whose MSM took at least half its scalars through the windows
 * (cuzk_gpu_msm_timing.windowed), when the MSM context folds and the budget holds the
 * multiples while leaving room for a second key of the key's plain size (the SRS manager would
 * otherwise evict idle keys to make room the folds took). The decision is taken once per
 * residency (key_entry.learned); that proof's fold_ms says what it cost. A fold that finds the
 * device short of memory leaves the query plain; any other failure leaves it plain and marks
 * the work objects broken, as a failed proof does (the proof itself, already computed, stands).
 * The folds are part of the key's bytes and are freed with it. For keys with a query of at
 * least fold_dense_min points the MSM context is sized for folding, as for a folded H.
 *
 * Presum space. The MSM context is created with a presum space (CUZK_GPU_MSM_PRESUM: its MSMs
 * then sum adjacent sorted entries of one bucket in affine pairs before the accumulation, a few
 * per cent faster on large dense MSMs, see docs/gpu.md) when the budget holds it with the key
 * (and the key's folded H query, when it is to have one) and the rest of the work space; it is
 * the first extra refused (before a folding context). It is the one thing in the budget that
 * yields: a key, a folded H query or a dense query's fold that does not fit the budget with it
 * but does without it gets it freed (cuzk_gpu_msm_ctx_release_presum, under dev_mu: no MSM
 * runs then), so it never costs a key its residency nor a query its fold; the room a dense
 * fold keeps free for a second key may include it for the same reason. Refused or released for
 * want of budget (presum_refused PRESUM_BUDGET), it is taken back, sized for G1, after a proof
 * that finds the budget holding it with the keys and the work space again (a key evicted or
 * dropped since: presum_regain, logged); a failed allocation of it (PRESUM_FAILED) is not tried
 * again until the budget or the setting changes (set_presum). Refusals and releases are
 * logged. It is sized for G1 points, which leaves a G2 batch's later sets without the level;
 * after a key's first proof (after its dense folds) whose B2 query has at least fold_dense_min
 * points and took at least half its scalars through the windows, it grows to one sized for G2
 * (cuzk_gpu_msm_ctx_set_presum: twice the bytes) when the budget holds the difference
 * (presum_g2, logged). A rebuild of the work objects makes it sized for G1 again;
 * the key remembers its first proof's B2 (key_entry.dense_b2), so the next proof of such a key
 * grows it again. Refused for want of budget, the growth is tried again at each later proof
 * (the refusal logged once); a failed allocation of it is not tried again until the work
 * objects are rebuilt or the budget or the setting changes. */
#define _GNU_SOURCE
#include "groth16/cuda_backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "formats/g16key.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "gpu/gpu_points.h"
#include "msm/msm.h"
#include "util/log.h"
#include "util/pool.h"

#define SLOTS 2 /* witness slots: W and W1 */

/* Why the MSM context has no presum space though the setting asks for one (presum_refused):
 * the budget did not hold it (taken back when it does again), or its allocation failed. */
enum { PRESUM_BUDGET = 1, PRESUM_FAILED = 2 };

/* A key resident on the device. */
struct key_entry {
    uint64_t uid;
    uint32_t n_vars, n_public, domain, n_a, n_b, n_pub_rows, rows;
    uint32_t n_h; /* H points: cuzk_h_basis_points(h_basis, domain) */
    enum cuzk_h_basis h_basis;
    int log_n;
    struct cuzk_gpu_bases *a, *b1, *b2, *c, *h; /* c is NULL when the key has no private wire */
    struct cuzk_gpu_cs *cs;                     /* the A/B rows */
    struct cuzk_gpu_idx *a_idx, *b_idx;         /* the filtered queries' wires; NULL = dense */
    size_t bytes;                               /* device bytes, folds included */
    size_t plain_bytes;                         /* the same without any fold */
    int h_folded;                               /* the H query was folded at upload (see DESIGN) */
    int learned;      /* the dense queries' folds were decided (after the first proof) */
    size_t dense_b2;  /* the first proof's B2 scalars that took the windows (for presum_g2) */
    unsigned n_dense; /* queries folded so */
    double last_used;
    struct key_entry *next;
};

struct cuda_state {
    int device;
    struct cuzk_pool *pool;
    uint64_t vram_budget;

    pthread_mutex_t slot_mu;
    pthread_cond_t slot_cv;
    int slot_busy[SLOTS];
    int resizing;

    pthread_mutex_t dev_mu;
    struct cuzk_gpu_ntt_ctx *ntt;
    struct cuzk_gpu_msm_ctx *msm;
    struct cuzk_gpu_g16 *g16;
    int cap_log_n; /* the sizes the work objects have */
    size_t cap_w, cap_msm;
    int cap_fold; /* the MSM context folds (CUZK_GPU_MSM_FOLD) */
    /* the MSM context's presum space: 0 none, 1 sized for G1, 2 for G2; an atomic, since
     * room_for and presum_g2 change it under dev_mu while work_fits_pk may read it */
    atomic_int cap_presum;
    /* read without dev_mu by work_fits_pk (under a witness slot), set by the setters: atomics */
    atomic_int fold_refused;   /* the budget could not hold a folding context: do not ask again */
    atomic_int presum;         /* the MSM context is to have a presum space (set_presum) */
    atomic_int presum_refused; /* 0, or why the context has none: PRESUM_BUDGET, PRESUM_FAILED */
    int presum_g2_refused;     /* nor one sized for G2 (the same values; dev_mu) */
    atomic_size_t fold_min;    /* H queries of at least this many points are folded (0: never) */
    atomic_size_t fold_dense_min; /* dense queries of at least this many points: after a proof */
    atomic_int overlap;           /* h's transforms run beside the witness MSMs (compute) */
    uint64_t work_bytes;          /* what the work objects take (their budget share) */
    atomic_int work_presum;       /* cap_presum of the work objects that exist (for stats) */
    atomic_int broken;            /* a GPU failure: rebuilt (work_grow) before the next use */
    struct key_entry *keys;
    uint64_t keys_bytes;

    pthread_mutex_t info_mu;
    struct cuzk_cuda_timing last;
    int have_last;

    atomic_size_t n_keys, bases_vram, work_vram, pinned, proofs, n_folded, n_dense_folded;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The GPU module whose last error explains a failure (each keeps it per thread). */
enum gpu_mod { MOD_HOST, MOD_NTT, MOD_MSM, MOD_G16, MOD_PTS };

static const char *mod_error(enum gpu_mod m) {
    switch (m) {
    case MOD_NTT: return cuzk_gpu_ntt_last_error();
    case MOD_MSM: return cuzk_gpu_msm_last_error();
    case MOD_G16: return cuzk_gpu_g16_last_error();
    case MOD_PTS: return cuzk_gpu_points_last_error();
    default: return "";
    }
}

/* Writes what failed (the stage, the code, the module's description) into err; returns rc. */
static int failed(char *err, size_t errlen, const char *stage, enum gpu_mod m, int rc) {
    const char *why = mod_error(m);
    snprintf(err, errlen, "%s: %s%s%s", stage, cuzk_strerror(rc), *why ? ": " : "", why);
    return rc;
}

/* ---- the work objects (dev_mu held) ------------------------------------------------------- */

static void work_drop(struct cuda_state *st) {
    cuzk_gpu_g16_free(st->g16); /* first: it borrows the NTT context's buffer */
    cuzk_gpu_ntt_ctx_free(st->ntt);
    cuzk_gpu_msm_ctx_free(st->msm);
    st->g16 = NULL;
    st->ntt = NULL;
    st->msm = NULL;
    st->work_bytes = 0;
    atomic_store(&st->work_vram, 0);
    atomic_store(&st->work_presum, 0);
}

static const unsigned G16_FLAGS = CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S;

/* presum: 0 no presum space, 1 one sized for G1, 2 for G2 (CUZK_GPU_MSM_PRESUM_G2) */
static unsigned msm_flags(int fold, int presum) {
    return (fold ? CUZK_GPU_MSM_FOLD : 0u) | (presum ? CUZK_GPU_MSM_PRESUM : 0u) |
           (presum > 1 ? CUZK_GPU_MSM_PRESUM_G2 : 0u);
}

static uint64_t work_bytes_for(int log_n, size_t nw, size_t msm_n, int fold, int presum) {
    return cuzk_gpu_ntt_ctx_vram(log_n) + cuzk_gpu_msm_ctx_vram2(msm_n, msm_flags(fold, presum)) +
           cuzk_gpu_g16_vram_for2((size_t)1 << log_n, nw, 1, G16_FLAGS);
}

static int work_create(struct cuda_state *st, char *err, size_t errlen) {
    int rc;
    if ((rc = cuzk_gpu_ntt_ctx_create(st->device, st->cap_log_n, &st->ntt)))
        return failed(err, errlen, "NTT context", MOD_NTT, rc);
    if ((rc = cuzk_gpu_msm_ctx_create2(st->device, st->cap_msm,
                                       msm_flags(st->cap_fold, st->cap_presum), &st->msm))) {
        work_drop(st);
        return failed(err, errlen, "MSM context", MOD_MSM, rc);
    }
    if ((rc = cuzk_gpu_g16_create2(st->device, (size_t)1 << st->cap_log_n, st->cap_w,
                                   cuzk_gpu_ntt_ctx_buffer(st->ntt), G16_FLAGS, &st->g16))) {
        work_drop(st);
        return failed(err, errlen, "work area", MOD_G16, rc);
    }
    st->work_bytes = cuzk_gpu_ntt_ctx_vram(st->cap_log_n) +
                     cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, st->cap_presum)) +
                     cuzk_gpu_g16_vram(st->g16);
    atomic_store(&st->work_vram, st->work_bytes);
    atomic_store(&st->work_presum, st->cap_presum);
    st->presum_g2_refused = 0;
    return CUZK_OK;
}

/* The bytes of a presum space of the level (see msm_flags) in the MSM context. */
static uint64_t presum_bytes_for(const struct cuda_state *st, int level) {
    if (!level) return 0;
    return cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, level)) -
           cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, 0));
}

/* The bytes of the MSM context's presum space (0 without one). */
static uint64_t presum_bytes(const struct cuda_state *st) {
    return presum_bytes_for(st, st->cap_presum);
}

/* Whether need more bytes of keys or folds fit the budget (dev_mu held). The presum space
 * yields to them (see DESIGN): when they fit only without it, it is freed first (and not asked
 * for again until the budget or the setting changes), which is logged. */
static int room_for(struct cuda_state *st, uint64_t need, const char *what) {
    if (st->work_bytes + st->keys_bytes + need <= st->vram_budget) return 1;
    const uint64_t ps = presum_bytes(st);
    if (!ps || !st->msm || st->work_bytes - ps + st->keys_bytes + need > st->vram_budget) return 0;
    const size_t freed = cuzk_gpu_msm_ctx_release_presum(st->msm);
    st->presum_refused = PRESUM_BUDGET; /* first: work_fits_pk that sees no space sees it refused */
    st->cap_presum = 0;
    st->work_bytes -= ps;
    atomic_store(&st->work_vram, st->work_bytes);
    atomic_store(&st->work_presum, 0);
    cuzk_log_info("cuda",
                  "device %d: presum space released (%zu bytes) for %s of %llu bytes: the budget "
                  "of %llu bytes holds %llu of keys and %llu of work space without it",
                  st->device, freed, what, (unsigned long long)need,
                  (unsigned long long)st->vram_budget, (unsigned long long)st->keys_bytes,
                  (unsigned long long)st->work_bytes);
    return 1;
}

/* The bytes of pk's H query folded (its multiples: cuzk_gpu_bases_fold). */
static uint64_t h_fold_bytes(const struct cuzk_groth16_pk *pk) {
    return cuzk_gpu_bases_vram_for(CUZK_GPU_G1, cuzk_h_basis_points(pk->h_basis, pk->domain_size));
}

/* Whether pk's H query is to be folded (see DESIGN). */
static int fold_wanted(struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
    const size_t min = atomic_load(&st->fold_min);
    return min && cuzk_h_basis_points(pk->h_basis, pk->domain_size) >= min;
}

/* Whether a proof of pk may fold dense queries (see DESIGN): one of them is large enough. */
static int dense_fold_possible(struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
    const size_t min = atomic_load(&st->fold_dense_min);
    const size_t nc = (size_t)pk->n_vars - pk->n_public - 1;
    size_t big = cuzk_h_basis_points(pk->h_basis, pk->domain_size);
    if (pk->n_a > big) big = pk->n_a;
    if (pk->n_b > big) big = pk->n_b;
    if (nc > big) big = nc;
    return min && big >= min;
}

/* The sizes a key needs of the work objects. */
static void work_need(struct cuda_state *st, const struct cuzk_groth16_pk *pk, int *log_n,
                      size_t *nw, size_t *msm_n, int *fold) {
    size_t n = (size_t)1 << pk->log_n, m = n;
    if (pk->n_vars > m) m = pk->n_vars;
    *log_n = pk->log_n;
    *nw = pk->n_vars;
    *msm_n = m;
    *fold = fold_wanted(st, pk) || dense_fold_possible(st, pk);
}

/* Whether the work objects fit (dev_mu held, or a witness slot: no resize runs while one is
 * taken, see DESIGN). A folding context is a wish the budget may have refused. */
static int work_fits(struct cuda_state *st, int log_n, size_t nw, size_t msm_n, int fold) {
    return st->g16 && !atomic_load(&st->broken) && st->cap_log_n >= log_n && st->cap_w >= nw &&
           st->cap_msm >= msm_n && (st->cap_fold >= fold || st->fold_refused) &&
           (st->cap_presum >= atomic_load(&st->presum) || st->presum_refused);
}

static int work_fits_pk(struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
    int log_n, fold;
    size_t nw, msm_n;
    work_need(st, pk, &log_n, &nw, &msm_n, &fold);
    return work_fits(st, log_n, nw, msm_n, fold);
}

/* ---- resident keys (dev_mu held) ---------------------------------------------------------- */

static void key_entry_free(struct key_entry *k) {
    cuzk_gpu_bases_free(k->a);
    cuzk_gpu_bases_free(k->b1);
    cuzk_gpu_bases_free(k->b2);
    cuzk_gpu_bases_free(k->c);
    cuzk_gpu_bases_free(k->h);
    cuzk_gpu_cs_free(k->cs);
    cuzk_gpu_idx_free(k->a_idx);
    cuzk_gpu_idx_free(k->b_idx);
    free(k);
}

static void key_unlink(struct cuda_state *st, struct key_entry **link) {
    struct key_entry *k = *link;
    *link = k->next;
    st->keys_bytes -= k->bytes;
    atomic_fetch_sub(&st->bases_vram, k->bytes);
    atomic_fetch_sub(&st->n_keys, 1);
    if (k->h_folded) atomic_fetch_sub(&st->n_folded, 1);
    atomic_fetch_sub(&st->n_dense_folded, k->n_dense);
    key_entry_free(k);
}

static struct key_entry *key_find(struct cuda_state *st, uint64_t uid) {
    for (struct key_entry *k = st->keys; k; k = k->next)
        if (k->uid == uid) return k;
    return NULL;
}

/* Device bytes pk's resident copy will take. */
static uint64_t key_bytes_for(const struct cuzk_groth16_pk *pk) {
    size_t nc = (size_t)pk->n_vars - pk->n_public - 1;
    uint64_t b =
        cuzk_gpu_bases_vram_for(CUZK_GPU_G1, pk->n_a) +
        cuzk_gpu_bases_vram_for(CUZK_GPU_G1, pk->n_b) +
        cuzk_gpu_bases_vram_for(CUZK_GPU_G2, pk->n_b) + cuzk_gpu_bases_vram_for(CUZK_GPU_G1, nc) +
        cuzk_gpu_bases_vram_for(CUZK_GPU_G1, cuzk_h_basis_points(pk->h_basis, pk->domain_size)) +
        cuzk_gpu_cs_vram_for(pk->cs);
    if (pk->a_wires) b += 4 * (uint64_t)pk->n_a;
    if (pk->b_wires) b += 4 * (uint64_t)pk->n_b;
    return b;
}

/* One point section from the key file into fresh bases: chunk by chunk into the loader's
 * pinned buffers, decoded on the device. */
static int section_from_file(struct cuda_state *st, struct cuzk_gpu_points_loader *ld,
                             struct cuzk_g16key *f, enum cuzk_g16key_section s,
                             enum cuzk_gpu_group g, struct cuzk_gpu_bases **out, char *err,
                             size_t errlen) {
    const struct cuzk_g16key_info *info = cuzk_g16key_get_info(f);
    size_t count = cuzk_g16key_count(f, s), chunk = info->chunk_points;
    enum cuzk_gpu_point_enc enc = info->compressed ? CUZK_GPU_PT_COMPRESSED : CUZK_GPU_PT_LEM;
    int rc = cuzk_gpu_bases_create(st->device, g, count, out);
    if (rc) return failed(err, errlen, "key upload", MOD_PTS, rc);
    for (size_t first = 0; first < count; first += chunk) {
        size_t n = count - first < chunk ? count - first : chunk;
        void *buf;
        if ((rc = cuzk_gpu_points_loader_buffer(ld, &buf)))
            return failed(err, errlen, "key upload", MOD_PTS, rc);
        char rerr[256];
        if ((rc = cuzk_g16key_read(f, s, first, n, buf, rerr, sizeof rerr))) {
            snprintf(err, errlen, "key upload: %s", rerr);
            return rc;
        }
        if ((rc = cuzk_gpu_points_loader_submit(ld, *out, first, n, enc)))
            return failed(err, errlen, "key upload", MOD_PTS, rc);
    }
    size_t bad = SIZE_MAX;
    if ((rc = cuzk_gpu_points_loader_finish(ld, &bad))) {
        if (rc == CUZK_EFORMAT) {
            snprintf(err, errlen, "key upload: section %s: point %zu does not decode",
                     cuzk_g16key_section_name(s), bad);
            return rc;
        }
        return failed(err, errlen, "key upload", MOD_PTS, rc);
    }
    return CUZK_OK;
}

static int points_from_file(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                            struct key_entry *k, char *err, size_t errlen) {
    struct cuzk_g16key *f = pk->file;
    const struct cuzk_g16key_info *info = cuzk_g16key_get_info(f);
    size_t pt = cuzk_gpu_point_enc_bytes(CUZK_GPU_G2, info->compressed ? CUZK_GPU_PT_COMPRESSED
                                                                       : CUZK_GPU_PT_LEM);
    /* a buffer holds one whole chunk of the largest points (G2): cuzk_g16key_read reads whole
     * chunks only, so a smaller buffer would be overrun */
    size_t chunk_bytes = (size_t)info->chunk_points * pt;
    struct cuzk_gpu_points_loader *ld;
    int rc = cuzk_gpu_points_loader_create(st->device, chunk_bytes, &ld);
    if (rc) return failed(err, errlen, "key loader", MOD_PTS, rc);
    if (!(rc = section_from_file(st, ld, f, CUZK_G16KEY_A, CUZK_GPU_G1, &k->a, err, errlen)) &&
        !(rc = section_from_file(st, ld, f, CUZK_G16KEY_B1, CUZK_GPU_G1, &k->b1, err, errlen)) &&
        !(rc = section_from_file(st, ld, f, CUZK_G16KEY_B2, CUZK_GPU_G2, &k->b2, err, errlen)) &&
        (!cuzk_g16key_count(f, CUZK_G16KEY_C) ||
         !(rc = section_from_file(st, ld, f, CUZK_G16KEY_C, CUZK_GPU_G1, &k->c, err, errlen))))
        rc = section_from_file(st, ld, f, CUZK_G16KEY_H, CUZK_GPU_G1, &k->h, err, errlen);
    cuzk_gpu_points_loader_free(ld);
    return rc;
}

static int points_from_host(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                            struct key_entry *k, char *err, size_t errlen) {
    size_t nc = (size_t)pk->n_vars - pk->n_public - 1;
    int rc;
    if ((rc = cuzk_gpu_g1_bases_upload(st->device, pk->a, pk->n_a, &k->a)) ||
        (rc = cuzk_gpu_g1_bases_upload(st->device, pk->b1, pk->n_b, &k->b1)) ||
        (rc = cuzk_gpu_g2_bases_upload(st->device, pk->b2, pk->n_b, &k->b2)) ||
        (nc && (rc = cuzk_gpu_g1_bases_upload(st->device, pk->c, nc, &k->c))) ||
        (rc = cuzk_gpu_g1_bases_upload(st->device, pk->h, k->n_h, &k->h)))
        return failed(err, errlen, "key upload", rc == CUZK_ENOMEM ? MOD_HOST : MOD_MSM, rc);
    return CUZK_OK;
}

/* CUZK_EUNSUPPORTED, with the sizes, when pk is not resident and its key with the smallest work
 * space it proves in (no folding, no presum space) exceeds the budget (dev_mu held): no
 * eviction of other keys could make the room, so the caller (the SRS manager) evicts none.
 * CUZK_OK otherwise. */
static int never_fits_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                             const char *what, char *err, size_t errlen) {
    int log_n, fold;
    size_t nw, msm_n;
    work_need(st, pk, &log_n, &nw, &msm_n, &fold);
    const uint64_t kb = key_bytes_for(pk), wb = work_bytes_for(log_n, nw, msm_n, 0, 0);
    if (key_find(st, pk->uid) || kb + wb <= st->vram_budget) return CUZK_OK;
    return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                     "%s: the key needs %llu bytes of device memory and a work space of %llu at "
                     "the least (a domain of 2^%d, %zu witness values); device %d's budget of "
                     "%llu bytes cannot hold them, even with no other key resident",
                     what, (unsigned long long)kb, (unsigned long long)wb, log_n, nw, st->device,
                     (unsigned long long)st->vram_budget);
}

/* never_fits_locked without dev_mu held: for an upload, or a proof about to grow the work
 * objects (both take the lock anyway), never on a proof's witness path. */
static int never_fits(struct cuda_state *st, const struct cuzk_groth16_pk *pk, const char *what,
                      char *err, size_t errlen) {
    pthread_mutex_lock(&st->dev_mu);
    int rc = never_fits_locked(st, pk, what, err, errlen);
    pthread_mutex_unlock(&st->dev_mu);
    return rc;
}

/* Makes pk resident (dev_mu held; the work objects already fit it). */
static int key_make(struct cuda_state *st, const struct cuzk_groth16_pk *pk, struct key_entry **out,
                    char *err, size_t errlen) {
    int host = pk->a && pk->b1 && pk->b2 && pk->h && (pk->c || pk->n_vars == pk->n_public + 1);
    if (!host && !pk->file) {
        snprintf(err, errlen, "key upload: the key has neither host points nor a key file");
        return CUZK_EINVAL;
    }
    if (!pk->cs) {
        snprintf(err, errlen, "key upload: the key's A/B rows are not in host memory");
        return CUZK_EINVAL;
    }
    if (!host && cuzk_g16key_get_info(pk->file)->h_basis != pk->h_basis) {
        snprintf(err, errlen, "key upload: the key file's H basis is not the key's");
        return CUZK_EINVAL;
    }
    uint64_t need = key_bytes_for(pk);
    if (!room_for(st, need, "a key")) {
        if (never_fits_locked(st, pk, "key upload", err, errlen)) return CUZK_EUNSUPPORTED;
        snprintf(err, errlen,
                 "key upload: the key needs %llu bytes of device memory; the budget of %llu holds "
                 "%llu of work space and %llu of %zu other keys",
                 (unsigned long long)need, (unsigned long long)st->vram_budget,
                 (unsigned long long)st->work_bytes, (unsigned long long)st->keys_bytes,
                 atomic_load(&st->n_keys));
        return CUZK_EGPUOOM;
    }
    struct key_entry *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "key upload: out of host memory");
        return CUZK_ENOMEM;
    }
    k->uid = pk->uid;
    k->plain_bytes = need; /* before the H query's fold below */
    k->n_vars = pk->n_vars;
    k->n_public = pk->n_public;
    k->domain = pk->domain_size;
    k->n_a = pk->n_a;
    k->n_b = pk->n_b;
    k->n_pub_rows = pk->n_pub_rows;
    k->rows = (uint32_t)pk->cs->n_rows;
    k->log_n = pk->log_n;
    k->h_basis = pk->h_basis;
    k->n_h = cuzk_h_basis_points(pk->h_basis, pk->domain_size);
    int rc =
        host ? points_from_host(st, pk, k, err, errlen) : points_from_file(st, pk, k, err, errlen);
    if (!rc && (rc = cuzk_gpu_cs_upload(st->device, pk->cs, &k->cs)))
        failed(err, errlen, "upload of the A/B rows", MOD_G16, rc);
    if (!rc && pk->a_wires &&
        (rc = cuzk_gpu_idx_upload(st->device, pk->a_wires, pk->n_a, &k->a_idx)))
        failed(err, errlen, "upload of the A wires", MOD_G16, rc);
    if (!rc && pk->b_wires &&
        (rc = cuzk_gpu_idx_upload(st->device, pk->b_wires, pk->n_b, &k->b_idx)))
        failed(err, errlen, "upload of the B wires", MOD_G16, rc);
    if (rc) {
        key_entry_free(k);
        return rc;
    }
    /* the H query folded when wanted, the context folds and the budget holds the copy */
    const uint64_t fold_bytes = h_fold_bytes(pk);
    if (fold_wanted(st, pk) && st->cap_fold) {
        if (!room_for(st, need + fold_bytes, "a key with its folded H query")) {
            cuzk_log_info("cuda",
                          "device %d: H query of %u points not folded: the budget of %llu bytes "
                          "does not hold its %llu bytes of multiples",
                          st->device, k->n_h, (unsigned long long)st->vram_budget,
                          (unsigned long long)fold_bytes);
        } else {
            double t0 = now_ms();
            rc = cuzk_gpu_bases_fold(k->h, 0);
            if (rc == CUZK_EGPUOOM) { /* device memory short of the budget: the key stays plain */
                cuzk_log_warn("cuda", "device %d: H query of %u points not folded: %s", st->device,
                              k->n_h, cuzk_gpu_msm_last_error());
                rc = CUZK_OK;
            } else if (rc) {
                failed(err, errlen, "fold of the H query", MOD_MSM, rc);
                key_entry_free(k);
                return rc;
            } else {
                need += fold_bytes;
                cuzk_log_info("cuda",
                              "device %d: H query of %u points folded for %u bits (%llu bytes, "
                              "%.1f s)",
                              st->device, k->n_h, cuzk_gpu_bases_fold_window(k->h),
                              (unsigned long long)fold_bytes, (now_ms() - t0) / 1e3);
            }
        }
    }
    k->bytes = need;
    k->h_folded = cuzk_gpu_bases_fold_window(k->h) != 0;
    k->last_used = now_ms();
    k->next = st->keys;
    st->keys = k;
    st->keys_bytes += need;
    atomic_fetch_add(&st->bases_vram, need);
    atomic_fetch_add(&st->n_keys, 1);
    if (k->h_folded) atomic_fetch_add(&st->n_folded, 1);
    *out = k;
    return CUZK_OK;
}

/* ---- slots -------------------------------------------------------------------------------- */

static int slot_acquire(struct cuda_state *st) {
    pthread_mutex_lock(&st->slot_mu);
    int s = -1;
    for (;;) {
        if (!st->resizing)
            for (int i = 0; i < SLOTS && s < 0; i++)
                if (!st->slot_busy[i]) s = i;
        if (s >= 0) break;
        pthread_cond_wait(&st->slot_cv, &st->slot_mu);
    }
    st->slot_busy[s] = 1;
    pthread_mutex_unlock(&st->slot_mu);
    return s;
}

static void slot_release(struct cuda_state *st, int s) {
    pthread_mutex_lock(&st->slot_mu);
    st->slot_busy[s] = 0;
    pthread_cond_broadcast(&st->slot_cv);
    pthread_mutex_unlock(&st->slot_mu);
}

/* Grows the work objects for pk when they do not fit it: no slot may be in use meanwhile (see
 * DESIGN). Takes slot_mu and dev_mu one after the other. */
static int work_grow(struct cuda_state *st, const struct cuzk_groth16_pk *pk, char *err,
                     size_t errlen) {
    int log_n, fold;
    size_t nw, msm_n;
    work_need(st, pk, &log_n, &nw, &msm_n, &fold);
    pthread_mutex_lock(&st->dev_mu);
    int fits = work_fits(st, log_n, nw, msm_n, fold);
    pthread_mutex_unlock(&st->dev_mu);
    if (fits) return CUZK_OK;
    pthread_mutex_lock(&st->slot_mu);
    while (st->resizing) pthread_cond_wait(&st->slot_cv, &st->slot_mu);
    st->resizing = 1;
    while (st->slot_busy[0] || st->slot_busy[1]) pthread_cond_wait(&st->slot_cv, &st->slot_mu);
    pthread_mutex_unlock(&st->slot_mu);

    int rc = CUZK_OK;
    pthread_mutex_lock(&st->dev_mu);
    if (!work_fits(st, log_n, nw, msm_n, fold)) {
        if (st->cap_log_n > log_n) log_n = st->cap_log_n;
        if (st->cap_w > nw) nw = st->cap_w;
        if (st->cap_msm > msm_n) msm_n = st->cap_msm;
        if (st->cap_fold > fold) fold = st->cap_fold;
        if (st->fold_refused) fold = 0;
        int presum = atomic_load(&st->presum) && !st->presum_refused;
        uint64_t want = work_bytes_for(log_n, nw, msm_n, fold, presum);
        const uint64_t kb = key_find(st, pk->uid) ? 0 : key_bytes_for(pk);
        /* a presum space must leave room for the key with its folded H query: else none */
        const uint64_t kbf = kb && fold && fold_wanted(st, pk) ? kb + h_fold_bytes(pk) : kb;
        if (presum && st->keys_bytes + kbf + want > st->vram_budget) {
            const uint64_t without = work_bytes_for(log_n, nw, msm_n, fold, 0);
            cuzk_log_info("cuda",
                          "device %d: no presum space in the MSM context: the budget of %llu "
                          "bytes holds %llu of keys and %llu of the new key (with its folded H "
                          "query), the work space would take %llu (%llu without)",
                          st->device, (unsigned long long)st->vram_budget,
                          (unsigned long long)st->keys_bytes, (unsigned long long)kbf,
                          (unsigned long long)want, (unsigned long long)without);
            presum = 0;
            want = without;
            st->presum_refused = PRESUM_BUDGET;
        }
        /* a folding context must leave room for the key it is made for: else none */
        if (fold && st->keys_bytes + kb + want > st->vram_budget) {
            uint64_t plain = work_bytes_for(log_n, nw, msm_n, 0, 0);
            cuzk_log_info("cuda",
                          "device %d: no folding MSM context: the budget of %llu bytes holds "
                          "%llu of keys and %llu of the new key, the work space would take %llu "
                          "(%llu without folding)",
                          st->device, (unsigned long long)st->vram_budget,
                          (unsigned long long)st->keys_bytes, (unsigned long long)kb,
                          (unsigned long long)want, (unsigned long long)plain);
            fold = 0; /* presum is 0 here: it asks for more room than folding */
            want = plain;
            st->fold_refused = 1;
        }
        if (st->keys_bytes + want > st->vram_budget) {
            snprintf(err, errlen,
                     "work space: a domain of 2^%d with %zu witness values needs %llu bytes of "
                     "device memory; the budget of %llu holds %llu of %zu resident keys",
                     log_n, nw, (unsigned long long)want, (unsigned long long)st->vram_budget,
                     (unsigned long long)st->keys_bytes, atomic_load(&st->n_keys));
            rc = CUZK_EGPUOOM;
        } else {
            int old_log_n = st->cap_log_n, old_fold = st->cap_fold, old_presum = st->cap_presum;
            size_t old_w = st->cap_w, old_msm = st->cap_msm;
            work_drop(st);
            atomic_store(&st->broken, 0);
            st->cap_log_n = log_n;
            st->cap_w = nw;
            st->cap_msm = msm_n;
            st->cap_fold = fold;
            st->cap_presum = presum;
            rc = work_create(st, err, errlen);
            if (rc) { /* the next try sizes for its own key again, not for this one */
                st->cap_log_n = old_log_n;
                st->cap_w = old_w;
                st->cap_msm = old_msm;
                st->cap_fold = old_fold;
                st->cap_presum = old_presum;
            }
        }
    }
    pthread_mutex_unlock(&st->dev_mu);

    pthread_mutex_lock(&st->slot_mu);
    st->resizing = 0;
    pthread_cond_broadcast(&st->slot_cv);
    pthread_mutex_unlock(&st->slot_mu);
    return rc;
}

/* The key's resident entry, made now when it is not (dev_mu held: key_make's caller grew the
 * work objects before). */
static int key_resident_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                               struct key_entry **out, double *ms, char *err, size_t errlen) {
    *ms = 0;
    struct key_entry *k = key_find(st, pk->uid);
    if (k) {
        k->last_used = now_ms();
        *out = k;
        return CUZK_OK;
    }
    double t0 = now_ms();
    int rc = key_make(st, pk, out, err, errlen);
    *ms = now_ms() - t0;
    return rc;
}

static int cuda_key_upload(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                           uint64_t *vram_bytes, char *err, size_t errlen) {
    struct cuda_state *st = be->impl;
    if (vram_bytes) *vram_bytes = 0;
    if (!st || !pk) return CUZK_EINVAL;
    if (pk->log_n > CUZK_GPU_NTT_MAX_LOG) {
        snprintf(err, errlen, "key upload: a domain of 2^%d is above the GPU NTT's 2^%d", pk->log_n,
                 CUZK_GPU_NTT_MAX_LOG);
        return CUZK_EUNSUPPORTED;
    }
    int rc = never_fits(st, pk, "key upload", err, errlen);
    if (!rc) rc = work_grow(st, pk, err, errlen);
    if (rc) return rc;
    struct key_entry *k;
    double ms;
    uint64_t bytes = 0;
    pthread_mutex_lock(&st->dev_mu);
    rc = key_resident_locked(st, pk, &k, &ms, err, errlen);
    if (!rc) bytes = k->bytes; /* k may be dropped once dev_mu is released */
    pthread_mutex_unlock(&st->dev_mu);
    if (!rc && vram_bytes) *vram_bytes = bytes;
    if (!rc)
        cuzk_log_info("cuda", "device %d: key resident (%llu bytes, %.1f s)", st->device,
                      (unsigned long long)bytes, ms / 1e3);
    return rc;
}

static void cuda_key_drop(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st || !pk) return;
    pthread_mutex_lock(&st->dev_mu);
    for (struct key_entry **l = &st->keys; *l; l = &(*l)->next)
        if ((*l)->uid == pk->uid) {
            key_unlink(st, l);
            break;
        }
    pthread_mutex_unlock(&st->dev_mu);
}

/* ---- one proof ---------------------------------------------------------------------------- */

/* Returns from compute with the stage and module recorded in err when call_ fails. */
#define STEP(stage_, mod_, call_)                                                                  \
    do {                                                                                           \
        if ((rc = (call_))) return failed(err, errlen, stage_, mod_, rc);                          \
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
            rc = failed(err, errlen, inv ? "inverse NTT" : "coset NTT", MOD_NTT, rc);
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

/* A key's queries, in the order their dense folds are tried (see DESIGN). */
enum query { Q_B2, Q_H, Q_A, Q_B1, Q_C, Q_N };

/* The scalars the last MSM on the context took through its windows. */
static size_t msm_windowed(const struct cuda_state *st) {
    struct cuzk_gpu_msm_timing mt;
    cuzk_gpu_msm_last_timing(st->msm, &mt);
    return mt.windowed;
}

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
    double t1 = now_ms();
    if (k->a_idx) STEP("A gather", MOD_G16, cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, wv, k->a_idx));
    STEP("A MSM", MOD_MSM,
         cuzk_gpu_g1_msm_dev_fr(st->msm, k->a, 0, k->a_idx ? s : w, k->n_a, &m->a));
    dense[Q_A] = msm_windowed(st);
    if (k->b_idx) STEP("B gather", MOD_G16, cuzk_gpu_g16_gather(g, CUZK_GPU_G16_S, wv, k->b_idx));
    const void *sb = k->b_idx ? s : w;
    STEP("B1 MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->b1, 0, sb, k->n_b, &m->b1));
    dense[Q_B1] = msm_windowed(st);
    double t2 = now_ms();
    STEP("B2 MSM", MOD_MSM, cuzk_gpu_g2_msm_dev_fr(st->msm, k->b2, 0, sb, k->n_b, &m->b2));
    dense[Q_B2] = msm_windowed(st);
    double t3 = now_ms();
    dense[Q_C] = 0;
    if (nc) {
        STEP("C MSM", MOD_MSM,
             cuzk_gpu_g1_msm_dev_fr(st->msm, k->c, 0, w + (k->n_public + 1) * sizeof(cuzk_fr), nc,
                                    &m->c));
        dense[Q_C] = msm_windowed(st);
    } else {
        cuzk_g1_set_inf(&m->c);
    }
    t->msm_ms = (t2 - t1) + (now_ms() - t3);
    t->g2_msm_ms = t3 - t2;
    return CUZK_OK;
}

/* The compute section (dev_mu held): see DESIGN, step 2. With the overlap on, the transforms
 * of h run on the NTT context's stream while the witness MSMs run on the MSM context's; the
 * MSM context's streams have the higher priority, so the transforms take what the MSMs leave
 * of the device (their short kernels, the host's work between them). ntt_ms is then the time
 * c = a o b and the transforms add to the section: c's product and the queueing, and the wait
 * for the transforms after the MSMs, with h. */
static int compute(struct cuda_state *st, const struct key_entry *k, enum cuzk_gpu_g16_vec wv,
                   struct cuzk_groth16_msms *m, size_t dense[Q_N], struct cuzk_cuda_timing *t,
                   char *err, size_t errlen) {
    void *vec[3] = {cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_A),
                    cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_B),
                    cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_C)};
    const int overlap = atomic_load(&st->overlap);
    cuzk_fr shift, t_inv;
    int rc;
    double t0 = now_ms();
    STEP("SpMV", MOD_G16,
         cuzk_gpu_g16_spmv(st->g16, k->cs, wv, k->n_vars, k->n_pub_rows, k->domain));
    double t1 = now_ms();
    t->spmv_ms = t1 - t0;
    h_params(k, &shift, &t_inv);
    if (overlap) {
        if ((rc = h_queue(st, k, vec, &shift, err, errlen))) return rc;
        t->ntt_ms = now_ms() - t1;
        if ((rc = witness_msms(st, k, wv, m, dense, t, err, errlen))) {
            (void)cuzk_gpu_ntt_sync(st->ntt); /* nothing of this proof runs after it returns */
            return rc;
        }
    } else {
        if ((rc = witness_msms(st, k, wv, m, dense, t, err, errlen))) return rc;
        double t2 = now_ms();
        if ((rc = h_queue(st, k, vec, &shift, err, errlen))) return rc;
        t->ntt_ms = now_ms() - t2;
    }
    double t3 = now_ms();
    if ((rc = h_finish(st, k, vec, &shift, &t_inv, err, errlen))) return rc;
    double t4 = now_ms();
    t->ntt_ms += t4 - t3;
    STEP("H MSM", MOD_MSM, cuzk_gpu_g1_msm_dev_fr(st->msm, k->h, 0, vec[0], k->n_h, &m->h));
    dense[Q_H] = msm_windowed(st);
    t->h_msm_ms = now_ms() - t4;
    return CUZK_OK;
}

#undef STEP

/* After a key's first proof (dev_mu held): folds its dense queries (see DESIGN). Returns
 * CUZK_OK, or the code of a fold that failed otherwise than for device memory (that query stays
 * plain, and the caller has the work objects rebuilt). */
static int fold_dense(struct cuda_state *st, struct key_entry *k, const size_t dense[Q_N]) {
    k->learned = 1;
    const size_t min = atomic_load(&st->fold_dense_min);
    if (!min || !st->cap_fold) return CUZK_OK;
    static const char *const names[Q_N] = {"B2", "H", "A", "B1", "C"};
    struct cuzk_gpu_bases *const bases[Q_N] = {k->b2, k->h, k->a, k->b1, k->c};
    const size_t count[Q_N] = {k->n_b, k->n_h, k->n_a, k->n_b, (size_t)k->n_vars - k->n_public - 1};
    for (int q = 0; q < Q_N; q++) {
        const size_t n = count[q];
        if (!bases[q] || n < min || 2 * dense[q] < n || cuzk_gpu_bases_fold_window(bases[q]))
            continue;
        const uint64_t bytes = cuzk_gpu_bases_vram_for(q == Q_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1, n);
        /* the second key's room may include the presum space, which would yield to it */
        if (st->work_bytes - presum_bytes(st) + st->keys_bytes + bytes + k->plain_bytes >
            st->vram_budget) {
            cuzk_log_info("cuda",
                          "device %d: %s query of %zu points not folded: its %llu bytes of "
                          "multiples would leave the budget of %llu bytes (%llu of work space, "
                          "%llu of keys) less than the key's %llu free",
                          st->device, names[q], n, (unsigned long long)bytes,
                          (unsigned long long)st->vram_budget, (unsigned long long)st->work_bytes,
                          (unsigned long long)st->keys_bytes, (unsigned long long)k->plain_bytes);
            continue;
        }
        if (!room_for(st, bytes, "a fold of a query")) continue; /* (the check above holds it) */
        const double t0 = now_ms();
        const int rc = cuzk_gpu_bases_fold(bases[q], 0);
        if (rc == CUZK_EGPUOOM) { /* device memory short of the budget: the query stays plain */
            cuzk_log_warn("cuda", "device %d: %s query of %zu points not folded: %s", st->device,
                          names[q], n, cuzk_gpu_msm_last_error());
            continue;
        }
        if (rc) {
            cuzk_log_error("cuda", "device %d: fold of the %s query: %s: %s", st->device, names[q],
                           cuzk_strerror(rc), cuzk_gpu_msm_last_error());
            return rc;
        }
        k->bytes += bytes;
        k->n_dense++;
        st->keys_bytes += bytes;
        atomic_fetch_add(&st->bases_vram, bytes);
        atomic_fetch_add(&st->n_dense_folded, 1);
        cuzk_log_info("cuda",
                      "device %d: %s query of %zu points folded for %u bits after the key's first "
                      "proof (%zu of its scalars took the windows; %llu bytes, %.1f s)",
                      st->device, names[q], n, cuzk_gpu_bases_fold_window(bases[q]), dense[q],
                      (unsigned long long)bytes, (now_ms() - t0) / 1e3);
    }
    return CUZK_OK;
}

/* After a proof (dev_mu held): a presum space refused or released for want of budget is taken
 * back, sized for G1, when the budget holds it with the keys and the work space again (a key was
 * evicted or dropped since; see DESIGN). A failed allocation is not tried again. */
static void presum_regain(struct cuda_state *st) {
    if (st->cap_presum || st->presum_refused != PRESUM_BUDGET || !atomic_load(&st->presum) ||
        !st->msm || atomic_load(&st->broken))
        return;
    const uint64_t g1 = presum_bytes_for(st, 1);
    if (st->work_bytes + g1 + st->keys_bytes > st->vram_budget) return;
    const int rc = cuzk_gpu_msm_ctx_set_presum(st->msm, msm_flags(0, 1));
    if (rc) {
        st->presum_refused = PRESUM_FAILED;
        cuzk_log_warn("cuda", "device %d: presum space not taken back: %s: %s", st->device,
                      cuzk_strerror(rc), cuzk_gpu_msm_last_error());
        return;
    }
    st->cap_presum = 1; /* first: work_fits_pk that sees it not refused sees the space */
    st->presum_refused = 0;
    st->work_bytes += g1;
    atomic_store(&st->work_vram, st->work_bytes);
    atomic_store(&st->work_presum, st->cap_presum);
    cuzk_log_info("cuda",
                  "device %d: presum space taken back (%llu bytes): the budget of %llu bytes "
                  "holds it with %llu of keys and %llu of work space",
                  st->device, (unsigned long long)g1, (unsigned long long)st->vram_budget,
                  (unsigned long long)st->keys_bytes, (unsigned long long)(st->work_bytes - g1));
}

/* After a proof of a learned key (dev_mu held, after fold_dense on its first, and after
 * presum_regain): a B2 query of at least fold_dense_min points whose first MSM was dense grows a
 * presum space sized for G1 to one sized for G2 (see DESIGN), when the budget holds the
 * difference; refused so, it grows at a later proof that finds the budget holding it (logged
 * once). A failed allocation leaves the space sized for G1 again, or none, and is not retried in
 * these work objects. */
static void presum_g2(struct cuda_state *st, const struct key_entry *k) {
    const size_t min = atomic_load(&st->fold_dense_min), dense_b2 = k->dense_b2;
    if (st->cap_presum != 1 || st->presum_g2_refused == PRESUM_FAILED || !st->msm ||
        atomic_load(&st->broken) || !min || k->n_b < min || 2 * dense_b2 < k->n_b)
        return;
    const uint64_t g1 = presum_bytes_for(st, 1), g2 = presum_bytes_for(st, 2);
    if (st->work_bytes - g1 + g2 + st->keys_bytes > st->vram_budget) {
        if (st->presum_g2_refused) return; /* logged at the refusal */
        st->presum_g2_refused = PRESUM_BUDGET;
        cuzk_log_info("cuda",
                      "device %d: presum space kept for G1: the budget of %llu bytes does not hold "
                      "the %llu bytes more of one for G2 (B2 of %u points, %zu of its scalars "
                      "took the windows)",
                      st->device, (unsigned long long)st->vram_budget,
                      (unsigned long long)(g2 - g1), k->n_b, dense_b2);
        return;
    }
    int rc = cuzk_gpu_msm_ctx_set_presum(st->msm, msm_flags(0, 2));
    if (!rc) {
        st->cap_presum = 2;
        st->presum_g2_refused = 0;
        st->work_bytes += g2 - g1;
        cuzk_log_info("cuda",
                      "device %d: presum space sized for G2 (%llu bytes; B2 of %u points, %zu of "
                      "its scalars took the windows)",
                      st->device, (unsigned long long)g2, k->n_b, dense_b2);
    } else {
        cuzk_log_warn("cuda", "device %d: presum space for G2: %s: %s", st->device,
                      cuzk_strerror(rc), cuzk_gpu_msm_last_error());
        st->presum_g2_refused = PRESUM_FAILED; /* not tried (and warned of) at every proof */
        if (cuzk_gpu_msm_ctx_set_presum(st->msm, msm_flags(0, 1))) {
            st->presum_refused = PRESUM_FAILED;
            st->cap_presum = 0;
            st->work_bytes -= g1;
            cuzk_log_warn("cuda", "device %d: presum space gone: %s", st->device,
                          cuzk_gpu_msm_last_error());
        }
    }
    atomic_store(&st->work_vram, st->work_bytes);
    atomic_store(&st->work_presum, st->cap_presum);
}

static void stage_line(const struct cuzk_cuda_timing *t, char *out, size_t len) {
    snprintf(out, len,
             "slot_wait_ms=%.2f upload_ms=%.2f lock_wait_ms=%.2f key_upload_ms=%.2f spmv_ms=%.2f "
             "msm_ms=%.2f g2_msm_ms=%.2f ntt_ms=%.2f h_msm_ms=%.2f fold_ms=%.2f "
             "gpu_total_ms=%.2f total_ms=%.2f",
             t->slot_wait_ms, t->upload_ms, t->lock_wait_ms, t->key_upload_ms, t->spmv_ms,
             t->msm_ms, t->g2_msm_ms, t->ntt_ms, t->h_msm_ms, t->fold_ms, t->gpu_total_ms,
             t->total_ms);
}

static int cuda_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                      const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                      const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                      struct cuzk_prove_info *info, char *err, size_t errlen) {
    static const struct cuzk_prove_hooks none = {0};
    struct cuda_state *st = be->impl;
    if (!hooks) hooks = &none;
    if (info) memset(info, 0, sizeof *info);
    struct cuzk_cuda_timing t;
    memset(&t, 0, sizeof t);
    double t0 = now_ms();
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
        slot = slot_acquire(st);
        if (work_fits_pk(st, pk)) break;
        slot_release(st, slot);
        slot = -1;
        if (tries == 3) {
            snprintf(err, errlen, "cuda: the device's work objects failed %d times in a row",
                     tries);
            rc = CUZK_EGPU;
        } else if (!(rc = never_fits(st, pk, "cuda", err, errlen))) {
            rc = work_grow(st, pk, err, errlen);
        }
    }
    if (rc) {
        if (hooks->witness_done) hooks->witness_done(hooks->ctx);
        return rc;
    }
    double t1 = now_ms();
    t.slot_wait_ms = t1 - t0;
    enum cuzk_gpu_g16_vec wv = slot ? CUZK_GPU_G16_W1 : CUZK_GPU_G16_W;
    float up = 0;
    /* the work area is not resized while a slot is taken (see DESIGN) */
    struct cuzk_gpu_g16 *g = st->g16;
    if ((rc = cuzk_gpu_g16_upload(g, wv, w, n_w, n_w)) ||
        (rc = cuzk_gpu_g16_upload_ms_of(g, wv, &up))) {
        failed(err, errlen, "upload of the witness", MOD_G16, rc);
        /* a CUDA failure: the area is unusable (see compute's) */
        if (rc != CUZK_EINVAL) atomic_store(&st->broken, 1);
    }
    t.upload_ms = up;
    if (hooks->witness_done) hooks->witness_done(hooks->ctx);

    /* 2. the compute section */
    struct cuzk_groth16_msms m;
    size_t dense[Q_N] = {0};
    if (!rc) {
        double t2 = now_ms();
        pthread_mutex_lock(&st->dev_mu);
        double t3 = now_ms();
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
        } else if (!(rc = key_resident_locked(st, pk, &k, &t.key_upload_ms, err, errlen))) {
            if (t.key_upload_ms > 0)
                cuzk_log_info("cuda", "device %d: key resident (%llu bytes, %.1f s)", st->device,
                              (unsigned long long)k->bytes, t.key_upload_ms / 1e3);
            rc = compute(st, k, wv, &m, dense, &t, err, errlen);
            if (!rc && !k->learned) { /* the key's first proof: its dense queries (DESIGN) */
                const double tf = now_ms();
                k->dense_b2 = dense[Q_B2];
                if (fold_dense(st, k, dense)) atomic_store(&st->broken, 1);
                t.fold_ms = now_ms() - tf;
            }
            if (!rc) {
                presum_regain(st);
                presum_g2(st, k);
            }
        }
        /* after a GPU failure the contexts may be unusable: rebuilt before the next proof, once
         * no slot is taken (another proof may be uploading into the area now) */
        if (rc && rc != CUZK_EINVAL && rc != CUZK_EGPUOOM && rc != CUZK_ENOMEM &&
            rc != CUZK_EUNSUPPORTED)
            atomic_store(&st->broken, 1);
        if (hooks->device_end) hooks->device_end(hooks->ctx);
        pthread_mutex_unlock(&st->dev_mu);
        t.gpu_total_ms = now_ms() - t3;
    }
    slot_release(st, slot);
    t.total_ms = now_ms() - t0;
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

static void cuda_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                     struct cuzk_backend_mem *out) {
    (void)be;
    (void)n_vars;
    (void)domain;
    /* everything a proof uses on the device is reserved at the key's upload; on the host it
     * allocates nothing but its stack */
    memset(out, 0, sizeof *out);
}

static int cuda_witness_alloc(const struct cuzk_backend *be, size_t n, cuzk_fr **out) {
    struct cuda_state *st = be->impl;
    void *p;
    int rc = cuzk_gpu_pinned_alloc(n * sizeof(cuzk_fr), &p);
    if (rc) return rc;
    atomic_fetch_add(&st->pinned, n * sizeof(cuzk_fr));
    *out = p;
    return CUZK_OK;
}

static void cuda_witness_free(const struct cuzk_backend *be, cuzk_fr *w, size_t n) {
    struct cuda_state *st = be->impl;
    cuzk_gpu_pinned_free(w, n * sizeof(cuzk_fr));
    atomic_fetch_sub(&st->pinned, n * sizeof(cuzk_fr));
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
    size_t free_b = 0, total_b = 0;
    cuzk_gpu_mem_info(device, &free_b, &total_b);
    st->vram_budget = total_b > CUZK_CUDA_VRAM_RESERVE ? total_b - CUZK_CUDA_VRAM_RESERVE : 0;
    st->fold_min = CUZK_CUDA_FOLD_MIN;
    st->fold_dense_min = CUZK_CUDA_FOLD_DENSE_MIN;
    st->overlap = 1;
    st->presum = 1;
    pthread_mutex_init(&st->slot_mu, NULL);
    pthread_cond_init(&st->slot_cv, NULL);
    pthread_mutex_init(&st->dev_mu, NULL);
    pthread_mutex_init(&st->info_mu, NULL);
    be->name = "cuda";
    be->impl = st;
    be->prove = cuda_prove;
    be->mem = cuda_mem;
    be->witness_alloc = cuda_witness_alloc;
    be->witness_free = cuda_witness_free;
    be->key_upload = cuda_key_upload;
    be->key_drop = cuda_key_drop;
    return CUZK_OK;
}

void cuzk_cuda_backend_free(struct cuzk_backend *be) {
    struct cuda_state *st = be->impl;
    if (!st) return;
    while (st->keys) key_unlink(st, &st->keys);
    work_drop(st);
    pthread_mutex_destroy(&st->slot_mu);
    pthread_cond_destroy(&st->slot_cv);
    pthread_mutex_destroy(&st->dev_mu);
    pthread_mutex_destroy(&st->info_mu);
    free(st);
    memset(be, 0, sizeof *be);
}

int cuzk_cuda_backend_set_vram_budget(struct cuzk_backend *be, uint64_t bytes) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    size_t free_b = 0, total_b = 0;
    cuzk_gpu_mem_info(st->device, &free_b, &total_b);
    if (bytes > total_b) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    st->vram_budget = bytes                              ? bytes
                      : total_b > CUZK_CUDA_VRAM_RESERVE ? total_b - CUZK_CUDA_VRAM_RESERVE
                                                         : 0;
    st->fold_refused = 0;
    st->presum_refused = 0;
    st->presum_g2_refused = 0;
    pthread_mutex_unlock(&st->dev_mu);
    return CUZK_OK;
}

int cuzk_cuda_backend_set_fold_min(struct cuzk_backend *be, size_t points) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    st->fold_min = points;
    st->fold_refused = 0;
    pthread_mutex_unlock(&st->dev_mu);
    return CUZK_OK;
}

int cuzk_cuda_backend_set_fold_dense_min(struct cuzk_backend *be, size_t points) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    st->fold_dense_min = points;
    st->fold_refused = 0;
    pthread_mutex_unlock(&st->dev_mu);
    return CUZK_OK;
}

int cuzk_cuda_backend_set_presum(struct cuzk_backend *be, int on) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    atomic_store(&st->presum, on ? 1 : 0);
    st->presum_refused = 0;
    st->presum_g2_refused = 0;
    pthread_mutex_unlock(&st->dev_mu);
    return CUZK_OK;
}

int cuzk_cuda_backend_set_overlap(struct cuzk_backend *be, int on) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    atomic_store(&st->overlap, on ? 1 : 0);
    return CUZK_OK;
}

int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk, char *err,
                              size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    return cuda_key_upload(be, pk, NULL, err, errlen);
}

int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    int rc = CUZK_ENOTFOUND;
    pthread_mutex_lock(&st->dev_mu);
    if (!pk) {
        while (st->keys) key_unlink(st, &st->keys);
        rc = CUZK_OK;
    }
    for (struct key_entry **l = &st->keys; *l;) {
        if ((*l)->uid == pk->uid) {
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
    struct key_entry *k = key_find(st, pk->uid);
    if (k) bytes = k->bytes;
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
    out->vram_budget = st->vram_budget;
    out->pinned = atomic_load(&st->pinned);
    out->proofs = atomic_load(&st->proofs);
    out->folded = atomic_load(&st->n_folded);
    out->dense_folded = atomic_load(&st->n_dense_folded);
    out->presum_space = atomic_load(&st->work_presum);
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

int cuzk_cuda_batch_mul(int device, int g2, const void *base, const cuzk_fr *scalars, size_t n,
                        void *out, char *err, size_t errlen) {
    int rc = g2 ? cuzk_gpu_g2_batch_mul(device, base, scalars, n, out)
                : cuzk_gpu_g1_batch_mul(device, base, scalars, n, out);
    if (!rc) return CUZK_OK;
    const char *why = rc == CUZK_ENOMEM ? "" : cuzk_gpu_msm_last_error();
    return cuzk_errf(err, errlen, rc, "%s%s%s", cuzk_strerror(rc), *why ? ": " : "", why);
}
