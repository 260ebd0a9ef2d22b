# cython: language_level=3, boundscheck=False, wraparound=False
"""Bench-only reference ceiling (src/ceiling.c): each env's own exact step and
reset (the ones the real path inlines) in a bare C loop over N instances x T
steps, timed inside C. Used by ``ccgym bench --ceiling``; not part of
ccgym's API."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free

from ccgym import _core
from ccgym._core import c_array, env_info

cnp.import_array()


cdef extern from "ccgym/rng.h" nogil:
    ctypedef struct ccgym_pcg64:
        pass


cdef extern from "ccgym/driver.h" nogil:
    void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)


cdef extern from "ccgym/ceiling.h" nogil:
    double ccgym_ceiling_run(const void *d, const void *stock, size_t n, int64_t steps, void *state, void *rng,
                             const void *actions, size_t n_action_rows, float *obs,
                             double *reward, uint8_t *terminated, int n_threads, int cpu_clock,
                             int exact_lanes)


cdef inline size_t _round_up(size_t nbytes):
    return (nbytes + 63) & ~(<size_t>63)


def state_dim(str kind):
    """float64 values per instance in the ceiling's flat layout: the leading
    float64 fields of the env's C state struct."""
    dt = env_info(kind).state_dtype
    return sum(int(np.prod(dt.fields[f][0].shape, dtype=np.int64))
               for f in env_info(kind).state_float_fields)


def obs_dim(str kind):
    """Observation size per instance."""
    return env_info(kind).obs_dim


def action_dtype(str kind):
    """int64 (discrete) or float32 (continuous)."""
    return np.dtype(np.float32) if env_info(kind).action_dim else np.dtype(np.int64)


