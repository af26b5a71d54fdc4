/* cuzk-bench: drives a cuzk daemon over gRPC (single proofs, batches, mixed stress loads,
 * status, SRS preloading, metrics), makes proving fixtures, and draws TIMELINE logs.
 *
 *   cuzk-bench [-a ADDR] [--log-level L] <command> [options]
 *
 * The output of single, batch, status, preload and metrics is cuzk's bench output, line for
 * line, so scripts written against it keep working. docs/bench.md describes every command.
 * Exit codes: 0 success, 1 a proof failed (verify-fc: did not verify), 2 usage, 3 the daemon or
 * an input failed, 4 internal error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "client/stages.h"
#include "client/timeline.h"
#include "cuzk/error.h"
#include "util/log.h"

static const char usage[] =
    "usage: cuzk-bench [-a ADDR] [--log-level LEVEL] <command> [options]\n"
    "\n"
    "commands:\n"
    "  single    one proof through the daemon (Prove) and its result\n"
    "  batch     -c N proofs, -j J at a time, and throughput\n"
    "  stress    a mixed load for --duration seconds (--mix KIND[=CIRCUIT][@PRIO][:WEIGHT],...)\n"
    "  soak      -c N mixed small jobs (some refused, some cancelled), the daemon's RSS and\n"
    "            device memory every --every jobs as CSV, and whether RSS stayed flat\n"
    "  status    the daemon's status\n"
    "  preload   -c ID: load a circuit's parameters (SRS) ahead of time\n"
    "  metrics   the daemon's Prometheus metrics\n"
    "  gen       make a fixture: --r1cs F --wtns F [--zkey F], or --synthetic N; -o DIR\n"
    "  timeline  <log> [-o out.svg]: draw the TIMELINE lines of a daemon log as an SVG chart\n"
    "  stages    <log> [--csv]: median, min, mean and max of every stage time of a daemon log's\n"
    "            GPU_TIMING, GPU_STAGES, FIN_TIMING and CUZK_TIMING lines\n"
    "  gen-vanilla <kind|profile> [--challenges/--sectors/--layers/--tree-d/--tree-r/--apex/\n"
    "            --partition-bits/--k N] [-p N] [--seed N] -o FILE: a Filecoin vanilla-proof file\n"
    "            of a synthetic sector (docs/filecoin.md)\n"
    "  synth-only <kind|profile> [--vanilla FILE] [-i N] [--cache-dir DIR] [--threads N]:\n"
    "            witness and SpMV milliseconds per partition, no daemon\n"
    "  verify-fc --vanilla FILE --proof FILE --cache-dir DIR: check a Filecoin proof (the\n"
    "            daemon's 192 bytes per partition) against the cached key in DIR (the daemon's\n"
    "            srs.param_cache) and the public inputs of the vanilla file; no daemon\n"
    "  sector-commit --replica FILE --sector-size BYTES --porep-id HEX --prover-id HEX\n"
    "            --sector-id N --ticket HEX --comm-d HEX --api 1.0|1.1 [--data FILE]: a small\n"
    "            sealed sector's replica_id, comm_c, comm_r_last, comm_r and the comm_d of its\n"
    "            data; exit 1 when that is not --comm-d; no daemon\n"
    "  gen-post --registered-proof N --randomness HEX [--partition K] -o FILE (--replica FILE\n"
    "            --p-aux FILE --sector-id N)...: the PoSt vanilla proofs a prover sends for\n"
    "            small sealed sectors (bincode FallbackPoStSectorProof entries as a JSON array\n"
    "            of base64, for single/batch --vanilla); no daemon\n"
    "  gen-c1 --registered-proof N (--replica FILE --comm-d HEX | --seal-cc) --miner-id M\n"
    "            --sector-id N --ticket HEX --seed HEX [--bare] -o FILE: the PoRep C1 output\n"
    "            of a small sealed sector (--seal-cc: a zero sector sealed here), in the\n"
    "            wrapper Curio sends (for single --c1); no daemon\n"
    "  check-params -t KIND (--c1 FILE | --vanilla FILE) [request fields] [--partition N]\n"
    "            [--cache-dir DIR] [--threads N] [--no-subgroup-check] <.params> <.vk>:\n"
    "            whether this build's circuit matches Filecoin's parameter files: their counts,\n"
    "            then one partition proved on the CPU with the .params and verified with the\n"
    "            .vk; exit 0 match, 1 mismatch, 3 bad input (docs/filecoin.md); no daemon\n"
    "\n"
    "global options:\n"
    "  -a, --addr ADDR       daemon address: unix:///path, host:port or http://host:port\n"
    "                        (default " BENCH_DEFAULT_ADDR ")\n"
    "  --log-level LEVEL     error, warn, info (default), debug\n"
    "  --timeout SECONDS     deadline of every call (default: none)\n"
    "  --progress, --no-progress   live progress line on stderr (default: when a terminal)\n"
    "\n"
    "proof options (single, batch, stress, check-params):\n"
    "  -t, --type TYPE       porep, snap, wpost, winning, snarkjs, synthetic\n"
    "  --c1 FILE             PoRep: the C1 output JSON\n"
    "  --vanilla FILE        PoSt/SnapDeals (and PoRep, instead of --c1): JSON array of base64\n"
    "                        proofs, or one raw file (a cuzk vanilla-proof file)\n"
    "  --circuit ID          snarkjs: the daemon's circuit id; synthetic: N[xP] (N constraints,\n"
    "                        P partitions; K/M suffixes)\n"
    "  --witness FILE        snarkjs: the .wtns witness\n"
    "  --seed N              synthetic: the witness seed (default: random per proof)\n"
    "  --priority P          low, normal, high, critical (default: the kind's own)\n"
    "  --registered-proof N (0), --sector-num N (1), --miner-id N (1000), --partition N (0),\n"
    "  --sector-size N (34359738368), --randomness HEX (32 zero bytes),\n"
    "  --comm-r-old HEX, --comm-r-new HEX, --comm-d-new HEX\n"
    "  single: --request-id ID (default: a UUID), --proof-out FILE (the proof bytes)\n"
    "  batch:  -c, --count N (3), -j, --concurrency J (1)\n"
    "  stress: --duration SECONDS (60), -j, --concurrency J (4), --mix SPEC (default: -t)\n"
    "  soak:   -c, --count N (2000), -j J (4), --mix SPEC (default: four synthetic sizes),\n"
    "          --pid PID (default: the one cuzk-daemon process), --every N (100),\n"
    "          --warmup N (500), --max-growth MIB (0: report only)\n"
    "\n"
    "preload: -c, --circuit-id ID\n"
    "timeline: <log|-> [-o, --output FILE.svg (default: stdout)] [--width PX] [--title T]\n"
    "stages: <log|-> [--csv (kind,field,n,median_ms,min_ms,mean_ms,max_ms lines)]\n"
    "plan: <log|-> [--vram SIZE]: each logged key's residency plan on common GPUs (and SIZE)\n"
    "gen: --r1cs F --wtns F [--zkey F] [--name NAME] | --synthetic N; [-o, --out-dir DIR (.)]\n"
    "     [--seed N] (deterministic setup / synthetic witness) [--threads N]\n";

/* Option groups: a command accepts the groups of its mask. */
enum {
    G_GLOBAL = 1,
    G_PROOF = 2,
    G_SINGLE = 4,
    G_BATCH = 8,
    G_STRESS = 16,
    G_PRELOAD = 32,
    G_TIMELINE = 64,
    G_GEN = 128,
    G_STAGES = 256,
    G_PLAN = 512,
    G_SOAK = 1024,
    G_CHECK = 2048,
};

