/* The JSON files of snarkjs Groth16 on BLS12-381: proof.json, public.json and
 * verification_key.json.
 *
 * Contract (readers): each parses with jansson (duplicate keys rejected) and validates every
 * value: points are decimal strings of canonical coordinates, as [x, y, z] with z = 1 affine,
 * z = 0 the identity and any other z Jacobian, or [x, y] meaning z = 1 (G2 coordinates are
 * [c0, c1] pairs), exactly as snarkjs's G.fromObject reads them; every point must be on the
 * curve AND in the r-order subgroup (snarkjs checks neither; a proof outside the subgroup is
 * rejected here before any pairing). Errors: CUZK_EFORMAT (not JSON, wrong shape, a missing key,
 * a non-decimal string), CUZK_ENONCANON (a coordinate >= p, a public value >= r),
 * CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP, CUZK_EUNSUPPORTED (protocol other than "groth16" or
 * curve other than "bls12381"; proof.json may omit both, snarkjs ignores them there), CUZK_EIO
 * (the file cannot be read); each with a sentence in err. The verification key's nPublic must
 * equal the number of IC points minus one, and vk_alphabeta_12 must equal
 * cuzk_pairing(vk_alpha_1, vk_beta_2): that is the value snarkjs writes (ffjavascript's pairing
 * is, like cuzk's and @noble/curves', the cube of the textbook pairing; checked byte for byte
 * against `snarkjs zkey export verificationkey`).
 *
 * Contract (writers): the output is byte-identical to what snarkjs writes for the same values:
 * JSON.stringify(obj, null, 1) (one space of indentation per level, no trailing newline), the
 * keys in snarkjs's order, points as affine decimal strings with z = "1" (["1", "0"] for G2) and
 * the identity as ["0", "1", "0"]. Writers return a malloc'd NUL-terminated string (NULL when out
 * of memory) or save it to a file.
 *
 * Thread-safety: pure functions on caller-owned data. */
#ifndef CUZK_FORMATS_SNARKJS_JSON_H
#define CUZK_FORMATS_SNARKJS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp12.h"
#include "ff/fr.h"

struct cuzk_zkey;

struct cuzk_snarkjs_proof {
    cuzk_g1_affine a; /* pi_a */
    cuzk_g2_affine b; /* pi_b */
    cuzk_g1_affine c; /* pi_c */
};

struct cuzk_snarkjs_vk {
    uint32_t n_public;
    cuzk_g1_affine alpha1;
    cuzk_g2_affine beta2, gamma2, delta2;
    cuzk_fp12 alphabeta; /* cuzk_pairing(alpha1, beta2) */
    cuzk_g1_affine *ic;  /* n_public + 1, owned: free with cuzk_snarkjs_vk_free */
};

/* proof.json */
int cuzk_snarkjs_proof_parse(struct cuzk_snarkjs_proof *p, const char *json, size_t len, char *err,
                             size_t errlen);
int cuzk_snarkjs_proof_load(struct cuzk_snarkjs_proof *p, const char *path, char *err,
                            size_t errlen);
char *cuzk_snarkjs_proof_to_json(const struct cuzk_snarkjs_proof *p);
int cuzk_snarkjs_proof_save(const char *path, const struct cuzk_snarkjs_proof *p, char *err,
                            size_t errlen);

/* public.json: *out receives a malloc'd array of *n values (Montgomery; free() it; NULL when
 * the array is empty). */
int cuzk_snarkjs_public_parse(cuzk_fr **out, size_t *n, const char *json, size_t len, char *err,
                              size_t errlen);
int cuzk_snarkjs_public_load(cuzk_fr **out, size_t *n, const char *path, char *err, size_t errlen);
char *cuzk_snarkjs_public_to_json(const cuzk_fr *v, size_t n);
int cuzk_snarkjs_public_save(const char *path, const cuzk_fr *v, size_t n, char *err,
                             size_t errlen);

/* verification_key.json. The parse checks the shapes and the points, not that
 * vk_alphabeta_12 is e(vk_alpha_1, vk_beta_2): that takes a pairing, a layer above
 * (cuzk_groth16_vk_check, cuzk_groth16_vk_load). */
int cuzk_snarkjs_vk_parse(struct cuzk_snarkjs_vk *vk, const char *json, size_t len, char *err,
                          size_t errlen);
int cuzk_snarkjs_vk_load(struct cuzk_snarkjs_vk *vk, const char *path, char *err, size_t errlen);
char *cuzk_snarkjs_vk_to_json(const struct cuzk_snarkjs_vk *vk);
int cuzk_snarkjs_vk_save(const char *path, const struct cuzk_snarkjs_vk *vk, char *err,
                         size_t errlen);
/* Frees ic and zeroes the struct; safe on a zeroed or failed-to-parse struct. */
void cuzk_snarkjs_vk_free(struct cuzk_snarkjs_vk *vk);

#endif
