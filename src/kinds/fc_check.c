#include "kinds/fc_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "filecoin/vanilla.h"
#include "formats/bellperson.h"
#include "groth16/bpkey.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "util/clock.h"

const char *cuzk_fc_check_name(enum cuzk_fc_check c) {
    static const char *const names[] = {"match", "header", "vk", "proof"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

static void say(const struct cuzk_fc_check_opts *o, const char *fmt, ...) {
    if (!o->out) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->out, fmt, ap);
    va_end(ap);
    fputc('\n', o->out);
    fflush(o->out);
}

/* A failed check: the verdict and its sentence (the caller prints it), and its step's line.
 * Returns CUZK_OK: a verdict is not an error. */
static int verdict(const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r,
                   enum cuzk_fc_check c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    r->verdict = c;
    say(o, "%s: FAIL", cuzk_fc_check_name(c));
    return CUZK_OK;
}

/* Everything one check holds, freed by check_free. */
struct check {
    struct cuzk_kind *kind;
    void *job;
    struct cuzk_bp_params bp;
    struct cuzk_bp_vk vk;
    struct cuzk_pce pce;
    int has_pce;
    struct cuzk_groth16_keydata kd;
    struct cuzk_snarkjs_vk svk;
    cuzk_fr *w;
};

static void check_free(struct check *c) {
    free(c->w);
    cuzk_snarkjs_vk_free(&c->svk);
    cuzk_groth16_keydata_free(&c->kd);
    if (c->has_pce) cuzk_pce_free(&c->pce);
    cuzk_bp_vk_free(&c->vk);
    cuzk_bp_params_close(&c->bp);
    if (c->job) c->kind->job_free(c->kind, c->job);
    if (c->kind) c->kind->destroy(c->kind);
}

/* The input as the daemon's kind opens it: the job, its profile and the partition to prove. */
static int open_input(struct check *c, const void *input, size_t len,
                      const struct cuzk_fc_check_opts *o, struct cuzk_fc_profile *p,
                      struct cuzk_fc_check_report *r, char *err, size_t errlen) {
    if (!input || !len)
        return cuzk_errf(err, errlen, CUZK_EINVAL, "check-params: the input is empty");
    int rc = cuzk_kind_fc_create(&c->kind, o->kind, NULL, 0); /* no keys: job and witness only */
    if (rc)
        return cuzk_errf(err, errlen, rc, "check-params: kind %d: %s", (int)o->kind,
                         cuzk_strerror(rc));
    struct cuzk_job_request req = {.kind = c->kind->name,
                                   .witness = input,
                                   .witness_len = len,
                                   .kind_args = o->args,
                                   .kind_args_len = o->args ? sizeof *o->args : 0};
    char key_id[CUZK_NAME_MAX];
    if ((rc = c->kind->job_open(c->kind, &req, &c->job, &r->n_parts, key_id, err, errlen))) {
        c->job = NULL;
        return rc;
    }
    if ((rc = cuzk_fc_profile_parse(key_id, p, err, errlen))) return rc;
    snprintf(r->profile, sizeof r->profile, "%s", p->name);
    const int native = len >= 8 && !memcmp(input, CUZK_VANILLA_MAGIC, 8);
    const int post = o->kind == CUZK_FC_WPOST || o->kind == CUZK_FC_WINNING;
    r->partition = post && !native ? 0 : o->partition;
    if (r->partition >= r->n_parts)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "check-params: partition %u asked, the input holds %u partition%s",
                         r->partition, r->n_parts, r->n_parts == 1 ? "" : "s");
    say(o, "input: %s, %u partition%s; proving partition %u", p->name, r->n_parts,
        r->n_parts == 1 ? "" : "s", r->partition);
    return CUZK_OK;
}

/* The checks that need no constraint system: the .params's shape and the .vk's input count
 * against the circuit's counts, and the .vk against the .params's own. */
