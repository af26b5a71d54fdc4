/* snarkjs Groth16 proving keys (.zkey version 1, protocol 1) for BLS12-381.
 *
 * Contract (reader): cuzk_zkey_load / cuzk_zkey_parse read sections 1..10 and accept the file only
 * if it is a consistent BLS12-381 Groth16 key:
 *   1  protocol = 1 (PLONK and FFLONK keys are CUZK_EUNSUPPORTED);
 *   2  n8q = 48, q = p, n8r = 32, r; nVars >= nPublic + 1; domainSize a power of two; then
 *      alpha1, beta1, beta2, gamma2, delta1, delta2 (this order, whatever snarkjs's comment says);
 *   3  IC: nPublic + 1 G1;   4 coefficients (below);   5 A: nVars G1;   6 B1: nVars G1;
 *   7  B2: nVars G2;   8 C: nVars - nPublic - 1 G1 (wires nPublic+1..);   9 H: domainSize G1;
 *   10 csHash[64], nContributions, contributions (kept as raw bytes after a structural check).
 * Every section must have exactly its size (CUZK_EFORMAT). Points use the LEM layout of
 * ec/encode.h and must be canonical (CUZK_ENONCANON) and on the curve (CUZK_ENOTONCURVE);
 * the r-order subgroup check (CUZK_ENOTINSUBGROUP) is governed by the options, since it
 * dominates the load time of large keys. The six header points and the contribution points are
 * always checked in full. Section 4 entries need matrix 0 or 1, constraint < domainSize,
 * signal < nVars, and a stored value < r (CUZK_ENONCANON). Whether domainSize is large enough
 * for the circuit (>= nConstraints + nPublic + 1) cannot be checked without the .r1cs. Sections
 * with unknown ids are ignored, as snarkjs ignores them. Each error comes with a sentence in err
 * such as "zkey: section 7 (B2) is 192000 bytes, 1001 points need 192192".
 *
 * The file is mapped only while loading: the result owns one aligned copy of every array, in
 * cuzk's in-memory types (the LEM bytes are exactly that representation, so decoding a point is
 * a copy plus checks). Coefficients are stored on disk as value * R^2 mod r (R = 2^256): reading
 * the raw limbs t and Montgomery-multiplying by the plain integer 1 gives t / R = value * R,
 * which is the Montgomery form of value, what struct cuzk_zkey_coef holds.
 *
 * Contract (writer): cuzk_zkey_write emits a standard zkey, sections 1..10 in id order, from a
 * struct filled by the reader or by a setup; a key read and written again is byte-identical to
 * a snarkjs file whose sections are in id order (as `zkey contribute` and `zkey beacon` write
 * them). A fresh setup sets cs_hash to 64 zero bytes and n_contributions to 0: snarkjs 0.7.6
 * accepts such a key for `zkey export verificationkey` and `groth16 prove` (neither reads
 * section 10) and `zkey contribute` builds on it; `zkey verify` refuses it, as it refuses any
 * key whose delta is not the product of its recorded contributions over a ptau transcript.
 * The writer checks the struct's consistency first (CUZK_EINVAL with a sentence).
 *
 * DESIGN (threads): point and coefficient decoding is split into blocks of ZKEY_BLOCK items run
 * on the caller's pool (cuzk_pool_run; a NULL pool runs on the calling thread). Each block
 * writes only its own slice of the output arrays and its own error slot; after the run the
 * lowest failing index is reported, so the error is the same whatever the thread count. The
 * mapping is read-only and shared. Thread-safety: a loaded key is immutable and may be read by
 * any number of threads; load/write/free of one struct belong to one thread. */
#ifndef CUZK_FORMATS_ZKEY_H
#define CUZK_FORMATS_ZKEY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"

struct cuzk_pool;

#define CUZK_ZKEY_VERSION 1
#define CUZK_ZKEY_GROTH16 1 /* section 1 protocol id */
#define CUZK_ZKEY_CS_HASH 64
/* Keys with fewer points than this are subgroup-checked by default (seconds on one core at most,
 * divided among the pool's threads); larger keys are trusted to come from a trusted setup
 * unless the caller asks, since checking millions of points takes many minutes. */
#define CUZK_ZKEY_AUTO_SUBGROUP_MAX (1u << 16)

enum cuzk_zkey_subgroup {
    CUZK_ZKEY_SUBGROUP_AUTO = 0, /* check when the key has < CUZK_ZKEY_AUTO_SUBGROUP_MAX points */
    CUZK_ZKEY_SUBGROUP_CHECK,    /* check every point */
    CUZK_ZKEY_SUBGROUP_SKIP,     /* check the header points only */
};

struct cuzk_zkey_opts {
    struct cuzk_pool *pool; /* for the point checks; NULL = the calling thread */
    enum cuzk_zkey_subgroup subgroup;
};

struct cuzk_zkey_coef {
    uint32_t matrix;     /* 0 = A, 1 = B (the zkey has no C matrix) */
    uint32_t constraint; /* row, < domain_size */
    uint32_t signal;     /* wire, < n_vars */
    cuzk_fr value;       /* Montgomery form of the coefficient */
};

struct cuzk_zkey {
    uint32_t n_vars;
    uint32_t n_public;
    uint32_t domain_size;
    cuzk_g1_affine alpha1, beta1, delta1;
    cuzk_g2_affine beta2, gamma2, delta2;
    cuzk_g1_affine *ic; /* n_public + 1 */
    uint32_t n_coefs;
    struct cuzk_zkey_coef *coefs; /* n_coefs, in file order */
    cuzk_g1_affine *a;            /* n_vars */
    cuzk_g1_affine *b1;           /* n_vars */
    cuzk_g2_affine *b2;           /* n_vars */
    cuzk_g1_affine *c;            /* n_vars - n_public - 1: wires n_public + 1 .. n_vars - 1 */
    cuzk_g1_affine *h;            /* domain_size */
    uint8_t cs_hash[CUZK_ZKEY_CS_HASH];
    uint32_t n_contributions;
    uint8_t *contributions; /* the raw bytes after nContributions in section 10 */
    size_t contributions_size;
    int subgroup_checked; /* 1 when the reader checked every point's subgroup */
};

/* opts may be NULL (the defaults: calling thread, AUTO). */
int cuzk_zkey_load(struct cuzk_zkey *z, const char *path, const struct cuzk_zkey_opts *opts,
                   char *err, size_t errlen);
/* The same from bytes in memory (not retained). */
int cuzk_zkey_parse(struct cuzk_zkey *z, const void *data, size_t size,
                    const struct cuzk_zkey_opts *opts, char *err, size_t errlen);
/* Frees every array and zeroes the struct; safe on a zeroed or failed-to-load struct. */
void cuzk_zkey_free(struct cuzk_zkey *z);

/* Sets the sizes and allocates the point and coefficient arrays (uninitialised) of an empty
 * struct, for a setup that fills them; cs_hash is zeroed and there are no contributions.
 * Returns CUZK_OK, CUZK_EINVAL (n_vars < n_public + 1, or domain_size not a power of two) or
 * CUZK_ENOMEM (the struct is then freed). */
int cuzk_zkey_alloc(struct cuzk_zkey *z, uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                    uint32_t n_coefs);

/* Writes the key to the stream, or to a new file at path (removed again on failure). Returns
 * CUZK_OK, CUZK_EINVAL (inconsistent struct) or CUZK_EIO, with a sentence in err. */
int cuzk_zkey_write(FILE *f, const struct cuzk_zkey *z, char *err, size_t errlen);
int cuzk_zkey_save(const char *path, const struct cuzk_zkey *z, char *err, size_t errlen);

#endif
