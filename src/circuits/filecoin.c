/* DESIGN: each circuit is a straight transcription of its upstream synthesize function (proof.rs
 * and params.rs of StackedDRG, update's circuit.rs and gadgets.rs, fallback PoSt's circuit.rs):
 * the same allocations, gadget calls and rows in the same order, so that counts and the input
 * order match. Scratch buffers (label message bits, parent columns) are allocated once per
 * synthesis; nothing is allocated per row. Values are read from the vanilla struct only when
 * the builder computes values. */
#include "circuits/filecoin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/merkle.h"
#include "circuits/num.h"
#include "circuits/pick.h"
#include "circuits/poseidon.h"
#include "circuits/poseidon_gadget.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"

/* ---- profiles ------------------------------------------------------------------------------ */

static const char *const kind_names[4] = {"porep", "snap", "wpost", "winning"};

void cuzk_fc_profile_default(enum cuzk_fc_kind kind, struct cuzk_fc_profile *p) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->sectors = 1;
    p->layers = 11;
    p->tree_d_levels = 30;
    p->tree_r_levels = 10;
    p->sub_arity = 0;
    p->top_arity = 0;
    p->apex_leaves = 128;
    p->partition_bits = 4;
    switch (kind) {
    case CUZK_FC_POREP: p->challenges = 18; break;
    case CUZK_FC_SNAP: p->challenges = 86; break;
    case CUZK_FC_WPOST:
        p->challenges = 10;
        p->sectors = 2349;
        break;
    default: p->challenges = 1; p->sectors = 66;
    }
}

void cuzk_fc_tree_r_shape(const struct cuzk_fc_profile *p, struct cuzk_merkle_shape *s) {
    *s = (struct cuzk_merkle_shape){CUZK_MERKLE_POSEIDON, 8, p->tree_r_levels, p->sub_arity,
                                    p->top_arity};
}

unsigned cuzk_fc_tree_r_bits(const struct cuzk_fc_profile *p) {
    struct cuzk_merkle_shape s;
    cuzk_fc_tree_r_shape(p, &s);
    return cuzk_merkle_shape_bits(&s);
}

unsigned cuzk_fc_tree_r_siblings(const struct cuzk_fc_profile *p) {
    struct cuzk_merkle_shape s;
    cuzk_fc_tree_r_shape(p, &s);
    return cuzk_merkle_shape_siblings(&s);
}

static int is_pow2(unsigned x) { return x && !(x & (x - 1)); }
static unsigned log2_of(unsigned x) {
    unsigned k = 0;
    while ((1u << k) < x) k++;
    return k;
}

static int bad(char *err, size_t errlen, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return CUZK_EINVAL;
}

