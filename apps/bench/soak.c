/* soak: thousands of mixed small jobs against a running daemon, with its memory sampled, to
 * show that memory stays flat over a long uptime (and fail when it does not).
 *
 * Each of -j workers takes the next job number until -c jobs are done. Job i is, by its
 * number: a request the daemon must refuse (SOAK_BAD_EVERY: a Filecoin kind given garbage, a
 * priority out of range, an unknown kind, a message that does not decode; each must come back
 * INVALID_ARGUMENT), a job cancelled at once (SOAK_CANCEL_EVERY: SubmitProof, CancelProof,
 * AwaitProof: CANCELLED, or COMPLETED when it won the race), or a Prove of a --mix entry drawn
 * by weight (COMPLETED). Every --every jobs the worker that finished the job samples the
 * daemon's VmRSS (/proc/PID/status) and, from GetStatus, the device memory in use
 * (vram_total - vram_free of each GPU: every process on the device), and prints a CSV row.
 * After the last job the daemon is given time to settle (its queues empty, then
 * SOAK_SETTLE_MS) and sampled once more: the final row.
 *
 * The check (--max-growth M): the plateau is the median of the samples taken after --warmup
 * jobs (the median, so that one sample caught mid-job, or one step of the heap, does not move
 * it), and the final RSS must be within M MiB of it. A leak of L bytes per job shows as about
 * L x (count - the plateau's middle) bytes above the plateau: with 2,000 jobs, a warm-up of
 * 500 and M = 2, anything from about 3 KiB per job fails. */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/error.h"
#include "util/rand.h"

#define SOAK_MIX_MAX 16
#define SOAK_BAD_EVERY 10    /* job i with i % 10 == 3: a request that must be refused */
#define SOAK_CANCEL_EVERY 10 /* job i with i % 10 == 7: a job cancelled at once */
#define SOAK_SETTLE_MS 2000  /* after the queues are empty, before the final sample */
#define SOAK_DEFAULT_MIX                                                                           \
    "synthetic=256@low:4,synthetic=1024x2@normal:3,synthetic=512x4@high:2,"                        \
    "synthetic=2048@critical:1"

#define M_PREFIX "/cuzk.v1.ProvingEngine/"

struct sample {
    uint64_t jobs;
    double seconds;
    uint64_t rss_kib;
    int64_t device_mib; /* -1: no GPU reported */
};

struct soak {
    const struct bench_args *a;
    struct bench_mix_entry mix[SOAK_MIX_MAX];
    struct bench_input in[SOAK_MIX_MAX];
    int n_mix;
    unsigned weight_sum;
    struct cuzk_client *client;
    int pid;
    double t0;
    atomic_uint_fast64_t next, done;
    atomic_uint_fast64_t completed, cancelled, refused, errors;
    pthread_mutex_t lock; /* samples, stdout */
    struct sample *samples;
    size_t n_samples;
};

/* The daemon's pid: the one process named cuzk-daemon, or 0 (none, or several). */
static int find_daemon(void) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int found = 0, n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f) && !strcmp(comm, "cuzk-daemon\n")) {
            found = atoi(e->d_name);
            n++;
        }
        fclose(f);
    }
    closedir(d);
    return n == 1 ? found : 0;
}

