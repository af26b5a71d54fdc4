/* The Filecoin kinds in the engine, end to end on the CPU backend: synthetic vanilla proofs ->
 * engine job -> proofs that verify against the cached key, with the public inputs the circuit
 * defines (cuzk_vanilla_public_inputs, from the vanilla data alone, checked against the
 * engine's); default priorities; bad input refused at submission; inconsistent data failing
 * its own job only; keys and constraint systems reused from the cache by a second engine.
 *
 * The quick set (PoSt profiles of a few thousand rows) always runs. CUZK_TEST_FC_FULL=1 adds
 * the larger ones, minutes on a small CPU (the development setup and the CPU prover dominate):
 * SnapDeals snap-c1-a2-p1-d3-r1 with 2 partitions (139 K rows, 2^18) and its failing twin,
 * WinningPoSt at its real size (winning-s66, 370,723 rows, 2^19) and PoRep porep-c1-l2-d3-r1
 * with 2 partitions (1.2 M rows, 2^21); each prints its setup and proving times. CI proves
 * those profiles through the daemon instead (tests/daemon/fc_e2e.sh, CTest daemon_fc).
 * CUZK_TEST_FC_CACHE=DIR keeps the keys in DIR between runs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuits/filecoin.h"
#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "engine/kind.h"
#include "formats/g16key.h"
#include "groth16/setup.h"
#include "kinds/fc_kind.h"
#include "kinds/kinds.h"
#include "filecoin/post_proof.h"
#include "filecoin/registered.h"
#include "filecoin/sector.h"
#include "filecoin/snap_proof.h"
#include "filecoin/vanilla.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "test_util.h"
#include "util/log.h"

static char cache[512] = "/tmp/cuzk-test-fc-XXXXXX";
static int kept_cache; /* CUZK_TEST_FC_CACHE: keys of earlier runs */
static int full;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct kinds {
    struct cuzk_kinds *set;
};

/* The last CUZK_TIMING line the engine traced. */
static char timing_line[1024];
static void trace_keep(void *ctx, const char *line) {
    (void)ctx;
    if (!strncmp(line, "CUZK_TIMING ", 12)) snprintf(timing_line, sizeof timing_line, "%s", line);
}

