/* The GPU NTT against its CPU twin (src/ntt/ntt.h), on fresh random inputs:
 *   - the device field arithmetic (add, sub, mul, sqr, neg) against the CPU field on random
 *     pairs and on every pair of edge values (0, 1, r-1, 2^32-1, ...);
 *   - every transform kind at every size 2^1 .. 2^24 against the CPU NTT (coset shifts: a random
 *     one, the generator 7 and snarkjs's omega_2n, in turn), GPU roundtrips inverse(forward(a))
 *     and coset_inverse(coset_forward(a)), and the device-resident path (load, run, store);
 *   - other kernel shapes (block size, columns, threads) at sizes that give them one, two and
 *     several passes, so that every pass layout is checked, not only the default one;
 *   - 2^27 forward against the CPU, and GPU roundtrips there;
 *   - argument checks, and CUZK_ENODEV on a machine without a GPU (then the test reports itself
 *     skipped, exit 77).
 * On a mismatch it prints the size, kind, number of differing elements, the first differing
 * index with both values (Montgomery limbs in hex) and where the GPU's value sits in the CPU's
 * output, if anywhere (a misplaced element points at an indexing error, a value found nowhere
 * at the arithmetic). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "ff/fr_vec.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_ntt.h"
#include "ntt/ntt.h"
#include "test_util.h"
#include "util/clock.h"

#define TEST_MAX_LOG 24 /* every size up to this one, all kinds */
#define TEST_BIG_LOG 27 /* and this one: forward against the CPU, GPU roundtrips */
/* the library's default kernel shape (the last pass's columns chosen per size), restored after
 * the sweep of shapes */
#define TEST_SHAPE 10, -1, 128

static struct cuzk_pool *pool;
static struct cuzk_gpu_ntt_ctx *ctx;

static const char *kind_name[] = {"forward", "inverse", "coset_forward", "coset_inverse",
                                  "inverse_to_coset"};

/* The Montgomery limbs of a, most significant first. */
/* Compares got (GPU) with want (CPU); on a mismatch prints what the header comment promises.
 * Returns 1 if they are equal. */
static int compare(const char *what, int log_n, const char *kind, const cuzk_fr *got,
                   const cuzk_fr *want, size_t n) {
    size_t bad = 0, first = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cuzk_fr_eq(&got[i], &want[i])) {
            if (!bad) first = i;
            last = i;
            bad++;
        }
    }
    CHECK(bad == 0);
    if (!bad) return 1;
    char g[67], w[67];
    test_fr_hex(g, &got[first]);
    test_fr_hex(w, &want[first]);
    fprintf(stderr,
            "test_gpu_ntt: MISMATCH %s log_n=%d kind=%s: %zu of %zu elements differ (first %zu, "
            "last %zu)\n  index %zu: gpu %s\n  index %zu: cpu %s\n",
            what, log_n, kind, bad, n, first, last, first, g, first, w);
    size_t found = n;
    for (size_t i = 0; i < n && found == n; i++)
        if (cuzk_fr_eq(&want[i], &got[first])) found = i;
    if (found < n)
        fprintf(stderr, "  the gpu value at %zu is the cpu value at index %zu\n", first, found);
    else
        fprintf(stderr, "  the gpu value at %zu appears nowhere in the cpu output\n", first);
    return 0;
}

/* ---- random vectors, filled in parallel (deterministic for a given test seed) ------------- */

static cuzk_fr *random_vec(size_t n) {
    cuzk_fr *v = malloc(n * sizeof *v);
    if (!v) {
        fprintf(stderr, "test_gpu_ntt: out of host memory (%zu elements)\n", n);
        exit(1);
    }
    cuzk_fr_vec_random(pool, v, n, cuzk_rng_u64(&test_rng));
    return v;
}

static cuzk_fr *copy_vec(const cuzk_fr *a, size_t n) {
    cuzk_fr *v = malloc(n * sizeof *v);
    if (!v) {
        fprintf(stderr, "test_gpu_ntt: out of host memory (%zu elements)\n", n);
        exit(1);
    }
    memcpy(v, a, n * sizeof *v);
    return v;
}

