/* Checks on a request's wire bytes (contract: wire.h). */
#include "server/wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

/* Reads a varint at *p (< end); returns 0 when it runs past end or past 10 bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessageDescriptor *d,
                                                uint64_t number) {
    for (unsigned i = 0; i < d->n_fields; i++)
        if (d->fields[i].id == number) return &d->fields[i];
    return NULL;
}

static int walk(const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end,
                int depth, char *field, size_t fieldlen) {
    if (depth > 16) return 1; /* protobuf-c accepted the nesting; nothing deeper to check */
    while (p < end) {
        uint64_t key, n;
        if (!varint(&p, end, &key)) return 1; /* not ours to judge: unpack accepted it */
        const ProtobufCFieldDescriptor *f = field_of(d, key >> 3);
        switch (key & 7) {
        case 0:
            if (!varint(&p, end, &n)) return 1;
            break;
        case 1:
            if (end - p < 8) return 1;
            p += 8;
            break;
        case 5:
            if (end - p < 4) return 1;
            p += 4;
            break;
        case 2:
            if (!varint(&p, end, &n) || n > (uint64_t)(end - p)) return 1;
            if (f && f->type == PROTOBUF_C_TYPE_STRING) {
                for (uint64_t i = 0; i < n; i++)
                    if (p[i] < 0x20 || p[i] == 0x7f) {
                        snprintf(field, fieldlen, "%s", f->name);
                        return 0;
                    }
            } else if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                char inner[128] = "";
                if (!walk((const ProtobufCMessageDescriptor *)f->descriptor, p, p + n, depth + 1,
                          inner, sizeof inner)) {
                    snprintf(field, fieldlen, "%s.%s", f->name, inner);
                    return 0;
                }
            }
            p += n;
            break;
        default: return 1; /* groups: protobuf-c has no such fields in our messages */
        }
    }
    return 1;
}

int cuzk_wire_strings_ok(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                         char *field, size_t fieldlen) {
    if (field && fieldlen) field[0] = 0;
    char dummy[8];
    if (!field || !fieldlen) field = dummy, fieldlen = sizeof dummy;
    if (!d || !buf || !len) return 1;
    return walk(d, buf, buf + len, 0, field, fieldlen);
}

/* ---- decoding from a reader (cuzk_wire_decode) ------------------------------------------- */

#define WIRE_MAX_DEPTH 8     /* our requests nest two deep */
#define WIRE_MAX_STRING 4096 /* every request string is an identifier */
#define WIRE_TOKEN_LEN 16    /* magic, then the reference's index (u64 LE) */
#define WIRE_READ_PIECE (4u << 20)
static const uint8_t wire_magic[8] = {0xff, 'c', 'u', 'z', 'k', 'r', 'e', 'f'};

struct cuzk_wire_patch {
    ProtobufCBinaryData *slot;
    ProtobufCBinaryData was; /* what protobuf-c allocated: restored before it frees */
};

struct wbuf {
    uint8_t *p;
    size_t n, cap;
};

struct wref {
    size_t off, len;
};

struct dec {
    struct cuzk_rpc_reader *rd;
    uint8_t *arena;
    size_t arena_len, arena_cap;
    struct wref *refs;
    size_t n_refs, cap_refs;
    int rc; /* CUZK_OK, or the first error */
    char *why;
    size_t whylen;
};

static int dec_fail(struct dec *d, int rc, const char *what, const char *name) {
    if (d->rc == CUZK_OK) {
        d->rc = rc;
        snprintf(d->why, d->whylen, "%s%s%s", name ? name : "", name ? " " : "", what);
    }
    return -1;
}

