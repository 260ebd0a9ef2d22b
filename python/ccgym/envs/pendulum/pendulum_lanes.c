/* Pendulum's float32-action step over a block of instances in SIMD lanes,
 * written once and built twice per ISA (block_book.h, CMakeLists.txt: every
 * block file of src/): as the def's exact_lanes_block (CCGYM_LANES_BLOCK in
 * pendulum.c) and as its fast_block (CCGYM_FAST_KERNEL,
 * precision="fast"). The step is the one step body, ccgym_pendulum_step_body
 * (ccgym/pendulum.h), over the build's backend: exact math's lanes for
 * np.sin / np.cos and ccgym/npmath.h's lanes backend for the remainder and
 * the squares, in a branch-free loop the compiler carries into this ISA's
 * lanes (-ffp-contract=off: the same operations, each rounded as written, so
 * every lane gives the per-instance step's bits), or the fast sin and cos and
 * x * x for the squares. Instances the backend could not decide (a th beyond
 * fmod's Dekker range, a square the pow rule leaves to pow, numpy-typed
 * attributes) are recomputed with the scalar backend, from the same inputs
 * (the exact block: only the squares left to pow where that is all);
 * tests/test_exact_math.py compares the exact block with the per-instance
 * step bit for bit, tests/test_fast.py the fast one with its bounds. */
#include <math.h>

#include "block_book.h"
#include "ccgym/driver.h"
#include "pendulum.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

/* Instance i of a block, stepped by the step body over backend `bk` (0: the
 * scalar step, typed too) from its state (th, thd), sin(th) and action a;
 * stores its next state, reward, next th and observed thdot, and returns
 * what the backend could not take (nonzero: step it again with bk = 0). */
CCGYM_ALWAYS_INLINE double pendulum_one(const int bk, const ccgym_pendulum_params *p,
                                        ccgym_pendulum_state *out, double th, double thd,
                                        double sin_th, float a, double *rew, double *nth,
                                        float *obs_thdot)
{
    ccgym_pendulum_state s, next;
    s.th = th;
    s.thdot = thd;
    double slow = bk && p->typed ? 1.0 : 0.0;
    if (!bk && p->typed)
        ccgym_pendulum_step_body(0, p, &s, sin_th, a, CCGYM_T_F32, 1, &next, rew, &slow);
    else
        ccgym_pendulum_step_body(bk, p, &s, sin_th, a, CCGYM_T_F32, 0, &next, rew, &slow);
    *out = next;
    *nth = next.th;
    *obs_thdot = (float)next.thdot;
    return slow;
}

