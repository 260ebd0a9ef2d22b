/* Pendulum's exact float32-action step over a block of instances in SIMD
 * lanes: the def's exact_lanes_block (CCGYM_LANES_BLOCK in src/pendulum.c),
 * built once per ISA (CMakeLists.txt: every lanes file of src/). The step is the
 * one step body, ccgym_pendulum_step_body (ccgym/pendulum.h), over exact
 * math's lanes for np.sin / np.cos and ccgym/npmath.h's lanes backend for
 * the remainder and the squares, in a branch-free loop the compiler carries
 * into this ISA's lanes (-ffp-contract=off: the same operations, each
 * rounded as written, so every lane gives the per-instance step's bits).
 * Instances the backend could not decide (a th beyond fmod's Dekker range, a
 * square the pow rule leaves to pow, numpy-typed attributes) are recomputed
 * with the scalar backend, from the same inputs; tests/test_exact_math.py
 * compares the block with the per-instance step bit for bit. */
#include <math.h>

#include "block_book.h"
#include "ccgym/driver.h"
#include "ccgym/exactmath.h"
#include "ccgym/pendulum.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

CCGYM_ALWAYS_INLINE void pendulum_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                        size_t hi, uint8_t *special, const size_t ps)
{
    const fast_book bk = fast_book_init(b, lo, special);
    const size_t m = hi - lo;
    ccgym_pendulum_state *__restrict st = (ccgym_pendulum_state *)b->state + lo;
    const ccgym_pendulum_params *__restrict P = (const ccgym_pendulum_params *)b->params + lo * ps;
    const float *__restrict act = (const float *)actions + lo;
    float *__restrict obs = b->obs + lo * 3;
    double th[BLOCK], thd[BLOCK], sn[BLOCK], cs[BLOCK];
    double nth[BLOCK], nthd[BLOCK], nu[BLOCK], rew[BLOCK];
    int64_t nut[BLOCK];
    double slow[BLOCK];
    /* the squares' rule accepted by the self-check: else every instance is slow */
    const int sure = ccgym_pow2_fast && ccgym_pow2f_fast;
    for (size_t i = 0; i < m; i++) {
        th[i] = st[i].th;
        thd[i] = st[i].thdot;
    }
    ccgym_xm_sincos_array(th, sn, cs, m);
    /* shared params: a local copy, so that the loop reads them as constants */
    const ccgym_pendulum_params shared = *P;
    for (size_t i = 0; i < m; i++) {
        const ccgym_pendulum_params *p = ps ? P + i : &shared;
        ccgym_pendulum_state s, next;
        s.th = th[i];
        s.thdot = thd[i];
        double sl = p->typed ? 1.0 : 0.0;
        ccgym_pendulum_step_body(1, p, &s, sn[i], act[i], CCGYM_T_F32, 0, &next, &rew[i], &sl);
        nth[i] = next.th;
        nthd[i] = next.thdot;
        nu[i] = next.last_u;
        nut[i] = CCGYM_T_F32;
        slow[i] = sl;
    }
    double nslow = 0;
    for (size_t i = 0; i < m; i++)
        nslow += slow[i];
    const int any = !sure || nslow != 0;
    if (CCGYM_UNLIKELY(any))
        for (size_t i = 0; i < m; i++) {
            if (sure && slow[i] == 0)
                continue;
            const ccgym_pendulum_params *p = P + i * ps;
            ccgym_pendulum_state s, next;
            s.th = th[i];
            s.thdot = thd[i];
            double unused = 0;
            if (p->typed)
                ccgym_pendulum_step_body(0, p, &s, sn[i], act[i], CCGYM_T_F32, 1, &next, &rew[i],
                                         &unused);
            else
                ccgym_pendulum_step_body(0, p, &s, sn[i], act[i], CCGYM_T_F32, 0, &next, &rew[i],
                                         &unused);
            nth[i] = next.th;
            nthd[i] = next.thdot;
            nu[i] = next.last_u;
            nut[i] = next.last_u_t;
        }
    for (size_t i = 0; i < m; i++) {
        st[i].th = nth[i];
        st[i].thdot = nthd[i];
        st[i].last_u = nu[i];
        st[i].last_u_t = nut[i];
        b->reward[lo + i] = rew[i];
        b->terminated[lo + i] = 0;
        fast_book_step(&bk, i, rew[i], 0);
        obs[3 * i + 2] = (float)nthd[i];
    }
    ccgym_xm_sincos_array(nth, sn, cs, m);
    for (size_t i = 0; i < m; i++) {
        obs[3 * i + 0] = (float)cs[i];
        obs[3 * i + 1] = (float)sn[i];
    }
}

void CCGYM_LANES_FN(ccgym_pendulum_lanes_block)(CCGYM_LANES_BLOCK_ARGS)
{
    if (b->params_stride)
        pendulum_lanes(b, actions, lo, hi, special, 1);
    else
        pendulum_lanes(b, actions, lo, hi, special, 0);
    CCGYM_BLOCK_LEAVE();
}
