/* The SRS manager: the proving keys the engine holds, loaded on demand (or by preload),
 * shared by reference count, evicted when idle.
 *
 * Contract:
 *   - Entries are named (kind, key id). Tiers: COLD (known, not in memory; also while
 *     loading), WARM (in host memory), HOT (resident on the devices through their backends'
 *     key_upload). A failed load leaves no entry behind.
 *   - The plan of a load: when every backend the engine proves with (devices and fallback)
 *     can hold keys (key_upload), the key is HOT only: the kind loads it without host points
 *     (cuzk_kind_load_opts), the devices upload it, the kind's key_trim frees what no device
 *     needs from host memory, and the budget is charged the kind's hot_load during the load
 *     and hot_keep after it. Otherwise the key is WARM (key_bytes + cs_bytes, load_scratch
 *     during the load) and also HOT on the devices that can hold it.
 *   - Upload failures: a device out of memory for the key (CUZK_EGPUOOM) first has the
 *     least recently used idle keys dropped, then the upload is tried again; a corrupt key
 *     file (CUZK_EFORMAT from the kind's load or from a device's upload) is reported to the
 *     kind (key_corrupt, which removes it) and the load starts over once. A HOT-only load whose
 * upload still fails fails with the backend's sentence; a WARM load keeps the key warm and logs a
 * warning.
 *   - cuzk_srs_acquire returns a referenced entry whose key stays valid until the matching
 *     cuzk_srs_release; the first acquirer of a COLD key loads it (blocking), concurrent
 *     acquirers wait for that load instead of loading twice; if it fails, each waiter tries
 *     once more itself. cuzk_srs_try_acquire never blocks: a loaded key is referenced,
 *     anything else answers CUZK_EAGAIN (the caller has the load done elsewhere).
 *   - Eviction frees only entries with no reference: explicitly (cuzk_srs_evict), when idle
 *     for max_idle (cuzk_srs_evict_idle with need = UINT64_MAX), or under memory pressure as
 *     the budget's evictor (least recently used first, idle at least min_idle unless urgent).
 *   - Load time and size of each entry are kept for the status.
 * DESIGN: one mutex guards the table; a condition variable signals the end of every load.
 * Loads, uploads and frees run without the lock (they take the budget's lock and may take
 * minutes). Thread-safety: every function is thread-safe except create/destroy. */
#ifndef CUZK_ENGINE_SRS_H
#define CUZK_ENGINE_SRS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/kind.h"

struct cuzk_srs;
struct cuzk_srs_entry;
struct cuzk_pool;
struct cuzk_backend;

/* backends (n of them; borrowed: they must outlive the manager) are every backend the engine
 * proves with; those with key_upload receive every key. extra (may be NULL) gives host bytes
 * that proving with a key of these sizes keeps besides the key (the CPU backend's NTT domain
 * tables); they are charged with the key. */
int cuzk_srs_create(struct cuzk_srs **out, struct cuzk_budget *budget, struct cuzk_pool *pool,
                    const struct cuzk_backend *const *backends, size_t n, uint64_t min_idle_ms,
                    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz),
                    void *extra_ctx);
/* Frees every key; no entry may be referenced. */
void cuzk_srs_destroy(struct cuzk_srs *s);

/* 1 when keys are HOT only (every backend can hold them). */
int cuzk_srs_hot_only(const struct cuzk_srs *s);
/* Host bytes a loaded key of these sizes stays charged for (the plan's steady charge, extra
 * included): what a job's key costs the budget besides its partitions. */
uint64_t cuzk_srs_key_charge(const struct cuzk_srs *s, const struct cuzk_kind_sizes *sz);

/* Blocking acquire (loads a cold key). rank orders the load's budget wait among the others;
 * abort is passed to the budget (may be NULL). *loaded_now (may be NULL) = 1 when this call
 * loaded the key; *wait_ms (may be NULL) = time spent (0 for a warm key). */
int cuzk_srs_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                     uint64_t rank, cuzk_budget_abort abort, void *abort_ctx,
                     struct cuzk_srs_entry **out, int *loaded_now, double *wait_ms, char *err,
                     size_t errlen);
/* Non-blocking: CUZK_OK (*out referenced) or CUZK_EAGAIN (cold or loading). */
int cuzk_srs_try_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                         struct cuzk_srs_entry **out);
const struct cuzk_kind_key *cuzk_srs_key(const struct cuzk_srs_entry *e);
void cuzk_srs_release(struct cuzk_srs *s, struct cuzk_srs_entry *e);

/* CUZK_OK (*freed = bytes released), CUZK_ENOTFOUND (not loaded), CUZK_EBUSY (referenced or
 * loading). kind is the kind's name. */
int cuzk_srs_evict(struct cuzk_srs *s, const char *kind, const char *key_id, uint64_t *freed);
/* 1 when the key is loaded or being loaded (a job for it needs no new setup). */
int cuzk_srs_present(struct cuzk_srs *s, const char *kind, const char *key_id);
/* Evicts unreferenced entries idle >= min_idle_ms (any idle time when urgent), least
 * recently used first, until at least need bytes are freed. Returns the bytes freed. */
uint64_t cuzk_srs_evict_idle(struct cuzk_srs *s, uint64_t need, uint64_t min_idle_ms, int urgent);
/* The budget evictor: cuzk_srs_evict_idle with the manager's min_idle. */
uint64_t cuzk_srs_evictor(void *srs, uint64_t need, int urgent);

/* Every known entry; *out is malloc'd (free()), NULL when n = 0. Returns CUZK_OK/ENOMEM. */
int cuzk_srs_snapshot(struct cuzk_srs *s, struct cuzk_status_srs **out, size_t *n);

#endif
