// Loading encoded points into resident bases (contract: src/gpu/gpu_points.h), the point
// decompression kernels, and their host twins (src/gpu/gpu_twin.h).
//
// DESIGN. A loader belongs to one thread (a key loader), which fills the pinned buffers while
// the GPU copies and decodes what it submitted before. Buffer i (of two) has a pinned host half,
// a device staging half and two events:
//   copied[i]    recorded after the copy out of the host half: _buffer waits on it before it
//                hands the host half out again, so the caller refills one half while the GPU
//                copies the other;
//   consumed[i]  recorded after the kernel that read the staging half: the next copy into
//                that half waits on it.
// Compressed chunks are copied on the copy stream and decoded on the compute stream (which
// waits for copied[i]), so the next chunk's transfer overlaps the current chunk's decoding.
// LEM chunks need no decoding: they are copied on the compute stream straight into the bases,
// which keeps every write into the bases on one stream, in submission order. The smallest bad
// index lives in one device word (atomicMin by the rare bad points), read and reset by _finish.
//
// Decompression is a thin kernel around a functor (decompress_body) whose operator() is
// __host__ __device__, one thread per point, as in msm.cu: the twins run the same functor in a
// host loop. Its cost is the square root: one exponentiation in Fp per G1 point (about 480
// multiplications, fp_pow in ff_fp.cuh), two per G2 point (sqrt_var for Fp2).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it
#endif

// The C headers have no C++ linkage guards; their GCC loop pragmas mean nothing to the CUDA
// front end (diagnostic 1675). They must come before gpu_msm.h, which includes them outside
// its own extern "C" block.
#pragma nv_diag_suppress 1675
extern "C" {
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "ff/scalar.h"
}
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ec.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h" // cuzk_gpu_pinned_alloc / _free
#include "gpu/gpu_msm.h"
#include "gpu/gpu_points.h"
#include "gpu/gpu_twin.h"

#define CUZK_CUDA_MODULE "points.cu"
#include "gpu/cuda/cuda_errors.cuh"

#include "gpu/cuda/bases.cuh"

using namespace cuzk_cuda;

static_assert(sizeof(cuzk_g1_affine) == sizeof(aff_mem<fp_t>), "G1 affine layout");
static_assert(sizeof(cuzk_g2_affine) == sizeof(aff_mem<fp2_t>), "G2 affine layout");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "encodings are read as little-endian 32-bit words");
static_assert(sizeof(size_t) == sizeof(unsigned long long), "the bad index is a 64-bit word");

// ---- tunables -----------------------------------------------------------------------------------

// The decompression kernel's block size and register bound (resident blocks per multiprocessor,
// __launch_bounds__); a build may set them (-D). On the H200 test machine 128, 256 and 512
// threads with bounds of 1 to 6 blocks (64 to 94 registers for G1) decoded within 4 % of one
// another (G1 about 46 M points/s at 2^22): the exponentiation's dependent multiplications, not
// occupancy, set the pace. 128 threads with no bound was as fast as any.
#ifndef POINTS_THREADS
#define POINTS_THREADS 128
#endif
#ifndef POINTS_MIN_BLOCKS
#define POINTS_MIN_BLOCKS 1
#endif
#define POINTS_MIN_CHUNK 48           // the smallest loader buffer: one compressed G1 point
#define POINTS_WRITE_CHUNK (1u << 25) // buffer bytes of the loader cuzk_gpu_bases_write makes

// ---- errors -------------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, TRY: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_points_last_error(void) { return g_last_error; }

