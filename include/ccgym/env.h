/* The env def: everything the driver, the binding, the renderer and the
 * bench know of an env, stated once per env in its own source file (through
 * CCGYM_DEFINE_ENV, ccgym/define_env.h): a stock env's in src/<env>.c, a
 * plugin's in its own package (docs/custom_env.md). Part of ccgym's public C
 * API (ccgym/ccgym.h). The Python layers build their
 * kind list, state dtypes, parameter names and defaults and reset bounds from
 * it (python/ccgym/_core.pyx, which declares these structs in _core.pxd).
 * A field's Gymnasium attribute name and typing class (CCGYM_ATTR) and the
 * env's action rules and reward type are part of the def: no Python layer
 * keeps a per-env table of them. */
#ifndef CCGYM_ENV_H_
#define CCGYM_ENV_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/rng.h"

/* The version of ccgym's C API (include/ccgym/ccgym.h), as numpy's
 * extension structs are versioned: the layout and meaning of ccgym_env_def,
 * ccgym_field, ccgym_batch and ccgym_draw, and of the flags and enums they
 * carry. The def macros store both numbers and the def's sizeof in
 * ccgym_env_def (api_version, api_minor, size).
 *   - CCGYM_API_MINOR goes up when members are added at the end of
 *     ccgym_env_def (or a flag or enum value is added) and nothing else
 *     changes: ccgym takes a def of the same major version and an older
 *     minor, built against older headers, reading only its `size` bytes
 *     (the members it lacks take their defaults: 0, NULL).
 *   - CCGYM_API_VERSION (the major) goes up on any other change (a member
 *     removed, moved or retyped, a meaning changed), and the minor restarts
 *     at 0.
 * Registration (ccgym.register_c_env) refuses with ValueError a def of
 * another major version or of a newer minor than the running ccgym's.
 * Minor versions of major 4: 0, the members up to render_fps; 1, adds
 * step_warning and step_warns. */
#define CCGYM_API_VERSION 4
#define CCGYM_API_MINOR 1

/* The C type of a state or params struct field. */
enum ccgym_field_type {
    CCGYM_FIELD_F64 = 0,
    CCGYM_FIELD_I64 = 1,
    CCGYM_FIELD_I32 = 2
};

/* What a params field is (flags). */
enum ccgym_param_role {
    /* An argument of params_init, in field order, with Gymnasium's default. */
    CCGYM_PARAM_INPUT = 1,
    /* An input that a vector env takes per instance (a scalar or N values). */
    CCGYM_PARAM_PHYSICS = 2,
    /* An input that is a yes/no switch (0 or 1; Python bool). */
    CCGYM_PARAM_BOOL = 4,
    /* Computed by params_init from the inputs (or a Gymnasium constant). */
    CCGYM_PARAM_DERIVED = 8,
    /* A derived field params_init sets to a constant that something other
     * than an attribute field may change (Acrobot's AVAIL_TORQUE): a write
     * of an attribute keeps its value. */
    CCGYM_PARAM_KEPT = 16,
    /* An input ccgym sets from the running numpy: 1 when numpy's float32
     * sin/cos is its FMA polynomial (ccgym's own numpy emulation), else 0. */
    CCGYM_PARAM_NUMPY_FMA = 32
};

/* What a state field is (flags). */
enum ccgym_state_role {
    /* An integer field holding a type tag (or another code): a step only
     * ever leaves a value in [lo, hi] (ccgym_field.lo/hi) there, and a
     * snapshot with another is refused at set_state. */
    CCGYM_STATE_TAG = 1
};

/* How a params field that is a Gymnasium attribute (its `attr` name) takes
 * numpy values (flags; 0: Python numbers only). Each names a fact of
 * Gymnasium's arithmetic with the attribute (python/ccgym/_attributes.py). */
