#include "formats/snarkjs_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "formats/fmt.h"
#include "formats/zkey.h"

/* ---- writer: JSON.stringify(value, null, 1) ------------------------------------------------
 * A container with elements prints as "[\n" + each element on its own line, indented one space
 * per level, separated by ",\n", then "\n" + the parent's indentation + "]"; an empty one as
 * "[]"; object members as "key": value. Only the fixed keys and decimal strings of this module
 * are written, so no string needs escaping. */

#define JW_MAX_DEPTH 8

struct jw {
    char *buf;
    size_t len, cap;
    int depth;
    int count[JW_MAX_DEPTH]; /* elements so far in each open container */
    int after_key;           /* the next value follows "key": on the same line */
    int oom;
};

static void jw_raw(struct jw *w, const char *s, size_t n) {
    if (w->oom) return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + n + 1) cap *= 2;
        char *b = realloc(w->buf, cap);
        if (b == NULL) {
            w->oom = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void jw_str0(struct jw *w, const char *s) { jw_raw(w, s, strlen(s)); }

/* Separator, newline and indentation before a value or a key. */
static void jw_prefix(struct jw *w) {
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0) return;
    jw_str0(w, w->count[w->depth - 1]++ ? ",\n" : "\n");
    for (int i = 0; i < w->depth; i++) jw_raw(w, " ", 1);
}

static void jw_open(struct jw *w, char c) {
    jw_prefix(w);
    jw_raw(w, &c, 1);
    w->count[w->depth++] = 0;
}

static void jw_close(struct jw *w, char c) {
    if (w->count[--w->depth] > 0) {
        jw_raw(w, "\n", 1);
        for (int i = 0; i < w->depth; i++) jw_raw(w, " ", 1);
    }
    jw_raw(w, &c, 1);
}

static void jw_key(struct jw *w, const char *k) {
    jw_prefix(w);
    jw_raw(w, "\"", 1);
    jw_str0(w, k);
    jw_str0(w, "\": ");
    w->after_key = 1;
}

static void jw_string(struct jw *w, const char *s) {
    jw_prefix(w);
    jw_raw(w, "\"", 1);
    jw_str0(w, s);
    jw_raw(w, "\"", 1);
}

static void jw_uint(struct jw *w, uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    jw_prefix(w);
    jw_str0(w, b);
}

/* Hands over the text, or NULL (and frees it) when an allocation failed. */
static char *jw_finish(struct jw *w) {
    if (w->oom) {
        free(w->buf);
        return NULL;
    }
    return w->buf;
}

static void jw_g1(struct jw *w, const cuzk_g1_affine *p) {
    char xyz[3][CUZK_FP_DEC_MAX];
    cuzk_g1_to_dec(xyz, p);
    jw_open(w, '[');
    for (int i = 0; i < 3; i++) jw_string(w, xyz[i]);
    jw_close(w, ']');
}

