/* The key file (formats/g16key.h): round trips of small random keys in both encodings, both H
 * bases (version 1 files for the snarkjs basis, version 2 with flag bit 1 and domain - 1 H points
 * for the coefficient basis) and with chunk sizes that do and do not divide the sections (every
 * chunk read and every section loaded must equal what was written, identities included); the
 * documented layout recomputed here and compared with the header's region table; corruption of
 * every header byte and of every region; truncation, trailing bytes and a forged header with huge
 * counts; the writer's refusals (bad shapes and wire lists, sections out of order or incomplete,
 * each leaving no file); points off the curve behind valid checksums; concurrent reads from four
 * threads. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "filecoin/pce.h" /* cuzk_checksum64: to forge a header that passes its checksum */
#include "formats/fmt.h"
#include "formats/g16key.h"
#include "test_util.h"
#include "util/file.h"
#include "util/pool.h"
#include "util/checksum.h"

static char dir[64];
static struct cuzk_pool *pool;

struct key {
    struct cuzk_g16key_info info;
    cuzk_g1_affine *ic;
    uint32_t *aw, *bw;
    void *pts[CUZK_G16KEY_SECTIONS];
    size_t count[CUZK_G16KEY_SECTIONS];
};

struct shape {
    uint32_t n_vars, n_public, domain, n_a, n_b, chunk;
    int compressed;
    int one_put; /* each section in one put (crosses the writer's staging size when large) */
    enum cuzk_h_basis h_basis;
};

static size_t rnd(size_t n) { return n ? (size_t)(cuzk_rng_u64(&test_rng) % n) : 0; }

/* n distinct points (a walk a, a + d, a + 2d, ...) with about one in eight, and at least one,
 * replaced by the identity. */
static void g1_points(cuzk_g1_affine *out, size_t n) {
    if (!n) return;
    cuzk_g1_affine a, d;
    test_g1_random(&a);
    test_g1_random(&d);
    cuzk_g1 *j = malloc(n * sizeof *j);
    cuzk_g1_from_affine(&j[0], &a);
    for (size_t i = 1; i < n; i++) cuzk_g1_add_affine(&j[i], &j[i - 1], &d);
    cuzk_g1_batch_to_affine(out, j, n);
    free(j);
    for (size_t i = 0; i < n; i++)
        if (rnd(8) == 0) cuzk_g1_affine_set_inf(&out[i]);
    cuzk_g1_affine_set_inf(&out[rnd(n)]);
}

static void g2_points(cuzk_g2_affine *out, size_t n) {
    if (!n) return;
    cuzk_g2_affine a, d;
    test_g2_random(&a);
    test_g2_random(&d);
    cuzk_g2 *j = malloc(n * sizeof *j);
    cuzk_g2_from_affine(&j[0], &a);
    for (size_t i = 1; i < n; i++) cuzk_g2_add_affine(&j[i], &j[i - 1], &d);
    cuzk_g2_batch_to_affine(out, j, n);
    free(j);
    for (size_t i = 0; i < n; i++)
        if (rnd(8) == 0) cuzk_g2_affine_set_inf(&out[i]);
    cuzk_g2_affine_set_inf(&out[rnd(n)]);
}

/* n strictly increasing wires below n_vars, uniformly chosen. */
static void wires(uint32_t *out, uint32_t n, uint32_t n_vars) {
    uint32_t got = 0;
    for (uint32_t v = 0; v < n_vars && got < n; v++)
        if (rnd(n_vars - v) < n - got) out[got++] = v;
}

static void key_make(struct key *k, const struct shape *sh) {
    memset(k, 0, sizeof *k);
    struct cuzk_g16key_info *in = &k->info;
    in->n_vars = sh->n_vars;
    in->n_public = sh->n_public;
    in->domain_size = sh->domain;
    in->n_a = sh->n_a;
    in->n_b = sh->n_b;
    in->chunk_points = sh->chunk;
    in->compressed = sh->compressed;
    in->h_basis = sh->h_basis;
    in->cs_checksum = cuzk_rng_u64(&test_rng);
    test_g1_random(&in->alpha1);
    test_g1_random(&in->beta1);
    cuzk_g1_affine_set_inf(&in->delta1); /* the identity is a valid header point */
    test_g2_random(&in->beta2);
    test_g2_random(&in->gamma2);
    test_g2_random(&in->delta2);
    k->ic = malloc((sh->n_public + 1) * sizeof *k->ic);
    g1_points(k->ic, sh->n_public + 1);
    k->aw = malloc((sh->n_a + 1) * sizeof *k->aw);
    k->bw = malloc((sh->n_b + 1) * sizeof *k->bw);
    wires(k->aw, sh->n_a, sh->n_vars);
    wires(k->bw, sh->n_b, sh->n_vars);
    const size_t count[CUZK_G16KEY_SECTIONS] = {
        sh->n_a, sh->n_b, sh->n_b, sh->n_vars - sh->n_public - 1,
        sh->h_basis == CUZK_H_COEFF ? sh->domain - 1 : sh->domain};
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
        k->count[s] = count[s];
        if (s == CUZK_G16KEY_B2) {
            k->pts[s] = malloc((count[s] + 1) * sizeof(cuzk_g2_affine));
            g2_points(k->pts[s], count[s]);
        } else {
            k->pts[s] = malloc((count[s] + 1) * sizeof(cuzk_g1_affine));
            g1_points(k->pts[s], count[s]);
        }
    }
}

