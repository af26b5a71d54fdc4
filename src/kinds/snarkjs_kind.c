#define _GNU_SOURCE
#include "kinds/snarkjs_kind.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/error.h"
#include "kinds/zkey_key.h"
#include "formats/binfile.h"
#include "formats/fmt.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "r1cs/cs.h"

struct circuit {
    char id[CUZK_NAME_MAX];
    char *zkey_path, *r1cs_path;
    uint32_t n_vars, n_public, domain_size, n_coefs;
    uint64_t zkey_file, r1cs_file;
};

struct snarkjs_kind {
    struct cuzk_kind k;
    pthread_mutex_t mu; /* guards the table */
    struct circuit *c;
    size_t n, cap;
};

struct snarkjs_job {
    const uint8_t *bytes; /* the .wtns, held by the engine with the job (keeps_input), or NULL */
    size_t len;
    char *path;
};

struct snarkjs_priv {
    struct cuzk_cs cs;
    int has_cs;
};

/* under mu; copies the entry out so that the table may grow meanwhile */
static int lookup(struct snarkjs_kind *sk, const char *id, struct circuit *out) {
    int rc = CUZK_ENOTFOUND;
    pthread_mutex_lock(&sk->mu);
    for (size_t i = 0; i < sk->n; i++)
        if (!strcmp(sk->c[i].id, id)) {
            *out = sk->c[i];
            rc = CUZK_OK;
            break;
        }
    pthread_mutex_unlock(&sk->mu);
    return rc;
}

/* The sizes from the zkey header: section 2 (n8q, q, n8r, r, nVars, nPublic, domainSize)
 * and the coefficient count opening section 4. */
static int read_zkey_header(struct circuit *c, char *err, size_t errlen) {
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_open(&bf, c->zkey_path, "zkey", 1, err, errlen);
    if (rc) return rc;
    const struct cuzk_binfile_section *s2, *s4;
    if (!(rc = cuzk_binfile_require(&bf, 2, "header", &s2, err, errlen)) &&
        !(rc = cuzk_binfile_require(&bf, 4, "coefficients", &s4, err, errlen))) {
        const uint32_t off = 4 + 48 + 4 + 32;
        if (s2->size < off + 12 || s4->size < 4) {
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "zkey: %s: header too short", c->zkey_path);
        } else {
            const uint8_t *p = cuzk_binfile_ptr(&bf, s2) + off;
            c->n_vars = cuzk_fmt_le32(p);
            c->n_public = cuzk_fmt_le32(p + 4);
            c->domain_size = cuzk_fmt_le32(p + 8);
            c->n_coefs = cuzk_fmt_le32(cuzk_binfile_ptr(&bf, s4));
            c->zkey_file = bf.size;
            if (c->n_vars < c->n_public + 1 || !c->domain_size)
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "zkey: %s: inconsistent header",
                               c->zkey_path);
        }
    }
    cuzk_binfile_close(&bf);
    return rc;
}

int cuzk_kind_snarkjs_add(struct cuzk_kind *k, const char *circuit_id, const char *zkey_path,
                          const char *r1cs_path, char *err, size_t errlen) {
    struct snarkjs_kind *sk = k->ctx;
    if (!circuit_id || !*circuit_id || strlen(circuit_id) >= CUZK_NAME_MAX || !zkey_path) {
        snprintf(err, errlen, "snarkjs: a circuit needs an id (< %d characters) and a zkey",
                 CUZK_NAME_MAX);
        return CUZK_EINVAL;
    }
    struct circuit c = {0};
    strcpy(c.id, circuit_id);
    if (!(c.zkey_path = strdup(zkey_path)) || (r1cs_path && !(c.r1cs_path = strdup(r1cs_path)))) {
        free(c.zkey_path);
        return CUZK_ENOMEM;
    }
    int rc = read_zkey_header(&c, err, errlen);
    struct stat st;
    if (!rc && r1cs_path) {
        if (stat(r1cs_path, &st)) {
            snprintf(err, errlen, "snarkjs: cannot read %s", r1cs_path);
            rc = CUZK_EIO;
        } else {
            c.r1cs_file = (uint64_t)st.st_size;
        }
    }
    if (!rc) {
        pthread_mutex_lock(&sk->mu);
        for (size_t i = 0; i < sk->n && !rc; i++)
            if (!strcmp(sk->c[i].id, circuit_id)) rc = CUZK_EEXIST;
        if (!rc && sk->n == sk->cap) {
            size_t cap = sk->cap ? 2 * sk->cap : 8;
            struct circuit *nc = realloc(sk->c, cap * sizeof *nc);
            if (nc)
                sk->c = nc, sk->cap = cap;
            else
                rc = CUZK_ENOMEM;
        }
        if (!rc) sk->c[sk->n++] = c;
        pthread_mutex_unlock(&sk->mu);
        if (rc == CUZK_EEXIST) snprintf(err, errlen, "snarkjs: circuit %s exists", circuit_id);
    }
    if (rc) {
        free(c.zkey_path);
        free(c.r1cs_path);
    }
    return rc;
}

