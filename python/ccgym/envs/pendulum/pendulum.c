#include <float.h>
#include <math.h>

#include "ccgym/draw.h"
#include "ccgym/driver.h"
#include "ccgym/exactmath.h"
#include "ccgym/npmath.h"
#include "ccgym/nptype.h"
#include "pendulum.h"

/* Gymnasium's PendulumEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_pendulum_state_fields[] = {
    CCGYM_FIELD(ccgym_pendulum_state, th, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_pendulum_state, thdot, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_pendulum_state, last_u, CCGYM_FIELD_F64, 1, 0, 0),
    /* given th, thdot and last_u alone: None (no action since reset) */
    CCGYM_TAG_FIELD(ccgym_pendulum_state, last_u_t, 0, CCGYM_T_PY, CCGYM_T_F64),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_pendulum_param_fields[] = {
    CCGYM_ATTR(ccgym_pendulum_params, max_speed, CCGYM_FIELD_F64, PHYS, 8.0, "max_speed", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_INT_DEFAULT | CCGYM_ATTR_REBINDS | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_pendulum_params, max_torque, CCGYM_FIELD_F64, PHYS, 2.0, "max_torque", CCGYM_ATTR_TYPED | CCGYM_ATTR_ACTION_OPERAND | CCGYM_ATTR_REBINDS | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_pendulum_params, dt, CCGYM_FIELD_F64, PHYS, 0.05, "dt", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_REBINDS),
    CCGYM_ATTR(ccgym_pendulum_params, g, CCGYM_FIELD_F64, PHYS, 10.0, "g", CCGYM_ATTR_NUMPY | CCGYM_ATTR_TYPED | CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_REBINDS | CCGYM_ATTR_KEYWORD),
    CCGYM_ATTR(ccgym_pendulum_params, m, CCGYM_FIELD_F64, PHYS, 1.0, "m", CCGYM_ATTR_TYPED | CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_NO_INT32 | CCGYM_ATTR_REBINDS),
    CCGYM_ATTR(ccgym_pendulum_params, l, CCGYM_FIELD_F64, PHYS, 1.0, "l", CCGYM_ATTR_TYPED | CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_NO_INT32 | CCGYM_ATTR_REBINDS),
    CCGYM_FIELD(ccgym_pendulum_params, sin_coef, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_pendulum_params, torque_coef, CCGYM_FIELD_F64, 1, DERIVED, 0),
    /* the attributes' types (ccgym/nptype.h), set by the single env */
    CCGYM_FIELD(ccgym_pendulum_params, g_t, CCGYM_FIELD_I64, 1, CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_pendulum_params, m_t, CCGYM_FIELD_I64, 1, CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_pendulum_params, l_t, CCGYM_FIELD_I64, 1, CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_pendulum_params, max_torque_t, CCGYM_FIELD_I64, 1, CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_pendulum_params, torque_coef_t, CCGYM_FIELD_I64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_pendulum_params, typed, CCGYM_FIELD_I64, 1, DERIVED, 0),
};
#undef PHYS
#undef FLAG
#undef DERIVED

/* 3 * g / (2 * l) and 3.0 / (m * l**2) with g, m and l of the given types,
 * as Gymnasium's step evaluates them (Python ints compute as the floats
 * they equal: the binding takes ints only where their products are exact). */
static void pendulum_coefs(ccgym_pendulum_params *p)
{
    const ccgym_num g = ccgym_num_of(p->g, (int)p->g_t), m = ccgym_num_of(p->m, (int)p->m_t),
                    l = ccgym_num_of(p->l, (int)p->l_t);
    const ccgym_num sin_coef =
        ccgym_num_op(ccgym_num_op(ccgym_num_py(3.0), g, CCGYM_OP_MUL),
                     ccgym_num_op(ccgym_num_py(2.0), l, CCGYM_OP_MUL), CCGYM_OP_DIV);
    const ccgym_num torque_coef = ccgym_num_op(
        ccgym_num_py(3.0), ccgym_num_op(m, ccgym_num_pow2(l), CCGYM_OP_MUL), CCGYM_OP_DIV);
    p->sin_coef = sin_coef.v; /* times np.sin(th), a float64: its type never matters */
    p->torque_coef = torque_coef.v;
    p->torque_coef_t = torque_coef.t;
    p->typed = p->torque_coef_t != CCGYM_T_PY || p->max_torque_t != CCGYM_T_PY;
}

