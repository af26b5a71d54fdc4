/* Groth16 over BLS12-381 with snarkjs-compatible keys and bellperson's: proving keys, proofs,
 * the prover behind a backend vtable, and verification.
 *
 * The prover follows snarkjs exactly (see the snarkjs reference, section 7): a and b from the
 * key's A/B rows (the constraints, then one A-only row w_s per public input, ONE included),
 * c = a o b, each of a, b, c taken by an inverse NTT to coefficients and by a coset NTT to the
 * odd 2n-th roots of unity, h = a b - c there (no division by Z: the key's H points absorb it),
 * then MSMs of the witness with A, B1, B2, C and of h with H, and the blinding with random r and
 * s. So every snarkjs .zkey proves, and snarkjs verifies the proofs. A key whose H is in
 * bellperson's coefficient basis (pk->h_basis = CUZK_H_COEFF, formats/g16key.h: n - 1 points
 * tau^i t(tau) / delta) takes bellperson's h instead: the coefficients h_0 .. h_(n-2) of
 * (A B - C) / t, t = x^n - 1, from the evaluations on the coset g <omega_n> (g =
 * cuzk_fr_generator() = 7, bellperson's shift), where t is the constant g^n - 1
 * (cuzk_groth16_pk_h); everything else is the same. So the proofs of a bellperson parameter
 * file are the proofs bellperson makes (for the same r, s).
 *
 * A proving key (struct cuzk_groth16_pk) is a view: it points at a constraint system for the
 * A/B rows (a zkey's coefficients turned into CSR by cuzk_groth16_pk_prepare, or a Filecoin
 * circuit's pre-compiled system, whose public-input rows are implicit), at the points of the
 * A, B1, B2, C and H queries in host memory or, when the key lives on a device only, at the
 * key file the device loads them from, and holds the header points. The A and B queries may
 * be *filtered by density*: they then hold points only for the wires listed in a_wires /
 * b_wires (the wires whose column is not empty; an absent wire's point is the identity in
 * the unfiltered key, so every MSM, and so every proof, is unchanged).
 *
 * Backends (cpu, cuda) implement one synchronous call, prove, run on the caller's thread
 * (the engine's device worker); they report their memory model, supply the witness buffers
 * they read fastest, say through hooks when they no longer need the witness and when they
 * hold and release the device, and return an error sentence with their error code.
 *
 * Thread-safety: a proving key is read-only and may be shared by concurrent proofs. */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "formats/g16key.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "r1cs/cs.h"
#include "util/rand.h"

struct cuzk_pool;
struct cuzk_g16key; /* formats/g16key.h: a key file opened for reading */

/* Proofs and verification keys have the snarkjs shapes of formats/snarkjs_json.h (the files
 * they travel in): struct cuzk_snarkjs_proof and struct cuzk_snarkjs_vk. */

/* A proving key (see above). Every pointer is borrowed from the key's owner (a kind's loaded
 * key), which keeps it valid for the pk's life. Invariants: log_n >= 1, domain_size = 2^log_n
 * >= cs->n_rows + n_pub_rows; cs->n_cols = n_vars; n_pub_rows is 0 (the rows are in cs, as in
 * a zkey) or n_public + 1 (row cs->n_rows + s is w_s in A, empty in B); the wire lists are
 * strictly increasing (NULL with n_a = n_vars: every wire); every public wire (0..n_public) is
 * in the A list (the public-input rows). */
