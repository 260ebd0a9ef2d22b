#include <math.h>

#include "ccgym/continuous_mountain_car.h"
#include "ccgym/driver.h"
#include "ccgym/npmath.h"

/* Gymnasium's Continuous_MountainCarEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_continuous_mountain_car_state_fields[] = {
    CCGYM_FIELD(ccgym_continuous_mountain_car_state, position, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_state, velocity, CCGYM_FIELD_F64, 1, 0, 0),
    /* given position and velocity alone: float32 values, as after a step */
    CCGYM_FIELD(ccgym_continuous_mountain_car_state, state_f32, CCGYM_FIELD_I64, 1, 0, 1),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_continuous_mountain_car_param_fields[] = {
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, min_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, max_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, max_speed, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, goal_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, goal_velocity, CCGYM_FIELD_F64, 1,
                CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, power, CCGYM_FIELD_F64, 1, PHYS, 0.0015),
};
#undef PHYS
#undef FLAG
#undef DERIVED

static void ccgym_continuous_mountain_car_params_init_values(void *p, const double *v)
{
    ccgym_continuous_mountain_car_params_init((ccgym_continuous_mountain_car_params *)p, v[0],
                                              v[1]);
}

void ccgym_continuous_mountain_car_params_init(ccgym_continuous_mountain_car_params *p,
                                               double goal_velocity, double power)
{
    p->min_position = -1.2;
    p->max_position = 0.6;
    p->max_speed = 0.07;
    p->goal_position = 0.45;
    p->goal_velocity = goal_velocity;
    p->power = power;
}

/* A value that is either a numpy float32 scalar or a Python float, as the
 * same variable is in Gymnasium's step depending on the branch taken. */
typedef struct mixed {
    double v;
    int f32;
} mixed;

static inline int mixed_gt(mixed a, double b) { return a.f32 ? (float)a.v > (float)b : a.v > b; }
static inline int mixed_lt(mixed a, double b) { return a.f32 ? (float)a.v < (float)b : a.v < b; }
static inline int mixed_ge(mixed a, double b) { return a.f32 ? (float)a.v >= (float)b : a.v >= b; }
static inline int mixed_eq(mixed a, double b) { return a.f32 ? (float)a.v == (float)b : a.v == b; }

/* a + b, where at most one of the two is a float64 numpy scalar (never
 * together with a float32 one): float32 + Python float stays float32. */
static inline mixed mixed_add_to(mixed acc, mixed b, int acc_is_np64)
{
    mixed r;
    if (acc_is_np64) {
        r.v = acc.v + b.v;
        r.f32 = 0;
    } else if (acc.f32) {
        r.v = (double)((float)acc.v + (float)b.v);
        r.f32 = 1;
    } else if (b.f32) {
        r.v = (double)((float)acc.v + (float)b.v);
        r.f32 = 1;
    } else {
        r.v = acc.v + b.v;
        r.f32 = 0;
    }
    return r;
}

/* The step for any mix of float32 and float64 values (the first step after
 * a reset sees a float64 state); see cmc_step_f32 for the others. */
CCGYM_INLINE void cmc_step_general(
    const ccgym_continuous_mountain_car_params *p, ccgym_continuous_mountain_car_state *s,
    ccgym_pcg64 *rng, const float *action, float *obs, double *reward, uint8_t *terminated)
{
    (void)rng;
    const float a = action[0];
    /* After a step the state is float32 (numpy float32 scalars); right after
     * reset it is float64 (numpy float64 scalars, which win every promotion). */
    const int np64 = !s->state_f32;
    mixed position = {s->position, !np64};
    mixed velocity = {s->velocity, !np64};

    /* force = min(max(action[0], -1.0), 1.0): a float32 scalar unless clipped. */
    mixed force = {a, 1};
    if (-1.0f > a)
        force = (mixed){-1.0, 0};
    else if (1.0f < a)
        force = (mixed){1.0, 0};

    /* velocity += force * power - 0.0025 * math.cos(3 * position) */
    double three_pos = position.f32 ? (double)(3.0f * (float)position.v) : 3 * position.v;
    double c = 0.0025 * cos(three_pos);
    mixed t;
    if (force.f32) {
        t.v = (double)((float)force.v * (float)p->power - (float)c);
        t.f32 = 1;
    } else {
        t.v = force.v * p->power - c;
        t.f32 = 0;
    }
    velocity = mixed_add_to(velocity, t, np64);

    if (mixed_gt(velocity, p->max_speed))
        velocity = (mixed){p->max_speed, 0};
    if (mixed_lt(velocity, -p->max_speed))
        velocity = (mixed){-p->max_speed, 0};

    position = mixed_add_to(position, velocity, np64);
    if (mixed_gt(position, p->max_position))
        position = (mixed){p->max_position, 0};
    if (mixed_lt(position, p->min_position))
        position = (mixed){p->min_position, 0};
    if (mixed_eq(position, p->min_position) && velocity.v < 0)
        velocity = (mixed){0.0, 0};

    int term = mixed_ge(position, p->goal_position) && mixed_ge(velocity, p->goal_velocity);
    double r = term ? 100.0 : 0.0;
    r -= ccgym_pow2_of_f32(a) * 0.1; /* math.pow(action[0], 2) */

    float pos32 = (float)position.v, vel32 = (float)velocity.v;
    s->position = pos32;
    s->velocity = vel32;
    s->state_f32 = 1;
    *terminated = (uint8_t)term;
    *reward = r;
    obs[0] = pos32;
    obs[1] = vel32;
}

