/* Strict TOML-subset parser (see toml.h).
 *
 * DESIGN: one recursive-descent pass over the bytes, after a UTF-8 validation pass; every read
 * is guarded by the cursor bound, so no input can make it read outside the buffer. Values are
 * appended to a flat entry list with their full key path; the table structure TOML needs for
 * its redefinition rules is kept as a list of table records (defined by a header, created by
 * dotted keys, or implied as the parent of either). Configuration files hold tens of keys, so
 * the rule checks scan those lists linearly. Errors stop the parse at the first problem and
 * report its line and column. */
#include "server/toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

#define TOML_MAX_KEY_PARTS 32   /* deeper keys are rejected: no configuration needs them */
#define TOML_MAX_NUMBER_LEN 128 /* longer number tokens are rejected before conversion */

enum table_kind { TABLE_IMPLICIT, TABLE_HEADER, TABLE_DOTTED };

struct table_rec {
    char **parts;
    size_t n;
    enum table_kind kind;
};

struct parser {
    const char *start, *p, *end;
    int line;
    const char *line_start;
    char *err;
    size_t errlen;
    int rc; /* CUZK_OK until the first error */
    struct cuzk_toml *doc;
    size_t doc_cap;
    struct table_rec *tabs;
    size_t ntabs, tabs_cap;
    char **cur; /* the current table path (owned) */
    size_t ncur;
};

/* ---- errors and positions ---------------------------------------------------------------- */

