/* Known answers from an independent implementation (@noble/curves, via tests/vectors/gen.mjs):
 * every field, group and pairing operation on >= 1000 random cases plus edge cases, point
 * encodings both ways, and on-curve points outside the subgroup that must be rejected.
 * The vector files are generated at build time into $CUZK_VECTORS (see tests/vectors/README.md);
 * missing or short files fail the test. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "ff/fp12.h"
#include "ff/fr.h"
#include "pairing/pairing.h"
#include "test_util.h"

#define MAX_TOK 8

static int parse_fail;
static long bad_lines;

static void hex_be(uint8_t *out, size_t n, const char *tok, size_t len) {
    if (test_hex_to_bytes(out, n, tok, len)) parse_fail = 1;
}

static void rd_fr(cuzk_fr *r, const char *t) {
    uint8_t b[32];
    hex_be(b, 32, t, strlen(t));
    if (cuzk_fr_from_bytes_be(r, b)) parse_fail = 1;
}

static void rd_fp_n(cuzk_fp *r, const char *t, size_t len) {
    uint8_t b[48];
    hex_be(b, 48, t, len);
    if (cuzk_fp_from_bytes_be(r, b)) parse_fail = 1;
}

/* n comma-separated Fp components into out[0..n) */
static void rd_fps(cuzk_fp *out, int n, const char *t) {
    for (int i = 0; i < n; i++) {
        const char *end = strchr(t, ',');
        size_t len = end ? (size_t)(end - t) : strlen(t);
        if ((i < n - 1) != (end != NULL)) parse_fail = 1;
        rd_fp_n(&out[i], t, len);
        if (!end) break;
        t = end + 1;
    }
}

static void rd_fp(cuzk_fp *r, const char *t) { rd_fps(r, 1, t); }
static void rd_fp2(cuzk_fp2 *r, const char *t) { rd_fps(&r->c0, 2, t); }
static void rd_fp6(cuzk_fp6 *r, const char *t) { rd_fps(&r->c0.c0, 6, t); }
static void rd_fp12(cuzk_fp12 *r, const char *t) { rd_fps(&r->c0.c0.c0, 12, t); }

static void rd_scalar(uint64_t k[4], const char *t) {
    uint8_t b[32];
    hex_be(b, 32, t, strlen(t));
    for (int i = 0; i < 4; i++) {
        k[i] = 0;
        for (int j = 0; j < 8; j++) k[i] = k[i] << 8 | b[8 * (3 - i) + j];
    }
}

static void rd_g1(cuzk_g1 *r, const char *t) {
    uint8_t b[CUZK_G1_UNCOMPRESSED];
    cuzk_g1_affine a;
    hex_be(b, sizeof b, t, strlen(t));
    if (cuzk_g1_from_uncompressed(&a, b)) parse_fail = 1;
    cuzk_g1_from_affine(r, &a);
}

static void rd_g2(cuzk_g2 *r, const char *t) {
    uint8_t b[CUZK_G2_UNCOMPRESSED];
    cuzk_g2_affine a;
    hex_be(b, sizeof b, t, strlen(t));
    if (cuzk_g2_from_uncompressed(&a, b)) parse_fail = 1;
    cuzk_g2_from_affine(r, &a);
}

/* ---- per-file checks: tok[0] is the op, the rest its operands; return 1 if the case holds -- */

/* Prime-field ops, written once for Fr and Fp. */
#define PRIME_FIELD_CASE(T, F, RD)                                                                 \
    static int F##_case(char **tok, int n) {                                                       \
        T a, b, c, r;                                                                              \
        const char *op = tok[0];                                                                   \
        if (!strcmp(op, "sqr") || !strcmp(op, "neg") || !strcmp(op, "inv")) {                      \
            if (n != 3) return 0;                                                                  \
            RD(&a, tok[1]);                                                                        \
            RD(&c, tok[2]);                                                                        \
            if (op[0] == 's')                                                                      \
                F##_sqr(&r, &a);                                                                   \
            else if (op[0] == 'n')                                                                 \
                F##_neg(&r, &a);                                                                   \
            else {                                                                                 \
                T v;                                                                               \
                F##_inv(&r, &a);                                                                   \
                F##_inv_var(&v, &a);                                                               \
                if (!F##_eq(&v, &r)) return 0;                                                     \
            }                                                                                      \
            return F##_eq(&r, &c);                                                                 \
        }                                                                                          \
        if (!strcmp(op, "pow")) {                                                                  \
            uint64_t e[4];                                                                         \
            if (n != 4) return 0;                                                                  \
            RD(&a, tok[1]);                                                                        \
            rd_scalar(e, tok[2]);                                                                  \
            RD(&c, tok[3]);                                                                        \
            F##_pow(&r, &a, e, 4);                                                                 \
            return F##_eq(&r, &c);                                                                 \
        }                                                                                          \
        if (n != 4) return -1;                                                                     \
        RD(&a, tok[1]);                                                                            \
        RD(&b, tok[2]);                                                                            \
        RD(&c, tok[3]);                                                                            \
        if (!strcmp(op, "add"))                                                                    \
            F##_add(&r, &a, &b);                                                                   \
        else if (!strcmp(op, "sub"))                                                               \
            F##_sub(&r, &a, &b);                                                                   \
        else if (!strcmp(op, "mul"))                                                               \
            F##_mul(&r, &a, &b);                                                                   \
        else                                                                                       \
            return -1;                                                                             \
        return F##_eq(&r, &c);                                                                     \
    }

