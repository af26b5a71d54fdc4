/* The cache of witness buffers (engine_impl.h).
 *
 * A partition's witness lives in a buffer of the kind the device backend reads fastest (pinned
 * host memory for a GPU: synthesis writes straight into what the copy engine reads), from the
 * backend's witness_alloc. Such buffers are slow to make (a GPU driver pins every page), so a
 * buffer given back is kept for the next partition, up to one per synthesis and device worker.
 * A kept buffer is charged to the budget (CUZK_MEM_OTHER) like the partition that had it;
 * when the budget cannot take that charge it is freed at once, and under memory pressure the
 * budget's evictor frees kept buffers first (cuzk_eng_witness_evict). A buffer changes hands with
 * its charge (cuzk_reservation_move): a partition that gives its witness back hands its charge to
 * the cache, and a partition the dispatcher cannot otherwise fit adopts a kept buffer with its
 * charge (cuzk_eng_witness_adopt), so that a stream under a full budget reuses its pinned buffers
 * instead of freeing and pinning 4 GB buffers again (both stall a GPU's other work for
 * seconds). For the same reason a preloaded key's stream should not pin either: after a
 * preload, cuzk_eng_witness_prepin makes buffers for the key's witness size ahead of any job, as
 * many as the budget holds then (leaving one partition's other memory free), up to twice the
 * cache's size (e->wfree_prepin_max: partitions waiting in the device queue hold a witness too, so
 * a stream under a full budget has more buffers out than there are workers), charged as kept
 * buffers (so the first memory pressure frees them again, as before); the cache keeps that many
 * from then on, so that none is freed when the stream's partitions give them back (freeing
 * pinned memory stalls the GPU as pinning does). DESIGN: e->wmu guards the list and its sizes
 * only; allocations, frees and budget calls run without it. */
#include <stdlib.h>

#include "cuzk/error.h"
#include "engine/engine_impl.h"

static void buf_free(struct cuzk_engine *e, cuzk_fr *w, size_t cap) {
    const struct cuzk_backend *be = e->wbackend;
    if (be && be->witness_free)
        be->witness_free(be, w, cap);
    else
        free(w);
}

/* Takes the smallest kept buffer of at least n elements off the list (NULL if none). */
static struct wbuf *take_best(struct cuzk_engine *e, size_t n) {
    struct wbuf *got = NULL;
    pthread_mutex_lock(&e->wmu);
    struct wbuf **best = NULL;
    for (struct wbuf **l = &e->wfree; *l; l = &(*l)->next)
        if ((*l)->cap >= n && (!best || (*l)->cap < (*best)->cap)) best = l;
    if (best) {
        got = *best;
        *best = got->next;
        e->wfree_n--;
    }
    pthread_mutex_unlock(&e->wmu);
    return got;
}

int cuzk_eng_witness_get(struct cuzk_engine *e, size_t n, cuzk_fr **w, size_t *cap) {
    struct wbuf *got = take_best(e, n);
    if (got) { /* the partition's own reservation covers it from now on */
        *w = got->w;
        *cap = got->cap;
        cuzk_reservation_release_all(&got->res);
        free(got);
        return CUZK_OK;
    }
    const struct cuzk_backend *be = e->wbackend;
    int rc = CUZK_OK;
    if (be && be->witness_alloc) {
        rc = be->witness_alloc(be, n, w);
    } else {
        *w = aligned_alloc(64, (n * sizeof(cuzk_fr) + 63) & ~(size_t)63);
        if (!*w) rc = CUZK_ENOMEM;
    }
    if (!rc) *cap = n;
    return rc;
}

