/* TIMELINE analysis: line parsing (valid, prefixed, malformed, unknown events), pairing of a
 * synthetic log into bars with known rows and busy times (greedy packing of synthesis rows,
 * derived and open bars, out-of-order lines), and the SVG: well-formed XML, one bar rect per bar
 * at the position cuzk_timeline_x gives, escaped job ids. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/timeline.h"
#include "cuzk/error.h"
#include "test_util.h"

static int parse(const char *line, struct cuzk_tl_record *r) {
    return cuzk_tl_parse_line(line, strlen(line), r);
}

static void test_parse(void) {
    struct cuzk_tl_record r;
    CHECK(parse("TIMELINE,1234,GPU_END,job-1,worker=2,partition=7,gpu_ms=55\n", &r) == 1);
    CHECK(r.t_ms == 1234 && r.event == CUZK_TL_GPU_END && r.worker == 2 && r.partition == 7);
    CHECK(r.ms == 55 && r.job_len == 5 && memcmp(r.job, "job-1", 5) == 0);
    CHECK(parse("TIMELINE,10.5,SYNTH_START,j,kind=porep-c2\r\n", &r) == 1);
    CHECK(r.t_ms == 10.5 && r.partition == -1 && r.worker == -1 && r.ms < 0);
    CHECK(parse("TIMELINE,7,GPU_QUEUE,j,monolithic", &r) == 1 && r.partition == -1);
    CHECK(parse("TIMELINE,7,FIN_START,j,worker=-1,partition=2", &r) == 1 && r.worker == -1 &&
          r.partition == 2);
    CHECK(parse("TIMELINE,7,GPU_QUEUE,j", &r) == 1 && r.event == CUZK_TL_GPU_QUEUE);
    CHECK(parse("TIMELINE,7,FIN_END,j,", &r) == 1 && r.event == CUZK_TL_FIN_END);
    /* a log prefix before the record is tolerated */
    CHECK(parse("2024-01-01T00:00:00Z INFO TIMELINE,8,SYNTH_END,j,synth_ms=3", &r) == 1);
    CHECK(r.t_ms == 8 && r.ms == 3);
    /* not TIMELINE lines */
    CHECK(parse("cuzk-daemon ready, serving on unix:///run/cuzk.sock", &r) == 0);
    CHECK(parse("", &r) == 0);
    CHECK(parse("TIMELINE", &r) == 0);
    /* malformed */
    CHECK(parse("TIMELINE,", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,12", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,abc,GPU_END,j,worker=0", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,-5,GPU_END,j,worker=0", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,1.2.3,GPU_END,j,worker=0", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,,worker=0", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,a b,worker=0", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,worker=x", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,worker=", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,worker=-", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,worker=--1", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,partition=99999999999", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,GPU_END,j,gpu_ms=1e9", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,,j,x", &r) == CUZK_EFORMAT);
    CHECK(parse("TIMELINE,5,gpu end,j,x", &r) == CUZK_EFORMAT);
    /* well-formed, unknown event */
    CHECK(parse("TIMELINE,5,CHAN_SEND,j,partition=1", &r) == CUZK_EUNSUPPORTED);
}

/* Lines deliberately out of order in places; offsets in ms. */
static const char *const log_lines[] = {
    "cuzk-daemon ready, serving on unix:///tmp/cuzk.sock",
    "TIMELINE,0,SYNTH_START,jobA,partition=0",
    "TIMELINE,0,SYNTH_START,jobA,partition=1",
    "TIMELINE,100,SYNTH_END,jobA,partition=0,synth_ms=100",
    "TIMELINE,100,GPU_QUEUE,jobA,partition=0",
    "TIMELINE,110,GPU_PICKUP,jobA,worker=0,partition=0",
    "TIMELINE,110,GPU_START,jobA,worker=0,partition=0",
    "TIMELINE,150,SYNTH_END,jobA,partition=1,synth_ms=150",
    "TIMELINE,150,GPU_QUEUE,jobA,partition=1",
    "TIMELINE,166,GPU_PICKUP,jobA,worker=1,partition=1",
    "TIMELINE,210,GPU_END,jobA,worker=0,partition=0,gpu_ms=100",
    "TIMELINE,166,GPU_START,jobA,worker=1,partition=1", /* out of order */
    "TIMELINE,150,SYNTH_START,job<B>,partition=0",      /* out of order; needs escaping */
    "TIMELINE,266,GPU_END,jobA,worker=1,partition=1,gpu_ms=100",
    "some other log line with TIMELINE in it but no comma",
    "TIMELINE,300,SYNTH_END,job<B>,partition=0,synth_ms=150",
    "TIMELINE,400,GPU_END,job<B>,worker=0,partition=0,gpu_ms=50", /* no start: derived */
    "TIMELINE,oops,GPU_END,job<B>,worker=0",                      /* malformed */
    "TIMELINE,410,GPU_END,jobC,worker=0",                         /* unmatched */
    "TIMELINE,420,CHAN_SEND,job<B>,partition=0",                  /* unknown event */
    "TIMELINE,380,FIN_START,job<B>,partition=0",                  /* open */
    "TIMELINE,390,SYNTH_START,jobC,partition=0",                  /* open */
};

struct expect {
    const char *job;
    int partition;
    enum cuzk_tl_lane lane;
    double start, end;
    const char *row; /* lane and worker/slot, as "gpu w0" or "synth #1" */
    int open, derived;
};

/* In the order the timeline sorts bars: by row (GPU, synthesis, finalizer), then start. */
static const struct expect expected[] = {
    {"jobA", 0, CUZK_TL_LANE_GPU, 110, 210, "gpu w0", 0, 0},
    {"job<B>", 0, CUZK_TL_LANE_GPU, 350, 400, "gpu w0", 0, 1},
    {"jobA", 1, CUZK_TL_LANE_GPU, 166, 266, "gpu w1", 0, 0},
    {"jobA", 0, CUZK_TL_LANE_SYNTH, 0, 100, "synth #0", 0, 0},
    {"job<B>", 0, CUZK_TL_LANE_SYNTH, 150, 300, "synth #0", 0, 0},
    {"jobC", 0, CUZK_TL_LANE_SYNTH, 390, 410, "synth #0", 1, 0},
    {"jobA", 1, CUZK_TL_LANE_SYNTH, 0, 150, "synth #1", 0, 0},
    {"job<B>", 0, CUZK_TL_LANE_FIN, 380, 410, "fin #0", 1, 0},
};

static int row_is(const struct cuzk_tl_row *r, const char *want) {
    char buf[32];
    const char *lane = r->lane == CUZK_TL_LANE_GPU     ? "gpu"
                       : r->lane == CUZK_TL_LANE_SYNTH ? "synth"
                                                       : "fin";
    if (r->worker >= 0 && r->slot == 0)
        snprintf(buf, sizeof buf, "%s w%d", lane, (int)r->worker);
    else if (r->worker >= 0)
        snprintf(buf, sizeof buf, "%s w%d.%u", lane, (int)r->worker, (unsigned)r->slot);
    else
        snprintf(buf, sizeof buf, "%s #%u", lane, (unsigned)r->slot);
    return strcmp(buf, want) == 0;
}

static void load(struct cuzk_timeline *tl, const char *const *lines, size_t n) {
    cuzk_timeline_init(tl);
    for (size_t i = 0; i < n; i++)
        CHECK(cuzk_timeline_add_line(tl, lines[i], strlen(lines[i])) == CUZK_OK);
    CHECK(cuzk_timeline_finish(tl) == CUZK_OK);
    CHECK(cuzk_timeline_finish(tl) == CUZK_OK); /* idempotent */
}

static void test_pairing(struct cuzk_timeline *tl) {
    size_t n_lines = sizeof log_lines / sizeof log_lines[0];
    load(tl, log_lines, n_lines);
    CHECK(tl->n_lines == n_lines);
    CHECK(tl->n_malformed == 1 && tl->n_unknown == 1 && tl->n_unmatched == 1 && tl->n_open == 2);
    CHECK(tl->n_records == n_lines - 4);
    CHECK(tl->t_min == 0 && tl->t_max == 410);
    CHECK(tl->n_jobs == 3 && strcmp(tl->jobs[0], "jobA") == 0 &&
          strcmp(tl->jobs[1], "job<B>") == 0 && strcmp(tl->jobs[2], "jobC") == 0);
    size_t n_exp = sizeof expected / sizeof expected[0];
    CHECK(tl->n_bars == n_exp);
    for (size_t i = 0; i < n_exp && i < tl->n_bars; i++) {
        const struct cuzk_tl_bar *b = &tl->bars[i];
        const struct expect *e = &expected[i];
        int ok = strcmp(tl->jobs[b->job], e->job) == 0 && b->partition == e->partition &&
                 b->lane == e->lane && b->start_ms == e->start && b->end_ms == e->end &&
                 b->row < tl->n_rows && row_is(&tl->rows[b->row], e->row) && b->open == e->open &&
                 b->derived == e->derived;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "bar %zu: %s/%d lane %d %.0f..%.0f row %u open %d derived %d\n", i,
                    tl->jobs[b->job], (int)b->partition, (int)b->lane, b->start_ms, b->end_ms,
                    (unsigned)b->row, b->open, b->derived);
    }
    CHECK(tl->n_rows == 5);
    const char *rows[] = {"gpu w0", "gpu w1", "synth #0", "synth #1", "fin #0"};
    for (size_t i = 0; i < 5 && i < tl->n_rows; i++) CHECK(row_is(&tl->rows[i], rows[i]));
    if (tl->n_rows == 5) {
        CHECK(tl->rows[0].busy_ms == 150 && tl->rows[0].n_bars == 2);
        CHECK(tl->rows[1].busy_ms == 100 && tl->rows[1].n_bars == 1);
        CHECK(tl->rows[2].busy_ms == 270 && tl->rows[3].busy_ms == 150);
    }
    /* union of GPU time: [110, 266] and [350, 400] */
    CHECK(tl->gpu_busy_ms == 206);
    CHECK(fabs(cuzk_timeline_gpu_busy(tl) - 206.0 / 410.0) < 1e-12);
    CHECK(tl->n_queue_waits == 2 && tl->queue_wait_sum_ms == 26 && tl->queue_wait_max_ms == 16);
    CHECK(cuzk_timeline_add_line(tl, "x", 1) == CUZK_EINVAL); /* finished */
}