int cuzk_fc_profile_check(struct cuzk_fc_profile *p, char *err, size_t errlen) {
    if ((unsigned)p->kind > CUZK_FC_WINNING) return bad(err, errlen, "unknown circuit kind");
    if (p->challenges < 1 || p->challenges > 100000 || p->sectors < 1 || p->sectors > 100000)
        return bad(err, errlen, "challenge or sector count out of range");
    if (p->tree_r_levels < 1 || p->tree_r_levels > 21)
        return bad(err, errlen, "tree-R levels must be 1..21");
    if (p->sub_arity != 0 && p->sub_arity != 2 && p->sub_arity != 4)
        return bad(err, errlen, "the tree-R sub level's arity must be 2 or 4 (8 is one more r)");
    if (p->top_arity != 0 && p->top_arity != 2)
        return bad(err, errlen, "the tree-R top level's arity must be 2");
    if (cuzk_fc_tree_r_bits(p) > 63) return bad(err, errlen, "tree-R index bits exceed 63");
    if (p->tree_d_levels < 1 || p->tree_d_levels > 63)
        return bad(err, errlen, "tree-D levels must be 1..63");
    if (p->kind == CUZK_FC_POREP && p->layers != 2 && p->layers != 4 && p->layers != 8 &&
        p->layers != 11)
        return bad(err, errlen, "PoRep layers must be 2, 4, 8 or 11 (column hash arity)");
    if (p->kind == CUZK_FC_SNAP) {
        if (!is_pow2(p->apex_leaves) || p->apex_leaves < 2)
            return bad(err, errlen, "apex leaves must be a power of two >= 2");
        if (p->partition_bits > 8) /* 0: one partition (sectors up to 8 KiB) */
            return bad(err, errlen, "partition bits must be 0..8");
        if (cuzk_fc_tree_r_bits(p) != p->tree_d_levels)
            return bad(err, errlen,
                       "SnapDeals needs 3 r + log2(m) + log2(t) = d (tree R and D index the "
                       "same nodes)");
        if (p->tree_d_levels <= p->partition_bits + log2_of(p->apex_leaves))
            return bad(err, errlen, "SnapDeals needs d > p + log2(a)");
        if (p->tree_d_levels - p->partition_bits > CUZK_FR_CAPACITY)
            return bad(err, errlen, "SnapDeals challenge bits exceed a digest");
    }
    struct cuzk_fc_profile def;
    cuzk_fc_profile_default(p->kind, &def);
    int n = snprintf(p->name, sizeof p->name, "%s-%c%u", kind_names[p->kind],
                     p->kind <= CUZK_FC_SNAP ? 'c' : 's',
                     p->kind <= CUZK_FC_SNAP ? p->challenges : p->sectors);
    struct {
        char key;
        unsigned val, def;
        int used;
    } knobs[] = {
        {'l', p->layers, def.layers, p->kind == CUZK_FC_POREP},
        {'d', p->tree_d_levels, def.tree_d_levels, p->kind <= CUZK_FC_SNAP},
        {'r', p->tree_r_levels, def.tree_r_levels, 1},
        {'m', p->sub_arity, def.sub_arity, 1},
        {'t', p->top_arity, def.top_arity, 1},
        {'a', p->apex_leaves, def.apex_leaves, p->kind == CUZK_FC_SNAP},
        {'p', p->partition_bits, def.partition_bits, p->kind == CUZK_FC_SNAP},
        {'k', p->challenges, def.challenges, p->kind >= CUZK_FC_WPOST},
    };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        if (knobs[i].used && knobs[i].val != knobs[i].def && n > 0 && (size_t)n < sizeof p->name)
            n += snprintf(p->name + n, sizeof p->name - (size_t)n, "-%c%u", knobs[i].key,
                          knobs[i].val);
    return CUZK_OK;
}

int cuzk_fc_profile_parse(const char *name, struct cuzk_fc_profile *p, char *err, size_t errlen) {
    int kind = -1;
    size_t klen = 0;
    for (int k = 0; k < 4; k++) {
        size_t l = strlen(kind_names[k]);
        if (strncmp(name, kind_names[k], l) == 0 && name[l] == '-') kind = k, klen = l;
    }
    if (kind < 0)
        return bad(err, errlen, "profile must start with porep-, snap-, wpost- or winning-");
    cuzk_fc_profile_default((enum cuzk_fc_kind)kind, p);
    const char *s = name + klen;
    int first = 1;
    while (*s == '-') {
        char key = s[1];
        if (!key) return bad(err, errlen, "a knob needs a letter and a number: -<letter><n>");
        const char *d = s + 2;
        unsigned long v = 0;
        if (*d < '0' || *d > '9') return bad(err, errlen, "a knob needs a number: -<letter><n>");
        while (*d >= '0' && *d <= '9') {
            v = v * 10 + (unsigned long)(*d - '0');
            if (v > 10000000) return bad(err, errlen, "number too large");
            d++;
        }
        unsigned u = (unsigned)v;
        if (first) {
            char want = kind <= CUZK_FC_SNAP ? 'c' : 's';
            if (key != want)
                return bad(err, errlen,
                           kind <= CUZK_FC_SNAP ? "expected -c<challenges> after the kind"
                                                : "expected -s<sectors> after the kind");
            if (kind <= CUZK_FC_SNAP)
                p->challenges = u;
            else
                p->sectors = u;
            first = 0;
        } else {
            switch (key) {
            case 'l': p->layers = u; break;
            case 'd': p->tree_d_levels = u; break;
            case 'r': p->tree_r_levels = u; break;
            case 'm': p->sub_arity = u; break;
            case 't': p->top_arity = u; break;
            case 'a': p->apex_leaves = u; break;
            case 'p': p->partition_bits = u; break;
            case 'k':
                if (kind <= CUZK_FC_SNAP) return bad(err, errlen, "-k is for PoSt profiles");
                p->challenges = u;
                break;
            default: return bad(err, errlen, "unknown knob (l, d, r, m, t, a, p, k)");
            }
        }
        s = d;
    }
    if (*s || first) return bad(err, errlen, "malformed profile name");
    return cuzk_fc_profile_check(p, err, errlen);
}

