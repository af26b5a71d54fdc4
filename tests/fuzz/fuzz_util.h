/* What every libFuzzer harness of tests/fuzz/ checks besides "no crash, no sanitizer report":
 * a broken property stops the run (abort: libFuzzer writes the input as crash-*) after one line
 * on stderr naming the harness's file, line and the property.
 *
 * Error outcomes: a parser either succeeds or returns one of the codes its header documents,
 * with a sentence in err that names the format ("zkey: ..."). fuzz_outcome checks both; the
 * allowed codes are a mask of FUZZ_ERR(code) bits.
 *
 * Files: parsers that only take a path (the PCE cache, the g16key reader) read the input from
 * a memfd through /proc/self/fd, so no file system is touched and nothing is left behind. */
#ifndef CUZK_TESTS_FUZZ_UTIL_H
#define CUZK_TESTS_FUZZ_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuzk/error.h"

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The bit of a negative cuzk error code in an allowed-codes mask. */
#define FUZZ_ERR(code) (1ull << (unsigned)-(code))

/* 1 when rc is CUZK_OK; 0 when rc is an allowed error whose sentence in err starts with
 * prefix (NULL: any non-empty sentence); anything else stops the run. */
static inline int fuzz_outcome(int rc, const char *err, uint64_t allowed, const char *prefix) {
    if (rc == CUZK_OK) return 1;
    if (rc > 0 || rc < -63 || !(allowed & FUZZ_ERR(rc))) {
        fprintf(stderr, "fuzz: undocumented outcome %d (%s): %s\n", rc, cuzk_strerror(rc), err);
        abort();
    }
    if (!err[0] || (prefix && strncmp(err, prefix, strlen(prefix)))) {
        fprintf(stderr, "fuzz: outcome %s with the sentence \"%s\" (want it to start \"%s\")\n",
                cuzk_strerror(rc), err, prefix ? prefix : "");
        abort();
    }
    return 0;
}

/* A memory file holding data[0 .. size); its path, /proc/self/fd/N, goes to path[cap].
 * Returns the descriptor (close it when done); stops the run when the kernel refuses. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t cap) {
    int fd = memfd_create("cuzk-fuzz", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, data + off, size - off);
        FUZZ_CHECK(n > 0);
        off += (size_t)n;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* The whole content of a memory file (malloc'd, *size bytes; free() it). */
static inline uint8_t *fuzz_memfd_read(int fd, size_t *size) {
    off_t end = lseek(fd, 0, SEEK_END);
    FUZZ_CHECK(end >= 0);
    uint8_t *b = malloc((size_t)end + 1);
    FUZZ_CHECK(b != NULL);
    FUZZ_CHECK(pread(fd, b, (size_t)end, 0) == (ssize_t)end);
    *size = (size_t)end;
    return b;
}

#endif
