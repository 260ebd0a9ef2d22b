# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The front ends' rules over the core's :class:`ccgym._core.Batch`, which
knows none: what Gymnasium's envs refuse or do that the core has no reason
to (this layer imports Gymnasium's logger; the core imports nothing of
Gymnasium).

- :class:`FrontBatch`: a batch as Gymnasium's vector envs and SB3 drive it:
  the unsigned action 0 refused where Gymnasium's ``action - 1`` wraps, and
  the vector step's refusals (before the first reset, or while an instance
  is done with autoreset disabled).
- :class:`SingleBatch`: one instance as Gymnasium's single env is: its
  step and reset in one call each (``step1``, ``reset1``, bound straight to
  ``env.step``), a single action's typing, the live observation
  (MountainCarContinuous's step returns its state) and a followed list
  attribute (Acrobot's ``AVAIL_TORQUE``).
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.object cimport PyObject

from ccgym._core cimport *
from ccgym._core import env_info, int_seed_words, list_values, refused_in_place

cnp.import_array()


cdef extern from "Python.h":
    # Borrowed-pointer forms (no reference counting) for step1's list check.
    Py_ssize_t _list_size "PyList_GET_SIZE"(PyObject *o)
    PyObject *_list_item "PyList_GET_ITEM"(PyObject *o, Py_ssize_t i)
    Py_ssize_t _tuple_size "PyTuple_GET_SIZE"(PyObject *o)
    PyObject *_tuple_item "PyTuple_GET_ITEM"(PyObject *o, Py_ssize_t i)

cdef extern from "numpy/arrayobject.h":
    object PyArray_Scalar(void *data, cnp.dtype descr, object base)

cdef cnp.dtype _F64_DESCR = np.dtype(np.float64)


def _step_warn(str message):
    """Logs an env def's step_warning as Gymnasium's env logs it."""
    from gymnasium import logger
    logger.warn(message)


cdef inline bint _list_differs(PyObject *lst, PyObject *items) noexcept:
    """Whether list `lst` no longer holds exactly the objects of tuple
    `items` (None: always). Borrowed pointers; the GIL is held throughout."""
    cdef Py_ssize_t i, n = _list_size(lst)
    if items == <PyObject *>None or n != _tuple_size(items):
        return True
    for i in range(n):
        if _list_item(lst, i) != _tuple_item(items, i):
            return True
    return False


cdef class FrontBatch(Batch):
    """A :class:`ccgym._core.Batch` with the rules Gymnasium's vector envs
    (and SB3's, which wrap Gymnasium's envs) keep that the core does not:
    a discrete action 0 of an unsigned dtype is refused where the env's
    step computes ``action - 1`` in it (the def's unsigned_zero_wraps rule:
    Gymnasium would wrap it around to a push to the right), and
    ``vector_step`` refuses what a vector env refuses.

    ``reset_needed_error``: the class raised for a step before the first
    reset (default RuntimeError; the front ends set Gymnasium's ResetNeeded);
    ``done_step_error``: the class raised for a step while an instance is
    done with autoreset disabled (default RuntimeError; the vector env sets
    one that is an AssertionError too, as SyncVectorEnv's assert).
    """

    def __cinit__(self, *args, **kwargs):
        self.reset_needed_error = RuntimeError
        self.done_step_error = RuntimeError
        self._unsigned_zero_wraps = env_info(self.kind).action_rules.get(
            "unsigned_zero_wraps", False)
        self.integer_operand = None

    cdef object _converted_actions(self, actions, int *action_type):
        # Only actions that are not already int64 can be unsigned: the
        # canonical array's fast accept never comes here.
        cdef object arr = Batch._converted_actions(self, actions, action_type)
        if self._unsigned_zero_wraps:
            self._range_error(arr)  # an action out of range is told first, as for any
            self._check_unsigned_zero(actions)
        if self.integer_operand is not None and self.action_dim > 0:
            self._check_integer_operand(actions)
        return arr

    cdef int _check_integer_operand(self, actions) except -1:
        """Refuses a bool or integer continuous action while the attribute it
        meets first (the def's action operand: Pendulum's max_torque,
        MountainCarContinuous's power) holds an integer, which the front end
        sets in integer_operand: numpy then keeps the action an integer of
        its own type (np.clip(u, -max_torque, max_torque): u**2 wraps in
        int8, a uint8 action raises, last_u is an integer), where the
        kernels compute with floats."""
        try:
            kind = actions.dtype.kind if isinstance(actions, (np.ndarray, np.generic)) \
                else np.asarray(actions).dtype.kind
        except Exception:
            return 0  # the conversion above said what is wrong, or took it
        if kind in "biu":
            raise self.invalid_action_type_error(
                f"a {np.asarray(actions).dtype} action while {self.integer_operand} is an "
                f"integer: Gymnasium's {self.kind} then computes the action in its integer "
                f"type (numpy keeps int {self.integer_operand} and int action an int), which "
                f"ccgym does not model; pass float actions (the action space's float32) or "
                f"make {self.integer_operand} a float")
        return 0

    cdef int _check_unsigned_zero(self, actions) except -1:
        """Refuses an unsigned action 0 where Gymnasium's action - 1 wraps around."""
        cdef bint wraps = False
        if isinstance(actions, np.ndarray):
            wraps = actions.dtype.kind == "u" and actions.size and not actions.all()
        elif isinstance(actions, (list, tuple)):
            wraps = any(isinstance(x, np.unsignedinteger) and x == 0 for x in actions)
        if wraps:
            raise self.invalid_action_error(self._unsigned_zero_message("an action of 0"))
        return 0

    cdef str _unsigned_zero_message(self, str what):
        return (f"{what} of an unsigned dtype is refused: Gymnasium's {self.kind} computes "
                f"`action - 1` in the action's dtype, where 0 wraps around (np.uint8(0) - 1 "
                f"is 255, a push to the right) instead of -1; pass a signed integer or a "
                f"Python int")

    def vector_step(self, actions):
        """step() as a vector env does it: refuses a step before the first
        reset (reset_needed_error) and, with autoreset disabled, while an
        instance is done; returns (obs, reward, terminated, truncated, {})."""
        self._enter(False)
        try:
            if not self.has_reset or (self._b.autoreset_mode == CCGYM_AUTORESET_DISABLED
                                      and self._any_pending()):
                self._refuse_vector_step()
            return self._step(actions) + ({},)
        finally:
            self._depth -= 1

    def vector_step_then(self, on_done, actions):
        """vector_step(actions), and when an episode ended in this step,
        ``on_done(infos)`` fills the returned infos (a new dict) under the
        guard, so they are this step's whatever other threads do (as
        exclusive() runs a caller's function). What infos carry is the
        caller's: the core only tells that an episode ended. The callback
        comes first, for functools.partial; vector_step stays a
        one-argument call, as cheap as it was."""
        self._enter(False)
        try:
            if not self.has_reset or (self._b.autoreset_mode == CCGYM_AUTORESET_DISABLED
                                      and self._any_pending()):
                self._refuse_vector_step()
            out = self._step(actions)
            infos = {}
            if on_done is not None and self._any_done():
                on_done(infos)
            return out + (infos,)
        finally:
            self._depth -= 1

    cdef int _refuse_vector_step(self) except -1:
        """Raises why vector_step cannot step now (the callers test the
        cheap conditions inline: the hot path makes no call for them)."""
        if not self.has_reset:
            raise self.reset_needed_error("Cannot call step() before calling reset()")
        done = np.flatnonzero(self.pending_reset)
        raise self.done_step_error(
            f"instances {done[:10].tolist()} are done and autoreset is disabled: "
            "reset them with reset(options={'reset_mask': mask}) before stepping")


cdef class SingleBatch(FrontBatch):
    """One env instance as Gymnasium's single env is, over a
    :class:`FrontBatch` of one: ``step1`` and ``reset1`` are the env's step
    and reset in one compiled call each (the single env binds ``env.step``
    straight to ``step1``), a single action is checked as Gymnasium's
    action space checks it, a step logs the def's step_warning as
    Gymnasium does, ``follow`` keeps a list attribute's params following
    the list the user may mutate in place (Acrobot's AVAIL_TORQUE), and
    ``obs_state_reader`` makes step1's observation the env's live state
    (MountainCarContinuous's step returns its state)."""

    def __cinit__(self, *args, **kwargs):
        info = env_info(self.kind)
        self._step_warning = info.step_warning
        self.asserts_contains = info.action_rules.get("asserts_contains", False)
        self.uint64_actions = True
        self._numpy_reward = info.numpy_reward
        self._obs_reader = None
        self._live_obs = None

    cdef int _state_replaced(self) except -1:
        self._live_obs = None  # the state has new values: the obs is not it any more
        return 0

    def reset1(self, seed, a=None, b=None):
        """The single-env reset in one call: seeds instance 0 when `seed` is
        not None, resets it with bounds (a, b) (the env's defaults when None)
        and returns a copy of its observation."""
        self._enter(False)
        try:
            if seed is not None:
                self._seed_words(0, int_seed_words(seed))
            self._reset(None, a, b)
            self.has_reset = True
            return self._obs0()
        finally:
            self._depth -= 1

    # ---------------------------------------------------- a followed list
    # A list attribute (CCGYM_ATTR_LIST_ITEM: Acrobot's AVAIL_TORQUE, which
    # Gymnasium's step indexes anew each time) may be mutated in place by the
    # user: the single env has the core follow the list its step reads.
    # step1 compares the list with the items its params were made from (its
    # length and each item's identity: a list of immutable numbers changes
    # only by replacing items), a few pointer compares, no Python frame;
    # when they differ it takes the items itself (list_values) and writes
    # them into the params fields, or raises with the batch unchanged.
    def follow(self, str attr, lst, bint now=False):
        """From now on the params fields of list attribute `attr` follow list
        `lst` (None: nothing is followed): step1 (and check_follow) take its
        items whenever it no longer holds those they were taken from. With
        `now`, its items are taken at once (TypeError/ValueError, the batch
        unchanged, for items list_values refuses); else at the next step."""
        if lst is not None and type(lst) is not list:
            raise TypeError(f"follow() takes a list or None, got {type(lst).__name__}")
        if attr != self._follow_attr:
            info = env_info(self.kind)
            if attr not in info.list_attributes:
                raise ValueError(f"{self.kind} has no list attribute {attr!r}")
            self._follow_offsets = tuple(info.params_dtype.fields[f][1]
                                         for f in info.list_attributes[attr])
            self._follow_attr = attr
        if now and lst is not None:
            items = tuple(lst)
            self._enter(False)
            try:
                self._write_list(list_values(self.kind, attr, items), items)
            finally:
                self._depth -= 1
            self._watch_list = lst
            return
        self._watch_items = None
        self._watch_list = lst

    def check_follow(self):
        """Takes the followed list's items if they changed (as step1 does)."""
        if self._watch_list is not None and _list_differs(
                <PyObject *>self._watch_list, <PyObject *>self._watch_items):
            self._enter(False)
            try:
                self._refollow()
            finally:
                self._depth -= 1

    cdef int _refollow(self) except -1:
        """The followed list changed: its items into the params, or raise
        (the batch unchanged; every step asks again until it is fixed)."""
        lst = self._watch_list
        items = tuple(lst)
        try:
            values = list_values(self.kind, self._follow_attr, items)
        except (TypeError, ValueError) as e:
            self._watch_items = None
            raise refused_in_place(self._follow_attr, e) from None
        self._write_list(values, items)
        return 0

    cdef void _write_list(self, tuple values, tuple items):
        """The values into the followed fields of every params struct; items
        (the list's items they came from) become those step1 compares with."""
        cdef Py_ssize_t count = <Py_ssize_t>(self._params.nbytes // self._def.params_size)
        cdef Py_ssize_t i, k
        cdef double v
        cdef char *base
        for i in range(count):
            base = self._params.data + i * self._def.params_size
            for k in range(len(values)):
                v = values[k]
                memcpy(base + <size_t>self._follow_offsets[k], &v, sizeof(double))
        self._watch_items = items

    def step1(self, action):
        """The single-env step: checks `action` like Gymnasium's action space
        (invalid_action_error), steps instance 0 and returns (obs copy,
        reward, terminated, False, {}); with obs_is_state that obs is the
        live state until the next step (see live_obs). Logs the def's
        step_warning (gymnasium.logger.warn) when its step_warns says so
        (CartPole's step after the pole fell), and first takes the followed
        list's items when they changed (see follow())."""
        self._enter(False)
        try:
            if self._watch_list is not None and _list_differs(
                    <PyObject *>self._watch_list, <PyObject *>self._watch_items):
                self._refollow()
            if not self.has_reset:
                raise self.reset_needed_error("Cannot call env.step() before calling env.reset()")
            return self._step1(action)
        finally:
            self._depth -= 1

    cdef tuple _step1(self, action):
        cdef const void *a
        cdef int t = CCGYM_ACTION_F32
        if self.action_dim == 0:
            if type(action) is int or isinstance(action, (int, np.integer)) or (
                    type(action) is np.ndarray and (<cnp.ndarray>action).ndim == 0
                    and action.dtype.kind in "iu"):
                try:
                    self._single_action_i = action
                except OverflowError:
                    self._single_action_i = -1
                if self._single_action_i < 0 or self._single_action_i >= self.n_actions:
                    raise self.invalid_action_error(
                        f"{action!r} is outside the action space Discrete({self.n_actions})")
                if (self._single_action_i == 0 and self._unsigned_zero_wraps
                        and isinstance(action, (np.unsignedinteger, np.ndarray))
                        and action.dtype.kind == "u"):
                    raise self.invalid_action_error(self._unsigned_zero_message(repr(action)))
                if (not self.uint64_actions and isinstance(action, (np.generic, np.ndarray))
                        and action.dtype.kind == "u" and action.dtype.itemsize == 8):
                    raise self.invalid_action_type_error(
                        f"{action!r} is not in Discrete({self.n_actions}): Gymnasium's "
                        f"Discrete.contains refuses uint64 (it cannot be cast safely to "
                        f"int64); pass a signed integer or a Python int")
            else:
                raise self.invalid_action_type_error(
                    f"{action!r} ({type(action).__name__}) is not a valid action for "
                    f"Discrete({self.n_actions}): expected an integer")
            a = &self._single_action_i
        elif _canonical(action, cnp.NPY_FLOAT32, self.action_dim, -1, False):
            if self.action_dim == 1:
                self._single_action_f = (<const float *>cnp.PyArray_DATA(<cnp.ndarray>action))[0]
                a = &self._single_action_f
            else:
                memcpy(self._single_action_fv, cnp.PyArray_DATA(<cnp.ndarray>action),
                       sizeof(float) * self.action_dim)
                a = self._single_action_fv
        else:
            # Gymnasium computes in the dtype it is given (_action_rules).
            try:
                arr = self._typed_actions(action, self.action_dim, -1, False, "action", &t)
            except (TypeError, ValueError) as e:
                raise (self.invalid_action_type_error if isinstance(e, TypeError)
                       else self.invalid_action_error)(
                    f"{action!r} is not a valid action: expected an array of shape "
                    f"({self.action_dim},) of real numbers ({e})") from None
            if self.integer_operand is not None:
                self._check_integer_operand(action)
            if self.action_dim > 1:
                memcpy(self._single_action_fv if t == CCGYM_ACTION_F32
                       else <void *>self._single_action_dv, cnp.PyArray_DATA(<cnp.ndarray>arr),
                       (sizeof(float) if t == CCGYM_ACTION_F32 else sizeof(double))
                       * self.action_dim)
                a = self._single_action_fv if t == CCGYM_ACTION_F32 \
                    else <void *>self._single_action_dv
            elif t == CCGYM_ACTION_F32:
                self._single_action_f = (<const float *>cnp.PyArray_DATA(<cnp.ndarray>arr))[0]
                a = &self._single_action_f
            else:
                self._single_action_d = (<const double *>cnp.PyArray_DATA(<cnp.ndarray>arr))[0]
                a = &self._single_action_d
        if self._live_obs is not None and not self._live_unchanged():
            self._sync_live()  # may raise: nothing has changed yet
        self._run_step(a, t, 1)
        cdef cnp.npy_intp dim = self.obs_dim
        cdef cnp.ndarray out = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_FLOAT32)
        memcpy(cnp.PyArray_DATA(out), self._b.obs, sizeof(float) * self.obs_dim)
        if self._obs_reader is not None:
            self._live_obs = out
            self._live_capture()
        cdef double reward = self._b.reward[0]
        cdef bint term = self._b.terminated[0] != 0
        if self._step_warning is not None and self._def.step_warns(self._b.state, term):
            _step_warn(self._step_warning)
        if self._numpy_reward:
            return out, PyArray_Scalar(&reward, _F64_DESCR, None), term, False, {}
        return out, reward, term, False, {}

    # ------------------------------------------------ the live observation
    # As Gymnasium's MountainCarContinuous returns its `self.state` from
    # step, a single env can ask (obs_is_state) that step1's observation be
    # its state: mutating it in place changes the next step. step1 keeps the
    # obs it returned with the C state and the obs values at that moment;
    # before the next step it compares them (a few words: the step's only
    # cost) and, if only the obs changed, reads the obs as a state with the
    # env's obs_state_reader and writes the fields it gives into the C state
    # itself (or raises, leaving the env as it was). A C state changed
    # another way (a reset, set_state, a state write) means the obs no
    # longer is the state: it is dropped.
    @property
    def obs_is_state(self):
        """Whether step1's returned observation is the env's live state (see
        live_obs): an obs_state_reader is set."""
        return self._obs_reader is not None

    @property
    def obs_state_reader(self):
        """None (step1's observation is a copy), or how the env reads a state
        from a Python value (MountainCarContinuous's, whose Gymnasium step
        returns its state): reader(value) -> {C state field: value}, or
        TypeError/ValueError for a value its step refuses. A pure function
        of the value: it writes nothing (the core writes the fields)."""
        return self._obs_reader

    @obs_state_reader.setter
    def obs_state_reader(self, reader):
        if reader is not None and not callable(reader):
            raise TypeError(f"obs_state_reader must be callable or None, got {reader!r}")
        if reader is not None and (self._def.state_size > _LIVE_MAX_STATE
                                   or self._def.state_size % 8 or self.obs_dim > _LIVE_MAX_OBS):
            raise ValueError(f"{self.kind}'s state is too large for obs_is_state")
        self._obs_reader = reader
        if reader is None:
            self._live_obs = None

    @property
    def live_obs(self):
        """The observation step1 last returned while it still is the state
        (obs_is_state; the C state unchanged since but by its write-back),
        else None. Assign None to drop it (the state was given another object)."""
        if self._live_obs is None or not self.has_reset or not self._live_state_same():
            return None
        return self._live_obs

    @live_obs.setter
    def live_obs(self, value):
        if value is not None:
            raise ValueError("live_obs can only be set to None (step1 sets it)")
        self._live_obs = None

    def sync_live_obs(self):
        """Writes a live observation mutated in place into the C state now
        (as the next step1 would): for readers of the state (render,
        get_state). Raises what obs_state_reader raises (the env unchanged)."""
        self._enter(True)
        try:
            if self._live_obs is not None and not self._live_unchanged():
                self._sync_live()
        finally:
            self._depth -= 1

    cdef inline bint _live_state_same(self) noexcept:
        """Whether the C state is as when the live obs was handed out."""
        cdef const uint64_t *st = <const uint64_t *>self._b.state
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t>(self._def.state_size // 8)):
            if st[i] != self._live_state[i]:
                return False
        return True

    cdef inline bint _live_unchanged(self) noexcept:
        """Whether the live obs and the C state are both as handed out."""
        cdef cnp.ndarray o = <cnp.ndarray>self._live_obs
        if (cnp.PyArray_TYPE(o) != cnp.NPY_FLOAT32
                or not cnp.PyArray_ISNOTSWAPPED(o) or cnp.PyArray_NDIM(o) != 1
                or cnp.PyArray_DIM(o, 0) != self.obs_dim
                or cnp.PyArray_STRIDE(o, 0) != sizeof(float)):
            return False
        cdef const uint32_t *v = <const uint32_t *>cnp.PyArray_DATA(o)
        cdef Py_ssize_t i
        for i in range(self.obs_dim):
            if v[i] != self._live_vals[i]:
                return False
        return self._live_state_same()

    cdef int _sync_live(self) except -1:
        """The slow path of the live obs check: drop it (the state changed
        another way) or read it with obs_state_reader and write it back."""
        obs = self._live_obs
        if not self.has_reset or self._obs_reader is None or not self._live_state_same():
            self._live_obs = None
            return 0
        try:
            fields = self._obs_reader(obs)
        except (TypeError, ValueError) as e:
            raise refused_in_place("the observation step() returned (which is the env's "
                                   "state, as in Gymnasium)", e) from None
        view = self._mem_view(_M_STATE, True).view(env_info(self.kind).state_dtype)
        for name, value in fields.items():
            view[0][name] = value
        # The state now is the obs's values: the last observation is its.
        self._b.saved_obs = NULL
        self._observe(self._b.obs)
        # (An obs the reader took in another layout, strides say, stays the
        # state and takes this slow path at each step.)
        self._live_capture()
        return 0

    cdef inline void _live_capture(self) noexcept:
        """Records the C state and the last observation (instance 0's) as
        the live obs stands for them (word loops: no call in the step)."""
        cdef const uint64_t *st = <const uint64_t *>self._b.state
        cdef const uint32_t *ob = <const uint32_t *>self._b.obs
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t>(self._def.state_size // 8)):
            self._live_state[i] = st[i]
        for i in range(self.obs_dim):
            self._live_vals[i] = ob[i]

    cdef cnp.ndarray _obs0(self):
        cdef cnp.npy_intp dim = self.obs_dim
        cdef cnp.ndarray out = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_FLOAT32)
        memcpy(cnp.PyArray_DATA(out), self._b.obs, sizeof(float) * self.obs_dim)
        return out
