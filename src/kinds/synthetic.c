#define _GNU_SOURCE
#include "kinds/synthetic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "kinds/zkey_key.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "r1cs/cs.h"
#include "util/log.h"
#include "util/pool.h"

#define ROUND_ROWS 194  /* constraints per round */
#define ROUND_WIRES 193 /* wires per round: u, 128 bits, 64 xor bits */
#define FIRST_ROUND_WIRE 3

/* ---- the circuit ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* K_r: fixed round constants */
static uint64_t round_const(uint32_t r) { return splitmix64(0x63757a6b00000000ull + r); }

uint64_t cuzk_synth_partition_seed(uint64_t seed, uint32_t part) {
    return splitmix64(splitmix64(seed) ^ (0x7061727400000000ull + part));
}

static uint32_t wire_u(uint32_t r) { return FIRST_ROUND_WIRE + ROUND_WIRES * r; }
static uint32_t wire_b(uint32_t r, uint32_t j) { return wire_u(r) + 1 + j; }
static uint32_t wire_x(uint32_t r, uint32_t j) { return wire_u(r) + 129 + j; }

/* The circuit is emitted row by row through these callbacks, once to count and once to
 * build, so the two can never disagree. Within a row, terms come matrix by matrix. */
struct emitter {
    void (*term)(struct emitter *e, int m, uint32_t wire, const cuzk_fr *coef);
    void (*row)(struct emitter *e);
    cuzk_fr pow2[128], one, two, minus_one;
};

static void emit_circuit(const struct cuzk_synth_shape *s, struct emitter *e) {
    uint32_t R = s->rounds;
    for (uint32_t r = 0; r < R; r++) {
        /* s_r * s_r = u_r - K_r */
        for (int m = 0; m < 2; m++) {
            if (r == 0)
                e->term(e, m, 2, &e->one);
            else
                for (uint32_t j = 0; j < 64; j++) e->term(e, m, wire_x(r - 1, j), &e->pow2[j]);
        }
        cuzk_fr k;
        cuzk_fr_from_u64(&k, round_const(r));
        cuzk_fr_neg(&k, &k);
        e->term(e, 2, wire_u(r), &e->one);
        e->term(e, 2, 0, &k);
        e->row(e);
        /* b * b = b */
        for (uint32_t j = 0; j < 128; j++) {
            for (int m = 0; m < 3; m++) e->term(e, m, wire_b(r, j), &e->one);
            e->row(e);
        }
        /* (sum 2^j b_j) * 1 = u_r */
        for (uint32_t j = 0; j < 128; j++) e->term(e, 0, wire_b(r, j), &e->pow2[j]);
        e->term(e, 1, 0, &e->one);
        e->term(e, 2, wire_u(r), &e->one);
        e->row(e);
        /* (2 b_j) * b_(j+64) = b_j + b_(j+64) - x_j */
        for (uint32_t j = 0; j < 64; j++) {
            e->term(e, 0, wire_b(r, j), &e->two);
            e->term(e, 1, wire_b(r, j + 64), &e->one);
            e->term(e, 2, wire_b(r, j), &e->one);
            e->term(e, 2, wire_b(r, j + 64), &e->one);
            e->term(e, 2, wire_x(r, j), &e->minus_one);
            e->row(e);
        }
    }
    /* out * 1 = s_R */
    e->term(e, 0, 1, &e->one);
    e->term(e, 1, 0, &e->one);
    for (uint32_t j = 0; j < 64; j++) e->term(e, 2, wire_x(R - 1, j), &e->pow2[j]);
    e->row(e);
    for (uint32_t k = 0; k < s->pad; k++) {
        uint32_t b = wire_b((k / 128) % R, k % 128);
        for (int m = 0; m < 3; m++) e->term(e, m, b, &e->one);
        e->row(e);
    }
}