cdef class Run:
    """The buffers of one ceiling run, owned by the Run (C memory; the arrays
    below are views of it, which cannot be resized or replaced): ``states``
    (N,) the env's C state structs (its ``state_dtype``), ``state`` (N,
    state_dim) float64, a view of their float64 fields (the ceiling's flat
    layout), ``obs`` (N, obs_dim) float32, ``reward`` (N,) float64,
    ``terminated`` (N,) bool. ``state`` given to the constructor is copied in:
    (N, state_dim) float64 (the other fields, e.g. CartPole's
    steps_beyond_terminated, take the values of EnvInfo.state_fill) or (N,)
    of the env's state_dtype. With a ``seed``, an instance that terminates is
    reset at once by its env's own reset (per-instance PCG64 generators
    seeded seed, seed + 1, ...; ``rng_state``); without one it steps on from
    the terminal state."""

    cdef void *_mem
    cdef char *_states
    cdef ccgym_pcg64 *_rng
    cdef float *_obs
    cdef double *_reward
    cdef uint8_t *_terminated
    cdef const void *_def
    cdef const void *_stock
    cdef int64_t _n_actions
    cdef readonly str kind
    cdef readonly Py_ssize_t num_envs
    cdef readonly object states, state, obs, reward, terminated, rng_state

    def __cinit__(self, str kind, cnp.ndarray state, seed=None):
        info = env_info(kind)
        cdef int sd = state_dim(kind)
        cdef bint structured = state.dtype == info.state_dtype
        if structured:
            if state.ndim != 1:
                raise ValueError(f"a structured state must be 1-D, got shape {np.shape(state)}")
        elif state.dtype != np.float64 or state.ndim != 2 or state.shape[1] != sd:
            raise ValueError(f"state must be a float64 array of shape (N, {sd}) "
                             f"or a 1-D array of {kind}'s state_dtype")
        if seed is not None and seed < 0:
            raise ValueError("seed must be a non-negative integer")
        cdef Py_ssize_t n = state.shape[0]
        cdef size_t ssize = info.state_size
        cdef int od = info.obs_dim
        # One block, each part 64-byte aligned: states, generators, obs, reward, flags.
        cdef size_t o_rng = _round_up(n * ssize)
        cdef size_t o_obs = o_rng + _round_up(n * 32)
        cdef size_t o_rew = o_obs + _round_up(n * od * sizeof(float))
        cdef size_t o_term = o_rew + _round_up(n * sizeof(double))
        cdef size_t total = o_term + _round_up(n)
        self._mem = calloc(total + 64, 1)
        if self._mem == NULL:
            raise MemoryError(f"cannot allocate the ceiling's {n} instances")
        cdef char *base = <char *>(((<uintptr_t>self._mem) + 63) & ~(<uintptr_t>63))
        self._states = base
        self._obs = <float *>(base + o_obs)
        self._reward = <double *>(base + o_rew)
        self._terminated = <uint8_t *>(base + o_term)
        self._def = <const void *><uintptr_t>_core.def_address(kind)
        self._stock = <const void *><uintptr_t>_core.stock_def_address(kind)
        self._n_actions = info.n_actions
        self.kind = kind
        self.num_envs = n

        self.states = self._view(base, n * ssize, np.uint8).view(info.state_dtype)
        # The leading float64 fields of each struct as one (N, state_dim) row.
        self.state = np.ndarray((n, sd), dtype=np.float64, buffer=self.states, offset=0,
                                strides=(ssize, 8))
        if structured:
            self.states[...] = state
        else:
            for name, value in info.state_fill.items():
                self.states[name] = value
            self.state[...] = state
        self.rng_state = None
        self._rng = NULL
        if seed is not None:
            self._rng = <ccgym_pcg64 *>(base + o_rng)
            ccgym_pcg64_seed_range(self._rng, <uint64_t>seed, n)
            self.rng_state = self._view(base + o_rng, n * 32, np.uint8)
        self.obs = self._view(base + o_obs, n * od * sizeof(float), np.uint8).view(
            np.float32).reshape(n, od)
        self.reward = self._view(base + o_rew, n * sizeof(double), np.uint8).view(np.float64)
        self.terminated = self._view(base + o_term, n, np.uint8).view(np.bool_)

    def __dealloc__(self):
        free(self._mem)

    cdef object _view(self, void *data, size_t nbytes, dtype):
        """A 1-D uint8 array over nbytes of this Run's memory, kept alive by it."""
        cdef cnp.npy_intp dims[1]
        dims[0] = <cnp.npy_intp>nbytes
        arr = cnp.PyArray_SimpleNewFromData(1, dims, cnp.NPY_UINT8, data)
        cnp.set_array_base(arr, self)
        return arr

    def run(self, actions, int64_t steps, int num_threads=1, bint cpu_clock=False):
        """Steps every instance `steps` times; step t takes actions[t % K] from
        actions of shape (K, N) (int64, discrete) or (K, N) / (K, N, 1)
        (float32, continuous; (K, N, action_dim) for action_dim > 1), in
        native byte order. Returns the loop's time
        in seconds, measured inside C: wall time, or the calling thread's CPU
        time if cpu_clock."""
        want = action_dtype(self.kind)
        cdef cnp.ndarray a = np.asarray(actions)
        if a.dtype != want:  # native byte order only (test_env_table)
            raise TypeError(f"{self.kind} ceiling actions must be {want}, got {a.dtype}")
        cdef Py_ssize_t n = self.num_envs
        cdef Py_ssize_t dim = env_info(self.kind).action_dim
        if dim > 1:  # (K, N, dim) only: C reads rows of N * dim floats
            if a.ndim != 3 or a.shape[1] != n or a.shape[2] != dim or a.shape[0] < 1:
                raise ValueError(f"actions must have shape (K, {n}, {dim}), "
                                 f"got {np.shape(actions)}")
            a = c_array(a.reshape(a.shape[0], n * dim), want, a.shape[0], n * dim, "actions")
        else:
            if a.ndim == 3 and a.shape[2] == 1 and a.dtype == np.float32:
                a = a.reshape(a.shape[0], a.shape[1])
            if a.ndim != 2 or a.shape[1] != n or a.shape[0] < 1:
                raise ValueError(f"actions must have shape (K, {n}), got {np.shape(actions)}")
            # C reads the rows as one aligned, contiguous, native array: the
            # binding's one checked path (ccgym._core.c_array) makes sure of it.
            a = c_array(a, want, a.shape[0], n, "actions")
        if a.dtype == np.int64 and a.size and (a.min() < 0 or a.max() >= self._n_actions):
            raise ValueError(f"discrete actions must be in [0, {self._n_actions})")
        if steps < 0:
            raise ValueError("steps must be non-negative")
        cdef const void *ap = cnp.PyArray_DATA(a)
        cdef size_t rows = a.shape[0]
        cdef double seconds
        # The real path's word on its exact lanes: the def is _core's, and so
        # is the exact-math state its lanes block reads (this module links its
        # own copy of the kernels, whose exact math is not initialised).
        cdef int lanes = 1 if _core.exact_math()["kernels"] else 0
        with nogil:
            seconds = ccgym_ceiling_run(self._def, self._stock, n, steps, self._states, self._rng, ap, rows,
                                        self._obs, self._reward, self._terminated,
                                        num_threads, cpu_clock, lanes)
        if seconds < 0:
            raise RuntimeError("ccgym_ceiling_run rejected its arguments")
        return seconds
