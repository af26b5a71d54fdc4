/* Whole-file reads (util/file.h): a normal file comes back byte for byte with a NUL one past
 * its end, an empty file and /dev/null as an empty string, and each refusal has its code, a
 * message that starts with the path, and no buffer: a missing file, a limit exceeded (by the
 * size stat gives, and by a file that stat calls empty: /proc, /dev/zero), a directory, a FIFO
 * (without blocking) and, for a user that permissions bind, an unreadable file. And the
 * cleaning of temporary files whose writer is dead (a child that exited), keeping those of a
 * live writer and every other name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "test_util.h"
#include "util/file.h"

static char dir[64];
static char err[1024];

static void write_file(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(b, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

/* A refusal: code want, no buffer, and err naming path. */
static void expect_refused(int rc, int want, const char *path, const uint8_t *b, size_t n) {
    CHECK(rc == want);
    CHECK(b == NULL && n == 0);
    CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
    if (rc != want) fprintf(stderr, "%s: got %d, want %d: %s\n", path, rc, want, err);
}

static void test_normal(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/normal.bin", dir);
    /* larger than one read of most kernels' pipes and page caches, with zero bytes inside */
    const size_t n = 300001;
    uint8_t *want = malloc(n);
    cuzk_rng_fill(&test_rng, want, n);
    want[7] = 0;
    write_file(path, want, n);
    uint8_t *b;
    size_t len;
    CHECK(cuzk_file_read(path, SIZE_MAX, &b, &len, err, sizeof err) == CUZK_OK);
    CHECK(b != NULL && len == n && memcmp(b, want, n) == 0 && b[n] == 0);
    free(b);
    /* exactly at the limit is allowed */
    CHECK(cuzk_file_read(path, n, &b, &len, err, sizeof err) == CUZK_OK && len == n);
    free(b);
    /* err may be NULL */
    CHECK(cuzk_file_read(path, SIZE_MAX, &b, &len, NULL, 0) == CUZK_OK && len == n);
    free(b);
    free(want);
    unlink(path);
}

static void test_empty(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/empty", dir);
    write_file(path, "", 0);
    uint8_t *b = NULL;
    size_t len = 1;
    CHECK(cuzk_file_read(path, 0, &b, &len, err, sizeof err) == CUZK_OK);
    CHECK(b != NULL && len == 0 && b[0] == 0);
    free(b);
    unlink(path);
}

static void test_missing(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/no-such-file", dir);
    uint8_t *b = (uint8_t *)"x";
    size_t len = 1;
    int rc;
    rc = cuzk_file_read(path, SIZE_MAX, &b, &len, err, sizeof err);
    expect_refused(rc, CUZK_ENOTFOUND, path, b, len);
    CHECK(strstr(err, strerror(ENOENT)) != NULL);
}

static void test_limit(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/hundred", dir);
    char text[100];
    memset(text, 'a', sizeof text);
    write_file(path, text, sizeof text);
    uint8_t *b;
    size_t len;
    int rc;
    rc = cuzk_file_read(path, 99, &b, &len, err, sizeof err);
    expect_refused(rc, CUZK_EINVAL, path, b, len);
    CHECK(strstr(err, "larger than 99 bytes") != NULL);
    unlink(path);
    /* /proc files have no size in stat: the limit holds on what is read */
    const char *proc = "/proc/self/status";
    if (access(proc, R_OK) == 0) {
        CHECK(cuzk_file_read(proc, SIZE_MAX, &b, &len, err, sizeof err) == CUZK_OK);
        CHECK(b != NULL && len > 10 && strlen((char *)b) == len && strstr((char *)b, "Name:"));
        free(b);
        rc = cuzk_file_read(proc, 10, &b, &len, err, sizeof err);
        expect_refused(rc, CUZK_EINVAL, proc, b, len);
        CHECK(strstr(err, "larger than 10 bytes") != NULL);
    }
}

