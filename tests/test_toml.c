/* The strict TOML-subset parser: every accepted construct gives the right values; every
 * rejected construct gives CUZK_EFORMAT with the right line:column and a reason; random and
 * mutated inputs never crash (the libFuzzer harness, tests/fuzz/fuzz_toml.c, goes further). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "server/toml.h"
#include "test_util.h"

static struct cuzk_toml *parse_ok(const char *text) {
    struct cuzk_toml *doc = NULL;
    char err[256];
    int rc = cuzk_toml_parse(text, strlen(text), &doc, err, sizeof err);
    if (rc != CUZK_OK) fprintf(stderr, "unexpected error: %s\n  in: %s\n", err, text);
    CHECK(rc == CUZK_OK);
    return doc;
}

/* The text must be rejected with an error starting "line:col:" and containing `reason`. */
static void rejects(const char *text, int line, int col, const char *reason) {
    struct cuzk_toml *doc = (struct cuzk_toml *)1;
    char err[256], want[32];
    int rc = cuzk_toml_parse(text, strlen(text), &doc, err, sizeof err);
    snprintf(want, sizeof want, "%d:%d: ", line, col);
    int ok = rc == CUZK_EFORMAT && doc == NULL && !strncmp(err, want, strlen(want)) &&
             strstr(err, reason) != NULL;
    if (!ok)
        fprintf(stderr, "input %s\n  got rc=%d err=\"%s\", want %s...%s\n", text, rc, err, want,
                reason);
    CHECK(ok);
    if (rc == CUZK_OK) cuzk_toml_free(doc);
}

static const struct cuzk_toml_value *get(const struct cuzk_toml *doc, const char *key) {
    const struct cuzk_toml_entry *e = doc ? cuzk_toml_find(doc, key) : NULL;
    CHECK(e != NULL);
    return e ? &e->val : NULL;
}

static int is_int(const struct cuzk_toml *doc, const char *key, int64_t want) {
    const struct cuzk_toml_value *v = get(doc, key);
    return v && v->type == CUZK_TOML_INT && v->u.i == want;
}

static int is_str(const struct cuzk_toml *doc, const char *key, const char *want) {
    const struct cuzk_toml_value *v = get(doc, key);
    return v && v->type == CUZK_TOML_STRING && !strcmp(v->u.s, want);
}

static void test_values(void) {
    struct cuzk_toml *doc = parse_ok("# a comment\n"
                                     "title = \"cuzk\"  # trailing comment\n"
                                     "lit = 'C:\\path\\x'\n"
                                     "esc = \"a\\tb\\n\\\"q\\\" \\\\ \\u00e9 \\U0001F600\"\n"
                                     "i1 = 42\n"
                                     "i2 = -17\n"
                                     "i3 = +1_000_000\n"
                                     "i4 = 0xDEAD_beef\n"
                                     "i5 = 0o755\n"
                                     "i6 = 0b1010\n"
                                     "i7 = 9223372036854775807\n"
                                     "i8 = -9223372036854775808\n"
                                     "f1 = 3.5\n"
                                     "f2 = -1e-3\n"
                                     "f3 = 6.02E+23\n"
                                     "f4 = inf\n"
                                     "f5 = -inf\n"
                                     "f6 = nan\n"
                                     "b1 = true\n"
                                     "b2 = false\n"
                                     "empty = \"\"\n"
                                     "utf = \"\xc3\xa9t\xc3\xa9\"\n");
    CHECK(doc && doc->n == 21);
    CHECK(is_str(doc, "title", "cuzk"));
    CHECK(is_str(doc, "lit", "C:\\path\\x"));
    CHECK(is_str(doc, "esc", "a\tb\n\"q\" \\ \xc3\xa9 \xf0\x9f\x98\x80"));
    CHECK(is_int(doc, "i1", 42));
    CHECK(is_int(doc, "i2", -17));
    CHECK(is_int(doc, "i3", 1000000));
    CHECK(is_int(doc, "i4", 0xdeadbeef));
    CHECK(is_int(doc, "i5", 0755));
    CHECK(is_int(doc, "i6", 10));
    CHECK(is_int(doc, "i7", INT64_MAX));
    CHECK(is_int(doc, "i8", INT64_MIN));
    const struct cuzk_toml_value *v;
    CHECK((v = get(doc, "f1")) && v->type == CUZK_TOML_FLOAT && v->u.f == 3.5);
    CHECK((v = get(doc, "f2")) && v->type == CUZK_TOML_FLOAT && v->u.f == -1e-3);
    CHECK((v = get(doc, "f3")) && v->type == CUZK_TOML_FLOAT && v->u.f == 6.02e23);
    CHECK((v = get(doc, "f4")) && v->type == CUZK_TOML_FLOAT && isinf(v->u.f) && v->u.f > 0);
    CHECK((v = get(doc, "f5")) && v->type == CUZK_TOML_FLOAT && isinf(v->u.f) && v->u.f < 0);
    CHECK((v = get(doc, "f6")) && v->type == CUZK_TOML_FLOAT && isnan(v->u.f));
    CHECK((v = get(doc, "b1")) && v->type == CUZK_TOML_BOOL && v->u.b);
    CHECK((v = get(doc, "b2")) && v->type == CUZK_TOML_BOOL && !v->u.b);
    CHECK(is_str(doc, "empty", ""));
    CHECK(is_str(doc, "utf", "\xc3\xa9t\xc3\xa9"));
    /* positions: line and column (in characters) of the key and of the value */
    const struct cuzk_toml_entry *e = cuzk_toml_find(doc, "title");
    CHECK(e && e->line == 2 && e->col == 1 && e->val.line == 2 && e->val.col == 9);
    cuzk_toml_free(doc);
}

