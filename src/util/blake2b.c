/* BLAKE2b (contract: blake2b.h). */
#include "util/blake2b.h"

#include <string.h>

#include "cuzk/error.h"

/* The SHA-512 initial hash values. */
static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

/* The message word permutations of rounds 0 .. 9 (rounds 10 and 11 repeat 0 and 1). */
static const uint8_t sigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64_le(const uint8_t *p) {
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | p[i];
    return x;
}

#define G(a, b, c, d, x, y)                                                                        \
    do {                                                                                           \
        v[a] += v[b] + (x), v[d] = rotr64(v[d] ^ v[a], 32);                                        \
        v[c] += v[d], v[b] = rotr64(v[b] ^ v[c], 24);                                              \
        v[a] += v[b] + (y), v[d] = rotr64(v[d] ^ v[a], 16);                                        \
        v[c] += v[d], v[b] = rotr64(v[b] ^ v[c], 63);                                              \
    } while (0)

static void compress(struct cuzk_blake2b_ctx *c, const uint8_t block[128], int last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load64_le(block + 8 * i);
    for (int i = 0; i < 8; i++) v[i] = c->h[i], v[8 + i] = blake2b_iv[i];
    v[12] ^= c->t[0];
    v[13] ^= c->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = sigma[r % 10];
        G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) c->h[i] ^= v[i] ^ v[8 + i];
}

static void count(struct cuzk_blake2b_ctx *c, size_t n) {
    c->t[0] += n;
    if (c->t[0] < n) c->t[1]++;
}

int cuzk_blake2b_init(struct cuzk_blake2b_ctx *c, size_t outlen, const void *key, size_t keylen) {
    if (outlen < 1 || outlen > CUZK_BLAKE2B_OUTBYTES || keylen > CUZK_BLAKE2B_KEYBYTES)
        return CUZK_EINVAL;
    memcpy(c->h, blake2b_iv, sizeof c->h);
    /* the parameter block's first word: digest length, key length, fanout 1, depth 1 */
    c->h[0] ^= 0x01010000ull ^ (uint64_t)keylen << 8 ^ (uint64_t)outlen;
    c->t[0] = c->t[1] = 0;
    c->n = 0;
    c->outlen = outlen;
    if (keylen) { /* the key, zero-padded, is the first block */
        memset(c->buf, 0, sizeof c->buf);
        memcpy(c->buf, key, keylen);
        c->n = sizeof c->buf;
    }
    return CUZK_OK;
}

void cuzk_blake2b_update(struct cuzk_blake2b_ctx *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len) {
        if (c->n == sizeof c->buf) { /* a full block is compressed only once more input comes */
            count(c, sizeof c->buf);
            compress(c, c->buf, 0);
            c->n = 0;
        }
        size_t k = sizeof c->buf - c->n < len ? sizeof c->buf - c->n : len;
        memcpy(c->buf + c->n, p, k);
        c->n += k;
        p += k;
        len -= k;
    }
}

void cuzk_blake2b_final(struct cuzk_blake2b_ctx *c, uint8_t *out) {
    count(c, c->n);
    memset(c->buf + c->n, 0, sizeof c->buf - c->n);
    compress(c, c->buf, 1);
    for (size_t i = 0; i < c->outlen; i++) out[i] = (uint8_t)(c->h[i / 8] >> (8 * (i % 8)));
}

int cuzk_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *msg,
                 size_t len) {
    struct cuzk_blake2b_ctx c;
    int rc = cuzk_blake2b_init(&c, outlen, key, keylen);
    if (rc) return rc;
    cuzk_blake2b_update(&c, msg, len);
    cuzk_blake2b_final(&c, out);
    return CUZK_OK;
}
