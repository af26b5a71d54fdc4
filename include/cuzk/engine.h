/* The cuzk proving engine: a long-lived service that takes proof jobs, splits them into
 * partitions, synthesizes the partitions on the CPU, proves them on one or more devices
 * (GPU backends, or the CPU backend when there is none), checks every proof and hands the
 * results to whoever waits for them. The daemon serves this API over gRPC/HTTP; tests and
 * benchmarks call it directly.
 *
 * Contract:
 *   - A job is (kind, circuit id, priority, witness source, optional request id). Its states are
 *     QUEUED -> SYNTHESIZING -> PROVING -> FINALIZING -> DONE, or FAILED / CANCELLED from any
 *     state before DONE; each partition has its own state (cuzk_part_state), visible in the
 *     status snapshot.
 *   - Idempotency: a request id names a job. Submitting a request id whose job is live (not
 *     yet final) attaches to that job; one whose job is DONE returns the stored result until
 *     result_ttl_ms after completion; either only when the request asks for the same thing
 *     (kind, circuit id and a SHA-256 digest of the inputs: witness bytes or path, seed; the
 *     priority may differ), else it is refused with CUZK_EEXIST saying what differs, since
 *     the job's proof would not answer it. A request id whose job FAILED or was CANCELLED
 *     starts a new job (a client retry must be able to run again, with the same or corrected
 *     inputs). Jobs without a request id get a random UUID as their id.
 *   - Every cuzk_engine_await call returns exactly once: with the job's final result, with
 *     CUZK_ETIMEOUT when its timeout passes first (the job is unharmed), or, at shutdown, with
 *     the job answered as CANCELLED / FAILED with CUZK_ESHUTDOWN. Never silence.
 *   - Priorities (CRITICAL > HIGH > NORMAL > LOW) order every queue, the synthesis queue and the
 *     device queue alike; within one priority older jobs go first, and within a job lower
 *     partition indices. Every queued item has a unique key: nothing is replaced or lost.
 *   - Memory: every partition reserves its host memory from one byte budget before it is
 *     synthesized; keys and constraint systems are charged to the same budget, and a key the
 *     devices hold is charged only for what stays in host memory. A job that could never fit
 *     (its key + its largest partition + its inputs above the budget) is refused at submit;
 *     inputs are charged when they fit, else the submit fails with CUZK_ENOMEM. See
 *     docs/engine.md for the rules and the documented peak-RSS constant.
 *   - Nothing blocks the dispatcher: keys load on loader threads, and a partition whose key or
 *     memory is not ready does not hold back one whose key and memory are (a partition
 *     waiting for memory keeps that right for mem_overtake_ms, then memory is held for it).
 *   - Proofs: each partition's proof is verified against the key's verification key before
 *     the job is DONE (unless self_verify is off). The job's proof bytes are the partitions'
 *     proofs in partition order, each CUZK_PROOF_BYTES long: the zcash compressed encodings of
 *     A (48 bytes), B (96) and C (48) (ec/encode.h), i.e. the snarkjs proof's pi_a, pi_b, pi_c.
 *
 * Thread-safety: every function may be called from any thread, concurrently, between
 * cuzk_engine_create and cuzk_engine_destroy (destroy excluded: it must be the last call, with
 * no other call in progress). Strings passed in are copied; nothing passed in is retained
 * except the devices' backends and hook contexts, registered kinds, and the trace FILE* or
 * callback, which must outlive the engine.
 *
 * Errors: functions return CUZK_OK or a negative cuzk_err code (cuzk/error.h); where an err
 * buffer is taken, a sentence explaining the error is written there. */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cuzk_engine;
struct cuzk_backend; /* groth16/groth16.h: the prover vtable (prove, memory model, keys) */
struct cuzk_kind;    /* engine/kind.h: a proof kind (vtable) */

#define CUZK_PROOF_BYTES 192 /* one partition's proof: A (48) | B (96) | C (48), compressed */
#define CUZK_JOB_ID_MAX 128  /* job ids and request ids: at most 127 characters + NUL */
#define CUZK_NAME_MAX 64     /* kind names, circuit ids, device names (with the NUL) */
#define CUZK_ERRMSG_MAX 256  /* error messages in results (with the NUL) */

/* ---- jobs ------------------------------------------------------------------------------- */

