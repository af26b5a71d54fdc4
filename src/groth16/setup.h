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
 * heavy loops run on the pool.
 *
 * The point sections may be computed on a GPU (cuzk_groth16_setup_ex): the scalars still come
 * from the CPU, the GPU multiplies the generators by them. The key is the same, byte for byte,
 * as the CPU computes for the same secrets. Thread-safety: reentrant. */
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

/* Where the point sections are computed. */
enum cuzk_setup_gpu {
    /* The environment variable CUZK_SETUP_GPU=0 or =1 decides (OFF or ON); otherwise ON when
     * the device exists and the domain is at least 2^CUZK_SETUP_GPU_MIN_LOG, else OFF. */
    CUZK_SETUP_GPU_AUTO = 0,
    CUZK_SETUP_GPU_OFF = 1,  /* the CPU */
    CUZK_SETUP_GPU_ON = 2,   /* the GPU; on any GPU failure a warning on stderr, then the CPU */
    CUZK_SETUP_GPU_ONLY = 3, /* the GPU; a GPU failure is returned (with a message in err) */
};
#define CUZK_SETUP_GPU_MIN_LOG 16

struct cuzk_setup_opts {
    enum cuzk_setup_gpu gpu;
    int device; /* the CUDA device, >= 0 */
};

/* cuzk_groth16_setup with a choice of device; opts NULL = {CUZK_SETUP_GPU_AUTO, device 0}, what
 * cuzk_groth16_setup uses. Besides its errors: CUZK_EINVAL for a negative device, and in ONLY
 * mode CUZK_ENODEV, CUZK_EGPU, CUZK_EGPUOOM. */
int cuzk_groth16_setup_ex(struct cuzk_pool *pool, const struct cuzk_r1cs *r1cs,
                          struct cuzk_rng *rng, const struct cuzk_setup_opts *opts,
                          struct cuzk_zkey *z, char *err, size_t errlen);

#endif
