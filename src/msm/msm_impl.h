/* The MSM algorithm of msm.h, written once over the group; msm.c includes it for G1 and G2
 * after defining:
 *   CUZK_E(name)     the group's public names (cuzk_g1_##name)
 *   CUZK_M(name)     private names of this instantiation (msm_g1_##name)
 *   CUZK_E_T, CUZK_E_AFF, CUZK_E_FT   Jacobian point, affine point and coordinate field types
 *   CUZK_E_FF(name)  the coordinate field's functions (cuzk_fp_##name)
 *
 * Outline of one call (see the DESIGN comment of msm.c for the threads):
 *   scan      drop zero scalars and identity points; list the points of scalar 1 and the rest
 *   window    for each window and range of the rest: signed digits, a counting sort of the
 *             points by bucket, bucket sums by batched affine additions, and the running-sum
 *             reduction of the buckets to the window's partial sum
 *   ones      the points of scalar 1 summed by the same batched affine additions
 *   combine   window sums by doubling c times between windows, plus the ones
 *
 * Batched affine additions: a slab of points sorted by bucket is summed pairwise in rounds;
 * all the additions of a round are independent, so their slope denominators share one
 * inversion (Montgomery's trick), and an affine addition then costs about 5M + 1S instead of
 * 8M + 2S for the cheapest projective mixed addition. Groups are sorted, so two additions of
 * a round never touch the same bucket and no collision handling is needed; a bucket holding
 * many points (equal scalars) just takes more rounds. */

/* Plain names for this instantiation's private types (undefined at the end of the file). */
#define CUZK_M_XYZZ CUZK_M(xyzz)
#define CUZK_M_WS struct CUZK_M(ws)
#define CUZK_M_CTX struct CUZK_M(ctx)

/* ---- XYZZ coordinates for the bucket reduction ------------------------------------------
 * (X, Y, ZZ, ZZZ) stands for the affine (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the
 * identity. Formulas for a = 0 after the Explicit-Formulas Database (add-2008-s,
 * madd-2008-s, dbl-2008-s-1): mixed addition 8M + 2S, addition 12M + 2S. Outputs may alias
 * inputs. */

typedef struct {
    CUZK_E_FT x, y, zz, zzz;
} CUZK_M_XYZZ;

static void CUZK_M(xyzz_set_inf)(CUZK_M_XYZZ *r) {
    CUZK_E_FF(set_one)(&r->x);
    CUZK_E_FF(set_one)(&r->y);
    CUZK_E_FF(set_zero)(&r->zz);
    CUZK_E_FF(set_zero)(&r->zzz);
}

static int CUZK_M(xyzz_is_inf)(const CUZK_M_XYZZ *p) { return CUZK_E_FF(is_zero)(&p->zz); }

static void CUZK_M(xyzz_dbl)(CUZK_M_XYZZ *r, const CUZK_M_XYZZ *p) {
    if (CUZK_M(xyzz_is_inf)(p)) {
        *r = *p;
        return;
    }
    CUZK_E_FT u, v, w, s, m, t;
    CUZK_E_FF(dbl)(&u, &p->y);
    CUZK_E_FF(sqr)(&v, &u);
    CUZK_E_FF(mul)(&w, &u, &v);
    CUZK_E_FF(mul)(&s, &p->x, &v);
    CUZK_E_FF(sqr)(&m, &p->x);
    CUZK_E_FF(dbl)(&t, &m);
    CUZK_E_FF(add)(&m, &m, &t); /* 3 X^2 */
    CUZK_E_FF(mul)(&r->zz, &p->zz, &v);
    CUZK_E_FF(mul)(&r->zzz, &p->zzz, &w);
    CUZK_E_FF(mul)(&w, &w, &p->y); /* before r->y is written: r may alias p */
    CUZK_E_FF(sqr)(&r->x, &m);
    CUZK_E_FF(dbl)(&t, &s);
    CUZK_E_FF(sub)(&r->x, &r->x, &t);
    CUZK_E_FF(sub)(&t, &s, &r->x);
    CUZK_E_FF(mul)(&t, &m, &t);
    CUZK_E_FF(sub)(&r->y, &t, &w);
}