static void key_free(struct key *k) {
    free(k->ic);
    free(k->aw);
    free(k->bw);
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) free(k->pts[s]);
}

static size_t psize(int s) {
    return s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
}

/* Writes k to path in random pieces (empty ones included) or one put per section. */
static int key_write(const struct key *k, const char *path, int one_put, struct cuzk_pool *p) {
    char err[256];
    struct cuzk_g16key_writer *w;
    int rc = cuzk_g16key_writer_open(&w, path, &k->info, k->ic, k->aw, k->bw, p, err, sizeof err);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return rc;
    }
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
        for (size_t done = 0; done < k->count[s];) {
            size_t left = k->count[s] - done;
            size_t n = one_put ? left : rnd(left / 3 + 2);
            if (n > left) n = left;
            const uint8_t *src = (const uint8_t *)k->pts[s] + done * psize(s);
            if ((rc = cuzk_g16key_writer_put(w, s, src, n, err, sizeof err))) {
                fprintf(stderr, "%s\n", err);
                cuzk_g16key_writer_abort(w);
                return rc;
            }
            done += n;
        }
    }
    rc = cuzk_g16key_writer_close(w, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    return rc;
}

/* Section s of k as the file must store it. */
static uint8_t *expected(const struct key *k, int s, size_t *pb) {
    int c = !!k->info.compressed, g2 = s == CUZK_G16KEY_B2;
    *pb = g2 ? (c ? CUZK_G2_COMPRESSED : CUZK_G2_LEM) : (c ? CUZK_G1_COMPRESSED : CUZK_G1_LEM);
    uint8_t *e = malloc(k->count[s] * *pb + 1);
    for (size_t i = 0; i < k->count[s]; i++) {
        if (g2) {
            const cuzk_g2_affine *p = (const cuzk_g2_affine *)k->pts[s] + i;
            c ? cuzk_g2_to_compressed(e + i * *pb, p) : cuzk_g2_to_lem(e + i * *pb, p);
        } else {
            const cuzk_g1_affine *p = (const cuzk_g1_affine *)k->pts[s] + i;
            c ? cuzk_g1_to_compressed(e + i * *pb, p) : cuzk_g1_to_lem(e + i * *pb, p);
        }
    }
    return e;
}

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* ---- the documented layout, recomputed from the header comment ------------------------- */

enum { R_SUMS, R_IC, R_AW, R_BW, R_A, R_N = R_A + CUZK_G16KEY_SECTIONS };

static uint64_t up(uint64_t x) { return (x + 4095) / 4096 * 4096; }

static void doc_layout(const struct key *k, uint32_t chunk, uint64_t off[R_N],
                       uint64_t bytes[R_N]) {
    const struct cuzk_g16key_info *in = &k->info;
    uint64_t g1 = in->compressed ? 48 : 96, g2 = in->compressed ? 96 : 192, sums = 3;
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) sums += (k->count[s] + chunk - 1) / chunk;
    bytes[R_SUMS] = 8 * sums;
    bytes[R_IC] = 96 * ((uint64_t)in->n_public + 1);
    bytes[R_AW] = 4 * (uint64_t)in->n_a;
    bytes[R_BW] = 4 * (uint64_t)in->n_b;
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++)
        bytes[R_A + s] = k->count[s] * (s == CUZK_G16KEY_B2 ? g2 : g1);
    uint64_t at = 4096;
    for (int r = 0; r < R_N; r++) off[r] = up(at), at = off[r] + bytes[r];
}

/* ---- round trips ------------------------------------------------------------------------ */

