/* Names, results and the JSON rendering of the status snapshot: functions on the public
 * structs of cuzk/engine.h only. */
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "ff/fr.h"
#include "formats/snarkjs_json.h"

const char *cuzk_job_state_name(enum cuzk_job_state s) {
    static const char *const n[] = {"none",       "queued", "synthesizing", "proving",
                                    "finalizing", "done",   "failed",       "cancelled"};
    return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "unknown";
}

const char *cuzk_part_state_name(enum cuzk_part_state s) {
    static const char *const n[] = {"queued",     "synthesizing", "gpu_queued", "proving",
                                    "finalizing", "done",         "failed",     "cancelled"};
    return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "unknown";
}

const char *cuzk_priority_name(int p) {
    static const char *const n[] = {"low", "normal", "high", "critical"};
    return p >= 0 && p < 4 ? n[p] : p == CUZK_PRIORITY_DEFAULT ? "default" : "unknown";
}

const char *cuzk_srs_tier_name(enum cuzk_srs_tier t) {
    static const char *const n[] = {"hot", "warm", "cold"};
    return (unsigned)t < 3 ? n[t] : "unknown";
}

const char *cuzk_mem_owner_name(enum cuzk_mem_owner o) {
    static const char *const n[] = {"partition", "key", "cs", "other"};
    return (unsigned)o < CUZK_MEM_OWNERS ? n[o] : "unknown";
}

void cuzk_job_result_free(struct cuzk_job_result *r) {
    if (!r) return;
    free(r->proof);
    free(r->public_inputs);
    memset(r, 0, sizeof *r);
}

char *cuzk_job_result_proof_json(const struct cuzk_job_result *r, uint32_t part) {
    if (r->state != CUZK_JOB_DONE || part >= r->n_partitions || !r->proof) return NULL;
    const uint8_t *p = r->proof + (size_t)part * CUZK_PROOF_BYTES;
    struct cuzk_snarkjs_proof pr;
    if (cuzk_g1_from_compressed(&pr.a, p) ||
        cuzk_g2_from_compressed(&pr.b, p + CUZK_G1_COMPRESSED) ||
        cuzk_g1_from_compressed(&pr.c, p + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED))
        return NULL;
    return cuzk_snarkjs_proof_to_json(&pr);
}

char *cuzk_job_result_public_json(const struct cuzk_job_result *r, uint32_t part) {
    if (r->state != CUZK_JOB_DONE || part >= r->n_partitions) return NULL;
    cuzk_fr *v = calloc(r->n_public ? r->n_public : 1, sizeof *v);
    if (!v) return NULL;
    const uint8_t *src = r->public_inputs + (size_t)part * r->n_public * 32;
    for (uint32_t i = 0; i < r->n_public; i++)
        if (cuzk_fr_from_bytes_le(&v[i], src + 32 * i)) {
            free(v);
            return NULL;
        }
    char *s = cuzk_snarkjs_public_to_json(v, r->n_public);
    free(v);
    return s;
}

/* json_object_set_new on a NULL object is harmless in jansson; every failure below ends as
 * a NULL from json_dumps.
 *
 * Layout: the reference cuzk's /status (its field names, types and value names: uptime_secs,
 * memory, synthesis, pipelines, gpu_workers, allocations, counters, buffers), so that a
 * dashboard made for it reads ours unchanged, with our own fields added: inside its objects
 * (memory.by_owner, counters.total_cancelled, a pipeline's kind, circuit_id, state, a
 * partition's engine_state ...) and beside them (gpu_utilization, queues, devices, workers,
 * srs). Schema in docs/engine.md. */

/* The reference's partition phases: pending, synthesizing, synth_done, gpu, done, failed. A
 * partition being verified and encoded is still "gpu" there (its finalizer), a cancelled one
 * "failed" (it has no cancellation). */
static const char *cuzk_phase_name(enum cuzk_part_state st) {
    static const char *const n[] = {"pending", "synthesizing", "synth_done", "gpu",
                                    "gpu",     "done",         "failed",     "failed"};
    return (unsigned)st < sizeof n / sizeof n[0] ? n[st] : "failed";
}

/* The reference's name of the kind called `name` (its Display name), or name itself. */
static const char *display_of(const struct cuzk_engine_status *s, const char *name) {
    for (size_t i = 0; i < s->n_kinds; i++)
        if (!strcmp(s->kinds[i].name, name)) return s->kinds[i].display;
    return name;
}

static json_t *status_kinds(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_kinds; i++) {
        const struct cuzk_status_kind *k = &s->kinds[i];
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "kind", k->name,
                         "proof_kind", k->display, "synth_pending", (json_int_t)k->synth_pending,
                         "gpu_pending", (json_int_t)k->gpu_pending, "in_progress",
                         (json_int_t)k->in_progress, "jobs_live", (json_int_t)k->jobs_live,
                         "completed", (json_int_t)k->completed, "failed", (json_int_t)k->failed,
                         "cancelled", (json_int_t)k->cancelled, "total_ms_sum", k->total_ms_sum));
    }
    return a;
}