/* The tail shared by both additions: given the first operand's (U1, S1) scaled to the common
 * denominator and P = U2 - U1 != 0, R = S2 - S1, writes X3 and Y3 of r (nothing else, after
 * every read of u1 and s1, which may be r's own) and returns PP and PPP for the caller's ZZ3
 * and ZZZ3. */
static void CUZK_M(xyzz_add_tail)(CUZK_M_XYZZ *r, const CUZK_E_FT *u1, const CUZK_E_FT *s1,
                                  const CUZK_E_FT *p, const CUZK_E_FT *rr, CUZK_E_FT *pp,
                                  CUZK_E_FT *ppp) {
    CUZK_E_FT q, t;
    CUZK_E_FF(sqr)(pp, p);
    CUZK_E_FF(mul)(ppp, p, pp);
    CUZK_E_FF(mul)(&q, u1, pp);
    CUZK_E_FF(mul)(&t, s1, ppp);
    CUZK_E_FF(sqr)(&r->x, rr);
    CUZK_E_FF(sub)(&r->x, &r->x, ppp);
    CUZK_E_FF(sub)(&r->x, &r->x, &q);
    CUZK_E_FF(sub)(&r->x, &r->x, &q);
    CUZK_E_FF(sub)(&q, &q, &r->x);
    CUZK_E_FF(mul)(&q, rr, &q);
    CUZK_E_FF(sub)(&r->y, &q, &t);
}

