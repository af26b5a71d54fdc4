/* libFuzzer harness of the request mapping: the bytes of a cuzk.v1 request, through the
 * service's handler (server/service.h: protobuf-c unpack, the wire check of server/wire.h, the
 * mapping onto struct cuzk_job_request), into a real engine and its kinds (kinds/kinds.h:
 * synthetic, snarkjs with the circuit of tests/data/formats, the four Filecoin kinds, whose
 * submit parses the vanilla-proof file).
 *
 * Input: byte 0 picks the method (fuzz_request.h), the rest is its request message. The
 * harness is the transport: it defines the four cuzk_rpc_call functions the service calls
 * (grpc_server.c is not linked) and keeps what the call was answered, on the handler's thread
 * or on one the service started (the harness does not assume which methods answer where). The
 * engine is never started, so jobs wait in its queues and no proof runs: while the call is
 * open the harness looks for the job it made, checks it and cancels it (so a Prove's wait
 * ends), and the engine is made again every ENGINE_INPUTS inputs so that final jobs do not pile
 * up. PreloadSRS is left out: it loads or sets up a key (seconds per input); the circuit
 * id parsing it shares with EvictSRS is fuzzed through EvictSRS.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - the call is finished exactly once, within CALL_WAIT_S, with
 *     OK or a status the service documents (never INTERNAL or UNKNOWN), a non-OK status with a
 *     message, an OK one with bytes that decode as the method's response;
 *   - a SubmitProof or Prove that the service accepts names a job that the engine holds, and
 *     that job is what the request asked for, re-derived here from the decoded message: the kind
 *     that proof_kind selects (cuzk_kind.proof_kind), or for PROOF_KIND_UNSPECIFIED the kind
 *     named by vanilla_proofs[0] (one without a ProofKind), the request_id as its job id, the
 *     priority mapped level for level; and a request with a proof_kind or priority outside the
 *     enums, or an id with a control character, is refused with INVALID_ARGUMENT. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/engine.h"
#include "cuzk/v1/proving.pb-c.h"
#include "engine/kind.h"
#include "fuzz_request.h"
#include "fuzz_util.h"
#include "kinds/kinds.h"
#include "server/grpc_server.h"
#include "server/service.h"
#include "util/log.h"

#define ENGINE_INPUTS 512 /* inputs between two engines */
#define CALL_WAIT_S 150   /* a call is answered within this (a COUNT pass included) */

/* ---- the transport ------------------------------------------------------------------------ */

struct cuzk_rpc_call {
    const char *method;
    int finished; /* times cuzk_rpc_call_finish was called */
    int status;
    char details[1024];
    uint8_t *resp;
    size_t len;
};

/* The one call in flight: a static, so that a service thread still returning from
 * cuzk_rpc_call_finish never touches freed memory; its fields are guarded by call_mu. */
static struct cuzk_rpc_call call;
static pthread_mutex_t call_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t call_cv = PTHREAD_COND_INITIALIZER;

void cuzk_rpc_call_finish(struct cuzk_rpc_call *c, int status, const char *details,
                          const uint8_t *resp, size_t len) {
    FUZZ_CHECK(c == &call);
    pthread_mutex_lock(&call_mu);
    c->finished++;
    c->status = status;
    snprintf(c->details, sizeof c->details, "%s", details ? details : "");
    free(c->resp);
    c->resp = malloc(len ? len : 1);
    FUZZ_CHECK(c->resp != NULL);
    if (len) memcpy(c->resp, resp, len);
    c->len = len;
    pthread_cond_broadcast(&call_cv);
    pthread_mutex_unlock(&call_mu);
}

int cuzk_rpc_call_cancelled(const struct cuzk_rpc_call *c) {
    (void)c;
    return 0; /* the client stays: a waiting call ends when its job does */
}

void cuzk_rpc_call_on_cancel(struct cuzk_rpc_call *c, cuzk_rpc_cancel_fn fn, void *ctx) {
    (void)c, (void)fn, (void)ctx; /* the client never leaves */
}

const char *cuzk_rpc_call_method(const struct cuzk_rpc_call *c) { return c->method; }

/* ---- the daemon's innards ----------------------------------------------------------------- */

static struct cuzk_kinds *kinds;
static struct cuzk_engine *engine;
static struct cuzk_service *service;
static unsigned inputs; /* since the engine was made */

