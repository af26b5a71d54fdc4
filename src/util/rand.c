#include "util/rand.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk/error.h"

int cuzk_rand_bytes(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return CUZK_EIO;
        }
        p += got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cuzk_rng_seed(struct cuzk_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cuzk_rng_u64(struct cuzk_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

int cuzk_rng_fill(struct cuzk_rng *rng, void *buf, size_t n) {
    if (rng == NULL) return cuzk_rand_bytes(buf, n);
    unsigned char *p = buf;
    while (n > 0) {
        uint64_t v = cuzk_rng_u64(rng);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
    return CUZK_OK;
}
