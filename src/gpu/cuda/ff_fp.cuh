// Fp and Fp2 on the device and on the host: the BLS12-381 base field in Montgomery form on
// 12 x 32-bit limbs, and its quadratic extension Fp2 = Fp[u]/(u^2 + 1).
//
// Promise: an element's value is bit-identical to the host's cuzk_fp (src/ff/fp.h): x*R mod p
// with R = 2^384, fully reduced, little-endian. The host keeps 6 x 64-bit limbs, this code 12 x
// 32-bit limbs of the same integer, so on a little-endian host arrays of cuzk_fp (and of
// cuzk_fp2 = {c0, c1}) cross cudaMemcpy with no conversion.
//
// Every function is __host__ __device__. On the device the carry chains are inline PTX (one
// chain per asm statement: the condition-code register does not survive between statements);
// on the host the same chains are portable C++ with 64-bit intermediates. The five chains
// (fp_chain_*) and two one-instruction bit helpers (fp_clz32, fp_bswap32) are the only
// arithmetic that differs between the two: everything else (the multiplication's schedule,
// reductions, Fp2, the inversion, the curve formulas of ec.cuh) is one source, so the host test
// tests/test_gpu_twin.c checks all of it but the device spelling of those, which the device
// checks (cuzk_gpu_fp_eval) cover.
//
// Two types per field: fp_mem is the storage form (16-byte aligned: an element moves as three
// 128-bit accesses), fp_t the compute form. Every function takes fully reduced inputs and
// returns a fully reduced result by value (a result may overwrite an input). Nothing branches
// on element values but is_zero / eq, which the curve formulas use for their exceptional
// cases; inv_var, a binary GCD that stops when it is done, so its time depends on the value (the
// curve formulas' branches and the MSM's buckets, chosen by the scalars, are variable time
// already); and the square roots and encodings of point decompression (sqrt_var,
// is_lexlarger, fp_from_be_words: public key material only). The exponents of fp_pow are
// public.
//
// The constants come from src/ff/ff_constants.h (generated and checked there) and are split
// into 32-bit words at compile time; no magic number is retyped here.
#ifndef CUZK_GPU_CUDA_FF_FP_CUH
#define CUZK_GPU_CUDA_FF_FP_CUH

#include <cstdint>

#include "ff/ff_constants.h"
#include "gpu/cuda/ff_host_chain.cuh"

#ifndef CUZK_HD
#define CUZK_HD __host__ __device__ __forceinline__
#endif
// Loop unrolling hints for the device pass only: the host compiler does not know the pragma
// (and -Werror turns its warning into an error).
#ifdef __CUDA_ARCH__
#define CUZK_UNROLL _Pragma("unroll")
#define CUZK_UNROLL_1 _Pragma("unroll 1")
#else
#define CUZK_UNROLL
#define CUZK_UNROLL_1
#endif

namespace cuzk_cuda {

namespace fp_detail {
struct u64x6 {
    uint64_t w[6];
};
constexpr uint64_t kM0inv64 = CUZK_FP_M0INV; /* -p^-1 mod 2^64 */
constexpr u64x6 kModulus = {CUZK_FP_MODULUS};
} // namespace fp_detail

/* -p^-1 mod 2^32: the low word of -p^-1 mod 2^64 */
constexpr uint32_t kFpM0inv = static_cast<uint32_t>(fp_detail::kM0inv64);

// The bounds of the multiplication (see fp_mul) and of the additions need p < 2^382, so that
// 2p fits 12 words; BLS12-381's p has 381 bits.
static_assert((fp_detail::kModulus.w[5] >> 62) == 0, "Fp arithmetic assumes p < 2^382");

struct __align__(16) fp_mem {
    uint32_t l[12];
};

struct fp_t {
    uint32_t l[12];
};

// An element from six 64-bit limbs (the layout of ff_constants.h and of cuzk_fp).
CUZK_HD constexpr fp_t fp_from_u64(const fp_detail::u64x6 &v) {
    fp_t r{};
    for (int i = 0; i < 12; i++) r.l[i] = static_cast<uint32_t>(v.w[i / 2] >> (32 * (i % 2)));
    return r;
}
CUZK_HD constexpr fp_t fp_modulus() { return fp_from_u64(fp_detail::u64x6{CUZK_FP_MODULUS}); }
CUZK_HD constexpr fp_t fp_zero() { return fp_t{}; }
/* R mod p: one in Montgomery form */
CUZK_HD constexpr fp_t fp_one() { return fp_from_u64(fp_detail::u64x6{CUZK_FP_R1}); }

// ---- the carry chains: PTX on the device, C++ on the host ---------------------------------------
// The callers' bounds guarantee that the chains documented as not carrying out never do.

// r += b over 12 words, carry out dropped (the sum is taken mod 2^384).
CUZK_HD void fp_chain_add(uint32_t r[12], const uint32_t b[12]) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %0, %12;\n\t"
        "addc.cc.u32 %1, %1, %13;\n\t"
        "addc.cc.u32 %2, %2, %14;\n\t"
        "addc.cc.u32 %3, %3, %15;\n\t"
        "addc.cc.u32 %4, %4, %16;\n\t"
        "addc.cc.u32 %5, %5, %17;\n\t"
        "addc.cc.u32 %6, %6, %18;\n\t"
        "addc.cc.u32 %7, %7, %19;\n\t"
        "addc.cc.u32 %8, %8, %20;\n\t"
        "addc.cc.u32 %9, %9, %21;\n\t"
        "addc.cc.u32 %10, %10, %22;\n\t"
        "addc.u32 %11, %11, %23;"
        : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]),
          "+r"(r[7]), "+r"(r[8]), "+r"(r[9]), "+r"(r[10]), "+r"(r[11])
        : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]),
          "r"(b[8]), "r"(b[9]), "r"(b[10]), "r"(b[11]));
