/* Groth16 over BLS12-381 with snarkjs keys: proving keys, proofs, the split prover
 * (prove_start / prove_finish) behind a backend vtable, and verification.
 *
 * The prover follows snarkjs exactly (see the snarkjs reference, section 7): a and b from the
 * key's A/B coefficients (with the nPublic + 1 public-input rows), c = a o b, each of a, b, c
 * taken by an inverse NTT to coefficients and by a coset NTT to the odd 2n-th roots of unity,
 * h = a b - c there (no division by Z: the key's H points absorb it), then MSMs of the
 * witness with A, B1, B2, C and of h with H, and the blinding with random r and s. So every
 * snarkjs .zkey proves, and snarkjs verifies the proofs.
 *
 * The split: prove_start does the heavy work (SpMV, NTTs, MSMs) and returns a pending handle
 * at once, the work running in the background; prove_finish waits for it and assembles the
 * proof. A daemon overlaps one proof's finish with the next one's start. Backends (cpu here,
 * cuda later) implement the same two calls; callers use only the vtable.
 *
 * Thread-safety: a prepared key is read-only and may be shared by concurrent proofs; a pending
 * handle belongs to one caller. */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "r1cs/cs.h"
#include "util/rand.h"

struct cuzk_pool;

/* Proofs and verification keys have the snarkjs shapes of formats/snarkjs_json.h (the files
 * they travel in): struct cuzk_snarkjs_proof and struct cuzk_snarkjs_vk. */

/* A proving key ready for repeated proofs: the zkey (borrowed: it must outlive the pk) and its
 * A/B coefficients as CSR rows, so a and b come from a multi-threaded SpMV. */
struct cuzk_groth16_pk {
    const struct cuzk_zkey *zkey;
    struct cuzk_cs ab; /* rows = the key's constraints plus the public-input rows */
    int log_n;         /* domain_size = 2^log_n */
};

/* Prepares pk from z. Returns CUZK_OK, CUZK_ENOMEM or CUZK_EFORMAT (a domain size that is not a
 * power of two, or too large for the roots of unity snarkjs uses). */
int cuzk_groth16_pk_prepare(struct cuzk_groth16_pk *pk, const struct cuzk_zkey *z);
void cuzk_groth16_pk_free(struct cuzk_groth16_pk *pk);

/* Checks a proof for public inputs pub[0..n_pub): returns 1 if valid, 0 if not, CUZK_EINVAL if
 * n_pub != vk->n_public. The proof's points must already be validated (on curve, in the
 * subgroup: the decoders do it). */
int cuzk_groth16_verify(const struct cuzk_snarkjs_vk *vk, const cuzk_fr *pub, size_t n_pub,
                        const struct cuzk_snarkjs_proof *proof);

/* ---- the split prover and its backends ---------------------------------------------------- */

struct cuzk_prove_pending;

struct cuzk_backend {
    const char *name;
    /* Starts a proof of witness w (n_w = the key's n_vars values, w[0] = 1). r and s are the
     * blinding factors. On success *out receives the handle that prove_finish consumes. */
    int (*prove_start)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                       const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                       struct cuzk_prove_pending **out);
    /* Waits for the work, assembles the proof and frees the handle (also on error). */
    int (*prove_finish)(struct cuzk_prove_pending *p, struct cuzk_snarkjs_proof *out);
    void *impl; /* backend state */
};

/* What a backend's heavy part produces: the five MSMs of snarkjs' prover (A' = sum w_i A_i,
 * B1', B2' likewise, C' over the private wires, H' = sum h_j H_j). */
struct cuzk_groth16_msms {
    cuzk_g1 a, b1, c, h;
    cuzk_g2 b2;
};

/* The blinding every backend finishes with:
 *   pi_a = alpha1 + A' + r delta1, pi_b = beta2 + B2' + s delta2,
 *   pi_c = C' + H' + s pi_a + r (beta1 + B1' + s delta1) - r s delta1. */
void cuzk_groth16_assemble(const struct cuzk_zkey *z, const struct cuzk_groth16_msms *m,
                           const cuzk_fr *r, const cuzk_fr *s, struct cuzk_snarkjs_proof *out);

/* The CPU backend: heavy work on a background thread that uses pool (NULL: one thread).
 * The pool must outlive every proof started. */
void cuzk_cpu_backend_init(struct cuzk_backend *be, struct cuzk_pool *pool);

/* Blinding factors from rng (NULL: the kernel's randomness; a seeded rng is for tests). */
int cuzk_groth16_prove_start(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                             const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                             struct cuzk_prove_pending **out);
int cuzk_groth16_prove_finish(const struct cuzk_backend *be, struct cuzk_prove_pending *p,
                              struct cuzk_snarkjs_proof *out);
/* start + finish. */
int cuzk_groth16_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                       const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                       struct cuzk_snarkjs_proof *out);

#endif
