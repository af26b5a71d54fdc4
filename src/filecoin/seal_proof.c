/* A real sealed sector's PoRep vanilla proofs (filecoin/seal_proof.h). */
#include "filecoin/seal_proof.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/poseidon.h"
#include "cuzk/error.h"
#include "filecoin/challenges.h"
#include "filecoin/graph.h"
#include "filecoin/stree.h"

static void zero_leaf(void *ctx, uint64_t region, cuzk_fr *leaf) {
    (void)ctx, (void)region;
    cuzk_fr_set_zero(leaf);
}

static unsigned log_base(uint64_t x, unsigned bits) { /* 0 when x is not a power of 2^bits */
    unsigned k = 0;
    while (x > 1 && (x & ((1ull << bits) - 1)) == 0) x >>= bits, k++;
    return x == 1 ? k : 0;
}

/* A complete tree over leaves[0 .. n) (n = arity^levels). */
static int full_tree(struct cuzk_stree *t, enum cuzk_merkle_hash hash, unsigned arity,
                     unsigned levels, const cuzk_fr *leaves, uint64_t n) {
    const struct cuzk_merkle_shape s = {hash, arity, levels, 0, 0};
    int rc = cuzk_stree_init(t, &s, cuzk_merkle_shape_bits(&s), zero_leaf, NULL);
    if (rc) return rc;
    for (uint64_t i = 0; i < n && !rc; i++) rc = cuzk_stree_set(t, i, &leaves[i]);
    if (!rc) rc = cuzk_stree_build(t);
    if (rc) cuzk_stree_free(t);
    return rc;
}

