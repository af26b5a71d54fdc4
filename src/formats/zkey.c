#include "formats/zkey.h"

#include <errno.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "ff/limbs.h"
#include "formats/binfile.h"
#include "formats/fmt.h"
#include "util/pool.h"

#define ZKEY_BLOCK 1024 /* points or coefficients per pool item */
#define ZKEY_COEF_SIZE (3 * 4 + CUZK_FR_BYTES)
#define ZKEY_HEADER_SIZE                                                                           \
    (4 + CUZK_FP_BYTES + 4 + CUZK_FR_BYTES + 3 * 4 + 3 * CUZK_G1_LEM + 3 * CUZK_G2_LEM)
/* one contribution: deltaAfter, g1_s, g1_sx (G1), g2_spx (G2), transcript[64], type u32 */
#define ZKEY_CONTRIB_FIXED (3 * CUZK_G1_LEM + CUZK_G2_LEM + 64 + 4)
#define ZKEY_MPC_FIXED (CUZK_ZKEY_CS_HASH + 4)

/* The plain integer 1: a Montgomery product with it divides by R. */
static const cuzk_fr plain_one = {{1, 0, 0, 0}};

static const char *const section_name[11] = {
    "", "protocol", "header", "IC", "coefficients", "A", "B1", "B2", "C", "H", "MPC parameters",
};

static int is_pow2(uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }

/* ---- parallel decoding ------------------------------------------------------------------- */

enum item_kind { ITEM_G1, ITEM_G2, ITEM_COEF };

struct decode_job {
    enum item_kind kind;
    const uint8_t *src;
    void *dst;
    uint64_t n;
    enum cuzk_point_check check;
    uint32_t domain_size, n_vars; /* bounds of the coefficients */
    int *blk_err;                 /* first error of each block, or CUZK_OK */
    uint64_t *blk_idx;            /* and the item it occurred at */
};

static int decode_coef(struct cuzk_zkey_coef *out, const uint8_t *p, uint32_t domain_size,
                       uint32_t n_vars) {
    out->matrix = cuzk_fmt_le32(p);
    out->constraint = cuzk_fmt_le32(p + 4);
    out->signal = cuzk_fmt_le32(p + 8);
    if (out->matrix > 1 || out->constraint >= domain_size || out->signal >= n_vars)
        return CUZK_EFORMAT;
    cuzk_fr t;
    if (cuzk_fr_from_mont_le(&t, p + 12) != CUZK_OK) return CUZK_ENONCANON;
    cuzk_fr_mul(&out->value, &t, &plain_one); /* value R^2 / R = Montgomery(value) */
    return CUZK_OK;
}

static int decode_item(const struct decode_job *j, uint64_t i) {
    switch (j->kind) {
    case ITEM_G1:
        return cuzk_g1_from_lem((cuzk_g1_affine *)j->dst + i, j->src + i * CUZK_G1_LEM, j->check);
    case ITEM_G2:
        return cuzk_g2_from_lem((cuzk_g2_affine *)j->dst + i, j->src + i * CUZK_G2_LEM, j->check);
    case ITEM_COEF:
        return decode_coef((struct cuzk_zkey_coef *)j->dst + i, j->src + i * ZKEY_COEF_SIZE,
                           j->domain_size, j->n_vars);
    }
    return CUZK_EINVAL;
}

static void decode_block(void *ctx, size_t blk, unsigned worker) {
    (void)worker;
    struct decode_job *j = ctx;
    uint64_t lo = (uint64_t)blk * ZKEY_BLOCK;
    uint64_t hi = j->n - lo < ZKEY_BLOCK ? j->n : lo + ZKEY_BLOCK;
    j->blk_err[blk] = CUZK_OK;
    for (uint64_t i = lo; i < hi; i++) {
        int rc = decode_item(j, i);
        if (rc) {
            j->blk_err[blk] = rc;
            j->blk_idx[blk] = i;
            return;
        }
    }
}

