/* The daemon configuration table: defaults, every key set to a valid value, bad values stop the
 * load with the key and the reason, unknown and deprecated keys warn, the sample configuration
 * conf/cuzk.example.toml is exactly what the table prints for the defaults, and printing then
 * reloading any configuration gives it back. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "server/config.h"
#include "test_util.h"
#include "util/file.h"

struct warnings {
    int n;
    char last[512];
    char all[2048]; /* every message, one per line */
};

static void on_warn(void *ctx, const char *msg) {
    struct warnings *w = ctx;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
    const size_t used = strlen(w->all);
    snprintf(w->all + used, sizeof w->all - used, "%s\n", msg);
}

/* Loads text over the defaults; returns the load's code, err and warnings in the out params. */
static int load(struct cuzk_config *c, const char *text, struct warnings *w, char *err,
                size_t errlen) {
    memset(w, 0, sizeof *w);
    CHECK(cuzk_config_init(c) == CUZK_OK);
    return cuzk_config_load_text(c, text, strlen(text), "test.toml", on_warn, w, err, errlen);
}

static void test_defaults(void) {
    struct cuzk_config c;
    CHECK(cuzk_config_init(&c) == CUZK_OK);
    CHECK(!strcmp(c.listen, "unix:///run/curio/cuzk.sock"));
    CHECK(!strcmp(c.status_listen, ""));
    CHECK(c.max_message_size == 256u << 20);
    CHECK(!strcmp(c.shutdown, "finish"));
    CHECK(c.shutdown_timeout_ms == 600000);
    CHECK(c.max_blocking_calls == 1024);
    CHECK(!strcmp(c.kinds.cache_dir, "") && !strcmp(c.snarkjs_dir, ""));
    /* the engine's, the kinds' and the GPU backends' fields hold their own defaults: one
     * place, not two */
    struct cuzk_engine_config ed;
    cuzk_engine_config_default(&ed);
    struct cuzk_kinds_config kd;
    cuzk_kinds_config_default(&kd);
    struct cuzk_cuda_config gd;
    cuzk_cuda_config_default(&gd);
    CHECK(c.engine.total_budget == ed.total_budget && ed.total_budget == 0); /* auto */
    CHECK(c.engine.safety_margin == ed.safety_margin && ed.safety_margin == 5ull << 30);
    CHECK(c.engine.eviction_min_idle_ms == 300000 && c.engine.srs_idle_evict_ms == 0);
    CHECK(c.engine.trim_threshold == 64u << 20 && c.engine.mem_overtake_ms == 2000);
    CHECK(c.n_devices == 0 && c.engine.gpu_workers_per_device == 2 && c.gpu_threads == 0);
    CHECK(c.cuda.vram_budget == gd.vram_budget && gd.vram_budget == 0); /* auto */
    CHECK(c.cuda.fold_h_min == gd.fold_h_min && gd.fold_h_min == (int64_t)1 << 26);
    CHECK(c.cuda.fold_dense_min == gd.fold_dense_min && gd.fold_dense_min == (int64_t)1 << 22);
    CHECK(c.cuda.presum == 1 && c.cuda.overlap_ntt == 1 && gd.presum == 1 && gd.overlap_ntt == 1);
    CHECK(c.engine.key_loaders == 2);
    CHECK(c.engine.result_ttl_ms == 1800000);
    CHECK(c.engine.cpu_threads == 0 && c.engine.synth_workers == 0 && c.engine.self_verify == 1);
    CHECK(c.kinds.synthetic_partitions == kd.synthetic_partitions && kd.synthetic_partitions == 10);
    CHECK(c.kinds.synthetic_check == 1 && c.kinds.filecoin_check == 0 && c.kinds.filecoin == 1);
    CHECK(!strcmp(c.log_level, "info") && !strcmp(c.log_format, "text") && c.timeline == 1);
    cuzk_config_free(&c);
}