enum cuzk_priority {
    CUZK_PRIORITY_DEFAULT = -1, /* in a request: the kind's default */
    CUZK_PRIORITY_LOW = 0,
    CUZK_PRIORITY_NORMAL = 1,
    CUZK_PRIORITY_HIGH = 2,
    CUZK_PRIORITY_CRITICAL = 3,
};
#define CUZK_PRIORITY_LEVELS 4

enum cuzk_job_state {
    CUZK_JOB_NONE = 0,     /* not a job state: "no answer" in a result */
    CUZK_JOB_QUEUED,       /* no partition has started synthesis yet */
    CUZK_JOB_SYNTHESIZING, /* some partition is being synthesized, none is on a device yet */
    CUZK_JOB_PROVING,      /* some partition is queued for or running on a device */
    CUZK_JOB_FINALIZING,   /* every remaining partition is being finished / verified */
    CUZK_JOB_DONE,         /* final: the proof is available */
    CUZK_JOB_FAILED,       /* final: err and error say why */
    CUZK_JOB_CANCELLED,    /* final: by cuzk_engine_cancel or a cancelling shutdown */
};

enum cuzk_part_state {
    CUZK_PART_QUEUED = 0,   /* in the synthesis queue, or waiting for its memory */
    CUZK_PART_SYNTHESIZING, /* a synthesis worker builds its witness */
    CUZK_PART_GPU_QUEUED,   /* synthesized, in the device queue */
    CUZK_PART_PROVING,      /* taken by a device worker: inside the backend's prove */
    CUZK_PART_FINALIZING,   /* self-verification, encoding */
    CUZK_PART_DONE,
    CUZK_PART_FAILED,
    CUZK_PART_CANCELLED, /* dropped because its job was cancelled or failed */
};

/* A proof request. Only kind is required; the rest depends on the kind:
 *   "synthetic": circuit_id "<N>" or "<N>x<P>" (N constraints per partition, P partitions per
 *                job, default P = cuzk_engine_config.synthetic_partitions); seed selects the
 *                witness (any value; partition p derives its own from seed and p); no witness.
 *   "snarkjs":   circuit_id registered with cuzk_kinds_add_snarkjs; the witness is a
 *                .wtns file, given as bytes (witness, witness_len) or as a path; one partition.
 * Kinds registered later (Filecoin PoRep, SnapDeals, PoSt) take their input in witness bytes. */
struct cuzk_job_request {
    const char *kind;       /* a registered kind name */
    const char *circuit_id; /* kind-specific; NULL = "" */
    const char *request_id; /* idempotency key; NULL or "" = none (a UUID is assigned). At most
                               127 printable ASCII characters, spaces included, but no commas
                               (ids appear in CSV trace lines) */
    int priority;           /* enum cuzk_priority; CUZK_PRIORITY_DEFAULT = the kind's */
    const void *witness;    /* input bytes, copied at submit (NULL when witness_path is used) */
    size_t witness_len;
    void *witness_owner; /* or NULL; else the malloc'd block that holds witness (witness may
                            point inside it), handed over: cuzk_engine_submit takes it on every
                            return, keeps it with the job or frees it, and never copies it (a
                            large request is held once) */
    /* or NULL: called exactly once, from whichever thread lets go of them, when the engine
       holds none of the request's input bytes any more: witness_owner (or the copy a
       keeps_input kind makes) freed when the kind has parsed it, when the job ends, or on a
       refusal; before cuzk_engine_submit returns when nothing was kept. It must not call the
       engine. A caller that caps the input bytes in flight counts them until this call. */
    void (*input_done)(void *arg);
    void *input_done_arg;
    const char *witness_path; /* or: a file read when the partition is synthesized */
    uint64_t seed;            /* synthetic kind */
    const void *kind_args;    /* or NULL: the kind's own request fields, a flat struct its header
                                 defines (kinds/fc_kind.h: struct cuzk_fc_args), read during
                                 submit only; its kind_args_len bytes enter the request's digest
                                 (two requests of one id must agree on them) */
    size_t kind_args_len;
};

/* What submit reports. */
struct cuzk_submit_info {
    char job_id[CUZK_JOB_ID_MAX];
    uint32_t queue_position;   /* partitions queued for synthesis ahead of the job's first */
    int attached;              /* 1: the request id named an existing job, nothing new started */
    enum cuzk_job_state state; /* the job's state at return */
};

