/* The request decoder of server/wire.h: cuzk_wire_decode, read through a reader that hands
 * out pieces of random sizes (as the gRPC transport hands out its slices), gives every field
 * protobuf-c's own unpack gives, with every bytes field in one block of its own (the arena) that
 * can be handed on whole; it refuses what unpack refuses, and the strings the service refuses
 * (control characters, over 4096 bytes). Random mutations of valid messages: decode succeeds
 * exactly when unpack does (up to those string rules), with the same fields. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "cuzk/v1/proving.pb-c.h"
#include "server/wire.h"
#include "test_util.h"

/* A reader over a buffer that hands out at most `piece` bytes per call, as a transport of
 * small slices would; it checks that the decoder never reads past the end. */
struct piece_reader {
    struct cuzk_rpc_reader r;
    const uint8_t *buf;
    size_t len, pos, piece;
    int overreads;
};

static int piece_read(struct cuzk_rpc_reader *r, void *dst, size_t n) {
    struct piece_reader *p = (struct piece_reader *)r;
    if (n > r->left) {
        p->overreads++;
        return -1;
    }
    /* copy in pieces, as the transport moves slice by slice */
    for (size_t done = 0; done < n;) {
        size_t c = n - done < p->piece ? n - done : p->piece;
        memcpy((uint8_t *)dst + done, p->buf + p->pos, c);
        p->pos += c;
        done += c;
    }
    r->left -= n;
    return 0;
}

static int decode(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len, size_t piece,
                  struct cuzk_wire_msg *out, char *why, size_t whylen) {
    struct piece_reader p = {
        .r = {.left = len, .read = piece_read}, .buf = buf, .len = len, .piece = piece ? piece : 1};
    int rc = cuzk_wire_decode(d, &p.r, out, why, whylen);
    CHECK(p.overreads == 0);
    CHECK(rc != CUZK_OK || p.r.left == 0); /* a decoded message was read to its end */
    return rc;
}

static int in_arena(const struct cuzk_wire_msg *w, const ProtobufCBinaryData *b) {
    if (!b->len) return 1;
    return w->arena && b->data >= w->arena && b->data + b->len <= w->arena + w->arena_len;
}

