#include <math.h>

#include "continuous_mountain_car.h"
#include "ccgym/driver.h"
#include "../mountain_car/mountain_car.h"
#include "ccgym/npmath.h"
#include "ccgym/nptype.h"

/* Gymnasium's Continuous_MountainCarEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_continuous_mountain_car_state_fields[] = {
    CCGYM_FIELD(ccgym_continuous_mountain_car_state, position, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_state, velocity, CCGYM_FIELD_F64, 1, 0, 0),
    /* given position and velocity alone: float32 values, as after a step */
    CCGYM_TAG_FIELD(ccgym_continuous_mountain_car_state, state_f32, 1, 0, 1),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
#define INPUT CCGYM_PARAM_INPUT
static const ccgym_field ccgym_continuous_mountain_car_param_fields[] = {
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, min_position, CCGYM_FIELD_F64, DERIVED, 0, "min_position", CCGYM_ATTR_TYPED),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, max_position, CCGYM_FIELD_F64, DERIVED, 0, "max_position", CCGYM_ATTR_TYPED),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, max_speed, CCGYM_FIELD_F64, DERIVED, 0, "max_speed", CCGYM_ATTR_TYPED | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, goal_position, CCGYM_FIELD_F64, DERIVED, 0, "goal_position", CCGYM_ATTR_TYPED),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, goal_velocity, CCGYM_FIELD_F64, CCGYM_PARAM_INPUT, 0, "goal_velocity", CCGYM_ATTR_TYPED | CCGYM_ATTR_INT_DEFAULT | CCGYM_ATTR_KEYWORD),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, power, CCGYM_FIELD_F64, PHYS, 0.0015, "power", CCGYM_ATTR_TYPED | CCGYM_ATTR_ACTION_OPERAND),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, min_action, CCGYM_FIELD_F64, DERIVED, 0, "min_action", CCGYM_ATTR_TYPED),
    CCGYM_ATTR(ccgym_continuous_mountain_car_params, max_action, CCGYM_FIELD_F64, DERIVED, 0, "max_action", CCGYM_ATTR_TYPED),
    /* the attributes' types (ccgym/nptype.h), set by the single env */
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, min_position_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, max_position_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, max_speed_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, goal_position_t, CCGYM_FIELD_I64, 1, INPUT,
                0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, goal_velocity_t, CCGYM_FIELD_I64, 1, INPUT,
                0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, power_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, min_action_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, max_action_t, CCGYM_FIELD_I64, 1, INPUT, 0),
    CCGYM_FIELD(ccgym_continuous_mountain_car_params, typed, CCGYM_FIELD_I64, 1, DERIVED, 0),
};
#undef PHYS
#undef FLAG
#undef DERIVED
#undef INPUT

static void ccgym_continuous_mountain_car_params_init_values(void *p, const double *v)
{
    /* v: goal_velocity, power, then the eight tags (the input fields' order) */
    ccgym_continuous_mountain_car_params *q = (ccgym_continuous_mountain_car_params *)p;
    ccgym_continuous_mountain_car_params_init(q, v[0], v[1]);
    q->min_position_t = (int64_t)v[2];
    q->max_position_t = (int64_t)v[3];
    q->max_speed_t = (int64_t)v[4];
    q->goal_position_t = (int64_t)v[5];
    q->goal_velocity_t = (int64_t)v[6];
    q->power_t = (int64_t)v[7];
    q->min_action_t = (int64_t)v[8];
    q->max_action_t = (int64_t)v[9];
    q->typed = (q->min_position_t | q->max_position_t | q->max_speed_t | q->goal_position_t |
                q->goal_velocity_t | q->power_t | q->min_action_t | q->max_action_t) != 0;
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
    p->min_action = -1.0;
    p->max_action = 1.0;
    p->min_position_t = p->max_position_t = p->max_speed_t = CCGYM_T_PY;
    p->goal_position_t = p->goal_velocity_t = p->power_t = CCGYM_T_PY;
    p->min_action_t = p->max_action_t = CCGYM_T_PY;
    p->typed = 0;
}

/* The step body (ccgym_continuous_mountain_car_step_body,
 * ccgym/continuous_mountain_car.h) on one instance: libm's cos. */
CCGYM_INLINE void cmc_step_line_by_line(const ccgym_continuous_mountain_car_params *p,
                                        ccgym_continuous_mountain_car_state *s, double a,
                                        int action_type, int st, int typed, float *obs,
                                        double *reward, uint8_t *terminated)
{
    double unused = 0;
    ccgym_continuous_mountain_car_step_body(0, p, s, a, action_type, st, typed, 0.0, obs, reward,
                                            terminated, &unused);
}

/* The state's type: float32 after a step, float64 right after reset. */
#define CMC_STATE_T(s) ((s)->state_f32 ? CCGYM_T_F32 : CCGYM_T_F64)

