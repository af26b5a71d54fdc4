// Fr on the device: the BLS12-381 scalar field in Montgomery form, 8 x 32-bit limbs.
//
// Promise: the device value of an element is bit-identical to the host's cuzk_fr (src/ff/fr.h):
// the Montgomery value x*R mod r with R = 2^256, fully reduced, stored little-endian. The host
// keeps it as 4 x 64-bit limbs, the device as 8 x 32-bit limbs of the same 256-bit integer, so
// on a little-endian host an array of cuzk_fr crosses cudaMemcpy with no conversion.
//
// Two types: fr_mem is the storage form (what lives in device memory, 16-byte aligned so that an
// element moves as two 128-bit accesses), fr_t the compute form (eight registers). Every
// function takes fully reduced inputs (< r) and returns a fully reduced result by value, so a
// result may overwrite one of its inputs. Nothing here branches on element values except
// fr_pow, whose exponent is public. The carry chains are inline PTX, each chain inside one asm
// statement (the condition-code register does not survive between asm statements).
//
// The constants come from src/ff/ff_constants.h (64-bit limbs, generated and checked there) and
// are split into 32-bit words at compile time; no magic number is retyped here.
#ifndef CUZK_GPU_CUDA_FF_FR_CUH
#define CUZK_GPU_CUDA_FF_FR_CUH

#include <cstdint>

#include "ff/ff_constants.h"

