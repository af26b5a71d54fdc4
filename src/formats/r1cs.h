/* circom .r1cs files (version 1): the rank-1 constraint system of a compiled circuit.
 *
 * Contract: cuzk_r1cs_load / cuzk_r1cs_parse read every section of the file and accept it only
 * if it is a well-formed BLS12-381 constraint system: the header has n8 = 32 and prime = r
 * (CUZK_EFORMAT otherwise, e.g. for a circuit compiled for BN254), 1 + nPubOut + nPubIn +
 * nPrvIn <= nWires, every constraint lies inside section 2 and the section holds nothing else,
 * every wire id is < nWires, every label id is < nLabels (CUZK_EFORMAT), every coefficient is
 * a canonical integer < r (CUZK_ENONCANON). Custom gates (sections 4 and 5, circom's
 * `pragma custom_templates`) are CUZK_EUNSUPPORTED; sections with other unknown ids are
 * ignored, as snarkjs ignores them. Each error comes with a sentence in err.
 *
 * The result keeps circom's wire order, [1 | outputs | public inputs | private inputs |
 * internal], so the public signals are wires 1 .. nPubOut + nPubIn; the semantics are
 * <A_i, w> * <B_i, w> = <C_i, w> for every constraint i. Coefficients are held as Montgomery
 * field elements. The file is mapped only while it is parsed.
 *
 * Thread-safety: a parsed struct cuzk_r1cs is immutable; reading it from several threads is
 * safe. */
#ifndef CUZK_FORMATS_R1CS_H
#define CUZK_FORMATS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

struct cuzk_cs;

#define CUZK_R1CS_VERSION 1

struct cuzk_r1cs {
    uint32_t n_wires;
    uint32_t n_pub_out;
    uint32_t n_pub_in;
    uint32_t n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    /* Linear combination m (0 = A, 1 = B, 2 = C) of constraint i is the sum of coef[k] * w[wire[k]]
     * over k in [lc[3 i + m], lc[3 i + m + 1]), terms in file order. */
    uint64_t *lc; /* 3 n_constraints + 1 offsets, lc[0] = 0 */
    uint64_t n_terms;
    uint32_t *wire;
    cuzk_fr *coef;
    uint64_t *label; /* wire -> label id (n_wires entries), or NULL when section 3 is absent */
};

int cuzk_r1cs_load(struct cuzk_r1cs *r, const char *path, char *err, size_t errlen);
/* The same from bytes in memory (not retained). */
int cuzk_r1cs_parse(struct cuzk_r1cs *r, const void *data, size_t size, char *err, size_t errlen);
/* Frees the arrays and zeroes the struct; safe on a zeroed or failed-to-load struct. */
void cuzk_r1cs_free(struct cuzk_r1cs *r);

/* Number of public signals (outputs and public inputs), the Groth16 nPublic. */
static inline uint32_t cuzk_r1cs_n_public(const struct cuzk_r1cs *r) {
    return r->n_pub_out + r->n_pub_in;
}

/* Fills cs (which this initialises: the caller frees it with cuzk_cs_free) with the three
 * matrices, one row per constraint, columns = wires (circom's order already is [1 | public |
 * private]), n_public = nPubOut + nPubIn; terms keep their file order. Returns CUZK_OK or
 * CUZK_ENOMEM (cs is then freed). */
int cuzk_r1cs_to_cs(const struct cuzk_r1cs *r, struct cuzk_cs *cs);

#endif
