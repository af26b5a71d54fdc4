/* PoRep commit-phase-1 outputs (filecoin/c1.h). */
#define _GNU_SOURCE
#include "filecoin/c1.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/poseidon.h"
#include "cuzk/error.h"
#include "filecoin/challenges.h"
#include "filecoin/graph.h"
#include "filecoin/sdr.h"
#include "util/base64.h"

#define PARENTS (CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS)

/* ---- reading ------------------------------------------------------------------------------ */

/* Where in the C1 a value is, for the sentences. */
struct rd {
    char *err;
    size_t errlen;
    int in_proof; /* part and chal are meaningful */
    unsigned part, chal;
};

static int fail(struct rd *r, int code, const char *field, const char *fmt, ...) {
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (r->in_proof)
        return cuzk_errf(r->err, r->errlen, code, "C1: partition %u, challenge %u: %s: %s", r->part,
                         r->chal, field, why);
    return cuzk_errf(r->err, r->errlen, code, "C1: %s: %s", field, why);
}

static const json_t *member(struct rd *r, const json_t *o, const char *key, int type,
                            const char *field, int *rc) {
    const json_t *m = json_is_object(o) ? json_object_get(o, key) : NULL;
    static const char *const names[] = {"an object", "an array", "a string", "an integer"};
    const int ok = m && (type == JSON_OBJECT    ? json_is_object(m)
                         : type == JSON_ARRAY   ? json_is_array(m)
                         : type == JSON_STRING  ? json_is_string(m)
                         : type == JSON_INTEGER ? json_is_integer(m)
                                                : 1);
    if (!ok) {
        const int t = type == JSON_OBJECT   ? 0
                      : type == JSON_ARRAY  ? 1
                      : type == JSON_STRING ? 2
                                            : 3;
        *rc = fail(r, CUZK_EFORMAT, field, m ? "is not %s" : "missing (%s expected)", names[t]);
        return NULL;
    }
    return m;
}

/* A non-negative integer below limit. */
static int uint_of(struct rd *r, const json_t *o, const char *key, uint64_t limit,
                   const char *field, uint64_t *out) {
    int rc = CUZK_OK;
    const json_t *m = member(r, o, key, JSON_INTEGER, field, &rc);
    if (!m) return rc;
    const json_int_t v = json_integer_value(m);
    if (v < 0 || (uint64_t)v >= limit)
        return fail(r, CUZK_EFORMAT, field, "%lld is out of range", (long long)v);
    *out = (uint64_t)v;
    return CUZK_OK;
}

/* A [u8; 32] that compact_bytes() wrote as a string: a NUL, then the base64 of the bytes. */
#define PACKED_B64 44                 /* base64 characters of 32 bytes */
#define PACKED_TOKEN (PACKED_B64 + 8) /* "\u0000" and the base64 between quotes */
#define PACKED_LEN (1 + PACKED_B64)   /* the string jansson decodes */

/* 32 numbers 0..255 (or a string packed from them). */
static int bytes32(struct rd *r, const json_t *a, const char *field, uint8_t out[32]) {
    if (json_is_string(a) && json_string_length(a) == PACKED_LEN && !json_string_value(a)[0]) {
        uint8_t b[33];
        if (cuzk_base64_decode(json_string_value(a) + 1, PACKED_B64, b) != 32)
            return fail(r, CUZK_EFORMAT, field, "is not an array of 32 bytes");
        memcpy(out, b, 32);
        return CUZK_OK;
    }
    if (!json_is_array(a) || json_array_size(a) != 32)
        return fail(r, CUZK_EFORMAT, field, "is not an array of 32 bytes");
    for (size_t i = 0; i < 32; i++) {
        const json_t *x = json_array_get(a, i);
        const json_int_t v = json_is_integer(x) ? json_integer_value(x) : -1;
        if (v < 0 || v > 255)
            return fail(r, CUZK_EFORMAT, field, "element %zu is not a byte (0 .. 255)", i);
        out[i] = (uint8_t)v;
    }
    return CUZK_OK;
}

static int fr32(struct rd *r, const json_t *a, const char *field, cuzk_fr *out) {
    uint8_t b[32];
    int rc = bytes32(r, a, field, b);
    if (rc) return rc;
    if (cuzk_fr_from_bytes_le(out, b))
        return fail(r, CUZK_ENONCANON, field, "is not a field element (>= r)");
    return CUZK_OK;
}

static int fr_array(struct rd *r, const json_t *a, size_t n, const char *field, cuzk_fr *out) {
    if (!json_is_array(a) || json_array_size(a) != n)
        return fail(r, CUZK_EFORMAT, field, "is not an array of %zu values", n);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr t;
        int rc = fr32(r, json_array_get(a, i), field, out ? &out[i] : &t);
        if (rc) return rc;
    }
    return CUZK_OK;
}

/* The shape of a sector's Merkle tree: levels of each part, their arity. Tree D is one binary
 * tree; trees C and R are 8-ary base trees with a sub tree of sub_arity on top (32 GiB) and a
 * top tree of top_arity above that (64 GiB). */
