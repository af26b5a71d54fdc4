/* The CUDA backend's private structures and the functions its files share (cuda_backend.h is
 * the contract). The backend is split by responsibility:
 *   cuda_backend.c  init and free, the settings, the stats and the last timing, batch
 *                   multiplication, and the helpers every file uses (the clock, error text)
 *   cuda_vram.c     device memory and its policy: the work objects (the contexts and the work
 *                   area), the budget's checks, the presum space, the witness slots
 *   cuda_keys.c     key residency: uploads from host memory or the key file, drops and
 *                   evictions, the dense queries' folds after a key's first proof
 *   cuda_prove.c    one proof: the compute section (SpMV, h, the MSMs) and the witness buffers
 * Only these files include this header. The lock a function expects is stated at its definition
 * (and in the section titles of the prototypes below); the locks themselves are DESIGN's.
 *
 * DESIGN
 * Threads. prove runs on the caller's thread (the engine's device workers: two per device by
 * default) and creates none. A proof:
 *   1. takes a free witness slot of the work area (W or W1; st->slots, util/slots.h: waits
 *      when both are taken or while the work area is being resized, and waiters are served
 *      by their job's priority, hooks->priority, so that a CRITICAL proof is next), checks without
 * the device lock that the work objects fit the key (they change only while no slot is taken; when
 * they do not, it gives the slot back and grows them first), queues the witness's upload into the
 * slot on the area's copy stream, waits for it, then tells the caller the witness buffer is free
 * (witness_done);
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
 *      or W1 and S); overlap_ntt off (struct cuzk_cuda_config) runs them one after the other;
 *   3. gives the device and the slot back and assembles the proof on the host.
 * So while one proof computes, the next one's witness moves into the other slot (the copy
 * engine is independent of the compute units), and a proof that finds the GPU idle starts at
 * once. Only the compute section is serialised.
 *
 * Locks (never two held at once; a taken slot is not a lock: it is held across dev_mu):
 * the slots' own mutex (util/slots.h) guards which slots are taken, who waits, and the grants;
 * dev_mu guards every device object (contexts, work area, resident keys) and is held for a
 * proof's compute section, for key uploads and drops and for the per-key query; info_mu guards
 * the last timing and the plans' status line (refreshed by taking dev_mu, building the line,
 * giving dev_mu back, then taking info_mu: a status reader only tries dev_mu); plan_mu, a leaf
 * taken with no other lock held, guards the plans work_need remembers (their keys' rows may be
 * freed on the host once resident). A resize of the work area (a key larger than any before) first
 * quiesces the slots (no grant, and waits until no slot is taken: no upload can touch the area),
 * then rebuilds the area under dev_mu, then resumes them (one usable slot for a lean work space).
 * Totals for the stats are atomics, so status readers never wait for the device.
 *
 * Memory. Device: per backend one NTT context, one MSM context (max(n, n_vars) points, or a
 * slice of that: residency plans, below), a streamer when a plan streams, and the work area (A,
 * B, W, W1, S; C is the NTT context's own buffer), created at the first key and recreated larger
 * only for a larger key; the resident keys. Everything is charged to the device's ledger
 * (st->vram, groth16/vram.h: keys, work space, presum space) before it is allocated and every
 * decision whether something fits is the ledger's, with the parts being replaced left out. A key
 * that no residency plan holds in the budget even alone (cuzk_cuda_never_fits: every query
 * streamed, the smallest slice, no folding, no presum space) is refused with CUZK_EUNSUPPORTED (no
 * eviction helps), checked by an upload, by a proof about to grow the work objects and by key_make
 * (dev_mu held), never on a proof's witness path. Host: the pinned copies of streamed queries (the
 * key's, freed with it; charged by the engine before the upload through key_host); nothing on the
 * proof path.
 *
 * Residency plans (cuda_plan.h, cuda_query.c). Each key gets a plan from the device's budget
 * alone (other keys make room by eviction, as before): everything resident with the context
 * for its largest MSM (today's layout, then the optional folds and presum space as below); else
 * everything resident with a context for a slice (the four powers of two below the largest MSM,
 * and for rule 6 the smaller ones down to CUZK_CUDA_SLICE_MIN_TIGHT;
 * MSMs run slice by slice over the resident bases and their results are added on the host);
 * else a sliced context, a streamer (two staging buffers of a slice of G1 points) and the fewest
 * bytes of queries kept in pinned host memory, H first. A streamed query's MSM copies slice j + 1
 * into one staging buffer while slice j's MSM reads the other (cuzk_gpu_streamer_put/take), so
 * the link's time hides under the MSMs'. The plan is made at upload, logged with the sizes it
 * came from (any other budget's plan can be made from that line), kept in key_entry.plan, and
 * its device bytes are the key's charge; work_need asks for the plan's context and streamer. A
 * sliced plan's context is not enlarged for other keys (their MSMs run in slices too, with the
 * same results), and a sliced plan has no folding context.
 *
 * Lean work space (cuda_plan.h, rule 4: only for a budget that holds no other layout). The work
 * area has one witness slot (W, no W1), the gathered scalars live in C's room
 * (CUZK_GPU_G16_S_IN_C) and the NTT context's twiddle table in W's, which is wide enough for it
 * (CUZK_GPU_G16_W_WIDE, CUZK_GPU_NTT_LENT_TWIDDLES): three vectors fewer. A proof's phases
 * then never overlap: its witness upload writes over the table (compute marks it lost; the
 * first transform builds it again, about 2^log_n multiplications), the witness MSMs read W and S
 * before c = a o b is written into C, and h's transforms run after the witness MSMs, not beside
 * them; the next proof's upload waits for the one slot, and the caller's witness is held until
 * the compute section is over (witness_done after it: a plan with its rows in host memory
 * reads it there for the CPU's SpMV, rule 5). Lean work objects serve every key, as a
 * sliced context does (a key whose plan is not lean proves in them too), until they are
 * rebuilt.
 *
 * Rows in host memory (rule 5). The key's A/B rows are not uploaded; the key owns two pinned
 * domain vectors (key_entry.ab_host, charged through key_host with its streamed queries), into
 * which the compute section runs the CPU's SpMV (cuzk_groth16_pk_eval on the backend's pool) on
 * a thread of its own while the witness MSMs run on the device (they read W, not A or B), then
 * uploads them into A and B; spmv_ms is what the SpMV adds to the section after the MSMs.
 * key_needs_rows tells the SRS manager, which then has the kind keep the rows on the host when it
 * trims the key.
 *
 * Tight work space (rule 6, for 16 GiB cards). Three rooms: A, B and W (wide). The NTT
 * context owns only its coset tables: W lends it the twiddle table (as in the lean space) and
 * B its scratch (CUZK_GPU_NTT_LENT_SCRATCH); C, and so S, is B's room (CUZK_GPU_G16_C_IN_B).
 * The key owns three pinned domain vectors a, b, c (key_entry.ab_host). A proof: the witness
 * MSMs, with the gathered scalars in B, beside the CPU's SpMV and c = a o b into those vectors
 * (a key whose rows are on the device: its SpMV after the MSMs, a and b read back, c on the
 * CPU); then h_tight: c, a and b cross into A one after the other and are transformed there (c
 * to its coefficients or coset evaluations, a and b to a', b'), c's and a's results read back
 * over their inputs; a' into B, A = a' b', the inverse coset transform, c's result into C (B's
 * room) and h = (A - C) k; then the H MSM. 30 GB more cross the link per porep-c18 partition
 * than under rule 5 (five vectors up, two back: vec_mb). Such work objects serve no other
 * layout, so every key proved in them takes this path: a key whose plan is not tight gets its
 * three host vectors at its first proof there (cuzk_cuda_key_vectors), and key_host charges
 * them for keys uploaded while the space is tight (cuzk_cuda_host_vectors). The vectors of a
 * key uploaded before the space turned tight are made at that first proof, counted in
 * host_bases but not charged to the engine's host budget (a gap: such a key is small beside
 * the one whose plan made the space tight, a WinningPoSt key beside porep-c18, say).
 *
 * Folded H. A key whose H query has at least fold_min points (fold_h_min of struct
 * cuzk_cuda_config) has its H bases folded once at upload (cuzk_gpu_bases_fold: a second copy, the
 * multiples 2^T P, made on the device), and the MSM context is sized for folded MSMs
 * (CUZK_GPU_MSM_FOLD), so the H MSM takes the folded layout: the same point, fewer bucket
 * additions. Both are counted against the budget; when the budget cannot hold them (with the key)
 * the key stays plain (the context too, and the backend stops asking for a folding context until
 * the budget or the threshold is set again), which is logged.
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
 * dropped since: cuzk_cuda_presum_regain, logged); a failed allocation of it (PRESUM_FAILED) is not
 * tried again until the budget or the setting changes (cuzk_cuda_backend_configure). Refusals and
 * releases are logged. It is sized for G1 points, which leaves a G2 batch's later sets without the
 * level; after a key's first proof (after its dense folds) whose B2 query has at least
 * fold_dense_min points and took at least half its scalars through the windows, it grows to one
 * sized for G2 (cuzk_gpu_msm_ctx_set_presum: twice the bytes) when the budget holds the difference
 * (cuzk_cuda_presum_g2, logged). A rebuild of the work objects makes it sized for G1 again;
 * the key remembers its first proof's B2 (key_entry.dense_b2), so the next proof of such a key
 * grows it again. Refused for want of budget, the growth is tried again at each later proof
 * (the refusal logged once); a failed allocation of it is not tried again until the work
 * objects are rebuilt or the budget or the setting changes. */
