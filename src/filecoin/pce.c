/* DESIGN: the file is streamed in both directions (the arrays of a real PoRep partition are
 * tens of GB): save writes each array with fwrite while hashing it, load reads each array
 * straight into its final allocation while hashing it, then checks the checksum and the CSR
 * invariants before handing the system out, so a corrupt file can never yield a system that
 * reads out of bounds. A freshly recorded system has its arrays trimmed to their exact sizes,
 * so that cuzk_pce_bytes is what it really holds. */
#define _GNU_SOURCE
#include "filecoin/pce.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "util/log.h"
#include "util/checksum.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE file stores in-memory arrays: little-endian hosts only"
#endif

/* ---- sizes ------------------------------------------------------------------------------ */

static uint64_t payload_bytes(const struct cuzk_builder_counts *c, uint64_t n_coefs) {
    return cuzk_cs_bytes_for(c->constraints, c->nnz[0], c->nnz[1], c->nnz[2], n_coefs);
}

uint64_t cuzk_pce_bytes(const struct cuzk_builder_counts *c) {
    return payload_bytes(c, CUZK_PCE_MAX_COEFS);
}

uint64_t cuzk_pce_file_bytes(const struct cuzk_builder_counts *c, uint32_t n_coefs) {
    return CUZK_PCE_HEADER_BYTES + payload_bytes(c, n_coefs);
}

/* ---- record ----------------------------------------------------------------------------- */

void cuzk_pce_free(struct cuzk_pce *pce) {
    cuzk_cs_free(&pce->cs);
    memset(pce, 0, sizeof *pce);
}

int cuzk_pce_record(const struct cuzk_fc_profile *p, struct cuzk_pce *out, char *err,
                    size_t errlen) {
    memset(out, 0, sizeof *out);
    struct cuzk_builder_counts c;
    int rc = cuzk_fc_count(p, &c);
    if (rc) return cuzk_errf(err, errlen, rc, "pce: counting %s: %s", p->name, cuzk_strerror(rc));
    struct cuzk_builder b;
    rc = cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 0);
    if (!rc) rc = cuzk_builder_reserve(&b, &c);
    if (!rc) rc = cuzk_fc_synthesize(&b, p, NULL);
    if (!rc) rc = cuzk_builder_finish(&b, &out->cs, NULL, NULL);
    if (!rc) out->counts = *cuzk_builder_get_counts(&b);
    cuzk_builder_free(&b);
    if (rc) {
        cuzk_cs_free(&out->cs);
        return cuzk_errf(err, errlen, rc, "pce: recording %s: %s", p->name, cuzk_strerror(rc));
    }
    if (out->cs.coefs.n > CUZK_PCE_MAX_COEFS) {
        uint32_t n = out->cs.coefs.n;
        cuzk_cs_free(&out->cs);
        return cuzk_errf(err, errlen, CUZK_ERANGE,
                         "pce: %s has %u distinct coefficients, more than the %u a PCE holds",
                         p->name, n, CUZK_PCE_MAX_COEFS);
    }
    return CUZK_OK;
}

/* ---- file ------------------------------------------------------------------------------- */

static void put32(uint8_t *b, uint32_t x) { memcpy(b, &x, 4); }
static void put64(uint8_t *b, uint64_t x) { memcpy(b, &x, 8); }
static uint32_t get32(const uint8_t *b) {
    uint32_t x;
    memcpy(&x, b, 4);
    return x;
}
static uint64_t get64(const uint8_t *b) {
    uint64_t x;
    memcpy(&x, b, 8);
    return x;
}

/* Header field offsets. */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_NCOEFS = 12,
    H_PROFILE = 16,
    H_FINGERPRINT = 80,
    H_COUNTS = 88, /* rows, inputs, aux, bool, nnz A, B, C */
    H_PAYLOAD_SUM = 144,
    H_HEADER_SUM = 152,
};

/* ---- fingerprint ------------------------------------------------------------------------ */

static uint64_t fingerprint;
static pthread_once_t fingerprint_once = PTHREAD_ONCE_INIT;

static void fingerprint_compute(void) {
    static const char *const smallest[] = {"porep-c1-l2-d1-r1", "snap-c1-a2-p1-d3-r1",
                                           "wpost-s1-k1-r1", "winning-s1-r1"};
    struct cuzk_checksum h;
    cuzk_checksum_init(&h);
    uint64_t v = CUZK_PCE_CIRCUIT_VERSION;
    cuzk_checksum_update(&h, &v, sizeof v);
    for (size_t i = 0; i < sizeof smallest / sizeof smallest[0]; i++) {
        struct cuzk_fc_profile p;
        struct cuzk_builder_counts c;
        memset(&c, 0, sizeof c);
        if (cuzk_fc_profile_parse(smallest[i], &p, NULL, 0) || cuzk_fc_count(&p, &c))
            memset(&c, 0xff, sizeof c); /* cannot happen; still a deterministic value */
        const uint64_t f[7] = {c.constraints, c.n_inputs, c.n_aux, c.n_bool,
                               c.nnz[0],      c.nnz[1],   c.nnz[2]};
        cuzk_checksum_update(&h, f, sizeof f);
    }
    fingerprint = cuzk_checksum_final(&h);
}

