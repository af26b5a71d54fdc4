/* Synthetic sectors and vanilla proofs: generated data satisfies every kind's circuit at small
 * profiles; the file format round-trips; any corruption (bit flips, truncation, junk) gives a
 * clear error and never a crash; the PCE cache file round-trips, and a corrupt one is
 * re-recorded. Sections: stree, generate+satisfy, format, corruption, pce. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "circuits/builder.h"
#include "circuits/filecoin.h"
#include "circuits/merkle.h"
#include "circuits/poseidon.h"
#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "filecoin/sector.h"
#include "filecoin/snap_proof.h"
#include "filecoin/stree.h"
#include "filecoin/tools.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "test_util.h"
#include "util/pool.h"
#include "util/checksum.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct cuzk_pool *pool;

/* ---- stree: sparse paths agree with a dense tree -------------------------------------- */

static void leaf_zero_plus(void *ctx, uint64_t region, cuzk_fr *leaf) {
    (void)ctx;
    cuzk_fr_from_u64(leaf, 1000 + region);
}

static void test_stree(void) {
    /* 8-ary, 2 levels (64 leaves), 8 regions of 8 leaves; dense reference */
    struct cuzk_stree t;
    const struct cuzk_merkle_shape p8 = {CUZK_MERKLE_POSEIDON, 8, 2, 0, 0};
    CHECK(cuzk_stree_init(&t, &p8, 3, leaf_zero_plus, NULL) == CUZK_OK);
    cuzk_fr leaves[64];
    for (uint64_t i = 0; i < 64; i++) cuzk_fr_from_u64(&leaves[i], 1000 + i / 8);
    const uint64_t set[] = {3, 17, 18, 63};
    for (size_t i = 0; i < 4; i++) {
        cuzk_fr_from_u64(&leaves[set[i]], 77 + i);
        CHECK(cuzk_stree_set(&t, set[i], &leaves[set[i]]) == CUZK_OK);
    }
    CHECK(cuzk_stree_set(&t, 64, &leaves[0]) == CUZK_EINVAL);
    CHECK(cuzk_stree_build(&t) == CUZK_OK);
    cuzk_fr level1[8], root;
    for (int i = 0; i < 8; i++) cuzk_poseidon_hash_merkle(8, leaves + 8 * i, &level1[i]);
    cuzk_poseidon_hash_merkle(8, level1, &root);
    CHECK(cuzk_fr_eq(&root, cuzk_stree_root(&t)));
    for (uint64_t i = 0; i < 64; i++) {
        cuzk_fr sibs[14], r, leaf;
        cuzk_stree_path(&t, i, 0, 2, sibs);
        cuzk_stree_node(&t, 0, i, &leaf);
        CHECK(cuzk_fr_eq(&leaf, &leaves[i]));
        cuzk_merkle_root_native(&p8, &leaf, sibs, i, &r);
        CHECK(cuzk_fr_eq(&r, &root));
    }
    cuzk_stree_free(&t);
    /* 8-4-2 (one 8-ary level, a sub level of 4, a binary top: 64 leaves), 4 regions of 16
     * leaves, a region boundary inside the sub level's subtrees */
    const struct cuzk_merkle_shape c842 = {CUZK_MERKLE_POSEIDON, 8, 1, 4, 2};
    CHECK(cuzk_stree_init(&t, &c842, 4, leaf_zero_plus, NULL) == CUZK_OK);
    for (uint64_t i = 0; i < 64; i++) cuzk_fr_from_u64(&leaves[i], 1000 + i / 16);
    for (size_t i = 0; i < 4; i++) {
        cuzk_fr_from_u64(&leaves[set[i]], 88 + i);
        CHECK(cuzk_stree_set(&t, set[i], &leaves[set[i]]) == CUZK_OK);
    }
    CHECK(cuzk_stree_build(&t) == CUZK_OK);
    cuzk_fr level2[2];
    for (int i = 0; i < 8; i++) cuzk_poseidon_hash_merkle(8, leaves + 8 * i, &level1[i]);
    for (int i = 0; i < 2; i++) cuzk_poseidon_hash_merkle(4, level1 + 4 * i, &level2[i]);
    cuzk_poseidon_hash_merkle(2, level2, &root);
    CHECK(cuzk_fr_eq(&root, cuzk_stree_root(&t)));
    for (uint64_t i = 0; i < 64; i++) {
        cuzk_fr sibs[11], r, leaf;
        cuzk_stree_path(&t, i, 0, 3, sibs);
        cuzk_stree_node(&t, 0, i, &leaf);
        CHECK(cuzk_fr_eq(&leaf, &leaves[i]));
        cuzk_merkle_root_native(&c842, &leaf, sibs, i, &r);
        CHECK(cuzk_fr_eq(&r, &root));
    }
    cuzk_stree_free(&t);
    /* binary SHA-256, 5 levels, one region: paths of set and unset leaves */
    cuzk_fr def;
    cuzk_fr_from_u64(&def, 5);
    const struct cuzk_merkle_shape s5 = {CUZK_MERKLE_SHA256, 2, 5, 0, 0};
    CHECK(cuzk_stree_init(&t, &s5, 5, leaf_zero_plus, NULL) == CUZK_OK);
    cuzk_fr v;
    cuzk_fr_from_u64(&v, 9);
    CHECK(cuzk_stree_set(&t, 6, &v) == CUZK_OK);
    CHECK(cuzk_stree_set(&t, 6, &v) == CUZK_OK); /* same value twice is fine */
    CHECK(cuzk_stree_build(&t) == CUZK_OK);
    for (uint64_t i = 0; i < 32; i++) {
        cuzk_fr sibs[5], r, leaf;
        cuzk_stree_path(&t, i, 0, 5, sibs);
        cuzk_stree_node(&t, 0, i, &leaf);
        cuzk_merkle_root_native(&s5, &leaf, sibs, i, &r);
        CHECK(cuzk_fr_eq(&r, cuzk_stree_root(&t)));
    }
    cuzk_stree_free(&t);
    /* two values for one leaf */
    const struct cuzk_merkle_shape s3 = {CUZK_MERKLE_SHA256, 2, 3, 0, 0};
    CHECK(cuzk_stree_init(&t, &s3, 3, leaf_zero_plus, NULL) == CUZK_OK);
    CHECK(cuzk_stree_set(&t, 1, &v) == CUZK_OK);
    CHECK(cuzk_stree_set(&t, 1, &def) == CUZK_OK);
    CHECK(cuzk_stree_build(&t) == CUZK_EINVAL);
    cuzk_stree_free(&t);
}

