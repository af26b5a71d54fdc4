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

// The chains of fr_mul (see there). Its running sum is T = e + 2^32 o: e holds eight words at
// place values 0..7, o eight words at place values 1..8.

// e (8 words) += sum over k < 4 of a[2k] w at words 2k, 2k + 1; the carry out of e[7] (place
// value 8) is added to top (o's top word, the same place). No carry out of top.
CUZK_HD void fr_chain_madd_even(uint32_t e[8], uint32_t &top, const uint32_t a[8], uint32_t w) {
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
        : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]), "+r"(e[4]), "+r"(e[5]), "+r"(e[6]),
          "+r"(e[7]), "+r"(top)
        : "r"(a[0]), "r"(a[2]), "r"(a[4]), "r"(a[6]), "r"(w));
#else
    top += static_cast<uint32_t>(host_mac_pairs(e, a, 2, w, 0, 4, 0));
#endif
}

// y (8 words) = sum over k < 4 of a[OFF + 2k] w at words 2k, 2k + 1: four plain wide products
// that do not overlap (OFF = 0: the even words of a, OFF = 1: the odd ones).
template <int OFF> CUZK_HD void fr_chain_mul_pairs(uint32_t y[8], const uint32_t a[8], uint32_t w) {
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
        : "r"(a[OFF]), "r"(a[OFF + 2]), "r"(a[OFF + 4]), "r"(a[OFF + 6]), "r"(w));
#else
    for (int k = 0; k < 4; k++) {
        const uint64_t p = static_cast<uint64_t>(a[OFF + 2 * k]) * w;
        y[2 * k] = static_cast<uint32_t>(p);
        y[2 * k + 1] = static_cast<uint32_t>(p >> 32);
    }
#endif
}

// The step's division by 2^32 folded into its odd products: given the previous step's e (whose
// word 0 the reduction cleared) and the new e0 (the previous o's word 0), e0 += e[1] and
// o (8 words, fresh) = e[2..7] + sum over k < 4 of a[2k + 1] w at words 2k, 2k + 1, with the
// carry of e0 + e[1] entering at o's word 0 (place value 1, as e0's word is place value 0).
// So (e >> 32) + previous o, the step's quotient, is never formed: e's words move down two
// places as the addends of the products. No carry out of o[7].
CUZK_HD void fr_chain_shift_madd_odd(uint32_t o[8], uint32_t &e0, const uint32_t e[8],
                                     const uint32_t a[8], uint32_t w) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %8, %8, %9;\n\t"
        "madc.lo.cc.u32 %0, %16, %20, %10;\n\t"
        "madc.hi.cc.u32 %1, %16, %20, %11;\n\t"
        "madc.lo.cc.u32 %2, %17, %20, %12;\n\t"
        "madc.hi.cc.u32 %3, %17, %20, %13;\n\t"
        "madc.lo.cc.u32 %4, %18, %20, %14;\n\t"
        "madc.hi.cc.u32 %5, %18, %20, %15;\n\t"
        "madc.lo.cc.u32 %6, %19, %20, %21;\n\t"
        "madc.hi.u32 %7, %19, %20, %21;"
        : "=&r"(o[0]), "=&r"(o[1]), "=&r"(o[2]), "=&r"(o[3]), "=&r"(o[4]), "=&r"(o[5]), "=&r"(o[6]),
          "=&r"(o[7]), "+r"(e0)
        : "r"(e[1]), "r"(e[2]), "r"(e[3]), "r"(e[4]), "r"(e[5]), "r"(e[6]), "r"(e[7]), "r"(a[1]),
          "r"(a[3]), "r"(a[5]), "r"(a[7]), "r"(w), "r"(0u));
#else
    uint64_t s = static_cast<uint64_t>(e0) + e[1];
    e0 = static_cast<uint32_t>(s);
    uint64_t c = s >> 32;
    for (int k = 0; k < 4; k++) {
        const uint64_t p = static_cast<uint64_t>(a[2 * k + 1]) * w;
        s = static_cast<uint64_t>(static_cast<uint32_t>(p)) + (k < 3 ? e[2 * k + 2] : 0u) + c;
        o[2 * k] = static_cast<uint32_t>(s);
        c = s >> 32;
        s = (p >> 32) + (k < 3 ? e[2 * k + 3] : 0u) + c;
        o[2 * k + 1] = static_cast<uint32_t>(s);
        c = s >> 32; // zero after the last word
    }
