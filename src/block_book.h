/* The driver's per-instance bookkeeping for block kernels (src/fast_kernels.c,
 * and the exact lanes blocks of the env files, ccgym_env_def.exact_lanes_block):
 * both run under the block driver of src/fast_kernels.c. */
#ifndef CCGYM_BLOCK_BOOK_H_
#define CCGYM_BLOCK_BOOK_H_

#include <stdint.h>

#include "ccgym/driver.h"
#include "ccgym/npmath.h"
#include "ccgym/portable.h"

/* GCC 12 warns "may be used uninitialized" where a block's scratch array
 * (x[BLOCK], ...) goes to a sin/cos routine's const pointer: only its first m
 * entries are written, and only those are read. A false positive (clang has
 * no such warning); silenced for the block files, which all include this
 * header, so that the -Werror builds (MinGW-w64, tools/wine_check.sh) take
 * them. No effect on the code generated. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* GCC's "no loop-carried dependence" hint, for a loop whose stores go
 * through pointers it cannot prove apart (fast_book's); clang and others do
 * not know the pragma (-Wunknown-pragmas) and vectorise such loops with run-
 * time checks of their own. */
#if defined(__GNUC__) && !defined(__clang__)
#define CCGYM_IVDEP _Pragma("GCC ivdep")
#else
#define CCGYM_IVDEP
#endif

/* The driver's bookkeeping of one ordinary step (elapsed steps, truncation,
 * episode return), done by the block kernels inside their vectorised passes:
 * fast_book_init once per block, fast_book_step per instance. */
typedef struct fast_book {
    const int64_t *__restrict start;
    double *__restrict ep_return;
    uint8_t *__restrict truncated;
    const uint8_t *__restrict pending;
    uint8_t *__restrict special;
    int64_t last_start;
    uint8_t check; /* b->check_truncation */
    uint8_t pend_mask;
} fast_book;

CCGYM_INLINE fast_book fast_book_init(const ccgym_batch *b, size_t lo, uint8_t *special)
{
    fast_book k;
    k.start = b->episode_start + lo;
    k.ep_return = b->episode_return + lo;
    k.truncated = b->truncated + lo;
    k.pending = b->pending_reset + lo;
    k.special = special;
    k.last_start = ccgym_last_start(b);
    k.check = b->check_truncation ? 1 : 0;
    k.pend_mask = b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP ? 1 : 0;
    return k;
}

/* Instance lo + i stepped with reward r (added to its return: pass 0.0 and
 * add it later where the reward is fixed up later) and terminated term.
 * Marks in special[i] the instances the driver must see to: done, or
 * awaiting a NEXT_STEP reset. */
CCGYM_INLINE void fast_book_step(const fast_book *k, size_t i, double r, uint8_t term)
{
    const uint8_t trunc = ccgym_truncates(k->check, k->start[i], k->last_start);
    k->truncated[i] = trunc;
    k->ep_return[i] = k->ep_return[i] + r;
    k->special[i] = (uint8_t)(term | trunc | (k->pending[i] & k->pend_mask));
}

/* The backend a block file (src/<env>_lanes.c) is built for. CMake builds
 * every such file once per exact-lanes ISA (CCGYM_XM_LANES: the def's
 * exact_lanes_block) and once per fast ISA (CCGYM_FAST_SUFFIX: its
 * fast_block, precision="fast"), and the file writes its block once, over:
 *   CCGYM_BLOCK_BK       the step body's backend (ccgym/npmath.h CCGYM_BK_*);
 *   ccgym_block_sincos   sin and cos of n doubles: exact math's lanes, or
 *                        ccgym/fastmath.h's fast ones;
 *   CCGYM_BLOCK_POW2_SURE, CCGYM_BLOCK_POW2F_SURE
 *                        whether the backend's squares need no pow
 *                        fallback (exact: once the self-check accepted the
 *                        lanes rule; fast: always). */
#if defined(CCGYM_FAST_SUFFIX)
#include "ccgym/fastmath.h"
#define CCGYM_BLOCK_BK CCGYM_BK_FAST
#define ccgym_block_sincos ccgym_fast_sincos_n
#define CCGYM_BLOCK_POW2_SURE 1
#define CCGYM_BLOCK_POW2F_SURE 1
#define CCGYM_BLOCK_FN_(NAME) CCGYM_LANES_CAT_(NAME##_fast_block, CCGYM_FAST_SUFFIX)
#else
#include "ccgym/exactmath.h"
#define CCGYM_BLOCK_BK CCGYM_BK_LANES
#define ccgym_block_sincos ccgym_xm_sincos_array
#define CCGYM_BLOCK_POW2_SURE ccgym_pow2_fast
#define CCGYM_BLOCK_POW2F_SURE (ccgym_pow2_fast && ccgym_pow2f_fast)
#define CCGYM_BLOCK_FN_(NAME) CCGYM_LANES_FN(NAME##_lanes_block)
#endif

