/* Registered proof numbers and sector sizes to profiles (filecoin/registered.h). */
#include "filecoin/registered.h"

#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "filecoin/challenges.h"

#define N_SIZES 5
static const uint64_t sizes[N_SIZES] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
static const char *const size_names[N_SIZES] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};

const char *cuzk_fc_size_name(uint64_t sector_size) {
    for (int i = 0; i < N_SIZES; i++)
        if (sizes[i] == sector_size) return size_names[i];
    return NULL;
}

/* One family of numbers: base .. base + 4 are the five sizes in order. */
struct family {
    enum cuzk_fc_kind kind;
    unsigned base;
    const char *prefix, *suffix; /* the name is prefix <size> suffix */
    enum cuzk_api api;
    int synthetic, non_interactive;
};

static const struct family families[] = {
    {CUZK_FC_POREP, 0, "StackedDrg", "V1", CUZK_API_1_0, 0, 0},
    {CUZK_FC_POREP, 5, "StackedDrg", "V1_1", CUZK_API_1_1, 0, 0},
    {CUZK_FC_POREP, 10, "StackedDrg", "V1_1_Feat_SyntheticPoRep", CUZK_API_1_2, 1, 0},
    {CUZK_FC_POREP, 15, "StackedDrg", "V1_2_Feat_NonInteractivePoRep", CUZK_API_1_2, 0, 1},
    {CUZK_FC_SNAP, 0, "StackedDrg", "V1", CUZK_API_1_2, 0, 0},
    {CUZK_FC_WINNING, 0, "StackedDrgWinning", "V1", CUZK_API_1_0, 0, 0},
    {CUZK_FC_WPOST, 5, "StackedDrgWindow", "V1", CUZK_API_1_0, 0, 0},
    {CUZK_FC_WPOST, 10, "StackedDrgWindow", "V1_1", CUZK_API_1_2, 0, 0},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

static const char *const kind_ranges[4] = {"RegisteredSealProof 0..19",
                                           "RegisteredUpdateProof 0..4",
                                           "RegisteredPoStProof 5..14 (StackedDrgWindow*)",
                                           "RegisteredPoStProof 0..4 (StackedDrgWinning*)"};

static unsigned log_of(uint64_t x, unsigned bits) { /* log base 2^bits, or 0 if not a power */
    unsigned k = 0;
    while (x > 1 && (x & ((1ull << bits) - 1)) == 0) x >>= bits, k++;
    return x == 1 ? k : 0;
}

/* The profile of kind for sector size index si (0 .. 3; 64 GiB is not served yet). */
static int profile_for(enum cuzk_fc_kind kind, int si, struct cuzk_fc_registered *out, char *err,
                       size_t errlen) {
    const uint64_t nodes = sizes[si] / 32;
    const int big = sizes[si] >= (32ull << 30);
    struct cuzk_fc_profile *p = &out->profile;
    cuzk_fc_profile_default(kind, p);
    out->partitions = 1;
    p->tree_r_levels = log_of(nodes, 3);
    p->tree_d_levels = log_of(nodes, 1);
    switch (kind) {
    case CUZK_FC_POREP:
        p->layers = big ? 11 : 2;
        p->challenges = big ? 18 : 2;
        out->partitions = big ? 10 : 1;
        break;
    case CUZK_FC_SNAP: {
        if (cuzk_snap_profile_for(nodes, p))
            return cuzk_errf(err, errlen, CUZK_EINVAL, "no SnapDeals profile for %s",
                             size_names[si]);
        p->tree_r_levels = log_of(nodes, 3);
        out->partitions = 1u << p->partition_bits;
        break;
    }
    case CUZK_FC_WPOST:
        p->challenges = 10;
        p->sectors = big ? 2349 : 2;
        break;
    case CUZK_FC_WINNING:
        p->challenges = 1;
        p->sectors = 66;
        break;
    }
    char why[160];
    if (cuzk_fc_profile_check(p, why, sizeof why))
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "registered_proof %llu (%s): its circuit is outside cuzk's profiles (%s)",
                         (unsigned long long)out->number, out->name, why);
    return CUZK_OK;
}

