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
 * Thread-safety: pure. */
#ifndef CUZK_SERVER_WIRE_H
#define CUZK_SERVER_WIRE_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

int cuzk_wire_strings_ok(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                         char *field, size_t fieldlen);

#endif
