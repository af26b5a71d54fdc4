/* DESIGN: each generator draws every random value from one seeded xoshiro stream in a fixed
 * order (so a seed names a sector), sets the touched leaves of its sparse trees, builds them
 * once, then copies paths into the partitions' arrays. Small open-addressing maps keep node
 * indices unique (challenges) or shared (parent columns, PoSt leaves). */
#include "filecoin/sector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/poseidon.h"
#include "cuzk/error.h"
#include "filecoin/stree.h"
#include "util/rand.h"

#define POREP_PARENTS (CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS)
#define SNAP_TOUCHED_PER_PARTITION 4

/* ---- helpers ---------------------------------------------------------------------------- */

/* A uniformly random Fr32 value (below 2^254), as Filecoin's data and labels are. */
static void rand_fr32(struct cuzk_rng *rng, cuzk_fr *out) {
    uint8_t b[32];
    cuzk_rng_fill(rng, b, sizeof b);
    b[31] &= 0x3f;
    cuzk_fr_from_bytes_le(out, b);
}

static void rand_fr(struct cuzk_rng *rng, cuzk_fr *out) { cuzk_fr_random(out, rng); }

static uint64_t rand_below(struct cuzk_rng *rng, uint64_t n) { return cuzk_rng_u64(rng) % n; }

/* u64 -> u32 map, open addressing, sized once for its largest content. */
struct u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t mask;
};

static int map_init(struct u64map *m, size_t max_entries) {
    size_t cap = 16;
    while (cap < 2 * max_entries) cap *= 2;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    m->used = calloc(cap, 1);
    m->mask = cap - 1;
    return m->keys && m->vals && m->used ? CUZK_OK : CUZK_ENOMEM;
}

