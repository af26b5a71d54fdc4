/* The constraint-system builder and the small gadgets.
 *
 * Builder: the final column order [ONE, inputs..., aux...] with inputs and aux allocated
 * interleaved, the witness layout (own arrays and a caller buffer), sticky errors, and linear
 * combinations against a naive model (duplicate terms merge, zero sums stay, constants live on
 * ONE) in RECORD mode with COUNT mode agreeing on every term count.
 * Gadgets: Boolean xor/and/ch/maj over every combination of constant / allocated / negated
 * operands (value = native, rows as bellperson folds them, satisfied), AllocatedBit and XOR
 * costs, UInt32 addmany against native sums, num (to_bits_le, decompose, packing, inputs),
 * pick / select / insert_2 / insert_8 at every position, and Merkle levels / paths over SHA-256
 * and Poseidon trees against their native roots. Every cost is checked in COUNT and RECORD
 * mode, and every recorded system is checked row by row. */
#include <string.h>

#include "circuits/merkle.h"
#include "circuits/num.h"
#include "circuits/pick.h"
#include "circuits/poseidon.h"
#include "circuits/uint32.h"
#include "circuits_check.h"

/* ---- builder ------------------------------------------------------------------------------- */

static void fr_u64(cuzk_fr *r, uint64_t v) { cuzk_fr_from_u64(r, v); }

static void test_layout(void) {
    /* inputs and aux interleaved: aux0, in1, aux1, in2, aux2 */
    for (int buffered = 0; buffered < 2; buffered++) {
        struct cuzk_builder b;
        CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
        cuzk_fr wbuf[6];
        if (buffered) CHECK(cuzk_builder_use_buffer(&b, wbuf, 6, 3) == CUZK_OK);
        cuzk_fr v[5];
        for (int i = 0; i < 5; i++) fr_u64(&v[i], 10 + (uint64_t)i);
        cuzk_var a0 = cuzk_builder_alloc(&b, &v[0]);
        cuzk_var i1 = cuzk_builder_alloc_input(&b, &v[1]);
        cuzk_var a1 = cuzk_builder_alloc(&b, &v[2]);
        cuzk_var i2 = cuzk_builder_alloc_input(&b, &v[3]);
        cuzk_var a2 = cuzk_builder_alloc(&b, &v[4]);
        CHECK(cuzk_var_is_aux(a0) && cuzk_var_is_aux(a2) && !cuzk_var_is_aux(i1));
        CHECK(i1 == 1 && i2 == 2 && cuzk_var_index(a1) == 1);
        cuzk_fr got;
        cuzk_builder_value(&b, a1, &got);
        CHECK(cuzk_fr_eq(&got, &v[2]));
        /* a0 * i1 = a1 + 3 i2 - a2 (not satisfied; only the layout matters here) */
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, &b);
        cuzk_lc_init(&lb, &b);
        cuzk_lc_init(&lc, &b);
        cuzk_fr three;
        fr_u64(&three, 3);
        cuzk_lc_add(&la, NULL, a0);
        cuzk_lc_add(&lb, NULL, i1);
        cuzk_lc_add(&lc, NULL, a2);
        cuzk_lc_add(&lc, &three, i2);
        cuzk_lc_add(&lc, NULL, a1);
        cuzk_builder_enforce(&b, &la, &lb, &lc);
        cuzk_lc_free(&lc);
        struct cuzk_cs cs;
        cuzk_fr *w;
        size_t n;
        CHECK(cuzk_builder_finish(&b, &cs, &w, &n) == CUZK_OK);
        CHECK(n == 6 && cs.n_cols == 6 && cs.n_public == 2 && cs.n_rows == 1);
        /* columns: 0 ONE, 1 in1, 2 in2, 3 a0, 4 a1, 5 a2 */
        const uint32_t want_w[6] = {1, 11, 13, 10, 12, 14};
        for (int i = 0; i < 6; i++) {
            cuzk_fr x;
            fr_u64(&x, want_w[i]);
            CHECK(cuzk_fr_eq(&w[i], &x));
        }
        CHECK(cs.m[CUZK_CS_A].col[0] == 3 && cs.m[CUZK_CS_B].col[0] == 1);
        /* C is sorted by building variable: inputs first (in2), then aux (a1, a2) */
        CHECK(cs.m[CUZK_CS_C].nnz == 3 && cs.m[CUZK_CS_C].col[0] == 2 &&
              cs.m[CUZK_CS_C].col[1] == 4 && cs.m[CUZK_CS_C].col[2] == 5);
        CHECK(cuzk_fr_eq(&cs.coefs.v[cs.m[CUZK_CS_C].coef[0]], &three));
        CHECK(buffered ? w == wbuf : w != wbuf);
        if (!buffered) free(w);
        cuzk_cs_free(&cs);
        cuzk_builder_free(&b);
    }
    /* a caller buffer too small, and one laid out for the wrong input count */
    struct cuzk_builder b;
    cuzk_fr wbuf[4];
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_WITNESS, 0) == CUZK_OK);
    CHECK(cuzk_builder_use_buffer(&b, wbuf, 4, 2) == CUZK_OK);
    cuzk_builder_alloc_input(&b, NULL);
    cuzk_builder_alloc(&b, NULL);
    cuzk_builder_alloc(&b, NULL);
    CHECK(cuzk_builder_error(&b) == CUZK_OK);
    cuzk_builder_alloc(&b, NULL);
    CHECK(cuzk_builder_error(&b) == CUZK_ERANGE);
    cuzk_builder_alloc_bit(&b, 1); /* sticky: a no-op now */
    CHECK(cuzk_builder_get_counts(&b)->n_aux == 2);
    CHECK(cuzk_builder_finish(&b, NULL, NULL, NULL) == CUZK_ERANGE);
    cuzk_builder_free(&b);
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_WITNESS, 0) == CUZK_OK);
    CHECK(cuzk_builder_use_buffer(&b, wbuf, 4, 3) == CUZK_OK);
    cuzk_builder_alloc_input(&b, NULL);
    cuzk_fr *w;
    CHECK(cuzk_builder_finish(&b, NULL, &w, NULL) == CUZK_ERANGE);
    cuzk_builder_free(&b);
    /* bad arguments */
    CHECK(cuzk_builder_init(&b, (enum cuzk_builder_mode)7, 0) == CUZK_EINVAL);
    cuzk_builder_free(&b);
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_COUNT, 0) == CUZK_OK);
    CHECK(cuzk_builder_use_buffer(&b, wbuf, 4, 1) == CUZK_EINVAL); /* no values to write */
    cuzk_builder_free(&b);
}