enum ccgym_attr_class {
    /* Gymnasium compares or combines it only with float64 values: numpy
     * float64 and int32/int64 scalars compute as a Python float does. */
    CCGYM_ATTR_NUMPY = 1,
    /* Every operation meets a float64 operand: numpy float32/float16
     * scalars promote to float64 and compute as float(value) too. */
    CCGYM_ATTR_NARROW = 2,
    /* Its numpy type is carried by the params field "<member>_t"
     * (ccgym's own numpy type tags): the typed step computes in numpy's promotion. */
    CCGYM_ATTR_TYPED = 4,
    /* Gymnasium multiplies it with other attributes: Python ints are taken
     * up to 2**17 (their products stay exact as doubles). */
    CCGYM_ATTR_INT_PRODUCT = 8,
    /* A numpy int32 value would overflow Gymnasium's int32 products. */
    CCGYM_ATTR_NO_INT32 = 16,
    /* The attribute a continuous action meets first: a float16/float32 value
     * makes numpy compute a bool or small-int action in that type. */
    CCGYM_ATTR_ACTION_OPERAND = 32,
    /* TYPED: a Python int is a type of its own (tag CCGYM_T_PYINT), as in
     * MountainCar's (action - 1) * force. */
    CCGYM_ATTR_PY_INT_TAG = 64,
    /* Gymnasium's default is a Python int (as 0 for goal_velocity). */
    CCGYM_ATTR_INT_DEFAULT = 128,
    /* A change makes the single env pick its step again (a typed step, or
     * an exception Gymnasium's step raises with such values). */
    CCGYM_ATTR_REBINDS = 256,
    /* A constructor keyword too, named as the attribute without a leading
     * underscore (Gymnasium's, such as goal_velocity, or ccgym's). */
    CCGYM_ATTR_KEYWORD = 512,
    /* Its values must be finite and within [lo, hi] (ccgym_field.lo/hi),
     * wherever they come from: constructor, attribute, vector physics. */
    CCGYM_ATTR_BOUNDED = 1024,
    /* Gymnasium's step negates it (np.clip(v, -max_speed, max_speed)): an
     * integer 0 negates to the int 0, where a double -0.0 has a sign, so
     * integer zeros are refused. */
    CCGYM_ATTR_NEGATED = 2048,
    /* Item k of the list attribute `attr`: the fields naming one attr with
     * this class are its items 0, 1, ... in table order (Acrobot's
     * AVAIL_TORQUE). Gymnasium's step indexes the list anew each time, so
     * the core follows the list a single env reads (Batch.follow); each
     * item is a float64 operand: a Python int or float, or a numpy int64 or
     * float64, an int only where float64 holds it exactly. */
    CCGYM_ATTR_LIST_ITEM = 4096,
    /* Gymnasium's class defines it in its body (Acrobot's constants), not
     * its __init__: ccgym's class has it too, the def's default of
     * Gymnasium's Python type, and an env has it only once written. */
    CCGYM_ATTR_CLASS_LEVEL = 8192
};

/* The type tag (the "<field>_t" params field of a CCGYM_ATTR_TYPED
 * attribute) of a Python int value of a CCGYM_ATTR_PY_INT_TAG attribute:
 * next after ccgym's own type tags (0..3), which the env's own
 * typed step then handles. */
enum { CCGYM_T_PYINT = 4 };

/* How the single env's step treats an action (ccgym_env_def.action_rules). */
enum ccgym_action_rule {
    /* Gymnasium's step asserts action_space.contains(action) first. */
    CCGYM_RULE_ASSERTS_CONTAINS = 1,
    /* action - 1 in the action's dtype: an unsigned 0 wraps around. */
    CCGYM_RULE_UNSIGNED_ZERO_WRAPS = 2,
    /* The reward squares action[0] with math.pow (OverflowError). */
    CCGYM_RULE_SQUARE_OVERFLOWS = 4,
    /* A list of Python floats defers to the state's dtype (CCGYM_ACTION_PY);
     * without it a list computes as float64. */
    CCGYM_RULE_LIST_DEFERS = 8
};

