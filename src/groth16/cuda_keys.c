/* The CUDA backend's resident keys (cuda_backend_impl.h): uploads, drops and evictions, and the
 * dense queries' folds after a key's first proof. Its DESIGN opens cuda_backend_impl.h. */
#define _GNU_SOURCE
#include "groth16/cuda_backend_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "formats/g16key.h"
#include "gpu/gpu.h"
#include "gpu/gpu_points.h"
#include "util/log.h"

/* ---- resident keys (dev_mu held) ---------------------------------------------------------- */

static void key_entry_free(struct cuda_state *st, struct key_entry *k) {
    cuzk_cuda_query_host_free(st, k);
    if (k->ab_host) {
        cuzk_gpu_pinned_free(k->ab_host, k->ab_bytes);
        atomic_fetch_sub(&st->host_bases, k->ab_bytes);
    }
    cuzk_gpu_bases_free(k->a);
    cuzk_gpu_bases_free(k->b1);
    cuzk_gpu_bases_free(k->b2);
    cuzk_gpu_bases_free(k->c);
    cuzk_gpu_bases_free(k->h);
    cuzk_gpu_cs_free(k->cs);
    cuzk_gpu_idx_free(k->a_idx);
    cuzk_gpu_idx_free(k->b_idx);
    free(k);
}

void cuzk_cuda_key_unlink(struct cuda_state *st, struct key_entry **link) {
    struct key_entry *k = *link;
    *link = k->next;
    st->keys_gen++;
    if (cuzk_vram_uncharge(&st->vram, CUZK_VRAM_KEYS, k->bytes))
        cuzk_log_error("cuda", "device %d: the ledger held less than the key's %llu bytes",
                       st->device, (unsigned long long)k->bytes);
    atomic_fetch_sub(&st->n_keys, 1);
    if (k->h_folded) atomic_fetch_sub(&st->n_folded, 1);
    atomic_fetch_sub(&st->n_dense_folded, k->n_dense);
    if (k->plan.streamed) atomic_fetch_sub(&st->n_streamed, 1);
    key_entry_free(st, k);
}

struct key_entry *cuzk_cuda_key_find(struct cuda_state *st, uint64_t uid) {
    for (struct key_entry *k = st->keys; k; k = k->next)
        if (k->uid == uid) return k;
    return NULL;
}

size_t cuzk_cuda_host_vectors(const struct cuda_state *st, const struct cuzk_cuda_plan *plan,
                              uint32_t domain) {
    const int tight = plan->tight || atomic_load(&st->cap_space) == SPACE_TIGHT;
    return (tight ? 3u : plan->host_rows ? 2u : 0u) * (size_t)domain * sizeof(cuzk_fr);
}

int cuzk_cuda_key_vectors(struct cuda_state *st, struct key_entry *k, size_t bytes, char *err,
                          size_t errlen) {
    if (k->ab_bytes >= bytes) return CUZK_OK;
    void *p;
    int rc = cuzk_gpu_pinned_alloc(bytes, &p);
    if (rc)
        return cuzk_cuda_failed(err, errlen, "pinned host memory for the vectors a, b and c",
                                MOD_G16, rc);
    if (k->ab_host) {
        cuzk_gpu_pinned_free(k->ab_host, k->ab_bytes);
        atomic_fetch_sub(&st->host_bases, k->ab_bytes);
    }
    k->ab_host = p;
    k->ab_bytes = bytes;
    atomic_fetch_add(&st->host_bases, bytes);
    return CUZK_OK;
}

/* Device bytes pk's resident copy will take under its residency plan on this device (all of it
 * when no plan holds it: the refusal is cuzk_cuda_never_fits'). */
uint64_t cuzk_cuda_key_bytes_for(const struct cuda_state *st, const struct cuzk_groth16_pk *pk) {
    struct cuzk_cuda_plan_sizes s;
    struct cuzk_cuda_plan plan;
    char err[8];
    cuzk_cuda_plan_sizes(st, pk, &s);
    if (cuzk_cuda_plan_make(&s, &plan, err, sizeof err) == CUZK_OK) return plan.device_key;
    uint64_t b = s.fixed;
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) b += s.query[q];
    return b;
}