/* Random LCs in RECORD mode against a dense model (coefficient per variable, present flag). */
#define NV 12
struct model {
    cuzk_fr coef[NV];
    int present[NV];
};

static cuzk_var model_var(struct cuzk_builder *b, int i) {
    (void)b;
    return i < 3 ? (cuzk_var)i : CUZK_VAR_AUX | (cuzk_var)(i - 3);
}

static int lc_matches(const struct cuzk_lc *lc, const struct model *m, struct cuzk_builder *b) {
    uint32_t n = 0;
    for (int i = 0; i < NV; i++) n += (uint32_t)m->present[i];
    if (cuzk_lc_len(lc) != n) return 0;
    for (uint32_t t = 0; t < n; t++) {
        cuzk_var v = cuzk_lc_var(lc, t);
        int i = cuzk_var_is_aux(v) ? 3 + (int)cuzk_var_index(v) : (int)v;
        if (i >= NV || !m->present[i] || model_var(b, i) != v) return 0;
        if (t && cuzk_lc_var(lc, t - 1) >= v) return 0; /* sorted, one term per variable */
        const cuzk_fr *c = cuzk_lc_coeff(lc, t);
        if (c && !cuzk_fr_eq(c, &m->coef[i])) return 0;
    }
    return 1;
}

static void random_lc_ops(enum cuzk_builder_mode mode, uint64_t seed, uint32_t *lens) {
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, mode, 0) == CUZK_OK);
    for (int i = 0; i < 2; i++) cuzk_builder_alloc_input(&b, NULL);
    for (int i = 3; i < NV; i++) cuzk_builder_alloc(&b, NULL);
    struct cuzk_lc x, y;
    struct model mx, my;
    cuzk_lc_init(&x, &b);
    cuzk_lc_init(&y, &b);
    memset(&mx, 0, sizeof mx);
    memset(&my, 0, sizeof my);
    int ok = 1;
    for (int step = 0; step < 400; step++) {
        int op = (int)(cuzk_rng_u64(&rng) % 8), i = (int)(cuzk_rng_u64(&rng) % NV);
        cuzk_fr c;
        switch (cuzk_rng_u64(&rng) % 3) {
        case 0: cuzk_fr_set_one(&c); break;
        case 1: cuzk_fr_set_zero(&c); break;
        default: cuzk_fr_random(&c, &rng);
        }
        cuzk_fr t;
        switch (op) {
        case 0:
        case 1: /* x += c v / x -= c v */
            if (op == 0)
                cuzk_lc_add(&x, &c, model_var(&b, i));
            else
                cuzk_lc_sub(&x, &c, model_var(&b, i));
            if (op == 1)
                cuzk_fr_neg(&t, &c);
            else
                t = c;
            cuzk_fr_add(&mx.coef[i], &mx.coef[i], &t);
            mx.present[i] = 1;
            break;
        case 2:
        case 3: /* y += v, y -= v (coefficient one) */
            if (op == 2)
                cuzk_lc_add(&y, NULL, model_var(&b, i));
            else
                cuzk_lc_sub(&y, NULL, model_var(&b, i));
            cuzk_fr_set_one(&t);
            if (op == 3) cuzk_fr_neg(&t, &t);
            cuzk_fr_add(&my.coef[i], &my.coef[i], &t);
            my.present[i] = 1;
            break;
        case 4:
        case 5: /* x += c y / x -= c y */
            if (op == 4)
                cuzk_lc_add_lc(&x, &c, &y);
            else
                cuzk_lc_sub_lc(&x, &c, &y);
            for (int k = 0; k < NV; k++) {
                if (!my.present[k]) continue;
                cuzk_fr_mul(&t, &my.coef[k], &c);
                if (op == 5) cuzk_fr_neg(&t, &t);
                cuzk_fr_add(&mx.coef[k], &mx.coef[k], &t);
                mx.present[k] = 1;
            }
            break;
        case 6: /* y = x scaled, or cleared */
            if (cuzk_rng_u64(&rng) & 1) {
                cuzk_lc_copy(&y, &x);
                cuzk_lc_scale(&y, &c);
                my = mx;
                for (int k = 0; k < NV; k++) cuzk_fr_mul(&my.coef[k], &my.coef[k], &c);
            } else {
                cuzk_lc_clear(&y);
                memset(&my, 0, sizeof my);
            }
            break;
        default: /* x cleared now and then, so that it is rebuilt from scratch */
            if (cuzk_rng_u64(&rng) % 4 == 0) {
                cuzk_lc_clear(&x);
                memset(&mx, 0, sizeof mx);
            }
        }
        if (mode == CUZK_BUILDER_RECORD) ok &= lc_matches(&x, &mx, &b) && lc_matches(&y, &my, &b);
        lens[2 * step] = cuzk_lc_len(&x);
        lens[2 * step + 1] = cuzk_lc_len(&y);
    }
    CHECK(ok);
    cuzk_lc_free(&x);
    cuzk_lc_free(&y);
    cuzk_builder_free(&b);
}

