/* Stage-time summaries (client/stages.h): which lines count (the four tags, at the start or
 * after a log prefix, not inside a word), malformed stage times (the whole line skipped),
 * summaries checked against values computed here (odd and even counts, one value, none), the
 * field limit, CRLF endings, reading a stream, and the printed table and CSV. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stages.h"
#include "cuzk/error.h"
#include "test_util.h"

static int add(struct cuzk_stages *s, const char *line) {
    return cuzk_stages_add_line(s, line, strlen(line));
}

static const struct cuzk_stage_field *find(const struct cuzk_stages *s, int kind,
                                           const char *name) {
    for (size_t i = 0; i < s->kind[kind].n_fields; i++)
        if (!strcmp(s->kind[kind].f[i].name, name)) return &s->kind[kind].f[i];
    return NULL;
}

static void test_lines(void) {
    struct cuzk_stages s;
    cuzk_stages_init(&s);
    CHECK(!strcmp(s.kind[0].tag, "GPU_TIMING") && !strcmp(s.kind[1].tag, "GPU_STAGES") &&
          !strcmp(s.kind[2].tag, "FIN_TIMING") && !strcmp(s.kind[3].tag, "CUZK_TIMING"));
    CHECK(add(&s, "GPU_STAGES job=a partition=0 device=0 spmv_ms=16.5 ntt_ms=168 "
                  "gpu_total_ms=1139.5\n") == CUZK_OK);
    CHECK(add(&s, "2026-12-03T03:30:06Z INFO GPU_STAGES job=b partition=1 spmv_ms=17.5 "
                  "ntt_ms=170 gpu_total_ms=1141.5\r\n") == CUZK_OK);
    CHECK(add(&s, "GPU_TIMING job=a partition=0 worker=1 device=0 lock_wait_ms=0.002 "
                  "device_ms=1139.3 prove_ms=1217.3") == CUZK_OK);
    CHECK(add(&s, "CUZK_TIMING job=a kind=porep circuit=porep-c18 state=done partitions=10 "
                  "queue_ms=0.090 total_ms=14146.471 retries=0") == CUZK_OK);
    /* not timing lines: other text, a tag inside a word or without its space, TIMELINE */
    CHECK(add(&s, "cuzk-daemon ready, serving on unix:///run/cuzk.sock") == CUZK_OK);
    CHECK(add(&s, "XGPU_STAGES spmv_ms=1") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES,spmv_ms=1") == CUZK_OK);
    CHECK(add(&s, "TIMELINE,8,GPU_END,j,worker=0,partition=1,gpu_ms=3") == CUZK_OK);
    CHECK(add(&s, "") == CUZK_OK);
    /* malformed: the whole line is skipped */
    CHECK(add(&s, "GPU_STAGES spmv_ms=1 ntt_ms=-3") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES spmv_ms=1 ntt_ms=") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES spmv_ms=1 ntt_ms=1e3") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES spmv_ms=1 ntt_ms=1.2.3") == CUZK_OK);
    CHECK(add(&s, "GPU_STAGES spmv_ms=1 ntt_ms=nan") == CUZK_OK);
    CHECK(add(&s, "FIN_TIMING verify_ms=. total_ms=2") == CUZK_OK);
    CHECK(s.n_lines == 16 && s.n_malformed == 6 && s.n_dropped == 0);
    CHECK(s.kind[1].n_lines == 2 && s.kind[0].n_lines == 1 && s.kind[2].n_lines == 0 &&
          s.kind[3].n_lines == 1);
    /* fields in the order they first appear, "_ms" keys only */
    CHECK(s.kind[1].n_fields == 3 && !strcmp(s.kind[1].f[0].name, "spmv_ms") &&
          !strcmp(s.kind[1].f[1].name, "ntt_ms") && !strcmp(s.kind[1].f[2].name, "gpu_total_ms"));
    CHECK(s.kind[3].n_fields == 2 && find(&s, 3, "queue_ms") && find(&s, 3, "total_ms") &&
          !find(&s, 3, "retries"));
    const struct cuzk_stage_field *f = find(&s, 1, "spmv_ms");
    CHECK(f && f->n == 2 && f->v[0] == 16.5 && f->v[1] == 17.5);
    f = find(&s, 0, "lock_wait_ms");
    CHECK(f && f->n == 1 && fabs(f->v[0] - 0.002) < 1e-12);
    cuzk_stages_free(&s);
    CHECK(s.kind[1].n_fields == 0 && s.n_lines == 0 && !strcmp(s.kind[1].tag, "GPU_STAGES"));
}

