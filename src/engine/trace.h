/* The engine's trace lines: one contract for the engine, which writes them, and for their
 * readers (the TIMELINE chart of cuzk-bench, client/timeline.h; its stage-time summary of the
 * *_TIMING and GPU_STAGES lines, client/stages.h; scripts that grep the log).
 *
 * Every line is one of these, fields separated as shown, written whole:
 *   TIMELINE,<offset_ms>,<event>,<job_id>,<detail>
 *       offset: ms since the engine was created (an integer); job ids hold no commas;
 *       events and their details (CUZK_TRACE_EVENTS):
 *         SYNTH_START  partition=P
 *         SYNTH_END    partition=P,synth_ms=X
 *         GPU_QUEUE    partition=P                   (again for a retried partition)
 *         GPU_PICKUP   worker=W,partition=P          W: the device worker, numbered across devices
 *         GPU_START    worker=W,partition=P          the backend took the device
 *         GPU_END      worker=W,partition=P,gpu_ms=X the backend's proof returned
 *         FIN_START    worker=W,partition=P
 *         FIN_END      worker=W,partition=P
 *   GPU_TIMING job=J partition=P worker=W device=D lock_wait_ms=X device_ms=X prove_ms=X
 *   GPU_STAGES job=J partition=P device=D <the backend's stage times: name_ms=X ...>
 *   FIN_TIMING job=J partition=P worker=W device=D verify_ms=X release_ms=X malloc_trim_ms=X
 *              total_ms=X
 *   CUZK_TIMING job=J kind=K circuit=C state=done|failed|cancelled partitions=N queue_ms=X
 *               srs_ms=X mem_ms=X synth_ms=X gpu_ms=X lock_ms=X verify_ms=X total_ms=X
 *               retries=N                               (once per job, when it becomes final)
 * The per-job line keeps the original cuzk's name (CUZK_TIMING); the backend's stage line has
 * a name of its own (GPU_STAGES). */
#ifndef CUZK_ENGINE_TRACE_H
#define CUZK_ENGINE_TRACE_H

#define CUZK_TRACE_TIMELINE "TIMELINE"
#define CUZK_TRACE_GPU_TIMING "GPU_TIMING"
#define CUZK_TRACE_GPU_STAGES "GPU_STAGES"
#define CUZK_TRACE_FIN_TIMING "FIN_TIMING"
#define CUZK_TRACE_JOB "CUZK_TIMING"

/* X(event) in the order of enum cuzk_trace_event */
#define CUZK_TRACE_EVENTS(X)                                                                       \
    X(SYNTH_START)                                                                                 \
    X(SYNTH_END)                                                                                   \
    X(GPU_QUEUE)                                                                                   \
    X(GPU_PICKUP)                                                                                  \
    X(GPU_START)                                                                                   \
    X(GPU_END)                                                                                     \
    X(FIN_START)                                                                                   \
    X(FIN_END)

enum cuzk_trace_event {
#define CUZK_TRACE_ENUM_(name) CUZK_TRACE_##name,
    CUZK_TRACE_EVENTS(CUZK_TRACE_ENUM_)
#undef CUZK_TRACE_ENUM_
        CUZK_TRACE_N_EVENTS
};

/* The event's name as written ("SYNTH_START"); NULL for a value out of range. */
static inline const char *cuzk_trace_event_name(enum cuzk_trace_event e) {
    static const char *const names[] = {
#define CUZK_TRACE_NAME_(name) #name,
        CUZK_TRACE_EVENTS(CUZK_TRACE_NAME_)
#undef CUZK_TRACE_NAME_
    };
    return (unsigned)e < CUZK_TRACE_N_EVENTS ? names[e] : (const char *)0;
}

#endif
