/* Proof types, priorities and the request template: reading the input files once and filling
 * a SubmitProofRequest the way cuzk's bench does (sector_size 32 GiB, priority 0 = the kind's
 * default unless --priority says otherwise). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "bench.h"
#include "cuzk/error.h"
#include "util/base64.h"
#include "util/file.h"
#include "util/rand.h"

static const struct {
    const char *name, *canonical;
    Cuzk__V1__ProofKind kind;
} kinds[] = {
    {"porep", "porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},
    {"porep-c2", "porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},
    {"seal-commit", "porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},
    {"snap", "snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
    {"snap-deals", "snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
    {"update", "snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
    {"wpost", "wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION},
    {"window-post", "wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION},
    {"windowpost", "wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION},
    {"winning", "winning", CUZK__V1__PROOF_KIND__WINNING_POST},
    {"winning-post", "winning", CUZK__V1__PROOF_KIND__WINNING_POST},
    {"winningpost", "winning", CUZK__V1__PROOF_KIND__WINNING_POST},
    {"snarkjs", "snarkjs", CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED},
    {"synthetic", "synthetic", CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED},
    {"synth", "synthetic", CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED},
};

int bench_kind_parse(const char *s, char *canonical, size_t n, Cuzk__V1__ProofKind *kind) {
    for (size_t i = 0; s && i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcasecmp(s, kinds[i].name) == 0) {
            snprintf(canonical, n, "%s", kinds[i].canonical);
            *kind = kinds[i].kind;
            return 0;
        }
    }
    return -1;
}

static const char *const priority_names[] = {"default", "low", "normal", "high", "critical"};

int bench_priority_parse(const char *s, Cuzk__V1__Priority *out) {
    if (!s || !*s) {
        *out = CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED;
        return 0;
    }
    for (int i = 0; i < 5; i++) {
        if (strcasecmp(s, priority_names[i]) == 0 || (s[0] == '0' + i && !s[1])) {
            *out = (Cuzk__V1__Priority)i;
            return 0;
        }
    }
    return -1;
}

const char *bench_priority_name(Cuzk__V1__Priority p) {
    return (int)p >= 0 && (int)p < 5 ? priority_names[p] : "?";
}

int bench_u64_arg(const char *opt, const char *v, int base, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, base);
    if (!*v || *end || errno || v[0] == '-') {
        fprintf(stderr, "cuzk-bench: %s wants a%s number, not '%s'\n", opt,
                base == 10 ? " decimal" : "", v);
        return -1;
    }
    *out = x;
    return 0;
}

void bench_uuid(char out[37]) {
    uint8_t b[16];
    if (cuzk_rand_bytes(b, sizeof b) != CUZK_OK) {
        /* The kernel refused randomness: fall back to time and address bits, still unique
         * enough for request ids within one run. */
        uint64_t t = (uint64_t)bench_now_ms() * 1000003u ^ (uint64_t)(uintptr_t)out;
        for (int i = 0; i < 16; i++) b[i] = (uint8_t)(t >> (8 * (i % 8))) ^ (uint8_t)(i * 77);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    char *p = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 15];
    }
    *p = 0;
}

static int own(struct bench_input *in, void *p) {
    if (!p) return -1;
    if (in->n_owned == (int)(sizeof in->owned / sizeof in->owned[0])) {
        free(p);
        return -1;
    }
    in->owned[in->n_owned++] = p;
    return 0;
}

int bench_read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen) {
    int rc = cuzk_file_read(path, SIZE_MAX, out, len, err, errlen);
    return rc == CUZK_OK ? BENCH_OK : rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
}

/* Exactly 2n hex digits (an optional "0x" prefix allowed) into a new buffer of n bytes. */
static int parse_hex(const char *what, const char *s, ProtobufCBinaryData *out,
                     struct bench_input *in, char *err, size_t errlen) {
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t n = strlen(s);
    if (n % 2) {
        snprintf(err, errlen, "%s: odd number of hex digits", what);
        return BENCH_USAGE;
    }
    uint8_t *b = malloc(n / 2 ? n / 2 : 1);
    if (own(in, b)) return BENCH_INTERNAL;
    for (size_t i = 0; i < n / 2; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + (size_t)k];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) {
                snprintf(err, errlen, "%s: '%c' is not a hex digit", what, c);
                return BENCH_USAGE;
            }
            v = v * 16 + d;
        }
        b[i] = (uint8_t)v;
    }
    out->data = b;
    out->len = n / 2;
    return BENCH_OK;
}