#endif
}

// m = -e[0] (the reduction factor: r = 1 mod 2^32, so -r^-1 = -1) and hi1 = m - [m != 0] (the
// high word of m r_1, for fr_chain_redc_odd: the subtraction's borrow), then e (8 words) +=
// m r_even at words 2k, 2k + 1 (m r_0 = m), the carry out of e[7] added to top (as in
// fr_chain_madd_even); returns m. (m is computed inside the chain's asm statement: computed
// outside it, ptxas no longer fuses the chain's multiply-add pairs into wide ones, 48 more
// multiplier instructions per multiplication.)
CUZK_HD uint32_t fr_chain_redc_even(uint32_t e[8], uint32_t &top, uint32_t *hi1) {
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
        : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]), "+r"(e[4]), "+r"(e[5]), "+r"(e[6]),
          "+r"(e[7]), "+r"(top), "=&r"(m), "=&r"(h)
        : "r"(fr_p<2>::v), "r"(fr_p<4>::v), "r"(fr_p<6>::v));
#else
    m = 0u - e[0];
    h = m - (e[0] != 0 ? 1u : 0u);
    const uint32_t r[3] = {fr_p<2>::v, fr_p<4>::v, fr_p<6>::v};
    uint64_t s = static_cast<uint64_t>(e[0]) + m;
    e[0] = static_cast<uint32_t>(s);
    s = static_cast<uint64_t>(e[1]) + (s >> 32);
    e[1] = static_cast<uint32_t>(s);
    top += static_cast<uint32_t>(host_mac_pairs(e, r, 1, m, 1, 4, s >> 32)); // m r[k - 1]
#endif
    *hi1 = h;
    return m;
}

// o (8 words) += m r_odd: m r_(2k+1) at words 2k, 2k + 1, given e0 = -m mod 2^32 (the word
// that m cancels) and hi1 from fr_chain_redc_even. No carry out of o[7]. r_1 = 2^32 - 1, so
// m r_1 = (m - c) 2^32 + (c 2^32 - m) with c = [m != 0]: its words are e0 and hi1 = m - c,
// which the integer ALU makes in place of the multiplier (on sm_90 a wide product occupies the
// multiplier pipe twice as long as an ALU instruction its pipe, and the NTT is bound by the
// multiplier).
CUZK_HD void fr_chain_redc_odd(uint32_t o[8], uint32_t m, uint32_t e0, uint32_t hi1) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %0, %9;\n\t"
        "addc.cc.u32 %1, %1, %10;\n\t"
        "madc.lo.cc.u32 %2, %8, %11, %2;\n\t"
        "madc.hi.cc.u32 %3, %8, %11, %3;\n\t"
        "madc.lo.cc.u32 %4, %8, %12, %4;\n\t"
        "madc.hi.cc.u32 %5, %8, %12, %5;\n\t"
        "madc.lo.cc.u32 %6, %8, %13, %6;\n\t"
        "madc.hi.u32 %7, %8, %13, %7;"
        : "+r"(o[0]), "+r"(o[1]), "+r"(o[2]), "+r"(o[3]), "+r"(o[4]), "+r"(o[5]), "+r"(o[6]),
          "+r"(o[7])
        : "r"(m), "r"(e0), "r"(hi1), "r"(fr_p<3>::v), "r"(fr_p<5>::v), "r"(fr_p<7>::v));
#else
    const uint32_t r[3] = {fr_p<3>::v, fr_p<5>::v, fr_p<7>::v};
    uint64_t s = static_cast<uint64_t>(o[0]) + e0;
    o[0] = static_cast<uint32_t>(s);
    s = static_cast<uint64_t>(o[1]) + hi1 + (s >> 32);
    o[1] = static_cast<uint32_t>(s);
    (void)host_mac_pairs(o, r, 1, m, 1, 4, s >> 32); // m r[k - 1]; no carry out of o[7]
#endif
}