/* Decodes n items of section id into dst on the pool. On failure returns the error of the
 * lowest failing item, with *bad set to its index. */
static int decode_run(struct decode_job *j, struct cuzk_pool *pool, uint64_t *bad) {
    size_t n_blocks = (size_t)((j->n + ZKEY_BLOCK - 1) / ZKEY_BLOCK);
    if (n_blocks == 0) return CUZK_OK;
    j->blk_err = cuzk_fmt_alloc(n_blocks, sizeof *j->blk_err);
    j->blk_idx = cuzk_fmt_alloc(n_blocks, sizeof *j->blk_idx);
    int rc = CUZK_OK;
    if (j->blk_err == NULL || j->blk_idx == NULL) {
        rc = CUZK_ENOMEM;
    } else {
        cuzk_pool_run(pool, n_blocks, decode_block, j);
        for (size_t b = 0; b < n_blocks; b++)
            if (j->blk_err[b]) {
                rc = j->blk_err[b];
                *bad = j->blk_idx[b];
                break;
            }
    }
    cuzk_fmt_free(j->blk_err);
    cuzk_fmt_free(j->blk_idx);
    return rc;
}

/* ---- reader ------------------------------------------------------------------------------ */

struct zkey_reader {
    struct cuzk_zkey *z;
    const struct cuzk_binfile *bf;
    const struct cuzk_binfile_section *sec[11]; /* sections 1..10 */
    enum cuzk_point_check check;
    struct cuzk_pool *pool;
    char *err;
    size_t errlen;
};

static int point_error(struct zkey_reader *r, int rc, const char *where, uint64_t idx) {
    return cuzk_errf(r->err, r->errlen, rc, "zkey: %s point %llu: %s", where,
                     (unsigned long long)idx, cuzk_strerror(rc));
}

static int read_protocol(struct zkey_reader *r) {
    const struct cuzk_binfile_section *s = r->sec[1];
    if (s->size != 4)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section 1 (protocol) is %llu bytes, expected 4",
                         (unsigned long long)s->size);
    uint32_t proto = cuzk_fmt_le32(cuzk_binfile_ptr(r->bf, s));
    if (proto != CUZK_ZKEY_GROTH16) {
        const char *name = proto == 2 ? "PLONK" : proto == 10 ? "FFLONK" : "unknown";
        return cuzk_errf(r->err, r->errlen,
                         proto == 2 || proto == 10 ? CUZK_EUNSUPPORTED : CUZK_EFORMAT,
                         "zkey: protocol %u (%s) is not supported, only Groth16 (1)", proto, name);
    }
    return CUZK_OK;
}

