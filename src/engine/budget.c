/* DESIGN: one mutex guards the counters and the list of claims; one condition variable carries
 * every "memory came back" event. reserve tests the fit and waits under that mutex, release
 * changes the counters and broadcasts under it, so a release can never fall between a failed
 * test and the wait. The evictor and the listener run with the mutex dropped (they take the
 * SRS manager's and the engine's locks and call release, which takes this one): never two
 * locks at once. Waits are timed (1 s) so that caches that become idle enough while a request
 * waits are offered to the evictor again, and so that a claim's ageing is seen. */
#define _GNU_SOURCE
#include "engine/budget.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "util/log.h"
#include "util/clock.h"

#define BUDGET_RETRY_MS 1000 /* evictor retry period while a reservation waits */

struct cuzk_budget {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t total, used, peak;
    uint64_t by_owner[CUZK_MEM_OWNERS];
    uint32_t waiters;
    uint64_t overtake_ms;
    struct cuzk_budget_claim *claims;
    cuzk_budget_evictor evict;
    void *evict_ctx;
    cuzk_budget_listener listen;
    void *listen_ctx;
};

int cuzk_parse_size(const char *s, uint64_t *out) {
    if (!s) return CUZK_EINVAL;
    while (*s == ' ' || *s == '\t') s++;
    if (!(*s >= '0' && *s <= '9') && *s != '.') return CUZK_EINVAL;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0) || !isfinite(v)) return CUZK_EINVAL;
    while (*end == ' ') end++;
    static const struct {
        const char *unit;
        int shift;
    } units[] = {{"", 0},     {"B", 0},   {"K", 10},   {"KB", 10}, {"KiB", 10},
                 {"M", 20},   {"MB", 20}, {"MiB", 20}, {"G", 30},  {"GB", 30},
                 {"GiB", 30}, {"T", 40},  {"TB", 40},  {"TiB", 40}};
    size_t len = strlen(end);
    while (len && (end[len - 1] == ' ' || end[len - 1] == '\n')) len--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strlen(units[i].unit) != len || strncmp(units[i].unit, end, len)) continue;
        double bytes = ldexp(v, units[i].shift);
        if (bytes >= 18446744073709551616.0) return CUZK_EINVAL;
        if (units[i].shift == 0 && bytes != floor(bytes)) return CUZK_EINVAL;
        *out = (uint64_t)bytes;
        return CUZK_OK;
    }
    return CUZK_EINVAL;
}

int cuzk_budget_total(uint64_t total_bytes, uint64_t m, uint64_t *out, char *err, size_t errlen) {
    if (total_bytes) {
        *out = total_bytes;
        return CUZK_OK;
    }
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) {
        snprintf(err, errlen, "memory budget \"auto\": cannot read /proc/meminfo");
        return CUZK_EIO;
    }
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) break;
    fclose(f);
    if (!kb) {
        snprintf(err, errlen, "memory budget \"auto\": no MemTotal in /proc/meminfo");
        return CUZK_EIO;
    }
    uint64_t total = (uint64_t)kb * 1024;
    if (m >= total) {
        snprintf(err, errlen,
                 "safety margin %llu bytes is not below the machine's memory (%llu bytes)",
                 (unsigned long long)m, (unsigned long long)total);
        return CUZK_EINVAL;
    }
    *out = total - m;
    return CUZK_OK;
}

int cuzk_budget_create(struct cuzk_budget **out, uint64_t total) {
    struct cuzk_budget *b = calloc(1, sizeof *b);
    if (!b) return CUZK_ENOMEM;
    pthread_mutex_init(&b->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cv, &ca);
    pthread_condattr_destroy(&ca);
    b->total = total;
    b->overtake_ms = 2000;
    *out = b;
    return CUZK_OK;
}

void cuzk_budget_destroy(struct cuzk_budget *b) {
    if (!b) return;
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    free(b);
}

void cuzk_budget_set_evictor(struct cuzk_budget *b, cuzk_budget_evictor fn, void *ctx) {
    pthread_mutex_lock(&b->mu);
    b->evict = fn;
    b->evict_ctx = ctx;
    pthread_mutex_unlock(&b->mu);
}

void cuzk_budget_set_listener(struct cuzk_budget *b, cuzk_budget_listener fn, void *ctx) {
    pthread_mutex_lock(&b->mu);
    b->listen = fn;
    b->listen_ctx = ctx;
    pthread_mutex_unlock(&b->mu);
}