static void cpu_ntt(const struct cuzk_ntt_domain *d, cuzk_fr *a, int kind, const cuzk_fr *shift) {
    switch (kind) {
    case CUZK_GPU_NTT_FORWARD: cuzk_ntt_forward(pool, d, a); break;
    case CUZK_GPU_NTT_INVERSE: cuzk_ntt_inverse(pool, d, a); break;
    case CUZK_GPU_NTT_COSET_FORWARD: cuzk_ntt_coset_forward(pool, d, a, shift); break;
    case CUZK_GPU_NTT_COSET_INVERSE: cuzk_ntt_coset_inverse(pool, d, a, shift); break;
    default: /* CUZK_GPU_NTT_INVERSE_TO_COSET */
        cuzk_ntt_inverse(pool, d, a);
        cuzk_ntt_scale_powers(pool, a, d->n, shift);
        break;
    }
}

/* A GPU call that must succeed; prints the CUDA failure otherwise. */
static int gpu_ok(int err, const char *what, int log_n) {
    CHECK(err == CUZK_OK);
    if (err != CUZK_OK)
        fprintf(stderr, "test_gpu_ntt: %s at log_n=%d failed: %s (%s)\n", what, log_n,
                cuzk_strerror(err), cuzk_gpu_ntt_last_error());
    return err == CUZK_OK;
}

/* ---- device field arithmetic --------------------------------------------------------------- */

static void test_field(void) {
    const size_t nrand = 1 << 14, n = TEST_FR_NEDGES * TEST_FR_NEDGES + nrand;
    cuzk_fr *a = test_xmalloc(n * sizeof *a), *b = test_xmalloc(n * sizeof *b),
            *got = test_xmalloc(n * sizeof *got), *want = test_xmalloc(n * sizeof *want);
    test_fr_pairs(a, b, nrand); /* every pair of the edge values, then random pairs */
    static const char *op_name[] = {"add", "sub", "mul", "sqr", "neg"};
    for (int op = CUZK_GPU_FR_ADD; op <= CUZK_GPU_FR_NEG; op++) {
        test_fr_apply(op, want, a, b, n);
        memset(got, 0xa5, n * sizeof *got);
        if (!gpu_ok(cuzk_gpu_fr_eval(0, (enum cuzk_gpu_fr_op)op, a, b, got, n), "fr_eval", 0))
            continue;
        if (!compare("field", 0, op_name[op], got, want, n)) {
            for (size_t i = 0; i < n; i++) {
                if (cuzk_fr_eq(&got[i], &want[i])) continue;
                char x[67], y[67];
                test_fr_hex(x, &a[i]);
                test_fr_hex(y, &b[i]);
                fprintf(stderr, "  operands at %zu: a %s\n                  b %s\n", i, x, y);
                break;
            }
        }
    }
    printf("test_gpu_ntt: device field arithmetic checked on %zu pairs\n", n);
    free(a);
    free(b);
    free(got);
    free(want);
}

/* ---- transforms ---------------------------------------------------------------------------- */

/* The coset shift for size 2^k: a random element, the generator 7 or omega_2n, in turn. */
static void pick_shift(cuzk_fr *s, const struct cuzk_ntt_domain *d) {
    switch (d->log_n % 3) {
    case 0:
        do cuzk_fr_random(s, &test_rng);
        while (cuzk_fr_is_zero(s));
        break;
    case 1: cuzk_fr_generator(s); break;
    default: *s = d->omega_2n; break;
    }
}

