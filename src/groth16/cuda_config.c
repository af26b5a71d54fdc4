/* The CUDA backend's default settings (struct cuzk_cuda_config, cuda_backend.h). Apart from
 * cuda_backend.c because both builds need them: the daemon's configuration table prints and
 * applies these defaults whether or not the build has CUDA, and this is the one place they are
 * written. */
#include "groth16/cuda_backend.h"

void cuzk_cuda_config_default(struct cuzk_cuda_config *cfg) {
    *cfg = (struct cuzk_cuda_config){
        .vram_budget = 0,               /* the device's memory less cuzk_cuda_vram_reserve's */
        .fold_h_min = (int64_t)1 << 26, /* a porep-c18 partition's H query (2^27) folds */
        .fold_dense_min = (int64_t)1 << 22,
        .presum = 1,
        .overlap_ntt = 1,
    };
}
