#include <math.h>

#include "ccgym/draw.h"
#include "ccgym/driver.h"
#include "mountain_car.h"
#include "ccgym/npmath.h"
#include "ccgym/nptype.h"

/* Gymnasium's MountainCarEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_mountain_car_state_fields[] = {
    CCGYM_FIELD(ccgym_mountain_car_state, position, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_mountain_car_state, velocity, CCGYM_FIELD_F64, 1, 0, 0),
    /* given position and velocity alone: numpy float64s, as after a step */
    CCGYM_TAG_FIELD(ccgym_mountain_car_state, typed, 0, 0, 1),
    CCGYM_TAG_FIELD(ccgym_mountain_car_state, position_t, CCGYM_T_F64, CCGYM_T_PY, CCGYM_T_F64),
    CCGYM_TAG_FIELD(ccgym_mountain_car_state, velocity_t, CCGYM_T_F64, CCGYM_T_PY, CCGYM_MC_T_INT),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
#define INPUT CCGYM_PARAM_INPUT
static const ccgym_field ccgym_mountain_car_param_fields[] = {
    CCGYM_ATTR(ccgym_mountain_car_params, min_position, CCGYM_FIELD_F64, DERIVED, 0, "min_position", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS),
    CCGYM_ATTR(ccgym_mountain_car_params, max_position, CCGYM_FIELD_F64, DERIVED, 0, "max_position", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS),
    CCGYM_ATTR(ccgym_mountain_car_params, max_speed, CCGYM_FIELD_F64, DERIVED, 0, "max_speed", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_mountain_car_params, goal_position, CCGYM_FIELD_F64, DERIVED, 0, "goal_position", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS),
    CCGYM_ATTR(ccgym_mountain_car_params, goal_velocity, CCGYM_FIELD_F64, CCGYM_PARAM_INPUT, 0, "goal_velocity", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS | CCGYM_ATTR_INT_DEFAULT | CCGYM_ATTR_KEYWORD),
    CCGYM_ATTR(ccgym_mountain_car_params, force, CCGYM_FIELD_F64, PHYS, 0.001, "force", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS | CCGYM_ATTR_PY_INT_TAG | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_mountain_car_params, gravity, CCGYM_FIELD_F64, PHYS, 0.0025, "gravity", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS | CCGYM_ATTR_NEGATED),
    /* the attributes' types (ccgym/nptype.h), set by the single env */
    CCGYM_FIELD(ccgym_mountain_car_params, min_position_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, max_position_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, max_speed_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, goal_position_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, goal_velocity_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, force_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, gravity_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, typed, CCGYM_FIELD_I64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, action_t, CCGYM_FIELD_I64, 1, DERIVED, 0),
};
#undef PHYS
#undef FLAG
#undef DERIVED
#undef INPUT

static void ccgym_mountain_car_params_init_values(void *p, const double *v)
{
    /* v: goal_velocity, force, gravity, then the seven tags (the input fields' order) */
    ccgym_mountain_car_params *q = (ccgym_mountain_car_params *)p;
    ccgym_mountain_car_params_init(q, v[0], v[1], v[2]);
    q->min_position_t = (int64_t)v[3];
    q->max_position_t = (int64_t)v[4];
    q->max_speed_t = (int64_t)v[5];
    q->goal_position_t = (int64_t)v[6];
    q->goal_velocity_t = (int64_t)v[7];
    q->force_t = (int64_t)v[8];
    q->gravity_t = (int64_t)v[9];
    q->typed = (q->min_position_t | q->max_position_t | q->max_speed_t | q->goal_position_t |
                q->goal_velocity_t | q->force_t | q->gravity_t) != 0;
}

void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                    double force, double gravity)
{
    p->min_position = -1.2;
    p->max_position = 0.6;
    p->max_speed = 0.07;
    p->goal_position = 0.5;
    p->goal_velocity = goal_velocity;
    p->force = force;
    p->gravity = gravity;
    p->min_position_t = p->max_position_t = p->max_speed_t = CCGYM_T_PY;
    p->goal_position_t = p->goal_velocity_t = p->force_t = p->gravity_t = CCGYM_T_PY;
    p->typed = 0;
    p->action_t = CCGYM_MC_ACTION_PY;
}

/* The step body (ccgym_mountain_car_step_body, ccgym/mountain_car.h) on one
 * instance: libm's cos, the state and observation written back. */
CCGYM_INLINE void mc_step_line_by_line(const ccgym_mountain_car_params *p,
                                       ccgym_mountain_car_state *s, int64_t action, int typed,
                                       float *obs, uint8_t *terminated)
{
    ccgym_mountain_car_state next;
    double unused = 0;
    ccgym_mountain_car_step_body(0, p, s, action, typed, 0.0, &next, terminated, &unused);
    *s = next;
    obs[0] = (float)s->position;
    obs[1] = (float)s->velocity;
}

/* mc_step_line_by_line with the attributes', action's and state's types
 * (out of line: only a single env given numpy attribute values or state
 * takes it). */
static CCGYM_COLD void mc_step_typed(const ccgym_mountain_car_params *p,
                                     ccgym_mountain_car_state *s, int64_t action, float *obs,
                                     uint8_t *terminated)
{
    mc_step_line_by_line(p, s, action, 1, obs, terminated);
}

/* The step: Gymnasium's for the default's types is the line-by-line step
 * with constant tags (one step body for every type). */
