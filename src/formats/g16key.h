/* cuzk's own Groth16 proving-key file (.g16k): the points of a key and nothing else, laid out
 * so that a 130 M-variable, 2^27-domain key (the 32 GiB PoRep) fits a small disk next to its
 * constraint system and streams onto a GPU in chunks.
 *
 * Promise: a file that cuzk_g16key_open accepts holds what a completed writer produced (every
 * byte of the header and of every region is covered by a checksum, and the file size is fixed by
 * the header's counts), and a chunk that cuzk_g16key_read returns is the chunk that was
 * written. The checksums detect corruption and truncation, not tampering: the key directory is
 * trusted (they are cuzk_checksum64, a fast 64-bit hash, not a cryptographic one).
 *
 * What is stored: the six header points, IC, the A and B queries only for the wires whose
 * column of A (resp. B) is non-empty (the "density": wire lists a_wires and b_wires, strictly
 * increasing), C for the aux wires, H for the domain in one of two bases (enum cuzk_h_basis:
 * snarkjs's domain_size points, or bellperson's domain_size - 1). No coefficients: the constraint
 * system lives in its own file (the PCE cache, filecoin/pce.h), and cs_checksum names the one the
 * key was made from (opaque here; the caller compares it). Wires are numbered as in the constraint
 * system: 0 = ONE, 1 .. n_public the public inputs, then the aux; C[i] belongs to wire
 * n_public + 1 + i, A[j] to wire a_wires[j], B1[j] and B2[j] to wire b_wires[j].
 *
 * Layout (versions 1 and 2). All integers little-endian. "LEM" points are the bytes of the
 * in-memory cuzk_g1_affine / cuzk_g2_affine (ec/encode.h: Montgomery coordinates, G1 x | y,
 * G2 x.c0 | x.c1 | y.c0 | y.c1, 96 / 192 bytes, the identity all zeros); "zcash" points are the
 * compressed encodings of ec/encode.h (48 / 96 bytes, big-endian, flag bits). Every region starts
 * at a multiple of CUZK_G16KEY_ALIGN (4096) so that it can be read with O_DIRECT or mapped; the
 * gaps between regions are zero when written and never read. The file ends with the last byte of H.
 *
 *   header, at 0, CUZK_G16KEY_HEADER_BYTES (4096) bytes:
 *     0    8   magic "CUZKG16K"
 *     8    4   version (1 or 2: version 2 adds flag bit 1; the writer stamps 1 on a file
 *              without it, so that the builds that read version 1 only read every such file)
 *     12   4   flags: bit 0 = the point sections A, B1, B2, C, H are zcash-compressed (else
 *              LEM); bit 1 (version 2 only) = H is in the coefficient basis (CUZK_H_COEFF,
 *              domain_size - 1 points; clear: CUZK_H_SNARKJS, domain_size points); the other
 *              bits are zero
 *     16   4   n_vars        (wires, ONE included; >= n_public + 1)
 *     20   4   n_public      (public inputs, ONE excluded)
 *     24   4   domain_size   (a power of two)
 *     28   4   n_a           (entries of a_wires, <= n_vars)
 *     32   4   n_b           (entries of b_wires, <= n_vars)
 *     36   4   chunk_points  (points per checksum chunk, 1 .. CUZK_G16KEY_CHUNK_MAX)
 *     40   8   cs_checksum
 *     48   96  alpha1 (LEM)      144  96  beta1 (LEM)      240  96  delta1 (LEM)
 *     336  192 beta2 (LEM)       528  192 gamma2 (LEM)     720  192 delta2 (LEM)
 *     912  144 region table: for SUMS, IC, A_WIRES, B_WIRES, A, B1, B2, C, H in this order,
 *              u64 offset and u64 bytes (redundant: both follow from the counts above, and a
 *              reader requires them to; they let other tools find the regions)
 *     1056 8   checksum of the SUMS region
 *     1064 3024 reserved, zero
 *     4088 8   header checksum: of bytes [0, 4088)
 *   then the regions, in this order, each at the next multiple of 4096:
 *     SUMS     u64 checksums: IC, A_WIRES, B_WIRES (each of its whole region), then one per
 *              chunk of each point section in section order A, B1, B2, C, H (chunk i of a
 *              section holds its points [i * chunk_points, (i + 1) * chunk_points), the last
 *              one possibly fewer; an empty section has no chunk)
 *     IC       n_public + 1 G1, always LEM
 *     A_WIRES  n_a u32        B_WIRES  n_b u32
 *     A        n_a G1         B1       n_b G1          B2  n_b G2
 *     C        n_vars - n_public - 1 G1                H   domain_size G1 (flag bit 1:
 *                                                               domain_size - 1)
 *   The point sections are LEM or zcash by flag bit 0. Empty density lists (n_a or n_b = 0) and
 *   an empty C are allowed (their regions have no bytes); IC is never empty, and neither is
 *   H (domain_size is at least 2 in the coefficient basis).
 *   cuzk_g16key_file_bytes gives the size.
 *
 * Contract (writer): streaming. cuzk_g16key_writer_open validates the info and the wire lists
 * (CUZK_EINVAL with a sentence, before any file is created), creates the file (truncating one of
 * that name) and writes IC and the wire lists; cuzk_g16key_writer_put appends points to the
 * sections in the order A, B1, B2, C, H (any number per call: a setup hands over what it has
 * computed and frees it), encoding them on the pool and hashing each chunk as it fills;
 * cuzk_g16key_writer_close checks that every section is complete, then writes the checksum
 * table and, last, the header, and flushes the file to the disk (fsync). Until close succeeds the
 * file has no header and no reader accepts it; a failed close and writer_abort unlink it. The
 * caller writes to a temporary name and renames it into place after close succeeds, so that a
 * key file under its real name is always complete. A put that is refused (CUZK_EINVAL: wrong
 * section order, more points than the section holds) writes nothing and the writer stays
 * usable; an I/O failure (CUZK_EIO) is latched: every later call returns it and close unlinks.
 * Written data is advised out of the page cache as the write proceeds
 * (posix_fadvise DONTNEED one window behind the write position), so that writing a 24 GB key
 * does not push everything else out of host memory.
 *
 * Contract (reader): cuzk_g16key_open reads and verifies the header (magic, version:
 * CUZK_EUNSUPPORTED for one other than 1 and 2, checksum, counts), compares the file size with the
 * size the counts give (truncated files and trailing bytes are CUZK_EFORMAT) before it allocates
 * anything, then reads and verifies the checksum table, IC and the wire lists (strictly increasing,
 * below n_vars). The six header points are decoded with every check, IC without the subgroup check.
 * The point sections are not read: cuzk_g16key_read hands out ranges of them as stored
 * (encoded), verifying every chunk's checksum, for a GPU backend that decodes on the device;
 * cuzk_g16key_load decodes a whole section into host points (curve and canonical checks, no
 * subgroup check: the file is our own and checksummed). Reads of CUZK_G16KEY_DROP_BYTES or more
 * are advised out of the page cache afterwards (posix_fadvise DONTNEED), so that streaming a
 * 24 GB key to a GPU does not fill host memory with cache. Every failure returns a cuzk error
 * code with a sentence in err naming the file and the place, e.g.
 * "g16key: /keys/x.g16k: section B2 chunk 3: checksum mismatch". Nothing here aborts on bad
 * input.
 *
 * DESIGN (threads): encoding (writer) and decoding (load) run in blocks of points on the
 * caller's pool (cuzk_pool_run; NULL = the calling thread); each block writes only its own
 * slice, and load reports the lowest failing point whatever the thread count. Hashing and file
 * I/O run on the calling thread. Thread-safety: a writer belongs to one thread. An open key is
 * immutable; cuzk_g16key_read may be called from any number of threads at once (pread on one
 * descriptor), and so may load (threads sharing a pool take turns on it: a pool runs one job at
 * a time). Close only when no read is in flight. */
