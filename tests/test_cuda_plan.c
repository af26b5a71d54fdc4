/* The residency plan (src/groth16/cuda_plan.h): each rule at its edges, on the sizes of a
 * porep-c18 key (rounded from docs/engine.md "The GPU memory porep-c18 needs") and on small
 * made-up ones. Pure functions: runs on every machine. */
#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "groth16/cuda_plan.h"
#include "test_util.h"

#define GiB ((uint64_t)1 << 30)
#define MiB ((uint64_t)1 << 20)

/* A porep-c18-like key: 2^27 domain, about 130 M witness values; the work space is the NTT
 * context (12 GiB) and the vectors (19.64 GiB) plus an MSM context for the slice; a streamer's
 * buffers hold a G1 slice each (96 bytes a point). */
static struct cuzk_cuda_plan_sizes c18(uint64_t budget) {
    struct cuzk_cuda_plan_sizes s;
    memset(&s, 0, sizeof s);
    s.budget = budget;
    s.query[CUZK_CUDA_Q_A] = 5400 * MiB;
    s.query[CUZK_CUDA_Q_B1] = 5400 * MiB;
    s.query[CUZK_CUDA_Q_B2] = 10800 * MiB;
    s.query[CUZK_CUDA_Q_C] = 11920 * MiB;
    s.query[CUZK_CUDA_Q_H] = 12288 * MiB;
    s.fixed = 5540 * MiB;
    s.msm_n = (size_t)1 << 27;
    const uint64_t base = 12 * GiB + 20111 * MiB; /* NTT context + vectors */
    s.work_full = base + 13281 * MiB;             /* a context for 2^27 points */
    s.n_slices = 3;
    for (unsigned i = 0; i < 3; i++) {
        s.slice_n[i] = (size_t)1 << (25 - i);
        s.work_slice[i] = base + (13281 * MiB >> (2 + i));
        s.stage[i] = 2 * 96 * (uint64_t)s.slice_n[i];
    }
    return s;
}

static uint64_t total_key(const struct cuzk_cuda_plan_sizes *s) {
    uint64_t t = s->fixed;
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) t += s->query[q];
    return t;
}

/* Whatever the rule, a plan's bytes add up and fit the budget. */
static void check_sums(const struct cuzk_cuda_plan_sizes *s, const struct cuzk_cuda_plan *p) {
    uint64_t streamed = 0;
    for (int q = 0; q < CUZK_CUDA_Q_N; q++)
        if (p->streamed >> q & 1u) streamed += s->query[q];
    CHECK(p->host_key == streamed);
    CHECK(p->device_key + p->host_key == total_key(s));
    CHECK(p->device_key + p->work <= s->budget);
    CHECK(p->sliced == (p->msm_max < s->msm_n));
    CHECK(!p->streamed == !p->stage);
}

