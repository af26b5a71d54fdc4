/* The GPU key loader (src/gpu/gpu_points.h) against the CPU decoder (src/ec/encode.h):
 *   - G1 and G2 points (random multiples of the generator, their negations, identities), loaded
 *     compressed and LEM through one loader at several chunk sizes (one point per chunk, odd
 *     and even chunk counts, buffers not a multiple of the point size, one chunk for all), into
 *     bases at offsets; read back, they equal the points bit for bit, and a sample equals
 *     cuzk_g*_from_compressed of the encodings;
 *   - bad encodings at known positions: the smallest destination index is reported with
 *     CUZK_EFORMAT, the identity stands in their place, the next finish starts afresh;
 *   - compressed and LEM chunks into one bases object in one batch, and cuzk_gpu_bases_write;
 *   - MSMs over the loaded bases (cuzk_gpu_g*_msm) equal cuzk_g*_msm over the CPU's points,
 *     which proves the layout the MSM reads;
 *   - the streamer: points in pinned host memory through its two staging buffers, slice by
 *     slice, the next slice's copy queued before the current slice's MSM; the sum of the slices'
 *     MSMs equals the CPU's MSM over all of them (G1, and G2 in half-size slices); its misuses;
 *   - argument errors.
 * A machine without a GPU reports the test skipped (exit 77). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_points.h"
#include "msm/msm.h"
#include "test_util.h"

#define G1_N 131075 /* 2^17 + 3 */
#define G2_N 16389  /* 2^14 + 5 */
#define SAMPLE 500  /* encodings per case checked against the CPU decoder */

static struct cuzk_pool *pool;
static struct cuzk_gpu_msm_ctx *ctx;

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "test_gpu_points: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* A GPU call that must succeed; prints the failure otherwise. */
static int gpu_ok(int err, const char *what) {
    CHECK(err == CUZK_OK);
    if (err != CUZK_OK)
        fprintf(stderr, "test_gpu_points: %s failed: %s (%s)\n", what, cuzk_strerror(err),
                cuzk_gpu_points_last_error());
    return err == CUZK_OK;
}

static void random_scalar(cuzk_scalar *k) {
    cuzk_fr s;
    cuzk_fr_random(&s, &test_rng);
    cuzk_scalar_from_fr(k, &s);
}

/* Everything below once per group: G the CPU type, S the short name, GG the GPU group, BYTES
 * a compressed encoding's length. */