struct cuzk_groth16_pk {
    uint32_t n_vars, n_public, domain_size;
    int log_n;
    cuzk_g1_affine alpha1, beta1, delta1;
    cuzk_g2_affine beta2, gamma2, delta2;
    const cuzk_g1_affine *ic; /* n_public + 1 (the verification key's) */
    const struct cuzk_cs *cs; /* the A and B rows (C is read only to check witnesses) */
    uint32_t n_pub_rows;
    uint32_t n_a, n_b;                 /* points in the A and the B1 / B2 queries */
    const uint32_t *a_wires, *b_wires; /* their wires; NULL = every wire */
    /* the points in host memory, or all NULL when only a device holds them (loaded from file) */
    const cuzk_g1_affine *a, *b1, *c, *h; /* c: wires n_public + 1 .. n_vars - 1; h: below */
    enum cuzk_h_basis h_basis; /* h holds cuzk_h_basis_points(h_basis, domain_size) points */
    const cuzk_g2_affine *b2;
    struct cuzk_g16key *file; /* where the points are stored; NULL = host memory only */
    uint64_t uid;             /* unique among the pks of this process (cuzk_groth16_pk_uid) */
    struct cuzk_cs own;       /* cuzk_groth16_pk_prepare's CSR of a zkey (cs points here) */
};

/* A fresh identifier for a pk: backends cache device-resident keys by it. */
uint64_t cuzk_groth16_pk_uid(void);
/* log2 of a domain size for a pk: CUZK_OK and *log_n, or CUZK_EFORMAT (not a power of two, or
 * too large for the odd 2n-th roots of unity snarkjs uses). */
int cuzk_groth16_domain_log(uint32_t domain_size, int *log_n);

/* c[i] = a[i] b[i] for i < n, on the pool (c may be neither a nor b). */
void cuzk_groth16_hadamard(struct cuzk_pool *pool, const cuzk_fr *a, const cuzk_fr *b, cuzk_fr *c,
                           size_t n);

/* Prepares pk from a zkey z (borrowed: it must outlive the pk): its A/B coefficients become
 * the CSR rows pk->own (public-input rows included, n_pub_rows = 0), dense queries, host points,
 * the snarkjs H basis.
 * Returns CUZK_OK, CUZK_ENOMEM or CUZK_EFORMAT (a domain size that is not a power of two, or too
 * large for the roots of unity snarkjs uses). */
int cuzk_groth16_pk_prepare(struct cuzk_groth16_pk *pk, const struct cuzk_zkey *z);
/* Frees what the pk owns (pk->own) and zeroes it. */
void cuzk_groth16_pk_free(struct cuzk_groth16_pk *pk);
/* The verification key of pk (alphabeta included). CUZK_OK or CUZK_ENOMEM. */
int cuzk_groth16_vk_from_pk(struct cuzk_snarkjs_vk *vk, const struct cuzk_groth16_pk *pk);
/* The verification key of a proving key (snarkjs zkey export verificationkey), alphabeta
 * included. Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_groth16_vk_from_zkey(struct cuzk_snarkjs_vk *vk, const struct cuzk_zkey *z);
/* CUZK_OK when vk's alphabeta is e(alpha1, beta2), else CUZK_EFORMAT with the sentence "vk:
 * vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)". */
int cuzk_groth16_vk_check(const struct cuzk_snarkjs_vk *vk, char *err, size_t errlen);
/* cuzk_snarkjs_vk_load, then cuzk_groth16_vk_check: a verification key file as a verifier
 * takes it. */
int cuzk_groth16_vk_load(struct cuzk_snarkjs_vk *vk, const char *path, char *err, size_t errlen);
/* a = A w and b = B w over the key's rows (the public-input rows included), zeros up to
 * domain_size, on pool: the CPU SpMV every backend's device version must equal. */
int cuzk_groth16_pk_eval(struct cuzk_pool *pool, const struct cuzk_groth16_pk *pk, const cuzk_fr *w,
                         cuzk_fr *a, cuzk_fr *b);
