/* Filecoin's registered proof numbers (filecoin-ffi's RegisteredSealProof, RegisteredPoStProof
 * and RegisteredUpdateProof, the numbers a client such as Curio sends in
 * SubmitProofRequest.registered_proof) and sector sizes, mapped to the circuit profiles of
 * circuits/filecoin.h, with the facts upstream derives from them (filecoin-proofs
 * constants.rs): the sector shape, the API version of the challenge rules, the partitions of
 * a sector.
 *
 *   kind     numbers                          sector sizes             api
 *   porep    0..4    StackedDrg<size>V1        2 KiB 8 MiB 512 MiB     1.0
 *            5..9    StackedDrg<size>V1_1        32 GiB 64 GiB          1.1
 *            10..14  V1_1_Feat_SyntheticPoRep                          1.2 (synthetic)
 *            15..19  V1_2_Feat_NonInteractivePoRep                     1.2 (non-interactive)
 *   snap     0..4    StackedDrg<size>V1 (update)                       1.2
 *   winning  0..4    StackedDrgWinning<size>V1                         1.0
 *   wpost    5..9    StackedDrgWindow<size>V1                          1.0
 *            10..14  StackedDrgWindow<size>V1_1 (filecoin-ffi's V1_1 is the proofs API's V1_2)
 *
 * The profiles (per sector size: nodes = size / 32, r = log8(nodes) 8-ary tree R/C levels,
 * d = log2(nodes) tree D levels):
 *   porep    2 KiB, 8 MiB, 512 MiB: 2 layers, 2 challenges, 1 partition; 32 GiB: 11 layers,
 *            18 challenges per partition (176 over 10 partitions, rounded up), 10 partitions;
 *            non-interactive: the same circuit, 13 partitions up to 512 MiB (26 challenges) and
 *            126 for 32 GiB (2,253 challenges, rounded up);
 *   snap     cuzk_snap_profile_for (filecoin/challenges.h);
 *   wpost    10 challenges per sector, 2 sectors per partition (2,349 for 32 GiB);
 *   winning  66 challenges of one sector, as upstream's circuit takes them: 66 sectors of
 *            one challenge.
 * 64 GiB sectors (tree 8-8-2: a binary level on top of the 8-ary ones) are not served yet
 * (their circuits are profiles, e.g. porep-c18-d31-t2, not yet tied to these numbers); their
 * numbers are known and refused with CUZK_EUNSUPPORTED and a sentence.
 * Thread-safety: pure functions over constant tables. */
#ifndef CUZK_FILECOIN_REGISTERED_H
#define CUZK_FILECOIN_REGISTERED_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/filecoin.h"
#include "filecoin/graph.h"

struct cuzk_fc_registered {
    enum cuzk_fc_kind kind;
    uint64_t number;      /* the registered proof number */
    char name[64];        /* filecoin-ffi's name, e.g. "StackedDrgWindow32GiBV1_1" */
    uint64_t sector_size; /* bytes */
    enum cuzk_api api;    /* the challenge and parent rules */
    int synthetic;        /* PoRep: synthetic challenges (V1_1_Feat_SyntheticPoRep) */
    int non_interactive;  /* PoRep: challenges from comm_r, no seed (V1_2_Feat_NonInteractive) */
    unsigned partitions;  /* PoRep, Snap: partitions of one sector; PoSt: 1 */
    struct cuzk_fc_profile profile;
};

/* The registered proof `number` of a kind. Returns CUZK_OK; CUZK_EINVAL (a number that kind
 * does not have, e.g. a RegisteredPoStProof of WindowPoSt given for WinningPoSt: the sentence
 * names it and the kind's range); CUZK_EUNSUPPORTED (a real proof with no circuit here: 64
 * GiB). */
int cuzk_fc_registered_get(enum cuzk_fc_kind kind, uint64_t number, struct cuzk_fc_registered *out,
                           char *err, size_t errlen);

/* The newest registered proof of a kind for a sector size (what a request that names only the
 * size means). Returns as cuzk_fc_registered_get, CUZK_EINVAL for a size that is not one of
 * the five. */
int cuzk_fc_registered_for_size(enum cuzk_fc_kind kind, uint64_t sector_size,
                                struct cuzk_fc_registered *out, char *err, size_t errlen);

/* The registered proof of a kind by its name (filecoin-proofs-api's variant name, as a PoRep
 * C1 output's registered_proof says it: "StackedDrg32GiBV1_1"). Returns as
 * cuzk_fc_registered_get; CUZK_EINVAL naming the kind's range for a name it does not have. */
int cuzk_fc_registered_by_name(enum cuzk_fc_kind kind, const char *name,
                               struct cuzk_fc_registered *out, char *err, size_t errlen);
/* A PoRep's porep_id (filecoin-proofs-api RegisteredSealProof::porep_id): the registered proof
 * number as u64 little-endian, then its nonce (0) as u64 little-endian, then 16 zero bytes. It
 * seeds the graph (filecoin/graph.h) and enters the replica id (filecoin/sdr.h). */
void cuzk_fc_porep_id(const struct cuzk_fc_registered *r, uint8_t out[32]);
/* A miner's prover_id: the payload of its ID address, the actor id as unsigned LEB128, then
 * zero bytes to 32 (what lotus and Curio pass as prover_id). */
void cuzk_fc_prover_id(uint64_t miner_id, uint8_t out[32]);
/* 1 when p is the profile of a registered proof of its kind for some sector size (not a test
 * profile such as porep-c9); 0 otherwise. */
int cuzk_fc_profile_is_sector(const struct cuzk_fc_profile *p);

/* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" for those sizes; NULL otherwise. */
const char *cuzk_fc_size_name(uint64_t sector_size);

#endif