static void test_rules(void) {
    char err[256];
    struct cuzk_cuda_plan p;
    /* rule 1: the H200's budget holds everything with the full context */
    struct cuzk_cuda_plan_sizes s = c18(137 * GiB);
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(!p.sliced && !p.streamed && p.msm_max == s.msm_n && p.work == s.work_full);
    check_sums(&s, &p);
    /* at the edge, one byte short: rule 2 with the largest slice */
    s.budget = total_key(&s) + s.work_full;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK && !p.sliced);
    s.budget--;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.sliced && !p.streamed && p.msm_max == s.slice_n[0]);
    check_sums(&s, &p);
    /* between the slices: the largest slice that fits */
    s.budget = total_key(&s) + s.work_slice[1];
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.sliced && !p.streamed && p.msm_max == s.slice_n[1]);
    check_sums(&s, &p);
    /* rule 3, an 80 GB card (the budget less the 3 GiB reserve): H streamed, nothing else */
    s = c18(76 * GiB + 600 * MiB);
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == 1u << CUZK_CUDA_Q_H);
    CHECK(p.host_key == s.query[CUZK_CUDA_Q_H]);
    check_sums(&s, &p);
    /* the fewest bytes streamed, then the largest slice: with H streamed the 2^25 slice's
     * streamer leaves too little, the 2^24 one fits: H alone beats H and B1 */
    {
        const uint64_t room25 = s.budget - s.work_slice[0] - s.stage[0];
        const uint64_t room24 = s.budget - s.work_slice[1] - s.stage[1];
        const uint64_t need = total_key(&s) - s.query[CUZK_CUDA_Q_H];
        CHECK(need > room25 && need <= room24);
        CHECK(p.msm_max == s.slice_n[1]);
    }
    /* a larger budget where both slices need only H: the larger slice */
    s.budget = total_key(&s) - s.query[CUZK_CUDA_Q_H] + s.work_slice[0] + s.stage[0];
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == 1u << CUZK_CUDA_Q_H && p.msm_max == s.slice_n[0]);
    check_sums(&s, &p);
    /* 1 MiB less: the 2^24 slice still streams H alone, the fewer bytes */
    s.budget -= MiB;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == 1u << CUZK_CUDA_Q_H && p.msm_max == s.slice_n[1]);
    /* with the 2^25 slice alone, the smallest query that covers the rest after H: A (the first
     * of the two smallest), not C or B2 */
    s.n_slices = 1;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == (1u << CUZK_CUDA_Q_H | 1u << CUZK_CUDA_Q_A));
    check_sums(&s, &p);
    /* a 48 GB card: the largest first while none covers, then the smallest that does */
    s = c18(45 * GiB);
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed & 1u << CUZK_CUDA_Q_H);
    CHECK(p.streamed & 1u << CUZK_CUDA_Q_C); /* the largest after H */
    check_sums(&s, &p);
    char line[256];
    cuzk_cuda_plan_describe(&p, s.budget, line, sizeof line);
    CHECK(strstr(line, "streamed") && strstr(line, "H") && strstr(line, "slices of 2^"));
    printf("48 GiB card: %s\n", line);
    /* 16 and 24 GB cards: the rows and the work space alone exceed the budget: refused, with the
     * sizes */
    for (uint64_t b = 13; b <= 21; b += 8) {
        s = c18(b * GiB);
        err[0] = 0;
        CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
        CHECK(strstr(err, "cannot hold") != NULL);
        printf("%llu GiB budget: %s\n", (unsigned long long)b, err);
    }
    /* every query streamed at the edge of the smallest layout; one byte less is refused */
    s = c18(0);
    s.budget = s.fixed + s.work_slice[2] + s.stage[2];
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == (1u << CUZK_CUDA_Q_N) - 1 && p.device_key == s.fixed);
    check_sums(&s, &p);
    s.budget--;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
}

/* A key without a C query (no private wire) and no slices: the plan never streams a query of
 * 0 bytes, and without slices only rule 1 exists. */
static void test_small(void) {
    char err[128];
    struct cuzk_cuda_plan p;
    struct cuzk_cuda_plan_sizes s;
    memset(&s, 0, sizeof s);
    s.query[CUZK_CUDA_Q_A] = s.query[CUZK_CUDA_Q_B1] = 1000;
    s.query[CUZK_CUDA_Q_B2] = 2000;
    s.query[CUZK_CUDA_Q_H] = 4000;
    s.fixed = 100;
    s.msm_n = 1024;
    s.work_full = 5000;
    s.budget = 13100;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK && !p.sliced);
    s.budget = 13099;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    s.n_slices = 1;
    s.slice_n[0] = 256;
    s.work_slice[0] = 2000;
    s.stage[0] = 500;
    s.budget = 2000 + 500 + 100; /* everything streamed, C never named */
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.streamed == (1u << CUZK_CUDA_Q_N) - 1 - (1u << CUZK_CUDA_Q_C));
    check_sums(&s, &p);
    /* arguments */
    CHECK(cuzk_cuda_plan_make(NULL, &p, err, sizeof err) == CUZK_EINVAL);
    CHECK(cuzk_cuda_plan_make(&s, NULL, err, sizeof err) == CUZK_EINVAL);
    s.n_slices = CUZK_CUDA_PLAN_SLICES + 1;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EINVAL);
    CHECK(strcmp(cuzk_cuda_query_name(CUZK_CUDA_Q_B2), "B2") == 0);
    CHECK(strcmp(cuzk_cuda_query_name(CUZK_CUDA_Q_N), "?") == 0);
}

/* Rule 4, the lean work space: only where no other layout fits; at the edge of its smallest
 * layout and one byte below; with nothing streamed for a key smaller than a streamer. */