/* One point section from the key file into fresh bases: chunk by chunk into the loader's
 * pinned buffers, decoded on the device. */
static int section_from_file(struct cuda_state *st, struct cuzk_gpu_points_loader *ld,
                             struct cuzk_g16key *f, enum cuzk_g16key_section s,
                             enum cuzk_gpu_group g, struct cuzk_gpu_bases **out, char *err,
                             size_t errlen) {
    const struct cuzk_g16key_info *info = cuzk_g16key_get_info(f);
    size_t count = cuzk_g16key_count(f, s), chunk = info->chunk_points;
    enum cuzk_gpu_point_enc enc = info->compressed ? CUZK_GPU_PT_COMPRESSED : CUZK_GPU_PT_LEM;
    int rc = cuzk_gpu_bases_create(st->device, g, count, out);
    if (rc) return cuzk_cuda_failed(err, errlen, "key upload", MOD_PTS, rc);
    for (size_t first = 0; first < count; first += chunk) {
        size_t n = count - first < chunk ? count - first : chunk;
        void *buf;
        if ((rc = cuzk_gpu_points_loader_buffer(ld, &buf)))
            return cuzk_cuda_failed(err, errlen, "key upload", MOD_PTS, rc);
        char rerr[256];
        if ((rc = cuzk_g16key_read(f, s, first, n, buf, rerr, sizeof rerr))) {
            snprintf(err, errlen, "key upload: %s", rerr);
            return rc;
        }
        if ((rc = cuzk_gpu_points_loader_submit(ld, *out, first, n, enc)))
            return cuzk_cuda_failed(err, errlen, "key upload", MOD_PTS, rc);
    }
    size_t bad = SIZE_MAX;
    if ((rc = cuzk_gpu_points_loader_finish(ld, &bad))) {
        if (rc == CUZK_EFORMAT) {
            snprintf(err, errlen, "key upload: section %s: point %zu does not decode",
                     cuzk_g16key_section_name(s), bad);
            return rc;
        }
        return cuzk_cuda_failed(err, errlen, "key upload", MOD_PTS, rc);
    }
    return CUZK_OK;
}

static int points_from_file(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                            struct key_entry *k, char *err, size_t errlen) {
    struct cuzk_g16key *f = pk->file;
    const struct cuzk_g16key_info *info = cuzk_g16key_get_info(f);
    size_t pt = cuzk_gpu_point_enc_bytes(CUZK_GPU_G2, info->compressed ? CUZK_GPU_PT_COMPRESSED
                                                                       : CUZK_GPU_PT_LEM);
    /* a buffer holds one whole chunk of the largest points (G2): cuzk_g16key_read reads whole
     * chunks only, so a smaller buffer would be overrun */
    size_t chunk_bytes = (size_t)info->chunk_points * pt;
    struct cuzk_gpu_points_loader *ld;
    int rc = cuzk_gpu_points_loader_create(st->device, chunk_bytes, &ld);
    if (rc) return cuzk_cuda_failed(err, errlen, "key loader", MOD_PTS, rc);
    /* the resident queries only: the streamed ones go to host memory (cuzk_cuda_query_host) */
    static const enum cuzk_g16key_section sec[CUZK_CUDA_Q_N] = {
        CUZK_G16KEY_A, CUZK_G16KEY_B1, CUZK_G16KEY_B2, CUZK_G16KEY_C, CUZK_G16KEY_H};
    struct cuzk_gpu_bases **dst[CUZK_CUDA_Q_N] = {&k->a, &k->b1, &k->b2, &k->c, &k->h};
    for (int q = 0; !rc && q < CUZK_CUDA_Q_N; q++) {
        if ((k->plan.streamed >> q & 1u) || (q == CUZK_CUDA_Q_C && !cuzk_g16key_count(f, sec[q])))
            continue;
        rc = section_from_file(st, ld, f, sec[q], q == CUZK_CUDA_Q_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1,
                               dst[q], err, errlen);
    }
    cuzk_gpu_points_loader_free(ld);
    return rc;
}

