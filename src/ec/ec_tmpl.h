/* The contract of a short-Weierstrass group y^2 = x^3 + b (a = 0) of cuzk, instantiated for G1
 * over Fp (g1.h) and G2 over Fp2 (g2.h).
 *
 * The including header defines, then undefines after the include:
 *   CUZK_E(name)     function names (cuzk_g1_##name)
 *   CUZK_E_T         Jacobian point type (x = X/Z^2, y = Y/Z^3; Z = 0 is the identity)
 *   CUZK_E_AFF       affine point type; the identity is stored as x = y = 0, which is not a
 *                    curve point since b != 0 (the snarkjs convention, and one less field)
 *   CUZK_E_FT        coordinate field type
 *
 * The group law handles every exceptional case (identity operands, P + P, P + (-P)) and so
 * branches on them: point operations are variable time. Outputs may alias inputs. Nothing
 * allocates. Thread-safety: pure functions. */

typedef struct {
    CUZK_E_FT x, y, z;
} CUZK_E_T;

typedef struct {
    CUZK_E_FT x, y;
} CUZK_E_AFF;

void CUZK_E(set_inf)(CUZK_E_T *r);
int CUZK_E(is_inf)(const CUZK_E_T *p);
void CUZK_E(affine_set_inf)(CUZK_E_AFF *r);
int CUZK_E(affine_is_inf)(const CUZK_E_AFF *p);
void CUZK_E(generator)(CUZK_E_AFF *r);

void CUZK_E(from_affine)(CUZK_E_T *r, const CUZK_E_AFF *a);
/* One inversion. */
void CUZK_E(to_affine)(CUZK_E_AFF *r, const CUZK_E_T *p);
/* out[i] = in[i] in affine form for i < n with one field inversion in total. out and in must
 * not overlap (out doubles as the scratch space). */
void CUZK_E(batch_to_affine)(CUZK_E_AFF *out, const CUZK_E_T *in, size_t n);

void CUZK_E(dbl)(CUZK_E_T *r, const CUZK_E_T *p);
void CUZK_E(add)(CUZK_E_T *r, const CUZK_E_T *p, const CUZK_E_T *q);
/* r = p + q with q affine (mixed addition, cheaper). */
void CUZK_E(add_affine)(CUZK_E_T *r, const CUZK_E_T *p, const CUZK_E_AFF *q);
void CUZK_E(neg)(CUZK_E_T *r, const CUZK_E_T *p);
void CUZK_E(affine_neg)(CUZK_E_AFF *r, const CUZK_E_AFF *p);
/* r = k p for the unsigned integer k of klimbs little-endian 64-bit limbs (any size; k need
 * not be reduced mod r). Variable time in k. */
void CUZK_E(mul_var)(CUZK_E_T *r, const CUZK_E_T *p, const uint64_t *k, int klimbs);

int CUZK_E(eq)(const CUZK_E_T *p, const CUZK_E_T *q);
int CUZK_E(affine_eq)(const CUZK_E_AFF *p, const CUZK_E_AFF *q);
/* 1 if the point satisfies the curve equation (the identity does). */
int CUZK_E(is_on_curve)(const CUZK_E_T *p);
int CUZK_E(affine_is_on_curve)(const CUZK_E_AFF *p);
/* 1 if the on-curve point p is in the r-order subgroup, by an endomorphism test that costs two
 * 64-bit scalar multiplications at most (G1: phi(P) = -x^2 P; G2: psi(P) = x P), instead of
 * multiplication by r. */
int CUZK_E(is_in_subgroup)(const CUZK_E_T *p);
int CUZK_E(affine_is_in_subgroup)(const CUZK_E_AFF *p);

/* Fixed-base multiplication, for computing k*B for many k and one base B (key generation).
 * A table for window w (2 <= w <= 16) holds, for each window j < ceil(256 / w) and digit
 * 1 <= d < 2^w, the affine point d * 2^(w j) * B at index j (2^w - 1) + d - 1; a product then
 * costs at most ceil(256 / w) mixed additions and no doublings. Tables are read-only once
 * built and may be shared between threads. */
size_t CUZK_E(fb_table_len)(int w);
/* Fills table (fb_table_len(w) points). Returns CUZK_OK, CUZK_EINVAL (bad w) or CUZK_ENOMEM. */
int CUZK_E(fb_table_init)(CUZK_E_AFF *table, const CUZK_E_AFF *base, int w);
/* r = k * B for the 256-bit little-endian integer k. */
void CUZK_E(fb_mul)(CUZK_E_T *r, const CUZK_E_AFF *table, int w, const uint64_t k[4]);
