#include "circuits/uint32.h"

#include "cuzk/error.h"

struct cuzk_u32 cuzk_u32_const(uint32_t v) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cuzk_bool_const((v >> i) & 1);
    r.value = v;
    return r;
}

struct cuzk_u32 cuzk_u32_alloc(struct cuzk_builder *b, uint32_t v) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cuzk_bool_alloc(b, (v >> i) & 1);
    r.value = v;
    return r;
}

static uint32_t value_of(const struct cuzk_bool *bits) {
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) v |= (uint32_t)bits[i].value << i;
    return v;
}

struct cuzk_u32 cuzk_u32_from_bits_be(const struct cuzk_bool *bits) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = bits[31 - i];
    r.value = value_of(r.bits);
    return r;
}

void cuzk_u32_to_bits_be(const struct cuzk_u32 *x, struct cuzk_bool *bits) {
    for (int i = 0; i < 32; i++) bits[i] = x->bits[31 - i];
}

struct cuzk_u32 cuzk_u32_rotr(const struct cuzk_u32 *x, unsigned by) {
    struct cuzk_u32 r;
    by %= 32;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = x->bits[(i + by) % 32];
    r.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
    return r;
}

struct cuzk_u32 cuzk_u32_shr(const struct cuzk_u32 *x, unsigned by) {
    struct cuzk_u32 r;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = i + by < 32 ? x->bits[i + by] : cuzk_bool_const(0);
    r.value = by < 32 ? x->value >> by : 0;
    return r;
}

struct cuzk_u32 cuzk_u32_xor(struct cuzk_builder *b, const struct cuzk_u32 *x,
                             const struct cuzk_u32 *y) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cuzk_bool_xor(b, x->bits[i], y->bits[i]);
    r.value = x->value ^ y->value;
    return r;
}

struct cuzk_u32 cuzk_u32_sha256_ch(struct cuzk_builder *b, const struct cuzk_u32 *a,
                                   const struct cuzk_u32 *bb, const struct cuzk_u32 *c) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cuzk_bool_sha256_ch(b, a->bits[i], bb->bits[i], c->bits[i]);
    r.value = (a->value & bb->value) ^ (~a->value & c->value);
    return r;
}

struct cuzk_u32 cuzk_u32_sha256_maj(struct cuzk_builder *b, const struct cuzk_u32 *a,
                                    const struct cuzk_u32 *bb, const struct cuzk_u32 *c) {
    struct cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cuzk_bool_sha256_maj(b, a->bits[i], bb->bits[i], c->bits[i]);
    r.value = (a->value & bb->value) ^ (a->value & c->value) ^ (bb->value & c->value);
    return r;
}

struct cuzk_u32 cuzk_u32_addmany(struct cuzk_multieq *me, const struct cuzk_u32 *const *ops,
                                 unsigned n) {
    struct cuzk_builder *b = me->b;
    if (n < 2 || n > 10) { /* bellperson asserts the same bounds */
        if (b->err == 0) b->err = CUZK_EINVAL;
        return cuzk_u32_const(0);
    }
    uint64_t sum = 0;
    int all_const = 1;
    for (unsigned k = 0; k < n; k++) {
        sum += ops[k]->value;
        for (int i = 0; i < 32 && all_const; i++) all_const = cuzk_bool_is_const(ops[k]->bits[i]);
    }
    if (all_const) return cuzk_u32_const((uint32_t)sum);

    uint64_t max_value = (uint64_t)n * 0xffffffffu; /* the result has as many bits */
    struct cuzk_u32 r;
    unsigned nbits = 0;
    if (b->mode == CUZK_BUILDER_COUNT) {
        /* the equality's variables only (see cuzk_multieq_count_equal) */
        cuzk_var lv[10 * 64], rv[64];
        size_t nl = 0;
        for (unsigned k = 0; k < n; k++)
            for (int i = 0; i < 32; i++) {
                struct cuzk_bool x = ops[k]->bits[i];
                if (x.kind != CUZK_BOOL_IS && (x.kind == CUZK_BOOL_NOT || x.value))
                    lv[nl++] = CUZK_VAR_ONE;
                if (x.kind != CUZK_BOOL_CONST) lv[nl++] = x.var;
            }
        for (; max_value != 0; max_value >>= 1, nbits++) {
            struct cuzk_bool bit = cuzk_bool_alloc(b, (int)((sum >> nbits) & 1));
            rv[nbits] = bit.var;
            if (nbits < 32) r.bits[nbits] = bit;
        }
        cuzk_multieq_count_equal(me, nbits, lv, nl, rv, nbits);
        r.value = (uint32_t)sum;
        return r;
    }
    int keep = cuzk_builder_keeps_terms(b);
    /* the operands' LC, built operand by operand and merged (each operand's bits are mostly
     * allocated in order, so its own LC is built by appends); scratch LCs of the accumulator */
    struct cuzk_lc *lhs = &me->scratch[0], *op = &me->scratch[1], *rhs = &me->scratch[2];
    if (keep) {
        cuzk_lc_clear(lhs);
        cuzk_lc_clear(rhs);
        for (unsigned k = 0; k < n; k++) {
            cuzk_lc_clear(op);
            for (int i = 0; i < 32; i++) cuzk_bool_lc_add(op, ops[k]->bits[i], cuzk_lc_pow2(i));
            cuzk_lc_add_lc(lhs, NULL, op);
        }
    }
    while (max_value != 0) {
        struct cuzk_bool bit = cuzk_bool_alloc(b, (int)((sum >> nbits) & 1));
        if (keep) cuzk_lc_add(rhs, cuzk_lc_pow2(nbits), bit.var);
        if (nbits < 32) r.bits[nbits] = bit;
        max_value >>= 1;
        nbits++;
    }
    cuzk_multieq_enforce_equal(me, nbits, lhs, rhs);
    r.value = (uint32_t)sum;
    return r;
}
