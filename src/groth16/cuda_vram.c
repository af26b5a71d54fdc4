/* The CUDA backend's device memory and its policy (cuda_backend_impl.h): the work objects, the
 * budget's checks, the presum space and the witness slots. Its DESIGN opens cuda_backend_impl.h. */
#define _GNU_SOURCE
#include "groth16/cuda_backend_impl.h"

#include <stdio.h>

#include "cuzk/error.h"
#include "gpu/gpu_points.h"
#include "util/log.h"

/* ---- the work objects (dev_mu held) ------------------------------------------------------- */

void cuzk_cuda_work_drop(struct cuda_state *st) {
    cuzk_gpu_g16_free(st->g16); /* first: it borrows the NTT context's buffer */
    cuzk_gpu_ntt_ctx_free(st->ntt);
    cuzk_gpu_msm_ctx_free(st->msm);
    cuzk_gpu_streamer_free(st->streamer);
    st->streamer = NULL;
    st->g16 = NULL;
    st->ntt = NULL;
    st->msm = NULL;
    cuzk_vram_set(&st->vram, CUZK_VRAM_WORK, 0);
    cuzk_vram_set(&st->vram, CUZK_VRAM_PRESUM, 0);
    atomic_store(&st->work_presum, 0);
}

/* The work area's optional vectors: a second witness slot and S of its own, or the lean area's
 * S in C's room and a W wide enough to lend the NTT context its twiddle table, or the tight
 * area's C (and so S) in B's room (see DESIGN). */
static unsigned g16_flags(int space) {
    return space == SPACE_TIGHT  ? CUZK_GPU_G16_S_IN_C | CUZK_GPU_G16_W_WIDE | CUZK_GPU_G16_C_IN_B
           : space == SPACE_LEAN ? CUZK_GPU_G16_S_IN_C | CUZK_GPU_G16_W_WIDE
                                 : CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S;
}

/* The NTT context's flags: its twiddle table lent by W in a lean or tight space, its scratch
 * by B in a tight one (no buffer then: C is B's room). */
static unsigned ntt_flags(int space) {
    return space == SPACE_TIGHT  ? CUZK_GPU_NTT_LENT_TWIDDLES | CUZK_GPU_NTT_LENT_SCRATCH
           : space == SPACE_LEAN ? CUZK_GPU_NTT_LENT_TWIDDLES
                                 : 0u;
}

/* presum: 0 no presum space, 1 one sized for G1, 2 for G2 (CUZK_GPU_MSM_PRESUM_G2) */
static unsigned msm_flags(int fold, int presum) {
    return (fold ? CUZK_GPU_MSM_FOLD : 0u) | (presum ? CUZK_GPU_MSM_PRESUM : 0u) |
           (presum > 1 ? CUZK_GPU_MSM_PRESUM_G2 : 0u);
}

/* The NTT context's size in a lean or tight work space: S lives in C's room, so C (the
 * context's buffer, or B) holds at least nw elements. */
int cuzk_cuda_lean_log_n(int log_n, size_t nw) {
    while (log_n < CUZK_GPU_NTT_MAX_LOG && ((size_t)1 << log_n) < nw) log_n++;
    return log_n;
}

/* stage: the streamer's buffer bytes (0: none); space: SPACE_FULL, _LEAN or _TIGHT */
uint64_t cuzk_cuda_work_bytes_for(int log_n, size_t nw, size_t msm_n, int fold, int presum,
                                  uint64_t stage, int space) {
    if (space) log_n = cuzk_cuda_lean_log_n(log_n, nw);
    return cuzk_gpu_ntt_ctx_vram2(log_n, ntt_flags(space)) +
           cuzk_gpu_msm_ctx_vram2(msm_n, msm_flags(fold, presum)) +
           cuzk_gpu_g16_vram_for2((size_t)1 << log_n, nw, space != SPACE_TIGHT, g16_flags(space)) +
           (stage ? cuzk_gpu_streamer_vram_for(stage) : 0);
}

/* The bytes of a presum space of the level (see msm_flags) in the MSM context. */
static uint64_t presum_bytes_for(const struct cuda_state *st, int level) {
    if (!level) return 0;
    return cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, level)) -
           cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, 0));
}

