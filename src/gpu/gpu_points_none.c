/* Loading encoded points into bases (gpu_points.h) when cuzk is built without CUDA: no device
 * to load into. */
#include <stdint.h>

#include "cuzk/error.h"
#include "gpu/gpu_points.h"

int cuzk_gpu_bases_create(int device, enum cuzk_gpu_group g, size_t n,
                          struct cuzk_gpu_bases **out) {
    (void)device;
    (void)g;
    (void)n;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

size_t cuzk_gpu_point_enc_bytes(enum cuzk_gpu_group g, enum cuzk_gpu_point_enc enc) {
    (void)g;
    (void)enc;
    return 0;
}

int cuzk_gpu_points_loader_create(int device, size_t chunk_bytes,
                                  struct cuzk_gpu_points_loader **out) {
    (void)device;
    (void)chunk_bytes;
    if (out) *out = NULL;
    return CUZK_ENODEV;
}

void cuzk_gpu_points_loader_free(struct cuzk_gpu_points_loader *l) { (void)l; }

size_t cuzk_gpu_points_loader_chunk_bytes(const struct cuzk_gpu_points_loader *l) {
    (void)l;
    return 0;
}

int cuzk_gpu_points_loader_buffer(struct cuzk_gpu_points_loader *l, void **buf) {
    (void)l;
    if (buf) *buf = NULL;
    return CUZK_ENODEV;
}

int cuzk_gpu_points_loader_submit(struct cuzk_gpu_points_loader *l, struct cuzk_gpu_bases *dst,
                                  size_t offset, size_t n, enum cuzk_gpu_point_enc enc) {
    (void)l;
    (void)dst;
    (void)offset;
    (void)n;
    (void)enc;
    return CUZK_ENODEV;
}

int cuzk_gpu_points_loader_finish(struct cuzk_gpu_points_loader *l, size_t *bad) {
    (void)l;
    if (bad) *bad = SIZE_MAX;
    return CUZK_ENODEV;
}

int cuzk_gpu_bases_write(struct cuzk_gpu_bases *b, size_t offset, const void *host, size_t n,
                         enum cuzk_gpu_point_enc enc, size_t *bad) {
    (void)b;
    (void)offset;
    (void)host;
    (void)n;
    (void)enc;
    if (bad) *bad = SIZE_MAX;
    return CUZK_ENODEV;
}

int cuzk_gpu_bases_read(const struct cuzk_gpu_bases *b, size_t offset, void *host, size_t n) {
    (void)b;
    (void)offset;
    (void)host;
    (void)n;
    return CUZK_ENODEV;
}

const char *cuzk_gpu_points_last_error(void) { return "built without CUDA"; }
