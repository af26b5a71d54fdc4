/* Jobs (engine_impl.h): submission, waiting, cancellation, states, final results and the
 * resources of partitions. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "engine/engine_impl.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/rand.h"

/* Frees the request's bytes the job keeps and tells the request's owner (input_done). */
static void job_input_free(struct job *j) {
    free(j->input);
    j->input = NULL;
    void (*done)(void *) = j->input_done;
    j->input_done = NULL;
    if (done) done(j->input_done_arg);
}

void cuzk_eng_job_free_mem(struct job *j) {
    pthread_cond_destroy(&j->cv);
    job_input_free(j);
    free(j->parts);
    free(j->proof);
    free(j->pub);
    free(j->pub_fr);
    free(j);
}

void cuzk_eng_job_maybe_free(struct cuzk_engine *e, struct job *j) {
    if (j->in_table || !j->drained || j->waiters || (j->final && !j->answered)) return;
    if (j->prev)
        j->prev->next = j->next;
    else
        e->jobs_head = j->next;
    if (j->next) j->next->prev = j->prev;
    cuzk_eng_job_free_mem(j);
}

/* ---- job state --------------------------------------------------------------------------- */

enum cuzk_job_state cuzk_eng_job_state(const struct job *j) {
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

uint32_t cuzk_eng_queue_position(const struct cuzk_engine *e, const struct job *j) {
    const struct part *first = NULL;
    for (uint32_t i = 0; i < j->n_parts && !first; i++)
        if (j->parts[i].where == IN_SYNTHQ) first = &j->parts[i];
    if (!first) return 0;
    uint32_t n = 0;
    for (size_t i = 0; i < e->synthq.n; i++)
        if (cuzk_eng_part_before(e->synthq.a[i], first)) n++;
    return n;
}

uint64_t cuzk_eng_part_rank(const struct part *p) {
    return cuzk_budget_rank(p->job->priority, p->job->seq, p->idx);
}

void cuzk_eng_job_final_locked(struct cuzk_engine *e, struct job *j, enum cuzk_job_state st,
                               int err, const char *msg, struct part **grave) {
    if (j->final) return;
    j->final = st;
    j->err = err;
    snprintf(j->errmsg, sizeof j->errmsg, "%s", msg ? msg : "");
    j->t_final = eng_now(e);
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
        case IN_SYNTHQ: cuzk_eng_heap_remove(&e->synthq, p->heap_idx); break;
        case IN_GPUQ: cuzk_eng_heap_remove(&e->gpuq, p->heap_idx); break;
        case IN_RETRY: cuzk_eng_fifo_remove(&e->retry_head, &e->retry_tail, p); break;
        default: continue; /* held by a thread, or in the ready / finalizer lists */
        }
        if (p == e->mem_head) e->mem_head = NULL; /* its key reference goes with it */
        p->where = IN_NONE;
        p->next = *grave;
        *grave = p;
    }
    cuzk_eng_dispatch_poke_locked(e);
}

void cuzk_eng_job_answer(struct cuzk_engine *e, struct job *j) {
    struct cuzk_job_watch *watches = NULL;
    pthread_mutex_lock(&e->mu);
    j->answered = 1;
    pthread_cond_broadcast(&j->cv);
    cuzk_eng_watches_take_locked(j, &watches);
    cuzk_eng_job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_watches_fire(e, watches);
}

void cuzk_eng_watches_take_locked(struct job *j, struct cuzk_job_watch **list) {
    while (j->watches) {
        struct cuzk_job_watch *w = j->watches;
        j->watches = w->next;
        w->state = WATCH_FIRING;
        w->firer = pthread_self();
        w->next = *list;
        *list = w;
    }
}

void cuzk_eng_watches_fire(struct cuzk_engine *e, struct cuzk_job_watch *list) {
    while (list) {
        struct cuzk_job_watch *w = list;
        list = w->next; /* read first: w is the ender's to free once it is FIRED */
        w->fn(w->ctx, w);
        pthread_mutex_lock(&e->mu);
        const int ended = w->ended; /* ended by fn itself: freed here */
        w->state = WATCH_FIRED;
        pthread_cond_broadcast(&e->watch_cv);
        pthread_mutex_unlock(&e->mu);
        if (ended) free(w);
    }
}