static void jw_g2(struct jw *w, const cuzk_g2_affine *p) {
    char xyz[6][CUZK_FP_DEC_MAX];
    cuzk_g2_to_dec(xyz, p);
    jw_open(w, '[');
    for (int i = 0; i < 3; i++) {
        jw_open(w, '[');
        jw_string(w, xyz[2 * i]);
        jw_string(w, xyz[2 * i + 1]);
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

/* The six Fp2 coefficients of an Fp12 in snarkjs's order: c0 = (c0.c0, c0.c1, c0.c2), then c1. */
static void fp12_coeffs(const cuzk_fp2 *out[6], const cuzk_fp12 *f) {
    const cuzk_fp6 *h[2] = {&f->c0, &f->c1};
    for (int i = 0; i < 2; i++) {
        out[3 * i] = &h[i]->c0;
        out[3 * i + 1] = &h[i]->c1;
        out[3 * i + 2] = &h[i]->c2;
    }
}

static void jw_fp12(struct jw *w, const cuzk_fp12 *f) {
    const cuzk_fp2 *c[6];
    fp12_coeffs(c, f);
    jw_open(w, '[');
    for (int i = 0; i < 2; i++) {
        jw_open(w, '[');
        for (int j = 0; j < 3; j++) {
            char d[CUZK_FP_DEC_MAX];
            jw_open(w, '[');
            (void)cuzk_fp_to_dec(d, sizeof d, &c[3 * i + j]->c0);
            jw_string(w, d);
            (void)cuzk_fp_to_dec(d, sizeof d, &c[3 * i + j]->c1);
            jw_string(w, d);
            jw_close(w, ']');
        }
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

char *cuzk_snarkjs_proof_to_json(const struct cuzk_snarkjs_proof *p) {
    struct jw w = {0};
    jw_open(&w, '{');
    jw_key(&w, "pi_a");
    jw_g1(&w, &p->a);
    jw_key(&w, "pi_b");
    jw_g2(&w, &p->b);
    jw_key(&w, "pi_c");
    jw_g1(&w, &p->c);
    jw_key(&w, "protocol");
    jw_string(&w, "groth16");
    jw_key(&w, "curve");
    jw_string(&w, "bls12381");
    jw_close(&w, '}');
    return jw_finish(&w);
}

char *cuzk_snarkjs_public_to_json(const cuzk_fr *v, size_t n) {
    struct jw w = {0};
    jw_open(&w, '[');
    for (size_t i = 0; i < n; i++) {
        char d[CUZK_FR_DEC_MAX];
        (void)cuzk_fr_to_dec(d, sizeof d, &v[i]);
        jw_string(&w, d);
    }
    jw_close(&w, ']');
    return jw_finish(&w);
}

char *cuzk_snarkjs_vk_to_json(const struct cuzk_snarkjs_vk *vk) {
    struct jw w = {0};
    jw_open(&w, '{');
    jw_key(&w, "protocol");
    jw_string(&w, "groth16");
    jw_key(&w, "curve");
    jw_string(&w, "bls12381");
    jw_key(&w, "nPublic");
    jw_uint(&w, vk->n_public);
    jw_key(&w, "vk_alpha_1");
    jw_g1(&w, &vk->alpha1);
    jw_key(&w, "vk_beta_2");
    jw_g2(&w, &vk->beta2);
    jw_key(&w, "vk_gamma_2");
    jw_g2(&w, &vk->gamma2);
    jw_key(&w, "vk_delta_2");
    jw_g2(&w, &vk->delta2);
    jw_key(&w, "vk_alphabeta_12");
    jw_fp12(&w, &vk->alphabeta);
    jw_key(&w, "IC");
    jw_open(&w, '[');
    for (uint64_t i = 0; i <= vk->n_public; i++) jw_g1(&w, &vk->ic[i]);
    jw_close(&w, ']');
    jw_close(&w, '}');
    return jw_finish(&w);
}

static int save_text(const char *path, char *text, const char *kind, char *err, size_t errlen) {
    if (text == NULL) return cuzk_errf(err, errlen, CUZK_ENOMEM, "%s: out of memory", kind);
    int rc = CUZK_OK;
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "%s: cannot create %s: %s", kind, path,
                       strerror(errno));
    } else {
        size_t n = strlen(text);
        int bad = fwrite(text, 1, n, f) != n;
        bad |= fclose(f) != 0;
        if (bad) {
            rc = cuzk_errf(err, errlen, CUZK_EIO, "%s: cannot write %s: %s", kind, path,
                           strerror(errno));
            remove(path);
        }
    }
    free(text);
    return rc;
}

int cuzk_snarkjs_proof_save(const char *path, const struct cuzk_snarkjs_proof *p, char *err,
                            size_t errlen) {
    return save_text(path, cuzk_snarkjs_proof_to_json(p), "proof", err, errlen);
}

int cuzk_snarkjs_public_save(const char *path, const cuzk_fr *v, size_t n, char *err,
                             size_t errlen) {
    return save_text(path, cuzk_snarkjs_public_to_json(v, n), "public", err, errlen);
}

int cuzk_snarkjs_vk_save(const char *path, const struct cuzk_snarkjs_vk *vk, char *err,
                         size_t errlen) {
    return save_text(path, cuzk_snarkjs_vk_to_json(vk), "vk", err, errlen);
}

/* ---- readers ----------------------------------------------------------------------------- */

struct jr {
    const char *kind; /* "proof", "public", "vk": the prefix of every message */
    char *err;
    size_t errlen;
};

/* Parses text (path == NULL) or a file into a JSON tree. */
static json_t *jr_load(struct jr *r, const char *text, size_t len, const char *path, int *rc) {
    json_error_t e;
    json_t *root = path ? json_load_file(path, JSON_REJECT_DUPLICATES, &e)
                        : json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (root == NULL) {
        if (path && json_error_code(&e) == json_error_cannot_open_file)
            *rc = cuzk_errf(r->err, r->errlen, CUZK_EIO, "%s: %s", r->kind, e.text);
        else
            *rc = cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                            "%s: not valid JSON (line %d, column %d): %s", r->kind, e.line,
                            e.column, e.text);
    }
    return root;
}

/* A decimal-string error from the field decoders: a value too large for the limbs is as
 * non-canonical as one just above the modulus. */
static int dec_code(int rc) { return rc == CUZK_ERANGE ? CUZK_ENONCANON : rc; }

/* Checks that a is an array of n_min..n elements and, when out is not NULL, that they are
 * strings, which it collects (out entries past the array's end are left untouched). */
static int jr_strings(struct jr *r, const char *name, json_t *a, size_t n_min, size_t n,
                      const char **out) {
    size_t len = json_is_array(a) ? json_array_size(a) : 0;
    if (!json_is_array(a) || len < n_min || len > n) {
        if (n_min == n)
            return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                             "%s: %s must be an array of %zu elements", r->kind, name, n);
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "%s: %s must be an array of %zu to %zu elements", r->kind, name, n_min, n);
    }
    for (size_t i = 0; out != NULL && i < len; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s))
            return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT, "%s: %s[%zu] is not a decimal string",
                             r->kind, name, i);
        out[i] = json_string_value(s);
    }
    return CUZK_OK;
}