/* ---- shared pieces ------------------------------------------------------------------------- */

static void set_err(struct cuzk_builder *b, int err) {
    if (b->err == CUZK_OK) b->err = err;
}

/* alloc with a value taken from *v only when the builder has values */
static struct cuzk_num alloc_v(struct cuzk_builder *b, int values, const cuzk_fr *v) {
    return cuzk_num_alloc(b, values ? v : NULL);
}

static struct cuzk_num poseidon_merkle(struct cuzk_builder *b, const struct cuzk_num *in, int n) {
    cuzk_var vars[CUZK_POSEIDON_MAX_ARITY];
    for (int i = 0; i < n; i++) vars[i] = in[i].var;
    struct cuzk_num r;
    if (cuzk_poseidon_gadget_hash_merkle(b, (size_t)n, vars, &r.var) != CUZK_OK)
        set_err(b, CUZK_EINVAL);
    cuzk_builder_value(b, r.var, &r.value);
    return r;
}

/* SnapDeals' randomness hash: Poseidon arity 2 with the Custom(1) domain tag. */
static struct cuzk_num poseidon_gen(struct cuzk_builder *b, const struct cuzk_num *x,
                                    const struct cuzk_num *y) {
    cuzk_fr tag;
    cuzk_poseidon_tag_custom(&tag, 1);
    cuzk_var vars[2] = {x->var, y->var};
    struct cuzk_num r;
    if (cuzk_poseidon_gadget_hash(b, 2, &tag, vars, &r.var) != CUZK_OK) set_err(b, CUZK_EINVAL);
    cuzk_builder_value(b, r.var, &r.value);
    return r;
}

/* ---- PoRep --------------------------------------------------------------------------------- */

#define POREP_PARENTS (CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS)
#define LABEL_BITS ((2 + CUZK_FC_TOTAL_PARENTS) * 256) /* 1,248 bytes */

/* create_label_circuit: the label of one layer from the 256-bit message pieces. */
static struct cuzk_num create_label(struct cuzk_builder *b, struct cuzk_bool *msg,
                                    const struct cuzk_bool replica_bits[256], uint32_t layer,
                                    const struct cuzk_bool node_le[64],
                                    struct cuzk_bool (*const *parents)[256]) {
    memcpy(msg, replica_bits, 256 * sizeof *msg);
    for (int i = 0; i < 32; i++) msg[256 + i] = cuzk_bool_const((int)((layer >> (31 - i)) & 1));
    for (int i = 0; i < 64; i++) msg[288 + i] = node_le[63 - i];
    for (int i = 352; i < 512; i++) msg[i] = cuzk_bool_const(0);
    for (int k = 0; k < CUZK_FC_TOTAL_PARENTS; k++)
        memcpy(msg + 512 + 256 * k, *parents[k], 256 * sizeof *msg);
    return cuzk_sha256_fr32_gadget(b, msg, LABEL_BITS);
}

