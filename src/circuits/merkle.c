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
    if (hash == CUZK_MERKLE_POSEIDON) return arity == 2 || arity == 8;
    return 0;
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

void cuzk_merkle_por(struct cuzk_builder *b, enum cuzk_merkle_hash hash, unsigned arity,
                     unsigned levels, const struct cuzk_num *leaf, const cuzk_fr *siblings,
                     uint64_t index, const struct cuzk_num *root) {
    const unsigned k = log2u(arity);
    if (!cuzk_merkle_shape_ok(hash, arity) || levels * k > 64) {
        fail(b, CUZK_EINVAL);
        return;
    }
    struct cuzk_bool bits[64];
    struct cuzk_num sibs[MERKLE_MAX_ARITY - 1], cur = *leaf;
    int values = cuzk_builder_has_values(b) && siblings;
    for (unsigned l = 0; l < levels; l++) {
        for (unsigned i = 0; i < k; i++) {
            unsigned pos = l * k + i;
            bits[pos] = cuzk_bool_alloc(b, (int)((index >> pos) & 1));
        }
        for (unsigned s = 0; s < arity - 1; s++)
            sibs[s] = cuzk_num_alloc(b, values ? &siblings[(size_t)l * (arity - 1) + s] : NULL);
        cur = cuzk_merkle_level(b, hash, arity, &cur, bits + l * k, sibs);
    }
    cuzk_num_pack_into_inputs(b, bits, (size_t)levels * k);
    cuzk_num_enforce_equal(b, &cur, root);
}

void cuzk_merkle_por_no_input(struct cuzk_builder *b, enum cuzk_merkle_hash hash, unsigned arity,
                              unsigned levels, const struct cuzk_num *leaf,
                              const struct cuzk_bool *bits, const struct cuzk_num *sibs,
                              const struct cuzk_num *root) {
    const unsigned k = log2u(arity);
    struct cuzk_num cur = *leaf;
    for (unsigned l = 0; l < levels; l++)
        cur = cuzk_merkle_level(b, hash, arity, &cur, bits + (size_t)l * k,
                                sibs + (size_t)l * (arity - 1));
    cuzk_num_enforce_equal(b, &cur, root);
}

void cuzk_merkle_root_native(enum cuzk_merkle_hash hash, unsigned arity, unsigned levels,
                             const cuzk_fr *leaf, const cuzk_fr *siblings, uint64_t index,
                             cuzk_fr *root) {
    const unsigned k = log2u(arity);
    cuzk_fr cur = *leaf, kids[MERKLE_MAX_ARITY];
    for (unsigned l = 0; l < levels; l++) {
        unsigned pos = (unsigned)(index >> (l * k)) & (arity - 1);
        const cuzk_fr *s = siblings + (size_t)l * (arity - 1);
        for (unsigned i = 0, j = 0; i < arity; i++) kids[i] = i == pos ? cur : s[j++];
        if (hash == CUZK_MERKLE_SHA256)
            cuzk_sha256_node_fr(&cur, &kids[0], &kids[1]);
        else
            cuzk_poseidon_hash_merkle((int)arity, kids, &cur);
    }
    *root = cur;
}