/* A float32 state where velocity or position reaches a bound (or a value is
 * NaN): cmc_step_general's arithmetic for np64 = 0, written out. float32
 * throughout, with a flag for a velocity or position that clipping replaced
 * by a Python float bound (compared as a float64 from then on; its float32
 * rounding is all the float32 sums see). `t` is force * power - c; returns
 * terminated. Out of line: cmc_step_f32 below takes the unclipped steps,
 * nearly all of them. */
static CCGYM_COLD int cmc_step_f32_bounded(const ccgym_continuous_mountain_car_params *p,
                                           ccgym_continuous_mountain_car_state *s, float pos0,
                                           float vel0, float t, float *obs)
{
    const float v1 = vel0 + t;
    int vpy = v1 > (float)p->max_speed;
    double vd = vpy ? p->max_speed : (double)v1;
    if (vpy ? vd < -p->max_speed : v1 < (float)-p->max_speed) {
        vpy = 1;
        vd = -p->max_speed;
    }
    const float pf = pos0 + (float)vd;
    int ppy = pf > (float)p->max_position;
    double pd = ppy ? p->max_position : (double)pf;
    if (ppy ? pd < p->min_position : pf < (float)p->min_position) {
        ppy = 1;
        pd = p->min_position;
    }
    if ((ppy ? pd == p->min_position : pf == (float)p->min_position) && vd < 0) {
        vpy = 1;
        vd = 0.0;
    }
    const int term = (ppy ? pd >= p->goal_position : pf >= (float)p->goal_position) &&
                     (vpy ? vd >= p->goal_velocity : v1 >= (float)p->goal_velocity);
    const float pos32 = (float)pd, vel32 = (float)vd;
    s->position = pos32;
    s->velocity = vel32;
    obs[0] = pos32;
    obs[1] = vel32;
    return term;
}

/* The common case, a float32 state (every step but the first after a
 * reset). When the new velocity is within +-max_speed and the new position
 * strictly inside (min_position, max_position], no clip applies and every
 * value stays a numpy float32: the step is four float32 operations and two
 * compares, laid out without a taken branch. Anything else (a bound reached,
 * a NaN, which fails every compare) goes to cmc_step_f32_bounded. Both paths
 * are held to Gymnasium live by tests/test_single_parity.py (including edge
 * states at every bound) and test_vector_parity.py. */
CCGYM_INLINE void cmc_step_f32(const ccgym_continuous_mountain_car_params *p,
                               ccgym_continuous_mountain_car_state *s, const float *action,
                               float *obs, double *reward, uint8_t *terminated)
{
    const float a = action[0];
    const float pos0 = (float)s->position, vel0 = (float)s->velocity;
    const double c = 0.0025 * cos((double)(3.0f * pos0));
    /* force * power - c: float32, unless the action was clipped (a Python float). */
    float t;
    if (CCGYM_UNLIKELY(-1.0f > a))
        t = (float)(-1.0 * p->power - c);
    else if (CCGYM_UNLIKELY(1.0f < a))
        t = (float)(1.0 * p->power - c);
    else
        t = a * (float)p->power - (float)c;
    const float v1 = vel0 + t;
    const float pf = pos0 + v1;
    int term;
    if (CCGYM_LIKELY(fabsf(v1) <= (float)p->max_speed && pf > (float)p->min_position &&
                     pf <= (float)p->max_position)) {
        term = pf >= (float)p->goal_position && v1 >= (float)p->goal_velocity;
        s->position = pf;
        s->velocity = v1;
        obs[0] = pf;
        obs[1] = v1;
    } else {
        term = cmc_step_f32_bounded(p, s, pos0, vel0, t, obs);
    }
    double r = term ? 100.0 : 0.0;
    r -= ccgym_pow2_of_f32(a) * 0.1; /* math.pow(action[0], 2) */
    *terminated = (uint8_t)term;
    *reward = r;
}

CCGYM_INLINE void ccgym_continuous_mountain_car_step(
    const ccgym_continuous_mountain_car_params *p, ccgym_continuous_mountain_car_state *s,
    ccgym_pcg64 *rng, const float *action, float *obs, double *reward, uint8_t *terminated)
{
    if (s->state_f32)
        cmc_step_f32(p, s, action, obs, reward, terminated);
    else
        cmc_step_general(p, s, rng, action, obs, reward, terminated);
}

static inline void ccgym_continuous_mountain_car_reset(
    const ccgym_continuous_mountain_car_params *p, ccgym_continuous_mountain_car_state *s,
    ccgym_pcg64 *rng, double low, double high, float *obs)
{
    (void)p;
    s->position = ccgym_pcg64_uniform(rng, low, high - low);
    s->velocity = 0.0;
    s->state_f32 = 0;
    obs[0] = (float)s->position;
    obs[1] = 0.0f;
}

/* What every step path and the reset write: the state itself, as float32
 * (a step stores the float32 values it returns). */
static inline void ccgym_continuous_mountain_car_observe(
    const ccgym_continuous_mountain_car_params *p, const ccgym_continuous_mountain_car_state *s,
    int just_reset, float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->position;
    obs[1] = (float)s->velocity;
}

/* One cos and branchy clipping: nothing for a fast kernel to gain. */
CCGYM_DEFINE_ENV(ccgym_continuous_mountain_car, ccgym_continuous_mountain_car_state,
                 ccgym_continuous_mountain_car_params, float, 1, 0, 2, -0.6, -0.4,
                 ccgym_continuous_mountain_car_step_range, .name = "MountainCarContinuous",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400)
