/* Groth16 proving on the CUDA backend, from a witness in host memory to a verified proof.
 *
 * The circuit has 2^log_n - 2 constraints (one public input: the domain is exactly 2^log_n)
 * over a FULL random witness: wires [1 | x (public) | two private inputs | one wire per
 * constraint], constraint i: w_prev * w_j = w_new with w_prev the wire made by constraint
 * i - 1 and j a random earlier wire, so every wire is a random field element (a product of
 * random ones), the worst case for every MSM. The key comes from the GPU dev setup (cached as a
 * .zkey in --key-cache DIR when given, DIR made if missing: the circuit and witness depend only
 * on log_n and the seed). Then one warm-up proof (the work contexts and pinned buffers are
 * allocated there; the key's points are uploaded before it, timed separately), then --reps timed
 * proofs, each verified.
 *
 * Per rep it prints the backend's stage times (SpMV, upload, NTT, H MSM, A/B1/C MSMs, B2 MSM,
 * the folds of dense queries), the prove time (prove_start to prove_finish returning), the
 * verification and their sum, then min and median over the reps. --csv FILE writes one line
 * per rep:
 *   gpu_prove,<log_n>,<rep>,<spmv_ms>,<upload_ms>,<ntt_ms>,<h_msm_ms>,<msm_ms>,<g2_msm_ms>,
 *   <gpu_ms>,<prove_ms>,<verify_ms>,<total_ms>,<fold_ms>
 * The backend folds the key's dense queries after its first proof, the warm-up (see
 * fold_dense_min in struct cuzk_cuda_config; its fold column says what that took), so the timed
 * reps run over folded queries; --no-fold sets the threshold to 0 (every query plain, the H
 * query too: the threshold of folding at upload, fold_h_min, is also set to 0).
 * A proof that does not verify is a wrong result (exit 1). --quick proves a 2^12 circuit and
 * also checks that the CPU backend gives the same proof bytes for the same blinding.
 * --no-overlap runs the NTTs after the A, B1, B2 and C MSMs instead of beside them
 * (overlap_ntt 0): the NTT column is then their whole time. --no-presum makes the MSM context
 * without its presum space (presum 0).
 *
 *   bench_gpu_prove [--quick] [--log-n K] [--reps N] [--csv FILE] [--key-cache DIR] [--seed S]
 *                   [--no-overlap] [--no-fold] [--no-presum]
 * Exit status: 0, 1 for a wrong result or a failure, 2 usage, 77 without a GPU (skipped). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BENCH_NAME "bench_gpu_prove"
#include "bench_util.h"
#include "cuzk/error.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"
#include "groth16/cuda_backend.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "util/pool.h"

#define MAX_REPS 100
#define N_PUB 1

static struct cuzk_pool *pool;

/* The witness of the benchmark circuit for (log_n, seed) and, when r is not NULL, the circuit
 * itself. Returns the witness (n_wires values) or NULL when out of memory. */
static cuzk_fr *make_circuit(int log_n, uint64_t seed, struct cuzk_r1cs *r, uint32_t *n_wires) {
    uint32_t nc = (1u << log_n) - N_PUB - 1, nw = N_PUB + 3 + nc;
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    cuzk_fr *w = malloc((size_t)nw * sizeof *w);
    if (!w) return NULL;
    if (r) {
        memset(r, 0, sizeof *r);
        r->n_wires = nw;
        r->n_pub_in = N_PUB;
        r->n_prv_in = 2;
        r->n_constraints = nc;
        r->n_terms = 3 * (uint64_t)nc;
        r->lc = malloc((3 * (size_t)nc + 1) * sizeof *r->lc);
        r->wire = malloc(3 * (size_t)nc * sizeof *r->wire);
        r->coef = malloc(3 * (size_t)nc * sizeof *r->coef);
        if (!r->lc || !r->wire || !r->coef) {
            cuzk_r1cs_free(r);
            free(w);
            return NULL;
        }
    }
    cuzk_fr one;
    cuzk_fr_set_one(&one);
    w[0] = one;
    for (uint32_t i = 1; i < N_PUB + 3; i++) cuzk_fr_random(&w[i], &rng);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t cur = N_PUB + 3 + i, prev = cur - 1;
        uint32_t j = 1 + (uint32_t)(cuzk_rng_u64(&rng) % (cur - 1));
        cuzk_fr_mul(&w[cur], &w[prev], &w[j]);
        if (!r) continue;
        uint64_t t = 3 * (uint64_t)i;
        r->lc[3 * (size_t)i] = t;
        r->lc[3 * (size_t)i + 1] = t + 1;
        r->lc[3 * (size_t)i + 2] = t + 2;
        r->wire[t] = prev;
        r->wire[t + 1] = j;
        r->wire[t + 2] = cur;
        r->coef[t] = r->coef[t + 1] = r->coef[t + 2] = one;
    }
    if (r) r->lc[3 * (size_t)nc] = 3 * (uint64_t)nc;
    *n_wires = nw;
    return w;
}