/* PoSt / SnapDeals vanilla proofs: a JSON array of base64 strings (Go's json.Marshal([][]byte)),
 * else the whole file is one raw proof (cuzk's bench does the same). */
static int load_vanilla(struct bench_input *in, const char *path, char *err, size_t errlen) {
    uint8_t *data;
    size_t len;
    int rc = bench_read_file(path, &data, &len, err, errlen);
    if (rc) return rc;
    if (own(in, data)) return BENCH_INTERNAL;
    json_error_t je;
    json_t *arr = json_loadb((const char *)data, len, 0, &je);
    if (!json_is_array(arr)) {
        json_decref(arr);
        in->tmpl.vanilla_proofs = malloc(sizeof *in->tmpl.vanilla_proofs);
        if (own(in, in->tmpl.vanilla_proofs)) return BENCH_INTERNAL;
        in->tmpl.vanilla_proofs[0] = (ProtobufCBinaryData){.len = len, .data = data};
        in->tmpl.n_vanilla_proofs = 1;
        return BENCH_OK;
    }
    size_t n = json_array_size(arr), total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!json_is_string(json_array_get(arr, i))) {
            json_decref(arr);
            snprintf(err, errlen, "%s: entry %zu of the JSON array is not a base64 string", path,
                     i);
            return BENCH_ERROR;
        }
        total += json_string_length(json_array_get(arr, i)) / 4 * 3;
    }
    ProtobufCBinaryData *v = calloc(n ? n : 1, sizeof *v);
    uint8_t *bytes = malloc(total ? total : 1);
    if (own(in, v) || own(in, bytes)) {
        json_decref(arr);
        return BENCH_INTERNAL;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(arr, i);
        long got = cuzk_base64_decode(json_string_value(s), json_string_length(s), bytes + off);
        if (got < 0) {
            json_decref(arr);
            snprintf(err, errlen, "%s: entry %zu is not valid base64", path, i);
            return BENCH_ERROR;
        }
        v[i] = (ProtobufCBinaryData){.len = (size_t)got, .data = bytes + off};
        off += (size_t)got;
    }
    json_decref(arr);
    in->tmpl.vanilla_proofs = v;
    in->tmpl.n_vanilla_proofs = n;
    return BENCH_OK;
}

/* The engine's own kinds on the wire (docs/daemon.md, "Proof kinds on the wire"): proof_kind
 * 0 and one vanilla_proofs entry "<kind>:<circuit_id>"; a snarkjs job carries its .wtns bytes
 * in vanilla_proof, a synthetic job its witness seed in sector_number. */
static int map_engine_kind(struct bench_input *in, const struct bench_args *a, const char *circuit,
                           char *err, size_t errlen) {
    int snarkjs = !strcmp(in->kind_name, "snarkjs");
    if (!circuit || !*circuit) {
        snprintf(err, errlen, "--circuit required for the %s proof type (%s)", in->kind_name,
                 snarkjs ? "a circuit id of the daemon's snarkjs.dir"
                         : "N or NxP: N constraints, P partitions");
        return BENCH_USAGE;
    }
    size_t n = strlen(in->kind_name) + 1 + strlen(circuit);
    char *sel = malloc(n + 1);
    ProtobufCBinaryData *v = malloc(sizeof *v);
    if (own(in, sel) || own(in, v)) return BENCH_INTERNAL;
    snprintf(sel, n + 1, "%s:%s", in->kind_name, circuit);
    v[0] = (ProtobufCBinaryData){.len = n, .data = (uint8_t *)sel};
    in->tmpl.vanilla_proofs = v;
    in->tmpl.n_vanilla_proofs = 1;
    if (snarkjs) {
        if (!a->witness) {
            snprintf(err, errlen, "--witness FILE.wtns required for the snarkjs proof type");
            return BENCH_USAGE;
        }
        uint8_t *data;
        size_t len;
        int rc = bench_read_file(a->witness, &data, &len, err, errlen);
        if (rc) return rc;
        if (own(in, data)) return BENCH_INTERNAL;
        in->tmpl.vanilla_proof = (ProtobufCBinaryData){.len = len, .data = data};
    } else if (a->seed_set) {
        in->tmpl.sector_number = a->seed;
    } else {
        in->random_seed = 1;
    }
    return BENCH_OK;
}