#else
    uint64_t c = 0;
    for (int i = 0; i < 12; i++) {
        const uint64_t s = static_cast<uint64_t>(r[i]) + b[i] + c;
        r[i] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
#endif
}

// r -= b over 12 words (mod 2^384); returns all ones if it borrowed (r < b), else 0.
CUZK_HD uint32_t fp_chain_sub(uint32_t r[12], const uint32_t b[12]) {
    uint32_t mask;
#ifdef __CUDA_ARCH__
    asm("sub.cc.u32 %0, %0, %13;\n\t"
        "subc.cc.u32 %1, %1, %14;\n\t"
        "subc.cc.u32 %2, %2, %15;\n\t"
        "subc.cc.u32 %3, %3, %16;\n\t"
        "subc.cc.u32 %4, %4, %17;\n\t"
        "subc.cc.u32 %5, %5, %18;\n\t"
        "subc.cc.u32 %6, %6, %19;\n\t"
        "subc.cc.u32 %7, %7, %20;\n\t"
        "subc.cc.u32 %8, %8, %21;\n\t"
        "subc.cc.u32 %9, %9, %22;\n\t"
        "subc.cc.u32 %10, %10, %23;\n\t"
        "subc.cc.u32 %11, %11, %24;\n\t"
        "subc.u32 %12, 0, 0;"
        : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]),
          "+r"(r[7]), "+r"(r[8]), "+r"(r[9]), "+r"(r[10]), "+r"(r[11]), "=r"(mask)
        : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]),
          "r"(b[8]), "r"(b[9]), "r"(b[10]), "r"(b[11]));
#else
    uint64_t borrow = 0;
    for (int i = 0; i < 12; i++) {
        const uint64_t s = static_cast<uint64_t>(r[i]) - b[i] - borrow;
        r[i] = static_cast<uint32_t>(s);
        borrow = s >> 63; // the difference is above -2^33: negative iff the top bit is set
    }
    mask = static_cast<uint32_t>(0) - static_cast<uint32_t>(borrow);
#endif
    return mask;
}

// x (13 words) += sum over k < 6 of a[2k] * w at words 2k, 2k + 1: the products of the
// even-indexed words of a, which do not overlap one another. No carry out of x[12].
CUZK_HD void fp_chain_madd_even(uint32_t x[13], const uint32_t a[12], uint32_t w) {
#ifdef __CUDA_ARCH__
    asm("mad.lo.cc.u32 %0, %13, %19, %0;\n\t"
        "madc.hi.cc.u32 %1, %13, %19, %1;\n\t"
        "madc.lo.cc.u32 %2, %14, %19, %2;\n\t"
        "madc.hi.cc.u32 %3, %14, %19, %3;\n\t"
        "madc.lo.cc.u32 %4, %15, %19, %4;\n\t"
        "madc.hi.cc.u32 %5, %15, %19, %5;\n\t"
        "madc.lo.cc.u32 %6, %16, %19, %6;\n\t"
        "madc.hi.cc.u32 %7, %16, %19, %7;\n\t"
        "madc.lo.cc.u32 %8, %17, %19, %8;\n\t"
        "madc.hi.cc.u32 %9, %17, %19, %9;\n\t"
        "madc.lo.cc.u32 %10, %18, %19, %10;\n\t"
        "madc.hi.cc.u32 %11, %18, %19, %11;\n\t"
        "addc.u32 %12, %12, 0;"
        : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]),
          "+r"(x[7]), "+r"(x[8]), "+r"(x[9]), "+r"(x[10]), "+r"(x[11]), "+r"(x[12])
        : "r"(a[0]), "r"(a[2]), "r"(a[4]), "r"(a[6]), "r"(a[8]), "r"(a[10]), "r"(w));
#else
    x[12] += static_cast<uint32_t>(host_mac_pairs(x, a, 2, w, 0, 6, 0));
#endif
}

// y (12 words) += sum over k < 6 of a[2k + 1] * w at words 2k, 2k + 1: the odd-indexed words'
// products, one word lower than their place value. No carry out of y[11].
CUZK_HD void fp_chain_madd_odd(uint32_t y[12], const uint32_t a[12], uint32_t w) {
#ifdef __CUDA_ARCH__
    asm("mad.lo.cc.u32 %0, %12, %18, %0;\n\t"
        "madc.hi.cc.u32 %1, %12, %18, %1;\n\t"
        "madc.lo.cc.u32 %2, %13, %18, %2;\n\t"
        "madc.hi.cc.u32 %3, %13, %18, %3;\n\t"
        "madc.lo.cc.u32 %4, %14, %18, %4;\n\t"
        "madc.hi.cc.u32 %5, %14, %18, %5;\n\t"
        "madc.lo.cc.u32 %6, %15, %18, %6;\n\t"
        "madc.hi.cc.u32 %7, %15, %18, %7;\n\t"
        "madc.lo.cc.u32 %8, %16, %18, %8;\n\t"
        "madc.hi.cc.u32 %9, %16, %18, %9;\n\t"
        "madc.lo.cc.u32 %10, %17, %18, %10;\n\t"
        "madc.hi.u32 %11, %17, %18, %11;"
        : "+r"(y[0]), "+r"(y[1]), "+r"(y[2]), "+r"(y[3]), "+r"(y[4]), "+r"(y[5]), "+r"(y[6]),
          "+r"(y[7]), "+r"(y[8]), "+r"(y[9]), "+r"(y[10]), "+r"(y[11])
        : "r"(a[1]), "r"(a[3]), "r"(a[5]), "r"(a[7]), "r"(a[9]), "r"(a[11]), "r"(w));
#else
    (void)host_mac_pairs(y, a + 1, 2, w, 0, 6, 0); // no carry out of y[11]
#endif
}