static void map_free(struct u64map *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

/* The slot of key: found (*found = 1) or the empty one where it would go. */
static size_t map_slot(const struct u64map *m, uint64_t key, int *found) {
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & m->mask;
    while (m->used[i] && m->keys[i] != key) i = (i + 1) & m->mask;
    *found = m->used[i];
    return i;
}

static void map_put_at(struct u64map *m, size_t slot, uint64_t key, uint32_t val) {
    m->used[slot] = 1;
    m->keys[slot] = key;
    m->vals[slot] = val;
}

static void const_leaf(void *ctx, uint64_t region, cuzk_fr *leaf) {
    (void)region;
    *leaf = *(const cuzk_fr *)ctx;
}

uint32_t cuzk_sector_default_partitions(const struct cuzk_fc_profile *p) {
    switch (p->kind) {
    case CUZK_FC_POREP: return 2;
    case CUZK_FC_SNAP: return p->partition_bits >= 4 ? 16 : 1u << p->partition_bits;
    default: return 1;
    }
}

/* A binary SHA-256 tree (D) of `levels` levels. */
static struct cuzk_merkle_shape sha_shape(unsigned levels) {
    return (struct cuzk_merkle_shape){CUZK_MERKLE_SHA256, 2, levels, 0, 0};
}

/* p's tree C/R shape, and the depth, index bits and siblings of its paths. */
struct rshape {
    struct cuzk_merkle_shape s;
    unsigned depth, bits, sibs;
};

static struct rshape rshape_of(const struct cuzk_fc_profile *p) {
    struct rshape r;
    cuzk_fc_tree_r_shape(p, &r.s);
    r.depth = cuzk_merkle_shape_depth(&r.s);
    r.bits = cuzk_merkle_shape_bits(&r.s);
    r.sibs = cuzk_merkle_shape_siblings(&r.s);
    return r;
}

/* ---- PoRep ------------------------------------------------------------------------------ */

static int gen_porep(const struct cuzk_fc_profile *p, struct cuzk_vanilla *out,
                     struct cuzk_rng *rng, char *err, size_t errlen) {
    const unsigned L = p->layers, D = p->tree_d_levels;
    const struct rshape R = rshape_of(p);
    const struct cuzk_merkle_shape DS = sha_shape(D);
    const uint32_t P = out->n_parts;
    const uint64_t N = cuzk_vanilla_nodes(p), total = (uint64_t)P * p->challenges;
    if (N < 3 || total > N - 2)
        return cuzk_errf(
            err, errlen, CUZK_EINVAL,
            "sector: %s has %llu nodes, too few for %llu distinct challenges and their "
            "parents",
            p->name, (unsigned long long)N, (unsigned long long)total);
    struct cuzk_stree td = {0}, tc = {0}, tr = {0};
    struct u64map chal_set = {0}, col_map = {0};
    uint64_t *chal = malloc(total * sizeof *chal);
    uint64_t *parents = malloc(total * POREP_PARENTS * sizeof *parents);
    uint32_t *parent_slot = malloc(total * POREP_PARENTS * sizeof *parent_slot);
    cuzk_fr *data = malloc(total * sizeof *data);
    cuzk_fr *cols = malloc(total * POREP_PARENTS * L * sizeof *cols);
    cuzk_fr *gather = malloc((size_t)POREP_PARENTS * L * sizeof *gather);
    int rc = CUZK_ENOMEM;
    if (!chal || !parents || !parent_slot || !data || !cols || !gather ||
        map_init(&chal_set, total) || map_init(&col_map, total * POREP_PARENTS))
        goto out;

    cuzk_fr replica_id, def_d, def_c, def_r;
    rand_fr32(rng, &replica_id);
    rand_fr32(rng, &def_d);
    rand_fr(rng, &def_c);
    rand_fr(rng, &def_r);
    if ((rc = cuzk_stree_init(&td, &DS, D, const_leaf, &def_d)) ||
        (rc = cuzk_stree_init(&tc, &R.s, R.bits, const_leaf, &def_c)) ||
        (rc = cuzk_stree_init(&tr, &R.s, R.bits, const_leaf, &def_r)))
        goto out;

    /* distinct challenged nodes in [1, N) */
    for (uint64_t i = 0; i < total; i++) {
        int found;
        size_t s;
        uint64_t x;
        do {
            x = 1 + rand_below(rng, N - 1);
            s = map_slot(&chal_set, x, &found);
        } while (found);
        map_put_at(&chal_set, s, x, (uint32_t)i);
        chal[i] = x;
    }
    /* parents among the other nodes, each with one column shared by all its children */
    uint32_t n_cols = 0;
    cuzk_fr h;
    for (uint64_t i = 0; i < total * POREP_PARENTS; i++) {
        int found;
        uint64_t y;
        do {
            y = rand_below(rng, N);
            map_slot(&chal_set, y, &found);
        } while (found);
        parents[i] = y;
        size_t s = map_slot(&col_map, y, &found);
        if (!found) {
            cuzk_fr *col = cols + (size_t)n_cols * L;
            for (unsigned l = 0; l < L; l++) rand_fr32(rng, &col[l]);
            cuzk_poseidon_hash_merkle((int)L, col, &h);
            if ((rc = cuzk_stree_set(&tc, y, &h))) goto out;
            map_put_at(&col_map, s, y, n_cols++);
        }
        parent_slot[i] = col_map.vals[s];
    }
    /* the challenged nodes: labels from the parents, data, encoding */
    cuzk_fr labels[CUZK_POSEIDON_MAX_ARITY], enc;
    for (uint64_t i = 0; i < total; i++) {
        for (unsigned q = 0; q < POREP_PARENTS; q++)
            memcpy(gather + (size_t)q * L, cols + (size_t)parent_slot[i * POREP_PARENTS + q] * L,
                   L * sizeof *gather);
        cuzk_vanilla_porep_labels(p, &replica_id, chal[i], gather, labels);
        cuzk_poseidon_hash_merkle((int)L, labels, &h);
        rand_fr32(rng, &data[i]);
        cuzk_fr_add(&enc, &labels[L - 1], &data[i]);
        if ((rc = cuzk_stree_set(&tc, chal[i], &h)) ||
            (rc = cuzk_stree_set(&td, chal[i], &data[i])) ||
            (rc = cuzk_stree_set(&tr, chal[i], &enc)))
            goto out;
    }
    if ((rc = cuzk_stree_build(&td)) || (rc = cuzk_stree_build(&tc)) ||
        (rc = cuzk_stree_build(&tr)))
        goto out;

    for (uint32_t pi = 0; pi < P; pi++) {
        struct cuzk_fc_porep_vanilla *v = &out->parts[pi].v.porep;
        v->replica_id = replica_id;
        v->comm_d = *cuzk_stree_root(&td);
        v->comm_c = *cuzk_stree_root(&tc);
        v->comm_r_last = *cuzk_stree_root(&tr);
        cuzk_vanilla_comm_r(&v->comm_c, &v->comm_r_last, &v->comm_r);
        struct cuzk_fc_porep_challenge *chs = (struct cuzk_fc_porep_challenge *)v->challenges;
        for (unsigned j = 0; j < p->challenges; j++) {
            uint64_t i = (uint64_t)pi * p->challenges + j;
            struct cuzk_fc_porep_challenge *ch = &chs[j];
            ch->challenge = chal[i];
            ch->data_leaf = data[i];
            cuzk_stree_path(&td, chal[i], 0, D, (cuzk_fr *)ch->tree_d_path);
            for (unsigned q = 0; q < POREP_PARENTS; q++) {
                ch->parents[q] = parents[i * POREP_PARENTS + q];
                memcpy((cuzk_fr *)ch->parent_columns + (size_t)q * L,
                       cols + (size_t)parent_slot[i * POREP_PARENTS + q] * L, L * sizeof *cols);
                cuzk_stree_path(&tc, ch->parents[q], 0, R.depth,
                                (cuzk_fr *)ch->parent_paths + (size_t)q * R.sibs);
            }
            cuzk_stree_path(&tr, chal[i], 0, R.depth, (cuzk_fr *)ch->tree_r_path);
            cuzk_stree_path(&tc, chal[i], 0, R.depth, (cuzk_fr *)ch->tree_c_path);
        }
    }
    rc = CUZK_OK;
out:
    if (rc == CUZK_ENOMEM)
        cuzk_errf(err, errlen, rc, "sector: out of memory");
    else if (rc && err && !err[0])
        cuzk_errf(err, errlen, rc, "sector: %s", cuzk_strerror(rc));
    cuzk_stree_free(&td);
    cuzk_stree_free(&tc);
    cuzk_stree_free(&tr);
    map_free(&chal_set);
    map_free(&col_map);
    free(chal);
    free(parents);
    free(parent_slot);
    free(data);
    free(cols);
    free(gather);
    return rc;
}

/* ---- SnapDeals -------------------------------------------------------------------------- */

struct snap_new_default {
    cuzk_fr phi, r0, d0;
};

/* The default leaf of tree R new in h-region `region`: r0 + d0 * rho(region). */
static void snap_new_leaf(void *ctx, uint64_t region, cuzk_fr *leaf) {
    const struct snap_new_default *c = ctx;
    cuzk_fr rho;
    cuzk_vanilla_snap_rho(&c->phi, region, &rho);
    cuzk_fr_mul(leaf, &c->d0, &rho);
    cuzk_fr_add(leaf, leaf, &c->r0);
}

static int gen_snap(const struct cuzk_fc_profile *p, struct cuzk_vanilla *out, uint64_t seed,
                    struct cuzk_rng *rng, char *err, size_t errlen) {
    const unsigned D = p->tree_d_levels, P = p->partition_bits;
    const unsigned A = p->apex_leaves, bpc = D - P;
    const struct rshape R = rshape_of(p);
    const struct cuzk_merkle_shape DS = sha_shape(D);
    unsigned alog = 0;
    while ((1u << alog) < A) alog++;
    const unsigned below = D - P - alog;
    const uint32_t parts = out->n_parts;
    if (parts > (1u << P))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "sector: %s has at most %u partitions, not %u",
                         p->name, 1u << P, parts);
    const unsigned h_index = (unsigned)(seed % CUZK_FC_H_COUNT);
    const unsigned h = cuzk_vanilla_snap_h(p, h_index);
    const size_t n_touch = (size_t)parts * SNAP_TOUCHED_PER_PARTITION;
    struct cuzk_stree td = {0}, tro = {0}, trn = {0};
    struct u64map touched = {0};
    uint64_t *tx = malloc(n_touch * sizeof *tx);
    cuzk_fr *td_val = malloc(n_touch * sizeof *td_val),
            *tro_val = malloc(n_touch * sizeof *tro_val);
    uint64_t *chal = malloc((size_t)p->challenges * sizeof *chal);
    int rc = CUZK_ENOMEM;
    if (!tx || !td_val || !tro_val || !chal || map_init(&touched, n_touch)) goto out;

    struct snap_new_default nd;
    cuzk_fr comm_c;
    rand_fr32(rng, &nd.d0);
    rand_fr(rng, &nd.r0);
    rand_fr(rng, &comm_c);
    if ((rc = cuzk_stree_init(&td, &DS, D, const_leaf, &nd.d0)) ||
        (rc = cuzk_stree_init(&tro, &R.s, R.bits, const_leaf, &nd.r0)))
        goto out;
    /* a few random leaves inside every generated partition */
    size_t nt = 0;
    for (uint32_t k = 0; k < parts; k++)
        for (unsigned i = 0; i < SNAP_TOUCHED_PER_PARTITION; i++) {
            uint64_t x = (uint64_t)k << bpc | rand_below(rng, (uint64_t)1 << bpc);
            int found;
            size_t s = map_slot(&touched, x, &found);
            if (found) continue;
            map_put_at(&touched, s, x, (uint32_t)nt);
            tx[nt] = x;
            rand_fr32(rng, &td_val[nt]);
            rand_fr(rng, &tro_val[nt]);
            if ((rc = cuzk_stree_set(&td, x, &td_val[nt])) ||
                (rc = cuzk_stree_set(&tro, x, &tro_val[nt])))
                goto out;
            nt++;
        }
    if ((rc = cuzk_stree_build(&td)) || (rc = cuzk_stree_build(&tro))) goto out;
    cuzk_fr comm_d_new = *cuzk_stree_root(&td), root_r_old = *cuzk_stree_root(&tro), comm_r_old;
    cuzk_vanilla_comm_r(&comm_c, &root_r_old, &comm_r_old);
    cuzk_vanilla_snap_phi(&comm_d_new, &comm_r_old, &nd.phi);
    /* tree R new: the update rule on every leaf */
    if ((rc = cuzk_stree_init(&trn, &R.s, D - h, snap_new_leaf, &nd))) goto out;
    for (size_t i = 0; i < nt; i++) {
        cuzk_fr rho, leaf;
        cuzk_vanilla_snap_rho(&nd.phi, tx[i] >> (D - h), &rho);
        cuzk_fr_mul(&leaf, &td_val[i], &rho);
        cuzk_fr_add(&leaf, &leaf, &tro_val[i]);
        if ((rc = cuzk_stree_set(&trn, tx[i], &leaf))) goto out;
    }
    if ((rc = cuzk_stree_build(&trn))) goto out;
    cuzk_fr root_r_new = *cuzk_stree_root(&trn), comm_r_new;
    cuzk_vanilla_comm_r(&comm_c, &root_r_new, &comm_r_new);

    for (uint32_t k = 0; k < parts; k++) {
        struct cuzk_fc_snap_vanilla *v = &out->parts[k].v.snap;
        v->k = k;
        v->h_index = h_index;
        v->comm_r_old = comm_r_old;
        v->comm_d_new = comm_d_new;
        v->comm_r_new = comm_r_new;
        v->comm_c = comm_c;
        v->root_r_old = root_r_old;
        v->root_r_new = root_r_new;
        for (unsigned i = 0; i < A; i++)
            cuzk_stree_node(&td, below, (uint64_t)k * A + i, (cuzk_fr *)&v->apex_leaves[i]);
        cuzk_stree_path(&td, (uint64_t)k << bpc, below + alog, P, (cuzk_fr *)v->partition_path);
        cuzk_vanilla_snap_challenges(p, &comm_r_new, k, chal);
        struct cuzk_fc_snap_challenge *chs = (struct cuzk_fc_snap_challenge *)v->challenges;
        for (unsigned j = 0; j < p->challenges; j++) {
            cuzk_stree_node(&tro, 0, chal[j], &chs[j].leaf_r_old);
            cuzk_stree_node(&td, 0, chal[j], &chs[j].leaf_d_new);
            cuzk_stree_path(&tro, chal[j], 0, R.depth, (cuzk_fr *)chs[j].path_r_old);
            cuzk_stree_path(&trn, chal[j], 0, R.depth, (cuzk_fr *)chs[j].path_r_new);
            cuzk_stree_path(&td, chal[j], 0, below, (cuzk_fr *)chs[j].path_d_to_apex);
        }
    }
    rc = CUZK_OK;
out:
    if (rc == CUZK_ENOMEM)
        cuzk_errf(err, errlen, rc, "sector: out of memory");
    else if (rc && err && !err[0])
        cuzk_errf(err, errlen, rc, "sector: %s", cuzk_strerror(rc));
    cuzk_stree_free(&td);
    cuzk_stree_free(&tro);
    cuzk_stree_free(&trn);
    map_free(&touched);
    free(tx);
    free(td_val);
    free(tro_val);
    free(chal);
    return rc;
}

