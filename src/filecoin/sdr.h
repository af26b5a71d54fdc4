/* A sealed sector's commitments, natively, as rust-fil-proofs computes them (StackedDrg,
 * filecoin-proofs seal): the replica id, the SDR labels of every layer, comm_d, tree C, tree R
 * and comm_r, for sectors small enough to hold in memory. This is what lets cuzk check a real
 * replica (tests/data/realdata, `cuzk-bench sector-commit`) rather than only synthetic ones.
 *
 * The rules (field elements are 32 bytes little-endian, "Fr32" digests have the top two bits
 * of byte 31 cleared so that they are below 2^254 < r):
 *   replica_id = Fr32 sha256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id);
 *   label(layer, v) = Fr32 sha256(replica_id || layer u32 BE || v u64 BE || 20 zero bytes ||
 *       37 parent labels), the parents cycled (layer 1: the 6 DRG parents of v in layer 1;
 *       later layers: the 6 DRG parents in the same layer, then the 8 expander parents in the
 *       layer before; filecoin/graph.h); node 0 hashes the 64-byte prefix alone;
 *   replica node v = data node v + label(L, v) in Fr (the encoding);
 *   comm_d = the binary tree of the data nodes, node hash Fr32 sha256(left || right);
 *   tree C = Poseidon (Merkle tag, arity L) of each node's column (label(1, v) .. label(L, v)),
 *       then the tree R shape over those column hashes; comm_c its root;
 *   tree R = the sector shape's Poseidon tree over the replica nodes: base 8-ary trees over
 *       nodes / (sub top) consecutive leaves each, then an arity-`sub` level, then an
 *       arity-`top` level (0 = absent: 8-0-0, 8-2-0, 8-8-0, 8-8-2); comm_r_last its root;
 *   comm_r = Poseidon-2 (Merkle tag) of (comm_c, comm_r_last).
 * The node hash of circuits/sha256.h, the labelling function of circuits/filecoin.h
 * (cuzk_fc_label_native), the Poseidon of circuits/poseidon.h and comm_r of filecoin/vanilla.h
 * are the ones used here.
 * Thread-safety: reentrant; no shared state. */
#ifndef CUZK_FILECOIN_SDR_H
#define CUZK_FILECOIN_SDR_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "filecoin/graph.h"

#define CUZK_SDR_NODE_BYTES 32
/* The largest sector cuzk_sdr_commit_replica takes: an 8 MiB sector (2 layers) needs about
 * 60 MiB (labels, parent cache, replica, data, tree scratch) and 20 s of one core; 512 MiB
 * would need 4 GiB and half an hour. */
#define CUZK_SDR_MAX_SECTOR_BYTES (8ull << 20)

/* The shape of one of Filecoin's sector sizes (filecoin-proofs constants.rs). */
struct cuzk_sdr_shape {
    uint64_t sector_size;
    uint64_t nodes;
    unsigned layers;
    unsigned sub_arity, top_arity; /* tree R / C above the 8-ary base trees; 0 = none */
};

/* The shape of sector_size (2 KiB, 4 KiB, 16 KiB, 32 KiB, 8 MiB, 16 MiB, 512 MiB, 1 GiB,
 * 32 GiB, 64 GiB). Returns CUZK_OK or CUZK_EUNSUPPORTED (another size). */
int cuzk_sdr_shape_get(uint64_t sector_size, struct cuzk_sdr_shape *out);

void cuzk_sdr_replica_id(const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                         const uint8_t comm_d[32], const uint8_t porep_id[32], cuzk_fr *out);

/* Every label of a sector of g->nodes nodes: labels[(layer - 1) g->nodes + v] for layers
 * 1 .. layers. Returns CUZK_OK, CUZK_EINVAL (layers 0) or CUZK_ENOMEM (the parent cache, 56
 * bytes a node, is held while it runs). */
int cuzk_sdr_labels(const struct cuzk_graph *g, const cuzk_fr *replica_id, unsigned layers,
                    cuzk_fr *labels);

/* The root of a complete binary tree with Fr32 SHA-256 nodes over nodes leaves (a power of
 * two) and the root of the shape's Poseidon tree over its nodes leaves. Return CUZK_OK,
 * CUZK_EINVAL (a leaf count that does not fit the tree) or CUZK_ENOMEM. */
int cuzk_sdr_comm_d(const cuzk_fr *data, uint64_t nodes, cuzk_fr *root);
int cuzk_sdr_tree_root(const struct cuzk_sdr_shape *s, const cuzk_fr *leaves, cuzk_fr *root);
/* comm_c from the labels of cuzk_sdr_labels (s->layers layers of s->nodes). Returns as
 * cuzk_sdr_tree_root, or CUZK_EUNSUPPORTED when Poseidon has no arity s->layers. */
int cuzk_sdr_comm_c(const struct cuzk_sdr_shape *s, const cuzk_fr *labels, cuzk_fr *comm_c);

/* ---- a replica's commitments -------------------------------------------------------------- */

/* What a sector was sealed from (the pre-seal inputs of lotus / venus). */
struct cuzk_sdr_sector {
    uint64_t sector_size;
    enum cuzk_api api;
    uint64_t sector_id;
    uint8_t porep_id[32], prover_id[32], ticket[32];
    uint8_t comm_d[32]; /* the claimed comm_d: it enters the replica id */
};

struct cuzk_sdr_commit {
    cuzk_fr replica_id, comm_c, comm_r_last, comm_r;
    cuzk_fr comm_d_of_data; /* comm_d of the unsealed data: replica - last labels, or data */
};

/* Recomputes the commitments of the replica replica[0 .. len) (len = the sector size) sealed
 * from s: the labels from the replica id, tree C from the labels, tree R from the replica, and
 * comm_d of the data (the replica minus the last layer's labels, or data[0 .. len) when data
 * is not NULL). A replica sealed from s has comm_d_of_data = s->comm_d; compare them. Returns
 * CUZK_OK; CUZK_EUNSUPPORTED (a size that is not a sector size, or one above
 * CUZK_SDR_MAX_SECTOR_BYTES); CUZK_EINVAL (len is not the sector size); CUZK_ENONCANON (a
 * replica or data node >= r); CUZK_ENOMEM; each with a sentence in err. */
int cuzk_sdr_commit_replica(const struct cuzk_sdr_sector *s, const uint8_t *replica, size_t len,
                            const uint8_t *data, struct cuzk_sdr_commit *out, char *err,
                            size_t errlen);

/* Seals a committed-capacity sector (every data node zero) of s in memory, as lotus seals one:
 * sets s->comm_d to comm_d of the zero data, then writes the replica, the last layer's labels,
 * to replica[0 .. s->sector_size). A test sector of any porep_id (a non-interactive one too).
 * Returns as cuzk_sdr_commit_replica. */
int cuzk_sdr_seal_cc(struct cuzk_sdr_sector *s, uint8_t *replica, char *err, size_t errlen);

#endif
