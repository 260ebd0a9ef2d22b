#include <math.h>

#include "ccgym/continuous_mountain_car.h"
#include "ccgym/driver.h"
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

/* An attribute with its type (typed = 0: every tag CCGYM_T_PY, a constant),
 * read where it is used (none held across the cos call, which the
 * compiler cannot move a load past). */
#define CMC_ATTR(NAME) ccgym_num_of(p->NAME, typed ? (int)p->NAME##_t : CCGYM_T_PY)

/* The step's end: the reward and the new state. */
CCGYM_ALWAYS_INLINE void cmc_finish(const ccgym_continuous_mountain_car_params *p,
                                    ccgym_continuous_mountain_car_state *s, double a, int at,
                                    int typed, ccgym_num position, ccgym_num velocity,
                                    float *obs, double *reward, uint8_t *terminated)
{
    const int term = ccgym_num_ge(position, CMC_ATTR(goal_position)) &&
                     ccgym_num_ge(velocity, CMC_ATTR(goal_velocity));
    double r = term ? 100.0 : 0.0;
    /* math.pow(action[0], 2): libm's pow of the value (the square of a float32
     * is exact in double; the binding refuses a float64 whose square overflows,
     * where math.pow raises OverflowError). */
    r -= (at == CCGYM_T_F32 ? ccgym_pow2_of_f32((float)a) : ccgym_pow2(a)) * 0.1;

    /* self.state = np.array([position, velocity], dtype=np.float32): a
     * float32 value is one already (a double equal to its float: whatever
     * the compiler stores is it); another rounded opaquely (ccgym/npmath.h) */
    const float pos32 = position.t == CCGYM_T_F32 ? (float)position.v
                                                  : ccgym_f32_opaque(position.v);
    const float vel32 = velocity.t == CCGYM_T_F32 ? (float)velocity.v
                                                  : ccgym_f32_opaque(velocity.v);
    s->position = pos32;
    s->velocity = vel32;
    *terminated = (uint8_t)term;
    *reward = r;
    obs[0] = pos32;
    obs[1] = vel32;
}

/* position += velocity and the position's lines. */
CCGYM_ALWAYS_INLINE void cmc_move(const ccgym_continuous_mountain_car_params *p,
                                  ccgym_continuous_mountain_car_state *s, double a, int at,
                                  int typed, ccgym_num position, ccgym_num velocity, float *obs,
                                  double *reward, uint8_t *terminated)
{
    position = ccgym_num_op(position, velocity, CCGYM_OP_ADD);
    const ccgym_num min_position = CMC_ATTR(min_position);
    /* (position <= max_position as doubles: see cmc_accelerate) */
    if (CCGYM_UNLIKELY(!ccgym_num_gt(position, min_position) ||
                       !(position.v <= CMC_ATTR(max_position).v))) {
        if (ccgym_num_gt(position, CMC_ATTR(max_position)))
            position = CMC_ATTR(max_position);
        if (ccgym_num_lt(position, min_position))
            position = min_position;
        if (ccgym_num_eq(position, min_position) && ccgym_num_lt(velocity, ccgym_num_py(0.0)))
            velocity = ccgym_num_py(0.0);
        cmc_finish(p, s, a, at, typed, position, velocity, obs, reward, terminated);
    } else { /* inside (min_position, max_position]: no line above changes a value */
        cmc_finish(p, s, a, at, typed, position, velocity, obs, reward, terminated);
    }
}

/* velocity += force * self.power - 0.0025 * math.cos(3 * position) (c is
 * the cosine term) and the velocity's lines. */
CCGYM_ALWAYS_INLINE void cmc_accelerate(const ccgym_continuous_mountain_car_params *p,
                                        ccgym_continuous_mountain_car_state *s, double a, int at,
                                        int typed, ccgym_num position, ccgym_num velocity,
                                        ccgym_num force, double c, float *obs, double *reward,
                                        uint8_t *terminated)
{
    velocity = ccgym_num_op(velocity,
                            ccgym_num_op(ccgym_num_op(force, CMC_ATTR(power), CCGYM_OP_MUL),
                                         ccgym_num_py(c), CCGYM_OP_SUB),
                            CCGYM_OP_ADD);
    const ccgym_num max_speed = CMC_ATTR(max_speed);
    /* Within +-max_speed as doubles, it is in every type the lines compare
     * in: rounding to a type is monotone, round(-m) <= round(v) <= round(m).
     * Outside (or NaN) the lines decide, in their types. */
    if (CCGYM_UNLIKELY(!(fabs(velocity.v) <= max_speed.v))) {
        if (ccgym_num_gt(velocity, max_speed))
            velocity = max_speed;
        if (ccgym_num_lt(velocity, ccgym_num_neg(max_speed)))
            velocity = ccgym_num_neg(max_speed);
        cmc_move(p, s, a, at, typed, position, velocity, obs, reward, terminated);
    } else { /* within +-max_speed: neither line changes it */
        cmc_move(p, s, a, at, typed, position, velocity, obs, reward, terminated);
    }
}

