/* cuzk.v1.ProvingEngine on the engine (see service.h for the mapping and the DESIGN). */
#define _GNU_SOURCE
#include "server/service_impl.h"

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
#include "kinds/fc_kind.h"
#include "server/metrics.h"
#include "server/wire.h"
#include "util/log.h"

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
int cuzk_svc_status_of(int err) {
    switch (err) {
#define CUZK_ERR_RPC_(name, value, text, grpc)                                                     \
    case name: return CUZK_RPC_##grpc;
        CUZK_ERRORS(CUZK_ERR_RPC_)
#undef CUZK_ERR_RPC_
    default: return CUZK_RPC_INTERNAL;
    }
}

void cuzk_svc_fail(struct cuzk_rpc_call *call, int status, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cuzk_log_info("rpc", "%s: %s: %s", cuzk_rpc_call_method(call), status_name(status), msg);
    cuzk_rpc_call_finish(call, status, msg, NULL, 0);
}

void cuzk_svc_reply(struct cuzk_rpc_call *call, const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
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

/* ---- daemon.max_input_bytes (service_impl.h) ---------------------------------------------- */

struct input_meter {
    atomic_uint_fast64_t held; /* bytes of the tickets out */
    uint64_t max;              /* 0 = no cap */
    atomic_uint refs;          /* the service's, and one per ticket */
};

struct input_ticket {
    struct input_meter *m;
    uint64_t bytes;
};

static void meter_unref(struct input_meter *m) {
    if (atomic_fetch_sub(&m->refs, 1) == 1) free(m);
}

struct input_ticket *cuzk_svc_input_reserve(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                            size_t len) {
    struct input_meter *m = s->input;
    uint64_t held = atomic_load(&m->held);
    do {
        if (m->max && len > m->max) {
            cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED,
                          "the request's %zu bytes are more than daemon.max_input_bytes (%llu)",
                          len, (unsigned long long)m->max);
            return NULL;
        }
        if (m->max && held + len > m->max) {
            cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED,
                          "%llu bytes of requests are held already (being decoded or parsed, or "
                          "kept by their jobs); this one's %zu would pass "
                          "daemon.max_input_bytes (%llu): retry later",
                          (unsigned long long)held, len, (unsigned long long)m->max);
            return NULL;
        }
    } while (!atomic_compare_exchange_weak(&m->held, &held, held + len));
    struct input_ticket *t = malloc(sizeof *t);
    if (!t) {
        atomic_fetch_sub(&m->held, len);
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return NULL;
    }
    atomic_fetch_add(&m->refs, 1);
    t->m = m;
    t->bytes = len;
    return t;
}

void cuzk_svc_input_done(void *ticket) {
    struct input_ticket *t = ticket;
    if (!t) return;
    atomic_fetch_sub(&t->m->held, t->bytes);
    meter_unref(t->m);
    free(t);
}

/* ---- handlers ---------------------------------------------------------------------------- */

/* Decodes the request into m, and refuses one that does not decode or whose strings (ids) hold
 * a control character (a NUL would cut an id short unseen: server/wire.h). */
