#include "formats/g16key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "formats/fmt.h"
#include "util/checksum.h"
#include "util/pool.h"

/* Counts times point sizes are formed in size_t and u64 without overflow checks: every count is
 * a u32 and a point at most 192 bytes, so each product is below 2^40. */
_Static_assert(sizeof(size_t) >= 8, "g16key needs a 64-bit size_t");
/* LEM bytes are the in-memory points: load reads LEM sections straight into the output array
 * and decodes them in place. */
_Static_assert(sizeof(cuzk_g1_affine) == CUZK_G1_LEM, "cuzk_g1_affine is not its LEM bytes");
_Static_assert(sizeof(cuzk_g2_affine) == CUZK_G2_LEM, "cuzk_g2_affine is not its LEM bytes");

/* Points per pool item when encoding and decoding: compressed decoding costs a square root per
 * point (tens of microseconds), so 2048 points are a coarse item; the LEM work is a copy. */
#define BLOCK_POINTS 2048
/* Points encoded per round of a put: 12 MiB of staging for G2 LEM. */
#define STAGE_POINTS (1u << 16)
/* load reads and decodes this many encoded bytes at a time (whole chunks, at least one). */
#define LOAD_GROUP_BYTES (64u << 20)
/* The writer advises written data out of the page cache in windows of this size. */
#define DROP_WINDOW (256ull << 20)

/* The regions of the file, in file order; the point sections are R_A + section. */
enum { R_SUMS, R_IC, R_AW, R_BW, R_A, R_B1, R_B2, R_C, R_H, R_N };
static const char *const region_name[R_N] = {
    "checksum table", "IC", "A_WIRES", "B_WIRES", "A", "B1", "B2", "C", "H"};
/* Whole-region checksums at the head of SUMS. */
enum { SUM_IC, SUM_AW, SUM_BW, SUM_CHUNKS };

/* Header field offsets (see the layout in g16key.h). */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_FLAGS = 12,
    H_N_VARS = 16,
    H_N_PUBLIC = 20,
    H_DOMAIN = 24,
    H_N_A = 28,
    H_N_B = 32,
    H_CHUNK = 36,
    H_CS = 40,
    H_ALPHA1 = 48,
    H_BETA1 = 144,
    H_DELTA1 = 240,
    H_BETA2 = 336,
    H_GAMMA2 = 528,
    H_DELTA2 = 720,
    H_TABLE = 912,
    H_SUMS_CHECKSUM = 1056,
    H_RESERVED = 1064,
    H_CHECKSUM = CUZK_G16KEY_HEADER_BYTES - 8,
};
_Static_assert(H_TABLE + 16 * R_N == H_SUMS_CHECKSUM, "header table size");

/* ---- stored forms and layout ---------------------------------------------------------- */

/* One stored form of one group: the encoder and the decoder that load uses (no subgroup check).
 * The LEM decoders read from a copy, because load decodes LEM points in place. */
struct codec {
    size_t bytes, psize; /* stored bytes, in-memory bytes */
    void (*enc)(uint8_t *out, const void *p);
    int (*dec)(void *p, const uint8_t *in);
};

static void g1z_enc(uint8_t *out, const void *p) { cuzk_g1_to_compressed(out, p); }
static int g1z_dec(void *p, const uint8_t *in) {
    return cuzk_g1_from_compressed_ex(p, in, CUZK_CHECK_NO_SUBGROUP);
}
static void g1l_enc(uint8_t *out, const void *p) { cuzk_g1_to_lem(out, p); }
static int g1l_dec(void *p, const uint8_t *in) {
    uint8_t t[CUZK_G1_LEM];
    memcpy(t, in, sizeof t);
    return cuzk_g1_from_lem(p, t, CUZK_CHECK_NO_SUBGROUP);
}
static void g2z_enc(uint8_t *out, const void *p) { cuzk_g2_to_compressed(out, p); }
static int g2z_dec(void *p, const uint8_t *in) {
    return cuzk_g2_from_compressed_ex(p, in, CUZK_CHECK_NO_SUBGROUP);
}
static void g2l_enc(uint8_t *out, const void *p) { cuzk_g2_to_lem(out, p); }
static int g2l_dec(void *p, const uint8_t *in) {
    uint8_t t[CUZK_G2_LEM];
    memcpy(t, in, sizeof t);
    return cuzk_g2_from_lem(p, t, CUZK_CHECK_NO_SUBGROUP);
}

/* [G2][compressed] */
static const struct codec codecs[2][2] = {
    {{CUZK_G1_LEM, sizeof(cuzk_g1_affine), g1l_enc, g1l_dec},
     {CUZK_G1_COMPRESSED, sizeof(cuzk_g1_affine), g1z_enc, g1z_dec}},
    {{CUZK_G2_LEM, sizeof(cuzk_g2_affine), g2l_enc, g2l_dec},
     {CUZK_G2_COMPRESSED, sizeof(cuzk_g2_affine), g2z_enc, g2z_dec}},
};

static const struct codec *codec_of(int s, int compressed) {
    return &codecs[s == CUZK_G16KEY_B2][!!compressed];
}