static int points_from_host(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                            struct key_entry *k, char *err, size_t errlen) {
    size_t nc = (size_t)pk->n_vars - pk->n_public - 1;
    const unsigned str = k->plan.streamed; /* those go to host memory (cuzk_cuda_query_host) */
    int rc;
    if ((!(str & 1u << CUZK_CUDA_Q_A) &&
         (rc = cuzk_gpu_g1_bases_upload(st->device, pk->a, pk->n_a, &k->a))) ||
        (!(str & 1u << CUZK_CUDA_Q_B1) &&
         (rc = cuzk_gpu_g1_bases_upload(st->device, pk->b1, pk->n_b, &k->b1))) ||
        (!(str & 1u << CUZK_CUDA_Q_B2) &&
         (rc = cuzk_gpu_g2_bases_upload(st->device, pk->b2, pk->n_b, &k->b2))) ||
        (nc && !(str & 1u << CUZK_CUDA_Q_C) &&
         (rc = cuzk_gpu_g1_bases_upload(st->device, pk->c, nc, &k->c))) ||
        (!(str & 1u << CUZK_CUDA_Q_H) &&
         (rc = cuzk_gpu_g1_bases_upload(st->device, pk->h, k->n_h, &k->h))))
        return cuzk_cuda_failed(err, errlen, "key upload", rc == CUZK_ENOMEM ? MOD_HOST : MOD_MSM,
                                rc);
    return CUZK_OK;
}
/* Makes pk resident (dev_mu held; the work objects already fit it). */
static int key_make(struct cuda_state *st, const struct cuzk_groth16_pk *pk, struct key_entry **out,
                    char *err, size_t errlen) {
    int host = pk->a && pk->b1 && pk->b2 && pk->h && (pk->c || pk->n_vars == pk->n_public + 1);
    if (!host && !pk->file) {
        snprintf(err, errlen, "key upload: the key has neither host points nor a key file");
        return CUZK_EINVAL;
    }
    if (!pk->cs) {
        snprintf(err, errlen, "key upload: the key's A/B rows are not in host memory");
        return CUZK_EINVAL;
    }
    if (!host && cuzk_g16key_get_info(pk->file)->h_basis != pk->h_basis) {
        snprintf(err, errlen, "key upload: the key file's H basis is not the key's");
        return CUZK_EINVAL;
    }
    struct cuzk_cuda_plan plan;
    char why[384];
    if (cuzk_cuda_plan_for(st, pk, &plan, why, sizeof why) != CUZK_OK) {
        cuzk_cuda_never_fits_locked(st, pk, "key upload", err, errlen);
        return CUZK_EUNSUPPORTED;
    }
    uint64_t need = plan.device_key;
    if (!cuzk_cuda_room_for(st, need, "a key")) {
        if (cuzk_cuda_never_fits_locked(st, pk, "key upload", err, errlen))
            return CUZK_EUNSUPPORTED;
        return cuzk_vram_refuse(&st->vram, "key upload: the key", need, err, errlen);
    }
    struct key_entry *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "key upload: out of host memory");
        return CUZK_ENOMEM;
    }
    k->uid = pk->uid;
    k->plan = plan;
    k->plain_bytes = need; /* before the H query's fold below */
    k->n_vars = pk->n_vars;
    k->n_public = pk->n_public;
    k->domain = pk->domain_size;
    k->n_a = pk->n_a;
    k->n_b = pk->n_b;
    k->n_pub_rows = pk->n_pub_rows;
    k->rows = (uint32_t)pk->cs->n_rows;
    k->log_n = pk->log_n;
    k->h_basis = pk->h_basis;
    k->n_h = cuzk_h_basis_points(pk->h_basis, pk->domain_size);
    int rc =
        host ? points_from_host(st, pk, k, err, errlen) : points_from_file(st, pk, k, err, errlen);
    for (int q = 0; !rc && q < CUZK_CUDA_Q_N; q++)
        if (plan.streamed >> q & 1u) rc = cuzk_cuda_query_host(st, pk, k, q, err, errlen);
    /* the SpMV's a and b made on the CPU, and c, cross from the key's host vectors */
    const size_t vec_bytes = cuzk_cuda_host_vectors(st, &plan, pk->domain_size);
    if (!rc && vec_bytes) rc = cuzk_cuda_key_vectors(st, k, vec_bytes, err, errlen);
    if (!rc && !plan.host_rows && (rc = cuzk_gpu_cs_upload(st->device, pk->cs, &k->cs))) {
        cuzk_cuda_failed(err, errlen, "upload of the A/B rows", MOD_G16, rc);
    }
    if (!rc && pk->a_wires &&
        (rc = cuzk_gpu_idx_upload(st->device, pk->a_wires, pk->n_a, &k->a_idx)))
        cuzk_cuda_failed(err, errlen, "upload of the A wires", MOD_G16, rc);
    if (!rc && pk->b_wires &&
        (rc = cuzk_gpu_idx_upload(st->device, pk->b_wires, pk->n_b, &k->b_idx)))
        cuzk_cuda_failed(err, errlen, "upload of the B wires", MOD_G16, rc);
    if (rc) {
        key_entry_free(st, k);
        return rc;
    }
    /* the H query folded when wanted, the context folds and the budget holds the copy */
    const uint64_t fold_bytes = cuzk_cuda_h_fold_bytes(pk);
    if (cuzk_cuda_fold_wanted(st, pk) && st->cap_fold && k->h) {
        if (!cuzk_cuda_room_for(st, need + fold_bytes, "a key with its folded H query")) {
            cuzk_log_info("cuda",
                          "device %d: H query of %u points not folded: the budget of %llu bytes "
                          "does not hold its %llu bytes of multiples",
                          st->device, k->n_h, (unsigned long long)cuzk_vram_limit(&st->vram),
                          (unsigned long long)fold_bytes);
        } else {
            double t0 = cuzk_clock_ms();
            rc = cuzk_gpu_bases_fold(k->h, 0);
            if (rc == CUZK_EGPUOOM) { /* device memory short of the budget: the key stays plain */
                cuzk_log_warn("cuda", "device %d: H query of %u points not folded: %s", st->device,
                              k->n_h, cuzk_gpu_msm_last_error());
                rc = CUZK_OK;
            } else if (rc) {
                cuzk_cuda_failed(err, errlen, "fold of the H query", MOD_MSM, rc);
                key_entry_free(st, k);
                return rc;
            } else {
                need += fold_bytes;
                cuzk_log_info("cuda",
                              "device %d: H query of %u points folded for %u bits (%llu bytes, "
                              "%.1f s)",
                              st->device, k->n_h, cuzk_gpu_bases_fold_window(k->h),
                              (unsigned long long)fold_bytes, (cuzk_clock_ms() - t0) / 1e3);
            }
        }
    }
    k->bytes = need;
    k->h_folded = k->h && cuzk_gpu_bases_fold_window(k->h) != 0;
    char line[512];
    cuzk_cuda_plan_describe(&plan, cuzk_vram_limit(&st->vram), line, sizeof line);
    cuzk_log_info("cuda", "device %d: key %016llx of 2^%d: residency plan: %s", st->device,
                  (unsigned long long)pk->uid, pk->log_n, line);
    struct cuzk_cuda_plan_sizes sizes;
    cuzk_cuda_plan_sizes(st, pk, &sizes);
    cuzk_cuda_plan_sizes_describe(&sizes, line, sizeof line);
    cuzk_log_info("cuda", "device %d: key %016llx: the plan's sizes: budget=%llu %s", st->device,
                  (unsigned long long)pk->uid, (unsigned long long)sizes.budget, line);
    if (plan.streamed) atomic_fetch_add(&st->n_streamed, 1);
    k->last_used = cuzk_clock_ms();
    k->next = st->keys;
    st->keys = k;
    cuzk_vram_charge(&st->vram, CUZK_VRAM_KEYS, need);
    st->keys_gen++;
    atomic_fetch_add(&st->n_keys, 1);
    if (k->h_folded) atomic_fetch_add(&st->n_folded, 1);
    *out = k;
    return CUZK_OK;
}

