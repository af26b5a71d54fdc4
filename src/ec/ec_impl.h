/* Bodies of the group contract in ec_tmpl.h, shared by G1 and G2. The including .c defines the
 * parameters of ec_tmpl.h plus CUZK_E_FF(name) (coordinate field functions, e.g. cuzk_fp_##name),
 * CUZK_E_B (b as a CUZK_E_FT initialiser) and CUZK_E_GEN_X / CUZK_E_GEN_Y. Formulas: the a = 0
 * Jacobian formulas of the Explicit-Formulas Database (dbl-2009-l, add-2007-bl, madd-2007-bl). */

#include <stdlib.h>

#include "cuzk/error.h"

static const CUZK_E_FT CUZK_E(b_) = CUZK_E_B;

void CUZK_E(set_inf)(CUZK_E_T *r) {
    CUZK_E_FF(set_one)(&r->x);
    CUZK_E_FF(set_one)(&r->y);
    CUZK_E_FF(set_zero)(&r->z);
}

int CUZK_E(is_inf)(const CUZK_E_T *p) { return CUZK_E_FF(is_zero)(&p->z); }

void CUZK_E(affine_set_inf)(CUZK_E_AFF *r) {
    CUZK_E_FF(set_zero)(&r->x);
    CUZK_E_FF(set_zero)(&r->y);
}

int CUZK_E(affine_is_inf)(const CUZK_E_AFF *p) {
    return CUZK_E_FF(is_zero)(&p->x) && CUZK_E_FF(is_zero)(&p->y);
}

void CUZK_E(generator)(CUZK_E_AFF *r) {
    static const CUZK_E_AFF g = {CUZK_E_GEN_X, CUZK_E_GEN_Y};
    *r = g;
}

void CUZK_E(from_affine)(CUZK_E_T *r, const CUZK_E_AFF *a) {
    if (CUZK_E(affine_is_inf)(a)) {
        CUZK_E(set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    CUZK_E_FF(set_one)(&r->z);
}

/* (X/Z^2, Y/Z^3) given zi = 1/Z. */
static void CUZK_E(affine_from_zinv)(CUZK_E_AFF *r, const CUZK_E_T *p, const CUZK_E_FT *zi) {
    CUZK_E_FT zi2, zi3;
    CUZK_E_FF(sqr)(&zi2, zi);
    CUZK_E_FF(mul)(&zi3, &zi2, zi);
    CUZK_E_FF(mul)(&r->x, &p->x, &zi2);
    CUZK_E_FF(mul)(&r->y, &p->y, &zi3);
}

void CUZK_E(to_affine)(CUZK_E_AFF *r, const CUZK_E_T *p) {
    if (CUZK_E(is_inf)(p)) {
        CUZK_E(affine_set_inf)(r);
        return;
    }
    CUZK_E_FT zi;
    CUZK_E_FF(inv_var)(&zi, &p->z);
    CUZK_E(affine_from_zinv)(r, p, &zi);
}

void CUZK_E(batch_to_affine)(CUZK_E_AFF *out, const CUZK_E_T *in, size_t n) {
    /* Montgomery's trick with out[i].x holding the product of the non-zero Z of in[0..i) */
    if (n == 0) return;
    CUZK_E_FT acc;
    CUZK_E_FF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!CUZK_E(is_inf)(&in[i])) CUZK_E_FF(mul)(&acc, &acc, &in[i].z);
    }
    CUZK_E_FF(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (CUZK_E(is_inf)(&in[i])) {
            CUZK_E(affine_set_inf)(&out[i]);
            continue;
        }
        CUZK_E_FT zi;
        CUZK_E_FF(mul)(&zi, &acc, &out[i].x);
        CUZK_E_FF(mul)(&acc, &acc, &in[i].z);
        CUZK_E(affine_from_zinv)(&out[i], &in[i], &zi);
    }
}

