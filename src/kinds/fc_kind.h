/* The four Filecoin proof kinds as engine kinds (engine/kind.h): "porep", "snap", "wpost" and
 * "winning" (the names of enum cuzk_fc_kind's profiles, circuits/filecoin.h).
 *
 * A request's input is a vanilla-proof file (filecoin/vanilla.h) given as witness bytes or a
 * witness path (the daemon passes SubmitProofRequest.vanilla_proof, or the vanilla_proofs
 * entries concatenated). The file names its profile (e.g. "porep-c1-l2-d3-r1") and holds the
 * job's partitions. The PoSt kinds also take what Filecoin's clients send: witness bytes that
 * are bincode FallbackPoStSectorProof entries (filecoin/post_proof.h) with the request's
 * struct cuzk_fc_args (below), which select the profile and check the challenges; the PoRep kind
 * takes JSON input as a commit-phase-1 output (filecoin/c1.h: SealCommitPhase1Output, or
 * Curio's {SectorNum, Phase1Out, SectorSize} wrapper), whose replica id, challenges and parents
 * are checked against the request's miner_id, sector_number and registered_proof; the snap kind
 * takes bincode PartitionProof entries (filecoin/snap_proof.h), one per partition, of the
 * request's registered_proof. The request's
 * circuit id may be empty; when given it must name the same profile. The key id is the canonical
 * profile name: jobs of one profile share one key.
 *
 *   submit      the file is parsed and structurally validated (cuzk_vanilla_parse); a bad
 *               file is refused with its error (CUZK_EFORMAT, CUZK_ENONCANON, ...) and a
 *               sentence; a file of another kind's profile is CUZK_EINVAL;
 *   synthesis   of partition i: the full consistency check of that partition
 *               (cuzk_vanilla_check_part: every path, label and commitment as the circuit
 *               would enforce it, so inconsistent data fails the job with "partition i
 *               synthesis failed: vanilla: ..." instead of producing a proof that fails
 *               verification), then the witness-only builder writes the whole witness into the
 *               engine's buffer; with `check`, the witness is also checked row by row against
 *               the profile's recorded constraint system; a caller that proves with a key of
 *               its own (kinds/fc_check.h) passes a cuzk_kind_key holding only the pk (priv
 *               NULL: the sizes are the pk's, and the row check is the caller's);
 *   key         a bellperson parameter file in cache_dir of the kind's Filecoin name pattern and
 *               the circuit's shape (cuzk_kind_fc_params_find below), imported into the key
 *               file below at the first load (a real Filecoin file, h in bellperson's
 *               coefficient basis, proves with bellperson's h: groth16/bpkey.h); otherwise
 *               the development setup (groth16/setup.h, cuzk_groth16_keygen) of the profile's
 *               recorded constraint system (filecoin/pce.h): points only, the A and B queries
 *               filtered by density, h in bellperson's coefficient basis as in a real file (so
 *               a development key proves by the path real parameters take), in a key file
 *               (formats/g16key.h; compressed points when the devices load it, uncompressed
 *               when a CPU backend reads it) cached as <cache_dir>/fc-<profile>-<checksum>.key
 *               next to the PCE file pce-<profile>.bin,
 *               named by that file's payload checksum so that a key of a stale system is never
 *               used; opened when present (a lock file makes concurrent processes create it
 *               once; an unusable file is set up again, and a file a device found corrupt is
 *               removed by key_corrupt). The pk's A/B rows are the PCE's. When a CPU backend
 *               proves (WARM) the points are read into host memory; when every device holds
 *               the key (HOT) they are not, and key_trim frees the system too (unless
 *               `check` keeps it for the witness check). Without a cache directory the key is
 *               made in host memory at every load and stays there.
 *   sizes       from the profile's counts (PCE header, else a COUNT run, cached per profile).
 *   priorities  winning CRITICAL, wpost HIGH, porep and snap NORMAL (cuzk's defaults).
 * Public inputs per partition are the witness's input part, in the circuit's allocation order
 * (circuits/filecoin.h); the engine verifies every proof with the key's vk.
 * Thread-safety: every entry is reentrant; the counts cache has its own mutex. */
