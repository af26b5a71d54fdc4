/* Filecoin's derivations against real data (tests/data/realdata, README.md there says where
 * every file comes from): the known answers of kats.json (SDR labels, parent-cache digests,
 * SnapDeals, synthetic PoRep and WindowPoSt challenges, Poseidon, empty comm_d), the four
 * sealed 2 KiB sectors of sectors-2k.json (replica id, labels, parents, comm_d of the data
 * recovered from the replica, comm_c, comm_r_last, comm_r, their p_aux files and CIDs), and
 * curio's real 32 GiB WindowPoSt vanilla proof (its challenged leaves, paths and comm_r, and
 * our WindowPoSt circuit satisfied by it with the real public inputs).
 * Every value is computed here and compared with the file; a difference prints both.
 * Then the PoSt proofs as clients send them (filecoin/post_proof.h): the curio file read and
 * written back byte for byte, turned into the real wpost partition with its challenges checked
 * against the randomness, and 2 KiB WindowPoSt / WinningPoSt entries made from the real sectors;
 * the registered proof numbers (filecoin/registered.h); and the PoRep vanilla proofs of the real
 * sectors (filecoin/seal_proof.h) through our PoRep circuit.
 * Sections: primitives, labels, graph, challenges, poseidon, shapes, sectors, post proof,
 * registered, post entries, seal vanilla.
 * CUZK_REALDATA names another data directory; CUZK_FC_REAL_SLOW=1 adds the two 512 MiB
 * parent-cache digests (about 6 minutes each in release). */
#define _GNU_SOURCE
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/builder.h"
#include "circuits/filecoin.h"
#include "circuits/merkle.h"
#include "circuits/poseidon.h"
#include "cuzk/error.h"
#include "filecoin/c1.h"
#include "filecoin/challenges.h"
#include "filecoin/graph.h"
#include "filecoin/post_proof.h"
#include "filecoin/registered.h"
#include "filecoin/seal_proof.h"
#include "filecoin/sdr.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "test_util.h"
#include "util/base64.h"
#include "util/blake2b.h"
#include "util/chacha.h"
#include "util/file.h"

static char data_dir[1024];
static json_t *kats;

/* ---- helpers ------------------------------------------------------------------------------ */

static uint8_t *load(const char *name, size_t *len) {
    char path[1200], err[256];
    uint8_t *buf;
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    if (cuzk_file_read(path, SIZE_MAX, &buf, len, err, sizeof err)) {
        fprintf(stderr, "missing data file: %s\n", err);
        exit(1);
    }
    return buf;
}

static json_t *load_json(const char *name) {
    size_t len;
    uint8_t *buf = load(name, &len);
    json_error_t e;
    json_t *j = json_loadb((const char *)buf, len, 0, &e);
    free(buf);
    if (!j) {
        fprintf(stderr, "%s: line %d: %s\n", name, e.line, e.text);
        exit(1);
    }
    return j;
}

static const char *jstr(const json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    if (!s) {
        fprintf(stderr, "data: no string '%s'\n", key);
        exit(1);
    }
    return s;
}

static uint64_t jint(const json_t *v) { return (uint64_t)json_integer_value(v); }

/* 32 bytes from 64 hex digits (a data file's field element: little-endian). */
static void hex32(const char *hex, uint8_t out[32]) {
    if (strlen(hex) != 64 || test_hex_to_bytes(out, 32, hex, 64)) {
        fprintf(stderr, "data: bad 32-byte hex '%s'\n", hex);
        exit(1);
    }
}

static void fr_hex(const char *hex, cuzk_fr *out) {
    uint8_t b[32];
    hex32(hex, b);
    if (cuzk_fr_from_bytes_le(out, b)) {
        fprintf(stderr, "data: %s is not a field element\n", hex);
        exit(1);
    }
}

/* Compares 32 bytes with the expected hex, printing both when they differ. */
static void check_bytes(const char *what, const uint8_t got[32], const char *want_hex) {
    uint8_t want[32];
    hex32(want_hex, want);
    int ok = !memcmp(got, want, 32);
    CHECK(ok);
    if (!ok) {
        char g[65];
        test_bytes_to_hex(g, got, 32);
        fprintf(stderr, "  %s: got %s\n  %*s  want %s\n", what, g, (int)strlen(what), "", want_hex);
    }
}

static void check_fr(const char *what, const cuzk_fr *got, const char *want_hex) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, got);
    check_bytes(what, b, want_hex);
}

static void check_u64(const char *what, uint64_t got, uint64_t want) {
    CHECK(got == want);
    if (got != want)
        fprintf(stderr, "  %s: got %llu, want %llu\n", what, (unsigned long long)got,
                (unsigned long long)want);
}

static enum cuzk_api api_of(const char *s) {
    return !strncmp(s, "1.0", 3)   ? CUZK_API_1_0
           : !strncmp(s, "1.1", 3) ? CUZK_API_1_1
                                   : CUZK_API_1_2;
}

/* ---- primitives: published vectors and an independent implementation ------------------- */

static void test_primitives(void) {
    uint8_t out[64], key[32], nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
    char hex[129];
    /* RFC 7693 appendix A: BLAKE2b-512("abc") */
    cuzk_blake2b(out, 64, NULL, 0, "abc", 3);
    test_bytes_to_hex(hex, out, 64);
    CHECK(!strcmp(hex, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                       "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"));
    /* keyed, 32 bytes, a message over one block (Python's hashlib.blake2b) */
    uint8_t msg[200];
    for (int i = 0; i < 200; i++) msg[i] = (uint8_t)i;
    const char *tag = "filecoin.io|PoRep|1|Synthetic|1|Generation";
    cuzk_blake2b(out, 32, tag, strlen(tag), msg, sizeof msg);
    test_bytes_to_hex(hex, out, 32);
    CHECK(!strcmp(hex, "eb6bf54c88d5f85c25eb386d42bf0b39c59c58a0581c24bbf7af8404130d4ed3"));
    CHECK(cuzk_blake2b(out, 0, NULL, 0, msg, 1) == CUZK_EINVAL);
    CHECK(cuzk_blake2b(out, 65, NULL, 0, msg, 1) == CUZK_EINVAL);
    /* RFC 7539 2.3.2: key 00..1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, block 1 */
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    struct cuzk_chacha c;
    cuzk_chacha_init_ietf(&c, key, nonce, 20);
    cuzk_chacha_seek(&c, 64);
    cuzk_chacha_bytes(&c, out, 64);
    test_bytes_to_hex(hex, out, 64);
    CHECK(!strcmp(hex, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                       "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"));
    /* a seek into the middle of a block equals reading up to it (Python's cryptography) */
    static const uint8_t synth_nonce[12] = "synth-porep";
    uint8_t all[132];
    cuzk_chacha_init_ietf(&c, key, synth_nonce, 20);
    cuzk_chacha_bytes(&c, all, sizeof all);
    cuzk_chacha_seek(&c, 100);
    cuzk_chacha_bytes(&c, out, 32);
    CHECK(!memcmp(out, all + 100, 32));
    test_bytes_to_hex(hex, out, 32);
    CHECK(!strcmp(hex, "afd2be92bf4fcc94270654ab1cd2cdde26255037170f538427cd2c65d058b25d"));
    /* the RNG framing reads whole words: u64 = two u32, low first */
    struct cuzk_chacha r1, r2;
    cuzk_chacha_init_rng(&r1, key, 8);
    cuzk_chacha_init_rng(&r2, key, 8);
    for (int i = 0; i < 40; i++) {
        uint64_t lo = cuzk_chacha_u32(&r2), hi = cuzk_chacha_u32(&r2);
        CHECK(cuzk_chacha_u64(&r1) == (lo | hi << 32));
    }
    printf("primitives: ok\n");
}

/* ---- SDR labels (kats.json sdr_last_label) --------------------------------------------- */

static void test_labels(void) {
    const json_t *cases = json_object_get(json_object_get(kats, "sdr_last_label"), "cases");
    size_t i;
    const json_t *c;
    cuzk_fr replica_id;
    uint8_t nine[32];
    memset(nine, 9, sizeof nine);
    CHECK(cuzk_fr_from_bytes_le(&replica_id, nine) == CUZK_OK);
    json_array_foreach(cases, i, c) {
        const uint64_t nodes = jint(json_object_get(c, "nodes"));
        const unsigned layers = 11;
        uint8_t porep_id[32];
        hex32(jstr(c, "porep_id"), porep_id);
        struct cuzk_graph g;
        CHECK(cuzk_graph_init(&g, nodes, porep_id, api_of(jstr(c, "api"))) == CUZK_OK);
        cuzk_fr *labels = test_xmalloc(nodes * layers * sizeof *labels);
        CHECK(cuzk_sdr_labels(&g, &replica_id, layers, labels) == CUZK_OK);
        char what[64];
        snprintf(what, sizeof what, "sdr_last_label[%zu]", i);
        check_fr(what, &labels[(layers - 1) * nodes + nodes - 1], jstr(c, "label"));
        free(labels);
    }
    printf("labels: %zu last-label KATs\n", json_array_size(cases));
}

/* ---- the graph (kats.json parent_cache_sha256) ------------------------------------------ */

static void porep_id_of(unsigned id, uint8_t out[32]) {
    memset(out, 0, 32);
    out[0] = (uint8_t)id;
}

