#include <math.h>

#include "cartpole.h"
#include "ccgym/draw.h"
#include "ccgym/driver.h"

/* Gymnasium's CartPoleEnv: the state and parameter layouts, the parameters'
 * defaults (its __init__) and their order in params_init. */
static const ccgym_field ccgym_cartpole_state_fields[] = {
    CCGYM_FIELD(ccgym_cartpole_state, x, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_cartpole_state, x_dot, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_cartpole_state, theta, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_cartpole_state, theta_dot, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_cartpole_state, steps_beyond_terminated, CCGYM_FIELD_I64, 1, 0, -1),
};

#define IN CCGYM_PARAM_INPUT
#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_cartpole_param_fields[] = {
    CCGYM_ATTR(ccgym_cartpole_params, gravity, CCGYM_FIELD_F64, PHYS, 9.8, "gravity", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, masscart, CCGYM_FIELD_F64, PHYS, 1.0, "masscart", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, masspole, CCGYM_FIELD_F64, PHYS, 0.1, "masspole", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, total_mass, CCGYM_FIELD_F64, DERIVED, 0, "total_mass", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, length, CCGYM_FIELD_F64, PHYS, 0.5, "length", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, polemass_length, CCGYM_FIELD_F64, DERIVED, 0, "polemass_length", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, force_mag, CCGYM_FIELD_F64, PHYS, 10.0, "force_mag", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_cartpole_params, tau, CCGYM_FIELD_F64, PHYS, 0.02, "tau", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, theta_threshold_radians, CCGYM_FIELD_F64, DERIVED, 0, "theta_threshold_radians", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    CCGYM_ATTR(ccgym_cartpole_params, x_threshold, CCGYM_FIELD_F64, DERIVED, 0, "x_threshold", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW),
    /* kinematics_integrator == "euler" */
    CCGYM_SWITCH(ccgym_cartpole_params, euler, CCGYM_FIELD_I32, 1, "kinematics_integrator", 0, "euler"),
    CCGYM_SWITCH(ccgym_cartpole_params, sutton_barto_reward, CCGYM_FIELD_I32, 0, "_sutton_barto_reward", CCGYM_ATTR_KEYWORD, NULL),
};
#undef IN
#undef PHYS
#undef FLAG
#undef DERIVED

static void ccgym_cartpole_params_init_values(void *p, const double *v)
{
    ccgym_cartpole_params_init((ccgym_cartpole_params *)p, v[0], v[1], v[2], v[3], v[4], v[5],
                               (int)v[6], (int)v[7]);
}

void ccgym_cartpole_params_init(ccgym_cartpole_params *p, double gravity, double masscart,
                                double masspole, double length, double force_mag,
                                double tau, int euler, int sutton_barto_reward)
{
    p->gravity = gravity;
    p->masscart = masscart;
    p->masspole = masspole;
    p->total_mass = masspole + masscart;
    p->length = length;
    p->polemass_length = masspole * length;
    p->force_mag = force_mag;
    p->tau = tau;
    p->theta_threshold_radians = 12 * 2 * M_PI / 360;
    p->x_threshold = 2.4;
    p->euler = euler;
    p->sutton_barto_reward = sutton_barto_reward;
}

/* What the step and the reset write (ccgym_observe_fn). */
static inline void ccgym_cartpole_observe(const ccgym_cartpole_params *p,
                                          const ccgym_cartpole_state *s, int just_reset,
                                          float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->x;
    obs[1] = (float)s->x_dot;
    obs[2] = (float)s->theta;
    obs[3] = (float)s->theta_dot;
}

CCGYM_INLINE void ccgym_cartpole_step(const ccgym_cartpole_params *p, ccgym_cartpole_state *s,
                                      ccgym_pcg64 *rng, const int64_t *action, float *obs,
                                      double *reward, uint8_t *terminated)
{
    (void)rng;
    ccgym_cartpole_state next = *s;
    const int term = ccgym_cartpole_step_body(CCGYM_BK_SCALAR, p, s, *action, sin(s->theta),
                                              cos(s->theta), &next);
    *s = next;
    *reward = !term ? (p->sutton_barto_reward ? 0.0 : 1.0) : ccgym_cartpole_fallen(p, s);
    *terminated = (uint8_t)term;
    ccgym_cartpole_observe(p, s, 0, obs);
}

