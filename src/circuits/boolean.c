/* Shapes follow bellperson's boolean.rs case by case; each function says which row it emits.
 * The most frequent rows (booleanity, XOR, the AND family: most of SHA-256's rows) count their
 * terms directly in COUNT mode instead of building LCs; the tests compare COUNT and RECORD on
 * every operand combination. */
#include "circuits/boolean.h"

void cuzk_bool_lc_add(struct cuzk_lc *lc, struct cuzk_bool x, const cuzk_fr *coeff) {
    switch (x.kind) {
    case CUZK_BOOL_CONST:
        if (x.value) cuzk_lc_add(lc, coeff, CUZK_VAR_ONE);
        break;
    case CUZK_BOOL_IS: cuzk_lc_add(lc, coeff, x.var); break;
    default: cuzk_lc_add(lc, coeff, CUZK_VAR_ONE); cuzk_lc_sub(lc, coeff, x.var);
    }
}

void cuzk_bool_lc_sub(struct cuzk_lc *lc, struct cuzk_bool x, const cuzk_fr *coeff) {
    switch (x.kind) {
    case CUZK_BOOL_CONST:
        if (x.value) cuzk_lc_sub(lc, coeff, CUZK_VAR_ONE);
        break;
    case CUZK_BOOL_IS: cuzk_lc_sub(lc, coeff, x.var); break;
    default: cuzk_lc_sub(lc, coeff, CUZK_VAR_ONE); cuzk_lc_add(lc, coeff, x.var);
    }
}

/* Emits the row A * B = C from up to three small LCs built by the caller (then freed). */
static void enforce3(struct cuzk_builder *b, struct cuzk_lc *a, struct cuzk_lc *bb,
                     struct cuzk_lc *c) {
    cuzk_builder_enforce(b, a, bb, c);
    cuzk_lc_free(a);
    cuzk_lc_free(bb);
    cuzk_lc_free(c);
}

struct cuzk_bool cuzk_bool_alloc(struct cuzk_builder *b, int bit) {
    cuzk_var v = cuzk_builder_alloc_bit(b, bit);
    /* (1 - a) * a = 0 */
    if (b->mode == CUZK_BUILDER_COUNT) {
        cuzk_builder_enforce_counted(b, 2, 1, 0);
    } else if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_add(&la, NULL, CUZK_VAR_ONE);
        cuzk_lc_sub(&la, NULL, v);
        cuzk_lc_add(&lb, NULL, v);
        cuzk_builder_enforce(b, &la, &lb, NULL);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return cuzk_bool_is(v, bit);
}

/* AllocatedBit::xor of two variables: c = a ^ b, (a + a) * b = a + b - c. */
static struct cuzk_bool alloc_xor(struct cuzk_builder *b, cuzk_var x, int xv, cuzk_var y, int yv) {
    int cv = xv ^ yv;
    cuzk_var c = cuzk_builder_alloc_bit(b, cv);
    if (b->mode == CUZK_BUILDER_COUNT) {
        cuzk_builder_enforce_counted(b, 1, 1, x == y ? 2 : 3);
    } else if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_init(&lc, b);
        cuzk_lc_add(&la, NULL, x);
        cuzk_lc_add(&la, NULL, x);
        cuzk_lc_add(&lb, NULL, y);
        cuzk_lc_add(&lc, NULL, x < y ? x : y); /* sorted order: appends only */
        cuzk_lc_add(&lc, NULL, x < y ? y : x);
        cuzk_lc_sub(&lc, NULL, c);
        enforce3(b, &la, &lb, &lc);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return cuzk_bool_is(c, cv);
}

/* The AND family on variables: A = (na ? 1 - x : x), B = (nb ? 1 - y : y), C = c. */
static struct cuzk_bool alloc_and_family(struct cuzk_builder *b, cuzk_var x, int na, cuzk_var y,
                                         int nb, int cv) {
    cuzk_var c = cuzk_builder_alloc_bit(b, cv);
    if (b->mode == CUZK_BUILDER_COUNT) {
        cuzk_builder_enforce_counted(b, na ? 2 : 1, nb ? 2 : 1, 1);
    } else if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_init(&lc, b);
        if (na) {
            cuzk_lc_add(&la, NULL, CUZK_VAR_ONE);
            cuzk_lc_sub(&la, NULL, x);
        } else {
            cuzk_lc_add(&la, NULL, x);
        }
        if (nb) {
            cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
            cuzk_lc_sub(&lb, NULL, y);
        } else {
            cuzk_lc_add(&lb, NULL, y);
        }
        cuzk_lc_add(&lc, NULL, c);
        enforce3(b, &la, &lb, &lc);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return cuzk_bool_is(c, cv);
}

struct cuzk_bool cuzk_bool_alloc_and(struct cuzk_builder *b, struct cuzk_bool x,
                                     struct cuzk_bool y) {
    return alloc_and_family(b, x.var, 0, y.var, 0, x.value & y.value);
}

struct cuzk_bool cuzk_bool_alloc_nor(struct cuzk_builder *b, struct cuzk_bool x,
                                     struct cuzk_bool y) {
    return alloc_and_family(b, x.var, 1, y.var, 1, (x.value ^ 1) & (y.value ^ 1));
}

