/* A fast 64-bit checksum of byte ranges, for the files cuzk writes and reads back (the
 * pre-compiled constraint systems, the key files and their chunks): a 4-lane multiply-xorshift
 * hash, several GB/s, that detects corruption, not tampering (the cache directory is trusted).
 *
 * Contract: cuzk_checksum64(data, len) is the checksum of the range; the incremental form
 * (state from cuzk_checksum_init, then cuzk_checksum_update over any split of the same bytes,
 * then cuzk_checksum_final) gives the same value. The values are part of the file formats (keys
 * are named by them): they never change.
 * Thread-safety: reentrant; a state is used by one thread at a time. */
#ifndef CUZK_UTIL_CHECKSUM_H
#define CUZK_UTIL_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

struct cuzk_checksum {
    uint64_t lane[4];
    uint8_t tail[32];
    size_t n_tail;
    uint64_t total;
};

void cuzk_checksum_init(struct cuzk_checksum *h);
void cuzk_checksum_update(struct cuzk_checksum *h, const void *data, size_t len);
uint64_t cuzk_checksum_final(const struct cuzk_checksum *h);
uint64_t cuzk_checksum64(const void *data, size_t len);

#endif