/* Where everything lies, a function of the counts alone. */
struct layout {
    uint64_t off[R_N], bytes[R_N];
    size_t count[CUZK_G16KEY_SECTIONS], pbytes[CUZK_G16KEY_SECTIONS];
    size_t sum_first[CUZK_G16KEY_SECTIONS]; /* index in SUMS of each section's first chunk */
    size_t n_sums;
    uint64_t file_bytes;
};

static uint64_t align_up(uint64_t x) {
    return (x + CUZK_G16KEY_ALIGN - 1) / CUZK_G16KEY_ALIGN * CUZK_G16KEY_ALIGN;
}

/* Validates the counts of in (chunk_points as given: 0 is invalid here) and computes the
 * layout. Returns 0, or -1 with the reason in why. */
static int layout_of(const struct cuzk_g16key_info *in, struct layout *l, char *why,
                     size_t whylen) {
    if (in->chunk_points < 1 || in->chunk_points > CUZK_G16KEY_CHUNK_MAX)
        return cuzk_errf(why, whylen, -1, "chunk_points %u is outside 1 .. %u", in->chunk_points,
                         CUZK_G16KEY_CHUNK_MAX);
    if ((uint64_t)in->n_public + 1 > in->n_vars)
        return cuzk_errf(why, whylen, -1, "n_public %u needs more than n_vars %u wires",
                         in->n_public, in->n_vars);
    if (in->n_a > in->n_vars || in->n_b > in->n_vars)
        return cuzk_errf(why, whylen, -1, "n_a %u or n_b %u exceeds n_vars %u", in->n_a, in->n_b,
                         in->n_vars);
    if (in->domain_size == 0 || (in->domain_size & (in->domain_size - 1)))
        return cuzk_errf(why, whylen, -1, "domain_size %u is not a power of two", in->domain_size);
    if (in->h_basis != CUZK_H_SNARKJS && in->h_basis != CUZK_H_COEFF)
        return cuzk_errf(why, whylen, -1, "H basis %d is unknown", (int)in->h_basis);
    if (in->h_basis == CUZK_H_COEFF && in->domain_size < 2)
        return cuzk_errf(why, whylen, -1, "a coefficient-basis H needs a domain of at least 2");
    const size_t count[CUZK_G16KEY_SECTIONS] = {in->n_a, in->n_b, in->n_b,
                                                (size_t)in->n_vars - in->n_public - 1,
                                                cuzk_h_basis_points(in->h_basis, in->domain_size)};
    size_t n_sums = SUM_CHUNKS;
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++) {
        l->count[s] = count[s];
        l->pbytes[s] = codec_of(s, in->compressed)->bytes;
        l->sum_first[s] = n_sums;
        n_sums += (count[s] + in->chunk_points - 1) / in->chunk_points;
    }
    l->n_sums = n_sums;
    l->bytes[R_SUMS] = 8 * (uint64_t)n_sums;
    l->bytes[R_IC] = ((uint64_t)in->n_public + 1) * CUZK_G1_LEM;
    l->bytes[R_AW] = 4 * (uint64_t)in->n_a;
    l->bytes[R_BW] = 4 * (uint64_t)in->n_b;
    for (int s = 0; s < CUZK_G16KEY_SECTIONS; s++)
        l->bytes[R_A + s] = (uint64_t)l->count[s] * l->pbytes[s];
    uint64_t at = CUZK_G16KEY_HEADER_BYTES;
    for (int r = 0; r < R_N; r++) {
        l->off[r] = align_up(at);
        at = l->off[r] + l->bytes[r];
    }
    l->file_bytes = at;
    return 0;
}

uint32_t cuzk_h_basis_points(enum cuzk_h_basis b, uint32_t domain_size) {
    switch (b) {
    case CUZK_H_SNARKJS: return domain_size;
    case CUZK_H_COEFF: return domain_size ? domain_size - 1 : 0;
    default: return 0;
    }
}

const char *cuzk_h_basis_name(enum cuzk_h_basis b) {
    switch (b) {
    case CUZK_H_SNARKJS: return "snarkjs";
    case CUZK_H_COEFF: return "coefficient";
    default: return "?";
    }
}

const char *cuzk_g16key_section_name(enum cuzk_g16key_section s) {
    return (unsigned)s < CUZK_G16KEY_SECTIONS ? region_name[R_A + s] : "?";
}

uint64_t cuzk_g16key_file_bytes(const struct cuzk_g16key_info *info) {
    struct cuzk_g16key_info in = *info;
    struct layout l = {0};
    char why[160];
    if (!in.chunk_points) in.chunk_points = CUZK_G16KEY_CHUNK_DEFAULT;
    return layout_of(&in, &l, why, sizeof why) ? 0 : l.file_bytes;
}

/* ---- I/O helpers ------------------------------------------------------------------------ */

/* pread/pwrite until len bytes are done: returns the bytes done (< len only at end of file for
 * a read) or -1 with errno set. */
static ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t r = pwrite(fd, (const uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

/* Reads exactly len bytes at off, advising them out of the page cache when the read is large. */
static int read_at(int fd, const char *path, const char *what, void *buf, size_t len, uint64_t off,
                   char *err, size_t errlen) {
    ssize_t r = pread_full(fd, buf, len, off);
    int saved = errno;
    if (len >= CUZK_G16KEY_DROP_BYTES)
        (void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
    if (r < 0)
        return cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: %s: read failed: %s", path, what,
                         strerror(saved));
    if ((size_t)r < len)
        return cuzk_errf(err, errlen, CUZK_EIO,
                         "g16key: %s: %s: short read (%zd of %zu bytes at offset %llu)", path, what,
                         r, len, (unsigned long long)off);
    return CUZK_OK;
}

/* ---- point encoding, in pool blocks ------------------------------------------------------ */

struct codec_job {
    const struct codec *c;
    const uint8_t *src; /* encode: points; decode: stored bytes */
    uint8_t *dst;       /* encode: stored bytes; decode: points (may be src: LEM in place) */
    size_t n;
    size_t *fail_at; /* decode: per block, the first failing point */
    int *fail_code;  /* decode: per block, its decoder's code or CUZK_OK */
};

static void encode_block(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct codec_job *j = ctx;
    size_t lo = item * BLOCK_POINTS, hi = lo + BLOCK_POINTS < j->n ? lo + BLOCK_POINTS : j->n;
    for (size_t i = lo; i < hi; i++) j->c->enc(j->dst + i * j->c->bytes, j->src + i * j->c->psize);
}

static void decode_block(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct codec_job *j = ctx;
    size_t lo = item * BLOCK_POINTS, hi = lo + BLOCK_POINTS < j->n ? lo + BLOCK_POINTS : j->n;
    j->fail_code[item] = CUZK_OK;
    for (size_t i = lo; i < hi; i++) {
        int rc = j->c->dec(j->dst + i * j->c->psize, j->src + i * j->c->bytes);
        if (rc) {
            j->fail_code[item] = rc;
            j->fail_at[item] = i;
            return;
        }
    }
}

static size_t n_blocks(size_t n) { return (n + BLOCK_POINTS - 1) / BLOCK_POINTS; }

/* Decodes n points of codec c from src into dst on pool. Returns CUZK_OK, CUZK_ENOMEM (*at =
 * SIZE_MAX), or the decoder's code for the lowest failing point, whose index goes to *at. */
static int decode_points(const struct codec *c, const void *src, void *dst, size_t n,
                         struct cuzk_pool *pool, size_t *at) {
    size_t nb = n_blocks(n);
    struct codec_job j = {.c = c, .src = src, .dst = dst, .n = n};
    j.fail_at = malloc((nb ? nb : 1) * sizeof *j.fail_at);
    j.fail_code = malloc((nb ? nb : 1) * sizeof *j.fail_code);
    int rc = CUZK_OK;
    *at = SIZE_MAX;
    if (!j.fail_at || !j.fail_code) {
        rc = CUZK_ENOMEM;
    } else {
        cuzk_pool_run(pool, nb, decode_block, &j);
        for (size_t b = 0; b < nb && !rc; b++)
            if (j.fail_code[b]) rc = j.fail_code[b], *at = j.fail_at[b];
    }
    free(j.fail_at);
    free(j.fail_code);
    return rc;
}

/* ---- header ------------------------------------------------------------------------------ */

static void header_encode(uint8_t *h, const struct cuzk_g16key_info *in, const struct layout *l,
                          uint64_t sums_checksum) {
    memset(h, 0, CUZK_G16KEY_HEADER_BYTES);
    memcpy(h + H_MAGIC, CUZK_G16KEY_MAGIC, 8);
    /* the oldest version that describes the file (see the layout) */
    const int coeff = in->h_basis == CUZK_H_COEFF;
    cuzk_fmt_put32(h + H_VERSION, coeff ? 2 : 1);
    cuzk_fmt_put32(h + H_FLAGS, (in->compressed ? CUZK_G16KEY_FLAG_COMPRESSED : 0) |
                                    (coeff ? CUZK_G16KEY_FLAG_H_COEFF : 0));
    cuzk_fmt_put32(h + H_N_VARS, in->n_vars);
    cuzk_fmt_put32(h + H_N_PUBLIC, in->n_public);
    cuzk_fmt_put32(h + H_DOMAIN, in->domain_size);
    cuzk_fmt_put32(h + H_N_A, in->n_a);
    cuzk_fmt_put32(h + H_N_B, in->n_b);
    cuzk_fmt_put32(h + H_CHUNK, in->chunk_points);
    cuzk_fmt_put64(h + H_CS, in->cs_checksum);
    cuzk_g1_to_lem(h + H_ALPHA1, &in->alpha1);
    cuzk_g1_to_lem(h + H_BETA1, &in->beta1);
    cuzk_g1_to_lem(h + H_DELTA1, &in->delta1);
    cuzk_g2_to_lem(h + H_BETA2, &in->beta2);
    cuzk_g2_to_lem(h + H_GAMMA2, &in->gamma2);
    cuzk_g2_to_lem(h + H_DELTA2, &in->delta2);
    for (int r = 0; r < R_N; r++) {
        cuzk_fmt_put64(h + H_TABLE + 16 * r, l->off[r]);
        cuzk_fmt_put64(h + H_TABLE + 16 * r + 8, l->bytes[r]);
    }
    cuzk_fmt_put64(h + H_SUMS_CHECKSUM, sums_checksum);
    cuzk_fmt_put64(h + H_CHECKSUM, cuzk_checksum64(h, H_CHECKSUM));
}

/* ---- writer ------------------------------------------------------------------------------ */

struct cuzk_g16key_writer {
    int fd;
    char *path;
    struct cuzk_g16key_info info; /* chunk_points effective, compressed 0 or 1 */
    struct layout lay;
    struct cuzk_pool *pool;
    uint64_t *sums;                      /* lay.n_sums, filled as regions and chunks complete */
    size_t done[CUZK_G16KEY_SECTIONS];   /* points written */
    int cur;                             /* the section puts go to; earlier ones are complete */
    struct cuzk_checksum chunk;          /* the open chunk of section cur */
    uint8_t *stage;                      /* STAGE_POINTS encoded points */
    uint64_t drop_lo, drop_mid, drop_at; /* page-cache advice, see advise_written */
    int failed;                          /* a latched CUZK_EIO */
};

static void writer_free(struct cuzk_g16key_writer *w, int unlink_file) {
    if (w->fd >= 0) close(w->fd);
    if (unlink_file && w->path) unlink(w->path);
    free(w->path);
    free(w->sums);
    free(w->stage);
    free(w);
}

/* Each byte is advised twice, one window apart: the first call starts its writeback (dirty
 * pages cannot be dropped), the second drops it once clean. */
static void advise_written(struct cuzk_g16key_writer *w, uint64_t end) {
    if (end < w->drop_at) return;
    (void)posix_fadvise(w->fd, (off_t)w->drop_lo, (off_t)(end - w->drop_lo), POSIX_FADV_DONTNEED);
    w->drop_lo = w->drop_mid;
    w->drop_mid = end;
    w->drop_at = end + DROP_WINDOW;
}

static int write_at(struct cuzk_g16key_writer *w, const void *buf, size_t len, uint64_t off,
                    const char *what, char *err, size_t errlen) {
    if (pwrite_full(w->fd, buf, len, off)) {
        w->failed = 1;
        return cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: %s: write failed: %s", w->path, what,
                         strerror(errno));
    }
    advise_written(w, off + len);
    return CUZK_OK;
}

/* 1 if the n wires of list are strictly increasing and below n_vars; else *bad = the index of
 * the first entry out of order or range. */
static int wires_ok(const uint32_t *list, size_t n, uint32_t n_vars, size_t *bad) {
    for (size_t i = 0; i < n; i++) {
        if (list[i] >= n_vars || (i && list[i] <= list[i - 1])) {
            *bad = i;
            return 0;
        }
    }
    return 1;
}

/* Writes a region given as n items of item bytes, each produced into the stage by fn. */
typedef void (*item_fn)(uint8_t *out, const void *items, size_t i);

static void put_ic(uint8_t *out, const void *items, size_t i) {
    cuzk_g1_to_lem(out, (const cuzk_g1_affine *)items + i);
}
static void put_wire(uint8_t *out, const void *items, size_t i) {
    cuzk_fmt_put32(out, ((const uint32_t *)items)[i]);
}

static int write_region(struct cuzk_g16key_writer *w, int r, const void *items, size_t n,
                        size_t item, item_fn fn, uint64_t *sum, char *err, size_t errlen) {
    size_t per = STAGE_POINTS * CUZK_G1_LEM / item;
    struct cuzk_checksum h;
    cuzk_checksum_init(&h);
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        for (size_t t = 0; t < m; t++) fn(w->stage + t * item, items, i + t);
        cuzk_checksum_update(&h, w->stage, m * item);
        int rc =
            write_at(w, w->stage, m * item, w->lay.off[r] + i * item, region_name[r], err, errlen);
        if (rc) return rc;
    }
    *sum = cuzk_checksum_final(&h);
    return CUZK_OK;
}

