/* The proving engine on the CPU backend: proofs that verify (synthetic and snarkjs kinds, the
 * result's encodings), idempotent request ids, result expiry, await timeouts, cancellation of
 * queued and running jobs, completion watches, priorities at the synthesis queue and at the device
 * queue (read from the TIMELINE lines), preload / evict, and the status snapshot and its JSON. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "ec/encode.h"
#include "kinds/synthetic.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "util/file.h"
#include "util/log.h"
#include "engine_harness.h"
#include "test_util.h"

#define SMALL "256" /* constraints: one round of the synthetic circuit, a 2^9 domain */

static struct cuzk_job_request synth_req(const char *circuit, uint64_t seed, int prio,
                                         const char *rid) {
    struct cuzk_job_request r = {.kind = "synthetic",
                                 .circuit_id = circuit,
                                 .request_id = rid,
                                 .priority = prio,
                                 .seed = seed};
    return r;
}

/* Checks a DONE synthetic result against the cached key and the expected public inputs. */
static void check_synthetic(const struct cuzk_job_result *r, uint32_t n, uint64_t seed) {
    CHECK(r->state == CUZK_JOB_DONE && r->err == CUZK_OK);
    if (r->state != CUZK_JOB_DONE) return;
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/synthetic-%u.zkey", harness_cache_dir(), n);
    struct cuzk_zkey z = {0};
    struct cuzk_snarkjs_vk vk = {0};
    CHECK(cuzk_zkey_load(&z, path, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_groth16_vk_from_zkey(&vk, &z) == CUZK_OK);
    struct cuzk_synth_shape s;
    CHECK(cuzk_synth_shape(n, &s) == CUZK_OK);
    cuzk_fr *w = malloc(s.n_vars * sizeof *w);
    CHECK(r->n_public == 2 && r->proof_len == r->n_partitions * CUZK_PROOF_BYTES);
    CHECK(r->public_len == (size_t)r->n_partitions * 2 * 32);
    for (uint32_t p = 0; p < r->n_partitions; p++) {
        cuzk_synth_witness(&s, cuzk_synth_partition_seed(seed, p), w);
        cuzk_fr pub[2];
        for (int i = 0; i < 2; i++)
            CHECK(cuzk_fr_from_bytes_le(&pub[i], r->public_inputs + (p * 2 + i) * 32) == CUZK_OK);
        CHECK(cuzk_fr_eq(&pub[0], &w[1]) && cuzk_fr_eq(&pub[1], &w[2]));
        const uint8_t *b = r->proof + (size_t)p * CUZK_PROOF_BYTES;
        struct cuzk_snarkjs_proof pr;
        CHECK(cuzk_g1_from_compressed(&pr.a, b) == CUZK_OK);
        CHECK(cuzk_g2_from_compressed(&pr.b, b + 48) == CUZK_OK);
        CHECK(cuzk_g1_from_compressed(&pr.c, b + 144) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, pub, 2, &pr) == 1);
        CHECK(cuzk_groth16_verify(&vk, &w[2], 1, &pr) == CUZK_EINVAL);
        /* the snarkjs JSON renderings of the same partition */
        char *pj = cuzk_job_result_proof_json(r, p), *uj = cuzk_job_result_public_json(r, p);
        struct cuzk_snarkjs_proof pr2;
        cuzk_fr *pubs = NULL;
        size_t npub = 0;
        CHECK(pj && cuzk_snarkjs_proof_parse(&pr2, pj, strlen(pj), err, sizeof err) == CUZK_OK);
        CHECK(uj &&
              cuzk_snarkjs_public_parse(&pubs, &npub, uj, strlen(uj), err, sizeof err) == CUZK_OK);
        CHECK(npub == 2 && cuzk_groth16_verify(&vk, pubs, npub, &pr2) == 1);
        free(pj);
        free(uj);
        free(pubs);
    }
    CHECK(cuzk_job_result_proof_json(r, r->n_partitions) == NULL);
    free(w);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_zkey_free(&z);
}

/* ---- proofs, both kinds ---- */