static void ccgym_pendulum_params_init_values(void *p, const double *v)
{
    /* v: max_speed, max_torque, dt, g, m, l, g_t, m_t, l_t, max_torque_t (the
     * input fields' order) */
    ccgym_pendulum_params *q = (ccgym_pendulum_params *)p;
    ccgym_pendulum_params_init(q, v[3], v[4], v[5], v[0], v[1], v[2]);
    q->g_t = (int64_t)v[6];
    q->m_t = (int64_t)v[7];
    q->l_t = (int64_t)v[8];
    q->max_torque_t = (int64_t)v[9];
    pendulum_coefs(q);
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
    p->g_t = p->m_t = p->l_t = p->max_torque_t = CCGYM_T_PY;
    pendulum_coefs(p);
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

/* The step body (ccgym_pendulum_step_body, ccgym/pendulum.h) on one
 * instance: sin(th) from libm, the state written back. */
CCGYM_INLINE void pendulum_step_line_by_line(const ccgym_pendulum_params *p,
                                             ccgym_pendulum_state *s, double sin_th, double a,
                                             int at, int typed, double *reward,
                                             uint8_t *terminated)
{
    double unused = 0;
    ccgym_pendulum_state next;
    ccgym_pendulum_step_body(0, p, s, sin_th, a, at, typed, &next, reward, &unused);
    *s = next;
    *terminated = 0;
}

/* pendulum_step_line_by_line with the attributes' types (out of line: only
 * a single env with numpy attribute values takes it). */
static CCGYM_COLD void pendulum_step_any(const ccgym_pendulum_params *p,
                                         ccgym_pendulum_state *s, double a, int at,
                                         float *obs, double *reward, uint8_t *terminated)
{
    pendulum_step_line_by_line(p, s, sin(s->th), a, at, 1, reward, terminated);
    ccgym_pendulum_observe(p, s, 0, obs);
}

/* The float32-action step: Gymnasium's step for a float32 action (the
 * action space's dtype) and Python-number attributes is the line-by-line
 * step above with those type tags, which the compiler folds into float32
 * and float64 arithmetic: one step body for every action type. */
CCGYM_INLINE void ccgym_pendulum_step(const ccgym_pendulum_params *p, ccgym_pendulum_state *s,
                                      ccgym_pcg64 *rng, const float *action, float *obs,
                                      double *reward, uint8_t *terminated)
{
    (void)rng;
    if (CCGYM_UNLIKELY(p->typed)) { /* a numpy max_torque, m or l (the single env only) */
        pendulum_step_any(p, s, action[0], CCGYM_T_F32, obs, reward, terminated);
    } else {
        pendulum_step_line_by_line(p, s, sin(s->th), action[0], CCGYM_T_F32, 0, reward,
                                   terminated);
        ccgym_pendulum_observe(p, s, 0, obs);
    }
}

/* The step for an action of another type than float32, a double holding its
 * value (ccgym/driver.h, enum ccgym_action_type). np.clip(u, ...) keeps a
 * float16 or float64 array's dtype and turns integers, bools and Python
 * lists into float64 (the binding sends PY actions here as F64), so
 * everything but F16 is the float64 step. */
CCGYM_INLINE void ccgym_pendulum_step_typed(const ccgym_pendulum_params *p,
                                            ccgym_pendulum_state *s, const double *action,
                                            int type, float *obs, double *reward,
                                            uint8_t *terminated)
{
    const int at = type == CCGYM_ACTION_F16 ? CCGYM_T_F16 : CCGYM_T_F64;
    if (CCGYM_UNLIKELY(p->typed)) {
        pendulum_step_any(p, s, action[0], at, obs, reward, terminated);
    } else { /* Python-number attributes: the tags constants the compiler folds */
        pendulum_step_line_by_line(p, s, sin(s->th), action[0], at, 0, reward, terminated);
        ccgym_pendulum_observe(p, s, 0, obs);
    }
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
    s->last_u_t = 0; /* None */
    ccgym_pendulum_observe(p, s, 0, obs);
}

/* The float32-action step in SIMD lanes, exact and fast (pendulum_lanes.c,
 * the same step body over two backends), per ISA. */
CCGYM_LANES_BLOCK(ccgym_pendulum)
CCGYM_FAST_KERNEL(ccgym_pendulum)

CCGYM_DECLARE_TYPED_STEP(ccgym_pendulum);

/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h). */
static const float ccgym_pendulum_obs_low[3] = {-1.0f, -1.0f, -8.0f};
static const float ccgym_pendulum_obs_high[3] = {1.0f, 1.0f, 8.0f};
static const float ccgym_pendulum_action_low[1] = {-2.0f};
static const float ccgym_pendulum_action_high[1] = {2.0f};

