/* Poseidon in-circuit: the "v1" circuit of neptune (circuit::poseidon_hash), the one Filecoin's
 * proofs use, rebuilt row for row so that the constraint system has Filecoin's shape.
 *
 * Promise: the output variable holds cuzk_poseidon_hash(arity, tag, values of in), and the rows
 * enforce it. The state is kept as linear combinations (neptune's Elt); the compressed constants
 * and the sparse partial-round matrices of circuits/poseidon.h are folded into them. Each S-box
 * whose input is a linear combination first allocates it (one row: LC * ONE = v), then squares
 * twice and multiplies (three rows: v*v = v2, v2*v2 = v4, v*v4 = v5 - c with the round constant
 * c in C). In the first round the inputs are variables already and the round's first constant
 * is added inside the rows ((v + c)^2, (v + c) * v4), and the tag's S-box is a constant (no row).
 * The output is element 1 of the final state, allocated with one more row.
 *
 * Cost per hash (the same in every builder mode): rows = aux = 31 a + 29 + 4 R_P (a = 2: 311,
 * 4: 377, 8: 505, 11: 598), no boolean aux, no public input. nnz(B) = 4a + 28t + 4R_P + 1,
 * nnz(C) = 4a + 34t + 5R_P + 1, nnz(A) = 5a + 6t(t + 3) + t(t + R_P + 3) + t
 * + R_P(t + 3) + R_P(R_P - 1)/2 (t = a + 1): the state's linear combinations grow by one
 * variable per partial round, and A holds them (a = 2: 2,119 / 313 / 386, 8: 3,598 / 513 / 624,
 * 11: 4,462 / 609 / 738). These formulas assume distinct input variables; repeated inputs
 * merge terms exactly as bellperson would.
 *
 * Errors: the builder's errors are sticky in the builder (see builder.h); these functions only
 * report bad arguments. Thread-safety: as the builder (one thread per builder). */
#ifndef CUZK_CIRCUITS_POSEIDON_GADGET_H
#define CUZK_CIRCUITS_POSEIDON_GADGET_H

#include <stddef.h>

#include "circuits/builder.h"
#include "circuits/num.h"
#include "circuits/poseidon.h"

/* *out = Poseidon(tag, in[0 .. arity)) with tag a constant (see the cuzk_poseidon_tag_*
 * functions). Returns CUZK_OK or CUZK_EINVAL (unsupported arity); on error nothing is added. */
int cuzk_poseidon_gadget_hash(struct cuzk_builder *b, int arity, const cuzk_fr *tag,
                              const cuzk_var *in, cuzk_var *out);
/* The Merkle-tree hash (tag 2^n - 1) of n = n_in inputs: Filecoin's tree nodes (n = 2, 8) and
 * column hashes (n = 11). Returns CUZK_OK or CUZK_EINVAL. */
int cuzk_poseidon_gadget_hash_merkle(struct cuzk_builder *b, size_t n_in, const cuzk_var *in,
                                     cuzk_var *out);
/* The same two on allocated numbers (circuits/num.h): the inputs' values are taken from in
 * (not looked up in the builder) and out->value is the hash when the builder has values. */
int cuzk_poseidon_gadget_hash_num(struct cuzk_builder *b, int arity, const cuzk_fr *tag,
                                  const struct cuzk_num *in, struct cuzk_num *out);
int cuzk_poseidon_gadget_hash_merkle_num(struct cuzk_builder *b, size_t n_in,
                                         const struct cuzk_num *in, struct cuzk_num *out);

#endif
