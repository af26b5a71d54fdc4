/* Merkle inclusion proofs in the circuit, for Filecoin's two tree kinds: binary trees hashed
 * with the Fr32-truncated SHA-256 node hash (tree D) and Poseidon trees (trees C and R).
 *
 * A path has a shape (struct cuzk_merkle_shape): `levels` base levels of one arity, then at most
 * one sub level and one top level of their own arities. Filecoin's compound trees 8-<sub>-<top>
 * map onto it with every 8-ary level counted as a base level: 8-8-0 (32 GiB) is 10 levels of
 * arity 8, 8-8-2 (64 GiB) 10 levels of arity 8 and a binary top, 8-4-2 base levels of 8, a sub
 * level of 4 and a top of 2. Index bits are consumed level by level, least significant first.
 *
 * One level: the current node is inserted among its arity - 1 siblings at the position given
 * by log2(arity) index bits (insert_2 / insert_4 / insert_8), and the arity children are hashed.
 * Costs: binary SHA-256 level 2 + 45,379 rows; Poseidon level 2 + 311 (arity 2), 8 + 377
 * (arity 4), 22 + 505 (arity 8) rows (+ the index bits when the proof allocates them: 1, 2 or 3
 * AllocatedBits).
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

/* Whether (hash, arity) is a level this module builds: SHA-256 with arity 2, Poseidon with 2, 4
 * or 8. */
int cuzk_merkle_shape_ok(enum cuzk_merkle_hash hash, unsigned arity);

struct cuzk_merkle_shape {
    enum cuzk_merkle_hash hash;
    unsigned arity;  /* base arity */
    unsigned levels; /* base levels */
    unsigned sub;    /* arity of the sub level above the base, 0 = none */
    unsigned top;    /* arity of the top level above the sub level, 0 = none */
};

/* Whether every level of s is one cuzk_merkle_shape_ok accepts and its index bits fit a u64. */
int cuzk_merkle_shape_valid(const struct cuzk_merkle_shape *s);
/* Levels of the whole path: base, sub, top. */
unsigned cuzk_merkle_shape_depth(const struct cuzk_merkle_shape *s);
/* The arity of level l (0 next to the leaf), l < depth. */
unsigned cuzk_merkle_shape_arity(const struct cuzk_merkle_shape *s, unsigned l);
/* Index bits of the whole path (log2 of the number of leaves). */
unsigned cuzk_merkle_shape_bits(const struct cuzk_merkle_shape *s);
/* Siblings of the whole path: the sum of arity - 1 over the levels. */
unsigned cuzk_merkle_shape_siblings(const struct cuzk_merkle_shape *s);

/* The parent of cur at one level: cur inserted at position bits (log2(arity) of them, least
 * significant first) among sibs[0 .. arity - 1), then hashed. */
struct cuzk_num cuzk_merkle_level(struct cuzk_builder *b, enum cuzk_merkle_hash hash,
                                  unsigned arity, const struct cuzk_num *cur,
                                  const struct cuzk_bool *bits, const struct cuzk_num *sibs);

/* PoRCircuit: proves leaf is at `index` under root. siblings holds the path's siblings, level 0
 * first, arity - 1 per level (NULL without values; ignored then). */
void cuzk_merkle_por(struct cuzk_builder *b, const struct cuzk_merkle_shape *s,
                     const struct cuzk_num *leaf, const cuzk_fr *siblings, uint64_t index,
                     const struct cuzk_num *root);

/* por_no_challenge_input: bits holds the path's index bits (allocated, least significant
 * first), sibs its siblings as allocated numbers (same layout as cuzk_merkle_por's). */
void cuzk_merkle_por_no_input(struct cuzk_builder *b, const struct cuzk_merkle_shape *s,
                              const struct cuzk_num *leaf, const struct cuzk_bool *bits,
                              const struct cuzk_num *sibs, const struct cuzk_num *root);

/* Native twin: the root reached from leaf at index through siblings (as cuzk_merkle_por). A
 * shape that cuzk_merkle_shape_valid rejects gives the leaf. */
void cuzk_merkle_root_native(const struct cuzk_merkle_shape *s, const cuzk_fr *leaf,
                             const cuzk_fr *siblings, uint64_t index, cuzk_fr *root);

#endif
