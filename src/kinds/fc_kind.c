/* DESIGN: a job owns its parsed vanilla proofs (struct cuzk_vanilla, decoded at submit); a key
 * owns its constraint system, its key file and what is loaded of it (struct fc_priv). The
 * kind's only shared state is the counts cache (profile name -> counts) under its mutex, so
 * that key_sizes, called at every submission, runs a profile's COUNT pass at most once. */
#define _GNU_SOURCE
#include "kinds/fc_kind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "filecoin/c1.h"
#include "filecoin/pce.h"
#include "filecoin/post_proof.h"
#include "filecoin/registered.h"
#include "filecoin/snap_proof.h"
#include "filecoin/vanilla.h"
#include "formats/bellperson.h"
#include "formats/g16key.h"
#include "groth16/bpkey.h"
#include "groth16/setup.h"
#include "util/log.h"
#include "util/pool.h"
#include "util/clock.h"

struct counts_entry {
    char name[64];
    struct cuzk_builder_counts c;
};

struct fc_kind {
    struct cuzk_kind k;
    enum cuzk_fc_kind fk;
    char *cache_dir;
    int check;
    pthread_mutex_t mu; /* guards counts */
    struct counts_entry *counts;
    size_t n_counts, cap_counts;
};

struct fc_job {
    struct cuzk_vanilla v;
};

/* A loaded key: the constraint system (the pk's A/B rows; dropped by the trim unless
 * checking), the key file (NULL when made in memory) and its header, IC, wire lists and, when
 * in host memory, its points. */
struct fc_priv {
    struct cuzk_pce pce;
    int has_pce;
    struct cuzk_g16key *file;
    struct cuzk_groth16_keydata kd;
};

static const char *const names[4] = {"porep", "snap", "wpost", "winning"};

/* The reference cuzk's names: its Prometheus label values, its Display names (status JSON,
 * GetStatus) and its SRS circuit ids (srs_manager's CircuitId). The 32 GiB ids are the default
 * profiles; the 64 GiB ids have no circuit here yet: their circuits are profiles
 * (porep-c18-d31-t2, snap-c86-d31-t2: trees C/R of 8-8-2), but the ids, the registered proofs
 * and the C1 reader are not tied to them yet. */
static const char *const labels[4] = {"porep_c2", "snap_update", "window_post", "winning_post"};
static const char *const displays[4] = {"porep-c2", "snap-update", "window-post", "winning-post"};
#define FC_NO_64G                                                                                  \
    "64 GiB sectors are not served yet: their circuits (trees C/R of 8-8-2) are counted, but "     \
    "the ids and registered proofs are not tied to them yet"
static const struct cuzk_kind_alias porep_aliases[] = {{"porep-32g", "porep-c18", NULL},
                                                       {"porep-64g", NULL, FC_NO_64G}};
static const struct cuzk_kind_alias snap_aliases[] = {{"snap-32g", "snap-c86", NULL},
                                                      {"snap-64g", NULL, FC_NO_64G}};
static const struct cuzk_kind_alias wpost_aliases[] = {{"wpost-32g", "wpost-s2349", NULL}};
static const struct cuzk_kind_alias winning_aliases[] = {{"winning-32g", "winning-s66", NULL}};
static const struct {
    const struct cuzk_kind_alias *a;
    size_t n;
} aliases[4] = {{porep_aliases, 2}, {snap_aliases, 2}, {wpost_aliases, 1}, {winning_aliases, 1}};

const char *cuzk_kind_fc_name(enum cuzk_fc_kind kind) {
    return (unsigned)kind <= CUZK_FC_WINNING ? names[kind] : NULL;
}

/* A profile of this kind from a key id or circuit id. */
static int profile_of(const struct fc_kind *fk, const char *id, struct cuzk_fc_profile *p,
                      char *err, size_t errlen) {
    char perr[160];
    if (!id || cuzk_fc_profile_parse(id, p, perr, sizeof perr)) {
        snprintf(err, errlen, "%s: \"%s\" is not a profile: %s", fk->k.name, id ? id : "",
                 id ? perr : "none given");
        return CUZK_EINVAL;
    }
    if (p->kind != fk->fk) {
        snprintf(err, errlen, "%s: profile %s is not a %s profile", fk->k.name, p->name,
                 fk->k.name);
        return CUZK_EINVAL;
    }
    return CUZK_OK;
}

/* ---- counts ----------------------------------------------------------------------------- */

