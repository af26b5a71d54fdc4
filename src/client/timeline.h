/* TIMELINE analysis: reads the engine's TIMELINE log lines and draws them as an SVG Gantt chart.
 *
 * Input: any log text. Lines holding "TIMELINE,<offset_ms>,<event>,<job_id>,<detail>" are
 * records (a prefix before "TIMELINE," such as a timestamp is tolerated); every other line is
 * ignored. Events: SYNTH_START/SYNTH_END, GPU_QUEUE/GPU_PICKUP, GPU_START/GPU_END and
 * FIN_START/FIN_END. The detail is a comma-separated list of key=value pairs (or bare words
 * such as "monolithic"): partition=P and worker=W are integers, any key ending in "_ms" is the
 * duration the event reports (synth_ms, gpu_ms, ...), other keys are ignored. A TIMELINE line
 * that does not parse (a bad number, an empty job id) is counted in n_malformed and skipped;
 * a record with an unknown event name is counted in n_unknown and skipped.
 *
 * Contract: records may arrive in any order (several threads write the log). After
 * cuzk_timeline_finish they are sorted by offset and paired into bars:
 *   - SYNTH_START/SYNTH_END by (job, partition): a synthesis bar;
 *   - GPU_START/GPU_END by (job, partition, worker): a GPU bar;
 *   - FIN_START/FIN_END by (job, partition): a finalizer bar;
 *   - GPU_QUEUE/GPU_PICKUP by (job, partition): a queue wait (statistics only).
 * Pairing is first-in first-out among equal keys. An end event without its start becomes a bar
 * when it reports a duration (start = end - duration, "derived"), else it is counted in
 * n_unmatched. A start event without its end becomes a bar that runs to the last offset of the
 * log ("open", counted in n_open): the log stopped while the work ran.
 *
 * Rows: one per GPU worker (the worker= of the GPU events), one per synthesis worker (the
 * worker= of the SYNTH events when they carry one), and packed rows for the rest: synthesis
 * bars without a worker and every finalizer bar. Packing is greedy: bars in start order, each
 * into the lowest-numbered row of its group that is free at its start. It also applies within
 * a worker: a worker whose bars overlap (the engine's GPU_END comes from the finalizer, after
 * the worker has picked up its next partition) spills into extra rows "w<W>.1", "w<W>.2". Rows
 * are ordered GPU, synthesis, finalizer, then by worker id (packed rows last), then slot.
 *
 * Busy time of a row is the measure of the union of its bars. GPU busy is the union over all
 * GPU bars divided by the span (first to last offset in the log): the share of the time at least
 * one GPU worker was inside GPU_START..GPU_END.
 *
 * The SVG is a standalone document (no scripts, no external references): a grey background per
 * row (idle time shows as grey), one rect of class "bar" per bar coloured by job and labelled
 * "job/partition" where it fits (every bar also has a <title> tooltip), a time axis with ticks and
 * grid lines, a summary and a legend of jobs. Bar geometry: x = cuzk_timeline_x(start),
 * width = cuzk_timeline_x(end) - x (at least CUZK_TL_MIN_BAR_PX so short bars stay visible).
 *
 * Thread-safety: a struct cuzk_timeline belongs to one thread; the functions keep no global
 * state. */
#ifndef CUZK_CLIENT_TIMELINE_H
#define CUZK_CLIENT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/trace.h"

/* The events of the engine's trace contract (engine/trace.h), under the chart's names. */
enum cuzk_tl_event {
    CUZK_TL_SYNTH_START = CUZK_TRACE_SYNTH_START,
    CUZK_TL_SYNTH_END = CUZK_TRACE_SYNTH_END,
    CUZK_TL_GPU_QUEUE = CUZK_TRACE_GPU_QUEUE,
    CUZK_TL_GPU_PICKUP = CUZK_TRACE_GPU_PICKUP,
    CUZK_TL_GPU_START = CUZK_TRACE_GPU_START,
    CUZK_TL_GPU_END = CUZK_TRACE_GPU_END,
    CUZK_TL_FIN_START = CUZK_TRACE_FIN_START,
    CUZK_TL_FIN_END = CUZK_TRACE_FIN_END,
};

/* One parsed TIMELINE line. job points into the parsed line (not NUL-terminated). */
struct cuzk_tl_record {
    double t_ms;
    enum cuzk_tl_event event;
    const char *job;
    size_t job_len;
    int32_t partition; /* -1: none given */
    int32_t worker;    /* -1: none given */
    double ms;         /* the "*_ms" duration; -1: none given */
};

