#include "circuits/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

/* ---- native ------------------------------------------------------------------------------- */

const uint32_t cuzk_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

void cuzk_sha256_compress(uint32_t st[8], const uint8_t blk[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
               (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + S1 + ch + K[i] + w[i];
        uint32_t S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    st[0] += a, st[1] += b, st[2] += c, st[3] += d;
    st[4] += e, st[5] += f, st[6] += g, st[7] += h;
}

void cuzk_sha256(uint8_t out[32], const uint8_t *msg, size_t len) {
    uint32_t st[8];
    memcpy(st, cuzk_sha256_iv, sizeof st);
    size_t off = 0;
    for (; len - off >= 64; off += 64) cuzk_sha256_compress(st, msg + off);
    uint8_t blk[128];
    size_t rest = len - off;
    memset(blk, 0, sizeof blk);
    if (rest) memcpy(blk, msg + off, rest);
    blk[rest] = 0x80;
    size_t total = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) blk[total - 1 - i] = (uint8_t)(bits >> (8 * i));
    cuzk_sha256_compress(st, blk);
    if (total == 128) cuzk_sha256_compress(st, blk + 64);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(st[i] >> 24);
        out[4 * i + 1] = (uint8_t)(st[i] >> 16);
        out[4 * i + 2] = (uint8_t)(st[i] >> 8);
        out[4 * i + 3] = (uint8_t)st[i];
    }
}

void cuzk_sha256_fr32(uint8_t out[32], const uint8_t *msg, size_t len) {
    cuzk_sha256(out, msg, len);
    out[31] &= 0x3f;
}

void cuzk_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
    uint8_t m[64];
    memcpy(m, left, 32);
    memcpy(m + 32, right, 32);
    cuzk_sha256_fr32(out, m, 64);
}

void cuzk_sha256_node_fr(cuzk_fr *out, const cuzk_fr *left, const cuzk_fr *right) {
    uint8_t l[32], r[32], h[32];
    cuzk_fr_to_bytes_le(l, left);
    cuzk_fr_to_bytes_le(r, right);
    cuzk_sha256_node(h, l, r);
    cuzk_fr_from_bytes_le(out, h); /* below 2^254: always canonical */
}

/* ---- circuit ------------------------------------------------------------------------------ */

void cuzk_sha256_compress_gadget(struct cuzk_builder *b, const struct cuzk_bool in[512],
                                 const struct cuzk_u32 cur[8], struct cuzk_u32 out[8]) {
    struct cuzk_u32 w[64];
    for (int i = 0; i < 16; i++) w[i] = cuzk_u32_from_bits_be(in + 32 * i);
    struct cuzk_multieq me;
    cuzk_multieq_init(&me, b);
    for (int i = 16; i < 64; i++) {
        struct cuzk_u32 t = cuzk_u32_rotr(&w[i - 15], 7), u = cuzk_u32_rotr(&w[i - 15], 18);
        struct cuzk_u32 s0 = cuzk_u32_xor(b, &t, &u);
        u = cuzk_u32_shr(&w[i - 15], 3);
        s0 = cuzk_u32_xor(b, &s0, &u);
        t = cuzk_u32_rotr(&w[i - 2], 17);
        u = cuzk_u32_rotr(&w[i - 2], 19);
        struct cuzk_u32 s1 = cuzk_u32_xor(b, &t, &u);
        u = cuzk_u32_shr(&w[i - 2], 10);
        s1 = cuzk_u32_xor(b, &s1, &u);
        const struct cuzk_u32 *ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
        w[i] = cuzk_u32_addmany(&me, ops, 4);
    }

    /* a and e are "deferred": the sums that produce them are only computed (as one addmany of
     * 6 or 7 operands) when they are next read, which is what keeps the row count low. */
    struct cuzk_u32 a_ops[8], e_ops[8];
    unsigned a_n = 0, e_n = 0;
    struct cuzk_u32 a = cur[0], bb = cur[1], c = cur[2], d = cur[3];
    struct cuzk_u32 e = cur[4], f = cur[5], g = cur[6], h = cur[7];
    const struct cuzk_u32 *ops[8];
    for (int i = 0; i < 64; i++) {
        if (e_n) {
            for (unsigned k = 0; k < e_n; k++) ops[k] = &e_ops[k];
            e = cuzk_u32_addmany(&me, ops, e_n);
            e_n = 0;
        }
        struct cuzk_u32 t = cuzk_u32_rotr(&e, 6), u = cuzk_u32_rotr(&e, 11);
        struct cuzk_u32 S1 = cuzk_u32_xor(b, &t, &u);
        u = cuzk_u32_rotr(&e, 25);
        S1 = cuzk_u32_xor(b, &S1, &u);
        struct cuzk_u32 ch = cuzk_u32_sha256_ch(b, &e, &f, &g);
        /* temp1 = h + S1 + ch + K[i] + w[i] */
        struct cuzk_u32 temp1[5] = {h, S1, ch, cuzk_u32_const(K[i]), w[i]};

        if (a_n) {
            for (unsigned k = 0; k < a_n; k++) ops[k] = &a_ops[k];
            a = cuzk_u32_addmany(&me, ops, a_n);
            a_n = 0;
        }
        t = cuzk_u32_rotr(&a, 2);
        u = cuzk_u32_rotr(&a, 13);
        struct cuzk_u32 S0 = cuzk_u32_xor(b, &t, &u);
        u = cuzk_u32_rotr(&a, 22);
        S0 = cuzk_u32_xor(b, &S0, &u);
        struct cuzk_u32 maj = cuzk_u32_sha256_maj(b, &a, &bb, &c);

        h = g;
        g = f;
        f = e;
        for (int k = 0; k < 5; k++) e_ops[k] = temp1[k];
        e_ops[5] = d; /* e = d + temp1 */
        e_n = 6;
        d = c;
        c = bb;
        bb = a;
        for (int k = 0; k < 5; k++) a_ops[k] = temp1[k];
        a_ops[5] = S0; /* a = temp1 + temp2, temp2 = S0 + maj */
        a_ops[6] = maj;
        a_n = 7;
    }

    /* h0 = deferred a + cur[0]; h4 = deferred e + cur[4]; the others 2-operand sums */
    a_ops[a_n++] = cur[0];
    for (unsigned k = 0; k < a_n; k++) ops[k] = &a_ops[k];
    out[0] = cuzk_u32_addmany(&me, ops, a_n);
    const struct cuzk_u32 *two[2];
    two[0] = &cur[1], two[1] = &bb;
    out[1] = cuzk_u32_addmany(&me, two, 2);
    two[0] = &cur[2], two[1] = &c;
    out[2] = cuzk_u32_addmany(&me, two, 2);
    two[0] = &cur[3], two[1] = &d;
    out[3] = cuzk_u32_addmany(&me, two, 2);
    e_ops[e_n++] = cur[4];
    for (unsigned k = 0; k < e_n; k++) ops[k] = &e_ops[k];
    out[4] = cuzk_u32_addmany(&me, ops, e_n);
    two[0] = &cur[5], two[1] = &f;
    out[5] = cuzk_u32_addmany(&me, two, 2);
    two[0] = &cur[6], two[1] = &g;
    out[6] = cuzk_u32_addmany(&me, two, 2);
    two[0] = &cur[7], two[1] = &h;
    out[7] = cuzk_u32_addmany(&me, two, 2);
    cuzk_multieq_finish(&me);
}

