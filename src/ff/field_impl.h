/* Out-of-line bodies of the field contract in field_tmpl.h; included by fp.c and fr.c with
 * the same parameter macros plus CUZK_F_MINUS2, CUZK_F_HALF, CUZK_F_R3 and CUZK_F_BITS. */

void CUZK_F(pow)(CUZK_F_T *r, const CUZK_F_T *a, const uint64_t *e, int elimbs) {
    CUZK_F_T acc = CUZK_F(one_), base = *a;
    int top = elimbs * 64 - 1;
    while (top >= 0 && !((e[top / 64] >> (top % 64)) & 1)) top--;
    for (int i = top; i >= 0; i--) {
        CUZK_F(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) CUZK_F(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

void CUZK_F(inv)(CUZK_F_T *r, const CUZK_F_T *a) {
    static const uint64_t e[CUZK_F_NL] = CUZK_F_MINUS2;
    CUZK_F(pow)(r, a, e, CUZK_F_NL);
}

void CUZK_F(inv_var)(CUZK_F_T *r, const CUZK_F_T *a) {
    /* the plain inverse of aR is 1/(aR); multiplying by R^3 in Montgomery gives R/a */
    static const CUZK_F_T r3 = {CUZK_F_R3};
    CUZK_F_T t;
    cuzk_limbs_inv_mod_var(t.l, a->l, CUZK_F(modulus_), CUZK_F_NL);
    CUZK_F(mul)(r, &t, &r3);
}

void CUZK_F(batch_inv)(CUZK_F_T *out, const CUZK_F_T *in, size_t n) {
    if (n == 0) return;
    CUZK_F_T acc = CUZK_F(one_);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc; /* product of the non-zero in[0..i) */
        if (!CUZK_F(is_zero)(&in[i])) CUZK_F(mul)(&acc, &acc, &in[i]);
    }
    CUZK_F(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (CUZK_F(is_zero)(&in[i])) continue; /* out[i] stays 0 below */
        CUZK_F_T t;
        CUZK_F(mul)(&t, &acc, &out[i]);
        CUZK_F(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
    for (size_t i = 0; i < n; i++)
        if (CUZK_F(is_zero)(&in[i])) CUZK_F(set_zero)(&out[i]);
}

int CUZK_F(is_square)(const CUZK_F_T *a) {
    static const uint64_t e[CUZK_F_NL] = CUZK_F_HALF;
    CUZK_F_T t;
    CUZK_F(pow)(&t, a, e, CUZK_F_NL);
    return CUZK_F(is_zero)(a) || CUZK_F(is_one)(&t);
}

void CUZK_F(from_u64)(CUZK_F_T *r, uint64_t v) {
    CUZK_F_T t = {{v}};
    CUZK_F(mul)(r, &t, &CUZK_F(r2_));
}

int CUZK_F(from_canonical)(CUZK_F_T *r, const uint64_t *limbs) {
    if (cuzk_mont_cmp(limbs, CUZK_F(modulus_), CUZK_F_NL) >= 0) return CUZK_ENONCANON;
    CUZK_F_T t;
    memcpy(t.l, limbs, sizeof t.l);
    CUZK_F(mul)(r, &t, &CUZK_F(r2_));
    return CUZK_OK;
}

void CUZK_F(to_canonical)(uint64_t *limbs, const CUZK_F_T *a) {
    static const CUZK_F_T plain_one = {{1}};
    CUZK_F_T t;
    CUZK_F(mul)(&t, a, &plain_one);
    memcpy(limbs, t.l, sizeof t.l);
}

int CUZK_F(from_bytes_le)(CUZK_F_T *r, const uint8_t *in) {
    uint64_t v[CUZK_F_NL];
    cuzk_limbs_from_bytes_le(v, in, CUZK_F_NL);
    return CUZK_F(from_canonical)(r, v);
}

int CUZK_F(from_bytes_be)(CUZK_F_T *r, const uint8_t *in) {
    uint64_t v[CUZK_F_NL];
    cuzk_limbs_from_bytes_be(v, in, CUZK_F_NL);
    return CUZK_F(from_canonical)(r, v);
}

void CUZK_F(to_bytes_le)(uint8_t *out, const CUZK_F_T *a) {
    uint64_t v[CUZK_F_NL];
    CUZK_F(to_canonical)(v, a);
    cuzk_limbs_to_bytes_le(out, v, CUZK_F_NL);
}

void CUZK_F(to_bytes_be)(uint8_t *out, const CUZK_F_T *a) {
    uint64_t v[CUZK_F_NL];
    CUZK_F(to_canonical)(v, a);
    cuzk_limbs_to_bytes_be(out, v, CUZK_F_NL);
}

int CUZK_F(from_mont_le)(CUZK_F_T *r, const uint8_t *in) {
    CUZK_F_T t;
    cuzk_limbs_from_bytes_le(t.l, in, CUZK_F_NL);
    if (cuzk_mont_cmp(t.l, CUZK_F(modulus_), CUZK_F_NL) >= 0) return CUZK_ENONCANON;
    *r = t;
    return CUZK_OK;
}

void CUZK_F(to_mont_le)(uint8_t *out, const CUZK_F_T *a) {
    cuzk_limbs_to_bytes_le(out, a->l, CUZK_F_NL);
}

int CUZK_F(from_dec)(CUZK_F_T *r, const char *s) {
    uint64_t v[CUZK_F_NL];
    int err = cuzk_limbs_from_dec(v, CUZK_F_NL, s);
    if (err) return err;
    return CUZK_F(from_canonical)(r, v);
}

int CUZK_F(to_dec)(char *buf, size_t cap, const CUZK_F_T *a) {
    uint64_t v[CUZK_F_NL];
    CUZK_F(to_canonical)(v, a);
    return cuzk_limbs_to_dec(buf, cap, v, CUZK_F_NL);
}

int CUZK_F(is_lexlarger)(const CUZK_F_T *a) {
    static const uint64_t half[CUZK_F_NL] = CUZK_F_HALF;
    uint64_t v[CUZK_F_NL];
    CUZK_F(to_canonical)(v, a);
    return cuzk_mont_cmp(v, half, CUZK_F_NL) > 0;
}

int CUZK_F(random)(CUZK_F_T *r, struct cuzk_rng *rng) {
    /* rejection sampling on CUZK_F_BITS-bit integers: uniform, fewer than 2 tries on average */
    for (;;) {
        uint64_t v[CUZK_F_NL];
        int err = cuzk_rng_fill(rng, v, sizeof v);
        if (err) return err;
        v[CUZK_F_NL - 1] &= (~0ull) >> (64 * CUZK_F_NL - CUZK_F_BITS);
        if (CUZK_F(from_canonical)(r, v) == CUZK_OK) return CUZK_OK;
    }
}
