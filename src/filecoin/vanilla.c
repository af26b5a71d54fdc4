/* DESIGN: one walker per kind visits a partition's values in file order; the same walker
 * serializes (io in write mode) and parses (read mode, which also checks canonicity), so the
 * writer and the reader cannot disagree on the layout. A partition's arrays live in one block
 * laid out by part_layout, which also gives the file length of a partition. */
#include "filecoin/vanilla.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/merkle.h"
#include "circuits/num.h"
#include "circuits/poseidon.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"

#define SIBS8 7
#define POREP_PARENTS (CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS)

static unsigned log2u(uint64_t x) {
    unsigned k = 0;
    while (((uint64_t)1 << k) < x) k++;
    return k;
}

/* ---- sizes and layout ------------------------------------------------------------------- */

/* Counts of one partition: structs, field elements and u64s held in the block, and the file
 * bytes. All arithmetic saturates at UINT64_MAX (then the profile is refused). */
struct part_layout {
    uint64_t n_items;  /* challenges (PoRep, Snap) or sectors (PoSt) */
    uint64_t item_fr;  /* field elements per item held in the array block */
    uint64_t extra_fr; /* per partition (Snap: apex leaves and partition path) */
    uint64_t n_u64;    /* PoSt: challenge indices */
    uint64_t mem;      /* bytes of the block */
    uint64_t file;     /* bytes in the file */
};

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
static uint64_t add_sat(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static unsigned snap_below_apex(const struct cuzk_fc_profile *p) {
    return p->tree_d_levels - p->partition_bits - log2u(p->apex_leaves);
}

static void part_layout(const struct cuzk_fc_profile *p, struct part_layout *o) {
    const uint64_t L = p->layers, D = p->tree_d_levels, R = p->tree_r_levels;
    const uint64_t path8 = SIBS8 * R;
    memset(o, 0, sizeof *o);
    uint64_t item_struct = 0, item_file = 0, fixed_file = 0;
    switch (p->kind) {
    case CUZK_FC_POREP:
        o->n_items = p->challenges;
        /* tree-D path, parent columns, parent paths, tree-R and tree-C paths */
        o->item_fr = D + POREP_PARENTS * L + POREP_PARENTS * path8 + 2 * path8;
        item_struct = sizeof(struct cuzk_fc_porep_challenge);
        item_file = 8 * (1 + POREP_PARENTS) + 32 * (1 + o->item_fr);
        fixed_file = 5 * 32;
        break;
    case CUZK_FC_SNAP:
        o->n_items = p->challenges;
        o->item_fr = 2 * path8 + snap_below_apex(p);
        o->extra_fr = (uint64_t)p->apex_leaves + p->partition_bits;
        item_struct = sizeof(struct cuzk_fc_snap_challenge);
        item_file = 32 * (2 + o->item_fr);
        fixed_file = 8 + 6 * 32 + 32 * o->extra_fr;
        break;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING:
        o->n_items = p->sectors;
        o->item_fr = mul_sat(p->challenges, 1 + path8); /* leaves and paths */
        o->n_u64 = mul_sat(p->sectors, p->challenges);
        item_struct = sizeof(struct cuzk_fc_post_sector);
        item_file = add_sat(3 * 32, mul_sat(p->challenges, 8 + 32 + 32 * path8));
        break;
    }
    uint64_t frs = add_sat(mul_sat(o->n_items, o->item_fr), o->extra_fr);
    o->mem = add_sat(add_sat(mul_sat(o->n_items, item_struct), mul_sat(frs, sizeof(cuzk_fr))),
                     mul_sat(o->n_u64, 8));
    o->file = add_sat(fixed_file, mul_sat(o->n_items, item_file));
}

uint64_t cuzk_vanilla_part_bytes(const struct cuzk_fc_profile *p) {
    struct part_layout l;
    part_layout(p, &l);
    return l.file == UINT64_MAX ? 0 : l.file;
}

uint64_t cuzk_vanilla_nodes(const struct cuzk_fc_profile *p) {
    unsigned bits = 3 * p->tree_r_levels;
    if (p->kind == CUZK_FC_POREP && p->tree_d_levels < bits) bits = p->tree_d_levels;
    return bits >= 64 ? UINT64_MAX : (uint64_t)1 << bits;
}

/* Points the partition's vanilla struct into its block (structs first, then u64s, then field
 * elements, each naturally aligned). */
static int part_init(struct cuzk_vanilla_part *pt, const struct cuzk_fc_profile *p,
                     const struct part_layout *l) {
    memset(pt, 0, sizeof *pt);
    if (l->mem == UINT64_MAX || l->mem > (uint64_t)SIZE_MAX / 2) return CUZK_EINVAL;
    uint8_t *m = calloc(1, l->mem ? (size_t)l->mem : 1);
    if (!m) return CUZK_ENOMEM;
    pt->mem = m;
    const uint64_t L = p->layers, D = p->tree_d_levels, R = p->tree_r_levels;
    const uint64_t path8 = SIBS8 * R;
    switch (p->kind) {
    case CUZK_FC_POREP: {
        struct cuzk_fc_porep_challenge *ch = (void *)m;
        cuzk_fr *f = (cuzk_fr *)(ch + l->n_items);
        for (uint64_t j = 0; j < l->n_items; j++) {
            ch[j].tree_d_path = f, f += D;
            ch[j].parent_columns = f, f += POREP_PARENTS * L;
            ch[j].parent_paths = f, f += POREP_PARENTS * path8;
            ch[j].tree_r_path = f, f += path8;
            ch[j].tree_c_path = f, f += path8;
        }
        pt->v.porep.challenges = ch;
        break;
    }
    case CUZK_FC_SNAP: {
        struct cuzk_fc_snap_challenge *ch = (void *)m;
        cuzk_fr *f = (cuzk_fr *)(ch + l->n_items);
        pt->v.snap.apex_leaves = f, f += p->apex_leaves;
        pt->v.snap.partition_path = f, f += p->partition_bits;
        for (uint64_t j = 0; j < l->n_items; j++) {
            ch[j].path_r_old = f, f += path8;
            ch[j].path_r_new = f, f += path8;
            ch[j].path_d_to_apex = f, f += snap_below_apex(p);
        }
        pt->v.snap.challenges = ch;
        break;
    }
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: {
        struct cuzk_fc_post_sector *s = (void *)m;
        uint64_t *u = (uint64_t *)(s + l->n_items);
        cuzk_fr *f = (cuzk_fr *)(u + l->n_u64);
        for (uint64_t i = 0; i < l->n_items; i++) {
            s[i].indices = u, u += p->challenges;
            s[i].leaves = f, f += p->challenges;
            s[i].paths = f, f += p->challenges * path8;
        }
        pt->v.post.sectors = s;
        break;
    }
    }
    return CUZK_OK;
}

void cuzk_vanilla_free(struct cuzk_vanilla *v) {
    if (v->parts)
        for (uint32_t i = 0; i < v->n_parts; i++) free(v->parts[i].mem);
    free(v->parts);
    memset(v, 0, sizeof *v);
}

int cuzk_vanilla_alloc(struct cuzk_vanilla *v, const struct cuzk_fc_profile *p, uint32_t n_parts) {
    memset(v, 0, sizeof *v);
    if (n_parts < 1 || n_parts > CUZK_VANILLA_MAX_PARTS) return CUZK_EINVAL;
    struct part_layout l;
    part_layout(p, &l);
    v->profile = *p;
    v->parts = calloc(n_parts, sizeof *v->parts);
    if (!v->parts) return CUZK_ENOMEM;
    v->n_parts = n_parts;
    for (uint32_t i = 0; i < n_parts; i++) {
        int rc = part_init(&v->parts[i], p, &l);
        if (rc) {
            cuzk_vanilla_free(v);
            return rc;
        }
    }
    return CUZK_OK;
}

/* ---- the walkers ------------------------------------------------------------------------ */

struct io {
    uint8_t *buf; /* write: the output; read: the input (not written) */
    size_t pos, len;
    int write;
    int err;        /* first error */
    size_t bad_pos; /* where it happened */
};

static void io_bytes(struct io *io, void *x, size_t n) {
    if (io->err) return;
    if (n > io->len - io->pos) {
        io->err = CUZK_EFORMAT, io->bad_pos = io->pos;
        return;
    }
    if (io->write)
        memcpy(io->buf + io->pos, x, n);
    else
        memcpy(x, io->buf + io->pos, n);
    io->pos += n;
}

static void io_u64(struct io *io, uint64_t *x) {
    uint8_t b[8];
    if (io->write)
        for (int i = 0; i < 8; i++) b[i] = (uint8_t)(*x >> (8 * i));
    io_bytes(io, b, 8);
    if (!io->write && !io->err) {
        *x = 0;
        for (int i = 0; i < 8; i++) *x |= (uint64_t)b[i] << (8 * i);
    }
}

static void io_u32(struct io *io, unsigned *x) {
    uint8_t b[4];
    if (io->write)
        for (int i = 0; i < 4; i++) b[i] = (uint8_t)(*x >> (8 * i));
    io_bytes(io, b, 4);
    if (!io->write && !io->err) {
        uint32_t y = 0;
        for (int i = 0; i < 4; i++) y |= (uint32_t)b[i] << (8 * i);
        *x = y;
    }
}

static void io_frs(struct io *io, const cuzk_fr *cx, uint64_t n) {
    cuzk_fr *x = (cuzk_fr *)cx; /* the partition's own block */
    uint8_t b[32];
    for (uint64_t i = 0; i < n && !io->err; i++) {
        if (io->write) cuzk_fr_to_bytes_le(b, &x[i]);
        size_t at = io->pos;
        io_bytes(io, b, 32);
        if (!io->write && !io->err && cuzk_fr_from_bytes_le(&x[i], b) != CUZK_OK)
            io->err = CUZK_ENONCANON, io->bad_pos = at;
    }
}

static void walk_porep(struct io *io, const struct cuzk_fc_profile *p,
                       struct cuzk_fc_porep_vanilla *v) {
    const uint64_t L = p->layers, D = p->tree_d_levels, path8 = SIBS8 * (uint64_t)p->tree_r_levels;
    io_frs(io, &v->replica_id, 1);
    io_frs(io, &v->comm_d, 1);
    io_frs(io, &v->comm_r, 1);
    io_frs(io, &v->comm_c, 1);
    io_frs(io, &v->comm_r_last, 1);
    struct cuzk_fc_porep_challenge *ch = (struct cuzk_fc_porep_challenge *)v->challenges;
    for (unsigned j = 0; j < p->challenges && !io->err; j++) {
        io_u64(io, &ch[j].challenge);
        for (int q = 0; q < POREP_PARENTS; q++) io_u64(io, &ch[j].parents[q]);
        io_frs(io, &ch[j].data_leaf, 1);
        io_frs(io, ch[j].tree_d_path, D);
        io_frs(io, ch[j].parent_columns, POREP_PARENTS * L);
        io_frs(io, ch[j].parent_paths, POREP_PARENTS * path8);
        io_frs(io, ch[j].tree_r_path, path8);
        io_frs(io, ch[j].tree_c_path, path8);
    }
}

static void walk_snap(struct io *io, const struct cuzk_fc_profile *p,
                      struct cuzk_fc_snap_vanilla *v) {
    const uint64_t path8 = SIBS8 * (uint64_t)p->tree_r_levels;
    io_u32(io, &v->k);
    io_u32(io, &v->h_index);
    io_frs(io, &v->comm_r_old, 1);
    io_frs(io, &v->comm_d_new, 1);
    io_frs(io, &v->comm_r_new, 1);
    io_frs(io, &v->comm_c, 1);
    io_frs(io, &v->root_r_old, 1);
    io_frs(io, &v->root_r_new, 1);
    io_frs(io, v->apex_leaves, p->apex_leaves);
    io_frs(io, v->partition_path, p->partition_bits);
    struct cuzk_fc_snap_challenge *ch = (struct cuzk_fc_snap_challenge *)v->challenges;
    for (unsigned j = 0; j < p->challenges && !io->err; j++) {
        io_frs(io, &ch[j].leaf_r_old, 1);
        io_frs(io, &ch[j].leaf_d_new, 1);
        io_frs(io, ch[j].path_r_old, path8);
        io_frs(io, ch[j].path_r_new, path8);
        io_frs(io, ch[j].path_d_to_apex, snap_below_apex(p));
    }
}

static void walk_post(struct io *io, const struct cuzk_fc_profile *p,
                      struct cuzk_fc_post_vanilla *v) {
    const uint64_t path8 = SIBS8 * (uint64_t)p->tree_r_levels;
    struct cuzk_fc_post_sector *s = (struct cuzk_fc_post_sector *)v->sectors;
    for (unsigned i = 0; i < p->sectors && !io->err; i++) {
        io_frs(io, &s[i].comm_r, 1);
        io_frs(io, &s[i].comm_c, 1);
        io_frs(io, &s[i].comm_r_last, 1);
        for (unsigned c = 0; c < p->challenges && !io->err; c++) {
            io_u64(io, (uint64_t *)&s[i].indices[c]);
            io_frs(io, &s[i].leaves[c], 1);
            io_frs(io, s[i].paths + c * path8, path8);
        }
    }
}

static void walk(struct io *io, const struct cuzk_fc_profile *p, struct cuzk_vanilla_part *pt) {
    switch (p->kind) {
    case CUZK_FC_POREP: walk_porep(io, p, &pt->v.porep); break;
    case CUZK_FC_SNAP: walk_snap(io, p, &pt->v.snap); break;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: walk_post(io, p, &pt->v.post); break;
    }
}

/* ---- serialize -------------------------------------------------------------------------- */

static void put32(uint8_t *b, uint32_t x) {
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(x >> (8 * i));
}
static uint32_t get32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int cuzk_vanilla_serialize(const struct cuzk_vanilla *v, uint8_t **out, size_t *len) {
    *out = NULL;
    *len = 0;
    uint64_t pb = cuzk_vanilla_part_bytes(&v->profile);
    uint64_t total = add_sat(CUZK_VANILLA_HEADER_BYTES, mul_sat(v->n_parts, add_sat(pb, 8)));
    if (!pb || total > (uint64_t)SIZE_MAX / 2) return CUZK_ENOMEM;
    uint8_t *b = calloc(1, (size_t)total);
    if (!b) return CUZK_ENOMEM;
    memcpy(b, CUZK_VANILLA_MAGIC, 8);
    put32(b + 8, CUZK_VANILLA_VERSION);
    put32(b + 12, (uint32_t)v->profile.kind);
    put32(b + 16, v->n_parts);
    put32(b + 20, 0);
    memcpy(b + 24, v->profile.name, strnlen(v->profile.name, 63));
    struct io io = {.buf = b, .pos = CUZK_VANILLA_HEADER_BYTES, .len = (size_t)total, .write = 1};
    for (uint32_t i = 0; i < v->n_parts; i++) {
        uint64_t l = pb;
        io_u64(&io, &l);
        walk(&io, &v->profile, &v->parts[i]);
    }
    if (io.err || io.pos != total) {
        free(b);
        return CUZK_ENOMEM; /* unreachable: the sizes agree by construction */
    }
    *out = b;
    *len = (size_t)total;
    return CUZK_OK;
}

/* ---- parse ------------------------------------------------------------------------------ */

/* Structural checks of one decoded partition: indices inside their trees, Snap's k and h. */
static int part_bounds(const struct cuzk_fc_profile *p, const struct cuzk_vanilla_part *pt,
                       uint32_t idx, char *err, size_t errlen) {
    const uint64_t nodes = cuzk_vanilla_nodes(p);
    const uint64_t tree_c =
        3 * p->tree_r_levels >= 64 ? UINT64_MAX : (uint64_t)1 << (3 * p->tree_r_levels);
    switch (p->kind) {
    case CUZK_FC_POREP:
        for (unsigned j = 0; j < p->challenges; j++) {
            const struct cuzk_fc_porep_challenge *ch = &pt->v.porep.challenges[j];
            if (ch->challenge >= nodes)
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "vanilla: partition %u, challenge %u: node %llu is outside the "
                                 "sector (%llu nodes)",
                                 idx, j, (unsigned long long)ch->challenge,
                                 (unsigned long long)nodes);
            for (int q = 0; q < POREP_PARENTS; q++)
                if (ch->parents[q] >= tree_c)
                    return cuzk_errf(
                        err, errlen, CUZK_EFORMAT,
                        "vanilla: partition %u, challenge %u: parent %d (node %llu) is "
                        "outside tree C",
                        idx, j, q, (unsigned long long)ch->parents[q]);
        }
        break;
    case CUZK_FC_SNAP:
        if (pt->v.snap.k != idx)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "vanilla: partition %u carries partition index k = %u", idx,
                             pt->v.snap.k);
        if (pt->v.snap.k >> p->partition_bits)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "vanilla: partition %u: k = %u needs more than %u partition bits", idx,
                             pt->v.snap.k, p->partition_bits);
        if (pt->v.snap.h_index >= CUZK_FC_H_COUNT)
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "vanilla: partition %u: h index %u is not below %d", idx,
                             pt->v.snap.h_index, CUZK_FC_H_COUNT);
        break;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING:
        for (unsigned s = 0; s < p->sectors; s++)
            for (unsigned c = 0; c < p->challenges; c++)
                if (pt->v.post.sectors[s].indices[c] >= nodes)
                    return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                     "vanilla: partition %u, sector %u, challenge %u: leaf %llu is "
                                     "outside the tree (%llu leaves)",
                                     idx, s, c,
                                     (unsigned long long)pt->v.post.sectors[s].indices[c],
                                     (unsigned long long)nodes);
        break;
    }
    return CUZK_OK;
}

