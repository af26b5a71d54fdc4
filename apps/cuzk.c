/* cuzk: the offline command-line prover and tools for circom/snarkjs files on BLS12-381.
 *
 *   cuzk prove <zkey> <wtns> <proof.json> <public.json>   (rapidsnark's argument order)
 *   cuzk verify <verification_key.json> <public.json> <proof.json>
 *   cuzk setup <r1cs> <zkey>          (INSECURE development setup, for tests and benchmarks)
 *   cuzk setup-params <r1cs|profile> <key.params> <key.vk>   (the same, as bellperson's files;
 *                                     of an r1cs, or of a Filecoin circuit profile)
 *   cuzk export-vk <zkey> <verification_key.json>
 *   cuzk info <file>
 *   cuzk proof-json <proof.bin> <verification_key.json> <wtns> <proof.json> <public.json>
 *
 * Exit codes a script can rely on: 0 success (verify: the proof is valid); 1 the proof is
 * invalid (verify) or a fresh proof failed its self-check (prove); 2 usage error; 3 bad input
 * (a file missing, unreadable or malformed; the message says which and why); 4 internal error
 * (out of memory, a failed system call). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk/error.h"
#include "ec/encode.h"
#include "filecoin/pce.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/bpkey.h"
#include "groth16/cuda_backend.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "util/pool.h"
#include "util/clock.h"

enum { EXIT_VALID = 0, EXIT_INVALID = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_INTERNAL = 4 };

static const char usage[] =
    "usage: cuzk <command> [options] <args>\n"
    "  prove <zkey> <wtns> <proof.json> <public.json>   prove with a snarkjs Groth16 key\n"
    "  verify <verification_key.json> <public.json> <proof.json>\n"
    "  setup <r1cs> <zkey>         INSECURE development setup (random secrets, tests only)\n"
    "  setup-params <r1cs|profile> <key.params> <key.vk>\n"
    "                              the same, written as bellperson's .params and .vk files (h\n"
    "                              in bellperson's basis, docs/filecoin.md), of an r1cs or of\n"
    "                              a Filecoin circuit profile (wpost-s2-r2: what cuzk-bench\n"
    "                              check-params compares such files with)\n"
    "  export-vk <zkey> <verification_key.json>\n"
    "  info <file>                 what an .r1cs/.wtns/.zkey/.json file holds\n"
    "  proof-json <proof.bin> <verification_key.json> <wtns> <proof.json> <public.json>\n"
    "                              a daemon's 192-byte proof (compressed A|B|C) as snarkjs\n"
    "                              JSON, the public values taken from the witness\n"
    "options: --threads N (default: all CPUs), --seed N (prove/setup: deterministic randomness,\n"
    "         tests only), --no-verify (prove: skip the self-check), --quiet,\n"
    "         --backend auto|cpu|cuda (prove/setup; default auto: the GPU when there is one,\n"
    "         the CPU otherwise or when the GPU fails), --device N (the GPU, default 0)\n";

enum backend_choice { BACKEND_AUTO = 0, BACKEND_CPU, BACKEND_CUDA };

static struct {
    unsigned threads;
    int seeded;
    unsigned long long seed;
    int no_verify;
    int quiet;
    enum backend_choice backend;
    int device;
} opt;

/* Maps a cuzk error to an exit code: the caller's input or our own failure. */
static int exit_for(int rc) {
    return rc == CUZK_ENOMEM || rc == CUZK_EGPU || rc == CUZK_EGPUOOM || rc == CUZK_ENODEV
               ? EXIT_INTERNAL
               : EXIT_INPUT;
}

static int gpu_failure(int rc) {
    return rc == CUZK_ENODEV || rc == CUZK_EGPU || rc == CUZK_EGPUOOM;
}

/* The backend --backend asks for: be is the CUDA backend when *cuda is set on return, the CPU
 * backend otherwise. CUZK_OK, or the CUDA backend's error when --backend cuda cannot have it. */
static int backend_open(struct cuzk_backend *be, struct cuzk_pool *pool, int *cuda) {
    *cuda = 0;
    if (opt.backend != BACKEND_CPU) {
        int rc = cuzk_cuda_backend_init(be, opt.device, pool);
        if (rc == CUZK_OK) {
            *cuda = 1;
            return CUZK_OK;
        }
        if (opt.backend == BACKEND_CUDA) return rc;
    }
    cuzk_cpu_backend_init(be, pool);
    return CUZK_OK;
}

