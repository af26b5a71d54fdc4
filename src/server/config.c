/* The configuration table (see config.h). Each row is one key: its type, its default written
 * as a TOML value, its bounds and the documentation printed into the sample configuration. */
#include "server/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/error.h"
#include "server/toml.h"
#include "util/file.h"
#include "util/log.h"

enum cfg_type {
    CFG_STRING,     /* char *, any string */
    CFG_ENUM,       /* char *, one of `choices` ("a|b|c") */
    CFG_LOG_LEVEL,  /* char *, a level util/log.h knows */
    CFG_ADDR,       /* char *, "unix:///absolute/path" or "host:port" */
    CFG_HTTP_ADDR,  /* char *, "host:port" or "" */
    CFG_INT,        /* int64_t in [min, max] */
    CFG_UINT,       /* unsigned in [min, max] */
    CFG_BOOL,       /* int, 0 or 1 */
    CFG_SIZE,       /* uint64_t bytes in [min, max] */
    CFG_SIZE_AUTO,  /* as CFG_SIZE, or "auto" stored as 0 */
    CFG_DURATION,   /* uint64_t milliseconds in [min, max] */
    CFG_INT_LIST,   /* int64_t[CUZK_CONFIG_MAX_DEVICES] + size_t count just after; elements in
                       [min, max], no repeats */
    CFG_DEPRECATED, /* accepted with a warning, ignored */
};

struct cfg_row {
    const char *key;
    enum cfg_type type;
    const char *def; /* TOML value text; NULL = the default of the bound engine / kinds / cuda
                        field */
    int64_t min, max;
    const char *choices;
    size_t off;
    const char *doc; /* lines separated by '\n' */
};

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define SEC ((int64_t)1000)
#define DAY ((int64_t)86400000)
#define F(field) offsetof(struct cuzk_config, field)
#define E(field) offsetof(struct cuzk_config, engine.field)
#define K(field) offsetof(struct cuzk_config, kinds.field)
#define G(field) offsetof(struct cuzk_config, cuda.field)
#define NOFIELD 0

