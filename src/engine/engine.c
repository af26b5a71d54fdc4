/* The proving engine (include/cuzk/engine.h): its lifecycle, kinds and keys. The whole
 * engine's DESIGN (threads, queues, ownership, locks) opens engine_impl.h. */
#define _GNU_SOURCE
#include <malloc.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "engine/engine_impl.h"
#include "util/log.h"
#include "util/pool.h"

void cuzk_engine_config_default(struct cuzk_engine_config *c) {
    memset(c, 0, sizeof *c);
    c->total_budget = 0; /* auto */
    c->safety_margin = (uint64_t)5 << 30;
    c->eviction_min_idle_ms = 300000;
    c->srs_idle_evict_ms = 0;
    c->trim_threshold = (uint64_t)64 << 20;
    c->mem_overtake_ms = 2000;
    c->synth_workers = 0;
    c->gpu_workers_per_device = 2;
    c->cpu_threads = 0;
    c->key_loaders = 2;
    c->result_ttl_ms = 1800000;
    c->self_verify = 1;
    c->trace_file = stderr;
    c->util_window_ms = 60000;
}

/* ---- memory models --------------------------------------------------------------------------- */

void cuzk_engine_proof_mem(struct cuzk_engine *e, const struct cuzk_kind_sizes *sz,
                           uint64_t *host) {
    *host = 0;
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++) {
        const struct cuzk_backend *be = e->devs[d].d.backend;
        struct cuzk_backend_mem m = {0};
        be->mem(be, sz->n_vars, sz->domain_size, &m);
        if (m.proof_host > *host) *host = m.proof_host;
    }
}

/* Host bytes charged with every key besides the key itself: what the backends keep for a key
 * of these sizes (the CPU NTT's domain tables), the largest over the backends. */
static uint64_t key_extra_bytes(void *ctx, const struct cuzk_kind_sizes *sz) {
    struct cuzk_engine *e = ctx;
    uint64_t extra = 0;
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++) {
        const struct cuzk_backend *be = e->devs[d].d.backend;
        struct cuzk_backend_mem m = {0};
        be->mem(be, sz->n_vars, sz->domain_size, &m);
        if (m.key_host > extra) extra = m.key_host;
    }
    return extra;
}

