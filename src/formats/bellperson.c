#include "formats/bellperson.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "formats/fmt.h"
#include "util/pool.h"

/* Counts are u32 and points at most 192 bytes: every offset below is formed in u64 without
 * overflow (5 vectors of 2^32 points of 192 bytes stay below 2^43). */
#define BLOCK_POINTS 1024 /* points per pool item when decoding */
#define STAGE_POINTS 4096 /* points encoded per fwrite */

static const char *const vector_name[CUZK_BP_VECTORS] = {"h", "l", "a", "b_g1", "b_g2"};

const char *cuzk_bp_vector_name(enum cuzk_bp_vector v) {
    return (unsigned)v < CUZK_BP_VECTORS ? vector_name[v] : "?";
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* "bellperson: <name>: " or "bellperson: " (name empty). */
#define WHERE(name) "bellperson: %s%s"
#define WHERE_ARGS(name) (name), *(name) ? ": " : ""

/* ---- the verifying key ------------------------------------------------------------------- */

/* One decoded point: G1 or G2, uncompressed, with the chosen subgroup check. */
static int dec_point(void *out, const uint8_t *in, int g2, enum cuzk_point_check c) {
    return g2 ? cuzk_g2_from_uncompressed_ex(out, in, c) : cuzk_g1_from_uncompressed_ex(out, in, c);
}

static int is_inf(const void *p, int g2) {
    return g2 ? cuzk_g2_affine_is_inf(p) : cuzk_g1_affine_is_inf(p);
}

/* The head of a vk at d[0 .. size): its six points (when vk is not NULL) and n_ic. */
static int vk_head(const char *name, const uint8_t *d, size_t size, struct cuzk_bp_vk *vk,
                   uint32_t *n_ic, enum cuzk_point_check check, char *err, size_t errlen) {
    if (size < CUZK_BP_VK_HEAD)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE(name) "truncated: %zu bytes, the verifying key's six points and "
                                     "ic count need %d",
                         WHERE_ARGS(name), size, CUZK_BP_VK_HEAD);
    if (vk) {
        struct {
            const char *field;
            int g2;
            void *p;
        } f[6] = {{"alpha_g1", 0, &vk->alpha1}, {"beta_g1", 0, &vk->beta1},
                  {"beta_g2", 1, &vk->beta2},   {"gamma_g2", 1, &vk->gamma2},
                  {"delta_g1", 0, &vk->delta1}, {"delta_g2", 1, &vk->delta2}};
        size_t at = 0;
        for (int i = 0; i < 6; i++) {
            int rc = dec_point(f[i].p, d + at, f[i].g2, check);
            if (rc)
                return cuzk_errf(err, errlen, rc, WHERE(name) "%s: %s", WHERE_ARGS(name),
                                 f[i].field, cuzk_strerror(rc));
            at += f[i].g2 ? CUZK_G2_UNCOMPRESSED : CUZK_G1_UNCOMPRESSED;
        }
    }
    *n_ic = be32(d + CUZK_BP_VK_HEAD - 4);
    return CUZK_OK;
}

/* Checks that n points of pb bytes fit d[at .. size) for vector `field`. */
static int fits(const char *name, const char *field, uint64_t at, uint32_t n, size_t pb,
                size_t size, char *err, size_t errlen) {
    uint64_t need = (uint64_t)n * pb;
    if (at > size || need > size - at)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE(name) "truncated: %s holds %u points (%llu bytes) from offset "
                                     "%llu, the file ends at %zu",
                         WHERE_ARGS(name), field, n, (unsigned long long)need,
                         (unsigned long long)at, size);
    return CUZK_OK;
}

