/* Poseidon (neptune, as Filecoin uses it): the Merkle-tree known answers of the four arities,
 * the optimised permutation against the reference one on random states, the domain tags, and
 * the v1 circuit: its output equals the native hash, the recorded system is satisfied by the
 * witness (and not by a broken one), the witness-only mode gives the same witness, and rows,
 * aux, boolean aux and nnz of A, B and C equal Filecoin's reference figures in the counting and
 * the recording mode alike. */
#include <stdlib.h>
#include <string.h>

#include "circuits/builder.h"
#include "circuits/num.h"
#include "circuits/poseidon.h"
#include "circuits/poseidon_gadget.h"
#include "cuzk/error.h"
#include "r1cs/cs.h"
#include "test_util.h"

static const int arities[4] = {2, 4, 8, 11};

/* ---- native ------------------------------------------------------------------------------ */

/* Hash of [0, 1, ..., arity - 1] with the Merkle-tree tag, from neptune. */
static const char *const kat_hex[4] = {
    "396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff",
    "58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d",
    "2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6",
    "0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163",
};

static void test_kat(void) {
    for (int k = 0; k < 4; k++) {
        int a = arities[k];
        cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], out, out_ref, want;
        for (int i = 0; i < a; i++) cuzk_fr_from_u64(&in[i], (uint64_t)i);
        uint8_t be[32];
        CHECK(test_hex_to_bytes(be, 32, kat_hex[k], 64) == 0);
        CHECK(cuzk_fr_from_bytes_be(&want, be) == CUZK_OK);
        CHECK(cuzk_poseidon_hash_merkle(a, in, &out) == CUZK_OK);
        CHECK(cuzk_fr_eq(&out, &want));
        const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(a);
        CHECK(p && p->arity == a && p->width == a + 1 && p->full_rounds == 8);
        CHECK(cuzk_poseidon_hash_ref(a, &p->merkle_tag, in, &out_ref) == CUZK_OK);
        CHECK(cuzk_fr_eq(&out_ref, &want));
    }
    static const int rp[4] = {55, 56, 57, 57};
    for (int k = 0; k < 4; k++)
        CHECK(cuzk_poseidon_params_get(arities[k])->partial_rounds == rp[k]);
}

static void test_opt_vs_ref(void) {
    for (int k = 0; k < 4; k++) {
        const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(arities[k]);
        for (int n = 0; n < 25; n++) {
            cuzk_fr s1[CUZK_POSEIDON_MAX_WIDTH], s2[CUZK_POSEIDON_MAX_WIDTH];
            for (int i = 0; i < p->width; i++) {
                if (n == 0)
                    cuzk_fr_set_zero(&s1[i]); /* the all-zero state too */
                else
                    cuzk_fr_random(&s1[i], &test_rng);
                s2[i] = s1[i];
            }
            cuzk_poseidon_permute(p, s1);
            cuzk_poseidon_permute_ref(p, s2);
            int same = 1;
            for (int i = 0; i < p->width; i++) same &= cuzk_fr_eq(&s1[i], &s2[i]);
            CHECK(same);
        }
    }
}

static void test_tags(void) {
    uint64_t l[4];
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, 8);
    cuzk_fr_to_canonical(l, &tag);
    CHECK(l[0] == 0xff && l[1] == 0 && l[2] == 0 && l[3] == 0);
    cuzk_poseidon_tag_constant_length(&tag, 7);
    cuzk_fr_to_canonical(l, &tag);
    CHECK(l[0] == 0 && l[1] == 7 && l[2] == 0 && l[3] == 0);
    cuzk_poseidon_tag_custom(&tag, 256);
    cuzk_fr_to_canonical(l, &tag);
    CHECK(l[0] == (UINT64_C(1) << 48) && l[1] == 0 && l[2] == 0 && l[3] == 0);
    cuzk_poseidon_tag_custom(&tag, UINT64_C(1) << 30); /* beyond neptune's range: crosses a limb */
    cuzk_fr_to_canonical(l, &tag);
    CHECK(l[0] == 0 && l[1] == (UINT64_C(1) << 6) && l[2] == 0 && l[3] == 0);
    cuzk_poseidon_tag_custom(&tag, 1);
    cuzk_fr_to_canonical(l, &tag);
    CHECK(l[0] == (UINT64_C(1) << 40) && l[1] == 0);

    /* ConstantLength hashing pads with zeros under the tag len * 2^64. */
    cuzk_fr in[8], padded[8], h1, h2;
    for (int i = 0; i < 8; i++) {
        cuzk_fr_random(&in[i], &test_rng);
        if (i < 3)
            padded[i] = in[i];
        else
            cuzk_fr_set_zero(&padded[i]);
    }
    CHECK(cuzk_poseidon_hash_constant_length(8, in, 3, &h1) == CUZK_OK);
    cuzk_poseidon_tag_constant_length(&tag, 3);
    CHECK(cuzk_poseidon_hash_ref(8, &tag, padded, &h2) == CUZK_OK);
    CHECK(cuzk_fr_eq(&h1, &h2));
    CHECK(cuzk_poseidon_hash_constant_length(8, in, 0, &h1) == CUZK_EINVAL);
    CHECK(cuzk_poseidon_hash_constant_length(8, in, 9, &h1) == CUZK_EINVAL);

    CHECK(cuzk_poseidon_params_get(3) == NULL);
    CHECK(cuzk_poseidon_params_get(16) == NULL);
    CHECK(cuzk_poseidon_hash_merkle(3, in, &h1) == CUZK_EINVAL);
}

