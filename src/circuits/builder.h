/* The constraint-system builder: the one interface every gadget and circuit is written against,
 * run in one of three modes.
 *
 *   CUZK_BUILDER_RECORD   appends every constraint to a struct cuzk_cs (the pre-compiled
 *                         constraint system, "PCE") and, when built with values, also computes
 *                         the witness;
 *   CUZK_BUILDER_WITNESS  computes the witness only: no linear combination is built and no row is
 *                         stored (the per-job synthesis path);
 *   CUZK_BUILDER_COUNT    stores neither rows nor values: it counts rows, variables, public
 *                         inputs, boolean variables and the non-zeros of A, B and C, with memory
 *                         that does not grow with the circuit (a 130 M-row PoRep partition is
 *                         sized without the 26 GB its matrices take).
 *
 * Why one struct with a mode field rather than a vtable: the three modes differ only inside a
 * handful of tiny operations (allocate a variable, add a term, enforce a row) that run hundreds
 * of millions of times per circuit; a branch on a mode that never changes during a run is
 * predicted perfectly and lets those operations be inlined, where an indirect call per term
 * could not be. There are exactly three modes and all live in this module, so nothing is gained
 * by an open vtable. The same gadget code therefore runs unchanged in all modes.
 *
 * Variables. A cuzk_var is 32 bits: CUZK_VAR_ONE (0) is the constant one, public input i
 * (1 <= i < 2^31) is the value i, and private ("aux") variable j is CUZK_VAR_AUX | j. Circuits
 * allocate inputs and aux interleaved (Filecoin's do), so the two are numbered in separate
 * spaces while building and laid out only by cuzk_builder_finish in the order Groth16 and
 * snarkjs expect: column 0 = ONE, columns 1 .. n_inputs-1 = the public inputs in allocation
 * order, then the aux in allocation order (column n_inputs + j). The recorded system is
 * remapped to those columns at finish, in one pass over its terms.
 *
 * Linear combinations (struct cuzk_lc) follow bellman/bellperson exactly, because the
 * non-zero counts depend on it: an LC maps each variable to one coefficient; adding a variable
 * that is already present adds to its coefficient (the term is merged, never duplicated), and a
 * coefficient that sums to zero keeps its term (bellperson never removes one). Constants are
 * terms on CUZK_VAR_ONE and merge like any other term. A row's non-zeros per matrix are the
 * number of distinct variables of its LC.
 *   - RECORD mode keeps variables and coefficients;
 *   - COUNT mode keeps the variables only (coefficients are not computed: gadget structure must
 *     never depend on a coefficient's value, only on which variables appear);
 *   - WITNESS mode keeps nothing (every LC operation returns at once, and cuzk_builder_enforce
 *     only counts the row).
 * An LC never carries a value: as in bellman, a gadget computes the values it allocates from
 * its inputs' values (see cuzk_builder_has_values), not by evaluating its LCs.
 *
 * Rows. The recorded system holds the circuit's constraints only. Groth16 as bellperson (and
 * cuzk's PCE figures) count one more A-only row per public input, ONE included; snarkjs's
 * setup (and cuzk_groth16_setup) adds those rows itself. struct cuzk_builder_counts reports the
 * circuit constraints, and cuzk_builder_counts_rows / _nnz_a add the input rows, so counts can
 * be compared with either convention.
 *
 * Boolean variables: aux allocated by cuzk_builder_alloc_bit (whose value is 0 or 1 by
 * construction: allocated bits, XOR/AND results, SHA-256 ch/maj, carry bits). They are counted,
 * and in the modes with values marked in a bitmap (the bit-witness split of the MSMs).
 *
 * Errors. Gadgets do not check return codes: the first failure (memory, a full caller buffer)
 * is kept in the builder ("sticky"), every later operation becomes a cheap no-op returning
 * harmless variables, and cuzk_builder_error / cuzk_builder_finish report it.
 *
 * Thread-safety: a builder and its LCs belong to one thread. Different builders are
 * independent. */
#ifndef CUZK_CIRCUITS_BUILDER_H
#define CUZK_CIRCUITS_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "r1cs/cs.h"

typedef uint32_t cuzk_var;

#define CUZK_VAR_ONE ((cuzk_var)0)           /* the constant one (public input 0) */
#define CUZK_VAR_AUX ((cuzk_var)0x80000000u) /* tag bit of a private variable */
#define CUZK_VAR_MAX_INDEX 0x7fffffffu       /* largest input or aux index */

static inline int cuzk_var_is_aux(cuzk_var v) { return (v & CUZK_VAR_AUX) != 0; }
static inline uint32_t cuzk_var_index(cuzk_var v) { return v & ~CUZK_VAR_AUX; }

enum cuzk_builder_mode {
    CUZK_BUILDER_COUNT = 0,   /* counts only */
    CUZK_BUILDER_RECORD = 1,  /* rows into a struct cuzk_cs (+ values if asked) */
    CUZK_BUILDER_WITNESS = 2, /* values only */
};

