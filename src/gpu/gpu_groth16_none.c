/* The device side of the Groth16 prover (gpu_groth16.h) without CUDA: no device to run on. */
#include "cuzk/error.h"
#include "gpu/gpu_groth16.h"

int cuzk_gpu_pinned_alloc(size_t bytes, void **out) {
    (void)bytes;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_pinned_free(void *p, size_t bytes) {
    (void)p;
    (void)bytes;
}

size_t cuzk_gpu_pinned_bytes(void) { return 0; }

size_t cuzk_gpu_g16_vram_for(size_t max_n, size_t max_w, int borrow_c) {
    (void)max_n;
    (void)max_w;
    (void)borrow_c;
    return 0;
}

size_t cuzk_gpu_g16_vram_for2(size_t max_n, size_t max_w, int borrow_c, unsigned flags) {
    (void)max_n;
    (void)max_w;
    (void)borrow_c;
    (void)flags;
    return 0;
}

int cuzk_gpu_g16_create(int device, size_t max_n, size_t max_w, void *dev_c,
                        struct cuzk_gpu_g16 **out) {
    (void)device;
    (void)max_n;
    (void)max_w;
    (void)dev_c;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_create2(int device, size_t max_n, size_t max_w, void *dev_c, unsigned flags,
                         struct cuzk_gpu_g16 **out) {
    (void)flags;
    return cuzk_gpu_g16_create(device, max_n, max_w, dev_c, out);
}

void cuzk_gpu_g16_free(struct cuzk_gpu_g16 *g) { (void)g; }

size_t cuzk_gpu_g16_vram(const struct cuzk_gpu_g16 *g) {
    (void)g;
    return 0;
}

void *cuzk_gpu_g16_vec(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    (void)g;
    (void)v;
    return NULL;
}

int cuzk_gpu_g16_begin(struct cuzk_gpu_g16 *g) {
    (void)g;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_upload(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, const void *host,
                        size_t count, size_t len) {
    (void)g;
    (void)v;
    (void)host;
    (void)count;
    (void)len;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_wait(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    (void)g;
    (void)v;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_upload_ms(struct cuzk_gpu_g16 *g, float *ms) {
    (void)g;
    if (ms) *ms = 0;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_upload_ms_of(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, float *ms) {
    (void)g;
    (void)v;
    if (ms) *ms = 0;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_download(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, void *host,
                          size_t count) {
    (void)g;
    (void)v;
    (void)host;
    (void)count;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_mul(struct cuzk_gpu_g16 *g, size_t n) {
    (void)g;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_h(struct cuzk_gpu_g16 *g, size_t n) {
    (void)g;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_to_mont(struct cuzk_gpu_g16 *g, size_t n) {
    (void)g;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_eval(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a, const cuzk_fr *b,
                      const cuzk_fr *c, cuzk_fr *out, size_t n) {
    (void)device;
    (void)op;
    (void)a;
    (void)b;
    (void)c;
    (void)out;
    (void)n;
    return CUZK_ENODEV;
}

size_t cuzk_gpu_cs_vram_for(const struct cuzk_cs *cs) {
    (void)cs;
    return 0;
}

int cuzk_gpu_cs_upload(int device, const struct cuzk_cs *cs, struct cuzk_gpu_cs **out) {
    (void)device;
    (void)cs;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_cs_free(struct cuzk_gpu_cs *g) { (void)g; }

size_t cuzk_gpu_cs_vram(const struct cuzk_gpu_cs *g) {
    (void)g;
    return 0;
}

size_t cuzk_gpu_cs_rows(const struct cuzk_gpu_cs *g) {
    (void)g;
    return 0;
}

size_t cuzk_gpu_cs_cols(const struct cuzk_gpu_cs *g) {
    (void)g;
    return 0;
}

int cuzk_gpu_g16_spmv(struct cuzk_gpu_g16 *g, const struct cuzk_gpu_cs *cs,
                      enum cuzk_gpu_g16_vec wv, size_t n_w, uint32_t n_pub_rows, size_t n) {
    (void)g;
    (void)cs;
    (void)wv;
    (void)n_w;
    (void)n_pub_rows;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_idx_upload(int device, const uint32_t *idx, size_t count, struct cuzk_gpu_idx **out) {
    (void)device;
    (void)idx;
    (void)count;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_idx_free(struct cuzk_gpu_idx *x) { (void)x; }

size_t cuzk_gpu_idx_count(const struct cuzk_gpu_idx *x) {
    (void)x;
    return 0;
}

size_t cuzk_gpu_idx_vram(const struct cuzk_gpu_idx *x) {
    (void)x;
    return 0;
}

int cuzk_gpu_g16_gather(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec dst,
                        enum cuzk_gpu_g16_vec src, const struct cuzk_gpu_idx *idx) {
    (void)g;
    (void)dst;
    (void)src;
    (void)idx;
    return CUZK_ENODEV;
}

int cuzk_gpu_g16_spmv_eval(int device, const struct cuzk_cs *cs, const cuzk_fr *w,
                           uint32_t n_pub_rows, cuzk_fr *a, cuzk_fr *b, size_t n) {
    (void)device;
    (void)cs;
    (void)w;
    (void)n_pub_rows;
    (void)a;
    (void)b;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_spmv(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub_rows, cuzk_fr *a,
                       cuzk_fr *b, size_t n) {
    (void)cs;
    (void)w;
    (void)n_pub_rows;
    (void)a;
    (void)b;
    (void)n;
    return CUZK_ENODEV;
}

int cuzk_gpu_twin_gather(const cuzk_fr *src, const uint32_t *idx, size_t count, cuzk_fr *dst) {
    (void)src;
    (void)idx;
    (void)count;
    (void)dst;
    return CUZK_ENODEV;
}

const char *cuzk_gpu_g16_last_error(void) { return "built without CUDA"; }
