/* cuzk-bench internals: the parsed command line, proof inputs turned into requests, the Prove
 * call, the live progress line, and one entry point per subcommand.
 *
 * DESIGN (threads): the main thread parses, loads the inputs once (every request of a run
 * shares one read-only template) and prints. batch, stress and soak run their proofs on worker
 * threads that share one gRPC client (its channel multiplexes the calls). A progress thread
 * redraws one status line on stderr. stdout and the progress line are written under out_lock
 * so a result line never lands in the middle of the progress line. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "client/client.h"
#include "cuzk/v1/proving.pb-c.h"

/* Exit codes: 0 success; 1 a proof failed (the daemon answered FAILED, CANCELLED, ...);
 * 2 usage; 3 the daemon could not be reached or refused the call, or an input file is bad;
 * 4 internal error (memory). */
enum { BENCH_OK = 0, BENCH_PROOF_FAILED = 1, BENCH_USAGE = 2, BENCH_ERROR = 3, BENCH_INTERNAL = 4 };

#define BENCH_DEFAULT_ADDR "http://127.0.0.1:9820"
#define BENCH_SECTOR_SIZE 34359738368ull /* 32 GiB, what cuzk's bench always sends */

/* Every option of every subcommand (each subcommand accepts its own subset). */
struct bench_args {
    /* global */
    const char *addr;
    const char *log_level;
    int progress;     /* -1 auto (stderr is a TTY), 0 off, 1 on */
    double timeout_s; /* per RPC; 0 = none */
    /* proof request */
    const char *type;
    const char *c1, *vanilla;
    uint64_t registered_proof, sector_num, miner_id, sector_size;
    int sector_size_set; /* --sector-size given */
    uint32_t partition;
    const char *randomness, *comm_r_old, *comm_r_new, *comm_d_new;
    const char *circuit, *witness;
    uint64_t seed;
    int seed_set;
    const char *priority;
    const char *request_id;
    const char *proof_out;
    /* batch / stress */
    uint32_t count, concurrency;
    int count_set; /* -c given (batch and soak default differently) */
    double duration_s;
    const char *mix;
    /* soak */
    uint32_t pid;               /* the daemon's; 0 = the one process named cuzk-daemon */
    uint32_t soak_every;        /* a sample every N jobs */
    uint32_t soak_warmup;       /* jobs before the plateau's samples */
    double soak_max_growth_mib; /* > 0: fail when the final RSS passes the plateau by more */
    /* preload */
    const char *circuit_id;
    /* timeline */
    const char *output;
    unsigned width;
    const char *title;
    /* stages */
    int csv;
    const char *vram; /* plan --vram */
    /* gen */
    const char *r1cs, *wtns, *zkey, *out_dir, *name, *synthetic;
    unsigned threads;
    /* check-params */
    const char *cache_dir;
    int no_subgroup; /* --no-subgroup-check */
    /* positional arguments after the subcommand */
    const char *pos[4];
    int n_pos;
};

/* ---- requests (request.c) ----------------------------------------------------------------- */

/* A loaded request template: everything but the request id. Owns the byte buffers. */
struct bench_input {
    Cuzk__V1__SubmitProofRequest tmpl;
    char label[64];     /* the proof type as the user named it, for output */
    char kind_name[32]; /* canonical short name: porep, snap, wpost, winning, snarkjs, synthetic */
    void *owned[16];    /* buffers to free */
    int n_owned;
    int random_seed; /* synthetic without --seed: each request gets a random sector_number */
};

/* Parses a proof type (cuzk's names, plus "snarkjs" and "synthetic"). Returns 0 or -1. */
int bench_kind_parse(const char *s, char *canonical, size_t n, Cuzk__V1__ProofKind *kind);
/* "low", "normal", "high", "critical", "default" (or 0..4) -> the proto Priority. */
int bench_priority_parse(const char *s, Cuzk__V1__Priority *out);
const char *bench_priority_name(Cuzk__V1__Priority p);

/* Loads the inputs for one proof type and fills in. type, circuit and priority override
 * a->type, a->circuit and a->priority when not NULL (stress mixes). Returns a BENCH_* code with
 * the reason in err. */
int bench_input_load(struct bench_input *in, const struct bench_args *a, const char *type,
                     const char *circuit, const char *priority, char *err, size_t errlen);
void bench_input_free(struct bench_input *in);

/* cuzk_file_read (util/file.h) without a size limit, in bench's codes: BENCH_OK, BENCH_ERROR
 * (missing, a directory or a FIFO, cannot be read) or BENCH_INTERNAL (memory), with the reason in
 * err. *out is malloc'd (free() it) and NUL-terminated one past *len. */
