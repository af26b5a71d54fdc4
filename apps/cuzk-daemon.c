/* cuzk-daemon: the proving service (docs/daemon.md).
 *
 *   cuzk-daemon [-c|--config PATH] [-l|--listen ADDR] [--log-level LEVEL] [--set KEY=VALUE]...
 *   cuzk-daemon --print-config | --check-config [-c PATH] [--set ...]
 *
 * Exit codes: 0 clean shutdown (or a successful --print-config / --check-config), 1 start-up
 * failure, 2 usage or configuration error, 3 the shutdown did not finish within
 * daemon.shutdown_timeout (what it waited for is logged).
 *
 * DESIGN: the main thread owns the lifecycle. SIGINT, SIGTERM and SIGHUP are blocked before any
 * thread exists (so every thread inherits the mask) and the main thread takes them with
 * sigwait: no signal handler runs anywhere. Start-up: configuration -> logging -> devices ->
 * engine (+ Filecoin kinds, snarkjs circuits) -> service -> gRPC listener -> HTTP listener ->
 * ready line. On
 * SIGINT/SIGTERM: stop gRPC intake, shut the engine down (finish or cancel per
 * daemon.shutdown; a "shutdown-signals" thread cancels what is left when a second signal comes),
 * wait for every waiting call to be answered, stop the listeners (the unix socket file is
 * removed), free everything, exit 0. Meanwhile a "shutdown-guard" thread logs what the shutdown
 * waits for, cancels the live jobs shortly before daemon.shutdown_timeout, and ends the process
 * (exit 3) when the timeout passes first. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "kinds/kinds.h"
#include "gpu/gpu.h"
#include "groth16/cuda_backend.h"
#include "groth16/groth16.h"
#include "server/config.h"
#include "server/grpc_server.h"
#include "server/http_status.h"
#include "server/service.h"
#include "util/log.h"
#include "util/pool.h"
#include "util/clock.h"

enum { EXIT_OK = 0, EXIT_START = 1, EXIT_USAGE = 2, EXIT_DRAIN = 3 };

#define MAX_WARNINGS 64
#define RPC_DRAIN_MS 5000 /* after every waiter is answered, the last sends may take this long */
#define DRAIN_FIRST_LOG_MS 1000 /* the shutdown's first "waiting for" line */
#define DRAIN_LOG_MS 5000       /* and the next ones */
#define DRAIN_GRACE_MS 5000     /* cancel this long before daemon.shutdown_timeout (at most) */
#define DRAIN_LIST 8            /* jobs a "waiting for" line names */

static const char usage[] =
    "usage: cuzk-daemon [options]\n"
    "  -c, --config PATH      configuration file (default " CUZK_CONFIG_DEFAULT_PATH ")\n"
    "  -l, --listen ADDR      gRPC address: unix:///path or host:port (daemon.listen)\n"
    "      --log-level LEVEL  error, warn, info or debug (logging.level)\n"
    "      --set KEY=VALUE    set any configuration key, e.g. --set memory.total_budget=64GiB\n"
    "      --print-config     print the effective configuration as TOML and exit\n"
    "      --check-config     validate the configuration and exit\n"
    "  -h, --help             this text\n"
    "See docs/daemon.md; every key is documented in conf/cuzk.example.toml.\n";

struct warnings {
    int n;
    char msg[MAX_WARNINGS][512];
};

static void collect_warning(void *ctx, const char *msg) {
    struct warnings *w = ctx;
    if (w->n < MAX_WARNINGS) snprintf(w->msg[w->n++], sizeof w->msg[0], "%s", msg);
}

/* ---- configuration ----------------------------------------------------------------------- */

struct options {
    const char *config;
    const char *listen, *log_level;
    const char *sets[64];
    int n_sets;
    int print, check;
};