static json_t *status_devices(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_devices; i++) {
        const struct cuzk_status_device *d = &s->devices[i];
        json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:b, s:s}",
                                           "index", (json_int_t)d->index, "name", d->name,
                                           "workers", (json_int_t)d->workers, "in_flight",
                                           (json_int_t)d->in_flight, "utilization", d->utilization,
                                           "busy_ms_total", d->busy_ms_total, "proofs",
                                           (json_int_t)d->proofs, "errors", (json_int_t)d->errors,
                                           "fallback", d->is_fallback, "memory", d->memory));
        /* the device behind the backend: null when it has none (the CPU) or cannot be asked */
        json_t *o = json_array_get(a, json_array_size(a) - 1);
        const int known = d->ordinal >= 0;
        json_object_set_new(o, "ordinal", known ? json_integer(d->ordinal) : json_null());
        json_object_set_new(o, "mem_total_bytes",
                            known ? json_integer((json_int_t)d->mem_total) : json_null());
        json_object_set_new(o, "mem_free_bytes",
                            known ? json_integer((json_int_t)d->mem_free) : json_null());
    }
    return a;
}

static json_t *status_workers(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_workers; i++) {
        const struct cuzk_status_worker *w = &s->workers[i];
        json_t *o = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)w->id, "role",
                              w->device == -2 ? "keyload"
                              : w->device < 0 ? "synthesis"
                                              : "device",
                              "state", w->busy ? "busy" : "idle");
        if (w->device >= 0) json_object_set_new(o, "device", json_integer(w->device));
        json_object_set_new(o, "job_id", w->busy ? json_string(w->job_id) : json_null());
        json_object_set_new(o, "partition", w->busy ? json_integer(w->partition) : json_null());
        json_object_set_new(o, "busy_ms", w->busy ? json_real(w->busy_ms) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

/* The reference's gpu_workers: the device workers only. */
static json_t *status_gpu_workers(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_workers; i++) {
        const struct cuzk_status_worker *w = &s->workers[i];
        if (w->device < 0) continue;
        int busy = w->busy && w->job_id[0];
        json_t *o = json_pack("{s:I, s:I, s:s}", "worker_id", (json_int_t)w->id, "gpu_ordinal",
                              (json_int_t)w->device, "state", busy ? "proving" : "idle");
        json_object_set_new(o, "current_job", busy ? json_string(w->job_id) : json_null());
        json_object_set_new(o, "current_partition",
                            busy && w->partition >= 0 ? json_integer(w->partition) : json_null());
        json_object_set_new(o, "busy_secs", busy ? json_real(w->busy_ms / 1e3) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *ms_or_null(double ms) { return ms < 0 ? json_null() : json_real(ms); }
/* The reference's synth_ms / gpu_ms: whole milliseconds or null. */
static json_t *whole_ms_or_null(double ms) {
    return ms < 0 ? json_null() : json_integer((json_int_t)ms);
}

static json_t *status_jobs(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_jobs; i++) {
        const struct cuzk_status_job *j = &s->jobs[i];
        json_t *parts = json_array();
        for (uint32_t k = 0; k < j->n_partitions; k++) {
            const struct cuzk_status_partition *p = &j->parts[k];
            json_t *o = json_pack(
                "{s:I, s:s, s:o, s:o, s:s, s:I, s:o, s:o}", "index", (json_int_t)k, "state",
                cuzk_phase_name(p->state), "synth_ms", whole_ms_or_null(p->synth_ms), "gpu_ms",
                whole_ms_or_null(p->gpu_ms), "engine_state", cuzk_part_state_name(p->state),
                "attempts", (json_int_t)p->attempts, "synth_ms_exact", ms_or_null(p->synth_ms),
                "gpu_ms_exact", ms_or_null(p->gpu_ms));
            json_object_set_new(o, "device", p->device < 0 ? json_null() : json_integer(p->device));
            json_array_append_new(parts, o);
        }
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:f, s:I, s:I, s:o, s:s, s:s, s:s, s:s, s:f}", "job_id",
                         j->job_id, "proof_kind", display_of(s, j->kind), "started_secs_ago",
                         j->age_ms / 1e3, "total_partitions", (json_int_t)j->n_partitions,
                         "partitions_done", (json_int_t)j->partitions_done, "partitions", parts,
                         "kind", j->kind, "circuit_id", j->circuit_id, "priority",
                         cuzk_priority_name(j->priority), "state", cuzk_job_state_name(j->state),
                         "age_ms", j->age_ms));
    }
    return a;
}

