/* Vanilla proofs, the format (filecoin/vanilla.h): a partition's block in memory (alloc,
 * free), the file's layout (serialize, parse with its structural checks), files.
 *
 * DESIGN: one walker per kind visits a partition's values in file order; the same walker
 * serializes (io in write mode) and parses (read mode, which also checks canonicity), so the
 * writer and the reader cannot disagree on the layout. A partition's arrays live in one block
 * laid out by part_layout, which also gives the file length of a partition. */
#include "filecoin/vanilla_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "util/file.h"
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

static void part_layout(const struct cuzk_fc_profile *p, struct part_layout *o) {
    const uint64_t L = p->layers, D = p->tree_d_levels;
    const uint64_t path_r = cuzk_fc_tree_r_siblings(p);
    memset(o, 0, sizeof *o);
    uint64_t item_struct = 0, item_file = 0, fixed_file = 0;
    switch (p->kind) {
    case CUZK_FC_POREP:
        o->n_items = p->challenges;
        /* tree-D path, parent columns, parent paths, tree-R and tree-C paths */
        o->item_fr = D + POREP_PARENTS * L + POREP_PARENTS * path_r + 2 * path_r;
        item_struct = sizeof(struct cuzk_fc_porep_challenge);
        item_file = 8 * (1 + POREP_PARENTS) + 32 * (1 + o->item_fr);
        fixed_file = 5 * 32;
        break;
    case CUZK_FC_SNAP:
        o->n_items = p->challenges;
        o->item_fr = 2 * path_r + snap_below_apex(p);
        o->extra_fr = (uint64_t)p->apex_leaves + p->partition_bits;
        item_struct = sizeof(struct cuzk_fc_snap_challenge);
        item_file = 32 * (2 + o->item_fr);
        fixed_file = 8 + 6 * 32 + 32 * o->extra_fr;
        break;
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING:
        o->n_items = p->sectors;
        o->item_fr = mul_sat(p->challenges, 1 + path_r); /* leaves and paths */
        o->n_u64 = mul_sat(p->sectors, p->challenges);
        item_struct = sizeof(struct cuzk_fc_post_sector);
        item_file = add_sat(3 * 32, mul_sat(p->challenges, 8 + 32 + 32 * path_r));
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

/* Points the partition's vanilla struct into its block (structs first, then u64s, then field
 * elements, each naturally aligned). */
static int part_init(struct cuzk_vanilla_part *pt, const struct cuzk_fc_profile *p,
                     const struct part_layout *l) {
    memset(pt, 0, sizeof *pt);
    if (l->mem == UINT64_MAX || l->mem > (uint64_t)SIZE_MAX / 2) return CUZK_EINVAL;
    uint8_t *m = calloc(1, l->mem ? (size_t)l->mem : 1);
    if (!m) return CUZK_ENOMEM;
    pt->mem = m;
    const uint64_t L = p->layers, D = p->tree_d_levels;
    const uint64_t path_r = cuzk_fc_tree_r_siblings(p);
    switch (p->kind) {
    case CUZK_FC_POREP: {
        struct cuzk_fc_porep_challenge *ch = (void *)m;
        cuzk_fr *f = (cuzk_fr *)(ch + l->n_items);
        for (uint64_t j = 0; j < l->n_items; j++) {
            ch[j].tree_d_path = f, f += D;
            ch[j].parent_columns = f, f += POREP_PARENTS * L;
            ch[j].parent_paths = f, f += POREP_PARENTS * path_r;
            ch[j].tree_r_path = f, f += path_r;
            ch[j].tree_c_path = f, f += path_r;
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
            ch[j].path_r_old = f, f += path_r;
            ch[j].path_r_new = f, f += path_r;
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
            s[i].paths = f, f += p->challenges * path_r;
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
    const uint64_t L = p->layers, D = p->tree_d_levels, path_r = cuzk_fc_tree_r_siblings(p);
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
        io_frs(io, ch[j].parent_paths, POREP_PARENTS * path_r);
        io_frs(io, ch[j].tree_r_path, path_r);
        io_frs(io, ch[j].tree_c_path, path_r);
    }
}

static void walk_snap(struct io *io, const struct cuzk_fc_profile *p,
                      struct cuzk_fc_snap_vanilla *v) {
    const uint64_t path_r = cuzk_fc_tree_r_siblings(p);
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
        io_frs(io, ch[j].path_r_old, path_r);
        io_frs(io, ch[j].path_r_new, path_r);
        io_frs(io, ch[j].path_d_to_apex, snap_below_apex(p));
    }
}

static void walk_post(struct io *io, const struct cuzk_fc_profile *p,
                      struct cuzk_fc_post_vanilla *v) {
    const uint64_t path_r = cuzk_fc_tree_r_siblings(p);
    struct cuzk_fc_post_sector *s = (struct cuzk_fc_post_sector *)v->sectors;
    for (unsigned i = 0; i < p->sectors && !io->err; i++) {
        io_frs(io, &s[i].comm_r, 1);
        io_frs(io, &s[i].comm_c, 1);
        io_frs(io, &s[i].comm_r_last, 1);
        for (unsigned c = 0; c < p->challenges && !io->err; c++) {
            io_u64(io, (uint64_t *)&s[i].indices[c]);
            io_frs(io, &s[i].leaves[c], 1);
            io_frs(io, s[i].paths + c * path_r, path_r);
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
    const unsigned tree_c_bits = cuzk_fc_tree_r_bits(p);
    const uint64_t tree_c = tree_c_bits >= 64 ? UINT64_MAX : (uint64_t)1 << tree_c_bits;
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
    uint8_t *b;
    size_t n;
    char why[512];
    int rc = cuzk_file_read(path, SIZE_MAX, &b, &n, why, sizeof why);
    if (rc) return cuzk_errf(err, errlen, rc, "vanilla: %s", why);
    rc = cuzk_vanilla_parse(v, b, n, err, errlen);
    free(b);
    return rc;
}