int cuzk_g16key_writer_open(struct cuzk_g16key_writer **out, const char *path,
                            const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                            const uint32_t *a_wires, const uint32_t *b_wires,
                            struct cuzk_pool *pool, char *err, size_t errlen) {
    *out = NULL;
    struct cuzk_g16key_info in = *info;
    if (!in.chunk_points) in.chunk_points = CUZK_G16KEY_CHUNK_DEFAULT;
    in.compressed = !!in.compressed;
    struct layout lay = {0};
    char why[160];
    if (layout_of(&in, &lay, why, sizeof why))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "g16key: %s: %s", path, why);
    if (!ic || (in.n_a && !a_wires) || (in.n_b && !b_wires))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "g16key: %s: IC or a wire list is NULL", path);
    size_t bad;
    const char *list = !wires_ok(a_wires, in.n_a, in.n_vars, &bad)   ? "a_wires"
                       : !wires_ok(b_wires, in.n_b, in.n_vars, &bad) ? "b_wires"
                                                                     : NULL;
    if (list)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "g16key: %s: %s entry %zu is not below n_vars %u and above the "
                         "entry before it",
                         path, list, bad, in.n_vars);

    struct cuzk_g16key_writer *w = calloc(1, sizeof *w);
    if (!w) return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", path);
    w->fd = -1;
    w->info = in;
    w->lay = lay;
    w->pool = pool;
    w->drop_at = DROP_WINDOW;
    w->path = strdup(path);
    w->sums = calloc(lay.n_sums, sizeof *w->sums);
    w->stage = malloc((size_t)STAGE_POINTS * CUZK_G2_LEM);
    if (!w->path || !w->sums || !w->stage) {
        writer_free(w, 0);
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", path);
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int rc = cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: cannot create: %s", path,
                           strerror(errno));
        writer_free(w, 0);
        return rc;
    }
    int rc = write_region(w, R_IC, ic, (size_t)in.n_public + 1, CUZK_G1_LEM, put_ic,
                          &w->sums[SUM_IC], err, errlen);
    if (!rc)
        rc = write_region(w, R_AW, a_wires, in.n_a, 4, put_wire, &w->sums[SUM_AW], err, errlen);
    if (!rc)
        rc = write_region(w, R_BW, b_wires, in.n_b, 4, put_wire, &w->sums[SUM_BW], err, errlen);
    if (rc) {
        writer_free(w, 1);
        return rc;
    }
    *out = w;
    return CUZK_OK;
}

