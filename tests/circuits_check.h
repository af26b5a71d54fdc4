/* Helpers shared by the circuit tests: counting the cost of one gadget call in a builder (the
 * difference of the counts around it), comparing it with a reference row of the gadget table,
 * and checking a recorded system against its witness. */
#ifndef CUZK_TESTS_CIRCUITS_CHECK_H
#define CUZK_TESTS_CIRCUITS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "circuits/builder.h"
#include "cuzk/error.h"
#include "test_util.h"

/* A gadget's cost: rows, aux, boolean aux, inputs, nnz A/B/C. */
struct cost {
    int64_t rows, aux, bools, inputs, nnz[3];
};

static inline struct cost cost_now(const struct cuzk_builder *b) {
    const struct cuzk_builder_counts *c = cuzk_builder_get_counts(b);
    struct cost r = {(int64_t)c->constraints,
                     (int64_t)c->n_aux,
                     (int64_t)c->n_bool,
                     (int64_t)c->n_inputs,
                     {(int64_t)c->nnz[0], (int64_t)c->nnz[1], (int64_t)c->nnz[2]}};
    return r;
}

static inline struct cost cost_sub(struct cost a, struct cost b) {
    struct cost r = {a.rows - b.rows,
                     a.aux - b.aux,
                     a.bools - b.bools,
                     a.inputs - b.inputs,
                     {a.nnz[0] - b.nnz[0], a.nnz[1] - b.nnz[1], a.nnz[2] - b.nnz[2]}};
    return r;
}

static inline int cost_eq(struct cost a, struct cost b) {
    return a.rows == b.rows && a.aux == b.aux && a.bools == b.bools && a.inputs == b.inputs &&
           a.nnz[0] == b.nnz[0] && a.nnz[1] == b.nnz[1] && a.nnz[2] == b.nnz[2];
}

static inline void cost_print(const char *what, struct cost c) {
    printf("  %-44s rows %" PRId64 " aux %" PRId64 " bool %" PRId64 " in %" PRId64 " nnz %" PRId64
           "/%" PRId64 "/%" PRId64 "\n",
           what, c.rows, c.aux, c.bools, c.inputs, c.nnz[0], c.nnz[1], c.nnz[2]);
}

/* Checks a measured cost against the reference; a reference field of -1 is not checked. */
static inline void cost_check(const char *what, struct cost got, struct cost want) {
    int ok = (want.rows < 0 || got.rows == want.rows) && (want.aux < 0 || got.aux == want.aux) &&
             (want.bools < 0 || got.bools == want.bools) &&
             (want.inputs < 0 || got.inputs == want.inputs);
    for (int k = 0; k < 3; k++) ok &= want.nnz[k] < 0 || got.nnz[k] == want.nnz[k];
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "cost mismatch for %s\n", what);
        cost_print("got", got);
        cost_print("want", want);
    }
}

/* Finishes a RECORD builder with values and checks every row against the witness. Returns 1
 * when the system is satisfied. */
static inline int record_satisfied(struct cuzk_builder *b) {
    struct cuzk_cs cs;
    cuzk_fr *w = NULL;
    size_t n = 0, bad = 0;
    int rc = cuzk_builder_finish(b, &cs, &w, &n);
    CHECK(rc == CUZK_OK);
    if (rc != CUZK_OK) return 0;
    CHECK(n == cs.n_cols);
    int sat = cuzk_cs_is_satisfied(NULL, &cs, w, &bad);
    if (sat != 1) fprintf(stderr, "  first unsatisfied row %zu of %zu\n", bad, cs.n_rows);
    cuzk_cs_free(&cs);
    free(w);
    return sat == 1;
}

#endif
