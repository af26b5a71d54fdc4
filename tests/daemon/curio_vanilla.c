/* The verifier's half of the Curio conformance test (tests/daemon/curio.mjs): the vanilla bytes
 * of one request as Curio sent them, read by the readers the daemon uses and checked as
 * Filecoin's verifier derives them from the request (a C1's replica id, challenges and parents
 * from the miner and sector; the PoSt leaves from the randomness; the SnapDeals challenges from
 * comm_r_new), written as a cuzk vanilla file for `cuzk-bench verify-fc`, which checks the
 * daemon's proof against those public inputs and the key's vk on its own.
 *   curio_vanilla KIND IN OUT REGISTERED_PROOF MINER_ID SECTOR_NUMBER PARTITION RANDOMNESS
 * KIND is porep, snap, wpost or winning; IN holds the request's vanilla_proof (porep) or its
 * vanilla_proofs entries concatenated (as the daemon joins them); RANDOMNESS is 64 hex digits
 * or "-"; the numbers are the request's fields (0 = not set). Prints the public values the
 * proof is checked against, one line:
 *   porep <profile> partitions <n> replica_id <hex> comm_d <hex> comm_r <hex>
 *   snap <profile> partitions <n> comm_r_old <hex> comm_r_new <hex> comm_d_new <hex>
 *   wpost|winning <profile> partitions 1 comm_r <hex>[,<hex>...]   (one per entry, in order)
 * with field values as their 32 little-endian bytes. Exit 0, or 1 with a sentence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "filecoin/c1.h"
#include "filecoin/post_proof.h"
#include "filecoin/registered.h"
#include "filecoin/snap_proof.h"
#include "filecoin/vanilla.h"

static const char *hex_of(const cuzk_fr *x, char out[65]) {
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
    return out;
}

static int read_all(const char *path, uint8_t **out, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return CUZK_EIO;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *g = realloc(b, cap *= 2);
            if (!g) free(b);
            b = g;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return b ? CUZK_EIO : CUZK_ENOMEM;
    }
    *out = b;
    *len = n;
    return CUZK_OK;
}

static int hex32(const char *s, uint8_t out[32]) {
    if (strlen(s) != 64) return 0;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        out[i] = (uint8_t)v;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 9) {
        fprintf(stderr, "usage: curio_vanilla porep|snap|wpost|winning IN OUT REGISTERED_PROOF "
                        "MINER_ID SECTOR_NUMBER PARTITION RANDOMNESS|-\n");
        return 1;
    }
    static const char *const kinds[4] = {"porep", "snap", "wpost", "winning"};
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (!strcmp(argv[1], kinds[k])) kind = k;
    const uint64_t registered = strtoull(argv[4], NULL, 10), miner = strtoull(argv[5], NULL, 10),
                   sector = strtoull(argv[6], NULL, 10);
    const uint32_t partition = (uint32_t)strtoul(argv[7], NULL, 10);
    uint8_t rnd[32];
    const int has_rnd = strcmp(argv[8], "-") != 0;
    if (kind < 0 || (has_rnd && !hex32(argv[8], rnd))) {
        fprintf(stderr, "curio_vanilla: a kind of porep, snap, wpost, winning and a randomness "
                        "of 64 hex digits or \"-\"\n");
        return 1;
    }
    uint8_t *in = NULL;
    size_t len = 0;
    char err[512] = "", line[1024], h[3][65];
    struct cuzk_vanilla v = {0};
    struct cuzk_fc_registered reg;
    int rc = read_all(argv[2], &in, &len);
    if (rc)
        snprintf(err, sizeof err, "%s: %s", argv[2], cuzk_strerror(rc));
    else if (kind == CUZK_FC_POREP) { /* a C1, checked against the request as the daemon does */
        struct cuzk_c1 c;
        rc = cuzk_c1_parse(in, len, &c, err, sizeof err);
        if (!rc && registered && registered != c.reg.number)
            rc = cuzk_errf(err, sizeof err, CUZK_EINVAL, "registered_proof %llu, the C1's %llu",
                           (unsigned long long)registered, (unsigned long long)c.reg.number);
        if (!rc) rc = cuzk_c1_check(&c, miner, sector, err, sizeof err);
        if (!rc) {
            v = c.v; /* the partitions change hands */
            memset(&c.v, 0, sizeof c.v);
            const struct cuzk_fc_porep_vanilla *p = &v.parts[0].v.porep;
            snprintf(line, sizeof line, "porep %s partitions %u replica_id %s comm_d %s comm_r %s",
                     v.profile.name, v.n_parts, hex_of(&p->replica_id, h[0]),
                     hex_of(&p->comm_d, h[1]), hex_of(&p->comm_r, h[2]));
        }
        cuzk_c1_free(&c);
    } else if (!(rc = cuzk_fc_registered_get((enum cuzk_fc_kind)kind, registered, &reg, err,
                                             sizeof err))) {
        if (kind == CUZK_FC_SNAP) {
            rc = cuzk_snap_vanilla_of_entries(in, len, &reg, &v, err, sizeof err);
            if (!rc) {
                const struct cuzk_fc_snap_vanilla *s = &v.parts[0].v.snap;
                snprintf(line, sizeof line,
                         "snap %s partitions %u comm_r_old %s comm_r_new %s comm_d_new %s",
                         v.profile.name, v.n_parts, hex_of(&s->comm_r_old, h[0]),
                         hex_of(&s->comm_r_new, h[1]), hex_of(&s->comm_d_new, h[2]));
            }
        } else if (!has_rnd) {
            rc = cuzk_errf(err, sizeof err, CUZK_EINVAL, "PoSt needs the randomness");
        } else {
            struct cuzk_post_entries pe;
            rc = cuzk_post_entries_parse(in, len, reg.profile.tree_r_levels, reg.profile.top_arity,
                                         kind == CUZK_FC_WINNING ? 1 : reg.profile.sectors, &pe,
                                         err, sizeof err);
            if (!rc) {
                rc = cuzk_post_vanilla_of_entries(&pe, &reg, rnd, partition, &v, err, sizeof err);
                int n = snprintf(line, sizeof line, "%s %s partitions %u comm_r ", kinds[kind],
                                 v.profile.name, v.n_parts);
                for (size_t i = 0; !rc && i < pe.n && n > 0 && (size_t)n < sizeof line; i++)
                    n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", i ? "," : "",
                                  hex_of(&pe.e[i].comm_r, h[0]));
                cuzk_post_entries_free(&pe);
            }
        }
    }
    if (!rc) rc = cuzk_vanilla_write_file(&v, argv[3], err, sizeof err);
    if (!rc)
        printf("%s\n", line);
    else
        fprintf(stderr, "curio_vanilla: %s\n", err[0] ? err : cuzk_strerror(rc));
    cuzk_vanilla_free(&v);
    free(in);
    return rc ? 1 : 0;
}
