/* TIMELINE parsing, pairing and the SVG Gantt chart (contract in timeline.h). */
#include "client/timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "client/loglines.h"
#include "cuzk/error.h"

/* ---------------------------------------------------------------------------------------------
 * Parsing */

static const char marker[] = CUZK_TRACE_TIMELINE ",";

/* A non-negative integer that fits int32; a negative one (a worker of -1: none) means absent. */
static int parse_index(const char *s, size_t n, int32_t *out) {
    if (n > 1 && s[0] == '-' && s[1] != '-' && parse_index(s + 1, n - 1, out) == 0) {
        *out = -1;
        return 0;
    }
    if (n == 0 || n > 9) return -1;
    int32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static const char *find_marker(const char *line, size_t len) {
    size_t m = sizeof marker - 1;
    for (size_t i = 0; i + m <= len; i++)
        if (line[i] == 'T' && memcmp(line + i, marker, m) == 0) return line + i;
    return NULL;
}

static int parse_detail(const char *s, size_t n, struct cuzk_tl_record *rec) {
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        const char *tok = s + i, *eq = memchr(tok, '=', j - i);
        if (eq) {
            size_t klen = (size_t)(eq - tok), vlen = j - i - klen - 1;
            const char *val = eq + 1;
            if (klen == 9 && memcmp(tok, "partition", 9) == 0) {
                if (parse_index(val, vlen, &rec->partition)) return -1;
            } else if (klen == 6 && memcmp(tok, "worker", 6) == 0) {
                if (parse_index(val, vlen, &rec->worker)) return -1;
            } else if (klen > 3 && memcmp(tok + klen - 3, "_ms", 3) == 0) {
                if (cuzk_log_number(val, vlen, &rec->ms)) return -1;
            }
        }
        i = j + 1;
    }
    return 0;
}

int cuzk_tl_parse_line(const char *line, size_t len, struct cuzk_tl_record *rec) {
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    const char *p = find_marker(line, len);
    if (!p) return 0;
    const char *end = line + len;
    p += sizeof marker - 1;
    const char *fields[3];
    size_t flen[3];
    for (int f = 0; f < 3; f++) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if (!c) {
            if (f < 2) return CUZK_EFORMAT;
            c = end; /* "TIMELINE,t,EVENT,job" without a detail */
        }
        fields[f] = p;
        flen[f] = (size_t)(c - p);
        p = c < end ? c + 1 : end;
    }
    *rec = (struct cuzk_tl_record){.partition = -1, .worker = -1, .ms = -1};
    if (cuzk_log_number(fields[0], flen[0], &rec->t_ms)) return CUZK_EFORMAT;
    if (flen[2] == 0) return CUZK_EFORMAT;
    for (size_t i = 0; i < flen[2]; i++)
        if ((unsigned char)fields[2][i] <= ' ') return CUZK_EFORMAT;
    rec->job = fields[2];
    rec->job_len = flen[2];
    if (parse_detail(p, (size_t)(end - p), rec)) return CUZK_EFORMAT;
    for (int i = 0; i < CUZK_TRACE_N_EVENTS; i++) {
        const char *name = cuzk_trace_event_name((enum cuzk_trace_event)i);
        if (strlen(name) == flen[1] && memcmp(name, fields[1], flen[1]) == 0) {
            rec->event = (enum cuzk_tl_event)i;
            return 1;
        }
    }
    for (size_t i = 0; i < flen[1]; i++) {
        char c = fields[1][i];
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return CUZK_EFORMAT;
    }
    return flen[1] ? CUZK_EUNSUPPORTED : CUZK_EFORMAT;
}

/* ---------------------------------------------------------------------------------------------
 * Records and pairing */

struct rec {
    double t, ms;
    uint32_t seq, job;
    int32_t partition, worker;
    enum cuzk_tl_event event;
};

struct cuzk_tl_rec_store {
    struct rec *v;
    size_t n, cap;
};

void cuzk_timeline_init(struct cuzk_timeline *tl) { memset(tl, 0, sizeof *tl); }

static int grow(void **v, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need) c *= 2;
    void *nv = realloc(*v, c * elem);
    if (!nv) return -1;
    *v = nv;
    *cap = c;
    return 0;
}

