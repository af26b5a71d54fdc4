/* The engine's seams, each exercised for real on the CPU backend: the dispatcher does not wait
 * for a key that is being set up (a CRITICAL job with a loaded key starts within 100 ms while
 * a LOW job's key load is held at a gate, and while a real key set-up runs); a job that could
 * never fit the budget and inputs that do not fit it now are refused at submit, and the jobs
 * behind them run (no stall); a wrong proof is caught by the self-check and retried once, then
 * fails its job, and an engine without the self-check says so in its log; the SRS manager
 * evicts idle keys and, under memory pressure, the least recently used one, and a failed load
 * leaves no entry; a key held by the devices only (a backend with key_upload) is charged its
 * hot_keep bytes, not the whole key, and the host copies its devices keep (key_host) besides,
 * before the upload; and a key no device can hold even alone fails its jobs without evicting
 * the key the device holds. Every case is written so that it fails when the
 * behaviour is absent: the gates stay closed until the job that must not wait is done. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "engine/kind.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "kinds/synthetic.h"
#include "util/log.h"
#include "engine_harness.h"
#include "test_util.h"

/* Sanitizer builds set keys up about ten times slower: the real set-up of case 1 uses a
 * smaller circuit there (it still takes seconds; SANITIZED from test_util.h). */

#define MiB ((uint64_t)1 << 20)
#define START_BOUND_MS 100.0                     /* the acceptance bound of case 1 */
#define BIG_SETUP (SANITIZED ? "1024" : "16384") /* a real key set-up of seconds */

static struct cuzk_pool *pool;
static struct cuzk_backend cpu;
static struct cuzk_kinds *sizes_ks; /* the kinds, for key_sizes before an engine exists */

static struct cuzk_job_request req(const char *kind, const char *circuit, uint64_t seed, int prio,
                                   const char *rid) {
    struct cuzk_job_request r = {
        .kind = kind, .circuit_id = circuit, .request_id = rid, .priority = prio, .seed = seed};
    return r;
}

/* The gRPC status a code maps to (the error list's last column). */
static const char *grpc_name(int err) {
    switch (err) {
#define GRPC_CASE_(name, value, text, grpc)                                                        \
    case name: return #grpc;
        CUZK_ERRORS(GRPC_CASE_)
#undef GRPC_CASE_
    default: return "?";
    }
}

/* ---- status helpers ---- */

static const struct cuzk_status_srs *srs_find(const struct cuzk_engine_status *st, const char *kind,
                                              const char *id) {
    for (size_t i = 0; i < st->n_srs; i++)
        if (!strcmp(st->srs[i].kind, kind) && !strcmp(st->srs[i].circuit_id, id))
            return &st->srs[i];
    return NULL;
}

/* 1: (kind, id) is in the SRS table and loaded; 0: absent or loading; -1: no status. */
static int srs_loaded(struct cuzk_engine *e, const char *kind, const char *id) {
    struct cuzk_engine_status st;
    if (cuzk_engine_status(e, &st)) return -1;
    const struct cuzk_status_srs *s = srs_find(&st, kind, id);
    int r = s && s->tier != CUZK_SRS_COLD;
    cuzk_engine_status_free(&st);
    return r;
}

static uint64_t mem_owner(struct cuzk_engine *e, enum cuzk_mem_owner o) {
    struct cuzk_engine_status st;
    if (cuzk_engine_status(e, &st)) return UINT64_MAX;
    uint64_t b = st.memory.by_owner[o];
    cuzk_engine_status_free(&st);
    return b;
}

/* Waits (timeout_ms at most) until srs_loaded(kind, id) == want; returns 1 when it is. */
static int wait_srs(struct cuzk_engine *e, const char *kind, const char *id, int want,
                    double timeout_ms) {
    for (double t0 = harness_ms(); harness_ms() - t0 < timeout_ms; harness_sleep_ms(10))
        if (srs_loaded(e, kind, id) == want) return 1;
    return srs_loaded(e, kind, id) == want;
}

/* Waits until a key loader works on key_id (its status job_id); returns 1 when one does. */
static int wait_loader_busy(struct cuzk_engine *e, const char *key_id, double timeout_ms) {
    for (double t0 = harness_ms(); harness_ms() - t0 < timeout_ms; harness_sleep_ms(5)) {
        struct cuzk_engine_status st;
        if (cuzk_engine_status(e, &st)) return 0;
        int busy = 0;
        for (size_t i = 0; i < st.n_workers; i++)
            if (st.workers[i].device == -2 && st.workers[i].busy &&
                !strcmp(st.workers[i].job_id, key_id))
                busy = 1;
        cuzk_engine_status_free(&st);
        if (busy) return 1;
    }
    return 0;
}

/* ---- a trace capture that also stamps each job's first SYNTH_START (wall clock) ---- */

struct stamps {
    struct trace_cap t;
    pthread_mutex_t mu;
    struct {
        char job[CUZK_JOB_ID_MAX];
        double ms;
    } first[64];
    int n;
};

static void stamps_init(struct stamps *s) {
    memset(s, 0, sizeof *s);
    trace_cap_init(&s->t);
    pthread_mutex_init(&s->mu, NULL);
}

static void stamps_free(struct stamps *s) {
    trace_cap_free(&s->t);
    pthread_mutex_destroy(&s->mu);
}

/* TIMELINE,<t>,SYNTH_START,<job>,partition=P: the job's first one gets the time it arrived */
static void stamps_fn(void *ctx, const char *line) {
    struct stamps *s = ctx;
    double now = harness_ms();
    trace_cap_fn(&s->t, line);
    const char *ev = strstr(line, ",SYNTH_START,");
    if (!ev || strncmp(line, "TIMELINE,", 9)) return;
    const char *job = ev + strlen(",SYNTH_START,"), *end = strchr(job, ',');
    size_t n = end ? (size_t)(end - job) : strlen(job);
    if (n >= CUZK_JOB_ID_MAX) return;
    pthread_mutex_lock(&s->mu);
    int known = 0;
    for (int i = 0; i < s->n && !known; i++)
        known = strlen(s->first[i].job) == n && !strncmp(s->first[i].job, job, n);
    if (!known && s->n < 64) {
        memcpy(s->first[s->n].job, job, n);
        s->first[s->n].job[n] = 0;
        s->first[s->n++].ms = now;
    }
    pthread_mutex_unlock(&s->mu);
}

/* The wall-clock time of job's first SYNTH_START, waiting timeout_ms at most; -1 if none. */
static double stamp_wait(struct stamps *s, const char *job, double timeout_ms) {
    for (double t0 = harness_ms();; harness_sleep_ms(1)) {
        double found = -1;
        pthread_mutex_lock(&s->mu);
        for (int i = 0; i < s->n; i++)
            if (!strcmp(s->first[i].job, job)) found = s->first[i].ms;
        pthread_mutex_unlock(&s->mu);
        if (found >= 0 || harness_ms() - t0 > timeout_ms) return found;
    }
}

/* ---- a kind whose key loads wait at a gate and fail on demand ---- */