int cuzk_fc_porep(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                  const struct cuzk_fc_porep_vanilla *v) {
    const int values = cuzk_builder_has_values(b);
    if (p->kind != CUZK_FC_POREP || (values && !v)) return CUZK_EINVAL;
    const unsigned L = p->layers;
    struct cuzk_merkle_shape td = {CUZK_MERKLE_SHA256, 2, p->tree_d_levels, 0, 0}, tr;
    cuzk_fc_tree_r_shape(p, &tr);
    const size_t nsib = cuzk_merkle_shape_siblings(&tr);
    struct cuzk_bool *msg = malloc(LABEL_BITS * sizeof *msg);
    struct cuzk_num *cols = malloc((size_t)POREP_PARENTS * L * sizeof *cols);
    struct cuzk_num *labels = malloc(L * sizeof *labels);
    struct cuzk_bool(*pbits)[256] = malloc(POREP_PARENTS * sizeof *pbits);
    if (!msg || !cols || !labels || !pbits) {
        set_err(b, CUZK_ENOMEM);
        goto out;
    }

    /* replica_id: public, and its bits shared by every label */
    struct cuzk_num replica_id = alloc_v(b, values, values ? &v->replica_id : NULL);
    cuzk_num_inputize(b, &replica_id);
    struct cuzk_bool replica_bits[256];
    cuzk_sha256_num_bits(b, &replica_id, replica_bits);
    struct cuzk_num comm_d = alloc_v(b, values, values ? &v->comm_d : NULL);
    cuzk_num_inputize(b, &comm_d);
    struct cuzk_num comm_r = alloc_v(b, values, values ? &v->comm_r : NULL);
    cuzk_num_inputize(b, &comm_r);
    struct cuzk_num comm_r_last = alloc_v(b, values, values ? &v->comm_r_last : NULL);
    struct cuzk_num comm_c = alloc_v(b, values, values ? &v->comm_c : NULL);
    {
        struct cuzk_num in[2] = {comm_c, comm_r_last};
        struct cuzk_num h = poseidon_merkle(b, in, 2);
        cuzk_num_enforce_equal(b, &comm_r, &h);
    }

    for (unsigned j = 0; j < p->challenges && cuzk_builder_error(b) == CUZK_OK; j++) {
        const struct cuzk_fc_porep_challenge *ch = values ? &v->challenges[j] : NULL;
        /* the data leaf in tree D */
        struct cuzk_num data_leaf = alloc_v(b, values, values ? &ch->data_leaf : NULL);
        cuzk_merkle_por(b, &td, &data_leaf, values ? ch->tree_d_path : NULL,
                        values ? ch->challenge : 0, &comm_d);
        /* the 14 parent columns: hashed and proven in tree C */
        for (unsigned q = 0; q < POREP_PARENTS; q++) {
            struct cuzk_num *col = cols + (size_t)q * L;
            for (unsigned l = 0; l < L; l++)
                col[l] = alloc_v(b, values, values ? &ch->parent_columns[(size_t)q * L + l] : NULL);
            struct cuzk_num h = poseidon_merkle(b, col, (int)L);
            cuzk_merkle_por(b, &tr, &h, values ? ch->parent_paths + q * nsib : NULL,
                            values ? ch->parents[q] : 0, &comm_c);
        }
        /* the challenge as a public u64 */
        struct cuzk_bool node[64];
        uint64_t c = values ? ch->challenge : 0;
        for (int i = 0; i < 64; i++) node[i] = cuzk_bool_alloc(b, (int)((c >> i) & 1));
        cuzk_num_pack_into_inputs(b, node, 64);
        /* re-derive the challenged node's labels */
        for (unsigned layer = 1; layer <= L; layer++) {
            unsigned np = 0;
            for (unsigned q = 0; q < CUZK_FC_DRG_PARENTS; q++, np++)
                cuzk_sha256_num_bits(b, &cols[(size_t)q * L + layer - 1], pbits[np]);
            if (layer > 1)
                for (unsigned q = CUZK_FC_DRG_PARENTS; q < POREP_PARENTS; q++, np++)
                    cuzk_sha256_num_bits(b, &cols[(size_t)q * L + layer - 2], pbits[np]);
            struct cuzk_bool(*exp[CUZK_FC_TOTAL_PARENTS])[256];
            for (unsigned k = 0; k < CUZK_FC_TOTAL_PARENTS; k++)
                exp[k] =
                    &pbits[layer > 1 ? k % POREP_PARENTS : (k < 36 ? k % CUZK_FC_DRG_PARENTS : 0)];
            labels[layer - 1] = create_label(b, msg, replica_bits, layer, node, exp);
        }
        /* encoding: replica node = label of the last layer + data */
        struct cuzk_num encoded = cuzk_num_add(b, &labels[L - 1], &data_leaf);
        cuzk_merkle_por(b, &tr, &encoded, values ? ch->tree_r_path : NULL,
                        values ? ch->challenge : 0, &comm_r_last);
        /* the challenged column */
        struct cuzk_num h = poseidon_merkle(b, labels, (int)L);
        cuzk_merkle_por(b, &tr, &h, values ? ch->tree_c_path : NULL, values ? ch->challenge : 0,
                        &comm_c);
    }
out:
    free(msg);
    free(cols);
    free(labels);
    free(pbits);
    return cuzk_builder_error(b);
}

