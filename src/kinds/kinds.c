/* The kind set (contract: kinds.h). */
#include "kinds/kinds.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/error.h"
#include "kinds/fc_kind.h"
#include "kinds/snarkjs_kind.h"
#include "kinds/synthetic.h"
#include "util/file.h"
#include "util/log.h"

#define KINDS_MAX 8

struct cuzk_kinds {
    struct cuzk_kind *k[KINDS_MAX];
    size_t n;
};

void cuzk_kinds_config_default(struct cuzk_kinds_config *c) {
    memset(c, 0, sizeof *c);
    c->synthetic_partitions = 10;
    c->synthetic_check = 1;
    c->filecoin_check = 0;
    c->filecoin = 1;
}

int cuzk_kinds_create(struct cuzk_kinds **out, const struct cuzk_kinds_config *c, char *err,
                      size_t errlen) {
    struct cuzk_kinds_config def;
    if (!c) cuzk_kinds_config_default(&def), c = &def;
    *out = NULL;
    struct cuzk_kinds *ks = calloc(1, sizeof *ks);
    if (!ks) return CUZK_ENOMEM;
    const char *cache = c->cache_dir && *c->cache_dir ? c->cache_dir : NULL; /* "" = none */
    if (cache) { /* the temporary files of writers killed mid-write (key files, PCE files) */
        unsigned removed = 0;
        uint64_t bytes = 0;
        char why[512];
        const int crc = cuzk_file_clean_stale_tmp(cache, &removed, &bytes, why, sizeof why);
        if (crc == CUZK_EIO) cuzk_log_warn("kinds", "cache not cleaned: %s", why);
        if (removed)
            cuzk_log_warn("kinds",
                          "%s: removed %u temporary file(s) of %llu bytes left by a writer that "
                          "died mid-write",
                          cache, removed, (unsigned long long)bytes);
    }
    int rc = cuzk_kind_synthetic_create(&ks->k[ks->n], cache, c->synthetic_partitions,
                                        c->synthetic_check);
    if (!rc) {
        cuzk_kind_synthetic_set_max_setup(ks->k[ks->n], c->synthetic_max_setup);
        cuzk_kind_synthetic_set_max_cache(ks->k[ks->n++], c->synthetic_max_cache);
    }
    if (!rc && !(rc = cuzk_kind_snarkjs_create(&ks->k[ks->n]))) ks->n++;
    for (int f = CUZK_FC_POREP; f <= CUZK_FC_WINNING && !rc && c->filecoin; f++)
        if (!(rc = cuzk_kind_fc_create(&ks->k[ks->n], (enum cuzk_fc_kind)f, cache,
                                       c->filecoin_check)))
            ks->n++;
    if (rc) {
        snprintf(err, errlen, "kinds: %s", cuzk_strerror(rc));
        cuzk_kinds_destroy(ks);
        return rc;
    }
    *out = ks;
    return CUZK_OK;
}

int cuzk_kinds_register(struct cuzk_kinds *ks, struct cuzk_engine *e, char *err, size_t errlen) {
    for (size_t i = 0; i < ks->n; i++) {
        int rc = cuzk_engine_register_kind(e, ks->k[i]);
        if (rc) {
            snprintf(err, errlen, "kinds: cannot register %s: %s", ks->k[i]->name,
                     cuzk_strerror(rc));
            return rc;
        }
    }
    return CUZK_OK;
}

struct cuzk_kind *cuzk_kinds_get(struct cuzk_kinds *ks, const char *name) {
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i]->name, name)) return ks->k[i];
    return NULL;
}

int cuzk_kinds_add_snarkjs(struct cuzk_kinds *ks, const char *circuit_id, const char *zkey_path,
                           const char *r1cs_path, char *err, size_t errlen) {
    struct cuzk_kind *k = cuzk_kinds_get(ks, "snarkjs");
    if (!k) {
        snprintf(err, errlen, "kinds: no snarkjs kind");
        return CUZK_ENOTFOUND;
    }
    return cuzk_kind_snarkjs_add(k, circuit_id, zkey_path, r1cs_path, err, errlen);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cuzk_kinds_add_snarkjs_dir(struct cuzk_kinds *ks, const char *dir, size_t *added, char *err,
                               size_t errlen) {
    if (added) *added = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        snprintf(err, errlen, "snarkjs.dir %s: %s", dir, strerror(errno));
        return CUZK_EIO;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int rc = CUZK_OK;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l <= 5 || strcmp(de->d_name + l - 5, ".zkey")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = CUZK_ENOMEM;
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = CUZK_ENOMEM;
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc) snprintf(err, errlen, "snarkjs.dir %s: out of memory", dir);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !rc; i++) {
        char id[CUZK_NAME_MAX], zkey[4096], r1cs[4096], cerr[256] = "";
        size_t l = strlen(names[i]) - 5;
        if (l >= sizeof id) {
            cuzk_log_warn("kinds", "snarkjs.dir: %s: the circuit id is too long, skipped",
                          names[i]);
            continue;
        }
        snprintf(id, sizeof id, "%.*s", (int)l, names[i]);
        snprintf(zkey, sizeof zkey, "%s/%s", dir, names[i]);
        snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", dir, id);
        struct stat st;
        int has_r1cs = stat(r1cs, &st) == 0;
        rc = cuzk_kinds_add_snarkjs(ks, id, zkey, has_r1cs ? r1cs : NULL, cerr, sizeof cerr);
        if (rc) {
            snprintf(err, errlen, "snarkjs circuit %s: %s", id, cerr[0] ? cerr : cuzk_strerror(rc));
            break;
        }
        cuzk_log_info("kinds", "snarkjs circuit %s: %s%s", id, zkey,
                      has_r1cs ? " (witnesses checked against the .r1cs)" : "");
        if (added) (*added)++;
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

void cuzk_kinds_destroy(struct cuzk_kinds *ks) {
    if (!ks) return;
    for (size_t i = 0; i < ks->n; i++)
        if (ks->k[i]->destroy) ks->k[i]->destroy(ks->k[i]);
    free(ks);
}