static int check_files(struct check *c, const char *params, const char *vk,
                       const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r,
                       char *err, size_t errlen) {
    const struct cuzk_builder_counts *n = &r->counts;
    const uint64_t n_public = n->n_inputs - 1, n_vars = n->n_inputs + n->n_aux;
    int rc = cuzk_bp_params_open(&c->bp, params, CUZK_CHECK_ALL, err, errlen);
    if (rc) return rc;
    const uint32_t *k = c->bp.count;
    char why[512];
    if (cuzk_bpkey_check_shape(&c->bp, (uint32_t)n_vars, (uint32_t)n_public, r->domain, why,
                               sizeof why))
        return verdict(o, r, CUZK_FC_CHECK_HEADER,
                       "%s is not a parameter file of this build's circuit %s (%s): parameters "
                       "of another circuit or sector size",
                       params, r->profile, why);
    say(o, "header: ok: ic %u, l %u, h %u (%s basis) fit the circuit", c->bp.vk.n_ic, k[CUZK_BP_L],
        k[CUZK_BP_H],
        cuzk_bpkey_h_basis(k[CUZK_BP_H], r->domain) == CUZK_H_COEFF ? "bellperson's" : "snarkjs's");
    if ((rc = cuzk_bp_vk_read_file(&c->vk, vk, CUZK_CHECK_ALL, err, errlen))) return rc;
    if (c->vk.n_ic != n_public + 1)
        return verdict(o, r, CUZK_FC_CHECK_VK,
                       "%s holds %u ic points; this build's circuit %s has %llu public inputs "
                       "and ONE: a verifying key of another circuit",
                       vk, c->vk.n_ic, r->profile, (unsigned long long)n_public);
    const char *diff = cuzk_bp_vk_diff(&c->bp.vk, &c->vk);
    if (diff)
        return cuzk_errf(err, errlen, CUZK_EINVAL,
                         "check-params: %s is not the verifying key inside %s (their %s "
                         "differs): the two files come from different setups; give the .vk "
                         "that was made with the .params",
                         vk, params, diff);
    say(o, "vk: ok: ic %u, the verifying key inside the .params", c->vk.n_ic);
    return CUZK_OK;
}

/* The circuit's system, the rest of the header check, and the key's points. */
static int load_key(struct check *c, const struct cuzk_fc_profile *p, const char *params,
                    const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r, char *err,
                    size_t errlen) {
    double t0 = cuzk_clock_ms();
    int loaded = 0;
    int rc = cuzk_pce_get(o->cache_dir, p, &c->pce, &loaded, err, errlen);
    if (rc) return rc;
    c->has_pce = 1;
    say(o, "circuit: system %s in %.0f ms", loaded ? "loaded" : "recorded", cuzk_clock_ms() - t0);
    char why[512];
    rc = cuzk_bpkey_check_system(&c->bp, &c->pce.cs, why, sizeof why);
    if (rc == CUZK_EFORMAT)
        return verdict(o, r, CUZK_FC_CHECK_HEADER,
                       "%s is not a parameter file of this build's circuit %s (%s): parameters "
                       "of another circuit",
                       params, r->profile, why);
    if (rc) return cuzk_errf(err, errlen, rc, "check-params: %s", why);
    const uint32_t *k = c->bp.count;
    say(o, "header: ok: a %u, b_g1 %u, b_g2 %u fit the circuit's density", k[CUZK_BP_A],
        k[CUZK_BP_B_G1], k[CUZK_BP_B_G2]);
    t0 = cuzk_clock_ms();
    if ((rc = cuzk_bpkey_read(&c->kd, &c->bp, &c->pce.cs, c->pce.checksum, o->check, o->pool, err,
                              errlen)))
        return rc;
    say(o, "key: decoded in %.0f ms (every point on the curve%s)", cuzk_clock_ms() - t0,
        o->check == CUZK_CHECK_ALL ? " and in the subgroup" : "; the subgroup not checked");
    return CUZK_OK;
}