/* ---- PoSt ------------------------------------------------------------------------------- */

/* One tree with the challenges of sectors [s0, s1) of a partition. */
static int gen_post_tree(const struct cuzk_fc_profile *p, struct cuzk_fc_post_sector *secs,
                         unsigned s0, unsigned s1, struct cuzk_rng *rng) {
    const unsigned k = p->challenges;
    const struct rshape R = rshape_of(p);
    const uint64_t nodes = cuzk_vanilla_nodes(p);
    const size_t n = (size_t)(s1 - s0) * k;
    struct cuzk_stree t = {0};
    struct u64map leaves = {0};
    cuzk_fr def, comm_c, *vals = malloc(n * sizeof *vals);
    rand_fr(rng, &def);
    rand_fr(rng, &comm_c);
    int rc = CUZK_ENOMEM;
    if (!vals || map_init(&leaves, n)) goto out;
    if ((rc = cuzk_stree_init(&t, &R.s, R.bits, const_leaf, &def))) goto out;
    size_t nv = 0;
    for (unsigned s = s0; s < s1; s++)
        for (unsigned c = 0; c < k; c++) {
            uint64_t x = rand_below(rng, nodes);
            int found;
            size_t slot = map_slot(&leaves, x, &found);
            if (!found) {
                rand_fr(rng, &vals[nv]);
                if ((rc = cuzk_stree_set(&t, x, &vals[nv]))) goto out;
                map_put_at(&leaves, slot, x, (uint32_t)nv++);
            }
            ((uint64_t *)secs[s].indices)[c] = x;
            ((cuzk_fr *)secs[s].leaves)[c] = vals[leaves.vals[slot]];
        }
    if ((rc = cuzk_stree_build(&t))) goto out;
    for (unsigned s = s0; s < s1; s++) {
        secs[s].comm_c = comm_c;
        secs[s].comm_r_last = *cuzk_stree_root(&t);
        cuzk_vanilla_comm_r(&comm_c, &secs[s].comm_r_last, &secs[s].comm_r);
        for (unsigned c = 0; c < k; c++)
            cuzk_stree_path(&t, secs[s].indices[c], 0, R.depth,
                            (cuzk_fr *)secs[s].paths + (size_t)c * R.sibs);
    }
    rc = CUZK_OK;
out:
    cuzk_stree_free(&t);
    map_free(&leaves);
    free(vals);
    return rc;
}

