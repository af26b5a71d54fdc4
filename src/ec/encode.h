/* Point encodings: the zcash/bellperson byte formats, the snarkjs .zkey layout, and the
 * decimal coordinates of snarkjs JSON.
 *
 * Contract: every decoder validates everything it is given and returns an error code instead
 * of a point it cannot vouch for: CUZK_EFLAGS (flag bits inconsistent), CUZK_ENONCANON (a
 * coordinate >= p), CUZK_ENOTONCURVE (no such curve point), CUZK_ENOTINSUBGROUP (on the curve,
 * outside the r-order group), CUZK_EFORMAT (a malformed decimal string). On error *out is
 * left unspecified. Encoders cannot fail. Thread-safety: pure functions.
 *
 * zcash format (big-endian). G1: x (48 bytes) [| y (48 bytes)]. G2: x.c1 | x.c0 [| y.c1 | y.c0].
 * The three top bits of the first byte are flags: 0x80 compressed (set iff the encoding is the
 * short one), 0x40 identity (then every other bit is zero), 0x20 only in compressed non-identity
 * encodings: set iff y is the lexicographically larger root (cuzk_fp_is_lexlarger /
 * cuzk_fp2_is_lexlarger).
 *
 * snarkjs .zkey format ("LEM"): G1 is x | y, G2 is x.c0 | x.c1 | y.c0 | y.c1, each coordinate
 * 48 bytes holding the Montgomery value c * 2^384 mod p little-endian; no flags; the identity
 * is 96 (G1) or 192 (G2) zero bytes. This is exactly cuzk's in-memory representation.
 *
 * Decimal (snarkjs JSON): canonical coordinates as decimal strings with a third coordinate z:
 * z = 1 affine, z = 0 the identity, any other z Jacobian (X/Z^2, Y/Z^3), as snarkjs reads them. */
#ifndef CUZK_EC_ENCODE_H
#define CUZK_EC_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

#define CUZK_G1_COMPRESSED 48
#define CUZK_G1_UNCOMPRESSED 96
#define CUZK_G2_COMPRESSED 96
#define CUZK_G2_UNCOMPRESSED 192
#define CUZK_G1_LEM 96
#define CUZK_G2_LEM 192

/* Decoder checks: curve membership and canonical form are always checked; the r-order
 * subgroup check is on by default and may be skipped only by callers that check subgroup
 * membership some other way (e.g. in bulk, in parallel). */
enum cuzk_point_check { CUZK_CHECK_ALL = 0, CUZK_CHECK_NO_SUBGROUP = 1 };

void cuzk_g1_to_compressed(uint8_t out[CUZK_G1_COMPRESSED], const cuzk_g1_affine *p);
void cuzk_g1_to_uncompressed(uint8_t out[CUZK_G1_UNCOMPRESSED], const cuzk_g1_affine *p);
int cuzk_g1_from_compressed(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_COMPRESSED]);
/* The compressed decoders with the subgroup check chosen by c (the plain ones are these with
 * CUZK_CHECK_ALL): for bulk loads of files whose integrity is vouched for by checksums. */
int cuzk_g1_from_compressed_ex(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_COMPRESSED],
                               enum cuzk_point_check c);
int cuzk_g1_from_uncompressed(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_UNCOMPRESSED]);
/* The uncompressed decoders with the subgroup check chosen by c: for bulk loads that check
 * subgroup membership another way, or whose caller documents that it trusts the file. */
int cuzk_g1_from_uncompressed_ex(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_UNCOMPRESSED],
                                 enum cuzk_point_check c);
void cuzk_g2_to_compressed(uint8_t out[CUZK_G2_COMPRESSED], const cuzk_g2_affine *p);
void cuzk_g2_to_uncompressed(uint8_t out[CUZK_G2_UNCOMPRESSED], const cuzk_g2_affine *p);
int cuzk_g2_from_compressed(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_COMPRESSED]);
int cuzk_g2_from_compressed_ex(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_COMPRESSED],
                               enum cuzk_point_check c);
int cuzk_g2_from_uncompressed(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_UNCOMPRESSED]);
int cuzk_g2_from_uncompressed_ex(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_UNCOMPRESSED],
                                 enum cuzk_point_check c);

void cuzk_g1_to_lem(uint8_t out[CUZK_G1_LEM], const cuzk_g1_affine *p);
int cuzk_g1_from_lem(cuzk_g1_affine *out, const uint8_t in[CUZK_G1_LEM], enum cuzk_point_check c);
void cuzk_g2_to_lem(uint8_t out[CUZK_G2_LEM], const cuzk_g2_affine *p);
int cuzk_g2_from_lem(cuzk_g2_affine *out, const uint8_t in[CUZK_G2_LEM], enum cuzk_point_check c);

/* Decimal coordinates. G1: xyz = {x, y, z}. G2: xyz = {x.c0, x.c1, y.c0, y.c1, z.c0, z.c1}. */
int cuzk_g1_from_dec(cuzk_g1_affine *out, const char *const xyz[3]);
int cuzk_g2_from_dec(cuzk_g2_affine *out, const char *const xyz[6]);
/* Writes affine decimal coordinates, each into a buffer of CUZK_FP_DEC_MAX bytes, as snarkjs
 * prints them: (x, y, "1") or the identity as ("0", "1", "0"); G2 z is ("1", "0") or ("0", "0"). */
void cuzk_g1_to_dec(char xyz[3][CUZK_FP_DEC_MAX], const cuzk_g1_affine *p);
void cuzk_g2_to_dec(char xyz[6][CUZK_FP_DEC_MAX], const cuzk_g2_affine *p);

#endif
