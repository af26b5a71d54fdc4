/* The CUDA backend of the Groth16 prover (contract: cuda_backend.h): init and free, the settings,
 * the stats and the last timing, batch multiplication, and the helpers the backend's files
 * share. The backend's DESIGN (threads, locks, memory) opens cuda_backend_impl.h. */
#define _GNU_SOURCE
#include "groth16/cuda_backend_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_points.h"

static const char *mod_error(enum gpu_mod m) {
    switch (m) {
    case MOD_NTT: return cuzk_gpu_ntt_last_error();
    case MOD_MSM: return cuzk_gpu_msm_last_error();
    case MOD_G16: return cuzk_gpu_g16_last_error();
    case MOD_PTS: return cuzk_gpu_points_last_error();
    default: return "";
    }
}

/* Writes what failed (the stage, the code, the module's description) into err; returns rc. */
int cuzk_cuda_failed(char *err, size_t errlen, const char *stage, enum gpu_mod m, int rc) {
    const char *why = mod_error(m);
    snprintf(err, errlen, "%s: %s%s%s", stage, cuzk_strerror(rc), *why ? ": " : "", why);
    return rc;
}

/* ---- the backend -------------------------------------------------------------------------- */

int cuzk_cuda_backend_init(struct cuzk_backend *be, int device, struct cuzk_pool *pool) {
    memset(be, 0, sizeof *be);
    int count = 0;
    cuzk_gpu_count(&count);
    if (count <= 0) return CUZK_ENODEV;
    if (device < 0 || device >= count) return CUZK_EINVAL;
    struct cuda_state *st = calloc(1, sizeof *st);
    if (!st) return CUZK_ENOMEM;
    st->device = device;
    st->pool = pool;
    cuzk_vram_init(&st->vram, 0);
    if (cuzk_slots_init(&st->slots, SLOTS)) {
        free(st);
        return CUZK_EINVAL;
    }
    atomic_init(&st->places, SLOTS);
    pthread_mutex_init(&st->dev_mu, NULL);
    pthread_mutex_init(&st->info_mu, NULL);
    pthread_mutex_init(&st->plan_mu, NULL);
    be->name = "cuda";
    be->impl = st;
    be->prove = cuzk_cuda_prove;
    be->mem = cuzk_cuda_mem;
    be->witness_alloc = cuzk_cuda_witness_alloc;
    be->witness_free = cuzk_cuda_witness_free;
    be->key_upload = cuzk_cuda_key_upload;
    be->key_drop = cuzk_cuda_key_drop;
    be->key_host = cuzk_cuda_key_host;
    be->key_needs_rows = cuzk_cuda_key_needs_rows;
    be->places = cuzk_cuda_places;
    be->describe = cuzk_cuda_describe;
    be->device_info = cuzk_cuda_device_info;
    struct cuzk_cuda_config def;
    cuzk_cuda_config_default(&def);
    return cuzk_cuda_backend_configure(be, &def); /* the defaults are valid: CUZK_OK */
}

void cuzk_cuda_backend_free(struct cuzk_backend *be) {
    struct cuda_state *st = be->impl;
    if (!st) return;
    while (st->keys) cuzk_cuda_key_unlink(st, &st->keys);
    cuzk_cuda_work_drop(st);
    cuzk_slots_destroy(&st->slots);
    pthread_mutex_destroy(&st->dev_mu);
    pthread_mutex_destroy(&st->info_mu);
    pthread_mutex_destroy(&st->plan_mu);
    free(st);
    memset(be, 0, sizeof *be);
}

/* The budget bytes would come to on st's device (0: the default), or 0 when it has fewer. */
static uint64_t budget_bytes(const struct cuda_state *st, uint64_t bytes) {
    size_t free_b = 0, total_b = 0;
    cuzk_gpu_mem_info(st->device, &free_b, &total_b);
    if (bytes) return bytes <= total_b ? bytes : 0;
    const uint64_t reserve = cuzk_cuda_vram_reserve(total_b);
    return total_b > reserve ? total_b - reserve : 0;
}