#ifndef CUZK_GROTH16_CUDA_BACKEND_IMPL_H
#define CUZK_GROTH16_CUDA_BACKEND_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "groth16/cuda_backend.h"
#include "groth16/cuda_plan.h"
#include "groth16/vram.h"
#include "util/clock.h"
#include "util/slots.h"

#define SLOTS 2      /* witness slots: W and W1 */
#define PLAN_CACHE 8 /* plans remembered by key id (cuda_vram.c's plan_of) */
/* The smallest MSM slice a residency plan considers (cuzk_cuda_plan_sizes; the candidates are the
 * powers of two below a key's largest MSM, CUZK_CUDA_PLAN_SLICES_MAIN of them for every rule, so
 * this bounds small keys only, as in tests): below it an MSM's fixed costs outweigh what a slice
 * holds. Rule 6 also has the smaller ones after those, down to CUZK_CUDA_SLICE_MIN_TIGHT: for a
 * 2^27 key, 2^22 to 2^20 (each halving saves about 0.5 GiB of context and staging). */
#define CUZK_CUDA_SLICE_MIN ((size_t)1 << 8)
#define CUZK_CUDA_SLICE_MIN_TIGHT ((size_t)1 << 20)

/* The work space's kinds (cuzk_cuda_work_bytes_for, cuda_state.cap_space): today's, the lean
 * one (rule 4 of cuda_plan.h) and the tight one (rule 6), each smaller than the one before. */
