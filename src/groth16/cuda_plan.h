/* The residency plan of a proving key on one device: which of its point queries stay in device
 * memory and which stay in page-locked host memory and reach the device in slices while their
 * MSMs run (streamed), and how large the device's MSM context is. The CUDA backend makes one
 * for each key it uploads, from its device budget, and charges the budget what the plan says.
 *
 * Promise: cuzk_cuda_plan_make is a pure function of the sizes it is given (no device, no
 * allocation), so every rule below is tested on machines without a GPU (tests/test_cuda_plan.c).
 * The rules, in order:
 *   1. everything resident with an MSM context for the key's largest query (today's layout, the
 *      fastest: the backend may then add its optional tables, folds and the presum space);
 *   2. everything resident with a smaller context, its MSMs run in slices of its size;
 *   3. a smaller context, a streamer (two staging buffers of a slice each) and the fewest bytes
 *      of queries streamed: H first (its scalars are dense, so its MSM's arithmetic, not the
 *      link, sets the pace), then the smallest query that covers what is left, else the largest
 *      and again. Among the slice sizes, the plan that streams the fewest bytes wins, and among
 *      equals the largest slice;
 *   4. as 3 (or with nothing streamed, when that fits), with the lean work space (lean_save
 *      bytes smaller: one witness slot, the gathered scalars in C's room, the NTT's twiddle
 *      table rebuilt in the witness's room each proof, h's transforms after the witness MSMs
 *      instead of beside them), for cards that hold no other layout;
 *   5. as 4 with the key's A/B rows (rows of fixed) left in host memory: the SpMV a = A w,
 *      b = B w runs on the CPU and a, b are uploaded (host_rows);
 *   6. as 5 with the tight work space (tight_save bytes smaller again: three rooms A, B, W;
 *      the NTT's scratch lent by B, C and the gathered scalars in B's room; the CPU also makes
 *      c = a o b, and c, a and b cross the link one after the other, c's and a's transforms
 *      read back into host memory), for 16 GiB cards (tight). Rules 2 to 5 choose among the
 *      CUZK_CUDA_PLAN_SLICES_MAIN largest slices; rule 6 also among the smaller ones after them
 *      (a 2^27 MSM in 32 to 128 slices), so that a 16 GB card's budget (about 14 GiB once the
 *      CUDA context is left out) holds porep-c18.
 * A key that fits none of these (its rows, wire lists and work space alone exceed the budget)
 * is refused: CUZK_EUNSUPPORTED with the sizes in a sentence.
 *
 * Thread-safety: none needed (pure functions). */
#ifndef CUZK_GROTH16_CUDA_PLAN_H
#define CUZK_GROTH16_CUDA_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* A key's point queries (the bit of each in a plan's `streamed`). */
enum cuzk_cuda_query {
    CUZK_CUDA_Q_A = 0,
    CUZK_CUDA_Q_B1 = 1,
    CUZK_CUDA_Q_B2 = 2,
    CUZK_CUDA_Q_C = 3,
    CUZK_CUDA_Q_H = 4,
    CUZK_CUDA_Q_N = 5
};

/* The device memory a default budget (gpus.vram_budget = "auto") leaves out for the CUDA
 * context, the kernels' local memory (reserved per multiprocessor: about 0.9 GB on an H100) and
 * the driver's own allocations: an eighth of the card, at least 2 GiB and at most 3 GiB (2 GiB
 * on a 16 GB card, whose default budget then holds porep-c18's tight plan). */
#define CUZK_CUDA_VRAM_RESERVE_MIN ((uint64_t)2 << 30)
#define CUZK_CUDA_VRAM_RESERVE_MAX ((uint64_t)3 << 30)
uint64_t cuzk_cuda_vram_reserve(uint64_t total);

#define CUZK_CUDA_PLAN_SLICES 7      /* candidate slice sizes at most */
#define CUZK_CUDA_PLAN_SLICES_MAIN 4 /* the largest ones, which rules 2 to 5 choose among */

