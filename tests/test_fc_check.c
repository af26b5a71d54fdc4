/* The preflight for real Filecoin parameters (kinds/fc_check.h) on parameter files cuzk's own
 * setup writes in bellperson's format for the 2 KiB WindowPoSt circuit (wpost-s2-r2), with a
 * synthetic sector's vanilla file as the input:
 *   a match: the counts fit, a partition proved with the .params verifies with the .vk;
 *   the header check: a WinningPoSt input (another circuit, same file name pattern) against
 *     the WindowPoSt files, and a .params whose a vector lacks one point (ic, l, h fit);
 *   the vk check: a .vk with one ic point less;
 *   the proof check: the same .params with its l vector rotated by one point (every count
 *     fits, the points belong to other wires: what a circuit with another variable order
 *     gives), which only the pairing check finds;
 *   bad input, each an error with a sentence, never a verdict: a .vk of another setup, a
 *     truncated .params, a .params with a byte appended, a garbage .vk, a missing file, an
 *     empty and a garbage input, a partition the input does not hold. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "filecoin/sector.h"
#include "formats/bellperson.h"
#include "groth16/bpkey.h"
#include "groth16/setup.h"
#include "kinds/fc_check.h"
#include "test_util.h"

static struct cuzk_pool *pool;
static char dir[] = "/tmp/cuzk-test-fc-check-XXXXXX";

static void path_of(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) exit(1);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = test_xmalloc(*len);
    CHECK(fread(b, 1, *len, f) == *len);
    fclose(f);
    return b;
}

static void spill(const char *path, const void *b, size_t len) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
}

/* A synthetic sector's vanilla file of a profile (one partition). */
static uint8_t *vanilla_of(const char *profile, uint64_t seed, size_t *len) {
    struct cuzk_fc_profile p;
    struct cuzk_vanilla v;
    char err[256];
    uint8_t *b = NULL;
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_sector_generate(&p, 1, seed, &v, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_vanilla_serialize(&v, &b, len) == CUZK_OK);
    cuzk_vanilla_free(&v);
    return b;
}

/* Runs the check; returns its code, the report in *r and the sentence in err. */
static int run(const char *params, const char *vk, const void *in, size_t len,
               enum cuzk_fc_kind kind, uint32_t part, struct cuzk_fc_check_report *r, char *err,
               size_t errlen) {
    char pp[256], vp[256];
    path_of(pp, sizeof pp, params);
    path_of(vp, sizeof vp, vk);
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, 7);
    /* the subgroup checks of the key's points would be most of the test's time */
    struct cuzk_fc_check_opts o = {.kind = kind,
                                   .partition = part,
                                   .check = CUZK_CHECK_NO_SUBGROUP,
                                   .pool = pool,
                                   .rng = &rng,
                                   .out = stdout};
    printf("-- check-params %s %s\n", params, vk);
    int rc = cuzk_fc_check_params(pp, vp, in, len, &o, r, err, errlen);
    if (rc)
        printf("error: %s\n", err);
    else if (r->verdict != CUZK_FC_CHECK_MATCH)
        printf("MISMATCH (%s): %s\n", cuzk_fc_check_name(r->verdict), r->why);
    return rc;
}