/* ---- SnapDeals ----------------------------------------------------------------------------- */

/* get_challenge_high_bits: the h high bits of c_bits for the h selected by h_select_bits. */
static struct cuzk_num challenge_high(struct cuzk_builder *b, const struct cuzk_bool *c_bits,
                                      unsigned bit_len, const struct cuzk_bool *h_select,
                                      const unsigned *hs) {
    struct cuzk_num or_zero[CUZK_FC_H_COUNT];
    cuzk_fr sum;
    cuzk_fr_set_zero(&sum);
    for (int k = 0; k < CUZK_FC_H_COUNT; k++) {
        struct cuzk_num c_high = cuzk_num_pack_bits(b, c_bits + bit_len - hs[k], hs[k]);
        cuzk_fr z;
        cuzk_fr_set_zero(&z);
        or_zero[k] = cuzk_num_alloc(b, h_select[k].value ? &c_high.value : &z);
        cuzk_fr_add(&sum, &sum, &or_zero[k].value);
        /* c_high * h_select_bit = c_high_or_zero */
        if (cuzk_builder_keeps_terms(b)) {
            struct cuzk_lc la, lb, lc;
            cuzk_lc_init(&la, b);
            cuzk_lc_init(&lb, b);
            cuzk_lc_init(&lc, b);
            cuzk_lc_add(&la, NULL, c_high.var);
            cuzk_lc_add(&lb, NULL, h_select[k].var);
            cuzk_lc_add(&lc, NULL, or_zero[k].var);
            cuzk_builder_enforce(b, &la, &lb, &lc);
        } else {
            cuzk_builder_enforce(b, NULL, NULL, NULL);
        }
    }
    struct cuzk_num sel = cuzk_num_alloc(b, &sum);
    if (cuzk_builder_keeps_terms(b)) {
        struct cuzk_lc la, lb, lc;
        cuzk_lc_init(&la, b);
        cuzk_lc_init(&lb, b);
        cuzk_lc_init(&lc, b);
        for (int k = 0; k < CUZK_FC_H_COUNT; k++) cuzk_lc_add(&la, NULL, or_zero[k].var);
        cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
        cuzk_lc_add(&lc, NULL, sel.var);
        cuzk_builder_enforce(b, &la, &lb, &lc);
        cuzk_lc_free(&la);
    } else {
        cuzk_builder_enforce(b, NULL, NULL, NULL);
    }
    return sel;
}