static void test_tables_and_keys(void) {
    struct cuzk_toml *doc = parse_ok("top = 1\n"
                                     "[daemon]\n"
                                     "listen = \"unix:///tmp/x.sock\"\n"
                                     "  [ memory . sub ]  \n"
                                     "a.b = 2\n"
                                     "\"quoted key\" = 3\n"
                                     "'lit.key' = 4\n"
                                     "[memory]\n"
                                     "total = \"auto\"\r\n"
                                     "bare-key_1 = 5\n");
    CHECK(doc && doc->n == 7);
    CHECK(is_int(doc, "top", 1));
    CHECK(is_str(doc, "daemon.listen", "unix:///tmp/x.sock"));
    CHECK(is_int(doc, "memory.sub.a.b", 2));
    CHECK(is_str(doc, "memory.total", "auto"));
    CHECK(is_int(doc, "memory.bare-key_1", 5));
    /* a quoted component holding a dot is not the dotted path */
    CHECK(cuzk_toml_find(doc, "memory.sub.lit.key") == NULL);
    const struct cuzk_toml_entry *e = doc ? &doc->entries[4] : NULL;
    CHECK(e && e->nparts == 3 && !strcmp(e->parts[2], "lit.key"));
    CHECK(e && !strcmp(e->name, "memory.sub.\"lit.key\""));
    CHECK(doc && !strcmp(doc->entries[3].name, "memory.sub.\"quoted key\""));
    cuzk_toml_free(doc);

    /* a header may define a table that a deeper header implied */
    doc = parse_ok("[a.b]\nx = 1\n[a]\ny = 2\n");
    CHECK(is_int(doc, "a.b.x", 1) && is_int(doc, "a.y", 2));
    cuzk_toml_free(doc);
    /* dotted keys may extend a dotted table within its own table */
    doc = parse_ok("a.b = 1\na.c = 2\n");
    CHECK(is_int(doc, "a.b", 1) && is_int(doc, "a.c", 2));
    cuzk_toml_free(doc);
    /* empty document, only comments, a byte order mark, no final newline */
    cuzk_toml_free(parse_ok(""));
    cuzk_toml_free(parse_ok("# only\n\n   # comments\n"));
    doc = parse_ok("\xEF\xBB\xBFk = 1");
    CHECK(is_int(doc, "k", 1));
    cuzk_toml_free(doc);
}

static void test_arrays(void) {
    struct cuzk_toml *doc = parse_ok("a = [1, 2, 3]\n"
                                     "b = []\n"
                                     "c = [ \"x\", 'y', ]\n"
                                     "d = [\n"
                                     "  0,  # first\n"
                                     "  1\n"
                                     "  , 2 # comments and newlines anywhere\n"
                                     "]\n"
                                     "e = [1, \"mixed\", true, 2.5]\n");
    const struct cuzk_toml_value *v = get(doc, "a");
    CHECK(v && v->type == CUZK_TOML_ARRAY && v->u.arr.n == 3 && v->u.arr.items[2].u.i == 3);
    CHECK((v = get(doc, "b")) && v->type == CUZK_TOML_ARRAY && v->u.arr.n == 0);
    CHECK((v = get(doc, "c")) && v->u.arr.n == 2 && !strcmp(v->u.arr.items[1].u.s, "y"));
    CHECK((v = get(doc, "d")) && v->u.arr.n == 3 && v->u.arr.items[0].u.i == 0);
    CHECK(v && v->u.arr.items[2].line == 7 && v->u.arr.items[2].col == 5);
    CHECK((v = get(doc, "e")) && v->u.arr.n == 4 && v->u.arr.items[1].type == CUZK_TOML_STRING);
    cuzk_toml_free(doc);
}

