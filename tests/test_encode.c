/* Point encodings: round trips of every format on random points, and a corpus of malformed
 * encodings (wrong flags, non-canonical coordinates, off-curve and off-subgroup points, bad
 * decimal strings), each of which must be rejected with the right error code. */
#include <string.h>

#include "cuzk/error.h"
#include "ec/ec_constants.h"
#include "ec/encode.h"
#include "ff/fr.h"
#include "test_util.h"

#define ROUNDS 200

/* An x (as a field element) with no curve point above it. */
static void g1_bad_x(cuzk_fp *x) {
    static const cuzk_fp b = CUZK_G1_B;
    for (;;) {
        cuzk_fp rhs, y;
        cuzk_fp_random(x, &test_rng);
        cuzk_fp_sqr(&rhs, x);
        cuzk_fp_mul(&rhs, &rhs, x);
        cuzk_fp_add(&rhs, &rhs, &b);
        if (cuzk_fp_sqrt(&y, &rhs) != CUZK_OK) return;
    }
}

static void g1_roundtrips(void) {
    uint8_t c[CUZK_G1_COMPRESSED], u[CUZK_G1_UNCOMPRESSED], l[CUZK_G1_LEM];
    char dec[3][CUZK_FP_DEC_MAX];
    cuzk_g1_affine p, q;
    for (int i = 0; i <= ROUNDS; i++) {
        if (i == ROUNDS)
            cuzk_g1_affine_set_inf(&p);
        else
            test_g1_random(&p);
        cuzk_g1_to_compressed(c, &p);
        CHECK(cuzk_g1_from_compressed(&q, c) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        cuzk_g1_to_uncompressed(u, &p);
        CHECK(cuzk_g1_from_uncompressed(&q, u) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        cuzk_g1_to_lem(l, &p);
        CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        cuzk_g1_to_dec(dec, &p);
        const char *xyz[3] = {dec[0], dec[1], dec[2]};
        CHECK(cuzk_g1_from_dec(&q, xyz) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
    }
    /* the identity's exact encodings */
    CHECK(c[0] == 0xc0 && u[0] == 0x40);
    char dec2[3][CUZK_FP_DEC_MAX];
    cuzk_g1_to_dec(dec2, &p);
    CHECK(!strcmp(dec2[0], "0") && !strcmp(dec2[1], "1") && !strcmp(dec2[2], "0"));
}

static void g2_roundtrips(void) {
    uint8_t c[CUZK_G2_COMPRESSED], u[CUZK_G2_UNCOMPRESSED], l[CUZK_G2_LEM];
    char dec[6][CUZK_FP_DEC_MAX];
    cuzk_g2_affine p, q;
    for (int i = 0; i <= ROUNDS; i++) {
        if (i == ROUNDS)
            cuzk_g2_affine_set_inf(&p);
        else
            test_g2_random(&p);
        cuzk_g2_to_compressed(c, &p);
        CHECK(cuzk_g2_from_compressed(&q, c) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        cuzk_g2_to_uncompressed(u, &p);
        CHECK(cuzk_g2_from_uncompressed(&q, u) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        cuzk_g2_to_lem(l, &p);
        CHECK(cuzk_g2_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        cuzk_g2_to_dec(dec, &p);
        const char *xyz[6] = {dec[0], dec[1], dec[2], dec[3], dec[4], dec[5]};
        CHECK(cuzk_g2_from_dec(&q, xyz) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
    }
    CHECK(c[0] == 0xc0 && u[0] == 0x40);
}

/* Jacobian decimal input (z other than 0 and 1), as snarkjs reads it. */
static void jacobian_decimal(void) {
    cuzk_g1_affine p, q;
    test_g1_random(&p);
    cuzk_fp z, z2, z3;
    cuzk_fp_random(&z, &test_rng);
    cuzk_fp_sqr(&z2, &z);
    cuzk_fp_mul(&z3, &z2, &z);
    cuzk_g1 j;
    cuzk_fp_mul(&j.x, &p.x, &z2);
    cuzk_fp_mul(&j.y, &p.y, &z3);
    j.z = z;
    char d[3][CUZK_FP_DEC_MAX];
    cuzk_fp_to_dec(d[0], sizeof d[0], &j.x);
    cuzk_fp_to_dec(d[1], sizeof d[1], &j.y);
    cuzk_fp_to_dec(d[2], sizeof d[2], &j.z);
    const char *xyz[3] = {d[0], d[1], d[2]};
    CHECK(cuzk_g1_from_dec(&q, xyz) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
}

static const uint8_t p_be[CUZK_FP_BYTES] = {
    0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
    0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
    0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};

static void g1_malformed(void) {
    uint8_t c[CUZK_G1_COMPRESSED], u[CUZK_G1_UNCOMPRESSED], l[CUZK_G1_LEM],
        bad[CUZK_G1_UNCOMPRESSED];
    cuzk_g1_affine p, q;
    test_g1_random(&p);
    cuzk_g1_to_compressed(c, &p);
    cuzk_g1_to_uncompressed(u, &p);

    /* flags */
    memcpy(bad, c, sizeof c);
    bad[0] &= 0x7f; /* compressed length without the compression flag */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, u, sizeof u);
    bad[0] |= 0x80; /* uncompressed length with the compression flag */
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, u, sizeof u);
    bad[0] |= 0x20; /* sort flag on an uncompressed point */
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_EFLAGS);
    memset(bad, 0, sizeof bad);
    bad[0] = 0xc0 | 0x20; /* identity with the sort flag */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_EFLAGS);
    bad[0] = 0xc0;
    bad[47] = 1; /* identity with a non-zero coordinate */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_EFLAGS);
    memset(bad, 0, sizeof bad);
    bad[0] = 0x40;
    bad[95] = 1;
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, c, sizeof c);
    bad[0] |= 0x40; /* identity flag on a real point */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_EFLAGS);
    memset(bad, 0, sizeof bad); /* all zeros: no compression flag on a 48-byte encoding */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_EFLAGS);
    /* the wrong sort flag gives -P, not P: decoders must honour it */
    memcpy(bad, c, sizeof c);
    bad[0] ^= 0x20;
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_OK);
    cuzk_g1_affine_neg(&q, &q);
    CHECK(cuzk_g1_affine_eq(&p, &q));

    /* non-canonical coordinates: x = p, and x + p with x small */
    memcpy(bad, p_be, CUZK_FP_BYTES);
    bad[0] |= 0x80;
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_ENONCANON);
    memcpy(bad, p_be, CUZK_FP_BYTES);
    memcpy(bad + CUZK_FP_BYTES, u + CUZK_FP_BYTES, CUZK_FP_BYTES);
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_ENONCANON);
    memcpy(bad, u, CUZK_FP_BYTES);
    memcpy(bad + CUZK_FP_BYTES, p_be, CUZK_FP_BYTES); /* y = p */
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_ENONCANON);
    memset(bad, 0xff, sizeof bad);
    bad[0] = 0x9f; /* flags 100, x = 2^381 - 1 > p */
    CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_ENONCANON);

    /* off the curve: an x with no y; and (x, y + 1) */
    for (int i = 0; i < 20; i++) {
        cuzk_fp x;
        g1_bad_x(&x);
        cuzk_fp_to_bytes_be(bad, &x);
        bad[0] |= 0x80;
        CHECK(cuzk_g1_from_compressed(&q, bad) == CUZK_ENOTONCURVE);
    }
    cuzk_g1_affine off = p;
    cuzk_fp one;
    cuzk_fp_set_one(&one);
    cuzk_fp_add(&off.y, &off.y, &one);
    cuzk_fp_to_bytes_be(bad, &off.x);
    cuzk_fp_to_bytes_be(bad + CUZK_FP_BYTES, &off.y);
    CHECK(cuzk_g1_from_uncompressed(&q, bad) == CUZK_ENOTONCURVE);
    cuzk_g1_to_lem(l, &off);
    CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_ENOTONCURVE);
    CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_NO_SUBGROUP) == CUZK_ENOTONCURVE);

    /* on the curve, outside the subgroup, in every format */
    for (int i = 0; i < 20; i++) {
        cuzk_g1_affine ns;
        test_g1_nonsub(&ns);
        cuzk_g1_to_compressed(c, &ns);
        CHECK(cuzk_g1_from_compressed(&q, c) == CUZK_ENOTINSUBGROUP);
        cuzk_g1_to_uncompressed(u, &ns);
        CHECK(cuzk_g1_from_uncompressed(&q, u) == CUZK_ENOTINSUBGROUP);
        cuzk_g1_to_lem(l, &ns);
        CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_ENOTINSUBGROUP);
        CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_NO_SUBGROUP) == CUZK_OK);
        char d[3][CUZK_FP_DEC_MAX];
        cuzk_g1_to_dec(d, &ns);
        const char *xyz[3] = {d[0], d[1], d[2]};
        CHECK(cuzk_g1_from_dec(&q, xyz) == CUZK_ENOTINSUBGROUP);
    }

    /* LEM: a coordinate >= p in the Montgomery layout */
    cuzk_g1_to_lem(l, &p);
    memset(l, 0xff, CUZK_FP_BYTES);
    CHECK(cuzk_g1_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_ENONCANON);

    /* decimal */
    const char *bad_dec[][3] = {
        {"", "1", "1"},
        {"12x", "1", "1"},
        {"1", "2", "1"}, /* (1, 2) is not on the curve */
        {"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687"
         "629129015664037894272559787",
         "1", "1"}, /* x = p */
        {"-1", "1", "1"},
    };
    static const int want[] = {CUZK_EFORMAT, CUZK_EFORMAT, CUZK_ENOTONCURVE, CUZK_ENONCANON,
                               CUZK_EFORMAT};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(cuzk_g1_from_dec(&q, bad_dec[i]) == want[i]);
}

