/* The cuzk.v1 service's blocking calls (service_impl.h): SubmitProof, Prove, AwaitProof,
 * PreloadSRS and EvictSRS, each holding one of daemon.max_blocking_calls' slots until just
 * before its answer.
 *
 * DESIGN (threads and who owns a call's record, struct wait_job)
 *
 * A blocking call's record is made on the gRPC thread when its slot is reserved, and lives
 * until the call is answered (with the test hook: until its pause after the answer ends). Only
 * work holds a thread; waiting holds none:
 *   - Work ("cuzk-rpc-work", one detached thread per call, ended with its work): a submit
 *     (SubmitProof, the first half of Prove: the kind parses the input, a first profile's COUNT
 *     pass takes seconds), and PreloadSRS / EvictSRS, whose engine calls are synchronous (a
 *     preload may set a key up for minutes, and the engine has no asynchronous key load to
 *     call back from). The thread owns the record and answers the call, except a Prove's,
 *     which it parks once its job is queued.
 *   - A parked wait (AwaitProof on the gRPC thread, Prove after its submit): the record is on
 *     svc->parked with a watch on its job (cuzk_engine_watch) and, for an AwaitProof with a
 *     timeout, on the timer's list. Three events may end it, each from its own thread: the
 *     job becoming final (the watch's function, on the engine thread that made it final), the
 *     client leaving (cuzk_rpc_call_on_cancel's function, on the gRPC thread), its deadline
 *     (the timer). Whichever takes it off svc->parked first under svc->mu (claim_locked) owns
 *     the record from then on: it ends the watch (which waits for a watch function still
 *     running elsewhere), answers the call and frees the record; the others find it gone. The
 *     watch's function finds its record through its watch; the client's leaving and the timer
 *     find theirs on svc->parked and the timer's list, under svc->mu, so none touches a record
 *     that another has freed (a departure looks its call up in svc->parked: a scan of at most
 *     max_blocking_calls records, microseconds at the default 1,024). A record whose job became
 * final, or whose client left, before it was parked is claimed by the parking thread itself (the
 * flags are read where it parks).
 *   - The timer ("cuzk-rpc-timer", one for the service): a list of records by due time, the
 *     deadlines of AwaitProof's timeout_ms and the ends of the test hook's pauses; it sleeps
 *     until the first is due.
 * Locks: svc->mu is a leaf; nothing is called into the engine or the transport while it is
 * held. A watch's function takes svc->mu only to claim its record; the threads that end a
 * watch hold no lock, so an end that waits for a running function cannot deadlock. */
#define _GNU_SOURCE
#include "server/service_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "util/clock.h"
#include "util/log.h"

/* ---- slots and records ------------------------------------------------------------------- */

static void release_slot(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    s->waiting--;
    pthread_mutex_unlock(&s->mu);
}

/* One record fewer; the shutdown waits for none. */
static void record_gone(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    if (--s->records == 0) pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->mu);
}

/* Gives w's blocking-call slot back, once: called before each answer. */
static void answer_first(struct wait_job *w) {
    if (!w->slot) return;
    w->slot = 0;
    release_slot(w->svc);
}

/* The answers of a blocking call: its slot is free before the client can see the answer. */
#define W_FAIL(w, ...) (answer_first(w), cuzk_svc_fail((w)->call, __VA_ARGS__))
#define W_REPLY(w, m) (answer_first(w), cuzk_svc_reply((w)->call, (m)))

/* What is left of the request once its job is queued (the engine counts down its bytes), or
 * when it never reached the engine (its count ends here). */
static void drop_input(struct wait_job *w) {
    cuzk_wire_msg_free(&w->msg);
    cuzk_svc_input_done(w->ticket);
    w->ticket = NULL;
}

static void record_free(struct wait_job *w) {
    struct cuzk_service *s = w->svc;
    answer_first(w); /* (every path answered already) */
    free(w);
    record_gone(s);
}

static void timer_add_locked(struct cuzk_service *s, struct wait_job *w);