static int read_header(struct zkey_reader *r) {
    struct cuzk_zkey *z = r->z;
    const struct cuzk_binfile_section *s = r->sec[2];
    const uint8_t *p = cuzk_binfile_ptr(r->bf, s);
    if (s->size >= 4 && cuzk_fmt_le32(p) != CUZK_FP_BYTES)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: base field size n8q = %u, expected %d (BLS12-381)",
                         cuzk_fmt_le32(p), CUZK_FP_BYTES);
    if (s->size >= 8 + CUZK_FP_BYTES && cuzk_fmt_le32(p + 4 + CUZK_FP_BYTES) != CUZK_FR_BYTES)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: scalar field size n8r = %u, expected %d (BLS12-381)",
                         cuzk_fmt_le32(p + 4 + CUZK_FP_BYTES), CUZK_FR_BYTES);
    if (s->size != ZKEY_HEADER_SIZE)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section 2 (header) is %llu bytes, expected %d",
                         (unsigned long long)s->size, ZKEY_HEADER_SIZE);
    if (!cuzk_fmt_is_modulus(p + 4, cuzk_fp_modulus_, CUZK_FP_LIMBS))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: the base field q is not the BLS12-381 p");
    p += 4 + CUZK_FP_BYTES + 4;
    if (!cuzk_fmt_is_modulus(p, cuzk_fr_modulus_, CUZK_FR_LIMBS))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: the scalar field is not the BLS12-381 r");
    p += CUZK_FR_BYTES;
    z->n_vars = cuzk_fmt_le32(p);
    z->n_public = cuzk_fmt_le32(p + 4);
    z->domain_size = cuzk_fmt_le32(p + 8);
    p += 12;
    if ((uint64_t)z->n_public + 1 > z->n_vars)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: nVars = %u cannot hold the constant and %u public signals",
                         z->n_vars, z->n_public);
    if (!is_pow2(z->domain_size))
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: domainSize = %u is not a power of two", z->domain_size);
    /* the six header points, always fully checked (there are only six) */
    struct {
        const char *name;
        cuzk_g1_affine *g1;
        cuzk_g2_affine *g2;
    } hp[6] = {{"alpha1", &z->alpha1, NULL}, {"beta1", &z->beta1, NULL},
               {"beta2", NULL, &z->beta2},   {"gamma2", NULL, &z->gamma2},
               {"delta1", &z->delta1, NULL}, {"delta2", NULL, &z->delta2}};
    for (int i = 0; i < 6; i++) {
        int rc = hp[i].g1 ? cuzk_g1_from_lem(hp[i].g1, p, CUZK_CHECK_ALL)
                          : cuzk_g2_from_lem(hp[i].g2, p, CUZK_CHECK_ALL);
        if (rc)
            return cuzk_errf(r->err, r->errlen, rc, "zkey: header point %s: %s", hp[i].name,
                             cuzk_strerror(rc));
        p += hp[i].g1 ? CUZK_G1_LEM : CUZK_G2_LEM;
    }
    return CUZK_OK;
}

static int check_size(struct zkey_reader *r, uint32_t id, uint64_t count, uint64_t item,
                      const char *unit) {
    uint64_t size = r->sec[id]->size;
    if (size != count * item)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section %u (%s) is %llu bytes, %llu %s need %llu", id,
                         section_name[id], (unsigned long long)size, (unsigned long long)count,
                         unit, (unsigned long long)(count * item));
    return CUZK_OK;
}

/* Walks the contributions of section 10 (snarkjs zkey_utils readContribution): every field
 * inside the section, parameters sorted by type and known, the points valid. */
static int check_contributions(const uint8_t *data, uint64_t size, uint32_t n, int bad_code,
                               char *err, size_t errlen) {
    struct cuzk_bincursor c = {data, size};
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = cuzk_bincursor_take(&c, ZKEY_CONTRIB_FIXED + 4);
        if (p == NULL)
            return cuzk_errf(err, errlen, bad_code,
                             "zkey: section 10 ends inside contribution %u of %u", i, n);
        static const char *const point_name[4] = {"deltaAfter", "g1_s", "g1_sx", "g2_spx"};
        for (int k = 0; k < 4; k++) {
            int rc;
            if (k < 3) {
                cuzk_g1_affine g;
                rc = cuzk_g1_from_lem(&g, p + k * CUZK_G1_LEM, CUZK_CHECK_ALL);
            } else {
                cuzk_g2_affine g;
                rc = cuzk_g2_from_lem(&g, p + 3 * CUZK_G1_LEM, CUZK_CHECK_ALL);
            }
            if (rc)
                return cuzk_errf(err, errlen, bad_code == CUZK_EINVAL ? bad_code : rc,
                                 "zkey: contribution %u, point %s: %s", i, point_name[k],
                                 cuzk_strerror(rc));
        }
        uint32_t plen = cuzk_fmt_le32(p + ZKEY_CONTRIB_FIXED);
        const uint8_t *q = cuzk_bincursor_take(&c, plen);
        if (q == NULL)
            return cuzk_errf(err, errlen, bad_code,
                             "zkey: contribution %u announces %u parameter bytes, section "
                             "10 has %llu left",
                             i, plen, (unsigned long long)c.left);
        struct cuzk_bincursor pc = {q, plen};
        unsigned last = 0;
        while (pc.left > 0) {
            unsigned type = *cuzk_bincursor_take(&pc, 1);
            const uint8_t *len = NULL;
            int ok = type > last && type >= 1 && type <= 3;
            if (ok) len = cuzk_bincursor_take(&pc, 1);
            if (ok && len != NULL && type != 2) ok = cuzk_bincursor_take(&pc, *len) != NULL;
            if (!ok || len == NULL)
                return cuzk_errf(err, errlen, bad_code,
                                 "zkey: contribution %u has a malformed parameter list", i);
            last = type;
        }
    }
    if (c.left != 0)
        return cuzk_errf(err, errlen, bad_code,
                         "zkey: %llu stray bytes after the %u contributions of section 10",
                         (unsigned long long)c.left, n);
    return CUZK_OK;
}

