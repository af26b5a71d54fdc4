// The host spelling of the fields' multiply-add carry chains (ff_fp.cuh, ff_fr.cuh): on the
// device those chains are PTX (mad.lo.cc / madc.hi.cc pairs); on the host each of them is this
// one loop with 64-bit intermediates.
//
// Promise: words 2k and 2k + 1 of x, for k0 <= k < k1, get f[stride (k - k0)] w added (the low
// half of the product at word 2k, the high half at word 2k + 1) as one carry chain that starts
// with carry c into word 2 k0; the result is the carry out of word 2 k1 - 1 (0 or 1), which the
// caller adds on or knows to be zero. Host code only in effect: the fields call it from the host
// branch of their chains.
#ifndef CUZK_GPU_CUDA_FF_HOST_CHAIN_CUH
#define CUZK_GPU_CUDA_FF_HOST_CHAIN_CUH

#include <cstdint>

#ifndef CUZK_HD
#define CUZK_HD __host__ __device__ __forceinline__
#endif

namespace cuzk_cuda {

CUZK_HD uint64_t host_mac_pairs(uint32_t *x, const uint32_t *f, int stride, uint32_t w, int k0,
                                int k1, uint64_t c) {
    for (int k = k0; k < k1; k++) {
        const uint64_t p = static_cast<uint64_t>(f[stride * (k - k0)]) * w;
        uint64_t s = static_cast<uint64_t>(x[2 * k]) + static_cast<uint32_t>(p) + c;
        x[2 * k] = static_cast<uint32_t>(s);
        c = s >> 32;
        s = static_cast<uint64_t>(x[2 * k + 1]) + (p >> 32) + c;
        x[2 * k + 1] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
    return c;
}

} // namespace cuzk_cuda

#endif