/* r = p + q with q affine. */
static void CUZK_M(xyzz_madd)(CUZK_M_XYZZ *r, const CUZK_M_XYZZ *p, const CUZK_E_AFF *q) {
    if (CUZK_E(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (CUZK_M(xyzz_is_inf)(p)) {
        r->x = q->x;
        r->y = q->y;
        CUZK_E_FF(set_one)(&r->zz);
        CUZK_E_FF(set_one)(&r->zzz);
        return;
    }
    CUZK_E_FT p_, rr, pp, ppp;
    CUZK_E_FF(mul)(&p_, &q->x, &p->zz);
    CUZK_E_FF(sub)(&p_, &p_, &p->x);
    CUZK_E_FF(mul)(&rr, &q->y, &p->zzz);
    CUZK_E_FF(sub)(&rr, &rr, &p->y);
    if (CUZK_E_FF(is_zero)(&p_)) {
        if (CUZK_E_FF(is_zero)(&rr))
            CUZK_M(xyzz_dbl)(r, p);
        else
            CUZK_M(xyzz_set_inf)(r);
        return;
    }
    CUZK_M(xyzz_add_tail)(r, &p->x, &p->y, &p_, &rr, &pp, &ppp);
    CUZK_E_FF(mul)(&r->zz, &p->zz, &pp);
    CUZK_E_FF(mul)(&r->zzz, &p->zzz, &ppp);
}

/* r = p + q. */
static void CUZK_M(xyzz_add)(CUZK_M_XYZZ *r, const CUZK_M_XYZZ *p, const CUZK_M_XYZZ *q) {
    if (CUZK_M(xyzz_is_inf)(p)) {
        *r = *q;
        return;
    }
    if (CUZK_M(xyzz_is_inf)(q)) {
        *r = *p;
        return;
    }
    CUZK_E_FT u1, s1, p_, rr, pp, ppp;
    CUZK_E_FF(mul)(&u1, &p->x, &q->zz);
    CUZK_E_FF(mul)(&p_, &q->x, &p->zz);
    CUZK_E_FF(sub)(&p_, &p_, &u1);
    CUZK_E_FF(mul)(&s1, &p->y, &q->zzz);
    CUZK_E_FF(mul)(&rr, &q->y, &p->zzz);
    CUZK_E_FF(sub)(&rr, &rr, &s1);
    if (CUZK_E_FF(is_zero)(&p_)) {
        if (CUZK_E_FF(is_zero)(&rr))
            CUZK_M(xyzz_dbl)(r, p);
        else
            CUZK_M(xyzz_set_inf)(r);
        return;
    }
    CUZK_M(xyzz_add_tail)(r, &u1, &s1, &p_, &rr, &pp, &ppp);
    CUZK_E_FF(mul)(&r->zz, &p->zz, &q->zz);
    CUZK_E_FF(mul)(&r->zz, &r->zz, &pp);
    CUZK_E_FF(mul)(&r->zzz, &p->zzz, &q->zzz);
    CUZK_E_FF(mul)(&r->zzz, &r->zzz, &ppp);
}

/* Jacobian (ZZ^2 X, ZZ^3 Y, ZZZ): the same point, since that Z is ZZ times the XYZZ one. */
static void CUZK_M(xyzz_to_jacobian)(CUZK_E_T *r, const CUZK_M_XYZZ *p) {
    if (CUZK_M(xyzz_is_inf)(p)) {
        CUZK_E(set_inf)(r);
        return;
    }
    CUZK_E_FT t;
    CUZK_E_FF(sqr)(&t, &p->zz);
    CUZK_E_FF(mul)(&r->x, &p->x, &t);
    CUZK_E_FF(mul)(&t, &t, &p->zz);
    CUZK_E_FF(mul)(&r->y, &p->y, &t);
    r->z = p->zzz;
}

/* ---- per-worker workspace --------------------------------------------------------------- */

struct CUZK_M(ws) {
    void *block;           /* the one allocation behind every array below; NULL until used */
    CUZK_E_AFF *slab;      /* slab points, grouped by bucket */
    CUZK_E_FT *pre, *den;  /* per addition of a round: prefix products, then inverses; slope
                              denominators (0: the pair cancels) */
    struct msm_group *grp; /* the slab's groups */
    uint32_t *act;         /* indices of the groups still holding two points or more */
    CUZK_E_AFF *bkt;       /* bucket sums of the current window item */
    uint32_t *cnt;         /* bucket counts, then offsets */
    uint32_t *dig;         /* per point of a sort pass: bucket | CUZK_MSM_NEG, or CUZK_MSM_NONE */
    uint32_t *sorted;      /* the pass's point indices (| CUZK_MSM_NEG) sorted by bucket */
};

/* Lays the workspace out on base (NULL: only measures); returns its size in bytes. */
static size_t CUZK_M(ws_layout)(CUZK_M_WS *ws, char *base, size_t slab, unsigned nb, size_t pass) {
    size_t off = 0;
    ws->slab = msm_take(base, &off, slab * sizeof(CUZK_E_AFF));
    ws->pre = msm_take(base, &off, (slab / 2 + 1) * sizeof(CUZK_E_FT));
    ws->den = msm_take(base, &off, (slab / 2 + 1) * sizeof(CUZK_E_FT));
    ws->grp = msm_take(base, &off, slab * sizeof(struct msm_group));
    ws->act = msm_take(base, &off, slab * sizeof(uint32_t));
    ws->bkt = msm_take(base, &off, (size_t)nb * sizeof(CUZK_E_AFF));
    ws->cnt = msm_take(base, &off, (size_t)nb * sizeof(uint32_t));
    ws->dig = msm_take(base, &off, pass * sizeof(uint32_t));
    ws->sorted = msm_take(base, &off, pass * sizeof(uint32_t));
    return off;
}

/* ---- batched affine additions ----------------------------------------------------------- */

/* Sums every group of the slab in place: on return a group of size 1 holds its sum at
 * slab[start], and a group whose points cancelled has size 0. Each round adds the points of
 * every active group in pairs, (0,1), (2,3), ..., and packs the sums (and an odd point out) at
 * the front of the group. Slab points must not be the identity; sums that are the identity
 * (P + (-P)) are dropped, and P + P takes the tangent slope. */
static void CUZK_M(sum_groups)(CUZK_M_WS *ws, struct msm_group *grp, size_t ngrp) {
    CUZK_E_AFF *a = ws->slab;
    CUZK_E_FT *pre = ws->pre, *den = ws->den;
    uint32_t *act = ws->act;
    size_t nact = 0;
    for (size_t g = 0; g < ngrp; g++)
        if (grp[g].size >= 2) act[nact++] = (uint32_t)g;
    while (nact > 0) {
        /* denominators x2 - x1 (2 y1 for a doubling) and their prefix products */
        CUZK_E_FT acc;
        CUZK_E_FF(set_one)(&acc);
        size_t k = 0;
        for (size_t i = 0; i < nact; i++) {
            const struct msm_group *g = &grp[act[i]];
            const CUZK_E_AFF *p = a + g->start;
            for (uint32_t j = 0; j + 1 < g->size; j += 2, k++) {
                CUZK_E_FF(sub)(&den[k], &p[j + 1].x, &p[j].x);
                if (CUZK_E_FF(is_zero)(&den[k]) && CUZK_E_FF(eq)(&p[j].y, &p[j + 1].y))
                    CUZK_E_FF(dbl)(&den[k], &p[j].y); /* P + P; stays 0 if y = 0 */
                pre[k] = acc;
                if (!CUZK_E_FF(is_zero)(&den[k])) CUZK_E_FF(mul)(&acc, &acc, &den[k]);
            }
        }
        /* one inversion, then pre[k] = 1 / den[k] walking back */
        CUZK_E_FF(inv_var)(&acc, &acc);
        for (size_t i = k; i-- > 0;) {
            if (CUZK_E_FF(is_zero)(&den[i])) continue;
            CUZK_E_FT t;
            CUZK_E_FF(mul)(&t, &acc, &pre[i]);
            CUZK_E_FF(mul)(&acc, &acc, &den[i]);
            pre[i] = t;
        }
        /* the sums, packed at the front of each group (writes trail reads) */
        k = 0;
        size_t nnext = 0;
        for (size_t i = 0; i < nact; i++) {
            struct msm_group *g = &grp[act[i]];
            CUZK_E_AFF *p = a + g->start;
            uint32_t w = 0;
            for (uint32_t j = 0; j + 1 < g->size; j += 2, k++) {
                if (CUZK_E_FF(is_zero)(&den[k])) continue; /* P + (-P) */
                CUZK_E_FT lam, x3, y3;
                if (CUZK_E_FF(eq)(&p[j].x, &p[j + 1].x)) { /* tangent: 3 x^2 / 2 y */
                    CUZK_E_FF(sqr)(&lam, &p[j].x);
                    CUZK_E_FF(dbl)(&x3, &lam);
                    CUZK_E_FF(add)(&lam, &lam, &x3);
                } else {
                    CUZK_E_FF(sub)(&lam, &p[j + 1].y, &p[j].y);
                }
                CUZK_E_FF(mul)(&lam, &lam, &pre[k]);
                CUZK_E_FF(sqr)(&x3, &lam);
                CUZK_E_FF(sub)(&x3, &x3, &p[j].x);
                CUZK_E_FF(sub)(&x3, &x3, &p[j + 1].x);
                CUZK_E_FF(sub)(&y3, &p[j].x, &x3);
                CUZK_E_FF(mul)(&y3, &y3, &lam);
                CUZK_E_FF(sub)(&p[w].y, &y3, &p[j].y);
                p[w].x = x3;
                w++;
            }
            if (g->size & 1) p[w++] = p[g->size - 1];
            g->size = w;
            if (w >= 2) act[nnext++] = act[i];
        }
        nact = nnext;
    }
}

/* dst[i] = the point of entry e[i] (an index, negated when CUZK_MSM_NEG is set). The reads are
 * random, so the next points are prefetched; 8 ahead measured best (farther was slower). */
static void CUZK_M(gather)(CUZK_E_AFF *dst, const CUZK_E_AFF *points, const uint32_t *e, size_t n) {
    enum { AHEAD = 8 };
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            const char *q = (const char *)&points[e[i + AHEAD] & ~CUZK_MSM_NEG];
            for (size_t b = 0; b < sizeof(CUZK_E_AFF); b += 64) __builtin_prefetch(q + b);
        }
        uint32_t v = e[i];
        dst[i] = points[v & ~CUZK_MSM_NEG];
        if (v & CUZK_MSM_NEG) CUZK_E_FF(neg)(&dst[i].y, &dst[i].y);
    }
}