/* setup_policy 1: nothing may be set up (keys must be stored). */
static struct cuzk_engine *engine_new(struct kinds *ks, int setup_policy) {
    struct cuzk_engine_config c;
    cuzk_engine_config_default(&c);
    c.total_budget = (uint64_t)8 << 30;
    c.cpu_threads = 2;
    c.synth_workers = 2;
    c.trace_file = NULL;
    c.trace_fn = trace_keep;
    c.setup_policy = setup_policy;
    struct cuzk_engine *e = NULL;
    char err[256];
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_OK);
    struct cuzk_kinds_config kc;
    cuzk_kinds_config_default(&kc);
    kc.cache_dir = cache;
    kc.filecoin_check = 1;
    CHECK(cuzk_kinds_create(&ks->set, &kc, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_kinds_register(ks->set, e, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    return e;
}

static void engine_del(struct cuzk_engine *e, struct kinds *ks) {
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks->set);
}

/* The file of a generated sector. */
static uint8_t *make_vanilla(const char *profile, uint32_t parts, uint64_t seed, size_t *len,
                             struct cuzk_vanilla *keep) {
    struct cuzk_fc_profile p;
    char err[256];
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    struct cuzk_vanilla v;
    CHECK(cuzk_sector_generate(&p, parts, seed, &v, err, sizeof err) == CUZK_OK);
    uint8_t *b = NULL;
    CHECK(cuzk_vanilla_serialize(&v, &b, len) == CUZK_OK);
    if (keep)
        *keep = v;
    else
        cuzk_vanilla_free(&v);
    return b;
}

/* Checks a DONE result: proofs verify with the cached key, public inputs as expected. */
static void check_result(const struct cuzk_job_result *r, const struct cuzk_vanilla *v) {
    CHECK(r->state == CUZK_JOB_DONE && r->err == CUZK_OK);
    if (r->state != CUZK_JOB_DONE) {
        fprintf(stderr, "job %s: %s\n", r->job_id, r->error);
        return;
    }
    CHECK(r->n_partitions == v->n_parts && !strcmp(r->kind, cuzk_kind_fc_name(v->profile.kind)));
    char path[600], err[256];
    CHECK(cuzk_kind_fc_key_path(cache, v->profile.name, path, sizeof path) == CUZK_OK);
    struct cuzk_g16key *kf = NULL;
    struct cuzk_groth16_keydata kd = {0};
    struct cuzk_snarkjs_vk vk = {0};
    CHECK(cuzk_g16key_open(&kf, path, err, sizeof err) == CUZK_OK);
    /* a development key has h in bellperson's coefficient basis, as a real parameter file:
     * its proofs took the prover path of real parameters (a kept cache may hold older keys in
     * snarkjs's basis, which still prove) */
    if (!kept_cache) CHECK(kf && cuzk_g16key_get_info(kf)->h_basis == CUZK_H_COEFF);
    CHECK(kf && cuzk_groth16_keydata_load(&kd, kf, NULL, 0, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_groth16_vk_from_keydata(&vk, &kd) == CUZK_OK);
    /* the public inputs the circuit defines, from the vanilla values (filecoin/vanilla.h) */
    const size_t cap = cuzk_vanilla_public_count(&v->profile);
    CHECK(cap == vk.n_public);
    cuzk_fr *want = malloc(cap * sizeof *want), *got = malloc(cap * sizeof *got);
    size_t n = 0;
    CHECK(cuzk_vanilla_public_inputs(v, r->n_partitions, want, cap, &n) == CUZK_EINVAL);
    if (cap > 1) CHECK(cuzk_vanilla_public_inputs(v, 0, want, cap - 1, &n) == CUZK_ERANGE);
    for (uint32_t part = 0; part < r->n_partitions; part++) {
        CHECK(cuzk_vanilla_public_inputs(v, part, want, cap, &n) == CUZK_OK);
        CHECK(n == cap && n == r->n_public);
        for (size_t i = 0; i < n && n == r->n_public; i++) {
            CHECK(cuzk_fr_from_bytes_le(&got[i], r->public_inputs + (part * n + i) * 32) ==
                  CUZK_OK);
            CHECK(cuzk_fr_eq(&got[i], &want[i]));
        }
        const uint8_t *b = r->proof + (size_t)part * CUZK_PROOF_BYTES;
        struct cuzk_snarkjs_proof pr;
        CHECK(cuzk_g1_from_compressed(&pr.a, b) == CUZK_OK);
        CHECK(cuzk_g2_from_compressed(&pr.b, b + 48) == CUZK_OK);
        CHECK(cuzk_g1_from_compressed(&pr.c, b + 144) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, want, n, &pr) == 1);
        /* another partition's inputs do not verify */
        cuzk_fr_add(&want[n - 1], &want[n - 1], &want[n - 1]);
        CHECK(cuzk_groth16_verify(&vk, want, n, &pr) == 0);
    }
    free(want);
    free(got);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_groth16_keydata_free(&kd);
    cuzk_g16key_close(kf);
}

/* One job of a generated sector; returns its wall time. */
static double prove_one(struct cuzk_engine *e, const char *profile, uint32_t parts, uint64_t seed) {
    struct cuzk_vanilla v;
    size_t len;
    uint8_t *b = make_vanilla(profile, parts, seed, &len, &v);
    struct cuzk_fc_profile p;
    char err[256];
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    struct cuzk_job_request r = {.kind = cuzk_kind_fc_name(p.kind),
                                 .priority = CUZK_PRIORITY_DEFAULT,
                                 .witness = b,
                                 .witness_len = len};
    struct cuzk_job_result res;
    double t0 = now_ms();
    int rc = cuzk_engine_prove(e, &r, full ? 7200000 : 600000, NULL, &res, err, sizeof err);
    double ms = now_ms() - t0;
    CHECK(rc == CUZK_OK);
    if (rc)
        fprintf(stderr, "%s: %s / %s\n", profile, err, res.error);
    else
        check_result(&res, &v);
    printf("  %-24s x%u: %8.0f ms (srs %.0f, synth %.0f, prove %.0f, verify %.0f)\n", p.name, parts,
           ms, res.timings.srs_ms, res.timings.synth_ms, res.timings.gpu_ms, res.timings.verify_ms);
    cuzk_job_result_free(&res);
    cuzk_vanilla_free(&v);
    free(b);
    return ms;
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void test_bad_input(struct cuzk_engine *e) {
    char err[256];
    size_t len;
    uint8_t *b = make_vanilla("wpost-s2-k2-r2", 1, 21, &len, NULL);
    struct cuzk_job_request r = {
        .kind = "wpost", .priority = CUZK_PRIORITY_DEFAULT, .witness = b, .witness_len = len};
    struct cuzk_submit_info info;
    /* structural damage is refused at submission, with the parser's sentence */
    b[len - 1] ^= 0xff;
    b[len - 2] = 0xff; /* the last field element's top byte: not below r */
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_ENONCANON);
    CHECK(strstr(err, "not below r") != NULL);
    r.witness_len = len - 1;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "truncated") != NULL);
    free(b);
    /* a file of another kind, and a circuit id that disagrees with the file */
    b = make_vanilla("wpost-s2-k2-r2", 1, 21, &len, NULL);
    r.witness_len = len;
    r.witness = b;
    r.kind = "winning";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "wpost") != NULL);
    r.kind = "wpost";
    r.circuit_id = "wpost-s3-k2-r2";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EINVAL);
    r.circuit_id = "porep-c1";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EINVAL);
    r.circuit_id = "wpost-s2-r2-k2"; /* the canonical spelling of the same profile is fine */
    r.witness = NULL;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EINVAL); /* no input */
    free(b);
}

