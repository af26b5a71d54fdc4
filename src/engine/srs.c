/* The SRS manager (contract and DESIGN: srs.h). */
#define _GNU_SOURCE
#include "engine/srs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "groth16/groth16.h"
#include "util/log.h"
#include "util/clock.h"

enum entry_state { ENTRY_COLD = 0, ENTRY_LOADING, ENTRY_LOADED };

struct cuzk_srs_entry {
    const struct cuzk_kind *kind;
    char key_id[CUZK_NAME_MAX];
    enum entry_state state;
    int hot;     /* resident on at least one device */
    int trimmed; /* HOT only: the host copy was freed */
    uint32_t refs, waiting;
    double last_used, load_ms;
    struct cuzk_kind_key *key;
    struct cuzk_reservation key_res, cs_res;
    uint64_t vram_bytes;
    uint64_t host_copy_bytes; /* of key_res: the devices' host copies (key_host) */
};

struct cuzk_srs {
    pthread_mutex_t mu;
    pthread_cond_t loaded; /* broadcast at the end of every load */
    struct cuzk_budget *budget;
    struct cuzk_pool *pool;
    const struct cuzk_backend *const *be;
    size_t n_be;
    int hot_only;
    uint64_t min_idle_ms;
    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz);
    void *extra_ctx;
    struct cuzk_srs_entry **e;
    size_t n, cap;
};

int cuzk_srs_create(struct cuzk_srs **out, struct cuzk_budget *budget, struct cuzk_pool *pool,
                    const struct cuzk_backend *const *backends, size_t n, uint64_t min_idle_ms,
                    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz),
                    void *extra_ctx) {
    struct cuzk_srs *s = calloc(1, sizeof *s);
    if (!s) return CUZK_ENOMEM;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->loaded, NULL);
    s->budget = budget;
    s->pool = pool;
    s->be = backends;
    s->n_be = n;
    s->hot_only = n > 0;
    for (size_t i = 0; i < n; i++)
        if (!backends[i]->key_upload) s->hot_only = 0;
    s->min_idle_ms = min_idle_ms;
    s->extra = extra;
    s->extra_ctx = extra_ctx;
    *out = s;
    return CUZK_OK;
}

int cuzk_srs_hot_only(const struct cuzk_srs *s) { return s->hot_only; }

/* The charges of a load of these sizes: steady key and cs bytes, and the transient extra. */
static void charges(const struct cuzk_srs *s, const struct cuzk_kind_sizes *sz, uint64_t *key,
                    uint64_t *cs, uint64_t *transient) {
    uint64_t extra = s->extra ? s->extra(s->extra_ctx, sz) : 0;
    if (s->hot_only) {
        *key = sz->hot_keep + extra;
        *cs = 0;
        *transient = sz->hot_load > sz->hot_keep ? sz->hot_load - sz->hot_keep : 0;
    } else {
        *key = sz->key_bytes + extra;
        *cs = sz->cs_bytes;
        *transient = sz->load_scratch;
    }
}

uint64_t cuzk_srs_key_charge(const struct cuzk_srs *s, const struct cuzk_kind_sizes *sz) {
    uint64_t key, cs, transient;
    charges(s, sz, &key, &cs, &transient);
    return key + cs;
}

/* Drops a detached key from the devices, frees it and returns its budget (no lock held). */
static void free_key(struct cuzk_srs *s, const struct cuzk_kind *kind, struct cuzk_kind_key *key,
                     int hot, struct cuzk_reservation *key_res, struct cuzk_reservation *cs_res) {
    if (hot && key)
        for (size_t d = 0; d < s->n_be; d++)
            if (s->be[d]->key_drop) s->be[d]->key_drop(s->be[d], &key->pk);
    if (key) {
        kind->key_free(kind, key);
        free(key);
    }
    uint64_t freed = key_res->bytes + cs_res->bytes;
    cuzk_reservation_release_all(key_res);
    cuzk_reservation_release_all(cs_res);
    cuzk_budget_trim(freed, 0);
}

