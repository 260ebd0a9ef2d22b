/* What CCGYM_DEFINE_ENV needs, all inline: the batch a def's step_range and
 * reset_range loop over (ccgym_batch, owned by ccgym), the driver's loop
 * (what gymnasium's TimeLimit wrapper and vector autoreset do around an
 * env's step: the time limit, truncation, autoreset by mode, final
 * observations, per-episode return and length) and the macros that build a
 * def from an env's inline step, reset and observe. Part of ccgym's public C
 * API (ccgym/ccgym.h): nothing here names a function of ccgym's, so a plugin
 * built at any optimisation level links against nothing of ccgym's.
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_DEFINE_ENV_H_
#define CCGYM_DEFINE_ENV_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ccgym/env.h"
#include "ccgym/rng.h"

/* An env's step: inlined into the driver's loop (its outputs stay in
 * registers; GCC stops inlining a large step on its own as soon as it has a
 * second call site, which costs a cheap env 10-20%). Static, so a plugin
 * exports nothing but its module's init function. Use it for NAME_step and
 * NAME_step_typed; `static inline` is enough for everything else. */
#if defined(_MSC_VER) && !defined(__clang__)
#define CCGYM_INLINE static __forceinline
#elif defined(__GNUC__) || defined(__clang__)
#define CCGYM_INLINE static inline __attribute__((always_inline))
#else
#define CCGYM_INLINE static inline
#endif

/* The checks and constants CCGYM_DEFINE_ENV defines in the env's file, which
 * the file need not use: clang's -Wunused-function reports an unused static
 * inline function of a .c file (GCC only of a static one). */
#if defined(__GNUC__) || defined(__clang__)
#define CCGYM_MAYBE_UNUSED_ __attribute__((unused))
#else
#define CCGYM_MAYBE_UNUSED_
#endif

enum ccgym_autoreset_mode {
    CCGYM_AUTORESET_NEXT_STEP = 0, /* the step after a done resets; its action is ignored */
    CCGYM_AUTORESET_SAME_STEP = 1, /* reset at once; the pre-reset observation goes to final_obs */
    CCGYM_AUTORESET_DISABLED = 2   /* reset only on request; pending_reset marks done instances */
};

/* How Gymnasium computes a continuous action: numpy 2 (NEP 50) computes the
 * action's terms in the action's own dtype, and Python floats (a list or
 * tuple) defer to the other operand's. The binding picks the type from the
 * action's dtype, per env, by one rule table (python/ccgym/_core.pyx,
 * _ACTION_RULES) and sets ccgym_batch.action_type for the step: F32 actions
 * are float32 (the env def's step_range, the fast path); the others are
 * doubles holding the actions' values (typed_step_range). */
enum ccgym_action_type {
    CCGYM_ACTION_F32 = 0, /* numpy float32, the action space's dtype */
    CCGYM_ACTION_F64 = 1, /* numpy float64 (integer and bool actions become it too) */
    CCGYM_ACTION_F16 = 2, /* numpy float16: each op computed in float32, rounded to float16 */
    CCGYM_ACTION_PY = 3   /* Python floats (ints, bools): the state's numpy dtype wins */
};

/* Every buffer is owned by the caller (the Python side) and holds n entries
 * (obs and final_obs: n * obs_dim floats). */
