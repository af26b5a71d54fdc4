/* libFuzzer harness of the snarkjs JSON readers (formats/snarkjs_json.h): every input is read
 * as a proof.json, a public.json and a verification_key.json, from memory and from a file.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *   - each reader ends in a value or one of the documented codes with a sentence naming the
 *     file kind ("proof: ", "public: ", "vk: "), and the file reader (_load) ends in the same
 *     code as the memory reader (_parse);
 *   - a value written by the matching writer (*_to_json) reads back as the same value (points,
 *     field elements, for a key alphabeta too), and writing that again gives the same text:
 *     the writers' output is a fixed point of read + write. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/snarkjs_json.h"
#include "fuzz_util.h"

static const uint64_t json_errors = FUZZ_ERR(CUZK_EFORMAT) | FUZZ_ERR(CUZK_ENONCANON) |
                                    FUZZ_ERR(CUZK_ENOTONCURVE) | FUZZ_ERR(CUZK_ENOTINSUBGROUP) |
                                    FUZZ_ERR(CUZK_EUNSUPPORTED) | FUZZ_ERR(CUZK_ENOMEM);

/* The text again, after a read: the same as text, and read back as what the caller compares. */
static void same_text(const char *a, const char *b) {
    FUZZ_CHECK(a != NULL && b != NULL);
    if (strcmp(a, b)) fprintf(stderr, "first:\n%s\nsecond:\n%s\n", a, b);
    FUZZ_CHECK(strcmp(a, b) == 0);
}

static void proof(const char *in, size_t size, const char *path) {
    struct cuzk_snarkjs_proof p, q;
    char err[256] = "", ferr[256] = "";
    int rc = cuzk_snarkjs_proof_parse(&p, in, size, err, sizeof err);
    FUZZ_CHECK(cuzk_snarkjs_proof_load(&q, path, ferr, sizeof ferr) == rc);
    if (!fuzz_outcome(rc, err, json_errors, "proof: ")) return;
    char *t1 = cuzk_snarkjs_proof_to_json(&p);
    FUZZ_CHECK(t1 != NULL);
    FUZZ_CHECK(cuzk_snarkjs_proof_parse(&q, t1, strlen(t1), err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(!memcmp(&p.a, &q.a, sizeof p.a) && !memcmp(&p.b, &q.b, sizeof p.b) &&
               !memcmp(&p.c, &q.c, sizeof p.c));
    char *t2 = cuzk_snarkjs_proof_to_json(&q);
    same_text(t1, t2);
    free(t1);
    free(t2);
}

static void public(const char *in, size_t size, const char *path) {
    cuzk_fr *v, *w;
    size_t n, m;
    char err[256] = "", ferr[256] = "";
    int rc = cuzk_snarkjs_public_parse(&v, &n, in, size, err, sizeof err);
    int frc = cuzk_snarkjs_public_load(&w, &m, path, ferr, sizeof ferr);
    free(w);
    FUZZ_CHECK(frc == rc);
    if (!fuzz_outcome(rc, err, json_errors, "public: ")) {
        free(v);
        return;
    }
    char *t1 = cuzk_snarkjs_public_to_json(v, n);
    FUZZ_CHECK(t1 != NULL);
    FUZZ_CHECK(cuzk_snarkjs_public_parse(&w, &m, t1, strlen(t1), err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(m == n && (n == 0 || !memcmp(v, w, n * sizeof *v)));
    char *t2 = cuzk_snarkjs_public_to_json(w, m);
    same_text(t1, t2);
    free(t1);
    free(t2);
    free(v);
    free(w);
}

static void vk(const char *in, size_t size, const char *path) {
    struct cuzk_snarkjs_vk k, l;
    char err[256] = "", ferr[256] = "";
    int rc = cuzk_snarkjs_vk_parse(&k, in, size, err, sizeof err);
    int frc = cuzk_snarkjs_vk_load(&l, path, ferr, sizeof ferr);
    cuzk_snarkjs_vk_free(&l);
    FUZZ_CHECK(frc == rc);
    if (!fuzz_outcome(rc, err, json_errors, "vk: ")) return;
    char *t1 = cuzk_snarkjs_vk_to_json(&k);
    FUZZ_CHECK(t1 != NULL);
    FUZZ_CHECK(cuzk_snarkjs_vk_parse(&l, t1, strlen(t1), err, sizeof err) == CUZK_OK);
    FUZZ_CHECK(l.n_public == k.n_public);
    FUZZ_CHECK(!memcmp(&k.alpha1, &l.alpha1, sizeof k.alpha1) &&
               !memcmp(&k.beta2, &l.beta2, sizeof k.beta2) &&
               !memcmp(&k.gamma2, &l.gamma2, sizeof k.gamma2) &&
               !memcmp(&k.delta2, &l.delta2, sizeof k.delta2) &&
               cuzk_fp12_eq(&k.alphabeta, &l.alphabeta) &&
               !memcmp(k.ic, l.ic, (k.n_public + 1) * sizeof *k.ic));
    char *t2 = cuzk_snarkjs_vk_to_json(&l);
    same_text(t1, t2);
    free(t1);
    free(t2);
    cuzk_snarkjs_vk_free(&k);
    cuzk_snarkjs_vk_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[64];
    int fd = fuzz_memfd(data, size, path, sizeof path);
    proof((const char *)data, size, path);
    public((const char *)data, size, path);
    vk((const char *)data, size, path);
    close(fd);
    return 0;
}
