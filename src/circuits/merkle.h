/* Merkle inclusion proofs in the circuit, for Filecoin's two tree kinds: binary trees hashed
 * with the Fr32-truncated SHA-256 node hash (tree D) and 8-ary trees hashed with Poseidon
 * (trees C and R; the 8-8-0 sector shape is 10 levels of arity 8 in the circuit).
 *
 * One level: the current node is inserted among its arity - 1 siblings at the position given
 * by log2(arity) index bits (insert_2 / insert_8), and the arity children are hashed. Costs:
 * binary SHA-256 level 2 + 45,379 rows; 8-ary Poseidon level 22 + 505 rows (+ the index bits
 * when the proof allocates them: 1 or 3 AllocatedBits).
 *
 * cuzk_merkle_por is upstream's PoRCircuit (private root): per level it allocates the index
 * bits, then the siblings, then inserts and hashes; after the path it packs all index bits into
 * public inputs (254 per input) and enforces computed root = root (1 row).
 * cuzk_merkle_por_no_input is por_no_challenge_input: the index bits and the siblings are the
 * caller's, no public input, and the same final equality row.
 * Thread-safety: as the builder; the native functions are pure. */
#ifndef CUZK_CIRCUITS_MERKLE_H
#define CUZK_CIRCUITS_MERKLE_H

#include <stdint.h>

#include "circuits/num.h"

enum cuzk_merkle_hash {
    CUZK_MERKLE_SHA256 = 0,   /* binary, Filecoin's Fr32 SHA-256 node hash */
    CUZK_MERKLE_POSEIDON = 1, /* Poseidon, Merkle-tree domain tag, arity 2 or 8 */
};

/* Whether (hash, arity) is a tree this module builds: SHA-256 with arity 2, Poseidon with 2 or 8.
 */
int cuzk_merkle_shape_ok(enum cuzk_merkle_hash hash, unsigned arity);

/* The parent of cur at one level: cur inserted at position bits (log2(arity) of them, least
 * significant first) among sibs[0 .. arity - 1), then hashed. */
struct cuzk_num cuzk_merkle_level(struct cuzk_builder *b, enum cuzk_merkle_hash hash,
                                  unsigned arity, const struct cuzk_num *cur,
                                  const struct cuzk_bool *bits, const struct cuzk_num *sibs);

/* PoRCircuit: proves leaf is at `index` under root. siblings holds levels * (arity - 1) values,
 * level 0 first (NULL without values; ignored then). */
void cuzk_merkle_por(struct cuzk_builder *b, enum cuzk_merkle_hash hash, unsigned arity,
                     unsigned levels, const struct cuzk_num *leaf, const cuzk_fr *siblings,
                     uint64_t index, const struct cuzk_num *root);

/* por_no_challenge_input: bits holds levels * log2(arity) allocated bits (least significant
 * first), sibs levels * (arity - 1) allocated numbers. */
void cuzk_merkle_por_no_input(struct cuzk_builder *b, enum cuzk_merkle_hash hash, unsigned arity,
                              unsigned levels, const struct cuzk_num *leaf,
                              const struct cuzk_bool *bits, const struct cuzk_num *sibs,
                              const struct cuzk_num *root);

/* Native twin: the root reached from leaf at index through siblings (as cuzk_merkle_por). */
void cuzk_merkle_root_native(enum cuzk_merkle_hash hash, unsigned arity, unsigned levels,
                             const cuzk_fr *leaf, const cuzk_fr *siblings, uint64_t index,
                             cuzk_fr *root);

#endif