/* Gymnasium's step line by line, each value with its type (ccgym/nptype.h):
 * for any state (float64 right after reset, float32 after a step: `st`),
 * any action type (an action of enum ccgym_action_type with value `a`) and
 * any attribute types (the params' *_t tags: a numpy scalar attribute meets
 * the action and the state with its own dtype; typed = 0: every tag
 * CCGYM_T_PY). The common case, a float32 action on a float32 state with
 * Python-float attributes, is this with constant tags, which the compiler
 * folds into float32 arithmetic (ccgym_continuous_mountain_car_step): one
 * step body for every type.
 *
 * Where a line may replace a value by a bound (a Python float: its type
 * changes), the lines are run only if one of them would change a value,
 * and the rest of the step (cmc_accelerate, cmc_move, cmc_finish) is
 * inlined on each side: on the side where no value changed, the types stay
 * constants. */
CCGYM_INLINE void cmc_step_line_by_line(const ccgym_continuous_mountain_car_params *p,
                                        ccgym_continuous_mountain_car_state *s, double a,
                                        int action_type, int st, int typed, float *obs,
                                        double *reward, uint8_t *terminated)
{
    const int at = action_type == CCGYM_ACTION_F32   ? CCGYM_T_F32
                   : action_type == CCGYM_ACTION_F16 ? CCGYM_T_F16
                   : action_type == CCGYM_ACTION_PY  ? CCGYM_T_PY
                                                     : CCGYM_T_F64;
    /* A float32 state is read as float32 values. */
    const ccgym_num position = ccgym_num_of(ccgym_num_cast(s->position, st), st);
    ccgym_num velocity = ccgym_num_of(ccgym_num_cast(s->velocity, st), st);
    if (st != CCGYM_T_F32) /* the state a step leaves: float32 */
        s->state_f32 = 1;

    /* 0.0025 * math.cos(3 * position), a Python float */
    const ccgym_num three_pos = ccgym_num_op(ccgym_num_py(3.0), position, CCGYM_OP_MUL);
    const double c = 0.0025 * cos(three_pos.v);

    /* force = min(max(action[0], self.min_action), self.max_action): Python's
     * max and min keep their first argument unless the other compares
     * greater (less), so ties and NaN keep the action */
    ccgym_num force = ccgym_num_of(a, at);
    const ccgym_num min_action = CMC_ATTR(min_action), max_action = CMC_ATTR(max_action);
    /* (within the bounds as doubles: see cmc_accelerate) */
    if (CCGYM_UNLIKELY(!(a >= min_action.v && a <= max_action.v))) {
        if (ccgym_num_gt(min_action, force))
            force = min_action;
        if (ccgym_num_lt(max_action, force))
            force = max_action;
        cmc_accelerate(p, s, a, at, typed, position, velocity, force, c, obs, reward,
                       terminated);
    } else { /* within [min_action, max_action]: the action itself */
        cmc_accelerate(p, s, a, at, typed, position, velocity, force, c, obs, reward,
                       terminated);
    }
}
#undef CMC_ATTR

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

/* One cos and branchy clipping: nothing for a fast kernel to gain. */
/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h). */
static const float ccgym_continuous_mountain_car_obs_low[2] = {(float)-1.2, (float)-0.07};
static const float ccgym_continuous_mountain_car_obs_high[2] = {(float)0.6, (float)0.07};
static const float ccgym_continuous_mountain_car_action_low[1] = {-1.0f};
static const float ccgym_continuous_mountain_car_action_high[1] = {1.0f};

CCGYM_DEFINE_ENV(ccgym_continuous_mountain_car, ccgym_continuous_mountain_car_state,
                 ccgym_continuous_mountain_car_params, float, 1, 0, 2, -0.6, -0.4,
                 ccgym_continuous_mountain_car_step_range, .name = "MountainCarContinuous",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400, .gym_class = "Continuous_MountainCarEnv", .scene = "continuous_mountain_car",
                 .action_rules = CCGYM_RULE_SQUARE_OVERFLOWS | CCGYM_RULE_LIST_DEFERS,
                 .typed_step_range = ccgym_continuous_mountain_car_typed_step_range,
                 .obs_low = ccgym_continuous_mountain_car_obs_low,
                 .obs_high = ccgym_continuous_mountain_car_obs_high,
                 .action_low = ccgym_continuous_mountain_car_action_low,
                 .action_high = ccgym_continuous_mountain_car_action_high)

CCGYM_DEFINE_TYPED_STEP(ccgym_continuous_mountain_car, ccgym_continuous_mountain_car_state,
                        ccgym_continuous_mountain_car_params, 1)