/* The type of Gymnasium's step reward. */
enum ccgym_reward_type {
    CCGYM_REWARD_FLOAT = 0, /* a Python float */
    CCGYM_REWARD_NUMPY = 1  /* a numpy float64 */
};

/* One field of a state or params struct. */
typedef struct ccgym_field {
    const char *name;     /* the C member's name, which is Gymnasium's variable name */
    size_t offset;        /* offsetof(struct, member) */
    int type;             /* enum ccgym_field_type */
    int count;            /* 1, or the length of an array member */
    int flags;            /* params: enum ccgym_param_role; state: enum ccgym_state_role */
    double value;         /* params inputs: Gymnasium's default. State fields that are
                           * not float64: the value they take in a state given by its
                           * float64 fields alone (the bench ceiling's layout) */
    const char *attr;     /* params: the Gymnasium attribute over this field, or NULL */
    int attr_class;       /* with attr: enum ccgym_attr_class flags */
    /* A switch attribute (CCGYM_PARAM_BOOL) read from a string: "on" (the
     * field is 1 exactly when the value equals it, as Gymnasium's `==`), or
     * "on|off" (the value must be one of them). NULL: the value's truth. */
    const char *choices;
    double lo, hi;        /* CCGYM_ATTR_BOUNDED, CCGYM_STATE_TAG: the values taken */
} ccgym_field;

/* A state field, or a params field that is no Gymnasium attribute. */
#define CCGYM_FIELD(STRUCT_T, MEMBER, TYPE, COUNT, FLAGS, VALUE)                          \
    {.name = #MEMBER, .offset = offsetof(STRUCT_T, MEMBER), .type = TYPE, .count = COUNT, \
     .flags = FLAGS, .value = VALUE}
/* An integer state field holding a type tag: a step leaves only values in
 * [LO, HI] there (CCGYM_STATE_TAG); VALUE as in CCGYM_FIELD. */
#define CCGYM_TAG_FIELD(STRUCT_T, MEMBER, VALUE, LO, HI)                                       \
    {.name = #MEMBER, .offset = offsetof(STRUCT_T, MEMBER), .type = CCGYM_FIELD_I64, .count = 1, \
     .flags = CCGYM_STATE_TAG, .value = VALUE, .lo = LO, .hi = HI}
/* A params field that Gymnasium's env has as the attribute ATTR (a string),
 * with enum ccgym_attr_class flags ATTR_CLASS. */
#define CCGYM_ATTR(STRUCT_T, MEMBER, TYPE, FLAGS, VALUE, ATTR, ATTR_CLASS)                    \
    {.name = #MEMBER, .offset = offsetof(STRUCT_T, MEMBER), .type = TYPE, .count = 1,          \
     .flags = FLAGS, .value = VALUE, .attr = ATTR, .attr_class = ATTR_CLASS}
/* A CCGYM_ATTR whose values must be finite and in [LO, HI]. */
#define CCGYM_BOUNDED_ATTR(STRUCT_T, MEMBER, TYPE, FLAGS, VALUE, ATTR, ATTR_CLASS, LO, HI)       \
    {.name = #MEMBER, .offset = offsetof(STRUCT_T, MEMBER), .type = TYPE, .count = 1,          \
     .flags = FLAGS, .value = VALUE, .attr = ATTR,                                             \
     .attr_class = (ATTR_CLASS) | CCGYM_ATTR_BOUNDED, .lo = LO, .hi = HI}
/* A switch attribute read from a string (see ccgym_field.choices). */
#define CCGYM_SWITCH(STRUCT_T, MEMBER, TYPE, VALUE, ATTR, ATTR_CLASS, CHOICES)                \
    {.name = #MEMBER, .offset = offsetof(STRUCT_T, MEMBER), .type = TYPE, .count = 1,          \
     .flags = CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL, .value = VALUE, .attr = ATTR,              \
     .attr_class = ATTR_CLASS, .choices = CHOICES}

