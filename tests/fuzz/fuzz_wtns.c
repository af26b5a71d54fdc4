/* libFuzzer harness of the .wtns reader (formats/wtns.h, on formats/binfile.h).
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - parse, and peek from memory and from a file (the mapping reader), each end in a witness
 *     or one of the documented codes with a "wtns: " sentence;
 *   - peek agrees with parse: the same code, except that peek skips the values' canonical
 *     check (parse's CUZK_ENONCANON is peek's CUZK_OK), and the same count; peek from a file
 *     agrees with peek from memory;
 *   - a witness written again (cuzk_wtns_write) reads back as the same values, and a file of
 *     exactly sections 1 and 2 in that order is written back byte for byte. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/binfile.h"
#include "formats/fmt.h"
#include "formats/wtns.h"
#include "fuzz_util.h"

static const uint64_t wtns_errors =
    FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) | FUZZ_ERR(CUZK_ENOMEM);

/* 1 when the section table is exactly ids 1, 2 in this order (what the writer emits). */
static int canonical_order(const uint8_t *data, size_t size) {
    size_t off = CUZK_BINFILE_HEADER;
    if (size < off || cuzk_fmt_le32(data + 8) != 2) return 0;
    for (uint32_t id = 1; id <= 2; id++) {
        if (size - off < CUZK_BINFILE_SECTION_HEADER || cuzk_fmt_le32(data + off) != id) return 0;
        uint64_t n = cuzk_fmt_le64(data + off + 4);
        if (n > size - off - CUZK_BINFILE_SECTION_HEADER) return 0;
        off += CUZK_BINFILE_SECTION_HEADER + (size_t)n;
    }
    return off == size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256] = "", perr[256] = "", ferr[256] = "", path[64];
    uint32_t pn = 0, fn = 0;
    int prc = cuzk_wtns_peek(data, size, NULL, &pn, perr, sizeof perr);
    fuzz_outcome(prc, perr, wtns_errors, "wtns: ");
    int fd = fuzz_memfd(data, size, path, sizeof path);
    int frc = cuzk_wtns_peek(NULL, 0, path, &fn, ferr, sizeof ferr);
    close(fd);
    fuzz_outcome(frc, ferr, wtns_errors | FUZZ_ERR(CUZK_EIO), "wtns: ");
    /* an empty file cannot be mapped: the file reader says EIO where memory says EFORMAT */
    FUZZ_CHECK(frc == prc || (size == 0 && frc == CUZK_EIO));
    if (!prc) FUZZ_CHECK(fn == pn);

    struct cuzk_wtns w;
    int rc = cuzk_wtns_parse(&w, data, size, err, sizeof err);
    FUZZ_CHECK(rc == prc || (prc == CUZK_OK && (rc == CUZK_ENONCANON || rc == CUZK_ENOMEM)));
    if (!fuzz_outcome(rc, err, wtns_errors, "wtns: ")) {
        cuzk_wtns_free(&w);
        return 0;
    }
    FUZZ_CHECK(w.n == pn);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(cuzk_wtns_write(f, w.w, w.n, err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(fclose(f) == 0);
    struct cuzk_wtns again;
    FUZZ_CHECK(cuzk_wtns_parse(&again, buf, len, err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(again.n == w.n && (w.n == 0 || !memcmp(again.w, w.w, w.n * sizeof *w.w)));
    if (canonical_order(data, size)) FUZZ_CHECK(len == size && !memcmp(buf, data, size));
    cuzk_wtns_free(&again);
    cuzk_wtns_free(&w);
    free(buf);
    return 0;
}
