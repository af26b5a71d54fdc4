/* A pre-compiled constraint system: the R1CS matrices A, B, C in CSR form with indexed
 * coefficients, their products with a witness (SpMV), a satisfaction check and the column
 * densities the MSMs use.
 *
 * Promise: row i is the constraint <A_i, w> * <B_i, w> = <C_i, w> over Fr. Columns index the
 * witness w[0 .. n_cols): column 0 is the constant one, columns 1 .. n_public the public inputs,
 * the rest the private wires (the snarkjs .wtns / .r1cs order). A row may hold several terms with
 * the same column; they simply add up. Coefficients are stored as given (zeros included), once
 * each: a term holds a 32-bit index into the system's table of distinct values (cs->coefs),
 * shared by the three matrices. Index 0 is always one and index 1 minus one
 * (CUZK_CS_COEF_ONE / _MINUS_ONE), so the commonest terms need no multiplication and no
 * comparison of values. Filecoin's circuits have a few thousand distinct coefficients against
 * hundreds of millions of terms, so a term costs 8 bytes (column + index) instead of 36.
 *
 * Invariants: every stored col < n_cols and every coef < n_coefs; for each matrix, row_ptr has
 * n_rows + 1 entries, row_ptr[0] = 0, row_ptr is non-decreasing and row_ptr[n_rows] is the term
 * count, so the terms of row i are [row_ptr[i], row_ptr[i+1]) of col and coef (values in
 * Montgomery form, as every cuzk_fr). A system is built once, row by row, then only read.
 *
 * Thread-safety: building is single-threaded. Once built (no row open), every reading function
 * may run concurrently on the same system; each writes only its own outputs. */
#ifndef CUZK_R1CS_CS_H
#define CUZK_R1CS_CS_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "util/pool.h"

enum cuzk_cs_matrix { CUZK_CS_A = 0, CUZK_CS_B = 1, CUZK_CS_C = 2 };

#define CUZK_CS_COEF_ONE 0u       /* coefs[0] = 1 */
#define CUZK_CS_COEF_MINUS_ONE 1u /* coefs[1] = -1 */

struct cuzk_cs_csr {
    uint64_t *row_ptr; /* n_rows + 1 offsets (room for more while building) */
    uint32_t *col;     /* column of each term */
    uint32_t *coef;    /* coefficient of each term: an index into cuzk_cs.coefs */
    uint64_t nnz;      /* terms stored = row_ptr[n_rows] once no row is open */
    uint64_t cap;      /* terms allocated */
};

/* The distinct coefficient values of a system and, while it is built, their hash index. */
struct cuzk_cs_coefs {
    cuzk_fr *v; /* n values, v[0] = 1, v[1] = -1 */
    uint32_t n, cap;
    uint32_t *slot; /* open-addressing table of value indices + 1 (0 = empty); NULL once the
                       system is finished or when it was loaded */
    size_t slot_cap;
};

struct cuzk_cs {
    size_t n_rows;           /* constraints */
    size_t n_cols;           /* variables = witness length, the constant one included */
    size_t n_public;         /* public inputs, the constant one excluded */
    struct cuzk_cs_csr m[3]; /* indexed by enum cuzk_cs_matrix */
    struct cuzk_cs_coefs coefs;
    size_t rows_cap; /* row_ptr entries allocated, the same for the three */
    int row_open;    /* between cuzk_cs_begin_row and cuzk_cs_end_row */
};

/* ---- building ---------------------------------------------------------------------------- */

/* An empty system over n_cols variables of which n_public are public inputs. Returns CUZK_OK,
 * CUZK_ENOMEM, or CUZK_EINVAL unless 1 + n_public <= n_cols <= 2^32 (columns are 32-bit).
 * On success the caller owns the arrays and must call cuzk_cs_free. */
