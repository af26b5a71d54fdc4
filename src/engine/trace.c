/* The engine's trace lines (engine/trace.h) and the devices' busy time. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine/engine_impl.h"

int cuzk_eng_tracing(const struct cuzk_engine *e) { return e->cfg.trace_fn || e->cfg.trace_file; }

static void emit(struct cuzk_engine *e, const char *line) {
    pthread_mutex_lock(&e->trace_mu);
    if (e->cfg.trace_fn) {
        e->cfg.trace_fn(e->cfg.trace_ctx, line);
    } else {
        fputs(line, e->cfg.trace_file);
        fputc('\n', e->cfg.trace_file);
        fflush(e->cfg.trace_file);
    }
    pthread_mutex_unlock(&e->trace_mu);
}

void cuzk_eng_trace(struct cuzk_engine *e, const char *fmt, ...) {
    if (!cuzk_eng_tracing(e)) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    emit(e, line);
}

void cuzk_eng_timeline(struct cuzk_engine *e, double t, enum cuzk_trace_event ev, const char *job,
                       const char *fmt, ...) {
    if (!cuzk_eng_tracing(e)) return;
    char detail[256], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, CUZK_TRACE_TIMELINE ",%lld,%s,%s,%s", (long long)t,
             cuzk_trace_event_name(ev), job, detail);
    emit(e, line);
}

/* ---- device utilization (under e->mu) -------------------------------------------------------- */

void cuzk_eng_dev_busy_begin(struct dev *d, double t) {
    if (d->in_flight++ == 0) d->busy_since = t;
}

void cuzk_eng_dev_busy_end(struct dev *d, double t) {
    if (!d->in_flight || --d->in_flight) return;
    if (t < d->busy_since) t = d->busy_since;
    d->busy_total += t - d->busy_since;
    size_t i = (d->ring_head + d->ring_n) % UTIL_RING;
    if (d->ring_n == UTIL_RING)
        d->ring_head = (d->ring_head + 1) % UTIL_RING;
    else
        d->ring_n++;
    d->ring[i] = (struct interval){d->busy_since, t};
}

/* Busy milliseconds of d within [t - w, t]. */
double cuzk_eng_dev_busy_in(const struct dev *d, double t, double w) {
    double lo = t - w, busy = 0;
    for (size_t k = 0; k < d->ring_n; k++) {
        const struct interval *iv = &d->ring[(d->ring_head + k) % UTIL_RING];
        double a = iv->a > lo ? iv->a : lo, b = iv->b < t ? iv->b : t;
        if (b > a) busy += b - a;
    }
    if (d->in_flight) busy += t - (d->busy_since > lo ? d->busy_since : lo);
    return busy;
}