/* "gated": the synthetic kind (same circuits, same key cache) whose key_load first waits while
 * the gate is closed, then fails `fail` times with CUZK_EIO. */
struct gkind {
    struct cuzk_kind k;
    const struct cuzk_kind *in;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int closed, in_load, fail;
    atomic_int loads;
};

#define GK(k) ((struct gkind *)(k)->ctx)

static int gk_job_open(const struct cuzk_kind *k, const struct cuzk_job_request *r, void **job,
                       uint32_t *n, char key_id[CUZK_NAME_MAX], char *err, size_t errlen) {
    return GK(k)->in->job_open(GK(k)->in, r, job, n, key_id, err, errlen);
}
static void gk_job_free(const struct cuzk_kind *k, void *job) {
    GK(k)->in->job_free(GK(k)->in, job);
}
static int gk_key_of(const struct cuzk_kind *k, const char *circuit, char key_id[CUZK_NAME_MAX],
                     char *err, size_t errlen) {
    return GK(k)->in->key_of(GK(k)->in, circuit, key_id, err, errlen);
}
static int gk_key_sizes(const struct cuzk_kind *k, const char *key_id, struct cuzk_kind_sizes *out,
                        char *err, size_t errlen) {
    return GK(k)->in->key_sizes(GK(k)->in, key_id, out, err, errlen);
}
static int gk_key_load(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *p,
                       const struct cuzk_kind_load_opts *opts, struct cuzk_kind_key *out, char *err,
                       size_t errlen) {
    struct gkind *g = GK(k);
    pthread_mutex_lock(&g->mu);
    g->in_load++;
    pthread_cond_broadcast(&g->cv);
    while (g->closed) pthread_cond_wait(&g->cv, &g->mu);
    g->in_load--;
    int fail = g->fail > 0;
    if (fail) g->fail--;
    pthread_mutex_unlock(&g->mu);
    atomic_fetch_add(&g->loads, 1);
    if (fail) {
        snprintf(err, errlen, "gated: an injected failure loading key %s", key_id);
        return CUZK_EIO;
    }
    return g->in->key_load(g->in, key_id, p, opts, out, err, errlen);
}
static void gk_key_free(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    GK(k)->in->key_free(GK(k)->in, key);
}
static void gk_key_trim(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    GK(k)->in->key_trim(GK(k)->in, key);
}
static int gk_synthesize(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                         uint32_t part, struct cuzk_pool *p, cuzk_fr *w, char *err, size_t errlen) {
    return GK(k)->in->synthesize(GK(k)->in, job, key, part, p, w, err, errlen);
}

static void gkind_init(struct gkind *g, const struct cuzk_kind *synthetic) {
    memset(g, 0, sizeof *g);
    g->in = synthetic;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    /* the synthetic kind has key_of and key_trim, and no verify; its key_corrupt is left out */
    g->k = (struct cuzk_kind){.name = "gated",
                              .default_priority = synthetic->default_priority,
                              .ctx = g,
                              .job_open = gk_job_open,
                              .job_free = gk_job_free,
                              .key_of = gk_key_of,
                              .key_sizes = gk_key_sizes,
                              .key_load = gk_key_load,
                              .key_free = gk_key_free,
                              .key_trim = gk_key_trim,
                              .synthesize = gk_synthesize};
}

static void gkind_gate(struct gkind *g, int closed) {
    pthread_mutex_lock(&g->mu);
    g->closed = closed;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void gkind_fail(struct gkind *g, int times) {
    pthread_mutex_lock(&g->mu);
    g->fail = times;
    pthread_mutex_unlock(&g->mu);
}

/* Waits until n key loads wait at the gate (10 s at most); returns 1 when they do. */
static int gkind_wait_in_load(struct gkind *g, int n) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    pthread_mutex_lock(&g->mu);
    int rc = 0;
    while (g->in_load < n && rc == 0) rc = pthread_cond_timedwait(&g->cv, &g->mu, &dl);
    int ok = g->in_load >= n;
    pthread_mutex_unlock(&g->mu);
    return ok;
}

static void gkind_destroy(struct gkind *g) {
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

/* An engine on the CPU backend (or c's devices) with the harness kinds and a gated kind. */
static struct cuzk_engine *engine_new(struct cuzk_engine_config *c, struct cuzk_kinds **ks,
                                      struct gkind *g) {
    struct cuzk_engine *e = harness_engine(c, ks, HARNESS_UNSTARTED);
    if (g) {
        gkind_init(g, cuzk_engine_kind(e, "synthetic"));
        CHECK(cuzk_engine_register_kind(e, &g->k) == CUZK_OK);
    }
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    return e;
}

/* The synthetic kind's sizes of key_id and what the CPU backend adds: the WARM key charge, one
 * partition's reservation, and the load's peak (key + its transient scratch). */
struct charges {
    struct cuzk_kind_sizes sz;
    uint64_t key, part, load, hot;
};

static struct charges charges_of(const char *key_id) {
    struct charges ch;
    memset(&ch, 0, sizeof ch);
    const struct cuzk_kind *k = cuzk_kinds_get(sizes_ks, "synthetic");
    char err[256];
    CHECK(k->key_sizes(k, key_id, &ch.sz, err, sizeof err) == CUZK_OK);
    struct cuzk_backend_mem m;
    cpu.mem(&cpu, ch.sz.n_vars, ch.sz.domain_size, &m);
    ch.key = ch.sz.key_bytes + ch.sz.cs_bytes + m.key_host;
    uint64_t work = ch.sz.synth_scratch > m.proof_host ? ch.sz.synth_scratch : m.proof_host;
    ch.part = (uint64_t)ch.sz.n_vars * sizeof(cuzk_fr) + work;
    ch.load = ch.key + ch.sz.load_scratch;
    ch.hot = ch.sz.hot_keep + m.key_host;
    return ch;
}

/* The verification key of a synthetic circuit, from the harness's key cache. */
static int synth_vk(const char *key_id, struct cuzk_snarkjs_vk *vk) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/synthetic-%s.zkey", harness_cache_dir(), key_id);
    struct cuzk_zkey z = {0};
    int rc = cuzk_zkey_load(&z, path, NULL, err, sizeof err);
    if (!rc) rc = cuzk_groth16_vk_from_zkey(vk, &z);
    cuzk_zkey_free(&z);
    return rc;
}

/* 1 when partition p of a DONE result verifies against vk, 0 when not, < 0 on a decode error. */
static int result_verifies(const struct cuzk_job_result *r, uint32_t p,
                           const struct cuzk_snarkjs_vk *vk) {
    if (r->state != CUZK_JOB_DONE || p >= r->n_partitions || r->n_public > 8) return -1;
    const uint8_t *b = r->proof + (size_t)p * CUZK_PROOF_BYTES;
    struct cuzk_snarkjs_proof pr;
    cuzk_fr pub[8];
    int rc = cuzk_g1_from_compressed(&pr.a, b);
    if (!rc) rc = cuzk_g2_from_compressed(&pr.b, b + CUZK_G1_COMPRESSED);
    if (!rc) rc = cuzk_g1_from_compressed(&pr.c, b + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED);
    for (uint32_t i = 0; i < r->n_public && !rc; i++)
        rc = cuzk_fr_from_bytes_le(&pub[i], r->public_inputs + ((size_t)p * r->n_public + i) * 32);
    return rc ? rc : cuzk_groth16_verify(vk, pub, r->n_public, &pr);
}

