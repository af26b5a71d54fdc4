/* Vanilla proofs, the consistency checks (filecoin/vanilla.h, cuzk_vanilla_check_part):
 * everything a partition's circuit would enforce, checked natively, so that a partition that
 * passes makes its circuit satisfied. */
#include "filecoin/vanilla_impl.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/merkle.h"
#include "circuits/poseidon.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"

/* ---- consistency ------------------------------------------------------------------------ */

/* The root of a binary SHA-256 path of `levels` levels. */
static void sha_root(unsigned levels, const cuzk_fr *leaf, const cuzk_fr *sibs, uint64_t index,
                     cuzk_fr *root) {
    const struct cuzk_merkle_shape s = {CUZK_MERKLE_SHA256, 2, levels, 0, 0};
    cuzk_merkle_root_native(&s, leaf, sibs, index, root);
}

/* The root of a tree C/R path of p's shape. */
static void tree_r_root(const struct cuzk_fc_profile *p, const cuzk_fr *leaf, const cuzk_fr *sibs,
                        uint64_t index, cuzk_fr *root) {
    struct cuzk_merkle_shape s;
    cuzk_fc_tree_r_shape(p, &s);
    cuzk_merkle_root_native(&s, leaf, sibs, index, root);
}

static int same(const cuzk_fr *a, const cuzk_fr *b) { return cuzk_fr_eq(a, b); }

/* A sector commitment of partition `part` (a) and the same one of partition 0 (b). */
struct shared_fr {
    const char *name;
    const cuzk_fr *a, *b;
};

/* Every partition of a job proves one sector: its commitments are partition 0's. */
static int check_shared(const struct shared_fr *s, size_t n, uint32_t part, char *err,
                        size_t errlen) {
    for (size_t i = 0; i < n; i++)
        if (!same(s[i].a, s[i].b))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u: %s differs from partition 0's (a job proves one "
                "sector)",
                part, s[i].name);
    return CUZK_OK;
}

static int check_porep(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_porep_vanilla *v = &vs->parts[part].v.porep, *v0 = &vs->parts[0].v.porep;
    const unsigned L = p->layers, D = p->tree_d_levels, R = cuzk_fc_tree_r_siblings(p);
    const struct shared_fr shared[] = {{"replica_id", &v->replica_id, &v0->replica_id},
                                       {"comm_d", &v->comm_d, &v0->comm_d},
                                       {"comm_r", &v->comm_r, &v0->comm_r},
                                       {"comm_c", &v->comm_c, &v0->comm_c},
                                       {"comm_r_last", &v->comm_r_last, &v0->comm_r_last}};
    int rc = check_shared(shared, sizeof shared / sizeof shared[0], part, err, errlen);
    if (rc) return rc;
    cuzk_fr t, h;
    cuzk_vanilla_comm_r(&v->comm_c, &v->comm_r_last, &t);
    if (!same(&t, &v->comm_r))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r is not H(comm_c, comm_r_last)", part);
    cuzk_fr labels[CUZK_POSEIDON_MAX_ARITY];
    for (unsigned j = 0; j < p->challenges; j++) {
        const struct cuzk_fc_porep_challenge *ch = &v->challenges[j];
        const unsigned long long node = (unsigned long long)ch->challenge;
        sha_root(D, &ch->data_leaf, ch->tree_d_path, ch->challenge, &t);
        if (!same(&t, &v->comm_d))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, challenge %u (node %llu): the tree-D path does "
                "not reach comm_d",
                part, j, node);
        for (unsigned q = 0; q < POREP_PARENTS; q++) {
            cuzk_poseidon_hash_merkle((int)L, ch->parent_columns + (size_t)q * L, &h);
            tree_r_root(p, &h, ch->parent_paths + (size_t)q * R, ch->parents[q], &t);
            if (!same(&t, &v->comm_c))
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "vanilla: partition %u, challenge %u (node %llu): parent %u's "
                                 "column does not reach comm_c",
                                 part, j, node, q);
        }
        cuzk_vanilla_porep_labels(p, &v->replica_id, ch->challenge, ch->parent_columns, labels);
        cuzk_fr_add(&h, &labels[L - 1], &ch->data_leaf);
        tree_r_root(p, &h, ch->tree_r_path, ch->challenge, &t);
        if (!same(&t, &v->comm_r_last))
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "vanilla: partition %u, challenge %u (node %llu): the encoded node "
                             "(last label + data) does not reach comm_r_last",
                             part, j, node);
        cuzk_poseidon_hash_merkle((int)L, labels, &h);
        tree_r_root(p, &h, ch->tree_c_path, ch->challenge, &t);
        if (!same(&t, &v->comm_c))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, challenge %u (node %llu): the column of labels "
                "derived from the parents does not reach comm_c",
                part, j, node);
    }
    return CUZK_OK;
}