static void check_key(const struct key *k, const char *path, struct cuzk_pool *p) {
    char err[256] = "";
    struct cuzk_g16key *g;
    int rc = cuzk_g16key_open(&g, path, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const struct cuzk_g16key_info *in = cuzk_g16key_get_info(g), *w = &k->info;
    uint32_t chunk = w->chunk_points ? w->chunk_points : CUZK_G16KEY_CHUNK_DEFAULT;
    CHECK(in->n_vars == w->n_vars && in->n_public == w->n_public &&
          in->domain_size == w->domain_size && in->n_a == w->n_a && in->n_b == w->n_b);
    CHECK(in->chunk_points == chunk && in->compressed == !!w->compressed &&
          in->h_basis == w->h_basis);
    CHECK(in->cs_checksum == w->cs_checksum);
    CHECK(cuzk_g1_affine_eq(&in->alpha1, &w->alpha1) && cuzk_g1_affine_eq(&in->beta1, &w->beta1) &&
          cuzk_g1_affine_eq(&in->delta1, &w->delta1));
    CHECK(cuzk_g2_affine_eq(&in->beta2, &w->beta2) && cuzk_g2_affine_eq(&in->gamma2, &w->gamma2) &&
          cuzk_g2_affine_eq(&in->delta2, &w->delta2));
    CHECK(file_size(path) == cuzk_g16key_file_bytes(w));
    CHECK(cuzk_g16key_file_bytes(in) == cuzk_g16key_file_bytes(w));
    struct cuzk_g16key_info pk;
    CHECK(cuzk_g16key_peek(path, &pk, err, sizeof err) == CUZK_OK);
    CHECK(!memcmp(&pk, in, sizeof pk)); /* peek sees the header open sees */
    int ic_ok = 1;
    for (uint32_t i = 0; i <= w->n_public; i++)
        ic_ok &= cuzk_g1_affine_eq(&cuzk_g16key_ic(g)[i], &k->ic[i]);
    CHECK(ic_ok);
    CHECK(!w->n_a || !memcmp(cuzk_g16key_a_wires(g), k->aw, w->n_a * sizeof *k->aw));
    CHECK(!w->n_b || !memcmp(cuzk_g16key_b_wires(g), k->bw, w->n_b * sizeof *k->bw));

    /* the region table of the header is the documented layout */
    uint64_t off[R_N], bytes[R_N];
    doc_layout(k, chunk, off, bytes);
    uint8_t h[4096];
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(h, 1, sizeof h, f) == sizeof h);
    if (f) fclose(f);
    int table_ok = 1;
    for (int r = 0; r < R_N; r++)
        table_ok &= cuzk_fmt_le64(h + 912 + 16 * r) == off[r] &&
                    cuzk_fmt_le64(h + 920 + 16 * r) == bytes[r];
    CHECK(table_ok);
    CHECK(off[R_N - 1] + bytes[R_N - 1] == file_size(path));
    const int coeff = w->h_basis == CUZK_H_COEFF;
    CHECK(!memcmp(h, "CUZKG16K", 8) && cuzk_fmt_le32(h + 8) == (coeff ? 2u : 1u) &&
          cuzk_fmt_le32(h + 12) == ((uint32_t) !!w->compressed | (coeff ? 2u : 0u)));

    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
        size_t pb, n = k->count[s];
        uint8_t *e = expected(k, s, &pb);
        CHECK(cuzk_g16key_count(g, s) == n && cuzk_g16key_point_bytes(g, s) == pb);
        uint8_t *buf = malloc(n * pb + 1);
        int chunks_ok = 1;
        for (size_t first = 0; first < n; first += chunk) {
            size_t m = n - first < chunk ? n - first : chunk;
            memset(buf, 0xa5, m * pb);
            chunks_ok &= cuzk_g16key_read(g, s, first, m, buf, err, sizeof err) == CUZK_OK &&
                         !memcmp(buf, e + first * pb, m * pb);
        }
        CHECK(chunks_ok);
        CHECK(cuzk_g16key_read(g, s, 0, n, buf, err, sizeof err) == CUZK_OK &&
              !memcmp(buf, e, n * pb));
        if (n > 2 * (size_t)chunk) /* several chunks from the middle */
            CHECK(cuzk_g16key_read(g, s, chunk, n - chunk, buf, err, sizeof err) == CUZK_OK &&
                  !memcmp(buf, e + chunk * pb, (n - chunk) * pb));
        CHECK(cuzk_g16key_read(g, s, n, 0, buf, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_g16key_read(g, s, n, 1, buf, err, sizeof err) == CUZK_EINVAL);
        CHECK(cuzk_g16key_read(g, s, 0, n + 1, buf, err, sizeof err) == CUZK_EINVAL);
        if (chunk > 1 && n > 1) {
            CHECK(cuzk_g16key_read(g, s, 1, n - 1, buf, err, sizeof err) == CUZK_EINVAL);
            if (n > chunk) CHECK(cuzk_g16key_read(g, s, 0, 1, buf, err, sizeof err) == CUZK_EINVAL);
        }
        void *pts = malloc(n * psize(s) + 1);
        CHECK(cuzk_g16key_load(g, s, p, pts, err, sizeof err) == CUZK_OK);
        int load_ok = 1;
        for (size_t i = 0; i < n; i++)
            load_ok &= s == CUZK_G16KEY_B2
                           ? cuzk_g2_affine_eq((cuzk_g2_affine *)pts + i,
                                               (const cuzk_g2_affine *)k->pts[s] + i)
                           : cuzk_g1_affine_eq((cuzk_g1_affine *)pts + i,
                                               (const cuzk_g1_affine *)k->pts[s] + i);
        CHECK(load_ok);
        free(pts);
        free(buf);
        free(e);
    }
    CHECK(cuzk_g16key_count(g, (enum cuzk_g16key_section)7) == 0);
    CHECK(cuzk_g16key_read(g, (enum cuzk_g16key_section)7, 0, 0, h, err, sizeof err) ==
          CUZK_EINVAL);
    cuzk_g16key_close(g);
}

