/* The driver's per-instance bookkeeping for block kernels (src/fast_kernels.c,
 * and the exact lanes blocks of the env files, ccgym_env_def.exact_lanes_block):
 * both run under the block driver of src/fast_kernels.c. */
#ifndef CCGYM_BLOCK_BOOK_H_
#define CCGYM_BLOCK_BOOK_H_

#include <stdint.h>

#include "ccgym/driver.h"

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