static void test_lc(void) {
    /* the merging rules on fixed cases */
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 0) == CUZK_OK);
    cuzk_var a = cuzk_builder_alloc(&b, NULL), c = cuzk_builder_alloc(&b, NULL);
    struct cuzk_lc x;
    cuzk_lc_init(&x, &b);
    cuzk_lc_add(&x, NULL, a);
    cuzk_lc_add(&x, NULL, a); /* a + a: one term, coefficient 2 */
    cuzk_fr two;
    fr_u64(&two, 2);
    CHECK(cuzk_lc_len(&x) == 1 && cuzk_fr_eq(cuzk_lc_coeff(&x, 0), &two));
    cuzk_lc_sub(&x, &two, a); /* sums to zero: the term stays */
    CHECK(cuzk_lc_len(&x) == 1 && cuzk_fr_is_zero(cuzk_lc_coeff(&x, 0)));
    cuzk_lc_add(&x, NULL, c);
    cuzk_lc_add(&x, NULL, CUZK_VAR_ONE);
    cuzk_lc_sub(&x, NULL, CUZK_VAR_ONE); /* constants merge on ONE */
    CHECK(cuzk_lc_len(&x) == 3 && cuzk_lc_var(&x, 0) == CUZK_VAR_ONE);
    cuzk_builder_enforce(&b, &x, NULL, NULL);
    CHECK(cuzk_builder_get_counts(&b)->nnz[0] == 3);
    cuzk_lc_free(&x);
    cuzk_builder_free(&b);

    /* random sequences: RECORD against the model, COUNT with the same term counts */
    enum { STEPS = 400 };
    static uint32_t lr[2 * STEPS], lcn[2 * STEPS], lw[2 * STEPS];
    for (int rep = 0; rep < 20; rep++) {
        uint64_t seed = cuzk_rng_u64(&test_rng);
        random_lc_ops(CUZK_BUILDER_RECORD, seed, lr);
        random_lc_ops(CUZK_BUILDER_COUNT, seed, lcn);
        random_lc_ops(CUZK_BUILDER_WITNESS, seed, lw);
        CHECK(memcmp(lr, lcn, sizeof lr) == 0);
        int zero = 1;
        for (int i = 0; i < 2 * STEPS; i++) zero &= lw[i] == 0;
        CHECK(zero); /* WITNESS keeps no terms */
    }
}