void cuzk_eng_final_report_take(const struct job *j, struct final_report *r) {
    memcpy(r->id, j->id, sizeof r->id);
    /* the request's circuit id, or the key id when it names none (a Filecoin job's profile) */
    memcpy(r->circuit, j->circuit[0] ? j->circuit : j->key_id, sizeof r->circuit);
    memcpy(r->errmsg, j->errmsg, sizeof r->errmsg);
    r->kind = j->kr->k->name;
    r->state = j->final;
    r->n_parts = j->n_parts;
    r->tm = j->tm;
}

void cuzk_eng_final_report_emit(struct cuzk_engine *e, const struct final_report *r) {
    if (r->state == CUZK_JOB_FAILED)
        cuzk_log_warn("engine", "job %s failed: %s", r->id, r->errmsg);
    else if (r->state == CUZK_JOB_CANCELLED)
        cuzk_log_info("engine", "job %s cancelled: %s", r->id, r->errmsg);
    else
        cuzk_log_debug("engine", "job %s done in %.1f ms", r->id, r->tm.total_ms);
    const struct cuzk_job_timings *t = &r->tm;
    cuzk_eng_trace(e,
                   CUZK_TRACE_JOB " job=%s kind=%s circuit=%s state=%s partitions=%u queue_ms=%.3f "
                                  "srs_ms=%.3f mem_ms=%.3f synth_ms=%.3f gpu_ms=%.3f lock_ms=%.3f "
                                  "verify_ms=%.3f total_ms=%.3f retries=%u",
                   r->id, r->kind, r->circuit, cuzk_job_state_name(r->state), r->n_parts,
                   t->queue_ms, t->srs_ms, t->mem_ms, t->synth_ms, t->gpu_ms, t->lock_ms,
                   t->verify_ms, t->total_ms, t->retries);
}

/* ---- partition resources ------------------------------------------------------------------- */

uint64_t cuzk_eng_part_release(struct cuzk_engine *e, struct part *p) {
    uint64_t freed = p->res.bytes;
    if (p->w) cuzk_eng_witness_put(e, p->w, p->w_cap, &p->res);
    p->w = NULL;
    cuzk_reservation_release_all(&p->res);
    if (p->key) cuzk_srs_release(e->srs, p->key);
    p->key = NULL;
    return freed;
}

void cuzk_eng_job_drain(struct cuzk_engine *e, struct job *j) {
    j->kr->k->job_free(j->kr->k, j->kstate);
    j->kstate = NULL;
    job_input_free(j);
    cuzk_reservation_release_all(&j->input_res);
    pthread_mutex_lock(&e->mu);
    j->drained = 1;
    cuzk_eng_job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
}

int cuzk_eng_part_terminal_locked(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st) {
    if (p->terminal) return 0;
    p->terminal = 1;
    p->state = st;
    p->where = IN_NONE;
    struct job *j = p->job;
    j->parts_live--;
    if (--e->live_parts == 0) pthread_cond_broadcast(&e->drain_cv);
    return j->parts_live == 0;
}

void cuzk_eng_part_discard(struct cuzk_engine *e, struct part *p, enum cuzk_part_state st) {
    uint64_t freed = cuzk_eng_part_release(e, p);
    cuzk_budget_trim(freed, e->cfg.trim_threshold);
    pthread_mutex_lock(&e->mu);
    struct job *j = p->job;
    int drained = cuzk_eng_part_terminal_locked(e, p, st);
    pthread_mutex_unlock(&e->mu);
    if (drained) cuzk_eng_job_drain(e, j);
}

void cuzk_eng_grave_release(struct cuzk_engine *e, struct part *grave) {
    if (grave) cuzk_budget_wake(e->budget);
    while (grave) {
        struct part *p = grave;
        grave = p->next;
        p->next = NULL;
        cuzk_eng_part_discard(e, p, CUZK_PART_CANCELLED);
    }
}

void cuzk_eng_part_fail(struct cuzk_engine *e, struct part *p, int err, const char *msg) {
    struct part *grave = NULL;
    struct job *j = p->job;
    struct final_report rep;
    pthread_mutex_lock(&e->mu);
    int was_live = !j->final;
    cuzk_eng_job_final_locked(e, j, CUZK_JOB_FAILED, err, msg, &grave);
    if (was_live) cuzk_eng_final_report_take(j, &rep);
    pthread_mutex_unlock(&e->mu);
    if (was_live) {
        cuzk_eng_final_report_emit(e, &rep);
        cuzk_eng_job_answer(e, j);
    }
    cuzk_eng_grave_release(e, grave);
    cuzk_eng_part_discard(e, p, CUZK_PART_FAILED);
}

