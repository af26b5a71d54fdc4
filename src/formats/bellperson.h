/* bellperson's Groth16 files: the parameter file (.params: a proving key with its verifying key,
 * what Filecoin's paramfetch downloads) and the verifying-key file (.vk).
 *
 * Layout (all counts u32 big-endian; points uncompressed in the zcash/bellperson serialization
 * of ec/encode.h: G1 x | y, 96 bytes; G2 x.c1 | x.c0 | y.c1 | y.c0, 192 bytes; flag bits 0x80
 * clear, 0x40 only on the identity):
 *
 *   .vk:      alpha_g1 (G1) | beta_g1 (G1) | beta_g2 (G2) | gamma_g2 (G2) | delta_g1 (G1) |
 *             delta_g2 (G2) | n_ic u32 | n_ic G1 (ic)                        = 868 + 96 n_ic bytes
 *   .params:  the .vk bytes, then five vectors, each "n u32 | n points", in this order:
 *             h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2). Nothing follows b_g2.
 *
 * What the vectors hold (bellperson's generator): h[i] = tau^i t(tau) / delta for i < m - 1 (m
 * the evaluation domain, t(x) = x^m - 1); l the aux wires' (beta u + alpha v + w) / delta; a,
 * b_g1, b_g2 the QAP columns at tau for the wires in witness order (ONE, the public inputs, the
 * aux) with every identity point left out: the generator filters each of the three vectors
 * (`.filter(|e| !e.is_zero())`) before the writer writes them as they are, so a point belongs to
 * the j-th wire whose column is not empty, and the file does not say which wires those are (the
 * prover knows them from the constraint system's density). Bellperson's readers refuse the
 * identity anywhere in ic, h, l, a, b_g1 and b_g2 ("point at infinity"); they accept it in the
 * six verifying-key points, and so does this reader.
 *
 * Contract (reader): cuzk_bp_params_open maps the file read-only (never copied) and
 * cuzk_bp_params_from_mem wraps bytes in memory; both decode the verifying key and walk the five
 * counts, so that a successful open guarantees that every vector lies inside the file and that
 * the vectors end exactly at its end (bellperson ignores trailing bytes; cuzk refuses them: a
 * truncated or appended download should not look like a key). The query points are decoded
 * later, a vector at a time (cuzk_bp_params_load, on a pool). cuzk_bp_params_peek reads the
 * counts only, decoding nothing: what a caller picking a file by its shape needs. Every point
 * is checked canonical and on the curve, and in the r-order subgroup unless the caller passes
 * CUZK_CHECK_NO_SUBGROUP: bellperson's "unchecked" load, for speed only, for a file whose
 * integrity the operator vouches for (its digest checked against Filecoin's parameters.json);
 * the subgroup check of a 2^27-point vector costs minutes of CPU. Errors: CUZK_EIO (open, stat,
 * map), CUZK_EFORMAT (truncation, trailing bytes, an identity where bellperson refuses one),
 * CUZK_ENOMEM, and a point decoder's code (CUZK_EFLAGS, CUZK_ENONCANON, CUZK_ENOTONCURVE,
 * CUZK_ENOTINSUBGROUP), each with a sentence starting "bellperson: " that names the file (when
 * there is one), the field and the point, e.g. "bellperson: x.params: l point 7: point not on
 * the curve", "bellperson: x.params: truncated: b_g2 holds 10 points (1920 bytes) from offset
 * 5000, the file ends at 6000". Nothing here aborts on bad input.
 *
 * Contract (writer): cuzk_bp_vk_write and cuzk_bp_params_write emit exactly the layout above to
 * a stdio stream without seeking. They refuse (CUZK_EINVAL, before writing anything) an identity
 * in ic or a vector, since bellperson could not read the file back: the caller leaves the
 * identities out of a, b_g1 and b_g2 as bellperson's generator does (groth16/bpkey.h). A failed
 * write is CUZK_EIO.
 *
 * Thread-safety: an open params file is immutable; loads may run from several threads (each
 * with its own pool, or sharing one: a pool runs one job at a time). */
#ifndef CUZK_FORMATS_BELLPERSON_H
#define CUZK_FORMATS_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ec/encode.h"
#include "ec/g1.h"
#include "ec/g2.h"

struct cuzk_pool;