static void test_graph(void) {
    const json_t *pc = json_object_get(kats, "parent_cache_sha256");
    const json_t *mapped = json_object_get(pc, "verified_mapping");
    const char *key;
    const json_t *want;
    size_t n_mapped = 0;
    /* each key names its graph: "<size><KiB|MiB> porep_id=<byte 0> api<major>.<minor>" */
    json_object_foreach((json_t *)mapped, key, want) {
        unsigned size, id, major, minor;
        char unit[4];
        uint8_t porep_id[32], d[32];
        struct cuzk_graph g;
        int ok = sscanf(key, "%u%3s porep_id=%u api%u.%u", &size, unit, &id, &major, &minor) == 5 &&
                 (!strcmp(unit, "KiB") || !strcmp(unit, "MiB")) && id < 256 && major == 1;
        CHECK(ok);
        if (!ok) continue;
        const uint64_t bytes = (uint64_t)size << (unit[0] == 'K' ? 10 : 20);
        porep_id_of(id, porep_id);
        CHECK(cuzk_graph_init(&g, bytes / 32, porep_id, minor ? CUZK_API_1_1 : CUZK_API_1_0) ==
              CUZK_OK);
        double t0 = test_now_ms();
        cuzk_graph_cache_digest(&g, d);
        printf("graph: %s digest in %.0f ms\n", key, test_now_ms() - t0);
        check_bytes(key, d, json_string_value(want));
        n_mapped++;
    }
    CHECK(n_mapped == 4);
    /* The 512 MiB, 32 GiB and 64 GiB digests (one per api version, not said which) hash
     * 2^24, 2^30 and 2^31 nodes' parents at about 23 us a node (12 us at 64 GiB, whose Feistel
     * domain needs no cycle walking): 6 minutes, 7 hours and 7 hours of one core here, so the
     * test leaves them out; CUZK_FC_REAL_SLOW=1 runs the 512 MiB pair (porep ids 2 and 7; the
     * two digests must be the pair's two members). */
    const char *slow = getenv("CUZK_FC_REAL_SLOW");
    if (slow && !strcmp(slow, "1")) {
        const json_t *pair = NULL, *v;
        json_object_foreach((json_t *)pc, key, v) {
            if (!strncmp(key, "unmapped_pairs", 14)) pair = json_object_get(v, "512MiB");
        }
        const char *a = json_string_value(json_array_get(pair, 0));
        const char *b = json_string_value(json_array_get(pair, 1));
        CHECK(a && b);
        int member[2] = {-1, -1};
        for (unsigned k = 0; k < 2 && a && b; k++) {
            uint8_t porep_id[32], d[32], wa[32], wb[32];
            struct cuzk_graph g;
            porep_id_of(k ? 7 : 2, porep_id);
            cuzk_graph_init(&g, (512ull << 20) / 32, porep_id, k ? CUZK_API_1_1 : CUZK_API_1_0);
            double t0 = test_now_ms();
            cuzk_graph_cache_digest(&g, d);
            hex32(a, wa);
            hex32(b, wb);
            member[k] = !memcmp(d, wa, 32) ? 0 : !memcmp(d, wb, 32) ? 1 : -1;
            CHECK(member[k] >= 0);
            printf("graph: 512MiB porep_id=%u digest in %.0f ms: %s\n", k ? 7 : 2,
                   test_now_ms() - t0, member[k] >= 0 ? "one of the pair" : "NOT in the pair");
        }
        CHECK(member[0] != member[1]);
    } else {
        printf("graph: the 512 MiB, 32 GiB and 64 GiB digests are left out (too slow; "
               "CUZK_FC_REAL_SLOW=1 runs 512 MiB)\n");
    }
    /* the api rules on the real 2 KiB graphs: v - 1 is the last DRG parent in 1.0, the first
     * after; no parent is the node itself; expander parents are a permutation (8 v + i maps
     * onto every node 8 times) */
    for (int api = 0; api < 2; api++) {
        uint8_t porep_id[32];
        struct cuzk_graph g;
        unsigned hits[64] = {0};
        porep_id_of(api ? 5 : 0, porep_id);
        cuzk_graph_init(&g, 64, porep_id, api ? CUZK_API_1_1 : CUZK_API_1_0);
        for (uint32_t v = 0; v < 64; v++) {
            uint32_t p[CUZK_GRAPH_PARENTS];
            cuzk_graph_parents(&g, v, p);
            if (v >= 2) CHECK(p[api ? 0 : 5] == v - 1);
            for (int q = 0; q < CUZK_GRAPH_DRG_PARENTS; q++) CHECK(p[q] < (v < 2 ? 1 : v));
            for (int q = CUZK_GRAPH_DRG_PARENTS; q < CUZK_GRAPH_PARENTS; q++) hits[p[q]]++;
        }
        for (int v = 0; v < 64; v++) CHECK(hits[v] == 8);
    }
    uint8_t zero[32] = {0};
    struct cuzk_graph g;
    CHECK(cuzk_graph_init(&g, 1, zero, CUZK_API_1_0) == CUZK_EINVAL);
    CHECK(cuzk_graph_init(&g, CUZK_GRAPH_MAX_NODES + 1, zero, CUZK_API_1_0) == CUZK_EINVAL);
    CHECK(cuzk_graph_init(&g, 64, zero, (enum cuzk_api)7) == CUZK_EINVAL);
}

/* ---- challenges ------------------------------------------------------------------------- */

static void test_challenges(void) {
    /* SnapDeals: the first 5 challenges of partition k */
    const json_t *snap = json_object_get(kats, "snap_challenges");
    cuzk_fr comm_r_new;
    fr_hex(jstr(snap, "comm_r_new"), &comm_r_new);
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(snap, "cases"), i, c) {
        const uint64_t nodes = jint(json_array_get(c, 0));
        const unsigned k = (unsigned)jint(json_array_get(c, 1));
        struct cuzk_fc_profile p;
        CHECK(cuzk_snap_profile_for(nodes, &p) == CUZK_OK);
        uint64_t got[86];
        CHECK(p.challenges <= 86 && k < (1u << p.partition_bits));
        cuzk_vanilla_snap_challenges(&p, &comm_r_new, k, got);
        for (unsigned j = 0; j < 5; j++) {
            char what[64];
            snprintf(what, sizeof what, "snap nodes=%llu k=%u challenge %u",
                     (unsigned long long)nodes, k, j);
            check_u64(what, got[j], jint(json_array_get(json_array_get(c, 2), j)));
        }
    }
    printf("challenges: %zu SnapDeals cases\n", json_array_size(json_object_get(snap, "cases")));
    struct cuzk_fc_profile p;
    CHECK(cuzk_snap_profile_for(48, &p) == CUZK_EINVAL);
    CHECK(cuzk_snap_profile_for(16, &p) == CUZK_EINVAL);

    /* synthetic PoRep: replica_id = Fr(55), comm_r = Fr(101), 21 synthetic challenges */
    const json_t *syn = json_object_get(kats, "synth_porep_challenges");
    const uint64_t nodes = jint(json_object_get(syn, "sector_nodes"));
    const uint64_t n_synth = jint(json_object_get(syn, "num_synth"));
    uint8_t replica_id[32] = {55}, comm_r[32] = {101}, rand[32];
    hex32(jstr(syn, "rand"), rand);
    const json_t *want_synth = json_object_get(syn, "synth"),
                 *want_k0 = json_object_get(syn, "porep_k0_10");
    CHECK(json_array_size(want_synth) == n_synth);
    uint64_t got[32];
    cuzk_porep_synth_challenges(replica_id, comm_r, nodes, 0, n_synth, got);
    for (i = 0; i < n_synth; i++) {
        char what[64];
        snprintf(what, sizeof what, "synthetic challenge %zu", i);
        check_u64(what, got[i], jint(json_array_get(want_synth, i)));
        uint64_t one; /* the i-th alone, by seeking (counting down as upstream's test does) */
        cuzk_porep_synth_challenges(replica_id, comm_r, nodes, n_synth - 1 - i, 1, &one);
        CHECK(one == jint(json_array_get(want_synth, n_synth - 1 - i)));
    }
    const unsigned n_k0 = (unsigned)json_array_size(want_k0);
    CHECK(n_k0 <= 32);
    cuzk_porep_synth_selected(replica_id, comm_r, rand, nodes, n_synth, n_k0, 0, got);
    for (i = 0; i < n_k0; i++) {
        char what[64];
        snprintf(what, sizeof what, "synthetic porep challenge %zu", i);
        check_u64(what, got[i], jint(json_array_get(want_k0, i)));
    }
    /* partition k of C challenges is challenges C k .. C k + C - 1 of one stream */
    uint64_t idx[10], idx2[5];
    cuzk_porep_synth_indexes(replica_id, rand, n_synth, 10, 0, idx);
    cuzk_porep_synth_indexes(replica_id, rand, n_synth, 5, 1, idx2);
    CHECK(!memcmp(idx + 5, idx2, sizeof idx2));
    CHECK(cuzk_porep_synth_count(1024) == 1024 && cuzk_porep_synth_count(1ull << 30) == (1u << 18));
    printf("challenges: %llu synthetic + %u porep synthetic KATs\n", (unsigned long long)n_synth,
           n_k0);

    /* interactive PoRep: partition k = the sha256 stream from C k on; never node 0 */
    uint64_t a[20], b[10];
    cuzk_porep_challenges(replica_id, rand, 2, 20, 0, a); /* nodes 2: only node 1 */
    for (int j = 0; j < 20; j++) CHECK(a[j] == 1);
    cuzk_porep_challenges(replica_id, rand, 64, 20, 0, a);
    cuzk_porep_challenges(replica_id, rand, 64, 10, 1, b);
    CHECK(!memcmp(a + 10, b, sizeof b));
    for (int j = 0; j < 20; j++) CHECK(a[j] >= 1 && a[j] < 64);

    /* non-interactive PoRep: known answers from an independent SHA-256 (Python's hashlib) over
     * the rule of rust-fil-proofs 87348a7 (storage-proofs-porep challenges.rs, NiChallenges):
     * the 13 partitions of 2 challenges of a 2 KiB sector, and the last of the 126 partitions of
     * 18 challenges of a 32 GiB one, for replica_id = (55, 0, ...) and comm_r = (101, 0, ...) */
    static const uint64_t ni_2k[26] = {20, 5,  21, 12, 58, 17, 42, 32, 6,  41, 54, 36, 32,
                                       42, 30, 54, 36, 15, 28, 56, 11, 45, 7,  33, 29, 52};
    static const uint64_t ni_32g_k125[18] = {759801290, 438709296, 366266081, 313397238, 992710462,
                                             96872036,  770078055, 122032551, 754531400, 1044536889,
                                             53061304,  438753391, 474712634, 46261832,  595761175,
                                             257237933, 112836796, 101599422};
    uint64_t ni[18];
    for (unsigned k = 0; k < 13; k++) {
        cuzk_porep_ni_challenges(replica_id, comm_r, 64, 2, k, ni);
        CHECK(ni[0] == ni_2k[2 * k] && ni[1] == ni_2k[2 * k + 1]);
    }
    cuzk_porep_ni_challenges(replica_id, comm_r, 1ull << 30, 18, 125, ni);
    CHECK(!memcmp(ni, ni_32g_k125, sizeof ni));
    cuzk_porep_challenges(replica_id, comm_r, 64, 2, 0, a); /* not the interactive rule */
    CHECK(a[0] != ni_2k[0] || a[1] != ni_2k[1]);

    /* WindowPoSt: the curio sector's 10 leaf challenges */
    const json_t *wp = json_object_get(kats, "window_post_leaf_challenges");
    uint8_t randomness[32];
    hex32(jstr(wp, "randomness"), randomness);
    const uint64_t sector_id = jint(json_object_get(wp, "sector_id"));
    const uint64_t wnodes = jint(json_object_get(wp, "sector_nodes"));
    json_array_foreach(json_object_get(wp, "challenges"), i, c) {
        char what[64];
        snprintf(what, sizeof what, "WindowPoSt leaf challenge %zu", i);
        uint64_t ci = cuzk_post_challenge_index(CUZK_API_1_2, 0, 10, i);
        check_u64(what, cuzk_post_leaf_challenge(randomness, sector_id, ci, wnodes), jint(c));
        /* sector 0 of a partition has the same challenges in every api version */
        CHECK(cuzk_post_challenge_index(CUZK_API_1_1, 0, 10, i) == ci);
    }
    CHECK(cuzk_post_challenge_index(CUZK_API_1_1, 3, 10, 4) == 34);
    CHECK(cuzk_post_sector_challenge(randomness, 0, 1, replica_id) == 0);
    printf("challenges: %zu WindowPoSt leaf challenges\n",
           json_array_size(json_object_get(wp, "challenges")));
}

/* ---- Poseidon and comm_d known answers ---------------------------------------------------- */