/* The key's resident entry, made now when it is not (dev_mu held: key_make's caller grew the
 * work objects before). */
int cuzk_cuda_key_resident_locked(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                                  struct key_entry **out, double *ms, char *err, size_t errlen) {
    *ms = 0;
    struct key_entry *k = cuzk_cuda_key_find(st, pk->uid);
    if (k) {
        k->last_used = cuzk_clock_ms();
        *out = k;
        return CUZK_OK;
    }
    double t0 = cuzk_clock_ms();
    int rc = key_make(st, pk, out, err, errlen);
    *ms = cuzk_clock_ms() - t0;
    return rc;
}

int cuzk_cuda_key_upload(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk,
                         uint64_t *vram_bytes, char *err, size_t errlen) {
    struct cuda_state *st = be->impl;
    if (vram_bytes) *vram_bytes = 0;
    if (!st || !pk) return CUZK_EINVAL;
    if (pk->log_n > CUZK_GPU_NTT_MAX_LOG) {
        snprintf(err, errlen, "key upload: a domain of 2^%d is above the GPU NTT's 2^%d", pk->log_n,
                 CUZK_GPU_NTT_MAX_LOG);
        return CUZK_EUNSUPPORTED;
    }
    int rc = cuzk_cuda_never_fits(st, pk, "key upload", err, errlen);
    if (!rc) rc = cuzk_cuda_work_grow(st, pk, err, errlen);
    if (rc) return rc;
    struct key_entry *k;
    double ms;
    uint64_t bytes = 0;
    pthread_mutex_lock(&st->dev_mu);
    rc = cuzk_cuda_key_resident_locked(st, pk, &k, &ms, err, errlen);
    if (!rc) bytes = k->bytes; /* k may be dropped once dev_mu is released */
    pthread_mutex_unlock(&st->dev_mu);
    if (!rc && vram_bytes) *vram_bytes = bytes;
    if (!rc)
        cuzk_log_info("cuda", "device %d: key resident (%llu bytes, %.1f s)", st->device,
                      (unsigned long long)bytes, ms / 1e3);
    cuzk_cuda_plans_refresh(st, 1); /* the status line shows the new plan */
    return rc;
}

