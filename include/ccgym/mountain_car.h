/* Ports gymnasium/envs/classic_control/mountain_car.py (MountainCarEnv, v0). */
#ifndef CCGYM_MOUNTAIN_CAR_H_
#define CCGYM_MOUNTAIN_CAR_H_

#include <stdint.h>

#include "ccgym/env.h"

typedef struct ccgym_mountain_car_params {
    double min_position, max_position, max_speed, goal_position, goal_velocity;
    double force, gravity;
    /* Each attribute's type (ccgym/nptype.h CCGYM_T_*): a Python number, or
     * the numpy scalar type the single env's attribute was given. */
    int64_t min_position_t, max_position_t, max_speed_t, goal_position_t, goal_velocity_t,
        force_t, gravity_t;
    int64_t typed; /* some *_t is not CCGYM_T_PY: the step takes the typed path */
    /* The type of the next step's action (enum ccgym_mountain_car_action_t),
     * written by the single env before a typed step: Gymnasium's
     * (action - 1) * force computes in it. */
    int64_t action_t;
} ccgym_mountain_car_params;

/* What Gymnasium's (action - 1) * force computes in besides the attribute:
 * a Python int (weak), or a numpy int of 8, 16, or 32/64 bits (which
 * promote with a numpy float16 to float16, float32 and float64). */
enum ccgym_mountain_car_action_t {
    CCGYM_MC_ACTION_PY = 0,
    CCGYM_MC_ACTION_I8 = 1,
    CCGYM_MC_ACTION_I16 = 2,
    CCGYM_MC_ACTION_I64 = 3
};

/* typed = 0: position and velocity are as the default step leaves them,
 * numpy float64s (the velocity the Python int 0 where the car has just
 * hit the left wall: velocity 0 at min_position). Otherwise their types are
 * position_t and velocity_t (CCGYM_T_*, or CCGYM_MC_T_INT: the int 0). */
typedef struct ccgym_mountain_car_state {
    double position, velocity;
    int64_t typed, position_t, velocity_t;
} ccgym_mountain_car_state;

enum { CCGYM_MC_T_INT = 4 };
/* force_t of a Python int force. */
enum { CCGYM_MC_FORCE_INT = 4 };

void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                    double force, double gravity);

extern const ccgym_env_def ccgym_mountain_car_def;

#endif /* CCGYM_MOUNTAIN_CAR_H_ */
