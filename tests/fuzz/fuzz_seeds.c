/* Writes the seed corpus of one libFuzzer harness into a directory: the seeds that cannot be
 * committed because their bytes follow from the code (a PCE file holds the circuit
 * fingerprint; vanilla proofs and keys come from cuzk's own writers, so they track the format),
 * or that are requests built around such files. scripts/fuzz.sh runs it next to copying the
 * committed seeds and the repository's sample files (docs/fuzzing.md lists them).
 *
 *   usage: fuzz_seeds NAME DIR     NAME: a harness (fuzz_NAME); exit 0 with nothing written
 *                                  for a harness whose seeds are all files of the repository
 *
 * Every seed is a valid input of its format (a round-trip check of the harness runs on it). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/v1/proving.pb-c.h"
#include "filecoin/pce.h"
#include "filecoin/registered.h"
#include "filecoin/sector.h"
#include "filecoin/snap_proof.h"
#include "filecoin/tools.h"
#include "formats/bellperson.h"
#include "formats/g16key.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "fuzz_request.h"
#include "r1cs/cs.h"
#include "util/file.h"

static const char *dir;

static void die(const char *what, const char *err) {
    fprintf(stderr, "fuzz_seeds: %s: %s\n", what, err);
    exit(1);
}

static void path_of(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

static void put_file(const char *name, const void *data, size_t len) {
    char path[4096];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f)) die(path, strerror(errno));
}

static uint8_t *get_file(const char *path, size_t *len) {
    uint8_t *b;
    char err[512];
    if (cuzk_file_read(path, SIZE_MAX, &b, len, err, sizeof err)) die(path, err);
    return b;
}

/* ---- wtns -------------------------------------------------------------------------------- */

static void wtns(void) {
    cuzk_fr w[4];
    cuzk_fr_set_one(&w[0]);
    cuzk_fr_from_u64(&w[1], 2);
    cuzk_fr_set_zero(&w[2]);
    cuzk_fr_neg(&w[3], &w[0]); /* r - 1, the largest canonical value */
    const uint32_t counts[] = {0, 1, 4};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char name[32], path[4096], err[256];
        snprintf(name, sizeof name, "gen-%u.wtns", counts[i]);
        path_of(path, sizeof path, name);
        if (cuzk_wtns_save(path, w, counts[i], err, sizeof err)) die(path, err);
    }
}

/* ---- vanilla ----------------------------------------------------------------------------- */

/* The smallest profile of each kind (and a PoSt with two sectors and challenges). */
static const char *const profiles[] = {"porep-c1-l2-d3-r1", "snap-c1-a2-p1-d3-r1", "wpost-s1-k1-r1",
                                       "winning-s1-r1", "wpost-s2-k2-r2"};

/* One generated vanilla file of profile p with n partitions; malloc'd bytes. */
static uint8_t *vanilla_file(const char *p, unsigned n, size_t *len) {
    char path[4096], err[512];
    path_of(path, sizeof path, ".vanilla.tmp");
    if (cuzk_vanilla_generate(p, n, 1, path, NULL, err, sizeof err)) die(p, err);
    uint8_t *b = get_file(path, len);
    unlink(path);
    return b;
}

static void vanilla(void) {
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        char name[128];
        size_t len;
        uint8_t *b = vanilla_file(profiles[i], 1, &len);
        snprintf(name, sizeof name, "gen-%s.vanilla", profiles[i]);
        put_file(name, b, len);
        if (i == 2) { /* two files of one profile, concatenated as a client's list is */
            uint8_t *two = malloc(2 * len);
            if (!two) die("vanilla", "out of memory");
            memcpy(two, b, len);
            memcpy(two + len, b, len);
            put_file("gen-wpost-concat.vanilla", two, 2 * len);
            free(two);
        }
        free(b);
    }
    size_t len;
    uint8_t *b = vanilla_file(profiles[0], 2, &len);
    put_file("gen-porep-2parts.vanilla", b, len);
    free(b);
}

/* ---- pce --------------------------------------------------------------------------------- */