uint64_t cuzk_eng_witness_put(struct cuzk_engine *e, cuzk_fr *w, size_t cap,
                              struct cuzk_reservation *from) {
    if (!w) return 0;
    struct wbuf *b = calloc(1, sizeof *b);
    if (!b) {
        buf_free(e, w, cap);
        return 0;
    }
    /* the partition's charge for the buffer becomes the cache's: no window in which another
     * reservation could take the bytes and leave the buffer to be freed (and pinned again) */
    const uint64_t need = cap * sizeof(cuzk_fr);
    uint64_t moved = from ? cuzk_reservation_move(from, need, CUZK_MEM_OTHER, &b->res) : 0;
    if (moved < need) {
        struct cuzk_reservation extra = {0};
        if (cuzk_budget_try_reserve(e->budget, need - moved, CUZK_MEM_OTHER, UINT64_MAX, &extra)) {
            cuzk_reservation_release_all(&b->res);
            free(b);
            buf_free(e, w, cap);
            return moved;
        }
        cuzk_reservation_move(&extra, extra.bytes, CUZK_MEM_OTHER, &b->res);
    }
    b->w = w;
    b->cap = cap;
    pthread_mutex_lock(&e->wmu);
    int keep = e->wfree_n < e->wfree_max;
    if (keep) {
        b->next = e->wfree;
        e->wfree = b;
        e->wfree_n++;
    }
    pthread_mutex_unlock(&e->wmu);
    if (!keep) {
        cuzk_reservation_release_all(&b->res);
        buf_free(e, w, cap);
        free(b);
    }
    return moved;
}

int cuzk_eng_witness_adopt(struct cuzk_engine *e, size_t n, struct cuzk_reservation *to,
                           cuzk_fr **w, size_t *cap) {
    struct wbuf *got = take_best(e, n);
    if (!got) return CUZK_ENOTFOUND;
    cuzk_reservation_move(&got->res, got->res.bytes, CUZK_MEM_PARTITION, to);
    cuzk_reservation_release_all(&got->res); /* nothing left: only clears it */
    *w = got->w;
    *cap = got->cap;
    free(got);
    return CUZK_OK;
}

uint64_t cuzk_eng_witness_evict(struct cuzk_engine *e, uint64_t need) {
    uint64_t freed = 0;

    while (freed < need) {
        pthread_mutex_lock(&e->wmu);
        struct wbuf *b = e->wfree;
        if (b) {
            e->wfree = b->next;
            e->wfree_n--;
        }
        pthread_mutex_unlock(&e->wmu);
        if (!b) break;
        freed += b->res.bytes;
        cuzk_reservation_release_all(&b->res);
        buf_free(e, b->w, b->cap);
        free(b);
    }
    return freed;
}

unsigned cuzk_eng_witness_prepin(struct cuzk_engine *e, size_t n, uint64_t spare) {
    const struct cuzk_backend *be = e->wbackend;
    if (!be || !be->witness_alloc || !n) return 0;
    const uint64_t need = n * sizeof(cuzk_fr);
    unsigned made = 0;
    for (;;) {
        pthread_mutex_lock(&e->wmu);
        int room = e->wfree_n < e->wfree_prepin_max;
        pthread_mutex_unlock(&e->wmu);
        struct cuzk_budget_stats st;
        cuzk_budget_get_stats(e->budget, &st);
        if (!room || st.used + need + spare > st.total) break;
        /* the last rank: any partition or load waiting for memory goes first */
        struct cuzk_reservation r;
        if (cuzk_budget_try_reserve(e->budget, need, CUZK_MEM_OTHER, UINT64_MAX, &r)) break;
        cuzk_fr *w;
        if (be->witness_alloc(be, n, &w)) {
            cuzk_reservation_release_all(&r);
            break;
        }
        /* the cache keeps what is made ahead: a stream's partitions (synthesizing, queued and
         * proving) take them all, and none is freed when they come back */
        pthread_mutex_lock(&e->wmu);
        if (e->wfree_max < e->wfree_n + 1) e->wfree_max = e->wfree_n + 1;
        pthread_mutex_unlock(&e->wmu);
        cuzk_eng_witness_put(e, w, n, &r); /* the charge goes with the buffer into the cache */
        cuzk_reservation_release_all(&r);
        made++;
    }
    return made;
}

void cuzk_eng_witness_drop_all(struct cuzk_engine *e) { cuzk_eng_witness_evict(e, UINT64_MAX); }
