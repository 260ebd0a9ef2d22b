/* Fast-mode block kernels (precision="fast"): the exact kernels' arithmetic
 * in structure-of-arrays passes over a block of instances, with the
 * vectorisable sin/cos of ccgym/fastmath.h instead of libm and x * x instead
 * of pow. Built once per instruction set with CCGYM_FAST_SUFFIX set, at -O3
 * with -ffp-contract=fast (fused multiply-adds allowed) but never -ffast-math:
 * NaN and inf propagate as in the exact kernels. Not bit-exact; the per-step
 * error bound is documented in python/ccgym/vector.py and tested in
 * tests/test_fast.py. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ccgym/acrobot.h"
#include "ccgym/cartpole.h"
#include "ccgym/driver.h"
#include "ccgym/fastmath.h"
#include "ccgym/nptype.h"
#include "ccgym/pendulum.h"
#include "fast_kernels.h"
#include "block_book.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif


/* GCC's "no loop-carried dependence" hint; clang and others do not know the
 * pragma (-Wunknown-pragmas) and vectorise these loops with their own run-time
 * checks instead. */
#if defined(__GNUC__) && !defined(__clang__)
#define CCGYM_IVDEP _Pragma("GCC ivdep")
#else
#define CCGYM_IVDEP
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

/* The exported block function of NAME: NAME_block with its params stride
 * (0: one params struct shared by all instances, 1: one each) a constant,
 * so that the shared case loads the parameters once. */
#define FAST_BLOCK_ENTRY(NAME)                                                               \
    void FAST_FN(NAME##_block)(const ccgym_batch *b, const void *actions, size_t lo,         \
                               size_t hi, uint8_t *special)                                 \
    {                                                                                        \
        if (b->params_stride)                                                                \
            NAME##_block(b, actions, lo, hi, special, 1);                                    \
        else                                                                                 \
            NAME##_block(b, actions, lo, hi, special, 0);                                    \
        CCGYM_BLOCK_LEAVE();                                                                 \
    }

/* a * b + c with one rounding where the target has a fused multiply-add
 * (aarch64, x86 with -mfma: GCC's __FP_FAST_FMA; clang 14 defines only the
 * ISA macros), else with two (the generic x86 build has no FMA, so nothing
 * can fuse there). The physics loops write
 * their multiply-adds with it: -ffp-contract=fast leaves GCC free to choose
 * which product of a * b - c * d to fuse, and its choice differed between
 * the vectorised loop and the scalar one (epilogue, peeled iterations), so
 * an instance's result depended on its position in a block (found on
 * aarch64; docs/platforms.md). Written out, no product is left for it to
 * fuse: each of them is a multiplication whose result feeds no add. */
#if defined(__FP_FAST_FMA) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#define FAST_FMA(a, b, c) fma(a, b, c)
#else
#define FAST_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* np.clip on a float64 scalar: NaN passes through (as ccgym_npy_clip). */
CCGYM_INLINE double fast_clip(double x, double lo, double hi)
{
    double y = x > lo ? x : lo;
    y = y < hi ? y : hi;
    return x != x ? x : y;
}

/* ------------------------------------------------------------------ CartPole */


/* ps: 0 when all instances share params[0], 1 when each has its own.
 * Three passes: load the AoS state into arrays (4x4 transposes where the ISA
 * has them), the physics and the driver's bookkeeping on arrays (what GCC
 * vectorises), then store the state back (transposes again; each transposed
 * state row converted to float is that instance's observation). The
 * instances that terminated (few) then get their reward and
 * steps_beyond_terminated in a scalar pass, so the vector passes never touch
 * that int64 field. */