static void pce_save(const char *name, const char *profile, struct cuzk_cs *cs) {
    struct cuzk_pce pce;
    memset(&pce, 0, sizeof pce);
    pce.cs = *cs;
    pce.counts.constraints = cs->n_rows;
    pce.counts.n_inputs = cs->n_public + 1;
    pce.counts.n_aux = cs->n_cols - cs->n_public - 1;
    for (int m = 0; m < 3; m++) pce.counts.nnz[m] = cs->m[m].nnz;
    char path[4096], err[256];
    path_of(path, sizeof path, name);
    if (cuzk_pce_save(path, profile, &pce, err, sizeof err)) die(path, err);
    cuzk_cs_free(cs);
}

static void pce(void) {
    /* the constraint system of tests/data/formats/circuit.r1cs */
    struct cuzk_r1cs r;
    struct cuzk_cs cs;
    char err[256];
    const char *r1cs = CUZK_SOURCE_DIR "/tests/data/formats/circuit.r1cs";
    if (cuzk_r1cs_load(&r, r1cs, err, sizeof err)) die(r1cs, err);
    if (cuzk_r1cs_to_cs(&r, &cs) || cuzk_cs_finish(&cs)) die(r1cs, "cannot convert");
    cuzk_r1cs_free(&r);
    pce_save("gen-circuit.pce", "fuzz-circuit", &cs);

    /* w1 * w2 = 5 w0 + w3: every matrix, a coefficient besides one and minus one */
    cuzk_fr five, one;
    cuzk_fr_from_u64(&five, 5);
    cuzk_fr_set_one(&one);
    if (cuzk_cs_init(&cs, 4, 1) || cuzk_cs_begin_row(&cs) ||
        cuzk_cs_add_term(&cs, CUZK_CS_A, 1, &one) || cuzk_cs_add_term(&cs, CUZK_CS_B, 2, &one) ||
        cuzk_cs_add_term(&cs, CUZK_CS_C, 0, &five) || cuzk_cs_add_term(&cs, CUZK_CS_C, 3, &one) ||
        cuzk_cs_end_row(&cs) || cuzk_cs_finish(&cs))
        die("pce", "cannot build the one-row system");
    pce_save("gen-tiny.pce", "fuzz-tiny", &cs);

    if (cuzk_cs_init(&cs, 1, 0) || cuzk_cs_finish(&cs)) die("pce", "cannot build an empty system");
    pce_save("gen-empty.pce", "fuzz-empty", &cs);
}

/* ---- g16key ------------------------------------------------------------------------------ */

static void g16key_one(const char *name, int compressed, uint32_t chunk,
                       enum cuzk_h_basis h_basis) {
    static const uint32_t a_wires[] = {0, 1, 3}, b_wires[] = {1, 2};
    struct cuzk_g16key_info in = {.n_vars = 4,
                                  .n_public = 1,
                                  .domain_size = 4,
                                  .n_a = 3,
                                  .n_b = 2,
                                  .chunk_points = chunk,
                                  .compressed = compressed,
                                  .h_basis = h_basis,
                                  .cs_checksum = 0x0123456789abcdefull};
    cuzk_g1_affine g1[4];
    cuzk_g2_affine g2[4];
    for (int i = 0; i < 4; i++) cuzk_g1_generator(&g1[i]), cuzk_g2_generator(&g2[i]);
    cuzk_g1_affine_set_inf(&g1[3]); /* the identity is a point too (all zeros when stored) */
    in.alpha1 = in.beta1 = in.delta1 = g1[0];
    in.beta2 = in.gamma2 = in.delta2 = g2[0];
    char path[4096], err[512];
    path_of(path, sizeof path, name);
    struct cuzk_g16key_writer *w;
    int rc = cuzk_g16key_writer_open(&w, path, &in, g1, a_wires, b_wires, NULL, err, sizeof err);
    const void *pts[CUZK_G16KEY_SECTIONS] = {g1, g1, g2, g1, g1};
    const size_t n[CUZK_G16KEY_SECTIONS] = {3, 2, 2, 2, cuzk_h_basis_points(h_basis, 4)};
    for (int s = 0; s < CUZK_G16KEY_SECTIONS && !rc; s++)
        rc = cuzk_g16key_writer_put(w, s, pts[s], n[s], err, sizeof err);
    if (rc) {
        cuzk_g16key_writer_abort(w);
        die(path, err);
    }
    if (cuzk_g16key_writer_close(w, err, sizeof err)) die(path, err);
}

