/* Boolean gadgets: a bit that is an allocated variable, the negation of one, or a constant, and
 * the operations SHA-256 and the Filecoin circuits use, with bellman's exact shapes.
 *
 * Promise: every operation emits the rows bellperson's boolean.rs emits for the same operands,
 * with the same linear combinations (so row, variable and non-zero counts match), and folds
 * constants the same way: an operation whose result is decided by a constant operand emits
 * nothing; xor/and of a negated bit are rewritten through De Morgan exactly as bellperson does.
 * Allocated results are boolean variables (cuzk_builder_alloc_bit).
 *
 * A struct cuzk_bool carries its value (the value of the Boolean itself, negation applied); in
 * COUNT mode only constants' values are meaningful, and only constants decide a gadget's shape.
 * Thread-safety: as the builder (one thread per builder). */
#ifndef CUZK_CIRCUITS_BOOLEAN_H
#define CUZK_CIRCUITS_BOOLEAN_H

#include <stdint.h>

#include "circuits/builder.h"

enum cuzk_bool_kind {
    CUZK_BOOL_CONST = 0, /* a constant: value */
    CUZK_BOOL_IS = 1,    /* the allocated bit var */
    CUZK_BOOL_NOT = 2,   /* 1 - the allocated bit var */
};

struct cuzk_bool {
    cuzk_var var;  /* IS, NOT: the allocated bit */
    uint8_t kind;  /* enum cuzk_bool_kind */
    uint8_t value; /* 0 or 1: the Boolean's value (negation applied) */
};

static inline struct cuzk_bool cuzk_bool_const(int v) {
    struct cuzk_bool r = {CUZK_VAR_ONE, CUZK_BOOL_CONST, (uint8_t)(v != 0)};
    return r;
}
static inline struct cuzk_bool cuzk_bool_is(cuzk_var var, int value) {
    struct cuzk_bool r = {var, CUZK_BOOL_IS, (uint8_t)(value != 0)};
    return r;
}
static inline struct cuzk_bool cuzk_bool_not(struct cuzk_bool x) {
    x.value ^= 1;
    if (x.kind == CUZK_BOOL_IS)
        x.kind = CUZK_BOOL_NOT;
    else if (x.kind == CUZK_BOOL_NOT)
        x.kind = CUZK_BOOL_IS;
    return x;
}
static inline int cuzk_bool_is_const(struct cuzk_bool x) { return x.kind == CUZK_BOOL_CONST; }

/* lc += coeff * x (coeff NULL: one): a constant adds coeff * ONE when true and nothing when
 * false; NOT v adds coeff * ONE - coeff * v. */
void cuzk_bool_lc_add(struct cuzk_lc *lc, struct cuzk_bool x, const cuzk_fr *coeff);
/* lc -= coeff * x. */
void cuzk_bool_lc_sub(struct cuzk_lc *lc, struct cuzk_bool x, const cuzk_fr *coeff);

/* AllocatedBit::alloc: a new boolean variable with value bit and the row (1 - a) * a = 0. */
struct cuzk_bool cuzk_bool_alloc(struct cuzk_builder *b, int bit);

/* Boolean::xor, and, and Boolean::and(a.not(), b.not()) (nor); shapes as bellperson:
 * xor of two variables: 1 row (2a) * b = a + b - c; and: a * b = c, a * (1 - b) = c or
 * (1 - a) * (1 - b) = c depending on negations; constants fold to no row. */
struct cuzk_bool cuzk_bool_xor(struct cuzk_builder *b, struct cuzk_bool x, struct cuzk_bool y);
struct cuzk_bool cuzk_bool_and(struct cuzk_builder *b, struct cuzk_bool x, struct cuzk_bool y);

/* AllocatedBit::and / nor of two allocated, non-negated bits (insert_8 uses these directly;
 * x and y must be CUZK_BOOL_IS). */
struct cuzk_bool cuzk_bool_alloc_and(struct cuzk_builder *b, struct cuzk_bool x,
                                     struct cuzk_bool y);
struct cuzk_bool cuzk_bool_alloc_nor(struct cuzk_builder *b, struct cuzk_bool x,
                                     struct cuzk_bool y);

/* SHA-256's ch(a, b, c) = (a and b) xor ((not a) and c) and maj(a, b, c) = (a and b) xor
 * (a and c) xor (b and c), with bellperson's constant cases; in general ch is 1 row and maj 2
 * (b and c, then the maj row). */
struct cuzk_bool cuzk_bool_sha256_ch(struct cuzk_builder *b, struct cuzk_bool a,
                                     struct cuzk_bool bb, struct cuzk_bool c);
struct cuzk_bool cuzk_bool_sha256_maj(struct cuzk_builder *b, struct cuzk_bool a,
                                      struct cuzk_bool bb, struct cuzk_bool c);

#endif
