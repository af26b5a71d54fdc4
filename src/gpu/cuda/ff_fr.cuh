// Fr on the device and on the host: the BLS12-381 scalar field in Montgomery form, 8 x 32-bit
// limbs.
//
// Promise: the value of an element is bit-identical to the host's cuzk_fr (src/ff/fr.h): the
// Montgomery value x*R mod r with R = 2^256, fully reduced, stored little-endian. The host
// library keeps it as 4 x 64-bit limbs, this code as 8 x 32-bit limbs of the same 256-bit
// integer, so on a little-endian host an array of cuzk_fr crosses cudaMemcpy with no conversion.
//
// Every function is __host__ __device__, as in ff_fp.cuh: on the device the carry chains are
// inline PTX (one chain per asm statement: the condition-code register does not survive between
// statements), on the host the same chains are portable C++ with 64-bit intermediates. The
// chains (fr_chain_*) are the only code that differs between the two, so the host twins of the
// kernels built on this file (the NTT's, src/gpu/gpu_twin.h) check everything but the PTX
// spelling of the chains, which the device checks (cuzk_gpu_fr_eval) cover.
//
// Two types: fr_mem is the storage form (what lives in device memory, 16-byte aligned so that an
// element moves as two 128-bit accesses), fr_t the compute form (eight registers). Every
// function takes fully reduced inputs (< r) and returns a fully reduced result by value, so a
// result may overwrite one of its inputs. Nothing here branches on element values except
// fr_pow, whose exponent is public.
//
// The constants come from src/ff/ff_constants.h (64-bit limbs, generated and checked there) and
// are split into 32-bit words at compile time; no magic number is retyped here.
#ifndef CUZK_GPU_CUDA_FF_FR_CUH
#define CUZK_GPU_CUDA_FF_FR_CUH

#include <cstdint>

#include "ff/ff_constants.h"
#include "gpu/cuda/ff_host_chain.cuh"

#ifndef CUZK_HD
#define CUZK_HD __host__ __device__ __forceinline__
#endif
// Loop unrolling hints for the device pass only (the host compiler does not know the pragma).
#ifndef CUZK_UNROLL
#ifdef __CUDA_ARCH__
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif
#endif

namespace cuzk_cuda {

namespace fr_detail {
struct u64x4 {
    uint64_t w[4];
};
constexpr u64x4 kModulus = {CUZK_FR_MODULUS}; /* r (plain) */
constexpr uint64_t kM0inv64 = CUZK_FR_M0INV;  /* -r^-1 mod 2^64 */

constexpr uint32_t word(const u64x4 &v, int i) {
    return static_cast<uint32_t>(v.w[i / 2] >> (32 * (i % 2)));
}
} // namespace fr_detail

// Word I of r as a scalar compile-time constant (usable in device code and asm operands).
template <int I> struct fr_p {
    static constexpr uint32_t v = fr_detail::word(fr_detail::kModulus, I);
};
/* -r^-1 mod 2^32: the low word of -r^-1 mod 2^64 */
constexpr uint32_t kFrM0inv = static_cast<uint32_t>(fr_detail::kM0inv64);

// The multiplication below uses two facts about r: r = 1 mod 2^32 (so -r^-1 = -1 mod 2^32, the
// reduction factor is m = -t0 and m * r0 = m), and r < 2^255 (so every intermediate sum of the
// CIOS loop fits in nine words, and a + b < 2^256).
static_assert(fr_p<0>::v == 1, "Fr multiplication assumes r = 1 mod 2^32");
static_assert(kFrM0inv == 0xffffffffu, "Fr multiplication assumes -r^-1 = -1 mod 2^32");
static_assert(fr_p<7>::v < 0x80000000u, "Fr arithmetic assumes r < 2^255");

struct __align__(16) fr_mem {
    uint32_t l[8];
};

struct fr_t {
    uint32_t l[8];
};

CUZK_HD fr_t fr_zero() {
    fr_t r;
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) r.l[i] = 0;
    return r;
}

// An element from four 64-bit limbs (the layout of ff_constants.h and of cuzk_fr).
CUZK_HD constexpr fr_t fr_from_u64(const fr_detail::u64x4 &v) {
    fr_t r{};
    for (int i = 0; i < 8; i++) r.l[i] = static_cast<uint32_t>(v.w[i / 2] >> (32 * (i % 2)));
    return r;
}

