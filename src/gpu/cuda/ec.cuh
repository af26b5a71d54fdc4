// G1 and G2 point arithmetic on the device and on the host, written once over the coordinate
// field F (fp_t for G1, fp2_t for G2; ff_fp.cuh).
//
// Types (storage separate from compute, as in ff_fp.cuh):
//   aff_mem<F>  storage of an affine point: exactly the bytes of the host's cuzk_g1_affine /
//               cuzk_g2_affine {x, y}; the identity is stored as x = y = 0 (not a curve point,
//               since b != 0: the snarkjs convention the CPU code uses);
//   affine<F>   the same in registers;
//   xyzz<F>     the bucket and accumulator form (X, Y, ZZ, ZZZ) for the affine (X/ZZ, Y/ZZZ)
//               with ZZ^3 = ZZZ^2; ZZ = 0 is the identity (all-zero bytes are an identity, so
//               a zero-filled buffer is a buffer of identities);
//   jac<F>      Jacobian (X/Z^2, Y/Z^3): the layout of the host's cuzk_g1 / cuzk_g2, which is
//               what results cross back to the host in (Z = 0 is the identity, stored as
//               (1, 1, 0) like the CPU's cuzk_g*_set_inf).
//
// Formulas: the a = 0 XYZZ formulas of the Explicit-Formulas Database (madd-2008-s: mixed
// addition 8M + 2S; add-2008-s: 12M + 2S; dbl-2008-s-1: 6M + 3S), the same ones the CPU's
// bucket code uses (src/msm/msm_impl.h). Every exceptional case is handled by a branch:
// identity operands, P + P (the addition becomes a doubling) and P + (-P) (the identity), so
// these functions are variable time. Everything is __host__ __device__: the host test
// (tests/test_gpu_twin.c) runs these exact functions against src/ec.
#ifndef CUZK_GPU_CUDA_EC_CUH
#define CUZK_GPU_CUDA_EC_CUH

#include "ec/ec_constants.h"
#include "gpu/cuda/ff_fp.cuh"