static const struct shape shapes[] = {
    {50, 3, 64, 37, 20, 1, 1, 0, CUZK_H_SNARKJS},  /* one point per chunk */
    {50, 3, 64, 37, 20, 7, 0, 0, CUZK_H_SNARKJS},  /* chunks that divide nothing */
    {50, 3, 64, 37, 20, 16, 1, 0, CUZK_H_SNARKJS}, /* chunks that divide H only */
    {50, 3, 64, 37, 20, 0, 0, 0, CUZK_H_SNARKJS},  /* the default: one partial chunk per section */
    {50, 3, 64, 50, 50, 64, 1, 0, CUZK_H_SNARKJS}, /* full density, chunk = section */
    {40, 5, 32, 0, 0, 3, 1, 0, CUZK_H_SNARKJS},    /* empty density lists: no A, B1, B2 */
    {6, 5, 8, 6, 6, 4, 0, 0, CUZK_H_SNARKJS},      /* no aux wire: empty C */
    {1, 0, 1, 1, 0, 1, 1, 0, CUZK_H_SNARKJS},      /* the smallest key */
    {300, 4, 4096, 200, 100, 1000, 1, 1, CUZK_H_SNARKJS}, /* several decode blocks per section */
    {3000, 2, 1u << 17, 100, 50, 10000, 0, 1,
     CUZK_H_SNARKJS},                           /* a put larger than the writer's stage */
    {50, 3, 64, 37, 20, 7, 0, 0, CUZK_H_COEFF}, /* bellperson's H: 63 points */
    {50, 3, 64, 37, 20, 9, 1, 0, CUZK_H_COEFF},
    {2, 0, 2, 1, 1, 1, 1, 0, CUZK_H_COEFF}, /* the smallest coefficient key: one H point */
};

static void test_roundtrips(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/rt.g16k", dir);
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        struct key k;
        key_make(&k, &shapes[i]);
        struct cuzk_pool *p = i % 2 ? pool : NULL;
        CHECK(key_write(&k, path, shapes[i].one_put, p) == CUZK_OK);
        check_key(&k, path, i % 3 ? pool : NULL);
        key_free(&k);
    }
    unlink(path);
}

/* ---- corruption ------------------------------------------------------------------------- */

static int open_fails(const char *path, int *code, char *err, size_t errlen) {
    struct cuzk_g16key *g;
    err[0] = 0;
    *code = cuzk_g16key_open(&g, path, err, errlen);
    if (*code == CUZK_OK) cuzk_g16key_close(g);
    return *code != CUZK_OK && g == NULL && err[0];
}

static void flip(const char *path, uint64_t at, uint8_t mask) {
    int fd = open(path, O_RDWR);
    uint8_t b = 0;
    CHECK(fd >= 0 && pread(fd, &b, 1, (off_t)at) == 1);
    b ^= mask;
    CHECK(pwrite(fd, &b, 1, (off_t)at) == 1);
    close(fd);
}

static uint8_t mask(void) { return (uint8_t)(1 + rnd(255)); }