struct shape {
    unsigned n;         /* parts: 1 Single, 2 Sub, 3 Top */
    unsigned levels[3]; /* per part */
    unsigned arity[3];
};

static void shape_d(const struct cuzk_fc_profile *p, struct shape *s) {
    *s = (struct shape){1, {p->tree_d_levels, 0, 0}, {2, 0, 0}};
}

static void shape_r(const struct cuzk_fc_profile *p, const struct cuzk_sdr_shape *sh,
                    struct shape *s) {
    /* the profile's 8-ary levels are the base and an 8-ary sub level; the top is above them */
    const unsigned sub = sh->sub_arity != 0, top = sh->top_arity != 0;
    *s = (struct shape){1 + sub + top,
                        {p->tree_r_levels - sub, 1, 1},
                        {8, sub ? sh->sub_arity : sh->top_arity, sh->top_arity}};
}

static const char *const variants[3] = {"Single", "Sub", "Top"};
static const char *const part_keys[3] = {"base_proof", "sub_proof", "top_proof"};

/* A MerkleProof of node `node` in a tree of shape s: the siblings into sibs (level 0 first,
 * arity - 1 per level), the root and the leaf (either may be NULL). */
static int merkle(struct rd *r, const json_t *mp, const struct shape *s, uint64_t node,
                  const char *field, cuzk_fr *sibs, cuzk_fr *root, cuzk_fr *leaf) {
    int rc = CUZK_OK;
    const json_t *data = member(r, mp, "data", JSON_OBJECT, field, &rc);
    if (!data) return rc;
    const json_t *body = json_object_get(data, variants[s->n - 1]);
    if (json_object_size(data) != 1 || !json_is_object(body)) {
        const char *got = json_object_size(data) == 1
                              ? json_object_iter_key(json_object_iter((json_t *)data))
                              : "no single variant";
        return fail(r, CUZK_EFORMAT, field, "is a %.16s proof; this sector's tree takes %s", got,
                    variants[s->n - 1]);
    }
    uint64_t rest = node;
    size_t at = 0, off = 0; /* the level, and its first sibling */
    for (unsigned k = 0; k < s->n; k++) {
        const json_t *inc = s->n == 1 ? member(r, body, "path", JSON_OBJECT, field, &rc)
                                      : member(r, body, part_keys[k], JSON_OBJECT, field, &rc);
        const json_t *path = inc ? member(r, inc, "path", JSON_ARRAY, field, &rc) : NULL;
        if (!path) return rc;
        const unsigned lv = s->levels[k], ar = s->arity[k];
        if (json_array_size(path) != lv)
            return fail(r, CUZK_EFORMAT, field, "%s has %zu levels, this sector's tree %u",
                        s->n == 1 ? "the path" : part_keys[k], json_array_size(path), lv);
        for (unsigned l = 0; l < lv; l++) {
            const json_t *el = json_array_get(path, l);
            uint64_t idx;
            if ((rc = uint_of(r, el, "index", ar, field, &idx))) return rc;
            if (idx != rest % ar)
                return fail(r, CUZK_EFORMAT, field,
                            "level %u's position is %llu, node %llu's is %llu", (unsigned)at,
                            (unsigned long long)idx, (unsigned long long)node,
                            (unsigned long long)(rest % ar));
            rest /= ar;
            if ((rc = fr_array(r, json_object_get(el, "hashes"), ar - 1, field,
                               sibs ? sibs + off : NULL)))
                return rc;
            at++;
            off += ar - 1;
        }
    }
    if (rest)
        return fail(r, CUZK_EFORMAT, field, "node %llu is outside the tree",
                    (unsigned long long)node);
    cuzk_fr t;
    if ((rc = fr32(r, json_object_get(body, "root"), field, root ? root : &t))) return rc;
    return fr32(r, json_object_get(body, "leaf"), field, leaf ? leaf : &t);
}

/* A ColumnProof: its node, its L rows (into rows unless NULL), its tree-C path and root. */
static int column(struct rd *r, const json_t *cp, unsigned L, const struct shape *sc,
                  uint64_t nodes, const char *field, uint64_t *node, cuzk_fr *rows, cuzk_fr *sibs,
                  cuzk_fr *root) {
    int rc = CUZK_OK;
    const json_t *col = member(r, cp, "column", JSON_OBJECT, field, &rc);
    if (!col) return rc;
    if ((rc = uint_of(r, col, "index", nodes, field, node))) return rc;
    if ((rc = fr_array(r, json_object_get(col, "rows"), L, field, rows))) return rc;
    return merkle(r, json_object_get(cp, "inclusion_proof"), sc, *node, field, sibs, root, NULL);
}