CCGYM_INLINE void cartpole_block(const ccgym_batch *b, const void *actions, size_t lo,
                                 size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_cartpole_state *__restrict st = (ccgym_cartpole_state *)b->state + lo;
    const ccgym_cartpole_params *P = (const ccgym_cartpole_params *)b->params + lo * ps;
    const int64_t *__restrict act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 4;
    double *__restrict reward = b->reward + lo;
    double *__restrict ep_return = b->episode_return + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    const fast_book bk = fast_book_init(b, lo, special);
    double x[BLOCK], xd[BLOCK], th[BLOCK], thd[BLOCK];
    double sn[BLOCK], cs[BLOCK];
    /* (with the next block's states prefetched: 160 bytes a pass) */
    ccgym_block_load4(st, sizeof *st, m, BLOCK, x, xd, th, thd);
    ccgym_fast_sincos_n(th, sn, cs, m);
    /* No branches in the passes: random actions would mispredict. */
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const ccgym_cartpole_params *p = P + i * ps;
        const double x_dot = xd[i], theta_dot = thd[i];
        const double costheta = cs[i], sintheta = sn[i];
        const double force = act[i] == 1 ? p->force_mag : -p->force_mag;
        /* One division where the exact kernel has four (vector division is slow). */
        const double inv_total_mass = 1.0 / p->total_mass;
        /* Every multiply-add fused as GCC fused them on x86 (FAST_FMA). */
        const double temp =
            FAST_FMA(p->polemass_length * (theta_dot * theta_dot), sintheta, force) *
            inv_total_mass;
        const double den = p->length * FAST_FMA(-(p->masspole * (costheta * costheta)),
                                                inv_total_mass, 4.0 / 3.0);
        const double thetaacc = FAST_FMA(p->gravity, sintheta, -(costheta * temp)) / den;
        const double xacc =
            FAST_FMA(-(p->polemass_length * thetaacc * costheta), inv_total_mass, temp);
        /* Both integrators, then a select: keeps the loop branch-free. */
        const double n_x_dot = FAST_FMA(p->tau, xacc, x_dot);
        const double n_theta_dot = FAST_FMA(p->tau, thetaacc, theta_dot);
        const int eu = p->euler != 0;
        const double n_x = FAST_FMA(p->tau, eu ? x_dot : n_x_dot, x[i]);
        const double n_theta = FAST_FMA(p->tau, eu ? theta_dot : n_theta_dot, th[i]);
        x[i] = n_x;
        xd[i] = n_x_dot;
        th[i] = n_theta;
        thd[i] = n_theta_dot;
        const uint8_t t = (uint8_t)((n_x < -p->x_threshold) | (n_x > p->x_threshold) |
                                    (n_theta < -p->theta_threshold_radians) |
                                    (n_theta > p->theta_threshold_radians));
        /* The alive reward; the terminated ones get theirs (and its share of
         * the return) below. */
        const double r = p->sutton_barto_reward != 0 ? 0.0 : 1.0;
        reward[i] = r;
        terminated[i] = t;
        fast_book_step(&bk, i, t ? 0.0 : r, t);
    }
    ccgym_block_store4(st, sizeof *st, m, x, xd, th, thd, obs);
    /* The terminated instances, eight flags at a time; not those awaiting a
     * NEXT_STEP reset (the driver resets them, which sets all of this). */
    const uint8_t *pend = b->pending_reset + lo;
    const uint64_t pend_mask =
        b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP ? ~(uint64_t)0 : 0;
    for (size_t j = 0; j < m; j += 8) {
        uint64_t w = 0, pw = 0;
        if (j + 8 <= m) {
            memcpy(&w, terminated + j, 8);
            memcpy(&pw, pend + j, 8);
        } else {
            for (size_t i = j; i < m; i++) {
                w |= (uint64_t)terminated[i] << (8 * (i - j));
                pw |= (uint64_t)pend[i] << (8 * (i - j));
            }
        }
        w &= ~(pw & pend_mask);
        while (w) {
            const size_t i = j + (size_t)ccgym_ctz64(w) / 8;
            w &= ~((uint64_t)0xff << (8 * (i - j)));
            reward[i] = ccgym_cartpole_fallen(P + i * ps, &st[i]); /* the exact step's */
            ep_return[i] = ep_return[i] + reward[i];
        }
    }
}

