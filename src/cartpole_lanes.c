/* CartPole's exact step over a block of instances in SIMD lanes: the def's
 * exact_lanes_block (CCGYM_LANES_BLOCK in src/cartpole.c), built once per
 * ISA (CMakeLists.txt: every lanes file of src/). The physics is the one
 * step body, ccgym_cartpole_step_body (ccgym/cartpole.h), over exact math's
 * lanes for sin and cos, in a branch-free loop the compiler carries into
 * this ISA's lanes (-ffp-contract=off: each operation rounded as written, so
 * every lane gives the per-instance step's bits, its four divisions too).
 * The instances that terminated (few) get their reward and
 * steps_beyond_terminated by the exact step's own ccgym_cartpole_fallen;
 * tests/test_exact_math.py compares the block with the per-instance step
 * bit for bit. */
#include <math.h>

#include "block_book.h"
#include "ccgym/cartpole.h"
#include "ccgym/driver.h"
#include "ccgym/exactmath.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

/* (GCC 12's false "may be used uninitialized" on the block's scratch
 * arrays, as in src/pendulum_lanes.c) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

CCGYM_ALWAYS_INLINE void cartpole_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                        size_t hi, uint8_t *special, const size_t ps)
{
    const fast_book bk = fast_book_init(b, lo, special);
    const size_t m = hi - lo;
    ccgym_cartpole_state *__restrict st = (ccgym_cartpole_state *)b->state + lo;
    const ccgym_cartpole_params *__restrict P = (const ccgym_cartpole_params *)b->params + lo * ps;
    const int64_t *__restrict act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 4;
    double x[BLOCK], xd[BLOCK], th[BLOCK], thd[BLOCK], sn[BLOCK], cs[BLOCK];
    int64_t term[BLOCK];
    size_t i0 = 0;
#if defined(__AVX2__)
    /* the AoS states to arrays four at a time (4x4 transposes) */
    for (; i0 + 4 <= m; i0 += 4) {
        __m256d r0 = _mm256_loadu_pd(&st[i0 + 0].x), r1 = _mm256_loadu_pd(&st[i0 + 1].x);
        __m256d r2 = _mm256_loadu_pd(&st[i0 + 2].x), r3 = _mm256_loadu_pd(&st[i0 + 3].x);
        CCGYM_TRANSPOSE4_PD(r0, r1, r2, r3);
        _mm256_storeu_pd(x + i0, r0);
        _mm256_storeu_pd(xd + i0, r1);
        _mm256_storeu_pd(th + i0, r2);
        _mm256_storeu_pd(thd + i0, r3);
    }
#endif
    for (size_t i = i0; i < m; i++) {
        x[i] = st[i].x;
        xd[i] = st[i].x_dot;
        th[i] = st[i].theta;
        thd[i] = st[i].theta_dot;
    }
    ccgym_xm_sincos_array(th, sn, cs, m);
    /* shared params: a local copy, so that the loop reads them as constants */
    const ccgym_cartpole_params shared = *P;
    for (size_t i = 0; i < m; i++) {
        const ccgym_cartpole_params *p = ps ? P + i : &shared;
        ccgym_cartpole_state s, next;
        s.x = x[i];
        s.x_dot = xd[i];
        s.theta = th[i];
        s.theta_dot = thd[i];
        term[i] = ccgym_cartpole_step_body(p, &s, act[i], sn[i], cs[i], &next);
        x[i] = next.x;
        xd[i] = next.x_dot;
        th[i] = next.theta;
        thd[i] = next.theta_dot;
    }
    /* back, with the observations (each transposed row as floats) */
    i0 = 0;
#if defined(__AVX2__)
    for (; i0 + 4 <= m; i0 += 4) {
        __m256d r0 = _mm256_loadu_pd(x + i0), r1 = _mm256_loadu_pd(xd + i0);
        __m256d r2 = _mm256_loadu_pd(th + i0), r3 = _mm256_loadu_pd(thd + i0);
        CCGYM_TRANSPOSE4_PD(r0, r1, r2, r3);
        _mm256_storeu_pd(&st[i0 + 0].x, r0);
        _mm256_storeu_pd(&st[i0 + 1].x, r1);
        _mm256_storeu_pd(&st[i0 + 2].x, r2);
        _mm256_storeu_pd(&st[i0 + 3].x, r3);
        _mm_storeu_ps(obs + 4 * i0 + 0, _mm256_cvtpd_ps(r0));
        _mm_storeu_ps(obs + 4 * i0 + 4, _mm256_cvtpd_ps(r1));
        _mm_storeu_ps(obs + 4 * i0 + 8, _mm256_cvtpd_ps(r2));
        _mm_storeu_ps(obs + 4 * i0 + 12, _mm256_cvtpd_ps(r3));
    }
#endif
    for (size_t i = i0; i < m; i++) {
        st[i].x = x[i];
        st[i].x_dot = xd[i];
        st[i].theta = th[i];
        st[i].theta_dot = thd[i];
        obs[4 * i + 0] = (float)x[i];
        obs[4 * i + 1] = (float)xd[i];
        obs[4 * i + 2] = (float)th[i];
        obs[4 * i + 3] = (float)thd[i];
    }
    /* the alive reward, and the bookkeeping (a terminated instance's reward
     * and its share of the return come next, from a list of them made
     * without branches: terminations are random) */
    double *__restrict reward = b->reward + lo, *__restrict ep_return = b->episode_return + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    size_t fell[BLOCK], nfell = 0;
    for (size_t i = 0; i < m; i++) {
        const ccgym_cartpole_params *p = ps ? P + i : &shared;
        const uint8_t t = (uint8_t)term[i];
        const double r = p->sutton_barto_reward ? 0.0 : 1.0;
        reward[i] = r;
        terminated[i] = t;
        fast_book_step(&bk, i, t ? 0.0 : r, t);
        fell[nfell] = i;
        nfell += t;
    }
    for (size_t k = 0; k < nfell; k++) {
        const size_t i = fell[k];
        const double r = ccgym_cartpole_fallen(ps ? P + i : P, &st[i]);
        reward[i] = r;
        ep_return[i] = ep_return[i] + r;
    }
}

void CCGYM_LANES_FN(ccgym_cartpole_lanes_block)(CCGYM_LANES_BLOCK_ARGS)
{
    if (b->params_stride)
        cartpole_lanes(b, actions, lo, hi, special, 1);
    else
        cartpole_lanes(b, actions, lo, hi, special, 0);
    CCGYM_BLOCK_LEAVE();
}
