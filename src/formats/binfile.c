#include "formats/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "formats/fmt.h"

static void binfile_reset(struct cuzk_binfile *bf) { memset(bf, 0, sizeof *bf); }

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Checks the header and scans the section table of bf->data[0..size). */
static int binfile_scan(struct cuzk_binfile *bf, const char magic[4], uint32_t version, char *err,
                        size_t errlen) {
    const uint8_t *d = bf->data;
    memcpy(bf->magic, magic, 4);
    bf->magic[4] = '\0';
    const char *k = bf->magic;
    if (bf->size < CUZK_BINFILE_HEADER)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "%s: file of %zu bytes is shorter than the %d-byte header", k, bf->size,
                         CUZK_BINFILE_HEADER);
    if (memcmp(d, magic, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++) got[i] = (d[i] >= 0x20 && d[i] < 0x7f) ? (char)d[i] : '?';
        got[4] = '\0';
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "%s: wrong magic \"%s\" (not a .%s file)", k,
                         got, k);
    }
    bf->version = cuzk_fmt_le32(d + 4);
    if (bf->version != version)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "%s: version %u is not supported (expected %u)",
                         k, bf->version, version);
    uint32_t n = cuzk_fmt_le32(d + 8);
    /* every section costs at least its 12-byte header: bound n before allocating */
    if ((uint64_t)n * CUZK_BINFILE_SECTION_HEADER > bf->size - CUZK_BINFILE_HEADER)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "%s: header announces %u sections, the %zu-byte file cannot hold "
                         "them",
                         k, n, bf->size);
    bf->sections = malloc(((size_t)n + 1) * sizeof *bf->sections);
    if (bf->sections == NULL) return cuzk_errf(err, errlen, CUZK_ENOMEM, "%s: out of memory", k);
    uint64_t pos = CUZK_BINFILE_HEADER;
    for (uint32_t i = 0; i < n; i++) {
        if (bf->size - pos < CUZK_BINFILE_SECTION_HEADER)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "%s: truncated: the header of section %u of %u runs past the "
                             "end of the file (%zu bytes)",
                             k, i + 1, n, bf->size);
        struct cuzk_binfile_section *s = &bf->sections[i];
        s->id = cuzk_fmt_le32(d + pos);
        s->size = cuzk_fmt_le64(d + pos + 4);
        s->offset = pos + CUZK_BINFILE_SECTION_HEADER;
        if (s->size > bf->size - s->offset)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "%s: truncated: section %u of %llu bytes at offset %llu runs "
                             "past the end of the file (%zu bytes)",
                             k, s->id, (unsigned long long)s->size, (unsigned long long)s->offset,
                             bf->size);
        pos = s->offset + s->size;
    }
    if (pos != bf->size)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "%s: %llu stray bytes after the last section",
                         k, (unsigned long long)(bf->size - pos));
    /* duplicates: sort a copy of the ids (a crafted file may hold millions of empty sections,
     * too many for a pairwise comparison) */
    uint32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
    if (ids == NULL) return cuzk_errf(err, errlen, CUZK_ENOMEM, "%s: out of memory", k);
    for (uint32_t i = 0; i < n; i++) ids[i] = bf->sections[i].id;
    qsort(ids, n, sizeof *ids, cmp_u32);
    for (uint32_t i = 1; i < n; i++)
        if (ids[i] == ids[i - 1]) {
            uint32_t id = ids[i];
            free(ids);
            return cuzk_errf(err, errlen, CUZK_EFORMAT, "%s: section %u appears twice", k, id);
        }
    free(ids);
    bf->n_sections = n;
    return CUZK_OK;
}

int cuzk_binfile_from_mem(struct cuzk_binfile *bf, const void *data, size_t size,
                          const char magic[4], uint32_t version, char *err, size_t errlen) {
    binfile_reset(bf);
    bf->data = data;
    bf->size = size;
    int rc = binfile_scan(bf, magic, version, err, errlen);
    if (rc) cuzk_binfile_close(bf);
    return rc;
}

