/* Ports gymnasium/envs/classic_control/pendulum.py (PendulumEnv, v1).
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_PENDULUM_H_
#define CCGYM_PENDULUM_H_

#include "ccgym/env.h"

typedef struct ccgym_pendulum_params {
    double max_speed, max_torque, dt, g, m, l;
    double sin_coef;    /* 3 * g / (2 * l), as Python evaluates it */
    double torque_coef; /* 3.0 / (m * l**2) */
} ccgym_pendulum_params;

typedef struct ccgym_pendulum_state {
    double th, thdot;
    double last_u; /* NaN: None (no action since reset) */
} ccgym_pendulum_state;

void ccgym_pendulum_params_init(ccgym_pendulum_params *p, double g, double m, double l,
                                double max_speed, double max_torque, double dt);

extern const ccgym_env_def ccgym_pendulum_def;

#endif /* CCGYM_PENDULUM_H_ */