/* A labeling or encoding proof's shape: 37 parents, its layer, the challenged node. */
static int label_shape(struct rd *r, const json_t *lp, unsigned layer, uint64_t node,
                       const char *field) {
    if (!json_is_object(lp)) return fail(r, CUZK_EFORMAT, field, "is not an object");
    int rc = fr_array(r, json_object_get(lp, "parents"), CUZK_FC_TOTAL_PARENTS, field, NULL);
    uint64_t li, nd;
    if (!rc) rc = uint_of(r, lp, "layer_index", UINT32_MAX, field, &li);
    if (!rc) rc = uint_of(r, lp, "node", UINT64_MAX, field, &nd);
    if (!rc && li != layer)
        rc = fail(r, CUZK_EFORMAT, field, "layer_index %llu where %u belongs",
                  (unsigned long long)li, layer);
    if (!rc && nd != node)
        rc = fail(r, CUZK_EFORMAT, field, "node %llu, the challenge is node %llu",
                  (unsigned long long)nd, (unsigned long long)node);
    return rc;
}

struct roots {
    int have;
    cuzk_fr comm_c, comm_r_last;
};

static int same_root(struct rd *r, struct roots *rt, const cuzk_fr *c, const cuzk_fr *rl) {
    if (!rt->have) {
        rt->comm_c = *c;
        rt->comm_r_last = *rl;
        rt->have = 1;
        return CUZK_OK;
    }
    if (!cuzk_fr_eq(c, &rt->comm_c))
        return fail(r, CUZK_EFORMAT, "replica_column_proofs",
                    "a tree-C root that is not the sector's comm_c");
    if (!cuzk_fr_eq(rl, &rt->comm_r_last))
        return fail(r, CUZK_EFORMAT, "comm_r_last_proof",
                    "a tree-R root that is not the sector's comm_r_last");
    return CUZK_OK;
}

static int proof_of(struct rd *r, const json_t *pj, const struct cuzk_fc_profile *p,
                    const struct cuzk_sdr_shape *sh, const cuzk_fr *comm_d,
                    struct cuzk_fc_porep_challenge *ch, struct roots *rt) {
    const unsigned L = p->layers, R = p->tree_r_levels;
    struct shape sd, sr;
    shape_d(p, &sd);
    shape_r(p, sh, &sr);
    if (!json_is_object(pj)) return fail(r, CUZK_EFORMAT, "proof", "is not an object");
    int rc = CUZK_OK;
    const json_t *rcp =
        member(r, pj, "replica_column_proofs", JSON_OBJECT, "replica_column_proofs", &rc);
    if (!rcp) return rc;
    /* the challenge is c_x's node */
    uint64_t x;
    cuzk_fr c_root, rl_root, d_root;
    if ((rc = column(r, json_object_get(rcp, "c_x"), L, &sr, sh->nodes, "replica_column_proofs.c_x",
                     &x, NULL, (cuzk_fr *)ch->tree_c_path, &c_root)))
        return rc;
    ch->challenge = x;
    for (unsigned q = 0; q < PARENTS; q++) {
        const int drg = q < CUZK_FC_DRG_PARENTS;
        const json_t *list = json_object_get(rcp, drg ? "drg_parents" : "exp_parents");
        const size_t want = drg ? CUZK_FC_DRG_PARENTS : CUZK_FC_EXP_PARENTS;
        const char *field =
            drg ? "replica_column_proofs.drg_parents" : "replica_column_proofs.exp_parents";
        if (!json_is_array(list) || json_array_size(list) != want)
            return fail(r, CUZK_EFORMAT, field, "is not an array of %zu column proofs", want);
        cuzk_fr root;
        uint64_t node;
        if ((rc = column(r, json_array_get(list, drg ? q : q - CUZK_FC_DRG_PARENTS), L, &sr,
                         sh->nodes, field, &node, (cuzk_fr *)ch->parent_columns + (size_t)q * L,
                         (cuzk_fr *)ch->parent_paths + (size_t)q * R * 7, &root)))
            return rc;
        ch->parents[q] = node;
        if (!cuzk_fr_eq(&root, &c_root))
            return fail(r, CUZK_EFORMAT, field, "parent %u's tree-C root is not c_x's", q);
    }
    if ((rc = merkle(r, json_object_get(pj, "comm_r_last_proof"), &sr, x, "comm_r_last_proof",
                     (cuzk_fr *)ch->tree_r_path, &rl_root, NULL)))
        return rc;
    if ((rc = merkle(r, json_object_get(pj, "comm_d_proofs"), &sd, x, "comm_d_proofs",
                     (cuzk_fr *)ch->tree_d_path, &d_root, &ch->data_leaf)))
        return rc;
    if (!cuzk_fr_eq(&d_root, comm_d))
        return fail(r, CUZK_EFORMAT, "comm_d_proofs", "its root is not the C1's comm_d");
    if ((rc = same_root(r, rt, &c_root, &rl_root))) return rc;
    const json_t *lps = member(r, pj, "labeling_proofs", JSON_ARRAY, "labeling_proofs", &rc);
    if (!lps) return rc;
    if (json_array_size(lps) != L)
        return fail(r, CUZK_EFORMAT, "labeling_proofs", "%zu of them, the sector has %u layers",
                    json_array_size(lps), L);
    for (unsigned l = 0; l < L; l++)
        if ((rc = label_shape(r, json_array_get(lps, l), l + 1, x, "labeling_proofs"))) return rc;
    return label_shape(r, json_object_get(pj, "encoding_proof"), L, x, "encoding_proof");
}