/* What a circuit costs. The counts are the same in every mode (the test suite checks it). */
struct cuzk_builder_counts {
    uint64_t constraints; /* rows the circuit enforces (public-input rows not included) */
    uint64_t n_inputs;    /* public inputs, ONE included */
    uint64_t n_aux;       /* private variables */
    uint64_t n_bool;      /* private variables allocated as bits */
    uint64_t nnz[3];      /* terms of the enforced rows in A, B, C (enum cuzk_cs_matrix) */
};

/* Rows and A non-zeros as the Groth16 prover sees them (bellperson, cuzk's PCE): one more
 * A-only row, with one term, per public input (ONE included). */
static inline uint64_t cuzk_builder_counts_rows(const struct cuzk_builder_counts *c) {
    return c->constraints + c->n_inputs;
}
static inline uint64_t cuzk_builder_counts_nnz_a(const struct cuzk_builder_counts *c) {
    return c->nnz[0] + c->n_inputs;
}

/* The builder. Fields are private to builder.c (public only so that the struct can live on the
 * stack); read them through the functions below. */
struct cuzk_builder {
    enum cuzk_builder_mode mode;
    int values; /* values are computed (WITNESS, or RECORD with values) */
    int err;    /* first error, CUZK_OK if none */
    struct cuzk_builder_counts counts;
    struct cuzk_cs cs; /* RECORD: the rows, columns in the building encoding until finish */
    /* values: inputs (ONE first) and aux, each in its own array unless the caller supplied one
     * buffer in the final layout (then inputs = w, aux = w + n_inputs_fixed) */
    cuzk_fr *inputs, *aux;
    size_t inputs_cap, aux_cap;
    int caller_buffer;     /* inputs/aux point into a caller-owned buffer */
    size_t n_inputs_fixed; /* caller buffer: the number of inputs it was laid out for */
    uint64_t *bool_map;    /* bit j set when aux j is boolean (modes with values) */
    size_t bool_map_words;
};

/* ---- life cycle ---------------------------------------------------------------------------- */

/* Starts an empty circuit (only ONE allocated). with_values: RECORD computes values too when
 * non-zero; WITNESS always computes values; COUNT never does (the flag is ignored). Returns
 * CUZK_OK, CUZK_EINVAL (bad mode) or CUZK_ENOMEM. On any return the builder may be freed. */
int cuzk_builder_init(struct cuzk_builder *b, enum cuzk_builder_mode mode, int with_values);

/* Optional, right after init in a mode with values: the witness is written straight into the
 * caller's buffer w[0 .. cap) in the final layout, for a circuit known to have exactly
 * n_inputs public inputs (ONE included; take it from a COUNT run): input i at w[i], aux j at
 * w[n_inputs + j]. Saves a copy of the (multi-GB) witness. cuzk_builder_finish then returns w
 * itself and fails with CUZK_ERANGE if the circuit allocated a different number of inputs;
 * running out of room sets CUZK_ERANGE. Returns CUZK_OK or CUZK_EINVAL. */
int cuzk_builder_use_buffer(struct cuzk_builder *b, cuzk_fr *w, size_t cap, size_t n_inputs);

/* Optional: reserves room for the given numbers of aux and rows/terms (RECORD) so that a run
 * whose size is known (from a COUNT run) does not regrow its arrays. Returns CUZK_OK or
 * CUZK_ENOMEM (also kept as the builder's error). */
int cuzk_builder_reserve(struct cuzk_builder *b, const struct cuzk_builder_counts *c);

/* Ends the circuit. Returns the builder's error if it has one, else CUZK_OK and:
 *  - cs (RECORD only, may be NULL otherwise): receives the system, columns in the final
 *    order (n_cols = n_inputs + n_aux, n_public = n_inputs - 1); the caller frees it with
 *    cuzk_cs_free;
 *  - w, w_len (modes with values; may be NULL): *w = the witness [ONE, inputs..., aux...],
 *    malloc'd (free() it) unless it is the caller's buffer of cuzk_builder_use_buffer.
 * Either output may be NULL to drop it. The builder must still be freed. */
int cuzk_builder_finish(struct cuzk_builder *b, struct cuzk_cs *cs, cuzk_fr **w, size_t *w_len);

/* Releases everything the builder still owns (never the caller's buffer nor what finish handed
 * out). Safe after any error and on a zeroed struct. */
void cuzk_builder_free(struct cuzk_builder *b);

/* ---- queries ------------------------------------------------------------------------------- */

static inline int cuzk_builder_has_values(const struct cuzk_builder *b) { return b->values; }
/* Whether LC operations keep terms (COUNT, RECORD); gadgets may skip building LCs when not. */
static inline int cuzk_builder_keeps_terms(const struct cuzk_builder *b) {
    return b->mode != CUZK_BUILDER_WITNESS;
}
static inline int cuzk_builder_error(const struct cuzk_builder *b) { return b->err; }
static inline const struct cuzk_builder_counts *
cuzk_builder_get_counts(const struct cuzk_builder *b) {
    return &b->counts;
}
/* The boolean aux bitmap (bit j of word j / 64 set when aux j was allocated as a bit), covering
 * n_aux bits; NULL without values or before the first bit. Valid until the builder is freed. */
