/* The engine's threads (engine_impl.h has the whole engine's DESIGN).
 *
 * DESIGN (the dispatcher). The dispatcher never blocks on a key or on memory. A pass takes up
 * to DISPATCH_SCAN partitions from the synthesis queue in order and, for each: a partition of
 * a dead job is discarded; one whose key is not loaded has its load requested from the key
 * loaders (and is passed over); one whose key is loaded gets the key referenced and tries a
 * ranked, non-blocking reservation of its memory (budget.h). The first that succeeds goes to
 * an idle synthesis worker; the others go back into the queue. The first partition of the
 * pass that found its key but not its memory becomes the memory head: it keeps its key
 * reference (so that its key cannot be evicted from under it), the budget's evictor is asked
 * for its bytes, and a budget claim is set for it, so that after mem_overtake_ms the memory
 * that running partitions free is held for it instead of going to the partitions behind it.
 * A head waiting longer than CUZK_BUDGET_LOG_MS is logged with what it waits for. Passes run
 * when an event bumps dispatch_gen (a submit, a cancel, a key loaded, memory released, a
 * synthesis worker idle) and, while a head waits, every DISPATCH_TICK_MS.
 *
 * Key loaders take the requested key with the smallest rank, load it through the SRS manager
 * (which blocks on the budget, in rank order, on the loader's thread), release it (it stays
 * loaded) and poke the dispatcher; a load that fails fails the jobs still waiting for it.
 *
 * Device workers call the backend's synchronous prove; its hooks run on the worker's thread:
 * witness_done gives the witness buffer and its budget back (a GPU backend calls it once the
 * witness is in device memory, so the next partition's synthesis can start while this one
 * proves), device_begin / device_end mark the device busy for the utilization figures and the
 * TIMELINE's GPU_START. A backend error (its sentence kept) or a proof that fails the
 * self-check is retried once: synthesized again (the backend gave the witness back), then
 * proved on another device or the fallback backend; a second failure fails the job. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "engine/engine_impl.h"
#include "util/log.h"
#include "util/pool.h"

void cuzk_eng_dispatch_poke_locked(struct cuzk_engine *e) {
    e->dispatch_gen++;
    pthread_cond_signal(&e->dispatch_cv);
}

void cuzk_eng_dispatch_poke(void *engine) {
    struct cuzk_engine *e = engine;
    pthread_mutex_lock(&e->mu);
    cuzk_eng_dispatch_poke_locked(e);
    pthread_mutex_unlock(&e->mu);
}

/* ---- the dispatcher ------------------------------------------------------------------------ */

/* Asks the loaders for a key (under e->mu); nothing when it is asked for already. */
static void request_load_locked(struct cuzk_engine *e, struct kindreg *kr, const char *key_id,
                                uint64_t rank) {
    for (struct keyload *l = e->loads; l; l = l->next)
        if (l->kr == kr && !strcmp(l->key_id, key_id)) {
            if (rank < l->rank) l->rank = rank;
            return;
        }
    struct keyload *l = calloc(1, sizeof *l);
    if (!l) return; /* asked again at the next pass */
    l->kr = kr;
    snprintf(l->key_id, sizeof l->key_id, "%s", key_id);
    l->rank = rank;
    l->next = e->loads;
    e->loads = l;
    pthread_cond_signal(&e->load_cv);
}

static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, double ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = (long long)ts.tv_nsec + (long long)(ms * 1e6);
    ts.tv_sec += ns / 1000000000;
    ts.tv_nsec = ns % 1000000000;
    pthread_cond_timedwait(cv, mu, &ts);
}

/* A partition that waits no longer as the memory head gives its adopted witness buffer (and
 * the charge) back to the cache (no lock held). */
static void part_unadopt(struct cuzk_engine *e, struct part *p) {
    if (p->w) cuzk_eng_witness_put(e, p->w, p->w_cap, &p->res);
    cuzk_reservation_release_all(&p->res);
    p->w = NULL;
}

