/* PoSt vanilla proofs in bincode (filecoin/post_proof.h): the reader, the writer, the
 * conversion to one partition's vanilla proofs and the prover's side for small sectors. */
#include "filecoin/post_proof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "filecoin/bincode.h"
#include "filecoin/challenges.h"
#include "filecoin/sdr.h"
#include "filecoin/stree.h"

#define SIBS 7 /* hashes per level of an arity-8 path */

/* ---- reading ------------------------------------------------------------------------------ */

/* A path of at most `room` levels of `arity` into sibs (arity - 1 per level), its indices added
 * to *index from bit `at` on (log2(arity) bits per level); *levels = its level count. */
static int rd_path(struct cuzk_bincode *r, const char *name, unsigned arity, unsigned room,
                   unsigned at, cuzk_fr *sibs, uint64_t *index, unsigned *levels) {
    const unsigned k = arity == 8 ? 3 : 1, nh = arity - 1;
    uint64_t n = 0;
    int rc = cuzk_bincode_u64(r, &n, name);
    if (rc) return rc;
    if (n > room)
        return cuzk_bincode_fail(r, CUZK_EINVAL,
                                 "the %s has %llu levels, more than the %u the sector's tree has "
                                 "left",
                                 name, (unsigned long long)n, room);
    for (unsigned l = 0; l < n; l++) {
        uint64_t h = 0, idx = 0;
        if ((rc = cuzk_bincode_u64(r, &h, "a level's hash count"))) return rc;
        if (h != nh)
            return cuzk_bincode_fail(r, CUZK_EFORMAT,
                                     "level %u of the %s has %llu hashes (arity %u has %u)", l,
                                     name, (unsigned long long)h, arity, nh);
        for (unsigned j = 0; j < nh; j++)
            if ((rc = cuzk_bincode_fr(r, &sibs[(size_t)l * nh + j], "a path hash"))) return rc;
        if ((rc = cuzk_bincode_u64(r, &idx, "a level's index"))) return rc;
        if (idx >= arity)
            return cuzk_bincode_fail(r, CUZK_EFORMAT,
                                     "level %u of the %s has index %llu (arity %u: 0..%u)", l, name,
                                     (unsigned long long)idx, arity, arity - 1);
        *index |= idx << (at + k * l);
    }
    *levels = (unsigned)n;
    return CUZK_OK;
}

/* One MerkleProof of a tree of `levels` 8-ary levels, with a binary top level above them when
 * top is set (a Top proof: 64 GiB sectors, trees 8-8-2). */
static int rd_inclusion(struct cuzk_bincode *r, unsigned levels, unsigned top, unsigned *sub,
                        uint64_t *index, cuzk_fr *leaf, cuzk_fr *root, cuzk_fr *sibs) {
    uint32_t variant = 0;
    int rc = cuzk_bincode_u32(r, &variant, "the proof's variant");
    if (rc) return rc;
    unsigned a = 0, b = 0, t = 0;
    *index = 0;
    if (variant <= 2 && (variant == 2) != (top != 0))
        return cuzk_bincode_fail(r, CUZK_EINVAL,
                                 top ? "a %s proof; the sector's tree is 8-8-2, its proofs Top"
                                     : "a %s proof (trees 8-8-2); the sector's tree has no top "
                                       "level",
                                 variant == 0   ? "Single"
                                 : variant == 1 ? "Sub"
                                                : "Top");
    switch (variant) {
    case 0: /* Single: root, leaf, path */
        if ((rc = cuzk_bincode_fr(r, root, "root")) || (rc = cuzk_bincode_fr(r, leaf, "leaf")) ||
            (rc = rd_path(r, "path", 8, levels, 0, sibs, index, &a)))
            return rc;
        break;
    case 1: /* Sub: base path, sub path, root, leaf */
    case 2: /* Top: base path, sub path, top path, root, leaf */
        if ((rc = rd_path(r, "base path", 8, levels, 0, sibs, index, &a)) ||
            (rc = rd_path(r, "sub path", 8, levels - a, 3 * a, sibs + (size_t)a * SIBS, index, &b)))
            return rc;
        if (variant == 2 && (rc = rd_path(r, "top path", 2, 1, 3 * levels,
                                          sibs + (size_t)levels * SIBS, index, &t)))
            return rc;
        if ((rc = cuzk_bincode_fr(r, root, "root")) || (rc = cuzk_bincode_fr(r, leaf, "leaf")))
            return rc;
        break;
    default:
        return cuzk_bincode_fail(r, CUZK_EFORMAT, "variant %u is not a MerkleProof (0, 1, 2)",
                                 variant);
    }
    if (a + b != levels)
        return cuzk_bincode_fail(r, CUZK_EINVAL, "a path of %u levels, the sector's tree has %u",
                                 a + b, levels);
    if (t != (top ? 1u : 0u))
        return cuzk_bincode_fail(r, CUZK_EINVAL, "a top path of %u levels; the tree's has 1", t);
    *sub = b;
    return CUZK_OK;
}