struct ccgym_batch;

/* A colour of the drawing primitives (8-bit RGB). */
typedef struct ccgym_rgb {
    uint8_t r, g, b;
} ccgym_rgb;

/* The drawing primitives of ccgym's renderer (src/render.c), handed to a
 * def's paint function for one frame. Coordinates are pygame's (origin top
 * left, y down; the frame is flipped vertically afterwards, as Gymnasium's
 * classic-control render() does), floats truncated towards zero as pygame
 * does; every primitive clips to the canvas, and non-finite coordinates draw
 * nothing. The canvas starts white. */
typedef struct ccgym_draw {
    void *canvas;            /* pass it back to each primitive */
    int width, height;       /* the def's canvas_width / canvas_height */
    /* gfxdraw.aapolygon then filled_polygon of 3 or 4 float points. */
    void (*polygon)(void *canvas, const double *x, const double *y, int n, ccgym_rgb col);
    /* gfxdraw.aacircle then filled_circle at (int(x), int(y)), radius int(r). */
    void (*circle)(void *canvas, double x, double y, double r, ccgym_rgb col);
    /* draw.aaline from (x0, y0) to (x1, y1). */
    void (*line)(void *canvas, double x0, double y0, double x1, double y1, ccgym_rgb col);
    /* gfxdraw.hline: pixels x1..x2 of row y. */
    void (*hline)(void *canvas, int x1, int x2, int y, ccgym_rgb col);
    /* draw.line between (x1, y) and (x2, y): hline at the truncated floats. */
    void (*hline_f)(void *canvas, double x1, double x2, double y, ccgym_rgb col);
    /* gfxdraw.vline at int(x) from int(y1) to int(y2). */
    void (*vline_f)(void *canvas, double x, double y1, double y2, ccgym_rgb col);
    /* draw.aalines(closed=False) through n float points. */
    void (*aalines)(void *canvas, const double *x, const double *y, int n, ccgym_rgb col);
    /* Blits the render call's icon (the env class's _render_icon, see
     * ccgym.rendering: an image at every square size) size x size with its
     * top-left corner at (left, top), mirrored left-right if flip_x, as
     * pygame's smoothscale + flip + blit do; nothing when the call has none. */
    void (*icon)(void *canvas, int size, int flip_x, int left, int top);
} ccgym_draw;

/* Draws one instance's frame (state and params structs of the def). */
typedef void (*ccgym_paint_fn)(const ccgym_draw *draw, const void *state, const void *params);

typedef void (*ccgym_step_fn)(const void *params, void *state, ccgym_pcg64 *rng,
                              const void *action, float *obs, double *reward,
                              uint8_t *terminated);
/* (a, b) are the reset bounds: (low, high) for most envs, (x_init, y_init)
 * (uniform in [-a, a] x [-b, b]) for a symmetric one such as Pendulum. */
typedef void (*ccgym_reset_fn)(const void *params, void *state, ccgym_pcg64 *rng,
                               double a, double b, float *obs);
/* An instance's observation rebuilt from its state alone, bit for bit what
 * the exact step (just_reset = 0) or reset (just_reset = 1) that left the
 * state wrote: the core re-derives the last observations it reports (a
 * masked reset's other rows, snapshots) from memory it owns, never from
 * arrays it handed out. (Acrobot's reset observation is numpy's float32 trig
 * of its float32 state, its step's float64 trig: hence just_reset.) */
typedef void (*ccgym_observe_fn)(const void *params, const void *state, int just_reset,
                                 float *obs);

/* The largest obs_dim of any env (Acrobot's 6): the size of the fixed
 * scratch buffers that stand in for variable-length arrays (MSVC has none).
 * CCGYM_DEFINE_ENV refuses to compile an env with a larger one. */
#define CCGYM_MAX_OBS_DIM 16