static void test_summary(void) {
    struct cuzk_stages s;
    cuzk_stages_init(&s);
    /* 1..9 shuffled into one field, 1..10 into another (a line may lack a field) */
    static const int order[] = {5, 9, 1, 7, 3, 8, 2, 6, 4, 10};
    char line[128];
    for (int i = 0; i < 10; i++) {
        if (order[i] < 10)
            snprintf(line, sizeof line, "GPU_TIMING a_ms=%d b_ms=%d.5", order[i], order[i]);
        else
            snprintf(line, sizeof line, "GPU_TIMING b_ms=%d.5", order[i]);
        CHECK(add(&s, line) == CUZK_OK);
    }
    struct cuzk_stage_summary m;
    CHECK(cuzk_stages_summary(find(&s, 0, "a_ms"), &m) == CUZK_OK);
    CHECK(m.n == 9 && m.median == 5 && m.min == 1 && m.max == 9 && m.mean == 5);
    CHECK(cuzk_stages_summary(find(&s, 0, "b_ms"), &m) == CUZK_OK);
    CHECK(m.n == 10 && m.median == 6 && m.min == 1.5 && m.max == 10.5 && m.mean == 6);
    /* the values stay in log order (the summary sorts a copy) */
    CHECK(find(&s, 0, "a_ms")->v[0] == 5 && find(&s, 0, "b_ms")->v[9] == 10.5);
    struct cuzk_stage_field empty = {.name = "x_ms"};
    CHECK(cuzk_stages_summary(&empty, &m) == CUZK_OK && m.n == 0 && m.median == 0 && m.max == 0);
    CHECK(add(&s, "FIN_TIMING verify_ms=12.25") == CUZK_OK);
    CHECK(cuzk_stages_summary(find(&s, 2, "verify_ms"), &m) == CUZK_OK);
    CHECK(m.n == 1 && m.median == 12.25 && m.min == 12.25 && m.max == 12.25 && m.mean == 12.25);
    cuzk_stages_free(&s);
}

/* More names than a kind keeps: the first CUZK_STAGES_MAX_FIELDS are kept, the rest counted. */
static void test_limits(void) {
    struct cuzk_stages s;
    cuzk_stages_init(&s);
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "GPU_STAGES");
    for (int i = 0; i < CUZK_STAGES_MAX_FIELDS + 3; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, " f%d_ms=%d", i, i);
    CHECK(add(&s, line) == CUZK_OK);
    CHECK(s.kind[1].n_lines == 1 && s.kind[1].n_fields == CUZK_STAGES_MAX_FIELDS &&
          s.n_dropped == 3 && s.n_malformed == 0);
    CHECK(!strcmp(s.kind[1].f[CUZK_STAGES_MAX_FIELDS - 1].name, "f31_ms"));
    /* a name longer than the kept length is malformed */
    char longname[128];
    memset(longname, 'x', sizeof longname);
    snprintf(longname + CUZK_STAGES_NAME_MAX, sizeof longname - CUZK_STAGES_NAME_MAX, "_ms=1");
    snprintf(line, sizeof line, "GPU_STAGES %s", longname);
    CHECK(add(&s, line) == CUZK_OK && s.n_malformed == 1 && s.kind[1].n_lines == 1);
    cuzk_stages_free(&s);
}

static void test_read_print(void) {
    const char *log = "GPU_STAGES job=a h_msm_ms=720 ntt_ms=168\n"
                      "noise\n"
                      "GPU_STAGES job=b h_msm_ms=719 ntt_ms=170\n"
                      "GPU_STAGES job=c h_msm_ms=721 ntt_ms=bad\n"
                      "GPU_STAGES job=d h_msm_ms=722 ntt_ms=166";
    FILE *in = fmemopen((void *)log, strlen(log), "r");
    CHECK(in != NULL);
    if (!in) return;
    struct cuzk_stages s;
    cuzk_stages_init(&s);
    CHECK(cuzk_stages_read(&s, in) == CUZK_OK);
    fclose(in);
    CHECK(s.n_lines == 5 && s.kind[1].n_lines == 3 && s.n_malformed == 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    CHECK(cuzk_stages_print(&s, out, 1) == CUZK_OK);
    fclose(out);
    CHECK(buf && !strcmp(buf, "kind,field,n,median_ms,min_ms,mean_ms,max_ms\n"
                              "GPU_STAGES,h_msm_ms,3,720.000,719.000,720.333,722.000\n"
                              "GPU_STAGES,ntt_ms,3,168.000,166.000,168.000,170.000\n"));
    free(buf);
    out = open_memstream(&buf, &len);
    CHECK(cuzk_stages_print(&s, out, 0) == CUZK_OK);
    fclose(out);
    CHECK(buf && strstr(buf, "GPU_STAGES: 3 lines\n") &&
          strstr(buf,
                 "  h_msm_ms              3      720.00      719.00      720.33      722.00\n") &&
          strstr(buf, "skipped: 1 malformed timing lines") && !strstr(buf, "GPU_TIMING"));
    free(buf);
    cuzk_stages_free(&s);
}

int main(void) {
    test_init("test_stages");
    test_lines();
    test_summary();
    test_limits();
    test_read_print();
    return test_finish();
}