void cuzk_budget_set_overtake(struct cuzk_budget *b, uint64_t ms) {
    pthread_mutex_lock(&b->mu);
    b->overtake_ms = ms;
    pthread_mutex_unlock(&b->mu);
}

/* Bytes held back for aged claims that go before rank (under b->mu). */
static uint64_t held_for(const struct cuzk_budget *b, uint64_t rank, double now) {
    uint64_t held = 0;
    for (const struct cuzk_budget_claim *c = b->claims; c; c = c->next)
        if (c->rank < rank && now - c->since >= (double)b->overtake_ms) held += c->bytes;
    return held;
}

/* Whether bytes of a request of this rank fit now (under b->mu). */
static int fits(const struct cuzk_budget *b, uint64_t bytes, uint64_t rank, double now) {
    if (b->used > b->total || bytes > b->total - b->used) return 0;
    uint64_t held = held_for(b, rank, now);
    return held <= b->total - b->used - bytes;
}

static void claim_link(struct cuzk_budget *b, struct cuzk_budget_claim *c, uint64_t bytes,
                       uint64_t rank, double now) {
    c->bytes = bytes;
    c->rank = rank;
    if (!c->active) {
        c->since = now;
        c->active = 1;
        c->next = b->claims;
        b->claims = c;
    }
}

static void claim_unlink(struct cuzk_budget *b, struct cuzk_budget_claim *c) {
    if (!c->active) return;
    for (struct cuzk_budget_claim **l = &b->claims; *l; l = &(*l)->next)
        if (*l == c) {
            *l = c->next;
            break;
        }
    c->active = 0;
    c->next = NULL;
    pthread_cond_broadcast(&b->cv); /* what it held back is free for others again */
}

void cuzk_budget_claim_set(struct cuzk_budget *b, struct cuzk_budget_claim *c, uint64_t bytes,
                           uint64_t rank) {
    pthread_mutex_lock(&b->mu);
    claim_link(b, c, bytes, rank, cuzk_clock_ms());
    pthread_mutex_unlock(&b->mu);
}

void cuzk_budget_claim_clear(struct cuzk_budget *b, struct cuzk_budget_claim *c) {
    pthread_mutex_lock(&b->mu);
    claim_unlink(b, c);
    pthread_mutex_unlock(&b->mu);
}

uint64_t cuzk_budget_evict(struct cuzk_budget *b, uint64_t need) {
    pthread_mutex_lock(&b->mu);
    cuzk_budget_evictor ev = b->evict;
    void *ev_ctx = b->evict_ctx;
    int urgent = b->by_owner[CUZK_MEM_PARTITION] == 0;
    pthread_mutex_unlock(&b->mu);
    return ev ? ev(ev_ctx, need, urgent) : 0;
}

static void log_wait(const struct cuzk_budget *b, const char *what, uint64_t bytes, double waited) {
    cuzk_log_warn("budget",
                  "%s has waited %.0f s for %llu bytes: %llu of %llu in use (partitions %llu, "
                  "keys %llu, constraint systems %llu, other %llu), %llu held for older "
                  "requests",
                  what ? what : "a reservation", waited / 1e3, (unsigned long long)bytes,
                  (unsigned long long)b->used, (unsigned long long)b->total,
                  (unsigned long long)b->by_owner[CUZK_MEM_PARTITION],
                  (unsigned long long)b->by_owner[CUZK_MEM_KEY],
                  (unsigned long long)b->by_owner[CUZK_MEM_CS],
                  (unsigned long long)b->by_owner[CUZK_MEM_OTHER],
                  (unsigned long long)held_for(b, UINT64_MAX, cuzk_clock_ms()));
}

/* under b->mu */
static void take(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                 struct cuzk_reservation *r) {
    b->used += bytes;
    b->by_owner[owner] += bytes;
    if (b->used > b->peak) b->peak = b->used;
    r->budget = b;
    r->bytes = bytes;
    r->owner = owner;
}