static int work_create(struct cuda_state *st, char *err, size_t errlen) {
    int rc;
    const int space = atomic_load(&st->cap_space);
    if ((rc = cuzk_gpu_ntt_ctx_create2(st->device, st->cap_log_n, ntt_flags(space), &st->ntt)))
        return cuzk_cuda_failed(err, errlen, "NTT context", MOD_NTT, rc);
    if ((rc = cuzk_gpu_msm_ctx_create2(st->device, st->cap_msm,
                                       msm_flags(st->cap_fold, st->cap_presum), &st->msm))) {
        cuzk_cuda_work_drop(st);
        return cuzk_cuda_failed(err, errlen, "MSM context", MOD_MSM, rc);
    }
    if ((rc = cuzk_gpu_g16_create2(st->device, (size_t)1 << st->cap_log_n, st->cap_w,
                                   cuzk_gpu_ntt_ctx_buffer(st->ntt), g16_flags(space), &st->g16))) {
        cuzk_cuda_work_drop(st);
        return cuzk_cuda_failed(err, errlen, "work area", MOD_G16, rc);
    }
    /* the lean area's W room holds the twiddle table between the witness MSMs and the next
     * witness upload (cuzk_cuda_prove's compute marks it lost); the tight area's B room is the
     * transforms' scratch */
    if ((space && (rc = cuzk_gpu_ntt_ctx_lend_twiddles(
                       st->ntt, cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_W)))) ||
        (space == SPACE_TIGHT && (rc = cuzk_gpu_ntt_ctx_lend_scratch(
                                      st->ntt, cuzk_gpu_g16_vec(st->g16, CUZK_GPU_G16_B))))) {
        cuzk_cuda_work_drop(st);
        return cuzk_cuda_failed(err, errlen, "NTT context", MOD_NTT, rc);
    }
    if (st->cap_stage &&
        (rc = cuzk_gpu_streamer_create(st->device, st->cap_stage, &st->streamer))) {
        cuzk_cuda_work_drop(st);
        return cuzk_cuda_failed(err, errlen, "streamer", MOD_PTS, rc);
    }
    /* the ledger: the work objects, their presum space apart (the part that yields) */
    cuzk_vram_set(&st->vram, CUZK_VRAM_WORK,
                  cuzk_gpu_ntt_ctx_vram2(st->cap_log_n, ntt_flags(space)) +
                      cuzk_gpu_msm_ctx_vram2(st->cap_msm, msm_flags(st->cap_fold, 0)) +
                      cuzk_gpu_g16_vram(st->g16) +
                      (st->cap_stage ? cuzk_gpu_streamer_vram_for(st->cap_stage) : 0));
    cuzk_vram_set(&st->vram, CUZK_VRAM_PRESUM, presum_bytes_for(st, st->cap_presum));
    atomic_store(&st->work_presum, st->cap_presum);
    st->presum_g2_refused = 0;
    return CUZK_OK;
}

/* Whether need more bytes of keys or folds fit the budget (dev_mu held). The presum space
 * yields to them (see DESIGN): when they fit only without it, it is freed first (and not asked
 * for again until the budget or the setting changes), which is logged. */
int cuzk_cuda_room_for(struct cuda_state *st, uint64_t need, const char *what) {
    struct cuzk_vram *v = &st->vram;
    if (cuzk_vram_fits(v, need, 0)) return 1;
    if (!cuzk_vram_part(v, CUZK_VRAM_PRESUM) || !st->msm ||
        !cuzk_vram_fits(v, need, CUZK_VRAM_BIT(CUZK_VRAM_PRESUM)))
        return 0;
    const size_t freed = cuzk_gpu_msm_ctx_release_presum(st->msm);
    st->presum_refused =
        PRESUM_BUDGET; /* first: cuzk_cuda_work_fits_pk that sees no space sees it refused */
    st->cap_presum = 0;
    cuzk_vram_set(v, CUZK_VRAM_PRESUM, 0);
    atomic_store(&st->work_presum, 0);
    char held[128];
    cuzk_vram_describe(v, held, sizeof held);
    cuzk_log_info("cuda",
                  "device %d: presum space released (%zu bytes) for %s of %llu bytes: without it "
                  "the budget holds %s",
                  st->device, freed, what, (unsigned long long)need, held);
    return 1;
}