/* Builds the resident keys' plans line (dev_mu: waited for, or only tried) and publishes it
 * under info_mu when newer than the one there; never both locks at once. */
void cuzk_cuda_plans_refresh(struct cuda_state *st, int wait) {
    char line[768] = "";
    if (wait)
        pthread_mutex_lock(&st->dev_mu);
    else if (pthread_mutex_trylock(&st->dev_mu))
        return; /* a proof computes: the line published before stands */
    const uint64_t gen = st->keys_gen;
    size_t at = 0;
    for (const struct key_entry *k = st->keys; k && at + 1 < sizeof line; k = k->next) {
        char plan[512];
        cuzk_cuda_plan_describe(&k->plan, cuzk_vram_limit(&st->vram), plan, sizeof plan);
        const int w = snprintf(line + at, sizeof line - at, "%skey %016llx: %s", at ? "; " : "",
                               (unsigned long long)k->uid, plan);
        if (w < 0) break;
        at += (size_t)w < sizeof line - at ? (size_t)w : sizeof line - at - 1;
    }
    pthread_mutex_unlock(&st->dev_mu);
    pthread_mutex_lock(&st->info_mu);
    if (gen >= st->plans_gen) {
        memcpy(st->plans, line, sizeof line);
        st->plans_gen = gen;
    }
    pthread_mutex_unlock(&st->info_mu);
}

/* The vtable's describe: the ledger's parts (atomics: always current) and the resident keys'
 * plans (the line refreshed now if the device is free, else the last one). */
