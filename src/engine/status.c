/* The status snapshot (cuzk/engine.h: cuzk_engine_status). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "engine/engine_impl.h"

int cuzk_engine_status(struct cuzk_engine *e, struct cuzk_engine_status *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&e->mu);
    double t = eng_now(e);
    s->uptime_s = t / 1e3;
    s->completed = e->completed;
    s->failed = e->failed;
    s->cancelled = e->cancelled;
    size_t n_live = 0;
    for (struct job *j = e->jobs_head; j; j = j->next) n_live += !j->final;
    size_t n_dev = e->n_devs + (e->fallback >= 0);
    s->kinds = calloc(e->n_kinds ? e->n_kinds : 1, sizeof *s->kinds);
    s->devices = calloc(n_dev, sizeof *s->devices);
    s->workers = calloc(e->n_workers ? e->n_workers : 1, sizeof *s->workers);
    s->jobs = calloc(n_live ? n_live : 1, sizeof *s->jobs);
    int rc = s->kinds && s->devices && s->workers && s->jobs ? CUZK_OK : CUZK_ENOMEM;
    if (!rc) {
        s->n_kinds = e->n_kinds;
        for (size_t i = 0; i < e->n_kinds; i++) {
            struct cuzk_status_kind *q = &s->kinds[i];
            const struct kindreg *kr = &e->kinds[i];
            snprintf(q->name, sizeof q->name, "%s", kr->k->name);
            snprintf(q->label, sizeof q->label, "%s", cuzk_kind_label(kr->k));
            snprintf(q->display, sizeof q->display, "%s", cuzk_kind_display(kr->k));
            q->completed = kr->completed;
            q->failed = kr->failed;
            q->cancelled = kr->cancelled;
            q->total_ms_sum = kr->total_ms_sum;
        }
        double win = (double)e->cfg.util_window_ms, w = t < win ? t : win, busy_all = 0;
        s->n_devices = n_dev;
        for (size_t d = 0; d < n_dev; d++) {
            const struct dev *dv = &e->devs[d];
            struct cuzk_status_device *o = &s->devices[d];
            o->index = (uint32_t)d;
            snprintf(o->name, sizeof o->name, "%s", dv->name);
            o->workers = dv->workers;
            o->in_flight = dv->in_flight;
            double b = cuzk_eng_dev_busy_in(dv, t, w);
            o->utilization = w > 0 ? b / w : 0;
            o->busy_ms_total = dv->busy_total + (dv->in_flight ? t - dv->busy_since : 0);
            o->proofs = dv->proofs;
            o->errors = dv->errors;
            o->is_fallback = dv->is_fallback;
            if (!dv->is_fallback) busy_all += b;
        }
        s->utilization = w > 0 && e->n_devs ? busy_all / (w * (double)e->n_devs) : 0;
        s->n_workers = e->n_workers;
        for (size_t i = 0; i < e->n_workers; i++) {
            const struct worker *w = &e->workers[i];
            struct cuzk_status_worker *o = &s->workers[i];
            o->id = w->id;
            o->device = w->device;
            o->busy = w->busy;
            snprintf(o->job_id, sizeof o->job_id, "%s", w->job_id);
            o->partition = w->busy ? w->part : -1;
            o->busy_ms = w->busy ? t - w->since : 0;
            if (w->device == -1) s->pipeline.synth_workers++;
            if (w->device >= 0) {
                s->pipeline.device_workers++;
                s->pipeline.device_busy += w->busy != 0;
            }
        }
        size_t k = 0;
        for (struct job *j = e->jobs_head; j && !rc; j = j->next) {
            if (j->final) continue;
            struct cuzk_status_job *o = &s->jobs[k];
            o->parts = calloc(j->n_parts, sizeof *o->parts);
            if (!o->parts) {
                rc = CUZK_ENOMEM;
                break;
            }
            s->n_jobs = ++k;
            snprintf(o->job_id, sizeof o->job_id, "%s", j->id);
            snprintf(o->kind, sizeof o->kind, "%s", j->kr->k->name);
            snprintf(o->circuit_id, sizeof o->circuit_id, "%s", j->circuit);
            o->priority = j->priority;
            o->state = cuzk_eng_job_state(j);
            s->pipeline.jobs_queued += o->state == CUZK_JOB_QUEUED;
            o->age_ms = t - j->t_submit;
            o->n_partitions = j->n_parts;
            o->partitions_done = j->parts_done;
            struct cuzk_status_kind *q = &s->kinds[j->kr - e->kinds];
            q->jobs_live++;
            for (uint32_t i = 0; i < j->n_parts; i++) {
                const struct part *p = &j->parts[i];
                struct cuzk_status_partition *op = &o->parts[i];
                op->state = p->state;
                op->synth_ms = p->synth_ms >= 0                     ? p->synth_ms
                               : p->state == CUZK_PART_SYNTHESIZING ? t - p->t_synth0
                                                                    : -1;
                op->gpu_ms = p->gpu_ms >= 0                  ? p->gpu_ms
                             : p->state == CUZK_PART_PROVING ? t - p->t_gpu0
                                                             : -1;
                op->device = p->device;
                op->attempts = p->attempts;
                s->pipeline.synthesizing += p->state == CUZK_PART_SYNTHESIZING;
                s->pipeline.synthesized += p->state == CUZK_PART_GPU_QUEUED ||
                                           p->state == CUZK_PART_PROVING ||
                                           p->state == CUZK_PART_FINALIZING;
                s->pipeline.finalizing += p->state == CUZK_PART_FINALIZING;
                if (p->where == IN_SYNTHQ)
                    q->synth_pending++;
                else if (p->where == IN_GPUQ || p->where == IN_RETRY)
                    q->gpu_pending++;
                else if (!p->terminal && p->state != CUZK_PART_QUEUED)
                    q->in_progress++;
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    /* the backends' lines, without the engine's lock (a backend takes its own) */
    for (size_t d = 0; !rc && d < s->n_devices; d++) {
        const struct cuzk_backend *be = e->devs[d].d.backend;
        struct cuzk_status_device *sd = &s->devices[d];
        if (be && be->describe) be->describe(be, sd->memory, sizeof sd->memory);
        sd->ordinal = -1;
        if (be && be->device_info &&
            be->device_info(be, &sd->ordinal, &sd->mem_total, &sd->mem_free) != CUZK_OK) {
            sd->ordinal = -1;
            sd->mem_total = sd->mem_free = 0;
        }
    }
    if (!rc) {
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(e->budget, &st);
        s->memory.total = st.total;
        s->memory.used = st.used;
        s->memory.available = st.used < st.total ? st.total - st.used : 0;
        memcpy(s->memory.by_owner, st.by_owner, sizeof st.by_owner);
        pthread_mutex_lock(&e->mu);
        int head = e->mem_head != NULL; /* the dispatcher's partition waiting for memory */
        pthread_mutex_unlock(&e->mu);
        s->memory.waiters = st.waiters + (uint32_t)head;
        rc = cuzk_srs_snapshot(e->srs, &s->srs, &s->n_srs);
    }
    if (!rc) {
        pthread_mutex_lock(&e->mu);
        for (size_t i = 0; i < s->n_srs; i++)
            for (size_t k = 0; k < e->n_kinds; k++) {
                if (strcmp(e->kinds[k].k->name, s->srs[i].kind)) continue;
                const char *a = cuzk_kind_alias_of(e->kinds[k].k, s->srs[i].circuit_id);
                snprintf(s->srs[i].alias, sizeof s->srs[i].alias, "%s", a ? a : "");
                break;
            }
        pthread_mutex_unlock(&e->mu);
    }
    if (rc) cuzk_engine_status_free(s);
    return rc;
}

void cuzk_engine_status_free(struct cuzk_engine_status *s) {
    if (s->jobs)
        for (size_t i = 0; i < s->n_jobs; i++) free(s->jobs[i].parts);
    free(s->kinds);
    free(s->devices);
    free(s->workers);
    free(s->jobs);
    free(s->srs);
    memset(s, 0, sizeof *s);
}