static int counts_of(struct fc_kind *fk, const struct cuzk_fc_profile *p,
                     struct cuzk_builder_counts *out, char *err, size_t errlen) {
    pthread_mutex_lock(&fk->mu);
    for (size_t i = 0; i < fk->n_counts; i++)
        if (!strcmp(fk->counts[i].name, p->name)) {
            *out = fk->counts[i].c;
            pthread_mutex_unlock(&fk->mu);
            return CUZK_OK;
        }
    pthread_mutex_unlock(&fk->mu);
    /* outside the lock: a COUNT pass may take seconds for the real profiles; two threads may
     * both run it, with the same result */
    int rc = cuzk_pce_counts(fk->cache_dir, p, out, err, errlen);
    if (rc) return rc;
    pthread_mutex_lock(&fk->mu);
    if (fk->n_counts == fk->cap_counts) {
        size_t cap = fk->cap_counts ? 2 * fk->cap_counts : 8;
        struct counts_entry *n = realloc(fk->counts, cap * sizeof *n);
        if (n) fk->counts = n, fk->cap_counts = cap;
    }
    if (fk->n_counts < fk->cap_counts) {
        snprintf(fk->counts[fk->n_counts].name, sizeof fk->counts[0].name, "%s", p->name);
        fk->counts[fk->n_counts++].c = *out;
    }
    pthread_mutex_unlock(&fk->mu);
    return CUZK_OK;
}

/* ---- jobs ------------------------------------------------------------------------------- */

/* The registered proof a request names (struct cuzk_fc_args), its non-zero sector_size checked
 * against it. */
static int request_registered(const struct fc_kind *fk, const struct cuzk_fc_args *a,
                              struct cuzk_fc_registered *r, char *err, size_t errlen) {
    char why[200];
    int rc = cuzk_fc_registered_get(fk->fk, a->registered_proof, r, why, sizeof why);
    if (rc) return cuzk_errf(err, errlen, rc, "%s: %s", fk->k.name, why);
    if (a->sector_size && a->sector_size != r->sector_size)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "%s: sector_size %llu does not match registered_proof %llu (%s, "
                         "%llu-byte sectors)",
                         fk->k.name, (unsigned long long)a->sector_size,
                         (unsigned long long)r->number, r->name,
                         (unsigned long long)r->sector_size);
    return CUZK_OK;
}

/* A cuzk vanilla file's profile against the request's registered_proof and sector_size
 * (struct cuzk_fc_args). */
static int check_registered(const struct fc_kind *fk, const struct cuzk_fc_args *a,
                            const struct cuzk_fc_profile *have, char *err, size_t errlen) {
    if (!a || (!a->registered_proof && !a->sector_size)) return CUZK_OK;
    struct cuzk_fc_registered r;
    if (a->registered_proof) {
        int rc = request_registered(fk, a, &r, err, errlen);
        if (rc) return rc;
    } else if (cuzk_fc_registered_for_size(fk->fk, a->sector_size, &r, NULL, 0) ||
               !cuzk_fc_profile_is_sector(have)) {
        return CUZK_OK; /* a test profile, or a size with no circuit: the file decides */
    }
    if (strcmp(r.profile.name, have->name))
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "%s: %s %llu (%s) is circuit %s; the vanilla proofs are for %s",
                         fk->k.name, a->registered_proof ? "registered_proof" : "sector_size",
                         (unsigned long long)(a->registered_proof ? r.number : a->sector_size),
                         r.name, r.profile.name, have->name);
    return CUZK_OK;
}

/* SnapDeals: the commitments the request carries must be the vanilla proofs' (every partition
 * holds the sector's, which the consistency check makes equal). */
static int check_snap_comms(const struct fc_kind *fk, const struct cuzk_fc_args *a,
                            const struct cuzk_vanilla *v, char *err, size_t errlen) {
    if (!a || !a->has_comm || fk->fk != CUZK_FC_SNAP || !v->n_parts) return CUZK_OK;
    const struct cuzk_fc_snap_vanilla *s = &v->parts[0].v.snap;
    const struct {
        uint32_t bit;
        const char *name;
        const uint8_t *want;
        const cuzk_fr *have;
    } c[3] = {{CUZK_FC_HAS_COMM_R_OLD, "comm_r_old", a->comm_r_old, &s->comm_r_old},
              {CUZK_FC_HAS_COMM_R_NEW, "comm_r_new", a->comm_r_new, &s->comm_r_new},
              {CUZK_FC_HAS_COMM_D_NEW, "comm_d_new", a->comm_d_new, &s->comm_d_new}};
    for (int i = 0; i < 3; i++) {
        if (!(a->has_comm & c[i].bit)) continue;
        uint8_t have[32];
        cuzk_fr_to_bytes_le(have, c[i].have);
        if (memcmp(have, c[i].want, 32)) {
            char hw[17], hh[17];
            for (int k = 0; k < 8; k++) {
                snprintf(hw + 2 * k, 3, "%02x", c[i].want[k]);
                snprintf(hh + 2 * k, 3, "%02x", have[k]);
            }
            return cuzk_errf(err, errlen, CUZK_EINVAL,
                             "%s: %s: the request's %s... is not the vanilla proofs' %s...",
                             fk->k.name, c[i].name, hw, hh);
        }
    }
    return CUZK_OK;
}