/* ---- 1. nothing blocks the dispatcher ---- */

static void test_dispatcher(void) {
    struct stamps sp;
    stamps_init(&sp);
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.trace_fn = stamps_fn;
    c.trace_ctx = &sp;
    struct cuzk_kinds *ks;
    struct gkind g;
    struct cuzk_engine *e = engine_new(&c, &ks, &g);
    char err[256];
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    /* the CRITICAL circuit's key is loaded: one job of it first */
    struct cuzk_job_request r = req("synthetic", "256x1", 1, CUZK_PRIORITY_CRITICAL, "warm");
    CHECK(cuzk_engine_prove(e, &r, 120000, &info, &res, err, sizeof err) == CUZK_OK);
    cuzk_job_result_free(&res);

    /* (a) a LOW job's key load is held at the gate until the CRITICAL job is done: a dispatcher
     * that waited for that key would never start it */
    gkind_gate(&g, 1);
    r = req("gated", "256x2", 2, CUZK_PRIORITY_LOW, "low");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(gkind_wait_in_load(&g, 1));
    CHECK(wait_loader_busy(e, "256", 5000));
    CHECK(srs_loaded(e, "gated", "256") == 0);
    r = req("synthetic", "256x2", 3, CUZK_PRIORITY_CRITICAL, "crit");
    double t0 = harness_ms();
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    double ts = stamp_wait(&sp, "crit", 20000), lat_gated = ts - t0;
    CHECK(ts >= 0 && lat_gated < START_BOUND_MS);
    CHECK(cuzk_engine_await(e, "crit", 120000, &res) == CUZK_OK && res.state == CUZK_JOB_DONE);
    cuzk_job_result_free(&res);
    enum cuzk_job_state js = CUZK_JOB_NONE;
    CHECK(cuzk_engine_job_state(e, "low", &js, NULL) == CUZK_OK && js == CUZK_JOB_QUEUED);
    CHECK(g.in_load == 1 && stamp_wait(&sp, "low", 0) < 0); /* still waiting for its key */
    gkind_gate(&g, 0);
    CHECK(cuzk_engine_await(e, "low", 120000, &res) == CUZK_OK && res.state == CUZK_JOB_DONE);
    CHECK(res.timings.srs_ms > 0);
    cuzk_job_result_free(&res);

    /* (b) the same while a real set-up of seconds runs on the loader and the CPU pool */
    char big[32];
    snprintf(big, sizeof big, "%sx1", BIG_SETUP);
    r = req("synthetic", big, 4, CUZK_PRIORITY_LOW, "low-setup");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(wait_loader_busy(e, BIG_SETUP, 10000));
    r = req("synthetic", "256x2", 5, CUZK_PRIORITY_CRITICAL, "crit-setup");
    t0 = harness_ms();
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    ts = stamp_wait(&sp, "crit-setup", 60000);
    double lat_setup = ts - t0;
    int loading = srs_loaded(e, "synthetic", BIG_SETUP) == 0; /* the set-up goes on */
    CHECK(ts >= 0 && lat_setup < START_BOUND_MS);
    CHECK(loading);
    CHECK(cuzk_engine_await(e, "crit-setup", 300000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_await(e, "low-setup", 300000, &res) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.srs_ms > lat_setup);
    printf("test_engine_seams: CRITICAL start while a key loads: %.1f ms (gated load), %.1f ms "
           "(a real set-up of %s constraints, %.0f ms)\n",
           lat_gated, lat_setup, BIG_SETUP, res.timings.srs_ms);
    cuzk_job_result_free(&res);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    gkind_destroy(&g);
    stamps_free(&sp);
}

/* ---- 2. a job that could never fit is refused at submit ---- */

static void test_never_fits(void) {
    /* a budget that holds the key of 4096 constraints with its load scratch, or one of its
     * partitions, but not the key and a partition together: an accepted job would wait for
     * memory forever next to its key and, once its claim aged, hold up every job behind it */
    struct charges big = charges_of("4096");
    uint64_t alone = big.load > big.part ? big.load : big.part;
    CHECK(alone < big.key + big.part); /* the sizes allow the case */
    uint64_t total = (alone + big.key + big.part) / 2;
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = total;
    c.mem_overtake_ms = 200;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = engine_new(&c, &ks, NULL);
    char err[256];
    /* the key alone fits: it loads */
    CHECK(cuzk_engine_preload(e, "synthetic", "4096", NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(mem_owner(e, CUZK_MEM_KEY) + mem_owner(e, CUZK_MEM_CS) == big.key);
    struct cuzk_submit_info info;
    struct cuzk_job_request r = req("synthetic", "4096x2", 1, CUZK_PRIORITY_CRITICAL, "huge");
    int rc = cuzk_engine_submit(e, &r, &info, err, sizeof err);
    CHECK(rc == CUZK_ENOMEM && !strcmp(grpc_name(rc), "RESOURCE_EXHAUSTED"));
    CHECK(strstr(err, "synthetic/4096") != NULL);
    unsigned long long need = 0, key = 0, part = 0, in = 1, tot = 0;
    const char *m = strstr(err, "needs ");
    CHECK(m && sscanf(m,
                      "needs %llu bytes: key %llu + one partition %llu + inputs %llu, more than "
                      "the memory budget of %llu bytes",
                      &need, &key, &part, &in, &tot) == 5);
    CHECK(key == big.key && part == big.part && in == 0 && tot == total);
    CHECK(need == key + part && key <= tot && part <= tot && need > tot);
    CHECK(cuzk_engine_job_state(e, "huge", NULL, NULL) == CUZK_ENOTFOUND);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_jobs == 0 && st.memory.by_owner[CUZK_MEM_PARTITION] == 0);
    cuzk_engine_status_free(&st);
    /* a small job runs as if nothing had been asked (an accepted "huge" would hold the
     * memory it needs after mem_overtake_ms) */
    harness_sleep_ms(400);
    r = req("synthetic", "256x2", 2, CUZK_PRIORITY_NORMAL, "small");
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.mem_ms < 5000);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_jobs == 0 && st.memory.waiters == 0 && st.memory.by_owner[CUZK_MEM_PARTITION] == 0);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

/* ---- 3. inputs that do not fit are refused; a bad .wtns is refused at submit ---- */

static void test_inputs(void) {
    const uint64_t total = 64 * MiB;
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = total;
    struct cuzk_kinds *ks;
    struct gkind g;
    struct cuzk_engine *e = engine_new(&c, &ks, &g);
    char err[256];
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    struct cuzk_job_request r = req("synthetic", "256x1", 1, CUZK_PRIORITY_NORMAL, NULL);
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    cuzk_job_result_free(&res);
    /* the synthetic kind ignores input bytes, the engine charges them all the same */
    uint8_t *in = calloc(80 * MiB, 1);
    CHECK(in != NULL);
    if (!in) return;

    /* inputs larger than the budget could never fit */
    r = req("synthetic", "256x1", 2, CUZK_PRIORITY_NORMAL, "never");
    r.witness = in;
    r.witness_len = 80 * MiB;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_ENOMEM);
    CHECK(strstr(err, "inputs 83886080") != NULL);

    /* a job holds 40 MiB of inputs while its key load waits at the gate; 30 MiB more do not
     * fit now (though they would on their own) and are refused, not charged past the total */
    gkind_gate(&g, 1);
    r = req("gated", "256x1", 3, CUZK_PRIORITY_NORMAL, "hog");
    r.witness = in;
    r.witness_len = 40 * MiB;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(gkind_wait_in_load(&g, 1));
    uint64_t other = mem_owner(e, CUZK_MEM_OTHER);
    CHECK(other >= 40 * MiB && other < 48 * MiB);
    r = req("synthetic", "256x1", 4, CUZK_PRIORITY_HIGH, "late");
    r.witness = in;
    r.witness_len = 30 * MiB;
    int rc = cuzk_engine_submit(e, &r, &info, err, sizeof err);
    CHECK(rc == CUZK_ENOMEM && !strcmp(grpc_name(rc), "RESOURCE_EXHAUSTED"));
    CHECK(strstr(err, "31457280 input bytes do not fit the memory budget now") != NULL);
    CHECK(cuzk_engine_job_state(e, "late", NULL, NULL) == CUZK_ENOTFOUND);
    CHECK(mem_owner(e, CUZK_MEM_OTHER) == other);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.memory.used <= st.memory.total && st.n_jobs == 1);
    cuzk_engine_status_free(&st);
    /* a CRITICAL job right after runs at once, the gate still closed */
    r = req("synthetic", "256x2", 5, CUZK_PRIORITY_CRITICAL, "crit");
    double t0 = harness_ms();
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    double crit_ms = harness_ms() - t0;
    CHECK(res.state == CUZK_JOB_DONE && res.timings.mem_ms < 5000 && res.timings.srs_ms < 1000);
    cuzk_job_result_free(&res);
    CHECK(g.in_load == 1);
    gkind_gate(&g, 0);
    CHECK(cuzk_engine_await(e, "hog", 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    /* the hog's inputs are given back with its job: the refused request fits now */
    for (int i = 0; i < 500 && mem_owner(e, CUZK_MEM_OTHER) >= 40 * MiB; i++) harness_sleep_ms(10);
    CHECK(mem_owner(e, CUZK_MEM_OTHER) < 8 * MiB);
    r = req("synthetic", "256x1", 4, CUZK_PRIORITY_HIGH, "late");
    r.witness = in;
    r.witness_len = 30 * MiB;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    cuzk_job_result_free(&res);
    free(in);
    printf("test_engine_seams: CRITICAL job behind refused inputs: %.0f ms\n", crit_ms);

    /* snarkjs: a .wtns whose shape does not match the circuit never reaches the queues */
    char dir[512], zk[600], r1[600], wt[600], bad[600];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *slash = strrchr(dir, '/');
    snprintf(slash ? slash + 1 : dir, sizeof dir - (size_t)(slash ? slash + 1 - dir : 0),
             "data/formats");
    snprintf(zk, sizeof zk, "%s/circuit_0000.zkey", dir);
    snprintf(r1, sizeof r1, "%s/circuit.r1cs", dir);
    snprintf(wt, sizeof wt, "%s/circuit.wtns", dir);
    CHECK(cuzk_kinds_add_snarkjs(ks, "demo", zk, r1, err, sizeof err) == CUZK_OK);
    struct cuzk_wtns w = {0};
    CHECK(cuzk_wtns_load(&w, wt, err, sizeof err) == CUZK_OK);
    char *good = NULL, *longer = NULL;
    size_t good_len = 0, longer_len = 0;
    FILE *f = open_memstream(&good, &good_len);
    CHECK(f && cuzk_wtns_write(f, w.w, w.n, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    cuzk_fr *w1 = malloc(((size_t)w.n + 1) * sizeof *w1);
    if (w.n && w1) {
        memcpy(w1, w.w, w.n * sizeof *w1);
        w1[w.n] = w.w[0];
    }
    f = open_memstream(&longer, &longer_len);
    CHECK(f && w1 && cuzk_wtns_write(f, w1, w.n + 1, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    snprintf(bad, sizeof bad, "%s/longer.wtns", harness_cache_dir());
    CHECK(w1 && cuzk_wtns_save(bad, w1, w.n + 1, err, sizeof err) == CUZK_OK);
    uint64_t before = mem_owner(e, CUZK_MEM_OTHER);
    struct cuzk_job_request sr = {.kind = "snarkjs", .circuit_id = "demo", .priority = -1};
    char want[64];
    snprintf(want, sizeof want, "witness has %u values", w.n + 1);
    sr.witness = longer;
    sr.witness_len = longer_len;
    CHECK(cuzk_engine_submit(e, &sr, &info, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, want) && strstr(err, "wires"));
    sr.witness_len = good_len - 32; /* the genuine file, one value short */
    sr.witness = good;
    rc = cuzk_engine_submit(e, &sr, &info, err, sizeof err);
    CHECK(rc == CUZK_EFORMAT && strstr(err, "truncated") != NULL);
    sr.witness = NULL;
    sr.witness_len = 0;
    sr.witness_path = bad;
    CHECK(cuzk_engine_submit(e, &sr, &info, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, want) != NULL);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_jobs == 0 && srs_find(&st, "snarkjs", "demo") == NULL);
    CHECK(st.memory.by_owner[CUZK_MEM_OTHER] == before);
    cuzk_engine_status_free(&st);
    /* the genuine witness proves */
    sr.witness_path = NULL;
    sr.witness = good;
    sr.witness_len = good_len;
    CHECK(cuzk_engine_prove(e, &sr, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE);
    cuzk_job_result_free(&res);
    free(good);
    free(longer);
    free(w1);
    cuzk_wtns_free(&w);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    gkind_destroy(&g);
}

/* ---- 4. the self-check ---- */

struct log_cap {
    pthread_mutex_t mu;
    int n_warn, n_self;
};

static void log_fn(void *ctx, int level, const char *line) {
    struct log_cap *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (level == CUZK_LOG_WARN) l->n_warn++;
    if (level == CUZK_LOG_WARN && strstr(line, "engine: pipeline.self_verify is off")) l->n_self++;
    pthread_mutex_unlock(&l->mu);
}

static void test_self_check(void) {
    struct cuzk_snarkjs_vk vk = {0};
    CHECK(synth_vk("256", &vk) == CUZK_OK);
    struct log_cap lc = {.n_warn = 0};
    pthread_mutex_init(&lc.mu, NULL);
    cuzk_log_set_sink(log_fn, &lc);
    cuzk_log_set_level(CUZK_LOG_WARN);
    struct wrap wr;
    wrap_init(&wr, &cpu, "wrong");
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 2};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = engine_new(&c, &ks, NULL);
    CHECK(lc.n_self == 0); /* self_verify on: no warning */
    char err[256];
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    /* one wrong proof: the partition is proved again, the job is done and right */
    wrap_wrong(&wr, cuzk_synth_partition_seed(31, 1), 1);
    struct cuzk_job_request r = req("synthetic", "256x3", 31, CUZK_PRIORITY_NORMAL, "once");
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.retries == 1);
    CHECK(atomic_load(&wr.failures) == 1 && atomic_load(&wr.starts) == 4);
    for (uint32_t p = 0; p < 3; p++) CHECK(result_verifies(&res, p, &vk) == 1);
    cuzk_job_result_free(&res);
    /* wrong every time: the job fails with CUZK_EVERIFY, naming the partition */
    atomic_store(&wr.failures, 0);
    wrap_wrong(&wr, cuzk_synth_partition_seed(32, 0), -1);
    r = req("synthetic", "256x2", 32, CUZK_PRIORITY_NORMAL, "always");
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_EVERIFY);
    CHECK(res.state == CUZK_JOB_FAILED && res.err == CUZK_EVERIFY && res.proof == NULL);
    CHECK(strstr(res.error, "partition 0") && strstr(res.error, "does not verify"));
    CHECK(res.timings.retries == 1 && atomic_load(&wr.failures) == 2);
    cuzk_job_result_free(&res);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.failed == 1 && st.devices[0].errors == 3);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);

    /* self_verify off: the engine warns once at creation, and a wrong proof is delivered */
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    c.self_verify = 0;
    e = engine_new(&c, &ks, NULL);
    CHECK(lc.n_self == 1);
    wrap_wrong(&wr, cuzk_synth_partition_seed(33, 0), -1);
    r = req("synthetic", "256x2", 33, CUZK_PRIORITY_NORMAL, "unchecked");
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.timings.retries == 0 && res.timings.verify_ms == 0);
    CHECK(result_verifies(&res, 0, &vk) == 0 && result_verifies(&res, 1, &vk) == 1);
    cuzk_job_result_free(&res);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    cuzk_log_set_sink(NULL, NULL);
    cuzk_log_set_level(CUZK_LOG_ERROR);
    pthread_mutex_destroy(&lc.mu);
    wrap_destroy(&wr);
    cuzk_snarkjs_vk_free(&vk);
}