/* The budget's evictor: kept witness buffers first (cheap to make again), then idle keys. */
static uint64_t engine_evictor(void *ctx, uint64_t need, int urgent) {
    struct cuzk_engine *e = ctx;
    uint64_t freed = cuzk_eng_witness_evict(e, need);
    if (freed < need) freed += cuzk_srs_evictor(e->srs, need - freed, urgent);
    return freed;
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

static int fail_create(struct cuzk_engine *e, int rc) {
    cuzk_engine_destroy(e);
    return rc;
}

static void cond_init_mono(pthread_cond_t *cv) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

int cuzk_engine_create(struct cuzk_engine **out, const struct cuzk_engine_config *cfg, char *err,
                       size_t errlen) {
    struct cuzk_engine_config def;
    cuzk_engine_config_default(&def);
    if (!cfg) cfg = &def;
    if (err && errlen) err[0] = 0;
    *out = NULL;
    uint64_t total;
    int rc = cuzk_budget_total(cfg->total_budget, cfg->safety_margin, &total, err, errlen);
    if (rc) return rc;
    if (cfg->gpu_workers_per_device > 64 || cfg->synth_workers > 1024 || cfg->key_loaders > 64 ||
        (cfg->n_devices && !cfg->devices) || cfg->n_devices > 64 ||
        (cfg->fallback && !cfg->fallback->backend)) {
        snprintf(err, errlen, "engine: a setting is out of range (workers, devices)");
        return CUZK_EINVAL;
    }
    for (size_t i = 0; i < cfg->n_devices; i++)
        if (!cfg->devices[i].backend || !cfg->devices[i].backend->prove ||
            !cfg->devices[i].backend->mem) {
            snprintf(err, errlen, "engine: device %zu has no complete backend", i);
            return CUZK_EINVAL;
        }
    if (cfg->fallback && (!cfg->fallback->backend->prove || !cfg->fallback->backend->mem)) {
        snprintf(err, errlen, "engine: the fallback device has no complete backend");
        return CUZK_EINVAL;
    }
    struct cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return CUZK_ENOMEM;
    e->t0 = cuzk_clock_ms();
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->trace_mu, NULL);
    pthread_mutex_init(&e->wmu, NULL);
    cond_init_mono(&e->dispatch_cv);
    pthread_cond_init(&e->ready_cv, NULL);
    pthread_cond_init(&e->gpu_cv, NULL);
    pthread_cond_init(&e->drain_cv, NULL);
    pthread_cond_init(&e->load_cv, NULL);
    pthread_cond_init(&e->watch_cv, NULL);
    cond_init_mono(&e->house_cv);
    e->fallback = -1;
    e->accepting = 1;
    /* The settings: the caller's, except what the engine owns or resolves. A zero where zero
     * has no meaning of its own takes the default (cuzk_engine_config_default, the one place
     * the defaults are written); synth_workers 0 is "auto". */
    e->cfg = *cfg;
    e->cfg.setup_allow = NULL;
    e->cfg.n_setup_allow = 0;
    e->cfg.devices = NULL; /* e->devs holds them, below */
    e->cfg.n_devices = 0;
    e->cfg.fallback = NULL;
    if (!e->cfg.util_window_ms) e->cfg.util_window_ms = def.util_window_ms;
    if (!e->cfg.gpu_workers_per_device) e->cfg.gpu_workers_per_device = def.gpu_workers_per_device;
    if (!e->cfg.key_loaders) e->cfg.key_loaders = def.key_loaders;
    if (!e->cfg.synth_workers) {
        unsigned cpus = cuzk_cpu_count();
        e->cfg.synth_workers = cpus / 2 > 2 ? cpus / 2 : 2;
    }
    if (cfg->setup_policy && cfg->n_setup_allow) {
        char **allow = calloc(cfg->n_setup_allow, sizeof *allow);
        if (!allow) return fail_create(e, CUZK_ENOMEM);
        e->cfg.setup_allow = (const char *const *)allow;
        for (size_t i = 0; i < cfg->n_setup_allow; i++, e->cfg.n_setup_allow++)
            if (!(allow[i] = strdup(cfg->setup_allow[i]))) return fail_create(e, CUZK_ENOMEM);
    }
    e->table_cap = 1024;
    if (!(e->table = calloc(e->table_cap, sizeof *e->table))) return fail_create(e, CUZK_ENOMEM);

    if ((rc = cuzk_pool_create(&e->pool, cfg->cpu_threads, "cuzk-cpu")) ||
        (rc = cuzk_budget_create(&e->budget, total)))
        return fail_create(e, rc);
    cuzk_budget_set_overtake(e->budget, e->cfg.mem_overtake_ms);

    /* devices: the configured ones (or the CPU backend), then the fallback */
    size_t n = cfg->n_devices ? cfg->n_devices : 1;
    e->devs = calloc(n + 1, sizeof *e->devs);
    e->backends = calloc(n + 1, sizeof *e->backends);
    if (!e->devs || !e->backends) return fail_create(e, CUZK_ENOMEM);
    for (size_t i = 0; i < n + (cfg->fallback != NULL); i++) {
        struct dev *d = &e->devs[i];
        if (i == n) {
            d->d = *cfg->fallback;
            d->is_fallback = 1;
            e->fallback = (int)i;
        } else if (cfg->n_devices) {
            d->d = cfg->devices[i];
        } else {
            cuzk_cpu_backend_init(&d->cpu_be, e->pool);
            d->d.backend = &d->cpu_be;
            d->d.name = "cpu";
        }
        snprintf(d->name, sizeof d->name, "%s",
                 d->d.name            ? d->d.name
                 : d->d.backend->name ? d->d.backend->name
                                      : "device");
        d->d.name = d->name;
        d->workers = d->is_fallback ? 0
                     : d->d.workers ? d->d.workers
                                    : e->cfg.gpu_workers_per_device;
        pthread_cond_init(&d->fin_cv, NULL);
        e->backends[i] = d->d.backend;
    }
    e->n_devs = n;
    e->wbackend = e->devs[0].d.backend;
    /* one kept witness buffer per worker that may hold one */
    e->wfree_max = e->cfg.synth_workers + n * e->cfg.gpu_workers_per_device;
    e->wfree_prepin_max = 2 * e->wfree_max; /* cuzk_eng_witness_prepin */
    size_t n_all = n + (cfg->fallback != NULL);
    if ((rc = cuzk_srs_create(&e->srs, e->budget, e->pool, e->backends, n_all,
                              cfg->eviction_min_idle_ms, key_extra_bytes, e)))
        return fail_create(e, rc);
    cuzk_budget_set_evictor(e->budget, engine_evictor, e);
    cuzk_budget_set_listener(e->budget, cuzk_eng_dispatch_poke, e);
    cuzk_log_info("engine",
                  "engine created: budget %llu bytes, %u synthesis workers, %zu device(s) x %u "
                  "workers%s, %u key loaders, %u CPU threads; keys %s",
                  (unsigned long long)total, e->cfg.synth_workers, e->n_devs,
                  e->cfg.gpu_workers_per_device, e->fallback >= 0 ? " + fallback" : "",
                  e->cfg.key_loaders, cuzk_pool_size(e->pool),
                  cuzk_srs_hot_only(e->srs) ? "on the devices only" : "in host memory");
    if (!cfg->self_verify)
        cuzk_log_warn("engine", "pipeline.self_verify is off: proofs are delivered unchecked; a "
                                "device fault would reach clients as a proof that fails to verify");
    *out = e;
    return CUZK_OK;
}

