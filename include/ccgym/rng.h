/* Ports numpy/random/src/pcg64 (PCG64, XSL-RR 128/64) and numpy's SeedSequence
 * (numpy/random/bit_generator.pyx) so that a ccgym instance seeded with s draws
 * exactly the stream of np.random.Generator(np.random.PCG64(SeedSequence(s))),
 * which is what gymnasium.utils.seeding.np_random(s) builds.
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_RNG_H_
#define CCGYM_RNG_H_

#include <stddef.h>
#include <stdint.h>

#if !defined(__SIZEOF_INT128__)
#error "ccgym needs a compiler with unsigned __int128 (GCC or Clang)"
#endif

typedef unsigned __int128 ccgym_u128;

typedef struct ccgym_pcg64 {
    ccgym_u128 state;
    ccgym_u128 inc;
} ccgym_pcg64;

#define CCGYM_PCG64_MULT \
    (((ccgym_u128)0x2360ED051FC65DA4ULL << 64) | (ccgym_u128)0x4385DF649FCCF645ULL)

static inline uint64_t ccgym_pcg64_next64(ccgym_pcg64 *rng)
{
    rng->state = rng->state * CCGYM_PCG64_MULT + rng->inc;
    uint64_t hi = (uint64_t)(rng->state >> 64);
    uint64_t lo = (uint64_t)rng->state;
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