/* Every kind at size 2^k against the CPU, GPU roundtrips, and the device-resident paths. */
static void test_size(int k) {
    const size_t n = (size_t)1 << k;
    struct cuzk_ntt_domain *d;
    CHECK(cuzk_ntt_domain_create(pool, k, &d) == CUZK_OK);
    cuzk_fr shift;
    pick_shift(&shift, d);
    double ms[5] = {0};
    float kms = 0;
    cuzk_fr *fwd_in = NULL, *fwd_cpu = NULL; /* kept for the device-resident checks */
    for (int kind = CUZK_GPU_NTT_FORWARD; kind <= CUZK_GPU_NTT_INVERSE_TO_COSET; kind++) {
        cuzk_fr *in = random_vec(n), *cpu = copy_vec(in, n), *gpu = copy_vec(in, n);
        cpu_ntt(d, cpu, kind, &shift);
        double t0 = cuzk_clock_ms();
        int err = cuzk_gpu_ntt(ctx, gpu, k, (enum cuzk_gpu_ntt_kind)kind, &shift);
        ms[kind] = cuzk_clock_ms() - t0;
        if (gpu_ok(err, kind_name[kind], k)) compare("gpu vs cpu", k, kind_name[kind], gpu, cpu, n);
        free(gpu);
        if (kind == CUZK_GPU_NTT_FORWARD) {
            fwd_in = in;
            fwd_cpu = cpu;
        } else {
            free(in);
            free(cpu);
        }
    }
    /* the device-resident paths on the forward input: load, run, store; then the
     * device-pointer entry on the context's own buffer, then sync */
    cuzk_fr *x = copy_vec(fwd_in, n);
    memset(x, 0, n * sizeof *x); /* a result that is not written back shows as zeros */
    if (gpu_ok(cuzk_gpu_ntt_load(ctx, fwd_in, n), "load", k) &&
        gpu_ok(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_FORWARD, NULL, &kms), "run", k) &&
        gpu_ok(cuzk_gpu_ntt_store(ctx, x, n), "store", k))
        compare("device-resident run", k, "forward", x, fwd_cpu, n);
    {
        /* the timed run's passes: one pass holds a transform of up to 2^10 (the default
         * shape's blocks); above, a pass does up to 8 stages (4 columns) or 9 (2 columns),
         * whichever makes fewer passes: ceil(k / 9); the passes' times are within the
         * transform's (the events around them lie inside its two) */
        float pms[CUZK_GPU_NTT_MAX_LOG + 1], sum = 0;
        const int np = cuzk_gpu_ntt_pass_ms(ctx, pms, CUZK_GPU_NTT_MAX_LOG + 1);
        CHECK(np == (k <= 10 ? 1 : (k + 8) / 9));
        for (int p = 0; p < np && p <= CUZK_GPU_NTT_MAX_LOG; p++) {
            CHECK(pms[p] >= 0);
            sum += pms[p];
        }
        CHECK(sum <= kms + 0.01f);
        CHECK(cuzk_gpu_ntt_pass_ms(ctx, pms, 0) == np); /* cap 0: the count alone */
    }
    memset(x, 0, n * sizeof *x);
    if (gpu_ok(cuzk_gpu_ntt_load(ctx, fwd_in, n), "load", k) &&
        gpu_ok(
            cuzk_gpu_ntt_device(ctx, cuzk_gpu_ntt_ctx_buffer(ctx), k, CUZK_GPU_NTT_FORWARD, NULL),
            "device", k) &&
        gpu_ok(cuzk_gpu_ntt_sync(ctx), "sync", k) &&
        gpu_ok(cuzk_gpu_ntt_store(ctx, x, n), "store", k))
        compare("device pointer entry", k, "forward", x, fwd_cpu, n);
    /* a run that is not timed leaves no pass times */
    CHECK(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_FORWARD, NULL, NULL) == CUZK_OK &&
          cuzk_gpu_ntt_pass_ms(ctx, NULL, 0) == 0);
    /* roundtrips on the GPU alone */
    memcpy(x, fwd_in, n * sizeof *x);
    if (gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_FORWARD, NULL), "forward", k) &&
        gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_INVERSE, NULL), "inverse", k))
        compare("roundtrip inverse(forward(a))", k, "inverse", x, fwd_in, n);
    if (gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_COSET_FORWARD, &shift), "coset_forward", k) &&
        gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_COSET_INVERSE, &shift), "coset_inverse", k))
        compare("roundtrip coset_inverse(coset_forward(a))", k, "coset_inverse", x, fwd_in, n);
    /* the inverse to the coset, then forward, is the coset forward of the inverse (the h
     * polynomial's step), after the coset inverse's tables were in place */
    cuzk_fr *y = copy_vec(fwd_in, n);
    memcpy(x, fwd_in, n * sizeof *x);
    if (gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift), "to_coset", k) &&
        gpu_ok(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_FORWARD, NULL), "forward", k) &&
        gpu_ok(cuzk_gpu_ntt(ctx, y, k, CUZK_GPU_NTT_INVERSE, NULL), "inverse", k) &&
        gpu_ok(cuzk_gpu_ntt(ctx, y, k, CUZK_GPU_NTT_COSET_FORWARD, &shift), "coset_forward", k))
        compare("forward(inverse_to_coset(a))", k, "coset_forward(inverse(a))", x, y, n);
    free(y);
    printf("test_gpu_ntt: 2^%-2d gpu ms with transfers: forward %.3f inverse %.3f coset_forward "
           "%.3f coset_inverse %.3f inverse_to_coset %.3f; forward kernels alone %.3f\n",
           k, ms[0], ms[1], ms[2], ms[3], ms[4], (double)kms);
    free(x);
    free(fwd_in);
    free(fwd_cpu);
    cuzk_ntt_domain_free(d);
}

