/* libFuzzer harness of the TOML parser (src/server/toml.c).
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - the outcome is a document, or CUZK_EFORMAT with a "line:column: reason" message;
 *   - a document, written back as TOML (every entry as a fully quoted dotted key at the root)
 *     and parsed again, gives the same entries: same paths, types and values.
 * Run with scripts/fuzz_toml.sh (builds with clang -fsanitize=fuzzer,address,undefined). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "server/toml.h"

static void put_scalar(FILE *f, const struct cuzk_toml_value *v) {
    switch (v->type) {
    case CUZK_TOML_STRING: cuzk_toml_write_string(f, v->u.s); break;
    case CUZK_TOML_INT: fprintf(f, "%lld", (long long)v->u.i); break;
    case CUZK_TOML_BOOL: fputs(v->u.b ? "true" : "false", f); break;
    case CUZK_TOML_FLOAT:
        if (isnan(v->u.f)) {
            fputs("nan", f);
        } else if (isinf(v->u.f)) {
            fputs(v->u.f > 0 ? "inf" : "-inf", f);
        } else {
            char b[64];
            snprintf(b, sizeof b, "%.17g", v->u.f);
            fputs(b, f);
            if (!strpbrk(b, ".e")) fputs(".0", f); /* keep it a float */
        }
        break;
    case CUZK_TOML_ARRAY: __builtin_trap(); /* never nested */
    }
}

static int same_scalar(const struct cuzk_toml_value *a, const struct cuzk_toml_value *b) {
    if (a->type != b->type) return 0;
    switch (a->type) {
    case CUZK_TOML_STRING: return !strcmp(a->u.s, b->u.s);
    case CUZK_TOML_INT: return a->u.i == b->u.i;
    case CUZK_TOML_BOOL: return a->u.b == b->u.b;
    case CUZK_TOML_FLOAT:
        return (isnan(a->u.f) && isnan(b->u.f)) || memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
    case CUZK_TOML_ARRAY: return 0;
    }
    return 0;
}

static int same_value(const struct cuzk_toml_value *a, const struct cuzk_toml_value *b) {
    if (a->type != CUZK_TOML_ARRAY) return same_scalar(a, b);
    if (b->type != CUZK_TOML_ARRAY || a->u.arr.n != b->u.arr.n) return 0;
    for (size_t i = 0; i < a->u.arr.n; i++)
        if (!same_scalar(&a->u.arr.items[i], &b->u.arr.items[i])) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct cuzk_toml *doc;
    char err[256];
    int rc = cuzk_toml_parse((const char *)data, size, &doc, err, sizeof err);
    if (rc != CUZK_OK) {
        if (rc != CUZK_EFORMAT && rc != CUZK_ENOMEM) __builtin_trap();
        if (rc == CUZK_EFORMAT && !(err[0] >= '1' && err[0] <= '9' && strchr(err, ':')))
            __builtin_trap();
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) __builtin_trap();
    for (size_t i = 0; i < doc->n; i++) {
        const struct cuzk_toml_entry *e = &doc->entries[i];
        if (!e->name || e->nparts == 0) __builtin_trap();
        for (size_t k = 0; k < e->nparts; k++) {
            if (k) fputc('.', f);
            cuzk_toml_write_string(f, e->parts[k]);
        }
        fputs(" = ", f);
        if (e->val.type == CUZK_TOML_ARRAY) {
            fputc('[', f);
            for (size_t k = 0; k < e->val.u.arr.n; k++) {
                if (k) fputs(", ", f);
                put_scalar(f, &e->val.u.arr.items[k]);
            }
            fputc(']', f);
        } else {
            put_scalar(f, &e->val);
        }
        fputc('\n', f);
    }
    fclose(f);
    struct cuzk_toml *again;
    rc = cuzk_toml_parse(text, len, &again, err, sizeof err);
    if (rc != CUZK_OK) {
        fprintf(stderr, "re-parse failed: %s\n%s", err, text);
        __builtin_trap();
    }
    if (again->n != doc->n) __builtin_trap();
    for (size_t i = 0; i < doc->n; i++) {
        const struct cuzk_toml_entry *a = &doc->entries[i], *b = &again->entries[i];
        if (a->nparts != b->nparts) __builtin_trap();
        for (size_t k = 0; k < a->nparts; k++)
            if (strcmp(a->parts[k], b->parts[k])) __builtin_trap();
        if (strcmp(a->name, b->name) || !same_value(&a->val, &b->val)) __builtin_trap();
    }
    cuzk_toml_free(again);
    cuzk_toml_free(doc);
    free(text);
    return 0;
}
