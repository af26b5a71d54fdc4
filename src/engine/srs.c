#define _GNU_SOURCE
#include "engine/srs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "util/log.h"

enum entry_state { ENTRY_COLD = 0, ENTRY_LOADING, ENTRY_LOADED };

struct cuzk_srs_entry {
    const struct cuzk_kind *kind;
    char key_id[CUZK_NAME_MAX];
    enum entry_state state;
    int hot; /* uploaded to at least one device */
    uint32_t refs;
    double last_used, load_ms;
    struct cuzk_kind_key *key;
    struct cuzk_reservation key_res, cs_res;
    uint64_t vram_bytes;
};

struct cuzk_srs {
    pthread_mutex_t mu;
    pthread_cond_t loaded; /* broadcast at the end of every load */
    struct cuzk_budget *budget;
    struct cuzk_pool *pool;
    const struct cuzk_engine_device *devs;
    size_t n_devs;
    uint64_t min_idle_ms;
    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz);
    void *extra_ctx;
    struct cuzk_srs_entry **e;
    size_t n, cap;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cuzk_srs_create(struct cuzk_srs **out, struct cuzk_budget *budget, struct cuzk_pool *pool,
                    const struct cuzk_engine_device *devs, size_t n_devs, uint64_t min_idle_ms,
                    uint64_t (*extra)(void *ctx, const struct cuzk_kind_sizes *sz),
                    void *extra_ctx) {
    struct cuzk_srs *s = calloc(1, sizeof *s);
    if (!s) return CUZK_ENOMEM;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->loaded, NULL);
    s->budget = budget;
    s->pool = pool;
    s->devs = devs;
    s->n_devs = n_devs;
    s->min_idle_ms = min_idle_ms;
    s->extra = extra;
    s->extra_ctx = extra_ctx;
    *out = s;
    return CUZK_OK;
}

/* Frees a detached key and returns its budget (no lock held). */
static void free_key(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                     struct cuzk_kind_key *key, int hot, struct cuzk_reservation *key_res,
                     struct cuzk_reservation *cs_res) {
    if (hot && key)
        for (size_t d = 0; d < s->n_devs; d++)
            if (s->devs[d].key_drop) s->devs[d].key_drop(s->devs[d].ctx, key_id, &key->pk);
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
        if (e->state == ENTRY_LOADED)
            free_key(s, e->kind, e->key_id, e->key, e->hot, &e->key_res, &e->cs_res);
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

int cuzk_srs_acquire(struct cuzk_srs *s, const struct cuzk_kind *kind, const char *key_id,
                     cuzk_budget_abort abort, void *abort_ctx, struct cuzk_srs_entry **out,
                     int *loaded_now, double *wait_ms, char *err, size_t errlen) {
    double t0 = now_ms();
    if (loaded_now) *loaded_now = 0;
    if (wait_ms) *wait_ms = 0;
    if (strlen(key_id) >= CUZK_NAME_MAX) {
        snprintf(err, errlen, "key id \"%.40s...\" is too long", key_id);
        return CUZK_EINVAL;
    }
    pthread_mutex_lock(&s->mu);
    struct cuzk_srs_entry *e = find(s, kind->name, key_id);
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
        e = calloc(1, sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&s->mu);
            return CUZK_ENOMEM;
        }
        e->kind = kind;
        strcpy(e->key_id, key_id);
        s->e[s->n++] = e;
    }
    for (;;) {
        if (e->state == ENTRY_LOADED) {
            e->refs++;
            e->last_used = now_ms();
            pthread_mutex_unlock(&s->mu);
            *out = e;
            if (wait_ms) *wait_ms = now_ms() - t0;
            return CUZK_OK;
        }
        if (e->state == ENTRY_COLD) break;
        pthread_cond_wait(&s->loaded, &s->mu);
    }
    e->state = ENTRY_LOADING;
    pthread_mutex_unlock(&s->mu);

    /* load without the lock: budget first, then the kind */
    struct cuzk_kind_sizes sz;
    struct cuzk_reservation key_res = {0}, cs_res = {0}, scratch_res = {0};
    struct cuzk_kind_key *key = NULL;
    uint64_t vram = 0;
    int hot = 0;
    int rc = kind->key_sizes(kind, key_id, &sz, err, errlen);
    if (!rc && s->extra) sz.key_bytes += s->extra(s->extra_ctx, &sz);
    if (!rc) {
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(s->budget, &st);
        /* the three charges are taken one after the other: together they must fit */
        if (sz.key_bytes + sz.cs_bytes + sz.load_scratch > st.total) rc = CUZK_ENOMEM;
        if (!rc)
            rc = cuzk_budget_reserve(s->budget, sz.key_bytes, CUZK_MEM_KEY, abort, abort_ctx,
                                     &key_res, NULL);
        if (!rc)
            rc = cuzk_budget_reserve(s->budget, sz.cs_bytes, CUZK_MEM_CS, abort, abort_ctx, &cs_res,
                                     NULL);
        if (!rc)
            rc = cuzk_budget_reserve(s->budget, sz.load_scratch, CUZK_MEM_OTHER, abort, abort_ctx,
                                     &scratch_res, NULL);
        if (rc == CUZK_ENOMEM)
            snprintf(err, errlen, "key %s/%s needs %llu bytes, more than the memory budget",
                     kind->name, key_id,
                     (unsigned long long)(sz.key_bytes + sz.cs_bytes + sz.load_scratch));
        else if (rc)
            snprintf(err, errlen, "loading key %s/%s: %s", kind->name, key_id, cuzk_strerror(rc));
    }
    double tl = now_ms();
    if (!rc) {
        key = calloc(1, sizeof *key);
        rc = key ? kind->key_load(kind, key_id, s->pool, key, err, errlen) : CUZK_ENOMEM;
        if (rc && key) {
            free(key);
            key = NULL;
        }
    }
    if (!rc) {
        for (size_t d = 0; d < s->n_devs; d++) {
            uint64_t v = 0;
            if (!s->devs[d].key_upload) continue;
            int urc = s->devs[d].key_upload(s->devs[d].ctx, key_id, &key->pk, &v);
            if (urc)
                cuzk_log_warn("srs", "key %s/%s: upload to device %zu failed: %s (stays warm)",
                              kind->name, key_id, d, cuzk_strerror(urc));
            else
                hot = 1, vram += v;
        }
    }
    double load_ms = now_ms() - tl;
    uint64_t scratch = scratch_res.bytes;
    cuzk_reservation_release_all(&scratch_res);
    cuzk_budget_trim(scratch, 0);
    if (rc) {
        cuzk_reservation_release_all(&key_res);
        cuzk_reservation_release_all(&cs_res);
    }

    pthread_mutex_lock(&s->mu);
    if (rc) {
        e->state = ENTRY_COLD;
    } else {
        e->state = ENTRY_LOADED;
        e->key = key;
        e->key_res = key_res;
        e->cs_res = cs_res;
        e->hot = hot;
        e->vram_bytes = vram;
        e->load_ms = load_ms;
        e->refs++;
        e->last_used = now_ms();
    }
    pthread_cond_broadcast(&s->loaded);
    pthread_mutex_unlock(&s->mu);
    if (rc) return rc;
    cuzk_log_info("srs", "key %s/%s loaded: %.1f ms, %llu bytes (key %llu, cs %llu)%s", kind->name,
                  key_id, load_ms, (unsigned long long)(key_res.bytes + cs_res.bytes),
                  (unsigned long long)key_res.bytes, (unsigned long long)cs_res.bytes,
                  hot ? ", resident on the devices" : "");
    if (loaded_now) *loaded_now = 1;
    if (wait_ms) *wait_ms = now_ms() - t0;
    *out = e;
    return CUZK_OK;
}

