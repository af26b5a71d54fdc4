// The device side of the Groth16 prover (contract: src/gpu/gpu_groth16.h).
//
// DESIGN: the work area keeps two streams. The copy stream carries the host-to-device uploads
// (and the zeroing of a vector's tail after its data), in the order they are queued, and
// records two events per vector around its upload. The compute stream runs the kernels;
// before a kernel it waits (on the device, cudaStreamWaitEvent) for the ready events of the
// vectors the kernel touches, so a kernel can be queued while uploads of other vectors are
// still in flight, and the host waits only for the kernel itself. The NTT and the MSM modules
// run on streams of their own that this file cannot see; every kernel call therefore returns
// only when its result is in device memory, which orders it before whatever the caller queues
// next on those streams. Threads: the area's mutex serialises the enqueueing of uploads (so
// that an upload's two events bracket its own copy) and guards the round bookkeeping; kernel
// calls never take it, so a thread uploading the next witness never delays another thread's
// kernels on the same area.
//
// SpMV (cuzk_gpu_g16_spmv). A system's rows are 1 to 3 terms long for the most part but a few
// are long (Filecoin's PoRep: 59 % of A's rows have one term, 32 % two, 8 % three, and 0.12 %
// more than 64, up to 929), so one thread per row would leave a warp waiting for its longest
// row. The work is instead cut by the merge path of the CSR: the items of a matrix are its
// n_rows row ends and its nnz terms, in the order a sequential walk meets them (the terms of
// row r, then the end of row r). At upload, the rows are split into warp pieces of about
// SPMV_WARP_ITEMS items at row boundaries (spmv_split_body: a binary search on the merge
// diagonal, row_ptr[r] + r; a row longer than a piece makes the pieces inside it empty and one
// piece hold it whole). In the kernel (spmv_body), each warp takes one piece and splits its
// items evenly among its 32 lanes, at any item, mid-row included (a lane's start is again a
// binary search, over the piece's rows); each lane walks its items in a flat loop: a term adds
// coef * w[col] to the lane's accumulator (1: an addition, -1: a subtraction, otherwise a
// multiplication and an addition, as cuzk_cs_eval), a row end stores the accumulator to the
// row's output and clears it. A lane that starts inside a row keeps the first row it ends
// (its head) instead of storing it, and a lane that stops inside a row leaves its partial sum
// (its carry) in shared memory; after the walk each lane with a head adds to it the carries
// of the lanes just before it that stopped in the same row, and stores it. Every lane of a
// warp thus does the same number of steps whatever the row lengths, and since pieces hold
// whole rows no partial sum ever leaves its warp: no scratch memory and no second kernel. A
// row of L terms costs its warp about L / 32 steps (a row of 10^6 terms about 31,000); long
// rows split across warps would need carries between warps, which the circuits we know do not
// need (the longest row of PoRep has 929 terms).
// The terms are stored as (column, coefficient index) pairs, one 8-byte load each; the
// witness and the coefficient table are read through the read-only cache. A and B run in one
// launch (the warps of A, then those of B), then one short kernel writes the public-input rows
// and the zero tail. Measured on the H200 (bench/bench_gpu_spmv): Filecoin's real PoRep
// partition (130 M rows, 309 M + 130 M terms) in 16.2 ms; 2^27 synthetic rows with uniformly
// random columns in 20.7 ms, where a gather of 2^27 random witness elements alone takes 4.7 ms,
// so the 421 M random witness reads are about 15 ms of it (the memory system's random 32-byte
// reads are the limit, not the arithmetic: 10 % instead of 62 % general coefficients saves
// 3 %); one thread per row took 62.9 ms. Prefetching the next term and witness value one step
// ahead (more registers, fewer warps) and L1-bypassing witness loads were tried and were slower
// or no faster.
//
// Every kernel of the SpMV and the gather is a thin wrapper around a functor whose member
// functions are __host__ __device__ and compute one thread's (or one warp's lane's) work; the
// host twins (cuzk_gpu_twin_spmv, _gather) run the same functors on a host image of the
// device data (the same staging code makes both) in loops: lanes, then warps. Only the field
// operations differ on the host (src/ff's; ff_fr.cuh is PTX and device-only).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#if defined(__x86_64__)
#include <x86intrin.h> // before the C block below: the field headers include it
#endif

// The field headers are C without C++ linkage guards; their GCC loop pragmas mean nothing to
// the CUDA front end (diagnostic 1675).
#pragma nv_diag_suppress 1675
extern "C" {
#include "ff/fr.h"
#include "r1cs/cs.h"
}
#pragma nv_diag_default 1675

#include "cuzk/error.h"
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_groth16.h"

#define CUZK_CUDA_MODULE "groth16.cu"
#include "gpu/cuda/cuda_errors.cuh"

using cuzk_cuda::fr_mem;
using cuzk_cuda::fr_t;

static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");

static_assert(sizeof(cuzk_fr) == sizeof(cuzk_cuda::fr_t), "host and device Fr registers");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the 32-bit device limbs equal the 64-bit host limbs on little-endian hosts");

#define G16_THREADS 256           // threads per block of the pointwise kernels
#define G16_MAX_BLOCKS (1u << 20) // grid-stride beyond this many blocks
#define G16_NVEC 6                // A, B, C, W, W1, S

// SpMV tunables (see DESIGN; a build may set the first two with -D). Items (terms and row ends)
// per lane of a warp piece: on the H200 at 2^27 synthetic rows, 8 ran in 20.7 ms, 16 in 24.2
// and 32 in 29.3 (a warp's term loads touch fewer cache lines when its lanes are closer), 4 was
// 5 % slower than 8 (more setup per item). The register bound: 8 blocks of 128 threads per
// multiprocessor (64 registers, a few bytes spilled) ran 10 % faster than the unbounded 78
// registers (6 blocks): the kernel waits on memory, and more resident warps keep more of its
// random witness reads in flight.
#ifndef SPMV_LANE_ITEMS
#define SPMV_LANE_ITEMS 8
#endif
#ifndef SPMV_MIN_BLOCKS
#define SPMV_MIN_BLOCKS 8
#endif
#define SPMV_WARP_ITEMS (32u * SPMV_LANE_ITEMS) // items per warp piece
#define SPMV_WARPS 4                            // warps per block of the SpMV kernel
#define SPMV_MAX_ROWS 0xfffffffeu               // row indices are 32-bit; one value means none
#define SPMV_NONE 0xffffffffu
#define STAGE_BYTES (16u << 20) // each of the two upload staging buffers

#ifndef CUZK_HD
#define CUZK_HD __host__ __device__ __forceinline__
#endif

// ---- errors ---------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, CU_LAUNCHED: gpu/cuda/cuda_errors.cuh

extern "C" const char *cuzk_gpu_g16_last_error(void) { return g_last_error; }

static unsigned grid_for(size_t n) {
    size_t b = (n + G16_THREADS - 1) / G16_THREADS;
    return static_cast<unsigned>(b < G16_MAX_BLOCKS ? (b ? b : 1) : G16_MAX_BLOCKS);
}

