/* BLAKE2b (RFC 7693): digests of 1 to 64 bytes, optionally keyed (up to 64 key bytes), as
 * blake2b_simd's Params computes them (no salt, no personalisation, sequential mode). Filecoin
 * uses it for the SDR graph's Feistel round function (64-byte digests of 16 bytes) and to key
 * the synthetic PoRep challenge streams (32-byte keyed digests).
 * Portable C. Thread-safety: pure functions; a context belongs to one thread at a time. */
#ifndef CUZK_UTIL_BLAKE2B_H
#define CUZK_UTIL_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define CUZK_BLAKE2B_OUTBYTES 64
#define CUZK_BLAKE2B_KEYBYTES 64

struct cuzk_blake2b_ctx {
    uint64_t h[8];
    uint64_t t[2];    /* bytes compressed so far, 128 bits */
    uint8_t buf[128]; /* the pending block */
    size_t n;         /* bytes in buf */
    size_t outlen;
};

/* Starts a digest of outlen bytes (1 .. 64) keyed with key[0 .. keylen) (keylen 0 .. 64; key
 * may be NULL when keylen is 0). Returns CUZK_OK or CUZK_EINVAL (a length out of range). */
int cuzk_blake2b_init(struct cuzk_blake2b_ctx *c, size_t outlen, const void *key, size_t keylen);
void cuzk_blake2b_update(struct cuzk_blake2b_ctx *c, const void *data, size_t len);
/* out[0 .. outlen) = the digest; the context is spent. */
void cuzk_blake2b_final(struct cuzk_blake2b_ctx *c, uint8_t *out);
/* One call: out[0 .. outlen) = BLAKE2b-outlen(key; msg). Returns as cuzk_blake2b_init. */
int cuzk_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *msg,
                 size_t len);

#endif