/* Decodes the n_ic ic points at d (already bounds-checked) into vk->ic. */
static int vk_ic(const char *name, const uint8_t *d, struct cuzk_bp_vk *vk,
                 enum cuzk_point_check check, char *err, size_t errlen) {
    if (!(vk->ic = cuzk_fmt_alloc(vk->n_ic, sizeof *vk->ic)))
        return cuzk_errf(err, errlen, CUZK_ENOMEM, WHERE(name) "out of memory for %u ic points",
                         WHERE_ARGS(name), vk->n_ic);
    for (uint32_t i = 0; i < vk->n_ic; i++) {
        int rc =
            cuzk_g1_from_uncompressed_ex(&vk->ic[i], d + (size_t)i * CUZK_G1_UNCOMPRESSED, check);
        if (rc)
            return cuzk_errf(err, errlen, rc, WHERE(name) "ic point %u: %s", WHERE_ARGS(name), i,
                             cuzk_strerror(rc));
        if (cuzk_g1_affine_is_inf(&vk->ic[i]))
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             WHERE(name) "ic point %u is the identity (bellperson refuses it)",
                             WHERE_ARGS(name), i);
    }
    return CUZK_OK;
}

/* A whole vk at d[0 .. size) (vk NULL: layout only); *used = its bytes. */
static int vk_decode(const char *name, const uint8_t *d, size_t size, struct cuzk_bp_vk *vk,
                     uint32_t *n_ic, enum cuzk_point_check check, size_t *used, char *err,
                     size_t errlen) {
    int rc = vk_head(name, d, size, vk, n_ic, check, err, errlen);
    if (rc) return rc;
    if (vk) vk->n_ic = *n_ic;
    if ((rc = fits(name, "ic", CUZK_BP_VK_HEAD, *n_ic, CUZK_G1_UNCOMPRESSED, size, err, errlen)))
        return rc;
    if (vk && (rc = vk_ic(name, d + CUZK_BP_VK_HEAD, vk, check, err, errlen))) return rc;
    *used = CUZK_BP_VK_HEAD + (size_t)*n_ic * CUZK_G1_UNCOMPRESSED;
    return CUZK_OK;
}

void cuzk_bp_vk_free(struct cuzk_bp_vk *vk) {
    cuzk_fmt_free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

const char *cuzk_bp_vk_diff(const struct cuzk_bp_vk *a, const struct cuzk_bp_vk *b) {
    if (!cuzk_g1_affine_eq(&a->alpha1, &b->alpha1)) return "alpha_g1";
    if (!cuzk_g1_affine_eq(&a->beta1, &b->beta1)) return "beta_g1";
    if (!cuzk_g2_affine_eq(&a->beta2, &b->beta2)) return "beta_g2";
    if (!cuzk_g2_affine_eq(&a->gamma2, &b->gamma2)) return "gamma_g2";
    if (!cuzk_g1_affine_eq(&a->delta1, &b->delta1)) return "delta_g1";
    if (!cuzk_g2_affine_eq(&a->delta2, &b->delta2)) return "delta_g2";
    if (a->n_ic != b->n_ic) return "n_ic";
    for (uint32_t i = 0; i < a->n_ic; i++)
        if (!cuzk_g1_affine_eq(&a->ic[i], &b->ic[i])) return "ic";
    return NULL;
}

static int vk_parse_named(struct cuzk_bp_vk *vk, const char *name, const uint8_t *d, size_t size,
                          enum cuzk_point_check check, char *err, size_t errlen) {
    memset(vk, 0, sizeof *vk);
    uint32_t n_ic;
    size_t used;
    int rc = vk_decode(name, d, size, vk, &n_ic, check, &used, err, errlen);
    if (!rc && used != size)
        rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                       WHERE(name) "%zu bytes follow the verifying key's %u ic points",
                       WHERE_ARGS(name), size - used, n_ic);
    if (rc) cuzk_bp_vk_free(vk);
    return rc;
}

int cuzk_bp_vk_parse(struct cuzk_bp_vk *vk, const void *data, size_t size,
                     enum cuzk_point_check check, char *err, size_t errlen) {
    return vk_parse_named(vk, "", data, size, check, err, errlen);
}

