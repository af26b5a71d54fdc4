/* The residency plan of a key on a device (contract: cuda_plan.h). */
#include "groth16/cuda_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

const char *cuzk_cuda_query_name(enum cuzk_cuda_query q) {
    static const char *const names[CUZK_CUDA_Q_N] = {"A", "B1", "B2", "C", "H"};
    return (unsigned)q < CUZK_CUDA_Q_N ? names[q] : "?";
}

uint64_t cuzk_cuda_vram_reserve(uint64_t total) {
    const uint64_t r = total / 8;
    return r < CUZK_CUDA_VRAM_RESERVE_MIN   ? CUZK_CUDA_VRAM_RESERVE_MIN
           : r > CUZK_CUDA_VRAM_RESERVE_MAX ? CUZK_CUDA_VRAM_RESERVE_MAX
                                            : r;
}

static uint64_t key_total(const struct cuzk_cuda_plan_sizes *in) {
    uint64_t b = in->fixed;
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) b += in->query[q];
    return b;
}

/* The queries to stream so that the key's resident bytes fit `room` (rule 3 of the contract):
 * H first, then the smallest query that covers what is left, else the largest and again.
 * Returns 0 and sets *mask, *bytes (streamed) when they fit; -1 when even all of them streamed
 * leave the fixed bytes above room. */
static int choose_streamed(const struct cuzk_cuda_plan_sizes *in, uint64_t room, unsigned *mask,
                           uint64_t *bytes) {
    uint64_t resident = key_total(in);
    unsigned m = 0;
    uint64_t s = 0;
    if (resident > room && in->query[CUZK_CUDA_Q_H]) {
        m |= 1u << CUZK_CUDA_Q_H;
        s += in->query[CUZK_CUDA_Q_H];
        resident -= in->query[CUZK_CUDA_Q_H];
    }
    while (resident > room) {
        const uint64_t need = resident - room;
        int cover = -1, largest = -1;
        for (int q = 0; q < CUZK_CUDA_Q_N; q++) {
            const uint64_t b = in->query[q];
            if ((m >> q & 1u) || !b) continue;
            if (b >= need && (cover < 0 || b < in->query[cover])) cover = q;
            if (largest < 0 || b > in->query[largest]) largest = q;
        }
        const int q = cover >= 0 ? cover : largest;
        if (q < 0) return -1; /* all streamed: the fixed bytes alone do not fit */
        m |= 1u << q;
        s += in->query[q];
        resident -= in->query[q];
    }
    *mask = m;
    *bytes = s;
    return 0;
}

/* The candidate slices rules 2 to 5 choose among: the largest CUZK_CUDA_PLAN_SLICES_MAIN. */
static unsigned main_slices(const struct cuzk_cuda_plan_sizes *in) {
    return in->n_slices < CUZK_CUDA_PLAN_SLICES_MAIN ? in->n_slices : CUZK_CUDA_PLAN_SLICES_MAIN;
}

/* Rule 4 on in (rules 5 and 6 pass the sizes without the rows; save: the lean or the tight
 * work space's saving) among its first n slices: that work space with the largest slice that
 * holds everything resident, else the fewest bytes streamed, then the largest slice. 1 and *out
 * set, or 0. */
static int lean_rule(const struct cuzk_cuda_plan_sizes *in, uint64_t save, unsigned n,
                     struct cuzk_cuda_plan *out) {
    const uint64_t total = key_total(in);
    int best = -1;
    unsigned best_mask = 0;
    uint64_t best_bytes = 0;
    for (unsigned i = 0; save && i < n; i++) {
        if (in->work_slice[i] < save) continue;
        const uint64_t lean = in->work_slice[i] - save, work = lean + in->stage[i];
        unsigned mask = 0;
        uint64_t bytes = 0;
        if (lean <= in->budget && total <= in->budget - lean) {
            best = (int)i; /* the largest slice with everything resident */
            best_mask = 0;
            best_bytes = 0;
            break;
        }
        if (work > in->budget || choose_streamed(in, in->budget - work, &mask, &bytes)) continue;
        if (best < 0 || bytes < best_bytes) {
            best = (int)i;
            best_mask = mask;
            best_bytes = bytes;
        }
    }
    if (best < 0) return 0;
    memset(out, 0, sizeof *out);
    out->msm_max = in->slice_n[best];
    out->sliced = 1;
    out->lean = 1;
    out->streamed = best_mask;
    out->device_key = total - best_bytes;
    out->host_key = best_bytes;
    out->stage = best_mask ? in->stage[best] : 0;
    out->work = in->work_slice[best] - save + out->stage;
    return 1;
}