static void test_header_flips(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/hdr.g16k", dir);
    const struct shape sh = {20, 2, 16, 12, 9, 5, 1, 0, CUZK_H_SNARKJS};
    struct key k;
    key_make(&k, &sh);
    CHECK(key_write(&k, path, 0, NULL) == CUZK_OK);
    int all = 1, code;
    for (uint64_t i = 0; i < CUZK_G16KEY_HEADER_BYTES; i++) {
        uint8_t m = mask();
        flip(path, i, m);
        all &= open_fails(path, &code, err, sizeof err);
        struct cuzk_g16key_info pk;
        all &= cuzk_g16key_peek(path, &pk, err, sizeof err) == code; /* peek refuses it too */
        flip(path, i, m);
    }
    CHECK(all);
    check_key(&k, path, NULL); /* restored */
    key_free(&k);
    unlink(path);
}

static void test_region_flips(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/reg.g16k", dir);
    for (int c = 0; c < 2; c++) {
        const struct shape sh = {60, 3, 32, 30, 25, 6, c, 0, CUZK_H_SNARKJS};
        struct key k;
        key_make(&k, &sh);
        CHECK(key_write(&k, path, 0, pool) == CUZK_OK);
        uint64_t off[R_N], bytes[R_N];
        doc_layout(&k, sh.chunk, off, bytes);
        int code;
        /* regions verified at open */
        static const char *const names[] = {"checksum table", "section IC", "section A_WIRES",
                                            "section B_WIRES"};
        for (int r = R_SUMS; r <= R_BW; r++) {
            uint64_t at = off[r] + rnd(bytes[r]);
            uint8_t m = mask();
            flip(path, at, m);
            CHECK(open_fails(path, &code, err, sizeof err) && code == CUZK_EFORMAT &&
                  strstr(err, names[r]) && strstr(err, "checksum mismatch"));
            struct cuzk_g16key_info pk; /* peek reads the header only: it still answers */
            CHECK(cuzk_g16key_peek(path, &pk, err, sizeof err) == CUZK_OK && pk.n_a == k.info.n_a);
            flip(path, at, m);
        }
        /* the gap after IC is never read */
        if (off[R_AW] > off[R_IC] + bytes[R_IC]) {
            uint64_t at = off[R_IC] + bytes[R_IC];
            flip(path, at, 0x5a);
            check_key(&k, path, NULL);
            flip(path, at, 0x5a);
        }
        /* point sections: the chunk is named by read and load; the others still read */
        for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
            size_t n = k.count[s], pb = bytes[R_A + s] / n, chunk = rnd((n + 5) / 6);
            uint64_t at = off[R_A + s] +
                          (chunk * 6 + rnd(n - chunk * 6 < 6 ? n - chunk * 6 : 6)) * pb + rnd(pb);
            uint8_t m = mask();
            flip(path, at, m);
            struct cuzk_g16key *g;
            CHECK(cuzk_g16key_open(&g, path, err, sizeof err) == CUZK_OK);
            if (!g) continue;
            char want[64];
            snprintf(want, sizeof want, "section %s chunk %zu: checksum mismatch",
                     cuzk_g16key_section_name(s), chunk);
            uint8_t *buf = malloc(n * pb);
            void *pts = malloc(n * psize(s));
            err[0] = 0;
            size_t m2 = n - chunk * 6 < 6 ? n - chunk * 6 : 6;
            CHECK(cuzk_g16key_read(g, s, chunk * 6, m2, buf, err, sizeof err) == CUZK_EFORMAT &&
                  strstr(err, want) && strstr(err, path));
            err[0] = 0;
            CHECK(cuzk_g16key_read(g, s, 0, n, buf, err, sizeof err) == CUZK_EFORMAT &&
                  strstr(err, want));
            err[0] = 0;
            CHECK(cuzk_g16key_load(g, s, pool, pts, err, sizeof err) == CUZK_EFORMAT &&
                  strstr(err, want));
            size_t other = chunk ? 0 : 6;
            if (other < n)
                CHECK(cuzk_g16key_read(g, s, other, n - other < 6 ? n - other : 6, buf, err,
                                       sizeof err) == CUZK_OK);
            /* every other section is untouched */
            for (int t = 0; t < CUZK_G16KEY_SECTIONS; t++) {
                if (t == s) continue;
                uint8_t *b2 = malloc(k.count[t] * 192 + 1);
                CHECK(cuzk_g16key_read(g, t, 0, k.count[t], b2, err, sizeof err) == CUZK_OK);
                free(b2);
            }
            free(pts);
            free(buf);
            cuzk_g16key_close(g);
            flip(path, at, m);
        }
        check_key(&k, path, NULL);
        key_free(&k);
    }
    unlink(path);
}