static void g16key(void) {
    g16key_one("gen-lem.g16k", 0, 2, CUZK_H_SNARKJS);
    g16key_one("gen-compressed.g16k", 1, 1, CUZK_H_SNARKJS);
    g16key_one("gen-coeff.g16k", 1, 2, CUZK_H_COEFF); /* version 2: bellperson's H, 3 points */
}

/* ---- bellperson -------------------------------------------------------------------------- */

/* A .params file of generator multiples (n_ic ic points, vectors of the counts given) and its
 * .vk prefix. */
static void bellperson_one(const char *name, uint32_t n_ic, const size_t n[5]) {
    cuzk_g1_affine g1[8];
    cuzk_g2_affine g2[8];
    cuzk_g1 j;
    cuzk_g1_affine g;
    cuzk_g1_generator(&g);
    cuzk_g1_from_affine(&j, &g);
    for (int i = 0; i < 8; i++) { /* G, 2G, 3G, ...: distinct points */
        cuzk_g1_to_affine(&g1[i], &j);
        cuzk_g1_add_affine(&j, &j, &g);
        cuzk_g2_generator(&g2[i]);
    }
    struct cuzk_bp_vk vk = {.alpha1 = g1[0],
                            .beta1 = g1[1],
                            .delta1 = g1[2],
                            .beta2 = g2[0],
                            .gamma2 = g2[0],
                            .delta2 = g2[0],
                            .n_ic = n_ic,
                            .ic = g1};
    cuzk_g1_affine_set_inf(&vk.beta1); /* bellperson accepts the identity in the six points */
    struct cuzk_bp_query q = {.h = g1,
                              .n_h = n[0],
                              .l = g1 + 1,
                              .n_l = n[1],
                              .a = g1 + 2,
                              .n_a = n[2],
                              .b_g1 = g1 + 3,
                              .n_b_g1 = n[3],
                              .b_g2 = g2,
                              .n_b_g2 = n[4]};
    char path[4096], err[512];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    if (!f || cuzk_bp_params_write(f, &vk, &q, err, sizeof err) || fclose(f)) die(path, err);
    snprintf(path + strlen(path), sizeof path - strlen(path), ".vk");
    f = fopen(path, "wb");
    if (!f || cuzk_bp_vk_write(f, &vk, err, sizeof err) || fclose(f)) die(path, err);
}

static void bellperson(void) {
    static const size_t small[5] = {3, 2, 4, 2, 2}, empty[5] = {0, 0, 0, 0, 0};
    bellperson_one("gen-small.params", 2, small);
    bellperson_one("gen-empty.params", 1, empty);
}

/* ---- request ----------------------------------------------------------------------------- */

static void put_request(const char *name, enum fuzz_method m, const ProtobufCMessage *msg) {
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *b = malloc(n + 1);
    if (!b) die(name, "out of memory");
    b[0] = (uint8_t)m;
    protobuf_c_message_pack(msg, b + 1);
    put_file(name, b, n + 1);
    free(b);
}

static ProtobufCBinaryData bytes(const void *p, size_t n) {
    return (ProtobufCBinaryData){.len = n, .data = (uint8_t *)p};
}