static int report(const char *what, int rc, const char *msg) {
    fprintf(stderr, "cuzk: %s: %s\n", what, msg && *msg ? msg : cuzk_strerror(rc));
    return exit_for(rc);
}

static void note(const char *fmt, double ms) {
    if (!opt.quiet) fprintf(stderr, fmt, ms);
}

static struct cuzk_pool *make_pool(void) {
    struct cuzk_pool *pool = NULL;
    if (cuzk_pool_create(&pool, opt.threads, "cuzk") != CUZK_OK) return NULL;
    return pool;
}

static int cmd_prove(char **a) {
    char err[512] = "";
    struct cuzk_pool *pool = make_pool();
    if (!pool) return report("prove", CUZK_ENOMEM, NULL);
    struct cuzk_zkey z = {0};
    struct cuzk_wtns wt = {0};
    struct cuzk_groth16_pk pk = {0};
    struct cuzk_snarkjs_vk vk = {0};
    struct cuzk_snarkjs_proof proof;
    struct cuzk_backend be;
    struct cuzk_rng rng;
    int ret = EXIT_VALID, rc, cuda = 0;
    double t0 = cuzk_clock_ms();
    struct cuzk_zkey_opts zo = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_AUTO};
    if ((rc = cuzk_zkey_load(&z, a[0], &zo, err, sizeof err))) {
        ret = report(a[0], rc, err);
        goto out;
    }
    if ((rc = cuzk_wtns_load(&wt, a[1], err, sizeof err))) {
        ret = report(a[1], rc, err);
        goto out;
    }
    if (wt.n != z.n_vars) {
        fprintf(stderr, "cuzk: %s: the witness has %u values, the key expects %u\n", a[1], wt.n,
                z.n_vars);
        ret = EXIT_INPUT;
        goto out;
    }
    if ((rc = cuzk_groth16_pk_prepare(&pk, &z))) {
        ret = report(a[0], rc, "cannot prepare the proving key");
        goto out;
    }
    double t1 = cuzk_clock_ms();
    note("cuzk: loaded key and witness in %.1f ms\n", t1 - t0);
    if ((rc = backend_open(&be, pool, &cuda))) {
        ret = report("prove: --backend cuda", rc, NULL);
        goto out;
    }
    if (opt.seeded) cuzk_rng_seed(&rng, opt.seed);
    rc = cuzk_groth16_prove(&be, &pk, wt.w, wt.n, opt.seeded ? &rng : NULL, NULL, &proof, NULL, err,
                            sizeof err);
    if (cuda && gpu_failure(rc) && opt.backend == BACKEND_AUTO) {
        fprintf(stderr, "cuzk: the GPU failed (%s); proving on the CPU\n", err);
        cuzk_cuda_backend_free(&be);
        cuda = 0;
        cuzk_cpu_backend_init(&be, pool);
        if (opt.seeded) cuzk_rng_seed(&rng, opt.seed); /* the same r and s */
        rc = cuzk_groth16_prove(&be, &pk, wt.w, wt.n, opt.seeded ? &rng : NULL, NULL, &proof, NULL,
                                err, sizeof err);
    }
    if (rc) {
        ret = report("prove", rc, err[0] ? err : NULL);
        goto out;
    }
    double t2 = cuzk_clock_ms();
    note(cuda ? "cuzk: proved in %.1f ms (cuda)\n" : "cuzk: proved in %.1f ms (cpu)\n", t2 - t1);
    if (!opt.no_verify) {
        if ((rc = cuzk_groth16_vk_from_pk(&vk, &pk))) {
            ret = report("verify", rc, NULL);
            goto out;
        }
        rc = cuzk_groth16_verify(&vk, wt.w + 1, z.n_public, &proof);
        if (rc != 1) {
            fprintf(stderr, "cuzk: the proof does not verify: the witness does not satisfy the "
                            "circuit of this key\n");
            ret = EXIT_INVALID;
            goto out;
        }
        note("cuzk: self-check passed in %.1f ms\n", cuzk_clock_ms() - t2);
    }
    if ((rc = cuzk_snarkjs_proof_save(a[2], &proof, err, sizeof err))) {
        ret = report(a[2], rc, err);
        goto out;
    }
    if ((rc = cuzk_snarkjs_public_save(a[3], wt.w + 1, z.n_public, err, sizeof err))) {
        ret = report(a[3], rc, err);
        goto out;
    }