void cuzk_cuda_describe(const struct cuzk_backend *be, char *buf, size_t len) {
    struct cuda_state *st = be->impl;
    if (!buf || !len) return;
    buf[0] = 0;
    if (!st) return;
    cuzk_cuda_plans_refresh(st, 0);
    char held[128];
    cuzk_vram_describe(&st->vram, held, sizeof held);
    pthread_mutex_lock(&st->info_mu);
    snprintf(buf, len, "device memory: %s%s%s", held, st->plans[0] ? "; " : "", st->plans);
    pthread_mutex_unlock(&st->info_mu);
}

/* The vtable's device_info: the device's ordinal and the driver's figures of its memory. */
int cuzk_cuda_device_info(const struct cuzk_backend *be, int *ordinal, uint64_t *total,
                          uint64_t *free_now) {
    const struct cuda_state *st = be->impl;
    size_t f = 0, t = 0;
    if (!st || !ordinal || !total || !free_now) return CUZK_EINVAL;
    const int rc = cuzk_gpu_mem_info(st->device, &f, &t);
    if (rc != CUZK_OK) return rc;
    *ordinal = st->device;
    *total = t;
    *free_now = f;
    return CUZK_OK;
}

/* pk's residency plan on this device (dev_mu taken here): the one its resident copy was
 * uploaded with (*resident = 1), else the one an upload would follow. CUZK_OK, or the plan's
 * refusal (no plan holds the key). */
static int current_plan(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                        struct cuzk_cuda_plan *plan, int *resident) {
    char err[8];
    pthread_mutex_lock(&st->dev_mu);
    const struct key_entry *k = cuzk_cuda_key_find(st, pk->uid);
    *resident = k != NULL;
    const int rc =
        k ? (*plan = k->plan, CUZK_OK) : cuzk_cuda_plan_for(st, pk, plan, err, sizeof err);
    pthread_mutex_unlock(&st->dev_mu);
    return rc;
}

/* The vtable's key_host: the pinned host bytes an upload of pk makes by its residency plan on
 * this device (the streamed queries, and the host vectors: a and b of the CPU's SpMV under rule
 * 5, and c in a tight work space); 0 when resident already: the upload makes none. */
uint64_t cuzk_cuda_key_host(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    struct cuzk_cuda_plan plan;
    int resident;
    if (!st || !pk || current_plan(st, pk, &plan, &resident) || resident) return 0;
    return plan.host_key + cuzk_cuda_host_vectors(st, &plan, pk->domain_size);
}

/* The vtable's key_needs_rows: whether pk's plan on this device leaves its rows in host memory. */
int cuzk_cuda_key_needs_rows(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    struct cuzk_cuda_plan plan;
    int resident;
    return st && pk && !current_plan(st, pk, &plan, &resident) && plan.host_rows;
}

void cuzk_cuda_key_drop(const struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st || !pk) return;
    pthread_mutex_lock(&st->dev_mu);
    for (struct key_entry **l = &st->keys; *l; l = &(*l)->next)
        if ((*l)->uid == pk->uid) {
            cuzk_cuda_key_unlink(st, l);
            break;
        }
    pthread_mutex_unlock(&st->dev_mu);
    cuzk_cuda_plans_refresh(st, 1);
}

/* ---- the dense queries' folds (dev_mu held) ----------------------------------------------- */

/* After a key's first proof (dev_mu held): folds its dense queries (see DESIGN). Returns
 * CUZK_OK, or the code of a fold that failed otherwise than for device memory (that query stays
 * plain, and the caller has the work objects rebuilt). */
