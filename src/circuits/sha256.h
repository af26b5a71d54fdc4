/* SHA-256: the native function and its circuit, plus Filecoin's Fr32-truncated node hash.
 *
 * Native: FIPS 180-4 SHA-256 (util/sha256.h, cuzk_sha256), and the Filecoin tree
 * node hash: SHA-256 of left || right (32 bytes each) with the last digest byte's two top bits
 * cleared (so the digest read little-endian is below 2^254 < r, a valid Fr).
 *
 * Circuit (bellperson sha256.rs): the compression function over 512 message Booleans (most
 * significant bit of each byte first) and 8 UInt32 chaining words, its 32-bit additions
 * accumulated in one MultiEq per compression; cuzk_sha256_gadget pads the message with
 * constant bits and starts from the constant IV. Row counts per compression: 25,840 (message
 * variable, IV constant), 26,192 (both variable), 19,034 (message constant, chaining variable).
 * The node gadget (Filecoin's hash2_circuit): each Fr leaf to 255 bits + a constant zero bit,
 * bytes reordered so that the message is the leaves' little-endian bytes, two compressions,
 * then the first 254 digest bits (little-endian per byte) packed into one number: 45,379 rows.
 * Thread-safety: native functions are pure; gadgets as the builder. */
#ifndef CUZK_CIRCUITS_SHA256_H
#define CUZK_CIRCUITS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/num.h"
#include "circuits/uint32.h"
#include "util/sha256.h" /* the native function */

/* ---- native ------------------------------------------------------------------------------- */

/* SHA-256 with out[31] &= 0x3f (Filecoin's trim_to_fr32). */
void cuzk_sha256_fr32(uint8_t out[32], const uint8_t *msg, size_t len);
/* The tree node hash over two 32-byte nodes. */
void cuzk_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);
/* The same on field elements (each written as 32 little-endian bytes; the result read back). */
void cuzk_sha256_node_fr(cuzk_fr *out, const cuzk_fr *left, const cuzk_fr *right);

/* ---- circuit ------------------------------------------------------------------------------ */

/* One compression: out = cur + rounds(cur, in), in = 512 message bits (big-endian words). */
void cuzk_sha256_compress_gadget(struct cuzk_builder *b, const struct cuzk_bool in[512],
                                 const struct cuzk_u32 cur[8], struct cuzk_u32 out[8]);
/* SHA-256 of nbits message bits (nbits % 8 == 0): out = the 256 digest bits, most significant
 * bit of each byte first. Returns CUZK_OK or CUZK_ENOMEM (also set as the builder's error). */
int cuzk_sha256_gadget(struct cuzk_builder *b, const struct cuzk_bool *in, size_t nbits,
                       struct cuzk_bool out[256]);
/* Filecoin's hash_circuit: SHA-256 of the bits, then the digest's first 254 bits in
 * little-endian order within each byte packed into a number (the Fr32 digest). */
struct cuzk_num cuzk_sha256_fr32_gadget(struct cuzk_builder *b, const struct cuzk_bool *in,
                                        size_t nbits);
/* Filecoin's hash2_circuit / hash_multi_leaf_circuit over two leaves: the node hash. */
struct cuzk_num cuzk_sha256_node_gadget(struct cuzk_builder *b, const struct cuzk_num *left,
                                        const struct cuzk_num *right);
/* A number's 255 bits (to_bits_le) plus a constant zero bit, reordered as the SHA-256 message
 * bits of its 32 little-endian bytes (reverse_bit_numbering): out[256]. */
void cuzk_sha256_num_bits(struct cuzk_builder *b, const struct cuzk_num *x,
                          struct cuzk_bool out[256]);

#endif
