/* UInt32: 32 Booleans read as an unsigned integer (bit 0 least significant), with the
 * operations SHA-256 needs, shaped as bellperson's uint32.rs.
 *
 * Promise: rotations and shifts are free (shifts bring in constant zeros); xor, ch and maj work
 * bit by bit through the Boolean gadgets (constants fold); addmany allocates
 * ceil(log2(n * (2^32 - 1))) result bits (33 for n = 2, 34 for 3-4, 35 for 5-8), one booleanity
 * row each, and hands "sum of operand bits = sum of result bits" to a MultiEq accumulator; an
 * addition whose operands are all constant returns a constant and emits nothing. `value` is the
 * integer's value (meaningful in COUNT mode only for constants). Thread-safety: as the builder. */
#ifndef CUZK_CIRCUITS_UINT32_H
#define CUZK_CIRCUITS_UINT32_H

#include <stdint.h>

#include "circuits/boolean.h"
#include "circuits/multieq.h"

struct cuzk_u32 {
    struct cuzk_bool bits[32]; /* little-endian: bits[0] is the least significant */
    uint32_t value;
};

struct cuzk_u32 cuzk_u32_const(uint32_t v);
/* 32 allocated bits (AllocatedBit::alloc each, 32 rows). */
struct cuzk_u32 cuzk_u32_alloc(struct cuzk_builder *b, uint32_t v);
/* From / to 32 bits most significant first (the SHA-256 message and digest order). */
struct cuzk_u32 cuzk_u32_from_bits_be(const struct cuzk_bool *bits);
void cuzk_u32_to_bits_be(const struct cuzk_u32 *x, struct cuzk_bool *bits);

struct cuzk_u32 cuzk_u32_rotr(const struct cuzk_u32 *x, unsigned by);
struct cuzk_u32 cuzk_u32_shr(const struct cuzk_u32 *x, unsigned by);
struct cuzk_u32 cuzk_u32_xor(struct cuzk_builder *b, const struct cuzk_u32 *x,
                             const struct cuzk_u32 *y);
struct cuzk_u32 cuzk_u32_sha256_ch(struct cuzk_builder *b, const struct cuzk_u32 *a,
                                   const struct cuzk_u32 *bb, const struct cuzk_u32 *c);
struct cuzk_u32 cuzk_u32_sha256_maj(struct cuzk_builder *b, const struct cuzk_u32 *a,
                                    const struct cuzk_u32 *bb, const struct cuzk_u32 *c);
/* The sum of ops[0 .. n) modulo 2^32, 2 <= n <= 10, its equality accumulated in me. */
struct cuzk_u32 cuzk_u32_addmany(struct cuzk_multieq *me, const struct cuzk_u32 *const *ops,
                                 unsigned n);

#endif
