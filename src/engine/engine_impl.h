/* The engine's private structures and the functions its files share (include/cuzk/engine.h
 * is the contract). The engine is split by responsibility:
 *   engine.c     lifecycle (create, start, shutdown, destroy), kinds, keys (preload, evict)
 *   queue.c      the ordered queues, FIFO lists and the job table
 *   job.c        jobs: submit, await, cancel, states, final results, partition resources
 *   pipeline.c   the threads: dispatcher, key loaders, synthesis and device workers,
 *                finalizers, housekeeping (their DESIGN comment)
 *   witness.c    the cache of witness buffers
 *   trace.c      trace lines (engine/trace.h) and device utilization
 *   status.c     the status snapshot
 *
 * DESIGN (threads, queues, ownership, locks: the whole engine)
 *
 * Threads (all named):
 *   cuzk-dispatch   one dispatcher. Examines the synthesis queue in order whenever something
 *                   changed (a submit, a key loaded, memory released, a worker idle) and hands
 *                   to an idle synthesis worker the first partition whose key is loaded and
 *                   whose memory fits; never blocks on a key or on memory (see pipeline.c).
 *   cuzk-keyload-N  key loaders (key_loaders): load or set up the keys the dispatcher asked for,
 *                   best rank first; a failed load fails the jobs that wait for it.
 *   cuzk-synth-N    synthesis workers. Build the partition's witness with the kind into a
 *                   buffer of the device backend's kind (witness.c), record its public inputs,
 *                   push it to the device queue.
 *   cuzk-dev-D-W    device workers, gpu_workers_per_device per device. Take the best partition
 *                   of the device queue (a retry ahead of others of its priority, never ahead
 *                   of a higher one) and call the backend's synchronous prove; its hooks give
 *                   the witness back and mark the device busy; then hand the proof to the
 *                   device's finalizer.
 *   cuzk-fin-D      one finalizer per device (and one for the fallback backend):
 *                   self-verification, proof encoding, release of the partition's memory
 *                   (malloc_trim after large frees), assembly and delivery of the job.
 *   cuzk-house      housekeeping: drops final results after result_ttl_ms, evicts keys
 *                   idle for srs_idle_evict_ms.
 *
 * Queues (all under e->mu): the synthesis queue and the device queue are binary heaps ordered
 * by (priority desc, job sequence, partition index, item sequence): unique keys, FIFO within a
 * priority. The ready list (dispatcher -> synthesis workers), the retry list (second attempts
 * after a backend error) and the finalizer lists are FIFOs. The key-load queue is a list
 * ordered by rank.
 *
 * Ownership: a partition (struct part) is owned by exactly one place at a time: a queue or
 * list (under e->mu), or the thread that took it from there. Its resources (key reference,
 * budget reservation, witness buffer, proof) travel with it. A job is owned by the job table
 * and list; it is freed when it has left the table (TTL, replacement, destroy), all its
 * partitions are terminal (their resources released) and no caller is waiting on it.
 *
 * Failure and cancellation: cuzk_eng_job_final_locked makes the job final at once, removes its
 * queued partitions (their resources are released right after, outside the lock) and marks it dead;
 * a partition held by a thread is discarded at the thread's next boundary (after dispatch, after
 * synthesis, after the proof, after verification). Its waiters are answered by cuzk_eng_job_answer
 * once its final log and CUZK_TIMING lines are written (outside the lock), so a caller that got a
 * result finds its trace line; a final job that is not answered yet is never freed. The same call
 * then runs the job's watches (cuzk_engine_watch: completion callbacks), on its own thread with no
 * lock held, so a callback may call back into the engine; a watch counts as a waiter, so its job
 * stays until the watch is ended.
 *
 * Locks: e->mu (queues, jobs, partitions' states, workers, devices' counters, the load queue),
 * e->trace_mu (trace output), the witness cache's mutex, and the budget's, SRS manager's,
 * pool's, log's and backends' own mutexes. NEVER TWO AT ONCE: resources are released, kinds
 * and backends called, trace lines written only with no engine lock held; a decision taken
 * under e->mu that needs another lock collects its work (e.g. a list of partitions to free)
 * and does it after unlocking. Trace lines carry the time of their event, taken where it
 * happened. */
#ifndef CUZK_ENGINE_ENGINE_IMPL_H
#define CUZK_ENGINE_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/kind.h"
#include "engine/srs.h"
#include "engine/trace.h"
#include "groth16/groth16.h"
#include "util/clock.h"

