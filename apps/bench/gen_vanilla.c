/* gen-vanilla and synth-only: the Filecoin circuits without a daemon.
 *
 *   cuzk-bench gen-vanilla <kind|profile> [size options] [-p N] [--seed N] -o FILE
 *       a synthetic sector's vanilla proofs (docs/filecoin.md): FILE is what the daemon takes
 *       as a job's vanilla proof(s). kind = porep, snap, wpost, winning (the real 32 GiB shape)
 *       or a profile such as porep-c1-l2-d3-r1; size options override its knobs:
 *       --challenges N, --sectors N, --layers N, --tree-d N, --tree-r N, --apex N,
 *       --partition-bits N, --k N. -p N partitions (default: PoRep 2, Snap 16, PoSt 1).
 *   cuzk-bench synth-only <kind|profile> [--vanilla FILE] [-i N] [--cache-dir DIR]
 *                         [--threads N]
 *       times the witness and the SpMV of each partition (N iterations each) against the
 *       profile's recorded constraint system (loaded from / saved to DIR when given).
 *
 * bench_fc_main is called by main() before the common option parser: it returns -1 when argv
 * is not one of its commands, else the exit code. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "circuits/filecoin.h"
#include "cuzk/error.h"
#include "filecoin/tools.h"

static int number(const char *opt, const char *v, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno || v[0] == '-') {
        fprintf(stderr, "cuzk-bench: %s wants a number, not '%s'\n", opt, v);
        return -1;
    }
    *out = x;
    return 0;
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

static int gen_vanilla(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", 1, 0, 'o'},         {"partitions", 1, 0, 'p'}, {"seed", 1, 0, 's'},
        {"challenges", 1, 0, 'C'},     {"sectors", 1, 0, 'S'},    {"layers", 1, 0, 'L'},
        {"tree-d", 1, 0, 'D'},         {"tree-r", 1, 0, 'R'},     {"apex", 1, 0, 'A'},
        {"partition-bits", 1, 0, 'P'}, {"k", 1, 0, 'K'},          {0, 0, 0, 0}};
    const char *out = NULL;
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

int bench_fc_main(int argc, char **argv) {
    if (argc < 2) return -1;
    if (!strcmp(argv[1], "gen-vanilla")) return gen_vanilla(argc - 1, argv + 1);
    if (!strcmp(argv[1], "synth-only")) return synth_only(argc - 1, argv + 1);
    return -1;
}