/* A PoRep C1 (filecoin/c1.h), wrapped as Curio and lotus-bench send it or not: its registered
 * proof must be the request's (when given), as must its sector size; then the request's public
 * values (miner, sector, and from them the replica id, the challenges and the parents) are
 * checked against it. */
static int c1_input(const struct fc_kind *fk, const uint8_t *in, size_t len,
                    const struct cuzk_fc_args *a, struct cuzk_vanilla *v, char *err,
                    size_t errlen) {
    struct cuzk_c1 c;
    char why[320];
    int rc = cuzk_c1_parse(in, len, &c, why, sizeof why);
    if (!rc && a && a->registered_proof && a->registered_proof != c.reg.number)
        rc = cuzk_errf(why, sizeof why, CUZK_EINVAL,
                       "registered_proof: the request's %llu, the C1's %llu (%s)",
                       (unsigned long long)a->registered_proof, (unsigned long long)c.reg.number,
                       c.reg.name);
    if (!rc && a && a->sector_size && a->sector_size != c.reg.sector_size)
        rc = cuzk_errf(
            why, sizeof why, CUZK_EINVAL, "sector_size: the request's %llu, the C1's %llu (%s)",
            (unsigned long long)a->sector_size, (unsigned long long)c.reg.sector_size, c.reg.name);
    if (!rc && a) rc = cuzk_c1_check(&c, a->miner_id, a->sector_number, why, sizeof why);
    if (rc) {
        cuzk_c1_free(&c);
        return cuzk_errf(err, errlen, rc, "%s: %s", fk->k.name, why);
    }
    *v = c.v; /* the partitions change hands */
    memset(&c.v, 0, sizeof c.v);
    cuzk_c1_free(&c);
    return CUZK_OK;
}

/* Input that is not a cuzk vanilla file: PoSt's bincode entries as Filecoin's clients send
 * them (filecoin/post_proof.h), selected and checked by the request's arguments; for the other
 * kinds, a sentence saying what was recognised. */
static int foreign_input(const struct fc_kind *fk, const uint8_t *in, size_t len,
                         const struct cuzk_fc_args *a, struct cuzk_vanilla *v, char *err,
                         size_t errlen) {
    memset(v, 0, sizeof *v);
    size_t lead = 0;
    while (lead < len &&
           (in[lead] == ' ' || in[lead] == '\t' || in[lead] == '\n' || in[lead] == '\r'))
        lead++;
    if (fk->fk == CUZK_FC_POREP && lead < len && in[lead] == '{')
        return c1_input(fk, in, len, a, v, err, errlen);
    if (fk->fk == CUZK_FC_POREP) {
        char why[200];
        int rc = cuzk_vanilla_parse(v, in, len, why, sizeof why); /* fails: no magic */
        return cuzk_errf(err, errlen, rc, "%s", why);
    }
    if (!a)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "%s: bincode vanilla proofs need the request's registered_proof%s",
                         fk->k.name, fk->fk == CUZK_FC_SNAP ? "" : " and randomness");
    struct cuzk_fc_registered r;
    char why[200];
    int rc = request_registered(fk, a, &r, err, errlen);
    if (rc) return rc;
    if (fk->fk == CUZK_FC_SNAP) { /* PartitionProof entries, one per partition */
        rc = cuzk_snap_vanilla_of_entries(in, len, &r, v, why, sizeof why);
        return rc ? cuzk_errf(err, errlen, rc, "%s: %s", fk->k.name, why) : CUZK_OK;
    }
    if (!a->has_randomness)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "%s: randomness: %s needs the request's 32-byte randomness", fk->k.name,
                         r.name);
    struct cuzk_post_entries pe;
    rc = cuzk_post_entries_parse(in, len, r.profile.tree_r_levels, r.profile.top_arity,
                                 fk->fk == CUZK_FC_WINNING ? 1 : r.profile.sectors, &pe, why,
                                 sizeof why);
    if (!rc) {
        rc = cuzk_post_vanilla_of_entries(&pe, &r, a->randomness, a->partition_index, v, why,
                                          sizeof why);
        cuzk_post_entries_free(&pe);
    }
    if (rc) return cuzk_errf(err, errlen, rc, "%s: %s", fk->k.name, why);
    return CUZK_OK;
}

