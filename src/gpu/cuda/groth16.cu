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
#define CUZK_CUDA_MODULE "groth16.cu"
#include "gpu/cuda/groth16_impl.cuh"

// ---- errors ---------------------------------------------------------------------------------

// set_error, cuda_fail, check_device, CU_TRY, CU_LAUNCHED: gpu/cuda/cuda_errors.cuh

thread_local char cuzk_gpu_g16_error_text[320]; // the module's (groth16_impl.cuh)

extern "C" const char *cuzk_gpu_g16_last_error(void) { return g_last_error; }

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

// ---- the work area --------------------------------------------------------------------------
static size_t w_cap(size_t max_n, size_t max_w, unsigned flags) {
    return (flags & CUZK_GPU_G16_W_WIDE) && max_n > max_w ? max_n : max_w;
}

extern "C" size_t cuzk_gpu_g16_vram_for2(size_t max_n, size_t max_w, int borrow_c, unsigned flags) {
    const size_t nw = !!(flags & CUZK_GPU_G16_WITH_W1) + !!(flags & CUZK_GPU_G16_WITH_S);
    const size_t own = (borrow_c || (flags & CUZK_GPU_G16_C_IN_B)) ? 2 : 3;
    return (own * max_n + w_cap(max_n, max_w, flags) + nw * max_w) * sizeof(fr_mem);
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
        if (v == CUZK_GPU_G16_C && (dev_c || g->c_in_b)) { // B comes first
            g->vec[v] = g->c_in_b ? g->vec[CUZK_GPU_G16_B] : static_cast<fr_mem *>(dev_c);
            continue;
        }
        if (v == CUZK_GPU_G16_S && g->s_in_c) { // C comes first: its room, whoever owns it
            g->vec[v] = g->vec[CUZK_GPU_G16_C];
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
    const unsigned known = CUZK_GPU_G16_WITH_W1 | CUZK_GPU_G16_WITH_S | CUZK_GPU_G16_S_IN_C |
                           CUZK_GPU_G16_W_WIDE | CUZK_GPU_G16_C_IN_B;
    const bool s_in_c = flags & CUZK_GPU_G16_S_IN_C, c_in_b = flags & CUZK_GPU_G16_C_IN_B;
    if (max_n == 0 || max_w == 0 || (reinterpret_cast<uintptr_t>(dev_c) & 15) || (flags & ~known) ||
        (s_in_c && ((flags & CUZK_GPU_G16_WITH_S) || max_w > max_n)) || (c_in_b && dev_c))
        return set_error(CUZK_EINVAL, "bad work area size, flags or unaligned C vector");
    auto *g = new (std::nothrow) cuzk_gpu_g16();
    if (!g) return CUZK_ENOMEM;
    g->device = device;
    g->cap[CUZK_GPU_G16_A] = g->cap[CUZK_GPU_G16_B] = g->cap[CUZK_GPU_G16_C] = max_n;
    g->cap[CUZK_GPU_G16_W] = w_cap(max_n, max_w, flags);
    g->cap[CUZK_GPU_G16_W1] = (flags & CUZK_GPU_G16_WITH_W1) ? max_w : 0;
    g->cap[CUZK_GPU_G16_S] = (flags & (CUZK_GPU_G16_WITH_S | CUZK_GPU_G16_S_IN_C)) ? max_w : 0;
    g->s_in_c = s_in_c;
    g->c_in_b = c_in_b;
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
static int check_kernel_args(const cuzk_gpu_g16 *g, size_t n, unsigned uses) {
    if (!g) return set_error(CUZK_EINVAL, "work area is NULL");
    for (int v = 0; v < G16_NVEC; v++)
        if ((uses >> v & 1) && n > g->cap[v]) return set_error(CUZK_EINVAL, "n above capacity");
    return CUZK_OK;
}
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