static int sj_job_open(const struct cuzk_kind *k, const struct cuzk_job_request *req, void **job,
                       uint32_t *n_partitions, char key_id[CUZK_NAME_MAX], char *err,
                       size_t errlen) {
    struct snarkjs_kind *sk = k->ctx;
    struct circuit c;
    if (!req->circuit_id || lookup(sk, req->circuit_id, &c)) {
        snprintf(err, errlen, "snarkjs: unknown circuit \"%s\"",
                 req->circuit_id ? req->circuit_id : "");
        return CUZK_EINVAL;
    }
    if (!req->witness == !req->witness_path || (req->witness && !req->witness_len)) {
        snprintf(err, errlen, "snarkjs: a job needs a witness: .wtns bytes or a path, not both");
        return CUZK_EINVAL;
    }
    /* the witness's shape is checked now, so that a wrong file never waits for a key or for
     * memory (its values are checked in synthesis) */
    uint32_t n_w = 0;
    char werr[200];
    int rc =
        cuzk_wtns_peek(req->witness, req->witness_len, req->witness_path, &n_w, werr, sizeof werr);
    if (rc) {
        snprintf(err, errlen, "snarkjs: %s", werr);
        return rc;
    }
    if (n_w != c.n_vars) {
        snprintf(err, errlen, "snarkjs: the witness has %u values, circuit %s has %u wires", n_w,
                 c.id, c.n_vars);
        return CUZK_EINVAL;
    }
    struct snarkjs_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ENOMEM;
    if (req->witness) {
        j->bytes = req->witness;
        j->len = req->witness_len;
    } else {
        j->path = strdup(req->witness_path);
    }
    if (!j->bytes && !j->path) {
        free(j);
        return CUZK_ENOMEM;
    }
    *job = j;
    *n_partitions = 1;
    strcpy(key_id, c.id);
    return CUZK_OK;
}

static void sj_job_free(const struct cuzk_kind *k, void *job) {
    (void)k;
    struct snarkjs_job *j = job;
    if (!j) return;
    free(j->path);
    free(j);
}

static int sj_key_sizes(const struct cuzk_kind *k, const char *key_id, struct cuzk_kind_sizes *out,
                        char *err, size_t errlen) {
    struct circuit c;
    if (lookup(k->ctx, key_id, &c)) {
        snprintf(err, errlen, "snarkjs: unknown circuit \"%s\"", key_id);
        return CUZK_ENOTFOUND;
    }
    memset(out, 0, sizeof *out);
    out->n_vars = c.n_vars;
    out->n_public = c.n_public;
    out->domain_size = c.domain_size;
    out->key_bytes = cuzk_kind_zkey_bytes(c.n_vars, c.n_public, c.domain_size, c.n_coefs);
    /* the CSR holds at most the file's terms (36 bytes each there too) plus 24 bytes of row
     * pointers per constraint, which the file spends at least 12 bytes on */
    out->cs_bytes = 2 * c.r1cs_file;
    /* the mapped zkey, and the mapped r1cs with its parsed arrays */
    out->load_scratch = c.zkey_file + 3 * c.r1cs_file;
    out->hot_load = out->key_bytes + out->cs_bytes + out->load_scratch;
    out->hot_keep = cuzk_kind_zkey_hot_bytes(c.n_public) + out->cs_bytes;
    out->hot_rows = cuzk_kind_zkey_rows_bytes(c.domain_size, c.n_coefs);
    /* the parsed witness (32 bytes a value) and, for a path, its mapped file */
    out->synth_scratch = 2 * (uint64_t)c.n_vars * sizeof(cuzk_fr) + 4096;
    return CUZK_OK;
}

