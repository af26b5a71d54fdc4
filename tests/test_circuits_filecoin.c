/* The Filecoin circuits.
 *
 * - Profile names: parsing, canonical names, rejected names.
 * - The real 32 GiB circuits counted in COUNT mode (the whole synthesis runs) give exactly the
 *   reference figures: rows, public inputs, aux, boolean aux, nnz of A, B, C (PoRep's equal
 *   cuzk's measured PCE); the four run on two threads.
 * - Scaled profiles follow the reference formulas (PoRep rows = 575 + 7,237,683 C, ...), and
 *   upstream's own small StackedDRG test shape gives its 1,199,620 constraints.
 * - COUNT, RECORD and WITNESS runs of small profiles agree on every count.
 * - End to end: tiny PoRep and PoSt circuits synthesised from consistent values (full small
 *   trees, labels computed natively) give a satisfied system whose public inputs are the
 *   verifier's; a corrupted value breaks it. */
#include <string.h>

#include "circuits/filecoin.h"
#include "circuits/merkle.h"
#include "circuits/poseidon.h"
#include "circuits/sha256.h"
#include "circuits_check.h"
#include "groth16/setup.h"
#include "util/pool.h"

/* Sanitizer builds (SANITIZED, test_util.h) skip the largest counts; see where it is used. */

/* ---- profiles ------------------------------------------------------------------------------ */

static void test_profiles(void) {
    struct {
        const char *in, *canon;
    } good[] = {
        {"porep-c18", "porep-c18"},
        {"porep-c18-l11-d30-r10", "porep-c18"},
        {"porep-c1-l2-d3-r1", "porep-c1-l2-d3-r1"},
        {"snap-c86", "snap-c86"},
        {"snap-c1-a8-p1-d9-r3", "snap-c1-d9-r3-a8-p1"},
        {"wpost-s2349", "wpost-s2349"},
        {"wpost-s3-k2-r2", "wpost-s3-r2-k2"},
        {"winning-s66", "winning-s66"},
        {"winning-s66-k1", "winning-s66"},
        {"porep-c18-d31-t2", "porep-c18-d31-t2"},
        {"porep-c18-m0-t0", "porep-c18"},
        {"porep-c1-t2-m4-l2-d6-r1", "porep-c1-l2-d6-r1-m4-t2"},
        {"snap-c10-p1-t2-d10-r3", "snap-c10-d10-r3-t2-p1"},
        {"wpost-s3-k5-r2-m4-t2", "wpost-s3-r2-m4-t2-k5"},
        {"winning-s66-t2", "winning-s66-t2"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct cuzk_fc_profile p;
        char err[128] = "";
        int rc = cuzk_fc_profile_parse(good[i].in, &p, err, sizeof err);
        CHECK(rc == CUZK_OK);
        if (rc == CUZK_OK)
            CHECK(strcmp(p.name, good[i].canon) == 0);
        else
            fprintf(stderr, "  %s: %s\n", good[i].in, err);
    }
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse("porep-c18", &p, NULL, 0) == CUZK_OK);
    CHECK(p.kind == CUZK_FC_POREP && p.challenges == 18 && p.layers == 11 &&
          p.tree_d_levels == 30 && p.tree_r_levels == 10);
    CHECK(cuzk_fc_profile_parse("wpost-s2349", &p, NULL, 0) == CUZK_OK);
    CHECK(p.kind == CUZK_FC_WPOST && p.sectors == 2349 && p.challenges == 10);
    CHECK(cuzk_fc_profile_parse("winning-s66", &p, NULL, 0) == CUZK_OK);
    CHECK(p.kind == CUZK_FC_WINNING && p.sectors == 66 && p.challenges == 1);
    const char *badn[] = {"",
                          "porep",
                          "porep-",
                          "porep-s18",
                          "porep-c",
                          "porep-c0",
                          "porep-c18-",
                          "porep-c18-l3",
                          "porep-c18-x1",
                          "snap-c86-a100",
                          "snap-c86-r9",
                          "wpost-c10",
                          "post-s1",
                          "snap-c1-k2",
                          "porep-c18x",
                          "winning-s66-k0",
                          "porep-c18-t4",
                          "porep-c18-m8",
                          "porep-c18-m3",
                          "snap-c86-d31",
                          "snap-c86-t2",
                          "porep-c18-r21-t2"};
    for (size_t i = 0; i < sizeof badn / sizeof badn[0]; i++) {
        char err[128] = "";
        CHECK(cuzk_fc_profile_parse(badn[i], &p, err, sizeof err) == CUZK_EINVAL);
        CHECK(err[0] != 0);
    }
}

/* ---- counts at real parameters ------------------------------------------------------------- */

