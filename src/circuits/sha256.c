#include "circuits/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"

/* ---- native (SHA-256 itself: util/sha256.c) ------------------------------------------------ */

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
        /* temp1 = h + S1 + ch + cuzk_sha256_k[i] + w[i] */
        struct cuzk_u32 temp1[5] = {h, S1, ch, cuzk_u32_const(cuzk_sha256_k[i]), w[i]};

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
