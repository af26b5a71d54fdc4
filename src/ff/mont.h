/* Montgomery arithmetic on n 64-bit limbs, shared by every prime field of cuzk.
 *
 * Contract: limbs are little-endian. Every function takes the limb count n as a parameter; the
 * field headers call them with a constant n so the compiler inlines and unrolls them (this is
 * why they are static inline: a copy per field costs nothing and avoids two hand-unrolled
 * near-identical implementations). Inputs of the modular functions must be fully reduced
 * (< m) and the outputs are fully reduced. The modulus must leave the top bit of its top limb
 * clear and m[n-1] < 2^63 - 1, which lets the multiplication skip the extra carry word (true for
 * both BLS12-381 moduli). Outputs may alias inputs. Nothing here branches on secret data
 * except cuzk_mont_cmp and cuzk_mont_is_zero's callers' choices.
 * Thread-safety: pure functions. */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include <stdint.h>

#define CUZK_MONT_MAX_LIMBS 6

typedef unsigned __int128 cuzk_u128;

#define CUZK_INLINE static inline __attribute__((always_inline))

/* Carry/borrow steps. On x86-64 the compiler intrinsics become ADC/SBB chains; elsewhere the
 * 128-bit arithmetic does the same job. */
#if defined(__x86_64__)
#include <x86intrin.h>
CUZK_INLINE uint64_t cuzk_addc(uint64_t a, uint64_t b, unsigned char *carry) {
    unsigned long long out;
    *carry = _addcarry_u64(*carry, a, b, &out);
    return out;
}
CUZK_INLINE uint64_t cuzk_subb(uint64_t a, uint64_t b, unsigned char *borrow) {
    unsigned long long out;
    *borrow = _subborrow_u64(*borrow, a, b, &out);
    return out;
}
#else
CUZK_INLINE uint64_t cuzk_addc(uint64_t a, uint64_t b, unsigned char *carry) {
    cuzk_u128 x = (cuzk_u128)a + b + *carry;
    *carry = (unsigned char)(x >> 64);
    return (uint64_t)x;
}
CUZK_INLINE uint64_t cuzk_subb(uint64_t a, uint64_t b, unsigned char *borrow) {
    cuzk_u128 x = (cuzk_u128)a - b - *borrow;
    *borrow = (unsigned char)((x >> 64) & 1);
    return (uint64_t)x;
}
#endif

/* r = t - m if t >= m, else t. Requires t < 2m. */
CUZK_INLINE void cuzk_mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *m, int n) {
    uint64_t d[CUZK_MONT_MAX_LIMBS];
    unsigned char borrow = 0;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) d[i] = cuzk_subb(t[i], m[i], &borrow);
    uint64_t keep_t = 0 - (uint64_t)borrow; /* all ones when t < m */
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

CUZK_INLINE void cuzk_mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               int n) {
    uint64_t t[CUZK_MONT_MAX_LIMBS];
    unsigned char carry = 0;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) t[i] = cuzk_addc(a[i], b[i], &carry);
    cuzk_mont_reduce_once(r, t, m, n); /* the spare top bit means carry is always 0 here */
}

CUZK_INLINE void cuzk_mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               int n) {
    uint64_t t[CUZK_MONT_MAX_LIMBS];
    unsigned char borrow = 0, carry = 0;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) t[i] = cuzk_subb(a[i], b[i], &borrow);
    uint64_t mask = 0 - (uint64_t)borrow;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) r[i] = cuzk_addc(t[i], m[i] & mask, &carry);
}

CUZK_INLINE int cuzk_mont_is_zero(const uint64_t *a, int n) {
    uint64_t acc = 0;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

CUZK_INLINE void cuzk_mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int n) {
    uint64_t nz = 0 - (uint64_t)!cuzk_mont_is_zero(a, n); /* 0 maps to 0, not to m */
    unsigned char borrow = 0;
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) r[i] = cuzk_subb(m[i], a[i], &borrow) & nz;
}

/* r = a * b * 2^(-64n) mod m (CIOS without the extra carry word). The portable reference;
 * cuzk_mont_mul below picks the x86-64 assembly twin when the build targets BMI2 + ADX. */
CUZK_INLINE void cuzk_mont_mul_c(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *m, uint64_t m0inv, int n) {
    uint64_t t[CUZK_MONT_MAX_LIMBS] = {0};
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) {
        cuzk_u128 acc = (cuzk_u128)a[0] * b[i] + t[0];
        uint64_t hi_ab = (uint64_t)(acc >> 64);
        uint64_t lo = (uint64_t)acc;
        uint64_t q = lo * m0inv;
        cuzk_u128 red = (cuzk_u128)q * m[0] + lo;
        uint64_t hi_qm = (uint64_t)(red >> 64);
        _Pragma("GCC unroll 8") for (int j = 1; j < n; j++) {
            acc = (cuzk_u128)a[j] * b[i] + t[j] + hi_ab;
            hi_ab = (uint64_t)(acc >> 64);
            red = (cuzk_u128)q * m[j] + (uint64_t)acc + hi_qm;
            hi_qm = (uint64_t)(red >> 64);
            t[j - 1] = (uint64_t)red;
        }
        t[n - 1] = hi_qm + hi_ab;
    }
    cuzk_mont_reduce_once(r, t, m, n);
}

/* The sanitizer builds reserve the frame pointer and leave too few registers for the 6-limb
 * kernel, so they test the portable twin; the release build tests the assembly against it. */
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && !defined(CUZK_PORTABLE) &&     \
    !defined(__SANITIZE_ADDRESS__)
#define CUZK_MONT_ADX 1
#include "ff/mont_x86.h"
#endif

/* r = a * b * 2^(-64n) mod m: the fastest available implementation for this n. */
CUZK_INLINE void cuzk_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               uint64_t m0inv, int n) {
#ifdef CUZK_MONT_ADX
    uint64_t t[CUZK_MONT_MAX_LIMBS];
    if (n == 4) {
        cuzk_mont_mul4_adx(t, a, b, m, m0inv);
        cuzk_mont_reduce_once(r, t, m, 4);
        return;
    }
    if (n == 6) {
        cuzk_mont_mul6_adx(t, a, b, m, m0inv);
        cuzk_mont_reduce_once(r, t, m, 6);
        return;
    }
#endif
    cuzk_mont_mul_c(r, a, b, m, m0inv, n);
}

/* Plain (non-modular) helpers on n-limb integers. */

/* Returns -1, 0 or 1 as a <, =, > b. Variable time. */
CUZK_INLINE int cuzk_mont_cmp(const uint64_t *a, const uint64_t *b, int n) {
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

#endif