static int read_mpc(struct zkey_reader *r) {
    struct cuzk_zkey *z = r->z;
    const struct cuzk_binfile_section *s = r->sec[10];
    if (s->size < ZKEY_MPC_FIXED)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section 10 (MPC parameters) is %llu bytes, at least %d "
                         "needed",
                         (unsigned long long)s->size, ZKEY_MPC_FIXED);
    const uint8_t *p = cuzk_binfile_ptr(r->bf, s);
    memcpy(z->cs_hash, p, CUZK_ZKEY_CS_HASH);
    z->n_contributions = cuzk_fmt_le32(p + CUZK_ZKEY_CS_HASH);
    uint64_t rest = s->size - ZKEY_MPC_FIXED;
    int rc = check_contributions(p + ZKEY_MPC_FIXED, rest, z->n_contributions, CUZK_EFORMAT, r->err,
                                 r->errlen);
    if (rc) return rc;
    z->contributions = cuzk_fmt_alloc(rest, 1);
    if (z->contributions == NULL)
        return cuzk_errf(r->err, r->errlen, CUZK_ENOMEM, "zkey: out of memory");
    memcpy(z->contributions, p + ZKEY_MPC_FIXED, rest);
    z->contributions_size = rest;
    return CUZK_OK;
}

static int read_coefs(struct zkey_reader *r) {
    struct cuzk_zkey *z = r->z;
    const struct cuzk_binfile_section *s = r->sec[4];
    if (s->size < 4)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section 4 (coefficients) is %llu bytes, too short for the "
                         "count",
                         (unsigned long long)s->size);
    const uint8_t *p = cuzk_binfile_ptr(r->bf, s);
    z->n_coefs = cuzk_fmt_le32(p);
    if (s->size - 4 != (uint64_t)z->n_coefs * ZKEY_COEF_SIZE)
        return cuzk_errf(r->err, r->errlen, CUZK_EFORMAT,
                         "zkey: section 4 (coefficients) is %llu bytes, %u coefficients "
                         "need %llu",
                         (unsigned long long)s->size, z->n_coefs,
                         4 + (unsigned long long)z->n_coefs * ZKEY_COEF_SIZE);
    z->coefs = cuzk_fmt_alloc(z->n_coefs, sizeof *z->coefs);
    if (z->coefs == NULL)
        return cuzk_errf(r->err, r->errlen, CUZK_ENOMEM, "zkey: out of memory for %u coefficients",
                         z->n_coefs);
    struct decode_job j = {.kind = ITEM_COEF,
                           .src = p + 4,
                           .dst = z->coefs,
                           .n = z->n_coefs,
                           .domain_size = z->domain_size,
                           .n_vars = z->n_vars};
    uint64_t bad = 0;
    int rc = decode_run(&j, r->pool, &bad);
    if (rc == CUZK_ENONCANON)
        return cuzk_errf(r->err, r->errlen, rc,
                         "zkey: coefficient %llu: the stored value is not below r",
                         (unsigned long long)bad);
    if (rc == CUZK_EFORMAT) {
        const struct cuzk_zkey_coef *c = &z->coefs[bad];
        return cuzk_errf(r->err, r->errlen, rc,
                         "zkey: coefficient %llu: matrix %u, constraint %u, signal %u out "
                         "of range (2 matrices, domainSize %u, nVars %u)",
                         (unsigned long long)bad, c->matrix, c->constraint, c->signal,
                         z->domain_size, z->n_vars);
    }
    if (rc) return cuzk_errf(r->err, r->errlen, rc, "zkey: %s", cuzk_strerror(rc));
    return CUZK_OK;
}