/* A job whose data passes the layout checks but not the consistency checks fails alone; a job
 * of the same profile submitted alongside succeeds. The damage: partition 1's first apex leaf
 * (Snap) or first path sibling (PoSt), re-encoded + 1, still canonical. */
static void test_bad_job_alone(struct cuzk_engine *e, const char *profile, const char *what) {
    char err[256];
    size_t len_bad, len_good;
    struct cuzk_vanilla good_v, v;
    uint8_t *bad = make_vanilla(profile, 2, 31, &len_bad, &v);
    uint8_t *good = make_vanilla(profile, 2, 32, &len_good, &good_v);
    cuzk_fr one, *x = v.profile.kind == CUZK_FC_SNAP
                          ? (cuzk_fr *)v.parts[1].v.snap.apex_leaves
                          : (cuzk_fr *)v.parts[1].v.post.sectors[0].paths;
    cuzk_fr_set_one(&one);
    cuzk_fr_add(&x[0], &x[0], &one);
    free(bad);
    CHECK(cuzk_vanilla_serialize(&v, &bad, &len_bad) == CUZK_OK);
    cuzk_vanilla_free(&v);
    char bad_id[96], good_id[96]; /* unique: a DONE job's id would attach to it */
    snprintf(bad_id, sizeof bad_id, "bad-%s", profile);
    snprintf(good_id, sizeof good_id, "good-%s", profile);
    struct cuzk_job_request rb = {.kind = cuzk_kind_fc_name(good_v.profile.kind),
                                  .request_id = bad_id,
                                  .priority = CUZK_PRIORITY_DEFAULT,
                                  .witness = bad,
                                  .witness_len = len_bad};
    struct cuzk_job_request rg = rb;
    rg.request_id = good_id;
    rg.witness = good;
    rg.witness_len = len_good;
    struct cuzk_submit_info ib, ig;
    CHECK(cuzk_engine_submit(e, &rb, &ib, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_submit(e, &rg, &ig, err, sizeof err) == CUZK_OK);
    struct cuzk_job_result res;
    CHECK(cuzk_engine_await(e, bad_id, 600000, &res) == CUZK_EFORMAT);
    CHECK(res.state == CUZK_JOB_FAILED && res.err == CUZK_EFORMAT);
    CHECK(strstr(res.error, "partition 1") && strstr(res.error, what));
    printf("  bad job: %s\n", res.error);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_await(e, good_id, 600000, &res) == CUZK_OK);
    check_result(&res, &good_v);
    cuzk_job_result_free(&res);
    cuzk_vanilla_free(&good_v);
    free(bad);
    free(good);
}

static char seen[8192]; /* the log lines of one case */
static void log_keep(void *ctx, int level, const char *line) {
    (void)ctx;
    (void)level;
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s\n", line);
}

/* A corrupt or truncated cached key file is found and made again: a point flipped deep in the
 * file (found by the load's chunk checksums: the kind removes the file, the SRS manager loads
 * once more) and a truncated file (refused at open: set up again under the lock). Either way
 * the job proves and the file is whole again. */
