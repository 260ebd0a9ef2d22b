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
 * per-instance step (pendulum.c; lanes = 0, sin_th from libm) and the
 * exact lanes block (pendulum_lanes.c; lanes = 1, ccgym/npmath.h's lanes
 * backend, sin_th from exact math's lanes), which recomputes with lanes = 0
 * the instances whose *slow it made nonzero. typed = 0: every attribute a Python
 * number (their tags then fold away with at's). */
CCGYM_ALWAYS_INLINE void ccgym_pendulum_step_body(const int lanes, const ccgym_pendulum_params *p,
                                                  const ccgym_pendulum_state *s, double sin_th,
                                                  double a, int at, int typed,
                                                  ccgym_pendulum_state *next, double *reward,
                                                  double *slow);

/* The body in the three parts the lanes block runs as passes of its own
 * (ccgym_pendulum_step_body composes them): the values the step squares,
 * u = np.clip(u, -max_torque, max_torque)[0] and angle_normalize(th) ... */
typedef struct ccgym_pendulum_pre {
    ccgym_num u;
    double an;
} ccgym_pendulum_pre;

CCGYM_ALWAYS_INLINE ccgym_pendulum_pre ccgym_pendulum_pre_bk(const int lanes,
                                                            const ccgym_pendulum_params *p,
                                                            const ccgym_pendulum_state *s,
                                                            double a, int at, int typed,
                                                            double *slow)
{
    const ccgym_num max_torque =
        ccgym_num_of(p->max_torque, typed ? (int)p->max_torque_t : CCGYM_T_PY);
    ccgym_pendulum_pre r;
    r.u = ccgym_num_clip(ccgym_num_of(a, at), ccgym_num_neg(max_torque), max_torque);
    r.an = ccgym_npy_remainder_bk(lanes, s->th + M_PI, 2 * M_PI, slow) - M_PI;
    return r;
}

/* ... their squares and thdot's, `**` on numpy scalars (libm pow, powf for
 * a float32 u): the body takes them as inputs, so that the lanes block can
 * take them by the lanes rule and call pow for the few it leaves to pow,
 * one square at a time ... */
typedef struct ccgym_pendulum_squares {
    ccgym_num u;
    double an, thdot;
} ccgym_pendulum_squares;

CCGYM_ALWAYS_INLINE ccgym_pendulum_squares ccgym_pendulum_squares_bk(const int lanes,
                                                                    const ccgym_pendulum_pre *pre,
                                                                    double thdot, double *slow)
{
    ccgym_pendulum_squares q;
    q.u = ccgym_num_pow2_bk(lanes, pre->u, slow);
    q.an = ccgym_pow2_bk(lanes, pre->an, slow);
    q.thdot = ccgym_pow2_bk(lanes, thdot, slow);
    return q;
}

/* ... and the rest of the step from them. */
CCGYM_ALWAYS_INLINE void ccgym_pendulum_step_rest(const ccgym_pendulum_params *p,
                                                  const ccgym_pendulum_state *s, double sin_th,
                                                  int typed, const ccgym_pendulum_pre *pre,
                                                  const ccgym_pendulum_squares *sq,
                                                  ccgym_pendulum_state *next, double *reward)
{
    const double th = s->th, thdot = s->thdot, dt = p->dt;
    const ccgym_num u = pre->u;
    const ccgym_num u_cost = ccgym_num_op(ccgym_num_py(0.001), sq->u, CCGYM_OP_MUL);
    const double costs = sq->an + 0.1 * sq->thdot + u_cost.v;
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

CCGYM_ALWAYS_INLINE void ccgym_pendulum_step_body(const int lanes, const ccgym_pendulum_params *p,
                                                  const ccgym_pendulum_state *s, double sin_th,
                                                  double a, int at, int typed,
                                                  ccgym_pendulum_state *next, double *reward,
                                                  double *slow)
{
    const ccgym_pendulum_pre pre = ccgym_pendulum_pre_bk(lanes, p, s, a, at, typed, slow);
    const ccgym_pendulum_squares sq = ccgym_pendulum_squares_bk(lanes, &pre, s->thdot, slow);
    ccgym_pendulum_step_rest(p, s, sin_th, typed, &pre, &sq, next, reward);
}

#endif /* CCGYM_PENDULUM_H_ */