static int zero32(const uint8_t b[32]) {
    uint8_t o = 0;
    for (int i = 0; i < 32; i++) o |= b[i];
    return !o;
}

static int parse_output(struct rd *r, const json_t *root, struct cuzk_c1 *c) {
    int rc = CUZK_OK;
    const json_t *rp = member(r, root, "registered_proof", JSON_STRING, "registered_proof", &rc);
    if (!rp) return rc;
    char why[200];
    if ((rc = cuzk_fc_registered_by_name(CUZK_FC_POREP, json_string_value(rp), &c->reg, why,
                                         sizeof why)))
        return fail(r, rc, "registered_proof", "%s", why);
    const struct cuzk_fc_registered *g = &c->reg;
    if (c->wrapped && c->sector_size != g->sector_size)
        return fail(r, CUZK_EINVAL, "SectorSize", "%llu, the C1's registered proof %s is of %llu",
                    (unsigned long long)c->sector_size, g->name,
                    (unsigned long long)g->sector_size);
    const struct {
        const char *key;
        uint8_t *out;
    } fields[5] = {{"comm_r", c->comm_r},
                   {"comm_d", c->comm_d},
                   {"replica_id", c->replica_id},
                   {"seed", c->seed},
                   {"ticket", c->ticket}};
    for (int i = 0; i < 5; i++)
        if ((rc = bytes32(r, json_object_get(root, fields[i].key), fields[i].key, fields[i].out)))
            return rc;
    for (int i = 0; i < 4; i++)
        if (i != 2 && zero32(fields[i].out))
            return fail(r, CUZK_EINVAL, fields[i].key, "is zero (a C1 that was never finished)");
    cuzk_fr comm_r, comm_d, rid;
    if ((rc = fr32(r, json_object_get(root, "comm_r"), "comm_r", &comm_r)) ||
        (rc = fr32(r, json_object_get(root, "comm_d"), "comm_d", &comm_d)) ||
        (rc = fr32(r, json_object_get(root, "replica_id"), "replica_id", &rid)))
        return rc;
    const json_t *vp = member(r, root, "vanilla_proofs", JSON_OBJECT, "vanilla_proofs", &rc);
    if (!vp) return rc;
    char key[64];
    snprintf(key, sizeof key, "StackedDrg%sV1", cuzk_fc_size_name(g->sector_size));
    const json_t *parts = json_object_get(vp, key);
    if (json_object_size(vp) != 1 || !json_is_array(parts))
        return fail(r, CUZK_EFORMAT, "vanilla_proofs", "is not {\"%s\": [partitions]} (%s)", key,
                    g->name);
    const struct cuzk_fc_profile *p = &g->profile;
    if (json_array_size(parts) != g->partitions)
        return fail(r, CUZK_EINVAL, "vanilla_proofs", "%zu partitions; %s has %u",
                    json_array_size(parts), g->name, g->partitions);
    struct cuzk_sdr_shape sh;
    if (cuzk_sdr_shape_get(g->sector_size, &sh) || sh.top_arity)
        return fail(r, CUZK_EUNSUPPORTED, "registered_proof", "no tree shape for %s", g->name);
    if ((rc = cuzk_vanilla_alloc(&c->v, p, g->partitions)))
        return fail(r, rc, "vanilla_proofs", "cannot hold %u partitions", g->partitions);
    struct roots rt = {0};
    for (unsigned k = 0; k < g->partitions; k++) {
        const json_t *pa = json_array_get(parts, k);
        if (!json_is_array(pa) || json_array_size(pa) != p->challenges)
            return fail(r, CUZK_EINVAL, "vanilla_proofs", "partition %u is not %u challenge proofs",
                        k, p->challenges);
        struct cuzk_fc_porep_vanilla *pv = &c->v.parts[k].v.porep;
        pv->replica_id = rid;
        pv->comm_d = comm_d;
        pv->comm_r = comm_r;
        r->in_proof = 1;
        r->part = k;
        for (unsigned j = 0; j < p->challenges; j++) {
            r->chal = j;
            if ((rc = proof_of(r, json_array_get(pa, j), p, &sh, &comm_d,
                               (struct cuzk_fc_porep_challenge *)&pv->challenges[j], &rt)))
                return rc;
        }
        r->in_proof = 0;
        pv->comm_c = rt.comm_c;
        pv->comm_r_last = rt.comm_r_last;
    }
    return CUZK_OK;
}

/* ---- the document ------------------------------------------------------------------------- */

