/* Ports gymnasium/envs/classic_control/continuous_mountain_car.py
 * (Continuous_MountainCarEnv, MountainCarContinuous-v0). */
#ifndef CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_
#define CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_

#include <math.h>
#include <stdint.h>

#include "ccgym/driver.h"
#include "ccgym/env.h"
#include "ccgym/npmath.h"
#include "ccgym/nptype.h"

typedef struct ccgym_continuous_mountain_car_params {
    double min_position, max_position, max_speed, goal_position, goal_velocity, power;
    /* force = min(max(action[0], min_action), max_action) */
    double min_action, max_action;
    /* Each attribute's type (ccgym/nptype.h CCGYM_T_*): a Python number, or
     * the numpy scalar type the single env's attribute was given. */
    int64_t min_position_t, max_position_t, max_speed_t, goal_position_t, goal_velocity_t,
        power_t, min_action_t, max_action_t;
    int64_t typed; /* some *_t is not CCGYM_T_PY: the step takes the typed path */
} ccgym_continuous_mountain_car_params;

/* Gymnasium keeps the state as a float64 array right after reset and as a
 * float32 array after every step, and numpy 2 then computes in float32:
 * state_f32 says which, so that ccgym computes in the same precision. */
typedef struct ccgym_continuous_mountain_car_state {
    double position, velocity;
    int64_t state_f32;
} ccgym_continuous_mountain_car_state;

/* Gymnasium's defaults but goal_velocity and power; every attribute a
 * Python number (the *_t tags CCGYM_T_PY). */
void ccgym_continuous_mountain_car_params_init(ccgym_continuous_mountain_car_params *p,
                                               double goal_velocity, double power);

/* An attribute with its type (typed = 0: every tag CCGYM_T_PY, a constant),
 * read where it is used (none held across the cos call, which the
 * compiler cannot move a load past). */
#define CMC_ATTR(NAME) ccgym_num_of(p->NAME, typed ? (int)p->NAME##_t : CCGYM_T_PY)