static int read_points(struct zkey_reader *r, uint32_t id, void *dst, uint64_t n, int g2) {
    struct decode_job j = {.kind = g2 ? ITEM_G2 : ITEM_G1,
                           .src = cuzk_binfile_ptr(r->bf, r->sec[id]),
                           .dst = dst,
                           .n = n,
                           .check = r->check};
    uint64_t bad = 0;
    int rc = decode_run(&j, r->pool, &bad);
    if (rc == CUZK_ENOMEM) return cuzk_errf(r->err, r->errlen, rc, "zkey: out of memory");
    if (rc) {
        char where[32];
        snprintf(where, sizeof where, "section %u (%s)", id, section_name[id]);
        return point_error(r, rc, where, bad);
    }
    return CUZK_OK;
}

static int parse(struct zkey_reader *r, const struct cuzk_zkey_opts *opts) {
    struct cuzk_zkey *z = r->z;
    int rc;
    for (uint32_t id = 1; id <= 10; id++)
        if ((rc =
                 cuzk_binfile_require(r->bf, id, section_name[id], &r->sec[id], r->err, r->errlen)))
            return rc;
    if ((rc = read_protocol(r)) || (rc = read_header(r))) return rc;

    /* every size is checked before anything is allocated */
    uint64_t n_ic = (uint64_t)z->n_public + 1, n_c = (uint64_t)z->n_vars - z->n_public - 1;
    if ((rc = check_size(r, 3, n_ic, CUZK_G1_LEM, "points")) ||
        (rc = check_size(r, 5, z->n_vars, CUZK_G1_LEM, "points")) ||
        (rc = check_size(r, 6, z->n_vars, CUZK_G1_LEM, "points")) ||
        (rc = check_size(r, 7, z->n_vars, CUZK_G2_LEM, "points")) ||
        (rc = check_size(r, 8, n_c, CUZK_G1_LEM, "points")) ||
        (rc = check_size(r, 9, z->domain_size, CUZK_G1_LEM, "points")))
        return rc;

    uint64_t total = n_ic + 3 * (uint64_t)z->n_vars + n_c + z->domain_size;
    int check = opts->subgroup == CUZK_ZKEY_SUBGROUP_CHECK ||
                (opts->subgroup == CUZK_ZKEY_SUBGROUP_AUTO && total < CUZK_ZKEY_AUTO_SUBGROUP_MAX);
    r->check = check ? CUZK_CHECK_ALL : CUZK_CHECK_NO_SUBGROUP;
    z->subgroup_checked = check;

    z->ic = cuzk_fmt_alloc(n_ic, sizeof *z->ic);
    z->a = cuzk_fmt_alloc(z->n_vars, sizeof *z->a);
    z->b1 = cuzk_fmt_alloc(z->n_vars, sizeof *z->b1);
    z->b2 = cuzk_fmt_alloc(z->n_vars, sizeof *z->b2);
    z->c = cuzk_fmt_alloc(n_c, sizeof *z->c);
    z->h = cuzk_fmt_alloc(z->domain_size, sizeof *z->h);
    if (!z->ic || !z->a || !z->b1 || !z->b2 || !z->c || !z->h)
        return cuzk_errf(r->err, r->errlen, CUZK_ENOMEM, "zkey: out of memory for %llu points",
                         (unsigned long long)total);
    if ((rc = read_points(r, 3, z->ic, n_ic, 0)) || (rc = read_coefs(r)) ||
        (rc = read_points(r, 5, z->a, z->n_vars, 0)) ||
        (rc = read_points(r, 6, z->b1, z->n_vars, 0)) ||
        (rc = read_points(r, 7, z->b2, z->n_vars, 1)) || (rc = read_points(r, 8, z->c, n_c, 0)) ||
        (rc = read_points(r, 9, z->h, z->domain_size, 0)) || (rc = read_mpc(r)))
        return rc;
    return CUZK_OK;
}

