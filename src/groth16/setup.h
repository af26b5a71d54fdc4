/* The Groth16 development setup: a proving key made directly from a constraint system with
 * fresh random toxic waste (tau, alpha, beta, delta; gamma = 1 as snarkjs always has).
 *
 * INSECURE BY DESIGN: whoever runs it could keep the secrets and forge proofs. It exists for
 * tests and benchmarks, where a real ceremony (snarkjs powersoftau + zkey contribute) would
 * take hours; real deployments bring a ceremony key. The secrets are wiped before returning.
 *
 * Contract: the key is the one snarkjs' `groth16 setup` would derive from a ceremony with these
 * secrets: domain n = 2^(floor(log2(nConstraints + nPublic)) + 1), nPublic + 1 extra A rows
 * binding the public inputs, A/B1/B2 the Lagrange-basis evaluations of the QAP columns, IC and
 * C the (beta u + alpha v + w) combinations (C divided by delta), and H the odd-indexed
 * Lagrange basis of the 2n-th roots of unity divided by delta (the snarkjs H convention). A
 * points-only key may instead take bellperson's H (cuzk_keygen_opts.h_basis = CUZK_H_COEFF):
 * the n - 1 points tau^i t(tau) / delta, t = x^n - 1, the key bellperson's generator makes
 * with these secrets (formats/g16key.h, enum cuzk_h_basis).
 *
 * Two outputs:
 *   - cuzk_groth16_setup[_ex]: a snarkjs .zkey in memory (struct cuzk_zkey: dense A and B
 *     queries and the coefficient section), from an .r1cs;
 *   - cuzk_groth16_keygen: a points-only key of a pre-compiled constraint system (whose
 *     public-input rows are implicit), with the A and B queries filtered by density (only
 *     the wires whose column is not empty: the public wires for A always), streamed to a sink
 *     section by section in chunks of CUZK_KEYGEN_CHUNK points: to a key file
 *     (formats/g16key.h) or into host arrays. Its host memory is the system, the Lagrange
 *     basis (32 n bytes), the QAP columns (96 n_vars bytes) and one chunk (under 1 GiB),
 *     never the key. The same secrets give the same points as the zkey setup, so a proof made
 *     with either key and the same r, s is byte-identical.
 * The point sections may be computed on a GPU (the scalars come from the CPU, the GPU
 * multiplies the generators by them); the points are the same, byte for byte, as the CPU's.
 *
 * DESIGN: three phases. (1) Secrets, the Lagrange basis at tau (parallel blocks), and the QAP
 * columns u, v, w: pool items own disjoint column ranges and each scans every row, so no two
 * threads add into one value. (2) The sections in chunks: the scalars of a chunk on the pool,
 * then its points (GPU batch multiplication, or on the pool with fixed-base tables, blocks of
 * 1024 points each converted to affine with one inversion), handed to the sink. (3) The header
 * points. Thread-safety: reentrant. */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "formats/g16key.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "r1cs/cs.h"
#include "util/rand.h"

struct cuzk_pool;

/* Fills *z (which must be zeroed; free it with cuzk_zkey_free). rng NULL = the kernel's
 * randomness (a seeded rng is for reproducible tests only). Returns CUZK_OK, CUZK_ENOMEM,
 * CUZK_ERANGE (circuit too large for a 2^28 domain) or CUZK_EINVAL, with a message in err. */
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

/* ---- points-only keys of pre-compiled systems -------------------------------------------- */

#define CUZK_KEYGEN_CHUNK ((size_t)1 << 22) /* points per sink call (at most) */

/* Where cuzk_groth16_keygen puts the key. begin is called once with the sizes, the header
 * points, IC and the two wire lists (valid during the call only); then put is called with the
 * points of the sections in the order A, B1, B2, C, H, each section's points in order, at most
 * CUZK_KEYGEN_CHUNK per call (G1 sections cuzk_g1_affine, B2 cuzk_g2_affine). A non-zero
 * return stops the setup and is returned (with the sink's sentence in err). */
struct cuzk_keygen_sink {
    void *ctx;
    int (*begin)(void *ctx, const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                 const uint32_t *a_wires, const uint32_t *b_wires, char *err, size_t errlen);
    int (*put)(void *ctx, enum cuzk_g16key_section s, const void *points, size_t n, char *err,
               size_t errlen);
};