const struct cuzk_kind_key *cuzk_srs_key(const struct cuzk_srs_entry *e) { return e->key; }

void cuzk_srs_release(struct cuzk_srs *s, struct cuzk_srs_entry *e) {
    if (!e) return;
    pthread_mutex_lock(&s->mu);
    e->refs--;
    e->last_used = now_ms();
    pthread_mutex_unlock(&s->mu);
}

/* Detaches a loaded, unreferenced entry's key (under s->mu) into *d. */
struct detached {
    const struct cuzk_kind *kind;
    char key_id[CUZK_NAME_MAX];
    struct cuzk_kind_key *key;
    int hot;
    struct cuzk_reservation key_res, cs_res;
};

static uint64_t detach(struct cuzk_srs_entry *e, struct detached *d) {
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
    e->hot = 0;
    e->vram_bytes = 0;
    e->state = ENTRY_COLD;
    return bytes;
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
    uint64_t bytes = rc ? 0 : detach(e, &d);
    pthread_mutex_unlock(&s->mu);
    if (rc) return rc;
    free_key(s, d.kind, d.key_id, d.key, d.hot, &d.key_res, &d.cs_res);
    cuzk_log_info("srs", "key %s/%s evicted (explicit): %llu bytes", kind, key_id,
                  (unsigned long long)bytes);
    if (freed) *freed = bytes;
    return CUZK_OK;
}

uint64_t cuzk_srs_evict_idle(struct cuzk_srs *s, uint64_t need, uint64_t min_idle_ms, int urgent) {
    uint64_t total = 0;
    while (total < need) {
        /* one victim at a time: the least recently used eligible entry */
        struct detached d;
        pthread_mutex_lock(&s->mu);
        double now = now_ms();
        struct cuzk_srs_entry *victim = NULL;
        for (size_t i = 0; i < s->n; i++) {
            struct cuzk_srs_entry *e = s->e[i];
            if (e->state != ENTRY_LOADED || e->refs) continue;
            if (!urgent && now - e->last_used < (double)min_idle_ms) continue;
            if (!victim || e->last_used < victim->last_used) victim = e;
        }
        uint64_t bytes = victim ? detach(victim, &d) : 0;
        double idle = victim ? now - victim->last_used : 0;
        pthread_mutex_unlock(&s->mu);
        if (!victim) break;
        free_key(s, d.kind, d.key_id, d.key, d.hot, &d.key_res, &d.cs_res);
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
        double now = now_ms();
        for (size_t i = 0; i < s->n; i++) {
            struct cuzk_srs_entry *e = s->e[i];
            snprintf(v[i].kind, sizeof v[i].kind, "%s", e->kind->name);
            snprintf(v[i].circuit_id, sizeof v[i].circuit_id, "%s", e->key_id);
            v[i].tier = e->state != ENTRY_LOADED ? CUZK_SRS_COLD
                        : e->hot                 ? CUZK_SRS_HOT
                                                 : CUZK_SRS_WARM;
            v[i].bytes = e->key_res.bytes + e->cs_res.bytes;
            v[i].vram_bytes = e->vram_bytes;
            v[i].refs = e->refs;
            v[i].load_ms = e->load_ms;
            v[i].idle_ms = e->refs || e->state != ENTRY_LOADED ? 0 : now - e->last_used;
        }
        *out = v;
        *n = s->n;
    }
    pthread_mutex_unlock(&s->mu);
    return CUZK_OK;
}
