# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled core of ccgym: one generic batch of N environment instances over
the C kernels. The Python front ends (ccgym.envs, ccgym.vector, ccgym.sb3)
are thin layers over :class:`Batch`."""

import os
import sys

import numpy as np
from gymnasium.error import InvalidAction, ResetNeeded

cimport numpy as cnp
from libc.stdint cimport INT64_MIN, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memcpy
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM


cdef extern from "Python.h":
    Py_ssize_t Py_REFCNT(PyObject *o)

from ccgym._core cimport *

cnp.import_array()

AUTORESET_NEXT_STEP = CCGYM_AUTORESET_NEXT_STEP
AUTORESET_SAME_STEP = CCGYM_AUTORESET_SAME_STEP
AUTORESET_DISABLED = CCGYM_AUTORESET_DISABLED



cdef extern from "ccgym/driver.h" nogil:
    int ccgym_discrete_in_range(const int64_t *a, size_t n, int64_t n_actions)

cdef extern from "ccgym/fastmath.h" nogil:
    const char *ccgym_fast_isa()
    int ccgym_fast_use_isa(int isa)
    int ccgym_fast_sincos_array(const double *x, double *s, double *c, size_t n, int isa)

PRECISIONS = ("exact", "fast")


# ------------------------------------------------------------------ env table
# Everything below is read from the C registry (ccgym_envs[], include/ccgym/env.h):
# each env's facts are stated once, in its own source file (src/<env>.c).

_FIELD_FORMATS = {CCGYM_FIELD_F64: "f8", CCGYM_FIELD_I64: "i8", CCGYM_FIELD_I32: "i4"}


cdef _field_dtype(const ccgym_field *fields, int n, size_t itemsize):
    """A numpy structured dtype with the C struct's layout."""
    names, formats, offsets = [], [], []
    cdef int k
    for k in range(n):
        names.append(fields[k].name.decode())
        fmt = _FIELD_FORMATS[fields[k].type]
        formats.append(fmt if fields[k].count == 1 else (fmt, (fields[k].count,)))
        offsets.append(fields[k].offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": itemsize})


class EnvInfo:
    """One env's definition, as its C def states it (read-only).

    ``kind``, ``obs_dim``, ``action_dim`` (0: discrete), ``n_actions``,
    ``state_size`` and ``params_size`` (bytes), ``state_dtype`` and
    ``params_dtype`` (numpy structured dtypes with the C layouts),
    ``param_fields`` (params_init's inputs, in order), ``param_defaults``
    (Gymnasium's default of each input; switches as bool), ``physics_fields``
    (the inputs a vector env takes per instance), ``bool_fields``,
    ``derived_fields`` (computed by params_init), ``default_reset`` (the
    reset bounds (a, b)), ``reset_options`` (their names in
    ``reset(options=...)``), ``reset_symmetric`` ((a, b) are (x_init, y_init):
    uniform in [-a, a] x [-b, b]), ``canvas_size`` ((height, width) of the
    render screen), ``state_float_fields`` (the leading float64 state
    fields) and ``state_fill`` (the value of each other state field in a
    state given by those alone)."""

    __slots__ = ("kind", "index", "obs_dim", "action_dim", "n_actions", "state_size",
                 "params_size", "state_dtype", "params_dtype", "param_fields",
                 "param_defaults", "physics_fields", "bool_fields", "derived_fields",
                 "default_reset", "reset_options", "reset_symmetric", "canvas_size",
                 "state_float_fields", "state_fill", "has_fast")

    def __setattr__(self, name, value):
        raise AttributeError("EnvInfo is read-only")

    def __repr__(self):
        return f"EnvInfo({self.kind!r})"


cdef object _env_info(int index):
    cdef const ccgym_env_def *d = ccgym_envs[index]
    cdef int k
    info = EnvInfo.__new__(EnvInfo)
    put = lambda name, value: object.__setattr__(info, name, value)
    put("kind", d.name.decode())
    put("index", index)
    put("obs_dim", d.obs_dim)
    put("action_dim", d.action_dim)
    put("n_actions", d.n_actions)
    put("state_size", d.state_size)
    put("params_size", d.params_size)
    put("state_dtype", _field_dtype(d.state_fields, d.n_state_fields, d.state_size))
    put("params_dtype", _field_dtype(d.param_fields, d.n_param_fields, d.params_size))
    inputs, defaults, physics, bools, derived = [], {}, [], [], []
    for k in range(d.n_param_fields):
        name = d.param_fields[k].name.decode()
        flags = d.param_fields[k].flags
        if flags & CCGYM_PARAM_INPUT:
            inputs.append(name)
            value = d.param_fields[k].value
            defaults[name] = bool(value) if flags & CCGYM_PARAM_BOOL else value
            if flags & CCGYM_PARAM_PHYSICS:
                physics.append(name)
            if flags & CCGYM_PARAM_BOOL:
                bools.append(name)
        else:
            derived.append(name)
    put("param_fields", tuple(inputs))
    put("param_defaults", defaults)
    put("physics_fields", tuple(physics))
    put("bool_fields", tuple(bools))
    put("derived_fields", tuple(derived))
    put("default_reset", (d.default_a, d.default_b))
    put("reset_options", (d.reset_option_a.decode(), d.reset_option_b.decode()))
    put("reset_symmetric", bool(d.reset_symmetric))
    put("canvas_size", (d.canvas_height, d.canvas_width))
    floats, fill = [], {}
    for k in range(d.n_state_fields):
        name = d.state_fields[k].name.decode()
        if d.state_fields[k].type == CCGYM_FIELD_F64 and not fill:
            floats.append(name)
        else:
            value = d.state_fields[k].value
            fill[name] = value if d.state_fields[k].type == CCGYM_FIELD_F64 else int(value)
    put("state_float_fields", tuple(floats))
    put("state_fill", fill)
    put("has_fast", d.fast != d and d.fast.step_range != d.step_range)
    return info


ENV_INFO = {}
for _k in range(ccgym_num_envs):
    _info = _env_info(_k)
    ENV_INFO[_info.kind] = _info
del _k, _info
# The env kinds, in the registry's order (an env's index is its position).
ENV_KINDS = tuple(ENV_INFO)
# The parameters each kernel's params_init takes, in order.
PARAM_FIELDS = {kind: info.param_fields for kind, info in ENV_INFO.items()}


def env_info(str kind):
    """The EnvInfo of `kind`; ValueError for an unknown kind."""
    try:
        return ENV_INFO[kind]
    except KeyError:
        raise ValueError(f"unknown env kind {kind!r}; expected one of {ENV_KINDS}") from None


def state_dtype(str kind):
    """The numpy structured dtype of one instance's C state struct."""
    return env_info(kind).state_dtype


cdef const ccgym_env_def *_env_def(str kind, str precision="exact") except NULL:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    cdef const ccgym_env_def *d = ccgym_envs[env_info(kind).index]
    # An env without fast kernels (MountainCar's step has one cos and
    # branchy clipping) has a fast def that runs the exact step.
    return d.fast if precision == "fast" else d


FAST_ISAS = ("generic", "avx2", "avx512")
# Detect the CPU (and read CCGYM_FAST_ISA) now, under the import lock: the C
# side caches the answer in plain ints, which threads stepping without the
# GIL then only read.
ccgym_fast_isa()


def fast_isa():
    """The instruction set precision="fast" uses: "avx512", "avx2" or "generic".
    The best this CPU has, unless the environment variable CCGYM_FAST_ISA
    names a lower one or use_fast_isa chose one."""
    return ccgym_fast_isa().decode()


def use_fast_isa(isa):
    """Makes precision="fast" use `isa` ("generic", "avx2", "avx512", or None
    for the best here) from now on, in every env. For tests and benchmarks:
    call it between steps, not while another thread steps. Raises ValueError
    when this CPU or build lacks the isa."""
    cdef int k = -1 if isa is None else (FAST_ISAS.index(isa) if isa in FAST_ISAS else -2)
    if k == -2:
        raise ValueError(f"isa must be one of {FAST_ISAS} or None, got {isa!r}")
    if ccgym_fast_use_isa(k) != 0:
        raise ValueError(f"the {isa} fast kernels are not available on this CPU or build")


def fast_sincos(x, int isa=-1):
    """(sin, cos) of a float64 array by the fast mode's kernels (isa: 0 generic,
    1 avx2, 2 avx512, -1 the one in use). For tests; raises ValueError when
    this CPU or build lacks the isa."""
    cdef cnp.ndarray xa = np.ascontiguousarray(x, dtype=np.float64).ravel()
    cdef cnp.ndarray s = np.empty_like(xa)
    cdef cnp.ndarray c = np.empty_like(xa)
    cdef size_t n = xa.shape[0]
    cdef int rc
    with nogil:
        rc = ccgym_fast_sincos_array(<const double *>cnp.PyArray_DATA(xa),
                                     <double *>cnp.PyArray_DATA(s),
                                     <double *>cnp.PyArray_DATA(c), n, isa)
    if rc != 0:
        raise ValueError(f"fast kernels for isa {isa} are not available here")
    return s, c


# Reusing handed-out output arrays rests on reference counts, which a
# free-threaded build does not keep in one plain field: there it is off.
_REUSE_OUTPUTS = getattr(sys, "_is_gil_enabled", lambda: True)()


def _aligned_zeros(Py_ssize_t nbytes, Py_ssize_t align=64):
    """A zeroed uint8 buffer of nbytes whose data starts on an `align` boundary."""
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    cdef uintptr_t addr = <uintptr_t>cnp.PyArray_DATA(raw)
    cdef Py_ssize_t off = (align - <Py_ssize_t>(addr % align)) % align
    return raw[off:off + nbytes]


def int_seed_words(seed):
    """The uint32 entropy words numpy's SeedSequence takes from a non-negative int."""
    if seed < 0:
        raise ValueError(f"Seed must be greater or equal to zero, actual value: {seed}")
    words = []
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return np.array(words or [0], dtype=np.uint32)


cdef class Batch:
    """N instances of one classic-control env, stepped and reset by C.

    Buffers (numpy arrays, allocated once and overwritten in place):
    ``obs`` (N, obs_dim) float32, ``reward`` (N,) float64, ``terminated`` and
    ``truncated`` (N,) bool, ``final_obs`` (N, obs_dim) float32 (SAME_STEP
    autoreset: the observation before the reset), ``final_return`` and
    ``final_length`` (N,) (return and length of an episode that ended this
    step), ``episode_return`` (the running episode's return),
    ``episode_start`` (the step count at each instance's last reset),
    ``pending_reset`` (done, not yet reset). ``elapsed`` (steps since reset,
    also ``episode_length``) is computed from ``episode_start`` on each read:
    the C step keeps no per-instance step counter.

    ``precision`` (read-only): "exact" (bit-exact with Gymnasium) or "fast"
    (vectorised kernels within the bound documented in ccgym.vector).
    """

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
    cdef bint _busy
    cdef public object after_terminated_hook
    cdef public object infos_hook
    cdef public bint copy_outputs
    cdef readonly object params_buffer
    cdef readonly object state_buffer
    cdef readonly object rng_state
    cdef readonly object obs, reward, terminated, truncated, final_obs
    cdef readonly object final_return, final_length
    cdef readonly object episode_return, episode_start, pending_reset
    cdef tuple _spare  # the output arrays handed out by the step before last
    cdef int64_t _single_action_i
    cdef float _single_action_f

    def __cinit__(self, str kind, Py_ssize_t num_envs, dict params, int64_t max_episode_steps=0,
                  int autoreset_mode=CCGYM_AUTORESET_NEXT_STEP, int num_threads=1,
                  str precision="exact"):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if autoreset_mode not in (CCGYM_AUTORESET_NEXT_STEP, CCGYM_AUTORESET_SAME_STEP,
                                  CCGYM_AUTORESET_DISABLED):
            raise ValueError(f"unknown autoreset mode {autoreset_mode}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be at least 1, got {num_threads}")
        self._def = _env_def(kind, precision)
        # Bounds check: buffer sizes are num_envs * (at most a few hundred
        # bytes); beyond 2**52 instances those products overflow Py_ssize_t
        # (UB) or size_t (a silently tiny buffer). No machine has that memory.
        if num_envs > 2 ** 52:
            raise MemoryError(f"num_envs={num_envs} is too large to allocate")
        self.kind = kind
        self.precision = precision
        self.num_envs = num_envs
        self.obs_dim = self._def.obs_dim
        self.action_dim = self._def.action_dim
        self.n_actions = self._def.n_actions
        self.num_threads = num_threads
        self.default_a = self._def.default_a
        self.default_b = self._def.default_b
        self.closed = False
        self.has_reset = False
        self.after_terminated_hook = None
        self.infos_hook = None
        self.copy_outputs = True

        self._init_params(params)
        self.state_buffer = _aligned_zeros(num_envs * self._def.state_size)
        # PCG64 state and increment as little-endian 128-bit integers:
        # columns (state_lo, state_hi, inc_lo, inc_hi).
        self.rng_state = _aligned_zeros(num_envs * 32).view(np.uint64).reshape(num_envs, 4)
        self.obs = np.zeros((num_envs, self.obs_dim), dtype=np.float32)
        self.final_obs = np.zeros((num_envs, self.obs_dim), dtype=np.float32)
        self.reward = np.zeros(num_envs, dtype=np.float64)
        self.terminated = np.zeros(num_envs, dtype=np.bool_)
        self.truncated = np.zeros(num_envs, dtype=np.bool_)
        self.final_return = np.zeros(num_envs, dtype=np.float64)
        self.final_length = np.zeros(num_envs, dtype=np.int64)
        self.episode_return = np.zeros(num_envs, dtype=np.float64)
        self.episode_start = np.zeros(num_envs, dtype=np.int64)
        self.pending_reset = np.zeros(num_envs, dtype=np.bool_)

        self._b.n = num_envs
        self._b.state = cnp.PyArray_DATA(self.state_buffer)
        self._b.rng = <ccgym_pcg64 *>cnp.PyArray_DATA(self.rng_state)
        self._b.episode_start = <int64_t *>cnp.PyArray_DATA(self.episode_start)
        self._b.t = 0
        self._b.start_bound = 0
        self._b.check_truncation = 0
        self._b.pending_reset = <uint8_t *>cnp.PyArray_DATA(self.pending_reset)
        self._b.episode_return = <double *>cnp.PyArray_DATA(self.episode_return)
        self._b.max_episode_steps = max_episode_steps
        self._b.autoreset_mode = autoreset_mode
        self._b.obs = <float *>cnp.PyArray_DATA(self.obs)
        self._b.reward = <double *>cnp.PyArray_DATA(self.reward)
        self._b.terminated = <uint8_t *>cnp.PyArray_DATA(self.terminated)
        self._b.truncated = <uint8_t *>cnp.PyArray_DATA(self.truncated)
        self._b.final_obs = <float *>cnp.PyArray_DATA(self.final_obs)
        self._b.final_return = <double *>cnp.PyArray_DATA(self.final_return)
        self._b.final_length = <int64_t *>cnp.PyArray_DATA(self.final_length)
        self.seed_entropy()

    cdef _init_params(self, dict p):
        fields = PARAM_FIELDS[self.kind]
        missing = [f for f in fields if f not in p]
        if missing:
            raise KeyError(f"missing {self.kind} parameters: {missing}")
        per_instance = any(np.ndim(p[f]) > 0 for f in fields)
        cdef Py_ssize_t count = self.num_envs if per_instance else 1
        columns = []
        for f in fields:
            col = np.asarray(p[f], dtype=np.float64)
            if col.ndim > 1 or (col.ndim == 1 and col.shape[0] != self.num_envs):
                raise ValueError(
                    f"parameter {f!r} must be a scalar or an array of length "
                    f"num_envs={self.num_envs}, got shape {col.shape}")
            columns.append(np.broadcast_to(col, (count,)))
        cdef double[:, ::1] v = np.ascontiguousarray(np.stack(columns, axis=1))
        buf = _aligned_zeros(count * self._def.params_size)
        cdef char *base = <char *>cnp.PyArray_DATA(buf)
        cdef size_t size = self._def.params_size
        cdef Py_ssize_t i
        for i in range(count):
            self._def.params_init(base + i * size, &v[i, 0])
        self.params_buffer = buf
        self._b.params = base
        self._b.params_stride = size if per_instance else 0

    def set_params(self, dict params):
        """Replaces the physical parameters (takes effect from the next step)."""
        self._enter()
        try:
            self._init_params(params)
        finally:
            self._busy = False

    @property
    def elapsed(self):
        """Steps since each instance's last reset: a new int64 array, computed
        from episode_start and the batch's step count."""
        return np.int64(self._b.t) - self.episode_start

    @property
    def episode_length(self):
        """Length of each instance's current episode: its elapsed steps (a new array)."""
        return self.elapsed

    @property
    def max_episode_steps(self):
        return self._b.max_episode_steps

    @property
    def autoreset_mode(self):
        return self._b.autoreset_mode

    cdef inline int _check_open(self) except -1:
        if self.closed:
            raise RuntimeError("the environment is closed")
        if self._busy:
            raise RuntimeError(
                "this environment is being stepped or reset by another thread; ccgym envs "
                "are not thread-safe: give each thread its own env")
        return 0

    cdef inline int _enter(self) except -1:
        """Claims the batch for a call that changes it. The flag goes up before
        any validation (which may run Python code or release the GIL) and the
        caller lowers it in a finally: a second thread gets a RuntimeError."""
        self._check_open()
        self._busy = True
        return 0

    # ---------------------------------------------------------------- seeding
    def seed_entropy(self, mask=None):
        """Seeds instances (all, or where mask is True) from OS entropy, as
        numpy's SeedSequence() does with no seed."""
        self._enter()
        try:
            self._seed_entropy(mask)
        finally:
            self._busy = False

    def _seed_entropy(self, mask):
        cdef cnp.ndarray words = np.frombuffer(os.urandom(16 * self.num_envs),
                                               dtype=np.uint32).reshape(self.num_envs, 4).copy()
        cdef const uint32_t *w = <const uint32_t *>cnp.PyArray_DATA(words)
        cdef uint8_t *m = NULL
        cdef cnp.ndarray marr
        if mask is not None:
            marr = self._as_mask(mask)
            m = <uint8_t *>cnp.PyArray_DATA(marr)
        cdef Py_ssize_t i
        with nogil:
            for i in range(self._b.n):
                if m == NULL or m[i]:
                    ccgym_pcg64_seed_words(&self._b.rng[i], w + 4 * i, 4)

    def seed_range(self, seed, mask=None):
        """Seeds instance i with seed + i (all, or where mask is True)."""
        self._enter()
        try:
            self._seed_range(seed, mask)
        finally:
            self._busy = False

    def _seed_range(self, seed, mask):
        cdef Py_ssize_t i
        cdef cnp.ndarray marr
        cdef const uint8_t *m
        if seed < 0:
            raise ValueError(f"Seed must be greater or equal to zero, actual value: {seed}")
        cdef uint64_t base
        if mask is None and seed + self.num_envs <= 2 ** 64:
            base = seed
            with nogil:
                ccgym_pcg64_seed_range(self._b.rng, base, self._b.n)
            return
        marr = self._as_mask(mask) if mask is not None else np.ones(self.num_envs, np.bool_)
        m = <const uint8_t *>cnp.PyArray_DATA(marr)
        for i in range(self.num_envs):
            if m[i]:
                self._seed_one(i, seed + i)

    cdef int _check_index(self, Py_ssize_t i) except -1:
        if not 0 <= i < self.num_envs:
            raise IndexError(f"instance index {i} out of range for {self.num_envs} instances")
        return 0

    def seed_one(self, Py_ssize_t i, seed):
        """Seeds instance i with an integer seed (numpy SeedSequence semantics)."""
        self._check_index(i)
        self._enter()
        try:
            self._seed_one(i, seed)
        finally:
            self._busy = False

    cdef _seed_one(self, Py_ssize_t i, seed):
        cdef cnp.ndarray words = int_seed_words(seed)
        ccgym_pcg64_seed_words(&self._b.rng[i], <const uint32_t *>cnp.PyArray_DATA(words),
                               words.shape[0])

    def get_rng(self, Py_ssize_t i):
        """(state, inc) of instance i's PCG64 as Python ints, numpy's convention."""
        self._check_index(i)
        row = self.rng_state[i]
        return (int(row[0]) | (int(row[1]) << 64), int(row[2]) | (int(row[3]) << 64))

    def set_rng(self, Py_ssize_t i, state, inc):
        """Sets instance i's PCG64 state and increment (Python ints)."""
        self._check_index(i)
        mask = (1 << 64) - 1
        self.rng_state[i] = (state & mask, state >> 64, inc & mask, inc >> 64)

    def rng_uniform(self, Py_ssize_t i, Py_ssize_t count):
        """Draws `count` next_double values from instance i (for tests)."""
        self._check_index(i)
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        out = np.empty(count, dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t k
        for k in range(count):
            o[k] = ccgym_pcg64_next_double(&self._b.rng[i])
        return out

    # ------------------------------------------------------------ reset, step
    cdef cnp.ndarray _as_mask(self, mask):
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            raise TypeError(f"reset_mask must be a numpy array of dtype bool, got {mask!r}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"reset_mask must have shape ({self.num_envs},), got {mask.shape}")
        return np.ascontiguousarray(mask)

    def reset(self, mask=None, a=None, b=None):
        """Resets all instances (or where mask is True) with reset bounds (a, b),
        the env's defaults when None."""
        self._enter()
        try:
            self._reset(mask, a, b)
        finally:
            self._busy = False

    def reset1(self, seed, a=None, b=None):
        """The single-env reset in one call (so that no call from another
        thread lands in the middle): seeds instance 0 when `seed` is not
        None, resets it with bounds (a, b) (the env's defaults when None) and
        returns a copy of its observation."""
        self._enter()
        try:
            if seed is not None:
                self._seed_one(0, seed)
            self._reset(None, a, b)
            self.has_reset = True
            return self.obs_single()
        finally:
            self._busy = False

    cdef int _reset(self, mask, a, b) except -1:
        cdef double da = self._def.default_a if a is None else a
        cdef double db = self._def.default_b if b is None else b
        cdef cnp.ndarray marr
        cdef const uint8_t *m = NULL
        if mask is not None:
            marr = self._as_mask(mask)
            m = <const uint8_t *>cnp.PyArray_DATA(marr)
        if self.copy_outputs:
            self._new_outputs(True)  # a reset must not write into handed-out arrays
        with nogil:
            ccgym_batch_reset(self._def, &self._b, m, da, db, self.num_threads)
        return 0

    cdef cnp.ndarray _discrete_actions(self, actions):
        if isinstance(actions, np.ndarray):
            arr = actions
        else:
            try:
                arr = np.asarray(actions)
            except Exception as e:  # ragged lists and the like
                raise TypeError(f"actions must be an array of integers: {e}") from None
        if arr.dtype.kind not in "iu":  # bool too: Gymnasium's Discrete rejects np.bool_
            raise TypeError(
                f"discrete actions must be integers, got an array of dtype {arr.dtype}")
        if arr.ndim != 1 or arr.shape[0] != self.num_envs:
            raise ValueError(
                f"expected actions of shape ({self.num_envs},), got {arr.shape}")
        if arr.dtype != np.int64 or not arr.flags.c_contiguous:
            if arr.dtype.kind == "u" and arr.size and arr.max() > self.n_actions:
                raise ValueError(f"actions out of range [0, {self.n_actions}): {arr.max()}")
            arr = np.ascontiguousarray(arr, dtype=np.int64)
        cdef const int64_t *a = <const int64_t *>cnp.PyArray_DATA(<cnp.ndarray>arr)
        cdef Py_ssize_t i, bad = -1
        cdef int64_t n = self.n_actions
        with nogil:
            if not ccgym_discrete_in_range(a, self._b.n, n):
                for i in range(self._b.n):
                    if a[i] < 0 or a[i] >= n:
                        bad = i
                        break
        if bad >= 0:
            raise ValueError(
                f"action {a[bad]} at index {bad} is outside the action space "
                f"Discrete({self.n_actions})")
        return arr

    cdef cnp.ndarray _continuous_actions(self, actions):
        if isinstance(actions, np.ndarray):
            arr = actions
        else:
            try:
                arr = np.asarray(actions)
            except Exception as e:
                raise TypeError(f"actions must be an array of floats: {e}") from None
        if arr.dtype.kind not in "fiu":
            raise TypeError(
                f"continuous actions must be real numbers, got an array of dtype {arr.dtype}")
        expected = (self.num_envs, self.action_dim)
        if arr.shape != expected and not (self.action_dim == 1 and arr.shape == expected[:1]):
            raise ValueError(f"expected actions of shape {expected}, got {arr.shape}")
        if arr.dtype != np.float32 or not arr.flags.c_contiguous:
            with np.errstate(over="ignore"):
                arr = np.ascontiguousarray(arr, dtype=np.float32)
        return arr

    def check_actions(self, actions):
        """Validates a batch of actions and returns them as a contiguous array
        of the kernel's dtype (int64 or float32)."""
        if self.action_dim == 0:
            return self._discrete_actions(actions)
        return self._continuous_actions(actions)

    def step(self, actions):
        """Steps every instance with `actions` (validated), filling the buffers."""
        cdef cnp.ndarray arr
        cdef const void *a
        self._enter()
        try:
            arr = self.check_actions(actions)
            a = cnp.PyArray_DATA(arr)
            with nogil:
                ccgym_batch_step(self._def, &self._b, a, self.num_threads)
        finally:
            self._busy = False

    def step_unchecked(self, cnp.ndarray actions):
        """Steps with an array returned by check_actions: only its dtype, size
        and layout are checked, not the action values (for benchmarks)."""
        cdef int typenum = cnp.NPY_INT64 if self.action_dim == 0 else cnp.NPY_FLOAT32
        cdef Py_ssize_t size = self.num_envs * (self.action_dim if self.action_dim else 1)
        if (cnp.PyArray_TYPE(actions) != typenum or cnp.PyArray_SIZE(actions) != size
                or not cnp.PyArray_IS_C_CONTIGUOUS(actions)):
            raise ValueError("step_unchecked takes the array check_actions returned")
        cdef const void *a = cnp.PyArray_DATA(actions)
        self._enter()
        with nogil:
            ccgym_batch_step(self._def, &self._b, a, self.num_threads)
        self._busy = False

    def step_collect(self, actions, bint copy=True):
        """Validates and steps every instance; returns (obs, reward, terminated,
        truncated): fresh copies, or the internal buffers when copy is False."""
        cdef cnp.ndarray arr
        cdef const void *a
        self._enter()
        try:
            arr = self._validated(actions)
            a = cnp.PyArray_DATA(arr)
            if copy:
                # C writes every output of every instance on a step, so it can
                # write straight into fresh arrays that are then the caller's.
                self._new_outputs(False)
            with nogil:
                ccgym_batch_step(self._def, &self._b, a, self.num_threads)
        finally:
            self._busy = False
        return self.obs, self.reward, self.terminated, self.truncated

    cdef cnp.ndarray _validated(self, actions):
        cdef cnp.ndarray arr
        if (self.action_dim == 0 and type(actions) is np.ndarray
                and cnp.PyArray_TYPE(<cnp.ndarray>actions) == cnp.NPY_INT64
                and cnp.PyArray_NDIM(<cnp.ndarray>actions) == 1
                and cnp.PyArray_DIM(<cnp.ndarray>actions, 0) == self.num_envs
                and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>actions)):
            arr = <cnp.ndarray>actions
            if not ccgym_discrete_in_range(<const int64_t *>cnp.PyArray_DATA(arr), self._b.n,
                                           self.n_actions):
                self._discrete_actions(actions)  # raises with the details
        elif self.action_dim > 0 and self._ready_continuous(actions):
            arr = <cnp.ndarray>actions  # what _continuous_actions returns as it is
        else:
            arr = self.check_actions(actions)
        return arr

    cdef inline bint _ready_continuous(self, actions):
        """Whether `actions` is already a C-contiguous float32 array of shape
        (N, action_dim) (or (N,) when action_dim is 1): the common case, told
        apart without Python-level attribute lookups."""
        if type(actions) is not np.ndarray:
            return False
        cdef cnp.ndarray a = <cnp.ndarray>actions
        cdef int nd = cnp.PyArray_NDIM(a)
        return (cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT32 and cnp.PyArray_IS_C_CONTIGUOUS(a)
                and (nd == 1 or nd == 2) and cnp.PyArray_DIM(a, 0) == self.num_envs
                and ((nd == 2 and cnp.PyArray_DIM(a, 1) == self.action_dim)
                     or (nd == 1 and self.action_dim == 1)))

    cdef _new_outputs(self, bint keep):
        """Points the batch at new obs/reward/terminated/truncated arrays
        (copies of the current ones when keep), leaving the arrays handed out
        before untouched by later steps and resets. A step (not keep) instead
        reuses arrays nothing but this core refers to any more (no caller,
        no view of them): the current ones when the caller let go of them at
        once (written again in place, still in cache), else those handed out
        the step before last. Nobody can see the difference, and the
        allocations and page faults are saved."""
        cdef cnp.npy_intp dims[2]
        dims[0] = self.num_envs
        dims[1] = self.obs_dim
        cdef PyObject *arrays[4]
        if not keep and _REUSE_OUTPUTS:
            arrays[0] = <PyObject *>self.obs
            arrays[1] = <PyObject *>self.reward
            arrays[2] = <PyObject *>self.terminated
            arrays[3] = <PyObject *>self.truncated
            if self._unreferenced(arrays):
                return
        cdef tuple handed_out = (self.obs, self.reward, self.terminated, self.truncated)
        if keep:
            self.obs = cnp.PyArray_NewCopy(<cnp.ndarray>self.obs, cnp.NPY_CORDER)
            self.reward = cnp.PyArray_NewCopy(<cnp.ndarray>self.reward, cnp.NPY_CORDER)
            self.terminated = cnp.PyArray_NewCopy(<cnp.ndarray>self.terminated, cnp.NPY_CORDER)
            self.truncated = cnp.PyArray_NewCopy(<cnp.ndarray>self.truncated, cnp.NPY_CORDER)
        elif self._spare is not None and self._spare_unreferenced():
            self.obs, self.reward, self.terminated, self.truncated = self._spare
        else:
            self.obs = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT32, 0)
            self.reward = cnp.PyArray_EMPTY(1, dims, cnp.NPY_FLOAT64, 0)
            self.terminated = cnp.PyArray_EMPTY(1, dims, cnp.NPY_BOOL, 0)
            self.truncated = cnp.PyArray_EMPTY(1, dims, cnp.NPY_BOOL, 0)
        self._spare = handed_out if _REUSE_OUTPUTS else None
        self._b.obs = <float *>cnp.PyArray_DATA(<cnp.ndarray>self.obs)
        self._b.reward = <double *>cnp.PyArray_DATA(<cnp.ndarray>self.reward)
        self._b.terminated = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>self.terminated)
        self._b.truncated = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>self.truncated)

    cdef bint _spare_unreferenced(self):
        cdef PyObject *arrays[4]
        cdef int k
        for k in range(4):
            arrays[k] = PyTuple_GET_ITEM(self._spare, k)
        return self._unreferenced(arrays)

    cdef bint _unreferenced(self, PyObject **arrays):
        """Whether each of the four output arrays (obs, reward, terminated,
        truncated) has a reference count of 1 (the one this core holds: no
        caller, no view, no buffer export) and is still the writeable,
        C-contiguous, data-owning array of the shape and dtype it was made
        with (a caller may have reshaped or frozen it in place)."""
        cdef int k
        cdef int typenums[4]
        typenums[0] = cnp.NPY_FLOAT32
        typenums[1] = cnp.NPY_FLOAT64
        typenums[2] = cnp.NPY_BOOL
        typenums[3] = cnp.NPY_BOOL
        for k in range(4):
            if Py_REFCNT(arrays[k]) != 1:
                return False
        for k in range(4):
            a = <cnp.ndarray>arrays[k]
            if (cnp.PyArray_TYPE(a) != typenums[k] or cnp.PyArray_NDIM(a) != (2 if k == 0 else 1)
                    or cnp.PyArray_DIM(a, 0) != self.num_envs
                    or (k == 0 and cnp.PyArray_DIM(a, 1) != self.obs_dim)
                    or not cnp.PyArray_ISWRITEABLE(a) or not cnp.PyArray_IS_C_CONTIGUOUS(a)
                    or not cnp.PyArray_CHKFLAGS(a, cnp.NPY_ARRAY_OWNDATA)):
                return False
        return True

    def vector_step(self, actions):
        """The vector-env step in one call: checks order and autoreset state,
        steps, and returns (obs, reward, terminated, truncated, infos) with
        copies unless `copy_outputs` is False. `infos` is {} unless
        `infos_hook` is set, which then builds it (SAME_STEP final
        observations, episode statistics) when an episode ended."""
        if not self.has_reset:
            self._check_open()
            raise ResetNeeded("Cannot call step() before calling reset()")
        if self._b.autoreset_mode == CCGYM_AUTORESET_DISABLED and self.any_pending():
            done = np.flatnonzero(self.pending_reset)
            raise RuntimeError(
                f"instances {done[:10].tolist()} are done and autoreset is disabled: reset "
                "them with reset(options={'reset_mask': mask}) before stepping")
        out = self.step_collect(actions, self.copy_outputs)
        infos = {}
        if self.infos_hook is not None and self._any_done():
            self.infos_hook(infos)
        return out + (infos,)

    cdef bint _any_done(self):
        cdef Py_ssize_t i
        for i in range(self.num_envs):
            if self._b.terminated[i] | self._b.truncated[i]:
                return True
        return False

    def any_pending(self):
        """Whether an instance is done and not yet reset (DISABLED mode)."""
        cdef const uint8_t *p = self._b.pending_reset
        cdef Py_ssize_t i
        for i in range(self.num_envs):
            if p[i]:
                return True
        return False

    def step1(self, action):
        """The single-env step: validates `action` like Gymnasium's action space,
        steps instance 0 and returns (obs copy, reward, terminated, False, {}).
        Calls `after_terminated_hook()` when an instance that had already
        terminated terminates again (CartPole warns there, as Gymnasium does)."""
        if not self.has_reset:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        self._enter()
        try:
            return self._step1(action)
        finally:
            self._busy = False

    cdef tuple _step1(self, action):
        cdef const void *a
        cdef uint8_t was_done = self._b.pending_reset[0]
        if self.action_dim == 0:
            if type(action) is int or isinstance(action, (int, np.integer)) or (
                    type(action) is np.ndarray and (<cnp.ndarray>action).ndim == 0
                    and action.dtype.kind in "iu"):
                try:
                    self._single_action_i = action
                except OverflowError:
                    self._single_action_i = -1
                if self._single_action_i < 0 or self._single_action_i >= self.n_actions:
                    raise InvalidAction(
                        f"{action!r} is outside the action space Discrete({self.n_actions})")
            else:
                raise InvalidAction(
                    f"{action!r} ({type(action).__name__}) is not a valid action for "
                    f"Discrete({self.n_actions}): expected an integer")
            a = &self._single_action_i
        else:
            if (type(action) is np.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>action) == cnp.NPY_FLOAT32
                    and cnp.PyArray_NDIM(<cnp.ndarray>action) == 1
                    and cnp.PyArray_DIM(<cnp.ndarray>action, 0) == 1):
                self._single_action_f = (<float *>cnp.PyArray_DATA(<cnp.ndarray>action))[0]
            else:
                try:
                    arr = np.asarray(action)
                except Exception as e:
                    raise InvalidAction(f"{action!r} is not a valid action: {e}") from None
                if arr.dtype.kind not in "fiu" or arr.shape != (1,):
                    raise InvalidAction(
                        f"{action!r} is not a valid action: expected an array of shape (1,) "
                        "of real numbers")
                # float32, the action space's dtype (Gymnasium computes in the
                # dtype it is given: parity holds for float32 actions).
                with np.errstate(over="ignore"):  # as numpy casts: out of range -> inf
                    self._single_action_f = arr.astype(np.float32)[0]
            a = &self._single_action_f
        with nogil:
            ccgym_batch_step(self._def, &self._b, a, 1)
        cdef cnp.npy_intp dim = self.obs_dim
        cdef cnp.ndarray out = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_FLOAT32)
        memcpy(cnp.PyArray_DATA(out), self._b.obs, sizeof(float) * self.obs_dim)
        cdef bint term = self._b.terminated[0] != 0
        if term and was_done and self.after_terminated_hook is not None:
            self.after_terminated_hook()
        return out, self._b.reward[0], term, False, {}

    def obs_single(self):
        """A copy of instance 0's observation."""
        cdef cnp.npy_intp dim = self.obs_dim
        cdef cnp.ndarray out = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_FLOAT32)
        memcpy(cnp.PyArray_DATA(out), self._b.obs, sizeof(float) * self.obs_dim)
        return out

    # Everything that evolves (not the parameters): enough to clone a batch,
    # roll it forward and come back exactly.
    _STATE_ARRAYS = ("state_buffer", "rng_state", "elapsed", "pending_reset",
                     "episode_return", "obs", "reward", "terminated",
                     "truncated", "final_obs", "final_return", "final_length")

    def get_state(self):
        """A snapshot (dict of array copies) of every instance's physics state,
        RNG, elapsed steps, pending autoresets, episode statistics and last
        outputs. Allowed on a closed batch (reading is harmless), not while
        another thread changes it."""
        if self._busy:
            self._check_open()  # raises the busy error
        snap = {"kind": self.kind, "num_envs": self.num_envs, "has_reset": self.has_reset}
        for name in Batch._STATE_ARRAYS:
            snap[name] = getattr(self, name).copy()
        return snap

    def set_state(self, snap):
        """Restores a snapshot taken by get_state from a batch of the same kind
        and size. Every entry is checked before anything is written."""
        self._enter()
        try:
            self._set_state(snap)
        finally:
            self._busy = False

    def _set_state(self, snap):
        if not isinstance(snap, dict):
            raise TypeError(f"state must be a dict from get_state(), got {type(snap).__name__}")
        if snap.get("kind") != self.kind or snap.get("num_envs") != self.num_envs:
            raise ValueError(
                f"state is for {snap.get('kind')!r} x {snap.get('num_envs')!r}, this env is "
                f"{self.kind!r} x {self.num_envs}")
        checked = []
        for name in Batch._STATE_ARRAYS:
            if name not in snap:
                raise ValueError(f"state is missing {name!r}")
            dst = getattr(self, name)
            src = snap[name]
            if not isinstance(src, np.ndarray) or src.dtype != dst.dtype or src.shape != dst.shape:
                raise ValueError(
                    f"state[{name!r}] must be an array of dtype {dst.dtype} and shape "
                    f"{dst.shape}, got {getattr(src, 'dtype', type(src))} "
                    f"{getattr(src, 'shape', '')}")
            checked.append((name, src))
        has_reset = snap.get("has_reset", True)
        if not isinstance(has_reset, (bool, np.bool_)):
            raise ValueError(f"state['has_reset'] must be a bool, got {has_reset!r}")
        if self.copy_outputs:
            self._new_outputs(True)
        for name, src in checked:
            if name == "elapsed":  # any count (a garbage one wraps, as the C side does)
                np.subtract(np.int64(self._b.t), src, out=self.episode_start)
            else:
                np.copyto(getattr(self, name), src)
        # Episode starts went down: the next step looks for truncations (and
        # finds the new bound).
        self._b.start_bound = INT64_MIN
        self.has_reset = bool(has_reset)

    def state_view(self, fields):
        """A structured view of the C state array; `fields` is a numpy dtype
        that matches the env's C state struct."""
        dt = np.dtype(fields)
        if dt.itemsize != self._def.state_size:
            raise ValueError("state dtype does not match the C struct size")
        return self.state_buffer.view(dt)


cdef extern from "npy_sincosf.h" nogil:
    float ccgym_npy_sinf(float x)
    float ccgym_npy_cosf(float x)
    float ccgym_npy_sinf_nofma(float x)
    float ccgym_npy_cosf_nofma(float x)


def npy_sincosf(x, bint fma):
    """(sin(x), cos(x)) of a float32 array by ccgym's port of numpy's float32
    sin/cos: the FMA polynomial variant or the libm one."""
    cdef float[::1] xs = np.ascontiguousarray(x, dtype=np.float32)
    s = np.empty(xs.shape[0], dtype=np.float32)
    c = np.empty(xs.shape[0], dtype=np.float32)
    cdef float[::1] sv = s
    cdef float[::1] cv = c
    cdef Py_ssize_t i
    for i in range(xs.shape[0]):
        if fma:
            sv[i] = ccgym_npy_sinf(xs[i])
            cv[i] = ccgym_npy_cosf(xs[i])
        else:
            sv[i] = ccgym_npy_sinf_nofma(xs[i])
            cv[i] = ccgym_npy_cosf_nofma(xs[i])
    return s, c