/* One pass over the queue (e->mu held on entry and exit; dropped inside). */
static void dispatch_pass(struct cuzk_engine *e) {
    struct part *cand[DISPATCH_SCAN];
    size_t n = 0;
    while (n < DISPATCH_SCAN && e->synthq.n) {
        struct part *p = cuzk_eng_heap_pop(&e->synthq);
        p->where = IN_DISPATCH;
        cand[n++] = p;
    }
    struct part *old_head = e->mem_head;
    struct cuzk_srs_entry *orphan_key = NULL; /* an old head no longer examined */
    struct part orphan = {0};                 /* what an old head no longer examined gives back */
    if (old_head && old_head->where == IN_SYNTHQ) {
        orphan_key = old_head->key;
        old_head->key = NULL;
        orphan.w = old_head->w;
        orphan.w_cap = old_head->w_cap;
        orphan.res = old_head->res;
        old_head->w = NULL;
        memset(&old_head->res, 0, sizeof old_head->res);
    }
    pthread_mutex_unlock(&e->mu);

    double t = eng_now(e);
    struct part *chosen = NULL, *head = NULL;
    int want[DISPATCH_SCAN]; /* 1: ask the loaders for its key */
    for (size_t i = 0; i < n; i++) {
        struct part *p = cand[i];
        struct job *j = p->job;
        want[i] = 0;
        if (atomic_load(&j->dead)) continue;
        if (!p->t_first) p->t_first = t;
        if (chosen) continue; /* one partition per pass; the next pass follows at once */
        if (!p->key && cuzk_srs_try_acquire(e->srs, j->kr->k, j->key_id, &p->key)) {
            want[i] = 1;
            continue;
        }
        if (!p->t_key) p->t_key = t;
        /* a kept witness buffer is memory for this partition too: adopted with its charge
         * (a head keeps it while it waits), the rest reserved */
        if (!p->w) cuzk_eng_witness_adopt(e, j->sizes.n_vars, &p->res, &p->w, &p->w_cap);
        struct cuzk_reservation extra = {0};
        if (p->res.bytes >= j->full ||
            !cuzk_budget_try_reserve(e->budget, j->full - p->res.bytes, CUZK_MEM_PARTITION,
                                     cuzk_eng_part_rank(p), &extra)) {
            cuzk_reservation_move(&extra, extra.bytes, CUZK_MEM_PARTITION, &p->res);
            chosen = p;
            continue;
        }
        if (!head) {
            head = p; /* keeps its key reference and its adopted buffer */
        } else {
            cuzk_srs_release(e->srs, p->key);
            p->key = NULL;
            part_unadopt(e, p);
        }
    }
    if (orphan_key) cuzk_srs_release(e->srs, orphan_key);
    part_unadopt(e, &orphan);
    int freed = 0;
    if (head) {
        if (head != old_head) cuzk_budget_claim_clear(e->budget, &e->claim);
        cuzk_budget_claim_set(e->budget, &e->claim, head->job->full - head->res.bytes,
                              cuzk_eng_part_rank(head));
        freed = cuzk_budget_evict(e->budget, head->job->full - head->res.bytes) > 0;
        if (t - head->t_key >= CUZK_BUDGET_LOG_MS && t - head->mem_logged >= CUZK_BUDGET_LOG_MS) {
            struct cuzk_budget_stats st;
            cuzk_budget_get_stats(e->budget, &st);
            cuzk_log_warn("engine",
                          "job %s partition %u has waited %.0f s for %llu bytes of memory: %llu "
                          "of %llu in use (partitions %llu, keys %llu, constraint systems %llu, "
                          "other %llu)",
                          head->job->id, head->idx, (t - head->t_key) / 1e3,
                          (unsigned long long)head->job->full, (unsigned long long)st.used,
                          (unsigned long long)st.total,
                          (unsigned long long)st.by_owner[CUZK_MEM_PARTITION],
                          (unsigned long long)st.by_owner[CUZK_MEM_KEY],
                          (unsigned long long)st.by_owner[CUZK_MEM_CS],
                          (unsigned long long)st.by_owner[CUZK_MEM_OTHER]);
            head->mem_logged = t;
        }
    } else {
        cuzk_budget_claim_clear(e->budget, &e->claim);
    }

    struct part *grave = NULL;
    pthread_mutex_lock(&e->mu);
    e->mem_head = head;
    for (size_t i = 0; i < n; i++) {
        struct part *p = cand[i];
        struct job *j = p->job;
        if (atomic_load(&j->dead)) {
            if (p == head) e->mem_head = NULL;
            p->where = IN_NONE;
            p->next = grave;
            grave = p;
            continue;
        }
        if (want[i]) request_load_locked(e, j->kr, j->key_id, cuzk_eng_part_rank(p));
        if (p == chosen) {
            if (!j->started) {
                j->started = 1;
                j->tm.queue_ms = t - j->t_submit;
            }
            /* the key wait is the job's (every partition waits for the same key): the longest */
            if (p->t_key - p->t_first > j->tm.srs_ms) j->tm.srs_ms = p->t_key - p->t_first;
            j->tm.mem_ms += t - p->t_key;
            e->idle_unclaimed--;
            p->where = IN_READY;
            cuzk_eng_fifo_push(&e->ready_head, &e->ready_tail, p);
            pthread_cond_signal(&e->ready_cv);
            continue;
        }
        p->where = IN_SYNTHQ;
        cuzk_eng_heap_push(&e->synthq, p);
    }
    if (chosen || freed)
        cuzk_eng_dispatch_poke_locked(e); /* look again: another worker may be idle */
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_grave_release(e, grave);
    pthread_mutex_lock(&e->mu);
}

