#include "circuits/merkle.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/pick.h"
#include "circuits/poseidon.h"
#include "circuits/poseidon_gadget.h"
#include "circuits/sha256.h"
#include "cuzk/error.h"

#define MERKLE_MAX_ARITY 8

static unsigned log2u(unsigned a) { return a == 8 ? 3 : a == 4 ? 2 : 1; }

int cuzk_merkle_shape_ok(enum cuzk_merkle_hash hash, unsigned arity) {
    if (hash == CUZK_MERKLE_SHA256) return arity == 2;
    if (hash == CUZK_MERKLE_POSEIDON) return arity == 2 || arity == 4 || arity == 8;
    return 0;
}

unsigned cuzk_merkle_shape_depth(const struct cuzk_merkle_shape *s) {
    return s->levels + (s->sub != 0) + (s->top != 0);
}

unsigned cuzk_merkle_shape_arity(const struct cuzk_merkle_shape *s, unsigned l) {
    if (l < s->levels) return s->arity;
    if (l == s->levels && s->sub) return s->sub;
    return s->top;
}

unsigned cuzk_merkle_shape_bits(const struct cuzk_merkle_shape *s) {
    unsigned n = 0;
    for (unsigned l = 0, d = cuzk_merkle_shape_depth(s); l < d; l++)
        n += log2u(cuzk_merkle_shape_arity(s, l));
    return n;
}

unsigned cuzk_merkle_shape_siblings(const struct cuzk_merkle_shape *s) {
    unsigned n = 0;
    for (unsigned l = 0, d = cuzk_merkle_shape_depth(s); l < d; l++)
        n += cuzk_merkle_shape_arity(s, l) - 1;
    return n;
}

int cuzk_merkle_shape_valid(const struct cuzk_merkle_shape *s) {
    if (s->levels > 64 || !cuzk_merkle_shape_ok(s->hash, s->arity)) return 0;
    if (s->sub && !cuzk_merkle_shape_ok(s->hash, s->sub)) return 0;
    if (s->top && !cuzk_merkle_shape_ok(s->hash, s->top)) return 0;
    return cuzk_merkle_shape_bits(s) <= 64;
}

static void fail(struct cuzk_builder *b, int err) {
    if (b->err == CUZK_OK) b->err = err;
}

struct cuzk_num cuzk_merkle_level(struct cuzk_builder *b, enum cuzk_merkle_hash hash,
                                  unsigned arity, const struct cuzk_num *cur,
                                  const struct cuzk_bool *bits, const struct cuzk_num *sibs) {
    struct cuzk_num kids[MERKLE_MAX_ARITY];
    if (!cuzk_merkle_shape_ok(hash, arity)) {
        fail(b, CUZK_EINVAL);
        return *cur;
    }
    if (arity == 2)
        cuzk_insert_2(b, cur, bits, sibs, kids);
    else if (arity == 4)
        cuzk_insert_4(b, cur, bits, sibs, kids);
    else
        cuzk_insert_8(b, cur, bits, sibs, kids);
    if (hash == CUZK_MERKLE_SHA256) return cuzk_sha256_node_gadget(b, &kids[0], &kids[1]);
    cuzk_var in[MERKLE_MAX_ARITY];
    for (unsigned i = 0; i < arity; i++) in[i] = kids[i].var;
    struct cuzk_num r;
    if (cuzk_poseidon_gadget_hash_merkle(b, arity, in, &r.var) != CUZK_OK) fail(b, CUZK_EINVAL);
    cuzk_builder_value(b, r.var, &r.value);
    return r;
}

void cuzk_merkle_por(struct cuzk_builder *b, const struct cuzk_merkle_shape *s,
                     const struct cuzk_num *leaf, const cuzk_fr *siblings, uint64_t index,
                     const struct cuzk_num *root) {
    if (!cuzk_merkle_shape_valid(s)) {
        fail(b, CUZK_EINVAL);
        return;
    }
    struct cuzk_bool bits[64];
    struct cuzk_num sibs[MERKLE_MAX_ARITY - 1], cur = *leaf;
    int values = cuzk_builder_has_values(b) && siblings;
    unsigned pos = 0;
    size_t sib = 0;
    for (unsigned l = 0, depth = cuzk_merkle_shape_depth(s); l < depth; l++) {
        const unsigned arity = cuzk_merkle_shape_arity(s, l), k = log2u(arity);
        for (unsigned i = 0; i < k; i++, pos++)
            bits[pos] = cuzk_bool_alloc(b, (int)((index >> pos) & 1));
        for (unsigned j = 0; j < arity - 1; j++, sib++)
            sibs[j] = cuzk_num_alloc(b, values ? &siblings[sib] : NULL);
        cur = cuzk_merkle_level(b, s->hash, arity, &cur, bits + pos - k, sibs);
    }
    cuzk_num_pack_into_inputs(b, bits, pos);
    cuzk_num_enforce_equal(b, &cur, root);
}

void cuzk_merkle_por_no_input(struct cuzk_builder *b, const struct cuzk_merkle_shape *s,
                              const struct cuzk_num *leaf, const struct cuzk_bool *bits,
                              const struct cuzk_num *sibs, const struct cuzk_num *root) {
    if (!cuzk_merkle_shape_valid(s)) {
        fail(b, CUZK_EINVAL);
        return;
    }
    struct cuzk_num cur = *leaf;
    for (unsigned l = 0, depth = cuzk_merkle_shape_depth(s); l < depth; l++) {
        const unsigned arity = cuzk_merkle_shape_arity(s, l);
        cur = cuzk_merkle_level(b, s->hash, arity, &cur, bits, sibs);
        bits += log2u(arity);
        sibs += arity - 1;
    }
    cuzk_num_enforce_equal(b, &cur, root);
}

void cuzk_merkle_root_native(const struct cuzk_merkle_shape *s, const cuzk_fr *leaf,
                             const cuzk_fr *siblings, uint64_t index, cuzk_fr *root) {
    cuzk_fr cur = *leaf, kids[MERKLE_MAX_ARITY];
    if (!cuzk_merkle_shape_valid(s)) {
        *root = cur;
        return;
    }
    for (unsigned l = 0, depth = cuzk_merkle_shape_depth(s); l < depth; l++) {
        const unsigned arity = cuzk_merkle_shape_arity(s, l);
        const unsigned pos = (unsigned)index & (arity - 1);
        for (unsigned i = 0, j = 0; i < arity; i++) kids[i] = i == pos ? cur : siblings[j++];
        if (s->hash == CUZK_MERKLE_SHA256)
            cuzk_sha256_node_fr(&cur, &kids[0], &kids[1]);
        else
            cuzk_poseidon_hash_merkle((int)arity, kids, &cur);
        index >>= log2u(arity);
        siblings += arity - 1;
    }
    *root = cur;
}