void cuzk_eng_jobs_fail_key(struct cuzk_engine *e, const struct kindreg *kr, const char *key_id,
                            int rc, const char *msg) {
    /* only the jobs that waited for this load: one submitted while the failures are being
     * answered asks for a load of its own */
    pthread_mutex_lock(&e->mu);
    const uint64_t before = e->job_seq;
    pthread_mutex_unlock(&e->mu);
    for (;;) {
        struct part *grave = NULL;
        struct final_report rep;
        struct job *found = NULL;
        pthread_mutex_lock(&e->mu);
        for (struct job *j = e->jobs_head; j && !found; j = j->next) {
            if (j->final || j->seq >= before || j->kr != kr || strcmp(j->key_id, key_id)) continue;
            /* only jobs still waiting for the key: none of their partitions went further */
            int waiting = 1;
            for (uint32_t i = 0; i < j->n_parts && waiting; i++)
                if (j->parts[i].where != IN_SYNTHQ && j->parts[i].where != IN_DISPATCH &&
                    !j->parts[i].terminal)
                    waiting = 0;
            if (!waiting) continue;
            char m[CUZK_ERRMSG_MAX];
            snprintf(m, sizeof m, "the key could not be loaded: %s", msg);
            cuzk_eng_job_final_locked(e, j, CUZK_JOB_FAILED, rc, m, &grave);
            cuzk_eng_final_report_take(j, &rep);
            found = j;
        }
        pthread_mutex_unlock(&e->mu);
        if (!found) return;
        cuzk_eng_final_report_emit(e, &rep);
        cuzk_eng_job_answer(e, found);
        cuzk_eng_grave_release(e, grave);
    }
}

/* ---- submit ---------------------------------------------------------------------------------- */

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

/* The digest of what a request asks to be proved beyond its kind and circuit: the input bytes
 * (or the path they will be read from), the seed and the kind's arguments. Two requests with the
 * same id must agree on it, their kind and their circuit (the priority may differ: a retry may
 * raise it). */
static void request_digest(const struct cuzk_job_request *req, uint8_t out[32]) {
    struct cuzk_sha256_ctx c;
    cuzk_sha256_init(&c);
    uint8_t tag = req->witness ? 1 : req->witness_path ? 2 : 0;
    cuzk_sha256_update(&c, &tag, 1);
    if (req->witness) {
        uint64_t n = req->witness_len;
        cuzk_sha256_update(&c, &n, sizeof n);
        cuzk_sha256_update(&c, req->witness, req->witness_len);
    } else if (req->witness_path) {
        cuzk_sha256_update(&c, req->witness_path, strlen(req->witness_path) + 1);
    }
    cuzk_sha256_update(&c, &req->seed, sizeof req->seed);
    if (req->kind_args && req->kind_args_len) {
        uint64_t n = req->kind_args_len;
        cuzk_sha256_update(&c, &n, sizeof n);
        cuzk_sha256_update(&c, req->kind_args, req->kind_args_len);
    }
    cuzk_sha256_final(&c, out);
}

/* Whether old, the live or done job of req's id, was asked for the same thing; else
 * CUZK_EEXIST with what differs in err (under e->mu). */
static int same_request(const struct job *old, const struct cuzk_job_request *req,
                        const uint8_t inputs[32], char *err, size_t errlen) {
    const char *circuit = req->circuit_id ? req->circuit_id : "";
    if (strcmp(old->kr->k->name, req->kind) || strcmp(old->circuit, circuit))
        return cuzk_errf(err, errlen, CUZK_EEXIST,
                         "request id \"%s\" names a job for %s/%s; this request is for %s/%s "
                         "(an id is for one request only)",
                         old->id, old->kr->k->name, old->circuit, req->kind, circuit);
    if (memcmp(old->inputs, inputs, 32))
        return cuzk_errf(err, errlen, CUZK_EEXIST,
                         "request id \"%s\" names a job for %s/%s with other inputs (%s); an id "
                         "is for one request only",
                         old->id, req->kind, circuit,
                         req->witness        ? "other input bytes"
                         : req->witness_path ? "another input file"
                                             : "another seed");
    return CUZK_OK;
}

static void fill_info(struct cuzk_engine *e, struct job *j, struct cuzk_submit_info *info,
                      int attached) {
    if (!info) return;
    snprintf(info->job_id, sizeof info->job_id, "%s", j->id);
    info->attached = attached;
    info->state = cuzk_eng_job_state(j);
    info->queue_position = cuzk_eng_queue_position(e, j);
}

