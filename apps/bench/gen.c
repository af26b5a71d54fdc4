/* gen: makes a proving fixture (circuit + key + witness) on this machine, without a daemon.
 *
 *   from circom output:  --r1cs C.r1cs --wtns C.wtns [--zkey C.zkey]
 *       checks that the witness satisfies the constraints, takes the given key (checked
 *       against the circuit) or makes one with the INSECURE development setup, and writes
 *       <out>/<name>.{r1cs,wtns,zkey}: the layout of the daemon's snarkjs.dir, where the
 *       circuit becomes id <name> of the "snarkjs" kind.
 *   synthetic:           --synthetic N[K|M] [--seed S]
 *       the engine's synthetic circuit of N constraints: <out>/synthetic-<N>.zkey (the name of
 *       the engine's key cache, so the daemon finds it in srs.param_cache instead of making
 *       it), and <out>/synthetic-<N>.wtns, the witness of partition 0 for seed S: the pair is
 *       also a fixture of the "snarkjs" kind (circuit id synthetic-<N>, no .r1cs).
 * Keys from the development setup are for tests and benchmarks only: whoever ran the setup
 * could forge proofs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cuzk/error.h"
#include "kinds/synthetic.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "r1cs/cs.h"
#include "util/pool.h"
#include "util/rand.h"

static int fail(const char *what, int rc, const char *msg) {
    fprintf(stderr, "cuzk-bench: gen: %s: %s\n", what, msg && *msg ? msg : cuzk_strerror(rc));
    return rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
}

static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Copies src to dst (unless they are the same file) through a temporary name. */
static int copy_file(const char *src, const char *dst) {
    if (same_file(src, dst)) return BENCH_OK;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    FILE *in = fopen(src, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
    int ok = in && out;
    char buf[1 << 16];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in && ferror(in)) ok = 0;
    if (in) fclose(in);
    if (out && fclose(out)) ok = 0;
    if (ok && rename(tmp, dst) == 0) return BENCH_OK;
    int e = errno;
    remove(tmp);
    fprintf(stderr, "cuzk-bench: gen: cannot copy %s to %s: %s\n", src, dst, strerror(e));
    return BENCH_ERROR;
}

static int make_dir(const char *d) {
    if (mkdir(d, 0755) == 0 || errno == EEXIST) return BENCH_OK;
    fprintf(stderr, "cuzk-bench: gen: cannot create %s: %s\n", d, strerror(errno));
    return BENCH_ERROR;
}

/* The name of a circuit: the r1cs file's base name without its extension. */
static void base_name(const char *path, char *out, size_t n) {
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(out, n, "%s", s);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
}

static void warn_insecure(void) {
    fprintf(stderr, "cuzk-bench: WARNING: INSECURE development setup: whoever ran it could forge "
                    "proofs with this key;\ncuzk-bench: use it for tests and benchmarks only.\n");
}

/* A key for r: the development setup, deterministic when a seed is given. */
static int dev_setup(struct cuzk_pool *pool, const struct cuzk_r1cs *r, const struct bench_args *a,
                     const char *path) {
    char err[512] = "";
    struct cuzk_zkey z = {0};
    struct cuzk_rng rng;
    if (a->seed_set) cuzk_rng_seed(&rng, a->seed);
    warn_insecure();
    double t0 = bench_now_ms();
    int rc = cuzk_groth16_setup(pool, r, a->seed_set ? &rng : NULL, &z, err, sizeof err);
    if (rc == CUZK_OK) rc = cuzk_zkey_save(path, &z, err, sizeof err);
    cuzk_zkey_free(&z);
    if (rc) return fail(path, rc, err);
    fprintf(stderr, "cuzk-bench: gen: key made in %.1f s\n", (bench_now_ms() - t0) / 1e3);
    return BENCH_OK;
}