/* Times in milliseconds. Exact definitions (docs/engine.md "Timings"):
 *   queue_ms   submit -> the dispatcher hands the job's first partition to synthesis;
 *   srs_ms     the longest wait of one partition for the key (0 when it was loaded): every
 *              partition waits for the same key, so this is the job's key set-up wait;
 *   mem_ms     sum over partitions of the time from key ready to a synthesis worker (budget
 *              and a free worker);
 *   synth_ms   sum over partitions of the synthesis call (SYNTH_START..SYNTH_END);
 *   gpu_ms     sum over partitions of device time: while the backend held the device
 *              (GPU_START..the device's release; lock waits excluded);
 *   lock_ms    sum over partitions of the waits for the device (another proof held it);
 *   verify_ms  sum over partitions of the self-verification;
 *   total_ms   submit -> the result is delivered (wall clock, not a sum).
 * A failed or cancelled job reports what had been measured when it ended. */
struct cuzk_job_timings {
    double queue_ms, srs_ms, mem_ms, synth_ms, gpu_ms, lock_ms, verify_ms, total_ms;
    uint32_t retries; /* partitions proved a second time after a backend failure */
};

/* A job's answer. Everything is owned by the result: release with cuzk_job_result_free. */
struct cuzk_job_result {
    enum cuzk_job_state state;   /* DONE, FAILED or CANCELLED; NONE when there is no answer */
    int err;                     /* CUZK_OK when DONE, else the cause (CUZK_ECANCELLED,
                                    CUZK_ESHUTDOWN, CUZK_EVERIFY, CUZK_EGPU, ...) */
    char error[CUZK_ERRMSG_MAX]; /* "" when DONE, e.g. "partition 3 GPU prove failed: ..." */
    char job_id[CUZK_JOB_ID_MAX];
    char kind[CUZK_NAME_MAX];
    char circuit_id[CUZK_NAME_MAX];
    uint32_t n_partitions;
    uint8_t *proof;   /* DONE: n_partitions * CUZK_PROOF_BYTES bytes, partition order */
    size_t proof_len; /* 0 unless DONE */
    /* The public inputs of every partition, partition after partition, n_public each, every
     * value 32 bytes little-endian canonical (the Fr repr Filecoin uses). DONE only. */
    uint32_t n_public;
    uint8_t *public_inputs;
    size_t public_len; /* n_partitions * n_public * 32 */
    struct cuzk_job_timings timings;
};

/* Frees the result's arrays and zeroes it; safe on a zeroed result. */
void cuzk_job_result_free(struct cuzk_job_result *r);
/* Partition `part` of a DONE result as snarkjs JSON (proof.json / public.json texts, as snarkjs
 * writes them). Return a malloc'd string to free(), or NULL (bad index, not DONE, no memory). */
char *cuzk_job_result_proof_json(const struct cuzk_job_result *r, uint32_t part);
char *cuzk_job_result_public_json(const struct cuzk_job_result *r, uint32_t part);

/* ---- configuration ---------------------------------------------------------------------- */

/* A proving device: a backend (which brings its memory model, its witness buffers and, for a
 * GPU, its key residency: groth16/groth16.h) and how many workers prove on it. */
struct cuzk_engine_device {
    const struct cuzk_backend *backend; /* required; must outlive the engine */
    const char *name;                   /* for status and logs; NULL = backend->name */
    unsigned workers; /* device workers, each proving one partition at a time through the
                         backend's synchronous prove; 0 = gpu_workers_per_device */
};

/* Receives one trace line (TIMELINE / *_TIMING, no newline) at a time, in emission order, on
 * the emitting thread. Must not call back into the engine. */
typedef void (*cuzk_engine_trace_fn)(void *ctx, const char *line);

/* The engine's settings; cuzk_engine_config_default gives every default (the one place the
 * defaults are written: the daemon's configuration table binds its keys to these fields).
 * Sizes are bytes, durations milliseconds. A zero in gpu_workers_per_device, key_loaders or
 * util_window_ms takes the default; the engine keeps a copy (the setup_allow patterns too). */
