// The executors of the GPU MSM module (see msm_common.cuh): what runs the per-thread bodies
// (msm_bodies.cuh) for the code above them. The MSM driver (msm_run in msm.cu) is a template over
// an executor, so that one driver runs on the GPU (dev_exec) and as the host twin (host_exec).
//
// Contract of both, call by call:
//   launch(b, n)   runs b(i) for every i < n;
//   sort(...)      orders (keys, vals)[0, m) stably by the low end_bit bits of the keys, with
//                  (keys_alt, vals_alt) as the other buffers; *in_alt = 1 when the result is in
//                  them;
//   select(...)    copies in[i] for the i < n with flags[i] != 0 to out, in order, and their
//                  number to *count (device memory for dev_exec: read it with to_host);
//   zero(p, bytes) fills with zeros;
//   upload(...)    copies bytes of host memory src to dst (device memory for dev_exec); the
//                  calls after it see the data; src may be reused once it returns unless the
//                  executor reads it in place (dev_exec with src_pinned: src must stay until the
//                  work is done);
//   to_host(...)   copies device memory (the twin's: host memory) to the host, and returns once
//                  the copy and all the work before it are done;
//   mark(phase)    the work queued since the previous mark belongs to `phase` (timing; the
//                  twin keeps no time).
// A call sees the results of the calls before it: dev_exec queues its work in order on one
// stream, host_exec does it at once. Errors: CUZK_OK, or a negative cuzk code with the module's
// last-error text set (dev_exec: a CUDA failure; host_exec never fails).
//
// dev_exec runs the bodies msm_exec.cu instantiates launch for: each kernel is compiled in that
// one file (there is no relocatable device code), so a body that no code launched before needs
// a line in its list (until then, its launch does not link).
#ifndef CUZK_GPU_CUDA_MSM_EXEC_CUH
#define CUZK_GPU_CUDA_MSM_EXEC_CUH

#include "gpu/cuda/msm_bodies.cuh"

enum msm_phase { PH_START = 0, PH_UPLOAD, PH_BITS, PH_SORT, PH_ACCUM, PH_REDUCE };

// Runs the functors on the GPU, on one stream; sort and select are CUB's (msm_exec.cu).
struct dev_exec {
    cudaStream_t stream;
    void *tmp; // CUB temporary storage
    size_t tmp_bytes;
    cudaEvent_t *ev; // MSM_MAX_EVENTS, NULL: no timing
    int *ev_phase;
    int nev;
    // uploads from host memory: a copy stream, two pinned staging buffers of stage_bytes (not
    // used when src_pinned: the source itself is page-locked) and, for each, the event of the
    // last copy out of it (ev_copy[2]: the order of the first copy after the work before it)
    cudaStream_t copy_stream;
    void *stage[2];
    size_t stage_bytes;
    cudaEvent_t ev_copy[3];
    bool src_pinned;
    int uploads;

    template <class B> int launch(const B &b, size_t n);
    int sort(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t m,
             int end_bit, int *in_alt);
    int select(const uint32_t *in, const uint8_t *flags, uint32_t *out, int64_t *count, size_t n);
    int zero(void *p, size_t bytes);
    int upload(void *dst, const void *src, size_t bytes);
    int to_host(void *dst, const void *src, size_t bytes);
    int mark(int phase);
};

// Runs the functors in loops on the host (the twin). The sort is a stable sort by key that
// leaves its result alternately in place and in the alt buffers, as the GPU's may.
struct host_exec {
    int flip = 0;
    template <class B> int launch(const B &b, size_t n) {
        for (size_t i = 0; i < n; i++) b(i);
        return CUZK_OK;
    }
    int sort(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t m,
             int end_bit, int *in_alt) {
        std::vector<size_t> perm(m);
        for (size_t i = 0; i < m; i++) perm[i] = i;
        const uint32_t mask = end_bit >= 32 ? ~0u : (1u << end_bit) - 1;
        std::stable_sort(perm.begin(), perm.end(),
                         [&](size_t x, size_t y) { return (keys[x] & mask) < (keys[y] & mask); });
        std::vector<uint32_t> k(m), v(m);
        for (size_t i = 0; i < m; i++) {
            k[i] = keys[perm[i]];
            v[i] = vals[perm[i]];
        }
        flip ^= 1;
        std::memcpy(flip ? keys_alt : keys, k.data(), m * sizeof(uint32_t));
        std::memcpy(flip ? vals_alt : vals, v.data(), m * sizeof(uint32_t));
        *in_alt = flip;
        return CUZK_OK;
    }
    int select(const uint32_t *in, const uint8_t *flags, uint32_t *out, int64_t *count, size_t n) {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++)
            if (flags[i]) out[c++] = in[i];
        *count = c;
        return CUZK_OK;
    }
    int zero(void *p, size_t bytes) {
        std::memset(p, 0, bytes);
        return CUZK_OK;
    }
    int upload(void *dst, const void *src, size_t bytes) {
        std::memcpy(dst, src, bytes);
        return CUZK_OK;
    }
    int to_host(void *dst, const void *src, size_t bytes) {
        std::memcpy(dst, src, bytes);
        return CUZK_OK;
    }
    int mark(int) { return CUZK_OK; }
};

// CUB's temporary storage for the largest sort and select of a context for max_n points (needs
// the device).
int msm_cub_bytes_for(size_t max_n, size_t *out);

// The accumulation's chunk count on `device`: MSM_ACC_THREADS rounded to a whole number of
// waves of the G1 accumulation kernel's resident threads, so that no last wave runs part-full
// (each chunk is the same work). MSM_ACC_THREADS when the device cannot be asked.
size_t msm_acc_threads_for(int device);

namespace { // each including file's own: it reports to the file's last-error text

// Device buffers freed on every return path.
struct dev_buffers {
    std::vector<void *> p;
    ~dev_buffers() {
        for (void *q : p) (void)cudaFree(q);
    }
    template <class T> int alloc(T **out, size_t bytes) {
        void *q = nullptr;
        CU_TRY(cudaMalloc(&q, bytes ? bytes : 16));
        p.push_back(q);
        *out = static_cast<T *>(q);
        return CUZK_OK;
    }
};
} // namespace

#endif
