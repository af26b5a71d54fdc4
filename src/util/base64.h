/* Standard base64 (RFC 4648, alphabet A-Z a-z 0-9 + /, '=' padding): what Go's encoding/json
 * writes for a []byte, so what Filecoin's clients send inside JSON (Curio's PoRep C1 wrapper,
 * PoSt vanilla proofs as JSON arrays of strings).
 * Thread-safety: pure functions. */
#ifndef CUZK_UTIL_BASE64_H
#define CUZK_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* The decoded length of n base64 characters at most (n / 4 * 3). */
static inline size_t cuzk_base64_decoded_max(size_t n) { return n / 4 * 3; }

/* Decodes s[0 .. n) (padded, no whitespace) into out (cuzk_base64_decoded_max(n) bytes) and
 * returns the length; -1 for anything that is not padded base64 (a length that is not a
 * multiple of 4, a character outside the alphabet, padding before the end). */
long cuzk_base64_decode(const char *s, size_t n, uint8_t *out);

/* The padded base64 of in[0 .. n), NUL-terminated, malloc'd (free() it); NULL without memory. */
char *cuzk_base64_encode(const uint8_t *in, size_t n);

#endif
