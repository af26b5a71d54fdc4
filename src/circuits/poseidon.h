/* Poseidon over BLS12-381 Fr exactly as Filecoin uses it (neptune, Strength::Standard).
 *
 * Promise: for arity a in {2, 4, 8, 11} the state has width t = a + 1; element 0 is a domain
 * tag, elements 1..a the preimage, and the hash is element 1 of the state after the permutation.
 * The permutation is x^5 with R_F = 8 full rounds (4 before, 4 after) and R_P = 55, 56, 57, 57
 * partial rounds. Round constants come from the Grain LFSR of the Poseidon paper (field type 1,
 * S-box 1, n = 255, t, R_F, R_P; 160 bits discarded; self-shrinking; 255-bit big-endian draws,
 * redrawn when >= r); the MDS matrix is the Cauchy matrix M[i][j] = 1/(i + t + j). Hashes equal
 * neptune's bit for bit (known answers in the tests).
 *
 * Two permutations compute the same function: the reference one (_ref: every round adds t
 * constants, applies the S-box, multiplies by M) and the optimised one that the Filecoin
 * circuit also uses: constants "compressed" through the linear layers (a partial round adds one
 * constant after its S-box), the last initial full round multiplies by a dense pre-sparse
 * matrix and each partial round by a sparse matrix (dense first row and column, identity
 * elsewhere). Vectors multiply matrices from the left (state' = state * M) throughout.
 *
 * Constants are computed on first use, once per arity (pthread_once), into static tables that
 * are only read afterwards. Thread-safety: every function is thread-safe. */
#ifndef CUZK_CIRCUITS_POSEIDON_H
#define CUZK_CIRCUITS_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

#define CUZK_POSEIDON_MAX_ARITY 11
#define CUZK_POSEIDON_MAX_WIDTH (CUZK_POSEIDON_MAX_ARITY + 1)
#define CUZK_POSEIDON_FULL_ROUNDS 8
#define CUZK_POSEIDON_MAX_PARTIAL_ROUNDS 57
/* Round constants of the reference permutation: (R_F + R_P) * t at most. */
#define CUZK_POSEIDON_MAX_RC                                                                       \
    ((CUZK_POSEIDON_FULL_ROUNDS + CUZK_POSEIDON_MAX_PARTIAL_ROUNDS) * CUZK_POSEIDON_MAX_WIDTH)
/* Compressed constants: R_F * t + R_P at most. */
#define CUZK_POSEIDON_MAX_CRC                                                                      \
    (CUZK_POSEIDON_FULL_ROUNDS * CUZK_POSEIDON_MAX_WIDTH + CUZK_POSEIDON_MAX_PARTIAL_ROUNDS)

/* The constants of one arity. All field elements are in Montgomery form (as every cuzk_fr).
 *
 * The optimised permutation consumes crc in this order (offsets advance as they are used):
 *   initial full round 0: x_i <- (x_i + crc[i])^5 + crc[t + i]        (2t constants)
 *   initial full rounds 1..3: x_i <- x_i^5 + crc[..]                   (t each)
 *   partial round k: x_0 <- x_0^5 + crc[..]                            (1 each)
 *   final full rounds 0..2: x_i <- x_i^5 + crc[..]                     (t each)
 *   final full round 3: x_i <- x_i^5                                   (none)
 * and after each round's S-boxes multiplies the state by: mds, except pre_sparse after the last
 * initial full round and the sparse matrix k after partial round k, whose product is
 *   out_0 = sum_i x_i w_hat[k][i],   out_j = x_j + x_0 v_rest[k][j - 1]  (j >= 1). */
struct cuzk_poseidon_params {
    int arity;                                                     /* a */
    int width;                                                     /* t = a + 1 */
    int full_rounds;                                               /* R_F = 8 */
    int partial_rounds;                                            /* R_P */
    cuzk_fr merkle_tag;                                            /* 2^a - 1 */
    cuzk_fr mds[CUZK_POSEIDON_MAX_WIDTH][CUZK_POSEIDON_MAX_WIDTH]; /* M, symmetric */
    cuzk_fr rc[CUZK_POSEIDON_MAX_RC];   /* round r, element i at [r * t + i] (reference form) */
    cuzk_fr crc[CUZK_POSEIDON_MAX_CRC]; /* compressed constants, in the order above */
    cuzk_fr pre_sparse[CUZK_POSEIDON_MAX_WIDTH][CUZK_POSEIDON_MAX_WIDTH];
    cuzk_fr w_hat[CUZK_POSEIDON_MAX_PARTIAL_ROUNDS][CUZK_POSEIDON_MAX_WIDTH]; /* first column */
    cuzk_fr v_rest[CUZK_POSEIDON_MAX_PARTIAL_ROUNDS][CUZK_POSEIDON_MAX_WIDTH - 1]; /* row 0 */
};

/* 1 if arity is one this module implements (2, 4, 8, 11), else 0. */
int cuzk_poseidon_arity_ok(int arity);
/* The constants of arity, computed on the first call for that arity; NULL for an arity that
 * cuzk_poseidon_arity_ok rejects. The tables live for the whole process. */
const struct cuzk_poseidon_params *cuzk_poseidon_params_get(int arity);

/* Domain tags (neptune HashType): MerkleTree = 2^arity - 1, ConstantLength(len) = len * 2^64,
 * Custom(id) = id * 2^40 (neptune accepts 1 <= id <= 256; SnapDeals' randomness is id 1). */
void cuzk_poseidon_tag_merkle(cuzk_fr *tag, int arity);
void cuzk_poseidon_tag_constant_length(cuzk_fr *tag, uint64_t len);
void cuzk_poseidon_tag_custom(cuzk_fr *tag, uint64_t id);

/* Permutes state[0 .. t) in place: the optimised form and the reference form. */
void cuzk_poseidon_permute(const struct cuzk_poseidon_params *p, cuzk_fr *state);
void cuzk_poseidon_permute_ref(const struct cuzk_poseidon_params *p, cuzk_fr *state);

/* *out = Poseidon(tag, in[0 .. arity)). Returns CUZK_OK, or CUZK_EINVAL for an unsupported
 * arity. out may alias an input. */
int cuzk_poseidon_hash(int arity, const cuzk_fr *tag, const cuzk_fr *in, cuzk_fr *out);
int cuzk_poseidon_hash_ref(int arity, const cuzk_fr *tag, const cuzk_fr *in, cuzk_fr *out);
/* The Merkle-tree hash of Filecoin's trees and column hashes (tag 2^arity - 1). */
int cuzk_poseidon_hash_merkle(int arity, const cuzk_fr *in, cuzk_fr *out);
/* ConstantLength(len) hashing of in[0 .. len), 1 <= len <= arity, padded with zeros (neptune's
 * native rule; its v1 circuit only supports len = arity). Returns CUZK_OK or CUZK_EINVAL. */
int cuzk_poseidon_hash_constant_length(int arity, const cuzk_fr *in, size_t len, cuzk_fr *out);

#endif
