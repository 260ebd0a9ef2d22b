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


# ------------------------------------------------ the batch, for its layers
# The compiled layers above the core (ccgym/_front_core.pyx) subclass Batch
# through cimport: its C attributes and cdef methods are declared here.
cimport numpy as cnp
from cpython.object cimport PyObject
from cpython.pythread cimport PyThread_get_thread_ident

cdef extern from "Python.h":
    Py_ssize_t Py_REFCNT(PyObject *o)

# Offsets of the per-instance arrays in a Batch's block, in this order.
cdef enum:
    _M_STATE = 0
    _M_RNG = 1
    _M_START = 2
    _M_PENDING = 3
    _M_RETURN = 4
    _M_FINAL_OBS = 5
    _M_FINAL_RETURN = 6
    _M_FINAL_LENGTH = 7
    _M_REWARD = 8       # the last outputs but obs, the core's own (a step copies them out)
    _M_TERMINATED = 9
    _M_TRUNCATED = 10
    _M_SAVED_OBS = 11   # a restored snapshot's observations (ccgym_batch.saved_obs)
    _M_COUNT = 12


cdef inline bint _canonical(object obj, int typenum, Py_ssize_t d0, Py_ssize_t d1,
                            bint flat_ok) noexcept:
    """Whether obj is already what C may read as it is: exactly an ndarray of
    typenum in native byte order, aligned, C-contiguous, of shape (d0,)
    (d1 < 0) or (d0, d1) (or (d0,) too when flat_ok). The one fast accept of
    every array that reaches C; told apart without Python-level lookups."""
    if not cnp.PyArray_CheckExact(obj):
        return False
    cdef cnp.ndarray a = <cnp.ndarray>obj
    cdef int nd = cnp.PyArray_NDIM(a)
    if (cnp.PyArray_TYPE(a) != typenum or not cnp.PyArray_ISNOTSWAPPED(a)
            or not cnp.PyArray_ISALIGNED(a) or not cnp.PyArray_IS_C_CONTIGUOUS(a)
            or nd < 1 or nd > 2 or cnp.PyArray_DIM(a, 0) != d0):
        return False
    if d1 < 0:
        return nd == 1
    return (nd == 2 and cnp.PyArray_DIM(a, 1) == d1) or (nd == 1 and flat_ok)


cdef class _Block:
    cdef void *_raw
    cdef char *data
    cdef size_t nbytes


cdef class _Outputs:
    cdef _Block block
    cdef float *obs
    cdef double *reward
    cdef uint8_t *terminated
    cdef uint8_t *truncated
    cdef object v_obs, v_reward, v_terminated, v_truncated
    cdef Py_ssize_t n
    cdef int obs_dim
    cdef size_t o_reward, o_terminated, o_truncated, nbytes

    cdef cnp.ndarray _make(self, int k)
    cdef tuple handout(self)
    cdef object obs_view(self)
    cdef object readonly(self, int k)


cdef class Batch:
    cdef const ccgym_env_def *_def
    cdef ccgym_batch _b
    cdef readonly str kind
    cdef readonly str precision
    cdef readonly Py_ssize_t num_envs
    cdef readonly int obs_dim
    cdef readonly int action_dim
    cdef readonly int64_t n_actions
    cdef readonly int num_threads
    cdef readonly double default_a
    cdef readonly double default_b
    cdef public bint closed
    cdef public bint has_reset
    cdef int _depth                 # the guard: calls under way in the holding thread
    cdef unsigned long _owner       # the thread running exclusive(), else 0
    cdef public object invalid_action_error
    cdef public object invalid_action_type_error
    cdef public bint copy_outputs
    cdef _Block _params             # the params structs (one, or one per instance)
    cdef _Block _mem                # state, RNG and the per-instance bookkeeping
    cdef size_t _off[_M_COUNT + 1]
    cdef _Outputs _cur              # the outputs C writes into
    cdef _Outputs _spare            # the set handed out before (copy_outputs)
    cdef dict _action_types         # the rule table's "types" (continuous envs)
    cdef bint _square_overflows

    cdef _init_params(self, dict p)
    cdef cnp.ndarray _mem_view(self, int which, bint writeable)
    cdef void _observe(self, float *out) noexcept
    cdef inline int _enter(self, bint allow_closed) except -1:
        """Claims the batch. Callers do `self._enter(..)` then at once
        `try: ... finally: self._depth -= 1`, with no Python code between:
        nothing can leave the guard held. Inside exclusive() its thread may
        nest calls (a front end's compound operation); any other call while
        the guard is held (another thread, or a reader re-entering a step)
        gets a RuntimeError. (Inline, here: the layers' hot paths claim the
        batch without a call.)"""
        if self.closed and not allow_closed:
            raise RuntimeError("the environment is closed")
        if self._depth:
            # Nested: allowed only inside exclusive(), in the thread that runs it.
            if self._owner == 0 or self._owner != PyThread_get_thread_ident():
                raise RuntimeError("this environment is being stepped or reset by another "
                                   "thread; ccgym envs are not thread-safe: give each thread "
                                   "its own env")
        else:
            self._owner = 0
        self._depth += 1
        return 0

    cdef int _state_replaced(self) except -1
    cdef _seed_entropy(self, mask)
    cdef _seed_range(self, seed, mask)
    cdef int _check_index(self, Py_ssize_t i) except -1
    cdef void _seed_words(self, Py_ssize_t i, cnp.ndarray words) noexcept
    cdef cnp.ndarray _mask(self, mask)
    cdef int _fresh_outputs(self) except -1
    cdef int _reset(self, mask, a, b) except -1
    cdef object _actions(self, actions, int *action_type)
    cdef object _converted_actions(self, actions, int *action_type)
    cdef object _typed_actions(self, obj, Py_ssize_t d0, Py_ssize_t d1, bint flat_ok,
                               str what, int *action_type)
    cdef int _range_error(self, cnp.ndarray arr) except -1
    cdef void _run_step(self, const void *a, int action_type, int n_threads) noexcept
    cdef tuple _step(self, actions)
    cdef bint _any_done(self)
    cdef bint _any_pending(self)
    cdef _check_state_tags(self, cnp.ndarray buf)
    cdef tuple _snapshot_spec(self, str name)
    cdef _set_state(self, snap)