PRIME_FIELD_CASE(cuzk_fr, cuzk_fr, rd_fr)
PRIME_FIELD_CASE(cuzk_fp, cuzk_fp, rd_fp)

static int fp_file_case(char **tok, int n) {
    if (strcmp(tok[0], "sqrt")) return cuzk_fp_case(tok, n);
    cuzk_fp a, s, r, neg;
    if (n != 3) return 0;
    rd_fp(&a, tok[1]);
    int err = cuzk_fp_sqrt(&r, &a);
    if (!strcmp(tok[2], "none")) return err == CUZK_ENOSQRT && !cuzk_fp_is_square(&a);
    rd_fp(&s, tok[2]);
    cuzk_fp_neg(&neg, &s);
    return err == CUZK_OK && (cuzk_fp_eq(&r, &s) || cuzk_fp_eq(&r, &neg));
}

static int fp2_file_case(char **tok, int n) {
    cuzk_fp2 a, b, c, r;
    const char *op = tok[0];
    if (!strcmp(op, "sqrt")) {
        if (n != 3) return 0;
        rd_fp2(&a, tok[1]);
        int err = cuzk_fp2_sqrt(&r, &a);
        if (!strcmp(tok[2], "none")) return err == CUZK_ENOSQRT;
        rd_fp2(&c, tok[2]);
        cuzk_fp2_neg(&b, &c);
        return err == CUZK_OK && (cuzk_fp2_eq(&r, &c) || cuzk_fp2_eq(&r, &b));
    }
    if (n == 3) {
        rd_fp2(&a, tok[1]);
        rd_fp2(&c, tok[2]);
        if (!strcmp(op, "sqr"))
            cuzk_fp2_sqr(&r, &a);
        else if (!strcmp(op, "neg"))
            cuzk_fp2_neg(&r, &a);
        else if (!strcmp(op, "frob"))
            cuzk_fp2_conj(&r, &a);
        else if (!strcmp(op, "mulnr"))
            cuzk_fp2_mul_nr(&r, &a);
        else if (!strcmp(op, "inv")) {
            cuzk_fp2_inv(&r, &a);
            cuzk_fp2_inv_var(&b, &a);
            if (!cuzk_fp2_eq(&r, &b)) return 0;
        } else
            return -1;
        return cuzk_fp2_eq(&r, &c);
    }
    if (n != 4) return -1;
    rd_fp2(&a, tok[1]);
    rd_fp2(&b, tok[2]);
    rd_fp2(&c, tok[3]);
    if (!strcmp(op, "add"))
        cuzk_fp2_add(&r, &a, &b);
    else if (!strcmp(op, "sub"))
        cuzk_fp2_sub(&r, &a, &b);
    else if (!strcmp(op, "mul"))
        cuzk_fp2_mul(&r, &a, &b);
    else
        return -1;
    return cuzk_fp2_eq(&r, &c);
}

static int fp6_file_case(char **tok, int n) {
    cuzk_fp6 a, b, c, r;
    const char *op = tok[0];
    if (!strcmp(op, "frob")) {
        if (n != 4) return 0;
        int k = atoi(tok[1]);
        rd_fp6(&a, tok[2]);
        rd_fp6(&c, tok[3]);
        cuzk_fp6_frobenius(&r, &a, k);
        return cuzk_fp6_eq(&r, &c);
    }
    if (n == 3) {
        rd_fp6(&a, tok[1]);
        rd_fp6(&c, tok[2]);
        if (!strcmp(op, "sqr"))
            cuzk_fp6_sqr(&r, &a);
        else if (!strcmp(op, "neg"))
            cuzk_fp6_neg(&r, &a);
        else if (!strcmp(op, "inv"))
            cuzk_fp6_inv_var(&r, &a);
        else
            return -1;
        return cuzk_fp6_eq(&r, &c);
    }
    if (n != 4) return -1;
    rd_fp6(&a, tok[1]);
    rd_fp6(&b, tok[2]);
    rd_fp6(&c, tok[3]);
    if (!strcmp(op, "add"))
        cuzk_fp6_add(&r, &a, &b);
    else if (!strcmp(op, "sub"))
        cuzk_fp6_sub(&r, &a, &b);
    else if (!strcmp(op, "mul"))
        cuzk_fp6_mul(&r, &a, &b);
    else
        return -1;
    return cuzk_fp6_eq(&r, &c);
}