static void test_poseidon_comm_d(void) {
    const json_t *ps = json_object_get(kats, "poseidon8_curio");
    cuzk_fr in[8], out;
    for (int i = 0; i < 8; i++)
        fr_hex(json_string_value(json_array_get(json_object_get(ps, "inputs"), i)), &in[i]);
    cuzk_poseidon_hash_merkle(8, in, &out);
    check_fr("poseidon8_curio", &out, jstr(ps, "output"));

    const json_t *cd = json_object_get(kats, "comm_d_empty");
    cuzk_fr zero[64];
    for (int i = 0; i < 64; i++) cuzk_fr_set_zero(&zero[i]);
    CHECK(cuzk_sdr_comm_d(zero, 64, &out) == CUZK_OK);
    check_fr("comm_d_empty 2KiB", &out, jstr(cd, "2KiB"));
    CHECK(cuzk_sdr_comm_d(zero, 4, &out) == CUZK_OK);
    check_fr("comm_d_empty 128B", &out, jstr(cd, "128B"));
    CHECK(cuzk_sdr_comm_d(zero, 48, &out) == CUZK_EINVAL);
    printf("poseidon + comm_d: 3 KATs\n");
}

/* ---- tree shapes: the compound trees (8-2-0, 8-8-0, 8-8-2) against plain 8-ary trees -------
 * (the real 2 KiB sectors are 8-0-0; curio's 32 GiB paths check 8-8-0 as ten 8-ary levels) */

static void test_shapes(void) {
    static const uint64_t sizes[] = {4096, 16384, 32768};
    cuzk_fr leaves[1024], r, a, b, two[2];
    for (int i = 0; i < 1024; i++) cuzk_fr_random(&leaves[i], &test_rng);
    for (int k = 0; k < 3; k++) {
        struct cuzk_sdr_shape sh;
        CHECK(cuzk_sdr_shape_get(sizes[k], &sh) == CUZK_OK && sh.layers == 2);
        CHECK(cuzk_sdr_tree_root(&sh, leaves, &r) == CUZK_OK);
        const uint64_t half = sh.nodes / 2;
        struct cuzk_sdr_shape plain = {0, sh.nodes, 2, 0, 0}, halfp = {0, half, 2, 0, 0};
        if (sh.top_arity == 0 && sh.sub_arity == 8) { /* 8-8-0 is one 8-ary tree */
            CHECK(cuzk_sdr_tree_root(&plain, leaves, &a) == CUZK_OK);
            CHECK(cuzk_fr_eq(&r, &a));
            continue;
        }
        /* 8-2-0: Poseidon-2 over two 8-ary halves; 8-8-2: over two 8-8-0 (8-ary) halves */
        CHECK(cuzk_sdr_tree_root(&halfp, leaves, &a) == CUZK_OK);
        CHECK(cuzk_sdr_tree_root(&halfp, leaves + half, &b) == CUZK_OK);
        two[0] = a, two[1] = b;
        cuzk_poseidon_hash_merkle(2, two, &a);
        CHECK(cuzk_fr_eq(&r, &a));
    }
    struct cuzk_sdr_shape sh, bad = {0, 96, 2, 0, 0};
    CHECK(cuzk_sdr_tree_root(&bad, leaves, &r) == CUZK_EINVAL);
    CHECK(cuzk_sdr_shape_get(3000, &sh) == CUZK_EUNSUPPORTED);
    CHECK(cuzk_sdr_shape_get(32ull << 30, &sh) == CUZK_OK && sh.layers == 11 && sh.sub_arity == 8 &&
          sh.top_arity == 0);
    printf("shapes: 8-2-0, 8-8-0, 8-8-2 agree with plain trees\n");
}

/* ---- the four sealed 2 KiB sectors ------------------------------------------------------ */

/* The digest of a Filecoin commitment CID: base32 (lower case, no padding, after the 'b'
 * multibase prefix), then version 1, codec, multihash code, length 32, digest. */
static int cid_digest(const char *cid, uint8_t out[32]) {
    uint8_t b[64];
    size_t n = 0;
    unsigned acc = 0, bits = 0;
    if (cid[0] != 'b') return -1;
    for (const char *p = cid + 1; *p; p++) {
        const char *alpha = "abcdefghijklmnopqrstuvwxyz234567", *q = strchr(alpha, *p);
        if (!q || n >= sizeof b) return -1;
        acc = (acc << 5 | (unsigned)(q - alpha)) & 0xfff;
        bits += 5;
        if (bits >= 8) {
            b[n++] = (uint8_t)(acc >> (bits - 8));
            bits -= 8;
        }
    }
    if (n < 34 || b[0] != 1 || b[n - 33] != 32) return -1;
    memcpy(out, b + n - 32, 32);
    return 0;
}

/* The pre-seal inputs of a sector of sectors-2k.json. */
static void sector_of(const json_t *s, struct cuzk_sdr_sector *sec) {
    memset(sec, 0, sizeof *sec);
    sec->sector_size = jint(json_object_get(s, "sector_size"));
    sec->api = api_of(jstr(s, "api"));
    sec->sector_id = jint(json_object_get(s, "sector_id"));
    hex32(jstr(s, "porep_id"), sec->porep_id);
    hex32(jstr(s, "prover_id"), sec->prover_id);
    hex32(jstr(s, "ticket"), sec->ticket);
    hex32(jstr(json_object_get(s, "expected"), "comm_d"), sec->comm_d);
}

static void test_sectors(void) {
    json_t *sectors = load_json("sectors-2k.json");
    size_t i;
    json_t *s;
    json_array_foreach(sectors, i, s) {
        const char *name = jstr(s, "name");
        const json_t *e = json_object_get(s, "expected");
        struct cuzk_sdr_sector sec;
        sector_of(s, &sec);
        struct cuzk_sdr_shape sh;
        CHECK(cuzk_sdr_shape_get(sec.sector_size, &sh) == CUZK_OK);
        CHECK(sh.layers == jint(json_object_get(s, "layers")));
        const uint64_t n = sh.nodes;
        size_t len, plen;
        const json_t *files = json_object_get(s, "realdata_files");
        uint8_t *replica = load(jstr(files, "replica"), &len);
        uint8_t *p_aux = load(jstr(files, "p_aux"), &plen);
        CHECK(len == sec.sector_size && plen == 64);
        char what[160];
#define WHAT(x) (snprintf(what, sizeof what, "%s %s", name, x), what)

        /* step by step: replica id, graph, labels, data = replica - last labels */
        cuzk_fr rid;
        cuzk_sdr_replica_id(sec.prover_id, sec.sector_id, sec.ticket, sec.comm_d, sec.porep_id,
                            &rid);
        check_fr(WHAT("replica_id"), &rid, jstr(e, "replica_id"));
        struct cuzk_graph g;
        CHECK(cuzk_graph_init(&g, n, sec.porep_id, sec.api) == CUZK_OK);
        uint32_t par[CUZK_GRAPH_PARENTS];
        cuzk_graph_parents(&g, 63, par);
        const json_t *wp = json_object_get(e, "parents_node63");
        CHECK(json_array_size(wp) == CUZK_GRAPH_PARENTS);
        for (int q = 0; q < CUZK_GRAPH_PARENTS; q++) {
            char pw[32];
            snprintf(pw, sizeof pw, "parent %d of node 63", q);
            check_u64(WHAT(pw), par[q], jint(json_array_get(wp, (size_t)q)));
        }
        cuzk_fr *labels = test_xmalloc(n * sh.layers * sizeof *labels);
        cuzk_fr *rep = test_xmalloc(n * sizeof *rep), *dat = test_xmalloc(n * sizeof *dat);
        CHECK(cuzk_sdr_labels(&g, &rid, sh.layers, labels) == CUZK_OK);
        check_fr(WHAT("label_l1_node63"), &labels[63], jstr(e, "label_l1_node63"));
        check_fr(WHAT("label_l2_node63"), &labels[n + 63], jstr(e, "label_l2_node63"));
        for (uint64_t v = 0; v < n; v++) {
            CHECK(cuzk_fr_from_bytes_le(&rep[v], replica + 32 * v) == CUZK_OK);
            cuzk_fr_sub(&dat[v], &rep[v], &labels[(sh.layers - 1) * n + v]);
        }
        check_fr(WHAT("data_node0"), &dat[0], jstr(e, "data_node0"));
        cuzk_fr comm_d, comm_c, comm_r_last, comm_r;
        CHECK(cuzk_sdr_comm_d(dat, n, &comm_d) == CUZK_OK);
        check_fr(WHAT("comm_d of replica - labels"), &comm_d, jstr(e, "comm_d"));
        CHECK(cuzk_sdr_comm_c(&sh, labels, &comm_c) == CUZK_OK);
        check_fr(WHAT("comm_c"), &comm_c, jstr(e, "comm_c"));
        CHECK(cuzk_sdr_tree_root(&sh, rep, &comm_r_last) == CUZK_OK);
        check_fr(WHAT("comm_r_last"), &comm_r_last, jstr(e, "comm_r_last"));
        cuzk_vanilla_comm_r(&comm_c, &comm_r_last, &comm_r);
        check_fr(WHAT("comm_r"), &comm_r, jstr(e, "comm_r"));
        /* the sealer's own files: p_aux = comm_c || comm_r_last, the CIDs' digests */
        uint8_t b[32], want_c[32], want_rl[32];
        cuzk_fr_to_bytes_le(want_c, &comm_c);
        cuzk_fr_to_bytes_le(want_rl, &comm_r_last);
        CHECK(!memcmp(p_aux, want_c, 32) && !memcmp(p_aux + 32, want_rl, 32));
        CHECK(cid_digest(jstr(s, "comm_d_cid"), b) == 0);
        check_bytes(WHAT("comm_d CID"), b, jstr(e, "comm_d"));
        CHECK(cid_digest(jstr(s, "comm_r_cid"), b) == 0);
        check_bytes(WHAT("comm_r CID"), b, jstr(e, "comm_r"));

        /* all in one call, as the operator tool runs it, from the replica and from the data */
        struct cuzk_sdr_commit cm;
        char err[256];
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) == CUZK_OK);
        check_fr(WHAT("commit replica_id"), &cm.replica_id, jstr(e, "replica_id"));
        check_fr(WHAT("commit comm_c"), &cm.comm_c, jstr(e, "comm_c"));
        check_fr(WHAT("commit comm_r_last"), &cm.comm_r_last, jstr(e, "comm_r_last"));
        check_fr(WHAT("commit comm_r"), &cm.comm_r, jstr(e, "comm_r"));
        check_fr(WHAT("commit comm_d_of_data"), &cm.comm_d_of_data, jstr(e, "comm_d"));
        uint8_t *data = test_xmalloc(len);
        for (uint64_t v = 0; v < n; v++) cuzk_fr_to_bytes_le(data + 32 * v, &dat[v]);
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, data, &cm, err, sizeof err) == CUZK_OK);
        check_fr(WHAT("commit comm_d of --data"), &cm.comm_d_of_data, jstr(e, "comm_d"));

        /* the checks can fail: another comm_d gives another replica id, labels and data */
        sec.comm_d[0] ^= 1;
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) == CUZK_OK);
        cuzk_fr_to_bytes_le(b, &cm.comm_d_of_data);
        CHECK(memcmp(b, sec.comm_d, 32) != 0);
        cuzk_fr_to_bytes_le(b, &cm.comm_c);
        CHECK(memcmp(b, want_c, 32) != 0);
        sec.comm_d[0] ^= 1;
        replica[100] ^= 1; /* one replica byte: tree R and the data change */
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) == CUZK_OK);
        cuzk_fr_to_bytes_le(b, &cm.comm_r_last);
        CHECK(memcmp(b, want_rl, 32) != 0);
        replica[100] ^= 1;
        /* refused inputs */
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len - 32, NULL, &cm, err, sizeof err) ==
              CUZK_EINVAL);
        memset(replica + 32 * 5, 0xff, 32);
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) ==
              CUZK_ENONCANON);
        CHECK(strstr(err, "node 5") != NULL);
        sec.sector_size = 4096 + 32;
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) ==
              CUZK_EUNSUPPORTED);
        sec.sector_size = 512ull << 20;
        CHECK(cuzk_sdr_commit_replica(&sec, replica, len, NULL, &cm, err, sizeof err) ==
              CUZK_EUNSUPPORTED);
