# Mirrors the C headers (the public include/ccgym/*.h and the private
# src/include/ccgym/driver.h) one to one; keep them in sync.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "ccgym/rng.h" nogil:
    ctypedef struct ccgym_pcg64:
        pass
    uint64_t ccgym_pcg64_next64(ccgym_pcg64 *rng)
    double ccgym_pcg64_next_double(ccgym_pcg64 *rng)


cdef extern from "ccgym/driver.h" nogil:
    void ccgym_pcg64_seed_words(ccgym_pcg64 *rng, const uint32_t *words, size_t n_words)
    void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)
    void ccgym_pcg64_seed_range_mask(ccgym_pcg64 *rng, uint64_t base, size_t n,
                                     const uint8_t *mask, int n_threads)
    int ccgym_pcg64_seed_range_isa(ccgym_pcg64 *rng, uint64_t base, size_t n,
                                   const uint8_t *mask, int isa)


cdef extern from "ccgym/env.h" nogil:
    enum:
        CCGYM_FIELD_F64
        CCGYM_FIELD_I64
        CCGYM_FIELD_I32
        CCGYM_PARAM_INPUT
        CCGYM_PARAM_PHYSICS
        CCGYM_PARAM_BOOL
        CCGYM_PARAM_DERIVED
        CCGYM_PARAM_KEPT
        CCGYM_PARAM_NUMPY_FMA
        CCGYM_STATE_TAG
        CCGYM_ATTR_NUMPY
        CCGYM_ATTR_NARROW
        CCGYM_ATTR_TYPED
        CCGYM_ATTR_INT_PRODUCT
        CCGYM_ATTR_NO_INT32
        CCGYM_ATTR_ACTION_OPERAND
        CCGYM_ATTR_PY_INT_TAG
        CCGYM_T_PYINT
        CCGYM_ATTR_INT_DEFAULT
        CCGYM_ATTR_REBINDS
        CCGYM_ATTR_KEYWORD
        CCGYM_ATTR_BOUNDED
        CCGYM_ATTR_NEGATED
        CCGYM_ATTR_LIST_ITEM
        CCGYM_ATTR_CLASS_LEVEL
        CCGYM_RULE_ASSERTS_CONTAINS
        CCGYM_RULE_UNSIGNED_ZERO_WRAPS
        CCGYM_RULE_SQUARE_OVERFLOWS
        CCGYM_RULE_LIST_DEFERS
        CCGYM_REWARD_FLOAT
        CCGYM_REWARD_NUMPY

    ctypedef struct ccgym_field:
        const char *name
        size_t offset
        int type
        int count
        int flags
        double value
        const char *attr
        int attr_class
        const char *choices
        double lo
        double hi

    enum:
        CCGYM_API_VERSION
        CCGYM_API_MINOR
        CCGYM_MAX_OBS_DIM

    ctypedef struct ccgym_rgb:
        uint8_t r, g, b

    ctypedef struct ccgym_env_def:
        int api_version
        int api_minor
        size_t size
        const char *name
        int obs_dim
        int action_dim
        int64_t n_actions
        size_t state_size
        size_t params_size
        double default_a
        double default_b
        int reset_symmetric
        const char *reset_option_a
        const char *reset_option_b
        int canvas_width
        int canvas_height
        const char *gym_class
        int reward_type
        int action_rules
        const ccgym_field *state_fields
        int n_state_fields
        const ccgym_field *param_fields
        int n_param_fields
        void (*params_init)(void *params, const double *values) noexcept nogil
        const void *step_range  # a function pointer in C; only compared here
        const void *reset_range
        const void *reset_one
        const void *observe_one
        const void *typed_step_range
        const float *obs_low
        const float *obs_high
        const float *action_low
        const float *action_high
        const void *paint
        int render_fps
        const char *step_warning
        int (*step_warns)(const void *state, int terminated) noexcept nogil


cdef extern from "ccgym/driver.h" nogil:
    # A stock env's def (private): the public def and its own members.
    ctypedef struct ccgym_stock_def:
        ccgym_env_def public_def "def"  # (def: a Python keyword)
        const ccgym_stock_def *fast
        const void *bare_range
        const void *exact_lanes_block  # a function pointer in C; only compared with NULL
        const void *fast_block  # a function pointer in C; only compared with NULL

    const ccgym_env_def **ccgym_envs  # const ccgym_env_def *const ccgym_envs[] in C
    const ccgym_stock_def **ccgym_stock_envs
    const int ccgym_num_envs
    const ccgym_stock_def *ccgym_stock_of(const ccgym_env_def *d)


cdef extern from "ccgym/driver.h" nogil:
    enum:
        CCGYM_AUTORESET_NEXT_STEP
        CCGYM_AUTORESET_SAME_STEP
        CCGYM_AUTORESET_DISABLED
        CCGYM_ACTION_F32
        CCGYM_ACTION_F64
        CCGYM_ACTION_F16
        CCGYM_ACTION_PY

    ctypedef struct ccgym_batch:
        size_t n
        void *state
        const void *params
        size_t params_stride
        ccgym_pcg64 *rng
        int64_t *episode_start
        uint8_t *pending_reset
        double *episode_return
        int64_t max_episode_steps
        int64_t t
        int64_t start_bound
        int64_t start_scan
        int check_truncation
        int autoreset_mode
        float *obs
        double *reward
        uint8_t *terminated
        uint8_t *truncated
        double *out_reward
        uint8_t *out_terminated
        uint8_t *out_truncated
        float *saved_obs
        float *final_obs
        double *final_return
        int64_t *final_length
        int action_type

    void ccgym_batch_step(const ccgym_env_def *d, ccgym_batch *b, const void *actions,
                          int n_threads)
    void ccgym_batch_reset(const ccgym_env_def *d, ccgym_batch *b, const uint8_t *mask,
                           double a, double bnd, int n_threads)
    void ccgym_batch_observe(const ccgym_env_def *d, const ccgym_batch *b, float *out)
