/* Ports gymnasium/envs/classic_control/mountain_car.py (MountainCarEnv, v0). */
#ifndef CCGYM_MOUNTAIN_CAR_H_
#define CCGYM_MOUNTAIN_CAR_H_

#include <math.h>
#include <stdint.h>

#include "ccgym/env.h"
#include "ccgym/npmath.h"
#include "ccgym/nptype.h"

typedef struct ccgym_mountain_car_params {
    double min_position, max_position, max_speed, goal_position, goal_velocity;
    double force, gravity;
    /* Each attribute's type (ccgym/nptype.h CCGYM_T_*): a Python number, or
     * the numpy scalar type the single env's attribute was given. */
    int64_t min_position_t, max_position_t, max_speed_t, goal_position_t, goal_velocity_t,
        force_t, gravity_t;
    int64_t typed; /* some *_t is not CCGYM_T_PY: the step takes the typed path */
    /* The type of the next step's action (enum ccgym_mountain_car_action_t),
     * written by the single env before a typed step: Gymnasium's
     * (action - 1) * force computes in it. */
    int64_t action_t;
} ccgym_mountain_car_params;

/* What Gymnasium's (action - 1) * force computes in besides the attribute:
 * a Python int (weak), or a numpy int of 8, 16, or 32/64 bits (which
 * promote with a numpy float16 to float16, float32 and float64). */
enum ccgym_mountain_car_action_t {
    CCGYM_MC_ACTION_PY = 0,
    CCGYM_MC_ACTION_I8 = 1,
    CCGYM_MC_ACTION_I16 = 2,
    CCGYM_MC_ACTION_I64 = 3
};

/* typed = 0: position and velocity are as the default step leaves them,
 * numpy float64s (the velocity the Python int 0 where the car has just
 * hit the left wall: velocity 0 at min_position). Otherwise their types are
 * position_t and velocity_t (CCGYM_T_*, or CCGYM_MC_T_INT: the int 0). */
typedef struct ccgym_mountain_car_state {
    double position, velocity;
    int64_t typed, position_t, velocity_t;
} ccgym_mountain_car_state;

enum { CCGYM_MC_T_INT = 4 };

void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                    double force, double gravity);

/* Gymnasium's step line by line, each value with its type (ccgym/nptype.h):
 * for the attributes' types (the params' *_t tags), the action's
 * (p->action_t) and the state's (s->typed, the *_t tags). force_t may be
 * CCGYM_T_PYINT, a Python int: (action - 1) * force is then an
 * integer of the action's type.
 *
 * typed = 0 (a constant: see ccgym_mountain_car_step) is the default's
 * types: Python-number attributes and action, a state of two numpy float64s
 * (the velocity the int 0 at the wall, which computes as 0.0 does: np.clip
 * makes it a float64 either way). Every tag is then a constant the compiler
 * folds, and the step is double arithmetic; the state keeps the default's
 * types (s->typed stays 0).
 *
 * From the state s to the next state *next. The one step body of every
 * exact path: the per-instance and typed steps (mountain_car.c; lanes =
 * 0, libm's cos) and the exact lanes block (mountain_car_lanes.c; lanes
 * = 1 with typed = 0, cos_3p = cos(3 * position) from exact math's lanes),
 * which recomputes with lanes = 0 the instances whose *slow it made
 * nonzero. */
CCGYM_ALWAYS_INLINE void ccgym_mountain_car_step_body(const int lanes,
                                                      const ccgym_mountain_car_params *p,
                                                      const ccgym_mountain_car_state *s,
                                                      int64_t action, int typed, double cos_3p,
                                                      ccgym_mountain_car_state *next,
                                                      uint8_t *terminated, double *slow)
{
    /* An attribute with its type, read where it is used (none held across
     * the cos call, which the compiler cannot move a load past). */
#define MC_ATTR(NAME) ccgym_num_of(p->NAME, typed ? (int)p->NAME##_t : CCGYM_T_PY)
    const int force_int = typed && p->force_t == CCGYM_T_PYINT;
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
    /* (lanes: the opaque value would keep the loop scalar; an instance whose
     * product is a NaN, the one value a fold changes, is handed back: a NaN
     * gravity, or a NaN cosine (a non-finite position), whose sign AArch64
     * GCC's fold of cos * -g into one fnmul, -(cos * g), flips where numpy's
     * product keeps it: tests/c/lanes_test.c under qemu, MountainCar with
     * position inf and per-instance params, -NaN against libm's NaN) */
    const double c3 = lanes ? cos_3p : cos(three_pos.v);
    *slow += lanes && (neg_gravity.v != neg_gravity.v || c3 != c3) ? 1.0 : 0.0;
    const double ng = lanes ? neg_gravity.v : ccgym_f64_opaque(neg_gravity.v);
    const ccgym_num t2 =
        ccgym_num_op(ccgym_num_py(c3), ccgym_num_of(ng, neg_gravity.t), CCGYM_OP_MUL);
    /* (action - 1) * self.force: a numpy int action promotes with a numpy
     * float16 to float16 (8 bits), float32 (16) or float64 (32, 64 bits),
     * with a Python float to float64; times a Python int it stays an int of
     * its type, which meets t2 as that float type does (a Python float t2:
     * float64). */
    /* (lanes: through int32, which every ISA's lanes convert to double, AVX2
     * too; the binding admits only actions 0, 1, 2) */
    const double am1 = lanes ? (double)(int32_t)(action - 1) : (double)(action - 1);
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
    /* A Python int force makes the product an integer, whose zero has no
     * sign: (0 - 1) * 0 is 0, where the double product is -0.0 (+ 0.0 maps
     * -0.0 to 0.0 and leaves every other value as it is). */
    if (force_int)
        t1.v = t1.v + 0.0;

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

    *next = *s;
    next->position = position.v;
    next->velocity = velocity.v;
    if (typed) {
        next->position_t = position.t;
        next->velocity_t = vt;
        /* The default step's types, which reading the state infers: typed 0. */
        const int at_wall = velocity.v == 0 && position.v == p->min_position;
        next->typed = !(position.t == CCGYM_T_F64 &&
                        (vt == CCGYM_MC_T_INT ? at_wall : vt == CCGYM_T_F64 && !at_wall));
    } else {
        /* The default's types, but a float64 zero velocity at min_position
         * that no wall hit made (vt is the int only after one; gravity 0
         * and action 1 at the wall, say): typed 0 would read it as the
         * wall's int 0, which a later numpy attribute computes with in
         * another type. Kept typed (two float64s). Not in the lanes: they
         * step only batches of 16 or more (CCGYM_EXACT_LANES_MIN), the
         * batched envs, whose params are never typed (they refuse numpy
         * attribute types), and with Python-number attributes the int 0
         * and a float64 0.0 compute alike (np.clip makes both float64); a
         * check there cost 4% of the lanes' instructions. */
        if (!lanes && CCGYM_UNLIKELY(velocity.v == 0 && vt != CCGYM_MC_T_INT &&
                                     position.v == p->min_position)) {
            next->typed = 1;
            next->position_t = next->velocity_t = CCGYM_T_F64;
        }
    }
}

/* Gymnasium's mountain-car frame (mountain_car.c), which both mountain
 * cars' paint functions draw. */
void ccgym_mountain_car_draw(const ccgym_draw *d, double pos, double min_position,
                             double max_position, double goal_position);

#endif /* CCGYM_MOUNTAIN_CAR_H_ */