static int wbuf_room(struct wbuf *b, size_t n) {
    if (b->cap - b->n >= n) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->n < n) {
        if (cap > SIZE_MAX / 2) return -1;
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static int put(struct dec *d, struct wbuf *b, const void *x, size_t n) {
    if (wbuf_room(b, n)) return dec_fail(d, CUZK_ENOMEM, "out of memory", NULL);
    memcpy(b->p + b->n, x, n);
    b->n += n;
    return 0;
}

static int put_varint(struct dec *d, struct wbuf *b, uint64_t v) {
    uint8_t x[10];
    size_t n = 0;
    do {
        x[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return put(d, b, x, n);
}

/* Reads n bytes of the message (within *limit) to dst. */
static int take(struct dec *d, void *dst, size_t n, size_t *limit) {
    if (n > *limit || n > d->rd->left)
        return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
    /* in pieces, so that the transport lets go of each one before the next is copied */
    for (size_t off = 0; off < n;) {
        size_t c = n - off < WIRE_READ_PIECE ? n - off : WIRE_READ_PIECE;
        if (d->rd->read(d->rd, (uint8_t *)dst + off, c))
            return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
        off += c;
    }
    *limit -= n;
    return 0;
}

/* Reads a varint (within *limit), its bytes to raw[0 .. *rawn). */
static int take_varint(struct dec *d, uint64_t *v, size_t *limit, uint8_t raw[10], size_t *rawn) {
    *v = 0;
    for (size_t i = 0; i < 10; i++) {
        if (take(d, &raw[i], 1, limit)) return -1;
        *v |= (uint64_t)(raw[i] & 0x7f) << (7 * i);
        if (!(raw[i] & 0x80)) {
            *rawn = i + 1;
            return 0;
        }
    }
    return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
}

/* Decodes the message of descriptor desc in the next `limit` bytes into out: every field as it
 * came, except that a bytes field's contents go to the arena and a token in their place, a
 * nested message is decoded the same way, and unknown fields are dropped. */
static int level(struct dec *d, const ProtobufCMessageDescriptor *desc, size_t limit,
                 struct wbuf *out, int depth) {
    while (limit > 0) {
        uint8_t kraw[10], vraw[10];
        size_t kn, vn;
        uint64_t key, v;
        if (take_varint(d, &key, &limit, kraw, &kn)) return -1;
        if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
            return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
        const ProtobufCFieldDescriptor *f = field_of(desc, key >> 3);
        switch (key & 7) {
        case 0:
            if (take_varint(d, &v, &limit, vraw, &vn)) return -1;
            if (f && (put(d, out, kraw, kn) || put(d, out, vraw, vn))) return -1;
            break;
        case 1:
        case 5: {
            size_t n = (key & 7) == 1 ? 8 : 4;
            if (take(d, vraw, n, &limit)) return -1;
            if (f && (put(d, out, kraw, kn) || put(d, out, vraw, n))) return -1;
            break;
        }
        case 2: {
            if (take_varint(d, &v, &limit, vraw, &vn)) return -1;
            if (v > limit) return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
            size_t n = (size_t)v;
            if (f && f->type == PROTOBUF_C_TYPE_BYTES) {
                if (d->n_refs == d->cap_refs) {
                    size_t cap = d->cap_refs ? 2 * d->cap_refs : 16;
                    struct wref *r = realloc(d->refs, cap * sizeof *r);
                    if (!r) return dec_fail(d, CUZK_ENOMEM, "out of memory", NULL);
                    d->refs = r;
                    d->cap_refs = cap;
                }
                /* the arena holds at most the whole message: always room */
                if (take(d, d->arena + d->arena_len, n, &limit)) return -1;
                d->refs[d->n_refs] = (struct wref){d->arena_len, n};
                d->arena_len += n;
                uint8_t tok[WIRE_TOKEN_LEN];
                memcpy(tok, wire_magic, 8);
                uint64_t k = d->n_refs++;
                for (int i = 0; i < 8; i++) tok[8 + i] = (uint8_t)(k >> (8 * i));
                if (put(d, out, kraw, kn) || put_varint(d, out, WIRE_TOKEN_LEN) ||
                    put(d, out, tok, sizeof tok))
                    return -1;
            } else if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth >= WIRE_MAX_DEPTH)
                    return dec_fail(d, CUZK_EFORMAT, "nests messages too deep", f->name);
                struct wbuf sub = {0};
                int rc = level(d, f->descriptor, n, &sub, depth + 1);
                limit -= n;
                if (!rc && (put(d, out, kraw, kn) || put_varint(d, out, sub.n) ||
                            (sub.n && put(d, out, sub.p, sub.n))))
                    rc = -1;
                free(sub.p);
                if (rc) return -1;
            } else if (f) {
                if (f->type == PROTOBUF_C_TYPE_STRING && n > WIRE_MAX_STRING)
                    return dec_fail(d, CUZK_EINVAL, "is longer than 4096 bytes", f->name);
                if (put(d, out, kraw, kn) || put(d, out, vraw, vn) || wbuf_room(out, n))
                    return d->rc ? -1 : dec_fail(d, CUZK_ENOMEM, "out of memory", NULL);
                if (take(d, out->p + out->n, n, &limit)) return -1;
                out->n += n;
            } else { /* an unknown field: read and dropped, a piece at a time */
                uint8_t skip[4096];
                while (n) {
                    size_t c = n < sizeof skip ? n : sizeof skip;
                    if (take(d, skip, c, &limit)) return -1;
                    n -= c;
                }
            }
            break;
        }
        default: return dec_fail(d, CUZK_EFORMAT, "malformed request message", NULL);
        }
    }
    return 0;
}

static int patch_one(struct cuzk_wire_msg *w, const struct dec *d, ProtobufCBinaryData *b) {
    if (b->len != WIRE_TOKEN_LEN || !b->data || memcmp(b->data, wire_magic, 8)) return 0;
    uint64_t k = 0;
    for (int i = 0; i < 8; i++) k |= (uint64_t)b->data[8 + i] << (8 * i);
    if (k >= d->n_refs || w->n_patches >= d->n_refs) return 0;
    w->patches[w->n_patches++] = (struct cuzk_wire_patch){b, *b};
    b->len = d->refs[k].len;
    b->data = b->len ? w->arena + d->refs[k].off : NULL;
    return 0;
}

/* Points every bytes field of m (tokens) at its contents in the arena. */
static void patch(struct cuzk_wire_msg *w, const struct dec *d, ProtobufCMessage *m) {
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        if (f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        char *at = (char *)m + f->offset;
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)((const char *)m + f->quantifier_offset) != f->id)
            continue; /* another member of the oneof holds the memory */
        size_t n = 1;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            n = *(const size_t *)((const char *)m + f->quantifier_offset);
            at = *(char **)at;
        }
        for (size_t j = 0; j < n && at; j++) {
            if (f->type == PROTOBUF_C_TYPE_BYTES) {
                patch_one(w, d, (ProtobufCBinaryData *)at + j);
            } else {
                ProtobufCMessage *sub = ((ProtobufCMessage **)at)[j];
                if (sub) patch(w, d, sub);
            }
        }
    }
}