struct cuzk_bool cuzk_bool_xor(struct cuzk_builder *b, struct cuzk_bool x, struct cuzk_bool y) {
    if (x.kind == CUZK_BOOL_CONST) return x.value ? cuzk_bool_not(y) : y;
    if (y.kind == CUZK_BOOL_CONST) return y.value ? cuzk_bool_not(x) : x;
    if (x.kind != y.kind) {
        /* a xor (not b) = not (a xor b): bellperson xors the Is with the un-negated Not */
        struct cuzk_bool is = x.kind == CUZK_BOOL_IS ? x : y;
        struct cuzk_bool not = x.kind == CUZK_BOOL_IS ? y : x;
        struct cuzk_bool r = cuzk_bool_xor(b, is, cuzk_bool_not(not ));
        return cuzk_bool_not(r);
    }
    /* Is ^ Is, or Not ^ Not = (underlying) ^ (underlying): operands are the variables */
    int xv = x.kind == CUZK_BOOL_IS ? x.value : !x.value;
    int yv = y.kind == CUZK_BOOL_IS ? y.value : !y.value;
    return alloc_xor(b, x.var, xv, y.var, yv);
}

struct cuzk_bool cuzk_bool_and(struct cuzk_builder *b, struct cuzk_bool x, struct cuzk_bool y) {
    if ((x.kind == CUZK_BOOL_CONST && !x.value) || (y.kind == CUZK_BOOL_CONST && !y.value))
        return cuzk_bool_const(0);
    if (x.kind == CUZK_BOOL_CONST) return y;
    if (y.kind == CUZK_BOOL_CONST) return x;
    int v = x.value & y.value;
    if (x.kind == CUZK_BOOL_IS && y.kind == CUZK_BOOL_NOT)
        return alloc_and_family(b, x.var, 0, y.var, 1, v); /* and_not(is, not) */
    if (x.kind == CUZK_BOOL_NOT && y.kind == CUZK_BOOL_IS)
        return alloc_and_family(b, y.var, 0, x.var, 1, v);
    if (x.kind == CUZK_BOOL_NOT) return alloc_and_family(b, x.var, 1, y.var, 1, v); /* nor */
    return alloc_and_family(b, x.var, 0, y.var, 0, v);
}

struct cuzk_bool cuzk_bool_sha256_ch(struct cuzk_builder *b, struct cuzk_bool a,
                                     struct cuzk_bool bb, struct cuzk_bool c) {
    int v = (a.value & bb.value) ^ ((a.value ^ 1) & c.value);
    if (a.kind == CUZK_BOOL_CONST && bb.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST)
        return cuzk_bool_const(v);
    if (a.kind == CUZK_BOOL_CONST && !a.value) return c;
    if (bb.kind == CUZK_BOOL_CONST && !bb.value) return cuzk_bool_and(b, cuzk_bool_not(a), c);
    if (c.kind == CUZK_BOOL_CONST && !c.value) return cuzk_bool_and(b, a, bb);
    if (c.kind == CUZK_BOOL_CONST) /* c true: not (a and (not b)) */
        return cuzk_bool_not(cuzk_bool_and(b, a, cuzk_bool_not(bb)));
    if (bb.kind == CUZK_BOOL_CONST) /* b true: not ((not a) and (not c)) */
        return cuzk_bool_not(cuzk_bool_and(b, cuzk_bool_not(a), cuzk_bool_not(c)));
    /* a constant true falls through to the general row, as in bellperson */
    cuzk_var ch = cuzk_builder_alloc_bit(b, v);
    /* a * (b - c) = ch - c, written as (b - c) * a = ch - c */
    if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_init(&lc, b);
        cuzk_bool_lc_add(&la, bb, NULL);
        cuzk_bool_lc_sub(&la, c, NULL);
        cuzk_bool_lc_add(&lb, a, NULL);
        cuzk_lc_add(&lc, NULL, ch);
        cuzk_bool_lc_sub(&lc, c, NULL);
        enforce3(b, &la, &lb, &lc);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return cuzk_bool_is(ch, v);
}

struct cuzk_bool cuzk_bool_sha256_maj(struct cuzk_builder *b, struct cuzk_bool a,
                                      struct cuzk_bool bb, struct cuzk_bool c) {
    int v = (a.value & bb.value) ^ (a.value & c.value) ^ (bb.value & c.value);
    if (a.kind == CUZK_BOOL_CONST && bb.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST)
        return cuzk_bool_const(v);
    if (a.kind == CUZK_BOOL_CONST && !a.value) return cuzk_bool_and(b, bb, c);
    if (bb.kind == CUZK_BOOL_CONST && !bb.value) return cuzk_bool_and(b, a, c);
    if (c.kind == CUZK_BOOL_CONST && !c.value) return cuzk_bool_and(b, a, bb);
    if (c.kind == CUZK_BOOL_CONST)
        return cuzk_bool_not(cuzk_bool_and(b, cuzk_bool_not(a), cuzk_bool_not(bb)));
    if (bb.kind == CUZK_BOOL_CONST)
        return cuzk_bool_not(cuzk_bool_and(b, cuzk_bool_not(a), cuzk_bool_not(c)));
    if (a.kind == CUZK_BOOL_CONST)
        return cuzk_bool_not(cuzk_bool_and(b, cuzk_bool_not(bb), cuzk_bool_not(c)));
    cuzk_var maj = cuzk_builder_alloc_bit(b, v);
    struct cuzk_bool bc = cuzk_bool_and(b, bb, c);
    /* (2bc - b - c) * a = bc - maj */
    if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_init(&lc, b);
        cuzk_bool_lc_add(&la, bc, NULL);
        cuzk_bool_lc_add(&la, bc, NULL);
        cuzk_bool_lc_sub(&la, bb, NULL);
        cuzk_bool_lc_sub(&la, c, NULL);
        cuzk_bool_lc_add(&lb, a, NULL);
        cuzk_bool_lc_add(&lc, bc, NULL);
        cuzk_lc_sub(&lc, NULL, maj);
        enforce3(b, &la, &lb, &lc);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return cuzk_bool_is(maj, v);
}
