#include "ff/limbs.h"

#include <string.h>

#include "cuzk/error.h"
#include "ff/mont.h"

void cuzk_limbs_from_bytes_le(uint64_t *out, const uint8_t *in, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[8 * i + j];
        out[i] = w;
    }
}

void cuzk_limbs_from_bytes_be(uint64_t *out, const uint8_t *in, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | in[8 * (n - 1 - i) + j];
        out[i] = w;
    }
}

void cuzk_limbs_to_bytes_le(uint8_t *out, const uint64_t *a, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}

void cuzk_limbs_to_bytes_be(uint8_t *out, const uint64_t *a, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * (n - 1 - i) + 7 - j] = (uint8_t)(a[i] >> (8 * j));
}

int cuzk_limbs_from_dec(uint64_t *out, int n, const char *s) {
    if (s == NULL || *s == '\0') return CUZK_EFORMAT;
    uint64_t acc[CUZK_MONT_MAX_LIMBS] = {0};
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return CUZK_EFORMAT;
        uint64_t carry = (uint64_t)(*s - '0');
        for (int i = 0; i < n; i++) {
            cuzk_u128 x = (cuzk_u128)acc[i] * 10 + carry;
            acc[i] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        if (carry) return CUZK_ERANGE;
    }
    memcpy(out, acc, sizeof(uint64_t) * (size_t)n);
    return CUZK_OK;
}

int cuzk_limbs_to_dec(char *buf, size_t cap, const uint64_t *a, int n) {
    uint64_t t[CUZK_MONT_MAX_LIMBS];
    char rev[CUZK_MONT_MAX_LIMBS * 20 + 1];
    size_t len = 0;
    memcpy(t, a, sizeof(uint64_t) * (size_t)n);
    do {
        /* divide t by 10^19 and emit the 19 low digits of the remainder */
        const uint64_t chunk = 10000000000000000000ull;
        uint64_t rem = 0;
        for (int i = n - 1; i >= 0; i--) {
            cuzk_u128 cur = ((cuzk_u128)rem << 64) | t[i];
            t[i] = (uint64_t)(cur / chunk);
            rem = (uint64_t)(cur % chunk);
        }
        int last = cuzk_mont_is_zero(t, n);
        for (int d = 0; d < 19 && (!last || rem != 0 || d == 0); d++) {
            rev[len++] = (char)('0' + rem % 10);
            rem /= 10;
        }
        if (last) break;
    } while (1);
    if (len + 1 > cap) return CUZK_ERANGE;
    for (size_t i = 0; i < len; i++) buf[i] = rev[len - 1 - i];
    buf[len] = '\0';
    return (int)len;
}

static int is_even(const uint64_t *a) { return (a[0] & 1) == 0; }

static void shr1(uint64_t *a, int n) {
    for (int i = 0; i < n - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[n - 1] >>= 1;
}

/* x = x / 2 mod m, for x < m and m odd (m has a spare top bit, so x + m cannot overflow). */
static void half_mod(uint64_t *x, const uint64_t *m, int n) {
    if (!is_even(x)) {
        uint64_t carry = 0;
        for (int i = 0; i < n; i++) {
            cuzk_u128 s = (cuzk_u128)x[i] + m[i] + carry;
            x[i] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
    }
    shr1(x, n);
}

static int is_one(const uint64_t *a, int n) {
    if (a[0] != 1) return 0;
    for (int i = 1; i < n; i++)
        if (a[i]) return 0;
    return 1;
}

/* The body, inlined below with a constant n so the limb loops unroll to exact sizes. */
CUZK_INLINE void inv_mod_var(uint64_t *out, const uint64_t *a, const uint64_t *m, int n) {
    uint64_t u[CUZK_MONT_MAX_LIMBS], v[CUZK_MONT_MAX_LIMBS];
    uint64_t x1[CUZK_MONT_MAX_LIMBS] = {1}, x2[CUZK_MONT_MAX_LIMBS] = {0};
    if (cuzk_mont_is_zero(a, n)) {
        memset(out, 0, sizeof(uint64_t) * (size_t)n);
        return;
    }
    memcpy(u, a, sizeof(uint64_t) * (size_t)n);
    memcpy(v, m, sizeof(uint64_t) * (size_t)n);
    while (!is_one(u, n) && !is_one(v, n)) {
        while (is_even(u)) {
            shr1(u, n);
            half_mod(x1, m, n);
        }
        while (is_even(v)) {
            shr1(v, n);
            half_mod(x2, m, n);
        }
        if (cuzk_mont_cmp(u, v, n) >= 0) {
            cuzk_mont_sub(u, u, v, m, n); /* u >= v: no wrap, so this is a plain subtraction */
            cuzk_mont_sub(x1, x1, x2, m, n);
        } else {
            cuzk_mont_sub(v, v, u, m, n);
            cuzk_mont_sub(x2, x2, x1, m, n);
        }
    }
    memcpy(out, is_one(u, n) ? x1 : x2, sizeof(uint64_t) * (size_t)n);
}

void cuzk_limbs_inv_mod_var(uint64_t *out, const uint64_t *a, const uint64_t *m, int n) {
    switch (n) {
    case 4: inv_mod_var(out, a, m, 4); break;
    case 6: inv_mod_var(out, a, m, 6); break;
    default: memset(out, 0, sizeof(uint64_t) * (size_t)n); /* outside the contract */
    }
}
