// The GPU executor (contract: msm_exec.cuh): the module's kernels, each a thin wrapper
// (msm_kernel) around one body, with their launch; CUB's sort and select; and the two sizes that
// ask a kernel or CUB (the accumulation's chunk count, CUB's temporary storage). Every kernel of
// the module is instantiated here and only here, so its code and that of the device functions
// it calls are compiled in this one translation unit.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#define CUZK_CUDA_MODULE "msm_exec.cu"
#include "gpu/cuda/msm_exec.cuh"

// Resident blocks per multiprocessor a kernel is compiled for (its register bound): 1 lets the
// compiler use up to 255 registers per thread. The summing loops (the accumulation, the sum of
// the ones) keep their running sums in shared memory (acc_slot, msm_bodies.cuh), and then G1 runs
// fastest at 4 blocks (128 registers, no spills; 5 blocks spill and ran 5 % slower) and G2 at 3
// (168 registers, a few spills; 2 blocks at 237 registers ran 0.6 % slower, 4 at 128 registers
// 1.3 %). Before, with the sums in registers, G1 ran best at 3 blocks and G2 at 1, where the
// multiplication spilled on every call. Measured in docs/perf-log/2026-12.md.
template <class B> struct msm_min_blocks { static constexpr int v = 1; };
template <> struct msm_min_blocks<accum_body<fp_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G1;
};
template <> struct msm_min_blocks<accum_body<fp2_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G2;
};
template <> struct msm_min_blocks<ones_body<fp_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G1;
};
template <> struct msm_min_blocks<ones_body<fp2_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G2;
};
template <> struct msm_min_blocks<ones_tree_body<fp_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G1;
};
template <> struct msm_min_blocks<ones_tree_body<fp2_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G2;
};

template <> struct msm_min_blocks<presum_body<fp_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G1;
};
template <> struct msm_min_blocks<presum_body<fp2_t>> {
    static constexpr int v = MSM_ACC_MIN_BLOCKS_G2;
};

template <class B>
__global__ void __launch_bounds__(MSM_THREADS, msm_min_blocks<B>::v)
    msm_kernel(const B b, size_t n) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) b(i);
}

template <class B> int dev_exec::launch(const B &b, size_t n) {
    if (n == 0) return CUZK_OK;
    const size_t blocks = (n + MSM_THREADS - 1) / MSM_THREADS;
    msm_kernel<B><<<static_cast<unsigned>(blocks), MSM_THREADS, 0, stream>>>(b, n);
    CU_TRY(cudaPeekAtLastError());
    return CUZK_OK;
}

// The bodies the module launches: one kernel each.
template int dev_exec::launch(const classify_body &, size_t);
template int dev_exec::launch(const digits_body &, size_t);
template int dev_exec::launch(const accum_body<fp_t> &, size_t);
template int dev_exec::launch(const accum_body<fp2_t> &, size_t);
template int dev_exec::launch(const fixtree_body<fp_t> &, size_t);
template int dev_exec::launch(const fixtree_body<fp2_t> &, size_t);
template int dev_exec::launch(const fixup_body<fp_t> &, size_t);
template int dev_exec::launch(const fixup_body<fp2_t> &, size_t);
template int dev_exec::launch(const reduce_body<fp_t> &, size_t);
template int dev_exec::launch(const reduce_body<fp2_t> &, size_t);
template int dev_exec::launch(const ones_body<fp_t> &, size_t);
template int dev_exec::launch(const ones_body<fp2_t> &, size_t);
template int dev_exec::launch(const ones_tree_body<fp_t> &, size_t);
template int dev_exec::launch(const ones_tree_body<fp2_t> &, size_t);
template int dev_exec::launch(const count_body &, size_t);
template int dev_exec::launch(const presum_body<fp_t> &, size_t);
template int dev_exec::launch(const presum_body<fp2_t> &, size_t);
template int dev_exec::launch(const fr_canonical_body &, size_t);
template int dev_exec::launch(const fb_mul_body<fp_t> &, size_t);
template int dev_exec::launch(const fb_mul_body<fp2_t> &, size_t);
template int dev_exec::launch(const fold_body<fp_t> &, size_t);
template int dev_exec::launch(const fold_body<fp2_t> &, size_t);
template int dev_exec::launch(const fp_eval_body &, size_t);
template int dev_exec::launch(const add_eval_body<fp_t> &, size_t);
template int dev_exec::launch(const add_eval_body<fp2_t> &, size_t);

