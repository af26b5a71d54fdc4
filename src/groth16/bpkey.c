#include "groth16/bpkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "groth16/groth16.h"

int cuzk_bpkey_h_basis(uint32_t n_h, uint32_t domain_size) {
    if (domain_size >= 2 && n_h == cuzk_h_basis_points(CUZK_H_COEFF, domain_size))
        return CUZK_H_COEFF;
    if (n_h == cuzk_h_basis_points(CUZK_H_SNARKJS, domain_size)) return CUZK_H_SNARKJS;
    return -1;
}

/* "bellperson: <file>: " or "bellperson: ". */
#define WHERE "bellperson: %s%s"
#define WHERE_ARGS(p) (p)->name, *(p)->name ? ": " : ""

int cuzk_bpkey_check_shape(const struct cuzk_bp_params *p, uint32_t n_vars, uint32_t n_public,
                           uint32_t domain_size, char *err, size_t errlen) {
    if ((uint64_t)p->vk.n_ic != (uint64_t)n_public + 1)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE "ic holds %u points, the system has %u public inputs and ONE",
                         WHERE_ARGS(p), p->vk.n_ic, n_public);
    if ((uint64_t)p->count[CUZK_BP_L] + n_public + 1 != n_vars)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE "l holds %u points, the system has %llu aux wires", WHERE_ARGS(p),
                         p->count[CUZK_BP_L],
                         (unsigned long long)((uint64_t)n_vars - n_public - 1));
    if (cuzk_bpkey_h_basis(p->count[CUZK_BP_H], domain_size) < 0)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         WHERE "h holds %u points, the system's domain is %u (bellperson's basis "
                               "has %u points)",
                         WHERE_ARGS(p), p->count[CUZK_BP_H], domain_size,
                         cuzk_h_basis_points(CUZK_H_COEFF, domain_size));
    return CUZK_OK;
}

static void vk_of(struct cuzk_bp_vk *vk, const struct cuzk_groth16_keydata *kd) {
    const struct cuzk_g16key_info *i = &kd->info;
    memset(vk, 0, sizeof *vk);
    vk->alpha1 = i->alpha1;
    vk->beta1 = i->beta1;
    vk->beta2 = i->beta2;
    vk->gamma2 = i->gamma2;
    vk->delta1 = i->delta1;
    vk->delta2 = i->delta2;
    vk->n_ic = i->n_public + 1;
    vk->ic = kd->ic; /* borrowed: never freed through vk */
}

/* Opens path for writing; on failure a sentence. */
static FILE *create(const char *path, char *err, size_t errlen, int *rc) {
    FILE *f = fopen(path, "wb");
    *rc = f ? CUZK_OK
            : cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: cannot create: %s", path,
                        strerror(errno));
    return f;
}

/* Flushes f to the disk and closes it; unlinks path when rc (or this) fails. */
static int finish(FILE *f, const char *path, int rc, char *err, size_t errlen) {
    if (!rc && (fflush(f) || fsync(fileno(f))))
        rc = cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: cannot flush: %s", path,
                       strerror(errno));
    if (fclose(f) && !rc)
        rc = cuzk_errf(err, errlen, CUZK_EIO, "bellperson: %s: close failed: %s", path,
                       strerror(errno));
    if (rc) unlink(path);
    return rc;
}

int cuzk_bpkey_write_vk(const struct cuzk_groth16_keydata *kd, const char *path, char *err,
                        size_t errlen) {
    struct cuzk_bp_vk vk;
    vk_of(&vk, kd);
    int rc;
    FILE *f = create(path, err, errlen, &rc);
    if (!f) return rc;
    return finish(f, path, cuzk_bp_vk_write(f, &vk, err, errlen), err, errlen);
}

