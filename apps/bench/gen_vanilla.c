/* gen-vanilla, synth-only and verify-fc: the Filecoin circuits without a daemon.
 *
 *   cuzk-bench gen-vanilla <kind|profile> [size options] [-p N] [--seed N] -o FILE
 *       a synthetic sector's vanilla proofs (docs/filecoin.md): FILE is what the daemon takes
 *       as a job's vanilla proof(s). kind = porep, snap, wpost, winning (the real 32 GiB shape)
 *       or a profile such as porep-c1-l2-d3-r1; size options override its knobs:
 *       --challenges N, --sectors N, --layers N, --tree-d N, --tree-r N, --apex N,
 *       --partition-bits N, --k N. -p N partitions (default: PoRep 2, Snap 16, PoSt 1).
 *   cuzk-bench gen-vanilla snap --registered-proof N [--seed N] -o FILE
 *       a synthetic sector of the RegisteredUpdateProof N as Filecoin's clients send it: FILE
 *       is a JSON array of base64 strings, one bincode PartitionProof per partition
 *       (filecoin/snap_proof.h; what `single -t snap --vanilla FILE` sends as vanilla_proofs),
 *       and the line printed names the sector's comm_r_old, comm_r_new and comm_d_new (the
 *       request's --comm-r-old, --comm-r-new, --comm-d-new).
 *   cuzk-bench synth-only <kind|profile> [--vanilla FILE] [-i N] [--cache-dir DIR]
 *                         [--threads N]
 *       times the witness and the SpMV of each partition (N iterations each) against the
 *       profile's recorded constraint system (loaded from / saved to DIR when given).
 *   cuzk-bench verify-fc --vanilla FILE --proof FILE --cache-dir DIR
 *       checks a daemon's proof of a vanilla file on its own: the profile's cached key from DIR
 *       (a daemon's srs.param_cache), each partition's public inputs from the vanilla values
 *       (cuzk_vanilla_public_inputs), each 192-byte proof with the Groth16 verifier. Prints
 *       "partition <i>: valid|invalid" per partition; exit 0 all valid, 1 one invalid, 2 usage,
 *       3 bad input (files, no key, a proof file of the wrong length), 4 memory.
 *
 * bench_fc_main is called by main() before the common option parser: it returns -1 when argv
 * is not one of its commands, else the exit code. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "circuits/filecoin.h"
#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "formats/g16key.h"
#include "groth16/setup.h"
#include "kinds/fc_kind.h"
#include "filecoin/registered.h"
#include "filecoin/sector.h"
#include "filecoin/snap_proof.h"
#include "filecoin/tools.h"
#include "filecoin/vanilla.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "util/base64.h"
#include "util/pool.h"

static int number(const char *opt, const char *v, uint64_t *out) {
    return bench_u64_arg(opt, v, 0, out);
}

/* A profile from a kind or profile name, then the size options. */
static int profile_arg(const char *name, struct cuzk_fc_profile *p) {
    static const char *const kinds[4] = {"porep", "snap", "wpost", "winning"};
    char err[200];
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, kinds[k])) {
            cuzk_fc_profile_default((enum cuzk_fc_kind)k, p);
            return 0;
        }
    if (cuzk_fc_profile_parse(name, p, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", name, err);
        return -1;
    }
    return 0;
}