// x <- (x >> 32) + y: x[i] = x[i + 1] + y[i] for i < 12 with carries, x[12] = the carry out.
CUZK_HD void fp_chain_shift_add(uint32_t x[13], const uint32_t y[12]) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %1, %13;\n\t"
        "addc.cc.u32 %1, %2, %14;\n\t"
        "addc.cc.u32 %2, %3, %15;\n\t"
        "addc.cc.u32 %3, %4, %16;\n\t"
        "addc.cc.u32 %4, %5, %17;\n\t"
        "addc.cc.u32 %5, %6, %18;\n\t"
        "addc.cc.u32 %6, %7, %19;\n\t"
        "addc.cc.u32 %7, %8, %20;\n\t"
        "addc.cc.u32 %8, %9, %21;\n\t"
        "addc.cc.u32 %9, %10, %22;\n\t"
        "addc.cc.u32 %10, %11, %23;\n\t"
        "addc.cc.u32 %11, %12, %24;\n\t"
        "addc.u32 %12, 0, 0;"
        : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]),
          "+r"(x[7]), "+r"(x[8]), "+r"(x[9]), "+r"(x[10]), "+r"(x[11]), "+r"(x[12])
        : "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]), "r"(y[4]), "r"(y[5]), "r"(y[6]), "r"(y[7]),
          "r"(y[8]), "r"(y[9]), "r"(y[10]), "r"(y[11]));
#else
    uint64_t c = 0;
    for (int i = 0; i < 12; i++) {
        const uint64_t s = static_cast<uint64_t>(x[i + 1]) + y[i] + c;
        x[i] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
    x[12] = static_cast<uint32_t>(c);
#endif
}

// ---- Fp -----------------------------------------------------------------------------------------

CUZK_HD bool is_zero(const fp_t &a) {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) acc |= a.l[i];
    return acc == 0;
}

CUZK_HD bool eq(const fp_t &a, const fp_t &b) {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
}

// t - p if t >= p, else t; requires t < 2p.
CUZK_HD fp_t fp_reduce_once(const fp_t &t) {
    const fp_t p = fp_modulus();
    fp_t s = t;
    const uint32_t keep = fp_chain_sub(s.l, p.l); // all ones when t < p
    fp_t r;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) r.l[i] = (t.l[i] & keep) | (s.l[i] & ~keep);
    return r;
}

CUZK_HD fp_t add(const fp_t &a, const fp_t &b) {
    fp_t t = a; // a + b < 2p < 2^384: no carry out
    fp_chain_add(t.l, b.l);
    return fp_reduce_once(t);
}

CUZK_HD fp_t dbl(const fp_t &a) { return add(a, a); }

CUZK_HD fp_t sub(const fp_t &a, const fp_t &b) {
    const fp_t p = fp_modulus();
    fp_t t = a;
    const uint32_t borrow = fp_chain_sub(t.l, b.l);
    // a - b + 2^384 when it borrowed: adding p wraps it to a - b + p, which is in range
    fp_t q;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) q.l[i] = p.l[i] & borrow;
    fp_chain_add(t.l, q.l);
    return t;
}

CUZK_HD fp_t neg(const fp_t &a) { return sub(fp_zero(), a); }

// a * b / 2^384 mod p: CIOS Montgomery multiplication, one 32-bit word b_i per step, with the
// partial products split by the parity of their word index so that every carry chain adds the
// low and the high half of one 32 x 32-bit product to two adjacent words (the form the wide
// multiply-add with carry executes as one instruction):
//   the running sum is T = x + 2^32 y, x of 13 words and y of 12 words one word up;
//   x += a_even b_i                  (words 2k, 2k + 1 get a_2k b_i)
//   y  = a_odd b_i                   (a_(2k+1) b_i at y's words 2k, 2k + 1: plain products)
//   m  = x_0 (-p^-1) mod 2^32        (y starts one word up: x_0 is T's low word)
//   x += p_even m, y += p_odd m      (now T = 0 mod 2^32 and x_0 = 0)
//   x  = (x >> 32) + y               (T / 2^32, back in x alone)
// Bounds: with T < 2p on entry and a, p < 2^382, T + a b_i + m p < 2p + 2^33 p < 2^415, so x
// never carries out of its 13th word, y = (a_odd b_i + p_odd m) / 2^32 < a + p < 2^383 fits
// 12 words, and the new T = (T + a b_i + m p) / 2^32 < 2p again; x_12 is zero between steps.
// One conditional subtraction at the end reduces the result below p. (The body; callers use mul
// or mul2 below.)
CUZK_HD fp_t fp_mul_body(const fp_t &a, const fp_t &b) {
    const fp_t p = fp_modulus();
    uint32_t x[13] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) {
        uint32_t y[12];
        fp_chain_madd_even(x, a.l, b.l[i]);
        CUZK_UNROLL
        for (int k = 0; k < 6; k++) {
            const uint64_t w = static_cast<uint64_t>(a.l[2 * k + 1]) * b.l[i];
            y[2 * k] = static_cast<uint32_t>(w);
            y[2 * k + 1] = static_cast<uint32_t>(w >> 32);
        }
        const uint32_t m = x[0] * kFpM0inv;
        fp_chain_madd_even(x, p.l, m);
        fp_chain_madd_odd(y, p.l, m);
        fp_chain_shift_add(x, y);
    }
    fp_t t;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) t.l[i] = x[i];
    return fp_reduce_once(t);
}