static int intern_job(struct cuzk_timeline *tl, const char *s, size_t n, uint32_t *out) {
    /* Linear search from the newest: logs hold few jobs, and records of one job come together. */
    for (size_t i = tl->n_jobs; i-- > 0;) {
        if (strlen(tl->jobs[i]) == n && memcmp(tl->jobs[i], s, n) == 0) {
            *out = (uint32_t)i;
            return 0;
        }
    }
    if (grow((void **)&tl->jobs, &tl->cap_jobs, tl->n_jobs + 1, sizeof *tl->jobs)) return -1;
    char *copy = malloc(n + 1);
    if (!copy) return -1;
    memcpy(copy, s, n);
    copy[n] = 0;
    tl->jobs[tl->n_jobs] = copy;
    *out = (uint32_t)tl->n_jobs++;
    return 0;
}

int cuzk_timeline_add_line(struct cuzk_timeline *tl, const char *line, size_t len) {
    if (tl->finished) return CUZK_EINVAL;
    tl->n_lines++;
    struct cuzk_tl_record r;
    int rc = cuzk_tl_parse_line(line, len, &r);
    if (rc == 0) return CUZK_OK;
    if (rc == CUZK_EFORMAT) {
        tl->n_malformed++;
        return CUZK_OK;
    }
    if (rc == CUZK_EUNSUPPORTED) {
        tl->n_unknown++;
        return CUZK_OK;
    }
    if (!tl->store && !(tl->store = calloc(1, sizeof *tl->store))) return CUZK_ENOMEM;
    struct cuzk_tl_rec_store *st = tl->store;
    if (grow((void **)&st->v, &st->cap, st->n + 1, sizeof *st->v)) return CUZK_ENOMEM;
    uint32_t job;
    if (intern_job(tl, r.job, r.job_len, &job)) return CUZK_ENOMEM;
    st->v[st->n] = (struct rec){.t = r.t_ms,
                                .ms = r.ms,
                                .seq = (uint32_t)st->n,
                                .job = job,
                                .partition = r.partition,
                                .worker = r.worker,
                                .event = r.event};
    if (st->n == 0 || r.t_ms < tl->t_min) tl->t_min = r.t_ms;
    if (st->n == 0 || r.t_ms > tl->t_max) tl->t_max = r.t_ms;
    st->n++;
    tl->n_records++;
    return CUZK_OK;
}

static int add_line_cb(void *tl, const char *line, size_t len) {
    return cuzk_timeline_add_line(tl, line, len);
}

int cuzk_timeline_read(struct cuzk_timeline *tl, FILE *f) {
    return cuzk_log_lines(f, add_line_cb, tl);
}

static int cmp_rec(const void *a, const void *b) {
    const struct rec *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Open start events waiting for their end, one list for every kind of pair. */
struct pending {
    struct rec *v;
    size_t n, cap;
};

static int pending_push(struct pending *p, const struct rec *r) {
    if (grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v)) return -1;
    p->v[p->n++] = *r;
    return 0;
}

/* Removes and returns (in *out) the oldest pending start matching the end event; the worker
 * takes part in the key only when match_worker is set. */
static int pending_take(struct pending *p, const struct rec *end, int match_worker,
                        struct rec *out) {
    for (size_t i = 0; i < p->n; i++) {
        const struct rec *s = &p->v[i];
        if (s->job != end->job || s->partition != end->partition) continue;
        if (match_worker && s->worker != end->worker) continue;
        *out = *s;
        memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
        p->n--;
        return 1;
    }
    return 0;
}

static int add_bar(struct cuzk_timeline *tl, size_t *cap, enum cuzk_tl_lane lane,
                   const struct rec *start, double start_ms, double end_ms, int open, int derived) {
    if (grow((void **)&tl->bars, cap, tl->n_bars + 1, sizeof *tl->bars)) return -1;
    tl->bars[tl->n_bars++] = (struct cuzk_tl_bar){.start_ms = start_ms,
                                                  .end_ms = end_ms < start_ms ? start_ms : end_ms,
                                                  .job = start->job,
                                                  .partition = start->partition,
                                                  .worker = start->worker,
                                                  .lane = lane,
                                                  .open = (uint8_t)open,
                                                  .derived = (uint8_t)derived};
    return 0;
}

