/* stress: a closed-loop load of mixed proof types and priorities for a fixed duration.
 *
 * Each of -j workers repeatedly draws a mix entry (weighted at random), proves it and records
 * the outcome, until --duration has passed since the start; proofs in flight then finish and
 * count. Every entry loads its inputs once. The summary reports, per entry, the latency
 * distribution of the completed proofs, so the effect of priorities under load is visible
 * (a CRITICAL entry's p95 against a LOW entry's). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/error.h"
#include "util/rand.h"

#define MIX_MAX 16
#define STRESS_ERROR_BACKOFF_MS 200 /* pause of a worker after a failed call */

int bench_mix_parse(const char *spec, struct bench_mix_entry *out, int max, char *err,
                    size_t errlen) {
    int n = 0;
    const char *p = spec;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[160];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "--mix: empty or over-long entry");
            return -1;
        }
        if (n == max) {
            snprintf(err, errlen, "--mix: more than %d entries", max);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        struct bench_mix_entry *e = &out[n];
        memset(e, 0, sizeof *e);
        e->weight = 1;
        char *colon = strrchr(item, ':');
        if (colon) {
            char *tail;
            unsigned long w = strtoul(colon + 1, &tail, 10);
            if (*tail || colon[1] == 0 || w == 0 || w > 1000000) {
                snprintf(err, errlen, "--mix: weight in '%s' must be a number from 1", item);
                return -1;
            }
            e->weight = (unsigned)w;
            *colon = 0;
        }
        char *at = strrchr(item, '@');
        if (at) {
            Cuzk__V1__Priority pr;
            if (bench_priority_parse(at + 1, &pr) || !at[1]) {
                snprintf(err, errlen, "--mix: unknown priority '%s'", at + 1);
                return -1;
            }
            snprintf(e->priority, sizeof e->priority, "%s", bench_priority_name(pr));
            *at = 0;
        }
        char *eq = strchr(item, '=');
        if (eq) {
            if (!eq[1] || strlen(eq + 1) >= sizeof e->circuit) {
                snprintf(err, errlen, "--mix: bad circuit in '%s'", item);
                return -1;
            }
            snprintf(e->circuit, sizeof e->circuit, "%s", eq + 1);
            *eq = 0;
        }
        char canonical[32];
        Cuzk__V1__ProofKind kind;
        if (strlen(item) >= sizeof e->type ||
            bench_kind_parse(item, canonical, sizeof canonical, &kind)) {
            snprintf(err, errlen, "--mix: unknown proof type '%s'", item);
            return -1;
        }
        memcpy(e->type, item, strlen(item) + 1); /* fits: checked above */
        n++;
        p = end ? end + 1 : NULL;
    }
    if (n == 0) {
        snprintf(err, errlen, "--mix: no entries");
        return -1;
    }
    return n;
}

int bench_mix_load(const struct bench_args *a, const char *spec, struct bench_mix_entry *mix,
                   int max, struct bench_input *in, int *n) {
    char err[512];
    *n = bench_mix_parse(spec, mix, max, err, sizeof err);
    if (*n < 0) {
        fprintf(stderr, "cuzk-bench: %s\n", err);
        return BENCH_USAGE;
    }
    for (int i = 0; i < *n; i++) {
        const struct bench_mix_entry *e = &mix[i];
        int rc = bench_input_load(&in[i], a, e->type, e->circuit, e->priority, err, sizeof err);
        if (rc) {
            fprintf(stderr, "cuzk-bench: mix entry %d (%s): %s\n", i + 1, e->type, err);
            for (int k = 0; k <= i; k++) bench_input_free(&in[k]);
            return rc;
        }
    }
    return BENCH_OK;
}

struct record {
    int entry;
    int ok;
    double wall_ms;
    uint64_t queue_ms, gpu_ms;
};