/* Maps path read-only: *map (NULL for an empty file) and *size. */
static int map_file(const char *path, void **map, size_t *size, char *err, size_t errlen) {
    *map = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: cannot open: %s", path,
                         strerror(errno));
    struct stat st;
    int rc = CUZK_OK;
    if (fstat(fd, &st)) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: cannot stat: %s", path,
                       strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        rc = cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: not a regular file", path);
    } else if (st.st_size > 0) { /* an empty file fails the layout checks */
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            rc = cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: cannot map: %s", path,
                           strerror(errno));
        } else {
            *map = m;
            *size = (size_t)st.st_size;
        }
    }
    close(fd);
    return rc;
}

int cuzk_bp_vk_read_file(struct cuzk_bp_vk *vk, const char *path, enum cuzk_point_check check,
                         char *err, size_t errlen) {
    memset(vk, 0, sizeof *vk);
    void *map;
    size_t size;
    int rc = map_file(path, &map, &size, err, errlen);
    if (rc) return rc;
    rc = vk_parse_named(vk, path, map ? map : (const void *)"", size, check, err, errlen);
    if (map) munmap(map, size);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

static int put(FILE *f, const void *b, size_t n) { return fwrite(b, 1, n, f) == n ? 0 : -1; }

/* Refuses an identity among n points (bellperson's readers refuse it): CUZK_EINVAL. */
static int no_identity(const void *pts, size_t n, int g2, const char *field, char *err,
                       size_t errlen) {
    size_t sz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    for (size_t i = 0; i < n; i++)
        if (is_inf((const uint8_t *)pts + i * sz, g2))
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "bellperson: %s point %zu is the identity, which bellperson's "
                             "readers refuse (leave it out of a, b_g1, b_g2 as its generator "
                             "does)",
                             field, i);
    return CUZK_OK;
}

/* Writes a count and n points, STAGE_POINTS at a time. */
static int put_vector(FILE *f, const void *pts, size_t n, int g2) {
    uint8_t cnt[4];
    put_be32(cnt, (uint32_t)n);
    if (put(f, cnt, 4)) return -1;
    uint8_t *stage = n ? malloc(STAGE_POINTS * CUZK_G2_UNCOMPRESSED) : NULL;
    if (n && !stage) return -1;
    int bad = 0;
    size_t sz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    size_t pb = g2 ? CUZK_G2_UNCOMPRESSED : CUZK_G1_UNCOMPRESSED;
    for (size_t first = 0; first < n && !bad; first += STAGE_POINTS) {
        size_t m = n - first < STAGE_POINTS ? n - first : STAGE_POINTS;
        for (size_t i = 0; i < m; i++) {
            const void *p = (const uint8_t *)pts + (first + i) * sz;
            if (g2)
                cuzk_g2_to_uncompressed(stage + i * pb, p);
            else
                cuzk_g1_to_uncompressed(stage + i * pb, p);
        }
        bad = put(f, stage, m * pb);
    }
    free(stage);
    return bad;
}

static int vk_put(FILE *f, const struct cuzk_bp_vk *vk) {
    uint8_t b[CUZK_BP_VK_HEAD - 4], *p = b;
    cuzk_g1_to_uncompressed(p, &vk->alpha1), p += CUZK_G1_UNCOMPRESSED;
    cuzk_g1_to_uncompressed(p, &vk->beta1), p += CUZK_G1_UNCOMPRESSED;
    cuzk_g2_to_uncompressed(p, &vk->beta2), p += CUZK_G2_UNCOMPRESSED;
    cuzk_g2_to_uncompressed(p, &vk->gamma2), p += CUZK_G2_UNCOMPRESSED;
    cuzk_g1_to_uncompressed(p, &vk->delta1), p += CUZK_G1_UNCOMPRESSED;
    cuzk_g2_to_uncompressed(p, &vk->delta2);
    return put(f, b, sizeof b) || put_vector(f, vk->ic, vk->n_ic, 0) ? -1 : 0;
}