int cuzk_wire_decode(const ProtobufCMessageDescriptor *desc, struct cuzk_rpc_reader *rd,
                     struct cuzk_wire_msg *out, char *why, size_t whylen) {
    char dummy[8];
    if (!why || !whylen) why = dummy, whylen = sizeof dummy;
    why[0] = 0;
    memset(out, 0, sizeof *out);
    struct dec d = {.rd = rd, .rc = CUZK_OK, .why = why, .whylen = whylen};
    size_t total = rd->left;
    if (total && !(d.arena = malloc(total))) {
        snprintf(why, whylen, "out of memory");
        return CUZK_ENOMEM;
    }
    d.arena_cap = total;
    struct wbuf rest = {0};
    int rc = level(&d, desc, total, &rest, 0) ? d.rc : CUZK_OK;
    if (!rc) {
        out->m = protobuf_c_message_unpack(desc, NULL, rest.n, rest.p ? rest.p : (uint8_t *)"");
        if (!out->m) rc = CUZK_EFORMAT, snprintf(why, whylen, "malformed request message");
    }
    char bad[128];
    if (!rc && !cuzk_wire_strings_ok(desc, rest.p, rest.n, bad, sizeof bad)) {
        rc = CUZK_EINVAL;
        snprintf(why, whylen,
                 "%s holds a control character (NUL, newline, escape ...): ids are printable", bad);
    }
    free(rest.p);
    if (!rc && d.arena_len < d.arena_cap) { /* hand back what the fields did not fill */
        if (!d.arena_len) {
            free(d.arena);
            d.arena = NULL;
        } else {
            uint8_t *a = realloc(d.arena, d.arena_len);
            if (a) d.arena = a;
        }
    }
    out->arena = d.arena;
    out->arena_len = d.arena_len;
    if (!rc && d.n_refs && !(out->patches = calloc(d.n_refs, sizeof *out->patches))) {
        rc = CUZK_ENOMEM;
        snprintf(why, whylen, "out of memory");
    }
    if (!rc) patch(out, &d, out->m);
    free(d.refs);
    if (rc) cuzk_wire_msg_free(out);
    return rc;
}

void *cuzk_wire_msg_take(struct cuzk_wire_msg *w, const void *p, size_t n) {
    const uint8_t *q = p;
    if (!w->arena || !q || q < w->arena || n > w->arena_len ||
        (size_t)(q - w->arena) > w->arena_len - n)
        return NULL;
    void *a = w->arena;
    w->arena = NULL; /* the taker's now; the fields that point into it must not be read */
    return a;
}

void cuzk_wire_msg_free(struct cuzk_wire_msg *w) {
    if (!w) return;
    for (size_t i = w->n_patches; i-- > 0;) *w->patches[i].slot = w->patches[i].was;
    if (w->m) protobuf_c_message_free_unpacked(w->m, NULL);
    free(w->patches);
    free(w->arena);
    memset(w, 0, sizeof *w);
}
