#!/usr/bin/env python3
"""Generate the BLS12-381 constant tables used by src/ff and src/ec.

Every constant is derived here from the two moduli and the curve parameter x, and checked
(cube roots, endomorphism eigenvalues, generator orders) before it is written, so the C
tables never hold a number nobody can reproduce.

    python3 tools/gen_constants.py        # rewrites src/ff/ff_constants.h, src/ec/ec_constants.h
"""
import os
import sys

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
X = -0xD201000000010000  # the BLS parameter (negative)
FP_LIMBS, FR_LIMBS = 6, 4
RP = 1 << (64 * FP_LIMBS)  # Montgomery radix for Fp
RR = 1 << (64 * FR_LIMBS)  # Montgomery radix for Fr

assert (X**4 - X**2 + 1) == R
assert (X - 1) ** 2 * R // 3 + X == P


# ---- Fp2 = Fp[u]/(u^2 + 1) as tuples ------------------------------------------------------
def f2add(a, b):
    return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)


def f2sub(a, b):
    return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)


def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def f2inv(a):
    t = pow(a[0] * a[0] + a[1] * a[1], P - 2, P)
    return (a[0] * t % P, -a[1] * t % P)


def f2pow(a, e):
    out = (1, 0)
    while e:
        if e & 1:
            out = f2mul(out, a)
        a = f2mul(a, a)
        e >>= 1
    return out


def f2conj(a):
    return (a[0], -a[1] % P)


XI = (1, 1)  # u + 1, the Fp6 non-residue


# ---- affine short-Weierstrass arithmetic over a field given by ops ------------------------
class Curve:
    def __init__(self, add, sub, mul, inv, b, zero, one):
        self.add, self.sub, self.mul, self.inv, self.b = add, sub, mul, inv, b
        self.zero, self.one = zero, one

    def on_curve(self, pt):
        if pt is None:
            return True
        x, y = pt
        return self.mul(y, y) == self.add(self.mul(self.mul(x, x), x), self.b)

    def neg(self, pt):
        return None if pt is None else (pt[0], self.sub(self.zero, pt[1]))

    def addp(self, p1, p2):
        if p1 is None:
            return p2
        if p2 is None:
            return p1
        if p1[0] == p2[0]:
            if p1[1] != p2[1] or p1[1] == self.zero:
                return None
            three_x2 = self.mul(self.mul(p1[0], p1[0]), self.add(self.one, self.add(self.one, self.one)))
            lam = self.mul(three_x2, self.inv(self.add(p1[1], p1[1])))
        else:
            lam = self.mul(self.sub(p2[1], p1[1]), self.inv(self.sub(p2[0], p1[0])))
        x3 = self.sub(self.sub(self.mul(lam, lam), p1[0]), p2[0])
        y3 = self.sub(self.mul(lam, self.sub(p1[0], x3)), p1[1])
        return (x3, y3)

    def mulp(self, pt, k):
        if k < 0:
            return self.mulp(self.neg(pt), -k)
        acc = None
        while k:
            if k & 1:
                acc = self.addp(acc, pt)
            pt = self.addp(pt, pt)
            k >>= 1
        return acc


E1 = Curve(lambda a, b: (a + b) % P, lambda a, b: (a - b) % P, lambda a, b: a * b % P,
           lambda a: pow(a, P - 2, P), 4, 0, 1)
E2 = Curve(f2add, f2sub, f2mul, f2inv, f2mul((4, 0), XI), (0, 0), (1, 0))

G1 = (0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
      0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1)