namespace cuzk_cuda {

// The curve constant b of y^2 = x^3 + b over F: 4 on G1, 4(1 + u) on G2 (Montgomery, from the
// generated ec_constants.h).
template <class F> struct curve_traits;
template <> struct curve_traits<fp_t> {
    static CUZK_HD fp_t b() {
        constexpr fp_detail::u64x6 v = CUZK_G1_B;
        return fp_from_u64(v);
    }
};
template <> struct curve_traits<fp2_t> {
    static CUZK_HD fp2_t b() {
        struct u64x6_pair {
            fp_detail::u64x6 c0, c1;
        };
        constexpr u64x6_pair v = CUZK_G2_B;
        return fp2_t{fp_from_u64(v.c0), fp_from_u64(v.c1)};
    }
};

template <class F> struct aff_mem { typename field_traits<F>::mem x, y; };
template <class F> struct xyzz_mem { typename field_traits<F>::mem x, y, zz, zzz; };
template <class F> struct jac_mem { typename field_traits<F>::mem x, y, z; };

template <class F> struct affine { F x, y; };
template <class F> struct xyzz { F x, y, zz, zzz; };
template <class F> struct jac { F x, y, z; };

// ---- storage <-> compute ------------------------------------------------------------------------

template <class F> CUZK_HD affine<F> load(const aff_mem<F> *p) {
    return affine<F>{load(&p->x), load(&p->y)};
}
template <class F> CUZK_HD affine<F> load_ro(const aff_mem<F> *p) {
    return affine<F>{load_ro(&p->x), load_ro(&p->y)};
}
template <class F> CUZK_HD void store(aff_mem<F> *p, const affine<F> &a) {
    store(&p->x, a.x);
    store(&p->y, a.y);
}
template <class F> CUZK_HD xyzz<F> load(const xyzz_mem<F> *p) {
    return xyzz<F>{load(&p->x), load(&p->y), load(&p->zz), load(&p->zzz)};
}
template <class F> CUZK_HD void store(xyzz_mem<F> *p, const xyzz<F> &a) {
    store(&p->x, a.x);
    store(&p->y, a.y);
    store(&p->zz, a.zz);
    store(&p->zzz, a.zzz);
}
template <class F> CUZK_HD xyzz<F> load_sh(const xyzz_mem<F> *p) {
    return xyzz<F>{load_sh(&p->x), load_sh(&p->y), load_sh(&p->zz), load_sh(&p->zzz)};
}
template <class F> CUZK_HD void store_sh(xyzz_mem<F> *p, const xyzz<F> &a) {
    store_sh(&p->x, a.x);
    store_sh(&p->y, a.y);
    store_sh(&p->zz, a.zz);
    store_sh(&p->zzz, a.zzz);
}
template <class F> CUZK_HD void store(jac_mem<F> *p, const jac<F> &a) {
    store(&p->x, a.x);
    store(&p->y, a.y);
    store(&p->z, a.z);
}

// ---- affine -------------------------------------------------------------------------------------

template <class F> CUZK_HD bool is_inf(const affine<F> &p) { return is_zero(p.x) && is_zero(p.y); }

// -P; the identity (0, 0) stays (0, 0) since -0 = 0.
template <class F> CUZK_HD affine<F> neg(const affine<F> &p) { return affine<F>{p.x, neg(p.y)}; }

// ---- XYZZ ---------------------------------------------------------------------------------------

template <class F> CUZK_HD xyzz<F> xyzz_inf() {
    const F z = field_traits<F>::zero();
    return xyzz<F>{z, z, z, z};
}

template <class F> CUZK_HD bool is_inf(const xyzz<F> &p) { return is_zero(p.zz); }

template <class F> CUZK_HD xyzz<F> xyzz_from_affine(const affine<F> &a) {
    if (is_inf(a)) return xyzz_inf<F>();
    const F one = field_traits<F>::one();
    return xyzz<F>{a.x, a.y, one, one};
}

// 2P (dbl-2008-s-1, a = 0). A point with Y = 0 (order 2: not in the r-order groups) gives
// ZZ = 0, the identity, which is also its correct double.
template <class F> CUZK_HD xyzz<F> dbl(const xyzz<F> &p) {
    if (is_inf(p)) return p;
    const F u = dbl(p.y);
    const F v = sqr(u);
    const F w = mul(u, v);
    const F s = mul(p.x, v);
    const F x2 = sqr(p.x);
    const F m = add(dbl(x2), x2); // 3 X^2
    xyzz<F> r;
    r.x = sub(sqr(m), dbl(s));
    r.y = sub(mul(m, sub(s, r.x)), mul(w, p.y));
    r.zz = mul(p.zz, v);
    r.zzz = mul(p.zzz, w);
    return r;
}

// 2P out of line, for the rare branch of the additions where P = Q: the additions are inlined
// into the hot loops, and a second inlined copy of the doubling in each would double their code
// (and compile time) for a branch that almost never runs.
template <class F> __host__ __device__ __noinline__ xyzz<F> dbl_rare(const xyzz<F> &p) {
    return dbl(p);
}

// The tail both additions share: given the first operand's X and Y brought to the common
// denominator (u1, s1), P = U2 - U1 != 0 and R = S2 - S1, returns X3 and Y3 in r and PP, PPP
// for the caller's ZZ3 and ZZZ3.
template <class F>
CUZK_HD void xyzz_add_tail(xyzz<F> &r, const F &u1, const F &s1, const F &p, const F &rr, F &pp,
                           F &ppp) {
    pp = sqr(p);
    ppp = mul(p, pp);
    const F q = mul(u1, pp);
    r.x = sub(sub(sqr(rr), ppp), dbl(q));
    r.y = sub(mul(rr, sub(q, r.x)), mul(s1, ppp));
}

// P + Q with Q affine (madd-2008-s, 8M + 2S).
template <class F> CUZK_HD xyzz<F> madd(const xyzz<F> &p, const affine<F> &q) {
    if (is_inf(q)) return p;
    if (is_inf(p)) return xyzz_from_affine(q);
    const F pd = sub(mul(q.x, p.zz), p.x);
    const F rr = sub(mul(q.y, p.zzz), p.y);
    if (is_zero(pd)) return is_zero(rr) ? dbl_rare(p) : xyzz_inf<F>();
    xyzz<F> r;
    F pp, ppp;
    xyzz_add_tail(r, p.x, p.y, pd, rr, pp, ppp);
    r.zz = mul(p.zz, pp);
    r.zzz = mul(p.zzz, ppp);
    return r;
}

// The same on G1, its ten products taken in five independent pairs (mul_pair: one call for
// both, two interleaved carry chains): 2 % faster G1 MSMs on the H200 test machine when the
// accumulation used it. G2 keeps the form above (paired, its accumulation ran 7 % slower: more
// values live at once). The MSM's summing loops now add with madd_mem below, which takes the
// same pairs; this form serves the out-of-line call_madd (batch multiplication, checks).
CUZK_HD xyzz<fp_t> madd(const xyzz<fp_t> &p, const affine<fp_t> &q) {
    if (is_inf(q)) return p;
    if (is_inf(p)) return xyzz_from_affine(q);
    fp_t u2, s2;
    mul_pair(u2, s2, q.x, p.zz, q.y, p.zzz);
    const fp_t pd = sub(u2, p.x);
    const fp_t rr = sub(s2, p.y);
    if (is_zero(pd)) return is_zero(rr) ? dbl_rare(p) : xyzz_inf<fp_t>();
    fp_t pp, r2, ppp, qq, t1, t2;
    mul_pair(pp, r2, pd, pd, rr, rr);   // P^2, R^2
    mul_pair(ppp, qq, pd, pp, p.x, pp); // PPP = P PP, Q = X1 PP
    xyzz<fp_t> r;
    r.x = sub(sub(r2, ppp), dbl(qq));
    mul_pair(t1, t2, rr, sub(qq, r.x), p.y, ppp); // Y3 = R (Q - X3) - Y1 PPP
    r.y = sub(t1, t2);
    mul_pair(r.zz, r.zzz, p.zz, pp, p.zzz, ppp);
    return r;
}

// P += Q for a P in shared memory on the device (load_sh / store_sh; plain memory on the host)
// and Q affine: madd-2008-s as madd above, in an order that reads each coordinate of P just
// before its use and writes each new one as soon as it is made. The accumulation loops keep
// their running sums so (msm_bodies.cuh): with P in registers, its four coordinates stayed
// live across every product, and on G2 that was more than 255 registers hold (the out-of-line
// multiplication spilled on every call); with P in memory a G2 addition holds at most about
// four elements of Fp2 at once. Measured in docs/perf-log/2026-12.md (2026-12-02, sixth session):
// 6 % faster G2 and 3 % faster G1 MSMs on the H200 test machine.
template <class F> CUZK_HD void madd_mem(xyzz_mem<F> *P, const affine<F> &q) {
    if (is_inf(q)) return;
    const F zz = load_sh(&P->zz);
    if (is_zero(zz)) {
        store_sh(P, xyzz_from_affine(q));
        return;
    }
    const F pd = sub(mul(q.x, zz), load_sh(&P->x));
    const F rr = sub(mul(q.y, load_sh(&P->zzz)), load_sh(&P->y));
    if (is_zero(pd)) {
        store_sh(P, is_zero(rr) ? dbl_rare(load_sh(P)) : xyzz_inf<F>());
        return;
    }
    const F pp = sqr(pd);
    const F ppp = mul(pd, pp);
    store_sh(&P->zz, mul(load_sh(&P->zz), pp));
    store_sh(&P->zzz, mul(load_sh(&P->zzz), ppp));
    const F qq = mul(load_sh(&P->x), pp);
    const F x3 = sub(sub(sqr(rr), ppp), dbl(qq));
    store_sh(&P->x, x3);
    store_sh(&P->y, sub(mul(rr, sub(qq, x3)), mul(load_sh(&P->y), ppp)));
}

// The same on G1, its ten products taken in five pairs as in madd's G1 form.
CUZK_HD void madd_mem(xyzz_mem<fp_t> *P, const affine<fp_t> &q) {
    if (is_inf(q)) return;
    const fp_t zz = load_sh(&P->zz);
    if (is_zero(zz)) {
        store_sh(P, xyzz_from_affine(q));
        return;
    }
    fp_t u2, s2;
    mul_pair(u2, s2, q.x, zz, q.y, load_sh(&P->zzz));
    const fp_t pd = sub(u2, load_sh(&P->x));
    const fp_t rr = sub(s2, load_sh(&P->y));
    if (is_zero(pd)) {
        store_sh(P, is_zero(rr) ? dbl_rare(load_sh(P)) : xyzz_inf<fp_t>());
        return;
    }
    fp_t pp, r2, ppp, qq, t1, t2, zz3, zzz3;
    mul_pair(pp, r2, pd, pd, rr, rr);
    mul_pair(ppp, qq, pd, pp, load_sh(&P->x), pp);
    const fp_t x3 = sub(sub(r2, ppp), dbl(qq));
    store_sh(&P->x, x3);
    mul_pair(t1, t2, rr, sub(qq, x3), load_sh(&P->y), ppp);
    store_sh(&P->y, sub(t1, t2));
    mul_pair(zz3, zzz3, load_sh(&P->zz), pp, load_sh(&P->zzz), ppp);
    store_sh(&P->zz, zz3);
    store_sh(&P->zzz, zzz3);
}

// P + Q (add-2008-s, 12M + 2S).
template <class F> CUZK_HD xyzz<F> add(const xyzz<F> &p, const xyzz<F> &q) {
    if (is_inf(p)) return q;
    if (is_inf(q)) return p;
    const F u1 = mul(p.x, q.zz);
    const F s1 = mul(p.y, q.zzz);
    const F pd = sub(mul(q.x, p.zz), u1);
    const F rr = sub(mul(q.y, p.zzz), s1);
    if (is_zero(pd)) return is_zero(rr) ? dbl_rare(p) : xyzz_inf<F>();
    xyzz<F> r;
    F pp, ppp;
    xyzz_add_tail(r, u1, s1, pd, rr, pp, ppp);
    r.zz = mul(mul(p.zz, q.zz), pp);
    r.zzz = mul(mul(p.zzz, q.zzz), ppp);
    return r;
}

// The same point in Jacobian coordinates, the host's layout: with Z = ZZZ, the Jacobian X is
// (X/ZZ) ZZZ^2 = X ZZ^2 and Y is (Y/ZZZ) ZZZ^3 = Y ZZ^3, using ZZZ^2 = ZZ^3. The identity
// becomes (1, 1, 0).
template <class F> CUZK_HD jac<F> to_jac(const xyzz<F> &p) {
    if (is_inf(p)) {
        const F one = field_traits<F>::one();
        return jac<F>{one, one, field_traits<F>::zero()};
    }
    const F zz2 = sqr(p.zz);
    return jac<F>{mul(p.x, zz2), mul(p.y, mul(zz2, p.zz)), p.zzz};
}

// The affine point, with one field inversion: 1/ZZ = ZZZ I and 1/ZZZ = ZZ I for
// I = 1/(ZZ ZZZ). The identity becomes (0, 0).
template <class F> CUZK_HD affine<F> to_affine(const xyzz<F> &p) {
    if (is_inf(p)) return affine<F>{field_traits<F>::zero(), field_traits<F>::zero()};
    const F i = inv_var(mul(p.zz, p.zzz));
    return affine<F>{mul(p.x, mul(p.zzz, i)), mul(p.y, mul(p.zz, i))};
}

} // namespace cuzk_cuda

#endif
