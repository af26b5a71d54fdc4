/* The proving engine (include/cuzk/engine.h).
 *
 * DESIGN
 *
 * Threads (all named):
 *   cuzk-dispatch   one dispatcher. Pops the best partition from the synthesis queue when a
 *                   synthesis worker is idle, gets its key from the SRS manager (loading it if
 *                   needed), reserves its memory from the budget (blocking, in queue order),
 *                   then hands it to the synthesis workers through the ready list.
 *   cuzk-synth-N    synthesis workers. Build the partition's witness with the kind, record its
 *                   public inputs, push it to the device queue.
 *   cuzk-dev-D-W    device workers, gpu_workers_per_device per device. Take a slot of
 *                   the device (max_in_flight; held until prove_finish returns) and the
 *                   best partition of the device queue (retries first), take the device's
 *                   lock only around the backend's prove_start, release what the backend
 *                   no longer needs, hand the pending proof to the device's finalizer.
 *   cuzk-fin-D      one finalizer per device (and one for the fallback backend):
 *                   prove_finish, self-verification, proof encoding, release of the rest of
 *                   the partition's memory (malloc_trim after large frees), assembly and
 *                   delivery of the job.
 *   cuzk-house      housekeeping: drops final results after result_ttl_ms, evicts keys
 *                   idle for srs_idle_evict_ms.
 *
 * Queues (all under e->mu): the synthesis queue and the device queue are binary heaps ordered
 * by (priority desc, job sequence, partition index, item sequence): unique keys, FIFO within a
 * priority. The ready list (dispatcher -> synthesis workers), the retry list (second attempts
 * after a backend error, taken before the device queue) and the finalizer lists are FIFOs.
 *
 * Ownership: a partition (struct part) is owned by exactly one place at a time: a queue or
 * list (under e->mu), or the thread that took it from there. Its resources (key reference,
 * budget reservation, witness, pending proof) travel with it. A job is owned by the job table
 * and list; it is freed when it has left the table (TTL, replacement, destroy), all its
 * partitions are terminal (their resources released) and no caller is waiting on it.
 *
 * Failure and cancellation: job_final_locked makes the job final at once, answers its waiters,
 * removes its queued partitions (their resources are released right after, outside the lock)
 * and marks it dead; a partition held by a thread is discarded at the thread's next boundary
 * (after its key / memory wait, after synthesis, after prove_start, after prove_finish). A
 * dead job's budget waits are aborted (cuzk_budget_wake + the abort callback).
 *
 * Locks: e->mu (queues, jobs, partitions' states, workers, devices' counters), each device's
 * prove lock, e->trace_mu (trace output), and the budget's, SRS manager's, pool's and log's
 * own mutexes. NEVER TWO AT ONCE: resources are released, kinds and backends called, trace
 * lines written only with no engine lock held; a decision taken under e->mu that needs
 * another lock collects its work (e.g. a list of partitions to free) and does it after
 * unlocking. The one nesting: a device's prove lock is held around the backend's prove_start,
 * inside which the backend may take its own locks (never the engine's). Trace lines carry the
 * time of their event, taken where it happened. */
#define _GNU_SOURCE
#include "cuzk/engine.h"

#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "engine/budget.h"
#include "engine/kind.h"
#include "engine/snarkjs_kind.h"
#include "engine/srs.h"
#include "engine/synthetic.h"
#include "groth16/groth16.h"
#include "util/log.h"
#include "util/pool.h"
#include "util/rand.h"

#define MAX_KINDS 32
#define UTIL_RING 4096        /* busy intervals kept per device for the utilization window */
#define HOUSE_PERIOD_MS 250.0 /* housekeeping period (bounded by result_ttl_ms / 4) */

enum where { IN_NONE = 0, IN_SYNTHQ, IN_READY, IN_GPUQ, IN_RETRY, IN_FIN };

struct job;

struct part {
    struct job *job;
    uint32_t idx;
    enum cuzk_part_state state;
    enum where where;
    size_t heap_idx;
    uint64_t seq;      /* unique among queued items: the last tiebreaker */
    struct part *next; /* FIFO link */
    int terminal;      /* finished; resources released */
    uint32_t attempts; /* failed backend attempts */
    int avoid_device;  /* the device that failed, for the retry; -1 */
    int device;        /* device of the current attempt; -1 */
    int worker;        /* device worker that started it; -1 */
    struct cuzk_srs_entry *key;
    struct cuzk_reservation res;
    cuzk_fr *w;
    struct cuzk_prove_pending *pending;
    double t_synth0, t_gpu0; /* engine ms */
    double synth_ms, gpu_ms; /* -1 until measured */
};

struct kindreg {
    const struct cuzk_kind *k;
    int owned; /* created by the engine: destroy() at the end */
    uint64_t completed, failed, cancelled;
    double total_ms_sum;
};

struct job {
    char id[CUZK_JOB_ID_MAX];
    uint64_t seq;
    struct kindreg *kr;
    char circuit[CUZK_NAME_MAX], key_id[CUZK_NAME_MAX];
    int priority;
    void *kstate;
    struct cuzk_kind_sizes sizes;
    uint64_t w_bytes;   /* witness */
    uint64_t full;      /* reserved per partition before synthesis */
    uint64_t after_syn; /* kept after synthesis */
    uint64_t at_start;  /* backend bytes freed when prove_start returns */
    uint32_t n_parts, parts_done, parts_live;
    struct part *parts;
    enum cuzk_job_state final; /* NONE while live */
    int err;
    char errmsg[CUZK_ERRMSG_MAX];
    atomic_int dead; /* final: running partitions stop at their next boundary */
    int started;     /* a partition left the synthesis queue */
    int drained;     /* every partition terminal and the kind's job state freed */
    int in_table;
    uint32_t waiters;
    uint8_t *proof, *pub;
    struct cuzk_job_timings tm;
    double t_submit, t_final; /* engine ms */
    struct cuzk_reservation input_res;
    pthread_cond_t cv; /* waiters: signalled when the job becomes final */
    struct job *hnext, *prev, *next;
};

struct interval {
    double a, b;
};

struct dev {
    struct cuzk_engine_device d;
    char name[CUZK_NAME_MAX];
    struct cuzk_backend cpu_be; /* when the engine made the device */
    void (*host_bytes)(void *, uint32_t, uint32_t, uint64_t *, uint64_t *);
    void *host_ctx;
    int is_fallback;
    unsigned workers;
    pthread_mutex_t prove_lock; /* held only around prove_start */
    /* under e->mu: */
    struct part *fin_head, *fin_tail;
    pthread_cond_t fin_cv;
    pthread_t fin_thread;
    int fin_started;
    uint32_t in_flight;        /* between prove_start's entry and prove_finish's return */
    uint32_t slots, max_slots; /* taken at pickup, given back when the proof is finished */
    double busy_since, busy_total;
    struct interval ring[UTIL_RING];
    size_t ring_head, ring_n;
    uint64_t proofs, errors;
};

struct worker {
    struct cuzk_engine *e;
    uint32_t id;
    int device; /* -1: synthesis */
    unsigned sub;
    pthread_t th;
    int running;
    /* under e->mu: */
    int busy;
    char job_id[CUZK_JOB_ID_MAX];
    int32_t part;
    double since;
};

struct heap {
    struct part **a;
    size_t n, cap;
};

struct cuzk_engine {
    /* settings (immutable after create) */
    uint64_t min_idle_ms, srs_idle_ms, trim_threshold, ttl_ms, util_window_ms, max_batch_wait_ms;
    unsigned synth_workers, workers_per_dev, max_batch_size;
    int self_verify;
    FILE *trace_file;
    cuzk_engine_trace_fn trace_fn;
    void *trace_ctx;
    pthread_mutex_t trace_mu;
    double t0; /* CLOCK_MONOTONIC ms at create */

    struct cuzk_pool *pool;
    struct cuzk_budget *budget;
    struct cuzk_srs *srs;
    struct dev *devs; /* n_devs regular devices, then the fallback if any */
    size_t n_devs;
    int fallback;                         /* index of the fallback device, -1 if none */
    struct cuzk_engine_device *dev_descs; /* for the SRS manager's hooks */

    pthread_mutex_t mu;
    pthread_cond_t dispatch_cv, ready_cv, gpu_cv, drain_cv, house_cv;
    struct kindreg kinds[MAX_KINDS];
    size_t n_kinds;
    struct heap synthq, gpuq;
    struct part *ready_head, *ready_tail, *retry_head, *retry_tail;
    unsigned idle_unclaimed; /* synthesis workers waiting with no item promised to them */
    struct job **table;
    size_t table_cap, table_n;
    struct job *jobs_head; /* every job not yet freed */
    uint64_t job_seq, item_seq, live_parts;
    uint64_t completed, failed, cancelled;
    int started, accepting, shutting, stopping, shut_done;
    struct worker *workers;
    size_t n_workers;
    pthread_t dispatch_th, house_th;
    int dispatch_started, house_started;
};

static double mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now(const struct cuzk_engine *e) { return mono_ms() - e->t0; }

/* ---- trace output ------------------------------------------------------------------------ */

static void trace_line(struct cuzk_engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void trace_line(struct cuzk_engine *e, const char *fmt, ...) {
    if (!e->trace_fn && !e->trace_file) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&e->trace_mu);
    if (e->trace_fn) {
        e->trace_fn(e->trace_ctx, line);
    } else {
        fputs(line, e->trace_file);
        fputc('\n', e->trace_file);
        fflush(e->trace_file);
    }
    pthread_mutex_unlock(&e->trace_mu);
}