static void test_lean(void) {
    char err[256], line[256];
    struct cuzk_cuda_plan p;
    const uint64_t save = 3 * 3972 * MiB; /* three vectors of the witness's 130 M values */
    struct cuzk_cuda_plan_sizes s = c18(45 * GiB);
    s.lean_save = save;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK && !p.lean); /* rule 3 fits */
    s.budget = 30 * GiB;                                                       /* a 32 GB card */
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.lean && p.sliced && p.streamed);
    check_sums(&s, &p);
    cuzk_cuda_plan_describe(&p, s.budget, line, sizeof line);
    CHECK(strstr(line, "lean work space") != NULL);
    printf("30 GiB card: %s\n", line);
    s.budget = s.fixed + s.work_slice[2] - save + s.stage[2];
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.lean && p.streamed == (1u << CUZK_CUDA_Q_N) - 1 && p.device_key == s.fixed);
    CHECK(p.work == s.work_slice[2] - save + s.stage[2]);
    check_sums(&s, &p);
    s.budget--;
    err[0] = 0;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    char least[64];
    snprintf(least, sizeof least, "smallest work space %llu ",
             (unsigned long long)(s.work_slice[2] - save + s.stage[2]));
    CHECK(strstr(err, least) != NULL); /* the refusal names the lean layout's size */
    /* a key smaller than a streamer's buffers: lean, nothing streamed, no streamer */
    memset(&s, 0, sizeof s);
    s.query[CUZK_CUDA_Q_A] = s.query[CUZK_CUDA_Q_B1] = 10;
    s.query[CUZK_CUDA_Q_B2] = 20;
    s.query[CUZK_CUDA_Q_H] = 40;
    s.fixed = 100;
    s.msm_n = 1024;
    s.work_full = 5000;
    s.n_slices = 1;
    s.slice_n[0] = 256;
    s.work_slice[0] = 2000;
    s.stage[0] = 500;
    s.lean_save = 300;
    s.budget = 180 + 1700;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.lean && !p.streamed && !p.stage && p.work == 1700 && p.device_key == 180);
    check_sums(&s, &p);
    s.budget--;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
}

/* Rule 6, the tight work space, on the sizes the H100 test machine logged for a porep-c18 key
 * (tests/data/plan/porep-c18.log; tight= is two 2^27 vectors: the NTT's scratch and buffer):
 * a 16 GiB card gets it (rows in host memory, everything streamed); a 24 GiB card keeps rule 5;
 * at the edge of its smallest layout and one byte below; without the saving 16 GiB is refused. */
static void test_tight(void) {
    char err[512], line[256];
    struct cuzk_cuda_plan p;
    struct cuzk_cuda_plan_sizes s;
    CHECK(cuzk_cuda_plan_sizes_parse(
              "A=12456347520 B1=3178779072 B2=6357558144 C=12496309728 H=12884901792 "
              "fixed=6264797724 msm_n=134217728 work_full=46842454383 lean=12496341216 "
              "tight=8589934592 rows=5613334116 slices=67108864:42673924463+12884901888,"
              "33554432:37594926447+6442450944,16777216:36687011183+3221225472,"
              "8388608:35427747183+1610612736",
              &s) == CUZK_OK);
    CHECK(s.tight_save == 8589934592ull);
    s.budget = 24 * GiB;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.lean && p.host_rows && !p.tight);
    s.budget = 16 * GiB;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.tight && !p.lean && p.host_rows && p.streamed == (1u << CUZK_CUDA_Q_N) - 1);
    CHECK(p.device_key == s.fixed - s.rows && p.msm_max == (size_t)1 << 23);
    CHECK(p.device_key + p.work <= s.budget && p.host_key + p.device_key + s.rows == total_key(&s));
    cuzk_cuda_plan_describe(&p, s.budget, line, sizeof line);
    CHECK(strstr(line, "tight work space") && strstr(line, "rows in host memory"));
    printf("16 GiB card: %s\n", line);
    const uint64_t least = s.work_slice[3] - s.lean_save - s.tight_save + s.stage[3];
    s.budget = s.fixed - s.rows + least;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK && p.tight && p.work == least);
    s.budget--;
    err[0] = 0;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    char want[64];
    snprintf(want, sizeof want, "smallest work space %llu ", (unsigned long long)least);
    CHECK(strstr(err, want) != NULL);
    s.budget = 16 * GiB;
    s.tight_save = 0;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    /* no rows to leave on the host: no tight plan either */
    s.tight_save = 8589934592ull;
    s.fixed -= s.rows;
    s.rows = 0;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    /* the line with tight= reads back; without it, none */
    char l2[640];
    s.rows = 5613334116ull;
    s.fixed += s.rows;
    cuzk_cuda_plan_sizes_describe(&s, l2, sizeof l2);
    struct cuzk_cuda_plan_sizes r;
    CHECK(strstr(l2, " tight=8589934592 ") && cuzk_cuda_plan_sizes_parse(l2, &r) == CUZK_OK &&
          r.tight_save == s.tight_save);
    char *at = strstr(l2, " tight=");
    if (at) at[7] = '-';
    CHECK(cuzk_cuda_plan_sizes_parse(l2, &r) == CUZK_EFORMAT);
}

