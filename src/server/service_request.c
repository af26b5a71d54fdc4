/* The cuzk.v1 service's requests (service_impl.h): a SubmitProofRequest turned into an engine
 * request and submitted, and a job's result into an AwaitProofResponse. */
#define _GNU_SOURCE
#include "server/service_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "engine/kind.h"
#include "kinds/fc_kind.h"
#include "util/log.h"

/* The proto's ProofKind names (index = value), for messages; which engine kind a value selects
 * is the kind's own (struct cuzk_kind.proof_kind). */
static const char *const proof_kind_names[] = {"PROOF_KIND_UNSPECIFIED", "POREP_SEAL_COMMIT",
                                               "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION",
                                               "WINNING_POST"};

static int stopping(struct cuzk_service *s) {
    pthread_mutex_lock(&s->mu);
    int st = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return st;
}

static uint64_t ms_u64(double ms) { return ms > 0 ? (uint64_t)(ms + 0.5) : 0; }

/* ---- requests ---------------------------------------------------------------------------- */

/* An engine request built from a SubmitProofRequest; owns the strings it points to. */
struct built_request {
    struct cuzk_job_request req;
    char kind[CUZK_NAME_MAX];
    char circuit[CUZK_NAME_MAX * 2];
    uint8_t *joined;        /* Filecoin kinds: the vanilla_proofs entries concatenated */
    struct cuzk_fc_args fc; /* Filecoin kinds: the request's other fields */
};

/* The engine kind that proof_kind selects (0: none). */
static const struct cuzk_kind *kind_for(const struct cuzk_service *s, int proof_kind) {
    const struct cuzk_kind *k;
    for (size_t i = 0; (k = cuzk_engine_kind_at(s->engine, i)); i++)
        if (k->proof_kind == proof_kind) return k;
    return NULL;
}

