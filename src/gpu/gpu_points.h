/* Loading encoded points into resident bases (struct cuzk_gpu_bases, src/gpu/gpu_msm.h) on a
 * CUDA GPU: proving keys stream from file chunks straight into device memory, where the GPU
 * decompresses them, so the host never holds a whole key (src/gpu/cuda/points.cu).
 *
 * Encodings (enum cuzk_gpu_point_enc), per point of the destination's group:
 *   CUZK_GPU_PT_LEM         the bytes of cuzk_g1_affine / cuzk_g2_affine (Montgomery x | y, the
 *                           identity as all zero bytes; src/ec/encode.h's "LEM"): 96 / 192
 *                           bytes, copied as they are (no check: the device layout is the same);
 *   CUZK_GPU_PT_COMPRESSED  the zcash compressed encoding (cuzk_g1_to_compressed /
 *                           cuzk_g2_to_compressed): 48 / 96 bytes.
 * Promise: a compressed point decodes to exactly the affine point cuzk_g*_from_compressed
 * returns, bit for bit, whenever the CPU decoder accepts it or rejects it only for the subgroup
 * check (which the GPU skips: keys come from our own checksummed files). A point breaking any
 * other rule (the 0x80 flag missing; the 0x40 identity flag with any other bit set; x >= p;
 * x^3 + b not a square) is "bad": the identity is stored in its place and the smallest bad
 * index is reported (below), so a caller can name the first corrupt point of a file.
 *
 * The loader (struct cuzk_gpu_points_loader) owns two pinned host buffers of chunk_bytes each
 * (from cuzk_gpu_pinned_alloc), two device staging buffers and two streams. The caller fills the
 * buffer _buffer hands out (e.g. read(2) from the key file) and submits it; the copy to the
 * device and the decoding run while the caller fills the other buffer; _buffer waits only until
 * the GPU no longer reads the buffer it returns. Points land in submission order: submits that
 * write the same destination range keep their order.
 *
 * Errors: CUZK_OK or a negative cuzk code: CUZK_ENODEV (no usable GPU), CUZK_EINVAL (bad argument:
 * range outside the bases, more points than a buffer holds, bases of another device, unknown group
 * or encoding), CUZK_EFORMAT (_finish, _write: some point was bad), CUZK_ENOMEM, CUZK_EGPUOOM
 * (device or pinned memory exhausted), CUZK_EGPU (any other CUDA failure;
 * cuzk_gpu_points_last_error() names the call). After a CUDA failure the loader keeps returning it:
 * free it.
 *
 * Thread-safety: a loader is used by one thread at a time. The bases being written must not be
 * read (by an MSM) or freed before the _finish that covers the writes returns. Functions make
 * the device current on the calling thread. */
#ifndef CUZK_GPU_GPU_POINTS_H
#define CUZK_GPU_GPU_POINTS_H

#include <stddef.h>

#include "gpu/gpu_msm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_gpu_point_enc { CUZK_GPU_PT_LEM = 0, CUZK_GPU_PT_COMPRESSED = 1 };

struct cuzk_gpu_points_loader;

/* *out = n points of group g on device `device`, uninitialised: every point must be written
 * (by a loader or cuzk_gpu_bases_write) before an MSM reads it. Free with cuzk_gpu_bases_free. */
int cuzk_gpu_bases_create(int device, enum cuzk_gpu_group g, size_t n, struct cuzk_gpu_bases **out);

/* Bytes of one encoded point: 96 / 192 (G1 / G2) LEM, 48 / 96 compressed; 0 for an unknown group
 * or encoding. */
size_t cuzk_gpu_point_enc_bytes(enum cuzk_gpu_group g, enum cuzk_gpu_point_enc enc);

/* A loader on `device` whose buffers hold chunk_bytes each (at least 48: one compressed G1
 * point; a buffer takes floor(chunk_bytes / cuzk_gpu_point_enc_bytes) points of a kind).
 * Allocates 2 chunk_bytes of pinned host memory and 2 of device memory. */
int cuzk_gpu_points_loader_create(int device, size_t chunk_bytes,
                                  struct cuzk_gpu_points_loader **out);
/* Waits for the loader's work and frees it (NULL is ignored). */
void cuzk_gpu_points_loader_free(struct cuzk_gpu_points_loader *l);
size_t cuzk_gpu_points_loader_chunk_bytes(const struct cuzk_gpu_points_loader *l);

/* *buf = the pinned host buffer (chunk_bytes long) to fill next, once the GPU no longer reads
 * it. Calling it again before a submit returns the same buffer. */
