/* Ports gymnasium/envs/classic_control/pendulum.py (PendulumEnv, v1). */
#ifndef CCGYM_PENDULUM_H_
#define CCGYM_PENDULUM_H_

#include <stdint.h>

#include "ccgym/env.h"

typedef struct ccgym_pendulum_params {
    double max_speed, max_torque, dt, g, m, l;
    double sin_coef;    /* 3 * g / (2 * l), as Python evaluates it */
    double torque_coef; /* 3.0 / (m * l**2) */
    /* The types (ccgym/nptype.h CCGYM_T_*) of g, m, l and max_torque: a
     * Python number, or the numpy scalar type the single env's attribute was
     * given (dt and max_speed meet only float64 values: their type never
     * matters); torque_coef's type, computed from them. */
    int64_t g_t, m_t, l_t, max_torque_t;
    int64_t torque_coef_t;
    int64_t typed; /* torque_coef_t or max_torque_t is not CCGYM_T_PY: the typed step */
} ccgym_pendulum_params;

typedef struct ccgym_pendulum_state {
    double th, thdot;
    double last_u;
    /* last_u's numpy dtype, CCGYM_T_F16/F32/F64 (ccgym/nptype.h); 0: None
     * (no action since reset; last_u NaN) */
    int64_t last_u_t;
} ccgym_pendulum_state;

/* Every attribute a Python number (the tags CCGYM_T_PY). */
void ccgym_pendulum_params_init(ccgym_pendulum_params *p, double g, double m, double l,
                                double max_speed, double max_torque, double dt);

extern const ccgym_env_def ccgym_pendulum_def;

#endif /* CCGYM_PENDULUM_H_ */