/* Most of a C1 is arrays of 32 numbers (serde's [u8; 32]: every hash, label and root), about
 * 115 bytes of text each, which jansson would hold as 32 integer values of some 40 bytes of
 * heap each: 11 times the text. So before jansson reads the text, compact_bytes rewrites each
 * array of exactly 32 integers 0..255 written plainly (as serde and Go write them; any other
 * array is left to jansson) into a string token: "\u0000" and the base64 of the 32 bytes, 52
 * characters that jansson keeps in about 100 bytes, under the text they replace. A NUL cannot be in
 * any string jansson accepts unless it is asked to (JSON_ALLOW_NUL), so a string that starts with
 * one is compact_bytes' own; a text that holds the escape \u0000 anywhere is read as it is. Each
 * token replaces its array within the array's bytes (out <= in): in place, padded with spaces to
 * the array's width and keeping its newlines, or shrunk into a copy; the rest of the text is left
 * as it was. */

static int json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The length of the array of 32 canonical integers 0..255 at t[0] == '[' (its bytes into b), or
 * 0 when it is not one. */
static size_t byte_array_at(const char *t, size_t n, uint8_t b[32]) {
    size_t i = 1;
    for (int k = 0; k < 32; k++) {
        while (i < n && json_ws(t[i])) i++;
        size_t d = 0;
        unsigned v = 0;
        while (i + d < n && t[i + d] >= '0' && t[i + d] <= '9' && d < 4)
            v = v * 10 + (unsigned)(t[i + d++] - '0');
        if (d == 0 || d > 3 || (d > 1 && t[i] == '0') || v > 255) return 0;
        b[k] = (uint8_t)v;
        i += d;
        while (i < n && json_ws(t[i])) i++;
        if (i >= n || t[i] != (k < 31 ? ',' : ']')) return 0;
        i++;
    }
    return i;
}

/* The base64 of 32 bytes: 44 characters, the last one '='. */
static void base64_32(const uint8_t b[32], char out[PACKED_B64]) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0, o = 0; i < 32; i += 3, o += 4) {
        const uint32_t v =
            (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | (i + 2 < 32 ? b[i + 2] : 0);
        out[o] = a[v >> 18];
        out[o + 1] = a[(v >> 12) & 63];
        out[o + 2] = a[(v >> 6) & 63];
        out[o + 3] = i + 2 < 32 ? a[v & 63] : '=';
    }
}

/* Rewrites in[0 .. n) into out (out == in, or a buffer of n bytes), padded (pad = 1: the same
 * length) or shrunk; returns the length written. The text must hold no \u0000 escape. */
static size_t compact_bytes(const char *in, size_t n, char *out, int pad) {
    size_t i = 0, o = 0;
    int in_string = 0;
    while (i < n) {
        const char c = in[i];
        size_t len;
        uint8_t b[32];
        if (in_string) {
            if (c == '\\' && i + 1 < n)
                out[o++] = in[i++];
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' && (len = byte_array_at(in + i, n - i, b))) {
            char tok[PACKED_TOKEN];
            memcpy(tok, "\"\\u0000", 7);
            base64_32(b, tok + 7);
            tok[PACKED_TOKEN - 1] = '"';
            size_t lines = 0;
            for (size_t k = 0; pad && k < len; k++) lines += in[i + k] == '\n';
            const size_t fill = pad ? len - PACKED_TOKEN - lines : 0;
            memset(out + o, '\n', lines); /* (before the token: in[i ..] is read, out <= in) */
            memset(out + o + lines, ' ', fill);
            memcpy(out + o + lines + fill, tok, PACKED_TOKEN);
            o += lines + fill + PACKED_TOKEN;
            i += len;
            continue;
        }
        out[o++] = in[i++];
    }
    return o;
}

/* Whether the text holds the escape \u0000 (then compact_bytes' tokens could be mistaken). */
static int has_nul_escape(const char *t, size_t n) { return memmem(t, n, "\\u0000", 6) != NULL; }