/* ---- circuit ----------------------------------------------------------------------------- */

/* Filecoin's figures per hash (reference §9 for a = 2, 8, 11; the same formulas for a = 4). */
struct ref_counts {
    int arity;
    uint64_t rows, nnz_a, nnz_b, nnz_c;
};
static const struct ref_counts ref[4] = {
    {2, 311, 2119, 313, 386},
    {4, 377, 0, 0, 0}, /* no published nnz: checked against the formulas only */
    {8, 505, 3598, 513, 624},
    {11, 598, 4462, 609, 738},
};

static void formula_counts(int a, int rp, uint64_t *rows, uint64_t nnz[3]) {
    uint64_t t = (uint64_t)a + 1, r = (uint64_t)rp;
    *rows = 31 * (uint64_t)a + 29 + 4 * r;
    nnz[0] =
        5 * (uint64_t)a + 6 * t * (t + 3) + t * (t + r + 3) + t + r * (t + 3) + r * (r - 1) / 2;
    nnz[1] = 4 * (uint64_t)a + 28 * t + 4 * r + 1;
    nnz[2] = 4 * (uint64_t)a + 34 * t + 5 * r + 1;
}

/* One hash in a fresh builder: the inputs allocated as private variables (AllocatedNum::alloc,
 * no rows), then the gadget. */
static int build_hash(struct cuzk_builder *b, enum cuzk_builder_mode mode, int a,
                      const cuzk_fr *tag, const cuzk_fr *in, cuzk_var *out) {
    if (cuzk_builder_init(b, mode, 1) != CUZK_OK) return -1;
    cuzk_var v[CUZK_POSEIDON_MAX_ARITY];
    for (int i = 0; i < a; i++) v[i] = cuzk_builder_alloc(b, in ? &in[i] : NULL);
    if (tag) return cuzk_poseidon_gadget_hash(b, a, tag, v, out);
    return cuzk_poseidon_gadget_hash_merkle(b, (size_t)a, v, out);
}

static void check_counts(const struct cuzk_builder_counts *c, int k) {
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(arities[k]);
    uint64_t rows, nnz[3];
    formula_counts(arities[k], p->partial_rounds, &rows, nnz);
    CHECK(c->constraints == ref[k].rows && rows == ref[k].rows);
    CHECK(c->n_aux == ref[k].rows + (uint64_t)arities[k]); /* aux = rows, plus the inputs */
    CHECK(c->n_bool == 0);
    CHECK(c->n_inputs == 1);
    for (int m = 0; m < 3; m++) CHECK(c->nnz[m] == nnz[m]);
    if (ref[k].nnz_a) {
        CHECK(c->nnz[0] == ref[k].nnz_a);
        CHECK(c->nnz[1] == ref[k].nnz_b);
        CHECK(c->nnz[2] == ref[k].nnz_c);
    }
    printf("  arity %2d: rows %llu aux %llu bool %llu nnz A/B/C %llu/%llu/%llu\n", arities[k],
           (unsigned long long)c->constraints, (unsigned long long)(c->n_aux - arities[k]),
           (unsigned long long)c->n_bool, (unsigned long long)c->nnz[0],
           (unsigned long long)c->nnz[1], (unsigned long long)c->nnz[2]);
}

