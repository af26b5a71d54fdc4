/* SnapDeals vanilla proofs in bincode (filecoin/snap_proof.h): the reader with its conversion
 * to the vanilla set, and the writer. */
#include "filecoin/snap_proof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/sha256.h"
#include "cuzk/error.h"
#include "filecoin/bincode.h"
#include "filecoin/challenges.h"
#include "filecoin/sdr.h"

#define N_H 6 /* the h values a sector size allows (cuzk_vanilla_snap_h) */

/* The parts of a Merkle tree: 1 Single (tree D, trees R below 32 GiB), 2 Sub (8-8-0), 3 Top
 * (8-8-2: base, sub and top paths). */
struct shape {
    unsigned n, levels[3], arity[3];
};

/* Tree R of the sector: the profile's 8-ary levels are the base and the sub level, the top
 * level (if any) is above them. */
static void shape_r(const struct cuzk_fc_profile *p, const struct cuzk_sdr_shape *sh,
                    struct shape *s) {
    const unsigned sub = sh->sub_arity != 0, top = sh->top_arity != 0;
    *s = (struct shape){1 + sub + top,
                        {p->tree_r_levels - sub, 1, 1},
                        {8, sub ? sh->sub_arity : sh->top_arity, sh->top_arity}};
}

static void shape_d(const struct cuzk_fc_profile *p, struct shape *s) {
    *s = (struct shape){1, {p->tree_d_levels, 0, 0}, {2, 0, 0}};
}

static const char *const variant_names[3] = {"Single", "Sub", "Top"};

/* ---- reading ------------------------------------------------------------------------------ */

/* The position of the sentences: entry k, and its challenge proof j when j >= 0. */
static void at(struct cuzk_bincode *r, unsigned entry, int proof) {
    if (proof >= 0)
        snprintf(r->where, sizeof r->where, "entry %u, challenge proof %d", entry, proof);
    else
        snprintf(r->where, sizeof r->where, "entry %u", entry);
}

/* One MerkleProof of shape s: siblings into sibs (arity - 1 per level, level 0 first), the
 * leaf index, root and leaf. */
static int rd_merkle(struct cuzk_bincode *r, const char *name, const struct shape *s, cuzk_fr *sibs,
                     uint64_t *index, cuzk_fr *root, cuzk_fr *leaf) {
    uint32_t variant = 0;
    int rc = cuzk_bincode_u32(r, &variant, name);
    if (rc) return rc;
    if (variant > 2)
        return cuzk_bincode_fail(r, CUZK_EFORMAT, "%s: variant %u is not a MerkleProof", name,
                                 variant);
    if (variant != s->n - 1)
        return cuzk_bincode_fail(r, CUZK_EINVAL, "%s is a %s proof; this sector's tree takes %s",
                                 name, variant_names[variant], variant_names[s->n - 1]);
    if (variant == 0 &&
        ((rc = cuzk_bincode_fr(r, root, "a root")) || (rc = cuzk_bincode_fr(r, leaf, "a leaf"))))
        return rc;
    uint64_t mult = 1;
    size_t at = 0, off = 0; /* the level, and its first sibling */
    *index = 0;
    for (unsigned k = 0; k < s->n; k++) {
        uint64_t levels = 0;
        if ((rc = cuzk_bincode_u64(r, &levels, "a path's level count"))) return rc;
        if (levels != s->levels[k])
            return cuzk_bincode_fail(r, CUZK_EINVAL,
                                     "%s: a path of %llu levels, this sector's tree %u", name,
                                     (unsigned long long)levels, s->levels[k]);
        const unsigned ar = s->arity[k];
        for (unsigned l = 0; l < levels; l++, at++, off += ar - 1) {
            uint64_t h = 0, idx = 0;
            if ((rc = cuzk_bincode_u64(r, &h, "a level's hash count"))) return rc;
            if (h != ar - 1)
                return cuzk_bincode_fail(r, CUZK_EFORMAT,
                                         "%s: level %zu has %llu hashes (arity %u has %u)", name,
                                         at, (unsigned long long)h, ar, ar - 1);
            for (unsigned q = 0; q < ar - 1; q++)
                if ((rc = cuzk_bincode_fr(r, &sibs[off + q], "a path hash"))) return rc;
            if ((rc = cuzk_bincode_u64(r, &idx, "a level's index"))) return rc;
            if (idx >= ar)
                return cuzk_bincode_fail(r, CUZK_EFORMAT,
                                         "%s: level %zu has position %llu (arity %u)", name, at,
                                         (unsigned long long)idx, ar);
            *index += idx * mult;
            mult *= ar;
        }
    }
    if (variant > 0 &&
        ((rc = cuzk_bincode_fr(r, root, "a root")) || (rc = cuzk_bincode_fr(r, leaf, "a leaf"))))
        return rc;
    return CUZK_OK;
}

