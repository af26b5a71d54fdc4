/* status, preload and metrics: one RPC each, printed as cuzk's bench prints them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuzk/error.h"

/* One call with the usual failure report ("<Method> RPC failed: <reason>"). */
static int call(const struct bench_args *a, const char *rpc, const ProtobufCMessage *req,
                const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp) {
    struct cuzk_client *c;
    int rc = bench_open_client(a, &c);
    if (rc) return rc;
    char method[96], err[512];
    snprintf(method, sizeof method, "/cuzk.v1.ProvingEngine/%s", rpc);
    int crc = cuzk_client_call_pb(c, method, req, desc, (int64_t)(a->timeout_s * 1e3), resp, NULL,
                                  err, sizeof err);
    cuzk_client_close(c);
    if (crc == CUZK_OK) return BENCH_OK;
    fprintf(stderr, "cuzk-bench: %s RPC failed: %s\n", rpc, err);
    return crc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
}

int bench_cmd_status(const struct bench_args *a) {
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *msg;
    int rc = call(a, "GetStatus", &req.base, &cuzk__v1__get_status_response__descriptor, &msg);
    if (rc) return rc;
    const Cuzk__V1__GetStatusResponse *s = (const Cuzk__V1__GetStatusResponse *)msg;
    printf("=== cuzk daemon status ===\n");
    printf("uptime:           %" PRIu64 "s\n", s->uptime_seconds);
    printf("proofs completed: %" PRIu64 "\n", s->total_proofs_completed);
    printf("proofs failed:    %" PRIu64 "\n", s->total_proofs_failed);
    printf("pinned memory:    %" PRIu64 " / %" PRIu64 " bytes\n", s->pinned_memory_bytes,
           s->pinned_memory_limit_bytes);
    if (s->n_gpus) {
        printf("\nGPUs:\n");
        for (size_t i = 0; i < s->n_gpus; i++) {
            const Cuzk__V1__GPUStatus *g = s->gpus[i];
            printf("  [%" PRIu32 "] %s \u2014 %" PRIu64 " MiB / %" PRIu64 " MiB VRAM \u2014 ",
                   g->ordinal, g->name, g->vram_free_bytes >> 20, g->vram_total_bytes >> 20);
            if (!g->current_job_id[0])
                printf("idle\n");
            else /* the first 8 bytes of the job id, as cuzk prints it */
                printf("proving %s (%.8s)\n", g->current_proof_kind, g->current_job_id);
        }
    }
    if (s->n_loaded_srs) {
        printf("\nLoaded SRS:\n");
        for (size_t i = 0; i < s->n_loaded_srs; i++) {
            const Cuzk__V1__SRSStatus *r = s->loaded_srs[i];
            printf("  %s (tier=%d, size=%" PRIu64 " bytes, refs=%" PRIu32 ")\n", r->circuit_id,
                   (int)r->tier, r->size_bytes, r->ref_count);
        }
    }
    if (s->n_queues) {
        printf("\nQueues:\n");
        for (size_t i = 0; i < s->n_queues; i++) {
            const Cuzk__V1__QueueStatus *q = s->queues[i];
            printf("  %s: pending=%" PRIu32 ", in_progress=%" PRIu32 "\n", q->proof_kind,
                   q->pending, q->in_progress);
        }
    }
    protobuf_c_message_free_unpacked(msg, NULL);
    return BENCH_OK;
}

int bench_cmd_preload(const struct bench_args *a) {
    if (!a->circuit_id) {
        fprintf(stderr, "cuzk-bench: preload needs -c/--circuit-id\n");
        return BENCH_USAGE;
    }
    Cuzk__V1__PreloadSrsRequest req = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    req.circuit_id = (char *)a->circuit_id;
    ProtobufCMessage *msg;
    int rc = call(a, "PreloadSRS", &req.base, &cuzk__v1__preload_srs_response__descriptor, &msg);
    if (rc) return rc;
    const Cuzk__V1__PreloadSrsResponse *r = (const Cuzk__V1__PreloadSrsResponse *)msg;
    if (r->already_loaded)
        printf("%s already loaded\n", a->circuit_id);
    else
        printf("%s loaded in %" PRIu64 " ms\n", a->circuit_id, r->load_time_ms);
    protobuf_c_message_free_unpacked(msg, NULL);
    return BENCH_OK;
}

int bench_cmd_metrics(const struct bench_args *a) {
    Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
    ProtobufCMessage *msg;
    int rc = call(a, "GetMetrics", &req.base, &cuzk__v1__get_metrics_response__descriptor, &msg);
    if (rc) return rc;
    fputs(((const Cuzk__V1__GetMetricsResponse *)msg)->prometheus_text, stdout);
    protobuf_c_message_free_unpacked(msg, NULL);
    return BENCH_OK;
}