/* The header at b (len bytes left, >= the header size): profile, count. */
static int parse_header(const uint8_t *b, size_t off, struct cuzk_fc_profile *p, uint32_t *count,
                        char *err, size_t errlen) {
    if (memcmp(b, CUZK_VANILLA_MAGIC, 8))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: bad magic at byte %zu (not a cuzk vanilla-proof file)", off);
    uint32_t version = get32(b + 8), kind = get32(b + 12);
    *count = get32(b + 16);
    if (version != CUZK_VANILLA_VERSION)
        return cuzk_errf(err, errlen,
                         version > CUZK_VANILLA_VERSION ? CUZK_EUNSUPPORTED : CUZK_EFORMAT,
                         "vanilla: version %u is not supported (this build reads version %d)",
                         version, CUZK_VANILLA_VERSION);
    if (get32(b + 20))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: reserved header field is not zero");
    if (kind > CUZK_FC_WINNING)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: unknown proof kind %u", kind);
    char name[64];
    memcpy(name, b + 24, 64);
    size_t nl = strnlen(name, 64);
    if (nl == 0 || nl == 64)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: the profile name is empty or unterminated");
    for (size_t i = nl; i < 64; i++)
        if (name[i])
            return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: junk after the profile name");
    char perr[160];
    if (cuzk_fc_profile_parse(name, p, perr, sizeof perr))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: profile \"%s\": %s", name, perr);
    if (strcmp(p->name, name))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: profile \"%s\" is not in canonical form (\"%s\")", name,
                         p->name);
    if ((uint32_t)p->kind != kind)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: header kind %u does not match profile \"%s\"", kind, name);
    if (*count < 1 || *count > CUZK_VANILLA_MAX_PARTS)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: %u partitions is outside [1, %d]",
                         *count, CUZK_VANILLA_MAX_PARTS);
    return CUZK_OK;
}