/* gen-vanilla snap --registered-proof N: the PartitionProof entries of a synthetic sector. */
static int gen_snap_entries(const char *kind, uint64_t number, uint64_t seed, const char *out) {
    if (strcmp(kind, "snap")) {
        fprintf(stderr, "cuzk-bench: gen-vanilla --registered-proof writes SnapDeals entries "
                        "only (PoRep C1 outputs come from real sectors: gen-c1; PoSt entries "
                        "too: gen-post)\n");
        return BENCH_USAGE;
    }
    struct cuzk_fc_registered reg;
    struct cuzk_vanilla v;
    char err[320];
    if (cuzk_fc_registered_get(CUZK_FC_SNAP, number, &reg, err, sizeof err) ||
        cuzk_sector_generate(&reg.profile, reg.partitions, seed, &v, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: gen-vanilla: %s\n", err);
        return BENCH_ERROR;
    }
    FILE *f = fopen(out, "w");
    int rc = f ? BENCH_OK : BENCH_ERROR;
    if (f) fputc('[', f);
    for (uint32_t q = 0; f && rc == BENCH_OK && q < v.n_parts; q++) {
        uint8_t *e = NULL;
        size_t n = 0;
        char *b64 = NULL;
        if (cuzk_snap_entry_write(&v, &reg, q, &e, &n) || !(b64 = cuzk_base64_encode(e, n)))
            rc = BENCH_INTERNAL;
        else
            fprintf(f, "%s\"%s\"", q ? "," : "", b64);
        free(b64);
        free(e);
    }
    if (f) {
        fputs("]\n", f);
        if (fclose(f) && rc == BENCH_OK) rc = BENCH_ERROR;
    }
    if (rc == BENCH_OK) {
        const struct cuzk_fc_snap_vanilla *sv = &v.parts[0].v.snap;
        const cuzk_fr *c[3] = {&sv->comm_r_old, &sv->comm_r_new, &sv->comm_d_new};
        printf("gen-vanilla: %s (%s), %u PartitionProof entries, seed %llu -> %s;", reg.name,
               reg.profile.name, v.n_parts, (unsigned long long)seed, out);
        static const char *const names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
        for (int i = 0; i < 3; i++) {
            uint8_t b[32];
            cuzk_fr_to_bytes_le(b, c[i]);
            printf(" %s ", names[i]);
            for (int k = 0; k < 32; k++) printf("%02x", b[k]);
        }
        printf("\n");
    } else {
        fprintf(stderr, "cuzk-bench: gen-vanilla: %s: cannot write\n", out);
    }
    cuzk_vanilla_free(&v);
    return rc;
}

static int gen_vanilla(int argc, char **argv) {
    static const struct option opts[] = {{"output", 1, 0, 'o'},
                                         {"partitions", 1, 0, 'p'},
                                         {"seed", 1, 0, 's'},
                                         {"challenges", 1, 0, 'C'},
                                         {"sectors", 1, 0, 'S'},
                                         {"layers", 1, 0, 'L'},
                                         {"tree-d", 1, 0, 'D'},
                                         {"tree-r", 1, 0, 'R'},
                                         {"apex", 1, 0, 'A'},
                                         {"partition-bits", 1, 0, 'P'},
                                         {"k", 1, 0, 'K'},
                                         {"registered-proof", 1, 0, 'G'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    uint64_t reg_no = 0;
    int have_reg = 0;
    uint64_t parts = 0, seed = 1, knob[8];
    int set[8] = {0};
    const char *keys = "CSLDRAPK";
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "o:p:s:", opts, NULL)) != -1;) {
        const char *k = strchr(keys, c);
        if (c == 'o')
            out = optarg;
        else if (c == 'p' && !number("--partitions", optarg, &parts))
            continue;
        else if (c == 's' && !number("--seed", optarg, &seed))
            continue;
        else if (c == 'G' && !number("--registered-proof", optarg, &reg_no))
            have_reg = 1;
        else if (k && c && !number("a size option", optarg, &knob[k - keys]))
            set[k - keys] = 1;
        else
            return BENCH_USAGE;
    }
    if (optind != argc - 1 || !out) {
        fprintf(stderr, "usage: cuzk-bench gen-vanilla <kind|profile> [size options] [-p N] "
                        "[--seed N] -o FILE\n");
        return BENCH_USAGE;
    }
    if (have_reg) return gen_snap_entries(argv[optind], reg_no, seed, out);
    struct cuzk_fc_profile p;
    if (profile_arg(argv[optind], &p)) return BENCH_USAGE;
    unsigned *field[8] = {&p.challenges,    &p.sectors,     &p.layers,         &p.tree_d_levels,
                          &p.tree_r_levels, &p.apex_leaves, &p.partition_bits, &p.challenges};
    for (int i = 0; i < 8; i++)
        if (set[i]) *field[i] = knob[i] > 100000000 ? 100000000 : (unsigned)knob[i];
    char err[256];
    if (cuzk_fc_profile_check(&p, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: gen-vanilla: %s\n", err);
        return BENCH_USAGE;
    }
    struct cuzk_vanilla_gen_info info;
    int rc = cuzk_vanilla_generate(p.name, (unsigned)(parts > 1024 ? 1025 : parts), seed, out,
                                   &info, err, sizeof err);
    if (rc) {
        fprintf(stderr, "cuzk-bench: gen-vanilla: %s\n", err);
        return rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
    }
    printf("gen-vanilla: %s, %u partition(s), seed %llu -> %s (%llu bytes, %.0f ms)\n",
           info.profile, info.partitions, (unsigned long long)seed, out,
           (unsigned long long)info.bytes, info.ms);
    return BENCH_OK;
}

static int synth_only(int argc, char **argv) {
    static const struct option opts[] = {{"vanilla", 1, 0, 'v'},
                                         {"iterations", 1, 0, 'i'},
                                         {"cache-dir", 1, 0, 'c'},
                                         {"threads", 1, 0, 't'},
                                         {0, 0, 0, 0}};
    const char *vanilla = NULL, *cache = NULL;
    uint64_t iters = 1, threads = 0;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "i:", opts, NULL)) != -1;) {
        if (c == 'v')
            vanilla = optarg;
        else if (c == 'c')
            cache = optarg;
        else if (c == 'i' && !number("-i", optarg, &iters))
            continue;
        else if (c == 't' && !number("--threads", optarg, &threads))
            continue;
        else
            return BENCH_USAGE;
    }
    if (optind != argc - 1 || !iters || iters > 1000000 || threads > 4096) {
        fprintf(stderr, "usage: cuzk-bench synth-only <kind|profile> [--vanilla FILE] [-i N] "
                        "[--cache-dir DIR] [--threads N]\n");
        return BENCH_USAGE;
    }
    struct cuzk_fc_profile p;
    if (profile_arg(argv[optind], &p)) return BENCH_USAGE;
    char err[256];
    if (cuzk_fc_profile_check(&p, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: synth-only: %s\n", err);
        return BENCH_USAGE;
    }
    int rc = cuzk_fc_synth_only(p.name, vanilla, (unsigned)iters, cache, (unsigned)threads, stdout,
                                err, sizeof err);
    if (rc) {
        fprintf(stderr, "cuzk-bench: synth-only: %s\n", err);
        return rc == CUZK_EVERIFY  ? BENCH_PROOF_FAILED
               : rc == CUZK_ENOMEM ? BENCH_INTERNAL
                                   : BENCH_ERROR;
    }
    return BENCH_OK;
}