/* The key: from the cache file when there is one, else the GPU dev setup (saved to the cache). */
static int make_key(int log_n, uint64_t seed, const char *cache, struct cuzk_zkey *z) {
    char path[4096] = "", err[512];
    if (cache) {
        snprintf(path, sizeof path, "%s/bench_gpu_prove_%d_%llx.zkey", cache, log_n,
                 (unsigned long long)seed);
        struct stat sb;
        if (stat(path, &sb) == 0) {
            double t0 = bench_now_ms();
            struct cuzk_zkey_opts zo = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_SKIP};
            int rc = cuzk_zkey_load(z, path, &zo, err, sizeof err);
            if (rc == CUZK_OK) {
                printf("# key: loaded %s in %.0f ms\n", path, bench_now_ms() - t0);
                return CUZK_OK;
            }
            fprintf(stderr, "bench_gpu_prove: %s: %s (making a new key)\n", path, err);
        }
    }
    struct cuzk_r1cs r;
    uint32_t nw;
    double t0 = bench_now_ms();
    cuzk_fr *w = make_circuit(log_n, seed, &r, &nw);
    if (!w) return CUZK_ENOMEM;
    free(w);
    double t1 = bench_now_ms();
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed ^ 0x5e7u);
    struct cuzk_setup_opts so = {.gpu = CUZK_SETUP_GPU_ON, .device = 0};
    int rc = cuzk_groth16_setup_ex(pool, &r, &rng, &so, z, err, sizeof err);
    cuzk_r1cs_free(&r);
    if (rc) {
        fprintf(stderr, "bench_gpu_prove: setup: %s\n", err);
        return rc;
    }
    printf("# key: circuit in %.0f ms, GPU dev setup in %.0f ms\n", t1 - t0, bench_now_ms() - t1);
    if (cache) {
        t0 = bench_now_ms();
        /* the folder itself is made when missing (its parent must exist) */
        if (mkdir(cache, 0755) != 0 && errno != EEXIST)
            fprintf(stderr, "bench_gpu_prove: cannot make %s: %s\n", cache, strerror(errno));
        if (cuzk_zkey_save(path, z, err, sizeof err) == CUZK_OK)
            printf("# key: saved %s in %.0f ms\n", path, bench_now_ms() - t0);
        else
            fprintf(stderr, "bench_gpu_prove: cannot cache the key: %s\n", err);
    }
    return CUZK_OK;
}

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--quick] [--log-n K] [--reps N] [--csv FILE] [--key-cache DIR] "
            "[--seed S] [--no-overlap] [--no-fold] [--no-presum]\n",
            argv0);
    return 2;
}

static void report_gpu_failure(const char *why, int rc) {
    fprintf(stderr, "bench_gpu_prove: the CUDA backend failed: %s\n",
            *why ? why : cuzk_strerror(rc));
}

