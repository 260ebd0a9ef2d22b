/* Ports numpy/random/src/pcg64 (PCG64, XSL-RR 128/64) and numpy's SeedSequence
 * (numpy/random/bit_generator.pyx) so that a ccgym instance seeded with s draws
 * exactly the stream of np.random.Generator(np.random.PCG64(SeedSequence(s))),
 * which is what gymnasium.utils.seeding.np_random(s) builds.
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_RNG_H_
#define CCGYM_RNG_H_

#include <stddef.h>
#include <stdint.h>

/* MSVC's 128-bit product intrinsics (the same condition as the private
 * portable.h's CCGYM_MSVC, which this public header can not include). */
#if (defined(_MSC_VER) && !defined(__clang__)) || defined(CCGYM_TEST_MSVC_PATHS)
#define CCGYM_RNG_MSVC_ 1
#include <intrin.h>
#if defined(_M_X64) || defined(__x86_64__)
#define CCGYM_RNG_MSVC_X64_ 1
#elif defined(_M_ARM64) || defined(__aarch64__)
#define CCGYM_RNG_MSVC_ARM64_ 1
#endif
#endif

/* ----------------------------------------------------- 128-bit integers
 * ccgym_u128 is two 64-bit halves (lo first: the memory layout the binding
 * reads, PCG64's state as numpy's (state_lo, state_hi)). The product goes
 * through unsigned __int128 where the compiler has it, _umul128 / __umulh
 * on MSVC, and 32-bit limbs otherwise (define CCGYM_NO_INT128 to force
 * that one, as the C test driver does to check it). */
typedef struct ccgym_u128 {
    uint64_t lo, hi;
} ccgym_u128;

static inline ccgym_u128 ccgym_u128_make(uint64_t hi, uint64_t lo)
{
    ccgym_u128 r;
    r.lo = lo;
    r.hi = hi;
    return r;
}

static inline ccgym_u128 ccgym_u128_add(ccgym_u128 a, ccgym_u128 b)
{
    ccgym_u128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (uint64_t)(r.lo < a.lo);
    return r;
}

/* (hi, lo) of the full 64 x 64 -> 128-bit product. */
static inline uint64_t ccgym_mul64_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
#if defined(CCGYM_RNG_MSVC_X64_) && !defined(CCGYM_NO_INT128)
    unsigned long long h;
    const uint64_t lo = _umul128(a, b, &h);
    *hi = h;
    return lo;
#elif defined(CCGYM_RNG_MSVC_ARM64_) && !defined(CCGYM_NO_INT128)
    *hi = __umulh(a, b);
    return a * b;
#elif defined(__SIZEOF_INT128__) && !defined(CCGYM_NO_INT128) && !defined(CCGYM_RNG_MSVC_)
    const unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
#else
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    /* The middle column: at most 3 * (2**32 - 1) * 2**32, no overflow of 64 bits
     * once split (cross holds the carry into the high word). */
    const uint64_t cross = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (cross >> 32);
    return (cross << 32) | (uint32_t)p00;
#endif
}

/* a * b modulo 2**128. */
static inline ccgym_u128 ccgym_u128_mul(ccgym_u128 a, ccgym_u128 b)
{
    ccgym_u128 r;
    r.lo = ccgym_mul64_wide(a.lo, b.lo, &r.hi);
    r.hi += a.lo * b.hi + a.hi * b.lo;
    return r;
}


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

#endif /* CCGYM_RNG_H_ */