/* The end of an answered call's record: freed, or with the test hook (service.h) kept on the
 * timer for its pause first, so that a slot not given back before the answer would be held
 * through the pause. */
static void record_done(struct wait_job *w) {
    struct cuzk_service *s = w->svc;
    drop_input(w);
    if (!s->test_pause_ms) {
        record_free(w);
        return;
    }
    pthread_mutex_lock(&s->mu);
    w->lingering = 1;
    w->due = cuzk_clock_ms() + (double)s->test_pause_ms;
    timer_add_locked(s, w);
    pthread_mutex_unlock(&s->mu);
}

/* Reserves a waiting slot: CUZK_RPC_OK, or UNAVAILABLE / RESOURCE_EXHAUSTED (call failed). */
int cuzk_svc_reserve_wait(struct cuzk_service *s, struct cuzk_rpc_call *call, void *ticket) {
    pthread_mutex_lock(&s->mu);
    int st = s->stopping                     ? CUZK_RPC_UNAVAILABLE
             : s->waiting >= s->max_blocking ? CUZK_RPC_RESOURCE_EXHAUSTED
                                             : CUZK_RPC_OK;
    if (st == CUZK_RPC_OK) s->waiting++, s->records++;
    int64_t max = s->max_blocking, now = s->waiting;
    pthread_mutex_unlock(&s->mu);
    if (st == CUZK_RPC_OK)
        cuzk_log_debug("rpc", "%s: waiting (%lld of %lld blocking calls)",
                       cuzk_rpc_call_method(call), (long long)now, (long long)max);
    if (st != CUZK_RPC_OK) cuzk_svc_input_done(ticket); /* before the client sees the answer */
    if (st == CUZK_RPC_UNAVAILABLE) cuzk_svc_fail(call, st, "the daemon is shutting down");
    if (st == CUZK_RPC_RESOURCE_EXHAUSTED)
        cuzk_svc_fail(call, st, "%lld calls are waiting already (daemon.max_blocking_calls)",
                      (long long)max);
    return st;
}

struct wait_job *cuzk_svc_new_wait(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                   enum wait_op op, void *ticket) {
    struct wait_job *w = calloc(1, sizeof *w);
    if (!w) {
        release_slot(s);
        cuzk_svc_input_done(ticket);
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        record_gone(s);
        return NULL;
    }
    w->slot = 1;
    w->svc = s;
    w->call = call;
    w->op = op;
    return w;
}

/* ---- parked waits ------------------------------------------------------------------------ */

/* The timer's list, ordered by due time (equal times in arrival order). */
static void timer_add_locked(struct cuzk_service *s, struct wait_job *w) {
    struct wait_job *at = s->timer_tail;
    while (at && at->due > w->due) at = at->tprev;
    w->tprev = at;
    w->tnext = at ? at->tnext : s->timer_head;
    if (w->tnext)
        w->tnext->tprev = w;
    else
        s->timer_tail = w;
    if (at)
        at->tnext = w;
    else
        s->timer_head = w;
    w->timed = 1;
    if (s->timer_head == w) pthread_cond_signal(&s->timer_cv);
}

static void timer_remove_locked(struct cuzk_service *s, struct wait_job *w) {
    if (!w->timed) return;
    if (w->tprev)
        w->tprev->tnext = w->tnext;
    else
        s->timer_head = w->tnext;
    if (w->tnext)
        w->tnext->tprev = w->tprev;
    else
        s->timer_tail = w->tprev;
    w->tprev = w->tnext = NULL;
    w->timed = 0;
}

/* Takes a parked record for its answerer: 1 for the first caller, 0 for any other (DESIGN). */
static int claim_locked(struct cuzk_service *s, struct wait_job *w) {
    if (!w->parked || w->claimed) return 0;
    w->claimed = 1;
    if (w->pprev)
        w->pprev->pnext = w->pnext;
    else
        s->parked = w->pnext;
    if (w->pnext) w->pnext->pprev = w->pprev;
    w->pprev = w->pnext = NULL;
    timer_remove_locked(s, w);
    return 1;
}

