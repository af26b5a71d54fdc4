/* The proof kinds of cuzk, made and registered in one call: "synthetic" and "snarkjs"
 * (kinds/synthetic.h, kinds/snarkjs_kind.h) and Filecoin's "porep", "snap", "wpost" and
 * "winning" (kinds/fc_kind.h). The daemon, the offline CLI and the tests all use this one
 * registration, so that no other place needs to know a kind's name.
 *
 * A kind set owns its kinds: register it with an engine after creating both, and destroy it
 * after the engine. Each kind carries the cuzk.v1 ProofKind number that selects it (struct
 * cuzk_kind.proof_kind): POREP_SEAL_COMMIT 1 porep, SNAP_DEALS_UPDATE 2 snap,
 * WINDOW_POST_PARTITION 3 wpost, WINNING_POST 4 winning; synthetic and snarkjs have none (a
 * request names them). Thread-safety: create, register and destroy belong to one thread;
 * the kinds themselves are reentrant. */
#ifndef CUZK_KINDS_KINDS_H
#define CUZK_KINDS_KINDS_H

#include <stddef.h>

#include "cuzk/engine.h"
#include "engine/kind.h"

struct cuzk_kinds_config {
    const char *cache_dir;         /* keys and constraint systems are cached here (the daemon's
                                      srs.param_cache); NULL or "" = made in memory at every
                                      load */
    unsigned synthetic_partitions; /* default partitions per synthetic job; default 10 */
    int synthetic_check;           /* synthetic synthesis also checks every constraint; 1 */
    unsigned synthetic_max_setup;  /* synthetic keys above this many constraints are not set up
                                      on demand (kinds/synthetic.h); 0 (default) = no bound */
    uint64_t synthetic_max_cache;  /* bytes of synthetic key files in cache_dir; 0 = no bound */
    int filecoin_check;            /* Filecoin witnesses checked row by row; default 0 */
    int filecoin;                  /* make the four Filecoin kinds; default 1 */
};

void cuzk_kinds_config_default(struct cuzk_kinds_config *c);

struct cuzk_kinds;

/* Returns CUZK_OK, CUZK_ENOMEM or CUZK_EINVAL, with a sentence in err. */
int cuzk_kinds_create(struct cuzk_kinds **out, const struct cuzk_kinds_config *c, char *err,
                      size_t errlen);
/* Registers every kind of the set with e. */
int cuzk_kinds_register(struct cuzk_kinds *ks, struct cuzk_engine *e, char *err, size_t errlen);
/* The set's kind of that name, or NULL. */
struct cuzk_kind *cuzk_kinds_get(struct cuzk_kinds *ks, const char *name);
/* A snarkjs circuit for the "snarkjs" kind (kinds/snarkjs_kind.h: cuzk_kind_snarkjs_add). */
int cuzk_kinds_add_snarkjs(struct cuzk_kinds *ks, const char *circuit_id, const char *zkey_path,
                           const char *r1cs_path, char *err, size_t errlen);
/* Every <id>.zkey of dir (with <id>.r1cs when present) as snarkjs circuit <id>, in name order.
 * *added = how many. Returns CUZK_OK, or CUZK_EIO (dir unreadable) / the first circuit's error,
 * with a sentence in err; circuits with ids too long are skipped with a warning. */
int cuzk_kinds_add_snarkjs_dir(struct cuzk_kinds *ks, const char *dir, size_t *added, char *err,
                               size_t errlen);
void cuzk_kinds_destroy(struct cuzk_kinds *ks);

#endif
