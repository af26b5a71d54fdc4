/* Vanilla proofs: the values a Filecoin circuit consumes (circuits/filecoin.h), for every
 * partition of one job, in memory and as a versioned binary file.
 *
 * In memory, struct cuzk_vanilla holds a profile and n_parts partitions; each partition owns
 * one block with the arrays its cuzk_fc_*_vanilla struct points into, so it can be handed to
 * cuzk_fc_synthesize as is (cuzk_vanilla_values).
 *
 * File (docs/filecoin.md has the byte tables): all integers little-endian, field elements 32
 * bytes canonical little-endian (the Fr repr Filecoin uses). A file is
 *   header   magic "CUZKVANL", u32 version (1), u32 kind (enum cuzk_fc_kind), u32 partitions,
 *            u32 reserved (0), char profile[64] (canonical profile name, NUL-padded);
 *   then per partition: u64 byte length, then exactly that many bytes of values in the order
 *   of the kind's vanilla struct (PoRep: 5 commitments, then per challenge the challenge, 14
 *   parents, data leaf, tree-D path, 14 parent columns, 14 parent paths, tree-R path, tree-C
 *   path; Snap: k, h index, 6 commitments, apex leaves, partition path, then per challenge the
 *   two leaves and three paths; PoSt: per sector 3 commitments, then per challenge index, leaf,
 *   path). The length is fixed by the profile; it is there so that a reader can skip and check.
 * Several files may be concatenated (e.g. one per partition, as a client sends a list of
 * proofs): they must agree on kind and profile, and their partitions follow one another.
 *
 * Validation happens in two steps, both total (any bytes give CUZK_OK or an error with a
 * sentence, never a crash or an unbounded allocation):
 *   - cuzk_vanilla_parse: the layout (magic, version, kind, profile, counts, lengths, no
 *     trailing bytes), every field element canonical, every index inside its tree, Snap's k and
 *     h index in range. Cheap (linear in the bytes), done at submission;
 *   - cuzk_vanilla_check_part: everything the circuit would enforce, natively: every Merkle
 *     path reaches its root, the commitment relations (comm_r = H(comm_c, comm_r_last), ...),
 *     PoRep's labels re-derived from the parent columns, Snap's challenges re-derived from
 *     comm_r_new, plus the sector commitments equal to partition 0's (one sector per job). A
 *     partition that passes makes its circuit satisfied. Costs about one native hash per
 *     circuit hash gadget (milliseconds for PoRep, seconds for a real WindowPoSt partition).
 *
 * Errors: CUZK_EFORMAT (bad layout or inconsistent values), CUZK_ENONCANON (a field element
 * >= r), CUZK_EUNSUPPORTED (a newer version), CUZK_ENOMEM, and for files CUZK_EIO, plus
 * cuzk_file_read's CUZK_ENOTFOUND (no such file) and CUZK_EINVAL (a directory, a FIFO).
 * The bodies: vanilla_format.c (memory, file format), vanilla_derive.c (public inputs, native
 * derivations), vanilla_check.c (consistency); vanilla_impl.h says what they share.
 * Thread-safety: a parsed struct cuzk_vanilla is read-only; checks may run concurrently. */
#ifndef CUZK_FILECOIN_VANILLA_H
#define CUZK_FILECOIN_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/filecoin.h"

#define CUZK_VANILLA_MAGIC "CUZKVANL"
#define CUZK_VANILLA_VERSION 1
#define CUZK_VANILLA_HEADER_BYTES 88 /* 8 + 4 x 4 + 64 */
#define CUZK_VANILLA_MAX_PARTS 1024

struct cuzk_vanilla_part {
    union {
        struct cuzk_fc_porep_vanilla porep;
        struct cuzk_fc_snap_vanilla snap;
        struct cuzk_fc_post_vanilla post;
    } v;
    void *mem; /* the arrays v points into */
};

struct cuzk_vanilla {
    struct cuzk_fc_profile profile;
    uint32_t n_parts;
    struct cuzk_vanilla_part *parts;
};

/* The vanilla struct of partition `part`, as cuzk_fc_synthesize takes it. */
static inline const void *cuzk_vanilla_values(const struct cuzk_vanilla *v, uint32_t part) {
    return &v->parts[part].v;
}

/* An empty set of n_parts partitions of profile p, every array allocated and zeroed (for
 * generators). Returns CUZK_OK, CUZK_EINVAL (n_parts 0 or above CUZK_VANILLA_MAX_PARTS, or a
 * profile too large to hold), CUZK_ENOMEM. */
int cuzk_vanilla_alloc(struct cuzk_vanilla *v, const struct cuzk_fc_profile *p, uint32_t n_parts);
/* Frees every partition; safe on a zeroed struct. */
void cuzk_vanilla_free(struct cuzk_vanilla *v);

/* Bytes of one partition's values in the file (the length field), 0 if it does not fit 64
 * bits. */
uint64_t cuzk_vanilla_part_bytes(const struct cuzk_fc_profile *p);

/* ---- file format ----------------------------------------------------------------------- */