static int same(const cuzk_fr *a, const cuzk_fr *b) { return cuzk_fr_eq(a, b); }

/* The apex tree's rows over A leaves: rows[0] = the leaves, each next row half as long. */
static void apex_rows(const cuzk_fr *leaves, unsigned A, cuzk_fr *rows) {
    memcpy(rows, leaves, (size_t)A * sizeof *rows);
    cuzk_fr *row = rows;
    for (unsigned n = A; n > 1; n /= 2) {
        for (unsigned i = 0; i < n / 2; i++)
            cuzk_sha256_node_fr(&row[n + i], &row[2 * i], &row[2 * i + 1]);
        row += n;
    }
}

/* The sibling at apex level l of apex leaf a. */
static const cuzk_fr *apex_sibling(const cuzk_fr *rows, unsigned A, unsigned l, uint64_t a) {
    size_t start = 0;
    for (unsigned k = 0, n = A; k < l; k++, n /= 2) start += n;
    return &rows[start + ((a >> l) ^ 1)];
}

struct sector_roots {
    int have;
    cuzk_fr root_r_old, root_r_new, comm_d_new;
    unsigned h_index;
};

static int partition_of(struct cuzk_bincode *r, const struct cuzk_fc_profile *p,
                        const struct shape *sr, const struct shape *sd, unsigned k,
                        struct cuzk_fc_snap_vanilla *sv, struct sector_roots *sec, cuzk_fr *dsibs,
                        cuzk_fr *rows, cuzk_fr *leaf_new, uint64_t *idx, uint64_t *chal) {
    const unsigned D = p->tree_d_levels, A = p->apex_leaves, P = p->partition_bits;
    unsigned abits = 0;
    while ((1u << abits) < A) abits++;
    const unsigned below = D - P - abits;
    int rc;
    at(r, k, -1);
    if ((rc = cuzk_bincode_fr(r, &sv->comm_c, "comm_c"))) return rc;
    uint64_t n = 0;
    if ((rc = cuzk_bincode_u64(r, &n, "the apex leaf count"))) return rc;
    if (n != A)
        return cuzk_bincode_fail(r, CUZK_EINVAL,
                                 "%llu apex leaves; the sector's partitions have %u",
                                 (unsigned long long)n, A);
    for (unsigned i = 0; i < A; i++)
        if ((rc = cuzk_bincode_fr(r, (cuzk_fr *)&sv->apex_leaves[i], "an apex leaf"))) return rc;
    apex_rows(sv->apex_leaves, A, rows);
    if ((rc = cuzk_bincode_u64(r, &n, "the challenge proof count"))) return rc;
    if (n != p->challenges)
        return cuzk_bincode_fail(r, CUZK_EINVAL,
                                 "%llu challenge proofs; the sector's partitions have %u",
                                 (unsigned long long)n, p->challenges);
    cuzk_fr root_old, root_new, root_d, leaf;
    for (unsigned j = 0; j < p->challenges; j++) {
        at(r, k, (int)j);
        struct cuzk_fc_snap_challenge *ch = (struct cuzk_fc_snap_challenge *)&sv->challenges[j];
        uint64_t x_old = 0, x_d = 0, x_new = 0;
        if ((rc = rd_merkle(r, "proof_r_old", sr, (cuzk_fr *)ch->path_r_old, &x_old, &root_old,
                            &ch->leaf_r_old)) ||
            (rc = rd_merkle(r, "proof_d_new", sd, dsibs, &x_d, &root_d, &ch->leaf_d_new)) ||
            (rc = rd_merkle(r, "proof_r_new", sr, (cuzk_fr *)ch->path_r_new, &x_new, &root_new,
                            &leaf)))
            return rc;
        leaf_new[j] = leaf;
        if (x_old != x_d || x_new != x_d)
            return cuzk_bincode_fail(
                r, CUZK_EINVAL, "its three proofs are of nodes %llu, %llu and %llu",
                (unsigned long long)x_old, (unsigned long long)x_d, (unsigned long long)x_new);
        idx[j] = x_d;
        if (!sec->have) {
            sec->root_r_old = root_old, sec->root_r_new = root_new, sec->comm_d_new = root_d;
            sec->have = 1;
        } else if (!same(&root_old, &sec->root_r_old) || !same(&root_new, &sec->root_r_new) ||
                   !same(&root_d, &sec->comm_d_new)) {
            return cuzk_bincode_fail(r, CUZK_EINVAL,
                                     "a root that is not the sector's (tree R old, tree D "
                                     "new or tree R new)");
        }
        memcpy((cuzk_fr *)ch->path_d_to_apex, dsibs, (size_t)below * sizeof *dsibs);
        for (unsigned l = 0; l < abits; l++)
            if (!same(&dsibs[below + l], apex_sibling(rows, A, l, (x_d >> below) & (A - 1))))
                return cuzk_bincode_fail(
                    r, CUZK_EINVAL,
                    "proof_d_new's level %u is not the apex tree's (the apex leaves)", below + l);
        if (j == 0)
            memcpy((cuzk_fr *)sv->partition_path, dsibs + below + abits, (size_t)P * sizeof *dsibs);
        else if (memcmp(sv->partition_path, dsibs + below + abits, (size_t)P * sizeof *dsibs))
            return cuzk_bincode_fail(r, CUZK_EINVAL,
                                     "proof_d_new's path above the apex is not the partition's");
    }
    at(r, k, -1);
    sv->k = k;
    sv->comm_d_new = sec->comm_d_new;
    sv->root_r_old = sec->root_r_old;
    sv->root_r_new = sec->root_r_new;
    cuzk_vanilla_comm_r(&sv->comm_c, &sv->root_r_old, &sv->comm_r_old);
    cuzk_vanilla_comm_r(&sv->comm_c, &sv->root_r_new, &sv->comm_r_new);
    cuzk_vanilla_snap_challenges(p, &sv->comm_r_new, k, chal);
    for (unsigned j = 0; j < p->challenges; j++)
        if (idx[j] != chal[j]) {
            at(r, k, (int)j);
            return cuzk_bincode_fail(
                r, CUZK_EINVAL,
                "it is of node %llu; comm_r_new and partition %u challenge node %llu",
                (unsigned long long)idx[j], k, (unsigned long long)chal[j]);
        }
    /* h: the one the encoding satisfies (old + data * rho(phi, top h bits) = new) */
    cuzk_fr phi, rho, t;
    cuzk_vanilla_snap_phi(&sv->comm_d_new, &sv->comm_r_old, &phi);
    int found = -1;
    for (unsigned hi = 0; hi < N_H && found < 0; hi++) {
        const unsigned h = cuzk_vanilla_snap_h(p, hi);
        int ok = 1;
        for (unsigned j = 0; j < p->challenges && ok; j++) {
            const struct cuzk_fc_snap_challenge *ch = &sv->challenges[j];
            cuzk_vanilla_snap_rho(&phi, chal[j] >> (D - h), &rho);
            cuzk_fr_mul(&t, &ch->leaf_d_new, &rho);
            cuzk_fr_add(&t, &t, &ch->leaf_r_old);
            ok = same(&t, &leaf_new[j]);
        }
        if (ok) found = (int)hi;
    }
    if (found < 0)
        return cuzk_bincode_fail(
            r, CUZK_EINVAL,
            "no h gives its new replica leaves (old + data * rho): not the encoding of "
            "comm_d_new's data into the old replica");
    if (k && (unsigned)found != sec->h_index)
        return cuzk_bincode_fail(r, CUZK_EINVAL, "its encoding's h is not partition 0's");
    sec->h_index = (unsigned)found;
    sv->h_index = (unsigned)found;
    return CUZK_OK;
}

