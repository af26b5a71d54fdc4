/* SnapDeals vanilla proofs as Filecoin's clients send them: bincode `PartitionProof` entries
 * (storage-proofs-update vanilla.rs, serialised by bincode 1 with its default options: integers
 * little-endian, u64 lengths, u32 enum variants, 32-byte domain values as they are), one per
 * partition of the sector, in partition order. Curio sends them as
 * SubmitProofRequest.vanilla_proofs, which the daemon concatenates.
 *
 * An entry is
 *   comm_c [32], apex_leafs: u64 count then [32] each, challenge_proofs: u64 count, each
 *     proof_r_old  a MerkleProof of tree R old (Single, Sub or Top by the sector's tree shape:
 *                  8-0-0, 8-8-0, 8-8-2; as in filecoin/post_proof.h),
 *     proof_d_new  a MerkleProof of tree D new (Single, binary: one hash a level),
 *     proof_r_new  a MerkleProof of tree R new.
 *
 * To a job, cuzk_snap_vanilla_of_entries checks what upstream's verifier checks of the layout
 * and turns the entries into the vanilla set of the registered proof's profile (circuits/
 * filecoin.h): partition k is the k-th entry; every path position must be the digit of the
 * challenge that comm_r_new and k give (filecoin/challenges.h), every tree-R root the same,
 * every tree-D root the same (comm_d_new), the tree-D paths' apex part the apex tree's and their
 * part above it the same in a partition; comm_r_old = H(comm_c, root_r_old) and comm_r_new =
 * H(comm_c, root_r_new). The proofs do not carry h (a public input of upstream's verifier, the
 * circuit's h_select): it is the one of the six that the sector's encoding satisfies, every new
 * replica leaf being old + data · rho(phi, the challenge's top h bits); when no data leaf is
 * non-zero every h satisfies it and the first is taken. The paths are checked later, with the
 * rest (cuzk_vanilla_check_part).
 *
 * Every function is total on any bytes: CUZK_OK or an error with a sentence naming the entry,
 * the challenge proof and the field (CUZK_EFORMAT layout, CUZK_ENONCANON a value >= r,
 * CUZK_EINVAL a count, variant, position or root that does not match,
 * CUZK_ENOMEM). Thread-safety: reentrant. */
#ifndef CUZK_FILECOIN_SNAP_PROOF_H
#define CUZK_FILECOIN_SNAP_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registered.h"
#include "filecoin/vanilla.h"

/* The entries data[0 .. len) of a sector of the registered SnapDeals proof reg (reg.partitions
 * of them) into *v (zeroed first; free with cuzk_vanilla_free). */
int cuzk_snap_vanilla_of_entries(const uint8_t *data, size_t len,
                                 const struct cuzk_fc_registered *reg, struct cuzk_vanilla *v,
                                 char *err, size_t errlen);

/* Partition `part` of the SnapDeals set v (of reg's profile) as one bincode PartitionProof,
 * malloc'd into *out. CUZK_EINVAL (a set that is not of reg's profile, part out of range),
 * CUZK_ENOMEM. */
int cuzk_snap_entry_write(const struct cuzk_vanilla *v, const struct cuzk_fc_registered *reg,
                          uint32_t part, uint8_t **out, size_t *len);

#endif