enum opt_id {
    O_ADDR,
    O_LOG_LEVEL,
    O_TIMEOUT,
    O_PROGRESS,
    O_NO_PROGRESS,
    O_HELP,
    O_TYPE,
    O_C1,
    O_VANILLA,
    O_REGISTERED,
    O_SECTOR_NUM,
    O_MINER,
    O_PARTITION,
    O_SECTOR_SIZE,
    O_RANDOMNESS,
    O_COMM_R_OLD,
    O_COMM_R_NEW,
    O_COMM_D_NEW,
    O_CIRCUIT,
    O_WITNESS,
    O_SEED,
    O_PRIORITY,
    O_REQUEST_ID,
    O_PROOF_OUT,
    O_COUNT,
    O_CONCURRENCY,
    O_DURATION,
    O_MIX,
    O_CIRCUIT_ID,
    O_OUTPUT,
    O_WIDTH,
    O_TITLE,
    O_R1CS,
    O_WTNS,
    O_ZKEY,
    O_OUT_DIR,
    O_NAME,
    O_SYNTHETIC,
    O_THREADS,
    O_CSV,
    O_VRAM,
    O_PID,
    O_EVERY,
    O_WARMUP,
    O_MAX_GROWTH,
    O_CACHE_DIR,
    O_NO_SUBGROUP,
};

