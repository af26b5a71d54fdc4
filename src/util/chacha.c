/* ChaCha (contract: chacha.h). */
#include "util/chacha.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static inline uint32_t load32_le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        a += b, d = rotl32(d ^ a, 16);                                                             \
        c += d, b = rotl32(b ^ c, 12);                                                             \
        a += b, d = rotl32(d ^ a, 8);                                                              \
        c += d, b = rotl32(b ^ c, 7);                                                              \
    } while (0)

void cuzk_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds) {
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) { /* a column round and a diagonal round */
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
}

static void init_key(struct cuzk_chacha *c, const uint8_t key[32], unsigned rounds) {
    static const uint32_t sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    memcpy(c->in, sigma, sizeof sigma); /* "expand 32-byte k", little-endian words */
    for (int i = 0; i < 8; i++) c->in[4 + i] = load32_le(key + 4 * i);
    c->pos = 64;
    c->rounds = rounds;
}

void cuzk_chacha_init_rng(struct cuzk_chacha *c, const uint8_t seed[32], unsigned rounds) {
    init_key(c, seed, rounds);
    c->in[12] = c->in[13] = c->in[14] = c->in[15] = 0;
    c->wide_counter = 1;
}

void cuzk_chacha_init_ietf(struct cuzk_chacha *c, const uint8_t key[32], const uint8_t nonce[12],
                           unsigned rounds) {
    init_key(c, key, rounds);
    c->in[12] = 0;
    for (int i = 0; i < 3; i++) c->in[13 + i] = load32_le(nonce + 4 * i);
    c->wide_counter = 0;
}

/* Fills buf with the block the counter names, then advances the counter. */
static void refill(struct cuzk_chacha *c) {
    uint32_t w[16];
    cuzk_chacha_block(w, c->in, c->rounds);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 4; j++) c->buf[4 * i + j] = (uint8_t)(w[i] >> (8 * j));
    if (++c->in[12] == 0 && c->wide_counter) c->in[13]++;
    c->pos = 0;
}

void cuzk_chacha_seek(struct cuzk_chacha *c, uint64_t offset) {
    uint64_t block = offset / 64;
    c->in[12] = (uint32_t)block;
    if (c->wide_counter) c->in[13] = (uint32_t)(block >> 32);
    c->pos = 64;
    if (offset % 64) {
        refill(c);
        c->pos = (unsigned)(offset % 64);
    }
}

void cuzk_chacha_bytes(struct cuzk_chacha *c, uint8_t *out, size_t n) {
    while (n) {
        if (c->pos == 64) refill(c);
        size_t k = 64 - c->pos < n ? 64 - c->pos : n;
        memcpy(out, c->buf + c->pos, k);
        c->pos += (unsigned)k;
        out += k;
        n -= k;
    }
}

uint32_t cuzk_chacha_u32(struct cuzk_chacha *c) {
    uint8_t b[4];
    cuzk_chacha_bytes(c, b, 4);
    return load32_le(b);
}

uint64_t cuzk_chacha_u64(struct cuzk_chacha *c) {
    uint64_t lo = cuzk_chacha_u32(c);
    return lo | (uint64_t)cuzk_chacha_u32(c) << 32;
}