/* ---- 5. the SRS manager: idle eviction, LRU under pressure, failed loads ---- */

static void test_srs_idle(void) {
    struct wrap wr;
    wrap_init(&wr, &cpu, "gated");
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 1};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    c.srs_idle_evict_ms = 500;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = engine_new(&c, &ks, NULL);
    char err[256];
    CHECK(cuzk_engine_preload(e, "synthetic", "256", NULL, NULL, err, sizeof err) == CUZK_OK);
    double t0 = harness_ms();
    CHECK(srs_loaded(e, "synthetic", "256") == 1);
    CHECK(wait_srs(e, "synthetic", "256", 0, 10000));
    double idle = harness_ms() - t0;
    CHECK(idle >= 400);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 0 && st.memory.by_owner[CUZK_MEM_KEY] == 0);
    CHECK(st.memory.by_owner[CUZK_MEM_CS] == 0);
    cuzk_engine_status_free(&st);
    /* a key a job holds is not evicted however long the job takes */
    wrap_gate(&wr, 1);
    struct cuzk_job_request r = req("synthetic", "256x1", 1, CUZK_PRIORITY_NORMAL, "held");
    struct cuzk_submit_info info;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(wrap_wait_in_gate(&wr, 1));
    harness_sleep_ms(1200);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    const struct cuzk_status_srs *s = srs_find(&st, "synthetic", "256");
    CHECK(s && s->refs >= 1 && s->tier == CUZK_SRS_WARM);
    cuzk_engine_status_free(&st);
    wrap_gate(&wr, 0);
    struct cuzk_job_result res;
    CHECK(cuzk_engine_await(e, "held", 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(wait_srs(e, "synthetic", "256", 0, 10000));
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&wr);
}

