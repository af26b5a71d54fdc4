/* The Groth16 development setup: a snarkjs-compatible .zkey made directly from an .r1cs with
 * fresh random toxic waste (tau, alpha, beta, delta; gamma = 1 as snarkjs always has).
 *
 * INSECURE BY DESIGN: whoever runs it could keep the secrets and forge proofs. It exists for
 * tests and benchmarks, where a real ceremony (snarkjs powersoftau + zkey contribute) would
 * take hours; real deployments bring a ceremony zkey. The secrets are wiped before returning.
 *
 * Contract: the key is the one snarkjs' `groth16 setup` would derive from a ceremony with these
 * secrets: domain n = 2^(floor(log2(nConstraints + nPublic)) + 1), nPublic + 1 extra A rows
 * binding the public inputs, A/B1/B2 the Lagrange-basis evaluations of the QAP columns, IC and
 * C the (beta u + alpha v + w) combinations (C divided by delta), and H the odd-indexed
 * Lagrange basis of the 2n-th roots of unity divided by delta (the snarkjs H convention). The
 * heavy loops run on the pool. Thread-safety: reentrant. */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stddef.h>

#include "formats/r1cs.h"
#include "formats/zkey.h"
#include "util/rand.h"

struct cuzk_pool;

/* Fills *z (which must be zeroed; free it with cuzk_zkey_free). rng NULL = the kernel's
 * randomness (a seeded rng is for reproducible tests only). Returns CUZK_OK, CUZK_ENOMEM,
 * CUZK_ERANGE (circuit too large for a 2^31 domain) or CUZK_EINVAL, with a message in err. */
int cuzk_groth16_setup(struct cuzk_pool *pool, const struct cuzk_r1cs *r1cs, struct cuzk_rng *rng,
                       struct cuzk_zkey *z, char *err, size_t errlen);

#endif
