/* The Filecoin kinds' lookup of bellperson parameter files in the key cache (kinds/fc_kind.h,
 * cuzk_kind_fc_params_find): a file named like Filecoin's for the kind is found by its shape
 * among others of the same name pattern (a decoy of another profile's shape sorts first),
 * imported into the key cache once and served with bellperson's h basis (CUZK_H_COEFF, the
 * basis of every real Filecoin file); a profile with no file of its shape has no stored key; a
 * file whose h is in the snarkjs basis (domain points: what cuzk wrote before) is found and
 * imported too, as that basis. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/error.h"
#include "filecoin/pce.h"
#include "formats/bellperson.h"
#include "groth16/bpkey.h"
#include "groth16/setup.h"
#include "kinds/fc_kind.h"
#include "test_util.h"

static struct cuzk_pool *pool;

static void rm_dir(const char *d) {
    DIR *dd = opendir(d);
    struct dirent *e;
    char p[1200];
    while (dd && (e = readdir(dd)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            unlink(p);
        }
    if (dd) closedir(dd);
    rmdir(d);
}

#define POST "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"

static void test_fc_lookup(void) {
    char cache[] = "/tmp/cuzk-test-bp-fc-XXXXXX", err[512] = "", path[1200];
    CHECK(mkdtemp(cache) != NULL);
    const char *prof[2] = {"winning-s1-r1", "winning-s2-r1"};
    struct cuzk_groth16_keydata kd[2];
    struct cuzk_pce pce[2];
    for (int i = 0; i < 2; i++) {
        struct cuzk_fc_profile p;
        CHECK(cuzk_fc_profile_parse(prof[i], &p, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_pce_get(cache, &p, &pce[i], NULL, err, sizeof err) == CUZK_OK);
        struct cuzk_rng rng;
        cuzk_rng_seed(&rng, 40 + (uint64_t)i);
        struct cuzk_keygen_opts ko = {.setup = {.gpu = CUZK_SETUP_GPU_OFF},
                                      .rng = &rng,
                                      .cs_checksum = pce[i].checksum,
                                      .h_basis = CUZK_H_COEFF};
        CHECK(cuzk_groth16_keygen_mem(pool, &pce[i].cs, &ko, &kd[i], err, sizeof err) == 0);
    }
    /* the key of profile 1 under a Filecoin name sorting first (a decoy for profile 0), then
     * profile 0's */
    snprintf(path, sizeof path, "%s/" POST "0000.params", cache);
    CHECK(cuzk_bpkey_write_params(&kd[1], path, err, sizeof err) == CUZK_OK);
    snprintf(path, sizeof path, "%s/" POST "1111.params", cache);
    CHECK(cuzk_bpkey_write_params(&kd[0], path, err, sizeof err) == CUZK_OK);
    struct cuzk_kind *k;
    CHECK(cuzk_kind_fc_create(&k, CUZK_FC_WINNING, cache, 0) == CUZK_OK);
    CHECK(k->key_cached(k, prof[0]) == 1);
    struct cuzk_kind_key key;
    memset(&key, 0, sizeof key);
    CHECK(k->key_load(k, prof[0], pool, NULL, &key, err, sizeof err) == CUZK_OK);
    /* the imported key is the file's: same IC, same H, bellperson's basis */
    CHECK(key.pk.ic && !memcmp(key.pk.ic, kd[0].ic, (kd[0].info.n_public + 1) * sizeof *kd[0].ic));
    CHECK(key.pk.h_basis == CUZK_H_COEFF);
    CHECK(key.pk.h && !memcmp(key.pk.h, kd[0].h, (kd[0].info.domain_size - 1) * sizeof *kd[0].h));
    CHECK(key.pk.n_a == kd[0].info.n_a && key.pk.n_b == kd[0].info.n_b);
    k->key_free(k, &key);
    char keyp[1200];
    CHECK(cuzk_kind_fc_key_path(cache, prof[0], keyp, sizeof keyp) == CUZK_OK);
    CHECK(access(keyp, F_OK) == 0); /* imported into the key cache once */
    k->destroy(k);
    /* a file with an h in the snarkjs basis (domain points) fits too: imported as that basis */
    char cache2[] = "/tmp/cuzk-test-bp-fc2-XXXXXX";
    CHECK(mkdtemp(cache2) != NULL);
    struct cuzk_fc_profile p0;
    CHECK(cuzk_fc_profile_parse(prof[0], &p0, err, sizeof err) == CUZK_OK);
    struct cuzk_pce again;
    CHECK(cuzk_pce_get(cache2, &p0, &again, NULL, err, sizeof err) == CUZK_OK);
    cuzk_pce_free(&again);
    const struct cuzk_g16key_info *in = &kd[0].info;
    struct cuzk_groth16_keydata sk; /* the same secrets, H in the snarkjs basis */
    struct cuzk_rng rng;
    cuzk_rng_seed(&rng, 40);
    struct cuzk_keygen_opts ko = {
        .setup = {.gpu = CUZK_SETUP_GPU_OFF}, .rng = &rng, .cs_checksum = pce[0].checksum};
    CHECK(cuzk_groth16_keygen_mem(pool, &pce[0].cs, &ko, &sk, err, sizeof err) == CUZK_OK);
    struct cuzk_bp_vk vk = {.alpha1 = in->alpha1,
                            .beta1 = in->beta1,
                            .beta2 = in->beta2,
                            .gamma2 = in->gamma2,
                            .delta1 = in->delta1,
                            .delta2 = in->delta2,
                            .n_ic = in->n_public + 1,
                            .ic = kd[0].ic};
    struct cuzk_bp_query q = {.h = sk.h,
                              .n_h = in->domain_size,
                              .l = kd[0].c,
                              .n_l = (size_t)in->n_vars - in->n_public - 1,
                              .a = kd[0].a,
                              .n_a = in->n_a,
                              .b_g1 = kd[0].b1,
                              .n_b_g1 = in->n_b,
                              .b_g2 = kd[0].b2,
                              .n_b_g2 = in->n_b};
    snprintf(path, sizeof path, "%s/" POST "2222.params", cache2);
    FILE *f = fopen(path, "wb");
    CHECK(f && cuzk_bp_params_write(f, &vk, &q, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    CHECK(cuzk_kind_fc_create(&k, CUZK_FC_WINNING, cache2, 0) == CUZK_OK);
    CHECK(k->key_cached(k, prof[0]) == 1);
    CHECK(k->key_cached(k, prof[1]) == 0); /* no file of its shape */
    memset(&key, 0, sizeof key);
    err[0] = 0;
    CHECK(k->key_load(k, prof[0], pool, NULL, &key, err, sizeof err) == CUZK_OK);
    if (*err) fprintf(stderr, "got: %s\n", err);
    CHECK(key.pk.h_basis == CUZK_H_SNARKJS);
    CHECK(key.pk.h && !memcmp(key.pk.h, sk.h, in->domain_size * sizeof *sk.h));
    k->key_free(k, &key);
    k->destroy(k);
    cuzk_groth16_keydata_free(&sk);
    for (int i = 0; i < 2; i++) {
        cuzk_groth16_keydata_free(&kd[i]);
        cuzk_pce_free(&pce[i]);
    }
    rm_dir(cache);
    rm_dir(cache2);
}

int main(void) {
    test_init("test_fc_params");
    CHECK(cuzk_pool_create(&pool, 2, "t") == CUZK_OK);
    test_fc_lookup();
    cuzk_pool_destroy(pool);
    return test_finish();
}