void *cuzk_eng_dispatch_main(void *arg) {
    struct cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    uint64_t seen = e->dispatch_gen - 1;
    while (!e->stopping) {
        int ready = e->idle_unclaimed > 0 && e->synthq.n > 0;
        if (!ready || e->dispatch_gen == seen) {
            if (e->mem_head && ready)
                timed_wait(&e->dispatch_cv, &e->mu, DISPATCH_TICK_MS);
            else
                pthread_cond_wait(&e->dispatch_cv, &e->mu);
            if (e->dispatch_gen == seen && !(e->mem_head && ready)) continue;
        }
        seen = e->dispatch_gen;
        if (e->idle_unclaimed > 0 && e->synthq.n > 0) dispatch_pass(e);
    }
    /* the head's key reference, and its claim */
    struct cuzk_srs_entry *k = NULL;
    if (e->mem_head && e->mem_head->where == IN_SYNTHQ) {
        k = e->mem_head->key;
        e->mem_head->key = NULL;
    }
    e->mem_head = NULL;
    pthread_mutex_unlock(&e->mu);
    if (k) cuzk_srs_release(e->srs, k);
    cuzk_budget_claim_clear(e->budget, &e->claim);
    return NULL;
}

/* ---- key loaders ----------------------------------------------------------------------------- */

static int loads_abort(void *ctx) { return atomic_load((atomic_int *)ctx); }

