/* cuzk.v1.ProvingEngine on the engine (see service.h for the mapping and the DESIGN). */
#define _GNU_SOURCE
#include "server/service.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/v1/proving.pb-c.h"
#include "cuzk/error.h"
#include "engine/kind.h"
#include "gpu/gpu.h"
#include "kinds/fc_kind.h"
#include "server/metrics.h"
#include "server/wire.h"
#include "util/log.h"

#define SERVICE_WAIT_SLICE_MS 200 /* how often a waiting call checks for its client leaving */
#define SERVICE_WAIT_STACK (256 << 10)

/* The proto's ProofKind names (index = value), for messages; which engine kind a value selects
 * is the kind's own (struct cuzk_kind.proof_kind). */
static const char *const proof_kind_names[] = {"PROOF_KIND_UNSPECIFIED", "POREP_SEAL_COMMIT",
                                               "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION",
                                               "WINNING_POST"};

struct device_info {
    int ordinal; /* CUDA ordinal, -1 when not a GPU */
    uint64_t vram_total;
};

struct cuzk_service {
    struct cuzk_engine *engine;
    int64_t max_blocking;
    struct device_info *devices;
    size_t n_devices;
    char (*kinds)[CUZK_NAME_MAX]; /* the engine's kinds when the service was created */
    size_t n_kinds;
    uint64_t max_input;
    pthread_mutex_t mu; /* guards the fields below */
    pthread_cond_t idle;
    int64_t waiting;     /* blocking calls holding a slot (daemon.max_blocking_calls): given
                          * back before the call is answered, so that a client that has its
                          * answer finds the slot free for its next call */
    int64_t threads;     /* wait threads alive (the shutdown waits until there are none) */
    uint64_t input_held; /* request bytes of submits not handed to the engine yet */
    int stopping;
};

/* ---- helpers ----------------------------------------------------------------------------- */

static const char *status_name(int st) {
    switch (st) {
    case CUZK_RPC_OK: return "OK";
    case CUZK_RPC_CANCELLED: return "CANCELLED";
    case CUZK_RPC_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case CUZK_RPC_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case CUZK_RPC_NOT_FOUND: return "NOT_FOUND";
    case CUZK_RPC_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case CUZK_RPC_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case CUZK_RPC_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case CUZK_RPC_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case CUZK_RPC_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case CUZK_RPC_UNAVAILABLE: return "UNAVAILABLE";
    default: return "INTERNAL";
    }
}

/* The gRPC status for an engine error (the last column of CUZK_ERRORS). */
static int status_of(int err) {
    switch (err) {
#define CUZK_ERR_RPC_(name, value, text, grpc)                                                     \
    case name: return CUZK_RPC_##grpc;
        CUZK_ERRORS(CUZK_ERR_RPC_)
#undef CUZK_ERR_RPC_
    default: return CUZK_RPC_INTERNAL;
    }
}

static void fail(struct cuzk_rpc_call *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct cuzk_rpc_call *call, int status, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cuzk_log_info("rpc", "%s: %s: %s", cuzk_rpc_call_method(call), status_name(status), msg);
    cuzk_rpc_call_finish(call, status, msg, NULL, 0);
}

static void reply(struct cuzk_rpc_call *call, const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    protobuf_c_message_pack(m, buf);
    cuzk_rpc_call_finish(call, CUZK_RPC_OK, NULL, buf, n);
    free(buf);
}

