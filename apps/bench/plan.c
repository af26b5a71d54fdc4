/* cuzk-bench plan: the residency plans (src/groth16/cuda_plan.h) a key would get on GPUs of
 * other sizes, made from the "plan's sizes" line the daemon logged when the key was loaded on
 * one GPU, so that an operator (or the docs) can tell, without that card, which queries a 16,
 * 24, 32, 48, 80 or 141 GB card would keep on the device, which it would stream from host
 * memory, and whether it can prove the key at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "groth16/cuda_plan.h"

#define GiB ((uint64_t)1 << 30)

/* Cards storage providers run, by the memory the driver reports (GiB, rounded down to MiB). */
static const struct {
    const char *name;
    uint64_t mib;
} cards[] = {
    {"16 GB (RTX 4080, 5070 Ti)", 16376}, {"24 GB (RTX 3090, 4090)", 24564},
    {"32 GB (RTX 5090)", 32607},          {"48 GB (RTX A6000, L40S)", 49140},
    {"80 GB (A100, H100)", 81559},        {"141 GB (H200)", 143771},
};

static void print_plan(const char *what, const struct cuzk_cuda_plan_sizes *in, uint64_t budget) {
    struct cuzk_cuda_plan_sizes s = *in;
    struct cuzk_cuda_plan p;
    char err[512], line[256];
    s.budget = budget;
    if (cuzk_cuda_plan_make(&s, &p, err, sizeof err) == CUZK_OK) {
        cuzk_cuda_plan_describe(&p, budget, line, sizeof line);
        printf("%-28s budget %7.2f GiB: %s\n", what, (double)budget / GiB, line);
    } else {
        printf("%-28s budget %7.2f GiB: refused: %s\n", what, (double)budget / GiB, err);
    }
}

int bench_cmd_plan(const struct bench_args *a) {
    if (a->n_pos != 1) {
        fprintf(stderr, "cuzk-bench: plan needs one daemon log (or - for stdin)\n");
        return BENCH_USAGE;
    }
    uint64_t vram = 0;
    if (a->vram && (cuzk_parse_size(a->vram, &vram) || !vram)) {
        fprintf(stderr, "cuzk-bench: --vram wants a size such as 20GiB, not '%s'\n", a->vram);
        return BENCH_USAGE;
    }
    const char *path = a->pos[0];
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) {
        fprintf(stderr, "cuzk-bench: cannot open %s: %s\n", path, strerror(errno));
        return BENCH_ERROR;
    }
    char *line = NULL;
    size_t cap = 0;
    int keys = 0, code = BENCH_OK;
    while (getline(&line, &cap, in) > 0) {
        if (!strstr(line, "the plan's sizes:")) continue;
        struct cuzk_cuda_plan_sizes s;
        if (cuzk_cuda_plan_sizes_parse(line, &s) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench: %s: a plan's sizes line does not parse: %s", path, line);
            code = BENCH_ERROR;
            continue;
        }
        const char *key = strstr(line, "key ");
        printf("%s%.*s (MSMs of up to %zu points)\n", keys++ ? "\n" : "",
               key ? (int)strcspn(key, ":") : 3, key ? key : "key", s.msm_n);
        if (!strstr(line, " tight="))
            printf("(logged before the tight work space existed: its rule 6 is not considered; "
                   "the key's load by this daemon logs the line with it)\n");
        if (s.budget) print_plan("as logged", &s, s.budget);
        if (vram) print_plan("--vram", &s, vram);
        for (size_t c = 0; c < sizeof cards / sizeof cards[0]; c++) { /* budget "auto" */
            const uint64_t mem = cards[c].mib << 20;
            print_plan(cards[c].name, &s, mem - cuzk_cuda_vram_reserve(mem));
        }
    }
    free(line);
    if (in != stdin) fclose(in);
    if (!keys && code == BENCH_OK) {
        fprintf(stderr,
                "cuzk-bench: %s has no plan's sizes line (the CUDA backend logs one at "
                "each key's load)\n",
                path);
        code = BENCH_ERROR;
    }
    return code;
}
