#include "formats/wtns.h"

#include <errno.h>
#include <string.h>

#include "cuzk/error.h"
#include "formats/binfile.h"
#include "ff/limbs.h"
#include "formats/fmt.h"

#define WTNS_HEADER_SIZE (4 + CUZK_FR_BYTES + 4)

/* The header checks; *n = nWitness, the values section's size checked against it. */
static int header(const struct cuzk_binfile *bf, uint32_t *n_out,
                  const struct cuzk_binfile_section **values, char *err, size_t errlen) {
    const struct cuzk_binfile_section *h, *v;
    int rc = cuzk_binfile_require(bf, 1, "header", &h, err, errlen);
    if (!rc) rc = cuzk_binfile_require(bf, 2, "values", &v, err, errlen);
    if (rc) return rc;
    const uint8_t *p = cuzk_binfile_ptr(bf, h);
    if (h->size < 4)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "wtns: section 1 (header) is %llu bytes, too short for n8",
                         (unsigned long long)h->size);
    uint32_t n8 = cuzk_fmt_le32(p);
    if (n8 != CUZK_FR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "wtns: field size n8 = %u, expected %d (BLS12-381 scalar field)", n8,
                         CUZK_FR_BYTES);
    if (h->size != WTNS_HEADER_SIZE)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "wtns: section 1 (header) is %llu bytes, expected %d",
                         (unsigned long long)h->size, WTNS_HEADER_SIZE);
    if (!cuzk_fmt_is_modulus(p + 4, cuzk_fr_modulus_, CUZK_FR_LIMBS))
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "wtns: the prime is not the BLS12-381 scalar field r (a witness "
                         "for another curve)");
    uint32_t n = cuzk_fmt_le32(p + 4 + CUZK_FR_BYTES);
    if (v->size != (uint64_t)n * CUZK_FR_BYTES)
        return cuzk_errf(err, errlen, CUZK_EFORMAT,
                         "wtns: section 2 (values) is %llu bytes, %u values need %llu",
                         (unsigned long long)v->size, n, (unsigned long long)n * CUZK_FR_BYTES);
    *n_out = n;
    *values = v;
    return CUZK_OK;
}

static int parse(struct cuzk_wtns *out, const struct cuzk_binfile *bf, char *err, size_t errlen) {
    uint32_t n;
    const struct cuzk_binfile_section *v;
    int rc = header(bf, &n, &v, err, errlen);
    if (rc) return rc;
    out->w = cuzk_fmt_alloc(n, sizeof *out->w);
    if (out->w == NULL)
        return cuzk_errf(err, errlen, CUZK_ENOMEM, "wtns: out of memory for %u values", n);
    out->n = n;
    const uint8_t *d = cuzk_binfile_ptr(bf, v);
    for (uint32_t i = 0; i < n; i++)
        if (cuzk_fr_from_bytes_le(&out->w[i], d + (size_t)i * CUZK_FR_BYTES) != CUZK_OK)
            return cuzk_errf(err, errlen, CUZK_ENONCANON, "wtns: value %u of %u is not below r", i,
                             n);
    return CUZK_OK;
}

static int finish(struct cuzk_wtns *out, struct cuzk_binfile *bf, int rc, char *err,
                  size_t errlen) {
    if (!rc) rc = parse(out, bf, err, errlen);
    cuzk_binfile_close(bf);
    if (rc) cuzk_wtns_free(out);
    return rc;
}

int cuzk_wtns_load(struct cuzk_wtns *out, const char *path, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_open(&bf, path, "wtns", CUZK_WTNS_VERSION, err, errlen);
    return finish(out, &bf, rc, err, errlen);
}

int cuzk_wtns_parse(struct cuzk_wtns *out, const void *data, size_t size, char *err,
                    size_t errlen) {
    memset(out, 0, sizeof *out);
    struct cuzk_binfile bf;
    int rc = cuzk_binfile_from_mem(&bf, data, size, "wtns", CUZK_WTNS_VERSION, err, errlen);
    return finish(out, &bf, rc, err, errlen);
}

int cuzk_wtns_peek(const void *data, size_t size, const char *path, uint32_t *n, char *err,
                   size_t errlen) {
    struct cuzk_binfile bf;
    int rc = path ? cuzk_binfile_open(&bf, path, "wtns", CUZK_WTNS_VERSION, err, errlen)
                  : cuzk_binfile_from_mem(&bf, data, size, "wtns", CUZK_WTNS_VERSION, err, errlen);
    if (rc) return rc;
    const struct cuzk_binfile_section *v;
    rc = header(&bf, n, &v, err, errlen);
    cuzk_binfile_close(&bf);
    return rc;
}

void cuzk_wtns_free(struct cuzk_wtns *wt) {
    cuzk_fmt_free(wt->w);
    memset(wt, 0, sizeof *wt);
}

int cuzk_wtns_write(FILE *f, const cuzk_fr *w, uint32_t n, char *err, size_t errlen) {
    struct cuzk_binfile_writer bw;
    uint8_t buf[CUZK_FR_BYTES];
    cuzk_binfile_writer_begin(&bw, f, "wtns", CUZK_WTNS_VERSION, 2);
    cuzk_binfile_writer_section(&bw, 1, WTNS_HEADER_SIZE);
    cuzk_binfile_writer_u32(&bw, CUZK_FR_BYTES);
    cuzk_limbs_to_bytes_le(buf, cuzk_fr_modulus_, CUZK_FR_LIMBS);
    cuzk_binfile_writer_put(&bw, buf, sizeof buf);
    cuzk_binfile_writer_u32(&bw, n);
    cuzk_binfile_writer_section(&bw, 2, (uint64_t)n * CUZK_FR_BYTES);
    for (uint32_t i = 0; i < n && bw.err == CUZK_OK; i++) {
        cuzk_fr_to_bytes_le(buf, &w[i]);
        cuzk_binfile_writer_put(&bw, buf, sizeof buf);
    }
    int rc = cuzk_binfile_writer_end(&bw);
    if (rc)
        return cuzk_errf(err, errlen, rc, "wtns: write failed: %s",
                         rc == CUZK_EIO ? strerror(errno) : cuzk_strerror(rc));
    return CUZK_OK;
}

int cuzk_wtns_save(const char *path, const cuzk_fr *w, uint32_t n, char *err, size_t errlen) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return cuzk_errf(err, errlen, CUZK_EIO, "wtns: cannot create %s: %s", path,
                         strerror(errno));
    int rc = cuzk_wtns_write(f, w, n, err, errlen);
    if (fclose(f) != 0 && rc == CUZK_OK)
        rc = cuzk_errf(err, errlen, CUZK_EIO, "wtns: cannot write %s: %s", path, strerror(errno));
    if (rc) remove(path); /* never leave a truncated witness behind */
    return rc;
}
