/* DESIGN: each level is one sorted array of (index, value); a node absent from its level is a
 * default (level <= dlevels) looked up by region. build() walks up: the parents of a level are
 * the distinct (index >> log2(arity of the level)) of its entries, plus every node of a level above
 * dlevels, and each parent is hashed from its children found by binary search or as defaults. Cost:
 * one hash per materialised node plus one per (default level, region). */
#include "filecoin/stree.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/poseidon.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"

/* The arity of the children of level-l nodes (l >= 1) and its bits. */
static unsigned kid_arity(const struct cuzk_stree *t, unsigned l) {
    return cuzk_merkle_shape_arity(&t->shape, l - 1);
}
static unsigned kid_bits(const struct cuzk_stree *t, unsigned l) {
    return t->shift[l] - t->shift[l - 1];
}

static void hash_kids(const struct cuzk_stree *t, unsigned arity, const cuzk_fr *kids,
                      cuzk_fr *out) {
    if (t->shape.hash == CUZK_MERKLE_SHA256)
        cuzk_sha256_node_fr(out, &kids[0], &kids[1]);
    else
        cuzk_poseidon_hash_merkle((int)arity, kids, out);
}

static int level_push(struct cuzk_stree_level *l, uint64_t idx, const cuzk_fr *val) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct cuzk_stree_entry *e = realloc(l->e, cap * sizeof *e);
        if (!e) return CUZK_ENOMEM;
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n].idx = idx;
    l->e[l->n].val = *val;
    l->n++;
    return CUZK_OK;
}

void cuzk_stree_free(struct cuzk_stree *t) {
    if (t->lv)
        for (unsigned l = 0; l <= t->levels; l++) free(t->lv[l].e);
    free(t->lv);
    free(t->defaults);
    memset(t, 0, sizeof *t);
}

int cuzk_stree_init(struct cuzk_stree *t, const struct cuzk_merkle_shape *s, unsigned region_bits,
                    cuzk_stree_default_fn fn, void *ctx) {
    memset(t, 0, sizeof *t);
    if (!cuzk_merkle_shape_valid(s) || !fn) return CUZK_EINVAL;
    const unsigned levels = cuzk_merkle_shape_depth(s), total = cuzk_merkle_shape_bits(s);
    if (levels < 1 || total > CUZK_STREE_MAX_BITS) return CUZK_EINVAL;
    if (region_bits > total || total - region_bits > 16) return CUZK_EINVAL;
    t->shape = *s;
    t->levels = levels;
    for (unsigned l = 1; l <= levels; l++) {
        const unsigned a = cuzk_merkle_shape_arity(s, l - 1);
        t->shift[l] = t->shift[l - 1] + (a == 8 ? 3 : a == 4 ? 2 : 1);
    }
    t->total_bits = total;
    t->region_bits = region_bits;
    /* levels whose subtrees lie inside one region */
    while (t->dlevels < levels && t->shift[t->dlevels + 1] <= region_bits) t->dlevels++;
    t->n_regions = (uint64_t)1 << (total - region_bits);
    t->lv = calloc(levels + 1, sizeof *t->lv);
    t->defaults = malloc((t->dlevels + 1) * t->n_regions * sizeof *t->defaults);
    if (!t->lv || !t->defaults) {
        cuzk_stree_free(t);
        return CUZK_ENOMEM;
    }
    cuzk_fr kids[8];
    for (uint64_t r = 0; r < t->n_regions; r++) {
        fn(ctx, r, &t->defaults[r]);
        for (unsigned l = 1; l <= t->dlevels; l++) {
            const unsigned arity = kid_arity(t, l);
            for (unsigned i = 0; i < arity; i++) kids[i] = t->defaults[(l - 1) * t->n_regions + r];
            hash_kids(t, arity, kids, &t->defaults[l * t->n_regions + r]);
        }
    }
    return CUZK_OK;
}

