/* Slots granted by priority (contract: slots.h). */
#include "util/slots.h"

#include <string.h>

#include "cuzk/error.h"

int cuzk_slots_init(struct cuzk_slots *s, unsigned max) {
    if (!s || max < 1 || max > CUZK_SLOTS_MAX) return CUZK_EINVAL;
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->max = s->usable = max;
    return CUZK_OK;
}

void cuzk_slots_destroy(struct cuzk_slots *s) {
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
}

static int level_of(int priority) {
    return priority < 0 ? 0 : priority >= CUZK_SLOTS_LEVELS ? CUZK_SLOTS_LEVELS - 1 : priority;
}

/* The free usable slot, or -1; -1 too while closed or while it is not ticket t's turn at level
 * p (a waiter of a higher level, or an earlier one of p, goes first). */
static int turn(const struct cuzk_slots *s, int p, uint64_t t) {
    if (s->closed || t != s->serving[p]) return -1;
    for (int q = p + 1; q < CUZK_SLOTS_LEVELS; q++)
        if (s->waiting[q]) return -1;
    for (unsigned i = 0; i < s->usable; i++)
        if (!s->busy[i]) return (int)i;
    return -1;
}

int cuzk_slots_acquire(struct cuzk_slots *s, int priority) {
    const int p = level_of(priority);
    pthread_mutex_lock(&s->mu);
    const uint64_t t = s->next[p]++;
    s->waiting[p]++;
    int slot;
    while ((slot = turn(s, p, t)) < 0) pthread_cond_wait(&s->cv, &s->mu);
    s->busy[slot] = 1;
    s->waiting[p]--;
    s->serving[p]++;
    pthread_cond_broadcast(&s->cv); /* the next ticket, or a lower level, may be next */
    pthread_mutex_unlock(&s->mu);
    return slot;
}

void cuzk_slots_release(struct cuzk_slots *s, int slot) {
    pthread_mutex_lock(&s->mu);
    if (slot >= 0 && (unsigned)slot < s->max) s->busy[slot] = 0;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static int any_busy(const struct cuzk_slots *s) {
    for (unsigned i = 0; i < s->max; i++)
        if (s->busy[i]) return 1;
    return 0;
}

void cuzk_slots_quiesce(struct cuzk_slots *s) {
    pthread_mutex_lock(&s->mu);
    while (s->closed) pthread_cond_wait(&s->cv, &s->mu);
    s->closed = 1;
    while (any_busy(s)) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void cuzk_slots_resume(struct cuzk_slots *s, unsigned usable) {
    pthread_mutex_lock(&s->mu);
    s->usable = usable < 1 ? 1 : usable > s->max ? s->max : usable;
    s->closed = 0;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

unsigned cuzk_slots_waiting(struct cuzk_slots *s) {
    pthread_mutex_lock(&s->mu);
    unsigned n = 0;
    for (int p = 0; p < CUZK_SLOTS_LEVELS; p++) n += s->waiting[p];
    pthread_mutex_unlock(&s->mu);
    return n;
}