static int spawn(pthread_t *th, void *(*fn)(void *), void *arg, const char *name) {
    if (pthread_create(th, NULL, fn, arg)) return CUZK_ENOMEM;
    char nm[16]; /* the kernel keeps 15 characters */
    snprintf(nm, sizeof nm, "%.15s", name);
    pthread_setname_np(*th, nm);
    return CUZK_OK;
}

int cuzk_engine_start(struct cuzk_engine *e) {
    size_t nw = e->cfg.synth_workers + e->cfg.key_loaders;
    for (size_t d = 0; d < e->n_devs; d++) nw += e->devs[d].workers;
    struct worker *workers = calloc(nw, sizeof *workers);
    if (!workers) return CUZK_ENOMEM;
    /* The threads are created under e->mu (each starts by taking it, so none runs before the
     * tables below are complete). The dispatcher comes last: if a thread cannot be created,
     * no partition has left the synthesis queue and a shutdown can cancel everything. */
    pthread_mutex_lock(&e->mu);
    if (e->started || e->shutting) {
        pthread_mutex_unlock(&e->mu);
        free(workers);
        return CUZK_EINVAL;
    }
    e->started = 1;
    e->workers = workers;
    char name[48];
    int rc = CUZK_OK;
    size_t k = 0;
    for (unsigned i = 0; i < e->cfg.synth_workers && !rc; i++, k++) {
        struct worker *w = &e->workers[k];
        *w = (struct worker){.e = e, .id = i, .device = -1, .part = -1};
        snprintf(name, sizeof name, "cuzk-synth-%u", i);
        rc = spawn(&w->th, cuzk_eng_synth_main, w, name);
        w->running = !rc;
        e->n_workers = k + 1;
    }
    uint32_t dev_worker_id = 0;
    for (size_t d = 0; d < e->n_devs && !rc; d++)
        for (unsigned i = 0; i < e->devs[d].workers && !rc; i++, k++) {
            struct worker *w = &e->workers[k];
            *w = (struct worker){.e = e, .id = dev_worker_id++, .device = (int)d, .part = -1};
            snprintf(name, sizeof name, "cuzk-dev-%zu-%u", d, i);
            rc = spawn(&w->th, cuzk_eng_device_main, w, name);
            w->running = !rc;
            e->n_workers = k + 1;
        }
    for (unsigned i = 0; i < e->cfg.key_loaders && !rc; i++, k++) {
        struct worker *w = &e->workers[k];
        *w = (struct worker){.e = e, .id = i, .device = -2, .part = -1};
        snprintf(name, sizeof name, "cuzk-keyload-%u", i);
        rc = spawn(&w->th, cuzk_eng_keyload_main, w, name);
        w->running = !rc;
        e->n_workers = k + 1;
    }
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0) && !rc; d++) {
        struct fin_arg *fa = malloc(sizeof *fa);
        if (!fa) {
            rc = CUZK_ENOMEM;
            break;
        }
        *fa = (struct fin_arg){e, (int)d};
        snprintf(name, sizeof name, "cuzk-fin-%zu", d);
        rc = spawn(&e->devs[d].fin_thread, cuzk_eng_fin_main, fa, name);
        if (rc)
            free(fa);
        else
            e->devs[d].fin_started = 1;
    }
    if (!rc) rc = spawn(&e->house_th, cuzk_eng_house_main, e, "cuzk-house");
    e->house_started = !rc;
    if (!rc) rc = spawn(&e->dispatch_th, cuzk_eng_dispatch_main, e, "cuzk-dispatch");
    e->dispatch_started = !rc;
    size_t n_workers = e->n_workers;
    pthread_mutex_unlock(&e->mu);
    if (rc) {
        cuzk_log_error("engine", "cannot start the engine threads; shut the engine down");
        return rc;
    }
    cuzk_log_info("engine", "engine started: %zu workers", n_workers);
    return CUZK_OK;
}