/* 32 GiB: every count is the reference. 64 GiB (trees 8-8-2, tree D of depth 31): the
 * reference gives constraints and rows (= constraints + inputs) only; the other counts are
 * printed, not asserted (0 in the table). */
struct real_case {
    const char *name;
    uint64_t rows, inputs, aux, bools, nnz[3]; /* rows and nnz A with the input rows */
    unsigned log_domain;
    struct cuzk_builder_counts got; /* (filled by count_item) */
    int rc;
};

static void count_item(void *ctx, size_t i, unsigned worker) {
    (void)worker;
    struct real_case *c = &((struct real_case *)ctx)[i];
    struct cuzk_fc_profile p;
    c->rc = cuzk_fc_profile_parse(c->name, &p, NULL, 0);
    if (c->rc == CUZK_OK) c->rc = cuzk_fc_count(&p, &c->got);
}

/* Sanitizer builds run the counting code 10-20 times slower; they count the real WinningPoSt
 * circuits only (the big ones run the same gadgets, checked by the scaled profiles). */
#define N_REAL 8
#define REAL_CASES (SANITIZED ? 2 : N_REAL)

static void test_real_counts(void) {
    struct real_case cases[N_REAL] = {
        {"winning-s66", 370723, 133, 375210, 3300, {2549185, 376662, 465300}, 19, {0}, 0},
        {"winning-s66-t2", 391447, 133, 0, 0, {0, 0, 0}, 19, {0}, 0},
        {"porep-c18",
         130278869,
         328,
         130169893,
         128470791,
         {309405051, 130327340, 282656500},
         27,
         {0},
         0},
        {"wpost-s2300-t2", 129913201, 25301, 0, 0, {0, 0, 0}, 27, {0}, 0},
        {"snap-c86", 81049504, 5, 80978488, 80013450, {190374913, 81118127, 172187492}, 27, {0}, 0},
        {"porep-c18-d31-t2", 131186177, 328, 0, 0, {0, 0, 0}, 27, {0}, 0},
        {"wpost-s2349",
         125305057,
         25840,
         126902376,
         1174500,
         {862416559, 127398015, 157401792},
         27,
         {0},
         0},
        {"snap-c86-d31-t2", 85006106, 5, 0, 0, {0, 0, 0}, 27, {0}, 0},
    };
    struct cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2, "count") == CUZK_OK);
    cuzk_pool_run(pool, REAL_CASES, count_item, cases);
    cuzk_pool_destroy(pool);
    if (REAL_CASES < N_REAL)
        printf("  sanitizer build: PoRep, SnapDeals, WindowPoSt real counts skipped\n");
    for (int i = 0; i < REAL_CASES; i++) {
        const struct real_case *rc = &cases[i];
        const struct cuzk_builder_counts *g = &rc->got;
        CHECK(rc->rc == CUZK_OK);
        printf("  %-16s rows %lu inputs %lu aux %lu bool %lu nnz %lu/%lu/%lu\n", rc->name,
               (unsigned long)cuzk_builder_counts_rows(g), (unsigned long)g->n_inputs,
               (unsigned long)g->n_aux, (unsigned long)g->n_bool,
               (unsigned long)cuzk_builder_counts_nnz_a(g), (unsigned long)g->nnz[1],
               (unsigned long)g->nnz[2]);
        CHECK(cuzk_builder_counts_rows(g) == rc->rows);
        CHECK(g->constraints + g->n_inputs == rc->rows);
        CHECK(g->n_inputs == rc->inputs);
        CHECK(cuzk_groth16_domain_for(g->constraints, g->n_inputs - 1) == 1u << rc->log_domain);
        if (!rc->aux) continue; /* 64 GiB: no reference for the rest */
        CHECK(g->n_aux == rc->aux);
        CHECK(g->n_bool == rc->bools);
        CHECK(cuzk_builder_counts_nnz_a(g) == rc->nnz[0]);
        CHECK(g->nnz[1] == rc->nnz[1]);
        CHECK(g->nnz[2] == rc->nnz[2]);
    }
}

/* ---- scaled profiles ------------------------------------------------------------------------ */

static struct cuzk_builder_counts count_of(const char *name) {
    struct cuzk_fc_profile p;
    struct cuzk_builder_counts c;
    memset(&c, 0, sizeof c);
    CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
    CHECK(cuzk_fc_count(&p, &c) == CUZK_OK);
    return c;
}