/* The bytes of pk's H query folded (its multiples: cuzk_gpu_bases_fold). */
uint64_t cuzk_cuda_h_fold_bytes(const struct cuzk_groth16_pk *pk) {
    return cuzk_gpu_bases_vram_for(CUZK_GPU_G1, cuzk_h_basis_points(pk->h_basis, pk->domain_size));
}

/* Whether pk's H query is to be folded (see DESIGN). */
int cuzk_cuda_fold_wanted(struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
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

/* pk's residency plan for work_need (no lock held: plan_mu is a leaf). A key's plan is made
 * while its rows are in host memory (before its upload) and remembered by its id and the budget:
 * a resident key's rows may be freed on the host since (the kind's trim), and a plan made
 * without them would differ from the one its upload followed; and a proof's witness path then
 * asks no sizing function again. */
static int plan_of(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                   struct cuzk_cuda_plan *plan) {
    const uint64_t budget = cuzk_vram_limit(&st->vram);
    int rc = CUZK_ENOTFOUND;
    pthread_mutex_lock(&st->plan_mu);
    for (unsigned i = 0; i < PLAN_CACHE; i++)
        if (st->plan_cache[i].used && st->plan_cache[i].uid == pk->uid &&
            st->plan_cache[i].budget == budget) {
            *plan = st->plan_cache[i].plan;
            rc = st->plan_cache[i].rc;
            break;
        }
    pthread_mutex_unlock(&st->plan_mu);
    if (rc != CUZK_ENOTFOUND) return rc; /* every proof of a known key: no sizing again */
    char err[8];
    rc = cuzk_cuda_plan_for(st, pk, plan, err, sizeof err);
    if (!pk->cs) return rc; /* made without the rows: not remembered */
    pthread_mutex_lock(&st->plan_mu);
    unsigned i = 0;
    while (i < PLAN_CACHE && !(st->plan_cache[i].used && st->plan_cache[i].uid == pk->uid)) i++;
    if (i == PLAN_CACHE) i = st->plan_next++ % PLAN_CACHE;
    st->plan_cache[i].used = 1;
    st->plan_cache[i].uid = pk->uid;
    st->plan_cache[i].budget = budget;
    st->plan_cache[i].rc = rc;
    st->plan_cache[i].plan = *plan;
    pthread_mutex_unlock(&st->plan_mu);
    return rc;
}

/* The sizes a key needs of the work objects, by its residency plan on this device (see
 * DESIGN): an MSM context of its largest MSM or of the plan's slice (then without folding), and
 * a streamer when it streams a query. A key no plan holds asks for today's layout (the refusal
 * is cuzk_cuda_never_fits'). */
static void work_need(struct cuda_state *st, const struct cuzk_groth16_pk *pk, int *log_n,
                      size_t *nw, size_t *msm_n, int *fold, uint64_t *stage, int *space) {
    size_t n = (size_t)1 << pk->log_n, m = n;
    if (pk->n_vars > m) m = pk->n_vars;
    *log_n = pk->log_n;
    *nw = pk->n_vars;
    *msm_n = m;
    *fold = cuzk_cuda_fold_wanted(st, pk) || dense_fold_possible(st, pk);
    *stage = 0;
    *space = SPACE_FULL;
    struct cuzk_cuda_plan plan;
    if (plan_of(st, pk, &plan) == CUZK_OK && plan.sliced) {
        *msm_n = plan.msm_max;
        *fold = 0;
        *stage = cuzk_cuda_stage_bytes(&plan);
        *space = plan.tight ? SPACE_TIGHT : plan.lean ? SPACE_LEAN : SPACE_FULL;
        if (*space) *log_n = cuzk_cuda_lean_log_n(pk->log_n, pk->n_vars);
    }
}

/* Whether the work objects fit (dev_mu held, or a witness slot: no resize runs while one is
 * taken, see DESIGN). A folding context is a wish the budget may have refused. A lean work
 * space serves every key (a key whose plan is not lean then proves in it too: one slot, no
 * overlap), as a sliced context does. */
static int work_fits(struct cuda_state *st, int log_n, size_t nw, size_t msm_n, int fold,
                     uint64_t stage, int space) {
    return st->g16 && !atomic_load(&st->broken) && st->cap_log_n >= log_n && st->cap_w >= nw &&
           st->cap_msm >= msm_n && st->cap_stage >= stage && atomic_load(&st->cap_space) >= space &&
           (st->cap_fold >= fold || st->fold_refused) &&
           (st->cap_presum >= atomic_load(&st->presum) || st->presum_refused);
}

int cuzk_cuda_work_fits_pk(struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
    int log_n, fold, space;
    size_t nw, msm_n;
    uint64_t stage;
    work_need(st, pk, &log_n, &nw, &msm_n, &fold, &stage, &space);
    return work_fits(st, log_n, nw, msm_n, fold, stage, space);
}

/* ---- keys the budget can never hold ------------------------------------------------------- */

/* CUZK_EUNSUPPORTED, with the sizes, when pk is not resident and no residency plan holds it in
 * the budget, not even with every query streamed, the smallest slices, no folding and no presum
 * space (dev_mu held): no eviction of other keys could make the room, so the caller (the SRS
 * manager) evicts none. CUZK_OK otherwise. */
int cuzk_cuda_never_fits_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                                const char *what, char *err, size_t errlen) {
    struct cuzk_cuda_plan plan;
    char why[384];
    if (cuzk_cuda_key_find(st, pk->uid) ||
        cuzk_cuda_plan_for(st, pk, &plan, why, sizeof why) == CUZK_OK)
        return CUZK_OK;
    return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                     "%s: %s (a domain of 2^%d, %u witness values; device %d), even with no "
                     "other key resident",
                     what, why, pk->log_n, pk->n_vars, st->device);
}