static void emitter_init(struct emitter *e) {
    cuzk_fr_set_one(&e->one);
    cuzk_fr_add(&e->two, &e->one, &e->one);
    cuzk_fr_neg(&e->minus_one, &e->one);
    e->pow2[0] = e->one;
    for (int j = 1; j < 128; j++) cuzk_fr_add(&e->pow2[j], &e->pow2[j - 1], &e->pow2[j - 1]);
}

struct counter {
    struct emitter e;
    uint64_t nnz[3];
    uint32_t rows;
};

static void count_term(struct emitter *e, int m, uint32_t wire, const cuzk_fr *coef) {
    (void)wire, (void)coef;
    ((struct counter *)e)->nnz[m]++;
}
static void count_row(struct emitter *e) { ((struct counter *)e)->rows++; }

int cuzk_synth_shape(uint32_t n, struct cuzk_synth_shape *out) {
    memset(out, 0, sizeof *out);
    if (n < CUZK_SYNTH_MIN_CONSTRAINTS || n > CUZK_SYNTH_MAX_CONSTRAINTS) return CUZK_EINVAL;
    out->n_constraints = n;
    out->rounds = (n - 1) / ROUND_ROWS;
    out->pad = n - 1 - ROUND_ROWS * out->rounds;
    out->n_vars = FIRST_ROUND_WIRE + ROUND_WIRES * out->rounds;
    out->n_public = 2;
    /* the dev setup's domain: 2^(floor(log2(n + nPublic)) + 1) */
    uint64_t d = 1;
    while (d <= (uint64_t)n + out->n_public) d <<= 1;
    out->domain_size = (uint32_t)d;
    struct counter c = {.e = {.term = count_term, .row = count_row}};
    emitter_init(&c.e);
    emit_circuit(out, &c.e);
    memcpy(out->nnz, c.nnz, sizeof c.nnz);
    return c.rows == n ? CUZK_OK : CUZK_EINVAL;
}

struct builder {
    struct emitter e;
    struct cuzk_r1cs *r;
    uint32_t row;
    uint64_t t;
    /* the open row's terms, per matrix (at most 128 each) */
    uint32_t n[3], wire[3][128];
    cuzk_fr coef[3][128];
};

static void build_term(struct emitter *e, int m, uint32_t wire, const cuzk_fr *coef) {
    struct builder *b = (struct builder *)e;
    b->wire[m][b->n[m]] = wire;
    b->coef[m][b->n[m]++] = *coef;
}

static void build_row(struct emitter *e) {
    struct builder *b = (struct builder *)e;
    for (int m = 0; m < 3; m++) {
        b->r->lc[3 * (uint64_t)b->row + m] = b->t;
        for (uint32_t k = 0; k < b->n[m]; k++) {
            b->r->wire[b->t] = b->wire[m][k];
            b->r->coef[b->t++] = b->coef[m][k];
        }
        b->n[m] = 0;
    }
    b->row++;
}

int cuzk_synth_r1cs(const struct cuzk_synth_shape *s, struct cuzk_r1cs *r) {
    memset(r, 0, sizeof *r);
    uint64_t terms = s->nnz[0] + s->nnz[1] + s->nnz[2];
    r->n_wires = s->n_vars;
    r->n_pub_out = 1;
    r->n_pub_in = 1;
    r->n_constraints = s->n_constraints;
    r->n_terms = terms;
    r->lc = malloc((3 * (size_t)s->n_constraints + 1) * sizeof *r->lc);
    r->wire = malloc(terms * sizeof *r->wire);
    r->coef = malloc(terms * sizeof *r->coef);
    if (!r->lc || !r->wire || !r->coef) {
        cuzk_r1cs_free(r);
        return CUZK_ENOMEM;
    }
    struct builder *b = calloc(1, sizeof *b);
    if (!b) {
        cuzk_r1cs_free(r);
        return CUZK_ENOMEM;
    }
    b->e.term = build_term;
    b->e.row = build_row;
    b->r = r;
    emitter_init(&b->e);
    emit_circuit(s, &b->e);
    r->lc[3 * (uint64_t)s->n_constraints] = b->t;
    free(b);
    return CUZK_OK;
}

