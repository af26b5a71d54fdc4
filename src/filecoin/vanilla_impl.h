/* Vanilla proofs' private parts: the constants and helpers the module's files share
 * (filecoin/vanilla.h is the contract). The module is split by responsibility:
 *   vanilla_format.c  memory (alloc, free, the layout of a partition's block) and the file
 *                     format: serialize, parse with its structural checks, read and write files;
 *   vanilla_derive.c  what is computed from the values alone: the public inputs and the native
 *                     twins of the circuits' derivations (comm_r, PoRep labels, Snap's h, phi,
 *                     rho and challenges, the node count);
 *   vanilla_check.c   the consistency checks (cuzk_vanilla_check_part): everything the
 *                     circuit would enforce, natively.
 * Include it from those files only. */
#ifndef CUZK_FILECOIN_VANILLA_IMPL_H
#define CUZK_FILECOIN_VANILLA_IMPL_H

#include <stdint.h>

#include "filecoin/vanilla.h"

#define POREP_PARENTS (CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS)

static inline unsigned log2u(uint64_t x) {
    unsigned k = 0;
    while (((uint64_t)1 << k) < x) k++;
    return k;
}

/* Snap: levels of a tree-D path below the apex leaves. */
static inline unsigned snap_below_apex(const struct cuzk_fc_profile *p) {
    return p->tree_d_levels - p->partition_bits - log2u(p->apex_leaves);
}

#endif
