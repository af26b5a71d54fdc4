/* The SRS manager: the proving keys the engine holds, loaded on demand (or by preload),
 * shared by reference count, evicted when idle.
 *
 * Contract:
 *   - Entries are named (kind, key id). Tiers: COLD (known, not in memory; also while
 *     loading), WARM (in host memory), HOT (also resident on the devices through their
 *     key_upload hooks; devices without hooks keep keys WARM).
 *   - cuzk_srs_acquire returns a referenced entry whose key stays valid until the matching
 *     cuzk_srs_release. The first acquirer of a COLD key loads it: it charges the kind's
 *     key_sizes (key bytes as CUZK_MEM_KEY, private data as CUZK_MEM_CS) to the budget first
 *     (blocking), then calls key_load; concurrent acquirers of the same key wait for that load
 *     instead of loading twice. A failed load leaves the entry COLD and is reported to the
 *     loader; waiters then try themselves.
 *   - Eviction frees only entries with no reference: explicitly (cuzk_srs_evict), when idle
 *     for max_idle (cuzk_srs_evict_idle with need = UINT64_MAX), or under memory pressure as
 *     the budget's evictor (least recently used first, idle at least min_idle unless urgent).
 *   - Load time and size of each entry are kept for the status.
 * DESIGN: one mutex guards the table; a condition variable signals the end of every load.
 * Loads, uploads and frees run without the lock (they take the budget's lock and may take
 * seconds). Thread-safety: every function is thread-safe except create/destroy. */
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

/* devs (may be NULL when n_devs = 0) is borrowed: the hooks in it must outlive the manager.
 * extra (may be NULL) gives host bytes that proving with a key of these sizes keeps besides
 * the key (e.g. the CPU backend's NTT domain cache); they are charged with the key. */
int cuzk_srs_create(struct cuzk_srs **out, struct cuzk_budget *budget, struct cuzk_pool *pool,
                    const struct cuzk_engine_device *devs, size_t n_devs, uint64_t min_idle_ms,
                    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz),
                    void *extra_ctx);
/* Frees every key; no entry may be referenced. */
void cuzk_srs_destroy(struct cuzk_srs *s);

/* *loaded_now (may be NULL) = 1 when this call loaded the key; *wait_ms (may be NULL) = time
 * spent (0 for a warm key). abort is passed to the budget (may be NULL). */
int cuzk_srs_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                     cuzk_budget_abort abort, void *abort_ctx, struct cuzk_srs_entry **out,
                     int *loaded_now, double *wait_ms, char *err, size_t errlen);
const struct cuzk_kind_key *cuzk_srs_key(const struct cuzk_srs_entry *e);
void cuzk_srs_release(struct cuzk_srs *s, struct cuzk_srs_entry *e);

/* CUZK_OK (*freed = bytes released), CUZK_ENOTFOUND (not loaded), CUZK_EBUSY (referenced or
 * loading). kind is the kind's name. */
int cuzk_srs_evict(struct cuzk_srs *s, const char *kind, const char *key_id, uint64_t *freed);
/* Evicts unreferenced entries idle >= min_idle_ms (any idle time when urgent), least
 * recently used first, until at least need bytes are freed. Returns the bytes freed. */
uint64_t cuzk_srs_evict_idle(struct cuzk_srs *s, uint64_t need, uint64_t min_idle_ms, int urgent);
/* The budget evictor: cuzk_srs_evict_idle with the manager's min_idle. */
uint64_t cuzk_srs_evictor(void *srs, uint64_t need, int urgent);

/* Every known entry; *out is malloc'd (free()), NULL when n = 0. Returns CUZK_OK/ENOMEM. */
int cuzk_srs_snapshot(struct cuzk_srs *s, struct cuzk_status_srs **out, size_t *n);

#endif
