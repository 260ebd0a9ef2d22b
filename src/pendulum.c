#include <math.h>

#include "ccgym/driver.h"
#include "ccgym/npmath.h"
#include "ccgym/pendulum.h"

/* Gymnasium's PendulumEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_pendulum_state_fields[] = {
    CCGYM_FIELD(ccgym_pendulum_state, th, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_pendulum_state, thdot, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_pendulum_state, last_u, CCGYM_FIELD_F64, 1, 0, 0),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_pendulum_param_fields[] = {
    CCGYM_FIELD(ccgym_pendulum_params, max_speed, CCGYM_FIELD_F64, 1, PHYS, 8.0),
    CCGYM_FIELD(ccgym_pendulum_params, max_torque, CCGYM_FIELD_F64, 1, PHYS, 2.0),
    CCGYM_FIELD(ccgym_pendulum_params, dt, CCGYM_FIELD_F64, 1, PHYS, 0.05),
    CCGYM_FIELD(ccgym_pendulum_params, g, CCGYM_FIELD_F64, 1, PHYS, 10.0),
    CCGYM_FIELD(ccgym_pendulum_params, m, CCGYM_FIELD_F64, 1, PHYS, 1.0),
    CCGYM_FIELD(ccgym_pendulum_params, l, CCGYM_FIELD_F64, 1, PHYS, 1.0),
    CCGYM_FIELD(ccgym_pendulum_params, sin_coef, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_pendulum_params, torque_coef, CCGYM_FIELD_F64, 1, DERIVED, 0),
};
#undef PHYS
#undef FLAG
#undef DERIVED

static void ccgym_pendulum_params_init_values(void *p, const double *v)
{
    /* v: max_speed, max_torque, dt, g, m, l (the fields' order) */
    ccgym_pendulum_params_init((ccgym_pendulum_params *)p, v[3], v[4], v[5], v[0], v[1], v[2]);
}

void ccgym_pendulum_params_init(ccgym_pendulum_params *p, double g, double m, double l,
                                double max_speed, double max_torque, double dt)
{
    p->max_speed = max_speed;
    p->max_torque = max_torque;
    p->dt = dt;
    p->g = g;
    p->m = m;
    p->l = l;
    p->sin_coef = 3 * g / (2 * l);
    p->torque_coef = 3.0 / (m * ccgym_pow2(l));
}

/* What the step and the reset write (ccgym_observe_fn). */
static inline void ccgym_pendulum_observe(const ccgym_pendulum_params *p,
                                          const ccgym_pendulum_state *s, int just_reset,
                                          float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)cos(s->th);
    obs[1] = (float)sin(s->th);
    obs[2] = (float)s->thdot;
}

CCGYM_INLINE void ccgym_pendulum_step(const ccgym_pendulum_params *p, ccgym_pendulum_state *s,
                                      ccgym_pcg64 *rng, const float *action, float *obs,
                                      double *reward, uint8_t *terminated)
{
    (void)rng;
    const double th = s->th, thdot = s->thdot, dt = p->dt;
    /* np.clip(u, -max_torque, max_torque)[0] on a float32 array stays float32. */
    const float u = ccgym_npy_clipf(action[0], (float)-p->max_torque, (float)p->max_torque);
    s->last_u = u;
    /* angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2); the last
     * term is float32 arithmetic (Python float times numpy float32). */
    const double an = ccgym_npy_remainder(th + M_PI, 2 * M_PI) - M_PI;
    const float u_cost = 0.001f * ccgym_pow2f(u);
    const double costs = ccgym_pow2(an) + 0.1 * ccgym_pow2(thdot) + (double)u_cost;
    const float u_acc = (float)p->torque_coef * u;
    double newthdot = thdot + (p->sin_coef * sin(th) + (double)u_acc) * dt;
    newthdot = ccgym_npy_clip(newthdot, -p->max_speed, p->max_speed);
    const double newth = th + newthdot * dt;
    s->th = newth;
    s->thdot = newthdot;
    *reward = -costs;
    *terminated = 0;
    ccgym_pendulum_observe(p, s, 0, obs);
}