/* Rule 6 among the slices after the main four, on the same logged sizes with the 2^22, 2^21 and
 * 2^20 entries appended (the 2^23 work space less the MSM context's difference, which
 * cuzk_cuda_work_bytes_for gives on a CUDA build: 593494016, 740294656 and 1092616192 bytes;
 * the staging halves with each slice): a 16 GB card's default budget (16,376 MiB less its 2 GiB
 * reserve: 14.0 GiB) gets 2^21 slices, 16 GiB still 2^23; no other rule takes the small slices;
 * below the 2^20 layout the refusal names that one. */
static void test_tight_slices(void) {
    char err[512], line[256];
    struct cuzk_cuda_plan p;
    struct cuzk_cuda_plan_sizes s;
    CHECK(cuzk_cuda_plan_sizes_parse(
              "A=12456347520 B1=3178779072 B2=6357558144 C=12496309728 H=12884901792 "
              "fixed=6264797724 msm_n=134217728 work_full=46842454383 lean=12496341216 "
              "tight=8589934592 rows=5613334116 slices=67108864:42673924463+12884901888,"
              "33554432:37594926447+6442450944,16777216:36687011183+3221225472,"
              "8388608:35427747183+1610612736,4194304:34834253167+805306368,"
              "2097152:34687452527+402653184,1048576:34335130991+201326592",
              &s) == CUZK_OK);
    CHECK(s.n_slices == 7);
    const uint64_t card = (uint64_t)16376 << 20, save = s.lean_save + s.tight_save;
    CHECK(cuzk_cuda_vram_reserve(card) == 2 * GiB);
    s.budget = card - cuzk_cuda_vram_reserve(card);
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.tight && p.host_rows && p.msm_max == (size_t)1 << 21);
    CHECK(p.work == s.work_slice[5] - save + s.stage[5] && p.device_key + p.work <= s.budget);
    cuzk_cuda_plan_describe(&p, s.budget, line, sizeof line);
    CHECK(strstr(line, "slices of 2^21 points") != NULL);
    printf("16 GB card, default budget: %s\n", line);
    s.budget = 16 * GiB;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.tight && p.msm_max == (size_t)1 << 23);
    s.budget = 24 * GiB; /* rule 5 keeps the main slices */
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.lean && p.msm_max == (size_t)1 << 23);
    const uint64_t least = s.work_slice[6] - save + s.stage[6];
    s.budget = s.fixed - s.rows + least;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK);
    CHECK(p.tight && p.msm_max == (size_t)1 << 20);
    s.budget--;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    char want[64];
    snprintf(want, sizeof want, "smallest work space %llu ", (unsigned long long)least);
    CHECK(strstr(err, want) != NULL);
    /* without rule 6 the small slices are no one's: the refusal names the main ones' least */
    s.tight_save = 0;
    s.budget = 20 * GiB;
    CHECK(cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_EUNSUPPORTED);
    snprintf(want, sizeof want, "smallest work space %llu ",
             (unsigned long long)(s.work_slice[3] - s.lean_save + s.stage[3]));
    CHECK(strstr(err, want) != NULL);
}

