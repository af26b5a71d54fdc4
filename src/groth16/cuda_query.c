/* The CUDA backend's queries under a residency plan (cuda_plan.h): the plan a key gets on this
 * device, the host copies of its streamed queries, and the MSM over one query, resident or
 * streamed, in slices of the MSM context's size. Part of the CUDA backend
 * (cuda_backend_impl.h's DESIGN, "Residency plans"). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/error.h"
#include "formats/g16key.h"
#include "gpu/gpu_points.h"
#include "groth16/cuda_backend_impl.h"
#include "util/log.h"

/* ---- the plan ------------------------------------------------------------------------------ */

static uint64_t g1_bytes(size_t n) { return cuzk_gpu_bases_vram_for(CUZK_GPU_G1, n); }

/* The streamer's buffer for a slice of n G1 points (a G2 slice takes half as many). */
static uint64_t stage_bytes_for(size_t n) { return g1_bytes(n); }

void cuzk_cuda_plan_sizes(const struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                          struct cuzk_cuda_plan_sizes *s) {
    memset(s, 0, sizeof *s);
    const size_t nc = (size_t)pk->n_vars - pk->n_public - 1;
    const size_t n = (size_t)1 << pk->log_n;
    s->budget = cuzk_vram_limit(&st->vram);
    s->query[CUZK_CUDA_Q_A] = g1_bytes(pk->n_a);
    s->query[CUZK_CUDA_Q_B1] = g1_bytes(pk->n_b);
    s->query[CUZK_CUDA_Q_B2] = cuzk_gpu_bases_vram_for(CUZK_GPU_G2, pk->n_b);
    s->query[CUZK_CUDA_Q_C] = nc ? g1_bytes(nc) : 0;
    s->query[CUZK_CUDA_Q_H] = g1_bytes(cuzk_h_basis_points(pk->h_basis, pk->domain_size));
    s->fixed = s->rows = cuzk_gpu_cs_vram_for(pk->cs);
    if (pk->a_wires) s->fixed += 4 * (uint64_t)pk->n_a;
    if (pk->b_wires) s->fixed += 4 * (uint64_t)pk->n_b;
    s->msm_n = pk->n_vars > n ? pk->n_vars : n;
    s->work_full = cuzk_cuda_work_bytes_for(pk->log_n, pk->n_vars, s->msm_n, 0, 0, 0, 0);
    /* slices: the powers of two below the largest MSM, down to CUZK_CUDA_SLICE_MIN; those after
     * the main ones (rule 6's) only down to CUZK_CUDA_SLICE_MIN_TIGHT, below which a slice saves
     * too little to matter */
    size_t slice = 1;
    while (slice * 2 < s->msm_n) slice *= 2;
    for (; s->n_slices < CUZK_CUDA_PLAN_SLICES && slice >= CUZK_CUDA_SLICE_MIN; slice /= 2) {
        if (s->n_slices >= CUZK_CUDA_PLAN_SLICES_MAIN && slice < CUZK_CUDA_SLICE_MIN_TIGHT) break;
        const unsigned i = s->n_slices++;
        s->slice_n[i] = slice;
        s->stage[i] = cuzk_gpu_streamer_vram_for(stage_bytes_for(slice));
        s->work_slice[i] = cuzk_cuda_work_bytes_for(pk->log_n, pk->n_vars, slice, 0, 0, 0, 0);
    }
    /* the lean and tight work spaces' savings: the same for every slice (the MSM context is
     * the same) */
    if (s->n_slices) {
        const uint64_t full = s->work_slice[0],
                       lean = cuzk_cuda_work_bytes_for(pk->log_n, pk->n_vars, s->slice_n[0], 0, 0,
                                                       0, SPACE_LEAN),
                       tight = cuzk_cuda_work_bytes_for(pk->log_n, pk->n_vars, s->slice_n[0], 0, 0,
                                                        0, SPACE_TIGHT);
        s->lean_save = lean < full ? full - lean : 0;
        s->tight_save = s->lean_save && tight < lean ? lean - tight : 0;
    }
}

int cuzk_cuda_plan_for(const struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                       struct cuzk_cuda_plan *plan, char *err, size_t errlen) {
    struct cuzk_cuda_plan_sizes s;
    cuzk_cuda_plan_sizes(st, pk, &s);
    return cuzk_cuda_plan_make(&s, plan, err, errlen);
}

uint64_t cuzk_cuda_stage_bytes(const struct cuzk_cuda_plan *plan) {
    return plan->streamed ? stage_bytes_for(plan->msm_max) : 0;
}

/* ---- the host copies of streamed queries --------------------------------------------------- */

static enum cuzk_gpu_group query_group(int q) {
    return q == CUZK_CUDA_Q_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1;
}