static void test_gadget(int k, const cuzk_fr *tag, int reps) {
    const int a = arities[k];
    for (int n = 0; n < reps; n++) {
        cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], want;
        for (int i = 0; i < a; i++) cuzk_fr_random(&in[i], &test_rng);
        const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(a);
        CHECK(cuzk_poseidon_hash(a, tag ? tag : &p->merkle_tag, in, &want) == CUZK_OK);

        /* RECORD with values: output, satisfaction, counts against the stored matrices */
        struct cuzk_builder b;
        cuzk_var out = 0;
        CHECK(build_hash(&b, CUZK_BUILDER_RECORD, a, tag, in, &out) == CUZK_OK);
        struct cuzk_builder_counts rec = *cuzk_builder_get_counts(&b);
        struct cuzk_cs cs;
        cuzk_fr *w = NULL;
        size_t wlen = 0;
        CHECK(cuzk_builder_finish(&b, &cs, &w, &wlen) == CUZK_OK);
        cuzk_builder_free(&b);
        CHECK(cuzk_var_is_aux(out));
        size_t col = 1 + cuzk_var_index(out);
        CHECK(w && wlen == cs.n_cols && col < wlen);
        if (!w || col >= wlen) {
            cuzk_cs_free(&cs);
            free(w);
            continue;
        }
        CHECK(cuzk_fr_eq(&w[col], &want));
        CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, NULL) == 1);
        CHECK(cs.n_rows == rec.constraints);
        for (int m = 0; m < 3; m++) CHECK(cs.m[m].nnz == rec.nnz[m]);
        if (n == 0) {
            check_counts(&rec, k);
            /* a wrong output, or a wrong intermediate, breaks some row */
            cuzk_fr one, saved = w[col];
            cuzk_fr_set_one(&one);
            cuzk_fr_add(&w[col], &w[col], &one);
            size_t bad = 0;
            CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, &bad) == 0 && bad == cs.n_rows - 1);
            w[col] = saved;
            size_t mid = 1 + (size_t)a + rec.n_aux / 2;
            cuzk_fr_add(&w[mid], &w[mid], &one);
            CHECK(cuzk_cs_is_satisfied(NULL, &cs, w, NULL) == 0);
            cuzk_fr_sub(&w[mid], &w[mid], &one);

            /* COUNT: the same figures without storing anything */
            cuzk_var cout;
            CHECK(build_hash(&b, CUZK_BUILDER_COUNT, a, tag, NULL, &cout) == CUZK_OK);
            const struct cuzk_builder_counts *cc = cuzk_builder_get_counts(&b);
            CHECK(memcmp(cc, &rec, sizeof rec) == 0);
            CHECK(cout == out);
            cuzk_builder_free(&b);
        }

        /* WITNESS: the same witness, the same counts of rows and variables */
        cuzk_var wout;
        CHECK(build_hash(&b, CUZK_BUILDER_WITNESS, a, tag, in, &wout) == CUZK_OK);
        const struct cuzk_builder_counts *wc = cuzk_builder_get_counts(&b);
        CHECK(wc->constraints == rec.constraints && wc->n_aux == rec.n_aux);
        CHECK(wout == out);
        cuzk_fr *w2 = NULL;
        size_t w2len = 0;
        CHECK(cuzk_builder_finish(&b, NULL, &w2, &w2len) == CUZK_OK);
        CHECK(w2 && w2len == wlen && memcmp(w2, w, wlen * sizeof *w) == 0);
        cuzk_builder_free(&b);
        free(w2);
        cuzk_cs_free(&cs);
        free(w);
    }
}

/* The struct cuzk_num entry points: the output number carries the hash, in every mode with
 * values, and the rows are those of the variable entry points. */
static void test_gadget_num(void) {
    for (int k = 0; k < 4; k++) {
        const int a = arities[k];
        cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], want, got;
        for (int i = 0; i < a; i++) cuzk_fr_random(&in[i], &test_rng);
        CHECK(cuzk_poseidon_hash_merkle(a, in, &want) == CUZK_OK);
        for (int mode = 0; mode < 3; mode++) {
            struct cuzk_builder b;
            CHECK(cuzk_builder_init(&b, (enum cuzk_builder_mode)mode, 1) == CUZK_OK);
            struct cuzk_num x[CUZK_POSEIDON_MAX_ARITY], out;
            for (int i = 0; i < a; i++) x[i] = cuzk_num_alloc(&b, &in[i]);
            CHECK(cuzk_poseidon_gadget_hash_merkle_num(&b, (size_t)a, x, &out) == CUZK_OK);
            CHECK(cuzk_builder_get_counts(&b)->constraints == ref[k].rows);
            if (cuzk_builder_has_values(&b)) {
                cuzk_builder_value(&b, out.var, &got);
                CHECK(cuzk_fr_eq(&out.value, &want) && cuzk_fr_eq(&got, &want));
            } else {
                CHECK(cuzk_fr_is_zero(&out.value));
            }
            cuzk_builder_free(&b);
        }
    }
}

static void test_gadget_args(void) {
    struct cuzk_builder b;
    CHECK(cuzk_builder_init(&b, CUZK_BUILDER_COUNT, 0) == CUZK_OK);
    cuzk_var in[16], out;
    for (int i = 0; i < 16; i++) in[i] = cuzk_builder_alloc(&b, NULL);
    cuzk_fr tag;
    cuzk_fr_set_one(&tag);
    CHECK(cuzk_poseidon_gadget_hash(&b, 3, &tag, in, &out) == CUZK_EINVAL);
    CHECK(cuzk_poseidon_gadget_hash_merkle(&b, 16, in, &out) == CUZK_EINVAL);
    CHECK(cuzk_poseidon_gadget_hash_merkle(&b, 0, in, &out) == CUZK_EINVAL);
    CHECK(cuzk_builder_get_counts(&b)->constraints == 0);
    cuzk_builder_free(&b);
}

int main(void) {
    test_init("test_circuits_poseidon");
    test_kat();
    test_opt_vs_ref();
    test_tags();
    for (int k = 0; k < 4; k++) test_gadget(k, NULL, 3);
    /* other domain tags: SnapDeals' Custom(1) with arity 2, ConstantLength(8) with arity 8 */
    cuzk_fr tag;
    cuzk_poseidon_tag_custom(&tag, 1);
    test_gadget(0, &tag, 2);
    cuzk_poseidon_tag_constant_length(&tag, 8);
    test_gadget(2, &tag, 2);
    test_gadget_num();
    test_gadget_args();
    return test_finish();
}