static int finish(struct cuzk_zkey *z, struct cuzk_binfile *bf, int rc,
                  const struct cuzk_zkey_opts *opts, char *err, size_t errlen) {
    static const struct cuzk_zkey_opts defaults = {NULL, CUZK_ZKEY_SUBGROUP_AUTO};
    if (!rc) {
        struct zkey_reader r = {
            .z = z, .bf = bf, .pool = opts ? opts->pool : NULL, .err = err, .errlen = errlen};
        rc = parse(&r, opts ? opts : &defaults);
    }
    cuzk_binfile_close(bf);
    if (rc) cuzk_zkey_free(z);
    return rc;
}

int cuzk_zkey_load(struct cuzk_zkey *z, const char *path, const struct cuzk_zkey_opts *opts,
                   char *err, size_t errlen) {
    memset(z, 0, sizeof *z);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_open(&bf, path, "zkey", CUZK_ZKEY_VERSION, err, errlen);
    return finish(z, &bf, rc, opts, err, errlen);
}

int cuzk_zkey_parse(struct cuzk_zkey *z, const void *data, size_t size,
                    const struct cuzk_zkey_opts *opts, char *err, size_t errlen) {
    memset(z, 0, sizeof *z);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_from_mem(&bf, data, size, "zkey", CUZK_ZKEY_VERSION, err, errlen);
    return finish(z, &bf, rc, opts, err, errlen);
}

void cuzk_zkey_free(struct cuzk_zkey *z) {
    cuzk_fmt_free(z->ic);
    cuzk_fmt_free(z->coefs);
    cuzk_fmt_free(z->a);
    cuzk_fmt_free(z->b1);
    cuzk_fmt_free(z->b2);
    cuzk_fmt_free(z->c);
    cuzk_fmt_free(z->h);
    cuzk_fmt_free(z->contributions);
    memset(z, 0, sizeof *z);
}

int cuzk_zkey_alloc(struct cuzk_zkey *z, uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                    uint32_t n_coefs) {
    memset(z, 0, sizeof *z);
    if ((uint64_t)n_public + 1 > n_vars || !is_pow2(domain_size)) return CUZK_EINVAL;
    z->n_vars = n_vars;
    z->n_public = n_public;
    z->domain_size = domain_size;
    z->n_coefs = n_coefs;
    z->ic = cuzk_fmt_alloc((size_t)n_public + 1, sizeof *z->ic);
    z->coefs = cuzk_fmt_alloc(n_coefs, sizeof *z->coefs);
    z->a = cuzk_fmt_alloc(n_vars, sizeof *z->a);
    z->b1 = cuzk_fmt_alloc(n_vars, sizeof *z->b1);
    z->b2 = cuzk_fmt_alloc(n_vars, sizeof *z->b2);
    z->c = cuzk_fmt_alloc((size_t)n_vars - n_public - 1, sizeof *z->c);
    z->h = cuzk_fmt_alloc(domain_size, sizeof *z->h);
    if (!z->ic || !z->coefs || !z->a || !z->b1 || !z->b2 || !z->c || !z->h) {
        cuzk_zkey_free(z);
        return CUZK_ENOMEM;
    }
    return CUZK_OK;
}