void cuzk_synth_witness(const struct cuzk_synth_shape *s, uint64_t s0, cuzk_fr *w) {
    cuzk_fr zero, one;
    cuzk_fr_set_zero(&zero);
    cuzk_fr_set_one(&one);
    w[0] = one;
    cuzk_fr_from_u64(&w[2], s0);
    uint64_t st = s0;
    for (uint32_t r = 0; r < s->rounds; r++) {
        unsigned __int128 u = (unsigned __int128)st * st + round_const(r);
        uint64_t lo = (uint64_t)u, hi = (uint64_t)(u >> 64);
        uint64_t limbs[4] = {lo, hi, 0, 0};
        cuzk_fr_from_canonical(&w[wire_u(r)], limbs);
        cuzk_fr *bits = &w[wire_b(r, 0)];
        for (uint32_t j = 0; j < 64; j++) {
            bits[j] = (lo >> j) & 1 ? one : zero;
            bits[64 + j] = (hi >> j) & 1 ? one : zero;
        }
        st = lo ^ hi;
        cuzk_fr *x = &w[wire_x(r, 0)];
        for (uint32_t j = 0; j < 64; j++) x[j] = (st >> j) & 1 ? one : zero;
    }
    cuzk_fr_from_u64(&w[1], st);
}

/* ---- the kind --------------------------------------------------------------------------- */

struct synth_kind {
    struct cuzk_kind k;
    char *cache_dir;
    unsigned default_partitions;
    int check;
    uint32_t max_setup; /* keys above this many constraints are not set up; 0 = no bound */
    uint64_t max_cache; /* bytes of synthetic-*.zkey files in cache_dir; 0 = no bound */
};

struct synth_job {
    struct cuzk_synth_shape shape;
    uint32_t parts;
    uint64_t seed;
};

struct synth_priv {
    struct cuzk_synth_shape shape;
    struct cuzk_cs cs; /* when checking */
    int has_cs;
};

static int parse_count(const char *s, char **end, uint64_t *out) {
    if (*s < '0' || *s > '9') return CUZK_EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno) return CUZK_EINVAL;
    if (**end == 'K' || **end == 'k')
        v <<= 10, (*end)++;
    else if (**end == 'M' || **end == 'm')
        v <<= 20, (*end)++;
    *out = v;
    return CUZK_OK;
}

static int parse_circuit(const struct synth_kind *sk, const char *id, uint32_t *n, uint32_t *p,
                         char *err, size_t errlen) {
    uint64_t nv, pv = sk->default_partitions;
    char *end;
    if (!id || parse_count(id, &end, &nv)) goto bad;
    if (*end == 'x') {
        if (parse_count(end + 1, &end, &pv)) goto bad;
    }
    if (*end) goto bad;
    if (nv < CUZK_SYNTH_MIN_CONSTRAINTS || nv > CUZK_SYNTH_MAX_CONSTRAINTS) {
        snprintf(err, errlen, "synthetic: %llu constraints is outside [%u, %u]",
                 (unsigned long long)nv, CUZK_SYNTH_MIN_CONSTRAINTS, CUZK_SYNTH_MAX_CONSTRAINTS);
        return CUZK_EINVAL;
    }
    if (pv < 1 || pv > CUZK_SYNTH_MAX_PARTITIONS) {
        snprintf(err, errlen, "synthetic: %llu partitions is outside [1, %u]",
                 (unsigned long long)pv, CUZK_SYNTH_MAX_PARTITIONS);
        return CUZK_EINVAL;
    }
    *n = (uint32_t)nv;
    *p = (uint32_t)pv;
    return CUZK_OK;
bad:
    snprintf(err, errlen,
             "synthetic: circuit id \"%s\" is not <constraints>[x<partitions>] (e.g. 4096x10)",
             id ? id : "");
    return CUZK_EINVAL;
}

static int synth_key_cached(const struct cuzk_kind *k, const char *key_id);

/* A key of n constraints above the kind's setup bound, not stored: refused before anything is
 * made (a client must not make the daemon set up a 2^28 circuit). */
