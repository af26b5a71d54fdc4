/* Conversions between cuzk's points-only key (struct cuzk_groth16_keydata, groth16/setup.h) and
 * bellperson's parameter and verifying-key files (formats/bellperson.h).
 *
 * The mapping: vk alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 = alpha1, beta1,
 * beta2, gamma2, delta1, delta2; ic = IC; l = C (the aux wires); a, b_g1, b_g2 = A, B1, B2 with
 * the identity points left out, as bellperson's generator leaves them out, so that the j-th
 * point belongs to the j-th wire of the constraint system's density list
 * (cuzk_groth16_wire_lists: a column with a nonzero coefficient; the public wires always in A).
 * A density-filtered key (the setup's default) has no identity in its queries, so its file holds
 * exactly its points; a dense one (every wire listed) loses the identities of its empty columns
 * and reads back as the filtered key of the same system, which proves identically.
 *
 * H. Bellperson's h has domain_size - 1 points tau^i t(tau) / delta, for a prover that divides
 * by the vanishing polynomial on a coset and works in the coefficient basis: cuzk's key calls
 * that basis CUZK_H_COEFF (formats/g16key.h) and its provers take bellperson's h for it
 * (groth16/groth16.h), so a real Filecoin parameter file proves as it is. An h of domain_size
 * points is the snarkjs basis (CUZK_H_SNARKJS), the one cuzk itself wrote into .params files
 * before it had the coefficient basis; it is still read (and proves, with snarkjs's h). Any other
 * count is CUZK_EFORMAT. Reading a key needs its constraint system, for the density lists and the
 * domain. cuzk writes .params files in bellperson's basis only (cuzk setup-params makes such a
 * key): a file cuzk writes has bellperson's layout and bellperson's h, so bellperson's prover
 * reads it as a file of its own generator (cuzk's tests check the math with cuzk's prover and
 * verifier; they do not run bellperson).
 *
 * Thread-safety: reentrant; the pool is used as formats/bellperson.h says. */
#ifndef CUZK_GROTH16_BPKEY_H
#define CUZK_GROTH16_BPKEY_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bellperson.h"
#include "groth16/setup.h"
#include "r1cs/cs.h"

struct cuzk_pool;
struct cuzk_snarkjs_vk;

/* What an h of n_h points means for a system of this domain: CUZK_H_COEFF (n_h = domain_size -
 * 1, bellperson's basis), CUZK_H_SNARKJS (domain_size), -1 neither. */
int cuzk_bpkey_h_basis(uint32_t n_h, uint32_t domain_size);

/* Checks the counts of an opened or peeked p against a system of these sizes: ic = n_public + 1,
 * l = n_vars - n_public - 1, h in either basis (CUZK_EFORMAT with the sentence otherwise). What
 * a caller choosing among files by shape runs. */
int cuzk_bpkey_check_shape(const struct cuzk_bp_params *p, uint32_t n_vars, uint32_t n_public,
                           uint32_t domain_size, char *err, size_t errlen);

/* Checks every count of an opened or peeked p against the system cs, as cuzk_bpkey_read does
 * before it decodes a point: the shape (cuzk_bpkey_check_shape, for cs's domain), then a, b_g1
 * and b_g2 against cs's density lists ("bellperson: x.params: a holds 5 points, the system has
 * 6 wires with a non-empty A column"). CUZK_OK, CUZK_EFORMAT with the sentence, CUZK_ERANGE (a
 * system too large for a key), CUZK_ENOMEM. What tells parameters of another circuit from a
 * file that does not decode. */
int cuzk_bpkey_check_system(const struct cuzk_bp_params *p, const struct cuzk_cs *cs, char *err,
                            size_t errlen);

/* The verification key (alphabeta computed) of a bellperson verifying key, e.g. a .vk file's:
 * n_public = n_ic - 1. CUZK_OK, CUZK_EINVAL (no ic), CUZK_ENOMEM. */
int cuzk_bpkey_vk(struct cuzk_snarkjs_vk *out, const struct cuzk_bp_vk *vk);

/* Writes kd (with its points) as a .params file at path (created or truncated, flushed to the
 * disk; removed again on failure; the caller writes to a temporary name and renames). Refuses
 * (CUZK_EINVAL) a key whose H is not in bellperson's basis (CUZK_H_COEFF), whose B1 and B2
 * disagree on which points are the identity, or with an identity in IC, C or H. CUZK_EIO on a
 * write failure. */
int cuzk_bpkey_write_params(const struct cuzk_groth16_keydata *kd, const char *path, char *err,
                            size_t errlen);
/* Writes kd's verifying key as a .vk file at path (as above). */
int cuzk_bpkey_write_vk(const struct cuzk_groth16_keydata *kd, const char *path, char *err,
                        size_t errlen);

/* The key of p for the system cs (borrowed) into *kd (zeroed first; owns everything; free with
 * cuzk_groth16_keydata_free): wire lists from cs, every vector decoded on pool with the check
 * given (see formats/bellperson.h), info.cs_checksum = cs_checksum, info.h_basis from h's count,
 * chunk_points the g16key default, LEM. Refuses, before decoding a point, a file whose counts do
 * not fit cs (CUZK_EFORMAT: "bellperson: <file>: l holds 5 points, the system has 6 aux
 * wires"); then any point error of formats/bellperson.h. */
int cuzk_bpkey_read(struct cuzk_groth16_keydata *kd, const struct cuzk_bp_params *p,
                    const struct cuzk_cs *cs, uint64_t cs_checksum, enum cuzk_point_check check,
                    struct cuzk_pool *pool, char *err, size_t errlen);

/* The key of p for cs (as cuzk_bpkey_read) written straight to a new key file at path
 * (formats/g16key.h; compressed or LEM point sections), one vector decoded in host memory at a
 * time: what importing a large file costs is cuzk_bpkey_import_bytes, not the whole key. The
 * caller writes to a temporary name and renames it; a failure leaves no file. */
int cuzk_bpkey_import(const struct cuzk_bp_params *p, const struct cuzk_cs *cs,
                      uint64_t cs_checksum, enum cuzk_point_check check, const char *path,
                      int compressed, struct cuzk_pool *pool, char *err, size_t errlen);
/* Host bytes cuzk_bpkey_import holds at most for a system of these sizes. */
uint64_t cuzk_bpkey_import_bytes(uint32_t n_vars, uint32_t domain_size);

#endif