void cuzk_engine_shutdown(struct cuzk_engine *e, enum cuzk_shutdown_mode mode) {
    pthread_mutex_lock(&e->mu);
    if (e->shutting) {
        while (!e->shut_done) pthread_cond_wait(&e->drain_cv, &e->mu);
        pthread_mutex_unlock(&e->mu);
        return;
    }
    e->shutting = 1;
    e->accepting = 0;
    if (!e->started || !e->dispatch_started) mode = CUZK_SHUTDOWN_CANCEL; /* nothing would run */
    struct part *grave = NULL;
    struct cuzk_job_watch *watches = NULL;
    size_t n_cancelled = 0;
    if (mode == CUZK_SHUTDOWN_CANCEL)
        for (struct job *j = e->jobs_head; j; j = j->next)
            if (!j->final) {
                cuzk_eng_job_final_locked(e, j, CUZK_JOB_CANCELLED, CUZK_ESHUTDOWN,
                                          "the engine is shutting down", &grave);
                j->answered = 1; /* one log line for all of them, below; not freed here */
                pthread_cond_broadcast(&j->cv);
                cuzk_eng_watches_take_locked(j, &watches);
                n_cancelled++;
            }
    pthread_mutex_unlock(&e->mu);
    cuzk_log_info("engine", "shutting down (%s): %zu live jobs cancelled",
                  mode == CUZK_SHUTDOWN_CANCEL ? "cancel in-flight jobs" : "finish in-flight jobs",
                  n_cancelled);
    cuzk_eng_watches_fire(e, watches);
    cuzk_eng_grave_release(e, grave);
    cuzk_budget_wake(e->budget);

    pthread_mutex_lock(&e->mu);
    while (e->live_parts > 0) pthread_cond_wait(&e->drain_cv, &e->mu);
    e->stopping = 1;
    atomic_store(&e->abort_loads, 1);
    pthread_cond_broadcast(&e->dispatch_cv);
    pthread_cond_broadcast(&e->ready_cv);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->house_cv);
    pthread_cond_broadcast(&e->load_cv);
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
        pthread_cond_broadcast(&e->devs[d].fin_cv);
    int started = e->started;
    pthread_mutex_unlock(&e->mu);
    cuzk_budget_wake(e->budget); /* a key load waiting for memory sees abort_loads */

    if (started) {
        for (size_t i = 0; i < e->n_workers; i++)
            if (e->workers[i].running) pthread_join(e->workers[i].th, NULL);
        for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
            if (e->devs[d].fin_started) pthread_join(e->devs[d].fin_thread, NULL);
        if (e->dispatch_started) pthread_join(e->dispatch_th, NULL);
        if (e->house_started) pthread_join(e->house_th, NULL);
    }
    cuzk_eng_witness_drop_all(e);
    pthread_mutex_lock(&e->mu);
    for (struct keyload *l = e->loads, *nx; l; l = nx) {
        nx = l->next;
        free(l);
    }
    e->loads = NULL;
    e->shut_done = 1;
    pthread_cond_broadcast(&e->drain_cv);
    pthread_mutex_unlock(&e->mu);
    cuzk_log_info("engine", "engine stopped: %llu completed, %llu failed, %llu cancelled",
                  (unsigned long long)e->completed, (unsigned long long)e->failed,
                  (unsigned long long)e->cancelled);
}