out:
    if (cuda) cuzk_cuda_backend_free(&be);
    cuzk_snarkjs_vk_free(&vk);
    cuzk_groth16_pk_free(&pk);
    cuzk_wtns_free(&wt);
    cuzk_zkey_free(&z);
    cuzk_pool_destroy(pool);
    return ret;
}

static int cmd_verify(char **a) {
    char err[512] = "";
    struct cuzk_snarkjs_vk vk = {0};
    struct cuzk_snarkjs_proof proof;
    cuzk_fr *pub = NULL;
    size_t n_pub = 0;
    int ret, rc;
    if ((rc = cuzk_groth16_vk_load(&vk, a[0], err, sizeof err))) {
        ret = report(a[0], rc, err);
        goto out;
    }
    if ((rc = cuzk_snarkjs_public_load(&pub, &n_pub, a[1], err, sizeof err))) {
        ret = report(a[1], rc, err);
        goto out;
    }
    if ((rc = cuzk_snarkjs_proof_load(&proof, a[2], err, sizeof err))) {
        /* a proof with points off the curve or outside the group is an invalid proof */
        if (rc == CUZK_ENOTONCURVE || rc == CUZK_ENOTINSUBGROUP) {
            fprintf(stderr, "cuzk: INVALID proof: %s\n", err);
            ret = EXIT_INVALID;
        } else {
            ret = report(a[2], rc, err);
        }
        goto out;
    }
    if (n_pub != vk.n_public) {
        fprintf(stderr, "cuzk: INVALID: %s has %zu public values, the key expects %u\n", a[1],
                n_pub, vk.n_public);
        ret = EXIT_INVALID;
        goto out;
    }
    rc = cuzk_groth16_verify(&vk, pub, n_pub, &proof);
    if (rc == 1) {
        if (!opt.quiet) printf("OK\n");
        ret = EXIT_VALID;
    } else {
        fprintf(stderr, "cuzk: INVALID proof\n");
        ret = EXIT_INVALID;
    }
out:
    free(pub);
    cuzk_snarkjs_vk_free(&vk);
    return ret;
}

/* The setup's use of the GPU that --backend asks for. */
static enum cuzk_setup_gpu setup_gpu_mode(void) {
    return opt.backend == BACKEND_CPU    ? CUZK_SETUP_GPU_OFF
           : opt.backend == BACKEND_CUDA ? CUZK_SETUP_GPU_ONLY
                                         : CUZK_SETUP_GPU_AUTO;
}

/* Both development setups say what they are. */
static void warn_insecure(void) {
    fprintf(stderr, "cuzk: WARNING: INSECURE development setup: the secrets come from this "
                    "machine and\ncuzk: anyone who kept them could forge proofs. Use it for "
                    "tests and benchmarks only.\n");
}

static int cmd_setup(char **a) {
    char err[512] = "";
    struct cuzk_r1cs r = {0};
    struct cuzk_zkey z = {0};
    struct cuzk_rng rng;
    int ret = EXIT_VALID, rc;
    struct cuzk_pool *pool = make_pool();
    if (!pool) return report("setup", CUZK_ENOMEM, NULL);
    warn_insecure();
    double t0 = cuzk_clock_ms();
    if ((rc = cuzk_r1cs_load(&r, a[0], err, sizeof err))) {
        ret = report(a[0], rc, err);
        goto out;
    }
    if (opt.seeded) cuzk_rng_seed(&rng, opt.seed);
    struct cuzk_setup_opts so = {.device = opt.device};
    so.gpu = setup_gpu_mode();
    if ((rc =
             cuzk_groth16_setup_ex(pool, &r, opt.seeded ? &rng : NULL, &so, &z, err, sizeof err))) {
        ret = report("setup", rc, err);
        goto out;
    }
    if ((rc = cuzk_zkey_save(a[1], &z, err, sizeof err))) {
        ret = report(a[1], rc, err);
        goto out;
    }
    note("cuzk: setup written in %.1f ms\n", cuzk_clock_ms() - t0);
out:
    cuzk_zkey_free(&z);
    cuzk_r1cs_free(&r);
    cuzk_pool_destroy(pool);
    return ret;
}

