/* The preflight for real Filecoin parameters: does this build's circuit of a proof kind match a
 * bellperson parameter file (.params) and its verifying key (.vk), such as paramfetch
 * downloads? cuzk rebuilds Filecoin's circuits gadget by gadget (circuits/filecoin.h). The
 * counts of its constraint system can be compared with a parameter file's, but whether its
 * variables come in the order of bellperson's circuit only a proof can tell: a key's points
 * belong to wires by position, so a proof made with the real parameters from a witness in
 * another order does not verify. Without this check an operator who points the daemon at the
 * real files would only see every proof fail its self-check.
 *
 * cuzk_fc_check_params runs these checks in this order; the first that fails is the verdict:
 *   header  the .params's counts against the circuit's: ic = public inputs + ONE, l = aux
 *           wires, h = the domain less one (or the domain: snarkjs's basis, groth16/bpkey.h),
 *           then a, b_g1 and b_g2 against the wires with a non-empty A and B column
 *           (cuzk_bpkey_check_shape, cuzk_bpkey_check_system): parameters of another circuit,
 *           or of another sector size;
 *   vk      the .vk's ic count against the circuit's public inputs: a verifying key of
 *           another circuit;
 *   proof   one partition of the input proved with the .params on the CPU backend and checked
 *           with the .vk against the witness's public inputs (what the daemon's self-check
 *           does): the pairing check fails when the circuit's variables, or its constraints,
 *           differ from those of the circuit the parameters were made for.
 * What is not a verdict on the circuit is an error: an input the daemon would refuse (parsed
 * and checked by the kind's own job_open and synthesize, kinds/fc_kind.h, so a C1, PoSt or
 * SnapDeals entries with the request's fields in args, or a cuzk vanilla file), a file that is
 * not a parameter file or verifying key (formats/bellperson.h: truncated, trailing bytes,
 * points off the curve or outside the group), and a .vk that is not
 * the verifying key inside the .params (two files of different setups: which one the circuit
 * fails to match cannot be said).
 *
 * Cost: the circuit's counts first (a COUNT pass, or the header of the PCE file in cache_dir);
 * the constraint system (recorded, or loaded from cache_dir) and the key's points only when
 * header and vk fit. Then one partition's witness and one CPU proof, with the whole key and
 * system in host memory: seconds for the 2 KiB circuits, hours and tens of GB for 32 GiB ones.
 * Thread-safety: reentrant; runs its work on the pool. */
#ifndef CUZK_KINDS_FC_CHECK_H
#define CUZK_KINDS_FC_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "circuits/builder.h"
#include "ec/encode.h"
#include "kinds/fc_kind.h"

struct cuzk_pool;
struct cuzk_rng;

/* The verdict: a match, or the first check that failed. */
enum cuzk_fc_check {
    CUZK_FC_CHECK_MATCH = 0,
    CUZK_FC_CHECK_HEADER,
    CUZK_FC_CHECK_VK,
    CUZK_FC_CHECK_PROOF,
};

/* "match", "header", "vk", "proof"; "?" otherwise. */
const char *cuzk_fc_check_name(enum cuzk_fc_check c);

struct cuzk_fc_check_opts {
    enum cuzk_fc_kind kind;
    /* the request's fields as the daemon takes them (struct cuzk_fc_args), or NULL: PoSt and
     * SnapDeals entries need them (registered proof, randomness, partition index); a C1 given
     * them is checked against the miner and sector as at submission */
    const struct cuzk_fc_args *args;
    /* the partition to prove, of the input's; PoSt entries hold one partition (the one
     * args->partition_index names), which is proved whatever this says */
    uint32_t partition;
    const char *cache_dir; /* a PCE cache (filecoin/pce.h) to load the system from and save
                              it to, e.g. the daemon's srs.param_cache; NULL: in memory only */
    /* the check of the key's query points: CUZK_CHECK_ALL (0), or CUZK_CHECK_NO_SUBGROUP for
     * files whose integrity is known otherwise (their digests checked against Filecoin's
     * parameters.json): the subgroup check is most of the load's time. The verifying keys'
     * points are always checked whole. */
    enum cuzk_point_check check;
    struct cuzk_pool *pool;
    struct cuzk_rng *rng; /* the proof's blinding (tests); NULL: the kernel's randomness */
    FILE *out;            /* one line per step as it ends ("header: ok: ..."), or NULL */
};

struct cuzk_fc_check_report {
    enum cuzk_fc_check verdict;
    char why[1024]; /* a mismatch: the sentence naming the check and what failed */
    char profile[64];
    uint32_t n_parts, partition; /* the input's partitions, the one proved */
    struct cuzk_builder_counts counts;
    uint32_t domain;
};

/* Runs the checks above for the input bytes (a C1, entries or a vanilla file, as a request's
 * vanilla proofs) against the files at params and vk. Returns CUZK_OK with the verdict in *r
 * (zeroed first), or an error with a sentence in err: the input's error (CUZK_EFORMAT,
 * CUZK_EINVAL, ...), a file's (CUZK_EIO, CUZK_EFORMAT, a point decoder's code), CUZK_EINVAL
 * for a .vk that is not the .params's own, CUZK_ENOMEM. */
int cuzk_fc_check_params(const char *params, const char *vk, const void *input, size_t input_len,
                         const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r,
                         char *err, size_t errlen);

#endif
