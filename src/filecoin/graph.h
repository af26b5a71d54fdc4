/* The SDR graph of Filecoin's PoRep (rust-fil-proofs StackedBucketGraph): for a sector of
 * `nodes` 32-byte nodes, each node has 6 DRG parents (a bucket-sampling depth-robust graph,
 * storage-proofs-core drgraph.rs) and 8 expander parents (a Feistel permutation,
 * storage-proofs-porep graph.rs), both seeded from the proof's porep_id.
 *
 * DRG parents of node v >= 2: a ChaCha8 RNG (rand_chacha ChaCha8Rng) seeded with
 * sha256("Filecoin_DRSample" || porep_id)[0 .. 28) || v (u32 LE) draws, for each of 5 parents,
 * a bucket b = u64 % ceil(log2(5 v)) + 1, then a distance d in [max(2, min(5 v, 2^b) / 2),
 * min(5 v, 2^b)] (u64 % width); the parent is (5 v - d) / 5, or v - 1 if that is v. The sixth
 * parent is v - 1: the last one in api 1.0, the first one (the others shift up) in api 1.1
 * and later. Nodes 0 and 1 have six parents 0.
 * Expander parent i of node v: the Feistel permutation of [0, 8 nodes) applied to 8 v + i,
 * divided by 8. The permutation: 3 rounds keyed by the first 3 little-endian u64 words of
 * sha256("Filecoin_Feistel" || porep_id), halves of `half` bits each (the least even bit count
 * covering 8 nodes), round function the first 8 bytes (big-endian) of BLAKE2b-512 of
 * (right half u64 BE || key u64 BE) masked to `half` bits, cycle-walked into range. Api 1.0
 * truncates the permuted value to 32 bits before dividing (it matters from 64 GiB on).
 *
 * Parents are u32 (upstream's cache entries): nodes <= 2^32. The parent cache, as upstream
 * stores it and digests it (parent_cache.json), is every node's 14 parents (DRG then expander)
 * as u32 LE, node after node.
 * Thread-safety: a graph is read-only after init; every function is reentrant. */
#ifndef CUZK_FILECOIN_GRAPH_H
#define CUZK_FILECOIN_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#define CUZK_GRAPH_DRG_PARENTS 6
#define CUZK_GRAPH_EXP_PARENTS 8
#define CUZK_GRAPH_PARENTS 14
#define CUZK_GRAPH_MAX_NODES 0x100000000ull /* 2^32: parents are u32 */

/* rust-fil-proofs' ApiVersion. The graph is the same in 1.1 and 1.2; PoSt challenges change
 * in 1.2 (filecoin/challenges.h). */
enum cuzk_api {
    CUZK_API_1_0 = 0,
    CUZK_API_1_1 = 1,
    CUZK_API_1_2 = 2,
};

struct cuzk_graph {
    uint64_t nodes;
    enum cuzk_api api;
    uint8_t drg_seed[28];
    uint64_t feistel_keys[3];
    uint64_t left_mask, right_mask; /* the Feistel halves */
    unsigned half_bits;
};

/* The graph of a sector of `nodes` nodes (2 .. CUZK_GRAPH_MAX_NODES). Returns CUZK_OK or
 * CUZK_EINVAL (nodes out of range, an unknown api). */
int cuzk_graph_init(struct cuzk_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                    enum cuzk_api api);
/* The 6 DRG parents of node (< nodes). */
void cuzk_graph_drg_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[6]);
/* The 8 expander parents of node (< nodes). */
void cuzk_graph_exp_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[8]);
/* All 14: DRG then expander (a parent-cache entry). */
void cuzk_graph_parents(const struct cuzk_graph *g, uint32_t node, uint32_t out[14]);
/* sha256 of the parent cache (every node's 14 parents as u32 LE), as upstream's
 * parent_cache.json records it. Costs about 50 BLAKE2b compressions a node: 6 s for 8 MiB,
 * 6 minutes for 512 MiB on one core. */
void cuzk_graph_cache_digest(const struct cuzk_graph *g, uint8_t out[32]);

#endif