uint64_t cuzk_pce_fingerprint(void) {
    pthread_once(&fingerprint_once, fingerprint_compute);
    return fingerprint;
}

static void header_write(uint8_t h[CUZK_PCE_HEADER_BYTES], const char *profile,
                         const struct cuzk_builder_counts *c, uint32_t n_coefs,
                         uint64_t payload_sum) {
    memset(h, 0, CUZK_PCE_HEADER_BYTES);
    memcpy(h + H_MAGIC, CUZK_PCE_MAGIC, 8);
    put32(h + H_VERSION, CUZK_PCE_VERSION);
    put32(h + H_NCOEFS, n_coefs);
    memcpy(h + H_PROFILE, profile, strnlen(profile, 63));
    put64(h + H_FINGERPRINT, cuzk_pce_fingerprint());
    const uint64_t f[7] = {c->constraints, c->n_inputs, c->n_aux, c->n_bool,
                           c->nnz[0],      c->nnz[1],   c->nnz[2]};
    for (int i = 0; i < 7; i++) put64(h + H_COUNTS + 8 * i, f[i]);
    put64(h + H_PAYLOAD_SUM, payload_sum);
    put64(h + H_HEADER_SUM, cuzk_checksum64(h, H_HEADER_SUM));
}

static int header_read(const uint8_t h[CUZK_PCE_HEADER_BYTES], const char *path,
                       const char *profile, struct cuzk_builder_counts *c, uint32_t *n_coefs,
                       uint64_t *payload_sum, char *err, size_t errlen) {
    if (memcmp(h + H_MAGIC, CUZK_PCE_MAGIC, 8))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: bad magic", path);
    if (get64(h + H_HEADER_SUM) != cuzk_checksum64(h, H_HEADER_SUM))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: header checksum mismatch", path);
    if (get32(h + H_VERSION) != CUZK_PCE_VERSION)
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED, "pce: %s: version %u, this build reads %d",
                         path, get32(h + H_VERSION), CUZK_PCE_VERSION);
    if (get64(h + H_FINGERPRINT) != cuzk_pce_fingerprint())
        return cuzk_errf(err, errlen, CUZK_EUNSUPPORTED,
                         "pce: %s was recorded from other circuit code (stale)", path);
    char name[65];
    memcpy(name, h + H_PROFILE, 64);
    name[64] = 0;
    if (strcmp(name, profile))
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s holds profile \"%s\", not \"%s\"",
                         path, name, profile);
    uint64_t f[7];
    for (int i = 0; i < 7; i++) f[i] = get64(h + H_COUNTS + 8 * i);
    *c = (struct cuzk_builder_counts){.constraints = f[0],
                                      .n_inputs = f[1],
                                      .n_aux = f[2],
                                      .n_bool = f[3],
                                      .nnz = {f[4], f[5], f[6]}};
    /* bounds that keep every size computation below 2^64 and the columns 32-bit */
    if (f[0] >= (1ull << 40) || f[1] < 1 || f[1] > (1ull << 32) || f[2] > (1ull << 32) ||
        f[1] + f[2] > (1ull << 32) || f[3] > f[2] || f[4] >= (1ull << 40) || f[5] >= (1ull << 40) ||
        f[6] >= (1ull << 40) || get32(h + H_NCOEFS) < 2 || get32(h + H_NCOEFS) > CUZK_PCE_MAX_COEFS)
        return cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: implausible counts", path);
    *n_coefs = get32(h + H_NCOEFS);
    *payload_sum = get64(h + H_PAYLOAD_SUM);
    return CUZK_OK;
}

void cuzk_pce_path(const char *cache_dir, const char *profile, char *path, size_t cap) {
    snprintf(path, cap, "%s/pce-%s.bin", cache_dir, profile);
}

/* fwrite + hash */
static int put(FILE *f, struct cuzk_checksum *h, const void *p, size_t n) {
    if (!n) return 0;
    cuzk_checksum_update(h, p, n);
    return fwrite(p, 1, n, f) == n ? 0 : -1;
}