static void request(void) {
    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    ProtobufCBinaryData sel[2];

    /* an engine kind named directly: synthetic (the seed), snarkjs (a .wtns) */
    static const char synthetic[] = "synthetic:1024";
    sel[0] = bytes(synthetic, strlen(synthetic));
    s.request_id = "fuzz-1";
    s.priority = CUZK__V1__PRIORITY__HIGH;
    s.n_vanilla_proofs = 1;
    s.vanilla_proofs = sel;
    s.sector_number = 7;
    put_request("gen-submit-synthetic", M_SUBMIT, &s.base);
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
    pr.submit = &s;
    put_request("gen-prove-synthetic", M_PROVE, &pr.base);

    static const char snarkjs[] = "snarkjs:circuit";
    size_t wlen;
    uint8_t *wtns = get_file(CUZK_SOURCE_DIR "/tests/data/formats/circuit.wtns", &wlen);
    sel[0] = bytes(snarkjs, strlen(snarkjs));
    s.request_id = "";
    s.priority = CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED;
    s.vanilla_proof = bytes(wtns, wlen);
    put_request("gen-submit-snarkjs", M_SUBMIT, &s.base);
    free(wtns);

    /* the Filecoin kinds: one vanilla file, or a list of files concatenated by the service */
    static const Cuzk__V1__ProofKind kinds[4] = {
        CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT, CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE,
        CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION, CUZK__V1__PROOF_KIND__WINNING_POST};
    for (int k = 0; k < 4; k++) {
        char name[64];
        size_t len;
        uint8_t *v = vanilla_file(profiles[k], 1, &len);
        s = (Cuzk__V1__SubmitProofRequest)CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
        s.proof_kind = kinds[k];
        s.priority = CUZK__V1__PRIORITY__NORMAL;
        if (kinds[k] == CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION) {
            sel[0] = sel[1] = bytes(v, len);
            s.n_vanilla_proofs = 2;
            s.vanilla_proofs = sel;
        } else {
            s.vanilla_proof = bytes(v, len);
        }
        snprintf(name, sizeof name, "gen-submit-%s", profiles[k]);
        put_request(name, M_SUBMIT, &s.base);
        free(v);
    }

    Cuzk__V1__AwaitProofRequest aw = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    aw.job_id = "fuzz-1";
    aw.timeout_ms = 1;
    put_request("gen-await", M_AWAIT, &aw.base);
    Cuzk__V1__CancelProofRequest ca = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    ca.job_id = "fuzz-1";
    put_request("gen-cancel", M_CANCEL, &ca.base);
    Cuzk__V1__GetStatusRequest st = CUZK__V1__GET_STATUS_REQUEST__INIT;
    put_request("gen-status", M_STATUS, &st.base);
    Cuzk__V1__GetMetricsRequest me = CUZK__V1__GET_METRICS_REQUEST__INIT;
    put_request("gen-metrics", M_METRICS, &me.base);
    Cuzk__V1__EvictSrsRequest ev = CUZK__V1__EVICT_SRS_REQUEST__INIT;
    ev.circuit_id = "synthetic:1024";
    put_request("gen-evict", M_EVICT, &ev.base);
}

/* ---- snap ------------------------------------------------------------------------------- */

/* The bincode PartitionProof entries of a synthetic StackedDrg8MiBV1 (update) sector: all four
 * partitions, and the first alone (a count the reader refuses). */
static void snap(void) {
    struct cuzk_fc_registered reg;
    struct cuzk_vanilla v;
    char err[320];
    if (cuzk_fc_registered_get(CUZK_FC_SNAP, 1, &reg, err, sizeof err) ||
        cuzk_sector_generate(&reg.profile, reg.partitions, 3, &v, err, sizeof err))
        die("snap", err);
    uint8_t *all = NULL;
    size_t n_all = 0;
    for (uint32_t q = 0; q < v.n_parts; q++) {
        uint8_t *e;
        size_t n;
        if (cuzk_snap_entry_write(&v, &reg, q, &e, &n)) die("snap", "cannot write an entry");
        if (!q) put_file("gen-8m-partition0.snap", e, n);
        uint8_t *grown = realloc(all, n_all + n);
        if (!grown) die("snap", "out of memory");
        all = grown;
        memcpy(all + n_all, e, n);
        n_all += n;
        free(e);
    }
    put_file("gen-8m-sector.snap", all, n_all);
    free(all);
    cuzk_vanilla_free(&v);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz_seeds NAME DIR\n");
        return 2;
    }
    dir = argv[2];
    static const struct {
        const char *name;
        void (*make)(void);
    } makers[] = {{"wtns", wtns},     {"vanilla", vanilla},       {"pce", pce},
                  {"g16key", g16key}, {"bellperson", bellperson}, {"request", request},
                  {"snap", snap}};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
        if (!strcmp(argv[1], makers[i].name)) makers[i].make();
    return 0;
}