static void position_of(const struct parser *ps, const char *at, int *line, int *col) {
    int l = 1, c = 1;
    for (const char *q = ps->start; q < at && q < ps->end; q++) {
        if (*q == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)*q & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

__attribute__((format(printf, 3, 4))) static int fail(struct parser *ps, const char *at,
                                                      const char *fmt, ...) {
    if (ps->rc != CUZK_OK) return ps->rc;
    ps->rc = CUZK_EFORMAT;
    if (ps->err && ps->errlen) {
        int line, col;
        position_of(ps, at, &line, &col);
        int k = snprintf(ps->err, ps->errlen, "%d:%d: ", line, col);
        if (k >= 0 && (size_t)k < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + k, ps->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return ps->rc;
}

static int oom(struct parser *ps) {
    if (ps->rc == CUZK_OK) {
        ps->rc = CUZK_ENOMEM;
        if (ps->err && ps->errlen) snprintf(ps->err, ps->errlen, "out of memory");
    }
    return ps->rc;
}

static int column_of(const struct parser *ps, const char *at) {
    int c = 1;
    for (const char *q = ps->line_start; q < at; q++)
        if (((unsigned char)*q & 0xC0) != 0x80) c++;
    return c;
}

/* Describes the byte at q for a message: the character itself when printable ASCII. */
static const char *describe(const struct parser *ps, const char *q, char buf[16]) {
    if (q >= ps->end) return "end of file";
    unsigned char c = (unsigned char)*q;
    if (c == '\n' || c == '\r') return "end of line";
    if (c >= 0x21 && c < 0x7F)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

/* ---- UTF-8 ------------------------------------------------------------------------------- */

/* Returns the first byte that does not start a valid UTF-8 sequence (no overlongs, no
 * surrogates, nothing above U+10FFFF), or NULL when all of [p, end) is valid. */
static const char *utf8_invalid(const char *p, const char *end) {
    const unsigned char *s = (const unsigned char *)p, *e = (const unsigned char *)end;
    while (s < e) {
        unsigned c = s[0];
        size_t n;
        uint32_t cp, min;
        if (c < 0x80) {
            s++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            n = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            n = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return (const char *)s;
        }
        if ((size_t)(e - s) < n) return (const char *)s;
        for (size_t i = 1; i < n; i++) {
            if ((s[i] & 0xC0) != 0x80) return (const char *)s;
            cp = cp << 6 | (s[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return (const char *)s;
        s += n;
    }
    return NULL;
}

/* ---- growable buffers -------------------------------------------------------------------- */

struct buf {
    char *d;
    size_t n, cap;
};

static int buf_put(struct parser *ps, struct buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1) cap *= 2;
        char *d = realloc(b->d, cap);
        if (!d) return oom(ps);
        b->d = d;
        b->cap = cap;
    }
    memcpy(b->d + b->n, s, n);
    b->n += n;
    b->d[b->n] = 0;
    return CUZK_OK;
}

static void free_parts(char **parts, size_t n) {
    if (!parts) return;
    for (size_t i = 0; i < n; i++) free(parts[i]);
    free(parts);
}

static void value_free(struct cuzk_toml_value *v) {
    if (v->type == CUZK_TOML_STRING) {
        free(v->u.s);
    } else if (v->type == CUZK_TOML_ARRAY) {
        for (size_t i = 0; i < v->u.arr.n; i++) value_free(&v->u.arr.items[i]);
        free(v->u.arr.items);
    }
    v->type = CUZK_TOML_BOOL; /* owns nothing now */
}

/* ---- lexical helpers --------------------------------------------------------------------- */

static int is_bare(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

static void skip_ws(struct parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t')) ps->p++;
}

/* Consumes a line end (LF or CRLF) if one is at the cursor. Returns 1 if it did. */
static int take_newline(struct parser *ps) {
    if (ps->p < ps->end && *ps->p == '\n') {
        ps->p++;
    } else if (ps->end - ps->p >= 2 && ps->p[0] == '\r' && ps->p[1] == '\n') {
        ps->p += 2;
    } else {
        return 0;
    }
    ps->line++;
    ps->line_start = ps->p;
    return 1;
}

/* Consumes a comment up to (not including) its line end. */
static int skip_comment(struct parser *ps) {
    ps->p++; /* '#' */
    while (ps->p < ps->end && *ps->p != '\n') {
        unsigned char c = (unsigned char)*ps->p;
        if (c == '\r' && ps->end - ps->p >= 2 && ps->p[1] == '\n') break;
        if (is_control(c)) return fail(ps, ps->p, "control character 0x%02x in a comment", c);
        ps->p++;
    }
    return CUZK_OK;
}

/* After a header or key/value pair: optional blanks and comment, then a line end or the end. */
static int end_of_line(struct parser *ps) {
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '#' && skip_comment(ps)) return ps->rc;
    if (ps->p == ps->end || take_newline(ps)) return CUZK_OK;
    char b[16];
    return fail(ps, ps->p, "expected the end of the line, found %s", describe(ps, ps->p, b));
}

/* Blanks, comments and line ends (inside arrays). */
static int skip_ws_lines(struct parser *ps) {
    for (;;) {
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == '#') {
            if (skip_comment(ps)) return ps->rc;
        } else if (!take_newline(ps)) {
            return CUZK_OK;
        }
    }
}

/* ---- strings ----------------------------------------------------------------------------- */

static int put_utf8(struct parser *ps, struct buf *b, uint32_t cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    return buf_put(ps, b, u, n);
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int parse_escape(struct parser *ps, struct buf *b) {
    const char *at = ps->p; /* the backslash */
    ps->p++;
    if (ps->p == ps->end) return fail(ps, at, "unterminated string");
    char c = *ps->p++;
    switch (c) {
    case 'b': return buf_put(ps, b, "\b", 1);
    case 't': return buf_put(ps, b, "\t", 1);
    case 'n': return buf_put(ps, b, "\n", 1);
    case 'f': return buf_put(ps, b, "\f", 1);
    case 'r': return buf_put(ps, b, "\r", 1);
    case '"': return buf_put(ps, b, "\"", 1);
    case '\\': return buf_put(ps, b, "\\", 1);
    case 'u':
    case 'U': {
        int nd = c == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int i = 0; i < nd; i++) {
            int h = ps->p < ps->end ? hex_digit(*ps->p) : -1;
            if (h < 0) return fail(ps, at, "\\%c needs %d hexadecimal digits", c, nd);
            cp = cp << 4 | (uint32_t)h;
            ps->p++;
        }
        if (cp == 0) return fail(ps, at, "a NUL character (\\u0000) is not supported");
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(ps, at, "\\%c%0*X is not a Unicode scalar value", c, nd, (unsigned)cp);
        return put_utf8(ps, b, cp);
    }
    default: {
        char d[16];
        return fail(ps, at, "invalid escape: backslash followed by %s", describe(ps, at + 1, d));
    }
    }
}

/* Parses a single-line basic ("...") or literal ('...') string at the cursor into *out. */
static int parse_string(struct parser *ps, char **out) {
    const char *open = ps->p;
    char q = *ps->p;
    if (ps->end - ps->p >= 3 && ps->p[1] == q && ps->p[2] == q)
        return fail(ps, open, "multi-line strings are not supported");
    ps->p++;
    struct buf b = {0};
    if (buf_put(ps, &b, "", 0)) goto out;
    for (;;) {
        if (ps->p == ps->end || *ps->p == '\n' || *ps->p == '\r') {
            fail(ps, open, "unterminated string");
            goto out;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == (unsigned char)q) {
            ps->p++;
            *out = b.d;
            return CUZK_OK;
        }
        if (q == '"' && c == '\\') {
            if (parse_escape(ps, &b)) goto out;
            continue;
        }
        if (is_control(c)) {
            fail(ps, ps->p, "control character 0x%02x in a string", c);
            goto out;
        }
        /* copy a run of ordinary bytes at once */
        const char *s = ps->p;
        ps->p++;
        while (ps->p < ps->end && *ps->p != q && !(q == '"' && *ps->p == '\\') &&
               !is_control((unsigned char)*ps->p))
            ps->p++;
        if (buf_put(ps, &b, s, (size_t)(ps->p - s))) goto out;
    }
out:
    free(b.d);
    return ps->rc;
}

/* ---- keys -------------------------------------------------------------------------------- */

/* Parses a possibly dotted key at the cursor into a new array of components. */
static int parse_key(struct parser *ps, char ***parts_out, size_t *n_out) {
    char **parts = NULL;
    size_t n = 0;
    for (;;) {
        skip_ws(ps);
        if (n == TOML_MAX_KEY_PARTS) {
            fail(ps, ps->p, "a key may have at most %d components", TOML_MAX_KEY_PARTS);
            goto bad;
        }
        char **np = realloc(parts, (n + 1) * sizeof *parts);
        if (!np) {
            oom(ps);
            goto bad;
        }
        parts = np;
        if (ps->p < ps->end && (*ps->p == '"' || *ps->p == '\'')) {
            if (parse_string(ps, &parts[n])) goto bad;
        } else if (ps->p < ps->end && is_bare((unsigned char)*ps->p)) {
            const char *s = ps->p;
            while (ps->p < ps->end && is_bare((unsigned char)*ps->p)) ps->p++;
            size_t len = (size_t)(ps->p - s);
            parts[n] = malloc(len + 1);
            if (!parts[n]) {
                oom(ps);
                goto bad;
            }
            memcpy(parts[n], s, len);
            parts[n][len] = 0;
        } else {
            char b[16];
            fail(ps, ps->p, "expected a key, found %s", describe(ps, ps->p, b));
            goto bad;
        }
        n++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == '.') {
            ps->p++;
            continue;
        }
        *parts_out = parts;
        *n_out = n;
        return CUZK_OK;
    }
bad:
    free_parts(parts, n);
    return ps->rc;
}

/* The printable form of a key path: bare components as they are, others quoted. */
static char *path_name(struct parser *ps, char *const *parts, size_t n) {
    struct buf b = {0};
    if (buf_put(ps, &b, "", 0)) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i && buf_put(ps, &b, ".", 1)) goto bad;
        const char *s = parts[i];
        int bare = *s != 0;
        for (const char *q = s; *q; q++) bare &= is_bare((unsigned char)*q);
        if (bare) {
            if (buf_put(ps, &b, s, strlen(s))) goto bad;
            continue;
        }
        if (buf_put(ps, &b, "\"", 1)) goto bad;
        for (const char *q = s; *q; q++) {
            unsigned char c = (unsigned char)*q;
            char e[8];
            if (c == '"' || c == '\\') {
                e[0] = '\\', e[1] = (char)c;
                if (buf_put(ps, &b, e, 2)) goto bad;
            } else if (is_control(c) || c == '\t') {
                snprintf(e, sizeof e, "\\u%04X", c);
                if (buf_put(ps, &b, e, 6)) goto bad;
            } else if (buf_put(ps, &b, q, 1)) {
                goto bad;
            }
        }
        if (buf_put(ps, &b, "\"", 1)) goto bad;
    }
    return b.d;
bad:
    free(b.d);
    return NULL;
}

/* ---- numbers and other scalars ----------------------------------------------------------- */

static int is_digit_in(char c, int base) {
    if (base == 16) return hex_digit(c) >= 0;
    if (base == 8) return c >= '0' && c <= '7';
    if (base == 2) return c == '0' || c == '1';
    return c >= '0' && c <= '9';
}

/* Checks s[0..n) is digits of `base` with underscores only between digits; appends the digits
 * (no underscores) to out. Returns the number of characters consumed (0 if none or invalid
 * underscore placement is found: *bad is set then). */
static size_t digits(const char *s, size_t n, int base, char *out, size_t *outn, int *bad) {
    size_t i = 0;
    while (i < n) {
        if (is_digit_in(s[i], base)) {
            out[(*outn)++] = s[i++];
        } else if (s[i] == '_') {
            if (i == 0 || i + 1 >= n || !is_digit_in(s[i + 1], base)) {
                *bad = 1;
                return i;
            }
            i++;
        } else {
            break;
        }
    }
    return i;
}

static int looks_like_date(const char *s, size_t n) {
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9') d++;
    return (d == 4 && n > 4 && s[4] == '-') || (d == 2 && n > 2 && s[2] == ':');
}

static int parse_number(struct parser *ps, struct cuzk_toml_value *v) {
    const char *at = ps->p;
    while (ps->p < ps->end &&
           (is_bare((unsigned char)*ps->p) || *ps->p == '+' || *ps->p == '.' || *ps->p == ':'))
        ps->p++;
    size_t n = (size_t)(ps->p - at);
    if (looks_like_date(at, n)) return fail(ps, at, "dates and times are not supported");
    if (n > TOML_MAX_NUMBER_LEN) return fail(ps, at, "number too long");
    const char *s = at;
    int neg = 0, sign = 0;
    if (n && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        sign = 1;
        s++, n--;
    }
    if ((n == 3 && !memcmp(s, "inf", 3)) || (n == 3 && !memcmp(s, "nan", 3))) {
        v->type = CUZK_TOML_FLOAT;
        v->u.f = s[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
        return CUZK_OK;
    }
    char clean[TOML_MAX_NUMBER_LEN + 2];
    size_t cn = 0;
    int bad = 0;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
        int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
        if (sign) return fail(ps, at, "hexadecimal, octal and binary integers take no sign");
        size_t k = digits(s + 2, n - 2, base, clean, &cn, &bad);
        if (bad || k == 0 || k != n - 2) return fail(ps, at, "invalid number");
        uint64_t x = 0;
        for (size_t i = 0; i < cn; i++) {
            uint64_t d = (uint64_t)hex_digit(clean[i]);
            if (x > ((uint64_t)INT64_MAX - d) / (uint64_t)base)
                return fail(ps, at, "integer out of range (64-bit signed)");
            x = x * (uint64_t)base + d;
        }
        v->type = CUZK_TOML_INT;
        v->u.i = (int64_t)x;
        return CUZK_OK;
    }
    if (neg) clean[cn++] = '-';
    size_t int_start = cn;
    size_t k = digits(s, n, 10, clean, &cn, &bad);
    if (bad || k == 0) return fail(ps, at, "invalid number");
    if (cn - int_start > 1 && clean[int_start] == '0')
        return fail(ps, at, "leading zeros are not allowed");
    size_t i = k;
    int is_float = 0;
    if (i < n && s[i] == '.') {
        is_float = 1;
        clean[cn++] = '.';
        i++;
        size_t f = digits(s + i, n - i, 10, clean, &cn, &bad);
        if (bad || f == 0) return fail(ps, at, "a decimal point needs digits on both sides");
        i += f;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        is_float = 1;
        clean[cn++] = 'e';
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) clean[cn++] = s[i++];
        size_t e = digits(s + i, n - i, 10, clean, &cn, &bad);
        if (bad || e == 0) return fail(ps, at, "an exponent needs digits");
        i += e;
    }
    if (i != n) return fail(ps, at, "invalid number");
    clean[cn] = 0;
    if (is_float) {
        errno = 0;
        double f = strtod(clean, NULL);
        if (isinf(f)) return fail(ps, at, "float out of range");
        v->type = CUZK_TOML_FLOAT;
        v->u.f = f;
        return CUZK_OK;
    }
    uint64_t x = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t j = int_start; j < cn; j++) {
        uint64_t d = (uint64_t)(clean[j] - '0');
        if (x > (lim - d) / 10) return fail(ps, at, "integer out of range (64-bit signed)");
        x = x * 10 + d;
    }
    v->type = CUZK_TOML_INT;
    v->u.i = neg ? (int64_t)(0 - x) : (int64_t)x;
    return CUZK_OK;
}