enum { SPACE_FULL = 0, SPACE_LEAN = 1, SPACE_TIGHT = 2 };

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
    int learned; /* the dense queries' folds were decided (after the first proof) */
    size_t
        dense_b2; /* the first proof's B2 scalars that took the windows (for cuzk_cuda_presum_g2) */
    unsigned n_dense;           /* queries folded so */
    struct cuzk_cuda_plan plan; /* its residency plan (see DESIGN) */
    /* the host vectors (cuzk_cuda_host_vectors): a plan with its rows in host memory keeps
     * pinned a and b of the CPU's SpMV there, a tight work space c too (a, b, c in order) */
    void *ab_host;
    size_t ab_bytes;                  /* their bytes (2 or 3 domain vectors) */
    void *host[CUZK_CUDA_Q_N];        /* the streamed queries' pinned copies (LEM) */
    size_t host_bytes[CUZK_CUDA_Q_N]; /* their bytes */
    double last_used;
    struct key_entry *next;
};

struct cuda_state {
    int device;
    struct cuzk_pool *pool;
    /* the device's memory: its budget and what each part holds (vram.h, the one owner; changed
     * under dev_mu, read by the plans and the stats without it) */
    struct cuzk_vram vram;

    /* the witness slots W and W1 (one in a lean work space), granted by the job's priority;
     * quiesced while the work objects are rebuilt (see DESIGN) */
    struct cuzk_slots slots;
    atomic_uint places; /* the slots usable (the vtable's places): set with each resume */