static int setup_bound(const struct synth_kind *sk, uint32_t n, char *err, size_t errlen) {
    char key_id[16];
    snprintf(key_id, sizeof key_id, "%u", n);
    if (!sk->max_setup || n <= sk->max_setup || synth_key_cached(&sk->k, key_id)) return CUZK_OK;
    return cuzk_errf(err, errlen, CUZK_EDENIED,
                     "synthetic: a key of %u constraints is not stored, and keys above %u are not "
                     "set up on demand (synthetic.max_setup_constraints)",
                     n, sk->max_setup);
}

static int synth_job_open(const struct cuzk_kind *k, const struct cuzk_job_request *req, void **job,
                          uint32_t *n_partitions, char key_id[CUZK_NAME_MAX], char *err,
                          size_t errlen) {
    const struct synth_kind *sk = (const struct synth_kind *)k;
    uint32_t n, p;
    int rc = parse_circuit(sk, req->circuit_id, &n, &p, err, errlen);
    if (!rc) rc = setup_bound(sk, n, err, errlen);
    if (rc) return rc;
    struct synth_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ENOMEM;
    cuzk_synth_shape(n, &j->shape);
    j->parts = p;
    j->seed = req->seed;
    *job = j;
    *n_partitions = p;
    snprintf(key_id, CUZK_NAME_MAX, "%u", n);
    return CUZK_OK;
}

static int synth_key_of(const struct cuzk_kind *k, const char *circuit_id,
                        char key_id[CUZK_NAME_MAX], char *err, size_t errlen) {
    uint32_t n, p;
    int rc = parse_circuit((const struct synth_kind *)k, circuit_id, &n, &p, err, errlen);
    if (!rc) rc = setup_bound((const struct synth_kind *)k, n, err, errlen);
    if (!rc) snprintf(key_id, CUZK_NAME_MAX, "%u", n);
    return rc;
}

static void synth_job_free(const struct cuzk_kind *k, void *job) {
    (void)k;
    free(job);
}

static uint64_t r1cs_bytes(const struct cuzk_synth_shape *s) {
    uint64_t terms = s->nnz[0] + s->nnz[1] + s->nnz[2];
    return (3 * (uint64_t)s->n_constraints + 1) * 8 + terms * (4 + sizeof(cuzk_fr));
}

/* The compact system of the shape (cs.h): its distinct coefficients are one constant per round
 * and fewer than 256 others (powers of two, 2, -1, 1). */
static uint64_t cs_bytes(const struct cuzk_synth_shape *s) {
    return cuzk_cs_bytes_for(s->n_constraints, s->nnz[0], s->nnz[1], s->nnz[2],
                             (uint64_t)s->rounds + 256);
}

static void cache_path(const struct synth_kind *sk, const char *key_id, char *out, size_t cap) {
    snprintf(out, cap, "%s/synthetic-%s.zkey", sk->cache_dir, key_id);
}

/* The SRS manager found the cached key corrupt (a truncated or empty file: CUZK_EFORMAT from its
 * load): removed, so that the load it tries once more sets the key up again. */
static void synth_key_corrupt(const struct cuzk_kind *k, const char *key_id) {
    const struct synth_kind *sk = (const struct synth_kind *)k;
    char path[4200];
    if (!sk->cache_dir) return;
    cache_path(sk, key_id, path, sizeof path);
    if (!unlink(path))
        cuzk_log_warn("synthetic",
                      "key file %s is corrupt: removed, the next load sets it up again", path);
}

/* Makes room for a new key file of `bytes` in the cache (the kind's lock of key keep_id held):
 * while the synthetic-*.zkey files and it would pass max_cache, the least recently used file
 * (mtime: a load touches its file) whose key nobody loads now (its lock taken without waiting)
 * is removed, logged. A client may name any size up to synthetic.max_setup_constraints; the
 * disk they take stays bounded. */