G2 = ((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
      (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))
assert E1.on_curve(G1) and E2.on_curve(G2)
assert E1.mulp(G1, R) is None and E2.mulp(G2, R) is None

# ---- endomorphisms -------------------------------------------------------------------------
# phi(x, y) = (beta x, y) on G1 acts as multiplication by a cube root of unity mod r; pick the
# beta for which that root is -x^2, the eigenvalue the subgroup check uses.
g = 2
while pow(g, (P - 1) // 3, P) == 1:
    g += 1
beta_candidates = [pow(g, (P - 1) // 3, P), pow(g, 2 * (P - 1) // 3, P)]
lam = (-X * X) % R
BETA = None
for b in beta_candidates:
    if (b * G1[0] % P, G1[1]) == E1.mulp(G1, lam):
        BETA = b
assert BETA is not None

# psi = twist^-1 o Frobenius o twist on the M-type twist: (conj(x) * PSI_X, conj(y) * PSI_Y).
PSI_X = f2inv(f2pow(XI, (P - 1) // 3))
PSI_Y = f2inv(f2pow(XI, (P - 1) // 2))
psi_g2 = (f2mul(f2conj(G2[0]), PSI_X), f2mul(f2conj(G2[1]), PSI_Y))
assert E2.on_curve(psi_g2)
assert psi_g2 == E2.mulp(G2, X % R), "psi must act as [x] on G2"

# ---- Fr two-adic roots ---------------------------------------------------------------------
TWO_ADICITY = 32
assert (R - 1) % (1 << TWO_ADICITY) == 0 and ((R - 1) >> TWO_ADICITY) % 2 == 1
# snarkjs (ffjavascript) uses 5, the smallest quadratic non-residue, to build its roots; proofs
# must use the very same roots as the zkey's Lagrange bases, so cuzk does as well.
ROOT_BASE = 5
assert pow(ROOT_BASE, (R - 1) // 2, R) == R - 1
OMEGA = pow(ROOT_BASE, (R - 1) >> TWO_ADICITY, R)
assert pow(OMEGA, 1 << (TWO_ADICITY - 1), R) == R - 1
# 7 is the coset shift bellperson uses. A coset shift g needs g^n != 1 for every domain size n,
# which holds for any g whose order is not a power of two.
FR_GENERATOR = 7
assert pow(FR_GENERATOR, (R - 1) // 2, R) == R - 1
assert pow(FR_GENERATOR, 1 << TWO_ADICITY, R) != 1


# ---- Frobenius coefficients ----------------------------------------------------------------
def frob_table(div, mult=1):
    return [f2pow(XI, mult * (P**k - 1) // div) for k in range(12)]


FROB6_C1 = frob_table(3)
FROB6_C2 = frob_table(3, 2)
FROB12_C1 = frob_table(6)


# ---- C emitters ----------------------------------------------------------------------------
def limbs(v, n):
    return [(v >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(n)]


def carr(v, n):
    return "{" + ", ".join("0x%016xull" % w for w in limbs(v, n)) + "}"


def fp_m(v):
    return "{" + carr(v * RP % P, FP_LIMBS) + "}"


def fr_m(v):
    return "{" + carr(v * RR % R, FR_LIMBS) + "}"


def fp2_m(v):
    return "{" + fp_m(v[0]) + ", " + fp_m(v[1]) + "}"


HEADER = """/* Generated by tools/gen_constants.py; do not edit by hand. Every value is derived and
 * checked in that script. Field elements are in Montgomery form (x*R mod m, R = 2^(64*limbs)),
 * limbs little-endian; plain integers (moduli, exponents) are marked as such. */
"""


def ff_constants():
    o = [HEADER, "#ifndef CUZK_FF_CONSTANTS_H\n#define CUZK_FF_CONSTANTS_H\n"]
    for name, m, n, rad in (("FP", P, FP_LIMBS, RP), ("FR", R, FR_LIMBS, RR)):
        o.append("/* %s modulus (plain integer) */" % name)
        o.append("#define CUZK_%s_MODULUS %s" % (name, carr(m, n)))
        o.append("/* -m^-1 mod 2^64 */")
        o.append("#define CUZK_%s_M0INV 0x%016xull" % (name, (-pow(m, -1, 1 << 64)) % (1 << 64)))
        o.append("/* R mod m: one in Montgomery form */")
        o.append("#define CUZK_%s_R1 %s" % (name, carr(rad % m, n)))
        o.append("/* R^2 mod m: converts into Montgomery form */")
        o.append("#define CUZK_%s_R2 %s" % (name, carr(rad * rad % m, n)))
        o.append("/* R^3 mod m: turns a plain inverse of a Montgomery value back into Montgomery */")
        o.append("#define CUZK_%s_R3 %s" % (name, carr(rad**3 % m, n)))
        o.append("/* m - 2 (plain), the Fermat inversion exponent */")
        o.append("#define CUZK_%s_MINUS2 %s" % (name, carr(m - 2, n)))
        o.append("/* (m - 1) / 2 (plain), the Euler criterion exponent */")
        o.append("#define CUZK_%s_HALF %s" % (name, carr((m - 1) // 2, n)))
        o.append("/* bit length of m */")
        o.append("#define CUZK_%s_BITS %d\n" % (name, m.bit_length()))
    o.append("/* (p + 1) / 4 (plain): sqrt exponent, p = 3 mod 4 */")
    o.append("#define CUZK_FP_SQRT_EXP %s" % carr((P + 1) // 4, FP_LIMBS))
    o.append("/* (p - 3) / 4 (plain): first exponent of the Fp2 square root */")
    o.append("#define CUZK_FP_P34_EXP %s\n" % carr((P - 3) // 4, FP_LIMBS))
    o.append("/* Fr two-adicity and a primitive 2^32-th root of unity, 5^((r-1)/2^32) (Montgomery);")
    o.append(" * 5 is the smallest quadratic non-residue, the base snarkjs uses for its domains */")
    o.append("#define CUZK_FR_TWO_ADICITY %d" % TWO_ADICITY)
    o.append("#define CUZK_FR_ROOT_OF_UNITY %s" % fr_m(OMEGA))
    o.append("/* the multiplicative generator 7 of Fr* (Montgomery) */")
    o.append("#define CUZK_FR_GENERATOR %s\n" % fr_m(FR_GENERATOR))
    for name, tab, doc in (("FROB6_C1", FROB6_C1, "xi^((p^k-1)/3)"),
                           ("FROB6_C2", FROB6_C2, "xi^((2p^k-2)/3)"),
                           ("FROB12_C1", FROB12_C1, "xi^((p^k-1)/6)")):
        o.append("/* %s for k = 0..11, xi = u + 1 (Fp2, Montgomery) */" % doc)
        o.append("#define CUZK_%s { \\" % name)
        o.append(", \\\n".join("    " + fp2_m(v) for v in tab) + " }\n")
    o.append("#endif")
    return "\n".join(o) + "\n"


# The hard part of the final exponentiation that cuzk (like @noble/curves) computes is
# 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3: sparse in x, and cubing is a
# bijection on GT since 3 does not divide r.
assert 3 * ((P**4 - P**2 + 1) // R) == (X - 1) ** 2 * (X + P) * (X * X + P * P - 1) + 3
assert R % 3 != 0


def ec_constants():
    o = [HEADER, "#ifndef CUZK_EC_CONSTANTS_H\n#define CUZK_EC_CONSTANTS_H\n"]
    o.append("/* |x| for the BLS parameter x = -0xd201000000010000 (plain) */")
    o.append("#define CUZK_BLS_X_ABS 0x%016xull\n" % (-X))
    o.append("/* G1 curve constant b = 4 and the generator (Montgomery, affine) */")
    o.append("#define CUZK_G1_B %s" % fp_m(4))
    o.append("#define CUZK_G1_GEN_X %s" % fp_m(G1[0]))
    o.append("#define CUZK_G1_GEN_Y %s\n" % fp_m(G1[1]))
    o.append("/* G2 twist constant b' = 4(u + 1) and the generator */")
    o.append("#define CUZK_G2_B %s" % fp2_m(E2.b))
    o.append("#define CUZK_G2_GEN_X %s" % fp2_m(G2[0]))
    o.append("#define CUZK_G2_GEN_Y %s\n" % fp2_m(G2[1]))
    o.append("/* beta: the cube root of unity in Fp for which phi(x, y) = (beta x, y) is [-x^2] on G1 */")
    o.append("#define CUZK_G1_BETA %s\n" % fp_m(BETA))
    o.append("/* psi(x, y) = (conj(x) PSI_X, conj(y) PSI_Y) is [x] on G2:")
    o.append(" * PSI_X = 1 / xi^((p-1)/3), PSI_Y = 1 / xi^((p-1)/2) */")
    o.append("#define CUZK_G2_PSI_X %s" % fp2_m(PSI_X))
    o.append("#define CUZK_G2_PSI_Y %s\n" % fp2_m(PSI_Y))
    o.append("#endif")
    return "\n".join(o) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for rel, text in (("src/ff/ff_constants.h", ff_constants()), ("src/ec/ec_constants.h", ec_constants())):
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
        print("wrote", rel, file=sys.stderr)


if __name__ == "__main__":
    main()