int cuzk_bp_vk_write(FILE *f, const struct cuzk_bp_vk *vk, char *err, size_t errlen) {
    int rc = no_identity(vk->ic, vk->n_ic, 0, "ic", err, errlen);
    if (rc) return rc;
    if (vk_put(f, vk) || fflush(f))
        return cuzk_errf(err, errlen, CUZK_EIO, "bellperson: writing the verifying key failed: %s",
                         strerror(errno));
    return CUZK_OK;
}

int cuzk_bp_params_write(FILE *f, const struct cuzk_bp_vk *vk, const struct cuzk_bp_query *q,
                         char *err, size_t errlen) {
    const void *pts[CUZK_BP_VECTORS] = {q->h, q->l, q->a, q->b_g1, q->b_g2};
    const size_t n[CUZK_BP_VECTORS] = {q->n_h, q->n_l, q->n_a, q->n_b_g1, q->n_b_g2};
    int rc = no_identity(vk->ic, vk->n_ic, 0, "ic", err, errlen);
    for (int v = 0; v < CUZK_BP_VECTORS && !rc; v++) {
        if (n[v] > UINT32_MAX)
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "bellperson: %s has %zu points, more than a u32 count holds",
                             vector_name[v], n[v]);
        rc = no_identity(pts[v], n[v], v == CUZK_BP_B_G2, vector_name[v], err, errlen);
    }
    if (rc) return rc;
    int bad = vk_put(f, vk);
    for (int v = 0; v < CUZK_BP_VECTORS && !bad; v++)
        bad = put_vector(f, pts[v], n[v], v == CUZK_BP_B_G2);
    if (bad || fflush(f))
        return cuzk_errf(err, errlen, CUZK_EIO, "bellperson: writing the parameters failed: %s",
                         strerror(errno));
    return CUZK_OK;
}

/* ---- reading the parameters ------------------------------------------------------------- */

void cuzk_bp_params_close(struct cuzk_bp_params *p) {
    cuzk_bp_vk_free(&p->vk);
    if (p->map) munmap(p->map, p->map_size);
    free(p->name_own);
    memset(p, 0, sizeof *p);
    p->name = "";
}

/* The layout of p->data (and the vk when decode_vk). */
static int params_scan(struct cuzk_bp_params *p, int decode_vk, enum cuzk_point_check check,
                       char *err, size_t errlen) {
    const char *name = p->name;
    uint32_t n_ic;
    size_t at;
    int rc = vk_decode(name, p->data, p->size, decode_vk ? &p->vk : NULL, &n_ic, check, &at, err,
                       errlen);
    if (rc) return rc;
    p->vk.n_ic = n_ic;
    for (int v = 0; v < CUZK_BP_VECTORS; v++) {
        if (p->size - at < 4)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             WHERE(name) "truncated: the file ends at %zu, before the count of "
                                         "%s",
                             WHERE_ARGS(name), p->size, vector_name[v]);
        p->count[v] = be32(p->data + at);
        at += 4;
        size_t pb = v == CUZK_BP_B_G2 ? CUZK_G2_UNCOMPRESSED : CUZK_G1_UNCOMPRESSED;
        if ((rc = fits(name, vector_name[v], at, p->count[v], pb, p->size, err, errlen))) return rc;
        p->offset[v] = at;
        at += (size_t)p->count[v] * pb;
    }
    if (at != p->size)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE(name) "%zu bytes follow the last vector (b_g2)", WHERE_ARGS(name),
                         p->size - at);
    return CUZK_OK;
}

int cuzk_bp_params_from_mem(struct cuzk_bp_params *p, const void *data, size_t size,
                            enum cuzk_point_check check, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    p->name = "";
    p->data = data;
    p->size = size;
    int rc = params_scan(p, 1, check, err, errlen);
    if (rc) cuzk_bp_params_close(p);
    return rc;
}