/* The error for a section t left incomplete when something else happens. */
static int incomplete(const struct cuzk_g16key_writer *w, int t, const char *when, char *err,
                      size_t errlen) {
    return cuzk_errf(err, errlen, CUZK_EINVAL,
                     "g16key: %s: section %s is incomplete (%zu of %zu points) %s", w->path,
                     region_name[R_A + t], w->done[t], w->lay.count[t], when);
}

int cuzk_g16key_writer_put(struct cuzk_g16key_writer *w, enum cuzk_g16key_section s,
                           const void *points, size_t n, char *err, size_t errlen) {
    if (w->failed)
        return cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: an earlier write failed", w->path);
    if ((unsigned)s >= CUZK_G16KEY_SECTIONS)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "g16key: %s: no section %d", w->path, (int)s);
    if ((int)s < w->cur)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "g16key: %s: section %s comes before %s, which has begun", w->path,
                         region_name[R_A + s], region_name[R_A + w->cur]);
    /* checked before cur moves, so that a refused put changes nothing */
    for (int t = w->cur; t < (int)s; t++)
        if (w->done[t] != w->lay.count[t])
            return incomplete(w, t, "when the next section begins", err, errlen);
    size_t count = w->lay.count[s], pb = w->lay.pbytes[s], cp = w->info.chunk_points;
    if (n > count - w->done[s])
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "g16key: %s: section %s holds %zu points, %zu written, %zu more "
                         "given",
                         w->path, region_name[R_A + s], count, w->done[s], n);
    w->cur = s;
    const struct codec *c = codec_of(s, w->info.compressed);
    for (size_t i = 0; i < n;) {
        size_t m = n - i < STAGE_POINTS ? n - i : STAGE_POINTS;
        struct codec_job j = {
            .c = c, .src = (const uint8_t *)points + i * c->psize, .dst = w->stage, .n = m};
        cuzk_pool_run(w->pool, n_blocks(m), encode_block, &j);
        /* hash chunk by chunk: a chunk may span puts, and a put may span chunks */
        for (size_t t = 0; t < m;) {
            size_t at = w->done[s] + t, in_chunk = at % cp;
            size_t take = cp - in_chunk < m - t ? cp - in_chunk : m - t;
            if (!in_chunk) cuzk_checksum_init(&w->chunk);
            cuzk_checksum_update(&w->chunk, w->stage + t * pb, take * pb);
            if (in_chunk + take == cp || at + take == count)
                w->sums[w->lay.sum_first[s] + at / cp] = cuzk_checksum_final(&w->chunk);
            t += take;
        }
        int rc = write_at(w, w->stage, m * pb, w->lay.off[R_A + s] + w->done[s] * pb,
                          region_name[R_A + s], err, errlen);
        if (rc) return rc;
        w->done[s] += m;
        i += m;
    }
    return CUZK_OK;
}

int cuzk_g16key_writer_close(struct cuzk_g16key_writer *w, char *err, size_t errlen) {
    int rc = CUZK_OK;
    uint8_t *buf = NULL;
    if (w->failed) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: an earlier write failed", w->path);
        goto fail;
    }
    for (int t = 0; t < CUZK_G16KEY_SECTIONS; t++) {
        if (w->done[t] != w->lay.count[t]) {
            rc = incomplete(w, t, "at close", err, errlen);
            goto fail;
        }
    }
    size_t table = w->lay.n_sums * 8;
    buf = malloc(table > CUZK_G16KEY_HEADER_BYTES ? table : CUZK_G16KEY_HEADER_BYTES);
    if (!buf) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", w->path);
        goto fail;
    }
    for (size_t i = 0; i < w->lay.n_sums; i++) cuzk_fmt_put64(buf + 8 * i, w->sums[i]);
    uint64_t sums_checksum = cuzk_checksum64(buf, table);
    if ((rc = write_at(w, buf, table, w->lay.off[R_SUMS], region_name[R_SUMS], err, errlen)))
        goto fail;
    /* the header last: a file interrupted before this point has none */
    header_encode(buf, &w->info, &w->lay, sums_checksum);
    if ((rc = write_at(w, buf, CUZK_G16KEY_HEADER_BYTES, 0, "header", err, errlen))) goto fail;
    /* the size the layout fixes (a trailing empty region ends in a gap that was never written) */
    if (ftruncate(w->fd, (off_t)w->lay.file_bytes) || fsync(w->fd)) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: cannot complete the file: %s", w->path,
                       strerror(errno));
        goto fail;
    }
    (void)posix_fadvise(w->fd, 0, 0, POSIX_FADV_DONTNEED);
    int fd = w->fd;
    w->fd = -1;
    if (close(fd)) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: close failed: %s", w->path,
                       strerror(errno));
        goto fail;
    }
    free(buf);
    writer_free(w, 0);
    return CUZK_OK;