static const struct opt {
    const char *name;
    char short_name;
    int has_arg;
    int group;
    enum opt_id id;
} opts[] = {
    {"addr", 'a', 1, G_GLOBAL, O_ADDR},
    {"log-level", 0, 1, G_GLOBAL, O_LOG_LEVEL},
    {"timeout", 0, 1, G_GLOBAL, O_TIMEOUT},
    {"progress", 0, 0, G_GLOBAL, O_PROGRESS},
    {"no-progress", 0, 0, G_GLOBAL, O_NO_PROGRESS},
    {"help", 'h', 0, G_GLOBAL, O_HELP},
    {"type", 't', 1, G_PROOF, O_TYPE},
    {"c1", 0, 1, G_PROOF, O_C1},
    {"vanilla", 0, 1, G_PROOF, O_VANILLA},
    {"registered-proof", 0, 1, G_PROOF, O_REGISTERED},
    {"sector-num", 0, 1, G_PROOF, O_SECTOR_NUM},
    {"miner-id", 0, 1, G_PROOF, O_MINER},
    {"partition", 0, 1, G_PROOF, O_PARTITION},
    {"sector-size", 0, 1, G_PROOF, O_SECTOR_SIZE},
    {"randomness", 0, 1, G_PROOF, O_RANDOMNESS},
    {"comm-r-old", 0, 1, G_PROOF, O_COMM_R_OLD},
    {"comm-r-new", 0, 1, G_PROOF, O_COMM_R_NEW},
    {"comm-d-new", 0, 1, G_PROOF, O_COMM_D_NEW},
    {"circuit", 0, 1, G_PROOF, O_CIRCUIT},
    {"witness", 0, 1, G_PROOF, O_WITNESS},
    {"seed", 0, 1, G_PROOF | G_GEN, O_SEED},
    {"priority", 0, 1, G_PROOF, O_PRIORITY},
    {"request-id", 0, 1, G_SINGLE, O_REQUEST_ID},
    {"proof-out", 0, 1, G_SINGLE, O_PROOF_OUT},
    {"count", 'c', 1, G_BATCH | G_SOAK, O_COUNT},
    {"concurrency", 'j', 1, G_BATCH | G_STRESS | G_SOAK, O_CONCURRENCY},
    {"duration", 0, 1, G_STRESS, O_DURATION},
    {"mix", 0, 1, G_STRESS | G_SOAK, O_MIX},
    {"pid", 0, 1, G_SOAK, O_PID},
    {"every", 0, 1, G_SOAK, O_EVERY},
    {"warmup", 0, 1, G_SOAK, O_WARMUP},
    {"max-growth", 0, 1, G_SOAK, O_MAX_GROWTH},
    {"circuit-id", 'c', 1, G_PRELOAD, O_CIRCUIT_ID},
    {"output", 'o', 1, G_TIMELINE, O_OUTPUT},
    {"width", 0, 1, G_TIMELINE, O_WIDTH},
    {"title", 0, 1, G_TIMELINE, O_TITLE},
    {"r1cs", 0, 1, G_GEN, O_R1CS},
    {"wtns", 0, 1, G_GEN, O_WTNS},
    {"zkey", 0, 1, G_GEN, O_ZKEY},
    {"out-dir", 'o', 1, G_GEN, O_OUT_DIR},
    {"name", 0, 1, G_GEN, O_NAME},
    {"synthetic", 0, 1, G_GEN, O_SYNTHETIC},
    {"threads", 0, 1, G_GEN | G_CHECK, O_THREADS},
    {"cache-dir", 0, 1, G_CHECK, O_CACHE_DIR},
    {"no-subgroup-check", 0, 0, G_CHECK, O_NO_SUBGROUP},
    {"csv", 0, 0, G_STAGES, O_CSV},
    {"vram", 0, 1, G_PLAN, O_VRAM},
};

