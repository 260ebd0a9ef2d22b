#include <math.h>

#include "ccgym/driver.h"
#include "ccgym/mountain_car.h"
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
    CCGYM_ATTR(ccgym_mountain_car_params, force, CCGYM_FIELD_F64, PHYS, 0.001, "force", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS | CCGYM_ATTR_PY_INT_TAG),
    CCGYM_ATTR(ccgym_mountain_car_params, gravity, CCGYM_FIELD_F64, PHYS, 0.0025, "gravity", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_REBINDS),
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

/* Gymnasium's step line by line, each value with its type (ccgym/nptype.h):
 * for the attributes' types (the params' *_t tags), the action's
 * (p->action_t) and the state's (s->typed, the *_t tags). force_t may be
 * CCGYM_MC_FORCE_INT, a Python int: (action - 1) * force is then an
 * integer of the action's type.
 *
 * typed = 0 (a constant: see ccgym_mountain_car_step) is the default's
 * types: Python-number attributes and action, a state of two numpy float64s
 * (the velocity the int 0 at the wall, which computes as 0.0 does: np.clip
 * makes it a float64 either way). Every tag is then a constant the compiler
 * folds, and the step is double arithmetic; the state keeps the default's
 * types (s->typed stays 0). */
CCGYM_INLINE void mc_step_line_by_line(const ccgym_mountain_car_params *p,
                                       ccgym_mountain_car_state *s, int64_t action, int typed,
                                       float *obs, uint8_t *terminated)
{
    /* An attribute with its type, read where it is used (none held across
     * the cos call, which the compiler cannot move a load past). */
#define MC_ATTR(NAME) ccgym_num_of(p->NAME, typed ? (int)p->NAME##_t : CCGYM_T_PY)
    const int force_int = typed && p->force_t == CCGYM_MC_FORCE_INT;
    const ccgym_num force =
        ccgym_num_of(p->force, force_int || !typed ? CCGYM_T_PY : (int)p->force_t);
    const int action_t = typed ? (int)p->action_t : CCGYM_MC_ACTION_PY;
    int pt = CCGYM_T_F64, vt = CCGYM_T_F64;
    if (typed) {
        if (s->typed) {
            pt = (int)s->position_t;
            vt = (int)s->velocity_t;
        } else if (s->velocity == 0 && s->position == p->min_position) {
            vt = CCGYM_MC_T_INT; /* the default step's wall hit */
        }
    }
    ccgym_num position = ccgym_num_of(s->position, pt);
    ccgym_num velocity = ccgym_num_of(s->velocity, vt == CCGYM_MC_T_INT ? CCGYM_T_PY : vt);

    /* math.cos(3 * position) * (-self.gravity); -gravity opaque, so the
     * compiler does not fold velocity + (t1 + cos * -g) into a subtraction
     * (exact but for a NaN gravity's sign bit, which Gymnasium's negation
     * flips: ccgym_f64_opaque). */
    const ccgym_num three_pos = ccgym_num_op(ccgym_num_py(3.0), position, CCGYM_OP_MUL);
    const ccgym_num neg_gravity = ccgym_num_neg(MC_ATTR(gravity));
    const ccgym_num t2 = ccgym_num_op(ccgym_num_py(cos(three_pos.v)),
                                      ccgym_num_of(ccgym_f64_opaque(neg_gravity.v), neg_gravity.t),
                                      CCGYM_OP_MUL);
    /* (action - 1) * self.force: a numpy int action promotes with a numpy
     * float16 to float16 (8 bits), float32 (16) or float64 (32, 64 bits),
     * with a Python float to float64; times a Python int it stays an int of
     * its type, which meets t2 as that float type does (a Python float t2:
     * float64). */
    const double am1 = (double)(action - 1);
    const int aeq = action_t == CCGYM_MC_ACTION_I8    ? CCGYM_T_F16
                    : action_t == CCGYM_MC_ACTION_I16 ? CCGYM_T_F32
                                                      : CCGYM_T_F64;
    ccgym_num t1;
    if (action_t == CCGYM_MC_ACTION_PY)
        t1 = ccgym_num_op(ccgym_num_py(am1), force, CCGYM_OP_MUL);
    else if (force_int)
        t1 = ccgym_num_of(am1 * force.v, t2.t == CCGYM_T_PY ? CCGYM_T_F64 : aeq);
    else if (force.t == CCGYM_T_PY)
        t1 = ccgym_num_of(am1 * force.v, CCGYM_T_F64);
    else
        t1 = ccgym_num_op(ccgym_num_of(am1, aeq), force, CCGYM_OP_MUL);

    /* velocity += t1 + t2; velocity = np.clip(velocity, -max_speed, max_speed) */
    velocity = ccgym_num_op(velocity, ccgym_num_op(t1, t2, CCGYM_OP_ADD), CCGYM_OP_ADD);
    const ccgym_num max_speed = MC_ATTR(max_speed);
    velocity = ccgym_num_clip(ccgym_num_strong(velocity), ccgym_num_neg(max_speed), max_speed);
    /* position += velocity; position = np.clip(position, min_position, max_position) */
    position = ccgym_num_op(position, velocity, CCGYM_OP_ADD);
    const ccgym_num min_position = MC_ATTR(min_position);
    position = ccgym_num_clip(ccgym_num_strong(position), min_position, MC_ATTR(max_position));
    vt = velocity.t;
    if (ccgym_num_eq(position, min_position) && ccgym_num_lt(velocity, ccgym_num_py(0.0))) {
        velocity = ccgym_num_py(0.0);
        vt = CCGYM_MC_T_INT;
    }
    *terminated = (uint8_t)(ccgym_num_ge(position, MC_ATTR(goal_position)) &&
                            ccgym_num_ge(velocity, MC_ATTR(goal_velocity)));
#undef MC_ATTR

    s->position = position.v;
    s->velocity = velocity.v;
    if (typed) {
        s->position_t = position.t;
        s->velocity_t = vt;
        /* The default step's types, which reading the state infers: typed 0. */
        const int at_wall = velocity.v == 0 && position.v == p->min_position;
        s->typed = !(position.t == CCGYM_T_F64 &&
                     (vt == CCGYM_MC_T_INT ? at_wall : vt == CCGYM_T_F64 && !at_wall));
    }
    obs[0] = (float)position.v;
    obs[1] = (float)velocity.v;
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

/* One cos and branchy clipping: nothing for a fast kernel to gain. */

CCGYM_DEFINE_ENV(ccgym_mountain_car, ccgym_mountain_car_state, ccgym_mountain_car_params, int64_t,
                 0, 3, 2, -0.6, -0.4, ccgym_mountain_car_step_range, .name = "MountainCar",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400, .gym_class = "MountainCarEnv", .scene = "mountain_car",
                 .action_rules = CCGYM_RULE_ASSERTS_CONTAINS | CCGYM_RULE_UNSIGNED_ZERO_WRAPS,
                 .obs_low = ccgym_mountain_car_obs_low, .obs_high = ccgym_mountain_car_obs_high)