/* ---- the work items --------------------------------------------------------------------- */

struct CUZK_M(ctx) {
    const CUZK_E_AFF *points;
    const cuzk_scalar *scalars;
    size_t n;
    int scanning;                 /* which pass the pool is running */
    uint32_t *big, *ones;         /* index lists; during the scan, block slices */
    uint32_t *blk_big, *blk_ones; /* per scan block: list lengths */
    size_t nbig, nones;
    struct msm_plan plan;
    size_t slab;       /* points per slab */
    size_t nwin_items; /* plan.nwin * plan.chunks window items, then the ones items */
    size_t nitems;
    CUZK_M_WS *ws; /* per worker */
    CUZK_E_T *res; /* per item */
    atomic_int failed;
};

static void CUZK_M(scan_item)(CUZK_M_CTX *x, size_t blk) {
    size_t lo = blk * CUZK_MSM_SCAN_BLOCK, hi = lo + CUZK_MSM_SCAN_BLOCK;
    if (hi > x->n) hi = x->n;
    uint32_t *big = x->big + lo, *ones = x->ones + lo;
    uint32_t nbig = 0, nones = 0;
    for (size_t i = lo; i < hi; i++) {
        if (msm_scalar_is_zero(&x->scalars[i]) || CUZK_E(affine_is_inf)(&x->points[i])) continue;
        if (msm_scalar_is_one(&x->scalars[i]))
            ones[nones++] = (uint32_t)i;
        else
            big[nbig++] = (uint32_t)i;
    }
    x->blk_big[blk] = nbig;
    x->blk_ones[blk] = nones;
}