void CUZK_E(dbl)(CUZK_E_T *r, const CUZK_E_T *p) {
    if (CUZK_E(is_inf)(p)) {
        *r = *p;
        return;
    }
    CUZK_E_FT a, b, c, d, e, f, t;
    CUZK_E_FF(sqr)(&a, &p->x);
    CUZK_E_FF(sqr)(&b, &p->y);
    CUZK_E_FF(sqr)(&c, &b);
    CUZK_E_FF(add)(&d, &p->x, &b);
    CUZK_E_FF(sqr)(&d, &d);
    CUZK_E_FF(sub)(&d, &d, &a);
    CUZK_E_FF(sub)(&d, &d, &c);
    CUZK_E_FF(dbl)(&d, &d);
    CUZK_E_FF(dbl)(&e, &a);
    CUZK_E_FF(add)(&e, &e, &a);
    CUZK_E_FF(sqr)(&f, &e);
    CUZK_E_FF(mul)(&r->z, &p->y, &p->z); /* before r->y is written: r may alias p */
    CUZK_E_FF(dbl)(&r->z, &r->z);
    CUZK_E_FF(dbl)(&t, &d);
    CUZK_E_FF(sub)(&r->x, &f, &t);
    CUZK_E_FF(sub)(&t, &d, &r->x);
    CUZK_E_FF(mul)(&t, &e, &t);
    CUZK_E_FF(dbl)(&c, &c);
    CUZK_E_FF(dbl)(&c, &c);
    CUZK_E_FF(dbl)(&c, &c);
    CUZK_E_FF(sub)(&r->y, &t, &c);
}

void CUZK_E(add)(CUZK_E_T *r, const CUZK_E_T *p, const CUZK_E_T *q) {
    if (CUZK_E(is_inf)(p)) {
        *r = *q;
        return;
    }
    if (CUZK_E(is_inf)(q)) {
        *r = *p;
        return;
    }
    CUZK_E_FT z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    CUZK_E_FF(sqr)(&z1z1, &p->z);
    CUZK_E_FF(sqr)(&z2z2, &q->z);
    CUZK_E_FF(mul)(&u1, &p->x, &z2z2);
    CUZK_E_FF(mul)(&u2, &q->x, &z1z1);
    CUZK_E_FF(mul)(&s1, &p->y, &q->z);
    CUZK_E_FF(mul)(&s1, &s1, &z2z2);
    CUZK_E_FF(mul)(&s2, &q->y, &p->z);
    CUZK_E_FF(mul)(&s2, &s2, &z1z1);
    CUZK_E_FF(sub)(&h, &u2, &u1);
    CUZK_E_FF(sub)(&rr, &s2, &s1);
    if (CUZK_E_FF(is_zero)(&h)) {
        if (CUZK_E_FF(is_zero)(&rr))
            CUZK_E(dbl)(r, p);
        else
            CUZK_E(set_inf)(r);
        return;
    }
    CUZK_E_FF(dbl)(&i, &h);
    CUZK_E_FF(sqr)(&i, &i);
    CUZK_E_FF(mul)(&j, &h, &i);
    CUZK_E_FF(dbl)(&rr, &rr);
    CUZK_E_FF(mul)(&v, &u1, &i);
    CUZK_E_FF(add)(&t, &p->z, &q->z); /* Z3 first: r may alias p or q */
    CUZK_E_FF(sqr)(&t, &t);
    CUZK_E_FF(sub)(&t, &t, &z1z1);
    CUZK_E_FF(sub)(&t, &t, &z2z2);
    CUZK_E_FF(mul)(&r->z, &t, &h);
    CUZK_E_FF(sqr)(&r->x, &rr);
    CUZK_E_FF(sub)(&r->x, &r->x, &j);
    CUZK_E_FF(dbl)(&t, &v);
    CUZK_E_FF(sub)(&r->x, &r->x, &t);
    CUZK_E_FF(sub)(&t, &v, &r->x);
    CUZK_E_FF(mul)(&t, &rr, &t);
    CUZK_E_FF(mul)(&s1, &s1, &j);
    CUZK_E_FF(dbl)(&s1, &s1);
    CUZK_E_FF(sub)(&r->y, &t, &s1);
}