void cuzk_srs_destroy(struct cuzk_srs *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        struct cuzk_srs_entry *e = s->e[i];
        if (e->state == ENTRY_LOADED) free_key(s, e->kind, e->key, e->hot, &e->key_res, &e->cs_res);
        free(e);
    }
    free(s->e);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->loaded);
    free(s);
}

/* under s->mu */
static struct cuzk_srs_entry *find(struct cuzk_srs *s, const char *kind, const char *key_id) {
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i]->kind->name, kind) && !strcmp(s->e[i]->key_id, key_id)) return s->e[i];
    return NULL;
}

/* Removes a cold entry nobody waits for from the table (under s->mu): failed loads and
 * evicted keys leave nothing behind. */
static void forget(struct cuzk_srs *s, struct cuzk_srs_entry *e) {
    if (e->state != ENTRY_COLD || e->refs || e->waiting) return;
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i] == e) {
            s->e[i] = s->e[--s->n];
            free(e);
            return;
        }
}

/* Detaches a loaded, unreferenced entry's key (under s->mu) into *d. */
struct detached {
    const struct cuzk_kind *kind;
    char key_id[CUZK_NAME_MAX];
    struct cuzk_kind_key *key;
    int hot;
    struct cuzk_reservation key_res, cs_res;
};

static uint64_t detach(struct cuzk_srs *s, struct cuzk_srs_entry *e, struct detached *d) {
    d->kind = e->kind;
    strcpy(d->key_id, e->key_id);
    d->key = e->key;
    d->hot = e->hot;
    d->key_res = e->key_res;
    d->cs_res = e->cs_res;
    uint64_t bytes = e->key_res.bytes + e->cs_res.bytes;
    e->key = NULL;
    memset(&e->key_res, 0, sizeof e->key_res);
    memset(&e->cs_res, 0, sizeof e->cs_res);
    e->hot = e->trimmed = 0;
    e->vram_bytes = 0;
    e->host_copy_bytes = 0;
    e->state = ENTRY_COLD;
    forget(s, e);
    return bytes;
}

/* Drops the least recently used idle HOT keys other than `keep` from the devices (they become
 * COLD) until one went (1) or none could (0), for a device out of memory. No lock held. */
static int evict_one_hot(struct cuzk_srs *s, const struct cuzk_srs_entry *keep) {
    struct detached d;
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *victim = NULL;
    for (size_t i = 0; i < s->n; i++) {
        struct cuzk_srs_entry *e = s->e[i];
        if (e == keep || e->state != ENTRY_LOADED || e->refs || !e->hot) continue;
        if (!victim || e->last_used < victim->last_used) victim = e;
    }
    uint64_t bytes = victim ? detach(s, victim, &d) : 0;
    pthread_mutex_unlock(&s->mu);
    if (!victim) return 0;
    cuzk_log_info("srs", "key %s/%s evicted to make room on a device: %llu host bytes",
                  d.kind->name, d.key_id, (unsigned long long)bytes);
    free_key(s, d.kind, d.key, d.hot, &d.key_res, &d.cs_res);
    return 1;
}

/* Uploads key to every device that can hold it. *hot / *vram: what took. Returns CUZK_OK, or
 * for a HOT-only plan the first upload error (EFORMAT: the key file is corrupt). */
static int upload_all(struct cuzk_srs *s, const struct cuzk_srs_entry *e, struct cuzk_kind_key *key,
                      int *hot, uint64_t *vram, char *err, size_t errlen) {
    *hot = 0;
    *vram = 0;
    for (size_t d = 0; d < s->n_be; d++) {
        const struct cuzk_backend *be = s->be[d];
        if (!be->key_upload) continue;
        uint64_t v = 0;
        char uerr[512] = "";
        int rc;
        /* a device out of memory gets the idle keys dropped, one at a time, before giving up */
        while ((rc = be->key_upload(be, &key->pk, &v, uerr, sizeof uerr)) == CUZK_EGPUOOM &&
               evict_one_hot(s, e))
            uerr[0] = 0;
        if (!rc) {
            *hot = 1;
            *vram += v;
            continue;
        }
        if (s->hot_only) {
            snprintf(err, errlen, "key %s/%s: %s: %s", e->kind->name, e->key_id, be->name,
                     uerr[0] ? uerr : cuzk_strerror(rc));
            return rc;
        }
        cuzk_log_warn("srs", "key %s/%s: upload to %s failed: %s (stays in host memory)",
                      e->kind->name, e->key_id, be->name, uerr[0] ? uerr : cuzk_strerror(rc));
    }
    return CUZK_OK;
}