/* Sorts the points big[lo, hi) by their bucket in window w: on return bucket b's entries
 * (point index | CUZK_MSM_NEG for a negative digit) are sorted[b ? cnt[b-1] : 0, cnt[b]). */
static void CUZK_M(sort_pass)(const CUZK_M_CTX *x, CUZK_M_WS *ws, unsigned w, size_t lo,
                              size_t hi) {
    unsigned c = x->plan.c, nb = x->plan.nb;
    uint32_t *cnt = ws->cnt, *dig = ws->dig, *sorted = ws->sorted;
    memset(cnt, 0, nb * sizeof *cnt);
    for (size_t k = lo; k < hi; k++) {
        int32_t d = msm_digit(x->scalars[x->big[k]].l, w, c);
        if (d == 0) {
            dig[k - lo] = CUZK_MSM_NONE;
            continue;
        }
        uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1;
        dig[k - lo] = b | (d < 0 ? CUZK_MSM_NEG : 0);
        cnt[b]++;
    }
    uint32_t sum = 0;
    for (unsigned b = 0; b < nb; b++) {
        uint32_t t = cnt[b];
        cnt[b] = sum; /* start of bucket b; the scatter moves it to the end */
        sum += t;
    }
    for (size_t k = lo; k < hi; k++) {
        uint32_t e = dig[k - lo];
        if (e == CUZK_MSM_NONE) continue;
        sorted[cnt[e & ~CUZK_MSM_NEG]++] = x->big[k] | (e & CUZK_MSM_NEG);
    }
}

/* Adds the entries sorted by sort_pass into the buckets bkt, a slab at a time. A slab takes
 * whole buckets while they fit, each bucket's group led by the bucket's sum so far (when not
 * the identity); a bucket larger than the room left is cut, and its partial sum leads the rest
 * of it in the next slab. */
static void CUZK_M(accumulate)(const CUZK_M_CTX *x, CUZK_M_WS *ws) {
    unsigned nb = x->plan.nb;
    const uint32_t *cnt = ws->cnt, *sorted = ws->sorted;
    CUZK_E_AFF *bkt = ws->bkt, *slab = ws->slab;
    unsigned b = 0;
    uint32_t taken = 0; /* entries of bucket b already in bkt[b] */
    while (b < nb) {
        size_t t = 0, ngrp = 0;
        while (b < nb) {
            uint32_t beg = b ? cnt[b - 1] : 0, len = cnt[b] - beg - taken;
            if (len == 0) {
                b++;
                taken = 0;
                continue;
            }
            size_t carry = !CUZK_E(affine_is_inf)(&bkt[b]);
            if (t + carry >= x->slab) break; /* no room for one more entry */
            size_t take = x->slab - t - carry;
            if (take > len) take = len;
            struct msm_group *g = &ws->grp[ngrp++];
            g->start = (uint32_t)t;
            g->size = (uint32_t)(take + carry);
            g->bucket = b;
            if (carry) slab[t++] = bkt[b];
            CUZK_M(gather)(slab + t, x->points, sorted + beg + taken, take);
            t += take;
            if (take < len) { /* the slab is full */
                taken += (uint32_t)take;
                break;
            }
            b++;
            taken = 0;
        }
        if (ngrp == 0) break;
        CUZK_M(sum_groups)(ws, ws->grp, ngrp);
        for (size_t g = 0; g < ngrp; g++) {
            const struct msm_group *gr = &ws->grp[g];
            if (gr->size)
                bkt[gr->bucket] = slab[gr->start];
            else
                CUZK_E(affine_set_inf)(&bkt[gr->bucket]);
        }
    }
}