/* Every key, set to a value other than its default. */
static const char all_keys[] = "[daemon]\n"
                               "listen = \"127.0.0.1:9820\"\n"
                               "status_listen = \"[::1]:9821\"\n"
                               "max_message_size = \"128MiB\"\n"
                               "shutdown = \"cancel\"\n"
                               "shutdown_timeout = \"90s\"\n"
                               "max_blocking_calls = 7\n"
                               "max_input_bytes = \"3GiB\"\n"
                               "cancel_on_disconnect = true\n"
                               "tls_cert = \"/etc/cuzk/cert.pem\"\n"
                               "tls_key = \"/etc/cuzk/key.pem\"\n"
                               "tls_client_ca = \"/etc/cuzk/ca.pem\"\n"
                               "[srs]\n"
                               "param_cache = \"/var/lib/cuzk/params\"\n"
                               "on_demand_setup = false\n"
                               "setup_allow = \"porep:*\"\n"
                               "[snarkjs]\n"
                               "dir = \"/var/lib/cuzk/circuits\"\n"
                               "[memory]\n"
                               "total_budget = \"400GiB\"\n"
                               "safety_margin = 1048576\n"
                               "eviction_min_idle = \"2m\"\n"
                               "srs_idle_evict = \"1h\"\n"
                               "trim_threshold = \"1MiB\"\n"
                               "overtake = \"500ms\"\n"
                               "pin_at_preload = false\n"
                               "[gpus]\n"
                               "devices = [1, 0, 3]\n"
                               "gpu_workers_per_device = 3\n"
                               "gpu_threads = 32\n"
                               "vram_budget = \"100GiB\"\n"
                               "fold_h_min = 0\n"
                               "fold_dense_min = 65536\n"
                               "presum = false\n"
                               "overlap_ntt = false\n"
                               "[scheduler]\n"
                               "result_ttl = \"1.5h\"\n"
                               "[synthesis]\n"
                               "threads = 12\n"
                               "[pipeline]\n"
                               "max_parallel_synthesis = 18\n"
                               "key_loaders = 3\n"
                               "self_verify = false\n"
                               "[synthetic]\n"
                               "partitions = 4\n"
                               "check = false\n"
                               "max_setup_constraints = 4096\n"
                               "max_cache_bytes = \"1GiB\"\n"
                               "[filecoin]\n"
                               "check = true\n"
                               "[logging]\n"
                               "level = \"debug\"\n"
                               "format = \"json\"\n"
                               "timeline = false\n";

static void check_all_keys(const struct cuzk_config *c) {
    CHECK(!strcmp(c->listen, "127.0.0.1:9820"));
    CHECK(!strcmp(c->status_listen, "[::1]:9821"));
    CHECK(c->max_message_size == 128u << 20);
    CHECK(!strcmp(c->shutdown, "cancel"));
    CHECK(c->shutdown_timeout_ms == 90000);
    CHECK(c->max_blocking_calls == 7 && c->max_input_bytes == 3ull << 30);
    CHECK(c->cancel_on_disconnect == 1);
    CHECK(!strcmp(c->tls_cert, "/etc/cuzk/cert.pem") && !strcmp(c->tls_key, "/etc/cuzk/key.pem") &&
          !strcmp(c->tls_client_ca, "/etc/cuzk/ca.pem"));
    CHECK(c->on_demand_setup == 0 && !strcmp(c->setup_allow, "porep:*"));
    CHECK(c->kinds.synthetic_max_setup == 4096);
    CHECK(c->kinds.synthetic_max_cache == 1ull << 30);
    CHECK(!strcmp(c->kinds.cache_dir, "/var/lib/cuzk/params"));
    CHECK(!strcmp(c->snarkjs_dir, "/var/lib/cuzk/circuits"));
    CHECK(c->engine.total_budget == 400ull << 30);
    CHECK(c->engine.safety_margin == 1u << 20);
    CHECK(c->engine.eviction_min_idle_ms == 120000);
    CHECK(c->engine.srs_idle_evict_ms == 3600000);
    CHECK(c->engine.trim_threshold == 1u << 20 && c->engine.mem_overtake_ms == 500);
    CHECK(c->engine.prepin_witness == 0); /* the default is on */
    CHECK(c->n_devices == 3 && c->devices[0] == 1 && c->devices[1] == 0 && c->devices[2] == 3);
    CHECK(c->engine.gpu_workers_per_device == 3 && c->gpu_threads == 32);
    CHECK(c->cuda.vram_budget == 100ull << 30);
    CHECK(c->cuda.fold_h_min == 0);         /* the default is 2^26 */
    CHECK(c->cuda.fold_dense_min == 65536); /* the default is 2^22 */
    CHECK(c->cuda.presum == 0);             /* the default is on */
    CHECK(c->cuda.overlap_ntt == 0);        /* the default is on */
    CHECK(c->engine.result_ttl_ms == 5400000);
    CHECK(c->engine.cpu_threads == 12 && c->engine.synth_workers == 18);
    CHECK(c->engine.key_loaders == 3 && c->engine.self_verify == 0);
    CHECK(c->kinds.synthetic_partitions == 4 && c->kinds.synthetic_check == 0);
    CHECK(c->kinds.filecoin_check == 1);
    CHECK(!strcmp(c->log_level, "debug") && !strcmp(c->log_format, "json") && c->timeline == 0);
}