static void g2_malformed(void) {
    uint8_t c[CUZK_G2_COMPRESSED], u[CUZK_G2_UNCOMPRESSED], l[CUZK_G2_LEM],
        bad[CUZK_G2_UNCOMPRESSED];
    cuzk_g2_affine p, q;
    test_g2_random(&p);
    cuzk_g2_to_compressed(c, &p);
    cuzk_g2_to_uncompressed(u, &p);

    memcpy(bad, c, sizeof c);
    bad[0] &= 0x7f;
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, u, sizeof u);
    bad[0] |= 0x80;
    CHECK(cuzk_g2_from_uncompressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, u, sizeof u);
    bad[0] |= 0x20;
    CHECK(cuzk_g2_from_uncompressed(&q, bad) == CUZK_EFLAGS);
    memset(bad, 0, sizeof bad);
    bad[0] = 0xe0;
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_EFLAGS);
    bad[0] = 0xc0;
    bad[60] = 1; /* a non-zero byte in x.c0 of the identity */
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_EFLAGS);
    memcpy(bad, c, sizeof c);
    bad[0] ^= 0x20;
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_OK);
    cuzk_g2_affine_neg(&q, &q);
    CHECK(cuzk_g2_affine_eq(&p, &q));

    /* non-canonical: x.c1 = p, then x.c0 = p */
    memcpy(bad, c, sizeof c);
    memcpy(bad, p_be, CUZK_FP_BYTES);
    bad[0] |= 0x80;
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_ENONCANON);
    memcpy(bad, c, sizeof c);
    memcpy(bad + CUZK_FP_BYTES, p_be, CUZK_FP_BYTES);
    CHECK(cuzk_g2_from_compressed(&q, bad) == CUZK_ENONCANON);
    memcpy(bad, u, sizeof u);
    memcpy(bad + 3 * CUZK_FP_BYTES, p_be, CUZK_FP_BYTES); /* y.c0 = p */
    CHECK(cuzk_g2_from_uncompressed(&q, bad) == CUZK_ENONCANON);

    cuzk_g2_affine off = p;
    cuzk_fp one;
    cuzk_fp_set_one(&one);
    cuzk_fp_add(&off.y.c1, &off.y.c1, &one);
    cuzk_g2_to_lem(l, &off);
    CHECK(cuzk_g2_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_ENOTONCURVE);
    memcpy(bad, u, sizeof u);
    cuzk_fp_to_bytes_be(bad + 2 * CUZK_FP_BYTES, &off.y.c1);
    CHECK(cuzk_g2_from_uncompressed(&q, bad) == CUZK_ENOTONCURVE);

    int offcurve_x = 0;
    for (int i = 0; i < 20; i++) {
        cuzk_g2_affine ns;
        test_g2_nonsub(&ns);
        cuzk_g2_to_compressed(c, &ns);
        CHECK(cuzk_g2_from_compressed(&q, c) == CUZK_ENOTINSUBGROUP);
        cuzk_g2_to_uncompressed(u, &ns);
        CHECK(cuzk_g2_from_uncompressed(&q, u) == CUZK_ENOTINSUBGROUP);
        cuzk_g2_to_lem(l, &ns);
        CHECK(cuzk_g2_from_lem(&q, l, CUZK_CHECK_ALL) == CUZK_ENOTINSUBGROUP);
        /* a random x: about half have no point */
        cuzk_fp2 x;
        cuzk_fp2_random(&x, &test_rng);
        memset(bad, 0, sizeof bad);
        cuzk_fp_to_bytes_be(bad, &x.c1);
        cuzk_fp_to_bytes_be(bad + CUZK_FP_BYTES, &x.c0);
        bad[0] |= 0x80;
        int err = cuzk_g2_from_compressed(&q, bad);
        CHECK(err == CUZK_ENOTONCURVE || err == CUZK_ENOTINSUBGROUP);
        offcurve_x += err == CUZK_ENOTONCURVE;
    }
    CHECK(offcurve_x > 0);
    const char *bad_dec[6] = {"1", "0", "1", "0", "1", "0"};
    CHECK(cuzk_g2_from_dec(&q, bad_dec) == CUZK_ENOTONCURVE);
    const char *bad_dec2[6] = {"1", "0", "x", "0", "1", "0"};
    CHECK(cuzk_g2_from_dec(&q, bad_dec2) == CUZK_EFORMAT);
}

int main(void) {
    test_init("test_encode");
    g1_roundtrips();
    g2_roundtrips();
    jacobian_decimal();
    g1_malformed();
    g2_malformed();
    return test_finish();
}
