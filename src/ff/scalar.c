/* Fr elements as canonical integers for the MSMs (contract: scalar.h). */
#include "ff/scalar.h"

#include <string.h>

#include "util/pool.h"

void cuzk_scalar_from_fr(cuzk_scalar *out, const cuzk_fr *a) {
    uint64_t t[4];
    cuzk_fr_to_canonical(t, a);
    memcpy(out->l, t, sizeof t); /* after the read: out may alias a */
}

struct scalar_convert {
    cuzk_scalar *out;
    const cuzk_fr *in;
    size_t n;
};

static void scalar_convert_item(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct scalar_convert *cv = ctx;
    size_t lo = item * CUZK_SCALAR_CONVERT_BLOCK, hi = lo + CUZK_SCALAR_CONVERT_BLOCK;
    if (hi > cv->n) hi = cv->n;
    for (size_t i = lo; i < hi; i++) cuzk_scalar_from_fr(&cv->out[i], &cv->in[i]);
}

void cuzk_scalar_batch_from_fr(struct cuzk_pool *pool, cuzk_scalar *out, const cuzk_fr *in,
                               size_t n) {
    struct scalar_convert cv = {out, in, n};
    cuzk_pool_run(pool, (n + CUZK_SCALAR_CONVERT_BLOCK - 1) / CUZK_SCALAR_CONVERT_BLOCK,
                  scalar_convert_item, &cv);
}