#undef WHAT
        free(data);
        free(labels);
        free(rep);
        free(dat);
        free(replica);
        free(p_aux);
        printf("sectors: %s (api %s): its 8 expected values, 14 parents, p_aux and CIDs\n", name,
               jstr(s, "api"));
    }
    json_decref(sectors);
}

/* ---- curio's 32 GiB WindowPoSt vanilla proof --------------------------------------------- */

struct reader {
    const uint8_t *p;
    size_t n, off;
    int bad;
};

static uint64_t rd_u(struct reader *r, int bytes) {
    uint64_t x = 0;
    if (r->off + (size_t)bytes > r->n) {
        r->bad = 1;
        return 0;
    }
    for (int i = bytes - 1; i >= 0; i--) x = x << 8 | r->p[r->off + (size_t)i];
    r->off += (size_t)bytes;
    return x;
}

static void rd_fr(struct reader *r, cuzk_fr *out) {
    if (r->off + 32 > r->n || cuzk_fr_from_bytes_le(out, r->p + r->off)) {
        r->bad = 1;
        cuzk_fr_set_zero(out);
    }
    r->off += 32;
}

/* Our WindowPoSt circuit fed with the real sector: S copies of it (upstream pads a short
 * partition by repeating its last sector, so the real 2,349-sector partition of this one
 * sector is S = 2,349 copies; its shape, 53,344 S + 1 rows, is checked against the real counts
 * in test_circuits_filecoin) give a satisfied system whose public inputs are the real values:
 * per copy comm_r, then the 10 challenged leaf indices. A changed leaf breaks it. */
static void post_circuit(const cuzk_fr *comm_r, const cuzk_fr *comm_c, const cuzk_fr *comm_r_last,
                         const uint64_t index[10], const cuzk_fr leaf[10], const cuzk_fr *sibs) {
    for (unsigned S = 1; S <= 2; S++) {
        for (int corrupt = 0; corrupt < (S == 1 ? 2 : 1); corrupt++) {
            cuzk_fr leaves[10];
            memcpy(leaves, leaf, sizeof leaves);
            if (corrupt) cuzk_fr_add(&leaves[3], &leaves[3], &leaves[3]);
            struct cuzk_fc_post_sector sec[2];
            for (unsigned i = 0; i < S; i++)
                sec[i] = (struct cuzk_fc_post_sector){*comm_r, *comm_c, *comm_r_last,
                                                      index,   leaves,  sibs};
            struct cuzk_fc_post_vanilla v = {sec};
            char name[32];
            snprintf(name, sizeof name, "wpost-s%u", S);
            struct cuzk_fc_profile p;
            CHECK(cuzk_fc_profile_parse(name, &p, NULL, 0) == CUZK_OK);
            struct cuzk_builder b;
            CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
            CHECK(cuzk_fc_synthesize(&b, &p, &v) == CUZK_OK);
            struct cuzk_cs cs;
            cuzk_fr *w = NULL;
            size_t n = 0, bad = 0;
            CHECK(cuzk_builder_finish(&b, &cs, &w, &n) == CUZK_OK);
            const int sat = cuzk_cs_is_satisfied(NULL, &cs, w, &bad);
            if (!corrupt) {
                if (sat != 1) fprintf(stderr, "  %s: first unsatisfied row %zu\n", name, bad);
                CHECK(sat == 1);
                /* the public inputs: 1, then per copy comm_r and the 10 leaf indices */
                CHECK(cs.n_public == 11 * S && n > cs.n_public);
                int same = n > 11 * S;
                for (unsigned i = 0; same && i < S; i++) {
                    same &= cuzk_fr_eq(&w[1 + 11 * i], comm_r);
                    for (unsigned c = 0; c < 10; c++) {
                        cuzk_fr x;
                        cuzk_fr_from_u64(&x, index[c]);
                        same &= cuzk_fr_eq(&w[2 + 11 * i + c], &x);
                    }
                }
                CHECK(same);
                printf("post circuit %s with the real sector: %zu rows satisfied, public inputs "
                       "= the real comm_r and challenges\n",
                       name, cs.n_rows);
            } else {
                CHECK(sat == 0); /* a leaf that is not in the tree */
            }
            cuzk_cs_free(&cs);
            free(w);
            cuzk_builder_free(&b);
        }
    }
}

/* The bincode FallbackPoStSectorProof (see the data README): every inclusion proof's index is
 * the leaf challenge, its path leads to comm_r_last, and comm_r = H(comm_c, comm_r_last) is the
 * sealed CID's digest. */
static void test_post_proof(void) {
    size_t len;
    uint8_t *buf = load("curio-post-32g.vproof", &len);
    json_t *pub = load_json("curio-postpub.json");
    const json_t *wp = json_object_get(kats, "window_post_leaf_challenges");
    struct reader r = {buf, len, 0, 0};
    cuzk_fr comm_r, comm_c, comm_r_last, root[10], leaf[10], sibs[10][10 * 7];
    uint64_t index[10];
    const uint64_t sector_id = rd_u(&r, 8);
    rd_fr(&r, &comm_r);
    CHECK(rd_u(&r, 8) == 1); /* the vector of sector proofs: one */
    const uint64_t n_proofs = rd_u(&r, 8);
    CHECK(n_proofs == 10);
    for (unsigned c = 0; c < 10 && c < n_proofs && !r.bad; c++) {
        CHECK(rd_u(&r, 4) == 1); /* the Sub variant: base path, then the sub-tree level */
        unsigned level = 0;
        index[c] = 0;
        for (int part = 0; part < 2; part++) {
            const uint64_t levels = rd_u(&r, 8);
            CHECK(levels == (part ? 1u : 9u));
            for (uint64_t l = 0; l < levels && level < 10 && !r.bad; l++, level++) {
                CHECK(rd_u(&r, 8) == 7);
                for (int k = 0; k < 7; k++) rd_fr(&r, &sibs[c][level * 7 + k]);
                index[c] |= rd_u(&r, 8) << (3 * level);
            }
        }
        rd_fr(&r, &root[c]);
        rd_fr(&r, &leaf[c]);
    }
    rd_fr(&r, &comm_c);
    rd_fr(&r, &comm_r_last);
    CHECK(!r.bad && r.off == len);
    CHECK(sector_id == jint(json_object_get(wp, "sector_id")));
    /* 32 GiB is 8-8-0: nine 8-ary base levels and one 8-ary level over the 8 base trees, ten
     * 8-ary levels in all */
    uint8_t rand[32];
    hex32(jstr(wp, "randomness"), rand);
    for (unsigned c = 0; c < 10 && !r.bad; c++) {
        char what[64];
        snprintf(what, sizeof what, "post proof %u index", c);
        check_u64(what, index[c], jint(json_array_get(json_object_get(wp, "challenges"), c)));
        check_u64(what, index[c], cuzk_post_leaf_challenge(rand, sector_id, c, 1ull << 30));
        cuzk_fr got;
        const struct cuzk_merkle_shape sh = {CUZK_MERKLE_POSEIDON, 8, 10, 0, 0};
        cuzk_merkle_root_native(&sh, &leaf[c], sibs[c], index[c], &got);
        CHECK(cuzk_fr_eq(&got, &root[c]) && cuzk_fr_eq(&root[c], &comm_r_last));
    }
    cuzk_fr h;
    cuzk_vanilla_comm_r(&comm_c, &comm_r_last, &h);
    CHECK(cuzk_fr_eq(&h, &comm_r));
    const json_t *sec0 = json_array_get(json_object_get(pub, "ChallengedSectors"), 0);
    const char *cid = json_string_value(json_object_get(json_object_get(sec0, "SealedCID"), "/"));
    uint8_t d[32], cr[32];
    CHECK(cid && cid_digest(cid, d) == 0);
    cuzk_fr_to_bytes_le(cr, &comm_r);
    CHECK(!memcmp(d, cr, 32));
    CHECK(jint(json_object_get(sec0, "SectorNumber")) == sector_id);
    printf("post proof: 10 challenged leaves, paths to comm_r_last, comm_r = the sealed CID\n");
    if (!r.bad) post_circuit(&comm_r, &comm_c, &comm_r_last, index, leaf, &sibs[0][0]);
    json_decref(pub);
    free(buf);
}

/* ---- registered proof numbers ------------------------------------------------------------ */

static void expect_reg(enum cuzk_fc_kind kind, uint64_t number, const char *name,
                       const char *profile, enum cuzk_api api, unsigned partitions) {
    struct cuzk_fc_registered r;
    char err[256] = "";
    const int rc = cuzk_fc_registered_get(kind, number, &r, err, sizeof err);
    const int ok = rc == CUZK_OK && !strcmp(r.name, name) && !strcmp(r.profile.name, profile) &&
                   r.api == api && r.partitions == partitions;
    if (!ok)
        fprintf(stderr, "  registered %d/%llu: rc %d %s %s api %d parts %u (%s); want %s %s\n",
                (int)kind, (unsigned long long)number, rc, r.name, r.profile.name, (int)r.api,
                r.partitions, err, name, profile);
    CHECK(ok);
}

static void expect_reg_fails(enum cuzk_fc_kind kind, uint64_t number, int code, const char *says) {
    struct cuzk_fc_registered r;
    char err[256] = "";
    const int rc = cuzk_fc_registered_get(kind, number, &r, err, sizeof err);
    if (rc != code || !strstr(err, says))
        fprintf(stderr, "  registered %d/%llu: rc %d \"%s\"; want %d with \"%s\"\n", (int)kind,
                (unsigned long long)number, rc, err, code, says);
    CHECK(rc == code && strstr(err, says));
}

