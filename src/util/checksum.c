/* The 64-bit checksum of files (contract: checksum.h). */
#include "util/checksum.h"

#include <string.h>

#define MIX_MUL 0xd6e8feb86659fd93ull /* odd: multiplication is a bijection mod 2^64 */
#define MIX_MUL2 0x9fb21c651e98df25ull

/* One word into one lane: xor (a bijection in the word), odd multiply, xor-shift (bijections
 * in the lane), so every change of one word changes the lane. */
static inline uint64_t lane_step(uint64_t acc, uint64_t w) {
    acc = (acc ^ w) * MIX_MUL;
    return acc ^ (acc >> 32);
}

static inline uint64_t load64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static void hash_block(struct cuzk_checksum *h, const uint8_t *b) {
    for (int i = 0; i < 4; i++) h->lane[i] = lane_step(h->lane[i], load64(b + 8 * i));
}

void cuzk_checksum_init(struct cuzk_checksum *h) {
    memset(h, 0, sizeof *h);
    for (int i = 0; i < 4; i++) h->lane[i] = 0x63757a6b70636530ull + (uint64_t)i * MIX_MUL2;
}

void cuzk_checksum_update(struct cuzk_checksum *h, const void *data, size_t len) {
    const uint8_t *p = data;
    if (!len) return;
    h->total += len;
    if (h->n_tail) {
        size_t take = 32 - h->n_tail < len ? 32 - h->n_tail : len;
        memcpy(h->tail + h->n_tail, p, take);
        h->n_tail += take, p += take, len -= take;
        if (h->n_tail < 32) return;
        hash_block(h, h->tail);
        h->n_tail = 0;
    }
    for (; len >= 32; p += 32, len -= 32) hash_block(h, p);
    memcpy(h->tail, p, len);
    h->n_tail = len;
}

uint64_t cuzk_checksum_final(const struct cuzk_checksum *h) {
    struct cuzk_checksum t = *h;
    if (t.n_tail) {
        memset(t.tail + t.n_tail, 0, 32 - t.n_tail);
        hash_block(&t, t.tail);
    }
    uint64_t r = t.total * MIX_MUL2;
    for (int i = 0; i < 4; i++) r = lane_step(r, t.lane[i]);
    r ^= r >> 29;
    r *= MIX_MUL2;
    return r ^ (r >> 32);
}

uint64_t cuzk_checksum64(const void *data, size_t len) {
    struct cuzk_checksum h;
    cuzk_checksum_init(&h);
    cuzk_checksum_update(&h, data, len);
    return cuzk_checksum_final(&h);
}