static size_t query_points(const struct key_entry *k, int q) {
    switch (q) {
    case CUZK_CUDA_Q_A: return k->n_a;
    case CUZK_CUDA_Q_B1:
    case CUZK_CUDA_Q_B2: return k->n_b;
    case CUZK_CUDA_Q_C: return (size_t)k->n_vars - k->n_public - 1;
    default: return k->n_h;
    }
}

static const enum cuzk_g16key_section file_section[CUZK_CUDA_Q_N] = {
    CUZK_G16KEY_A, CUZK_G16KEY_B1, CUZK_G16KEY_B2, CUZK_G16KEY_C, CUZK_G16KEY_H};

/* The host copy of a streamed query from the key file: chunk by chunk decoded on the device
 * into a staging object of one chunk, then read back into the pinned copy. */
static int host_from_file(struct cuda_state *st, const struct cuzk_groth16_pk *pk, int q,
                          unsigned char *dst, char *err, size_t errlen) {
    struct cuzk_g16key *f = pk->file;
    const struct cuzk_g16key_info *info = cuzk_g16key_get_info(f);
    const enum cuzk_gpu_group g = query_group(q);
    const enum cuzk_g16key_section sec = file_section[q];
    const enum cuzk_gpu_point_enc enc = info->compressed ? CUZK_GPU_PT_COMPRESSED : CUZK_GPU_PT_LEM;
    const size_t count = cuzk_g16key_count(f, sec), chunk = info->chunk_points;
    const size_t pt = cuzk_gpu_bases_vram_for(g, 1);
    /* a loader buffer holds one whole chunk of the largest points (see points_from_file) */
    const size_t buf_bytes =
        chunk * cuzk_gpu_point_enc_bytes(CUZK_GPU_G2, info->compressed ? CUZK_GPU_PT_COMPRESSED
                                                                       : CUZK_GPU_PT_LEM);
    struct cuzk_gpu_points_loader *ld = NULL;
    struct cuzk_gpu_bases *tmp = NULL;
    int rc = cuzk_gpu_points_loader_create(st->device, buf_bytes, &ld);
    if (!rc) rc = cuzk_gpu_bases_create(st->device, g, chunk < count ? chunk : count, &tmp);
    if (rc) {
        cuzk_gpu_points_loader_free(ld);
        return cuzk_cuda_failed(err, errlen, "key upload (streamed query)", MOD_PTS, rc);
    }
    for (size_t first = 0; !rc && first < count; first += chunk) {
        const size_t n = count - first < chunk ? count - first : chunk;
        void *buf;
        char rerr[256];
        size_t bad = SIZE_MAX;
        if ((rc = cuzk_gpu_points_loader_buffer(ld, &buf))) break;
        if ((rc = cuzk_g16key_read(f, sec, first, n, buf, rerr, sizeof rerr))) {
            snprintf(err, errlen, "key upload: %s", rerr);
            goto out;
        }
        if ((rc = cuzk_gpu_points_loader_submit(ld, tmp, 0, n, enc))) break;
        if ((rc = cuzk_gpu_points_loader_finish(ld, &bad))) {
            if (rc == CUZK_EFORMAT) {
                snprintf(err, errlen, "key upload: section %s: point %zu does not decode",
                         cuzk_g16key_section_name(sec), first + bad);
                goto out;
            }
            break;
        }
        rc = cuzk_gpu_bases_read(tmp, 0, dst + first * pt, n);
    }
    if (rc) cuzk_cuda_failed(err, errlen, "key upload (streamed query)", MOD_PTS, rc);
out:
    cuzk_gpu_bases_free(tmp);
    cuzk_gpu_points_loader_free(ld);
    return rc;
}

int cuzk_cuda_query_host(struct cuda_state *st, const struct cuzk_groth16_pk *pk,
                         struct key_entry *k, int q, char *err, size_t errlen) {
    const size_t n = query_points(k, q);
    const size_t bytes = cuzk_gpu_bases_vram_for(query_group(q), n);
    if (!n) return CUZK_OK;
    void *p = NULL;
    int rc = cuzk_gpu_pinned_alloc(bytes, &p);
    if (rc)
        return cuzk_errf(err, errlen, rc,
                         "key upload: %zu bytes of pinned host memory for the streamed %s query: "
                         "%s",
                         bytes, cuzk_cuda_query_name((enum cuzk_cuda_query)q),
                         cuzk_gpu_g16_last_error());
    k->host[q] = p;
    k->host_bytes[q] = bytes;
    atomic_fetch_add(&st->host_bases, bytes);
    const void *src[CUZK_CUDA_Q_N] = {pk->a, pk->b1, pk->b2, pk->c, pk->h};
    if (src[q]) { /* host points: LEM already */
        memcpy(p, src[q], bytes);
        return CUZK_OK;
    }
    return host_from_file(st, pk, q, p, err, errlen);
}