int64_t cuzk_service_waiting(const struct cuzk_service *s) {
    struct cuzk_service *m = (struct cuzk_service *)s; /* the mutex only */
    pthread_mutex_lock(&m->mu);
    int64_t n = m->waiting;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static int stopping(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    int st = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return st;
}

static uint64_t ms_u64(double ms) { return ms > 0 ? (uint64_t)(ms + 0.5) : 0; }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- requests ---------------------------------------------------------------------------- */

/* An engine request built from a SubmitProofRequest; owns the strings it points to. */
struct built_request {
    struct cuzk_job_request req;
    char kind[CUZK_NAME_MAX];
    char circuit[CUZK_NAME_MAX * 2];
    uint8_t *joined;        /* Filecoin kinds: the vanilla_proofs entries concatenated */
    struct cuzk_fc_args fc; /* Filecoin kinds: the request's other fields */
};

/* The engine kind that proof_kind selects (0: none). */
static const struct cuzk_kind *kind_for(const struct cuzk_service *s, int proof_kind) {
    for (size_t i = 0; i < s->n_kinds; i++) {
        const struct cuzk_kind *k = cuzk_engine_kind(s->engine, s->kinds[i]);
        if (k && k->proof_kind == proof_kind) return k;
    }
    return NULL;
}

/* Fills b from m. Returns CUZK_RPC_OK or a status with the reason in why. */
static int build_request(const struct cuzk_service *s, const Cuzk__V1__SubmitProofRequest *m,
                         struct built_request *b, char *why, size_t n) {
    memset(b, 0, sizeof *b);
    struct cuzk_job_request *r = &b->req;
    r->request_id = m->request_id;
    switch ((int)m->priority) {
    case CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED: r->priority = CUZK_PRIORITY_DEFAULT; break;
    case CUZK__V1__PRIORITY__LOW: r->priority = CUZK_PRIORITY_LOW; break;
    case CUZK__V1__PRIORITY__NORMAL: r->priority = CUZK_PRIORITY_NORMAL; break;
    case CUZK__V1__PRIORITY__HIGH: r->priority = CUZK_PRIORITY_HIGH; break;
    case CUZK__V1__PRIORITY__CRITICAL: r->priority = CUZK_PRIORITY_CRITICAL; break;
    default:
        snprintf(why, n, "invalid priority: %d", (int)m->priority);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    int pk = (int)m->proof_kind;
    if (pk == CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED) {
        /* an engine kind named directly: vanilla_proofs = ["<kind>:<circuit_id>"] */
        if (m->n_vanilla_proofs != 1) {
            snprintf(why, n,
                     "invalid proof_kind: 0 (PROOF_KIND_UNSPECIFIED needs vanilla_proofs = "
                     "[\"<kind>:<circuit_id>\"], e.g. \"snarkjs:mulchain\")");
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        const ProtobufCBinaryData *sel = &m->vanilla_proofs[0];
        const uint8_t *colon = sel->len ? memchr(sel->data, ':', sel->len) : NULL;
        size_t kl = colon ? (size_t)(colon - sel->data) : 0;
        size_t cl = colon ? sel->len - kl - 1 : 0;
        int ctl = 0;
        for (size_t i = 0; i < sel->len; i++) ctl |= sel->data[i] < 0x20 || sel->data[i] == 0x7f;
        if (!colon || kl == 0 || kl >= sizeof b->kind || cl >= sizeof b->circuit || ctl) {
            snprintf(why, n,
                     "vanilla_proofs[0] must be \"<kind>:<circuit_id>\" (kind and circuit "
                     "id under %d bytes, no control characters)",
                     CUZK_NAME_MAX);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        memcpy(b->kind, sel->data, kl);
        memcpy(b->circuit, colon + 1, cl);
        const struct cuzk_kind *named = cuzk_engine_kind(s->engine, b->kind);
        if (named && named->proof_kind > 0 &&
            named->proof_kind < (int)(sizeof proof_kind_names / sizeof proof_kind_names[0])) {
            snprintf(why, n, "kind %s is requested with proof_kind %s", b->kind,
                     proof_kind_names[named->proof_kind]);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        r->kind = b->kind;
        r->circuit_id = b->circuit;
        r->witness = m->vanilla_proof.len ? m->vanilla_proof.data : NULL;
        r->witness_len = m->vanilla_proof.len;
        r->seed = m->sector_number;
        return CUZK_RPC_OK;
    }
    if (pk < 0 || pk >= (int)(sizeof proof_kind_names / sizeof proof_kind_names[0])) {
        snprintf(why, n, "invalid proof_kind: %d", pk);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    const struct cuzk_kind *fk = kind_for(s, pk);
    if (!fk) {
        snprintf(why, n, "proof kind %s is not available in this build of cuzk",
                 proof_kind_names[pk]);
        return CUZK_RPC_UNIMPLEMENTED;
    }
    /* A Filecoin kind's input is a vanilla-proof file (kinds/fc_kind.h): vanilla_proof, or
     * the vanilla_proofs entries concatenated in order. */
    snprintf(b->kind, sizeof b->kind, "%s", fk->name);
    r->kind = b->kind;
    r->circuit_id = NULL;
    if (m->randomness.len && m->randomness.len != 32) {
        snprintf(why, n, "randomness is %zu bytes; it is 32 or absent", m->randomness.len);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    b->fc.registered_proof = m->registered_proof;
    b->fc.sector_size = m->sector_size;
    b->fc.sector_number = m->sector_number;
    b->fc.miner_id = m->miner_id;
    b->fc.partition_index = m->partition_index;
    b->fc.has_randomness = m->randomness.len == 32;
    if (b->fc.has_randomness) memcpy(b->fc.randomness, m->randomness.data, 32);
    const struct {
        const ProtobufCBinaryData *f;
        const char *name;
        uint8_t *to;
        uint32_t bit;
    } comm[3] = {{&m->comm_r_old, "comm_r_old", b->fc.comm_r_old, CUZK_FC_HAS_COMM_R_OLD},
                 {&m->comm_r_new, "comm_r_new", b->fc.comm_r_new, CUZK_FC_HAS_COMM_R_NEW},
                 {&m->comm_d_new, "comm_d_new", b->fc.comm_d_new, CUZK_FC_HAS_COMM_D_NEW}};
    for (int i = 0; i < 3; i++) {
        if (!comm[i].f->len) continue;
        if (comm[i].f->len != 32) {
            snprintf(why, n, "%s is %zu bytes; it is 32 or absent", comm[i].name, comm[i].f->len);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        memcpy(comm[i].to, comm[i].f->data, 32);
        b->fc.has_comm |= comm[i].bit;
    }
    r->kind_args = &b->fc;
    r->kind_args_len = sizeof b->fc;
    if (m->vanilla_proof.len) {
        r->witness = m->vanilla_proof.data;
        r->witness_len = m->vanilla_proof.len;
        return CUZK_RPC_OK;
    }
    size_t len = 0;
    const uint8_t *first = NULL, *next = NULL;
    int contiguous = 1; /* the entries follow one another in memory (as the decoder reads them) */
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
        const ProtobufCBinaryData *e = &m->vanilla_proofs[i];
        if (!e->len) continue;
        if (!first) first = e->data;
        contiguous &= !next || e->data == next;
        next = e->data + e->len;
        len += e->len;
    }
    if (len == 0) {
        snprintf(why, n, "%s needs vanilla_proof or vanilla_proofs", proof_kind_names[pk]);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    if (contiguous) {
        r->witness = first;
        r->witness_len = len;
        return CUZK_RPC_OK;
    }
    b->joined = malloc(len);
    if (!b->joined) {
        snprintf(why, n, "out of memory");
        return CUZK_RPC_RESOURCE_EXHAUSTED;
    }
    size_t off = 0;
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
        if (m->vanilla_proofs[i].len)
            memcpy(b->joined + off, m->vanilla_proofs[i].data, m->vanilla_proofs[i].len);
        off += m->vanilla_proofs[i].len;
    }
    r->witness = b->joined;
    r->witness_len = len;
    r->witness_owner = b->joined; /* the engine's, on every return of its submit */
    b->joined = NULL;
    return CUZK_RPC_OK;
}

/* Submits m. On CUZK_RPC_OK info is filled; else why says what is wrong. */
static int submit(struct cuzk_service *s, const Cuzk__V1__SubmitProofRequest *m,
                  struct cuzk_wire_msg *wm, struct cuzk_submit_info *info, char *why, size_t n) {
    if (stopping(s)) {
        snprintf(why, n, "the daemon is shutting down");
        return CUZK_RPC_UNAVAILABLE;
    }
    struct built_request b;
    int st = build_request(s, m, &b, why, n);
    if (st == CUZK_RPC_OK) {
        /* the input bytes go to the engine as they are, in the block they were read into */
        if (!b.req.witness_owner && b.req.witness && wm)
            b.req.witness_owner = cuzk_wire_msg_take(wm, b.req.witness, b.req.witness_len);
        int rc = cuzk_engine_submit(s->engine, &b.req, info, why, n);
        if (rc != CUZK_OK) {
            st = status_of(rc);
            if (!why[0]) snprintf(why, n, "%s", cuzk_strerror(rc));
        }
    }
    free(b.joined);
    return st;
}

static void fill_result(Cuzk__V1__AwaitProofResponse *out, const char *job_id, int rc,
                        const struct cuzk_job_result *r) {
    out->job_id = (char *)job_id;
    if (rc == CUZK_ETIMEOUT) {
        out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
        out->error_message = (char *)"timed out waiting for the proof; the job goes on";
        return;
    }
    switch (r->state) {
    case CUZK_JOB_DONE: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED; break;
    case CUZK_JOB_FAILED: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED; break;
    case CUZK_JOB_CANCELLED: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED; break;
    default: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN; break;
    }
    out->proof.data = r->proof;
    out->proof.len = r->proof_len;
    out->error_message = (char *)r->error;
    out->queue_wait_ms = ms_u64(r->timings.queue_ms);
    out->srs_load_ms = ms_u64(r->timings.srs_ms);
    out->synthesis_ms = ms_u64(r->timings.synth_ms);
    out->gpu_compute_ms = ms_u64(r->timings.gpu_ms);
    out->total_ms = ms_u64(r->timings.total_ms);
}

/* ---- blocking calls ---------------------------------------------------------------------- */

enum wait_op { WAIT_SUBMIT, WAIT_AWAIT, WAIT_PROVE, WAIT_PRELOAD, WAIT_EVICT };

struct wait_job {
    struct cuzk_service *svc;
    struct cuzk_rpc_call *call;
    enum wait_op op;
    struct cuzk_wire_msg msg;     /* SUBMIT, PROVE: the decoded request, freed with the job
                                     (its bytes handed to the engine at submit) */
    uint64_t held;                /* SUBMIT, PROVE: its bytes, counted in input_held */
    char job_id[CUZK_JOB_ID_MAX]; /* AWAIT, PROVE */
    int64_t timeout_ms;           /* AWAIT: > 0 bounds the wait */
    char kind[CUZK_NAME_MAX];     /* PRELOAD, EVICT */
    char circuit[CUZK_NAME_MAX];
    char alias[CUZK_NAME_MAX]; /* PRELOAD, EVICT: the reference cuzk's id asked for, or "" */
    int slot;                  /* it holds a blocking-call slot (answer_first gives it back) */
};

static void release_slot(struct cuzk_service *s);
static void thread_done(struct cuzk_service *s);

/* Gives w's blocking-call slot back, once: called before each answer of a wait thread. */
static void answer_first(struct wait_job *w) {
    if (!w->slot) return;
    w->slot = 0;
    release_slot(w->svc);
}

/* The answers of a wait thread: its slot is free before the client can see the answer. */
#define W_FAIL(w, ...) (answer_first(w), fail((w)->call, __VA_ARGS__))
#define W_REPLY(w, m) (answer_first(w), reply((w)->call, (m)))

/* Waits for the job in slices until it is final, the timeout passes (CUZK_ETIMEOUT) or the
 * client leaves (CUZK_ECANCELLED). */
static int wait_result(struct wait_job *w, struct cuzk_job_result *out) {
    double deadline = w->timeout_ms > 0 ? now_ms() + (double)w->timeout_ms : 0;
    for (;;) {
        int64_t slice = SERVICE_WAIT_SLICE_MS;
        if (deadline) {
            double left = deadline - now_ms();
            if (left < slice) slice = left > 0 ? (int64_t)left : 0;
        }
        memset(out, 0, sizeof *out);
        int rc = cuzk_engine_await(w->svc->engine, w->job_id, slice, out);
        if (rc != CUZK_ETIMEOUT) return rc;
        if (cuzk_rpc_call_cancelled(w->call)) return CUZK_ECANCELLED;
        if (deadline && now_ms() >= deadline) return CUZK_ETIMEOUT;
    }
}

static void run_await(struct wait_job *w) {
    struct cuzk_job_result r;
    int rc = wait_result(w, &r);
    if (rc == CUZK_ECANCELLED && r.state == CUZK_JOB_NONE) {
        cuzk_log_debug("rpc", "%s %s: the client left; the job goes on",
                       cuzk_rpc_call_method(w->call), w->job_id);
        answer_first(w);
        cuzk_rpc_call_finish(w->call, CUZK_RPC_CANCELLED, "the client cancelled", NULL, 0);
        return;
    }
    if (rc == CUZK_ENOTFOUND) {
        W_FAIL(w, CUZK_RPC_NOT_FOUND, "job not found: %s", w->job_id);
        return;
    }
    if (rc != CUZK_ETIMEOUT && r.state == CUZK_JOB_NONE) {
        W_FAIL(w, status_of(rc), "%s: %s", w->job_id, cuzk_strerror(rc));
        return;
    }
    Cuzk__V1__AwaitProofResponse res = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    fill_result(&res, w->job_id, rc, &r);
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
    int st = submit(w->svc, m, &w->msg, &info, why, sizeof why);
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
        W_FAIL(w, status_of(rc), "%s%s:%s: %s", w->alias, w->kind, w->circuit,
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
        W_FAIL(w, status_of(rc), "%s%s:%s: %s", w->alias, w->kind, w->circuit,
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
    answer_first(w); /* (every path answered already) */
    wait_free(w);
    thread_done(s);
    return NULL;
}

/* Reserves a waiting slot: CUZK_RPC_OK, or UNAVAILABLE / RESOURCE_EXHAUSTED (call failed). */
static int reserve_wait(struct cuzk_service *s, struct cuzk_rpc_call *call) {
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
    if (st == CUZK_RPC_UNAVAILABLE) fail(call, st, "the daemon is shutting down");
    if (st == CUZK_RPC_RESOURCE_EXHAUSTED)
        fail(call, st, "%lld calls are waiting already (daemon.max_blocking_calls)",
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
static void start_wait(struct wait_job *w) {
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

static struct wait_job *new_wait(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                 enum wait_op op) {
    struct wait_job *w = calloc(1, sizeof *w);
    if (!w) {
        release_slot(s);
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        thread_done(s);
        return NULL;
    }
    w->slot = 1;
    w->svc = s;
    w->call = call;
    w->op = op;
    return w;
}

/* ---- handlers ---------------------------------------------------------------------------- */

/* Decodes the request into m, and refuses one that does not decode or whose strings (ids) hold
 * a control character (a NUL would cut an id short unseen: server/wire.h). */
#define UNPACK(type, prefix, call, req, len)                                                       \
    type *m = prefix##__unpack(NULL, len, req);                                                    \
    if (!m) {                                                                                      \
        fail(call, CUZK_RPC_INVALID_ARGUMENT, "malformed request message");                        \
        return;                                                                                    \
    }                                                                                              \
    {                                                                                              \
        char bad_[128];                                                                            \
        if (!cuzk_wire_strings_ok(&prefix##__descriptor, req, len, bad_, sizeof bad_)) {           \
            fail(call, CUZK_RPC_INVALID_ARGUMENT,                                                  \
                 "%s holds a control character (NUL, newline, escape ...): ids are printable",     \
                 bad_);                                                                            \
            prefix##__free_unpacked(m, NULL);                                                      \
            return;                                                                                \
        }                                                                                          \
    }

/* Hands the decoded request m to a thread of its own (see DESIGN): the gRPC thread only
 * decodes and checks the message. */
static void start_submit(struct cuzk_service *s, struct cuzk_rpc_call *call,
                         struct cuzk_wire_msg *m, enum wait_op op, size_t len) {
    pthread_mutex_lock(&s->mu);
    uint64_t held = s->input_held;
    int over = s->max_input && held + len > s->max_input;
    if (!over) s->input_held += len;
    pthread_mutex_unlock(&s->mu);
    if (over) {
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED,
             "%llu bytes of requests are being parsed already; this one's %zu would pass "
             "daemon.max_input_bytes (%llu): retry later",
             (unsigned long long)held, len, (unsigned long long)s->max_input);
        cuzk_wire_msg_free(m);
        return;
    }
    struct wait_job *w = reserve_wait(s, call) == CUZK_RPC_OK ? new_wait(s, call, op) : NULL;
    if (!w) {
        pthread_mutex_lock(&s->mu);
        s->input_held -= len;
        pthread_mutex_unlock(&s->mu);
        cuzk_wire_msg_free(m);
        return;
    }
    w->msg = *m;
    w->held = len;
    start_wait(w);
}

/* Decodes a request that may be large (SubmitProof, Prove) straight from the transport's
 * pieces: its bytes fields are read once, into one block that the engine takes over (wire.h).
 * Returns 0 with *wm filled, or -1 after answering the call. */
static int decode_large(struct cuzk_rpc_call *call, const ProtobufCMessageDescriptor *d,
                        struct cuzk_rpc_reader *rd, struct cuzk_wire_msg *wm) {
    char why[256];
    int rc = cuzk_wire_decode(d, rd, wm, why, sizeof why);
    if (rc == CUZK_OK) return 0;
    fail(call, rc == CUZK_ENOMEM ? CUZK_RPC_RESOURCE_EXHAUSTED : CUZK_RPC_INVALID_ARGUMENT, "%s",
         why);
    return -1;
}

static void h_submit(void *ctx, struct cuzk_rpc_call *call, struct cuzk_rpc_reader *rd) {
    size_t len = rd->left;
    struct cuzk_wire_msg wm;
    if (decode_large(call, &cuzk__v1__submit_proof_request__descriptor, rd, &wm)) return;
    start_submit(ctx, call, &wm, WAIT_SUBMIT, len);
}

static void h_prove(void *ctx, struct cuzk_rpc_call *call, struct cuzk_rpc_reader *rd) {
    size_t len = rd->left;
    struct cuzk_wire_msg wm;
    if (decode_large(call, &cuzk__v1__prove_request__descriptor, rd, &wm)) return;
    if (!((Cuzk__V1__ProveRequest *)wm.m)->submit) {
        fail(call, CUZK_RPC_INVALID_ARGUMENT, "missing submit field");
        cuzk_wire_msg_free(&wm);
        return;
    }
    start_submit(ctx, call, &wm, WAIT_PROVE, len);
}

static void h_await(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    struct cuzk_service *s = ctx;
    UNPACK(Cuzk__V1__AwaitProofRequest, cuzk__v1__await_proof_request, call, req, len);
    if (!m->job_id[0] || strlen(m->job_id) >= CUZK_JOB_ID_MAX) {
        fail(call, CUZK_RPC_INVALID_ARGUMENT, m->job_id[0] ? "job_id too long" : "missing job_id");
    } else if (reserve_wait(s, call) == CUZK_RPC_OK) {
        struct wait_job *w = new_wait(s, call, WAIT_AWAIT);
        if (w) {
            snprintf(w->job_id, sizeof w->job_id, "%s", m->job_id);
            w->timeout_ms = m->timeout_ms > (uint64_t)INT64_MAX / 2 ? 0 : (int64_t)m->timeout_ms;
            start_wait(w);
        }
    }
    cuzk__v1__await_proof_request__free_unpacked(m, NULL);
}

static void h_cancel(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    struct cuzk_service *s = ctx;
    UNPACK(Cuzk__V1__CancelProofRequest, cuzk__v1__cancel_proof_request, call, req, len);
    int running = 0, rc = CUZK_OK;
    size_t idlen = strlen(m->job_id);
    if (idlen && idlen < CUZK_JOB_ID_MAX) rc = cuzk_engine_cancel(s->engine, m->job_id, &running);
    if (!idlen || idlen >= CUZK_JOB_ID_MAX) {
        fail(call, CUZK_RPC_INVALID_ARGUMENT, idlen ? "job_id too long" : "missing job_id");
    } else if (rc == CUZK_ENOTFOUND) {
        fail(call, CUZK_RPC_NOT_FOUND, "job not found: %s", m->job_id);
    } else if (rc != CUZK_OK && rc != CUZK_EINVAL) {
        fail(call, status_of(rc), "%s: %s", m->job_id, cuzk_strerror(rc));
    } else {
        /* CUZK_EINVAL: the job is final already, so nothing was running: cancelling twice, or
         * after the end, is not an error */
        cuzk_log_info("rpc", "CancelProof %s: %s", m->job_id,
                      rc == CUZK_OK ? (running ? "cancelled while running" : "cancelled in queue")
                                    : "already final");
        Cuzk__V1__CancelProofResponse res = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        res.was_running = rc == CUZK_OK && running;
        reply(call, &res.base);
    }
    cuzk__v1__cancel_proof_request__free_unpacked(m, NULL);
}

/* The reference cuzk's name of the kind called `name` (struct cuzk_kind.display), or name. */
static const char *display_of(const struct cuzk_engine_status *st, const char *name) {
    for (size_t i = 0; i < st->n_kinds; i++)
        if (!strcmp(st->kinds[i].name, name)) return st->kinds[i].display;
    return name;
}

static void h_status(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    struct cuzk_service *s = ctx;
    UNPACK(Cuzk__V1__GetStatusRequest, cuzk__v1__get_status_request, call, req, len);
    cuzk__v1__get_status_request__free_unpacked(m, NULL);
    struct cuzk_engine_status st;
    if (cuzk_engine_status(s->engine, &st) != CUZK_OK) {
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    Cuzk__V1__GetStatusResponse res = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    Cuzk__V1__GPUStatus *gpus = calloc(st.n_devices + 1, sizeof *gpus);
    Cuzk__V1__GPUStatus **gpu_ptrs = calloc(st.n_devices + 1, sizeof *gpu_ptrs);
    Cuzk__V1__SRSStatus *srs = calloc(st.n_srs + 1, sizeof *srs);
    Cuzk__V1__SRSStatus **srs_ptrs = calloc(st.n_srs + 1, sizeof *srs_ptrs);
    char(*srs_ids)[2 * CUZK_NAME_MAX] = calloc(st.n_srs + 1, sizeof *srs_ids);
    Cuzk__V1__QueueStatus *queues = calloc(st.n_kinds + 1, sizeof *queues);
    Cuzk__V1__QueueStatus **queue_ptrs = calloc(st.n_kinds + 1, sizeof *queue_ptrs);
    if (!gpus || !gpu_ptrs || !srs || !srs_ptrs || !srs_ids || !queues || !queue_ptrs) {
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < st.n_devices; i++) {
        const struct cuzk_status_device *d = &st.devices[i];
        Cuzk__V1__GPUStatus g = CUZK__V1__GPUSTATUS__INIT;
        g.ordinal = d->index;
        if (d->index < s->n_devices && s->devices[d->index].ordinal >= 0) {
            size_t vfree, vtotal;
            g.ordinal = (uint32_t)s->devices[d->index].ordinal;
            g.vram_total_bytes = s->devices[d->index].vram_total;
            if (cuzk_gpu_mem_info(s->devices[d->index].ordinal, &vfree, &vtotal) == CUZK_OK)
                g.vram_free_bytes = vfree; /* now, for every process on the device */
        }
        g.name = (char *)d->name;
        for (size_t k = 0; k < st.n_workers; k++) {
            const struct cuzk_status_worker *w = &st.workers[k];
            if (w->device != (int)d->index || !w->busy || !w->job_id[0]) continue;
            g.current_job_id = (char *)w->job_id;
            for (size_t j = 0; j < st.n_jobs; j++)
                if (!strcmp(st.jobs[j].job_id, w->job_id))
                    g.current_proof_kind = (char *)display_of(&st, st.jobs[j].kind);
            break;
        }
        gpus[i] = g;
        gpu_ptrs[i] = &gpus[i];
    }
    for (size_t i = 0; i < st.n_srs; i++) {
        Cuzk__V1__SRSStatus e = CUZK__V1__SRSSTATUS__INIT;
        if (st.srs[i].alias[0]) /* the reference's id, which PreloadSRS / EvictSRS accept */
            snprintf(srs_ids[i], sizeof srs_ids[i], "%s", st.srs[i].alias);
        else
            snprintf(srs_ids[i], sizeof srs_ids[i], "%s:%s", st.srs[i].kind, st.srs[i].circuit_id);
        e.circuit_id = srs_ids[i];
        e.tier = (Cuzk__V1__SRSStatus__Tier)st.srs[i].tier;
        e.size_bytes = st.srs[i].bytes;
        e.ref_count = st.srs[i].refs;
        srs[i] = e;
        srs_ptrs[i] = &srs[i];
    }
    for (size_t i = 0; i < st.n_kinds; i++) {
        Cuzk__V1__QueueStatus q = CUZK__V1__QUEUE_STATUS__INIT;
        q.proof_kind = st.kinds[i].display;
        q.pending = st.kinds[i].synth_pending + st.kinds[i].gpu_pending;
        q.in_progress = st.kinds[i].in_progress;
        queues[i] = q;
        queue_ptrs[i] = &queues[i];
    }
    res.n_gpus = st.n_devices;
    res.gpus = gpu_ptrs;
    res.n_loaded_srs = st.n_srs;
    res.loaded_srs = srs_ptrs;
    res.n_queues = st.n_kinds;
    res.queues = queue_ptrs;
    res.total_proofs_completed = st.completed;
    res.total_proofs_failed = st.failed;
    res.uptime_seconds = (uint64_t)st.uptime_s;
    res.pinned_memory_bytes = st.memory.used;
    res.pinned_memory_limit_bytes = st.memory.total;
    reply(call, &res.base);
out:
    free(gpus);
    free(gpu_ptrs);
    free(srs);
    free(srs_ptrs);
    free(srs_ids);
    free(queues);
    free(queue_ptrs);
    cuzk_engine_status_free(&st);
}

static void h_metrics(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    UNPACK(Cuzk__V1__GetMetricsRequest, cuzk__v1__get_metrics_request, call, req, len);
    cuzk__v1__get_metrics_request__free_unpacked(m, NULL);
    size_t n;
    char *text = cuzk_service_render_metrics(ctx, &n);
    if (!text) {
        fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    Cuzk__V1__GetMetricsResponse res = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    res.prometheus_text = text;
    reply(call, &res.base);
    free(text);
}

/* Resolves a key id into w: ours, "<kind>:<circuit>", or one of the reference cuzk's circuit
 * ids ("porep-32g", a kind's aliases: engine/kind.h). Returns 0, or -1 after answering the
 * call: INVALID_ARGUMENT for an id of neither form, NOT_FOUND for a reference id that has no
 * circuit here (the message names the id and says why). */
static int parse_circuit(struct cuzk_service *s, struct cuzk_rpc_call *call, const char *id,
                         struct wait_job *w) {
    const char *colon = strchr(id, ':');
    if (!colon) {
        char known[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < s->n_kinds; i++) {
            const struct cuzk_kind *k = cuzk_engine_kind(s->engine, s->kinds[i]);
            if (!k) continue;
            const struct cuzk_kind_alias *a = cuzk_kind_alias_find(k, id);
            if (a && !a->circuit) {
                fail(call, CUZK_RPC_NOT_FOUND,
                     "circuit id \"%s\" (a cuzk id of kind %s) has no circuit here: %s", id,
                     k->name, a->why);
                return -1;
            }
            if (a) { /* messages and logs name both: "porep-32g = porep:porep-c18" */
                snprintf(w->kind, sizeof w->kind, "%s", k->name);
                snprintf(w->circuit, sizeof w->circuit, "%s", a->circuit);
                snprintf(w->alias, sizeof w->alias, "%s = ", a->id);
                return 0;
            }
            for (size_t j = 0; j < k->n_aliases; j++)
                if (k->aliases[j].circuit && used < sizeof known) {
                    int n = snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "",
                                     k->aliases[j].id);
                    used += n > 0 ? (size_t)n : 0;
                }
        }
        fail(call, CUZK_RPC_INVALID_ARGUMENT,
             "unknown circuit id \"%s\" (want \"<kind>:<circuit_id>\", e.g. \"snarkjs:mulchain\", "
             "or one of cuzk's: %s)",
             id, known[0] ? known : "none registered");
        return -1;
    }
    size_t kl = (size_t)(colon - id);
    if (kl == 0 || kl >= sizeof w->kind || strlen(colon + 1) >= sizeof w->circuit) {
        fail(call, CUZK_RPC_INVALID_ARGUMENT,
             "unknown circuit id \"%s\" (want \"<kind>:<circuit_id>\", e.g. \"snarkjs:mulchain\")",
             id);
        return -1;
    }
    memcpy(w->kind, id, kl);
    w->kind[kl] = 0;
    w->alias[0] = 0;
    snprintf(w->circuit, sizeof w->circuit, "%s", colon + 1);
    return 0;
}

static void key_call(struct cuzk_service *s, struct cuzk_rpc_call *call, const char *id,
                     enum wait_op op) {
    struct wait_job probe;
    if (parse_circuit(s, call, id, &probe)) return;
    if (reserve_wait(s, call) != CUZK_RPC_OK) return;
    struct wait_job *w = new_wait(s, call, op);
    if (!w) return;
    memcpy(w->kind, probe.kind, sizeof w->kind);
    memcpy(w->circuit, probe.circuit, sizeof w->circuit);
    memcpy(w->alias, probe.alias, sizeof w->alias);
    start_wait(w);
}

static void h_preload(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    UNPACK(Cuzk__V1__PreloadSrsRequest, cuzk__v1__preload_srs_request, call, req, len);
    key_call(ctx, call, m->circuit_id, WAIT_PRELOAD);
    cuzk__v1__preload_srs_request__free_unpacked(m, NULL);
}

static void h_evict(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    UNPACK(Cuzk__V1__EvictSrsRequest, cuzk__v1__evict_srs_request, call, req, len);
    key_call(ctx, call, m->circuit_id, WAIT_EVICT);
    cuzk__v1__evict_srs_request__free_unpacked(m, NULL);
}

static const struct cuzk_rpc_method methods[] = {
    {"/cuzk.v1.ProvingEngine/SubmitProof", NULL, h_submit},
    {"/cuzk.v1.ProvingEngine/AwaitProof", h_await, NULL},
    {"/cuzk.v1.ProvingEngine/Prove", NULL, h_prove},
    {"/cuzk.v1.ProvingEngine/CancelProof", h_cancel, NULL},
    {"/cuzk.v1.ProvingEngine/GetStatus", h_status, NULL},
    {"/cuzk.v1.ProvingEngine/GetMetrics", h_metrics, NULL},
    {"/cuzk.v1.ProvingEngine/PreloadSRS", h_preload, NULL},
    {"/cuzk.v1.ProvingEngine/EvictSRS", h_evict, NULL},
};

const struct cuzk_rpc_method *cuzk_service_methods(size_t *n) {
    *n = sizeof methods / sizeof methods[0];
    return methods;
}

/* ---- pages and lifecycle ----------------------------------------------------------------- */

char *cuzk_service_render_status(void *service, size_t *len) {
    struct cuzk_service *s = service;
    struct cuzk_engine_status st;
    if (cuzk_engine_status(s->engine, &st) != CUZK_OK) return NULL;
    char *json = cuzk_engine_status_json(&st, 2);
    cuzk_engine_status_free(&st);
    if (!json) return NULL;
    size_t n = strlen(json);
    char *body = realloc(json, n + 2);
    if (!body) {
        free(json);
        return NULL;
    }
    body[n] = '\n';
    body[n + 1] = 0;
    *len = n + 1;
    return body;
}

char *cuzk_service_render_metrics(void *service, size_t *len) {
    struct cuzk_service *s = service;
    struct cuzk_engine_status st;
    if (cuzk_engine_status(s->engine, &st) != CUZK_OK) return NULL;
    char *text = cuzk_metrics_render(&st, len);
    cuzk_engine_status_free(&st);
    return text;
}

int cuzk_service_create(const struct cuzk_service_config *cfg, struct cuzk_service **out) {
    struct cuzk_service *s = calloc(1, sizeof *s);
    if (!s) return CUZK_ENOMEM;
    s->engine = cfg->engine;
    s->max_blocking = cfg->max_blocking_calls > 0 ? cfg->max_blocking_calls : 1;
    s->max_input = cfg->max_input_bytes;
    if (cfg->device_ordinals && cfg->n_device_ordinals) {
        s->devices = calloc(cfg->n_device_ordinals, sizeof *s->devices);
        if (!s->devices) {
            free(s);
            return CUZK_ENOMEM;
        }
        s->n_devices = cfg->n_device_ordinals;
        for (size_t i = 0; i < s->n_devices; i++) {
            struct cuzk_gpu_info gi;
            s->devices[i].ordinal = cfg->device_ordinals[i];
            if (cfg->device_ordinals[i] >= 0 &&
                cuzk_gpu_describe(cfg->device_ordinals[i], &gi) == CUZK_OK)
                s->devices[i].vram_total = gi.total_mem;
        }
    }
    struct cuzk_engine_status st;
    if (cuzk_engine_status(s->engine, &st) != CUZK_OK) {
        free(s->devices);
        free(s);
        return CUZK_ENOMEM;
    }
    s->kinds = calloc(st.n_kinds + 1, sizeof *s->kinds);
    if (!s->kinds) {
        cuzk_engine_status_free(&st);
        free(s->devices);
        free(s);
        return CUZK_ENOMEM;
    }
    for (size_t i = 0; i < st.n_kinds; i++)
        snprintf(s->kinds[i], sizeof s->kinds[i], "%s", st.kinds[i].name);
    s->n_kinds = st.n_kinds;
    cuzk_engine_status_free(&st);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->idle, NULL);
    *out = s;
    return CUZK_OK;
}

void cuzk_service_stop(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    while (s->threads > 0) pthread_cond_wait(&s->idle, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void cuzk_service_destroy(struct cuzk_service *s) {
    if (!s) return;
    cuzk_service_stop(s);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->idle);
    free(s->devices);
    free(s->kinds);
    free(s);
}
