/* Checks on a request's wire bytes that the decoded C structs can no longer show.
 *
 * protobuf-c decodes a string field into a NUL-terminated char *: a NUL byte inside the string
 * silently cuts it short (a request id "a\0b" would name job "a"). The decoded message cannot
 * tell, so the service checks the bytes it decoded from, against the message's descriptor.
 *
 * Contract: cuzk_wire_strings_ok walks the encoded message buf[0 .. len) (which protobuf-c has
 * already accepted) and, for every field the descriptor declares as a string, in nested
 * messages too, checks that its bytes hold no control character (below 0x20, or 0x7f: NUL,
 * newlines, escape sequences). Every string of the cuzk.v1 requests is an identifier. Returns 1
 * when all are clean; else 0 with the offending field's name (dotted path) in field.
 * Thread-safety: pure (a decoded message belongs to its caller). */
#ifndef CUZK_SERVER_WIRE_H
#define CUZK_SERVER_WIRE_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "server/grpc_server.h"

int cuzk_wire_strings_ok(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                         char *field, size_t fieldlen);

/* A request decoded by cuzk_wire_decode: m as protobuf-c decodes it, except that every bytes
 * field (in nested messages too) points into arena, one block holding their contents in the
 * order they came, so that a large request is held once, and can be handed on whole. */
struct cuzk_wire_patch;
struct cuzk_wire_msg {
    ProtobufCMessage *m;
    uint8_t *arena; /* malloc'd (NULL: no bytes, or taken) */
    size_t arena_len;
    struct cuzk_wire_patch *patches; /* the values protobuf-c gave the fields, for its free */
    size_t n_patches;
};

/* Decodes the message of descriptor d from rd (which it reads to the end; the transport frees
 * each piece once read: grpc_server.h). Peak memory is the message's bytes fields once (read
 * straight into the arena) plus its other fields, which are small: a string longer than
 * 4096 bytes is refused, unknown fields are dropped as they are read, and messages nest at
 * most 8 deep. Strings are checked as cuzk_wire_strings_ok does. Returns CUZK_OK (*out to be
 * freed with cuzk_wire_msg_free), CUZK_EFORMAT (the bytes are no such message), CUZK_EINVAL (a
 * string with a control character or too long; why names the field), CUZK_ENOMEM, with a
 * sentence in why. */
int cuzk_wire_decode(const ProtobufCMessageDescriptor *d, struct cuzk_rpc_reader *rd,
                     struct cuzk_wire_msg *out, char *why, size_t whylen);

/* Hands the arena over when p[0 .. n) lies inside it: returns it (the caller frees it with
 * free()) and marks it taken, after which no bytes field of w->m may be read. NULL (nothing
 * taken) otherwise. */
void *cuzk_wire_msg_take(struct cuzk_wire_msg *w, const void *p, size_t n);

/* Frees what w holds (the arena unless taken); safe on a zeroed struct. */
void cuzk_wire_msg_free(struct cuzk_wire_msg *w);

#endif