/* R mod r: one in Montgomery form */
CUZK_HD constexpr fr_t fr_one() { return fr_from_u64(fr_detail::u64x4{CUZK_FR_R1}); }

// R^2 mod r: fr_mul(x, fr_r2()) turns a plain integer x < r into Montgomery form.
CUZK_HD constexpr fr_t fr_r2() { return fr_from_u64(fr_detail::u64x4{CUZK_FR_R2}); }

// r as eight words.
CUZK_HD constexpr fr_t fr_modulus() { return fr_from_u64(fr_detail::u64x4{CUZK_FR_MODULUS}); }

// ---- storage <-> registers ------------------------------------------------------------------

CUZK_HD fr_t fr_from_words(uint4 lo, uint4 hi) {
    fr_t r;
    r.l[0] = lo.x;
    r.l[1] = lo.y;
    r.l[2] = lo.z;
    r.l[3] = lo.w;
    r.l[4] = hi.x;
    r.l[5] = hi.y;
    r.l[6] = hi.z;
    r.l[7] = hi.w;
    return r;
}
CUZK_HD uint4 fr_lo_words(const fr_t &a) { return make_uint4(a.l[0], a.l[1], a.l[2], a.l[3]); }
CUZK_HD uint4 fr_hi_words(const fr_t &a) { return make_uint4(a.l[4], a.l[5], a.l[6], a.l[7]); }

// Plain (coherent) load and store: for data that the same kernel may write.
CUZK_HD fr_t fr_load(const fr_mem *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return fr_from_words(q[0], q[1]);
}
// Read-only-path load: only for data no thread writes during the kernel (tables). On the host:
// a plain load.
CUZK_HD fr_t fr_load_ro(const fr_mem *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
#ifdef __CUDA_ARCH__
    return fr_from_words(__ldg(q), __ldg(q + 1));
#else
    return fr_from_words(q[0], q[1]);
#endif
}
CUZK_HD void fr_store(fr_mem *p, const fr_t &a) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = fr_lo_words(a);
    q[1] = fr_hi_words(a);
}

// ---- the carry chains: PTX on the device, C++ on the host -----------------------------------
// The callers' bounds guarantee that the chains documented as not carrying out never do.

// r -= b over 8 words (mod 2^256); returns all ones if it borrowed (r < b), else 0.
CUZK_HD uint32_t fr_chain_sub(uint32_t r[8], const uint32_t b[8]) {
    uint32_t mask;
#ifdef __CUDA_ARCH__
    asm("sub.cc.u32 %0, %0, %9;\n\t"
        "subc.cc.u32 %1, %1, %10;\n\t"
        "subc.cc.u32 %2, %2, %11;\n\t"
        "subc.cc.u32 %3, %3, %12;\n\t"
        "subc.cc.u32 %4, %4, %13;\n\t"
        "subc.cc.u32 %5, %5, %14;\n\t"
        "subc.cc.u32 %6, %6, %15;\n\t"
        "subc.cc.u32 %7, %7, %16;\n\t"
        "subc.u32 %8, 0, 0;"
        : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]),
          "+r"(r[7]), "=r"(mask)
        : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]));
#else
    uint64_t borrow = 0;
    for (int i = 0; i < 8; i++) {
        const uint64_t s = static_cast<uint64_t>(r[i]) - b[i] - borrow;
        r[i] = static_cast<uint32_t>(s);
        borrow = s >> 63; // the difference is above -2^33: negative iff the top bit is set
    }
    mask = static_cast<uint32_t>(0) - static_cast<uint32_t>(borrow);
#endif
    return mask;
}

// r += b over 8 words, carry out dropped (the sum is taken mod 2^256).
CUZK_HD void fr_chain_add(uint32_t r[8], const uint32_t b[8]) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %0, %8;\n\t"
        "addc.cc.u32 %1, %1, %9;\n\t"
        "addc.cc.u32 %2, %2, %10;\n\t"
        "addc.cc.u32 %3, %3, %11;\n\t"
        "addc.cc.u32 %4, %4, %12;\n\t"
        "addc.cc.u32 %5, %5, %13;\n\t"
        "addc.cc.u32 %6, %6, %14;\n\t"
        "addc.u32 %7, %7, %15;"
        : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]),
          "+r"(r[7])
        : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]));
