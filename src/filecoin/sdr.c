/* A sealed sector's commitments (contract: sdr.h). */
#include "filecoin/sdr.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/filecoin.h"
#include "circuits/merkle.h"
#include "circuits/poseidon.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"
#include "filecoin/vanilla.h"

#define LABEL_PREFIX_BYTES 64 /* replica_id, layer, node, zero padding */

static const struct cuzk_sdr_shape shapes[] = {
    {2ull << 10, (2ull << 10) / 32, 2, 0, 0},     {4ull << 10, (4ull << 10) / 32, 2, 2, 0},
    {16ull << 10, (16ull << 10) / 32, 2, 8, 0},   {32ull << 10, (32ull << 10) / 32, 2, 8, 2},
    {8ull << 20, (8ull << 20) / 32, 2, 0, 0},     {16ull << 20, (16ull << 20) / 32, 2, 2, 0},
    {512ull << 20, (512ull << 20) / 32, 2, 0, 0}, {1ull << 30, (1ull << 30) / 32, 2, 2, 0},
    {32ull << 30, (32ull << 30) / 32, 11, 8, 0},  {64ull << 30, (64ull << 30) / 32, 11, 8, 2},
};

int cuzk_sdr_shape_get(uint64_t sector_size, struct cuzk_sdr_shape *out) {
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (shapes[i].sector_size == sector_size) {
            *out = shapes[i];
            return CUZK_OK;
        }
    return CUZK_EUNSUPPORTED;
}

void cuzk_sdr_replica_id(const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                         const uint8_t comm_d[32], const uint8_t porep_id[32], cuzk_fr *out) {
    uint8_t msg[32 + 8 + 32 + 32 + 32], h[32];
    memcpy(msg, prover_id, 32);
    for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    cuzk_sha256_fr32(h, msg, sizeof msg);
    cuzk_fr_from_bytes_le(out, h); /* below 2^254: canonical */
}

/* ---- labels ------------------------------------------------------------------------------ */

/* Node 0 has no parents hashed: its label is the digest of the prefix alone. */
static void label_node0(cuzk_fr *out, const cuzk_fr *replica_id, uint32_t layer) {
    uint8_t msg[LABEL_PREFIX_BYTES] = {0}, h[32];
    cuzk_fr_to_bytes_le(msg, replica_id);
    for (int i = 0; i < 4; i++) msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    cuzk_sha256_fr32(h, msg, sizeof msg);
    cuzk_fr_from_bytes_le(out, h);
}

int cuzk_sdr_labels(const struct cuzk_graph *g, const cuzk_fr *replica_id, unsigned layers,
                    cuzk_fr *labels) {
    if (layers == 0) return CUZK_EINVAL;
    const uint64_t n = g->nodes;
    uint32_t *cache = malloc(n * CUZK_GRAPH_PARENTS * sizeof *cache);
    if (!cache) return CUZK_ENOMEM;
    for (uint64_t v = 0; v < n; v++)
        cuzk_graph_parents(g, (uint32_t)v, cache + v * CUZK_GRAPH_PARENTS);
    cuzk_fr in[CUZK_FC_TOTAL_PARENTS];
    for (unsigned layer = 1; layer <= layers; layer++) {
        cuzk_fr *cur = labels + (uint64_t)(layer - 1) * n;
        const cuzk_fr *prev = cur - n; /* read only from layer 2 on */
        label_node0(&cur[0], replica_id, layer);
        /* layer 1 cycles the 6 DRG parents, later layers all 14 (the expander ones in the
         * layer before) */
        const unsigned deg = layer == 1 ? CUZK_GRAPH_DRG_PARENTS : CUZK_GRAPH_PARENTS;
        for (uint64_t v = 1; v < n; v++) {
            const uint32_t *p = cache + v * CUZK_GRAPH_PARENTS;
            for (unsigned k = 0; k < CUZK_FC_TOTAL_PARENTS; k++) {
                unsigned q = k % deg;
                in[k] = q < CUZK_GRAPH_DRG_PARENTS ? cur[p[q]] : prev[p[q]];
            }
            cuzk_fc_label_native(&cur[v], replica_id, layer, v, in);
        }
    }
    free(cache);
    return CUZK_OK;
}

/* ---- trees ------------------------------------------------------------------------------- */