static void corrupt_and_prove(const char *profile, const char *damage, uint64_t seed) {
    char path[600], err[256];
    CHECK(cuzk_kind_fc_key_path(cache, profile, path, sizeof path) == CUZK_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    const off_t size = st.st_size;
    if (!strcmp(damage, "flip")) {
        int fd = open(path, O_RDWR);
        uint8_t b = 0;
        const off_t at = size - 4096 - 7; /* inside the last point section (H) */
        CHECK(fd >= 0 && pread(fd, &b, 1, at) == 1);
        b ^= 0x5a;
        CHECK(pwrite(fd, &b, 1, at) == 1);
        close(fd);
    } else {
        CHECK(truncate(path, size / 2) == 0);
    }
    /* a flipped point is found by the load's chunk checksums only; a truncated file at open */
    struct cuzk_g16key *kf = NULL;
    const int orc = cuzk_g16key_open(&kf, path, err, sizeof err);
    CHECK(!strcmp(damage, "flip") ? orc == CUZK_OK : orc != CUZK_OK);
    cuzk_g16key_close(kf);
    seen[0] = 0;
    cuzk_log_set_sink(log_keep, NULL);
    struct kinds ks;
    struct cuzk_engine *e = engine_new(&ks, 0);
    int already = -1;
    CHECK(cuzk_engine_preload(e, cuzk_kind_fc_name(CUZK_FC_WINNING), profile, &already, NULL, err,
                              sizeof err) == CUZK_OK);
    CHECK(already == 0);
    prove_one(e, profile, 1, seed);
    engine_del(e, &ks);
    cuzk_log_set_sink(NULL, NULL);
    /* the damage was found and logged, and the file made again, whole */
    CHECK(strstr(seen, !strcmp(damage, "flip") ? "is corrupt: removed" : "is unusable") != NULL);
    CHECK(strstr(seen, "set up and saved") != NULL);
    CHECK(stat(path, &st) == 0 && st.st_size == size);
    kf = NULL;
    CHECK(cuzk_g16key_open(&kf, path, err, sizeof err) == CUZK_OK);
    struct cuzk_groth16_keydata kd = {0};
    CHECK(kf && cuzk_groth16_keydata_load(&kd, kf, NULL, 1, err, sizeof err) == CUZK_OK);
    cuzk_groth16_keydata_free(&kd);
    cuzk_g16key_close(kf);
    printf("  %s key file (%s): found, made again, proved\n", profile, damage);
}

/* A submission refused with code and a sentence holding says; no job is made. */
static void refused(struct cuzk_engine *e, const struct cuzk_job_request *r, int code,
                    const char *says) {
    struct cuzk_submit_info info;
    char err[320] = "";
    const int rc = cuzk_engine_submit(e, r, &info, err, sizeof err);
    if (rc != code || !strstr(err, says))
        fprintf(stderr, "  refused: rc %d \"%s\"; want %d with \"%s\"\n", rc, err, code, says);
    CHECK(rc == code && strstr(err, says));
}

/* PoSt requests as Filecoin's clients send them: bincode entries with struct cuzk_fc_args.
 * registered_proof 10 (StackedDrgWindow2KiBV1_1) selects wpost-s2-r2 and the randomness must
 * give every challenged leaf; each mismatch is refused at submission with a sentence, a
 * request id reused with other arguments is refused, and the job proves and verifies. */
static void test_curio_post(struct cuzk_engine *e) {
    static uint8_t rep[2][2048];
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 2048; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            rep[s][i] = (uint8_t)(i % 32 == 31 ? x & 0x3f : x); /* field elements */
        }
    struct cuzk_post_sector_input in[2] = {{.sector_id = 5, .replica = rep[0], .len = 2048},
                                           {.sector_id = 9, .replica = rep[1], .len = 2048}};
    cuzk_fr_from_u64(&in[0].comm_c, 77);
    cuzk_fr_from_u64(&in[1].comm_c, 78);
    struct cuzk_fc_registered reg;
    char err[320];
    CHECK(cuzk_fc_registered_get(CUZK_FC_WPOST, 10, &reg, err, sizeof err) == CUZK_OK);
    struct cuzk_fc_args a;
    memset(&a, 0, sizeof a);
    a.registered_proof = 10;
    a.sector_size = 2048;
    a.has_randomness = 1;
    for (int i = 0; i < 32; i++) a.randomness[i] = (uint8_t)(3 * i + 11);
    struct cuzk_post_entries pe;
    CHECK(cuzk_post_entries_make(&reg, in, 2, a.randomness, 0, &pe, err, sizeof err) == CUZK_OK);
    uint8_t *bytes = NULL;
    size_t len = 0;
    CHECK(cuzk_post_entries_write(&pe, 0, pe.n, &bytes, &len) == CUZK_OK);
    cuzk_post_entries_free(&pe);
    const struct cuzk_job_request good = {.kind = "wpost",
                                          .priority = CUZK_PRIORITY_DEFAULT,
                                          .request_id = "curio-wpost-1",
                                          .witness = bytes,
                                          .witness_len = len,
                                          .kind_args = &a,
                                          .kind_args_len = sizeof a};
    struct cuzk_job_request r = good;
    struct cuzk_fc_args b = a;
    r.request_id = NULL;
    r.kind_args = &b;
    b.randomness[0] ^= 1;
    refused(e, &r, CUZK_EINVAL, "randomness: entry 0 (sector 5), inclusion proof 0 is of leaf");
    b = a;
    b.has_randomness = 0;
    refused(e, &r, CUZK_EINVAL, "needs the request's 32-byte randomness");
    b = a;
    b.registered_proof = 14;
    b.sector_size = 64ull << 30;
    refused(e, &r, CUZK_EUNSUPPORTED, "64 GiB sectors");
    b = a;
    b.sector_size = 32ull << 30;
    refused(e, &r, CUZK_EINVAL, "sector_size 34359738368 does not match registered_proof 10");
    b = a;
    b.registered_proof = 13; /* 32 GiB: paths of 10 levels */
    b.sector_size = 0;
    refused(e, &r, CUZK_EINVAL, "a path of 2 levels, the sector's tree has 10");
    b = a;
    b.partition_index = 1; /* api 1.2: the partition does not move the challenges */
    r.kind = "winning";
    refused(e, &r, CUZK_EINVAL, "registered_proof 10 is not a WinningPoSt proof");
    r.kind = "wpost";
    r.kind_args_len = 3;
    refused(e, &r, CUZK_EINVAL, "kind arguments of 3 bytes");
    r.kind_args = NULL;
    r.kind_args_len = 0;
    refused(e, &r, CUZK_EINVAL, "need the request's registered_proof and randomness");
    /* a cuzk vanilla file: registered_proof must name its profile */
    size_t vlen;
    uint8_t *van = make_vanilla("wpost-s2-k2-r2", 1, 31, &vlen, NULL);
    r.witness = van;
    r.witness_len = vlen;
    r.kind_args = &b;
    r.kind_args_len = sizeof b;
    b = a;
    refused(e, &r, CUZK_EINVAL,
            "registered_proof 10 (StackedDrgWindow2KiBV1_1) is circuit wpost-s2-r2; the vanilla "
            "proofs are for wpost-s2-r2-k2");
    free(van);

    /* the job, and its id reused with another randomness (the arguments enter the digest) */
    struct cuzk_submit_info info;
    CHECK(cuzk_engine_submit(e, &good, &info, err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(info.job_id, "curio-wpost-1"));
    r = good;
    b = a;
    b.randomness[5] ^= 0x10;
    r.kind_args = &b;
    refused(e, &r, CUZK_EEXIST, "with other inputs");
    struct cuzk_job_result res;
    const int rc = cuzk_engine_await(e, "curio-wpost-1", 600000, &res);
    if (rc) fprintf(stderr, "  curio wpost job: %s\n", res.error);
    CHECK(rc == CUZK_OK && res.state == CUZK_JOB_DONE && res.proof_len == 192);
    printf("curio-shaped wpost (StackedDrgWindow2KiBV1_1, 2 sectors): proved and verified; 9 "
           "mismatched requests refused\n");
    cuzk_job_result_free(&res);
    free(bytes);
}

/* SnapDeals: the request's comm_r_old / comm_r_new / comm_d_new (struct cuzk_fc_args) must be
 * the vanilla proofs' (the kind's own job_open, no job is run). */
/* The request's three SnapDeals commitments, all carried: a sector's (its partition's). */
static void snap_comms_of(struct cuzk_fc_args *a, const struct cuzk_fc_snap_vanilla *sv) {
    cuzk_fr_to_bytes_le(a->comm_r_old, &sv->comm_r_old);
    cuzk_fr_to_bytes_le(a->comm_r_new, &sv->comm_r_new);
    cuzk_fr_to_bytes_le(a->comm_d_new, &sv->comm_d_new);
    a->has_comm = CUZK_FC_HAS_COMM_R_OLD | CUZK_FC_HAS_COMM_R_NEW | CUZK_FC_HAS_COMM_D_NEW;
}

static void test_snap_comms(struct kinds *ks) {
    const struct cuzk_kind *k = cuzk_kinds_get(ks->set, "snap");
    CHECK(k != NULL);
    if (!k) return;
    struct cuzk_vanilla v;
    size_t len;
    uint8_t *b = make_vanilla("snap-c1-a2-p1-d3-r1", 2, 41, &len, &v);
    struct cuzk_fc_args a;
    memset(&a, 0, sizeof a);
    const struct cuzk_fc_snap_vanilla *sv = &v.parts[0].v.snap;
    snap_comms_of(&a, sv);
    const struct cuzk_job_request r = {.kind = "snap",
                                       .priority = CUZK_PRIORITY_DEFAULT,
                                       .witness = b,
                                       .witness_len = len,
                                       .kind_args = &a,
                                       .kind_args_len = sizeof a};
    void *job = NULL;
    uint32_t parts = 0;
    char key[CUZK_NAME_MAX], err[320];
    CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_OK && parts == 2);
    if (job) k->job_free(k, job);
    const char *names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    uint8_t *fields[3] = {a.comm_r_old, a.comm_r_new, a.comm_d_new};
    for (int i = 0; i < 3; i++) {
        fields[i][0] ^= 1;
        job = NULL;
        const int rc = k->job_open(k, &r, &job, &parts, key, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, names[i]) && strstr(err, "is not the vanilla"));
        if (!rc && job) k->job_free(k, job);
        fields[i][0] ^= 1;
    }
    /* a field the request does not carry is not checked */
    a.comm_d_new[3] ^= 0x40;
    a.has_comm = CUZK_FC_HAS_COMM_R_OLD | CUZK_FC_HAS_COMM_R_NEW;
    job = NULL;
    CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_OK);
    if (job) k->job_free(k, job);
    cuzk_vanilla_free(&v);
    free(b);
}