int cuzk_vanilla_parse(struct cuzk_vanilla *v, const void *data, size_t len, char *err,
                       size_t errlen) {
    memset(v, 0, sizeof *v);
    const uint8_t *b = data;
    size_t off = 0;
    uint32_t cap = 0;
    int rc = CUZK_OK;
    struct part_layout l;
    if (!data || len == 0) return cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: empty input");
    while (off < len && !rc) {
        if (len - off < CUZK_VANILLA_HEADER_BYTES) {
            rc =
                cuzk_errf(err, errlen, CUZK_EFORMAT,
                          "vanilla: truncated header at byte %zu (%zu bytes left)", off, len - off);
            break;
        }
        struct cuzk_fc_profile p;
        uint32_t count = 0;
        if ((rc = parse_header(b + off, off, &p, &count, err, errlen))) break;
        if (v->n_parts == 0) {
            v->profile = p;
            part_layout(&p, &l);
        } else if (strcmp(p.name, v->profile.name)) {
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                           "vanilla: concatenated files disagree on the profile (%s, then %s)",
                           v->profile.name, p.name);
            break;
        }
        if (count > CUZK_VANILLA_MAX_PARTS - v->n_parts) {
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: more than %d partitions in all",
                           CUZK_VANILLA_MAX_PARTS);
            break;
        }
        off += CUZK_VANILLA_HEADER_BYTES;
        if (v->n_parts + count > cap) {
            uint32_t ncap = v->n_parts + count;
            struct cuzk_vanilla_part *np = realloc(v->parts, ncap * sizeof *np);
            if (!np) {
                rc = CUZK_ENOMEM;
                break;
            }
            v->parts = np;
            cap = ncap;
        }
        for (uint32_t i = 0; i < count && !rc; i++) {
            uint32_t idx = v->n_parts;
            if (len - off < 8) {
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                               "vanilla: partition %u: truncated length at byte %zu", idx, off);
                break;
            }
            uint64_t pl = 0;
            for (int k = 0; k < 8; k++) pl |= (uint64_t)b[off + k] << (8 * k);
            off += 8;
            if (pl != l.file) {
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                               "vanilla: partition %u: length %llu, profile %s needs %llu", idx,
                               (unsigned long long)pl, p.name, (unsigned long long)l.file);
                break;
            }
            if (pl > len - off) {
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                               "vanilla: partition %u: truncated (%llu bytes expected at byte %zu, "
                               "%zu left)",
                               idx, (unsigned long long)pl, off, len - off);
                break;
            }
            if ((rc = part_init(&v->parts[idx], &v->profile, &l))) {
                if (rc == CUZK_EINVAL)
                    rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "vanilla: profile too large");
                break;
            }
            v->n_parts++;
            struct io io = {.buf = (uint8_t *)b, .pos = off, .len = off + (size_t)pl};
            walk(&io, &v->profile, &v->parts[idx]);
            if (io.err == CUZK_ENONCANON)
                rc =
                    cuzk_errf(err, errlen, CUZK_ENONCANON,
                              "vanilla: partition %u: the field element at byte %zu is not below r",
                              idx, io.bad_pos);
            else if (io.err || io.pos != off + pl)
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                               "vanilla: partition %u: layout error at byte %zu", idx, io.bad_pos);
            else
                rc = part_bounds(&v->profile, &v->parts[idx], idx, err, errlen);
            off += (size_t)pl;
        }
    }
    if (rc) cuzk_vanilla_free(v);
    return rc;
}