/* The n points of pts (size sz each) that are not the identity, copied into a new array. */
static void *drop_identities(const void *pts, size_t n, int g2, size_t *kept) {
    size_t sz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    uint8_t *out = malloc(n ? n * sz : 1);
    *kept = 0;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = (const uint8_t *)pts + i * sz;
        if (g2 ? cuzk_g2_affine_is_inf((const cuzk_g2_affine *)p)
               : cuzk_g1_affine_is_inf((const cuzk_g1_affine *)p))
            continue;
        memcpy(out + *kept * sz, p, sz);
        ++*kept;
    }
    return out;
}

int cuzk_bpkey_write_params(const struct cuzk_groth16_keydata *kd, const char *path, char *err,
                            size_t errlen) {
    const struct cuzk_g16key_info *i = &kd->info;
    if (!kd->a || !kd->b1 || !kd->b2 || !kd->c || !kd->h)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "bellperson: %s: the key has no points loaded",
                         path);
    if (i->h_basis != CUZK_H_COEFF)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "bellperson: %s: the key's H is in the %s basis; a parameter file holds "
                         "bellperson's (a key made with h_basis CUZK_H_COEFF)",
                         path, cuzk_h_basis_name(i->h_basis));
    for (uint32_t j = 0; j < i->n_b; j++)
        if (cuzk_g1_affine_is_inf(&kd->b1[j]) != cuzk_g2_affine_is_inf(&kd->b2[j]))
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "bellperson: %s: B1 and B2 point %u (wire %u) disagree on the "
                             "identity: not a Groth16 key",
                             path, j, kd->b_wires[j]);
    struct cuzk_bp_vk vk;
    vk_of(&vk, kd);
    struct cuzk_bp_query q = {.h = kd->h,
                              .n_h = cuzk_h_basis_points(i->h_basis, i->domain_size),
                              .l = kd->c,
                              .n_l = (size_t)i->n_vars - i->n_public - 1};
    cuzk_g1_affine *a = drop_identities(kd->a, i->n_a, 0, &q.n_a);
    cuzk_g1_affine *b1 = drop_identities(kd->b1, i->n_b, 0, &q.n_b_g1);
    cuzk_g2_affine *b2 = drop_identities(kd->b2, i->n_b, 1, &q.n_b_g2);
    q.a = a, q.b_g1 = b1, q.b_g2 = b2;
    int rc = CUZK_OK;
    if (!a || !b1 || !b2) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "bellperson: %s: out of memory", path);
    } else {
        FILE *f = create(path, err, errlen, &rc);
        if (f) rc = finish(f, path, cuzk_bp_params_write(f, &vk, &q, err, errlen), err, errlen);
    }
    free(a);
    free(b1);
    free(b2);
    return rc;
}

/* Every count of p against cs: the shape (ic, l, h), then A and B against the density lists,
 * which go to *a_wires and *b_wires (malloc'd, with their counts) when the counts fit. */
static int counts_fit(const struct cuzk_bp_params *p, const struct cuzk_cs *cs, uint32_t *domain,
                      uint32_t **a_wires, uint32_t *n_a, uint32_t **b_wires, uint32_t *n_b,
                      char *err, size_t errlen) {
    *a_wires = *b_wires = NULL;
    *domain = cuzk_groth16_domain_for(cs->n_rows, cs->n_public);
    if (!*domain)
        return cuzk_errf(err, errlen, CUZK_ERANGE, WHERE "the system is too large for a key",
                         WHERE_ARGS(p));
    int rc = cuzk_bpkey_check_shape(p, cs->n_cols, cs->n_public, *domain, err, errlen);
    if (rc) return rc;
    if ((rc = cuzk_groth16_wire_lists(cs, a_wires, n_a, b_wires, n_b)))
        return cuzk_errf(err, errlen, rc, WHERE "the system's density lists: %s", WHERE_ARGS(p),
                         cuzk_strerror(rc));
    const struct {
        enum cuzk_bp_vector v;
        uint32_t want;
        const char *what;
    } q[3] = {{CUZK_BP_A, *n_a, "A"}, {CUZK_BP_B_G1, *n_b, "B"}, {CUZK_BP_B_G2, *n_b, "B"}};
    for (int k = 0; k < 3; k++)
        if (p->count[q[k].v] != q[k].want) {
            free(*a_wires), free(*b_wires);
            *a_wires = *b_wires = NULL;
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             WHERE "%s holds %u points, the system has %u wires with a non-empty "
                                   "%s column",
                             WHERE_ARGS(p), cuzk_bp_vector_name(q[k].v), p->count[q[k].v],
                             q[k].want, q[k].what);
        }
    return CUZK_OK;
}