/* Charges key_res with the host memory the devices' uploads of key will keep (their backends'
 * key_host: the pinned copies of streamed queries), reserved before the uploads make them.
 * *charged: what an earlier attempt charged (a corrupt file made again keeps the sizes);
 * held: what the load holds already (with it the copies must fit the budget's total, else the
 * reservation could never be granted). */
static int charge_host_copies(struct cuzk_srs *s, const struct cuzk_srs_entry *e,
                              const struct cuzk_kind_key *key, uint64_t rank,
                              cuzk_budget_abort abort, void *abort_ctx, uint64_t held,
                              struct cuzk_reservation *key_res, uint64_t *charged, char *err,
                              size_t errlen) {
    uint64_t bytes = 0;
    for (size_t d = 0; d < s->n_be; d++)
        if (s->be[d]->key_upload && s->be[d]->key_host)
            bytes += s->be[d]->key_host(s->be[d], &key->pk);
    if (!bytes || *charged) return CUZK_OK;
    struct cuzk_reservation r = {0};
    char what[2 * CUZK_NAME_MAX + 32];
    snprintf(what, sizeof what, "key %s/%s's host copies", e->kind->name, e->key_id);
    struct cuzk_budget_stats st;
    cuzk_budget_get_stats(s->budget, &st);
    int rc = bytes + held > st.total ? CUZK_ENOMEM
                                     : cuzk_budget_reserve(s->budget, bytes, CUZK_MEM_KEY, rank,
                                                           what, abort, abort_ctx, &r, NULL);
    if (rc == CUZK_ENOMEM)
        return cuzk_errf(err, errlen, rc,
                         "key %s/%s: its devices keep %llu bytes of it in host memory (the "
                         "queries their memory cannot hold); with its %llu other bytes that is "
                         "more than the memory budget (%llu)",
                         e->kind->name, e->key_id, (unsigned long long)bytes,
                         (unsigned long long)held, (unsigned long long)st.total);
    if (rc)
        return cuzk_errf(err, errlen, rc, "loading key %s/%s: %s", e->kind->name, e->key_id,
                         cuzk_strerror(rc));
    cuzk_reservation_move(&r, bytes, CUZK_MEM_KEY, key_res);
    *charged = bytes;
    cuzk_log_info("srs", "key %s/%s: %llu bytes of it kept in host memory by its devices",
                  e->kind->name, e->key_id, (unsigned long long)bytes);
    return CUZK_OK;
}