int cuzk_pce_save(const char *path, const char *profile, struct cuzk_pce *pce, char *err,
                  size_t errlen) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot create %s: %s", path, strerror(errno));
    uint8_t h[CUZK_PCE_HEADER_BYTES];
    memset(h, 0, sizeof h);
    int bad = fwrite(h, 1, sizeof h, f) != sizeof h; /* placeholder until the sum is known */
    struct cuzk_checksum st;
    cuzk_checksum_init(&st);
    const struct cuzk_cs *cs = &pce->cs;
    bad |= put(f, &st, cs->coefs.v, (size_t)cs->coefs.n * sizeof *cs->coefs.v);
    for (int m = 0; m < 3 && !bad; m++) {
        const struct cuzk_cs_csr *x = &cs->m[m];
        bad |= put(f, &st, x->row_ptr, (cs->n_rows + 1) * sizeof *x->row_ptr);
        bad |= put(f, &st, x->col, (size_t)x->nnz * sizeof *x->col);
        bad |= put(f, &st, x->coef, (size_t)x->nnz * sizeof *x->coef);
    }
    pce->checksum = cuzk_checksum_final(&st);
    header_write(h, profile, &pce->counts, cs->coefs.n, pce->checksum);
    bad |= fseek(f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, f) != sizeof h;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        unlink(path);
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot write %s", path);
    }
    return CUZK_OK;
}

int cuzk_pce_read_counts(const char *path, const char *profile, struct cuzk_builder_counts *out,
                         uint64_t *checksum, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot open %s: %s", path, strerror(errno));
    uint8_t h[CUZK_PCE_HEADER_BYTES];
    uint64_t sum;
    uint32_t n_coefs;
    int rc = fread(h, 1, sizeof h, f) == sizeof h
                 ? header_read(h, path, profile, out, &n_coefs, &sum, err, errlen)
                 : cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: truncated header", path);
    fclose(f);
    if (!rc && checksum) *checksum = sum;
    return rc;
}

/* fread + hash */
static int get(FILE *f, struct cuzk_checksum *h, void *p, size_t n) {
    if (!n) return 0;
    if (fread(p, 1, n, f) != n) return -1;
    cuzk_checksum_update(h, p, n);
    return 0;
}

int cuzk_pce_load(const char *path, const char *profile, struct cuzk_pce *out, char *err,
                  size_t errlen) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot open %s: %s", path, strerror(errno));
    uint8_t h[CUZK_PCE_HEADER_BYTES];
    uint64_t sum;
    uint32_t n_coefs = 0;
    struct cuzk_builder_counts c;
    int rc = fread(h, 1, sizeof h, f) == sizeof h
                 ? header_read(h, path, profile, &c, &n_coefs, &sum, err, errlen)
                 : cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: truncated header", path);
    struct stat st;
    if (!rc && (fstat(fileno(f), &st) || (uint64_t)st.st_size != cuzk_pce_file_bytes(&c, n_coefs)))
        rc = cuzk_errf(err, errlen, CUZK_EFORMAT,
                       "pce: %s: the file size does not match its header", path);
    struct cuzk_cs *cs = &out->cs;
    if (!rc) {
        cs->n_rows = (size_t)c.constraints;
        cs->n_cols = (size_t)(c.n_inputs + c.n_aux);
        cs->n_public = (size_t)(c.n_inputs - 1);
        cs->rows_cap = cs->n_rows + 1;
        struct cuzk_checksum hs;
        cuzk_checksum_init(&hs);
        cs->coefs.v = malloc((size_t)n_coefs * sizeof *cs->coefs.v);
        cs->coefs.n = cs->coefs.cap = n_coefs;
        if (!cs->coefs.v)
            rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "pce: out of memory loading %s", path);
        else if (get(f, &hs, cs->coefs.v, (size_t)n_coefs * sizeof *cs->coefs.v))
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: truncated", path);
        for (int m = 0; m < 3 && !rc; m++) {
            struct cuzk_cs_csr *x = &cs->m[m];
            size_t nnz = (size_t)c.nnz[m];
            x->row_ptr = malloc((cs->n_rows + 1) * sizeof *x->row_ptr);
            x->col = malloc((nnz ? nnz : 1) * sizeof *x->col);
            x->coef = malloc((nnz ? nnz : 1) * sizeof *x->coef);
            x->nnz = x->cap = nnz;
            if (!x->row_ptr || !x->col || !x->coef)
                rc = cuzk_errf(err, errlen, CUZK_ENOMEM, "pce: out of memory loading %s", path);
            else if (get(f, &hs, x->row_ptr, (cs->n_rows + 1) * sizeof *x->row_ptr) ||
                     get(f, &hs, x->col, nnz * sizeof *x->col) ||
                     get(f, &hs, x->coef, nnz * sizeof *x->coef))
                rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: truncated", path);
        }
        if (!rc && cuzk_checksum_final(&hs) != sum)
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: payload checksum mismatch", path);
        /* the invariants of cs.h, so that a system that passed the checksum by accident (or was
         * written by a buggy build) still cannot make a reader go out of bounds */
        if (!rc && cuzk_cs_validate(cs))
            rc = cuzk_errf(err, errlen, CUZK_EFORMAT, "pce: %s: inconsistent matrices", path);
    }
    fclose(f);
    if (rc) {
        cuzk_cs_free(cs);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->counts = c;
    out->checksum = sum;
    return CUZK_OK;
}