/* Gymnasium's PendulumEnv.render(): the rod and its two end discs, the
 * torque icon (the render call's, at the size last_u asks for) and the
 * axle. */
static void ccgym_pendulum_paint(const ccgym_draw *d, const void *state, const void *params)
{
    (void)params;
    const ccgym_pendulum_state *s = (const ccgym_pendulum_state *)state;
    const ccgym_rgb black = {0, 0, 0}, red = {204, 77, 77};
    const double bound = 2.2;
    const double scale = d->width / (bound * 2);
    const int offset = d->width / 2;
    const double rod_length = 1 * scale, rod_width = 0.2 * scale;
    const double angle = s->th + M_PI / 2;
    ccgym_draw_rect(d, 0, rod_length, rod_width / 2, -rod_width / 2, angle, offset, offset, red);
    d->circle(d->canvas, offset, offset, rod_width / 2, red);
    double ex, ey;
    ccgym_draw_rotate(rod_length, 0, angle, &ex, &ey);
    d->circle(d->canvas, ex + offset, ey + offset, rod_width / 2, red);

    /* last_u is a float32 in Gymnasium, so numpy 2 computes the size in float32 */
    if (!isnan(s->last_u)) {
        /* a double beyond float's range would convert undefined: it saturates */
        const double u = fabs(s->last_u);
        float size_f = u <= FLT_MAX ? (float)scale * (float)u / 2.0f : INFINITY;
        int size = size_f < 100000.0f ? (int)size_f : 100000;
        d->icon(d->canvas, size, s->last_u > 0, offset - size / 2, offset - size / 2);
    }
    d->circle(d->canvas, offset, offset, 0.05 * scale, black);
}

CCGYM_DEFINE_STOCK_ENV(ccgym_pendulum, ccgym_pendulum_state, ccgym_pendulum_params, float, 1, 0, 3,
                 M_PI, 1.0,
                       CCGYM_LANES_BLOCK_OF(ccgym_pendulum), CCGYM_FAST_KERNEL_OF(ccgym_pendulum), .name = "Pendulum",
                 .reset_symmetric = 1, .reset_option_a = "x_init", .reset_option_b = "y_init",
                 .canvas_width = 500, .canvas_height = 500, .render_fps = 30, .gym_class = "PendulumEnv", .paint = ccgym_pendulum_paint,
                 .reward_type = CCGYM_REWARD_NUMPY,
                 .typed_step_range = ccgym_pendulum_typed_step_range,
                 .obs_low = ccgym_pendulum_obs_low, .obs_high = ccgym_pendulum_obs_high,
                 .action_low = ccgym_pendulum_action_low, .action_high = ccgym_pendulum_action_high)

CCGYM_DEFINE_TYPED_STEP(ccgym_pendulum, ccgym_pendulum_state, ccgym_pendulum_params, 1)
