/* bellperson's .params and .vk files (formats/bellperson.h) and their conversion to cuzk's key
 * (groth16/bpkey.h):
 *   - a small file assembled here byte by byte from the format description (generator
 *     coordinates typed in as hex, -G by a big-endian subtraction from p), parsed to the
 *     expected points, and written back by cuzk's writer to the same bytes;
 *   - every truncation, trailing bytes, a count too large, the identity where bellperson refuses
 *     it, points off the curve and outside the subgroup (refused, or accepted with the subgroup
 *     check skipped), random byte flips: each refused with a sentence naming the field, never a
 *     crash;
 *   - round trips of the dev setup's keys of tests/data/formats/circuit.r1cs (filtered and
 *     dense, h in bellperson's coefficient basis): key -> .params / .vk -> key is the same key
 *     (h of domain - 1 points, CUZK_H_COEFF), and its proofs are byte-identical and verify; the
 *     streaming import into a key file (both encodings) gives the same key; a key in the snarkjs
 *     basis is not written as a .params file, but a file with a snarkjs-basis h (domain points,
 *     what cuzk wrote before) still reads and proves; an h of another count is refused.
 * The Filecoin kinds' lookup of such files is test_fc_params.c. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "formats/bellperson.h"
#include "formats/g16key.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "groth16/bpkey.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "test_util.h"

static struct cuzk_pool *pool;

/* The generators in the zcash serialization (big-endian coordinates; G2 c1 before c0). */
static const char *const g1x = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
                               "6c55e83ff97a1aeffb3af00adb22c6bb";
static const char *const g1y = "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
                               "d03cc744a2888ae40caa232946c5e7e1";
static const char *const g2x1 = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f504"
                                "9334cf11213945d57e5ac7d055d042b7e";
static const char *const g2x0 = "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d17"
                                "70bac0326a805bbefd48056c8c121bdb8";
static const char *const g2y1 = "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99a"
                                "b3f370d275cec1da1aaa9075ff05f79be";
static const char *const g2y0 = "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12"
                                "c923ac9cc3baca289e193548608b82801";
static const char *const p_hex = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6"
                                 "241eabfffeb153ffffb9feffffffffaaab";

struct buf {
    uint8_t b[8192];
    size_t n;
};

static void hex(struct buf *o, const char *h) {
    CHECK(test_hex_to_bytes(o->b + o->n, strlen(h) / 2, h, strlen(h)) == 0);
    o->n += strlen(h) / 2;
}
static void u32be(struct buf *o, uint32_t v) {
    for (int i = 0; i < 4; i++) o->b[o->n++] = (uint8_t)(v >> (24 - 8 * i));
}
static void g1(struct buf *o) { hex(o, g1x), hex(o, g1y); }
static void g2(struct buf *o) { hex(o, g2x1), hex(o, g2x0), hex(o, g2y1), hex(o, g2y0); }
/* -G1: x, then p - y (48-byte big-endian subtraction). */
static void g1neg(struct buf *o) {
    uint8_t p[48], y[48];
    CHECK(test_hex_to_bytes(p, 48, p_hex, 96) == 0 && test_hex_to_bytes(y, 48, g1y, 96) == 0);
    hex(o, g1x);
    int borrow = 0;
    for (int i = 47; i >= 0; i--) {
        int d = p[i] - y[i] - borrow;
        borrow = d < 0;
        o->b[o->n + (size_t)i] = (uint8_t)(d + (borrow ? 256 : 0));
    }
    o->n += 48;
}
static void g1inf(struct buf *o) {
    memset(o->b + o->n, 0, 96);
    o->b[o->n] = 0x40;
    o->n += 96;
}

/* The hand-made file: vk (G, G, G2, G2, G, G2; ic = [G, -G]), h = [G], l = [G, -G], a = [-G],
 * b_g1 = [G], b_g2 = [G2]. The vk alone is its first vk_len bytes. Offsets of interest are
 * returned: off_l1 = l point 1. */