static void test_registered(void) {
    expect_reg(CUZK_FC_POREP, 0, "StackedDrg2KiBV1", "porep-c2-l2-d6-r2", CUZK_API_1_0, 1);
    expect_reg(CUZK_FC_POREP, 3, "StackedDrg32GiBV1", "porep-c18", CUZK_API_1_0, 10);
    expect_reg(CUZK_FC_POREP, 6, "StackedDrg8MiBV1_1", "porep-c2-l2-d18-r6", CUZK_API_1_1, 1);
    expect_reg(CUZK_FC_POREP, 8, "StackedDrg32GiBV1_1", "porep-c18", CUZK_API_1_1, 10);
    expect_reg(CUZK_FC_POREP, 12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", "porep-c2-l2-d24-r8",
               CUZK_API_1_2, 1);
    expect_reg(CUZK_FC_SNAP, 3, "StackedDrg32GiBV1", "snap-c86", CUZK_API_1_2, 16);
    expect_reg(CUZK_FC_WINNING, 0, "StackedDrgWinning2KiBV1", "winning-s66-r2", CUZK_API_1_0, 1);
    expect_reg(CUZK_FC_WINNING, 3, "StackedDrgWinning32GiBV1", "winning-s66", CUZK_API_1_0, 1);
    expect_reg(CUZK_FC_WPOST, 5, "StackedDrgWindow2KiBV1", "wpost-s2-r2", CUZK_API_1_0, 1);
    expect_reg(CUZK_FC_WPOST, 8, "StackedDrgWindow32GiBV1", "wpost-s2349", CUZK_API_1_0, 1);
    expect_reg(CUZK_FC_WPOST, 10, "StackedDrgWindow2KiBV1_1", "wpost-s2-r2", CUZK_API_1_2, 1);
    expect_reg(CUZK_FC_WPOST, 12, "StackedDrgWindow512MiBV1_1", "wpost-s2-r8", CUZK_API_1_2, 1);
    expect_reg(CUZK_FC_WPOST, 13, "StackedDrgWindow32GiBV1_1", "wpost-s2349", CUZK_API_1_2, 1);
    /* real proofs without a circuit here, and numbers of another kind */
    expect_reg_fails(CUZK_FC_WPOST, 14, CUZK_EUNSUPPORTED, "64 GiB");
    expect_reg_fails(CUZK_FC_POREP, 4, CUZK_EUNSUPPORTED, "StackedDrg64GiBV1");
    /* non-interactive PoRep: the interactive circuit in 13 or 126 partitions */
    expect_reg(CUZK_FC_POREP, 15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
               "porep-c2-l2-d6-r2", CUZK_API_1_2, 13);
    expect_reg(CUZK_FC_POREP, 17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
               "porep-c2-l2-d24-r8", CUZK_API_1_2, 13);
    expect_reg(CUZK_FC_POREP, 18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "porep-c18",
               CUZK_API_1_2, 126);
    expect_reg_fails(CUZK_FC_POREP, 19, CUZK_EUNSUPPORTED, "64 GiB");
    expect_reg_fails(CUZK_FC_WPOST, 3, CUZK_EINVAL, "RegisteredPoStProof 5..14");
    expect_reg_fails(CUZK_FC_WINNING, 13, CUZK_EINVAL, "WinningPoSt");
    expect_reg_fails(CUZK_FC_SNAP, 5, CUZK_EINVAL, "RegisteredUpdateProof");
    expect_reg_fails(CUZK_FC_POREP, UINT64_MAX, CUZK_EINVAL, "not a PoRep proof");
    struct cuzk_fc_registered r;
    char err[256];
    CHECK(cuzk_fc_registered_for_size(CUZK_FC_WPOST, 2048, &r, err, sizeof err) == CUZK_OK &&
          r.number == 10);
    CHECK(cuzk_fc_registered_for_size(CUZK_FC_POREP, 32ull << 30, &r, err, sizeof err) == CUZK_OK &&
          r.number == 8);
    CHECK(cuzk_fc_registered_for_size(CUZK_FC_WINNING, 1000, &r, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "sector_size 1000"));
    CHECK(!strcmp(cuzk_fc_size_name(512ull << 20), "512MiB") && !cuzk_fc_size_name(4096));
    struct cuzk_fc_profile prof;
    CHECK(cuzk_fc_profile_parse("wpost-s2-r2", &prof, err, sizeof err) == CUZK_OK &&
          cuzk_fc_profile_is_sector(&prof));
    CHECK(cuzk_fc_profile_parse("porep-c9", &prof, err, sizeof err) == CUZK_OK &&
          !cuzk_fc_profile_is_sector(&prof));
}

/* ---- PoSt entries (filecoin/post_proof.h) ------------------------------------------------ */

static int reg_of(enum cuzk_fc_kind kind, uint64_t number, struct cuzk_fc_registered *r) {
    char err[256];
    const int rc = cuzk_fc_registered_get(kind, number, r, err, sizeof err);
    if (rc) fprintf(stderr, "  %s\n", err);
    return rc;
}

/* The curio file through the reader, the writer and the conversion to a partition. */
static void test_post_entries_curio(void) {
    size_t len;
    uint8_t *buf = load("curio-post-32g.vproof", &len);
    json_t *pub = load_json("curio-postpub.json");
    uint8_t rand[32];
    hex32(jstr(json_object_get(kats, "window_post_leaf_challenges"), "randomness"), rand);
    struct cuzk_post_entries pe;
    char err[320];
    CHECK(cuzk_post_entries_parse(buf, len, 10, 0, 2349, &pe, err, sizeof err) == CUZK_OK);
    CHECK(pe.n == 1 && pe.levels == 10 && pe.sub == 1 && pe.e[0].n_challenges == 10 &&
          pe.e[0].sector_id == 1);
    uint8_t *again = NULL;
    size_t again_len = 0;
    CHECK(cuzk_post_entries_write(&pe, 0, pe.n, &again, &again_len) == CUZK_OK);
    CHECK(again_len == len && again && !memcmp(again, buf, len)); /* byte for byte */
    free(again);

    /* StackedDrgWindow32GiBV1_1 (api 1.2): the real partition, padded to 2,349 sectors */
    struct cuzk_fc_registered r;
    CHECK(reg_of(CUZK_FC_WPOST, 13, &r) == CUZK_OK);
    struct cuzk_vanilla v;
    CHECK(cuzk_post_vanilla_of_entries(&pe, &r, rand, 0, &v, err, sizeof err) == CUZK_OK);
    CHECK(v.n_parts == 1 && !strcmp(v.profile.name, "wpost-s2349"));
    if (v.n_parts == 1) {
        const struct cuzk_fc_post_sector *s = v.parts[0].v.post.sectors;
        CHECK(cuzk_fr_eq(&s[2348].comm_r, &pe.e[0].comm_r) &&
              s[2348].indices[9] == pe.e[0].indices[9]);
        CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) == CUZK_OK);
        cuzk_fr pubs[11];
        size_t n = 0;
        CHECK(cuzk_vanilla_public_inputs(&v, 0, pubs, 11, &n) == CUZK_ERANGE); /* 2349 x 11 */
    }
    cuzk_vanilla_free(&v);
    /* api 1.0 (StackedDrgWindow32GiBV1): partition 0's first sector has the same challenges;
     * as partition 1 its challenge indices move and the proof no longer matches */
    CHECK(reg_of(CUZK_FC_WPOST, 8, &r) == CUZK_OK);
    CHECK(cuzk_post_vanilla_of_entries(&pe, &r, rand, 0, &v, err, sizeof err) == CUZK_OK);
    cuzk_vanilla_free(&v);
    CHECK(cuzk_post_vanilla_of_entries(&pe, &r, rand, 1, &v, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "randomness: entry 0 (sector 1), inclusion proof 0") && v.n_parts == 0);
    /* other randomness */
    CHECK(reg_of(CUZK_FC_WPOST, 13, &r) == CUZK_OK);
    uint8_t other[32];
    memcpy(other, rand, 32);
    other[0] ^= 1;
    CHECK(cuzk_post_vanilla_of_entries(&pe, &r, other, 0, &v, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "the randomness challenges leaf"));
    /* a WinningPoSt proof wants 66 inclusion proofs; a 2 KiB one a tree of 2 levels */
    CHECK(reg_of(CUZK_FC_WINNING, 3, &r) == CUZK_OK);
    CHECK(cuzk_post_vanilla_of_entries(&pe, &r, rand, 0, &v, err, sizeof err) == CUZK_EINVAL &&
          strstr(err, "10 inclusion proofs") && strstr(err, "66"));
    cuzk_post_entries_free(&pe);
    CHECK(cuzk_post_entries_parse(buf, len, 2, 0, 2, &pe, err, sizeof err) != CUZK_OK ||
          (cuzk_post_entries_free(&pe), 0));
    CHECK(strstr(err, "inclusion proof 0") != NULL);
    CHECK(reg_of(CUZK_FC_WPOST, 13, &r) == CUZK_OK);

    /* every truncation is an error naming where, never a crash; so is every change of a
     * count, variant or index byte (the values change too: those parse, or fail canonicity) */
    size_t bad = 0;
    for (size_t cut = 0; cut < len; cut++) {
        int rc = cuzk_post_entries_parse(buf, cut, 10, 0, 2349, &pe, err, sizeof err);
        bad += rc == CUZK_OK;
        if (!rc)
            cuzk_post_entries_free(&pe);
        else
            bad += strstr(err, "vanilla_proofs") == NULL;
    }
    CHECK(bad == 0);
    uint64_t st = 0x9e3779b97f4a7c15ull;
    for (int m = 0; m < 3000; m++) {
        uint8_t *mut = test_xmalloc(len);
        memcpy(mut, buf, len);
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        mut[st % len] ^= (uint8_t)(1u << (st >> 32) % 8);
        if (cuzk_post_entries_parse(mut, len, 10, 0, 2349, &pe, err, sizeof err) == CUZK_OK) {
            /* a partition is 2,349 sectors (53 MB): convert one mutation in 100 */
            if (m % 100 == 0 &&
                cuzk_post_vanilla_of_entries(&pe, &r, rand, 0, &v, err, sizeof err) == CUZK_OK)
                cuzk_vanilla_free(&v);
            cuzk_post_entries_free(&pe);
        }
        free(mut);
    }
    json_decref(pub);
    free(buf);
    printf("post entries: curio's file read and written back byte for byte, its partition "
           "checked; challenges, truncations and mutations refused\n");
}

/* A PoSt partition of profile p is a satisfied circuit whose public inputs are its vanilla
 * values' (the comm_r of each sector, its challenges). */
static void post_partition_satisfied(const struct cuzk_vanilla *v) {
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
    CHECK(cuzk_fc_synthesize(&b, &v->profile, cuzk_vanilla_values(v, 0)) == CUZK_OK);
    struct cuzk_cs cs;
    cuzk_fr *w = NULL;
    size_t n = 0, bad = 0;
    CHECK(cuzk_builder_finish(&b, &cs, &w, &n) == CUZK_OK);
    CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, &bad) == 1);
    const size_t np = cuzk_vanilla_public_count(&v->profile);
    cuzk_fr *pubs = test_xmalloc(np * sizeof *pubs);
    size_t got = 0;
    CHECK(cuzk_vanilla_public_inputs(v, 0, pubs, np, &got) == CUZK_OK && got == np);
    CHECK(cs.n_public == np && n > np);
    int same = n > np;
    for (size_t i = 0; same && i < np; i++) same &= cuzk_fr_eq(&w[1 + i], &pubs[i]);
    CHECK(same);
    free(pubs);
    cuzk_cs_free(&cs);
    free(w);
    cuzk_builder_free(&b);
}