int bench_input_load(struct bench_input *in, const struct bench_args *a, const char *type,
                     const char *circuit, const char *priority, char *err, size_t errlen) {
    memset(in, 0, sizeof *in);
    cuzk__v1__submit_proof_request__init(&in->tmpl);
    type = type ? type : a->type;
    circuit = circuit && *circuit ? circuit : a->circuit;
    priority = priority && *priority ? priority : a->priority;
    if (!type) {
        snprintf(err, errlen,
                 "-t/--type is required (porep, snap, wpost, winning, snarkjs, "
                 "synthetic)");
        return BENCH_USAGE;
    }
    Cuzk__V1__ProofKind kind;
    if (bench_kind_parse(type, in->kind_name, sizeof in->kind_name, &kind)) {
        snprintf(err, errlen,
                 "unknown proof type: %s. Use: porep, snap, wpost, winning, snarkjs, synthetic",
                 type);
        return BENCH_USAGE;
    }
    snprintf(in->label, sizeof in->label, "%s", type);
    Cuzk__V1__SubmitProofRequest *r = &in->tmpl;
    if (bench_priority_parse(priority, &r->priority)) {
        snprintf(err, errlen, "unknown priority: %s. Use: low, normal, high, critical, default",
                 priority);
        return BENCH_USAGE;
    }
    r->proof_kind = kind;
    /* cuzk's bench always sends 32 GiB; with --registered and no --sector-size the daemon
     * takes the registered proof's size */
    r->sector_size = a->registered_proof && !a->sector_size_set ? 0 : a->sector_size;
    r->registered_proof = a->registered_proof;
    r->sector_number = a->sector_num;
    r->miner_id = a->miner_id;
    r->partition_index = a->partition;
    int rc;
    if (!strcmp(in->kind_name, "porep")) {
        if (!a->c1 == !a->vanilla) {
            snprintf(err, errlen, "--c1 or --vanilla (one of them) required for PoRep proof type");
            return BENCH_USAGE;
        }
        if (a->vanilla) { /* a vanilla-proof file (docs/filecoin.md), as for the other kinds */
            if ((rc = load_vanilla(in, a->vanilla, err, errlen))) return rc;
        } else {
            uint8_t *data;
            size_t len;
            if ((rc = bench_read_file(a->c1, &data, &len, err, errlen))) return rc;
            if (own(in, data)) return BENCH_INTERNAL;
            r->vanilla_proof = (ProtobufCBinaryData){.len = len, .data = data};
        }
    } else if (!strcmp(in->kind_name, "snap") || !strcmp(in->kind_name, "wpost") ||
               !strcmp(in->kind_name, "winning")) {
        if (!a->vanilla) {
            snprintf(err, errlen, "--vanilla required for PoSt/SnapDeals proof types");
            return BENCH_USAGE;
        }
        if ((rc = load_vanilla(in, a->vanilla, err, errlen))) return rc;
    } else if ((rc = map_engine_kind(in, a, circuit, err, errlen))) {
        return rc;
    }
    /* randomness defaults to 32 zero bytes, as in cuzk's bench; commitments to empty */
    if (a->randomness) {
        if ((rc = parse_hex("--randomness", a->randomness, &r->randomness, in, err, errlen)))
            return rc;
    } else {
        uint8_t *z = calloc(1, 32);
        if (own(in, z)) return BENCH_INTERNAL;
        r->randomness = (ProtobufCBinaryData){.len = 32, .data = z};
    }
    if (a->comm_r_old &&
        (rc = parse_hex("--comm-r-old", a->comm_r_old, &r->comm_r_old, in, err, errlen)))
        return rc;
    if (a->comm_r_new &&
        (rc = parse_hex("--comm-r-new", a->comm_r_new, &r->comm_r_new, in, err, errlen)))
        return rc;
    if (a->comm_d_new &&
        (rc = parse_hex("--comm-d-new", a->comm_d_new, &r->comm_d_new, in, err, errlen)))
        return rc;
    return BENCH_OK;
}

void bench_input_free(struct bench_input *in) {
    for (int i = 0; i < in->n_owned; i++) free(in->owned[i]);
    memset(in, 0, sizeof *in);
}
