# cython: language_level=3, boundscheck=False, wraparound=False
"""Bench-only reference ceiling (src/ceiling.c): each env's exact physics in
a bare C loop over N instances x T steps, timed inside C. Used by
``ccgym bench --ceiling``; not part of ccgym's API."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t

from ccgym._core import _aligned_zeros

cnp.import_array()


cdef extern from "ccgym/rng.h" nogil:
    ctypedef struct ccgym_pcg64:
        pass
    void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)


cdef extern from "ccgym/ceiling.h" nogil:
    int ccgym_ceiling_state_dim(int env)
    int ccgym_ceiling_obs_dim(int env)
    int ccgym_ceiling_action_dim(int env)
    double ccgym_ceiling_run(int env, size_t n, int64_t steps, double *state,
                             void *rng, const void *actions,
                             size_t n_action_rows, float *obs, double *reward,
                             uint8_t *terminated, int n_threads, int cpu_clock)


# Same order as ccgym._core.ENV_KINDS and enum ccgym_ceiling_env.
ENV_KINDS = ("CartPole", "MountainCar", "MountainCarContinuous", "Pendulum", "Acrobot")


cdef int _env_index(str kind) except -1:
    try:
        return ENV_KINDS.index(kind)
    except ValueError:
        raise ValueError(f"unknown env kind {kind!r}; expected one of {ENV_KINDS}") from None


def state_dim(str kind):
    """Doubles of state per instance in the ceiling's layout."""
    return ccgym_ceiling_state_dim(_env_index(kind))


def obs_dim(str kind):
    """Observation size per instance."""
    return ccgym_ceiling_obs_dim(_env_index(kind))


def action_dtype(str kind):
    """int64 (discrete) or float32 (continuous)."""
    return np.dtype(np.float32) if ccgym_ceiling_action_dim(_env_index(kind)) else np.dtype(np.int64)


class Run:
    """The buffers of one ceiling run: ``state`` (N, state_dim) float64 (updated
    in place), ``obs`` (N, obs_dim) float32, ``reward`` (N,) float64,
    ``terminated`` (N,) bool. With a ``seed``, an instance that terminates is
    reset at once, drawn as its kernel draws a reset (per-instance PCG64
    generators seeded seed, seed + 1, ...; ``rng_state``); without one it
    steps on from the terminal state."""

    def __init__(self, str kind, cnp.ndarray state, seed=None):
        cdef int env = _env_index(kind)
        cdef int sd = ccgym_ceiling_state_dim(env)
        if state.dtype != np.float64 or state.ndim != 2 or state.shape[1] != sd:
            raise ValueError(f"state must be a float64 array of shape (N, {sd})")
        if not state.flags.c_contiguous or not state.flags.writeable:
            raise ValueError("state must be C-contiguous and writeable")
        n = state.shape[0]
        self.kind = kind
        self.num_envs = n
        self.state = state
        self.rng_state = None
        if seed is not None:
            if seed < 0:
                raise ValueError("seed must be a non-negative integer")
            self.rng_state = _aligned_zeros(n * 32)
            ccgym_pcg64_seed_range(<ccgym_pcg64 *>cnp.PyArray_DATA(self.rng_state),
                                   <uint64_t>seed, n)
        self.obs = np.zeros((n, ccgym_ceiling_obs_dim(env)), dtype=np.float32)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)

    def run(self, actions, int64_t steps, int num_threads=1, bint cpu_clock=False):
        """Steps every instance `steps` times; step t takes actions[t % K] from
        actions of shape (K, N) (int64, discrete) or (K, N) / (K, N, 1)
        (float32, continuous). Returns the loop's time in seconds, measured
        inside C: wall time, or the calling thread's CPU time if cpu_clock."""
        cdef int env = _env_index(self.kind)
        cdef cnp.ndarray a = np.ascontiguousarray(actions)
        cdef Py_ssize_t n = self.num_envs
        if a.dtype != action_dtype(self.kind):
            raise TypeError(f"{self.kind} ceiling actions must be {action_dtype(self.kind)}, "
                            f"got {a.dtype}")
        if a.ndim == 3 and a.shape[2] == 1 and a.dtype == np.float32:
            a = a.reshape(a.shape[0], a.shape[1])
        if a.ndim != 2 or a.shape[1] != n or a.shape[0] < 1:
            raise ValueError(f"actions must have shape (K, {n}), got {actions.shape}")
        if a.dtype == np.int64:
            n_actions = 2 if self.kind == "CartPole" else 3
            if a.size and (a.min() < 0 or a.max() >= n_actions):
                raise ValueError(f"discrete actions must be in [0, {n_actions})")
        if steps < 0:
            raise ValueError("steps must be non-negative")
        cdef cnp.ndarray st = self.state
        cdef cnp.ndarray ob = self.obs
        cdef cnp.ndarray rw = self.reward
        cdef cnp.ndarray te = self.terminated
        cdef cnp.ndarray rs = self.rng_state
        cdef void *rsp = NULL if rs is None else cnp.PyArray_DATA(rs)
        cdef double *sp = <double *>cnp.PyArray_DATA(st)
        cdef const void *ap = cnp.PyArray_DATA(a)
        cdef size_t rows = a.shape[0]
        cdef float *op = <float *>cnp.PyArray_DATA(ob)
        cdef double *rp = <double *>cnp.PyArray_DATA(rw)
        cdef uint8_t *tp = <uint8_t *>cnp.PyArray_DATA(te)
        cdef double seconds
        with nogil:
            seconds = ccgym_ceiling_run(env, n, steps, sp, rsp, ap, rows, op, rp, tp,
                                        num_threads, cpu_clock)
        if seconds < 0:
            raise RuntimeError("ccgym_ceiling_run rejected its arguments")
        return seconds