int main(int argc, char **argv) {
    int quick = 0, log_n = 24, reps = 3, overlap = 1, fold = 1, presum = 1;
    const char *csv_path = NULL, *cache = NULL;
    uint64_t seed = 0xc0ffee;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--log-n") && i + 1 < argc) {
            log_n = atoi(argv[++i]);
            if (log_n < 2 || log_n > CUZK_GPU_NTT_MAX_LOG) return usage(argv[0]);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > MAX_REPS) return usage(argv[0]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (!strcmp(argv[i], "--key-cache") && i + 1 < argc) {
            cache = argv[++i];
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--no-overlap")) {
            overlap = 0;
        } else if (!strcmp(argv[i], "--no-fold")) {
            fold = 0;
        } else if (!strcmp(argv[i], "--no-presum")) {
            presum = 0;
        } else {
            return usage(argv[0]);
        }
    }
    if (quick) {
        log_n = 12;
        if (reps > 2) reps = 2;
    }
    const int skip = bench_gpu_start();
    if (skip) return skip;
    if (cuzk_pool_create(&pool, 0, "bench") != CUZK_OK) return 1;
    printf("# 2^%d domain, %u constraints, full random witness, %u CPU threads\n", log_n,
           (1u << log_n) - N_PUB - 1, cuzk_pool_size(pool));

    int ret = 1;
    FILE *csv = NULL;
    struct cuzk_zkey z = {0};
    struct cuzk_groth16_pk pk = {0};
    struct cuzk_snarkjs_vk vk = {0};
    struct cuzk_backend gpu = {0};
    uint32_t nw = 0;
    cuzk_fr *w = NULL;
    int pinned_w = 0;
    if (make_key(log_n, seed, cache, &z) != CUZK_OK) goto out;
    double t0 = bench_now_ms();
    if (!(w = make_circuit(log_n, seed, NULL, &nw)) || nw != z.n_vars) {
        fprintf(stderr, "bench_gpu_prove: witness: out of memory or not the key's circuit\n");
        goto out;
    }
    if (cuzk_groth16_pk_prepare(&pk, &z) != CUZK_OK || cuzk_groth16_vk_from_pk(&vk, &pk)) {
        fprintf(stderr, "bench_gpu_prove: cannot prepare the key\n");
        goto out;
    }
    printf("# witness and prepared key in %.0f ms\n", bench_now_ms() - t0);
    struct cuzk_cuda_config cc;
    cuzk_cuda_config_default(&cc);
    cc.overlap_ntt = overlap;
    cc.presum = presum;
    if (!fold) cc.fold_h_min = cc.fold_dense_min = 0;
    int rc = cuzk_cuda_backend_init(&gpu, 0, pool);
    if (rc || (rc = cuzk_cuda_backend_configure(&gpu, &cc))) {
        fprintf(stderr, "bench_gpu_prove: CUDA backend: %s\n", cuzk_strerror(rc));
        goto out;
    }
    printf("# NTTs %s the A, B1, B2 and C MSMs; %s; MSM context %s a presum space\n",
           overlap ? "beside" : "after",
           fold ? "dense queries folded after the first proof" : "no query folded",
           presum ? "with (when the budget holds it)" : "without");
    /* the witness in pinned host memory, as the engine's synthesis writes it */
    cuzk_fr *pw = NULL;
    if ((rc = gpu.witness_alloc(&gpu, nw, &pw))) {
        fprintf(stderr, "bench_gpu_prove: pinned witness buffer: %s\n", cuzk_strerror(rc));
        goto out;
    }
    memcpy(pw, w, (size_t)nw * sizeof *w);
    free(w);
    w = pw;
    pinned_w = 1;
    t0 = bench_now_ms();
    char gerr[512] = "";
    if ((rc = cuzk_cuda_backend_preload(&gpu, &pk, gerr, sizeof gerr))) {
        report_gpu_failure(gerr, rc);
        goto out;
    }
    printf("# key points uploaded to the device in %.0f ms (%.0f MiB)\n", bench_now_ms() - t0,
           (double)cuzk_cuda_backend_resident_bytes(&gpu, &pk) / (1 << 20));
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "bench_gpu_prove: cannot write %s\n", csv_path);
        goto out;
    }

    double prove[MAX_REPS], total[MAX_REPS];
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, seed + 1);
    printf("rep       spmv   upload      ntt    h_msm      msm   g2_msm      gpu    prove   "
           "verify    total     fold (ms)\n");
    for (int rep = -1; rep < reps; rep++) { /* rep -1: the warm-up */
        struct cuzk_snarkjs_proof proof;
        uint64_t s = cuzk_rng_u64(&rng);
        struct cuzk_rng br;
        cuzk_rng_seed(&br, s);
        double a = bench_now_ms();
        rc = cuzk_groth16_prove(&gpu, &pk, w, nw, &br, NULL, &proof, NULL, gerr, sizeof gerr);
        double b = bench_now_ms();
        if (rc) {
            report_gpu_failure(gerr, rc);
            goto out;
        }
        int ok = cuzk_groth16_verify(&vk, w + 1, N_PUB, &proof);
        double c = bench_now_ms();
        if (ok != 1) {
            fprintf(stderr, "bench_gpu_prove: WRONG RESULT: the proof does not verify\n");
            goto out;
        }
        struct cuzk_cuda_timing t;
        cuzk_cuda_backend_last_timing(&gpu, &t);
        char name[16] = "warm-up";
        if (rep >= 0) snprintf(name, sizeof name, "%d", rep);
        printf("%-7s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n", name,
               t.spmv_ms, t.upload_ms, t.ntt_ms, t.h_msm_ms, t.msm_ms, t.g2_msm_ms, t.gpu_total_ms,
               b - a, c - b, c - a, t.fold_ms);
        fflush(stdout);
        if (quick && rep == 0) { /* the CPU backend, same blinding: the same bytes */
            struct cuzk_backend cpu;
            struct cuzk_snarkjs_proof ref;
            cuzk_cpu_backend_init(&cpu, pool);
            cuzk_rng_seed(&br, s);
            if (cuzk_groth16_prove(&cpu, &pk, w, nw, &br, NULL, &ref, NULL, NULL, 0) != CUZK_OK ||
                memcmp(&ref, &proof, sizeof ref)) {
                fprintf(stderr, "bench_gpu_prove: WRONG RESULT: the CPU backend's proof differs\n");
                goto out;
            }
            printf("# the CPU backend gives the same proof bytes\n");
        }
        if (rep < 0) continue;
        prove[rep] = b - a;
        total[rep] = c - a;
        if (csv)
            fprintf(csv, "gpu_prove,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                    log_n, rep, t.spmv_ms, t.upload_ms, t.ntt_ms, t.h_msm_ms, t.msm_ms, t.g2_msm_ms,
                    t.gpu_total_ms, b - a, c - b, c - a, t.fold_ms);
    }
    bench_sort(prove, (size_t)reps);
    bench_sort(total, (size_t)reps);
    printf("# 2^%d: prove min %.1f ms, median %.1f ms; with verification min %.1f ms, median "
           "%.1f ms\n",
           log_n, prove[0], prove[reps / 2], total[0], total[reps / 2]);
    struct cuzk_cuda_stats st;
    cuzk_cuda_backend_stats(&gpu, &st);
    printf("# device memory: key %.0f MiB, work %.0f MiB (presum space: %s); pinned host %.0f "
           "MiB; queries folded: %zu after the first proof, H at upload: %s\n",
           (double)st.bases_vram / (1 << 20), (double)st.work_vram / (1 << 20),
           st.presum_space > 1 ? "sized for G2"
           : st.presum_space   ? "sized for G1"
                               : "no",
           (double)st.pinned / (1 << 20), st.dense_folded, st.folded ? "yes" : "no");
    ret = 0;
out:
    if (csv) fclose(csv);
    if (pinned_w) {
        gpu.witness_free(&gpu, w, nw);
        w = NULL;
    }
    if (gpu.impl) cuzk_cuda_backend_free(&gpu);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_groth16_pk_free(&pk);
    cuzk_zkey_free(&z);
    free(w);
    cuzk_pool_destroy(pool);
    return ret;
}