struct stress {
    const struct bench_args *a;
    struct bench_mix_entry mix[MIX_MAX];
    struct bench_input in[MIX_MAX];
    char names[MIX_MAX][128];
    int n_mix;
    unsigned weight_sum;
    double end_ms;
    struct cuzk_client *client;
    struct bench_progress *progress;
    pthread_mutex_t lock; /* records */
    struct record *rec;
    size_t n_rec, cap_rec;
    int oom;
};

static void *stress_worker(void *arg) {
    struct stress *s = arg;
    struct cuzk_rng rng;
    uint64_t seed;
    if (cuzk_rand_bytes(&seed, sizeof seed)) seed = (uint64_t)(uintptr_t)&rng;
    cuzk_rng_seed(&rng, seed);
    while (bench_now_ms() < s->end_ms) {
        unsigned r = (unsigned)(cuzk_rng_u64(&rng) % s->weight_sum);
        int e = 0;
        while (r >= s->mix[e].weight) r -= s->mix[e++].weight;
        char id[37];
        bench_uuid(id);
        atomic_fetch_add(&s->progress->running, 1);
        struct bench_outcome o;
        bench_prove(s->client, &s->in[e], id, s->a->timeout_s, &o);
        bench_outcome_free(&o);
        int ok = o.rc == CUZK_OK && o.status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
        atomic_fetch_sub(&s->progress->running, 1);
        atomic_fetch_add(&s->progress->done, 1);
        atomic_fetch_add(ok ? &s->progress->ok : &s->progress->failed, 1);

        pthread_mutex_lock(&s->lock);
        if (s->n_rec == s->cap_rec) {
            size_t cap = s->cap_rec ? s->cap_rec * 2 : 256;
            struct record *nr = realloc(s->rec, cap * sizeof *nr);
            if (nr) s->rec = nr, s->cap_rec = cap;
        }
        size_t idx = s->n_rec;
        if (s->n_rec < s->cap_rec)
            s->rec[s->n_rec++] = (struct record){e, ok, o.wall_ms, o.queue_ms, o.gpu_ms};
        else
            s->oom = 1;
        pthread_mutex_unlock(&s->lock);

        pthread_mutex_lock(&s->progress->out_lock);
        bench_progress_clear_locked(s->progress);
        if (o.rc)
            printf("  [%zu] %s ERROR \u2014 %.1fs (%s)\n", idx + 1, s->names[e], o.wall_ms / 1e3,
                   o.err);
        else
            printf("  [%zu] %s %s \u2014 %.1fs (prove=%" PRIu64 " ms, queue=%" PRIu64 " ms)\n",
                   idx + 1, s->names[e], bench_status_label(o.status), o.wall_ms / 1e3, o.gpu_ms,
                   o.queue_ms);
        fflush(stdout);
        pthread_mutex_unlock(&s->progress->out_lock);
        /* an unreachable or refusing daemon answers at once: do not spin on it */
        if (o.rc) usleep(STRESS_ERROR_BACKOFF_MS * 1000);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v (n > 0). */
static double pct(const double *v, size_t n, double q) {
    size_t k = (size_t)ceil(q * (double)n);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

int bench_cmd_stress(const struct bench_args *a) {
    struct stress *s = calloc(1, sizeof *s);
    if (!s) return BENCH_INTERNAL;
    s->a = a;
    int rc = BENCH_OK;
    char deflt[96];
    const char *spec = a->mix;
    if (!spec) { /* no mix: the one type of -t with its --circuit and --priority */
        if (!a->type) {
            fprintf(stderr, "cuzk-bench: stress needs --mix or -t/--type\n");
            free(s);
            return BENCH_USAGE;
        }
        snprintf(deflt, sizeof deflt, "%s", a->type);
        spec = deflt;
    }
    if ((rc = bench_mix_load(a, spec, s->mix, MIX_MAX, s->in, &s->n_mix))) {
        free(s);
        return rc;
    }
    const int loaded = s->n_mix;
    for (int i = 0; i < s->n_mix; i++) {
        const struct bench_mix_entry *e = &s->mix[i];
        const char *circ = e->circuit[0] ? e->circuit : a->circuit;
        /* through a local buffer: GCC cannot see that circ never points into s->names */
        char name[sizeof s->names[i]];
        snprintf(name, sizeof name, "%s%s%s@%s", e->type, circ ? "=" : "", circ ? circ : "",
                 bench_priority_name(s->in[i].tmpl.priority));
        memcpy(s->names[i], name, sizeof name);
        s->weight_sum += e->weight;
    }
    if ((rc = bench_open_client(a, &s->client))) goto out;

    unsigned j = a->concurrency ? a->concurrency : 1;
    printf("=== Stress Benchmark ===\n");
    printf("duration:    %.0fs\n", a->duration_s);
    printf("concurrency: %u\n", j);
    printf("mix:        ");
    for (int i = 0; i < s->n_mix; i++)
        printf(" %s (weight %u)%s", s->names[i], s->mix[i].weight, i + 1 < s->n_mix ? "," : "");
    printf("\n\n");
    fflush(stdout);

    struct bench_progress p;
    pthread_mutex_init(&s->lock, NULL);
    s->progress = &p;
    double t0 = bench_now_ms();
    s->end_ms = t0 + a->duration_s * 1e3;
    bench_progress_start(&p, a, s->client, "stress", 0);
    p.end_ms = s->end_ms;
    pthread_t th[256];
    unsigned started = 0;
    if (j > 256) j = 256;
    for (; started < j; started++)
        if (pthread_create(&th[started], NULL, stress_worker, s)) break;
    if (started == 0) stress_worker(s);
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    double elapsed = (bench_now_ms() - t0) / 1e3;
    bench_progress_stop(&p);
    pthread_mutex_destroy(&s->lock);

    size_t ok = 0;
    for (size_t i = 0; i < s->n_rec; i++) ok += (size_t)s->rec[i].ok;
    printf("\n=== Stress Summary ===\n");
    printf("total time:    %.1fs\n", elapsed);
    printf("completed:     %zu\n", ok);
    printf("failed:        %zu\n", s->n_rec - ok);
    if (ok)
        printf("throughput:    %.3f proofs/min (%.1fs/proof)\n", (double)ok / elapsed * 60.0,
               elapsed / (double)ok);
    printf("%-32s %6s %6s %6s %9s %8s %8s %8s %11s\n", "entry", "count", "ok", "fail", "wall avg",
           "p50", "p95", "max", "queue avg");
    double *v = malloc((s->n_rec ? s->n_rec : 1) * sizeof *v);
    for (int e = 0; v && e < s->n_mix; e++) {
        size_t n = 0, cnt = 0;
        double sum = 0, qsum = 0;
        for (size_t i = 0; i < s->n_rec; i++) {
            if (s->rec[i].entry != e) continue;
            cnt++;
            if (!s->rec[i].ok) continue;
            v[n++] = s->rec[i].wall_ms / 1e3;
            sum += s->rec[i].wall_ms / 1e3;
            qsum += (double)s->rec[i].queue_ms;
        }
        printf("%-32s %6zu %6zu %6zu", s->names[e], cnt, n, cnt - n);
        if (n) {
            qsort(v, n, sizeof *v, cmp_double);
            printf(" %8.1fs %7.1fs %7.1fs %7.1fs %8.0f ms\n", sum / (double)n, pct(v, n, 0.5),
                   pct(v, n, 0.95), v[n - 1], qsum / (double)n);
        } else {
            printf("\n");
        }
    }
    free(v);
    if (s->oom) printf("(out of memory: some outcomes were not recorded)\n");
    fflush(stdout);
    rc = s->n_rec == ok && !s->oom ? BENCH_OK : BENCH_PROOF_FAILED;
out:
    for (int i = 0; i < loaded; i++) bench_input_free(&s->in[i]);
    cuzk_client_close(s->client);
    free(s->rec);
    free(s);
    return rc;
}
