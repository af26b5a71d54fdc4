#include "formats/fmt.h"

#include <stdlib.h>

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