static void test_srs_lru(void) {
    /* A and B are small keys, C a larger one: A and B fit together, and A fits with C and C's
     * load, but not all three. Loading C (after A was used again) must evict B, the least
     * recently used, and only B. */
    const char *A = "300", *B = "400", *C = "768";
    struct charges a = charges_of(A), b = charges_of(B), cc = charges_of(C);
    uint64_t lo = a.key + cc.load, lo2 = a.key + b.load;
    if (lo2 > lo) lo = lo2;
    uint64_t hi = a.key + b.key + cc.load;
    CHECK(lo < hi && a.load < lo);
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = (lo + hi) / 2;
    c.eviction_min_idle_ms = 0;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = engine_new(&c, &ks, NULL);
    char err[256];
    int already = -1;
    CHECK(cuzk_engine_preload(e, "synthetic", A, &already, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_preload(e, "synthetic", B, &already, NULL, err, sizeof err) == CUZK_OK);
    CHECK(srs_loaded(e, "synthetic", A) == 1 && srs_loaded(e, "synthetic", B) == 1);
    harness_sleep_ms(5);
    CHECK(cuzk_engine_preload(e, "synthetic", A, &already, NULL, err, sizeof err) == CUZK_OK);
    CHECK(already == 1); /* used again: B is the least recently used */
    CHECK(cuzk_engine_preload(e, "synthetic", C, &already, NULL, err, sizeof err) == CUZK_OK);
    CHECK(already == 0);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 2 && srs_find(&st, "synthetic", A) && srs_find(&st, "synthetic", C));
    CHECK(srs_find(&st, "synthetic", B) == NULL);
    CHECK(st.memory.used <= st.memory.total);
    CHECK(st.memory.by_owner[CUZK_MEM_KEY] + st.memory.by_owner[CUZK_MEM_CS] == a.key + cc.key);
    cuzk_engine_status_free(&st);
    /* a load that cannot fit the budget fails, leaves no entry and evicts nothing */
    CHECK(charges_of("4096").load > c.total_budget);
    CHECK(cuzk_engine_preload(e, "synthetic", "4096", NULL, NULL, err, sizeof err) == CUZK_ENOMEM);
    CHECK(strstr(err, "key synthetic/4096 needs") && strstr(err, "more than the memory budget"));
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 2 && srs_find(&st, "synthetic", "4096") == NULL);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

struct preloader {
    struct cuzk_engine *e;
    int rc;
    char err[256];
    pthread_t th;
};

static void *preload_main(void *arg) {
    struct preloader *p = arg;
    p->rc = cuzk_engine_preload(p->e, "gated", "256", NULL, NULL, p->err, sizeof p->err);
    return NULL;
}