int cuzk_budget_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                        uint64_t rank, const char *what, cuzk_budget_abort abort, void *abort_ctx,
                        struct cuzk_reservation *r, double *waited_ms) {
    memset(r, 0, sizeof *r);
    if (waited_ms) *waited_ms = 0;
    if ((unsigned)owner >= CUZK_MEM_OWNERS) return CUZK_EINVAL;
    double t0 = cuzk_clock_ms(), logged = t0;
    struct cuzk_budget_claim claim = {0};
    pthread_mutex_lock(&b->mu);
    if (bytes > b->total) {
        pthread_mutex_unlock(&b->mu);
        return CUZK_ENOMEM;
    }
    int rc = CUZK_OK;
    for (;;) {
        if (abort && abort(abort_ctx)) {
            rc = CUZK_ECANCELLED;
            break;
        }
        double t = cuzk_clock_ms();
        if (fits(b, bytes, rank, t)) {
            take(b, bytes, owner, r);
            break;
        }
        claim_link(b, &claim, bytes, rank, t);
        if (t - logged >= CUZK_BUDGET_LOG_MS) {
            log_wait(b, what, bytes, t - t0);
            logged = t;
        }
        /* ask the caches first, without the lock */
        cuzk_budget_evictor ev = b->evict;
        void *ev_ctx = b->evict_ctx;
        uint64_t need = b->used + bytes > b->total ? b->used + bytes - b->total : bytes;
        int urgent = b->by_owner[CUZK_MEM_PARTITION] == 0;
        if (ev) {
            pthread_mutex_unlock(&b->mu);
            uint64_t freed = ev(ev_ctx, need, urgent);
            pthread_mutex_lock(&b->mu);
            if (freed) continue; /* re-test at once */
            if (abort && abort(abort_ctx)) {
                rc = CUZK_ECANCELLED;
                break;
            }
            if (fits(b, bytes, rank, cuzk_clock_ms())) {
                take(b, bytes, owner, r);
                break;
            }
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += BUDGET_RETRY_MS / 1000;
        b->waiters++;
        pthread_cond_timedwait(&b->cv, &b->mu, &ts);
        b->waiters--;
    }
    claim_unlink(b, &claim);
    pthread_mutex_unlock(&b->mu);
    if (waited_ms) *waited_ms = cuzk_clock_ms() - t0;
    return rc;
}

int cuzk_budget_try_reserve(struct cuzk_budget *b, uint64_t bytes, enum cuzk_mem_owner owner,
                            uint64_t rank, struct cuzk_reservation *r) {
    memset(r, 0, sizeof *r);
    if ((unsigned)owner >= CUZK_MEM_OWNERS) return CUZK_EINVAL;
    int rc = CUZK_EBUSY;
    pthread_mutex_lock(&b->mu);
    if (fits(b, bytes, rank, cuzk_clock_ms())) {
        take(b, bytes, owner, r);
        rc = CUZK_OK;
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void cuzk_reservation_release(struct cuzk_reservation *r, uint64_t bytes) {
    struct cuzk_budget *b = r->budget;
    if (!b) return;
    if (bytes > r->bytes) bytes = r->bytes;
    if (!bytes) return;
    pthread_mutex_lock(&b->mu);
    b->used -= bytes;
    b->by_owner[r->owner] -= bytes;
    pthread_cond_broadcast(&b->cv);
    cuzk_budget_listener fn = b->listen;
    void *ctx = b->listen_ctx;
    pthread_mutex_unlock(&b->mu);
    r->bytes -= bytes;
    if (fn) fn(ctx);
}

uint64_t cuzk_reservation_move(struct cuzk_reservation *from, uint64_t bytes,
                               enum cuzk_mem_owner owner, struct cuzk_reservation *to) {
    struct cuzk_budget *b = from->budget;
    if (!b || (to->budget && (to->budget != b || to->owner != owner))) return 0;
    if (bytes > from->bytes) bytes = from->bytes;
    if (!bytes) return 0;
    pthread_mutex_lock(&b->mu);
    b->by_owner[from->owner] -= bytes;
    b->by_owner[owner] += bytes;
    pthread_mutex_unlock(&b->mu);
    from->bytes -= bytes;
    if (!to->budget) {
        to->budget = b;
        to->owner = owner;
        to->bytes = 0;
    }
    to->bytes += bytes;
    return bytes;
}

void cuzk_reservation_release_all(struct cuzk_reservation *r) {
    cuzk_reservation_release(r, r->bytes);
    r->budget = NULL;
}

void cuzk_budget_wake(struct cuzk_budget *b) {
    pthread_mutex_lock(&b->mu);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

void cuzk_budget_get_stats(struct cuzk_budget *b, struct cuzk_budget_stats *out) {
    pthread_mutex_lock(&b->mu);
    out->total = b->total;
    out->used = b->used;
    memcpy(out->by_owner, b->by_owner, sizeof out->by_owner);
    out->waiters = b->waiters;
    out->peak_used = b->peak;
    pthread_mutex_unlock(&b->mu);
}

double cuzk_budget_trim(uint64_t freed, uint64_t threshold) {
    if (freed < threshold) return 0;
    double t0 = cuzk_clock_ms();
    malloc_trim(0);
    return cuzk_clock_ms() - t0;
}