/* ---- Boolean ------------------------------------------------------------------------------- */

/* Operand kinds: constant 0/1, allocated 0/1, negated allocated (value 0/1). */
static struct cuzk_bool make_bool(struct cuzk_builder *b, int kind) {
    switch (kind) {
    case 0: return cuzk_bool_const(0);
    case 1: return cuzk_bool_const(1);
    case 2: return cuzk_bool_alloc(b, 0);
    case 3: return cuzk_bool_alloc(b, 1);
    case 4: return cuzk_bool_not(cuzk_bool_alloc(b, 1));  /* value 0 */
    default: return cuzk_bool_not(cuzk_bool_alloc(b, 0)); /* value 1 */
    }
}

enum bop { XOR, AND, CH, MAJ };

static int native_op(enum bop op, int a, int b, int c) {
    switch (op) {
    case XOR: return a ^ b;
    case AND: return a & b;
    case CH: return (a & b) ^ ((a ^ 1) & c);
    default: return (a & b) ^ (a & c) ^ (b & c);
    }
}

/* Rows bellperson emits for an operation (from its constant-folding rules). */
static int expected_rows(enum bop op, int ka, int kb, int kc) {
    int ca = ka < 2, cb = kb < 2, cc = kc < 2;
    int va = ka & 1, vb = kb & 1, vc = kc & 1; /* constants' values */
    switch (op) {
    case XOR: return !(ca || cb);
    case AND: return !(ca || cb);
    case CH:
        if (ca && cb && cc) return 0;
        if (ca && !va) return 0;
        if (cb && !vb) return !ca && !cc; /* and(not a, c) */
        if (cc && !vc) return !ca && !cb; /* and(a, b) */
        if (cc) return !ca && !cb;        /* not(and(a, not b)) */
        if (cb) return !ca && !cc;        /* not(and(not a, not c)) */
        return 1;
    default:
        if (ca && cb && cc) return 0;
        if (ca && !va) return !cb && !cc;
        if (cb && !vb) return !ca && !cc;
        if (cc && !vc) return !ca && !cb;
        if (cc) return !ca && !cb;
        if (cb) return !ca && !cc;
        if (ca) return !cb && !cc;
        return 2;
    }
}

