/* Ports gymnasium/envs/classic_control/pendulum.py (PendulumEnv, v1). */
#ifndef CCGYM_PENDULUM_H_
#define CCGYM_PENDULUM_H_

#include <stdint.h>

#include "ccgym/env.h"
#include "ccgym/nptype.h"

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

/* The step: Gymnasium's PendulumEnv.step line by line, each value with its
 * numpy 2 type (ccgym/nptype.h), for an action of type `at` (a numpy float
 * type) with value `a` and attributes of any type: u = np.clip(u,
 * -max_torque, max_torque)[0] takes the promoted type of the action and
 * max_torque, its terms u**2, 0.001 * u**2 and 3.0 / (m * l**2) * u compute
 * in their operands' types (float16: float32 ops rounded to float16, as
 * numpy's float16 scalar math); the rest meets the float64 state and is
 * float64. From the state s (th, thdot) and sin_th = np.sin(th) to the next
 * state *next and the reward. The one step body of every exact path: the
 * per-instance step (src/pendulum.c; lanes = 0, sin_th from libm) and the
 * exact lanes block (src/pendulum_lanes.c; lanes = 1, ccgym/npmath.h's lanes
 * backend, sin_th from exact math's lanes), which recomputes with lanes = 0
 * the instances whose *slow it made nonzero. typed = 0: every attribute a Python
 * number (their tags then fold away with at's). */
CCGYM_ALWAYS_INLINE void ccgym_pendulum_step_body(const int lanes, const ccgym_pendulum_params *p,
                                                  const ccgym_pendulum_state *s, double sin_th,
                                                  double a, int at, int typed,
                                                  ccgym_pendulum_state *next, double *reward,
                                                  double *slow)
{
    const double th = s->th, thdot = s->thdot, dt = p->dt;
    const ccgym_num max_torque =
        ccgym_num_of(p->max_torque, typed ? (int)p->max_torque_t : CCGYM_T_PY);
    const ccgym_num u =
        ccgym_num_clip(ccgym_num_of(a, at), ccgym_num_neg(max_torque), max_torque);
    const double an = ccgym_npy_remainder_bk(lanes, th + M_PI, 2 * M_PI, slow) - M_PI;
    const ccgym_num u_cost =
        ccgym_num_op(ccgym_num_py(0.001), ccgym_num_pow2_bk(lanes, u, slow), CCGYM_OP_MUL);
    const double costs = ccgym_pow2_bk(lanes, an, slow) +
                         0.1 * ccgym_pow2_bk(lanes, thdot, slow) + u_cost.v;
    const ccgym_num u_acc =
        ccgym_num_op(ccgym_num_of(p->torque_coef, typed ? (int)p->torque_coef_t : CCGYM_T_PY), u,
                     CCGYM_OP_MUL);
    double newthdot = thdot + (p->sin_coef * sin_th + u_acc.v) * dt;
    newthdot = ccgym_npy_clip(newthdot, -p->max_speed, p->max_speed);
    next->th = th + newthdot * dt;
    next->thdot = newthdot;
    next->last_u = u.v;
    next->last_u_t = u.t;
    *reward = -costs;
}

extern const ccgym_env_def ccgym_pendulum_def;

#endif /* CCGYM_PENDULUM_H_ */
