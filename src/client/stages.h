/* Stage-time summaries of a daemon log: reads the engine's timing lines (engine/trace.h) and
 * summarises every `name_ms=X` field of each kind of line over the log: how many values, their
 * median, minimum, mean and maximum.
 *
 * Input: any log text. The lines summarised are those holding one of the tags
 *   GPU_TIMING   one per partition: lock wait, device time, the backend's prove call
 *   GPU_STAGES   one per partition proved by a backend that times its stages (the CUDA one:
 *                upload, SpMV, MSMs, NTTs, H MSM, the compute section)
 *   FIN_TIMING   one per partition: the finalizer's verification, release and trim
 *   CUZK_TIMING  one per job when it becomes final (done, failed or cancelled)
 * at the start of the line or after a space (a log prefix such as a timestamp is tolerated),
 * followed by a space and space-separated key=value tokens. Every key ending in "_ms" is a
 * stage time: a non-negative decimal number (cuzk_log_number, client/loglines.h); the other
 * keys (job=, partition=, device=, state=, ...) are ignored. A tagged line with a malformed
 * stage time, a stage-time name longer than CUZK_STAGES_NAME_MAX or more than
 * 2 CUZK_STAGES_MAX_FIELDS stage times is counted in n_malformed and contributes nothing. A kind
 * keeps at most CUZK_STAGES_MAX_FIELDS field names, in the order they first appear; the values
 * of further names are counted in n_dropped.
 *
 * The median of an even count is the mean of the two middle values.
 *
 * Thread-safety: a struct cuzk_stages belongs to one thread; the functions keep no global
 * state. */
#ifndef CUZK_CLIENT_STAGES_H
#define CUZK_CLIENT_STAGES_H

#include <stddef.h>
#include <stdio.h>

#define CUZK_STAGES_KINDS 4
#define CUZK_STAGES_MAX_FIELDS 32
#define CUZK_STAGES_NAME_MAX 47 /* longest field name */

/* The values of one field, in log order. */
struct cuzk_stage_field {
    char name[CUZK_STAGES_NAME_MAX + 1];
    double *v;
    size_t n, cap;
};

/* One kind of line (tag) and its fields. */
struct cuzk_stage_kind {
    const char *tag;
    size_t n_lines; /* well-formed lines of this kind */
    struct cuzk_stage_field f[CUZK_STAGES_MAX_FIELDS];
    size_t n_fields;
};

struct cuzk_stages {
    struct cuzk_stage_kind kind[CUZK_STAGES_KINDS]; /* the tags above, in that order */
    size_t n_lines;                                 /* every line read */
    size_t n_malformed;
    size_t n_dropped;
};

struct cuzk_stage_summary {
    size_t n;
    double median, min, mean, max;
};

void cuzk_stages_init(struct cuzk_stages *s);
/* Adds one log line (len bytes, a trailing "\n" or "\r\n" allowed). Returns CUZK_OK (also for
 * lines that are not timing lines, and for malformed ones, which are counted) or CUZK_ENOMEM. */
int cuzk_stages_add_line(struct cuzk_stages *s, const char *line, size_t len);
/* Adds every line of a stream. Returns CUZK_OK, CUZK_ENOMEM or CUZK_EIO. */
int cuzk_stages_read(struct cuzk_stages *s, FILE *f);
/* The summary of one field (n = 0 and zeros for a field without values). Returns CUZK_OK or
 * CUZK_ENOMEM (the median sorts a copy). */
int cuzk_stages_summary(const struct cuzk_stage_field *f, struct cuzk_stage_summary *out);
/* Writes the summaries: per kind with lines, a header line and one line per field (name, n,
 * median, min, mean, max in ms); with csv, the lines "kind,field,n,median_ms,min_ms,mean_ms,
 * max_ms" under that header instead. Returns CUZK_OK, CUZK_ENOMEM or CUZK_EIO. */
int cuzk_stages_print(const struct cuzk_stages *s, FILE *out, int csv);
void cuzk_stages_free(struct cuzk_stages *s);

#endif
