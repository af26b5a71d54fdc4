/* check-params: the preflight for real Filecoin parameters (kinds/fc_check.h), no daemon.
 *
 *   cuzk-bench check-params -t KIND (--c1 FILE | --vanilla FILE) [request fields]
 *                           [--partition N] [--cache-dir DIR] [--threads N]
 *                           [--no-subgroup-check] <.params> <.vk>
 *
 * The input is read as `single` reads it (apps/bench/request.c) and handed to the kind as the
 * daemon hands a request's vanilla proofs (server/service_request.c): the PoSt and SnapDeals
 * entries with the request's fields (--registered-proof, --randomness, --partition,
 * --sector-size, --comm-*). A C1 is proved as it is: the replica id and challenge checks
 * against a miner and sector, which the daemon makes at submission, are not this command's
 * question. Prints one line per step and the verdict:
 *   MATCH: this build's circuit <profile> matches <params> and <vk> (...)
 *   MISMATCH (header|vk|proof): <why>
 * Exit 0 match, 1 mismatch, 2 usage, 3 bad input (a file missing, damaged or not of the
 * right kind; an input the daemon would refuse; a .vk of another setup than the .params),
 * 4 internal error (memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/error.h"
#include "kinds/fc_check.h"
#include "util/pool.h"

/* The input bytes of a loaded request: vanilla_proof, or the entries one after another. */
static int input_bytes(const struct bench_input *in, uint8_t **out, size_t *len) {
    const Cuzk__V1__SubmitProofRequest *r = &in->tmpl;
    size_t n = r->vanilla_proof.len;
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) n += r->vanilla_proofs[i].len;
    if (!(*out = malloc(n ? n : 1))) return BENCH_INTERNAL;
    *len = 0;
    if (r->vanilla_proof.len) memcpy(*out, r->vanilla_proof.data, r->vanilla_proof.len);
    *len += r->vanilla_proof.len;
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) {
        if (r->vanilla_proofs[i].len)
            memcpy(*out + *len, r->vanilla_proofs[i].data, r->vanilla_proofs[i].len);
        *len += r->vanilla_proofs[i].len;
    }
    return BENCH_OK;
}

/* The request's fields (the daemon's mapping of a SubmitProofRequest, service_request.c). */
static void fc_args_of(const struct bench_args *a, const struct bench_input *in,
                       struct cuzk_fc_args *f) {
    const Cuzk__V1__SubmitProofRequest *r = &in->tmpl;
    memset(f, 0, sizeof *f);
    f->registered_proof = a->registered_proof;
    f->sector_size = a->sector_size_set ? a->sector_size : 0;
    f->sector_number = a->sector_num;
    f->miner_id = a->miner_id;
    f->partition_index = a->partition;
    f->has_randomness = r->randomness.len == 32;
    if (f->has_randomness) memcpy(f->randomness, r->randomness.data, 32);
    const struct {
        const ProtobufCBinaryData *from;
        uint8_t *to;
        uint32_t bit;
    } comm[3] = {{&r->comm_r_old, f->comm_r_old, CUZK_FC_HAS_COMM_R_OLD},
                 {&r->comm_r_new, f->comm_r_new, CUZK_FC_HAS_COMM_R_NEW},
                 {&r->comm_d_new, f->comm_d_new, CUZK_FC_HAS_COMM_D_NEW}};
    for (int i = 0; i < 3; i++)
        if (comm[i].from->len == 32) {
            memcpy(comm[i].to, comm[i].from->data, 32);
            f->has_comm |= comm[i].bit;
        }
}

int bench_cmd_check_params(const struct bench_args *a) {
    if (a->n_pos != 2) {
        fprintf(stderr, "usage: cuzk-bench check-params -t KIND (--c1 FILE | --vanilla FILE) "
                        "[request fields] [--partition N] [--cache-dir DIR] [--threads N] "
                        "[--no-subgroup-check] <.params> <.vk>\n");
        return BENCH_USAGE;
    }
    const char *params = a->pos[0], *vk = a->pos[1];
    char err[1024] = "";
    struct bench_input in;
    int code =
        bench_input_load(&in, a, a->type || !a->c1 ? NULL : "porep", NULL, NULL, err, sizeof err);
    if (code) {
        fprintf(stderr, "cuzk-bench: check-params: %s\n", err);
        bench_input_free(&in);
        return code;
    }
    struct cuzk_fc_check_opts o = {.partition = a->partition,
                                   .cache_dir = a->cache_dir,
                                   .check =
                                       a->no_subgroup ? CUZK_CHECK_NO_SUBGROUP : CUZK_CHECK_ALL,
                                   .out = stdout};
    int kind = -1;
    for (int k = CUZK_FC_POREP; k <= CUZK_FC_WINNING; k++)
        if (!strcmp(in.kind_name, cuzk_kind_fc_name((enum cuzk_fc_kind)k))) kind = k;
    if (kind < 0) {
        fprintf(stderr,
                "cuzk-bench: check-params: -t %s is not a Filecoin proof type (porep, "
                "snap, wpost, winning)\n",
                in.kind_name);
        bench_input_free(&in);
        return BENCH_USAGE;
    }
    o.kind = (enum cuzk_fc_kind)kind;
    struct cuzk_fc_args args;
    fc_args_of(a, &in, &args);
    o.args = o.kind == CUZK_FC_POREP ? NULL : &args;
    uint8_t *bytes = NULL;
    size_t len = 0;
    struct cuzk_pool *pool = NULL;
    if ((code = input_bytes(&in, &bytes, &len)) ||
        cuzk_pool_create(&pool, a->threads, "check") != CUZK_OK) {
        fprintf(stderr, "cuzk-bench: check-params: out of memory\n");
        free(bytes);
        bench_input_free(&in);
        return BENCH_INTERNAL;
    }
    o.pool = pool;
    struct cuzk_fc_check_report r;
    int rc = cuzk_fc_check_params(params, vk, bytes, len, &o, &r, err, sizeof err);
    if (rc) {
        fprintf(stderr, "cuzk-bench: check-params: %s\n", err);
        code = rc == CUZK_ENOMEM ? BENCH_INTERNAL : BENCH_ERROR;
    } else if (r.verdict == CUZK_FC_CHECK_MATCH) {
        printf("MATCH: this build's circuit %s matches %s and %s (partition %u proved with the "
               ".params and verified with the .vk)\n",
               r.profile, params, vk, r.partition);
        code = BENCH_OK;
    } else {
        printf("MISMATCH (%s): %s\n", cuzk_fc_check_name(r.verdict), r.why);
        code = BENCH_PROOF_FAILED;
    }
    cuzk_pool_destroy(pool);
    free(bytes);
    bench_input_free(&in);
    return code;
}
