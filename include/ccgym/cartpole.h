/* Ports gymnasium/envs/classic_control/cartpole.py (CartPoleEnv, v0 and v1).
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_CARTPOLE_H_
#define CCGYM_CARTPOLE_H_

#include <stdint.h>

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

#endif /* CCGYM_CARTPOLE_H_ */