/* ---- writer ------------------------------------------------------------------------------ */

static int check_struct(const struct cuzk_zkey *z, char *err, size_t errlen) {
    if ((uint64_t)z->n_public + 1 > z->n_vars)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "zkey: nVars = %u cannot hold the constant and %u public signals",
                         z->n_vars, z->n_public);
    if (!is_pow2(z->domain_size))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "zkey: domainSize = %u is not a power of two",
                         z->domain_size);
    if (!z->ic || !z->a || !z->b1 || !z->b2 || !z->c || !z->h || (z->n_coefs && !z->coefs) ||
        (z->contributions_size && !z->contributions))
        return cuzk_errf(err, errlen, CUZK_EINVAL, "zkey: the key has unset arrays");
    for (uint32_t i = 0; i < z->n_coefs; i++) {
        const struct cuzk_zkey_coef *c = &z->coefs[i];
        if (c->matrix > 1 || c->constraint >= z->domain_size || c->signal >= z->n_vars)
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "zkey: coefficient %u: matrix %u, constraint %u, signal %u out "
                             "of range",
                             i, c->matrix, c->constraint, c->signal);
    }
    return check_contributions(z->contributions, z->contributions_size, z->n_contributions,
                               CUZK_EINVAL, err, errlen);
}

#define WRITE_CHUNK 64 /* points encoded per fwrite */

static void put_g1s(struct cuzk_binfile_writer *w, const cuzk_g1_affine *p, uint64_t n) {
    uint8_t buf[WRITE_CHUNK * CUZK_G1_LEM];
    for (uint64_t i = 0; i < n && !w->err; i += WRITE_CHUNK) {
        uint64_t m = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        for (uint64_t k = 0; k < m; k++) cuzk_g1_to_lem(buf + k * CUZK_G1_LEM, &p[i + k]);
        cuzk_binfile_writer_put(w, buf, m * CUZK_G1_LEM);
    }
}

static void put_g2s(struct cuzk_binfile_writer *w, const cuzk_g2_affine *p, uint64_t n) {
    uint8_t buf[WRITE_CHUNK * CUZK_G2_LEM];
    for (uint64_t i = 0; i < n && !w->err; i += WRITE_CHUNK) {
        uint64_t m = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        for (uint64_t k = 0; k < m; k++) cuzk_g2_to_lem(buf + k * CUZK_G2_LEM, &p[i + k]);
        cuzk_binfile_writer_put(w, buf, m * CUZK_G2_LEM);
    }
}

static void put_coefs(struct cuzk_binfile_writer *w, const struct cuzk_zkey_coef *c, uint32_t n) {
    cuzk_binfile_writer_u32(w, n);
    for (uint32_t i = 0; i < n && !w->err; i++) {
        uint8_t buf[ZKEY_COEF_SIZE];
        cuzk_fmt_put32(buf, c[i].matrix);
        cuzk_fmt_put32(buf + 4, c[i].constraint);
        cuzk_fmt_put32(buf + 8, c[i].signal);
        cuzk_fr t;
        cuzk_fr_mul(&t, &c[i].value, &cuzk_fr_r2_); /* value R * R^2 / R = value R^2 */
        cuzk_fr_to_mont_le(buf + 12, &t);
        cuzk_binfile_writer_put(w, buf, sizeof buf);
    }
}

