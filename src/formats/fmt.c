#include "formats/fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cuzk_fmt_error(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

void *cuzk_fmt_alloc(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    /* aligned_alloc wants a multiple of the alignment, and at least one byte */
    size_t rounded = (bytes + CUZK_FMT_ALIGN - 1) & ~(size_t)(CUZK_FMT_ALIGN - 1);
    if (rounded < bytes) return NULL;
    if (rounded == 0) rounded = CUZK_FMT_ALIGN;
    return aligned_alloc(CUZK_FMT_ALIGN, rounded);
}

void cuzk_fmt_free(void *p) { free(p); }