static int same_bytes(const ProtobufCBinaryData *a, const ProtobufCBinaryData *b) {
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static int same_str(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* Every field of got equals want's (protobuf-c's unpack), every bytes field in the arena. */
static int same_submit(const struct cuzk_wire_msg *w, const Cuzk__V1__SubmitProofRequest *got,
                       const Cuzk__V1__SubmitProofRequest *want) {
    if (!got || !want) return got == want;
    int ok = same_str(got->request_id, want->request_id) && got->proof_kind == want->proof_kind &&
             got->sector_size == want->sector_size &&
             got->registered_proof == want->registered_proof && got->priority == want->priority &&
             got->sector_number == want->sector_number && got->miner_id == want->miner_id &&
             got->partition_index == want->partition_index &&
             got->n_vanilla_proofs == want->n_vanilla_proofs;
    const ProtobufCBinaryData *gb[] = {&got->vanilla_proof, &got->randomness, &got->comm_r_old,
                                       &got->comm_r_new, &got->comm_d_new};
    const ProtobufCBinaryData *wb[] = {&want->vanilla_proof, &want->randomness, &want->comm_r_old,
                                       &want->comm_r_new, &want->comm_d_new};
    for (size_t i = 0; ok && i < sizeof gb / sizeof gb[0]; i++)
        ok = same_bytes(gb[i], wb[i]) && in_arena(w, gb[i]);
    for (size_t i = 0; ok && i < got->n_vanilla_proofs; i++)
        ok = same_bytes(&got->vanilla_proofs[i], &want->vanilla_proofs[i]) &&
             in_arena(w, &got->vanilla_proofs[i]);
    return ok;
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *b = test_xmalloc(*len ? *len : 1);
    protobuf_c_message_pack(m, b);
    return b;
}

static void fill(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* ---- decoding what protobuf-c encodes ---------------------------------------------------- */

static void test_submit_roundtrip(void) {
    static uint8_t big[3 << 20], e1[70000], e2[5], rnd[32];
    fill(big, sizeof big, 1);
    fill(e1, sizeof e1, 2);
    fill(e2, sizeof e2, 3);
    fill(rnd, sizeof rnd, 4);
    Cuzk__V1__SubmitProofRequest m = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    m.request_id = (char *)"curio-sector-17";
    m.proof_kind = CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
    m.sector_size = 34359738368ull;
    m.registered_proof = 8;
    m.priority = CUZK__V1__PRIORITY__HIGH;
    m.vanilla_proof = (ProtobufCBinaryData){sizeof big, big};
    ProtobufCBinaryData entries[3] = {{sizeof e1, e1}, {0, NULL}, {sizeof e2, e2}};
    m.n_vanilla_proofs = 3;
    m.vanilla_proofs = entries;
    m.sector_number = 17;
    m.miner_id = 1000;
    m.randomness = (ProtobufCBinaryData){sizeof rnd, rnd};
    m.partition_index = 3;
    size_t len;
    uint8_t *buf = pack(&m.base, &len);
    Cuzk__V1__SubmitProofRequest *want = cuzk__v1__submit_proof_request__unpack(NULL, len, buf);
    CHECK(want != NULL);
    const size_t pieces[] = {1, 7, 4096, 16384, 1 << 22, len};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        struct cuzk_wire_msg w;
        char why[256];
        int rc = decode(&cuzk__v1__submit_proof_request__descriptor, buf, len, pieces[k], &w, why,
                        sizeof why);
        CHECK(rc == CUZK_OK);
        if (rc) continue;
        const Cuzk__V1__SubmitProofRequest *got = (const void *)w.m;
        CHECK(same_submit(&w, got, want));
        /* the arena holds the bytes fields only, in the order they came: the entries of
         * vanilla_proofs follow one another (the service hands them on without a copy) */
        CHECK(w.arena_len == sizeof big + sizeof e1 + sizeof e2 + sizeof rnd);
        CHECK(got->vanilla_proofs[0].data + sizeof e1 == got->vanilla_proofs[2].data);
        /* take: only a range inside the arena hands it over (randomness, the last field on
         * the wire, ends it) */
        CHECK(got->randomness.data + 32 == w.arena + w.arena_len);
        CHECK(cuzk_wire_msg_take(&w, big, sizeof big) == NULL);
        CHECK(cuzk_wire_msg_take(&w, got->randomness.data, 33) == NULL); /* past its end */
        void *a = cuzk_wire_msg_take(&w, got->vanilla_proof.data, got->vanilla_proof.len);
        CHECK(a != NULL && w.arena == NULL);
        CHECK(cuzk_wire_msg_take(&w, got->randomness.data, 32) == NULL); /* taken already */
        cuzk_wire_msg_free(&w); /* frees the message, not the arena */
        free(a);
    }
    cuzk__v1__submit_proof_request__free_unpacked(want, NULL);
    free(buf);
}

static void test_prove_nested(void) {
    static uint8_t wit[1 << 20];
    fill(wit, sizeof wit, 9);
    Cuzk__V1__SubmitProofRequest sub = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    sub.request_id = (char *)"nested";
    sub.vanilla_proof = (ProtobufCBinaryData){sizeof wit, wit};
    ProtobufCBinaryData sel = {13, (uint8_t *)"snarkjs:mulch"};
    sub.n_vanilla_proofs = 1;
    sub.vanilla_proofs = &sel;
    Cuzk__V1__ProveRequest m = CUZK__V1__PROVE_REQUEST__INIT;
    m.submit = &sub;
    size_t len;
    uint8_t *buf = pack(&m.base, &len);
    Cuzk__V1__ProveRequest *want = cuzk__v1__prove_request__unpack(NULL, len, buf);
    struct cuzk_wire_msg w;
    char why[256];
    CHECK(want && decode(&cuzk__v1__prove_request__descriptor, buf, len, 16384, &w, why,
                         sizeof why) == CUZK_OK);
    if (want && w.m) {
        const Cuzk__V1__ProveRequest *got = (const void *)w.m;
        CHECK(got->submit && same_submit(&w, got->submit, want->submit));
        CHECK(w.arena_len == sizeof wit + 13);
    }
    cuzk_wire_msg_free(&w);
    cuzk_wire_msg_free(&w); /* a second free of the zeroed struct is harmless */
    if (want) cuzk__v1__prove_request__free_unpacked(want, NULL);
    free(buf);
    /* no submit at all: an empty ProveRequest decodes, with no arena */
    CHECK(decode(&cuzk__v1__prove_request__descriptor, (const uint8_t *)"", 0, 1, &w, why,
                 sizeof why) == CUZK_OK);
    CHECK(w.m && !((Cuzk__V1__ProveRequest *)w.m)->submit && !w.arena);
    cuzk_wire_msg_free(&w);
}

/* ---- what is refused ----------------------------------------------------------------------- */

static int decode_bytes(const uint8_t *b, size_t n, char *why, size_t whylen) {
    struct cuzk_wire_msg w;
    int rc = decode(&cuzk__v1__submit_proof_request__descriptor, b, n, 3, &w, why, whylen);
    cuzk_wire_msg_free(&w);
    return rc;
}

static void test_refusals(void) {
    char why[256];
    /* a request id with a NUL or a newline: INVALID_ARGUMENT naming the field */
    const uint8_t nul[] = {0x0a, 3, 'a', 0, 'b'};
    CHECK(decode_bytes(nul, sizeof nul, why, sizeof why) == CUZK_EINVAL);
    CHECK(strstr(why, "request_id") && strstr(why, "control character"));
    const uint8_t nl[] = {0x0a, 2, 'a', '\n'};
    CHECK(decode_bytes(nl, sizeof nl, why, sizeof why) == CUZK_EINVAL);
    /* a string over 4096 bytes */
    size_t n = 4097 + 3;
    uint8_t *longid = test_xmalloc(n);
    longid[0] = 0x0a; /* request_id, length 4097 as a two-byte varint */
    longid[1] = (uint8_t)(0x80 | (4097 & 0x7f));
    longid[2] = (uint8_t)(4097 >> 7);
    memset(longid + 3, 'x', 4097);
    CHECK(decode_bytes(longid, n, why, sizeof why) == CUZK_EINVAL);
    CHECK(strstr(why, "request_id") && strstr(why, "4096"));
    free(longid);
    /* truncated: a length past the end, a varint cut short, a group, field number 0 */
    const uint8_t trunc[] = {0x52, 10, 1, 2, 3};
    CHECK(decode_bytes(trunc, sizeof trunc, why, sizeof why) == CUZK_EFORMAT);
    const uint8_t cut[] = {0x10, 0x80};
    CHECK(decode_bytes(cut, sizeof cut, why, sizeof why) == CUZK_EFORMAT);
    const uint8_t group[] = {0x0b, 0x0c};
    CHECK(decode_bytes(group, sizeof group, why, sizeof why) == CUZK_EFORMAT);
    const uint8_t zero[] = {0x02, 0};
    CHECK(decode_bytes(zero, sizeof zero, why, sizeof why) == CUZK_EFORMAT);
    /* a known field with the wrong wire type: protobuf-c refuses it, so does the decoder */
    const uint8_t wrong[] = {0x50, 1}; /* vanilla_proof as a varint */
    CHECK(decode_bytes(wrong, sizeof wrong, why, sizeof why) == CUZK_EFORMAT);
    /* an unknown field is dropped (read, not kept), the rest decodes */
    const uint8_t unknown[] = {0xfa, 0x3e, 3, 1, 2, 3, 0x10, 2};
    struct cuzk_wire_msg w;
    CHECK(decode(&cuzk__v1__submit_proof_request__descriptor, unknown, sizeof unknown, 1, &w, why,
                 sizeof why) == CUZK_OK);
    CHECK(w.m && ((Cuzk__V1__SubmitProofRequest *)w.m)->proof_kind == 2 && !w.arena);
    CHECK(w.m && w.m->n_unknown_fields == 0);
    cuzk_wire_msg_free(&w);
    /* a bytes field holding what looks like the decoder's own placeholder stays as sent */
    uint8_t fake[2 + 16] = {0x5a, 16, 0xff, 'c', 'u', 'z', 'k', 'r', 'e', 'f'};
    CHECK(decode(&cuzk__v1__submit_proof_request__descriptor, fake, sizeof fake, 5, &w, why,
                 sizeof why) == CUZK_OK);
    const Cuzk__V1__SubmitProofRequest *g = (const void *)w.m;
    CHECK(g && g->n_vanilla_proofs == 1 && g->vanilla_proofs[0].len == 16 &&
          !memcmp(g->vanilla_proofs[0].data, fake + 2, 16) && in_arena(&w, &g->vanilla_proofs[0]));
    cuzk_wire_msg_free(&w);
}

/* ---- random mutations ------------------------------------------------------------------- */

/* Whether protobuf-c's decoded message breaks a string rule of the decoder (then the decoder
 * refuses what unpack accepts). */
static int strings_refused(const Cuzk__V1__SubmitProofRequest *m, const uint8_t *buf, size_t len) {
    if (!m) return 0;
    char f[64];
    return strlen(m->request_id) > 4096 ||
           !cuzk_wire_strings_ok(&cuzk__v1__submit_proof_request__descriptor, buf, len, f,
                                 sizeof f);
}

static void test_mutations(void) {
    static uint8_t wit[3000], e1[200];
    fill(wit, sizeof wit, 5);
    fill(e1, sizeof e1, 6);
    Cuzk__V1__SubmitProofRequest m = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    m.request_id = (char *)"mutant";
    m.proof_kind = 1;
    m.priority = 2;
    m.vanilla_proof = (ProtobufCBinaryData){sizeof wit, wit};
    ProtobufCBinaryData entries[2] = {{sizeof e1, e1}, {3, (uint8_t *)"abc"}};
    m.n_vanilla_proofs = 2;
    m.vanilla_proofs = entries;
    m.sector_number = 99;
    m.randomness = (ProtobufCBinaryData){4, (uint8_t *)"rand"};
    size_t len;
    uint8_t *orig = pack(&m.base, &len);
    uint8_t *buf = test_xmalloc(len + 64);
    uint32_t seed = 12345;
    int agree = 1, decoded = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, orig, len);
        size_t n = len;
        int edits = 1 + it % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % n;
            switch ((seed >> 4) % 4) {
            case 0: buf[at] = (uint8_t)(seed >> 24); break;                /* a byte */
            case 1: buf[at] ^= (uint8_t)(1u << ((seed >> 24) % 8)); break; /* a bit */
            case 2: n = at + 1; break;                                     /* truncate */
            default:                                                       /* cut a span out */
                if (n > at + 8) {
                    memmove(buf + at, buf + at + 8, n - at - 8);
                    n -= 8;
                }
            }
        }
        Cuzk__V1__SubmitProofRequest *want = cuzk__v1__submit_proof_request__unpack(NULL, n, buf);
        struct cuzk_wire_msg w;
        char why[256];
        int rc = decode(&cuzk__v1__submit_proof_request__descriptor, buf, n, 1 + (seed >> 20) % 64,
                        &w, why, sizeof why);
        int ok;
        if (want && !strings_refused(want, buf, n))
            ok = rc == CUZK_OK && same_submit(&w, (const void *)w.m, want);
        else if (want)
            ok = rc == CUZK_EINVAL;
        else
            ok = rc == CUZK_EFORMAT;
        if (!ok && agree)
            fprintf(stderr, "mutation %d: unpack %s, decode rc %d (%s)\n", it,
                    want ? "accepts" : "refuses", rc, why);
        agree &= ok;
        decoded += rc == CUZK_OK;
        cuzk_wire_msg_free(&w);
        if (want) cuzk__v1__submit_proof_request__free_unpacked(want, NULL);
    }
    CHECK(agree);
    CHECK(decoded > 100); /* the mutations do not all break the message */
    free(buf);
    free(orig);
}

int main(void) {
    test_init("wire");
    test_submit_roundtrip();
    test_prove_nested();
    test_refusals();
    test_mutations();
    return test_finish();
}