typedef struct ccgym_batch {
    size_t n;
    void *state;              /* n env-specific state structs */
    const void *params;       /* env-specific params structs: one shared, or one per instance */
    size_t params_stride;     /* 0: all instances share params[0]; else sizeof(params struct) */
    ccgym_pcg64 *rng;         /* one generator per instance */
    int64_t *episode_start;   /* the value of t at each instance's last reset: its elapsed
                               * steps are t - episode_start[i] */
    uint8_t *pending_reset;   /* done and not reset yet */
    double *episode_return;   /* running return of the current episode */
    int64_t max_episode_steps; /* <= 0: no time limit */
    /* The clock of the time limit. t counts the steps of the batch (a step
     * adds one before it runs), so elapsed steps cost nothing per instance
     * and step; truncation is episode_start[i] <= t - max_episode_steps.
     * start_bound is at most every episode_start (resets only raise them):
     * while t - max_episode_steps < start_bound no instance can truncate,
     * and a step does not look (check_truncation = 0, set by
     * ccgym_batch_step). A step that looks also finds the new least
     * episode_start for start_bound (into start_scan, across threads). */
    int64_t t;
    int64_t start_bound;
    int64_t start_scan;
    int check_truncation;
    int autoreset_mode;
    /* The outputs. obs is the caller's output array (the core hands it out
     * and never reads it back); reward, terminated and truncated are the
     * core's own, which a step also copies into out_reward, out_terminated
     * and out_truncated when they are not NULL (the caller's arrays). */
    float *obs;
    double *reward;
    uint8_t *terminated;
    uint8_t *truncated;
    double *out_reward;
    uint8_t *out_terminated;
    uint8_t *out_truncated;
    /* NULL: each instance's last observation is its state's (the def's
     * observe_one, just_reset when episode_start == t). Else the last
     * observations, kept by the core (a restored snapshot's, which need not
     * be its state's); a masked reset keeps them up to date, a step or a
     * full reset sets this to NULL. */
    float *saved_obs;
    float *final_obs;         /* SAME_STEP only: observation before the autoreset */
    double *final_return;     /* where an episode ended this step: its return and length */
    int64_t *final_length;
    /* enum ccgym_action_type of this step's actions (continuous envs; 0,
     * F32, otherwise): set by ccgym before it calls step_range. */
    int action_type;
} ccgym_batch;

/* x, opaque to the optimiser, in the register it is in. The driver's
 * ep_return + r, with r = -cost inlined from a step, would otherwise be folded
 * into ep_return - cost in some of the loop's copies only (GCC's a + -b ->
 * a - b, exact but for a NaN's sign bit): the same state and action would
 * give a NaN return of either sign, where numpy's ep + r (Gymnasium's
 * RecordEpisodeStatistics) keeps r's. */