/* The step's end: the reward and the new state. */
CCGYM_ALWAYS_INLINE void ccgym_cmc_finish(const int lanes, const ccgym_continuous_mountain_car_params *p,
                                    ccgym_continuous_mountain_car_state *s, double a, int at,
                                    int typed, ccgym_num position, ccgym_num velocity,
                                    float *obs, double *reward, uint8_t *terminated, double *slow)
{
    (void)lanes;
    (void)slow;
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
CCGYM_ALWAYS_INLINE void ccgym_cmc_move(const int lanes, const ccgym_continuous_mountain_car_params *p,
                                  ccgym_continuous_mountain_car_state *s, double a, int at,
                                  int typed, ccgym_num position, ccgym_num velocity, float *obs,
                                  double *reward, uint8_t *terminated, double *slow)
{
    position = ccgym_num_op(position, velocity, CCGYM_OP_ADD);
    const ccgym_num min_position = CMC_ATTR(min_position);
    /* (position <= max_position as doubles: see cmc_accelerate) */
    const int outside =
        !ccgym_num_gt(position, min_position) || !(position.v <= CMC_ATTR(max_position).v);
    if (lanes) { /* the lines below, which may change a value's type: handed back */
        *slow += outside ? 1.0 : 0.0;
        ccgym_cmc_finish(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
    } else if (CCGYM_UNLIKELY(outside)) {
        if (ccgym_num_gt(position, CMC_ATTR(max_position)))
            position = CMC_ATTR(max_position);
        if (ccgym_num_lt(position, min_position))
            position = min_position;
        if (ccgym_num_eq(position, min_position) && ccgym_num_lt(velocity, ccgym_num_py(0.0)))
            velocity = ccgym_num_py(0.0);
        ccgym_cmc_finish(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
    } else { /* inside (min_position, max_position]: no line above changes a value */
        ccgym_cmc_finish(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
    }
}

/* velocity += force * self.power - 0.0025 * math.cos(3 * position) (c is
 * the cosine term) and the velocity's lines. */
CCGYM_ALWAYS_INLINE void ccgym_cmc_accelerate(const int lanes, const ccgym_continuous_mountain_car_params *p,
                                        ccgym_continuous_mountain_car_state *s, double a, int at,
                                        int typed, ccgym_num position, ccgym_num velocity,
                                        ccgym_num force, double c, float *obs, double *reward,
                                        uint8_t *terminated, double *slow)
{
    velocity = ccgym_num_op(velocity,
                            ccgym_num_op(ccgym_num_op(force, CMC_ATTR(power), CCGYM_OP_MUL),
                                         ccgym_num_py(c), CCGYM_OP_SUB),
                            CCGYM_OP_ADD);
    const ccgym_num max_speed = CMC_ATTR(max_speed);
    /* Within +-max_speed as doubles, it is in every type the lines compare
     * in: rounding to a type is monotone, round(-m) <= round(v) <= round(m).
     * Outside (or NaN) the lines decide, in their types. */
    const int outside = !(fabs(velocity.v) <= max_speed.v);
    if (lanes) { /* (as in ccgym_cmc_move) */
        *slow += outside ? 1.0 : 0.0;
        ccgym_cmc_move(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
    } else if (CCGYM_UNLIKELY(outside)) {
        if (ccgym_num_gt(velocity, max_speed))
            velocity = max_speed;
        if (ccgym_num_lt(velocity, ccgym_num_neg(max_speed)))
            velocity = ccgym_num_neg(max_speed);
        ccgym_cmc_move(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
    } else { /* within +-max_speed: neither line changes it */
        ccgym_cmc_move(lanes, p, s, a, at, typed, position, velocity, obs, reward, terminated, slow);
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
 * and the rest of the step (ccgym_cmc_accelerate, ccgym_cmc_move, ccgym_cmc_finish) is
 * inlined on each side: on the side where no value changed, the types stay
 * constants.
 *
 * The one step body of every exact path: the per-instance and typed steps
 * (continuous_mountain_car.c; lanes = 0, libm's cos) and the exact
 * lanes block (continuous_mountain_car_lanes.c; lanes = 1 at the
 * default's constant tags, cos_3p = cos(3 * position) from exact math's
 * lanes), where a line that may change a value's type adds to *slow instead
 * and the block recomputes that instance with lanes = 0. */
CCGYM_ALWAYS_INLINE void ccgym_continuous_mountain_car_step_body(
    const int lanes, const ccgym_continuous_mountain_car_params *p,
    ccgym_continuous_mountain_car_state *s, double a, int action_type, int st, int typed,
    double cos_3p, float *obs, double *reward, uint8_t *terminated, double *slow)
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
    const double c = 0.0025 * (lanes ? cos_3p : cos(three_pos.v));

    /* force = min(max(action[0], self.min_action), self.max_action): Python's
     * max and min keep their first argument unless the other compares
     * greater (less), so ties and NaN keep the action */
    ccgym_num force = ccgym_num_of(a, at);
    const ccgym_num min_action = CMC_ATTR(min_action), max_action = CMC_ATTR(max_action);
    /* (within the bounds as doubles: see cmc_accelerate) */
    const int outside = !(a >= min_action.v && a <= max_action.v);
    if (lanes) { /* (as in ccgym_cmc_move) */
        *slow += outside ? 1.0 : 0.0;
        ccgym_cmc_accelerate(lanes, p, s, a, at, typed, position, velocity, force, c, obs, reward,
                             terminated, slow);
    } else if (CCGYM_UNLIKELY(outside)) {
        if (ccgym_num_gt(min_action, force))
            force = min_action;
        if (ccgym_num_lt(max_action, force))
            force = max_action;
        ccgym_cmc_accelerate(lanes, p, s, a, at, typed, position, velocity, force, c, obs, reward,
                             terminated, slow);
    } else { /* within [min_action, max_action]: the action itself */
        ccgym_cmc_accelerate(lanes, p, s, a, at, typed, position, velocity, force, c, obs, reward,
                             terminated, slow);
    }
}
#undef CMC_ATTR

#endif /* CCGYM_CONTINUOUS_MOUNTAIN_CAR_H_ */
