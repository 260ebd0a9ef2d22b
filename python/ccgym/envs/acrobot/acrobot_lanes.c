/* Acrobot's step over a block of instances in SIMD lanes, written once and
 * built twice per ISA (block_book.h, CMakeLists.txt: every block file of
 * src/): as the def's exact_lanes_block (CCGYM_LANES_BLOCK in acrobot.c)
 * and as its fast_block (CCGYM_FAST_KERNEL, precision="fast"). The step is
 * the one step body of ccgym/acrobot.h (rk4's stages, _dsdt, the end of rk4
 * and _terminal), over the build's backend: exact math's lanes for cos and
 * sin and ccgym/npmath.h's lanes backend for the squares, in branch-free
 * loops the compiler carries into this ISA's lanes (-ffp-contract=off: each
 * operation rounded as written, so every lane gives the per-instance step's
 * bits), or the fast cos and sin and x * x for the squares. The squares are
 * the body's inputs: each stage takes them by the lanes rule and calls pow
 * only for the ones the rule leaves to it (~6% of them, the same rule as
 * ccgym_pow2's; none in the fast build), one square at a time; the angles a
 * wrap of two shifts does not bring into [-pi, pi] (a state set far out) end
 * their rk4 with the scalar wrap, from the same inputs. The torque noise is
 * drawn first, in instance order, as the per-instance step draws it (none
 * for an instance awaiting a NEXT_STEP reset: the driver resets it instead).
 * tests/test_exact_math.py compares the exact block with the per-instance
 * step bit for bit, tests/test_fast.py the fast one with its bounds. */
#include <math.h>

#include "block_book.h"
#include "acrobot.h"
#include "ccgym/driver.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

/* rk4's end for instance i of the block: from its y0 and the stages'
 * derivatives k to its next state in y (ccgym_acrobot_rk4_end). */
CCGYM_ALWAYS_INLINE void acrobot_end(const int lanes, const ccgym_acrobot_params *p,
                                     double y0[4][BLOCK], double k[4][4][BLOCK], size_t i,
                                     double y[4][BLOCK], double *slow)
{
    double yi[4], k1[4], k2[4], k3[4], k4[4], ns[4];
    for (int j = 0; j < 4; j++) {
        yi[j] = y0[j][i];
        k1[j] = k[0][j][i];
        k2[j] = k[1][j][i];
        k3[j] = k[2][j][i];
        k4[j] = k[3][j][i];
    }
    ccgym_acrobot_rk4_end(lanes, p, p->dt - 0, yi, k1, k2, k3, k4, ns, slow);
    for (int j = 0; j < 4; j++)
        y[j][i] = ns[j];
}