/* The step for an action of another type than float32, a double holding its
 * value (ccgym/driver.h, enum ccgym_action_type): Gymnasium's step computed
 * as numpy 2 computes it for that type. np.clip(u, ...) keeps a float16 or
 * float64 array's dtype and turns integers, bools and Python lists into
 * float64, so everything but F16 is the float64 step (the binding sends PY
 * actions here as F64; they compute the same). The action's terms u**2,
 * 0.001 * u**2 and 3.0 / (m * l**2) * u are float64, or float16 (the Python
 * floats rounded to float16, each op in float32 rounded to float16, as numpy's
 * float16 scalar math does); all the rest is float64 as in the float32 step. */
CCGYM_INLINE void ccgym_pendulum_step_typed(const ccgym_pendulum_params *p,
                                            ccgym_pendulum_state *s, const double *action,
                                            int type, float *obs, double *reward,
                                            uint8_t *terminated)
{
    const double th = s->th, thdot = s->thdot, dt = p->dt;
    double u, u_cost, u_acc;
    if (type == CCGYM_ACTION_F16) {
        u = ccgym_npy_clip(action[0], ccgym_round_f16(-p->max_torque),
                           ccgym_round_f16(p->max_torque));
        const float u2 = (float)ccgym_round_f16(ccgym_pow2f((float)u));
        const float cost = (float)ccgym_round_f16(0.001) * u2;
        const float acc = (float)ccgym_round_f16(p->torque_coef) * (float)u;
        u_cost = ccgym_round_f16(cost);
        u_acc = ccgym_round_f16(acc);
    } else {
        u = ccgym_npy_clip(action[0], -p->max_torque, p->max_torque);
        u_cost = 0.001 * ccgym_pow2(u);
        u_acc = p->torque_coef * u;
    }
    s->last_u = u;
    const double an = ccgym_npy_remainder(th + M_PI, 2 * M_PI) - M_PI;
    const double costs = ccgym_pow2(an) + 0.1 * ccgym_pow2(thdot) + u_cost;
    double newthdot = thdot + (p->sin_coef * sin(th) + u_acc) * dt;
    newthdot = ccgym_npy_clip(newthdot, -p->max_speed, p->max_speed);
    const double newth = th + newthdot * dt;
    s->th = newth;
    s->thdot = newthdot;
    *reward = -costs;
    *terminated = 0;
    ccgym_pendulum_observe(p, s, 0, obs);
}

/* (x_init, y_init): the state is uniform in [-x, x] x [-y, y]. */
static inline void ccgym_pendulum_reset(const ccgym_pendulum_params *p, ccgym_pendulum_state *s,
                                        ccgym_pcg64 *rng, double x, double y, float *obs)
{
    (void)p;
    const double lx = -x, ly = -y;
    s->th = ccgym_pcg64_uniform(rng, lx, x - lx);
    s->thdot = ccgym_pcg64_uniform(rng, ly, y - ly);
    s->last_u = NAN;
    ccgym_pendulum_observe(p, s, 0, obs);
}

CCGYM_DECLARE_TYPED_STEP(ccgym_pendulum);

CCGYM_DEFINE_ENV(ccgym_pendulum, ccgym_pendulum_state, ccgym_pendulum_params, float, 1, 0, 3,
                 M_PI, 1.0, ccgym_pendulum_fast_step_range, .name = "Pendulum",
                 .reset_symmetric = 1, .reset_option_a = "x_init", .reset_option_b = "y_init",
                 .canvas_width = 500, .canvas_height = 500,
                 .typed_step_range = ccgym_pendulum_typed_step_range)

CCGYM_DEFINE_TYPED_STEP(ccgym_pendulum, ccgym_pendulum_state, ccgym_pendulum_params, 1)