    pthread_mutex_t dev_mu;
    struct cuzk_gpu_ntt_ctx *ntt;
    struct cuzk_gpu_msm_ctx *msm;
    struct cuzk_gpu_g16 *g16;
    int cap_log_n; /* the sizes the work objects have */
    size_t cap_w;
    atomic_size_t cap_msm; /* set under dev_mu; read by the stats without it */
    int cap_fold;          /* the MSM context folds (CUZK_GPU_MSM_FOLD) */
    /* the work space's kind (SPACE_*; cuda_plan.h, rules 4 and 6; see DESIGN): one slot when
     * lean or tight; set under dev_mu while the slots are quiesced (none taken), read under a
     * taken slot */
    atomic_int cap_space;
    size_t cap_stage;                   /* the streamer's buffer bytes (0: no streamer) */
    struct cuzk_gpu_streamer *streamer; /* for the streamed queries (see DESIGN) */
    /* the MSM context's presum space: 0 none, 1 sized for G1, 2 for G2; an atomic, since
     * cuzk_cuda_room_for and cuzk_cuda_presum_g2 change it under dev_mu while
     * cuzk_cuda_work_fits_pk may read it */
    atomic_int cap_presum;
    /* read without dev_mu by cuzk_cuda_work_fits_pk (under a witness slot), set by
     * cuzk_cuda_backend_configure: atomics */
    atomic_int fold_refused;   /* the budget could not hold a folding context: do not ask again */
    atomic_int presum;         /* the MSM context is to have a presum space (cfg.presum) */
    atomic_int presum_refused; /* 0, or why the context has none: PRESUM_BUDGET, PRESUM_FAILED */
    int presum_g2_refused;     /* nor one sized for G2 (the same values; dev_mu) */
    atomic_size_t fold_min;    /* H queries of at least this many points are folded (0: never) */
    atomic_size_t fold_dense_min; /* dense queries of at least this many points: after a proof */
    atomic_int overlap;           /* h's transforms run beside the witness MSMs (compute) */
    atomic_int work_presum;       /* cap_presum of the work objects that exist (for stats) */
    atomic_int broken; /* a GPU failure: rebuilt (cuzk_cuda_work_grow) before the next use */
    struct key_entry *keys;

    /* the plans work_need made from keys with their rows in host memory (see plan_of in
     * cuda_vram.c); plan_mu is a leaf, taken with no other lock held */
    pthread_mutex_t plan_mu;
    struct {
        uint64_t uid, budget;
        int used, rc;
        struct cuzk_cuda_plan plan;
    } plan_cache[PLAN_CACHE];
    unsigned plan_next;

    pthread_mutex_t info_mu;
    struct cuzk_cuda_timing last;
    int have_last;
    /* the resident keys' residency plans, one line for status pages (cuzk_cuda_describe):
     * refreshed after an upload and whenever a status reader finds the device free; info_mu */
    char plans[768];
    uint64_t plans_gen; /* keys_gen of that line */
    uint64_t keys_gen;  /* counts the changes of the resident keys (dev_mu) */

    atomic_size_t n_keys, pinned, proofs, n_folded, n_dense_folded;
    atomic_size_t host_bases, n_streamed; /* pinned copies of streamed queries, such keys */
    atomic_size_t link_bytes, link_us;    /* the streamer's copies: bytes, device time (us) */
};

/* The GPU module whose last error explains a failure (each keeps it per thread). */
enum gpu_mod { MOD_HOST, MOD_NTT, MOD_MSM, MOD_G16, MOD_PTS };

/* A key's queries, in the order their dense folds are tried (see DESIGN). */
enum query { Q_B2, Q_H, Q_A, Q_B1, Q_C, Q_N };

/* ---- cuda_backend.c ----------------------------------------------------------------------- */

int cuzk_cuda_failed(char *err, size_t errlen, const char *stage, enum gpu_mod m, int rc);

/* ---- cuda_vram.c: the work objects, the budget, the slots (dev_mu held unless said) ------- */

void cuzk_cuda_work_drop(struct cuda_state *st);
uint64_t cuzk_cuda_work_bytes_for(int log_n, size_t nw, size_t msm_n, int fold, int presum,
                                  uint64_t stage, int space);
int cuzk_cuda_lean_log_n(int log_n, size_t nw);
int cuzk_cuda_room_for(struct cuda_state *st, uint64_t need, const char *what);
uint64_t cuzk_cuda_h_fold_bytes(const struct cuzk_groth16_pk *pk);
int cuzk_cuda_fold_wanted(struct cuda_state *st, const struct cuzk_groth16_pk *pk);
int cuzk_cuda_work_fits_pk(struct cuda_state *st, const struct cuzk_groth16_pk *pk);
int cuzk_cuda_never_fits_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                                const char *what, char *err, size_t errlen);
int cuzk_cuda_never_fits(struct cuda_state *st, const struct cuzk_groth16_pk *pk, const char *what,
                         char *err, size_t errlen);
