/* The Prove call and the single and batch subcommands (output formats as cuzk's bench). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/error.h"
#include "util/log.h"
#include "util/rand.h"

#define PROVE_METHOD "/cuzk.v1.ProvingEngine/Prove"

double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *bench_status_label(int status) {
    switch (status) {
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED: return "COMPLETED";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED: return "FAILED";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED: return "CANCELLED";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT: return "TIMEOUT";
    default: return "UNKNOWN";
    }
}

int bench_open_client(const struct bench_args *a, struct cuzk_client **c) {
    char err[256];
    int rc = cuzk_client_open(c, a->addr, NULL, err, sizeof err);
    if (rc == CUZK_OK) return BENCH_OK;
    fprintf(stderr, "cuzk-bench: %s\n", err);
    return rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_USAGE;
}

int bench_prove(struct cuzk_client *c, const struct bench_input *in, const char *request_id,
                double timeout_s, struct bench_outcome *out) {
    memset(out, 0, sizeof *out);
    Cuzk__V1__SubmitProofRequest sub = in->tmpl;
    sub.request_id = (char *)request_id;
    if (in->random_seed && cuzk_rand_bytes(&sub.sector_number, sizeof sub.sector_number))
        sub.sector_number = (uint64_t)(bench_now_ms() * 1e3);
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = &sub;
    ProtobufCMessage *msg = NULL;
    double t0 = bench_now_ms();
    out->rc =
        cuzk_client_call_pb(c, PROVE_METHOD, &req.base, &cuzk__v1__prove_response__descriptor,
                            (int64_t)(timeout_s * 1e3), &msg, NULL, out->err, sizeof out->err);
    out->wall_ms = bench_now_ms() - t0;
    if (out->rc) return out->rc;
    const Cuzk__V1__ProveResponse *pr = (const Cuzk__V1__ProveResponse *)msg;
    const Cuzk__V1__AwaitProofResponse *r = pr->result;
    if (!r) {
        snprintf(out->err, sizeof out->err, "Prove: empty response");
        out->rc = CUZK_EFORMAT;
    } else {
        out->status = (int)r->status;
        snprintf(out->job_id, sizeof out->job_id, "%s", r->job_id);
        snprintf(out->error, sizeof out->error, "%s", r->error_message);
        out->total_ms = r->total_ms;
        out->queue_ms = r->queue_wait_ms;
        out->srs_ms = r->srs_load_ms;
        out->synth_ms = r->synthesis_ms;
        out->gpu_ms = r->gpu_compute_ms;
        if (r->proof.len && (out->proof = malloc(r->proof.len))) {
            memcpy(out->proof, r->proof.data, r->proof.len);
            out->proof_len = r->proof.len;
        }
    }
    protobuf_c_message_free_unpacked(msg, NULL);
    return out->rc;
}

void bench_outcome_free(struct bench_outcome *o) {
    free(o->proof);
    o->proof = NULL;
    o->proof_len = 0;
}

static void print_hex(const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

/* The result block of cuzk's bench, byte for byte. */
static void print_result(const struct bench_outcome *o) {
    printf("\n=== Proof Result ===\n");
    printf("status:    %s\n", bench_status_label(o->status));
    printf("job_id:    %s\n", o->job_id);
    if (o->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        printf("timings:   total=%" PRIu64 " ms (queue=%" PRIu64 " ms, srs=%" PRIu64
               " ms, synth=%" PRIu64 " ms, gpu=%" PRIu64 " ms)\n",
               o->total_ms, o->queue_ms, o->srs_ms, o->synth_ms, o->gpu_ms);
        printf("wall time: %" PRIu64 " ms\n", (uint64_t)o->wall_ms);
        printf("proof:     %zu bytes (hex: ", o->proof_len);
        if (o->proof_len <= 256) {
            print_hex(o->proof, o->proof_len);
        } else {
            print_hex(o->proof, 128);
            printf("...");
        }
        printf(")\n");
    } else {
        printf("error:     %s\n", o->error);
    }
}

/* The request's input and a client to the daemon, for single and batch: on error, says why on
 * stderr and holds nothing. */
static int open_input_client(const struct bench_args *a, struct bench_input *in,
                             struct cuzk_client **c) {
    char err[512];
    int rc = bench_input_load(in, a, NULL, NULL, NULL, err, sizeof err);
    if (rc) fprintf(stderr, "cuzk-bench: %s\n", err);
    if (!rc) rc = bench_open_client(a, c);
    if (rc) bench_input_free(in);
    return rc;
}

int bench_cmd_single(const struct bench_args *a) {
    struct bench_input in;
    struct cuzk_client *c;
    int rc = open_input_client(a, &in, &c);
    if (rc) return rc;
    char uuid[37];
    bench_uuid(uuid);
    const char *id = a->request_id ? a->request_id : uuid;
    CUZK_LOG(CUZK_LOG_INFO, "bench", "submitting proof proof_type=%s request_id=%s", in.label, id);
    struct bench_progress p;
    bench_progress_start(&p, a, c, "proving", 1);
    atomic_store(&p.running, 1);
    struct bench_outcome o;
    bench_prove(c, &in, id, a->timeout_s, &o);
    atomic_store(&p.running, 0);
    atomic_fetch_add(&p.done, 1);
    bench_progress_stop(&p);
    if (o.rc) {
        fprintf(stderr, "cuzk-bench: Prove RPC failed: %s\n", o.err);
        rc = BENCH_ERROR;
    } else {
        print_result(&o);
        rc = o.status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? BENCH_OK
                                                                           : BENCH_PROOF_FAILED;
        if (rc == BENCH_OK && a->proof_out) {
            FILE *f = fopen(a->proof_out, "wb");
            if (!f || fwrite(o.proof, 1, o.proof_len, f) != o.proof_len) {
                fprintf(stderr, "cuzk-bench: cannot write %s\n", a->proof_out);
                rc = BENCH_ERROR;
            }
            if (f && fclose(f)) rc = BENCH_ERROR;
        }
    }
    fflush(stdout);
    bench_outcome_free(&o);
    cuzk_client_close(c);
    bench_input_free(&in);
    return rc;
}