/* VmRSS of pid in KiB, or 0 when it cannot be read (the daemon is gone). */
static uint64_t rss_kib(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    uint64_t kib = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = strtoull(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

/* GetStatus: the device memory in use (MiB, -1 without a GPU) and the partitions still queued
 * or running. Returns CUZK_OK or the call's error. */
static int daemon_status(struct soak *s, int64_t *device_mib, uint64_t *busy) {
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *msg = NULL;
    char err[256];
    int rc = cuzk_client_call_pb(s->client, M_PREFIX "GetStatus", &req.base,
                                 &cuzk__v1__get_status_response__descriptor, 10000, &msg, NULL, err,
                                 sizeof err);
    *device_mib = -1;
    *busy = 0;
    if (rc) return rc;
    const Cuzk__V1__GetStatusResponse *st = (const Cuzk__V1__GetStatusResponse *)msg;
    uint64_t used = 0;
    int any = 0;
    for (size_t i = 0; i < st->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = st->gpus[i];
        if (!g->vram_total_bytes) continue;
        any = 1;
        used += g->vram_total_bytes - g->vram_free_bytes;
    }
    if (any) *device_mib = (int64_t)(used >> 20);
    for (size_t i = 0; i < st->n_queues; i++)
        *busy += st->queues[i]->pending + st->queues[i]->in_progress;
    protobuf_c_message_free_unpacked(msg, NULL);
    return CUZK_OK;
}

static void take_sample(struct soak *s, uint64_t jobs, int final) {
    int64_t dev;
    uint64_t busy;
    daemon_status(s, &dev, &busy);
    struct sample x = {jobs, (bench_now_ms() - s->t0) / 1e3, rss_kib(s->pid), dev};
    pthread_mutex_lock(&s->lock);
    struct sample *n = realloc(s->samples, (s->n_samples + 1) * sizeof *n);
    if (n) {
        s->samples = n;
        s->samples[s->n_samples++] = x;
    }
    if (final) printf("# settled: the daemon's queues empty, then %d ms\n", SOAK_SETTLE_MS);
    printf("%" PRIu64 ",%.1f,%.1f,", x.jobs, x.seconds, (double)x.rss_kib / 1024.0);
    if (dev >= 0) printf("%" PRId64, dev);
    printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
           (uint64_t)atomic_load(&s->completed), (uint64_t)atomic_load(&s->cancelled),
           (uint64_t)atomic_load(&s->refused), (uint64_t)atomic_load(&s->errors));
    fflush(stdout);
    pthread_mutex_unlock(&s->lock);
}

static void report_error(struct soak *s, uint64_t i, const char *what, const char *why) {
    atomic_fetch_add(&s->errors, 1);
    pthread_mutex_lock(&s->lock);
    fprintf(stderr, "cuzk-bench: soak job %" PRIu64 " (%s): %s\n", i, what, why);
    pthread_mutex_unlock(&s->lock);
}

/* A request the daemon must refuse with INVALID_ARGUMENT, one of four by i. */
static void bad_job(struct soak *s, uint64_t i, const char *id) {
    static const char *const what[] = {"garbage PoRep input", "priority 9", "unknown kind",
                                       "undecodable message"};
    const int k = (int)((i / SOAK_BAD_EVERY) % 4);
    uint8_t junk[4096];
    for (size_t b = 0; b < sizeof junk; b++) junk[b] = (uint8_t)(i * 131 + b * 7);
    Cuzk__V1__SubmitProofRequest sub = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    sub.request_id = (char *)id;
    ProtobufCBinaryData sel = {sizeof "nosuch:1" - 1, (uint8_t *)"nosuch:1"};
    switch (k) {
    case 0: /* a Filecoin kind whose vanilla proof does not parse */
        sub.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
        sub.vanilla_proof.data = junk;
        sub.vanilla_proof.len = sizeof junk;
        break;
    case 1:
        sub = s->in[0].tmpl;
        sub.request_id = (char *)id;
        sub.priority = (Cuzk__V1__Priority)9;
        break;
    case 2:
        sub.n_vanilla_proofs = 1;
        sub.vanilla_proofs = &sel;
        break;
    default: break;
    }
    int status = -1;
    char err[512];
    void *resp = NULL;
    size_t resp_len = 0;
    int rc;
    if (k == 3) { /* field 1 (request_id) of length 200 with 16 bytes behind it */
        const uint8_t cut[] = {0x0a, 0xc8, 0x01, 'x', 'x', 'x', 'x', 'x', 'x', 'x',
                               'x',  'x',  'x',  'x', 'x', 'x', 'x', 'x', 'x'};
        rc = cuzk_client_call(s->client, M_PREFIX "SubmitProof", cut, sizeof cut, 60000, &resp,
                              &resp_len, &status, err, sizeof err);
        free(resp);
    } else {
        Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
        req.submit = &sub;
        ProtobufCMessage *msg = NULL;
        rc = cuzk_client_call_pb(s->client, M_PREFIX "Prove", &req.base,
                                 &cuzk__v1__prove_response__descriptor, 60000, &msg, &status, err,
                                 sizeof err);
        if (msg) protobuf_c_message_free_unpacked(msg, NULL);
    }
    if (rc != CUZK_OK && status == 3 /* INVALID_ARGUMENT */)
        atomic_fetch_add(&s->refused, 1);
    else
        report_error(s, i, what[k], rc == CUZK_OK ? "accepted: it must be refused" : err);
}

/* A job of entry e cancelled as soon as it is queued. */
static void cancel_job(struct soak *s, uint64_t i, int e, const char *id) {
    Cuzk__V1__SubmitProofRequest sub = s->in[e].tmpl;
    sub.request_id = (char *)id;
    if (s->in[e].random_seed) sub.sector_number = i;
    ProtobufCMessage *msg = NULL;
    char err[512];
    int rc = cuzk_client_call_pb(s->client, M_PREFIX "SubmitProof", &sub.base,
                                 &cuzk__v1__submit_proof_response__descriptor, 60000, &msg, NULL,
                                 err, sizeof err);
    if (msg) protobuf_c_message_free_unpacked(msg, NULL), msg = NULL;
    if (rc) {
        report_error(s, i, "SubmitProof to cancel", err);
        return;
    }
    Cuzk__V1__CancelProofRequest c = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    c.job_id = (char *)id;
    rc = cuzk_client_call_pb(s->client, M_PREFIX "CancelProof", &c.base,
                             &cuzk__v1__cancel_proof_response__descriptor, 60000, &msg, NULL, err,
                             sizeof err);
    if (msg) protobuf_c_message_free_unpacked(msg, NULL), msg = NULL;
    if (rc) {
        report_error(s, i, "CancelProof", err);
        return;
    }
    Cuzk__V1__AwaitProofRequest w = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    w.job_id = (char *)id;
    rc = cuzk_client_call_pb(s->client, M_PREFIX "AwaitProof", &w.base,
                             &cuzk__v1__await_proof_response__descriptor, 600000, &msg, NULL, err,
                             sizeof err);
    const Cuzk__V1__AwaitProofResponse *r = (const Cuzk__V1__AwaitProofResponse *)msg;
    if (rc)
        report_error(s, i, "AwaitProof of a cancelled job", err);
    else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED)
        atomic_fetch_add(&s->cancelled, 1);
    else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
        atomic_fetch_add(&s->completed, 1); /* it ended before the cancel came */
    else
        report_error(s, i, "a cancelled job", bench_status_label((int)r->status));
    if (msg) protobuf_c_message_free_unpacked(msg, NULL);
}