/* WindowPoSt and WinningPoSt entries made from the real 2 KiB sectors: the trees reach their
 * sealers' comm_r_last and comm_r; the entries survive the bincode round trip, their
 * partitions pass every check and satisfy the circuits. */
static void test_post_entries_2k(void) {
    json_t *sectors = load_json("sectors-2k.json");
    struct cuzk_post_sector_input in[2];
    uint8_t *rep[2] = {NULL, NULL};
    const char *want_comm_r[2] = {NULL, NULL};
    for (size_t i = 0; i < 2; i++) {
        const json_t *s = json_array_get(sectors, i);
        const json_t *files = json_object_get(s, "realdata_files");
        size_t len, plen;
        rep[i] = load(jstr(files, "replica"), &len);
        uint8_t *p_aux = load(jstr(files, "p_aux"), &plen);
        CHECK(len == 2048 && plen == 64);
        in[i].sector_id = jint(json_object_get(s, "sector_id"));
        in[i].replica = rep[i];
        in[i].len = len;
        CHECK(cuzk_fr_from_bytes_le(&in[i].comm_c, p_aux) == CUZK_OK);
        want_comm_r[i] = jstr(json_object_get(s, "expected"), "comm_r");
        free(p_aux);
    }
    uint8_t rand[32];
    for (int i = 0; i < 32; i++) rand[i] = (uint8_t)(7 * i + 1);
    rand[31] &= 0x3f;
    char err[320];
    for (int winning = 0; winning < 2; winning++) {
        struct cuzk_fc_registered r;
        CHECK(reg_of(winning ? CUZK_FC_WINNING : CUZK_FC_WPOST, winning ? 0 : 10, &r) == CUZK_OK);
        const size_t n = winning ? 1 : 2;
        struct cuzk_post_entries made, back;
        CHECK(cuzk_post_entries_make(&r, in, n, rand, 0, &made, err, sizeof err) == CUZK_OK);
        for (size_t i = 0; i < made.n; i++) {
            char what[128];
            snprintf(what, sizeof what, "%s entry %zu comm_r", r.name, i);
            check_fr(what, &made.e[i].comm_r, want_comm_r[i]);
        }
        uint8_t *bytes = NULL;
        size_t blen = 0;
        CHECK(cuzk_post_entries_write(&made, 0, made.n, &bytes, &blen) == CUZK_OK);
        CHECK(cuzk_post_entries_parse(bytes, blen, r.profile.tree_r_levels, 0, n, &back, err,
                                      sizeof err) == CUZK_OK);
        CHECK(back.n == n && back.sub == 0);
        struct cuzk_vanilla v;
        CHECK(cuzk_post_vanilla_of_entries(&back, &r, rand, 0, &v, err, sizeof err) == CUZK_OK);
        if (v.n_parts == 1) {
            CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) == CUZK_OK);
            post_partition_satisfied(&v);
            /* a leaf that is not the replica's breaks the path check */
            struct cuzk_fc_post_sector *s = (struct cuzk_fc_post_sector *)v.parts[0].v.post.sectors;
            cuzk_fr_add((cuzk_fr *)&s[0].leaves[0], &s[0].leaves[0], &s[0].leaves[0]);
            CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) != CUZK_OK);
        }
        cuzk_vanilla_free(&v);
        /* too many sectors for the partition; a winning proof of two sectors */
        cuzk_post_entries_free(&back);
        CHECK(cuzk_post_entries_parse(bytes, blen, r.profile.tree_r_levels, 0, 1, &back, err,
                                      sizeof err) == (winning ? CUZK_OK : CUZK_EINVAL));
        if (winning) cuzk_post_entries_free(&back);
        printf("post entries: %s from %zu real 2 KiB sector(s): comm_r as sealed, %zu bytes, "
               "partition %s satisfied\n",
               r.name, n, blen, r.profile.name);
        free(bytes);
        cuzk_post_entries_free(&back);
        cuzk_post_entries_free(&made);
    }
    free(rep[0]);
    free(rep[1]);
    json_decref(sectors);
}

/* Top proofs (trees 8-8-2, the 64 GiB shape) at 32 KiB: entries of a tree with three 8-ary
 * levels and a binary top, made from random replicas under a registered proof whose profile
 * is given that shape, are written as Top proofs, read back only as such, and give partitions
 * that pass every check and satisfy the circuits (wpost-s2-r3-t2, winning-s66-r3-t2). */
static void test_post_entries_top(void) {
    enum { NODES = 1024 };
    uint8_t *rep[2];
    struct cuzk_post_sector_input in[2];
    for (int i = 0; i < 2; i++) {
        rep[i] = malloc(NODES * 32);
        cuzk_rng_fill(&test_rng, rep[i], NODES * 32);
        for (int k = 0; k < NODES; k++) rep[i][32 * k + 31] &= 0x3f;
        in[i].sector_id = 100 + (uint64_t)i;
        in[i].replica = rep[i];
        in[i].len = NODES * 32;
        cuzk_fr_random(&in[i].comm_c, &test_rng);
    }
    uint8_t rand[32];
    for (int i = 0; i < 32; i++) rand[i] = (uint8_t)(3 * i + 5);
    rand[31] &= 0x3f;
    char err[320];
    for (int winning = 0; winning < 2; winning++) {
        struct cuzk_fc_registered r;
        CHECK(reg_of(winning ? CUZK_FC_WINNING : CUZK_FC_WPOST, winning ? 0 : 10, &r) == CUZK_OK);
        r.sector_size = NODES * 32;
        CHECK(cuzk_fc_profile_parse(winning ? "winning-s66-r3-t2" : "wpost-s2-r3-t2", &r.profile,
                                    err, sizeof err) == CUZK_OK);
        const size_t n = winning ? 1 : 2;
        struct cuzk_post_entries made, back;
        CHECK(cuzk_post_entries_make(&r, in, n, rand, 0, &made, err, sizeof err) == CUZK_OK);
        CHECK(made.top == 1 && made.sub == 1 && made.levels == 3);
        uint8_t *bytes = NULL;
        size_t blen = 0;
        CHECK(cuzk_post_entries_write(&made, 0, made.n, &bytes, &blen) == CUZK_OK);
        /* variant 2 (Top) first; a tree without top level refuses it */
        CHECK(blen > 60 && bytes[56] == 2 && bytes[57] == 0);
        CHECK(cuzk_post_entries_parse(bytes, blen, 3, 0, n, &back, err, sizeof err) == CUZK_EINVAL);
        CHECK(strstr(err, "Top") != NULL);
        CHECK(cuzk_post_entries_parse(bytes, blen, 3, 2, n, &back, err, sizeof err) == CUZK_OK);
        CHECK(back.n == n && back.top == 1 && back.sub == 1);
        uint8_t *again = NULL;
        size_t alen = 0;
        CHECK(cuzk_post_entries_write(&back, 0, back.n, &again, &alen) == CUZK_OK);
        CHECK(alen == blen && !memcmp(again, bytes, blen));
        free(again);
        struct cuzk_vanilla v;
        CHECK(cuzk_post_vanilla_of_entries(&back, &r, rand, 0, &v, err, sizeof err) == CUZK_OK);
        if (v.n_parts == 1) {
            CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) == CUZK_OK);
            post_partition_satisfied(&v);
        }
        cuzk_vanilla_free(&v);
        printf("post entries: Top proofs of %s (tree 8-8-2 of %d leaves): %zu bytes, read "
               "back, partition satisfied\n",
               r.profile.name, NODES, blen);
        free(bytes);
        cuzk_post_entries_free(&back);
        cuzk_post_entries_free(&made);
    }
    /* Single proofs (a 16 KiB tree of three 8-ary levels) where the tree has a top level */
    struct cuzk_fc_registered r;
    CHECK(reg_of(CUZK_FC_WPOST, 10, &r) == CUZK_OK);
    r.sector_size = NODES * 16;
    CHECK(cuzk_fc_profile_parse("wpost-s2-r3", &r.profile, err, sizeof err) == CUZK_OK);
    struct cuzk_post_entries made, back;
    in[0].len = NODES * 16;
    CHECK(cuzk_post_entries_make(&r, in, 1, rand, 0, &made, err, sizeof err) == CUZK_OK);
    CHECK(made.top == 0);
    uint8_t *bytes = NULL;
    size_t blen = 0;
    CHECK(cuzk_post_entries_write(&made, 0, made.n, &bytes, &blen) == CUZK_OK);
    CHECK(cuzk_post_entries_parse(bytes, blen, 3, 2, 2, &back, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "Single") != NULL);
    free(bytes);
    cuzk_post_entries_free(&made);
    free(rep[0]);
    free(rep[1]);
}

/* ---- PoRep vanilla proofs of the real sectors (filecoin/seal_proof.h) --------------------- */

/* Every real 2 KiB sector, with a seed, gives the partition of its registered proof
 * (porep-c2-l2-d6-r2): the consistency checks pass, our PoRep circuit is satisfied, and its
 * public inputs start with the sector's real replica_id, comm_d and comm_r. A parent label
 * that is not the sector's breaks it; a replica sealed from another ticket is refused. */