static size_t vk_len, off_l1, off_h0;
static void handmade(struct buf *o) {
    o->n = 0;
    g1(o), g1(o), g2(o), g2(o), g1(o), g2(o);
    u32be(o, 2), g1(o), g1neg(o);
    vk_len = o->n;
    u32be(o, 1), off_h0 = o->n, g1(o);
    u32be(o, 2), g1(o), off_l1 = o->n, g1neg(o);
    u32be(o, 1), g1neg(o);
    u32be(o, 1), g1(o);
    u32be(o, 1), g2(o);
}

static int eq1(const cuzk_g1_affine *a, const cuzk_g1_affine *b) {
    return !memcmp(a, b, sizeof *a);
}
static int eq2(const cuzk_g2_affine *a, const cuzk_g2_affine *b) {
    return !memcmp(a, b, sizeof *a);
}

/* Opens and loads every vector; returns the first failure (err names it). */
static int open_all(const uint8_t *d, size_t n, enum cuzk_point_check c, char *err, size_t el) {
    struct cuzk_bp_params p;
    int rc = cuzk_bp_params_from_mem(&p, d, n, c, err, el);
    for (int v = 0; v < CUZK_BP_VECTORS && !rc; v++) {
        void *out = test_xmalloc(((size_t)p.count[v] + 1) * sizeof(cuzk_g2_affine));
        rc = cuzk_bp_params_load(&p, (enum cuzk_bp_vector)v, c, pool, out, err, el);
        free(out);
    }
    cuzk_bp_params_close(&p);
    return rc;
}

