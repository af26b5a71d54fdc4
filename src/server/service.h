/* The cuzk.v1.ProvingEngine service: maps each RPC of proto/cuzk/v1/proving.proto onto the
 * engine (cuzk/engine.h), and renders the status and metrics pages.
 *
 * Mapping (docs/daemon.md has the full table):
 *   SubmitProof   cuzk_engine_submit; job_id = the request_id (or a UUID); a request_id whose
 *                 job is live or done attaches to it (idempotent retry).
 *   AwaitProof    cuzk_engine_watch; timeout_ms > 0 bounds the wait (status TIMEOUT, the job
 *                 goes on); unknown or expired job -> NOT_FOUND.
 *   Prove         submit + watch; job failures come back inside the result (FAILED + message).
 *   CancelProof   cuzk_engine_cancel; unknown job -> NOT_FOUND; a final job -> was_running false.
 *   GetStatus     the engine's status snapshot; GetMetrics: metrics.h of the same snapshot.
 *   PreloadSRS / EvictSRS   cuzk_engine_preload / cuzk_engine_evict; circuit_id
 *                 "<kind>:<circuit>" (e.g. "snarkjs:mulchain", "synthetic:4096").
 * Request kinds: proof_kind 1..4 name the Filecoin kinds (engine kinds "porep", "snap",
 * "wpost", "winning", kinds/fc_kind.h; their input is vanilla_proof, or the vanilla_proofs
 * entries concatenated; UNIMPLEMENTED while the engine has no kind of that name).
 * proof_kind PROOF_KIND_UNSPECIFIED with vanilla_proofs = ["<kind>:<circuit_id>"] names an
 * engine kind directly: snarkjs (vanilla_proof = the .wtns bytes) and synthetic
 * (sector_number = the seed); any other PROOF_KIND_UNSPECIFIED request is INVALID_ARGUMENT.
 * The kinds are the engine's at the time of the call (cuzk_engine_kind_at).
 * Errors: INVALID_ARGUMENT for a bad kind, priority or field and a malformed message,
 * NOT_FOUND for unknown jobs, UNAVAILABLE while shutting down, RESOURCE_EXHAUSTED when
 * max_blocking_calls calls already wait or a request would pass max_input_bytes (checked on the
 * gRPC thread before the request is decoded, so a refused one is never copied).
 *
 * DESIGN: the gRPC thread only decodes and checks messages and answers the cheap calls:
 * CancelProof, GetStatus and GetMetrics run there (none waits or parses an input). The calls
 * that can take long hold one of daemon.max_blocking_calls' slots each, given back just before
 * the answer, and a waiting call holds no thread (service_wait.c has the details):
 *   - work runs on a thread of its own ("cuzk-rpc-work", detached, ended with the work):
 *     SubmitProof and the submit of Prove (the kind parses the input, and the first job of a
 *     profile not seen before runs the circuit's COUNT pass: seconds), PreloadSRS and EvictSRS
 *     (the engine's key calls are synchronous: a preload may set a key up for minutes). So a
 *     slow submit never delays GetStatus;
 *   - waits are parked: AwaitProof, and Prove once its job is queued, are records with a
 *     completion watch on their job (cuzk_engine_watch), answered from the watch's function on
 *     the engine thread that made the job final, from the transport's notification of a
 *     client that left (cuzk_rpc_call_on_cancel: the job goes on, a retry with the same
 *     request_id attaches to it; with cancel_on_disconnect a departed Prove cancels its job
 *     when it was the job's last waiting caller), or by the service's one timer thread
 *     ("cuzk-rpc-timer") when an AwaitProof's timeout_ms passes. N parked calls cost N small
 *     records and no thread, and a result is answered as soon as the job is final.
 * cuzk_service_stop refuses new calls and waits until every call has been answered: after a
 * cuzk_engine_shutdown every job is final, so every parked wait is answered and this ends.
 * Thread-safety: handlers are called by the gRPC thread; the render functions from any thread.
 *
 * TEST HOOK, not a setting: the environment variable CUZK_TEST_PAUSE_AFTER_ANSWER_MS (1..60000,
 * read once by cuzk_service_create, which logs a warning when it is set) keeps each blocking
 * call's record that long after its call is answered (on the timer) before it is freed. It
 * widens, to a length a test can rely on, the window in which a call that gave its slot back
 * only when its record ends would still hold it: tests/daemon/slot_race.mjs sends each call as
 * soon as the previous answer comes, with max_blocking_calls = 1, and no call may be refused.
 * Unset, it costs one test of a field per blocking call. */
#ifndef CUZK_SERVER_SERVICE_H
#define CUZK_SERVER_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "server/grpc_server.h"

/* The test hook's environment variable (see above). */
#define CUZK_SERVICE_TEST_PAUSE_ENV "CUZK_TEST_PAUSE_AFTER_ANSWER_MS"

struct cuzk_service;

struct cuzk_service_config {
    struct cuzk_engine *engine; /* must outlive the service */
    int64_t max_blocking_calls;
    /* SubmitProof / Prove bytes in flight, each request's counted from its arrival (before
     * it is decoded) until the engine holds none of them (cuzk_job_request.input_done); a
     * call that would pass it is RESOURCE_EXHAUSTED. 0 = no cap. */
    uint64_t max_input_bytes;
    /* 1: a Prove whose client goes away cancels its job, unless another Prove or AwaitProof of
     * the same job still waits (daemon.cancel_on_disconnect); 0: the job goes on. */
    int cancel_on_disconnect;
};

/* Returns CUZK_OK, CUZK_ENOMEM. */
int cuzk_service_create(const struct cuzk_service_config *cfg, struct cuzk_service **out);
/* The eight methods of cuzk.v1.ProvingEngine; their handlers take the service as ctx. */
const struct cuzk_rpc_method *cuzk_service_methods(size_t *n);
/* Refuses new calls (UNAVAILABLE), waits until every blocking call has been answered (its
 * work thread done, its parked wait answered), then ends the timer thread. Parked waits end with
 * their jobs: shut the engine down first (or let the clients leave), else this waits for them. */
void cuzk_service_stop(struct cuzk_service *s);
/* Blocking calls not answered yet (SubmitProof, Prove, AwaitProof, PreloadSRS, EvictSRS): what
 * a shutdown still waits for. Each holds one of daemon.max_blocking_calls' slots, given back
 * before its answer is sent, so a client's next call after an answer never finds its own last
 * call's slot still taken. */
int64_t cuzk_service_waiting(const struct cuzk_service *s);
/* After the gRPC server that serves it is destroyed (a call's cancel notification may come until
 * then). */
void cuzk_service_destroy(struct cuzk_service *s);

/* GET /status: the engine's status JSON (docs/engine.md); GET /metrics: metrics.h. Both take
 * the service as ctx (cuzk_http_render). */
char *cuzk_service_render_status(void *service, size_t *len);
char *cuzk_service_render_metrics(void *service, size_t *len);

#endif
