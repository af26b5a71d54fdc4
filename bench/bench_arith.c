/* Arithmetic benchmark: nanoseconds per operation (min and median over samples) for the field,
 * group and pairing operations the prover is built from. Each measured loop is a dependency
 * chain (every result feeds the next call), and every benchmark checks its own result against
 * an independent computation before it is reported: a fast wrong answer fails the run.
 *
 *   bench_arith [--quick] [--csv]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_arith"
#include "bench_util.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "pairing/pairing.h"

struct bench {
    const char *name;
    long iters; /* operations per sample */
    void (*run)(long iters);
    int (*check)(void); /* 1 if the state after the runs is right */
};

static struct cuzk_rng rng;
static int csv;

/* ---- the measured operations, each with the state it chains through ----------------------- */

static cuzk_fr fr_x, fr_y, fr_start;
static long fr_total;
static void run_fr_mul(long n) {
    for (long i = 0; i < n; i++) cuzk_fr_mul(&fr_x, &fr_x, &fr_y);
    fr_total += n;
}
static int check_fr_mul(void) { /* x = start * y^total */
    cuzk_fr t;
    uint64_t e[1] = {(uint64_t)fr_total};
    cuzk_fr_pow(&t, &fr_y, e, 1);
    cuzk_fr_mul(&t, &t, &fr_start);
    return cuzk_fr_eq(&t, &fr_x);
}

static cuzk_fp fp_x, fp_y, fp_start;
static long fp_total;
static void run_fp_mul(long n) {
    for (long i = 0; i < n; i++) cuzk_fp_mul(&fp_x, &fp_x, &fp_y);
    fp_total += n;
}
static int check_fp_mul(void) {
    cuzk_fp t;
    uint64_t e[1] = {(uint64_t)fp_total};
    cuzk_fp_pow(&t, &fp_y, e, 1);
    cuzk_fp_mul(&t, &t, &fp_start);
    return cuzk_fp_eq(&t, &fp_x);
}

static cuzk_fp inv_x, inv_start;
static long inv_total;
static void run_fp_inv(long n) {
    for (long i = 0; i < n; i++) cuzk_fp_inv(&inv_x, &inv_x);
    inv_total += n;
}
static void run_fp_inv_var(long n) {
    for (long i = 0; i < n; i++) cuzk_fp_inv_var(&inv_x, &inv_x);
    inv_total += n;
}
static int check_fp_inv(void) { /* an even number of inversions is the identity */
    cuzk_fp t = inv_x;
    if (inv_total & 1) cuzk_fp_inv(&t, &t);
    return cuzk_fp_eq(&t, &inv_start);
}

static cuzk_g1 g1_acc;
static cuzk_g1_affine g1_base;
static long g1_adds, g1_dbls; /* acc = 2^dbls * (1 + adds) * base when adds precede dbls */
static void run_g1_add_affine(long n) {
    for (long i = 0; i < n; i++) cuzk_g1_add_affine(&g1_acc, &g1_acc, &g1_base);
    g1_adds += n;
}
static void run_g1_dbl(long n) {
    for (long i = 0; i < n; i++) cuzk_g1_dbl(&g1_acc, &g1_acc);
    g1_dbls += n;
}
static int check_g1_chain(void) {
    cuzk_g1 t;
    uint64_t k[1] = {(uint64_t)(1 + g1_adds)};
    cuzk_g1_from_affine(&t, &g1_base);
    cuzk_g1_mul_var(&t, &t, k, 1);
    for (long i = 0; i < g1_dbls; i++) cuzk_g1_dbl(&t, &t);
    return cuzk_g1_eq(&t, &g1_acc);
}

static cuzk_g2 g2_acc, g2_base;
static long g2_adds;
static void run_g2_add(long n) {
    for (long i = 0; i < n; i++) cuzk_g2_add(&g2_acc, &g2_acc, &g2_base);
    g2_adds += n;
}
static int check_g2_add(void) {
    cuzk_g2 t;
    uint64_t k[1] = {(uint64_t)(1 + g2_adds)};
    cuzk_g2_mul_var(&t, &g2_base, k, 1);
    return cuzk_g2_eq(&t, &g2_acc);
}

static cuzk_g1 smul_acc, smul_start;
static uint64_t smul_k[4];
static long smul_total;
static void run_g1_mul(long n) {
    for (long i = 0; i < n; i++) cuzk_g1_mul_var(&smul_acc, &smul_acc, smul_k, 4);
    smul_total += n;
}
static int check_g1_mul(void) { /* acc = k^total * start, recomputed as one scalar k^total */
    cuzk_fr k, kt;
    cuzk_fr_from_canonical(&k, smul_k);
    uint64_t e[1] = {(uint64_t)smul_total}, lim[4];
    cuzk_fr_pow(&kt, &k, e, 1);
    cuzk_fr_to_canonical(lim, &kt);
    cuzk_g1 t;
    cuzk_g1_mul_var(&t, &smul_start, lim, 4);
    return cuzk_g1_eq(&t, &smul_acc);
}