static int fp12_file_case(char **tok, int n) {
    cuzk_fp12 a, b, c, r;
    const char *op = tok[0];
    if (!strcmp(op, "frob")) {
        if (n != 4) return 0;
        int k = atoi(tok[1]);
        rd_fp12(&a, tok[2]);
        rd_fp12(&c, tok[3]);
        cuzk_fp12_frobenius(&r, &a, k);
        return cuzk_fp12_eq(&r, &c);
    }
    if (n == 3) {
        rd_fp12(&a, tok[1]);
        rd_fp12(&c, tok[2]);
        if (!strcmp(op, "sqr"))
            cuzk_fp12_sqr(&r, &a);
        else if (!strcmp(op, "inv"))
            cuzk_fp12_inv_var(&r, &a);
        else if (!strcmp(op, "conj"))
            cuzk_fp12_conj(&r, &a);
        else if (!strcmp(op, "finalexp"))
            cuzk_final_exp(&r, &a);
        else
            return -1;
        return cuzk_fp12_eq(&r, &c);
    }
    if (n != 4 || strcmp(op, "mul")) return -1;
    rd_fp12(&a, tok[1]);
    rd_fp12(&b, tok[2]);
    rd_fp12(&c, tok[3]);
    cuzk_fp12_mul(&r, &a, &b);
    return cuzk_fp12_eq(&r, &c);
}

/* Group ops, written once for G1 and G2. */
#define GROUP_CASE(G, RD, CLEN)                                                                    \
    static int G##_file_case(char **tok, int n) {                                                  \
        G p, q, r, e;                                                                              \
        const char *op = tok[0];                                                                   \
        if (!strcmp(op, "enc")) {                                                                  \
            uint8_t want[CLEN], got[CLEN];                                                         \
            G##_affine a, d;                                                                       \
            if (n != 3) return 0;                                                                  \
            RD(&p, tok[1]);                                                                        \
            hex_be(want, CLEN, tok[2], strlen(tok[2]));                                            \
            G##_to_affine(&a, &p);                                                                 \
            G##_to_compressed(got, &a);                                                            \
            if (memcmp(got, want, CLEN)) return 0;                                                 \
            return G##_from_compressed(&d, want) == CUZK_OK && G##_affine_eq(&a, &d);              \
        }                                                                                          \
        if (!strcmp(op, "mul")) {                                                                  \
            uint64_t k[4];                                                                         \
            if (n != 4) return 0;                                                                  \
            RD(&p, tok[1]);                                                                        \
            rd_scalar(k, tok[2]);                                                                  \
            RD(&e, tok[3]);                                                                        \
            G##_mul_var(&r, &p, k, 4);                                                             \
            return G##_eq(&r, &e);                                                                 \
        }                                                                                          \
        if (n == 3) {                                                                              \
            RD(&p, tok[1]);                                                                        \
            RD(&e, tok[2]);                                                                        \
            if (!strcmp(op, "dbl"))                                                                \
                G##_dbl(&r, &p);                                                                   \
            else if (!strcmp(op, "neg"))                                                           \
                G##_neg(&r, &p);                                                                   \
            else                                                                                   \
                return -1;                                                                         \
            return G##_eq(&r, &e);                                                                 \
        }                                                                                          \
        if (n != 4 || strcmp(op, "add")) return -1;                                                \
        RD(&p, tok[1]);                                                                            \
        RD(&q, tok[2]);                                                                            \
        RD(&e, tok[3]);                                                                            \
        G##_add(&r, &p, &q);                                                                       \
        if (!G##_eq(&r, &e)) return 0;                                                             \
        G##_affine qa; /* the mixed addition must agree too */                                     \
        G##_to_affine(&qa, &q);                                                                    \
        G##_add_affine(&r, &p, &qa);                                                               \
        return G##_eq(&r, &e);                                                                     \
    }

GROUP_CASE(cuzk_g1, rd_g1, CUZK_G1_COMPRESSED)
GROUP_CASE(cuzk_g2, rd_g2, CUZK_G2_COMPRESSED)

