/* PoRep commit-phase-1 outputs ("C1") as Filecoin's sealers hand them to a C2 prover: the JSON
 * that filecoin-proofs-api's SealCommitPhase1Output serialises to (serde_json), alone or in the
 * wrapper that lotus-bench and Curio send ({"SectorNum": n, "Phase1Out": "<base64 of that
 * JSON>", "SectorSize": bytes}, Go's encoding of its Commit2In struct).
 *
 * SealCommitPhase1Output (docs/filecoin.md has the whole layout):
 *   registered_proof  the RegisteredSealProof variant name ("StackedDrg32GiBV1_1");
 *   vanilla_proofs    {"StackedDrg<size>V1": [partition][challenge] proof} (the key names the
 *                     sector size only: V1 for every api version);
 *   comm_r, comm_d, replica_id, seed, ticket   32 numbers 0..255 each (serde's [u8; 32]; the
 *                     domain values are Fr little-endian);
 * and a proof is {comm_d_proofs, comm_r_last_proof, replica_column_proofs {c_x, drg_parents[6],
 * exp_parents[8]}, labeling_proofs[L], encoding_proof}, the Merkle proofs {"data": {"Single" |
 * "Sub" | "Top": {...}}} with paths {"path": [{"hashes": [siblings], "index": position}]},
 * columns {"index", "rows": [L labels], "_h": null}, labeling and encoding proofs {"parents":
 * [37], "layer_index", "node"}.
 *
 * What the circuit consumes becomes a cuzk vanilla set (filecoin/vanilla.h) of the registered
 * proof's profile (filecoin/registered.h): per challenge the challenged node (c_x's index), its
 * data leaf and tree-D path, its 14 parents (the columns' indices), their columns and tree-C
 * paths, its tree-R and tree-C paths; comm_c and comm_r_last are the roots of the tree-C and
 * tree-R proofs. Every position in every path must be the digit of its node's index, every
 * root the same across the sector, tree D's root comm_d. The leaves that the circuit derives
 * (c_x's column, the encoded node, the column hashes) and the labeling and encoding proofs are
 * read and their shapes checked, not their values: cuzk_vanilla_check_part later re-derives them
 * and checks every path against the roots, as the circuit will.
 *
 * The request's side (cuzk_c1_check): what filecoin-proofs' verifier derives from the miner, the
 * sector and the chain, checked against the C1 before a job is queued: the replica id from
 * prover_id (the miner's id), the sector number, the ticket, comm_d and the registered proof's
 * porep_id; each partition's challenges from the seed (interactive, or synthetic PoRep's
 * selection); each challenge's 14 parents from the sector's graph.
 *
 * Parsing is total on any bytes: CUZK_OK or an error with a sentence naming the field, the
 * partition and the challenge (CUZK_EFORMAT layout, CUZK_ENONCANON a value >= r, CUZK_EINVAL a
 * value or count that is not the registered proof's, CUZK_EUNSUPPORTED a registered proof with
 * no circuit here, CUZK_ENOMEM). Parsing holds the JSON document in memory while it runs, its
 * 32-byte arrays packed (c1.c): at its peak 3.2 bytes of heap per byte of a 2 KiB sector's bare
 * C1 and 3.0 per byte of a wrapped one (test_fc_real measures it; 12.4 and 10.9 with every
 * number a jansson value), and frees it before returning. Thread-safety: reentrant; a parsed C1
 * is read-only. */
#ifndef CUZK_FILECOIN_C1_H
#define CUZK_FILECOIN_C1_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registered.h"
#include "filecoin/vanilla.h"

struct cuzk_c1 {
    struct cuzk_fc_registered reg; /* from registered_proof */
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    int wrapped; /* it came in the {SectorNum, Phase1Out, SectorSize} wrapper */
    uint64_t sector_num, sector_size; /* the wrapper's (0 when not wrapped) */
    struct cuzk_vanilla v;            /* reg.partitions partitions of reg.profile */
};

/* Parses a C1, wrapped or not, into *c (zeroed first; free with cuzk_c1_free). */
int cuzk_c1_parse(const uint8_t *in, size_t len, struct cuzk_c1 *c, char *err, size_t errlen);
void cuzk_c1_free(struct cuzk_c1 *c);

/* The request's public values against the C1: sector_number (0 = take the wrapper's; a
 * non-zero one must be the wrapper's), then the replica id of miner_id's prover_id, that
 * sector, the ticket, comm_d and porep_id, then every partition's challenges from the seed and
 * every challenge's parents from the graph. CUZK_EINVAL with a sentence naming the field
 * ("replica_id", "seed", "parents", "sector_number") and the values; CUZK_ENOMEM. */
int cuzk_c1_check(const struct cuzk_c1 *c, uint64_t miner_id, uint64_t sector_number, char *err,
                  size_t errlen);

/* Writes the C1 of the vanilla set v (a PoRep set of reg's profile with reg.partitions
 * partitions, as filecoin/seal_proof.h makes them for a real sector), with its seed and ticket,
 * as SealCommitPhase1Output JSON (wrap = 0) or in the wrapper with sector_num (wrap = 1), as
 * rust-fil-proofs' prover writes it (the labeling and encoding proofs from the columns), into
 * *out (malloc'd, NUL-terminated, *len bytes without the NUL). CUZK_EINVAL (a set that is not
 * of reg's profile or partitions), CUZK_ENOMEM. */
int cuzk_c1_write(const struct cuzk_vanilla *v, const struct cuzk_fc_registered *reg,
                  const uint8_t seed[32], const uint8_t ticket[32], int wrap, uint64_t sector_num,
                  char **out, size_t *len, char *err, size_t errlen);

#endif