int cuzk_cuda_slot_acquire(struct cuda_state *st, int priority);
void cuzk_cuda_slot_release(struct cuda_state *st, int s);
int cuzk_cuda_work_grow(struct cuda_state *st, const struct cuzk_groth16_pk *pk, char *err,
                        size_t errlen);
void cuzk_cuda_presum_regain(struct cuda_state *st);
void cuzk_cuda_presum_g2(struct cuda_state *st, const struct key_entry *k);

/* ---- cuda_keys.c: the resident keys (dev_mu held unless said) ----------------------------- */

void cuzk_cuda_key_unlink(struct cuda_state *st, struct key_entry **link);
struct key_entry *cuzk_cuda_key_find(struct cuda_state *st, uint64_t uid);
uint64_t cuzk_cuda_key_bytes_for(const struct cuda_state *st, const struct cuzk_groth16_pk *pk);
/* The bytes of host vectors a key of plan and domain needs on this device (see DESIGN, "Tight
 * work space"): none, a and b (rows in host memory), or a, b and c (a tight plan, or any key
 * while the work space is tight). Reads cap_space without a lock. */
size_t cuzk_cuda_host_vectors(const struct cuda_state *st, const struct cuzk_cuda_plan *plan,
                              uint32_t domain);
/* Gives k host vectors of at least bytes (pinned, counted in host_bases; what it had is freed):
 * CUZK_OK or the allocation's error with err set. */
int cuzk_cuda_key_vectors(struct cuda_state *st, struct key_entry *k, size_t bytes, char *err,
                          size_t errlen);
int cuzk_cuda_key_resident_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                                  struct key_entry **out, double *ms, char *err, size_t errlen);
int cuzk_cuda_fold_dense(struct cuda_state *st, struct key_entry *k, const size_t dense[Q_N]);
/* the vtable's key_upload, key_drop and key_host (they take dev_mu) */
int cuzk_cuda_key_upload(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                         uint64_t *vram_bytes, char *err, size_t errlen);
void cuzk_cuda_key_drop(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
uint64_t cuzk_cuda_key_host(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
int cuzk_cuda_key_needs_rows(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
unsigned cuzk_cuda_places(const struct cuzk_backend *be);
void cuzk_cuda_describe(const struct cuzk_backend *be, char *buf, size_t len);
int cuzk_cuda_device_info(const struct cuzk_backend *be, int *ordinal, uint64_t *total,
                          uint64_t *free_now);
void cuzk_cuda_plans_refresh(struct cuda_state *st, int wait);

/* ---- cuda_query.c: residency plans, streamed queries, the MSM over a query --------------- */

/* The sizes a plan for pk on this device is made from (its budget, the sizing functions). */
void cuzk_cuda_plan_sizes(const struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                          struct cuzk_cuda_plan_sizes *s);
/* cuzk_cuda_plan_make on them. */
int cuzk_cuda_plan_for(const struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                       struct cuzk_cuda_plan *plan, char *err, size_t errlen);
/* The streamer's buffer bytes a plan needs (0 when it streams nothing). */
uint64_t cuzk_cuda_stage_bytes(const struct cuzk_cuda_plan *plan);
/* Fills k->host[q], the pinned copy of streamed query q, from pk's host points or its key file
 * (decoded on the device chunk by chunk). dev_mu held. */
int cuzk_cuda_query_host(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                         struct key_entry *k, int q, char *err, size_t errlen);
void cuzk_cuda_query_host_free(struct cuda_state *st, struct key_entry *k);
/* *out (cuzk_g1, or cuzk_g2 for B2) = the MSM of query q (enum cuzk_cuda_query) over n device
 * scalars: from its resident bases, in slices of the MSM context's size, or streamed from its
 * host copy through the streamer. *windowed = the scalars its windows took. dev_mu held. */
int cuzk_cuda_query_msm(struct cuda_state *st, const struct key_entry *k, int q,
                        const struct cuzk_gpu_bases *bases, const void *scalars, size_t n,
                        void *out, size_t *windowed);

/* ---- cuda_prove.c: the vtable's prove, mem, witness_alloc and witness_free ---------------- */

int cuzk_cuda_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                    const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                    const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                    struct cuzk_prove_info *info, char *err, size_t errlen);
void cuzk_cuda_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                   struct cuzk_backend_mem *out);
int cuzk_cuda_witness_alloc(const struct cuzk_backend *be, size_t n, cuzk_fr **out);
void cuzk_cuda_witness_free(const struct cuzk_backend *be, cuzk_fr *w, size_t n);

#endif
