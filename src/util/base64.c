/* Standard base64 (util/base64.h). */
#include "util/base64.h"

#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int value_of(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

long cuzk_base64_decode(const char *s, size_t n, uint8_t *out) {
    if (n % 4) return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        const int pad = (s[i + 3] == '=') + (s[i + 3] == '=' && s[i + 2] == '=');
        if (pad && i + 4 != n) return -1;
        int v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = k >= 4 - pad ? 0 : value_of((unsigned char)s[i + (size_t)k]);
            if (v[k] < 0) return -1;
        }
        const uint32_t x =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (uint8_t)(x >> 16);
        if (pad < 2) out[o++] = (uint8_t)(x >> 8);
        if (pad < 1) out[o++] = (uint8_t)x;
    }
    return (long)o;
}

char *cuzk_base64_encode(const uint8_t *in, size_t n) {
    char *out = malloc((n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t x = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                           (i + 2 < n ? in[i + 2] : 0);
        out[o++] = alphabet[x >> 18 & 63];
        out[o++] = alphabet[x >> 12 & 63];
        out[o++] = i + 1 < n ? alphabet[x >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[x & 63] : '=';
    }
    out[o] = 0;
    return out;
}