/* A scalar token must be followed by a delimiter (blank, line end, comment, ',' or ']'). */
static int expect_delimiter(struct parser *ps, const char *at) {
    if (ps->p == ps->end) return CUZK_OK;
    char c = *ps->p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || c == ',' || c == ']')
        return CUZK_OK;
    return fail(ps, at, "invalid value");
}

static int parse_value(struct parser *ps, struct cuzk_toml_value *v, int in_array);

static int parse_array(struct parser *ps, struct cuzk_toml_value *v) {
    const char *open = ps->p;
    ps->p++;
    v->type = CUZK_TOML_ARRAY;
    v->u.arr.items = NULL;
    v->u.arr.n = 0;
    size_t cap = 0;
    for (;;) {
        if (skip_ws_lines(ps)) return ps->rc;
        if (ps->p == ps->end) return fail(ps, open, "unterminated array");
        if (*ps->p == ']') {
            ps->p++;
            return CUZK_OK;
        }
        if (v->u.arr.n == cap) {
            cap = cap ? 2 * cap : 4;
            struct cuzk_toml_value *ni = realloc(v->u.arr.items, cap * sizeof *ni);
            if (!ni) return oom(ps);
            v->u.arr.items = ni;
        }
        struct cuzk_toml_value *item = &v->u.arr.items[v->u.arr.n];
        item->type = CUZK_TOML_BOOL;
        if (parse_value(ps, item, 1)) {
            value_free(item);
            return ps->rc;
        }
        v->u.arr.n++;
        if (skip_ws_lines(ps)) return ps->rc;
        if (ps->p == ps->end) return fail(ps, open, "unterminated array");
        if (*ps->p == ',') {
            ps->p++;
        } else if (*ps->p != ']') {
            char b[16];
            return fail(ps, ps->p, "expected ',' or ']' in an array, found %s",
                        describe(ps, ps->p, b));
        }
    }
}

