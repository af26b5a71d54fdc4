/* Slots granted by priority (src/util/slots.h): a CRITICAL waiter that came after a NORMAL one
 * gets the next free slot; waiters of one priority in the order they asked; the usable count;
 * a quiesce waits for the taken slots and holds the grants until resumed. Waiters are threads;
 * each step waits until the waiters it expects are registered, so the order is deterministic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "test_util.h"
#include "util/slots.h"

struct waiter {
    struct cuzk_slots *s;
    int priority;
    atomic_int slot; /* -1 until granted */
    atomic_int order;
    pthread_t thread;
};

static atomic_int g_order;

static void *wait_main(void *arg) {
    struct waiter *w = arg;
    const int slot = cuzk_slots_acquire(w->s, w->priority);
    atomic_store(&w->order, atomic_fetch_add(&g_order, 1));
    atomic_store(&w->slot, slot);
    return NULL;
}

static void pause_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Starts a waiter and returns once it is registered (n waiters in all). */
static void start(struct waiter *w, struct cuzk_slots *s, int priority, unsigned n) {
    w->s = s;
    w->priority = priority;
    atomic_init(&w->slot, -1);
    atomic_init(&w->order, -1);
    CHECK(pthread_create(&w->thread, NULL, wait_main, w) == 0);
    for (int i = 0; i < 10000 && cuzk_slots_waiting(s) < n; i++) pause_ms(1);
    CHECK(cuzk_slots_waiting(s) == n);
}

/* Waits (up to 10 s) until w holds a slot. */
static int granted(struct waiter *w) {
    for (int i = 0; i < 10000 && atomic_load(&w->slot) < 0; i++) pause_ms(1);
    return atomic_load(&w->slot);
}

static void test_priority(void) {
    struct cuzk_slots s;
    CHECK(cuzk_slots_init(&s, 0) == CUZK_EINVAL && cuzk_slots_init(&s, 9) == CUZK_EINVAL);
    CHECK(cuzk_slots_init(&s, 2) == CUZK_OK);
    CHECK(cuzk_slots_acquire(&s, CUZK_PRIORITY_NORMAL) == 0);
    CHECK(cuzk_slots_acquire(&s, CUZK_PRIORITY_NORMAL) == 1);
    struct waiter normal, low, critical, normal2;
    start(&normal, &s, CUZK_PRIORITY_NORMAL, 1);
    start(&low, &s, CUZK_PRIORITY_LOW, 2);
    start(&critical, &s, CUZK_PRIORITY_CRITICAL, 3);
    start(&normal2, &s, CUZK_PRIORITY_NORMAL, 4);
    pause_ms(20);
    CHECK(atomic_load(&normal.slot) < 0 && atomic_load(&critical.slot) < 0); /* none free */
    cuzk_slots_release(&s, 1);
    CHECK(granted(&critical) == 1); /* the CRITICAL one, though it asked after two others */
    pause_ms(20);
    CHECK(atomic_load(&normal.slot) < 0 && cuzk_slots_waiting(&s) == 3);
    cuzk_slots_release(&s, 0);
    CHECK(granted(&normal) == 0); /* then the first NORMAL one */
    cuzk_slots_release(&s, 1);
    CHECK(granted(&normal2) == 1); /* the second NORMAL one before the LOW one */
    pause_ms(20);
    CHECK(atomic_load(&low.slot) < 0);
    cuzk_slots_release(&s, 0);
    CHECK(granted(&low) == 0);
    CHECK(atomic_load(&critical.order) < atomic_load(&normal.order) &&
          atomic_load(&normal.order) < atomic_load(&normal2.order) &&
          atomic_load(&normal2.order) < atomic_load(&low.order));
    struct waiter *all[] = {&normal, &low, &critical, &normal2};
    for (int i = 0; i < 4; i++) pthread_join(all[i]->thread, NULL);
    cuzk_slots_release(&s, 0);
    cuzk_slots_release(&s, 1);
    /* out-of-range priorities are clamped: -1 is the lowest, 9 the highest */
    CHECK(cuzk_slots_acquire(&s, -1) == 0 && cuzk_slots_acquire(&s, 9) == 1);
    cuzk_slots_release(&s, 0);
    cuzk_slots_release(&s, 1);
    cuzk_slots_destroy(&s);
}

struct quiescer {
    struct cuzk_slots *s;
    atomic_int done;
};

static void *quiesce_main(void *arg) {
    struct quiescer *q = arg;
    cuzk_slots_quiesce(q->s);
    atomic_store(&q->done, 1);
    return NULL;
}

static void test_usable_and_quiesce(void) {
    struct cuzk_slots s;
    CHECK(cuzk_slots_init(&s, 2) == CUZK_OK);
    /* one usable slot (a lean work space): slot 1 is free but not granted */
    cuzk_slots_quiesce(&s);
    cuzk_slots_resume(&s, 1);
    CHECK(cuzk_slots_acquire(&s, CUZK_PRIORITY_HIGH) == 0);
    struct waiter w;
    start(&w, &s, CUZK_PRIORITY_HIGH, 1);
    pause_ms(20);
    CHECK(atomic_load(&w.slot) < 0);
    /* a quiesce waits for the taken slot; the waiter is not granted meanwhile */
    struct quiescer q = {.s = &s};
    atomic_init(&q.done, 0);
    pthread_t qt;
    CHECK(pthread_create(&qt, NULL, quiesce_main, &q) == 0);
    pause_ms(20);
    CHECK(!atomic_load(&q.done));
    cuzk_slots_release(&s, 0);
    pthread_join(qt, NULL);
    CHECK(atomic_load(&q.done) && atomic_load(&w.slot) < 0); /* closed: no grant */
    cuzk_slots_resume(&s, 5);                                /* clamped to the 2 slots */
    CHECK(granted(&w) == 0);
    pthread_join(w.thread, NULL);
    CHECK(cuzk_slots_acquire(&s, CUZK_PRIORITY_LOW) == 1);
    cuzk_slots_release(&s, 0);
    cuzk_slots_release(&s, 1);
    cuzk_slots_destroy(&s);
}

int main(void) {
    test_init("test_slots");
    test_priority();
    test_usable_and_quiesce();
    return test_finish();
}