void cuzk_engine_destroy(struct cuzk_engine *e) {
    if (!e) return;
    if (e->budget && e->table) cuzk_engine_shutdown(e, CUZK_SHUTDOWN_CANCEL);
    for (struct job *j = e->jobs_head, *nx; j; j = nx) {
        nx = j->next;
        cuzk_eng_job_free_mem(j);
    }
    cuzk_srs_destroy(e->srs);
    if (e->devs)
        for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
            pthread_cond_destroy(&e->devs[d].fin_cv);
    cuzk_budget_destroy(e->budget);
    cuzk_pool_destroy(e->pool);
    free(e->devs);
    free(e->backends);
    free(e->workers);
    free(e->synthq.a);
    free(e->gpuq.a);
    free(e->table);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->trace_mu);
    pthread_mutex_destroy(&e->wmu);
    pthread_cond_destroy(&e->dispatch_cv);
    pthread_cond_destroy(&e->ready_cv);
    pthread_cond_destroy(&e->gpu_cv);
    pthread_cond_destroy(&e->drain_cv);
    pthread_cond_destroy(&e->house_cv);
    pthread_cond_destroy(&e->load_cv);
    pthread_cond_destroy(&e->watch_cv);
    for (size_t i = 0; i < e->cfg.n_setup_allow; i++) free((char *)e->cfg.setup_allow[i]);
    free((void *)e->cfg.setup_allow);
    free(e);
}

/* ---- kinds ------------------------------------------------------------------------------------
 */

int cuzk_engine_register_kind(struct cuzk_engine *e, const struct cuzk_kind *k) {
    if (!k || !k->name || !*k->name || strlen(k->name) >= CUZK_NAME_MAX || !k->job_open ||
        !k->job_free || !k->key_sizes || !k->key_load || !k->key_free || !k->synthesize)
        return CUZK_EINVAL;
    int rc = CUZK_OK;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->n_kinds; i++)
        if (!strcmp(e->kinds[i].k->name, k->name)) rc = CUZK_EEXIST;
    if (!rc && e->n_kinds == MAX_KINDS) rc = CUZK_ENOMEM;
    if (!rc) e->kinds[e->n_kinds++] = (struct kindreg){.k = k};
    pthread_mutex_unlock(&e->mu);
    return rc;
}

struct kindreg *cuzk_eng_find_kind(struct cuzk_engine *e, const char *name) {
    struct kindreg *kr = NULL;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->n_kinds && !kr; i++)
        if (name && !strcmp(e->kinds[i].k->name, name)) kr = &e->kinds[i];
    pthread_mutex_unlock(&e->mu);
    return kr; /* entries never move or go before destroy */
}

const struct cuzk_kind *cuzk_engine_kind(struct cuzk_engine *e, const char *name) {
    struct kindreg *kr = cuzk_eng_find_kind(e, name);
    return kr ? kr->k : NULL;
}

const struct cuzk_kind *cuzk_engine_kind_at(struct cuzk_engine *e, size_t i) {
    pthread_mutex_lock(&e->mu);
    const struct cuzk_kind *k = i < e->n_kinds ? e->kinds[i].k : NULL;
    pthread_mutex_unlock(&e->mu);
    return k;
}

/* ---- keys -------------------------------------------------------------------------------------
 */