static void spit(const char *path, const void *b, size_t len) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
}

static void test_sizes(void) {
    char path[128], bad[128], err[256];
    snprintf(path, sizeof path, "%s/size.g16k", dir);
    snprintf(bad, sizeof bad, "%s/bad.g16k", dir);
    const struct shape sh = {30, 2, 16, 20, 10, 4, 0, 0, CUZK_H_SNARKJS};
    struct key k;
    key_make(&k, &sh);
    CHECK(key_write(&k, path, 0, NULL) == CUZK_OK);
    size_t len;
    uint8_t *b;
    int code = cuzk_file_read(path, SIZE_MAX, &b, &len, err, sizeof err);
    CHECK(code == CUZK_OK);
    if (code) {
        key_free(&k);
        return;
    }
    const size_t cuts[] = {0, 1, 100, 4095, 4096, 4097, 8192, len / 2, len - 97, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        spit(bad, b, cuts[i]);
        CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT);
    }
    CHECK(strstr(err, "truncated") != NULL);
    uint8_t *longer = calloc(len + 4096, 1);
    memcpy(longer, b, len);
    spit(bad, longer, len + 1);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT &&
          strstr(err, "trailing bytes"));
    spit(bad, longer, len + 4096);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT);

    /* a header with huge counts and a valid checksum: refused by the size check, before it
     * allocates anything (ASan would report a terabyte request) */
    memcpy(longer, b, len);
    cuzk_fmt_put32(longer + 16, 0xffffffffu); /* n_vars */
    cuzk_fmt_put32(longer + 24, 1u << 31);    /* domain_size */
    cuzk_fmt_put32(longer + 28, 0xfffffff0u); /* n_a */
    cuzk_fmt_put32(longer + 32, 0xfffffff0u); /* n_b */
    cuzk_fmt_put32(longer + 36, 1);           /* chunk_points */
    cuzk_fmt_put64(longer + 4088, cuzk_checksum64(longer, 4088));
    spit(bad, longer, len);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT &&
          strstr(err, "truncated"));
    /* another version: 0 and 3 are unknown; flag bit 1 (the coefficient basis) belongs to
     * version 2, a version 1 file with it is malformed */
    const uint32_t versions[2] = {0, 3};
    for (int v = 0; v < 2; v++) {
        memcpy(longer, b, len);
        cuzk_fmt_put32(longer + 8, versions[v]);
        cuzk_fmt_put64(longer + 4088, cuzk_checksum64(longer, 4088));
        spit(bad, longer, len);
        CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EUNSUPPORTED);
    }
    memcpy(longer, b, len);
    cuzk_fmt_put32(longer + 12, cuzk_fmt_le32(longer + 12) | 2u);
    cuzk_fmt_put64(longer + 4088, cuzk_checksum64(longer, 4088));
    spit(bad, longer, len);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT &&
          strstr(err, "unknown flags"));
    /* the same file as version 2 is a coefficient-basis key, one H point shorter than its
     * size: refused by the size check */
    cuzk_fmt_put32(longer + 8, 2);
    cuzk_fmt_put64(longer + 4088, cuzk_checksum64(longer, 4088));
    spit(bad, longer, len);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EFORMAT);
    /* a missing file */
    unlink(bad);
    CHECK(open_fails(bad, &code, err, sizeof err) && code == CUZK_EIO);
    free(longer);
    free(b);
    key_free(&k);
    unlink(path);
}

/* ---- the writer's refusals -------------------------------------------------------------- */

static int exists(const char *path) { return access(path, F_OK) == 0; }

