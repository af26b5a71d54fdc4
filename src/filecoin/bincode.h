/* Reading bincode 1 with its default options (integers little-endian, u64 lengths, u32 enum
 * variants, 32-byte domain values as they are): what rust-fil-proofs' vanilla proofs are when a
 * Filecoin client sends them (filecoin/post_proof.h, filecoin/snap_proof.h). A reader walks a
 * buffer; each call reads one value or fails with CUZK_EFORMAT ("truncated") or CUZK_ENONCANON
 * (a field element >= r) and the sentence "vanilla_proofs: <where>: <what> (at byte N)", where
 * is the caller's position text (entry, proof, ...), kept up to date by the caller.
 * Thread-safety: a reader belongs to one thread. */
#ifndef CUZK_FILECOIN_BINCODE_H
#define CUZK_FILECOIN_BINCODE_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

struct cuzk_bincode {
    const uint8_t *p;
    size_t n, off;
    char *err;
    size_t errlen;
    char where[160]; /* "entry 3 (sector 17), inclusion proof 5" */
};

/* Writes the sentence for the current position and returns code. */
int cuzk_bincode_fail(struct cuzk_bincode *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int cuzk_bincode_u64(struct cuzk_bincode *r, uint64_t *x, const char *what);
int cuzk_bincode_u32(struct cuzk_bincode *r, uint32_t *x, const char *what);
/* 32 bytes, a canonical Fr little-endian. */
int cuzk_bincode_fr(struct cuzk_bincode *r, cuzk_fr *x, const char *what);

#endif