// mul is one out-of-line function (operands and result in registers), not a copy at every call
// site: a mixed point addition inlined with its ten multiplications was about 88 KB of machine
// code, more than the instruction cache holds, and warps stalled on instruction fetches; with
// the calls the G1 MSM accumulation ran about 15 % faster (docs/perf-log/2026-12.md), and
// msm_exec.cu compiles several times faster. mul2 takes two independent products in one call, the
// two carry chains interleaved by the compiler (one multiplication alone is a chain of dependent
// instructions).
struct fp_pair {
    fp_t a, b;
};
static __host__ __device__ __noinline__ fp_t mul(const fp_t a, const fp_t b) {
    return fp_mul_body(a, b);
}
static __host__ __device__ __noinline__ fp_pair mul2(const fp_t a0, const fp_t b0, const fp_t a1,
                                                     const fp_t b1) {
    return fp_pair{fp_mul_body(a0, b0), fp_mul_body(a1, b1)};
}

// r0 = a0 b0 and r1 = a1 b1 (the curve formulas' pairs of independent products).
CUZK_HD void mul_pair(fp_t &r0, fp_t &r1, const fp_t &a0, const fp_t &b0, const fp_t &a1,
                      const fp_t &b1) {
    const fp_pair r = mul2(a0, b0, a1, b1);
    r0 = r.a;
    r1 = r.b;
}

CUZK_HD fp_t sqr(const fp_t &a) { return mul(a, a); }

// ---- Fp inversion: the binary GCD --------------------------------------------------------------
// inv_var computes 1/a by T. Pornin's optimized binary GCD ("Optimized Binary GCD for Modular
// Inversion", IACR ePrint 2020/972). The classic binary GCD of x and p keeps a, b with
// gcd(a, b) = gcd(x, p) and u, v with a = x u, b = x v (mod p), from a = x, b = p, u = 1, v = 0:
// when a is odd it swaps (a, u) with (b, v) if a < b and subtracts (a -= b, u -= v), then it
// halves a (u /= 2 mod p). Each step shortens a and b by at least one bit together, so after
// 2 len(p) - 1 steps a = 0, b = 1 and v = 1/x. The optimized form runs the steps in batches of 31
// on 64-bit approximations of a and b (their low 31 bits exact, their top 33 bits taken at the
// length of the longer one), records a batch as update factors f0, g0, f1, g1 and applies them
// to the full values once: a' = (a f0 + b g0) / 2^31, b' = (a f1 + b g1) / 2^31, exact because
// the parities the steps saw were exact. A comparison the approximations got wrong can make a'
// or b' negative, which negating it and its two factors repairs; the paper proves that the
// bound of 2 len(p) - 1 steps still holds, so ceil(761 / 31) = 25 batches suffice (the slowest
// inputs, 2^380 and p - 2^k for large k, take all 25 batches: 2^380 needs exactly 761 steps).
// u and v take the same factors, with the division by 2^31 made exact modulo p by adding a
// multiple of p, as a Montgomery reduction does, so that their relations to a and b hold
// exactly after every batch.

namespace fp_detail {
constexpr int kGcdSteps = 31; /* steps per batch: the factors then stay within 2^31 */
constexpr int kGcdBatches = (2 * CUZK_FP_BITS - 1 + kGcdSteps - 1) / kGcdSteps;
} // namespace fp_detail

// The number of leading zero bits of v != 0.
CUZK_HD uint32_t fp_clz32(uint32_t v) {
#ifdef __CUDA_ARCH__
    return static_cast<uint32_t>(__clz(static_cast<int>(v)));
#else
    return static_cast<uint32_t>(__builtin_clz(v));
#endif
}

// One approximation: the window w2:w1:w0 (the three words at and below the top nonzero word of
// a | b) shifted left by s, so that the top bit of the longer value is bit 63, with low's low 31
// bits below its top 33.
CUZK_HD uint64_t fp_gcd_window(uint32_t w2, uint32_t w1, uint32_t w0, uint32_t s, uint32_t low) {
    const uint64_t top =
        ((static_cast<uint64_t>(w2) << 32 | w1) << s) | (static_cast<uint64_t>(w0) << s >> 32);
    return (top & ~static_cast<uint64_t>(0x7fffffff)) | (low & 0x7fffffffu);
}