int cuzk_sha256_gadget(struct cuzk_builder *b, const struct cuzk_bool *in, size_t nbits,
                       struct cuzk_bool out[256]) {
    size_t padded = (nbits + 1 + 64 + 511) / 512 * 512;
    struct cuzk_bool *msg = malloc(padded * sizeof *msg);
    if (!msg) {
        if (cuzk_builder_error(b) == CUZK_OK) b->err = CUZK_ENOMEM;
        return CUZK_ENOMEM;
    }
    memcpy(msg, in, nbits * sizeof *msg);
    msg[nbits] = cuzk_bool_const(1);
    for (size_t i = nbits + 1; i < padded - 64; i++) msg[i] = cuzk_bool_const(0);
    uint64_t len = nbits;
    for (int i = 0; i < 64; i++)
        msg[padded - 64 + i] = cuzk_bool_const((int)((len >> (63 - i)) & 1));
    struct cuzk_u32 cur[8], next[8];
    for (int i = 0; i < 8; i++) cur[i] = cuzk_u32_const(cuzk_sha256_iv[i]);
    for (size_t blk = 0; blk < padded; blk += 512) {
        cuzk_sha256_compress_gadget(b, msg + blk, cur, next);
        memcpy(cur, next, sizeof cur);
    }
    for (int i = 0; i < 8; i++) cuzk_u32_to_bits_be(&cur[i], out + 32 * i);
    free(msg);
    return CUZK_OK;
}

struct cuzk_num cuzk_sha256_fr32_gadget(struct cuzk_builder *b, const struct cuzk_bool *in,
                                        size_t nbits) {
    struct cuzk_bool be[256], le[256];
    cuzk_sha256_gadget(b, in, nbits, be);
    for (int byte = 0; byte < 32; byte++)
        for (int k = 0; k < 8; k++) le[8 * byte + k] = be[8 * byte + 7 - k];
    return cuzk_num_pack_bits(b, le, CUZK_FR_CAPACITY);
}

void cuzk_sha256_num_bits(struct cuzk_builder *b, const struct cuzk_num *x,
                          struct cuzk_bool out[256]) {
    struct cuzk_bool le[256];
    cuzk_num_to_bits_le(b, x, le);
    le[255] = cuzk_bool_const(0);
    for (int byte = 0; byte < 32; byte++)
        for (int k = 0; k < 8; k++) out[8 * byte + k] = le[8 * byte + 7 - k];
}

struct cuzk_num cuzk_sha256_node_gadget(struct cuzk_builder *b, const struct cuzk_num *left,
                                        const struct cuzk_num *right) {
    struct cuzk_bool m[512];
    cuzk_sha256_num_bits(b, left, m);
    cuzk_sha256_num_bits(b, right, m + 256);
    return cuzk_sha256_fr32_gadget(b, m, 512);
}