static int check_witness(struct cuzk_pool *pool, const struct cuzk_r1cs *r, const cuzk_fr *w,
                         uint32_t n, const char *what) {
    if (n != r->n_wires) {
        fprintf(stderr, "cuzk-bench: gen: %s has %u values, the circuit has %u wires\n", what, n,
                r->n_wires);
        return BENCH_ERROR;
    }
    struct cuzk_cs cs;
    if (cuzk_r1cs_to_cs(r, &cs)) return fail("constraint system", CUZK_ENOMEM, NULL);
    size_t bad = 0;
    int sat = cuzk_cs_is_satisfied(pool, &cs, w, &bad);
    cuzk_cs_free(&cs);
    if (sat == 1) return BENCH_OK;
    if (sat == 0)
        fprintf(stderr, "cuzk-bench: gen: %s does not satisfy constraint %zu of the circuit\n",
                what, bad);
    else
        fail(what, sat, NULL);
    return BENCH_ERROR;
}

static int gen_r1cs(struct cuzk_pool *pool, const struct bench_args *a, const char *dir) {
    char err[512] = "", name[256], p_r1cs[4096], p_wtns[4096], p_zkey[4096];
    base_name(a->name ? a->name : a->r1cs, name, sizeof name);
    snprintf(p_r1cs, sizeof p_r1cs, "%s/%s.r1cs", dir, name);
    snprintf(p_wtns, sizeof p_wtns, "%s/%s.wtns", dir, name);
    snprintf(p_zkey, sizeof p_zkey, "%s/%s.zkey", dir, name);
    struct cuzk_r1cs r = {0};
    struct cuzk_wtns wt = {0};
    struct cuzk_zkey z = {0};
    int rc;
    if ((rc = cuzk_r1cs_load(&r, a->r1cs, err, sizeof err))) {
        rc = fail(a->r1cs, rc, err);
        goto out;
    }
    if ((rc = cuzk_wtns_load(&wt, a->wtns, err, sizeof err))) {
        rc = fail(a->wtns, rc, err);
        goto out;
    }
    if ((rc = check_witness(pool, &r, wt.w, wt.n, a->wtns))) goto out;
    if (a->zkey) {
        struct cuzk_zkey_opts zo = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_AUTO};
        if ((rc = cuzk_zkey_load(&z, a->zkey, &zo, err, sizeof err))) {
            rc = fail(a->zkey, rc, err);
            goto out;
        }
        uint64_t need = (uint64_t)r.n_constraints + cuzk_r1cs_n_public(&r) + 1;
        if (z.n_vars != r.n_wires || z.n_public != cuzk_r1cs_n_public(&r) || z.domain_size < need) {
            fprintf(stderr,
                    "cuzk-bench: gen: %s is not a key for %s (key: %u wires, %u public, domain "
                    "%u; circuit: %u wires, %u public, %u constraints)\n",
                    a->zkey, a->r1cs, z.n_vars, z.n_public, z.domain_size, r.n_wires,
                    cuzk_r1cs_n_public(&r), r.n_constraints);
            rc = BENCH_ERROR;
            goto out;
        }
        if ((rc = copy_file(a->zkey, p_zkey))) goto out;
    } else if ((rc = dev_setup(pool, &r, a, p_zkey))) {
        goto out;
    }
    if ((rc = copy_file(a->r1cs, p_r1cs)) || (rc = copy_file(a->wtns, p_wtns))) goto out;
    printf("fixture:  %s (%u constraints, %u wires, %u public)\n", p_r1cs, r.n_constraints,
           r.n_wires, cuzk_r1cs_n_public(&r));
    printf("          %s\n", p_wtns);
    printf("          %s (%s)\n", p_zkey, a->zkey ? "given key" : "development setup");
    printf("daemon:   [snarkjs] dir = \"%s\"   (circuit id \"%s\")\n", dir, name);
    printf("prove:    cuzk-bench single -t snarkjs --circuit %s --witness %s\n", name, p_wtns);
out:
    cuzk_zkey_free(&z);
    cuzk_wtns_free(&wt);
    cuzk_r1cs_free(&r);
    return rc;
}