int cuzk_fc_registered_get(enum cuzk_fc_kind kind, uint64_t number, struct cuzk_fc_registered *out,
                           char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if ((unsigned)kind > CUZK_FC_WINNING)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "unknown proof kind");
    for (size_t f = 0; f < N_FAMILIES; f++) {
        const struct family *fa = &families[f];
        if (fa->kind != kind || number < fa->base || number >= fa->base + N_SIZES) continue;
        const int si = (int)(number - fa->base);
        out->kind = kind;
        out->number = number;
        out->sector_size = sizes[si];
        out->api = fa->api;
        out->synthetic = fa->synthetic;
        out->non_interactive = fa->non_interactive;
        snprintf(out->name, sizeof out->name, "%s%s%s", fa->prefix, size_names[si], fa->suffix);
        if (si == N_SIZES - 1)
            return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                             "registered_proof %llu (%s): 64 GiB sectors (tree 8-8-2) are not "
                             "served yet (their registered proofs are not tied to circuits)",
                             (unsigned long long)number, out->name);
        int rc = profile_for(kind, si, out, err, errlen);
        /* non-interactive PoRep: the interactive circuit, 12.8 times its challenges (26 or
         * 2,253, rounded up to whole partitions: filecoin-proofs constants.rs) */
        if (!rc && fa->non_interactive) out->partitions = sizes[si] >= (32ull << 30) ? 126 : 13;
        return rc;
    }
    return cuzk_errf(err, errlen, CUZK_EINVAL, "registered_proof %llu is not a %s proof (%s)",
                     (unsigned long long)number,
                     kind == CUZK_FC_POREP   ? "PoRep"
                     : kind == CUZK_FC_SNAP  ? "SnapDeals"
                     : kind == CUZK_FC_WPOST ? "WindowPoSt"
                                             : "WinningPoSt",
                     kind_ranges[kind]);
}

int cuzk_fc_registered_by_name(enum cuzk_fc_kind kind, const char *name,
                               struct cuzk_fc_registered *out, char *err, size_t errlen) {
    for (size_t f = 0; f < N_FAMILIES; f++) {
        if (families[f].kind != kind) continue;
        for (unsigned si = 0; si < N_SIZES; si++) {
            char have[64];
            snprintf(have, sizeof have, "%s%s%s", families[f].prefix, size_names[si],
                     families[f].suffix);
            if (!strcmp(have, name))
                return cuzk_fc_registered_get(kind, families[f].base + si, out, err, errlen);
        }
    }
    memset(out, 0, sizeof *out);
    return cuzk_errf(err, errlen, CUZK_EINVAL, "registered proof \"%.64s\" is not one of %s", name,
                     (unsigned)kind <= CUZK_FC_WINNING ? kind_ranges[kind] : "any kind");
}

void cuzk_fc_porep_id(const struct cuzk_fc_registered *r, uint8_t out[32]) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(r->number >> (8 * i));
}

void cuzk_fc_prover_id(uint64_t miner_id, uint8_t out[32]) {
    memset(out, 0, 32);
    int i = 0;
    do {
        const uint8_t low = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = (uint8_t)(low | (miner_id ? 0x80 : 0));
    } while (miner_id);
}

int cuzk_fc_registered_for_size(enum cuzk_fc_kind kind, uint64_t sector_size,
                                struct cuzk_fc_registered *out, char *err, size_t errlen) {
    int si = -1;
    for (int i = 0; i < N_SIZES; i++)
        if (sizes[i] == sector_size) si = i;
    if (si < 0) {
        memset(out, 0, sizeof *out);
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "sector_size %llu is not a Filecoin sector size (2KiB, 8MiB, 512MiB, "
                         "32GiB, 64GiB)",
                         (unsigned long long)sector_size);
    }
    /* the newest interactive family of the kind: the last in the table */
    const struct family *best = NULL;
    for (size_t f = 0; f < N_FAMILIES; f++)
        if (families[f].kind == kind && !families[f].synthetic && !families[f].non_interactive)
            best = &families[f];
    if (!best) {
        memset(out, 0, sizeof *out);
        return cuzk_errf(err, errlen, CUZK_EINVAL, "unknown proof kind");
    }
    return cuzk_fc_registered_get(kind, best->base + (unsigned)si, out, err, errlen);
}

int cuzk_fc_profile_is_sector(const struct cuzk_fc_profile *p) {
    for (int i = 0; i < N_SIZES; i++) {
        struct cuzk_fc_registered r;
        if (!cuzk_fc_registered_for_size(p->kind, sizes[i], &r, NULL, 0) &&
            !strcmp(r.profile.name, p->name))
            return 1;
    }
    return 0;
}