static int parse_args(int argc, char **argv, struct options *o) {
    enum { O_LOG_LEVEL = 256, O_SET, O_PRINT, O_CHECK };
    static const struct option longs[] = {
        {"config", required_argument, NULL, 'c'},
        {"listen", required_argument, NULL, 'l'},
        {"log-level", required_argument, NULL, O_LOG_LEVEL},
        {"set", required_argument, NULL, O_SET},
        {"print-config", no_argument, NULL, O_PRINT},
        {"check-config", no_argument, NULL, O_CHECK},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    int c;
    while ((c = getopt_long(argc, argv, "c:l:h", longs, NULL)) != -1) {
        switch (c) {
        case 'c': o->config = optarg; break;
        case 'l': o->listen = optarg; break;
        case O_LOG_LEVEL: o->log_level = optarg; break;
        case O_SET:
            if (o->n_sets == (int)(sizeof o->sets / sizeof o->sets[0])) {
                fprintf(stderr, "cuzk-daemon: too many --set options\n");
                return -1;
            }
            o->sets[o->n_sets++] = optarg;
            break;
        case O_PRINT: o->print = 1; break;
        case O_CHECK: o->check = 1; break;
        case 'h': fputs(usage, stdout); exit(EXIT_OK);
        default: fputs(usage, stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk-daemon: unexpected argument %s\n%s", argv[optind], usage);
        return -1;
    }
    return 0;
}

/* Loads the configuration: defaults, the file, then the command line. Returns 0 or prints the
 * error and returns -1. *note receives the line to log about a missing default file. */
static int load_config(const struct options *o, struct cuzk_config *cfg, struct warnings *w,
                       char *note, size_t notelen) {
    char err[512];
    note[0] = 0;
    if (cuzk_config_init(cfg) != CUZK_OK) {
        fprintf(stderr, "cuzk-daemon: out of memory\n");
        return -1;
    }
    const char *path = o->config ? o->config : CUZK_CONFIG_DEFAULT_PATH;
    int rc = cuzk_config_load_file(cfg, path, collect_warning, w, err, sizeof err);
    if (rc == CUZK_ENOTFOUND && !o->config) {
        snprintf(note, notelen, "no configuration file at %s: using the defaults", path);
    } else if (rc != CUZK_OK) {
        fprintf(stderr, "cuzk-daemon: configuration: %s\n", err);
        return -1;
    } else {
        snprintf(note, notelen, "configuration loaded from %s", path);
    }
    for (int i = 0; i < o->n_sets; i++) {
        char key[128];
        const char *eq = strchr(o->sets[i], '=');
        if (!eq || eq == o->sets[i] || (size_t)(eq - o->sets[i]) >= sizeof key) {
            fprintf(stderr, "cuzk-daemon: --set %s: want KEY=VALUE\n", o->sets[i]);
            return -1;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
        if (cuzk_config_set(cfg, key, eq + 1, err, sizeof err) != CUZK_OK) {
            fprintf(stderr, "cuzk-daemon: --set: %s\n", err);
            return -1;
        }
    }
    if (o->listen && cuzk_config_set(cfg, "daemon.listen", o->listen, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: --listen: %s\n", err);
        return -1;
    }
    if (o->log_level && cuzk_config_set(cfg, "logging.level", o->log_level, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: --log-level: %s\n", err);
        return -1;
    }
    cuzk_config_check_threads(cfg, cuzk_cpu_count(), collect_warning, w);
    return 0;
}

/* ---- devices ----------------------------------------------------------------------------- */

struct devices {
    struct cuzk_backend *backends;
    struct cuzk_engine_device *dev;
    char (*names)[CUZK_NAME_MAX];
    size_t n;
    struct cuzk_pool *pool; /* the GPU backends' CPU part */
};

/* The CUDA devices of gpus.devices (all when empty). None found: n = 0 and the engine proves
 * on its CPU backend. Returns 0, or -1 after logging why (a listed device that is missing). */
static int open_devices(const struct cuzk_config *cfg, struct devices *d) {
    memset(d, 0, sizeof *d);
    int count = 0;
    if (cuzk_gpu_compiled()) cuzk_gpu_count(&count);
    size_t n = cfg->n_devices ? cfg->n_devices : (size_t)count;
    for (size_t i = 0; i < cfg->n_devices; i++) {
        if (cfg->devices[i] >= count) {
            cuzk_log_error("daemon", "gpus.devices: device %lld does not exist (%d GPU%s found%s)",
                           (long long)cfg->devices[i], count, count == 1 ? "" : "s",
                           cuzk_gpu_compiled() ? "" : "; this build has no CUDA backend");
            return -1;
        }
    }
    if (n == 0) {
        cuzk_log_info("daemon", "devices: no GPU%s: proving on the CPU",
                      cuzk_gpu_compiled() ? " found" : " (built without CUDA)");
        return 0;
    }
    d->backends = calloc(n, sizeof *d->backends);
    d->dev = calloc(n, sizeof *d->dev);
    d->names = calloc(n, sizeof *d->names);
    if (!d->backends || !d->dev || !d->names ||
        cuzk_pool_create(&d->pool, (unsigned)cfg->gpu_threads, "cuzk-gpu-cpu") != CUZK_OK) {
        cuzk_log_error("daemon", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int ord = cfg->n_devices ? (int)cfg->devices[i] : (int)i;
        int rc = cuzk_cuda_backend_init(&d->backends[i], ord, d->pool);
        if (rc != CUZK_OK) {
            cuzk_log_error("daemon", "GPU %d: %s", ord, cuzk_strerror(rc));
            return -1;
        }
        d->n = i + 1;
        struct cuzk_gpu_info gi;
        if (cuzk_gpu_describe(ord, &gi) == CUZK_OK)
            snprintf(d->names[i], sizeof d->names[i], "%.*s", CUZK_NAME_MAX - 1, gi.name);
        else
            snprintf(d->names[i], sizeof d->names[i], "GPU %d", ord);
        /* the table bounds every other setting: only a budget past the device is refused */
        if (cuzk_cuda_backend_configure(&d->backends[i], &cfg->cuda) != CUZK_OK) {
            cuzk_log_error("daemon", "gpus.vram_budget: %llu bytes is more than GPU %d has",
                           (unsigned long long)cfg->cuda.vram_budget, ord);
            return -1;
        }
        struct cuzk_cuda_stats cs;
        cuzk_cuda_backend_stats(&d->backends[i], &cs);
        d->dev[i] = (struct cuzk_engine_device){.backend = &d->backends[i], .name = d->names[i]};
        cuzk_log_info("daemon", "devices: GPU %d (%s) with %u workers, %llu bytes of device memory",
                      ord, d->names[i], cfg->engine.gpu_workers_per_device,
                      (unsigned long long)cs.vram_budget);
    }
    return 0;
}

static void close_devices(struct devices *d) {
    for (size_t i = 0; i < d->n; i++) cuzk_cuda_backend_free(&d->backends[i]);
    if (d->pool) cuzk_pool_destroy(d->pool);
    free(d->backends);
    free(d->dev);
    free(d->names);
}

/* ---- engine ------------------------------------------------------------------------------ */

/* The engine's settings: the configuration's, with the daemon's devices and trace output. */
static void engine_config(const struct cuzk_config *cfg, const struct devices *d,
                          struct cuzk_engine_config *ec) {
    *ec = cfg->engine;
    ec->devices = d->n ? d->dev : NULL;
    ec->n_devices = d->n;
    ec->trace_file = cfg->timeline ? stderr : NULL;
}

/* ---- shutdown ---------------------------------------------------------------------------- */

/* Cancels every live job (the end of a "finish" shutdown that ran out of time). */
static void cancel_live_jobs(struct cuzk_engine *e, const char *why) {
    struct cuzk_engine_status st;
    if (cuzk_engine_status(e, &st) != CUZK_OK) return;
    if (st.n_jobs)
        cuzk_log_warn("daemon", "shutdown: %s: cancelling %zu live jobs", why, st.n_jobs);
    for (size_t i = 0; i < st.n_jobs; i++) cuzk_engine_cancel(e, st.jobs[i].job_id, NULL);
    cuzk_engine_status_free(&st);
}

/* What the shutdown still waits for, in one log line: the live jobs (id, kind/circuit, state,
 * partitions done and where the others are), the calls still waiting for an answer and the
 * keys being loaded or set up. */
static void log_drain(struct cuzk_engine *e, const struct cuzk_service *svc, int level,
                      const char *lead) {
    char line[1600];
    size_t off = 0;
    struct cuzk_engine_status st;
    int have = cuzk_engine_status(e, &st) == CUZK_OK;
    size_t n_jobs = have ? st.n_jobs : 0;
    off += (size_t)snprintf(line + off, sizeof line - off, "%s: %zu live jobs, %lld waiting calls",
                            lead, n_jobs, (long long)cuzk_service_waiting(svc));
    for (size_t i = 0; i < n_jobs && i < DRAIN_LIST && off < sizeof line; i++) {
        const struct cuzk_status_job *j = &st.jobs[i];
        unsigned syn = 0, dev = 0, fin = 0;
        for (uint32_t k = 0; k < j->n_partitions; k++) {
            enum cuzk_part_state ps = j->parts ? j->parts[k].state : CUZK_PART_QUEUED;
            syn += ps == CUZK_PART_SYNTHESIZING;
            dev += ps == CUZK_PART_GPU_QUEUED || ps == CUZK_PART_PROVING;
            fin += ps == CUZK_PART_FINALIZING;
        }
        off += (size_t)snprintf(line + off, sizeof line - off,
                                "%s %s (%s/%s, %s, %.0f s old, partitions %u of %u done, %u "
                                "synthesizing, %u proving, %u finalizing)",
                                i ? ";" : ":", j->job_id, j->kind, j->circuit_id,
                                cuzk_job_state_name(j->state), j->age_ms / 1e3, j->partitions_done,
                                j->n_partitions, syn, dev, fin);
    }
    if (n_jobs > DRAIN_LIST && off < sizeof line)
        off +=
            (size_t)snprintf(line + off, sizeof line - off, "; and %zu more", n_jobs - DRAIN_LIST);
    /* keys being loaded or set up: work nothing interrupts */
    for (size_t i = 0; have && i < st.n_srs && off < sizeof line; i++)
        if (st.srs[i].loading)
            off += (size_t)snprintf(line + off, sizeof line - off, "; key %s:%s being loaded",
                                    st.srs[i].kind, st.srs[i].circuit_id);
    if (level == CUZK_LOG_ERROR)
        cuzk_log_error("daemon", "%s", line);
    else
        cuzk_log_warn("daemon", "%s", line);
    if (have) cuzk_engine_status_free(&st);
}

/* The shutdown's watch: every DRAIN_LOG_MS (the first time after DRAIN_FIRST_LOG_MS) it logs
 * what the shutdown waits for; with daemon.shutdown_timeout set, it cancels the jobs still
 * live shortly before the timeout (finish mode; "cancel" cancelled them at the start), and
 * when the timeout passes with the shutdown unfinished (a partition inside a backend call, a
 * key being made) it logs what is left and ends the process with EXIT_DRAIN. */
struct guard {
    struct cuzk_engine *engine;
    const struct cuzk_service *service;
    uint64_t timeout_ms;   /* 0 = none */
    int cancelled;         /* the live jobs were cancelled already */
    const char *unix_path; /* the socket file to remove on a forced exit, or NULL */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int done;
};

static void *guard_thread(void *arg) {
    struct guard *g = arg;
    pthread_setname_np(pthread_self(), "shutdown-guard");
    const double t0 = cuzk_clock_ms();
    const double deadline = g->timeout_ms ? t0 + (double)g->timeout_ms : 0;
    /* the cancellation gets the last part of the timeout to take effect */
    const double grace =
        g->timeout_ms / 5 < DRAIN_GRACE_MS ? (double)(g->timeout_ms / 5) : (double)DRAIN_GRACE_MS;
    double next_log = t0 + DRAIN_FIRST_LOG_MS;
    int cancelled = g->cancelled;
    pthread_mutex_lock(&g->mu);
    while (!g->done) {
        double wake = next_log;
        if (deadline && !cancelled && deadline - grace < wake) wake = deadline - grace;
        if (deadline && deadline < wake) wake = deadline;
        double left = wake - cuzk_clock_ms();
        if (left > 0) {
            struct timespec dl;
            clock_gettime(CLOCK_REALTIME, &dl);
            long long ns = (long long)dl.tv_nsec + (long long)(left * 1e6);
            dl.tv_sec += (time_t)(ns / 1000000000);
            dl.tv_nsec = (long)(ns % 1000000000);
            pthread_cond_timedwait(&g->cond, &g->mu, &dl);
            continue; /* done, or time to look again */
        }
        pthread_mutex_unlock(&g->mu);
        double now = cuzk_clock_ms();
        if (deadline && now >= deadline) {
            log_drain(g->engine, g->service, CUZK_LOG_ERROR,
                      "shutdown: daemon.shutdown_timeout passed; exiting without waiting for");
            if (g->unix_path) unlink(g->unix_path);
            cuzk_log_error("daemon", "cuzk-daemon stopped before its shutdown finished (exit %d)",
                           EXIT_DRAIN);
            _exit(EXIT_DRAIN);
        }
        if (deadline && !cancelled && now >= deadline - grace) {
            cancel_live_jobs(g->engine, "daemon.shutdown_timeout is near");
            cancelled = 1;
        }
        if (now >= next_log) {
            log_drain(g->engine, g->service, CUZK_LOG_WARN, "shutdown: waiting for");
            next_log = now + DRAIN_LOG_MS;
        }
        pthread_mutex_lock(&g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

/* Takes signals during the shutdown: a second SIGINT/SIGTERM cancels the live jobs. It exits
 * when woken by SIGUSR1 from the main thread. */
static void *signal_thread(void *arg) {
    struct cuzk_engine *e = arg;
    pthread_setname_np(pthread_self(), "shutdown-signals");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig)) continue;
        if (sig == SIGUSR1) return NULL;
        if (sig == SIGHUP) continue;
        cuzk_log_warn("daemon", "received %s again", sig == SIGINT ? "SIGINT" : "SIGTERM");
        cancel_live_jobs(e, "second signal");
    }
}

/* ---- main -------------------------------------------------------------------------------- */

/* The checks of a start that need no device, engine or listener, so that a configuration that
 * --check-config accepts starts: the TLS files (readable, PEM, a pair the gRPC core takes),
 * snarkjs.dir (a directory that can be read), the status address (it resolves). */
static int preflight(const struct cuzk_config *cfg, char *err, size_t errlen) {
    const struct cuzk_rpc_config rc_cfg = {.listen = cfg->listen,
                                           .tls_cert = cfg->tls_cert,
                                           .tls_key = cfg->tls_key,
                                           .tls_client_ca = cfg->tls_client_ca};
    char why[480];
    int rc = cuzk_rpc_check_tls(&rc_cfg, why, sizeof why);
    if (rc) return cuzk_errf(err, errlen, rc, "gRPC: %s", why);
    if (cfg->snarkjs_dir[0]) {
        DIR *d = opendir(cfg->snarkjs_dir);
        if (!d)
            return cuzk_errf(err, errlen, CUZK_EIO, "snarkjs.dir %s: %s", cfg->snarkjs_dir,
                             strerror(errno));
        closedir(d);
    }
    if (cfg->status_listen[0] &&
        (rc = cuzk_http_check_address(cfg->status_listen, why, sizeof why)))
        return cuzk_errf(err, errlen, rc, "status HTTP: %s", why);
    return CUZK_OK;
}

/* The descriptors' soft limit up to the hard one: the default soft limit (often 1,024) is what
 * a thousand slow HTTP clients or idle TLS connections take, and key loads then fail with "Too
 * many open files". The HTTP server keeps its connection cap below a quarter of the limit. */
static void raise_fd_limit(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl)) return;
    rlim_t want = rl.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        const rlim_t old = rl.rlim_cur;
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl))
            cuzk_log_warn("daemon", "descriptors: the soft limit stays %llu: %s",
                          (unsigned long long)old, strerror(errno));
        else
            cuzk_log_info("daemon", "descriptors: soft limit raised from %llu to %llu",
                          (unsigned long long)old, (unsigned long long)want);
    }
}

int main(int argc, char **argv) {
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct options o;
    if (parse_args(argc, argv, &o)) return EXIT_USAGE;
    static struct warnings warns;
    struct cuzk_config cfg;
    char note[600];
    if (load_config(&o, &cfg, &warns, note, sizeof note)) {
        cuzk_config_free(&cfg);
        return EXIT_USAGE;
    }
    if (o.print || o.check) {
        for (int i = 0; i < warns.n; i++)
            fprintf(stderr, "cuzk-daemon: warning: %s\n", warns.msg[i]);
        char perr[600];
        if (o.check && preflight(&cfg, perr, sizeof perr)) {
            fprintf(stderr, "cuzk-daemon: %s\n", perr);
            cuzk_config_free(&cfg);
            return EXIT_USAGE;
        }
        if (o.print) cuzk_config_print(stdout, &cfg);
        if (o.check) printf("cuzk-daemon: %s: the configuration is valid\n", note);
        cuzk_config_free(&cfg);
        return EXIT_OK;
    }

    enum cuzk_log_level level;
    enum cuzk_log_format format;
    cuzk_log_level_parse(cfg.log_level, &level);
    cuzk_log_format_parse(cfg.log_format, &format);
    cuzk_log_set_level(level);
    cuzk_log_set_format(format);
    cuzk_log_info("daemon", "cuzk-daemon starting (pid %ld)", (long)getpid());
    cuzk_log_info("daemon", "%s", note);
    for (int i = 0; i < warns.n; i++) cuzk_log_warn("config", "%s", warns.msg[i]);
    raise_fd_limit();
    cuzk_log_info("daemon", "listen=%s status_listen=%s shutdown=%s", cfg.listen,
                  cfg.status_listen[0] ? cfg.status_listen : "(off)", cfg.shutdown);

    int exit_code = EXIT_START;
    struct devices devs = {0}; /* (close_devices on every path below) */
    struct cuzk_engine *engine = NULL;
    struct cuzk_service *service = NULL;
    struct cuzk_rpc_server *rpc = NULL;
    struct cuzk_http_server *http = NULL;
    struct cuzk_kinds *kinds = NULL;
    char err[512] = "";

    if (preflight(&cfg, err, sizeof err)) { /* the same words as --check-config's */
        cuzk_log_error("daemon", "%s", err);
        goto out;
    }
    if (open_devices(&cfg, &devs)) goto out;
    struct cuzk_engine_config ec;
    engine_config(&cfg, &devs, &ec);
    /* the setup policy: srs.setup_allow's globs, none when srs.on_demand_setup is false */
    char *allow_text = strdup(cfg.setup_allow);
    const char *allow[64];
    size_t n_allow = 0;
    for (char *save = NULL, *tok = allow_text ? strtok_r(allow_text, ",", &save) : NULL;
         tok && n_allow < 64; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        for (char *end = tok + strlen(tok); end > tok && end[-1] == ' ';) *--end = 0;
        if (*tok) allow[n_allow++] = tok;
    }
    ec.setup_policy = 1;
    ec.setup_allow = allow;
    ec.n_setup_allow = cfg.on_demand_setup ? n_allow : 0;
    int rc = cuzk_engine_create(&engine, &ec, err, sizeof err); /* copies the globs */
    free(allow_text);
    if (rc != CUZK_OK) {
        cuzk_log_error("daemon", "engine: %s", err[0] ? err : cuzk_strerror(rc));
        goto out;
    }
    if ((rc = cuzk_kinds_create(&kinds, &cfg.kinds, err, sizeof err)) ||
        (cfg.snarkjs_dir[0] &&
         (rc = cuzk_kinds_add_snarkjs_dir(kinds, cfg.snarkjs_dir, NULL, err, sizeof err))) ||
        (rc = cuzk_kinds_register(kinds, engine, err, sizeof err))) {
        cuzk_log_error("daemon", "%s", err[0] ? err : cuzk_strerror(rc));
        goto out;
    }
    if ((rc = cuzk_engine_start(engine)) != CUZK_OK) {
        cuzk_log_error("daemon", "engine start: %s", cuzk_strerror(rc));
        goto out;
    }
    struct cuzk_service_config sc = {.engine = engine,
                                     .max_blocking_calls = cfg.max_blocking_calls,
                                     .max_input_bytes = cfg.max_input_bytes,
                                     .cancel_on_disconnect = cfg.cancel_on_disconnect};
    if (cuzk_service_create(&sc, &service) != CUZK_OK) {
        cuzk_log_error("daemon", "out of memory");
        goto out;
    }
    size_t n_methods;
    const struct cuzk_rpc_method *methods = cuzk_service_methods(&n_methods);
    struct cuzk_rpc_config rc_cfg = {.listen = cfg.listen,
                                     .tls_cert = cfg.tls_cert,
                                     .tls_key = cfg.tls_key,
                                     .tls_client_ca = cfg.tls_client_ca,
                                     .max_message_size = cfg.max_message_size,
                                     .methods = methods,
                                     .n_methods = n_methods,
                                     .ctx = service};
    if ((rc = cuzk_rpc_server_start(&rc_cfg, &rpc, err, sizeof err)) != CUZK_OK) {
        cuzk_log_error("daemon", "gRPC: %s", err);
        goto out;
    }
    static const struct cuzk_http_route routes[] = {
        {"/status", "application/json", cuzk_service_render_status},
        {"/metrics", "text/plain; version=0.0.4; charset=utf-8", cuzk_service_render_metrics},
    };
    if (cfg.status_listen[0]) {
        if ((rc = cuzk_http_start(cfg.status_listen, routes, 2, service, &http, err, sizeof err)) !=
            CUZK_OK) {
            cuzk_log_error("daemon", "status HTTP: %s", err);
            goto out;
        }
        cuzk_log_info("daemon", "status HTTP server listening on %s", cuzk_http_address(http));
    }
    /* the one line scripts wait for: written whatever the log level */
    cuzk_log_write(CUZK_LOG_INFO, "daemon", "cuzk-daemon ready, serving on %s",
                   cuzk_rpc_server_address(rpc));

    int sig = 0;
    for (;;) {
        sigset_t wait_set = sigs;
        sigdelset(&wait_set, SIGUSR1);
        if (sigwait(&wait_set, &sig)) continue;
        if (sig != SIGHUP) break;
        cuzk_log_info("daemon", "SIGHUP ignored (restart the daemon to change its configuration)");
    }
    int cancel = !strcmp(cfg.shutdown, "cancel");
    cuzk_log_info("daemon", "received %s, shutting down (%s)", sig == SIGINT ? "SIGINT" : "SIGTERM",
                  cancel ? "cancelling the jobs" : "finishing the jobs");

    cuzk_rpc_server_shutdown(rpc);
    const char *unix_path = !strncmp(cfg.listen, "unix://", 7) ? cfg.listen + 7 : NULL;
    struct guard g = {.engine = engine,
                      .service = service,
                      .timeout_ms = cfg.shutdown_timeout_ms,
                      .cancelled = cancel,
                      .unix_path = unix_path};
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cond, NULL);
    pthread_t guard_t, sig_t;
    int guard_ok = pthread_create(&guard_t, NULL, guard_thread, &g) == 0;
    int sig_ok = pthread_create(&sig_t, NULL, signal_thread, engine) == 0;
    cuzk_engine_shutdown(engine, cancel ? CUZK_SHUTDOWN_CANCEL : CUZK_SHUTDOWN_FINISH);
    cuzk_log_info("daemon", "shutdown: engine stopped; answering the waiting calls");
    cuzk_service_stop(service);
    cuzk_rpc_server_destroy(rpc, RPC_DRAIN_MS);
    rpc = NULL;
    pthread_mutex_lock(&g.mu);
    g.done = 1;
    pthread_cond_signal(&g.cond);
    pthread_mutex_unlock(&g.mu);
    if (guard_ok) pthread_join(guard_t, NULL);
    if (sig_ok) {
        pthread_kill(sig_t, SIGUSR1);
        pthread_join(sig_t, NULL);
    }
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cond);
    exit_code = EXIT_OK;

out:
    if (rpc) cuzk_rpc_server_destroy(rpc, 0);
    cuzk_http_stop(http);
    if (service) cuzk_service_destroy(service);
    if (engine) cuzk_engine_destroy(engine);
    cuzk_kinds_destroy(kinds); /* after the engine: it holds them */
    close_devices(&devs);
    cuzk_config_free(&cfg);
    if (exit_code == EXIT_OK)
        cuzk_log_info("daemon", "cuzk-daemon stopped");
    else
        cuzk_log_error("daemon", "cuzk-daemon failed to start");
    return exit_code;
}