/* For a departed call w: the Prove and AwaitProof calls still parked on its job, when
 * daemon.cancel_on_disconnect asks (a departed Prove cancels a job nobody else waits for). */
static unsigned others_locked(const struct cuzk_service *s, const struct wait_job *w) {
    unsigned n = 0;
    if (s->cancel_on_disconnect && w->op == WAIT_PROVE)
        for (const struct wait_job *x = s->parked; x; x = x->pnext)
            n += !strcmp(x->job_id, w->job_id);
    return n;
}

/* Answers a wait with the job's result (rc and r as cuzk_engine_watch_end returns them). */
static void answer_result(struct wait_job *w, int rc, struct cuzk_job_result *r) {
    if (rc == CUZK_ENOTFOUND) {
        W_FAIL(w, CUZK_RPC_NOT_FOUND, "job not found: %s", w->job_id);
    } else if (rc != CUZK_ETIMEOUT && r->state == CUZK_JOB_NONE) {
        W_FAIL(w, cuzk_svc_status_of(rc), "%s: %s", w->job_id, cuzk_strerror(rc));
    } else {
        Cuzk__V1__AwaitProofResponse res = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
        cuzk_svc_fill_result(&res, w->job_id, rc, r);
        cuzk_log_debug("rpc", "%s %s: status %d", cuzk_rpc_call_method(w->call), w->job_id,
                       (int)res.status);
        if (w->op == WAIT_PROVE) {
            Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
            pr.result = &res;
            W_REPLY(w, &pr.base);
        } else {
            W_REPLY(w, &res.base);
        }
    }
    cuzk_job_result_free(r);
}

/* A claimed wait whose job is final or whose deadline passed: its answer is what the watch's
 * end says (the result, or TIMEOUT while the job goes on). */
static void answer_watch(struct wait_job *w) {
    struct cuzk_job_result r;
    const int rc = cuzk_engine_watch_end(w->svc->engine, w->watch, &r);
    w->watch = NULL;
    answer_result(w, rc, &r);
    record_done(w);
}

/* A claimed wait whose client left. `others` waits of the job remain. */
static void answer_departed(struct wait_job *w, unsigned others) {
    struct cuzk_service *s = w->svc;
    struct cuzk_job_result r;
    const int rc = cuzk_engine_watch_end(s->engine, w->watch, &r);
    w->watch = NULL;
    if (rc != CUZK_ETIMEOUT) { /* the job became final meanwhile: its answer, to nobody */
        answer_result(w, rc, &r);
        record_done(w);
        return;
    }
    /* a departed Prove that was the job's last waiting caller: with
     * daemon.cancel_on_disconnect its job goes too (a retry then starts a new one) */
    if (s->cancel_on_disconnect && w->op == WAIT_PROVE && !others) {
        const int crc = cuzk_engine_cancel(s->engine, w->job_id, NULL);
        cuzk_log_info("rpc",
                      "Prove %s: the client left; its job is cancelled "
                      "(daemon.cancel_on_disconnect)%s",
                      w->job_id, crc ? ": it had ended" : "");
    } else {
        cuzk_log_debug("rpc", "%s %s: the client left; the job goes on",
                       cuzk_rpc_call_method(w->call), w->job_id);
    }
    answer_first(w);
    cuzk_rpc_call_finish(w->call, CUZK_RPC_CANCELLED, "the client cancelled", NULL, 0);
    record_done(w);
}

/* The watch's function: the job is final (on the engine thread that made it so). */
static void on_final(void *ctx, struct cuzk_job_watch *watch) {
    (void)watch;
    struct wait_job *w = ctx;
    struct cuzk_service *s = w->svc;
    pthread_mutex_lock(&s->mu);
    w->fired = 1; /* for a record not parked yet: its parker answers it */
    const int mine = claim_locked(s, w);
    pthread_mutex_unlock(&s->mu);
    if (mine) answer_watch(w);
}

