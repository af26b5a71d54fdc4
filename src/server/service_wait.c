/* The cuzk.v1 service's blocking calls (service_impl.h): SubmitProof, Prove, AwaitProof,
 * PreloadSRS and EvictSRS each wait on a thread of their own, holding one of
 * daemon.max_blocking_calls' slots until just before their answer. */
#define _GNU_SOURCE
#include "server/service_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "util/log.h"
#include "util/clock.h"

/* ---- blocking calls ---------------------------------------------------------------------- */

static void release_slot(struct cuzk_service *s);
static void thread_done(struct cuzk_service *s);

/* Gives w's blocking-call slot back, once: called before each answer of a wait thread. */
static void answer_first(struct wait_job *w) {
    if (!w->slot) return;
    w->slot = 0;
    release_slot(w->svc);
}

/* The answers of a wait thread: its slot is free before the client can see the answer. */
#define W_FAIL(w, ...) (answer_first(w), cuzk_svc_fail((w)->call, __VA_ARGS__))
#define W_REPLY(w, m) (answer_first(w), cuzk_svc_reply((w)->call, (m)))

/* Waits for the job in slices until it is final, the timeout passes (CUZK_ETIMEOUT) or the
 * client leaves (CUZK_ECANCELLED). */
static int wait_result(struct wait_job *w, struct cuzk_job_result *out) {
    double deadline = w->timeout_ms > 0 ? cuzk_clock_ms() + (double)w->timeout_ms : 0;
    for (;;) {
        int64_t slice = SERVICE_WAIT_SLICE_MS;
        if (deadline) {
            double left = deadline - cuzk_clock_ms();
            if (left < slice) slice = left > 0 ? (int64_t)left : 0;
        }
        memset(out, 0, sizeof *out);
        int rc = cuzk_engine_await(w->svc->engine, w->job_id, slice, out);
        if (rc != CUZK_ETIMEOUT) return rc;
        if (cuzk_rpc_call_cancelled(w->call)) return CUZK_ECANCELLED;
        if (deadline && cuzk_clock_ms() >= deadline) return CUZK_ETIMEOUT;
    }
}

/* Counts w's wait for its job (+1 at the start, -1 at the end); returns the count left. Only
 * kept with daemon.cancel_on_disconnect. */