/* Window w of the points big[lo, hi): *res = sum over them of digit_w(k) P, sorted and added
 * into the buckets plan.pass points at a time, then reduced. */
static void CUZK_M(window_item)(CUZK_M_CTX *x, CUZK_M_WS *ws, size_t item, CUZK_E_T *res) {
    const struct msm_plan *pl = &x->plan;
    unsigned w = (unsigned)(item / pl->chunks), nb = pl->nb;
    size_t lo = (item % pl->chunks) * pl->range, hi = lo + pl->range;
    if (hi > x->nbig) hi = x->nbig;
    CUZK_E_AFF *bkt = ws->bkt;
    memset(bkt, 0, nb * sizeof *bkt); /* all identity */
    for (size_t p = lo; p < hi; p += pl->pass) {
        CUZK_M(sort_pass)(x, ws, w, p, hi - p < pl->pass ? hi : p + pl->pass);
        CUZK_M(accumulate)(x, ws);
    }

    /* sum_b (b + 1) bkt[b] by a running sum from the top bucket down */
    CUZK_M_XYZZ run, tot;
    CUZK_M(xyzz_set_inf)(&run);
    CUZK_M(xyzz_set_inf)(&tot);
    for (unsigned i = nb; i-- > 0;) {
        if (!CUZK_E(affine_is_inf)(&bkt[i])) CUZK_M(xyzz_madd)(&run, &run, &bkt[i]);
        CUZK_M(xyzz_add)(&tot, &tot, &run);
    }
    CUZK_M(xyzz_to_jacobian)(res, &tot);
}

/* Slab j of the points of scalar 1: *res = their sum. */
static void CUZK_M(ones_item)(CUZK_M_CTX *x, CUZK_M_WS *ws, size_t j, CUZK_E_T *res) {
    size_t lo = j * x->slab, hi = lo + x->slab;
    if (hi > x->nones) hi = x->nones;
    struct msm_group g = {0, (uint32_t)(hi - lo), 0};
    CUZK_M(gather)(ws->slab, x->points, x->ones + lo, hi - lo);
    CUZK_M(sum_groups)(ws, &g, 1);
    if (g.size)
        CUZK_E(from_affine)(res, &ws->slab[0]);
    else
        CUZK_E(set_inf)(res);
}

static void CUZK_M(run_item)(void *ctx, size_t item, unsigned worker) {
    CUZK_M_CTX *x = ctx;
    if (x->scanning) {
        CUZK_M(scan_item)(x, item);
        return;
    }
    CUZK_M_WS *ws = &x->ws[worker];
    if (!ws->block) {
        size_t pass = x->nbig ? x->plan.pass : 0, nb = x->nbig ? x->plan.nb : 0;
        size_t size = CUZK_M(ws_layout)(ws, NULL, x->slab, (unsigned)nb, pass);
        ws->block = aligned_alloc(64, size);
        if (!ws->block) {
            atomic_store(&x->failed, 1);
            return;
        }
        CUZK_M(ws_layout)(ws, ws->block, x->slab, (unsigned)nb, pass);
    }
    if (item < x->nwin_items)
        CUZK_M(window_item)(x, ws, item, &x->res[item]);
    else
        CUZK_M(ones_item)(x, ws, item - x->nwin_items, &x->res[item]);
}

/* ---- the public functions --------------------------------------------------------------- */

