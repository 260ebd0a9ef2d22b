/* Ports gymnasium/envs/classic_control/continuous_mountain_car.py
 * (Continuous_MountainCarEnv, MountainCarContinuous-v0). */
#ifndef CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_
#define CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_

#include <stdint.h>

#include "ccgym/env.h"

typedef struct ccgym_continuous_mountain_car_params {
    double min_position, max_position, max_speed, goal_position, goal_velocity, power;
    /* force = min(max(action[0], min_action), max_action) */
    double min_action, max_action;
    /* Each attribute's type (ccgym/nptype.h CCGYM_T_*): a Python number, or
     * the numpy scalar type the single env's attribute was given. */
    int64_t min_position_t, max_position_t, max_speed_t, goal_position_t, goal_velocity_t,
        power_t, min_action_t, max_action_t;
    int64_t typed; /* some *_t is not CCGYM_T_PY: the step takes the typed path */
} ccgym_continuous_mountain_car_params;

/* Gymnasium keeps the state as a float64 array right after reset and as a
 * float32 array after every step, and numpy 2 then computes in float32:
 * state_f32 says which, so that ccgym computes in the same precision. */
typedef struct ccgym_continuous_mountain_car_state {
    double position, velocity;
    int64_t state_f32;
} ccgym_continuous_mountain_car_state;

/* Gymnasium's defaults but goal_velocity and power; every attribute a
 * Python number (the *_t tags CCGYM_T_PY). */
void ccgym_continuous_mountain_car_params_init(ccgym_continuous_mountain_car_params *p,
                                               double goal_velocity, double power);

extern const ccgym_env_def ccgym_continuous_mountain_car_def;

#endif /* CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_ */