static const struct cfg_row rows[] = {
    {"daemon.listen", CFG_ADDR, "\"unix:///run/curio/cuzk.sock\"", 0, 0, NULL, F(listen),
     "gRPC address: \"unix:///absolute/path\" (the socket is created with mode 0600, its\n"
     "directory if missing, a stale socket file is replaced) or \"host:port\" (TCP, e.g.\n"
     "\"0.0.0.0:9820\"; no TLS: keep it on a trusted network). Overridden by --listen."},
    {"daemon.status_listen", CFG_HTTP_ADDR, "\"\"", 0, 0, NULL, F(status_listen),
     "HTTP address of GET /status (JSON) and GET /metrics (Prometheus), e.g.\n"
     "\"127.0.0.1:9821\"; \"\" = no HTTP server."},
    {"daemon.max_message_size", CFG_SIZE, "\"256MiB\"", 1 * MiB, 2 * GiB - 1, NULL,
     F(max_message_size),
     "Largest gRPC message received or sent; a larger request fails with RESOURCE_EXHAUSTED."},
    {"daemon.shutdown", CFG_ENUM, "\"finish\"", 0, 0, "finish|cancel", F(shutdown),
     "On SIGINT/SIGTERM: \"finish\" proves every accepted job first, \"cancel\" answers every\n"
     "queued and running job CANCELLED at once. Either way new requests are refused and every\n"
     "waiting client is answered before the process exits."},
    {"daemon.shutdown_timeout", CFG_DURATION, "\"10m\"", 0, 7 * DAY, NULL, F(shutdown_timeout_ms),
     "With shutdown = \"finish\": jobs still live after this long are cancelled; \"0\" = no\n"
     "limit."},
    {"daemon.max_blocking_calls", CFG_INT, "1024", 1, 100000, NULL, F(max_blocking_calls),
     "SubmitProof, Prove, AwaitProof, PreloadSRS and EvictSRS calls in progress at the same\n"
     "time; more fail with RESOURCE_EXHAUSTED. A call waiting for its job holds no thread (a\n"
     "submit, a preload or an evict holds one while it works)."},
    {"daemon.max_input_bytes", CFG_SIZE, "\"1GiB\"", 0, INT64_MAX, NULL, F(max_input_bytes),
     "Bytes of SubmitProof / Prove requests in flight: each counted from its arrival (before\n"
     "it is decoded) until its job holds none of its bytes (parsed by its kind, or, for a\n"
     "kind that keeps them such as snarkjs, the job's end); a request that would pass it fails\n"
     "with RESOURCE_EXHAUSTED. \"0\" = no cap."},
    {"daemon.cancel_on_disconnect", CFG_BOOL, "false", 0, 0, NULL, F(cancel_on_disconnect),
     "A Prove whose client goes away (a deadline, a cancel, a lost connection: Curio's\n"
     "preempted task) cancels its job once no other Prove or AwaitProof of it waits. Off: the\n"
     "job goes on and a retry with the same request_id attaches to it (its proof computed\n"
     "once)."},
    {"daemon.tls_cert", CFG_STRING, "\"\"", 0, 0, NULL, F(tls_cert),
     "PEM file of the gRPC listener's certificate chain: with daemon.tls_key the listener\n"
     "speaks TLS only. \"\" = plaintext; a TCP listener on an address other than loopback\n"
     "then logs a warning at start (anyone who reaches it can submit and cancel jobs)."},
    {"daemon.tls_key", CFG_STRING, "\"\"", 0, 0, NULL, F(tls_key),
     "PEM file of the private key of daemon.tls_cert."},
    {"daemon.tls_client_ca", CFG_STRING, "\"\"", 0, 0, NULL, F(tls_client_ca),
     "PEM file of the CA certificates that sign client certificates: with it (and TLS) a\n"
     "client must present a certificate signed by one of them (mutual TLS). \"\" = any client."},

    {"srs.param_cache", CFG_STRING, "\"\"", 0, 0, NULL, K(cache_dir),
     "Directory of proving keys and constraint systems: synthetic keys as .zkey files, the\n"
     "Filecoin kinds' pre-compiled constraint systems (pce-<profile>.bin) and keys\n"
     "(fc-<profile>-<checksum>.key, compressed points), made once and loaded afterwards;\n"
     "\"\" = made in memory each time they are needed (a Filecoin key then stays in host\n"
     "memory as well). A bellperson parameter file here named like Filecoin's for the kind\n"
     "(v28-stacked-proof-of-replication-*.params, v28-empty-sector-update-*.params,\n"
     "v28-proof-of-spacetime-fallback-*.params) and of the circuit's shape is imported as its\n"
     "key instead of a setup (docs/filecoin.md: Bellperson parameter files)."},

    {"srs.on_demand_setup", CFG_BOOL, "true", 0, 0, NULL, F(on_demand_setup),
     "Whether a job or a PreloadSRS call may make a key that is neither loaded nor stored in\n"
     "srs.param_cache (for the keys srs.setup_allow names). false: keys are only ever loaded;\n"
     "make them once with a daemon where it is true."},
    {"srs.setup_allow", CFG_STRING,
     "\"porep:porep-c18,snap:snap-c86,wpost:wpost-s2349,winning:winning-s66,synthetic:*\"", 0, 0,
     NULL, F(setup_allow),
     "The keys that may be set up on demand, as comma-separated \"<kind>:<circuit>\" globs\n"
     "(fnmatch: * ? [...]); the default is the real 32 GiB Filecoin circuits and synthetic ones\n"
     "(bounded by synthetic.max_setup_constraints). A job or PreloadSRS of any other key that is\n"
     "not stored is refused with PERMISSION_DENIED, before its circuit is counted. \"*\" = any."},

    {"snarkjs.dir", CFG_STRING, "\"\"", 0, 0, NULL, F(snarkjs_dir),
     "Directory of snarkjs circuits: every <id>.zkey in it becomes circuit id <id> of the\n"
     "\"snarkjs\" kind (with <id>.r1cs beside it, witnesses are checked against the\n"
     "constraints before proving). \"\" = none. See docs/daemon.md for the request mapping."},

    {"memory.total_budget", CFG_SIZE_AUTO, NULL, 64 * MiB, INT64_MAX, NULL, E(total_budget),
     "Host memory the engine may use for keys, constraint systems and in-flight partitions:\n"
     "\"auto\" = MemTotal - safety_margin, or a size such as \"400GiB\"."},
    {"memory.safety_margin", CFG_SIZE, NULL, 0, INT64_MAX, NULL, E(safety_margin),
     "Memory left to the rest of the system when total_budget = \"auto\"."},
    {"memory.eviction_min_idle", CFG_DURATION, NULL, 0, 365 * DAY, NULL, E(eviction_min_idle_ms),
     "A key unused this long may be evicted when the budget is short."},
    {"memory.srs_idle_evict", CFG_DURATION, NULL, 0, 365 * DAY, NULL, E(srs_idle_evict_ms),
     "Evict keys unused this long even without memory pressure; \"0\" = never."},
    {"memory.trim_threshold", CFG_SIZE, NULL, 0, INT64_MAX, NULL, E(trim_threshold),
     "Return freed memory to the system (malloc_trim) after freeing at least this much at once."},
    {"memory.pin_at_preload", CFG_BOOL, "true", 0, 0, NULL, E(prepin_witness),
     "After a key is preloaded (PreloadSRS), make its partitions' witness buffers (pinned host\n"
     "memory for a GPU; as many as the budget holds, up to twice synthesis + GPU workers) before\n"
     "any job, and keep them, so that no job pins or frees one while a GPU proves (pinning or\n"
     "freeing a 4 GB buffer stalls the GPU's other work). They are charged to the budget as\n"
     "kept buffers and freed first when memory is short. On by default: the porep-c18 stream\n"
     "on the H200 test machine ran at 13.9 s per job with it, 17.0 s without (docs/engine.md).\n"
     "A CPU backend has no pinned buffers, so it makes none."},
    {"memory.overtake", CFG_DURATION, NULL, 0, DAY, NULL, E(mem_overtake_ms),
     "Partitions that fit may start before one that waits for memory for this long; after\n"
     "that, the memory freed is held for the waiting one (no stream of small jobs starves a\n"
     "large one)."},

    {"gpus.devices", CFG_INT_LIST, "[]", 0, CUZK_CONFIG_MAX_DEVICES - 1, NULL, F(devices),
     "CUDA device ordinals to prove on; [] = every GPU found. Without a usable GPU the engine\n"
     "proves on the CPU."},
    {"gpus.gpu_workers_per_device", CFG_UINT, NULL, 1, 16, NULL, E(gpu_workers_per_device),
     "Workers per device: with 2, one proof's witness uploads while another one computes."},
    {"gpus.gpu_threads", CFG_INT, "0", 0, 4096, NULL, F(gpu_threads),
     "Threads of the pool the GPU backends use for their CPU part; 0 = all CPUs."},
    {"gpus.vram_budget", CFG_SIZE_AUTO, NULL, 1 * GiB, INT64_MAX, NULL, G(vram_budget),
     "Device memory each GPU may use for resident keys and the prover's work space:\n"
     "\"auto\" = the device's memory less an eighth of it (2 to 3 GiB) for the CUDA context\n"
     "and the driver. A key larger than it gets a residency plan (logged at load): its MSMs in "
     "slices, and its largest queries kept\n"
     "in pinned host memory (charged to memory.total_budget) and streamed to the GPU while the\n"
     "MSMs run. A key that does not fit beside others evicts idle keys; one that no plan fits\n"
     "fails its jobs with the sizes. A smaller value stands in for a smaller card."},
    {"gpus.fold_h_min", CFG_INT, NULL, 0, 1073741823, NULL, G(fold_h_min),
     "Keys whose H query has at least this many points keep a second copy of it on the GPU\n"
     "(its multiples 2^T P, made once at load), which makes the H MSM about 6 % faster; a\n"
     "porep-c18 key takes 18 GiB more device memory (the copy, a larger MSM context). Only\n"
     "when vram_budget holds it, else the key loads without. 0 = never."},
    {"gpus.fold_dense_min", CFG_INT, NULL, 0, 1073741823, NULL, G(fold_dense_min),
     "After a key's first proof, each of its queries (A, B1, B2, C, H) of at least this many\n"
     "points whose MSM took at least half of its scalars through the windows (a random or\n"
     "circom witness; not a Filecoin one, mostly 0 and 1) gets the same second copy, when\n"
     "vram_budget holds it and still leaves room for another key as large. 0 = never."},
    {"gpus.presum", CFG_BOOL, NULL, 0, 0, NULL, G(presum),
     "Give each GPU's MSM context a presum space (1.5 GiB for a 2^24 circuit, 12 GiB for a\n"
     "porep-c18 key) when vram_budget holds it with the key: large dense MSMs then sum pairs\n"
     "of points of one bucket before the accumulation, a few per cent faster. It doubles (room\n"
     "for G2 points) after a proof of a key whose B2 MSM was dense, when the budget holds that.\n"
     "The space is freed whenever a key or a fold needs its room, and taken back by a proof\n"
     "once an eviction made the room again. Proofs are the same bytes."},
    {"gpus.overlap_ntt", CFG_BOOL, NULL, 0, 0, NULL, G(overlap_ntt),
     "Run a proof's NTTs on the GPU beside its A, B and C MSMs (they share no data) instead of\n"
     "after them: the NTTs fill what the MSMs leave of the device. Proofs are the same bytes."},

    {"scheduler.result_ttl", CFG_DURATION, NULL, SEC, 30 * DAY, NULL, E(result_ttl_ms),
     "Finished results are kept this long for AwaitProof and for retries with the same\n"
     "request_id; afterwards AwaitProof answers NOT_FOUND."},

    {"synthesis.threads", CFG_UINT, NULL, 0, 4096, NULL, E(cpu_threads),
     "Threads of the engine's CPU pool (synthesis, CPU proving, key loading); 0 = all CPUs."},

    {"pipeline.max_parallel_synthesis", CFG_UINT, NULL, 0, 1024, NULL, E(synth_workers),
     "Partitions synthesized at the same time (the memory budget may allow fewer);\n"
     "0 = max(2, CPUs / 2)."},
    {"pipeline.key_loaders", CFG_UINT, NULL, 1, 64, NULL, E(key_loaders),
     "Keys loaded or set up at the same time, each on its own thread: a long setup of one key\n"
     "holds back neither the dispatcher nor the jobs whose keys are loaded."},
    {"pipeline.self_verify", CFG_BOOL, NULL, 0, 0, NULL, E(self_verify),
     "Verify every partition's proof before the job completes (a proof that fails is proved\n"
     "once more, then the job fails). Off: a warning at start."},

    {"synthetic.partitions", CFG_UINT, NULL, 1, 1024, NULL, K(synthetic_partitions),
     "Partitions of a synthetic job whose circuit id does not say (\"<N>\" rather than\n"
     "\"<N>x<P>\")."},
    {"synthetic.check", CFG_BOOL, NULL, 0, 0, NULL, K(synthetic_check),
     "Synthetic synthesis also checks that the witness satisfies every constraint."},
    {"synthetic.max_setup_constraints", CFG_UINT, "1048576", 0, 1 << 28, NULL,
     K(synthetic_max_setup),
     "Synthetic keys above this many constraints are not set up on demand (a stored one is\n"
     "still used): a request must not make the daemon build a huge key. 0 = no bound."},
    {"synthetic.max_cache_bytes", CFG_SIZE, "\"4GiB\"", 0, INT64_MAX, NULL, K(synthetic_max_cache),
     "The synthetic key files in srs.param_cache stay within this many bytes: before a new\n"
     "one is stored the least recently used others are removed (a client may ask for any\n"
     "size up to max_setup_constraints). \"0\" = no bound."},

    {"filecoin.check", CFG_BOOL, NULL, 0, 0, NULL, K(filecoin_check),
     "The Filecoin kinds (porep, snap, wpost, winning) also check every witness row by row\n"
     "against the circuit's recorded constraint system (slow, and the constraint system stays\n"
     "in host memory with the key); the proofs are verified either way."},

    {"logging.level", CFG_LOG_LEVEL, "\"info\"", 0, 0, NULL, F(log_level),
     "\"error\", \"warn\", \"info\" or \"debug\". Overridden by --log-level. The ready line is\n"
     "written at every level."},
    {"logging.format", CFG_ENUM, "\"text\"", 0, 0, "text|json", F(log_format),
     "\"text\" (one line per event) or \"json\" (one JSON object per line)."},
    {"logging.timeline", CFG_BOOL, "true", 0, 0, NULL, F(timeline),
     "Write the engine's TIMELINE and *_TIMING trace lines to stderr."},

    {"scheduler.max_batch_size", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "partitions are proved one at a time (docs/engine.md: batching)"},
    {"scheduler.max_batch_wait_ms", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "partitions are proved one at a time (docs/engine.md: batching)"},
    {"srs.preload", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "keys load on demand (or through PreloadSRS)"},
    {"memory.pinned_budget", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "one budget (memory.total_budget) covers all memory"},
    {"memory.working_memory_budget", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "one budget (memory.total_budget) covers all memory"},
    {"scheduler.sort_by_type", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "queues are ordered by priority, then age"},
    {"synthesis.partition_workers", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "see pipeline.max_parallel_synthesis"},
    {"pipeline.enabled", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "the pipeline is the only mode"},
    {"pipeline.synthesis_lookahead", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "the memory budget bounds synthesis ahead of the GPU"},
    {"pipeline.synthesis_concurrency", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "see pipeline.max_parallel_synthesis"},
    {"pipeline.slot_size", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "the pipeline is the only mode"},
    {"pipeline.max_gpu_queue_depth", CFG_DEPRECATED, NULL, 0, 0, NULL, NOFIELD,
     "the memory budget paces synthesis"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void *field(struct cuzk_config *c, const struct cfg_row *r) { return (char *)c + r->off; }
static const void *cfield(const struct cuzk_config *c, const struct cfg_row *r) {
    return (const char *)c + r->off;
}
static int is_string_type(enum cfg_type t) {
    return t == CFG_STRING || t == CFG_ENUM || t == CFG_LOG_LEVEL || t == CFG_ADDR ||
           t == CFG_HTTP_ADDR;
}

static const struct cfg_row *row_find(const char *key) {
    for (size_t i = 0; i < NROWS; i++)
        if (!strcmp(rows[i].key, key)) return &rows[i];
    return NULL;
}

/* ---- value checks ------------------------------------------------------------------------ */

/* "host:port" with a non-empty host (a name, an IPv4 address or a bracketed IPv6 address) and
 * a port in 0..65535 (0: the system picks a free port, which the ready line reports). */
static int check_host_port(const char *s, char *why, size_t n) {
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) {
        (void)cuzk_errf(why, n, 0, "expected \"host:port\"");
        return -1;
    }
    if (s[0] == '[' && colon[-1] != ']') {
        (void)cuzk_errf(why, n, 0, "an IPv6 address must be in brackets: \"[::1]:9820\"");
        return -1;
    }
    if (s[0] != '[' && memchr(s, ':', (size_t)(colon - s))) {
        (void)cuzk_errf(why, n, 0, "an IPv6 address must be in brackets: \"[::1]:9820\"");
        return -1;
    }
    const char *p = colon + 1;
    long port = 0;
    if (!*p || strlen(p) > 5) port = -1;
    for (; *p && port >= 0; p++) port = *p >= '0' && *p <= '9' ? port * 10 + (*p - '0') : -1;
    if (port < 0 || port > 65535) {
        (void)cuzk_errf(why, n, 0, "the port must be a number from 0 to 65535 (0: any free port)");
        return -1;
    }
    for (const char *q = s; q < colon; q++) {
        if ((unsigned char)*q <= ' ' || *q == '/') {
            (void)cuzk_errf(why, n, 0, "invalid character in the host name");
            return -1;
        }
    }
    return 0;
}

static int check_string(const struct cfg_row *r, const char *s, char *why, size_t n) {
    switch (r->type) {
    case CFG_ENUM: {
        size_t l = strlen(s);
        for (const char *c = r->choices; *c;) {
            const char *bar = strchr(c, '|');
            size_t cl = bar ? (size_t)(bar - c) : strlen(c);
            if (cl == l && !memcmp(c, s, l)) return 0;
            c += cl + (bar != NULL);
        }
        char list[128];
        snprintf(list, sizeof list, "%s", r->choices);
        for (char *q = list; *q; q++)
            if (*q == '|') *q = ',';
        (void)cuzk_errf(why, n, 0, "must be one of: %s", list);
        return -1;
    }
    case CFG_LOG_LEVEL: {
        enum cuzk_log_level lv;
        if (cuzk_log_level_parse(s, &lv) == CUZK_OK) return 0;
        (void)cuzk_errf(why, n, 0, "must be one of: error, warn, info, debug");
        return -1;
    }
    case CFG_ADDR:
        if (!strncmp(s, "unix:", 5)) {
            const char *path = s + 5;
            if (strncmp(path, "//", 2) || path[2] != '/') {
                (void)cuzk_errf(why, n, 0, "a unix socket address is \"unix:///absolute/path\"");
                return -1;
            }
            path += 2;
            if (strlen(path) >= 108) { /* sizeof(sockaddr_un.sun_path) on Linux */
                (void)cuzk_errf(why, n, 0, "the socket path is longer than 107 bytes");
                return -1;
            }
            if (path[strlen(path) - 1] == '/') {
                (void)cuzk_errf(why, n, 0, "the socket path names a directory");
                return -1;
            }
            return 0;
        }
        return check_host_port(s, why, n);
    case CFG_HTTP_ADDR: return *s ? check_host_port(s, why, n) : 0;
    default: return 0;
    }
}

/* Parses "<number><unit>" durations: units ms, s, m, h, d; the number may have a fraction. */
static int parse_duration(const char *s, uint64_t *ms) {
    if (!strcmp(s, "0")) {
        *ms = 0;
        return 0;
    }
    char *end;
    errno = 0;
    if (!(*s >= '0' && *s <= '9')) return -1;
    double v = strtod(s, &end);
    if (errno || end == s) return -1;
    double mult;
    if (!strcmp(end, "ms"))
        mult = 1;
    else if (!strcmp(end, "s"))
        mult = 1e3;
    else if (!strcmp(end, "m"))
        mult = 6e4;
    else if (!strcmp(end, "h"))
        mult = 3.6e6;
    else if (!strcmp(end, "d"))
        mult = 8.64e7;
    else
        return -1;
    double t = v * mult;
    if (!(t >= 0) || t > 9.0e18) return -1;
    *ms = (uint64_t)(t + 0.5);
    return 0;
}

/* Applies one TOML value to the row's field, or explains in `why` what is wrong with it. */
static int apply(struct cuzk_config *c, const struct cfg_row *r, const struct cuzk_toml_value *v,
                 char *why, size_t n) {
    const char *tn = cuzk_toml_type_name(v->type);
    if (is_string_type(r->type)) {
        if (v->type != CUZK_TOML_STRING) {
            (void)cuzk_errf(why, n, 0, "expected a string, found %s", tn);
            return -1;
        }
        if (check_string(r, v->u.s, why, n)) return -1;
        char *dup = strdup(v->u.s);
        if (!dup) {
            (void)cuzk_errf(why, n, 0, "out of memory");
            return -1;
        }
        char **slot = field(c, r);
        free(*slot);
        *slot = dup;
        return 0;
    }
    switch (r->type) {
    case CFG_INT:
    case CFG_UINT: /* the same checks; the field's type differs */
        if (v->type != CUZK_TOML_INT) {
            (void)cuzk_errf(why, n, 0, "expected an integer, found %s", tn);
            return -1;
        }
        if (v->u.i < r->min || v->u.i > r->max) {
            (void)cuzk_errf(why, n, 0, "%" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", v->u.i,
                            r->min, r->max);
            return -1;
        }
        if (r->type == CFG_INT)
            *(int64_t *)field(c, r) = v->u.i;
        else
            *(unsigned *)field(c, r) = (unsigned)v->u.i;
        return 0;
    case CFG_BOOL:
        if (v->type != CUZK_TOML_BOOL) {
            (void)cuzk_errf(why, n, 0, "expected true or false, found %s", tn);
            return -1;
        }
        *(int *)field(c, r) = v->u.b;
        return 0;
    case CFG_SIZE:
    case CFG_SIZE_AUTO: {
        uint64_t b;
        if (v->type == CUZK_TOML_INT) {
            if (v->u.i < 0) {
                (void)cuzk_errf(why, n, 0, "a size cannot be negative");
                return -1;
            }
            b = (uint64_t)v->u.i;
        } else if (v->type == CUZK_TOML_STRING) {
            if (r->type == CFG_SIZE_AUTO && !strcmp(v->u.s, "auto")) {
                *(uint64_t *)field(c, r) = 0;
                return 0;
            }
            if (cuzk_parse_size(v->u.s, &b) != CUZK_OK) {
                (void)cuzk_errf(
                    why, n, 0,
                    "\"%s\" is not a size (a number of bytes, or e.g. \"512MiB\", \"5GiB\")%s",
                    v->u.s, r->type == CFG_SIZE_AUTO ? " or \"auto\"" : "");
                return -1;
            }
        } else {
            (void)cuzk_errf(
                why, n, 0, "expected a size (integer bytes or a string such as \"5GiB\"), found %s",
                tn);
            return -1;
        }
        if (b < (uint64_t)r->min || b > (uint64_t)r->max) {
            (void)cuzk_errf(why, n, 0, "%" PRIu64 " bytes is outside [%" PRId64 ", %" PRId64 "]", b,
                            r->min, r->max);
            return -1;
        }
        *(uint64_t *)field(c, r) = b;
        return 0;
    }
    case CFG_DURATION: {
        uint64_t ms;
        if (v->type != CUZK_TOML_STRING) {
            (void)cuzk_errf(
                why, n, 0,
                "expected a duration string with a unit (e.g. \"30s\", \"5m\"), found %s", tn);
            return -1;
        }
        if (parse_duration(v->u.s, &ms)) {
            (void)cuzk_errf(why, n, 0,
                            "\"%s\" is not a duration (a number with a unit ms, s, m, h or d)",
                            v->u.s);
            return -1;
        }
        if (ms < (uint64_t)r->min || ms > (uint64_t)r->max) {
            (void)cuzk_errf(why, n, 0, "%" PRIu64 " ms is outside [%" PRId64 ", %" PRId64 "] ms",
                            ms, r->min, r->max);
            return -1;
        }
        *(uint64_t *)field(c, r) = ms;
        return 0;
    }
    case CFG_INT_LIST: {
        if (v->type != CUZK_TOML_ARRAY) {
            (void)cuzk_errf(why, n, 0, "expected an array of integers, found %s", tn);
            return -1;
        }
        if (v->u.arr.n > CUZK_CONFIG_MAX_DEVICES) {
            (void)cuzk_errf(why, n, 0, "at most %d entries", CUZK_CONFIG_MAX_DEVICES);
            return -1;
        }
        int64_t *list = field(c, r);
        for (size_t i = 0; i < v->u.arr.n; i++) {
            const struct cuzk_toml_value *it = &v->u.arr.items[i];
            if (it->type != CUZK_TOML_INT) {
                (void)cuzk_errf(why, n, 0, "entry %zu: expected an integer, found %s", i + 1,
                                cuzk_toml_type_name(it->type));
                return -1;
            }
            if (it->u.i < r->min || it->u.i > r->max) {
                (void)cuzk_errf(why, n, 0,
                                "entry %zu: %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]",
                                i + 1, it->u.i, r->min, r->max);
                return -1;
            }
            for (size_t j = 0; j < i; j++) {
                if (v->u.arr.items[j].u.i == it->u.i) {
                    (void)cuzk_errf(why, n, 0, "entry %zu: %" PRId64 " is listed twice", i + 1,
                                    it->u.i);
                    return -1;
                }
            }
        }
        for (size_t i = 0; i < v->u.arr.n; i++) list[i] = v->u.arr.items[i].u.i;
        *(size_t *)(list + CUZK_CONFIG_MAX_DEVICES) = v->u.arr.n;
        return 0;
    }
    default: (void)cuzk_errf(why, n, 0, "internal: unhandled type"); return -1;
    }
}

/* The count of an int list sits right after its array in the struct. */
_Static_assert(offsetof(struct cuzk_config, n_devices) ==
                   offsetof(struct cuzk_config, devices) +
                       sizeof(int64_t) * CUZK_CONFIG_MAX_DEVICES,
               "n_devices must follow devices");

/* ---- defaults, loading ------------------------------------------------------------------- */

static int apply_text(struct cuzk_config *c, const struct cfg_row *r, const char *value, char *why,
                      size_t n) {
    char text[256];
    snprintf(text, sizeof text, "v = %s\n", value);
    struct cuzk_toml *doc;
    if (cuzk_toml_parse(text, strlen(text), &doc, why, n) != CUZK_OK) return -1;
    int rc = doc->n == 1 ? apply(c, r, &doc->entries[0].val, why, n) : -1;
    cuzk_toml_free(doc);
    return rc;
}

int cuzk_config_init(struct cuzk_config *c) {
    memset(c, 0, sizeof *c);
    cuzk_engine_config_default(&c->engine);
    cuzk_kinds_config_default(&c->kinds);
    cuzk_cuda_config_default(&c->cuda);
    for (size_t i = 0; i < NROWS; i++) {
        char why[256];
        if (rows[i].type == CFG_DEPRECATED || !rows[i].def) continue;
        if (apply_text(c, &rows[i], rows[i].def, why, sizeof why)) {
            /* the table's own defaults are valid (test_config checks); only memory can fail */
            cuzk_config_free(c);
            return CUZK_ENOMEM;
        }
    }
    return CUZK_OK;
}

void cuzk_config_free(struct cuzk_config *c) {
    for (size_t i = 0; i < NROWS; i++) {
        if (is_string_type(rows[i].type)) {
            char **slot = field(c, &rows[i]);
            free(*slot);
            *slot = NULL;
        }
    }
}

static void warnf(cuzk_config_warn_fn warn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warnf(cuzk_config_warn_fn warn, void *ctx, const char *fmt, ...) {
    if (!warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    warn(ctx, msg);
}

int cuzk_config_load_text(struct cuzk_config *c, const char *text, size_t len, const char *source,
                          cuzk_config_warn_fn warn, void *ctx, char *err, size_t errlen) {
    struct cuzk_toml *doc;
    char perr[256];
    int rc = cuzk_toml_parse(text, len, &doc, perr, sizeof perr);
    if (rc != CUZK_OK) {
        (void)cuzk_errf(err, errlen, 0, "%s:%s", source, perr);
        return rc;
    }
    for (size_t i = 0; i < doc->n; i++) {
        const struct cuzk_toml_entry *e = &doc->entries[i];
        const struct cfg_row *r = NULL;
        for (size_t k = 0; k < NROWS && !r; k++)
            if (cuzk_toml_key_is(e, rows[k].key)) r = &rows[k];
        if (!r) {
            warnf(warn, ctx, "%s:%d: unknown key %s ignored", source, e->line, e->name);
            continue;
        }
        if (r->type == CFG_DEPRECATED) {
            warnf(warn, ctx, "%s:%d: key %s is no longer used (%s) and is ignored", source, e->line,
                  e->name, r->doc);
            continue;
        }
        char why[256];
        if (apply(c, r, &e->val, why, sizeof why)) {
            (void)cuzk_errf(err, errlen, 0, "%s:%d:%d: %s: %s", source, e->val.line, e->val.col,
                            r->key, why);
            cuzk_toml_free(doc);
            return CUZK_EINVAL;
        }
    }
    cuzk_toml_free(doc);
    return CUZK_OK;
}

int cuzk_config_load_file(struct cuzk_config *c, const char *path, cuzk_config_warn_fn warn,
                          void *ctx, char *err, size_t errlen) {
    /* a configuration file is small: refuse anything implausibly large */
    enum { MAX_CONFIG = 1 << 20 };
    uint8_t *text;
    size_t n;
    int rc = cuzk_file_read(path, MAX_CONFIG, &text, &n, err, errlen); /* "PATH: why" */
    if (rc) return rc;
    rc = cuzk_config_load_text(c, (const char *)text, n, path, warn, ctx, err, errlen);
    free(text);
    return rc;
}

int cuzk_config_set(struct cuzk_config *c, const char *key, const char *value, char *err,
                    size_t errlen) {
    const struct cfg_row *r = row_find(key);
    if (!r || r->type == CFG_DEPRECATED) {
        return cuzk_errf(err, errlen, CUZK_EINVAL, "unknown key %s", key);
    }
    char why[256];
    int ok;
    if (is_string_type(r->type)) {
        struct cuzk_toml_value v = {.type = CUZK_TOML_STRING, .u.s = (char *)value};
        ok = apply(c, r, &v, why, sizeof why) == 0;
    } else {
        ok = strlen(value) < 200 && apply_text(c, r, value, why, sizeof why) == 0;
        if (!ok && (r->type == CFG_SIZE || r->type == CFG_SIZE_AUTO || r->type == CFG_DURATION)) {
            /* a bare 64GiB or 5m on the command line is a string to TOML */
            struct cuzk_toml_value v = {.type = CUZK_TOML_STRING, .u.s = (char *)value};
            ok = apply(c, r, &v, why, sizeof why) == 0;
        }
    }
    if (!ok) {
        return cuzk_errf(err, errlen, CUZK_EINVAL, "%s: %s", key, why);
    }
    return CUZK_OK;
}

/* ---- printing ---------------------------------------------------------------------------- */

static void print_size(FILE *f, uint64_t b) {
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        uint64_t u = (uint64_t)1 << (10 * (4 - i));
        if (b && b % u == 0) {
            fprintf(f, "\"%" PRIu64 "%s\"", b / u, units[i]);
            return;
        }
    }
    fprintf(f, "%" PRIu64, b);
}

static void print_duration(FILE *f, uint64_t ms) {
    static const struct {
        uint64_t ms;
        const char *unit;
    } units[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
    if (ms == 0) {
        fputs("\"0\"", f);
        return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (ms % units[i].ms == 0) {
            fprintf(f, "\"%" PRIu64 "%s\"", ms / units[i].ms, units[i].unit);
            return;
        }
    }
}

static void print_value(FILE *f, const struct cuzk_config *c, const struct cfg_row *r) {
    const void *p = cfield(c, r);
    switch (r->type) {
    case CFG_STRING:
    case CFG_ENUM:
    case CFG_LOG_LEVEL:
    case CFG_ADDR:
    case CFG_HTTP_ADDR:
        cuzk_toml_write_string(f, *(char *const *)p ? *(char *const *)p : "");
        break;
    case CFG_INT: fprintf(f, "%" PRId64, *(const int64_t *)p); break;
    case CFG_UINT: fprintf(f, "%u", *(const unsigned *)p); break;
    case CFG_BOOL: fputs(*(const int *)p ? "true" : "false", f); break;
    case CFG_SIZE: print_size(f, *(const uint64_t *)p); break;
    case CFG_SIZE_AUTO:
        if (*(const uint64_t *)p == 0)
            fputs("\"auto\"", f);
        else
            print_size(f, *(const uint64_t *)p);
        break;
    case CFG_DURATION: print_duration(f, *(const uint64_t *)p); break;
    case CFG_INT_LIST: {
        const int64_t *list = p;
        size_t n = *(const size_t *)(list + CUZK_CONFIG_MAX_DEVICES);
        fputc('[', f);
        for (size_t i = 0; i < n; i++) fprintf(f, "%s%" PRId64, i ? ", " : "", list[i]);
        fputc(']', f);
        break;
    }
    case CFG_DEPRECATED: break;
    }
}

void cuzk_config_print(FILE *f, const struct cuzk_config *c) {
    fputs(
        "# cuzk-daemon configuration (TOML).\n"
        "#\n"
        "# Every key the daemon reads is listed here with its default value; a key left out\n"
        "# keeps its default. The daemon reads /etc/cuzk/cuzk.toml unless --config names\n"
        "# another file. Unknown keys are logged as warnings and ignored; a value of the wrong\n"
        "# type or out of range stops the start with the key and the reason.\n"
        "# Sizes: integer bytes or strings with a unit (\"512MiB\", \"5GiB\", \"1TiB\").\n"
        "# Durations: strings with a unit (\"500ms\", \"30s\", \"5m\", \"1h\", \"1d\") or \"0\".\n"
        "# This text is what `cuzk-daemon --print-config` writes for the defaults.\n",
        f);
    const char *section = NULL;
    size_t seclen = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const struct cfg_row *r = &rows[i];
        if (r->type == CFG_DEPRECATED) continue;
        const char *dot = strchr(r->key, '.');
        size_t sl = (size_t)(dot - r->key);
        if (!section || sl != seclen || memcmp(section, r->key, sl)) {
            fprintf(f, "\n[%.*s]\n", (int)sl, r->key);
            section = r->key;
            seclen = sl;
        } else {
            fputc('\n', f);
        }
        for (const char *d = r->doc; *d;) {
            const char *nl = strchr(d, '\n');
            size_t l = nl ? (size_t)(nl - d) : strlen(d);
            fprintf(f, "# %.*s\n", (int)l, d);
            d += l + (nl != NULL);
        }
        fprintf(f, "%s = ", dot + 1);
        print_value(f, c, r);
        fputc('\n', f);
    }
    fputs("\n# Keys of earlier configuration files that are accepted with a warning and ignored:\n",
          f);
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].type == CFG_DEPRECATED) fprintf(f, "#   %s: %s\n", rows[i].key, rows[i].doc);
}