/* TIMELINE,<offset_ms>,<event>,<job_id>,<detail> at engine time t */
#define TIMELINE(e, t, event, job, ...)                                                            \
    do {                                                                                           \
        if ((e)->trace_fn || (e)->trace_file) {                                                    \
            char d_[256];                                                                          \
            snprintf(d_, sizeof d_, __VA_ARGS__);                                                  \
            trace_line((e), "TIMELINE,%lld,%s,%s,%s", (long long)(t), (event), (job), d_);         \
        }                                                                                          \
    } while (0)

/* ---- heaps ------------------------------------------------------------------------------- */

static int part_before(const struct part *x, const struct part *y) {
    if (x->job->priority != y->job->priority) return x->job->priority > y->job->priority;
    if (x->job->seq != y->job->seq) return x->job->seq < y->job->seq;
    if (x->idx != y->idx) return x->idx < y->idx;
    return x->seq < y->seq;
}

static void heap_set(struct heap *h, size_t i, struct part *p) {
    h->a[i] = p;
    p->heap_idx = i;
}

static void sift_up(struct heap *h, size_t i) {
    struct part *p = h->a[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!part_before(p, h->a[up])) break;
        heap_set(h, i, h->a[up]);
        i = up;
    }
    heap_set(h, i, p);
}

static void sift_down(struct heap *h, size_t i) {
    struct part *p = h->a[i];
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        struct part *bp = p;
        if (l < h->n && part_before(h->a[l], bp)) best = l, bp = h->a[l];
        if (l + 1 < h->n && part_before(h->a[l + 1], bp)) best = l + 1, bp = h->a[l + 1];
        if (best == i) break;
        heap_set(h, i, bp);
        i = best;
    }
    heap_set(h, i, p);
}

static int heap_reserve(struct heap *h, size_t cap) {
    if (cap <= h->cap) return CUZK_OK;
    size_t nc = h->cap ? h->cap : 64;
    while (nc < cap) nc *= 2;
    struct part **a = realloc(h->a, nc * sizeof *a);
    if (!a) return CUZK_ENOMEM;
    h->a = a;
    h->cap = nc;
    return CUZK_OK;
}

/* Capacity is reserved at submit (every live partition fits in either heap): cannot fail. */
static void heap_push(struct heap *h, struct part *p) {
    h->a[h->n] = p;
    p->heap_idx = h->n++;
    sift_up(h, p->heap_idx);
}

static void heap_remove(struct heap *h, size_t i) {
    struct part *last = h->a[--h->n];
    if (i == h->n) return;
    heap_set(h, i, last);
    sift_up(h, i);
    sift_down(h, last->heap_idx);
}

static struct part *heap_pop(struct heap *h) {
    if (!h->n) return NULL;
    struct part *p = h->a[0];
    heap_remove(h, 0);
    return p;
}

/* ---- FIFO lists ---------------------------------------------------------------------------- */

static void fifo_push(struct part **head, struct part **tail, struct part *p) {
    p->next = NULL;
    if (*tail)
        (*tail)->next = p;
    else
        *head = p;
    *tail = p;
}

static struct part *fifo_pop(struct part **head, struct part **tail) {
    struct part *p = *head;
    if (p) {
        *head = p->next;
        if (!*head) *tail = NULL;
        p->next = NULL;
    }
    return p;
}

static void fifo_remove(struct part **head, struct part **tail, struct part *p) {
    struct part *prev = NULL;
    for (struct part *q = *head; q; prev = q, q = q->next) {
        if (q != p) continue;
        if (prev)
            prev->next = q->next;
        else
            *head = q->next;
        if (*tail == q) *tail = prev;
        q->next = NULL;
        return;
    }
}

/* ---- the job table (request id -> job), under e->mu --------------------------------------- */

