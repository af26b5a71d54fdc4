/* Helpers shared by the file-format readers and writers of src/formats/: size-checked array
 * allocation (error sentences come from cuzk_errf).
 *
 * Contract: every reader of this layer returns a cuzk error code AND, when the caller passes a
 * buffer (err != NULL, errlen > 0), a human-readable sentence naming the file kind and what is
 * wrong ("zkey: section 7 (B2) holds 1000 points, header says 1001"); on success the buffer is
 * left untouched. Arrays for decoded data are cache-line aligned, and their byte size is
 * computed with an overflow check, because element counts come from untrusted files.
 * Thread-safety: pure functions (the allocator is thread-safe). */
#ifndef CUZK_FORMATS_FMT_H
#define CUZK_FORMATS_FMT_H

#include <stddef.h>
#include <stdint.h>

#define CUZK_FMT_ALIGN 64

/* Error sentences: cuzk_errf (cuzk/error.h). */
#include "cuzk/error.h"

/* Returns a CUZK_FMT_ALIGN-aligned, uninitialised array of n elements of size bytes each, or
 * NULL when n * size overflows or memory is exhausted (not zeroed: decoders overwrite every
 * element, and zeroing gigabytes of key material first would double the memory traffic).
 * n = 0 yields a valid, freeable pointer. Free with cuzk_fmt_free. */
void *cuzk_fmt_alloc(size_t n, size_t size);
void cuzk_fmt_free(void *p);

/* Little-endian integers at an arbitrary (unaligned) address. */
static inline uint32_t cuzk_fmt_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cuzk_fmt_le64(const uint8_t *p) {
    return (uint64_t)cuzk_fmt_le32(p) | (uint64_t)cuzk_fmt_le32(p + 4) << 32;
}
/* 1 if the 8 nlimbs little-endian bytes at p equal the integer m (nlimbs limbs): the "prime"
 * fields of the iden3 headers. */
static inline int cuzk_fmt_is_modulus(const uint8_t *p, const uint64_t *m, int nlimbs) {
    for (int i = 0; i < nlimbs; i++)
        if (cuzk_fmt_le64(p + 8 * i) != m[i]) return 0;
    return 1;
}
static inline void cuzk_fmt_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void cuzk_fmt_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