#else
    uint64_t c = 0;
    for (int i = 0; i < 8; i++) {
        const uint64_t s = static_cast<uint64_t>(r[i]) + b[i] + c;
        r[i] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
#endif
}

// The five chains of one step of fr_mul (see there).

// x (9 words) += sum over k < 4 of a[2k] w at words 2k, 2k + 1. No carry out of x[8].
CUZK_HD void fr_chain_madd_even(uint32_t x[9], const uint32_t a[8], uint32_t w) {
#ifdef __CUDA_ARCH__
    asm("mad.lo.cc.u32 %0, %9, %13, %0;\n\t"
        "madc.hi.cc.u32 %1, %9, %13, %1;\n\t"
        "madc.lo.cc.u32 %2, %10, %13, %2;\n\t"
        "madc.hi.cc.u32 %3, %10, %13, %3;\n\t"
        "madc.lo.cc.u32 %4, %11, %13, %4;\n\t"
        "madc.hi.cc.u32 %5, %11, %13, %5;\n\t"
        "madc.lo.cc.u32 %6, %12, %13, %6;\n\t"
        "madc.hi.cc.u32 %7, %12, %13, %7;\n\t"
        "addc.u32 %8, %8, 0;"
        : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]),
          "+r"(x[7]), "+r"(x[8])
        : "r"(a[0]), "r"(a[2]), "r"(a[4]), "r"(a[6]), "r"(w));
#else
    x[8] += static_cast<uint32_t>(host_mac_pairs(x, a, 2, w, 0, 4, 0));
#endif
}

// y (8 words) = sum over k < 4 of a[2k + 1] w at words 2k, 2k + 1: four plain wide products
// that do not overlap.
CUZK_HD void fr_chain_mul_odd(uint32_t y[8], const uint32_t a[8], uint32_t w) {
#ifdef __CUDA_ARCH__
    asm("{\n\t"
        ".reg .u64 w;\n\t"
        "mul.wide.u32 w, %8, %12;\n\t"
        "mov.b64 {%0, %1}, w;\n\t"
        "mul.wide.u32 w, %9, %12;\n\t"
        "mov.b64 {%2, %3}, w;\n\t"
        "mul.wide.u32 w, %10, %12;\n\t"
        "mov.b64 {%4, %5}, w;\n\t"
        "mul.wide.u32 w, %11, %12;\n\t"
        "mov.b64 {%6, %7}, w;\n\t"
        "}"
        : "=r"(y[0]), "=r"(y[1]), "=r"(y[2]), "=r"(y[3]), "=r"(y[4]), "=r"(y[5]), "=r"(y[6]),
          "=r"(y[7])
        : "r"(a[1]), "r"(a[3]), "r"(a[5]), "r"(a[7]), "r"(w));
#else
    for (int k = 0; k < 4; k++) {
        const uint64_t p = static_cast<uint64_t>(a[2 * k + 1]) * w;
        y[2 * k] = static_cast<uint32_t>(p);
        y[2 * k + 1] = static_cast<uint32_t>(p >> 32);
    }
#endif
}

// m = -x[0] (the reduction factor: r = 1 mod 2^32, so -r^-1 = -1) and hi1 = m - [m != 0] (the
// high word of m r_1, for fr_chain_redc_odd: the subtraction's borrow), then x (9 words) +=
// m r_even at words 2k, 2k + 1 (m r_0 = m); returns m. No carry out of x[8]. (m is computed
// inside the chain's asm statement: computed outside it, ptxas no longer fuses the chain's
// multiply-add pairs into wide ones, 48 more multiplier instructions per multiplication.)
CUZK_HD uint32_t fr_chain_redc_even(uint32_t x[9], uint32_t *hi1) {
    uint32_t m, h;
#ifdef __CUDA_ARCH__
    asm("sub.cc.u32 %9, 0, %0;\n\t"
        "subc.u32 %10, %9, 0;\n\t"
        "add.cc.u32 %0, %0, %9;\n\t"
        "addc.cc.u32 %1, %1, 0;\n\t"
        "madc.lo.cc.u32 %2, %9, %11, %2;\n\t"
        "madc.hi.cc.u32 %3, %9, %11, %3;\n\t"
        "madc.lo.cc.u32 %4, %9, %12, %4;\n\t"
        "madc.hi.cc.u32 %5, %9, %12, %5;\n\t"
        "madc.lo.cc.u32 %6, %9, %13, %6;\n\t"
        "madc.hi.cc.u32 %7, %9, %13, %7;\n\t"
        "addc.u32 %8, %8, 0;"
        : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]),
          "+r"(x[7]), "+r"(x[8]), "=&r"(m), "=&r"(h)
        : "r"(fr_p<2>::v), "r"(fr_p<4>::v), "r"(fr_p<6>::v));