static unsigned count_waiter(struct wait_job *w, int delta) {
    struct cuzk_service *s = w->svc;
    if (!s->cancel_on_disconnect) return 0;
    pthread_mutex_lock(&s->mu);
    struct job_waiters **l = &s->job_waiters;
    while (*l && strcmp((*l)->job_id, w->job_id)) l = &(*l)->next;
    if (!*l && delta > 0 && (*l = calloc(1, sizeof **l)))
        snprintf((*l)->job_id, sizeof(*l)->job_id, "%s", w->job_id);
    unsigned left = 0;
    if (*l) {
        if (delta > 0) (*l)->n++;
        if (delta < 0 && (*l)->n) (*l)->n--;
        left = (*l)->n;
        if (!left) {
            struct job_waiters *x = *l;
            *l = x->next;
            free(x);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return left;
}

static void run_await(struct wait_job *w) {
    struct cuzk_job_result r;
    count_waiter(w, +1);
    int rc = wait_result(w, &r);
    const unsigned others = count_waiter(w, -1);
    if (rc == CUZK_ECANCELLED && r.state == CUZK_JOB_NONE) {
        /* a departed Prove that was the job's last waiting caller: with
         * daemon.cancel_on_disconnect its job goes too (a retry then starts a new one) */
        const int cancel = w->svc->cancel_on_disconnect && w->op == WAIT_PROVE && !others;
        if (cancel) {
            int running = 0;
            const int crc = cuzk_engine_cancel(w->svc->engine, w->job_id, &running);
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
        return;
    }
    if (rc == CUZK_ENOTFOUND) {
        W_FAIL(w, CUZK_RPC_NOT_FOUND, "job not found: %s", w->job_id);
        return;
    }
    if (rc != CUZK_ETIMEOUT && r.state == CUZK_JOB_NONE) {
        W_FAIL(w, cuzk_svc_status_of(rc), "%s: %s", w->job_id, cuzk_strerror(rc));
        return;
    }
    Cuzk__V1__AwaitProofResponse res = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    cuzk_svc_fill_result(&res, w->job_id, rc, &r);
    cuzk_log_debug("rpc", "%s %s: status %d", cuzk_rpc_call_method(w->call), w->job_id,
                   (int)res.status);
    if (w->op == WAIT_PROVE) {
        Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
        pr.result = &res;
        W_REPLY(w, &pr.base);
    } else {
        W_REPLY(w, &res.base);
    }
    cuzk_job_result_free(&r);
}

/* SubmitProof, and the first half of Prove: the kind's parsing and the key's sizes (a COUNT
 * pass for a profile not seen before) run here, never on the gRPC thread. Returns 1 when the
 * job is queued (its id in w->job_id), 0 after answering the call. */
static int run_submit(struct wait_job *w, const Cuzk__V1__SubmitProofRequest *m) {
    struct cuzk_submit_info info;
    char why[512] = "";
    int st = cuzk_svc_submit(w->svc, m, &w->msg, &info, why, sizeof why);
    if (st != CUZK_RPC_OK) {
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

/* The request's bytes are the engine's once its job is queued: freed, uncounted. */
static void drop_input(struct wait_job *w) {
    cuzk_wire_msg_free(&w->msg);
    if (w->held) {
        pthread_mutex_lock(&w->svc->mu);
        w->svc->input_held -= w->held;
        pthread_mutex_unlock(&w->svc->mu);
    }
    w->held = 0;
}

static void wait_free(struct wait_job *w) {
    drop_input(w);
    free(w);
}

static void *wait_thread(void *arg) {
    struct wait_job *w = arg;
    struct cuzk_service *s = w->svc;
    pthread_setname_np(pthread_self(), "cuzk-rpc-wait");
    switch (w->op) {
    case WAIT_SUBMIT: run_submit(w, (const Cuzk__V1__SubmitProofRequest *)w->msg.m); break;
    case WAIT_PROVE:
        if (run_submit(w, ((const Cuzk__V1__ProveRequest *)w->msg.m)->submit)) {
            drop_input(w); /* before the wait for the proof */
            run_await(w);
        }
        break;
    case WAIT_AWAIT: run_await(w); break;
    case WAIT_PRELOAD: run_preload(w); break;
    case WAIT_EVICT: run_evict(w); break;
    }
    /* the test hook (service.h): the call is answered; a slot not given back before the
     * answer would be held through this pause */
    if (s->test_pause_ms) {
        struct timespec ts = {s->test_pause_ms / 1000, (long)(s->test_pause_ms % 1000) * 1000000};
        while (nanosleep(&ts, &ts) == -1 && errno == EINTR) continue;
    }
    answer_first(w); /* (every path answered already) */
    wait_free(w);
    thread_done(s);
    return NULL;
}

/* Reserves a waiting slot: CUZK_RPC_OK, or UNAVAILABLE / RESOURCE_EXHAUSTED (call failed). */
int cuzk_svc_reserve_wait(struct cuzk_service *s, struct cuzk_rpc_call *call) {
    pthread_mutex_lock(&s->mu);
    int st = s->stopping                     ? CUZK_RPC_UNAVAILABLE
             : s->waiting >= s->max_blocking ? CUZK_RPC_RESOURCE_EXHAUSTED
                                             : CUZK_RPC_OK;
    if (st == CUZK_RPC_OK) s->waiting++, s->threads++;
    int64_t max = s->max_blocking, now = s->waiting;
    pthread_mutex_unlock(&s->mu);
    if (st == CUZK_RPC_OK)
        cuzk_log_debug("rpc", "%s: waiting (%lld of %lld blocking calls)",
                       cuzk_rpc_call_method(call), (long long)now, (long long)max);
    if (st == CUZK_RPC_UNAVAILABLE) cuzk_svc_fail(call, st, "the daemon is shutting down");
    if (st == CUZK_RPC_RESOURCE_EXHAUSTED)
        cuzk_svc_fail(call, st, "%lld calls are waiting already (daemon.max_blocking_calls)",
                      (long long)max);
    return st;
}

static void release_slot(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    s->waiting--;
    pthread_mutex_unlock(&s->mu);
}

/* The end of a reservation's thread (or of a reservation that never got one). */
static void thread_done(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    if (--s->threads == 0) pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->mu);
}

/* Starts w on its own thread (the slot is reserved). On failure the call is answered. */
void cuzk_svc_start_wait(struct wait_job *w) {
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, SERVICE_WAIT_STACK);
    int e = pthread_create(&t, &attr, wait_thread, w);
    pthread_attr_destroy(&attr);
    if (e) {
        struct cuzk_service *s = w->svc;
        W_FAIL(w, CUZK_RPC_RESOURCE_EXHAUSTED, "cannot start a thread for the call");
        wait_free(w);
        thread_done(s);
    }
}

struct wait_job *cuzk_svc_new_wait(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                   enum wait_op op) {
    struct wait_job *w = calloc(1, sizeof *w);
    if (!w) {
        release_slot(s);
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        thread_done(s);
        return NULL;
    }
    w->slot = 1;
    w->svc = s;
    w->call = call;
    w->op = op;
    return w;
}