static void test_srs_failed_load(void) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    struct cuzk_kinds *ks;
    struct gkind g;
    struct cuzk_engine *e = engine_new(&c, &ks, &g);
    char err[256];
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    /* the key of a queued job fails to load: the job fails with the kind's sentence, and the
     * SRS table keeps nothing of it */
    gkind_fail(&g, 1);
    struct cuzk_job_request r = req("gated", "256x2", 1, CUZK_PRIORITY_NORMAL, "g1");
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_EIO);
    CHECK(res.state == CUZK_JOB_FAILED && res.err == CUZK_EIO);
    CHECK(strstr(res.error, "could not be loaded") && strstr(res.error, "injected failure"));
    cuzk_job_result_free(&res);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 0 && st.n_jobs == 0 && st.memory.by_owner[CUZK_MEM_KEY] == 0);
    CHECK(st.memory.by_owner[CUZK_MEM_CS] == 0 && st.memory.by_owner[CUZK_MEM_PARTITION] == 0);
    cuzk_engine_status_free(&st);
    /* the same request again: the key loads and the job is done */
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && atomic_load(&g.loads) == 2);
    cuzk_job_result_free(&res);
    CHECK(srs_loaded(e, "gated", "256") == 1);
    uint64_t freed = 0;
    CHECK(cuzk_engine_evict(e, "gated", "256", &freed) == CUZK_OK && freed > 0);
    /* two preloads of one key while its first load fails: the second loads it itself */
    gkind_fail(&g, 1);
    gkind_gate(&g, 1);
    struct preloader p1 = {.e = e, .rc = 1}, p2 = {.e = e, .rc = 1};
    pthread_create(&p1.th, NULL, preload_main, &p1);
    CHECK(gkind_wait_in_load(&g, 1));
    pthread_create(&p2.th, NULL, preload_main, &p2);
    harness_sleep_ms(100); /* p2 waits for p1's load instead of loading a second time */
    CHECK(srs_loaded(e, "gated", "256") == 0);
    pthread_mutex_lock(&g.mu);
    CHECK(g.in_load == 1);
    pthread_mutex_unlock(&g.mu);
    gkind_gate(&g, 0);
    pthread_join(p1.th, NULL);
    pthread_join(p2.th, NULL);
    CHECK(p1.rc == CUZK_EIO && strstr(p1.err, "injected failure"));
    CHECK(p2.rc == CUZK_OK && atomic_load(&g.loads) == 4);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 1 && st.srs[0].tier == CUZK_SRS_WARM && st.srs[0].bytes == freed);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    gkind_destroy(&g);
}

/* ---- 6. keys held by the devices only ---- */

/* A device with the HOT tier: key_upload keeps the device's own copy of the key (read from the
 * key file, as a GPU backend loads its points) and prove runs the CPU backend on that copy, so
 * that nothing reads the host key the engine trimmed. */
struct hotdev {
    struct cuzk_backend be;
    const struct cuzk_backend *inner;
    const char *zkey_path; /* the one key this device is given */
    pthread_mutex_t mu;
    const struct cuzk_groth16_pk *resident; /* the engine's pk it stands for; NULL = none */
    struct cuzk_zkey z;
    struct cuzk_groth16_pk pk;
    int uploads, drops, proves, foreign, refused;
    uint64_t vram;
    uint64_t host;     /* host bytes an upload keeps (key_host: a CUDA plan's streamed queries) */
    uint32_t max_vars; /* keys of more variables it can never hold (CUZK_EUNSUPPORTED); 0 = any */
    int needs_rows;    /* key_needs_rows: its proofs read the rows on the host (a CUDA plan's) */
    int last_priority; /* hooks->priority of the last proof (the engine passes the job's) */
    unsigned places;   /* the vtable's places (0: as many as call) */
    pthread_cond_t *gate_cv; /* not NULL: proofs wait inside prove while gated */
    int gated, entered;
    int order[16]; /* the priorities of the proofs in the order they entered */
};

static int hot_upload(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                      uint64_t *vram_bytes, char *err, size_t errlen) {
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    if (h->max_vars && pk->n_vars > h->max_vars) { /* as a CUDA device too small for the key */
        h->refused++;
        pthread_mutex_unlock(&h->mu);
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "hotdev: a key of %u variables needs more than its budget, even alone",
                         pk->n_vars);
    }
    int rc = h->resident ? CUZK_EGPUOOM : CUZK_OK;
    if (rc) snprintf(err, errlen, "hotdev: holds one key at a time");
    if (!rc) rc = cuzk_zkey_load(&h->z, h->zkey_path, NULL, err, errlen);
    if (!rc && (rc = cuzk_groth16_pk_prepare(&h->pk, &h->z))) cuzk_zkey_free(&h->z);
    uint8_t x[CUZK_G1_COMPRESSED], y[CUZK_G1_COMPRESSED];
    if (!rc) {
        cuzk_g1_to_compressed(x, &pk->alpha1);
        cuzk_g1_to_compressed(y, &h->pk.alpha1);
        if (memcmp(x, y, sizeof x) || pk->n_vars != h->pk.n_vars) {
            snprintf(err, errlen, "hotdev: the key is not the one of %s", h->zkey_path);
            cuzk_groth16_pk_free(&h->pk);
            cuzk_zkey_free(&h->z);
            rc = CUZK_EINVAL;
        }
    }
    if (!rc) {
        h->resident = pk;
        h->uploads++;
        *vram_bytes = h->vram;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static void hot_drop(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    if (h->resident == pk) {
        cuzk_groth16_pk_free(&h->pk);
        cuzk_zkey_free(&h->z);
        h->resident = NULL;
        h->drops++;
    } else {
        h->foreign++;
    }
    pthread_mutex_unlock(&h->mu);
}

static int hot_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                     const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                     const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                     struct cuzk_prove_info *info, char *err, size_t errlen) {
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    int resident = h->resident == pk;
    h->last_priority = hooks ? hooks->priority : -9;
    if (h->entered < 16) h->order[h->entered] = h->last_priority;
    h->entered++;
    while (h->gate_cv && h->gated) pthread_cond_wait(h->gate_cv, &h->mu);
    h->proves += resident;
    h->foreign += !resident;
    pthread_mutex_unlock(&h->mu);
    if (!resident) {
        if (hooks && hooks->witness_done) hooks->witness_done(hooks->ctx);
        snprintf(err, errlen, "hotdev: the key is not resident");
        return CUZK_EGPU;
    }
    /* one device worker: the copy is not dropped while it proves (the engine holds the key) */
    return h->inner->prove(h->inner, &h->pk, w, n_w, r, s, hooks, out, info, err, errlen);
}

static uint64_t hot_key_host(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    (void)pk;
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    const uint64_t host = h->host;
    pthread_mutex_unlock(&h->mu);
    return host;
}

static int hot_needs_rows(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    (void)pk;
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    const int rows = h->needs_rows;
    pthread_mutex_unlock(&h->mu);
    return rows;
}

static unsigned hot_places(const struct cuzk_backend *be) {
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    const unsigned places = h->places;
    pthread_mutex_unlock(&h->mu);
    return places;
}

static void hot_describe(const struct cuzk_backend *be, char *buf, size_t len) {
    struct hotdev *h = be->impl;
    pthread_mutex_lock(&h->mu);
    snprintf(buf, len, "hotdev: %s, %llu bytes", h->resident ? "a key resident" : "empty",
             (unsigned long long)h->vram);
    pthread_mutex_unlock(&h->mu);
}