/* The worker a bar's rows belong to: finalizer bars are packed whatever their worker. */
static int32_t row_worker(const struct cuzk_tl_bar *b) {
    return b->lane == CUZK_TL_LANE_FIN ? -1 : b->worker;
}

static int cmp_bar_start(const void *a, const void *b) {
    const struct cuzk_tl_bar *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (row_worker(x) != row_worker(y)) return row_worker(x) < row_worker(y) ? -1 : 1;
    if (x->start_ms != y->start_ms) return x->start_ms < y->start_ms ? -1 : 1;
    return (x->end_ms > y->end_ms) - (x->end_ms < y->end_ms);
}

static int cmp_row(const void *a, const void *b) {
    const struct cuzk_tl_row *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    /* explicit worker rows before packed rows */
    if ((x->worker < 0) != (y->worker < 0)) return x->worker < 0 ? 1 : -1;
    if (x->worker != y->worker) return x->worker < y->worker ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static int cmp_bar_row(const void *a, const void *b) {
    const struct cuzk_tl_bar *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->start_ms != y->start_ms) return x->start_ms < y->start_ms ? -1 : 1;
    return (x->end_ms > y->end_ms) - (x->end_ms < y->end_ms);
}

/* Measure of the union of intervals sorted by start. */
static double union_ms(const struct cuzk_tl_bar *const *b, size_t n) {
    double sum = 0, cs = 0, ce = 0;
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        if (have && b[i]->start_ms <= ce) {
            if (b[i]->end_ms > ce) ce = b[i]->end_ms;
            continue;
        }
        if (have) sum += ce - cs;
        cs = b[i]->start_ms;
        ce = b[i]->end_ms;
        have = 1;
    }
    return have ? sum + ce - cs : 0;
}

static int cmp_barp_start(const void *a, const void *b) {
    const struct cuzk_tl_bar *x = *(const struct cuzk_tl_bar *const *)a;
    const struct cuzk_tl_bar *y = *(const struct cuzk_tl_bar *const *)b;
    return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

/* Pairs the sorted records into bars and queue-wait statistics. */
static int pair_records(struct cuzk_timeline *tl, size_t *cap_bars) {
    struct pending synth = {0}, gpu = {0}, fin = {0}, queue = {0};
    int rc = -1;
    struct cuzk_tl_rec_store *st = tl->store;
    for (size_t i = 0; st && i < st->n; i++) {
        const struct rec *r = &st->v[i];
        struct rec s;
        struct pending *p = NULL;
        enum cuzk_tl_lane lane = CUZK_TL_LANE_GPU;
        int is_end = 0, match_worker = 0;
        switch (r->event) {
        case CUZK_TL_SYNTH_START: p = &synth; break;
        case CUZK_TL_GPU_START: p = &gpu; break;
        case CUZK_TL_FIN_START: p = &fin; break;
        case CUZK_TL_GPU_QUEUE: p = &queue; break;
        case CUZK_TL_SYNTH_END: p = &synth, lane = CUZK_TL_LANE_SYNTH, is_end = 1; break;
        case CUZK_TL_GPU_END: p = &gpu, lane = CUZK_TL_LANE_GPU, is_end = match_worker = 1; break;
        case CUZK_TL_FIN_END: p = &fin, lane = CUZK_TL_LANE_FIN, is_end = 1; break;
        case CUZK_TL_GPU_PICKUP:
            /* the pickup names the worker; the queue event does not */
            if (pending_take(&queue, r, 0, &s)) {
                double w = r->t - s.t;
                tl->queue_wait_sum_ms += w;
                if (w > tl->queue_wait_max_ms) tl->queue_wait_max_ms = w;
                tl->n_queue_waits++;
            }
            continue;
        }
        if (!is_end) {
            if (pending_push(p, r)) goto out;
            continue;
        }
        if (pending_take(p, r, match_worker, &s)) {
            if (add_bar(tl, cap_bars, lane, &s, s.t, r->t, 0, 0)) goto out;
        } else if (r->ms >= 0) {
            if (add_bar(tl, cap_bars, lane, r, r->t - r->ms, r->t, 0, 1)) goto out;
        } else {
            tl->n_unmatched++;
        }
    }
    const struct {
        struct pending *p;
        enum cuzk_tl_lane lane;
    } open[] = {{&synth, CUZK_TL_LANE_SYNTH}, {&gpu, CUZK_TL_LANE_GPU}, {&fin, CUZK_TL_LANE_FIN}};
    for (size_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < open[k].p->n; i++) {
            const struct rec *s = &open[k].p->v[i];
            if (add_bar(tl, cap_bars, open[k].lane, s, s->t, tl->t_max, 1, 0)) goto out;
            tl->n_open++;
        }
    }
    rc = 0;
out:
    free(synth.v);
    free(gpu.v);
    free(fin.v);
    free(queue.v);
    return rc;
}

