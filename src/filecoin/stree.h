/* Sparse Merkle trees: Filecoin's tree shapes (binary Fr32 SHA-256; Poseidon of a path shape,
 * circuits/merkle.h: 8-ary levels, then an optional sub and top level, as 8-8-2) over a leaf
 * space far larger than memory (2^31 leaves for a 64 GiB sector), with only the nodes that
 * matter materialised. Synthetic sectors use them so that every Merkle path a partition's
 * circuit consumes reaches one real root, without hashing the whole sector.
 *
 * Model: the leaf space [0, 2^total_bits) is cut into 2^(total_bits - region_bits) regions of
 * 2^region_bits consecutive leaves. A leaf that was never set takes its region's default value
 * (a callback), so a subtree that lies inside one region and holds no set leaf has a default
 * hash that depends only on its level and region: one value per (level, region), computed once.
 * Set leaves ("touched") and their ancestors are materialised; so are all nodes of the levels
 * whose subtrees span several regions (at most one node per region, since the region count is
 * bounded by CUZK_STREE_MAX_REGIONS). A tree with one region is the classic sparse tree with
 * one default hash per level.
 *
 * Node hashes are those of circuits/merkle.h (cuzk_merkle_root_native): children in index
 * order, the Fr32 SHA-256 node hash, or Poseidon with the Merkle tag of the level's arity, so
 * a path taken here reaches the root through cuzk_merkle_root_native of the same shape.
 *
 * Life cycle: init, set leaves, build once, then read (node, path, root). Reading a built tree
 * is thread-safe; everything else belongs to one thread. */
#ifndef CUZK_FILECOIN_STREE_H
#define CUZK_FILECOIN_STREE_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/merkle.h"
#include "ff/fr.h"

#define CUZK_STREE_MAX_BITS 63       /* index bits of the leaf space (and so levels) */
#define CUZK_STREE_MAX_REGIONS 65536 /* bound on 2^(total_bits - region_bits) */

/* A region's default leaf. */
typedef void (*cuzk_stree_default_fn)(void *ctx, uint64_t region, cuzk_fr *leaf);

struct cuzk_stree_entry {
    uint64_t idx;
    cuzk_fr val;
};

struct cuzk_stree_level {
    struct cuzk_stree_entry *e; /* sorted by idx, unique (after build) */
    size_t n, cap;
};

struct cuzk_stree {
    struct cuzk_merkle_shape shape;
    unsigned levels;                         /* the shape's depth */
    unsigned shift[CUZK_STREE_MAX_BITS + 1]; /* index bits below level l (shift[0] = 0) */
    unsigned total_bits, region_bits;
    unsigned dlevels;            /* levels 0 .. dlevels have per-region defaults */
    uint64_t n_regions;          /* 2^(total_bits - region_bits) */
    cuzk_fr *defaults;           /* (dlevels + 1) x n_regions */
    struct cuzk_stree_level *lv; /* levels + 1 */
    int built;
};

/* An empty tree of shape s (cuzk_merkle_shape_valid, at least one level, at most
 * CUZK_STREE_MAX_BITS index bits), region_bits <= its index bits with at most
 * CUZK_STREE_MAX_REGIONS regions; fn gives the default leaves (computed here). Returns CUZK_OK,
 * CUZK_EINVAL or CUZK_ENOMEM (the tree is then freed). */
int cuzk_stree_init(struct cuzk_stree *t, const struct cuzk_merkle_shape *s, unsigned region_bits,
                    cuzk_stree_default_fn fn, void *ctx);
/* Sets leaf index (before build). Setting one index twice with different values is an error
 * found by build. Returns CUZK_OK, CUZK_EINVAL (index out of range, tree built), CUZK_ENOMEM. */
int cuzk_stree_set(struct cuzk_stree *t, uint64_t index, const cuzk_fr *leaf);
/* Hashes the materialised nodes. Returns CUZK_OK, CUZK_EINVAL (built already, or one leaf set
 * to two values), CUZK_ENOMEM. */
int cuzk_stree_build(struct cuzk_stree *t);
/* The node at (level, index) of a built tree (level 0 = leaves, level `levels` = the root). */
void cuzk_stree_node(const struct cuzk_stree *t, unsigned level, uint64_t index, cuzk_fr *out);
/* The siblings of leaf `index` at levels from .. from + n - 1 (each level's arity - 1 values in
 * index order, skipping the path's own node), into sibs (the path layout of circuits/merkle.h). */
void cuzk_stree_path(const struct cuzk_stree *t, uint64_t index, unsigned from, unsigned n,
                     cuzk_fr *sibs);
static inline const cuzk_fr *cuzk_stree_root(const struct cuzk_stree *t) {
    return &t->lv[t->levels].e[0].val;
}
void cuzk_stree_free(struct cuzk_stree *t);

#endif