/* Synthesis events that name their worker get that worker's row; overlapping bars of one
 * worker spill into a second row of that worker, and its busy time counts the overlap once. */
static void test_worker_rows(void) {
    static const char *const lines[] = {
        "TIMELINE,0,SYNTH_START,j1,worker=3,partition=0",
        "TIMELINE,0,SYNTH_START,j1,worker=1,partition=1",
        "TIMELINE,50,SYNTH_END,j1,worker=3,partition=0,synth_ms=50",
        "TIMELINE,20,SYNTH_START,j2,worker=3,partition=0",
        "TIMELINE,80,SYNTH_END,j2,worker=3,partition=0",
        "TIMELINE,100,SYNTH_END,j1,worker=1,partition=1",
        "TIMELINE,10,GPU_START,j1,worker=0",
        "TIMELINE,30,GPU_END,j1,worker=0,gpu_ms=20",
        "TIMELINE,40,GPU_START,j2,worker=0",
    };
    struct cuzk_timeline tl;
    load(&tl, lines, sizeof lines / sizeof lines[0]);
    CHECK(tl.n_bars == 5 && tl.n_rows == 4 && tl.n_open == 1 && tl.n_unmatched == 0);
    if (tl.n_rows == 4) {
        CHECK(row_is(&tl.rows[0], "gpu w0") && row_is(&tl.rows[1], "synth w1") &&
              row_is(&tl.rows[2], "synth w3") && row_is(&tl.rows[3], "synth w3.1"));
        CHECK(tl.rows[0].busy_ms == 80 && tl.rows[0].worker_busy_ms == 80); /* [10,30], [40,100] */
        /* worker 3's overlapping bars: one per row, the union counts [20,50] once */
        CHECK(tl.rows[2].busy_ms == 50 && tl.rows[2].n_bars == 1);
        CHECK(tl.rows[3].busy_ms == 60 && tl.rows[3].n_bars == 1);
        CHECK(tl.rows[2].worker_busy_ms == 80);
    }
    CHECK(tl.n_bars >= 1 && tl.bars[0].partition == -1); /* monolithic GPU bar */
    cuzk_timeline_free(&tl);

    /* An empty log draws an empty, valid chart. */
    cuzk_timeline_init(&tl);
    CHECK(cuzk_timeline_finish(&tl) == CUZK_OK && tl.n_bars == 0 && tl.n_rows == 0);
    CHECK(cuzk_timeline_gpu_busy(&tl) == 0);
    cuzk_timeline_free(&tl);
}