/* Finds or appends the row (lane, worker, slot). */
static int row_index(struct cuzk_timeline *tl, size_t *cap, enum cuzk_tl_lane lane, int32_t worker,
                     uint32_t slot, uint32_t *out) {
    for (size_t i = 0; i < tl->n_rows; i++) {
        const struct cuzk_tl_row *r = &tl->rows[i];
        if (r->lane == lane && r->worker == worker && r->slot == slot) {
            *out = (uint32_t)i;
            return 0;
        }
    }
    if (grow((void **)&tl->rows, cap, tl->n_rows + 1, sizeof *tl->rows)) return -1;
    tl->rows[tl->n_rows] = (struct cuzk_tl_row){.lane = lane, .worker = worker, .slot = slot};
    *out = (uint32_t)tl->n_rows++;
    return 0;
}

/* Assigns every bar a row. Bars are grouped by (lane, worker) (worker -1: no worker given,
 * and every finalizer bar) and packed greedily within their group, in start order, into the
 * lowest-numbered slot free at their start: a group without overlaps is one row, and a worker
 * whose bars overlap (its next partition started before the previous one ended) spills into
 * extra rows. */
static int assign_rows(struct cuzk_timeline *tl) {
    size_t cap_rows = 0;
    if (tl->n_bars) qsort(tl->bars, tl->n_bars, sizeof *tl->bars, cmp_bar_start);
    double *slot_end = NULL;
    size_t n_slots = 0, cap_slots = 0;
    for (size_t i = 0; i < tl->n_bars; i++) {
        struct cuzk_tl_bar *b = &tl->bars[i];
        if (i == 0 || b->lane != b[-1].lane || row_worker(b) != row_worker(&b[-1]))
            n_slots = 0; /* a new group */
        size_t s = 0;
        while (s < n_slots && slot_end[s] > b->start_ms) s++;
        if (s == n_slots) {
            if (grow((void **)&slot_end, &cap_slots, n_slots + 1, sizeof *slot_end)) goto oom;
            n_slots++;
        }
        slot_end[s] = b->end_ms;
        if (row_index(tl, &cap_rows, b->lane, row_worker(b), (uint32_t)s, &b->row)) goto oom;
    }
    free(slot_end);
    /* Order the rows, then renumber the bars' row indices. */
    uint32_t *old_to_new = malloc((tl->n_rows ? tl->n_rows : 1) * sizeof *old_to_new);
    if (!old_to_new) return -1;
    /* n_bars (still zero) carries each row's old index through the sort */
    for (size_t i = 0; i < tl->n_rows; i++) tl->rows[i].n_bars = (uint32_t)i;
    if (tl->n_rows) qsort(tl->rows, tl->n_rows, sizeof *tl->rows, cmp_row);
    for (size_t i = 0; i < tl->n_rows; i++) {
        old_to_new[tl->rows[i].n_bars] = (uint32_t)i;
        tl->rows[i].n_bars = 0;
    }
    for (size_t i = 0; i < tl->n_bars; i++) {
        tl->bars[i].row = old_to_new[tl->bars[i].row];
        tl->rows[tl->bars[i].row].n_bars++;
    }
    free(old_to_new);
    if (tl->n_bars) qsort(tl->bars, tl->n_bars, sizeof *tl->bars, cmp_bar_row);
    return 0;
oom:
    free(slot_end);
    return -1;
}

