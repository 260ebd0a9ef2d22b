/* Ports gymnasium/envs/classic_control/cartpole.py (CartPoleEnv, v0 and v1). */
#ifndef CCGYM_CARTPOLE_H_
#define CCGYM_CARTPOLE_H_

#include <stdint.h>

#include "ccgym/env.h"

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

extern const ccgym_env_def ccgym_cartpole_def;

#endif /* CCGYM_CARTPOLE_H_ */