int cuzk_stree_set(struct cuzk_stree *t, uint64_t index, const cuzk_fr *leaf) {
    if (t->built || (index >> t->total_bits) != 0) return CUZK_EINVAL;
    return level_push(&t->lv[0], index, leaf);
}

static int cmp_entry(const void *a, const void *b) {
    uint64_t x = ((const struct cuzk_stree_entry *)a)->idx;
    uint64_t y = ((const struct cuzk_stree_entry *)b)->idx;
    return x < y ? -1 : x > y;
}

static const struct cuzk_stree_entry *level_find(const struct cuzk_stree_level *l, uint64_t idx) {
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->e[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->e[lo].idx == idx ? &l->e[lo] : NULL;
}

void cuzk_stree_node(const struct cuzk_stree *t, unsigned level, uint64_t index, cuzk_fr *out) {
    const struct cuzk_stree_entry *e = level_find(&t->lv[level], index);
    if (e) {
        *out = e->val;
    } else if (level <= t->dlevels) {
        uint64_t region = index >> (t->region_bits - t->shift[level]);
        *out = t->defaults[level * t->n_regions + region];
    } else {
        cuzk_fr_set_zero(out); /* unreachable: levels above dlevels are complete */
    }
}

int cuzk_stree_build(struct cuzk_stree *t) {
    if (t->built) return CUZK_EINVAL;
    struct cuzk_stree_level *l0 = &t->lv[0];
    qsort(l0->e, l0->n, sizeof *l0->e, cmp_entry);
    size_t n = 0;
    for (size_t i = 0; i < l0->n; i++) {
        if (n && l0->e[n - 1].idx == l0->e[i].idx) {
            if (!cuzk_fr_eq(&l0->e[n - 1].val, &l0->e[i].val)) return CUZK_EINVAL;
            continue;
        }
        l0->e[n++] = l0->e[i];
    }
    l0->n = n;
    cuzk_fr kids[8], h;
    for (unsigned l = 1; l <= t->levels; l++) {
        const struct cuzk_stree_level *below = &t->lv[l - 1];
        struct cuzk_stree_level *cur = &t->lv[l];
        /* parents of the entries below, merged with every node when the level is complete */
        const unsigned arity = kid_arity(t, l), bits = kid_bits(t, l);
        uint64_t all = l > t->dlevels ? (uint64_t)1 << (t->total_bits - t->shift[l]) : 0;
        size_t i = 0;
        uint64_t next_all = 0;
        for (;;) {
            uint64_t p_below = i < below->n ? below->e[i].idx >> bits : UINT64_MAX;
            uint64_t p_all = next_all < all ? next_all : UINT64_MAX;
            uint64_t p = p_below < p_all ? p_below : p_all;
            if (p == UINT64_MAX) break;
            for (unsigned k = 0; k < arity; k++)
                cuzk_stree_node(t, l - 1, (p << bits) | k, &kids[k]);
            hash_kids(t, arity, kids, &h);
            if (level_push(cur, p, &h)) return CUZK_ENOMEM;
            while (i < below->n && (below->e[i].idx >> bits) == p) i++;
            if (p_all == p) next_all++;
        }
    }
    /* the root exists even for an empty tree with defaults up to the top */
    if (t->lv[t->levels].n == 0) {
        cuzk_stree_node(t, t->levels, 0, &h);
        if (level_push(&t->lv[t->levels], 0, &h)) return CUZK_ENOMEM;
    }
    t->built = 1;
    return CUZK_OK;
}

void cuzk_stree_path(const struct cuzk_stree *t, uint64_t index, unsigned from, unsigned n,
                     cuzk_fr *sibs) {
    for (unsigned l = from; l < from + n && l < t->levels; l++) {
        const unsigned arity = kid_arity(t, l + 1);
        uint64_t node = index >> t->shift[l];
        uint64_t base = node & ~(uint64_t)(arity - 1);
        for (unsigned k = 0; k < arity; k++)
            if (base + k != node) cuzk_stree_node(t, l, base + k, sibs++);
    }
}