/* What every layer needs to know of an env. */
typedef struct ccgym_env_def {
    int api_version;              /* CCGYM_API_VERSION (the major) of the headers it was
                                   * built with: always the first member (set, as the next
                                   * two, by CCGYM_DEFINE_ENV) */
    int api_minor;                /* their CCGYM_API_MINOR */
    size_t size;                  /* sizeof(ccgym_env_def) in them: the bytes ccgym reads */
    const char *name;             /* the kind: "CartPole", ... */
    int obs_dim;
    int action_dim;               /* 0: discrete (int64 actions), else float32 (or typed, see
                                   * typed_step_range) actions of this size */
    int64_t n_actions;            /* discrete only */
    size_t state_size;
    size_t params_size;
    double default_a, default_b;  /* Gymnasium's default reset bounds */
    int reset_symmetric;          /* 1: (a, b) are (x_init, y_init); 0: (low, high) */
    const char *reset_option_a, *reset_option_b; /* their names in reset(options=...) */
    int canvas_width, canvas_height;             /* Gymnasium's render screen */
    const char *gym_class;        /* Gymnasium's env class ("CartPoleEnv", ...) */
    int reward_type;              /* enum ccgym_reward_type of the single env's reward */
    int action_rules;             /* enum ccgym_action_rule flags */
    const ccgym_field *state_fields;
    int n_state_fields;
    const ccgym_field *param_fields;
    int n_param_fields;
    /* params_init(p, v): p from the inputs v, in param_fields order (the
     * CCGYM_PARAM_INPUT fields), computed as Gymnasium's __init__ does. */
    void (*params_init)(void *params, const double *values);
    /* The driver's entry points: ccgym calls them (from its threads) over
     * instances [begin, end) of a batch (CCGYM_DEFINE_ENV defines them). */
    void (*step_range)(const struct ccgym_batch *b, const void *actions, size_t begin,
                       size_t end);
    void (*reset_range)(const struct ccgym_batch *b, const uint8_t *mask, double a, double bnd,
                        size_t begin, size_t end);
    /* One instance's exact reset (writes its state and observation). */
    ccgym_reset_fn reset_one;
    /* One instance's last observation from its state (see ccgym_observe_fn). */
    ccgym_observe_fn observe_one;
    /* Continuous envs: the exact step for actions of another enum
     * ccgym_action_type than float32 (b->action_type; the actions are
     * doubles), for both defs; NULL for discrete envs. */
    void (*typed_step_range)(const struct ccgym_batch *b, const void *actions, size_t begin,
                             size_t end);
    /* The spaces: the observation Box's float32 bounds (obs_dim each;
     * +-INFINITY allowed) and, for a continuous env, the action Box's
     * (action_dim each). A plugin's single env takes them (ccgym.envs.CEnv);
     * the stock envs state Gymnasium's (tests/test_plugin_api.py checks
     * them against it), whose classes build the same spaces themselves. */
    const float *obs_low, *obs_high;
    const float *action_low, *action_high;
    /* Draws a frame for rgb_array rendering (NULL: the env has no
     * renderer). The stock envs' paint Gymnasium's scenes (src/<env>.c). */
    ccgym_paint_fn paint;
    /* Gymnasium's metadata["render_fps"] (0: 30, as a plugin's default). */
    int render_fps;
    /* Minor version 1. */
    /* A warning Gymnasium's single env logs from its step, or NULL: after
     * every single-env step, ccgym logs step_warning with
     * gymnasium.logger.warn when step_warns(state, terminated) is nonzero
     * (state: the env's state after the step; terminated: the step's flag).
     * CartPole: the first step after the pole fell, as Gymnasium's
     * steps_beyond_terminated == 0 test. Both set, or both NULL. */
    const char *step_warning;
    int (*step_warns)(const void *state, int terminated);
} ccgym_env_def;

#endif /* CCGYM_ENV_H_ */