/* ---- generation: every partition satisfies the recorded circuit ---------------------------- */

static void satisfy(const char *profile, uint32_t parts, uint64_t seed) {
    struct cuzk_fc_profile p;
    char err[256] = "";
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    double t0 = now_ms();
    struct cuzk_vanilla v;
    int rc = cuzk_sector_generate(&p, parts, seed, &v, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) {
        fprintf(stderr, "generate %s: %s\n", profile, err);
        return;
    }
    double t1 = now_ms();
    rc = cuzk_vanilla_check(&v, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) fprintf(stderr, "check %s: %s\n", profile, err);
    double t2 = now_ms();
    struct cuzk_pce pce;
    rc = cuzk_pce_record(&p, &pce, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) {
        cuzk_vanilla_free(&v);
        return;
    }
    double t3 = now_ms(), wit = 0, sat_ms = 0;
    const size_t n_vars = pce.cs.n_cols;
    cuzk_fr *w = malloc(n_vars * sizeof *w);
    CHECK(w != NULL);
    for (uint32_t i = 0; i < parts && w; i++) {
        double a = now_ms();
        struct cuzk_builder b;
        CHECK(cuzk_builder_init(&b, CUZK_BUILDER_WITNESS, 1) == CUZK_OK);
        CHECK(cuzk_builder_use_buffer(&b, w, n_vars, pce.counts.n_inputs) == CUZK_OK);
        rc = cuzk_fc_synthesize(&b, &p, cuzk_vanilla_values(&v, i));
        CHECK(rc == CUZK_OK);
        cuzk_fr *wo = NULL;
        size_t wl = 0;
        CHECK(cuzk_builder_finish(&b, NULL, &wo, &wl) == CUZK_OK);
        CHECK(wo == w && wl == n_vars);
        cuzk_builder_free(&b);
        double m = now_ms();
        size_t bad = 0;
        int sat = cuzk_cs_is_satisfied(pool, &pce.cs, w, &bad);
        CHECK(sat == 1);
        if (sat != 1)
            fprintf(stderr, "%s partition %u: row %zu of %zu unsatisfied\n", profile, i, bad,
                    pce.cs.n_rows);
        wit += m - a;
        sat_ms += now_ms() - m;
    }
    printf("  %-24s x%u: %8llu rows, generate %.0f ms, check %.0f ms, record %.0f ms, "
           "witness %.0f ms, satisfied %.0f ms\n",
           p.name, parts, (unsigned long long)pce.counts.constraints, t1 - t0, t2 - t1, t3 - t2,
           wit, sat_ms);
    free(w);
    cuzk_pce_free(&pce);
    cuzk_vanilla_free(&v);
}

