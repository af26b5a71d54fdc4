/* The memory budget (sizes, blocking reservations without lost wake-ups, abort, eviction), the
 * logging module, and the engine's promise on memory: with an explicit budget its peak RSS
 * (VmHWM of /proc/self/status) stays below the budget plus the documented constant
 * (docs/engine.md, CUZK_ENGINE_RSS_SLACK here) while jobs far larger than the budget run. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "engine/budget.h"
#include "groth16/groth16.h"
#include "util/log.h"
#include "util/pool.h"
#include "engine_harness.h"
#include "test_util.h"

/* docs/engine.md "Peak RSS": the engine's resident memory beyond its budget (threads, the
 * allocator's slack, small bookkeeping) stays below this. */
#define CUZK_ENGINE_RSS_SLACK ((uint64_t)48 << 20)

#define MiB ((uint64_t)1 << 20)

/* Sanitizer runtimes keep their own memory (shadow, quarantine): the RSS bound is checked in
 * plain builds only; sanitizer builds (SANITIZED, test_util.h) run the same jobs on a smaller
 * circuit. */

static void test_sizes(void) {
    uint64_t v;
    CHECK(cuzk_parse_size("1024", &v) == CUZK_OK && v == 1024);
    CHECK(cuzk_parse_size("1.5KiB", &v) == CUZK_OK && v == 1536);
    CHECK(cuzk_parse_size("3 MiB", &v) == CUZK_OK && v == 3 * MiB);
    CHECK(cuzk_parse_size("2GiB", &v) == CUZK_OK && v == 2048 * MiB);
    CHECK(cuzk_parse_size("2G", &v) == CUZK_OK && v == 2048 * MiB);
    CHECK(cuzk_parse_size("1TiB", &v) == CUZK_OK && v == (uint64_t)1 << 40);
    CHECK(cuzk_parse_size("5GB", &v) == CUZK_OK && v == (uint64_t)5 << 30);
    CHECK(cuzk_parse_size("0", &v) == CUZK_OK && v == 0);
    CHECK(cuzk_parse_size("64B", &v) == CUZK_OK && v == 64);
    const char *bad[] = {"",    "abc",   "-1",      "1PiB",   "1.5", "1.5B",
                         "GiB", "12 34", "1e30TiB", "5 GiBs", "nan", NULL};
    for (int i = 0; bad[i]; i++) CHECK(cuzk_parse_size(bad[i], &v) == CUZK_EINVAL);
    CHECK(cuzk_parse_size(NULL, &v) == CUZK_EINVAL);
    char err[256];
    CHECK(cuzk_budget_total((uint64_t)12 << 30, (uint64_t)5 << 30, &v, err, sizeof err) ==
              CUZK_OK &&
          v == (uint64_t)12 << 30);
    CHECK(cuzk_budget_total(0, MiB, &v, err, sizeof err) == CUZK_OK && v > 0); /* auto */
    CHECK(cuzk_budget_total(0, (uint64_t)1 << 50, &v, err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "safety margin") != NULL);
    /* the engine refuses a margin above the machine's memory at create */
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = 0;
    c.safety_margin = (uint64_t)1 << 50;
    struct cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_EINVAL && e == NULL);
}

struct res_thread {
    struct cuzk_budget *b;
    uint64_t bytes, rank;
    atomic_int *abort_flag;
    int rc;
    double waited;
    struct cuzk_reservation r;
    pthread_t th;
};

static int flag_abort(void *ctx) { return atomic_load((atomic_int *)ctx); }

static void *reserve_main(void *arg) {
    struct res_thread *t = arg;
    t->rc =
        cuzk_budget_reserve(t->b, t->bytes, CUZK_MEM_PARTITION, t->rank, "a test",
                            t->abort_flag ? flag_abort : NULL, t->abort_flag, &t->r, &t->waited);
    return NULL;
}

struct cache {
    struct cuzk_reservation r;
    int urgent_seen;
    pthread_mutex_t mu;
};

static uint64_t cache_evict(void *ctx, uint64_t need, int urgent) {
    struct cache *c = ctx;
    (void)need;
    pthread_mutex_lock(&c->mu);
    uint64_t freed = 0;
    if (urgent && c->r.bytes) { /* only idle enough when nothing else can free memory */
        freed = c->r.bytes;
        c->urgent_seen = 1;
        cuzk_reservation_release_all(&c->r);
    }
    pthread_mutex_unlock(&c->mu);
    return freed;
}

