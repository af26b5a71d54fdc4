/* sector-commit and gen-post: tools over small sealed sectors, no daemon.
 *
 * sector-commit: a sealed sector's commitments recomputed from its replica.
 *
 *   cuzk-bench sector-commit --replica FILE --sector-size BYTES --porep-id HEX
 *       --prover-id HEX --sector-id N --ticket HEX --comm-d HEX --api 1.0|1.1 [--data FILE]
 *
 * Runs the SDR derivations (filecoin/sdr.h) over a sector small enough to hold in memory (up
 * to CUZK_SDR_MAX_SECTOR_BYTES: 2 KiB, 4 KiB, 16 KiB, 32 KiB, 8 MiB) and prints one
 * "name hex" line each for replica_id, comm_c, comm_r_last, comm_r and comm_d_of_data, 32
 * bytes little-endian (as Filecoin stores field elements and tests/data/realdata writes them).
 * comm_d_of_data is the comm_d of the replica minus the last layer's labels (the data the
 * replica encodes), or of --data FILE. The HEX inputs are 32 bytes: 64 hex digits, an optional
 * 0x prefix.
 * Exit codes: 0 comm_d_of_data equals --comm-d (the replica was sealed from these inputs);
 * 1 it differs (the lines are printed all the same); 2 usage (a missing or malformed option);
 * 3 bad input (a file missing, of the wrong size, a node that is no field element, a sector
 * size that is unknown or too large); 4 memory.
 *
 * gen-post: the PoSt vanilla proofs a prover makes for small sealed sectors, as Filecoin's
 * clients send them (filecoin/post_proof.h):
 *
 *   cuzk-bench gen-post --registered-proof N --randomness HEX [--partition K] -o FILE
 *       (--replica FILE --p-aux FILE --sector-id N)...
 *
 * N is a RegisteredPoStProof (0..4 WinningPoSt, 5..14 WindowPoSt) of a size held in memory
 * (2 KiB, 8 MiB); each --replica starts a sector (WindowPoSt: up to the partition's sectors,
 * in order; WinningPoSt: one), whose --p-aux (the sealer's 64-byte PersistentAux: comm_c,
 * comm_r_last) and --sector-id follow it. FILE gets a JSON array of base64 strings, one
 * bincode FallbackPoStSectorProof per sector (what `single/batch --vanilla` send as
 * vanilla_proofs, and Go's json.Marshal of [][]byte); one line per sector is printed:
 * "sector ID comm_r HEX bytes N". Exit codes as sector-commit's (1: a p_aux's comm_r_last is
 * not the replica's tree root).
 *
 * gen-c1: the PoRep commit-phase-1 output a sealer makes for a small sealed sector, as Curio
 * sends it to a C2 prover (filecoin/c1.h):
 *
 *   cuzk-bench gen-c1 --registered-proof N (--replica FILE --comm-d HEX | --seal-cc)
 *       --miner-id M --sector-id N --ticket HEX --seed HEX [--bare] -o FILE
 *
 * N is a RegisteredSealProof (interactive PoRep: 0..4, 5..9; non-interactive: 15..19, whose
 * challenges come from comm_r, not the seed) of a size held in memory; --seal-cc seals a zero
 * sector here (cuzk_sdr_seal_cc) instead of reading a replica; the
 * prover_id is the miner's (LEB128 of M), porep_id the registered proof's. FILE gets the wrapper
 * {"SectorNum","Phase1Out","SectorSize"} (the file `single --c1` sends), or with --bare the
 * SealCommitPhase1Output JSON itself; one line is printed: "c1 REGISTERED partitions P bytes
 * N replica_id HEX". Exit codes as sector-commit's (1: the replica's data does not have
 * --comm-d, a replica sealed from other inputs). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/error.h"
#include "filecoin/c1.h"
#include "filecoin/post_proof.h"
#include "filecoin/registered.h"
#include "filecoin/sdr.h"
#include "filecoin/seal_proof.h"
#include "util/base64.h"
#include "util/file.h"

/* 64 hex digits (optionally after "0x") into 32 bytes, in the order written. */
static int hex32_arg(const char *opt, const char *s, uint8_t out[32]) {
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t n = strlen(s);
    if (n != 64) {
        fprintf(stderr, "cuzk-bench: %s wants 32 bytes (64 hex digits), not %zu digits\n", opt, n);
        return -1;
    }
    for (size_t i = 0; i < 64; i++) {
        const char c = s[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) {
            fprintf(stderr, "cuzk-bench: %s: '%c' is not a hex digit\n", opt, c);
            return -1;
        }
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 0;
}

static int u64_arg(const char *opt, const char *v, uint64_t *out) {
    return bench_u64_arg(opt, v, 10, out);
}

/* A sector file of exactly `size` bytes (a larger one is refused before it is read whole). */
static int read_sector_file(const char *opt, const char *path, uint64_t size, uint8_t **out) {
    char err[512];
    size_t len;
    int rc = cuzk_file_read(path, (size_t)size, out, &len, err, sizeof err);
    if (rc) {
        fprintf(stderr, "cuzk-bench: %s %s\n", opt, err);
        return rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
    }
    if (len != size) {
        fprintf(stderr, "cuzk-bench: %s %s: %zu bytes, not the sector size %llu\n", opt, path, len,
                (unsigned long long)size);
        free(*out);
        *out = NULL;
        return BENCH_ERROR;
    }
    return BENCH_OK;
}

static void print_fr(const char *name, const cuzk_fr *x) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    printf("%s ", name);
    for (int i = 0; i < 32; i++) printf("%02x", b[i]);
    putchar('\n');
}