static void test_proofs(void) {
    struct cuzk_engine_config c;
    struct trace_cap t;
    trace_cap_init(&t);
    harness_config(&c, &t);
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    CHECK(cuzk_engine_start(e) == CUZK_EINVAL);

    struct cuzk_job_request r = synth_req(SMALL "x3", 42, CUZK_PRIORITY_DEFAULT, NULL);
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(strlen(info.job_id) == 36 && !info.attached); /* a UUID */
    CHECK(res.n_partitions == 3 && !strcmp(res.job_id, info.job_id));
    CHECK(!strcmp(res.kind, "synthetic") && !strcmp(res.circuit_id, SMALL "x3"));
    check_synthetic(&res, 256, 42);
    const struct cuzk_job_timings *tm = &res.timings;
    CHECK(tm->total_ms > 0 && tm->synth_ms > 0 && tm->gpu_ms > 0 && tm->verify_ms > 0);
    CHECK(tm->queue_ms >= 0 && tm->srs_ms > 0 && tm->retries == 0);
    CHECK(tm->total_ms >= tm->queue_ms);
    cuzk_job_result_free(&res);
    /* every stage left its TIMELINE line, and the stage timing lines have their fields */
    const char *events[] = {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP",
                            "GPU_START",   "GPU_END",   "FIN_START", "FIN_END"};
    for (int i = 0; i < 8; i++) {
        char ev[200];
        snprintf(ev, sizeof ev, ",%s,%s,", events[i], info.job_id);
        CHECK(trace_find(&t, 0, "TIMELINE,", ev, "partition=2", (char *)NULL) >= 0);
    }
    CHECK(trace_find(&t, 0, "TIMELINE,", ",SYNTH_END,", "synth_ms=", (char *)NULL) >= 0);
    CHECK(trace_find(&t, 0, "TIMELINE,", ",GPU_END,", "worker=", "gpu_ms=", (char *)NULL) >= 0);
    CHECK(trace_find(&t, 0, "GPU_TIMING ",
                     "lock_wait_ms=", "device_ms=", "prove_ms=", (char *)NULL) >= 0);
    CHECK(trace_find(&t, 0, "GPU_STAGES ", info.job_id, "total_ms=", (char *)NULL) >= 0);
    CHECK(trace_find(&t, 0, "FIN_TIMING ", "malloc_trim_ms=", "verify_ms=", (char *)NULL) >= 0);
    CHECK(trace_find(&t, 0, "CUZK_TIMING ", info.job_id, "state=done",
                     "gpu_ms=", "total_ms=", (char *)NULL) >= 0);

    /* a second job of the same circuit finds the key loaded: no key time */
    r.seed = 7;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    check_synthetic(&res, 256, 7);
    CHECK(res.timings.srs_ms < 50);
    cuzk_job_result_free(&res);

    /* snarkjs: the test circuit of tests/data/formats, witness as bytes and as a path */
    char dir[512], zk[600], r1[600], wt[600], pub[600];
    snprintf(dir, sizeof dir, "%s", __FILE__); /* tests/data/formats next to this file */
    char *slash = strrchr(dir, '/');
    snprintf(slash ? slash + 1 : dir, sizeof dir - (size_t)(slash ? slash + 1 - dir : 0),
             "data/formats");
    snprintf(zk, sizeof zk, "%s/circuit_0000.zkey", dir);
    snprintf(r1, sizeof r1, "%s/circuit.r1cs", dir);
    snprintf(wt, sizeof wt, "%s/circuit.wtns", dir);
    snprintf(pub, sizeof pub, "%s/public.json", dir);
    CHECK(cuzk_kinds_add_snarkjs(ks, "demo", zk, r1, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_kinds_add_snarkjs(ks, "demo", zk, r1, err, sizeof err) == CUZK_EEXIST);
    CHECK(cuzk_kinds_add_snarkjs(ks, "bad", "/nonexistent.zkey", NULL, err, sizeof err) ==
          CUZK_EIO);
    struct cuzk_job_request sr = {.kind = "snarkjs",
                                  .circuit_id = "demo",
                                  .witness_path = wt,
                                  .priority = CUZK_PRIORITY_HIGH};
    CHECK(cuzk_engine_prove(e, &sr, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.n_partitions == 1);
    cuzk_fr *want = NULL;
    size_t nwant = 0;
    CHECK(cuzk_snarkjs_public_load(&want, &nwant, pub, err, sizeof err) == CUZK_OK);
    CHECK(res.n_public == nwant);
    struct cuzk_zkey z = {0};
    struct cuzk_snarkjs_vk vk = {0};
    CHECK(cuzk_zkey_load(&z, zk, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_groth16_vk_from_zkey(&vk, &z) == CUZK_OK);
    char *pj = cuzk_job_result_proof_json(&res, 0);
    struct cuzk_snarkjs_proof pr;
    CHECK(pj && cuzk_snarkjs_proof_parse(&pr, pj, strlen(pj), err, sizeof err) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&vk, want, nwant, &pr) == 1);
    free(pj);
    cuzk_job_result_free(&res);
    uint8_t *buf;
    size_t len;
    CHECK(cuzk_file_read(wt, SIZE_MAX, &buf, &len, err, sizeof err) == CUZK_OK && len > 0);
    sr.witness_path = NULL;
    sr.witness = buf;
    sr.witness_len = len;
    CHECK(cuzk_engine_prove(e, &sr, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    pj = cuzk_job_result_proof_json(&res, 0);
    CHECK(pj && cuzk_snarkjs_proof_parse(&pr, pj, strlen(pj), err, sizeof err) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&vk, want, nwant, &pr) == 1);
    free(pj);
    cuzk_job_result_free(&res);
    /* the same bytes handed over in a block of the caller's (witness inside it, not at its
     * start): the engine keeps that block for the snarkjs kind instead of copying it, and
     * frees it with the job; the proof is the same statement (the sanitizer build checks that
     * every handed-over block is freed once) */
    uint8_t *owned = malloc(len + 16);
    CHECK(owned != NULL);
    if (owned) {
        memcpy(owned + 16, buf, len);
        struct cuzk_job_request orq = sr;
        orq.witness = owned + 16;
        orq.witness_owner = owned;
        CHECK(cuzk_engine_prove(e, &orq, 60000, &info, &res, err, sizeof err) == CUZK_OK);
        pj = cuzk_job_result_proof_json(&res, 0);
        CHECK(pj && cuzk_snarkjs_proof_parse(&pr, pj, strlen(pj), err, sizeof err) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&vk, want, nwant, &pr) == 1);
        free(pj);
        cuzk_job_result_free(&res);
    }
    /* a handed-over block is the engine's on every return: a refused request (no such
     * circuit), a kind that does not keep its input (synthetic, which ignores the bytes) */
    struct cuzk_job_request gone = sr;
    gone.circuit_id = "no-such-circuit";
    gone.witness = gone.witness_owner = malloc(64);
    gone.witness_len = 64;
    CHECK(gone.witness && cuzk_engine_submit(e, &gone, &info, err, sizeof err) == CUZK_EINVAL);
    struct cuzk_job_request kept = synth_req(SMALL, 3, CUZK_PRIORITY_DEFAULT, NULL);
    kept.witness = kept.witness_owner = calloc(1, 4096);
    kept.witness_len = 4096;
    CHECK(kept.witness &&
          cuzk_engine_prove(e, &kept, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    check_synthetic(&res, 256, 3);
    cuzk_job_result_free(&res);
    /* a witness that breaks a constraint fails in synthesis, with the constraint named */
    if (len) buf[len - 1] ^= 1;
    CHECK(cuzk_engine_prove(e, &sr, 60000, &info, &res, err, sizeof err) == CUZK_EINVAL);
    CHECK(res.state == CUZK_JOB_FAILED && strstr(res.error, "partition 0 synthesis failed"));
    CHECK(strstr(res.error, "constraint") != NULL);
    cuzk_job_result_free(&res);
    free(buf);
    free(want);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_zkey_free(&z);

    /* bad requests are refused synchronously */
    struct cuzk_job_request bad = synth_req("100", 1, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL); /* < 195 */
    bad.circuit_id = "256y3";
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL);
    bad.circuit_id = SMALL;
    bad.request_id = "has,comma";
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL);
    bad.request_id = "tab\there";
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL);
    /* Curio's WindowPoSt ids hold spaces and brackets: accepted */
    bad.request_id = "wdpost-1000-0-[1 2 3]";
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_OK);
    CHECK(strcmp(info.job_id, "wdpost-1000-0-[1 2 3]") == 0);
    CHECK(cuzk_engine_await(e, info.job_id, 120000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    bad.request_id = NULL;
    bad.priority = 9;
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL);
    bad.priority = CUZK_PRIORITY_DEFAULT;
    bad.kind = "porep";
    CHECK(cuzk_engine_submit(e, &bad, &info, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "porep") != NULL);
    struct cuzk_job_request nowit = {.kind = "snarkjs", .circuit_id = "demo"};
    CHECK(cuzk_engine_submit(e, &nowit, &info, err, sizeof err) == CUZK_EINVAL);
    CHECK(cuzk_engine_await(e, "no-such-job", 0, &res) == CUZK_ENOTFOUND);
    CHECK(res.state == CUZK_JOB_NONE);
    int wr;
    CHECK(cuzk_engine_cancel(e, "no-such-job", &wr) == CUZK_ENOTFOUND);

    cuzk_engine_destroy(e);

    cuzk_kinds_destroy(ks);
    trace_cap_free(&t);
}

/* ---- idempotent request ids and result expiry ---- */

static void test_idempotency_ttl(void) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.result_ttl_ms = 1500; /* long enough for the checks below even in sanitizer builds */
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_UNSTARTED);
    char err[256];
    /* not started yet: both submissions find the job queued */
    struct cuzk_job_request r = synth_req(SMALL "x2", 5, CUZK_PRIORITY_DEFAULT, "porep-1000-17");
    struct cuzk_submit_info a, b;
    CHECK(cuzk_engine_submit(e, &r, &a, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_submit(e, &r, &b, err, sizeof err) == CUZK_OK); /* the same body attaches */
    CHECK(!a.attached && b.attached && !strcmp(a.job_id, "porep-1000-17"));
    CHECK(!strcmp(a.job_id, b.job_id) && b.state == CUZK_JOB_QUEUED);
    /* the same id with another body is refused, naming what differs: the queued job's proof
     * would not answer it */
    r.seed = 6;
    CHECK(cuzk_engine_submit(e, &r, &b, err, sizeof err) == CUZK_EEXIST);
    CHECK(strstr(err, "porep-1000-17") && strstr(err, "another seed"));
    struct cuzk_job_request other = synth_req(SMALL, 5, CUZK_PRIORITY_DEFAULT, "porep-1000-17");
    CHECK(cuzk_engine_submit(e, &other, &b, err, sizeof err) == CUZK_EEXIST);
    CHECK(strstr(err, "synthetic/" SMALL "x2") && strstr(err, "synthetic/" SMALL " "));
    other = synth_req(SMALL "x2", 5, CUZK_PRIORITY_HIGH, "porep-1000-17"); /* priority may differ */
    CHECK(cuzk_engine_submit(e, &other, &b, err, sizeof err) == CUZK_OK && b.attached);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    struct cuzk_job_result r1, r2, r3;
    CHECK(cuzk_engine_await(e, a.job_id, 60000, &r1) == CUZK_OK);
    double done_at = harness_ms();
    /* after completion a repeat gets the stored result, no new work; another body is refused */
    CHECK(cuzk_engine_submit(e, &r, &b, err, sizeof err) == CUZK_EEXIST);
    r.seed = 5;
    CHECK(cuzk_engine_submit(e, &r, &b, err, sizeof err) == CUZK_OK);
    CHECK(b.attached && b.state == CUZK_JOB_DONE);
    CHECK(cuzk_engine_await(e, b.job_id, 0, &r3) == CUZK_OK);
    CHECK(cuzk_engine_await(e, a.job_id, 60000, &r2) == CUZK_OK);
    CHECK(harness_ms() - done_at < 1500); /* (the checks above ran within the TTL) */
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.completed == 1);
    cuzk_engine_status_free(&st);
    check_synthetic(&r1, 256, 5); /* the first body's seed */
    CHECK(r1.proof_len == r2.proof_len && r2.proof && !memcmp(r1.proof, r2.proof, r1.proof_len));
    CHECK(r3.proof && !memcmp(r1.proof, r3.proof, r1.proof_len));
    cuzk_job_result_free(&r2);
    cuzk_job_result_free(&r3);
    /* past the TTL the result is gone, and the id starts a new job (another body now) */
    r.seed = 6;
    double left = 1500 + 500 - (harness_ms() - done_at);
    if (left > 0) harness_sleep_ms((unsigned)left);
    CHECK(cuzk_engine_await(e, a.job_id, 0, &r2) == CUZK_ENOTFOUND);
    enum cuzk_job_state js;
    CHECK(cuzk_engine_job_state(e, a.job_id, &js, NULL) == CUZK_ENOTFOUND);
    CHECK(cuzk_engine_submit(e, &r, &b, err, sizeof err) == CUZK_OK);
    CHECK(!b.attached);
    CHECK(cuzk_engine_await(e, b.job_id, 60000, &r2) == CUZK_OK);
    check_synthetic(&r2, 256, 6);
    CHECK(r2.proof && memcmp(r1.proof, r2.proof, r1.proof_len) != 0);
    cuzk_job_result_free(&r1);
    cuzk_job_result_free(&r2);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