/* What a plan is made from: the device's budget and the byte counts of every candidate layout,
 * as the backend's sizing functions give them. */
struct cuzk_cuda_plan_sizes {
    uint64_t budget;               /* the device's budget (gpus.vram_budget) */
    uint64_t query[CUZK_CUDA_Q_N]; /* device bytes of each query's bases (0: none) */
    uint64_t fixed;                /* key bytes that are always resident: rows, wire lists */
    uint64_t rows;                 /* the A/B rows' share of fixed (0: rule 5 off) */
    size_t msm_n;                  /* the key's largest MSM: max(domain, witness values) */
    uint64_t work_full;            /* the work space with a context of msm_n points */
    unsigned n_slices;             /* candidate slices (0..CUZK_CUDA_PLAN_SLICES) */
    size_t slice_n[CUZK_CUDA_PLAN_SLICES];      /* their points, each below msm_n */
    uint64_t work_slice[CUZK_CUDA_PLAN_SLICES]; /* the work space with a context of slice_n */
    uint64_t stage[CUZK_CUDA_PLAN_SLICES];      /* a streamer's bytes for that slice */
    uint64_t lean_save;  /* what the lean work space saves on any of those (0: none, rule 4 off) */
    uint64_t tight_save; /* what the tight one saves beyond lean_save (0: none, rule 6 off) */
};

struct cuzk_cuda_plan {
    size_t msm_max;      /* the MSM context's points: msm_n, or a slice */
    int sliced;          /* msm_max < msm_n: the MSMs run in slices of msm_max points */
    unsigned streamed;   /* bit q set: query q stays in pinned host memory (streamed) */
    uint64_t device_key; /* the key's bytes in device memory under the plan */
    uint64_t host_key;   /* its bytes in pinned host memory (the streamed queries) */
    uint64_t work;       /* the work space it needs, the streamer's buffers included */
    uint64_t stage;      /* the streamer's share of work (0 when nothing is streamed) */
    int lean;            /* the lean work space (rules 4 and 5) */
    int host_rows;       /* the rows stay in host memory, the SpMV runs on the CPU (rules 5, 6) */
    int tight;           /* the tight work space (rule 6) */
};

/* *out = the plan for in (rules above). CUZK_OK, CUZK_EINVAL (NULL, or n_slices above the
 * maximum), or CUZK_EUNSUPPORTED with err naming the sizes ("the key's rows and wire lists take
 * ... bytes and its smallest work space ...; the budget of ... cannot hold them"). */
int cuzk_cuda_plan_make(const struct cuzk_cuda_plan_sizes *in, struct cuzk_cuda_plan *out,
                        char *err, size_t errlen);

/* One line for logs and status: "resident A B1 B2 C; streamed H (12.0 GiB of host memory); MSMs
 * in slices of 2^24 points[; lean work space | tight work space][; rows in host memory]; device
 * 61.2 GiB of 76.6". */
void cuzk_cuda_plan_describe(const struct cuzk_cuda_plan *p, uint64_t budget, char *buf,
                             size_t len);

/* One line of the sizes a plan was made from, in bytes, so that the plan for any other budget can
 * be made from a log: "A=... B1=... B2=... C=... H=... fixed=... msm_n=... work_full=...
 * lean=... tight=... rows=... slices=2^26:WORK+STAGE,...". */
void cuzk_cuda_plan_sizes_describe(const struct cuzk_cuda_plan_sizes *s, char *buf, size_t len);

/* Reads such a line back (from its "A=" on; a "budget=" before it sets budget, else 0; no
 * "lean=", "tight=" or "rows=", as in lines logged before they existed: 0). CUZK_OK,
 * or CUZK_EFORMAT when a field is missing or malformed (CUZK_EINVAL for NULL). */
int cuzk_cuda_plan_sizes_parse(const char *line, struct cuzk_cuda_plan_sizes *s);

/* The query's name: "A", "B1", "B2", "C", "H" ("?" out of range). */
const char *cuzk_cuda_query_name(enum cuzk_cuda_query q);

#endif