static void entry_free(struct cuzk_post_entry *e) {
    free(e->indices);
    memset(e, 0, sizeof *e);
}

/* One block for an entry's arrays (indices first: the block is freed through it). */
static int entry_alloc(struct cuzk_post_entry *e, uint32_t nc, size_t path) {
    const size_t frs = (size_t)nc * (2 + path);
    uint8_t *m = malloc((size_t)nc * 8 + frs * sizeof(cuzk_fr));
    if (!m) return CUZK_ENOMEM;
    e->n_challenges = nc;
    e->indices = (uint64_t *)m;
    e->leaves = (cuzk_fr *)(m + (size_t)nc * 8);
    e->roots = e->leaves + nc;
    e->paths = e->roots + nc;
    return CUZK_OK;
}

void cuzk_post_entries_free(struct cuzk_post_entries *pe) {
    for (size_t i = 0; pe->e && i < pe->n; i++) entry_free(&pe->e[i]);
    free(pe->e);
    memset(pe, 0, sizeof *pe);
}

/* The smallest bytes of one entry: the fixed fields and one inclusion proof of one level. */
#define MIN_ENTRY_BYTES (8 + 32 + 8 + 8 + 4 + 32 + 32 + 8 + 8 + SIBS * 32 + 8 + 64)

int cuzk_post_entries_parse(const uint8_t *data, size_t len, unsigned levels, unsigned top_arity,
                            size_t max_entries, struct cuzk_post_entries *out, char *err,
                            size_t errlen) {
    memset(out, 0, sizeof *out);
    if (levels < 1 || levels > 21 || (top_arity != 0 && top_arity != 2) || !max_entries)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla_proofs: bad tree levels or count");
    const unsigned top = top_arity != 0;
    const size_t path = (size_t)levels * SIBS + top;
    struct cuzk_bincode r = {data, data ? len : 0, 0, err, errlen, "entry 0"};
    if (!r.n) return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla_proofs: no entries");
    size_t cap = r.n / MIN_ENTRY_BYTES + 1;
    if (cap > max_entries) cap = max_entries;
    out->e = calloc(cap, sizeof *out->e);
    if (!out->e) return CUZK_ENOMEM;
    out->levels = levels;
    out->top = top;
    int rc = CUZK_OK;
    while (!rc && r.off < r.n) {
        if (out->n == max_entries) {
            rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                           "vanilla_proofs: more than %zu sector proofs for this proof",
                           max_entries);
            break;
        }
        if (out->n == cap) { /* cannot happen: cap bounds the entries the bytes can hold */
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla_proofs: too many entries");
            break;
        }
        struct cuzk_post_entry *e = &out->e[out->n];
        snprintf(r.where, sizeof r.where, "entry %zu", out->n);
        uint64_t n_sectors = 0, n_inc = 0;
        if ((rc = cuzk_bincode_u64(&r, &e->sector_id, "sector_id"))) break;
        char base[64]; /* "entry N (sector ID)" */
        snprintf(base, sizeof base, "entry %zu (sector %llu)", out->n,
                 (unsigned long long)e->sector_id);
        snprintf(r.where, sizeof r.where, "%s", base);
        if ((rc = cuzk_bincode_fr(&r, &e->comm_r, "comm_r")) ||
            (rc = cuzk_bincode_u64(&r, &n_sectors, "the sector proof count")))
            break;
        if (n_sectors != 1) {
            rc = cuzk_bincode_fail(&r, CUZK_EINVAL,
                                   "it holds %llu sector proofs; an entry is one sector's",
                                   (unsigned long long)n_sectors);
            break;
        }
        if ((rc = cuzk_bincode_u64(&r, &n_inc, "the inclusion proof count"))) break;
        if (n_inc < 1 || n_inc > CUZK_POST_MAX_CHALLENGES) {
            rc = cuzk_bincode_fail(&r, CUZK_EINVAL, "%llu inclusion proofs (1 .. %d)",
                                   (unsigned long long)n_inc, CUZK_POST_MAX_CHALLENGES);
            break;
        }
        if ((rc = entry_alloc(e, (uint32_t)n_inc, path))) break;
        out->n++;
        for (uint32_t c = 0; c < e->n_challenges && !rc; c++) {
            snprintf(r.where, sizeof r.where, "%s, inclusion proof %u", base, c);
            unsigned sub = 0;
            rc = rd_inclusion(&r, levels, top, &sub, &e->indices[c], &e->leaves[c], &e->roots[c],
                              e->paths + c * path);
            if (!rc && out->n == 1 && c == 0) out->sub = sub;
        }
        snprintf(r.where, sizeof r.where, "%s", base);
        if (!rc && !(rc = cuzk_bincode_fr(&r, &e->comm_c, "comm_c")))
            rc = cuzk_bincode_fr(&r, &e->comm_r_last, "comm_r_last");
    }
    if (rc) cuzk_post_entries_free(out);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