FAST_BLOCK_ENTRY(cartpole)

/* ------------------------------------------------------------------ Pendulum */

CCGYM_INLINE void pendulum_block(const ccgym_batch *b, const void *actions, size_t lo,
                                 size_t hi, uint8_t *special, const size_t ps)
{
    const fast_book bk = fast_book_init(b, lo, special);
    const size_t m = hi - lo;
    ccgym_pendulum_state *__restrict st = (ccgym_pendulum_state *)b->state + lo;
    const ccgym_pendulum_params *P = (const ccgym_pendulum_params *)b->params + lo * ps;
    const float *__restrict act = (const float *)actions + lo;
    float *__restrict obs = b->obs + lo * 3;
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    double th[BLOCK], sn[BLOCK], cs[BLOCK], an_[BLOCK];

    for (size_t i = 0; i < m; i++)
        th[i] = st[i].th;
    ccgym_fast_sincos_n(th, sn, cs, m);
    /* angle_normalize(th) as th - 2 pi round(th / 2 pi), 2 pi in two parts
     * (the exact kernel's fmod(th + pi, 2 pi) - pi, up to rounding). That
     * rounding is the exact kernel's `th + pi`, which grows with |th|
     * (Gymnasium never wraps th): past |th| = 1e6 it would take the reward
     * outside the documented bound, and past ~1e15 the reduction itself
     * fails, so there (and for inf / NaN) the exact kernel's expression is
     * used, lane by lane: the bound holds for every state. */
    const double shifter = 0x1.8p52;
    int big = 0;
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const double thi = th[i];
        const double k = (thi * (0.5 / M_PI) + shifter) - shifter;
        an_[i] = (thi - k * 0x1.921fb54442d18p+2) - k * 0x1.1a62633145c07p-52;
        big |= !(fabs(thi) <= 1e6);
    }
    if (CCGYM_UNLIKELY(big))
        for (size_t i = 0; i < m; i++)
            if (!(fabs(th[i]) <= 1e6))
                an_[i] = ccgym_npy_remainder(th[i] + M_PI, 2 * M_PI) - M_PI;
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const ccgym_pendulum_params *p = P + i * ps;
        const double thi = th[i], thdot = st[i].thdot, dt = p->dt;
        const float mt = (float)p->max_torque, a = act[i];
        float u = a > -mt ? a : -mt;
        u = u < mt ? u : mt;
        u = a != a ? a : u;
        st[i].last_u = u;
        st[i].last_u_t = CCGYM_T_F32;
        const double an = an_[i];
        const float u_cost = 0.001f * (u * u);
        const double costs = FAST_FMA(an, an, 0.1 * (thdot * thdot)) + (double)u_cost;
        const float u_acc = (float)p->torque_coef * u;
        double newthdot = thdot + (p->sin_coef * sn[i] + (double)u_acc) * dt;
        newthdot = fast_clip(newthdot, -p->max_speed, p->max_speed);
        th[i] = thi + newthdot * dt;
        st[i].th = th[i];
        st[i].thdot = newthdot;
        reward[i] = -costs;
        terminated[i] = 0;
        fast_book_step(&bk, i, -costs, 0);
        obs[3 * i + 2] = (float)newthdot;
    }
    ccgym_fast_sincos_n(th, sn, cs, m);
    for (size_t i = 0; i < m; i++) {
        obs[3 * i + 0] = (float)cs[i];
        obs[3 * i + 1] = (float)sn[i];
    }
}

FAST_BLOCK_ENTRY(pendulum)

/* ------------------------------------------------------------------- Acrobot */

/* AcrobotEnv._dsdt over a block: k[j][i] = d s_j / dt at y[.][i]. Not the
 * exact acrobot_dsdt (src/acrobot.c) in a loop but different arithmetic:
 * structure-of-arrays passes with the vectorised sin/cos of fastmath.h, one
 * sincos per angle where the exact one calls cos and sin apart, cos(a - pi/2)
 * taken as sin(a), x * x for pow, fused multiply-adds allowed, and the
 * book/nips choice as a select. */
