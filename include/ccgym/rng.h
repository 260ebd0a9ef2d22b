/* Ports numpy/random/src/pcg64 (PCG64, XSL-RR 128/64) and numpy's SeedSequence
 * (numpy/random/bit_generator.pyx) so that a ccgym instance seeded with s draws
 * exactly the stream of np.random.Generator(np.random.PCG64(SeedSequence(s))),
 * which is what gymnasium.utils.seeding.np_random(s) builds.
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_RNG_H_
#define CCGYM_RNG_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/portable.h"

/* 128-bit state and increment as (lo, hi) 64-bit halves (ccgym/portable.h):
 * the binding's (state_lo, state_hi, inc_lo, inc_hi) uint64 rows. */
typedef struct ccgym_pcg64 {
    ccgym_u128 state;
    ccgym_u128 inc;
} ccgym_pcg64;

#define CCGYM_PCG64_MULT_HI 0x2360ED051FC65DA4ULL
#define CCGYM_PCG64_MULT_LO 0x4385DF649FCCF645ULL

/* state * MULT + inc modulo 2**128 (numpy's pcg64 step). */
static inline ccgym_u128 ccgym_pcg64_advance1(ccgym_u128 state, ccgym_u128 inc)
{
    return ccgym_u128_add(
        ccgym_u128_mul(state, ccgym_u128_make(CCGYM_PCG64_MULT_HI, CCGYM_PCG64_MULT_LO)), inc);
}

static inline uint64_t ccgym_pcg64_next64(ccgym_pcg64 *rng)
{
    rng->state = ccgym_pcg64_advance1(rng->state, rng->inc);
    uint64_t hi = rng->state.hi;
    uint64_t lo = rng->state.lo;
    unsigned rot = (unsigned)(hi >> 58);
    uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64u - rot) & 63u));
}

/* numpy's next_double: 53 random bits scaled to [0, 1). */
static inline double ccgym_pcg64_next_double(ccgym_pcg64 *rng)
{
    return (double)(ccgym_pcg64_next64(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* numpy's random_uniform(bitgen, low, range): low + range * next_double. */
static inline double ccgym_pcg64_uniform(ccgym_pcg64 *rng, double low, double range)
{
    return low + range * ccgym_pcg64_next_double(rng);
}

/* Seeds one generator from the uint32 entropy words of a SeedSequence
 * (numpy's _coerce_to_uint32_array of a non-negative int: little-endian
 * 32-bit words, at least one). */
void ccgym_pcg64_seed_words(ccgym_pcg64 *rng, const uint32_t *words, size_t n_words);

/* Seeds rng[i] with the integer seed base + i, for i in [0, n): the seeds
 * gymnasium's SyncVectorEnv.reset(seed=base) gives its sub-environments.
 * The caller keeps base + n <= 2**64 (base + i is taken modulo 2**64). */
void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n);

/* The same for the i where mask[i] is nonzero (all when mask is NULL; the
 * others are left alone), split across up to n_threads threads for a large
 * n. The result does not depend on n_threads. */
void ccgym_pcg64_seed_range_mask(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                                 int n_threads);

/* For the tests: ccgym_pcg64_seed_range_mask on one thread by the given
 * implementation: 0 the scalar reference (ccgym_pcg64_seed_words per seed),
 * 1 the portable lane blocks, 2 the AVX2 lane blocks, -1 the best this CPU
 * runs (what the others use). Returns -1, seeding nothing, when the CPU
 * lacks that one. */
int ccgym_pcg64_seed_range_isa(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                               int isa);

#endif /* CCGYM_RNG_H_ */