/* The memory a partition needs, and whether the job could ever fit the budget. */
static int size_job(struct cuzk_engine *e, struct job *j, size_t input_len, char *err,
                    size_t errlen) {
    const struct cuzk_kind *k = j->kr->k;
    uint64_t proof;
    cuzk_engine_proof_mem(e, &j->sizes, &proof);
    j->w_bytes = (uint64_t)j->sizes.n_vars * sizeof(cuzk_fr);
    j->after_syn = j->w_bytes + proof;
    j->full = j->w_bytes + (j->sizes.synth_scratch > proof ? j->sizes.synth_scratch : proof);
    struct cuzk_budget_stats st;
    cuzk_budget_get_stats(e->budget, &st);
    uint64_t key = cuzk_srs_key_charge(e->srs, &j->sizes);
    /* the key stays charged while a partition runs, next to the request's inputs: if the three
     * together exceed the budget, the job could never run (and would hold up everything
     * behind it), so it is refused now */
    if (j->full > st.total || key + j->full + input_len > st.total) {
        snprintf(err, errlen,
                 "%s/%s needs %llu bytes: key %llu + one partition %llu + inputs %llu, more "
                 "than the memory budget of %llu bytes",
                 k->name, j->key_id, (unsigned long long)(key + j->full + input_len),
                 (unsigned long long)key, (unsigned long long)j->full,
                 (unsigned long long)input_len, (unsigned long long)st.total);
        return CUZK_ENOMEM;
    }
    return CUZK_OK;
}

/* The request's input while submit holds it: its handed-over block and its input_done, until
 * the job takes them or input_let_go ends them. */
struct held_input {
    void *own;
    void (*done)(void *arg);
    void *arg;
};

static void input_let_go(struct held_input *in) {
    free(in->own);
    in->own = NULL;
    void (*done)(void *) = in->done;
    in->done = NULL;
    if (done) done(in->arg);
}

/* cuzk_engine_submit's body; the job takes what it keeps of in (the caller lets go of the
 * rest). */
