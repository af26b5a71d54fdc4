// The Fp product on the FP64 pipe: the same Montgomery product as fp_mul_body (ff_fp.cuh), a b /
// 2^384 mod p on fully reduced fp_t values, computed from double-precision fused multiply-adds
// instead of 32-bit integer multiply-adds. The GPU's FP64 pipe runs beside its integer
// multiplier (docs/gpu.md, "The pipes"), and one FMA pair makes an exact 48 x 48-bit product,
// 2.25 times the bits of a 32 x 32-bit one. The idea is the double-precision modular
// multiplication of N. Emmart, F. Zheng and C. Weems (ARITH 2018); this is our own code.
//
// Promise: fp_mul64_body(a, b) is bit-identical to fp_mul_body(a, b) for every pair of fully
// reduced inputs (same R = 2^384, same fully reduced result), on the device and on the host.
//
// How. The operands are split into 8 limbs of 48 bits (3 words make 2 limbs), each held exactly
// in a double. A limb product x y < 2^96 splits at bit 48 in three FP64 instructions
// (fp64_split): h = fma_rz(x, y, 2^100) is 2^100 + H 2^48 with H = floor(x y / 2^48) (the
// rounding toward zero at the binade [2^100, 2^101), whose unit is 2^48, drops exactly the low
// part); s = (2^100 + 2^52) - h = 2^52 - H 2^48 is exact; l = fma_rz(x, y, s) = 2^52 + L with L =
// x y mod 2^48, exact. The bit patterns of h and l are then the integers bits(2^100) + H and
// bits(2^52) + L (their exponent fields never change), so they are summed as 64-bit integers
// into 16 column sums, one per 48-bit place, without any conversion; each column starts at minus
// the sum of the exponent fields it will receive (col_bias), so it ends at its true value. The
// Montgomery reduction runs over the columns 48 bits at a time (operand scanning, like CIOS):
// m = (c_i mod 2^48) (-p^-1) mod 2^48 in 64-bit integer arithmetic, then m p is added by the same
// splits, after which c_i is a multiple of 2^48 and its carry moves to c_(i+1). Columns 8..15
// then hold T = (a b + M p) / 2^384 < 2p (M < 2^384), normalized to 48-bit limbs, packed into 12
// words and reduced once.
// Bounds: each column receives at most 16 halves of a b and 16 of m p, each below 2^48, plus a
// carry below 2^7: below 2^54, so the 64-bit sums never wrap past their true values (the biased
// partial sums wrap mod 2^64, which the additions tolerate). Limb products stay below 2^100, so
// h stays in its binade.
//
// The host spelling of fp64_split computes H and L with 128-bit integers and returns the same
// bit patterns; every other line is one source for both.
#ifndef CUZK_GPU_CUDA_FF_FP64_CUH
#define CUZK_GPU_CUDA_FF_FP64_CUH

// Part of ff_fp.cuh, which includes it after fp_reduce_once (this file needs fp_t and it) and
// defines the out-of-line mul64, mul2_64 and mul2_mix beside mul and mul2.
#ifndef CUZK_GPU_CUDA_FF_FP_CUH
#error "include gpu/cuda/ff_fp.cuh, not ff_fp64.cuh"
#endif

