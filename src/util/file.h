/* Whole-file reads: the bytes of a file in one malloc'd buffer, for the parsers that
 * take a file as one piece (vanilla proofs, configuration, witnesses, test fixtures).
 *
 * Contract: cuzk_file_read reads the file at path, whole, into a new buffer *out
 * (free() it) of *len bytes, with (*out)[*len] == 0 so that a text parser may take it as a
 * string. The file holds at most max_bytes bytes or is refused (SIZE_MAX: no limit); the limit
 * is checked against what is read, not only against the size stat gives, so a file that grows
 * while it is read, or one that stat calls empty (/proc), is read whole or refused, never cut.
 * A character device is read like a file until its end: /dev/null is the empty file that
 * `-c /dev/null` means (the daemon's tests use it), and the limit bounds an endless one. A
 * directory, a FIFO, a socket or a block device is refused, a FIFO without waiting for a
 * writer (a daemon thread must not hang on a path a client names).
 * Returns
 *   CUZK_OK         the file's bytes;
 *   CUZK_ENOTFOUND  nothing exists at path (ENOENT);
 *   CUZK_EINVAL     path is a directory, a FIFO, a socket or a block device, or the file
 *                   holds more than max_bytes bytes;
 *   CUZK_EIO        the file cannot be opened or read (errno says why);
 *   CUZK_ENOMEM     the buffer cannot be allocated.
 * On error *out is NULL, *len 0, and err holds a sentence that starts with the path ("PATH:
 * No such file or directory", "PATH: larger than N bytes", "PATH: not a regular file (a
 * directory)"), ending with strerror's text where the system said why. Short reads (a header,
 * a magic number) are not this module's job: open the file.
 * Thread-safety: reentrant; no shared state. */
#ifndef CUZK_UTIL_FILE_H
#define CUZK_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

int cuzk_file_read(const char *path, size_t max_bytes, uint8_t **out, size_t *len, char *err,
                   size_t errlen);

/* Removes the files of dir named "<name>.tmp.<pid>" (the temporary name under which the key
 * and constraint-system writers build a file before renaming it) whose writer, process <pid>,
 * no longer exists: what a writer killed mid-write left behind (tens of GB for a porep-c18
 * key). A file of a live process (another daemon writing now, or an unrelated process that
 * reuses a dead writer's pid) and any other name are kept. *removed and *bytes (either may be
 * NULL) count what went. CUZK_OK, or CUZK_EIO with err naming dir when it cannot be read
 * (CUZK_ENOTFOUND when it does not exist: nothing to clean). */
int cuzk_file_clean_stale_tmp(const char *dir, unsigned *removed, uint64_t *bytes, char *err,
                              size_t errlen);

#endif