struct cuzk_keygen_opts {
    struct cuzk_setup_opts setup; /* where the points are computed */
    struct cuzk_rng *rng;         /* NULL = the kernel's randomness */
    int compressed;               /* info.compressed (a file sink's encoding) */
    uint32_t chunk_points;        /* info.chunk_points; 0 = CUZK_G16KEY_CHUNK_DEFAULT */
    uint64_t cs_checksum;         /* info.cs_checksum: names the system the key belongs to */
    int dense;                    /* 1: no density filter (every wire in A and B), for tests */
    enum cuzk_h_basis h_basis;    /* info.h_basis: H in snarkjs's basis (the default) or in
                                     bellperson's, n - 1 points tau^i t(tau) / delta */
};

/* The key of cs (n_public = cs->n_public; the public-input rows are implicit) into sink.
 * Returns CUZK_OK, CUZK_ENOMEM, CUZK_ERANGE (too large), CUZK_EINVAL, a GPU error in
 * CUZK_SETUP_GPU_ONLY mode, or the sink's error, with a sentence in err. */
int cuzk_groth16_keygen(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                        const struct cuzk_keygen_opts *opts, const struct cuzk_keygen_sink *sink,
                        char *err, size_t errlen);
/* The density lists of cs, the wires whose column of A (resp. B) holds a nonzero coefficient,
 * the public wires (0 .. n_public) always in A (their rows are implicit): what a filtered key's
 * A and B queries are indexed by (malloc'd, strictly increasing; free them). CUZK_OK,
 * CUZK_ENOMEM or cuzk_cs_density's CUZK_EINVAL. */
int cuzk_groth16_wire_lists(const struct cuzk_cs *cs, uint32_t **a_wires, uint32_t *n_a,
                            uint32_t **b_wires, uint32_t *n_b);
/* The domain of a system of these sizes (the setup's convention). 0 when above 2^28. */
uint32_t cuzk_groth16_domain_for(uint64_t n_rows, uint64_t n_public);

/* A points-only key in host memory (the sink of cuzk_groth16_keygen_mem, or a key file read
 * whole by cuzk_groth16_keydata_load). Owns every array. */
struct cuzk_groth16_keydata {
    struct cuzk_g16key_info info;
    cuzk_g1_affine *ic;
    uint32_t *a_wires, *b_wires;
    cuzk_g1_affine *a, *b1, *c, *h; /* NULL when only the header was loaded */
    cuzk_g2_affine *b2;
};
int cuzk_groth16_keygen_mem(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                            const struct cuzk_keygen_opts *opts, struct cuzk_groth16_keydata *out,
                            char *err, size_t errlen);
/* Writes the key to a new file at path (the caller renames a temporary name into place). */
int cuzk_groth16_keygen_file(struct cuzk_pool *pool, const struct cuzk_cs *cs,
                             const struct cuzk_keygen_opts *opts, const char *path, char *err,
                             size_t errlen);
/* Reads an open key file's header, IC and wire lists, and (points = 1) every point section
 * decoded on pool. */
int cuzk_groth16_keydata_load(struct cuzk_groth16_keydata *kd, struct cuzk_g16key *file,
                              struct cuzk_pool *pool, int points, char *err, size_t errlen);
/* The verification key of kd (its header points and IC). CUZK_OK or CUZK_ENOMEM. */
int cuzk_groth16_vk_from_keydata(struct cuzk_snarkjs_vk *vk, const struct cuzk_groth16_keydata *kd);
/* Frees the point sections only (the header, IC and wire lists stay). */
void cuzk_groth16_keydata_drop_points(struct cuzk_groth16_keydata *kd);
void cuzk_groth16_keydata_free(struct cuzk_groth16_keydata *kd);
/* Host bytes of such a key, with or without its points. */
uint64_t cuzk_groth16_keydata_bytes(uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                                    uint32_t n_a, uint32_t n_b, int points);

struct cuzk_groth16_pk;
/* A pk over kd and cs (both borrowed): filtered queries, host points when kd has them, file the
 * key file they come from (may be NULL). Returns CUZK_OK or CUZK_EFORMAT (kd does not fit cs,
 * or a bad domain). */
int cuzk_groth16_pk_from_keydata(struct cuzk_groth16_pk *pk, const struct cuzk_groth16_keydata *kd,
                                 const struct cuzk_cs *cs, struct cuzk_g16key *file);

#endif
