/* The bodies of the cuzk-bench gen-vanilla and synth-only commands (filecoin/tools.h). */
#include "filecoin/tools.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/builder.h"
#include "circuits/filecoin.h"
#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "filecoin/sector.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "util/pool.h"
#include "util/clock.h"

/* A profile name, or a bare kind for the real shape. */
static int profile_from(const char *name, struct cuzk_fc_profile *p, char *err, size_t errlen) {
    static const char *const kinds[4] = {"porep", "snap", "wpost", "winning"};
    for (int k = 0; k < 4; k++)
        if (name && !strcmp(name, kinds[k])) {
            cuzk_fc_profile_default((enum cuzk_fc_kind)k, p);
            return cuzk_fc_profile_check(p, err, errlen);
        }
    char perr[160];
    if (!name || cuzk_fc_profile_parse(name, p, perr, sizeof perr)) {
        snprintf(err, errlen, "\"%s\" is not a profile: %s", name ? name : "",
                 name ? perr : "none given");
        return CUZK_EINVAL;
    }
    return CUZK_OK;
}

int cuzk_vanilla_generate(const char *profile_name, unsigned partitions, uint64_t seed,
                          const char *out_path, struct cuzk_vanilla_gen_info *info, char *err,
                          size_t errlen) {
    struct cuzk_fc_profile p;
    double t0 = cuzk_clock_ms();
    int rc = profile_from(profile_name, &p, err, errlen);
    if (rc) return rc;
    if (!partitions) partitions = cuzk_sector_default_partitions(&p);
    struct cuzk_vanilla v;
    if ((rc = cuzk_sector_generate(&p, partitions, seed, &v, err, errlen))) return rc;
    rc = cuzk_vanilla_write_file(&v, out_path, err, errlen);
    cuzk_vanilla_free(&v);
    if (!rc && info) {
        snprintf(info->profile, sizeof info->profile, "%s", p.name);
        info->partitions = partitions;
        info->bytes = CUZK_VANILLA_HEADER_BYTES + partitions * (8 + cuzk_vanilla_part_bytes(&p));
        info->ms = cuzk_clock_ms() - t0;
    }
    return rc;
}

int cuzk_fc_synth_only(const char *profile_name, const char *vanilla_path, unsigned iters,
                       const char *cache_dir, unsigned threads, FILE *out, char *err,
                       size_t errlen) {
    struct cuzk_fc_profile p;
    int rc = profile_from(profile_name, &p, err, errlen);
    if (rc) return rc;
    if (!iters) iters = 1;
    struct cuzk_vanilla v;
    if (vanilla_path) {
        if ((rc = cuzk_vanilla_read_file(&v, vanilla_path, err, errlen))) return rc;
        if (strcmp(v.profile.name, p.name)) {
            snprintf(err, errlen, "%s holds %s, not %s", vanilla_path, v.profile.name, p.name);
            cuzk_vanilla_free(&v);
            return CUZK_EINVAL;
        }
    } else if ((rc = cuzk_sector_generate(&p, 1, 1, &v, err, errlen))) {
        return rc;
    }
    struct cuzk_pool *pool = NULL;
    struct cuzk_pce pce = {0};
    cuzk_fr *w = NULL, *abc = NULL;
    int loaded = 0;
    double t0 = cuzk_clock_ms();
    if ((rc = cuzk_pool_create(&pool, threads, "synth-only"))) {
        snprintf(err, errlen, "cannot start threads: %s", cuzk_strerror(rc));
        goto out;
    }
    if ((rc = cuzk_pce_get(cache_dir, &p, &pce, &loaded, err, errlen))) goto out;
    const struct cuzk_builder_counts *c = &pce.counts;
    fprintf(out,
            "synth-only %s: rows=%llu inputs=%llu aux=%llu nnz=%llu/%llu/%llu pce=%s "
            "pce_ms=%.1f threads=%u\n",
            p.name, (unsigned long long)c->constraints, (unsigned long long)c->n_inputs,
            (unsigned long long)c->n_aux, (unsigned long long)c->nnz[0],
            (unsigned long long)c->nnz[1], (unsigned long long)c->nnz[2],
            loaded ? "loaded" : "recorded", cuzk_clock_ms() - t0, cuzk_pool_size(pool));
    const size_t n_vars = pce.cs.n_cols, rows = pce.cs.n_rows;
    w = malloc(n_vars * sizeof *w);
    abc = malloc(3 * (rows ? rows : 1) * sizeof *abc);
    if (!w || !abc) {
        snprintf(err, errlen, "out of memory for the witness and A w, B w, C w");
        rc = CUZK_ENOMEM;
        goto out;
    }
    double sum_w = 0, sum_s = 0;
    unsigned runs = 0, unsat = 0;
    for (uint32_t part = 0; part < v.n_parts; part++)
        for (unsigned it = 0; it < iters; it++) {
            double a = cuzk_clock_ms();
            struct cuzk_builder b;
            cuzk_fr *wo = NULL;
            size_t wl = 0;
            rc = cuzk_builder_init(&b, CUZK_BUILDER_WITNESS, 1);
            if (!rc) rc = cuzk_builder_use_buffer(&b, w, n_vars, (size_t)c->n_inputs);
            if (!rc) rc = cuzk_fc_synthesize(&b, &p, cuzk_vanilla_values(&v, part));
            if (!rc) rc = cuzk_builder_finish(&b, NULL, &wo, &wl);
            cuzk_builder_free(&b);
            if (!rc && wl != n_vars) rc = CUZK_ERANGE;
            if (rc) {
                snprintf(err, errlen, "partition %u: witness: %s", part, cuzk_strerror(rc));
                goto out;
            }
            double m = cuzk_clock_ms();
            if ((rc = cuzk_cs_eval(pool, &pce.cs, w, abc, abc + rows, abc + 2 * rows))) {
                snprintf(err, errlen, "partition %u: SpMV: %s", part, cuzk_strerror(rc));
                goto out;
            }
            double e = cuzk_clock_ms();
            int sat = 1;
            for (size_t r = 0; r < rows && sat; r++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &abc[r], &abc[rows + r]);
                sat = cuzk_fr_eq(&t, &abc[2 * rows + r]);
            }
            unsat += !sat;
            fprintf(out, "partition=%u iter=%u witness_ms=%.1f spmv_ms=%.1f satisfied=%s\n", part,
                    it, m - a, e - m, sat ? "yes" : "no");
            sum_w += m - a, sum_s += e - m, runs++;
        }
    fprintf(out, "summary: runs=%u witness_ms_avg=%.1f spmv_ms_avg=%.1f\n", runs, sum_w / runs,
            sum_s / runs);
    rc = unsat ? CUZK_EVERIFY : CUZK_OK;
    if (unsat) snprintf(err, errlen, "%u runs gave an unsatisfied witness", unsat);
out:
    free(w);
    free(abc);
    cuzk_pce_free(&pce);
    if (pool) cuzk_pool_destroy(pool);
    cuzk_vanilla_free(&v);
    return rc;
}