struct wr {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void put(struct wr *w, const void *src, size_t n) {
    if (w->oom) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->n + n) cap *= 2;
        uint8_t *q = realloc(w->p, cap);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q, w->cap = cap;
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}

static void put_u64(struct wr *w, uint64_t x) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(x >> (8 * i));
    put(w, b, 8);
}

static void put_fr(struct wr *w, const cuzk_fr *x) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    put(w, b, 32);
}

/* n 8-ary levels from level `from` (siblings and index bits of a path of 8-ary levels). */
static void put_path(struct wr *w, const cuzk_fr *sibs, uint64_t index, unsigned from, unsigned n) {
    put_u64(w, n);
    for (unsigned l = from; l < from + n; l++) {
        put_u64(w, SIBS);
        for (unsigned k = 0; k < SIBS; k++) put_fr(w, &sibs[(size_t)l * SIBS + k]);
        put_u64(w, (index >> (3 * l)) & 7);
    }
}

/* The binary top path above `levels` 8-ary levels: one level, one hash. */
static void put_top(struct wr *w, const cuzk_fr *sibs, uint64_t index, unsigned levels) {
    put_u64(w, 1);
    put_u64(w, 1);
    put_fr(w, &sibs[(size_t)levels * SIBS]);
    put_u64(w, (index >> (3 * levels)) & 1);
}

int cuzk_post_entries_write(const struct cuzk_post_entries *pe, size_t first, size_t count,
                            uint8_t **out, size_t *len) {
    *out = NULL;
    *len = 0;
    if (first > pe->n || count > pe->n - first || pe->sub > 1 || pe->sub >= pe->levels ||
        pe->top > 1)
        return CUZK_EINVAL;
    const size_t path = (size_t)pe->levels * SIBS + pe->top;
    struct wr w = {0};
    for (size_t i = first; i < first + count; i++) {
        const struct cuzk_post_entry *e = &pe->e[i];
        put_u64(&w, e->sector_id);
        put_fr(&w, &e->comm_r);
        put_u64(&w, 1);
        put_u64(&w, e->n_challenges);
        for (uint32_t c = 0; c < e->n_challenges; c++) {
            const cuzk_fr *sibs = e->paths + c * path;
            const uint8_t variant[4] = {pe->top ? 2 : pe->sub ? 1 : 0, 0, 0, 0};
            put(&w, variant, 4);
            if (pe->sub || pe->top) {
                put_path(&w, sibs, e->indices[c], 0, pe->levels - pe->sub);
                put_path(&w, sibs, e->indices[c], pe->levels - pe->sub, pe->sub);
                if (pe->top) put_top(&w, sibs, e->indices[c], pe->levels);
                put_fr(&w, &e->roots[c]);
                put_fr(&w, &e->leaves[c]);
            } else {
                put_fr(&w, &e->roots[c]);
                put_fr(&w, &e->leaves[c]);
                put_path(&w, sibs, e->indices[c], 0, pe->levels);
            }
        }
        put_fr(&w, &e->comm_c);
        put_fr(&w, &e->comm_r_last);
    }
    if (w.oom) {
        free(w.p);
        return CUZK_ENOMEM;
    }
    *out = w.p;
    *len = w.n;
    return CUZK_OK;
}