static int sj_key_load(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *pool,
                       const struct cuzk_kind_load_opts *lopts, struct cuzk_kind_key *out,
                       char *err, size_t errlen) {
    (void)lopts; /* the zkey is read whole; key_trim frees the points once the devices hold it */
    struct circuit c;
    if (lookup(k->ctx, key_id, &c)) {
        snprintf(err, errlen, "snarkjs: unknown circuit \"%s\"", key_id);
        return CUZK_ENOTFOUND;
    }
    memset(out, 0, sizeof *out);
    struct snarkjs_priv *pv = calloc(1, sizeof *pv);
    if (!pv) return CUZK_ENOMEM;
    struct cuzk_zkey_opts opts = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_AUTO};
    int rc = cuzk_zkey_load(&out->zkey, c.zkey_path, &opts, err, errlen);
    if (!rc && c.r1cs_path) {
        struct cuzk_r1cs r;
        rc = cuzk_r1cs_load(&r, c.r1cs_path, err, errlen);
        if (!rc) {
            if (r.n_wires != out->zkey.n_vars || cuzk_r1cs_n_public(&r) != out->zkey.n_public) {
                snprintf(err, errlen, "snarkjs: %s does not match %s (wires or public inputs)",
                         c.r1cs_path, c.zkey_path);
                rc = CUZK_EINVAL;
            } else if (!(rc = cuzk_r1cs_to_cs(&r, &pv->cs))) {
                pv->has_cs = 1;
            }
            cuzk_r1cs_free(&r);
        }
    }
    if (!rc) rc = cuzk_kind_key_prepare(out);
    if (rc) {
        if (pv->has_cs) cuzk_cs_free(&pv->cs);
        free(pv);
        cuzk_zkey_free(&out->zkey);
        if (!err[0]) snprintf(err, errlen, "snarkjs: key %s: %s", key_id, cuzk_strerror(rc));
        return rc;
    }
    out->priv = pv;
    return CUZK_OK;
}

static void sj_key_trim(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    cuzk_kind_key_trim_zkey(key);
}

static void sj_key_free(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    struct snarkjs_priv *pv = key->priv;
    if (pv && pv->has_cs) cuzk_cs_free(&pv->cs);
    free(pv);
    key->priv = NULL;
    cuzk_kind_key_release(key);
}

static int sj_synthesize(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                         uint32_t part, struct cuzk_pool *pool, cuzk_fr *w, char *err,
                         size_t errlen) {
    (void)k;
    const struct snarkjs_job *j = job;
    const struct snarkjs_priv *pv = key->priv;
    if (part != 0) return CUZK_EINVAL;
    struct cuzk_wtns wt = {0};
    int rc = j->bytes ? cuzk_wtns_parse(&wt, j->bytes, j->len, err, errlen)
                      : cuzk_wtns_load(&wt, j->path, err, errlen);
    if (rc) return rc;
    if (wt.n != key->zkey.n_vars) {
        snprintf(err, errlen, "snarkjs: the witness has %u values, the circuit %u", wt.n,
                 key->zkey.n_vars);
        rc = CUZK_EINVAL;
    } else if (!cuzk_fr_is_one(&wt.w[0])) {
        snprintf(err, errlen, "snarkjs: the witness does not start with 1");
        rc = CUZK_EINVAL;
    } else {
        memcpy(w, wt.w, (size_t)wt.n * sizeof *w);
    }
    cuzk_wtns_free(&wt);
    if (!rc && pv->has_cs) {
        size_t bad = 0;
        int ok = cuzk_cs_is_satisfied(pool, &pv->cs, w, &bad);
        if (ok != 1) {
            snprintf(err, errlen, "snarkjs: the witness fails constraint %zu", bad);
            rc = ok < 0 ? ok : CUZK_EINVAL;
        }
    }
    return rc;
}

static void sj_destroy(struct cuzk_kind *k) {
    struct snarkjs_kind *sk = k->ctx;
    for (size_t i = 0; i < sk->n; i++) {
        free(sk->c[i].zkey_path);
        free(sk->c[i].r1cs_path);
    }
    free(sk->c);
    pthread_mutex_destroy(&sk->mu);
    free(sk);
}

int cuzk_kind_snarkjs_create(struct cuzk_kind **out) {
    struct snarkjs_kind *sk = calloc(1, sizeof *sk);
    if (!sk) return CUZK_ENOMEM;
    pthread_mutex_init(&sk->mu, NULL);
    sk->k = (struct cuzk_kind){
        .name = "snarkjs",
        .default_priority = CUZK_PRIORITY_NORMAL,
        .ctx = sk,
        .keeps_input = 1,
        .job_open = sj_job_open,
        .job_free = sj_job_free,
        .key_sizes = sj_key_sizes,
        .key_load = sj_key_load,
        .key_free = sj_key_free,
        .key_trim = sj_key_trim,
        .synthesize = sj_synthesize,
        .verify = NULL,
        .destroy = sj_destroy,
    };
    *out = &sk->k;
    return CUZK_OK;
}
