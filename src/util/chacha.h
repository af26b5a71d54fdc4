/* ChaCha (Bernstein; the block function of RFC 7539 section 2.3) as a keystream, in the two
 * framings Filecoin's derivations read it through:
 *   - the random-number generator of Rust's rand_chacha (ChaCha8Rng for the SDR graph's DRG
 *     parents): key = the 32-byte seed, a 64-bit block counter in state words 12-13 and a
 *     64-bit stream id (0) in words 14-15; next_u32 takes the next keystream word (little-
 *     endian), next_u64 two of them, the first as the low half;
 *   - the RFC 7539 stream cipher (the chacha20 crate, for synthetic PoRep challenges): a 32-bit
 *     block counter in word 12 and a 96-bit nonce in words 13-15.
 * Both produce blocks 0, 1, 2, ... in order, so a byte position names one keystream byte
 * (cuzk_chacha_seek). The number of rounds is the caller's: 8 (ChaCha8) or 20 (ChaCha20).
 * Portable C, constant time. Thread-safety: pure functions; a stream belongs to one thread. */
#ifndef CUZK_UTIL_CHACHA_H
#define CUZK_UTIL_CHACHA_H

#include <stddef.h>
#include <stdint.h>

/* out = the keystream block of the 16-word input state (its rounds, then the feed-forward). */
void cuzk_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds);

struct cuzk_chacha {
    uint32_t in[16];  /* constants, key, counter, nonce / stream id */
    uint8_t buf[64];  /* the current block's keystream */
    unsigned pos;     /* bytes of buf already used; 64 = none left */
    unsigned rounds;  /* 8, 12 or 20 */
    int wide_counter; /* 1: the counter spans words 12-13 (rand_chacha), 0: word 12 alone */
};

/* rand_chacha's ChaCha<rounds>Rng::from_seed(seed): counter 0, stream 0. */
void cuzk_chacha_init_rng(struct cuzk_chacha *c, const uint8_t seed[32], unsigned rounds);
/* RFC 7539's cipher with key and nonce, block counter 0. */
void cuzk_chacha_init_ietf(struct cuzk_chacha *c, const uint8_t key[32], const uint8_t nonce[12],
                           unsigned rounds);
/* Moves to keystream byte `offset` (the chacha20 crate's try_seek). */
void cuzk_chacha_seek(struct cuzk_chacha *c, uint64_t offset);
/* The next n keystream bytes (apply_keystream to zeros). */
void cuzk_chacha_bytes(struct cuzk_chacha *c, uint8_t *out, size_t n);
/* rand_core's next_u32 / next_u64 on a stream read in whole words (as an RNG is). */
uint32_t cuzk_chacha_u32(struct cuzk_chacha *c);
uint64_t cuzk_chacha_u64(struct cuzk_chacha *c);

#endif