#else
    m = 0u - x[0];
    h = m - (x[0] != 0 ? 1u : 0u);
    const uint32_t r[3] = {fr_p<2>::v, fr_p<4>::v, fr_p<6>::v};
    uint64_t s = static_cast<uint64_t>(x[0]) + m;
    x[0] = static_cast<uint32_t>(s);
    s = static_cast<uint64_t>(x[1]) + (s >> 32);
    x[1] = static_cast<uint32_t>(s);
    x[8] += static_cast<uint32_t>(host_mac_pairs(x, r, 1, m, 1, 4, s >> 32)); // m r[k - 1]
#endif
    *hi1 = h;
    return m;
}

// y (8 words) += m r_odd: m r_(2k+1) at words 2k, 2k + 1, given x0 = -m mod 2^32 (the word
// that m cancels) and hi1 from fr_chain_redc_even. No carry out of y[7]. r_1 = 2^32 - 1, so
// m r_1 = (m - c) 2^32 + (c 2^32 - m) with c = [m != 0]: its words are x0 and hi1 = m - c,
// which the integer ALU makes in place of the multiplier (on sm_90 a wide product occupies the
// multiplier pipe twice as long as an ALU instruction its pipe, and the NTT is bound by the
// multiplier).
CUZK_HD void fr_chain_redc_odd(uint32_t y[8], uint32_t m, uint32_t x0, uint32_t hi1) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %0, %9;\n\t"
        "addc.cc.u32 %1, %1, %10;\n\t"
        "madc.lo.cc.u32 %2, %8, %11, %2;\n\t"
        "madc.hi.cc.u32 %3, %8, %11, %3;\n\t"
        "madc.lo.cc.u32 %4, %8, %12, %4;\n\t"
        "madc.hi.cc.u32 %5, %8, %12, %5;\n\t"
        "madc.lo.cc.u32 %6, %8, %13, %6;\n\t"
        "madc.hi.u32 %7, %8, %13, %7;"
        : "+r"(y[0]), "+r"(y[1]), "+r"(y[2]), "+r"(y[3]), "+r"(y[4]), "+r"(y[5]), "+r"(y[6]),
          "+r"(y[7])
        : "r"(m), "r"(x0), "r"(hi1), "r"(fr_p<3>::v), "r"(fr_p<5>::v), "r"(fr_p<7>::v));
#else
    const uint32_t r[3] = {fr_p<3>::v, fr_p<5>::v, fr_p<7>::v};
    uint64_t s = static_cast<uint64_t>(y[0]) + x0;
    y[0] = static_cast<uint32_t>(s);
    s = static_cast<uint64_t>(y[1]) + hi1 + (s >> 32);
    y[1] = static_cast<uint32_t>(s);
    (void)host_mac_pairs(y, r, 1, m, 1, 4, s >> 32); // m r[k - 1]; no carry out of y[7]
#endif
}

// x <- (x >> 32) + y: x[i] = x[i + 1] + y[i] for i < 8 with carries, x[8] = the carry out.
CUZK_HD void fr_chain_shift_add(uint32_t x[9], const uint32_t y[8]) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %1, %9;\n\t"
        "addc.cc.u32 %1, %2, %10;\n\t"
        "addc.cc.u32 %2, %3, %11;\n\t"
        "addc.cc.u32 %3, %4, %12;\n\t"
        "addc.cc.u32 %4, %5, %13;\n\t"
        "addc.cc.u32 %5, %6, %14;\n\t"
        "addc.cc.u32 %6, %7, %15;\n\t"
        "addc.cc.u32 %7, %8, %16;\n\t"
        "addc.u32 %8, 0, 0;"
        : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]),
          "+r"(x[7]), "+r"(x[8])
        : "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]), "r"(y[4]), "r"(y[5]), "r"(y[6]), "r"(y[7]));
