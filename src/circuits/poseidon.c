/* Poseidon constants (Grain LFSR, Cauchy MDS, compression and sparse factorisation) and the two
 * permutations. See poseidon.h for the contract. */
#include "circuits/poseidon.h"

#include <pthread.h>
#include <string.h>

#include "cuzk/error.h"

#define W CUZK_POSEIDON_MAX_WIDTH

typedef cuzk_fr mat_t[W][W];

/* ---- Grain LFSR (Poseidon paper, appendix: round constants) ------------------------------ */

/* 80 bits in a ring: bit i of the paper's state is b[(pos + i) % 80]. */
struct grain {
    uint8_t b[80];
    int pos;
};

static int grain_bit(const struct grain *g, int i) { return g->b[(g->pos + i) % 80]; }

/* b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i; returns the new bit. */
static int grain_step(struct grain *g) {
    int nb = grain_bit(g, 62) ^ grain_bit(g, 51) ^ grain_bit(g, 38) ^ grain_bit(g, 23) ^
             grain_bit(g, 13) ^ grain_bit(g, 0);
    g->b[g->pos] = (uint8_t)nb; /* the oldest bit's slot becomes bit 79 */
    g->pos = (g->pos + 1) % 80;
    return nb;
}

static void grain_push(struct grain *g, int *n, int nbits, unsigned v) {
    for (int i = nbits - 1; i >= 0; i--) g->b[(*n)++] = (uint8_t)((v >> i) & 1);
}

static void grain_init(struct grain *g, int t, int r_f, int r_p) {
    int n = 0;
    grain_push(g, &n, 2, 1);    /* field: prime */
    grain_push(g, &n, 4, 1);    /* S-box: x^alpha */
    grain_push(g, &n, 12, 255); /* field size in bits */
    grain_push(g, &n, 12, (unsigned)t);
    grain_push(g, &n, 10, (unsigned)r_f);
    grain_push(g, &n, 10, (unsigned)r_p);
    while (n < 80) g->b[n++] = 1;
    g->pos = 0;
    for (int i = 0; i < 160; i++) grain_step(g);
}

/* Self-shrinking: bits are taken in pairs, and the second is output when the first is 1. */
static int grain_out(struct grain *g) {
    for (;;) {
        int first = grain_step(g);
        int second = grain_step(g);
        if (first) return second;
    }
}

/* The next constant: 255 output bits, the first the most significant, redrawn while >= r. */
static void grain_field(struct grain *g, cuzk_fr *r) {
    for (;;) {
        uint64_t limbs[4] = {0, 0, 0, 0};
        for (int k = 0; k < 255; k++) {
            int w = 254 - k;
            limbs[w / 64] |= (uint64_t)grain_out(g) << (w % 64);
        }
        if (cuzk_fr_from_canonical(r, limbs) == CUZK_OK) return;
    }
}

/* ---- small dense matrices ---------------------------------------------------------------- */

/* r = a * b (t x t); r must not alias a or b. */
static void mat_mul(mat_t r, mat_t a, mat_t b, int t) {
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) {
            cuzk_fr acc, x;
            cuzk_fr_set_zero(&acc);
            for (int k = 0; k < t; k++) {
                cuzk_fr_mul(&x, &a[i][k], &b[k][j]);
                cuzk_fr_add(&acc, &acc, &x);
            }
            r[i][j] = acc;
        }
}

/* r = a^-1 by Gauss-Jordan elimination (n x n). Returns 0, or -1 if a is singular (which the
 * MDS matrices and their minors never are). */
static int mat_inv(mat_t r, mat_t a, int n) {
    mat_t m;
    memcpy(m, a, sizeof m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                cuzk_fr_set_one(&r[i][j]);
            else
                cuzk_fr_set_zero(&r[i][j]);
        }
    for (int c = 0; c < n; c++) {
        int piv = c;
        while (piv < n && cuzk_fr_is_zero(&m[piv][c])) piv++;
        if (piv == n) return -1;
        if (piv != c)
            for (int j = 0; j < n; j++) {
                cuzk_fr x = m[c][j];
                m[c][j] = m[piv][j];
                m[piv][j] = x;
                x = r[c][j];
                r[c][j] = r[piv][j];
                r[piv][j] = x;
            }
        cuzk_fr inv;
        cuzk_fr_inv_var(&inv, &m[c][c]);
        for (int j = 0; j < n; j++) {
            cuzk_fr_mul(&m[c][j], &m[c][j], &inv);
            cuzk_fr_mul(&r[c][j], &r[c][j], &inv);
        }
        for (int i = 0; i < n; i++) {
            if (i == c || cuzk_fr_is_zero(&m[i][c])) continue;
            cuzk_fr f = m[i][c], x;
            for (int j = 0; j < n; j++) {
                cuzk_fr_mul(&x, &f, &m[c][j]);
                cuzk_fr_sub(&m[i][j], &m[i][j], &x);
                cuzk_fr_mul(&x, &f, &r[c][j]);
                cuzk_fr_sub(&r[i][j], &r[i][j], &x);
            }
        }
    }
    return 0;
}