void cuzk_cuda_query_host_free(struct cuda_state *st, struct key_entry *k) {
    for (int q = 0; q < CUZK_CUDA_Q_N; q++) {
        if (!k->host[q]) continue;
        cuzk_gpu_pinned_free(k->host[q], k->host_bytes[q]);
        atomic_fetch_sub(&st->host_bases, k->host_bytes[q]);
        k->host[q] = NULL;
        k->host_bytes[q] = 0;
    }
}

/* ---- the MSM over a query ------------------------------------------------------------------ */

/* One MSM of group g over bases[offset, offset + n) with the device scalars s: *acc += it. */
static int msm_part(struct cuda_state *st, enum cuzk_gpu_group g,
                    const struct cuzk_gpu_bases *bases, size_t offset, const unsigned char *s,
                    size_t n, void *acc, size_t *windowed) {
    int rc;
    if (g == CUZK_GPU_G2) {
        cuzk_g2 part;
        if ((rc = cuzk_gpu_g2_msm_dev_fr(st->msm, bases, offset, s, n, &part))) return rc;
        cuzk_g2_add((cuzk_g2 *)acc, (const cuzk_g2 *)acc, &part);
    } else {
        cuzk_g1 part;
        if ((rc = cuzk_gpu_g1_msm_dev_fr(st->msm, bases, offset, s, n, &part))) return rc;
        cuzk_g1_add((cuzk_g1 *)acc, (const cuzk_g1 *)acc, &part);
    }
    struct cuzk_gpu_msm_timing mt;
    cuzk_gpu_msm_last_timing(st->msm, &mt);
    *windowed += mt.windowed;
    return CUZK_OK;
}

/* The streamed MSM: slice j's copy into buffer j % 2 is queued before slice j - 1's MSM runs,
 * so the link works while the device computes; an MSM returns before the buffer it read is
 * filled again (see the streamer's contract in gpu_points.h). */
static int msm_streamed(struct cuda_state *st, enum cuzk_gpu_group g, const unsigned char *host,
                        const unsigned char *s, size_t n, void *acc, size_t *windowed) {
    size_t slice = cuzk_gpu_streamer_points(st->streamer, g);
    if (slice > st->cap_msm) slice = st->cap_msm;
    const size_t pt = cuzk_gpu_bases_vram_for(g, 1);
    const size_t ns = (n + slice - 1) / slice;
    int rc = CUZK_OK;
    if (!ns) return CUZK_OK;
    if ((rc = cuzk_gpu_streamer_put(st->streamer, 0, g, host, n < slice ? n : slice))) return rc;
    for (size_t j = 0; j < ns; j++) {
        const size_t off = j * slice, m = n - off < slice ? n - off : slice;
        const struct cuzk_gpu_bases *b;
        if ((rc = cuzk_gpu_streamer_take(st->streamer, (unsigned)(j & 1), &b))) break;
        if (j + 1 < ns) {
            const size_t off2 = off + slice, m2 = n - off2 < slice ? n - off2 : slice;
            if ((rc = cuzk_gpu_streamer_put(st->streamer, (unsigned)((j + 1) & 1), g,
                                            host + off2 * pt, m2)))
                break;
        }
        if ((rc = msm_part(st, g, b, 0, s + off * sizeof(cuzk_fr), m, acc, windowed))) break;
    }
    if (rc) cuzk_gpu_streamer_reset(st->streamer); /* a put left pending would refuse the next */
    return rc;
}

int cuzk_cuda_query_msm(struct cuda_state *st, const struct key_entry *k, int q,
                        const struct cuzk_gpu_bases *bases, const void *scalars, size_t n,
                        void *out, size_t *windowed) {
    const enum cuzk_gpu_group g = query_group(q);
    const unsigned char *s = scalars;
    *windowed = 0;
    if (g == CUZK_GPU_G2)
        cuzk_g2_set_inf(out);
    else
        cuzk_g1_set_inf(out);
    if (k->host[q]) {
        const int rc = msm_streamed(st, g, k->host[q], s, n, out, windowed);
        size_t bytes;
        double ms;
        cuzk_gpu_streamer_copied(st->streamer, &bytes, &ms);
        atomic_store(&st->link_bytes, bytes);
        atomic_store(&st->link_us, (size_t)(ms * 1e3));
        return rc;
    }
    if (!n) return msm_part(st, g, bases, 0, s, 0, out, windowed);
    for (size_t off = 0; off < n; off += st->cap_msm) {
        const size_t m = n - off < st->cap_msm ? n - off : st->cap_msm;
        const int rc = msm_part(st, g, bases, off, s + off * sizeof(cuzk_fr), m, out, windowed);
        if (rc) return rc;
    }
    return CUZK_OK;
}