static const struct command {
    const char *name;
    int groups;
    int (*run)(const struct bench_args *a);
} commands[] = {
    {"single", G_GLOBAL | G_PROOF | G_SINGLE, bench_cmd_single},
    {"batch", G_GLOBAL | G_PROOF | G_BATCH, bench_cmd_batch},
    {"stress", G_GLOBAL | G_PROOF | G_STRESS, bench_cmd_stress},
    {"soak", G_GLOBAL | G_PROOF | G_SOAK, bench_cmd_soak},
    {"status", G_GLOBAL, bench_cmd_status},
    {"preload", G_GLOBAL | G_PRELOAD, bench_cmd_preload},
    {"metrics", G_GLOBAL, bench_cmd_metrics},
    {"gen", G_GLOBAL | G_GEN, bench_cmd_gen},
    {"timeline", G_GLOBAL | G_TIMELINE, bench_cmd_timeline},
    {"stages", G_GLOBAL | G_STAGES, bench_cmd_stages},
    {"plan", G_GLOBAL | G_PLAN, bench_cmd_plan},
    {"check-params", G_GLOBAL | G_PROOF | G_CHECK, bench_cmd_check_params},
};

static int bad_number(const char *opt, const char *v) {
    fprintf(stderr, "cuzk-bench: --%s wants a number, not '%s'\n", opt, v);
    return -1;
}

static int to_u64(const char *opt, const char *v, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno || v[0] == '-') return bad_number(opt, v);
    *out = x;
    return 0;
}

static int to_u32(const char *opt, const char *v, uint32_t *out) {
    uint64_t x;
    if (to_u64(opt, v, &x)) return -1;
    if (x > UINT32_MAX) return bad_number(opt, v);
    *out = (uint32_t)x;
    return 0;
}

static int to_seconds(const char *opt, const char *v, double *out) {
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 1e9) return bad_number(opt, v);
    *out = x;
    return 0;
}

static int apply(struct bench_args *a, enum opt_id id, const char *name, const char *v) {
    uint32_t u;
    switch (id) {
    case O_ADDR: a->addr = v; return 0;
    case O_LOG_LEVEL: a->log_level = v; return 0;
    case O_TIMEOUT: return to_seconds(name, v, &a->timeout_s);
    case O_PROGRESS: a->progress = 1; return 0;
    case O_NO_PROGRESS: a->progress = 0; return 0;
    case O_HELP: return 1;
    case O_TYPE: a->type = v; return 0;
    case O_C1: a->c1 = v; return 0;
    case O_VANILLA: a->vanilla = v; return 0;
    case O_REGISTERED: return to_u64(name, v, &a->registered_proof);
    case O_SECTOR_NUM: return to_u64(name, v, &a->sector_num);
    case O_MINER: return to_u64(name, v, &a->miner_id);
    case O_PARTITION: return to_u32(name, v, &a->partition);
    case O_SECTOR_SIZE: a->sector_size_set = 1; return to_u64(name, v, &a->sector_size);
    case O_RANDOMNESS: a->randomness = v; return 0;
    case O_COMM_R_OLD: a->comm_r_old = v; return 0;
    case O_COMM_R_NEW: a->comm_r_new = v; return 0;
    case O_COMM_D_NEW: a->comm_d_new = v; return 0;
    case O_CIRCUIT: a->circuit = v; return 0;
    case O_WITNESS: a->witness = v; return 0;
    case O_SEED: a->seed_set = 1; return to_u64(name, v, &a->seed);
    case O_PRIORITY: a->priority = v; return 0;
    case O_REQUEST_ID: a->request_id = v; return 0;
    case O_PROOF_OUT: a->proof_out = v; return 0;
    case O_COUNT: a->count_set = 1; return to_u32(name, v, &a->count);
    case O_CONCURRENCY:
        if (to_u32(name, v, &u)) return -1;
        if (u == 0 || u > 256) {
            fprintf(stderr, "cuzk-bench: --concurrency wants 1 to 256\n");
            return -1;
        }
        a->concurrency = u;
        return 0;
    case O_DURATION: return to_seconds(name, v, &a->duration_s);
    case O_MIX: a->mix = v; return 0;
    case O_CIRCUIT_ID: a->circuit_id = v; return 0;
    case O_OUTPUT: a->output = v; return 0;
    case O_WIDTH: return to_u32(name, v, &a->width);
    case O_TITLE: a->title = v; return 0;
    case O_R1CS: a->r1cs = v; return 0;
    case O_WTNS: a->wtns = v; return 0;
    case O_ZKEY: a->zkey = v; return 0;
    case O_OUT_DIR: a->out_dir = v; return 0;
    case O_NAME: a->name = v; return 0;
    case O_SYNTHETIC: a->synthetic = v; return 0;
    case O_THREADS: return to_u32(name, v, &a->threads);
    case O_CSV: a->csv = 1; return 0;
    case O_VRAM: a->vram = v; return 0;
    case O_PID: return to_u32(name, v, &a->pid);
    case O_EVERY:
        if (to_u32(name, v, &a->soak_every)) return -1;
        if (a->soak_every == 0) return bad_number(name, v);
        return 0;
    case O_WARMUP: return to_u32(name, v, &a->soak_warmup);
    case O_MAX_GROWTH: return to_seconds(name, v, &a->soak_max_growth_mib);
    case O_CACHE_DIR: a->cache_dir = v; return 0;
    case O_NO_SUBGROUP: a->no_subgroup = 1; return 0;
    }
    return -1;
}