/* ---- the device behind a backend, in the status (what GetStatus reports per GPU) ---- */

static int device_info_fails;

static int fake_device_info(const struct cuzk_backend *be, int *ordinal, uint64_t *total,
                            uint64_t *free_now) {
    (void)be;
    if (device_info_fails) return CUZK_EGPU;
    *ordinal = 3;
    *total = (uint64_t)16 << 30;
    *free_now = (uint64_t)5 << 30;
    return CUZK_OK;
}

static void test_device_info(void) {
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct wrap wr;
    wrap_init(&wr, &cpu, "gpu-like");
    wr.be.device_info = fake_device_info;
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 1};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_UNSTARTED);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK && st.n_devices == 1);
    CHECK(st.devices[0].ordinal == 3 && st.devices[0].mem_total == (uint64_t)16 << 30 &&
          st.devices[0].mem_free == (uint64_t)5 << 30);
    char *page = cuzk_engine_status_json(&st, 0); /* /status shows them too */
    CHECK(page && strstr(page, "\"ordinal\":3,") &&
          strstr(page, "\"mem_total_bytes\":17179869184,") &&
          strstr(page, "\"mem_free_bytes\":5368709120"));
    free(page);
    cuzk_engine_status_free(&st);
    device_info_fails = 1; /* a device that cannot be asked: no figures, never stale ones */
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.devices[0].ordinal == -1 && !st.devices[0].mem_total && !st.devices[0].mem_free);
    page = cuzk_engine_status_json(&st, 0);
    CHECK(page && strstr(page, "\"ordinal\":null,") && strstr(page, "\"mem_free_bytes\":null"));
    free(page);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&wr);
    cuzk_pool_destroy(pool);
}