static int parse_value(struct parser *ps, struct cuzk_toml_value *v, int in_array) {
    const char *at = ps->p;
    v->line = ps->line;
    v->col = column_of(ps, at);
    v->type = CUZK_TOML_BOOL; /* owns nothing until a string or array is stored */
    if (ps->p == ps->end || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '#')
        return fail(ps, at, "missing value");
    char c = *ps->p;
    if (c == '"' || c == '\'') {
        char *s = NULL;
        if (parse_string(ps, &s)) return ps->rc;
        v->type = CUZK_TOML_STRING;
        v->u.s = s;
        return expect_delimiter(ps, at);
    }
    if (c == '[') {
        if (in_array) return fail(ps, at, "nested arrays are not supported");
        return parse_array(ps, v);
    }
    if (c == '{') return fail(ps, at, "inline tables are not supported");
    if (ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
        ps->p += 4;
        v->u.b = true;
        return expect_delimiter(ps, at);
    }
    if (ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
        ps->p += 5;
        v->u.b = false;
        return expect_delimiter(ps, at);
    }
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'i' || c == 'n') {
        if (parse_number(ps, v)) return ps->rc;
        return expect_delimiter(ps, at);
    }
    char b[16];
    return fail(ps, at, "expected a value, found %s", describe(ps, at, b));
}