/* out = v * m (v a row vector of t elements); out must not alias v. (C11 converts a mat_t to
 * this const parameter type only with a cast, hence the casts at the callers.) */
static void vec_mat(cuzk_fr *out, const cuzk_fr *v, const cuzk_fr (*m)[W], int t) {
    for (int j = 0; j < t; j++) {
        cuzk_fr acc, x;
        cuzk_fr_set_zero(&acc);
        for (int i = 0; i < t; i++) {
            cuzk_fr_mul(&x, &v[i], &m[i][j]);
            cuzk_fr_add(&acc, &acc, &x);
        }
        out[j] = acc;
    }
}

/* ---- constants --------------------------------------------------------------------------- */

static const int arities[4] = {2, 4, 8, 11};
static const int partial_rounds[4] = {55, 56, 57, 57};
static struct cuzk_poseidon_params params[4];
static pthread_once_t params_once[4] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                        PTHREAD_ONCE_INIT};

static int arity_index(int arity) {
    for (int i = 0; i < 4; i++)
        if (arities[i] == arity) return i;
    return -1;
}

int cuzk_poseidon_arity_ok(int arity) { return arity_index(arity) >= 0; }

/* The paper's constant compression (neptune's full preprocessing): the constants added before
 * round r + 1 move behind round r's S-boxes through M^-1; the partial rounds' constants are
 * folded backwards so that each partial round keeps only the constant of its S-box element,
 * everything else landing in the last initial full round. */
static void compress_constants(struct cuzk_poseidon_params *p, mat_t m_inv) {
    const int t = p->width, hf = p->full_rounds / 2, rp = p->partial_rounds;
    const cuzk_fr *rc = p->rc;
    cuzk_fr *out = p->crc;
    cuzk_fr acc[W], inv[W], keys[CUZK_POSEIDON_MAX_PARTIAL_ROUNDS];

    memcpy(out, rc, (size_t)t * sizeof *out); /* round 0 is added before the first S-boxes */
    out += t;
    for (int r = 1; r < hf; r++, out += t) vec_mat(out, &rc[r * t], (const cuzk_fr(*)[W])m_inv, t);

    const int first_final = hf + rp;
    memcpy(acc, &rc[first_final * t], (size_t)t * sizeof *acc);
    for (int i = 0; i < rp; i++) {
        const cuzk_fr *prev = &rc[(first_final - i - 1) * t];
        vec_mat(inv, acc, (const cuzk_fr(*)[W])m_inv, t);
        keys[i] = inv[0];
        cuzk_fr_set_zero(&inv[0]);
        for (int j = 0; j < t; j++) cuzk_fr_add(&acc[j], &prev[j], &inv[j]);
    }
    vec_mat(out, acc, (const cuzk_fr(*)[W])m_inv, t);
    out += t;
    for (int i = rp - 1; i >= 0; i--) *out++ = keys[i];
    for (int r = 1; r < hf; r++, out += t)
        vec_mat(out, &rc[(first_final + r) * t], (const cuzk_fr(*)[W])m_inv, t);
}

/* M = M' M'' with M' = diag(1, M^) (M^ = M less its first row and column) and M'' sparse.
 * Working back from the last partial round, each round's matrix is split this way, M'' stays
 * with the round and M' moves into the previous round's matrix (it commutes with an S-box on
 * element 0), which becomes M M'. What reaches the last initial full round is pre_sparse. */