/* Other kernel shapes: each (log_block, log_cols, threads) at sizes giving it one pass, two
 * passes and several, forward and coset inverse against the CPU. */
static void test_shapes(void) {
    static const int shapes[][3] = {{4, 1, 32},   {5, 0, 32},   {6, 2, 64},   {8, 3, 64},
                                    {9, 4, 128},  {10, 3, 256}, {11, 3, 256}, {12, 3, 256},
                                    {12, 5, 128}, {10, 2, 128}, {TEST_SHAPE}};
    static const int sizes[] = {3, 7, 11, 13, 17, 20};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int lb = shapes[s][0], lc = shapes[s][1], th = shapes[s][2];
        CHECK(cuzk_gpu_ntt_tune(ctx, lb, lc, th) == CUZK_OK);
        int ok = 1;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            const int k = sizes[z];
            const size_t n = (size_t)1 << k;
            struct cuzk_ntt_domain *d;
            CHECK(cuzk_ntt_domain_create(pool, k, &d) == CUZK_OK);
            cuzk_fr shift;
            pick_shift(&shift, d);
            char what[64];
            snprintf(what, sizeof what, "shape (%d,%d,%d)", lb, lc, th);
            for (int kind = CUZK_GPU_NTT_FORWARD; kind <= CUZK_GPU_NTT_INVERSE_TO_COSET;
                 kind += kind ? 1 : 3) { /* forward, coset inverse, inverse to the coset */
                cuzk_fr *in = random_vec(n), *cpu = copy_vec(in, n);
                cpu_ntt(d, cpu, kind, &shift);
                if (gpu_ok(cuzk_gpu_ntt(ctx, in, k, (enum cuzk_gpu_ntt_kind)kind, &shift),
                           kind_name[kind], k))
                    ok &= compare(what, k, kind_name[kind], in, cpu, n);
                free(in);
                free(cpu);
            }
            cuzk_ntt_domain_free(d);
        }
        printf("test_gpu_ntt: kernel shape log_block=%d log_cols=%d threads=%d: %s\n", lb, lc, th,
               ok ? "ok" : "WRONG");
    }
    CHECK(cuzk_gpu_ntt_tune(ctx, TEST_SHAPE) == CUZK_OK);
}