/* ---- table structure rules --------------------------------------------------------------- */

static int path_eq(char *const *a, size_t na, char *const *b, size_t nb) {
    if (na != nb) return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i])) return 0;
    return 1;
}

/* 1 if a is a strict prefix of b. */
static int path_prefix(char *const *a, size_t na, char *const *b, size_t nb) {
    return na < nb && path_eq(a, na, b, na);
}

static struct table_rec *table_find(struct parser *ps, char *const *parts, size_t n) {
    for (size_t i = 0; i < ps->ntabs; i++)
        if (path_eq(ps->tabs[i].parts, ps->tabs[i].n, parts, n)) return &ps->tabs[i];
    return NULL;
}

static char **path_copy(char *const *parts, size_t n) {
    char **c = calloc(n ? n : 1, sizeof *c);
    if (!c) return NULL;
    for (size_t i = 0; i < n; i++) {
        c[i] = strdup(parts[i]);
        if (!c[i]) {
            free_parts(c, i);
            return NULL;
        }
    }
    return c;
}

static int table_add(struct parser *ps, char *const *parts, size_t n, enum table_kind kind) {
    if (ps->ntabs == ps->tabs_cap) {
        size_t cap = ps->tabs_cap ? 2 * ps->tabs_cap : 8;
        struct table_rec *t = realloc(ps->tabs, cap * sizeof *t);
        if (!t) return oom(ps);
        ps->tabs = t;
        ps->tabs_cap = cap;
    }
    char **c = path_copy(parts, n);
    if (!c) return oom(ps);
    ps->tabs[ps->ntabs++] = (struct table_rec){c, n, kind};
    return CUZK_OK;
}