#define MAX_KINDS 32
#define UTIL_RING 4096        /* busy intervals kept per device for the utilization window */
#define HOUSE_PERIOD_MS 250.0 /* housekeeping period (bounded by result_ttl_ms / 4) */
#define DISPATCH_SCAN 256     /* partitions the dispatcher examines per pass, at most */
#define DISPATCH_TICK_MS 1000 /* the dispatcher looks again at least this often while waiting */

/* Where a partition is: a queue or list, or held by the dispatcher during a pass (IN_DISPATCH)
 * or by another thread (IN_NONE). */
enum where { IN_NONE = 0, IN_SYNTHQ, IN_DISPATCH, IN_READY, IN_GPUQ, IN_RETRY, IN_FIN };

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
    int worker;        /* device worker that proved it; -1 */
    struct cuzk_srs_entry *key;
    struct cuzk_reservation res;
    cuzk_fr *w;   /* the witness buffer (witness.c), NULL once given back */
    size_t w_cap; /* its capacity in elements */
    struct cuzk_snarkjs_proof proof;
    double t_first, t_key, t_synth0, t_gpu0; /* engine ms; 0 = not yet */
    double synth_ms, gpu_ms;                 /* -1 until measured */
    double mem_logged;                       /* last "waits for memory" log line */
};

struct kindreg {
    const struct cuzk_kind *k;
    uint64_t completed, failed, cancelled;
    double total_ms_sum;
};

struct job {
    char id[CUZK_JOB_ID_MAX];
    uint64_t seq;
    struct kindreg *kr;
    char circuit[CUZK_NAME_MAX], key_id[CUZK_NAME_MAX];
    uint8_t inputs[32]; /* SHA-256 of the request's inputs (request_digest): what a reuse of the
                           id must repeat */
    int priority;
    void *kstate;
    struct cuzk_kind_sizes sizes;
    uint64_t w_bytes;   /* witness */
    uint64_t full;      /* reserved per partition before synthesis */
    uint64_t after_syn; /* kept after synthesis: witness + the backend's proof memory */
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
    int answered;    /* final and its report written: waiters may take the result */
    uint8_t *proof;  /* partition proofs, encoded by the finalizers */
    cuzk_fr *pub_fr; /* public inputs, n_public per partition, recorded by synthesis */
    uint8_t *pub;    /* the same encoded (32 bytes LE each) by the finalizer, once verified */
    struct cuzk_job_timings tm;
    double t_submit, t_final; /* engine ms */
    struct cuzk_reservation input_res;
    void *input; /* the request's bytes while the kind reads them (cuzk_kind.keeps_input) */
    void (*input_done)(void *arg); /* the request's, called once input is freed */
    void *input_done_arg;
    pthread_cond_t cv;              /* waiters: signalled when the job becomes final */
    struct cuzk_job_watch *watches; /* armed watches (each counted in waiters) */
    struct job *hnext, *prev, *next;
};

/* A watch (cuzk_engine_watch). Its state, under e->mu: ARMED on its job's list; FIRING taken
 * off it by the thread that made the job final (firer), which calls fn and then marks it FIRED.
 * An end from another thread waits for FIRED; an end from fn itself sets ended and leaves the
 * free to the firer. */
enum watch_state { WATCH_ARMED, WATCH_FIRING, WATCH_FIRED };
struct cuzk_job_watch {
    struct job *job;
    cuzk_job_watch_fn fn;
    void *ctx;
    enum watch_state state;
    int ended;
    pthread_t firer;
    struct cuzk_job_watch *next; /* the job's list, then the firer's */
};

struct interval {
    double a, b;
};

struct dev {
    struct cuzk_engine_device d;
    char name[CUZK_NAME_MAX];
    struct cuzk_backend cpu_be; /* when the engine made the device */
    int is_fallback;
    unsigned workers;
    /* under e->mu: */
    struct part *fin_head, *fin_tail;
    pthread_cond_t fin_cv;
    pthread_t fin_thread;
    int fin_started;
    uint32_t in_flight; /* proofs holding the device (between device_begin and device_end) */
    uint32_t proving;   /* this device's workers inside the backend's prove */
    double busy_since, busy_total;
    struct interval ring[UTIL_RING];
    size_t ring_head, ring_n;
    uint64_t proofs, errors;
};

struct worker {
    struct cuzk_engine *e;
    uint32_t id;
    int device; /* -1: synthesis; -2: key loader */
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

/* A key the dispatcher asked the loaders for. */
struct keyload {
    struct kindreg *kr;
    char key_id[CUZK_NAME_MAX];
    uint64_t rank;
    int running;
    struct keyload *next;
};

/* Cached witness buffers (witness.c). */
struct wbuf {
    cuzk_fr *w;
    size_t cap; /* elements */
    struct cuzk_reservation res;
    struct wbuf *next;
};

struct cuzk_engine {
    /* The settings, immutable after create: the caller's, with every zero that means "the
     * default" or "auto" resolved (engine.c). The engine owns the setup_allow patterns (a deep
     * copy, NULL unless setup_policy); devices and fallback are NULL: e->devs holds them. */
    struct cuzk_engine_config cfg;
    pthread_mutex_t trace_mu;
    double t0; /* CLOCK_MONOTONIC ms at create */