CCGYM_INLINE void ccgym_mountain_car_step(const ccgym_mountain_car_params *p,
                                          ccgym_mountain_car_state *s, ccgym_pcg64 *rng,
                                          const int64_t *action, float *obs, double *reward,
                                          uint8_t *terminated)
{
    (void)rng;
    *reward = -1.0;
    /* Some attribute a numpy scalar, or the state not two numpy float64s. */
    if (CCGYM_UNLIKELY(p->typed | s->typed))
        mc_step_typed(p, s, *action, obs, terminated);
    else
        mc_step_line_by_line(p, s, *action, 0, obs, terminated);
}

static inline void ccgym_mountain_car_reset(const ccgym_mountain_car_params *p,
                                            ccgym_mountain_car_state *s, ccgym_pcg64 *rng,
                                            double low, double high, float *obs)
{
    s->position = ccgym_pcg64_uniform(rng, low, high - low);
    s->velocity = 0.0;
    /* Two numpy float64s: at min_position the velocity is not the int 0
     * the default types would say it is there. */
    s->typed = s->position == p->min_position;
    s->position_t = s->velocity_t = CCGYM_T_F64;
    obs[0] = (float)s->position;
    obs[1] = 0.0f;
}

/* What the step and the reset write (the reset's velocity is 0.0). */
static inline void ccgym_mountain_car_observe(const ccgym_mountain_car_params *p,
                                              const ccgym_mountain_car_state *s, int just_reset,
                                              float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->position;
    obs[1] = (float)s->velocity;
}

/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h). */
static const float ccgym_mountain_car_obs_low[2] = {(float)-1.2, (float)-0.07};
static const float ccgym_mountain_car_obs_high[2] = {(float)0.6, (float)0.07};

/* The exact step in SIMD lanes (mountain_car_lanes.c, the same step
 * body), per ISA. (No fast kernel: one cos and branchy clipping, nothing
 * for one to gain beyond the lanes.) */
CCGYM_LANES_BLOCK(ccgym_mountain_car)

static double hill_height(double xs)
{
    return sin(3 * xs) * .45 + .55;
}

/* Gymnasium's MountainCarEnv.render() (and Continuous_MountainCarEnv's,
 * the same drawing): the hill as 100 aalines points, the car rotated by
 * cos(3 * position) with its two wheels, and the flag at goal_position. */
void ccgym_mountain_car_draw(const ccgym_draw *d, double pos, double min_position,
                             double max_position, double goal_position)
{
    const ccgym_rgb black = {0, 0, 0}, wheel = {128, 128, 128}, flag = {204, 204, 0};
    const double world_width = max_position - min_position;
    const double scale = d->width / world_width;
    const double carwidth = 40, carheight = 20, clearance = 10;

    /* np.linspace(min_position, max_position, 100): start + i * step, exact stop */
    enum { NPTS = 100 };
    const double step = (max_position - min_position) / (NPTS - 1);
    double hx[NPTS], hy[NPTS];
    for (int i = 0; i < NPTS; i++) {
        double xs = i == NPTS - 1 ? max_position : min_position + i * step;
        hx[i] = (xs - min_position) * scale;
        hy[i] = hill_height(xs) * scale;
    }
    d->aalines(d->canvas, hx, hy, NPTS, black);

    const double angle = cos(3 * pos);
    const double base_x = (pos - min_position) * scale;
    const double base_y = clearance + hill_height(pos) * scale;
    ccgym_draw_rect(d, -carwidth / 2, carwidth / 2, carheight, 0, angle, base_x, base_y, black);

    const double wheel_x[2] = {carwidth / 4, -carwidth / 4};
    for (int k = 0; k < 2; k++) {
        double wx, wy;
        ccgym_draw_rotate(wheel_x[k], 0, angle, &wx, &wy);
        d->circle(d->canvas, wx + base_x, wy + base_y, carheight / 2.5, wheel);
    }

    /* Gymnasium takes int() of these, then adds in Python ints */
    const double flagx = trunc((goal_position - min_position) * scale);
    const double flagy1 = trunc(hill_height(goal_position) * scale);
    const double flagy2 = flagy1 + 50;
    d->vline_f(d->canvas, flagx, flagy1, flagy2, black);
    const double fx[3] = {flagx, flagx, flagx + 25}, fy[3] = {flagy2, flagy2 - 10, flagy2 - 5};
    d->polygon(d->canvas, fx, fy, 3, flag);
}

static void ccgym_mountain_car_paint(const ccgym_draw *d, const void *state, const void *params)
{
    const ccgym_mountain_car_params *p = (const ccgym_mountain_car_params *)params;
    ccgym_mountain_car_draw(d, ((const ccgym_mountain_car_state *)state)->position,
                            p->min_position, p->max_position, p->goal_position);
}

CCGYM_DEFINE_STOCK_ENV(ccgym_mountain_car, ccgym_mountain_car_state, ccgym_mountain_car_params, int64_t,
                 0, 3, 2, -0.6, -0.4,
                       CCGYM_LANES_BLOCK_OF(ccgym_mountain_car), NULL, .name = "MountainCar",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400, .render_fps = 30, .gym_class = "MountainCarEnv", .paint = ccgym_mountain_car_paint,
                 .action_rules = CCGYM_RULE_ASSERTS_CONTAINS | CCGYM_RULE_UNSIGNED_ZERO_WRAPS,
                 .obs_low = ccgym_mountain_car_obs_low, .obs_high = ccgym_mountain_car_obs_high)