static inline const uint64_t *cuzk_builder_bool_map(const struct cuzk_builder *b) {
    return b->bool_map;
}
/* The value of v (modes with values; zero otherwise and for unknown variables). */
void cuzk_builder_value(const struct cuzk_builder *b, cuzk_var v, cuzk_fr *out);

/* ---- variables ----------------------------------------------------------------------------- */

/* A new private variable. value is read only in modes with values (it may be NULL otherwise,
 * and NULL there means zero). */
cuzk_var cuzk_builder_alloc(struct cuzk_builder *b, const cuzk_fr *value);
/* A new private variable whose value is the bit `bit` (0 or 1) by construction; it is counted
 * as boolean. Enforces nothing: AllocatedBit's booleanity row is the boolean gadget's job. */
static inline cuzk_var cuzk_builder_alloc_bit(struct cuzk_builder *b, int bit);
/* A new public input (value as for cuzk_builder_alloc). */
cuzk_var cuzk_builder_alloc_input(struct cuzk_builder *b, const cuzk_fr *value);

/* ---- linear combinations ------------------------------------------------------------------- */

#define CUZK_LC_INLINE 4 /* terms held without allocation (most rows have at most 4) */

/* A linear combination: terms sorted by variable, one per variable. Initialise with
 * cuzk_lc_init, release with cuzk_lc_free. An LC owns heap storage once it outgrows
 * CUZK_LC_INLINE terms, so copy one with cuzk_lc_copy, never by struct assignment. */
struct cuzk_lc {
    struct cuzk_builder *b;
    uint32_t n, cap; /* terms, room */
    cuzk_var *hvar;  /* heap storage when cap > CUZK_LC_INLINE */
    cuzk_fr *hcoef;  /* (RECORD only) */
    cuzk_var ivar[CUZK_LC_INLINE];
    cuzk_fr icoef[CUZK_LC_INLINE];
};

static inline void cuzk_lc_init(struct cuzk_lc *lc, struct cuzk_builder *b);
static inline void cuzk_lc_free(struct cuzk_lc *lc);
/* Removes every term, keeping the storage. */
static inline void cuzk_lc_clear(struct cuzk_lc *lc) { lc->n = 0; }
/* Number of terms (distinct variables); 0 in WITNESS mode. */
static inline uint32_t cuzk_lc_len(const struct cuzk_lc *lc) { return lc->n; }
/* lc += coeff * v; coeff NULL means one. */
static inline void cuzk_lc_add(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v);
/* lc -= coeff * v; coeff NULL means one. */
static inline void cuzk_lc_sub(struct cuzk_lc *lc, const cuzk_fr *coeff, cuzk_var v);
/* lc += coeff * other (term-wise merge); coeff NULL means one. other may not be lc. */
void cuzk_lc_add_lc(struct cuzk_lc *lc, const cuzk_fr *coeff, const struct cuzk_lc *other);
/* lc -= coeff * other; coeff NULL means one. other may not be lc. */
void cuzk_lc_sub_lc(struct cuzk_lc *lc, const cuzk_fr *coeff, const struct cuzk_lc *other);
/* dst = src (dst initialised, possibly holding terms). */
void cuzk_lc_copy(struct cuzk_lc *dst, const struct cuzk_lc *src);
/* lc *= coeff (every coefficient; terms stay, even if coeff is zero). */
void cuzk_lc_scale(struct cuzk_lc *lc, const cuzk_fr *coeff);
/* Term i (i < cuzk_lc_len): its variable and, in RECORD mode, its coefficient. */
cuzk_var cuzk_lc_var(const struct cuzk_lc *lc, uint32_t i);
const cuzk_fr *cuzk_lc_coeff(const struct cuzk_lc *lc, uint32_t i);

/* Shared constants, built on first use (thread-safe): 2^i for i < 256, and -1. */
static inline const cuzk_fr *cuzk_lc_pow2(unsigned i);
const cuzk_fr *cuzk_lc_minus_one(void);

/* ---- constraints --------------------------------------------------------------------------- */

/* Enforces <a, w> * <bb, w> = <c, w>. Any of a, bb, c may be NULL for the empty LC. The LCs
 * are only read; in WITNESS mode the row is counted and nothing else happens. */
static inline void cuzk_builder_enforce(struct cuzk_builder *b, const struct cuzk_lc *a,
                                        const struct cuzk_lc *bb, const struct cuzk_lc *c);

/* COUNT mode: counts one row whose A, B and C hold nnz_a, nnz_b and nnz_c distinct variables,
 * for a gadget that knows them without building its LCs (MultiEq). Any other mode: sets
 * CUZK_EINVAL (such a gadget must build its rows there). */
void cuzk_builder_enforce_counted(struct cuzk_builder *b, uint64_t nnz_a, uint64_t nnz_b,
                                  uint64_t nnz_c);

/* The hot operations above are inline (the counting and witness paths run hundreds of millions
 * of times per circuit); their bodies and the out-of-line slow paths they call are here. */
#include "circuits/builder_impl.h"

#endif
