/* The contract of a prime field of cuzk, instantiated once per field (fp.h, fr.h).
 *
 * The including header defines, then undefines after the include:
 *   CUZK_F_T            the element type name (e.g. cuzk_fp)
 *   CUZK_F(name)        the function name for `name` (e.g. cuzk_fp_##name)
 *   CUZK_F_NL           the number of 64-bit limbs
 *   CUZK_F_MODULUS, CUZK_F_M0INV, CUZK_F_R1, CUZK_F_R2   initialisers from ff_constants.h
 *
 * Elements are kept in Montgomery form x*R mod m (R = 2^(64*NL)), fully reduced, so equal
 * elements have equal limbs and comparisons are limb comparisons. The storage form used on disk
 * by snarkjs (.zkey: little-endian Montgomery) is exactly the in-memory form. All functions are
 * pure and thread-safe; outputs may alias inputs unless a comment says otherwise. Functions
 * named _var run in time that depends on their inputs; the rest do not branch on element
 * values. */

typedef struct {
    uint64_t l[CUZK_F_NL];
} CUZK_F_T;

static const uint64_t CUZK_F(modulus_)[CUZK_F_NL] = CUZK_F_MODULUS; /* m (plain) */
static const CUZK_F_T CUZK_F(one_) = {CUZK_F_R1};                   /* 1 (Montgomery) */
static const CUZK_F_T CUZK_F(r2_) = {CUZK_F_R2};                    /* R^2 mod m */

CUZK_INLINE void CUZK_F(set_zero)(CUZK_F_T *r) {
    for (int i = 0; i < CUZK_F_NL; i++) r->l[i] = 0;
}
CUZK_INLINE void CUZK_F(set_one)(CUZK_F_T *r) { *r = CUZK_F(one_); }
CUZK_INLINE int CUZK_F(is_zero)(const CUZK_F_T *a) { return cuzk_mont_is_zero(a->l, CUZK_F_NL); }
CUZK_INLINE int CUZK_F(is_one)(const CUZK_F_T *a) {
    uint64_t acc = 0;
    for (int i = 0; i < CUZK_F_NL; i++) acc |= a->l[i] ^ CUZK_F(one_).l[i];
    return acc == 0;
}
CUZK_INLINE int CUZK_F(eq)(const CUZK_F_T *a, const CUZK_F_T *b) {
    uint64_t acc = 0;
    for (int i = 0; i < CUZK_F_NL; i++) acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}
CUZK_INLINE void CUZK_F(add)(CUZK_F_T *r, const CUZK_F_T *a, const CUZK_F_T *b) {
    cuzk_mont_add(r->l, a->l, b->l, CUZK_F(modulus_), CUZK_F_NL);
}
CUZK_INLINE void CUZK_F(dbl)(CUZK_F_T *r, const CUZK_F_T *a) {
    cuzk_mont_add(r->l, a->l, a->l, CUZK_F(modulus_), CUZK_F_NL);
}
CUZK_INLINE void CUZK_F(sub)(CUZK_F_T *r, const CUZK_F_T *a, const CUZK_F_T *b) {
    cuzk_mont_sub(r->l, a->l, b->l, CUZK_F(modulus_), CUZK_F_NL);
}
CUZK_INLINE void CUZK_F(neg)(CUZK_F_T *r, const CUZK_F_T *a) {
    cuzk_mont_neg(r->l, a->l, CUZK_F(modulus_), CUZK_F_NL);
}
CUZK_INLINE void CUZK_F(mul)(CUZK_F_T *r, const CUZK_F_T *a, const CUZK_F_T *b) {
    cuzk_mont_mul(r->l, a->l, b->l, CUZK_F(modulus_), CUZK_F_M0INV, CUZK_F_NL);
}
CUZK_INLINE void CUZK_F(sqr)(CUZK_F_T *r, const CUZK_F_T *a) {
    cuzk_mont_mul(r->l, a->l, a->l, CUZK_F(modulus_), CUZK_F_M0INV, CUZK_F_NL);
}
/* Conditional move: r = c ? a : r, without branching on c (c is 0 or 1). */
CUZK_INLINE void CUZK_F(cmov)(CUZK_F_T *r, const CUZK_F_T *a, int c) {
    uint64_t mask = 0 - (uint64_t)(c != 0);
    for (int i = 0; i < CUZK_F_NL; i++) r->l[i] = (r->l[i] & ~mask) | (a->l[i] & mask);
}

/* r = a^e, e an unsigned integer of elimbs little-endian limbs (the exponent is public). */
void CUZK_F(pow)(CUZK_F_T *r, const CUZK_F_T *a, const uint64_t *e, int elimbs);
/* r = 1/a by Fermat (a^(m-2)); 1/0 is defined as 0. */
void CUZK_F(inv)(CUZK_F_T *r, const CUZK_F_T *a);
/* The same result by the binary extended Euclidean algorithm, faster, variable time. */
void CUZK_F(inv_var)(CUZK_F_T *r, const CUZK_F_T *a);
/* out[i] = 1/in[i] for i < n with one inversion (Montgomery's trick); zeros map to zero.
 * out and in must not overlap. */
void CUZK_F(batch_inv)(CUZK_F_T *out, const CUZK_F_T *in, size_t n);
/* 1 if a is a square (0 included), else 0. */
int CUZK_F(is_square)(const CUZK_F_T *a);

void CUZK_F(from_u64)(CUZK_F_T *r, uint64_t v);
/* Canonical integer limbs <-> element. from_ returns CUZK_ENONCANON if the value is >= m. */
int CUZK_F(from_canonical)(CUZK_F_T *r, const uint64_t *limbs);
void CUZK_F(to_canonical)(uint64_t *limbs, const CUZK_F_T *a);
/* 8*NL bytes, canonical integer, little- or big-endian. from_ returns CUZK_ENONCANON if >= m. */
int CUZK_F(from_bytes_le)(CUZK_F_T *r, const uint8_t *in);
int CUZK_F(from_bytes_be)(CUZK_F_T *r, const uint8_t *in);
void CUZK_F(to_bytes_le)(uint8_t *out, const CUZK_F_T *a);
void CUZK_F(to_bytes_be)(uint8_t *out, const CUZK_F_T *a);
/* 8*NL bytes holding the Montgomery value x*R mod m little-endian (snarkjs .zkey layout).
 * from_ returns CUZK_ENONCANON if the stored value is >= m. */
int CUZK_F(from_mont_le)(CUZK_F_T *r, const uint8_t *in);
void CUZK_F(to_mont_le)(uint8_t *out, const CUZK_F_T *a);
/* Decimal strings (as in snarkjs JSON). from_ returns CUZK_EFORMAT for anything but digits,
 * CUZK_ENONCANON / CUZK_ERANGE for values >= m. to_ returns the length written or
 * CUZK_ERANGE when cap is too small (cap = 24 * NL always suffices). */
int CUZK_F(from_dec)(CUZK_F_T *r, const char *s);
int CUZK_F(to_dec)(char *buf, size_t cap, const CUZK_F_T *a);
/* 1 if the canonical value of a is greater than (m-1)/2 (the "lexicographically largest"
 * rule of the zcash point encoding). */
int CUZK_F(is_lexlarger)(const CUZK_F_T *a);
/* Uniform element from rng (or from the kernel when rng is NULL). Returns CUZK_OK or
 * CUZK_EIO. */
int CUZK_F(random)(CUZK_F_T *r, struct cuzk_rng *rng);