int bench_read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen);

/* A fresh UUIDv4 string (37 bytes with the NUL). */
void bench_uuid(char out[37]);

/* An option's unsigned value v in `base` (0: C prefixes, 10: decimal only); -1 after telling
 * stderr which option wants a number. */
int bench_u64_arg(const char *opt, const char *v, int base, uint64_t *out);

/* ---- calls (run.c) ------------------------------------------------------------------------ */

struct bench_outcome {
    int rc;        /* CUZK_OK when the RPC returned a result */
    char err[512]; /* the RPC failure when rc != CUZK_OK */
    int status;    /* Cuzk__V1__AwaitProofResponse__Status */
    char job_id[128];
    char error[512]; /* the job's error_message */
    uint8_t *proof;  /* malloc'd */
    size_t proof_len;
    uint64_t total_ms, queue_ms, srs_ms, synth_ms, gpu_ms;
    double wall_ms;
};

int bench_prove(struct cuzk_client *c, const struct bench_input *in, const char *request_id,
                double timeout_s, struct bench_outcome *out);
void bench_outcome_free(struct bench_outcome *o);
const char *bench_status_label(int status);
double bench_now_ms(void);

/* ---- progress (progress.c) ---------------------------------------------------------------- */

struct bench_progress {
    pthread_mutex_t out_lock; /* held while writing stdout or the progress line */
    atomic_uint done, ok, failed, running;
    unsigned total;       /* 0 = open-ended (stress) */
    double t0_ms, end_ms; /* end_ms > 0: a stress run's planned end */
    const char *what;
    struct cuzk_client *client; /* for the daemon's queue figures; may be NULL */
    int enabled, tty, drawn;
    char daemon[160];
    /* private */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stop, started;
};

/* Sets up the progress display (enabled per a->progress and isatty(2)) and starts its
 * thread. */
void bench_progress_start(struct bench_progress *p, const struct bench_args *a,
                          struct cuzk_client *client, const char *what, unsigned total);
void bench_progress_stop(struct bench_progress *p);
/* Call with out_lock held before writing to stdout: removes the progress line. */
void bench_progress_clear_locked(struct bench_progress *p);

/* ---- subcommands -------------------------------------------------------------------------- */

int bench_open_client(const struct bench_args *a, struct cuzk_client **c);
int bench_cmd_single(const struct bench_args *a);
/* gen-vanilla, synth-only and verify-fc (gen_vanilla.c): the exit code when argv names one of
 * them, else -1 (then main parses argv itself). */
int bench_fc_main(int argc, char **argv);
/* sector-commit (sector_commit.c): argv[0] = "sector-commit"; returns the exit code. */
int bench_sector_commit_main(int argc, char **argv);
/* gen-post (sector_commit.c): argv[0] = "gen-post"; returns the exit code. */
int bench_gen_post_main(int argc, char **argv);
int bench_gen_c1_main(int argc, char **argv);
int bench_cmd_batch(const struct bench_args *a);
int bench_cmd_stress(const struct bench_args *a);
int bench_cmd_soak(const struct bench_args *a);
int bench_cmd_status(const struct bench_args *a);
int bench_cmd_preload(const struct bench_args *a);
int bench_cmd_metrics(const struct bench_args *a);
int bench_cmd_gen(const struct bench_args *a);
int bench_cmd_timeline(const struct bench_args *a);
int bench_cmd_stages(const struct bench_args *a);
int bench_cmd_plan(const struct bench_args *a);
/* check-params (check_params.c): <.params> <.vk> against the input's circuit. */
int bench_cmd_check_params(const struct bench_args *a);

/* Mix specifications (stress.c): "KIND[=CIRCUIT][@PRIORITY][:WEIGHT],..." */
struct bench_mix_entry {
    char type[32];
    char circuit[64];  /* "" = the --circuit flag */
    char priority[16]; /* "" = the --priority flag */
    unsigned weight;
};
/* Returns the number of entries (>= 1) or -1 with the reason in err. */
int bench_mix_parse(const char *spec, struct bench_mix_entry *out, int max, char *err,
                    size_t errlen);
/* Parses spec into mix (at most max entries) and loads each entry's input into in[i]. Returns
 * BENCH_OK with the count in *n; BENCH_USAGE for a bad spec, or a load's code, having said why
 * on stderr and freed every input it loaded. */
int bench_mix_load(const struct bench_args *a, const char *spec, struct bench_mix_entry *mix,
                   int max, struct bench_input *in, int *n);

#endif