/* The default budget's reserve: an eighth of the card, between 2 and 3 GiB. */
static void test_reserve(void) {
    CHECK(cuzk_cuda_vram_reserve(0) == 2 * GiB);
    CHECK(cuzk_cuda_vram_reserve(8 * GiB) == 2 * GiB);
    CHECK(cuzk_cuda_vram_reserve(20 * GiB) == 20 * GiB / 8);
    CHECK(cuzk_cuda_vram_reserve(24 * GiB) == 3 * GiB);
    CHECK(cuzk_cuda_vram_reserve((uint64_t)81559 << 20) == 3 * GiB);
    CHECK(cuzk_cuda_vram_reserve(UINT64_MAX) == 3 * GiB);
}

/* The sizes' log line reads back as the sizes it was written from; broken lines are refused. */
static void test_sizes_line(void) {
    struct cuzk_cuda_plan_sizes s = c18(76 * GiB), r;
    char line[512], logged[640];
    cuzk_cuda_plan_sizes_describe(&s, line, sizeof line);
    snprintf(logged, sizeof logged,
             "2026-12-07 INFO cuda: device 0: key 00ff: the plan's sizes: "
             "budget=%llu %s\n",
             (unsigned long long)s.budget, line);
    CHECK(cuzk_cuda_plan_sizes_parse(logged, &r) == CUZK_OK);
    CHECK(memcmp(&s, &r, sizeof s) == 0);
    /* with a lean saving; a line logged before lean= existed reads as none; a broken one fails */
    {
        struct cuzk_cuda_plan_sizes l = s;
        char ll[512], old[512];
        l.lean_save = 12345;
        cuzk_cuda_plan_sizes_describe(&l, ll, sizeof ll);
        CHECK(strstr(ll, " lean=12345 ") != NULL);
        CHECK(cuzk_cuda_plan_sizes_parse(ll, &r) == CUZK_OK && r.lean_save == 12345);
        snprintf(old, sizeof old, "%s", ll);
        char *at = strstr(old, " lean=12345");
        if (at) memmove(at, at + strlen(" lean=12345"), strlen(at + strlen(" lean=12345")) + 1);
        CHECK(cuzk_cuda_plan_sizes_parse(old, &r) == CUZK_OK && r.lean_save == 0);
        at = strstr(ll, " lean=");
        if (at) at[6] = '-';
        CHECK(cuzk_cuda_plan_sizes_parse(ll, &r) == CUZK_EFORMAT);
    }
    CHECK(cuzk_cuda_plan_sizes_parse(line, &r) == CUZK_OK && r.budget == 0);
    r.budget = s.budget;
    CHECK(memcmp(&s, &r, sizeof s) == 0);
    /* each field missing or broken in turn */
    static const char *const cut[] = {
        " B2=", " H=", " fixed=", " msm_n=", " work_full=", " slices="};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        char bad[640];
        snprintf(bad, sizeof bad, "%s", line);
        char *p = strstr(bad, cut[i]);
        CHECK(p != NULL);
        if (!p) continue;
        p[1] = 'x'; /* the name no longer matches */
        CHECK(cuzk_cuda_plan_sizes_parse(bad, &r) == CUZK_EFORMAT);
        snprintf(bad, sizeof bad, "%s", line);
        p = strstr(bad, cut[i]) + strlen(cut[i]);
        *p = '-';
        CHECK(cuzk_cuda_plan_sizes_parse(bad, &r) == CUZK_EFORMAT);
    }
    char many[1024];
    int at = snprintf(many, sizeof many, "%s", line); /* one slice more than a line may hold */
    for (unsigned i = s.n_slices; i <= CUZK_CUDA_PLAN_SLICES; i++)
        at += snprintf(many + at, sizeof many - (size_t)at, ",%u:2+3", i + 1);
    CHECK(cuzk_cuda_plan_sizes_parse(many, &r) == CUZK_EFORMAT);
    CHECK(cuzk_cuda_plan_sizes_parse("no sizes here", &r) == CUZK_EFORMAT);
    CHECK(cuzk_cuda_plan_sizes_parse(NULL, &r) == CUZK_EINVAL);
}

int main(void) {
    test_init("test_cuda_plan");
    test_rules();
    test_small();
    test_lean();
    test_tight();
    test_tight_slices();
    test_reserve();
    test_sizes_line();
    return test_finish();
}