struct cuzk_engine_config {
    /* memory */
    uint64_t total_budget;         /* host bytes; 0 = auto: MemTotal - safety_margin (default) */
    uint64_t safety_margin;        /* default 5 GiB */
    uint64_t eviction_min_idle_ms; /* an unused key may be evicted under pressure after this;
                                      default 300000 (5 min) */
    uint64_t srs_idle_evict_ms;    /* evict keys unused this long even without pressure;
                                      0 (default) = never */
    uint64_t trim_threshold;       /* malloc_trim(0) after freeing at least this many bytes at
                                      once; default 64 MiB; 0 = always */
    uint64_t mem_overtake_ms;      /* partitions that fit may go before one waiting for memory
                                      for this long; then memory is held for it; default 2000 */
    int prepin_witness;            /* 1: a preload makes the key's witness buffers ahead (as
                                      many as the budget holds, up to twice the cache's size)
                                      and the cache keeps them: a stream then pins and frees
                                      none while a device proves; the buffers are resident
                                      from the preload on. Default 0 here; the
                                      daemon's memory.pin_at_preload defaults to 1 (measured:
                                      docs/engine.md) */
    /* pipeline */
    unsigned synth_workers;          /* concurrent syntheses (before the budget's limit);
                                        0 = max(2, CPUs / 2); default 0 */
    unsigned gpu_workers_per_device; /* default 2 */
    unsigned cpu_threads;            /* threads of the engine's CPU pool (CPU backend, key
                                        setup/loading, synthesis helpers); 0 = all CPUs */
    unsigned key_loaders;            /* threads loading or setting up keys; default 2 */
    uint64_t result_ttl_ms;          /* keep final results this long; default 1800000 (30 min) */
    int self_verify;                 /* verify every partition's proof; default 1 */
    /* key setups on demand: with setup_policy 0 (default) any key a job or a preload needs is
     * set up when it is not stored; with 1 only keys whose "<kind>:<key id>" matches one of
     * the setup_allow patterns (fnmatch globs: "porep:porep-c18", "synthetic:*"; none = no
     * setup at all) are, and any other job or preload of a key that is neither loaded nor
     * stored is refused with CUZK_EDENIED before its input is parsed further. */
    int setup_policy;
    const char *const *setup_allow;
    size_t n_setup_allow;
    /* devices: NULL / 0 = one CPU backend on the engine's pool */
    const struct cuzk_engine_device *devices;
    size_t n_devices;
    /* optional: the backend a partition's second attempt uses after a backend error; NULL =
     * retry on another device (or the same one when there is only one) */
    const struct cuzk_engine_device *fallback;
    /* instrumentation: trace lines go to trace_fn when set, else to trace_file (NULL = off) */
    FILE *trace_file; /* default stderr */
    cuzk_engine_trace_fn trace_fn;
    void *trace_ctx;
    uint64_t util_window_ms; /* sliding window of the utilization figures; default 60000 */
};

void cuzk_engine_config_default(struct cuzk_engine_config *cfg);

/* Parses a size: a non-negative decimal number (fractions allowed) with an optional unit B,
 * KiB, MiB, GiB, TiB (also K/M/G/T and KB/MB/GB/TB, all binary); no unit = bytes. Returns
 * CUZK_OK or CUZK_EINVAL (empty, junk, negative, overflow). */
int cuzk_parse_size(const char *s, uint64_t *out);

/* ---- lifecycle -------------------------------------------------------------------------- */

/* Creates an engine (no thread runs yet) with no kinds (kinds/kinds.h registers them).
 * Returns CUZK_OK, CUZK_EINVAL (a bad setting: the sentence in err), CUZK_ENOMEM. Kinds may be
 * registered and jobs submitted before start; they wait in the queues. */
int cuzk_engine_create(struct cuzk_engine **out, const struct cuzk_engine_config *cfg, char *err,
                       size_t errlen);
/* Starts the threads. Returns CUZK_OK, CUZK_EINVAL (started already), CUZK_ENOMEM. */
int cuzk_engine_start(struct cuzk_engine *e);

enum cuzk_shutdown_mode {
    CUZK_SHUTDOWN_FINISH = 0, /* refuse new jobs, finish every accepted one, then stop */
    CUZK_SHUTDOWN_CANCEL = 1, /* refuse new jobs, answer every live job CANCELLED with
                                 CUZK_ESHUTDOWN, wait for running backend calls, then stop */
};
/* Stops the engine; returns when every engine thread has exited. Afterwards submit returns
 * CUZK_ESHUTDOWN, await still returns stored results. Idempotent. An engine that was never
 * started answers its queued jobs as with CUZK_SHUTDOWN_CANCEL. */