static void test_seal_vanilla(void) {
    json_t *sectors = load_json("sectors-2k.json");
    size_t i;
    json_t *s;
    json_array_foreach(sectors, i, s) {
        const char *name = jstr(s, "name");
        const json_t *e = json_object_get(s, "expected");
        struct cuzk_sdr_sector sec;
        sector_of(s, &sec);
        size_t len;
        uint8_t *replica = load(jstr(json_object_get(s, "realdata_files"), "replica"), &len);
        struct cuzk_fc_registered reg;
        char err[320];
        CHECK(cuzk_fc_registered_get(CUZK_FC_POREP,
                                     jint(json_object_get(s, "registered_seal_proof")), &reg, err,
                                     sizeof err) == CUZK_OK);
        uint8_t seed[32];
        for (int k = 0; k < 32; k++) seed[k] = (uint8_t)(i * 31 + (size_t)k * 7 + 3);
        seed[31] &= 0x3f;
        struct cuzk_vanilla v;
        CHECK(cuzk_seal_vanilla_make(&sec, replica, len, seed, &reg.profile, reg.partitions, &v,
                                     err, sizeof err) == CUZK_OK);
        if (v.n_parts == 1) {
            CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) == CUZK_OK);
            const size_t np = cuzk_vanilla_public_count(&v.profile);
            cuzk_fr *pub = test_xmalloc(np * sizeof *pub);
            size_t got = 0;
            CHECK(cuzk_vanilla_public_inputs(&v, 0, pub, np, &got) == CUZK_OK && got == np);
            char what[128];
            snprintf(what, sizeof what, "%s porep replica_id", name);
            check_fr(what, &pub[0], jstr(e, "replica_id"));
            snprintf(what, sizeof what, "%s porep comm_d", name);
            check_fr(what, &pub[1], jstr(e, "comm_d"));
            snprintf(what, sizeof what, "%s porep comm_r", name);
            check_fr(what, &pub[2], jstr(e, "comm_r"));
            /* the circuit (2.7 M rows) for one sector of each api: venus (1.0), lotus (1.1) */
            if (i == 0 || i == 2) {
                struct cuzk_builder b;
                CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
                CHECK(cuzk_fc_synthesize(&b, &v.profile, cuzk_vanilla_values(&v, 0)) == CUZK_OK);
                struct cuzk_cs cs;
                cuzk_fr *w = NULL;
                size_t nw = 0, bad = 0;
                CHECK(cuzk_builder_finish(&b, &cs, &w, &nw) == CUZK_OK);
                CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, &bad) == 1);
                int same = cs.n_public == np && nw > np;
                for (size_t q = 0; same && q < np; q++) same &= cuzk_fr_eq(&w[1 + q], &pub[q]);
                CHECK(same);
                printf("seal vanilla: %s (%s): %zu rows satisfied, public inputs = its "
                       "replica_id, comm_d, comm_r and %u real challenges\n",
                       name, reg.name, cs.n_rows, v.profile.challenges);
                cuzk_cs_free(&cs);
                free(w);
                cuzk_builder_free(&b);
            } else {
                printf("seal vanilla: %s (%s): every check of the partition passes\n", name,
                       reg.name);
            }
            free(pub);
            /* a parent label that is not the sector's */
            struct cuzk_fc_porep_challenge *c =
                (struct cuzk_fc_porep_challenge *)&v.parts[0].v.porep.challenges[1];
            cuzk_fr *col = (cuzk_fr *)c->parent_columns;
            cuzk_fr_add(&col[3], &col[3], &col[3]);
            CHECK(cuzk_vanilla_check_part(&v, 0, err, sizeof err) != CUZK_OK);
        }
        cuzk_vanilla_free(&v);
        /* another ticket: the replica id, labels and data change; the data's comm_d is not
         * the sector's */
        sec.ticket[0] ^= 1;
        CHECK(cuzk_seal_vanilla_make(&sec, replica, len, seed, &reg.profile, 1, &v, err,
                                     sizeof err) == CUZK_EINVAL &&
              strstr(err, "comm_d"));
        free(replica);
    }
    json_decref(sectors);
}

/* ---- C1 outputs of the real sectors (filecoin/c1.h) --------------------------------------- */

/* The vanilla sets a and b hold the same values (their files are equal). */
static int same_vanilla(const struct cuzk_vanilla *a, const struct cuzk_vanilla *b) {
    uint8_t *fa, *fb;
    size_t na, nb;
    CHECK(cuzk_vanilla_serialize(a, &fa, &na) == CUZK_OK);
    CHECK(cuzk_vanilla_serialize(b, &fb, &nb) == CUZK_OK);
    const int same = na == nb && !memcmp(fa, fb, na);
    free(fa);
    free(fb);
    return same;
}

/* text with the first `from` after `after` replaced by `to` (same length), or NULL. */
static char *edit(const char *text, const char *after, const char *from, const char *to) {
    const char *at = strstr(text, after);
    at = at ? strstr(at, from) : NULL;
    if (!at || strlen(from) != strlen(to)) return NULL;
    char *t = strdup(text);
    memcpy(t + (at - text), to, strlen(to));
    return t;
}

static int parse_text(const char *t, struct cuzk_c1 *c, char *err, size_t errlen) {
    return cuzk_c1_parse((const uint8_t *)t, strlen(t), c, err, errlen);
}

/* The C1 reader's peak heap while it parses, per byte of its input: the heap in use
 * (mallinfo2) sampled at every allocation and release of jansson, which brackets every large
 * allocation of the reader (its copy of the text, the decoded Phase1Out, the vanilla set), and
 * after it returns (its result). */
static size_t heap_peak;
static size_t heap_now(void) {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
static void heap_mark(void) {
    const size_t h = heap_now();
    if (h > heap_peak) heap_peak = h;
}
static void *counting_malloc(size_t n) {
    void *p = malloc(n);
    heap_mark();
    return p;
}
static void counting_free(void *p) {
    heap_mark();
    free(p);
}
static double c1_heap_per_byte(const char *text) {
    struct cuzk_c1 c;
    char err[256];
    const size_t len = strlen(text);
    json_set_alloc_funcs(counting_malloc, counting_free);
    const size_t base = heap_peak = heap_now();
    const int rc = cuzk_c1_parse((const uint8_t *)text, len, &c, err, sizeof err);
    heap_mark();
    json_set_alloc_funcs(malloc, free);
    cuzk_c1_free(&c);
    return rc ? -1 : (double)(heap_peak - base) / (double)len;
}

/* Each real 2 KiB sector's PoRep vanilla proofs (seal_proof.h) written as the C1 that
 * rust-fil-proofs' commit phase 1 makes, bare and in Curio's wrapper, read back into the same
 * vanilla set; the request's side checks out with the sector's real miner (its prover_id as
 * sectors-2k.json has it), sector number and registered proof (its porep_id likewise), and
 * names the field when the miner, the sector, the seed or a parent is not the C1's; bad JSON,
 * positions and roots are refused with the field named. */
static void test_c1(void) {
    json_t *sectors = load_json("sectors-2k.json");
    size_t i;
    json_t *s;
    json_array_foreach(sectors, i, s) {
        const char *name = jstr(s, "name");
        struct cuzk_sdr_sector sec;
        sector_of(s, &sec);
        size_t len;
        uint8_t *replica = load(jstr(json_object_get(s, "realdata_files"), "replica"), &len);
        struct cuzk_fc_registered reg;
        char err[400];
        CHECK(cuzk_fc_registered_get(CUZK_FC_POREP,
                                     jint(json_object_get(s, "registered_seal_proof")), &reg, err,
                                     sizeof err) == CUZK_OK);
        /* the miner of t0<id>, its prover_id and the proof's porep_id as the sealer had them */
        const char *t0 = strstr(name, "-t0");
        CHECK(t0 != NULL);
        const uint64_t miner = strtoull(t0 + 3, NULL, 10);
        uint8_t id[32];
        cuzk_fc_prover_id(miner, id);
        CHECK(!memcmp(id, sec.prover_id, 32));
        cuzk_fc_porep_id(&reg, id);
        CHECK(!memcmp(id, sec.porep_id, 32));
        uint8_t seed[32];
        for (int k = 0; k < 32; k++) seed[k] = (uint8_t)(i * 17 + (size_t)k * 5 + 1);
        struct cuzk_vanilla v;
        CHECK(cuzk_seal_vanilla_make(&sec, replica, len, seed, &reg.profile, reg.partitions, &v,
                                     err, sizeof err) == CUZK_OK);
        char *bare, *wrapped;
        size_t nb, nw;
        CHECK(cuzk_c1_write(&v, &reg, seed, sec.ticket, 0, 0, &bare, &nb, err, sizeof err) ==
              CUZK_OK);
        CHECK(cuzk_c1_write(&v, &reg, seed, sec.ticket, 1, sec.sector_id, &wrapped, &nw, err,
                            sizeof err) == CUZK_OK);
        struct cuzk_c1 c;
        CHECK(parse_text(bare, &c, err, sizeof err) == CUZK_OK);
        CHECK(!c.wrapped && c.reg.number == reg.number && same_vanilla(&c.v, &v));
        CHECK(!memcmp(c.ticket, sec.ticket, 32) && !memcmp(c.seed, seed, 32));
        CHECK(cuzk_c1_check(&c, miner, sec.sector_id, err, sizeof err) == CUZK_OK);
        cuzk_c1_free(&c);
        CHECK(parse_text(wrapped, &c, err, sizeof err) == CUZK_OK);
        CHECK(c.wrapped && c.sector_num == sec.sector_id && c.sector_size == 2048);
        CHECK(same_vanilla(&c.v, &v));
        CHECK(cuzk_vanilla_check(&c.v, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_c1_check(&c, miner, sec.sector_id, err, sizeof err) == CUZK_OK);
        printf("c1: %s (%s): %zu bytes of C1 JSON (%zu wrapped) read back into the same "
               "partition; replica id, challenges and parents re-derived from miner %llu, "
               "sector %llu, the ticket and the seed\n",
               name, reg.name, nb, nw, (unsigned long long)miner,
               (unsigned long long)sec.sector_id);
        /* the request's side, each field named */
        CHECK(cuzk_c1_check(&c, miner + 1, 0, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "replica_id"));
        CHECK(cuzk_c1_check(&c, miner, sec.sector_id + 7, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "sector_number"));
        c.seed[5] ^= 1;
        CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_EINVAL && strstr(err, "seed"));
        c.seed[5] ^= 1;
        struct cuzk_fc_porep_challenge *ch =
            (struct cuzk_fc_porep_challenge *)&c.v.parts[0].v.porep.challenges[1];
        ch->parents[9] ^= 1;
        CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "parents"));
        cuzk_c1_free(&c);
        if (i == 0) {
            /* the reader's heap: 3.2 (bare) and 3.0 (wrapped) bytes per input byte (12.4 and
             * 10.9 when jansson held every number as a value); the bound keeps it there (a
             * sanitizer's allocator is not malloc's, so mallinfo2 says nothing there) */
            const double hb = c1_heap_per_byte(bare), hw = c1_heap_per_byte(wrapped);
            printf("c1: the reader's peak heap per input byte: %.2f (bare), %.2f (wrapped)\n", hb,
                   hw);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
            CHECK(hb > 0 && hb <= 4 && hw > 0 && hw <= 4);
#endif
            /* the packing keeps what is read: a text that spreads its arrays over lines, in
             * the wrapper (packed in place, lines kept), reads as the same set; one holding
             * the escape \u0000 (which jansson refuses) is read as it is, and refused */
            {
                size_t n = 0;
                for (const char *q = bare; *q; q++) n += *q == ',';
                char *spread = malloc(nb + n + 1), *w = spread;
                for (const char *q = bare; *q; q++) {
                    *w++ = *q;
                    if (*q == ',') *w++ = '\n';
                }
                *w = 0;
                char *b64 = cuzk_base64_encode((const uint8_t *)spread, nb + n);
                const size_t wl = strlen(b64) + 64;
                char *wrap = malloc(wl);
                snprintf(wrap, wl, "{\"SectorNum\":%llu,\"Phase1Out\":\"%s\",\"SectorSize\":2048}",
                         (unsigned long long)sec.sector_id, b64);
                CHECK(parse_text(spread, &c, err, sizeof err) == CUZK_OK && same_vanilla(&c.v, &v));
                cuzk_c1_free(&c);
                CHECK(parse_text(wrap, &c, err, sizeof err) == CUZK_OK && same_vanilla(&c.v, &v));
                cuzk_c1_free(&c);
                char *nul = malloc(nb + 16);
                snprintf(nul, nb + 16, "{\"x\":\"\\u0000\",%s", bare + 1);
                CHECK(parse_text(nul, &c, err, sizeof err) == CUZK_EFORMAT &&
                      strstr(err, "not JSON"));
                free(nul);
                free(wrap);
                free(b64);
                free(spread);
            }
            /* the format's refusals, each naming its field */
            const struct {
                const char *after, *from, *to, *field;
                int rc;
            } bad[] = {
                {"\"registered_proof\":\"", "2KiBV1", "2KiBV9", "registered_proof", CUZK_EINVAL},
                {"\"comm_d_proofs\"", "\"index\":", "\"indey\":", "comm_d_proofs", CUZK_EFORMAT},
                {"\"drg_parents\"", "\"rows\"", "\"rowz\"", "drg_parents", CUZK_EFORMAT},
                {"\"comm_r_last_proof\":{\"data\":{\"", "Single", "Singl_", "comm_r_last_proof",
                 CUZK_EFORMAT},
                {"\"labeling_proofs\"", "\"layer_index\":1", "\"layer_index\":2", "labeling_proofs",
                 CUZK_EFORMAT},
                {"\"encoding_proof\"", "\"parents\"", "\"parentz\"", "encoding_proof",
                 CUZK_EFORMAT},
                {"\"vanilla_proofs\":{\"", "StackedDrg2KiBV1\"", "StackedDrg8MiBV1\"",
                 "vanilla_proofs", CUZK_EFORMAT},
            };
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                char *t = edit(bare, bad[b].after, bad[b].from, bad[b].to);
                CHECK(t != NULL);
                if (!t) continue;
                const int rc = parse_text(t, &c, err, sizeof err);
                CHECK(rc == bad[b].rc && strstr(err, bad[b].field));
                if (rc != bad[b].rc || !strstr(err, bad[b].field))
                    printf("c1 refusal %zu: rc %d: %s\n", b, rc, err);
                free(t);
            }
            /* a position in a path that is not the node's digit */
            const char *at = strstr(strstr(bare, "\"comm_r_last_proof\""), "\"index\":");
            char *t = strdup(bare);
            char *d = t + (at - bare) + 8;
            *d = *d == '0' ? '1' : '0';
            CHECK(parse_text(t, &c, err, sizeof err) == CUZK_EFORMAT && strstr(err, "position"));
            free(t);
            /* a zero seed, a truncated document */
            const char *seed_at = strstr(bare, "\"seed\":[");
            t = strdup(bare);
            char *q = t + (seed_at - bare) + 8;
            for (int k = 0; k < 32; k++) { /* every byte "0" padded to its width */
                char *e = strchr(q, k < 31 ? ',' : ']');
                memset(q, ' ', (size_t)(e - q));
                q[0] = '0';
                q = e + 1;
            }
            CHECK(parse_text(t, &c, err, sizeof err) == CUZK_EINVAL && strstr(err, "seed"));
            free(t);
            CHECK(cuzk_c1_parse((const uint8_t *)bare, nb / 2, &c, err, sizeof err) ==
                      CUZK_EFORMAT &&
                  strstr(err, "not JSON"));
            /* the wrapper: its size, its base64 */
            t = edit(wrapped, "\"SectorSize\":", "2048", "4096");
            CHECK(parse_text(t, &c, err, sizeof err) == CUZK_EINVAL && strstr(err, "SectorSize"));
            free(t);
            t = edit(wrapped, "\"Phase1Out\":\"", "\"", "\"");
            t[strstr(t, "\"Phase1Out\":\"") - t + 14] = '*';
            CHECK(parse_text(t, &c, err, sizeof err) == CUZK_EFORMAT && strstr(err, "base64"));
            free(t);
            CHECK(parse_text("{\"SectorNum\":1}", &c, err, sizeof err) == CUZK_EFORMAT &&
                  strstr(err, "neither"));
            /* a sector size with no circuit */
            struct cuzk_fc_registered big;
            CHECK(cuzk_fc_registered_by_name(CUZK_FC_POREP, "StackedDrg64GiBV1_1", &big, err,
                                             sizeof err) == CUZK_EUNSUPPORTED);
            t = edit(bare, "\"registered_proof\":\"", "StackedDrg2KiBV1", "StackedDrg64GiBV1");
            if (!t) { /* not the same length: build it */
                const char *rest = strstr(bare, "\",\"vanilla_proofs\"");
                size_t n = strlen(rest) + 64;
                t = malloc(n);
                snprintf(t, n, "{\"registered_proof\":\"StackedDrg64GiBV1_1%s", rest);
            }
            CHECK(parse_text(t, &c, err, sizeof err) == CUZK_EUNSUPPORTED && strstr(err, "64"));
            free(t);
        }
        free(bare);
        free(wrapped);
        cuzk_vanilla_free(&v);
        free(replica);
    }
    /* every PoRep registered proof by its name, and one that is not */
    for (uint64_t n = 0; n < 20; n++) {
        struct cuzk_fc_registered a, b;
        char e1[200], e2[200];
        const int r1 = cuzk_fc_registered_get(CUZK_FC_POREP, n, &a, e1, sizeof e1);
        const int r2 = cuzk_fc_registered_by_name(CUZK_FC_POREP, a.name, &b, e2, sizeof e2);
        CHECK(r1 == r2 && b.number == n);
    }
    struct cuzk_fc_registered x;
    char e[200];
    CHECK(cuzk_fc_registered_by_name(CUZK_FC_POREP, "StackedDrgWindow32GiBV1", &x, e, sizeof e) ==
              CUZK_EINVAL &&
          strstr(e, "RegisteredSealProof"));
    /* prover ids: LEB128 of the actor id */
    uint8_t id[32];
    cuzk_fc_prover_id(0, id);
    CHECK(id[0] == 0 && id[1] == 0);
    cuzk_fc_prover_id(1000, id);
    CHECK(id[0] == 0xe8 && id[1] == 0x07 && id[2] == 0);
    cuzk_fc_prover_id(UINT64_MAX, id);
    CHECK(id[8] == 0xff && id[9] == 0x01 && id[10] == 0);
    json_decref(sectors);
}