static void test_writer_refusals(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/w.g16k", dir);
    const struct shape sh = {20, 2, 8, 6, 4, 3, 1, 0, CUZK_H_SNARKJS};
    struct key k;
    key_make(&k, &sh);
    struct cuzk_g16key_writer *w;

    uint32_t aw[6];
    memcpy(aw, k.aw, sizeof aw);
    k.aw[2] = k.aw[1]; /* a repeated wire */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          w == NULL && strstr(err, "a_wires entry 2") && !exists(path));
    memcpy(k.aw, aw, sizeof aw);
    uint32_t b3 = k.bw[3];
    k.bw[3] = 20; /* = n_vars */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          strstr(err, "b_wires entry 3") && !exists(path));
    k.bw[3] = b3;
    k.aw[0] = k.aw[1], k.aw[1] = aw[0]; /* decreasing */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          strstr(err, "a_wires entry 1") && !exists(path));
    memcpy(k.aw, aw, sizeof aw);
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, NULL, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          !exists(path));

    /* shapes */
    struct cuzk_g16key_info bad = k.info;
    bad.n_public = 20; /* n_public + 1 wires do not fit n_vars = 20 */
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    CHECK(cuzk_g16key_writer_open(&w, path, &bad, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          !exists(path));
    bad = k.info, bad.domain_size = 12;
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    CHECK(cuzk_g16key_writer_open(&w, path, &bad, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          strstr(err, "power of two"));
    bad = k.info, bad.chunk_points = CUZK_G16KEY_CHUNK_MAX + 1;
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    bad = k.info, bad.h_basis = (enum cuzk_h_basis)5;
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    CHECK(cuzk_g16key_writer_open(&w, path, &bad, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EINVAL &&
          strstr(err, "basis") && !exists(path));
    bad = k.info, bad.h_basis = CUZK_H_COEFF, bad.domain_size = 1;
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    bad.domain_size = k.info.domain_size; /* one H point less, at the end of the file */
    CHECK(cuzk_g16key_file_bytes(&bad) ==
          cuzk_g16key_file_bytes(&k.info) - (k.info.compressed ? 48 : 96));
    bad = k.info, bad.n_a = 21;
    CHECK(cuzk_g16key_file_bytes(&bad) == 0);
    CHECK(!exists(path));

    /* order, overfilling, incompleteness */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, pool, err, sizeof err) ==
          CUZK_OK);
    CHECK(exists(path));
    const cuzk_g1_affine *a = k.pts[CUZK_G16KEY_A], *b1 = k.pts[CUZK_G16KEY_B1];
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_A, a, 4, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_B1, b1, 1, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "section A is incomplete (4 of 6 points)"));
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_A, a + 4, 3, err, sizeof err) == CUZK_EINVAL);
    CHECK(cuzk_g16key_writer_put(w, (enum cuzk_g16key_section)9, a, 1, err, sizeof err) ==
          CUZK_EINVAL);
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_A, a + 4, 2, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_B1, b1, 2, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_A, a, 0, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "comes before"));
    CHECK(cuzk_g16key_writer_close(w, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "section B1 is incomplete (2 of 4 points) at close") && !exists(path));

    /* a section left empty when the last one is written */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
          CUZK_OK);
    CHECK(cuzk_g16key_writer_put(w, CUZK_G16KEY_H, k.pts[CUZK_G16KEY_H], 8, err, sizeof err) ==
          CUZK_EINVAL);
    CHECK(cuzk_g16key_writer_close(w, err, sizeof err) == CUZK_EINVAL && !exists(path));

    /* abort */
    CHECK(cuzk_g16key_writer_open(&w, path, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
          CUZK_OK);
    CHECK(exists(path));
    cuzk_g16key_writer_abort(w);
    CHECK(!exists(path));
    cuzk_g16key_writer_abort(NULL);

    /* an unwritable place */
    char nodir[160];
    snprintf(nodir, sizeof nodir, "%s/missing/w.g16k", dir);
    CHECK(cuzk_g16key_writer_open(&w, nodir, &k.info, k.ic, k.aw, k.bw, NULL, err, sizeof err) ==
              CUZK_EIO &&
          w == NULL);
    key_free(&k);
}

/* ---- points the writer does not check --------------------------------------------------- */

static void off_curve(cuzk_g1_affine *p) {
    cuzk_fp_random(&p->x, &test_rng);
    cuzk_fp_random(&p->y, &test_rng);
}

/* The writer stores what it is given; behind valid checksums, open and load still refuse points
 * off the curve (the lowest one is named, whatever the thread count) and accept points outside
 * the subgroup everywhere but in the header. */