static int gen_post(const struct cuzk_fc_profile *p, struct cuzk_vanilla *out, struct cuzk_rng *rng,
                    char *err, size_t errlen) {
    for (uint32_t pi = 0; pi < out->n_parts; pi++) {
        struct cuzk_fc_post_sector *secs =
            (struct cuzk_fc_post_sector *)out->parts[pi].v.post.sectors;
        int rc = CUZK_OK;
        if (p->kind == CUZK_FC_WINNING)
            rc = gen_post_tree(p, secs, 0, p->sectors, rng);
        else
            for (unsigned s = 0; s < p->sectors && !rc; s++)
                rc = gen_post_tree(p, secs, s, s + 1, rng);
        if (rc) return cuzk_errf(err, errlen, rc, "sector: %s", cuzk_strerror(rc));
    }
    return CUZK_OK;
}

/* ---- entry ------------------------------------------------------------------------------ */

int cuzk_sector_generate(const struct cuzk_fc_profile *p, uint32_t n_parts, uint64_t seed,
                         struct cuzk_vanilla *out, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    int rc = cuzk_vanilla_alloc(out, p, n_parts);
    if (rc)
        return cuzk_errf(err, errlen, rc, "sector: cannot hold %u partitions of %s: %s", n_parts,
                         p->name, cuzk_strerror(rc));
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed ^ ((uint64_t)p->kind << 56) ^ 0x7365637430000000ull);
    switch (p->kind) {
    case CUZK_FC_POREP: rc = gen_porep(p, out, &rng, err, errlen); break;
    case CUZK_FC_SNAP: rc = gen_snap(p, out, seed, &rng, err, errlen); break;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: rc = gen_post(p, out, &rng, err, errlen); break;
    }
    if (rc) cuzk_vanilla_free(out);
    return rc;
}