void *cuzk_eng_keyload_main(void *arg) {
    struct worker *w = arg;
    struct cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        struct keyload *best = NULL;
        while (!e->stopping) {
            for (struct keyload *l = e->loads; l; l = l->next)
                if (!l->running && (!best || l->rank < best->rank)) best = l;
            if (best) break;
            pthread_cond_wait(&e->load_cv, &e->mu);
        }
        if (!best) break;
        best->running = 1;
        w->busy = 1;
        snprintf(w->job_id, sizeof w->job_id, "%s", best->key_id);
        w->since = eng_now(e);
        struct kindreg *kr = best->kr;
        char key_id[CUZK_NAME_MAX];
        memcpy(key_id, best->key_id, sizeof key_id);
        uint64_t rank = best->rank;
        pthread_mutex_unlock(&e->mu);

        char err[CUZK_ERRMSG_MAX] = "";
        struct cuzk_srs_entry *en;
        int rc = cuzk_srs_acquire(e->srs, kr->k, key_id, rank, loads_abort, &e->abort_loads, &en,
                                  NULL, NULL, err, sizeof err);
        if (!rc)
            cuzk_srs_release(e->srs, en); /* loaded: the dispatcher references it next */
        else if (rc != CUZK_ECANCELLED) {
            cuzk_log_warn("engine", "key %s/%s could not be loaded: %s", kr->k->name, key_id,
                          err[0] ? err : cuzk_strerror(rc));
            cuzk_eng_jobs_fail_key(e, kr, key_id, rc, err[0] ? err : cuzk_strerror(rc));
        }

        pthread_mutex_lock(&e->mu);
        for (struct keyload **l = &e->loads; *l; l = &(*l)->next)
            if (*l == best) {
                *l = best->next;
                break;
            }
        free(best);
        w->busy = 0;
        w->job_id[0] = 0;
        cuzk_eng_dispatch_poke_locked(e);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- synthesis workers ----------------------------------------------------------------------- */

static void worker_busy_locked(struct cuzk_engine *e, struct worker *w, const struct part *p) {
    w->busy = 1;
    snprintf(w->job_id, sizeof w->job_id, "%s", p->job->id);
    w->part = (int32_t)p->idx;
    w->since = eng_now(e);
}

static void worker_idle_locked(struct worker *w) {
    w->busy = 0;
    w->job_id[0] = 0;
    w->part = -1;
}

/* Puts a synthesized (or retried) partition into the device queues (no lock held). */
static void to_device_queue(struct cuzk_engine *e, struct part *p) {
    struct job *j = p->job;
    if (atomic_load(&j->dead)) {
        cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    cuzk_eng_timeline(e, eng_now(e), CUZK_TRACE_GPU_QUEUE, j->id, "partition=%u", p->idx);
    pthread_mutex_lock(&e->mu);
    if (atomic_load(&j->dead)) {
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    p->state = CUZK_PART_GPU_QUEUED;
    p->seq = e->item_seq++;
    if (p->attempts) {
        p->where = IN_RETRY;
        cuzk_eng_fifo_push(&e->retry_head, &e->retry_tail, p);
    } else {
        p->where = IN_GPUQ;
        cuzk_eng_heap_push(&e->gpuq, p);
    }
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_mutex_unlock(&e->mu);
}

void *cuzk_eng_synth_main(void *arg) {
    struct worker *w = arg;
    struct cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        e->idle_unclaimed++;
        cuzk_eng_dispatch_poke_locked(e);
        while (!e->stopping && !e->ready_head) pthread_cond_wait(&e->ready_cv, &e->mu);
        struct part *p = cuzk_eng_fifo_pop(&e->ready_head, &e->ready_tail);
        if (!p) break; /* stopping */
        p->where = IN_NONE;
        struct job *j = p->job;
        if (atomic_load(&j->dead)) {
            pthread_mutex_unlock(&e->mu);
            cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->state = CUZK_PART_SYNTHESIZING;
        p->t_synth0 = eng_now(e);
        worker_busy_locked(e, w, p);
        pthread_mutex_unlock(&e->mu);

        const struct cuzk_kind *k = j->kr->k;
        const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
        cuzk_eng_timeline(e, p->t_synth0, CUZK_TRACE_SYNTH_START, j->id, "partition=%u", p->idx);
        char err[CUZK_ERRMSG_MAX] = "";
        int rc = p->w ? CUZK_OK : cuzk_eng_witness_get(e, j->sizes.n_vars, &p->w, &p->w_cap);
        if (!rc) rc = k->synthesize(k, j->kstate, key, p->idx, e->pool, p->w, err, sizeof err);
        double t1 = eng_now(e), synth_ms = t1 - p->t_synth0;
        cuzk_eng_timeline(e, t1, CUZK_TRACE_SYNTH_END, j->id, "partition=%u,synth_ms=%lld", p->idx,
                          (long long)synth_ms);
        if (!rc) {
            /* the synthesis scratch is gone; the public inputs are recorded */
            cuzk_reservation_release(&p->res, j->full - j->after_syn);
            memcpy(j->pub_fr + (size_t)p->idx * j->sizes.n_public, &p->w[1],
                   j->sizes.n_public * sizeof(cuzk_fr));
        }
        pthread_mutex_lock(&e->mu);
        p->synth_ms = synth_ms;
        j->tm.synth_ms += synth_ms;
        worker_idle_locked(w);
        pthread_mutex_unlock(&e->mu);
        if (rc) {
            char msg[CUZK_ERRMSG_MAX + 64];
            snprintf(msg, sizeof msg, "partition %u synthesis failed: %s", p->idx,
                     err[0] ? err : cuzk_strerror(rc));
            cuzk_eng_part_fail(e, p, rc, msg);
        } else {
            to_device_queue(e, p);
        }
        pthread_mutex_lock(&e->mu);
    }
    e->idle_unclaimed--;
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- device workers and finalizers ------------------------------------------------------------
 */

/* A backend call failed for p on device dv (no lock held): retry once (synthesized again, then
 * another device or the fallback), else fail the job with the backend's sentence. */
static void backend_error(struct cuzk_engine *e, struct part *p, int dv, int rc, const char *what) {
    struct job *j = p->job;
    pthread_mutex_lock(&e->mu);
    e->devs[dv].errors++;
    int dead = atomic_load(&j->dead), retry = !dead && p->attempts == 0;
    if (retry) {
        p->attempts++;
        p->avoid_device = dv;
        j->tm.retries++;
    }
    pthread_mutex_unlock(&e->mu);
    if (dead) {
        cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    if (!retry) {
        char msg[CUZK_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "partition %u GPU prove failed on %s: %s", p->idx,
                 e->devs[dv].name, what);
        cuzk_eng_part_fail(e, p, rc, msg);
        return;
    }
    cuzk_log_warn("engine", "job %s partition %u: the proof failed on %s (%s); retrying once",
                  j->id, p->idx, e->devs[dv].name, what);
    /* the witness went back at witness_done (a backend gives it back on failure too):
     * synthesized again, memory and key taken again */
    cuzk_reservation_release_all(&p->res);
    cuzk_srs_release(e->srs, p->key);
    p->key = NULL;
    p->t_first = p->t_key = 0;
    pthread_mutex_lock(&e->mu);
    if (atomic_load(&j->dead)) {
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    p->state = CUZK_PART_QUEUED;
    p->where = IN_SYNTHQ;
    p->seq = e->item_seq++;
    cuzk_eng_heap_push(&e->synthq, p);
    cuzk_eng_dispatch_poke_locked(e);
    pthread_mutex_unlock(&e->mu);
}

/* The retry device d's worker may take (under e->mu), or NULL. */
static struct part *retry_for(struct cuzk_engine *e, int d) {
    for (struct part *p = e->retry_head; p; p = p->next)
        if (e->fallback >= 0 || e->n_devs == 1 || p->avoid_device != d) return p;
    return NULL;
}

/* The next partition device d's worker takes (under e->mu): a retry goes before the queued
 * partitions of its own priority and lower, never before a higher one. */
static struct part *take_device_item(struct cuzk_engine *e, int d) {
    struct part *r = retry_for(e, d), *q = e->gpuq.n ? e->gpuq.a[0] : NULL;
    if (r && (!q || r->job->priority >= q->job->priority)) {
        cuzk_eng_fifo_remove(&e->retry_head, &e->retry_tail, r);
        return r;
    }
    return q ? cuzk_eng_heap_pop(&e->gpuq) : NULL;
}

/* What the backend's hooks update for one proof. */
struct prove_ctx {
    struct cuzk_engine *e;
    struct part *p;
    struct dev *dev;
    uint32_t worker;
    int given_back;
};

static void hook_witness_done(void *ctx) {
    struct prove_ctx *c = ctx;
    struct part *p = c->p;
    if (c->given_back) return;
    c->given_back = 1;
    cuzk_fr *w = p->w;
    size_t cap = p->w_cap;
    p->w = NULL;
    uint64_t moved = cuzk_eng_witness_put(c->e, w, cap, &p->res);
    if (moved < p->job->w_bytes) cuzk_reservation_release(&p->res, p->job->w_bytes - moved);
}

static void hook_device_begin(void *ctx) {
    struct prove_ctx *c = ctx;
    struct cuzk_engine *e = c->e;
    double t = eng_now(e);
    pthread_mutex_lock(&e->mu);
    cuzk_eng_dev_busy_begin(c->dev, t);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_timeline(e, t, CUZK_TRACE_GPU_START, c->p->job->id, "worker=%u,partition=%u",
                      c->worker, c->p->idx);
}

static void hook_device_end(void *ctx) {
    struct prove_ctx *c = ctx;
    struct cuzk_engine *e = c->e;
    double t = eng_now(e);
    pthread_mutex_lock(&e->mu);
    cuzk_eng_dev_busy_end(c->dev, t);
    pthread_mutex_unlock(&e->mu);
}

/* Whether device d's backend takes one more proof now (under e->mu): a worker beyond its places
 * leaves the partitions in the queue, where priority orders them, instead of waiting inside
 * prove with one (a CRITICAL job would then wait for it too). */
static int place_free(struct cuzk_engine *e, int d) {
    const struct cuzk_backend *be = e->devs[d].d.backend;
    const unsigned places = be->places ? be->places(be) : 0;
    return !places || e->devs[d].proving < places;
}

void *cuzk_eng_device_main(void *arg) {
    struct worker *w = arg;
    struct cuzk_engine *e = w->e;
    int d = w->device;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        struct part *p = NULL;
        while (!e->stopping && (!place_free(e, d) || !(p = take_device_item(e, d))))
            pthread_cond_wait(&e->gpu_cv, &e->mu);
        if (!p) break;
        e->devs[d].proving++;
        struct job *j = p->job;
        p->where = IN_NONE;
        /* a retry runs on the fallback backend when there is one */
        int dv = p->attempts && e->fallback >= 0 ? e->fallback : d;
        struct dev *dev = &e->devs[dv];
        p->state = CUZK_PART_PROVING;
        p->device = dv;
        p->worker = (int)w->id;
        const double t0 = eng_now(e);
        p->t_gpu0 = t0; /* the status's time on the device so far */
        worker_busy_locked(e, w, p);
        pthread_mutex_unlock(&e->mu);

        cuzk_eng_timeline(e, t0, CUZK_TRACE_GPU_PICKUP, j->id, "worker=%u,partition=%u", w->id,
                          p->idx);
        const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
        struct prove_ctx pc = {.e = e, .p = p, .dev = dev, .worker = w->id};
        struct cuzk_prove_hooks hooks = {.ctx = &pc,
                                         .witness_done = hook_witness_done,
                                         .device_begin = hook_device_begin,
                                         .device_end = hook_device_end,
                                         .priority = j->priority};
        struct cuzk_prove_info info;
        char err[CUZK_ERRMSG_MAX] = "";
        memset(&info, 0, sizeof info);
        int rc = cuzk_groth16_prove(dev->d.backend, &key->pk, p->w, j->sizes.n_vars, NULL, &hooks,
                                    &p->proof, &info, err, sizeof err);
        hook_witness_done(&pc); /* when the backend failed before it got that far */
        double t1 = eng_now(e);
        /* the backend's working memory is free again: only the proof is left */
        cuzk_reservation_release_all(&p->res);
        double dev_ms = info.device_ms > 0 ? info.device_ms : t1 - t0 - info.lock_ms;
        cuzk_eng_timeline(e, t1, CUZK_TRACE_GPU_END, j->id, "worker=%u,partition=%u,gpu_ms=%lld",
                          w->id, p->idx, (long long)dev_ms);
        cuzk_eng_trace(e,
                       CUZK_TRACE_GPU_TIMING
                       " job=%s partition=%u worker=%u device=%d lock_wait_ms=%.3f "
                       "device_ms=%.3f prove_ms=%.3f",
                       j->id, p->idx, w->id, dv, info.lock_ms, dev_ms, t1 - t0);
        if (info.stages[0])
            cuzk_eng_trace(e, CUZK_TRACE_GPU_STAGES " job=%s partition=%u device=%d %s", j->id,
                           p->idx, dv, info.stages);
        pthread_mutex_lock(&e->mu);
        e->devs[d].proving--;
        pthread_cond_broadcast(&e->gpu_cv); /* a worker held back by place_free may go on */
        j->tm.lock_ms += info.lock_ms;
        worker_idle_locked(w);
        if (!rc) {
            dev->proofs++;
            p->gpu_ms = dev_ms;
            j->tm.gpu_ms += dev_ms;
            p->where = IN_FIN;
            cuzk_eng_fifo_push(&dev->fin_head, &dev->fin_tail, p);
            pthread_cond_signal(&dev->fin_cv);
        }
        pthread_mutex_unlock(&e->mu);
        if (rc) backend_error(e, p, dv, rc, err[0] ? err : cuzk_strerror(rc));
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static int part_verify(struct cuzk_engine *e, struct part *p, const struct cuzk_snarkjs_proof *pr,
                       double *ms) {
    struct job *j = p->job;
    double t0 = eng_now(e);
    const uint32_t np = j->sizes.n_public;
    const cuzk_fr *pubs = j->pub_fr + (size_t)p->idx * np;
    const struct cuzk_kind *k = j->kr->k;
    const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
    int ok = k->verify ? k->verify(k, j->kstate, key, p->idx, pubs, np, pr)
                       : cuzk_groth16_verify(&key->vk, pubs, np, pr);
    *ms = eng_now(e) - t0;
    return ok;
}

void *cuzk_eng_fin_main(void *arg) {
    struct fin_arg *fa = arg;
    struct cuzk_engine *e = fa->e;
    int dv = fa->dv;
    free(fa);
    struct dev *dev = &e->devs[dv];
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stopping && !dev->fin_head) pthread_cond_wait(&dev->fin_cv, &e->mu);
        struct part *p = cuzk_eng_fifo_pop(&dev->fin_head, &dev->fin_tail);
        if (!p) break;
        struct job *j = p->job;
        p->where = IN_NONE;
        p->state = CUZK_PART_FINALIZING;
        int wid = p->worker, dead = atomic_load(&j->dead);
        pthread_mutex_unlock(&e->mu);

        double t0 = eng_now(e);
        cuzk_eng_timeline(e, t0, CUZK_TRACE_FIN_START, j->id, "worker=%d,partition=%u", wid,
                          p->idx);
        double verify_ms = 0;
        if (!dead && e->cfg.self_verify) {
            int ok = part_verify(e, p, &p->proof, &verify_ms);
            pthread_mutex_lock(&e->mu);
            j->tm.verify_ms += verify_ms;
            pthread_mutex_unlock(&e->mu);
            if (ok != 1) {
                backend_error(e, p, dv, ok < 0 ? ok : CUZK_EVERIFY,
                              ok < 0 ? cuzk_strerror(ok)
                                     : "self-verification: the proof does not verify");
                pthread_mutex_lock(&e->mu);
                continue;
            }
        }
        if (!dead) {
            uint8_t *out = j->proof + (size_t)p->idx * CUZK_PROOF_BYTES;
            cuzk_g1_to_compressed(out, &p->proof.a);
            cuzk_g2_to_compressed(out + CUZK_G1_COMPRESSED, &p->proof.b);
            cuzk_g1_to_compressed(out + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED, &p->proof.c);
            /* the public inputs' one encoding: field elements from synthesis to here */
            const uint32_t np = j->sizes.n_public;
            for (uint32_t i = 0; i < np; i++)
                cuzk_fr_to_bytes_le(j->pub + ((size_t)p->idx * np + i) * 32,
                                    &j->pub_fr[(size_t)p->idx * np + i]);
        }
        double t2 = eng_now(e);
        struct cuzk_srs_entry *key = p->key;
        p->key = NULL; /* released after the last use of the job below */
        uint64_t freed = cuzk_eng_part_release(e, p);
        double t3 = eng_now(e);
        double trim_ms = cuzk_budget_trim(freed, e->cfg.trim_threshold);
        double t4 = eng_now(e);
        /* traces first: once p is terminal the job may be freed by another thread */
        cuzk_eng_trace(e,
                       CUZK_TRACE_FIN_TIMING
                       " job=%s partition=%u worker=%d device=%d verify_ms=%.3f "
                       "release_ms=%.3f malloc_trim_ms=%.3f total_ms=%.3f",
                       j->id, p->idx, wid, dv, verify_ms, t3 - t2, trim_ms, t4 - t0);
        cuzk_eng_timeline(e, t4, CUZK_TRACE_FIN_END, j->id, "worker=%d,partition=%u", wid, p->idx);
        cuzk_srs_release(e->srs, key);

        struct part *grave = NULL;
        struct final_report rep;
        int became_final = 0;
        pthread_mutex_lock(&e->mu);
        if (!atomic_load(&j->dead)) {
            p->state = CUZK_PART_DONE;
            if (++j->parts_done == j->n_parts) {
                cuzk_eng_job_final_locked(e, j, CUZK_JOB_DONE, CUZK_OK, NULL, &grave);
                cuzk_eng_final_report_take(j, &rep);
                became_final = 1;
            }
        }
        int drained = cuzk_eng_part_terminal_locked(
            e, p, p->state == CUZK_PART_DONE ? CUZK_PART_DONE : CUZK_PART_CANCELLED);
        pthread_mutex_unlock(&e->mu);
        /* a job this partition completes lets go of its memory and its request's bytes
         * (cuzk_job_request.input_done) before it is answered: a client's next request, sent
         * on the answer, finds them free (an unanswered job is not freed by its drain) */
        if (drained && became_final) cuzk_eng_job_drain(e, j);
        if (became_final) {
            cuzk_eng_final_report_emit(e, &rep);
            cuzk_eng_job_answer(e, j);
        }
        cuzk_eng_grave_release(e, grave);
        if (drained && !became_final) cuzk_eng_job_drain(e, j);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- housekeeping -------------------------------------------------------------------------- */

void *cuzk_eng_house_main(void *arg) {
    struct cuzk_engine *e = arg;
    double period = HOUSE_PERIOD_MS;
    if (e->cfg.result_ttl_ms / 4.0 < period)
        period = e->cfg.result_ttl_ms / 4.0 > 5 ? e->cfg.result_ttl_ms / 4.0 : 5;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        timed_wait(&e->house_cv, &e->mu, period);
        if (e->stopping) break;
        double t = eng_now(e);
        for (struct job *j = e->jobs_head, *nx; j; j = nx) {
            nx = j->next;
            if (j->final && j->in_table && t - j->t_final >= (double)e->cfg.result_ttl_ms) {
                cuzk_eng_table_remove(e, j);
                cuzk_eng_job_maybe_free(e, j);
            }
        }
        if (e->cfg.srs_idle_evict_ms) {
            pthread_mutex_unlock(&e->mu);
            cuzk_srs_evict_idle(e->srs, UINT64_MAX, e->cfg.srs_idle_evict_ms, 0);
            pthread_mutex_lock(&e->mu);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
