/* Proof kinds: what the engine needs to know about one family of circuits, as a vtable. A new
 * kind (PoRep C2, SnapDeals, WindowPoSt...) is a new file that fills a struct cuzk_kind and is
 * registered with cuzk_engine_register_kind; the engine calls only these entries.
 *
 * A kind maps a request to (a) a key id: which proving key its partitions need (requests of
 * one circuit share it), (b) a partition count, and (c) per partition, a witness. The engine
 * owns everything around that: queues, memory, keys (through the SRS manager, which calls
 * key_sizes / key_load / key_free), devices, verification and delivery.
 *
 * Contract for implementations:
 *   - job_open is called on the submitting thread and must be cheap (validate, parse or keep
 *     the input); heavy work belongs in synthesize. It fills *n_partitions (>= 1) and key_id,
 *     and may return a private job state freed by job_free. A kind with keeps_input set keeps
 *     pointers into req->witness instead of copying it: the engine holds the bytes (the
 *     caller's block when it handed one over, else one copy) until job_free has returned.
 *   - key_sizes must not load the key (a header read at most; results may be cached) and must
 *     be exact or an over-estimate: the engine charges these bytes to the memory budget before
 *     key_load runs. The per-partition memory estimate is derived from them (docs/engine.md).
 *   - key_load fills a struct cuzk_kind_key: its proving key (a view, groth16.h), its
 *     verification key, and what they point at (a zkey, or priv for anything else the kind
 *     keeps: a constraint system, a key file). When opts->host_points is 0 every device will
 *     hold the key (the HOT tier) and the points may stay in the key file (pk.file) instead of
 *     host memory. key_free releases all of it.
 *   - key_trim (optional) is called once the devices hold the key: it frees what no device
 *     reads from host memory any more (points loaded in host memory, the constraint system
 *     unless a check needs it), leaving the pk's header, vk and whatever key_free still needs.
 *   - key_cached (optional) says, cheaply, whether a key is stored or would be set up.
 *   - key_corrupt (optional) is called when a device found the key's stored form corrupt
 *     (a checksum of the key file): the kind removes it, so that the next key_load makes it
 *     again.
 *   - synthesize writes the whole witness w[0 .. n_vars) of partition `part` (w[0] = 1, the
 *     public inputs w[1 .. n_public]); it may run concurrently for different partitions and
 *     jobs, on several threads, and may use the pool (shared: cuzk_pool_run serialises).
 *   - verify (optional) checks one partition's proof; NULL means Groth16 verification with the
 *     key's vk and the witness's public inputs.
 *   - label, display and aliases (optional) are the reference cuzk's names of the kind and of
 *     its circuits: the status and metrics show them, PreloadSRS / EvictSRS accept the aliases.
 *     An alias's circuit is an id that key_of accepts.
 * Every function returns CUZK_OK or a negative cuzk_err code with a sentence in err. All
 * entries except verify are required. Thread-safety: every entry may be called concurrently;
 * a kind guards its own shared state. */
#ifndef CUZK_ENGINE_KIND_H
#define CUZK_ENGINE_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "ff/fr.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"

struct cuzk_pool;

/* A circuit's sizes, known before its key is loaded. Two residency plans: WARM (the points in
 * host memory: a CPU backend proves) and HOT (every device holds the key: host memory keeps
 * only what key_trim leaves). */
struct cuzk_kind_sizes {
    uint32_t n_vars;        /* witness length, the constant one included */
    uint32_t n_public;      /* public inputs per partition */
    uint32_t domain_size;   /* the key's evaluation domain */
    uint64_t key_bytes;     /* WARM: host bytes of the loaded key (points, prepared rows, vk) */
    uint64_t cs_bytes;      /* WARM: host bytes of the kind's private key data (priv); 0 if none */
    uint64_t load_scratch;  /* WARM: transient bytes key_load needs besides the above (a mapped
                               file, a setup's tables); charged during the load only */
    uint64_t hot_load;      /* HOT: host bytes from key_load until key_trim returns (what is
                               loaded and the transient bytes), the upload included */
    uint64_t hot_keep;      /* HOT: host bytes kept after key_trim */
    uint64_t hot_rows;      /* HOT: host bytes of the rows (pk.cs) that key_trim keeps besides
                               hot_keep when key->keep_rows (a device's plan reads them on the
                               host); within hot_load - hot_keep */
    uint64_t synth_scratch; /* transient bytes one synthesize call allocates besides w */
};

/* How a key is loaded. */
struct cuzk_kind_load_opts {
    int host_points; /* 1: the points in host memory (a CPU backend proves); 0: the devices
                        load them (from pk.file when there is one) */
};