#define UNPACK(type, prefix, call, req, len)                                                       \
    type *m = prefix##__unpack(NULL, len, req);                                                    \
    if (!m) {                                                                                      \
        cuzk_svc_fail(call, CUZK_RPC_INVALID_ARGUMENT, "malformed request message");               \
        return;                                                                                    \
    }                                                                                              \
    {                                                                                              \
        char bad_[128];                                                                            \
        if (!cuzk_wire_strings_ok(&prefix##__descriptor, req, len, bad_, sizeof bad_)) {           \
            cuzk_svc_fail(                                                                         \
                call, CUZK_RPC_INVALID_ARGUMENT,                                                   \
                "%s holds a control character (NUL, newline, escape ...): ids are printable",      \
                bad_);                                                                             \
            prefix##__free_unpacked(m, NULL);                                                      \
            return;                                                                                \
        }                                                                                          \
    }

/* Hands the decoded request m and its ticket to a work thread (see DESIGN): the gRPC thread
 * only decodes and checks the message. */
static void start_submit(struct cuzk_service *s, struct cuzk_rpc_call *call,
                         struct cuzk_wire_msg *m, enum wait_op op, struct input_ticket *t) {
    struct wait_job *w =
        cuzk_svc_reserve_wait(s, call, t) == CUZK_RPC_OK ? cuzk_svc_new_wait(s, call, op, t) : NULL;
    if (!w) { /* answered, the ticket given back first */
        cuzk_wire_msg_free(m);
        return;
    }
    w->msg = *m;
    w->ticket = t;
    cuzk_svc_start_work(w);
}

/* Decodes a request that may be large (SubmitProof, Prove) straight from the transport's
 * pieces: its bytes fields are read once, into one block that the engine takes over (wire.h).
 * Returns 0 with *wm filled, or -1 after answering the call, the ticket t given back before
 * (so a client that sends again at once finds its bytes uncounted). */
static int decode_large(struct cuzk_rpc_call *call, const ProtobufCMessageDescriptor *d,
                        struct cuzk_rpc_reader *rd, struct cuzk_wire_msg *wm,
                        struct input_ticket *t) {
    char why[256];
    int rc = cuzk_wire_decode(d, rd, wm, why, sizeof why);
    if (rc == CUZK_OK) return 0;
    cuzk_svc_input_done(t);
    cuzk_svc_fail(call, rc == CUZK_ENOMEM ? CUZK_RPC_RESOURCE_EXHAUSTED : CUZK_RPC_INVALID_ARGUMENT,
                  "%s", why);
    return -1;
}

/* SubmitProof and Prove: the message's bytes are counted against daemon.max_input_bytes
 * before it is decoded, so a request over the cap costs no copy (the transport frees it). */
static void h_submit(void *ctx, struct cuzk_rpc_call *call, struct cuzk_rpc_reader *rd) {
    struct input_ticket *t = cuzk_svc_input_reserve(ctx, call, rd->left);
    struct cuzk_wire_msg wm;
    if (!t) return;
    if (decode_large(call, &cuzk__v1__submit_proof_request__descriptor, rd, &wm, t)) return;
    start_submit(ctx, call, &wm, WAIT_SUBMIT, t);
}

static void h_prove(void *ctx, struct cuzk_rpc_call *call, struct cuzk_rpc_reader *rd) {
    struct input_ticket *t = cuzk_svc_input_reserve(ctx, call, rd->left);
    struct cuzk_wire_msg wm;
    if (!t) return;
    if (decode_large(call, &cuzk__v1__prove_request__descriptor, rd, &wm, t)) return;
    if (!((Cuzk__V1__ProveRequest *)wm.m)->submit) {
        cuzk_wire_msg_free(&wm);
        cuzk_svc_input_done(t);
        cuzk_svc_fail(call, CUZK_RPC_INVALID_ARGUMENT, "missing submit field");
        return;
    }
    start_submit(ctx, call, &wm, WAIT_PROVE, t);
}

static void h_await(void *ctx, struct cuzk_rpc_call *call, const uint8_t *req, size_t len) {
    struct cuzk_service *s = ctx;
    UNPACK(Cuzk__V1__AwaitProofRequest, cuzk__v1__await_proof_request, call, req, len);
    if (!m->job_id[0] || strlen(m->job_id) >= CUZK_JOB_ID_MAX) {
        cuzk_svc_fail(call, CUZK_RPC_INVALID_ARGUMENT,
                      m->job_id[0] ? "job_id too long" : "missing job_id");
    } else if (cuzk_svc_reserve_wait(s, call, NULL) == CUZK_RPC_OK) {
        struct wait_job *w = cuzk_svc_new_wait(s, call, WAIT_AWAIT, NULL);
        if (w) {
            snprintf(w->job_id, sizeof w->job_id, "%s", m->job_id);
            w->timeout_ms = m->timeout_ms > (uint64_t)INT64_MAX / 2 ? 0 : (int64_t)m->timeout_ms;
            cuzk_svc_park(w); /* no thread: answered by the job's end, its client or the timer */
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
        cuzk_svc_fail(call, CUZK_RPC_INVALID_ARGUMENT,
                      idlen ? "job_id too long" : "missing job_id");
    } else if (rc == CUZK_ENOTFOUND) {
        cuzk_svc_fail(call, CUZK_RPC_NOT_FOUND, "job not found: %s", m->job_id);
    } else if (rc != CUZK_OK && rc != CUZK_EINVAL) {
        cuzk_svc_fail(call, cuzk_svc_status_of(rc), "%s: %s", m->job_id, cuzk_strerror(rc));
    } else {
        /* CUZK_EINVAL: the job is final already, so nothing was running: cancelling twice, or
         * after the end, is not an error */
        cuzk_log_info("rpc", "CancelProof %s: %s", m->job_id,
                      rc == CUZK_OK ? (running ? "cancelled while running" : "cancelled in queue")
                                    : "already final");
        Cuzk__V1__CancelProofResponse res = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        res.was_running = rc == CUZK_OK && running;
        cuzk_svc_reply(call, &res.base);
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
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
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
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < st.n_devices; i++) {
        const struct cuzk_status_device *d = &st.devices[i];
        Cuzk__V1__GPUStatus g = CUZK__V1__GPUSTATUS__INIT;
        g.ordinal = d->ordinal >= 0 ? (uint32_t)d->ordinal : d->index;
        g.vram_total_bytes = d->mem_total;
        g.vram_free_bytes = d->mem_free; /* now, for every process on the device */
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
    cuzk_svc_reply(call, &res.base);
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
        cuzk_svc_fail(call, CUZK_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    Cuzk__V1__GetMetricsResponse res = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    res.prometheus_text = text;
    cuzk_svc_reply(call, &res.base);
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
        const struct cuzk_kind *k;
        for (size_t i = 0; (k = cuzk_engine_kind_at(s->engine, i)); i++) {
            const struct cuzk_kind_alias *a = cuzk_kind_alias_find(k, id);
            if (a && !a->circuit) {
                cuzk_svc_fail(call, CUZK_RPC_NOT_FOUND,
                              "circuit id \"%s\" (a cuzk id of kind %s) has no circuit here: %s",
                              id, k->name, a->why);
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
        cuzk_svc_fail(
            call, CUZK_RPC_INVALID_ARGUMENT,
            "unknown circuit id \"%s\" (want \"<kind>:<circuit_id>\", e.g. \"snarkjs:mulchain\", "
            "or one of cuzk's: %s)",
            id, known[0] ? known : "none registered");
        return -1;
    }
    size_t kl = (size_t)(colon - id);
    if (kl == 0 || kl >= sizeof w->kind || strlen(colon + 1) >= sizeof w->circuit) {
        cuzk_svc_fail(
            call, CUZK_RPC_INVALID_ARGUMENT,
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
    if (cuzk_svc_reserve_wait(s, call, NULL) != CUZK_RPC_OK) return;
    struct wait_job *w = cuzk_svc_new_wait(s, call, op, NULL);
    if (!w) return;
    memcpy(w->kind, probe.kind, sizeof w->kind);
    memcpy(w->circuit, probe.circuit, sizeof w->circuit);
    memcpy(w->alias, probe.alias, sizeof w->alias);
    cuzk_svc_start_work(w);
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
    s->input = calloc(1, sizeof *s->input);
    if (!s->input) {
        free(s);
        return CUZK_ENOMEM;
    }
    s->input->max = cfg->max_input_bytes;
    atomic_init(&s->input->held, 0);
    atomic_init(&s->input->refs, 1);
    s->cancel_on_disconnect = cfg->cancel_on_disconnect;
    const char *pause = getenv(CUZK_SERVICE_TEST_PAUSE_ENV);
    if (pause && *pause) {
        char *end;
        long long ms = strtoll(pause, &end, 10);
        if (*end || ms < 1 || ms > 60000) {
            cuzk_log_warn("rpc", "%s=%s: not a number of ms in 1..60000; the test hook is off",
                          CUZK_SERVICE_TEST_PAUSE_ENV, pause);
        } else {
            s->test_pause_ms = ms;
            cuzk_log_warn("rpc",
                          "%s=%lld: test hook on: each blocking call's record is kept %lld ms "
                          "after its answer (never set it in production)",
                          CUZK_SERVICE_TEST_PAUSE_ENV, ms, ms);
        }
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the timer's due times: cuzk_clock_ms */
    pthread_cond_init(&s->timer_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (cuzk_svc_timer_start(s) != CUZK_OK) {
        cuzk_service_destroy(s);
        return CUZK_ENOMEM;
    }
    *out = s;
    return CUZK_OK;
}

void cuzk_service_stop(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    while (s->records > 0) pthread_cond_wait(&s->idle, &s->mu);
    pthread_mutex_unlock(&s->mu);
    cuzk_svc_timer_stop(s);
}

void cuzk_service_destroy(struct cuzk_service *s) {
    if (!s) return;
    cuzk_service_stop(s);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->timer_cv);
    meter_unref(s->input); /* jobs still holding inputs keep it until they let go */
    free(s);
}