/* ---- SnapDeals Top proofs: a 64 GiB sector's entries -------------------------------------- */

/* A synthetic 64 GiB SnapDeals sector (snap-c86-d31-t2, 16 partitions) written as Filecoin's
 * PartitionProof entries, whose tree-R proofs are Top proofs (base 9 levels, sub 1, top 1), and
 * read back into the same vanilla set; the same bytes refused under the 32 GiB proof's shape.
 * The registered proof is built here: 64 GiB numbers are not served yet. */
static void test_snap_top(void) {
    struct cuzk_fc_registered reg;
    memset(&reg, 0, sizeof reg);
    reg.kind = CUZK_FC_SNAP;
    reg.number = 4;
    snprintf(reg.name, sizeof reg.name, "StackedDrg64GiBV1");
    reg.sector_size = 64ull << 30;
    reg.api = CUZK_API_1_2;
    reg.partitions = 16;
    char err[400] = "";
    CHECK(cuzk_fc_profile_parse("snap-c86-d31-t2", &reg.profile, err, sizeof err) == CUZK_OK);
    struct cuzk_vanilla v, back;
    CHECK(cuzk_sector_generate(&reg.profile, reg.partitions, 61, &v, err, sizeof err) == CUZK_OK);
    uint8_t *all = NULL;
    size_t n_all = 0, first = 0;
    for (uint32_t q = 0; q < v.n_parts; q++) {
        uint8_t *e = NULL;
        size_t n = 0;
        CHECK(cuzk_snap_entry_write(&v, &reg, q, &e, &n) == CUZK_OK);
        all = realloc(all, n_all + n);
        memcpy(all + n_all, e, n);
        n_all += n;
        if (!q) first = n;
        free(e);
    }
    /* comm_c, the apex leaves, the challenge proof count, then proof_r_old's variant */
    const size_t variant_at = 32 + 8 + 32 * (size_t)reg.profile.apex_leaves + 8;
    CHECK(first > variant_at && all[variant_at] == 2);
    int rc = cuzk_snap_vanilla_of_entries(all, n_all, &reg, &back, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) fprintf(stderr, "snap top: %s\n", err);
    uint8_t *f1 = NULL, *f2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (!rc) {
        CHECK(cuzk_vanilla_serialize(&v, &f1, &n1) == CUZK_OK);
        CHECK(cuzk_vanilla_serialize(&back, &f2, &n2) == CUZK_OK);
        CHECK(n1 == n2 && !memcmp(f1, f2, n1)); /* the same values, h included */
        cuzk_vanilla_free(&back);
    }
    /* under the 32 GiB shape (Sub proofs), the first proof is refused by its variant */
    struct cuzk_fc_registered r32 = reg;
    r32.sector_size = 32ull << 30;
    CHECK(cuzk_fc_profile_parse("snap-c86", &r32.profile, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_snap_vanilla_of_entries(all, n_all, &r32, &back, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "Top proof") != NULL);
    printf("snap entries: %s (%s): %u PartitionProof entries of %zu bytes (Top proofs) read "
           "back into the same partitions\n",
           reg.name, reg.profile.name, v.n_parts, first);
    free(f1);
    free(f2);
    free(all);
    cuzk_vanilla_free(&v);
}

/* ---- the file format ------------------------------------------------------------------- */

static void test_round_trip(const char *profile, uint32_t parts, uint64_t seed) {
    struct cuzk_fc_profile p;
    char err[256];
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    struct cuzk_vanilla v, w;
    CHECK(cuzk_sector_generate(&p, parts, seed, &v, err, sizeof err) == CUZK_OK);
    uint8_t *b1, *b2;
    size_t n1, n2;
    CHECK(cuzk_vanilla_serialize(&v, &b1, &n1) == CUZK_OK);
    CHECK(n1 == CUZK_VANILLA_HEADER_BYTES + parts * (8 + cuzk_vanilla_part_bytes(&p)));
    int rc = cuzk_vanilla_parse(&w, b1, n1, err, sizeof err);
    CHECK(rc == CUZK_OK);
    if (rc) fprintf(stderr, "parse %s: %s\n", profile, err);
    CHECK(w.n_parts == parts && !strcmp(w.profile.name, p.name));
    CHECK(cuzk_vanilla_check(&w, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_vanilla_serialize(&w, &b2, &n2) == CUZK_OK);
    CHECK(n1 == n2 && !memcmp(b1, b2, n1));
    /* deterministic in the seed */
    struct cuzk_vanilla v2;
    uint8_t *b3;
    size_t n3;
    CHECK(cuzk_sector_generate(&p, parts, seed, &v2, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_vanilla_serialize(&v2, &b3, &n3) == CUZK_OK);
    CHECK(n3 == n1 && !memcmp(b1, b3, n1));
    /* concatenating one file per partition gives the same partitions */
    if (parts > 1) {
        size_t pb = (size_t)cuzk_vanilla_part_bytes(&p) + 8;
        size_t one = CUZK_VANILLA_HEADER_BYTES + pb;
        uint8_t *cat = malloc(parts * one);
        for (uint32_t i = 0; i < parts; i++) {
            memcpy(cat + i * one, b1, CUZK_VANILLA_HEADER_BYTES);
            cat[i * one + 16] = 1, cat[i * one + 17] = cat[i * one + 18] = cat[i * one + 19] = 0;
            memcpy(cat + i * one + CUZK_VANILLA_HEADER_BYTES,
                   b1 + CUZK_VANILLA_HEADER_BYTES + i * pb, pb);
        }
        struct cuzk_vanilla c;
        rc = cuzk_vanilla_parse(&c, cat, parts * one, err, sizeof err);
        CHECK(rc == CUZK_OK);
        if (!rc) {
            uint8_t *b4;
            size_t n4;
            CHECK(c.n_parts == parts);
            CHECK(cuzk_vanilla_serialize(&c, &b4, &n4) == CUZK_OK);
            CHECK(n4 == n1 && !memcmp(b4, b1, n1));
            free(b4);
            cuzk_vanilla_free(&c);
        }
        free(cat);
    }
    free(b1);
    free(b2);
    free(b3);
    cuzk_vanilla_free(&v);
    cuzk_vanilla_free(&v2);
    cuzk_vanilla_free(&w);
}

/* Parses and checks a buffer; returns 0 when accepted, else the error code (the message must
 * be a non-empty sentence). */
static int parse_and_check(const uint8_t *b, size_t n) {
    struct cuzk_vanilla v;
    char err[256] = "";
    /* a private copy, so that ASan sees any read past the end */
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, b, n);
    int rc = cuzk_vanilla_parse(&v, copy, n, err, sizeof err);
    if (!rc) {
        rc = cuzk_vanilla_check(&v, err, sizeof err);
        cuzk_vanilla_free(&v);
    }
    free(copy);
    if (rc) CHECK(err[0] != 0 && strncmp(err, "vanilla: ", 9) == 0);
    return rc;
}

static void test_corruption(const char *profile, uint32_t parts, int flips) {
    struct cuzk_fc_profile p;
    char err[256];
    CHECK(cuzk_fc_profile_parse(profile, &p, err, sizeof err) == CUZK_OK);
    struct cuzk_vanilla v;
    CHECK(cuzk_sector_generate(&p, parts, 7, &v, err, sizeof err) == CUZK_OK);
    uint8_t *b;
    size_t n;
    CHECK(cuzk_vanilla_serialize(&v, &b, &n) == CUZK_OK);
    cuzk_vanilla_free(&v);
    CHECK(parse_and_check(b, n) == 0);
    /* every truncation (sampled for long files) fails */
    int trunc_ok = 1;
    size_t step = n > 4096 ? n / 2048 : 1;
    for (size_t len = 0; len < n; len += step)
        if (parse_and_check(b, len) == 0) trunc_ok = 0;
    CHECK(trunc_ok);
    /* trailing junk fails */
    uint8_t *longer = malloc(n + 5);
    memcpy(longer, b, n);
    memcpy(longer + n, "junk!", 5);
    CHECK(parse_and_check(longer, n + 5) != 0);
    free(longer);
    /* random bit flips: every header flip and nearly every payload flip is caught */
    int caught = 0, header_missed = 0;
    for (int i = 0; i < flips; i++) {
        size_t at = i < CUZK_VANILLA_HEADER_BYTES * 8 ? (size_t)i / 8 : cuzk_rng_u64(&test_rng) % n;
        int bit = i < CUZK_VANILLA_HEADER_BYTES * 8 ? i % 8 : (int)(cuzk_rng_u64(&test_rng) % 8);
        b[at] ^= (uint8_t)(1 << bit);
        int rc = parse_and_check(b, n);
        b[at] ^= (uint8_t)(1 << bit);
        if (rc)
            caught++;
        else if (at < CUZK_VANILLA_HEADER_BYTES + 8)
            header_missed++;
    }
    CHECK(header_missed == 0);
    CHECK(caught >= flips * 98 / 100);
    printf("  corruption %-20s %zu bytes: %d of %d bit flips caught, truncations ok=%d\n", p.name,
           n, caught, flips, trunc_ok);
    /* random byte garbage */
    for (int i = 0; i < 200; i++) {
        size_t len = cuzk_rng_u64(&test_rng) % 400;
        uint8_t junk[400];
        cuzk_rng_fill(&test_rng, junk, len);
        if (len >= 8 && i % 2) memcpy(junk, CUZK_VANILLA_MAGIC, 8);
        CHECK(parse_and_check(junk, len) != 0);
    }
    free(b);
}

/* Corruption that keeps the layout valid: each value class is caught by the deep check. */
static void test_semantic_errors(void) {
    struct cuzk_fc_profile p;
    char err[256];
    CHECK(cuzk_fc_profile_parse("wpost-s2-k2-r2", &p, err, sizeof err) == CUZK_OK);
    struct cuzk_vanilla v;
    CHECK(cuzk_sector_generate(&p, 1, 3, &v, err, sizeof err) == CUZK_OK);
    struct cuzk_fc_post_sector *s = (struct cuzk_fc_post_sector *)v.parts[0].v.post.sectors;
    cuzk_fr one;
    cuzk_fr_set_one(&one);
    cuzk_fr_add(&s[1].comm_c, &s[1].comm_c, &one);
    CHECK(cuzk_vanilla_check(&v, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "sector 1") && strstr(err, "comm_r"));
    cuzk_fr_sub(&s[1].comm_c, &s[1].comm_c, &one);
    CHECK(cuzk_vanilla_check(&v, err, sizeof err) == CUZK_OK);
    ((uint64_t *)s[0].indices)[1] ^= 1;
    CHECK(cuzk_vanilla_check(&v, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "challenge 1") != NULL);
    cuzk_vanilla_free(&v);

    /* PoRep: partitions must share the sector */
    CHECK(cuzk_fc_profile_parse("porep-c1-l2-d3-r1", &p, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_sector_generate(&p, 2, 3, &v, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_vanilla_check(&v, err, sizeof err) == CUZK_OK);
    struct cuzk_fc_porep_vanilla *pv = &v.parts[1].v.porep;
    cuzk_fr_add(&pv->replica_id, &pv->replica_id, &one);
    CHECK(cuzk_vanilla_check_part(&v, 1, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "replica_id") && strstr(err, "partition 1"));
    cuzk_fr_sub(&pv->replica_id, &pv->replica_id, &one);
    /* a parent column that hashes into tree C but yields other labels cannot exist; a changed
     * label breaks its path */
    struct cuzk_fc_porep_challenge *ch = (struct cuzk_fc_porep_challenge *)pv->challenges;
    cuzk_fr *col = (cuzk_fr *)ch[0].parent_columns;
    cuzk_fr_add(&col[3], &col[3], &one);
    CHECK(cuzk_vanilla_check_part(&v, 1, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "parent 1") != NULL);
    cuzk_vanilla_free(&v);

    /* too many partitions for the sector */
    CHECK(cuzk_sector_generate(&p, 7, 3, &v, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "nodes") != NULL);
    CHECK(cuzk_fc_profile_parse("snap-c1-a8-p1-d9-r3", &p, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_sector_generate(&p, 3, 3, &v, err, sizeof err) == CUZK_EINVAL);
}

/* ---- the PCE file ---------------------------------------------------------------------- */

static void test_pce(void) {
    char dir[] = "/tmp/cuzk-test-pce-XXXXXX", err[256];
    CHECK(mkdtemp(dir) != NULL);
    struct cuzk_fc_profile p;
    CHECK(cuzk_fc_profile_parse("wpost-s3-k2-r2", &p, err, sizeof err) == CUZK_OK);
    struct cuzk_pce a, b;
    int loaded = -1;
    CHECK(cuzk_pce_get(dir, &p, &a, &loaded, err, sizeof err) == CUZK_OK && loaded == 0);
    CHECK(cuzk_pce_get(dir, &p, &b, &loaded, err, sizeof err) == CUZK_OK && loaded == 1);
    CHECK(!memcmp(&a.counts, &b.counts, sizeof a.counts));
    CHECK(a.cs.n_rows == b.cs.n_rows && a.cs.n_cols == b.cs.n_cols &&
          a.cs.n_public == b.cs.n_public);
    for (int m = 0; m < 3; m++) {
        CHECK(a.cs.m[m].nnz == b.cs.m[m].nnz);
        CHECK(!memcmp(a.cs.m[m].row_ptr, b.cs.m[m].row_ptr, (a.cs.n_rows + 1) * 8));
        CHECK(!memcmp(a.cs.m[m].col, b.cs.m[m].col, a.cs.m[m].nnz * 4));
        CHECK(!memcmp(a.cs.m[m].coef, b.cs.m[m].coef, a.cs.m[m].nnz * 4));
    }
    CHECK(a.cs.coefs.n == b.cs.coefs.n && a.cs.coefs.n >= 2);
    CHECK(!memcmp(a.cs.coefs.v, b.cs.coefs.v, a.cs.coefs.n * sizeof(cuzk_fr)));
    struct cuzk_builder_counts c;
    CHECK(cuzk_pce_counts(dir, &p, &c, err, sizeof err) == CUZK_OK);
    CHECK(!memcmp(&c, &a.counts, sizeof c));
    CHECK(cuzk_pce_bytes(&c) == 3 * (c.constraints + 1) * 8 + (c.nnz[0] + c.nnz[1] + c.nnz[2]) * 8 +
                                    (uint64_t)CUZK_PCE_MAX_COEFS * 32);
    CHECK(cuzk_cs_bytes(&a.cs) <= cuzk_pce_bytes(&c));
    cuzk_pce_free(&b);
    /* flip a byte in the payload, and one in the header: load fails, get re-records */
    char path[512];
    cuzk_pce_path(dir, p.name, path, sizeof path);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == cuzk_pce_file_bytes(&c, a.cs.coefs.n));
    const long at[2] = {(long)st.st_size / 2, 100};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(path, "r+b");
        CHECK(f != NULL);
        fseek(f, at[k], SEEK_SET);
        int ch = fgetc(f);
        fseek(f, at[k], SEEK_SET);
        fputc(ch ^ 0x10, f);
        fclose(f);
        CHECK(cuzk_pce_load(path, p.name, &b, err, sizeof err) == CUZK_EFORMAT);
        CHECK(strstr(err, "checksum") != NULL);
        CHECK(cuzk_pce_get(dir, &p, &b, &loaded, err, sizeof err) == CUZK_OK && loaded == 0);
        CHECK(b.cs.m[2].nnz == a.cs.m[2].nnz);
        cuzk_pce_free(&b);
        CHECK(cuzk_pce_load(path, p.name, &b, err, sizeof err) == CUZK_OK);
        cuzk_pce_free(&b);
    }
    /* a file recorded by other circuit code (another fingerprint) is stale */
    {
        uint8_t h[CUZK_PCE_HEADER_BYTES];
        FILE *f = fopen(path, "r+b");
        CHECK(f && fread(h, 1, sizeof h, f) == sizeof h);
        h[80] ^= 1; /* the fingerprint */
        uint64_t sum = cuzk_checksum64(h, CUZK_PCE_HEADER_BYTES - 8);
        memcpy(h + CUZK_PCE_HEADER_BYTES - 8, &sum, 8);
        fseek(f, 0, SEEK_SET);
        CHECK(fwrite(h, 1, sizeof h, f) == sizeof h);
        fclose(f);
        CHECK(cuzk_pce_load(path, p.name, &b, err, sizeof err) == CUZK_EUNSUPPORTED);
        CHECK(strstr(err, "stale") != NULL);
        CHECK(cuzk_pce_get(dir, &p, &b, &loaded, err, sizeof err) == CUZK_OK && loaded == 0);
        CHECK(b.checksum == a.checksum && b.checksum != 0);
        cuzk_pce_free(&b);
    }
    /* truncation, another profile's name */
    CHECK(truncate(path, st.st_size - 1) == 0);
    CHECK(cuzk_pce_load(path, p.name, &b, err, sizeof err) == CUZK_EFORMAT);
    CHECK(cuzk_pce_get(dir, &p, &b, &loaded, err, sizeof err) == CUZK_OK && loaded == 0);
    cuzk_pce_free(&b);
    CHECK(cuzk_pce_load(path, "wpost-s4-k2-r2", &b, err, sizeof err) == CUZK_EFORMAT);
    /* the checksum: any split gives the same value, a flipped bit changes it */
    uint8_t buf[1000];
    cuzk_rng_fill(&test_rng, buf, sizeof buf);
    uint64_t whole = cuzk_checksum64(buf, sizeof buf);
    struct cuzk_checksum h;
    cuzk_checksum_init(&h);
    cuzk_checksum_update(&h, buf, 3);
    cuzk_checksum_update(&h, buf + 3, 40);
    cuzk_checksum_update(&h, buf + 43, sizeof buf - 43);
    CHECK(cuzk_checksum_final(&h) == whole);
    buf[500] ^= 4;
    CHECK(cuzk_checksum64(buf, sizeof buf) != whole);
    CHECK(cuzk_checksum64(buf, 999) != cuzk_checksum64(buf, 1000));
    cuzk_pce_free(&a);
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    rmdir(dir);
}

/* ---- the tools behind cuzk-bench gen-vanilla / synth-only -------------------------------- */

static void test_tools(void) {
    char dir[] = "/tmp/cuzk-test-tools-XXXXXX", path[256], err[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/v.bin", dir);
    struct cuzk_vanilla_gen_info info;
    CHECK(cuzk_vanilla_generate("wpost-s2-k2-r2", 2, 9, path, &info, err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(info.profile, "wpost-s2-r2-k2") && info.partitions == 2);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == info.bytes);
    struct cuzk_vanilla v;
    CHECK(cuzk_vanilla_read_file(&v, path, err, sizeof err) == CUZK_OK);
    CHECK(v.n_parts == 2 && cuzk_vanilla_check(&v, err, sizeof err) == CUZK_OK);
    cuzk_vanilla_free(&v);
    char *text = NULL;
    size_t tlen = 0;
    FILE *out = open_memstream(&text, &tlen);
    CHECK(cuzk_fc_synth_only("wpost-s2-r2-k2", path, 2, dir, 1, out, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_fc_synth_only("wpost-s2-r2-k2", NULL, 1, NULL, 1, out, err, sizeof err) == CUZK_OK);
    fclose(out);
    CHECK(text && strstr(text, "pce=recorded") && strstr(text, "summary: runs=4") &&
          strstr(text, "partition=1 iter=1") && !strstr(text, "satisfied=no"));
    free(text);
    out = fopen("/dev/null", "w");
    CHECK(cuzk_fc_synth_only("wpost-s3-k2-r2", path, 1, NULL, 1, out, err, sizeof err) ==
          CUZK_EINVAL);
    fclose(out);
    /* a bare kind is the real shape */
    CHECK(cuzk_vanilla_generate("winning", 0, 9, path, &info, err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(info.profile, "winning-s66") && info.partitions == 1);
    CHECK(cuzk_vanilla_generate("nope", 0, 9, path, &info, err, sizeof err) == CUZK_EINVAL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void) {
    test_init("test_vanilla");
    CHECK(cuzk_pool_create(&pool, 0, "test") == CUZK_OK);
    test_stree();
    printf("generate + satisfy:\n");
    satisfy("wpost-s2-k2-r2", 2, 1);
    satisfy("winning-s4-r3", 1, 2);
    satisfy("snap-c1-a8-p1-d9-r3", 2, 3);
    satisfy("snap-c1-a2-p1-d12-r4", 1, 4);
    satisfy("porep-c1-l2-d3-r1", 2, 5);
    /* trees C/R with a top level (8-8-2) or a sub and a top level (8-4-2) */
    satisfy("wpost-s2-k2-r2-t2", 2, 6);
    satisfy("winning-s4-r2-m4-t2", 1, 7);
    satisfy("snap-c1-a8-p1-d10-r3-t2", 2, 8);
    satisfy("snap-c1-a2-p1-d13-r4-t2", 1, 9);
    if (!SANITIZED) satisfy("porep-c1-l2-d6-r1-m4-t2", 2, 10);
    printf("format:\n");
    test_round_trip("porep-c1-l2-d3-r1", 2, 11);
    test_round_trip("wpost-s3-k2-r2-t2", 2, 15);
    test_round_trip("snap-c3-a8-p1-d9-r3", 2, 12);
    test_round_trip("wpost-s3-k2-r2", 2, 13);
    test_round_trip("winning-s66", 1, 14);
    test_corruption("wpost-s2-k2-r2", 1, 3000);
    test_corruption("snap-c1-a8-p1-d9-r3", 2, 1500);
    test_corruption("porep-c1-l2-d3-r1", 2, 1500);
    test_snap_top();
    test_semantic_errors();
    test_pce();
    test_tools();
    cuzk_pool_destroy(pool);
    return test_finish();
}