/* Loads e (state LOADING, no lock held). On success fills the entry's key and charges. */
static int load(struct cuzk_srs *s, struct cuzk_srs_entry *e, uint64_t rank,
                cuzk_budget_abort abort, void *abort_ctx, char *err, size_t errlen) {
    const struct cuzk_kind *kind = e->kind;
    struct cuzk_kind_sizes sz;
    struct cuzk_reservation key_res = {0}, cs_res = {0}, scratch_res = {0};
    struct cuzk_kind_key *key = NULL;
    int rc = kind->key_sizes(kind, e->key_id, &sz, err, errlen);
    uint64_t kb = 0, cb = 0, tb = 0;
    if (!rc) {
        charges(s, &sz, &kb, &cb, &tb);
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(s->budget, &st);
        char what[2 * CUZK_NAME_MAX + 16];
        snprintf(what, sizeof what, "key %s/%s", kind->name, e->key_id);
        /* the three charges in one reservation, split afterwards: two loads that each held a
         * part while waiting for the rest could wait for each other forever */
        if (kb + cb + tb > st.total) rc = CUZK_ENOMEM;
        if (!rc)
            rc = cuzk_budget_reserve(s->budget, kb + cb + tb, CUZK_MEM_KEY, rank, what, abort,
                                     abort_ctx, &key_res, NULL);
        if (!rc) {
            cuzk_reservation_move(&key_res, cb, CUZK_MEM_CS, &cs_res);
            cuzk_reservation_move(&key_res, tb, CUZK_MEM_OTHER, &scratch_res);
        }
        if (rc == CUZK_ENOMEM)
            snprintf(err, errlen, "key %s/%s needs %llu bytes, more than the memory budget (%llu)",
                     kind->name, e->key_id, (unsigned long long)(kb + cb + tb),
                     (unsigned long long)st.total);
        else if (rc)
            snprintf(err, errlen, "loading key %s/%s: %s", kind->name, e->key_id,
                     cuzk_strerror(rc));
    }
    double tl = cuzk_clock_ms();
    int hot = 0;
    uint64_t vram = 0, host_charged = 0;
    for (int attempt = 0; !rc; attempt++) {
        struct cuzk_kind_load_opts lo = {.host_points = !s->hot_only};
        key = calloc(1, sizeof *key);
        rc = key ? kind->key_load(kind, e->key_id, s->pool, &lo, key, err, errlen) : CUZK_ENOMEM;
        if (rc) {
            free(key);
            key = NULL;
        } else {
            rc = charge_host_copies(s, e, key, rank, abort, abort_ctx,
                                    key_res.bytes + cs_res.bytes + scratch_res.bytes, &key_res,
                                    &host_charged, err, errlen);
            if (!rc) rc = upload_all(s, e, key, &hot, &vram, err, errlen);
            if (!rc) break;
            /* a HOT-only load whose devices could not take the key */
            if (hot)
                for (size_t d = 0; d < s->n_be; d++)
                    if (s->be[d]->key_drop) s->be[d]->key_drop(s->be[d], &key->pk);
            kind->key_free(kind, key);
            free(key);
            key = NULL;
            hot = 0;
        }
        /* a corrupt key file (found by the kind's load or by a device's upload): the kind
         * removes it and the load starts over once */
        if (rc != CUZK_EFORMAT || attempt > 0 || !kind->key_corrupt) break;
        cuzk_log_warn("srs", "%s: making the key again", err);
        kind->key_corrupt(kind, e->key_id);
        err[0] = 0;
        rc = CUZK_OK;
    }
    if (!rc && s->hot_only && kind->key_trim) {
        for (size_t d = 0; d < s->n_be; d++)
            if (s->be[d]->key_needs_rows && s->be[d]->key_needs_rows(s->be[d], &key->pk))
                key->keep_rows = 1;
        kind->key_trim(kind, key);
        e->trimmed = 1;
        /* the rows the trim keeps stay charged with the key: they were part of the load's
         * transient charge (hot_load), which the rest of is given back below */
        if (key->keep_rows && sz.hot_rows)
            cuzk_reservation_move(&scratch_res, sz.hot_rows, CUZK_MEM_KEY, &key_res);
    }
    uint64_t scratch = scratch_res.bytes;
    cuzk_reservation_release_all(&scratch_res);
    cuzk_budget_trim(scratch, 0);
    if (rc) {
        cuzk_reservation_release_all(&key_res);
        cuzk_reservation_release_all(&cs_res);
        return rc;
    }
    const double load_ms = cuzk_clock_ms() - tl;
    pthread_mutex_lock(&s->mu); /* the status reads these of an entry in any state */
    e->key = key;
    e->key_res = key_res;
    e->cs_res = cs_res;
    e->hot = hot;
    e->vram_bytes = vram;
    e->host_copy_bytes = host_charged;
    e->load_ms = load_ms;
    pthread_mutex_unlock(&s->mu);
    cuzk_log_info("srs", "key %s/%s loaded: %.1f ms, %llu host bytes (key %llu, cs %llu)%s%s",
                  kind->name, e->key_id, load_ms,
                  (unsigned long long)(key_res.bytes + cs_res.bytes),
                  (unsigned long long)key_res.bytes, (unsigned long long)cs_res.bytes,
                  hot ? ", resident on the devices" : "", e->trimmed ? " only" : "");
    return CUZK_OK;
}