int cuzk_cuda_plan_make(const struct cuzk_cuda_plan_sizes *in, struct cuzk_cuda_plan *out,
                        char *err, size_t errlen) {
    if (!in || !out || in->n_slices > CUZK_CUDA_PLAN_SLICES) {
        if (err && errlen) snprintf(err, errlen, "residency plan: bad arguments");
        return CUZK_EINVAL;
    }
    memset(out, 0, sizeof *out);
    const uint64_t total = key_total(in);
    const unsigned n_main = main_slices(in);
    /* 1. everything resident, the context for the largest MSM */
    if (in->work_full <= in->budget && total <= in->budget - in->work_full) {
        out->msm_max = in->msm_n;
        out->device_key = total;
        out->work = in->work_full;
        return CUZK_OK;
    }
    /* 2. everything resident, MSMs in slices: the largest slice that fits */
    for (unsigned i = 0; i < n_main; i++) {
        if (in->work_slice[i] > in->budget || total > in->budget - in->work_slice[i]) continue;
        out->msm_max = in->slice_n[i];
        out->sliced = 1;
        out->device_key = total;
        out->work = in->work_slice[i];
        return CUZK_OK;
    }
    /* 3. queries streamed: the fewest bytes, then the largest slice */
    int best = -1;
    unsigned best_mask = 0;
    uint64_t best_bytes = 0;
    for (unsigned i = 0; i < n_main; i++) {
        const uint64_t work = in->work_slice[i] + in->stage[i];
        unsigned mask;
        uint64_t bytes;
        if (work > in->budget || choose_streamed(in, in->budget - work, &mask, &bytes)) continue;
        if (best < 0 || bytes < best_bytes) {
            best = (int)i;
            best_mask = mask;
            best_bytes = bytes;
        }
    }
    if (best >= 0) {
        out->msm_max = in->slice_n[best];
        out->sliced = 1;
        out->streamed = best_mask;
        out->device_key = total - best_bytes;
        out->host_key = best_bytes;
        out->stage = in->stage[best];
        out->work = in->work_slice[best] + in->stage[best];
        return CUZK_OK;
    }
    /* 4. the lean work space; 5. the same with the rows in host memory; 6. the tight one */
    if (lean_rule(in, in->lean_save, n_main, out)) return CUZK_OK;
    const int host_ok = in->lean_save && in->rows && in->rows <= in->fixed;
    if (host_ok) {
        struct cuzk_cuda_plan_sizes h = *in;
        h.fixed -= in->rows;
        if (lean_rule(&h, in->lean_save, n_main, out)) {
            out->host_rows = 1;
            return CUZK_OK;
        }
        const uint64_t tight = in->lean_save + in->tight_save;
        if (in->tight_save &&
            (lean_rule(&h, tight, n_main, out) || lean_rule(&h, tight, in->n_slices, out))) {
            out->host_rows = 1;
            out->lean = 0;
            out->tight = 1;
            return CUZK_OK;
        }
    }
    /* the smallest layout there is: every query streamed, the smallest slice (the smallest
     * work space offered; the slices after the main ones only to rule 6) */
    const uint64_t save = in->lean_save + (host_ok ? in->tight_save : 0);
    const unsigned n_least = host_ok && in->tight_save ? in->n_slices : n_main;
    uint64_t least = in->work_full;
    for (unsigned i = 0; i < n_least; i++) {
        uint64_t w = in->work_slice[i] + in->stage[i];
        if (save && in->work_slice[i] >= save) w -= save;
        if (w < least) least = w;
    }
    if (host_ok)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "the key's wire lists take %llu bytes of device memory (its rows, %llu "
                         "more, left in host memory) and its smallest work space %llu (its %llu "
                         "bytes of points streamed from host memory); the budget of %llu bytes "
                         "cannot hold them",
                         (unsigned long long)(in->fixed - in->rows), (unsigned long long)in->rows,
                         (unsigned long long)least, (unsigned long long)(total - in->fixed),
                         (unsigned long long)in->budget);
    return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                     "the key's rows and wire lists take %llu bytes of device memory and its "
                     "smallest work space %llu (its %llu bytes of points streamed from host "
                     "memory); the budget of %llu bytes cannot hold them",
                     (unsigned long long)in->fixed, (unsigned long long)least,
                     (unsigned long long)(total - in->fixed), (unsigned long long)in->budget);
}

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

void cuzk_cuda_plan_describe(const struct cuzk_cuda_plan *p, uint64_t budget, char *buf,
                             size_t len) {
    char res[32] = "", str[32] = "";
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) {
        char *dst = (p->streamed >> q & 1u) ? str : res;
        size_t used = strlen(dst);
        snprintf(dst + used, sizeof res - used, "%s%s", used ? " " : "",
                 cuzk_cuda_query_name((enum cuzk_cuda_query)q));
    }
    unsigned log_slice = 0;
    while (log_slice < 63 && ((size_t)1 << (log_slice + 1)) <= p->msm_max) log_slice++;
    char slices[64] = "";
    if (p->sliced)
        snprintf(slices, sizeof slices, "; MSMs in slices of %s2^%u points",
                 ((size_t)1 << log_slice) == p->msm_max ? "" : "about ", log_slice);
    char streamed[112] = "";
    if (p->streamed)
        snprintf(streamed, sizeof streamed, "; streamed %s (%.2f GiB of pinned host memory)", str,
                 gib(p->host_key));
    snprintf(buf, len, "resident %s%s%s%s%s; device %.2f GiB (key %.2f, work %.2f) of %.2f",
             *res ? res : "none", streamed, slices,
             p->lean    ? "; lean work space (one witness slot, no overlap)"
             : p->tight ? "; tight work space (three rooms; a, b, c through host memory)"
                        : "",
             p->host_rows ? "; rows in host memory (SpMV on the CPU)" : "",
             gib(p->device_key + p->work), gib(p->device_key), gib(p->work), gib(budget));
}