static void test_handmade(void) {
    static struct buf f;
    handmade(&f);
    cuzk_g1_affine G, N;
    cuzk_g2_affine G2;
    cuzk_g1_generator(&G);
    cuzk_g1_affine_neg(&N, &G);
    cuzk_g2_generator(&G2);
    char err[512] = "";
    struct cuzk_bp_params p;
    CHECK(cuzk_bp_params_from_mem(&p, f.b, f.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
    CHECK(eq1(&p.vk.alpha1, &G) && eq1(&p.vk.beta1, &G) && eq1(&p.vk.delta1, &G));
    CHECK(eq2(&p.vk.beta2, &G2) && eq2(&p.vk.gamma2, &G2) && eq2(&p.vk.delta2, &G2));
    CHECK(p.vk.n_ic == 2 && eq1(&p.vk.ic[0], &G) && eq1(&p.vk.ic[1], &N));
    const uint32_t want[5] = {1, 2, 1, 1, 1};
    for (int v = 0; v < 5; v++) CHECK(p.count[v] == want[v]);
    cuzk_g1_affine h[1], l[2], a[1], b1[1];
    cuzk_g2_affine b2[1];
    CHECK(cuzk_bp_params_load(&p, CUZK_BP_H, CUZK_CHECK_ALL, pool, h, err, sizeof err) == 0);
    CHECK(cuzk_bp_params_load(&p, CUZK_BP_L, CUZK_CHECK_ALL, pool, l, err, sizeof err) == 0);
    CHECK(cuzk_bp_params_load(&p, CUZK_BP_A, CUZK_CHECK_ALL, pool, a, err, sizeof err) == 0);
    CHECK(cuzk_bp_params_load(&p, CUZK_BP_B_G1, CUZK_CHECK_ALL, pool, b1, err, sizeof err) == 0);
    CHECK(cuzk_bp_params_load(&p, CUZK_BP_B_G2, CUZK_CHECK_ALL, pool, b2, err, sizeof err) == 0);
    CHECK(eq1(&h[0], &G) && eq1(&l[0], &G) && eq1(&l[1], &N) && eq1(&a[0], &N));
    CHECK(eq1(&b1[0], &G) && eq2(&b2[0], &G2));
    /* the writer gives back the same bytes */
    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    struct cuzk_bp_query q = {.h = h,
                              .n_h = 1,
                              .l = l,
                              .n_l = 2,
                              .a = a,
                              .n_a = 1,
                              .b_g1 = b1,
                              .n_b_g1 = 1,
                              .b_g2 = b2,
                              .n_b_g2 = 1};
    CHECK(cuzk_bp_params_write(m, &p.vk, &q, err, sizeof err) == CUZK_OK);
    fclose(m);
    CHECK(len == f.n && !memcmp(mem, f.b, f.n));
    free(mem);
    /* the vk alone */
    struct cuzk_bp_vk vk;
    CHECK(cuzk_bp_vk_parse(&vk, f.b, vk_len, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
    CHECK(vk.n_ic == 2 && eq1(&vk.ic[1], &N) && eq2(&vk.delta2, &G2));
    m = open_memstream(&mem, &len);
    CHECK(cuzk_bp_vk_write(m, &vk, err, sizeof err) == CUZK_OK);
    fclose(m);
    CHECK(len == vk_len && !memcmp(mem, f.b, vk_len));
    free(mem);
    cuzk_bp_vk_free(&vk);
    CHECK(cuzk_bp_vk_parse(&vk, f.b, vk_len + 1, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFORMAT &&
          strstr(err, "follow"));
    cuzk_bp_vk_free(&vk);
    /* an identity among the points is refused by the writer, as bellperson's readers would */
    cuzk_g1_affine li[2] = {l[0], l[1]};
    cuzk_g1_affine_set_inf(&li[1]);
    q.l = li;
    m = open_memstream(&mem, &len);
    CHECK(cuzk_bp_params_write(m, &p.vk, &q, err, sizeof err) == CUZK_EINVAL && strstr(err, "l "));
    fclose(m);
    CHECK(len == 0);
    free(mem);
    cuzk_bp_params_close(&p);
}

static void test_damage(void) {
    static struct buf f, g;
    handmade(&f);
    char err[512];
    /* every truncation is refused, naming what it cuts */
    int ok = 1;
    for (size_t n = 0; n < f.n; n++) {
        err[0] = 0;
        int rc = open_all(f.b, n, CUZK_CHECK_ALL, err, sizeof err);
        ok &= rc == CUZK_EFORMAT && !strncmp(err, "bellperson: truncated", 21);
    }
    CHECK(ok);
    open_all(f.b, f.n - 1, CUZK_CHECK_ALL, err, sizeof err);
    CHECK(strstr(err, "b_g2") != NULL);
    open_all(f.b, 10, CUZK_CHECK_ALL, err, sizeof err);
    CHECK(strstr(err, "verifying key") != NULL);
    /* trailing bytes */
    g = f;
    g.b[g.n++] = 0;
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFORMAT &&
          strstr(err, "follow the last vector (b_g2)"));
    /* a count larger than the file */
    g = f;
    g.b[vk_len] = 0x7f;
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFORMAT &&
          strstr(err, "truncated: h holds"));
    /* the identity in l, in ic */
    g = f;
    struct buf t = {.n = 0};
    g1inf(&t);
    memcpy(g.b + off_l1, t.b, 96);
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFORMAT &&
          strstr(err, "l point 1 is the identity"));
    g = f;
    memcpy(g.b + vk_len - 96, t.b, 96);
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFORMAT &&
          strstr(err, "ic point 1 is the identity"));
    /* a point off the curve, a coordinate not below p, a compressed flag */
    g = f;
    g.b[off_h0 + 95] ^= 1;
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_ENOTONCURVE &&
          strstr(err, "h point 0"));
    g = f;
    CHECK(test_hex_to_bytes(g.b + off_h0 + 48, 48, p_hex, 96) == 0);
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_ENONCANON);
    g = f;
    g.b[96] |= 0x80;
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_EFLAGS &&
          strstr(err, "beta_g1"));
    /* on the curve, outside the subgroup: refused unless the check is skipped */
    cuzk_g1_affine ns;
    test_g1_nonsub(&ns);
    g = f;
    cuzk_g1_to_uncompressed(g.b + off_l1, &ns);
    CHECK(open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err) == CUZK_ENOTINSUBGROUP &&
          strstr(err, "l point 1"));
    CHECK(open_all(g.b, g.n, CUZK_CHECK_NO_SUBGROUP, err, sizeof err) == CUZK_OK);
    /* random flips: a documented outcome with a sentence, never a crash */
    const uint64_t allowed = 1ull << -CUZK_EFORMAT | 1ull << -CUZK_ENOTONCURVE |
                             1ull << -CUZK_ENONCANON | 1ull << -CUZK_EFLAGS |
                             1ull << -CUZK_ENOTINSUBGROUP | 1ull << -CUZK_ENOMEM;
    ok = 1;
    for (int i = 0; i < 3000; i++) {
        g = f;
        for (int k = 0; k <= i % 3; k++)
            g.b[cuzk_rng_u64(&test_rng) % g.n] ^= (uint8_t)(1 + cuzk_rng_u64(&test_rng) % 255);
        err[0] = 0;
        int rc = open_all(g.b, g.n, CUZK_CHECK_ALL, err, sizeof err);
        if (rc) ok &= rc < 0 && (allowed >> -rc & 1) && !strncmp(err, "bellperson: ", 12);
    }
    CHECK(ok);
}

