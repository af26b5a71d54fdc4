#include "circuits/pick.h"

#include <stdlib.h>

#include "cuzk/error.h"

struct cuzk_num cuzk_pick(struct cuzk_builder *b, struct cuzk_bool cond, const struct cuzk_num *a,
                          const struct cuzk_num *bb) {
    struct cuzk_num c = cuzk_num_alloc(b, cond.value ? &a->value : &bb->value);
    /* (bb - a) * cond = bb - c */
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return c;
    }
    struct cuzk_lc la, lb, lc;
    cuzk_lc_init(&la, b);
    cuzk_lc_init(&lb, b);
    cuzk_lc_init(&lc, b);
    cuzk_lc_add(&la, NULL, bb->var);
    cuzk_lc_sub(&la, NULL, a->var);
    cuzk_bool_lc_add(&lb, cond, NULL);
    cuzk_lc_add(&lc, NULL, bb->var);
    cuzk_lc_sub(&lc, NULL, c.var);
    cuzk_builder_enforce(b, &la, &lb, &lc);
    return c;
}

struct cuzk_num cuzk_select(struct cuzk_builder *b, const struct cuzk_num *from, size_t n_from,
                            const struct cuzk_bool *bits, unsigned k) {
    struct cuzk_num *state = malloc(n_from * sizeof *state);
    if (!state) {
        if (cuzk_builder_error(b) == CUZK_OK) b->err = CUZK_ENOMEM;
        return from[0];
    }
    for (size_t i = 0; i < n_from; i++) state[i] = from[i];
    size_t half = n_from / 2;
    /* most significant bit first: each round halves the candidates */
    for (unsigned i = 0; i < k; i++) {
        struct cuzk_bool bit = bits[k - 1 - i];
        for (size_t j = 0; j < half; j++) state[j] = cuzk_pick(b, bit, &state[half + j], &state[j]);
        half /= 2;
    }
    struct cuzk_num r = state[0];
    free(state);
    return r;
}

void cuzk_insert_2(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[2]) {
    out[0] = cuzk_pick(b, bits[0], &sib[0], x);
    out[1] = cuzk_pick(b, bits[0], x, &sib[0]);
}

void cuzk_insert_4(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[4]) {
    /* position n = b0 + 2 b1. Output i is x when n = i, else sibling i - (n < i): each output
     * picks on b0 among the two candidates its low bit leaves, then on b1. */
    struct cuzk_bool b0 = bits[0], b1 = bits[1];
    const struct cuzk_num *A = x, *B = &sib[0], *C = &sib[1], *D = &sib[2];
    struct cuzk_num t;

    t = cuzk_pick(b, b0, B, A); /* n = 0: A, n = 1: B */
    out[0] = cuzk_pick(b, b1, B, &t);

    t = cuzk_pick(b, b0, A, B); /* n = 0: B, n = 1: A */
    out[1] = cuzk_pick(b, b1, C, &t);

    t = cuzk_pick(b, b0, D, A); /* n = 2: A, n = 3: D */
    out[2] = cuzk_pick(b, b1, &t, C);

    t = cuzk_pick(b, b0, A, D); /* n = 2: D, n = 3: A */
    out[3] = cuzk_pick(b, b1, &t, D);
}

void cuzk_insert_8(struct cuzk_builder *b, const struct cuzk_num *x, const struct cuzk_bool *bits,
                   const struct cuzk_num *sib, struct cuzk_num out[8]) {
    /* position n = b0 + 2 b1 + 4 b2; x goes to out[n], siblings fill the rest in order.
     * The pick tree is upstream's: p_k chosen first by (b0, b1) then by b2. */
    struct cuzk_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
    const struct cuzk_num *A = x, *B = &sib[0], *C = &sib[1], *D = &sib[2], *E = &sib[3],
                          *F = &sib[4], *G = &sib[5], *H = &sib[6];
    struct cuzk_bool b0_nor_b1 = cuzk_bool_alloc_nor(b, b0, b1);
    struct cuzk_bool b0_and_b1 = cuzk_bool_alloc_and(b, b0, b1);
    struct cuzk_num t, u;

    t = cuzk_pick(b, b0_nor_b1, A, B);
    out[0] = cuzk_pick(b, b2, B, &t);

    t = cuzk_pick(b, b0, A, B);
    u = cuzk_pick(b, b1, C, &t);
    out[1] = cuzk_pick(b, b2, C, &u);

    t = cuzk_pick(b, b0, D, A);
    u = cuzk_pick(b, b1, &t, C);
    out[2] = cuzk_pick(b, b2, D, &u);

    t = cuzk_pick(b, b0_and_b1, A, D);
    out[3] = cuzk_pick(b, b2, E, &t);

    t = cuzk_pick(b, b0_nor_b1, A, F);
    out[4] = cuzk_pick(b, b2, &t, E);

    t = cuzk_pick(b, b0, A, F);
    u = cuzk_pick(b, b1, G, &t);
    out[5] = cuzk_pick(b, b2, &u, F);

    t = cuzk_pick(b, b0, H, A);
    u = cuzk_pick(b, b1, &t, G);
    out[6] = cuzk_pick(b, b2, &u, G);

    t = cuzk_pick(b, b0_and_b1, A, H);
    out[7] = cuzk_pick(b, b2, &t, H);
}