static json_t *load_flags(struct rd *r, const char *text, size_t len, const char *what,
                          size_t flags, int *rc) {
    json_error_t e;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &e);
    if (!j)
        *rc = json_error_code(&e) == json_error_out_of_memory
                  ? fail(r, CUZK_ENOMEM, what, "out of memory")
                  : fail(r, CUZK_EFORMAT, what, "not JSON: %s (line %d, column %d)", e.text, e.line,
                         e.column);
    else if (!json_is_object(j)) {
        *rc = fail(r, CUZK_EFORMAT, what, "is not a JSON object");
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Loads a text the caller owns: its byte arrays compacted into a shrunk copy first. A text
 * that is not JSON is read again as it is, so that the error's line and column are the
 * text's. */
static json_t *load(struct rd *r, const char *text, size_t len, const char *what, int *rc) {
    char *copy = NULL;
    if (memchr(text, '[', len) && !has_nul_escape(text, len) && (copy = malloc(len))) {
        const size_t n = compact_bytes(text, len, copy, 0);
        json_t *j = load_flags(r, copy, n, what, JSON_ALLOW_NUL, rc);
        free(copy);
        if (j || *rc != CUZK_EFORMAT) return j;
    }
    return load_flags(r, text, len, what, 0, rc);
}

/* Loads a text of its own, compacted in place (padded: every line and, where no array spans
 * lines, every column keeps its place for the error message). */
static json_t *load_own(struct rd *r, char *text, size_t len, const char *what, int *rc) {
    if (has_nul_escape(text, len)) return load_flags(r, text, len, what, 0, rc);
    compact_bytes(text, len, text, 1);
    return load_flags(r, text, len, what, JSON_ALLOW_NUL, rc);
}

int cuzk_c1_parse(const uint8_t *in, size_t len, struct cuzk_c1 *c, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    struct rd r = {.err = err, .errlen = errlen};
    int rc = CUZK_OK;
    json_t *top = load(&r, (const char *)in, len, "input", &rc);
    if (!top) return rc;
    json_t *inner = NULL;
    const json_t *out = top;
    uint8_t *raw = NULL;
    if (json_object_get(top, "Phase1Out")) { /* the wrapper */
        c->wrapped = 1;
        const json_t *p1 = member(&r, top, "Phase1Out", JSON_STRING, "Phase1Out", &rc);
        if (!rc) rc = uint_of(&r, top, "SectorNum", UINT64_MAX, "SectorNum", &c->sector_num);
        if (!rc) rc = uint_of(&r, top, "SectorSize", UINT64_MAX, "SectorSize", &c->sector_size);
        long got = -1;
        if (!rc) {
            const size_t n = json_string_length(p1);
            raw = malloc(cuzk_base64_decoded_max(n) + 1);
            got = raw ? cuzk_base64_decode(json_string_value(p1), n, raw) : -1;
            if (!raw)
                rc = fail(&r, CUZK_ENOMEM, "Phase1Out", "out of memory");
            else if (got < 0)
                rc = fail(&r, CUZK_EFORMAT, "Phase1Out", "is not base64");
        }
        json_decref(top); /* the base64 string goes before the inner document is read */
        top = NULL;
        if (!rc && (inner = load_own(&r, (char *)raw, (size_t)got, "Phase1Out", &rc))) out = inner;
        free(raw);
    } else if (!json_object_get(top, "registered_proof")) {
        rc = fail(&r, CUZK_EFORMAT, "input",
                  "neither a C1 wrapper ({\"SectorNum\", \"Phase1Out\", \"SectorSize\"}) nor a "
                  "SealCommitPhase1Output (registered_proof, vanilla_proofs, ...)");
    }
    if (!rc) rc = parse_output(&r, out, c);
    json_decref(top);
    json_decref(inner);
    if (rc) cuzk_c1_free(c);
    return rc;
}

void cuzk_c1_free(struct cuzk_c1 *c) {
    cuzk_vanilla_free(&c->v);
    memset(c, 0, sizeof *c);
}

/* ---- the request's side ------------------------------------------------------------------- */

static void hex8(char out[17], const uint8_t *b) {
    for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int cuzk_c1_check(const struct cuzk_c1 *c, uint64_t miner_id, uint64_t sector_number, char *err,
                  size_t errlen) {
    uint64_t sector = sector_number;
    if (c->wrapped) {
        if (sector_number && sector_number != c->sector_num)
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "C1: sector_number: the request's %llu, the C1's SectorNum %llu",
                             (unsigned long long)sector_number, (unsigned long long)c->sector_num);
        sector = c->sector_num;
    }
    uint8_t prover[32], porep_id[32], rid[32];
    cuzk_fc_prover_id(miner_id, prover);
    cuzk_fc_porep_id(&c->reg, porep_id);
    cuzk_fr f;
    cuzk_sdr_replica_id(prover, sector, c->ticket, c->comm_d, porep_id, &f);
    cuzk_fr_to_bytes_le(rid, &f);
    if (memcmp(rid, c->replica_id, 32)) {
        char have[17], want[17];
        hex8(have, c->replica_id);
        hex8(want, rid);
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "C1: replica_id: the C1's %s... is not %s..., the replica id of miner "
                         "%llu's sector %llu with the C1's ticket and comm_d under %s (a C1 of "
                         "another miner or sector: check miner_id and sector_number)",
                         have, want, (unsigned long long)miner_id, (unsigned long long)sector,
                         c->reg.name);
    }
    const struct cuzk_fc_profile *p = &c->reg.profile;
    const uint64_t nodes = c->reg.sector_size / 32;
    struct cuzk_graph g;
    if (cuzk_graph_init(&g, nodes, porep_id, c->reg.api))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "C1: no graph for %s", c->reg.name);
    uint64_t *ch = malloc(p->challenges * sizeof *ch);
    if (!ch) return cuzk_errf(err, errlen, CUZK_ENOMEM, "C1: out of memory");
    int rc = CUZK_OK;
    for (uint32_t k = 0; k < c->v.n_parts && !rc; k++) {
        if (c->reg.synthetic)
            cuzk_porep_synth_selected(c->replica_id, c->comm_r, c->seed, nodes,
                                      cuzk_porep_synth_count(nodes), p->challenges, k, ch);
        else if (c->reg.non_interactive) /* the seed does not enter */
            cuzk_porep_ni_challenges(c->replica_id, c->comm_r, nodes, p->challenges, k, ch);
        else
            cuzk_porep_challenges(c->replica_id, c->seed, nodes, p->challenges, k, ch);
        const struct cuzk_fc_porep_vanilla *pv = &c->v.parts[k].v.porep;
        for (unsigned j = 0; j < p->challenges && !rc; j++) {
            const struct cuzk_fc_porep_challenge *x = &pv->challenges[j];
            if (x->challenge != ch[j]) {
                rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                               "C1: %s: partition %u, challenge %u is node %llu; the %s "
                               "challenges node %llu (%s challenges)",
                               c->reg.non_interactive ? "comm_r" : "seed", k, j,
                               (unsigned long long)x->challenge,
                               c->reg.non_interactive ? "sector's comm_r" : "seed",
                               (unsigned long long)ch[j],
                               c->reg.synthetic         ? "synthetic"
                               : c->reg.non_interactive ? "non-interactive"
                                                        : "interactive");
                break;
            }
            uint32_t par[CUZK_GRAPH_PARENTS];
            cuzk_graph_parents(&g, (uint32_t)x->challenge, par);
            for (unsigned q = 0; q < PARENTS; q++)
                if (x->parents[q] != par[q]) {
                    rc = cuzk_errf(err, errlen, CUZK_EINVAL,
                                   "C1: parents: partition %u, challenge %u (node %llu): parent "
                                   "%u is node %llu; the graph of %s gives %u",
                                   k, j, (unsigned long long)x->challenge, q,
                                   (unsigned long long)x->parents[q], c->reg.name, par[q]);
                    break;
                }
        }
    }
    free(ch);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void put_bytes(FILE *f, const uint8_t b[32]) {
    fputc('[', f);
    for (int i = 0; i < 32; i++) fprintf(f, i ? ",%u" : "%u", b[i]);
    fputc(']', f);
}