static int jr_point_error(struct jr *r, const char *name, int rc) {
    rc = dec_code(rc);
    return cuzk_errf(r->err, r->errlen, rc, "%s: %s: %s", r->kind, name,
                     rc == CUZK_EFORMAT ? "a coordinate is not a decimal number"
                                        : cuzk_strerror(rc));
}

static int jr_g1(struct jr *r, cuzk_g1_affine *out, json_t *v, const char *name) {
    const char *xyz[3] = {NULL, NULL, "1"};
    int rc = jr_strings(r, name, v, 2, 3, xyz);
    if (rc) return rc;
    rc = cuzk_g1_from_dec(out, xyz);
    return rc ? jr_point_error(r, name, rc) : CUZK_OK;
}

static int jr_g2(struct jr *r, cuzk_g2_affine *out, json_t *v, const char *name) {
    const char *xyz[6] = {NULL, NULL, NULL, NULL, "1", "0"};
    int rc = jr_strings(r, name, v, 2, 3, NULL);
    if (rc) return rc;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char sub[48];
        snprintf(sub, sizeof sub, "%s[%zu]", name, i);
        if ((rc = jr_strings(r, sub, json_array_get(v, i), 2, 2, xyz + 2 * i))) return rc;
    }
    rc = cuzk_g2_from_dec(out, xyz);
    return rc ? jr_point_error(r, name, rc) : CUZK_OK;
}

static int jr_fp12(struct jr *r, cuzk_fp12 *out, json_t *v, const char *name) {
    cuzk_fp2 *c[6];
    cuzk_fp6 *h[2] = {&out->c0, &out->c1};
    for (int i = 0; i < 2; i++) {
        c[3 * i] = &h[i]->c0;
        c[3 * i + 1] = &h[i]->c1;
        c[3 * i + 2] = &h[i]->c2;
    }
    int rc = jr_strings(r, name, v, 2, 2, NULL);
    for (size_t i = 0; i < 2 && !rc; i++) {
        char sub[48];
        snprintf(sub, sizeof sub, "%s[%zu]", name, i);
        json_t *vi = json_array_get(v, i);
        rc = jr_strings(r, sub, vi, 3, 3, NULL);
        for (size_t j = 0; j < 3 && !rc; j++) {
            const char *d[2];
            snprintf(sub, sizeof sub, "%s[%zu][%zu]", name, i, j);
            if ((rc = jr_strings(r, sub, json_array_get(vi, j), 2, 2, d))) break;
            for (int k = 0; k < 2; k++) {
                rc = dec_code(cuzk_fp_from_dec(k ? &c[3 * i + j]->c1 : &c[3 * i + j]->c0, d[k]));
                if (rc)
                    return cuzk_errf(r->err, r->errlen, rc, "%s: %s[%d] %s", r->kind, sub, k,
                                     rc == CUZK_ENONCANON ? "is not below p"
                                                          : "is not a decimal number");
            }
        }
    }
    return rc;
}

