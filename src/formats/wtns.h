/* circom/snarkjs witness files (.wtns version 2): the full assignment w[0..n) of a circuit's
 * wires, in circom's wire order (w[0] = 1).
 *
 * Contract: cuzk_wtns_load / cuzk_wtns_parse accept a file only if section 1 holds n8 = 32,
 * prime = r and nWitness, section 2 holds exactly nWitness values, and both sections are exactly
 * that long (CUZK_EFORMAT otherwise, with a sentence in err); every value must be a canonical
 * integer < r (CUZK_ENONCANON). The values are returned as Montgomery field elements in an owned,
 * aligned array. The writer produces what circom_runtime and snarkjs write (sections 1, 2 in
 * that order). The reader does not require w[0] = 1 (snarkjs does not either); the prover that
 * consumes the witness decides.
 *
 * Thread-safety: pure functions on caller-owned data. */
#ifndef CUZK_FORMATS_WTNS_H
#define CUZK_FORMATS_WTNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ff/fr.h"

#define CUZK_WTNS_VERSION 2

struct cuzk_wtns {
    uint32_t n;
    cuzk_fr *w; /* n values, Montgomery; free with cuzk_wtns_free */
};

int cuzk_wtns_load(struct cuzk_wtns *out, const char *path, char *err, size_t errlen);
/* The same from bytes in memory (not retained). */
int cuzk_wtns_parse(struct cuzk_wtns *out, const void *data, size_t size, char *err, size_t errlen);
/* The header alone, from bytes (path NULL) or a file: *n = nWitness, after the checks above
 * but the values' canonical form (cheap: for a check at submission). */
int cuzk_wtns_peek(const void *data, size_t size, const char *path, uint32_t *n, char *err,
                   size_t errlen);
/* Frees the values and zeroes the struct; safe on a zeroed or failed-to-load struct. */
void cuzk_wtns_free(struct cuzk_wtns *wt);

/* Writes n values to the stream, or to a new file at path. Returns CUZK_OK or CUZK_EIO (with a
 * sentence in err). */
int cuzk_wtns_write(FILE *f, const cuzk_fr *w, uint32_t n, char *err, size_t errlen);
int cuzk_wtns_save(const char *path, const cuzk_fr *w, uint32_t n, char *err, size_t errlen);

#endif