struct churn {
    struct cuzk_budget *b;
    unsigned seed;
    pthread_t th;
};

static void *churn_main(void *arg) {
    struct churn *c = arg;
    for (int i = 0; i < 3000; i++) {
        c->seed = c->seed * 1103515245u + 12345u;
        struct cuzk_reservation r;
        uint64_t n = 1 + (c->seed >> 16) % 400;
        if (cuzk_budget_reserve(c->b, n, CUZK_MEM_PARTITION, 0, NULL, NULL, NULL, &r, NULL))
            return NULL;
        cuzk_reservation_release(&r, n / 2);
        cuzk_reservation_release_all(&r);
    }
    return NULL;
}

/* Waits (10 s at most) until n reservations wait in b: a thread's start is not bounded in
 * time on a loaded machine or in a sanitizer build. Returns whether they do. */
static int waiters_reach(struct cuzk_budget *b, uint32_t n) {
    struct cuzk_budget_stats st;
    for (int i = 0; i < 5000; i++) {
        cuzk_budget_get_stats(b, &st);
        if (st.waiters == n) return 1;
        harness_sleep_ms(2);
    }
    return 0;
}

static void test_budget(void) {
    struct cuzk_budget *b;
    CHECK(cuzk_budget_create(&b, 1000) == CUZK_OK);
    struct cuzk_reservation r1, r2;
    CHECK(cuzk_budget_reserve(b, 600, CUZK_MEM_KEY, 0, NULL, NULL, NULL, &r1, NULL) == CUZK_OK);
    CHECK(cuzk_budget_try_reserve(b, 500, CUZK_MEM_PARTITION, 0, &r2) == CUZK_EBUSY);
    CHECK(cuzk_budget_reserve(b, 1001, CUZK_MEM_PARTITION, 0, NULL, NULL, NULL, &r2, NULL) ==
          CUZK_ENOMEM);
    struct cuzk_budget_stats st;
    cuzk_budget_get_stats(b, &st);
    CHECK(st.used == 600 && st.by_owner[CUZK_MEM_KEY] == 600 && st.waiters == 0);

    /* a reservation waits until enough is released */
    struct res_thread t = {.b = b, .bytes = 500};
    pthread_create(&t.th, NULL, reserve_main, &t);
    CHECK(waiters_reach(b, 1));
    cuzk_reservation_release(&r1, 50); /* 550 used: not yet */
    harness_sleep_ms(50);
    cuzk_budget_get_stats(b, &st);
    CHECK(st.waiters == 1 && st.used == 550);
    cuzk_reservation_release(&r1, 100);
    pthread_join(t.th, NULL);
    CHECK(t.rc == CUZK_OK && t.waited >= 50 && t.r.bytes == 500);
    cuzk_budget_get_stats(b, &st);
    CHECK(st.used == 950 && st.by_owner[CUZK_MEM_PARTITION] == 500);
    cuzk_reservation_release_all(&t.r);
    cuzk_reservation_release_all(&r1);
    cuzk_reservation_release_all(&r1); /* twice is harmless */
    cuzk_budget_get_stats(b, &st);
    CHECK(st.used == 0 && st.peak_used == 950);

    /* abort */
    atomic_int flag = 0;
    CHECK(cuzk_budget_reserve(b, 900, CUZK_MEM_KEY, 0, NULL, NULL, NULL, &r1, NULL) == CUZK_OK);
    struct res_thread ta = {.b = b, .bytes = 200, .abort_flag = &flag};
    pthread_create(&ta.th, NULL, reserve_main, &ta);
    CHECK(waiters_reach(b, 1));
    atomic_store(&flag, 1);
    cuzk_budget_wake(b);
    pthread_join(ta.th, NULL);
    CHECK(ta.rc == CUZK_ECANCELLED && ta.r.bytes == 0);

    cuzk_reservation_release_all(&r1);

    /* ranks and claims: a claim younger than the overtake time lets others by; an aged one
     * holds back what it needs, for requests of a larger rank only */
    cuzk_budget_set_overtake(b, 100);
    CHECK(cuzk_budget_reserve(b, 700, CUZK_MEM_KEY, 0, NULL, NULL, NULL, &r1, NULL) == CUZK_OK);
    struct cuzk_budget_claim claim = {0};
    cuzk_budget_claim_set(b, &claim, 500, 10); /* waits for 500, rank 10 */
    CHECK(cuzk_budget_try_reserve(b, 200, CUZK_MEM_PARTITION, 20, &r2) == CUZK_OK); /* young */
    cuzk_reservation_release_all(&r2);
    harness_sleep_ms(150);
    CHECK(cuzk_budget_try_reserve(b, 200, CUZK_MEM_PARTITION, 20, &r2) == CUZK_EBUSY); /* aged */
    CHECK(cuzk_budget_try_reserve(b, 200, CUZK_MEM_PARTITION, 5, &r2) == CUZK_OK);     /* ahead */
    cuzk_reservation_release_all(&r2);
    /* a blocking reserve behind the aged claim waits until the claim is gone */
    struct res_thread tr = {.b = b, .bytes = 200, .rank = 30};
    pthread_create(&tr.th, NULL, reserve_main, &tr);
    CHECK(waiters_reach(b, 1));
    cuzk_budget_claim_clear(b, &claim);
    pthread_join(tr.th, NULL);
    CHECK(tr.rc == CUZK_OK && tr.r.bytes == 200);
    cuzk_reservation_release_all(&tr.r);
    /* a claim that got what it waited for is cleared: the memory is free for all again (aged
     * past the overtake time it holds its 200 back from rank 99 until then) */
    cuzk_budget_claim_set(b, &claim, 200, 10);
    harness_sleep_ms(150);
    CHECK(cuzk_budget_try_reserve(b, 300, CUZK_MEM_PARTITION, 99, &r2) == CUZK_EBUSY);
    cuzk_budget_claim_clear(b, &claim);
    CHECK(cuzk_budget_try_reserve(b, 300, CUZK_MEM_PARTITION, 99, &r2) == CUZK_OK);
    cuzk_reservation_release_all(&r2);
    cuzk_reservation_release_all(&r1);
    cuzk_budget_set_overtake(b, 2000);

    /* the evictor: an idle cache that may go only when the request is urgent (no partition
     * memory in use, so nothing else would ever free memory) */
    struct cache cache = {.urgent_seen = 0};
    pthread_mutex_init(&cache.mu, NULL);
    CHECK(cuzk_budget_reserve(b, 700, CUZK_MEM_KEY, 0, NULL, NULL, NULL, &cache.r, NULL) ==
          CUZK_OK);
    cuzk_budget_set_evictor(b, cache_evict, &cache);
    double t0 = harness_ms();
    CHECK(cuzk_budget_reserve(b, 500, CUZK_MEM_PARTITION, 0, NULL, NULL, NULL, &r1, NULL) ==
          CUZK_OK);
    CHECK(cache.urgent_seen && harness_ms() - t0 < 500);
    cuzk_reservation_release_all(&r1);
    cuzk_budget_set_evictor(b, NULL, NULL);
    pthread_mutex_destroy(&cache.mu);

    /* churn: four threads reserve and release; a lost wake-up would hang here */
    struct churn ch[4];
    for (int i = 0; i < 4; i++) {
        ch[i] = (struct churn){.b = b, .seed = (unsigned)i * 77u + 1};
        pthread_create(&ch[i].th, NULL, churn_main, &ch[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(ch[i].th, NULL);
    cuzk_budget_get_stats(b, &st);
    CHECK(st.used == 0 && st.waiters == 0);
    cuzk_budget_destroy(b);
}

/* ---- logging ---- */

struct log_cap {
    char lines[8][512];
    int n;
};

static void log_sink_fn(void *ctx, int level, const char *line) {
    struct log_cap *c = ctx;
    (void)level;
    if (c->n < 8) snprintf(c->lines[c->n++], sizeof c->lines[0], "%s", line);
}

static int counted;
static int count_call(void) { return ++counted; }

static void test_log(void) {
    struct log_cap cap = {.n = 0};
    cuzk_log_set_sink(log_sink_fn, &cap);
    cuzk_log_set_level(CUZK_LOG_INFO);
    cuzk_log_info("engine", "hello %d", 42);
    counted = 0;
    cuzk_log_debug("engine", "never %d", count_call()); /* not even formatted */
    CHECK(counted == 0);
    cuzk_log_warn("srs", "w");
    CHECK(cap.n == 2);
    CHECK(strstr(cap.lines[0], " INFO  engine: hello 42") != NULL);
    CHECK(cap.lines[0][4] == '-' && cap.lines[0][10] == 'T' && strchr(cap.lines[0], 'Z'));
    CHECK(strstr(cap.lines[1], " WARN  srs: w") != NULL);
    cuzk_log_set_format(CUZK_LOG_JSON);
    cuzk_log_error("x", "quote \" back \\ nl \n end");
    CHECK(cap.n == 3);
    CHECK(strstr(cap.lines[2], "\"level\":\"error\",\"module\":\"x\"") != NULL);
    CHECK(strstr(cap.lines[2], "\"msg\":\"quote \\\" back \\\\ nl \\n end\"}") != NULL);
    cuzk_log_set_format(CUZK_LOG_TEXT);
    cuzk_log_set_sink(NULL, NULL);
    enum cuzk_log_level lv;
    enum cuzk_log_format fm;
    CHECK(cuzk_log_level_parse("DEBUG", &lv) == CUZK_OK && lv == CUZK_LOG_DEBUG);
    CHECK(cuzk_log_level_parse("warning", &lv) == CUZK_OK && lv == CUZK_LOG_WARN);
    CHECK(cuzk_log_level_parse("loud", &lv) == CUZK_EINVAL);
    CHECK(cuzk_log_format_parse("json", &fm) == CUZK_OK && fm == CUZK_LOG_JSON);
    CHECK(cuzk_log_format_parse("xml", &fm) == CUZK_EINVAL);
    CHECK(!strcmp(cuzk_log_level_name(CUZK_LOG_WARN), "warn"));
    cuzk_log_set_level(CUZK_LOG_WARN);
}

/* ---- peak RSS under a budget ---- */

static uint64_t status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long v = 0;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && sscanf(line + n, ": %llu", &v) == 1) break;
    fclose(f);
    return v;
}

struct poller {
    struct cuzk_engine *e;
    atomic_int stop;
    uint64_t max_used, total, max_partition;
    uint32_t max_waiters, max_gpu_pending;
    pthread_t th;
};

static void *poll_main(void *arg) {
    struct poller *p = arg;
    while (!atomic_load(&p->stop)) {
        struct cuzk_engine_status st;
        if (cuzk_engine_status(p->e, &st) == CUZK_OK) {
            if (st.memory.used > p->max_used) p->max_used = st.memory.used;
            if (st.memory.by_owner[CUZK_MEM_PARTITION] > p->max_partition)
                p->max_partition = st.memory.by_owner[CUZK_MEM_PARTITION];
            if (st.memory.waiters > p->max_waiters) p->max_waiters = st.memory.waiters;
            uint32_t gpu_pending = 0;
            for (size_t i = 0; i < st.n_kinds; i++) gpu_pending += st.kinds[i].gpu_pending;
            if (gpu_pending > p->max_gpu_pending) p->max_gpu_pending = gpu_pending;
            p->total = st.memory.total;
            cuzk_engine_status_free(&st);
        }
        harness_sleep_ms(2);
    }
    return NULL;
}

static void test_peak_rss(void) {
    const uint64_t budget = (SANITIZED ? 10 : 20) * MiB;
    /* the peak counter is reset here, so that it measures the engine's lifetime only */
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    int reset = cr && fputs("5", cr) >= 0;
    if (cr) reset = fclose(cr) == 0 && reset;
    uint64_t base = status_kib("VmRSS") * 1024;
    struct cuzk_engine_config c;
    harness_config(&c, NULL);
    c.total_budget = budget;
    c.trim_threshold = 0;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    struct poller p = {.e = e};
    pthread_create(&p.th, NULL, poll_main, &p);
    /* three jobs of 10 partitions of 2^12-point proofs: 30 partitions of about 5 MiB each
     * (the estimate), the key and its constraint system in the same budget */
    char ids[3][CUZK_JOB_ID_MAX];
    for (int i = 0; i < 3; i++) {
        struct cuzk_job_request r = {.kind = "synthetic",
                                     .circuit_id = SANITIZED ? "1024x10" : "2048x10",
                                     .priority = CUZK_PRIORITY_DEFAULT,
                                     .seed = (uint64_t)i};
        struct cuzk_submit_info info;
        CHECK(cuzk_engine_submit(e, &r, &info, err, sizeof err) == CUZK_OK);
        snprintf(ids[i], sizeof ids[i], "%s", info.job_id);
    }
    for (int i = 0; i < 3; i++) {
        struct cuzk_job_result res;
        CHECK(cuzk_engine_await(e, ids[i], 600000, &res) == CUZK_OK);
        CHECK(res.state == CUZK_JOB_DONE && res.n_partitions == 10);
        cuzk_job_result_free(&res);
    }
    atomic_store(&p.stop, 1);
    pthread_join(p.th, NULL);
    uint64_t hwm = status_kib("VmHWM") * 1024;
    CHECK(p.total == budget && p.max_used <= budget);
    CHECK(p.max_waiters >= 1); /* the budget did hold partitions back */
    printf("test_engine_budget: budget %llu MiB, accounted peak %.1f MiB (partitions %.1f), "
           "RSS base %.1f MiB, peak %.1f MiB (%s), peak - base %.1f MiB\n",
           (unsigned long long)(budget / MiB), (double)p.max_used / MiB,
           (double)p.max_partition / MiB, (double)base / MiB, (double)hwm / MiB,
           reset ? "reset at start" : "process lifetime", (double)(hwm - base) / MiB);
    if (reset && !SANITIZED) CHECK(hwm <= base + budget + CUZK_ENGINE_RSS_SLACK);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
}

/* ---- witness buffers under a full budget ---- */

/* The CPU backend with witness buffers of its own, counted: a GPU backend's pinned buffers are
 * slow to make and to free (each stalls the device's other work), so a stream whose budget is
 * full must reuse them, not free and make them again. */
struct counting {
    struct cuzk_backend be;
    const struct cuzk_backend *inner;
    atomic_int allocs, frees;
};

static int counting_prove(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                          const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                          const struct cuzk_prove_hooks *hooks, struct cuzk_snarkjs_proof *out,
                          struct cuzk_prove_info *info, char *err, size_t errlen) {
    const struct counting *x = be->impl;
    return x->inner->prove(x->inner, pk, w, n_w, r, s, hooks, out, info, err, errlen);
}

static void counting_mem(const struct cuzk_backend *be, uint32_t n_vars, uint32_t domain,
                         struct cuzk_backend_mem *out) {
    const struct counting *x = be->impl;
    x->inner->mem(x->inner, n_vars, domain, out);
}

static int counting_alloc(const struct cuzk_backend *be, size_t n, cuzk_fr **out) {
    struct counting *x = be->impl;
    *out = aligned_alloc(64, (n * sizeof(cuzk_fr) + 63) & ~(size_t)63);
    if (!*out) return CUZK_ENOMEM;
    atomic_fetch_add(&x->allocs, 1);
    return CUZK_OK;
}

static void counting_free(const struct cuzk_backend *be, cuzk_fr *w, size_t n) {
    struct counting *x = be->impl;
    (void)n;
    free(w);
    atomic_fetch_add(&x->frees, 1);
}

/* The counting backend over cpu on one device of 2 workers, and an engine config using it. */
static void counting_setup(struct counting *x, const struct cuzk_backend *cpu,
                           struct cuzk_engine_device *dev, struct cuzk_engine_config *c) {
    memset(x, 0, sizeof *x);
    x->inner = cpu;
    x->be.name = "counting";
    x->be.impl = x;
    x->be.prove = counting_prove;
    x->be.mem = counting_mem;
    x->be.witness_alloc = counting_alloc;
    x->be.witness_free = counting_free;
    *dev = (struct cuzk_engine_device){.backend = &x->be, .workers = 2};
    harness_config(c, NULL);
    c->devices = dev;
    c->n_devices = 1;
}

static void test_witness_reuse(void) {
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct counting x;
    struct cuzk_engine_device dev;
    struct cuzk_engine_config c;
    counting_setup(&x, &cpu, &dev, &c);
    /* a budget the key and about three partitions fill: every later partition waits for the
     * memory an earlier one gives back */
    c.total_budget = (SANITIZED ? 10 : 16) * MiB;
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    char err[256];
    struct poller p = {.e = e};
    pthread_create(&p.th, NULL, poll_main, &p);
    struct cuzk_job_request r = {.kind = "synthetic",
                                 .circuit_id = SANITIZED ? "1024x24" : "2048x24",
                                 .priority = CUZK_PRIORITY_DEFAULT,
                                 .seed = 5};
    struct cuzk_submit_info info;
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 600000, &info, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.n_partitions == 24);
    cuzk_job_result_free(&res);
    atomic_store(&p.stop, 1);
    pthread_join(p.th, NULL);
    CHECK(p.max_waiters >= 1); /* the budget did hold partitions back */
    /* a buffer is made only when none is kept, so no more were ever made than partitions held
     * at once: one per synthesis and device worker (2 + 2), and one per partition waiting in
     * the device queue (none when proofs keep up with synthesis, as in a release build; some
     * when they are slow, as under TSan), whatever the budget: 24 partitions reused them */
    int allocs = atomic_load(&x.allocs);
    printf("test_engine_budget: 24 partitions in a full budget: %d witness buffers made, %d freed "
           "(device queue up to %u)\n",
           allocs, atomic_load(&x.frees), p.max_gpu_pending);
    CHECK(allocs >= 1 && allocs <= 4 + (int)p.max_gpu_pending);
    CHECK(atomic_load(&x.frees) <= allocs);
    cuzk_engine_destroy(e);
    CHECK(atomic_load(&x.frees) == allocs); /* every kept buffer is freed with the engine */
    cuzk_kinds_destroy(ks);
    cuzk_pool_destroy(pool);
}