/* ---- round trips of real keys ------------------------------------------------------------ */

static char data_dir[1024], tmp_dir[64];

static int prove(const struct cuzk_groth16_pk *pk, const cuzk_fr *w, size_t n,
                 struct cuzk_snarkjs_proof *out) {
    struct cuzk_backend be;
    cuzk_cpu_backend_init(&be, pool);
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, 99);
    return cuzk_groth16_prove(&be, pk, w, n, &rng, NULL, out, NULL, NULL, 0);
}

static int same_keydata(const struct cuzk_groth16_keydata *x,
                        const struct cuzk_groth16_keydata *y) {
    const struct cuzk_g16key_info *a = &x->info, *b = &y->info;
    if (a->n_vars != b->n_vars || a->n_public != b->n_public || a->domain_size != b->domain_size ||
        a->n_a != b->n_a || a->n_b != b->n_b || a->cs_checksum != b->cs_checksum ||
        a->h_basis != b->h_basis)
        return 0;
    size_t nc = (size_t)a->n_vars - a->n_public - 1;
    return eq1(&a->alpha1, &b->alpha1) && eq1(&a->beta1, &b->beta1) &&
           eq1(&a->delta1, &b->delta1) && eq2(&a->beta2, &b->beta2) &&
           eq2(&a->gamma2, &b->gamma2) && eq2(&a->delta2, &b->delta2) &&
           !memcmp(x->ic, y->ic, (a->n_public + 1) * sizeof *x->ic) &&
           !memcmp(x->a_wires, y->a_wires, a->n_a * 4) &&
           !memcmp(x->b_wires, y->b_wires, a->n_b * 4) &&
           !memcmp(x->a, y->a, a->n_a * sizeof *x->a) &&
           !memcmp(x->b1, y->b1, a->n_b * sizeof *x->b1) &&
           !memcmp(x->b2, y->b2, a->n_b * sizeof *x->b2) &&
           !memcmp(x->c, y->c, nc * sizeof *x->c) &&
           !memcmp(x->h, y->h, cuzk_h_basis_points(a->h_basis, a->domain_size) * sizeof *x->h);
}

