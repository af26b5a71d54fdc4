/* NTT benchmark: milliseconds (min and median over samples) of the forward transform and of the
 * coset inverse (shift 7, the bellperson h-polynomial step) at 2^16, 2^18 and 2^20, on one
 * thread and on one thread per CPU. Every size is checked before it is reported: the forward
 * result of one thread and of the pool must agree and match a direct evaluation at a sampled
 * point, and inverse(forward(a)) and coset_inverse(coset_forward(a)) must give a back.
 *
 *   bench_ntt [--quick] [--csv]      (--quick: 2^12 and 2^16, fewer samples)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_ntt"
#include "bench_util.h"
#include "cuzk/error.h"
#include "ntt/ntt.h"

static struct cuzk_rng rng;
static int csv;

enum op { OP_FORWARD, OP_COSET_INVERSE };
static const char *op_name[] = {"forward", "coset_inverse"};

static void run_op(enum op op, struct cuzk_pool *pool, const struct cuzk_ntt_domain *d,
                   cuzk_fr *a) {
    cuzk_fr g;
    cuzk_fr_generator(&g);
    if (op == OP_FORWARD)
        cuzk_ntt_forward(pool, d, a);
    else
        cuzk_ntt_coset_inverse(pool, d, a, &g);
}

static void measure(enum op op, struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, cuzk_fr *a,
                    int samples) {
    double t[16];
    run_op(op, pool, d, a); /* warm-up: page faults, caches */
    for (int s = 0; s < samples; s++) {
        double t0 = bench_now_ms();
        run_op(op, pool, d, a);
        t[s] = bench_now_ms() - t0;
    }
    bench_sort(t, (size_t)samples);
    unsigned threads = cuzk_pool_size(pool);
    if (csv)
        printf("%s,%d,%u,%.3f,%.3f,%d\n", op_name[op], d->log_n, threads, t[0], t[samples / 2],
               samples);
    else
        printf("%-14s 2^%-3d %8u %12.2f %12.2f\n", op_name[op], d->log_n, threads, t[0],
               t[samples / 2]);
}

/* 1 if the transforms are right at this size (see the header comment). */
static int self_check(struct cuzk_pool *pool, const struct cuzk_ntt_domain *d, const cuzk_fr *in) {
    const size_t n = d->n, bytes = n * sizeof(cuzk_fr);
    cuzk_fr *x = malloc(bytes), *y = malloc(bytes);
    if (!x || !y) {
        free(x);
        free(y);
        return 0;
    }
    memcpy(x, in, bytes);
    memcpy(y, in, bytes);
    cuzk_ntt_forward(NULL, d, x);
    cuzk_ntt_forward(pool, d, y);
    int ok = !memcmp(x, y, bytes);

    size_t j = cuzk_rng_u64(&rng) % n;
    uint64_t e = j;
    cuzk_fr pt, acc;
    cuzk_fr_pow(&pt, &d->omega, &e, 1);
    cuzk_fr_set_zero(&acc);
    for (size_t i = n; i-- > 0;) { /* Horner: sum_i in_i omega^(ij) */
        cuzk_fr_mul(&acc, &acc, &pt);
        cuzk_fr_add(&acc, &acc, &in[i]);
    }
    ok &= cuzk_fr_eq(&acc, &x[j]);

    cuzk_ntt_inverse(pool, d, y);
    ok &= !memcmp(y, in, bytes);
    cuzk_fr g;
    cuzk_fr_generator(&g);
    cuzk_ntt_coset_forward(pool, d, y, &g);
    cuzk_ntt_coset_inverse(pool, d, y, &g);
    ok &= !memcmp(y, in, bytes);
    free(x);
    free(y);
    return ok;
}

int main(int argc, char **argv) {
    int quick = 0;
    if (bench_args(argc, argv, &quick, &csv)) return 2;
    cuzk_rng_seed(&rng, 42);
    struct cuzk_pool *pool = NULL;
    unsigned ncpu = cuzk_cpu_count();
    int err = cuzk_pool_create(&pool, ncpu, "bench-ntt");
    if (err != CUZK_OK) {
        fprintf(stderr, "pool: %s\n", cuzk_strerror(err));
        return 1;
    }
    static const int full[] = {16, 18, 20}, short_[] = {12, 16};
    const int *sizes = quick ? short_ : full;
    int nsizes = quick ? 2 : 3, samples = quick ? 3 : 7, failed = 0;

    if (csv)
        printf("op,log_n,threads,ms_min,ms_median,samples\n");
    else
        printf("%-14s %-5s %8s %12s %12s\n", "op", "n", "threads", "ms min", "ms median");
    for (int s = 0; s < nsizes; s++) {
        struct cuzk_ntt_domain *d;
        err = cuzk_ntt_domain_create(pool, sizes[s], &d);
        cuzk_fr *in = malloc(((size_t)1 << sizes[s]) * sizeof *in);
        cuzk_fr *a = malloc(((size_t)1 << sizes[s]) * sizeof *a);
        if (err != CUZK_OK || !in || !a) {
            fprintf(stderr, "2^%d: out of memory\n", sizes[s]);
            return 1;
        }
        for (size_t i = 0; i < d->n; i++) cuzk_fr_random(&in[i], &rng);
        if (!self_check(pool, d, in)) {
            fprintf(stderr, "2^%d: WRONG RESULT\n", sizes[s]);
            failed = 1;
        }
        for (int op = OP_FORWARD; op <= OP_COSET_INVERSE; op++) {
            memcpy(a, in, d->n * sizeof *a);
            measure((enum op)op, NULL, d, a, samples);
            if (ncpu > 1) measure((enum op)op, pool, d, a, samples);
        }
        free(a);
        free(in);
        cuzk_ntt_domain_free(d);
    }
    cuzk_pool_destroy(pool);
    return failed;
}