static void test_scaled_counts(void) {
    /* PoRep: per challenge rows 7,237,683 (input rows included), aux 7,231,629, boolean
     * 7,137,252, nnz 17,189,023 / 7,240,376 / 15,703,103 (A with its input rows) */
    struct cuzk_builder_counts one = count_of("porep-c1");
    for (uint64_t C = 1; C <= (SANITIZED ? 1 : 2); C++) {
        char name[32];
        snprintf(name, sizeof name, "porep-c%lu", (unsigned long)C);
        struct cuzk_builder_counts c = C == 1 ? one : count_of(name);
        CHECK(cuzk_builder_counts_rows(&c) == 575 + 7237683 * C);
        CHECK(c.n_inputs == 4 + 18 * C);
        CHECK(c.n_aux == 571 + 7231629 * C);
        CHECK(c.n_bool == 255 + 7137252 * C);
        CHECK(cuzk_builder_counts_nnz_a(&c) ==
              cuzk_builder_counts_nnz_a(&one) + 17189023 * (C - 1));
        CHECK(c.nnz[1] == one.nnz[1] + 7240376 * (C - 1));
        CHECK(c.nnz[2] == one.nnz[2] + 15703103 * (C - 1));
    }
    /* upstream's tests/stacked_circuit.rs shape: 2 layers, tree D depth 3, one 8-ary level */
    struct cuzk_builder_counts up = count_of("porep-c1-l2-d3-r1");
    CHECK(up.constraints == 1199620);
    /* upstream's compound-tree anchors: the same stacked test with trees 8-4-0 (tree D depth 5)
     * and 8-4-2 (depth 6); SnapDeals 16 KiB (8-8-0: 10 challenges, 2 partitions) and 32 KiB
     * (8-8-2); fallback PoSt with 5 challenges x 3 sectors on trees 8-4-0 and 8-4-2 */
    const struct {
        const char *name;
        uint64_t constraints;
    } anchors[] = {
        {"porep-c1-l2-d5-r1-m4", 1296576}, {"porep-c1-l2-d6-r1-m4-t2", 1346982},
        {"snap-c10-d9-r3-p1", 6300021},    {"snap-c10-d10-r3-t2-p1", 6760091},
        {"wpost-s3-r2-m4-k5", 22674},      {"wpost-s3-r2-m4-t2-k5", 27384},
    };
    for (size_t i = 0; i < sizeof anchors / sizeof anchors[0]; i++) {
        struct cuzk_builder_counts a = count_of(anchors[i].name);
        if (a.constraints != anchors[i].constraints)
            fprintf(stderr, "  %s: %lu constraints\n", anchors[i].name,
                    (unsigned long)a.constraints);
        CHECK(a.constraints == anchors[i].constraints);
    }
    /* a binary top level costs 314 rows per path (an allocated bit, insert_2, Poseidon-2),
     * 313 in SnapDeals (the challenge's bit); one more tree-D level 45,382 (SnapDeals 45,381) */
    struct cuzk_builder_counts w0 = count_of("winning-s1"), w1 = count_of("winning-s1-t2");
    CHECK(w1.constraints == w0.constraints + 314);
    struct cuzk_builder_counts d4 = count_of("porep-c1-l2-d4-r1");
    CHECK(d4.constraints == up.constraints + 45382);

    /* SnapDeals: 5,945,609 + 568 ceil(c / 9) + 873,235 c constraints, 5 inputs */
    const uint64_t snap_c[3] = {1, 10, 2};
    for (int i = 0; i < (SANITIZED ? 1 : 3); i++) {
        uint64_t c = snap_c[i];
        char name[32];
        snprintf(name, sizeof name, "snap-c%lu", (unsigned long)c);
        struct cuzk_builder_counts s = count_of(name);
        CHECK(s.constraints == 5945609 + 568 * ((c + 8) / 9) + 873235 * c);
        CHECK(cuzk_builder_counts_rows(&s) == s.constraints + 5 && s.n_inputs == 5);
    }
    /* WindowPoSt: 53,344 S + 1 rows, aux 54,024 S, boolean 500 S; WinningPoSt:
     * 5,617 S + 1 rows */
    for (uint64_t S = 1; S <= 3; S += 2) {
        char name[32];
        snprintf(name, sizeof name, "wpost-s%lu", (unsigned long)S);
        struct cuzk_builder_counts w = count_of(name);
        CHECK(cuzk_builder_counts_rows(&w) == 53344 * S + 1);
        CHECK(w.n_aux == 54024 * S && w.n_bool == 500 * S && w.n_inputs == 11 * S + 1);
        snprintf(name, sizeof name, "winning-s%lu", (unsigned long)S);
        struct cuzk_builder_counts n = count_of(name);
        CHECK(cuzk_builder_counts_rows(&n) == 5617 * S + 1 && n.n_inputs == 2 * S + 1);
    }
}

/* ---- the three modes agree ------------------------------------------------------------------ */