/* ---- cancellation and await timeouts (a gated backend holds proofs) ---- */

static void test_cancel_timeout(void) {
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct wrap wr;
    wrap_init(&wr, &cpu, "gated");
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 1};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_UNSTARTED);
    char err[256];

    /* cancel a queued job (engine not started) */
    struct cuzk_job_request r = synth_req(SMALL "x4", 1, CUZK_PRIORITY_DEFAULT, "q1");
    struct cuzk_submit_info info;
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    int running = -1;
    CHECK(cuzk_engine_cancel(e, "q1", &running) == CUZK_OK && running == 0);
    CHECK(cuzk_engine_cancel(e, "q1", &running) == CUZK_EINVAL); /* final already */
    struct cuzk_job_result res;
    CHECK(cuzk_engine_await(e, "q1", 0, &res) == CUZK_ECANCELLED);
    CHECK(res.state == CUZK_JOB_CANCELLED && res.err == CUZK_ECANCELLED && !res.proof);
    cuzk_job_result_free(&res);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_jobs == 0 && st.cancelled == 1 && st.memory.by_owner[CUZK_MEM_PARTITION] == 0);
    for (size_t i = 0; i < st.n_kinds; i++) CHECK(st.kinds[i].synth_pending == 0);
    cuzk_engine_status_free(&st);
    /* a cancelled id may run again */
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK && !info.attached);

    /* await timeout: the proof waits at the gate */
    wrap_gate(&wr, 1);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    CHECK(wrap_wait_in_gate(&wr, 1));
    double t0 = harness_ms();
    CHECK(cuzk_engine_await(e, "q1", 100, &res) == CUZK_ETIMEOUT);
    double waited = harness_ms() - t0;
    CHECK(waited >= 90 && waited < 5000);
    CHECK(res.state == CUZK_JOB_NONE);
    enum cuzk_job_state js;
    CHECK(cuzk_engine_job_state(e, "q1", &js, NULL) == CUZK_OK && js == CUZK_JOB_PROVING);
    wrap_gate(&wr, 0);
    CHECK(cuzk_engine_await(e, "q1", 60000, &res) == CUZK_OK);
    check_synthetic(&res, 256, 1);
    cuzk_job_result_free(&res);

    /* cancel a running job: partition 0 is inside the backend's prove, the others queued */
    wrap_gate(&wr, 1);
    r.request_id = "run1";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(wrap_wait_in_gate(&wr, 1));
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_jobs == 1 && st.jobs[0].state == CUZK_JOB_PROVING);
    CHECK(st.memory.by_owner[CUZK_MEM_PARTITION] > 0);
    cuzk_engine_status_free(&st);
    CHECK(cuzk_engine_cancel(e, "run1", &running) == CUZK_OK && running == 1);
    CHECK(cuzk_engine_await(e, "run1", 0, &res) == CUZK_ECANCELLED); /* answered at once */
    cuzk_job_result_free(&res);
    int starts = atomic_load(&wr.starts);
    wrap_gate(&wr, 0);
    /* the running partition finishes its proof and is discarded; nothing else is proved */
    for (int i = 0; i < 500; i++) {
        CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
        int idle = st.memory.by_owner[CUZK_MEM_PARTITION] == 0 && st.devices[0].in_flight == 0;
        cuzk_engine_status_free(&st);
        if (idle) break;
        harness_sleep_ms(10);
    }
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.memory.by_owner[CUZK_MEM_PARTITION] == 0 && st.n_jobs == 0);
    cuzk_engine_status_free(&st);
    CHECK(atomic_load(&wr.starts) == starts + 1);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&wr);
    cuzk_pool_destroy(pool);
}

/* ---- completion watches ---- */

struct watch_probe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct cuzk_engine *e;
    int calls;     /* fn calls */
    int end_in_fn; /* 1: fn ends its own watch and keeps what it returned */
    int rc;        /* cuzk_engine_watch_end's code, when fn ended it */
    enum cuzk_job_state state;
    pthread_t thread; /* fn's thread */
    unsigned hold_ms; /* fn returns this long after saying it runs */
    int in_fn, fn_done;
};

static void probe_init(struct watch_probe *p, struct cuzk_engine *e) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->e = e;
}