static int factor_sparse(struct cuzk_poseidon_params *p) {
    const int t = p->width, rp = p->partial_rounds;
    mat_t cur, hat, hat_inv, prime, next;
    memcpy(cur, p->mds, sizeof cur);
    for (int k = 0; k < rp; k++) {
        for (int i = 1; i < t; i++)
            for (int j = 1; j < t; j++) hat[i - 1][j - 1] = cur[i][j];
        if (mat_inv(hat_inv, hat, t - 1) != 0) return -1;
        /* M'' = [[c00, v], [w_hat, I]] with v = cur[0][1..], w = cur[1..][0], w_hat = w M^-1
         * (M^ is a power of the symmetric minor of M, so the side of the product is moot). */
        cuzk_fr w[W], wh[W];
        for (int i = 1; i < t; i++) w[i - 1] = cur[i][0];
        vec_mat(wh, w, (const cuzk_fr(*)[W])hat_inv, t - 1);
        int s = rp - 1 - k;
        p->w_hat[s][0] = cur[0][0];
        for (int i = 1; i < t; i++) p->w_hat[s][i] = wh[i - 1];
        for (int j = 1; j < t; j++) p->v_rest[s][j - 1] = cur[0][j];
        memset(prime, 0, sizeof prime);
        cuzk_fr_set_one(&prime[0][0]);
        for (int i = 1; i < t; i++)
            for (int j = 1; j < t; j++) prime[i][j] = cur[i][j];
        mat_mul(next, p->mds, prime, t);
        memcpy(cur, next, sizeof cur);
    }
    memcpy(p->pre_sparse, cur, sizeof cur);
    return 0;
}

static void params_init(int idx) {
    struct cuzk_poseidon_params *p = &params[idx];
    const int t = arities[idx] + 1;
    p->arity = arities[idx];
    p->width = t;
    p->full_rounds = CUZK_POSEIDON_FULL_ROUNDS;
    p->partial_rounds = partial_rounds[idx];
    cuzk_poseidon_tag_merkle(&p->merkle_tag, p->arity);

    /* Cauchy matrix 1/(x_i + y_j), x_i = i, y_j = t + j: all t^2 sums inverted at once. */
    cuzk_fr sums[W * W], invs[W * W];
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) cuzk_fr_from_u64(&sums[i * t + j], (uint64_t)(i + t + j));
    cuzk_fr_batch_inv(invs, sums, (size_t)(t * t));
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) p->mds[i][j] = invs[i * t + j];

    struct grain g;
    grain_init(&g, t, p->full_rounds, p->partial_rounds);
    for (int k = 0; k < (p->full_rounds + p->partial_rounds) * t; k++) grain_field(&g, &p->rc[k]);

    mat_t m_inv;
    int rc1 = mat_inv(m_inv, p->mds, t);
    int rc2 = factor_sparse(p);
    /* A Cauchy matrix with distinct x_i + y_j is invertible, and so is every square submatrix
     * (it is MDS), so neither can fail; a failure here is a bug in this file. */
    if (rc1 != 0 || rc2 != 0) __builtin_trap();
    compress_constants(p, m_inv);
}

static void init_0(void) { params_init(0); }
static void init_1(void) { params_init(1); }
static void init_2(void) { params_init(2); }
static void init_3(void) { params_init(3); }
static void (*const init_fn[4])(void) = {init_0, init_1, init_2, init_3};

const struct cuzk_poseidon_params *cuzk_poseidon_params_get(int arity) {
    int idx = arity_index(arity);
    if (idx < 0) return NULL;
    pthread_once(&params_once[idx], init_fn[idx]);
    return &params[idx];
}

/* ---- domain tags ------------------------------------------------------------------------- */

void cuzk_poseidon_tag_merkle(cuzk_fr *tag, int arity) {
    cuzk_fr_from_u64(tag, (arity >= 64 ? 0 : (UINT64_C(1) << arity)) - 1);
}

void cuzk_poseidon_tag_constant_length(cuzk_fr *tag, uint64_t len) {
    uint64_t limbs[4] = {0, len, 0, 0};
    cuzk_fr_from_canonical(tag, limbs);
}

void cuzk_poseidon_tag_custom(cuzk_fr *tag, uint64_t id) {
    uint64_t limbs[4] = {id << 40, id >> 24, 0, 0};
    cuzk_fr_from_canonical(tag, limbs);
}

/* ---- permutations ------------------------------------------------------------------------ */

