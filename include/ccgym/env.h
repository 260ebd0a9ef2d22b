/* The env table: everything the driver, the binding, the renderer and the
 * bench ceiling know of an env, stated once per env in its own source file
 * (src/<env>.c, through CCGYM_DEFINE_ENV in ccgym/driver.h) and listed once
 * in the registry ccgym_envs[] (src/envs.c). The Python layers build their
 * kind list, state dtypes, parameter names and defaults and reset bounds from
 * it (python/ccgym/_core.pyx).
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_ENV_H_
#define CCGYM_ENV_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/rng.h"

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
    CCGYM_PARAM_DERIVED = 8
};

/* One field of a state or params struct. */
typedef struct ccgym_field {
    const char *name;     /* the C member's name, which is Gymnasium's variable name */
    size_t offset;        /* offsetof(struct, member) */
    int type;             /* enum ccgym_field_type */
    int count;            /* 1, or the length of an array member */
    int flags;            /* params: enum ccgym_param_role; state: 0 */
    double value;         /* params inputs: Gymnasium's default. State fields that are
                           * not float64: the value they take in a state given by its
                           * float64 fields alone (the bench ceiling's layout) */
} ccgym_field;

#define CCGYM_FIELD(STRUCT_T, MEMBER, TYPE, COUNT, FLAGS, VALUE) \
    {#MEMBER, offsetof(STRUCT_T, MEMBER), TYPE, COUNT, FLAGS, VALUE}

struct ccgym_batch;

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

/* The bench ceiling's job (see ccgym/ceiling.h): n instances stepped `steps`
 * times, step t taking row t % n_action_rows of actions. */
typedef struct ccgym_bare_job {
    const void *params;       /* one params struct shared by all instances */
    size_t n;
    int64_t steps;
    void *state;              /* n state structs */
    ccgym_pcg64 *rng;         /* NULL: a terminated instance steps on */
    const void *actions;
    size_t n_action_rows;
    float *obs;
    double *reward;
    uint8_t *terminated;
} ccgym_bare_job;

/* The largest obs_dim of any env (Acrobot's 6): the size of the fixed
 * scratch buffers that stand in for variable-length arrays (MSVC has none).
 * CCGYM_DEFINE_ENV refuses to compile an env with a larger one. */
#define CCGYM_MAX_OBS_DIM 16

/* What every layer needs to know of an env. */
typedef struct ccgym_env_def {
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
    const ccgym_field *state_fields;
    int n_state_fields;
    const ccgym_field *param_fields;
    int n_param_fields;
    /* params_init(p, v): p from the inputs v, in param_fields order (the
     * CCGYM_PARAM_INPUT fields), computed as Gymnasium's __init__ does. */
    void (*params_init)(void *params, const double *values);
    /* The driver's entry points (ccgym_batch_step / ccgym_batch_reset). */
    void (*step_range)(const struct ccgym_batch *b, const void *actions, size_t begin,
                       size_t end);
    void (*reset_range)(const struct ccgym_batch *b, const uint8_t *mask, double a, double bnd,
                        size_t begin, size_t end);
    /* One instance's exact reset (writes its state and observation). */
    ccgym_reset_fn reset_one;
    /* One instance's last observation from its state (see ccgym_observe_fn). */
    ccgym_observe_fn observe_one;
    /* The bench ceiling's bare loop over instances [begin, end). */
    void (*bare_range)(const ccgym_bare_job *job, size_t begin, size_t end);
    /* precision="fast": this env with the vectorised step (itself when it has none). */
    const struct ccgym_env_def *fast;
    /* Continuous envs: the exact step for actions of another enum
     * ccgym_action_type than float32 (b->action_type; the actions are
     * doubles), for both defs; NULL for discrete envs. */
    void (*typed_step_range)(const struct ccgym_batch *b, const void *actions, size_t begin,
                             size_t end);
} ccgym_env_def;

/* The registry (src/envs.c): every env, in the order of _core.ENV_KINDS. */
extern const ccgym_env_def *const ccgym_envs[];
extern const int ccgym_num_envs;

#endif /* CCGYM_ENV_H_ */