static int check_snap(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_snap_vanilla *v = &vs->parts[part].v.snap, *v0 = &vs->parts[0].v.snap;
    const unsigned D = p->tree_d_levels, A = p->apex_leaves;
    const unsigned below = snap_below_apex(p);
    const struct shared_fr shared[] = {{"comm_r_old", &v->comm_r_old, &v0->comm_r_old},
                                       {"comm_d_new", &v->comm_d_new, &v0->comm_d_new},
                                       {"comm_r_new", &v->comm_r_new, &v0->comm_r_new},
                                       {"comm_c", &v->comm_c, &v0->comm_c},
                                       {"root_r_old", &v->root_r_old, &v0->root_r_old},
                                       {"root_r_new", &v->root_r_new, &v0->root_r_new}};
    int rc = check_shared(shared, sizeof shared / sizeof shared[0], part, err, errlen);
    if (rc) return rc;
    if (v->h_index != v0->h_index)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: h index differs from partition 0's", part);
    cuzk_fr t;
    cuzk_vanilla_comm_r(&v->comm_c, &v->root_r_old, &t);
    if (!same(&t, &v->comm_r_old))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r_old is not H(comm_c, root_r_old)", part);
    cuzk_vanilla_comm_r(&v->comm_c, &v->root_r_new, &t);
    if (!same(&t, &v->comm_r_new))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r_new is not H(comm_c, root_r_new)", part);
    /* the apex tree, then its root up the partition path */
    cuzk_fr *row = malloc((size_t)A * sizeof *row);
    uint64_t *chal = malloc((size_t)p->challenges * sizeof *chal);
    if (!row || !chal) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "vanilla: out of memory");
        goto out;
    }
    memcpy(row, v->apex_leaves, (size_t)A * sizeof *row);
    for (unsigned n = A; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++)
            cuzk_sha256_node_fr(&row[i], &row[2 * i], &row[2 * i + 1]);
    sha_root(p->partition_bits, &row[0], v->partition_path, v->k, &t);
    if (!same(&t, &v->comm_d_new)) {
        rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                       "vanilla: partition %u: the apex leaves and partition path do not reach "
                       "comm_d_new",
                       part);
        goto out;
    }
    cuzk_fr phi, rho, leaf_new;
    cuzk_vanilla_snap_phi(&v->comm_d_new, &v->comm_r_old, &phi);
    cuzk_vanilla_snap_challenges(p, &v->comm_r_new, v->k, chal);
    const unsigned h = cuzk_vanilla_snap_h(p, v->h_index);
    for (unsigned j = 0; j < p->challenges; j++) {
        const struct cuzk_fc_snap_challenge *ch = &v->challenges[j];
        const uint64_t x = chal[j];
        cuzk_vanilla_snap_rho(&phi, x >> (D - h), &rho);
        cuzk_fr_mul(&leaf_new, &ch->leaf_d_new, &rho);
        cuzk_fr_add(&leaf_new, &leaf_new, &ch->leaf_r_old);
        const char *what = NULL;
        tree_r_root(p, &ch->leaf_r_old, ch->path_r_old, x, &t);
        if (!same(&t, &v->root_r_old)) what = "the old replica path does not reach root_r_old";
        tree_r_root(p, &leaf_new, ch->path_r_new, x, &t);
        if (!what && !same(&t, &v->root_r_new))
            what = "the new replica node (old + data * rho) does not reach root_r_new";
        sha_root(below, &ch->leaf_d_new, ch->path_d_to_apex, x, &t);
        if (!what && !same(&t, &v->apex_leaves[(x >> below) & (A - 1)]))
            what = "the data path does not reach its apex leaf";
        if (what) {
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                           "vanilla: partition %u, challenge %u (node %llu): %s", part, j,
                           (unsigned long long)x, what);
            goto out;
        }
    }
out:
    free(row);
    free(chal);
    return rc;
}

static int check_post(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_post_vanilla *v = &vs->parts[part].v.post;
    const unsigned R = cuzk_fc_tree_r_siblings(p);
    cuzk_fr t;
    for (unsigned s = 0; s < p->sectors; s++) {
        const struct cuzk_fc_post_sector *sec = &v->sectors[s];
        cuzk_vanilla_comm_r(&sec->comm_c, &sec->comm_r_last, &t);
        if (!same(&t, &sec->comm_r))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, sector %u: comm_r is not H(comm_c, comm_r_last)", part, s);
        for (unsigned c = 0; c < p->challenges; c++) {
            tree_r_root(p, &sec->leaves[c], sec->paths + (size_t)c * R, sec->indices[c], &t);
            if (!same(&t, &sec->comm_r_last))
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "vanilla: partition %u, sector %u, challenge %u (leaf %llu): the "
                                 "path does not reach comm_r_last",
                                 part, s, c, (unsigned long long)sec->indices[c]);
        }
    }
    return CUZK_OK;
}

int cuzk_vanilla_check_part(const struct cuzk_vanilla *v, uint32_t part, char *err, size_t errlen) {
    if (part >= v->n_parts)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla: no partition %u (%u in all)", part,
                         v->n_parts);
    switch (v->profile.kind) {
    case CUZK_FC_POREP: return check_porep(v, part, err, errlen);
    case CUZK_FC_SNAP: return check_snap(v, part, err, errlen);
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: return check_post(v, part, err, errlen);
    }
    return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla: unknown kind");
}

int cuzk_vanilla_check(const struct cuzk_vanilla *v, char *err, size_t errlen) {
    for (uint32_t i = 0; i < v->n_parts; i++) {
        int rc = cuzk_vanilla_check_part(v, i, err, errlen);
        if (rc) return rc;
    }
    return CUZK_OK;
}
