// What every file of the GPU MSM module shares. The module (the MSM, batch multiplication and
// device arithmetic checks over BLS12-381 G1 and G2, contract: src/gpu/gpu_msm.h; their host
// twins, src/gpu/gpu_twin.h) is, from the bottom up:
//   msm_common.cuh  this header: the includes in the order the C headers need, the layouts host
//                   and device agree on, the groups as the host code sees them, and the
//                   module's one last-error text;
//   msm_plan.cuh    tunables, signed window digits, window width, scratch sizes, pass plans
//                   (msm_plan.cu);
//   msm_bodies.cuh  the per-thread work of every kernel, functors for device and host alike;
//   msm_exec.cuh    the executors that run the bodies: on the GPU (msm_exec.cu, the module's
//                   only device code: its kernels and the CUB calls) or in loops on the host;
//   msm_ctx.cuh     the MSM context's struct (msm_ctx.cu: its sizes, creation and release);
//   msm.cu          the MSM driver, resident bases and MSM entry points (its DESIGN comment
//                   explains the algorithm); msm_batch.cu batch multiplication;
//                   msm_check.cu the device arithmetic checks.
// A file includes the highest of the headers it needs, after defining CUZK_CUDA_MODULE as its
// own name (cuda_errors.cuh: the file and line in error messages). Host and device code.
#ifndef CUZK_GPU_CUDA_MSM_COMMON_CUH
#define CUZK_GPU_CUDA_MSM_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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
#include "gpu/cuda/ff_fr.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_twin.h"

#define CUZK_CUDA_ERROR_TEXT cuzk_gpu_msm_error_text // one last error for msm*.cu
#include "gpu/cuda/cuda_errors.cuh"

using namespace cuzk_cuda;

static_assert(sizeof(cuzk_fp) == sizeof(fp_mem), "host and device Fp must have one layout");
static_assert(sizeof(cuzk_fp2) == sizeof(fp2_mem), "host and device Fp2 must have one layout");
static_assert(sizeof(cuzk_g1_affine) == sizeof(aff_mem<fp_t>), "G1 affine layout");
static_assert(sizeof(cuzk_g2_affine) == sizeof(aff_mem<fp2_t>), "G2 affine layout");
static_assert(sizeof(cuzk_g1) == sizeof(jac_mem<fp_t>), "G1 Jacobian layout");
static_assert(sizeof(cuzk_g2) == sizeof(jac_mem<fp2_t>), "G2 Jacobian layout");
static_assert(sizeof(cuzk_scalar) == 4 * sizeof(uint64_t), "scalar layout");
static_assert(sizeof(cuzk_fr) == sizeof(fr_mem), "host and device Fr must have one layout");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the 32-bit device limbs equal the 64-bit host limbs on little-endian hosts");

// ---- the groups ---------------------------------------------------------------------------------

// What the driver needs of a group: its coordinate field and the host types and operations
// (the final combination of window sums and the fixed-base tables run on the CPU).
struct g1_group {
    using F = fp_t;
    using host_aff = cuzk_g1_affine;
    using host_jac = cuzk_g1;
    static constexpr int id = CUZK_GPU_G1;
    static void set_inf(cuzk_g1 *r) { cuzk_g1_set_inf(r); }
    static void dbl(cuzk_g1 *r, const cuzk_g1 *p) { cuzk_g1_dbl(r, p); }
    static void add(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q) { cuzk_g1_add(r, p, q); }
    static size_t fb_len(int w) { return cuzk_g1_fb_table_len(w); }
    static int fb_init(cuzk_g1_affine *t, const cuzk_g1_affine *b, int w) {
        return cuzk_g1_fb_table_init(t, b, w);
    }
};
struct g2_group {
    using F = fp2_t;
    using host_aff = cuzk_g2_affine;
    using host_jac = cuzk_g2;
    static constexpr int id = CUZK_GPU_G2;
    static void set_inf(cuzk_g2 *r) { cuzk_g2_set_inf(r); }
    static void dbl(cuzk_g2 *r, const cuzk_g2 *p) { cuzk_g2_dbl(r, p); }
    static void add(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2 *q) { cuzk_g2_add(r, p, q); }
    static size_t fb_len(int w) { return cuzk_g2_fb_table_len(w); }
    static int fb_init(cuzk_g2_affine *t, const cuzk_g2_affine *b, int w) {
        return cuzk_g2_fb_table_init(t, b, w);
    }
};

#endif