fail:
    free(buf);
    writer_free(w, 1);
    return rc;
}

void cuzk_g16key_writer_abort(struct cuzk_g16key_writer *w) {
    if (w) writer_free(w, 1);
}

/* ---- reader ------------------------------------------------------------------------------ */

struct cuzk_g16key {
    int fd;
    char *path;
    struct cuzk_g16key_info info;
    struct layout lay;
    uint64_t *sums;
    cuzk_g1_affine *ic;
    uint32_t *a_wires, *b_wires;
};

void cuzk_g16key_close(struct cuzk_g16key *k) {
    if (!k) return;
    if (k->fd >= 0) close(k->fd);
    free(k->path);
    free(k->sums);
    cuzk_fmt_free(k->ic);
    cuzk_fmt_free(k->a_wires);
    cuzk_fmt_free(k->b_wires);
    free(k);
}

/* Reads region r whole into buf and checks it against want. */
static int read_region(struct cuzk_g16key *k, int r, void *buf, uint64_t want, char *err,
                       size_t errlen) {
    int rc =
        read_at(k->fd, k->path, region_name[r], buf, k->lay.bytes[r], k->lay.off[r], err, errlen);
    if (rc) return rc;
    if (cuzk_checksum64(buf, k->lay.bytes[r]) != want)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "g16key: %s: %s%s: checksum mismatch", k->path,
                         r == R_SUMS ? "" : "section ", region_name[r]);
    return CUZK_OK;
}

static int read_wires(struct cuzk_g16key *k, int r, uint32_t **out, size_t n, uint64_t want,
                      char *err, size_t errlen) {
    if (!(*out = cuzk_fmt_alloc(n, 4)))
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", k->path);
    int rc = read_region(k, r, *out, want, err, errlen);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) (*out)[i] = cuzk_fmt_le32((const uint8_t *)&(*out)[i]);
    size_t bad;
    if (!wires_ok(*out, n, k->info.n_vars, &bad))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "g16key: %s: section %s entry %zu (%u) is not below n_vars %u and "
                         "above the entry before it",
                         k->path, region_name[r], bad, (*out)[bad], k->info.n_vars);
    return CUZK_OK;
}

/* The header fields and checks after the magic, version and checksum. */
static int open_header(struct cuzk_g16key *k, const uint8_t *h, uint64_t size, char *err,
                       size_t errlen) {
    struct cuzk_g16key_info *in = &k->info;
    uint32_t flags = cuzk_fmt_le32(h + H_FLAGS);
    uint32_t known = CUZK_G16KEY_FLAG_COMPRESSED;
    if (cuzk_fmt_le32(h + H_VERSION) >= 2) known |= CUZK_G16KEY_FLAG_H_COEFF;
    if (flags & ~known)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "g16key: %s: unknown flags 0x%x", k->path,
                         flags);
    in->h_basis = flags & CUZK_G16KEY_FLAG_H_COEFF ? CUZK_H_COEFF : CUZK_H_SNARKJS;
    for (size_t i = H_RESERVED; i < H_CHECKSUM; i++)
        if (h[i])
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "g16key: %s: reserved header byte %zu is not zero", k->path, i);
    in->compressed = (int)(flags & CUZK_G16KEY_FLAG_COMPRESSED);
    in->n_vars = cuzk_fmt_le32(h + H_N_VARS);
    in->n_public = cuzk_fmt_le32(h + H_N_PUBLIC);
    in->domain_size = cuzk_fmt_le32(h + H_DOMAIN);
    in->n_a = cuzk_fmt_le32(h + H_N_A);
    in->n_b = cuzk_fmt_le32(h + H_N_B);
    in->chunk_points = cuzk_fmt_le32(h + H_CHUNK);
    in->cs_checksum = cuzk_fmt_le64(h + H_CS);
    char why[160];
    if (layout_of(in, &k->lay, why, sizeof why))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "g16key: %s: %s", k->path, why);
    /* before anything is allocated: the counts of a corrupt header cannot make us allocate or
     * read more than the file holds */
    if (size != k->lay.file_bytes)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "g16key: %s: the file is %llu bytes, its header's counts need %llu "
                         "(%s)",
                         k->path, (unsigned long long)size, (unsigned long long)k->lay.file_bytes,
                         size < k->lay.file_bytes ? "truncated" : "trailing bytes");
    for (int r = 0; r < R_N; r++) {
        uint64_t off = cuzk_fmt_le64(h + H_TABLE + 16 * r);
        uint64_t bytes = cuzk_fmt_le64(h + H_TABLE + 16 * r + 8);
        if (off != k->lay.off[r] || bytes != k->lay.bytes[r])
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "g16key: %s: region %s is at %llu (%llu bytes), the counts "
                             "put it at %llu (%llu bytes)",
                             k->path, region_name[r], (unsigned long long)off,
                             (unsigned long long)bytes, (unsigned long long)k->lay.off[r],
                             (unsigned long long)k->lay.bytes[r]);
    }
    struct {
        int at, g2;
        void *p;
        const char *name;
    } pts[6] = {{H_ALPHA1, 0, &in->alpha1, "alpha1"}, {H_BETA1, 0, &in->beta1, "beta1"},
                {H_DELTA1, 0, &in->delta1, "delta1"}, {H_BETA2, 1, &in->beta2, "beta2"},
                {H_GAMMA2, 1, &in->gamma2, "gamma2"}, {H_DELTA2, 1, &in->delta2, "delta2"}};
    for (int i = 0; i < 6; i++) {
        int rc = pts[i].g2 ? cuzk_g2_from_lem(pts[i].p, h + pts[i].at, CUZK_CHECK_ALL)
                           : cuzk_g1_from_lem(pts[i].p, h + pts[i].at, CUZK_CHECK_ALL);
        if (rc)
            return cuzk_errf(err, errlen, rc, "g16key: %s: header point %s: %s", k->path,
                             pts[i].name, cuzk_strerror(rc));
    }
    return CUZK_OK;
}

