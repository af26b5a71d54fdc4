/* Allocated numbers: a variable together with its value, and bellperson's num.rs and
 * multipack.rs gadgets on them (the shapes Filecoin's circuits use).
 *
 * Promise (rows per call): inputize 1 (a new public input, input * 1 = x); to_bits_le 256 (255
 * AllocatedBits, then one row whose A and B are empty and whose C is sum 2^i bit_i - x);
 * decompose n + 1 (n AllocatedBits, then (sum 2^i bit_i) * 1 = x); pack_bits 1 (a new aux num,
 * (sum 2^i bit_i) * 1 = num, at most 254 bits); pack_into_inputs 1 per 254-bit chunk (a new
 * public input each); enforce_equal 1; add 1; mul 1. Values are computed only when the builder
 * has values. Thread-safety: as the builder. */
#ifndef CUZK_CIRCUITS_NUM_H
#define CUZK_CIRCUITS_NUM_H

#include <stddef.h>

#include "circuits/boolean.h"

#define CUZK_FR_NUM_BITS 255 /* bits of r */
#define CUZK_FR_CAPACITY 254 /* bits every value below 2^254 fits in without reduction */

struct cuzk_num {
    cuzk_var var;
    cuzk_fr value; /* zero when the builder has no values */
};

/* A new private number (value may be NULL without values). */
struct cuzk_num cuzk_num_alloc(struct cuzk_builder *b, const cuzk_fr *value);
/* AllocatedNum::inputize: exposes x as a new public input. */
void cuzk_num_inputize(struct cuzk_builder *b, const struct cuzk_num *x);
/* AllocatedNum::to_bits_le: the 255 bits of x, least significant first (not range-checked
 * against r: the "non-strict" decomposition Filecoin uses). */
void cuzk_num_to_bits_le(struct cuzk_builder *b, const struct cuzk_num *x,
                         struct cuzk_bool out[CUZK_FR_NUM_BITS]);
/* The low n bits of x as AllocatedBits and (sum 2^i bit_i) * 1 = x (SnapDeals' decompositions;
 * n <= 255; with n < 255 it also proves x < 2^n). */
void cuzk_num_decompose(struct cuzk_builder *b, const struct cuzk_num *x, unsigned n,
                        struct cuzk_bool *out);
/* multipack::pack_bits: a new number equal to sum 2^i bits[i] over the first min(n, 254) bits. */
struct cuzk_num cuzk_num_pack_bits(struct cuzk_builder *b, const struct cuzk_bool *bits, size_t n);
/* multipack::pack_into_inputs: the bits packed into public inputs, 254 bits per input. */
void cuzk_num_pack_into_inputs(struct cuzk_builder *b, const struct cuzk_bool *bits, size_t n);
/* a * 1 = bb. */
void cuzk_num_enforce_equal(struct cuzk_builder *b, const struct cuzk_num *a,
                            const struct cuzk_num *bb);
/* constraint::add: s = a + bb, (a + bb) * 1 = s. */
struct cuzk_num cuzk_num_add(struct cuzk_builder *b, const struct cuzk_num *a,
                             const struct cuzk_num *bb);
/* AllocatedNum::mul: p = a * bb, a * bb = p. */
struct cuzk_num cuzk_num_mul(struct cuzk_builder *b, const struct cuzk_num *a,
                             const struct cuzk_num *bb);

/* The value of bits[0 .. n) (n <= 254) as a field element, least significant first. */
void cuzk_num_bits_value(cuzk_fr *out, const struct cuzk_bool *bits, size_t n);

#endif