static void put_fr(FILE *f, const cuzk_fr *x) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    put_bytes(f, b);
}

static void put_frs(FILE *f, const cuzk_fr *x, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', f);
        put_fr(f, &x[i]);
    }
    fputc(']', f);
}

static void put_merkle(FILE *f, const struct shape *s, uint64_t node, const cuzk_fr *sibs,
                       const cuzk_fr *root, const cuzk_fr *leaf) {
    fprintf(f, "{\"data\":{\"%s\":{", variants[s->n - 1]);
    uint64_t rest = node;
    size_t off = 0; /* the level's first sibling */
    for (unsigned k = 0; k < s->n; k++) {
        if (s->n == 1)
            fputs("\"root\":", f), put_fr(f, root), fputs(",\"leaf\":", f), put_fr(f, leaf),
                fputs(",\"path\":", f);
        else
            fprintf(f, "%s\"%s\":", k ? "," : "", part_keys[k]);
        fputs("{\"path\":[", f);
        const unsigned ar = s->arity[k];
        for (unsigned l = 0; l < s->levels[k]; l++, off += ar - 1) {
            fputs(l ? ",{\"hashes\":" : "{\"hashes\":", f);
            put_frs(f, sibs + off, ar - 1);
            fprintf(f, ",\"index\":%llu}", (unsigned long long)(rest % ar));
            rest /= ar;
        }
        fputs("]}", f);
    }
    if (s->n > 1) fputs(",\"root\":", f), put_fr(f, root), fputs(",\"leaf\":", f), put_fr(f, leaf);
    fputs("}}}", f);
}

static void put_column(FILE *f, const struct shape *s, unsigned L, uint64_t node,
                       const cuzk_fr *rows, const cuzk_fr *sibs, const cuzk_fr *comm_c) {
    cuzk_fr h;
    cuzk_poseidon_hash_merkle((int)L, rows, &h);
    fprintf(f, "{\"column\":{\"index\":%llu,\"rows\":", (unsigned long long)node);
    put_frs(f, rows, L);
    fputs(",\"_h\":null},\"inclusion_proof\":", f);
    put_merkle(f, s, node, sibs, comm_c, &h);
    fputc('}', f);
}

static void put_label(FILE *f, const struct cuzk_fc_profile *p, const cuzk_fr *cols, unsigned layer,
                      uint64_t node) {
    cuzk_fr exp[CUZK_FC_TOTAL_PARENTS];
    cuzk_vanilla_porep_label_parents(p, cols, layer, exp);
    fputs("{\"parents\":", f);
    put_frs(f, exp, CUZK_FC_TOTAL_PARENTS);
    fprintf(f, ",\"layer_index\":%u,\"node\":%llu}", layer, (unsigned long long)node);
}

