/* Reading a log line by line, and its numbers (contract in loglines.h). */
#define _GNU_SOURCE /* getline */
#include "client/loglines.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "cuzk/error.h"

int cuzk_log_lines(FILE *f, int (*fn)(void *ctx, const char *line, size_t len), void *ctx) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = CUZK_OK;
    for (;;) {
        errno = 0;
        if ((n = getline(&line, &cap, f)) < 0) {
            if (errno == ENOMEM)
                rc = CUZK_ENOMEM;
            else if (ferror(f))
                rc = CUZK_EIO;
            break;
        }
        if ((rc = fn(ctx, line, (size_t)n))) break;
    }
    free(line);
    return rc;
}

int cuzk_log_number(const char *s, size_t n, double *out) {
    if (n == 0 || n > 40) return -1;
    char buf[48];
    int dots = 0, digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.')
            dots++;
        else if (s[i] >= '0' && s[i] <= '9')
            digits++;
        else
            return -1;
        buf[i] = s[i];
    }
    if (dots > 1 || digits == 0) return -1;
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return isfinite(*out) ? 0 : -1;
}