static void probe_fn(void *ctx, struct cuzk_job_watch *w) {
    struct watch_probe *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->calls++;
    p->in_fn = 1;
    p->thread = pthread_self();
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->hold_ms) harness_sleep_ms(p->hold_ms);
    if (p->end_in_fn) {
        struct cuzk_job_result r;
        p->rc = cuzk_engine_watch_end(p->e, w, &r);
        p->state = r.state;
        cuzk_job_result_free(&r);
    }
    pthread_mutex_lock(&p->mu);
    p->fn_done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void probe_wait_in_fn(struct watch_probe *p) {
    pthread_mutex_lock(&p->mu);
    while (!p->in_fn) pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static void probe_free(struct watch_probe *p) {
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

struct cancel_arg {
    struct cuzk_engine *e;
    const char *id;
};

static void *cancel_main(void *arg) {
    struct cancel_arg *a = arg;
    CHECK(cuzk_engine_cancel(a->e, a->id, NULL) == CUZK_OK);
    return NULL;
}

/* cuzk_engine_watch: called once when the job becomes final (by a cancel, a proof, a shutdown),
 * never after its end, at once (no watch) for a final job; an end from fn itself, and one from
 * another thread while fn runs (it waits for fn). */
static void test_watch(void) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    struct cuzk_engine *e;
    char err[256];
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_OK);
    struct cuzk_kinds *ks = harness_kinds(e);
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    struct cuzk_job_watch *w = NULL, *w2 = NULL;
    struct watch_probe p, p2;

    /* the engine is not started: jobs stay queued until cancelled */
    struct cuzk_job_request r = synth_req(SMALL, 1, CUZK_PRIORITY_DEFAULT, "w1");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_watch(e, "nope", probe_fn, &p, &w, &res) == CUZK_ENOTFOUND && !w);
    probe_init(&p, e);
    probe_init(&p2, e);
    p.end_in_fn = 1;
    CHECK(cuzk_engine_watch(e, "w1", probe_fn, &p, &w, &res) == CUZK_ETIMEOUT && w);
    CHECK(res.state == CUZK_JOB_NONE);
    CHECK(cuzk_engine_watch(e, "w1", probe_fn, &p2, &w2, &res) == CUZK_ETIMEOUT && w2);
    CHECK(cuzk_engine_watch_end(e, w2, &res) == CUZK_ETIMEOUT && res.state == CUZK_JOB_NONE);
    CHECK(cuzk_engine_cancel(e, "w1", NULL) == CUZK_OK);
    /* fn ran on the cancelling thread, before the cancel returned, and ended its watch */
    CHECK(p.calls == 1 && p.fn_done && pthread_equal(p.thread, pthread_self()));
    CHECK(p.rc == CUZK_ECANCELLED && p.state == CUZK_JOB_CANCELLED);
    CHECK(p2.calls == 0); /* ended first: never called */
    /* a final job: no watch, the result at once */
    w = (struct cuzk_job_watch *)&p;
    CHECK(cuzk_engine_watch(e, "w1", probe_fn, &p, &w, &res) == CUZK_ECANCELLED && !w);
    CHECK(res.state == CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&res);
    CHECK(p.calls == 1);
    probe_free(&p);
    probe_free(&p2);

    /* an end from another thread while fn runs waits for fn's return */
    r.request_id = "w2";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    probe_init(&p, e);
    p.hold_ms = 100;
    CHECK(cuzk_engine_watch(e, "w2", probe_fn, &p, &w, &res) == CUZK_ETIMEOUT && w);
    pthread_t th;
    struct cancel_arg ca = {e, "w2"};
    CHECK(pthread_create(&th, NULL, cancel_main, &ca) == 0);
    probe_wait_in_fn(&p);
    CHECK(cuzk_engine_watch_end(e, w, &res) == CUZK_ECANCELLED);
    pthread_mutex_lock(&p.mu);
    CHECK(p.fn_done == 1 && p.calls == 1);
    pthread_mutex_unlock(&p.mu);
    CHECK(res.state == CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&res);
    pthread_join(th, NULL);
    probe_free(&p);

    /* a proof: fn on an engine thread; the result taken after it, with the job's proof */
    r.request_id = "w3";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    probe_init(&p, e);
    CHECK(cuzk_engine_watch(e, "w3", probe_fn, &p, &w, &res) == CUZK_ETIMEOUT && w);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    pthread_mutex_lock(&p.mu);
    while (!p.fn_done) pthread_cond_wait(&p.cv, &p.mu);
    CHECK(p.calls == 1 && !pthread_equal(p.thread, pthread_self()));
    pthread_mutex_unlock(&p.mu);
    CHECK(cuzk_engine_watch_end(e, w, &res) == CUZK_OK);
    check_synthetic(&res, 256, 1);
    cuzk_job_result_free(&res);
    probe_free(&p);

    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);

    /* a shutdown answers the watches of the jobs it cancels (an engine never started) */
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_OK);
    ks = harness_kinds(e);
    r.request_id = "w4";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    probe_init(&p, e);
    p.end_in_fn = 1;
    CHECK(cuzk_engine_watch(e, "w4", probe_fn, &p, &w, &res) == CUZK_ETIMEOUT && w);
    cuzk_engine_shutdown(e, CUZK_SHUTDOWN_FINISH);
    CHECK(p.calls == 1 && p.rc == CUZK_ESHUTDOWN && p.state == CUZK_JOB_CANCELLED);
    probe_free(&p);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

/* ---- priorities ---- */

/* Position of the first / last TIMELINE line of an event for a job, or -1. */
static long event_pos(struct trace_cap *t, const char *event, const char *job, int last) {
    char needle[300];
    snprintf(needle, sizeof needle, ",%s,%s,", event, job);
    long pos = -1;
    for (long i = trace_find(t, 0, "TIMELINE,", needle, (char *)NULL); i >= 0;
         i = trace_find(t, (size_t)i + 1, "TIMELINE,", needle, (char *)NULL)) {
        pos = i;
        if (!last) break;
    }
    return pos;
}