void cuzk_engine_shutdown(struct cuzk_engine *e, enum cuzk_shutdown_mode mode);
/* Shuts down (CANCEL) if needed and frees everything. */
void cuzk_engine_destroy(struct cuzk_engine *e);

/* ---- kinds and circuits ----------------------------------------------------------------- */

/* Registers a proof kind (engine/kind.h). The vtable must outlive the engine. Returns CUZK_OK,
 * CUZK_EEXIST (the name is taken), CUZK_EINVAL (incomplete vtable). */
int cuzk_engine_register_kind(struct cuzk_engine *e, const struct cuzk_kind *kind);

/* The registered kind of that name (NULL if none): for kind-specific set-up calls. */
const struct cuzk_kind *cuzk_engine_kind(struct cuzk_engine *e, const char *name);
/* The i-th registered kind in registration order, NULL when i >= their count: a caller walks
 * the kinds from 0 until NULL. Kinds are never unregistered, so an index keeps its kind. */
const struct cuzk_kind *cuzk_engine_kind_at(struct cuzk_engine *e, size_t i);

/* ---- jobs ------------------------------------------------------------------------------- */

/* Queues a job, or attaches to the one its request id names (see the contract above).
 * Returns CUZK_OK (info filled), CUZK_EINVAL (bad request: unknown kind, bad circuit id or
 * request id, a witness the kind needs missing), CUZK_EEXIST (the request id names a live or
 * done job of another request), CUZK_ENOMEM, CUZK_ESHUTDOWN, or a kind's
 * error (e.g. CUZK_EIO reading a key header), with a sentence in err. */
int cuzk_engine_submit(struct cuzk_engine *e, const struct cuzk_job_request *req,
                       struct cuzk_submit_info *info, char *err, size_t errlen);

/* Waits for the job's result. timeout_ms < 0 waits forever; 0 polls.
 * Returns:
 *   the job's final code, with *out filled (out->state DONE / FAILED / CANCELLED): CUZK_OK when
 *   DONE, else out->err;
 *   CUZK_ETIMEOUT (out->state NONE): the timeout passed, the job goes on;
 *   CUZK_ENOTFOUND (out->state NONE): no such job, or its result expired (result_ttl_ms).
 * Any number of callers may wait for one job; each gets its own copy of the result. */
int cuzk_engine_await(struct cuzk_engine *e, const char *job_id, int64_t timeout_ms,
                      struct cuzk_job_result *out);

/* A completion notification: a watch on one job, for callers that must not hold a thread per
 * waiting caller (the daemon's blocking calls). */
struct cuzk_job_watch;
/* Called once per watch, when the job is final and its result can be taken; see
 * cuzk_engine_watch for the thread it runs on and what it may do. */
typedef void (*cuzk_job_watch_fn)(void *ctx, struct cuzk_job_watch *w);

/* Watches a job. When its result can be taken at once, nothing is watched: returns as
 * cuzk_engine_await with timeout 0 (the final code with *out filled, or CUZK_ENOTFOUND) and
 * *w = NULL. Else returns CUZK_ETIMEOUT (out->state NONE) with *w a new watch: fn(ctx, *w) will
 * be called once, when the job becomes final, or never if the watch is ended first. Returns
 * CUZK_ENOMEM (*w = NULL) when the watch cannot be made. While a watch lives its job and result
 * are kept (result_ttl_ms does not drop them); every watch must be ended, before
 * cuzk_engine_destroy at the latest.
 * fn runs once the job's final trace line is written, on the thread that made the job final (a
 * finalizer, a canceller, a shutdown), with no engine lock held; the watches of one job are
 * called one after another. fn may call any engine function, cuzk_engine_watch_end of its own
 * watch included (the usual way to take the result), but must not end another watch, and
 * should return soon: a finalizer waits for it. */
int cuzk_engine_watch(struct cuzk_engine *e, const char *job_id, cuzk_job_watch_fn fn, void *ctx,
                      struct cuzk_job_watch **w, struct cuzk_job_result *out);
/* Ends and frees a watch. Returns as cuzk_engine_await with timeout 0 on the watched job: its
 * final code with *out filled once the job is final, else CUZK_ETIMEOUT (out->state NONE; the
 * job goes on). When it returns, fn is not running and will not be called: called from another
 * thread while fn runs, it waits for fn's return (so its caller must hold no lock fn takes);
 * called from fn itself, it does not. */
