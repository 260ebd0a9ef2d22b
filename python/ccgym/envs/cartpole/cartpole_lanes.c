/* CartPole's step over a block of instances in SIMD lanes, written once and
 * built twice per ISA (block_book.h, CMakeLists.txt: every block file of
 * src/): as the def's exact_lanes_block (CCGYM_LANES_BLOCK in
 * cartpole.c) and as its fast_block (CCGYM_FAST_KERNEL, precision="fast").
 * The physics is the one step body, ccgym_cartpole_step_body
 * (ccgym/cartpole.h), over the build's backend: exact math's lanes for sin
 * and cos, in a branch-free loop the compiler carries into this ISA's lanes
 * (-ffp-contract=off: each operation rounded as written, so every lane gives
 * the per-instance step's bits, its four divisions too), or the fast sin and
 * cos and one division. The instances that terminated (few) get their reward
 * and steps_beyond_terminated by the exact step's own ccgym_cartpole_fallen;
 * tests/test_exact_math.py compares the exact block with the per-instance
 * step bit for bit, tests/test_fast.py the fast one with its bounds. */
#include <math.h>

#include "block_book.h"
#include "cartpole.h"
#include "ccgym/driver.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

CCGYM_ALWAYS_INLINE void cartpole_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                        size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_cartpole_state *__restrict st = (ccgym_cartpole_state *)b->state + lo;
    const ccgym_cartpole_params *__restrict P = (const ccgym_cartpole_params *)b->params + lo * ps;
    const int64_t *__restrict act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 4;
    double *__restrict reward = b->reward + lo, *__restrict ep_return = b->episode_return + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    const fast_book bk = fast_book_init(b, lo, special);
    double x[BLOCK], xd[BLOCK], th[BLOCK], thd[BLOCK], sn[BLOCK], cs[BLOCK];
    ccgym_block_load4(st, sizeof *st, m, BLOCK, x, xd, th, thd);
    ccgym_block_sincos(th, sn, cs, m);
    /* shared params: a local copy, so that the loop reads them as constants */
    const ccgym_cartpole_params shared = *P;
    /* the step, its alive reward and the bookkeeping, in one loop (a
     * terminated instance's reward and its share of the return come next,
     * from a list of them made without branches: terminations are random) */
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const ccgym_cartpole_params *p = ps ? P + i : &shared;
        ccgym_cartpole_state s, next;
        s.x = x[i];
        s.x_dot = xd[i];
        s.theta = th[i];
        s.theta_dot = thd[i];
        const uint8_t t =
            (uint8_t)ccgym_cartpole_step_body(CCGYM_BLOCK_BK, p, &s, act[i], sn[i], cs[i], &next);
        x[i] = next.x;
        xd[i] = next.x_dot;
        th[i] = next.theta;
        thd[i] = next.theta_dot;
        const double r = p->sutton_barto_reward ? 0.0 : 1.0;
        reward[i] = r;
        terminated[i] = t;
        fast_book_step(&bk, i, t ? 0.0 : r, t);
    }
    /* back, with the observations */
    ccgym_block_store4(st, sizeof *st, m, x, xd, th, thd, obs);
    /* (not those awaiting a NEXT_STEP reset: the driver resets them, which
     * sets all of this) */
    const uint8_t *__restrict pending = b->pending_reset + lo;
    const uint8_t pend_mask = b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP ? 1 : 0;
    size_t fell[BLOCK], nfell = 0;
    for (size_t i = 0; i < m; i++) {
        fell[nfell] = i;
        nfell += terminated[i] & (uint8_t)~(pending[i] & pend_mask);
    }
    for (size_t k = 0; k < nfell; k++) {
        const size_t i = fell[k];
        const double r = ccgym_cartpole_fallen(ps ? P + i : P, &st[i]);
        reward[i] = r;
        ep_return[i] = ep_return[i] + r;
    }
}

CCGYM_BLOCK_ENTRY(ccgym_cartpole, cartpole_lanes)