int cuzk_seal_vanilla_make(const struct cuzk_sdr_sector *s, const uint8_t *replica, size_t len,
                           const uint8_t seed[32], const struct cuzk_fc_profile *p,
                           uint32_t partitions, struct cuzk_vanilla *v, char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    struct cuzk_sdr_shape sh;
    if (cuzk_sdr_shape_get(s->sector_size, &sh))
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED, "%llu bytes is not a sector size",
                         (unsigned long long)s->sector_size);
    if (sh.sector_size > CUZK_SDR_MAX_SECTOR_BYTES || sh.sub_arity || sh.top_arity)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "%llu-byte sectors are not sealed in memory here (up to %llu bytes, "
                         "trees 8-0-0)",
                         (unsigned long long)sh.sector_size,
                         (unsigned long long)CUZK_SDR_MAX_SECTOR_BYTES);
    const uint64_t n = sh.nodes;
    const unsigned L = sh.layers, D = log_base(n, 1), R = log_base(n, 3);
    if (len != sh.sector_size)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "a replica of %zu bytes; the sector has %llu",
                         len, (unsigned long long)sh.sector_size);
    if (p->kind != CUZK_FC_POREP || p->layers != L || p->tree_d_levels != D ||
        p->tree_r_levels != R || !R)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "profile %s is not this sector's shape (%u layers, tree D %u levels, "
                         "trees C and R %u 8-ary levels)",
                         p->name, L, D, R);
    if (!cuzk_poseidon_arity_ok((int)L))
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED, "no column hash of arity %u", L);

    cuzk_fr *rep = malloc(n * sizeof *rep), *dat = malloc(n * sizeof *dat);
    cuzk_fr *cols = malloc(n * sizeof *cols), *labels = malloc(n * L * sizeof *labels);
    struct cuzk_stree td = {0}, tc = {0}, tr = {0};
    int have_d = 0, have_c = 0, have_r = 0;
    int rc = rep && dat && cols && labels ? CUZK_OK : CUZK_ENOMEM;
    for (uint64_t i = 0; i < n && !rc; i++)
        if (cuzk_fr_from_bytes_le(&rep[i], replica + 32 * i))
            rc = cuzk_errf(err, errlen, CUZK_ENONCANON, "replica node %llu is not a field element",
                           (unsigned long long)i);
    cuzk_fr rid;
    struct cuzk_graph g;
    if (!rc) {
        cuzk_sdr_replica_id(s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id, &rid);
        rc = cuzk_graph_init(&g, n, s->porep_id, s->api);
    }
    if (!rc) rc = cuzk_sdr_labels(&g, &rid, L, labels);
    if (!rc) {
        for (uint64_t i = 0; i < n; i++) {
            cuzk_fr_sub(&dat[i], &rep[i], &labels[(uint64_t)(L - 1) * n + i]);
            cuzk_fr col[CUZK_POSEIDON_MAX_ARITY];
            for (unsigned l = 0; l < L; l++) col[l] = labels[(uint64_t)l * n + i];
            cuzk_poseidon_hash_merkle((int)L, col, &cols[i]);
        }
        rc = full_tree(&td, CUZK_MERKLE_SHA256, 2, D, dat, n);
        have_d = !rc;
    }
    if (!rc) {
        uint8_t d[32];
        cuzk_fr_to_bytes_le(d, cuzk_stree_root(&td));
        if (memcmp(d, s->comm_d, 32))
            rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                           "the data the replica encodes does not have the sector's comm_d (a "
                           "replica sealed from other inputs)");
    }
    if (!rc) have_c = !(rc = full_tree(&tc, CUZK_MERKLE_POSEIDON, 8, R, cols, n));
    if (!rc) have_r = !(rc = full_tree(&tr, CUZK_MERKLE_POSEIDON, 8, R, rep, n));
    if (!rc) rc = cuzk_vanilla_alloc(v, p, partitions);
    uint64_t *ch = NULL;
    if (!rc && !(ch = malloc(p->challenges * sizeof *ch))) rc = CUZK_ENOMEM;
    for (uint32_t k = 0; k < partitions && !rc; k++) {
        struct cuzk_fc_porep_vanilla *pv = &v->parts[k].v.porep;
        pv->replica_id = rid;
        pv->comm_d = *cuzk_stree_root(&td);
        pv->comm_c = *cuzk_stree_root(&tc);
        pv->comm_r_last = *cuzk_stree_root(&tr);
        cuzk_vanilla_comm_r(&pv->comm_c, &pv->comm_r_last, &pv->comm_r);
        uint8_t rid_b[32];
        cuzk_fr_to_bytes_le(rid_b, &rid);
        if (seed) {
            cuzk_porep_challenges(rid_b, seed, n, p->challenges, k, ch);
        } else {
            uint8_t comm_r[32];
            cuzk_fr_to_bytes_le(comm_r, &pv->comm_r);
            cuzk_porep_ni_challenges(rid_b, comm_r, n, p->challenges, k, ch);
        }
        for (unsigned j = 0; j < p->challenges; j++) {
            struct cuzk_fc_porep_challenge *c =
                (struct cuzk_fc_porep_challenge *)&pv->challenges[j];
            const uint64_t x = ch[j];
            uint32_t par[CUZK_GRAPH_PARENTS];
            cuzk_graph_parents(&g, (uint32_t)x, par);
            c->challenge = x;
            c->data_leaf = dat[x];
            cuzk_stree_path(&td, x, 0, D, (cuzk_fr *)c->tree_d_path);
            cuzk_stree_path(&tr, x, 0, R, (cuzk_fr *)c->tree_r_path);
            cuzk_stree_path(&tc, x, 0, R, (cuzk_fr *)c->tree_c_path);
            for (unsigned q = 0; q < CUZK_GRAPH_PARENTS; q++) {
                c->parents[q] = par[q];
                cuzk_fr *column = (cuzk_fr *)c->parent_columns + (size_t)q * L;
                for (unsigned l = 0; l < L; l++) column[l] = labels[(uint64_t)l * n + par[q]];
                cuzk_stree_path(&tc, par[q], 0, R, (cuzk_fr *)c->parent_paths + (size_t)q * R * 7);
            }
        }
    }
    free(ch);
    if (have_d) cuzk_stree_free(&td);
    if (have_c) cuzk_stree_free(&tc);
    if (have_r) cuzk_stree_free(&tr);
    free(rep);
    free(dat);
    free(cols);
    free(labels);
    if (rc) {
        if (rc == CUZK_ENOMEM && err && errlen) cuzk_errf(err, errlen, rc, "out of memory");
        cuzk_vanilla_free(v);
    }
    return rc;
}