/* ---- cache ------------------------------------------------------------------------------ */

/* mkdir -p of one level (the cache directory itself). */
static int ensure_dir(const char *dir, char *err, size_t errlen) {
    if (mkdir(dir, 0755) && errno != EEXIST)
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot create %s: %s", dir, strerror(errno));
    return CUZK_OK;
}

int cuzk_pce_get(const char *cache_dir, const struct cuzk_fc_profile *p, struct cuzk_pce *out,
                 int *loaded, char *err, size_t errlen) {
    if (loaded) *loaded = 0;
    if (!cache_dir) return cuzk_pce_record(p, out, err, errlen);
    char path[4096], lock[4200], tmp[4300], lerr[256];
    int rc = ensure_dir(cache_dir, err, errlen);
    if (rc) return rc;
    cuzk_pce_path(cache_dir, p->name, path, sizeof path);
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return cuzk_errf(err, errlen, CUZK_EIO, "pce: cannot open %s: %s", lock, strerror(errno));
    while (flock(fd, LOCK_EX) && errno == EINTR) {
    }
    struct stat st;
    if (!stat(path, &st)) {
        rc = cuzk_pce_load(path, p->name, out, lerr, sizeof lerr);
        if (!rc) {
            if (loaded) *loaded = 1;
            goto done;
        }
        cuzk_log_warn("pce", "%s is unusable (%s): recording %s again", path, lerr, p->name);
    }
    if ((rc = cuzk_pce_record(p, out, err, errlen))) goto done;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (cuzk_pce_save(tmp, p->name, out, lerr, sizeof lerr) || rename(tmp, path)) {
        unlink(tmp);
        out->checksum = 0;
        cuzk_log_warn("pce", "cannot cache %s: %s", path, lerr);
    } else {
        cuzk_log_info(
            "pce", "%s recorded: %llu rows, %llu + %llu + %llu terms, saved to %s", p->name,
            (unsigned long long)out->counts.constraints, (unsigned long long)out->counts.nnz[0],
            (unsigned long long)out->counts.nnz[1], (unsigned long long)out->counts.nnz[2], path);
    }
done:
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

int cuzk_pce_counts(const char *cache_dir, const struct cuzk_fc_profile *p,
                    struct cuzk_builder_counts *out, char *err, size_t errlen) {
    if (cache_dir) {
        char path[4096], lerr[256];
        cuzk_pce_path(cache_dir, p->name, path, sizeof path);
        if (!cuzk_pce_read_counts(path, p->name, out, NULL, lerr, sizeof lerr)) return CUZK_OK;
    }
    int rc = cuzk_fc_count(p, out);
    if (rc) return cuzk_errf(err, errlen, rc, "pce: counting %s: %s", p->name, cuzk_strerror(rc));
    return CUZK_OK;
}

/* ---- r1cs ------------------------------------------------------------------------------- */

int cuzk_pce_to_r1cs(const struct cuzk_pce *pce, struct cuzk_r1cs *r) {
    const struct cuzk_cs *cs = &pce->cs;
    memset(r, 0, sizeof *r);
    if (cs->n_rows > UINT32_MAX || cs->n_cols > UINT32_MAX) return CUZK_ERANGE;
    uint64_t terms = cs->m[0].nnz + cs->m[1].nnz + cs->m[2].nnz;
    r->n_wires = (uint32_t)cs->n_cols;
    r->n_pub_in = (uint32_t)cs->n_public;
    r->n_constraints = (uint32_t)cs->n_rows;
    r->n_terms = terms;
    r->lc = malloc((3 * cs->n_rows + 1) * sizeof *r->lc);
    r->wire = malloc((terms ? terms : 1) * sizeof *r->wire);
    r->coef = malloc((terms ? terms : 1) * sizeof *r->coef);
    if (!r->lc || !r->wire || !r->coef) {
        cuzk_r1cs_free(r);
        return CUZK_ENOMEM;
    }
    uint64_t t = 0;
    for (size_t i = 0; i < cs->n_rows; i++)
        for (int m = 0; m < 3; m++) {
            const struct cuzk_cs_csr *x = &cs->m[m];
            r->lc[3 * i + m] = t;
            uint64_t a = x->row_ptr[i], n = x->row_ptr[i + 1] - a;
            memcpy(r->wire + t, x->col + a, n * sizeof *r->wire);
            for (uint64_t k = 0; k < n; k++) r->coef[t + k] = cs->coefs.v[x->coef[a + k]];
            t += n;
        }
    r->lc[3 * cs->n_rows] = t;
    return CUZK_OK;
}