int bench_sector_commit_main(int argc, char **argv) {
    enum { O_REPLICA = 1, O_SIZE, O_POREP, O_PROVER, O_SECTOR, O_TICKET, O_COMMD, O_API, O_DATA };
    static const struct option opts[] = {{"replica", 1, 0, O_REPLICA},
                                         {"sector-size", 1, 0, O_SIZE},
                                         {"porep-id", 1, 0, O_POREP},
                                         {"prover-id", 1, 0, O_PROVER},
                                         {"sector-id", 1, 0, O_SECTOR},
                                         {"ticket", 1, 0, O_TICKET},
                                         {"comm-d", 1, 0, O_COMMD},
                                         {"api", 1, 0, O_API},
                                         {"data", 1, 0, O_DATA},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    static const char *const names[] = {"",           "--replica",   "--sector-size",
                                        "--porep-id", "--prover-id", "--sector-id",
                                        "--ticket",   "--comm-d",    "--api"};
    const char *replica_path = NULL, *data_path = NULL;
    struct cuzk_sdr_sector s = {0};
    int have[O_DATA] = {0};
    int c;
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_REPLICA: replica_path = optarg; break;
        case O_DATA: data_path = optarg; break;
        case O_SIZE: bad = u64_arg("--sector-size", optarg, &s.sector_size); break;
        case O_SECTOR: bad = u64_arg("--sector-id", optarg, &s.sector_id); break;
        case O_POREP: bad = hex32_arg("--porep-id", optarg, s.porep_id); break;
        case O_PROVER: bad = hex32_arg("--prover-id", optarg, s.prover_id); break;
        case O_TICKET: bad = hex32_arg("--ticket", optarg, s.ticket); break;
        case O_COMMD: bad = hex32_arg("--comm-d", optarg, s.comm_d); break;
        case O_API:
            if (!strcmp(optarg, "1.0") || !strcmp(optarg, "1.0.0"))
                s.api = CUZK_API_1_0;
            else if (!strcmp(optarg, "1.1") || !strcmp(optarg, "1.1.0") || !strcmp(optarg, "1.2") ||
                     !strcmp(optarg, "1.2.0"))
                s.api = CUZK_API_1_1; /* 1.2 has the graph of 1.1 */
            else {
                fprintf(stderr, "cuzk-bench: --api is 1.0 or 1.1, not '%s'\n", optarg);
                bad = 1;
            }
            break;
        case 'h':
            puts("usage: cuzk-bench sector-commit --replica FILE --sector-size BYTES "
                 "--porep-id HEX --prover-id HEX --sector-id N --ticket HEX --comm-d HEX "
                 "--api 1.0|1.1 [--data FILE]");
            return BENCH_OK;
        default: return BENCH_USAGE;
        }
        if (bad) return BENCH_USAGE;
        if (c < O_DATA) have[c] = 1;
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk-bench: sector-commit: unexpected argument '%s'\n", argv[optind]);
        return BENCH_USAGE;
    }
    for (int k = O_REPLICA; k < O_DATA; k++)
        if (!have[k]) {
            fprintf(stderr, "cuzk-bench: sector-commit needs %s\n", names[k]);
            return BENCH_USAGE;
        }
    struct cuzk_sdr_shape sh;
    if (cuzk_sdr_shape_get(s.sector_size, &sh)) {
        fprintf(stderr, "cuzk-bench: --sector-size %llu is not a Filecoin sector size\n",
                (unsigned long long)s.sector_size);
        return BENCH_ERROR;
    }
    if (sh.sector_size > CUZK_SDR_MAX_SECTOR_BYTES) {
        fprintf(stderr,
                "cuzk-bench: sector-commit works in memory: sectors up to %llu bytes, not "
                "%llu\n",
                (unsigned long long)CUZK_SDR_MAX_SECTOR_BYTES, (unsigned long long)sh.sector_size);
        return BENCH_ERROR;
    }

    uint8_t *replica = NULL, *data = NULL;
    int rc = read_sector_file("--replica", replica_path, sh.sector_size, &replica);
    if (rc == BENCH_OK && data_path)
        rc = read_sector_file("--data", data_path, sh.sector_size, &data);
    if (rc == BENCH_OK) {
        struct cuzk_sdr_commit out;
        char err[256];
        int e = cuzk_sdr_commit_replica(&s, replica, sh.sector_size, data, &out, err, sizeof err);
        if (e) {
            fprintf(stderr, "cuzk-bench: sector-commit: %s\n", err);
            rc = e == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
        } else {
            print_fr("replica_id", &out.replica_id);
            print_fr("comm_c", &out.comm_c);
            print_fr("comm_r_last", &out.comm_r_last);
            print_fr("comm_r", &out.comm_r);
            print_fr("comm_d_of_data", &out.comm_d_of_data);
            uint8_t d[32];
            cuzk_fr_to_bytes_le(d, &out.comm_d_of_data);
            if (memcmp(d, s.comm_d, 32)) {
                fprintf(stderr, "cuzk-bench: sector-commit: comm_d_of_data differs from "
                                "--comm-d: the replica was not sealed from these inputs\n");
                rc = BENCH_PROOF_FAILED;
            }
        }
    }
    free(replica);
    free(data);
    return rc;
}