void CUZK_E(add_affine)(CUZK_E_T *r, const CUZK_E_T *p, const CUZK_E_AFF *q) {
    if (CUZK_E(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (CUZK_E(is_inf)(p)) {
        CUZK_E(from_affine)(r, q);
        return;
    }
    CUZK_E_FT z1z1, u2, s2, h, hh, i, j, rr, v, t, y1;
    CUZK_E_FF(sqr)(&z1z1, &p->z);
    CUZK_E_FF(mul)(&u2, &q->x, &z1z1);
    CUZK_E_FF(mul)(&s2, &q->y, &p->z);
    CUZK_E_FF(mul)(&s2, &s2, &z1z1);
    CUZK_E_FF(sub)(&h, &u2, &p->x);
    CUZK_E_FF(sub)(&rr, &s2, &p->y);
    if (CUZK_E_FF(is_zero)(&h)) {
        if (CUZK_E_FF(is_zero)(&rr))
            CUZK_E(dbl)(r, p);
        else
            CUZK_E(set_inf)(r);
        return;
    }
    CUZK_E_FF(sqr)(&hh, &h);
    CUZK_E_FF(dbl)(&i, &hh);
    CUZK_E_FF(dbl)(&i, &i);
    CUZK_E_FF(mul)(&j, &h, &i);
    CUZK_E_FF(dbl)(&rr, &rr);
    CUZK_E_FF(mul)(&v, &p->x, &i);
    y1 = p->y;
    CUZK_E_FF(add)(&t, &p->z, &h);
    CUZK_E_FF(sqr)(&t, &t);
    CUZK_E_FF(sub)(&t, &t, &z1z1);
    CUZK_E_FF(sub)(&r->z, &t, &hh);
    CUZK_E_FF(sqr)(&r->x, &rr);
    CUZK_E_FF(sub)(&r->x, &r->x, &j);
    CUZK_E_FF(dbl)(&t, &v);
    CUZK_E_FF(sub)(&r->x, &r->x, &t);
    CUZK_E_FF(sub)(&t, &v, &r->x);
    CUZK_E_FF(mul)(&t, &rr, &t);
    CUZK_E_FF(mul)(&y1, &y1, &j);
    CUZK_E_FF(dbl)(&y1, &y1);
    CUZK_E_FF(sub)(&r->y, &t, &y1);
}

void CUZK_E(neg)(CUZK_E_T *r, const CUZK_E_T *p) {
    r->x = p->x;
    CUZK_E_FF(neg)(&r->y, &p->y);
    r->z = p->z;
}

void CUZK_E(affine_neg)(CUZK_E_AFF *r, const CUZK_E_AFF *p) {
    r->x = p->x;
    CUZK_E_FF(neg)(&r->y, &p->y); /* the identity (0, 0) stays (0, 0) */
}

void CUZK_E(mul_var)(CUZK_E_T *r, const CUZK_E_T *p, const uint64_t *k, int klimbs) {
    /* 4-bit fixed windows over a table of 0..15 multiples */
    CUZK_E_T table[16], acc;
    CUZK_E(set_inf)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i++) CUZK_E(add)(&table[i], &table[i - 1], p);
    CUZK_E(set_inf)(&acc);
    for (int i = klimbs * 16 - 1; i >= 0; i--) {
        for (int d = 0; d < 4; d++) CUZK_E(dbl)(&acc, &acc);
        unsigned nib = (unsigned)(k[i / 16] >> (4 * (i % 16))) & 15;
        if (nib) CUZK_E(add)(&acc, &acc, &table[nib]);
    }
    *r = acc;
}

int CUZK_E(eq)(const CUZK_E_T *p, const CUZK_E_T *q) {
    int pi = CUZK_E(is_inf)(p), qi = CUZK_E(is_inf)(q);
    if (pi || qi) return pi && qi;
    CUZK_E_FT z1z1, z2z2, a, b;
    CUZK_E_FF(sqr)(&z1z1, &p->z);
    CUZK_E_FF(sqr)(&z2z2, &q->z);
    CUZK_E_FF(mul)(&a, &p->x, &z2z2);
    CUZK_E_FF(mul)(&b, &q->x, &z1z1);
    if (!CUZK_E_FF(eq)(&a, &b)) return 0;
    CUZK_E_FF(mul)(&a, &p->y, &z2z2);
    CUZK_E_FF(mul)(&a, &a, &q->z);
    CUZK_E_FF(mul)(&b, &q->y, &z1z1);
    CUZK_E_FF(mul)(&b, &b, &p->z);
    return CUZK_E_FF(eq)(&a, &b);
}

int CUZK_E(affine_eq)(const CUZK_E_AFF *p, const CUZK_E_AFF *q) {
    return CUZK_E_FF(eq)(&p->x, &q->x) && CUZK_E_FF(eq)(&p->y, &q->y);
}

int CUZK_E(is_on_curve)(const CUZK_E_T *p) {
    /* Y^2 = X^3 + b Z^6 */
    if (CUZK_E(is_inf)(p)) return 1;
    CUZK_E_FT l, rhs, z6;
    CUZK_E_FF(sqr)(&l, &p->y);
    CUZK_E_FF(sqr)(&rhs, &p->x);
    CUZK_E_FF(mul)(&rhs, &rhs, &p->x);
    CUZK_E_FF(sqr)(&z6, &p->z);
    CUZK_E_FF(mul)(&z6, &z6, &p->z);
    CUZK_E_FF(sqr)(&z6, &z6);
    CUZK_E_FF(mul)(&z6, &z6, &CUZK_E(b_));
    CUZK_E_FF(add)(&rhs, &rhs, &z6);
    return CUZK_E_FF(eq)(&l, &rhs);
}

int CUZK_E(affine_is_on_curve)(const CUZK_E_AFF *p) {
    CUZK_E_T j;
    CUZK_E(from_affine)(&j, p);
    return CUZK_E(is_on_curve)(&j);
}

/* r = |x| p, |x| = 0xd201000000010000, the BLS parameter's absolute value: 63 doublings and
 * 5 additions over its 6 set bits (the generic windowed multiplication would add 16 times). */
static void CUZK_E(mul_by_x_abs)(CUZK_E_T *r, const CUZK_E_T *p) {
    CUZK_E_T acc = *p;
    for (int bit = 62; bit >= 0; bit--) {
        CUZK_E(dbl)(&acc, &acc);
        if ((CUZK_BLS_X_ABS >> bit) & 1) CUZK_E(add)(&acc, &acc, p);
    }
    *r = acc;
}

int CUZK_E(affine_is_in_subgroup)(const CUZK_E_AFF *p) {
    CUZK_E_T j;
    CUZK_E(from_affine)(&j, p);
    return CUZK_E(is_in_subgroup)(&j);
}

size_t CUZK_E(fb_table_len)(int w) {
    if (w < 2 || w > 16) return 0;
    return (size_t)((256 + w - 1) / w) * (((size_t)1 << w) - 1);
}

int CUZK_E(fb_table_init)(CUZK_E_AFF *table, const CUZK_E_AFF *base, int w) {
    if (w < 2 || w > 16) return CUZK_EINVAL;
    size_t per = ((size_t)1 << w) - 1;
    int nwin = (256 + w - 1) / w;
    CUZK_E_T *row = malloc(per * sizeof *row);
    if (!row) return CUZK_ENOMEM;
    CUZK_E_T step; /* 2^(w j) B */
    CUZK_E(from_affine)(&step, base);
    for (int j = 0; j < nwin; j++) {
        row[0] = step;
        for (size_t d = 1; d < per; d++) CUZK_E(add)(&row[d], &row[d - 1], &step);
        CUZK_E(batch_to_affine)(table + (size_t)j * per, row, per);
        CUZK_E(add)(&step, &row[per - 1], &step); /* (2^w - 1 + 1) * previous step */
    }
    free(row);
    return CUZK_OK;
}

void CUZK_E(fb_mul)(CUZK_E_T *r, const CUZK_E_AFF *table, int w, const uint64_t k[4]) {
    size_t per = ((size_t)1 << w) - 1;
    int nwin = (256 + w - 1) / w;
    CUZK_E_T acc;
    CUZK_E(set_inf)(&acc);
    for (int j = 0; j < nwin; j++) {
        int bit = j * w;
        /* the w bits of k starting at bit, possibly straddling two limbs */
        uint64_t d = k[bit / 64] >> (bit % 64);
        if (bit % 64 + w > 64 && bit / 64 + 1 < 4) d |= k[bit / 64 + 1] << (64 - bit % 64);
        d &= per;
        if (d) CUZK_E(add_affine)(&acc, &acc, &table[(size_t)j * per + d - 1]);
    }
    *r = acc;
}