static void cache_make_room(const struct synth_kind *sk, const char *keep, uint64_t bytes) {
    if (!sk->max_cache) return;
    for (;;) {
        DIR *d = opendir(sk->cache_dir);
        if (!d) return;
        uint64_t total = bytes;
        char oldest[512] = "";
        struct timespec old_t = {0, 0};
        struct dirent *de;
        while ((de = readdir(d))) {
            const size_t l = strlen(de->d_name);
            if (strncmp(de->d_name, "synthetic-", 10) || l < 15 ||
                strcmp(de->d_name + l - 5, ".zkey"))
                continue;
            struct stat st;
            if (fstatat(dirfd(d), de->d_name, &st, 0) || !S_ISREG(st.st_mode)) continue;
            total += (uint64_t)st.st_size;
            if (!strcmp(de->d_name, keep) || l >= sizeof oldest) continue;
            if (!oldest[0] || st.st_mtim.tv_sec < old_t.tv_sec ||
                (st.st_mtim.tv_sec == old_t.tv_sec && st.st_mtim.tv_nsec < old_t.tv_nsec)) {
                memcpy(oldest, de->d_name, l + 1);
                old_t = st.st_mtim;
            }
        }
        closedir(d);
        if (total <= sk->max_cache || !oldest[0]) return;
        char path[4700], lock[4800];
        snprintf(path, sizeof path, "%s/%s", sk->cache_dir, oldest);
        snprintf(lock, sizeof lock, "%s.lock", path);
        int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return;
        if (flock(fd, LOCK_EX | LOCK_NB)) { /* being loaded: leave the cache over its bound */
            close(fd);
            return;
        }
        struct stat st;
        const uint64_t size = stat(path, &st) ? 0 : (uint64_t)st.st_size;
        const int gone = !unlink(path);
        flock(fd, LOCK_UN);
        close(fd);
        if (!gone) return;
        cuzk_log_info("synthetic",
                      "key file %s removed (%llu bytes, the least recently used): the cache's "
                      "synthetic keys would pass synthetic.max_cache_bytes (%llu)",
                      path, (unsigned long long)size, (unsigned long long)sk->max_cache);
    }
}

