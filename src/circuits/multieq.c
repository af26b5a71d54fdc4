/* DESIGN: in RECORD mode the pending row is two LCs merged equality by equality, exactly as
 * bellperson does. In COUNT mode only the number of distinct variables per side matters, so the
 * pending row is two variable sets instead (merging ~200-term sorted LCs seven times per row
 * was the largest cost of counting a SHA-256 compression); the counts are the same by
 * construction and the tests compare both modes on every SHA-256 shape and circuit. */
#include "circuits/multieq.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

#define VARSET_MIN 4096 /* entries: room for a MultiEq row's ~1,600 variables at half load */

static void varset_free(struct cuzk_varset *s) {
    free(s->key);
    free(s->gen);
    memset(s, 0, sizeof *s);
}

/* (Re)allocates the table with `size` entries, keeping the current members. Returns 0 on
 * failure. */
static int varset_resize(struct cuzk_varset *s, uint32_t size) {
    struct cuzk_varset n = {calloc(size, sizeof(uint32_t)), calloc(size, sizeof(uint32_t)),
                            size - 1, 1, 0};
    if (!n.key || !n.gen) {
        varset_free(&n);
        return 0;
    }
    for (uint32_t i = 0; s->key && i <= s->mask; i++) {
        if (s->gen[i] != s->cur) continue;
        uint32_t h = (s->key[i] * 0x9e3779b1u) & n.mask;
        while (n.gen[h] == n.cur) h = (h + 1) & n.mask;
        n.key[h] = s->key[i];
        n.gen[h] = n.cur;
        n.count++;
    }
    varset_free(s);
    *s = n;
    return 1;
}

static void varset_add(struct cuzk_builder *b, struct cuzk_varset *s, cuzk_var v) {
    if (!s->key && !varset_resize(s, VARSET_MIN)) goto oom;
    uint32_t h = (v * 0x9e3779b1u) & s->mask;
    while (s->gen[h] == s->cur) {
        if (s->key[h] == v) return;
        h = (h + 1) & s->mask;
    }
    s->key[h] = v;
    s->gen[h] = s->cur;
    if (++s->count * 2 > s->mask + 1 && !varset_resize(s, 2 * (s->mask + 1))) goto oom;
    return;
oom:
    if (b->err == CUZK_OK) b->err = CUZK_ENOMEM;
}

static void varset_clear(struct cuzk_varset *s) {
    s->count = 0;
    if (!s->key) return;
    if (++s->cur == 0) { /* generations wrapped: really empty the table */
        memset(s->gen, 0, (size_t)(s->mask + 1) * sizeof *s->gen);
        s->cur = 1;
    }
}

void cuzk_multieq_init(struct cuzk_multieq *me, struct cuzk_builder *b) {
    me->b = b;
    cuzk_lc_init(&me->lhs, b);
    cuzk_lc_init(&me->rhs, b);
    for (int i = 0; i < 3; i++) cuzk_lc_init(&me->scratch[i], b);
    memset(me->set, 0, sizeof me->set);
    me->bits_used = 0;
    me->rows = 0;
}

/* lhs * 1 = rhs, then an empty accumulator. */
static void accumulate(struct cuzk_multieq *me) {
    struct cuzk_builder *b = me->b;
    if (b->mode == CUZK_BUILDER_COUNT) {
        cuzk_builder_enforce_counted(b, me->set[0].count, 1, me->set[1].count);
        varset_clear(&me->set[0]);
        varset_clear(&me->set[1]);
    } else if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc one;
        cuzk_lc_init(&one, b);
        cuzk_lc_add(&one, NULL, CUZK_VAR_ONE);
        cuzk_builder_enforce(b, &me->lhs, &one, &me->rhs);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    cuzk_lc_clear(&me->lhs);
    cuzk_lc_clear(&me->rhs);
    me->bits_used = 0;
    me->rows++;
}

void cuzk_multieq_enforce_equal(struct cuzk_multieq *me, unsigned num_bits,
                                const struct cuzk_lc *lhs, const struct cuzk_lc *rhs) {
    if (CUZK_MULTIEQ_CAPACITY <= me->bits_used + num_bits) accumulate(me);
    if (me->b->mode == CUZK_BUILDER_COUNT) {
        for (uint32_t i = 0; i < cuzk_lc_len(lhs); i++)
            varset_add(me->b, &me->set[0], cuzk_lc_var(lhs, i));
        for (uint32_t i = 0; i < cuzk_lc_len(rhs); i++)
            varset_add(me->b, &me->set[1], cuzk_lc_var(rhs, i));
    } else {
        const cuzk_fr *coeff = cuzk_lc_pow2(me->bits_used);
        cuzk_lc_add_lc(&me->lhs, coeff, lhs);
        cuzk_lc_add_lc(&me->rhs, coeff, rhs);
    }
    me->bits_used += num_bits;
}

void cuzk_multieq_count_equal(struct cuzk_multieq *me, unsigned num_bits, const cuzk_var *lhs,
                              size_t nl, const cuzk_var *rhs, size_t nr) {
    if (me->b->mode != CUZK_BUILDER_COUNT) {
        if (me->b->err == CUZK_OK) me->b->err = CUZK_EINVAL;
        return;
    }
    if (CUZK_MULTIEQ_CAPACITY <= me->bits_used + num_bits) accumulate(me);
    for (size_t i = 0; i < nl; i++) varset_add(me->b, &me->set[0], lhs[i]);
    for (size_t i = 0; i < nr; i++) varset_add(me->b, &me->set[1], rhs[i]);
    me->bits_used += num_bits;
}

void cuzk_multieq_finish(struct cuzk_multieq *me) {
    if (me->bits_used > 0) accumulate(me);
    cuzk_lc_free(&me->lhs);
    cuzk_lc_free(&me->rhs);
    for (int i = 0; i < 3; i++) cuzk_lc_free(&me->scratch[i]);
    varset_free(&me->set[0]);
    varset_free(&me->set[1]);
}