/* cuzk_cuda_never_fits_locked without dev_mu held: for an upload, or a proof about to grow the work
 * objects (both take the lock anyway), never on a proof's witness path. */
int cuzk_cuda_never_fits(struct cuda_state *st, const struct cuzk_groth16_pk *pk, const char *what,
                         char *err, size_t errlen) {
    pthread_mutex_lock(&st->dev_mu);
    int rc = cuzk_cuda_never_fits_locked(st, pk, what, err, errlen);
    pthread_mutex_unlock(&st->dev_mu);
    return rc;
}

/* ---- slots -------------------------------------------------------------------------------- */

int cuzk_cuda_slot_acquire(struct cuda_state *st, int priority) {
    return cuzk_slots_acquire(&st->slots, priority);
}

void cuzk_cuda_slot_release(struct cuda_state *st, int s) { cuzk_slots_release(&st->slots, s); }

unsigned cuzk_cuda_places(const struct cuzk_backend *be) {
    const struct cuda_state *st = be->impl;
    return st ? atomic_load(&st->places) : 0;
}

/* Grows the work objects for pk when they do not fit it: no slot may be in use meanwhile (see
 * DESIGN). Quiesces the slots, then takes dev_mu. */
int cuzk_cuda_work_grow(struct cuda_state *st, const struct cuzk_groth16_pk *pk, char *err,
                        size_t errlen) {
    int log_n, fold, space;
    size_t nw, msm_n;
    uint64_t stage;
    work_need(st, pk, &log_n, &nw, &msm_n, &fold, &stage, &space);
    /* a sliced plan's context is what the budget affords: a larger one is not kept for other
     * keys (their MSMs run in slices as well, with the same results) */
    const int sliced = msm_n < ((size_t)1 << pk->log_n) || msm_n < pk->n_vars;
    pthread_mutex_lock(&st->dev_mu);
    int fits = work_fits(st, log_n, nw, msm_n, fold, stage, space);
    pthread_mutex_unlock(&st->dev_mu);
    if (fits) return CUZK_OK;
    cuzk_slots_quiesce(&st->slots); /* no slot taken, none granted until resumed */

    int rc = CUZK_OK;
    pthread_mutex_lock(&st->dev_mu);
    if (!work_fits(st, log_n, nw, msm_n, fold, stage, space)) {
        if (st->cap_log_n > log_n) log_n = st->cap_log_n;
        if (st->cap_w > nw) nw = st->cap_w;
        /* a lean or tight work space is kept, as a sliced context is */
        if (st->g16 && atomic_load(&st->cap_space) > space) space = atomic_load(&st->cap_space);
        if (space) log_n = cuzk_cuda_lean_log_n(log_n, nw);
        if (st->cap_msm > msm_n && !sliced) msm_n = st->cap_msm;
        if (st->cap_stage > stage) stage = st->cap_stage;
        if (st->cap_fold > fold && !sliced) fold = st->cap_fold;
        if (st->fold_refused) fold = 0;
        int presum = atomic_load(&st->presum) && !st->presum_refused;
        uint64_t want = cuzk_cuda_work_bytes_for(log_n, nw, msm_n, fold, presum, stage, space);
        const uint64_t kb = cuzk_cuda_key_find(st, pk->uid) ? 0 : cuzk_cuda_key_bytes_for(st, pk);
        /* a presum space must leave room for the key with its folded H query: else none */
        const uint64_t kbf =
            kb && fold && cuzk_cuda_fold_wanted(st, pk) ? kb + cuzk_cuda_h_fold_bytes(pk) : kb;
        /* the new work objects replace the old ones: only the keys stay */
        const unsigned old = CUZK_VRAM_BIT(CUZK_VRAM_WORK) | CUZK_VRAM_BIT(CUZK_VRAM_PRESUM);
        struct cuzk_vram *v = &st->vram;
        if (presum && (kbf > UINT64_MAX - want || !cuzk_vram_fits(v, kbf + want, old))) {
            const uint64_t without =
                cuzk_cuda_work_bytes_for(log_n, nw, msm_n, fold, 0, stage, space);
            cuzk_log_info("cuda",
                          "device %d: no presum space in the MSM context: the budget of %llu "
                          "bytes holds %llu of keys and %llu of the new key (with its folded H "
                          "query), the work space would take %llu (%llu without)",
                          st->device, (unsigned long long)cuzk_vram_limit(v),
                          (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_KEYS),
                          (unsigned long long)kbf, (unsigned long long)want,
                          (unsigned long long)without);
            presum = 0;
            want = without;
            st->presum_refused = PRESUM_BUDGET;
        }
        /* a folding context must leave room for the key it is made for: else none */
        if (fold && !cuzk_vram_fits(v, kb + want, old)) {
            uint64_t plain = cuzk_cuda_work_bytes_for(log_n, nw, msm_n, 0, 0, stage, space);
            cuzk_log_info("cuda",
                          "device %d: no folding MSM context: the budget of %llu bytes holds "
                          "%llu of keys and %llu of the new key, the work space would take %llu "
                          "(%llu without folding)",
                          st->device, (unsigned long long)cuzk_vram_limit(v),
                          (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_KEYS),
                          (unsigned long long)kb, (unsigned long long)want,
                          (unsigned long long)plain);
            fold = 0; /* presum is 0 here: it asks for more room than folding */
            want = plain;
            st->fold_refused = 1;
        }
        if (!cuzk_vram_fits(v, want, old)) { /* (the old work objects count for nothing) */
            rc = cuzk_errf(
                err, errlen, CUZK_EGPUOOM,
                "work space: a domain of 2^%d with %zu witness values needs %llu "
                "bytes of device memory; the budget of %llu holds %llu of %zu "
                "resident keys",
                log_n, nw, (unsigned long long)want, (unsigned long long)cuzk_vram_limit(v),
                (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_KEYS), atomic_load(&st->n_keys));
        } else {
            int old_log_n = st->cap_log_n, old_fold = st->cap_fold, old_presum = st->cap_presum;
            const int old_space = atomic_load(&st->cap_space);
            size_t old_w = st->cap_w, old_msm = st->cap_msm, old_stage = st->cap_stage;
            cuzk_cuda_work_drop(st);
            atomic_store(&st->broken, 0);
            st->cap_log_n = log_n;
            st->cap_w = nw;
            st->cap_msm = msm_n;
            st->cap_stage = stage;
            st->cap_fold = fold;
            st->cap_presum = presum;
            atomic_store(&st->cap_space, space);
            rc = work_create(st, err, errlen);
            if (rc) { /* the next try sizes for its own key again, not for this one */
                st->cap_log_n = old_log_n;
                st->cap_w = old_w;
                st->cap_msm = old_msm;
                st->cap_stage = old_stage;
                st->cap_fold = old_fold;
                st->cap_presum = old_presum;
                atomic_store(&st->cap_space, old_space);
            }
        }
    }
    pthread_mutex_unlock(&st->dev_mu);

    /* a lean or tight work space has one witness slot (W) */
    const unsigned usable = atomic_load(&st->cap_space) ? 1 : SLOTS;
    atomic_store(&st->places, usable);
    cuzk_slots_resume(&st->slots, usable);
    return rc;
}