CCGYM_INLINE void acrobot_dsdt(const ccgym_acrobot_params *P, const size_t ps, size_t m,
                               double y[4][BLOCK], const double *__restrict torque,
                               double k[4][BLOCK])
{
    double sum[BLOCK], s1[BLOCK], c1[BLOCK], s2[BLOCK], c2[BLOCK], s12[BLOCK], c12[BLOCK];
    for (size_t i = 0; i < m; i++)
        sum[i] = y[0][i] + y[1][i];
    ccgym_fast_sincos_n(y[0], s1, c1, m);
    ccgym_fast_sincos_n(y[1], s2, c2, m);
    ccgym_fast_sincos_n(sum, s12, c12, m);
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const ccgym_acrobot_params *p = P + i * ps;
        const double m2 = p->link_mass_2, I1 = p->link_moi, I2 = p->link_moi;
        const double dtheta1 = y[2][i], dtheta2 = y[3][i];
        const double cos_t2 = c2[i], sin_t2 = s2[i];
        const double d1 = p->d1_a + m2 * (p->d1_b + p->d1_c * cos_t2) + I1 + I2;
        const double d2 = m2 * (p->d2_a + p->d2_b * cos_t2) + I2;
        const double phi2 = p->phi2_c * s12[i];
        const double phi1 =
            FAST_FMA(p->phi1_c, s1[i],
                     FAST_FMA(p->phi1_a * (dtheta2 * dtheta2), sin_t2,
                              -(p->phi1_b * dtheta2 * dtheta1 * sin_t2))) +
            phi2;
        const double book_term = p->book ? p->dd2_c * (dtheta1 * dtheta1) * sin_t2 : 0.0;
        const double ddtheta2 =
            (torque[i] + d2 / d1 * phi1 - book_term - phi2) / (p->den_a - (d2 * d2) / d1);
        const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
        k[0][i] = dtheta1;
        k[1][i] = dtheta2;
        k[2][i] = ddtheta1;
        k[3][i] = ddtheta2;
    }
}

/* acrobot.wrap for what one shift does not fix (set_state oddities): the
 * exact kernel's rule. */
static double acrobot_wrap_slow(double x) { return ccgym_acrobot_wrap(x, -M_PI, M_PI); }