/* ---- to a partition ----------------------------------------------------------------------- */

/* Leaves of p's tree R (every PoSt shape's index bits fit far below 64). */
static uint64_t tree_nodes(const struct cuzk_fc_profile *p) {
    return (uint64_t)1 << cuzk_fc_tree_r_bits(p);
}

int cuzk_post_vanilla_of_entries(const struct cuzk_post_entries *pe,
                                 const struct cuzk_fc_registered *reg, const uint8_t randomness[32],
                                 uint32_t partition_index, struct cuzk_vanilla *v, char *err,
                                 size_t errlen) {
    memset(v, 0, sizeof *v);
    const struct cuzk_fc_profile *p = &reg->profile;
    const int winning = p->kind == CUZK_FC_WINNING;
    if (p->kind != CUZK_FC_WPOST && !winning)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla_proofs: %s is not a PoSt proof",
                         reg->name);
    if (pe->levels != p->tree_r_levels || p->sub_arity || pe->top != (p->top_arity != 0))
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "vanilla_proofs: paths of %u 8-ary levels%s; %s's tree has %u%s",
                         pe->levels, pe->top ? " and a binary top" : "", reg->name,
                         p->tree_r_levels, p->top_arity ? " and a binary top" : "");
    /* WindowPoSt: one entry per sector, k challenges each; WinningPoSt: one entry whose
     * inclusion proofs are the circuit's sectors */
    const size_t want_max = winning ? 1 : p->sectors;
    const uint32_t want_c = winning ? p->sectors : p->challenges;
    if (pe->n < 1 || pe->n > want_max)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "vanilla_proofs: %zu sector proofs; %s takes 1 .. %zu per partition",
                         pe->n, reg->name, want_max);
    const uint64_t nodes = tree_nodes(p);
    for (size_t i = 0; i < pe->n; i++) {
        const struct cuzk_post_entry *e = &pe->e[i];
        if (e->n_challenges != want_c)
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "vanilla_proofs: entry %zu (sector %llu) has %u inclusion proofs; "
                             "%s challenges %u leaves of a sector",
                             i, (unsigned long long)e->sector_id, e->n_challenges, reg->name,
                             want_c);
        const uint64_t sector_index = winning ? 0 : (uint64_t)partition_index * p->sectors + i;
        for (uint32_t c = 0; c < e->n_challenges; c++) {
            const uint64_t ci = cuzk_post_challenge_index(reg->api, sector_index, want_c, c);
            const uint64_t leaf = cuzk_post_leaf_challenge(randomness, e->sector_id, ci, nodes);
            if (e->indices[c] != leaf)
                return cuzk_errf(err, errlen, CUZK_EINVAL,
                                 "randomness: entry %zu (sector %llu), inclusion proof %u is of "
                                 "leaf %llu; the randomness challenges leaf %llu (partition %u, "
                                 "%s)",
                                 i, (unsigned long long)e->sector_id, c,
                                 (unsigned long long)e->indices[c], (unsigned long long)leaf,
                                 partition_index, reg->name);
        }
    }
    int rc = cuzk_vanilla_alloc(v, p, 1);
    if (rc) return rc;
    struct cuzk_fc_post_sector *s = (struct cuzk_fc_post_sector *)v->parts[0].v.post.sectors;
    const size_t path = cuzk_fc_tree_r_siblings(p);
    for (unsigned i = 0; i < p->sectors; i++) {
        /* WindowPoSt pads with the last sector; WinningPoSt's sector i is challenge i */
        const struct cuzk_post_entry *e = &pe->e[winning ? 0 : (i < pe->n ? i : pe->n - 1)];
        const uint32_t c0 = winning ? i : 0;
        s[i].comm_r = e->comm_r;
        s[i].comm_c = e->comm_c;
        s[i].comm_r_last = e->comm_r_last;
        for (uint32_t c = 0; c < p->challenges; c++) {
            ((uint64_t *)s[i].indices)[c] = e->indices[c0 + c];
            ((cuzk_fr *)s[i].leaves)[c] = e->leaves[c0 + c];
            memcpy((cuzk_fr *)s[i].paths + c * path, e->paths + (size_t)(c0 + c) * path,
                   path * sizeof(cuzk_fr));
        }
    }
    return CUZK_OK;
}

/* ---- the prover's side -------------------------------------------------------------------- */

