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

CCGYM_DEFINE_ENV(ccgym_pendulum, ccgym_pendulum_state, ccgym_pendulum_params, float, 1, 0, 3,
                 M_PI, 1.0, ccgym_pendulum_fast_step_range, .name = "Pendulum",
                 .reset_symmetric = 1, .reset_option_a = "x_init", .reset_option_b = "y_init",
                 .canvas_width = 500, .canvas_height = 500)
