/* Synthetic sectors: vanilla proofs for any profile without sealing anything.
 *
 * A generator builds, from a seed, the part of a sector that a job's partitions look at, with
 * the real derivation rules where the circuit checks them, and sparse Merkle trees
 * (filecoin/stree.h) for the rest, so that every path of every partition reaches one set of
 * sector commitments:
 *   PoRep: a random replica_id; P x C distinct challenged nodes (never node 0), each with 14
 *          parents drawn from the other nodes (parents only reach the circuit as public
 *          inputs, so any deterministic choice is as good as the DRG); random parent columns
 *          (L labels each, shared when a node is the parent of several challenges); the
 *          challenged node's L labels computed from its parents with the real labelling rule;
 *          random data; encoded node = last label + data. Trees: D (binary SHA-256, data),
 *          C (8-ary Poseidon, column hashes), R (8-ary Poseidon, replica), untouched leaves a
 *          default value; comm_r = H(comm_c, comm_r_last). Partition i takes challenges
 *          i C .. i C + C - 1.
 *   Snap:  an "empty" old replica (default leaf) updated with default new data, plus a few
 *          random leaves per partition; tree R new follows leaf_r_new = leaf_r_old +
 *          leaf_d_new * rho(c_high), where rho depends on the top h bits of the node, so tree R
 *          new has one default per h-region (2^h regions); the challenges are then derived from
 *          comm_r_new exactly as the circuit does. Partition k (k < 2^p) has its apex leaves,
 *          partition path and challenges; all share the commitments. h index = seed mod 6.
 *   PoSt:  WindowPoSt: one tree R per sector, random challenged leaves; WinningPoSt: the S
 *          circuit sectors are one real sector (as upstream unrolls its 66 challenges), one tree
 *          per partition. comm_r = H(comm_c, comm_r_last) with a random comm_c.
 * The result passes cuzk_vanilla_check and satisfies the circuit. Deterministic in (profile,
 * partitions, seed). Thread-safety: reentrant. */
#ifndef CUZK_FILECOIN_SECTOR_H
#define CUZK_FILECOIN_SECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/vanilla.h"

/* Fills *out (free with cuzk_vanilla_free) with n_parts partitions of profile p. Returns CUZK_OK,
 * CUZK_EINVAL (too many partitions for the profile: PoRep needs P C + 2 <= nodes, Snap P <= 2^p)
 * or CUZK_ENOMEM, with a sentence in err. */
int cuzk_sector_generate(const struct cuzk_fc_profile *p, uint32_t n_parts, uint64_t seed,
                         struct cuzk_vanilla *out, char *err, size_t errlen);

/* The default partition count of a kind for generators: PoRep 2, Snap min(16, 2^p), PoSt 1. */
uint32_t cuzk_sector_default_partitions(const struct cuzk_fc_profile *p);

#endif