/* Fills b from m. Returns CUZK_RPC_OK or a status with the reason in why. */
static int build_request(const struct cuzk_service *s, const Cuzk__V1__SubmitProofRequest *m,
                         struct built_request *b, char *why, size_t n) {
    memset(b, 0, sizeof *b);
    struct cuzk_job_request *r = &b->req;
    r->request_id = m->request_id;
    switch ((int)m->priority) {
    case CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED: r->priority = CUZK_PRIORITY_DEFAULT; break;
    case CUZK__V1__PRIORITY__LOW: r->priority = CUZK_PRIORITY_LOW; break;
    case CUZK__V1__PRIORITY__NORMAL: r->priority = CUZK_PRIORITY_NORMAL; break;
    case CUZK__V1__PRIORITY__HIGH: r->priority = CUZK_PRIORITY_HIGH; break;
    case CUZK__V1__PRIORITY__CRITICAL: r->priority = CUZK_PRIORITY_CRITICAL; break;
    default:
        snprintf(why, n, "invalid priority: %d", (int)m->priority);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    int pk = (int)m->proof_kind;
    if (pk == CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED) {
        /* an engine kind named directly: vanilla_proofs = ["<kind>:<circuit_id>"] */
        if (m->n_vanilla_proofs != 1) {
            snprintf(why, n,
                     "invalid proof_kind: 0 (PROOF_KIND_UNSPECIFIED needs vanilla_proofs = "
                     "[\"<kind>:<circuit_id>\"], e.g. \"snarkjs:mulchain\")");
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        const ProtobufCBinaryData *sel = &m->vanilla_proofs[0];
        const uint8_t *colon = sel->len ? memchr(sel->data, ':', sel->len) : NULL;
        size_t kl = colon ? (size_t)(colon - sel->data) : 0;
        size_t cl = colon ? sel->len - kl - 1 : 0;
        int ctl = 0;
        for (size_t i = 0; i < sel->len; i++) ctl |= sel->data[i] < 0x20 || sel->data[i] == 0x7f;
        if (!colon || kl == 0 || kl >= sizeof b->kind || cl >= sizeof b->circuit || ctl) {
            snprintf(why, n,
                     "vanilla_proofs[0] must be \"<kind>:<circuit_id>\" (kind and circuit "
                     "id under %d bytes, no control characters)",
                     CUZK_NAME_MAX);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        memcpy(b->kind, sel->data, kl);
        memcpy(b->circuit, colon + 1, cl);
        const struct cuzk_kind *named = cuzk_engine_kind(s->engine, b->kind);
        if (named && named->proof_kind > 0 &&
            named->proof_kind < (int)(sizeof proof_kind_names / sizeof proof_kind_names[0])) {
            snprintf(why, n, "kind %s is requested with proof_kind %s", b->kind,
                     proof_kind_names[named->proof_kind]);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        r->kind = b->kind;
        r->circuit_id = b->circuit;
        r->witness = m->vanilla_proof.len ? m->vanilla_proof.data : NULL;
        r->witness_len = m->vanilla_proof.len;
        r->seed = m->sector_number;
        return CUZK_RPC_OK;
    }
    if (pk < 0 || pk >= (int)(sizeof proof_kind_names / sizeof proof_kind_names[0])) {
        snprintf(why, n, "invalid proof_kind: %d", pk);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    const struct cuzk_kind *fk = kind_for(s, pk);
    if (!fk) {
        snprintf(why, n, "proof kind %s is not available in this build of cuzk",
                 proof_kind_names[pk]);
        return CUZK_RPC_UNIMPLEMENTED;
    }
    /* A Filecoin kind's input is a vanilla-proof file (kinds/fc_kind.h): vanilla_proof, or
     * the vanilla_proofs entries concatenated in order. */
    snprintf(b->kind, sizeof b->kind, "%s", fk->name);
    r->kind = b->kind;
    r->circuit_id = NULL;
    if (m->randomness.len && m->randomness.len != 32) {
        snprintf(why, n, "randomness is %zu bytes; it is 32 or absent", m->randomness.len);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    b->fc.registered_proof = m->registered_proof;
    b->fc.sector_size = m->sector_size;
    b->fc.sector_number = m->sector_number;
    b->fc.miner_id = m->miner_id;
    b->fc.partition_index = m->partition_index;
    b->fc.has_randomness = m->randomness.len == 32;
    if (b->fc.has_randomness) memcpy(b->fc.randomness, m->randomness.data, 32);
    const struct {
        const ProtobufCBinaryData *f;
        const char *name;
        uint8_t *to;
        uint32_t bit;
    } comm[3] = {{&m->comm_r_old, "comm_r_old", b->fc.comm_r_old, CUZK_FC_HAS_COMM_R_OLD},
                 {&m->comm_r_new, "comm_r_new", b->fc.comm_r_new, CUZK_FC_HAS_COMM_R_NEW},
                 {&m->comm_d_new, "comm_d_new", b->fc.comm_d_new, CUZK_FC_HAS_COMM_D_NEW}};
    for (int i = 0; i < 3; i++) {
        if (!comm[i].f->len) continue;
        if (comm[i].f->len != 32) {
            snprintf(why, n, "%s is %zu bytes; it is 32 or absent", comm[i].name, comm[i].f->len);
            return CUZK_RPC_INVALID_ARGUMENT;
        }
        memcpy(comm[i].to, comm[i].f->data, 32);
        b->fc.has_comm |= comm[i].bit;
    }
    r->kind_args = &b->fc;
    r->kind_args_len = sizeof b->fc;
    if (m->vanilla_proof.len) {
        r->witness = m->vanilla_proof.data;
        r->witness_len = m->vanilla_proof.len;
        return CUZK_RPC_OK;
    }
    size_t len = 0;
    const uint8_t *first = NULL, *next = NULL;
    int contiguous = 1; /* the entries follow one another in memory (as the decoder reads them) */
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
        const ProtobufCBinaryData *e = &m->vanilla_proofs[i];
        if (!e->len) continue;
        if (!first) first = e->data;
        contiguous &= !next || e->data == next;
        next = e->data + e->len;
        len += e->len;
    }
    if (len == 0) {
        snprintf(why, n, "%s needs vanilla_proof or vanilla_proofs", proof_kind_names[pk]);
        return CUZK_RPC_INVALID_ARGUMENT;
    }
    if (contiguous) {
        r->witness = first;
        r->witness_len = len;
        return CUZK_RPC_OK;
    }
    b->joined = malloc(len);
    if (!b->joined) {
        snprintf(why, n, "out of memory");
        return CUZK_RPC_RESOURCE_EXHAUSTED;
    }
    size_t off = 0;
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
        if (m->vanilla_proofs[i].len)
            memcpy(b->joined + off, m->vanilla_proofs[i].data, m->vanilla_proofs[i].len);
        off += m->vanilla_proofs[i].len;
    }
    r->witness = b->joined;
    r->witness_len = len;
    r->witness_owner = b->joined; /* the engine's, on every return of its submit */
    b->joined = NULL;
    return CUZK_RPC_OK;
}

/* Submits m. On CUZK_RPC_OK info is filled; else why says what is wrong. */
int cuzk_svc_submit(struct cuzk_service *s, const Cuzk__V1__SubmitProofRequest *m,
                    struct cuzk_wire_msg *wm, struct input_ticket **ticket,
                    struct cuzk_submit_info *info, char *why, size_t n) {
    if (stopping(s)) {
        snprintf(why, n, "the daemon is shutting down");
        return CUZK_RPC_UNAVAILABLE;
    }
    struct built_request b;
    int st = build_request(s, m, &b, why, n);
    if (st == CUZK_RPC_OK) {
        /* the input bytes go to the engine as they are, in the block they were read into */
        if (!b.req.witness_owner && b.req.witness && wm)
            b.req.witness_owner = cuzk_wire_msg_take(wm, b.req.witness, b.req.witness_len);
        /* the request's bytes stay counted until the engine lets go of them */
        b.req.input_done = cuzk_svc_input_done;
        b.req.input_done_arg = *ticket;
        *ticket = NULL;
        int rc = cuzk_engine_submit(s->engine, &b.req, info, why, n);
        if (rc != CUZK_OK) {
            st = cuzk_svc_status_of(rc);
            if (!why[0]) snprintf(why, n, "%s", cuzk_strerror(rc));
        }
    }
    free(b.joined);
    return st;
}

void cuzk_svc_fill_result(Cuzk__V1__AwaitProofResponse *out, const char *job_id, int rc,
                          const struct cuzk_job_result *r) {
    out->job_id = (char *)job_id;
    if (rc == CUZK_ETIMEOUT) {
        out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
        out->error_message = (char *)"timed out waiting for the proof; the job goes on";
        return;
    }
    switch (r->state) {
    case CUZK_JOB_DONE: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED; break;
    case CUZK_JOB_FAILED: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED; break;
    case CUZK_JOB_CANCELLED: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED; break;
    default: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN; break;
    }
    out->proof.data = r->proof;
    out->proof.len = r->proof_len;
    out->error_message = (char *)r->error;
    out->queue_wait_ms = ms_u64(r->timings.queue_ms);
    out->srs_load_ms = ms_u64(r->timings.srs_ms);
    out->synthesis_ms = ms_u64(r->timings.synth_ms);
    out->gpu_compute_ms = ms_u64(r->timings.gpu_ms);
    out->total_ms = ms_u64(r->timings.total_ms);
}
