/* The SDR graph (contract: graph.h). */
#include "filecoin/graph.h"

#include <string.h>

#include "cuzk/error.h"
#include "util/blake2b.h"
#include "util/chacha.h"
#include "util/sha256.h"

#define DRG_M_PRIME (CUZK_GRAPH_DRG_PARENTS - 1) /* parents drawn at random */
#define FEISTEL_ROUNDS 3

static void domain_seed(const char *tag, const uint8_t porep_id[32], uint8_t out[32]) {
    struct cuzk_sha256_ctx c;
    cuzk_sha256_init(&c);
    cuzk_sha256_update(&c, tag, strlen(tag));
    cuzk_sha256_update(&c, porep_id, 32);
    cuzk_sha256_final(&c, out);
}

int cuzk_graph_init(struct cuzk_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                    enum cuzk_api api) {
    if (nodes < 2 || nodes > CUZK_GRAPH_MAX_NODES) return CUZK_EINVAL;
    if (api != CUZK_API_1_0 && api != CUZK_API_1_1 && api != CUZK_API_1_2) return CUZK_EINVAL;
    uint8_t seed[32];
    memset(g, 0, sizeof *g);
    g->nodes = nodes;
    g->api = api;
    domain_seed("Filecoin_DRSample", porep_id, seed);
    memcpy(g->drg_seed, seed, sizeof g->drg_seed);
    domain_seed("Filecoin_Feistel", porep_id, seed);
    for (int k = 0; k < FEISTEL_ROUNDS; k++) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | seed[8 * k + i];
        g->feistel_keys[k] = w;
    }
    /* halves of log4(next power of 4 >= 8 nodes) bits, at least 1 */
    const uint64_t n = nodes * CUZK_GRAPH_EXP_PARENTS;
    unsigned half = 1;
    while (((uint64_t)1 << (2 * half)) < n) half++;
    g->half_bits = half;
    g->right_mask = ((uint64_t)1 << half) - 1;
    g->left_mask = g->right_mask << half;
    return CUZK_OK;
}

/* ---- DRG ------------------------------------------------------------------------------- */

/* ceil(log2(x)) for x >= 2. Upstream computes it in f64 ((x as f64).log2().ceil()); with
 * x = 5 node < 2^35 every non-power of two lies more than 2^-36 above the power below it, far
 * more than the f64 rounding error, so the two agree on every graph. */
static unsigned ceil_log2(uint64_t x) {
    unsigned k = 0;
    while (((uint64_t)1 << k) < x) k++;
    return k;
}

void cuzk_graph_drg_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[6]) {
    if (node < 2) {
        memset(out, 0, CUZK_GRAPH_DRG_PARENTS * sizeof *out);
        return;
    }
    uint8_t seed[32];
    memcpy(seed, g->drg_seed, sizeof g->drg_seed);
    for (int i = 0; i < 4; i++) seed[28 + i] = (uint8_t)(node >> (8 * i));
    struct cuzk_chacha rng;
    cuzk_chacha_init_rng(&rng, seed, 8);

    const uint64_t meta = (uint64_t)node * DRG_M_PRIME; /* the node in the metagraph */
    const uint64_t n_buckets = ceil_log2(meta);
    /* api 1.0: the predecessor is the last parent; later ones: the first */
    const unsigned pred = g->api == CUZK_API_1_0 ? DRG_M_PRIME : 0;
    uint32_t *drawn = g->api == CUZK_API_1_0 ? out : out + 1;
    for (unsigned k = 0; k < DRG_M_PRIME; k++) {
        uint64_t bucket = cuzk_chacha_u64(&rng) % n_buckets + 1;
        uint64_t largest = (uint64_t)1 << bucket;
        if (largest > meta) largest = meta;
        uint64_t smallest = largest >> 1 < 2 ? 2 : largest >> 1;
        uint64_t distance = smallest + cuzk_chacha_u64(&rng) % (largest - smallest + 1);
        uint32_t parent = (uint32_t)((meta - distance) / DRG_M_PRIME);
        drawn[k] = parent == node ? node - 1 : parent;
    }
    out[pred] = node - 1;
}

/* ---- expander ---------------------------------------------------------------------------- */

static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t mask) {
    uint8_t data[16], h[CUZK_BLAKE2B_OUTBYTES];
    for (int i = 0; i < 8; i++) {
        data[i] = (uint8_t)(right >> (56 - 8 * i));
        data[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    cuzk_blake2b(h, sizeof h, NULL, 0, data, sizeof data);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r = r << 8 | h[i];
    return r & mask;
}

static uint64_t feistel_encode(const struct cuzk_graph *g, uint64_t index) {
    uint64_t left = (index & g->left_mask) >> g->half_bits, right = index & g->right_mask;
    for (int k = 0; k < FEISTEL_ROUNDS; k++) {
        uint64_t l = right;
        right = left ^ feistel_round(right, g->feistel_keys[k], g->right_mask);
        left = l;
    }
    return left << g->half_bits | right;
}

void cuzk_graph_exp_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[8]) {
    const uint64_t n = g->nodes * CUZK_GRAPH_EXP_PARENTS;
    for (unsigned i = 0; i < CUZK_GRAPH_EXP_PARENTS; i++) {
        uint64_t u = feistel_encode(g, (uint64_t)node * CUZK_GRAPH_EXP_PARENTS + i);
        while (u >= n) u = feistel_encode(g, u); /* cycle-walk into [0, n) */
        out[i] = g->api == CUZK_API_1_0 ? (uint32_t)u / CUZK_GRAPH_EXP_PARENTS
                                        : (uint32_t)(u / CUZK_GRAPH_EXP_PARENTS);
    }
}

void cuzk_graph_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[14]) {
    cuzk_graph_drg_parents(g, node, out);
    cuzk_graph_exp_parents(g, node, out + CUZK_GRAPH_DRG_PARENTS);
}

void cuzk_graph_cache_digest(const struct cuzk_graph *g, uint8_t out[32]) {
    struct cuzk_sha256_ctx c;
    uint32_t p[CUZK_GRAPH_PARENTS];
    uint8_t b[4 * CUZK_GRAPH_PARENTS];
    cuzk_sha256_init(&c);
    for (uint64_t v = 0; v < g->nodes; v++) {
        cuzk_graph_parents(g, (uint32_t)v, p);
        for (int i = 0; i < CUZK_GRAPH_PARENTS; i++)
            for (int j = 0; j < 4; j++) b[4 * i + j] = (uint8_t)(p[i] >> (8 * j));
        cuzk_sha256_update(&c, b, sizeof b);
    }
    cuzk_sha256_final(&c, out);
}
