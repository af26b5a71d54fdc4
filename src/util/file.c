/* Whole-file reads (util/file.h): open non-blocking, check the type and the size stat gives,
 * then read into a buffer of that size plus the NUL, growing it only if the file turns out
 * longer than stat said. And the cleaning of dead writers' temporary files. */
#define _GNU_SOURCE
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"

#define FILE_GROW_MIN 4096 /* first capacity of a file that stat calls empty (/proc) */

static ssize_t read_some(int fd, void *p, size_t n) {
    ssize_t got;
    do got = read(fd, p, n);
    while (got < 0 && errno == EINTR);
    return got;
}

static int too_large(const char *path, size_t max_bytes, char *err, size_t errlen) {
    return cuzk_errf(err, errlen, CUZK_EINVAL, "%s: larger than %zu bytes", path, max_bytes);
}

int cuzk_file_read(const char *path, size_t max_bytes, uint8_t **out, size_t *len, char *err,
                   size_t errlen) {
    *out = NULL;
    *len = 0;
    /* O_NONBLOCK so that a FIFO is refused below instead of waiting for a writer; it is
     * cleared before reading a character device, and reads of a regular file ignore it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return cuzk_errf(err, errlen, e == ENOENT ? CUZK_ENOTFOUND : CUZK_EIO, "%s: %s", path,
                         strerror(e));
    }
    struct stat st;
    uint8_t *b = NULL;
    size_t n = 0, cap;
    int rc = CUZK_OK;
    if (fstat(fd, &st)) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
        const char *what = S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "a block device";
        rc = cuzk_errf(err, errlen, CUZK_EINVAL, "%s: not a regular file (%s)", path, what);
        goto out;
    }
    if (S_ISCHR(st.st_mode)) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            rc = cuzk_errf(err, errlen, CUZK_EIO, "%s: %s", path, strerror(errno));
            goto out;
        }
    }
    if ((uint64_t)st.st_size > max_bytes) {
        rc = too_large(path, max_bytes, err, errlen);
        goto out;
    }
    if ((uint64_t)st.st_size >= SIZE_MAX || !(b = malloc(cap = (size_t)st.st_size + 1))) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "%s: out of memory (%llu bytes)", path,
                       (unsigned long long)st.st_size + 1);
        goto out;
    }
    for (;;) {
        /* With the buffer full (but for the NUL), one byte more tells whether the file ends
         * where stat said. */
        uint8_t probe;
        const int full = n == cap - 1;
        ssize_t got = read_some(fd, full ? &probe : b + n, full ? 1 : cap - 1 - n);
        if (got < 0) {
            rc = cuzk_errf(err, errlen, CUZK_EIO, "%s: read error: %s", path, strerror(errno));
            goto out;
        }
        if (got == 0) break;
        if (!full) {
            n += (size_t)got;
            continue;
        }
        if (n >= max_bytes) {
            rc = too_large(path, max_bytes, err, errlen);
            goto out;
        }
        /* n < max_bytes, so max_bytes + 1 holds the probe and the NUL */
        size_t ncap = cap <= SIZE_MAX / 2 ? 2 * cap : SIZE_MAX;
        if (ncap < FILE_GROW_MIN) ncap = FILE_GROW_MIN;
        if (max_bytes < SIZE_MAX && ncap > max_bytes + 1) ncap = max_bytes + 1;
        uint8_t *nb = ncap > cap ? realloc(b, ncap) : NULL;
        if (!nb) {
            rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "%s: out of memory (%zu bytes)", path, ncap);
            goto out;
        }
        b = nb;
        cap = ncap;
        b[n++] = probe;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    b = NULL;
out:
    free(b);
    close(fd);
    return rc;
}

/* The writer's pid in a name "<base>.tmp.<pid>", or 0 when the name is not of that form. */
static long tmp_writer(const char *name) {
    const char *t = strstr(name, ".tmp.");
    if (!t || t == name) return 0;
    while (strstr(t + 1, ".tmp.")) t = strstr(t + 1, ".tmp."); /* the last one */
    const char *d = t + 5;
    if (*d < '1' || *d > '9') return 0;
    char *end;
    errno = 0;
    const long pid = strtol(d, &end, 10);
    return *end || errno || pid <= 0 ? 0 : pid;
}

int cuzk_file_clean_stale_tmp(const char *dir, unsigned *removed, uint64_t *bytes, char *err,
                              size_t errlen) {
    if (removed) *removed = 0;
    if (bytes) *bytes = 0;
    DIR *d = opendir(dir);
    if (!d) {
        const int e = errno;
        if (err && errlen) snprintf(err, errlen, "%s: %s", dir, strerror(e));
        return e == ENOENT ? CUZK_ENOTFOUND : CUZK_EIO;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        const long pid = tmp_writer(de->d_name);
        if (!pid || (pid_t)pid == getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive (or not ours) */
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0)) continue;
        if (removed) ++*removed;
        if (bytes) *bytes += (uint64_t)st.st_size;
    }
    closedir(d);
    return CUZK_OK;
}