/* N with an optional K or M suffix (binary), as the synthetic kind's circuit ids. */
static int parse_constraints(const char *s, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return -1;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (*end || v < CUZK_SYNTH_MIN_CONSTRAINTS || v > CUZK_SYNTH_MAX_CONSTRAINTS) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int gen_synthetic(struct cuzk_pool *pool, const struct bench_args *a, const char *dir) {
    uint32_t n;
    if (parse_constraints(a->synthetic, &n)) {
        fprintf(stderr,
                "cuzk-bench: gen: --synthetic wants a constraint count from %u to %u "
                "(K and M suffixes allowed)\n",
                CUZK_SYNTH_MIN_CONSTRAINTS, CUZK_SYNTH_MAX_CONSTRAINTS);
        return BENCH_USAGE;
    }
    char err[512] = "", base[4096], p_zkey[4200], p_wtns[4200];
    snprintf(base, sizeof base, "%s/synthetic-%u", dir, n);
    snprintf(p_zkey, sizeof p_zkey, "%s.zkey", base);
    snprintf(p_wtns, sizeof p_wtns, "%s.wtns", base);
    struct cuzk_synth_shape shape;
    struct cuzk_r1cs r = {0};
    cuzk_fr *w = NULL;
    int rc;
    if ((rc = cuzk_synth_shape(n, &shape))) return fail("synthetic", rc, NULL);
    if ((rc = cuzk_synth_r1cs(&shape, &r))) {
        rc = fail("synthetic circuit", rc, NULL);
        goto out;
    }
    if (!(w = malloc((size_t)shape.n_vars * sizeof *w))) {
        rc = fail("witness", CUZK_ENOMEM, NULL);
        goto out;
    }
    /* partition 0 of a synthetic job with this seed proves exactly this witness */
    uint64_t seed = a->seed_set ? a->seed : 0;
    cuzk_synth_witness(&shape, cuzk_synth_partition_seed(seed, 0), w);
    if ((rc = check_witness(pool, &r, w, shape.n_vars, "the synthetic witness"))) goto out;
    if ((rc = cuzk_wtns_save(p_wtns, w, shape.n_vars, err, sizeof err))) {
        rc = fail(p_wtns, rc, err);
        goto out;
    }
    if ((rc = dev_setup(pool, &r, a, p_zkey))) goto out;
    printf("fixture:  %s (%u constraints, %u wires, %u public, domain %u)\n", p_zkey,
           shape.n_constraints, shape.n_vars, shape.n_public, shape.domain_size);
    printf("          %s (seed %llu, partition 0)\n", p_wtns, (unsigned long long)seed);
    printf("daemon:   [srs] param_cache = \"%s\"   (synthetic kind, circuit id \"%u\")\n", dir, n);
    printf("          [snarkjs] dir = \"%s\"   (snarkjs kind, circuit id \"synthetic-%u\")\n", dir,
           n);
    printf("prove:    cuzk-bench single -t synthetic --circuit %ux1 --seed %llu\n", n,
           (unsigned long long)seed);
out:
    free(w);
    cuzk_r1cs_free(&r);
    return rc;
}

int bench_cmd_gen(const struct bench_args *a) {
    if (!a->synthetic == !a->r1cs || (a->r1cs && !a->wtns)) {
        fprintf(stderr, "cuzk-bench: gen needs either --r1cs FILE --wtns FILE [--zkey FILE] or "
                        "--synthetic N\n");
        return BENCH_USAGE;
    }
    const char *dir = a->out_dir ? a->out_dir : ".";
    int rc = make_dir(dir);
    if (rc) return rc;
    struct cuzk_pool *pool = NULL;
    if (cuzk_pool_create(&pool, a->threads, "gen") != CUZK_OK)
        return fail("thread pool", CUZK_ENOMEM, NULL);
    rc = a->synthetic ? gen_synthetic(pool, a, dir) : gen_r1cs(pool, a, dir);
    cuzk_pool_destroy(pool);
    return rc;
}