/* A small XML well-formedness check: one root element, properly nested and closed tags, quoted
 * attributes without '<', entity references only of the predefined or numeric kind. */
static int entity_ok(const char **p) {
    const char *s = *p + 1, *e = strchr(s, ';');
    if (!e || e - s > 8) return 0;
    static const char *const names[] = {"amp", "lt", "gt", "quot", "apos"};
    int ok = s[0] == '#';
    for (int i = 0; i < 5; i++)
        ok |= (size_t)(e - s) == strlen(names[i]) && memcmp(s, names[i], (size_t)(e - s)) == 0;
    *p = e + 1;
    return ok;
}

static int is_name(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
}

static int xml_well_formed(const char *s) {
    const char *stack[64];
    size_t sl[64], depth = 0;
    int roots = 0;
    if (strncmp(s, "<?xml", 5) == 0) {
        s = strstr(s, "?>");
        if (!s) return 0;
        s += 2;
    }
    while (*s) {
        if (*s == '&') {
            if (!entity_ok(&s)) return 0;
            continue;
        }
        if (*s == '>') return 0;
        if (*s != '<') {
            if (depth == 0 && !(*s == ' ' || *s == '\n')) return 0; /* text outside the root */
            s++;
            continue;
        }
        if (strncmp(s, "<!--", 4) == 0) {
            s = strstr(s, "-->");
            if (!s) return 0;
            s += 3;
            continue;
        }
        if (s[1] == '/') {
            const char *n = s + 2, *e = n;
            while (is_name(*e)) e++;
            if (*e != '>' || depth == 0) return 0;
            depth--;
            if (sl[depth] != (size_t)(e - n) || memcmp(stack[depth], n, sl[depth]) != 0) return 0;
            s = e + 1;
            continue;
        }
        const char *n = s + 1, *e = n;
        while (is_name(*e)) e++;
        if (e == n) return 0;
        const char *p = e;
        for (;;) {
            while (*p == ' ' || *p == '\n') p++;
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
            const char *a = p;
            while (is_name(*p)) p++;
            if (p == a || *p != '=' || (p[1] != '"' && p[1] != '\'')) return 0;
            char q = p[1];
            p += 2;
            while (*p && *p != q) {
                if (*p == '<') return 0;
                if (*p == '&') {
                    if (!entity_ok(&p)) return 0;
                } else {
                    p++;
                }
            }
            if (!*p) return 0;
            p++;
        }
        if (depth == 0) roots++;
        if (*p == '/') {
            s = p + 2;
        } else {
            if (depth == 64) return 0;
            stack[depth] = n;
            sl[depth++] = (size_t)(e - n);
            s = p + 1;
        }
    }
    return depth == 0 && roots == 1;
}

