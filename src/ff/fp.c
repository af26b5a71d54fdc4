#include "ff/fp.h"

#include <string.h>

#include "cuzk/error.h"
#include "ff/limbs.h"

#define CUZK_F_T cuzk_fp
#define CUZK_F(name) cuzk_fp_##name
#define CUZK_F_NL CUZK_FP_LIMBS
#define CUZK_F_MINUS2 CUZK_FP_MINUS2
#define CUZK_F_HALF CUZK_FP_HALF
#define CUZK_F_R3 CUZK_FP_R3
#define CUZK_F_BITS CUZK_FP_BITS
#include "ff/field_impl.h"

int cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a) {
    static const uint64_t e[CUZK_FP_LIMBS] = CUZK_FP_SQRT_EXP;
    cuzk_fp s, chk;
    cuzk_fp_pow(&s, a, e, CUZK_FP_LIMBS);
    cuzk_fp_sqr(&chk, &s);
    if (!cuzk_fp_eq(&chk, a)) return CUZK_ENOSQRT;
    *r = s;
    return CUZK_OK;
}