/* 2^27: forward against the CPU, then GPU roundtrips. */
static void test_big(int k) {
    const size_t n = (size_t)1 << k;
    printf("test_gpu_ntt: 2^%d: building the CPU domain and inputs...\n", k);
    fflush(stdout);
    struct cuzk_ntt_domain *d;
    if (cuzk_ntt_domain_create(pool, k, &d) != CUZK_OK) {
        printf("test_gpu_ntt: 2^%d: not enough host memory for the CPU reference: skipped\n", k);
        return;
    }
    cuzk_fr *in = random_vec(n), *cpu = copy_vec(in, n), *gpu = copy_vec(in, n);
    double t0 = cuzk_clock_ms();
    cuzk_ntt_forward(pool, d, cpu);
    double cpu_ms = cuzk_clock_ms() - t0;
    t0 = cuzk_clock_ms();
    int err = cuzk_gpu_ntt(ctx, gpu, k, CUZK_GPU_NTT_FORWARD, NULL);
    double gpu_ms = cuzk_clock_ms() - t0;
    if (gpu_ok(err, "forward", k)) compare("gpu vs cpu", k, "forward", gpu, cpu, n);
    float kms = 0;
    if (gpu_ok(cuzk_gpu_ntt_load(ctx, in, n), "load", k) &&
        gpu_ok(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_FORWARD, NULL, &kms), "run", k) &&
        gpu_ok(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_INVERSE, NULL, NULL), "run", k) &&
        gpu_ok(cuzk_gpu_ntt_store(ctx, gpu, n), "store", k))
        compare("roundtrip inverse(forward(a))", k, "inverse", gpu, in, n);
    cuzk_fr shift;
    cuzk_fr_generator(&shift);
    if (gpu_ok(cuzk_gpu_ntt_load(ctx, in, n), "load", k) &&
        gpu_ok(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_COSET_FORWARD, &shift, NULL), "run", k) &&
        gpu_ok(cuzk_gpu_ntt_run(ctx, k, CUZK_GPU_NTT_COSET_INVERSE, &shift, NULL), "run", k) &&
        gpu_ok(cuzk_gpu_ntt_store(ctx, gpu, n), "store", k))
        compare("roundtrip coset_inverse(coset_forward(a))", k, "coset_inverse", gpu, in, n);
    printf("test_gpu_ntt: 2^%d forward: gpu %.1f ms with transfers, %.3f ms kernels; cpu %.1f ms "
           "on %u threads\n",
           k, gpu_ms, (double)kms, cpu_ms, cuzk_pool_size(pool));
    free(in);
    free(cpu);
    free(gpu);
    cuzk_ntt_domain_free(d);
}

static void test_args(void) {
    int count = 0;
    cuzk_gpu_count(&count);
    struct cuzk_gpu_ntt_ctx *c = (struct cuzk_gpu_ntt_ctx *)&c;
    CHECK(cuzk_gpu_ntt_ctx_create(count, 10, &c) == CUZK_EINVAL && c == NULL);
    CHECK(cuzk_gpu_ntt_ctx_create(-1, 10, &c) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_ctx_create(0, 0, &c) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_ctx_create(0, CUZK_GPU_NTT_MAX_LOG + 1, &c) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_ctx_vram(0) == 0 && cuzk_gpu_ntt_ctx_vram(20) > 96 * ((size_t)1 << 20) - 1);

    const int max = cuzk_gpu_ntt_ctx_max_log(ctx);
    cuzk_fr v[4], zero, one;
    cuzk_fr_set_zero(&zero);
    cuzk_fr_set_one(&one);
    for (int i = 0; i < 4; i++) cuzk_fr_random(&v[i], &test_rng);
    CHECK(cuzk_gpu_ntt(ctx, v, 0, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, max + 1, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, (enum cuzk_gpu_ntt_kind)5, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, (enum cuzk_gpu_ntt_kind)(-1), NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, CUZK_GPU_NTT_INVERSE_TO_COSET, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, CUZK_GPU_NTT_INVERSE_TO_COSET, &zero) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, CUZK_GPU_NTT_COSET_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, v, 2, CUZK_GPU_NTT_COSET_INVERSE, &zero) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, NULL, 2, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(NULL, v, 2, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    char *buf = cuzk_gpu_ntt_ctx_buffer(ctx);
    CHECK(buf != NULL);
    CHECK(cuzk_gpu_ntt_device(ctx, buf + 8, 2, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_device(ctx, NULL, 2, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_load(ctx, v, ((size_t)1 << max) + 1) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 13, 3, 256) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 3, 1, 32) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 11, 11, 256) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 10, -2, 128) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 11, 3, 96) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_tune(ctx, 11, 3, 512) == CUZK_EINVAL);
    /* the rejected calls left the context usable: the unit vector transforms to all ones */
    v[0] = one;
    v[1] = v[2] = v[3] = zero;
    CHECK(cuzk_gpu_ntt(ctx, v, 2, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_OK);
    for (int i = 0; i < 4; i++) CHECK(cuzk_fr_is_one(&v[i]));
}