/* One partition's 192 bytes (A | B | C, compressed) against its public inputs: 1 valid, 0 not
 * (why: a point that does not decode, in reason). */
static int verify_part(const struct cuzk_snarkjs_vk *vk, const cuzk_fr *pub, size_t n,
                       const uint8_t *b, char *reason, size_t cap) {
    struct cuzk_snarkjs_proof pr;
    int rc;
    const char *what = "A";
    if (!(rc = cuzk_g1_from_compressed(&pr.a, b)) && (what = "B") &&
        !(rc = cuzk_g2_from_compressed(&pr.b, b + CUZK_G1_COMPRESSED)) && (what = "C"))
        rc = cuzk_g1_from_compressed(&pr.c, b + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED);
    if (rc) {
        snprintf(reason, cap, " (%s does not decode: %s)", what, cuzk_strerror(rc));
        return 0;
    }
    return cuzk_groth16_verify(vk, pub, n, &pr) == 1;
}

static int verify_fc(int argc, char **argv) {
    static const struct option opts[] = {
        {"vanilla", 1, 0, 'v'}, {"proof", 1, 0, 'p'}, {"cache-dir", 1, 0, 'c'}, {0, 0, 0, 0}};
    const char *vanilla = NULL, *proof = NULL, *cache = NULL;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (c == 'v')
            vanilla = optarg;
        else if (c == 'p')
            proof = optarg;
        else if (c == 'c')
            cache = optarg;
        else
            return BENCH_USAGE;
    }
    if (optind != argc || !vanilla || !proof || !cache) {
        fprintf(stderr,
                "usage: cuzk-bench verify-fc --vanilla FILE --proof FILE --cache-dir DIR\n");
        return BENCH_USAGE;
    }
    char err[512] = "", path[4200];
    struct cuzk_vanilla v = {0};
    struct cuzk_g16key *kf = NULL;
    struct cuzk_groth16_keydata kd = {0};
    struct cuzk_snarkjs_vk vk = {0};
    uint8_t *pb = NULL;
    cuzk_fr *pub = NULL;
    size_t plen = 0, n_pub = 0;
    int ret = BENCH_ERROR, rc;
    double t0 = bench_now_ms();
    if ((rc = cuzk_vanilla_read_file(&v, vanilla, err, sizeof err))) {
        fprintf(stderr, "cuzk-bench: verify-fc: %s\n", err);
        ret = rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
        goto out;
    }
    if ((rc = bench_read_file(proof, &pb, &plen, err, sizeof err))) {
        fprintf(stderr, "cuzk-bench: verify-fc: %s\n", err);
        ret = rc;
        goto out;
    }
    /* the daemon's answer: the partitions' proofs in partition order, 192 bytes each */
    if (plen != (size_t)v.n_parts * CUZK_PROOF_BYTES) {
        fprintf(stderr,
                "cuzk-bench: verify-fc: %s is %zu bytes; the %u partition(s) of %s need %zu "
                "(%d per partition)\n",
                proof, plen, v.n_parts, vanilla, (size_t)v.n_parts * CUZK_PROOF_BYTES,
                CUZK_PROOF_BYTES);
        goto out;
    }
    if (cuzk_kind_fc_key_path(cache, v.profile.name, path, sizeof path)) {
        fprintf(stderr,
                "cuzk-bench: verify-fc: %s has no key of %s (no constraint system pce-%s.bin: "
                "is it the daemon's srs.param_cache, and has the daemon proved this profile?)\n",
                cache, v.profile.name, v.profile.name);
        goto out;
    }
    /* the verification key is the key file's header and IC (checksummed): the points of the
     * proving key are not read */
    if ((rc = cuzk_g16key_open(&kf, path, err, sizeof err)) ||
        (rc = cuzk_groth16_keydata_load(&kd, kf, NULL, 0, err, sizeof err)) ||
        (rc = cuzk_groth16_vk_from_keydata(&vk, &kd))) {
        fprintf(stderr, "cuzk-bench: verify-fc: %s: %s\n", path, err[0] ? err : cuzk_strerror(rc));
        ret = rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
        goto out;
    }
    n_pub = cuzk_vanilla_public_count(&v.profile);
    if (vk.n_public != n_pub) {
        fprintf(stderr,
                "cuzk-bench: verify-fc: the key %s has %u public inputs, the circuit of %s %zu\n",
                path, vk.n_public, v.profile.name, n_pub);
        goto out;
    }
    if (!(pub = malloc(n_pub * sizeof *pub))) {
        ret = BENCH_INTERNAL;
        goto out;
    }
    printf("verify-fc %s: %u partition(s), key %s (loaded in %.0f ms)\n", v.profile.name, v.n_parts,
           path, bench_now_ms() - t0);
    ret = BENCH_OK;
    for (uint32_t i = 0; i < v.n_parts; i++) {
        size_t n = 0;
        char reason[160] = "";
        /* cannot fail: i < n_parts and pub holds the count */
        int ok = !cuzk_vanilla_public_inputs(&v, i, pub, n_pub, &n) &&
                 verify_part(&vk, pub, n, pb + (size_t)i * CUZK_PROOF_BYTES, reason, sizeof reason);
        printf("partition %u: %s%s\n", i, ok ? "valid" : "invalid", reason);
        if (!ok) ret = BENCH_PROOF_FAILED;
    }
out:
    free(pub);
    free(pb);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_groth16_keydata_free(&kd);
    cuzk_g16key_close(kf);
    cuzk_vanilla_free(&v);
    return ret;
}

int bench_fc_main(int argc, char **argv) {
    if (argc < 2) return -1;
    if (!strcmp(argv[1], "gen-vanilla")) return gen_vanilla(argc - 1, argv + 1);
    if (!strcmp(argv[1], "synth-only")) return synth_only(argc - 1, argv + 1);
    if (!strcmp(argv[1], "verify-fc")) return verify_fc(argc - 1, argv + 1);
    return -1;
}