/* The six verifying-key points and ic's count: the fixed head of both files. */
#define CUZK_BP_VK_HEAD (3 * CUZK_G1_UNCOMPRESSED + 3 * CUZK_G2_UNCOMPRESSED + 4)

/* The vectors of a .params file, in file order. */
enum cuzk_bp_vector { CUZK_BP_H, CUZK_BP_L, CUZK_BP_A, CUZK_BP_B_G1, CUZK_BP_B_G2 };
#define CUZK_BP_VECTORS 5

/* "h", "l", "a", "b_g1", "b_g2"; "?" otherwise. */
const char *cuzk_bp_vector_name(enum cuzk_bp_vector v);

struct cuzk_bp_vk {
    cuzk_g1_affine alpha1, beta1, delta1;
    cuzk_g2_affine beta2, gamma2, delta2;
    uint32_t n_ic;
    cuzk_g1_affine *ic; /* n_ic points, owned (cuzk_bp_vk_free) */
};

/* The vk in data[0 .. size), which it must fill exactly. *vk is zeroed first; on failure it
 * holds nothing to free. */
int cuzk_bp_vk_parse(struct cuzk_bp_vk *vk, const void *data, size_t size,
                     enum cuzk_point_check check, char *err, size_t errlen);
/* The .vk file at path, mapped and parsed. */
int cuzk_bp_vk_read_file(struct cuzk_bp_vk *vk, const char *path, enum cuzk_point_check check,
                         char *err, size_t errlen);
void cuzk_bp_vk_free(struct cuzk_bp_vk *vk); /* zeroes *vk; a zeroed vk is a no-op */
/* Whether two verifying keys are the same key: NULL when every point and the ic count agree,
 * else the name of the first field that differs in file order ("alpha_g1", ..., "delta_g2",
 * "n_ic", "ic"). What tells a .vk of another setup from the .params's own vk. */
const char *cuzk_bp_vk_diff(const struct cuzk_bp_vk *a, const struct cuzk_bp_vk *b);
int cuzk_bp_vk_write(FILE *f, const struct cuzk_bp_vk *vk, char *err, size_t errlen);

struct cuzk_bp_params {
    const uint8_t *data; /* the whole file */
    size_t size;
    void *map; /* the mapping to release, or NULL */
    size_t map_size;
    const char *name; /* for messages: the path, or "" */
    char *name_own;
    struct cuzk_bp_vk vk;             /* decoded by open; not by peek (n_ic only) */
    uint32_t count[CUZK_BP_VECTORS];  /* points per vector */
    uint64_t offset[CUZK_BP_VECTORS]; /* of each vector's first point */
};

/* Opens, checks and decodes the vk of path (see the contract). After a failure close is safe. */
int cuzk_bp_params_open(struct cuzk_bp_params *p, const char *path, enum cuzk_point_check check,
                        char *err, size_t errlen);
/* The same over bytes in memory, which must outlive p. */
int cuzk_bp_params_from_mem(struct cuzk_bp_params *p, const void *data, size_t size,
                            enum cuzk_point_check check, char *err, size_t errlen);
/* Opens path and checks the layout (vk size, counts, exact end) without decoding a point: p has
 * vk.n_ic and the counts, vk.ic is NULL. Close it as an opened one. */
int cuzk_bp_params_peek(struct cuzk_bp_params *p, const char *path, char *err, size_t errlen);
void cuzk_bp_params_close(struct cuzk_bp_params *p);

/* Decodes vector v whole into out (count[v] points: cuzk_g2_affine for b_g2, cuzk_g1_affine
 * otherwise) on pool (NULL: the calling thread). The identity is refused (CUZK_EFORMAT), as
 * bellperson does; a point that fails a check gives its decoder's code with its index. */
int cuzk_bp_params_load(const struct cuzk_bp_params *p, enum cuzk_bp_vector v,
                        enum cuzk_point_check check, struct cuzk_pool *pool, void *out, char *err,
                        size_t errlen);

/* The query vectors to write; counts at most UINT32_MAX. */
struct cuzk_bp_query {
    const cuzk_g1_affine *h, *l, *a, *b_g1;
    const cuzk_g2_affine *b_g2;
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
};
/* Writes vk then the five vectors (encoding is a format conversion per point, far below the
 * cost of the write: one thread). */
int cuzk_bp_params_write(FILE *f, const struct cuzk_bp_vk *vk, const struct cuzk_bp_query *q,
                         char *err, size_t errlen);

#endif