CCGYM_ALWAYS_INLINE void acrobot_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                       size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_acrobot_state *__restrict st = (ccgym_acrobot_state *)b->state + lo;
    const ccgym_acrobot_params *__restrict P = (const ccgym_acrobot_params *)b->params + lo * ps;
    const int64_t *__restrict act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 6;
    const int skip_pending = b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP;
    double y0[4][BLOCK], y[4][BLOCK], k[4][4][BLOCK], torque[BLOCK], slow[BLOCK];
    double ang[3][BLOCK], sn[3][BLOCK], cs[3][BLOCK];
    double sq[3][BLOCK], d2v[BLOCK], sq_slow[3][BLOCK], sq_any[BLOCK];
    uint16_t left[BLOCK];
    /* the squares' rule accepted by the self-check: else every instance is slow */
    const int sure = CCGYM_BLOCK_POW2_SURE;
    const ccgym_acrobot_params shared = *P;
    ccgym_block_load4(st, sizeof *st, m, BLOCK, y0[0], y0[1], y0[2], y0[3]);
    for (size_t i = 0; i < m; i++) {
        const ccgym_acrobot_params *p = ps ? P + i : &shared;
        double t = ccgym_acrobot_torque(p, act[i]);
        if (p->torque_noise_max > 0 && !(skip_pending && b->pending_reset[lo + i]))
            t += ccgym_acrobot_torque_noise(p, &b->rng[lo + i]);
        torque[i] = t;
    }
    for (int stage = 0; stage < 4; stage++) {
        double(*const kp)[BLOCK] = stage ? k[stage - 1] : y0; /* (unread at stage 0) */
        double(*const ko)[BLOCK] = k[stage];
        double tq[BLOCK];
        for (size_t i = 0; i < m; i++) {
            const ccgym_acrobot_params *p = ps ? P + i : &shared;
            double yi[4], ki[4], yo[4], a[3];
            for (int j = 0; j < 4; j++) {
                yi[j] = y0[j][i];
                ki[j] = kp[j][i];
            }
            tq[i] = ccgym_acrobot_rk4_stage(stage, p->dt - 0, yi, ki, torque[i], yo);
            ccgym_acrobot_dsdt_angles(yo, a);
            for (int j = 0; j < 4; j++)
                y[j][i] = yo[j];
            for (int j = 0; j < 3; j++)
                ang[j][i] = a[j];
        }
        for (int j = 0; j < 3; j++)
            ccgym_block_sincos(ang[j], sn[j], cs[j], m);
        /* the squares by the lanes rule, then pow for the ones it left to
         * pow (listed without branches: they are random), then the body */
        for (size_t i = 0; i < m; i++) {
            const ccgym_acrobot_params *p = ps ? P + i : &shared;
            const double d2 = ccgym_acrobot_d2(p, cs[0][i]);
            double s0 = 0, s1 = 0, s2 = 0;
            d2v[i] = d2;
            sq[0][i] = ccgym_pow2_bk(CCGYM_BLOCK_BK, y[3][i], &s0);
            sq[1][i] = ccgym_pow2_bk(CCGYM_BLOCK_BK, d2, &s1);
            sq[2][i] = ccgym_pow2_bk(CCGYM_BLOCK_BK, y[2][i], &s2);
            sq_slow[0][i] = s0;
            sq_slow[1][i] = s1;
            sq_slow[2][i] = p->book ? s2 : 0.0; /* (nips: unused) */
            sq_any[i] = s0 + s1 + sq_slow[2][i];
        }
        /* (the fast backend's squares are x * x and leave none to pow: the
         * fast build has no listing, whose stores and flag reads cost a
         * block of one instance about a tenth of its step) */
        const size_t n_left =
            CCGYM_BLOCK_BK == CCGYM_BK_FAST ? 0 : ccgym_block_list(sq_any, m, !sure, left);
        for (size_t q = 0; q < n_left; q++) {
            const size_t i = left[q];
            if (!sure || sq_slow[0][i] != 0)
                sq[0][i] = ccgym_pow2(y[3][i]);
            if (!sure || sq_slow[1][i] != 0)
                sq[1][i] = ccgym_pow2(d2v[i]);
            if (!sure || sq_slow[2][i] != 0)
                sq[2][i] = ccgym_pow2(y[2][i]);
        }
        for (size_t i = 0; i < m; i++) {
            const ccgym_acrobot_params *p = ps ? P + i : &shared;
            double yi[4], out[4];
            for (int j = 0; j < 4; j++)
                yi[j] = y[j][i];
            ccgym_acrobot_squares q;
            q.dtheta2 = sq[0][i];
            q.d2 = sq[1][i];
            q.dtheta1 = sq[2][i];
            ccgym_acrobot_dsdt_body(p, yi, tq[i], cs[0][i], sn[0][i], cs[1][i], cs[2][i], &q, out);
            for (int j = 0; j < 4; j++)
                ko[j][i] = out[j];
        }
    }
    /* the end of rk4 into y, and the angles of the observation and of _terminal */
    for (size_t i = 0; i < m; i++) {
        double sl = 0;
        acrobot_end(CCGYM_BLOCK_BK, ps ? P + i : &shared, y0, k, i, y, &sl);
        slow[i] = sl;
    }
    if (CCGYM_UNLIKELY(ccgym_block_any(slow, m)))
        for (size_t i = 0; i < m; i++) {
            double unused = 0;
            if (slow[i] != 0)
                acrobot_end(0, P + i * ps, y0, k, i, y, &unused);
        }
    for (size_t i = 0; i < m; i++)
        ang[2][i] = y[1][i] + y[0][i];
    ccgym_block_sincos(y[0], sn[0], cs[0], m);
    ccgym_block_sincos(y[1], sn[1], cs[1], m);
    ccgym_block_sincos(ang[2], sn[2], cs[2], m);
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    for (size_t i = 0; i < m; i++) {
        for (int j = 0; j < 4; j++)
            st[i].s[j] = y[j][i];
        const uint8_t t = (uint8_t)ccgym_acrobot_terminal(cs[0][i], cs[2][i]);
        const double r = t ? 0.0 : -1.0;
        terminated[i] = t;
        reward[i] = r;
        obs[6 * i + 0] = (float)cs[0][i];
        obs[6 * i + 1] = (float)sn[0][i];
        obs[6 * i + 2] = (float)cs[1][i];
        obs[6 * i + 3] = (float)sn[1][i];
        obs[6 * i + 4] = (float)y[2][i];
        obs[6 * i + 5] = (float)y[3][i];
    }
    fast_book_block(b, lo, m, reward, terminated, special);
}

CCGYM_BLOCK_ENTRY(ccgym_acrobot, acrobot_lanes)
