/* Command-line helpers behind `cuzk-bench gen-vanilla` and `cuzk-bench synth-only`: plain
 * functions so that the bench tool (and tests) need nothing but a call.
 * Thread-safety: reentrant. */
#ifndef CUZK_FILECOIN_TOOLS_H
#define CUZK_FILECOIN_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What gen-vanilla made. */
struct cuzk_vanilla_gen_info {
    char profile[64]; /* canonical profile name */
    uint32_t partitions;
    uint64_t bytes; /* file size */
    double ms;      /* generation + writing */
};

/* Generates a synthetic sector's vanilla proofs (filecoin/sector.h) and writes the file.
 * profile_name: a profile ("porep-c1-l2-d3-r1", "winning-s66", ...) or a bare kind ("porep",
 * "snap", "wpost", "winning": the real 32 GiB shape). partitions 0 = the kind's default (PoRep
 * 2, Snap 16, PoSt 1). info may be NULL. Returns CUZK_OK or an error with a sentence in err. */
int cuzk_vanilla_generate(const char *profile_name, unsigned partitions, uint64_t seed,
                          const char *out_path, struct cuzk_vanilla_gen_info *info, char *err,
                          size_t errlen);

/* Synthesis benchmark of one profile: loads or records its constraint system (cache_dir may
 * be NULL), takes the partitions of vanilla_path (NULL: one generated partition, seed 1), and
 * for each partition and iteration (iters >= 1) times the witness (witness-only builder) and
 * the SpMV a = A w, b = B w, c = C w on `threads` threads (0 = all CPUs), checks a o b = c, and
 * prints one line per run and a summary to out:
 *   synth-only <profile>: rows=.. inputs=.. aux=.. nnz=a/b/c pce=<loaded|recorded> pce_ms=..
 *   partition=<i> iter=<k> witness_ms=.. spmv_ms=.. satisfied=<yes|no>
 *   summary: runs=.. witness_ms_avg=.. spmv_ms_avg=..
 * Returns CUZK_OK (every run satisfied), CUZK_EVERIFY (some run unsatisfied) or an error. */
int cuzk_fc_synth_only(const char *profile_name, const char *vanilla_path, unsigned iters,
                       const char *cache_dir, unsigned threads, FILE *out, char *err,
                       size_t errlen);

#endif