/* Reduces v[0 .. n) (a power of arity) in place to its root, v[0]. */
static void reduce(enum cuzk_merkle_hash hash, unsigned arity, cuzk_fr *v, uint64_t n) {
    for (; n > 1; n /= arity)
        for (uint64_t i = 0; i < n / arity; i++) {
            /* parent i is written below its children, which are read first */
            if (hash == CUZK_MERKLE_SHA256)
                cuzk_sha256_node_fr(&v[i], &v[2 * i], &v[2 * i + 1]);
            else
                cuzk_poseidon_hash_merkle((int)arity, &v[i * arity], &v[i]);
        }
}

static int is_power(uint64_t n, unsigned arity) {
    while (n > 1 && n % arity == 0) n /= arity;
    return n == 1;
}

int cuzk_sdr_comm_d(const cuzk_fr *data, uint64_t nodes, cuzk_fr *root) {
    if (nodes == 0 || !is_power(nodes, 2)) return CUZK_EINVAL;
    cuzk_fr *v = malloc(nodes * sizeof *v);
    if (!v) return CUZK_ENOMEM;
    memcpy(v, data, nodes * sizeof *v);
    reduce(CUZK_MERKLE_SHA256, 2, v, nodes);
    *root = v[0];
    free(v);
    return CUZK_OK;
}

int cuzk_sdr_tree_root(const struct cuzk_sdr_shape *s, const cuzk_fr *leaves, cuzk_fr *root) {
    const unsigned sub = s->sub_arity ? s->sub_arity : 1, top = s->top_arity ? s->top_arity : 1;
    const uint64_t bases = (uint64_t)sub * top, per_base = s->nodes / bases;
    if (per_base == 0 || per_base * bases != s->nodes || !is_power(per_base, 8) ||
        (sub > 1 && !cuzk_poseidon_arity_ok((int)sub)) ||
        (top > 1 && !cuzk_poseidon_arity_ok((int)top)))
        return CUZK_EINVAL;
    cuzk_fr *v = malloc(s->nodes * sizeof *v);
    if (!v) return CUZK_ENOMEM;
    memcpy(v, leaves, s->nodes * sizeof *v);
    for (uint64_t b = 0; b < bases; b++) {
        reduce(CUZK_MERKLE_POSEIDON, 8, v + b * per_base, per_base);
        v[b] = v[b * per_base];
    }
    if (sub > 1)
        for (unsigned t = 0; t < top; t++) reduce(CUZK_MERKLE_POSEIDON, sub, v + t * sub, sub);
    for (unsigned t = 0; t < top; t++) v[t] = v[t * sub];
    if (top > 1) reduce(CUZK_MERKLE_POSEIDON, top, v, top);
    *root = v[0];
    free(v);
    return CUZK_OK;
}

int cuzk_sdr_comm_c(const struct cuzk_sdr_shape *s, const cuzk_fr *labels, cuzk_fr *comm_c) {
    const unsigned L = s->layers;
    if (!cuzk_poseidon_arity_ok((int)L)) return CUZK_EUNSUPPORTED;
    cuzk_fr *cols = malloc(s->nodes * sizeof *cols), col[CUZK_POSEIDON_MAX_ARITY];
    if (!cols) return CUZK_ENOMEM;
    for (uint64_t v = 0; v < s->nodes; v++) {
        for (unsigned l = 0; l < L; l++) col[l] = labels[(uint64_t)l * s->nodes + v];
        cuzk_poseidon_hash_merkle((int)L, col, &cols[v]);
    }
    int rc = cuzk_sdr_tree_root(s, cols, comm_c);
    free(cols);
    return rc;
}

/* ---- a replica's commitments -------------------------------------------------------------- */

/* n nodes of 32 bytes into field elements; CUZK_ENONCANON names the first node >= r. */
static int nodes_in(const char *what, const uint8_t *b, uint64_t n, cuzk_fr *out, char *err,
                    size_t errlen) {
    for (uint64_t v = 0; v < n; v++)
        if (cuzk_fr_from_bytes_le(&out[v], b + v * CUZK_SDR_NODE_BYTES))
            return cuzk_errf(err, errlen, CUZK_ENONCANON,
                             "%s node %llu is not a field element (>= r)", what,
                             (unsigned long long)v);
    return CUZK_OK;
}