#ifndef CUZK_FORMATS_G16KEY_H
#define CUZK_FORMATS_G16KEY_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

struct cuzk_pool;

#define CUZK_G16KEY_MAGIC "CUZKG16K" /* 8 bytes, no NUL */
#define CUZK_G16KEY_VERSION 2        /* the newest version read and written */
#define CUZK_G16KEY_FLAG_COMPRESSED 1u
#define CUZK_G16KEY_FLAG_H_COEFF 2u /* version 2 */
#define CUZK_G16KEY_ALIGN 4096u
#define CUZK_G16KEY_HEADER_BYTES 4096u
/* 2^20 points: 48-192 MiB a chunk, the unit a GPU backend streams (big enough for full-speed
 * transfers, small enough to double-buffer); a 2^27-point section has 128 checksums. */
#define CUZK_G16KEY_CHUNK_DEFAULT (1u << 20)
/* A chunk is read and hashed whole: at most 2^24 points (3 GiB of G2 LEM). */
#define CUZK_G16KEY_CHUNK_MAX (1u << 24)
/* Reads at least this large are dropped from the page cache after they are verified. */
#define CUZK_G16KEY_DROP_BYTES (4u << 20)

/* The basis of a key's H points, for a domain of n = domain_size points (t = x^n - 1):
 *   CUZK_H_SNARKJS  n points: the odd-indexed Lagrange basis of the 2n-th roots of unity at tau,
 *                   over delta (snarkjs's .zkey; groth16/setup.h); the prover's h are the
 *                   evaluations of (A B - C) on the odd 2n-th roots;
 *   CUZK_H_COEFF    n - 1 points tau^i t(tau) / delta, i < n - 1 (bellperson's parameter files);
 *                   the prover's h are the coefficients of (A B - C) / t.
 * Both bases span the same space; a key proves only with the prover of its own basis
 * (groth16/groth16.h). */