static json_t *status_srs(const struct cuzk_engine_status *s) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_srs; i++) {
        const struct cuzk_status_srs *k = &s->srs[i];
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:b}", "kind", k->kind,
                         "circuit_id", k->circuit_id, "tier", cuzk_srs_tier_name(k->tier), "bytes",
                         (json_int_t)k->bytes, "vram_bytes", (json_int_t)k->vram_bytes,
                         "host_copy_bytes", (json_int_t)k->host_copy_bytes, "refs",
                         (json_int_t)k->refs, "load_ms", k->load_ms, "idle_ms", k->idle_ms,
                         "evictable", k->refs == 0 && k->tier != CUZK_SRS_COLD));
    }
    return a;
}

/* The reference's allocations: the loaded keys (its SRS entries; circuit_id = its id when the
 * key has one, else "<kind>:<circuit>") and its PCE entries, which have no counterpart here:
 * a kind's constraint systems are part of its keys' charge (memory.by_owner.cs), so the list
 * is empty. */
static json_t *status_allocations(const struct cuzk_engine_status *s) {
    json_t *srs = json_array();
    for (size_t i = 0; i < s->n_srs; i++) {
        const struct cuzk_status_srs *k = &s->srs[i];
        if (k->tier == CUZK_SRS_COLD) continue; /* known, not loaded */
        char id[2 * CUZK_NAME_MAX + 2];
        snprintf(id, sizeof id, "%s:%s", k->kind, k->circuit_id);
        json_array_append_new(srs,
                              json_pack("{s:s, s:I, s:f, s:b, s:s, s:s, s:I}", "circuit_id",
                                        k->alias[0] ? k->alias : id, "bytes", (json_int_t)k->bytes,
                                        "last_used_secs_ago", k->idle_ms / 1e3, "evictable",
                                        k->refs == 0, "key_id", id, "tier",
                                        cuzk_srs_tier_name(k->tier), "refs", (json_int_t)k->refs));
    }
    return json_pack("{s:o, s:[]}", "srs", srs, "pce");
}

static json_t *by_kind(const struct cuzk_engine_status *s, size_t off) {
    json_t *o = json_object();
    for (size_t i = 0; i < s->n_kinds; i++)
        json_object_set_new(
            o, s->kinds[i].display,
            json_integer((json_int_t) * (const uint64_t *)((const char *)&s->kinds[i] + off)));
    return o;
}

char *cuzk_engine_status_json(const struct cuzk_engine_status *s, int indent) {
    json_t *owners = json_object();
    for (int i = 0; i < CUZK_MEM_OWNERS; i++)
        json_object_set_new(owners, cuzk_mem_owner_name((enum cuzk_mem_owner)i),
                            json_integer((json_int_t)s->memory.by_owner[i]));
    const json_int_t held = s->pipeline.synthesized;
    json_t *root = json_pack(
        "{s:f, s:{s:I, s:I, s:I, s:o, s:I}, s:{s:I, s:I}, s:o, s:o, s:o,"
        " s:{s:I, s:I, s:o, s:o, s:I, s:I, s:o},"
        " s:{s:I, s:I, s:I, s:I, s:I},"
        " s:f, s:o, s:o, s:o, s:o}",
        "uptime_secs", s->uptime_s, "memory", "total_bytes", (json_int_t)s->memory.total,
        "used_bytes", (json_int_t)s->memory.used, "available_bytes",
        (json_int_t)s->memory.available, "by_owner", owners, "waiters",
        (json_int_t)s->memory.waiters, "synthesis", "max_concurrent",
        (json_int_t)s->pipeline.synth_workers, "active", (json_int_t)s->pipeline.synthesizing,
        "pipelines", status_jobs(s), "gpu_workers", status_gpu_workers(s), "allocations",
        status_allocations(s), "counters", "total_completed", (json_int_t)s->completed,
        "total_failed", (json_int_t)s->failed, "completed_by_kind",
        by_kind(s, offsetof(struct cuzk_status_kind, completed)), "failed_by_kind",
        by_kind(s, offsetof(struct cuzk_status_kind, failed)), "queue_depth",
        (json_int_t)s->pipeline.jobs_queued, "total_cancelled", (json_int_t)s->cancelled,
        "cancelled_by_kind", by_kind(s, offsetof(struct cuzk_status_kind, cancelled)), "buffers",
        "synth_in_flight", (json_int_t)s->pipeline.synthesizing, "provers_in_flight", held,
        "aux_in_flight", held, "shells_in_flight", (json_int_t)s->pipeline.finalizing,
        "pending_handles", (json_int_t)s->pipeline.finalizing, "gpu_utilization", s->utilization,
        "queues", status_kinds(s), "devices", status_devices(s), "workers", status_workers(s),
        "srs", status_srs(s));
    if (!root) return NULL;
    char *out = json_dumps(root, (indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT) |
                                     JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    return out;
}
