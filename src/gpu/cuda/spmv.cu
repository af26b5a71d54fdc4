// The constraint system on the device, its SpMV, index lists and the gather, with their host
// twins (contract: src/gpu/gpu_groth16.h; what this file shares with groth16.cu:
// groth16_impl.cuh).
//
// DESIGN
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
#define CUZK_CUDA_MODULE "spmv.cu"
#include "gpu/cuda/groth16_impl.cuh"

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

namespace {

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

// ---- executors of the SpMV ---------------------------------------------------------------------

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

// Launches the lanes of n warps of f on stream s.
template <class F> int dev_warps(cudaStream_t s, const F &f, size_t n) {
    if (n == 0) return CUZK_OK;
    size_t blocks = (n + SPMV_WARPS - 1) / SPMV_WARPS;
    if (blocks > G16_MAX_BLOCKS) blocks = G16_MAX_BLOCKS;
    warp_kernel<<<static_cast<unsigned>(blocks), 32 * SPMV_WARPS, 0, s>>>(f, n);
    CU_LAUNCHED(warp_kernel);
    return CUZK_OK;
}

// The warps on the host, in the device's order within a warp: every lane's walk, then every
// lane's resolution.
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
// ---- the check on host arrays ------------------------------------------------------------------

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
