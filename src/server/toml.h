/* A strict parser for the subset of TOML 1.0 that cuzk configuration files use.
 *
 * Accepted: comments; [table] headers with bare or quoted keys, dotted; key = value pairs with
 * bare, quoted or dotted keys; values: basic strings "..." with the TOML escapes (\b \t \n \f \r
 * \" \\ \uXXXX \UXXXXXXXX), literal strings '...', integers (decimal, 0x, 0o, 0b, with
 * underscores between digits), floats (fraction, exponent, inf, nan), booleans, and arrays of
 * those scalars (multi-line, comments and a trailing comma allowed). LF or CRLF line ends.
 *
 * Rejected, each with "line:column: reason": multi-line strings, inline tables, arrays of
 * tables, nested arrays, dates and times, a NUL character (\u0000), invalid UTF-8, control
 * characters, duplicate keys, tables defined twice, and the other redefinitions TOML forbids.
 *
 * Contract: cuzk_toml_parse never crashes and never reads outside [text, text + len) on any
 * input (it is fuzzed); on success the document owns every string it returns. Keys are kept as
 * their components; cuzk_toml_find matches a dotted query of bare components ("daemon.listen").
 * Thread-safety: a parsed document is immutable and may be read from any thread. */
#ifndef CUZK_SERVER_TOML_H
#define CUZK_SERVER_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum cuzk_toml_type {
    CUZK_TOML_STRING,
    CUZK_TOML_INT,
    CUZK_TOML_FLOAT,
    CUZK_TOML_BOOL,
    CUZK_TOML_ARRAY,
};

struct cuzk_toml_value {
    enum cuzk_toml_type type;
    int line, col; /* where the value starts (1-based; columns count characters) */
    union {
        char *s; /* UTF-8, NUL-terminated, no embedded NUL */
        int64_t i;
        double f;
        bool b;
        struct {
            struct cuzk_toml_value *items; /* scalars only */
            size_t n;
        } arr;
    } u;
};

struct cuzk_toml_entry {
    char **parts; /* the full key path: table components followed by the key's components */
    size_t nparts;
    char *name;    /* the path for messages: components joined by '.', quoted where not bare */
    int line, col; /* where the key starts */
    struct cuzk_toml_value val;
};

struct cuzk_toml {
    struct cuzk_toml_entry *entries; /* in document order */
    size_t n;
};

/* Parses text[0..len). Returns CUZK_OK and a document in *out, CUZK_EFORMAT with
 * "line:column: reason" in err, or CUZK_ENOMEM. */
int cuzk_toml_parse(const char *text, size_t len, struct cuzk_toml **out, char *err, size_t errlen);
void cuzk_toml_free(struct cuzk_toml *doc);

/* 1 if the entry's path is the dotted path `key` of bare components ("daemon.listen"). */
int cuzk_toml_key_is(const struct cuzk_toml_entry *e, const char *key);
/* The entry whose path is `key` (as for cuzk_toml_key_is), or NULL. */
const struct cuzk_toml_entry *cuzk_toml_find(const struct cuzk_toml *doc, const char *key);

/* "string", "integer", "float", "boolean" or "array". */
const char *cuzk_toml_type_name(enum cuzk_toml_type type);

/* Writes s to f as a TOML basic string that parses back to s: quotes, a backslash before " and
 * \, \uXXXX for control characters and DEL. */
void cuzk_toml_write_string(FILE *f, const char *s);

#endif