static void test_bool_ops(void) {
    int ok_val = 1, ok_rows = 1, ok_sat = 1, ok_modes = 1;
    for (int op = XOR; op <= MAJ; op++) {
        int nk = op <= AND ? 1 : 6;
        for (int ka = 0; ka < 6; ka++)
            for (int kb = 0; kb < 6; kb++)
                for (int kc = 0; kc < nk; kc++) {
                    struct cost cost[2];
                    for (int m = 0; m < 2; m++) {
                        struct cuzk_builder b;
                        cuzk_builder_init(&b, m ? CUZK_BUILDER_RECORD : CUZK_BUILDER_COUNT, 1);
                        struct cuzk_bool a = make_bool(&b, ka), bb = make_bool(&b, kb);
                        struct cuzk_bool c = make_bool(&b, op <= AND ? 0 : kc);
                        struct cost before = cost_now(&b);
                        struct cuzk_bool r;
                        switch (op) {
                        case XOR: r = cuzk_bool_xor(&b, a, bb); break;
                        case AND: r = cuzk_bool_and(&b, a, bb); break;
                        case CH: r = cuzk_bool_sha256_ch(&b, a, bb, c); break;
                        default: r = cuzk_bool_sha256_maj(&b, a, bb, c);
                        }
                        cost[m] = cost_sub(cost_now(&b), before);
                        if (m) {
                            ok_val &=
                                r.value == native_op((enum bop)op, a.value, bb.value, c.value);
                            if (r.kind != CUZK_BOOL_CONST) {
                                cuzk_fr v, want;
                                cuzk_builder_value(&b, r.var, &v);
                                fr_u64(&want, r.kind == CUZK_BOOL_IS ? r.value : !r.value);
                                ok_val &= cuzk_fr_eq(&v, &want);
                            }
                            ok_sat &= record_satisfied(&b);
                        }
                        cuzk_builder_free(&b);
                    }
                    ok_modes &= cost_eq(cost[0], cost[1]);
                    ok_rows &= cost[0].rows == expected_rows((enum bop)op, ka, kb, kc) &&
                               cost[0].aux == cost[0].rows && cost[0].bools == cost[0].rows;
                }
    }
    CHECK(ok_val);
    CHECK(ok_rows);
    CHECK(ok_sat);
    CHECK(ok_modes);

    /* reference table: AllocatedBit 1/1/1/2/1/0, XOR of two variables 1/1/1/1/1/3 */
    for (int m = 0; m < 2; m++) {
        struct cuzk_builder b;
        cuzk_builder_init(&b, m ? CUZK_BUILDER_RECORD : CUZK_BUILDER_COUNT, 1);
        struct cost s0 = cost_now(&b);
        struct cuzk_bool x = cuzk_bool_alloc(&b, 1);
        struct cost s1 = cost_now(&b);
        struct cuzk_bool y = cuzk_bool_alloc(&b, 0);
        struct cost s2 = cost_now(&b);
        cuzk_bool_xor(&b, x, y);
        struct cost s3 = cost_now(&b);
        if (m) { /* the boolean bitmap: aux 0, 1, 2 are bits, then a non-boolean number */
            cuzk_num_alloc(&b, NULL);
            const uint64_t *bm = cuzk_builder_bool_map(&b);
            CHECK(bm && (bm[0] & 0xf) == 0x7);
        } else {
            CHECK(cuzk_builder_bool_map(&b) == NULL);
        }
        cost_check("AllocatedBit", cost_sub(s1, s0), (struct cost){1, 1, 1, 0, {2, 1, 0}});
        cost_check("XOR", cost_sub(s3, s2), (struct cost){1, 1, 1, 0, {1, 1, 3}});
        if (m) CHECK(record_satisfied(&b));
        cuzk_builder_free(&b);
    }
}

/* ---- UInt32 ------------------------------------------------------------------------------- */

static void test_u32(void) {
    for (unsigned n = 2; n <= 8; n++) {
        struct cuzk_builder b;
        cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1);
        struct cuzk_u32 ops[8];
        const struct cuzk_u32 *p[8];
        uint32_t sum = 0;
        for (unsigned k = 0; k < n; k++) {
            uint32_t v = (uint32_t)cuzk_rng_u64(&test_rng);
            ops[k] = k == 1 ? cuzk_u32_const(v) : cuzk_u32_alloc(&b, v);
            p[k] = &ops[k];
            sum += v;
        }
        struct cuzk_multieq me;
        cuzk_multieq_init(&me, &b);
        struct cost before = cost_now(&b);
        struct cuzk_u32 r = cuzk_u32_addmany(&me, p, n);
        struct cuzk_u32 rr = cuzk_u32_rotr(&r, 5), rs = cuzk_u32_shr(&r, 7);
        struct cuzk_u32 x = cuzk_u32_xor(&b, &rr, &rs);
        cuzk_multieq_finish(&me);
        int64_t bits = n == 2 ? 33 : n <= 4 ? 34 : 35;
        struct cost c = cost_sub(cost_now(&b), before);
        /* result bits + 1 MultiEq row + 32 - 7 xors of variables */
        CHECK(c.rows == bits + 1 + 25 && c.aux == bits + 25);
        CHECK(r.value == sum);
        uint32_t got = 0;
        for (int i = 0; i < 32; i++) got |= (uint32_t)r.bits[i].value << i;
        CHECK(got == sum);
        CHECK(x.value == (((sum >> 5) | (sum << 27)) ^ (sum >> 7)));
        CHECK(record_satisfied(&b));
        cuzk_builder_free(&b);
    }
    /* all-constant operands fold to a constant */
    struct cuzk_builder b;
    cuzk_builder_init(&b, CUZK_BUILDER_COUNT, 0);
    struct cuzk_u32 a = cuzk_u32_const(0xffffffffu), c = cuzk_u32_const(7);
    const struct cuzk_u32 *p[2] = {&a, &c};
    struct cuzk_multieq me;
    cuzk_multieq_init(&me, &b);
    struct cuzk_u32 r = cuzk_u32_addmany(&me, p, 2);
    cuzk_multieq_finish(&me);
    CHECK(r.value == 6 && cuzk_bool_is_const(r.bits[0]) &&
          cuzk_builder_get_counts(&b)->constraints == 0);
    cuzk_builder_free(&b);
}