namespace {

constexpr unsigned long long kNoBad = ULLONG_MAX; // the bad word when no point was bad

// ---- decompression ------------------------------------------------------------------------------

enum : uint32_t { FLAG_C = 0x80, FLAG_I = 0x40, FLAG_S = 0x20, FLAG_MASK = 0xe0 };

// 32-bit words of a compressed encoding: one big-endian Fp (G1) or two (G2: x.c1 | x.c0).
template <class F> struct enc_words;
template <> struct enc_words<fp_t> { static constexpr int v = 12; };
template <> struct enc_words<fp2_t> { static constexpr int v = 24; };

// w = the N words at p (16-byte aligned on the device: the staging buffers are, and encodings
// are multiples of 16 bytes long; any alignment on the host).
template <int N> CUZK_HD void load_words(const uint8_t *p, uint32_t (&w)[N]) {
    static_assert(N % 4 == 0, "whole 16-byte loads");
#ifdef __CUDA_ARCH__
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    CUZK_UNROLL
    for (int i = 0; i < N / 4; i++) {
        const uint4 v = __ldg(q + i);
        w[4 * i] = v.x;
        w[4 * i + 1] = v.y;
        w[4 * i + 2] = v.z;
        w[4 * i + 3] = v.w;
    }
#else
    std::memcpy(w, p, sizeof w);
#endif
}

// x from the words of its big-endian encoding, flag bits cleared; false when not canonical.
CUZK_HD bool x_from_words(const uint32_t (&w)[12], fp_t &x) { return fp_from_be_words(w, x); }
CUZK_HD bool x_from_words(const uint32_t (&w)[24], fp2_t &x) {
    return fp_from_be_words(w, x.c1) && fp_from_be_words(w + 12, x.c0);
}

// Records index i as bad: the device word keeps the smallest (the host twin is one thread).
CUZK_HD void note_bad(unsigned long long *bad, unsigned long long i) {
#ifdef __CUDA_ARCH__
    atomicMin(bad, i);
#else
    if (i < *bad) *bad = i;
#endif
}

// out[i] = the point of compressed encoding i of in (the rules of gpu_points.h, the steps of
// cuzk_g*_from_compressed), or the identity and a note of base + i when it is bad.
template <class F> struct decompress_body {
    const uint8_t *in;
    aff_mem<F> *out;
    unsigned long long *bad;
    size_t base;
    CUZK_HD void operator()(size_t i) const {
        constexpr int W = enc_words<F>::v;
        uint32_t w[W];
        load_words(in + i * (4 * W), w);
        const uint32_t flags = w[0] & 0xff; // the first byte: the low byte of a little-endian word
        w[0] &= ~FLAG_MASK;
        const F zero = field_traits<F>::zero();
        affine<F> p = {zero, zero};
        bool ok = (flags & FLAG_C) != 0;
        if (ok && (flags & FLAG_I)) {
            uint32_t rest = flags & FLAG_S; // the identity: every other bit zero
            CUZK_UNROLL
            for (int k = 0; k < W; k++) rest |= w[k];
            ok = rest == 0;
        } else if (ok) {
            F y = zero;
            ok = x_from_words(w, p.x) && sqrt_var(add(mul(sqr(p.x), p.x), curve_traits<F>::b()), y);
            if (ok) p.y = is_lexlarger(y) != ((flags & FLAG_S) != 0) ? neg(y) : y;
        }
        if (!ok) {
            p = affine<F>{zero, zero};
            note_bad(bad, base + i);
        }
        store(out + i, p);
    }
};

template <class B>
__global__ void __launch_bounds__(POINTS_THREADS, POINTS_MIN_BLOCKS)
    points_kernel(const B b, size_t n) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) b(i);
}

template <class B> int launch(const B &b, size_t n, cudaStream_t stream) {
    if (n == 0) return CUZK_OK;
    const size_t blocks = (n + POINTS_THREADS - 1) / POINTS_THREADS;
    points_kernel<B><<<static_cast<unsigned>(blocks), POINTS_THREADS, 0, stream>>>(b, n);
    CU_LAUNCHED(points_kernel);
    return CUZK_OK;
}

// ---- bases --------------------------------------------------------------------------------------

bool valid_group(int g) { return g == CUZK_GPU_G1 || g == CUZK_GPU_G2; }