static void *soak_worker(void *arg) {
    struct soak *s = arg;
    struct cuzk_rng rng;
    uint64_t seed;
    if (cuzk_rand_bytes(&seed, sizeof seed)) seed = (uint64_t)(uintptr_t)&rng;
    cuzk_rng_seed(&rng, seed);
    const uint64_t count = s->a->count, every = s->a->soak_every;
    for (;;) {
        const uint64_t i = atomic_fetch_add(&s->next, 1);
        if (i >= count) break;
        unsigned r = (unsigned)(cuzk_rng_u64(&rng) % s->weight_sum);
        int e = 0;
        while (r >= s->mix[e].weight) r -= s->mix[e++].weight;
        char id[37];
        bench_uuid(id);
        if (i % SOAK_BAD_EVERY == 3) {
            bad_job(s, i, id);
        } else if (i % SOAK_CANCEL_EVERY == 7) {
            cancel_job(s, i, e, id);
        } else {
            struct bench_outcome o;
            bench_prove(s->client, &s->in[e], id, s->a->timeout_s, &o);
            bench_outcome_free(&o);
            if (o.rc)
                report_error(s, i, "Prove", o.err);
            else if (o.status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
                report_error(s, i, "Prove", o.error[0] ? o.error : bench_status_label(o.status));
            else
                atomic_fetch_add(&s->completed, 1);
        }
        const uint64_t done = atomic_fetch_add(&s->done, 1) + 1;
        if (done % every == 0) take_sample(s, done, 0);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The verdict on the samples: 0 when the final RSS is within max_growth of the plateau (or no
 * check was asked for), 1 otherwise. */
static int verdict(const struct soak *s) {
    const struct bench_args *a = s->a;
    if (s->n_samples < 2) {
        printf("# soak: too few samples for a plateau\n");
        return a->soak_max_growth_mib > 0;
    }
    const struct sample *fin = &s->samples[s->n_samples - 1];
    uint64_t *v = malloc(s->n_samples * sizeof *v);
    size_t n = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t k = 0; v && k + 1 < s->n_samples; k++) {
        const struct sample *x = &s->samples[k];
        if (x->jobs <= a->soak_warmup) continue;
        v[n++] = x->rss_kib;
        sx += (double)x->jobs, sy += (double)x->rss_kib;
        sxx += (double)x->jobs * (double)x->jobs, sxy += (double)x->jobs * (double)x->rss_kib;
    }
    if (n < 3) {
        free(v);
        printf("# soak: fewer than 3 samples after %u jobs: no plateau\n", a->soak_warmup);
        return a->soak_max_growth_mib > 0;
    }
    qsort(v, n, sizeof *v, cmp_u64);
    const double plateau =
        (n & 1 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2) / 1024;
    const double first = (double)s->samples[0].rss_kib / 1024, final = (double)fin->rss_kib / 1024;
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); /* KiB per job */
    free(v);
    printf("# soak: RSS first %.1f MiB, plateau %.1f MiB (median of %zu samples after %u jobs), "
           "final %.1f MiB (%+.1f MiB), trend %+.2f KiB/job over the plateau\n",
           first, plateau, n, a->soak_warmup, final, final - plateau, slope);
    if (a->soak_max_growth_mib <= 0) return 0;
    const int ok = final <= plateau + a->soak_max_growth_mib;
    printf("# soak: %s: the final RSS is %s %.1f MiB above the plateau\n", ok ? "PASS" : "FAIL",
           ok ? "within" : "more than", a->soak_max_growth_mib);
    return !ok;
}

int bench_cmd_soak(const struct bench_args *a) {
    struct soak *s = calloc(1, sizeof *s);
    if (!s) return BENCH_INTERNAL;
    s->a = a;
    const char *spec = a->mix ? a->mix : a->type ? a->type : SOAK_DEFAULT_MIX;
    int rc = bench_mix_load(a, spec, s->mix, SOAK_MIX_MAX, s->in, &s->n_mix);
    if (rc) {
        free(s);
        return rc;
    }
    const int loaded = s->n_mix;
    for (int i = 0; i < s->n_mix; i++) s->weight_sum += s->mix[i].weight;
    s->pid = a->pid ? (int)a->pid : find_daemon();
    if (s->pid <= 0 || !rss_kib(s->pid)) {
        fprintf(stderr, "cuzk-bench: soak: %s\n",
                a->pid ? "cannot read the memory of --pid"
                       : "no single cuzk-daemon process: give --pid");
        rc = BENCH_USAGE;
        goto out;
    }
    if ((rc = bench_open_client(a, &s->client))) goto out;
    pthread_mutex_init(&s->lock, NULL);
    printf("# soak: %u jobs, %u at a time, daemon pid %d, mix %s; 1 in %d refused, 1 in %d "
           "cancelled\n",
           a->count, a->concurrency, s->pid, spec, SOAK_BAD_EVERY, SOAK_CANCEL_EVERY);
    printf("jobs,seconds,rss_mib,device_used_mib,completed,cancelled,refused,errors\n");
    s->t0 = bench_now_ms();
    take_sample(s, 0, 0);
    unsigned j = a->concurrency ? a->concurrency : 1, started = 0;
    pthread_t th[256];
    if (j > 256) j = 256;
    for (; started < j; started++)
        if (pthread_create(&th[started], NULL, soak_worker, s)) break;
    if (started == 0) soak_worker(s);
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    /* cancelled jobs may still be draining: the queues empty, then a pause */
    for (int k = 0; k < 600; k++) {
        int64_t dev;
        uint64_t busy;
        if (daemon_status(s, &dev, &busy) || !busy) break;
        usleep(100 * 1000);
    }
    usleep(SOAK_SETTLE_MS * 1000);
    take_sample(s, atomic_load(&s->done), 1);
    const uint64_t errors = atomic_load(&s->errors);
    printf("# soak: %.1f s: %" PRIu64 " completed, %" PRIu64 " cancelled, %" PRIu64
           " refused as they must be, %" PRIu64 " errors\n",
           (bench_now_ms() - s->t0) / 1e3, (uint64_t)atomic_load(&s->completed),
           (uint64_t)atomic_load(&s->cancelled), (uint64_t)atomic_load(&s->refused), errors);
    rc = verdict(s) || errors ? BENCH_PROOF_FAILED : BENCH_OK;
    pthread_mutex_destroy(&s->lock);
out:
    for (int i = 0; i < loaded; i++) bench_input_free(&s->in[i]);
    cuzk_client_close(s->client);
    free(s->samples);
    free(s);
    return rc;
}