int cuzk_sdr_commit_replica(const struct cuzk_sdr_sector *s, const uint8_t *replica, size_t len,
                            const uint8_t *data, struct cuzk_sdr_commit *out, char *err,
                            size_t errlen) {
    struct cuzk_sdr_shape sh;
    struct cuzk_graph g;
    if (err && errlen) err[0] = 0;
    if (cuzk_sdr_shape_get(s->sector_size, &sh))
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED, "%llu bytes is not a sector size",
                         (unsigned long long)s->sector_size);
    if (sh.sector_size > CUZK_SDR_MAX_SECTOR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "a %llu-byte sector is too large to seal in memory (at most %llu)",
                         (unsigned long long)sh.sector_size,
                         (unsigned long long)CUZK_SDR_MAX_SECTOR_BYTES);
    if (len != sh.sector_size)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "the replica has %zu bytes, the sector %llu",
                         len, (unsigned long long)sh.sector_size);
    if (cuzk_graph_init(&g, sh.nodes, s->porep_id, s->api))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "bad api version %d", (int)s->api);
    const uint64_t n = sh.nodes;
    cuzk_fr *labels = malloc(n * sh.layers * sizeof *labels);
    cuzk_fr *rep = malloc(n * sizeof *rep), *dat = malloc(n * sizeof *dat);
    int rc = CUZK_ENOMEM;
    if (!labels || !rep || !dat) goto out;
    if ((rc = nodes_in("replica", replica, n, rep, err, errlen))) goto out;
    if (data && (rc = nodes_in("data", data, n, dat, err, errlen))) goto out;

    cuzk_sdr_replica_id(s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id,
                        &out->replica_id);
    if ((rc = cuzk_sdr_labels(&g, &out->replica_id, sh.layers, labels)) ||
        (rc = cuzk_sdr_comm_c(&sh, labels, &out->comm_c)) ||
        (rc = cuzk_sdr_tree_root(&sh, rep, &out->comm_r_last)))
        goto out;
    cuzk_vanilla_comm_r(&out->comm_c, &out->comm_r_last, &out->comm_r);
    if (!data) {
        const cuzk_fr *last = labels + (uint64_t)(sh.layers - 1) * n;
        for (uint64_t v = 0; v < n; v++) cuzk_fr_sub(&dat[v], &rep[v], &last[v]);
    }
    rc = cuzk_sdr_comm_d(dat, n, &out->comm_d_of_data);
out:
    if (rc == CUZK_ENOMEM)
        cuzk_errf(err, errlen, rc, "out of memory for a %llu-byte sector",
                  (unsigned long long)sh.sector_size);
    else if (rc && err && errlen && !err[0])
        cuzk_errf(err, errlen, rc, "%s", cuzk_strerror(rc));
    free(labels);
    free(rep);
    free(dat);
    return rc;
}

int cuzk_sdr_seal_cc(struct cuzk_sdr_sector *s, uint8_t *replica, char *err, size_t errlen) {
    struct cuzk_sdr_shape sh;
    struct cuzk_graph g;
    if (cuzk_sdr_shape_get(s->sector_size, &sh) || sh.sector_size > CUZK_SDR_MAX_SECTOR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "%llu bytes: not a sector size sealed in memory here (at most %llu)",
                         (unsigned long long)s->sector_size,
                         (unsigned long long)CUZK_SDR_MAX_SECTOR_BYTES);
    if (cuzk_graph_init(&g, sh.nodes, s->porep_id, s->api))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "bad api version %d", (int)s->api);
    const uint64_t n = sh.nodes;
    cuzk_fr *labels = malloc(n * sh.layers * sizeof *labels), *zero = calloc(n, sizeof *zero);
    cuzk_fr comm_d, rid;
    int rc = labels && zero ? cuzk_sdr_comm_d(zero, n, &comm_d) : CUZK_ENOMEM;
    if (!rc) {
        cuzk_fr_to_bytes_le(s->comm_d, &comm_d);
        cuzk_sdr_replica_id(s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id, &rid);
        rc = cuzk_sdr_labels(&g, &rid, sh.layers, labels);
    }
    if (!rc) { /* data 0: each replica node is its last-layer label */
        const cuzk_fr *last = labels + (uint64_t)(sh.layers - 1) * n;
        for (uint64_t v = 0; v < n; v++) cuzk_fr_to_bytes_le(replica + 32 * v, &last[v]);
    }
    free(labels);
    free(zero);
    if (rc)
        cuzk_errf(err, errlen, rc, "sealing a %llu-byte sector: %s",
                  (unsigned long long)sh.sector_size, cuzk_strerror(rc));
    return rc;
}