// The approximations xa, xb of a and b (both below 2^382) that a batch of steps works on: with n
// the bit length of the longer one, bits n - 33 .. n - 1 above the low 31 bits; a and b
// themselves when both are below 2^64. The scan selects the window words instead of indexing
// them (an array indexed by a run-time value would live in local memory on the device).
CUZK_HD void fp_gcd_approx(const fp_t &a, const fp_t &b, uint64_t &xa, uint64_t &xb) {
    uint32_t a2 = a.l[1], a1 = a.l[0], a0 = 0, b2 = b.l[1], b1 = b.l[0], b0 = 0, wide = 0;
    CUZK_UNROLL
    for (int i = 2; i < 12; i++) {
        const uint32_t m = 0u - static_cast<uint32_t>((a.l[i] | b.l[i]) != 0);
        a0 = (a.l[i - 2] & m) | (a0 & ~m);
        a1 = (a.l[i - 1] & m) | (a1 & ~m);
        a2 = (a.l[i] & m) | (a2 & ~m);
        b0 = (b.l[i - 2] & m) | (b0 & ~m);
        b1 = (b.l[i - 1] & m) | (b1 & ~m);
        b2 = (b.l[i] & m) | (b2 & ~m);
        wide |= m;
    }
    // No shift when both fit 64 bits (their windows are a and b); the | 1 keeps clz's argument
    // nonzero and changes no count of a nonzero a2 | b2.
    const uint32_t s = fp_clz32(a2 | b2 | 1) & wide;
    xa = fp_gcd_window(a2, a1, a0, s, a.l[0]);
    xb = fp_gcd_window(b2, b1, b0, s, b.l[0]);
}

// A batch's update factor: its magnitude, and a mask of all ones when it is negative.
struct fp_gcd_factor {
    uint32_t mag, neg;
};
struct fp_gcd_factors {
    fp_gcd_factor f0, g0, f1, g1;
};

// The factor whose value mod 2^32 is w, for a value in (-2^31, 2^31] (fp_gcd_steps): the words
// above 2^31 are the negative ones, and 2^31 itself is +2^31.
CUZK_HD fp_gcd_factor fp_gcd_factor_of(uint32_t w) {
    const uint32_t neg = 0u - static_cast<uint32_t>(w > 0x80000000u);
    return fp_gcd_factor{(w ^ neg) - neg, neg};
}

// 31 binary-GCD steps on the approximations xa, xb, with the factors kept mod 2^32; xb is odd (b
// starts as p and only ever takes the place of an odd a). The conditions are selects (SEL on the
// device, no branch: the lanes of a warp invert different values, and branches would split
// them). After i steps, xa 2^i = f0 xa0 + g0 xb0 and xb 2^i = f1 xa0 + g1 xb0 for the entry
// values xa0, xb0, with xa, xb >= 0, xb odd, |f0| + |g0| <= 2^i and |f1| + |g1| <= 2^i. So after
// 31 steps a factor of magnitude 2^31 has a zero partner and is positive (xa0 = 0 never moves f0
// off 1), and every factor lies in (-2^31, 2^31], where its word names it (fp_gcd_factor_of).
CUZK_HD fp_gcd_factors fp_gcd_steps(uint64_t xa, uint64_t xb) {
    uint32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
    CUZK_UNROLL_1
    for (int i = 0; i < fp_detail::kGcdSteps; i++) {
        const bool odd = (xa & 1) != 0, lt = xa < xb, swap = odd & lt;
        const uint64_t d = lt ? xb - xa : xa - xb; // |a - b|
        const uint32_t df = lt ? f1 - f0 : f0 - f1, dg = lt ? g1 - g0 : g0 - g1;
        xb = swap ? xa : xb; // the swap leaves the smaller, odd a in b
        xa = (odd ? d : xa) >> 1;
        f1 = (swap ? f0 : f1) << 1;
        g1 = (swap ? g0 : g1) << 1;
        f0 = odd ? df : f0;
        g0 = odd ? dg : g0;
    }
    return fp_gcd_factors{fp_gcd_factor_of(f0), fp_gcd_factor_of(g0), fp_gcd_factor_of(f1),
                          fp_gcd_factor_of(g1)};
}

// (x f + y g + q p) / 2^31 for x, y < 2^382 and |f| + |g| <= 2^31, as a 12-word two's-complement
// integer (|x f + y g + q p| < 2^414, so the quotient lies in (-2^383, 2^383)). With kModular, q
// is the one below 2^31 that makes the sum a multiple of 2^31, and the result is congruent to
// (x f + y g) / 2^31 mod p; without, q = 0 and the caller guarantees that the sum is a multiple
// of 2^31 (a and b: the steps chose the factors so). A negative factor multiplies the complement
// ~x = 2^384 - 1 - x: -x |f| = ~x |f| + |f| - 2^384 |f|, the last term taken off the 13th word.
// Every word of the sum is one 64-bit accumulator with no separate carry chain: a carry below
// 2^32 plus (2^32 - 1)(|f| + |g| + q) stays below 2^64.
template <bool kModular>
CUZK_HD fp_t fp_gcd_combine(const fp_t &x, const fp_t &y, fp_gcd_factor f, fp_gcd_factor g) {
    const fp_t p = fp_modulus();
    const uint32_t fc = f.mag & f.neg, gc = g.mag & g.neg;
    uint64_t t = static_cast<uint64_t>(x.l[0] ^ f.neg) * f.mag +
                 static_cast<uint64_t>(y.l[0] ^ g.neg) * g.mag + fc + gc;
    uint32_t q = 0;
    if (kModular) {
        q = (static_cast<uint32_t>(t) * kFpM0inv) & 0x7fffffffu;
        t += static_cast<uint64_t>(p.l[0]) * q;
    }
    uint32_t w[13];
    w[0] = static_cast<uint32_t>(t);
    CUZK_UNROLL
    for (int i = 1; i < 12; i++) {
        t = (t >> 32) + static_cast<uint64_t>(x.l[i] ^ f.neg) * f.mag +
            static_cast<uint64_t>(y.l[i] ^ g.neg) * g.mag;
        if (kModular) t += static_cast<uint64_t>(p.l[i]) * q;
        w[i] = static_cast<uint32_t>(t);
    }
    w[12] = static_cast<uint32_t>(t >> 32) - fc - gc;
    fp_t r;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) r.l[i] = (w[i] >> 31) | (w[i + 1] << 1);
    return r;
}