namespace cuzk_cuda {

namespace fp64_detail {
constexpr int kLimbs = 8; /* 48-bit limbs of an element */
constexpr uint64_t kMask = (static_cast<uint64_t>(1) << 48) - 1;
constexpr uint64_t kBits52 = static_cast<uint64_t>(1023 + 52) << 52;   /* bits of 2^52 */
constexpr uint64_t kBits100 = static_cast<uint64_t>(1023 + 100) << 52; /* bits of 2^100 */
constexpr double kTwo52 = 4503599627370496.0;                          /* 2^52 */
constexpr double kTwo100 = 1267650600228229401496703205376.0;          /* 2^100 */
constexpr double kTwo100p52 = kTwo100 + kTwo52;                        /* exact */

// Bits [48 k, 48 k + 48) of a 6 x 64-bit value.
CUZK_HD constexpr uint64_t limb_of(const fp_detail::u64x6 v, int k) {
    return ((v.w[48 * k / 64] >> (48 * k % 64)) |
            (48 * k % 64 > 16 ? v.w[48 * k / 64 + 1] << (64 - 48 * k % 64) : 0)) &
           kMask;
}
// Limb j of p (a constant once the unrolled loops fix j).
CUZK_HD constexpr uint64_t p_limb(int j) { return limb_of(fp_detail::u64x6{CUZK_FP_MODULUS}, j); }
constexpr uint64_t kPinv = fp_detail::kM0inv64 & kMask; /* -p^-1 mod 2^48 */

// The number of limb pairs (i, j) with i + j = k.
CUZK_HD constexpr int pairs(int k) {
    return k < 0 || k > 2 * kLimbs - 2 ? 0 : (k < kLimbs ? k + 1 : 2 * kLimbs - 1 - k);
}
// The exponent fields column k receives from a b and m p (a low half from each pair at k, a
// high half from each pair at k - 1), mod 2^64.
CUZK_HD constexpr uint64_t col_bias(int k) {
    return 2 * (static_cast<uint64_t>(pairs(k)) * kBits52 +
                static_cast<uint64_t>(pairs(k - 1)) * kBits100);
}
static_assert(p_limb(7) >> 45 == 0 && p_limb(7) != 0, "p has 381 bits");
} // namespace fp64_detail

// v < 2^52 as a double (exact): on the device by its bits under the exponent of 2^52 and one
// subtraction (no conversion instruction).
CUZK_HD double fp64_of(uint64_t v) {
#ifdef __CUDA_ARCH__
    return __dsub_rn(__longlong_as_double(static_cast<long long>(fp64_detail::kBits52 | v)),
                     fp64_detail::kTwo52);
#else
    return static_cast<double>(v);
#endif
}

// x y for integers x, y < 2^50 held in doubles, as hi = bits(2^100) + floor(x y / 2^48) and
// lo = bits(2^52) + (x y mod 2^48).
CUZK_HD void fp64_split(double x, double y, uint64_t &hi, uint64_t &lo) {
#ifdef __CUDA_ARCH__
    const double h = __fma_rz(x, y, fp64_detail::kTwo100);
    const double l = __fma_rz(x, y, __dsub_rn(fp64_detail::kTwo100p52, h));
    hi = static_cast<uint64_t>(__double_as_longlong(h));
    lo = static_cast<uint64_t>(__double_as_longlong(l));
#else
    const unsigned __int128 pr =
        static_cast<unsigned __int128>(static_cast<uint64_t>(x)) * static_cast<uint64_t>(y);
    hi = fp64_detail::kBits100 + static_cast<uint64_t>(pr >> 48);
    lo = fp64_detail::kBits52 + (static_cast<uint64_t>(pr) & fp64_detail::kMask);
#endif
}

// The 8 limbs of a as doubles.
CUZK_HD void fp64_limbs(const fp_t &a, double d[8]) {
    CUZK_UNROLL
    for (int q = 0; q < 4; q++) {
        d[2 * q] = fp64_of(a.l[3 * q] | static_cast<uint64_t>(a.l[3 * q + 1] & 0xffffu) << 32);
        d[2 * q + 1] =
            fp64_of((a.l[3 * q + 1] >> 16) | static_cast<uint64_t>(a.l[3 * q + 2]) << 16);
    }
}

CUZK_HD fp_t fp_mul64_body(const fp_t &a, const fp_t &b) {
    using namespace fp64_detail;
    double x[kLimbs], y[kLimbs];
    fp64_limbs(a, x);
    fp64_limbs(b, y);
    uint64_t c[2 * kLimbs];
    CUZK_UNROLL
    for (int k = 0; k < 2 * kLimbs; k++) c[k] = 0 - col_bias(k);
    CUZK_UNROLL
    for (int i = 0; i < kLimbs; i++) {
        CUZK_UNROLL
        for (int j = 0; j < kLimbs; j++) {
            uint64_t hi, lo;
            fp64_split(x[i], y[j], hi, lo);
            c[i + j] += lo;
            c[i + j + 1] += hi;
        }
    }
    CUZK_UNROLL
    for (int i = 0; i < kLimbs; i++) {
        // c_i is complete but for m's low half at p_0 (whose exponent field it already owes):
        // its low 48 bits are the true ones.
        const double m = fp64_of(((c[i] & kMask) * kPinv) & kMask);
        CUZK_UNROLL
        for (int j = 0; j < kLimbs; j++) {
            uint64_t hi, lo;
            fp64_split(m, static_cast<double>(p_limb(j)), hi, lo);
            c[i + j] += lo;
            c[i + j + 1] += hi;
        }
        c[i + 1] += c[i] >> 48; // c_i = 0 mod 2^48 now, and true (non-negative)
    }
    CUZK_UNROLL
    for (int k = kLimbs; k < 2 * kLimbs - 1; k++) {
        c[k + 1] += c[k] >> 48;
        c[k] &= kMask;
    }
    fp_t t;
    CUZK_UNROLL
    for (int q = 0; q < 4; q++) {
        const uint64_t l0 = c[kLimbs + 2 * q], l1 = c[kLimbs + 2 * q + 1];
        t.l[3 * q] = static_cast<uint32_t>(l0);
        t.l[3 * q + 1] = static_cast<uint32_t>(l0 >> 32) | static_cast<uint32_t>(l1 << 16);
        t.l[3 * q + 2] = static_cast<uint32_t>(l1 >> 16);
    }
    return fp_reduce_once(t);
}

} // namespace cuzk_cuda

#endif
