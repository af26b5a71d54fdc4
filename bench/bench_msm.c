/* MSM benchmark: milliseconds per multi-scalar multiplication (min and median over runs) on G1
 * and G2, with one thread and with one thread per CPU. Every run's result is checked without
 * an O(n) reference: the points are P_i = [t_i]G with known t_i (t_{i+1} = t_i + d, so they
 * come from one chain of additions), hence the MSM must equal [sum k_i t_i mod r]G, one scalar
 * multiplication. A wrong result fails the run.
 *
 *   bench_msm [--quick] [--large] [--threads N] [--window C] [--slab S]
 *     --quick     2^10 and 2^12 only, fewer runs
 *     --large     adds G1 at 2^18 and 2^20
 *     --threads   the second thread count (default: one per CPU)
 *     --window, --slab   force those choices of the MSM (see struct cuzk_msm_tuning)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_msm"
#include "bench_util.h"
#include "cuzk/error.h"
#include "msm/msm.h"

static struct cuzk_rng rng;
static struct cuzk_msm_tuning tune;

/* Scalars: uniform, or shaped like a Filecoin witness (half zero, 40% one, the rest uniform). */
enum dist { UNIFORM, WITNESS };
static const char *dist_name[] = {"uniform", "witness"};

/* k[i] for i < n with their field values kf[i], and sum k_i t_i for t_i = t0 + i d. */
static void make_scalars(cuzk_scalar *k, cuzk_fr *kf, size_t n, enum dist dist, const cuzk_fr *t0,
                         const cuzk_fr *d, cuzk_fr *sum) {
    cuzk_fr t = *t0, p;
    cuzk_fr_set_zero(sum);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cuzk_rng_u64(&rng) % 10;
        if (dist == UNIFORM || u >= 9)
            cuzk_fr_random(&kf[i], &rng);
        else if (u < 5)
            cuzk_fr_set_zero(&kf[i]);
        else
            cuzk_fr_set_one(&kf[i]);
        cuzk_fr_mul(&p, &kf[i], &t);
        cuzk_fr_add(sum, sum, &p);
        cuzk_fr_add(&t, &t, d);
    }
    cuzk_scalar_batch_from_fr(NULL, k, kf, n);
}

#define CHAIN_BLOCK 4096

/* Benchmarks one size of one group; returns 0, or 1 on a wrong result. */
#define BENCH_GROUP(G)                                                                             \
    static int G##_bench(size_t n, enum dist dist, struct cuzk_pool *pool, int runs) {             \
        G##_affine *pts = bench_xmalloc(n * sizeof *pts), gen;                                     \
        G *jac = bench_xmalloc(CHAIN_BLOCK * sizeof *jac);                                         \
        cuzk_scalar *k = bench_xmalloc(n * sizeof *k);                                             \
        cuzk_fr *kf = bench_xmalloc(n * sizeof *kf), t0, d, sum;                                   \
        int bad = 0;                                                                               \
        /* P_i = [t0 + i d]G by a chain of additions */                                            \
        cuzk_fr_random(&t0, &rng);                                                                 \
        cuzk_fr_random(&d, &rng);                                                                  \
        cuzk_scalar s;                                                                             \
        G g, p, dg;                                                                                \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&g, &gen);                                                                 \
        cuzk_scalar_from_fr(&s, &t0);                                                              \
        G##_mul_var(&p, &g, s.l, 4);                                                               \
        cuzk_scalar_from_fr(&s, &d);                                                               \
        G##_mul_var(&dg, &g, s.l, 4);                                                              \
        for (size_t lo = 0; lo < n; lo += CHAIN_BLOCK) {                                           \
            size_t m = n - lo < CHAIN_BLOCK ? n - lo : CHAIN_BLOCK;                                \
            for (size_t i = 0; i < m; i++) {                                                       \
                jac[i] = p;                                                                        \
                G##_add(&p, &p, &dg);                                                              \
            }                                                                                      \
            G##_batch_to_affine(pts + lo, jac, m);                                                 \
        }                                                                                          \
        make_scalars(k, kf, n, dist, &t0, &d, &sum);                                               \
        G want, got;                                                                               \
        cuzk_scalar_from_fr(&s, &sum);                                                             \
        G##_mul_var(&want, &g, s.l, 4);                                                            \
        double ms[16];                                                                             \
        for (int r = 0; r < runs; r++) {                                                           \
            double t = bench_now_ms();                                                             \
            int err = G##_msm_tuned(pool, &got, pts, k, n, &tune);                                 \
            ms[r] = bench_now_ms() - t;                                                            \
            if (err != CUZK_OK || !G##_eq(&got, &want)) {                                          \
                fprintf(stderr, #G " n = %zu: %s\n", n,                                            \
                        err != CUZK_OK ? cuzk_strerror(err) : "WRONG RESULT");                     \
                bad = 1;                                                                           \
                goto out;                                                                          \
            }                                                                                      \
        }                                                                                          \
        bench_sort(ms, (size_t)runs);                                                              \
        printf("%-7s %8zu %-8s %7u %10.1f %10.1f\n", #G, n, dist_name[dist], cuzk_pool_size(pool), \
               ms[0], ms[runs / 2]);                                                               \
        fflush(stdout);                                                                            \
    out:                                                                                           \
        free(pts);                                                                                 \
        free(jac);                                                                                 \
        free(k);                                                                                   \
        free(kf);                                                                                  \
        return bad;                                                                                \
    }

BENCH_GROUP(cuzk_g1)
BENCH_GROUP(cuzk_g2)

int main(int argc, char **argv) {
    int quick = 0, large = 0;
    unsigned nthreads = cuzk_cpu_count();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--large"))
            large = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nthreads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            tune.window = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--slab") && i + 1 < argc)
            tune.slab = (size_t)atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--large] [--threads N] [--window C] [--slab S]\n",
                    argv[0]);
            return 2;
        }
    }
    cuzk_rng_seed(&rng, 42);
    struct cuzk_pool *pools[2] = {NULL, NULL};
    if (nthreads > 1 && cuzk_pool_create(&pools[1], nthreads, "msm-bench") != CUZK_OK) {
        fprintf(stderr, "cannot create a pool\n");
        return 1;
    }
    int npools = nthreads > 1 ? 2 : 1;
    static const size_t full[] = {1 << 12, 1 << 14, 1 << 16}, small[] = {1 << 10, 1 << 12};
    const size_t *sizes = quick ? small : full;
    size_t nsizes = quick ? 2 : 3;
    int runs = quick ? 2 : 5, bad = 0;

    printf("%-7s %8s %-8s %7s %10s %10s\n", "group", "n", "scalars", "threads", "ms min",
           "ms median");
    for (size_t s = 0; s < nsizes; s++)
        for (int p = 0; p < npools; p++) bad |= cuzk_g1_bench(sizes[s], UNIFORM, pools[p], runs);
    if (!quick)
        for (int p = 0; p < npools; p++) bad |= cuzk_g1_bench(1 << 16, WITNESS, pools[p], runs);
    for (size_t s = 0; s < nsizes; s++)
        for (int p = 0; p < npools; p++) bad |= cuzk_g2_bench(sizes[s], UNIFORM, pools[p], runs);
    if (large) {
        static const size_t big[] = {1 << 18, 1 << 20};
        for (size_t s = 0; s < 2; s++)
            for (int p = 0; p < npools; p++) bad |= cuzk_g1_bench(big[s], UNIFORM, pools[p], 3);
    }
    cuzk_pool_destroy(pools[1]);
    return bad;
}