static void test_bad_points(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/pts.g16k", dir);
    const struct shape sh = {6000, 2, 8, 5000, 3, 1000, 0, 0, CUZK_H_SNARKJS};
    struct key k;
    key_make(&k, &sh);
    cuzk_g1_affine *a = k.pts[CUZK_G16KEY_A], saved[3] = {a[4500], a[2100], a[7]};
    off_curve(&a[4500]);
    off_curve(&a[2100]);
    test_g1_nonsub(&a[7]);
    CHECK(key_write(&k, path, 0, pool) == CUZK_OK);
    struct cuzk_g16key *g;
    CHECK(cuzk_g16key_open(&g, path, err, sizeof err) == CUZK_OK);
    if (g) {
        uint8_t *buf = malloc(5000 * 96);
        cuzk_g1_affine *pts = malloc(6000 * sizeof *pts); /* C: 5997 points */
        CHECK(cuzk_g16key_read(g, CUZK_G16KEY_A, 0, 5000, buf, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_g16key_load(g, CUZK_G16KEY_A, pool, pts, err, sizeof err) == CUZK_ENOTONCURVE &&
              strstr(err, "section A point 2100"));
        CHECK(cuzk_g16key_load(g, CUZK_G16KEY_C, NULL, pts, err, sizeof err) == CUZK_OK);
        free(pts);
        free(buf);
        cuzk_g16key_close(g);
    }
    a[4500] = saved[0], a[2100] = saved[1], a[7] = saved[2];

    cuzk_g1_affine ic1 = k.ic[1];
    off_curve(&k.ic[1]);
    CHECK(key_write(&k, path, 0, NULL) == CUZK_OK);
    int code;
    CHECK(open_fails(path, &code, err, sizeof err) && code == CUZK_ENOTONCURVE &&
          strstr(err, "IC point 1"));
    k.ic[1] = ic1;

    test_g1_nonsub(&k.info.beta1);
    CHECK(key_write(&k, path, 0, NULL) == CUZK_OK);
    CHECK(open_fails(path, &code, err, sizeof err) && code == CUZK_ENOTINSUBGROUP &&
          strstr(err, "header point beta1"));
    key_free(&k);
    unlink(path);
}

/* ---- concurrent reads ------------------------------------------------------------------- */

struct reader {
    pthread_t t;
    struct cuzk_g16key *g;
    const struct key *k;
    uint8_t *exp[CUZK_G16KEY_SECTIONS];
    unsigned id;
    long reads, bad;
};

static void *reader_main(void *arg) {
    struct reader *r = arg;
    uint32_t chunk = r->k->info.chunk_points;
    uint8_t *buf = malloc((size_t)chunk * 192);
    char err[256];
    for (int round = 0; round < 20; round++) {
        for (int si = 0; si < CUZK_G16KEY_SECTIONS; si++) {
            int s = (si + (int)r->id) % CUZK_G16KEY_SECTIONS;
            size_t n = r->k->count[s], pb = cuzk_g16key_point_bytes(r->g, s);
            size_t chunks = (n + chunk - 1) / chunk;
            for (size_t ci = 0; ci < chunks; ci++) {
                size_t c = (ci * 7 + r->id * 3 + (size_t)round) % chunks, first = c * chunk;
                size_t m = n - first < chunk ? n - first : chunk;
                r->reads++;
                if (cuzk_g16key_read(r->g, s, first, m, buf, err, sizeof err) != CUZK_OK ||
                    memcmp(buf, r->exp[s] + first * pb, m * pb))
                    r->bad++;
            }
        }
    }
    free(buf);
    return NULL;
}

static void test_concurrent_reads(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/mt.g16k", dir);
    const struct shape sh = {400, 3, 512, 300, 200, 37, 1, 0, CUZK_H_SNARKJS};
    struct key k;
    key_make(&k, &sh);
    CHECK(key_write(&k, path, 0, pool) == CUZK_OK);
    struct cuzk_g16key *g;
    CHECK(cuzk_g16key_open(&g, path, err, sizeof err) == CUZK_OK);
    if (g) {
        struct reader r[4];
        uint8_t *exp[CUZK_G16KEY_SECTIONS];
        size_t pb;
        for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) exp[s] = expected(&k, s, &pb);
        for (unsigned i = 0; i < 4; i++) {
            memset(&r[i], 0, sizeof r[i]);
            r[i].g = g, r[i].k = &k, r[i].id = i;
            memcpy(r[i].exp, exp, sizeof exp);
            CHECK(pthread_create(&r[i].t, NULL, reader_main, &r[i]) == 0);
        }
        long reads = 0, bad = 0;
        for (unsigned i = 0; i < 4; i++) {
            pthread_join(r[i].t, NULL);
            reads += r[i].reads, bad += r[i].bad;
        }
        CHECK(reads == 4 * 20 * (9 + 6 + 6 + 11 + 14) && bad == 0);
        for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) free(exp[s]);
        cuzk_g16key_close(g);
    }
    key_free(&k);
    unlink(path);
}

int main(void) {
    test_init("test_g16key");
    snprintf(dir, sizeof dir, "/tmp/cuzk_g16key_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    if (cuzk_pool_create(&pool, 4, "g16key-test") != CUZK_OK) return 1;
    test_roundtrips();
    test_header_flips();
    test_region_flips();
    test_sizes();
    test_writer_refusals();
    test_bad_points();
    test_concurrent_reads();
    cuzk_pool_destroy(pool);
    rmdir(dir);
    return test_finish();
}
