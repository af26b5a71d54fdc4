/* The PCE cache: each Filecoin profile's recorded constraint system ("pre-compiled constraint
 * evaluator": the R1CS in CSR form, struct cuzk_cs), recorded once by running the circuit in a
 * RECORD builder and kept on disk so that later processes load it instead of re-running the
 * gadgets. It is the source of the profile's development key (cuzk_pce_to_r1cs ->
 * groth16/setup.h) and lets a witness be checked or multiplied out (cuzk_cs_eval).
 *
 * File <cache_dir>/pce-<profile>.bin, little-endian:
 *   header (CUZK_PCE_HEADER_BYTES): magic "CUZKPCE\0", u32 version (2), u32 n_coefs (distinct
 *   coefficients, 2 .. CUZK_PCE_MAX_COEFS), char profile[64] (NUL-padded), u64 circuit
 *   fingerprint (cuzk_pce_fingerprint), u64 rows, inputs (ONE included), aux, boolean aux,
 *   nnz A, nnz B, nnz C, u64 payload checksum, u64 header checksum (of the bytes before it);
 *   payload: the coefficient table (n_coefs field elements, 32 bytes each: the Montgomery limbs,
 *   little-endian; entry 0 is one, entry 1 minus one), then for A, B, C in turn: row_ptr
 *   (rows + 1 u64), col (nnz u32), coef (nnz u32 indices into the table).
 * The fingerprint identifies the circuit code: a file recorded by a build whose gadgets have
 * another shape is stale and is recorded again (and a key made from it is not reused, since
 * keys are named by the payload checksum). The checksum is cuzk_checksum64 (util/checksum.h);
 * it detects corruption, not tampering (the cache directory is trusted). Writes go to a temporary
 * file renamed into place (readers never see half a file); a lock file serialises processes that
 * would record the same profile.
 *
 * cuzk_pce_get loads the file when it is present and valid; a missing file is recorded (and
 * saved when a cache directory is given); a corrupt or stale one is recorded again with a
 * warning in the log. The in-memory size (cuzk_pce_bytes) is what a memory budget should be
 * charged; the caller owns the system and frees it (evicting it is just that).
 * Thread-safety: reentrant; the file lock makes concurrent processes safe. */
#ifndef CUZK_FILECOIN_PCE_H
#define CUZK_FILECOIN_PCE_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/builder.h"
#include "circuits/filecoin.h"
#include "formats/r1cs.h"
#include "r1cs/cs.h"

#define CUZK_PCE_MAGIC "CUZKPCE" /* + NUL: 8 bytes */
#define CUZK_PCE_VERSION 2
/* Distinct coefficients a PCE may hold (Filecoin's circuits have a few thousand); the memory
 * estimates made before a system is recorded count a table of this size. */
#define CUZK_PCE_MAX_COEFS (1u << 16)
/* Bump to invalidate every cached system on a change the fingerprint cannot see (a gadget
 * whose coefficients change while its shape stays). */
#define CUZK_PCE_CIRCUIT_VERSION 1
#define CUZK_PCE_HEADER_BYTES 160

struct cuzk_pce {
    struct cuzk_builder_counts counts;
    struct cuzk_cs cs; /* columns in the final witness order, n_public = inputs - 1 */
    uint64_t checksum; /* of the file payload: set when the system was loaded or saved */
};

/* The circuit fingerprint: a hash of CUZK_PCE_CIRCUIT_VERSION and of the counts (rows, inputs,
 * aux, boolean aux, nnz) of the smallest profile of each kind, computed once per process (a
 * COUNT pass of about 1.2 M rows, a fraction of a second). Any change to a gadget's shape
 * changes it. */
uint64_t cuzk_pce_fingerprint(void);

/* Host bytes of a recorded system with these counts (its CSR arrays and a coefficient table of
 * CUZK_PCE_MAX_COEFS entries: an over-estimate by at most 2 MiB). */
uint64_t cuzk_pce_bytes(const struct cuzk_builder_counts *c);
/* Bytes of its file, with n_coefs distinct coefficients. */
uint64_t cuzk_pce_file_bytes(const struct cuzk_builder_counts *c, uint32_t n_coefs);

/* Runs p's circuit in a RECORD builder (no values). Returns CUZK_OK or the builder's error. */
int cuzk_pce_record(const struct cuzk_fc_profile *p, struct cuzk_pce *out, char *err,
                    size_t errlen);
/* File I/O. load returns CUZK_EIO (missing / unreadable), CUZK_EFORMAT (corrupt: bad magic,
 * sizes, checksum, structure), CUZK_EUNSUPPORTED (another version), CUZK_ENOMEM. */
/* save also sets pce->checksum. */
int cuzk_pce_save(const char *path, const char *profile, struct cuzk_pce *pce, char *err,
                  size_t errlen);
int cuzk_pce_load(const char *path, const char *profile, struct cuzk_pce *out, char *err,
                  size_t errlen);
/* The counts and payload checksum of a PCE file from its header alone (header checksum,
 * versions and fingerprint verified). checksum may be NULL. */
int cuzk_pce_read_counts(const char *path, const char *profile, struct cuzk_builder_counts *out,
                         uint64_t *checksum, char *err, size_t errlen);
void cuzk_pce_free(struct cuzk_pce *pce);

/* <cache_dir>/pce-<profile>.bin into path[cap]. */
void cuzk_pce_path(const char *cache_dir, const char *profile, char *path, size_t cap);

/* Loads or records p's system (see above). cache_dir NULL = record in memory only (then
 * out->checksum is 0). *loaded (may be NULL) = 1 when it came from the file. Returns CUZK_OK or
 * an error with a sentence. */
int cuzk_pce_get(const char *cache_dir, const struct cuzk_fc_profile *p, struct cuzk_pce *out,
                 int *loaded, char *err, size_t errlen);
/* p's counts: from the PCE file header when it is there and valid, else from a COUNT run
 * (cheap in memory, proportional to the circuit in time). */
int cuzk_pce_counts(const char *cache_dir, const struct cuzk_fc_profile *p,
                    struct cuzk_builder_counts *out, char *err, size_t errlen);

/* The system as an .r1cs structure for the development setup (columns = wires: ONE, the
 * public inputs, the aux; every input public, no outputs). Free with cuzk_r1cs_free. */
int cuzk_pce_to_r1cs(const struct cuzk_pce *pce, struct cuzk_r1cs *out);

#endif