static void hot_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                    struct cuzk_backend_mem *out) {
    const struct hotdev *h = be->impl;
    h->inner->mem(h->inner, n_vars, domain, out);
}

static void hotdev_init(struct hotdev *h, const struct cuzk_backend *inner, const char *path) {
    memset(h, 0, sizeof *h);
    h->inner = inner;
    h->zkey_path = path;
    h->vram = 3 * MiB + 12345;
    pthread_mutex_init(&h->mu, NULL);
    h->be = (struct cuzk_backend){.name = "hotdev",
                                  .impl = h,
                                  .prove = hot_prove,
                                  .mem = hot_mem,
                                  .key_upload = hot_upload,
                                  .key_drop = hot_drop,
                                  .key_host = hot_key_host,
                                  .key_needs_rows = hot_needs_rows,
                                  .places = hot_places,
                                  .describe = hot_describe};
}

/* An engine whose one device is hd (dev, the caller's, outlives it), with `workers` device
 * workers and, when total is not 0, that memory budget; the synthetic 256 key preloaded. */
static struct cuzk_engine *hot_engine(struct hotdev *hd, struct cuzk_engine_device *dev,
                                      unsigned workers, uint64_t total, struct cuzk_kinds **ks) {
    char err[256];
    *dev = (struct cuzk_engine_device){.backend = &hd->be, .workers = workers};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    if (total) c.total_budget = total;
    c.devices = dev;
    c.n_devices = 1;
    struct cuzk_engine *e = engine_new(&c, ks, NULL);
    CHECK(cuzk_engine_preload(e, "synthetic", "256", NULL, NULL, err, sizeof err) == CUZK_OK);
    return e;
}

