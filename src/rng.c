/* SeedSequence -> PCG64 seeding, as numpy/random/bit_generator.pyx and
 * numpy/random/src/pcg64/pcg64.c do it. */
#include "ccgym/rng.h"
#include "ccgym/driver.h"

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

/* numpy's pcg64_set_seed: state = 0; inc = (initseq << 1) | 1; one step;
 * state += initstate; one step. The first step leaves state = inc, so the
 * result is state = (initstate + inc) * MULT + inc: one multiplication. */
static void pcg64_set_seed(ccgym_pcg64 *rng, const uint64_t seed[2], const uint64_t inc[2])
{
    ccgym_u128 initstate = ccgym_u128_make(seed[0], seed[1]);
    ccgym_u128 odd = ccgym_u128_make((inc[0] << 1) | (inc[1] >> 63), (inc[1] << 1) | 1u);
    rng->inc = odd;
    rng->state = ccgym_pcg64_advance1(ccgym_u128_add(initstate, odd), odd);
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

/* ---------------------------------------------------------- seed ranges
 * The seeds base + i of a range, SEED_LANES instances at a time: lane
 * vectors of uint32 (GCC/clang vector extensions, so the hashing is SIMD on
 * any target, and AVX2 when the CPU has it). A seed below 2**64 is the
 * entropy words (lo, hi), hi = 0 meaning the one word [lo]: numpy pads the
 * pool of 4 with zero words, so [lo] and [lo, 0] mix alike and one
 * formula covers both. The hash constants are the same for every seed, so
 * they stay scalars. Integer arithmetic only: every ISA gives the same bits.
 * Compilers without the vector extensions (MSVC) run the scalar reference
 * for the "portable lanes" too (same bits, slower seeding of large ranges). */
#define SEED_LANES 16

#if defined(__GNUC__) && !defined(CCGYM_MSVC)
#define SEED_VECTOR_EXT 1

typedef uint32_t seed_lanes __attribute__((vector_size(4 * SEED_LANES)));
typedef uint64_t seed_lanes_u64 __attribute__((vector_size(8 * SEED_LANES)));

#define LANES_HASHMIX(v, hc) \
    ((v) ^= (hc), (hc) *= SS_MULT_A, (v) *= (hc), (v) ^= (v) >> SS_XSHIFT)
#define LANES_MIX(x, y) \
    ((x) = SS_MIX_MULT_L * (x) - SS_MIX_MULT_R * (y), (x) ^= (x) >> SS_XSHIFT)

#define LANES_MIXSTEP(src, dst) (t = (src), LANES_HASHMIX(t, hc), LANES_MIX(dst, t))

/* Seeds rng[l] with base + l for the lanes l < n where mask (if any) is set.
 * The mixing is written out (numpy's loop order: for src, for dst != src),
 * so that the pool stays in registers. */
CCGYM_ALWAYS_INLINE void seed_block_impl(
    ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask)
{
    seed_lanes iota, p2 = {0}, p3 = {0}, t; /* p2, p3: numpy's zero padding */
    for (uint32_t l = 0; l < SEED_LANES; l++)
        iota[l] = l;
    /* The words of base + l: the low word wraps, carrying into the high one. */
    seed_lanes p0 = (uint32_t)base + iota;
    seed_lanes p1 = (uint32_t)(base >> 32) - (seed_lanes)(p0 < (uint32_t)base);
    uint32_t hc = SS_INIT_A;
    LANES_HASHMIX(p0, hc);
    LANES_HASHMIX(p1, hc);
    LANES_HASHMIX(p2, hc);
    LANES_HASHMIX(p3, hc);
    LANES_MIXSTEP(p0, p1), LANES_MIXSTEP(p0, p2), LANES_MIXSTEP(p0, p3);
    LANES_MIXSTEP(p1, p0), LANES_MIXSTEP(p1, p2), LANES_MIXSTEP(p1, p3);
    LANES_MIXSTEP(p2, p0), LANES_MIXSTEP(p2, p1), LANES_MIXSTEP(p2, p3);
    LANES_MIXSTEP(p3, p0), LANES_MIXSTEP(p3, p1), LANES_MIXSTEP(p3, p2);
    /* generate_state(4, np.uint64): words 2k and 2k + 1 make uint64 k. */
    seed_lanes_u64 val[4];
    const seed_lanes *pool[SS_POOL_SIZE] = {&p0, &p1, &p2, &p3};
    uint32_t hb = SS_INIT_B;
    for (size_t k = 0; k < 4; k++) {
        seed_lanes w[2];
        for (size_t j = 0; j < 2; j++) {
            t = *pool[(2 * k + j) % SS_POOL_SIZE] ^ hb;
            hb *= SS_MULT_B;
            t *= hb;
            t ^= t >> SS_XSHIFT;
            w[j] = t;
        }
        val[k] = __builtin_convertvector(w[0], seed_lanes_u64) |
                 (__builtin_convertvector(w[1], seed_lanes_u64) << 32);
    }
    for (size_t l = 0; l < n; l++) {
        uint64_t seed[2] = {val[0][l], val[1][l]}, inc[2] = {val[2][l], val[3][l]};
        if (!mask || mask[l])
            pcg64_set_seed(&rng[l], seed, inc);
    }
}

static void seed_block_generic(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask)
{
    seed_block_impl(rng, base, n, mask);
}

#if defined(__x86_64__) && defined(CCGYM_X86_DETECT)
#define SEED_X86 1
__attribute__((target("avx2"))) static void seed_block_avx2(ccgym_pcg64 *rng, uint64_t base,
                                                            size_t n, const uint8_t *mask)
{
    seed_block_impl(rng, base, n, mask);
}
#endif
#endif /* SEED_VECTOR_EXT */

typedef void (*seed_block_fn)(ccgym_pcg64 *, uint64_t, size_t, const uint8_t *);

/* The scalar reference: ccgym_pcg64_seed_words per instance. */
static void seed_block_scalar(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask)
{
    for (size_t i = 0; i < n; i++) {
        if (mask && !mask[i])
            continue;
        uint64_t s = base + (uint64_t)i;
        uint32_t words[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
        ccgym_pcg64_seed_words(&rng[i], words, (s >> 32) ? 2u : 1u);
    }
}

/* 0 scalar, 1 portable lanes, 2 AVX2 lanes: the best this CPU runs. */
static int seed_best_isa(void)
{
    static int best = -1; /* a racing first call stores the same value */
    if (best < 0) {
        int isa = 1;
#if defined(SEED_X86)
        if (ccgym_cpu_isa() & CCGYM_ISA_AVX2)
            isa = 2;
#endif
        best = isa;
    }
    return best;
}

static seed_block_fn seed_block_for(int isa)
{
    switch (isa) {
    case 0: return seed_block_scalar;
#if defined(SEED_X86)
    case 2: return seed_block_avx2;
#endif
#if defined(SEED_VECTOR_EXT)
    default: return seed_block_generic;
#else
    default: return seed_block_scalar;
#endif
    }
}

static void seed_run(seed_block_fn block, ccgym_pcg64 *rng, uint64_t base, size_t n,
                     const uint8_t *mask)
{
    for (size_t i = 0; i < n; i += SEED_LANES) {
        size_t m = n - i < SEED_LANES ? n - i : SEED_LANES;
        if (mask) {
            size_t k = 0;
            while (k < m && !mask[i + k])
                k++;
            if (k == m)
                continue; /* nothing to seed in this block */
        }
        block(rng + i, base + (uint64_t)i, m, mask ? mask + i : NULL);
    }
}

int ccgym_pcg64_seed_range_isa(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                               int isa)
{
    if (isa < 0)
        isa = seed_best_isa();
    if (isa > seed_best_isa())
        return -1;
    seed_run(seed_block_for(isa), rng, base, n, mask);
    return 0;
}

void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)
{
    seed_run(seed_block_for(seed_best_isa()), rng, base, n, NULL);
}

/* Fewer seeds than this per thread are not worth waking a thread for. */
#define SEED_MIN_PER_THREAD 8192

typedef struct seed_ctx {
    seed_block_fn block;
    ccgym_pcg64 *rng;
    uint64_t base;
    const uint8_t *mask;
} seed_ctx;

static void seed_chunk(void *ctx, size_t begin, size_t end)
{
    const seed_ctx *c = (const seed_ctx *)ctx;
    seed_run(c->block, c->rng + begin, c->base + (uint64_t)begin, end - begin,
             c->mask ? c->mask + begin : NULL);
}

void ccgym_pcg64_seed_range_mask(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                                 int n_threads)
{
    seed_ctx c = {seed_block_for(seed_best_isa()), rng, base, mask};
    size_t most = n / SEED_MIN_PER_THREAD;
    if (n_threads > 1 && most > 1) {
        int t = (size_t)n_threads > most ? (int)most : n_threads;
        (void)ccgym_parallel_for(seed_chunk, &c, n, t);
        return;
    }
    seed_chunk(&c, 0, n);
}