int cuzk_fc_snap(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                 const struct cuzk_fc_snap_vanilla *v) {
    const int values = cuzk_builder_has_values(b);
    if (p->kind != CUZK_FC_SNAP || (values && !v)) return CUZK_EINVAL;
    const unsigned D = p->tree_d_levels, P = p->partition_bits;
    const unsigned A = p->apex_leaves, alog = log2_of(A), c = p->challenges;
    const unsigned bpc = D - P;                         /* random bits per challenge */
    const unsigned per_digest = CUZK_FR_CAPACITY / bpc; /* challenges per digest */
    const unsigned digests = (c + per_digest - 1) / per_digest;
    const unsigned below_apex = D - P - alog;
    unsigned hs[CUZK_FC_H_COUNT];
    for (int k = 0; k < CUZK_FC_H_COUNT; k++) hs[k] = D >= 12 ? 7 + (unsigned)k : 1;
    struct cuzk_merkle_shape tr, apex_up = {CUZK_MERKLE_SHA256, 2, P, 0, 0},
                                 to_apex = {CUZK_MERKLE_SHA256, 2, below_apex, 0, 0};
    cuzk_fc_tree_r_shape(p, &tr);
    const unsigned nsib = cuzk_merkle_shape_siblings(&tr);

    struct cuzk_num *apex = malloc((size_t)(2 * A) * sizeof *apex);
    struct cuzk_bool *gen = malloc((size_t)digests * per_digest * bpc * sizeof *gen);
    struct cuzk_bool *cbits = malloc(D * sizeof *cbits);
    struct cuzk_num *sibs = malloc((size_t)(nsib + D) * sizeof *sibs);
    struct cuzk_bool digest_bits[CUZK_FR_NUM_BITS];
    if (!apex || !gen || !cbits || !sibs) {
        set_err(b, CUZK_ENOMEM);
        goto out;
    }

    /* k_and_h_select: public, split into P partition bits and 6 h_select bits */
    cuzk_fr khs;
    cuzk_fr_from_u64(&khs, values ? (uint64_t)v->k | ((uint64_t)1 << v->h_index) << P : 0);
    struct cuzk_num k_and_h = cuzk_num_alloc(b, &khs);
    cuzk_num_inputize(b, &k_and_h);
    struct cuzk_bool kh_bits[8 + CUZK_FC_H_COUNT];
    cuzk_num_decompose(b, &k_and_h, P + CUZK_FC_H_COUNT, kh_bits);
    const struct cuzk_bool *part_bits = kh_bits, *h_select = kh_bits + P;
    struct cuzk_num partition = cuzk_num_pack_bits(b, part_bits, P);

    struct cuzk_num comm_r_old = alloc_v(b, values, values ? &v->comm_r_old : NULL);
    cuzk_num_inputize(b, &comm_r_old);
    struct cuzk_num comm_d_new = alloc_v(b, values, values ? &v->comm_d_new : NULL);
    cuzk_num_inputize(b, &comm_d_new);
    struct cuzk_num comm_r_new = alloc_v(b, values, values ? &v->comm_r_new : NULL);
    cuzk_num_inputize(b, &comm_r_new);
    struct cuzk_num phi = poseidon_gen(b, &comm_d_new, &comm_r_old);

    struct cuzk_num comm_c = alloc_v(b, values, values ? &v->comm_c : NULL);
    struct cuzk_num root_r_old = alloc_v(b, values, values ? &v->root_r_old : NULL);
    struct cuzk_num root_r_new = alloc_v(b, values, values ? &v->root_r_new : NULL);
    for (unsigned i = 0; i < A; i++)
        apex[i] = alloc_v(b, values, values ? &v->apex_leaves[i] : NULL);
    struct cuzk_num part_path[8];
    for (unsigned i = 0; i < P; i++)
        part_path[i] = alloc_v(b, values, values ? &v->partition_path[i] : NULL);

    /* comm_r_old / comm_r_new = H(comm_c || root_r) */
    {
        struct cuzk_num in[2] = {comm_c, root_r_old};
        struct cuzk_num calc = poseidon_merkle(b, in, 2);
        cuzk_num_enforce_equal(b, &calc, &comm_r_old);
        in[1] = root_r_new;
        calc = poseidon_merkle(b, in, 2);
        cuzk_num_enforce_equal(b, &calc, &comm_r_new);
    }

    /* apex_por: rebuild this partition's apex tree, prove its root under comm_d_new */
    {
        struct cuzk_num *row = apex, *next = apex + A;
        for (unsigned n = A; n > 1; n /= 2) {
            for (unsigned i = 0; i < n / 2; i++)
                next[i] = cuzk_sha256_node_gadget(b, &row[2 * i], &row[2 * i + 1]);
            row = next;
            next = row + n / 2;
        }
        struct cuzk_num apex_root = row[0];
        cuzk_merkle_por_no_input(b, &apex_up, &apex_root, part_bits, part_path, &comm_d_new);
    }

    /* gen_challenge_bits: digest_j = H(comm_r_new || k * digests + j), split into bits */
    for (unsigned j = 0; j < digests; j++) {
        cuzk_fr idx, t;
        cuzk_fr_from_u64(&t, digests);
        cuzk_fr_mul(&idx, &partition.value, &t);
        cuzk_fr_from_u64(&t, j);
        cuzk_fr_add(&idx, &idx, &t);
        struct cuzk_num digest_index = cuzk_num_alloc(b, &idx);
        if (cuzk_builder_keeps_terms(b)) {
            struct cuzk_lc la, lb, lc;
            cuzk_fr fd, fj;
            cuzk_fr_from_u64(&fd, digests);
            cuzk_fr_from_u64(&fj, j);
            cuzk_lc_init(&la, b);
            cuzk_lc_init(&lb, b);
            cuzk_lc_init(&lc, b);
            cuzk_lc_add(&la, &fd, partition.var);
            cuzk_lc_add(&la, &fj, CUZK_VAR_ONE); /* kept even when j = 0, as upstream */
            cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
            cuzk_lc_add(&lc, NULL, digest_index.var);
            cuzk_builder_enforce(b, &la, &lb, &lc);
        } else {
            cuzk_builder_enforce(b, NULL, NULL, NULL);
        }
        struct cuzk_num digest = poseidon_gen(b, &comm_r_new, &digest_index);
        cuzk_num_decompose(b, &digest, CUZK_FR_NUM_BITS, digest_bits);
        memcpy(gen + (size_t)j * per_digest * bpc, digest_bits,
               (size_t)per_digest * bpc * sizeof *gen);
    }

    for (unsigned ci = 0; ci < c && cuzk_builder_error(b) == CUZK_OK; ci++) {
        const struct cuzk_fc_snap_challenge *ch = values ? &v->challenges[ci] : NULL;
        memcpy(cbits, gen + (size_t)ci * bpc, bpc * sizeof *cbits);
        memcpy(cbits + bpc, part_bits, P * sizeof *cbits);
        struct cuzk_num c_high = challenge_high(b, cbits, D, h_select, hs);
        struct cuzk_num rho = poseidon_gen(b, &phi, &c_high);

        struct cuzk_num leaf_r_old = alloc_v(b, values, values ? &ch->leaf_r_old : NULL);
        struct cuzk_num leaf_d_new = alloc_v(b, values, values ? &ch->leaf_d_new : NULL);
        /* label_r_new = label_r_old + label_d_new * rho */
        struct cuzk_num d_rho = cuzk_num_mul(b, &leaf_d_new, &rho);
        struct cuzk_num leaf_r_new;
        {
            cuzk_fr s;
            cuzk_fr_add(&s, &leaf_r_old.value, &d_rho.value);
            leaf_r_new = cuzk_num_alloc(b, &s);
            if (cuzk_builder_keeps_terms(b)) {
                struct cuzk_lc la, lb, lc;
                cuzk_lc_init(&la, b);
                cuzk_lc_init(&lb, b);
                cuzk_lc_init(&lc, b);
                cuzk_lc_add(&la, NULL, leaf_r_old.var);
                cuzk_lc_add(&la, NULL, d_rho.var);
                cuzk_lc_add(&lb, NULL, CUZK_VAR_ONE);
                cuzk_lc_add(&lc, NULL, leaf_r_new.var);
                cuzk_builder_enforce(b, &la, &lb, &lc);
            } else {
                cuzk_builder_enforce(b, NULL, NULL, NULL);
            }
        }
        for (unsigned i = 0; i < nsib; i++)
            sibs[i] = alloc_v(b, values, values ? &ch->path_r_old[i] : NULL);
        cuzk_merkle_por_no_input(b, &tr, &leaf_r_old, cbits, sibs, &root_r_old);
        for (unsigned i = 0; i < nsib; i++)
            sibs[i] = alloc_v(b, values, values ? &ch->path_r_new[i] : NULL);
        cuzk_merkle_por_no_input(b, &tr, &leaf_r_new, cbits, sibs, &root_r_new);
        struct cuzk_num apex_leaf = cuzk_select(b, apex, A, cbits + below_apex, alog);
        for (unsigned i = 0; i < below_apex; i++)
            sibs[i] = alloc_v(b, values, values ? &ch->path_d_to_apex[i] : NULL);
        cuzk_merkle_por_no_input(b, &to_apex, &leaf_d_new, cbits, sibs, &apex_leaf);
    }
out:
    free(apex);
    free(gen);
    free(cbits);
    free(sibs);
    return cuzk_builder_error(b);
}