/* ---- files ------------------------------------------------------------------------------ */

int cuzk_vanilla_write_file(const struct cuzk_vanilla *v, const char *path, char *err,
                            size_t errlen) {
    uint8_t *b;
    size_t n;
    int rc = cuzk_vanilla_serialize(v, &b, &n);
    if (rc) return cuzk_errf(err, errlen, rc, "vanilla: cannot serialize: %s", cuzk_strerror(rc));
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(b);
        return cuzk_errf(err, errlen, CUZK_EIO, "vanilla: cannot create %s: %s", path,
                         strerror(errno));
    }
    int ok = fwrite(b, 1, n, f) == n;
    ok &= fclose(f) == 0;
    free(b);
    if (!ok) return cuzk_errf(err, errlen, CUZK_EIO, "vanilla: cannot write %s", path);
    return CUZK_OK;
}

int cuzk_vanilla_read_file(struct cuzk_vanilla *v, const char *path, char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_errf(err, errlen, CUZK_EIO, "vanilla: cannot open %s: %s", path,
                         strerror(errno));
    uint8_t *b = NULL;
    size_t n = 0, cap = 0;
    int rc = CUZK_OK;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            uint8_t *nb = realloc(b, cap);
            if (!nb) {
                rc = CUZK_ENOMEM;
                break;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (!rc && ferror(f)) rc = cuzk_errf(err, errlen, CUZK_EIO, "vanilla: cannot read %s", path);
    fclose(f);
    if (!rc) rc = cuzk_vanilla_parse(v, b, n, err, errlen);
    free(b);
    return rc;
}

/* ---- public inputs ---------------------------------------------------------------------- */

size_t cuzk_vanilla_public_count(const struct cuzk_fc_profile *p) {
    switch (p->kind) {
    case CUZK_FC_POREP: return 3 + (size_t)(1 + POREP_PARENTS + 3) * p->challenges;
    case CUZK_FC_SNAP: return 4;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: return (size_t)p->sectors * (1 + (size_t)p->challenges);
    }
    return 0;
}

int cuzk_vanilla_public_inputs(const struct cuzk_vanilla *v, uint32_t part, cuzk_fr *out,
                               size_t cap, size_t *n_out) {
    const struct cuzk_fc_profile *p = &v->profile;
    const size_t want = cuzk_vanilla_public_count(p);
    if (part >= v->n_parts) return CUZK_EINVAL;
    if (cap < want) return CUZK_ERANGE;
    size_t n = 0;
    switch (p->kind) {
    case CUZK_FC_POREP: {
        const struct cuzk_fc_porep_vanilla *x = &v->parts[part].v.porep;
        const uint64_t mask_d = p->tree_d_levels >= 64 ? ~0ull : (1ull << p->tree_d_levels) - 1;
        out[n++] = x->replica_id;
        out[n++] = x->comm_d;
        out[n++] = x->comm_r;
        for (unsigned j = 0; j < p->challenges; j++) {
            const struct cuzk_fc_porep_challenge *ch = &x->challenges[j];
            cuzk_fr_from_u64(&out[n++], ch->challenge & mask_d); /* tree-D path index */
            for (int q = 0; q < POREP_PARENTS; q++) cuzk_fr_from_u64(&out[n++], ch->parents[q]);
            cuzk_fr_from_u64(&out[n++], ch->challenge);
            cuzk_fr_from_u64(&out[n++], ch->challenge); /* tree-R path index */
            cuzk_fr_from_u64(&out[n++], ch->challenge); /* tree-C path index */
        }
        break;
    }
    case CUZK_FC_SNAP: {
        const struct cuzk_fc_snap_vanilla *x = &v->parts[part].v.snap;
        cuzk_fr_from_u64(&out[n++], (uint64_t)x->k | (1ull << x->h_index) << p->partition_bits);
        out[n++] = x->comm_r_old;
        out[n++] = x->comm_d_new;
        out[n++] = x->comm_r_new;
        break;
    }
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING:
        for (unsigned s = 0; s < p->sectors; s++) {
            const struct cuzk_fc_post_sector *sec = &v->parts[part].v.post.sectors[s];
            out[n++] = sec->comm_r;
            for (unsigned c = 0; c < p->challenges; c++)
                cuzk_fr_from_u64(&out[n++], sec->indices[c]);
        }
        break;
    }
    *n_out = n;
    return CUZK_OK;
}

/* ---- native derivations ----------------------------------------------------------------- */

void cuzk_vanilla_comm_r(const cuzk_fr *comm_c, const cuzk_fr *root, cuzk_fr *comm_r) {
    cuzk_fr in[2] = {*comm_c, *root};
    cuzk_poseidon_hash_merkle(2, in, comm_r);
}

void cuzk_vanilla_porep_labels(const struct cuzk_fc_profile *p, const cuzk_fr *replica_id,
                               uint64_t node, const cuzk_fr *cols, cuzk_fr *labels) {
    const unsigned L = p->layers;
    cuzk_fr exp[CUZK_FC_TOTAL_PARENTS];
    for (unsigned layer = 1; layer <= L; layer++) {
        for (unsigned k = 0; k < CUZK_FC_TOTAL_PARENTS; k++) {
            if (layer == 1) {
                unsigned q = k < 36 ? k % CUZK_FC_DRG_PARENTS : 0;
                exp[k] = cols[q * L];
            } else {
                unsigned q = k % POREP_PARENTS;
                exp[k] = cols[q * L + (q < CUZK_FC_DRG_PARENTS ? layer - 1 : layer - 2)];
            }
        }
        cuzk_fc_label_native(&labels[layer - 1], replica_id, layer, node, exp);
    }
}

unsigned cuzk_vanilla_snap_h(const struct cuzk_fc_profile *p, unsigned h_index) {
    return p->tree_d_levels >= 12 ? 7 + h_index : 1;
}

static void hash_gen(const cuzk_fr *x, const cuzk_fr *y, cuzk_fr *out) {
    cuzk_fr tag, in[2] = {*x, *y};
    cuzk_poseidon_tag_custom(&tag, 1);
    cuzk_poseidon_hash(2, &tag, in, out);
}

void cuzk_vanilla_snap_phi(const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old, cuzk_fr *phi) {
    hash_gen(comm_d_new, comm_r_old, phi);
}

void cuzk_vanilla_snap_rho(const cuzk_fr *phi, uint64_t c_high, cuzk_fr *rho) {
    cuzk_fr c;
    cuzk_fr_from_u64(&c, c_high);
    hash_gen(phi, &c, rho);
}

void cuzk_vanilla_snap_challenges(const struct cuzk_fc_profile *p, const cuzk_fr *comm_r_new,
                                  unsigned k, uint64_t *out) {
    const unsigned D = p->tree_d_levels, P = p->partition_bits;
    const unsigned bpc = D - P, per_digest = CUZK_FR_CAPACITY / bpc;
    const unsigned digests = (p->challenges + per_digest - 1) / per_digest;
    uint64_t limbs[4] = {0};
    for (unsigned c = 0; c < p->challenges; c++) {
        unsigned j = c / per_digest, off = (c % per_digest) * bpc;
        if (c % per_digest == 0) {
            cuzk_fr idx, d;
            cuzk_fr_from_u64(&idx, (uint64_t)k * digests + j);
            hash_gen(comm_r_new, &idx, &d);
            cuzk_fr_to_canonical(limbs, &d);
        }
        uint64_t x = 0;
        for (unsigned i = 0; i < bpc; i++) {
            unsigned bit = off + i;
            x |= ((limbs[bit / 64] >> (bit % 64)) & 1) << i;
        }
        out[c] = x | (uint64_t)k << bpc;
    }
}

/* ---- consistency ------------------------------------------------------------------------ */

static void root_of(enum cuzk_merkle_hash h, unsigned levels, const cuzk_fr *leaf,
                    const cuzk_fr *sibs, uint64_t index, cuzk_fr *root) {
    cuzk_merkle_root_native(h, h == CUZK_MERKLE_SHA256 ? 2 : 8, levels, leaf, sibs, index, root);
}

static int same(const cuzk_fr *a, const cuzk_fr *b) { return cuzk_fr_eq(a, b); }

static int check_porep(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_porep_vanilla *v = &vs->parts[part].v.porep, *v0 = &vs->parts[0].v.porep;
    const unsigned L = p->layers, D = p->tree_d_levels, R = p->tree_r_levels;
    const struct {
        const char *name;
        const cuzk_fr *a, *b;
    } shared[] = {{"replica_id", &v->replica_id, &v0->replica_id},
                  {"comm_d", &v->comm_d, &v0->comm_d},
                  {"comm_r", &v->comm_r, &v0->comm_r},
                  {"comm_c", &v->comm_c, &v0->comm_c},
                  {"comm_r_last", &v->comm_r_last, &v0->comm_r_last}};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (!same(shared[i].a, shared[i].b))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u: %s differs from partition 0's (a job proves one "
                "sector)",
                part, shared[i].name);
    cuzk_fr t, h;
    cuzk_vanilla_comm_r(&v->comm_c, &v->comm_r_last, &t);
    if (!same(&t, &v->comm_r))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r is not H(comm_c, comm_r_last)", part);
    cuzk_fr labels[CUZK_POSEIDON_MAX_ARITY];
    for (unsigned j = 0; j < p->challenges; j++) {
        const struct cuzk_fc_porep_challenge *ch = &v->challenges[j];
        const unsigned long long node = (unsigned long long)ch->challenge;
        root_of(CUZK_MERKLE_SHA256, D, &ch->data_leaf, ch->tree_d_path, ch->challenge, &t);
        if (!same(&t, &v->comm_d))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, challenge %u (node %llu): the tree-D path does "
                "not reach comm_d",
                part, j, node);
        for (unsigned q = 0; q < POREP_PARENTS; q++) {
            cuzk_poseidon_hash_merkle((int)L, ch->parent_columns + (size_t)q * L, &h);
            root_of(CUZK_MERKLE_POSEIDON, R, &h, ch->parent_paths + (size_t)q * R * SIBS8,
                    ch->parents[q], &t);
            if (!same(&t, &v->comm_c))
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "vanilla: partition %u, challenge %u (node %llu): parent %u's "
                                 "column does not reach comm_c",
                                 part, j, node, q);
        }
        cuzk_vanilla_porep_labels(p, &v->replica_id, ch->challenge, ch->parent_columns, labels);
        cuzk_fr_add(&h, &labels[L - 1], &ch->data_leaf);
        root_of(CUZK_MERKLE_POSEIDON, R, &h, ch->tree_r_path, ch->challenge, &t);
        if (!same(&t, &v->comm_r_last))
            return cuzk_errf(err, errlen, CUZK_EFORMAT,
                             "vanilla: partition %u, challenge %u (node %llu): the encoded node "
                             "(last label + data) does not reach comm_r_last",
                             part, j, node);
        cuzk_poseidon_hash_merkle((int)L, labels, &h);
        root_of(CUZK_MERKLE_POSEIDON, R, &h, ch->tree_c_path, ch->challenge, &t);
        if (!same(&t, &v->comm_c))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, challenge %u (node %llu): the column of labels "
                "derived from the parents does not reach comm_c",
                part, j, node);
    }
    return CUZK_OK;
}