/* cmc_step_line_by_line, compiled twice: with the attributes' types, and
 * with Python-number attributes (every tag a constant, so that the
 * compiler folds the type tests away). Out of line: the default's float32
 * step takes neither. */
static CCGYM_COLD void cmc_step_any(const ccgym_continuous_mountain_car_params *p,
                                    ccgym_continuous_mountain_car_state *s, double a,
                                    int action_type, float *obs, double *reward,
                                    uint8_t *terminated)
{
    if (p->typed)
        cmc_step_line_by_line(p, s, a, action_type, CMC_STATE_T(s), 1, obs, reward, terminated);
    else
        cmc_step_line_by_line(p, s, a, action_type, CMC_STATE_T(s), 0, obs, reward, terminated);
}

CCGYM_INLINE void ccgym_continuous_mountain_car_step(
    const ccgym_continuous_mountain_car_params *p, ccgym_continuous_mountain_car_state *s,
    ccgym_pcg64 *rng, const float *action, float *obs, double *reward, uint8_t *terminated)
{
    (void)rng;
    /* p->typed: some attribute is a numpy scalar (a well-predicted test: the
     * single env's one params set, or a vector env's, where it is 0). A
     * float32 action on a float32 state, Python-number attributes: the
     * line-by-line step at those constant tags. */
    if (CCGYM_LIKELY(s->state_f32 & !p->typed))
        cmc_step_line_by_line(p, s, action[0], CCGYM_ACTION_F32, CCGYM_T_F32, 0, obs, reward,
                              terminated);
    else
        cmc_step_any(p, s, action[0], CCGYM_ACTION_F32, obs, reward, terminated);
}

/* Actions of the other types (ccgym/driver.h, enum ccgym_action_type). */
CCGYM_INLINE void ccgym_continuous_mountain_car_step_typed(
    const ccgym_continuous_mountain_car_params *p, ccgym_continuous_mountain_car_state *s,
    const double *action, int type, float *obs, double *reward, uint8_t *terminated)
{
    if (CCGYM_UNLIKELY(p->typed))
        cmc_step_any(p, s, action[0], type, obs, reward, terminated);
    else /* Python-number attributes: the tags constants the compiler folds */
        cmc_step_line_by_line(p, s, action[0], type, CMC_STATE_T(s), 0, obs, reward,
                              terminated);
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

CCGYM_DECLARE_TYPED_STEP(ccgym_continuous_mountain_car);

/* The exact float32-action step in SIMD lanes
 * (continuous_mountain_car_lanes.c, the same step body), per ISA. (No
 * fast kernel: one cos and branchy clipping, nothing for one to gain beyond
 * the lanes.) */
CCGYM_LANES_BLOCK(ccgym_continuous_mountain_car)

/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h). */
static const float ccgym_continuous_mountain_car_obs_low[2] = {(float)-1.2, (float)-0.07};
static const float ccgym_continuous_mountain_car_obs_high[2] = {(float)0.6, (float)0.07};
static const float ccgym_continuous_mountain_car_action_low[1] = {-1.0f};
static const float ccgym_continuous_mountain_car_action_high[1] = {1.0f};

/* Gymnasium's Continuous_MountainCarEnv.render(): MountainCar's drawing. */
static void ccgym_continuous_mountain_car_paint(const ccgym_draw *d, const void *state,
                                                const void *params)
{
    const ccgym_continuous_mountain_car_params *p =
        (const ccgym_continuous_mountain_car_params *)params;
    ccgym_mountain_car_draw(d, ((const ccgym_continuous_mountain_car_state *)state)->position,
                            p->min_position, p->max_position, p->goal_position);
}

CCGYM_DEFINE_STOCK_ENV(ccgym_continuous_mountain_car, ccgym_continuous_mountain_car_state,
                 ccgym_continuous_mountain_car_params, float, 1, 0, 2, -0.6, -0.4,
                       CCGYM_LANES_BLOCK_OF(ccgym_continuous_mountain_car), NULL, .name = "MountainCarContinuous",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400, .render_fps = 30, .gym_class = "Continuous_MountainCarEnv", .paint = ccgym_continuous_mountain_car_paint,
                 .action_rules = CCGYM_RULE_SQUARE_OVERFLOWS | CCGYM_RULE_LIST_DEFERS,
                 .typed_step_range = ccgym_continuous_mountain_car_typed_step_range,
                 .obs_low = ccgym_continuous_mountain_car_obs_low,
                 .obs_high = ccgym_continuous_mountain_car_obs_high,
                 .action_low = ccgym_continuous_mountain_car_action_low,
                 .action_high = ccgym_continuous_mountain_car_action_high)

CCGYM_DEFINE_TYPED_STEP(ccgym_continuous_mountain_car, ccgym_continuous_mountain_car_state,
                        ccgym_continuous_mountain_car_params, 1)