static int compute_busy(struct cuzk_timeline *tl) {
    const struct cuzk_tl_bar **v = malloc((tl->n_bars ? tl->n_bars : 1) * sizeof *v);
    if (!v) return -1;
    /* bars are sorted by row then start: each row is a run */
    for (size_t i = 0; i < tl->n_bars;) {
        size_t j = i;
        while (j < tl->n_bars && tl->bars[j].row == tl->bars[i].row) j++;
        for (size_t k = i; k < j; k++) v[k - i] = &tl->bars[k];
        tl->rows[tl->bars[i].row].busy_ms = union_ms(v, j - i);
        i = j;
    }
    /* A worker's rows are consecutive (rows sort by lane, worker, slot), so are its bars. */
    for (size_t i = 0, b0 = 0; i < tl->n_rows;) {
        struct cuzk_tl_row *r = &tl->rows[i];
        size_t j = i + 1, n = 0;
        while (r->worker >= 0 && j < tl->n_rows && tl->rows[j].lane == r->lane &&
               tl->rows[j].worker == r->worker)
            j++;
        while (b0 < tl->n_bars && tl->bars[b0].row < j) v[n++] = &tl->bars[b0++];
        if (n) qsort(v, n, sizeof *v, cmp_barp_start);
        r->worker_busy_ms = union_ms(v, n);
        i = j;
    }
    size_t n = 0;
    for (size_t i = 0; i < tl->n_bars; i++)
        if (tl->bars[i].lane == CUZK_TL_LANE_GPU) v[n++] = &tl->bars[i];
    if (n) qsort(v, n, sizeof *v, cmp_barp_start);
    tl->gpu_busy_ms = union_ms(v, n);
    free(v);
    return 0;
}

int cuzk_timeline_finish(struct cuzk_timeline *tl) {
    if (tl->finished) return CUZK_OK;
    if (tl->store && tl->store->n) qsort(tl->store->v, tl->store->n, sizeof *tl->store->v, cmp_rec);
    size_t cap_bars = 0;
    if (pair_records(tl, &cap_bars) || assign_rows(tl) || compute_busy(tl)) return CUZK_ENOMEM;
    tl->finished = 1;
    return CUZK_OK;
}

void cuzk_timeline_free(struct cuzk_timeline *tl) {
    if (tl->store) free(tl->store->v);
    free(tl->store);
    for (size_t i = 0; i < tl->n_jobs; i++) free(tl->jobs[i]);
    free(tl->jobs);
    free(tl->bars);
    free(tl->rows);
    memset(tl, 0, sizeof *tl);
}

static double span_ms(const struct cuzk_timeline *tl) {
    double s = tl->t_max - tl->t_min;
    return s > 0 ? s : 1; /* a log with one offset still draws */
}