static inline void ccgym_cartpole_reset(const ccgym_cartpole_params *p, ccgym_cartpole_state *s,
                                        ccgym_pcg64 *rng, double low, double high, float *obs)
{
    (void)p;
    double range = high - low;
    s->x = ccgym_pcg64_uniform(rng, low, range);
    s->x_dot = ccgym_pcg64_uniform(rng, low, range);
    s->theta = ccgym_pcg64_uniform(rng, low, range);
    s->theta_dot = ccgym_pcg64_uniform(rng, low, range);
    s->steps_beyond_terminated = -1;
    ccgym_cartpole_observe(p, s, 0, obs);
}

/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h);
 * Gymnasium's Box turns the float32 maximum of its bounds into infinity. */
static const float ccgym_cartpole_obs_high[4] = {(float)(2.4 * 2), INFINITY,
                                                 (float)(12 * 2 * M_PI / 360 * 2), INFINITY};
static const float ccgym_cartpole_obs_low[4] = {-(float)(2.4 * 2), -INFINITY,
                                                -(float)(12 * 2 * M_PI / 360 * 2), -INFINITY};

/* Gymnasium's CartPoleEnv.step warns on a step after the pole fell, when its
 * steps_beyond_terminated was 0 (the step then counts it to 1). */
static const char ccgym_cartpole_step_warning[] =
    "You are calling 'step()' even though this environment has already returned "
    "terminated = True. You should always call 'reset()' once you receive "
    "'terminated = True' -- any further steps are undefined behavior.";
static int ccgym_cartpole_step_warns(const void *s, int terminated)
{
    return terminated && ((const ccgym_cartpole_state *)s)->steps_beyond_terminated == 1;
}

/* Gymnasium's CartPoleEnv.render(): the cart, the pole (rotated by -theta),
 * the axle and the track line, as its pygame calls place them. */
static void ccgym_cartpole_paint(const ccgym_draw *d, const void *state, const void *params)
{
    const ccgym_cartpole_state *s = (const ccgym_cartpole_state *)state;
    const ccgym_cartpole_params *p = (const ccgym_cartpole_params *)params;
    const ccgym_rgb black = {0, 0, 0}, pole = {202, 152, 101}, axle = {129, 132, 203};
    const double world_width = p->x_threshold * 2;
    const double scale = d->width / world_width;
    const double polewidth = 10.0, polelen = scale * (2 * p->length);
    const double cartwidth = 50.0, cartheight = 30.0;
    const double axleoffset = cartheight / 4.0;
    const double cartx = s->x * scale + d->width / 2.0;
    const double carty = 100;
    const double cart_x[4] = {cartx - cartwidth / 2, cartx - cartwidth / 2,
                              cartx + cartwidth / 2, cartx + cartwidth / 2};
    const double cart_y[4] = {carty - cartheight / 2, carty + cartheight / 2,
                              carty + cartheight / 2, carty - cartheight / 2};
    d->polygon(d->canvas, cart_x, cart_y, 4, black);
    ccgym_draw_rect(d, -polewidth / 2, polewidth / 2, polelen - polewidth / 2, -polewidth / 2,
                    -s->theta, cartx, carty + axleoffset, pole);
    d->circle(d->canvas, cartx, carty + axleoffset, polewidth / 2, axle);
    d->hline(d->canvas, 0, d->width, (int)carty, black);
}

/* The step in SIMD lanes, exact and fast (cartpole_lanes.c, the same step
 * body over two backends), per ISA. */
CCGYM_LANES_BLOCK(ccgym_cartpole)
CCGYM_FAST_KERNEL(ccgym_cartpole)

CCGYM_DEFINE_STOCK_ENV(ccgym_cartpole, ccgym_cartpole_state, ccgym_cartpole_params, int64_t, 0, 2, 4,
                 -0.05, 0.05,
                       CCGYM_LANES_BLOCK_OF(ccgym_cartpole), CCGYM_FAST_KERNEL_OF(ccgym_cartpole), .name = "CartPole",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400, .render_fps = 50, .gym_class = "CartPoleEnv", .paint = ccgym_cartpole_paint,
                 .action_rules = CCGYM_RULE_ASSERTS_CONTAINS,
                 .obs_low = ccgym_cartpole_obs_low, .obs_high = ccgym_cartpole_obs_high,
                 .step_warning = ccgym_cartpole_step_warning,
                 .step_warns = ccgym_cartpole_step_warns)