static cuzk_g1_affine pair_p;
static cuzk_g2_affine pair_q;
static cuzk_fp12 pair_e;
static uint64_t pair_a[4];
static void run_pairing(long n) {
    for (long i = 0; i < n; i++) cuzk_pairing(&pair_e, &pair_p, &pair_q);
}
static int check_pairing(void) { /* e(aP, Q) = e(P, Q)^a */
    cuzk_g1 ap;
    cuzk_g1_affine apa;
    cuzk_fp12 lhs, rhs;
    cuzk_g1_from_affine(&ap, &pair_p);
    cuzk_g1_mul_var(&ap, &ap, pair_a, 4);
    cuzk_g1_to_affine(&apa, &ap);
    cuzk_pairing(&lhs, &apa, &pair_q);
    cuzk_fp12_pow(&rhs, &pair_e, pair_a, 4);
    return cuzk_fp12_eq(&lhs, &rhs) && !cuzk_fp12_is_one(&pair_e);
}

static void setup(void) {
    cuzk_fr_random(&fr_x, &rng);
    cuzk_fr_random(&fr_y, &rng);
    fr_start = fr_x;
    cuzk_fp_random(&fp_x, &rng);
    cuzk_fp_random(&fp_y, &rng);
    fp_start = fp_x;
    cuzk_fp_random(&inv_x, &rng);
    inv_start = inv_x;

    cuzk_fr s;
    uint64_t k[4];
    cuzk_g1 gj;
    cuzk_g1_affine g;
    cuzk_g1_generator(&g);
    cuzk_g1_from_affine(&gj, &g);
    cuzk_fr_random(&s, &rng);
    cuzk_fr_to_canonical(k, &s);
    cuzk_g1_mul_var(&gj, &gj, k, 4);
    cuzk_g1_to_affine(&g1_base, &gj);
    cuzk_g1_from_affine(&g1_acc, &g1_base);
    smul_acc = smul_start = gj;
    cuzk_fr_random(&s, &rng);
    cuzk_fr_to_canonical(smul_k, &s);
    pair_p = g1_base;

    cuzk_g2_affine h;
    cuzk_g2_generator(&h);
    cuzk_g2_from_affine(&g2_base, &h);
    cuzk_fr_random(&s, &rng);
    cuzk_fr_to_canonical(k, &s);
    cuzk_g2_mul_var(&g2_base, &g2_base, k, 4);
    g2_acc = g2_base;
    cuzk_g2_to_affine(&pair_q, &g2_base);
    cuzk_fr_random(&s, &rng);
    cuzk_fr_to_canonical(pair_a, &s);
}

int main(int argc, char **argv) {
    int quick = 0;
    if (bench_args(argc, argv, &quick, &csv)) return 2;
    cuzk_rng_seed(&rng, 42);
    setup();
    struct bench benches[] = {
        {"fr_mul", 100000, run_fr_mul, check_fr_mul},
        {"fp_mul", 50000, run_fp_mul, check_fp_mul},
        {"fp_inv", 200, run_fp_inv, check_fp_inv},
        {"fp_inv_var", 200, run_fp_inv_var, check_fp_inv},
        {"g1_add_affine", 20000, run_g1_add_affine, NULL},
        {"g1_dbl", 20000, run_g1_dbl, check_g1_chain},
        {"g2_add", 5000, run_g2_add, check_g2_add},
        {"g1_mul_255bit", 20, run_g1_mul, check_g1_mul},
        {"pairing", 5, run_pairing, check_pairing},
    };
    int samples = quick ? 3 : 15;
    int failed = 0;
    if (csv)
        printf("op,ns_min,ns_median,samples,iters\n");
    else
        printf("%-16s %12s %12s\n", "op", "ns/op min", "ns/op median");
    for (size_t b = 0; b < sizeof benches / sizeof benches[0]; b++) {
        struct bench *bb = &benches[b];
        long iters = quick ? (bb->iters / 10 > 0 ? bb->iters / 10 : 1) : bb->iters;
        double t[32];
        bb->run(iters); /* warm-up */
        for (int s = 0; s < samples; s++) {
            double t0 = bench_now_ns();
            bb->run(iters);
            t[s] = (bench_now_ns() - t0) / (double)iters;
        }
        bench_sort(t, (size_t)samples);
        if (bb->check && !bb->check()) {
            fprintf(stderr, "%s: WRONG RESULT\n", bb->name);
            failed = 1;
        }
        if (csv)
            printf("%s,%.1f,%.1f,%d,%ld\n", bb->name, t[0], t[samples / 2], samples, iters);
        else
            printf("%-16s %12.1f %12.1f\n", bb->name, t[0], t[samples / 2]);
    }
    return failed;
}