static void test_modes_agree(void) {
    /* (sanitizer builds skip the 1.2 M-row PoRep here: the end-to-end test records it) */
    const char *names[] = {"snap-c2-d9-r3-a8-p1", "wpost-s2-r2-k3", "winning-s3-r2",
                           "porep-c1-l2-d3-r1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] - SANITIZED; i++) {
        struct cuzk_fc_profile p;
        CHECK(cuzk_fc_profile_parse(names[i], &p, NULL, 0) == CUZK_OK);
        struct cuzk_builder_counts c[3];
        for (int m = 0; m < 3; m++) {
            struct cuzk_builder b;
            CHECK(cuzk_builder_init(&b, (enum cuzk_builder_mode)m, 0) == CUZK_OK);
            /* WITNESS mode computes values, so it needs the vanilla data: it only runs in
             * the end-to-end tests below; here RECORD runs without values */
            if (m == CUZK_BUILDER_WITNESS) {
                cuzk_builder_free(&b);
                c[m] = c[0];
                continue;
            }
            CHECK(cuzk_fc_synthesize(&b, &p, NULL) == CUZK_OK);
            c[m] = *cuzk_builder_get_counts(&b);
            if (m == CUZK_BUILDER_RECORD) {
                struct cuzk_cs cs;
                CHECK(cuzk_builder_finish(&b, &cs, NULL, NULL) == CUZK_OK);
                CHECK(cs.n_rows == c[m].constraints && cs.n_cols == c[m].n_inputs + c[m].n_aux);
                CHECK(cs.n_public + 1 == c[m].n_inputs);
                for (int k = 0; k < 3; k++) CHECK(cs.m[k].nnz == c[m].nnz[k]);
                cuzk_cs_free(&cs);
            }
            cuzk_builder_free(&b);
        }
        CHECK(memcmp(&c[0], &c[1], sizeof c[0]) == 0);
    }
}

/* ---- end to end with consistent values ------------------------------------------------------ */

/* A full Poseidon tree of a profile's tree C/R shape (8-ary levels, then the sub and top
 * levels): nodes[level][i]; paths read from it in the circuit's sibling layout. */
struct ptree {
    struct cuzk_merkle_shape sh;
    unsigned depth;
    cuzk_fr *nodes[24];
};

static void ptree_build(struct ptree *t, const struct cuzk_fc_profile *p, const cuzk_fr *leaves) {
    cuzk_fc_tree_r_shape(p, &t->sh);
    t->depth = cuzk_merkle_shape_depth(&t->sh);
    size_t n = (size_t)1 << cuzk_merkle_shape_bits(&t->sh);
    t->nodes[0] = malloc(n * sizeof(cuzk_fr));
    memcpy(t->nodes[0], leaves, n * sizeof(cuzk_fr));
    for (unsigned l = 1; l <= t->depth; l++) {
        const unsigned a = cuzk_merkle_shape_arity(&t->sh, l - 1);
        n /= a;
        t->nodes[l] = malloc(n * sizeof(cuzk_fr));
        for (size_t i = 0; i < n; i++)
            cuzk_poseidon_hash_merkle((int)a, &t->nodes[l - 1][a * i], &t->nodes[l][i]);
    }
}

static const cuzk_fr *ptree_root(const struct ptree *t) { return &t->nodes[t->depth][0]; }

static void ptree_path(const struct ptree *t, uint64_t index, cuzk_fr *sibs) {
    for (unsigned l = 0; l < t->depth; l++) {
        const unsigned a = cuzk_merkle_shape_arity(&t->sh, l);
        uint64_t base = index - index % a;
        for (unsigned i = 0; i < a; i++)
            if (base + i != index) *sibs++ = t->nodes[l][base + i];
        index /= a;
    }
}

static void ptree_free(struct ptree *t) {
    for (unsigned l = 0; l <= t->depth; l++) free(t->nodes[l]);
}

/* Synthesises with values in RECORD mode, checks satisfaction and the public inputs; then
 * corrupts one value through `corrupt` and checks the system fails. */