int cuzk_gpu_points_loader_buffer(struct cuzk_gpu_points_loader *l, void **buf);
/* Queues the copy of the first n points of the buffer (encoded as enc, of dst's group) and
 * their decoding into dst[offset, offset + n), and returns at once; the buffer then belongs to
 * the loader until a later _buffer call hands it out again (the next call hands out the other
 * one). n * cuzk_gpu_point_enc_bytes(...) must fit the buffer; n = 0 queues nothing. */
int cuzk_gpu_points_loader_submit(struct cuzk_gpu_points_loader *l, struct cuzk_gpu_bases *dst,
                                  size_t offset, size_t n, enum cuzk_gpu_point_enc enc);
/* Waits for everything submitted. *bad (may be NULL) = the smallest destination index of a bad
 * point among the points submitted since the last finish, SIZE_MAX if none. Returns CUZK_OK,
 * CUZK_EFORMAT when some point was bad, or a GPU error. */
int cuzk_gpu_points_loader_finish(struct cuzk_gpu_points_loader *l, size_t *bad);

/* Writes b[offset, offset + n) from n points encoded as enc in host memory (any memory),
 * synchronously; *bad (may be NULL) and the result as for _finish. Allocates and frees a loader
 * for compressed points (for tests and small arrays: a key loader keeps one). */
int cuzk_gpu_bases_write(struct cuzk_gpu_bases *b, size_t offset, const void *host, size_t n,
                         enum cuzk_gpu_point_enc enc, size_t *bad);

/* Reads b[offset, offset + n) back into host memory as LEM points (cuzk_g1_affine /
 * cuzk_g2_affine bytes), synchronously: for tests and checks, not for the proving path. */
int cuzk_gpu_bases_read(const struct cuzk_gpu_bases *b, size_t offset, void *host, size_t n);

/* ---- streamed bases ----------------------------------------------------------------------
 * Bases that a device's memory budget cannot hold stay in page-locked host memory (from
 * cuzk_gpu_pinned_alloc, LEM layout: the bytes of cuzk_g1_affine / cuzk_g2_affine) and reach the
 * device in slices through a streamer's two staging buffers. The caller alternates them: while
 * an MSM (synchronous) reads the slice in one buffer, the copy engine fills the other, so a
 * streamed MSM costs the link's time only where that exceeds the MSM's. A buffer's bases are a
 * view: never folded, never to be freed by the caller. A streamer is used by one thread at a
 * time (its owner holds the device lock); its copies run on a stream of its own. */
struct cuzk_gpu_streamer;

/* Device bytes of a streamer whose buffers hold stage_bytes each. */
size_t cuzk_gpu_streamer_vram_for(size_t stage_bytes);
/* *out = a streamer on `device` with two staging buffers of stage_bytes each (at least one G2
 * point: 192 bytes). CUZK_EINVAL, CUZK_ENODEV, CUZK_ENOMEM, CUZK_EGPUOOM, CUZK_EGPU. */
int cuzk_gpu_streamer_create(int device, size_t stage_bytes, struct cuzk_gpu_streamer **out);
/* Waits for its copies and frees it (NULL is ignored). */
void cuzk_gpu_streamer_free(struct cuzk_gpu_streamer *s);
/* The points of group g one buffer holds (0 for NULL or an unknown group). */
size_t cuzk_gpu_streamer_points(const struct cuzk_gpu_streamer *s, enum cuzk_gpu_group g);
/* Queues the copy of n points of group g from host (page-locked, LEM; it must stay unchanged
 * until the matching _take returns) into buffer buf (0 or 1), and returns at once. No MSM may be
 * reading that buffer: the caller's MSM over it has returned. n at most _points(s, g). */
int cuzk_gpu_streamer_put(struct cuzk_gpu_streamer *s, unsigned buf, enum cuzk_gpu_group g,
                          const void *host, size_t n);
/* Waits for buffer buf's last copy; *out = the bases of its n points (valid until the next put
 * into buf). CUZK_EINVAL when nothing was put into it since the last take. */
int cuzk_gpu_streamer_take(struct cuzk_gpu_streamer *s, unsigned buf,
                           const struct cuzk_gpu_bases **out);
/* Waits for the streamer's copies and forgets the puts not taken (after a failed MSM), so that
 * both buffers take a put again. */
void cuzk_gpu_streamer_reset(struct cuzk_gpu_streamer *s);
/* Totals since creation: bytes copied and the copies' device time in milliseconds (each copy
 * timed by events on the streamer's stream: bytes / ms is the link's rate as the copies saw it). */
void cuzk_gpu_streamer_copied(const struct cuzk_gpu_streamer *s, size_t *bytes, double *ms);

/* A description of the last failure this thread saw in this module ("" if none). */
const char *cuzk_gpu_points_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