static inline double ccgym_f64_opaque(double x)
{
#if (defined(_MSC_VER) && !defined(__clang__)) || defined(CCGYM_TEST_MSVC_PATHS)
    volatile double v = x; /* MSVC: no inline asm on x64; a memory trip */
    x = v;
#elif defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
    __asm__("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__("" : "+w"(x));
#elif defined(__GNUC__)
    __asm__("" : "+m"(x));
#else
    volatile double v = x;
    x = v;
#endif
    return x;
}

/* Instance i's last observation into o (saved_obs, else rebuilt by observe). */
CCGYM_INLINE void ccgym_observe_one(const ccgym_batch *b, ccgym_observe_fn observe,
                                    size_t state_size, int obs_dim, size_t i, float *o)
{
    if (b->saved_obs)
        memcpy(o, b->saved_obs + i * (size_t)obs_dim, sizeof(float) * (size_t)obs_dim);
    else
        observe((const char *)b->params + i * b->params_stride,
                (const char *)b->state + i * state_size, b->episode_start[i] == b->t, o);
}

/* t - start, wrapping as unsigned arithmetic does (a restored snapshot may
 * hold any elapsed count; signed overflow would be undefined). */
CCGYM_INLINE int64_t ccgym_steps_since(int64_t t, int64_t start)
{
    return (int64_t)((uint64_t)t - (uint64_t)start);
}

/* The driver's per-instance bookkeeping, shared by the exact loop below and
 * ccgym's own fast driver, which pass it their own pointers to the batch's
 * buffers. */

/* The last episode start that the time limit truncates on this step (when
 * b->check_truncation, which implies a limit > 0). */
CCGYM_INLINE int64_t ccgym_last_start(const ccgym_batch *b)
{
    return b->check_truncation ? b->t - b->max_episode_steps : 0;
}

/* Whether an instance that started its episode at `start` is truncated on
 * this step: branch-free, so that a vectorised caller keeps vectorising. */
CCGYM_INLINE uint8_t ccgym_truncates(int check, int64_t start, int64_t last_start)
{
    return (uint8_t)(check & (start <= last_start));
}

/* NEXT_STEP autoreset: instance i was done on the step before, so this step
 * resets it, its action ignored: reward 0, flags false, a new episode from t. */
CCGYM_INLINE void ccgym_next_step_reset(ccgym_reset_fn reset, const void *p, void *s,
                                        ccgym_pcg64 *rng, double def_a, double def_b,
                                        float *o, size_t i, int64_t t, uint8_t *pending,
                                        int64_t *start, double *ep_return, double *reward,
                                        uint8_t *terminated, uint8_t *truncated)
{
    reset(p, s, rng, def_a, def_b, o);
    pending[i] = 0;
    start[i] = t;
    ep_return[i] = 0.0;
    reward[i] = 0.0;
    terminated[i] = 0;
    truncated[i] = 0;
}

/* Instance i's episode ended on this step (terminated or truncated) with
 * return ret: its return and length are recorded; SAME_STEP resets it at
 * once (the pre-reset observation o goes to final_o, and the new episode's
 * return is 0) and returns 1; the other modes mark it pending (NEXT_STEP
 * resets it on the next step, DISABLED on request) and return 0, leaving
 * episode_return to the caller. */
CCGYM_INLINE int ccgym_end_episode(int mode, ccgym_reset_fn reset, const void *p, void *s,
                                    ccgym_pcg64 *rng, double def_a, double def_b, float *o,
                                    float *final_o, int obs_dim, size_t i, int64_t t,
                                    double ret, uint8_t *pending, int64_t *start,
                                    double *ep_return, double *final_return,
                                    int64_t *final_length)
{
    final_return[i] = ret;
    final_length[i] = ccgym_steps_since(t, start[i]);
    if (mode == CCGYM_AUTORESET_SAME_STEP) {
        memcpy(final_o, o, sizeof(float) * (size_t)obs_dim);
        reset(p, s, rng, def_a, def_b, o);
        start[i] = t;
        ep_return[i] = 0.0;
        return 1;
    }
    pending[i] = 1;
    return 0;
}

/* The generic loops. Each env's .c file instantiates them with its own
 * inline step and reset (CCGYM_DEFINE_ENV), which the compiler inlines. */
CCGYM_INLINE void ccgym_drive_step_loop(const ccgym_batch *b, const void *actions,
                                        size_t action_size, size_t begin, size_t end,
                                        size_t state_size, int obs_dim, double def_a,
                                        double def_b, ccgym_step_fn step, ccgym_reset_fn reset,
                                        const int check_truncation)
{
    /* Every buffer in a local restrict pointer: a store through one (the
     * uint8_t flags alias anything) then does not force the others to be
     * reloaded from the batch struct. */
    char *restrict states = (char *)b->state;
    const char *restrict params = (const char *)b->params;
    const char *restrict acts = (const char *)actions;
    ccgym_pcg64 *restrict rng = b->rng;
    int64_t *restrict start = b->episode_start;
    uint8_t *restrict pending = b->pending_reset;
    double *restrict ep_return = b->episode_return;
    float *restrict obs = b->obs;
    double *restrict reward = b->reward;
    uint8_t *restrict terminated = b->terminated;
    uint8_t *restrict truncated = b->truncated;
    float *restrict final_obs = b->final_obs;
    double *restrict final_return = b->final_return;
    int64_t *restrict final_length = b->final_length;
    const size_t params_stride = b->params_stride;
    const int mode = b->autoreset_mode;
    const int64_t t = b->t;
    const int64_t last_start = ccgym_last_start(b);
    for (size_t i = begin; i < end; i++) {
        void *s = states + i * state_size;
        const void *p = params + i * params_stride;
        float *o = obs + i * (size_t)obs_dim;
        if (mode == CCGYM_AUTORESET_NEXT_STEP && pending[i]) {
            ccgym_next_step_reset(reset, p, s, &rng[i], def_a, def_b, o, i, t, pending, start,
                                  ep_return, reward, terminated, truncated);
            continue;
        }
        double r;
        uint8_t term;
        step(p, s, &rng[i], acts + i * action_size, o, &r, &term);
        const uint8_t trunc = ccgym_truncates(check_truncation, start[i], last_start);
        const double ret = ep_return[i] + ccgym_f64_opaque(r);
        reward[i] = r;
        terminated[i] = term;
        truncated[i] = trunc;
        if ((term | trunc) &&
            ccgym_end_episode(mode, reset, p, s, &rng[i], def_a, def_b, o,
                              final_obs + i * (size_t)obs_dim, obs_dim, i, t, ret, pending,
                              start, ep_return, final_return, final_length))
            continue;
        ep_return[i] = ret;
    }
}

/* The step loop in two copies: the common one where no instance can reach
 * the time limit has no truncation test at all. */
CCGYM_INLINE void ccgym_drive_step(const ccgym_batch *b, const void *actions,
                                   size_t action_size, size_t begin, size_t end,
                                   size_t state_size, int obs_dim, double def_a,
                                   double def_b, ccgym_step_fn step, ccgym_reset_fn reset)
{
    if (b->check_truncation)
        ccgym_drive_step_loop(b, actions, action_size, begin, end, state_size, obs_dim, def_a,
                              def_b, step, reset, 1);
    else
        ccgym_drive_step_loop(b, actions, action_size, begin, end, state_size, obs_dim, def_a,
                              def_b, step, reset, 0);
}

CCGYM_INLINE void ccgym_drive_reset(const ccgym_batch *b, const uint8_t *mask, double a,
                                    double bnd, size_t begin, size_t end,
                                    size_t state_size, int obs_dim, ccgym_reset_fn reset,
                                    ccgym_observe_fn observe)
{
    char *states = (char *)b->state;
    for (size_t i = begin; i < end; i++) {
        float *o = b->obs + i * (size_t)obs_dim;
        if (mask && !mask[i]) {
            /* Not reset: its last observation, from the core's own memory. */
            ccgym_observe_one(b, observe, state_size, obs_dim, i, o);
            continue;
        }
        reset((const char *)b->params + i * b->params_stride, states + i * state_size, &b->rng[i], a, bnd,
              o);
        if (b->saved_obs)
            memcpy(b->saved_obs + i * (size_t)obs_dim, o, sizeof(float) * (size_t)obs_dim);
        b->pending_reset[i] = 0;
        b->episode_start[i] = b->t;
        b->episode_return[i] = 0.0;
        b->terminated[i] = 0;
        b->truncated[i] = 0;
    }
}

/* The checks CCGYM_DEFINE_ENV makes of the functions an env's file defines:
 * each is named as a function pointer value of its contract's type (not only
 * called), so a function the file lacks is a compile error (an undeclared
 * identifier; a call would only be an implicit declaration and an import-time
 * "undefined symbol") and one of another signature an incompatible pointer. */
#define CCGYM_CHECK_FN_(NAME, WHAT, RET, ...)                                                \
    typedef RET (*NAME##_##WHAT##_signature_)(__VA_ARGS__);                                     \
    CCGYM_MAYBE_UNUSED_ static inline NAME##_##WHAT##_signature_ NAME##_##WHAT##_check_(void) \
    {                                                                                        \
        return NAME##_##WHAT;                                                                \
    }

/* The def's static facts, as constants of the env's file (the typed step's
 * loop reads them). */
#define CCGYM_ENV_CONSTS_(NAME, OBS_DIM, DEF_A, DEF_B)                                       \
    typedef char NAME##_obs_dim_fits_[(OBS_DIM) <= CCGYM_MAX_OBS_DIM ? 1 : -1];              \
    enum { NAME##_obs_dim_ = (OBS_DIM) };                                                    \
    CCGYM_MAYBE_UNUSED_ static inline double NAME##_default_a_(void) { return (DEF_A); }      \
    CCGYM_MAYBE_UNUSED_ static inline double NAME##_default_b_(void) { return (DEF_B); }

/* The per-instance wrappers of an env's typed step, reset and observe
 * (the contracts ccgym_step_fn, ccgym_reset_fn, ccgym_observe_fn). */
#define CCGYM_ENV_FNS_(NAME, STATE_T, PARAMS_T, ACTION_T)                                    \
    CCGYM_CHECK_FN_(NAME, step, void, const PARAMS_T *, STATE_T *, ccgym_pcg64 *,            \
                    const ACTION_T *, float *, double *, uint8_t *)                          \
    CCGYM_CHECK_FN_(NAME, reset, void, const PARAMS_T *, STATE_T *, ccgym_pcg64 *, double,   \
                    double, float *)                                                         \
    CCGYM_CHECK_FN_(NAME, observe, void, const PARAMS_T *, const STATE_T *, int, float *)    \
    CCGYM_INLINE void NAME##_step_fn(const void *p, void *s, ccgym_pcg64 *rng,               \
                                     const void *a, float *obs, double *r, uint8_t *t)      \
    {                                                                                        \
        NAME##_step((const PARAMS_T *)p, (STATE_T *)s, rng, (const ACTION_T *)a, obs, r, t); \
    }                                                                                        \
    static void NAME##_reset_fn(const void *p, void *s, ccgym_pcg64 *rng, double a,          \
                                double b, float *obs)                                       \
    {                                                                                        \
        NAME##_reset((const PARAMS_T *)p, (STATE_T *)s, rng, a, b, obs);                     \
    }                                                                                        \
    static void NAME##_observe_fn(const void *p, const void *s, int just_reset, float *obs) \
    {                                                                                        \
        NAME##_observe((const PARAMS_T *)p, (const STATE_T *)s, just_reset, obs);            \
    }                                                                                        \
    static void NAME##_reset_range(const ccgym_batch *b, const uint8_t *mask, double a,     \
                                   double bnd, size_t begin, size_t end)                    \
    {                                                                                        \
        ccgym_drive_reset(b, mask, a, bnd, begin, end, sizeof(STATE_T), NAME##_obs_dim_,     \
                          NAME##_reset_fn, NAME##_observe_fn);                               \
    }

/* Defines NAME_def (a ccgym_env_def) for an env whose source file has,
 * before it:
 *   - NAME_step, NAME_reset and NAME_observe, with the signatures
 *       CCGYM_INLINE void NAME_step(const PARAMS_T *p, STATE_T *s,
 *           ccgym_pcg64 *rng, const ACTION_T *action, float *obs,
 *           double *reward, uint8_t *terminated);
 *       static inline void NAME_reset(const PARAMS_T *p, STATE_T *s,
 *           ccgym_pcg64 *rng, double a, double b, float *obs);
 *       static inline void NAME_observe(const PARAMS_T *p, const STATE_T *s,
 *           int just_reset, float *obs);
 *     (NAME_observe rebuilding exactly what the other two write into obs);
 *   - NAME_state_fields[] and NAME_param_fields[] (ccgym_field, CCGYM_FIELD);
 *   - NAME_params_init_values(void *p, const double *v), v the INPUT fields
 *     in order.
 * ACTION_T is int64_t with ACTION_DIM 0 and N_ACTIONS actions (discrete), or
 * float with ACTION_DIM > 0 (continuous: then also CCGYM_DECLARE_TYPED_STEP
 * before and CCGYM_DEFINE_TYPED_STEP after). The loop-critical facts are
 * arguments (constants in the loops); the rest of the def (name, reset
 * options, canvas, ...) follows as designated initializers. */
#define CCGYM_DEFINE_ENV(NAME, STATE_T, PARAMS_T, ACTION_T, ACTION_DIM, N_ACTIONS, OBS_DIM,  \
                         DEF_A, DEF_B, ...)                                                  \
    CCGYM_ENV_CONSTS_(NAME, OBS_DIM, DEF_A, DEF_B)                                           \
    CCGYM_ENV_FNS_(NAME, STATE_T, PARAMS_T, ACTION_T)                                        \
    static void NAME##_step_range(const ccgym_batch *b, const void *actions, size_t begin,  \
                                  size_t end)                                               \
    {                                                                                        \
        ccgym_drive_step(b, actions, sizeof(ACTION_T) * ((ACTION_DIM) ? (ACTION_DIM) : 1),   \
                         begin, end, sizeof(STATE_T), OBS_DIM, DEF_A, DEF_B,                 \
                         NAME##_step_fn, NAME##_reset_fn);                                   \
    }                                                                                        \
    const ccgym_env_def NAME##_def = {CCGYM_ENV_DEF_INIT_(NAME, STATE_T, PARAMS_T, ACTION_DIM,  \
                                                          N_ACTIONS, OBS_DIM, DEF_A, DEF_B,    \
                                                          NAME##_step_range),                  \
                                      __VA_ARGS__};

