/* The memory budget: one byte count that every large host allocation of the engine is charged
 * to before it is made, so the process stays within a configured size.
 *
 * Contract:
 *   - The total is "auto" (MemTotal of /proc/meminfo minus a safety margin) or an explicit
 *     size; cuzk_budget_total parses both and rejects bad strings (never a silent default).
 *   - A reservation is taken before the memory it stands for is allocated and is released
 *     (in parts or whole) after that memory is freed. cuzk_budget_reserve blocks until the
 *     bytes fit; it fails at once with CUZK_ENOMEM for a request larger than the total, and
 *     with CUZK_ECANCELLED when its abort callback says so. Waiting uses a condition variable
 *     with the fit test under the same mutex as every release, so no wake-up is lost.
 *   - Before waiting, and again every second while waiting, the evictor callback (if set) is
 *     asked to free `need` bytes from idle caches; it is called without the budget's lock
 *     held and frees by releasing reservations it owns. It is told the request is urgent when
 *     no partition memory is in use (nothing else will free memory), so it may then ignore
 *     its idle-time rule: this prevents a deadlock between caches and a waiting request.
 *   - Bytes are counted per owner (partition, key, constraint system, other) for the status.
 *   - cuzk_budget_force charges bytes without waiting (inputs that have already arrived); the
 *     budget may then be over its total until they are released, and reserve waits meanwhile.
 * Thread-safety: every function is thread-safe. A struct cuzk_reservation belongs to one
 * thread at a time (hand it over with the object it pays for). The abort callback runs under
 * the budget's lock: it must only read atomics. */
#ifndef CUZK_ENGINE_BUDGET_H
#define CUZK_ENGINE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"

struct cuzk_budget;

struct cuzk_reservation {
    struct cuzk_budget *budget; /* NULL: empty */
    uint64_t bytes;             /* still held */
    enum cuzk_mem_owner owner;
};

/* Frees bytes from caches; returns how many it released (0 if nothing could go). */
typedef uint64_t (*cuzk_budget_evictor)(void *ctx, uint64_t need, int urgent);
/* Non-zero: stop waiting (CUZK_ECANCELLED). */
typedef int (*cuzk_budget_abort)(void *ctx);

/* total_spec "auto" or a size; margin a size (used with "auto" only). Returns CUZK_OK or
 * CUZK_EINVAL / CUZK_EIO (unreadable /proc/meminfo) with a sentence in err. */
int cuzk_budget_total(const char *total_spec, const char *margin, uint64_t *out, char *err,
                      size_t errlen);

int cuzk_budget_create(struct cuzk_budget **out, uint64_t total);
/* All reservations must have been released. */
void cuzk_budget_destroy(struct cuzk_budget *b);
void cuzk_budget_set_evictor(struct cuzk_budget *b, cuzk_budget_evictor fn, void *ctx);

/* Blocks until `bytes` fit, then fills *r. abort may be NULL. *waited_ms (may be NULL) = the
 * time spent waiting. Returns CUZK_OK, CUZK_ENOMEM (bytes > total), CUZK_ECANCELLED. */
int cuzk_budget_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                        cuzk_budget_abort abort, void *abort_ctx, struct cuzk_reservation *r,
                        double *waited_ms);
/* Non-blocking: CUZK_OK or CUZK_EBUSY (no evictor call). */
int cuzk_budget_try_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                            struct cuzk_reservation *r);
/* Charges bytes now, even beyond the total. */
void cuzk_budget_force(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                       struct cuzk_reservation *r);
/* Returns min(bytes, r->bytes) of the reservation to the budget and wakes the waiters. */
void cuzk_reservation_release(struct cuzk_reservation *r, uint64_t bytes);
/* Releases everything left; the reservation becomes empty. Safe on an empty one. */
void cuzk_reservation_release_all(struct cuzk_reservation *r);
/* Wakes every waiter so that it re-checks its abort callback. */
void cuzk_budget_wake(struct cuzk_budget *b);

struct cuzk_budget_stats {
    uint64_t total, used;
    uint64_t by_owner[CUZK_MEM_OWNERS];
    uint32_t waiters;
    uint64_t peak_used;
};
void cuzk_budget_get_stats(struct cuzk_budget *b, struct cuzk_budget_stats *out);

/* malloc_trim(0) when freed >= threshold; returns the milliseconds it took (0 if skipped). */
double cuzk_budget_trim(uint64_t freed, uint64_t threshold);

#endif