static int synth_key_cached(const struct cuzk_kind *k, const char *key_id) {
    const struct synth_kind *sk = (const struct synth_kind *)k;
    char path[4200];
    struct stat st;
    if (!sk->cache_dir) return 0;
    cache_path(sk, key_id, path, sizeof path);
    return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int synth_key_sizes(const struct cuzk_kind *k, const char *key_id,
                           struct cuzk_kind_sizes *out, char *err, size_t errlen) {
    const struct synth_kind *sk = (const struct synth_kind *)k;
    uint32_t n, p;
    int rc = parse_circuit(sk, key_id, &n, &p, err, errlen);
    if (rc) return rc;
    struct cuzk_synth_shape s;
    cuzk_synth_shape(n, &s);
    memset(out, 0, sizeof *out);
    out->n_vars = s.n_vars;
    out->n_public = s.n_public;
    out->domain_size = s.domain_size;
    out->key_bytes = cuzk_kind_zkey_bytes(s.n_vars, s.n_public, s.domain_size,
                                          s.nnz[0] + s.nnz[1] + s.n_public + 1);
    uint64_t cs = sk->check ? cs_bytes(&s) : 0;
    out->cs_bytes = cs;
    /* the r1cs while the key and cs are made, and either the mapped cache file or the setup's
     * tables: the Lagrange evaluations (32 n), the QAP columns (96 n_vars) and the
     * fixed-base tables (about 2.5 MiB) */
    char path[4096];
    struct stat st;
    uint64_t scratch = r1cs_bytes(&s);
    if (sk->cache_dir && (cache_path(sk, key_id, path, sizeof path), !stat(path, &st)))
        scratch += (uint64_t)st.st_size;
    else
        scratch += 32 * (uint64_t)s.domain_size + 96 * (uint64_t)s.n_vars + (4u << 20) +
                   (uint64_t)cuzk_cpu_count() * (1u << 20);
    /* the setup converts the r1cs into a compact system too */
    if (!(sk->cache_dir && !stat(path, &st))) scratch += cs_bytes(&s);
    out->load_scratch = scratch;
    out->hot_load = out->key_bytes + out->cs_bytes + out->load_scratch;
    out->hot_keep = cuzk_kind_zkey_hot_bytes(s.n_public) + out->cs_bytes;
    out->hot_rows = cuzk_kind_zkey_rows_bytes(s.domain_size, s.nnz[0] + s.nnz[1] + s.n_public + 1);
    out->synth_scratch = 0; /* the check reads w in place */
    return CUZK_OK;
}

/* The key of the cache file, or a new one (saved there when there is a cache). */
static int load_or_setup(const struct synth_kind *sk, const char *key_id, const struct cuzk_r1cs *r,
                         struct cuzk_pool *pool, struct cuzk_zkey *z, char *err, size_t errlen) {
    if (!sk->cache_dir) return cuzk_groth16_setup(pool, r, NULL, z, err, errlen);
    char path[4096], lock[4200];
    cache_path(sk, key_id, path, sizeof path);
    snprintf(lock, sizeof lock, "%s.lock", path);
    if (mkdir(sk->cache_dir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "synthetic: cannot create the key cache %s: %s", sk->cache_dir,
                 strerror(errno));
        return CUZK_EIO;
    }
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "synthetic: cannot open %s: %s", lock, strerror(errno));
        return CUZK_EIO;
    }
    while (flock(fd, LOCK_EX) && errno == EINTR) {
    }
    int rc;
    struct stat st;
    struct cuzk_zkey_opts opts = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_SKIP};
    if (!stat(path, &st)) {
        /* our own file: curve checks, no subgroup checks; its mtime marks the use (for
         * cache_make_room's order) */
        rc = cuzk_zkey_load(z, path, &opts, err, errlen);
        if (!rc) (void)utimensat(AT_FDCWD, path, NULL, 0);
        if (!rc && (z->n_vars != r->n_wires || z->n_public != cuzk_r1cs_n_public(r))) {
            snprintf(err, errlen, "synthetic: cached key %s does not match the circuit", path);
            cuzk_zkey_free(z);
            rc = CUZK_EFORMAT;
        }
    } else {
        rc = cuzk_groth16_setup(pool, r, NULL, z, err, errlen);
        if (!rc) {
            char tmp[4300];
            snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
            char werr[256];
            int wrc = cuzk_zkey_save(tmp, z, werr, sizeof werr);
            struct stat ts;
            if (!wrc && !stat(tmp, &ts)) {
                char base[600];
                snprintf(base, sizeof base, "synthetic-%s.zkey", key_id);
                cache_make_room(sk, base, (uint64_t)ts.st_size);
            }
            if (!wrc && rename(tmp, path)) wrc = CUZK_EIO, unlink(tmp);
            if (wrc) /* the key is still good for this process */
                cuzk_log_warn("synthetic", "cannot cache key %s: %s", path, werr);
            else
                cuzk_log_info("synthetic", "key for %s constraints saved to %s", key_id, path);
        }
    }
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

static int synth_key_load(const struct cuzk_kind *k, const char *key_id, struct cuzk_pool *pool,
                          const struct cuzk_kind_load_opts *opts, struct cuzk_kind_key *out,
                          char *err, size_t errlen) {
    (void)opts; /* the zkey is read whole; key_trim frees the points once the devices hold it */
    const struct synth_kind *sk = (const struct synth_kind *)k;
    uint32_t n, p;
    int rc = parse_circuit(sk, key_id, &n, &p, err, errlen);
    if (rc) return rc;
    struct synth_priv *pv = calloc(1, sizeof *pv);
    if (!pv) return CUZK_ENOMEM;
    cuzk_synth_shape(n, &pv->shape);
    struct cuzk_r1cs r;
    if ((rc = cuzk_synth_r1cs(&pv->shape, &r))) goto fail;
    memset(out, 0, sizeof *out);
    rc = load_or_setup(sk, key_id, &r, pool, &out->zkey, err, errlen);
    if (!rc && sk->check) {
        rc = cuzk_r1cs_to_cs(&r, &pv->cs);
        pv->has_cs = !rc;
    }
    cuzk_r1cs_free(&r);
    if (!rc) rc = cuzk_kind_key_prepare(out);
    if (rc) {
        if (pv->has_cs) cuzk_cs_free(&pv->cs);
        cuzk_zkey_free(&out->zkey);
        goto fail;
    }
    out->priv = pv;
    return CUZK_OK;
fail:
    free(pv);
    if (!err[0] || rc == CUZK_ENOMEM)
        snprintf(err, errlen, "synthetic: key %s: %s", key_id, cuzk_strerror(rc));
    return rc;
}