int cuzk_snap_vanilla_of_entries(const uint8_t *data, size_t len,
                                 const struct cuzk_fc_registered *reg, struct cuzk_vanilla *v,
                                 char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    const struct cuzk_fc_profile *p = &reg->profile;
    struct cuzk_sdr_shape sh;
    if (reg->kind != CUZK_FC_SNAP || cuzk_sdr_shape_get(reg->sector_size, &sh) ||
        p->top_arity != sh.top_arity)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "vanilla_proofs: %s is no SnapDeals proof "
                         "with a circuit here",
                         reg->name);
    struct shape sr, sd;
    shape_r(p, &sh, &sr);
    shape_d(p, &sd);
    int rc = cuzk_vanilla_alloc(v, p, reg->partitions);
    if (rc)
        return cuzk_errf(err, errlen, rc, "vanilla_proofs: cannot hold %u partitions",
                         reg->partitions);
    const unsigned A = p->apex_leaves, c = p->challenges;
    cuzk_fr *dsibs = malloc((size_t)p->tree_d_levels * sizeof *dsibs);
    cuzk_fr *rows = malloc((size_t)2 * A * sizeof *rows);
    cuzk_fr *leaf_new = malloc((size_t)c * sizeof *leaf_new);
    uint64_t *idx = malloc((size_t)c * sizeof *idx), *chal = malloc((size_t)c * sizeof *chal);
    struct cuzk_bincode r = {.p = data, .n = len, .err = err, .errlen = errlen, .where = "entry 0"};
    struct sector_roots sec = {0};
    if (!dsibs || !rows || !leaf_new || !idx || !chal)
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "vanilla_proofs: out of memory");
    for (unsigned k = 0; k < reg->partitions && !rc; k++) {
        if (r.off == len) {
            rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                           "vanilla_proofs: %u PartitionProof entries; %s has %u partitions", k,
                           reg->name, reg->partitions);
            break;
        }
        rc = partition_of(&r, p, &sr, &sd, k, &v->parts[k].v.snap, &sec, dsibs, rows, leaf_new, idx,
                          chal);
    }
    if (!rc && r.off != len)
        rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                       "vanilla_proofs: %zu bytes after the %u PartitionProof entries of %s",
                       len - r.off, reg->partitions, reg->name);
    free(dsibs);
    free(rows);
    free(leaf_new);
    free(idx);
    free(chal);
    if (rc) cuzk_vanilla_free(v);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void put_u64(FILE *f, uint64_t x) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(x >> (8 * i));
    fwrite(b, 1, 8, f);
}

