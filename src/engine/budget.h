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
 *   - Order: every request has a rank (smaller = first: priority, then age; cuzk_budget_rank).
 *     A request that waits for memory leaves a claim (the blocking reserve does so itself; the
 *     dispatcher, which never blocks, sets one with cuzk_budget_claim_set). Other requests may
 *     take memory before a claim of a smaller rank only while the claim is younger than the
 *     overtake time; after that, what fits is held back for it, so that what running work
 *     frees goes to it first and no stream of small requests can starve a large one.
 *   - A listener (optional) is told after every release, with no lock held: the engine's
 *     dispatcher re-examines its queue then.
 *   - A blocking reserve that waits longer than CUZK_BUDGET_LOG_MS logs what it waits for
 *     (its description, the sizes, what the owners hold), once per CUZK_BUDGET_LOG_MS.
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
typedef void (*cuzk_budget_listener)(void *ctx);

#define CUZK_BUDGET_LOG_MS 10000 /* a wait this long is logged */

/* A request's place in line: priority (CUZK_PRIORITY_*), then the job's sequence number, then
 * the partition index. Smaller ranks go first. */
static inline uint64_t cuzk_budget_rank(int priority, uint64_t job_seq, uint32_t part) {
    return ((uint64_t)(3 - (priority & 3)) << 61) | ((job_seq & ((1ull << 45) - 1)) << 16) |
           (part & 0xffff);
}

/* A waiting request (see the contract). Owned by the waiter; linked into the budget while set. */
struct cuzk_budget_claim {
    uint64_t bytes, rank;
    double since; /* ms, when it was first set */
    int active;
    struct cuzk_budget_claim *next;
};

/* The total: `total` bytes, or 0 = auto: MemTotal of /proc/meminfo minus margin. Returns
 * CUZK_OK or CUZK_EINVAL / CUZK_EIO (unreadable /proc/meminfo) with a sentence in err. */
int cuzk_budget_total(uint64_t total, uint64_t margin, uint64_t *out, char *err, size_t errlen);

int cuzk_budget_create(struct cuzk_budget **out, uint64_t total);
/* All reservations must have been released. */
void cuzk_budget_destroy(struct cuzk_budget *b);
void cuzk_budget_set_evictor(struct cuzk_budget *b, cuzk_budget_evictor fn, void *ctx);
void cuzk_budget_set_listener(struct cuzk_budget *b, cuzk_budget_listener fn, void *ctx);
/* The overtake time of claims (ms; default 2000). */
void cuzk_budget_set_overtake(struct cuzk_budget *b, uint64_t ms);

/* Blocks until `bytes` fit ahead of no older claim of a smaller rank, then fills *r. what
 * (may be NULL) names the request in the log line of a long wait. abort may be NULL.
 * *waited_ms (may be NULL) = the time spent waiting. Returns CUZK_OK, CUZK_ENOMEM (bytes >
 * total), CUZK_ECANCELLED. */
int cuzk_budget_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                        uint64_t rank, const char *what, cuzk_budget_abort abort, void *abort_ctx,
                        struct cuzk_reservation *r, double *waited_ms);
/* Non-blocking, the same rule: CUZK_OK, or CUZK_EBUSY (no evictor call). */
int cuzk_budget_try_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                            uint64_t rank, struct cuzk_reservation *r);
/* Sets (or updates: its age is kept) and clears a claim of a request that waits elsewhere. */
void cuzk_budget_claim_set(struct cuzk_budget *b, struct cuzk_budget_claim *c, uint64_t bytes,
                           uint64_t rank);
void cuzk_budget_claim_clear(struct cuzk_budget *b, struct cuzk_budget_claim *c);
/* Asks the evictor (when set) to free need bytes, as a waiting reserve would. Returns what it
 * freed. No lock may be held by the caller. */
uint64_t cuzk_budget_evict(struct cuzk_budget *b, uint64_t need);
/* Returns min(bytes, r->bytes) of the reservation to the budget and wakes the waiters. */
void cuzk_reservation_release(struct cuzk_reservation *r, uint64_t bytes);
/* Moves min(bytes, from->bytes) of from into to, as owner: the budget's use is unchanged (no
 * one is woken), its use by owner follows. to must be empty or of from's budget and of that
 * owner (else nothing moves). Returns the bytes moved. */
uint64_t cuzk_reservation_move(struct cuzk_reservation *from, uint64_t bytes,
                               enum cuzk_mem_owner owner, struct cuzk_reservation *to);
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
