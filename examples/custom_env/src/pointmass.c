/* custom/PointMass-v0: a 2-D point mass pushed towards a goal, as a ccgym
 * plugin (ccgym/ccgym.h; docs/custom_env.md in ccgym builds a shorter version).
 *
 * State (x, y, vx, vy) and a goal (gx, gy) drawn at reset; a force
 * (fx, fy) in [-1, 1]^2 is integrated with a fixed dt (semi-implicit Euler);
 * the walls at |x|, |y| = 1 stop the mass. Reward: minus the distance to
 * the goal; terminated within goal_radius of it. The time limit (200 steps)
 * is ccgym's, from the registration (python/ccgym_pointmass/__init__.py). */
#include <Python.h>

#include <math.h>

#include "ccgym/ccgym.h"

typedef struct pointmass_state {
    double x, y, vx, vy, gx, gy;
} pointmass_state;

typedef struct pointmass_params {
    double dt, mass, goal_radius, max_speed;
} pointmass_params;

static const ccgym_field pointmass_state_fields[] = {
    CCGYM_FIELD(pointmass_state, x, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(pointmass_state, y, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(pointmass_state, vx, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(pointmass_state, vy, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(pointmass_state, gx, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(pointmass_state, gy, CCGYM_FIELD_F64, 1, 0, 0),
};

/* Each parameter: a live attribute of the single env, a constructor
 * keyword, per-instance in a vector env (PHYSICS), bounded. */
#define PM_IN (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define PM_ATTR (CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_KEYWORD)
static const ccgym_field pointmass_param_fields[] = {
    CCGYM_BOUNDED_ATTR(pointmass_params, dt, CCGYM_FIELD_F64, PM_IN, 0.05, "dt", PM_ATTR, 1e-6, 1.0),
    CCGYM_BOUNDED_ATTR(pointmass_params, mass, CCGYM_FIELD_F64, PM_IN, 1.0, "mass", PM_ATTR, 1e-3, 1e3),
    CCGYM_BOUNDED_ATTR(pointmass_params, goal_radius, CCGYM_FIELD_F64, PM_IN, 0.05, "goal_radius",
                       PM_ATTR, 0.0, 2.0),
    CCGYM_BOUNDED_ATTR(pointmass_params, max_speed, CCGYM_FIELD_F64, PM_IN, 2.0, "max_speed",
                       PM_ATTR, 1e-3, 1e3),
};

static void pointmass_params_init_values(void *params, const double *v)
{
    pointmass_params *p = (pointmass_params *)params;
    p->dt = v[0];
    p->mass = v[1];
    p->goal_radius = v[2];
    p->max_speed = v[3];
}

static const float pointmass_obs_low[6] = {-1, -1, -2, -2, -1, -1};
static const float pointmass_obs_high[6] = {1, 1, 2, 2, 1, 1};
static const float pointmass_action_low[2] = {-1, -1};
static const float pointmass_action_high[2] = {1, 1};

static inline void pointmass_observe(const pointmass_params *p, const pointmass_state *s,
                                     int just_reset, float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->x;
    obs[1] = (float)s->y;
    obs[2] = (float)s->vx;
    obs[3] = (float)s->vy;
    obs[4] = (float)s->gx;
    obs[5] = (float)s->gy;
}

/* A force component in [-1, 1] (NaN: no force). */
static inline double pointmass_force(double f)
{
    return f > 1.0 ? 1.0 : f < -1.0 ? -1.0 : f == f ? f : 0.0;
}

static inline double pointmass_clip(double v, double lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

/* One axis: velocity, then position; a wall stops the mass. */
static inline void pointmass_axis(const pointmass_params *p, double force, double *pos,
                                  double *vel)
{
    double v = pointmass_clip(*vel + p->dt * force / p->mass, p->max_speed);
    double x = *pos + p->dt * v;
    if (x > 1.0 || x < -1.0) {
        x = x > 1.0 ? 1.0 : -1.0;
        v = 0.0;
    }
    *pos = x;
    *vel = v;
}

static inline void pointmass_step_forces(const pointmass_params *p, pointmass_state *s,
                                         double fx, double fy, float *obs, double *reward,
                                         uint8_t *terminated)
{
    pointmass_axis(p, pointmass_force(fx), &s->x, &s->vx);
    pointmass_axis(p, pointmass_force(fy), &s->y, &s->vy);
    const double dist = hypot(s->gx - s->x, s->gy - s->y);
    *reward = -dist;
    *terminated = (uint8_t)(dist < p->goal_radius);
    pointmass_observe(p, s, 0, obs);
}

CCGYM_INLINE void pointmass_step(const pointmass_params *p, pointmass_state *s, ccgym_pcg64 *rng,
                                 const float *action, float *obs, double *reward,
                                 uint8_t *terminated)
{
    (void)rng;
    pointmass_step_forces(p, s, action[0], action[1], obs, reward, terminated);
}

/* Actions of another dtype than float32 (float64, float16, Python floats):
 * their values, as doubles. */
CCGYM_INLINE void pointmass_step_typed(const pointmass_params *p, pointmass_state *s,
                                       const double *action, int action_type, float *obs,
                                       double *reward, uint8_t *terminated)
{
    (void)action_type;
    pointmass_step_forces(p, s, action[0], action[1], obs, reward, terminated);
}

/* Position and goal uniform in [low, high]^2 (clipped to the walls), at rest:
 * ccgym's RNG, so reset(seed=s) gives the same episode on any front end. */
static inline void pointmass_reset(const pointmass_params *p, pointmass_state *s,
                                   ccgym_pcg64 *rng, double low, double high, float *obs)
{
    const double range = high - low;
    s->x = pointmass_clip(ccgym_pcg64_uniform(rng, low, range), 1.0);
    s->y = pointmass_clip(ccgym_pcg64_uniform(rng, low, range), 1.0);
    s->gx = pointmass_clip(ccgym_pcg64_uniform(rng, low, range), 1.0);
    s->gy = pointmass_clip(ccgym_pcg64_uniform(rng, low, range), 1.0);
    s->vx = 0.0;
    s->vy = 0.0;
    pointmass_observe(p, s, 1, obs);
}

/* rgb_array frames with ccgym's primitives: the arena, the goal, the mass
 * and its velocity. */
static void pointmass_paint(const ccgym_draw *d, const void *state, const void *params)
{
    const pointmass_state *s = (const pointmass_state *)state;
    const pointmass_params *p = (const pointmass_params *)params;
    const double scale = 0.45 * d->width, cx = d->width / 2.0, cy = d->height / 2.0;
    const ccgym_rgb grey = {200, 200, 200}, green = {60, 170, 80}, blue = {40, 80, 200},
                    black = {0, 0, 0};
    const double bx[4] = {cx - scale, cx - scale, cx + scale, cx + scale};
    const double by[4] = {cy - scale, cy + scale, cy + scale, cy - scale};
    d->polygon(d->canvas, bx, by, 4, grey);
    const double goal_px = p->goal_radius * scale;
    d->circle(d->canvas, cx + s->gx * scale, cy + s->gy * scale, goal_px > 4 ? goal_px : 4, green);
    const double px = cx + s->x * scale, py = cy + s->y * scale;
    d->circle(d->canvas, px, py, 8, blue);
    d->line(d->canvas, px, py, px + 0.25 * scale * s->vx, py + 0.25 * scale * s->vy, black);
}

CCGYM_DECLARE_TYPED_STEP(pointmass);

CCGYM_DEFINE_ENV(pointmass, pointmass_state, pointmass_params, float, 2, 0, 6, -1.0, 1.0,
                 .name = "PointMass", .reset_option_a = "low",
                 .reset_option_b = "high", .canvas_width = 500, .canvas_height = 500,
                 .render_fps = 30, .obs_low = pointmass_obs_low, .obs_high = pointmass_obs_high,
                 .action_low = pointmass_action_low, .action_high = pointmass_action_high,
                 .paint = pointmass_paint, .typed_step_range = pointmass_typed_step_range)

CCGYM_DEFINE_TYPED_STEP(pointmass, pointmass_state, pointmass_params, 2)

/* The extension module ccgym_pointmass._pointmass: env_def is the capsule. */
CCGYM_DEFINE_PLUGIN_MODULE(_pointmass, pointmass_def)