int cuzk_cs_init(struct cuzk_cs *cs, size_t n_cols, size_t n_public);
/* Optionally allocates room for n_rows rows and the given term counts up front (a loader that
 * knows its sizes avoids regrowth). Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_cs_reserve(struct cuzk_cs *cs, size_t n_rows, uint64_t nnz_a, uint64_t nnz_b,
                    uint64_t nnz_c);
/* Opens row n_rows. Returns CUZK_OK, CUZK_EINVAL if a row is open, or CUZK_ENOMEM. */
int cuzk_cs_begin_row(struct cuzk_cs *cs);
/* Appends coef * w[col] to the open row of matrix m (coef is looked up in, or added to, the
 * table of distinct values). Returns CUZK_OK, CUZK_EINVAL (no row open, bad matrix, col >=
 * n_cols, a finished system) or CUZK_ENOMEM. On error nothing is added and the system stays
 * valid (the row stays open). */
int cuzk_cs_add_term(struct cuzk_cs *cs, enum cuzk_cs_matrix m, uint32_t col, const cuzk_fr *coef);
/* Closes the open row, which becomes row n_rows - 1. Returns CUZK_OK or CUZK_EINVAL. */
int cuzk_cs_end_row(struct cuzk_cs *cs);
/* Ends building: trims every array to its exact size and drops the coefficients' hash index
 * (a finished system is read-only). Returns CUZK_OK or CUZK_EINVAL (a row is open). */
int cuzk_cs_finish(struct cuzk_cs *cs);
/* Frees the arrays; the struct may be initialised again. Safe after any error. */
void cuzk_cs_free(struct cuzk_cs *cs);
/* Host bytes of a finished system's arrays. */
uint64_t cuzk_cs_bytes(const struct cuzk_cs *cs);
/* The same for a system of these sizes (n_coefs distinct coefficients). */
uint64_t cuzk_cs_bytes_for(uint64_t n_rows, uint64_t nnz_a, uint64_t nnz_b, uint64_t nnz_c,
                           uint64_t n_coefs);
/* Checks the invariants above (a system read from a file): CUZK_OK or CUZK_EFORMAT. */
int cuzk_cs_validate(const struct cuzk_cs *cs);

/* ---- reading (no row may be open: these return CUZK_EINVAL then) ------------------------- */

/* a = A w, b = B w and, when c is not NULL, c = C w: one element per row (n_rows each), on
 * pool (NULL: this thread). w has n_cols elements. Returns CUZK_OK or CUZK_EINVAL.
 *
 * When c may be replaced by a o b (a_i * b_i): for a SATISFYING witness every row has
 * <A_i,w><B_i,w> = <C_i,w>, so c = a o b exactly and the C matrix need not be read at all
 * (a third less SpMV work). snarkjs relies on this: a .zkey carries no C matrix and its
 * prover computes c as a o b. It is no substitute when the witness may be wrong: a o b - c
 * then vanishes on the whole domain whatever the witness, so nothing downstream notices, and
 * the prover returns a proof that fails verification instead of an error. Check such
 * witnesses with cuzk_cs_is_satisfied (or compute c = C w and compare) before proving. */
int cuzk_cs_eval(struct cuzk_pool *pool, const struct cuzk_cs *cs, const cuzk_fr *w, cuzk_fr *a,
                 cuzk_fr *b, cuzk_fr *c);

/* 1 if every row holds for w, 0 if not (then *first_bad_row, when not NULL, is the smallest
 * failing row), CUZK_EINVAL if a row is open. Also 0 if w[0] is not one, with *first_bad_row
 * = n_rows, since column 0 is the constant one by definition. */
int cuzk_cs_is_satisfied(struct cuzk_pool *pool, const struct cuzk_cs *cs, const cuzk_fr *w,
                         size_t *first_bad_row);

/* present[j] = 1 if column j has a term with a nonzero coefficient in matrix m, else 0, for
 * j < n_cols; *count (when not NULL) = the number of columns present. MSMs skip the absent
 * columns. Terms of one row that cancel each other still mark their column (the MSM then
 * multiplies a base that may be the identity, which is harmless). Returns CUZK_OK or
 * CUZK_EINVAL (bad matrix, row open). */
int cuzk_cs_density(const struct cuzk_cs *cs, enum cuzk_cs_matrix m, uint8_t *present,
                    size_t *count);

#endif
