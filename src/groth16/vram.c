/* The device-memory ledger (contract: vram.h). */
#include "groth16/vram.h"

#include <stdio.h>

#include "cuzk/error.h"

void cuzk_vram_init(struct cuzk_vram *v, uint64_t limit) {
    atomic_init(&v->limit, limit);
    for (int p = 0; p < CUZK_VRAM_PARTS; p++) atomic_init(&v->part[p], 0);
}

void cuzk_vram_set_limit(struct cuzk_vram *v, uint64_t limit) { atomic_store(&v->limit, limit); }

uint64_t cuzk_vram_limit(const struct cuzk_vram *v) { return atomic_load(&v->limit); }

uint64_t cuzk_vram_part(const struct cuzk_vram *v, enum cuzk_vram_part p) {
    return (unsigned)p < CUZK_VRAM_PARTS ? atomic_load(&v->part[p]) : 0;
}

uint64_t cuzk_vram_used(const struct cuzk_vram *v) {
    uint64_t u = 0;
    for (int p = 0; p < CUZK_VRAM_PARTS; p++) u += atomic_load(&v->part[p]);
    return u;
}

int cuzk_vram_fits(const struct cuzk_vram *v, uint64_t more, unsigned without) {
    uint64_t used = 0;
    for (int p = 0; p < CUZK_VRAM_PARTS; p++)
        if (!(without & CUZK_VRAM_BIT(p))) used += atomic_load(&v->part[p]);
    const uint64_t limit = atomic_load(&v->limit);
    return used <= limit && more <= limit - used;
}

void cuzk_vram_charge(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes) {
    if ((unsigned)p < CUZK_VRAM_PARTS) atomic_fetch_add(&v->part[p], bytes);
}

int cuzk_vram_uncharge(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes) {
    if ((unsigned)p >= CUZK_VRAM_PARTS) return CUZK_EINVAL;
    const uint64_t have = atomic_load(&v->part[p]);
    if (bytes > have) {
        atomic_store(&v->part[p], 0);
        return CUZK_EINVAL;
    }
    atomic_store(&v->part[p], have - bytes);
    return CUZK_OK;
}

void cuzk_vram_set(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes) {
    if ((unsigned)p < CUZK_VRAM_PARTS) atomic_store(&v->part[p], bytes);
}

int cuzk_vram_refuse(const struct cuzk_vram *v, const char *what, uint64_t need, char *err,
                     size_t errlen) {
    return cuzk_errf(err, errlen, CUZK_EGPUOOM,
                     "%s needs %llu bytes of device memory; the budget of %llu holds %llu of keys, "
                     "%llu of work space and %llu of presum space",
                     what, (unsigned long long)need, (unsigned long long)cuzk_vram_limit(v),
                     (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_KEYS),
                     (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_WORK),
                     (unsigned long long)cuzk_vram_part(v, CUZK_VRAM_PRESUM));
}

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

void cuzk_vram_describe(const struct cuzk_vram *v, char *buf, size_t len) {
    snprintf(buf, len, "keys %.2f GiB, work %.2f, presum %.2f of %.2f GiB",
             gib(cuzk_vram_part(v, CUZK_VRAM_KEYS)), gib(cuzk_vram_part(v, CUZK_VRAM_WORK)),
             gib(cuzk_vram_part(v, CUZK_VRAM_PRESUM)), gib(cuzk_vram_limit(v)));
}