/* The keys a job may have set up, as a daemon's srs.setup_allow and
 * synthetic.max_setup_constraints say: the small profiles the seeds use and their single-digit
 * neighbours, and synthetic keys up to 2^20 constraints. A mutated vanilla header that names
 * another profile (a real 32 GiB shape: a COUNT pass of seconds), or a synthetic id above the
 * bound, is parsed and then refused with PERMISSION_DENIED before anything is counted or made,
 * as in a daemon with its default settings. */
static const char *const setup_allow[] = {"porep:porep-c?-l2-d?-r?",
                                          "snap:snap-c?-a?-p?-d?-r?",
                                          "wpost:wpost-s?-k?-r?",
                                          "winning:winning-s?-r?",
                                          "synthetic:*",
                                          "snarkjs:*"};

static void daemon_up(void) {
    struct cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.setup_policy = 1;
    cfg.setup_allow = setup_allow;
    cfg.n_setup_allow = sizeof setup_allow / sizeof setup_allow[0];
    cfg.total_budget = 8ull << 30; /* nothing is allocated at submit; larger jobs are refused */
    cfg.cpu_threads = 1;
    cfg.synth_workers = 1;
    cfg.key_loaders = 1;
    cfg.trace_file = NULL;
    char err[256] = "";
    FUZZ_CHECK(cuzk_engine_create(&engine, &cfg, err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(cuzk_kinds_register(kinds, engine, err, sizeof err) == CUZK_OK);
    struct cuzk_service_config sc = {.engine = engine, .max_blocking_calls = 8};
    FUZZ_CHECK(cuzk_service_create(&sc, &service) == CUZK_OK);
    inputs = 0;
}

static void daemon_down(void) {
    cuzk_service_destroy(service);
    cuzk_engine_destroy(engine);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    cuzk_log_set_level(CUZK_LOG_ERROR);
    char err[256] = "";
    struct cuzk_kinds_config kc;
    cuzk_kinds_config_default(&kc);
    kc.synthetic_max_setup = 1u << 20; /* the daemon's default: a larger synthetic id is
                                          refused before its shape is made */
    FUZZ_CHECK(cuzk_kinds_create(&kinds, &kc, err, sizeof err) == CUZK_OK);
    int rc =
        cuzk_kinds_add_snarkjs(kinds, "circuit", CUZK_SOURCE_DIR "/tests/data/formats/circuit.zkey",
                               CUZK_SOURCE_DIR "/tests/data/formats/circuit.r1cs", err, sizeof err);
    if (rc) fprintf(stderr, "fuzz_request: %s\n", err);
    FUZZ_CHECK(rc == CUZK_OK);
    daemon_up();
    return 0;
}

/* Cancels every live job, so that none waits in a queue past its input. */
static void cancel_all(void) {
    struct cuzk_engine_status st;
    FUZZ_CHECK(cuzk_engine_status(engine, &st) == CUZK_OK);
    for (size_t i = 0; i < st.n_jobs; i++) {
        int rc = cuzk_engine_cancel(engine, st.jobs[i].job_id, NULL);
        FUZZ_CHECK(rc == CUZK_OK || rc == CUZK_EINVAL); /* EINVAL: final meanwhile */
    }
    cuzk_engine_status_free(&st);
}

/* ---- what a request asks for ------------------------------------------------------------- */

static int has_control(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

/* Checks that the job the service made of m (its id in job_id) is what m asked for. */
static void check_job(const Cuzk__V1__SubmitProofRequest *m, const char *job_id) {
    FUZZ_CHECK(job_id && job_id[0]);
    FUZZ_CHECK(!has_control(m->request_id));
    if (m->request_id[0]) FUZZ_CHECK(!strcmp(job_id, m->request_id));
    int pk = (int)m->proof_kind, prio = (int)m->priority;
    FUZZ_CHECK(pk >= 0 && pk <= 4 && prio >= 0 && prio <= 4);
    struct cuzk_engine_status st;
    FUZZ_CHECK(cuzk_engine_status(engine, &st) == CUZK_OK);
    const struct cuzk_status_job *j = NULL;
    for (size_t i = 0; i < st.n_jobs; i++)
        if (!strcmp(st.jobs[i].job_id, job_id)) j = &st.jobs[i];
    FUZZ_CHECK(j != NULL); /* queued: the engine is not started */
    const struct cuzk_kind *k = cuzk_engine_kind(engine, j->kind);
    FUZZ_CHECK(k != NULL && k->proof_kind == pk);
    if (pk == 0) {
        FUZZ_CHECK(m->n_vanilla_proofs == 1);
        const ProtobufCBinaryData *sel = &m->vanilla_proofs[0];
        size_t kl = strlen(j->kind);
        FUZZ_CHECK(sel->len > kl && !memcmp(sel->data, j->kind, kl) && sel->data[kl] == ':');
    }
    if (prio) FUZZ_CHECK(j->priority == prio - 1); /* LOW .. CRITICAL = 1 .. 4 on the wire */
    cuzk_engine_status_free(&st);
}

/* 1 when the service must refuse m with INVALID_ARGUMENT whatever the engine says. */
static int must_refuse(const Cuzk__V1__SubmitProofRequest *m) {
    int pk = (int)m->proof_kind, prio = (int)m->priority;
    return pk < 0 || pk > 4 || prio < 0 || prio > 4 || has_control(m->request_id);
}

/* The one live job (every other was cancelled after its input), or "" when there is none. */
static void live_job(char id[CUZK_JOB_ID_MAX]) {
    struct cuzk_engine_status st;
    FUZZ_CHECK(cuzk_engine_status(engine, &st) == CUZK_OK);
    FUZZ_CHECK(st.n_jobs <= 1);
    snprintf(id, CUZK_JOB_ID_MAX, "%s", st.n_jobs ? st.jobs[0].job_id : "");
    cuzk_engine_status_free(&st);
}

/* ---- the methods ------------------------------------------------------------------------- */

static const struct cuzk_rpc_method *method_of(const char *path) {
    size_t n;
    const struct cuzk_rpc_method *ms = cuzk_service_methods(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ms[i].path, path)) return &ms[i];
    FUZZ_CHECK(!"a method of cuzk.v1 is missing");
    return NULL;
}

/* Calls the method's handler as the transport does: a stream handler reads the message
 * through a reader (the gRPC one hands out received pieces; this one the input's bytes). */
static void call_method(const char *path, void *service, struct cuzk_rpc_call *c,
                        const uint8_t *req, size_t len) {
    const struct cuzk_rpc_method *m = method_of(path);
    if (m->stream) {
        struct cuzk_rpc_reader rd;
        cuzk_rpc_reader_flat(&rd, req, len);
        m->stream(service, c, &rd);
    } else {
        m->handler(service, c, req, len);
    }
}

/* Waits until the call is answered. Meanwhile the job a submit made (job_id[0] = 0 until it
 * appears) is checked against sub and cancelled: a Prove's wait then ends. */
static void answer(const Cuzk__V1__SubmitProofRequest *sub, char job_id[CUZK_JOB_ID_MAX]) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += CALL_WAIT_S;
    for (;;) {
        pthread_mutex_lock(&call_mu);
        int done = call.finished;
        pthread_mutex_unlock(&call_mu);
        char live[CUZK_JOB_ID_MAX];
        live_job(live); /* after done was read: a job made before the answer is seen */
        if (live[0]) {
            FUZZ_CHECK(sub != NULL && !job_id[0]); /* one job, of a submit */
            snprintf(job_id, CUZK_JOB_ID_MAX, "%s", live);
            check_job(sub, job_id);
            cancel_all();
        }
        if (done) return;
        struct timespec now, nap = {0, 1000000};
        clock_gettime(CLOCK_MONOTONIC, &now);
        FUZZ_CHECK(now.tv_sec < deadline.tv_sec);
        nanosleep(&nap, NULL);
    }
}

/* The response bytes decode as the method's response message; job_id is the job a Prove
 * submitted. */
static void check_response(int method, const struct cuzk_rpc_call *c, const char *job_id) {
    const uint8_t *b = c->resp;
    size_t n = c->len;
    switch (method) {
    case M_SUBMIT: {
        Cuzk__V1__SubmitProofResponse *r = cuzk__v1__submit_proof_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && !strcmp(r->job_id, job_id));
        cuzk__v1__submit_proof_response__free_unpacked(r, NULL);
        break;
    }
    case M_AWAIT: {
        Cuzk__V1__AwaitProofResponse *r = cuzk__v1__await_proof_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && r->job_id[0]);
        cuzk__v1__await_proof_response__free_unpacked(r, NULL);
        break;
    }
    case M_PROVE: {
        Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && r->result && !strcmp(r->result->job_id, job_id));
        /* the job was cancelled under the waiting call: that is the answer it must give */
        FUZZ_CHECK(r->result->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED);
        cuzk__v1__prove_response__free_unpacked(r, NULL);
        break;
    }
    case M_CANCEL: {
        Cuzk__V1__CancelProofResponse *r = cuzk__v1__cancel_proof_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL);
        cuzk__v1__cancel_proof_response__free_unpacked(r, NULL);
        break;
    }
    case M_STATUS: {
        Cuzk__V1__GetStatusResponse *r = cuzk__v1__get_status_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && r->n_queues >= 1);
        cuzk__v1__get_status_response__free_unpacked(r, NULL);
        break;
    }
    case M_METRICS: {
        Cuzk__V1__GetMetricsResponse *r = cuzk__v1__get_metrics_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && r->prometheus_text[0]);
        cuzk__v1__get_metrics_response__free_unpacked(r, NULL);
        break;
    }
    case M_EVICT: {
        Cuzk__V1__EvictSrsResponse *r = cuzk__v1__evict_srs_response__unpack(NULL, n, b);
        FUZZ_CHECK(r != NULL && !r->was_loaded); /* nothing is ever loaded here */
        cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
        break;
    }
    }
}

