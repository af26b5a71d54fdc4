/* MultiEq: packs several equalities "lhs_i = rhs_i" between numbers of known bit widths into
 * one row sum_i 2^(o_i) lhs_i * 1 = sum_i 2^(o_i) rhs_i, as bellperson's multieq.rs does for
 * SHA-256's 32-bit additions (about seven additions per row).
 *
 * Promise: an equality of n bits is added at bit offset `bits_used`; when bits_used + n would
 * reach Fr's capacity (254 bits) the pending row is emitted first. cuzk_multieq_finish emits the
 * last pending row (if any equality is pending). The rows, their LCs and their order are
 * bellperson's. Thread-safety: as the builder. */
#ifndef CUZK_CIRCUITS_MULTIEQ_H
#define CUZK_CIRCUITS_MULTIEQ_H

#include "circuits/builder.h"

#define CUZK_MULTIEQ_CAPACITY 254 /* Fr::CAPACITY: bits a field element holds without wrapping */

/* A set of variables (COUNT mode): an open-addressing table whose entries belong to the set
 * while their generation is the current one, so that emptying it is O(1). */
struct cuzk_varset {
    uint32_t *key, *gen;
    uint32_t mask, cur, count;
};

struct cuzk_multieq {
    struct cuzk_builder *b;
    struct cuzk_varset set[2]; /* COUNT mode: the pending row's lhs and rhs variables */
    struct cuzk_lc lhs, rhs;
    struct cuzk_lc scratch[3]; /* reused by the additions that feed this accumulator */
    unsigned bits_used;
    unsigned rows; /* rows emitted so far */
};

void cuzk_multieq_init(struct cuzk_multieq *me, struct cuzk_builder *b);
/* Adds lhs = rhs, both known to be below 2^num_bits. */
void cuzk_multieq_enforce_equal(struct cuzk_multieq *me, unsigned num_bits,
                                const struct cuzk_lc *lhs, const struct cuzk_lc *rhs);
/* COUNT mode only (a builder that counts): the same as cuzk_multieq_enforce_equal with the LCs
 * whose variables are lhs[0 .. nl) and rhs[0 .. nr) (constants given as CUZK_VAR_ONE;
 * repeats allowed), without building them. A MultiEq row's cost is then its number of
 * distinct variables per side, counted in a hash set instead of by merging sorted LCs. */
void cuzk_multieq_count_equal(struct cuzk_multieq *me, unsigned num_bits, const cuzk_var *lhs,
                              size_t nl, const cuzk_var *rhs, size_t nr);
/* Emits the pending row, if any, and releases the accumulator. */
void cuzk_multieq_finish(struct cuzk_multieq *me);

#endif
