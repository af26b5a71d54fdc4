/* The iden3 "binfile" container of .r1cs, .wtns, .zkey and .ptau files:
 *
 *   magic[4] | version u32 | nSections u32 | nSections x { id u32 | size u64 | data[size] }
 *
 * all integers little-endian, sections in any order (circom and snarkjs do not sort them).
 *
 * Contract (reader): cuzk_binfile_open maps a file read-only (large keys are never copied into a
 * second buffer) and cuzk_binfile_from_mem wraps bytes already in memory; both check the magic
 * and the exact version, then scan the whole section table before anything is read, so that a
 * successful open guarantees: every section lies inside the file, no id appears twice, and the
 * sections tile the file exactly (no trailing bytes). Errors: CUZK_EIO (open, stat or map
 * failed), CUZK_EFORMAT (anything malformed), CUZK_ENOMEM; each with a sentence in err that
 * starts with the magic ("zkey: ..."). After a failed open, close is still safe.
 *
 * Contract (writer): writes the container to a stdio stream without seeking (so pipes and
 * memory streams work): the caller declares every section's size up front and the writer checks
 * that exactly that many bytes follow (CUZK_EINVAL otherwise); a failed write latches CUZK_EIO.
 * The writer does not forbid duplicate ids or odd orders, so tests can build malformed files.
 *
 * Thread-safety: an open binfile is immutable and may be read from any number of threads; a
 * writer belongs to one thread. */
#ifndef CUZK_FORMATS_BINFILE_H
#define CUZK_FORMATS_BINFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CUZK_BINFILE_HEADER 12         /* magic, version, nSections */
#define CUZK_BINFILE_SECTION_HEADER 12 /* id u32, size u64 */

struct cuzk_binfile_section {
    uint32_t id;
    uint64_t offset; /* of the section's data, from the start of the file */
    uint64_t size;
};

struct cuzk_binfile {
    const uint8_t *data; /* the whole file */
    size_t size;
    char magic[5]; /* NUL-terminated, for messages */
    uint32_t version;
    uint32_t n_sections;
    struct cuzk_binfile_section *sections; /* in file order */
    void *map;                             /* the mapping to release, or NULL */
    size_t map_size;
};

int cuzk_binfile_open(struct cuzk_binfile *bf, const char *path, const char magic[4],
                      uint32_t version, char *err, size_t errlen);
/* The bytes must outlive the binfile; they are not copied. */
int cuzk_binfile_from_mem(struct cuzk_binfile *bf, const void *data, size_t size,
                          const char magic[4], uint32_t version, char *err, size_t errlen);
/* Releases the section table and the mapping; the data pointer becomes invalid. */
void cuzk_binfile_close(struct cuzk_binfile *bf);

/* The section with this id, or NULL. */
const struct cuzk_binfile_section *cuzk_binfile_find(const struct cuzk_binfile *bf, uint32_t id);
/* The section with this id, which must exist: CUZK_EFORMAT "zkey: section 3 (IC) is missing"
 * otherwise (name is the section's role, for the message). */
int cuzk_binfile_require(const struct cuzk_binfile *bf, uint32_t id, const char *name,
                         const struct cuzk_binfile_section **out, char *err, size_t errlen);
/* A pointer to the section's first byte. */
static inline const uint8_t *cuzk_binfile_ptr(const struct cuzk_binfile *bf,
                                              const struct cuzk_binfile_section *s) {
    return bf->data + s->offset;
}

/* A bounds-checked cursor over a section's bytes: take() hands out the next n bytes, or returns
 * NULL (consuming nothing) when fewer than n remain. */
struct cuzk_bincursor {
    const uint8_t *p;
    uint64_t left;
};

static inline const uint8_t *cuzk_bincursor_take(struct cuzk_bincursor *c, uint64_t n) {
    if (n > c->left) return NULL;
    const uint8_t *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

struct cuzk_binfile_writer {
    FILE *f;
    uint32_t n_sections; /* declared */
    uint32_t written;    /* sections started */
    uint64_t owed;       /* bytes still due to the open section */
    int err;             /* first error, latched */
};

/* Writes the file header. */
int cuzk_binfile_writer_begin(struct cuzk_binfile_writer *w, FILE *f, const char magic[4],
                              uint32_t version, uint32_t n_sections);
/* Starts a section of exactly size bytes (the previous one must be complete). */
int cuzk_binfile_writer_section(struct cuzk_binfile_writer *w, uint32_t id, uint64_t size);
int cuzk_binfile_writer_put(struct cuzk_binfile_writer *w, const void *data, size_t n);
int cuzk_binfile_writer_u32(struct cuzk_binfile_writer *w, uint32_t v);
int cuzk_binfile_writer_u64(struct cuzk_binfile_writer *w, uint64_t v);
/* Checks that every declared section was written in full and flushes the stream. Returns the
 * first error of the whole write (CUZK_EIO or CUZK_EINVAL) or CUZK_OK. */
int cuzk_binfile_writer_end(struct cuzk_binfile_writer *w);

#endif