/* The scalars of the H MSM from a and b of cuzk_groth16_pk_eval (domain_size elements each), on
 * pool, into a (b and c, domain_size elements of scratch, are overwritten): c = a o b, then
 *   CUZK_H_SNARKJS  a, b, c to coefficients and to the odd 2n-th roots; a_j = a_j b_j - c_j;
 *   CUZK_H_COEFF    the inverse coset NTT of (a' b' - c') / (7^n - 1) on the coset 7 <omega_n>
 *                   (a', b', c' the coset evaluations): a_i is the coefficient of x^i in
 *                   (A B - C) / t. Computed as (coset_inverse(a' b') - c's coefficients) /
 *                   (7^n - 1), the same values (the transform is linear and takes c' back to c's
 *                   coefficients) with six NTTs instead of seven.
 * The key's H MSM reads the first cuzk_h_basis_points values. In the coefficient basis the last
 * value, a_(n-1), is always zero: C interpolates c = a o b, so A B - C vanishes on the domain
 * for every witness and its quotient by t has degree n - 2 (checked in debug builds). A witness
 * that does not satisfy the system gives a proof that does not verify in either basis: its C'
 * (the key's C points, made from the system's C) does not match. The CPU computation every
 * backend's device version must equal. CUZK_OK, or CUZK_ENOMEM / CUZK_EINVAL from the NTT's
 * domain (ntt/ntt.h). */
int cuzk_groth16_pk_h(struct cuzk_pool *pool, const struct cuzk_groth16_pk *pk, cuzk_fr *a,
                      cuzk_fr *b, cuzk_fr *c);

/* Checks a proof for public inputs pub[0..n_pub): returns 1 if valid, 0 if not, CUZK_EINVAL if
 * n_pub != vk->n_public. The proof's points must already be validated (on curve, in the
 * subgroup: the decoders do it). */
int cuzk_groth16_verify(const struct cuzk_snarkjs_vk *vk, const cuzk_fr *pub, size_t n_pub,
                        const struct cuzk_snarkjs_proof *proof);

/* ---- the prover and its backends ----------------------------------------------------------- */

/* Told by a backend during one proof (every entry may be NULL; called on the proving thread). */
struct cuzk_prove_hooks {
    void *ctx;
    /* the backend no longer reads the witness: its buffer may be reused before prove returns
     * (a GPU backend calls it once the witness is in device memory); called exactly once per
     * proof, on success and failure alike */
    void (*witness_done)(void *ctx);
    /* the device is this proof's from now on (its lock taken), and no longer; called in pairs,
     * at most once each (not at all when the proof fails before reaching the device) */
    void (*device_begin)(void *ctx);
    void (*device_end)(void *ctx);
    /* the job's priority (enum cuzk_priority; 0 without hooks): a backend with fewer places
     * than callers (the CUDA backend's witness slots) serves the highest first */
    int priority;
};

/* What one proof reports (times in milliseconds). */
#define CUZK_STAGES_MAX 400
struct cuzk_prove_info {
    double lock_ms;               /* waiting for the device (another proof held it) */
    double device_ms;             /* device_begin .. device_end */
    char stages[CUZK_STAGES_MAX]; /* the backend's stage times as "name_ms=X ..." ("" = none) */
};

/* What a backend holds for a key of given sizes (bytes). */
struct cuzk_backend_mem {
    uint64_t proof_host; /* host memory one proof holds besides its witness, until it returns */
    uint64_t proof_vram; /* device memory one proof allocates (0: reserved once, at upload) */
    uint64_t key_host;   /* host memory kept while such a key is in use (e.g. the CPU NTT's
                            cached domain tables) */
};