static int documented(int status) {
    switch (status) {
    case CUZK_RPC_OK:
    case CUZK_RPC_INVALID_ARGUMENT:
    case CUZK_RPC_NOT_FOUND:
    case CUZK_RPC_ALREADY_EXISTS:    /* a request id reused with another body */
    case CUZK_RPC_PERMISSION_DENIED: /* a key setup the configuration does not allow */
    case CUZK_RPC_RESOURCE_EXHAUSTED:
    case CUZK_RPC_UNIMPLEMENTED:
    case CUZK_RPC_UNAVAILABLE:
    case CUZK_RPC_FAILED_PRECONDITION: return 1;
    default: return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const int method = data[0] % M_COUNT;
    const uint8_t *req = data + 1;
    const size_t len = size - 1;
    pthread_mutex_lock(&call_mu);
    free(call.resp);
    memset(&call, 0, sizeof call);
    call.method = fuzz_method_path[method];
    pthread_mutex_unlock(&call_mu);

    /* what a submit asks for, decoded here to check the service's reading of it */
    Cuzk__V1__SubmitProofRequest *sub = NULL;
    Cuzk__V1__ProveRequest *prove = NULL;
    if (method == M_SUBMIT) sub = cuzk__v1__submit_proof_request__unpack(NULL, len, req);
    if (method == M_PROVE && (prove = cuzk__v1__prove_request__unpack(NULL, len, req)))
        sub = prove->submit;

    call_method(fuzz_method_path[method], service, &call, req, len);
    char job_id[CUZK_JOB_ID_MAX] = "";
    answer(sub, job_id);
    pthread_mutex_lock(&call_mu);
    struct cuzk_rpc_call c = call; /* answered: no thread writes it any more */
    pthread_mutex_unlock(&call_mu);
    FUZZ_CHECK(c.finished == 1);
    if (!documented(c.status)) fprintf(stderr, "status %d: %s\n", c.status, c.details);
    FUZZ_CHECK(documented(c.status));
    if (c.status != CUZK_RPC_OK) FUZZ_CHECK(c.details[0]);
    if (c.status == CUZK_RPC_OK) check_response(method, &c, job_id);
    if (sub) {
        FUZZ_CHECK((c.status == CUZK_RPC_OK) == (job_id[0] != 0));
        if (must_refuse(sub)) FUZZ_CHECK(c.status == CUZK_RPC_INVALID_ARGUMENT);
    }
    if (prove)
        cuzk__v1__prove_request__free_unpacked(prove, NULL);
    else if (sub)
        cuzk__v1__submit_proof_request__free_unpacked(sub, NULL);
    if (++inputs == ENGINE_INPUTS) {
        daemon_down();
        daemon_up();
    }
    return 0;
}