/* ---- batch -------------------------------------------------------------------------------- */

struct batch {
    const struct bench_args *a;
    const struct bench_input *in;
    struct cuzk_client *client;
    struct bench_progress *progress;
    struct bench_outcome *results;
    uint8_t *ready;
    atomic_uint next;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static void *batch_worker(void *arg) {
    struct batch *b = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&b->next, 1);
        if (i >= b->a->count) break;
        char id[37];
        bench_uuid(id);
        atomic_fetch_add(&b->progress->running, 1);
        struct bench_outcome o;
        bench_prove(b->client, b->in, id, b->a->timeout_s, &o);
        bench_outcome_free(&o); /* batch reports sizes and times only */
        atomic_fetch_sub(&b->progress->running, 1);
        atomic_fetch_add(&b->progress->done, 1);
        atomic_fetch_add(o.rc == CUZK_OK &&
                                 o.status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED
                             ? &b->progress->ok
                             : &b->progress->failed,
                         1);
        pthread_mutex_lock(&b->lock);
        b->results[i] = o;
        b->ready[i] = 1;
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

struct stats {
    double avg, min, max;
};

static struct stats stats_of(const double *v, size_t n) {
    struct stats s = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        s.avg += v[i];
        if (i == 0 || v[i] < s.min) s.min = v[i];
        if (i == 0 || v[i] > s.max) s.max = v[i];
    }
    if (n) s.avg /= (double)n;
    return s;
}

int bench_cmd_batch(const struct bench_args *a) {
    struct bench_input in;
    struct cuzk_client *c;
    int rc = open_input_client(a, &in, &c);
    if (rc) return rc;
    unsigned n = a->count, j = a->concurrency ? a->concurrency : 1;
    printf("=== Batch Benchmark ===\n");
    printf("proof type:  %s\n", in.label);
    printf("count:       %u\n", n);
    printf("concurrency: %u\n", a->concurrency);
    printf("\n");
    fflush(stdout);

    struct bench_progress p;
    struct batch b = {.a = a, .in = &in, .client = c, .progress = &p};
    b.results = calloc(n ? n : 1, sizeof *b.results);
    b.ready = calloc(n ? n : 1, 1);
    double *wall = malloc((n ? n : 1) * sizeof *wall), *prove = malloc((n ? n : 1) * sizeof *prove);
    pthread_t *th = calloc(j, sizeof *th);
    if (!b.results || !b.ready || !wall || !prove || !th) {
        fprintf(stderr, "cuzk-bench: out of memory\n");
        rc = BENCH_INTERNAL;
        goto out;
    }
    atomic_init(&b.next, 0);
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.cond, NULL);
    bench_progress_start(&p, a, c, "batch", n);
    double t0 = bench_now_ms();
    unsigned started = 0;
    for (; started < j && started < n; started++)
        if (pthread_create(&th[started], NULL, batch_worker, &b)) break;
    if (started == 0 && n) batch_worker(&b); /* no thread could start: run inline */

    /* Results in submit order, as each becomes available. */
    size_t completed = 0, failed = 0;
    for (unsigned i = 0; i < n; i++) {
        pthread_mutex_lock(&b.lock);
        while (!b.ready[i]) pthread_cond_wait(&b.cond, &b.lock);
        pthread_mutex_unlock(&b.lock);
        const struct bench_outcome *o = &b.results[i];
        pthread_mutex_lock(&p.out_lock);
        bench_progress_clear_locked(&p);
        if (o->rc) {
            printf("  [%u/%u] ERROR \u2014 %.1fs (%s)\n", i + 1, n, o->wall_ms / 1e3, o->err);
            failed++;
        } else {
            printf("  [%u/%u] %s \u2014 %.1fs (prove=%" PRIu64 " ms, queue=%" PRIu64 " ms)\n",
                   i + 1, n, bench_status_label(o->status), o->wall_ms / 1e3, o->gpu_ms,
                   o->queue_ms);
            if (o->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
                wall[completed] = o->wall_ms / 1e3;
                prove[completed] = (double)o->gpu_ms / 1e3;
                completed++;
            } else {
                failed++;
            }
        }
        fflush(stdout);
        pthread_mutex_unlock(&p.out_lock);
    }
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    double elapsed = (bench_now_ms() - t0) / 1e3;
    bench_progress_stop(&p);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.cond);

    printf("\n");
    printf("=== Batch Summary ===\n");
    printf("total time:    %.1fs\n", elapsed);
    printf("completed:     %zu\n", completed);
    printf("failed:        %zu\n", failed);
    if (completed) {
        struct stats w = stats_of(wall, completed), g = stats_of(prove, completed);
        printf("wall time:     avg=%.1fs min=%.1fs max=%.1fs\n", w.avg, w.min, w.max);
        printf("prove time:    avg=%.1fs min=%.1fs max=%.1fs\n", g.avg, g.min, g.max);
        printf("throughput:    %.3f proofs/min (%.1fs/proof)\n", (double)completed / elapsed * 60.0,
               elapsed / (double)completed);
    }
    fflush(stdout);
    rc = failed ? BENCH_PROOF_FAILED : BENCH_OK;
out:
    free(th);
    free(wall);
    free(prove);
    free(b.ready);
    free(b.results);
    cuzk_client_close(c);
    bench_input_free(&in);
    return rc;
}