enum cuzk_h_basis {
    CUZK_H_SNARKJS = 0,
    CUZK_H_COEFF = 1,
};

/* The number of H points of a key in basis b over a domain of domain_size points (0 for an
 * unknown basis). */
uint32_t cuzk_h_basis_points(enum cuzk_h_basis b, uint32_t domain_size);
/* "snarkjs" or "coefficient" ("?" for anything else), for sentences and status lines. */
const char *cuzk_h_basis_name(enum cuzk_h_basis b);

struct cuzk_g16key_info {
    uint32_t n_vars, n_public, domain_size, n_a, n_b;
    uint32_t chunk_points; /* writer: 0 = CUZK_G16KEY_CHUNK_DEFAULT; reader: the file's value */
    int compressed;        /* writer: nonzero = zcash-compressed point sections; reader: 0 or 1 */
    enum cuzk_h_basis h_basis; /* H's basis: the H section holds cuzk_h_basis_points points */
    uint64_t cs_checksum;
    cuzk_g1_affine alpha1, beta1, delta1;
    cuzk_g2_affine beta2, gamma2, delta2;
};

/* The point sections, in file (and writing) order. */
enum cuzk_g16key_section {
    CUZK_G16KEY_A,
    CUZK_G16KEY_B1,
    CUZK_G16KEY_B2,
    CUZK_G16KEY_C,
    CUZK_G16KEY_H,
};
#define CUZK_G16KEY_SECTIONS 5

/* "A", "B1", "B2", "C", "H" (the names in error sentences); "?" for anything else. */
const char *cuzk_g16key_section_name(enum cuzk_g16key_section s);

/* The exact size of the file for this info (chunk_points 0 = the default), or 0 when the info
 * is not a valid key shape (see the layout: n_public + 1 <= n_vars, n_a and n_b <= n_vars,
 * domain_size a power of two (at least 2 in the coefficient basis), chunk_points <=
 * CUZK_G16KEY_CHUNK_MAX, a known h_basis). */
uint64_t cuzk_g16key_file_bytes(const struct cuzk_g16key_info *info);

/* ---- writer ----------------------------------------------------------------------------- */

struct cuzk_g16key_writer;

/* Creates path and writes IC (n_public + 1 points) and the wire lists (n_a and n_b entries,
 * strictly increasing, below n_vars; NULL allowed for an empty list). The writer keeps pool for
 * its puts (it must outlive the writer) and copies everything else. Returns CUZK_OK,
 * CUZK_EINVAL (a bad info or wire list: no file is created), CUZK_EIO, CUZK_ENOMEM. */