/* Checks that member key of obj is the string want; an optional member may be absent. */
static int jr_check_string(struct jr *r, json_t *obj, const char *key, const char *want,
                           int required) {
    json_t *v = json_object_get(obj, key);
    if (v == NULL && !required) return CUZK_OK;
    if (v == NULL)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT, "%s: \"%s\" is missing", r->kind, key);
    if (!json_is_string(v))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT, "%s: \"%s\" must be a string", r->kind,
                         key);
    if (strcmp(json_string_value(v), want) != 0)
        return cuzk_errf(r->err, r->errlen, CUZK_EUNSUPPORTED,
                         "%s: %s \"%s\" is not supported (only \"%s\")", r->kind, key,
                         json_string_value(v), want);
    return CUZK_OK;
}

static json_t *jr_member(struct jr *r, json_t *obj, const char *key, int *rc) {
    json_t *v = json_object_get(obj, key);
    if (v == NULL)
        *rc = cuzk_errf(r->err, r->errlen, CUZK_EFORMAT, "%s: \"%s\" is missing", r->kind, key);
    return v;
}

static int jr_object(struct jr *r, json_t *root) {
    if (!json_is_object(root))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT, "%s: not a JSON object", r->kind);
    return CUZK_OK;
}

static int proof_from_json(struct cuzk_snarkjs_proof *p, struct jr *r, json_t *root) {
    int rc = jr_object(r, root);
    if (rc) return rc;
    json_t *a = jr_member(r, root, "pi_a", &rc);
    json_t *b = a ? jr_member(r, root, "pi_b", &rc) : NULL;
    json_t *c = b ? jr_member(r, root, "pi_c", &rc) : NULL;
    if (rc) return rc;
    if ((rc = jr_check_string(r, root, "protocol", "groth16", 0)) ||
        (rc = jr_check_string(r, root, "curve", "bls12381", 0)) ||
        (rc = jr_g1(r, &p->a, a, "pi_a")) || (rc = jr_g2(r, &p->b, b, "pi_b")) ||
        (rc = jr_g1(r, &p->c, c, "pi_c")))
        return rc;
    return CUZK_OK;
}

static int public_from_json(cuzk_fr **out, size_t *n, struct jr *r, json_t *root) {
    if (!json_is_array(root))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "public: not a JSON array of decimal strings");
    size_t len = json_array_size(root);
    cuzk_fr *v = NULL;
    if (len > 0 && (v = malloc(len * sizeof *v)) == NULL)
        return cuzk_errf(r->err, r->errlen, CUZK_ENOMEM, "public: out of memory");
    for (size_t i = 0; i < len; i++) {
        json_t *s = json_array_get(root, i);
        int rc = json_is_string(s) ? dec_code(cuzk_fr_from_dec(&v[i], json_string_value(s)))
                                   : CUZK_EFORMAT;
        if (rc) {
            free(v);
            return cuzk_errf(r->err, r->errlen, rc, "public: value %zu %s", i,
                             rc == CUZK_ENONCANON ? "is not below r" : "is not a decimal string");
        }
    }
    *out = v;
    *n = len;
    return CUZK_OK;
}