/* ---- the presum space after a proof (dev_mu held) ----------------------------------------- */

/* After a proof (dev_mu held): a presum space refused or released for want of budget is taken
 * back, sized for G1, when the budget holds it with the keys and the work space again (a key
 * was evicted or dropped since; see DESIGN). A failed allocation is not tried again. */
void cuzk_cuda_presum_regain(struct cuda_state *st) {
    if (st->cap_presum || st->presum_refused != PRESUM_BUDGET || !atomic_load(&st->presum) ||
        !st->msm || atomic_load(&st->broken))
        return;
    const uint64_t g1 = presum_bytes_for(st, 1);
    if (!cuzk_vram_fits(&st->vram, g1, CUZK_VRAM_BIT(CUZK_VRAM_PRESUM))) return; /* (it is 0) */
    const int rc = cuzk_gpu_msm_ctx_set_presum(st->msm, msm_flags(0, 1));
    if (rc) {
        st->presum_refused = PRESUM_FAILED;
        cuzk_log_warn("cuda", "device %d: presum space not taken back: %s: %s", st->device,
                      cuzk_strerror(rc), cuzk_gpu_msm_last_error());
        return;
    }
    st->cap_presum = 1; /* first: cuzk_cuda_work_fits_pk that sees it not refused sees the space */
    st->presum_refused = 0;
    cuzk_vram_set(&st->vram, CUZK_VRAM_PRESUM, g1);
    atomic_store(&st->work_presum, st->cap_presum);
    char held[128];
    cuzk_vram_describe(&st->vram, held, sizeof held);
    cuzk_log_info("cuda", "device %d: presum space taken back (%llu bytes): the budget holds %s",
                  st->device, (unsigned long long)g1, held);
}