static void test_hot_only(void) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/synthetic-256.zkey", harness_cache_dir());
    /* a budget that holds a partition next to the HOT key, not next to the WARM one */
    struct charges k = charges_of("256");
    uint64_t total = k.part + (k.hot + k.key) / 2;
    CHECK(k.hot < k.key / 4 && k.sz.hot_load + (k.hot - k.sz.hot_keep) <= total);
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = total;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = engine_new(&c, &ks, NULL);
    struct cuzk_submit_info info;
    struct cuzk_job_request r = req("synthetic", "256x2", 7, CUZK_PRIORITY_NORMAL, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_ENOMEM); /* WARM: no */
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);

    struct hotdev hd;
    hotdev_init(&hd, &cpu, path);
    struct cuzk_engine_device dev;
    e = hot_engine(&hd, &dev, 1, total, &ks);
    CHECK(hd.uploads == 1 && hd.resident != NULL);
    CHECK(hd.resident && hd.resident->cs == NULL); /* trimmed: the device holds the rows */
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    const struct cuzk_status_srs *s = srs_find(&st, "synthetic", "256");
    CHECK(s && s->tier == CUZK_SRS_HOT && s->vram_bytes == hd.vram);
    /* the backend's line of its device memory (a CUDA device: its residency plans) */
    char want[128];
    snprintf(want, sizeof want, "hotdev: a key resident, %llu bytes", (unsigned long long)hd.vram);
    CHECK(st.n_devices >= 1 && !strcmp(st.devices[0].memory, want));
    char *page = cuzk_engine_status_json(&st, 0);
    CHECK(page && strstr(page, "\"memory\":\"hotdev: a key resident"));
    free(page);
    CHECK(s && s->bytes == k.hot);
    CHECK(st.memory.by_owner[CUZK_MEM_KEY] == k.hot && st.memory.by_owner[CUZK_MEM_CS] == 0);
    CHECK(st.memory.used == k.hot);
    cuzk_engine_status_free(&st);
    /* a job fits next to the HOT key, proves on the device's copy and verifies */
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && hd.proves == 2 && hd.foreign == 0);
    cuzk_job_result_free(&res);
    uint64_t freed = 0;
    CHECK(cuzk_engine_evict(e, "synthetic", "256", &freed) == CUZK_OK && freed == k.hot);
    CHECK(hd.drops == 1 && hd.resident == NULL);
    CHECK(mem_owner(e, CUZK_MEM_KEY) == 0);
    /* host copies the device keeps (key_host) are charged to the key before the upload and
     * freed with it; copies larger than the budget fail the load with the sizes, before any
     * upload */
    const uint64_t host = (total - k.sz.hot_load - k.hot) / 2 + 321; /* fits beside the key */
    pthread_mutex_lock(&hd.mu);
    hd.host = host;
    pthread_mutex_unlock(&hd.mu);
    CHECK(cuzk_engine_preload(e, "synthetic", "256", NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(hd.uploads == 2 && mem_owner(e, CUZK_MEM_KEY) == k.hot + host);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    s = srs_find(&st, "synthetic", "256");
    CHECK(s && s->bytes == k.hot + host && st.memory.by_owner[CUZK_MEM_KEY] == k.hot + host);
    CHECK(s && s->host_copy_bytes == host);
    cuzk_engine_status_free(&st);
    CHECK(cuzk_engine_evict(e, "synthetic", "256", &freed) == CUZK_OK && freed == k.hot + host);
    CHECK(mem_owner(e, CUZK_MEM_KEY) == 0 && hd.drops == 2);
    pthread_mutex_lock(&hd.mu);
    hd.host = total;
    pthread_mutex_unlock(&hd.mu);
    CHECK(cuzk_engine_preload(e, "synthetic", "256", NULL, NULL, err, sizeof err) == CUZK_ENOMEM);
    CHECK(strstr(err, "in host memory") && strstr(err, "more than the memory budget"));
    CHECK(hd.uploads == 2 && mem_owner(e, CUZK_MEM_KEY) == 0);
    /* a device whose plan leaves the rows on the host (key_needs_rows): the trim keeps them */
    pthread_mutex_lock(&hd.mu);
    hd.host = 0;
    hd.needs_rows = 1;
    pthread_mutex_unlock(&hd.mu);
    /* a key still resident at the end is dropped from the device with the engine */
    CHECK(cuzk_engine_preload(e, "synthetic", "256", NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(hd.uploads == 3);
    CHECK(hd.resident && hd.resident->cs != NULL && hd.resident->cs->n_rows > 0);
    /* ... and charged to the key, as its memory is (it outlives the load's transient charge) */
    CHECK(k.sz.hot_rows > 0 && k.sz.hot_rows <= k.sz.hot_load - k.sz.hot_keep);
    CHECK(mem_owner(e, CUZK_MEM_KEY) == k.hot + k.sz.hot_rows);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    s = srs_find(&st, "synthetic", "256");
    CHECK(s && s->bytes == k.hot + k.sz.hot_rows);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    CHECK(hd.drops == 3 && hd.resident == NULL && hd.foreign == 0);
    cuzk_kinds_destroy(ks);
    pthread_mutex_destroy(&hd.mu);
}

/* A key no device can hold even alone (key_upload's CUZK_EUNSUPPORTED: a porep-c18 key on an
 * 80 GB card): its job fails with the device's sentence, the idle key the device holds is not
 * evicted for it (a CUZK_EGPUOOM would have it evicted first) and goes on proving, and the SRS
 * table keeps nothing of the refused key, whose next job fails the same way. */
static void test_hot_never_fits(void) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/synthetic-256.zkey", harness_cache_dir());
    struct hotdev hd;
    hotdev_init(&hd, &cpu, path);
    struct cuzk_engine_device dev;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = hot_engine(&hd, &dev, 1, 0, &ks);
    CHECK(hd.uploads == 1 && hd.resident != NULL);
    pthread_mutex_lock(&hd.mu);
    hd.max_vars = hd.resident->n_vars; /* the 256 key fits, a larger one never */
    pthread_mutex_unlock(&hd.mu);
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    struct cuzk_job_request big = req("synthetic", "1024x1", 3, CUZK_PRIORITY_HIGH, NULL);
    for (int rep = 0; rep < 2; rep++) {
        CHECK(cuzk_engine_prove(e, &big, 60000, &info, &res, err, sizeof err) == CUZK_EUNSUPPORTED);
        CHECK(res.state == CUZK_JOB_FAILED && res.err == CUZK_EUNSUPPORTED);
        CHECK(res.error && strstr(res.error, "needs more than its budget, even alone"));
        cuzk_job_result_free(&res);
        CHECK(hd.refused == rep + 1 && hd.drops == 0 && hd.resident != NULL);
        CHECK(srs_loaded(e, "synthetic", "1024") == 0 && srs_loaded(e, "synthetic", "256") == 1);
    }
    struct cuzk_job_request small = req("synthetic", "256x2", 7, CUZK_PRIORITY_NORMAL, NULL);
    CHECK(cuzk_engine_prove(e, &small, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && hd.uploads == 1 && hd.proves == 2 && hd.foreign == 0);
    CHECK(hd.last_priority == CUZK_PRIORITY_NORMAL); /* the job's, for the device's slots */
    cuzk_job_result_free(&res);
    small.priority = CUZK_PRIORITY_CRITICAL;
    CHECK(cuzk_engine_prove(e, &small, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && hd.proves == 4 &&
          hd.last_priority == CUZK_PRIORITY_CRITICAL);
    cuzk_job_result_free(&res);
    cuzk_engine_destroy(e);
    CHECK(hd.drops == 1 && hd.resident == NULL);
    cuzk_kinds_destroy(ks);
    pthread_mutex_destroy(&hd.mu);
    printf("test_engine_seams: a key no device can hold fails its jobs, evicts nothing\n");
}

/* Partitions of job in state st now (-1 when the status fails). */
static int parts_in(struct cuzk_engine *e, const char *job, enum cuzk_part_state state) {
    struct cuzk_engine_status st;
    if (cuzk_engine_status(e, &st)) return -1;
    int n = 0;
    for (size_t i = 0; i < st.n_jobs; i++)
        if (!strcmp(st.jobs[i].job_id, job))
            for (uint32_t k = 0; k < st.jobs[i].n_partitions; k++)
                n += st.jobs[i].parts[k].state == state;
    cuzk_engine_status_free(&st);
    return n;
}

static int wait_parts(struct cuzk_engine *e, const char *job, enum cuzk_part_state state, int n) {
    for (double t0 = harness_ms(); harness_ms() - t0 < 10000; harness_sleep_ms(5))
        if (parts_in(e, job, state) == n) return 1;
    return 0;
}

/* A device that takes one proof at a time (the vtable's places: a CUDA device in a lean work
 * space has one witness slot) with two workers: the second worker leaves the partitions in the
 * queue instead of waiting inside prove with one, so a CRITICAL job that arrives while the
 * device proves goes next, before the NORMAL job's queued partitions. */
static void test_hot_places(void) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/synthetic-256.zkey", harness_cache_dir());
    struct hotdev hd;
    hotdev_init(&hd, &cpu, path);
    pthread_cond_t gate;
    pthread_cond_init(&gate, NULL);
    hd.places = 1;
    hd.gate_cv = &gate;
    struct cuzk_engine_device dev;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = hot_engine(&hd, &dev, 2, 0, &ks);
    pthread_mutex_lock(&hd.mu);
    hd.gated = 1;
    pthread_mutex_unlock(&hd.mu);
    struct cuzk_job_request ra = req("synthetic", "256x3", 7, CUZK_PRIORITY_NORMAL, NULL);
    struct cuzk_job_request rb = req("synthetic", "256x1", 8, CUZK_PRIORITY_CRITICAL, NULL);
    struct cuzk_submit_info ia, ib;
    CHECK(cuzk_engine_submit(e, &ra, &ia, err, sizeof err) == CUZK_OK);
    /* one partition in prove (held at the gate), the other two queued for the device */
    CHECK(wait_parts(e, ia.job_id, CUZK_PART_PROVING, 1));
    CHECK(wait_parts(e, ia.job_id, CUZK_PART_GPU_QUEUED, 2));
    harness_sleep_ms(50);
    pthread_mutex_lock(&hd.mu);
    CHECK(hd.entered == 1); /* the second worker did not take one into prove */
    pthread_mutex_unlock(&hd.mu);
    CHECK(cuzk_engine_submit(e, &rb, &ib, err, sizeof err) == CUZK_OK);
    CHECK(wait_parts(e, ib.job_id, CUZK_PART_GPU_QUEUED, 1));
    pthread_mutex_lock(&hd.mu);
    hd.gated = 0;
    pthread_cond_broadcast(&gate);
    pthread_mutex_unlock(&hd.mu);
    struct cuzk_job_result res;
    CHECK(cuzk_engine_await(e, ia.job_id, 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_await(e, ib.job_id, 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    pthread_mutex_lock(&hd.mu);
    CHECK(hd.entered == 4 && hd.order[0] == CUZK_PRIORITY_NORMAL &&
          hd.order[1] == CUZK_PRIORITY_CRITICAL && hd.order[2] == CUZK_PRIORITY_NORMAL &&
          hd.order[3] == CUZK_PRIORITY_NORMAL);
    pthread_mutex_unlock(&hd.mu);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    pthread_cond_destroy(&gate);
    pthread_mutex_destroy(&hd.mu);
    printf("test_engine_seams: one place on the device: the CRITICAL job went next\n");
}

int main(void) {
    test_init("test_engine_seams");
    cuzk_log_set_level(CUZK_LOG_ERROR);
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    cuzk_cpu_backend_init(&cpu, pool);
    struct cuzk_kinds_config kc;
    cuzk_kinds_config_default(&kc);
    kc.cache_dir = harness_cache_dir();
    kc.filecoin = 0;
    char err[256];
    CHECK(cuzk_kinds_create(&sizes_ks, &kc, err, sizeof err) == CUZK_OK);
    test_dispatcher();
    test_never_fits();
    test_inputs();
    test_self_check();
    test_srs_idle();
    test_srs_lru();
    test_srs_failed_load();
    test_hot_never_fits();
    test_hot_only();
    test_hot_places();
    cuzk_kinds_destroy(sizes_ks);
    cuzk_pool_destroy(pool);
    harness_cache_remove();
    return test_finish();
}