static const struct opt *find_long(const char *s, size_t n, int groups) {
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if ((opts[i].group & groups) && strlen(opts[i].name) == n && !memcmp(opts[i].name, s, n))
            return &opts[i];
    return NULL;
}

static const struct opt *find_short(char c, int groups) {
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if ((opts[i].group & groups) && opts[i].short_name == c) return &opts[i];
    return NULL;
}

/* Parses argv: global options anywhere, the first word the command, then its options and
 * positional arguments. Returns the command, or NULL after printing why (*code set). */
static const struct command *parse(int argc, char **argv, struct bench_args *a, int *code) {
    const struct command *cmd = NULL;
    int only_pos = 0;
    *code = BENCH_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int groups = cmd ? cmd->groups : G_GLOBAL;
        if (only_pos || s[0] != '-' || !s[1]) {
            if (!cmd) {
                for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
                    if (!strcmp(s, commands[k].name)) cmd = &commands[k];
                if (!cmd) {
                    fprintf(stderr, "cuzk-bench: unknown command '%s'\n%s", s, usage);
                    return NULL;
                }
            } else if (a->n_pos < (int)(sizeof a->pos / sizeof a->pos[0])) {
                a->pos[a->n_pos++] = s;
            } else {
                fprintf(stderr, "cuzk-bench: too many arguments\n");
                return NULL;
            }
            continue;
        }
        if (!strcmp(s, "--")) {
            only_pos = 1;
            continue;
        }
        const struct opt *o;
        const char *val = NULL;
        char shown[64];
        if (s[1] == '-') {
            const char *eq = strchr(s + 2, '=');
            size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            o = find_long(s + 2, n, groups);
            if (eq) val = eq + 1;
            snprintf(shown, sizeof shown, "%.*s", (int)(n < 60 ? n + 2 : 62), s);
        } else {
            o = find_short(s[1], groups);
            if (s[2]) val = s + 2; /* -j4 */
            snprintf(shown, sizeof shown, "-%c", s[1]);
        }
        if (!o) {
            fprintf(stderr, "cuzk-bench: unknown option %s%s%s (see --help)\n", shown,
                    cmd ? " for " : "", cmd ? cmd->name : "");
            return NULL;
        }
        if (o->has_arg && !val) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk-bench: %s needs a value\n", shown);
                return NULL;
            }
            val = argv[++i];
        } else if (!o->has_arg && val) {
            fprintf(stderr, "cuzk-bench: %s takes no value\n", shown);
            return NULL;
        }
        int r = apply(a, o->id, o->name, val);
        if (r > 0) {
            fputs(usage, stdout);
            *code = BENCH_OK;
            return NULL;
        }
        if (r < 0) return NULL;
    }
    if (!cmd) fputs(usage, stderr);
    return cmd;
}

/* The log file a log command reads (its one argument; "-": stdin): BENCH_OK with *in set, or
 * the exit code after saying why. */
static int open_log(const struct bench_args *a, const char *cmd, FILE **in) {
    if (a->n_pos != 1) {
        fprintf(stderr, "cuzk-bench: %s needs one log file (or - for stdin)\n", cmd);
        return BENCH_USAGE;
    }
    const char *path = a->pos[0];
    *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!*in) {
        fprintf(stderr, "cuzk-bench: cannot open %s: %s\n", path, strerror(errno));
        return BENCH_ERROR;
    }
    return BENCH_OK;
}