/* ---- gen-post ----------------------------------------------------------------------------- */

#define GEN_POST_MAX 64 /* sectors one call takes (a small sector's partition has 2) */

int bench_gen_post_main(int argc, char **argv) {
    enum { O_REG = 1, O_RAND, O_PART, O_OUT, O_REPLICA, O_PAUX, O_SECTOR };
    static const struct option opts[] = {{"registered-proof", 1, 0, O_REG},
                                         {"randomness", 1, 0, O_RAND},
                                         {"partition", 1, 0, O_PART},
                                         {"output", 1, 0, O_OUT},
                                         {"replica", 1, 0, O_REPLICA},
                                         {"p-aux", 1, 0, O_PAUX},
                                         {"sector-id", 1, 0, O_SECTOR},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct sec {
        const char *replica, *p_aux;
        uint64_t id;
        int have_id;
    } sec[GEN_POST_MAX];
    size_t n = 0;
    uint64_t reg_no = 0, part = 0;
    int have_reg = 0, have_rand = 0;
    uint8_t rand[32];
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        int bad = 0;
        if ((c == O_PAUX || c == O_SECTOR) && !n) {
            fprintf(stderr, "cuzk-bench: gen-post: --p-aux and --sector-id follow a --replica\n");
            return BENCH_USAGE;
        }
        switch (c) {
        case O_REG:
            bad = u64_arg("--registered-proof", optarg, &reg_no);
            have_reg = 1;
            break;
        case O_RAND:
            bad = hex32_arg("--randomness", optarg, rand);
            have_rand = 1;
            break;
        case O_PART:
            bad = u64_arg("--partition", optarg, &part);
            if (!bad && part > UINT32_MAX) {
                fprintf(stderr, "cuzk-bench: --partition is a u32\n");
                bad = 1;
            }
            break;
        case 'o':
        case O_OUT: out = optarg; break;
        case O_REPLICA:
            if (n == GEN_POST_MAX) {
                fprintf(stderr, "cuzk-bench: gen-post takes up to %d sectors\n", GEN_POST_MAX);
                return BENCH_USAGE;
            }
            sec[n++] = (struct sec){optarg, NULL, 0, 0};
            break;
        case O_PAUX: sec[n - 1].p_aux = optarg; break;
        case O_SECTOR:
            bad = u64_arg("--sector-id", optarg, &sec[n - 1].id);
            sec[n - 1].have_id = 1;
            break;
        case 'h':
            puts("usage: cuzk-bench gen-post --registered-proof N --randomness HEX [--partition K] "
                 "-o FILE (--replica FILE --p-aux FILE --sector-id N)...");
            return BENCH_OK;
        default: return BENCH_USAGE;
        }
        if (bad) return BENCH_USAGE;
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk-bench: gen-post: unexpected argument '%s'\n", argv[optind]);
        return BENCH_USAGE;
    }
    if (!have_reg || !have_rand || !out || !n) {
        fprintf(stderr, "cuzk-bench: gen-post needs --registered-proof, --randomness, -o and a "
                        "--replica\n");
        return BENCH_USAGE;
    }
    for (size_t i = 0; i < n; i++)
        if (!sec[i].p_aux || !sec[i].have_id) {
            fprintf(stderr, "cuzk-bench: gen-post: sector %zu (%s) needs --p-aux and --sector-id\n",
                    i, sec[i].replica);
            return BENCH_USAGE;
        }
    struct cuzk_fc_registered reg;
    char err[320];
    if (cuzk_fc_registered_get(reg_no <= 4 ? CUZK_FC_WINNING : CUZK_FC_WPOST, reg_no, &reg, err,
                               sizeof err)) {
        fprintf(stderr, "cuzk-bench: gen-post: %s\n", err);
        return BENCH_ERROR;
    }
    if (reg.sector_size > CUZK_SDR_MAX_SECTOR_BYTES) {
        fprintf(stderr, "cuzk-bench: gen-post works in memory: %s sectors are too large\n",
                reg.name);
        return BENCH_ERROR;
    }
    struct cuzk_post_sector_input in[GEN_POST_MAX];
    cuzk_fr sealed_root[GEN_POST_MAX]; /* each p_aux's comm_r_last */
    uint8_t *rep[GEN_POST_MAX] = {0};
    int rc = BENCH_OK;
    for (size_t i = 0; i < n && rc == BENCH_OK; i++) {
        uint8_t *aux = NULL;
        rc = read_sector_file("--replica", sec[i].replica, reg.sector_size, &rep[i]);
        if (rc == BENCH_OK) rc = read_sector_file("--p-aux", sec[i].p_aux, 64, &aux);
        if (rc == BENCH_OK && (cuzk_fr_from_bytes_le(&in[i].comm_c, aux) ||
                               cuzk_fr_from_bytes_le(&sealed_root[i], aux + 32))) {
            fprintf(stderr,
                    "cuzk-bench: --p-aux %s: comm_c or comm_r_last is not a field element\n",
                    sec[i].p_aux);
            rc = BENCH_ERROR;
        }
        in[i].sector_id = sec[i].id;
        in[i].replica = rep[i];
        in[i].len = reg.sector_size;
        free(aux);
    }
    struct cuzk_post_entries pe = {0};
    if (rc == BENCH_OK) {
        int e = cuzk_post_entries_make(&reg, in, n, rand, (uint32_t)part, &pe, err, sizeof err);
        if (e) {
            fprintf(stderr, "cuzk-bench: gen-post: %s\n", err);
            rc = e == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
        }
    }
    for (size_t i = 0; rc == BENCH_OK && i < pe.n; i++)
        if (!cuzk_fr_eq(&pe.e[i].comm_r_last, &sealed_root[i])) {
            fprintf(stderr,
                    "cuzk-bench: gen-post: %s: the replica's tree root is not its p_aux's "
                    "comm_r_last (another sector's p_aux?)\n",
                    sec[i].replica);
            rc = BENCH_PROOF_FAILED;
        }
    FILE *f = NULL;
    if (rc == BENCH_OK && !(f = fopen(out, "w"))) {
        fprintf(stderr, "cuzk-bench: gen-post: %s: cannot write\n", out);
        rc = BENCH_ERROR;
    }
    if (f) fputc('[', f);
    for (size_t i = 0; f && rc == BENCH_OK && i < pe.n; i++) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        char *b64 = NULL;
        if (cuzk_post_entries_write(&pe, i, 1, &bytes, &len) ||
            !(b64 = cuzk_base64_encode(bytes, len))) {
            rc = BENCH_INTERNAL;
        } else {
            fprintf(f, "%s\"%s\"", i ? "," : "", b64);
            uint8_t cr[32];
            cuzk_fr_to_bytes_le(cr, &pe.e[i].comm_r);
            printf("sector %llu comm_r ", (unsigned long long)pe.e[i].sector_id);
            for (int k = 0; k < 32; k++) printf("%02x", cr[k]);
            printf(" bytes %zu\n", len);
        }
        free(b64);
        free(bytes);
    }
    if (f) {
        fputs("]\n", f);
        if (fclose(f) && rc == BENCH_OK) {
            fprintf(stderr, "cuzk-bench: gen-post: %s: write failed\n", out);
            rc = BENCH_ERROR;
        }
    }
    cuzk_post_entries_free(&pe);
    for (size_t i = 0; i < n; i++) free(rep[i]);
    return rc;
}