static void test_not_regular(void) {
    uint8_t *b;
    size_t len;
    int rc;
    rc = cuzk_file_read(dir, SIZE_MAX, &b, &len, err, sizeof err);
    expect_refused(rc, CUZK_EINVAL, dir, b, len);
    CHECK(strstr(err, "not a regular file (a directory)") != NULL);
    /* a FIFO without a writer: refused at once, not waited on */
    char path[128];
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    rc = cuzk_file_read(path, SIZE_MAX, &b, &len, err, sizeof err);
    expect_refused(rc, CUZK_EINVAL, path, b, len);
    unlink(path);
}

/* A character device reads to its end: /dev/null as an empty file, /dev/zero up to the limit. */
static void test_char_device(void) {
    uint8_t *b = NULL;
    size_t len = 1;
    int rc;
    if (access("/dev/null", R_OK) == 0) {
        CHECK(cuzk_file_read("/dev/null", 100, &b, &len, err, sizeof err) == CUZK_OK);
        CHECK(b != NULL && len == 0 && b[0] == 0);
        free(b);
    }
    if (access("/dev/zero", R_OK) == 0) {
        rc = cuzk_file_read("/dev/zero", 100000, &b, &len, err, sizeof err);
        expect_refused(rc, CUZK_EINVAL, "/dev/zero", b, len);
        CHECK(strstr(err, "larger than 100000 bytes") != NULL);
    }
}

static void test_unreadable(void) {
    if (geteuid() == 0) return; /* root reads it anyway */
    char path[128];
    snprintf(path, sizeof path, "%s/secret", dir);
    write_file(path, "x", 1);
    CHECK(chmod(path, 0) == 0);
    uint8_t *b;
    size_t len;
    int rc;
    rc = cuzk_file_read(path, SIZE_MAX, &b, &len, err, sizeof err);
    expect_refused(rc, CUZK_EIO, path, b, len);
    CHECK(strstr(err, strerror(EACCES)) != NULL);
    unlink(path);
}

static int exists(const char *name) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void test_stale_tmp(void) {
    /* a dead writer: a child that exited (and was reaped, so its pid is free) */
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0);
    int status;
    CHECK(waitpid(child, &status, 0) == child);
    char dead[64], mine[64], parent[64], p[256];
    snprintf(dead, sizeof dead, "fc-porep.key.tmp.%ld", (long)child);
    snprintf(mine, sizeof mine, "pce.bin.tmp.%ld", (long)getpid());
    snprintf(parent, sizeof parent, "k.tmp.%ld", (long)getppid());
    const char *keep[] = {mine,        parent,   "a.tmp.",    "a.tmp.0",
                          "a.tmp.12x", ".tmp.5", "plain.key", "b.tmp.-3"};
    snprintf(p, sizeof p, "%s/%s", dir, dead);
    write_file(p, "half a key", 10);
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, keep[i]);
        write_file(p, "x", 1);
    }
    unsigned removed = 0;
    uint64_t bytes = 0;
    CHECK(cuzk_file_clean_stale_tmp(dir, &removed, &bytes, err, sizeof err) == CUZK_OK);
    CHECK(removed == 1 && bytes == 10 && !exists(dead));
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        CHECK(exists(keep[i]));
        snprintf(p, sizeof p, "%s/%s", dir, keep[i]);
        unlink(p);
    }
    /* a directory that is not there: nothing to clean */
    snprintf(p, sizeof p, "%s/none", dir);
    CHECK(cuzk_file_clean_stale_tmp(p, &removed, NULL, err, sizeof err) == CUZK_ENOTFOUND);
    CHECK(removed == 0 && strncmp(err, p, strlen(p)) == 0);
}

int main(void) {
    test_init("test_util_file");
    snprintf(dir, sizeof dir, "/tmp/cuzk_util_file_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    test_normal();
    test_empty();
    test_missing();
    test_limit();
    test_not_regular();
    test_char_device();
    test_unreadable();
    test_stale_tmp();
    rmdir(dir);
    return test_finish();
}
