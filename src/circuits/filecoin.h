/* The four Filecoin proof circuits, rebuilt gadget for gadget so that their constraint systems
 * have Filecoin's exact shape (rows, inputs, aux, boolean aux, non-zeros), parameterised by a
 * size profile so that the real 32 GiB circuits and scaled-down ones come from the same code:
 *
 *   porep-c<C>    StackedDRG PoRep (C2), one partition with C challenges (real: 18)
 *   snap-c<c>     SnapDeals EmptySectorUpdate, one partition with c challenges (real: 86)
 *   wpost-s<S>    WindowPoSt, one partition of S sectors x 10 challenges (real: 2,349)
 *   winning-s<S>  WinningPoSt, S sectors x 1 challenge (real: 66)
 *
 * Optional knobs follow as "-<letter><number>" (defaults are the 32 GiB values): l = PoRep
 * layers (11; 2, 4, 8 or 11: the column hash is Poseidon of that arity), d = binary tree-D
 * levels (30), r = 8-ary tree-C/R levels (10), m = arity of a tree-C/R sub level above them (0 =
 * none; 2 or 4), t = arity of a tree-C/R top level above that (0 = none; 2), a = SnapDeals apex
 * leaves per partition (128, a power of two), p = SnapDeals partition bits (4), k = PoSt
 * challenges per sector (10 window, 1 winning). Filecoin's tree shapes: 8-8-0 is r levels of 8
 * (an 8-ary sub level is one more r), 8-8-2 adds t2, 8-4-2 is m4-t2. SnapDeals needs
 * 3 r + log2(m) + log2(t) = d and d > p + log2(a). Examples: "porep-c18",
 * "porep-c1-l2-d3-r1", "snap-c86", "snap-c1-a8-p1-d9-r3", "wpost-s2349", "winning-s66"; the
 * 64 GiB circuits are "porep-c18-d31-t2", "snap-c86-d31-t2", "wpost-s2300-t2" and
 * "winning-s66-t2".
 * cuzk_fc_profile_parse writes the canonical name (only the knobs that differ from the defaults)
 * into profile->name, so caches can key on it.
 *
 * Synthesis. One function per kind runs in every builder mode. It takes the values the circuit
 * consumes (the "vanilla proof" data, struct cuzk_fc_*_vanilla below), or NULL in COUNT mode or
 * to synthesise the bare shape; with values it produces the full witness (labels, hashes, bits
 * are computed in the circuit, as upstream). Public inputs are allocated in upstream's order,
 * so that the witness's input part is the verifier's public-input vector:
 *   porep:   replica_id, comm_d, comm_r, then per challenge: tree-D path index, the 6 DRG and
 *            8 expander parents' tree-C path indices, the challenge, its tree-R and tree-C
 *            path indices (3 + 18 C inputs);
 *   snap:    k_and_h_select, comm_r_old, comm_d_new, comm_r_new (4);
 *   post:    per sector comm_r, then per challenge its tree-R path index (S (1 + k)).
 * Thread-safety: as the builder; profile functions are pure. */
#ifndef CUZK_CIRCUITS_FILECOIN_H
#define CUZK_CIRCUITS_FILECOIN_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/builder.h"
#include "circuits/merkle.h"

enum cuzk_fc_kind {
    CUZK_FC_POREP = 0,
    CUZK_FC_SNAP = 1,
    CUZK_FC_WPOST = 2,
    CUZK_FC_WINNING = 3,
};

#define CUZK_FC_DRG_PARENTS 6    /* BASE_DEGREE */
#define CUZK_FC_EXP_PARENTS 8    /* EXP_DEGREE */
#define CUZK_FC_TOTAL_PARENTS 37 /* parent labels hashed per label */
#define CUZK_FC_H_COUNT 6        /* SnapDeals h values (h_select bits) */

struct cuzk_fc_profile {
    enum cuzk_fc_kind kind;
    unsigned challenges;     /* PoRep C, Snap c (per partition); PoSt k (per sector) */
    unsigned sectors;        /* PoSt S; 1 otherwise */
    unsigned layers;         /* PoRep L */
    unsigned tree_d_levels;  /* binary SHA-256 tree D levels (PoRep, Snap) */
    unsigned tree_r_levels;  /* 8-ary Poseidon tree C/R levels */
    unsigned sub_arity;      /* tree C/R sub level above them (0 = none, 2, 4) */
    unsigned top_arity;      /* tree C/R top level above the sub level (0 = none, 2) */
    unsigned apex_leaves;    /* Snap A */
    unsigned partition_bits; /* Snap p */
    char name[64];           /* canonical name */
};

