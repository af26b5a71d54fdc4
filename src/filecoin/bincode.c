/* Reading bincode (filecoin/bincode.h). */
#include "filecoin/bincode.h"

#include <stdarg.h>
#include <stdio.h>

#include "cuzk/error.h"

int cuzk_bincode_fail(struct cuzk_bincode *r, int code, const char *fmt, ...) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_errf(r->err, r->errlen, code, "vanilla_proofs: %s: %s (at byte %zu)", r->where, msg,
                     r->off);
}

int cuzk_bincode_u64(struct cuzk_bincode *r, uint64_t *x, const char *what) {
    if (r->n - r->off < 8) return cuzk_bincode_fail(r, CUZK_EFORMAT, "truncated before %s", what);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | r->p[r->off + (size_t)i];
    r->off += 8;
    *x = v;
    return CUZK_OK;
}

int cuzk_bincode_u32(struct cuzk_bincode *r, uint32_t *x, const char *what) {
    if (r->n - r->off < 4) return cuzk_bincode_fail(r, CUZK_EFORMAT, "truncated before %s", what);
    *x = (uint32_t)r->p[r->off] | (uint32_t)r->p[r->off + 1] << 8 |
         (uint32_t)r->p[r->off + 2] << 16 | (uint32_t)r->p[r->off + 3] << 24;
    r->off += 4;
    return CUZK_OK;
}

int cuzk_bincode_fr(struct cuzk_bincode *r, cuzk_fr *x, const char *what) {
    if (r->n - r->off < 32) return cuzk_bincode_fail(r, CUZK_EFORMAT, "truncated in %s", what);
    if (cuzk_fr_from_bytes_le(x, r->p + r->off))
        return cuzk_bincode_fail(r, CUZK_ENONCANON, "%s is not a field element (>= r)", what);
    r->off += 32;
    return CUZK_OK;
}
