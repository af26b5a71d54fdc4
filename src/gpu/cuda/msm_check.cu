// The device arithmetic checks (contract: src/gpu/gpu_msm.h): the device's base-field and curve
// routines on inputs the caller gives, so that tests compare them with the CPU; and their host
// twins (src/gpu/gpu_twin.h). Part of the GPU MSM module (see msm_common.cuh). A check
// allocates its own device memory and runs synchronously: a check, not a fast path.
#define CUZK_CUDA_MODULE "msm_check.cu"
#include "gpu/cuda/msm_exec.cuh"

static size_t fp_op_bytes(int op) { return fp_op_is_fp2(op) ? sizeof(fp2_mem) : sizeof(fp_mem); }

extern "C" int cuzk_gpu_fp_eval(int device, enum cuzk_gpu_fp_op op, const void *a, const void *b,
                                void *out, size_t n) {
    TRY(check_device(device));
    if (op < CUZK_GPU_FP_ADD || op > CUZK_GPU_FP2_INV || !a || !out)
        return set_error(CUZK_EINVAL, "bad eval arguments");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(device));
    const size_t bytes = n * fp_op_bytes(op);
    dev_buffers d;
    void *da = nullptr, *db = nullptr, *dout = nullptr;
    TRY(d.alloc(&da, bytes));
    TRY(d.alloc(&db, bytes));
    TRY(d.alloc(&dout, bytes));
    CU_TRY(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(db, b ? b : a, bytes, cudaMemcpyHostToDevice));
    dev_exec x = {};
    TRY(x.launch(fp_eval_body{static_cast<int>(op), da, db, dout}, n));
    CU_TRY(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

template <class G>
static int add_eval(int device, const typename G::host_aff *a, const typename G::host_aff *b,
                    typename G::host_jac *sum, typename G::host_jac *dbl_out, size_t n) {
    using F = typename G::F;
    TRY(check_device(device));
    if (n && (!a || !b || !sum || !dbl_out)) return set_error(CUZK_EINVAL, "NULL argument");
    if (n == 0) return CUZK_OK;
    CU_TRY(cudaSetDevice(device));
    dev_buffers d;
    aff_mem<F> *da = nullptr, *db = nullptr;
    jac_mem<F> *ds = nullptr, *dd = nullptr;
    TRY(d.alloc(&da, n * sizeof *da));
    TRY(d.alloc(&db, n * sizeof *db));
    TRY(d.alloc(&ds, n * sizeof *ds));
    TRY(d.alloc(&dd, n * sizeof *dd));
    CU_TRY(cudaMemcpy(da, a, n * sizeof *da, cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(db, b, n * sizeof *db, cudaMemcpyHostToDevice));
    dev_exec x = {};
    TRY(x.launch(add_eval_body<F>{da, db, ds, dd}, n));
    CU_TRY(cudaMemcpy(sum, ds, n * sizeof *ds, cudaMemcpyDeviceToHost));
    CU_TRY(cudaMemcpy(dbl_out, dd, n * sizeof *dd, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_add_eval(int device, const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                                    cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    return add_eval<g1_group>(device, a, b, sum_out, dbl_out, n);
}

extern "C" int cuzk_gpu_g2_add_eval(int device, const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                                    cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    return add_eval<g2_group>(device, a, b, sum_out, dbl_out, n);
}

// ---- host twins (gpu_twin.h) --------------------------------------------------------------------

extern "C" int cuzk_gpu_twin_fp(enum cuzk_gpu_fp_op op, const void *a, const void *b, void *out,
                                size_t n) {
    if (op < CUZK_GPU_FP_ADD || op > CUZK_GPU_FP2_INV || (n && (!a || !out))) return CUZK_EINVAL;
    host_exec x;
    return x.launch(fp_eval_body{static_cast<int>(op), a, b ? b : a, out}, n);
}

// The eval chain on the host: Body is add_eval_body or add_mem_eval_body.
template <template <class> class Body, class F, class A, class J>
static int twin_add(const A *a, const A *b, J *sum_out, J *dbl_out, size_t n) {
    host_exec x;
    return x.launch(
        Body<F>{reinterpret_cast<const aff_mem<F> *>(a), reinterpret_cast<const aff_mem<F> *>(b),
                reinterpret_cast<jac_mem<F> *>(sum_out), reinterpret_cast<jac_mem<F> *>(dbl_out)},
        n);
}

extern "C" int cuzk_gpu_twin_g1_add(const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                                    cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    return twin_add<add_eval_body, fp_t>(a, b, sum_out, dbl_out, n);
}

extern "C" int cuzk_gpu_twin_g2_add(const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                                    cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    return twin_add<add_eval_body, fp2_t>(a, b, sum_out, dbl_out, n);
}

extern "C" int cuzk_gpu_twin_g1_add_mem(const cuzk_g1_affine *a, const cuzk_g1_affine *b,
                                        cuzk_g1 *sum_out, cuzk_g1 *dbl_out, size_t n) {
    return twin_add<add_mem_eval_body, fp_t>(a, b, sum_out, dbl_out, n);
}

extern "C" int cuzk_gpu_twin_g2_add_mem(const cuzk_g2_affine *a, const cuzk_g2_affine *b,
                                        cuzk_g2 *sum_out, cuzk_g2 *dbl_out, size_t n) {
    return twin_add<add_mem_eval_body, fp2_t>(a, b, sum_out, dbl_out, n);
}