static int fc_job_open(const struct cuzk_kind *k, const struct cuzk_job_request *req, void **job,
                       uint32_t *n_partitions, char key_id[CUZK_NAME_MAX], char *err,
                       size_t errlen) {
    const struct fc_kind *fk = k->ctx;
    if (!req->witness == !req->witness_path || (req->witness && !req->witness_len)) {
        snprintf(err, errlen, "%s: a job needs its vanilla proofs: bytes or a path, not both",
                 k->name);
        return CUZK_EINVAL;
    }
    const struct cuzk_fc_args *a = NULL;
    if (req->kind_args) {
        if (req->kind_args_len != sizeof *a) {
            snprintf(err, errlen, "%s: kind arguments of %zu bytes (struct cuzk_fc_args is %zu)",
                     k->name, req->kind_args_len, sizeof *a);
            return CUZK_EINVAL;
        }
        a = req->kind_args;
    }
    struct fc_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ENOMEM;
    const int native = req->witness_path ||
                       (req->witness_len >= 8 && !memcmp(req->witness, CUZK_VANILLA_MAGIC, 8));
    int rc = req->witness_path ? cuzk_vanilla_read_file(&j->v, req->witness_path, err, errlen)
             : native ? cuzk_vanilla_parse(&j->v, req->witness, req->witness_len, err, errlen)
                      : foreign_input(fk, req->witness, req->witness_len, a, &j->v, err, errlen);
    if (!rc && native) rc = check_registered(fk, a, &j->v.profile, err, errlen);
    if (!rc && j->v.profile.kind == fk->fk) rc = check_snap_comms(fk, a, &j->v, err, errlen);
    if (rc) goto fail;
    if (j->v.profile.kind != fk->fk) {
        snprintf(err, errlen, "%s: the vanilla proofs are for %s, a %s profile", k->name,
                 j->v.profile.name, names[j->v.profile.kind]);
        rc = CUZK_EINVAL;
        goto fail;
    }
    if (req->circuit_id && *req->circuit_id) {
        struct cuzk_fc_profile want;
        if ((rc = profile_of(fk, req->circuit_id, &want, err, errlen))) goto fail;
        if (strcmp(want.name, j->v.profile.name)) {
            snprintf(err, errlen, "%s: circuit %s requested, the vanilla proofs are for %s",
                     k->name, want.name, j->v.profile.name);
            rc = CUZK_EINVAL;
            goto fail;
        }
    }
    *job = j;
    *n_partitions = j->v.n_parts;
    snprintf(key_id, CUZK_NAME_MAX, "%s", j->v.profile.name);
    return CUZK_OK;
fail:
    cuzk_vanilla_free(&j->v);
    free(j);
    return rc;
}

static void fc_job_free(const struct cuzk_kind *k, void *job) {
    (void)k;
    struct fc_job *j = job;
    if (!j) return;
    cuzk_vanilla_free(&j->v);
    free(j);
}

static int fc_key_of(const struct cuzk_kind *k, const char *circuit_id, char key_id[CUZK_NAME_MAX],
                     char *err, size_t errlen) {
    struct cuzk_fc_profile p;
    int rc = profile_of(k->ctx, circuit_id, &p, err, errlen);
    if (!rc) snprintf(key_id, CUZK_NAME_MAX, "%s", p.name);
    return rc;
}

/* ---- keys ------------------------------------------------------------------------------- */

int cuzk_kind_fc_key_path(const char *cache_dir, const char *profile, char *out, size_t cap) {
    char path[4096], lerr[256];
    struct cuzk_builder_counts c;
    uint64_t sum;
    if (!cache_dir) return CUZK_ENOTFOUND;
    cuzk_pce_path(cache_dir, profile, path, sizeof path);
    if (cuzk_pce_read_counts(path, profile, &c, &sum, lerr, sizeof lerr)) return CUZK_ENOTFOUND;
    snprintf(out, cap, "%s/fc-%s-%016llx.key", cache_dir, profile, (unsigned long long)sum);
    return CUZK_OK;
}

/* ---- bellperson parameter files --------------------------------------------------------- */

/* The start of Filecoin's parameter file names per kind (filecoin-proofs' parameters.json:
 * "v28-<circuit>-merkletree-poseidon_hasher-<tree arities>[-sha256_hasher]-<digest>.params");
 * the arities follow the sector size and the digest the circuit, so a file is chosen by its
 * shape, not its full name. Both PoSt kinds share one circuit name. */
static const char *const params_prefix[4] = {
    "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-",
    "v28-empty-sector-update-merkletree-poseidon_hasher-",
    "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-",
    "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-",
};

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir that start with the kind's prefix and end in ".params", sorted. */
static char **params_names(const char *dir, enum cuzk_fc_kind kind, size_t *n) {
    *n = 0;
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return NULL;
    char **names = NULL;
    size_t cap = 0;
    const char *pre = params_prefix[kind];
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, pre, strlen(pre)) || len < 8 ||
            strcmp(e->d_name + len - 7, ".params"))
            continue;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            char **g = realloc(names, nc * sizeof *g);
            if (!g) break;
            names = g, cap = nc;
        }
        if (!(names[*n] = strdup(e->d_name))) break;
        ++*n;
    }
    closedir(d);
    if (*n) qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