/* The header checks of open_body: magic, version, checksum, counts against the file size. */
static int open_head(struct cuzk_g16key *k, uint8_t h[CUZK_G16KEY_HEADER_BYTES], char *err,
                     size_t errlen) {
    struct stat st;
    if (fstat(k->fd, &st))
        return cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: cannot stat: %s", k->path,
                         strerror(errno));
    uint64_t size = (uint64_t)st.st_size;
    if (size < CUZK_G16KEY_HEADER_BYTES)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "g16key: %s: the file is %llu bytes, shorter than its header", k->path,
                         (unsigned long long)size);
    int rc = read_at(k->fd, k->path, "header", h, CUZK_G16KEY_HEADER_BYTES, 0, err, errlen);
    if (rc) return rc;
    if (memcmp(h + H_MAGIC, CUZK_G16KEY_MAGIC, 8))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "g16key: %s: not a key file (bad magic)",
                         k->path);
    uint32_t version = cuzk_fmt_le32(h + H_VERSION);
    if (version < 1 || version > CUZK_G16KEY_VERSION)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "g16key: %s: version %u (this build reads 1 .. %u)", k->path, version,
                         CUZK_G16KEY_VERSION);
    if (cuzk_checksum64(h, H_CHECKSUM) != cuzk_fmt_le64(h + H_CHECKSUM))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "g16key: %s: header checksum mismatch",
                         k->path);
    return open_header(k, h, size, err, errlen);
}

int cuzk_g16key_peek(const char *path, struct cuzk_g16key_info *info, char *err, size_t errlen) {
    struct cuzk_g16key k;
    memset(&k, 0, sizeof k);
    k.path = (char *)path;
    k.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (k.fd < 0)
        return cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: cannot open: %s", path,
                         strerror(errno));
    uint8_t h[CUZK_G16KEY_HEADER_BYTES];
    int rc = open_head(&k, h, err, errlen);
    close(k.fd);
    if (!rc) *info = k.info;
    return rc;
}

static int open_body(struct cuzk_g16key *k, char *err, size_t errlen) {
    uint8_t h[CUZK_G16KEY_HEADER_BYTES];
    int rc = open_head(k, h, err, errlen);
    if (rc) return rc;

    const struct layout *l = &k->lay;
    if (!(k->sums = malloc(l->bytes[R_SUMS])))
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", k->path);
    if ((rc = read_region(k, R_SUMS, k->sums, cuzk_fmt_le64(h + H_SUMS_CHECKSUM), err, errlen)))
        return rc;
    for (size_t i = 0; i < l->n_sums; i++) k->sums[i] = cuzk_fmt_le64((uint8_t *)&k->sums[i]);

    size_t n_ic = (size_t)k->info.n_public + 1;
    if (!(k->ic = cuzk_fmt_alloc(n_ic, sizeof *k->ic)))
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", k->path);
    if ((rc = read_region(k, R_IC, k->ic, k->sums[SUM_IC], err, errlen))) return rc;
    size_t at;
    if ((rc = decode_points(codec_of(CUZK_G16KEY_A, 0), k->ic, k->ic, n_ic, NULL, &at)))
        return at == SIZE_MAX ? cuzk_errf(err, errlen, rc, "g16key: %s: out of memory", k->path)
                              : cuzk_errf(err, errlen, rc, "g16key: %s: IC point %zu: %s", k->path,
                                          at, cuzk_strerror(rc));
    if ((rc = read_wires(k, R_AW, &k->a_wires, k->info.n_a, k->sums[SUM_AW], err, errlen)))
        return rc;
    return read_wires(k, R_BW, &k->b_wires, k->info.n_b, k->sums[SUM_BW], err, errlen);
}

