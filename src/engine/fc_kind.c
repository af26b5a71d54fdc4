/* DESIGN: a job owns its parsed vanilla proofs (struct cuzk_vanilla, decoded at submit); a key
 * owns the zkey, the prepared pk and vk and, when checking, the recorded constraint system. The
 * kind's only shared state is the counts cache (profile name -> counts) under its mutex, so
 * that key_sizes, called at every submission, runs a profile's COUNT pass at most once. */
#define _GNU_SOURCE
#include "engine/fc_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "filecoin/vanilla.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "util/log.h"
#include "util/pool.h"

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

struct fc_priv {
    struct cuzk_pce pce; /* when checking */
    int has_pce;
};

static const char *const names[4] = {"porep", "snap", "wpost", "winning"};

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

static uint32_t domain_of(const struct cuzk_builder_counts *c) {
    /* the development setup's domain: 2^(floor(log2(constraints + nPublic)) + 1) */
    uint64_t d = 1, need = c->constraints + (c->n_inputs - 1);
    while (d <= need) d <<= 1;
    return d > UINT32_MAX ? 0 : (uint32_t)d;
}

/* ---- jobs ------------------------------------------------------------------------------- */

static int read_path(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return CUZK_EIO;
    }
    uint8_t *b = NULL;
    size_t n = 0, cap = 0;
    int rc = CUZK_OK;
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(b, cap = cap ? 2 * cap : 1 << 16);
            if (!nb) {
                rc = CUZK_ENOMEM;
                break;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        if (!got) break;
        n += got;
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "cannot read %s", path);
        rc = CUZK_EIO;
    }
    fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    *len = n;
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
    struct fc_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ENOMEM;
    uint8_t *owned = NULL;
    const void *bytes = req->witness;
    size_t len = req->witness_len;
    int rc = CUZK_OK;
    if (req->witness_path) {
        if ((rc = read_path(req->witness_path, &owned, &len, err, errlen))) goto fail;
        bytes = owned;
    }
    rc = cuzk_vanilla_parse(&j->v, bytes, len, err, errlen);
    free(owned);
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

int cuzk_kind_fc_zkey_path(const char *cache_dir, const char *profile, char *out, size_t cap) {
    char path[4096], lerr[256];
    struct cuzk_builder_counts c;
    uint64_t sum;
    if (!cache_dir) return CUZK_ENOTFOUND;
    cuzk_pce_path(cache_dir, profile, path, sizeof path);
    if (cuzk_pce_read_counts(path, profile, &c, &sum, lerr, sizeof lerr)) return CUZK_ENOTFOUND;
    snprintf(out, cap, "%s/fc-%s-%016llx.zkey", cache_dir, profile, (unsigned long long)sum);
    return CUZK_OK;
}

/* The size of the cached key of a profile, when there is one for its current system. */
static int zkey_cached(const struct fc_kind *fk, const char *profile, uint64_t *size) {
    char path[4096];
    struct stat st;
    if (cuzk_kind_fc_zkey_path(fk->cache_dir, profile, path, sizeof path) || stat(path, &st))
        return 0;
    *size = (uint64_t)st.st_size;
    return 1;
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
    uint32_t domain = domain_of(&c);
    if (n_vars > UINT32_MAX || !domain) {
        snprintf(err, errlen, "%s: %s is too large for a key", k->name, p.name);
        return CUZK_ERANGE;
    }
    out->n_vars = (uint32_t)n_vars;
    out->n_public = (uint32_t)(c.n_inputs - 1);
    out->domain_size = domain;
    out->key_bytes =
        cuzk_kind_zkey_bytes(out->n_vars, out->n_public, domain, c.nnz[0] + c.nnz[1] + c.n_inputs);
    const uint64_t pce = cuzk_pce_bytes(&c);
    out->cs_bytes = fk->check ? pce : 0;
    /* a cached key is read from its file; otherwise the constraint system is loaded or
     * recorded (its recording needs about its own size again), copied into an r1cs, and the
     * setup allocates its tables: the Lagrange evaluations (32 n), the QAP columns (96 n_vars)
     * and the fixed-base tables */
    uint64_t zsize;
    if (zkey_cached(fk, p.name, &zsize))
        out->load_scratch = zsize + (fk->check ? pce : 0);
    else
        out->load_scratch = (fk->check ? 2 : 3) * pce + 32 * (uint64_t)domain + 96 * n_vars +
                            (4u << 20) + (uint64_t)cuzk_cpu_count() * (1u << 20);
    /* the builder's boolean bitmap and its small per-gadget buffers */
    out->synth_scratch = c.n_aux / 8 + (1u << 20);
    return CUZK_OK;
}

/* Under the key's lock file: the cached zkey at path if present, else the setup of pce (saved
 * to path). path NULL = no cache. */
