/* The challenges of Filecoin's proofs (contract: challenges.h). */
#include "filecoin/challenges.h"

#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "util/blake2b.h"
#include "util/chacha.h"
#include "util/sha256.h"

/* 32 little-endian bytes, read as an integer, mod m (m >= 1). */
static uint64_t le256_mod(const uint8_t b[32], uint64_t m) {
    unsigned __int128 r = 0;
    for (int i = 31; i >= 0; i--) r = (r << 8 | b[i]) % m;
    return (uint64_t)r;
}

/* PoSt's rule: the first 8 digest bytes of sha256(msg), little-endian, mod m. */
static uint64_t digest_le64_mod(const uint8_t *msg, size_t len, uint64_t m) {
    uint8_t h[32];
    uint64_t x = 0;
    cuzk_sha256(h, msg, len);
    for (int i = 7; i >= 0; i--) x = x << 8 | h[i];
    return x % m;
}

static void put_le(uint8_t *out, uint64_t x, int bytes) {
    for (int i = 0; i < bytes; i++) out[i] = (uint8_t)(x >> (8 * i));
}

/* ---- PoRep ------------------------------------------------------------------------------- */

/* Challenge j = count k + i for i < count: 1 + (sha256(prefix || a || b || j u32 LE) read
 * little-endian) mod (nodes - 1); prefix may be empty. */
static void sha_challenges(const char *prefix, const uint8_t a[32], const uint8_t b[32],
                           uint64_t nodes, unsigned count, unsigned k, uint64_t *out) {
    for (unsigned i = 0; i < count; i++) {
        uint8_t j[4], h[32];
        put_le(j, (uint64_t)count * k + i, 4);
        struct cuzk_sha256_ctx c;
        cuzk_sha256_init(&c);
        cuzk_sha256_update(&c, prefix, strlen(prefix));
        cuzk_sha256_update(&c, a, 32);
        cuzk_sha256_update(&c, b, 32);
        cuzk_sha256_update(&c, j, sizeof j);
        cuzk_sha256_final(&c, h);
        out[i] = 1 + le256_mod(h, nodes - 1);
    }
}

void cuzk_porep_challenges(const uint8_t replica_id[32], const uint8_t seed[32], uint64_t nodes,
                           unsigned count, unsigned k, uint64_t *out) {
    sha_challenges("", replica_id, seed, nodes, count, k, out);
}

void cuzk_porep_ni_challenges(const uint8_t replica_id[32], const uint8_t comm_r[32],
                              uint64_t nodes, unsigned count, unsigned k, uint64_t *out) {
    sha_challenges("filecoin.io|PoRep|1|NonInteractive|1", replica_id, comm_r, nodes, count, k,
                   out);
}

uint64_t cuzk_porep_synth_count(uint64_t nodes) {
    return nodes < CUZK_POREP_SYNTH_MAX ? nodes : CUZK_POREP_SYNTH_MAX;
}

/* The ChaCha20 stream of a synthetic derivation: key = BLAKE2b-256 keyed with the tag's
 * purpose, over a || b. */
static void synth_stream(struct cuzk_chacha *c, const char *purpose, const uint8_t a[32],
                         const uint8_t b[32]) {
    static const uint8_t nonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};
    char tag[64];
    uint8_t key[32];
    int n = snprintf(tag, sizeof tag, "filecoin.io|PoRep|1|Synthetic|1|%s", purpose);
    struct cuzk_blake2b_ctx h;
    cuzk_blake2b_init(&h, sizeof key, tag, (size_t)n);
    cuzk_blake2b_update(&h, a, 32);
    cuzk_blake2b_update(&h, b, 32);
    cuzk_blake2b_final(&h, key);
    cuzk_chacha_init_ietf(c, key, nonce, 20);
}

void cuzk_porep_synth_challenges(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                 uint64_t nodes, uint64_t first, size_t n, uint64_t *out) {
    struct cuzk_chacha c;
    uint8_t b[32];
    synth_stream(&c, "Generation", replica_id, comm_r);
    cuzk_chacha_seek(&c, first * sizeof b);
    for (size_t i = 0; i < n; i++) {
        cuzk_chacha_bytes(&c, b, sizeof b);
        out[i] = 1 + le256_mod(b, nodes - 1);
    }
}

void cuzk_porep_synth_indexes(const uint8_t replica_id[32], const uint8_t seed[32],
                              uint64_t n_synth, unsigned count, unsigned k, uint64_t *out) {
    struct cuzk_chacha c;
    synth_stream(&c, "Selection", replica_id, seed);
    cuzk_chacha_seek(&c, (uint64_t)count * k * 4);
    for (unsigned i = 0; i < count; i++) out[i] = cuzk_chacha_u32(&c) % n_synth;
}

void cuzk_porep_synth_selected(const uint8_t replica_id[32], const uint8_t comm_r[32],
                               const uint8_t seed[32], uint64_t nodes, uint64_t n_synth,
                               unsigned count, unsigned k, uint64_t *out) {
    cuzk_porep_synth_indexes(replica_id, seed, n_synth, count, k, out);
    for (unsigned i = 0; i < count; i++)
        cuzk_porep_synth_challenges(replica_id, comm_r, nodes, out[i], 1, &out[i]);
}

/* ---- PoSt -------------------------------------------------------------------------------- */

uint64_t cuzk_post_challenge_index(enum cuzk_api api, uint64_t sector_index, uint64_t per_sector,
                                   uint64_t n) {
    return api >= CUZK_API_1_2 ? n : sector_index * per_sector + n;
}

uint64_t cuzk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t nodes) {
    uint8_t msg[48];
    memcpy(msg, randomness, 32);
    put_le(msg + 32, sector_id, 8);
    put_le(msg + 40, challenge_index, 8);
    return digest_le64_mod(msg, sizeof msg, nodes);
}

uint64_t cuzk_post_sector_challenge(const uint8_t randomness[32], uint64_t n, uint64_t set_len,
                                    const uint8_t prover_id[32]) {
    uint8_t msg[72];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    put_le(msg + 64, n, 8);
    return digest_le64_mod(msg, sizeof msg, set_len);
}

/* ---- SnapDeals --------------------------------------------------------------------------- */

int cuzk_snap_profile_for(uint64_t nodes, struct cuzk_fc_profile *p) {
    if (nodes < 32 || (nodes & (nodes - 1)) || nodes > CUZK_GRAPH_MAX_NODES) return CUZK_EINVAL;
    cuzk_fc_profile_default(CUZK_FC_SNAP, p);
    unsigned d = 0;
    while (((uint64_t)1 << d) < nodes) d++;
    p->tree_d_levels = d;
    /* partition_count: up to 8 KiB 1, 32 KiB 2, 16 MiB 4, then 16 (in 32-byte nodes) */
    p->partition_bits = nodes <= 256 ? 0 : nodes <= 1024 ? 1 : nodes <= (1u << 19) ? 2 : 4;
    p->challenges = nodes <= (1u << 19) ? 10 : 86;
    /* apex_leaf_count: up to 8 KiB 8, then 128 (the default) */
    p->apex_leaves = nodes <= 256 ? 8 : 128;
    return CUZK_OK;
}