/* Defines NAME_typed_step_range (the def's typed_step_range, ccgym/env.h) for
 * a continuous env whose source file has, before it,
 *   CCGYM_INLINE void NAME_step_typed(const PARAMS_T *p, STATE_T *s,
 *       const double *action, int action_type, float *obs, double *reward,
 *       uint8_t *terminated);
 * (the step for double actions computed as Gymnasium computes an action of
 * that enum ccgym_action_type; an env that takes every action as a double
 * may ignore action_type): the driver's loop once per type, over double
 * actions, the type a constant in each. Use it after CCGYM_DEFINE_ENV, which
 * takes `.typed_step_range = NAME_typed_step_range` after a forward
 * declaration, CCGYM_DECLARE_TYPED_STEP(NAME). */
#define CCGYM_DECLARE_TYPED_STEP(NAME)                                                     \
    static void NAME##_typed_step_range(const ccgym_batch *b, const void *actions,         \
                                        size_t begin, size_t end)

#define CCGYM_TYPED_STEP_FN_(NAME, STATE_T, PARAMS_T, TYPE, SUFFIX)                         \
    CCGYM_INLINE void NAME##_step_##SUFFIX##_fn(const void *p, void *s, ccgym_pcg64 *rng,  \
                                                const void *a, float *obs, double *r,      \
                                                uint8_t *t)                                \
    {                                                                                      \
        (void)rng;                                                                         \
        NAME##_step_typed((const PARAMS_T *)p, (STATE_T *)s, (const double *)a, TYPE, obs, \
                          r, t);                                                           \
    }