/* The transport's notification: call's client left (on the gRPC thread). */
static void on_gone(void *ctx, struct cuzk_rpc_call *call) {
    struct cuzk_service *s = ctx;
    unsigned others = 0;
    pthread_mutex_lock(&s->mu);
    struct wait_job *w = s->parked;
    while (w && w->call != call) w = w->pnext;
    const int mine = w && claim_locked(s, w);
    if (mine) others = others_locked(s, w);
    pthread_mutex_unlock(&s->mu);
    if (mine) answer_departed(w, others);
}

void cuzk_svc_park(struct wait_job *w) {
    struct cuzk_service *s = w->svc;
    struct cuzk_job_result r;
    struct cuzk_job_watch *watch;
    const int rc = cuzk_engine_watch(s->engine, w->job_id, on_final, w, &watch, &r);
    if (!watch) { /* final already, unknown, or no memory: answered now */
        answer_result(w, rc, &r);
        record_done(w);
        return;
    }
    cuzk_rpc_call_on_cancel(w->call, on_gone, s);
    unsigned others = 0;
    pthread_mutex_lock(&s->mu);
    w->watch = watch;
    w->parked = 1;
    w->pnext = s->parked;
    if (s->parked) s->parked->pprev = w;
    s->parked = w;
    if (w->timeout_ms > 0) {
        w->due = cuzk_clock_ms() + (double)w->timeout_ms;
        timer_add_locked(s, w);
    }
    /* what happened before the record was parked is answered here */
    const int fired = w->fired, gone = !fired && cuzk_rpc_call_cancelled(w->call);
    const int mine = (fired || gone) && claim_locked(s, w);
    if (mine && gone) others = others_locked(s, w);
    pthread_mutex_unlock(&s->mu);
    if (mine && fired) answer_watch(w);
    if (mine && gone) answer_departed(w, others);
}

/* ---- the timer --------------------------------------------------------------------------- */