/* A context with lent twiddles (CUZK_GPU_NTT_LENT_TWIDDLES): no transform before the room is
 * lent; the table is built there, and again after the owner wrote over the room and said so;
 * without the word the transform reads the garbage (so the check can fail). */
static void test_lent(void) {
    const int k = 12;
    const size_t n = (size_t)1 << k;
    CHECK(cuzk_gpu_ntt_ctx_vram2(k, CUZK_GPU_NTT_LENT_TWIDDLES) ==
          cuzk_gpu_ntt_ctx_vram(k) - n * sizeof(cuzk_fr));
    struct cuzk_gpu_ntt_ctx *lent = NULL, *owner = NULL;
    CHECK(cuzk_gpu_ntt_ctx_create2(0, k, 4u, &lent) == CUZK_EINVAL && !lent);
    if (!gpu_ok(cuzk_gpu_ntt_ctx_create2(0, k, CUZK_GPU_NTT_LENT_TWIDDLES, &lent), "lent", k) ||
        !gpu_ok(cuzk_gpu_ntt_ctx_create(0, k, &owner), "owner", k)) {
        cuzk_gpu_ntt_ctx_free(lent);
        return;
    }
    struct cuzk_ntt_domain *d;
    CHECK(cuzk_ntt_domain_create(pool, k, &d) == CUZK_OK);
    cuzk_fr shift;
    pick_shift(&shift, d);
    cuzk_fr *in = random_vec(n), *cpu = copy_vec(in, n), *x = copy_vec(in, n);
    cpu_ntt(d, cpu, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift);
    CHECK(cuzk_gpu_ntt(lent, x, k, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL); /* no room yet */
    CHECK(cuzk_gpu_ntt_ctx_lend_twiddles(owner, cuzk_gpu_ntt_ctx_buffer(lent)) == CUZK_EINVAL);
    void *room = cuzk_gpu_ntt_ctx_buffer(owner);
    CHECK(cuzk_gpu_ntt_ctx_lend_twiddles(lent, room) == CUZK_OK);
    memcpy(x, in, n * sizeof *x);
    if (gpu_ok(cuzk_gpu_ntt(lent, x, k, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift), "lent", k))
        compare("lent twiddles", k, "inverse_to_coset", x, cpu, n);
    /* the owner writes over its room: said, the table is built again */
    cuzk_fr *junk = random_vec(n);
    CHECK(cuzk_gpu_ntt_load(owner, junk, n) == CUZK_OK);
    cuzk_gpu_ntt_ctx_twiddles_lost(lent);
    memcpy(x, in, n * sizeof *x);
    if (gpu_ok(cuzk_gpu_ntt(lent, x, k, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift), "lent again", k))
        compare("lent twiddles rebuilt", k, "inverse_to_coset", x, cpu, n);
    /* not said: the transform reads the junk */
    CHECK(cuzk_gpu_ntt_load(owner, junk, n) == CUZK_OK);
    memcpy(x, in, n * sizeof *x);
    CHECK(cuzk_gpu_ntt(lent, x, k, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift) == CUZK_OK);
    CHECK(memcmp(x, cpu, n * sizeof *x) != 0);
    printf("test_gpu_ntt: lent twiddles at 2^%d: built in the lent room, rebuilt after it was "
           "written over\n",
           k);
    free(junk);
    free(in);
    free(cpu);
    free(x);
    cuzk_ntt_domain_free(d);
    cuzk_gpu_ntt_ctx_free(lent);
    cuzk_gpu_ntt_ctx_free(owner);
}

/* A context with lent scratch and twiddles (the tight work space's): it owns only its coset
 * tables; in the three rooms of a work area made with CUZK_GPU_G16_C_IN_B (A the vector, B the
 * scratch, W the table) every kind transforms as on the CPU; no buffer, no transform before the
 * scratch is lent, none of the lent rooms themselves. */
static void test_lent_scratch(void) {
    const int k = 12;
    const size_t n = (size_t)1 << k;
    const unsigned both = CUZK_GPU_NTT_LENT_TWIDDLES | CUZK_GPU_NTT_LENT_SCRATCH;
    CHECK(cuzk_gpu_ntt_ctx_vram2(k, both) == cuzk_gpu_ntt_ctx_vram(k) - 3 * n * sizeof(cuzk_fr));
    const unsigned area = CUZK_GPU_G16_S_IN_C | CUZK_GPU_G16_W_WIDE | CUZK_GPU_G16_C_IN_B;
    CHECK(cuzk_gpu_g16_vram_for2(n, n / 2, 0, area) == 3 * n * sizeof(cuzk_fr));
    struct cuzk_gpu_ntt_ctx *ctx = NULL;
    struct cuzk_gpu_g16 *g = NULL;
    if (!gpu_ok(cuzk_gpu_ntt_ctx_create2(0, k, both, &ctx), "lent scratch", k)) return;
    if (!gpu_ok(cuzk_gpu_g16_create2(0, n, n / 2, NULL, area, &g), "three rooms", k)) {
        cuzk_gpu_ntt_ctx_free(ctx);
        return;
    }
    CHECK(cuzk_gpu_g16_vram(g) == 3 * n * sizeof(cuzk_fr));
    void *a = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_A), *bv = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_B),
         *wv = cuzk_gpu_g16_vec(g, CUZK_GPU_G16_W);
    struct cuzk_gpu_g16 *g2 = NULL; /* C is B's room: a borrowed C is refused */
    CHECK(cuzk_gpu_g16_create2(0, n, n / 2, a, area, &g2) == CUZK_EINVAL && !g2);
    CHECK(cuzk_gpu_g16_vec(g, CUZK_GPU_G16_C) == bv && cuzk_gpu_g16_vec(g, CUZK_GPU_G16_S) == bv);
    CHECK(cuzk_gpu_ntt_ctx_buffer(ctx) == NULL);
    cuzk_fr *in = random_vec(n), *x = copy_vec(in, n);
    CHECK(cuzk_gpu_ntt_load(ctx, in, n) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt(ctx, x, k, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_ctx_lend_twiddles(ctx, wv) == CUZK_OK);
    CHECK(cuzk_gpu_ntt_device(ctx, a, k, CUZK_GPU_NTT_FORWARD, NULL) ==
          CUZK_EINVAL); /* no scratch */
    CHECK(cuzk_gpu_ntt_ctx_lend_scratch(ctx, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_ctx_lend_scratch(ctx, bv) == CUZK_OK);
    CHECK(cuzk_gpu_ntt_device(ctx, bv, k, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    CHECK(cuzk_gpu_ntt_device(ctx, wv, k, CUZK_GPU_NTT_FORWARD, NULL) == CUZK_EINVAL);
    struct cuzk_ntt_domain *d;
    CHECK(cuzk_ntt_domain_create(pool, k, &d) == CUZK_OK);
    cuzk_fr shift;
    pick_shift(&shift, d);
    static const enum cuzk_gpu_ntt_kind kinds[] = {
        CUZK_GPU_NTT_FORWARD, CUZK_GPU_NTT_INVERSE, CUZK_GPU_NTT_COSET_FORWARD,
        CUZK_GPU_NTT_COSET_INVERSE, CUZK_GPU_NTT_INVERSE_TO_COSET};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        for (int sz = k - 3; sz <= k; sz += 3) { /* a smaller size reads the table's prefix */
            const size_t m = (size_t)1 << sz;
            struct cuzk_ntt_domain *dm;
            CHECK(cuzk_ntt_domain_create(pool, sz, &dm) == CUZK_OK);
            cuzk_fr *cpu = copy_vec(in, m);
            cpu_ntt(dm, cpu, kinds[i], &shift);
            cuzk_gpu_ntt_ctx_twiddles_lost(ctx); /* W's room held something else meanwhile */
            CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W, in, n / 2, n / 2) == CUZK_OK);
            CHECK(cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, in, m, m) == CUZK_OK);
            CHECK(cuzk_gpu_g16_wait(g, CUZK_GPU_G16_W) == CUZK_OK);
            CHECK(cuzk_gpu_g16_wait(g, CUZK_GPU_G16_A) == CUZK_OK);
            const cuzk_fr *sh = kinds[i] >= CUZK_GPU_NTT_COSET_FORWARD ? &shift : NULL;
            memset(x, 0, m * sizeof *x);
            if (gpu_ok(cuzk_gpu_ntt_device(ctx, a, sz, kinds[i], sh), "lent scratch", sz) &&
                gpu_ok(cuzk_gpu_ntt_sync(ctx), "lent scratch sync", sz) &&
                gpu_ok(cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, x, m), "download", sz))
                compare("lent scratch", sz, "kind", x, cpu, m);
            free(cpu);
            cuzk_ntt_domain_free(dm);
        }
    }
    printf("test_gpu_ntt: lent scratch and twiddles at 2^%d and 2^%d: three rooms, cpu == gpu\n",
           k - 3, k);
    free(in);
    free(x);
    cuzk_ntt_domain_free(d);
    cuzk_gpu_g16_free(g);
    cuzk_gpu_ntt_ctx_free(ctx);
}