static inline void sbox(cuzk_fr *x) {
    cuzk_fr x2, x4;
    cuzk_fr_sqr(&x2, x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(x, x, &x4);
}

static void state_mat(cuzk_fr *s, const cuzk_fr (*m)[W], int t) {
    cuzk_fr tmp[W];
    vec_mat(tmp, s, m, t);
    memcpy(s, tmp, (size_t)t * sizeof *s);
}

void cuzk_poseidon_permute_ref(const struct cuzk_poseidon_params *p, cuzk_fr *s) {
    const int t = p->width, hf = p->full_rounds / 2, rp = p->partial_rounds;
    for (int r = 0; r < p->full_rounds + rp; r++) {
        int full = r < hf || r >= hf + rp;
        for (int i = 0; i < t; i++) cuzk_fr_add(&s[i], &s[i], &p->rc[r * t + i]);
        for (int i = 0; i < (full ? t : 1); i++) sbox(&s[i]);
        state_mat(s, p->mds, t);
    }
}

void cuzk_poseidon_permute(const struct cuzk_poseidon_params *p, cuzk_fr *s) {
    const int t = p->width, hf = p->full_rounds / 2, rp = p->partial_rounds;
    const cuzk_fr *c = p->crc;

    for (int i = 0; i < t; i++) cuzk_fr_add(&s[i], &s[i], &c[i]);
    c += t;
    for (int r = 0; r < hf; r++, c += t) {
        for (int i = 0; i < t; i++) {
            sbox(&s[i]);
            cuzk_fr_add(&s[i], &s[i], &c[i]);
        }
        state_mat(s, r == hf - 1 ? p->pre_sparse : p->mds, t);
    }
    for (int k = 0; k < rp; k++) {
        sbox(&s[0]);
        cuzk_fr_add(&s[0], &s[0], c++);
        cuzk_fr x0 = s[0], acc, x;
        cuzk_fr_mul(&acc, &s[0], &p->w_hat[k][0]);
        for (int j = 1; j < t; j++) {
            cuzk_fr_mul(&x, &s[j], &p->w_hat[k][j]);
            cuzk_fr_add(&acc, &acc, &x);
            cuzk_fr_mul(&x, &x0, &p->v_rest[k][j - 1]);
            cuzk_fr_add(&s[j], &s[j], &x);
        }
        s[0] = acc;
    }
    for (int r = 0; r < hf; r++) {
        for (int i = 0; i < t; i++) {
            sbox(&s[i]);
            if (r < hf - 1) cuzk_fr_add(&s[i], &s[i], &c[i]);
        }
        if (r < hf - 1) c += t;
        state_mat(s, p->mds, t);
    }
}

/* ---- hashes ------------------------------------------------------------------------------ */

static int hash_with(int arity, const cuzk_fr *tag, const cuzk_fr *in, cuzk_fr *out,
                     void (*perm)(const struct cuzk_poseidon_params *, cuzk_fr *)) {
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(arity);
    if (!p) return CUZK_EINVAL;
    cuzk_fr s[W];
    s[0] = *tag;
    memcpy(&s[1], in, (size_t)arity * sizeof *s);
    perm(p, s);
    *out = s[1];
    return CUZK_OK;
}

int cuzk_poseidon_hash(int arity, const cuzk_fr *tag, const cuzk_fr *in, cuzk_fr *out) {
    return hash_with(arity, tag, in, out, cuzk_poseidon_permute);
}

int cuzk_poseidon_hash_ref(int arity, const cuzk_fr *tag, const cuzk_fr *in, cuzk_fr *out) {
    return hash_with(arity, tag, in, out, cuzk_poseidon_permute_ref);
}

int cuzk_poseidon_hash_merkle(int arity, const cuzk_fr *in, cuzk_fr *out) {
    const struct cuzk_poseidon_params *p = cuzk_poseidon_params_get(arity);
    if (!p) return CUZK_EINVAL;
    return hash_with(arity, &p->merkle_tag, in, out, cuzk_poseidon_permute);
}

int cuzk_poseidon_hash_constant_length(int arity, const cuzk_fr *in, size_t len, cuzk_fr *out) {
    if (!cuzk_poseidon_arity_ok(arity) || len < 1 || len > (size_t)arity) return CUZK_EINVAL;
    cuzk_fr tag, padded[W];
    cuzk_poseidon_tag_constant_length(&tag, len);
    for (int i = 0; i < arity; i++) {
        if ((size_t)i < len)
            padded[i] = in[i];
        else
            cuzk_fr_set_zero(&padded[i]);
    }
    return cuzk_poseidon_hash(arity, &tag, padded, out);
}