int cuzk_g16key_writer_open(struct cuzk_g16key_writer **w, const char *path,
                            const struct cuzk_g16key_info *info, const cuzk_g1_affine *ic,
                            const uint32_t *a_wires, const uint32_t *b_wires,
                            struct cuzk_pool *pool, char *err, size_t errlen);
/* Appends the next n points of section s (cuzk_g2_affine for B2, cuzk_g1_affine otherwise, host
 * memory); sections in the order A, B1, B2, C, H, each complete before the next begins (an
 * empty section needs no put). Encoding runs in parallel blocks on the writer's pool. */
int cuzk_g16key_writer_put(struct cuzk_g16key_writer *w, enum cuzk_g16key_section s,
                           const void *points, size_t n, char *err, size_t errlen);
/* Checks that every section is complete (CUZK_EINVAL otherwise), writes the checksum table and
 * the header, fsyncs and closes the file. On any failure the file is unlinked. Frees w in every
 * case. */
int cuzk_g16key_writer_close(struct cuzk_g16key_writer *w, char *err, size_t errlen);
/* Unlinks the file and frees w (NULL is a no-op). */
void cuzk_g16key_writer_abort(struct cuzk_g16key_writer *w);

/* ---- reader ----------------------------------------------------------------------------- */

struct cuzk_g16key;

/* Opens and verifies path (see the contract); *k is NULL on failure. Returns CUZK_OK, CUZK_EIO,
 * CUZK_EFORMAT, CUZK_EUNSUPPORTED, CUZK_ENOMEM, or a point decoder's code for a bad header or IC
 * point behind a valid checksum (a writer given points that are not on the curve). */
int cuzk_g16key_open(struct cuzk_g16key **k, const char *path, char *err, size_t errlen);
void cuzk_g16key_close(struct cuzk_g16key *k); /* NULL is a no-op */
/* The header of path with open's header checks (magic, version, checksum, counts, file size,
 * the six points) and nothing else read: what a caller sizing a job needs, without the wire
 * lists (650 MB for a 32 GiB PoRep key). Same return codes as open. */
int cuzk_g16key_peek(const char *path, struct cuzk_g16key_info *info, char *err, size_t errlen);

/* The header, with chunk_points and compressed as stored. */
const struct cuzk_g16key_info *cuzk_g16key_get_info(const struct cuzk_g16key *k);
const cuzk_g1_affine *cuzk_g16key_ic(const struct cuzk_g16key *k); /* n_public + 1 points */
const uint32_t *cuzk_g16key_a_wires(const struct cuzk_g16key *k);  /* n_a entries */
const uint32_t *cuzk_g16key_b_wires(const struct cuzk_g16key *k);  /* n_b entries */
/* Points in section s (0 for an invalid s). */
size_t cuzk_g16key_count(const struct cuzk_g16key *k, enum cuzk_g16key_section s);
/* Stored bytes of one point of section s: 48 / 96 (G1 / G2) compressed, 96 / 192 LEM. */
size_t cuzk_g16key_point_bytes(const struct cuzk_g16key *k, enum cuzk_g16key_section s);

/* Reads points [first, first + n) of section s as stored into buf (n * point_bytes bytes),
 * verifying the checksum of every chunk the range covers. first must be a multiple of
 * chunk_points, and so must n unless the range ends at the section's end (CUZK_EINVAL
 * otherwise, as for a range outside the section). CUZK_EFORMAT with a sentence naming the
 * section and chunk on a mismatch; CUZK_EIO on a failed or short read (buf is then unspecified).
 * n = 0 (with first <= count) reads nothing. Thread-safe. */
int cuzk_g16key_read(struct cuzk_g16key *k, enum cuzk_g16key_section s, size_t first, size_t n,
                     void *buf, char *err, size_t errlen);
/* Reads and decodes the whole section s into out (count points of the section's affine type),
 * chunk by chunk, decoding on pool. Errors as for read, and a decoder's code with the point's
 * index for a point that is not canonical or not on the curve. out is unspecified on error. */
int cuzk_g16key_load(struct cuzk_g16key *k, enum cuzk_g16key_section s, struct cuzk_pool *pool,
                     void *out, char *err, size_t errlen);

#endif