static void test_every_key(void) {
    struct cuzk_config c;
    struct warnings w;
    char err[512] = "";
    int rc = load(&c, all_keys, &w, err, sizeof err);
    if (rc) fprintf(stderr, "load: %s\n", err);
    CHECK(rc == CUZK_OK && w.n == 0);
    check_all_keys(&c);

    /* printing and reading back gives the same configuration */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cuzk_config_print(f, &c);
    fclose(f);
    struct cuzk_config c2;
    CHECK(load(&c2, text, &w, err, sizeof err) == CUZK_OK && w.n == 0);
    check_all_keys(&c2);
    free(text);
    cuzk_config_free(&c2);

    /* every key of the table appears in all_keys (so the checks above cover the table) */
    for (size_t i = 0; cuzk_config_key(i, 0); i++) {
        const char *key = cuzk_config_key(i, 0), *dot = strchr(key, '.');
        char section[64], line[96];
        snprintf(section, sizeof section, "[%.*s]\n", (int)(dot - key), key);
        snprintf(line, sizeof line, "\n%s = ", dot + 1);
        const char *s = strstr(all_keys, section);
        const char *next = s ? strstr(s + 1, "\n[") : NULL;
        const char *at = s ? strstr(s, line) : NULL;
        int found = at && (!next || at < next);
        if (!found) fprintf(stderr, "key %s is not in the test's all_keys\n", key);
        CHECK(found);
    }
    cuzk_config_free(&c);
}

struct bad_case {
    const char *text;
    const char *want; /* substring of the error */
};