int main(void) {
    test_init("test_gpu_ntt");
    int count = 0;
    CHECK(cuzk_gpu_count(&count) == CUZK_OK);
    if (count <= 0) {
        struct cuzk_gpu_ntt_ctx *c = NULL;
        CHECK(cuzk_gpu_ntt_ctx_create(0, 10, &c) == CUZK_ENODEV && c == NULL);
        printf("test_gpu_ntt: no GPU on this machine: skipped\n");
        int rc = test_finish();
        return rc ? rc : 77;
    }
    struct cuzk_gpu_info info;
    if (cuzk_gpu_describe(0, &info) == CUZK_OK)
        printf("test_gpu_ntt: device 0: %s, sm_%d%d, %d SMs, %.1f GiB\n", info.name, info.cc_major,
               info.cc_minor, info.multiprocessors, (double)info.total_mem / (1 << 30));
    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "test-gpu-ntt") != CUZK_OK) {
        fprintf(stderr, "test_gpu_ntt: cannot create the thread pool\n");
        return 1;
    }
    int max = TEST_BIG_LOG;
    int err = cuzk_gpu_ntt_ctx_create(0, max, &ctx);
    if (err == CUZK_EGPUOOM) {
        printf("test_gpu_ntt: no room for 2^%d on this GPU (%s): testing up to 2^%d\n", max,
               cuzk_gpu_ntt_last_error(), TEST_MAX_LOG);
        max = TEST_MAX_LOG;
        err = cuzk_gpu_ntt_ctx_create(0, max, &ctx);
    }
    if (!gpu_ok(err, "context creation", max)) return test_finish();
    printf("test_gpu_ntt: context for 2^%d: %.2f GiB of device memory\n", max,
           (double)cuzk_gpu_ntt_ctx_vram(max) / (1 << 30));

    test_args();
    test_field();
    for (int k = 1; k <= TEST_MAX_LOG; k++) test_size(k);
    test_shapes();
    test_lent();
    test_lent_scratch();
    if (max >= TEST_BIG_LOG) test_big(TEST_BIG_LOG);

    cuzk_gpu_ntt_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    return test_finish();
}