int CUZK_E(msm_tuned)(struct cuzk_pool *pool, CUZK_E_T *out, const CUZK_E_AFF *points,
                      const cuzk_scalar *scalars, size_t n, const struct cuzk_msm_tuning *tune) {
    static const struct cuzk_msm_tuning automatic = {.window = 0};
    if (!tune) tune = &automatic;
    if (n > CUZK_MSM_MAX_N || tune->window > CUZK_MSM_MAX_WINDOW || tune->slab == 1)
        return CUZK_EINVAL;
    if (n == 0) {
        CUZK_E(set_inf)(out);
        return CUZK_OK;
    }
    unsigned threads = cuzk_pool_size(pool);
    CUZK_M_CTX x;
    memset(&x, 0, sizeof x);
    x.points = points;
    x.scalars = scalars;
    x.n = n;
    atomic_init(&x.failed, 0);
    int err = CUZK_ENOMEM;

    /* scan, then compact the block slices */
    size_t nblk = (n + CUZK_MSM_SCAN_BLOCK - 1) / CUZK_MSM_SCAN_BLOCK;
    x.big = malloc((2 * n + 2 * nblk) * sizeof(uint32_t));
    if (!x.big) return CUZK_ENOMEM;
    x.ones = x.big + n;
    x.blk_big = x.ones + n;
    x.blk_ones = x.blk_big + nblk;
    x.scanning = 1;
    cuzk_pool_run(pool, nblk, CUZK_M(run_item), &x);
    x.scanning = 0;
    for (size_t blk = 0; blk < nblk; blk++) {
        size_t lo = blk * CUZK_MSM_SCAN_BLOCK;
        memmove(x.big + x.nbig, x.big + lo, x.blk_big[blk] * sizeof(uint32_t));
        memmove(x.ones + x.nones, x.ones + lo, x.blk_ones[blk] * sizeof(uint32_t));
        x.nbig += x.blk_big[blk];
        x.nones += x.blk_ones[blk];
    }

    /* plan, workspaces, and the work */
    size_t need = 0;
    if (x.nbig) {
        msm_plan_make(&x.plan, x.nbig, x.nones, threads, tune->window, tune->chunks, tune->pass);
        x.nwin_items = (size_t)x.plan.nwin * x.plan.chunks;
        need = x.plan.pass;
    }
    size_t slab = tune->slab ? tune->slab : CUZK_MSM_SLAB;
    if (x.nones > need) need = x.nones;
    x.slab = need < slab ? need : slab;
    if (x.slab < 2) x.slab = 2;
    size_t nones_items = (x.nones + x.slab - 1) / x.slab;
    x.nitems = x.nwin_items + nones_items;
    x.ws = calloc(threads, sizeof *x.ws);
    x.res = malloc((x.nitems ? x.nitems : 1) * sizeof *x.res);
    if (!x.ws || !x.res) goto done;
    cuzk_pool_run(pool, x.nitems, CUZK_M(run_item), &x);
    if (atomic_load(&x.failed)) goto done;

    /* combine: windows from the top, c doublings apart, then the ones */
    CUZK_E_T acc;
    CUZK_E(set_inf)(&acc);
    for (size_t w = x.plan.nwin; w-- > 0;) {
        for (unsigned i = 0; i < x.plan.c; i++) CUZK_E(dbl)(&acc, &acc);
        for (size_t ch = 0; ch < x.plan.chunks; ch++)
            CUZK_E(add)(&acc, &acc, &x.res[w * x.plan.chunks + ch]);
    }
    for (size_t i = x.nwin_items; i < x.nitems; i++) CUZK_E(add)(&acc, &acc, &x.res[i]);
    *out = acc;
    err = CUZK_OK;
done:
    if (x.ws)
        for (unsigned t = 0; t < threads; t++) free(x.ws[t].block);
    free(x.ws);
    free(x.res);
    free(x.big);
    return err;
}

int CUZK_E(msm)(struct cuzk_pool *pool, CUZK_E_T *out, const CUZK_E_AFF *points,
                const cuzk_scalar *scalars, size_t n) {
    return CUZK_E(msm_tuned)(pool, out, points, scalars, n, NULL);
}

void CUZK_E(msm_ref)(CUZK_E_T *out, const CUZK_E_AFF *points, const cuzk_scalar *scalars,
                     size_t n) {
    CUZK_E_T acc, t;
    CUZK_E(set_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        CUZK_E(from_affine)(&t, &points[i]);
        CUZK_E(mul_var)(&t, &t, scalars[i].l, 4);
        CUZK_E(add)(&acc, &acc, &t);
    }
    *out = acc;
}

#undef CUZK_M_XYZZ
#undef CUZK_M_WS
#undef CUZK_M_CTX