static double attr(const char *tag, const char *name) {
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(tag, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void test_svg(struct cuzk_timeline *tl) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f) return;
    struct cuzk_tl_svg_opts opts = {.width = 1000, .title = "test & <title>"};
    CHECK(cuzk_timeline_svg(tl, f, &opts) == CUZK_OK);
    fclose(f);
    CHECK(xml_well_formed(buf));
    CHECK(strstr(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
    CHECK(strstr(buf, "test &amp; &lt;title&gt;") != NULL);
    CHECK(strstr(buf, "job&lt;B&gt;") != NULL && strstr(buf, "job<B>") == NULL);
    CHECK(strstr(buf, "GPU busy: 50.2%") != NULL);
    CHECK(strstr(buf, "1 malformed (skipped)") != NULL);
    /* one row background per row, one bar rect per bar, in bar order and position */
    size_t rows = 0, bars = 0;
    for (const char *p = buf; (p = strstr(p, "<rect class=\"row\"")); p++) rows++;
    CHECK(rows == tl->n_rows);
    for (const char *p = buf; (p = strstr(p, "<rect class=\"bar")); p++) {
        char tag[512];
        const char *e = strchr(p, '>');
        size_t n = e ? (size_t)(e - p) : 0;
        if (n >= sizeof tag) n = sizeof tag - 1;
        memcpy(tag, p, n);
        tag[n] = 0;
        if (bars < tl->n_bars) {
            const struct cuzk_tl_bar *b = &tl->bars[bars];
            double x = cuzk_timeline_x(tl, &opts, b->start_ms);
            double w = cuzk_timeline_x(tl, &opts, b->end_ms) - x;
            CHECK(fabs(attr(tag, "x") - x) < 0.006);
            CHECK(fabs(attr(tag, "width") - fmax(w, CUZK_TL_MIN_BAR_PX)) < 0.006);
            CHECK(fabs(attr(tag, "y") - (64 + 22.0 * b->row + 3)) < 0.06);
            CHECK((strstr(tag, " open") != NULL) == b->open);
        }
        bars++;
    }
    CHECK(bars == tl->n_bars);
    /* the chart maps the span onto the plot: 110 px of labels, 20 px right margin */
    CHECK(fabs(cuzk_timeline_x(tl, &opts, 0) - 110) < 1e-9);
    CHECK(fabs(cuzk_timeline_x(tl, &opts, 410) - 980) < 1e-9);
    /* every job in the legend, labels on the wide bars */
    CHECK(strstr(buf, ">jobA/0</text>") != NULL);
    CHECK(strstr(buf, ">jobC</text>") != NULL);
    free(buf);

    /* the checker itself rejects broken documents */
    CHECK(!xml_well_formed("<a><b></a></b>"));
    CHECK(!xml_well_formed("<a x=\"1<\"/>"));
    CHECK(!xml_well_formed("<a>&bogus;</a>"));
    CHECK(!xml_well_formed("<a/><b/>"));
    CHECK(xml_well_formed("<?xml version=\"1.0\"?>\n<a x='1'><b/>t &amp; u</a>\n"));

    /* an empty timeline is still a valid document */
    struct cuzk_timeline empty;
    cuzk_timeline_init(&empty);
    CHECK(cuzk_timeline_finish(&empty) == CUZK_OK);
    f = open_memstream(&buf, &len);
    CHECK(cuzk_timeline_svg(&empty, f, NULL) == CUZK_OK);
    fclose(f);
    CHECK(xml_well_formed(buf));
    free(buf);
    cuzk_timeline_free(&empty);
}

/* cuzk_timeline_read over a stream gives the same result as line by line. */
static void test_read(const struct cuzk_timeline *ref) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < sizeof log_lines / sizeof log_lines[0]; i++)
        fprintf(f, "%s\n", log_lines[i]);
    fclose(f);
    f = fmemopen(buf, len, "r");
    struct cuzk_timeline tl;
    cuzk_timeline_init(&tl);
    CHECK(cuzk_timeline_read(&tl, f) == CUZK_OK);
    fclose(f);
    CHECK(cuzk_timeline_finish(&tl) == CUZK_OK);
    CHECK(tl.n_bars == ref->n_bars && tl.n_rows == ref->n_rows && tl.n_lines == ref->n_lines);
    CHECK(tl.n_malformed == ref->n_malformed && tl.gpu_busy_ms == ref->gpu_busy_ms);
    for (size_t i = 0; i < tl.n_bars && i < ref->n_bars; i++)
        CHECK(tl.bars[i].start_ms == ref->bars[i].start_ms && tl.bars[i].row == ref->bars[i].row);
    cuzk_timeline_free(&tl);
    free(buf);
}

int main(void) {
    test_init("test_timeline");
    test_parse();
    struct cuzk_timeline tl;
    test_pairing(&tl);
    test_worker_rows();
    test_svg(&tl);
    test_read(&tl);
    cuzk_timeline_free(&tl);
    return test_finish();
}
