/* Prometheus text from a status snapshot (see metrics.h). */
#define _GNU_SOURCE
#include "server/metrics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes s as a label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static void family(FILE *f, const char *name, const char *type, const char *help) {
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void device_labels(FILE *f, const struct cuzk_status_device *d) {
    fprintf(f, "{device=\"%" PRIu32 "\",name=\"", d->index);
    label(f, d->name);
    fputs("\"}", f);
}

/* proof_kind is the reference cuzk's label value of the kind (porep_c2, ...; a kind it does not
 * have: the kind's name). */
static void kind_label(FILE *f, const char *name, const struct cuzk_status_kind *k) {
    fprintf(f, "%s{proof_kind=\"", name);
    label(f, k->label);
    fputs("\"}", f);
}

static const char *label_of(const struct cuzk_engine_status *s, const char *kind) {
    for (size_t i = 0; i < s->n_kinds; i++)
        if (!strcmp(s->kinds[i].name, kind)) return s->kinds[i].label;
    return kind;
}

char *cuzk_metrics_render(const struct cuzk_engine_status *s, size_t *len) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return NULL;

    family(f, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
    fprintf(f, "cuzk_uptime_seconds %.3f\n", s->uptime_s);

    static const struct {
        const char *name, *help;
        size_t total_off, kind_off;
    } counts[] = {
        {"cuzk_proofs_completed", "Jobs completed with a proof.",
         offsetof(struct cuzk_engine_status, completed),
         offsetof(struct cuzk_status_kind, completed)},
        {"cuzk_proofs_failed", "Jobs that failed.", offsetof(struct cuzk_engine_status, failed),
         offsetof(struct cuzk_status_kind, failed)},
        {"cuzk_proofs_cancelled", "Jobs cancelled.", offsetof(struct cuzk_engine_status, cancelled),
         offsetof(struct cuzk_status_kind, cancelled)},
    };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        char total[64];
        snprintf(total, sizeof total, "%s_total", counts[c].name);
        family(f, total, "counter", counts[c].help);
        fprintf(f, "%s %" PRIu64 "\n", total,
                *(const uint64_t *)((const char *)s + counts[c].total_off));
        family(f, counts[c].name, "counter", counts[c].help);
        for (size_t i = 0; i < s->n_kinds; i++) {
            kind_label(f, counts[c].name, &s->kinds[i]);
            fprintf(f, " %" PRIu64 "\n",
                    *(const uint64_t *)((const char *)&s->kinds[i] + counts[c].kind_off));
        }
    }

    family(f, "cuzk_proof_duration_seconds", "summary", "Submit-to-result time of completed jobs.");
    for (size_t i = 0; i < s->n_kinds; i++) {
        kind_label(f, "cuzk_proof_duration_seconds_sum", &s->kinds[i]);
        fprintf(f, " %.3f\n", s->kinds[i].total_ms_sum / 1e3);
        kind_label(f, "cuzk_proof_duration_seconds_count", &s->kinds[i]);
        fprintf(f, " %" PRIu64 "\n", s->kinds[i].completed);
    }

    /* The reference's scheduler gauges, with its meaning: jobs waiting for their first
     * partition to start, device workers holding a partition, device workers. */
    family(f, "cuzk_queue_depth", "gauge", "Jobs queued, none of their partitions started.");
    fprintf(f, "cuzk_queue_depth %" PRIu32 "\n", s->pipeline.jobs_queued);
    family(f, "cuzk_running_jobs", "gauge", "Device workers holding a partition now.");
    fprintf(f, "cuzk_running_jobs %" PRIu32 "\n", s->pipeline.device_busy);
    family(f, "cuzk_gpu_workers", "gauge", "Device workers, all devices.");
    fprintf(f, "cuzk_gpu_workers %" PRIu32 "\n", s->pipeline.device_workers);

    family(f, "cuzk_partitions_queued", "gauge", "Partitions waiting, by queue.");
    for (size_t i = 0; i < s->n_kinds; i++) {
        for (int q = 0; q < 2; q++) {
            fputs("cuzk_partitions_queued{proof_kind=\"", f);
            label(f, s->kinds[i].label);
            fprintf(f, "\",stage=\"%s\"} %" PRIu32 "\n", q ? "gpu" : "synthesis",
                    q ? s->kinds[i].gpu_pending : s->kinds[i].synth_pending);
        }
    }
    family(f, "cuzk_partitions_in_progress", "gauge",
           "Partitions being synthesized, proved or finalized.");
    for (size_t i = 0; i < s->n_kinds; i++) {
        kind_label(f, "cuzk_partitions_in_progress", &s->kinds[i]);
        fprintf(f, " %" PRIu32 "\n", s->kinds[i].in_progress);
    }
    family(f, "cuzk_jobs_live", "gauge", "Jobs accepted and not final yet.");
    for (size_t i = 0; i < s->n_kinds; i++) {
        kind_label(f, "cuzk_jobs_live", &s->kinds[i]);
        fprintf(f, " %" PRIu32 "\n", s->kinds[i].jobs_live);
    }
    family(f, "cuzk_jobs_live_all", "gauge", "Jobs accepted and not final yet, all kinds.");
    fprintf(f, "cuzk_jobs_live_all %zu\n", s->n_jobs);

    family(f, "cuzk_gpu_busy_ratio", "gauge",
           "Share of the recent window a device spent proving (0..1).");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_busy_ratio", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %.4f\n", s->devices[i].utilization);
    }
    family(f, "cuzk_gpu_busy_ratio_all", "gauge", "Busy share of all devices together (0..1).");
    fprintf(f, "cuzk_gpu_busy_ratio_all %.4f\n", s->utilization);
    family(f, "cuzk_gpu_busy_seconds_total", "counter", "Seconds a device spent proving.");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_busy_seconds_total", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %.3f\n", s->devices[i].busy_ms_total / 1e3);
    }
    family(f, "cuzk_gpu_proofs_total", "counter", "Partition proofs a device finished.");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_proofs_total", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %" PRIu64 "\n", s->devices[i].proofs);
    }
    family(f, "cuzk_gpu_errors_total", "counter", "Backend errors on a device.");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_errors_total", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %" PRIu64 "\n", s->devices[i].errors);
    }
    family(f, "cuzk_gpu_in_flight", "gauge", "Proofs inside the backend's prove call.");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_in_flight", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %" PRIu32 "\n", s->devices[i].in_flight);
    }
    family(f, "cuzk_gpu_device_workers", "gauge", "Workers per device.");
    for (size_t i = 0; i < s->n_devices; i++) {
        fputs("cuzk_gpu_device_workers", f);
        device_labels(f, &s->devices[i]);
        fprintf(f, " %" PRIu32 "\n", s->devices[i].workers);
    }

    family(f, "cuzk_memory_budget_bytes", "gauge", "The engine's host memory budget.");
    fprintf(f, "cuzk_memory_budget_bytes %" PRIu64 "\n", s->memory.total);
    family(f, "cuzk_memory_used_bytes", "gauge", "Budget reserved now.");
    fprintf(f, "cuzk_memory_used_bytes %" PRIu64 "\n", s->memory.used);
    family(f, "cuzk_memory_available_bytes", "gauge", "Budget free now.");
    fprintf(f, "cuzk_memory_available_bytes %" PRIu64 "\n", s->memory.available);
    family(f, "cuzk_memory_used_by_owner_bytes", "gauge", "Budget reserved now, by owner.");
    for (int o = 0; o < CUZK_MEM_OWNERS; o++)
        fprintf(f, "cuzk_memory_used_by_owner_bytes{owner=\"%s\"} %" PRIu64 "\n",
                cuzk_mem_owner_name((enum cuzk_mem_owner)o), s->memory.by_owner[o]);
    family(f, "cuzk_memory_waiters", "gauge", "Reservations waiting for budget.");
    fprintf(f, "cuzk_memory_waiters %" PRIu32 "\n", s->memory.waiters);

    family(f, "cuzk_srs_bytes", "gauge", "Budget charge of each known proving key.");
    for (size_t i = 0; i < s->n_srs; i++) {
        fputs("cuzk_srs_bytes{proof_kind=\"", f);
        label(f, label_of(s, s->srs[i].kind));
        fputs("\",circuit_id=\"", f);
        label(f, s->srs[i].circuit_id);
        fprintf(f, "\",tier=\"%s\"} %" PRIu64 "\n", cuzk_srs_tier_name(s->srs[i].tier),
                s->srs[i].bytes);
    }
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    if (len) *len = n;
    return text;
}
