/* The daemon's configuration: one table (key, type, default, bounds, documentation) that loads
 * a TOML file into struct cuzk_config, prints the documented sample configuration, and applies
 * command-line overrides.
 *
 * Contract: cuzk_config_init gives every default. Loading a file sets the keys it names and
 * leaves the others unchanged; a key the table does not know and a deprecated key are reported
 * to the warning callback and ignored; a value of the wrong type or outside its bounds stops
 * the load with "<key> (line L, column C): <reason>" in err and CUZK_EINVAL (a TOML syntax
 * error gives CUZK_EFORMAT with "<file>:L:C: <reason>"). On error the struct keeps the values
 * applied so far: callers discard it. Sizes are accepted as integers (bytes) or as strings
 * with a unit ("5GiB", "256MiB"); durations as strings with a unit ("500ms", "30s", "5m",
 * "1h") or "0".
 *
 * One path from a key to its use: a row binds straight to the field that uses the value, in
 * the engine's configuration (struct cuzk_engine_config), the kinds' (struct cuzk_kinds_config),
 * the GPU backends' (struct cuzk_cuda_config) or the daemon's own fields below; the defaults of
 * the engine's, kinds' and GPU backends' fields are theirs (cuzk_engine_config_default,
 * cuzk_kinds_config_default, cuzk_cuda_config_default: the only place they are written), the
 * daemon's are in the table. Sizes and durations stay numbers all the way.
 * Thread-safety: none; a loaded configuration is read-only afterwards. */
#ifndef CUZK_SERVER_CONFIG_H
#define CUZK_SERVER_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "groth16/cuda_backend.h"
#include "kinds/kinds.h"

#define CUZK_CONFIG_DEFAULT_PATH "/etc/cuzk/cuzk.toml"
#define CUZK_CONFIG_MAX_DEVICES 64

struct cuzk_config {
    /* [daemon] */
    char *listen;              /* "unix:///path" or "host:port" */
    char *status_listen;       /* "host:port" or "" (no HTTP server) */
    uint64_t max_message_size; /* bytes, gRPC receive and send cap */
    char *shutdown;            /* "finish" or "cancel" */
    uint64_t shutdown_timeout_ms;
    int64_t max_blocking_calls;               /* calls in progress on threads of their own */
    uint64_t max_input_bytes;                 /* request bytes in flight (service.h) */
    int cancel_on_disconnect;                 /* a Prove's departed client cancels its job */
    char *tls_cert, *tls_key, *tls_client_ca; /* PEM files; "" = no TLS */
    /* [srs] (besides srs.param_cache, a kinds field) */
    int on_demand_setup; /* keys may be set up on demand */
    char *setup_allow;   /* comma-separated kind:circuit globs of those keys */
    /* [snarkjs] */
    char *snarkjs_dir;
    /* [gpus] */
    int64_t devices[CUZK_CONFIG_MAX_DEVICES];
    size_t n_devices;             /* 0 = every GPU found */
    int64_t gpu_threads;          /* threads of the GPU backends' CPU pool; 0 = all CPUs */
    struct cuzk_cuda_config cuda; /* every GPU backend's settings (vram_budget, folds, ...) */
    /* the engine's and the kinds' settings ([memory], [scheduler], [pipeline], [synthesis],
     * gpus.gpu_workers_per_device, srs.param_cache, [synthetic], [filecoin]); the engine's
     * devices, fallback and trace output are the daemon's to fill */
    struct cuzk_engine_config engine;
    struct cuzk_kinds_config kinds; /* kinds.cache_dir is owned by the configuration */
    /* [logging] */
    char *log_level;
    char *log_format;
    int timeline;
};

typedef void (*cuzk_config_warn_fn)(void *ctx, const char *message);

/* Every key at its default. Returns CUZK_OK or CUZK_ENOMEM. */
int cuzk_config_init(struct cuzk_config *c);
void cuzk_config_free(struct cuzk_config *c);

/* Applies a TOML text; `source` names it in messages (a path). warn may be NULL. */
int cuzk_config_load_text(struct cuzk_config *c, const char *text, size_t len, const char *source,
                          cuzk_config_warn_fn warn, void *ctx, char *err, size_t errlen);
/* Applies a file. Returns CUZK_ENOTFOUND when it does not exist, CUZK_EIO when it cannot be
 * read, CUZK_EINVAL when it is a directory (or a FIFO, ...: util/file.h) or holds more than
 * 1 MiB, else as cuzk_config_load_text; err then starts with the path. */
int cuzk_config_load_file(struct cuzk_config *c, const char *path, cuzk_config_warn_fn warn,
                          void *ctx, char *err, size_t errlen);

/* Sets one key from a command-line string: the text is taken as a TOML value when it parses
 * as one of the key's type, else as a string ("--set memory.total_budget=64GiB"). */
int cuzk_config_set(struct cuzk_config *c, const char *key, const char *value, char *err,
                    size_t errlen);

/* Writes the configuration as TOML: every key with its documentation as comments (the sample
 * conf/cuzk.example.toml is this output for the defaults). */
void cuzk_config_print(FILE *f, const struct cuzk_config *c);

/* Warns (through warn, one sentence each) of thread settings that oversubscribe a machine of
 * `cpus` CPUs and slow proving down: synthesis.threads or gpus.gpu_threads above twice the
 * CPUs, pipeline.max_parallel_synthesis above the CPUs, gpus.gpu_workers_per_device above 4.
 * Returns how many warnings it gave. */
int cuzk_config_check_threads(const struct cuzk_config *c, unsigned cpus, cuzk_config_warn_fn warn,
                              void *ctx);

/* The keys of the table, for tests: the i-th key's dotted name, or NULL past the end. Keys
 * that are accepted only to warn (deprecated) are included when `deprecated` is set. */
const char *cuzk_config_key(size_t i, int deprecated);

#endif
