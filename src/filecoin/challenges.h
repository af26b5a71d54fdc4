/* The challenges of Filecoin's proofs, derived natively as rust-fil-proofs derives them:
 *   PoRep, interactive (storage-proofs-porep challenges.rs InteractiveChallenges): challenge
 *       j = C k + i of partition k is 1 + (sha256(replica_id || seed || j u32 LE) read as a
 *       little-endian integer) mod (nodes - 1): never node 0;
 *   PoRep, non-interactive (NiChallenges): the same with sha256("filecoin.io|PoRep|1|
 *       NonInteractive|1" || replica_id || comm_r || j u32 LE): no seed;
 *   PoRep, synthetic (SynthChallenges): synthetic challenge i is 1 + (keystream bytes
 *       [32 i, 32 i + 32) read little-endian) mod (nodes - 1), the keystream ChaCha20 (RFC 7539,
 *       nonce "synth-porep\0") keyed with BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|
 *       Generation" of replica_id || comm_r; min(nodes, 2^18) of them. Partition k's porep
 *       challenges are the synthetic challenges at indices u32 LE words C k .. C k + C - 1 of
 *       the "...|Selection" stream keyed from replica_id || seed, each mod the synthetic count;
 *   PoSt (storage-proofs-post fallback/vanilla.rs): leaf challenge of a sector =
 *       LE64(sha256(randomness || sector_id u64 LE || index u64 LE)[0 .. 8)) mod nodes, the
 *       index being n in api 1.2 and (sector_index C + n) before; WinningPoSt's sector
 *       challenge n = LE64(sha256(prover_id || randomness || n u64 LE)[0 .. 8)) mod set size;
 *   SnapDeals (storage-proofs-update challenges.rs): the circuit's own derivation,
 *       cuzk_vanilla_snap_challenges (filecoin/vanilla.h), over the profile that
 *       cuzk_snap_profile_for gives a sector size.
 * Field values (replica_id, comm_r) are their 32 little-endian bytes. Sector node counts are
 * below 2^32 (as upstream asserts), at least 2 for PoRep (node 0 is never challenged) and 1
 * for PoSt; n_synth and set_len are at least 1. Thread-safety: pure functions. */
#ifndef CUZK_FILECOIN_CHALLENGES_H
#define CUZK_FILECOIN_CHALLENGES_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/filecoin.h"
#include "filecoin/graph.h"

#define CUZK_POREP_SYNTH_MAX (1u << 18) /* DEFAULT_SYNTH_CHALLENGE_COUNT */

/* ---- PoRep ------------------------------------------------------------------------------- */

/* Partition k's `count` interactive challenges into out[count]. */
void cuzk_porep_challenges(const uint8_t replica_id[32], const uint8_t seed[32], uint64_t nodes,
                           unsigned count, unsigned k, uint64_t *out);

/* Partition k's `count` non-interactive challenges (registered proofs 15..19) into out[count]. */
void cuzk_porep_ni_challenges(const uint8_t replica_id[32], const uint8_t comm_r[32],
                              uint64_t nodes, unsigned count, unsigned k, uint64_t *out);

/* min(nodes, CUZK_POREP_SYNTH_MAX): how many synthetic challenges a sector has. */
uint64_t cuzk_porep_synth_count(uint64_t nodes);
/* Synthetic challenges first .. first + n - 1 into out[n]. */
void cuzk_porep_synth_challenges(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                 uint64_t nodes, uint64_t first, size_t n, uint64_t *out);
/* The synthetic indices (each < n_synth) that select partition k's `count` porep challenges. */
void cuzk_porep_synth_indexes(const uint8_t replica_id[32], const uint8_t seed[32],
                              uint64_t n_synth, unsigned count, unsigned k, uint64_t *out);
/* Partition k's `count` porep challenges of a synthetic-PoRep sector with n_synth synthetic
 * challenges (cuzk_porep_synth_count upstream; a test may take fewer). */
void cuzk_porep_synth_selected(const uint8_t replica_id[32], const uint8_t comm_r[32],
                               const uint8_t seed[32], uint64_t nodes, uint64_t n_synth,
                               unsigned count, unsigned k, uint64_t *out);

/* ---- PoSt -------------------------------------------------------------------------------- */

/* The challenge index of challenge n of the sector at sector_index in its partition. */
uint64_t cuzk_post_challenge_index(enum cuzk_api api, uint64_t sector_index, uint64_t per_sector,
                                   uint64_t n);
uint64_t cuzk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t nodes);
/* WinningPoSt: the index (< set_len, set_len >= 1) of the sector challenged n-th. */
uint64_t cuzk_post_sector_challenge(const uint8_t randomness[32], uint64_t n, uint64_t set_len,
                                    const uint8_t prover_id[32]);

/* ---- SnapDeals --------------------------------------------------------------------------- */

/* The SnapDeals profile fields that fix the challenges of a sector of `nodes` nodes (a power
 * of two from 32 on): tree_d_levels = log2(nodes), partition_bits = log2 of upstream's
 * partition count (1, 2, 4 or 16), challenges = 10 up to 16 MiB, 86 above; apex_leaves =
 * upstream's apex_leaf_count (8 up to 8 KiB, 128 above), which the challenges do not depend
 * on; the other fields as cuzk_fc_profile_default gives them. Returns CUZK_OK or
 * CUZK_EINVAL. */
int cuzk_snap_profile_for(uint64_t nodes, struct cuzk_fc_profile *p);

#endif