// t = (e >> 32) + o: t[i] = e[i + 1] + o[i] for i < 7, t[7] = o[7] + the carry (the
// multiplication's quotient after its last step). No carry out of t[7].
CUZK_HD void fr_chain_merge(uint32_t t[8], const uint32_t e[8], const uint32_t o[8]) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %8, %15;\n\t"
        "addc.cc.u32 %1, %9, %16;\n\t"
        "addc.cc.u32 %2, %10, %17;\n\t"
        "addc.cc.u32 %3, %11, %18;\n\t"
        "addc.cc.u32 %4, %12, %19;\n\t"
        "addc.cc.u32 %5, %13, %20;\n\t"
        "addc.cc.u32 %6, %14, %21;\n\t"
        "addc.u32 %7, %22, 0;"
        : "=r"(t[0]), "=r"(t[1]), "=r"(t[2]), "=r"(t[3]), "=r"(t[4]), "=r"(t[5]), "=r"(t[6]),
          "=r"(t[7])
        : "r"(e[1]), "r"(e[2]), "r"(e[3]), "r"(e[4]), "r"(e[5]), "r"(e[6]), "r"(e[7]), "r"(o[0]),
          "r"(o[1]), "r"(o[2]), "r"(o[3]), "r"(o[4]), "r"(o[5]), "r"(o[6]), "r"(o[7]));
#else
    uint64_t c = 0;
    for (int i = 0; i < 8; i++) {
        const uint64_t s = static_cast<uint64_t>(i < 7 ? e[i + 1] : 0u) + o[i] + c;
        t[i] = static_cast<uint32_t>(s);
        c = s >> 32;
    }
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
// hardware's wide multiply-add with carry executes as one instruction). The running sum is
// T = e + 2^32 o, e of 8 words at place values 0..7 (the even words' products: a_(2k) b_i at
// words 2k, 2k + 1) and o of 8 words at place values 1..8 (the odd ones: a_(2k+1) b_i at o's
// words 2k, 2k + 1). A step:
//   the quotient of the previous step, T / 2^32 = (e >> 32) + o, is taken apart as: new e = old
//     o, whose words now sit at place values 0..7, plus old e_1 at word 0; new o = old e_2..7,
//     now at place values 1..6: they become the addends of the odd products' multiply-adds
//     (fr_chain_shift_madd_odd), so the division costs one addition, not a chain of eight;
//   e += a_(even) b_i, its carry out into o's top word (fr_chain_madd_even);
//   m = -e_0 (r = 1 mod 2^32, so -r^-1 = -1 and m r_0 = m), e += m r_(even), o += m r_(odd)
//     (m r_1 without a multiplication: r_1 = 2^32 - 1, see fr_chain_redc_odd); now e_0 = 0.
// The first step starts from T = 0 with plain products, and after the last one the quotient is
// formed once (fr_chain_merge). Bounds: with T < 2r before a step (a, r < 2^255), the step's sum
// T + a b_i + m r stays below 2^33 r < 2^288; o, which is at most that sum / 2^32 at every
// moment (all addends are non-negative), stays below 2r < 2^256, so no chain carries out of
// o's top word, and e's carries out are added there exactly. The quotient is below 2r again,
// and one conditional subtraction at the end reduces it.
CUZK_HD fr_t fr_mul(const fr_t &a, const fr_t &b) {
    uint32_t e[8], o[8], hi1;
    fr_chain_mul_pairs<0>(e, a.l, b.l[0]);
    fr_chain_mul_pairs<1>(o, a.l, b.l[0]);
    uint32_t e0 = e[0], m = fr_chain_redc_even(e, o[7], &hi1);
    fr_chain_redc_odd(o, m, e0, hi1);
    CUZK_UNROLL
    for (int i = 1; i < 8; i++) {
        uint32_t ne[8], no[8];
        CUZK_UNROLL
        for (int j = 0; j < 8; j++) ne[j] = o[j];
        fr_chain_shift_madd_odd(no, ne[0], e, a.l, b.l[i]);
        fr_chain_madd_even(ne, no[7], a.l, b.l[i]);
        e0 = ne[0];
        m = fr_chain_redc_even(ne, no[7], &hi1);
        fr_chain_redc_odd(no, m, e0, hi1);
        CUZK_UNROLL
        for (int j = 0; j < 8; j++) {
            e[j] = ne[j];
            o[j] = no[j];
        }
    }
    fr_t t;
    fr_chain_merge(t.l, e, o); // below 2r < 2^256
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