/* ---- num ----------------------------------------------------------------------------------- */

static void test_num(void) {
    for (int m = 0; m < 2; m++) {
        struct cuzk_builder b;
        cuzk_builder_init(&b, m ? CUZK_BUILDER_RECORD : CUZK_BUILDER_COUNT, 1);
        cuzk_fr x;
        cuzk_fr_random(&x, &test_rng);
        struct cuzk_num n = cuzk_num_alloc(&b, &x);
        struct cuzk_bool bits[255], dbits[20];
        struct cost s0 = cost_now(&b);
        cuzk_num_to_bits_le(&b, &n, bits);
        struct cost s1 = cost_now(&b);
        cost_check("to_bits_le", cost_sub(s1, s0),
                   (struct cost){256, 255, 255, 0, {510, 255, 256}});
        struct cuzk_num packed = cuzk_num_pack_bits(&b, bits, 254);
        struct cost s2 = cost_now(&b);
        cost_check("pack_bits", cost_sub(s2, s1), (struct cost){1, 1, 0, 0, {254, 1, 1}});
        cuzk_num_inputize(&b, &n);
        cuzk_num_pack_into_inputs(&b, bits, 255); /* 254 + 1 bits: two inputs */
        struct cost s3 = cost_now(&b);
        cost_check("inputize + pack_into_inputs", cost_sub(s3, s2),
                   (struct cost){3, 0, 0, 3, {-1, 3, 3}});
        cuzk_fr small;
        fr_u64(&small, 0xabcde);
        struct cuzk_num sn = cuzk_num_alloc(&b, &small);
        struct cost s4 = cost_now(&b);
        cuzk_num_decompose(&b, &sn, 20, dbits);
        cost_check("decompose 20", cost_sub(cost_now(&b), s4),
                   (struct cost){21, 20, 20, 0, {60, 21, 1}});
        struct cuzk_num sum = cuzk_num_add(&b, &n, &sn), prod = cuzk_num_mul(&b, &n, &sn);
        cuzk_num_enforce_equal(&b, &sum, &sum);
        if (m) {
            /* the packed value is x mod 2^254 */
            uint64_t l[4];
            cuzk_fr_to_canonical(l, &x);
            l[3] &= (UINT64_C(1) << 62) - 1;
            cuzk_fr want;
            cuzk_fr_from_canonical(&want, l);
            CHECK(cuzk_fr_eq(&packed.value, &want));
            cuzk_fr t;
            cuzk_fr_add(&t, &x, &small);
            CHECK(cuzk_fr_eq(&sum.value, &t));
            cuzk_fr_mul(&t, &x, &small);
            CHECK(cuzk_fr_eq(&prod.value, &t));
            int okb = 1;
            for (int i = 0; i < 20; i++) okb &= dbits[i].value == ((0xabcde >> i) & 1);
            CHECK(okb);
            CHECK(record_satisfied(&b));
        }
        cuzk_builder_free(&b);
    }
}

/* ---- pick / insert ------------------------------------------------------------------------- */