int cuzk_kind_fc_params_find(const char *cache_dir, enum cuzk_fc_kind kind,
                             const struct cuzk_builder_counts *c, char *out, size_t cap) {
    if ((unsigned)kind > CUZK_FC_WINNING) return CUZK_EINVAL;
    size_t n;
    char **names = params_names(cache_dir, kind, &n);
    uint32_t domain = cuzk_groth16_domain_for(c->constraints, c->n_inputs - 1);
    int rc = CUZK_ENOTFOUND;
    for (size_t i = 0; i < n && rc != CUZK_OK; i++) {
        char path[4096], lerr[512];
        snprintf(path, sizeof path, "%s/%s", cache_dir, names[i]);
        struct cuzk_bp_params p;
        int prc = cuzk_bp_params_peek(&p, path, lerr, sizeof lerr);
        if (!prc)
            prc = cuzk_bpkey_check_shape(&p, (uint32_t)(c->n_inputs + c->n_aux),
                                         (uint32_t)(c->n_inputs - 1), domain, lerr, sizeof lerr);
        cuzk_bp_params_close(&p);
        if (!prc) {
            snprintf(out, cap, "%s", path);
            rc = CUZK_OK;
        }
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

/* A bellperson file in the cache for this profile (see cuzk_kind_fc_params_find): CUZK_OK or
 * CUZK_ENOTFOUND. Either h basis fits: a real Filecoin parameter file (bellperson's coefficient
 * basis) and one an older cuzk wrote (snarkjs's) are both imported and proved with the prover of
 * their basis (groth16/bpkey.h). Counts the profile only when a file of the kind's name exists. */
static int params_for(struct fc_kind *fk, const struct cuzk_fc_profile *p, char *path, size_t cap) {
    size_t n;
    char **names = params_names(fk->cache_dir, fk->fk, &n);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    if (!n) return CUZK_ENOTFOUND;
    struct cuzk_builder_counts c;
    char lerr[256];
    if (counts_of(fk, p, &c, lerr, sizeof lerr)) return CUZK_ENOTFOUND;
    return cuzk_kind_fc_params_find(fk->cache_dir, fk->fk, &c, path, cap);
}

/* The info of the cached key file of a profile, when there is a valid one for its current
 * system (header checks only). */
static int key_cached(const struct fc_kind *fk, const char *profile,
                      struct cuzk_g16key_info *info) {
    char path[4096], lerr[256];
    return !cuzk_kind_fc_key_path(fk->cache_dir, profile, path, sizeof path) &&
           !cuzk_g16key_peek(path, info, lerr, sizeof lerr);
}

/* The engine's question (kind.h key_cached): a stored key for the profile's current system,
 * found by two header reads, or a bellperson parameter file of the profile's shape in the cache
 * (a directory scan; the profile is counted, once, only when a file of the kind's name exists). */
static int fc_key_cached(const struct cuzk_kind *k, const char *key_id) {
    struct cuzk_g16key_info info;
    if (key_cached(k->ctx, key_id, &info)) return 1;
    /* a parameter file of the circuit's shape is a stored key (the setup policy does not apply) */
    struct cuzk_fc_profile p;
    char path[4096], err[512];
    if (profile_of(k->ctx, key_id, &p, err, sizeof err)) return 0;
    return params_for(k->ctx, &p, path, sizeof path) == CUZK_OK;
}

/* The setup's host memory besides the system: the Lagrange basis, the QAP columns, the
 * density bitmaps and lists, one chunk of scalars and points, the writer's buffers. */
static uint64_t setup_scratch(uint64_t n_vars, uint64_t domain) {
    return 32 * domain + 96 * n_vars + 10 * n_vars +
           (uint64_t)CUZK_KEYGEN_CHUNK * (sizeof(cuzk_fr) + sizeof(cuzk_g2_affine) + 192) +
           (16u << 20);
}

static int fc_key_sizes(const struct cuzk_kind *k, const char *key_id, struct cuzk_kind_sizes *out,
                        char *err, size_t errlen) {
    struct fc_kind *fk = k->ctx;
    struct cuzk_fc_profile p;
    struct cuzk_builder_counts c;
    int rc = profile_of(fk, key_id, &p, err, errlen);
    if (!rc) rc = counts_of(fk, &p, &c, err, errlen);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    uint64_t n_vars = c.n_inputs + c.n_aux;
    uint32_t domain = cuzk_groth16_domain_for(c.constraints, c.n_inputs - 1);
    if (n_vars > UINT32_MAX || !domain) {
        snprintf(err, errlen, "%s: %s is too large for a key", k->name, p.name);
        return CUZK_ERANGE;
    }
    out->n_vars = (uint32_t)n_vars;
    out->n_public = (uint32_t)(c.n_inputs - 1);
    out->domain_size = domain;
    /* the query sizes come from the key file; before it exists, every wire (an over-estimate) */
    struct cuzk_g16key_info info;
    int cached = key_cached(fk, p.name, &info);
    uint32_t n_a = cached ? info.n_a : out->n_vars, n_b = cached ? info.n_b : out->n_vars;
    const uint64_t vk = ((uint64_t)out->n_public + 1) * sizeof(cuzk_g1_affine) + 1024;
    const uint64_t pce = cuzk_pce_bytes(&c);
    const uint64_t head =
        cuzk_groth16_keydata_bytes(out->n_vars, out->n_public, domain, n_a, n_b, 0) + vk;
    const uint64_t full =
        cuzk_groth16_keydata_bytes(out->n_vars, out->n_public, domain, n_a, n_b, 1) + vk;
    /* what making the key file costs: an import when a parameter file fits, else a setup */
    char params[4096];
    const int import = !cached && params_for(fk, &p, params, sizeof params) == CUZK_OK;
    const uint64_t make = cached   ? 0
                          : import ? cuzk_bpkey_import_bytes(out->n_vars, domain)
                                   : setup_scratch(n_vars, domain);
    /* WARM: points and system in host memory */
    out->key_bytes = full;
    out->cs_bytes = pce;
    out->load_scratch = make;
    /* HOT: the system until the upload (unless a check keeps it), points only when the key is
     * made in memory (no cache directory to load it from again), and the upload's staging */
    out->hot_load = pce + (fk->cache_dir ? head : full) + make + (256u << 20);
    out->hot_keep = (fk->cache_dir ? head : full) + (fk->check ? pce : 0);
    out->hot_rows = fk->check ? 0 : pce; /* kept by a check already */
    /* the builder's boolean bitmap and its small per-gadget buffers */
    out->synth_scratch = c.n_aux / 8 + (1u << 20);
    return CUZK_OK;
}

/* Opens path and checks that it is the key of this system. */
static int key_open_checked(const struct fc_kind *fk, const struct cuzk_fc_profile *p,
                            const struct cuzk_pce *pce, const char *path, struct cuzk_g16key **out,
                            char *err, size_t errlen) {
    int rc = cuzk_g16key_open(out, path, err, errlen);
    if (rc) return rc;
    const struct cuzk_g16key_info *i = cuzk_g16key_get_info(*out);
    const struct cuzk_cs *cs = &pce->cs;
    if (i->n_vars != cs->n_cols || i->n_public != cs->n_public ||
        i->domain_size != cuzk_groth16_domain_for(cs->n_rows, cs->n_public) ||
        i->cs_checksum != pce->checksum) {
        snprintf(err, errlen, "%s: %s is not the key of %s's current constraint system", fk->k.name,
                 path, p->name);
        cuzk_g16key_close(*out);
        *out = NULL;
        return CUZK_EFORMAT;
    }
    return CUZK_OK;
}

/* The bellperson file at params, for pce's system (every point checked, the subgroup
 * included: a one-time import), written as a key file at tmp. */
static int import_params(const struct cuzk_pce *pce, const char *params, const char *tmp,
                         int compressed, struct cuzk_pool *pool, char *err, size_t errlen) {
    struct cuzk_bp_params bp;
    int rc = cuzk_bp_params_open(&bp, params, CUZK_CHECK_ALL, err, errlen);
    if (rc) return rc;
    rc = cuzk_bpkey_import(&bp, &pce->cs, pce->checksum, CUZK_CHECK_ALL, tmp, compressed, pool, err,
                           errlen);
    cuzk_bp_params_close(&bp);
    return rc;
}

/* Under the key's lock file: the cached key file at path if usable, else the bellperson file of the
 * profile in the cache imported, else a new setup of pce, written to it (a temporary name renamed
 * into place). */
static int key_file_get(struct fc_kind *fk, const struct cuzk_fc_profile *p,
                        const struct cuzk_pce *pce, const char *path, int compressed,
                        struct cuzk_pool *pool, struct cuzk_g16key **out, char *err,
                        size_t errlen) {
    char lock[4200], tmp[4300], lerr[256] = "";
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open %s: %s", fk->k.name, lock, strerror(errno));
        return CUZK_EIO;
    }
    while (flock(fd, LOCK_EX) && errno == EINTR) {
    }
    struct stat st;
    int rc = CUZK_ENOTFOUND;
    if (!stat(path, &st)) {
        rc = key_open_checked(fk, p, pce, path, out, lerr, sizeof lerr);
        if (rc)
            cuzk_log_warn("fc", "cached key %s is unusable (%s): setting it up again", path, lerr);
    }
    char params[4096];
    int found = rc ? params_for(fk, p, params, sizeof params) : CUZK_ENOTFOUND;
    if (rc) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
        double t0 = cuzk_clock_ms();
        if (found == CUZK_OK) {
            rc = import_params(pce, params, tmp, compressed, pool, err, errlen);
        } else {
            struct cuzk_keygen_opts ko = {
                .compressed = compressed, .cs_checksum = pce->checksum, .h_basis = CUZK_H_COEFF};
            rc = cuzk_groth16_keygen_file(pool, &pce->cs, &ko, tmp, err, errlen);
        }
        if (!rc && rename(tmp, path)) {
            snprintf(err, errlen, "%s: cannot rename %s: %s", fk->k.name, tmp, strerror(errno));
            unlink(tmp);
            rc = CUZK_EIO;
        }
        if (!rc) {
            cuzk_log_info("fc", "key for %s %s and saved to %s in %.1f s", p->name,
                          found == CUZK_OK ? "imported from a bellperson file" : "set up", path,
                          (cuzk_clock_ms() - t0) / 1e3);
            rc = key_open_checked(fk, p, pce, path, out, err, errlen);
        }
    }
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

static void fc_priv_free(struct fc_priv *pv) {
    if (!pv) return;
    if (pv->has_pce) cuzk_pce_free(&pv->pce);
    if (pv->file) cuzk_g16key_close(pv->file);
    cuzk_groth16_keydata_free(&pv->kd);
    free(pv);
}

static int fc_key_load(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *pool,
                       const struct cuzk_kind_load_opts *opts, struct cuzk_kind_key *out, char *err,
                       size_t errlen) {
    struct fc_kind *fk = k->ctx;
    struct cuzk_fc_profile p;
    struct cuzk_builder_counts c;
    int rc = profile_of(fk, key_id, &p, err, errlen);
    if (!rc) rc = counts_of(fk, &p, &c, err, errlen);
    if (rc) return rc;
    struct fc_priv *pv = calloc(1, sizeof *pv);
    if (!pv) return CUZK_ENOMEM;
    memset(out, 0, sizeof *out);
    int host_points = !opts || opts->host_points;
    if (fk->cache_dir && mkdir(fk->cache_dir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create the key cache %s: %s", k->name, fk->cache_dir,
                 strerror(errno));
        rc = CUZK_EIO;
        goto fail;
    }
    if ((rc = cuzk_pce_get(fk->cache_dir, &p, &pv->pce, NULL, err, errlen))) goto fail;
    pv->has_pce = 1;
    if (pv->pce.cs.n_cols != c.n_inputs + c.n_aux || pv->pce.cs.n_public != c.n_inputs - 1) {
        snprintf(err, errlen, "%s: the constraint system of %s does not have the counted shape",
                 k->name, p.name);
        rc = CUZK_EFORMAT;
        goto fail;
    }
    if (fk->cache_dir && pv->pce.checksum) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fc-%s-%016llx.key", fk->cache_dir, p.name,
                 (unsigned long long)pv->pce.checksum);
        /* a key the devices decode is compressed (half the disk and the read); one read into
         * host memory is stored as it is used (decompressing on the CPU costs minutes) */
        if ((rc = key_file_get(fk, &p, &pv->pce, path, !host_points, pool, &pv->file, err, errlen)))
            goto fail;
        rc = cuzk_groth16_keydata_load(&pv->kd, pv->file, pool, host_points, err, errlen);
    } else {
        /* no cache (or the system could not be saved): a key in memory only */
        struct cuzk_keygen_opts ko = {.cs_checksum = pv->pce.checksum, .h_basis = CUZK_H_COEFF};
        rc = cuzk_groth16_keygen_mem(pool, &pv->pce.cs, &ko, &pv->kd, err, errlen);
    }
    if (rc) goto fail;
    if ((rc = cuzk_groth16_pk_from_keydata(&out->pk, &pv->kd, &pv->pce.cs, pv->file))) {
        snprintf(err, errlen, "%s: the key of %s does not fit its constraint system", k->name,
                 p.name);
        goto fail;
    }
    if ((rc = cuzk_groth16_vk_from_pk(&out->vk, &out->pk))) goto fail;
    out->priv = pv;
    return CUZK_OK;
