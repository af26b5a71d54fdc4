/* The synthetic proof kind: a built-in workload with the shape of Filecoin's circuits (a
 * witness that is mostly bits, many partitions per job, keys of any size) without their
 * inputs, for benchmarks and tests of the engine at any scale.
 *
 * The circuit of N constraints (N >= CUZK_SYNTH_MIN_CONSTRAINTS) is a chain of R = (N - 1) /
 * 194 rounds of a 64-bit mixing function, each proved with bit decompositions:
 *   u_r = s_r^2 + K_r                     (1 constraint; s_0 public, K_r fixed constants)
 *   u_r = sum_j 2^j b_j, b_j in {0, 1}    (128 booleanity constraints + 1 packing)
 *   x_j = b_j XOR b_(j+64), j < 64        (64 constraints: 2 b_j b_(j+64) = b_j + b_(j+64) - x_j)
 *   s_(r+1) = sum_j 2^j x_j               (a linear combination, no constraint)
 * then out = s_R (1 constraint) and N - 194 R - 1 padding booleanity constraints. Wires:
 * [1, out, s_0, then per round u, b_0..b_127, x_0..x_63]: n_vars = 3 + 193 R, two public
 * inputs (out, s_0), 192 of every 193 private wires are bits.
 *
 * As a kind ("synthetic"): circuit id "<N>" or "<N>x<P>" (N may end in K or M: x1024,
 * x1048576; P partitions per job, 1..1024, default from the engine config); the request's
 * seed gives partition p the start value s_0 = cuzk_synth_partition_seed(seed, p).
 * Synthesis computes the witness and, when `check` is set, evaluates every constraint on it
 * (A w, B w, C w row by row, the work a constraint-system synthesizer does). Keys come from
 * the development setup (groth16/setup.h, insecure: test keys), cached as
 * <cache_dir>/synthetic-<N>.zkey: loaded when present, else set up and saved (a lock file
 * makes concurrent processes create it once; the file appears atomically by rename).
 * Thread-safety: everything here is reentrant. */
#ifndef CUZK_ENGINE_SYNTHETIC_H
#define CUZK_ENGINE_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "engine/kind.h"
#include "ff/fr.h"
#include "formats/r1cs.h"

#define CUZK_SYNTH_MIN_CONSTRAINTS 195u /* one round plus the output constraint */
#define CUZK_SYNTH_MAX_CONSTRAINTS (1u << 28)
#define CUZK_SYNTH_MAX_PARTITIONS 1024u

struct cuzk_synth_shape {
    uint32_t n_constraints, rounds, pad;
    uint32_t n_vars, n_public, domain_size;
    uint64_t nnz[3]; /* terms of A, B, C */
};

/* Returns CUZK_OK or CUZK_EINVAL (N out of range). */
int cuzk_synth_shape(uint32_t n_constraints, struct cuzk_synth_shape *out);
/* The circuit as an r1cs (free with cuzk_r1cs_free). Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_synth_r1cs(const struct cuzk_synth_shape *s, struct cuzk_r1cs *out);
/* The witness for start value s0: w[0 .. n_vars). */
void cuzk_synth_witness(const struct cuzk_synth_shape *s, uint64_t s0, cuzk_fr *w);
uint64_t cuzk_synth_partition_seed(uint64_t seed, uint32_t part);

/* The kind. cache_dir NULL = no disk cache. */
int cuzk_kind_synthetic_create(struct cuzk_kind **out, const char *cache_dir,
                               unsigned default_partitions, int check);
/* Jobs and preloads of a key above max_constraints (0 = no bound, the default) that is not
 * stored in cache_dir are refused with CUZK_EDENIED: no client-chosen setups of huge keys.
 * Call before the kind is registered. */
void cuzk_kind_synthetic_set_max_setup(struct cuzk_kind *k, uint32_t max_constraints);
/* The synthetic-*.zkey files of cache_dir stay within bytes (0 = no bound): before a new key
 * file is stored, the least recently used others are removed (one being loaded is kept).
 * Call before the kind is registered. */
void cuzk_kind_synthetic_set_max_cache(struct cuzk_kind *k, uint64_t bytes);

#endif
