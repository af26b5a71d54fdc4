/* Vanilla proofs, the derivations (filecoin/vanilla.h): what is computed from the values
 * alone, without synthesis: a partition's public inputs, and the native twins of the
 * circuits' derivations (the node count, comm_r, PoRep's labels, SnapDeals' h, phi, rho and
 * challenges) that the checks and the generator share. */
#include "filecoin/vanilla_impl.h"

#include "circuits/num.h"
#include "circuits/poseidon.h"
#include "cuzk/error.h"

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

uint64_t cuzk_vanilla_nodes(const struct cuzk_fc_profile *p) {
    unsigned bits = cuzk_fc_tree_r_bits(p);
    if (p->kind == CUZK_FC_POREP && p->tree_d_levels < bits) bits = p->tree_d_levels;
    return bits >= 64 ? UINT64_MAX : (uint64_t)1 << bits;
}

void cuzk_vanilla_comm_r(const cuzk_fr *comm_c, const cuzk_fr *root, cuzk_fr *comm_r) {
    cuzk_fr in[2] = {*comm_c, *root};
    cuzk_poseidon_hash_merkle(2, in, comm_r);
}

void cuzk_vanilla_porep_label_parents(const struct cuzk_fc_profile *p, const cuzk_fr *cols,
                                      unsigned layer, cuzk_fr *exp) {
    const unsigned L = p->layers;
    for (unsigned k = 0; k < CUZK_FC_TOTAL_PARENTS; k++) {
        if (layer == 1) {
            unsigned q = k < 36 ? k % CUZK_FC_DRG_PARENTS : 0;
            exp[k] = cols[q * L];
        } else {
            unsigned q = k % POREP_PARENTS;
            exp[k] = cols[q * L + (q < CUZK_FC_DRG_PARENTS ? layer - 1 : layer - 2)];
        }
    }
}

void cuzk_vanilla_porep_labels(const struct cuzk_fc_profile *p, const cuzk_fr *replica_id,
                               uint64_t node, const cuzk_fr *cols, cuzk_fr *labels) {
    cuzk_fr exp[CUZK_FC_TOTAL_PARENTS];
    for (unsigned layer = 1; layer <= p->layers; layer++) {
        cuzk_vanilla_porep_label_parents(p, cols, layer, exp);
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