CCGYM_INLINE void acrobot_block(const ccgym_batch *b, const void *actions, size_t lo,
                                size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_acrobot_state *__restrict st = (ccgym_acrobot_state *)b->state + lo;
    const ccgym_acrobot_params *P = (const ccgym_acrobot_params *)b->params + lo * ps;
    const int64_t *act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 6;
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    const int skip_pending = b->autoreset_mode == CCGYM_AUTORESET_NEXT_STEP;
    double torque[BLOCK], y0[4][BLOCK], y[4][BLOCK], k[4][BLOCK], acc[4][BLOCK];
    double dt[BLOCK];

    /* The RNG stays exact: the same draws, in the same order, as the exact kernel. */
    for (size_t i = 0; i < m; i++) {
        const ccgym_acrobot_params *p = P + i * ps;
        double t = ccgym_acrobot_torque(p, act[i]);
        if (p->torque_noise_max > 0 && !(skip_pending && b->pending_reset[lo + i]))
            t += ccgym_acrobot_torque_noise(p, &b->rng[lo + i]);
        torque[i] = t;
        dt[i] = p->dt - 0;
        for (int j = 0; j < 4; j++)
            y0[j][i] = st[i].s[j];
    }
    /* rk4: k1 at y0, k2 at y0 + dt/2 k1, k3 at y0 + dt/2 k2, k4 at y0 + dt k3. */
    acrobot_dsdt(P, ps, m, y0, torque, k);
    for (int j = 0; j < 4; j++)
        for (size_t i = 0; i < m; i++) {
            acc[j][i] = k[j][i];
            y[j][i] = y0[j][i] + dt[i] / 2.0 * k[j][i];
        }
    acrobot_dsdt(P, ps, m, y, torque, k);
    for (int j = 0; j < 4; j++)
        for (size_t i = 0; i < m; i++) {
            acc[j][i] += 2 * k[j][i];
            y[j][i] = y0[j][i] + dt[i] / 2.0 * k[j][i];
        }
    acrobot_dsdt(P, ps, m, y, torque, k);
    for (int j = 0; j < 4; j++)
        for (size_t i = 0; i < m; i++) {
            acc[j][i] += 2 * k[j][i];
            y[j][i] = y0[j][i] + dt[i] * k[j][i];
        }
    acrobot_dsdt(P, ps, m, y, torque, k);
    int bad = 0;
CCGYM_IVDEP
    for (size_t i = 0; i < m; i++) {
        const ccgym_acrobot_params *p = P + i * ps;
        double ns[4];
        for (int j = 0; j < 4; j++)
            ns[j] = y0[j][i] + dt[i] / 6.0 * (acc[j][i] + k[j][i]);
        for (int j = 0; j < 2; j++) {
            /* wrap to [-pi, pi]: one shift is all a step can need. */
            double w = ns[j] > M_PI ? ns[j] - 2 * M_PI : ns[j];
            w = w < -M_PI ? w + 2 * M_PI : w;
            bad |= !(w >= -M_PI && w <= M_PI);
            y[j][i] = ns[j]; /* kept for the slow path */
            ns[j] = w;
        }
        /* Python's min(max(x, lo), hi) as ccgym_py_bound: a NaN x stays x. */
        const double v1 = p->max_vel_1, v2 = p->max_vel_2;
        double b2 = -v1 > ns[2] ? -v1 : ns[2];
        b2 = v1 < b2 ? v1 : b2;
        double b3 = -v2 > ns[3] ? -v2 : ns[3];
        b3 = v2 < b3 ? v2 : b3;
        for (int j = 0; j < 2; j++)
            st[i].s[j] = ns[j];
        st[i].s[2] = b2;
        st[i].s[3] = b3;
        k[0][i] = ns[0];
        k[1][i] = ns[1];
        k[2][i] = ns[0] + ns[1];
    }
    if (bad) {
        for (size_t i = 0; i < m; i++) {
            for (int j = 0; j < 2; j++) {
                if (!(st[i].s[j] >= -M_PI && st[i].s[j] <= M_PI)) {
                    st[i].s[j] = acrobot_wrap_slow(y[j][i]);
                    k[j][i] = st[i].s[j];
                }
            }
            k[2][i] = k[0][i] + k[1][i];
        }
    }
    double s0[BLOCK], c0[BLOCK], s1[BLOCK], c1[BLOCK], s01[BLOCK], c01[BLOCK];
    ccgym_fast_sincos_n(k[0], s0, c0, m);
    ccgym_fast_sincos_n(k[1], s1, c1, m);
    ccgym_fast_sincos_n(k[2], s01, c01, m);
    const fast_book bk = fast_book_init(b, lo, special);
    for (size_t i = 0; i < m; i++) {
        const uint8_t term = (uint8_t)(-c0[i] - c01[i] > 1.0);
        const double r = term ? 0.0 : -1.0;
        terminated[i] = term;
        reward[i] = r;
        fast_book_step(&bk, i, r, term);
        obs[6 * i + 0] = (float)c0[i];
        obs[6 * i + 1] = (float)s0[i];
        obs[6 * i + 2] = (float)c1[i];
        obs[6 * i + 3] = (float)s1[i];
        obs[6 * i + 4] = (float)st[i].s[2];
        obs[6 * i + 5] = (float)st[i].s[3];
    }
}

FAST_BLOCK_ENTRY(acrobot)