fail:
    fc_priv_free(pv);
    memset(out, 0, sizeof *out);
    if (!err[0] || rc == CUZK_ENOMEM)
        snprintf(err, errlen, "%s: key %s: %s", k->name, key_id, cuzk_strerror(rc));
    return rc;
}

static void fc_key_trim(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    const struct fc_kind *fk = k->ctx;
    struct fc_priv *pv = key->priv;
    if (!pv) return;
    if (pv->file) { /* loaded again from the file when evicted; a key made in memory stays */
        cuzk_groth16_keydata_drop_points(&pv->kd);
        key->pk.a = key->pk.b1 = key->pk.c = key->pk.h = NULL;
        key->pk.b2 = NULL;
    }
    if (!fk->check && pv->has_pce && !key->keep_rows) { /* the devices hold the rows */
        cuzk_pce_free(&pv->pce);
        pv->has_pce = 0;
        key->pk.cs = NULL;
    }
}

static void fc_key_corrupt(const struct cuzk_kind *k, const char *key_id) {
    const struct fc_kind *fk = k->ctx;
    char path[4096];
    if (cuzk_kind_fc_key_path(fk->cache_dir, key_id, path, sizeof path)) return;
    if (!unlink(path))
        cuzk_log_warn("fc", "key file %s is corrupt: removed, the next load sets it up again",
                      path);
}