/* SnapDeals as Filecoin's clients send it: the bincode PartitionProof entries of a sector of the
 * registered proof's profile (StackedDrg8MiBV1 update, 1: snap-c10-d18-r6-p2), written by
 * cuzk_snap_entry_write from a synthetic sector, read back into the same vanilla set (h found from
 * the encoding); the request's comms must be the entries'; a changed comm_c, a position, a
 * truncated entry, an entry too few or too many, a wrong size are refused at submission with the
 * field named. */
static void test_snap_entries(struct kinds *ks) {
    const struct cuzk_kind *k = cuzk_kinds_get(ks->set, "snap");
    CHECK(k != NULL);
    if (!k) return;
    struct cuzk_fc_registered reg;
    char err[400];
    CHECK(cuzk_fc_registered_get(CUZK_FC_SNAP, 1, &reg, err, sizeof err) == CUZK_OK);
    for (uint64_t seed = 50; seed < 56; seed++) { /* seed mod 6: every h */
        struct cuzk_vanilla v;
        CHECK(cuzk_sector_generate(&reg.profile, reg.partitions, seed, &v, err, sizeof err) ==
              CUZK_OK);
        uint8_t *all = NULL;
        size_t n_all = 0, first = 0;
        for (uint32_t q = 0; q < v.n_parts; q++) {
            uint8_t *e;
            size_t n;
            CHECK(cuzk_snap_entry_write(&v, &reg, q, &e, &n) == CUZK_OK);
            all = realloc(all, n_all + n);
            memcpy(all + n_all, e, n);
            n_all += n;
            if (!q) first = n;
            free(e);
        }
        struct cuzk_vanilla back;
        CHECK(cuzk_snap_vanilla_of_entries(all, n_all, &reg, &back, err, sizeof err) == CUZK_OK);
        uint8_t *f1, *f2;
        size_t n1, n2;
        CHECK(cuzk_vanilla_serialize(&v, &f1, &n1) == CUZK_OK);
        CHECK(cuzk_vanilla_serialize(&back, &f2, &n2) == CUZK_OK);
        CHECK(n1 == n2 && !memcmp(f1, f2, n1)); /* the same values, h included */
        CHECK(cuzk_vanilla_check(&back, err, sizeof err) == CUZK_OK);
        free(f1);
        free(f2);
        cuzk_vanilla_free(&back);
        if (seed == 50) {
            printf("snap entries: %s (%s): %u PartitionProof entries of %zu bytes read back into "
                   "the same %u partitions\n",
                   reg.name, reg.profile.name, v.n_parts, first, v.n_parts);
            struct cuzk_fc_args a;
            memset(&a, 0, sizeof a);
            a.registered_proof = 1;
            a.sector_size = 8 << 20;
            const struct cuzk_fc_snap_vanilla *sv = &v.parts[0].v.snap;
            snap_comms_of(&a, sv);
            struct cuzk_job_request r = {.kind = "snap",
                                         .priority = CUZK_PRIORITY_DEFAULT,
                                         .witness = all,
                                         .witness_len = n_all,
                                         .kind_args = &a,
                                         .kind_args_len = sizeof a};
            void *job = NULL;
            uint32_t parts = 0;
            char key[CUZK_NAME_MAX];
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_OK &&
                  parts == reg.partitions && !strcmp(key, reg.profile.name));
            if (job) k->job_free(k, job);
            a.comm_d_new[0] ^= 1;
            job = NULL;
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "comm_d_new"));
            a.comm_d_new[0] ^= 1;
            /* the wrong size, and entries that are not the sector's */
            a.sector_size = 2048;
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "sector_size"));
            a.sector_size = 8 << 20;
            /* comm_c (bytes 0..32) is only in comm_r's hashes: a changed byte changes
             * comm_r_new, so the challenges (and the request's comm_r_new) no longer fit */
            all[0] ^= 1;
            a.has_comm = 0;
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "challenge"));
            all[0] ^= 1;
            r.witness_len = first; /* partition 0's entry alone */
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "1 PartitionProof entries") && strstr(err, "4 partitions"));
            r.witness_len = n_all - 1;
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EFORMAT &&
                  strstr(err, "truncated"));
            r.witness_len = n_all;
            /* a position byte of the first proof_r_old path: after comm_c, the apex count and
             * leaves, the challenge count, the u32 variant, root, leaf, the level count, the
             * level's hash count and 7 hashes */
            const size_t at =
                32 + 8 + (size_t)reg.profile.apex_leaves * 32 + 8 + 4 + 64 + 8 + 8 + 7 * 32;
            all[at] = (uint8_t)((all[at] + 1) % 8);
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "of nodes"));
            all[at] = (uint8_t)((all[at] + 7) % 8);
            uint8_t *two = malloc(2 * n_all);
            memcpy(two, all, n_all);
            memcpy(two + n_all, all, n_all);
            r.witness = two;
            r.witness_len = 2 * n_all;
            CHECK(k->job_open(k, &r, &job, &parts, key, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "after the"));
            free(two);
        }
        free(all);
        cuzk_vanilla_free(&v);
    }
}