/* The points-only development key of an r1cs, or of a Filecoin circuit profile (its recorded
 * system, the one the daemon's key of that profile is made from: filecoin/pce.h), as
 * bellperson's files: H in bellperson's coefficient basis, so that the .params file is one
 * bellperson's prover reads as its own. An argument that names no file is taken as a profile. */
static int cmd_setup_params(char **a) {
    char err[512] = "";
    struct cuzk_r1cs r = {0};
    struct cuzk_cs cs_own = {0};
    struct cuzk_pce pce = {0};
    const struct cuzk_cs *cs = &cs_own;
    struct cuzk_groth16_keydata kd = {0};
    struct cuzk_fc_profile prof;
    struct cuzk_rng rng;
    struct stat st;
    int ret = EXIT_VALID, rc;
    struct cuzk_pool *pool = make_pool();
    if (!pool) return report("setup-params", CUZK_ENOMEM, NULL);
    warn_insecure();
    double t0 = cuzk_clock_ms();
    if (stat(a[0], &st)) {
        char why[256];
        const char *no_file = strerror(errno);
        if (cuzk_fc_profile_parse(a[0], &prof, why, sizeof why)) {
            snprintf(err, sizeof err, "neither a file (%s) nor a circuit profile (%s)", no_file,
                     why);
            ret = report(a[0], CUZK_EINVAL, err);
            goto out;
        }
        if ((rc = cuzk_pce_get(NULL, &prof, &pce, NULL, err, sizeof err))) {
            ret = report(a[0], rc, err);
            goto out;
        }
        cs = &pce.cs;
    } else if ((rc = cuzk_r1cs_load(&r, a[0], err, sizeof err))) {
        ret = report(a[0], rc, err);
        goto out;
    } else if ((rc = cuzk_r1cs_to_cs(&r, &cs_own))) {
        ret = report(a[0], rc, "cannot build its constraint system");
        goto out;
    }
    if (opt.seeded) cuzk_rng_seed(&rng, opt.seed);
    struct cuzk_keygen_opts ko = {
        .rng = opt.seeded ? &rng : NULL, .setup.device = opt.device, .h_basis = CUZK_H_COEFF};
    ko.setup.gpu = setup_gpu_mode();
    if ((rc = cuzk_groth16_keygen_mem(pool, cs, &ko, &kd, err, sizeof err))) {
        ret = report("setup-params", rc, err);
        goto out;
    }
    if ((rc = cuzk_bpkey_write_params(&kd, a[1], err, sizeof err))) {
        ret = report(a[1], rc, err);
        goto out;
    }
    if ((rc = cuzk_bpkey_write_vk(&kd, a[2], err, sizeof err))) {
        ret = report(a[2], rc, err);
        goto out;
    }
    note("cuzk: setup written in %.1f ms\n", cuzk_clock_ms() - t0);
out:
    cuzk_groth16_keydata_free(&kd);
    cuzk_pce_free(&pce);
    cuzk_cs_free(&cs_own);
    cuzk_r1cs_free(&r);
    cuzk_pool_destroy(pool);
    return ret;
}

static int cmd_export_vk(char **a) {
    char err[512] = "";
    struct cuzk_zkey z = {0};
    struct cuzk_snarkjs_vk vk = {0};
    int ret = EXIT_VALID, rc;
    struct cuzk_pool *pool = make_pool();
    struct cuzk_zkey_opts zo = {.pool = pool, .subgroup = CUZK_ZKEY_SUBGROUP_AUTO};
    if ((rc = cuzk_zkey_load(&z, a[0], &zo, err, sizeof err))) {
        ret = report(a[0], rc, err);
        goto out;
    }
    if ((rc = cuzk_groth16_vk_from_zkey(&vk, &z))) {
        ret = report("export-vk", rc, NULL);
        goto out;
    }
    if ((rc = cuzk_snarkjs_vk_save(a[1], &vk, err, sizeof err))) ret = report(a[1], rc, err);
out:
    cuzk_snarkjs_vk_free(&vk);
    cuzk_zkey_free(&z);
    cuzk_pool_destroy(pool);
    return ret;
}