static void test_insert(void) {
    int ok = 1;
    for (int arity = 2; arity <= 8; arity *= 2) {
        int k = arity == 2 ? 1 : arity == 4 ? 2 : 3;
        for (int pos = 0; pos < arity; pos++) {
            struct cost cost[2];
            for (int m = 0; m < 2; m++) {
                struct cuzk_builder b;
                cuzk_builder_init(&b, m ? CUZK_BUILDER_RECORD : CUZK_BUILDER_COUNT, 1);
                cuzk_fr vx, vs[7];
                cuzk_fr_random(&vx, &test_rng);
                struct cuzk_num x = cuzk_num_alloc(&b, &vx), sib[7], out[8];
                for (int i = 0; i < arity - 1; i++) {
                    cuzk_fr_random(&vs[i], &test_rng);
                    sib[i] = cuzk_num_alloc(&b, &vs[i]);
                }
                struct cuzk_bool bits[3];
                for (int i = 0; i < k; i++) bits[i] = cuzk_bool_alloc(&b, (pos >> i) & 1);
                struct cost before = cost_now(&b);
                if (arity == 2)
                    cuzk_insert_2(&b, &x, bits, sib, out);
                else if (arity == 4)
                    cuzk_insert_4(&b, &x, bits, sib, out);
                else
                    cuzk_insert_8(&b, &x, bits, sib, out);
                cost[m] = cost_sub(cost_now(&b), before);
                if (m) {
                    for (int i = 0, j = 0; i < arity; i++) {
                        const cuzk_fr *want = i == pos ? &vx : &vs[j++];
                        ok &= cuzk_fr_eq(&out[i].value, want);
                    }
                    ok &= record_satisfied(&b);
                }
                cuzk_builder_free(&b);
            }
            CHECK(cost_eq(cost[0], cost[1]));
            if (arity == 2)
                cost_check("insert_2", cost[0], (struct cost){2, 2, 0, 0, {4, 2, 4}});
            else if (arity == 4)
                cost_check("insert_4", cost[0], (struct cost){8, 8, 0, 0, {16, 8, 16}});
            else
                cost_check("insert_8", cost[0], (struct cost){22, 22, 2, 0, {43, 23, 42}});
        }
    }
    CHECK(ok);
    /* select over 16 numbers at every index */
    for (unsigned idx = 0; idx < 16; idx++) {
        struct cuzk_builder b;
        cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1);
        struct cuzk_num from[16];
        cuzk_fr v[16];
        for (int i = 0; i < 16; i++) {
            fr_u64(&v[i], 1000 + (uint64_t)i);
            from[i] = cuzk_num_alloc(&b, &v[i]);
        }
        struct cuzk_bool bits[4];
        for (int i = 0; i < 4; i++) bits[i] = cuzk_bool_alloc(&b, (idx >> i) & 1);
        struct cost before = cost_now(&b);
        struct cuzk_num s = cuzk_select(&b, from, 16, bits, 4);
        CHECK(cost_sub(cost_now(&b), before).rows == 15);
        CHECK(cuzk_fr_eq(&s.value, &v[idx]));
        CHECK(record_satisfied(&b));
        cuzk_builder_free(&b);
    }
}

/* ---- Merkle -------------------------------------------------------------------------------- */

static void test_merkle_level_costs(void) {
    /* one PoR level with its index bits: the reference per-level rows */
    struct {
        enum cuzk_merkle_hash h;
        unsigned arity;
        struct cost want;
    } cases[4] = {
        {CUZK_MERKLE_POSEIDON, 8, {530, 537, 5, 0, {-1, -1, -1}}},
        {CUZK_MERKLE_POSEIDON, 4, {387, 390, 2, 0, {-1, -1, -1}}},
        {CUZK_MERKLE_POSEIDON, 2, {314, 315, 1, 0, {-1, -1, -1}}},
        {CUZK_MERKLE_SHA256, 2, {45382, 45335, 45331, 0, {-1, -1, -1}}},
    };
    static const char *const names[4] = {"PoR level Poseidon-8", "PoR level Poseidon-4",
                                         "PoR level Poseidon-2", "PoR level SHA-256"};
    for (int t = 0; t < 4; t++) {
        struct cost cost[2];
        for (int m = 0; m < 2; m++) {
            struct cuzk_builder b;
            cuzk_builder_init(&b, m ? CUZK_BUILDER_RECORD : CUZK_BUILDER_COUNT, 1);
            cuzk_fr leaf;
            cuzk_fr_random(&leaf, &test_rng);
            struct cuzk_num cur = cuzk_num_alloc(&b, &leaf), sib[7];
            struct cuzk_bool bits[3];
            unsigned k = cases[t].arity == 8 ? 3 : cases[t].arity == 4 ? 2 : 1;
            struct cost before = cost_now(&b);
            for (unsigned i = 0; i < k; i++) bits[i] = cuzk_bool_alloc(&b, (int)(i & 1));
            for (unsigned i = 0; i < cases[t].arity - 1; i++) {
                cuzk_fr s;
                cuzk_fr_random(&s, &test_rng);
                sib[i] = cuzk_num_alloc(&b, &s);
            }
            cuzk_merkle_level(&b, cases[t].h, cases[t].arity, &cur, bits, sib);
            cost[m] = cost_sub(cost_now(&b), before);
            if (m) CHECK(record_satisfied(&b));
            cuzk_builder_free(&b);
        }
        CHECK(cost_eq(cost[0], cost[1]));
        cost_check(names[t], cost[0], cases[t].want);
    }
}