/* The entry of an env's block in this build, NAME_lanes_block_<isa> or
 * NAME_fast_block_<isa> (declared and picked by ccgym/driver.h's
 * CCGYM_LANES_BLOCK and CCGYM_FAST_KERNEL): BODY(b, actions, lo, hi,
 * special, ps), an always-inline function, with ps = 0 (shared params,
 * which it reads as constants) or 1 (per instance), then the AVX state
 * cleared (CCGYM_BLOCK_LEAVE). CCGYM_BLOCK_ENTRY makes both blocks;
 * CCGYM_LANES_ENTRY only the exact one, for an env without a fast step
 * (its fast def steps exactly; the fast builds of its file define nothing). */
#define CCGYM_BLOCK_ENTRY(NAME, BODY)                                                      \
    void CCGYM_BLOCK_FN_(NAME)(CCGYM_LANES_BLOCK_ARGS)                                     \
    {                                                                                      \
        if (b->params_stride)                                                              \
            BODY(b, actions, lo, hi, special, 1);                                          \
        else                                                                               \
            BODY(b, actions, lo, hi, special, 0);                                          \
        CCGYM_BLOCK_LEAVE();                                                               \
    }
#if defined(CCGYM_FAST_SUFFIX)
/* nothing emitted: BODY is referenced from a function marked unused, so a
 * fast build of an exact-only file warns about neither (clang -Wall). */
#define CCGYM_LANES_ENTRY(NAME, BODY)                                                      \
    CCGYM_MAYBE_UNUSED static void NAME##_exact_only_(CCGYM_LANES_BLOCK_ARGS)              \
    {                                                                                      \
        BODY(b, actions, lo, hi, special, 0);                                              \
    }
#else
#define CCGYM_LANES_ENTRY(NAME, BODY) CCGYM_BLOCK_ENTRY(NAME, BODY)
#endif

/* fast_book_step over a whole block, in passes that vectorise (one type of
 * value each, restrict pointers): ret_add[i] added to instance lo + i's
 * return, term[i] its terminated flag (NULL: none terminates), its
 * truncation and special[i] as fast_book_step sets them. */
CCGYM_INLINE void fast_book_block(const ccgym_batch *b, size_t lo, size_t m,
                                  const double *__restrict ret_add,
                                  const uint8_t *__restrict term, uint8_t *__restrict special)
{
    const int64_t *__restrict start = b->episode_start + lo;
    double *__restrict ep_return = b->episode_return + lo;
    uint8_t *__restrict truncated = b->truncated + lo;
    const uint8_t *__restrict pending = b->pending_reset + lo;
    const int64_t last_start = ccgym_last_start(b);
    const uint8_t check = b->check_truncation ? 1 : 0;
    const uint8_t pend_mask = b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP ? 1 : 0;
    for (size_t i = 0; i < m; i++)
        ep_return[i] = ep_return[i] + ret_add[i];
    for (size_t i = 0; i < m; i++)
        truncated[i] = ccgym_truncates(check, start[i], last_start);
    if (term)
        for (size_t i = 0; i < m; i++)
            special[i] = (uint8_t)(term[i] | truncated[i] | (pending[i] & pend_mask));
    else
        for (size_t i = 0; i < m; i++)
            special[i] = (uint8_t)(truncated[i] | (pending[i] & pend_mask));
}

/* The lanes blocks' hand-back to the scalar backend: whether any of m
 * counts is nonzero (an integer reduction, which vectorises where a sum of
 * doubles would not), and the list of the i < m whose count is nonzero, or of
 * every i when all, made without branches (the marked instances are random:
 * a branch per instance would be mispredicted). */
CCGYM_ALWAYS_INLINE int ccgym_block_any(const double *__restrict count, size_t m)
{
    int any = 0;
    for (size_t i = 0; i < m; i++)
        any |= count[i] != 0;
    return any;
}

CCGYM_ALWAYS_INLINE size_t ccgym_block_list(const double *__restrict count, size_t m, int all,
                                            uint16_t *__restrict list)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        list[n] = (uint16_t)i;
        n += all || count[i] != 0;
    }
    return n;
}

#if defined(__AVX__)
#include <immintrin.h>
#endif
#if defined(__AVX2__)

/* 4x4 transpose of doubles: rows a..d in, columns out (its own inverse):
 * four instances' four leading doubles to four arrays and back. */
#define CCGYM_TRANSPOSE4_PD(a, b, c, d)                                                  \
    do {                                                                                \
        const __m256d t0_ = _mm256_unpacklo_pd(a, b), t1_ = _mm256_unpackhi_pd(a, b);   \
        const __m256d t2_ = _mm256_unpacklo_pd(c, d), t3_ = _mm256_unpackhi_pd(c, d);   \
        a = _mm256_permute2f128_pd(t0_, t2_, 0x20);                                     \
        b = _mm256_permute2f128_pd(t1_, t3_, 0x20);                                     \
        c = _mm256_permute2f128_pd(t0_, t2_, 0x31);                                     \
        d = _mm256_permute2f128_pd(t1_, t3_, 0x31);                                     \
    } while (0)
