/* The engine's queues (engine_impl.h): binary heaps of partitions, FIFO lists and the job table
 * (request id -> job). Every function runs under e->mu; none allocates but cuzk_eng_heap_reserve
 * and cuzk_eng_table_insert's growth. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "engine/engine_impl.h"

/* ---- heaps ------------------------------------------------------------------------------- */

int cuzk_eng_part_before(const struct part *x, const struct part *y) {
    if (x->job->priority != y->job->priority) return x->job->priority > y->job->priority;
    if (x->job->seq != y->job->seq) return x->job->seq < y->job->seq;
    if (x->idx != y->idx) return x->idx < y->idx;
    return x->seq < y->seq;
}

static void heap_set(struct heap *h, size_t i, struct part *p) {
    h->a[i] = p;
    p->heap_idx = i;
}

static void sift_up(struct heap *h, size_t i) {
    struct part *p = h->a[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!cuzk_eng_part_before(p, h->a[up])) break;
        heap_set(h, i, h->a[up]);
        i = up;
    }
    heap_set(h, i, p);
}

static void sift_down(struct heap *h, size_t i) {
    struct part *p = h->a[i];
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        struct part *bp = p;
        if (l < h->n && cuzk_eng_part_before(h->a[l], bp)) best = l, bp = h->a[l];
        if (l + 1 < h->n && cuzk_eng_part_before(h->a[l + 1], bp)) best = l + 1, bp = h->a[l + 1];
        if (best == i) break;
        heap_set(h, i, bp);
        i = best;
    }
    heap_set(h, i, p);
}

int cuzk_eng_heap_reserve(struct heap *h, size_t cap) {
    if (cap <= h->cap) return CUZK_OK;
    size_t nc = h->cap ? h->cap : 64;
    while (nc < cap) nc *= 2;
    struct part **a = realloc(h->a, nc * sizeof *a);
    if (!a) return CUZK_ENOMEM;
    h->a = a;
    h->cap = nc;
    return CUZK_OK;
}

/* Capacity is reserved at submit (every live partition fits in either heap): cannot fail. */
void cuzk_eng_heap_push(struct heap *h, struct part *p) {
    h->a[h->n] = p;
    p->heap_idx = h->n++;
    sift_up(h, p->heap_idx);
}

void cuzk_eng_heap_remove(struct heap *h, size_t i) {
    struct part *last = h->a[--h->n];
    if (i == h->n) return;
    heap_set(h, i, last);
    sift_up(h, i);
    sift_down(h, last->heap_idx);
}

struct part *cuzk_eng_heap_pop(struct heap *h) {
    if (!h->n) return NULL;
    struct part *p = h->a[0];
    cuzk_eng_heap_remove(h, 0);
    return p;
}

/* ---- FIFO lists ---------------------------------------------------------------------------- */

void cuzk_eng_fifo_push(struct part **head, struct part **tail, struct part *p) {
    p->next = NULL;
    if (*tail)
        (*tail)->next = p;
    else
        *head = p;
    *tail = p;
}

struct part *cuzk_eng_fifo_pop(struct part **head, struct part **tail) {
    struct part *p = *head;
    if (p) {
        *head = p->next;
        if (!*head) *tail = NULL;
        p->next = NULL;
    }
    return p;
}

void cuzk_eng_fifo_remove(struct part **head, struct part **tail, struct part *p) {
    struct part *prev = NULL;
    for (struct part *q = *head; q; prev = q, q = q->next) {
        if (q != p) continue;
        if (prev)
            prev->next = q->next;
        else
            *head = q->next;
        if (*tail == q) *tail = prev;
        q->next = NULL;
        return;
    }
}

/* ---- the job table ------------------------------------------------------------------------- */

static size_t hash_id(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

struct job *cuzk_eng_table_find(struct cuzk_engine *e, const char *id) {
    for (struct job *j = e->table[hash_id(id) & (e->table_cap - 1)]; j; j = j->hnext)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

static void table_grow(struct cuzk_engine *e) {
    size_t cap = e->table_cap * 2;
    struct job **t = calloc(cap, sizeof *t);
    if (!t) return; /* chains just get longer */
    for (size_t i = 0; i < e->table_cap; i++)
        for (struct job *j = e->table[i], *nx; j; j = nx) {
            nx = j->hnext;
            size_t b = hash_id(j->id) & (cap - 1);
            j->hnext = t[b];
            t[b] = j;
        }
    free(e->table);
    e->table = t;
    e->table_cap = cap;
}

void cuzk_eng_table_insert(struct cuzk_engine *e, struct job *j) {
    if (e->table_n + 1 > 2 * e->table_cap) table_grow(e);
    size_t b = hash_id(j->id) & (e->table_cap - 1);
    j->hnext = e->table[b];
    e->table[b] = j;
    e->table_n++;
    j->in_table = 1;
}

void cuzk_eng_table_remove(struct cuzk_engine *e, struct job *j) {
    struct job **pp = &e->table[hash_id(j->id) & (e->table_cap - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if (*pp == j) {
            *pp = j->hnext;
            e->table_n--;
            break;
        }
    j->in_table = 0;
    j->hnext = NULL;
}
