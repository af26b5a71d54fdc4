#include "circuits/num.h"

#include <string.h>

struct cuzk_num cuzk_num_alloc(struct cuzk_builder *b, const cuzk_fr *value) {
    struct cuzk_num r;
    if (cuzk_builder_has_values(b) && value)
        r.value = *value;
    else
        cuzk_fr_set_zero(&r.value);
    r.var = cuzk_builder_alloc(b, &r.value);
    return r;
}

/* x * 1 = y written with single-variable LCs; any of the three may be ONE. */
static void enforce_var_row(struct cuzk_builder *b, cuzk_var x, cuzk_var y, cuzk_var z) {
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return;
    }
    struct cuzk_lc la, lb, lc;
    cuzk_lc_init(&la, b);
    cuzk_lc_init(&lb, b);
    cuzk_lc_init(&lc, b);
    cuzk_lc_add(&la, NULL, x);
    cuzk_lc_add(&lb, NULL, y);
    cuzk_lc_add(&lc, NULL, z);
    cuzk_builder_enforce(b, &la, &lb, &lc);
}

void cuzk_num_inputize(struct cuzk_builder *b, const struct cuzk_num *x) {
    cuzk_var in = cuzk_builder_alloc_input(b, &x->value);
    enforce_var_row(b, in, CUZK_VAR_ONE, x->var);
}

/* Bits of the canonical value of x, least significant first. */
static int bit_of(const uint64_t *limbs, unsigned i) {
    return (int)((limbs[i / 64] >> (i % 64)) & 1);
}

void cuzk_num_to_bits_le(struct cuzk_builder *b, const struct cuzk_num *x,
                         struct cuzk_bool out[CUZK_FR_NUM_BITS]) {
    uint64_t limbs[4] = {0, 0, 0, 0};
    if (cuzk_builder_has_values(b)) cuzk_fr_to_canonical(limbs, &x->value);
    for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++) out[i] = cuzk_bool_alloc(b, bit_of(limbs, i));
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return;
    }
    struct cuzk_lc lc;
    cuzk_lc_init(&lc, b);
    for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++) cuzk_lc_add(&lc, cuzk_lc_pow2(i), out[i].var);
    cuzk_lc_sub(&lc, NULL, x->var);
    cuzk_builder_enforce(b, NULL, NULL, &lc);
    cuzk_lc_free(&lc);
}

void cuzk_num_decompose(struct cuzk_builder *b, const struct cuzk_num *x, unsigned n,
                        struct cuzk_bool *out) {
    uint64_t limbs[4] = {0, 0, 0, 0};
    if (cuzk_builder_has_values(b)) cuzk_fr_to_canonical(limbs, &x->value);
    for (unsigned i = 0; i < n; i++) out[i] = cuzk_bool_alloc(b, bit_of(limbs, i));
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return;
    }
    struct cuzk_lc la, lb, lc;
    cuzk_lc_init(&la, b);
    cuzk_lc_init(&lb, b);
    cuzk_lc_init(&lc, b);
    for (unsigned i = 0; i < n; i++) cuzk_lc_add(&la, cuzk_lc_pow2(i), out[i].var);
    cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
    cuzk_lc_add(&lc, NULL, x->var);
    cuzk_builder_enforce(b, &la, &lb, &lc);
    cuzk_lc_free(&la);
}

void cuzk_num_bits_value(cuzk_fr *out, const struct cuzk_bool *bits, size_t n) {
    uint64_t limbs[4] = {0, 0, 0, 0};
    if (n > CUZK_FR_CAPACITY) n = CUZK_FR_CAPACITY;
    for (size_t i = 0; i < n; i++) limbs[i / 64] |= (uint64_t)bits[i].value << (i % 64);
    cuzk_fr_from_canonical(out, limbs); /* below 2^254 < r: always canonical */
}

/* (sum 2^i bits[i]) * 1 = target, the LC built from the Booleans (constants fold to ONE). */
static void enforce_packing(struct cuzk_builder *b, const struct cuzk_bool *bits, size_t n,
                            cuzk_var target) {
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return;
    }
    struct cuzk_lc la, lb, lc;
    cuzk_lc_init(&la, b);
    cuzk_lc_init(&lb, b);
    cuzk_lc_init(&lc, b);
    for (size_t i = 0; i < n; i++) cuzk_bool_lc_add(&la, bits[i], cuzk_lc_pow2((unsigned)i));
    cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
    cuzk_lc_add(&lc, NULL, target);
    cuzk_builder_enforce(b, &la, &lb, &lc);
    cuzk_lc_free(&la);
}

struct cuzk_num cuzk_num_pack_bits(struct cuzk_builder *b, const struct cuzk_bool *bits, size_t n) {
    if (n > CUZK_FR_CAPACITY) n = CUZK_FR_CAPACITY;
    cuzk_fr v;
    if (cuzk_builder_has_values(b))
        cuzk_num_bits_value(&v, bits, n);
    else
        cuzk_fr_set_zero(&v);
    struct cuzk_num r = cuzk_num_alloc(b, &v);
    enforce_packing(b, bits, n, r.var);
    return r;
}

void cuzk_num_pack_into_inputs(struct cuzk_builder *b, const struct cuzk_bool *bits, size_t n) {
    for (size_t off = 0; off < n; off += CUZK_FR_CAPACITY) {
        size_t len = n - off < CUZK_FR_CAPACITY ? n - off : CUZK_FR_CAPACITY;
        cuzk_fr v;
        if (cuzk_builder_has_values(b))
            cuzk_num_bits_value(&v, bits + off, len);
        else
            cuzk_fr_set_zero(&v);
        cuzk_var in = cuzk_builder_alloc_input(b, &v);
        enforce_packing(b, bits + off, len, in);
    }
}

void cuzk_num_enforce_equal(struct cuzk_builder *b, const struct cuzk_num *a,
                            const struct cuzk_num *bb) {
    enforce_var_row(b, a->var, CUZK_VAR_ONE, bb->var);
}

struct cuzk_num cuzk_num_add(struct cuzk_builder *b, const struct cuzk_num *a,
                             const struct cuzk_num *bb) {
    cuzk_fr v;
    cuzk_fr_add(&v, &a->value, &bb->value);
    struct cuzk_num r = cuzk_num_alloc(b, &v);
    if (!cuzk_builder_keeps_terms(b)) {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
        return r;
    }
    struct cuzk_lc la, lb, lc;
    cuzk_lc_init(&la, b);
    cuzk_lc_init(&lb, b);
    cuzk_lc_init(&lc, b);
    cuzk_lc_add(&la, NULL, a->var);
    cuzk_lc_add(&la, NULL, bb->var);
    cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
    cuzk_lc_add(&lc, NULL, r.var);
    cuzk_builder_enforce(b, &la, &lb, &lc);
    return r;
}

struct cuzk_num cuzk_num_mul(struct cuzk_builder *b, const struct cuzk_num *a,
                             const struct cuzk_num *bb) {
    cuzk_fr v;
    if (cuzk_builder_has_values(b))
        cuzk_fr_mul(&v, &a->value, &bb->value);
    else
        cuzk_fr_set_zero(&v);
    struct cuzk_num r = cuzk_num_alloc(b, &v);
    enforce_var_row(b, a->var, bb->var, r.var);
    return r;
}