/* One partition's witness, proved with the .params and checked with the .vk. */
static int prove(struct check *c, const char *params, const char *vk,
                 const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r, char *err,
                 size_t errlen) {
    struct cuzk_kind_key key;
    memset(&key, 0, sizeof key);
    int rc = cuzk_groth16_pk_from_keydata(&key.pk, &c->kd, &c->pce.cs, NULL);
    if (rc)
        return cuzk_errf(err, errlen, rc, "check-params: the key of %s does not fit %s's system",
                         params, r->profile);
    const size_t n_vars = key.pk.n_vars;
    if (!(c->w = malloc(n_vars * sizeof *c->w))) return CUZK_ENOMEM;
    double t0 = cuzk_clock_ms();
    /* key.priv NULL: the kind's own satisfaction check is done here, on the same system */
    if ((rc = c->kind->synthesize(c->kind, c->job, &key, r->partition, o->pool, c->w, err, errlen)))
        return rc;
    size_t bad = 0;
    int ok = cuzk_cs_is_satisfied(o->pool, &c->pce.cs, c->w, &bad);
    if (ok != 1)
        return cuzk_errf(err, errlen, ok < 0 ? ok : CUZK_EFORMAT,
                         "check-params: the witness of partition %u fails constraint %zu of %s",
                         r->partition, bad, r->profile);
    say(o, "witness: partition %u in %.0f ms, satisfies the circuit", r->partition,
        cuzk_clock_ms() - t0);
    t0 = cuzk_clock_ms();
    struct cuzk_backend be;
    struct cuzk_snarkjs_proof proof;
    cuzk_cpu_backend_init(&be, o->pool);
    if ((rc = cuzk_groth16_prove(&be, &key.pk, c->w, n_vars, o->rng, NULL, &proof, NULL, err,
                                 errlen)))
        return rc;
    double t1 = cuzk_clock_ms();
    if ((rc = cuzk_bpkey_vk(&c->svk, &c->vk))) return rc;
    ok = cuzk_groth16_verify(&c->svk, c->w + 1, key.pk.n_public, &proof);
    if (ok < 0) return cuzk_errf(err, errlen, ok, "check-params: verify: %s", cuzk_strerror(ok));
    if (!ok)
        return verdict(o, r, CUZK_FC_CHECK_PROOF,
                       "every count fits, but a proof of %s partition %u made with %s does not "
                       "verify against %s: this build's circuit orders (or constrains) its "
                       "variables differently from the circuit these parameters were made for",
                       r->profile, r->partition, params, vk);
    say(o, "proof: ok: proved in %.0f ms on the CPU, verified against the .vk in %.0f ms", t1 - t0,
        cuzk_clock_ms() - t1);
    return CUZK_OK;
}

int cuzk_fc_check_params(const char *params, const char *vk, const void *input, size_t input_len,
                         const struct cuzk_fc_check_opts *o, struct cuzk_fc_check_report *r,
                         char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    if (err && errlen) err[0] = 0;
    struct check c;
    memset(&c, 0, sizeof c);
    struct cuzk_fc_profile p;
    int rc = open_input(&c, input, input_len, o, &p, r, err, errlen);
    if (!rc) rc = cuzk_pce_counts(o->cache_dir, &p, &r->counts, err, errlen);
    if (!rc) {
        const struct cuzk_builder_counts *n = &r->counts;
        r->domain = cuzk_groth16_domain_for(n->constraints, n->n_inputs - 1);
        if (!r->domain || n->n_inputs + n->n_aux > UINT32_MAX)
            rc = cuzk_errf(err, errlen, CUZK_ERANGE, "check-params: %s is too large for a key",
                           p.name);
    }
    if (!rc) {
        const struct cuzk_builder_counts *n = &r->counts;
        say(o,
            "circuit: %s: %llu constraints, %llu public inputs and ONE, %llu aux wires, "
            "domain %u",
            p.name, (unsigned long long)n->constraints, (unsigned long long)(n->n_inputs - 1),
            (unsigned long long)n->n_aux, r->domain);
        rc = check_files(&c, params, vk, o, r, err, errlen);
    }
    if (!rc && r->verdict == CUZK_FC_CHECK_MATCH) rc = load_key(&c, &p, params, o, r, err, errlen);
    if (!rc && r->verdict == CUZK_FC_CHECK_MATCH) rc = prove(&c, params, vk, o, r, err, errlen);
    if (rc && err && errlen && !err[0])
        snprintf(err, errlen, "check-params: %s", cuzk_strerror(rc));
    check_free(&c);
    return rc;
}