/* Parses a profile name (grammar above). Returns CUZK_OK or CUZK_EINVAL with a message. */
int cuzk_fc_profile_parse(const char *name, struct cuzk_fc_profile *p, char *err, size_t errlen);
/* The profile of a kind at its real 32 GiB size. */
void cuzk_fc_profile_default(enum cuzk_fc_kind kind, struct cuzk_fc_profile *p);
/* The tree C/R path shape of p (Poseidon: r levels of 8, then the sub and top levels), its
 * index bits (3 r + log2(m) + log2(t)) and its siblings (7 r + (m - 1) + (t - 1)). */
void cuzk_fc_tree_r_shape(const struct cuzk_fc_profile *p, struct cuzk_merkle_shape *s);
unsigned cuzk_fc_tree_r_bits(const struct cuzk_fc_profile *p);
unsigned cuzk_fc_tree_r_siblings(const struct cuzk_fc_profile *p);
/* Checks a profile's consistency and writes its canonical name. Returns CUZK_OK or
 * CUZK_EINVAL with a message. */
int cuzk_fc_profile_check(struct cuzk_fc_profile *p, char *err, size_t errlen);

/* ---- the values each circuit consumes ------------------------------------------------------
 * Arrays are flat, in the order given, sized by the profile (L layers, D = tree_d_levels,
 * R = cuzk_fc_tree_r_siblings: the siblings of one tree C/R path, C challenges, S sectors,
 * k challenges per sector). A path holds its levels' siblings in order, level 0 (next to the
 * leaf) first: 7 per 8-ary level, then m - 1 for the sub level and t - 1 for the top level; a
 * SHA-256 path 1 per level. */

struct cuzk_fc_porep_challenge {
    uint64_t challenge;                                          /* the challenged node */
    uint64_t parents[CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS]; /* DRG then expander */
    cuzk_fr data_leaf;                                           /* tree-D leaf (unsealed data) */
    const cuzk_fr *tree_d_path;                                  /* D siblings */
    const cuzk_fr *parent_columns; /* 14 x L labels, parent by parent */
    const cuzk_fr *parent_paths;   /* 14 x R tree-C siblings, parent by parent */
    const cuzk_fr *tree_r_path;    /* R: the replica node in tree R (comm_r_last) */
    const cuzk_fr *tree_c_path;    /* R: the challenged column in tree C */
};

struct cuzk_fc_porep_vanilla {
    cuzk_fr replica_id, comm_d, comm_r, comm_c, comm_r_last;
    const struct cuzk_fc_porep_challenge *challenges; /* C */
};

struct cuzk_fc_snap_challenge {
    cuzk_fr leaf_r_old, leaf_d_new;
    const cuzk_fr *path_r_old;     /* R */
    const cuzk_fr *path_r_new;     /* R */
    const cuzk_fr *path_d_to_apex; /* D - p - log2(A) siblings (the tree-D path below the apex) */
};

struct cuzk_fc_snap_vanilla {
    unsigned k;       /* partition index, < 2^p */
    unsigned h_index; /* which h (0 .. 5): h_select = 1 << h_index */
    cuzk_fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
    const cuzk_fr *apex_leaves;    /* A */
    const cuzk_fr *partition_path; /* p siblings: the tree-D path above the apex root */
    const struct cuzk_fc_snap_challenge *challenges; /* c */
};

struct cuzk_fc_post_sector {
    cuzk_fr comm_r, comm_c, comm_r_last;
    const uint64_t *indices; /* k challenged leaves */
    const cuzk_fr *leaves;   /* k */
    const cuzk_fr *paths;    /* k x R */
};

struct cuzk_fc_post_vanilla {
    const struct cuzk_fc_post_sector *sectors; /* S */
};

/* ---- synthesis ----------------------------------------------------------------------------- */

/* Synthesises the circuit of p into b. v points to the vanilla struct of p's kind (porep, snap,
 * post for both PoSt kinds) or is NULL (no values). Returns CUZK_OK, CUZK_EINVAL (bad profile,
 * or values missing in a builder that computes values) or the builder's error. */
int cuzk_fc_synthesize(struct cuzk_builder *b, const struct cuzk_fc_profile *p, const void *v);

int cuzk_fc_porep(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                  const struct cuzk_fc_porep_vanilla *v);
int cuzk_fc_snap(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                 const struct cuzk_fc_snap_vanilla *v);
int cuzk_fc_post(struct cuzk_builder *b, const struct cuzk_fc_profile *p,
                 const struct cuzk_fc_post_vanilla *v);

/* Runs the circuit of p in a COUNT builder and returns its counts. Returns CUZK_OK or an error. */
int cuzk_fc_count(const struct cuzk_fc_profile *p, struct cuzk_builder_counts *out);

/* The native PoRep labelling function (StackedDRG create_label): the Fr32 SHA-256 of
 * replica_id || layer (u32 BE) || node (u64 BE) || 20 zero bytes || the 37 parent labels, read
 * little-endian. parents[0 .. 37) are the expanded parent labels. */
void cuzk_fc_label_native(cuzk_fr *out, const cuzk_fr *replica_id, uint32_t layer, uint64_t node,
                          const cuzk_fr *parents);

#endif