// |r| for a 12-word two's-complement r; when r < 0 the signs of f and g, the factors that made
// it, flip with it.
CUZK_HD fp_t fp_gcd_abs(fp_t r, fp_gcd_factor &f, fp_gcd_factor &g) {
    const uint32_t neg = 0u - (r.l[11] >> 31);
    uint64_t c = neg & 1;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) {
        c += r.l[i] ^ neg;
        r.l[i] = static_cast<uint32_t>(c);
        c >>= 32;
    }
    f.neg ^= neg;
    g.neg ^= neg;
    return r;
}

// r mod p for a 12-word two's-complement r in (-p, 2p).
CUZK_HD fp_t fp_gcd_mod(fp_t r) {
    const fp_t p = fp_modulus();
    const uint32_t neg = 0u - (r.l[11] >> 31);
    fp_t q;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) q.l[i] = p.l[i] & neg;
    fp_chain_add(r.l, q.l); // r + p in (0, p) when r < 0 (the carry out is the sign's)
    return fp_reduce_once(r);
}

// 1/a, 1/0 = 0; variable time. The GCD runs on x = aR, the integer the Montgomery form holds,
// from u = R^2 mod p instead of 1: the updates are linear in u and v, so a = x u / R^2 and
// b = x v / R^2 (mod p) throughout, and b = 1 leaves v = R^2 / x = a^-1 R, the Montgomery form
// of 1/a, with no multiplication after the loop. x = 0 leaves v = 0. The batches run while
// a != 0: a batch on a = 0 would leave b and v as they are (its factors are f0 = 1, g0 = 0,
// f1 = 0, g1 = 2^31, and q = 0), so stopping early changes no result, only the time: random
// values take 17 to 19 batches of the 25, and the lanes of a warp that finish first wait for
// the slowest. One out-of-line function, as mul, of about 770 machine instructions (sm_90) that
// execute about 1 650 per batch: about 30 000 for a random value and 41 000 at most, against
// 330 000 for the Fermat power it replaced, 384 squarings and 229 multiplications (docs/gpu.md).
static __host__ __device__ __noinline__ fp_t inv_var(const fp_t x) {
    fp_t a = x, b = fp_modulus(), v = fp_zero();
    fp_t u = fp_from_u64(fp_detail::u64x6{CUZK_FP_R2}); /* R^2 mod p */
    CUZK_UNROLL_1
    for (int k = 0; k < fp_detail::kGcdBatches && !is_zero(a); k++) {
        uint64_t xa, xb;
        fp_gcd_approx(a, b, xa, xb);
        fp_gcd_factors m = fp_gcd_steps(xa, xb);
        const fp_t na = fp_gcd_abs(fp_gcd_combine<false>(a, b, m.f0, m.g0), m.f0, m.g0);
        b = fp_gcd_abs(fp_gcd_combine<false>(a, b, m.f1, m.g1), m.f1, m.g1);
        a = na;
        const fp_t nu = fp_gcd_mod(fp_gcd_combine<true>(u, v, m.f0, m.g0));
        v = fp_gcd_mod(fp_gcd_combine<true>(u, v, m.f1, m.g1));
        u = nu;
    }
    return v;
}

// ---- Fp: square roots and encodings (point decompression) --------------------------------------
// These branch on element values (a root exists or not, which root is larger): they serve the
// decoding of public keys, never secret data (the names of the roots say _var).

// a^e for a public exponent e (a plain integer of six 64-bit words), by fixed windows of 4 bits
// from a table of a^0..a^15: for e = (p - 3) / 4 (379 bits, 228 of them set) that is 376
// squarings and 91 + 14 multiplications instead of 227. The loops stay rolled (one squaring and
// one multiplication call each, the table in local memory): the exponentiation runs 380 times
// per decompressed point, and an unrolled copy would overflow the instruction cache.
CUZK_HD fp_t fp_pow(const fp_t &a, const fp_detail::u64x6 &e) {
    fp_t t[16];
    t[0] = fp_one();
    t[1] = a;
    CUZK_UNROLL_1
    for (int i = 2; i < 16; i++) t[i] = mul(t[i - 1], a);
    fp_t r = fp_one();
    bool started = false; // no squarings of the leading one
    CUZK_UNROLL_1
    for (int i = 95; i >= 0; i--) {
        const unsigned d = static_cast<unsigned>(e.w[i / 16] >> (4 * (i % 16))) & 15;
        if (started) {
            CUZK_UNROLL_1
            for (int k = 0; k < 4; k++) r = sqr(r);
        }
        if (d) {
            r = started ? mul(r, t[d]) : t[d];
            started = true;
        }
    }
    return r;
}

// a^((p - 3) / 4): both square roots build on it (p = 3 mod 4).
CUZK_HD fp_t fp_pow_p34(const fp_t &a) {
    const fp_detail::u64x6 e = {CUZK_FP_P34_EXP}; /* (p - 3) / 4 (plain) */
    return fp_pow(a, e);
}