size_t enc_bytes(int g, int enc) {
    if (!valid_group(g)) return 0;
    const size_t fps = g == CUZK_GPU_G2 ? 2 : 1; // base field elements per coordinate
    if (enc == CUZK_GPU_PT_LEM) return 2 * fps * sizeof(fp_mem);
    if (enc == CUZK_GPU_PT_COMPRESSED) return fps * sizeof(fp_mem);
    return 0;
}

// The checks every write into bases shares.
int check_range(const cuzk_gpu_bases *b, size_t offset, size_t n, int enc) {
    if (!b) return set_error(CUZK_EINVAL, "bases are NULL");
    if (!enc_bytes(b->group, enc)) return set_error(CUZK_EINVAL, "unknown encoding");
    if (offset > b->n || n > b->n - offset)
        return set_error(CUZK_EINVAL, "range outside the bases");
    return CUZK_OK;
}

} // namespace

extern "C" int cuzk_gpu_bases_create(int device, enum cuzk_gpu_group g, size_t n,
                                     struct cuzk_gpu_bases **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (!valid_group(g)) return set_error(CUZK_EINVAL, "unknown group");
    return bases_alloc(device, g, n, out);
}

extern "C" size_t cuzk_gpu_point_enc_bytes(enum cuzk_gpu_group g, enum cuzk_gpu_point_enc enc) {
    return enc_bytes(g, enc);
}

// ---- the loader ---------------------------------------------------------------------------------

struct cuzk_gpu_points_loader {
    int device;
    size_t chunk_bytes;
    void *host[2];  // pinned, chunk_bytes each
    void *stage[2]; // device, chunk_bytes each
    cudaStream_t copy, compute;
    cudaEvent_t ev[4]; // copied[0], copied[1], consumed[0], consumed[1] (see DESIGN)
    int nev;           // events created
    unsigned next;
    unsigned long long *bad; // device word
    int err;                 // the first CUDA failure; the loader is unusable after it
};

extern "C" void cuzk_gpu_points_loader_free(struct cuzk_gpu_points_loader *l) {
    if (!l) return;
    (void)cudaSetDevice(l->device);
    if (l->copy) (void)cudaStreamSynchronize(l->copy);
    if (l->compute) (void)cudaStreamSynchronize(l->compute);
    for (int i = 0; i < 2; i++) {
        cuzk_gpu_pinned_free(l->host[i], l->chunk_bytes);
        (void)cudaFree(l->stage[i]);
    }
    for (int i = 0; i < l->nev; i++) (void)cudaEventDestroy(l->ev[i]);
    (void)cudaFree(l->bad);
    if (l->copy) (void)cudaStreamDestroy(l->copy);
    if (l->compute) (void)cudaStreamDestroy(l->compute);
    (void)cudaGetLastError();
    std::free(l);
}

static int loader_init(cuzk_gpu_points_loader *l) {
    CU_TRY(cudaSetDevice(l->device));
    CU_TRY(cudaStreamCreateWithFlags(&l->copy, cudaStreamNonBlocking));
    CU_TRY(cudaStreamCreateWithFlags(&l->compute, cudaStreamNonBlocking));
    // the waiting thread sleeps instead of spinning: it is the one that reads the key's file
    const unsigned flags = cudaEventDisableTiming | cudaEventBlockingSync;
    for (; l->nev < 4; l->nev++) CU_TRY(cudaEventCreateWithFlags(&l->ev[l->nev], flags));
    for (int i = 0; i < 2; i++) {
        const int err = cuzk_gpu_pinned_alloc(l->chunk_bytes, &l->host[i]);
        if (err != CUZK_OK) return set_error(err, "pinned host buffer of the loader");
        CU_TRY(cudaMalloc(&l->stage[i], l->chunk_bytes));
    }
    CU_TRY(cudaMalloc(&l->bad, sizeof *l->bad));
    CU_TRY(cudaMemset(l->bad, 0xff, sizeof *l->bad)); // kNoBad
    return CUZK_OK;
}