double cuzk_timeline_gpu_busy(const struct cuzk_timeline *tl) {
    return tl->n_records ? tl->gpu_busy_ms / span_ms(tl) : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Summary */

#define SUMMARY_LINES 8
#define SUMMARY_LEN 512

static const char *lane_name(enum cuzk_tl_lane l) {
    return l == CUZK_TL_LANE_GPU ? "gpu" : l == CUZK_TL_LANE_SYNTH ? "synth" : "fin";
}

static void row_label(const struct cuzk_tl_row *r, char *out, size_t n) {
    if (r->worker >= 0 && r->slot == 0)
        snprintf(out, n, "%s w%d", lane_name(r->lane), (int)r->worker);
    else if (r->worker >= 0)
        snprintf(out, n, "%s w%d.%u", lane_name(r->lane), (int)r->worker, (unsigned)r->slot);
    else
        snprintf(out, n, "%s #%u", lane_name(r->lane), (unsigned)r->slot);
}

/* Appends printf output to a fixed line, truncating silently. */
static void cat(char *line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cat(char *line, const char *fmt, ...) {
    size_t used = strlen(line);
    if (used + 1 >= SUMMARY_LEN) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + used, SUMMARY_LEN - used, fmt, ap);
    va_end(ap);
}

static size_t summary_lines(const struct cuzk_timeline *tl,
                            char lines[SUMMARY_LINES][SUMMARY_LEN]) {
    size_t n = 0, gpu_bars = 0, synth_bars = 0, gpu_rows = 0, synth_rows = 0;
    double synth_busy = 0;
    for (size_t i = 0; i < tl->n_bars; i++) {
        gpu_bars += tl->bars[i].lane == CUZK_TL_LANE_GPU;
        synth_bars += tl->bars[i].lane == CUZK_TL_LANE_SYNTH;
        if (tl->bars[i].lane == CUZK_TL_LANE_SYNTH)
            synth_busy += tl->bars[i].end_ms - tl->bars[i].start_ms;
    }
    for (size_t i = 0; i < tl->n_rows; i++) {
        gpu_rows += tl->rows[i].lane == CUZK_TL_LANE_GPU &&
                    (tl->rows[i].slot == 0 || tl->rows[i].worker < 0);
        synth_rows += tl->rows[i].lane == CUZK_TL_LANE_SYNTH;
    }
    double span = span_ms(tl);
    for (size_t i = 0; i < SUMMARY_LINES; i++) lines[i][0] = 0;
    cat(lines[n++],
        "span: %.3f s (offsets %.0f..%.0f ms), %zu jobs, %zu GPU bars, %zu synthesis bars",
        tl->n_records ? (tl->t_max - tl->t_min) / 1e3 : 0.0, tl->t_min, tl->t_max, tl->n_jobs,
        gpu_bars, synth_bars);
    cat(lines[n], "GPU busy: %.1f%% (%zu workers)", 100 * cuzk_timeline_gpu_busy(tl), gpu_rows);
    for (size_t i = 0, k = 0; i < tl->n_rows; i++) {
        const struct cuzk_tl_row *r = &tl->rows[i];
        if (r->lane != CUZK_TL_LANE_GPU || r->slot != 0) continue;
        if (r->worker >= 0)
            cat(lines[n], "%s w%d %.1f%%", k++ ? "," : ";", (int)r->worker,
                100 * r->worker_busy_ms / span);
    }
    n++;
    cat(lines[n++], "synthesis: %zu rows, mean concurrency %.2f", synth_rows,
        tl->n_records ? synth_busy / span : 0.0);
    if (tl->n_queue_waits)
        cat(lines[n++], "GPU queue wait: avg %.1f ms, max %.1f ms over %zu pickups",
            tl->queue_wait_sum_ms / (double)tl->n_queue_waits, tl->queue_wait_max_ms,
            tl->n_queue_waits);
    cat(lines[n++],
        "lines: %zu read, %zu TIMELINE records, %zu malformed (skipped), %zu unknown events, "
        "%zu unmatched ends, %zu still open at the end",
        tl->n_lines, tl->n_records, tl->n_malformed, tl->n_unknown, tl->n_unmatched, tl->n_open);
    return n;
}

void cuzk_timeline_summary(const struct cuzk_timeline *tl, FILE *out) {
    char lines[SUMMARY_LINES][SUMMARY_LEN];
    size_t n = summary_lines(tl, lines);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s\n", lines[i]);
}

/* ---------------------------------------------------------------------------------------------
 * SVG */

/* Layout in px. */
#define SVG_WIDTH 1200
#define SVG_LABEL_W 110 /* row labels on the left */
#define SVG_RIGHT 20
#define SVG_TOP 64 /* title and axis labels above the rows */
#define SVG_ROW_H 22
#define SVG_BAR_H 16
#define SVG_LINE_H 16   /* summary and legend lines */
#define SVG_CHAR_W 6.2  /* approximate width of one 10px sans-serif character */
#define SVG_JOB_CHARS 8 /* bar labels show the first 8 characters of the job id */
#define SVG_LEGEND_COLS 4
#define SVG_LEGEND_MAX 64 /* jobs listed by name; the rest are counted */

static unsigned svg_width(const struct cuzk_tl_svg_opts *o) {
    unsigned w = o && o->width ? o->width : SVG_WIDTH;
    return w < SVG_LABEL_W + SVG_RIGHT + 100 ? SVG_LABEL_W + SVG_RIGHT + 100 : w;
}

double cuzk_timeline_x(const struct cuzk_timeline *tl, const struct cuzk_tl_svg_opts *opts,
                       double t_ms) {
    double plot = (double)svg_width(opts) - SVG_LABEL_W - SVG_RIGHT;
    return SVG_LABEL_W + (t_ms - tl->t_min) / span_ms(tl) * plot;
}

/* Writes s with the five XML special characters escaped; control characters become '?'. */
static void xml_text(FILE *f, const char *s, size_t max) {
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
        }
    }
}