static void test_priority(void) {
    /* synthesis queue: a CRITICAL job submitted behind 20 queued NORMAL partitions is
     * synthesized and reaches the device queue before all of them */
    struct trace_cap t;
    trace_cap_init(&t);
    struct cuzk_engine_config c;
    harness_config(&c, &t);
    c.synth_workers = 1;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_UNSTARTED);
    char err[256];
    CHECK(cuzk_engine_preload(e, "synthetic", SMALL, NULL, NULL, err, sizeof err) == CUZK_OK);
    struct cuzk_submit_info info;
    struct cuzk_job_request r = synth_req(SMALL "x10", 1, CUZK_PRIORITY_NORMAL, "n1");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(info.queue_position == 0);
    r.request_id = "n2";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(info.queue_position == 10);
    r = synth_req(SMALL "x3", 2, CUZK_PRIORITY_CRITICAL, "crit");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(info.queue_position == 0); /* ahead of everything */
    r = synth_req(SMALL "x2", 3, CUZK_PRIORITY_LOW, "low");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(info.queue_position == 23);
    uint32_t pos;
    CHECK(cuzk_engine_job_state(e, "n2", NULL, &pos) == CUZK_OK && pos == 13);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    const char *ids[] = {"n1", "n2", "crit", "low"};
    struct cuzk_job_result res;
    for (int i = 0; i < 4; i++) {
        CHECK(cuzk_engine_await(e, ids[i], 60000, &res) == CUZK_OK);
        cuzk_job_result_free(&res);
    }
    long crit_last = event_pos(&t, "GPU_QUEUE", "crit", 1);
    long n1_first = event_pos(&t, "GPU_QUEUE", "n1", 0),
         n2_first = event_pos(&t, "GPU_QUEUE", "n2", 0);
    long n2_last = event_pos(&t, "GPU_QUEUE", "n2", 1),
         low_first = event_pos(&t, "GPU_QUEUE", "low", 0);
    CHECK(crit_last >= 0 && n1_first >= 0 && n2_first >= 0 && low_first >= 0);
    CHECK(crit_last < n1_first && crit_last < n2_first);
    CHECK(event_pos(&t, "GPU_QUEUE", "n1", 1) < n2_first); /* FIFO within NORMAL */
    CHECK(n2_last < low_first);
    /* and partitions of a job in order */
    for (int p = 0; p + 1 < 10; p++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "partition=%d", p);
        snprintf(b, sizeof b, "partition=%d", p + 1);
        CHECK(trace_find(&t, 0, "TIMELINE,", ",SYNTH_START,n1,", a, (char *)NULL) <
              trace_find(&t, 0, "TIMELINE,", ",SYNTH_START,n1,", b, (char *)NULL));
    }
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    trace_cap_free(&t);

    /* device queue: NORMAL partitions wait in the device queue while the device is held; a
     * CRITICAL job arriving later is picked up before the waiting NORMAL partitions */
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct wrap wr;
    wrap_init(&wr, &cpu, "gated");
    wrap_gate(&wr, 1);
    struct cuzk_engine_device dev = {.backend = &wr.be, .workers = 1};
    trace_cap_init(&t);
    harness_config(&c, &t);
    c.devices = &dev;
    c.n_devices = 1;
    e = harness_engine(&c, &ks, HARNESS_STARTED);
    r = synth_req(SMALL "x6", 4, CUZK_PRIORITY_NORMAL, "norm");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(wrap_wait_in_gate(&wr, 1));
    /* wait until the other five are synthesized and queued */
    for (int i = 0; i < 1000 && event_pos(&t, "GPU_QUEUE", "norm", 1) < 0; i++) harness_sleep_ms(5);
    for (int i = 0; i < 1000; i++) {
        long k = trace_find(&t, 0, "TIMELINE,", ",GPU_QUEUE,norm,", "partition=5", (char *)NULL);
        if (k >= 0) break;
        harness_sleep_ms(5);
    }
    r = synth_req(SMALL "x2", 5, CUZK_PRIORITY_CRITICAL, "crit2");
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    for (int i = 0; i < 1000; i++) {
        long k = trace_find(&t, 0, "TIMELINE,", ",GPU_QUEUE,crit2,", "partition=1", (char *)NULL);
        if (k >= 0) break;
        harness_sleep_ms(5);
    }
    wrap_gate(&wr, 0);
    CHECK(cuzk_engine_await(e, "norm", 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_await(e, "crit2", 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    /* after the partition that held the device, the next pickups are crit2's */
    long held = trace_find(&t, 0, "TIMELINE,", ",GPU_PICKUP,norm,", (char *)NULL);
    long c0 = trace_find(&t, 0, "TIMELINE,", ",GPU_PICKUP,crit2,", "partition=0", (char *)NULL);
    long c1 = trace_find(&t, 0, "TIMELINE,", ",GPU_PICKUP,crit2,", "partition=1", (char *)NULL);
    long n_next = trace_find(&t, (size_t)held + 1, "TIMELINE,", ",GPU_PICKUP,norm,", (char *)NULL);
    CHECK(held >= 0 && c0 > held && c1 > c0 && n_next > c1);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    trace_cap_free(&t);
    wrap_destroy(&wr);
    cuzk_pool_destroy(pool);
}

/* ---- keys and status ---- */

static void test_keys_status(void) {
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    int already = -1;
    uint64_t ms = 99, freed = 0;
    CHECK(cuzk_engine_evict(e, "synthetic", "300", &freed) == CUZK_ENOTFOUND && freed == 0);
    CHECK(cuzk_engine_preload(e, "synthetic", "300x4", &already, &ms, err, sizeof err) == CUZK_OK);
    CHECK(already == 0);
    CHECK(cuzk_engine_preload(e, "synthetic", "300", &already, &ms, err, sizeof err) == CUZK_OK);
    CHECK(already == 1 && ms == 0);
    CHECK(cuzk_engine_preload(e, "synthetic", "12", &already, &ms, err, sizeof err) == CUZK_EINVAL);
    CHECK(cuzk_engine_preload(e, "nokind", "300", &already, &ms, err, sizeof err) == CUZK_EINVAL);
    /* a reference-style alias of the key is shown beside its id (engine/kind.h) */
    static const struct cuzk_kind_alias synth_alias[] = {{"synth-300", "300", NULL}};
    struct cuzk_kind *sk = cuzk_kinds_get(ks, "synthetic");
    sk->aliases = synth_alias;
    sk->n_aliases = 1;
    CHECK(cuzk_kind_alias_find(sk, "synth-300") == &synth_alias[0] &&
          !cuzk_kind_alias_find(sk, "300") && !strcmp(cuzk_kind_alias_of(sk, "300"), "synth-300"));
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 1 && st.srs[0].tier == CUZK_SRS_WARM && st.srs[0].bytes > 0);
    CHECK(!strcmp(st.srs[0].circuit_id, "300") && st.srs[0].refs == 0);
    CHECK(!strcmp(st.srs[0].alias, "synth-300"));
    CHECK(!strcmp(st.kinds[0].label, st.kinds[0].name) &&
          !strcmp(st.kinds[0].display, st.kinds[0].name)); /* no reference names: its own */
    CHECK(st.memory.by_owner[CUZK_MEM_KEY] > 0 && st.memory.by_owner[CUZK_MEM_CS] > 0);
    CHECK(st.memory.total == (uint64_t)1 << 30);
    CHECK(st.n_devices == 1 && !strcmp(st.devices[0].name, "cpu"));
    CHECK(st.devices[0].ordinal == -1 && !st.devices[0].mem_total && !st.devices[0].mem_free);
    CHECK(st.n_workers == 2 + 2 + 2); /* 2 synthesis, 2 device, 2 key loaders */
    uint64_t key_bytes = st.srs[0].bytes;
    cuzk_engine_status_free(&st);

    /* a job, then the JSON while nothing runs */
    struct cuzk_job_request r = synth_req("300x2", 9, CUZK_PRIORITY_HIGH, "s1");
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 60000, &info, &res, err, sizeof err) == CUZK_OK);
    cuzk_job_result_free(&res);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.completed == 1 && st.devices[0].proofs == 2 && st.devices[0].busy_ms_total > 0);
    CHECK(st.utilization > 0 && st.utilization <= 1.0);
    char *js = cuzk_engine_status_json(&st, 2);
    CHECK(js != NULL);
    json_error_t je;
    json_t *root = js ? json_loads(js, 0, &je) : NULL;
    CHECK(root != NULL);
    CHECK(json_is_object(json_object_get(root, "memory")));
    CHECK(json_integer_value(
              json_object_get(json_object_get(root, "counters"), "total_completed")) == 1);
    CHECK(json_array_size(json_object_get(root, "queues")) == 2);
    CHECK(json_array_size(json_object_get(root, "srs")) == 1);
    CHECK(json_array_size(json_object_get(root, "workers")) == 6);
    CHECK(json_is_real(json_object_get(root, "gpu_utilization")));
    /* the reference cuzk's layout beside ours (docs/engine.md) */
    json_t *syn = json_object_get(root, "synthesis");
    CHECK(json_integer_value(json_object_get(syn, "max_concurrent")) == 2 &&
          json_is_integer(json_object_get(syn, "active")));
    CHECK(json_array_size(json_object_get(root, "gpu_workers")) == 2);
    json_t *gw = json_array_get(json_object_get(root, "gpu_workers"), 0);
    CHECK(json_is_integer(json_object_get(gw, "worker_id")) &&
          json_integer_value(json_object_get(gw, "gpu_ordinal")) == 0 &&
          !strcmp(json_string_value(json_object_get(gw, "state")), "idle") &&
          json_is_null(json_object_get(gw, "current_job")) &&
          json_is_null(json_object_get(gw, "busy_secs")));
    json_t *al = json_object_get(root, "allocations");
    CHECK(json_array_size(json_object_get(al, "srs")) == 1 &&
          json_is_array(json_object_get(al, "pce")));
    json_t *a0 = json_array_get(json_object_get(al, "srs"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(a0, "circuit_id")), "synth-300") &&
          !strcmp(json_string_value(json_object_get(a0, "key_id")), "synthetic:300") &&
          json_integer_value(json_object_get(a0, "bytes")) > 0 &&
          json_is_real(json_object_get(a0, "last_used_secs_ago")) &&
          json_is_true(json_object_get(a0, "evictable")));
    json_t *ct = json_object_get(root, "counters");
    CHECK(json_integer_value(
              json_object_get(json_object_get(ct, "completed_by_kind"), "synthetic")) == 1 &&
          json_is_object(json_object_get(ct, "failed_by_kind")) &&
          json_integer_value(json_object_get(ct, "queue_depth")) == 0);
    static const char *const bufs[] = {"synth_in_flight", "provers_in_flight", "aux_in_flight",
                                       "shells_in_flight", "pending_handles"};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        CHECK(json_is_integer(json_object_get(json_object_get(root, "buffers"), bufs[i])));
    json_decref(root);
    free(js);
    cuzk_engine_status_free(&st);

    CHECK(cuzk_engine_evict(e, "synthetic", "300x9", &freed) == CUZK_OK);
    CHECK(freed == key_bytes);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    /* an evicted key leaves no entry; what is in use is the kept witness buffers (other) */
    CHECK(st.n_srs == 0 && st.memory.by_owner[CUZK_MEM_KEY] == 0);
    CHECK(st.memory.by_owner[CUZK_MEM_PARTITION] == 0 && st.memory.by_owner[CUZK_MEM_CS] == 0);
    CHECK(st.memory.used == st.memory.by_owner[CUZK_MEM_OTHER]);
    cuzk_engine_status_free(&st);
    /* evicting a key in use is refused: a job holds it while gated */
    cuzk_engine_shutdown(e, CUZK_SHUTDOWN_FINISH);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_ESHUTDOWN);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);

    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct wrap wr;
    wrap_init(&wr, &cpu, "gated");
    wrap_gate(&wr, 1);
    struct cuzk_engine_device dev = {.backend = &wr.be};
    harness_config(&c, NULL);
    c.devices = &dev;
    c.n_devices = 1;
    e = harness_engine(&c, &ks, HARNESS_STARTED);
    r.request_id = "busy";
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(wrap_wait_in_gate(&wr, 1));
    CHECK(cuzk_engine_evict(e, "synthetic", "300", &freed) == CUZK_EBUSY);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    CHECK(st.n_srs == 1 && st.srs[0].refs >= 1);
    CHECK(st.n_jobs == 1 && st.jobs[0].n_partitions == 2 &&
          st.jobs[0].priority == CUZK_PRIORITY_HIGH);
    js = cuzk_engine_status_json(&st, 0);
    CHECK(js && strstr(js, "\"pipelines\":[{\"job_id\":\"busy\""));
    root = js ? json_loads(js, 0, &je) : NULL;
    json_t *pl = json_array_get(json_object_get(root, "pipelines"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(pl, "proof_kind")), "synthetic") &&
          json_is_real(json_object_get(pl, "started_secs_ago")) &&
          json_integer_value(json_object_get(pl, "total_partitions")) == 2);
    /* a partition on the gated device is "gpu" in the reference's phases, "proving" in ours */
    int on_gpu = 0;
    for (size_t i = 0; i < 2; i++) {
        json_t *pp = json_array_get(json_object_get(pl, "partitions"), i);
        const char *ph = json_string_value(json_object_get(pp, "state"));
        CHECK(ph && strstr(" pending synthesizing synth_done gpu done failed ", ph));
        if (ph && !strcmp(ph, "gpu")) {
            on_gpu++;
            CHECK(json_is_integer(json_object_get(pp, "gpu_ms")) &&
                  !strcmp(json_string_value(json_object_get(pp, "engine_state")), "proving"));
        }
    }
    CHECK(on_gpu >= 1);
    gw = json_array_get(json_object_get(root, "gpu_workers"), 0);
    CHECK(json_array_size(json_object_get(root, "gpu_workers")) >= 1);
    int proving = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(root, "gpu_workers")); i++) {
        gw = json_array_get(json_object_get(root, "gpu_workers"), i);
        if (strcmp(json_string_value(json_object_get(gw, "state")), "proving")) continue;
        proving++;
        CHECK(!strcmp(json_string_value(json_object_get(gw, "current_job")), "busy") &&
              json_is_real(json_object_get(gw, "busy_secs")));
    }
    CHECK(proving >= 1 && st.pipeline.device_busy >= 1);
    json_decref(root);
    free(js);
    cuzk_engine_status_free(&st);
    wrap_gate(&wr, 0);
    CHECK(cuzk_engine_await(e, "busy", 60000, &res) == CUZK_OK);
    cuzk_job_result_free(&res);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    wrap_destroy(&wr);
    cuzk_pool_destroy(pool);
}