static void zero_leaf(void *ctx, uint64_t region, cuzk_fr *leaf) {
    (void)ctx, (void)region;
    cuzk_fr_set_zero(leaf);
}

int cuzk_post_entries_make(const struct cuzk_fc_registered *reg,
                           const struct cuzk_post_sector_input *in, size_t n,
                           const uint8_t randomness[32], uint32_t partition_index,
                           struct cuzk_post_entries *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    const struct cuzk_fc_profile *p = &reg->profile;
    const int winning = p->kind == CUZK_FC_WINNING;
    if (p->kind != CUZK_FC_WPOST && !winning)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "%s is not a PoSt proof", reg->name);
    if (n < 1 || n > (winning ? 1 : p->sectors))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "%zu sectors; %s takes 1 .. %u", n, reg->name,
                         winning ? 1 : p->sectors);
    if (reg->sector_size > CUZK_SDR_MAX_SECTOR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "%s: sectors above %llu bytes are not held in memory here", reg->name,
                         (unsigned long long)CUZK_SDR_MAX_SECTOR_BYTES);
    if (p->sub_arity)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "%s: a tree C/R sub level that is not 8-ary has no bincode here",
                         reg->name);
    struct cuzk_merkle_shape shape;
    cuzk_fc_tree_r_shape(p, &shape);
    const unsigned levels = p->tree_r_levels, depth = cuzk_merkle_shape_depth(&shape);
    const uint64_t nodes = tree_nodes(p);
    const size_t path = cuzk_fc_tree_r_siblings(p);
    const uint32_t nc = winning ? p->sectors : p->challenges;
    out->e = calloc(n, sizeof *out->e);
    cuzk_fr *leaves = malloc(nodes * sizeof *leaves);
    int rc = out->e && leaves ? CUZK_OK : CUZK_ENOMEM;
    out->levels = levels;
    out->top = p->top_arity != 0;
    out->sub = out->top; /* a Top proof has a sub path; the other sizes held here are 8-0-0 */
    for (size_t i = 0; i < n && !rc; i++) {
        if (in[i].len != reg->sector_size || nodes * 32 != reg->sector_size) {
            rc = cuzk_errf(err, errlen, CUZK_EINVAL, "sector %zu: %zu bytes, %s sectors are %llu",
                           i, in[i].len, reg->name, (unsigned long long)reg->sector_size);
            break;
        }
        for (uint64_t k = 0; k < nodes && !rc; k++)
            if (cuzk_fr_from_bytes_le(&leaves[k], in[i].replica + 32 * k))
                rc = cuzk_errf(err, errlen, CUZK_ENONCANON,
                               "sector %zu: replica node %llu is not a field element", i,
                               (unsigned long long)k);
        if (rc) break;
        struct cuzk_stree t;
        if ((rc = cuzk_stree_init(&t, &shape, cuzk_merkle_shape_bits(&shape), zero_leaf, NULL)))
            break;
        for (uint64_t k = 0; k < nodes && !rc; k++) rc = cuzk_stree_set(&t, k, &leaves[k]);
        if (!rc) rc = cuzk_stree_build(&t);
        struct cuzk_post_entry *e = &out->e[i];
        if (!rc) rc = entry_alloc(e, nc, path);
        if (!rc) {
            out->n++;
            e->sector_id = in[i].sector_id;
            e->comm_c = in[i].comm_c;
            e->comm_r_last = *cuzk_stree_root(&t);
            cuzk_vanilla_comm_r(&e->comm_c, &e->comm_r_last, &e->comm_r);
            const uint64_t sector_index = winning ? 0 : (uint64_t)partition_index * p->sectors + i;
            for (uint32_t c = 0; c < nc; c++) {
                const uint64_t ci = cuzk_post_challenge_index(reg->api, sector_index, nc, c);
                const uint64_t leaf = cuzk_post_leaf_challenge(randomness, e->sector_id, ci, nodes);
                e->indices[c] = leaf;
                e->leaves[c] = leaves[leaf];
                e->roots[c] = e->comm_r_last;
                cuzk_stree_path(&t, leaf, 0, depth, e->paths + c * path);
            }
        }
        cuzk_stree_free(&t);
    }
    free(leaves);
    if (rc) {
        if (rc == CUZK_ENOMEM && err && errlen && !*err) snprintf(err, errlen, "out of memory");
        cuzk_post_entries_free(out);
    }
    return rc;
}