/* proof-json: the 192 bytes the daemon returns for one partition (zcash-compressed A, B, C)
 * as snarkjs' proof.json, and the public values (witness wires 1 .. n_public of the key) as
 * public.json, so snarkjs and `cuzk verify` can check a daemon proof. */
static int cmd_proof_json(char **a) {
    char err[512] = "";
    uint8_t bin[CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED + CUZK_G1_COMPRESSED + 1];
    struct cuzk_snarkjs_vk vk = {0};
    struct cuzk_wtns wt = {0};
    struct cuzk_snarkjs_proof proof;
    int ret = EXIT_VALID, rc;
    FILE *f = fopen(a[0], "rb");
    if (!f) {
        fprintf(stderr, "cuzk: %s: %s\n", a[0], strerror(errno));
        return EXIT_INPUT;
    }
    size_t got = fread(bin, 1, sizeof bin, f);
    fclose(f);
    if (got != sizeof bin - 1) {
        fprintf(stderr, "cuzk: %s: a proof is %zu bytes (compressed A, B, C), not %s%zu\n", a[0],
                sizeof bin - 1, got == sizeof bin ? "more than " : "", got);
        return EXIT_INPUT;
    }
    if ((rc = cuzk_g1_from_compressed(&proof.a, bin)) ||
        (rc = cuzk_g2_from_compressed(&proof.b, bin + CUZK_G1_COMPRESSED)) ||
        (rc = cuzk_g1_from_compressed(&proof.c, bin + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED))) {
        snprintf(err, sizeof err, "%s: not a valid compressed proof (%s)", a[0], cuzk_strerror(rc));
        ret = report("proof-json", rc, err);
        goto out;
    }
    if ((rc = cuzk_groth16_vk_load(&vk, a[1], err, sizeof err))) {
        ret = report(a[1], rc, err);
        goto out;
    }
    if ((rc = cuzk_wtns_load(&wt, a[2], err, sizeof err))) {
        ret = report(a[2], rc, err);
        goto out;
    }
    if (wt.n < (uint64_t)vk.n_public + 1) {
        snprintf(err, sizeof err, "%s: %u wires, the key has %u public values", a[2], wt.n,
                 vk.n_public);
        ret = report("proof-json", CUZK_EFORMAT, err);
        goto out;
    }
    if ((rc = cuzk_snarkjs_proof_save(a[3], &proof, err, sizeof err))) {
        ret = report(a[3], rc, err);
        goto out;
    }
    if ((rc = cuzk_snarkjs_public_save(a[4], wt.w + 1, vk.n_public, err, sizeof err)))
        ret = report(a[4], rc, err);
out:
    cuzk_wtns_free(&wt);
    cuzk_snarkjs_vk_free(&vk);
    return ret;
}

/* info: identify the file by its magic (binary) or its JSON keys, and summarise it. */
static int cmd_info(char **a) {
    char err[512] = "";
    unsigned char magic[4] = {0};
    FILE *f = fopen(a[0], "rb");
    if (!f) {
        fprintf(stderr, "cuzk: %s: %s\n", a[0], strerror(errno));
        return EXIT_INPUT;
    }
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    int rc;
    if (got == 4 && !memcmp(magic, "r1cs", 4)) {
        struct cuzk_r1cs r = {0};
        if ((rc = cuzk_r1cs_load(&r, a[0], err, sizeof err))) return report(a[0], rc, err);
        printf("r1cs: curve bls12381, %u constraints, %u wires, %u public outputs, %u public "
               "inputs, %u private inputs, %llu labels, %llu terms\n",
               r.n_constraints, r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in,
               (unsigned long long)r.n_labels, (unsigned long long)r.n_terms);
        cuzk_r1cs_free(&r);
    } else if (got == 4 && !memcmp(magic, "wtns", 4)) {
        struct cuzk_wtns w = {0};
        if ((rc = cuzk_wtns_load(&w, a[0], err, sizeof err))) return report(a[0], rc, err);
        printf("wtns: curve bls12381, %u values\n", w.n);
        cuzk_wtns_free(&w);
    } else if (got == 4 && !memcmp(magic, "zkey", 4)) {
        struct cuzk_zkey z = {0};
        struct cuzk_zkey_opts zo = {.pool = NULL, .subgroup = CUZK_ZKEY_SUBGROUP_SKIP};
        if ((rc = cuzk_zkey_load(&z, a[0], &zo, err, sizeof err))) return report(a[0], rc, err);
        printf("zkey: groth16, curve bls12381, %u variables, %u public, domain 2^%d (%u), "
               "%u coefficients, %u contributions\n",
               z.n_vars, z.n_public, __builtin_ctz(z.domain_size), z.domain_size, z.n_coefs,
               z.n_contributions);
        cuzk_zkey_free(&z);
    } else {
        struct cuzk_snarkjs_proof p;
        struct cuzk_snarkjs_vk vk = {0};
        cuzk_fr *pub = NULL;
        size_t n = 0;
        if (cuzk_snarkjs_proof_load(&p, a[0], err, sizeof err) == CUZK_OK) {
            printf("proof.json: groth16 proof on bls12381 (points valid)\n");
        } else if (cuzk_groth16_vk_load(&vk, a[0], err, sizeof err) == CUZK_OK) {
            printf("verification_key.json: groth16, bls12381, %u public inputs\n", vk.n_public);
            cuzk_snarkjs_vk_free(&vk);
        } else if (cuzk_snarkjs_public_load(&pub, &n, a[0], err, sizeof err) == CUZK_OK) {
            printf("public.json: %zu public values\n", n);
            free(pub);
        } else {
            fprintf(stderr, "cuzk: %s: not an r1cs, wtns, zkey, proof, key or public file\n", a[0]);
            return EXIT_INPUT;
        }
    }
    return EXIT_VALID;
}