/* The setup policy: with setup_policy on, only keys matching setup_allow, or stored, or loaded
 * are set up; others are refused at submit (before their sizes) and at preload with
 * CUZK_EDENIED naming the key; the synthetic kind's own bound refuses a large key that is not
 * stored. */
static void test_setup_policy(void) {
    const char *allow[] = {"synthetic:2[0-9][0-9]", "snarkjs:*"};
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.setup_policy = 1;
    c.setup_allow = allow;
    c.n_setup_allow = 2;
    struct cuzk_engine *e;
    char err[256];
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_OK);
    struct cuzk_kinds_config kc;
    cuzk_kinds_config_default(&kc);
    kc.cache_dir = harness_cache_dir();
    kc.filecoin = 0;
    kc.synthetic_max_setup = 1000;
    struct cuzk_kinds *ks = NULL;
    CHECK(cuzk_kinds_create(&ks, &kc, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_kinds_register(ks, e, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    struct cuzk_submit_info info;
    struct cuzk_job_request r = synth_req("317x1", 1, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EDENIED);
    CHECK(strstr(err, "synthetic:317") && strstr(err, "setup_allow"));
    CHECK(cuzk_engine_preload(e, "synthetic", "317", NULL, NULL, err, sizeof err) == CUZK_EDENIED);
    /* allowed by a pattern: set up, proved */
    r = synth_req(SMALL "x1", 2, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    struct cuzk_job_result res;
    CHECK(cuzk_engine_await(e, info.job_id, 60000, &res) == CUZK_OK && res.state == CUZK_JOB_DONE);
    cuzk_job_result_free(&res);
    /* above the synthetic kind's bound: refused whatever the patterns say */
    r = synth_req("5000x1", 1, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EDENIED);
    CHECK(strstr(err, "max_setup_constraints") != NULL);
    char path[512];
    struct stat fst;
    snprintf(path, sizeof path, "%s/synthetic-317.zkey", harness_cache_dir());
    CHECK(stat(path, &fst) != 0); /* nothing was set up for the refused key */
    cuzk_engine_destroy(e);

    /* the same key once stored (set up by an engine without a policy) is used under it */
    struct cuzk_engine *open;
    harness_config(&c, NULL);
    CHECK(cuzk_engine_create(&open, &c, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_kinds_register(ks, open, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_preload(open, "synthetic", "317", NULL, NULL, err, sizeof err) == CUZK_OK);
    cuzk_engine_destroy(open);
    harness_config(&c, NULL);
    c.setup_policy = 1;
    c.setup_allow = NULL; /* nothing may be set up */
    c.n_setup_allow = 0;
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_kinds_register(ks, e, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_start(e) == CUZK_OK);
    r = synth_req("317x1", 3, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, info.job_id, 60000, &res) == CUZK_OK && res.state == CUZK_JOB_DONE);
    cuzk_job_result_free(&res);
    r = synth_req("319x1", 3, CUZK_PRIORITY_DEFAULT, NULL);
    CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_EDENIED);
    CHECK(strstr(err, "is empty") != NULL);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

int main(void) {
    test_init("test_engine");
    cuzk_log_set_level(CUZK_LOG_WARN);
    test_proofs();
    test_idempotency_ttl();
    test_cancel_timeout();
    test_device_info();
    test_watch();
    test_priority();
    test_keys_status();
    test_setup_policy();
    harness_cache_remove();
    return test_finish();
}
