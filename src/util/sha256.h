/* SHA-256 (FIPS 180-4): one call over a buffer, or a context fed in pieces; the compression
 * function alone for the circuits that mirror it.
 * Contract: digests are the standard big-endian byte strings; portable C (no SHA extensions).
 * Thread-safety: pure functions; a context belongs to one thread at a time. */
#ifndef CUZK_UTIL_SHA256_H
#define CUZK_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

extern const uint32_t cuzk_sha256_iv[8]; /* the initial state */
extern const uint32_t cuzk_sha256_k[64]; /* the round constants */

/* state = compress(state, block). */
void cuzk_sha256_compress(uint32_t state[8], const uint8_t block[64]);
/* out = SHA-256(msg[0 .. len)). */
void cuzk_sha256(uint8_t out[32], const uint8_t *msg, size_t len);

struct cuzk_sha256_ctx {
    uint32_t st[8];
    uint8_t buf[64];
    uint64_t len; /* bytes fed so far */
};
void cuzk_sha256_init(struct cuzk_sha256_ctx *c);
void cuzk_sha256_update(struct cuzk_sha256_ctx *c, const void *data, size_t len);
/* out = the digest of everything fed; the context is spent. */
void cuzk_sha256_final(struct cuzk_sha256_ctx *c, uint8_t out[32]);

#endif