static int vk_from_json(struct cuzk_snarkjs_vk *vk, struct jr *r, json_t *root) {
    int rc = jr_object(r, root);
    if (rc) return rc;
    if ((rc = jr_check_string(r, root, "protocol", "groth16", 1)) ||
        (rc = jr_check_string(r, root, "curve", "bls12381", 1)))
        return rc;
    static const char *const keys[] = {"nPublic",    "vk_alpha_1",      "vk_beta_2", "vk_gamma_2",
                                       "vk_delta_2", "vk_alphabeta_12", "IC"};
    json_t *m[7];
    for (int i = 0; i < 7; i++)
        if ((m[i] = jr_member(r, root, keys[i], &rc)) == NULL) return rc;
    json_int_t np = json_is_integer(m[0]) ? json_integer_value(m[0]) : -1;
    size_t n_ic = json_is_array(m[6]) ? json_array_size(m[6]) : 0;
    if (np < 0 || np >= (json_int_t)UINT32_MAX)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "vk: nPublic must be a non-negative integer below 2^32 - 1");
    if (!json_is_array(m[6]) || n_ic != (size_t)np + 1)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "vk: IC must be an array of nPublic + 1 = %lld points, it has %zu",
                         (long long)np + 1, n_ic);
    vk->n_public = (uint32_t)np;
    if ((rc = jr_g1(r, &vk->alpha1, m[1], "vk_alpha_1")) ||
        (rc = jr_g2(r, &vk->beta2, m[2], "vk_beta_2")) ||
        (rc = jr_g2(r, &vk->gamma2, m[3], "vk_gamma_2")) ||
        (rc = jr_g2(r, &vk->delta2, m[4], "vk_delta_2")) ||
        (rc = jr_fp12(r, &vk->alphabeta, m[5], "vk_alphabeta_12")))
        return rc;
    vk->ic = malloc(n_ic * sizeof *vk->ic);
    if (vk->ic == NULL) return cuzk_errf(r->err, r->errlen, CUZK_ENOMEM, "vk: out of memory");
    for (size_t i = 0; i < n_ic; i++) {
        char name[32];
        snprintf(name, sizeof name, "IC[%zu]", i);
        if ((rc = jr_g1(r, &vk->ic[i], json_array_get(m[6], i), name))) return rc;
    }
    return CUZK_OK;
}

int cuzk_snarkjs_proof_parse(struct cuzk_snarkjs_proof *p, const char *json, size_t len, char *err,
                             size_t errlen) {
    struct jr r = {"proof", err, errlen};
    int rc = CUZK_OK;
    json_t *root = jr_load(&r, json, len, NULL, &rc);
    if (root) rc = proof_from_json(p, &r, root);
    json_decref(root);
    return rc;
}

int cuzk_snarkjs_proof_load(struct cuzk_snarkjs_proof *p, const char *path, char *err,
                            size_t errlen) {
    struct jr r = {"proof", err, errlen};
    int rc = CUZK_OK;
    json_t *root = jr_load(&r, NULL, 0, path, &rc);
    if (root) rc = proof_from_json(p, &r, root);
    json_decref(root);
    return rc;
}

int cuzk_snarkjs_public_parse(cuzk_fr **out, size_t *n, const char *json, size_t len, char *err,
                              size_t errlen) {
    struct jr r = {"public", err, errlen};
    int rc = CUZK_OK;
    *out = NULL;
    *n = 0;
    json_t *root = jr_load(&r, json, len, NULL, &rc);
    if (root) rc = public_from_json(out, n, &r, root);
    json_decref(root);
    return rc;
}

int cuzk_snarkjs_public_load(cuzk_fr **out, size_t *n, const char *path, char *err, size_t errlen) {
    struct jr r = {"public", err, errlen};
    int rc = CUZK_OK;
    *out = NULL;
    *n = 0;
    json_t *root = jr_load(&r, NULL, 0, path, &rc);
    if (root) rc = public_from_json(out, n, &r, root);
    json_decref(root);
    return rc;
}

int cuzk_snarkjs_vk_parse(struct cuzk_snarkjs_vk *vk, const char *json, size_t len, char *err,
                          size_t errlen) {
    struct jr r = {"vk", err, errlen};
    int rc = CUZK_OK;
    memset(vk, 0, sizeof *vk);
    json_t *root = jr_load(&r, json, len, NULL, &rc);
    if (root) rc = vk_from_json(vk, &r, root);
    json_decref(root);
    if (rc) cuzk_snarkjs_vk_free(vk);
    return rc;
}

int cuzk_snarkjs_vk_load(struct cuzk_snarkjs_vk *vk, const char *path, char *err, size_t errlen) {
    struct jr r = {"vk", err, errlen};
    int rc = CUZK_OK;
    memset(vk, 0, sizeof *vk);
    json_t *root = jr_load(&r, NULL, 0, path, &rc);
    if (root) rc = vk_from_json(vk, &r, root);
    json_decref(root);
    if (rc) cuzk_snarkjs_vk_free(vk);
    return rc;
}

void cuzk_snarkjs_vk_free(struct cuzk_snarkjs_vk *vk) {
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}