/* Parses one line (len bytes, a trailing "\n" or "\r\n" allowed). Returns 1 and fills *rec for a
 * well-formed record, 0 for a line that is not a TIMELINE line, CUZK_EFORMAT for a malformed
 * TIMELINE line and CUZK_EUNSUPPORTED for a well-formed one with an unknown event name. */
int cuzk_tl_parse_line(const char *line, size_t len, struct cuzk_tl_record *rec);

enum cuzk_tl_lane { CUZK_TL_LANE_GPU, CUZK_TL_LANE_SYNTH, CUZK_TL_LANE_FIN };

struct cuzk_tl_bar {
    double start_ms, end_ms;
    uint32_t job;      /* index into jobs */
    int32_t partition; /* -1: the whole job (monolithic) */
    int32_t worker;    /* from the log; -1: none given */
    uint32_t row;      /* index into rows */
    enum cuzk_tl_lane lane;
    uint8_t open;    /* no end event: runs to the end of the log */
    uint8_t derived; /* no start event: start = end - the reported duration */
};

struct cuzk_tl_row {
    enum cuzk_tl_lane lane;
    int32_t worker; /* the log's worker id; -1 for a packed row */
    uint32_t slot;  /* 0, 1, ... within the (lane, worker) group */
    uint32_t n_bars;
    double busy_ms;        /* measure of the union of the row's bars */
    double worker_busy_ms; /* slot 0: the union over every row of the (lane, worker) group */
};

struct cuzk_tl_rec_store; /* the raw records, private to timeline.c */

struct cuzk_timeline {
    struct cuzk_tl_bar *bars; /* after finish: sorted by row, then start */
    size_t n_bars;
    struct cuzk_tl_row *rows;
    size_t n_rows;
    char **jobs; /* NUL-terminated ids in order of first appearance */
    size_t n_jobs;
    double t_min, t_max; /* first and last offset of any record (0, 0 when none) */
    double gpu_busy_ms;  /* union of all GPU bars */
    size_t n_lines, n_records, n_malformed, n_unknown, n_unmatched, n_open;
    size_t n_queue_waits;
    double queue_wait_sum_ms, queue_wait_max_ms;
    /* private */
    struct cuzk_tl_rec_store *store;
    size_t cap_jobs;
    int finished;
};

/* A zeroed struct is also a valid empty timeline. */
void cuzk_timeline_init(struct cuzk_timeline *tl);
/* Adds one log line. Returns CUZK_OK (also for ignored or malformed lines, which are counted),
 * CUZK_ENOMEM, or CUZK_EINVAL after cuzk_timeline_finish. */
int cuzk_timeline_add_line(struct cuzk_timeline *tl, const char *line, size_t len);
/* Adds every line of a stream. Returns CUZK_OK, CUZK_ENOMEM or CUZK_EIO. */
int cuzk_timeline_read(struct cuzk_timeline *tl, FILE *f);
/* Sorts, pairs the records into bars, assigns rows and computes busy times. Idempotent.
 * Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_timeline_finish(struct cuzk_timeline *tl);
void cuzk_timeline_free(struct cuzk_timeline *tl);

/* GPU busy share in [0, 1] (0 for an empty log). Needs finish. */
double cuzk_timeline_gpu_busy(const struct cuzk_timeline *tl);

#define CUZK_TL_MIN_BAR_PX 1.0

struct cuzk_tl_svg_opts {
    unsigned width;    /* total width in px; 0 = 1200 */
    const char *title; /* NULL = "cuzk timeline" */
};

/* Horizontal position in px of offset t_ms in the chart drawn with opts (NULL = defaults). */
double cuzk_timeline_x(const struct cuzk_timeline *tl, const struct cuzk_tl_svg_opts *opts,
                       double t_ms);
/* Writes the SVG document. Needs finish. Returns CUZK_OK or CUZK_EIO. */
int cuzk_timeline_svg(const struct cuzk_timeline *tl, FILE *out,
                      const struct cuzk_tl_svg_opts *opts);
/* Writes the summary as text lines (the SVG shows the same lines). Needs finish. */
void cuzk_timeline_summary(const struct cuzk_timeline *tl, FILE *out);

#endif