/* Reports path[0..n) by name in a message. */
static int fail_path(struct parser *ps, const char *at, const char *fmt, char *const *parts,
                     size_t n) {
    char *name = path_name(ps, parts, n);
    if (!name) return ps->rc;
    fail(ps, at, fmt, name);
    free(name);
    return ps->rc;
}

/* A value (entry) at or above path makes path unusable as a table. */
static int check_not_value(struct parser *ps, const char *at, char *const *parts, size_t n) {
    for (size_t i = 0; i < ps->doc->n; i++) {
        const struct cuzk_toml_entry *e = &ps->doc->entries[i];
        if (path_eq(e->parts, e->nparts, parts, n) || path_prefix(e->parts, e->nparts, parts, n))
            return fail_path(ps, at, "key %s already has a value; it cannot be a table", e->parts,
                             e->nparts);
    }
    return CUZK_OK;
}

static int define_header(struct parser *ps, const char *at, char **parts, size_t n) {
    if (check_not_value(ps, at, parts, n)) return ps->rc;
    for (size_t k = 1; k < n; k++) {
        struct table_rec *t = table_find(ps, parts, k);
        if (t && t->kind == TABLE_DOTTED)
            return fail_path(
                ps, at, "table %s was defined by dotted keys; a header cannot extend it", parts, k);
        if (!t && table_add(ps, parts, k, TABLE_IMPLICIT)) return ps->rc;
    }
    struct table_rec *t = table_find(ps, parts, n);
    if (t && t->kind == TABLE_HEADER)
        return fail_path(ps, at, "table %s is defined twice", parts, n);
    if (t && t->kind == TABLE_DOTTED)
        return fail_path(ps, at, "table %s was defined by dotted keys; it cannot have a header",
                         parts, n);
    if (t)
        t->kind = TABLE_HEADER;
    else if (table_add(ps, parts, n, TABLE_HEADER))
        return ps->rc;
    free_parts(ps->cur, ps->ncur);
    ps->cur = parts;
    ps->ncur = n;
    return CUZK_OK;
}