static int params_open(struct cuzk_bp_params *p, const char *path, int decode_vk,
                       enum cuzk_point_check check, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    p->name = "";
    if (!(p->name_own = strdup(path)))
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "bellperson: %s: out of memory", path);
    p->name = p->name_own;
    int rc = map_file(path, &p->map, &p->map_size, err, errlen);
    if (!rc) {
        p->data = p->map ? p->map : (const void *)"";
        p->size = p->map_size;
        rc = params_scan(p, decode_vk, check, err, errlen);
    }
    if (rc) cuzk_bp_params_close(p);
    return rc;
}

int cuzk_bp_params_open(struct cuzk_bp_params *p, const char *path, enum cuzk_point_check check,
                        char *err, size_t errlen) {
    return params_open(p, path, 1, check, err, errlen);
}

int cuzk_bp_params_peek(struct cuzk_bp_params *p, const char *path, char *err, size_t errlen) {
    return params_open(p, path, 0, CUZK_CHECK_ALL, err, errlen);
}

struct load_job {
    const uint8_t *src;
    uint8_t *dst;
    size_t n, pb, sz;
    int g2;
    enum cuzk_point_check check;
    int *fail_code; /* per block: the first failure's code, or CUZK_OK */
    size_t *fail_at;
};

static void load_block(void *ctx, size_t item, unsigned worker) {
    (void)worker;
    const struct load_job *j = ctx;
    size_t lo = item * BLOCK_POINTS, hi = lo + BLOCK_POINTS < j->n ? lo + BLOCK_POINTS : j->n;
    j->fail_code[item] = CUZK_OK;
    for (size_t i = lo; i < hi; i++) {
        void *out = j->dst + i * j->sz;
        int rc = dec_point(out, j->src + i * j->pb, j->g2, j->check);
        if (!rc && is_inf(out, j->g2)) rc = CUZK_EFORMAT;
        if (rc) {
            j->fail_code[item] = rc;
            j->fail_at[item] = i;
            return;
        }
    }
}

int cuzk_bp_params_load(const struct cuzk_bp_params *p, enum cuzk_bp_vector v,
                        enum cuzk_point_check check, struct cuzk_pool *pool, void *out, char *err,
                        size_t errlen) {
    const char *name = p->name;
    if ((unsigned)v >= CUZK_BP_VECTORS)
        return cuzk_errf(err, errlen, CUZK_EINVAL, WHERE(name) "no vector %d", WHERE_ARGS(name),
                         (int)v);
    struct load_job j = {.src = p->data + p->offset[v],
                         .dst = out,
                         .n = p->count[v],
                         .g2 = v == CUZK_BP_B_G2,
                         .check = check};
    j.pb = j.g2 ? CUZK_G2_UNCOMPRESSED : CUZK_G1_UNCOMPRESSED;
    j.sz = j.g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    size_t nb = (j.n + BLOCK_POINTS - 1) / BLOCK_POINTS;
    j.fail_code = malloc((nb ? nb : 1) * sizeof *j.fail_code);
    j.fail_at = malloc((nb ? nb : 1) * sizeof *j.fail_at);
    int rc = CUZK_OK;
    size_t at = 0;
    if (!j.fail_code || !j.fail_at) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, WHERE(name) "out of memory", WHERE_ARGS(name));
    } else {
        cuzk_pool_run(pool, nb, load_block, &j);
        for (size_t b = 0; b < nb && !rc; b++)
            if (j.fail_code[b]) rc = j.fail_code[b], at = j.fail_at[b];
        if (rc == CUZK_EFORMAT)
            rc = cuzk_errf(err, errlen, rc,
                           WHERE(name) "%s point %zu is the identity (bellperson refuses it)",
                           WHERE_ARGS(name), vector_name[v], at);
        else if (rc)
            rc = cuzk_errf(err, errlen, rc, WHERE(name) "%s point %zu: %s", WHERE_ARGS(name),
                           vector_name[v], at, cuzk_strerror(rc));
    }
    free(j.fail_code);
    free(j.fail_at);
    return rc;
}