#define NONSUB_CASE(G, ULEN, CLEN)                                                                 \
    static int G##_nonsub_case(char **tok, int n) {                                                \
        uint8_t u[ULEN], c[CLEN];                                                                  \
        G##_affine a;                                                                              \
        if (n != 3 || strcmp(tok[0], "pt")) return -1;                                             \
        hex_be(u, ULEN, tok[1], strlen(tok[1]));                                                   \
        hex_be(c, CLEN, tok[2], strlen(tok[2]));                                                   \
        return G##_from_uncompressed(&a, u) == CUZK_ENOTINSUBGROUP &&                              \
               G##_from_compressed(&a, c) == CUZK_ENOTINSUBGROUP;                                  \
    }

NONSUB_CASE(cuzk_g1, CUZK_G1_UNCOMPRESSED, CUZK_G1_COMPRESSED)
NONSUB_CASE(cuzk_g2, CUZK_G2_UNCOMPRESSED, CUZK_G2_COMPRESSED)

static int pairing_case(char **tok, int n) {
    if (n != 4 || strcmp(tok[0], "pair")) return -1;
    cuzk_g1 pj;
    cuzk_g2 qj;
    cuzk_g1_affine p;
    cuzk_g2_affine q;
    cuzk_fp12 e, r;
    rd_g1(&pj, tok[1]);
    rd_g2(&qj, tok[2]);
    rd_fp12(&e, tok[3]);
    cuzk_g1_to_affine(&p, &pj);
    cuzk_g2_to_affine(&q, &qj);
    cuzk_pairing(&r, &p, &q);
    return cuzk_fp12_eq(&r, &e);
}

/* ---- the driver ---------------------------------------------------------------------------- */

struct kat_file {
    const char *name;
    int (*check)(char **tok, int n);
    long min_per_op; /* every op in the file must have at least this many cases */
};

static void run_file(const char *dir, const struct kat_file *kf) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, kf->name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr,
                "test_kat: cannot open %s (vectors are made by the build; see "
                "tests/vectors/README.md)\n",
                path);
        CHECK(f != NULL);
        return;
    }
    struct {
        char op[16];
        long n;
    } ops[16];
    int nops = 0;
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    long fails_before = test_failures;
    while (line && fgets(line, (int)cap, f)) {
        size_t len = strlen(line);
        while (len == cap - 1 && line[len - 1] != '\n') { /* grow for long lines */
            cap *= 2;
            line = realloc(line, cap);
            if (!line || !fgets(line + len, (int)(cap - len), f)) break;
            len = strlen(line);
        }
        if (!line) break;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *tok[MAX_TOK];
        int n = 0;
        for (char *s = strtok(line, " \n"); s && n < MAX_TOK; s = strtok(NULL, " \n")) tok[n++] = s;
        parse_fail = 0;
        int ok = kf->check(tok, n);
        if (ok < 0 || parse_fail) bad_lines++;
        CHECK(ok == 1 && !parse_fail);
        if (ok != 1 && test_failures - fails_before <= 5)
            fprintf(stderr, "test_kat: %s: case failed: %s %.60s\n", kf->name, tok[0],
                    n > 1 ? tok[1] : "");
        int i = 0;
        while (i < nops && strcmp(ops[i].op, tok[0])) i++;
        if (i == nops && nops < 16) {
            snprintf(ops[nops].op, sizeof ops[nops].op, "%s", tok[0]);
            ops[nops++].n = 0;
        }
        if (i < 16) ops[i].n++;
    }
    free(line);
    fclose(f);
    printf("test_kat: %s:", kf->name);
    for (int i = 0; i < nops; i++) {
        printf(" %s=%ld", ops[i].op, ops[i].n);
        long min = kf->min_per_op;
        if (!strcmp(ops[i].op, "finalexp")) min = 200; /* the slow op has 200 random cases */
        CHECK(ops[i].n >= min);
    }
    printf("\n");
    CHECK(nops > 0);
}

int main(void) {
    test_init("test_kat");
    const char *dir = getenv("CUZK_VECTORS");
    if (!dir || !*dir) {
        fprintf(stderr, "test_kat: CUZK_VECTORS is not set\n");
        return 1;
    }
    static const struct kat_file files[] = {
        {"fr.txt", cuzk_fr_case, 1000},
        {"fp.txt", fp_file_case, 1000},
        {"fp2.txt", fp2_file_case, 1000},
        {"fp6.txt", fp6_file_case, 1000},
        {"fp12.txt", fp12_file_case, 1000},
        {"g1.txt", cuzk_g1_file_case, 1000},
        {"g2.txt", cuzk_g2_file_case, 1000},
        {"g1_nonsub.txt", cuzk_g1_nonsub_case, 200},
        {"g2_nonsub.txt", cuzk_g2_nonsub_case, 200},
        {"pairing.txt", pairing_case, 1000},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) run_file(dir, &files[i]);
    CHECK(bad_lines == 0);
    return test_finish();
}
