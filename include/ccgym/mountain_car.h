/* Ports gymnasium/envs/classic_control/mountain_car.py (MountainCarEnv, v0).
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_MOUNTAIN_CAR_H_
#define CCGYM_MOUNTAIN_CAR_H_

#include "ccgym/env.h"

typedef struct ccgym_mountain_car_params {
    double min_position, max_position, max_speed, goal_position, goal_velocity;
    double force, gravity;
} ccgym_mountain_car_params;

typedef struct ccgym_mountain_car_state {
    double position, velocity;
} ccgym_mountain_car_state;

void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                    double force, double gravity);

extern const ccgym_env_def ccgym_mountain_car_def;

#endif /* CCGYM_MOUNTAIN_CAR_H_ */
