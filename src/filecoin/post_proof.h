/* PoSt vanilla proofs as Filecoin's clients send them: bincode `FallbackPoStSectorProof`
 * entries (storage-proofs-post fallback vanilla.rs, serialised by bincode 1 with its default
 * options: integers little-endian, u64 lengths, u32 enum variants, 32-byte domain values as
 * they are), one per sector of a WindowPoSt partition, one for WinningPoSt. Curio sends them
 * as SubmitProofRequest.vanilla_proofs; the curio 32 GiB file in tests/data/realdata is one.
 *
 * An entry is
 *   sector_id u64, comm_r [32], u64 count of sector proofs (1), then per sector proof:
 *     u64 count of inclusion proofs, each a MerkleProof: u32 variant, then
 *       0 Single: root [32], leaf [32], path;
 *       1 Sub:    base path, sub path, root [32], leaf [32];
 *       2 Top:    base path, sub path, top path, root [32], leaf [32]  (64 GiB, trees 8-8-2)
 *     where a path is a u64 count of levels, each u64 count of hashes (arity - 1: 7 for the
 *     base and sub paths, 1 for the binary top path), the hashes [32] each, and u64 index (the
 *     position of the path's own node, 0 .. arity - 1); then comm_c [32], comm_r_last [32].
 * The leaf index of an inclusion proof is its levels' indices put together, least significant
 * first: 3 bits per 8-ary level (base, then sub), 1 for the top level.
 *
 * To a job: cuzk_post_vanilla_of_entries turns the entries of one request into the vanilla
 * proofs of one partition of the registered proof's profile (filecoin/registered.h), after
 * checking what upstream's prover and verifier would derive: every inclusion proof is of the
 * leaf that the randomness challenges (filecoin/challenges.h: leaf challenge of the sector,
 * challenge index by the registered proof's api version; WindowPoSt's sector index is
 * partition_index * sectors + i), every entry has the kind's challenge count and the
 * profile's tree levels. WindowPoSt takes 1 .. S entries and pads the partition by repeating
 * the last sector (as upstream does); WinningPoSt takes one entry of 66 inclusion proofs and
 * unrolls them into 66 sectors of one challenge (the circuit's shape). The paths themselves are
 * checked later, with the rest (cuzk_vanilla_check_part).
 *
 * Every function is total on any bytes: CUZK_OK or an error with a sentence naming the entry,
 * the inclusion proof and the field (CUZK_EFORMAT layout, CUZK_ENONCANON a value >= r,
 * CUZK_EINVAL a count, shape or challenge that does not match,
 * CUZK_ENOMEM). Thread-safety: reentrant; parsed entries are read-only. */
#ifndef CUZK_FILECOIN_POST_PROOF_H
#define CUZK_FILECOIN_POST_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "filecoin/registered.h"
#include "filecoin/vanilla.h"

#define CUZK_POST_MAX_CHALLENGES 66 /* WinningPoSt's; WindowPoSt has 10 */

struct cuzk_post_entry {
    uint64_t sector_id;
    cuzk_fr comm_r, comm_c, comm_r_last;
    uint32_t n_challenges;
    uint64_t *indices; /* leaf index of each inclusion proof */
    cuzk_fr *leaves, *roots;
    cuzk_fr *paths; /* n_challenges x (levels x 7 + top): the path layout of circuits/merkle.h */
};

struct cuzk_post_entries {
    unsigned levels; /* 8-ary path levels of every inclusion proof */
    unsigned sub;    /* of which the last `sub` (0 or 1) are a Sub or Top proof's sub path */
    unsigned top;    /* 1: Top proofs, a binary level above the 8-ary ones (trees 8-8-2) */
    size_t n;
    struct cuzk_post_entry *e;
};

/* Parses concatenated entries (at most max_entries, each of at most CUZK_POST_MAX_CHALLENGES
 * inclusion proofs of `levels` 8-ary levels, and a binary top level when top_arity is 2: the
 * profile's tree_r_levels and top_arity). A Top proof of a tree without top level, or another
 * proof of one with, is CUZK_EINVAL. out is zeroed on error. */
int cuzk_post_entries_parse(const uint8_t *data, size_t len, unsigned levels, unsigned top_arity,
                            size_t max_entries, struct cuzk_post_entries *out, char *err,
                            size_t errlen);
void cuzk_post_entries_free(struct cuzk_post_entries *pe);

/* The bincode of entries [first, first + count) (Single proofs when pe->sub is 0, Sub proofs
 * with a one-level sub path when 1; Top proofs with a pe->sub-level sub path when pe->top is
 * 1), malloc'd into *out. Returns CUZK_OK, CUZK_EINVAL (a range
 * outside pe) or CUZK_ENOMEM. */
int cuzk_post_entries_write(const struct cuzk_post_entries *pe, size_t first, size_t count,
                            uint8_t **out, size_t *len);

/* One partition of reg's profile from the entries of one request (see above). v is
 * allocated here (cuzk_vanilla_free) and zeroed on error. */
int cuzk_post_vanilla_of_entries(const struct cuzk_post_entries *pe,
                                 const struct cuzk_fc_registered *reg, const uint8_t randomness[32],
                                 uint32_t partition_index, struct cuzk_vanilla *v, char *err,
                                 size_t errlen);

/* What a sector's entry is made from: its replica (the sector's bytes, reg's sector size, at
 * most CUZK_SDR_MAX_SECTOR_BYTES), its id and comm_c (PersistentAux). */
struct cuzk_post_sector_input {
    uint64_t sector_id;
    const uint8_t *replica;
    size_t len;
    cuzk_fr comm_c;
};

/* The entries a prover makes for n sectors (WindowPoSt: 1 .. S, the partition's sectors in
 * order; WinningPoSt: 1, with 66 inclusion proofs): tree R over each replica, comm_r_last its
 * root, comm_r = H(comm_c, comm_r_last), the inclusion proofs of the leaves the randomness
 * challenges. Returns CUZK_OK, CUZK_EINVAL (counts, sizes), CUZK_EUNSUPPORTED (a sector too
 * large to hold), CUZK_ENONCANON (a replica node >= r), CUZK_ENOMEM. */
int cuzk_post_entries_make(const struct cuzk_fc_registered *reg,
                           const struct cuzk_post_sector_input *in, size_t n,
                           const uint8_t randomness[32], uint32_t partition_index,
                           struct cuzk_post_entries *out, char *err, size_t errlen);

#endif
