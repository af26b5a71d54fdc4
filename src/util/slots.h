/* A few numbered slots that threads take and give back, granted by priority: a device's
 * witness slots (the CUDA backend has two, one in a lean work space), for which more callers
 * may wait than there are slots.
 *
 * Promise: cuzk_slots_acquire returns a free slot below the usable count, to the waiter of the
 * highest priority first and, within a priority, to the one that asked first (tickets). So a
 * CRITICAL proof (a WinningPoSt) that asks after a NORMAL one already waiting still gets the
 * next free slot. cuzk_slots_quiesce stops the grants and waits until no slot is taken (the
 * owner then rebuilds what the slots stand for); cuzk_slots_resume grants again, with a new
 * usable count. Two quiescers wait for each other.
 *
 * DESIGN: one mutex and one condition variable; every change broadcasts and each waiter checks
 * its own turn (the waiters are the device's few workers, so a broadcast costs nothing).
 *
 * Thread-safety: every function but init and destroy may be called from any thread. */
#ifndef CUZK_UTIL_SLOTS_H
#define CUZK_UTIL_SLOTS_H

#include <pthread.h>
#include <stdint.h>

#define CUZK_SLOTS_MAX 8    /* slots at most */
#define CUZK_SLOTS_LEVELS 4 /* priorities 0 (lowest) .. 3; others are clamped into them */

struct cuzk_slots {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned max, usable;
    int busy[CUZK_SLOTS_MAX];
    int closed; /* quiesced: no grants until resumed */
    unsigned waiting[CUZK_SLOTS_LEVELS];
    uint64_t next[CUZK_SLOTS_LEVELS], serving[CUZK_SLOTS_LEVELS]; /* tickets */
};

/* max slots (1..CUZK_SLOTS_MAX), all usable. CUZK_OK or CUZK_EINVAL. */
int cuzk_slots_init(struct cuzk_slots *s, unsigned max);
void cuzk_slots_destroy(struct cuzk_slots *s);
/* Blocks until a slot is granted (see the promise); returns its number. */
int cuzk_slots_acquire(struct cuzk_slots *s, int priority);
void cuzk_slots_release(struct cuzk_slots *s, int slot);
/* Stops the grants and returns once no slot is taken. */
void cuzk_slots_quiesce(struct cuzk_slots *s);
/* Grants again, slots [0, usable) (clamped to 1..max). */
void cuzk_slots_resume(struct cuzk_slots *s, unsigned usable);
/* Callers waiting now (for tests and status). */
unsigned cuzk_slots_waiting(struct cuzk_slots *s);

#endif