#endif

/* The four leading doubles of m states (AoS structs `stride` bytes apart
 * from `base`) to four arrays, 4x4 transposes where the ISA has them; with
 * a prefetch of the states `ahead` instances on (the next block's). */
CCGYM_INLINE void ccgym_block_load4(const void *base, size_t stride, size_t m, size_t ahead,
                                    double *__restrict a, double *__restrict b,
                                    double *__restrict c, double *__restrict d)
{
    const char *s = (const char *)base;
    size_t i = 0;
#if defined(__AVX2__)
    for (; i + 4 <= m; i += 4) {
        const char *next = s + (i + ahead) * stride;
        CCGYM_PREFETCH_W(next);
        CCGYM_PREFETCH_W(next + 64);
        CCGYM_PREFETCH_W(next + 128);
        __m256d r0 = _mm256_loadu_pd((const double *)(s + (i + 0) * stride));
        __m256d r1 = _mm256_loadu_pd((const double *)(s + (i + 1) * stride));
        __m256d r2 = _mm256_loadu_pd((const double *)(s + (i + 2) * stride));
        __m256d r3 = _mm256_loadu_pd((const double *)(s + (i + 3) * stride));
        CCGYM_TRANSPOSE4_PD(r0, r1, r2, r3);
        _mm256_storeu_pd(a + i, r0);
        _mm256_storeu_pd(b + i, r1);
        _mm256_storeu_pd(c + i, r2);
        _mm256_storeu_pd(d + i, r3);
    }
#else
    (void)ahead;
#endif
    for (; i < m; i++) {
        const double *f = (const double *)(s + i * stride);
        a[i] = f[0];
        b[i] = f[1];
        c[i] = f[2];
        d[i] = f[3];
    }
}

/* And back: the four arrays to the states' leading doubles, each state's
 * four also as floats at obs + 4 i (its observation). */
CCGYM_INLINE void ccgym_block_store4(void *base, size_t stride, size_t m,
                                     const double *__restrict a, const double *__restrict b,
                                     const double *__restrict c, const double *__restrict d,
                                     float *__restrict obs)
{
    char *s = (char *)base;
    size_t i = 0;
#if defined(__AVX2__)
    for (; i + 4 <= m; i += 4) {
        __m256d r0 = _mm256_loadu_pd(a + i), r1 = _mm256_loadu_pd(b + i);
        __m256d r2 = _mm256_loadu_pd(c + i), r3 = _mm256_loadu_pd(d + i);
        CCGYM_TRANSPOSE4_PD(r0, r1, r2, r3);
        _mm256_storeu_pd((double *)(s + (i + 0) * stride), r0);
        _mm256_storeu_pd((double *)(s + (i + 1) * stride), r1);
        _mm256_storeu_pd((double *)(s + (i + 2) * stride), r2);
        _mm256_storeu_pd((double *)(s + (i + 3) * stride), r3);
        _mm_storeu_ps(obs + 4 * i + 0, _mm256_cvtpd_ps(r0));
        _mm_storeu_ps(obs + 4 * i + 4, _mm256_cvtpd_ps(r1));
        _mm_storeu_ps(obs + 4 * i + 8, _mm256_cvtpd_ps(r2));
        _mm_storeu_ps(obs + 4 * i + 12, _mm256_cvtpd_ps(r3));
    }
#endif
    for (; i < m; i++) {
        double *f = (double *)(s + i * stride);
        f[0] = a[i];
        f[1] = b[i];
        f[2] = c[i];
        f[3] = d[i];
        obs[4 * i + 0] = (float)a[i];
        obs[4 * i + 1] = (float)b[i];
        obs[4 * i + 2] = (float)c[i];
        obs[4 * i + 3] = (float)d[i];
    }
}

/* A block function built for AVX returns with the upper halves of the
 * vector registers zeroed: GCC 12 left them dirty on one exit path of
 * Pendulum's AVX2 lanes block (a jump past its vzeroupper), and every SSE
 * instruction after it (libm's pow wrapper, the per-instance step) then
 * paid the AVX-SSE transition: the scalar-libm step ran 9x slower after a
 * single lanes block (`ccgym bench`'s `ccgym libm` row with
 * CCGYM_EXACT_MATH=avx2: 1.36M steps/s instead of 12M). */
#if defined(__AVX__)
#define CCGYM_BLOCK_LEAVE() _mm256_zeroupper()
#else
#define CCGYM_BLOCK_LEAVE() ((void)0)
#endif

#endif /* CCGYM_BLOCK_BOOK_H_ */