namespace cuzk_cuda {

namespace fr_detail {
struct u64x4 {
    uint64_t w[4];
};
constexpr u64x4 kModulus = {CUZK_FR_MODULUS}; /* r (plain) */
constexpr u64x4 kOne = {CUZK_FR_R1};          /* R mod r: one in Montgomery form */
constexpr u64x4 kR2 = {CUZK_FR_R2};           /* R^2 mod r: converts into Montgomery form */
constexpr uint64_t kM0inv64 = CUZK_FR_M0INV;  /* -r^-1 mod 2^64 */

constexpr uint32_t word(const u64x4 &v, int i) {
    return static_cast<uint32_t>(v.w[i / 2] >> (32 * (i % 2)));
}
} // namespace fr_detail

// Word I of r, of one and of R^2 as scalar compile-time constants (usable in device code).
template <int I> struct fr_p {
    static constexpr uint32_t v = fr_detail::word(fr_detail::kModulus, I);
};
template <int I> struct fr_one_w {
    static constexpr uint32_t v = fr_detail::word(fr_detail::kOne, I);
};
template <int I> struct fr_r2_w {
    static constexpr uint32_t v = fr_detail::word(fr_detail::kR2, I);
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

__device__ __forceinline__ fr_t fr_zero() {
    fr_t r;
#pragma unroll
    for (int i = 0; i < 8; i++) r.l[i] = 0;
    return r;
}

__device__ __forceinline__ fr_t fr_one() {
    fr_t r;
    r.l[0] = fr_one_w<0>::v;
    r.l[1] = fr_one_w<1>::v;
    r.l[2] = fr_one_w<2>::v;
    r.l[3] = fr_one_w<3>::v;
    r.l[4] = fr_one_w<4>::v;
    r.l[5] = fr_one_w<5>::v;
    r.l[6] = fr_one_w<6>::v;
    r.l[7] = fr_one_w<7>::v;
    return r;
}

// R^2 mod r: fr_mul(x, fr_r2()) turns a plain integer x < r into Montgomery form.
__device__ __forceinline__ fr_t fr_r2() {
    fr_t r;
    r.l[0] = fr_r2_w<0>::v;
    r.l[1] = fr_r2_w<1>::v;
    r.l[2] = fr_r2_w<2>::v;
    r.l[3] = fr_r2_w<3>::v;
    r.l[4] = fr_r2_w<4>::v;
    r.l[5] = fr_r2_w<5>::v;
    r.l[6] = fr_r2_w<6>::v;
    r.l[7] = fr_r2_w<7>::v;
    return r;
}

// ---- storage <-> registers ------------------------------------------------------------------

__device__ __forceinline__ fr_t fr_from_words(uint4 lo, uint4 hi) {
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
__device__ __forceinline__ uint4 fr_lo_words(const fr_t &a) {
    return make_uint4(a.l[0], a.l[1], a.l[2], a.l[3]);
}
__device__ __forceinline__ uint4 fr_hi_words(const fr_t &a) {
    return make_uint4(a.l[4], a.l[5], a.l[6], a.l[7]);
}

// Plain (coherent) load and store: for data that the same kernel may write.
__device__ __forceinline__ fr_t fr_load(const fr_mem *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return fr_from_words(q[0], q[1]);
}
// Read-only-path load: only for data no thread writes during the kernel (tables).
__device__ __forceinline__ fr_t fr_load_ro(const fr_mem *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return fr_from_words(__ldg(q), __ldg(q + 1));
}
__device__ __forceinline__ void fr_store(fr_mem *p, const fr_t &a) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = fr_lo_words(a);
    q[1] = fr_hi_words(a);
}

// ---- arithmetic -----------------------------------------------------------------------------

// t - r if t >= r, else t; t < 2r.
__device__ __forceinline__ fr_t fr_reduce_once(const fr_t &t) {
    fr_t s;
    uint32_t keep; // all ones when t < r (the subtraction borrowed)
    asm("sub.cc.u32 %0, %9, %17;\n\t"
        "subc.cc.u32 %1, %10, %18;\n\t"
        "subc.cc.u32 %2, %11, %19;\n\t"
        "subc.cc.u32 %3, %12, %20;\n\t"
        "subc.cc.u32 %4, %13, %21;\n\t"
        "subc.cc.u32 %5, %14, %22;\n\t"
        "subc.cc.u32 %6, %15, %23;\n\t"
        "subc.cc.u32 %7, %16, %24;\n\t"
        "subc.u32 %8, 0, 0;"
        : "=r"(s.l[0]), "=r"(s.l[1]), "=r"(s.l[2]), "=r"(s.l[3]), "=r"(s.l[4]), "=r"(s.l[5]),
          "=r"(s.l[6]), "=r"(s.l[7]), "=r"(keep)
        : "r"(t.l[0]), "r"(t.l[1]), "r"(t.l[2]), "r"(t.l[3]), "r"(t.l[4]), "r"(t.l[5]), "r"(t.l[6]),
          "r"(t.l[7]), "r"(fr_p<0>::v), "r"(fr_p<1>::v), "r"(fr_p<2>::v), "r"(fr_p<3>::v),
          "r"(fr_p<4>::v), "r"(fr_p<5>::v), "r"(fr_p<6>::v), "r"(fr_p<7>::v));
    fr_t r;
#pragma unroll
    for (int i = 0; i < 8; i++) r.l[i] = (t.l[i] & keep) | (s.l[i] & ~keep);
    return r;
}

__device__ __forceinline__ fr_t fr_add(const fr_t &a, const fr_t &b) {
    fr_t t = a; // a + b < 2r < 2^256: no carry out of the top word
    asm("add.cc.u32 %0, %0, %8;\n\t"
        "addc.cc.u32 %1, %1, %9;\n\t"
        "addc.cc.u32 %2, %2, %10;\n\t"
        "addc.cc.u32 %3, %3, %11;\n\t"
        "addc.cc.u32 %4, %4, %12;\n\t"
        "addc.cc.u32 %5, %5, %13;\n\t"
        "addc.cc.u32 %6, %6, %14;\n\t"
        "addc.u32 %7, %7, %15;"
        : "+r"(t.l[0]), "+r"(t.l[1]), "+r"(t.l[2]), "+r"(t.l[3]), "+r"(t.l[4]), "+r"(t.l[5]),
          "+r"(t.l[6]), "+r"(t.l[7])
        : "r"(b.l[0]), "r"(b.l[1]), "r"(b.l[2]), "r"(b.l[3]), "r"(b.l[4]), "r"(b.l[5]), "r"(b.l[6]),
          "r"(b.l[7]));
    return fr_reduce_once(t);
}

__device__ __forceinline__ fr_t fr_sub(const fr_t &a, const fr_t &b) {
    fr_t t = a;
    uint32_t borrow; // all ones when a < b
    asm("sub.cc.u32 %0, %0, %9;\n\t"
        "subc.cc.u32 %1, %1, %10;\n\t"
        "subc.cc.u32 %2, %2, %11;\n\t"
        "subc.cc.u32 %3, %3, %12;\n\t"
        "subc.cc.u32 %4, %4, %13;\n\t"
        "subc.cc.u32 %5, %5, %14;\n\t"
        "subc.cc.u32 %6, %6, %15;\n\t"
        "subc.cc.u32 %7, %7, %16;\n\t"
        "subc.u32 %8, 0, 0;"
        : "+r"(t.l[0]), "+r"(t.l[1]), "+r"(t.l[2]), "+r"(t.l[3]), "+r"(t.l[4]), "+r"(t.l[5]),
          "+r"(t.l[6]), "+r"(t.l[7]), "=r"(borrow)
        : "r"(b.l[0]), "r"(b.l[1]), "r"(b.l[2]), "r"(b.l[3]), "r"(b.l[4]), "r"(b.l[5]), "r"(b.l[6]),
          "r"(b.l[7]));
    // a - b + 2^256 when it borrowed: adding r wraps it back to a - b + r, which is in range
    asm("add.cc.u32 %0, %0, %8;\n\t"
        "addc.cc.u32 %1, %1, %9;\n\t"
        "addc.cc.u32 %2, %2, %10;\n\t"
        "addc.cc.u32 %3, %3, %11;\n\t"
        "addc.cc.u32 %4, %4, %12;\n\t"
        "addc.cc.u32 %5, %5, %13;\n\t"
        "addc.cc.u32 %6, %6, %14;\n\t"
        "addc.u32 %7, %7, %15;"
        : "+r"(t.l[0]), "+r"(t.l[1]), "+r"(t.l[2]), "+r"(t.l[3]), "+r"(t.l[4]), "+r"(t.l[5]),
          "+r"(t.l[6]), "+r"(t.l[7])
        : "r"(fr_p<0>::v & borrow), "r"(fr_p<1>::v & borrow), "r"(fr_p<2>::v & borrow),
          "r"(fr_p<3>::v & borrow), "r"(fr_p<4>::v & borrow), "r"(fr_p<5>::v & borrow),
          "r"(fr_p<6>::v & borrow), "r"(fr_p<7>::v & borrow));
    return t;
}

__device__ __forceinline__ fr_t fr_neg(const fr_t &a) { return fr_sub(fr_zero(), a); }

// a * b / 2^256 mod r: CIOS Montgomery multiplication, one 32-bit word b_i of b per step, with
// the partial products split by the parity of their word index so that every carry chain adds
// the low and the high half of one 32 x 32-bit product to two adjacent words (the form the
// hardware's wide multiply-add with carry executes as one instruction):
//   x (9 words) holds the words at even offsets' products:  x += a_(2k) b_i at words 2k, 2k+1;
//   y (8 words, one word up) holds the odd ones:             y  = a_(2k+1) b_i at words 2k, 2k+1
//     of y, i.e. words 2k+1, 2k+2 of the sum (they do not overlap: four plain wide products);
//   m = -x_0 (r = 1 mod 2^32, so -r^-1 = -1 and m r_0 = m), x += m r_(even), y += m r_(odd);
//   then x_0 = 0 and the sum divided by 2^32 is (x >> 32) + y, one addition chain.
// With x + 2^32 y < 2r on entry, the sum stays below 2^33 r < 2^288, so x never carries out of
// its ninth word and y (= at most the sum / 2^32) fits eight words; after the step the sum is
// below 2r again, and one conditional subtraction at the end reduces it.
__device__ __forceinline__ fr_t fr_mul(const fr_t &a, const fr_t &b) {
    uint32_t x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0, x8 = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        asm("{\n\t"
            ".reg .u32 m, y0, y1, y2, y3, y4, y5, y6, y7;\n\t"
            ".reg .u64 w;\n\t"
            // x += a_even b_i
            "mad.lo.cc.u32 %0, %9, %17, %0;\n\t"
            "madc.hi.cc.u32 %1, %9, %17, %1;\n\t"
            "madc.lo.cc.u32 %2, %11, %17, %2;\n\t"
            "madc.hi.cc.u32 %3, %11, %17, %3;\n\t"
            "madc.lo.cc.u32 %4, %13, %17, %4;\n\t"
            "madc.hi.cc.u32 %5, %13, %17, %5;\n\t"
            "madc.lo.cc.u32 %6, %15, %17, %6;\n\t"
            "madc.hi.cc.u32 %7, %15, %17, %7;\n\t"
            "addc.u32 %8, %8, 0;\n\t"
            // y = a_odd b_i
            "mul.wide.u32 w, %10, %17;\n\t"
            "mov.b64 {y0, y1}, w;\n\t"
            "mul.wide.u32 w, %12, %17;\n\t"
            "mov.b64 {y2, y3}, w;\n\t"
            "mul.wide.u32 w, %14, %17;\n\t"
            "mov.b64 {y4, y5}, w;\n\t"
            "mul.wide.u32 w, %16, %17;\n\t"
            "mov.b64 {y6, y7}, w;\n\t"
            // m = -x0; x += m r_even (m r_0 = m)
            "sub.u32 m, 0, %0;\n\t"
            "add.cc.u32 %0, %0, m;\n\t"
            "addc.cc.u32 %1, %1, 0;\n\t"
            "madc.lo.cc.u32 %2, m, %19, %2;\n\t"
            "madc.hi.cc.u32 %3, m, %19, %3;\n\t"
            "madc.lo.cc.u32 %4, m, %21, %4;\n\t"
            "madc.hi.cc.u32 %5, m, %21, %5;\n\t"
            "madc.lo.cc.u32 %6, m, %23, %6;\n\t"
            "madc.hi.cc.u32 %7, m, %23, %7;\n\t"
            "addc.u32 %8, %8, 0;\n\t"
            // y += m r_odd
            "mad.lo.cc.u32 y0, m, %18, y0;\n\t"
            "madc.hi.cc.u32 y1, m, %18, y1;\n\t"
            "madc.lo.cc.u32 y2, m, %20, y2;\n\t"
            "madc.hi.cc.u32 y3, m, %20, y3;\n\t"
            "madc.lo.cc.u32 y4, m, %22, y4;\n\t"
            "madc.hi.cc.u32 y5, m, %22, y5;\n\t"
            "madc.lo.cc.u32 y6, m, %24, y6;\n\t"
            "madc.hi.u32 y7, m, %24, y7;\n\t"
            // x <- (x >> 32) + y
            "add.cc.u32 %0, %1, y0;\n\t"
            "addc.cc.u32 %1, %2, y1;\n\t"
            "addc.cc.u32 %2, %3, y2;\n\t"
            "addc.cc.u32 %3, %4, y3;\n\t"
            "addc.cc.u32 %4, %5, y4;\n\t"
            "addc.cc.u32 %5, %6, y5;\n\t"
            "addc.cc.u32 %6, %7, y6;\n\t"
            "addc.cc.u32 %7, %8, y7;\n\t"
            "addc.u32 %8, 0, 0;\n\t"
            "}"
            : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7),
              "+r"(x8)
            : "r"(a.l[0]), "r"(a.l[1]), "r"(a.l[2]), "r"(a.l[3]), "r"(a.l[4]), "r"(a.l[5]),
              "r"(a.l[6]), "r"(a.l[7]), "r"(b.l[i]), "r"(fr_p<1>::v), "r"(fr_p<2>::v),
              "r"(fr_p<3>::v), "r"(fr_p<4>::v), "r"(fr_p<5>::v), "r"(fr_p<6>::v), "r"(fr_p<7>::v));
    }
    fr_t t;
    t.l[0] = x0;
    t.l[1] = x1;
    t.l[2] = x2;
    t.l[3] = x3;
    t.l[4] = x4;
    t.l[5] = x5;
    t.l[6] = x6;
    t.l[7] = x7;
    (void)x8; // zero: the result is below 2r < 2^256
    return fr_reduce_once(t);
}

__device__ __forceinline__ fr_t fr_sqr(const fr_t &a) { return fr_mul(a, a); }

// a^e by square-and-multiply from the top bit (e is public: the loop length depends on it).
__device__ __forceinline__ fr_t fr_pow(const fr_t &a, uint64_t e) {
    fr_t r = fr_one();
    if (e == 0) return r;
    for (int bit = 63 - __clzll(static_cast<long long>(e)); bit >= 0; bit--) {
        r = fr_sqr(r);
        if ((e >> bit) & 1) r = fr_mul(r, a);
    }
    return r;
}

} // namespace cuzk_cuda

#endif