static void test_roundtrip(void) {
    char path[1200], err[512] = "";
    struct cuzk_r1cs r;
    struct cuzk_wtns w;
    snprintf(path, sizeof path, "%s/circuit.r1cs", data_dir);
    CHECK(cuzk_r1cs_load(&r, path, err, sizeof err) == CUZK_OK);
    snprintf(path, sizeof path, "%s/circuit.wtns", data_dir);
    CHECK(cuzk_wtns_load(&w, path, err, sizeof err) == CUZK_OK);
    struct cuzk_cs cs;
    CHECK(cuzk_r1cs_to_cs(&r, &cs) == CUZK_OK);
    for (int dense = 0; dense < 2; dense++) {
        struct cuzk_rng rng;
        cuzk_rng_seed(&rng, 5 + (uint64_t)dense);
        struct cuzk_keygen_opts ko = {.setup = {.gpu = CUZK_SETUP_GPU_OFF},
                                      .rng = &rng,
                                      .dense = dense,
                                      .cs_checksum = 0x1234,
                                      .h_basis = CUZK_H_COEFF};
        struct cuzk_groth16_keydata kd, back, sk;
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &kd, err, sizeof err) == CUZK_OK);
        struct cuzk_groth16_pk pk;
        struct cuzk_snarkjs_proof ref, pr;
        CHECK(cuzk_groth16_pk_from_keydata(&pk, &kd, &cs, NULL) == CUZK_OK);
        CHECK(prove(&pk, w.w, w.n, &ref) == CUZK_OK);
        /* the snarkjs-basis key of the same secrets proves the same bytes (H' = h(tau) t(tau) /
         * delta in both bases); it is no parameter file */
        cuzk_rng_seed(&rng, 5 + (uint64_t)dense);
        ko.h_basis = CUZK_H_SNARKJS;
        CHECK(cuzk_groth16_keygen_mem(pool, &cs, &ko, &sk, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_pk_from_keydata(&pk, &sk, &cs, NULL) == CUZK_OK);
        CHECK(prove(&pk, w.w, w.n, &pr) == CUZK_OK);
        CHECK(!memcmp(&pr, &ref, sizeof pr));
        snprintf(path, sizeof path, "%s/k.params", tmp_dir);
        unlink(path);
        CHECK(cuzk_bpkey_write_params(&sk, path, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "snarkjs basis") && access(path, F_OK) != 0);
        CHECK(cuzk_bpkey_write_params(&kd, path, err, sizeof err) == CUZK_OK);
        struct cuzk_bp_params bp;
        CHECK(cuzk_bp_params_open(&bp, path, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
        CHECK(bp.count[CUZK_BP_H] == kd.info.domain_size - 1 && bp.vk.n_ic == cs.n_public + 1);
        CHECK(cuzk_bpkey_read(&back, &bp, &cs, 0x1234, CUZK_CHECK_ALL, pool, err, sizeof err) ==
              CUZK_OK);
        CHECK(back.info.h_basis == CUZK_H_COEFF);
        /* streamed into a key file (both encodings), the same key again */
        for (int comp = 0; comp < 2; comp++) {
            char kp[1200];
            snprintf(kp, sizeof kp, "%s/k.g16k", tmp_dir);
            CHECK(cuzk_bpkey_import(&bp, &cs, 0x1234, CUZK_CHECK_ALL, kp, comp, pool, err,
                                    sizeof err) == CUZK_OK);
            struct cuzk_g16key *gk = NULL;
            struct cuzk_groth16_keydata fk;
            CHECK(cuzk_g16key_open(&gk, kp, err, sizeof err) == CUZK_OK);
            CHECK(gk && cuzk_groth16_keydata_load(&fk, gk, pool, 1, err, sizeof err) == CUZK_OK);
            if (gk) {
                CHECK(fk.info.compressed == comp && fk.info.h_basis == CUZK_H_COEFF &&
                      same_keydata(&fk, &back));
                cuzk_groth16_keydata_free(&fk);
                cuzk_g16key_close(gk);
            }
            unlink(kp);
        }
        if (!dense) {
            CHECK(same_keydata(&kd, &back)); /* byte for byte */
        } else {                             /* the identities of empty columns left out */
            CHECK(back.info.n_b < kd.info.n_b && back.info.n_a <= kd.info.n_a);
        }
        struct cuzk_groth16_pk pb;
        CHECK(cuzk_groth16_pk_from_keydata(&pb, &back, &cs, NULL) == CUZK_OK);
        CHECK(prove(&pb, w.w, w.n, &pr) == CUZK_OK);
        CHECK(!memcmp(&pr, &ref, sizeof pr));
        /* the .vk verifies it */
        snprintf(path, sizeof path, "%s/k.vk", tmp_dir);
        CHECK(cuzk_bpkey_write_vk(&kd, path, err, sizeof err) == CUZK_OK);
        struct cuzk_bp_vk bvk;
        CHECK(cuzk_bp_vk_read_file(&bvk, path, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
        CHECK(bvk.n_ic == cs.n_public + 1 && eq2(&bvk.delta2, &kd.info.delta2) &&
              !memcmp(bvk.ic, kd.ic, bvk.n_ic * sizeof *bvk.ic));
        struct cuzk_snarkjs_vk svk = {0};
        CHECK(cuzk_groth16_vk_from_keydata(&svk, &back) == CUZK_OK);
        CHECK(eq1(&svk.alpha1, &bvk.alpha1) && eq2(&svk.gamma2, &bvk.gamma2));
        CHECK(cuzk_groth16_verify(&svk, w.w + 1, cs.n_public, &pr) == 1);
        cuzk_snarkjs_vk_free(&svk);
        cuzk_bp_vk_free(&bvk);
        /* a system of another shape is refused before any point is decoded */
        struct cuzk_cs other = cs;
        other.n_public = cs.n_public - 1;
        struct cuzk_groth16_keydata x;
        CHECK(cuzk_bpkey_read(&x, &bp, &other, 0, CUZK_CHECK_ALL, pool, err, sizeof err) ==
                  CUZK_EFORMAT &&
              strstr(err, "ic holds"));
        cuzk_bp_params_close(&bp);
        /* an h in the snarkjs basis, domain points (the .params files cuzk wrote before it had
         * bellperson's basis): read as such, and proves the same bytes; any other count is
         * refused */
        struct cuzk_bp_vk vk = {.alpha1 = kd.info.alpha1,
                                .beta1 = kd.info.beta1,
                                .beta2 = kd.info.beta2,
                                .gamma2 = kd.info.gamma2,
                                .delta1 = kd.info.delta1,
                                .delta2 = kd.info.delta2,
                                .n_ic = cs.n_public + 1,
                                .ic = kd.ic};
        struct cuzk_bp_query q = {.h = sk.h,
                                  .n_h = sk.info.domain_size,
                                  .l = back.c,
                                  .n_l = (size_t)cs.n_cols - cs.n_public - 1,
                                  .a = back.a,
                                  .n_a = back.info.n_a,
                                  .b_g1 = back.b1,
                                  .n_b_g1 = back.info.n_b,
                                  .b_g2 = back.b2,
                                  .n_b_g2 = back.info.n_b};
        snprintf(path, sizeof path, "%s/old.params", tmp_dir);
        FILE *f = fopen(path, "wb");
        CHECK(f && cuzk_bp_params_write(f, &vk, &q, err, sizeof err) == CUZK_OK);
        if (f) fclose(f);
        CHECK(cuzk_bp_params_open(&bp, path, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_bpkey_read(&x, &bp, &cs, 0, CUZK_CHECK_ALL, pool, err, sizeof err) == CUZK_OK);
        CHECK(x.info.h_basis == CUZK_H_SNARKJS &&
              !memcmp(x.h, sk.h, sk.info.domain_size * sizeof *x.h));
        CHECK(cuzk_groth16_pk_from_keydata(&pb, &x, &cs, NULL) == CUZK_OK);
        CHECK(prove(&pb, w.w, w.n, &pr) == CUZK_OK);
        CHECK(!memcmp(&pr, &ref, sizeof pr));
        cuzk_groth16_keydata_free(&x);
        cuzk_bp_params_close(&bp);
        q.n_h = sk.info.domain_size - 2;
        f = fopen(path, "wb");
        CHECK(f && cuzk_bp_params_write(f, &vk, &q, err, sizeof err) == CUZK_OK);
        if (f) fclose(f);
        CHECK(cuzk_bp_params_open(&bp, path, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_bpkey_read(&x, &bp, &cs, 0, CUZK_CHECK_ALL, pool, err, sizeof err) ==
                  CUZK_EFORMAT &&
              strstr(err, "h holds"));
        cuzk_bp_params_close(&bp);
        cuzk_groth16_keydata_free(&back);
        cuzk_groth16_keydata_free(&kd);
        cuzk_groth16_keydata_free(&sk);
    }
    cuzk_cs_free(&cs);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static void rm_dir(const char *d) {
    char p[1200];
    const char *names[] = {"k.params", "k.vk", "old.params"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", d, names[i]);
        unlink(p);
    }
    rmdir(d);
}

int main(void) {
    test_init("test_bellperson");
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    snprintf(data_dir, sizeof data_dir, "%s", __FILE__);
    char *slash = strrchr(data_dir, '/');
    if (slash)
        snprintf(slash + 1, sizeof data_dir - (size_t)(slash + 1 - data_dir), "data/formats");
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cuzk-test-bp-XXXXXX");
    CHECK(mkdtemp(tmp_dir) != NULL);
    test_handmade();
    test_damage();
    test_roundtrip();
    rm_dir(tmp_dir);
    cuzk_pool_destroy(pool);
    return test_finish();
}
