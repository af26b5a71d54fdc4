/* Reading a log line by line, and its numbers, for the log readers of the client (timeline.h,
 * stages.h).
 *
 * cuzk_log_lines calls fn(ctx, line, len) for every line of f in order (len bytes, the line's
 * "\n" included when it has one; line is valid only during the call) until fn returns nonzero
 * or the stream ends. Returns fn's nonzero code, CUZK_ENOMEM (a line could not be held),
 * CUZK_EIO (a read error) or CUZK_OK.
 *
 * cuzk_log_number parses s[0 .. n) as a non-negative decimal number: digits with at most one
 * '.', at least one digit, at most 40 characters (no sign, exponent, "inf" or "nan"). Returns 0
 * with *out set, or -1.
 *
 * Thread-safety: none needed (no state). */
#ifndef CUZK_CLIENT_LOGLINES_H
#define CUZK_CLIENT_LOGLINES_H

#include <stddef.h>
#include <stdio.h>

int cuzk_log_lines(FILE *f, int (*fn)(void *ctx, const char *line, size_t len), void *ctx);
int cuzk_log_number(const char *s, size_t n, double *out);

#endif