static int check_snap(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_snap_vanilla *v = &vs->parts[part].v.snap, *v0 = &vs->parts[0].v.snap;
    const unsigned D = p->tree_d_levels, R = p->tree_r_levels, A = p->apex_leaves;
    const unsigned below = snap_below_apex(p);
    const struct {
        const char *name;
        const cuzk_fr *a, *b;
    } shared[] = {{"comm_r_old", &v->comm_r_old, &v0->comm_r_old},
                  {"comm_d_new", &v->comm_d_new, &v0->comm_d_new},
                  {"comm_r_new", &v->comm_r_new, &v0->comm_r_new},
                  {"comm_c", &v->comm_c, &v0->comm_c},
                  {"root_r_old", &v->root_r_old, &v0->root_r_old},
                  {"root_r_new", &v->root_r_new, &v0->root_r_new}};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (!same(shared[i].a, shared[i].b))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u: %s differs from partition 0's (a job proves one "
                "sector)",
                part, shared[i].name);
    if (v->h_index != v0->h_index)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: h index differs from partition 0's", part);
    cuzk_fr t;
    cuzk_vanilla_comm_r(&v->comm_c, &v->root_r_old, &t);
    if (!same(&t, &v->comm_r_old))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r_old is not H(comm_c, root_r_old)", part);
    cuzk_vanilla_comm_r(&v->comm_c, &v->root_r_new, &t);
    if (!same(&t, &v->comm_r_new))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "vanilla: partition %u: comm_r_new is not H(comm_c, root_r_new)", part);
    /* the apex tree, then its root up the partition path */
    cuzk_fr *row = malloc((size_t)A * sizeof *row);
    uint64_t *chal = malloc((size_t)p->challenges * sizeof *chal);
    int rc = CUZK_OK;
    if (!row || !chal) {
        rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "vanilla: out of memory");
        goto out;
    }
    memcpy(row, v->apex_leaves, (size_t)A * sizeof *row);
    for (unsigned n = A; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++)
            cuzk_sha256_node_fr(&row[i], &row[2 * i], &row[2 * i + 1]);
    root_of(CUZK_MERKLE_SHA256, p->partition_bits, &row[0], v->partition_path, v->k, &t);
    if (!same(&t, &v->comm_d_new)) {
        rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                       "vanilla: partition %u: the apex leaves and partition path do not reach "
                       "comm_d_new",
                       part);
        goto out;
    }
    cuzk_fr phi, rho, leaf_new;
    cuzk_vanilla_snap_phi(&v->comm_d_new, &v->comm_r_old, &phi);
    cuzk_vanilla_snap_challenges(p, &v->comm_r_new, v->k, chal);
    const unsigned h = cuzk_vanilla_snap_h(p, v->h_index);
    for (unsigned j = 0; j < p->challenges; j++) {
        const struct cuzk_fc_snap_challenge *ch = &v->challenges[j];
        const uint64_t x = chal[j];
        cuzk_vanilla_snap_rho(&phi, x >> (D - h), &rho);
        cuzk_fr_mul(&leaf_new, &ch->leaf_d_new, &rho);
        cuzk_fr_add(&leaf_new, &leaf_new, &ch->leaf_r_old);
        const char *what = NULL;
        root_of(CUZK_MERKLE_POSEIDON, R, &ch->leaf_r_old, ch->path_r_old, x, &t);
        if (!same(&t, &v->root_r_old)) what = "the old replica path does not reach root_r_old";
        root_of(CUZK_MERKLE_POSEIDON, R, &leaf_new, ch->path_r_new, x, &t);
        if (!what && !same(&t, &v->root_r_new))
            what = "the new replica node (old + data * rho) does not reach root_r_new";
        root_of(CUZK_MERKLE_SHA256, below, &ch->leaf_d_new, ch->path_d_to_apex, x, &t);
        if (!what && !same(&t, &v->apex_leaves[(x >> below) & (A - 1)]))
            what = "the data path does not reach its apex leaf";
        if (what) {
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                           "vanilla: partition %u, challenge %u (node %llu): %s", part, j,
                           (unsigned long long)x, what);
            goto out;
        }
    }