int cuzk_zkey_write(FILE *f, const struct cuzk_zkey *z, char *err, size_t errlen) {
    int rc = check_struct(z, err, errlen);
    if (rc) return rc;
    uint64_t n_ic = (uint64_t)z->n_public + 1, n_c = (uint64_t)z->n_vars - z->n_public - 1;
    uint8_t prime[CUZK_FP_BYTES];
    struct cuzk_binfile_writer w;
    cuzk_binfile_writer_begin(&w, f, "zkey", CUZK_ZKEY_VERSION, 10);

    cuzk_binfile_writer_section(&w, 1, 4);
    cuzk_binfile_writer_u32(&w, CUZK_ZKEY_GROTH16);

    cuzk_binfile_writer_section(&w, 2, ZKEY_HEADER_SIZE);
    cuzk_binfile_writer_u32(&w, CUZK_FP_BYTES);
    cuzk_limbs_to_bytes_le(prime, cuzk_fp_modulus_, CUZK_FP_LIMBS);
    cuzk_binfile_writer_put(&w, prime, CUZK_FP_BYTES);
    cuzk_binfile_writer_u32(&w, CUZK_FR_BYTES);
    cuzk_limbs_to_bytes_le(prime, cuzk_fr_modulus_, CUZK_FR_LIMBS);
    cuzk_binfile_writer_put(&w, prime, CUZK_FR_BYTES);
    cuzk_binfile_writer_u32(&w, z->n_vars);
    cuzk_binfile_writer_u32(&w, z->n_public);
    cuzk_binfile_writer_u32(&w, z->domain_size);
    put_g1s(&w, &z->alpha1, 1);
    put_g1s(&w, &z->beta1, 1);
    put_g2s(&w, &z->beta2, 1);
    put_g2s(&w, &z->gamma2, 1);
    put_g1s(&w, &z->delta1, 1);
    put_g2s(&w, &z->delta2, 1);

    cuzk_binfile_writer_section(&w, 3, n_ic * CUZK_G1_LEM);
    put_g1s(&w, z->ic, n_ic);
    cuzk_binfile_writer_section(&w, 4, 4 + (uint64_t)z->n_coefs * ZKEY_COEF_SIZE);
    put_coefs(&w, z->coefs, z->n_coefs);
    cuzk_binfile_writer_section(&w, 5, (uint64_t)z->n_vars * CUZK_G1_LEM);
    put_g1s(&w, z->a, z->n_vars);
    cuzk_binfile_writer_section(&w, 6, (uint64_t)z->n_vars * CUZK_G1_LEM);
    put_g1s(&w, z->b1, z->n_vars);
    cuzk_binfile_writer_section(&w, 7, (uint64_t)z->n_vars * CUZK_G2_LEM);
    put_g2s(&w, z->b2, z->n_vars);
    cuzk_binfile_writer_section(&w, 8, n_c * CUZK_G1_LEM);
    put_g1s(&w, z->c, n_c);
    cuzk_binfile_writer_section(&w, 9, (uint64_t)z->domain_size * CUZK_G1_LEM);
    put_g1s(&w, z->h, z->domain_size);

    cuzk_binfile_writer_section(&w, 10, ZKEY_MPC_FIXED + (uint64_t)z->contributions_size);
    cuzk_binfile_writer_put(&w, z->cs_hash, CUZK_ZKEY_CS_HASH);
    cuzk_binfile_writer_u32(&w, z->n_contributions);
    cuzk_binfile_writer_put(&w, z->contributions, z->contributions_size);

    rc = cuzk_binfile_writer_end(&w);
    if (rc)
        return cuzk_errf(err, errlen, rc, "zkey: write failed: %s",
                         rc == CUZK_EIO ? strerror(errno) : cuzk_strerror(rc));
    return CUZK_OK;
}

int cuzk_zkey_save(const char *path, const struct cuzk_zkey *z, char *err, size_t errlen) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return cuzk_errf(err, errlen, CUZK_EIO, "zkey: cannot create %s: %s", path,
                         strerror(errno));
    int rc = cuzk_zkey_write(f, z, err, errlen);
    if (fclose(f) != 0 && rc == CUZK_OK)
        rc = cuzk_errf(err, errlen, CUZK_EIO, "zkey: cannot write %s: %s", path, strerror(errno));
    if (rc) remove(path); /* never leave a truncated key behind */
    return rc;
}