static void fc_key_free(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    fc_priv_free(key->priv);
    key->priv = NULL;
    cuzk_snarkjs_vk_free(&key->vk);
    memset(&key->pk, 0, sizeof key->pk);
}

/* ---- synthesis -------------------------------------------------------------------------- */

static int fc_synthesize(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                         uint32_t part, struct cuzk_pool *pool, cuzk_fr *w, char *err,
                         size_t errlen) {
    const struct fc_job *j = job;
    const struct fc_priv *pv = key->priv;
    if (part >= j->v.n_parts) return CUZK_EINVAL;
    int rc = cuzk_vanilla_check_part(&j->v, part, err, errlen);
    if (rc) return rc;
    const size_t n_vars = key->pk.n_vars, n_inputs = (size_t)key->pk.n_public + 1;
    struct cuzk_builder b;
    cuzk_fr *wo = NULL;
    size_t wl = 0;
    rc = cuzk_builder_init(&b, CUZK_BUILDER_WITNESS, 1);
    if (!rc) rc = cuzk_builder_use_buffer(&b, w, n_vars, n_inputs);
    if (!rc) rc = cuzk_fc_synthesize(&b, &j->v.profile, cuzk_vanilla_values(&j->v, part));
    if (!rc) rc = cuzk_builder_finish(&b, NULL, &wo, &wl);
    cuzk_builder_free(&b);
    if (!rc && (wo != w || wl != n_vars)) rc = CUZK_ERANGE;
    if (rc) {
        snprintf(err, errlen, "%s: witness of %s: %s%s", k->name, j->v.profile.name,
                 cuzk_strerror(rc),
                 rc == CUZK_ERANGE ? " (the circuit does not match its key: a stale cache?)" : "");
        return rc;
    }
    if (pv && pv->has_pce) {
        size_t bad = 0;
        int ok = cuzk_cs_is_satisfied(pool, &pv->pce.cs, w, &bad);
        if (ok != 1) {
            snprintf(err, errlen, "%s: the witness fails constraint %zu of %s", k->name, bad,
                     j->v.profile.name);
            return ok < 0 ? ok : CUZK_EFORMAT;
        }
    }
    return CUZK_OK;
}

