#include "ff/fr.h"

#include <string.h>

#include "cuzk/error.h"
#include "ff/limbs.h"

#define CUZK_F_T cuzk_fr
#define CUZK_F(name) cuzk_fr_##name
#define CUZK_F_NL CUZK_FR_LIMBS
#define CUZK_F_MINUS2 CUZK_FR_MINUS2
#define CUZK_F_HALF CUZK_FR_HALF
#define CUZK_F_R3 CUZK_FR_R3
#define CUZK_F_BITS CUZK_FR_BITS
#include "ff/field_impl.h"

int cuzk_fr_root_of_unity(cuzk_fr *r, int k) {
    static const cuzk_fr root = CUZK_FR_ROOT_OF_UNITY; /* primitive 2^32-th root */
    if (k < 0 || k > CUZK_FR_TWO_ADICITY) return CUZK_EINVAL;
    cuzk_fr t = root;
    for (int i = k; i < CUZK_FR_TWO_ADICITY; i++) cuzk_fr_sqr(&t, &t);
    *r = t;
    return CUZK_OK;
}

void cuzk_fr_generator(cuzk_fr *r) {
    static const cuzk_fr g = CUZK_FR_GENERATOR;
    *r = g;
}