int main(void) {
    test_init("test_fc_kind");
    /* CUZK_TEST_FC_CACHE=DIR keeps keys between runs (the full set's setups take minutes) */
    const char *keep = getenv("CUZK_TEST_FC_CACHE");
    kept_cache = keep && *keep;
    if (kept_cache)
        snprintf(cache, sizeof cache, "%s", keep);
    else
        CHECK(mkdtemp(cache) != NULL);
    full = getenv("CUZK_TEST_FC_FULL") && atoi(getenv("CUZK_TEST_FC_FULL"));
    struct kinds ks;
    struct cuzk_engine *e = engine_new(&ks, 0);
    /* kind names and cuzk's default priorities */
    const int prio[4] = {CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_HIGH,
                         CUZK_PRIORITY_CRITICAL};
    for (int i = 0; i < 4; i++) {
        const struct cuzk_kind *k = cuzk_kinds_get(ks.set, cuzk_kind_fc_name((enum cuzk_fc_kind)i));
        CHECK(k && k == cuzk_engine_kind(e, k->name));
        CHECK(k && k->default_priority == prio[i] && k->proof_kind == i + 1);
    }
    /* the reference cuzk's names: label values, Display names, circuit ids (cuzk-behaviour.md
     * 2.7, 2.10); each id with a circuit names a canonical profile (the key id), the 64 GiB ones
     * none, with a reason */
    static const char *const labels[4] = {"porep_c2", "snap_update", "window_post", "winning_post"};
    static const char *const displays[4] = {"porep-c2", "snap-update", "window-post",
                                            "winning-post"};
    static const struct {
        const char *id, *circuit;
    } ids[] = {{"porep-32g", "porep-c18"},   {"porep-64g", NULL},
               {"wpost-32g", "wpost-s2349"}, {"winning-32g", "winning-s66"},
               {"snap-32g", "snap-c86"},     {"snap-64g", NULL}};
    for (int i = 0; i < 4; i++) {
        const struct cuzk_kind *k = cuzk_kinds_get(ks.set, cuzk_kind_fc_name((enum cuzk_fc_kind)i));
        CHECK(k && !strcmp(cuzk_kind_label(k), labels[i]) &&
              !strcmp(cuzk_kind_display(k), displays[i]));
    }
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const struct cuzk_kind_alias *a = NULL;
        const struct cuzk_kind *owner = NULL;
        for (int j = 0; j < 4 && !a; j++) {
            owner = cuzk_kinds_get(ks.set, cuzk_kind_fc_name((enum cuzk_fc_kind)j));
            a = cuzk_kind_alias_find(owner, ids[i].id);
        }
        CHECK(a != NULL);
        if (!a) continue;
        if (!ids[i].circuit) {
            CHECK(!a->circuit && a->why && strstr(a->why, "8-8-2"));
            continue;
        }
        char key[CUZK_NAME_MAX], kerr[128];
        CHECK(a->circuit && !strcmp(a->circuit, ids[i].circuit));
        CHECK(owner->key_of(owner, a->circuit, key, kerr, sizeof kerr) == CUZK_OK &&
              !strcmp(key, a->circuit));
        CHECK(!strcmp(cuzk_kind_alias_of(owner, a->circuit), ids[i].id));
        /* the same circuit as the newest registered proof of a 32 GiB sector of that kind
         * (filecoin/registered.h): the two tables cannot drift apart */
        struct cuzk_fc_registered reg;
        CHECK(cuzk_fc_registered_for_size((enum cuzk_fc_kind)(owner->proof_kind - 1), 32ull << 30,
                                          &reg, kerr, sizeof kerr) == CUZK_OK &&
              !strcmp(reg.profile.name, a->circuit));
    }
    printf("first engine (keys set up):\n");
    prove_one(e, "wpost-s2-k2-r2", 2, 1);
    prove_one(e, "winning-s4-r3", 1, 2);
    test_bad_input(e);
    test_bad_job_alone(e, "wpost-s2-k2-r2", "comm_r_last");
    test_curio_post(e);
    test_snap_comms(&ks);
    test_snap_entries(&ks);
    if (full) {
        prove_one(e, "snap-c1-a2-p1-d3-r1", 2, 3);
        test_bad_job_alone(e, "snap-c1-a2-p1-d3-r1", "apex");
        prove_one(e, "winning-s66", 1, 6);
        prove_one(e, "porep-c1-l2-d3-r1", 2, 4);
    }
    /* preload by circuit id: already loaded */
    int already = -1;
    char err[256];
    CHECK(cuzk_engine_preload(e, "wpost", "wpost-s2-r2-k2", &already, NULL, err, sizeof err) ==
          CUZK_OK);
    CHECK(already == 1);
    CHECK(cuzk_engine_preload(e, "wpost", "snap-c1", &already, NULL, err, sizeof err) ==
          CUZK_EINVAL);
    engine_del(e, &ks);

    /* a second engine finds the keys and constraint systems in the cache */
    printf("second engine (keys from the cache; none may be set up):\n");
    e = engine_new(&ks, 1);
    double t0 = now_ms();
    CHECK(cuzk_engine_preload(e, "winning", "winning-s4-r3", &already, NULL, err, sizeof err) ==
          CUZK_OK);
    CHECK(already == 0);
    printf("  winning-s4-r3 key from the cache in %.0f ms\n", now_ms() - t0);
    /* a profile with no stored key is refused under the policy, before it is counted */
    t0 = now_ms();
    CHECK(cuzk_engine_preload(e, "winning", "winning-s5-r3", &already, NULL, err, sizeof err) ==
          CUZK_EDENIED);
    CHECK(strstr(err, "winning:winning-s5-r3") != NULL);
    CHECK(now_ms() - t0 < 1000);
    prove_one(e, "winning-s4-r3", 1, 7);
    /* the job's CUZK_TIMING line names its profile as the circuit */
    CHECK(strstr(timing_line, " kind=winning circuit=winning-s4-r3 state=done ") != NULL);
    prove_one(e, "wpost-s2-k2-r2", 1, 8);
    engine_del(e, &ks);

    printf("damaged key files:\n");
    corrupt_and_prove("winning-s4-r3", "flip", 9);
    corrupt_and_prove("winning-s4-r3", "truncate", 10);

    if (!(keep && *keep)) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
        if (system(cmd)) {
        }
    }
    return test_finish();
}