static void put_fr(FILE *f, const cuzk_fr *x) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    fwrite(b, 1, 32, f);
}

static void put_merkle(FILE *f, const struct shape *s, uint64_t node, const cuzk_fr *sibs,
                       const cuzk_fr *root, const cuzk_fr *leaf) {
    const uint8_t variant[4] = {(uint8_t)(s->n - 1), 0, 0, 0};
    fwrite(variant, 1, 4, f);
    if (s->n == 1) put_fr(f, root), put_fr(f, leaf);
    size_t off = 0; /* the level's first sibling */
    for (unsigned k = 0; k < s->n; k++) {
        const unsigned ar = s->arity[k];
        put_u64(f, s->levels[k]);
        for (unsigned l = 0; l < s->levels[k]; l++, off += ar - 1) {
            put_u64(f, ar - 1);
            for (unsigned q = 0; q < ar - 1; q++) put_fr(f, &sibs[off + q]);
            put_u64(f, node % ar);
            node /= ar;
        }
    }
    if (s->n > 1) put_fr(f, root), put_fr(f, leaf);
}

int cuzk_snap_entry_write(const struct cuzk_vanilla *v, const struct cuzk_fc_registered *reg,
                          uint32_t part, uint8_t **out, size_t *len) {
    *out = NULL;
    *len = 0;
    const struct cuzk_fc_profile *p = &v->profile;
    struct cuzk_sdr_shape sh;
    if (reg->kind != CUZK_FC_SNAP || strcmp(p->name, reg->profile.name) || part >= v->n_parts ||
        cuzk_sdr_shape_get(reg->sector_size, &sh) || p->top_arity != sh.top_arity)
        return CUZK_EINVAL;
    struct shape sr, sd;
    shape_r(p, &sh, &sr);
    shape_d(p, &sd);
    const struct cuzk_fc_snap_vanilla *sv = &v->parts[part].v.snap;
    const unsigned D = p->tree_d_levels, A = p->apex_leaves, P = p->partition_bits;
    unsigned abits = 0;
    while ((1u << abits) < A) abits++;
    const unsigned below = D - P - abits;
    cuzk_fr *rows = malloc((size_t)2 * A * sizeof *rows);
    cuzk_fr *dsibs = malloc((size_t)D * sizeof *dsibs);
    uint64_t *chal = malloc((size_t)p->challenges * sizeof *chal);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = rows && dsibs && chal ? open_memstream(&buf, &n) : NULL;
    int rc = f ? CUZK_OK : CUZK_ENOMEM;
    if (f) {
        apex_rows(sv->apex_leaves, A, rows);
        cuzk_vanilla_snap_challenges(p, &sv->comm_r_new, sv->k, chal);
        cuzk_fr phi, rho, leaf_new;
        cuzk_vanilla_snap_phi(&sv->comm_d_new, &sv->comm_r_old, &phi);
        const unsigned h = cuzk_vanilla_snap_h(p, sv->h_index);
        put_fr(f, &sv->comm_c);
        put_u64(f, A);
        for (unsigned i = 0; i < A; i++) put_fr(f, &sv->apex_leaves[i]);
        put_u64(f, p->challenges);
        for (unsigned j = 0; j < p->challenges; j++) {
            const struct cuzk_fc_snap_challenge *ch = &sv->challenges[j];
            const uint64_t x = chal[j];
            memcpy(dsibs, ch->path_d_to_apex, (size_t)below * sizeof *dsibs);
            for (unsigned l = 0; l < abits; l++)
                dsibs[below + l] = *apex_sibling(rows, A, l, (x >> below) & (A - 1));
            memcpy(dsibs + below + abits, sv->partition_path, (size_t)P * sizeof *dsibs);
            cuzk_vanilla_snap_rho(&phi, x >> (D - h), &rho);
            cuzk_fr_mul(&leaf_new, &ch->leaf_d_new, &rho);
            cuzk_fr_add(&leaf_new, &leaf_new, &ch->leaf_r_old);
            put_merkle(f, &sr, x, ch->path_r_old, &sv->root_r_old, &ch->leaf_r_old);
            put_merkle(f, &sd, x, dsibs, &sv->comm_d_new, &ch->leaf_d_new);
            put_merkle(f, &sr, x, ch->path_r_new, &sv->root_r_new, &leaf_new);
        }
        const int bad = ferror(f);
        if (fclose(f) || bad) rc = CUZK_ENOMEM;
    }
    free(rows);
    free(dsibs);
    free(chal);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = (uint8_t *)buf;
    *len = n;
    return CUZK_OK;
}