extern "C" int cuzk_gpu_points_loader_create(int device, size_t chunk_bytes,
                                             struct cuzk_gpu_points_loader **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (chunk_bytes < POINTS_MIN_CHUNK) return set_error(CUZK_EINVAL, "chunk_bytes below 48");
    auto *l = static_cast<cuzk_gpu_points_loader *>(std::calloc(1, sizeof(cuzk_gpu_points_loader)));
    if (!l) return set_error(CUZK_ENOMEM, "loader: host memory");
    l->device = device;
    l->chunk_bytes = chunk_bytes;
    const int err = loader_init(l);
    if (err != CUZK_OK) {
        cuzk_gpu_points_loader_free(l);
        return err;
    }
    *out = l;
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_points_loader_chunk_bytes(const struct cuzk_gpu_points_loader *l) {
    return l ? l->chunk_bytes : 0;
}

static cudaEvent_t copied(const cuzk_gpu_points_loader *l, unsigned i) { return l->ev[i]; }
static cudaEvent_t consumed(const cuzk_gpu_points_loader *l, unsigned i) { return l->ev[2 + i]; }

// Keeps the first CUDA failure (the argument checks come before): later calls return it.
static int loader_fail(cuzk_gpu_points_loader *l, int err) {
    if (err != CUZK_OK && l->err == CUZK_OK) l->err = err;
    return err;
}

static int loader_buffer(cuzk_gpu_points_loader *l, void **buf) {
    CU_TRY(cudaSetDevice(l->device));
    CU_TRY(cudaEventSynchronize(copied(l, l->next))); // at once if never recorded
    *buf = l->host[l->next];
    return CUZK_OK;
}

extern "C" int cuzk_gpu_points_loader_buffer(struct cuzk_gpu_points_loader *l, void **buf) {
    if (!l || !buf) return set_error(CUZK_EINVAL, "NULL argument");
    *buf = nullptr;
    if (l->err != CUZK_OK) return l->err;
    return loader_fail(l, loader_buffer(l, buf));
}

template <class F>
static int loader_decompress(cuzk_gpu_points_loader *l, unsigned i, cuzk_gpu_bases *dst,
                             size_t offset, size_t n, size_t bytes) {
    CU_TRY(cudaStreamWaitEvent(l->copy, consumed(l, i), 0)); // the staging half is free
    CU_TRY(cudaMemcpyAsync(l->stage[i], l->host[i], bytes, cudaMemcpyHostToDevice, l->copy));
    CU_TRY(cudaEventRecord(copied(l, i), l->copy));
    CU_TRY(cudaStreamWaitEvent(l->compute, copied(l, i), 0));
    const decompress_body<F> b = {static_cast<const uint8_t *>(l->stage[i]),
                                  static_cast<aff_mem<F> *>(dst->pts) + offset, l->bad, offset};
    TRY(launch(b, n, l->compute));
    CU_TRY(cudaEventRecord(consumed(l, i), l->compute));
    return CUZK_OK;
}

static int loader_submit(cuzk_gpu_points_loader *l, cuzk_gpu_bases *dst, size_t offset, size_t n,
                         int enc) {
    const unsigned i = l->next;
    const size_t bytes = n * enc_bytes(dst->group, enc);
    CU_TRY(cudaSetDevice(l->device));
    if (enc == CUZK_GPU_PT_LEM) {
        char *to = static_cast<char *>(dst->pts) + offset * bases_point_bytes(dst->group);
        CU_TRY(cudaMemcpyAsync(to, l->host[i], bytes, cudaMemcpyHostToDevice, l->compute));
        CU_TRY(cudaEventRecord(copied(l, i), l->compute));
    } else if (dst->group == CUZK_GPU_G2) {
        TRY(loader_decompress<fp2_t>(l, i, dst, offset, n, bytes));
    } else {
        TRY(loader_decompress<fp_t>(l, i, dst, offset, n, bytes));
    }
    l->next = i ^ 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_points_loader_submit(struct cuzk_gpu_points_loader *l,
                                             struct cuzk_gpu_bases *dst, size_t offset, size_t n,
                                             enum cuzk_gpu_point_enc enc) {
    if (!l) return set_error(CUZK_EINVAL, "loader is NULL");
    if (l->err != CUZK_OK) return l->err;
    TRY(check_range(dst, offset, n, enc));
    if (dst->device != l->device) return set_error(CUZK_EINVAL, "bases of another device");
    if (n > l->chunk_bytes / enc_bytes(dst->group, enc))
        return set_error(CUZK_EINVAL, "more points than a buffer holds");
    if (n == 0) return CUZK_OK;
    return loader_fail(l, loader_submit(l, dst, offset, n, enc));
}

static int loader_finish(cuzk_gpu_points_loader *l, unsigned long long *bad) {
    CU_TRY(cudaSetDevice(l->device));
    CU_TRY(cudaStreamSynchronize(l->copy));
    CU_TRY(cudaMemcpyAsync(bad, l->bad, sizeof *bad, cudaMemcpyDeviceToHost, l->compute));
    CU_TRY(cudaMemsetAsync(l->bad, 0xff, sizeof *l->bad, l->compute)); // kNoBad again
    CU_TRY(cudaStreamSynchronize(l->compute));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_points_loader_finish(struct cuzk_gpu_points_loader *l, size_t *bad) {
    if (bad) *bad = SIZE_MAX;
    if (!l) return set_error(CUZK_EINVAL, "loader is NULL");
    if (l->err != CUZK_OK) return l->err;
    unsigned long long first = kNoBad;
    TRY(loader_fail(l, loader_finish(l, &first)));
    if (bad) *bad = static_cast<size_t>(first);
    return first == kNoBad ? CUZK_OK : set_error(CUZK_EFORMAT, "a point did not decode");
}

// ---- synchronous writes -------------------------------------------------------------------------

// Compressed points through a loader of their own: the chunks' copies into pinned memory
// overlap the GPU's decoding of the previous chunk.
static int write_compressed(cuzk_gpu_bases *b, size_t offset, const uint8_t *host, size_t n,
                            size_t *bad) {
    const size_t eb = enc_bytes(b->group, CUZK_GPU_PT_COMPRESSED);
    const size_t per = std::min<size_t>(n, POINTS_WRITE_CHUNK / eb);
    cuzk_gpu_points_loader *l = nullptr;
    TRY(cuzk_gpu_points_loader_create(b->device, per * eb, &l));
    int err = CUZK_OK;
    for (size_t at = 0; at < n && err == CUZK_OK; at += per) {
        const size_t k = std::min(per, n - at);
        void *buf = nullptr;
        err = cuzk_gpu_points_loader_buffer(l, &buf);
        if (err != CUZK_OK) break;
        std::memcpy(buf, host + at * eb, k * eb);
        err = cuzk_gpu_points_loader_submit(l, b, offset + at, k, CUZK_GPU_PT_COMPRESSED);
    }
    if (err == CUZK_OK) {
        err = cuzk_gpu_points_loader_finish(l, bad);
    } else if (bad) {
        *bad = SIZE_MAX;
    }
    cuzk_gpu_points_loader_free(l);
    return err;
}

extern "C" int cuzk_gpu_bases_write(struct cuzk_gpu_bases *b, size_t offset, const void *host,
                                    size_t n, enum cuzk_gpu_point_enc enc, size_t *bad) {
    if (bad) *bad = SIZE_MAX;
    TRY(check_range(b, offset, n, enc));
    if (n && !host) return set_error(CUZK_EINVAL, "host points are NULL");
    if (n == 0) return CUZK_OK;
    if (enc == CUZK_GPU_PT_COMPRESSED)
        return write_compressed(b, offset, static_cast<const uint8_t *>(host), n, bad);
    const size_t pb = bases_point_bytes(b->group);
    CU_TRY(cudaSetDevice(b->device));
    CU_TRY(cudaMemcpy(static_cast<char *>(b->pts) + offset * pb, host, n * pb,
                      cudaMemcpyHostToDevice));
    // a copy from pageable memory may return before its last DMA: wait for it (the legacy
    // stream the copy ran on; every cuzk stream is non-blocking, so nothing else is waited for)
    CU_TRY(cudaStreamSynchronize(0));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_bases_read(const struct cuzk_gpu_bases *b, size_t offset, void *host,
                                   size_t n) {
    TRY(check_range(b, offset, n, CUZK_GPU_PT_LEM));
    if (n && !host) return set_error(CUZK_EINVAL, "host buffer is NULL");
    if (n == 0) return CUZK_OK;
    const size_t pb = bases_point_bytes(b->group);
    CU_TRY(cudaSetDevice(b->device));
    CU_TRY(cudaMemcpy(host, static_cast<const char *>(b->pts) + offset * pb, n * pb,
                      cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

// ---- streamed bases -----------------------------------------------------------------------------

// Two staging buffers of stage_bytes (one allocation) seen through two bases views, one stream
// for the copies, and per buffer a pair of timing events around its last copy. A view's n and
// group are set by the put that fills it; pending[i] says a put awaits its take.
struct cuzk_gpu_streamer {
    int device;
    size_t stage_bytes;
    void *stage;
    cuzk_gpu_bases view[2];
    cudaStream_t copy;
    cudaEvent_t ev[4]; // start[0], start[1], end[0], end[1]
    int nev;
    int pending[2];
    size_t bytes[2]; // of the pending copies
    size_t total_bytes;
    double total_ms;
};

extern "C" size_t cuzk_gpu_streamer_vram_for(size_t stage_bytes) { return 2 * stage_bytes; }

extern "C" void cuzk_gpu_streamer_free(struct cuzk_gpu_streamer *s) {
    if (!s) return;
    (void)cudaSetDevice(s->device);
    if (s->copy) (void)cudaStreamSynchronize(s->copy);
    for (int i = 0; i < s->nev; i++) (void)cudaEventDestroy(s->ev[i]);
    if (s->copy) (void)cudaStreamDestroy(s->copy);
    (void)cudaFree(s->stage);
    (void)cudaGetLastError();
    std::free(s);
}

static int streamer_init(cuzk_gpu_streamer *s) {
    CU_TRY(cudaSetDevice(s->device));
    CU_TRY(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking));
    // timed (the link's rate), and the waiting thread sleeps: it holds the device lock only
    for (; s->nev < 4; s->nev++)
        CU_TRY(cudaEventCreateWithFlags(&s->ev[s->nev], cudaEventBlockingSync));
    CU_TRY(cudaMalloc(&s->stage, 2 * s->stage_bytes));
    for (int i = 0; i < 2; i++) {
        s->view[i].device = s->device;
        s->view[i].group = CUZK_GPU_G1;
        s->view[i].pts = static_cast<char *>(s->stage) + i * s->stage_bytes;
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_streamer_create(int device, size_t stage_bytes,
                                        struct cuzk_gpu_streamer **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    TRY(check_device(device));
    if (stage_bytes < bases_point_bytes(CUZK_GPU_G2))
        return set_error(CUZK_EINVAL, "a staging buffer must hold a G2 point");
    auto *s = static_cast<cuzk_gpu_streamer *>(std::calloc(1, sizeof(cuzk_gpu_streamer)));
    if (!s) return set_error(CUZK_ENOMEM, "streamer: host memory");
    s->device = device;
    s->stage_bytes = stage_bytes;
    const int err = streamer_init(s);
    if (err != CUZK_OK) {
        cuzk_gpu_streamer_free(s);
        return err;
    }
    *out = s;
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_streamer_points(const struct cuzk_gpu_streamer *s,
                                           enum cuzk_gpu_group g) {
    if (!s || !valid_group(g)) return 0;
    return s->stage_bytes / bases_point_bytes(g);
}

extern "C" int cuzk_gpu_streamer_put(struct cuzk_gpu_streamer *s, unsigned buf,
                                     enum cuzk_gpu_group g, const void *host, size_t n) {
    if (!s || buf > 1 || !valid_group(g) || (n && !host))
        return set_error(CUZK_EINVAL, "bad streamer arguments");
    if (n > cuzk_gpu_streamer_points(s, g))
        return set_error(CUZK_EINVAL, "more points than a staging buffer holds");
    if (s->pending[buf]) return set_error(CUZK_EINVAL, "the buffer's last copy was not taken");
    cuzk_gpu_bases &v = s->view[buf];
    v.group = g;
    v.n = n;
    v.bytes = n * bases_point_bytes(g);
    CU_TRY(cudaSetDevice(s->device));
    CU_TRY(cudaEventRecord(s->ev[buf], s->copy));
    if (n) CU_TRY(cudaMemcpyAsync(v.pts, host, v.bytes, cudaMemcpyHostToDevice, s->copy));
    CU_TRY(cudaEventRecord(s->ev[2 + buf], s->copy));
    s->pending[buf] = 1;
    s->bytes[buf] = v.bytes;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_streamer_take(struct cuzk_gpu_streamer *s, unsigned buf,
                                      const struct cuzk_gpu_bases **out) {
    if (!s || buf > 1 || !out) return set_error(CUZK_EINVAL, "bad streamer arguments");
    *out = nullptr;
    if (!s->pending[buf]) return set_error(CUZK_EINVAL, "nothing was put into the buffer");
    CU_TRY(cudaSetDevice(s->device));
    CU_TRY(cudaEventSynchronize(s->ev[2 + buf]));
    float ms = 0;
    CU_TRY(cudaEventElapsedTime(&ms, s->ev[buf], s->ev[2 + buf]));
    s->pending[buf] = 0;
    s->total_bytes += s->bytes[buf];
    s->total_ms += ms;
    *out = &s->view[buf];
    return CUZK_OK;
}

extern "C" void cuzk_gpu_streamer_reset(struct cuzk_gpu_streamer *s) {
    if (!s) return;
    (void)cudaSetDevice(s->device);
    (void)cudaStreamSynchronize(s->copy);
    (void)cudaGetLastError();
    s->pending[0] = s->pending[1] = 0;
}

extern "C" void cuzk_gpu_streamer_copied(const struct cuzk_gpu_streamer *s, size_t *bytes,
                                         double *ms) {
    if (bytes) *bytes = s ? s->total_bytes : 0;
    if (ms) *ms = s ? s->total_ms : 0;
}

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

template <class F, class A>
static int twin_decompress(const uint8_t *in, size_t n, A *out, size_t *bad) {
    if (bad) *bad = SIZE_MAX;
    if (n && (!in || !out)) return CUZK_EINVAL;
    unsigned long long first = kNoBad;
    const decompress_body<F> b = {in, reinterpret_cast<aff_mem<F> *>(out), &first, 0};
    for (size_t i = 0; i < n; i++) b(i);
    if (bad) *bad = static_cast<size_t>(first);
    return first == kNoBad ? CUZK_OK : CUZK_EFORMAT;
}

extern "C" int cuzk_gpu_twin_g1_decompress(const uint8_t *in, size_t n, cuzk_g1_affine *out,
                                           size_t *bad) {
    return twin_decompress<fp_t>(in, n, out, bad);
}

extern "C" int cuzk_gpu_twin_g2_decompress(const uint8_t *in, size_t n, cuzk_g2_affine *out,
                                           size_t *bad) {
    return twin_decompress<fp2_t>(in, n, out, bad);
}

extern "C" int cuzk_gpu_twin_fp_sqrt(int degree, const void *a, void *out, int *is_square,
                                     size_t n) {
    if ((degree != 1 && degree != 2) || (n && (!a || !out || !is_square))) return CUZK_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (degree == 2) {
            fp2_t r = fp2_zero();
            is_square[i] = sqrt_var(load(static_cast<const fp2_mem *>(a) + i), r);
            store(static_cast<fp2_mem *>(out) + i, r);
        } else {
            fp_t r = fp_zero();
            is_square[i] = sqrt_var(load(static_cast<const fp_mem *>(a) + i), r);
            store(static_cast<fp_mem *>(out) + i, r);
        }
    }
    return CUZK_OK;
}