/* A loaded key, owned by the SRS manager between key_load and key_free. */
struct cuzk_kind_key {
    struct cuzk_zkey zkey;     /* zkey-based kinds (pk views it); unused otherwise */
    struct cuzk_groth16_pk pk; /* the prover's view */
    struct cuzk_snarkjs_vk vk;
    void *priv;
    /* set by the SRS manager before key_trim: a device still reads pk.cs on the host at every
     * proof (its plan keeps the rows there: cuzk_backend.key_needs_rows), so the trim keeps
     * them */
    int keep_rows;
};

/* One circuit id of the reference cuzk daemon ("porep-32g") and the circuit of this kind it
 * names. circuit NULL: the id is known but has no circuit here; why says why (a sentence
 * fragment, e.g. "64 GiB sectors are not served yet"). */
struct cuzk_kind_alias {
    const char *id;
    const char *circuit;
    const char *why;
};

struct cuzk_kind {
    const char *name;     /* the request's kind string, < CUZK_NAME_MAX characters */
    int default_priority; /* enum cuzk_priority */
    int proof_kind;       /* the cuzk.v1 ProofKind that selects it (0: none; requested by name) */
    /* The reference cuzk's names of this kind, so that dashboards and clients made for it work
     * unchanged (docs/daemon.md, "Compatibility with cuzk"); NULL = name. */
    const char *label;                     /* Prometheus proof_kind label value ("porep_c2") */
    const char *display;                   /* /status JSON and GetStatus proof kind ("porep-c2") */
    const struct cuzk_kind_alias *aliases; /* the reference's circuit ids of this kind */
    size_t n_aliases;
    void *ctx;       /* the kind's own state */
    int keeps_input; /* 1: the job state points into req->witness after job_open (the
                        engine holds those bytes with the job, until job_free returns);
                        0: job_open takes what it needs (parses, copies) and the engine lets
                        go of the bytes once it returns */

    int (*job_open)(const struct cuzk_kind *k, const struct cuzk_job_request *req, void **job,
                    uint32_t *n_partitions, char key_id[CUZK_NAME_MAX], char *err, size_t errlen);
    void (*job_free)(const struct cuzk_kind *k, void *job);
    /* Optional: the key id of a circuit id (what job_open would report), for preload and
     * evict; NULL = the circuit id itself. */
    int (*key_of)(const struct cuzk_kind *k, const char *circuit_id, char key_id[CUZK_NAME_MAX],
                  char *err, size_t errlen);

    int (*key_sizes)(const struct cuzk_kind *k, const char *key_id, struct cuzk_kind_sizes *out,
                     char *err, size_t errlen);
    int (*key_load)(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *pool,
                    const struct cuzk_kind_load_opts *opts, struct cuzk_kind_key *out, char *err,
                    size_t errlen);
    void (*key_free)(const struct cuzk_kind *k, struct cuzk_kind_key *key);
    /* optional: frees what the devices hold once the key is resident on all of them (its
     * points; its rows unless key->keep_rows) */
    void (*key_trim)(const struct cuzk_kind *k, struct cuzk_kind_key *key);
    void (*key_corrupt)(const struct cuzk_kind *k, const char *key_id); /* optional */
    /* Optional, cheap (a stat, no COUNT pass): 1 when key_load would find the key stored (no
     * setup), 0 when it would set one up. NULL: the kind never sets keys up (they are given,
     * like a snarkjs .zkey). The engine's setup policy (cuzk_engine_config.setup_allow) asks
     * it before anything else of a job runs. */
    int (*key_cached)(const struct cuzk_kind *k, const char *key_id);

    int (*synthesize)(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                      uint32_t part, struct cuzk_pool *pool, cuzk_fr *w, char *err, size_t errlen);
    /* 1 valid, 0 invalid, < 0 an error. pub = w[1 .. n_public] of the partition. */
    int (*verify)(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                  uint32_t part, const cuzk_fr *pub, size_t n_pub,
                  const struct cuzk_snarkjs_proof *proof);

    /* Frees the kind (its owner calls it after destroying every engine it was registered
     * with; kinds/kinds.h does so for the kinds it makes). */
    void (*destroy)(struct cuzk_kind *k);
};

/* k->label or k->name; k->display or k->name. */
const char *cuzk_kind_label(const struct cuzk_kind *k);
const char *cuzk_kind_display(const struct cuzk_kind *k);
/* The alias of k whose id is `id`, or NULL. */
const struct cuzk_kind_alias *cuzk_kind_alias_find(const struct cuzk_kind *k, const char *id);
/* The reference's id of k's circuit (the alias naming circuit), or NULL when it has none. */
const char *cuzk_kind_alias_of(const struct cuzk_kind *k, const char *circuit);

/* The kinds themselves live in src/kinds/ (kinds/kinds.h registers them). */

#endif
