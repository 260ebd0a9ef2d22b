/* Ports gymnasium/envs/classic_control/cartpole.py (CartPoleEnv, v0 and v1). */
#ifndef CCGYM_CARTPOLE_H_
#define CCGYM_CARTPOLE_H_

#include <stdint.h>

#include "ccgym/env.h"
#include "ccgym/npmath.h"
#include "ccgym/portable.h"

typedef struct ccgym_cartpole_params {
    double gravity, masscart, masspole, total_mass, length, polemass_length;
    double force_mag, tau, theta_threshold_radians, x_threshold;
    int32_t euler;               /* kinematics_integrator == "euler" */
    int32_t sutton_barto_reward;
} ccgym_cartpole_params;

typedef struct ccgym_cartpole_state {
    double x, x_dot, theta, theta_dot;
    int64_t steps_beyond_terminated; /* -1: None */
} ccgym_cartpole_state;

/* Gymnasium's defaults and derived constants, computed as its __init__ does. */
void ccgym_cartpole_params_init(ccgym_cartpole_params *p, double gravity, double masscart,
                                double masspole, double length, double force_mag,
                                double tau, int euler, int sutton_barto_reward);

/* The step's reward once the pole is down (theta or x past its threshold),
 * with Gymnasium's steps_beyond_terminated bookkeeping: 1 (-1 with
 * sutton_barto_reward) on the step it falls, then 0 (-1), counting the steps
 * beyond. Gymnasium's counter is a Python int, which never overflows; ours
 * saturates at INT64_MAX (only a restored state can hold it: 2**63 steps are
 * out of reach), where the reward is the same as one below it. Shared by
 * the exact step and the fast kernels' scalar pass. */
static inline double ccgym_cartpole_fallen(const ccgym_cartpole_params *p,
                                           ccgym_cartpole_state *s)
{
    const int sb = p->sutton_barto_reward != 0;
    const int64_t sbt = s->steps_beyond_terminated;
    if (sbt < 0) {
        s->steps_beyond_terminated = 0; /* the pole just fell */
        return sb ? -1.0 : 1.0;
    }
    s->steps_beyond_terminated = sbt < INT64_MAX ? sbt + 1 : sbt;
    return sb ? -1.0 : 0.0;
}

/* The step's physics: Gymnasium's CartPoleEnv.step from the state s and
 * the action (0 or 1), with sintheta, costheta = sin and cos of s's theta,
 * to the next state's four floats in *next and whether it terminated. The
 * one step body of every path, by its backend bk (ccgym/npmath.h
 * CCGYM_BK_*): the per-instance step (cartpole.c; CCGYM_BK_SCALAR,
 * libm's sin and cos) and the blocks of cartpole_lanes.c, exact
 * (CCGYM_BK_LANES: a branch-free loop of it over exact math's lanes, the
 * same bits) and fast (CCGYM_BK_FAST: fast sin and cos, and one division by
 * total_mass, its reciprocal, where Gymnasium divides by it three times). */
CCGYM_ALWAYS_INLINE int ccgym_cartpole_step_body(const int bk, const ccgym_cartpole_params *p,
                                                 const ccgym_cartpole_state *s, int64_t action,
                                                 double sintheta, double costheta,
                                                 ccgym_cartpole_state *next)
{
    const double x = s->x, x_dot = s->x_dot, theta = s->theta, theta_dot = s->theta_dot;
    const double force = action == 1 ? p->force_mag : -p->force_mag;
    const int fast = bk == CCGYM_BK_FAST;
    const double inv_total_mass = fast ? 1.0 / p->total_mass : 0.0;
#define CCGYM_CARTPOLE_PER_TOTAL_MASS_(v) (fast ? (v) * inv_total_mass : (v) / p->total_mass)
    const double temp = CCGYM_CARTPOLE_PER_TOTAL_MASS_(
        force + p->polemass_length * (theta_dot * theta_dot) * sintheta);
    const double thetaacc =
        (p->gravity * sintheta - costheta * temp) /
        (p->length *
         (4.0 / 3.0 - CCGYM_CARTPOLE_PER_TOTAL_MASS_(p->masspole * (costheta * costheta))));
    const double xacc =
        temp - CCGYM_CARTPOLE_PER_TOTAL_MASS_(p->polemass_length * thetaacc * costheta);
#undef CCGYM_CARTPOLE_PER_TOTAL_MASS_
    /* euler: positions from the old velocities; semi-implicit: from the new */
    const double n_x_dot = x_dot + p->tau * xacc;
    const double n_theta_dot = theta_dot + p->tau * thetaacc;
    const int euler = p->euler != 0;
    next->x = x + p->tau * (euler ? x_dot : n_x_dot);
    next->x_dot = n_x_dot;
    next->theta = theta + p->tau * (euler ? theta_dot : n_theta_dot);
    next->theta_dot = n_theta_dot;
    return (next->x < -p->x_threshold) | (next->x > p->x_threshold) |
           (next->theta < -p->theta_threshold_radians) |
           (next->theta > p->theta_threshold_radians);
}

#endif /* CCGYM_CARTPOLE_H_ */