int cuzk_g16key_open(struct cuzk_g16key **out, const char *path, char *err, size_t errlen) {
    *out = NULL;
    struct cuzk_g16key *k = calloc(1, sizeof *k);
    if (!k || !(k->path = strdup(path))) {
        free(k);
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", path);
    }
    k->fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = k->fd < 0 ? cuzk_errf(err, errlen, CUZK_EIO, "g16key: %s: cannot open: %s", path,
                                   strerror(errno))
                       : open_body(k, err, errlen);
    if (rc) {
        cuzk_g16key_close(k);
        return rc;
    }
    *out = k;
    return CUZK_OK;
}

const struct cuzk_g16key_info *cuzk_g16key_get_info(const struct cuzk_g16key *k) {
    return &k->info;
}
const cuzk_g1_affine *cuzk_g16key_ic(const struct cuzk_g16key *k) { return k->ic; }
const uint32_t *cuzk_g16key_a_wires(const struct cuzk_g16key *k) { return k->a_wires; }
const uint32_t *cuzk_g16key_b_wires(const struct cuzk_g16key *k) { return k->b_wires; }

size_t cuzk_g16key_count(const struct cuzk_g16key *k, enum cuzk_g16key_section s) {
    return (unsigned)s < CUZK_G16KEY_SECTIONS ? k->lay.count[s] : 0;
}

size_t cuzk_g16key_point_bytes(const struct cuzk_g16key *k, enum cuzk_g16key_section s) {
    return (unsigned)s < CUZK_G16KEY_SECTIONS ? k->lay.pbytes[s] : 0;
}

int cuzk_g16key_read(struct cuzk_g16key *k, enum cuzk_g16key_section s, size_t first, size_t n,
                     void *buf, char *err, size_t errlen) {
    if ((unsigned)s >= CUZK_G16KEY_SECTIONS)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "g16key: %s: no section %d", k->path, (int)s);
    const struct layout *l = &k->lay;
    size_t count = l->count[s], pb = l->pbytes[s], cp = k->info.chunk_points;
    const char *name = region_name[R_A + s];
    if (first > count || n > count - first)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "g16key: %s: section %s: points %zu + %zu are outside its %zu", k->path,
                         name, first, n, count);
    if (!n) return CUZK_OK;
    if (first % cp || (n % cp && first + n != count))
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "g16key: %s: section %s: points %zu + %zu are not whole chunks of "
                         "%zu",
                         k->path, name, first, n, cp);
    char what[32];
    snprintf(what, sizeof what, "section %s", name);
    int rc = read_at(k->fd, k->path, what, buf, n * pb, l->off[R_A + s] + first * pb, err, errlen);
    if (rc) return rc;
    const uint8_t *b = buf;
    for (size_t p = first; p < first + n; p += cp) {
        size_t m = first + n - p < cp ? first + n - p : cp;
        if (cuzk_checksum64(b + (p - first) * pb, m * pb) != k->sums[l->sum_first[s] + p / cp])
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "g16key: %s: section %s chunk %zu: checksum mismatch", k->path, name,
                             p / cp);
    }
    return CUZK_OK;
}

int cuzk_g16key_load(struct cuzk_g16key *k, enum cuzk_g16key_section s, struct cuzk_pool *pool,
                     void *out, char *err, size_t errlen) {
    if ((unsigned)s >= CUZK_G16KEY_SECTIONS)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "g16key: %s: no section %d", k->path, (int)s);
    size_t count = k->lay.count[s], pb = k->lay.pbytes[s], cp = k->info.chunk_points;
    const struct codec *c = codec_of(s, k->info.compressed);
    size_t chunks = LOAD_GROUP_BYTES / (cp * pb);
    size_t group = (chunks ? chunks : 1) * cp;
    if (group > count) group = count;
    /* LEM points are read straight into out and decoded in place; zcash ones need a stage */
    int compressed = k->info.compressed;
    uint8_t *stage = compressed && count ? malloc(group * pb) : NULL;
    if (compressed && count && !stage)
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "g16key: %s: out of memory", k->path);
    int rc = CUZK_OK;
    for (size_t first = 0; first < count && !rc; first += group) {
        size_t n = count - first < group ? count - first : group, at;
        uint8_t *dst = (uint8_t *)out + first * c->psize;
        void *src = compressed ? (void *)stage : (void *)dst;
        if ((rc = cuzk_g16key_read(k, s, first, n, src, err, errlen))) break;
        if ((rc = decode_points(c, src, dst, n, pool, &at)))
            rc = at == SIZE_MAX
                     ? cuzk_errf(err, errlen, rc, "g16key: %s: out of memory", k->path)
                     : cuzk_errf(err, errlen, rc, "g16key: %s: section %s point %zu: %s", k->path,
                                 region_name[R_A + s], first + at, cuzk_strerror(rc));
    }
    free(stage);
    return rc;
}