int cuzk_bpkey_check_system(const struct cuzk_bp_params *p, const struct cuzk_cs *cs, char *err,
                            size_t errlen) {
    uint32_t domain, n_a, n_b, *aw, *bw;
    int rc = counts_fit(p, cs, &domain, &aw, &n_a, &bw, &n_b, err, errlen);
    free(aw);
    free(bw);
    return rc;
}

int cuzk_bpkey_vk(struct cuzk_snarkjs_vk *out, const struct cuzk_bp_vk *vk) {
    memset(out, 0, sizeof *out);
    if (!vk->n_ic || !vk->ic) return CUZK_EINVAL;
    struct cuzk_groth16_pk pk = {0};
    pk.n_public = vk->n_ic - 1;
    pk.alpha1 = vk->alpha1;
    pk.beta2 = vk->beta2;
    pk.gamma2 = vk->gamma2;
    pk.delta2 = vk->delta2;
    pk.ic = vk->ic;
    return cuzk_groth16_vk_from_pk(out, &pk);
}

/* The header of p's key for cs into *in and the density lists (malloc'd), with every count
 * checked against cs; nothing decoded but what open decoded. */
static int prepare(const struct cuzk_bp_params *p, const struct cuzk_cs *cs, uint64_t cs_checksum,
                   struct cuzk_g16key_info *in, uint32_t **a_wires, uint32_t **b_wires, char *err,
                   size_t errlen) {
    memset(in, 0, sizeof *in);
    uint32_t domain;
    int rc = counts_fit(p, cs, &domain, a_wires, &in->n_a, b_wires, &in->n_b, err, errlen);
    if (rc) return rc;
    if (!p->vk.ic) {
        free(*a_wires), free(*b_wires);
        *a_wires = *b_wires = NULL;
        return cuzk_errf(err, errlen, CUZK_EINVAL, WHERE "peeked, not opened: no ic decoded",
                         WHERE_ARGS(p));
    }
    in->n_vars = cs->n_cols;
    in->n_public = cs->n_public;
    in->domain_size = domain;
    in->h_basis = (enum cuzk_h_basis)cuzk_bpkey_h_basis(p->count[CUZK_BP_H], domain);
    in->chunk_points = CUZK_G16KEY_CHUNK_DEFAULT;
    in->cs_checksum = cs_checksum;
    in->alpha1 = p->vk.alpha1;
    in->beta1 = p->vk.beta1;
    in->beta2 = p->vk.beta2;
    in->gamma2 = p->vk.gamma2;
    in->delta1 = p->vk.delta1;
    in->delta2 = p->vk.delta2;
    return CUZK_OK;
}