/* The file of v, malloc'd into *out (free() it). Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_vanilla_serialize(const struct cuzk_vanilla *v, uint8_t **out, size_t *len);
/* Parses (and structurally validates) one file or several concatenated ones. v is filled on
 * success and zeroed on error. */
int cuzk_vanilla_parse(struct cuzk_vanilla *v, const void *data, size_t len, char *err,
                       size_t errlen);
int cuzk_vanilla_write_file(const struct cuzk_vanilla *v, const char *path, char *err,
                            size_t errlen);
int cuzk_vanilla_read_file(struct cuzk_vanilla *v, const char *path, char *err, size_t errlen);

/* ---- consistency ----------------------------------------------------------------------- */

/* Checks partition `part` (see above). Returns CUZK_OK or CUZK_EFORMAT with a sentence naming
 * the partition, challenge or sector and what does not hold. */
int cuzk_vanilla_check_part(const struct cuzk_vanilla *v, uint32_t part, char *err, size_t errlen);
/* Every partition, in order. */
int cuzk_vanilla_check(const struct cuzk_vanilla *v, char *err, size_t errlen);

/* ---- public inputs ---------------------------------------------------------------------- */

/* The public inputs of one partition's circuit of profile p (ONE excluded): PoRep 3 + 18 C,
 * Snap 4, PoSt S (1 + k). What a verifier's vk expects as n_public. */
size_t cuzk_vanilla_public_count(const struct cuzk_fc_profile *p);
/* The public inputs that partition `part`'s circuit defines, computed from the vanilla values
 * alone (no synthesis), in the circuit's allocation order (circuits/filecoin.h):
 *   PoRep  replica_id, comm_d, comm_r, then per challenge its tree-D index (the challenge's
 *          low D bits), the 14 parents (DRG then expander), the challenge, its tree-R and
 *          tree-C indices (both the challenge);
 *   Snap   k | h_select << p (h_select = 1 << h_index), comm_r_old, comm_d_new, comm_r_new;
 *   PoSt   per sector comm_r, then its k challenged leaf indices.
 * These are exactly the witness's input part, so a verifier holding the vanilla file and the
 * key's vk checks a proof without the prover. The values are taken as they are (run
 * cuzk_vanilla_check_part to know that a circuit over them is satisfiable).
 * Writes *n = cuzk_vanilla_public_count(&v->profile) values to out[0 .. cap). Returns
 * CUZK_OK, CUZK_EINVAL (part >= v->n_parts) or CUZK_ERANGE (cap < the count; nothing
 * written). */
int cuzk_vanilla_public_inputs(const struct cuzk_vanilla *v, uint32_t part, cuzk_fr *out,
                               size_t cap, size_t *n);

/* ---- native twins of the circuits' derivations (shared with the generator) ------------- */

/* Node count of a PoRep / PoSt sector of profile p, as the challenges may address it: PoRep
 * min(2^d, 8^r), PoSt 8^r. Indices must be below it. */
uint64_t cuzk_vanilla_nodes(const struct cuzk_fc_profile *p);
/* PoRep: the L labels of node `node` from its 14 parents' columns (14 x L labels, DRG parents
 * first), layer by layer with the real labelling rule; labels[L]. */
void cuzk_vanilla_porep_labels(const struct cuzk_fc_profile *p, const cuzk_fr *replica_id,
                               uint64_t node, const cuzk_fr *parent_columns, cuzk_fr *labels);
/* PoRep: the 37 parent labels that layer `layer` (1 .. L) of a node hashes, from its 14
 * parents' columns: layer 1 the 6 DRG parents' first labels, repeated (6 x 6, then the first);
 * later layers the DRG parents' labels of that layer and the expander parents' of the layer
 * below, the 14 repeated (14, 14, then 9). What a C1's labeling proofs carry. exp[37]. */
void cuzk_vanilla_porep_label_parents(const struct cuzk_fc_profile *p,
                                      const cuzk_fr *parent_columns, unsigned layer, cuzk_fr *exp);
/* SnapDeals: the h of h_index, phi = H_gen(comm_d_new, comm_r_old), rho = H_gen(phi, c_high)
 * (Poseidon arity 2, Custom(1) tag), and partition k's challenges (c of them, each a tree-D
 * leaf index: the random bits from H_gen(comm_r_new, k * digests + j), then k on top). */
unsigned cuzk_vanilla_snap_h(const struct cuzk_fc_profile *p, unsigned h_index);
void cuzk_vanilla_snap_phi(const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old, cuzk_fr *phi);
void cuzk_vanilla_snap_rho(const cuzk_fr *phi, uint64_t c_high, cuzk_fr *rho);
void cuzk_vanilla_snap_challenges(const struct cuzk_fc_profile *p, const cuzk_fr *comm_r_new,
                                  unsigned k, uint64_t *out);
/* comm_r = Poseidon-2 Merkle hash of (comm_c, root). */
void cuzk_vanilla_comm_r(const cuzk_fr *comm_c, const cuzk_fr *root, cuzk_fr *comm_r);

#endif
