/* Ports gymnasium/envs/classic_control/acrobot.py (AcrobotEnv, v1). */
#ifndef CCGYM_ACROBOT_H_
#define CCGYM_ACROBOT_H_

#include <math.h>
#include <stdint.h>

#include "ccgym/env.h"
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

extern const ccgym_env_def ccgym_acrobot_def;

#endif /* CCGYM_ACROBOT_H_ */