out:
    free(row);
    free(chal);
    return rc;
}

static int check_post(const struct cuzk_vanilla *vs, uint32_t part, char *err, size_t errlen) {
    const struct cuzk_fc_profile *p = &vs->profile;
    const struct cuzk_fc_post_vanilla *v = &vs->parts[part].v.post;
    const unsigned R = p->tree_r_levels;
    cuzk_fr t;
    for (unsigned s = 0; s < p->sectors; s++) {
        const struct cuzk_fc_post_sector *sec = &v->sectors[s];
        cuzk_vanilla_comm_r(&sec->comm_c, &sec->comm_r_last, &t);
        if (!same(&t, &sec->comm_r))
            return cuzk_errf(
                err, errlen, CUZK_EFORMAT,
                "vanilla: partition %u, sector %u: comm_r is not H(comm_c, comm_r_last)", part, s);
        for (unsigned c = 0; c < p->challenges; c++) {
            root_of(CUZK_MERKLE_POSEIDON, R, &sec->leaves[c], sec->paths + (size_t)c * R * SIBS8,
                    sec->indices[c], &t);
            if (!same(&t, &sec->comm_r_last))
                return cuzk_errf(err, errlen, CUZK_EFORMAT,
                                 "vanilla: partition %u, sector %u, challenge %u (leaf %llu): the "
                                 "path does not reach comm_r_last",
                                 part, s, c, (unsigned long long)sec->indices[c]);
        }
    }
    return CUZK_OK;
}

int cuzk_vanilla_check_part(const struct cuzk_vanilla *v, uint32_t part, char *err, size_t errlen) {
    if (part >= v->n_parts)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla: no partition %u (%u in all)", part,
                         v->n_parts);
    switch (v->profile.kind) {
    case CUZK_FC_POREP: return check_porep(v, part, err, errlen);
    case CUZK_FC_SNAP: return check_snap(v, part, err, errlen);
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: return check_post(v, part, err, errlen);
    }
    return cuzk_errf(err, errlen, CUZK_EINVAL, "vanilla: unknown kind");
}

int cuzk_vanilla_check(const struct cuzk_vanilla *v, char *err, size_t errlen) {
    for (uint32_t i = 0; i < v->n_parts; i++) {
        int rc = cuzk_vanilla_check_part(v, i, err, errlen);
        if (rc) return rc;
    }
    return CUZK_OK;
}
