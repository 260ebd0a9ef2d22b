# The front ends' layer over the core's Batch (see _front_core.pyx).
from libc.stdint cimport int64_t, uint32_t, uint64_t

from ccgym._core cimport Batch, CCGYM_MAX_OBS_DIM

cimport numpy as cnp


# Bounds of a live observation (SingleBatch.obs_is_state): the state it
# stands for and its values are kept in the SingleBatch itself.
cdef enum:
    _LIVE_MAX_STATE = 64
    _LIVE_MAX_STATE_WORDS = 8
    _LIVE_MAX_OBS = 8


cdef class FrontBatch(Batch):
    cdef public object reset_needed_error
    cdef public object done_step_error    # vector_step on a done instance, DISABLED mode
    cdef bint _unsigned_zero_wraps
    # The action operand's name while it holds an integer (see
    # _check_integer_operand), else None.
    cdef public object integer_operand

    cdef int _check_unsigned_zero(self, actions) except -1
    cdef int _check_integer_operand(self, actions) except -1
    cdef str _unsigned_zero_message(self, str what)
    cdef int _refuse_vector_step(self) except -1


cdef class SingleBatch(FrontBatch):
    cdef object _step_warning       # the def's step_warning (str), or None
    cdef object _watch_list         # see follow(): a list step1 compares first
    cdef tuple _watch_items
    cdef str _follow_attr
    cdef tuple _follow_offsets      # its items' params field offsets
    cdef public bint uint64_actions   # the single env's step takes np.uint64 actions
    cdef readonly bint asserts_contains
    cdef bint _numpy_reward
    cdef int64_t _single_action_i
    cdef float _single_action_f
    cdef double _single_action_d
    # A single action of action_dim > 1 (a registered def's; at most
    # CCGYM_MAX_OBS_DIM, register_c_def's bound, which sizes these).
    cdef float _single_action_fv[CCGYM_MAX_OBS_DIM]
    cdef double _single_action_dv[CCGYM_MAX_OBS_DIM]
    # The live observation (obs_is_state): step1's last returned obs, with
    # the C state and the obs values as they were when it was handed out.
    cdef object _obs_reader         # see obs_state_reader
    cdef object _live_obs
    cdef uint64_t _live_state[_LIVE_MAX_STATE_WORDS]
    cdef uint32_t _live_vals[_LIVE_MAX_OBS]

    cdef int _refollow(self) except -1
    cdef void _write_list(self, tuple values, tuple items)
    cdef tuple _step1(self, action)
    cdef bint _live_state_same(self) noexcept
    cdef bint _live_unchanged(self) noexcept
    cdef int _sync_live(self) except -1
    cdef void _live_capture(self) noexcept
    cdef cnp.ndarray _obs0(self)
