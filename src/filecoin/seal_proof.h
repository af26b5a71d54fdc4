/* The PoRep vanilla proofs of a real sealed sector, made natively as a sealer's commit phase 1
 * makes them (rust-fil-proofs stacked vanilla prove), for sectors small enough to hold in
 * memory (filecoin/sdr.h: up to CUZK_SDR_MAX_SECTOR_BYTES, trees 8-0-0: 2 KiB and 8 MiB).
 *
 * From the sector's pre-seal inputs (struct cuzk_sdr_sector) and its replica: the replica id,
 * the graph's parents, the labels of every layer, the data (replica minus the last layer's
 * labels), tree D over the data (it must give the sector's comm_d: a replica sealed from other
 * inputs is refused), tree C over the column hashes, tree R over the replica, comm_r; then, for
 * each partition k, the interactive challenges of the seed (filecoin/challenges.h) and per
 * challenge what the circuit consumes (circuits/filecoin.h): its data leaf and tree-D path,
 * the columns of its 6 DRG and 8 expander parents with their tree-C paths, its tree-R and
 * tree-C paths. The result is a cuzk vanilla file's content (filecoin/vanilla.h) whose public
 * inputs are the sector's real replica_id, comm_d and comm_r and whose challenges and parents
 * are the real ones.
 * Thread-safety: reentrant; no shared state. */
#ifndef CUZK_FILECOIN_SEAL_PROOF_H
#define CUZK_FILECOIN_SEAL_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/filecoin.h"
#include "filecoin/sdr.h"
#include "filecoin/vanilla.h"

/* partitions partitions of profile p (its layers and tree levels must be the sector's shape)
 * for the replica replica[0 .. len) of sector s: challenged by the interactive seed, or when
 * seed is NULL by the non-interactive rule (from comm_r; filecoin/challenges.h). v is allocated
 * here (cuzk_vanilla_free) and zeroed on error. Returns CUZK_OK; CUZK_EINVAL (a profile or length
 * that is not the sector's, comm_d of the data that is not s->comm_d); CUZK_EUNSUPPORTED (a
 * sector above CUZK_SDR_MAX_SECTOR_BYTES or with a tree other than 8-0-0); CUZK_ENONCANON (a
 * replica node >= r); CUZK_ENOMEM; each with a sentence. */
int cuzk_seal_vanilla_make(const struct cuzk_sdr_sector *s, const uint8_t *replica, size_t len,
                           const uint8_t seed[32], const struct cuzk_fc_profile *p,
                           uint32_t partitions, struct cuzk_vanilla *v, char *err, size_t errlen);

#endif