/* ---- the kind --------------------------------------------------------------------------- */

static void fc_destroy(struct cuzk_kind *k) {
    struct fc_kind *fk = k->ctx;
    pthread_mutex_destroy(&fk->mu);
    free(fk->counts);
    free(fk->cache_dir);
    free(fk);
}

int cuzk_kind_fc_create(struct cuzk_kind **out, enum cuzk_fc_kind kind, const char *cache_dir,
                        int check) {
    static const int prio[4] = {CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_HIGH,
                                CUZK_PRIORITY_CRITICAL};
    if ((unsigned)kind > CUZK_FC_WINNING) return CUZK_EINVAL;
    struct fc_kind *fk = calloc(1, sizeof *fk);
    if (!fk) return CUZK_ENOMEM;
    if (cache_dir && !(fk->cache_dir = strdup(cache_dir))) {
        free(fk);
        return CUZK_ENOMEM;
    }
    pthread_mutex_init(&fk->mu, NULL);
    fk->fk = kind;
    fk->check = check;
    fk->k = (struct cuzk_kind){
        .name = names[kind],
        .default_priority = prio[kind],
        .proof_kind = (int)kind + 1, /* POREP_SEAL_COMMIT .. WINNING_POST */
        .label = labels[kind],
        .display = displays[kind],
        .aliases = aliases[kind].a,
        .n_aliases = aliases[kind].n,
        .ctx = fk,
        .job_open = fc_job_open,
        .job_free = fc_job_free,
        .key_of = fc_key_of,
        .key_sizes = fc_key_sizes,
        .key_load = fc_key_load,
        .key_free = fc_key_free,
        .key_trim = fc_key_trim,
        .key_corrupt = fc_key_corrupt,
        .key_cached = fc_key_cached,
        .synthesize = fc_synthesize,
        .verify = NULL,
        .destroy = fc_destroy,
    };
    *out = &fk->k;
    return CUZK_OK;
}