static void test_check(void) {
    char err[1024], path[256];
    CHECK(mkdtemp(dir) != NULL);
    /* the files of a development key of the 2 KiB WindowPoSt circuit, as cuzk setup-params
     * writes them */
    struct cuzk_fc_profile p;
    struct cuzk_pce pce;
    struct cuzk_groth16_keydata kd;
    CHECK(cuzk_fc_profile_parse("wpost-s2-r2", &p, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_pce_get(NULL, &p, &pce, NULL, err, sizeof err) == CUZK_OK);
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, 43);
    struct cuzk_keygen_opts ko = {
        .setup = {.gpu = CUZK_SETUP_GPU_OFF}, .rng = &rng, .h_basis = CUZK_H_COEFF};
    CHECK(cuzk_groth16_keygen_mem(pool, &pce.cs, &ko, &kd, err, sizeof err) == CUZK_OK);
    path_of(path, sizeof path, "w.params");
    CHECK(cuzk_bpkey_write_params(&kd, path, err, sizeof err) == CUZK_OK);
    path_of(path, sizeof path, "w.vk");
    CHECK(cuzk_bpkey_write_vk(&kd, path, err, sizeof err) == CUZK_OK);
    size_t wlen, nlen;
    uint8_t *wpost = vanilla_of("wpost-s2-r2", 5, &wlen);
    uint8_t *winning = vanilla_of("winning-s66-r2", 6, &nlen);
    struct cuzk_fc_check_report r;

    /* a match */
    CHECK(run("w.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) == CUZK_OK);
    CHECK(r.verdict == CUZK_FC_CHECK_MATCH && !strcmp(r.profile, "wpost-s2-r2"));
    CHECK(r.counts.n_inputs == 23 && r.n_parts == 1 && r.partition == 0);

    /* the header: WinningPoSt's circuit against WindowPoSt's files */
    CHECK(run("w.params", "w.vk", winning, nlen, CUZK_FC_WINNING, 0, &r, err, sizeof err) ==
          CUZK_OK);
    CHECK(r.verdict == CUZK_FC_CHECK_HEADER && strstr(r.why, "winning-s66-r2") &&
          strstr(r.why, "ic holds 23 points, the system has 132 public inputs") &&
          strstr(r.why, "parameters of another circuit"));

    /* the header: one a point less (ic, l and h fit: found against the system's density) */
    struct cuzk_bp_params bp;
    path_of(path, sizeof path, "w.params");
    CHECK(cuzk_bp_params_open(&bp, path, CUZK_CHECK_ALL, err, sizeof err) == CUZK_OK);
    const struct cuzk_g16key_info *in = &kd.info;
    struct cuzk_bp_query q = {.h = kd.h,
                              .n_h = in->domain_size - 1,
                              .l = kd.c,
                              .n_l = (size_t)in->n_vars - in->n_public - 1,
                              .a = kd.a,
                              .n_a = in->n_a - 1,
                              .b_g1 = kd.b1,
                              .n_b_g1 = in->n_b,
                              .b_g2 = kd.b2,
                              .n_b_g2 = in->n_b};
    path_of(path, sizeof path, "short-a.params");
    FILE *f = fopen(path, "wb");
    CHECK(f && cuzk_bp_params_write(f, &bp.vk, &q, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    CHECK(run("short-a.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_OK);
    CHECK(r.verdict == CUZK_FC_CHECK_HEADER && strstr(r.why, "a holds") &&
          strstr(r.why, "non-empty A column"));

    /* the vk: one ic point less */
    struct cuzk_bp_vk vk = bp.vk;
    vk.n_ic--;
    path_of(path, sizeof path, "short.vk");
    f = fopen(path, "wb");
    CHECK(f && cuzk_bp_vk_write(f, &vk, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    CHECK(run("w.params", "short.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_OK);
    CHECK(r.verdict == CUZK_FC_CHECK_VK && strstr(r.why, "22 ic points") &&
          strstr(r.why, "another circuit"));

    /* the proof: l rotated by one point, every count as before */
    size_t plen;
    path_of(path, sizeof path, "w.params");
    uint8_t *pb = slurp(path, &plen);
    const size_t l_at = bp.offset[CUZK_BP_L], l_n = bp.count[CUZK_BP_L];
    CHECK(l_n > 2 && l_at + l_n * CUZK_G1_UNCOMPRESSED <= plen);
    uint8_t first[CUZK_G1_UNCOMPRESSED];
    memcpy(first, pb + l_at, sizeof first);
    memmove(pb + l_at, pb + l_at + sizeof first, (l_n - 1) * sizeof first);
    memcpy(pb + l_at + (l_n - 1) * sizeof first, first, sizeof first);
    path_of(path, sizeof path, "rotated.params");
    spill(path, pb, plen);
    CHECK(run("rotated.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_OK);
    CHECK(r.verdict == CUZK_FC_CHECK_PROOF && strstr(r.why, "does not verify") &&
          strstr(r.why, "orders (or constrains) its variables differently"));

    /* bad input: a .vk of another setup (another delta_g2) */
    vk = bp.vk;
    test_g2_random(&vk.delta2);
    path_of(path, sizeof path, "other.vk");
    f = fopen(path, "wb");
    CHECK(f && cuzk_bp_vk_write(f, &vk, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    CHECK(run("w.params", "other.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_EINVAL);
    CHECK(strstr(err, "delta_g2 differs") && strstr(err, "different setups"));

    /* bad input: truncated, one byte appended, garbage, missing */
    path_of(path, sizeof path, "cut.params");
    spill(path, pb, plen - 1);
    CHECK(run("cut.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_EFORMAT);
    CHECK(strstr(err, "truncated") != NULL);
    pb = realloc(pb, plen + 1);
    CHECK(pb != NULL);
    pb[plen] = 0;
    path_of(path, sizeof path, "long.params");
    spill(path, pb, plen + 1);
    CHECK(run("long.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_EFORMAT);
    CHECK(strstr(err, "follow") != NULL);
    uint8_t junk[1500];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (uint8_t)cuzk_rng_u64(&test_rng);
    path_of(path, sizeof path, "junk.vk");
    spill(path, junk, sizeof junk);
    int rc = run("w.params", "junk.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "junk.vk") != NULL);
    CHECK(run("none.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 0, &r, err, sizeof err) ==
          CUZK_EIO);
    CHECK(strstr(err, "none.params: cannot open") != NULL);
    CHECK(run("w.params", "w.vk", wpost, 0, CUZK_FC_WPOST, 0, &r, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    rc = run("w.params", "w.vk", junk, sizeof junk, CUZK_FC_WPOST, 0, &r, err, sizeof err);
    CHECK(rc < 0 && err[0]);
    CHECK(run("w.params", "w.vk", wpost, wlen, CUZK_FC_WPOST, 1, &r, err, sizeof err) ==
          CUZK_EINVAL);
    CHECK(strstr(err, "partition 1 asked, the input holds 1 partition") != NULL);

    free(pb);
    free(wpost);
    free(winning);
    cuzk_bp_params_close(&bp);
    cuzk_groth16_keydata_free(&kd);
    cuzk_pce_free(&pce);
    static const char *const names[] = {"w.params",   "w.vk",           "short-a.params",
                                        "short.vk",   "rotated.params", "other.vk",
                                        "cut.params", "long.params",    "junk.vk"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        path_of(path, sizeof path, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void) {
    test_init("test_fc_check");
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    test_check();
    cuzk_pool_destroy(pool);
    return test_finish();
}