int cuzk_engine_watch_end(struct cuzk_engine *e, struct cuzk_job_watch *w,
                          struct cuzk_job_result *out);

/* submit + await (timeout_ms as for await; on CUZK_ETIMEOUT the job goes on and info->job_id
 * names it). info may be NULL. */
int cuzk_engine_prove(struct cuzk_engine *e, const struct cuzk_job_request *req, int64_t timeout_ms,
                      struct cuzk_submit_info *info, struct cuzk_job_result *out, char *err,
                      size_t errlen);

/* Cancels a live job: its queued partitions leave the queues at once (their memory is
 * released), running partitions stop at their next boundary (after synthesis, after the
 * device proof) and are discarded; waiters are answered CANCELLED (CUZK_ECANCELLED) at once.
 * *was_running (may be NULL) = 1 when some partition had left the synthesis queue. Returns
 * CUZK_OK, CUZK_ENOTFOUND, or CUZK_EINVAL when the job is already final. */
int cuzk_engine_cancel(struct cuzk_engine *e, const char *job_id, int *was_running);

/* The job's current state (and, while QUEUED, its queue position). Returns CUZK_OK or
 * CUZK_ENOTFOUND. */
int cuzk_engine_job_state(struct cuzk_engine *e, const char *job_id, enum cuzk_job_state *state,
                          uint32_t *queue_position);

/* ---- keys (SRS manager) ----------------------------------------------------------------- */

enum cuzk_srs_tier {
    CUZK_SRS_HOT = 0,  /* in host memory and resident on the devices (backend hook) */
    CUZK_SRS_WARM = 1, /* in host memory */
    CUZK_SRS_COLD = 2, /* known, not loaded (or loading) */
};

/* Loads the proving key of (kind, circuit_id) if it is not loaded (blocking the caller only;
 * budget-gated; the devices that can hold it get it resident).
 * *already_loaded and *load_ms (may be NULL) report what happened. Returns CUZK_OK, or the
 * load's error with a sentence in err. */
int cuzk_engine_preload(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                        int *already_loaded, uint64_t *load_ms, char *err, size_t errlen);
/* Drops a loaded key now. Returns CUZK_OK (*freed_bytes = its budget charge), CUZK_ENOTFOUND
 * (not loaded: *freed_bytes = 0), CUZK_EBUSY (a job holds it). */
int cuzk_engine_evict(struct cuzk_engine *e, const char *kind, const char *circuit_id,
                      uint64_t *freed_bytes);

/* ---- status ----------------------------------------------------------------------------- */

enum cuzk_mem_owner {
    CUZK_MEM_PARTITION = 0, /* witnesses and prover working memory of in-flight partitions */
    CUZK_MEM_KEY = 1,       /* proving keys (SRS) */
    CUZK_MEM_CS = 2,        /* constraint systems kept by kinds */
    CUZK_MEM_OTHER = 3,
};
#define CUZK_MEM_OWNERS 4

struct cuzk_status_kind {
    char name[CUZK_NAME_MAX];
    char label[CUZK_NAME_MAX];   /* the reference cuzk's Prometheus label ("porep_c2") */
    char display[CUZK_NAME_MAX]; /* the reference cuzk's name ("porep-c2"); both = name when
                                    the kind has none */
    uint32_t synth_pending;      /* partitions in the synthesis queue */
    uint32_t gpu_pending;        /* partitions in the device queue */
    uint32_t in_progress;        /* partitions being synthesized, proved or finalized */
    uint32_t jobs_live;
    uint64_t completed, failed, cancelled;
    double total_ms_sum; /* sum of total_ms over completed jobs (for mean durations) */
};

struct cuzk_status_device {
    uint32_t index;
    char name[CUZK_NAME_MAX];
    uint32_t workers;
    uint32_t in_flight;   /* proofs holding the device now (0 or 1 for a GPU) */
    double utilization;   /* busy / wall over the last util_window_ms, 0..1 */
    double busy_ms_total; /* since start */
    uint64_t proofs, errors;
    int is_fallback;
    char memory[1024]; /* the backend's line of its device memory (the CUDA backend: the budget's
                          parts, each resident key's residency plan); "" when it has none */
    int ordinal;       /* the backend's device (its CUDA ordinal), -1 when it has none */
    uint64_t mem_total, mem_free; /* that device's memory, free now for every process; 0 when
                                     ordinal is -1 */
};

