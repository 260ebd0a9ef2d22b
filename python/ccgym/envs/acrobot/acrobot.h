/* Ports gymnasium/envs/classic_control/acrobot.py (AcrobotEnv, v1). */
#ifndef CCGYM_ACROBOT_H_
#define CCGYM_ACROBOT_H_

#include <math.h>
#include <stdint.h>

#include "ccgym/env.h"
#include "ccgym/npmath.h"
#include "ccgym/rng.h"

typedef struct ccgym_acrobot_params {
    double dt;
    double link_length_1, link_length_2, link_mass_1, link_mass_2;
    double link_com_pos_1, link_com_pos_2, link_moi;
    double max_vel_1, max_vel_2;
    double torque_noise_max;
    int64_t book; /* book_or_nips == "book" */
    /* Sub-expressions of _dsdt made only of Python floats, evaluated as
     * Python evaluates them (see acrobot.c). */
    double d1_a, d1_b, d1_c, d2_a, d2_b, phi2_c, phi1_a, phi1_b, phi1_c, dd2_c, den_a;
    int32_t use_npy_fma_trig; /* reset observation: numpy's float32 sin/cos variant */
    int32_t reserved;
    /* AVAIL_TORQUE[a], the torque of each action: Gymnasium's [-1.0, 0.0, +1]
     * from params_init; the single env's AVAIL_TORQUE attribute sets them. */
    double torque_0, torque_1, torque_2;
} ccgym_acrobot_params;

/* AVAIL_TORQUE[a] for an action a in 0..2 (the binding checks the range). */
static inline double ccgym_acrobot_torque(const ccgym_acrobot_params *p, int64_t a)
{
    return a == 0 ? p->torque_0 : a == 1 ? p->torque_1 : p->torque_2;
}

typedef struct ccgym_acrobot_state {
    double s[4]; /* theta1, theta2, dtheta1, dtheta2 */
} ccgym_acrobot_state;

/* acrobot.wrap: shift by M - m until inside [m, M], one rounded subtraction
 * at a time as Gymnasium's loop does (the same bits: a closed form such as
 * fmod would round differently). Angles reachable by stepping, even from
 * reset options of any size Gymnasium finishes in reasonable time, stay under
 * the bound; past 2^24 turns (|x| > ~1e8, where Gymnasium's Python loop takes
 * seconds per call, and for ever once x - diff == x) the state is first
 * brought near by fmod, so a step's time stays bounded (~2^24 subtractions
 * at most). Not finite: returned as it is (Gymnasium would not return). */
#define CCGYM_ACROBOT_WRAP_MAX_TURNS 16777216.0
static inline double ccgym_acrobot_wrap(double x, double m, double M)
{
    const double diff = M - m;
    if (!isfinite(x))
        return x;
    if (fabs(x) > CCGYM_ACROBOT_WRAP_MAX_TURNS * diff)
        x = fmod(x, diff);
    while (x > M)
        x = x - diff;
    while (x < m)
        x = x + diff;
    return x;
}

/* acrobot.wrap over the lanes backend (lanes = 1, ccgym/npmath.h): two
 * shifts each way as selects, the same rounded subtractions and additions in
 * the same order as ccgym_acrobot_wrap, which is all a step of a state inside
 * [m, M] can need; an x still outside after them (a state set far out, inf)
 * adds to *slow, and the caller recomputes it with lanes = 0. NaN stays NaN,
 * as there. */
CCGYM_ALWAYS_INLINE double ccgym_acrobot_wrap_bk(const int lanes, double x, double m, double M,
                                                 double *slow)
{
    if (!lanes)
        return ccgym_acrobot_wrap(x, m, M);
    const double diff = M - m;
    x = x > M ? x - diff : x;
    x = x > M ? x - diff : x;
    x = x < m ? x + diff : x;
    x = x < m ? x + diff : x;
    *slow += x > M ? 1.0 : 0.0;
    *slow += x < m ? 1.0 : 0.0;
    return x;
}

/* The step's one body, in the pieces its rk4 takes apart: the per-instance
 * step (acrobot.c; lanes = 0, libm's cos and sin) and the exact lanes
 * block (acrobot_lanes.c; lanes = 1, exact math's lanes for the trig and
 * ccgym/npmath.h's lanes backend for the squares and the wrap) run the same
 * code, so they give the same bits.
 *
 * rk4(self._dsdt, s_augmented, [0, self.dt]) is one step of size dt - 0,
 * the torque riding along as a fifth state of derivative 0: stage k (0..3)
 * evaluates _dsdt at y = y0 (k = 0), y0 + dt / 2 * k_prev (k = 1, 2),
 * y0 + dt * k_prev (k = 3), with the torque plus that step times 0.0. */
CCGYM_ALWAYS_INLINE double ccgym_acrobot_rk4_stage(int k, double dt, const double *y0,
                                                   const double *k_prev, double torque,
                                                   double *y)
{
    if (k == 0) {
        for (int j = 0; j < 4; j++)
            y[j] = y0[j];
        return torque;
    }
    const double h = k < 3 ? dt / 2.0 : dt;
    for (int j = 0; j < 4; j++)
        y[j] = y0[j] + h * k_prev[j];
    return torque + h * 0.0;
}

/* The angles of _dsdt's trig at s: cos and sin of theta2 (ang[0]), the cos
 * of theta1 + theta2 - pi / 2.0 (ang[1]) and of theta1 - pi / 2 (ang[2]). */
