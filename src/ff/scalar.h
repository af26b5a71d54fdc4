/* Scalars for multi-scalar multiplication: an Fr element as its canonical integer (< r), the
 * form every MSM (the CPU's in msm/, the GPU's in gpu/) reads its scalars in.
 *
 * Contract: cuzk_scalar_from_fr converts one element; cuzk_scalar_batch_from_fr converts n on
 * a pool, in blocks of CUZK_SCALAR_CONVERT_BLOCK, and may work in place (the two types have the
 * same size and layout of four 64-bit limbs).
 * Thread-safety: reentrant; pool may be NULL (the calling thread). */
#ifndef CUZK_FF_SCALAR_H
#define CUZK_FF_SCALAR_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

struct cuzk_pool;

#define CUZK_SCALAR_CONVERT_BLOCK 16384 /* scalars per conversion item */

/* A scalar as a canonical integer (< r), little-endian 64-bit limbs; not in Montgomery form. */
typedef struct {
    uint64_t l[4];
} cuzk_scalar;

/* out = the canonical integer of the field element a. out may alias a. */
void cuzk_scalar_from_fr(cuzk_scalar *out, const cuzk_fr *a);
/* out[i] = the canonical integer of in[i] for i < n, on the pool's threads. out may be in
 * itself (the two types have the same size), converting a witness in place; otherwise the
 * arrays must not overlap. */
void cuzk_scalar_batch_from_fr(struct cuzk_pool *pool, cuzk_scalar *out, const cuzk_fr *in,
                               size_t n);

#endif