#ifndef CUZK_ENGINE_FC_KIND_H
#define CUZK_ENGINE_FC_KIND_H

#include "circuits/filecoin.h"
#include "engine/kind.h"

/* The request fields of Filecoin's clients (cuzk.v1 SubmitProofRequest) a Filecoin kind reads,
 * passed as cuzk_job_request.kind_args (flat: zero it before filling, its bytes are hashed).
 *   registered_proof, sector_size  select and check the circuit (filecoin/registered.h): with
 *       bincode PoSt entries registered_proof selects the profile (0 is
 *       StackedDrgWinning2KiBV1) and a non-zero sector_size must be its size; with a cuzk
 *       vanilla file, a non-zero registered_proof must name the file's profile, and a
 *       non-zero sector_size must too when the file's profile is one of a sector size (a test
 *       profile such as porep-c9 is no sector size and is not checked against it);
 *   randomness (has_randomness: the request carried 32 bytes)  PoSt: every inclusion proof
 *       must be of the leaf it challenges;
 *   partition_index  WindowPoSt: the partition's place (challenge indices before api 1.2);
 *   miner_id, sector_number  PoRep with a C1: the prover_id and sector of the replica id (a
 *       non-zero sector_number must be the wrapper's SectorNum);
 *   comm_r_old, comm_r_new, comm_d_new (has_comm: bits 1, 2, 4 for the ones the request
 *       carried, 32 bytes each: Fr little-endian, the digests of the sector's CIDs)  SnapDeals:
 *       each must be the vanilla proofs' value, the public inputs the proof is checked against;
 *   otherwise sector_number and miner_id are not inputs of the circuits. */
struct cuzk_fc_args {
    uint64_t registered_proof, sector_size, sector_number, miner_id;
    uint32_t partition_index, has_randomness;
    uint8_t randomness[32];
    uint32_t has_comm, reserved; /* CUZK_FC_HAS_* */
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
};
#define CUZK_FC_HAS_COMM_R_OLD 1u
#define CUZK_FC_HAS_COMM_R_NEW 2u
#define CUZK_FC_HAS_COMM_D_NEW 4u

/* "porep", "snap", "wpost", "winning"; NULL for anything else. */
const char *cuzk_kind_fc_name(enum cuzk_fc_kind kind);

/* Creates the kind of `kind`. cache_dir NULL = keys and constraint systems are made in memory
 * at every load. The kind's destroy entry frees it (the engine calls it for kinds it created;
 * an outside owner calls k->destroy(k) after destroying the engine). Returns CUZK_OK,
 * CUZK_EINVAL or CUZK_ENOMEM. */
int cuzk_kind_fc_create(struct cuzk_kind **out, enum cuzk_fc_kind kind, const char *cache_dir,
                        int check);

/* The path of the cached key file of a profile for its current PCE file, into out[cap].
 * Returns CUZK_OK, or CUZK_ENOTFOUND when there is no valid PCE file (no cache, not recorded
 * yet). */
int cuzk_kind_fc_key_path(const char *cache_dir, const char *profile, char *out, size_t cap);

/* The bellperson parameter file (formats/bellperson.h) in cache_dir for a circuit of kind with
 * these counts: among the files named like Filecoin's for the kind ("v28-stacked-proof-of-
 * replication-merkletree-poseidon_hasher-*.params" for porep, "v28-empty-sector-update-
 * merkletree-poseidon_hasher-*.params" for snap, "v28-proof-of-spacetime-fallback-merkletree-
 * poseidon_hasher-*.params" for both PoSt kinds), in name order, the first whose layout and
 * counts fit (ic = inputs, l = aux, h = the domain less one in bellperson's basis, or the
 * domain in snarkjs's: groth16/bpkey.h). Its path goes to out[cap]. Returns CUZK_OK or
 * CUZK_ENOTFOUND. Reads only the files' counts. */
int cuzk_kind_fc_params_find(const char *cache_dir, enum cuzk_fc_kind kind,
                             const struct cuzk_builder_counts *c, char *out, size_t cap);

#endif