int cuzk_srs_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                     uint64_t rank, cuzk_budget_abort abort, void *abort_ctx,
                     struct cuzk_srs_entry **out, int *loaded_now, double *wait_ms, char *err,
                     size_t errlen) {
    double t0 = cuzk_clock_ms();
    if (loaded_now) *loaded_now = 0;
    if (wait_ms) *wait_ms = 0;
    if (strlen(key_id) >= CUZK_NAME_MAX) {
        snprintf(err, errlen, "key id \"%.40s...\" is too long", key_id);
        return CUZK_EINVAL;
    }
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *e;
    for (;;) {
        e = find(s, kind->name, key_id);
        if (!e) {
            if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 8;
                struct cuzk_srs_entry **ne = realloc(s->e, cap * sizeof *ne);
                if (!ne) {
                    pthread_mutex_unlock(&s->mu);
                    return CUZK_ENOMEM;
                }
                s->e = ne;
                s->cap = cap;
            }
            if (!(e = calloc(1, sizeof *e))) {
                pthread_mutex_unlock(&s->mu);
                return CUZK_ENOMEM;
            }
            e->kind = kind;
            strcpy(e->key_id, key_id);
            s->e[s->n++] = e;
        }
        if (e->state == ENTRY_LOADED) {
            e->refs++;
            e->last_used = cuzk_clock_ms();
            pthread_mutex_unlock(&s->mu);
            *out = e;
            if (wait_ms) *wait_ms = cuzk_clock_ms() - t0;
            return CUZK_OK;
        }
        if (e->state == ENTRY_COLD) break;
        /* another thread loads it: wait, then look again (a failed load left no entry) */
        e->waiting++;
        pthread_cond_wait(&s->loaded, &s->mu);
        e->waiting--;
        forget(s, e);
    }
    e->state = ENTRY_LOADING;
    pthread_mutex_unlock(&s->mu);

    int rc = load(s, e, rank, abort, abort_ctx, err, errlen);

    pthread_mutex_lock(&s->mu);
    if (rc) {
        e->state = ENTRY_COLD;
        forget(s, e);
    } else {
        e->state = ENTRY_LOADED;
        e->refs++;
        e->last_used = cuzk_clock_ms();
    }
    pthread_cond_broadcast(&s->loaded);
    pthread_mutex_unlock(&s->mu);
    if (rc) return rc;
    if (loaded_now) *loaded_now = 1;
    if (wait_ms) *wait_ms = cuzk_clock_ms() - t0;
    *out = e;
    return CUZK_OK;
}