static size_t hash_id(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static struct job *table_find(struct cuzk_engine *e, const char *id) {
    for (struct job *j = e->table[hash_id(id) & (e->table_cap - 1)]; j; j = j->hnext)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

static void table_grow(struct cuzk_engine *e) {
    size_t cap = e->table_cap * 2;
    struct job **t = calloc(cap, sizeof *t);
    if (!t) return; /* chains just get longer */
    for (size_t i = 0; i < e->table_cap; i++)
        for (struct job *j = e->table[i], *nx; j; j = nx) {
            nx = j->hnext;
            size_t b = hash_id(j->id) & (cap - 1);
            j->hnext = t[b];
            t[b] = j;
        }
    free(e->table);
    e->table = t;
    e->table_cap = cap;
}

static void table_insert(struct cuzk_engine *e, struct job *j) {
    if (e->table_n + 1 > 2 * e->table_cap) table_grow(e);
    size_t b = hash_id(j->id) & (e->table_cap - 1);
    j->hnext = e->table[b];
    e->table[b] = j;
    e->table_n++;
    j->in_table = 1;
}

static void table_remove(struct cuzk_engine *e, struct job *j) {
    struct job **pp = &e->table[hash_id(j->id) & (e->table_cap - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if (*pp == j) {
            *pp = j->hnext;
            e->table_n--;
            break;
        }
    j->in_table = 0;
    j->hnext = NULL;
}

static void job_free_mem(struct job *j) {
    pthread_cond_destroy(&j->cv);
    free(j->parts);
    free(j->proof);
    free(j->pub);
    free(j);
}

/* Frees the job when nothing refers to it any more (under e->mu). */
static void job_maybe_free(struct cuzk_engine *e, struct job *j) {
    if (j->in_table || !j->drained || j->waiters) return;
    if (j->prev)
        j->prev->next = j->next;
    else
        e->jobs_head = j->next;
    if (j->next) j->next->prev = j->prev;
    job_free_mem(j);
}

/* ---- job state --------------------------------------------------------------------------- */

static enum cuzk_job_state job_state(const struct job *j) {
    if (j->final) return j->final;
    uint32_t fin = 0, dev = 0, syn = 0, done = 0;
    for (uint32_t i = 0; i < j->n_parts; i++) switch (j->parts[i].state) {
        case CUZK_PART_FINALIZING: fin++; break;
        case CUZK_PART_GPU_QUEUED:
        case CUZK_PART_PROVING: dev++; break;
        case CUZK_PART_SYNTHESIZING: syn++; break;
        case CUZK_PART_DONE: done++; break;
        default: break;
        }
    if (fin && fin + done == j->n_parts) return CUZK_JOB_FINALIZING;
    if (fin || dev || done) return CUZK_JOB_PROVING;
    if (syn) return CUZK_JOB_SYNTHESIZING;
    return CUZK_JOB_QUEUED;
}

/* Partitions in the synthesis queue that will be dispatched before the job's first queued
 * one (0 when none of the job's partitions is queued). Under e->mu. */
static uint32_t queue_position(const struct cuzk_engine *e, const struct job *j) {
    const struct part *first = NULL;
    for (uint32_t i = 0; i < j->n_parts && !first; i++)
        if (j->parts[i].where == IN_SYNTHQ) first = &j->parts[i];
    if (!first) return 0;
    uint32_t n = 0;
    for (size_t i = 0; i < e->synthq.n; i++)
        if (part_before(e->synthq.a[i], first)) n++;
    return n;
}

/* Makes a live job final (under e->mu): answers the waiters, takes its queued partitions out
 * of the queues into *grave (their resources must be released after unlocking, with
 * grave_release), marks it dead so held partitions stop at their next boundary. */
static void job_final_locked(struct cuzk_engine *e, struct job *j, enum cuzk_job_state st, int err,
                             const char *msg, struct part **grave) {
    if (j->final) return;
    j->final = st;
    j->err = err;
    snprintf(j->errmsg, sizeof j->errmsg, "%s", msg ? msg : "");
    j->t_final = now(e);
    j->tm.total_ms = j->t_final - j->t_submit;
    if (st != CUZK_JOB_DONE) atomic_store(&j->dead, 1);
    if (st == CUZK_JOB_DONE)
        e->completed++, j->kr->completed++, j->kr->total_ms_sum += j->tm.total_ms;
    else if (st == CUZK_JOB_FAILED)
        e->failed++, j->kr->failed++;
    else
        e->cancelled++, j->kr->cancelled++;
    for (uint32_t i = 0; i < j->n_parts; i++) {
        struct part *p = &j->parts[i];
        switch (p->where) {
        case IN_SYNTHQ: heap_remove(&e->synthq, p->heap_idx); break;
        case IN_GPUQ: heap_remove(&e->gpuq, p->heap_idx); break;
        case IN_RETRY: fifo_remove(&e->retry_head, &e->retry_tail, p); break;
        default: continue; /* held by a thread, or in the ready / finalizer lists */
        }
        p->where = IN_NONE;
        p->next = *grave;
        *grave = p;
    }
    pthread_cond_broadcast(&j->cv);
}

/* What is reported about a job that became final, copied under e->mu: the job itself may
 * be freed by another thread as soon as the lock is dropped. */
struct final_report {
    char id[CUZK_JOB_ID_MAX], circuit[CUZK_NAME_MAX], errmsg[CUZK_ERRMSG_MAX];
    const char *kind;
    enum cuzk_job_state state;
    uint32_t n_parts;
    struct cuzk_job_timings tm;
};

static void final_report_take(const struct job *j, struct final_report *r) {
    memcpy(r->id, j->id, sizeof r->id);
    memcpy(r->circuit, j->circuit, sizeof r->circuit);
    memcpy(r->errmsg, j->errmsg, sizeof r->errmsg);
    r->kind = j->kr->k->name;
    r->state = j->final;
    r->n_parts = j->n_parts;
    r->tm = j->tm;
}

/* The log line and the CUZK_TIMING line of a final job (no lock held). */
static void final_report_emit(struct cuzk_engine *e, const struct final_report *r) {
    if (r->state == CUZK_JOB_FAILED)
        cuzk_log_warn("engine", "job %s failed: %s", r->id, r->errmsg);
    else if (r->state == CUZK_JOB_CANCELLED)
        cuzk_log_info("engine", "job %s cancelled: %s", r->id, r->errmsg);
    else
        cuzk_log_debug("engine", "job %s done in %.1f ms", r->id, r->tm.total_ms);
    const struct cuzk_job_timings *t = &r->tm;
    trace_line(e,
               "CUZK_TIMING job=%s kind=%s circuit=%s state=%s partitions=%u queue_ms=%.3f "
               "srs_ms=%.3f mem_ms=%.3f synth_ms=%.3f gpu_ms=%.3f lock_ms=%.3f verify_ms=%.3f "
               "total_ms=%.3f retries=%u",
               r->id, r->kind, r->circuit, cuzk_job_state_name(r->state), r->n_parts, t->queue_ms,
               t->srs_ms, t->mem_ms, t->synth_ms, t->gpu_ms, t->lock_ms, t->verify_ms, t->total_ms,
               t->retries);
}

/* ---- partition resources ------------------------------------------------------------------- */

/* Releases what a partition holds (no lock held). Returns the bytes given back. */
static uint64_t part_release(struct cuzk_engine *e, struct part *p) {
    uint64_t freed = p->res.bytes;
    free(p->w);
    p->w = NULL;
    cuzk_reservation_release_all(&p->res);
    if (p->key) cuzk_srs_release(e->srs, p->key);
    p->key = NULL;
    return freed;
}

/* The kind's job state and the input charge go when the last partition is terminal. */
static void job_drain(struct cuzk_engine *e, struct job *j) {
    j->kr->k->job_free(j->kr->k, j->kstate);
    j->kstate = NULL;
    cuzk_reservation_release_all(&j->input_res);
    pthread_mutex_lock(&e->mu);
    j->drained = 1;
    job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
}

/* Marks p terminal (under e->mu). Returns 1 when its job has no live partition left: the
 * caller then calls job_drain after unlocking. */
static int part_terminal_locked(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st) {
    if (p->terminal) return 0;
    p->terminal = 1;
    p->state = st;
    p->where = IN_NONE;
    struct job *j = p->job;
    j->parts_live--;
    if (--e->live_parts == 0) pthread_cond_broadcast(&e->drain_cv);
    return j->parts_live == 0;
}

/* Releases and terminates a discarded partition (no lock held). */
static void part_discard(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st) {
    uint64_t freed = part_release(e, p);
    cuzk_budget_trim(freed, e->trim_threshold);
    pthread_mutex_lock(&e->mu);
    struct job *j = p->job;
    int drained = part_terminal_locked(e, p, st);
    pthread_mutex_unlock(&e->mu);
    if (drained) job_drain(e, j);
}

static void grave_release(struct cuzk_engine *e, struct part *grave) {
    if (grave) cuzk_budget_wake(e->budget);
    while (grave) {
        struct part *p = grave;
        grave = p->next;
        p->next = NULL;
        part_discard(e, p, CUZK_PART_CANCELLED);
    }
}

/* Fails p's job with a message about p (no lock held), then discards p. */
static void part_fail(struct cuzk_engine *e, struct part *p, int err, const char *msg) {
    struct part *grave = NULL;
    struct job *j = p->job;
    struct final_report rep;
    pthread_mutex_lock(&e->mu);
    int was_live = !j->final;
    job_final_locked(e, j, CUZK_JOB_FAILED, err, msg, &grave);
    if (was_live) final_report_take(j, &rep);
    pthread_mutex_unlock(&e->mu);
    if (was_live) final_report_emit(e, &rep);
    grave_release(e, grave);
    part_discard(e, p, CUZK_PART_FAILED);
}

static int job_dead(void *ctx) { return atomic_load(&((struct job *)ctx)->dead); }

/* ---- devices: utilization ------------------------------------------------------------------ */

/* under e->mu */
static void dev_busy_begin(struct dev *d, double t) {
    if (d->in_flight++ == 0) d->busy_since = t;
}

static void dev_busy_end(struct dev *d, double t) {
    if (!d->in_flight || --d->in_flight) return;
    if (t < d->busy_since) t = d->busy_since;
    d->busy_total += t - d->busy_since;
    size_t i = (d->ring_head + d->ring_n) % UTIL_RING;
    if (d->ring_n == UTIL_RING)
        d->ring_head = (d->ring_head + 1) % UTIL_RING;
    else
        d->ring_n++;
    d->ring[i] = (struct interval){d->busy_since, t};
}

/* Busy milliseconds of d within [t - w, t] (under e->mu). */
static double dev_busy_in(const struct dev *d, double t, double w) {
    double lo = t - w, busy = 0;
    for (size_t k = 0; k < d->ring_n; k++) {
        const struct interval *iv = &d->ring[(d->ring_head + k) % UTIL_RING];
        double a = iv->a > lo ? iv->a : lo, b = iv->b < t ? iv->b : t;
        if (b > a) busy += b - a;
    }
    if (d->in_flight) busy += t - (d->busy_since > lo ? d->busy_since : lo);
    return busy;
}

/* The CPU backend's host memory per proof (cpu_backend.c: a, b, c and h over the domain, the
 * witness as scalars, and the MSM scratch of msm.h: 8 bytes a point plus, per pool thread,
 * the sort space, one window's buckets and a batch of 8192 points). */
static void cpu_host_bytes(void *ctx, uint32_t n_vars, uint32_t domain, uint64_t *at_start,
                           uint64_t *until_finish) {
    unsigned threads = cuzk_pool_size(ctx);
    uint64_t n = domain, nv = n_vars, m = n > nv ? n : nv;
    unsigned c = 1;
    while (c < 16 && ((uint64_t)1 << c) < m) c++;
    uint64_t sort = 8 * m < ((uint64_t)8 << 20) ? 8 * m : ((uint64_t)8 << 20);
    uint64_t batch = (m < 8192 ? m : 8192) * 400;
    uint64_t per_thread = sort + ((uint64_t)1 << (c - 1)) * sizeof(cuzk_g2_affine) + batch;
    *at_start = 0;
    *until_finish = 4 * n * sizeof(cuzk_fr) + nv * sizeof(cuzk_fr) + 8 * m +
                    (uint64_t)threads * per_thread + 64 * 1024;
}

/* Host bytes charged with every key besides the key itself: the CPU backend's NTT domain
 * cache (ntt/ntt.h: 32 bytes an element, kept for the life of the process; charged to the
 * key so that a big domain is counted; a second key of the same size is charged again, an
 * over-estimate). */
static uint64_t key_extra_bytes(void *ctx, const struct cuzk_kind_sizes *sz) {
    const struct cuzk_engine *e = ctx;
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
        if (e->devs[d].host_bytes == cpu_host_bytes)
            return (uint64_t)sz->domain_size * sizeof(cuzk_fr);
    return 0;
}

/* ---- the dispatcher ------------------------------------------------------------------------ */

static void *dispatch_main(void *arg) {
    struct cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stopping && !(e->idle_unclaimed > 0 && e->synthq.n > 0))
            pthread_cond_wait(&e->dispatch_cv, &e->mu);
        if (e->stopping) break;
        struct part *p = heap_pop(&e->synthq);
        p->where = IN_NONE;
        e->idle_unclaimed--;
        struct job *j = p->job;
        if (!j->started) {
            j->started = 1;
            j->tm.queue_ms = now(e) - j->t_submit;
        }
        pthread_mutex_unlock(&e->mu);

        char err[CUZK_ERRMSG_MAX] = "";
        double srs_ms = 0, mem_ms = 0;
        int rc = cuzk_srs_acquire(e->srs, j->kr->k, j->key_id, job_dead, j, &p->key, NULL, &srs_ms,
                                  err, sizeof err);
        if (!rc) {
            rc = cuzk_budget_reserve(e->budget, j->full, CUZK_MEM_PARTITION, job_dead, j, &p->res,
                                     &mem_ms);
            if (rc == CUZK_ENOMEM)
                snprintf(err, sizeof err, "a partition needs %llu bytes, more than the budget",
                         (unsigned long long)j->full);
        }
        pthread_mutex_lock(&e->mu);
        j->tm.srs_ms += srs_ms;
        j->tm.mem_ms += mem_ms;
        if (rc || atomic_load(&j->dead)) {
            e->idle_unclaimed++; /* the promised worker gets nothing */
            pthread_mutex_unlock(&e->mu);
            if (rc && rc != CUZK_ECANCELLED) {
                char msg[CUZK_ERRMSG_MAX + 64];
                snprintf(msg, sizeof msg, "partition %u: %s", p->idx, err);
                part_fail(e, p, rc, msg);
            } else {
                part_discard(e, p, CUZK_PART_CANCELLED);
            }
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->where = IN_READY;
        fifo_push(&e->ready_head, &e->ready_tail, p);
        pthread_cond_signal(&e->ready_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- synthesis workers ----------------------------------------------------------------------- */

static void worker_busy_locked(struct cuzk_engine *e, struct worker *w, const struct part *p) {
    w->busy = 1;
    snprintf(w->job_id, sizeof w->job_id, "%s", p->job->id);
    w->part = (int32_t)p->idx;
    w->since = now(e);
}

static void worker_idle_locked(struct worker *w) {
    w->busy = 0;
    w->job_id[0] = 0;
    w->part = -1;
}

/* Puts a synthesized (or retried) partition into the device queues (no lock held). */
static void to_device_queue(struct cuzk_engine *e, struct part *p) {
    struct job *j = p->job;
    pthread_mutex_lock(&e->mu);
    int dead = atomic_load(&j->dead);
    if (!dead) p->state = CUZK_PART_GPU_QUEUED;
    pthread_mutex_unlock(&e->mu);
    if (dead) {
        part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    TIMELINE(e, now(e), "GPU_QUEUE", j->id, "partition=%u", p->idx);
    pthread_mutex_lock(&e->mu);
    if (atomic_load(&j->dead)) {
        pthread_mutex_unlock(&e->mu);
        part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    p->seq = e->item_seq++;
    if (p->attempts) {
        p->where = IN_RETRY;
        fifo_push(&e->retry_head, &e->retry_tail, p);
    } else {
        p->where = IN_GPUQ;
        heap_push(&e->gpuq, p);
    }
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_mutex_unlock(&e->mu);
}

static void *synth_main(void *arg) {
    struct worker *w = arg;
    struct cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        e->idle_unclaimed++;
        pthread_cond_signal(&e->dispatch_cv);
        while (!e->stopping && !e->ready_head) pthread_cond_wait(&e->ready_cv, &e->mu);
        struct part *p = fifo_pop(&e->ready_head, &e->ready_tail);
        if (!p) break; /* stopping */
        p->where = IN_NONE;
        struct job *j = p->job;
        if (atomic_load(&j->dead)) {
            pthread_mutex_unlock(&e->mu);
            part_discard(e, p, CUZK_PART_CANCELLED);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->state = CUZK_PART_SYNTHESIZING;
        p->t_synth0 = now(e);
        worker_busy_locked(e, w, p);
        pthread_mutex_unlock(&e->mu);

        const struct cuzk_kind *k = j->kr->k;
        const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
        TIMELINE(e, p->t_synth0, "SYNTH_START", j->id, "partition=%u", p->idx);
        char err[CUZK_ERRMSG_MAX] = "";
        int rc = CUZK_ENOMEM;
        p->w = aligned_alloc(64, ((size_t)j->w_bytes + 63) & ~(size_t)63);
        if (p->w) rc = k->synthesize(k, j->kstate, key, p->idx, e->pool, p->w, err, sizeof err);
        double t1 = now(e), synth_ms = t1 - p->t_synth0;
        TIMELINE(e, t1, "SYNTH_END", j->id, "partition=%u,synth_ms=%lld", p->idx,
                 (long long)synth_ms);
        if (!rc) {
            /* the synthesis scratch is gone; the public inputs are recorded */
            cuzk_reservation_release(&p->res, j->full - j->after_syn);
            uint8_t *pub = j->pub + (size_t)p->idx * j->sizes.n_public * 32;
            for (uint32_t i = 0; i < j->sizes.n_public; i++)
                cuzk_fr_to_bytes_le(pub + 32 * i, &p->w[1 + i]);
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
            part_fail(e, p, rc, msg);
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

/* A backend call failed for p on device dv (no lock held): retry once (another device, the
 * fallback, or resynthesis when the witness is gone), else fail the job. */
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
        part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    if (!retry) {
        char msg[CUZK_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "partition %u GPU prove failed: %s on %s: %s", p->idx, what,
                 e->devs[dv].name, cuzk_strerror(rc));
        part_fail(e, p, rc, msg);
        return;
    }
    cuzk_log_warn("engine", "job %s partition %u: %s failed on %s (%s); retrying once", j->id,
                  p->idx, what, e->devs[dv].name, cuzk_strerror(rc));
    if (p->w) { /* the witness is still here: straight back to the devices */
        to_device_queue(e, p);
        return;
    }
    /* the backend freed the witness: synthesize again (memory and key are taken again) */
    cuzk_reservation_release_all(&p->res);
    cuzk_srs_release(e->srs, p->key);
    p->key = NULL;
    pthread_mutex_lock(&e->mu);
    if (atomic_load(&j->dead)) {
        pthread_mutex_unlock(&e->mu);
        part_discard(e, p, CUZK_PART_CANCELLED);
        return;
    }
    p->state = CUZK_PART_QUEUED;
    p->where = IN_SYNTHQ;
    p->seq = e->item_seq++;
    heap_push(&e->synthq, p);
    pthread_cond_signal(&e->dispatch_cv);
    pthread_mutex_unlock(&e->mu);
}

/* The next partition device d's worker may take (under e->mu), with a slot on the device
 * that will prove it: a retry first (it runs on the fallback when there is one, and goes back
 * to the device that failed it only when there is no other), then the queue. */
static struct part *take_device_item(struct cuzk_engine *e, int d) {
    if (e->fallback >= 0 && e->retry_head) {
        struct dev *fb = &e->devs[e->fallback];
        if (fb->slots < fb->max_slots) {
            fb->slots++;
            return fifo_pop(&e->retry_head, &e->retry_tail);
        }
    }
    struct dev *dev = &e->devs[d];
    if (dev->slots >= dev->max_slots) return NULL;
    if (e->fallback < 0)
        for (struct part *p = e->retry_head; p; p = p->next)
            if (e->n_devs == 1 || p->avoid_device != d) {
                fifo_remove(&e->retry_head, &e->retry_tail, p);
                dev->slots++;
                return p;
            }
    struct part *p = heap_pop(&e->gpuq);
    if (p) dev->slots++;
    return p;
}

static void *device_main(void *arg) {
    struct worker *w = arg;
    struct cuzk_engine *e = w->e;
    int d = w->device;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        struct part *p = NULL;
        while (!e->stopping && !(p = take_device_item(e, d))) pthread_cond_wait(&e->gpu_cv, &e->mu);
        if (!p) break;
        struct job *j = p->job;
        p->where = IN_NONE;
        /* a retry runs on the fallback backend when there is one */
        int dv = p->attempts && e->fallback >= 0 ? e->fallback : d;
        struct dev *dev = &e->devs[dv];
        p->state = CUZK_PART_PROVING;
        p->device = dv;
        p->worker = (int)w->id;
        worker_busy_locked(e, w, p);
        pthread_mutex_unlock(&e->mu);

        TIMELINE(e, now(e), "GPU_PICKUP", j->id, "worker=%u,partition=%u", w->id, p->idx);
        const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
        double t0 = now(e);
        pthread_mutex_lock(&dev->prove_lock);
        double t1 = now(e);
        int rc = cuzk_groth16_prove_start(dev->d.backend, &key->pk, p->w, j->sizes.n_vars, NULL,
                                          &p->pending);
        double t2 = now(e);
        pthread_mutex_unlock(&dev->prove_lock);
        TIMELINE(e, t1, "GPU_START", j->id, "worker=%u,partition=%u", w->id, p->idx);
        trace_line(e,
                   "GPU_TIMING job=%s partition=%u worker=%u device=%d lock_wait_ms=%.3f "
                   "prove_start_ms=%.3f",
                   j->id, p->idx, w->id, dv, t1 - t0, t2 - t1);
        if (!rc) {
            /* phase 1: what the backend no longer needs */
            uint64_t freed = j->at_start;
            if (dev->d.frees_witness_at_start) {
                free(p->w);
                p->w = NULL;
                freed += j->w_bytes;
            }
            cuzk_reservation_release(&p->res, freed);
        }
        pthread_mutex_lock(&e->mu);
        j->tm.lock_ms += t1 - t0;
        worker_idle_locked(w);
        if (rc) {
            dev->slots--;
            pthread_cond_broadcast(&e->gpu_cv);
        } else {
            p->t_gpu0 = t1;
            dev_busy_begin(dev, t1);
            p->where = IN_FIN;
            fifo_push(&dev->fin_head, &dev->fin_tail, p);
            pthread_cond_signal(&dev->fin_cv);
        }
        pthread_mutex_unlock(&e->mu);
        if (rc) backend_error(e, p, dv, rc, "prove_start");
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static int part_verify(struct cuzk_engine *e, struct part *p, const struct cuzk_snarkjs_proof *pr,
                       double *ms) {
    struct job *j = p->job;
    double t0 = now(e);
    uint32_t np = j->sizes.n_public;
    cuzk_fr pubs_small[16], *pubs = np <= 16 ? pubs_small : malloc(np * sizeof *pubs);
    if (!pubs) return CUZK_ENOMEM;
    const uint8_t *src = j->pub + (size_t)p->idx * np * 32;
    int ok = 1;
    for (uint32_t i = 0; i < np && ok == 1; i++)
        if (cuzk_fr_from_bytes_le(&pubs[i], src + 32 * i)) ok = 0;
    const struct cuzk_kind *k = j->kr->k;
    const struct cuzk_kind_key *key = cuzk_srs_key(p->key);
    if (ok == 1)
        ok = k->verify ? k->verify(k, j->kstate, key, p->idx, pubs, np, pr)
                       : cuzk_groth16_verify(&key->vk, pubs, np, pr);
    if (pubs != pubs_small) free(pubs);
    *ms = now(e) - t0;
    return ok;
}

struct fin_arg {
    struct cuzk_engine *e;
    int dv;
};

static void *fin_main(void *arg) {
    struct fin_arg *fa = arg;
    struct cuzk_engine *e = fa->e;
    int dv = fa->dv;
    free(fa);
    struct dev *dev = &e->devs[dv];
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stopping && !dev->fin_head) pthread_cond_wait(&dev->fin_cv, &e->mu);
        struct part *p = fifo_pop(&dev->fin_head, &dev->fin_tail);
        if (!p) break;
        struct job *j = p->job;
        p->where = IN_NONE;
        p->state = CUZK_PART_FINALIZING;
        int wid = p->worker;
        pthread_mutex_unlock(&e->mu);

        double t0 = now(e);
        TIMELINE(e, t0, "FIN_START", j->id, "worker=%d,partition=%u", wid, p->idx);
        struct cuzk_snarkjs_proof proof;
        int rc = cuzk_groth16_prove_finish(dev->d.backend, p->pending, &proof);
        p->pending = NULL;
        double t1 = now(e), gpu_ms = t1 - p->t_gpu0;
        TIMELINE(e, t1, "GPU_END", j->id, "worker=%d,partition=%u,gpu_ms=%lld", wid, p->idx,
                 (long long)gpu_ms);
        pthread_mutex_lock(&e->mu);
        dev_busy_end(dev, t1);
        dev->slots--;
        pthread_cond_broadcast(&e->gpu_cv);
        if (!rc) dev->proofs++;
        p->gpu_ms = gpu_ms;
        j->tm.gpu_ms += gpu_ms;
        int dead = atomic_load(&j->dead);
        pthread_mutex_unlock(&e->mu);
        if (rc) {
            backend_error(e, p, dv, rc, "prove_finish");
            pthread_mutex_lock(&e->mu);
            continue;
        }
        double verify_ms = 0;
        if (!dead && e->self_verify) {
            int ok = part_verify(e, p, &proof, &verify_ms);
            pthread_mutex_lock(&e->mu);
            j->tm.verify_ms += verify_ms;
            pthread_mutex_unlock(&e->mu);
            if (ok != 1) {
                backend_error(e, p, dv, ok < 0 ? ok : CUZK_EVERIFY, "self-verification");
                pthread_mutex_lock(&e->mu);
                continue;
            }
        }
        if (!dead) {
            uint8_t *out = j->proof + (size_t)p->idx * CUZK_PROOF_BYTES;
            cuzk_g1_to_compressed(out, &proof.a);
            cuzk_g2_to_compressed(out + CUZK_G1_COMPRESSED, &proof.b);
            cuzk_g1_to_compressed(out + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED, &proof.c);
        }
        double t2 = now(e);
        struct cuzk_srs_entry *key = p->key;
        p->key = NULL; /* released after the last use of the job below */
        uint64_t freed = part_release(e, p);
        double t3 = now(e);
        double trim_ms = cuzk_budget_trim(freed, e->trim_threshold);
        double t4 = now(e);
        /* traces first: once p is terminal the job may be freed by another thread */
        trace_line(e,
                   "FIN_TIMING job=%s partition=%u worker=%d device=%d finish_ms=%.3f "
                   "verify_ms=%.3f release_ms=%.3f malloc_trim_ms=%.3f total_ms=%.3f",
                   j->id, p->idx, wid, dv, t1 - t0, verify_ms, t3 - t2, trim_ms, t4 - t0);
        TIMELINE(e, t4, "FIN_END", j->id, "worker=%d,partition=%u", wid, p->idx);
        cuzk_srs_release(e->srs, key);

        struct part *grave = NULL;
        struct final_report rep;
        int became_final = 0;
        pthread_mutex_lock(&e->mu);
        if (!atomic_load(&j->dead)) {
            p->state = CUZK_PART_DONE;
            if (++j->parts_done == j->n_parts) {
                job_final_locked(e, j, CUZK_JOB_DONE, CUZK_OK, NULL, &grave);
                final_report_take(j, &rep);
                became_final = 1;
            }
        }
        int drained = part_terminal_locked(
            e, p, p->state == CUZK_PART_DONE ? CUZK_PART_DONE : CUZK_PART_CANCELLED);
        pthread_mutex_unlock(&e->mu);
        if (became_final) final_report_emit(e, &rep);
        grave_release(e, grave);
        if (drained) job_drain(e, j);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- housekeeping -------------------------------------------------------------------------- */

static void *house_main(void *arg) {
    struct cuzk_engine *e = arg;
    double period = HOUSE_PERIOD_MS;
    if (e->ttl_ms / 4.0 < period) period = e->ttl_ms / 4.0 > 5 ? e->ttl_ms / 4.0 : 5;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)(period * 1e6);
        ts.tv_sec += ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        pthread_cond_timedwait(&e->house_cv, &e->mu, &ts);
        if (e->stopping) break;
        double t = now(e);
        for (struct job *j = e->jobs_head, *nx; j; j = nx) {
            nx = j->next;
            if (j->final && j->in_table && t - j->t_final >= (double)e->ttl_ms) {
                table_remove(e, j);
                job_maybe_free(e, j);
            }
        }
        if (e->srs_idle_ms) {
            pthread_mutex_unlock(&e->mu);
            cuzk_srs_evict_idle(e->srs, UINT64_MAX, e->srs_idle_ms, 0);
            pthread_mutex_lock(&e->mu);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

void cuzk_engine_config_default(struct cuzk_engine_config *c) {
    memset(c, 0, sizeof *c);
    c->total_budget = "auto";
    c->safety_margin = "5GiB";
    c->eviction_min_idle_ms = 300000;
    c->srs_idle_evict_ms = 0;
    c->trim_threshold = (uint64_t)64 << 20;
    c->synth_workers = 0;
    c->gpu_workers_per_device = 2;
    c->cpu_threads = 0;
    c->max_batch_size = 1;
    c->max_batch_wait_ms = 10000;
    c->result_ttl_ms = 1800000;
    c->self_verify = 1;
    c->builtin_kinds = 1;
    c->cache_dir = NULL;
    c->synthetic_partitions = 10;
    c->synthetic_check = 1;
    c->trace_file = stderr;
    c->util_window_ms = 60000;
}

static int fail_create(struct cuzk_engine *e, int rc) {
    cuzk_engine_destroy(e);
    return rc;
}

static int add_kind(struct cuzk_engine *e, const struct cuzk_kind *k, int owned) {
    if (!k || !k->name || !*k->name || strlen(k->name) >= CUZK_NAME_MAX || !k->job_open ||
        !k->job_free || !k->key_sizes || !k->key_load || !k->key_free || !k->synthesize)
        return CUZK_EINVAL;
    int rc = CUZK_OK;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->n_kinds; i++)
        if (!strcmp(e->kinds[i].k->name, k->name)) rc = CUZK_EEXIST;
    if (!rc && e->n_kinds == MAX_KINDS) rc = CUZK_ENOMEM;
    if (!rc) e->kinds[e->n_kinds++] = (struct kindreg){.k = k, .owned = owned};
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_create(struct cuzk_engine **out, const struct cuzk_engine_config *cfg, char *err,
                       size_t errlen) {
    struct cuzk_engine_config def;
    if (!cfg) cuzk_engine_config_default(&def), cfg = &def;
    if (err && errlen) err[0] = 0;
    *out = NULL;
    uint64_t total;
    int rc = cuzk_budget_total(cfg->total_budget, cfg->safety_margin, &total, err, errlen);
    if (rc) return rc;
    if (cfg->gpu_workers_per_device > 64 || cfg->synth_workers > 1024 ||
        (cfg->n_devices && !cfg->devices) || cfg->n_devices > 64 ||
        (cfg->fallback && !cfg->fallback->backend)) {
        snprintf(err, errlen, "engine: a setting is out of range (workers, devices)");
        return CUZK_EINVAL;
    }
    for (size_t i = 0; i < cfg->n_devices; i++)
        if (!cfg->devices[i].backend) {
            snprintf(err, errlen, "engine: device %zu has no backend", i);
            return CUZK_EINVAL;
        }
    struct cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return CUZK_ENOMEM;
    e->t0 = mono_ms();
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->trace_mu, NULL);
    pthread_cond_init(&e->dispatch_cv, NULL);
    pthread_cond_init(&e->ready_cv, NULL);
    pthread_cond_init(&e->gpu_cv, NULL);
    pthread_cond_init(&e->drain_cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->house_cv, &ca);
    pthread_condattr_destroy(&ca);
    e->fallback = -1;
    e->accepting = 1;
    e->min_idle_ms = cfg->eviction_min_idle_ms;
    e->srs_idle_ms = cfg->srs_idle_evict_ms;
    e->trim_threshold = cfg->trim_threshold;
    e->ttl_ms = cfg->result_ttl_ms;
    e->util_window_ms = cfg->util_window_ms ? cfg->util_window_ms : 60000;
    e->max_batch_size = cfg->max_batch_size ? cfg->max_batch_size : 1;
    e->max_batch_wait_ms = cfg->max_batch_wait_ms;
    e->self_verify = cfg->self_verify;
    e->trace_file = cfg->trace_file;
    e->trace_fn = cfg->trace_fn;
    e->trace_ctx = cfg->trace_ctx;
    e->workers_per_dev = cfg->gpu_workers_per_device ? cfg->gpu_workers_per_device : 2;
    unsigned cpus = cuzk_cpu_count();
    e->synth_workers = cfg->synth_workers ? cfg->synth_workers : (cpus / 2 > 2 ? cpus / 2 : 2);
    e->table_cap = 1024;
    if (!(e->table = calloc(e->table_cap, sizeof *e->table))) return fail_create(e, CUZK_ENOMEM);

    if ((rc = cuzk_pool_create(&e->pool, cfg->cpu_threads, "cuzk-cpu")) ||
        (rc = cuzk_budget_create(&e->budget, total)))
        return fail_create(e, rc);

    /* devices: the configured ones (or the CPU backend), then the fallback */
    size_t n = cfg->n_devices ? cfg->n_devices : 1;
    e->devs = calloc(n + 1, sizeof *e->devs);
    e->dev_descs = calloc(n + 1, sizeof *e->dev_descs);
    if (!e->devs || !e->dev_descs) return fail_create(e, CUZK_ENOMEM);
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
        d->host_bytes = d->d.host_bytes ? d->d.host_bytes : cpu_host_bytes;
        d->host_ctx = d->d.host_bytes ? d->d.ctx : e->pool;
        snprintf(d->name, sizeof d->name, "%s",
                 d->d.name            ? d->d.name
                 : d->d.backend->name ? d->d.backend->name
                                      : "device");
        d->d.name = d->name;
        d->workers = d->is_fallback ? 0 : d->d.workers ? d->d.workers : e->workers_per_dev;
        d->max_slots = d->d.max_in_flight ? d->d.max_in_flight
                       : d->is_fallback   ? e->workers_per_dev
                                          : d->workers;
        pthread_mutex_init(&d->prove_lock, NULL);
        pthread_cond_init(&d->fin_cv, NULL);
        e->dev_descs[i] = d->d;
    }
    e->n_devs = n;
    size_t n_all = n + (cfg->fallback != NULL);
    if ((rc = cuzk_srs_create(&e->srs, e->budget, e->pool, e->dev_descs, n_all,
                              cfg->eviction_min_idle_ms, key_extra_bytes, e)))
        return fail_create(e, rc);
    cuzk_budget_set_evictor(e->budget, cuzk_srs_evictor, e->srs);

    if (cfg->builtin_kinds) {
        struct cuzk_kind *k;
        if ((rc = cuzk_kind_synthetic_create(&k, cfg->cache_dir, cfg->synthetic_partitions,
                                             cfg->synthetic_check)))
            return fail_create(e, rc);
        if ((rc = add_kind(e, k, 1))) {
            k->destroy(k);
            return fail_create(e, rc);
        }
        if ((rc = cuzk_kind_snarkjs_create(&k))) return fail_create(e, rc);
        if ((rc = add_kind(e, k, 1))) {
            k->destroy(k);
            return fail_create(e, rc);
        }
    }
    cuzk_log_info("engine",
                  "engine created: budget %llu bytes, %u synthesis workers, %zu device(s) x %u "
                  "workers%s, %u CPU threads",
                  (unsigned long long)total, e->synth_workers, e->n_devs, e->workers_per_dev,
                  e->fallback >= 0 ? " + fallback" : "", cuzk_pool_size(e->pool));
    *out = e;
    return CUZK_OK;
}

static int spawn(pthread_t *th, void *(*fn)(void *), void *arg, const char *name) {
    if (pthread_create(th, NULL, fn, arg)) return CUZK_ENOMEM;
    char n[16]; /* the kernel keeps 15 characters */
    snprintf(n, sizeof n, "%.15s", name);
    pthread_setname_np(*th, n);
    return CUZK_OK;
}

int cuzk_engine_start(struct cuzk_engine *e) {
    size_t nw = e->synth_workers;
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
    for (unsigned i = 0; i < e->synth_workers && !rc; i++, k++) {
        struct worker *w = &e->workers[k];
        *w = (struct worker){.e = e, .id = i, .device = -1, .sub = i, .part = -1};
        snprintf(name, sizeof name, "cuzk-synth-%u", i);
        rc = spawn(&w->th, synth_main, w, name);
        w->running = !rc;
        e->n_workers = k + 1;
    }
    uint32_t dev_worker_id = 0;
    for (size_t d = 0; d < e->n_devs && !rc; d++)
        for (unsigned i = 0; i < e->devs[d].workers && !rc; i++, k++) {
            struct worker *w = &e->workers[k];
            *w = (struct worker){
                .e = e, .id = dev_worker_id++, .device = (int)d, .sub = i, .part = -1};
            snprintf(name, sizeof name, "cuzk-dev-%zu-%u", d, i);
            rc = spawn(&w->th, device_main, w, name);
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
        rc = spawn(&e->devs[d].fin_thread, fin_main, fa, name);
        if (rc)
            free(fa);
        else
            e->devs[d].fin_started = 1;
    }
    if (!rc) rc = spawn(&e->house_th, house_main, e, "cuzk-house");
    e->house_started = !rc;
    if (!rc) rc = spawn(&e->dispatch_th, dispatch_main, e, "cuzk-dispatch");
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
    size_t n_cancelled = 0;
    if (mode == CUZK_SHUTDOWN_CANCEL)
        for (struct job *j = e->jobs_head; j; j = j->next)
            if (!j->final) {
                job_final_locked(e, j, CUZK_JOB_CANCELLED, CUZK_ESHUTDOWN,
                                 "the engine is shutting down", &grave);
                n_cancelled++;
            }
    pthread_mutex_unlock(&e->mu);
    cuzk_log_info("engine", "shutting down (%s): %zu live jobs cancelled",
                  mode == CUZK_SHUTDOWN_CANCEL ? "cancel in-flight jobs" : "finish in-flight jobs",
                  n_cancelled);
    grave_release(e, grave);
    cuzk_budget_wake(e->budget);

    pthread_mutex_lock(&e->mu);
    while (e->live_parts > 0) pthread_cond_wait(&e->drain_cv, &e->mu);
    e->stopping = 1;
    pthread_cond_broadcast(&e->dispatch_cv);
    pthread_cond_broadcast(&e->ready_cv);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->house_cv);
    for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
        pthread_cond_broadcast(&e->devs[d].fin_cv);
    int started = e->started;
    pthread_mutex_unlock(&e->mu);

    if (started) {
        for (size_t i = 0; i < e->n_workers; i++)
            if (e->workers[i].running) pthread_join(e->workers[i].th, NULL);
        for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++)
            if (e->devs[d].fin_started) pthread_join(e->devs[d].fin_thread, NULL);
        if (e->dispatch_started) pthread_join(e->dispatch_th, NULL);
        if (e->house_started) pthread_join(e->house_th, NULL);
    }
    pthread_mutex_lock(&e->mu);
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
        job_free_mem(j);
    }
    cuzk_srs_destroy(e->srs);
    for (size_t i = 0; i < e->n_kinds; i++)
        if (e->kinds[i].owned && e->kinds[i].k->destroy)
            e->kinds[i].k->destroy((struct cuzk_kind *)e->kinds[i].k);
    if (e->devs)
        for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++) {
            pthread_mutex_destroy(&e->devs[d].prove_lock);
            pthread_cond_destroy(&e->devs[d].fin_cv);
        }
    cuzk_budget_destroy(e->budget);
    cuzk_pool_destroy(e->pool);
    free(e->devs);
    free(e->dev_descs);
    free(e->workers);
    free(e->synthq.a);
    free(e->gpuq.a);
    free(e->table);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->trace_mu);
    pthread_cond_destroy(&e->dispatch_cv);
    pthread_cond_destroy(&e->ready_cv);
    pthread_cond_destroy(&e->gpu_cv);
    pthread_cond_destroy(&e->drain_cv);
    pthread_cond_destroy(&e->house_cv);
    free(e);
}

int cuzk_engine_register_kind(struct cuzk_engine *e, const struct cuzk_kind *kind) {
    return add_kind(e, kind, 0);
}

static struct kindreg *find_kind(struct cuzk_engine *e, const char *name) {
    struct kindreg *kr = NULL;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->n_kinds && !kr; i++)
        if (name && !strcmp(e->kinds[i].k->name, name)) kr = &e->kinds[i];
    pthread_mutex_unlock(&e->mu);
    return kr; /* entries never move or go before destroy */
}

int cuzk_engine_add_snarkjs_circuit(struct cuzk_engine *e, const char *circuit_id,
                                    const char *zkey_path, const char *r1cs_path, char *err,
                                    size_t errlen) {
    struct kindreg *kr = find_kind(e, "snarkjs");
    if (!kr || !kr->owned) {
        snprintf(err, errlen, "engine: no built-in snarkjs kind");
        return CUZK_ENOTFOUND;
    }
    return cuzk_kind_snarkjs_add((struct cuzk_kind *)kr->k, circuit_id, zkey_path, r1cs_path, err,
                                 errlen);
}

/* ---- submit / await / cancel ----------------------------------------------------------------- */

/* Printable ASCII without commas: Curio's ids hold spaces and brackets ("wdpost-1-0-[1 2]"),
 * and ids appear as one field of comma-separated trace lines. */
static int valid_request_id(const char *s) {
    size_t n = strlen(s);
    if (!n || n >= CUZK_JOB_ID_MAX) return 0;
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == ',') return 0;
    return 1;
}

static int make_uuid(char out[CUZK_JOB_ID_MAX]) {
    uint8_t b[16];
    int rc = cuzk_rand_bytes(b, sizeof b);
    if (rc) return rc;
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, CUZK_JOB_ID_MAX,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
    return CUZK_OK;
}

static void fill_info(struct cuzk_engine *e, struct job *j, struct cuzk_submit_info *info,
                      int attached) {
    if (!info) return;
    snprintf(info->job_id, sizeof info->job_id, "%s", j->id);
    info->attached = attached;
    info->state = job_state(j);
    info->queue_position = queue_position(e, j);
}

int cuzk_engine_submit(struct cuzk_engine *e, const struct cuzk_job_request *req,
                       struct cuzk_submit_info *info, char *err, size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    err[0] = 0;
    if (info) memset(info, 0, sizeof *info);
    if (!req || !req->kind) {
        snprintf(err, errlen, "a request needs a kind");
        return CUZK_EINVAL;
    }
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    if (rid && !valid_request_id(rid)) {
        snprintf(err, errlen, "request id must be 1..%d printable ASCII characters other than ','",
                 CUZK_JOB_ID_MAX - 1);
        return CUZK_EINVAL;
    }
    int prio = req->priority;
    if (prio != CUZK_PRIORITY_DEFAULT &&
        (prio < CUZK_PRIORITY_LOW || prio > CUZK_PRIORITY_CRITICAL)) {
        snprintf(err, errlen, "priority %d is not one of the four levels", prio);
        return CUZK_EINVAL;
    }
    struct kindreg *kr = find_kind(e, req->kind);
    if (!kr) {
        snprintf(err, errlen, "unknown proof kind \"%s\"", req->kind);
        return CUZK_EINVAL;
    }
    const struct cuzk_kind *k = kr->k;

    /* a live or DONE job with this id: attach without doing any work */
    pthread_mutex_lock(&e->mu);
    if (!e->accepting) {
        pthread_mutex_unlock(&e->mu);
        snprintf(err, errlen, "the engine is shutting down");
        return CUZK_ESHUTDOWN;
    }
    if (rid) {
        struct job *old = table_find(e, rid);
        if (old && (!old->final || old->final == CUZK_JOB_DONE)) {
            fill_info(e, old, info, 1);
            pthread_mutex_unlock(&e->mu);
            return CUZK_OK;
        }
    }
    pthread_mutex_unlock(&e->mu);

    /* prepare the job without the lock: the kind's parsing, the key's sizes */
    struct job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ENOMEM;
    pthread_cond_init(&j->cv, NULL);
    j->kr = kr;
    j->priority = prio == CUZK_PRIORITY_DEFAULT ? k->default_priority : prio;
    snprintf(j->circuit, sizeof j->circuit, "%s", req->circuit_id ? req->circuit_id : "");
    int rc = k->job_open(k, req, &j->kstate, &j->n_parts, j->key_id, err, errlen);
    if (!rc && (j->n_parts == 0 || j->n_parts > (1u << 20))) {
        snprintf(err, errlen, "%s: %u partitions", k->name, j->n_parts);
        rc = CUZK_EINVAL;
    }
    if (rc) {
        pthread_cond_destroy(&j->cv);
        free(j);
        return rc;
    }
    if (!(rc = k->key_sizes(k, j->key_id, &j->sizes, err, errlen))) {
        uint64_t at_start = 0, until_finish = 0;
        for (size_t d = 0; d < e->n_devs + (e->fallback >= 0); d++) {
            uint64_t s, f;
            e->devs[d].host_bytes(e->devs[d].host_ctx, j->sizes.n_vars, j->sizes.domain_size, &s,
                                  &f);
            if (s + f > at_start + until_finish) at_start = s, until_finish = f;
        }
        uint64_t backend = at_start + until_finish;
        j->w_bytes = (uint64_t)j->sizes.n_vars * sizeof(cuzk_fr);
        j->at_start = at_start;
        j->after_syn = j->w_bytes + backend;
        j->full =
            j->w_bytes + (j->sizes.synth_scratch > backend ? j->sizes.synth_scratch : backend);
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(e->budget, &st);
        if (j->full > st.total) {
            snprintf(err, errlen,
                     "a partition of %s/%s needs %llu bytes of memory, the budget is %llu", k->name,
                     j->key_id, (unsigned long long)j->full, (unsigned long long)st.total);
            rc = CUZK_ENOMEM;
        }
    }
    if (!rc) {
        j->parts = calloc(j->n_parts, sizeof *j->parts);
        j->proof = calloc(j->n_parts, CUZK_PROOF_BYTES);
        j->pub = calloc((size_t)j->n_parts * (j->sizes.n_public ? j->sizes.n_public : 1), 32);
        if (!j->parts || !j->proof || !j->pub) rc = CUZK_ENOMEM;
    }
    if (!rc) {
        if (rid)
            snprintf(j->id, sizeof j->id, "%s", rid);
        else
            rc = make_uuid(j->id);
    }
    if (rc) {
        k->job_free(k, j->kstate);
        job_free_mem(j);
        return rc;
    }
    for (uint32_t i = 0; i < j->n_parts; i++) {
        struct part *p = &j->parts[i];
        p->job = j;
        p->idx = i;
        p->avoid_device = p->device = p->worker = -1;
        p->synth_ms = p->gpu_ms = -1;
    }
    j->parts_live = j->n_parts;
    if (req->witness_len)
        cuzk_budget_force(e->budget, req->witness_len, CUZK_MEM_OTHER, &j->input_res);

    pthread_mutex_lock(&e->mu);
    struct job *old = rid ? table_find(e, rid) : NULL;
    int attach = old && (!old->final || old->final == CUZK_JOB_DONE);
    if (!e->accepting || attach || heap_reserve(&e->synthq, e->live_parts + j->n_parts) ||
        heap_reserve(&e->gpuq, e->live_parts + j->n_parts)) {
        /* shut down, or another submit of the same id won the race, or no memory */
        rc = !e->accepting ? CUZK_ESHUTDOWN : attach ? CUZK_OK : CUZK_ENOMEM;
        if (attach && e->accepting) fill_info(e, old, info, 1);
        pthread_mutex_unlock(&e->mu);
        if (rc == CUZK_ESHUTDOWN) snprintf(err, errlen, "the engine is shutting down");
        k->job_free(k, j->kstate);
        cuzk_reservation_release_all(&j->input_res);
        job_free_mem(j);
        return rc;
    }
    if (old) { /* a FAILED or CANCELLED job of this id: the new one replaces it */
        table_remove(e, old);
        job_maybe_free(e, old);
    }
    j->seq = e->job_seq++;
    j->t_submit = now(e);
    table_insert(e, j);
    j->next = e->jobs_head;
    if (e->jobs_head) e->jobs_head->prev = j;
    e->jobs_head = j;
    for (uint32_t i = 0; i < j->n_parts; i++) {
        struct part *p = &j->parts[i];
        p->state = CUZK_PART_QUEUED;
        p->where = IN_SYNTHQ;
        p->seq = e->item_seq++;
        heap_push(&e->synthq, p);
    }
    e->live_parts += j->n_parts;
    fill_info(e, j, info, 0);
    pthread_cond_signal(&e->dispatch_cv);
    pthread_mutex_unlock(&e->mu);
    cuzk_log_debug("engine", "job %s queued: %s/%s, %u partitions, priority %s", j->id, k->name,
                   j->circuit, j->n_parts, cuzk_priority_name(j->priority));
    return CUZK_OK;
}

/* Copies a final job's answer (under e->mu). */
static int copy_result(const struct job *j, struct cuzk_job_result *out) {
    memset(out, 0, sizeof *out);
    out->state = j->final;
    out->err = j->err;
    snprintf(out->error, sizeof out->error, "%s", j->errmsg);
    snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
    snprintf(out->kind, sizeof out->kind, "%s", j->kr->k->name);
    snprintf(out->circuit_id, sizeof out->circuit_id, "%s", j->circuit);
    out->n_partitions = j->n_parts;
    out->n_public = j->sizes.n_public;
    out->timings = j->tm;
    if (j->final != CUZK_JOB_DONE) return j->err ? j->err : CUZK_EINVAL;
    out->proof_len = (size_t)j->n_parts * CUZK_PROOF_BYTES;
    out->public_len = (size_t)j->n_parts * j->sizes.n_public * 32;
    out->proof = malloc(out->proof_len);
    out->public_inputs = malloc(out->public_len ? out->public_len : 1);
    if (!out->proof || !out->public_inputs) {
        free(out->proof);
        free(out->public_inputs);
        out->proof = out->public_inputs = NULL;
        out->proof_len = out->public_len = 0;
        out->state = CUZK_JOB_NONE;
        return CUZK_ENOMEM;
    }
    memcpy(out->proof, j->proof, out->proof_len);
    memcpy(out->public_inputs, j->pub, out->public_len);
    return CUZK_OK;
}

int cuzk_engine_await(struct cuzk_engine *e, const char *job_id, int64_t timeout_ms,
                      struct cuzk_job_result *out) {
    memset(out, 0, sizeof *out);
    if (!job_id) return CUZK_EINVAL;
    struct timespec dl;
    if (timeout_ms > 0) {
        clock_gettime(CLOCK_REALTIME, &dl);
        long long ns = dl.tv_nsec + (timeout_ms % 1000) * 1000000LL;
        dl.tv_sec += timeout_ms / 1000 + ns / 1000000000;
        dl.tv_nsec = ns % 1000000000;
    }
    pthread_mutex_lock(&e->mu);
    struct job *j = table_find(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENOTFOUND;
    }
    j->waiters++;
    int timed_out = 0;
    while (!j->final && !timed_out) {
        if (timeout_ms == 0)
            timed_out = 1;
        else if (timeout_ms < 0)
            pthread_cond_wait(&j->cv, &e->mu);
        else
            timed_out = pthread_cond_timedwait(&j->cv, &e->mu, &dl) != 0 && !j->final;
    }
    int rc = j->final ? copy_result(j, out) : CUZK_ETIMEOUT;
    j->waiters--;
    job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_prove(struct cuzk_engine *e, const struct cuzk_job_request *req, int64_t timeout_ms,
                      struct cuzk_submit_info *info, struct cuzk_job_result *out, char *err,
                      size_t errlen) {
    struct cuzk_submit_info local;
    if (!info) info = &local;
    memset(out, 0, sizeof *out);
    int rc = cuzk_engine_submit(e, req, info, err, errlen);
    if (rc) return rc;
    rc = cuzk_engine_await(e, info->job_id, timeout_ms, out);
    if (out->state != CUZK_JOB_NONE && out->err && err && errlen)
        snprintf(err, errlen, "%s", out->error);
    return rc;
}

int cuzk_engine_cancel(struct cuzk_engine *e, const char *job_id, int *was_running) {
    if (was_running) *was_running = 0;
    if (!job_id) return CUZK_EINVAL;
    struct part *grave = NULL;
    pthread_mutex_lock(&e->mu);
    struct job *j = table_find(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENOTFOUND;
    }
    if (j->final) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_EINVAL;
    }
    if (was_running) *was_running = j->started;
    job_final_locked(e, j, CUZK_JOB_CANCELLED, CUZK_ECANCELLED, "cancelled by request", &grave);
    struct final_report rep;
    final_report_take(j, &rep);
    pthread_mutex_unlock(&e->mu);
    final_report_emit(e, &rep);
    grave_release(e, grave);
    cuzk_budget_wake(e->budget);
    return CUZK_OK;
}

int cuzk_engine_job_state(struct cuzk_engine *e, const char *job_id, enum cuzk_job_state *state,
                          uint32_t *queue_pos) {
    if (!job_id) return CUZK_EINVAL;
    pthread_mutex_lock(&e->mu);
    struct job *j = table_find(e, job_id);
    if (j) {
        if (state) *state = job_state(j);
        if (queue_pos) *queue_pos = queue_position(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return j ? CUZK_OK : CUZK_ENOTFOUND;
}

/* ---- keys -------------------------------------------------------------------------------------
 */

static int key_of(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                  struct kindreg **kr, char key_id[CUZK_NAME_MAX], char *err, size_t errlen) {
    *kr = find_kind(e, kind);
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

int cuzk_engine_preload(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                        int *already_loaded, uint64_t *load_ms, char *err, size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    err[0] = 0;
    struct kindreg *kr;
    char key_id[CUZK_NAME_MAX];
    int rc = key_of(e, kind, circuit_id, &kr, key_id, err, errlen);
    if (rc) return rc;
    struct cuzk_srs_entry *en;
    int loaded = 0;
    double ms = 0;
    rc = cuzk_srs_acquire(e->srs, kr->k, key_id, NULL, NULL, &en, &loaded, &ms, err, errlen);
    if (rc) return rc;
    cuzk_srs_release(e->srs, en);
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

/* ---- status ------------------------------------------------------------------------------------
 */

int cuzk_engine_status(struct cuzk_engine *e, struct cuzk_engine_status *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&e->mu);
    double t = now(e);
    s->uptime_s = t / 1e3;
    s->completed = e->completed;
    s->failed = e->failed;
    s->cancelled = e->cancelled;
    size_t n_live = 0;
    for (struct job *j = e->jobs_head; j; j = j->next) n_live += !j->final;
    size_t n_dev = e->n_devs + (e->fallback >= 0);
    s->kinds = calloc(e->n_kinds ? e->n_kinds : 1, sizeof *s->kinds);
    s->devices = calloc(n_dev, sizeof *s->devices);
    s->workers = calloc(e->n_workers ? e->n_workers : 1, sizeof *s->workers);
    s->jobs = calloc(n_live ? n_live : 1, sizeof *s->jobs);
    int rc = s->kinds && s->devices && s->workers && s->jobs ? CUZK_OK : CUZK_ENOMEM;
    if (!rc) {
        s->n_kinds = e->n_kinds;
        for (size_t i = 0; i < e->n_kinds; i++) {
            struct cuzk_status_kind *q = &s->kinds[i];
            const struct kindreg *kr = &e->kinds[i];
            snprintf(q->name, sizeof q->name, "%s", kr->k->name);
            q->completed = kr->completed;
            q->failed = kr->failed;
            q->cancelled = kr->cancelled;
            q->total_ms_sum = kr->total_ms_sum;
        }
        double win = (double)e->util_window_ms, w = t < win ? t : win, busy_all = 0;
        s->n_devices = n_dev;
        for (size_t d = 0; d < n_dev; d++) {
            const struct dev *dv = &e->devs[d];
            struct cuzk_status_device *o = &s->devices[d];
            o->index = (uint32_t)d;
            snprintf(o->name, sizeof o->name, "%s", dv->name);
            o->workers = dv->workers;
            o->in_flight = dv->in_flight;
            double b = dev_busy_in(dv, t, w);
            o->utilization = w > 0 ? b / w : 0;
            o->busy_ms_total = dv->busy_total + (dv->in_flight ? t - dv->busy_since : 0);
            o->proofs = dv->proofs;
            o->errors = dv->errors;
            o->is_fallback = dv->is_fallback;
            if (!dv->is_fallback) busy_all += b;
        }
        s->utilization = w > 0 && e->n_devs ? busy_all / (w * (double)e->n_devs) : 0;
        s->n_workers = e->n_workers;
        for (size_t i = 0; i < e->n_workers; i++) {
            const struct worker *w = &e->workers[i];
            struct cuzk_status_worker *o = &s->workers[i];
            o->id = w->id;
            o->device = w->device;
            o->busy = w->busy;
            snprintf(o->job_id, sizeof o->job_id, "%s", w->job_id);
            o->partition = w->busy ? w->part : -1;
            o->busy_ms = w->busy ? t - w->since : 0;
        }
        size_t k = 0;
        for (struct job *j = e->jobs_head; j && !rc; j = j->next) {
            if (j->final) continue;
            struct cuzk_status_job *o = &s->jobs[k];
            o->parts = calloc(j->n_parts, sizeof *o->parts);
            if (!o->parts) {
                rc = CUZK_ENOMEM;
                break;
            }
            s->n_jobs = ++k;
            snprintf(o->job_id, sizeof o->job_id, "%s", j->id);
            snprintf(o->kind, sizeof o->kind, "%s", j->kr->k->name);
            snprintf(o->circuit_id, sizeof o->circuit_id, "%s", j->circuit);
            o->priority = j->priority;
            o->state = job_state(j);
            o->age_ms = t - j->t_submit;
            o->n_partitions = j->n_parts;
            o->partitions_done = j->parts_done;
            struct cuzk_status_kind *q = &s->kinds[j->kr - e->kinds];
            q->jobs_live++;
            for (uint32_t i = 0; i < j->n_parts; i++) {
                const struct part *p = &j->parts[i];
                struct cuzk_status_partition *op = &o->parts[i];
                op->state = p->state;
                op->synth_ms = p->synth_ms >= 0                     ? p->synth_ms
                               : p->state == CUZK_PART_SYNTHESIZING ? t - p->t_synth0
                                                                    : -1;
                op->gpu_ms = p->gpu_ms >= 0                                        ? p->gpu_ms
                             : p->state == CUZK_PART_PROVING && p->where == IN_FIN ? t - p->t_gpu0
                                                                                   : -1;
                op->device = p->device;
                op->attempts = p->attempts;
                if (p->where == IN_SYNTHQ)
                    q->synth_pending++;
                else if (p->where == IN_GPUQ || p->where == IN_RETRY)
                    q->gpu_pending++;
                else if (!p->terminal && p->state != CUZK_PART_QUEUED)
                    q->in_progress++;
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    if (!rc) {
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(e->budget, &st);
        s->memory.total = st.total;
        s->memory.used = st.used;
        s->memory.available = st.used < st.total ? st.total - st.used : 0;
        memcpy(s->memory.by_owner, st.by_owner, sizeof st.by_owner);
        s->memory.waiters = st.waiters;
        rc = cuzk_srs_snapshot(e->srs, &s->srs, &s->n_srs);
    }
    if (rc) cuzk_engine_status_free(s);
    return rc;
}

void cuzk_engine_status_free(struct cuzk_engine_status *s) {
    if (s->jobs)
        for (size_t i = 0; i < s->n_jobs; i++) free(s->jobs[i].parts);
    free(s->kinds);
    free(s->devices);
    free(s->workers);
    free(s->jobs);
    free(s->srs);
    memset(s, 0, sizeof *s);
}