static void *timer_main(void *arg) {
    struct cuzk_service *s = arg;
    pthread_setname_np(pthread_self(), "cuzk-rpc-timer");
    pthread_mutex_lock(&s->mu);
    for (;;) {
        struct wait_job *w = s->timer_head;
        if (!w) {
            if (s->timer_quit) break;
            pthread_cond_wait(&s->timer_cv, &s->mu);
            continue;
        }
        const double now = cuzk_clock_ms();
        if (w->due > now) { /* (a far deadline is slept towards an hour at a time) */
            const double ms = w->due - now < 3600e3 ? w->due - now : 3600e3;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            const long long ns = ts.tv_nsec + (long long)(ms * 1e6) + 1;
            ts.tv_sec += ns / 1000000000;
            ts.tv_nsec = ns % 1000000000;
            pthread_cond_timedwait(&s->timer_cv, &s->mu, &ts);
            continue;
        }
        if (w->lingering) { /* the test hook's pause is over */
            timer_remove_locked(s, w);
            pthread_mutex_unlock(&s->mu);
            record_free(w);
        } else { /* an AwaitProof's deadline: timed records are parked, and nobody's yet */
            claim_locked(s, w);
            pthread_mutex_unlock(&s->mu);
            answer_watch(w);
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int cuzk_svc_timer_start(struct cuzk_service *s) {
    if (pthread_create(&s->timer, NULL, timer_main, s)) return CUZK_ENOMEM;
    s->timer_started = 1;
    return CUZK_OK;
}

/* Ends the timer once every record is gone (cuzk_service_stop waited for that). */
void cuzk_svc_timer_stop(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    s->timer_quit = 1;
    pthread_cond_signal(&s->timer_cv);
    const int started = s->timer_started;
    s->timer_started = 0;
    pthread_mutex_unlock(&s->mu);
    if (started) pthread_join(s->timer, NULL);
}

/* ---- work threads ------------------------------------------------------------------------ */

/* SubmitProof, and the first half of Prove: the kind's parsing and the key's sizes (a COUNT
 * pass for a profile not seen before) run here, never on the gRPC thread. Returns 1 when the
 * job is queued (its id in w->job_id), 0 after answering the call. */
static int run_submit(struct wait_job *w, const Cuzk__V1__SubmitProofRequest *m) {
    struct cuzk_submit_info info;
    char why[512] = "";
    int st = cuzk_svc_submit(w->svc, m, &w->msg, &w->ticket, &info, why, sizeof why);
    if (st != CUZK_RPC_OK) {
        drop_input(w); /* its bytes are given back before the client sees the refusal */
        W_FAIL(w, st, "%s", why);
        return 0;
    }
    snprintf(w->job_id, sizeof w->job_id, "%s", info.job_id);
    if (w->op == WAIT_SUBMIT) {
        cuzk_log_debug("rpc", "SubmitProof %s: %s at queue position %u", info.job_id,
                       info.attached ? "attached" : "queued", info.queue_position);
        Cuzk__V1__SubmitProofResponse res = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
        res.job_id = info.job_id;
        res.queue_position = info.queue_position;
        W_REPLY(w, &res.base);
    }
    return 1;
}

static void run_preload(struct wait_job *w) {
    int already = 0;
    uint64_t ms = 0;
    char err[256] = "";
    int rc =
        cuzk_engine_preload(w->svc->engine, w->kind, w->circuit, &already, &ms, err, sizeof err);
    if (rc != CUZK_OK) {
        W_FAIL(w, cuzk_svc_status_of(rc), "%s%s:%s: %s", w->alias, w->kind, w->circuit,
               err[0] ? err : cuzk_strerror(rc));
        return;
    }
    cuzk_log_info("rpc", "PreloadSRS %s%s:%s: %s", w->alias, w->kind, w->circuit,
                  already ? "already loaded" : "loaded");
    Cuzk__V1__PreloadSrsResponse res = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    res.already_loaded = already;
    res.load_time_ms = already ? 0 : ms;
    W_REPLY(w, &res.base);
}

static void run_evict(struct wait_job *w) {
    uint64_t freed = 0;
    int rc = cuzk_engine_evict(w->svc->engine, w->kind, w->circuit, &freed);
    if (rc != CUZK_OK && rc != CUZK_ENOTFOUND) {
        W_FAIL(w, cuzk_svc_status_of(rc), "%s%s:%s: %s", w->alias, w->kind, w->circuit,
               rc == CUZK_EBUSY ? "the key is in use by a job" : cuzk_strerror(rc));
        return;
    }
    cuzk_log_info("rpc", "EvictSRS %s%s:%s: %s", w->alias, w->kind, w->circuit,
                  rc == CUZK_OK ? "evicted" : "was not loaded");
    Cuzk__V1__EvictSrsResponse res = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    res.was_loaded = rc == CUZK_OK;
    res.freed_bytes = rc == CUZK_OK ? freed : 0;
    W_REPLY(w, &res.base);
}

static void *work_thread(void *arg) {
    struct wait_job *w = arg;
    pthread_setname_np(pthread_self(), "cuzk-rpc-work");
    switch (w->op) {
    case WAIT_PROVE:
        if (run_submit(w, ((const Cuzk__V1__ProveRequest *)w->msg.m)->submit)) {
            drop_input(w); /* before the wait for the proof */
            cuzk_svc_park(w);
            return NULL; /* the record is the parked wait's */
        }
        break;
    case WAIT_SUBMIT: run_submit(w, (const Cuzk__V1__SubmitProofRequest *)w->msg.m); break;
    case WAIT_PRELOAD: run_preload(w); break;
    case WAIT_EVICT: run_evict(w); break;
    case WAIT_AWAIT: break; /* (parked by its handler, never here) */
    }
    record_done(w);
    return NULL;
}

void cuzk_svc_start_work(struct wait_job *w) {
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, SERVICE_WORK_STACK);
    int e = pthread_create(&t, &attr, work_thread, w);
    pthread_attr_destroy(&attr);
    if (e) {
        W_FAIL(w, CUZK_RPC_RESOURCE_EXHAUSTED, "cannot start a thread for the call");
        record_done(w);
    }
}