static void test_rejects(void) {
    /* unsupported constructs */
    rejects("s = \"\"\"multi\"\"\"\n", 1, 5, "multi-line strings are not supported");
    rejects("s = '''multi'''\n", 1, 5, "multi-line strings are not supported");
    rejects("t = { a = 1 }\n", 1, 5, "inline tables are not supported");
    rejects("[[servers]]\n", 1, 1, "arrays of tables are not supported");
    rejects("a = [[1], [2]]\n", 1, 6, "nested arrays are not supported");
    rejects("d = 1979-05-27\n", 1, 5, "dates and times are not supported");
    rejects("d = 07:32:00\n", 1, 5, "dates and times are not supported");
    rejects("s = \"a\\u0000b\"\n", 1, 7, "NUL");
    /* strings */
    rejects("s = \"abc\n", 1, 5, "unterminated string");
    rejects("s = \"abc", 1, 5, "unterminated string");
    rejects("s = 'abc\n", 1, 5, "unterminated string");
    rejects("s = \"a\\qb\"\n", 1, 7, "invalid escape");
    rejects("s = \"\\u12\"\n", 1, 6, "needs 4 hexadecimal digits");
    rejects("s = \"\\uD800\"\n", 1, 6, "not a Unicode scalar value");
    rejects("s = \"\\U00110000\"\n", 1, 6, "not a Unicode scalar value");
    rejects("s = \"a\x01b\"\n", 1, 7, "control character");
    rejects("s = \"x\" junk\n", 1, 9, "expected the end of the line");
    rejects("s = \"x\"\"y\"\n", 1, 5, "invalid value");
    /* numbers */
    rejects("n = 0123\n", 1, 5, "leading zeros");
    rejects("n = 1__0\n", 1, 5, "invalid number");
    rejects("n = _1\n", 1, 5, "expected a value");
    rejects("n = 1_\n", 1, 5, "invalid number");
    rejects("n = 1.\n", 1, 5, "decimal point");
    rejects("n = .5\n", 1, 5, "expected a value");
    rejects("n = 1e\n", 1, 5, "exponent");
    rejects("n = 9223372036854775808\n", 1, 5, "out of range");
    rejects("n = -9223372036854775809\n", 1, 5, "out of range");
    rejects("n = 0x8000000000000000\n", 1, 5, "out of range");
    rejects("n = -0x10\n", 1, 5, "take no sign");
    rejects("n = 0xG\n", 1, 5, "invalid number");
    rejects("n = 1e400\n", 1, 5, "float out of range");
    rejects("n = 12abc\n", 1, 5, "invalid number");
    rejects("b = True\n", 1, 5, "expected a value");
    rejects("b = truex\n", 1, 5, "invalid value");
    /* structure */
    rejects("= 1\n", 1, 1, "expected a key");
    rejects("k 1\n", 1, 3, "expected '='");
    rejects("k =\n", 1, 4, "missing value");
    rejects("k = # nothing\n", 1, 5, "missing value");
    rejects("a = 1\na = 2\n", 2, 1, "duplicate key a");
    rejects("[t]\na = 1\n[t]\n", 3, 1, "table t is defined twice");
    rejects("a = 1\n[a]\n", 2, 1, "key a already has a value");
    rejects("a = 1\na.b = 2\n", 2, 1, "key a already has a value");
    rejects("a.b = 1\na = 2\n", 2, 1, "key a is already a table");
    rejects("[a.b]\n[a]\nb = 1\n", 3, 1, "key a.b is already a table");
    rejects("a.b = 1\n[a]\n", 2, 1, "defined by dotted keys");
    rejects("[x]\na.b = 1\n[x.a]\n", 3, 1, "defined by dotted keys");
    rejects("[x]\na.b = 1\n[x.a.c]\n", 3, 1, "defined by dotted keys");
    rejects("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, 1, "dotted keys cannot extend it");
    rejects("[a\n", 1, 3, "expected ']'");
    rejects("[]\n", 1, 2, "expected a key");
    rejects("[a] x = 1\n", 1, 5, "expected the end of the line");
    rejects("a = [1 2]\n", 1, 8, "expected ',' or ']'");
    rejects("a = [1,\n", 1, 5, "unterminated array");
    rejects("a = [,]\n", 1, 6, "expected a value");
    rejects("k = 1\rx = 2\n", 1, 6, "expected the end of the line");
    rejects("\r", 1, 1, "carriage return");
    rejects("# bad \x7f comment\n", 1, 7, "control character");
    rejects("k = 1\n\xc3\x28 = 2\n", 2, 1, "invalid UTF-8");
    rejects("k = \"\xed\xa0\x80\"\n", 1, 6, "invalid UTF-8"); /* an encoded surrogate */
    rejects("k = \"\xc0\xaf\"\n", 1, 6, "invalid UTF-8");     /* an overlong encoding */
    rejects("k = \"\xc3\xa9\" \xc3\xa9\n", 1, 9, "expected the end of the line");
    /* a NUL byte in the text (not an escape) */
    {
        const char t[] = "k = \"a\0b\"\n";
        struct cuzk_toml *doc;
        char err[128];
        CHECK(cuzk_toml_parse(t, sizeof t - 1, &doc, err, sizeof err) == CUZK_EFORMAT);
        CHECK(strstr(err, "1:7: control character") == err);
    }
    /* a key deeper than the limit */
    {
        char t[200] = "";
        for (int i = 0; i < 40; i++) strcat(t, "a.");
        strcat(t, "b = 1\n");
        rejects(t, 1, 65, "at most 32 components");
    }
    /* the limit is on the whole path: a table of 20 components holding a key of 13 is as deep
     * as the dotted key of 33 that a writer would make of it (found by fuzz_toml) */
    {
        char t[400] = "[";
        for (int i = 0; i < 20; i++) strcat(t, i ? ".t" : "t");
        strcat(t, "]\n");
        for (int i = 0; i < 13; i++) strcat(t, i ? ".k" : "k");
        strcat(t, " = 1\n");
        rejects(t, 2, 1, "at most 32 components");
        struct cuzk_toml *doc;
        char err[256];
        char ok[400] = "[";
        for (int i = 0; i < 20; i++) strcat(ok, i ? ".t" : "t");
        strcat(ok, "]\n");
        for (int i = 0; i < 12; i++) strcat(ok, i ? ".k" : "k");
        strcat(ok, " = 1\n");
        CHECK(cuzk_toml_parse(ok, strlen(ok), &doc, err, sizeof err) == CUZK_OK); /* 32: fits */
        cuzk_toml_free(doc);
    }
    /* the error buffer may be small or absent */
    struct cuzk_toml *doc;
    char small[8];
    CHECK(cuzk_toml_parse("a = ", 4, &doc, small, sizeof small) == CUZK_EFORMAT);
    CHECK(strlen(small) == 7);
    CHECK(cuzk_toml_parse("a = ", 4, &doc, NULL, 0) == CUZK_EFORMAT);
}

/* Random byte strings and random mutations of a valid document: no crash, and every outcome is
 * either a document or an error message with a position. */
static void test_random(void) {
    static const char base[] = "[daemon]\nlisten = \"unix:///run/cuzk.sock\"\n"
                               "[gpus]\ndevices = [0, 1]\nworkers = 2 # c\n[x.y]\nf = 1.5e3\n";
    static const char alphabet[] = "[]=\"'.,#\\\n\r\t ab01_-+xe{}:uU";
    char buf[256], err[256];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n;
        if (iter % 2) {
            n = sizeof base - 1;
            memcpy(buf, base, n);
            int muts = 1 + (int)(cuzk_rng_u64(&test_rng) % 4);
            for (int m = 0; m < muts; m++) {
                size_t at = (size_t)(cuzk_rng_u64(&test_rng) % n);
                buf[at] = (char)(cuzk_rng_u64(&test_rng) & 1
                                     ? alphabet[cuzk_rng_u64(&test_rng) % (sizeof alphabet - 1)]
                                     : (char)cuzk_rng_u64(&test_rng));
            }
        } else {
            n = (size_t)(cuzk_rng_u64(&test_rng) % sizeof buf);
            for (size_t i = 0; i < n; i++)
                buf[i] = alphabet[cuzk_rng_u64(&test_rng) % (sizeof alphabet - 1)];
        }
        struct cuzk_toml *doc;
        int rc = cuzk_toml_parse(buf, n, &doc, err, sizeof err);
        CHECK(rc == CUZK_OK || (rc == CUZK_EFORMAT && err[0] >= '1' && err[0] <= '9'));
        if (rc == CUZK_OK) cuzk_toml_free(doc);
    }
}

int main(void) {
    test_init("test_toml");
    test_values();
    test_tables_and_keys();
    test_arrays();
    test_rejects();
    test_random();
    return test_finish();
}