struct cuzk_status_worker {
    uint32_t id;
    int device; /* device index; -1 for a synthesis worker, -2 for a key loader (job_id: the
                   key it loads) */
    int busy;
    char job_id[CUZK_JOB_ID_MAX]; /* "" when idle */
    int32_t partition;            /* -1 when idle */
    double busy_ms;               /* how long the current item has run */
};

struct cuzk_status_partition {
    enum cuzk_part_state state;
    double synth_ms, gpu_ms; /* so far; -1 when not started */
    int device;              /* -1 until proved */
    uint32_t attempts;
};

struct cuzk_status_job {
    char job_id[CUZK_JOB_ID_MAX];
    char kind[CUZK_NAME_MAX];
    char circuit_id[CUZK_NAME_MAX];
    int priority;
    enum cuzk_job_state state;
    double age_ms;
    uint32_t n_partitions, partitions_done;
    struct cuzk_status_partition *parts; /* n_partitions */
};

struct cuzk_status_srs {
    char kind[CUZK_NAME_MAX];
    char circuit_id[CUZK_NAME_MAX];
    enum cuzk_srs_tier tier;
    uint64_t bytes; /* host budget charge */
    uint64_t vram_bytes;
    uint64_t host_copy_bytes;  /* of bytes: what the devices keep in host memory (the queries a
                                * CUDA residency plan streams), summed over the devices */
    uint32_t refs;             /* jobs holding it */
    double load_ms;            /* the last load */
    double idle_ms;            /* since last use (0 while referenced) */
    int loading;               /* 1: being loaded or set up now (tier COLD) */
    char alias[CUZK_NAME_MAX]; /* the reference cuzk's circuit id ("porep-32g"); "" if none */
};

struct cuzk_engine_status {
    double uptime_s;
    uint64_t completed, failed, cancelled; /* jobs, all kinds */
    struct {
        uint64_t total, used, available;
        uint64_t by_owner[CUZK_MEM_OWNERS];
        uint32_t waiters; /* reservations waiting */
    } memory;
    double utilization; /* all devices: busy / (wall x devices) over the window */
    struct {
        uint32_t jobs_queued;    /* live jobs none of whose partitions has started (the
                                    reference cuzk's queue depth: its scheduler's heap) */
        uint32_t synth_workers;  /* synthesis workers */
        uint32_t synthesizing;   /* partitions being synthesized */
        uint32_t device_workers; /* device workers (all devices) */
        uint32_t device_busy;    /* device workers holding a partition now */
        uint32_t synthesized;    /* partitions with a witness: in the device queue, proving or
                                    finalizing */
        uint32_t finalizing;     /* partitions proved and being verified / encoded */
    } pipeline;
    size_t n_kinds;
    struct cuzk_status_kind *kinds;
    size_t n_devices;
    struct cuzk_status_device *devices;
    size_t n_workers;
    struct cuzk_status_worker *workers;
    size_t n_jobs; /* live jobs (not final) */
    struct cuzk_status_job *jobs;
    size_t n_srs;
    struct cuzk_status_srs *srs;
};

/* A consistent snapshot (taken in pieces, each under its own lock: figures from different
 * sections may be a few microseconds apart). Free with cuzk_engine_status_free. Returns
 * CUZK_OK or CUZK_ENOMEM. */
int cuzk_engine_status(struct cuzk_engine *e, struct cuzk_engine_status *out);
void cuzk_engine_status_free(struct cuzk_engine_status *s);
/* The snapshot as JSON (jansson; compact when indent = 0). Returns a malloc'd string to free(),
 * or NULL when out of memory. Schema in docs/engine.md. */
char *cuzk_engine_status_json(const struct cuzk_engine_status *s, int indent);

/* Names for logs and JSON ("queued", "critical", "warm", "partition", ...); never NULL. */
const char *cuzk_job_state_name(enum cuzk_job_state s);
const char *cuzk_part_state_name(enum cuzk_part_state s);
const char *cuzk_priority_name(int priority);
const char *cuzk_srs_tier_name(enum cuzk_srs_tier t);
const char *cuzk_mem_owner_name(enum cuzk_mem_owner o);

#ifdef __cplusplus
}
#endif

#endif