/* Checks and records the key path `full` (the current table followed by a key of nk parts). */
static int define_key(struct parser *ps, const char *at, char **full, size_t n, size_t nk) {
    for (size_t i = 0; i < ps->doc->n; i++) {
        const struct cuzk_toml_entry *e = &ps->doc->entries[i];
        if (path_eq(full, n, e->parts, e->nparts))
            return fail_path(ps, at, "duplicate key %s", full, n);
    }
    if (check_not_value(ps, at, full, n)) return ps->rc;
    for (size_t i = 0; i < ps->doc->n; i++) {
        const struct cuzk_toml_entry *e = &ps->doc->entries[i];
        if (path_prefix(full, n, e->parts, e->nparts))
            return fail_path(ps, at, "key %s is already a table", full, n);
    }
    if (table_find(ps, full, n)) return fail_path(ps, at, "key %s is already a table", full, n);
    for (size_t k = n - nk + 1; k < n; k++) {
        struct table_rec *t = table_find(ps, full, k);
        if (t && t->kind != TABLE_DOTTED)
            return fail_path(ps, at, "table %s is defined elsewhere; dotted keys cannot extend it",
                             full, k);
        if (!t && table_add(ps, full, k, TABLE_DOTTED)) return ps->rc;
    }
    return CUZK_OK;
}

/* ---- statements -------------------------------------------------------------------------- */

static int parse_header(struct parser *ps) {
    const char *at = ps->p;
    ps->p++;
    if (ps->p < ps->end && *ps->p == '[') return fail(ps, at, "arrays of tables are not supported");
    char **parts;
    size_t n;
    if (parse_key(ps, &parts, &n)) return ps->rc;
    if (ps->p == ps->end || *ps->p != ']') {
        free_parts(parts, n);
        char b[16];
        return fail(ps, ps->p, "expected ']' after the table name, found %s",
                    describe(ps, ps->p, b));
    }
    ps->p++;
    if (define_header(ps, at, parts, n)) free_parts(parts, n);
    return ps->rc;
}

static int parse_keyval(struct parser *ps) {
    const char *at = ps->p;
    int line = ps->line, col = column_of(ps, at);
    char **kparts = NULL, **full = NULL, *name = NULL;
    size_t nk = 0, n = 0;
    struct cuzk_toml_value v = {.type = CUZK_TOML_BOOL};
    if (parse_key(ps, &kparts, &nk)) return ps->rc;
    if (ps->ncur + nk > TOML_MAX_KEY_PARTS) { /* the limit is on the path, table included */
        fail(ps, at, "a key may have at most %d components", TOML_MAX_KEY_PARTS);
        goto out;
    }
    if (ps->p == ps->end || *ps->p != '=') {
        char b[16];
        fail(ps, ps->p, "expected '=' after the key, found %s", describe(ps, ps->p, b));
        goto out;
    }
    ps->p++;
    skip_ws(ps);
    if (parse_value(ps, &v, 0)) goto out;
    n = ps->ncur + nk;
    full = calloc(n, sizeof *full);
    if (!full) {
        oom(ps);
        goto out;
    }
    for (size_t i = 0; i < ps->ncur; i++) {
        full[i] = strdup(ps->cur[i]);
        if (!full[i]) {
            oom(ps);
            goto out;
        }
    }
    for (size_t i = 0; i < nk; i++) full[ps->ncur + i] = kparts[i], kparts[i] = NULL;
    if (define_key(ps, at, full, n, nk)) goto out;
    name = path_name(ps, full, n);
    if (!name) goto out;
    if (ps->doc->n == ps->doc_cap) {
        size_t cap = ps->doc_cap ? 2 * ps->doc_cap : 16;
        struct cuzk_toml_entry *e = realloc(ps->doc->entries, cap * sizeof *e);
        if (!e) {
            oom(ps);
            goto out;
        }
        ps->doc->entries = e;
        ps->doc_cap = cap;
    }
    ps->doc->entries[ps->doc->n++] = (struct cuzk_toml_entry){full, n, name, line, col, v};
    full = NULL, name = NULL;
    v.type = CUZK_TOML_BOOL;
out:
    free_parts(kparts, nk);
    free_parts(full, n);
    free(name);
    value_free(&v);
    return ps->rc;
}