static void put_proof(FILE *f, const struct cuzk_fc_profile *p, const struct shape *sd,
                      const struct shape *sr, const struct cuzk_fc_porep_vanilla *pv,
                      const struct cuzk_fc_porep_challenge *ch) {
    const unsigned L = p->layers, R = p->tree_r_levels;
    cuzk_fr labels[CUZK_POSEIDON_MAX_ARITY], enc;
    cuzk_vanilla_porep_labels(p, &pv->replica_id, ch->challenge, ch->parent_columns, labels);
    cuzk_fr_add(&enc, &labels[L - 1], &ch->data_leaf);
    fputs("{\"comm_d_proofs\":", f);
    put_merkle(f, sd, ch->challenge, ch->tree_d_path, &pv->comm_d, &ch->data_leaf);
    fputs(",\"comm_r_last_proof\":", f);
    put_merkle(f, sr, ch->challenge, ch->tree_r_path, &pv->comm_r_last, &enc);
    fputs(",\"replica_column_proofs\":{\"c_x\":", f);
    put_column(f, sr, L, ch->challenge, labels, ch->tree_c_path, &pv->comm_c);
    for (unsigned q = 0; q < PARENTS; q++) {
        if (q == 0) fputs(",\"drg_parents\":[", f);
        if (q == CUZK_FC_DRG_PARENTS) fputs("],\"exp_parents\":[", f);
        if (q && q != CUZK_FC_DRG_PARENTS) fputc(',', f);
        put_column(f, sr, L, ch->parents[q], ch->parent_columns + (size_t)q * L,
                   ch->parent_paths + (size_t)q * R * 7, &pv->comm_c);
    }
    fputs("]},\"labeling_proofs\":[", f);
    for (unsigned l = 1; l <= L; l++) {
        if (l > 1) fputc(',', f);
        put_label(f, p, ch->parent_columns, l, ch->challenge);
    }
    fputs("],\"encoding_proof\":", f);
    put_label(f, p, ch->parent_columns, L, ch->challenge);
    fputc('}', f);
}

int cuzk_c1_write(const struct cuzk_vanilla *v, const struct cuzk_fc_registered *reg,
                  const uint8_t seed[32], const uint8_t ticket[32], int wrap, uint64_t sector_num,
                  char **out, size_t *len, char *err, size_t errlen) {
    *out = NULL;
    *len = 0;
    struct cuzk_sdr_shape sh;
    if (reg->kind != CUZK_FC_POREP || strcmp(v->profile.name, reg->profile.name) ||
        v->n_parts != reg->partitions || cuzk_sdr_shape_get(reg->sector_size, &sh) || sh.top_arity)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "C1: the vanilla proofs (%s, %u partitions) are not those of %s (%s, %u "
                         "partitions)",
                         v->profile.name, v->n_parts, reg->name, reg->profile.name,
                         reg->partitions);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return cuzk_errf(err, errlen, CUZK_ENOMEM, "C1: out of memory");
    const struct cuzk_fc_profile *p = &v->profile;
    const struct cuzk_fc_porep_vanilla *v0 = &v->parts[0].v.porep;
    struct shape sd, sr;
    shape_d(p, &sd);
    shape_r(p, &sh, &sr);
    fprintf(f, "{\"registered_proof\":\"%s\",\"vanilla_proofs\":{\"StackedDrg%sV1\":[", reg->name,
            cuzk_fc_size_name(reg->sector_size));
    for (uint32_t k = 0; k < v->n_parts; k++) {
        fputs(k ? ",[" : "[", f);
        const struct cuzk_fc_porep_vanilla *pv = &v->parts[k].v.porep;
        for (unsigned j = 0; j < p->challenges; j++) {
            if (j) fputc(',', f);
            put_proof(f, p, &sd, &sr, pv, &pv->challenges[j]);
        }
        fputc(']', f);
    }
    fputs("]},\"comm_r\":", f);
    put_fr(f, &v0->comm_r);
    fputs(",\"comm_d\":", f);
    put_fr(f, &v0->comm_d);
    fputs(",\"replica_id\":", f);
    put_fr(f, &v0->replica_id);
    fputs(",\"seed\":", f);
    put_bytes(f, seed);
    fputs(",\"ticket\":", f);
    put_bytes(f, ticket);
    fputc('}', f);
    const int bad = ferror(f);
    if (fclose(f) || bad) {
        free(text);
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "C1: out of memory");
    }
    if (!wrap) {
        *out = text;
        *len = n;
        return CUZK_OK;
    }
    char *b64 = cuzk_base64_encode((const uint8_t *)text, n);
    free(text);
    if (!b64) return cuzk_errf(err, errlen, CUZK_ENOMEM, "C1: out of memory");
    const size_t bn = strlen(b64), cap = bn + 96;
    char *w = malloc(cap);
    if (!w) {
        free(b64);
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "C1: out of memory");
    }
    int m = snprintf(w, cap, "{\"SectorNum\":%llu,\"Phase1Out\":\"%s\",\"SectorSize\":%llu}",
                     (unsigned long long)sector_num, b64, (unsigned long long)reg->sector_size);
    free(b64);
    *out = w;
    *len = (size_t)m;
    return CUZK_OK;
}
