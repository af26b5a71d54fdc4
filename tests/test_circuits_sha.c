/* SHA-256: the native function against standard vectors, Filecoin's Fr32 tree roots over zero
 * leaves (known answers), and the circuit: every compression shape and the tree-node gadget
 * cost exactly the reference rows / aux / boolean aux / nnz in both COUNT and RECORD mode, and
 * on random inputs the recorded system is satisfied and computes what the native twin does. */
#include <string.h>

#include "circuits/sha256.h"
#include "circuits_check.h"

static void hex(char *out, const uint8_t *in, size_t n) { test_bytes_to_hex(out, in, n); }

static int digest_is(const uint8_t d[32], const char *want) {
    char got[65];
    hex(got, d, 32);
    got[64] = 0;
    if (strcmp(got, want) != 0) fprintf(stderr, "  got %s\n  want %s\n", got, want);
    return strcmp(got, want) == 0;
}

static void test_native(void) {
    uint8_t d[32];
    cuzk_sha256(d, (const uint8_t *)"", 0);
    CHECK(digest_is(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    cuzk_sha256(d, (const uint8_t *)"abc", 3);
    CHECK(digest_is(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    cuzk_sha256(d, (const uint8_t *)m448, strlen(m448));
    CHECK(digest_is(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    cuzk_sha256(d, (const uint8_t *)m896, strlen(m896));
    CHECK(digest_is(d, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
    uint8_t *ma = malloc(1000000);
    memset(ma, 'a', 1000000);
    cuzk_sha256(d, ma, 1000000);
    CHECK(digest_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    /* the context fed in pieces of every size around the block and padding edges: the same */
    int pieces_ok = 1;
    for (size_t len = 0; len < 300; len += len < 130 ? 1 : 17) {
        uint8_t want[32], got[32];
        for (size_t i = 0; i < len; i++) ma[i] = (uint8_t)(i * 7 + len);
        cuzk_sha256(want, ma, len);
        for (size_t step = 1; step <= 65; step += step < 4 ? 1 : 20) {
            struct cuzk_sha256_ctx c;
            cuzk_sha256_init(&c);
            for (size_t at = 0; at < len; at += step)
                cuzk_sha256_update(&c, ma + at, len - at < step ? len - at : step);
            cuzk_sha256_final(&c, got);
            pieces_ok &= !memcmp(got, want, 32);
        }
    }
    CHECK(pieces_ok);
    memset(ma, 'a', 1000000);
    struct cuzk_sha256_ctx c;
    cuzk_sha256_init(&c);
    cuzk_sha256_update(&c, ma, 333333);
    cuzk_sha256_update(&c, ma, 1000000 - 333333);
    cuzk_sha256_final(&c, d);
    CHECK(digest_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    free(ma);

    /* Fr32 tree roots over all-zero 32-byte leaves */
    uint8_t zero[32] = {0}, l1[32], l2[32], l3[32];
    cuzk_sha256_node(l1, zero, zero);
    cuzk_sha256_node(l2, l1, l1);
    CHECK(digest_is(l2, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"));
    cuzk_sha256_node(l3, l2, l2);
    CHECK(digest_is(l3, "642a607ef886b004bf2c1978463ae1d4693ac0f410eb2d1b7a47fe205e5e750f"));
}

/* ---- compression shapes ------------------------------------------------------------------ */

enum shape { MSG_VAR_IV_CONST, MSG_VAR_IV_VAR, MSG_CONST_IV_VAR };

/* Runs one compression of the given shape on random inputs in a builder of the given mode and
 * returns its cost; in RECORD mode also checks satisfaction and the output against native. */
static struct cost compression(enum cuzk_builder_mode mode, enum shape sh) {
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, mode, 1) == CUZK_OK);
    uint8_t block[64];
    uint32_t st[8];
    cuzk_rng_fill(&test_rng, block, sizeof block);
    if (sh == MSG_CONST_IV_VAR) {
        /* the padding block of a 512-bit message (the second block of a tree node) */
        memset(block, 0, sizeof block);
        block[0] = 0x80;
        block[62] = 0x02;
    }
    if (sh == MSG_VAR_IV_CONST)
        memcpy(st, cuzk_sha256_iv, sizeof st);
    else
        for (int i = 0; i < 8; i++) st[i] = (uint32_t)cuzk_rng_u64(&test_rng);

    struct cuzk_bool msg[512];
    for (int i = 0; i < 512; i++) {
        int bit = (block[i / 8] >> (7 - i % 8)) & 1;
        msg[i] = sh == MSG_CONST_IV_VAR ? cuzk_bool_const(bit) : cuzk_bool_alloc(&b, bit);
    }
    struct cuzk_u32 cur[8], out[8];
    for (int i = 0; i < 8; i++)
        cur[i] = sh == MSG_VAR_IV_CONST ? cuzk_u32_const(st[i]) : cuzk_u32_alloc(&b, st[i]);

    struct cost before = cost_now(&b);
    cuzk_sha256_compress_gadget(&b, msg, cur, out);
    struct cost c = cost_sub(cost_now(&b), before);

    if (mode == CUZK_BUILDER_RECORD) {
        cuzk_sha256_compress(st, block);
        int same = 1;
        for (int i = 0; i < 8; i++) {
            uint32_t v = 0;
            for (int k = 0; k < 32; k++) v |= (uint32_t)out[i].bits[k].value << k;
            same &= v == st[i] && out[i].value == st[i];
        }
        CHECK(same);
        CHECK(record_satisfied(&b));
    }
    cuzk_builder_free(&b);
    return c;
}

static void test_compression(void) {
    static const char *names[3] = {"compression msg var, IV const", "compression msg var, IV var",
                                   "compression msg const, IV var"};
    const struct cost want[3] = {
        {25840, 25814, 25814, 0, {59456, 25872, 56886}},
        {26192, 26166, 26166, 0, {60848, 26192, 57686}},
        {19034, 19014, 19014, 0, {43455, 19034, 39494}},
    };
    for (int sh = 0; sh < 3; sh++) {
        struct cost cnt = compression(CUZK_BUILDER_COUNT, (enum shape)sh);
        struct cost rec = compression(CUZK_BUILDER_RECORD, (enum shape)sh);
        struct cost wit = compression(CUZK_BUILDER_WITNESS, (enum shape)sh);
        cost_print(names[sh], cnt);
        cost_check(names[sh], cnt, want[sh]);
        CHECK(cost_eq(cnt, rec));
        /* WITNESS mode keeps no terms: rows, aux and booleans only */
        CHECK(wit.rows == cnt.rows && wit.aux == cnt.aux && wit.bools == cnt.bools);
    }
}

/* ---- tree node and whole messages --------------------------------------------------------- */

static struct cost node(enum cuzk_builder_mode mode) {
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, mode, 1) == CUZK_OK);
    cuzk_fr l, r, want;
    cuzk_fr_random(&l, &test_rng);
    cuzk_fr_random(&r, &test_rng);
    struct cuzk_num ln = cuzk_num_alloc(&b, &l), rn = cuzk_num_alloc(&b, &r);
    struct cost before = cost_now(&b);
    struct cuzk_num h = cuzk_sha256_node_gadget(&b, &ln, &rn);
    struct cost c = cost_sub(cost_now(&b), before);
    if (mode != CUZK_BUILDER_COUNT) {
        cuzk_sha256_node_fr(&want, &l, &r);
        CHECK(cuzk_fr_eq(&h.value, &want));
        cuzk_fr got;
        cuzk_builder_value(&b, h.var, &got);
        CHECK(cuzk_fr_eq(&got, &want));
    }
    if (mode == CUZK_BUILDER_RECORD) CHECK(record_satisfied(&b));
    cuzk_builder_free(&b);
    return c;
}

static void test_node(void) {
    const struct cost want = {45379, 45331, 45330, 0, {104170, 45409, 96869}};
    struct cost cnt = node(CUZK_BUILDER_COUNT), rec = node(CUZK_BUILDER_RECORD);
    struct cost wit = node(CUZK_BUILDER_WITNESS);
    cost_print("tree node (2 Fr leaves)", cnt);
    cost_check("tree node", cnt, want);
    CHECK(cost_eq(cnt, rec));
    CHECK(wit.rows == cnt.rows && wit.aux == cnt.aux && wit.bools == cnt.bools);
}

/* SHA-256 of whole messages (allocated bytes) against the native function. */
static void test_messages(void) {
    static const size_t lens[] = {0, 1, 55, 56, 64, 100, 119, 200};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t n = lens[t];
        uint8_t msg[256], want[32];
        cuzk_rng_fill(&test_rng, msg, n);
        cuzk_sha256(want, msg, n);
        struct cuzk_builder b;
        CHECK(cuzk_builder_init(&b, CUZK_BUILDER_RECORD, 1) == CUZK_OK);
        struct cuzk_bool *bits = malloc((8 * n + 1) * sizeof *bits);
        for (size_t i = 0; i < 8 * n; i++)
            bits[i] = (i % 3) ? cuzk_bool_alloc(&b, (msg[i / 8] >> (7 - i % 8)) & 1)
                              : cuzk_bool_const((msg[i / 8] >> (7 - i % 8)) & 1);
        struct cuzk_bool out[256];
        CHECK(cuzk_sha256_gadget(&b, bits, 8 * n, out) == CUZK_OK);
        uint8_t got[32] = {0};
        for (int i = 0; i < 256; i++) got[i / 8] |= (uint8_t)(out[i].value << (7 - i % 8));
        CHECK(memcmp(got, want, 32) == 0);
        CHECK(record_satisfied(&b));
        cuzk_builder_free(&b);
        free(bits);
    }
}

int main(void) {
    test_init("test_circuits_sha");
    test_native();
    test_compression();
    test_node();
    test_messages();
    return test_finish();
}