/* ---- PoSt ---------------------------------------------------------------------------------- */

int cuzk_fc_post(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                 const struct cuzk_fc_post_vanilla *v) {
    const int values = cuzk_builder_has_values(b);
    if ((p->kind != CUZK_FC_WPOST && p->kind != CUZK_FC_WINNING) || (values && !v))
        return CUZK_EINVAL;
    const unsigned k = p->challenges;
    struct cuzk_merkle_shape tr;
    cuzk_fc_tree_r_shape(p, &tr);
    const size_t nsib = cuzk_merkle_shape_siblings(&tr);
    for (unsigned s = 0; s < p->sectors && cuzk_builder_error(b) == CUZK_OK; s++) {
        const struct cuzk_fc_post_sector *sec = values ? &v->sectors[s] : NULL;
        struct cuzk_num comm_r_last = alloc_v(b, values, values ? &sec->comm_r_last : NULL);
        struct cuzk_num comm_c = alloc_v(b, values, values ? &sec->comm_c : NULL);
        struct cuzk_num comm_r = alloc_v(b, values, values ? &sec->comm_r : NULL);
        cuzk_num_inputize(b, &comm_r);
        struct cuzk_num in[2] = {comm_c, comm_r_last};
        struct cuzk_num h = poseidon_merkle(b, in, 2);
        cuzk_num_enforce_equal(b, &comm_r, &h);
        for (unsigned i = 0; i < k; i++) {
            struct cuzk_num leaf = alloc_v(b, values, values ? &sec->leaves[i] : NULL);
            cuzk_merkle_por(b, &tr, &leaf, values ? sec->paths + i * nsib : NULL,
                            values ? sec->indices[i] : 0, &comm_r_last);
        }
    }
    return cuzk_builder_error(b);
}