/* Non-interactive PoRep (registered proof 15: 2 KiB): a committed-capacity sector sealed here
 * under its porep_id (cuzk_sdr_seal_cc: the replica's data is zero again, by the commitments
 * recomputed from the replica alone), its 13 partitions challenged from comm_r, written as a C1
 * and read back: the check re-derives the challenges from comm_r and never reads the seed; the
 * interactive rule's challenges are refused, naming comm_r. */
static void test_c1_ni(void) {
    struct cuzk_fc_registered reg;
    char err[400];
    CHECK(cuzk_fc_registered_get(CUZK_FC_POREP, 15, &reg, err, sizeof err) == CUZK_OK);
    CHECK(reg.non_interactive && reg.partitions == 13);
    const uint64_t miner = 1000;
    struct cuzk_sdr_sector sec = {.sector_size = 2048, .api = reg.api, .sector_id = 3};
    cuzk_fc_porep_id(&reg, sec.porep_id);
    cuzk_fc_prover_id(miner, sec.prover_id);
    for (int k = 0; k < 32; k++) sec.ticket[k] = (uint8_t)(k * 3 + 1);
    sec.ticket[31] &= 0x3f;
    uint8_t replica[2048], seed[32] = {9};
    CHECK(cuzk_sdr_seal_cc(&sec, replica, err, sizeof err) == CUZK_OK);
    struct cuzk_sdr_commit cm;
    CHECK(cuzk_sdr_commit_replica(&sec, replica, sizeof replica, NULL, &cm, err, sizeof err) ==
          CUZK_OK);
    uint8_t d[32];
    cuzk_fr_to_bytes_le(d, &cm.comm_d_of_data);
    CHECK(!memcmp(d, sec.comm_d, 32)); /* the data under the replica is the zero sector's */
    struct cuzk_vanilla v;
    CHECK(cuzk_seal_vanilla_make(&sec, replica, sizeof replica, NULL, &reg.profile, reg.partitions,
                                 &v, err, sizeof err) == CUZK_OK);
    CHECK(v.n_parts == 13 && cuzk_vanilla_check(&v, err, sizeof err) == CUZK_OK);
    uint8_t rid[32], cr[32];
    cuzk_fr_to_bytes_le(rid, &v.parts[0].v.porep.replica_id);
    cuzk_fr_to_bytes_le(cr, &v.parts[0].v.porep.comm_r);
    CHECK(cuzk_fr_eq(&v.parts[0].v.porep.comm_r, &cm.comm_r));
    uint64_t want[2];
    cuzk_porep_ni_challenges(rid, cr, 64, 2, 12, want);
    CHECK(v.parts[12].v.porep.challenges[1].challenge == want[1]);
    char *text;
    size_t n;
    CHECK(cuzk_c1_write(&v, &reg, seed, sec.ticket, 1, sec.sector_id, &text, &n, err, sizeof err) ==
          CUZK_OK);
    struct cuzk_c1 c;
    CHECK(parse_text(text, &c, err, sizeof err) == CUZK_OK && c.reg.number == 15);
    CHECK(c.v.n_parts == 13 && same_vanilla(&c.v, &v));
    CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_OK);
    c.seed[0] ^= 1; /* the seed does not enter */
    CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_OK);
    c.comm_r[0] ^= 1;
    CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_EINVAL && strstr(err, "comm_r") &&
          strstr(err, "non-interactive"));
    cuzk_c1_free(&c);
    free(text);
    cuzk_vanilla_free(&v);
    /* the same sector's partitions challenged by the interactive rule are refused */
    CHECK(cuzk_seal_vanilla_make(&sec, replica, sizeof replica, seed, &reg.profile, reg.partitions,
                                 &v, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_c1_write(&v, &reg, seed, sec.ticket, 1, sec.sector_id, &text, &n, err, sizeof err) ==
          CUZK_OK);
    CHECK(parse_text(text, &c, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_c1_check(&c, miner, 0, err, sizeof err) == CUZK_EINVAL && strstr(err, "comm_r"));
    printf("c1: a non-interactive 2 KiB sector: 13 partitions challenged from comm_r, read "
           "back and re-derived; interactive challenges refused\n");
    cuzk_c1_free(&c);
    free(text);
    cuzk_vanilla_free(&v);
}

int main(void) {
    test_init("test_fc_real");
    const char *env = getenv("CUZK_REALDATA");
    if (env) {
        snprintf(data_dir, sizeof data_dir, "%s", env);
    } else { /* tests/data/realdata next to this source file */
        snprintf(data_dir, sizeof data_dir, "%s", __FILE__);
        char *slash = strrchr(data_dir, '/');
        if (slash)
            snprintf(slash + 1, sizeof data_dir - (size_t)(slash + 1 - data_dir), "data/realdata");
        else
            snprintf(data_dir, sizeof data_dir, "data/realdata");
    }
    kats = load_json("kats.json");
    test_primitives();
    test_labels();
    test_graph();
    test_challenges();
    test_poseidon_comm_d();
    test_shapes();
    test_sectors();
    test_post_proof();
    test_registered();
    test_post_entries_curio();
    test_post_entries_2k();
    test_post_entries_top();
    test_seal_vanilla();
    test_c1();
    test_c1_ni();
    json_decref(kats);
    return test_finish();
}
