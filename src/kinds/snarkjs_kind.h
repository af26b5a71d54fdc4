/* The snarkjs proof kind: circuits compiled by circom with a snarkjs .zkey (a ceremony key or
 * a dev-setup key), one partition per job, the witness a .wtns file.
 *
 * Circuits are registered by id with their .zkey path and, optionally, their .r1cs path. The
 * zkey header is read at registration (sizes for the memory estimate); the key itself is
 * loaded when a job first needs it (point checks as cuzk_zkey_load's AUTO). With an .r1cs,
 * every witness is checked against the constraints before it is proved (a bad witness then
 * fails in synthesis with the first failing constraint, not later as an unverifiable proof).
 * A witness comes as .wtns bytes in the request or a .wtns path; its length must equal the
 * key's nVars and w[0] must be 1. Thread-safety: reentrant; registration may run while jobs
 * use other circuits. */
#ifndef CUZK_ENGINE_SNARKJS_KIND_H
#define CUZK_ENGINE_SNARKJS_KIND_H

#include <stddef.h>

#include "engine/kind.h"

int cuzk_kind_snarkjs_create(struct cuzk_kind **out);
/* Returns CUZK_OK, CUZK_EEXIST, CUZK_EINVAL (bad id), CUZK_EIO / CUZK_EFORMAT (the zkey
 * header cannot be read), CUZK_ENOMEM; a sentence in err. */
int cuzk_kind_snarkjs_add(struct cuzk_kind *k, const char *circuit_id, const char *zkey_path,
                          const char *r1cs_path, char *err, size_t errlen);

#endif