#define GROUP_TESTS(G, S, GG, BYTES)                                                               \
    /* n points: P_0 + i Q for random P_0, Q, every third negated, every 1000th the identity */    \
    static void G##_points(G##_affine *out, size_t n) {                                            \
        G##_affine gen;                                                                            \
        G p, q, *jac = xmalloc(n * sizeof *jac);                                                   \
        cuzk_scalar k;                                                                             \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&p, &gen);                                                                 \
        random_scalar(&k);                                                                         \
        G##_mul_var(&q, &p, k.l, 4);                                                               \
        random_scalar(&k);                                                                         \
        G##_mul_var(&p, &p, k.l, 4);                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = p;                                                                            \
            G##_add(&p, &p, &q);                                                                   \
        }                                                                                          \
        G##_batch_to_affine(out, jac, n);                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (i % 3 == 1) G##_affine_neg(&out[i], &out[i]);                                      \
            if (i % 1000 == 999) G##_affine_set_inf(&out[i]);                                      \
        }                                                                                          \
        free(jac);                                                                                 \
    }                                                                                              \
    /* Submits the n encodings at src (enc) for b[offset, offset + n) to l, per points a chunk. */ \
    static int G##_submit(struct cuzk_gpu_points_loader *l, struct cuzk_gpu_bases *b,              \
                          size_t offset, const uint8_t *src, size_t n, size_t per,                 \
                          enum cuzk_gpu_point_enc enc) {                                           \
        const size_t eb = cuzk_gpu_point_enc_bytes(GG, enc);                                       \
        for (size_t at = 0; at < n; at += per) {                                                   \
            const size_t k = n - at < per ? n - at : per;                                          \
            void *buf = NULL;                                                                      \
            int err = cuzk_gpu_points_loader_buffer(l, &buf);                                      \
            if (err == CUZK_OK) memcpy(buf, src + at * eb, k * eb);                                \
            if (err == CUZK_OK) err = cuzk_gpu_points_loader_submit(l, b, offset + at, k, enc);    \
            if (err != CUZK_OK) return err;                                                        \
        }                                                                                          \
        return CUZK_OK;                                                                            \
    }                                                                                              \
    /* The same, then _finish: its result and *bad. */                                             \
    static int G##_load(struct cuzk_gpu_points_loader *l, struct cuzk_gpu_bases *b, size_t offset, \
                        const uint8_t *src, size_t n, size_t per, enum cuzk_gpu_point_enc enc,     \
                        size_t *bad) {                                                             \
        const int err = G##_submit(l, b, offset, src, n, per, enc);                                \
        return err != CUZK_OK ? err : cuzk_gpu_points_loader_finish(l, bad);                       \
    }                                                                                              \
    /* b[offset, offset + n) read back equals want (bit for bit), and a sample of the compressed   \
     * encodings cmp decodes on the CPU to the same points. Returns 1 when all agree. */           \
    static int G##_check(const char *what, const struct cuzk_gpu_bases *b, size_t offset,          \
                         const G##_affine *want, const uint8_t *cmp, size_t n) {                   \
        G##_affine *got = xmalloc(n * sizeof *got);                                                \
        size_t wrong = 0;                                                                          \
        if (!gpu_ok(cuzk_gpu_bases_read(b, offset, got, n), "read back")) {                        \
            free(got);                                                                             \
            return 0;                                                                              \
        }                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (!memcmp(&got[i], &want[i], sizeof *got)) continue;                                 \
            if (!wrong++)                                                                          \
                fprintf(stderr, "test_gpu_points: " #G " %s: point %zu wrong\n", what, i);         \
        }                                                                                          \
        for (size_t s = 0; s < SAMPLE && cmp && n; s++) {                                          \
            const size_t i = s < 2 ? s * (n - 1) : (size_t)(cuzk_rng_u64(&test_rng) % n);          \
            G##_affine cpu;                                                                        \
            if (G##_from_compressed(&cpu, cmp + i * BYTES) != CUZK_OK) continue; /* a bad one */   \
            wrong += memcmp(&cpu, &got[i], sizeof cpu) != 0;                                       \
        }                                                                                          \
        CHECK(wrong == 0);                                                                         \
        free(got);                                                                                 \
        return wrong == 0;                                                                         \
    }                                                                                              \
    /* An MSM over b[offset, offset + n) with random scalars equals the CPU's over want. */        \
    static void G##_check_msm(const struct cuzk_gpu_bases *b, size_t offset,                       \
                              const G##_affine *want, size_t n) {                                  \
        cuzk_scalar *k = xmalloc(n * sizeof *k);                                                   \
        for (size_t i = 0; i < n; i++) random_scalar(&k[i]);                                       \
        G got, cpu;                                                                                \
        if (gpu_ok(cuzk_gpu_##S##_msm(ctx, b, offset, k, n, &got), #G " msm")) {                   \
            CHECK(G##_msm(pool, &cpu, want, k, n) == CUZK_OK);                                     \
            CHECK(G##_eq(&got, &cpu));                                                             \
        }                                                                                          \
        free(k);                                                                                   \
    }                                                                                              \
    static void G##_test(struct cuzk_gpu_points_loader *l, size_t n) {                             \
        const size_t room = 13, total = n + room + 7; /* the loads start at room */                \
        G##_affine *pts = xmalloc(n * sizeof *pts), *want = xmalloc(n * sizeof *want);             \
        const size_t n_bytes = n * BYTES;                                                          \
        uint8_t *cmp = xmalloc(n_bytes), *bad_cmp = xmalloc(n_bytes);                              \
        struct cuzk_gpu_bases *b = NULL;                                                           \
        G##_points(pts, n);                                                                        \
        for (size_t i = 0; i < n; i++) G##_to_compressed(cmp + i * BYTES, &pts[i]);                \
        if (!gpu_ok(cuzk_gpu_bases_create(0, GG, total, &b), "bases create")) goto out;            \
        CHECK(cuzk_gpu_bases_count(b) == total);                                                   \
        CHECK(cuzk_gpu_bases_vram(b) == cuzk_gpu_bases_vram_for(GG, total));                       \
        /* chunk sizes: points per chunk, and spare bytes that no whole point fills */             \
        const size_t pers[][2] = {{1, 0}, {1000, 17}, {4099, 0}, {n / 3 + 1, 5}, {n, 0}};          \
        size_t cases = 0;                                                                          \
        for (size_t c = 0; c < sizeof pers / sizeof pers[0]; c++) {                                \
            const size_t per = pers[c][0], m = per == 1 ? 301 : n, off = c % 2 ? room : 0;         \
            for (int e = 0; e < 2; e++) {                                                          \
                const enum cuzk_gpu_point_enc enc = e ? CUZK_GPU_PT_COMPRESSED : CUZK_GPU_PT_LEM;  \
                struct cuzk_gpu_points_loader *cl = NULL;                                          \
                const size_t eb = cuzk_gpu_point_enc_bytes(GG, enc);                               \
                if (!gpu_ok(cuzk_gpu_points_loader_create(0, per * eb + pers[c][1], &cl),          \
                            "loader create"))                                                      \
                    continue;                                                                      \
                CHECK(cuzk_gpu_points_loader_chunk_bytes(cl) == per * eb + pers[c][1]);            \
                size_t bad = 0;                                                                    \
                const void *src = e ? (const void *)cmp : (const void *)pts;                       \
                char what[64];                                                                     \
                snprintf(what, sizeof what, "%s, %zu points a chunk", e ? "compressed" : "LEM",    \
                         per);                                                                     \
                if (gpu_ok(G##_load(cl, b, off, src, m, per, enc, &bad), what)) {                  \
                    CHECK(bad == SIZE_MAX);                                                        \
                    G##_check(what, b, off, pts, e ? cmp : NULL, m);                               \
                    cases++;                                                                       \
                }                                                                                  \
                cuzk_gpu_points_loader_free(cl);                                                   \
            }                                                                                      \
        }                                                                                          \
        /* bad points at known positions (the loader shared by the groups) */                      \
        memcpy(bad_cmp, cmp, n_bytes);                                                             \
        memcpy(want, pts, n * sizeof *pts);                                                        \
        const size_t at[] = {n - 1, 4100, n / 2, 777};                                             \
        for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {                                    \
            uint8_t *p = bad_cmp + at[j] * BYTES;                                                  \
            if (j == 0) p[0] &= 0x7f;                         /* no compressed flag */             \
            if (j == 1) memset(p + 1, 0xff, 47), p[0] = 0x9f; /* x >= p */                         \
            if (j == 2) p[0] = 0xc0, p[BYTES - 1] = 1;        /* identity with another bit */      \
            if (j == 3) p[0] = 0xe0, memset(p + 1, 0, BYTES - 1);                                  \
            G##_affine_set_inf(&want[at[j]]);                                                      \
        }                                                                                          \
        size_t bad = 0;                                                                            \
        const size_t per = cuzk_gpu_points_loader_chunk_bytes(l) / BYTES;                          \
        int err = G##_load(l, b, room, bad_cmp, n, per, CUZK_GPU_PT_COMPRESSED, &bad);             \
        CHECK(err == CUZK_EFORMAT && bad == room + 777);                                           \
        if (err != CUZK_EFORMAT || bad != room + 777)                                              \
            fprintf(stderr, "test_gpu_points: " #G " bad points: %s, first %zu\n",                 \
                    cuzk_strerror(err), bad);                                                      \
        G##_check("bad points", b, room, want, bad_cmp, n);                                        \
        /* a clean load after it: the bad index starts afresh */                                   \
        CHECK(G##_load(l, b, room, cmp, n, per, CUZK_GPU_PT_COMPRESSED, &bad) == CUZK_OK &&        \
              bad == SIZE_MAX);                                                                    \
        /* batches mixing the encodings over one range: the later submit wins. The compressed      \
         * points with their bad ones, then LEM points over [half, half + q) (which holds the bad  \
         * point n / 2); then LEM points over [0, q), then the compressed ones there (777 bad). */ \
        const size_t lem_per = cuzk_gpu_points_loader_chunk_bytes(l) / sizeof *pts;                \
        const size_t half = n / 2, q = lem_per < half / 2 ? lem_per : half / 2;                    \
        const uint8_t *lem = (const uint8_t *)pts;                                                 \
        CHECK(G##_submit(l, b, room, bad_cmp, n, per, CUZK_GPU_PT_COMPRESSED) == CUZK_OK);         \
        CHECK(G##_load(l, b, room + half, lem + half * sizeof *pts, q, q, CUZK_GPU_PT_LEM,         \
                       &bad) == CUZK_EFORMAT &&                                                    \
              bad == room + 777);                                                                  \
        for (size_t i = half; i < half + q; i++) want[i] = pts[i];                                 \
        G##_check("compressed, then LEM", b, room, want, NULL, n);                                 \
        CHECK(G##_submit(l, b, room, lem, q, q, CUZK_GPU_PT_LEM) == CUZK_OK);                      \
        CHECK(G##_load(l, b, room, bad_cmp, q, per, CUZK_GPU_PT_COMPRESSED, &bad) ==               \
                  CUZK_EFORMAT &&                                                                  \
              bad == room + 777);                                                                  \
        G##_check("LEM, then compressed", b, room, want, NULL, n);                                 \
        G##_check_msm(b, room, want, n);                                                           \
        G##_affine_set_inf(&want[half]); /* the bad point n / 2 again, for the writes below */     \
        /* cuzk_gpu_bases_write, both encodings; the rest of the object too, so that the whole     \
         * of it is defined */                                                                     \
        CHECK(cuzk_gpu_bases_write(b, room, bad_cmp, n, CUZK_GPU_PT_COMPRESSED, &bad) ==           \
                  CUZK_EFORMAT &&                                                                  \
              bad == room + 777);                                                                  \
        G##_check("bases_write compressed", b, room, want, NULL, n);                               \
        CHECK(cuzk_gpu_bases_write(b, 0, cmp, room, CUZK_GPU_PT_COMPRESSED, &bad) == CUZK_OK &&    \
              bad == SIZE_MAX);                                                                    \
        CHECK(cuzk_gpu_bases_write(b, n + room, pts, 7, CUZK_GPU_PT_LEM, NULL) == CUZK_OK);        \
        CHECK(cuzk_gpu_bases_write(b, room, pts, n, CUZK_GPU_PT_LEM, &bad) == CUZK_OK &&           \
              bad == SIZE_MAX);                                                                    \
        G##_check("bases_write LEM", b, room, pts, NULL, n);                                       \
        G##_check_msm(b, room, pts, n);                                                            \
        /* ranges */                                                                               \
        CHECK(cuzk_gpu_bases_write(b, total - 3, pts, 4, CUZK_GPU_PT_LEM, NULL) == CUZK_EINVAL);   \
        CHECK(cuzk_gpu_bases_write(b, total + 1, pts, 0, CUZK_GPU_PT_LEM, NULL) == CUZK_EINVAL);   \
        CHECK(cuzk_gpu_bases_write(b, total, pts, 0, CUZK_GPU_PT_LEM, NULL) == CUZK_OK);           \
        CHECK(cuzk_gpu_points_loader_submit(l, b, total - 1, 2, CUZK_GPU_PT_LEM) == CUZK_EINVAL);  \
        CHECK(cuzk_gpu_points_loader_submit(l, b, 0, per + 1, CUZK_GPU_PT_COMPRESSED) ==           \
              CUZK_EINVAL);                                                                        \
        CHECK(cuzk_gpu_points_loader_submit(l, b, 0, 1, (enum cuzk_gpu_point_enc)2) ==             \
              CUZK_EINVAL);                                                                        \
        CHECK(cuzk_gpu_points_loader_finish(l, &bad) == CUZK_OK && bad == SIZE_MAX);               \
        printf("test_gpu_points: " #G ": %zu loads (%zu points, chunks of 1 to %zu), bad points, " \
               "mixed encodings, bases_write, 2 MSMs of %zu points\n",                             \
               cases, n, n, n);                                                                    \
    out:                                                                                           \
        cuzk_gpu_bases_free(b);                                                                    \
        free(pts);                                                                                 \
        free(want);                                                                                \
        free(cmp);                                                                                 \
        free(bad_cmp);                                                                             \
    }
GROUP_TESTS(cuzk_g1, g1, CUZK_GPU_G1, CUZK_G1_COMPRESSED)
GROUP_TESTS(cuzk_g2, g2, CUZK_GPU_G2, CUZK_G2_COMPRESSED)

/* Streamed bases (gpu_points.h): n points of a group in pinned host memory, through a streamer
 * whose buffers hold `slice` G1 points, in the order the CUDA backend uses (slice j + 1 queued
 * before slice j's MSM); the sum of the slices' MSMs equals the CPU's MSM over all points. */
#define STREAM_TEST(G, S, GG)                                                                      \
    static void G##_stream_test(size_t n, size_t slice) {                                          \
        G##_affine *host = NULL, *pts = xmalloc(n * sizeof *pts);                                  \
        cuzk_scalar *k = xmalloc(n * sizeof *k);                                                   \
        struct cuzk_gpu_streamer *st = NULL;                                                       \
        G##_points(pts, n);                                                                        \
        for (size_t i = 0; i < n; i++) random_scalar(&k[i]);                                       \
        if (!gpu_ok(cuzk_gpu_pinned_alloc(n * sizeof *host, (void **)&host), "pinned") ||          \
            !gpu_ok(cuzk_gpu_streamer_create(0, slice * 96, &st), "streamer"))                     \
            goto out;                                                                              \
        memcpy(host, pts, n * sizeof *host);                                                       \
        const size_t per = cuzk_gpu_streamer_points(st, GG);                                       \
        CHECK(per == slice * 96 / sizeof *host);                                                   \
        G sum, part, cpu;                                                                          \
        G##_set_inf(&sum);                                                                         \
        const size_t ns = (n + per - 1) / per;                                                     \
        int ok = gpu_ok(cuzk_gpu_streamer_put(st, 0, GG, host, n < per ? n : per), "put");         \
        for (size_t j = 0; ok && j < ns; j++) {                                                    \
            const size_t off = j * per, m = n - off < per ? n - off : per;                         \
            const struct cuzk_gpu_bases *b = NULL;                                                 \
            ok = gpu_ok(cuzk_gpu_streamer_take(st, (unsigned)(j & 1), &b), "take");                \
            if (ok && j + 1 < ns) {                                                                \
                const size_t m2 = n - off - per < per ? n - off - per : per;                       \
                ok = gpu_ok(                                                                       \
                    cuzk_gpu_streamer_put(st, (unsigned)((j + 1) & 1), GG, host + off + per, m2),  \
                    "put next");                                                                   \
            }                                                                                      \
            if (ok) CHECK(cuzk_gpu_bases_count(b) == m);                                           \
            if (ok && j == 0) G##_check("streamed slice", b, 0, pts, NULL, m);                     \
            if (ok) ok = gpu_ok(cuzk_gpu_##S##_msm(ctx, b, 0, k + off, m, &part), "slice msm");    \
            if (ok) G##_add(&sum, &sum, &part);                                                    \
        }                                                                                          \
        CHECK(G##_msm(pool, &cpu, pts, k, n) == CUZK_OK);                                          \
        CHECK(ok &&G##_eq(&sum, &cpu));                                                            \
        size_t bytes = 0;                                                                          \
        double ms = 0;                                                                             \
        cuzk_gpu_streamer_copied(st, &bytes, &ms);                                                 \
        CHECK(bytes == n * sizeof *host && ms > 0);                                                \
        /* misuses: a second put before the take, a take of nothing, too many points */            \
        const struct cuzk_gpu_bases *b = NULL;                                                     \
        CHECK(cuzk_gpu_streamer_take(st, 0, &b) == CUZK_EINVAL && b == NULL);                      \
        CHECK(cuzk_gpu_streamer_put(st, 0, GG, host, 1) == CUZK_OK);                               \
        CHECK(cuzk_gpu_streamer_put(st, 0, GG, host, 1) == CUZK_EINVAL);                           \
        CHECK(cuzk_gpu_streamer_take(st, 0, &b) == CUZK_OK && cuzk_gpu_bases_count(b) == 1);       \
        CHECK(cuzk_gpu_streamer_put(st, 1, GG, host, per + 1) == CUZK_EINVAL);                     \
        CHECK(cuzk_gpu_streamer_put(st, 2, GG, host, 1) == CUZK_EINVAL);                           \
        CHECK(cuzk_gpu_streamer_put(st, 1, GG, NULL, 1) == CUZK_EINVAL);                           \
        /* a put not taken (a failed MSM) is forgotten by a reset: the buffer takes a put again */ \
        CHECK(cuzk_gpu_streamer_put(st, 1, GG, host, 1) == CUZK_OK);                               \
        cuzk_gpu_streamer_reset(st);                                                               \
        CHECK(cuzk_gpu_streamer_take(st, 1, &b) == CUZK_EINVAL);                                   \
        CHECK(cuzk_gpu_streamer_put(st, 1, GG, host, 1) == CUZK_OK);                               \
        CHECK(cuzk_gpu_streamer_take(st, 1, &b) == CUZK_OK);                                       \
        printf("test_gpu_points: " #G ": %zu points streamed in %zu slices of %zu: the MSM's "     \
               "sum == cpu; %zu bytes in %.3f ms\n",                                               \
               n, ns, per, bytes, ms);                                                             \
    out:                                                                                           \
        cuzk_gpu_streamer_free(st);                                                                \
        if (host) cuzk_gpu_pinned_free(host, n * sizeof *host);                                    \
        free(pts);                                                                                 \
        free(k);                                                                                   \
    }
STREAM_TEST(cuzk_g1, g1, CUZK_GPU_G1)
STREAM_TEST(cuzk_g2, g2, CUZK_GPU_G2)

static void test_args(void) {
    int count = 0;
    cuzk_gpu_count(&count);
    CHECK(cuzk_gpu_point_enc_bytes(CUZK_GPU_G1, CUZK_GPU_PT_LEM) == 96);
    CHECK(cuzk_gpu_point_enc_bytes(CUZK_GPU_G2, CUZK_GPU_PT_LEM) == 192);
    CHECK(cuzk_gpu_point_enc_bytes(CUZK_GPU_G1, CUZK_GPU_PT_COMPRESSED) == 48);
    CHECK(cuzk_gpu_point_enc_bytes(CUZK_GPU_G2, CUZK_GPU_PT_COMPRESSED) == 96);
    CHECK(cuzk_gpu_point_enc_bytes((enum cuzk_gpu_group)3, CUZK_GPU_PT_LEM) == 0);
    CHECK(cuzk_gpu_point_enc_bytes(CUZK_GPU_G1, (enum cuzk_gpu_point_enc)2) == 0);
    struct cuzk_gpu_bases *b = (struct cuzk_gpu_bases *)&b;
    CHECK(cuzk_gpu_bases_create(count, CUZK_GPU_G1, 8, &b) == CUZK_EINVAL && b == NULL);
    CHECK(cuzk_gpu_bases_create(0, (enum cuzk_gpu_group)0, 8, &b) == CUZK_EINVAL);
    CHECK(cuzk_gpu_bases_create(0, CUZK_GPU_G1, 8, NULL) == CUZK_EINVAL);
    struct cuzk_gpu_points_loader *l = (struct cuzk_gpu_points_loader *)&l;
    CHECK(cuzk_gpu_points_loader_create(0, 47, &l) == CUZK_EINVAL && l == NULL);
    CHECK(cuzk_gpu_points_loader_create(count, 4096, &l) == CUZK_EINVAL);
    void *buf = NULL;
    size_t bad = 0;
    CHECK(cuzk_gpu_points_loader_buffer(NULL, &buf) == CUZK_EINVAL);
    CHECK(cuzk_gpu_points_loader_finish(NULL, &bad) == CUZK_EINVAL && bad == SIZE_MAX);
    CHECK(cuzk_gpu_points_loader_chunk_bytes(NULL) == 0);
    cuzk_gpu_points_loader_free(NULL);
    /* an empty bases object, and a loader's buffers handed out alternately */
    if (gpu_ok(cuzk_gpu_bases_create(0, CUZK_GPU_G2, 0, &b), "empty bases")) {
        CHECK(cuzk_gpu_bases_count(b) == 0 && cuzk_gpu_bases_vram(b) == 0);
        CHECK(cuzk_gpu_bases_write(b, 0, NULL, 0, CUZK_GPU_PT_COMPRESSED, &bad) == CUZK_OK);
        cuzk_gpu_bases_free(b);
    }
    if (gpu_ok(cuzk_gpu_points_loader_create(0, 48, &l), "small loader")) {
        void *b0 = NULL, *b0again = NULL, *b1 = NULL;
        struct cuzk_gpu_bases *one = NULL;
        cuzk_g1_affine g, back;
        cuzk_g1_generator(&g);
        CHECK(cuzk_gpu_points_loader_buffer(l, &b0) == CUZK_OK && b0);
        CHECK(cuzk_gpu_points_loader_buffer(l, &b0again) == CUZK_OK && b0again == b0);
        if (gpu_ok(cuzk_gpu_bases_create(0, CUZK_GPU_G1, 1, &one), "bases create")) {
            cuzk_g1_to_compressed(b0, &g);
            CHECK(cuzk_gpu_points_loader_submit(l, one, 0, 0, CUZK_GPU_PT_LEM) == CUZK_OK);
            CHECK(cuzk_gpu_points_loader_submit(l, one, 0, 1, CUZK_GPU_PT_COMPRESSED) == CUZK_OK);
            CHECK(cuzk_gpu_points_loader_buffer(l, &b1) == CUZK_OK && b1 && b1 != b0);
            CHECK(cuzk_gpu_points_loader_finish(l, &bad) == CUZK_OK && bad == SIZE_MAX);
            CHECK(cuzk_gpu_bases_read(one, 0, &back, 1) == CUZK_OK);
            CHECK(!memcmp(&back, &g, sizeof g));
            CHECK(cuzk_gpu_bases_read(one, 1, &back, 1) == CUZK_EINVAL);
            CHECK(cuzk_gpu_points_loader_submit(l, NULL, 0, 1, CUZK_GPU_PT_LEM) == CUZK_EINVAL);
            cuzk_gpu_bases_free(one);
        }
        cuzk_gpu_points_loader_free(l);
    }
}

int main(void) {
    test_init("test_gpu_points");
    int count = 0;
    CHECK(cuzk_gpu_count(&count) == CUZK_OK);
    if (count <= 0) {
        struct cuzk_gpu_bases *b = NULL;
        struct cuzk_gpu_points_loader *l = NULL;
        CHECK(cuzk_gpu_bases_create(0, CUZK_GPU_G1, 16, &b) == CUZK_ENODEV && b == NULL);
        CHECK(cuzk_gpu_points_loader_create(0, 1 << 20, &l) == CUZK_ENODEV && l == NULL);
        printf("test_gpu_points: no GPU on this machine: skipped\n");
        int rc = test_finish();
        return rc ? rc : 77;
    }
    if (cuzk_pool_create(&pool, cuzk_cpu_count(), "test-gpu-points") != CUZK_OK) {
        fprintf(stderr, "test_gpu_points: cannot create the thread pool\n");
        return 1;
    }
    struct cuzk_gpu_points_loader *l = NULL;
    if (!gpu_ok(cuzk_gpu_msm_ctx_create(0, G1_N, &ctx), "MSM context") ||
        !gpu_ok(cuzk_gpu_points_loader_create(0, 10000 * CUZK_G2_COMPRESSED + 40, &l), "loader"))
        return test_finish();
    test_args();
    cuzk_g1_test(l, G1_N);
    cuzk_g2_test(l, G2_N);
    cuzk_g1_stream_test(40001, 4096); /* 10 slices, the last short */
    cuzk_g1_stream_test(100, 4096);   /* one slice */
    cuzk_g2_stream_test(9001, 2048);  /* 1024 G2 points a buffer: 9 slices */
    struct cuzk_gpu_streamer *sx = (struct cuzk_gpu_streamer *)&sx;
    CHECK(cuzk_gpu_streamer_create(0, 191, &sx) == CUZK_EINVAL && sx == NULL);
    CHECK(cuzk_gpu_streamer_create(count, 4096, &sx) == CUZK_EINVAL);
    CHECK(cuzk_gpu_streamer_points(NULL, CUZK_GPU_G1) == 0);
    CHECK(cuzk_gpu_streamer_vram_for(1000) == 2000);
    cuzk_gpu_streamer_free(NULL);
    cuzk_gpu_points_loader_free(l);
    cuzk_gpu_msm_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    return test_finish();
}