static void check_e2e(const char *name, const void *v, void (*corrupt)(void *), void *cv,
                      const cuzk_fr *inputs, size_t n_inputs) {
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
    for (int pass = 0; pass < (corrupt ? 2 : 1); pass++) {
        if (pass) corrupt(cv);
        struct cuzk_builder b;
        CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
        CHECK(cuzk_fc_synthesize(&b, &p, v) == CUZK_OK);
        struct cuzk_builder_counts rec = *cuzk_builder_get_counts(&b);
        struct cuzk_cs cs;
        cuzk_fr *w = NULL;
        size_t n = 0, bad = 0;
        CHECK(cuzk_builder_finish(&b, &cs, &w, &n) == CUZK_OK);
        int sat = cuzk_cs_is_satisfied(NULL, &cs, w, &bad);
        CHECK(sat == !pass);
        if (!pass) {
            if (sat != 1) fprintf(stderr, "  %s: first unsatisfied row %zu\n", name, bad);
            CHECK(n_inputs == cs.n_public + 1);
            int same = 1;
            for (size_t i = 0; i < n_inputs && i < n; i++) same &= cuzk_fr_eq(&w[i], &inputs[i]);
            CHECK(same);
            /* WITNESS mode: the same witness, no rows kept */
            struct cuzk_builder wb;
            CHECK(cuzk_builder_init(&wb, CUZK_BUILDER_WITNESS, 1) == CUZK_OK);
            CHECK(cuzk_fc_synthesize(&wb, &p, v) == CUZK_OK);
            const struct cuzk_builder_counts *wc = cuzk_builder_get_counts(&wb);
            CHECK(wc->constraints == rec.constraints && wc->n_aux == rec.n_aux &&
                  wc->n_bool == rec.n_bool && wc->n_inputs == rec.n_inputs);
            /* COUNT mode: every count, nnz included */
            struct cuzk_builder_counts cnt;
            CHECK(cuzk_fc_count(&p, &cnt) == CUZK_OK);
            CHECK(memcmp(&cnt, &rec, sizeof cnt) == 0);
            cuzk_fr *w2 = NULL;
            size_t n2 = 0;
            CHECK(cuzk_builder_finish(&wb, NULL, &w2, &n2) == CUZK_OK);
            CHECK(n2 == n && w2 && memcmp(w2, w, n * sizeof *w) == 0);
            free(w2);
            cuzk_builder_free(&wb);
        }
        cuzk_cs_free(&cs);
        free(w);
        cuzk_builder_free(&b);
    }
}

static void corrupt_fr(void *p) { cuzk_fr_add((cuzk_fr *)p, (cuzk_fr *)p, cuzk_lc_pow2(0)); }

/* PoSt: S sectors, each with its own full tree R; k challenges per sector. */
static void test_e2e_post(const char *name) {
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
    /* R: siblings per tree-R path */
    const unsigned S = p.sectors, k = p.challenges, R = cuzk_fc_tree_r_siblings(&p);
    const size_t leaves = (size_t)1 << cuzk_fc_tree_r_bits(&p);
    struct cuzk_fc_post_sector *secs = calloc(S, sizeof *secs);
    cuzk_fr *inputs = malloc((1 + S * (1 + k)) * sizeof *inputs);
    size_t ni = 0;
    cuzk_fr_set_one(&inputs[ni++]);
    cuzk_fr *lv = malloc(leaves * sizeof *lv);
    for (unsigned s = 0; s < S; s++) {
        for (size_t i = 0; i < leaves; i++) cuzk_fr_random(&lv[i], &test_rng);
        struct ptree t;
        ptree_build(&t, &p, lv);
        struct cuzk_fc_post_sector *x = &secs[s];
        uint64_t *idx = malloc(k * sizeof *idx);
        cuzk_fr *lf = malloc(k * sizeof *lf), *paths = malloc((size_t)k * R * sizeof *paths);
        x->comm_r_last = *ptree_root(&t);
        cuzk_fr_random(&x->comm_c, &test_rng);
        cuzk_fr in2[2] = {x->comm_c, x->comm_r_last};
        cuzk_poseidon_hash_merkle(2, in2, &x->comm_r);
        inputs[ni++] = x->comm_r;
        for (unsigned i = 0; i < k; i++) {
            idx[i] = cuzk_rng_u64(&test_rng) % leaves;
            lf[i] = lv[idx[i]];
            ptree_path(&t, idx[i], paths + (size_t)i * R);
            cuzk_fr_from_u64(&inputs[ni++], idx[i]);
        }
        x->indices = idx;
        x->leaves = lf;
        x->paths = paths;
        ptree_free(&t);
    }
    struct cuzk_fc_post_vanilla v = {secs};
    check_e2e(name, &v, corrupt_fr, (void *)&secs[S - 1].leaves[k - 1], inputs, ni);
    for (unsigned s = 0; s < S; s++) {
        free((void *)secs[s].indices);
        free((void *)secs[s].leaves);
        free((void *)secs[s].paths);
    }
    free(secs);
    free(inputs);
    free(lv);
}

/* PoRep with one challenge on tiny trees: tree D of 2^d data leaves (binary SHA-256), trees C
 * and R of 8^r leaves; the challenged node's labels are computed natively from random parent
 * columns, exactly as the sealing code would. */