#else
    uint64_t c = 0;
    for (int i = 0; i < 8; i++) {
        const uint64_t s = static_cast<uint64_t>(x[i + 1]) + y[i] + c;
        x[i] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
    x[8] = static_cast<uint32_t>(c);
#endif
}

// ---- arithmetic -----------------------------------------------------------------------------

// t - r if t >= r, else t; t < 2r.
CUZK_HD fr_t fr_reduce_once(const fr_t &t) {
    const fr_t p = fr_modulus();
    fr_t s = t;
    const uint32_t keep = fr_chain_sub(s.l, p.l); // all ones when t < r (the subtraction borrowed)
    fr_t r;
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) r.l[i] = (t.l[i] & keep) | (s.l[i] & ~keep);
    return r;
}

CUZK_HD fr_t fr_add(const fr_t &a, const fr_t &b) {
    fr_t t = a; // a + b < 2r < 2^256: no carry out of the top word
    fr_chain_add(t.l, b.l);
    return fr_reduce_once(t);
}

CUZK_HD fr_t fr_sub(const fr_t &a, const fr_t &b) {
    const fr_t p = fr_modulus();
    fr_t t = a;
    const uint32_t borrow = fr_chain_sub(t.l, b.l); // all ones when a < b
    // a - b + 2^256 when it borrowed: adding r wraps it back to a - b + r, which is in range
    fr_t q;
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) q.l[i] = p.l[i] & borrow;
    fr_chain_add(t.l, q.l);
    return t;
}

CUZK_HD fr_t fr_neg(const fr_t &a) { return fr_sub(fr_zero(), a); }

// a * b / 2^256 mod r: CIOS Montgomery multiplication, one 32-bit word b_i of b per step, with
// the partial products split by the parity of their word index so that every carry chain adds
// the low and the high half of one 32 x 32-bit product to two adjacent words (the form the
// hardware's wide multiply-add with carry executes as one instruction):
//   x (9 words) holds the words at even offsets' products:  x += a_(2k) b_i at words 2k, 2k+1;
//   y (8 words, one word up) holds the odd ones:             y  = a_(2k+1) b_i at words 2k, 2k+1
//     of y, i.e. words 2k+1, 2k+2 of the sum (they do not overlap: four plain wide products);
//   m = -x_0 (r = 1 mod 2^32, so -r^-1 = -1 and m r_0 = m), x += m r_(even), y += m r_(odd)
//     (m r_1 without a multiplication: r_1 = 2^32 - 1, see fr_chain_redc_odd);
//   then x_0 = 0 and the sum divided by 2^32 is (x >> 32) + y, one addition chain.
// With x + 2^32 y < 2r on entry, the sum stays below 2^33 r < 2^288, so x never carries out of
// its ninth word and y (= at most the sum / 2^32) fits eight words; after the step the sum is
// below 2r again, and one conditional subtraction at the end reduces it.
CUZK_HD fr_t fr_mul(const fr_t &a, const fr_t &b) {
    uint32_t x[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) {
        uint32_t y[8];
        fr_chain_madd_even(x, a.l, b.l[i]);
        fr_chain_mul_odd(y, a.l, b.l[i]);
        uint32_t hi1;
        const uint32_t x0 = x[0], m = fr_chain_redc_even(x, &hi1);
        fr_chain_redc_odd(y, m, x0, hi1);
        fr_chain_shift_add(x, y);
    }
    fr_t t;
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) t.l[i] = x[i]; // x[8] is zero: the result is below 2r < 2^256
    return fr_reduce_once(t);
}

CUZK_HD fr_t fr_sqr(const fr_t &a) { return fr_mul(a, a); }

// The index of the highest set bit of e != 0.
CUZK_HD int fr_top_bit(uint64_t e) {
#ifdef __CUDA_ARCH__
    return 63 - __clzll(static_cast<long long>(e));
#else
    return 63 - __builtin_clzll(e);
#endif
}

// a^e by square-and-multiply from the top bit (e is public: the loop length depends on it).
CUZK_HD fr_t fr_pow(const fr_t &a, uint64_t e) {
    fr_t r = fr_one();
    if (e == 0) return r;
    for (int bit = fr_top_bit(e); bit >= 0; bit--) {
        r = fr_sqr(r);
        if ((e >> bit) & 1) r = fr_mul(r, a);
    }
    return r;
}

} // namespace cuzk_cuda

#endif