/* ---- dispatch ------------------------------------------------------------------------------ */

int cuzk_fc_synthesize(struct cuzk_builder *b, const struct cuzk_fc_profile *p, const void *v) {
    switch (p->kind) {
    case CUZK_FC_POREP: return cuzk_fc_porep(b, p, v);
    case CUZK_FC_SNAP: return cuzk_fc_snap(b, p, v);
    case CUZK_FC_WPOST:
    case CUZK_FC_WINNING: return cuzk_fc_post(b, p, v);
    }
    return CUZK_EINVAL;
}

int cuzk_fc_count(const struct cuzk_fc_profile *p, struct cuzk_builder_counts *out) {
    struct cuzk_builder b;
    int rc = cuzk_builder_init(&b, CUZK_BUILDER_COUNT, 0);
    if (rc == CUZK_OK) rc = cuzk_fc_synthesize(&b, p, NULL);
    if (rc == CUZK_OK) *out = *cuzk_builder_get_counts(&b);
    cuzk_builder_free(&b);
    return rc;
}

void cuzk_fc_label_native(cuzk_fr *out, const cuzk_fr *replica_id, uint32_t layer, uint64_t node,
                          const cuzk_fr *parents) {
    uint8_t msg[LABEL_BITS / 8], h[32];
    memset(msg, 0, sizeof msg);
    cuzk_fr_to_bytes_le(msg, replica_id);
    for (int i = 0; i < 4; i++) msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    for (int k = 0; k < CUZK_FC_TOTAL_PARENTS; k++)
        cuzk_fr_to_bytes_le(msg + 64 + 32 * k, &parents[k]);
    cuzk_sha256_fr32(h, msg, sizeof msg);
    cuzk_fr_from_bytes_le(out, h);
}
