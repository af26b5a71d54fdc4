/* Stage-time summaries of a daemon log (contract in stages.h). */
#include "client/stages.h"

#include <stdlib.h>
#include <string.h>

#include "client/loglines.h"
#include "cuzk/error.h"
#include "engine/trace.h"

static const char *const tags[CUZK_STAGES_KINDS] = {CUZK_TRACE_GPU_TIMING, CUZK_TRACE_GPU_STAGES,
                                                    CUZK_TRACE_FIN_TIMING, CUZK_TRACE_JOB};

void cuzk_stages_init(struct cuzk_stages *s) {
    memset(s, 0, sizeof *s);
    for (int k = 0; k < CUZK_STAGES_KINDS; k++) s->kind[k].tag = tags[k];
}

void cuzk_stages_free(struct cuzk_stages *s) {
    for (int k = 0; k < CUZK_STAGES_KINDS; k++)
        for (size_t i = 0; i < s->kind[k].n_fields; i++) free(s->kind[k].f[i].v);
    cuzk_stages_init(s);
}

/* The kind whose tag starts the line or follows a space, followed by a space; *rest is set past
 * that space. -1 for none. */
static int find_tag(const char *line, size_t len, const char **rest) {
    for (int k = 0; k < CUZK_STAGES_KINDS; k++) {
        const size_t m = strlen(tags[k]);
        for (size_t i = 0; i + m < len; i++) {
            if ((i == 0 || line[i - 1] == ' ') && line[i + m] == ' ' &&
                memcmp(line + i, tags[k], m) == 0) {
                *rest = line + i + m + 1;
                return k;
            }
        }
    }
    return -1;
}

/* The stage times of one line, parsed before any is stored (a malformed line stores nothing). */
struct token {
    const char *name;
    size_t name_len;
    double ms;
};

static int push(struct cuzk_stage_field *f, double v) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        double *p = realloc(f->v, cap * sizeof *p);
        if (!p) return CUZK_ENOMEM;
        f->v = p;
        f->cap = cap;
    }
    f->v[f->n++] = v;
    return CUZK_OK;
}

/* The field of kind k named (name, len), made when new; NULL when the kind has no room left. */
static struct cuzk_stage_field *field(struct cuzk_stage_kind *k, const char *name, size_t len) {
    for (size_t i = 0; i < k->n_fields; i++)
        if (strlen(k->f[i].name) == len && memcmp(k->f[i].name, name, len) == 0) return &k->f[i];
    if (k->n_fields == CUZK_STAGES_MAX_FIELDS) return NULL;
    struct cuzk_stage_field *f = &k->f[k->n_fields++];
    memcpy(f->name, name, len);
    f->name[len] = 0;
    return f;
}

int cuzk_stages_add_line(struct cuzk_stages *s, const char *line, size_t len) {
    s->n_lines++;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    const char *p;
    const int k = find_tag(line, len, &p);
    if (k < 0) return CUZK_OK;
    const char *end = line + len;
    struct token tok[2 * CUZK_STAGES_MAX_FIELDS];
    size_t nt = 0;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != ' ') q++;
        const char *eq = memchr(p, '=', (size_t)(q - p));
        if (eq && eq - p > 3 && memcmp(eq - 3, "_ms", 3) == 0) {
            struct token t = {p, (size_t)(eq - p), 0};
            if (t.name_len > CUZK_STAGES_NAME_MAX || nt == sizeof tok / sizeof tok[0] ||
                cuzk_log_number(eq + 1, (size_t)(q - eq - 1), &t.ms)) {
                s->n_malformed++;
                return CUZK_OK;
            }
            tok[nt++] = t;
        }
        p = q + 1;
    }
    struct cuzk_stage_kind *kd = &s->kind[k];
    kd->n_lines++;
    for (size_t i = 0; i < nt; i++) {
        struct cuzk_stage_field *f = field(kd, tok[i].name, tok[i].name_len);
        if (!f) {
            s->n_dropped++;
            continue;
        }
        if (push(f, tok[i].ms)) return CUZK_ENOMEM;
    }
    return CUZK_OK;
}

static int add_line_cb(void *s, const char *line, size_t len) {
    return cuzk_stages_add_line(s, line, len);
}

int cuzk_stages_read(struct cuzk_stages *s, FILE *f) { return cuzk_log_lines(f, add_line_cb, s); }

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cuzk_stages_summary(const struct cuzk_stage_field *f, struct cuzk_stage_summary *out) {
    memset(out, 0, sizeof *out);
    if (!f->n) return CUZK_OK;
    double *v = malloc(f->n * sizeof *v);
    if (!v) return CUZK_ENOMEM;
    memcpy(v, f->v, f->n * sizeof *v);
    qsort(v, f->n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < f->n; i++) sum += v[i];
    out->n = f->n;
    out->min = v[0];
    out->max = v[f->n - 1];
    out->mean = sum / (double)f->n;
    out->median = f->n % 2 ? v[f->n / 2] : (v[f->n / 2 - 1] + v[f->n / 2]) / 2;
    free(v);
    return CUZK_OK;
}

int cuzk_stages_print(const struct cuzk_stages *s, FILE *out, int csv) {
    if (csv) fputs("kind,field,n,median_ms,min_ms,mean_ms,max_ms\n", out);
    for (int k = 0; k < CUZK_STAGES_KINDS; k++) {
        const struct cuzk_stage_kind *kd = &s->kind[k];
        if (!kd->n_lines) continue;
        if (!csv)
            fprintf(out, "%s: %zu lines\n  %-16s %6s %11s %11s %11s %11s\n", kd->tag, kd->n_lines,
                    "field", "n", "median", "min", "mean", "max (ms)");
        for (size_t i = 0; i < kd->n_fields; i++) {
            struct cuzk_stage_summary m;
            if (cuzk_stages_summary(&kd->f[i], &m)) return CUZK_ENOMEM;
            if (csv)
                fprintf(out, "%s,%s,%zu,%.3f,%.3f,%.3f,%.3f\n", kd->tag, kd->f[i].name, m.n,
                        m.median, m.min, m.mean, m.max);
            else
                fprintf(out, "  %-16s %6zu %11.2f %11.2f %11.2f %11.2f\n", kd->f[i].name, m.n,
                        m.median, m.min, m.mean, m.max);
        }
    }
    if (!csv && (s->n_malformed || s->n_dropped))
        fprintf(out,
                "skipped: %zu malformed timing lines, %zu values of fields past the %d a kind "
                "keeps\n",
                s->n_malformed, s->n_dropped, CUZK_STAGES_MAX_FIELDS);
    return ferror(out) ? CUZK_EIO : CUZK_OK;
}