int dev_exec::sort(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t m,
                   int end_bit, int *in_alt) {
    cub::DoubleBuffer<uint32_t> dk(keys, keys_alt), dv(vals, vals_alt);
    size_t bytes = tmp_bytes;
    // A 32-bit item count (m <= MSM_MAX_N) makes CUB sort with 32-bit offsets: 7-9 % faster than
    // with 64-bit ones on the H200 test machine (docs/perf-log/2026-12.md, 2026-12-02, third
    // session)
    CU_TRY(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, static_cast<uint32_t>(m), 0, end_bit,
                                           stream));
    if (dk.selector != dv.selector)
        return set_error(CUZK_EGPU, "radix sort left keys and values in different buffers");
    *in_alt = dk.selector;
    return CUZK_OK;
}

int dev_exec::select(const uint32_t *in, const uint8_t *flags, uint32_t *out, int64_t *count,
                     size_t n) {
    size_t bytes = tmp_bytes;
    CU_TRY(cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, count, static_cast<int64_t>(n),
                                      stream));
    return CUZK_OK;
}

int dev_exec::zero(void *p, size_t bytes) {
    CU_TRY(cudaMemsetAsync(p, 0, bytes, stream));
    return CUZK_OK;
}

// Chunk c goes through staging buffer c mod 2: the host waits for the buffer's previous copy,
// copies the chunk into it and queues its transfer on the copy stream; the compute stream waits
// for that transfer only, so the work on chunk c overlaps the host's copy of chunk c + 1 and
// the transfers run back to back. A page-locked source is transferred in place.
int dev_exec::upload(void *dst, const void *src, size_t bytes) {
    if (uploads++ == 0) { // after the work already queued (the last MSM's readers of dst)
        CU_TRY(cudaEventRecord(ev_copy[2], stream));
        CU_TRY(cudaStreamWaitEvent(copy_stream, ev_copy[2], 0));
    }
    const int slot = uploads & 1;
    const void *from = src;
    if (!src_pinned) {
        if (bytes > stage_bytes)
            return set_error(CUZK_EINVAL, "upload chunk above the staging size");
        CU_TRY(cudaEventSynchronize(ev_copy[slot]));
        std::memcpy(stage[slot], src, bytes);
        from = stage[slot];
    }
    CU_TRY(cudaMemcpyAsync(dst, from, bytes, cudaMemcpyHostToDevice, copy_stream));
    CU_TRY(cudaEventRecord(ev_copy[slot], copy_stream));
    CU_TRY(cudaStreamWaitEvent(stream, ev_copy[slot], 0));
    return CUZK_OK;
}

int dev_exec::to_host(void *dst, const void *src, size_t bytes) {
    CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    CU_TRY(cudaStreamSynchronize(stream));
    return CUZK_OK;
}

int dev_exec::mark(int phase) {
    if (!ev || nev >= MSM_MAX_EVENTS) return CUZK_OK;
    CU_TRY(cudaEventRecord(ev[nev], stream));
    ev_phase[nev++] = phase;
    return CUZK_OK;
}

// ---- sizes that ask the device ------------------------------------------------------------------

int msm_cub_bytes_for(size_t max_n, size_t *out) {
    size_t sort_bytes = 0, sel_bytes = 0;
    cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
    CU_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv,
                                           static_cast<uint32_t>(max_n), 0, 32));
    CU_TRY(cub::DeviceSelect::Flagged(
        nullptr, sel_bytes, static_cast<const uint32_t *>(nullptr),
        static_cast<const uint8_t *>(nullptr), static_cast<uint32_t *>(nullptr),
        static_cast<int64_t *>(nullptr), static_cast<int64_t>(max_n)));
    *out = std::max(sort_bytes, sel_bytes);
    return CUZK_OK;
}

size_t msm_acc_threads_for(int device) {
    int sms = 0, blocks = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, msm_kernel<accum_body<fp_t>>,
                                                      MSM_THREADS, 0) != cudaSuccess ||
        sms <= 0 || blocks <= 0) {
        (void)cudaGetLastError();
        return MSM_ACC_THREADS;
    }
    const size_t wave = static_cast<size_t>(sms) * blocks * MSM_THREADS;
    const size_t waves = std::max<size_t>(1, (MSM_ACC_THREADS + wave / 2) / wave);
    return waves * wave;
}