/* Whole paths against the native root; a wrong root must leave the system unsatisfied. The
 * compound shapes are Filecoin's 8-4-2 and 8-8-2 (a binary top over 8-ary levels). */
static void test_merkle_paths(void) {
    const struct cuzk_merkle_shape cases[6] = {
        {CUZK_MERKLE_SHA256, 2, 3, 0, 0},   {CUZK_MERKLE_POSEIDON, 8, 2, 0, 0},
        {CUZK_MERKLE_POSEIDON, 2, 3, 0, 0}, {CUZK_MERKLE_POSEIDON, 8, 1, 4, 2},
        {CUZK_MERKLE_POSEIDON, 8, 2, 0, 2}, {CUZK_MERKLE_POSEIDON, 8, 1, 4, 0}};
    const unsigned want_bits[6] = {3, 6, 3, 6, 7, 5}, want_sibs[6] = {3, 14, 3, 11, 15, 10};
    for (int t = 0; t < 6; t++) {
        const struct cuzk_merkle_shape *sh = &cases[t];
        const unsigned nb = cuzk_merkle_shape_bits(sh), ns = cuzk_merkle_shape_siblings(sh);
        CHECK(cuzk_merkle_shape_valid(sh) && nb == want_bits[t] && ns == want_sibs[t]);
        cuzk_fr leaf, sibs[16], root;
        cuzk_fr_random(&leaf, &test_rng);
        for (unsigned i = 0; i < ns; i++) cuzk_fr_random(&sibs[i], &test_rng);
        uint64_t index = cuzk_rng_u64(&test_rng) & ((UINT64_C(1) << nb) - 1);
        cuzk_merkle_root_native(sh, &leaf, sibs, index, &root);
        for (int wrong = 0; wrong < 2; wrong++) {
            struct cuzk_builder b;
            cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1);
            cuzk_fr r = root;
            if (wrong) cuzk_fr_add(&r, &r, cuzk_lc_pow2(0));
            struct cuzk_num ln = cuzk_num_alloc(&b, &leaf), rn = cuzk_num_alloc(&b, &r);
            cuzk_merkle_por(&b, sh, &ln, sibs, index, &rn);
            const struct cuzk_builder_counts *c = cuzk_builder_get_counts(&b);
            CHECK(c->n_inputs == 2);              /* ONE + the packed index */
            if (sh->hash == CUZK_MERKLE_POSEIDON) /* the bits, nor and and of each insert_8 */
                CHECK(c->n_bool == nb + (sh->arity == 8 ? 2 * sh->levels : 0));
            cuzk_fr in1, want_in;
            cuzk_builder_value(&b, 1, &in1);
            fr_u64(&want_in, index);
            CHECK(cuzk_fr_eq(&in1, &want_in));
            CHECK(record_satisfied(&b) == !wrong);
            cuzk_builder_free(&b);
        }
        /* the same proof without public input, bits and siblings the caller's */
        struct cuzk_builder b;
        cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1);
        struct cuzk_num ln = cuzk_num_alloc(&b, &leaf), rn = cuzk_num_alloc(&b, &root), sn[16];
        struct cuzk_bool bits[8];
        for (unsigned i = 0; i < nb; i++) bits[i] = cuzk_bool_alloc(&b, (int)((index >> i) & 1));
        for (unsigned i = 0; i < ns; i++) sn[i] = cuzk_num_alloc(&b, &sibs[i]);
        cuzk_merkle_por_no_input(&b, sh, &ln, bits, sn, &rn);
        CHECK(cuzk_builder_get_counts(&b)->n_inputs == 1);
        CHECK(record_satisfied(&b));
        cuzk_builder_free(&b);
    }
    /* shapes the module does not build */
    const struct cuzk_merkle_shape no[3] = {{CUZK_MERKLE_SHA256, 2, 3, 4, 0},
                                            {CUZK_MERKLE_POSEIDON, 8, 1, 3, 0},
                                            {CUZK_MERKLE_POSEIDON, 8, 22, 0, 0}};
    for (int t = 0; t < 3; t++) CHECK(!cuzk_merkle_shape_valid(&no[t]));
}

int main(void) {
    test_init("test_circuits_builder");
    test_layout();
    test_lc();
    test_bool_ops();
    test_u32();
    test_num();
    test_insert();
    test_merkle_level_costs();
    test_merkle_paths();
    return test_finish();
}