// a / 2: a + p (when a is odd) is even and below 2^382, and halving the Montgomery form halves
// the value.
CUZK_HD fp_t fp_half(const fp_t &a) {
    const fp_t p = fp_modulus();
    const uint32_t odd = static_cast<uint32_t>(0) - (a.l[0] & 1);
    fp_t t = a, q;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) q.l[i] = p.l[i] & odd;
    fp_chain_add(t.l, q.l);
    CUZK_UNROLL
    for (int i = 0; i < 11; i++) t.l[i] = (t.l[i] >> 1) | (t.l[i + 1] << 31);
    t.l[11] >>= 1;
    return t;
}

// r = a square root of a, a^((p + 1) / 4) = a^((p - 3) / 4) a (the value cuzk_fp_sqrt returns);
// false (r unspecified) when a is not a square.
CUZK_HD bool sqrt_var(const fp_t &a, fp_t &r) {
    r = mul(fp_pow_p34(a), a);
    return eq(sqr(r), a);
}

// Whether a's canonical value exceeds (p - 1) / 2 (cuzk_fp_is_lexlarger): of a pair of roots y,
// -y != 0, exactly one is.
CUZK_HD bool is_lexlarger(const fp_t &a) {
    fp_t one_plain = fp_zero();
    one_plain.l[0] = 1;
    const fp_t c = mul(a, one_plain);                     // a / R: the canonical value
    fp_t h = fp_from_u64(fp_detail::u64x6{CUZK_FP_HALF}); /* (p - 1) / 2 (plain) */
    return fp_chain_sub(h.l, c.l) != 0;                   // borrows iff (p - 1) / 2 < c
}

CUZK_HD uint32_t fp_bswap32(uint32_t v) {
#ifdef __CUDA_ARCH__
    return __byte_perm(v, 0, 0x0123);
#else
    return __builtin_bswap32(v);
#endif
}

// r = the Montgomery form of the 48-byte big-endian integer whose bytes are w's, as loaded from
// memory into twelve little-endian words (w[0] holds the most significant four bytes); false
// (r unspecified) when the integer is not below p.
CUZK_HD bool fp_from_be_words(const uint32_t w[12], fp_t &r) {
    fp_t x, t;
    CUZK_UNROLL
    for (int i = 0; i < 12; i++) x.l[i] = fp_bswap32(w[11 - i]);
    t = x;
    const fp_t p = fp_modulus();
    if (fp_chain_sub(t.l, p.l) == 0) return false;         // x >= p
    r = mul(x, fp_from_u64(fp_detail::u64x6{CUZK_FP_R2})); /* x R^2 / R = x R */
    return true;
}

// ---- Fp2 = Fp[u]/(u^2 + 1) ----------------------------------------------------------------------

struct __align__(16) fp2_mem {
    fp_mem c0, c1;
};

struct fp2_t {
    fp_t c0, c1;
};

CUZK_HD fp2_t fp2_zero() { return fp2_t{fp_zero(), fp_zero()}; }
CUZK_HD fp2_t fp2_one() { return fp2_t{fp_one(), fp_zero()}; }

CUZK_HD bool is_zero(const fp2_t &a) { return is_zero(a.c0) && is_zero(a.c1); }
CUZK_HD bool eq(const fp2_t &a, const fp2_t &b) { return eq(a.c0, b.c0) && eq(a.c1, b.c1); }
CUZK_HD fp2_t add(const fp2_t &a, const fp2_t &b) {
    return fp2_t{add(a.c0, b.c0), add(a.c1, b.c1)};
}
CUZK_HD fp2_t sub(const fp2_t &a, const fp2_t &b) {
    return fp2_t{sub(a.c0, b.c0), sub(a.c1, b.c1)};
}
CUZK_HD fp2_t dbl(const fp2_t &a) { return fp2_t{dbl(a.c0), dbl(a.c1)}; }
CUZK_HD fp2_t neg(const fp2_t &a) { return fp2_t{neg(a.c0), neg(a.c1)}; }

// (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u: three Fp
// multiplications (Karatsuba).
CUZK_HD fp2_t mul(const fp2_t &a, const fp2_t &b) {
    const fp_t t0 = mul(a.c0, b.c0), t1 = mul(a.c1, b.c1);
    const fp_t t2 = mul(add(a.c0, a.c1), add(b.c0, b.c1));
    return fp2_t{sub(t0, t1), sub(sub(t2, t0), t1)};
}

// (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fp multiplications.
CUZK_HD fp2_t sqr(const fp2_t &a) {
    const fp_t t = mul(a.c0, a.c1);
    return fp2_t{mul(add(a.c0, a.c1), sub(a.c0, a.c1)), dbl(t)};
}

// 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2); 1/0 = 0.
CUZK_HD fp2_t inv_var(const fp2_t &a) {
    const fp_t t = inv_var(add(sqr(a.c0), sqr(a.c1)));
    return fp2_t{mul(a.c0, t), neg(mul(a.c1, t))};
}