int cuzk_binfile_open(struct cuzk_binfile *bf, const char *path, const char magic[4],
                      uint32_t version, char *err, size_t errlen) {
    binfile_reset(bf);
    char k[5];
    memcpy(k, magic, 4);
    k[4] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_errf(err, errlen, CUZK_EIO, "%s: cannot open %s: %s", k, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_errf(err, errlen, CUZK_EIO, "%s: cannot stat %s: %s", k, path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_errf(err, errlen, CUZK_EIO, "%s: %s is not a regular file", k, path);
    }
    size_t size = (size_t)st.st_size;
    void *map = NULL;
    if (size > 0) { /* mmap rejects empty mappings; an empty file fails the scan below */
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cuzk_errf(err, errlen, CUZK_EIO, "%s: cannot map %s: %s", k, path, strerror(e));
        }
    }
    close(fd); /* the mapping keeps the file alive */
    bf->map = map;
    bf->map_size = size;
    bf->data = map;
    bf->size = size;
    int rc = binfile_scan(bf, magic, version, err, errlen);
    if (rc) cuzk_binfile_close(bf);
    return rc;
}

void cuzk_binfile_close(struct cuzk_binfile *bf) {
    free(bf->sections);
    if (bf->map != NULL) munmap(bf->map, bf->map_size);
    binfile_reset(bf);
}

const struct cuzk_binfile_section *cuzk_binfile_find(const struct cuzk_binfile *bf, uint32_t id) {
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == id) return &bf->sections[i];
    return NULL;
}

int cuzk_binfile_require(const struct cuzk_binfile *bf, uint32_t id, const char *name,
                         const struct cuzk_binfile_section **out, char *err, size_t errlen) {
    *out = cuzk_binfile_find(bf, id);
    if (*out == NULL)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "%s: section %u (%s) is missing", bf->magic, id,
                         name);
    return CUZK_OK;
}

/* ---- writer ------------------------------------------------------------------------------- */

static int writer_fail(struct cuzk_binfile_writer *w, int code) {
    if (w->err == CUZK_OK) w->err = code;
    return w->err;
}

int cuzk_binfile_writer_put(struct cuzk_binfile_writer *w, const void *data, size_t n) {
    if (w->err) return w->err;
    if (n > w->owed) return writer_fail(w, CUZK_EINVAL);
    if (n > 0 && fwrite(data, 1, n, w->f) != n) return writer_fail(w, CUZK_EIO);
    w->owed -= n;
    return CUZK_OK;
}

int cuzk_binfile_writer_u32(struct cuzk_binfile_writer *w, uint32_t v) {
    uint8_t b[4];
    cuzk_fmt_put32(b, v);
    return cuzk_binfile_writer_put(w, b, sizeof b);
}

int cuzk_binfile_writer_u64(struct cuzk_binfile_writer *w, uint64_t v) {
    uint8_t b[8];
    cuzk_fmt_put64(b, v);
    return cuzk_binfile_writer_put(w, b, sizeof b);
}

/* Header fields go through put() with a temporary allowance, so one path does all the I/O. */
static int writer_raw(struct cuzk_binfile_writer *w, const uint8_t *b, size_t n) {
    if (w->err) return w->err;
    w->owed = n;
    return cuzk_binfile_writer_put(w, b, n);
}

int cuzk_binfile_writer_begin(struct cuzk_binfile_writer *w, FILE *f, const char magic[4],
                              uint32_t version, uint32_t n_sections) {
    memset(w, 0, sizeof *w);
    w->f = f;
    w->n_sections = n_sections;
    uint8_t h[CUZK_BINFILE_HEADER];
    memcpy(h, magic, 4);
    cuzk_fmt_put32(h + 4, version);
    cuzk_fmt_put32(h + 8, n_sections);
    return writer_raw(w, h, sizeof h);
}

int cuzk_binfile_writer_section(struct cuzk_binfile_writer *w, uint32_t id, uint64_t size) {
    if (w->err) return w->err;
    if (w->owed != 0 || w->written == w->n_sections) return writer_fail(w, CUZK_EINVAL);
    uint8_t h[CUZK_BINFILE_SECTION_HEADER];
    cuzk_fmt_put32(h, id);
    cuzk_fmt_put64(h + 4, size);
    int rc = writer_raw(w, h, sizeof h);
    if (rc) return rc;
    w->written++;
    w->owed = size;
    return CUZK_OK;
}

int cuzk_binfile_writer_end(struct cuzk_binfile_writer *w) {
    if (w->err) return w->err;
    if (w->owed != 0 || w->written != w->n_sections) return writer_fail(w, CUZK_EINVAL);
    if (fflush(w->f) != 0) return writer_fail(w, CUZK_EIO);
    return CUZK_OK;
}