static void test_e2e_porep(const char *name) {
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
    /* R: siblings per tree-C/R path */
    const unsigned L = p.layers, D = p.tree_d_levels, R = cuzk_fc_tree_r_siblings(&p);
    const size_t nd = (size_t)1 << D, nr = (size_t)1 << cuzk_fc_tree_r_bits(&p);
    enum { NP = CUZK_FC_DRG_PARENTS + CUZK_FC_EXP_PARENTS };
    CHECK(nr >= NP + 1 && nd <= nr);

    struct cuzk_fc_porep_vanilla v;
    struct cuzk_fc_porep_challenge ch;
    memset(&ch, 0, sizeof ch);
    cuzk_fr_random(&v.replica_id, &test_rng);
    /* values below 2^254, as labels and data are (Fr32) */
    uint8_t buf[32];
    cuzk_fr *data = malloc(nd * sizeof *data);
    for (size_t i = 0; i < nd; i++) {
        cuzk_rng_fill(&test_rng, buf, 32);
        buf[31] &= 0x3f;
        cuzk_fr_from_bytes_le(&data[i], buf);
    }
    ch.challenge = cuzk_rng_u64(&test_rng) % nd;
    ch.data_leaf = data[ch.challenge];
    /* tree D */
    cuzk_fr *level = malloc(nd * sizeof *level), *tree_d_path = malloc(D * sizeof(cuzk_fr));
    memcpy(level, data, nd * sizeof *level);
    uint64_t idx = ch.challenge;
    for (unsigned l = 0, n = (unsigned)nd; l < D; l++, n /= 2, idx /= 2) {
        tree_d_path[l] = level[idx ^ 1];
        for (unsigned i = 0; i < n / 2; i++)
            cuzk_sha256_node_fr(&level[i], &level[2 * i], &level[2 * i + 1]);
    }
    v.comm_d = level[0];
    ch.tree_d_path = tree_d_path;

    /* distinct parent positions, none the challenge */
    for (unsigned q = 0; q < NP; q++) {
        uint64_t x;
        int clash;
        do {
            x = cuzk_rng_u64(&test_rng) % nr;
            clash = x == ch.challenge;
            for (unsigned j = 0; j < q; j++) clash |= ch.parents[j] == x;
        } while (clash);
        ch.parents[q] = x;
    }
    /* columns: random labels everywhere, the parents' included */
    cuzk_fr *cols = malloc(nr * L * sizeof *cols);
    for (size_t i = 0; i < nr * L; i++) {
        cuzk_rng_fill(&test_rng, buf, 32);
        buf[31] &= 0x3f;
        cuzk_fr_from_bytes_le(&cols[i], buf);
    }
    cuzk_fr *pcols = malloc(NP * L * sizeof *pcols);
    for (unsigned q = 0; q < NP; q++)
        memcpy(pcols + q * L, cols + ch.parents[q] * L, L * sizeof *pcols);
    ch.parent_columns = pcols;
    /* the challenged node's labels: layer l hashes the DRG parents' layer-l labels and the
     * expander parents' layer-(l-1) labels, expanded to 37 */
    cuzk_fr *own = cols + ch.challenge * L, par[CUZK_FC_TOTAL_PARENTS], base[NP];
    for (unsigned l = 1; l <= L; l++) {
        unsigned np = 0;
        for (unsigned q = 0; q < CUZK_FC_DRG_PARENTS; q++) {
            /* a DRG parent's layer-l label is its column entry l - 1 */
            base[np++] = pcols[q * L + l - 1];
        }
        if (l > 1)
            for (unsigned q = CUZK_FC_DRG_PARENTS; q < NP; q++) base[np++] = pcols[q * L + l - 2];
        for (unsigned k = 0; k < CUZK_FC_TOTAL_PARENTS; k++)
            par[k] = base[l > 1 ? k % NP : (k < 36 ? k % CUZK_FC_DRG_PARENTS : 0)];
        cuzk_fc_label_native(&own[l - 1], &v.replica_id, l, ch.challenge, par);
    }
    /* tree C over column hashes, tree R over replica nodes (label_L + data at the challenge) */
    cuzk_fr *leaves = malloc(nr * sizeof *leaves);
    for (size_t i = 0; i < nr; i++) cuzk_poseidon_hash_merkle((int)L, cols + i * L, &leaves[i]);
    struct ptree tc, tr;
    ptree_build(&tc, &p, leaves);
    for (size_t i = 0; i < nr; i++) cuzk_fr_random(&leaves[i], &test_rng);
    cuzk_fr_add(&leaves[ch.challenge], &own[L - 1], &ch.data_leaf);
    ptree_build(&tr, &p, leaves);
    v.comm_c = *ptree_root(&tc);
    v.comm_r_last = *ptree_root(&tr);
    cuzk_fr in2[2] = {v.comm_c, v.comm_r_last};
    cuzk_poseidon_hash_merkle(2, in2, &v.comm_r);
    cuzk_fr *ppaths = malloc(NP * R * sizeof *ppaths), *rpath = malloc(R * sizeof *rpath),
            *cpath = malloc(R * sizeof *cpath);
    for (unsigned q = 0; q < NP; q++) ptree_path(&tc, ch.parents[q], ppaths + q * R);
    ptree_path(&tr, ch.challenge, rpath);
    ptree_path(&tc, ch.challenge, cpath);
    ch.parent_paths = ppaths;
    ch.tree_r_path = rpath;
    ch.tree_c_path = cpath;
    v.challenges = &ch;

    /* the verifier's inputs: ONE, replica_id, comm_d, comm_r, then the packed path indices */
    cuzk_fr inputs[4 + 18];
    size_t ni = 0;
    cuzk_fr_set_one(&inputs[ni++]);
    inputs[ni++] = v.replica_id;
    inputs[ni++] = v.comm_d;
    inputs[ni++] = v.comm_r;
    cuzk_fr_from_u64(&inputs[ni++], ch.challenge);
    for (unsigned q = 0; q < NP; q++) cuzk_fr_from_u64(&inputs[ni++], ch.parents[q]);
    for (int i = 0; i < 3; i++) cuzk_fr_from_u64(&inputs[ni++], ch.challenge);
    /* (sanitizer builds skip the corrupted run: another 1.2 M recorded rows) */
    check_e2e(name, &v, SANITIZED ? NULL : corrupt_fr, (void *)&pcols[3 * L + 1], inputs, ni);

    ptree_free(&tc);
    ptree_free(&tr);
    free(data);
    free(level);
    free(tree_d_path);
    free(cols);
    free(pcols);
    free(leaves);
    free(ppaths);
    free(rpath);
    free(cpath);
}