int cuzk_srs_try_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                         struct cuzk_srs_entry **out) {
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *e = find(s, kind->name, key_id);
    int rc = CUZK_EAGAIN;
    if (e && e->state == ENTRY_LOADED) {
        e->refs++;
        e->last_used = cuzk_clock_ms();
        *out = e;
        rc = CUZK_OK;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

const struct cuzk_kind_key *cuzk_srs_key(const struct cuzk_srs_entry *e) { return e->key; }

void cuzk_srs_release(struct cuzk_srs *s, struct cuzk_srs_entry *e) {
    if (!e) return;
    pthread_mutex_lock(&s->mu);
    e->refs--;
    e->last_used = cuzk_clock_ms();
    pthread_mutex_unlock(&s->mu);
}

int cuzk_srs_evict(struct cuzk_srs *s, const char *kind, const char *key_id, uint64_t *freed) {
    if (freed) *freed = 0;
    struct detached d;
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *e = find(s, kind, key_id);
    int rc = CUZK_OK;
    if (!e || e->state == ENTRY_COLD)
        rc = CUZK_ENOTFOUND;
    else if (e->state == ENTRY_LOADING || e->refs)
        rc = CUZK_EBUSY;
    uint64_t bytes = rc ? 0 : detach(s, e, &d);
    pthread_mutex_unlock(&s->mu);
    if (rc) return rc;
    free_key(s, d.kind, d.key, d.hot, &d.key_res, &d.cs_res);
    cuzk_log_info("srs", "key %s/%s evicted (explicit): %llu bytes", kind, key_id,
                  (unsigned long long)bytes);
    if (freed) *freed = bytes;
    return CUZK_OK;
}

int cuzk_srs_present(struct cuzk_srs *s, const char *kind, const char *key_id) {
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *e = find(s, kind, key_id);
    int present = e && (e->state == ENTRY_LOADED || e->state == ENTRY_LOADING);
    pthread_mutex_unlock(&s->mu);
    return present;
}

uint64_t cuzk_srs_evict_idle(struct cuzk_srs *s, uint64_t need, uint64_t min_idle_ms, int urgent) {
    uint64_t total = 0;
    while (total < need) {
        /* one victim at a time: the least recently used eligible entry */
        struct detached d;
        pthread_mutex_lock(&s->mu);
        double now = cuzk_clock_ms();
        struct cuzk_srs_entry *victim = NULL;
        for (size_t i = 0; i < s->n; i++) {
            struct cuzk_srs_entry *e = s->e[i];
            if (e->state != ENTRY_LOADED || e->refs) continue;
            if (!urgent && now - e->last_used < (double)min_idle_ms) continue;
            if (!victim || e->last_used < victim->last_used) victim = e;
        }
        double idle = victim ? now - victim->last_used : 0;
        uint64_t bytes = victim ? detach(s, victim, &d) : 0;
        pthread_mutex_unlock(&s->mu);
        if (!victim) break;
        free_key(s, d.kind, d.key, d.hot, &d.key_res, &d.cs_res);
        cuzk_log_info("srs", "key %s/%s evicted (idle %.0f ms%s): %llu bytes", d.kind->name,
                      d.key_id, idle, urgent ? ", memory pressure" : "", (unsigned long long)bytes);
        total += bytes;
        if (!bytes) break;
    }
    return total;
}

uint64_t cuzk_srs_evictor(void *srs, uint64_t need, int urgent) {
    struct cuzk_srs *s = srs;
    return cuzk_srs_evict_idle(s, need, s->min_idle_ms, urgent);
}

int cuzk_srs_snapshot(struct cuzk_srs *s, struct cuzk_status_srs **out, size_t *n) {
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&s->mu);
    if (s->n) {
        struct cuzk_status_srs *v = calloc(s->n, sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&s->mu);
            return CUZK_ENOMEM;
        }
        double now = cuzk_clock_ms();
        for (size_t i = 0; i < s->n; i++) {
            struct cuzk_srs_entry *e = s->e[i];
            snprintf(v[i].kind, sizeof v[i].kind, "%s", e->kind->name);
            snprintf(v[i].circuit_id, sizeof v[i].circuit_id, "%s", e->key_id);
            v[i].tier = e->state != ENTRY_LOADED ? CUZK_SRS_COLD
                        : e->hot                 ? CUZK_SRS_HOT
                                                 : CUZK_SRS_WARM;
            v[i].bytes = e->key_res.bytes + e->cs_res.bytes;
            v[i].vram_bytes = e->vram_bytes;
            v[i].host_copy_bytes = e->host_copy_bytes;
            v[i].refs = e->refs;
            v[i].load_ms = e->load_ms;
            v[i].idle_ms = e->refs || e->state != ENTRY_LOADED ? 0 : now - e->last_used;
            v[i].loading = e->state == ENTRY_LOADING;
        }
        *out = v;
        *n = s->n;
    }
    pthread_mutex_unlock(&s->mu);
    return CUZK_OK;
}