int main(int argc, char **argv) {
    struct {
        const char *name;
        int nargs;
        int (*fn)(char **);
    } cmds[] = {{"prove", 4, cmd_prove},          {"verify", 3, cmd_verify},
                {"setup", 2, cmd_setup},          {"setup-params", 3, cmd_setup_params},
                {"export-vk", 2, cmd_export_vk},  {"info", 1, cmd_info},
                {"proof-json", 5, cmd_proof_json}};
    char *pos[8];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--threads") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 4096) {
                fprintf(stderr, "cuzk: --threads wants a number from 1 to 4096\n");
                return EXIT_USAGE;
            }
            opt.threads = (unsigned)v;
        } else if (!strcmp(s, "--seed") && i + 1 < argc) {
            char *end;
            opt.seed = strtoull(argv[++i], &end, 0);
            if (*end) {
                fprintf(stderr, "cuzk: --seed wants a number\n");
                return EXIT_USAGE;
            }
            opt.seeded = 1;
        } else if (!strcmp(s, "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            if (!strcmp(b, "auto")) {
                opt.backend = BACKEND_AUTO;
            } else if (!strcmp(b, "cpu")) {
                opt.backend = BACKEND_CPU;
            } else if (!strcmp(b, "cuda")) {
                opt.backend = BACKEND_CUDA;
            } else {
                fprintf(stderr, "cuzk: --backend wants auto, cpu or cuda\n");
                return EXIT_USAGE;
            }
        } else if (!strcmp(s, "--device") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v > 1023) {
                fprintf(stderr, "cuzk: --device wants a device number\n");
                return EXIT_USAGE;
            }
            opt.device = (int)v;
        } else if (!strcmp(s, "--no-verify")) {
            opt.no_verify = 1;
        } else if (!strcmp(s, "--quiet")) {
            opt.quiet = 1;
        } else if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            fputs(usage, stdout);
            return EXIT_VALID;
        } else if (s[0] == '-' && s[1] == '-') {
            fprintf(stderr, "cuzk: unknown option %s\n%s", s, usage);
            return EXIT_USAGE;
        } else if (npos < 8) {
            pos[npos++] = argv[i];
        } else {
            fprintf(stderr, "cuzk: too many arguments\n%s", usage);
            return EXIT_USAGE;
        }
    }
    if (npos == 0) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        if (strcmp(pos[0], cmds[c].name)) continue;
        if (npos - 1 != cmds[c].nargs) {
            fprintf(stderr, "cuzk: %s takes %d arguments\n%s", cmds[c].name, cmds[c].nargs, usage);
            return EXIT_USAGE;
        }
        return cmds[c].fn(pos + 1);
    }
    fprintf(stderr, "cuzk: unknown command %s\n%s", pos[0], usage);
    return EXIT_USAGE;
}