struct cuzk_backend {
    const char *name;
    void *impl; /* backend state */
    /* Proves witness w (n_w = pk->n_vars values, w[0] = 1) with blinding factors r and s on the
     * calling thread; hooks and info may be NULL. Returns CUZK_OK with *out, or an error code
     * with a sentence in err (what failed, where, why). */
    int (*prove)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk, const cuzk_fr *w,
                 size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                 const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                 struct cuzk_prove_info *info, char *err, size_t errlen);
    /* The memory model for a key of these sizes (struct cuzk_backend_mem). Required. */
    void (*mem)(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain_size,
                struct cuzk_backend_mem *out);
    /* Optional: witness buffers of n elements in the memory this backend reads fastest (pinned
     * host memory for a GPU); NULL = aligned heap memory. free gets the size alloc was given. */
    int (*witness_alloc)(const struct cuzk_backend *be, size_t n, cuzk_fr **out);
    void (*witness_free)(const struct cuzk_backend *be, cuzk_fr *w, size_t n);
    /* Optional HOT tier: makes pk resident in device memory (its points, from host memory or
     * from pk->file, and its A/B rows), so that later proofs need none of pk's host arrays;
     * *vram_bytes = what it takes. CUZK_EGPUOOM (with a sentence naming the sizes) when the
     * device's memory budget cannot hold it now (the caller may evict other keys and try
     * again); CUZK_EUNSUPPORTED when it could not even with no other key resident (evicting
     * helps nothing); CUZK_EFORMAT when the key file is corrupt. */
    int (*key_upload)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                      uint64_t *vram_bytes, char *err, size_t errlen);
    /* Frees pk's resident copy (no proof of pk may be running). */
    void (*key_drop)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
    /* Optional: the host memory an upload of pk would keep beside its device copy (the CUDA
     * backend's pinned copies of the queries its residency plan streams), so that the caller
     * charges it before key_upload; NULL or 0: none. */
    uint64_t (*key_host)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
    /* Optional: 1 when proofs of pk, resident, still read its A/B rows (pk->cs) in host memory
     * (the CUDA backend's plan that leaves them there and runs the SpMV on the CPU), so that
     * the caller keeps them; NULL or 0: the device holds them. */
    int (*key_needs_rows)(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk);
    /* Optional: how many proofs the backend works on at once now (the CUDA backend's witness
     * slots: two, one in a lean work space), so that the caller's workers beyond that leave
     * their partitions in the queue, where priority decides what runs next, instead of
     * holding one while they wait; NULL or 0: as many as call. Read without the backend's
     * locks (cheap). */
    unsigned (*places)(const struct cuzk_backend *be);
    /* Optional: one line of the device's memory for status pages (the CUDA backend: what its
     * budget holds, and each resident key's residency plan); "" when there is nothing to say.
     * Never waits for a proof. */
    void (*describe)(const struct cuzk_backend *be, char *buf, size_t len);
    /* Optional: the device behind the backend, for status pages: its CUDA ordinal and its
     * memory (total; free now, for every process on it). CUZK_OK and all three set, or an
     * error (nothing set); NULL: no device (the CPU backend). Never waits for a proof. */
    int (*device_info)(const struct cuzk_backend *be, int *ordinal, uint64_t *total,
                       uint64_t *free_now);
};

/* What a backend's heavy part produces: the five MSMs of snarkjs' prover (A' = sum w_i A_i,
 * B1', B2' likewise, C' over the private wires, H' = sum h_j H_j over the key's H points). */
struct cuzk_groth16_msms {
    cuzk_g1 a, b1, c, h;
    cuzk_g2 b2;
};

/* The blinding every backend finishes with:
 *   pi_a = alpha1 + A' + r delta1, pi_b = beta2 + B2' + s delta2,
 *   pi_c = C' + H' + s pi_a + r (beta1 + B1' + s delta1) - r s delta1. */
void cuzk_groth16_assemble(const struct cuzk_groth16_pk *pk, const struct cuzk_groth16_msms *m,
                           const cuzk_fr *r, const cuzk_fr *s, struct cuzk_snarkjs_proof *out);

/* The CPU backend: the heavy work on pool (NULL: the calling thread), which must outlive the
 * backend. Needs pk's host points. */
void cuzk_cpu_backend_init(struct cuzk_backend *be, struct cuzk_pool *pool);

/* A proof with blinding factors from rng (NULL: the kernel's randomness; a seeded rng is for
 * tests); hooks, info and err may be NULL. */
int cuzk_groth16_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                       const cuzk_fr *w, size_t n_w, struct cuzk_rng *rng,
                       const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                       struct cuzk_prove_info *info, char *err, size_t errlen);

#endif