static void synth_key_trim(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    cuzk_kind_key_trim_zkey(key);
}

static void synth_key_free(const struct cuzk_kind *k, struct cuzk_kind_key *key) {
    (void)k;
    struct synth_priv *pv = key->priv;
    if (pv && pv->has_cs) cuzk_cs_free(&pv->cs);
    free(pv);
    key->priv = NULL;
    cuzk_kind_key_release(key);
}

static int synth_synthesize(const struct cuzk_kind *k, void *job, const struct cuzk_kind_key *key,
                            uint32_t part, struct cuzk_pool *pool, cuzk_fr *w, char *err,
                            size_t errlen) {
    (void)k;
    const struct synth_job *j = job;
    const struct synth_priv *pv = key->priv;
    if (part >= j->parts) return CUZK_EINVAL;
    cuzk_synth_witness(&j->shape, cuzk_synth_partition_seed(j->seed, part), w);
    if (pv->has_cs) {
        size_t bad = 0;
        int ok = cuzk_cs_is_satisfied(pool, &pv->cs, w, &bad);
        if (ok != 1) {
            snprintf(err, errlen, "synthetic: witness fails constraint %zu", bad);
            return ok < 0 ? ok : CUZK_EINVAL;
        }
    }
    return CUZK_OK;
}

static void synth_destroy(struct cuzk_kind *k) {
    struct synth_kind *sk = (struct synth_kind *)k;
    free(sk->cache_dir);
    free(sk);
}

int cuzk_kind_synthetic_create(struct cuzk_kind **out, const char *cache_dir,
                               unsigned default_partitions, int check) {
    struct synth_kind *sk = calloc(1, sizeof *sk);
    if (!sk) return CUZK_ENOMEM;
    if (cache_dir && !(sk->cache_dir = strdup(cache_dir))) {
        free(sk);
        return CUZK_ENOMEM;
    }
    sk->default_partitions = default_partitions ? default_partitions : 10;
    if (sk->default_partitions > CUZK_SYNTH_MAX_PARTITIONS)
        sk->default_partitions = CUZK_SYNTH_MAX_PARTITIONS;
    sk->check = check;
    sk->k = (struct cuzk_kind){
        .name = "synthetic",
        .default_priority = CUZK_PRIORITY_NORMAL,
        .ctx = sk,
        .job_open = synth_job_open,
        .job_free = synth_job_free,
        .key_of = synth_key_of,
        .key_sizes = synth_key_sizes,
        .key_load = synth_key_load,
        .key_free = synth_key_free,
        .key_trim = synth_key_trim,
        .key_cached = synth_key_cached,
        .key_corrupt = synth_key_corrupt,
        .synthesize = synth_synthesize,
        .verify = NULL,
        .destroy = synth_destroy,
    };
    *out = &sk->k;
    return CUZK_OK;
}

void cuzk_kind_synthetic_set_max_cache(struct cuzk_kind *k, uint64_t bytes) {
    ((struct synth_kind *)k)->max_cache = bytes;
}

void cuzk_kind_synthetic_set_max_setup(struct cuzk_kind *k, uint32_t max_constraints) {
    ((struct synth_kind *)k)->max_setup = max_constraints;
}