static int key_of(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                  struct kindreg **kr, char key_id[CUZK_NAME_MAX], char *err, size_t errlen) {
    *kr = cuzk_eng_find_kind(e, kind);
    if (!*kr) {
        snprintf(err, errlen, "unknown proof kind \"%s\"", kind ? kind : "");
        return CUZK_EINVAL;
    }
    if (!circuit_id || strlen(circuit_id) >= CUZK_NAME_MAX) {
        snprintf(err, errlen, "bad circuit id");
        return CUZK_EINVAL;
    }
    const struct cuzk_kind *k = (*kr)->k;
    if (k->key_of) return k->key_of(k, circuit_id, key_id, err, errlen);
    snprintf(key_id, CUZK_NAME_MAX, "%s", circuit_id);
    return CUZK_OK;
}

int cuzk_engine_setup_check(struct cuzk_engine *e, const struct cuzk_kind *k, const char *key_id,
                            char *err, size_t errlen) {
    if (!e->cfg.setup_policy || !k->key_cached) return CUZK_OK;
    char name[2 * CUZK_NAME_MAX + 2];
    snprintf(name, sizeof name, "%s:%s", k->name, key_id);
    for (size_t i = 0; i < e->cfg.n_setup_allow; i++)
        if (!fnmatch(e->cfg.setup_allow[i], name, 0)) return CUZK_OK;
    if (cuzk_srs_present(e->srs, k->name, key_id) || k->key_cached(k, key_id)) return CUZK_OK;
    return cuzk_errf(err, errlen, CUZK_EDENIED,
                     "%s has no stored key, and setting one up on demand is not allowed for it "
                     "(srs.setup_allow%s)",
                     name,
                     e->cfg.n_setup_allow ? " does not match it"
                                          : " is empty, or srs.on_demand_setup "
                                            "is false");
}

int cuzk_engine_preload(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                        int *already_loaded, uint64_t *load_ms, char *err, size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    err[0] = 0;
    struct kindreg *kr;
    char key_id[CUZK_NAME_MAX];
    int rc = key_of(e, kind, circuit_id, &kr, key_id, err, errlen);
    if (!rc) rc = cuzk_engine_setup_check(e, kr->k, key_id, err, errlen);
    if (rc) return rc;
    struct cuzk_srs_entry *en;
    int loaded = 0;
    double ms = 0;
    /* a preload waits in line behind the jobs already queued (rank of a new NORMAL job) */
    pthread_mutex_lock(&e->mu);
    uint64_t rank = cuzk_budget_rank(CUZK_PRIORITY_NORMAL, e->job_seq, 0);
    pthread_mutex_unlock(&e->mu);
    rc = cuzk_srs_acquire(e->srs, kr->k, key_id, rank, NULL, NULL, &en, &loaded, &ms, err, errlen);
    if (rc) return rc;
    cuzk_srs_release(e->srs, en);
    /* the witness buffers its jobs will need, made now rather than while a device proves
     * (cuzk_engine_config.prepin_witness) */
    struct cuzk_kind_sizes sz;
    char serr[128];
    if (e->cfg.prepin_witness &&
        kr->k->key_sizes(kr->k, key_id, &sz, serr, sizeof serr) == CUZK_OK) {
        uint64_t proof;
        cuzk_engine_proof_mem(e, &sz, &proof);
        const uint64_t other = sz.synth_scratch > proof ? sz.synth_scratch : proof;
        const double t0 = eng_now(e);
        unsigned made = cuzk_eng_witness_prepin(e, sz.n_vars, other);
        if (made)
            cuzk_log_info("engine", "%s/%s: %u witness buffers of %llu bytes made ahead (%.0f ms)",
                          kr->k->name, key_id, made,
                          (unsigned long long)sz.n_vars * sizeof(cuzk_fr), eng_now(e) - t0);
    }
    cuzk_eng_dispatch_poke(e);
    if (already_loaded) *already_loaded = !loaded;
    if (load_ms) *load_ms = loaded ? (uint64_t)ms : 0;
    return CUZK_OK;
}

int cuzk_engine_evict(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                      uint64_t *freed_bytes) {
    if (freed_bytes) *freed_bytes = 0;
    struct kindreg *kr;
    char key_id[CUZK_NAME_MAX], err[128];
    int rc = key_of(e, kind, circuit_id, &kr, key_id, err, sizeof err);
    if (rc) return rc;
    return cuzk_srs_evict(e->srs, kr->k->name, key_id, freed_bytes);
}