/* A value below 2^254 (as Filecoin's data and labels are). */
static void random_fr32(cuzk_fr *x) {
    uint8_t buf[32];
    cuzk_rng_fill(&test_rng, buf, 32);
    buf[31] &= 0x3f;
    cuzk_fr_from_bytes_le(x, buf);
}

/* SnapDeals on tiny trees: tree D of 2^d leaves, trees R of 8^r = 2^d leaves; the challenges
 * are derived from comm_r_new exactly as the circuit derives them, and tree R new holds
 * label_r_old + data * rho for every node. */
static void test_e2e_snap(const char *name) {
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
    /* R: siblings per tree-R path */
    const unsigned D = p.tree_d_levels, R = cuzk_fc_tree_r_siblings(&p), P = p.partition_bits;
    const unsigned A = p.apex_leaves, c = p.challenges;
    unsigned alog = 0;
    while ((1u << alog) < A) alog++;
    const unsigned below = D - P - alog, bpc = D - P, per_digest = 254 / bpc;
    const unsigned digests = (c + per_digest - 1) / per_digest;
    const size_t n = (size_t)1 << D;
    unsigned hs[6];
    for (int i = 0; i < 6; i++) hs[i] = D >= 12 ? 7 + (unsigned)i : 1;

    struct cuzk_fc_snap_vanilla v;
    memset(&v, 0, sizeof v);
    v.k = (unsigned)(cuzk_rng_u64(&test_rng) % (1u << P));
    v.h_index = (unsigned)(cuzk_rng_u64(&test_rng) % 6);
    const unsigned h = hs[v.h_index];
    cuzk_fr tag;
    cuzk_poseidon_tag_custom(&tag, 1);

    /* tree D over the new data: level l has n >> l nodes */
    cuzk_fr *td[64];
    td[0] = malloc(n * sizeof(cuzk_fr));
    for (size_t i = 0; i < n; i++) random_fr32(&td[0][i]);
    for (unsigned l = 1; l <= D; l++) {
        td[l] = malloc((n >> l) * sizeof(cuzk_fr));
        for (size_t i = 0; i < n >> l; i++)
            cuzk_sha256_node_fr(&td[l][i], &td[l - 1][2 * i], &td[l - 1][2 * i + 1]);
    }
    v.comm_d_new = td[D][0];
    v.apex_leaves = td[below] + (size_t)v.k * A;
    cuzk_fr part_path[8];
    for (unsigned l = 0; l < P; l++) part_path[l] = td[D - P + l][(v.k >> l) ^ 1];
    v.partition_path = part_path;

    /* tree R old, comm_r_old, phi; tree R new from rho */
    cuzk_fr *old = malloc(n * sizeof *old), *nw = malloc(n * sizeof *nw), in2[2];
    for (size_t i = 0; i < n; i++) random_fr32(&old[i]);
    struct ptree tro, trn;
    ptree_build(&tro, &p, old);
    v.root_r_old = *ptree_root(&tro);
    random_fr32(&v.comm_c);
    in2[0] = v.comm_c;
    in2[1] = v.root_r_old;
    cuzk_poseidon_hash_merkle(2, in2, &v.comm_r_old);
    cuzk_fr phi, rho;
    in2[0] = v.comm_d_new;
    in2[1] = v.comm_r_old;
    cuzk_poseidon_hash(2, &tag, in2, &phi);
    for (size_t i = 0; i < n; i++) {
        in2[0] = phi;
        cuzk_fr_from_u64(&in2[1], i >> (D - h)); /* the h high bits of the challenge */
        cuzk_poseidon_hash(2, &tag, in2, &rho);
        cuzk_fr_mul(&nw[i], &td[0][i], &rho);
        cuzk_fr_add(&nw[i], &nw[i], &old[i]);
    }
    ptree_build(&trn, &p, nw);
    v.root_r_new = *ptree_root(&trn);
    in2[0] = v.comm_c;
    in2[1] = v.root_r_new;
    cuzk_poseidon_hash_merkle(2, in2, &v.comm_r_new);

    /* the challenges: bpc random bits per challenge from digest_j = H(comm_r_new || k digests + j),
     * the partition index on top */
    struct cuzk_fc_snap_challenge *ch = calloc(c, sizeof *ch);
    cuzk_fr *paths = malloc((size_t)c * (2 * R + below) * sizeof *paths);
    for (unsigned j = 0; j < digests; j++) {
        cuzk_fr digest;
        in2[0] = v.comm_r_new;
        cuzk_fr_from_u64(&in2[1], (uint64_t)v.k * digests + j);
        cuzk_poseidon_hash(2, &tag, in2, &digest);
        uint64_t l[4];
        cuzk_fr_to_canonical(l, &digest);
        for (unsigned q = 0; q < per_digest && j * per_digest + q < c; q++) {
            unsigned ci = j * per_digest + q;
            uint64_t x = 0;
            for (unsigned bit = 0; bit < bpc; bit++) {
                unsigned pos = q * bpc + bit;
                x |= ((l[pos / 64] >> (pos % 64)) & 1) << bit;
            }
            x |= (uint64_t)v.k << bpc;
            ch[ci].leaf_r_old = old[x];
            ch[ci].leaf_d_new = td[0][x];
            cuzk_fr *pr = paths + (size_t)ci * (2 * R + below);
            ptree_path(&tro, x, pr);
            ptree_path(&trn, x, pr + R);
            for (unsigned lv = 0; lv < below; lv++) pr[2 * R + lv] = td[lv][(x >> lv) ^ 1];
            ch[ci].path_r_old = pr;
            ch[ci].path_r_new = pr + R;
            ch[ci].path_d_to_apex = pr + 2 * R;
        }
    }
    v.challenges = ch;

    cuzk_fr inputs[5];
    cuzk_fr_set_one(&inputs[0]);
    cuzk_fr_from_u64(&inputs[1], (uint64_t)v.k | ((uint64_t)1 << v.h_index) << P);
    inputs[2] = v.comm_r_old;
    inputs[3] = v.comm_d_new;
    inputs[4] = v.comm_r_new;
    check_e2e(name, &v, corrupt_fr, (void *)&td[below][(size_t)v.k * A], inputs, 5);

    for (unsigned l = 0; l <= D; l++) free(td[l]);
    ptree_free(&tro);
    ptree_free(&trn);
    free(old);
    free(nw);
    free(ch);
    free(paths);
}

int main(void) {
    test_init("test_circuits_filecoin");
    test_profiles();
    test_scaled_counts();
    test_modes_agree();
    test_e2e_post("winning-s2-r2");
    test_e2e_post("wpost-s2-r2-k3");
    test_e2e_porep("porep-c1-l2-d3-r2");
    test_e2e_snap("snap-c3-d9-r3-a8-p1");
    /* compound trees: a binary top (8-8-2), an arity-4 sub level with a binary top (8-4-2) */
    test_e2e_post("wpost-s2-r2-t2-k3");
    test_e2e_post("winning-s2-r1-m4-t2");
    test_e2e_snap("snap-c3-d10-r3-t2-a8-p1");
    if (!SANITIZED) test_e2e_porep("porep-c1-l2-d6-r1-m4-t2");
    if (!SANITIZED) test_e2e_snap("snap-c2-d12-r4-a16-p2");
    test_real_counts();
    return test_finish();
}