int cuzk_cuda_backend_configure(struct cuzk_backend *be, const struct cuzk_cuda_config *cfg) {
    struct cuda_state *st = be->impl;
    if (!st || !cfg || cfg->fold_h_min < 0 || cfg->fold_dense_min < 0) return CUZK_EINVAL;
    const uint64_t limit = budget_bytes(st, cfg->vram_budget);
    if (cfg->vram_budget && !limit) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    cuzk_vram_set_limit(&st->vram, limit);
    atomic_store(&st->fold_min, (size_t)cfg->fold_h_min);
    atomic_store(&st->fold_dense_min, (size_t)cfg->fold_dense_min);
    atomic_store(&st->presum, cfg->presum ? 1 : 0);
    atomic_store(&st->overlap, cfg->overlap_ntt ? 1 : 0);
    /* a new budget or threshold may hold what the old ones refused: ask again */
    st->fold_refused = 0;
    st->presum_refused = 0;
    st->presum_g2_refused = 0;
    pthread_mutex_unlock(&st->dev_mu);
    return CUZK_OK;
}

int cuzk_cuda_backend_config(const struct cuzk_backend *be, struct cuzk_cuda_config *out) {
    struct cuda_state *st = be->impl;
    cuzk_cuda_config_default(out);
    if (!st) return CUZK_EINVAL;
    out->vram_budget = cuzk_vram_limit(&st->vram);
    out->fold_h_min = (int64_t)atomic_load(&st->fold_min);
    out->fold_dense_min = (int64_t)atomic_load(&st->fold_dense_min);
    out->presum = atomic_load(&st->presum);
    out->overlap_ntt = atomic_load(&st->overlap);
    return CUZK_OK;
}

void cuzk_cuda_backend_stats(const struct cuzk_backend *be, struct cuzk_cuda_stats *out) {
    struct cuda_state *st = be->impl;
    memset(out, 0, sizeof *out);
    if (!st) return;
    out->device = st->device;
    out->keys = atomic_load(&st->n_keys);
    out->bases_vram = cuzk_vram_part(&st->vram, CUZK_VRAM_KEYS);
    out->work_vram =
        cuzk_vram_part(&st->vram, CUZK_VRAM_WORK) + cuzk_vram_part(&st->vram, CUZK_VRAM_PRESUM);
    out->vram_budget = cuzk_vram_limit(&st->vram);
    out->pinned = atomic_load(&st->pinned);
    out->proofs = atomic_load(&st->proofs);
    out->folded = atomic_load(&st->n_folded);
    out->dense_folded = atomic_load(&st->n_dense_folded);
    out->presum_space = atomic_load(&st->work_presum);
    out->msm_points = st->cap_msm; /* a size_t written under dev_mu: a stale value at worst */
    out->streamed_keys = atomic_load(&st->n_streamed);
    out->host_bases = atomic_load(&st->host_bases);
    out->link_bytes = atomic_load(&st->link_bytes);
    out->link_ms = (double)atomic_load(&st->link_us) / 1e3;
}

int cuzk_cuda_backend_plan(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                           struct cuzk_cuda_plan_sizes *sizes, struct cuzk_cuda_plan *plan,
                           char *err, size_t errlen) {
    struct cuda_state *st = be->impl;
    if (!st || !pk || !sizes || !plan) return CUZK_EINVAL;
    pthread_mutex_lock(&st->dev_mu);
    cuzk_cuda_plan_sizes(st, pk, sizes);
    pthread_mutex_unlock(&st->dev_mu);
    return cuzk_cuda_plan_make(sizes, plan, err, errlen);
}

int cuzk_cuda_backend_last_timing(const struct cuzk_backend *be, struct cuzk_cuda_timing *out) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    pthread_mutex_lock(&st->info_mu);
    int have = st->have_last;
    if (have) *out = st->last;
    pthread_mutex_unlock(&st->info_mu);
    return have ? CUZK_OK : CUZK_ENOTFOUND;
}

int cuzk_cuda_batch_mul(int device, int g2, const void *base, const cuzk_fr *scalars, size_t n,
                        void *out, char *err, size_t errlen) {
    int rc = g2 ? cuzk_gpu_g2_batch_mul(device, base, scalars, n, out)
                : cuzk_gpu_g1_batch_mul(device, base, scalars, n, out);
    if (!rc) return CUZK_OK;
    const char *why = rc == CUZK_ENOMEM ? "" : cuzk_gpu_msm_last_error();
    return cuzk_errf(err, errlen, rc, "%s%s%s", cuzk_strerror(rc), *why ? ": " : "", why);
}
