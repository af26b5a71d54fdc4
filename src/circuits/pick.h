/* Selection gadgets on allocated numbers (Filecoin's insertion.rs): pick, select, and the
 * insertion of a node among its Merkle siblings at the position given by index bits.
 *
 * Promise: pick costs 1 row and 1 aux ((b - a) * cond = b - c); select over 2^k numbers
 * costs 2^k - 1 picks; insert_2 is 2 picks; insert_4 is 8 picks (two per output, b0 then
 * b1); insert_8 is 22 rows (b0 nor b1, b0 and b1, then 20 picks), shapes and order as upstream.
 * Values are computed when the builder has them. Thread-safety: as the builder. */
#ifndef CUZK_CIRCUITS_PICK_H
#define CUZK_CIRCUITS_PICK_H

#include <stddef.h>

#include "circuits/num.h"

/* c = cond ? a : bb. */
struct cuzk_num cuzk_pick(struct cuzk_builder *b, struct cuzk_bool cond, const struct cuzk_num *a,
                          const struct cuzk_num *bb);
/* from[index], index given by bits[0 .. k) least significant first; n_from = 2^k. */
struct cuzk_num cuzk_select(struct cuzk_builder *b, const struct cuzk_num *from, size_t n_from,
                            const struct cuzk_bool *bits, unsigned k);
/* out[0 .. 2) = x inserted among one sibling at position bits[0]. */
void cuzk_insert_2(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[2]);
/* out[0 .. 4) = x inserted among 3 siblings at position bits[0..2). */
void cuzk_insert_4(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[4]);
/* out[0 .. 8) = x inserted among 7 siblings at position bits[0..3) (allocated, non-negated). */
void cuzk_insert_8(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[8]);

#endif
