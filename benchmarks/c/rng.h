/*
 * The random numbers of the plain-C references of issue 30 (verflucht_baseline.c, cursed_threshold.c,
 * covens_random.c): one xoshiro256** stream per game, seeded by splitmix64 from (seed, game index), and
 * an unbiased draw below a bound. Everything is `static inline`: each program compiles its own copy
 * (gcc -I benchmarks/c; a quoted include also finds this file beside the program).
 *
 * The programs' outputs depend on every detail here (the seeding, the generator, the bounded draw):
 * a change moves their counts, which tests compare only statistically but which the committed results
 * record exactly.
 */
#ifndef CURSEDSIM_BENCH_RNG_H
#define CURSEDSIM_BENCH_RNG_H

#include <stdint.h>

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

typedef struct { uint64_t s[4]; } rng_t;

static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The stream of game `index` of the run `seed`: splitmix64 of the pair fills the xoshiro state. */
static inline void rng_seed(rng_t *r, uint64_t seed, uint64_t index) {
    uint64_t x = seed;
    uint64_t mixed = splitmix64(&x) ^ index;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&mixed);
}

static inline uint64_t xoshiro256ss(rng_t *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in 0..n-1 without bias (multiply-shift with rejection, Lemire 2019), from the high 32 bits of
 * each output; n >= 1. */
static inline uint32_t below(rng_t *r, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(xoshiro256ss(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(xoshiro256ss(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#endif