// ---- pinned host memory ---------------------------------------------------------------------

static std::atomic<size_t> g_pinned_bytes{0};

extern "C" int cuzk_gpu_pinned_alloc(size_t bytes, void **out) {
    if (!out || bytes == 0) return set_error(CUZK_EINVAL, "bad pinned allocation arguments");
    *out = nullptr;
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) return set_error(CUZK_ENODEV, "no CUDA device");
    void *p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    // the driver reports a refusal to lock host pages as cudaErrorMemoryAllocation: EGPUOOM
    if (e != cudaSuccess) return cuda_fail(e, "cudaHostAlloc", __LINE__);
    g_pinned_bytes += bytes;
    *out = p;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_pinned_free(void *p, size_t bytes) {
    if (!p) return;
    (void)cudaFreeHost(p);
    (void)cudaGetLastError();
    g_pinned_bytes -= bytes;
}

extern "C" size_t cuzk_gpu_pinned_bytes(void) { return g_pinned_bytes.load(); }

// ---- kernels --------------------------------------------------------------------------------

// c_i = a_i b_i; c may be a (each element is read before it is written, by one thread)
__global__ void g16_mul_kernel(fr_mem *c, const fr_mem *a, const fr_mem *b, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        cuzk_cuda::fr_store(
            c + i, cuzk_cuda::fr_mul(cuzk_cuda::fr_load(a + i), cuzk_cuda::fr_load(b + i)));
}

// h_i = a_i b_i - c_i; h may be a (each element is read before it is written, by one thread).
__global__ void g16_h_kernel(fr_mem *h, const fr_mem *a, const fr_mem *b, const fr_mem *c,
                             size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        fr_t ab = cuzk_cuda::fr_mul(cuzk_cuda::fr_load(a + i), cuzk_cuda::fr_load(b + i));
        cuzk_cuda::fr_store(h + i, cuzk_cuda::fr_sub(ab, cuzk_cuda::fr_load(c + i)));
    }
}

// h_i = (a_i - c_i) k: bellperson's h from the inverse coset transform of a' o b' (in a) and
// c's coefficients (in c), k = 1/t on the coset (see cuzk_gpu_g16_sub_k); h may be a, as above.
__global__ void g16_sub_k_kernel(fr_mem *h, const fr_mem *a, const fr_mem *c, fr_t k, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        cuzk_cuda::fr_store(
            h + i, cuzk_cuda::fr_mul(
                       cuzk_cuda::fr_sub(cuzk_cuda::fr_load(a + i), cuzk_cuda::fr_load(c + i)), k));
}

// w_i = w_i R^2 / R = w_i R: the Montgomery form of the canonical integer w_i < r.
__global__ void g16_to_mont_kernel(fr_mem *w, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        cuzk_cuda::fr_store(w + i,
                            cuzk_cuda::fr_mul(cuzk_cuda::fr_load(w + i), cuzk_cuda::fr_r2()));
}

// ---- field access on both sides ------------------------------------------------------------

// The SpMV's and the gather's functors run on the device and, as host twins, on the host. These
// wrappers give them one set of Fr operations: ff_fr.cuh's on the device, src/ff's on the host
// (the same values: both are fully reduced Montgomery form, with the same bytes).
namespace {

CUZK_HD fr_t hd_zero() {
    fr_t r;
    for (int i = 0; i < 8; i++) r.l[i] = 0;
    return r;
}

// Read-only load: for data no thread writes during the kernel.
CUZK_HD fr_t hd_load_ro(const fr_mem *p) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_load_ro(p);
#else
    fr_t r;
    std::memcpy(&r, p, sizeof r);
    return r;
#endif
}

// Coherent load (shared memory, data written earlier in the kernel).
CUZK_HD fr_t hd_load(const fr_mem *p) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_load(p);
#else
    fr_t r;
    std::memcpy(&r, p, sizeof r);
    return r;
#endif
}

CUZK_HD void hd_store(fr_mem *p, const fr_t &a) {
#ifdef __CUDA_ARCH__
    cuzk_cuda::fr_store(p, a);
#else
    std::memcpy(p, &a, sizeof a);
#endif
}

#ifndef __CUDA_ARCH__
inline cuzk_fr to_host(const fr_t &a) {
    cuzk_fr r;
    std::memcpy(&r, &a, sizeof r);
    return r;
}
inline fr_t from_host(const cuzk_fr &a) {
    fr_t r;
    std::memcpy(&r, &a, sizeof r);
    return r;
}
#endif

