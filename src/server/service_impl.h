/* The cuzk.v1 service's private parts, shared by its files (service.h is the contract):
 *   service.c          the helpers that answer calls, the handlers, the pages, the lifecycle
 *   service_request.c  SubmitProofRequest -> engine request and submit; results -> responses
 *   service_wait.c     the blocking calls: their slots (daemon.max_blocking_calls), work
 *                      threads, parked waits and the timer (its DESIGN comment)
 * The service's mutex guards the fields named below it; it is a leaf (nothing else is taken
 * while it is held). */
#ifndef CUZK_SERVER_SERVICE_IMPL_H
#define CUZK_SERVER_SERVICE_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "cuzk/v1/proving.pb-c.h"
#include "server/service.h"
#include "server/wire.h"

#define SERVICE_WORK_STACK (256 << 10) /* a work thread's stack (service_wait.c) */

struct cuzk_service {
    struct cuzk_engine *engine;
    int64_t max_blocking;
    struct input_meter *input; /* daemon.max_input_bytes' count (one reference) */
    int64_t test_pause_ms;     /* test hook (service.h, CUZK_TEST_PAUSE_AFTER_ANSWER_MS); 0 = off */
    pthread_mutex_t mu;        /* guards the fields below */
    pthread_cond_t idle;       /* records reached 0 */
    int64_t waiting;           /* blocking calls holding a slot (daemon.max_blocking_calls): given
                                * back before the call is answered, so that a client that has its
                                * answer finds the slot free for its next call */
    int64_t records;           /* blocking calls not done (struct wait_job alive): the shutdown
                                * waits until there are none */
    int stopping;
    int cancel_on_disconnect;
    struct wait_job *parked;                  /* waits for a job (Prove, AwaitProof) */
    struct wait_job *timer_head, *timer_tail; /* by due time: deadlines and (test hook) ends */
    pthread_cond_t timer_cv;                  /* the timer's (CLOCK_MONOTONIC) */
    pthread_t timer;
    int timer_started, timer_quit;
};

enum wait_op { WAIT_SUBMIT, WAIT_AWAIT, WAIT_PROVE, WAIT_PRELOAD, WAIT_EVICT };

/* A blocking call's record, from its slot's reservation to its answer (service_wait.c says who
 * owns it when). */
struct wait_job {
    struct cuzk_service *svc;
    struct cuzk_rpc_call *call;
    enum wait_op op;
    struct cuzk_wire_msg msg;     /* SUBMIT, PROVE: the decoded request, freed with the job
                                     (its bytes handed to the engine at submit) */
    struct input_ticket *ticket;  /* SUBMIT, PROVE: its bytes' share of daemon.max_input_bytes
                                     (NULL once the engine has it: cuzk_svc_submit) */
    char job_id[CUZK_JOB_ID_MAX]; /* AWAIT, PROVE */
    int64_t timeout_ms;           /* AWAIT: > 0 bounds the wait */
    char kind[CUZK_NAME_MAX];     /* PRELOAD, EVICT */
    char circuit[CUZK_NAME_MAX];
    char alias[CUZK_NAME_MAX]; /* PRELOAD, EVICT: the reference cuzk's id asked for, or "" */
    int slot;                  /* it holds a blocking-call slot (answer_first gives it back) */
    /* a parked wait (AWAIT, PROVE): watch is set before the record is parked; the flags and
     * links below are under svc->mu */
    struct cuzk_job_watch *watch;
    int parked;    /* on svc->parked: whoever claims it first answers it */
    int claimed;   /* taken off by its answerer */
    int fired;     /* the watch's function ran (perhaps before the record was parked) */
    int timed;     /* on the timer's list, due at `due` (cuzk_clock_ms) */
    int lingering; /* answered; on the timer only until the test hook's pause ends */
    double due;
    struct wait_job *pprev, *pnext; /* svc->parked */
    struct wait_job *tprev, *tnext; /* the timer's list */
};

/* service.c: the answers (every call is answered once, by one of these or by the wire) */
void cuzk_svc_fail(struct cuzk_rpc_call *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cuzk_svc_reply(struct cuzk_rpc_call *call, const ProtobufCMessage *m);
/* The gRPC status of a cuzk error code. */
int cuzk_svc_status_of(int err);

/* daemon.max_input_bytes: the bytes of every SubmitProof / Prove in flight, each counted by a
 * ticket from the moment its message's size is known (before it is decoded) until the engine
 * holds none of its input bytes (cuzk_job_request.input_done: when the kind has parsed them,
 * or, for a kind that keeps them, when the job ends). A ticket keeps the meter alive, so an
 * engine that lets go of an input after the service is gone is harmless. Lock-free (atomics). */
struct input_meter;
struct input_ticket;
/* A ticket for a request of len bytes; NULL after answering the call RESOURCE_EXHAUSTED (over
 * the cap, or out of memory). */
struct input_ticket *cuzk_svc_input_reserve(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                            size_t len);
/* Gives the ticket's bytes back and frees it (NULL: nothing); the engine's input_done. */
void cuzk_svc_input_done(void *ticket);

/* service_request.c */
/* Submits m: CUZK_RPC_OK with info filled, else the status with why saying what is wrong.
 * *ticket goes to the engine with the request (set to NULL) when the engine is called. */
int cuzk_svc_submit(struct cuzk_service *s, const Cuzk__V1__SubmitProofRequest *m,
                    struct cuzk_wire_msg *wm, struct input_ticket **ticket,
                    struct cuzk_submit_info *info, char *why, size_t n);
/* out = the job's result (rc from the wait: CUZK_ETIMEOUT, or the engine's). */
void cuzk_svc_fill_result(Cuzk__V1__AwaitProofResponse *out, const char *job_id, int rc,
                          const struct cuzk_job_result *r);

/* service_wait.c: a blocking call's slot, its record, its work thread or its parked wait */
/* Reserves a blocking-call slot: CUZK_RPC_OK, or UNAVAILABLE / RESOURCE_EXHAUSTED (the call
 * answered, its input ticket, when not NULL, given back before: cuzk_svc_input_done). */
int cuzk_svc_reserve_wait(struct cuzk_service *s, struct cuzk_rpc_call *call, void *ticket);
/* A record for a reserved slot (NULL: the call answered, the slot and the ticket, when not
 * NULL, given back before). */
struct wait_job *cuzk_svc_new_wait(struct cuzk_service *s, struct cuzk_rpc_call *call,
                                   enum wait_op op, void *ticket);
/* Runs w's work (SUBMIT, PROVE's submit, PRELOAD, EVICT) on a work thread; on failure the call
 * is answered and the record ended. */
void cuzk_svc_start_work(struct wait_job *w);
/* Parks w (AWAIT, PROVE) on its job: answered when the job is final, its client leaves or its
 * timeout passes; answered at once when the job is final or unknown. Any thread. */
void cuzk_svc_park(struct wait_job *w);
/* The timer thread: started by cuzk_service_create, ended by cuzk_service_stop. */
int cuzk_svc_timer_start(struct cuzk_service *s);
void cuzk_svc_timer_stop(struct cuzk_service *s);

#endif