void cuzk_cuda_plan_sizes_describe(const struct cuzk_cuda_plan_sizes *s, char *buf, size_t len) {
    int at = snprintf(
        buf, len,
        "A=%llu B1=%llu B2=%llu C=%llu H=%llu fixed=%llu msm_n=%zu "
        "work_full=%llu lean=%llu tight=%llu rows=%llu slices=",
        (unsigned long long)s->query[CUZK_CUDA_Q_A], (unsigned long long)s->query[CUZK_CUDA_Q_B1],
        (unsigned long long)s->query[CUZK_CUDA_Q_B2], (unsigned long long)s->query[CUZK_CUDA_Q_C],
        (unsigned long long)s->query[CUZK_CUDA_Q_H], (unsigned long long)s->fixed, s->msm_n,
        (unsigned long long)s->work_full, (unsigned long long)s->lean_save,
        (unsigned long long)s->tight_save, (unsigned long long)s->rows);
    for (unsigned i = 0; i < s->n_slices && at >= 0 && (size_t)at < len; i++)
        at += snprintf(buf + at, len - (size_t)at, "%s%zu:%llu+%llu", i ? "," : "", s->slice_n[i],
                       (unsigned long long)s->work_slice[i], (unsigned long long)s->stage[i]);
}

/* *v = the unsigned number after "name=" in line (the name at a word's start); 0 or -1. */
static int field(const char *line, const char *name, uint64_t *v) {
    const size_t n = strlen(name);
    for (const char *p = strstr(line, name); p; p = strstr(p + 1, name)) {
        if ((p != line && p[-1] != ' ') || p[n] != '=') continue;
        const char *d = p + n + 1;
        char *end;
        errno = 0;
        const unsigned long long x = strtoull(d, &end, 10);
        if (end == d || *d == '-' || errno || (*end && *end != ' ')) return -1;
        *v = x;
        return 0;
    }
    return -1;
}

int cuzk_cuda_plan_sizes_parse(const char *line, struct cuzk_cuda_plan_sizes *s) {
    if (!line || !s) return CUZK_EINVAL;
    memset(s, 0, sizeof *s);
    const char *a = strstr(line, "A=");
    while (a && a != line && a[-1] != ' ') a = strstr(a + 1, "A=");
    if (!a) return CUZK_EFORMAT;
    uint64_t budget = 0, msm_n = 0;
    (void)field(line, "budget", &budget); /* optional */
    static const char *const names[CUZK_CUDA_Q_N] = {"A", "B1", "B2", "C", "H"};
    for (int q = 0; q < CUZK_CUDA_Q_N; q++)
        if (field(a, names[q], &s->query[q])) return CUZK_EFORMAT;
    if (field(a, "fixed", &s->fixed) || field(a, "msm_n", &msm_n) ||
        field(a, "work_full", &s->work_full))
        return CUZK_EFORMAT;
    if ((strstr(a, " lean=") && field(a, "lean", &s->lean_save)) ||
        (strstr(a, " tight=") && field(a, "tight", &s->tight_save)) ||
        (strstr(a, " rows=") && field(a, "rows", &s->rows)))
        return CUZK_EFORMAT;
    s->budget = budget;
    s->msm_n = (size_t)msm_n;
    const char *sl = strstr(a, " slices=");
    if (!sl) return CUZK_EFORMAT;
    sl += strlen(" slices=");
    while (*sl && *sl != ' ' && *sl != '\n') {
        if (s->n_slices == CUZK_CUDA_PLAN_SLICES) return CUZK_EFORMAT;
        char *end;
        const unsigned i = s->n_slices;
        errno = 0;
        if (*sl < '0' || *sl > '9') return CUZK_EFORMAT;
        s->slice_n[i] = (size_t)strtoull(sl, &end, 10);
        if (end == sl || *end != ':') return CUZK_EFORMAT;
        sl = end + 1;
        if (*sl < '0' || *sl > '9') return CUZK_EFORMAT;
        s->work_slice[i] = strtoull(sl, &end, 10);
        if (end == sl || *end != '+') return CUZK_EFORMAT;
        sl = end + 1;
        if (*sl < '0' || *sl > '9') return CUZK_EFORMAT;
        s->stage[i] = strtoull(sl, &end, 10);
        if (end == sl || errno || (*end && *end != ',' && *end != ' ' && *end != '\n'))
            return CUZK_EFORMAT;
        s->n_slices++;
        sl = end;
        if (*sl == ',') sl++;
    }
    return CUZK_OK;
}