// r = a square root of a in Fp2, from two exponentiations in Fp (the CPU's cuzk_fp2_sqrt takes
// two in Fp2, about 2.3 times the work; G2 decompression is exponentiation-bound). Which root r
// is may differ from the CPU's: decoders pick the sign by is_lexlarger, so the decoded points
// are the same. False (r unspecified) when a is not a square.
// The method: a is a square iff its norm n = a0^2 + a1^2 is one in Fp. With s^2 = n and
// d = (a0 + s) / 2, x = x0 + x1 u with x0^2 = d and x1 = a1 / (2 x0) squares to a. One power
// t = d^((p - 3) / 4) gives x0 = t d and 1 / x0 = t when d is a square (t^2 d = 1). When it is
// not (t^2 d = -1, -1 being no square in Fp), d' = (a0 - s) / 2 = -a1^2 / (4 d) is, with the
// root x0' = a1 t / 2 and x1' = a1 / (2 x0') = -t d. d = 0 only when a1 = 0 and s = -a0: then
// d = a0, the other choice of s.
CUZK_HD bool sqrt_var(const fp2_t &a, fp2_t &r) {
    fp_t s;
    if (!sqrt_var(add(sqr(a.c0), sqr(a.c1)), s)) return false;
    fp_t d = fp_half(add(a.c0, s));
    if (is_zero(d)) d = a.c0;
    const fp_t t = fp_pow_p34(d);
    const fp_t x0 = mul(t, d), h = fp_half(mul(a.c1, t));
    r = eq(sqr(x0), d) ? fp2_t{x0, h} : fp2_t{h, neg(x0)};
    return eq(sqr(r), a);
}

// cuzk_fp2_is_lexlarger: by c1, or by c0 when c1 = 0.
CUZK_HD bool is_lexlarger(const fp2_t &a) { return is_lexlarger(is_zero(a.c1) ? a.c0 : a.c1); }

// ---- storage <-> compute ------------------------------------------------------------------------

// Plain loads and stores (for data the same kernel may write), and a read-only-path load for
// data no thread writes during the kernel (bases, tables). On the host: plain copies.
CUZK_HD fp_t load(const fp_mem *p) {
    fp_t r;
#ifdef __CUDA_ARCH__
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    CUZK_UNROLL
    for (int i = 0; i < 3; i++) {
        const uint4 v = q[i];
        r.l[4 * i] = v.x;
        r.l[4 * i + 1] = v.y;
        r.l[4 * i + 2] = v.z;
        r.l[4 * i + 3] = v.w;
    }
#else
    for (int i = 0; i < 12; i++) r.l[i] = p->l[i];
#endif
    return r;
}

CUZK_HD fp_t load_ro(const fp_mem *p) {
#ifdef __CUDA_ARCH__
    fp_t r;
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    CUZK_UNROLL
    for (int i = 0; i < 3; i++) {
        const uint4 v = __ldg(q + i);
        r.l[4 * i] = v.x;
        r.l[4 * i + 1] = v.y;
        r.l[4 * i + 2] = v.z;
        r.l[4 * i + 3] = v.w;
    }
    return r;
#else
    return load(p);
#endif
}

CUZK_HD void store(fp_mem *p, const fp_t &a) {
#ifdef __CUDA_ARCH__
    uint4 *q = reinterpret_cast<uint4 *>(p);
    CUZK_UNROLL
    for (int i = 0; i < 3; i++)
        q[i] = make_uint4(a.l[4 * i], a.l[4 * i + 1], a.l[4 * i + 2], a.l[4 * i + 3]);
#else
    for (int i = 0; i < 12; i++) p->l[i] = a.l[i];
#endif
}

CUZK_HD fp2_t load(const fp2_mem *p) { return fp2_t{load(&p->c0), load(&p->c1)}; }
CUZK_HD fp2_t load_ro(const fp2_mem *p) { return fp2_t{load_ro(&p->c0), load_ro(&p->c1)}; }
CUZK_HD void store(fp2_mem *p, const fp2_t &a) {
    store(&p->c0, a.c0);
    store(&p->c1, a.c1);
}

// Load and store of an element in shared memory: on the device p must point there (the host,
// where the twins run, has plain memory). The accesses are volatile, so each load reads memory
// where the source puts it: the compiler neither keeps the registers of an earlier load alive
// in its place nor merges or hoists it, which is the point of keeping a value in shared memory
// (madd_mem, ec.cuh).
CUZK_HD fp_t load_sh(const fp_mem *p) {
#ifdef __CUDA_ARCH__
    fp_t r;
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    CUZK_UNROLL
    for (int i = 0; i < 3; i++)
        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r.l[4 * i]), "=r"(r.l[4 * i + 1]), "=r"(r.l[4 * i + 2]),
                       "=r"(r.l[4 * i + 3])
                     : "r"(a + 16 * i));
    return r;
#else
    return load(p);
#endif
}
CUZK_HD void store_sh(fp_mem *p, const fp_t &v) {
#ifdef __CUDA_ARCH__
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    CUZK_UNROLL
    for (int i = 0; i < 3; i++)
        asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a + 16 * i),
                     "r"(v.l[4 * i]), "r"(v.l[4 * i + 1]), "r"(v.l[4 * i + 2]), "r"(v.l[4 * i + 3])
                     : "memory");
#else
    store(p, v);
#endif
}
CUZK_HD fp2_t load_sh(const fp2_mem *p) { return fp2_t{load_sh(&p->c0), load_sh(&p->c1)}; }
CUZK_HD void store_sh(fp2_mem *p, const fp2_t &a) {
    store_sh(&p->c0, a.c0);
    store_sh(&p->c1, a.c1);
}

// The two fields as template parameters of the curve code (ec.cuh): the storage type and the
// constants of each.
template <class F> struct field_traits;
template <> struct field_traits<fp_t> {
    using mem = fp_mem;
    static CUZK_HD fp_t zero() { return fp_zero(); }
    static CUZK_HD fp_t one() { return fp_one(); }
};
template <> struct field_traits<fp2_t> {
    using mem = fp2_mem;
    static CUZK_HD fp2_t zero() { return fp2_zero(); }
    static CUZK_HD fp2_t one() { return fp2_one(); }
};

} // namespace cuzk_cuda

#endif
