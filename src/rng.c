/* SeedSequence -> PCG64 seeding, as numpy/random/bit_generator.pyx and
 * numpy/random/src/pcg64/pcg64.c do it. */
#include "ccgym/rng.h"

#define SS_POOL_SIZE 4
#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_MULT_L 0xca01f9ddu
#define SS_MIX_MULT_R 0x4973f715u
#define SS_XSHIFT 16

static uint32_t ss_hashmix(uint32_t value, uint32_t *hash_const)
{
    value ^= *hash_const;
    *hash_const *= SS_MULT_A;
    value *= *hash_const;
    value ^= value >> SS_XSHIFT;
    return value;
}

static uint32_t ss_mix(uint32_t x, uint32_t y)
{
    uint32_t result = SS_MIX_MULT_L * x - SS_MIX_MULT_R * y;
    result ^= result >> SS_XSHIFT;
    return result;
}

static void pcg64_set_seed(ccgym_pcg64 *rng, const uint64_t seed[2], const uint64_t inc[2])
{
    ccgym_u128 initstate = ((ccgym_u128)seed[0] << 64) | seed[1];
    ccgym_u128 initseq = ((ccgym_u128)inc[0] << 64) | inc[1];
    rng->state = 0;
    rng->inc = (initseq << 1) | 1u;
    (void)ccgym_pcg64_next64(rng);
    rng->state += initstate;
    (void)ccgym_pcg64_next64(rng);
}

void ccgym_pcg64_seed_words(ccgym_pcg64 *rng, const uint32_t *words, size_t n_words)
{
    uint32_t pool[SS_POOL_SIZE];
    uint32_t hash_const = SS_INIT_A;
    for (size_t i = 0; i < SS_POOL_SIZE; i++)
        pool[i] = ss_hashmix(i < n_words ? words[i] : 0u, &hash_const);
    for (size_t src = 0; src < SS_POOL_SIZE; src++)
        for (size_t dst = 0; dst < SS_POOL_SIZE; dst++)
            if (src != dst)
                pool[dst] = ss_mix(pool[dst], ss_hashmix(pool[src], &hash_const));
    for (size_t src = SS_POOL_SIZE; src < n_words; src++)
        for (size_t dst = 0; dst < SS_POOL_SIZE; dst++)
            pool[dst] = ss_mix(pool[dst], ss_hashmix(words[src], &hash_const));

    /* generate_state(4, np.uint64): eight uint32 words viewed as uint64. */
    uint32_t out[8];
    uint32_t hc = SS_INIT_B;
    for (size_t i = 0; i < 8; i++) {
        uint32_t v = pool[i % SS_POOL_SIZE];
        v ^= hc;
        hc *= SS_MULT_B;
        v *= hc;
        v ^= v >> SS_XSHIFT;
        out[i] = v;
    }
    uint64_t val[4];
    for (size_t i = 0; i < 4; i++)
        val[i] = (uint64_t)out[2 * i] | ((uint64_t)out[2 * i + 1] << 32);
    pcg64_set_seed(rng, &val[0], &val[2]);
}

void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t s = base + (uint64_t)i;
        uint32_t words[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
        ccgym_pcg64_seed_words(&rng[i], words, (s >> 32) ? 2u : 1u);
    }
}