int bench_gen_c1_main(int argc, char **argv) {
    enum {
        O_REG = 1,
        O_REPLICA,
        O_MINER,
        O_SECTOR,
        O_TICKET,
        O_COMMD,
        O_SEED,
        O_BARE,
        O_OUT,
        O_SEAL_CC
    };
    static const struct option opts[] = {{"registered-proof", 1, 0, O_REG},
                                         {"replica", 1, 0, O_REPLICA},
                                         {"miner-id", 1, 0, O_MINER},
                                         {"sector-id", 1, 0, O_SECTOR},
                                         {"ticket", 1, 0, O_TICKET},
                                         {"comm-d", 1, 0, O_COMMD},
                                         {"seed", 1, 0, O_SEED},
                                         {"bare", 0, 0, O_BARE},
                                         {"seal-cc", 0, 0, O_SEAL_CC},
                                         {"output", 1, 0, O_OUT},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    uint64_t reg_no = 0, miner = 0, sector = 0;
    unsigned have = 0; /* one bit per required option */
    int bare = 0, seal_cc = 0;
    uint8_t ticket[32], comm_d[32], seed[32];
    const char *replica_path = NULL, *out = NULL;
    int c;
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_REG: bad = u64_arg("--registered-proof", optarg, &reg_no); break;
        case O_REPLICA: replica_path = optarg; break;
        case O_MINER: bad = u64_arg("--miner-id", optarg, &miner); break;
        case O_SECTOR: bad = u64_arg("--sector-id", optarg, &sector); break;
        case O_TICKET: bad = hex32_arg("--ticket", optarg, ticket); break;
        case O_COMMD: bad = hex32_arg("--comm-d", optarg, comm_d); break;
        case O_SEED: bad = hex32_arg("--seed", optarg, seed); break;
        case O_BARE: bare = 1; break;
        case O_SEAL_CC: seal_cc = 1; break;
        case 'o':
        case O_OUT: out = optarg; break;
        case 'h':
            puts("usage: cuzk-bench gen-c1 --registered-proof N (--replica FILE --comm-d HEX | "
                 "--seal-cc) --miner-id M --sector-id N --ticket HEX --seed HEX [--bare] -o "
                 "FILE");
            return BENCH_OK;
        default: return BENCH_USAGE;
        }
        if (bad) return BENCH_USAGE;
        if (c >= O_REG && c <= O_SEED) have |= 1u << c;
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk-bench: gen-c1: unexpected argument '%s'\n", argv[optind]);
        return BENCH_USAGE;
    }
    /* --seal-cc seals a zero sector here: no replica, comm_d is the zero data's */
    const unsigned from_file = 1u << O_REPLICA | 1u << O_COMMD;
    if ((seal_cc ? have & from_file || (have | from_file) != 0xfeu : have != 0xfeu) || !out) {
        fprintf(stderr, "cuzk-bench: gen-c1 needs --registered-proof, --replica and --comm-d (or "
                        "--seal-cc instead), --miner-id, --sector-id, --ticket, --seed and -o\n");
        return BENCH_USAGE;
    }
    struct cuzk_fc_registered reg;
    char err[400];
    if (cuzk_fc_registered_get(CUZK_FC_POREP, reg_no, &reg, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: gen-c1: %s\n", err);
        return BENCH_ERROR;
    }
    if (reg.synthetic || reg.sector_size > CUZK_SDR_MAX_SECTOR_BYTES) {
        fprintf(stderr,
                "cuzk-bench: gen-c1 makes interactive and non-interactive PoRep C1s of sectors "
                "held in memory (2 KiB, 8 MiB); %s is not one\n",
                reg.name);
        return BENCH_ERROR;
    }
    struct cuzk_sdr_sector sec = {
        .sector_size = reg.sector_size, .api = reg.api, .sector_id = sector};
    cuzk_fc_porep_id(&reg, sec.porep_id);
    cuzk_fc_prover_id(miner, sec.prover_id);
    memcpy(sec.ticket, ticket, 32);
    memcpy(sec.comm_d, comm_d, 32);
    uint8_t *rep = NULL;
    int rc;
    if (seal_cc) {
        rc = (rep = malloc(reg.sector_size)) ? BENCH_OK : BENCH_INTERNAL;
        if (!rc && cuzk_sdr_seal_cc(&sec, rep, err, sizeof err)) {
            fprintf(stderr, "cuzk-bench: gen-c1: %s\n", err);
            rc = BENCH_ERROR;
        }
        if (rc) {
            free(rep);
            return rc;
        }
        memcpy(comm_d, sec.comm_d, 32);
    } else if ((rc = read_sector_file("--replica", replica_path, reg.sector_size, &rep))) {
        return rc;
    }
    struct cuzk_vanilla v; /* a non-interactive sector's challenges come from its comm_r */
    int e = cuzk_seal_vanilla_make(&sec, rep, reg.sector_size, reg.non_interactive ? NULL : seed,
                                   &reg.profile, reg.partitions, &v, err, sizeof err);
    free(rep);
    if (e) {
        fprintf(stderr, "cuzk-bench: gen-c1: %s\n", err);
        return e == CUZK_ENOMEM   ? BENCH_INTERNAL
               : e == CUZK_EINVAL ? BENCH_PROOF_FAILED
                                  : BENCH_ERROR;
    }
    char *text = NULL;
    size_t len = 0;
    e = cuzk_c1_write(&v, &reg, seed, ticket, !bare, sector, &text, &len, err, sizeof err);
    uint8_t rid[32];
    cuzk_fr_to_bytes_le(rid, &v.parts[0].v.porep.replica_id);
    cuzk_vanilla_free(&v);
    if (e) {
        fprintf(stderr, "cuzk-bench: gen-c1: %s\n", err);
        return BENCH_INTERNAL;
    }
    FILE *f = fopen(out, "w");
    rc = BENCH_OK;
    if (!f || fwrite(text, 1, len, f) != len) rc = BENCH_ERROR;
    if (f && fclose(f)) rc = BENCH_ERROR;
    free(text);
    if (rc) {
        fprintf(stderr, "cuzk-bench: gen-c1: %s: cannot write\n", out);
        return rc;
    }
    printf("c1 %s partitions %u bytes %zu replica_id ", reg.name, reg.partitions, len);
    for (int k = 0; k < 32; k++) printf("%02x", rid[k]);
    printf("\n");
    return BENCH_OK;
}