static int zkey_locked(struct fc_kind *fk, const struct cuzk_fc_profile *p, const char *path,
                       const struct cuzk_pce *pce, struct cuzk_pool *pool, struct cuzk_zkey *z,
                       char *err, size_t errlen) {
    char lock[4200], tmp[4300], lerr[256] = "";
    int rc, fd = -1;
    struct stat st;
    if (path) {
        snprintf(lock, sizeof lock, "%s.lock", path);
        fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            snprintf(err, errlen, "%s: cannot open %s: %s", fk->k.name, lock, strerror(errno));
            return CUZK_EIO;
        }
        while (flock(fd, LOCK_EX) && errno == EINTR) {
        }
        if (!stat(path, &st)) {
            /* our own file: curve checks, no subgroup checks */
            struct cuzk_zkey_opts opts = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_SKIP};
            rc = cuzk_zkey_load(z, path, &opts, lerr, sizeof lerr);
            if (!rc) goto done;
            if (!pce) { /* set it up again once the caller has the system */
                rc = CUZK_ENOTFOUND;
                goto done;
            }
            cuzk_log_warn("fc", "cached key %s is unusable (%s): setting it up again", path, lerr);
        }
    }
    rc = CUZK_ENOTFOUND; /* the caller brings the system and asks again */
    if (!pce) goto done;
    struct cuzk_r1cs r;
    if ((rc = cuzk_pce_to_r1cs(pce, &r))) {
        snprintf(err, errlen, "%s: %s: %s", fk->k.name, p->name, cuzk_strerror(rc));
        goto done;
    }
    rc = cuzk_groth16_setup(pool, &r, NULL, z, err, errlen);
    cuzk_r1cs_free(&r);
    if (rc || !path) goto done;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int wrc = cuzk_zkey_save(tmp, z, lerr, sizeof lerr);
    if (!wrc && rename(tmp, path)) wrc = CUZK_EIO, unlink(tmp);
    if (wrc)
        cuzk_log_warn("fc", "cannot cache key %s: %s", path, lerr);
    else
        cuzk_log_info("fc", "key for %s saved to %s", p->name, path);
done:
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
        if (rc == CUZK_ENOTFOUND && !pce) err[0] = 0;
    }
    return rc;
}

/* The profile's key: the cached one made from the current constraint system (named by its
 * checksum, so a key of a stale system is never used), or a new setup. The system is loaded
 * or recorded only when needed (*have_pce then says so). */
static int zkey_get(struct fc_kind *fk, const struct cuzk_fc_profile *p, struct cuzk_pce *pce,
                    int *have_pce, struct cuzk_pool *pool, struct cuzk_zkey *z, char *err,
                    size_t errlen) {
    char path[4096];
    if (fk->cache_dir && mkdir(fk->cache_dir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create the key cache %s: %s", fk->k.name, fk->cache_dir,
                 strerror(errno));
        return CUZK_EIO;
    }
    if (!*have_pce && !cuzk_kind_fc_zkey_path(fk->cache_dir, p->name, path, sizeof path)) {
        int rc = zkey_locked(fk, p, path, NULL, pool, z, err, errlen);
        if (rc != CUZK_ENOTFOUND) return rc;
    }
    if (!*have_pce) {
        int rc = cuzk_pce_get(fk->cache_dir, p, pce, NULL, err, errlen);
        if (rc) return rc;
        *have_pce = 1;
    }
    /* no cache, or the system could not be saved: a key in memory only */
    int cached = fk->cache_dir && pce->checksum;
    if (cached)
        snprintf(path, sizeof path, "%s/fc-%s-%016llx.zkey", fk->cache_dir, p->name,
                 (unsigned long long)pce->checksum);
    return zkey_locked(fk, p, cached ? path : NULL, pce, pool, z, err, errlen);
}

static int fc_key_load(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *pool,
                       struct cuzk_kind_key *out, char *err, size_t errlen) {
    struct fc_kind *fk = k->ctx;
    struct cuzk_fc_profile p;
    struct cuzk_builder_counts c;
    int rc = profile_of(fk, key_id, &p, err, errlen);
    if (!rc) rc = counts_of(fk, &p, &c, err, errlen);
    if (rc) return rc;
    struct fc_priv *pv = calloc(1, sizeof *pv);
    if (!pv) return CUZK_ENOMEM;
    memset(out, 0, sizeof *out);
    if (fk->check && (rc = cuzk_pce_get(fk->cache_dir, &p, &pv->pce, NULL, err, errlen))) goto fail;
    pv->has_pce = fk->check;
    rc = zkey_get(fk, &p, &pv->pce, &pv->has_pce, pool, &out->zkey, err, errlen);
    if (rc) goto fail;
    if (out->zkey.n_vars != c.n_inputs + c.n_aux || out->zkey.n_public != c.n_inputs - 1) {
        snprintf(err, errlen,
                 "%s: the key of %s has %u variables / %u public inputs, the circuit %llu / "
                 "%llu (a stale cache?)",
                 k->name, p.name, out->zkey.n_vars, out->zkey.n_public,
                 (unsigned long long)(c.n_inputs + c.n_aux), (unsigned long long)(c.n_inputs - 1));
        cuzk_zkey_free(&out->zkey);
        rc = CUZK_EFORMAT;
        goto fail;
    }
    if ((rc = cuzk_kind_key_prepare(out))) {
        cuzk_zkey_free(&out->zkey);
        goto fail;
    }
    if (!fk->check && pv->has_pce) { /* only needed for the setup */
        cuzk_pce_free(&pv->pce);
        pv->has_pce = 0;
    }
    out->priv = pv;
    return CUZK_OK;
fail:
    if (pv->has_pce) cuzk_pce_free(&pv->pce);
    free(pv);
    if (!err[0] || rc == CUZK_ENOMEM)
        snprintf(err, errlen, "%s: key %s: %s", k->name, key_id, cuzk_strerror(rc));
    return rc;
}

static void fc_key_free(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    struct fc_priv *pv = key->priv;
    if (pv && pv->has_pce) cuzk_pce_free(&pv->pce);
    free(pv);
    key->priv = NULL;
    cuzk_kind_key_release(key);
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
    const size_t n_vars = key->zkey.n_vars, n_inputs = (size_t)key->zkey.n_public + 1;
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
        .ctx = fk,
        .job_open = fc_job_open,
        .job_free = fc_job_free,
        .key_of = fc_key_of,
        .key_sizes = fc_key_sizes,
        .key_load = fc_key_load,
        .key_free = fc_key_free,
        .synthesize = fc_synthesize,
        .verify = NULL,
        .destroy = fc_destroy,
    };
    *out = &fk->k;
    return CUZK_OK;
}