const char *cuzk_config_key(size_t i, int deprecated) {
    for (size_t k = 0; k < NROWS; k++) {
        if (rows[k].type == CFG_DEPRECATED && !deprecated) continue;
        if (i-- == 0) return rows[k].key;
    }
    return NULL;
}

int cuzk_config_check_threads(const struct cuzk_config *c, unsigned cpus, cuzk_config_warn_fn warn,
                              void *ctx) {
    char msg[320];
    int n = 0;
    const struct {
        const char *key;
        uint64_t value, limit;
        const char *why;
    } rows[] = {
        {"synthesis.threads", c->engine.cpu_threads, 2ull * cpus,
         "more than twice the machine's CPUs: the threads contend for them and proving slows "
         "down (0 = one per CPU)"},
        {"gpus.gpu_threads", (uint64_t)(c->gpu_threads > 0 ? c->gpu_threads : 0), 2ull * cpus,
         "more than twice the machine's CPUs: the threads contend for them and proving slows "
         "down (0 = one per CPU)"},
        {"pipeline.max_parallel_synthesis", c->engine.synth_workers, cpus,
         "more syntheses at once than the machine has CPUs: each gets a sliver of them and every "
         "partition waits longer (0 = max(2, CPUs / 2))"},
        {"gpus.gpu_workers_per_device", c->engine.gpu_workers_per_device, 4,
         "more than 4 workers per device: the extra ones only hold synthesized partitions' memory "
         "while they wait for the device"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].value <= rows[i].limit) continue;
        snprintf(msg, sizeof msg, "%s = %llu on a machine of %u CPUs: %s", rows[i].key,
                 (unsigned long long)rows[i].value, cpus, rows[i].why);
        if (warn) warn(ctx, msg);
        n++;
    }
    return n;
}