static void test_bad_values(void) {
    static const struct bad_case cases[] = {
        {"[daemon]\nlisten = 9820\n", "test.toml:2:10: daemon.listen: expected a string"},
        {"[daemon]\nlisten = \"unix:/tmp/x\"\n", "daemon.listen: a unix socket address is"},
        {"[daemon]\nlisten = \"unix:///tmp/dir/\"\n", "names a directory"},
        {"[daemon]\nlisten = \"localhost\"\n", "expected \"host:port\""},
        {"[daemon]\nlisten = \"host:-1\"\n", "port must be a number from 0 to 65535"},
        {"[daemon]\nlisten = \"host:65536\"\n", "port must be a number"},
        {"[daemon]\nlisten = \"host:12x\"\n", "port must be a number"},
        {"[daemon]\nlisten = \"::1:9820\"\n", "IPv6 address must be in brackets"},
        {"[daemon]\nlisten = \"a b:1\"\n", "invalid character in the host name"},
        {"[daemon]\nstatus_listen = \"9821\"\n", "daemon.status_listen: expected \"host:port\""},
        {"[daemon]\nmax_message_size = \"1KiB\"\n",
         "daemon.max_message_size: 1024 bytes is outside"},
        {"[daemon]\nmax_message_size = \"lots\"\n", "is not a size"},
        {"[daemon]\nmax_message_size = -5\n", "cannot be negative"},
        {"[daemon]\nmax_message_size = 1.5\n", "expected a size"},
        {"[daemon]\nshutdown = \"later\"\n", "daemon.shutdown: must be one of: finish,cancel"},
        {"[daemon]\nshutdown_timeout = 30\n", "expected a duration string with a unit"},
        {"[daemon]\nshutdown_timeout = \"30\"\n", "is not a duration"},
        {"[daemon]\nshutdown_timeout = \"-1s\"\n", "is not a duration"},
        {"[daemon]\nshutdown_timeout = \"8d\"\n", "is outside"},
        {"[daemon]\nmax_blocking_calls = 0\n",
         "daemon.max_blocking_calls: 0 is outside [1, 100000]"},
        {"[srs]\nparam_cache = true\n", "srs.param_cache: expected a string, found boolean"},
        {"[snarkjs]\ndir = [\"a\"]\n", "snarkjs.dir: expected a string, found array"},
        {"[memory]\ntotal_budget = \"automatic\"\n", "or \"auto\""},
        {"[memory]\ntotal_budget = 1000\n", "memory.total_budget: 1000 bytes is outside"},
        {"[memory]\nsafety_margin = \"5XB\"\n", "memory.safety_margin"},
        {"[memory]\neviction_min_idle = \"5 minutes\"\n", "memory.eviction_min_idle"},
        {"[memory]\nsrs_idle_evict = true\n", "memory.srs_idle_evict: expected a duration"},
        {"[memory]\ntrim_threshold = \"-1MiB\"\n", "memory.trim_threshold"},
        {"[gpus]\ndevices = 0\n", "gpus.devices: expected an array of integers, found integer"},
        {"[gpus]\ndevices = [0, \"1\"]\n", "entry 2: expected an integer, found string"},
        {"[gpus]\ndevices = [64]\n", "entry 1: 64 is outside [0, 63]"},
        {"[gpus]\ndevices = [-1]\n", "entry 1: -1 is outside"},
        {"[gpus]\ndevices = [2, 2]\n", "entry 2: 2 is listed twice"},
        {"[gpus]\ngpu_workers_per_device = 0\n", "gpus.gpu_workers_per_device: 0 is outside"},
        {"[gpus]\ngpu_workers_per_device = \"2\"\n", "expected an integer, found string"},
        {"[gpus]\ngpu_threads = -1\n", "gpus.gpu_threads: -1 is outside"},
        {"[gpus]\nvram_budget = \"1MiB\"\n", "gpus.vram_budget: 1048576 bytes is outside"},
        {"[gpus]\nfold_h_min = -1\n", "gpus.fold_h_min: -1 is outside"},
        {"[gpus]\nfold_h_min = 1073741824\n", "gpus.fold_h_min: 1073741824 is outside"},
        {"[gpus]\nfold_dense_min = -5\n", "gpus.fold_dense_min: -5 is outside"},
        {"[memory]\novertake = 5\n", "memory.overtake: expected a duration"},
        {"[pipeline]\nkey_loaders = 0\n", "pipeline.key_loaders: 0 is outside"},
        {"[scheduler]\nresult_ttl = \"0\"\n", "scheduler.result_ttl: 0 ms is outside"},
        {"[synthesis]\nthreads = 1.0\n", "synthesis.threads: expected an integer, found float"},
        {"[pipeline]\nmax_parallel_synthesis = 5000\n", "pipeline.max_parallel_synthesis"},
        {"[pipeline]\nself_verify = 1\n", "pipeline.self_verify: expected true or false"},
        {"[synthetic]\npartitions = 0\n", "synthetic.partitions: 0 is outside"},
        {"[synthetic]\ncheck = \"yes\"\n", "synthetic.check: expected true or false"},
        {"[filecoin]\ncheck = 0\n", "filecoin.check: expected true or false"},
        {"[logging]\nlevel = \"verbose\"\n", "logging.level: must be one of: error, warn"},
        {"[logging]\nformat = \"xml\"\n", "logging.format: must be one of: text,json"},
        {"[logging]\ntimeline = \"on\"\n", "logging.timeline: expected true or false"},
        {"daemon.listen = 5\n", "test.toml:1:17: daemon.listen: expected a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cuzk_config c;
        struct warnings w;
        char err[512] = "";
        int rc = load(&c, cases[i].text, &w, err, sizeof err);
        int ok = rc == CUZK_EINVAL && strstr(err, cases[i].want);
        if (!ok)
            fprintf(stderr, "case %zu: rc %d err \"%s\", want \"%s\"\n", i, rc, err, cases[i].want);
        CHECK(ok);
        cuzk_config_free(&c);
    }
    /* a TOML syntax error names the file, line and column */
    struct cuzk_config c;
    struct warnings w;
    char err[512];
    CHECK(load(&c, "[daemon]\nlisten = \"x\nfoo\n", &w, err, sizeof err) == CUZK_EFORMAT);
    CHECK(strstr(err, "test.toml:2:10: unterminated string") == err);
    cuzk_config_free(&c);
}

static void test_warnings(void) {
    struct cuzk_config c;
    struct warnings w;
    char err[512];
    CHECK(load(&c, "[daemon]\nlisten = \"h:1\"\nlisen = \"x\"\n[nosuch]\nk = 1\ntop = 2\n", &w, err,
               sizeof err) == CUZK_OK);
    CHECK(w.n == 3 && strstr(w.last, "test.toml:6: unknown key nosuch.top ignored"));
    CHECK(!strcmp(c.listen, "h:1"));
    cuzk_config_free(&c);
    CHECK(load(&c, "[pipeline]\nenabled = true\nslot_size = 0\n", &w, err, sizeof err) == CUZK_OK);
    CHECK(w.n == 2 && strstr(w.last, "key pipeline.slot_size is no longer used"));
    cuzk_config_free(&c);
    /* batching is not done: its keys warn instead of being taken and ignored */
    CHECK(load(&c, "[scheduler]\nmax_batch_size = 4\n", &w, err, sizeof err) == CUZK_OK);
    CHECK(w.n == 1 && strstr(w.last, "max_batch_size is no longer used") &&
          strstr(w.last, "one at a time"));
    cuzk_config_free(&c);
    /* every deprecated key warns, whatever its value */
    for (size_t i = 0; cuzk_config_key(i, 1); i++) {
        const char *key = cuzk_config_key(i, 1);
        char text[128];
        snprintf(text, sizeof text, "%s = [\"anything\"]\n", key);
        int rc = load(&c, text, &w, err, sizeof err);
        int is_deprecated = 1;
        for (size_t k = 0; cuzk_config_key(k, 0); k++)
            if (!strcmp(cuzk_config_key(k, 0), key)) is_deprecated = 0;
        if (is_deprecated) CHECK(rc == CUZK_OK && w.n == 1 && strstr(w.last, "no longer used"));
        cuzk_config_free(&c);
    }
}

static void test_set_and_files(void) {
    struct cuzk_config c;
    char err[512];
    CHECK(cuzk_config_init(&c) == CUZK_OK);
    CHECK(cuzk_config_set(&c, "daemon.listen", "unix:///tmp/cuzk-test.sock", err, sizeof err) ==
          CUZK_OK);
    CHECK(!strcmp(c.listen, "unix:///tmp/cuzk-test.sock"));
    CHECK(cuzk_config_set(&c, "logging.level", "warn", err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(c.log_level, "warn"));
    CHECK(cuzk_config_set(&c, "logging.level", "loud", err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "logging.level: must be one of") == err);
    CHECK(cuzk_config_set(&c, "memory.total_budget", "64GiB", err, sizeof err) == CUZK_OK);
    CHECK(c.engine.total_budget == 64ull << 30);
    CHECK(cuzk_config_set(&c, "memory.total_budget", "auto", err, sizeof err) == CUZK_OK);
    CHECK(c.engine.total_budget == 0);
    CHECK(cuzk_config_set(&c, "memory.safety_margin", "1024", err, sizeof err) == CUZK_OK);
    CHECK(c.engine.safety_margin == 1024);
    CHECK(cuzk_config_set(&c, "daemon.shutdown_timeout", "5m", err, sizeof err) == CUZK_OK);
    CHECK(c.shutdown_timeout_ms == 300000);
    CHECK(cuzk_config_set(&c, "gpus.devices", "[2, 5]", err, sizeof err) == CUZK_OK);
    CHECK(c.n_devices == 2 && c.devices[1] == 5);
    CHECK(cuzk_config_set(&c, "pipeline.self_verify", "false", err, sizeof err) == CUZK_OK);
    CHECK(c.engine.self_verify == 0);
    CHECK(cuzk_config_set(&c, "synthesis.threads", "many", err, sizeof err) == CUZK_EINVAL);
    CHECK(cuzk_config_set(&c, "no.such", "1", err, sizeof err) == CUZK_EINVAL);
    CHECK(strstr(err, "unknown key no.such") != NULL);
    CHECK(cuzk_config_set(&c, "pipeline.enabled", "true", err, sizeof err) == CUZK_EINVAL);
    cuzk_config_free(&c);

    CHECK(cuzk_config_init(&c) == CUZK_OK);
    CHECK(cuzk_config_load_file(&c, "/nonexistent/cuzk.toml", NULL, NULL, err, sizeof err) ==
          CUZK_ENOTFOUND);
    CHECK(strstr(err, "/nonexistent/cuzk.toml") == err);
    CHECK(cuzk_config_load_file(&c, "/", NULL, NULL, err, sizeof err) != CUZK_OK);
    cuzk_config_free(&c);
}

/* conf/cuzk.example.toml must be what the table prints for the defaults: it then documents
 * every key, with the right default, and loads without a warning. */
static void test_example_file(void) {
    const char *path = CUZK_SOURCE_DIR "/conf/cuzk.example.toml";
    uint8_t *file;
    size_t n;
    char err[512];
    CHECK(cuzk_file_read(path, SIZE_MAX, &file, &n, err, sizeof err) == CUZK_OK);
    if (!file) return;

    struct cuzk_config c;
    CHECK(cuzk_config_init(&c) == CUZK_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cuzk_config_print(m, &c);
    fclose(m);
    int same = len == n && !memcmp(text, file, n);
    if (!same)
        fprintf(stderr,
                "%s differs from `cuzk-daemon --print-config` with the defaults: "
                "regenerate it\n",
                path);
    CHECK(same);
    free(text);
    free(file);
    cuzk_config_free(&c);

    struct warnings w = {0};
    CHECK(cuzk_config_init(&c) == CUZK_OK);
    CHECK(cuzk_config_load_file(&c, path, on_warn, &w, err, sizeof err) == CUZK_OK && w.n == 0);
    cuzk_config_free(&c);
}

/* Thread settings that oversubscribe the machine are warned of, each by name; the defaults and
 * settings within the machine are not. */
static void test_threads(void) {
    struct cuzk_config c;
    struct warnings w;
    char err[256];
    CHECK(load(&c, "", &w, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_config_check_threads(&c, 2, on_warn, &w) == 0 && w.n == 0); /* the defaults */
    cuzk_config_free(&c);
    CHECK(load(&c,
               "[synthesis]\nthreads = 32\n[pipeline]\nmax_parallel_synthesis = 16\n"
               "[gpus]\ngpu_threads = 32\ngpu_workers_per_device = 4\n",
               &w, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_config_check_threads(&c, 16, on_warn, &w) == 0 && w.n == 0); /* within 16 CPUs */
    CHECK(cuzk_config_check_threads(&c, 8, on_warn, &w) == 3 && w.n == 3);
    CHECK(strstr(w.all, "synthesis.threads = 32 on a machine of 8 CPUs: more than twice") &&
          strstr(w.all, "gpus.gpu_threads = 32") &&
          strstr(w.all, "pipeline.max_parallel_synthesis = 16"));
    cuzk_config_free(&c);
    CHECK(load(&c, "[gpus]\ngpu_workers_per_device = 16\n", &w, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_config_check_threads(&c, 64, on_warn, &w) == 1 && w.n == 1 &&
          strstr(w.last, "gpus.gpu_workers_per_device = 16"));
    cuzk_config_free(&c);
}

int main(void) {
    test_init("test_config");
    test_defaults();
    test_every_key();
    test_bad_values();
    test_warnings();
    test_threads();
    test_set_and_files();
    test_example_file();
    return test_finish();
}