static int submit(struct cuzk_engine *e, const struct cuzk_job_request *req, struct held_input *in,
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
    struct kindreg *kr = cuzk_eng_find_kind(e, req->kind);
    if (!kr) {
        snprintf(err, errlen, "unknown proof kind \"%s\"", req->kind);
        return CUZK_EINVAL;
    }
    const struct cuzk_kind *k = kr->k;
    uint8_t inputs[32];
    if (rid) request_digest(req, inputs);

    /* a live or DONE job with this id: attach without doing any work, when it was asked for
     * the same thing (else its proof would answer another request) */
    pthread_mutex_lock(&e->mu);
    if (!e->accepting) {
        pthread_mutex_unlock(&e->mu);
        snprintf(err, errlen, "the engine is shutting down");
        return CUZK_ESHUTDOWN;
    }
    if (rid) {
        struct job *old = cuzk_eng_table_find(e, rid);
        if (old && (!old->final || old->final == CUZK_JOB_DONE)) {
            int rc = same_request(old, req, inputs, err, errlen);
            if (!rc) fill_info(e, old, info, 1);
            pthread_mutex_unlock(&e->mu);
            return rc;
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
    /* the input bytes: a kind that keeps pointers into them gets the job's block (the one
     * handed over, else a copy); one that parses them reads the caller's, which the engine
     * lets go of as soon as job_open returns */
    size_t in_len = req->witness ? req->witness_len : 0;
    struct cuzk_job_request kreq = *req;
    if (k->keeps_input && in_len) {
        if (in->own) {
            j->input = in->own;
            in->own = NULL;
        } else if ((j->input = malloc(in_len))) {
            memcpy(j->input, req->witness, in_len);
            kreq.witness = j->input;
        } else {
            pthread_cond_destroy(&j->cv);
            free(j);
            snprintf(err, errlen, "out of memory copying %zu input bytes", in_len);
            return CUZK_ENOMEM;
        }
        j->input_done = in->done; /* called when the job frees j->input */
        j->input_done_arg = in->arg;
        in->done = NULL;
    }
    int rc = k->job_open(k, &kreq, &j->kstate, &j->n_parts, j->key_id, err, errlen);
    input_let_go(in); /* a kind that parsed the bytes is done with them (no-op: the job's) */
    if (!rc && (j->n_parts == 0 || j->n_parts > (1u << 16))) {
        snprintf(err, errlen, "%s: %u partitions", k->name, j->n_parts);
        k->job_free(k, j->kstate);
        rc = CUZK_EINVAL;
    }
    if (rc) {
        cuzk_eng_job_free_mem(j);
        return rc;
    }
    /* a key the configuration does not let a job set up is refused before its sizes are
     * asked for (a first profile's COUNT pass takes seconds) */
    if (!(rc = cuzk_engine_setup_check(e, k, j->key_id, err, errlen)) &&
        !(rc = k->key_sizes(k, j->key_id, &j->sizes, err, errlen)))
        rc = size_job(e, j, in_len, err, errlen);
    if (!rc) {
        j->parts = calloc(j->n_parts, sizeof *j->parts);
        j->proof = calloc(j->n_parts, CUZK_PROOF_BYTES);
        const size_t n_pub = (size_t)j->n_parts * (j->sizes.n_public ? j->sizes.n_public : 1);
        j->pub = calloc(n_pub, 32);
        j->pub_fr = calloc(n_pub, sizeof *j->pub_fr);
        if (!j->parts || !j->proof || !j->pub || !j->pub_fr) rc = CUZK_ENOMEM;
    }
    if (!rc) {
        if (rid) {
            snprintf(j->id, sizeof j->id, "%s", rid);
            memcpy(j->inputs, inputs, sizeof inputs);
        } else {
            rc = make_uuid(j->id);
        }
    }
    /* the request's inputs are in memory already: charged when they fit, refused otherwise
     * (charging them past the total would hold every other job up until they are gone) */
    if (!rc && in_len &&
        cuzk_budget_try_reserve(e->budget, in_len, CUZK_MEM_OTHER, 0, &j->input_res)) {
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(e->budget, &st);
        snprintf(err, errlen,
                 "the request's %zu input bytes do not fit the memory budget now (%llu of %llu "
                 "bytes in use)",
                 in_len, (unsigned long long)st.used, (unsigned long long)st.total);
        rc = CUZK_ENOMEM;
    }
    if (rc) {
        k->job_free(k, j->kstate);
        cuzk_eng_job_free_mem(j);
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

    pthread_mutex_lock(&e->mu);
    struct job *old = rid ? cuzk_eng_table_find(e, rid) : NULL;
    int attach = old && (!old->final || old->final == CUZK_JOB_DONE);
    if (!e->accepting || attach || cuzk_eng_heap_reserve(&e->synthq, e->live_parts + j->n_parts) ||
        cuzk_eng_heap_reserve(&e->gpuq, e->live_parts + j->n_parts)) {
        /* shut down, or another submit of the same id won the race, or no memory */
        rc = !e->accepting ? CUZK_ESHUTDOWN
             : attach      ? same_request(old, req, inputs, err, errlen)
                           : CUZK_ENOMEM;
        if (attach && e->accepting && !rc) fill_info(e, old, info, 1);
        pthread_mutex_unlock(&e->mu);
        if (rc == CUZK_ESHUTDOWN) snprintf(err, errlen, "the engine is shutting down");
        k->job_free(k, j->kstate);
        cuzk_reservation_release_all(&j->input_res);
        cuzk_eng_job_free_mem(j);
        return rc;
    }
    if (old) { /* a FAILED or CANCELLED job of this id: the new one replaces it */
        cuzk_eng_table_remove(e, old);
        cuzk_eng_job_maybe_free(e, old);
    }
    j->seq = e->job_seq++;
    j->t_submit = eng_now(e);
    cuzk_eng_table_insert(e, j);
    j->next = e->jobs_head;
    if (e->jobs_head) e->jobs_head->prev = j;
    e->jobs_head = j;
    for (uint32_t i = 0; i < j->n_parts; i++) {
        struct part *p = &j->parts[i];
        p->state = CUZK_PART_QUEUED;
        p->where = IN_SYNTHQ;
        p->seq = e->item_seq++;
        cuzk_eng_heap_push(&e->synthq, p);
    }
    e->live_parts += j->n_parts;
    fill_info(e, j, info, 0);
    cuzk_eng_dispatch_poke_locked(e);
    pthread_mutex_unlock(&e->mu);
    cuzk_log_debug("engine", "job %s queued: %s/%s, %u partitions, priority %s", j->id, k->name,
                   j->circuit, j->n_parts, cuzk_priority_name(j->priority));
    return CUZK_OK;
}

int cuzk_engine_submit(struct cuzk_engine *e, const struct cuzk_job_request *req,
                       struct cuzk_submit_info *info, char *err, size_t errlen) {
    struct held_input in = {.own = req ? req->witness_owner : NULL,
                            .done = req ? req->input_done : NULL,
                            .arg = req ? req->input_done_arg : NULL};
    int rc = submit(e, req, &in, info, err, errlen);
    input_let_go(&in);
    return rc;
}

/* ---- await / cancel / state ------------------------------------------------------------------ */

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
    struct job *j = cuzk_eng_table_find(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENOTFOUND;
    }
    j->waiters++;
    int timed_out = 0;
    while (!j->answered && !timed_out) {
        if (timeout_ms == 0)
            timed_out = 1;
        else if (timeout_ms < 0)
            pthread_cond_wait(&j->cv, &e->mu);
        else
            timed_out = pthread_cond_timedwait(&j->cv, &e->mu, &dl) != 0 && !j->answered;
    }
    int rc = j->answered ? copy_result(j, out) : CUZK_ETIMEOUT;
    j->waiters--;
    cuzk_eng_job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_watch(struct cuzk_engine *e, const char *job_id, cuzk_job_watch_fn fn, void *ctx,
                      struct cuzk_job_watch **w, struct cuzk_job_result *out) {
    memset(out, 0, sizeof *out);
    *w = NULL;
    if (!job_id || !fn) return CUZK_EINVAL;
    struct cuzk_job_watch *nw = calloc(1, sizeof *nw);
    pthread_mutex_lock(&e->mu);
    struct job *j = cuzk_eng_table_find(e, job_id);
    int rc = !j            ? CUZK_ENOTFOUND
             : j->answered ? copy_result(j, out)
             : !nw         ? CUZK_ENOMEM
                           : CUZK_ETIMEOUT;
    if (rc == CUZK_ETIMEOUT) {
        *nw = (struct cuzk_job_watch){.job = j, .fn = fn, .ctx = ctx, .next = j->watches};
        j->watches = nw;
        j->waiters++;
        *w = nw;
        nw = NULL;
    }
    pthread_mutex_unlock(&e->mu);
    free(nw);
    return rc;
}

int cuzk_engine_watch_end(struct cuzk_engine *e, struct cuzk_job_watch *w,
                          struct cuzk_job_result *out) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    struct job *j = w->job;
    if (w->state == WATCH_ARMED) {
        struct cuzk_job_watch **l = &j->watches;
        while (*l != w) l = &(*l)->next;
        *l = w->next;
    } else if (w->state == WATCH_FIRING && pthread_equal(w->firer, pthread_self())) {
        w->ended = 1; /* from fn: the firer frees w after fn returns */
    } else {
        while (w->state == WATCH_FIRING) pthread_cond_wait(&e->watch_cv, &e->mu);
    }
    const int rc = j->answered ? copy_result(j, out) : CUZK_ETIMEOUT;
    const int firer_frees = w->ended;
    j->waiters--;
    cuzk_eng_job_maybe_free(e, j);
    pthread_mutex_unlock(&e->mu);
    if (!firer_frees) free(w);
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
    struct job *j = cuzk_eng_table_find(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENOTFOUND;
    }
    if (j->final) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_EINVAL;
    }
    if (was_running) *was_running = j->started;
    cuzk_eng_job_final_locked(e, j, CUZK_JOB_CANCELLED, CUZK_ECANCELLED, "cancelled by request",
                              &grave);
    struct final_report rep;
    cuzk_eng_final_report_take(j, &rep);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_final_report_emit(e, &rep);
    cuzk_eng_job_answer(e, j);
    cuzk_eng_grave_release(e, grave);
    cuzk_budget_wake(e->budget);
    return CUZK_OK;
}

int cuzk_engine_job_state(struct cuzk_engine *e, const char *job_id, enum cuzk_job_state *state,
                          uint32_t *queue_pos) {
    if (!job_id) return CUZK_EINVAL;
    pthread_mutex_lock(&e->mu);
    struct job *j = cuzk_eng_table_find(e, job_id);
    if (j) {
        if (state) *state = cuzk_eng_job_state(j);
        if (queue_pos) *queue_pos = cuzk_eng_queue_position(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return j ? CUZK_OK : CUZK_ENOTFOUND;
}
