/* Plain multi-precision helpers on n 64-bit little-endian limbs (n <= CUZK_MONT_MAX_LIMBS).
 *
 * Contract: these work on integers, not field elements: byte and decimal conversions, and a
 * variable-time modular inverse used by the fields' _var inversions. No allocation; all
 * functions are pure and thread-safe. */
#ifndef CUZK_FF_LIMBS_H
#define CUZK_FF_LIMBS_H

#include <stddef.h>
#include <stdint.h>

/* 8n bytes <-> n limbs. */
void cuzk_limbs_from_bytes_le(uint64_t *out, const uint8_t *in, int n);
void cuzk_limbs_from_bytes_be(uint64_t *out, const uint8_t *in, int n);
void cuzk_limbs_to_bytes_le(uint8_t *out, const uint64_t *a, int n);
void cuzk_limbs_to_bytes_be(uint8_t *out, const uint64_t *a, int n);

/* Parses a non-empty string of decimal digits (no sign, no spaces) into n limbs.
 * Returns CUZK_OK, CUZK_EFORMAT for a bad character or empty string, or CUZK_ERANGE when the
 * value does not fit in n limbs. */
int cuzk_limbs_from_dec(uint64_t *out, int n, const char *s);

/* Writes a as decimal (no leading zeros; "0" for zero) with a NUL terminator. Returns the
 * number of characters written without the NUL, or CUZK_ERANGE if cap is too small. */
int cuzk_limbs_to_dec(char *buf, size_t cap, const uint64_t *a, int n);

/* out = a^-1 mod m for 0 < a < m, m odd with its top bit clear, n = 4 or 6 (the two fields),
 * by the binary extended Euclidean algorithm. Variable time. out = 0 when a = 0. */
void cuzk_limbs_inv_mod_var(uint64_t *out, const uint64_t *a, const uint64_t *m, int n);

#endif