    struct cuzk_pool *pool;
    struct cuzk_budget *budget;
    struct cuzk_srs *srs;
    struct dev *devs; /* n_devs regular devices, then the fallback if any */
    size_t n_devs;
    int fallback;                         /* index of the fallback device, -1 if none */
    const struct cuzk_backend **backends; /* every device's backend, for the SRS manager */
    const struct cuzk_backend *wbackend;  /* the backend whose witness buffers synthesis uses */

    /* the witness cache (witness.c), under wmu */
    pthread_mutex_t wmu;
    struct wbuf *wfree;
    size_t wfree_n, wfree_max, wfree_prepin_max;

    pthread_mutex_t mu;
    pthread_cond_t dispatch_cv, ready_cv, gpu_cv, drain_cv, house_cv, load_cv;
    pthread_cond_t watch_cv; /* a watch became FIRED */
    struct kindreg kinds[MAX_KINDS];
    size_t n_kinds;
    struct heap synthq, gpuq;
    struct part *ready_head, *ready_tail, *retry_head, *retry_tail;
    unsigned idle_unclaimed; /* synthesis workers waiting with no item promised to them */
    uint64_t dispatch_gen;   /* bumped by every event the dispatcher should look at */
    struct part *mem_head;   /* the partition waiting for memory that holds the claim */
    struct cuzk_budget_claim claim;
    struct keyload *loads; /* requested key loads, by rank */
    struct job **table;
    size_t table_cap, table_n;
    struct job *jobs_head; /* every job not yet freed */
    uint64_t job_seq, item_seq, live_parts;
    uint64_t completed, failed, cancelled;
    int started, accepting, shutting, stopping, shut_done;
    atomic_int abort_loads; /* set at shutdown: key loads waiting for memory give up */
    struct worker *workers;
    size_t n_workers;
    pthread_t dispatch_th, house_th;
    int dispatch_started, house_started;
};

/* ---- time, trace (trace.c) ---- */
static inline double eng_now(const struct cuzk_engine *e) { return cuzk_clock_ms() - e->t0; }
void cuzk_eng_trace(struct cuzk_engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* TIMELINE,<t>,<event>,<job>,<detail> */
void cuzk_eng_timeline(struct cuzk_engine *e, double t, enum cuzk_trace_event ev, const char *job,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int cuzk_eng_tracing(const struct cuzk_engine *e);
/* device utilization (under e->mu) */
void cuzk_eng_dev_busy_begin(struct dev *d, double t);
void cuzk_eng_dev_busy_end(struct dev *d, double t);
double cuzk_eng_dev_busy_in(const struct dev *d, double t, double w);

/* ---- queues (queue.c), under e->mu ---- */
int cuzk_eng_part_before(const struct part *x, const struct part *y);
int cuzk_eng_heap_reserve(struct heap *h, size_t cap);
void cuzk_eng_heap_push(struct heap *h, struct part *p);
void cuzk_eng_heap_remove(struct heap *h, size_t i);
struct part *cuzk_eng_heap_pop(struct heap *h);
void cuzk_eng_fifo_push(struct part **head, struct part **tail, struct part *p);
struct part *cuzk_eng_fifo_pop(struct part **head, struct part **tail);
void cuzk_eng_fifo_remove(struct part **head, struct part **tail, struct part *p);
struct job *cuzk_eng_table_find(struct cuzk_engine *e, const char *id);
void cuzk_eng_table_insert(struct cuzk_engine *e, struct job *j);
void cuzk_eng_table_remove(struct cuzk_engine *e, struct job *j);

/* ---- jobs (job.c) ---- */
void cuzk_eng_job_free_mem(struct job *j);
void cuzk_eng_job_maybe_free(struct cuzk_engine *e, struct job *j);                 /* e->mu */
enum cuzk_job_state cuzk_eng_job_state(const struct job *j);                        /* e->mu */
uint32_t cuzk_eng_queue_position(const struct cuzk_engine *e, const struct job *j); /* e->mu */
void cuzk_eng_job_final_locked(struct cuzk_engine *e, struct job *j, enum cuzk_job_state st,
                               int err, const char *msg, struct part **grave); /* e->mu */
struct final_report {
    char id[CUZK_JOB_ID_MAX], circuit[CUZK_NAME_MAX], errmsg[CUZK_ERRMSG_MAX];
    const char *kind;
    enum cuzk_job_state state;
    uint32_t n_parts;
    struct cuzk_job_timings tm;
};
void cuzk_eng_final_report_take(const struct job *j, struct final_report *r); /* e->mu */
void cuzk_eng_final_report_emit(struct cuzk_engine *e, const struct final_report *r);
/* After cuzk_eng_final_report_emit: answers the job's waiters and calls its watches' functions
 * (takes e->mu, then calls them with no lock held). */
void cuzk_eng_job_answer(struct cuzk_engine *e, struct job *j);
/* Takes the job's armed watches onto *list (FIRING, this thread their firer) (e->mu). */
void cuzk_eng_watches_take_locked(struct job *j, struct cuzk_job_watch **list);
/* Calls the functions of the watches taken onto list, one after another (no lock held). */
void cuzk_eng_watches_fire(struct cuzk_engine *e, struct cuzk_job_watch *list);
uint64_t cuzk_eng_part_release(struct cuzk_engine *e, struct part *p);
void cuzk_eng_job_drain(struct cuzk_engine *e, struct job *j);
int cuzk_eng_part_terminal_locked(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st);
void cuzk_eng_part_discard(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st);
void cuzk_eng_grave_release(struct cuzk_engine *e, struct part *grave);
void cuzk_eng_part_fail(struct cuzk_engine *e, struct part *p, int err, const char *msg);
uint64_t cuzk_eng_part_rank(const struct part *p);
/* Fails every live job whose partitions wait for key (kind, key_id) and have not started:
 * the key could not be loaded (no lock held). */
void cuzk_eng_jobs_fail_key(struct cuzk_engine *e, const struct kindreg *kr, const char *key_id,
                            int rc, const char *msg);

/* ---- the witness cache (witness.c) ---- */
int cuzk_eng_witness_get(struct cuzk_engine *e, size_t n, cuzk_fr **w, size_t *cap);
/* Keeps w for the next partition (or frees it), its charge moved from `from` (may be NULL)
 * as far as from holds it, the rest reserved anew (the buffer is freed when that fails).
 * Returns the bytes moved out of from. */
uint64_t cuzk_eng_witness_put(struct cuzk_engine *e, cuzk_fr *w, size_t cap,
                              struct cuzk_reservation *from);
/* Takes a kept buffer of at least n elements with its charge, moved into `to` (empty, or a
 * CUZK_MEM_PARTITION reservation of the engine's budget). CUZK_OK or CUZK_ENOTFOUND. */
int cuzk_eng_witness_adopt(struct cuzk_engine *e, size_t n, struct cuzk_reservation *to,
                           cuzk_fr **w, size_t *cap);
uint64_t cuzk_eng_witness_evict(struct cuzk_engine *e, uint64_t need);
void cuzk_eng_witness_drop_all(struct cuzk_engine *e);
/* Fills the cache with buffers of n elements (backends with witness_alloc only: pinned memory
 * is slow to make), up to its size and while the budget keeps `spare` bytes free besides them;
 * each is charged as a kept buffer. Returns how many it made. */
unsigned cuzk_eng_witness_prepin(struct cuzk_engine *e, size_t n, uint64_t spare);

/* ---- the pipeline (pipeline.c) ---- */
struct fin_arg {
    struct cuzk_engine *e;
    int dv;
};
void *cuzk_eng_dispatch_main(void *arg);
void *cuzk_eng_keyload_main(void *arg);
void *cuzk_eng_synth_main(void *arg);
void *cuzk_eng_device_main(void *arg);
void *cuzk_eng_fin_main(void *arg);
void *cuzk_eng_house_main(void *arg);
/* Tells the dispatcher to look again (under e->mu / without: the _locked variant). */
void cuzk_eng_dispatch_poke_locked(struct cuzk_engine *e);
void cuzk_eng_dispatch_poke(void *engine);

/* ---- kinds ---- */
struct kindreg *cuzk_eng_find_kind(struct cuzk_engine *e, const char *name);
/* The engine-wide memory model of a key's sizes: the largest proof memory over the devices. */
void cuzk_engine_proof_mem(struct cuzk_engine *e, const struct cuzk_kind_sizes *sz, uint64_t *host);

/* The setup policy (cuzk_engine_config.setup_allow) for a job or preload of key_id: CUZK_OK,
 * or CUZK_EDENIED with the reason in err (engine.c). */
int cuzk_engine_setup_check(struct cuzk_engine *e, const struct cuzk_kind *k, const char *key_id,
                            char *err, size_t errlen);

#endif