/* ---- public API -------------------------------------------------------------------------- */

int cuzk_toml_parse(const char *text, size_t len, struct cuzk_toml **out, char *err,
                    size_t errlen) {
    *out = NULL;
    if (err && errlen) err[0] = 0;
    struct parser ps = {.start = text,
                        .p = text,
                        .end = text + len,
                        .line = 1,
                        .err = err,
                        .errlen = errlen,
                        .rc = CUZK_OK};
    ps.line_start = text;
    ps.doc = calloc(1, sizeof *ps.doc);
    if (!ps.doc) return oom(&ps);
    const char *bad = utf8_invalid(text, text + len);
    if (bad) {
        fail(&ps, bad, "invalid UTF-8");
    } else {
        if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) ps.p += 3, ps.line_start = ps.p;
        while (ps.rc == CUZK_OK) {
            skip_ws(&ps);
            if (ps.p == ps.end) break;
            char c = *ps.p;
            if (c == '\n' || c == '\r') {
                if (!take_newline(&ps)) fail(&ps, ps.p, "carriage return without a line feed");
                continue;
            }
            if (c == '#')
                skip_comment(&ps);
            else if (c == '[')
                parse_header(&ps);
            else
                parse_keyval(&ps);
            if (ps.rc == CUZK_OK) end_of_line(&ps);
        }
    }
    for (size_t i = 0; i < ps.ntabs; i++) free_parts(ps.tabs[i].parts, ps.tabs[i].n);
    free(ps.tabs);
    free_parts(ps.cur, ps.ncur);
    if (ps.rc != CUZK_OK) {
        cuzk_toml_free(ps.doc);
        return ps.rc;
    }
    *out = ps.doc;
    return CUZK_OK;
}

void cuzk_toml_free(struct cuzk_toml *doc) {
    if (!doc) return;
    for (size_t i = 0; i < doc->n; i++) {
        free_parts(doc->entries[i].parts, doc->entries[i].nparts);
        free(doc->entries[i].name);
        value_free(&doc->entries[i].val);
    }
    free(doc->entries);
    free(doc);
}

int cuzk_toml_key_is(const struct cuzk_toml_entry *e, const char *key) {
    const char *k = key;
    for (size_t j = 0; j < e->nparts; j++) {
        size_t l = strlen(e->parts[j]);
        if (strchr(e->parts[j], '.') || strncmp(k, e->parts[j], l)) return 0;
        k += l;
        if (j + 1 < e->nparts) {
            if (*k != '.') return 0;
            k++;
        }
    }
    return *k == 0;
}

const struct cuzk_toml_entry *cuzk_toml_find(const struct cuzk_toml *doc, const char *key) {
    for (size_t i = 0; i < doc->n; i++)
        if (cuzk_toml_key_is(&doc->entries[i], key)) return &doc->entries[i];
    return NULL;
}

const char *cuzk_toml_type_name(enum cuzk_toml_type type) {
    switch (type) {
    case CUZK_TOML_STRING: return "string";
    case CUZK_TOML_INT: return "integer";
    case CUZK_TOML_FLOAT: return "float";
    case CUZK_TOML_BOOL: return "boolean";
    case CUZK_TOML_ARRAY: return "array";
    }
    return "?";
}

void cuzk_toml_write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7F)
            fprintf(f, "\\u%04X", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}