int cuzk_bpkey_read(struct cuzk_groth16_keydata *kd, const struct cuzk_bp_params *p,
                    const struct cuzk_cs *cs, uint64_t cs_checksum, enum cuzk_point_check check,
                    struct cuzk_pool *pool, char *err, size_t errlen) {
    memset(kd, 0, sizeof *kd);
    struct cuzk_g16key_info *in = &kd->info;
    int rc = prepare(p, cs, cs_checksum, in, &kd->a_wires, &kd->b_wires, err, errlen);
    if (rc) return rc;
    size_t nc = (size_t)in->n_vars - in->n_public - 1;
    kd->ic = malloc(((size_t)in->n_public + 1) * sizeof *kd->ic);
    kd->a = malloc(((size_t)in->n_a + 1) * sizeof *kd->a);
    kd->b1 = malloc(((size_t)in->n_b + 1) * sizeof *kd->b1);
    kd->b2 = malloc(((size_t)in->n_b + 1) * sizeof *kd->b2);
    kd->c = malloc((nc + 1) * sizeof *kd->c);
    kd->h = malloc(((size_t)in->domain_size + 1) * sizeof *kd->h);
    if (!kd->ic || !kd->a || !kd->b1 || !kd->b2 || !kd->c || !kd->h) {
        cuzk_groth16_keydata_free(kd);
        return cuzk_errf(err, errlen, CUZK_ENOMEM, WHERE "out of memory for the key's points",
                         WHERE_ARGS(p));
    }
    memcpy(kd->ic, p->vk.ic, ((size_t)in->n_public + 1) * sizeof *kd->ic);
    void *dst[CUZK_BP_VECTORS] = {kd->h, kd->c, kd->a, kd->b1, kd->b2};
    for (int v = 0; v < CUZK_BP_VECTORS && !rc; v++)
        rc = cuzk_bp_params_load(p, (enum cuzk_bp_vector)v, check, pool, dst[v], err, errlen);
    if (rc) cuzk_groth16_keydata_free(kd);
    return rc;
}

int cuzk_bpkey_import(const struct cuzk_bp_params *p, const struct cuzk_cs *cs,
                      uint64_t cs_checksum, enum cuzk_point_check check, const char *path,
                      int compressed, struct cuzk_pool *pool, char *err, size_t errlen) {
    struct cuzk_g16key_info in;
    uint32_t *aw, *bw;
    int rc = prepare(p, cs, cs_checksum, &in, &aw, &bw, err, errlen);
    if (rc) return rc;
    in.compressed = compressed;
    struct cuzk_g16key_writer *w = NULL;
    rc = cuzk_g16key_writer_open(&w, path, &in, p->vk.ic, aw, bw, pool, err, errlen);
    free(aw);
    free(bw);
    if (rc) return rc;
    /* the key file's section order, one vector in memory at a time */
    static const enum cuzk_bp_vector from[CUZK_G16KEY_SECTIONS] = {
        CUZK_BP_A, CUZK_BP_B_G1, CUZK_BP_B_G2, CUZK_BP_L, CUZK_BP_H};
    for (int s = 0; s < CUZK_G16KEY_SECTIONS && !rc; s++) {
        size_t n = p->count[from[s]];
        size_t sz = s == CUZK_G16KEY_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
        void *pts = malloc(n ? n * sz : 1);
        if (!pts) {
            rc = cuzk_errf(err, errlen, CUZK_ENOMEM, WHERE "out of memory for %zu points of %s",
                           WHERE_ARGS(p), n, cuzk_bp_vector_name(from[s]));
            break;
        }
        rc = cuzk_bp_params_load(p, from[s], check, pool, pts, err, errlen);
        if (!rc && n)
            rc = cuzk_g16key_writer_put(w, (enum cuzk_g16key_section)s, pts, n, err, errlen);
        free(pts);
    }
    if (rc) {
        cuzk_g16key_writer_abort(w);
        return rc;
    }
    return cuzk_g16key_writer_close(w, err, errlen);
}

uint64_t cuzk_bpkey_import_bytes(uint32_t n_vars, uint32_t domain_size) {
    /* the largest vector decoded (H in G1, or B2 of at most every wire in G2), the density
     * lists and bitmaps, and the key writer's staging */
    uint64_t h = (uint64_t)domain_size * sizeof(cuzk_g1_affine);
    uint64_t b2 = (uint64_t)n_vars * sizeof(cuzk_g2_affine);
    return (h > b2 ? h : b2) + 10 * (uint64_t)n_vars + (16u << 20);
}