int bench_cmd_timeline(const struct bench_args *a) {
    FILE *in;
    int code = open_log(a, "timeline", &in);
    if (code != BENCH_OK) return code;
    const char *path = a->pos[0];
    struct cuzk_timeline tl;
    cuzk_timeline_init(&tl);
    int rc = cuzk_timeline_read(&tl, in);
    if (in != stdin) fclose(in);
    if (rc == CUZK_OK) rc = cuzk_timeline_finish(&tl);
    if (rc) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", path, cuzk_strerror(rc));
        cuzk_timeline_free(&tl);
        return rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
    }
    int to_stdout = !a->output || !strcmp(a->output, "-");
    char tmp[4200];
    FILE *out = stdout;
    if (!to_stdout) {
        snprintf(tmp, sizeof tmp, "%s.tmp", a->output);
        if (!(out = fopen(tmp, "w"))) {
            fprintf(stderr, "cuzk-bench: cannot create %s: %s\n", tmp, strerror(errno));
            cuzk_timeline_free(&tl);
            return BENCH_ERROR;
        }
    }
    char title[600];
    const char *base = strrchr(path, '/');
    snprintf(title, sizeof title, "cuzk timeline: %s", base ? base + 1 : path);
    struct cuzk_tl_svg_opts so = {.width = a->width, .title = a->title ? a->title : title};
    rc = cuzk_timeline_svg(&tl, out, &so);
    if (!to_stdout) {
        if (fclose(out) || rc || rename(tmp, a->output)) {
            fprintf(stderr, "cuzk-bench: cannot write %s\n", a->output);
            remove(tmp);
            rc = CUZK_EIO;
        }
    }
    if (rc == CUZK_OK) {
        FILE *sum = to_stdout ? stderr : stdout;
        if (!to_stdout) fprintf(sum, "wrote %s\n", a->output);
        cuzk_timeline_summary(&tl, sum);
        if (tl.n_records == 0)
            fprintf(stderr,
                    "cuzk-bench: %s has no TIMELINE lines (is the daemon's "
                    "logging.timeline on?)\n",
                    path);
    }
    cuzk_timeline_free(&tl);
    return rc == CUZK_OK ? BENCH_OK : BENCH_ERROR;
}

int bench_cmd_stages(const struct bench_args *a) {
    FILE *in;
    int code = open_log(a, "stages", &in);
    if (code != BENCH_OK) return code;
    const char *path = a->pos[0];
    struct cuzk_stages st;
    cuzk_stages_init(&st);
    int rc = cuzk_stages_read(&st, in);
    if (in != stdin) fclose(in);
    if (rc == CUZK_OK) rc = cuzk_stages_print(&st, stdout, a->csv);
    if (rc)
        fprintf(stderr, "cuzk-bench: %s: %s\n", path, cuzk_strerror(rc));
    else if (!st.kind[0].n_lines && !st.kind[1].n_lines && !st.kind[2].n_lines &&
             !st.kind[3].n_lines)
        fprintf(stderr,
                "cuzk-bench: %s has no timing lines (is the daemon's logging.timeline on?)\n",
                path);
    cuzk_stages_free(&st);
    return rc == CUZK_OK ? BENCH_OK : rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
}

int main(int argc, char **argv) {
    /* gen-vanilla, synth-only and verify-fc (apps/bench/gen_vanilla.c) parse their own options */
    int fc = bench_fc_main(argc, argv);
    if (fc >= 0) return fc;
    if (argc >= 2 && !strcmp(argv[1], "sector-commit"))
        return bench_sector_commit_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "gen-post")) return bench_gen_post_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "gen-c1")) return bench_gen_c1_main(argc - 1, argv + 1);
    struct bench_args a = {
        .addr = BENCH_DEFAULT_ADDR,
        .log_level = "info",
        .progress = -1,
        .sector_size = BENCH_SECTOR_SIZE,
        .sector_num = 1,
        .miner_id = 1000,
        .count = 3,
        .duration_s = 60,
        .soak_every = 100,
        .soak_warmup = 500,
    };
    int code;
    const struct command *cmd = parse(argc, argv, &a, &code);
    if (!cmd) return code;
    if (!a.concurrency)
        a.concurrency = cmd->run == bench_cmd_stress || cmd->run == bench_cmd_soak ? 4 : 1;
    if (cmd->run == bench_cmd_soak && !a.count_set) a.count = 2000;
    enum cuzk_log_level level;
    if (cuzk_log_level_parse(a.log_level, &level)) {
        fprintf(stderr, "cuzk-bench: unknown log level '%s' (error, warn, info, debug)\n",
                a.log_level);
        return BENCH_USAGE;
    }
    cuzk_log_set_level(level);
    if (cmd->run != bench_cmd_timeline && cmd->run != bench_cmd_stages &&
        cmd->run != bench_cmd_plan && cmd->run != bench_cmd_check_params && a.n_pos) {
        fprintf(stderr, "cuzk-bench: %s takes no argument '%s'\n", cmd->name, a.pos[0]);
        return BENCH_USAGE;
    }
    return cmd->run(&a);
}