#define CCGYM_DEFINE_TYPED_STEP(NAME, STATE_T, PARAMS_T, ACTION_DIM)                        \
    CCGYM_CHECK_FN_(NAME, step_typed, void, const PARAMS_T *, STATE_T *, const double *,   \
                    int, float *, double *, uint8_t *)                                     \
    CCGYM_TYPED_STEP_FN_(NAME, STATE_T, PARAMS_T, CCGYM_ACTION_F64, f64)                   \
    CCGYM_TYPED_STEP_FN_(NAME, STATE_T, PARAMS_T, CCGYM_ACTION_F16, f16)                   \
    CCGYM_TYPED_STEP_FN_(NAME, STATE_T, PARAMS_T, CCGYM_ACTION_PY, py)                     \
    CCGYM_DECLARE_TYPED_STEP(NAME)                                                         \
    {                                                                                      \
        const size_t size = sizeof(double) * (ACTION_DIM), ss = sizeof(STATE_T);           \
        const double da = NAME##_default_a_(), db = NAME##_default_b_();                      \
        switch (b->action_type) {                                                          \
        case CCGYM_ACTION_F16:                                                             \
            ccgym_drive_step(b, actions, size, begin, end, ss, NAME##_obs_dim_, da, db,    \
                             NAME##_step_f16_fn, NAME##_reset_fn);                         \
            break;                                                                         \
        case CCGYM_ACTION_PY:                                                              \
            ccgym_drive_step(b, actions, size, begin, end, ss, NAME##_obs_dim_, da, db,    \
                             NAME##_step_py_fn, NAME##_reset_fn);                          \
            break;                                                                         \
        default:                                                                           \
            ccgym_drive_step(b, actions, size, begin, end, ss, NAME##_obs_dim_, da, db,    \
                             NAME##_step_f64_fn, NAME##_reset_fn);                         \
        }                                                                                  \
    }

/* The def's members that CCGYM_DEFINE_ENV fills from its arguments. */
#define CCGYM_ENV_DEF_INIT_(NAME, STATE_T, PARAMS_T, ACTION_DIM, N_ACTIONS, OBS_DIM, DEF_A,     \
                            DEF_B, STEP_RANGE)                                                 \
    .api_version = CCGYM_API_VERSION, .api_minor = CCGYM_API_MINOR,                           \
    .size = sizeof(ccgym_env_def), .obs_dim = OBS_DIM, .action_dim = ACTION_DIM,              \
    .n_actions = N_ACTIONS,                                                                   \
    .state_size = sizeof(STATE_T), .params_size = sizeof(PARAMS_T), .default_a = DEF_A,       \
    .default_b = DEF_B, .state_fields = NAME##_state_fields,                                  \
    .n_state_fields = (int)(sizeof NAME##_state_fields / sizeof NAME##_state_fields[0]),      \
    .param_fields = NAME##_param_fields,                                                      \
    .n_param_fields = (int)(sizeof NAME##_param_fields / sizeof NAME##_param_fields[0]),      \
    .params_init = NAME##_params_init_values, .step_range = STEP_RANGE,                       \
    .reset_range = NAME##_reset_range, .reset_one = NAME##_reset_fn,                          \
    .observe_one = NAME##_observe_fn

#endif /* CCGYM_DEFINE_ENV_H_ */