/* After a proof of a learned key (dev_mu held, after cuzk_cuda_fold_dense on its first, and
 * after cuzk_cuda_presum_regain): a B2 query of at least fold_dense_min points whose first MSM
 * was dense grows a presum space sized for G1 to one sized for G2 (see DESIGN), when the budget
 * holds the difference; refused so, it grows at a later proof that finds the budget holding it
 * (logged once). A failed allocation leaves the space sized for G1 again, or none, and is not
 * retried in these work objects. */
void cuzk_cuda_presum_g2(struct cuda_state *st, const struct key_entry *k) {
    const size_t min = atomic_load(&st->fold_dense_min), dense_b2 = k->dense_b2;
    if (st->cap_presum != 1 || st->presum_g2_refused == PRESUM_FAILED || !st->msm ||
        atomic_load(&st->broken) || !min || k->n_b < min || 2 * dense_b2 < k->n_b)
        return;
    const uint64_t g1 = presum_bytes_for(st, 1), g2 = presum_bytes_for(st, 2);
    /* one for G2 replaces the one for G1 */
    if (!cuzk_vram_fits(&st->vram, g2, CUZK_VRAM_BIT(CUZK_VRAM_PRESUM))) {
        if (st->presum_g2_refused) return; /* logged at the refusal */
        st->presum_g2_refused = PRESUM_BUDGET;
        cuzk_log_info("cuda",
                      "device %d: presum space kept for G1: the budget of %llu bytes does not hold "
                      "the %llu bytes more of one for G2 (B2 of %u points, %zu of its scalars "
                      "took the windows)",
                      st->device, (unsigned long long)cuzk_vram_limit(&st->vram),
                      (unsigned long long)(g2 - g1), k->n_b, dense_b2);
        return;
    }
    int rc = cuzk_gpu_msm_ctx_set_presum(st->msm, msm_flags(0, 2));
    if (!rc) {
        st->cap_presum = 2;
        st->presum_g2_refused = 0;
        cuzk_vram_set(&st->vram, CUZK_VRAM_PRESUM, g2);
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
            cuzk_vram_set(&st->vram, CUZK_VRAM_PRESUM, 0);
            cuzk_log_warn("cuda", "device %d: presum space gone: %s", st->device,
                          cuzk_gpu_msm_last_error());
        }
    }
    atomic_store(&st->work_presum, st->cap_presum);
}