CCGYM_ALWAYS_INLINE void ccgym_acrobot_dsdt_angles(const double *s, double *ang)
{
    ang[0] = s[1];
    ang[1] = s[0] + s[1] - M_PI / 2.0;
    ang[2] = s[0] - M_PI / 2;
}

/* _dsdt's d2 = m2 * (lc2**2 + l1 * lc2 * cos(theta2)) + I2. */
CCGYM_ALWAYS_INLINE double ccgym_acrobot_d2(const ccgym_acrobot_params *p, double cos_t2)
{
    return p->link_mass_2 * (p->d2_a + p->d2_b * cos_t2) + p->link_moi;
}

/* The squares _dsdt takes, `**` on numpy float64 scalars (libm pow):
 * dtheta2**2, d2**2 and, under book, dtheta1**2. The body takes them as
 * inputs, so that a backend decides how they are computed: the per-instance
 * step by ccgym_pow2 (ccgym_acrobot_squares), the lanes block by the lanes
 * rule with pow for the few squares the rule leaves to it, one square at a
 * time. */
typedef struct ccgym_acrobot_squares {
    double dtheta2, d2, dtheta1;
} ccgym_acrobot_squares;

static inline ccgym_acrobot_squares ccgym_acrobot_squares_of(const ccgym_acrobot_params *p,
                                                             const double *s, double cos_t2)
{
    ccgym_acrobot_squares q;
    q.dtheta2 = ccgym_pow2(s[3]);
    q.d2 = ccgym_pow2(ccgym_acrobot_d2(p, cos_t2));
    q.dtheta1 = p->book ? ccgym_pow2(s[2]) : 0.0;
    return q;
}

/* AcrobotEnv._dsdt at s = (theta1, theta2, dtheta1, dtheta2) with torque a,
 * from the trig of its angles (ccgym_acrobot_dsdt_angles) and its squares:
 * out = ds/dt. book or nips is a select (one code for per-instance params
 * that vary it by lane; the unused term changes no value). */
CCGYM_ALWAYS_INLINE void ccgym_acrobot_dsdt_body(const ccgym_acrobot_params *p, const double *s,
                                                 double a, double cos_t2, double sin_t2,
                                                 double cos_12, double cos_1,
                                                 const ccgym_acrobot_squares *sq, double *out)
{
    const double m2 = p->link_mass_2, I1 = p->link_moi, I2 = p->link_moi;
    const double dtheta1 = s[2], dtheta2 = s[3];
    const double d1 = p->d1_a + m2 * (p->d1_b + p->d1_c * cos_t2) + I1 + I2;
    const double d2 = ccgym_acrobot_d2(p, cos_t2);
    const double phi2 = p->phi2_c * cos_12;
    const double phi1 = p->phi1_a * sq->dtheta2 * sin_t2 - p->phi1_b * dtheta2 * dtheta1 * sin_t2 +
                        p->phi1_c * cos_1 + phi2;
    const double num = a + d2 / d1 * phi1;
    const double den = p->den_a - sq->d2 / d1;
    const double bt = p->dd2_c * sq->dtheta1 * sin_t2;
    const double ddtheta2 = (p->book ? num - bt - phi2 : num - phi2) / den;
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
}

/* rk4's result from the four stages' derivatives, y0 + dt / 6.0 * (k1 + 2 *
 * k2 + 2 * k3 + k4), then step's wrap of the angles into [-pi, pi] and bound
 * of the velocities: the next state ns. */
CCGYM_ALWAYS_INLINE void ccgym_acrobot_rk4_end(const int lanes, const ccgym_acrobot_params *p,
                                               double dt, const double *y0, const double *k1,
                                               const double *k2, const double *k3,
                                               const double *k4, double *ns, double *slow)
{
    for (int j = 0; j < 4; j++)
        ns[j] = y0[j] + dt / 6.0 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    ns[0] = ccgym_acrobot_wrap_bk(lanes, ns[0], -M_PI, M_PI, slow);
    ns[1] = ccgym_acrobot_wrap_bk(lanes, ns[1], -M_PI, M_PI, slow);
    ns[2] = ccgym_py_bound(ns[2], -p->max_vel_1, p->max_vel_1);
    ns[3] = ccgym_py_bound(ns[3], -p->max_vel_2, p->max_vel_2);
}

/* _terminal from the new state's cos(theta1) and cos(theta2 + theta1). */
CCGYM_ALWAYS_INLINE int ccgym_acrobot_terminal(double cos_1, double cos_21)
{
    return -cos_1 - cos_21 > 1.0;
}

void ccgym_acrobot_params_init(ccgym_acrobot_params *p, double link_length_1,
                               double link_length_2, double link_mass_1, double link_mass_2,
                               double link_com_pos_1, double link_com_pos_2, double link_moi,
                               double max_vel_1, double max_vel_2, double torque_noise_max,
                               int book, int use_npy_fma_trig);

/* The uniform torque noise a step adds (torque_noise_max > 0), drawn as
 * Gymnasium draws it: shared by the exact step and the fast kernels. */
static inline double ccgym_acrobot_torque_noise(const ccgym_acrobot_params *p, ccgym_pcg64 *rng)
{
    return ccgym_pcg64_uniform(rng, -p->torque_noise_max,
                               p->torque_noise_max - -p->torque_noise_max);
}

#endif /* CCGYM_ACROBOT_H_ */
