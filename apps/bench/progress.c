/* The live progress line on stderr: proofs done / running, elapsed time and, once a second,
 * the daemon's queue figures from GetStatus. On a terminal the line is redrawn in place every
 * PROGRESS_TICK_MS; with --progress on a non-terminal a plain line is printed every
 * PROGRESS_PLAIN_MS instead (log files get no carriage returns). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/error.h"

#define PROGRESS_TICK_MS 250
#define PROGRESS_POLL_MS 1000
#define PROGRESS_PLAIN_MS 5000

/* The daemon's side: partitions queued and running, GPU workers busy. */
static void poll_daemon(struct bench_progress *p) {
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *msg;
    char err[256];
    if (cuzk_client_call_pb(p->client, "/cuzk.v1.ProvingEngine/GetStatus", &req.base,
                            &cuzk__v1__get_status_response__descriptor, PROGRESS_POLL_MS - 100,
                            &msg, NULL, err, sizeof err)) {
        snprintf(p->daemon, sizeof p->daemon, "daemon: no status");
        return;
    }
    const Cuzk__V1__GetStatusResponse *s = (const Cuzk__V1__GetStatusResponse *)msg;
    unsigned pending = 0, running = 0, busy = 0;
    for (size_t i = 0; i < s->n_queues; i++) {
        pending += s->queues[i]->pending;
        running += s->queues[i]->in_progress;
    }
    for (size_t i = 0; i < s->n_gpus; i++) busy += s->gpus[i]->current_job_id[0] != 0;
    snprintf(p->daemon, sizeof p->daemon,
             "daemon: %u pending, %u in progress, %u/%zu GPUs busy, %llu done", pending, running,
             busy, s->n_gpus, (unsigned long long)s->total_proofs_completed);
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void draw_locked(struct bench_progress *p) {
    double now = bench_now_ms(), el = (now - p->t0_ms) / 1e3;
    char line[400];
    unsigned done = atomic_load(&p->done);
    int n;
    if (p->total)
        n = snprintf(line, sizeof line, "%s %u/%u done (%u ok, %u failed), %u running, %.1fs",
                     p->what, done, p->total, atomic_load(&p->ok), atomic_load(&p->failed),
                     atomic_load(&p->running), el);
    else
        n = snprintf(line, sizeof line, "%s %u done (%u ok, %u failed), %u running, %.1fs", p->what,
                     done, atomic_load(&p->ok), atomic_load(&p->failed), atomic_load(&p->running),
                     el);
    if (p->end_ms > 0 && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " of %.0fs", (p->end_ms - p->t0_ms) / 1e3);
    if (p->daemon[0] && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, " | %s", p->daemon);
    if (p->tty) {
        fprintf(stderr, "\r\033[K%s", line);
        p->drawn = 1;
    } else {
        fprintf(stderr, "[progress] %s\n", line);
    }
    fflush(stderr);
}

static void *progress_main(void *arg) {
    struct bench_progress *p = arg;
    double last_poll = 0, last_draw = 0;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        pthread_mutex_unlock(&p->lock);
        double now = bench_now_ms();
        if (p->client && now - last_poll >= PROGRESS_POLL_MS) {
            poll_daemon(p);
            last_poll = now;
        }
        if (p->tty || now - last_draw >= PROGRESS_PLAIN_MS) {
            pthread_mutex_lock(&p->out_lock);
            draw_locked(p);
            pthread_mutex_unlock(&p->out_lock);
            last_draw = now;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += PROGRESS_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_mutex_lock(&p->lock);
        if (!p->stop) pthread_cond_timedwait(&p->cond, &p->lock, &ts);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void bench_progress_start(struct bench_progress *p, const struct bench_args *a,
                          struct cuzk_client *client, const char *what, unsigned total) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->out_lock, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    atomic_init(&p->done, 0);
    atomic_init(&p->ok, 0);
    atomic_init(&p->failed, 0);
    atomic_init(&p->running, 0);
    p->tty = isatty(STDERR_FILENO);
    p->enabled = a->progress < 0 ? p->tty : a->progress;
    p->total = total;
    p->what = what;
    p->client = client;
    p->t0_ms = bench_now_ms();
    if (p->enabled && pthread_create(&p->thread, NULL, progress_main, p) == 0) p->started = 1;
}

void bench_progress_clear_locked(struct bench_progress *p) {
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
}

void bench_progress_stop(struct bench_progress *p) {
    if (p->started) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        p->started = 0;
    }
    pthread_mutex_lock(&p->out_lock);
    bench_progress_clear_locked(p);
    pthread_mutex_unlock(&p->out_lock);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    /* out_lock stays usable: callers may print after stopping */
}
