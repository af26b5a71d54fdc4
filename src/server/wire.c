/* Checks on a request's wire bytes (contract: wire.h). */
#include "server/wire.h"

#include <stdio.h>
#include <string.h>

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
    if (!d || (!buf && len)) return 1;
    return walk(d, buf, buf + len, 0, field, fieldlen);
}
