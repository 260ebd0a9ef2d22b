/* The block driver that runs every block kernel (the envs' exact lanes
 * blocks and fast blocks, src/<env>_lanes.c), the fast sin/cos of an array
 * and the discrete action check. Built once per instruction set with
 * CCGYM_FAST_SUFFIX set, at -O3 with the exact files' floating-point flags
 * (-ffp-contract=off, never -ffast-math). No env is named here: each env's
 * fast step is its own step body over the fast backend (src/block_book.h),
 * whose per-step error bound python/ccgym/vector.py documents and
 * tests/test_fast.py checks. */
#include <stdint.h>
#include <string.h>

#include "ccgym/driver.h"
#include "ccgym/fastmath.h"
#include "fast_kernels.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif



#ifndef CCGYM_FAST_SUFFIX
#error "compile with -DCCGYM_FAST_SUFFIX=<isa>"
#endif
#define FAST_CAT2(a, b) a##_##b
#define FAST_CAT(a, b) FAST_CAT2(a, b)
#define FAST_FN(name) FAST_CAT(ccgym_fast_##name, CCGYM_FAST_SUFFIX)

#define BLOCK CCGYM_FAST_BLOCK

void FAST_FN(sincos_array)(const double *x, double *s, double *c, size_t n)
{
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        ccgym_fast_sincos_n(x + i, s + i, c + i, m);
    }
}

/* Whether every a[i] is in [0, n_actions): a branch-free OR of unsigned
 * compares (a negative action is a huge unsigned one), which vectorises. */
int FAST_FN(discrete_in_range)(const int64_t *a, size_t n, int64_t n_actions)
{
    const uint64_t lim = (uint64_t)n_actions;
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (uint64_t)((uint64_t)a[i] >= lim);
    return bad == 0;
}

/* Bit k set where the 0/1 flag f[k] is 1, for k < 64. */
CCGYM_INLINE uint64_t fast_mask64(const uint8_t *f)
{
#if defined(__AVX512BW__)
    const __m512i v = _mm512_loadu_si512((const void *)f);
    return (uint64_t)_mm512_test_epi8_mask(v, v);
#elif defined(__AVX2__)
    const __m256i z = _mm256_setzero_si256();
    const __m256i v0 = _mm256_loadu_si256((const __m256i *)f);
    const __m256i v1 = _mm256_loadu_si256((const __m256i *)(f + 32));
    const uint32_t m0 = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, z));
    const uint32_t m1 = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, z));
    return (uint64_t)m0 | (uint64_t)m1 << 32;
#else
    /* Eight flags to eight bits: the multiply gathers bit 8q of w into bit 56 + q. */
    uint64_t bits = 0;
    for (int q = 0; q < 8; q++) {
        uint64_t w;
        memcpy(&w, f + 8 * q, 8);
        bits |= ((w * 0x0102040810204080ull) >> 56) << (8 * q);
    }
    return bits;
#endif
}

/* The generic driver's step (ccgym_drive_step: time limit, autoreset modes,
 * final observations, episode sums) with the physics and the bookkeeping of
 * an ordinary step done a block at a time by block (which marks in special
 * the instances that ended an episode or await a NEXT_STEP reset); those few
 * are then seen to one by one, found eight flags at a time, by the exact
 * driver's own per-instance bookkeeping (ccgym_next_step_reset,
 * ccgym_end_episode) with the exact reset. */
void FAST_FN(drive)(const ccgym_env_def *exact, ccgym_fast_block_fn block,
                    const ccgym_batch *b, const void *actions, size_t begin, size_t end)
{
    const int obs_dim = exact->obs_dim;
    const int mode = b->autoreset_mode;
    uint8_t special[CCGYM_FAST_BLOCK + 64];
    for (size_t lo = begin; lo < end;) {
        const size_t hi = end - lo < CCGYM_FAST_BLOCK ? end : lo + CCGYM_FAST_BLOCK;
        const size_t m = hi - lo;
        block(b, actions, lo, hi, special);
        memset(special + m, 0, 64);
        /* Their indices first, 64 flags at a time (one well-predicted branch
         * per 64 instances, one per marked one), and a prefetch of the RNG
         * each reset reads (the resets' cache misses then overlap). */
        size_t idx[CCGYM_FAST_BLOCK], nidx = 0;
        for (size_t j = 0; j < m; j += 64) {
            uint64_t w = fast_mask64(special + j);
            while (w) {
                const size_t k = lo + j + (size_t)ccgym_ctz64(w);
                w &= w - 1;
                idx[nidx++] = k;
                CCGYM_PREFETCH_W(&b->rng[k]);
            }
        }
        for (size_t q = 0; q < nidx; q++) {
            const size_t i = idx[q];
            const void *p = (const char *)b->params + i * b->params_stride;
            void *s = (char *)b->state + i * exact->state_size;
            float *o = b->obs + i * (size_t)obs_dim;
            if (mode == CCGYM_AUTORESET_NEXT_STEP && b->pending_reset[i]) {
                ccgym_next_step_reset(exact->reset_one, p, s, &b->rng[i], exact->default_a,
                                      exact->default_b, o, i, b->t, b->pending_reset,
                                      b->episode_start, b->episode_return, b->reward,
                                      b->terminated, b->truncated);
                continue;
            }
            /* The block added this step's reward to episode_return already. */
            (void)ccgym_end_episode(mode, exact->reset_one, p, s, &b->rng[i], exact->default_a,
                              exact->default_b, o, b->final_obs + i * (size_t)obs_dim, obs_dim,
                              i, b->t, b->episode_return[i], b->pending_reset,
                              b->episode_start, b->episode_return, b->final_return,
                              b->final_length);
        }
        lo = hi;
    }
}