CCGYM_ALWAYS_INLINE void pendulum_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                        size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_pendulum_state *__restrict st = (ccgym_pendulum_state *)b->state + lo;
    const ccgym_pendulum_params *__restrict P = (const ccgym_pendulum_params *)b->params + lo * ps;
    const float *__restrict act = (const float *)actions + lo;
    float *__restrict obs = b->obs + lo * 3;
    double th[BLOCK], thd[BLOCK], sn[BLOCK], cs[BLOCK], nth[BLOCK], rew[BLOCK];
    for (size_t i = 0; i < m; i++) {
        th[i] = st[i].th;
        thd[i] = st[i].thdot;
    }
    ccgym_block_sincos(th, sn, cs, m);
    /* shared params: a local copy, so that the loops read them as constants */
    const ccgym_pendulum_params shared = *P;
    if (CCGYM_BLOCK_BK == CCGYM_BK_FAST) {
        /* the fast block: one loop of the step body (its forms are short:
         * one loop keeps the values in registers), then the scalar step for
         * the few instances it could not take (a th beyond the rounding
         * remainder's range, NaN, numpy-typed attributes) */
        double slow[BLOCK];
        uint16_t left[BLOCK];
        for (size_t i = 0; i < m; i++)
            slow[i] = pendulum_one(CCGYM_BLOCK_BK, ps ? P + i : &shared, &st[i], th[i], thd[i],
                                   sn[i], act[i], &rew[i], &nth[i], &obs[3 * i + 2]);
        if (CCGYM_UNLIKELY(ccgym_block_any(slow, m))) {
            const size_t n_left = ccgym_block_list(slow, m, 0, left);
            for (size_t q = 0; q < n_left; q++) {
                const size_t i = left[q];
                pendulum_one(0, P + i * ps, &st[i], th[i], thd[i], sn[i], act[i], &rew[i],
                             &nth[i], &obs[3 * i + 2]);
            }
        }
    } else {
        /* the exact lanes block, in passes: the lanes forms (remainder,
         * squares) are long, and a square the rule leaves to pow (a few in a
         * hundred) costs one pow, not a whole scalar step */
        double nthd[BLOCK], nu[BLOCK];
        double u[BLOCK], an[BLOCK], sq[3][BLOCK], sq_slow[3][BLOCK], sq_any[BLOCK], whole[BLOCK];
        int64_t nut[BLOCK];
        uint16_t left[BLOCK];
        /* the squares' rule accepted by the self-check: else every instance is slow */
        const int sure = CCGYM_BLOCK_POW2F_SURE;
        /* u's type in the untyped step: the float32 action's and a Python max_torque's */
        const int ut = ccgym_num_promote(CCGYM_T_F32, CCGYM_T_PY);
        /* the values the step squares and their squares by the lanes rule; an
         * instance the backend cannot take whole (th beyond fmod's Dekker range,
         * numpy-typed attributes) is marked for the scalar step */
        for (size_t i = 0; i < m; i++) {
            const ccgym_pendulum_params *p = ps ? P + i : &shared;
            ccgym_pendulum_state s;
            s.th = th[i];
            s.thdot = thd[i];
            double w = p->typed ? 1.0 : 0.0, f0 = 0, f1 = 0, f2 = 0;
            const ccgym_pendulum_pre pre =
                ccgym_pendulum_pre_bk(CCGYM_BLOCK_BK, p, &s, act[i], CCGYM_T_F32, 0, &w);
            u[i] = pre.u.v;
            an[i] = pre.an;
            sq[0][i] = (double)ccgym_pow2f_bk(CCGYM_BLOCK_BK, (float)pre.u.v, &f0);
            sq[1][i] = ccgym_pow2_bk(CCGYM_BLOCK_BK, pre.an, &f1);
            sq[2][i] = ccgym_pow2_bk(CCGYM_BLOCK_BK, thd[i], &f2);
            sq_slow[0][i] = f0;
            sq_slow[1][i] = f1;
            sq_slow[2][i] = f2;
            sq_any[i] = f0 + f1 + f2;
            whole[i] = w;
        }
        /* pow for the squares the rule left to it, one square at a time */
        const size_t n_left = ccgym_block_list(sq_any, m, !sure, left);
        for (size_t q = 0; q < n_left; q++) {
            const size_t i = left[q];
            if (!sure || sq_slow[0][i] != 0)
                sq[0][i] = (double)ccgym_pow2f((float)u[i]);
            if (!sure || sq_slow[1][i] != 0)
                sq[1][i] = ccgym_pow2(an[i]);
            if (!sure || sq_slow[2][i] != 0)
                sq[2][i] = ccgym_pow2(thd[i]);
        }
        /* the rest of the step from them */
        for (size_t i = 0; i < m; i++) {
            const ccgym_pendulum_params *p = ps ? P + i : &shared;
            ccgym_pendulum_state s, next;
            s.th = th[i];
            s.thdot = thd[i];
            ccgym_pendulum_pre pre;
            pre.u = ccgym_num_of(u[i], ut);
            pre.an = an[i];
            ccgym_pendulum_squares q;
            q.u = ccgym_num_of(sq[0][i], ut);
            q.an = sq[1][i];
            q.thdot = sq[2][i];
            ccgym_pendulum_step_rest(p, &s, sn[i], 0, &pre, &q, &next, &rew[i]);
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
            obs[3 * i + 2] = (float)nthd[i];
        }
        /* the instances marked whole: the scalar step */
        if (CCGYM_UNLIKELY(ccgym_block_any(whole, m)))
            for (size_t i = 0; i < m; i++)
                if (whole[i] != 0)
                    pendulum_one(0, P + i * ps, &st[i], th[i], thd[i], sn[i], act[i], &rew[i],
                                 &nth[i], &obs[3 * i + 2]);
    }
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    for (size_t i = 0; i < m; i++) {
        reward[i] = rew[i];
        terminated[i] = 0;
    }
    fast_book_block(b, lo, m, rew, NULL, special);
    ccgym_block_sincos(nth, sn, cs, m);
    for (size_t i = 0; i < m; i++) {
        obs[3 * i + 0] = (float)cs[i];
        obs[3 * i + 1] = (float)sn[i];
    }
}

CCGYM_BLOCK_ENTRY(ccgym_pendulum, pendulum_lanes)