/* Colour of job i: hues spread by the golden angle so neighbours differ. */
static void job_colour(size_t i, char out[8]) {
    double h = fmod((double)i * 137.508, 360.0) / 60.0, s = 0.55, l = 0.55;
    double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(h, 2.0) - 1)), m = l - c / 2;
    double rgb[3][6] = {{c, x, 0, 0, x, c}, {x, c, c, x, 0, 0}, {0, 0, x, c, c, x}};
    int k = (int)h % 6;
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround((rgb[0][k] + m) * 255),
             (unsigned)lround((rgb[1][k] + m) * 255), (unsigned)lround((rgb[2][k] + m) * 255));
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 10 ticks. */
static double tick_step(double span) {
    double raw = span / 10, mag = pow(10, floor(log10(raw))), norm = raw / mag;
    return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

static void tick_label(double t, double step, char *out, size_t n) {
    if (step >= 1000)
        snprintf(out, n, "%gs", t / 1000);
    else
        snprintf(out, n, "%gms", t);
}

int cuzk_timeline_svg(const struct cuzk_timeline *tl, FILE *f,
                      const struct cuzk_tl_svg_opts *opts) {
    unsigned W = svg_width(opts);
    const char *title = opts && opts->title ? opts->title : "cuzk timeline";
    char lines[SUMMARY_LINES][SUMMARY_LEN];
    size_t n_sum = summary_lines(tl, lines);
    size_t n_legend = tl->n_jobs < SVG_LEGEND_MAX ? tl->n_jobs : SVG_LEGEND_MAX;
    size_t legend_rows =
        (n_legend + SVG_LEGEND_COLS - 1) / SVG_LEGEND_COLS + (tl->n_jobs > SVG_LEGEND_MAX);
    double rows_bottom = SVG_TOP + (double)tl->n_rows * SVG_ROW_H;
    double sum_top = rows_bottom + 24;
    double legend_top = sum_top + (double)n_sum * SVG_LINE_H + 10;
    double H = legend_top + (double)legend_rows * SVG_LINE_H + 16;
    double x0 = SVG_LABEL_W, x1 = W - SVG_RIGHT;

    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
            "viewBox=\"0 0 %u %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
            W, H, W, H);
    fputs("<style>.row{fill:#e4e4e4}.grid{stroke:#fff;stroke-width:1}"
          ".bar{stroke:#333;stroke-width:0.5}.open{stroke-dasharray:3,2}"
          ".fin{fill-opacity:0.55}.lbl{fill:#000;pointer-events:none}"
          ".title{font-size:14px;font-weight:bold}</style>\n",
          f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"#fff\"/>\n", W, H);
    fputs("<text class=\"title\" x=\"10\" y=\"20\">", f);
    xml_text(f, title, 200);
    fputs("</text>\n", f);

    /* Row backgrounds: the grey that stays visible where a worker idles. */
    fputs("<g id=\"rows\">\n", f);
    for (size_t i = 0; i < tl->n_rows; i++) {
        char label[64];
        row_label(&tl->rows[i], label, sizeof label);
        double y = SVG_TOP + (double)i * SVG_ROW_H;
        fprintf(f,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
                "<rect class=\"row\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"/>\n",
                SVG_LABEL_W - 6, y + SVG_ROW_H / 2.0 + 3, label, x0, y + 2, x1 - x0, SVG_ROW_H - 4);
    }
    fputs("</g>\n", f);

    /* Time axis: ticks and labels above the rows, grid lines through them. */
    fputs("<g id=\"axis\">\n", f);
    double step = tick_step(span_ms(tl));
    fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#000\"/>\n", x0,
            SVG_TOP - 4, x1, SVG_TOP - 4);
    for (double t = ceil(tl->t_min / step) * step; t <= tl->t_min + span_ms(tl) + step * 1e-9;
         t += step) {
        double x = cuzk_timeline_x(tl, opts, t);
        char lab[32];
        tick_label(t, step, lab, sizeof lab);
        fprintf(f,
                "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#000\"/>"
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\"/>"
                "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, SVG_TOP - 8, x, SVG_TOP - 4, x, SVG_TOP, x, rows_bottom, x, SVG_TOP - 12, lab);
    }
    fputs("</g>\n", f);

    /* Bars, coloured by job; finalizer bars lighter, open bars dashed. */
    fputs("<g id=\"bars\">\n", f);
    for (size_t i = 0; i < tl->n_bars; i++) {
        const struct cuzk_tl_bar *b = &tl->bars[i];
        double x = cuzk_timeline_x(tl, opts, b->start_ms);
        double w = cuzk_timeline_x(tl, opts, b->end_ms) - x;
        if (w < CUZK_TL_MIN_BAR_PX) w = CUZK_TL_MIN_BAR_PX;
        double y = SVG_TOP + (double)b->row * SVG_ROW_H + (SVG_ROW_H - SVG_BAR_H) / 2.0;
        char colour[8], part[16] = "";
        job_colour(b->job, colour);
        if (b->partition >= 0) snprintf(part, sizeof part, "/%d", (int)b->partition);
        fprintf(f,
                "<rect class=\"bar%s%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
                "fill=\"%s\"><title>",
                b->lane == CUZK_TL_LANE_FIN ? " fin" : "", b->open ? " open" : "", x, y, w,
                SVG_BAR_H, colour);
        fprintf(f, "%s ", lane_name(b->lane));
        xml_text(f, tl->jobs[b->job], 256);
        fprintf(f, "%s: %.0f..%.0f ms (%.0f ms)%s%s</title></rect>\n", part, b->start_ms, b->end_ms,
                b->end_ms - b->start_ms, b->open ? ", no end in the log" : "",
                b->derived ? ", start from the reported duration" : "");
        size_t chars = strlen(tl->jobs[b->job]);
        if (chars > SVG_JOB_CHARS) chars = SVG_JOB_CHARS;
        chars += strlen(part);
        if (w >= (double)chars * SVG_CHAR_W + 4) {
            fprintf(f, "<text class=\"lbl\" x=\"%.2f\" y=\"%.1f\">", x + 2, y + SVG_BAR_H - 4);
            xml_text(f, tl->jobs[b->job], SVG_JOB_CHARS);
            fprintf(f, "%s</text>\n", part);
        } else if (part[0] && w >= (double)(strlen(part) - 1) * SVG_CHAR_W + 4) {
            /* too narrow for the job: the partition alone (the colour names the job) */
            fprintf(f, "<text class=\"lbl\" x=\"%.2f\" y=\"%.1f\">%s</text>\n", x + 2,
                    y + SVG_BAR_H - 4, part + 1);
        }
    }
    fputs("</g>\n", f);

    fputs("<g id=\"summary\">\n", f);
    for (size_t i = 0; i < n_sum; i++) {
        fprintf(f, "<text x=\"10\" y=\"%.1f\">", sum_top + (double)i * SVG_LINE_H);
        xml_text(f, lines[i], SUMMARY_LEN);
        fputs("</text>\n", f);
    }
    fputs("</g>\n<g id=\"legend\">\n", f);
    double col_w = (W - 20.0) / SVG_LEGEND_COLS;
    for (size_t i = 0; i < n_legend; i++) {
        double x = 10 + (double)(i % SVG_LEGEND_COLS) * col_w;
        double y = legend_top + (double)(i / SVG_LEGEND_COLS) * SVG_LINE_H;
        char colour[8];
        job_colour(i, colour);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">",
                x, y - 9, colour, x + 14, y);
        xml_text(f, tl->jobs[i], 64);
        fputs("</text>\n", f);
    }
    if (tl->n_jobs > n_legend)
        fprintf(f, "<text x=\"10\" y=\"%.1f\">... and %zu more jobs</text>\n",
                legend_top + (double)(legend_rows - 1) * SVG_LINE_H, tl->n_jobs - n_legend);
    fputs("</g>\n</svg>\n", f);
    fflush(f);
    return ferror(f) ? CUZK_EIO : CUZK_OK;
}