CUZK_HD fr_t hd_add(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_add(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_add(&x, &x, &y);
    return from_host(x);
#endif
}

CUZK_HD fr_t hd_sub(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_sub(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_sub(&x, &x, &y);
    return from_host(x);
#endif
}

CUZK_HD fr_t hd_mul(const fr_t &a, const fr_t &b) {
#ifdef __CUDA_ARCH__
    return cuzk_cuda::fr_mul(a, b);
#else
    cuzk_fr x = to_host(a), y = to_host(b);
    cuzk_fr_mul(&x, &x, &y);
    return from_host(x);
#endif
}

template <class T> CUZK_HD T hd_ldg(const T *p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

CUZK_HD uint64_t ld_u64(const uint64_t *p) {
    return hd_ldg(reinterpret_cast<const unsigned long long *>(p));
}

// ---- the SpMV and the gather: per-thread work ------------------------------------------------

// One term as the device stores it: one 8-byte load.
struct __align__(8) cs_term {
    uint32_t col, coef;
};

CUZK_HD cs_term ld_term(const cs_term *p) {
#ifdef __CUDA_ARCH__
    const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
    return cs_term{v.x, v.y};
#else
    return *p;
#endif
}

// One matrix as the SpMV reads it (device memory, or the twin's host image).
struct spmv_mat {
    const uint64_t *row_ptr;  // n_rows + 1 offsets, as on the host
    const cs_term *terms;     // nnz terms
    const uint32_t *warp_row; // n_warps + 1: piece j is rows [warp_row[j], warp_row[j + 1])
    size_t n_warps;
};

// Pieces for n_rows rows and nnz terms: n_rows + nnz items, SPMV_WARP_ITEMS each (the last
// fewer); a matrix without rows has none.
inline size_t spmv_warps_for(uint64_t n_rows, uint64_t nnz) {
    return static_cast<size_t>((n_rows + nnz + SPMV_WARP_ITEMS - 1) / SPMV_WARP_ITEMS);
}

// warp_row[j] = the row where the merge path crosses diagonal min(j SPMV_WARP_ITEMS, items):
// the largest r <= n_rows with row_ptr[r] + r <= d (row_ptr[r] + r grows strictly with r), so
// that piece j holds the rows whose first item lies in its diagonal range.
struct spmv_split_body {
    const uint64_t *row_ptr;
    uint32_t *warp_row;
    uint64_t n_rows, items;
    CUZK_HD void operator()(size_t j) const {
        uint64_t d = static_cast<uint64_t>(j) * SPMV_WARP_ITEMS;
        if (d > items) d = items;
        uint64_t lo = 0, hi = n_rows;
        while (lo < hi) {
            const uint64_t mid = hi - (hi - lo) / 2;
            if (ld_u64(row_ptr + mid) + mid <= d)
                lo = mid;
            else
                hi = mid - 1;
        }
        warp_row[j] = static_cast<uint32_t>(lo);
    }
};

// What a lane leaves for the lanes after it: the row it stopped inside (SPMV_NONE if it stopped
// at a row boundary) and its partial sum of that row. One per lane of a warp (shared memory).
struct spmv_carries {
    fr_mem v[32];
    uint32_t row[32];
};

// The first row a lane ends when the lane started inside it (row SPMV_NONE: none), kept in
// registers between the walk and the resolution.
struct spmv_head {
    fr_t v;
    uint32_t row;
};

// a = A w and b = B w over the rows: warp j < m[0].n_warps takes piece j of A, the others the
// pieces of B. walk() then resolve() for each lane of a warp (see DESIGN).
struct spmv_body {
    spmv_mat ma, mb;
    fr_mem *out_a, *out_b;
    const fr_mem *w;     // the witness, n_cols elements
    const fr_mem *coefs; // the coefficient table

    // acc + coef * x for a term of coefficient index coef and witness value x, as
    // cuzk_cs_eval's row_dot.
    CUZK_HD fr_t apply(const fr_t &acc, uint32_t coef, const fr_t &x) const {
        if (coef == CUZK_CS_COEF_ONE) return hd_add(acc, x);
        if (coef == CUZK_CS_COEF_MINUS_ONE) return hd_sub(acc, x);
        return hd_add(acc, hd_mul(hd_load_ro(coefs + coef), x));
    }
    CUZK_HD fr_t term(const cs_term *terms, uint64_t k, const fr_t &acc) const {
        const cs_term t = ld_term(terms + k);
        return apply(acc, t.coef, hd_load_ro(w + t.col));
    }

    CUZK_HD void walk(size_t warp, unsigned lane, spmv_carries &c, spmv_head &h) const {
        const bool is_b = warp >= ma.n_warps;
        const spmv_mat m = is_b ? mb : ma; // by value: no dynamic indexing of kernel arguments
        fr_mem *out = is_b ? out_b : out_a;
        const size_t j = is_b ? warp - ma.n_warps : warp;
        const uint64_t r0 = hd_ldg(m.warp_row + j), r1 = hd_ldg(m.warp_row + j + 1);
        const uint64_t base = ld_u64(m.row_ptr + r0);
        const uint64_t items = (r1 - r0) + (ld_u64(m.row_ptr + r1) - base);
        const uint64_t q = (items + 31) / 32; // items per lane
        uint64_t d0 = lane * q, d1 = d0 + q;
        if (d0 > items) d0 = items;
        if (d1 > items) d1 = items;
        // the lane's start on the merge path: the largest row r in [r0, r1] with
        // (row_ptr[r] - base) + (r - r0) <= d0, and the term k = base + d0 - (r - r0)
        uint64_t r = r0, hi = r1;
        while (r < hi) {
            const uint64_t mid = hi - (hi - r) / 2;
            if (ld_u64(m.row_ptr + mid) - base + (mid - r0) <= d0)
                r = mid;
            else
                hi = mid - 1;
        }
        uint64_t k = base + d0 - (r - r0);
        uint64_t rs = ld_u64(m.row_ptr + r);                   // start of row r
        uint64_t re = r < r1 ? ld_u64(m.row_ptr + r + 1) : rs; // its end
        bool inside = k > rs; // started inside row r: its sum is completed in resolve()
        h.row = SPMV_NONE;
        fr_t acc = hd_zero();
        for (uint64_t d = d0; d < d1; d++) {
            if (k < re) {
                acc = term(m.terms, k, acc);
                k++;
                continue;
            }
            if (inside) {
                h.v = acc;
                h.row = static_cast<uint32_t>(r);
                inside = false;
            } else {
                hd_store(out + r, acc);
            }
            acc = hd_zero();
            r++;
            rs = re;
            if (r < r1) re = ld_u64(m.row_ptr + r + 1);
        }
        // d1 < items means the lane stopped before the piece's end: inside row r when k > rs
        // (the row's end belongs to a later lane of this warp, since pieces hold whole rows)
        c.row[lane] = k > rs ? static_cast<uint32_t>(r) : SPMV_NONE;
        if (k > rs) hd_store(&c.v[lane], acc);
    }

    // The lane that ends a row it started inside adds the carries of the lanes before it that
    // stopped in that row (a contiguous run ending at lane - 1) and stores the row.
    CUZK_HD void resolve(size_t warp, unsigned lane, const spmv_carries &c,
                         const spmv_head &h) const {
        if (h.row == SPMV_NONE) return;
        fr_t sum = h.v;
        for (unsigned j = lane; j-- > 0 && c.row[j] == h.row;) sum = hd_add(sum, hd_load(&c.v[j]));
        hd_store((warp >= ma.n_warps ? out_b : out_a) + h.row, sum);
    }
};

// The public-input rows and the zero tail, element i of [rows, n): a = w_s for s = i - rows <
// n_pub, else 0; b = 0.
struct spmv_fill_body {
    fr_mem *a, *b;
    const fr_mem *w;
    size_t rows;
    uint32_t n_pub;
    CUZK_HD void operator()(size_t i) const {
        const fr_t z = hd_zero();
        hd_store(a + rows + i, i < n_pub ? hd_load_ro(w + i) : z);
        hd_store(b + rows + i, z);
    }
};

// dst[k] = src[idx[k]]
struct gather_body {
    fr_mem *dst;
    const fr_mem *src;
    const uint32_t *idx;
    CUZK_HD void operator()(size_t k) const {
        hd_store(dst + k, hd_load_ro(src + hd_ldg(idx + k)));
    }
};

// ---- executors --------------------------------------------------------------------------------

template <class F> __global__ void each_kernel(F f, size_t n) {
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        f(i);
}

template <class F>
__global__ void __launch_bounds__(32 * SPMV_WARPS, SPMV_MIN_BLOCKS) warp_kernel(F f, size_t n) {
    __shared__ spmv_carries carries[SPMV_WARPS];
    const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    // warp-uniform loop: every lane of a warp takes the same pieces
    for (size_t warp = static_cast<size_t>(blockIdx.x) * SPMV_WARPS + wib; warp < n;
         warp += static_cast<size_t>(gridDim.x) * SPMV_WARPS) {
        spmv_head h;
        f.walk(warp, lane, carries[wib], h);
        __syncwarp();
        f.resolve(warp, lane, carries[wib], h);
        __syncwarp(); // the next piece's walk overwrites the carries
    }
}

// Launches f(i) for i < n on stream s.
template <class F> int dev_each(cudaStream_t s, const F &f, size_t n) {
    if (n == 0) return CUZK_OK;
    each_kernel<<<grid_for(n), G16_THREADS, 0, s>>>(f, n);
    CU_LAUNCHED(each_kernel);
    return CUZK_OK;
}

// Launches the lanes of n warps of f on stream s.
template <class F> int dev_warps(cudaStream_t s, const F &f, size_t n) {
    if (n == 0) return CUZK_OK;
    size_t blocks = (n + SPMV_WARPS - 1) / SPMV_WARPS;
    if (blocks > G16_MAX_BLOCKS) blocks = G16_MAX_BLOCKS;
    warp_kernel<<<static_cast<unsigned>(blocks), 32 * SPMV_WARPS, 0, s>>>(f, n);
    CU_LAUNCHED(warp_kernel);
    return CUZK_OK;
}

// The same on the host, in the device's order within a warp: every lane's walk, then every
// lane's resolution.
template <class F> void host_each(const F &f, size_t n) {
    for (size_t i = 0; i < n; i++) f(i);
}

template <class F> void host_warps(const F &f, size_t n) {
    spmv_carries c;
    spmv_head h[32];
    for (size_t warp = 0; warp < n; warp++) {
        for (unsigned lane = 0; lane < 32; lane++) f.walk(warp, lane, c, h[lane]);
        for (unsigned lane = 0; lane < 32; lane++) f.resolve(warp, lane, c, h[lane]);
    }
}

// ---- host images of the device data (staging and the twin share them) ------------------------

// Fills bytes [off, off + len) of a device array's image into dst.
typedef void (*image_fn)(const void *ctx, void *dst, size_t off, size_t len);

void plain_image(const void *ctx, void *dst, size_t off, size_t len) {
    std::memcpy(dst, static_cast<const unsigned char *>(ctx) + off, len);
}

// The terms of one matrix: (col[k], coef[k]) pairs; off and len are multiples of 8.
struct terms_src {
    const uint32_t *col, *coef;
};

void terms_image(const void *ctx, void *dst, size_t off, size_t len) {
    const terms_src *t = static_cast<const terms_src *>(ctx);
    cs_term *d = static_cast<cs_term *>(dst);
    const size_t k0 = off / sizeof(cs_term), n = len / sizeof(cs_term);
    for (size_t i = 0; i < n; i++) d[i] = cs_term{t->col[k0 + i], t->coef[k0 + i]};
}

} // namespace

// ---- the work area --------------------------------------------------------------------------

struct cuzk_gpu_g16 {
    int device;
    size_t cap[G16_NVEC];
    fr_mem *vec[G16_NVEC]; // NULL: a vector the area lacks
    int owned[G16_NVEC];
    size_t vram;
    cudaStream_t copy, comp;
    cudaEvent_t ev_begin, ev_start[G16_NVEC], ev_ready[G16_NVEC];
    std::mutex mu;          // serialises enqueueing on the copy stream; guards the fields below
    int uploaded[G16_NVEC]; // an upload of the vector was queued in this round
    int ever[G16_NVEC];     // an upload of the vector was ever queued
    int began;
};

static bool has_vec(const cuzk_gpu_g16 *g, int v) {
    return g && v >= 0 && v < G16_NVEC && g->vec[v];
}

extern "C" size_t cuzk_gpu_g16_vram_for2(size_t max_n, size_t max_w, int borrow_c, unsigned flags) {
    const size_t nw = 1 + !!(flags & CUZK_GPU_G16_WITH_W1) + !!(flags & CUZK_GPU_G16_WITH_S);
    return ((borrow_c ? 2 : 3) * max_n + nw * max_w) * sizeof(fr_mem);
}

extern "C" size_t cuzk_gpu_g16_vram_for(size_t max_n, size_t max_w, int borrow_c) {
    return cuzk_gpu_g16_vram_for2(max_n, max_w, borrow_c, 0);
}

extern "C" void cuzk_gpu_g16_free(struct cuzk_gpu_g16 *g) {
    if (!g) return;
    (void)cudaSetDevice(g->device);
    if (g->copy) (void)cudaStreamSynchronize(g->copy);
    if (g->comp) (void)cudaStreamSynchronize(g->comp);
    for (int v = 0; v < G16_NVEC; v++) {
        if (g->owned[v]) (void)cudaFree(g->vec[v]);
        if (g->ev_start[v]) (void)cudaEventDestroy(g->ev_start[v]);
        if (g->ev_ready[v]) (void)cudaEventDestroy(g->ev_ready[v]);
    }
    if (g->ev_begin) (void)cudaEventDestroy(g->ev_begin);
    if (g->copy) (void)cudaStreamDestroy(g->copy);
    if (g->comp) (void)cudaStreamDestroy(g->comp);
    (void)cudaGetLastError();
    delete g;
}

static int g16_init(cuzk_gpu_g16 *g, void *dev_c) {
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking));
    CU_TRY(cudaStreamCreateWithFlags(&g->comp, cudaStreamNonBlocking));
    CU_TRY(cudaEventCreate(&g->ev_begin));
    for (int v = 0; v < G16_NVEC; v++) {
        CU_TRY(cudaEventCreate(&g->ev_start[v]));
        CU_TRY(cudaEventCreate(&g->ev_ready[v]));
        if (v == CUZK_GPU_G16_C && dev_c) {
            g->vec[v] = static_cast<fr_mem *>(dev_c);
            continue;
        }
        if (g->cap[v] == 0) continue; // an optional vector not asked for
        CU_TRY(cudaMalloc(&g->vec[v], g->cap[v] * sizeof(fr_mem)));
        g->owned[v] = 1;
        g->vram += g->cap[v] * sizeof(fr_mem);
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_create2(int device, size_t max_n, size_t max_w, void *dev_c,
                                    unsigned flags, struct cuzk_gpu_g16 **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (max_n == 0 || max_w == 0 || (reinterpret_cast<uintptr_t>(dev_c) & 15) ||
        (flags & ~(CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S)))
        return set_error(CUZK_EINVAL, "bad work area size, flags or unaligned C vector");
    auto *g = new (std::nothrow) cuzk_gpu_g16();
    if (!g) return CUZK_ENOMEM;
    g->device = device;
    g->cap[CUZK_GPU_G16_A] = g->cap[CUZK_GPU_G16_B] = g->cap[CUZK_GPU_G16_C] = max_n;
    g->cap[CUZK_GPU_G16_W] = max_w;
    g->cap[CUZK_GPU_G16_W1] = (flags & CUZK_GPU_G16_WITH_W1) ? max_w : 0;
    g->cap[CUZK_GPU_G16_S] = (flags & CUZK_GPU_G16_WITH_S) ? max_w : 0;
    err = g16_init(g, dev_c);
    if (err != CUZK_OK) {
        cuzk_gpu_g16_free(g);
        return err;
    }
    *out = g;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_create(int device, size_t max_n, size_t max_w, void *dev_c,
                                   struct cuzk_gpu_g16 **out) {
    return cuzk_gpu_g16_create2(device, max_n, max_w, dev_c, 0, out);
}

extern "C" size_t cuzk_gpu_g16_vram(const struct cuzk_gpu_g16 *g) { return g ? g->vram : 0; }

extern "C" void *cuzk_gpu_g16_vec(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    return has_vec(g, v) ? g->vec[v] : nullptr;
}

extern "C" int cuzk_gpu_g16_begin(struct cuzk_gpu_g16 *g) {
    if (!g) return set_error(CUZK_EINVAL, "work area is NULL");
    CU_TRY(cudaSetDevice(g->device));
    std::lock_guard<std::mutex> lock(g->mu);
    CU_TRY(cudaEventRecord(g->ev_begin, g->copy));
    for (int v = 0; v < G16_NVEC; v++) g->uploaded[v] = 0;
    g->began = 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_upload(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v,
                                   const void *host, size_t count, size_t len) {
    if (!has_vec(g, v) || count > len || len > g->cap[v] || (!host && count))
        return set_error(CUZK_EINVAL, "bad upload arguments");
    CU_TRY(cudaSetDevice(g->device));
    std::lock_guard<std::mutex> lock(g->mu);
    CU_TRY(cudaEventRecord(g->ev_start[v], g->copy));
    if (count)
        CU_TRY(cudaMemcpyAsync(g->vec[v], host, count * sizeof(fr_mem), cudaMemcpyHostToDevice,
                               g->copy));
    if (len > count)
        CU_TRY(cudaMemsetAsync(g->vec[v] + count, 0, (len - count) * sizeof(fr_mem), g->copy));
    CU_TRY(cudaEventRecord(g->ev_ready[v], g->copy));
    g->uploaded[v] = 1;
    g->ever[v] = 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_wait(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v) {
    if (!has_vec(g, v)) return set_error(CUZK_EINVAL, "bad wait arguments");
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaEventSynchronize(g->ev_ready[v]));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_upload_ms(struct cuzk_gpu_g16 *g, float *ms) {
    if (!g || !ms) return set_error(CUZK_EINVAL, "bad arguments");
    *ms = 0;
    int uploaded[G16_NVEC];
    {
        std::lock_guard<std::mutex> lock(g->mu);
        if (!g->began) return CUZK_OK;
        std::memcpy(uploaded, g->uploaded, sizeof uploaded);
    }
    CU_TRY(cudaSetDevice(g->device));
    for (int v = 0; v < G16_NVEC; v++) {
        if (!uploaded[v]) continue;
        float t = 0;
        CU_TRY(cudaEventSynchronize(g->ev_ready[v]));
        CU_TRY(cudaEventElapsedTime(&t, g->ev_begin, g->ev_ready[v]));
        if (t > *ms) *ms = t;
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_upload_ms_of(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v,
                                         float *ms) {
    if (!has_vec(g, v) || !ms) return set_error(CUZK_EINVAL, "bad arguments");
    *ms = 0;
    {
        std::lock_guard<std::mutex> lock(g->mu);
        if (!g->ever[v]) return CUZK_OK;
    }
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaEventSynchronize(g->ev_ready[v]));
    CU_TRY(cudaEventElapsedTime(ms, g->ev_start[v], g->ev_ready[v]));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_download(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec v, void *host,
                                     size_t count) {
    if (!has_vec(g, v) || count > g->cap[v] || (!host && count))
        return set_error(CUZK_EINVAL, "bad download arguments");
    CU_TRY(cudaSetDevice(g->device));
    CU_TRY(cudaEventSynchronize(g->ev_ready[v]));
    if (count) CU_TRY(cudaMemcpy(host, g->vec[v], count * sizeof(fr_mem), cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

// Makes the compute stream wait for the pending uploads of the vectors in `uses` (a bit mask).
// Waiting for an event never recorded, or long complete, costs nothing.
static int comp_after_uploads(cuzk_gpu_g16 *g, unsigned uses) {
    for (int v = 0; v < G16_NVEC; v++)
        if ((uses >> v & 1) && g->vec[v]) CU_TRY(cudaStreamWaitEvent(g->comp, g->ev_ready[v], 0));
    return CUZK_OK;
}

static int check_kernel_args(const cuzk_gpu_g16 *g, size_t n, unsigned uses) {
    if (!g) return set_error(CUZK_EINVAL, "work area is NULL");
    for (int v = 0; v < G16_NVEC; v++)
        if ((uses >> v & 1) && n > g->cap[v]) return set_error(CUZK_EINVAL, "n above capacity");
    return CUZK_OK;
}

#define BIT(v) (1u << (v))

// C = A o B (dst C) or A = A o B (dst A).
static int mul_into(struct cuzk_gpu_g16 *g, size_t n, enum cuzk_gpu_g16_vec dst) {
    const unsigned reads = BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_B);
    int err = check_kernel_args(g, n, reads | BIT(dst));
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_mul_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(g->vec[dst], g->vec[CUZK_GPU_G16_A],
                                                             g->vec[CUZK_GPU_G16_B], n);
    CU_LAUNCHED(g16_mul_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_mul(struct cuzk_gpu_g16 *g, size_t n) {
    return mul_into(g, n, CUZK_GPU_G16_C);
}

extern "C" int cuzk_gpu_g16_mul_a(struct cuzk_gpu_g16 *g, size_t n) {
    return mul_into(g, n, CUZK_GPU_G16_A);
}

extern "C" int cuzk_gpu_g16_h(struct cuzk_gpu_g16 *g, size_t n) {
    const unsigned reads = BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_B) | BIT(CUZK_GPU_G16_C);
    int err = check_kernel_args(g, n, reads);
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_h_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(
        g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_B],
        g->vec[CUZK_GPU_G16_C], n);
    CU_LAUNCHED(g16_h_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_sub_k(struct cuzk_gpu_g16 *g, size_t n, const cuzk_fr *k) {
    const unsigned reads = BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_C);
    int err = check_kernel_args(g, n, reads);
    if (err != CUZK_OK) return err;
    if (!k) return set_error(CUZK_EINVAL, "the divisor's inverse is NULL");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    fr_t kd; // the same bytes on both sides
    std::memcpy(&kd, k, sizeof kd);
    g16_sub_k_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(
        g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_A], g->vec[CUZK_GPU_G16_C], kd, n);
    CU_LAUNCHED(g16_sub_k_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g16_to_mont(struct cuzk_gpu_g16 *g, size_t n) {
    const unsigned reads = BIT(CUZK_GPU_G16_W);
    int err = check_kernel_args(g, n, reads);
    if (err != CUZK_OK) return err;
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    if ((err = comp_after_uploads(g, reads)) != CUZK_OK) return err;
    g16_to_mont_kernel<<<grid_for(n), G16_THREADS, 0, g->comp>>>(g->vec[CUZK_GPU_G16_W], n);
    CU_LAUNCHED(g16_to_mont_kernel);
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

// ---- staged uploads ---------------------------------------------------------------------------

// Two staging buffers that the host fills in turn while the other one's copy runs, on a stream
// of their own. Pinned (so the copies are DMA at full bus speed, overlapped with the filling);
// pageable when no pinned memory can be had (each copy is then staged by the driver and the
// call returns when the buffer may be refilled: slower, same code).
struct stager {
    unsigned char *buf[2];
    size_t cap; // bytes of each buffer
    int pinned;
    cudaStream_t s;
    cudaEvent_t ev[2]; // the copy out of buf[i] is complete
    int next;
};

static void stager_close(stager *st) {
    if (st->s) (void)cudaStreamSynchronize(st->s);
    for (int i = 0; i < 2; i++) {
        if (st->pinned)
            cuzk_gpu_pinned_free(st->buf[i], st->cap);
        else
            std::free(st->buf[i]);
        if (st->ev[i]) (void)cudaEventDestroy(st->ev[i]);
    }
    if (st->s) (void)cudaStreamDestroy(st->s);
    (void)cudaGetLastError();
    std::memset(st, 0, sizeof *st);
}

// Opens a stager for images of up to `largest` bytes (the buffers are no larger than that).
static int stager_open(stager *st, size_t largest) {
    CU_TRY(cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        CU_TRY(cudaEventCreateWithFlags(&st->ev[i], cudaEventDisableTiming));
    // a multiple of 32 bytes: every chunk holds whole terms and whole field elements
    st->cap = largest < STAGE_BYTES ? (largest + 31) / 32 * 32 : STAGE_BYTES;
    if (st->cap == 0) st->cap = 32;
    void *p0 = nullptr, *p1 = nullptr;
    if (cuzk_gpu_pinned_alloc(st->cap, &p0) == CUZK_OK &&
        cuzk_gpu_pinned_alloc(st->cap, &p1) == CUZK_OK) {
        st->pinned = 1;
    } else {
        cuzk_gpu_pinned_free(p0, st->cap);
        p0 = std::malloc(st->cap);
        p1 = std::malloc(st->cap);
    }
    st->buf[0] = static_cast<unsigned char *>(p0);
    st->buf[1] = static_cast<unsigned char *>(p1);
    if (!p0 || !p1) return set_error(CUZK_ENOMEM, "no host memory for the upload staging");
    return CUZK_OK;
}

// Queues the copy of a `bytes`-byte image (made by fill from ctx) to dev, chunk by chunk.
static int stager_copy(stager *st, void *dev, size_t bytes, image_fn fill, const void *ctx) {
    for (size_t off = 0; off < bytes; off += st->cap) {
        const size_t len = bytes - off < st->cap ? bytes - off : st->cap;
        const int b = st->next;
        st->next ^= 1;
        CU_TRY(cudaEventSynchronize(st->ev[b])); // the buffer's previous copy is done
        fill(ctx, st->buf[b], off, len);
        CU_TRY(cudaMemcpyAsync(static_cast<unsigned char *>(dev) + off, st->buf[b], len,
                               cudaMemcpyHostToDevice, st->s));
        CU_TRY(cudaEventRecord(st->ev[b], st->s));
    }
    return CUZK_OK;
}

// ---- the resident system ------------------------------------------------------------------------

struct gpu_mat {
    uint64_t *row_ptr;
    cs_term *terms;
    uint32_t *warp_row;
    size_t n_warps;
    uint64_t nnz;
};

struct cuzk_gpu_cs {
    int device;
    size_t n_rows, n_cols;
    uint32_t n_coefs;
    fr_mem *coefs;
    gpu_mat m[2]; // A, B
    size_t vram;
};

static size_t mat_bytes(uint64_t n_rows, uint64_t nnz) {
    return (n_rows + 1) * sizeof(uint64_t) + nnz * sizeof(cs_term) +
           (spmv_warps_for(n_rows, nnz) + 1) * sizeof(uint32_t);
}

static bool cs_uploadable(const struct cuzk_cs *cs) {
    return cs && !cs->row_open && cs->n_rows <= SPMV_MAX_ROWS && cs->coefs.n >= 2 && cs->coefs.v &&
           cs->n_cols >= 1;
}

extern "C" size_t cuzk_gpu_cs_vram_for(const struct cuzk_cs *cs) {
    if (!cs_uploadable(cs)) return 0;
    return cs->coefs.n * sizeof(fr_mem) + mat_bytes(cs->n_rows, cs->m[CUZK_CS_A].nnz) +
           mat_bytes(cs->n_rows, cs->m[CUZK_CS_B].nnz);
}

extern "C" void cuzk_gpu_cs_free(struct cuzk_gpu_cs *g) {
    if (!g) return;
    (void)cudaSetDevice(g->device);
    (void)cudaFree(g->coefs);
    for (int i = 0; i < 2; i++) {
        (void)cudaFree(g->m[i].row_ptr);
        (void)cudaFree(g->m[i].terms);
        (void)cudaFree(g->m[i].warp_row);
    }
    (void)cudaGetLastError();
    std::free(g);
}

template <class T> static int dev_alloc(cuzk_gpu_cs *g, T **p, size_t count) {
    if (count == 0) return CUZK_OK;
    CU_TRY(cudaMalloc(p, count * sizeof(T)));
    g->vram += count * sizeof(T);
    return CUZK_OK;
}

// Uploads matrix m of cs into g->m[i] and splits it into warp pieces on the device.
static int cs_upload_mat(cuzk_gpu_cs *g, stager *st, const struct cuzk_cs *cs, int i,
                         enum cuzk_cs_matrix m) {
    const struct cuzk_cs_csr *src = &cs->m[m];
    gpu_mat *d = &g->m[i];
    d->nnz = src->row_ptr[cs->n_rows];
    d->n_warps = spmv_warps_for(cs->n_rows, d->nnz);
    TRY(dev_alloc(g, &d->row_ptr, cs->n_rows + 1));
    TRY(dev_alloc(g, &d->terms, d->nnz));
    TRY(dev_alloc(g, &d->warp_row, d->n_warps + 1));
    TRY(stager_copy(st, d->row_ptr, (cs->n_rows + 1) * sizeof(uint64_t), plain_image,
                    src->row_ptr));
    const terms_src ts = {src->col, src->coef};
    TRY(stager_copy(st, d->terms, d->nnz * sizeof(cs_term), terms_image, &ts));
    const spmv_split_body split = {d->row_ptr, d->warp_row, cs->n_rows, cs->n_rows + d->nnz};
    return dev_each(st->s, split, d->n_warps + 1);
}

extern "C" int cuzk_gpu_cs_upload(int device, const struct cuzk_cs *cs, struct cuzk_gpu_cs **out) {
    if (!out) return set_error(CUZK_EINVAL, "out is NULL");
    *out = nullptr;
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (!cs_uploadable(cs))
        return set_error(CUZK_EINVAL, "system not finished, too many rows or no coefficient table");
    auto *g = static_cast<cuzk_gpu_cs *>(std::calloc(1, sizeof(cuzk_gpu_cs)));
    if (!g) return CUZK_ENOMEM;
    g->device = device;
    g->n_rows = cs->n_rows;
    g->n_cols = cs->n_cols;
    g->n_coefs = cs->coefs.n;
    size_t largest = g->n_coefs * sizeof(fr_mem);
    for (int m = CUZK_CS_A; m <= CUZK_CS_B; m++) {
        const size_t rp = (cs->n_rows + 1) * sizeof(uint64_t), t = cs->m[m].nnz * sizeof(cs_term);
        largest = std::max(largest, std::max(rp, t));
    }
    stager st = {};
    err = cudaSetDevice(device) == cudaSuccess ? stager_open(&st, largest)
                                               : set_error(CUZK_EGPU, "cudaSetDevice failed");
    if (err == CUZK_OK) err = dev_alloc(g, &g->coefs, g->n_coefs);
    if (err == CUZK_OK)
        err = stager_copy(&st, g->coefs, g->n_coefs * sizeof(fr_mem), plain_image, cs->coefs.v);
    if (err == CUZK_OK) err = cs_upload_mat(g, &st, cs, 0, CUZK_CS_A);
    if (err == CUZK_OK) err = cs_upload_mat(g, &st, cs, 1, CUZK_CS_B);
    if (err == CUZK_OK) {
        cudaError_t e = cudaStreamSynchronize(st.s);
        if (e != cudaSuccess) err = cuda_fail(e, "cudaStreamSynchronize", __LINE__);
    }
    stager_close(&st);
    if (err != CUZK_OK) {
        cuzk_gpu_cs_free(g);
        return err;
    }
    *out = g;
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_cs_vram(const struct cuzk_gpu_cs *g) { return g ? g->vram : 0; }
extern "C" size_t cuzk_gpu_cs_rows(const struct cuzk_gpu_cs *g) { return g ? g->n_rows : 0; }
extern "C" size_t cuzk_gpu_cs_cols(const struct cuzk_gpu_cs *g) { return g ? g->n_cols : 0; }

static spmv_mat mat_view(const gpu_mat &m) {
    return spmv_mat{m.row_ptr, m.terms, m.warp_row, m.n_warps};
}

extern "C" int cuzk_gpu_g16_spmv(struct cuzk_gpu_g16 *g, const struct cuzk_gpu_cs *cs,
                                 enum cuzk_gpu_g16_vec wv, size_t n_w, uint32_t n_pub_rows,
                                 size_t n) {
    if (!g || !cs || (wv != CUZK_GPU_G16_W && wv != CUZK_GPU_G16_W1) || !has_vec(g, wv))
        return set_error(CUZK_EINVAL, "bad SpMV arguments");
    if (cs->device != g->device) return set_error(CUZK_EINVAL, "system on another device");
    if (n_w != cs->n_cols || n_w > g->cap[wv] || n_pub_rows > n_w || cs->n_rows + n_pub_rows > n ||
        n > g->cap[CUZK_GPU_G16_A] || n > g->cap[CUZK_GPU_G16_B])
        return set_error(CUZK_EINVAL, "SpMV sizes do not fit the system or the work area");
    CU_TRY(cudaSetDevice(g->device));
    int err = comp_after_uploads(g, BIT(wv) | BIT(CUZK_GPU_G16_A) | BIT(CUZK_GPU_G16_B));
    if (err != CUZK_OK) return err;
    fr_mem *a = g->vec[CUZK_GPU_G16_A], *b = g->vec[CUZK_GPU_G16_B];
    const spmv_body body = {mat_view(cs->m[0]), mat_view(cs->m[1]), a, b, g->vec[wv], cs->coefs};
    TRY(dev_warps(g->comp, body, cs->m[0].n_warps + cs->m[1].n_warps));
    const spmv_fill_body fill = {a, b, g->vec[wv], cs->n_rows, n_pub_rows};
    TRY(dev_each(g->comp, fill, n - cs->n_rows));
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

// ---- index lists and the gather ---------------------------------------------------------------

struct cuzk_gpu_idx {
    int device;
    uint32_t *idx;
    size_t count;
    uint32_t max; // the largest index (0 for an empty list)
};

extern "C" void cuzk_gpu_idx_free(struct cuzk_gpu_idx *x) {
    if (!x) return;
    (void)cudaSetDevice(x->device);
    (void)cudaFree(x->idx);
    (void)cudaGetLastError();
    std::free(x);
}

extern "C" int cuzk_gpu_idx_upload(int device, const uint32_t *idx, size_t count,
                                   struct cuzk_gpu_idx **out) {
    if (!out || (!idx && count)) return set_error(CUZK_EINVAL, "bad index list arguments");
    *out = nullptr;
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    auto *x = static_cast<cuzk_gpu_idx *>(std::calloc(1, sizeof(cuzk_gpu_idx)));
    if (!x) return CUZK_ENOMEM;
    x->device = device;
    x->count = count;
    for (size_t k = 0; k < count; k++)
        if (idx[k] > x->max) x->max = idx[k];
    if (count) {
        const size_t bytes = count * sizeof(uint32_t);
        stager st = {};
        cudaError_t e = cudaSetDevice(device);
        if (e == cudaSuccess) e = cudaMalloc(&x->idx, bytes);
        err = e == cudaSuccess ? stager_open(&st, bytes) : cuda_fail(e, "cudaMalloc", __LINE__);
        if (err == CUZK_OK) err = stager_copy(&st, x->idx, bytes, plain_image, idx);
        if (err == CUZK_OK && (e = cudaStreamSynchronize(st.s)) != cudaSuccess)
            err = cuda_fail(e, "cudaStreamSynchronize", __LINE__);
        stager_close(&st);
    }
    if (err != CUZK_OK) {
        cuzk_gpu_idx_free(x);
        return err;
    }
    *out = x;
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_idx_count(const struct cuzk_gpu_idx *x) { return x ? x->count : 0; }
extern "C" size_t cuzk_gpu_idx_vram(const struct cuzk_gpu_idx *x) {
    return x ? x->count * sizeof(uint32_t) : 0;
}

extern "C" int cuzk_gpu_g16_gather(struct cuzk_gpu_g16 *g, enum cuzk_gpu_g16_vec dst,
                                   enum cuzk_gpu_g16_vec src, const struct cuzk_gpu_idx *idx) {
    if (!g || !idx || dst != CUZK_GPU_G16_S || (src != CUZK_GPU_G16_W && src != CUZK_GPU_G16_W1) ||
        !has_vec(g, dst) || !has_vec(g, src))
        return set_error(CUZK_EINVAL, "bad gather arguments");
    if (idx->device != g->device) return set_error(CUZK_EINVAL, "index list on another device");
    if (idx->count > g->cap[dst] || (idx->count && idx->max >= g->cap[src]))
        return set_error(CUZK_EINVAL, "gather sizes do not fit the work area");
    if (idx->count == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(g->device));
    TRY(comp_after_uploads(g, BIT(src) | BIT(dst)));
    const gather_body body = {g->vec[dst], g->vec[src], idx->idx};
    TRY(dev_each(g->comp, body, idx->count));
    CU_TRY(cudaStreamSynchronize(g->comp));
    return CUZK_OK;
}

// ---- the checks -------------------------------------------------------------------------------

extern "C" int cuzk_gpu_g16_eval(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a,
                                 const cuzk_fr *b, const cuzk_fr *c, cuzk_fr *out, size_t n) {
    return cuzk_gpu_g16_eval_k(device, op, a, b, c, nullptr, out, n);
}

extern "C" int cuzk_gpu_g16_eval_k(int device, enum cuzk_gpu_g16_op op, const cuzk_fr *a,
                                   const cuzk_fr *b, const cuzk_fr *c, const cuzk_fr *k,
                                   cuzk_fr *out, size_t n) {
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    const bool uses_b = op != CUZK_GPU_G16_OP_TO_MONT && op != CUZK_GPU_G16_OP_SUB_K;
    const bool uses_c = op == CUZK_GPU_G16_OP_H || op == CUZK_GPU_G16_OP_SUB_K;
    if (op < CUZK_GPU_G16_OP_MUL || op > CUZK_GPU_G16_OP_MUL_A || !a || !out || (uses_b && !b) ||
        (uses_c && !c) || (op == CUZK_GPU_G16_OP_SUB_K && !k))
        return set_error(CUZK_EINVAL, "bad eval arguments");
    if (n == 0) return CUZK_OK;
    cuzk_gpu_g16 *g = nullptr;
    if ((err = cuzk_gpu_g16_create(device, n, n, nullptr, &g)) != CUZK_OK) return err;
    if ((err = cuzk_gpu_g16_begin(g)) != CUZK_OK) goto out;
    switch (op) {
    case CUZK_GPU_G16_OP_MUL:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, b, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_mul(g, n)) != CUZK_OK)
            goto out;
        break;
    case CUZK_GPU_G16_OP_H:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, b, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_C, c, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_h(g, n)) != CUZK_OK)
            goto out;
        break;
    case CUZK_GPU_G16_OP_MUL_A:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_B, b, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_mul_a(g, n)) != CUZK_OK)
            goto out;
        break;
    case CUZK_GPU_G16_OP_SUB_K:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_A, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_C, c, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_sub_k(g, n, k)) != CUZK_OK)
            goto out;
        break;
    default:
        if ((err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W, a, n, n)) != CUZK_OK ||
            (err = cuzk_gpu_g16_to_mont(g, n)) != CUZK_OK)
            goto out;
        break;
    }
    {
        const enum cuzk_gpu_g16_vec res = op == CUZK_GPU_G16_OP_MUL       ? CUZK_GPU_G16_C
                                          : op == CUZK_GPU_G16_OP_TO_MONT ? CUZK_GPU_G16_W
                                                                          : CUZK_GPU_G16_A;
        err = cuzk_gpu_g16_download(g, res, out, n);
    }
out:
    cuzk_gpu_g16_free(g);
    return err;
}

static bool spmv_args_ok(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub_rows,
                         const cuzk_fr *a, const cuzk_fr *b, size_t n) {
    return cs_uploadable(cs) && w && a && b && n_pub_rows <= cs->n_cols &&
           cs->n_rows + n_pub_rows <= n;
}

extern "C" int cuzk_gpu_g16_spmv_eval(int device, const struct cuzk_cs *cs, const cuzk_fr *w,
                                      uint32_t n_pub_rows, cuzk_fr *a, cuzk_fr *b, size_t n) {
    int err = check_device(device);
    if (err != CUZK_OK) return err;
    if (!spmv_args_ok(cs, w, n_pub_rows, a, b, n))
        return set_error(CUZK_EINVAL, "bad SpMV eval arguments");
    if (n == 0) return CUZK_OK;
    cuzk_gpu_g16 *g = nullptr;
    cuzk_gpu_cs *dcs = nullptr;
    if ((err = cuzk_gpu_g16_create(device, n, cs->n_cols, nullptr, &g)) == CUZK_OK &&
        (err = cuzk_gpu_cs_upload(device, cs, &dcs)) == CUZK_OK &&
        (err = cuzk_gpu_g16_upload(g, CUZK_GPU_G16_W, w, cs->n_cols, cs->n_cols)) == CUZK_OK &&
        (err = cuzk_gpu_g16_spmv(g, dcs, CUZK_GPU_G16_W, cs->n_cols, n_pub_rows, n)) == CUZK_OK &&
        (err = cuzk_gpu_g16_download(g, CUZK_GPU_G16_A, a, n)) == CUZK_OK)
        err = cuzk_gpu_g16_download(g, CUZK_GPU_G16_B, b, n);
    cuzk_gpu_cs_free(dcs);
    cuzk_gpu_g16_free(g);
    return err;
}

// ---- host twins -------------------------------------------------------------------------------

// The device image of one matrix in host memory: the row offsets are the host's own, the terms
// and the pieces are made by the upload's code.
struct twin_mat {
    cs_term *terms;
    uint32_t *warp_row;
    spmv_mat view;
};

static int twin_mat_make(twin_mat *t, const struct cuzk_cs *cs, enum cuzk_cs_matrix m) {
    const struct cuzk_cs_csr *src = &cs->m[m];
    const uint64_t nnz = src->row_ptr[cs->n_rows];
    const size_t n_warps = spmv_warps_for(cs->n_rows, nnz);
    t->terms = static_cast<cs_term *>(std::malloc(nnz ? nnz * sizeof(cs_term) : 1));
    t->warp_row = static_cast<uint32_t *>(std::malloc((n_warps + 1) * sizeof(uint32_t)));
    if (!t->terms || !t->warp_row) return CUZK_ENOMEM;
    const terms_src ts = {src->col, src->coef};
    terms_image(&ts, t->terms, 0, nnz * sizeof(cs_term));
    host_each(spmv_split_body{src->row_ptr, t->warp_row, cs->n_rows, cs->n_rows + nnz},
              n_warps + 1);
    t->view = spmv_mat{src->row_ptr, t->terms, t->warp_row, n_warps};
    return CUZK_OK;
}

extern "C" int cuzk_gpu_twin_spmv(const struct cuzk_cs *cs, const cuzk_fr *w, uint32_t n_pub_rows,
                                  cuzk_fr *a, cuzk_fr *b, size_t n) {
    if (!spmv_args_ok(cs, w, n_pub_rows, a, b, n)) return CUZK_EINVAL;
    twin_mat ma = {}, mb = {};
    int err = twin_mat_make(&ma, cs, CUZK_CS_A);
    if (err == CUZK_OK) err = twin_mat_make(&mb, cs, CUZK_CS_B);
    if (err == CUZK_OK) {
        fr_mem *da = reinterpret_cast<fr_mem *>(a), *db = reinterpret_cast<fr_mem *>(b);
        const fr_mem *dw = reinterpret_cast<const fr_mem *>(w);
        const spmv_body body = {ma.view, mb.view, da,
                                db,      dw,      reinterpret_cast<const fr_mem *>(cs->coefs.v)};
        host_warps(body, ma.view.n_warps + mb.view.n_warps);
        host_each(spmv_fill_body{da, db, dw, cs->n_rows, n_pub_rows}, n - cs->n_rows);
    }
    std::free(ma.terms);
    std::free(ma.warp_row);
    std::free(mb.terms);
    std::free(mb.warp_row);
    return err;
}

extern "C" int cuzk_gpu_twin_gather(const cuzk_fr *src, const uint32_t *idx, size_t count,
                                    cuzk_fr *dst) {
    if (count && (!src || !idx || !dst)) return CUZK_EINVAL;
    host_each(
        gather_body{reinterpret_cast<fr_mem *>(dst), reinterpret_cast<const fr_mem *>(src), idx},
        count);
    return CUZK_OK;
}