int cuzk_cuda_fold_dense(struct cuda_state *st, struct key_entry *k, const size_t dense[Q_N]) {
    k->learned = 1;
    const size_t min = atomic_load(&st->fold_dense_min);
    if (!min || !st->cap_fold) return CUZK_OK;
    static const char *const names[Q_N] = {"B2", "H", "A", "B1", "C"};
    struct cuzk_gpu_bases *const bases[Q_N] = {k->b2, k->h, k->a, k->b1, k->c};
    const size_t count[Q_N] = {k->n_b, k->n_h, k->n_a, k->n_b, (size_t)k->n_vars - k->n_public - 1};
    for (int q = 0; q < Q_N; q++) {
        const size_t n = count[q];
        if (!bases[q] || n < min || 2 * dense[q] < n || cuzk_gpu_bases_fold_window(bases[q]))
            continue;
        const uint64_t bytes = cuzk_gpu_bases_vram_for(q == Q_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1, n);
        /* the second key's room may include the presum space, which would yield to it */
        if (!cuzk_vram_fits(&st->vram, bytes + k->plain_bytes, CUZK_VRAM_BIT(CUZK_VRAM_PRESUM))) {
            char held[128];
            cuzk_vram_describe(&st->vram, held, sizeof held);
            cuzk_log_info("cuda",
                          "device %d: %s query of %zu points not folded: its %llu bytes of "
                          "multiples would leave the budget (%s) less than the key's %llu free",
                          st->device, names[q], n, (unsigned long long)bytes, held,
                          (unsigned long long)k->plain_bytes);
            continue;
        }
        if (!cuzk_cuda_room_for(st, bytes, "a fold of a query"))
            continue; /* (the check above holds it) */
        const double t0 = cuzk_clock_ms();
        const int rc = cuzk_gpu_bases_fold(bases[q], 0);
        if (rc == CUZK_EGPUOOM) { /* device memory short of the budget: the query stays plain */
            cuzk_log_warn("cuda", "device %d: %s query of %zu points not folded: %s", st->device,
                          names[q], n, cuzk_gpu_msm_last_error());
            continue;
        }
        if (rc) {
            cuzk_log_error("cuda", "device %d: fold of the %s query: %s: %s", st->device, names[q],
                           cuzk_strerror(rc), cuzk_gpu_msm_last_error());
            return rc;
        }
        k->bytes += bytes;
        k->n_dense++;
        cuzk_vram_charge(&st->vram, CUZK_VRAM_KEYS, bytes);
        atomic_fetch_add(&st->n_dense_folded, 1);
        cuzk_log_info("cuda",
                      "device %d: %s query of %zu points folded for %u bits after the key's first "
                      "proof (%zu of its scalars took the windows; %llu bytes, %.1f s)",
                      st->device, names[q], n, cuzk_gpu_bases_fold_window(bases[q]), dense[q],
                      (unsigned long long)bytes, (cuzk_clock_ms() - t0) / 1e3);
    }
    return CUZK_OK;
}

/* ---- the backend's key calls (cuda_backend.h) --------------------------------------------- */

int cuzk_cuda_backend_preload(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk, char *err,
                              size_t errlen) {
    char dummy[8];
    if (!err || !errlen) err = dummy, errlen = sizeof dummy;
    return cuzk_cuda_key_upload(be, pk, NULL, err, errlen);
}

int cuzk_cuda_backend_evict(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st) return CUZK_EINVAL;
    int rc = CUZK_ENOTFOUND;
    pthread_mutex_lock(&st->dev_mu);
    if (!pk) {
        while (st->keys) cuzk_cuda_key_unlink(st, &st->keys);
        rc = CUZK_OK;
    }
    for (struct key_entry **l = &st->keys; *l;) {
        if ((*l)->uid == pk->uid) {
            cuzk_cuda_key_unlink(st, l);
            rc = CUZK_OK;
        } else {
            l = &(*l)->next;
        }
    }
    pthread_mutex_unlock(&st->dev_mu);
    return rc;
}

size_t cuzk_cuda_backend_resident_bytes(struct cuzk_backend *be, const struct cuzk_groth16_pk *pk) {
    struct cuda_state *st = be->impl;
    if (!st) return 0;
    if (!pk) return cuzk_vram_part(&st->vram, CUZK_VRAM_KEYS);
    size_t bytes = 0;
    pthread_mutex_lock(&st->dev_mu);
    struct key_entry *k = cuzk_cuda_key_find(st, pk->uid);
    if (k) bytes = k->bytes;
    pthread_mutex_unlock(&st->dev_mu);
    return bytes;
}