/* With prepin_witness, a preload makes the witness buffers its jobs will take
 * (cuzk_eng_witness_prepin), as many as the budget holds up to twice the cache's size (2 synthesis
 * + 2 device workers: partitions queued for the device hold one too), charged as kept buffers: a
 * job of 4 partitions after it makes none (before, each of its partitions made one), and frees none
 * when its partitions give them back (the cache keeps all that were made ahead). */
static void test_witness_prepin(void) {
    struct cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    struct cuzk_backend cpu;
    cuzk_cpu_backend_init(&cpu, pool);
    struct counting x;
    struct cuzk_engine_device dev;
    struct cuzk_engine_config c;
    counting_setup(&x, &cpu, &dev, &c);
    c.total_budget = 256 * MiB;
    char err[256];
    /* off (the default): a preload makes none */
    struct cuzk_kinds *ks;
    struct cuzk_engine *e = harness_engine(&c, &ks, HARNESS_STARTED);
    CHECK(cuzk_engine_preload(e, "synthetic", "2048x4", NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(atomic_load(&x.allocs) == 0);
    cuzk_engine_destroy(e);
    cuzk_kinds_destroy(ks);
    c.prepin_witness = 1;
    e = harness_engine(&c, &ks, HARNESS_STARTED);
    struct cuzk_engine_status st;
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    const uint64_t other0 = st.memory.by_owner[CUZK_MEM_OTHER];
    cuzk_engine_status_free(&st);
    CHECK(cuzk_engine_preload(e, "synthetic", "2048x4", NULL, NULL, err, sizeof err) == CUZK_OK);
    const int made = atomic_load(&x.allocs);
    CHECK(cuzk_engine_status(e, &st) == CUZK_OK);
    const uint64_t other = st.memory.by_owner[CUZK_MEM_OTHER] - other0;
    cuzk_engine_status_free(&st);
    struct cuzk_job_request r = {
        .kind = "synthetic", .circuit_id = "2048x4", .priority = CUZK_PRIORITY_DEFAULT, .seed = 9};
    struct cuzk_job_result res;
    CHECK(cuzk_engine_prove(e, &r, 600000, NULL, &res, err, sizeof err) == CUZK_OK);
    CHECK(res.state == CUZK_JOB_DONE && res.n_partitions == 4);
    cuzk_job_result_free(&res);
    printf("test_engine_budget: %d witness buffers made at preload (%llu bytes charged), %d "
           "after a job of 4 partitions\n",
           made, (unsigned long long)other, atomic_load(&x.allocs));
    CHECK(made == 8);                                /* twice the cache's size */
    CHECK(other > 0 && other % (uint64_t)made == 0); /* eight equal buffers, charged */
    CHECK(atomic_load(&x.allocs) == made);           /* the job made none */
    CHECK(atomic_load(&x.frees) == 0);               /* and freed none */
    /* a second preload of the same key makes no more (the cache is full) */
    CHECK(cuzk_engine_preload(e, "synthetic", "2048x4", NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(atomic_load(&x.allocs) == made);
    cuzk_engine_destroy(e);
    CHECK(atomic_load(&x.frees) == atomic_load(&x.allocs));
    cuzk_kinds_destroy(ks);
    cuzk_pool_destroy(pool);
}

int main(void) {
    test_init("test_engine_budget");
    cuzk_log_set_level(CUZK_LOG_WARN);
    test_sizes();
    test_budget();
    test_log();
    test_peak_rss();
    test_witness_reuse();
    test_witness_prepin();
    harness_cache_remove();
    return test_finish();
}
