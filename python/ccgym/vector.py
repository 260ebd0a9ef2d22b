"""The native batched vector env: all N instances stepped in one C call.

:class:`VectorEnv` is a :class:`gymnasium.vector.VectorEnv` over ccgym's C
core. With the same seeds and actions it returns what
``gymnasium.vector.SyncVectorEnv`` over Gymnasium's own envs returns
(observations, rewards, flags and infos), bit for bit, in each of
Gymnasium's three autoreset modes.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ccgym import _core, _front_core
from ccgym._frontend import (
    apply_seeds,
    batch_seeds,
    check_batch_args,
    check_render_mode,
    check_snapshot,
    parse_reset_options,
    reset_needed,
    set_action_errors,
    warn_no_render_mode,
)
from ccgym._kinds import check_env_keywords, of_id
from ccgym._params import PHYSICS, batch_params, integer_operand, physics_value
from ccgym._registration import ENV_IDS, gym_id, vector_class_name
from ccgym.rendering import render_batch

# VectorEnv's own keywords (a misspelled one gets a did-you-mean).
VECTOR_KEYWORDS = ("max_episode_steps", "autoreset_mode", "num_threads", "copy",
                   "episode_statistics", "stats_buffer_length", "render_mode", "precision")

__all__ = ["DoneStepError", "VectorEnv", "make_vec"]  # + one subclass per id, e.g. CartPole_v1 (see the end)

_AUTORESET = {
    AutoresetMode.NEXT_STEP: _core.AUTORESET_NEXT_STEP,
    AutoresetMode.SAME_STEP: _core.AUTORESET_SAME_STEP,
    AutoresetMode.DISABLED: _core.AUTORESET_DISABLED,
}


class DoneStepError(RuntimeError, AssertionError):
    """``step()`` with ``autoreset_mode="Disabled"`` while an instance is done
    and not yet reset. Gymnasium's ``SyncVectorEnv`` fails there with an
    ``assert``; ccgym refuses the whole step (nothing is stepped) and its
    error is both that ``AssertionError`` and the ``RuntimeError`` ccgym
    documents, so ``except`` clauses written for either catch it."""


class VectorEnv(gym.vector.VectorEnv):
    """``num_envs`` instances of one ccgym env stepped together by C.

    Args:
        env_id: a ccgym id, e.g. ``"CartPole-v1"`` or ``"ccgym/CartPole-v1"``.
        num_envs: the number of instances N.
        max_episode_steps: the time limit (truncation); ``None`` (default)
            takes the id's registered value, 0 means no limit.
        autoreset_mode: ``"NextStep"`` (default), ``"SameStep"`` or
            ``"Disabled"`` (a :class:`gymnasium.vector.AutoresetMode` or its
            value), with Gymnasium's semantics.
        num_threads: split each step over this many threads (instances are
            independent, so results do not depend on it). Batches smaller than
            2048 instances per thread use fewer threads.
        copy: when True (default) every returned array is the caller's to
            keep: ccgym never writes it again while anything (a variable, a
            view, a buffer export) refers to it; arrays the caller has let
            go of are reused instead of reallocated. When False, observations,
            rewards and flags are ccgym's internal buffers, overwritten by the
            next ``step``/``reset``.
        episode_statistics: when True, ``infos`` carries ``"episode"``
            (``{"r", "l", "t"}``) and ``"_episode"`` exactly as
            :class:`gymnasium.wrappers.vector.RecordEpisodeStatistics` adds
            them, computed in C; ``return_queue``, ``length_queue`` and
            ``time_queue`` hold the last ``stats_buffer_length`` episodes.
        render_mode: None, or any string but ``"human"`` (as Gymnasium's
            ``CartPoleVectorEnv`` takes any): :meth:`render` returns the
            frames of all instances, drawn in C, whatever the mode
            (``"rgb_array"``, ``"rgb_array_list"``, ...). For a window, wrap
            an ``"rgb_array"`` env in ``gymnasium.wrappers.vector.HumanRendering``.
        **env_kwargs: the single env's keywords (``sutton_barto_reward``,
            ``goal_velocity``, ``g``, ``torque_noise_max``) and physical
            parameters, each a scalar or an array of ``num_envs`` values (one
            per instance, for domain randomisation): CartPole ``gravity``,
            ``masscart``, ``masspole``, ``length``, ``force_mag``, ``tau``;
            MountainCar ``force``, ``gravity``; MountainCarContinuous
            ``power``; Pendulum ``g``, ``m``, ``l``, ``max_speed``,
            ``max_torque``, ``dt``; Acrobot ``link_length_1``,
            ``link_length_2``, ``link_mass_1``, ``link_mass_2``,
            ``link_com_pos_1``, ``link_com_pos_2``, ``link_moi``,
            ``max_vel_1``, ``max_vel_2``, ``torque_noise_max``. Defaults are
            Gymnasium's; see :meth:`set_physics`. The spaces are Gymnasium's
            defaults whatever the parameters.
        precision: ``"exact"`` (default): bit for bit Gymnasium's results.
            ``"fast"``: CartPole, Pendulum and Acrobot step with vectorised
            kernels (ccgym's own SIMD sin/cos, within 2 ulp of libm; ``x * x``
            for ``x ** 2``; fused multiply-adds; AVX-512, AVX2 or plain code
            picked for the CPU at run time, or the lower one the environment
            variable ``CCGYM_FAST_ISA`` names: ``generic``, ``avx2``; see
            ``ccgym._core.fast_isa()``). Not bit-exact: from the same
            state and action, one fast step's observations are within
            ``2**-22 * |obs_exact| + 1e-12`` of the exact step's (two float32
            roundings), rewards within ``1e-12 * |reward_exact| + 1e-9``, and the
            terminated flags agree unless the exact state is within ``1e-9``
            (relative) of a termination threshold. Differences grow along a
            trajectory as the dynamics amplify them (the pendulums are
            chaotic), so fast rollouts match exact ones statistically, not
            step for step. Resets and RNG streams (reset states, Acrobot's
            torque noise) are exact. MountainCar ids run the exact kernels
            (their step has little to vectorise).
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int = 1,
        *,
        max_episode_steps: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        num_threads: int = 1,
        copy: bool = True,
        episode_statistics: bool = False,
        stats_buffer_length: int = 100,
        render_mode: str | None = None,
        precision: str = "exact",
        **env_kwargs: Any,
    ) -> None:
        if precision not in ("exact", "fast"):
            raise ValueError(f'precision must be "exact" or "fast", got {precision!r}')

        self.env_id, num_envs, num_threads, max_episode_steps = check_batch_args(
            env_id, num_envs, num_threads, max_episode_steps)
        try:
            mode = (autoreset_mode if isinstance(autoreset_mode, AutoresetMode)
                    else AutoresetMode(autoreset_mode))
        except ValueError:
            raise ValueError(
                f"autoreset_mode must be one of {[m.value for m in AutoresetMode]}, "
                f"got {autoreset_mode!r}"
            ) from None
        check_render_mode(render_mode, None)
        if render_mode == "human":
            # CartPoleVectorEnv takes "human" and shows nothing; refuse it clearly.
            raise ValueError(
                'render_mode="human" is not supported by ccgym\'s vector env: make it with '
                'render_mode="rgb_array" and wrap it in gymnasium.wrappers.vector.HumanRendering')
        # The id's facts come from its Kind (ccgym._kinds): no single env is
        # built, and the one C batch is this env's.
        desc = self._desc = of_id(self.env_id)
        kind = self._kind = desc.name
        check_env_keywords("VectorEnv", self.env_id, env_kwargs, VECTOR_KEYWORDS)
        physics = {k: physics_value(kind, k, v, int(num_envs))
                   for k, v in env_kwargs.items() if k in PHYSICS[kind]}
        gym_kwargs = {k: v for k, v in env_kwargs.items() if k not in PHYSICS[kind]}
        # Class-level values (Gymnasium's class attributes: Acrobot's
        # MAX_VEL_1 = ..., say) shape the spaces a single env's __init__
        # builds: only then is one built, for its spaces.
        if getattr(desc.env_class, "_ccgym_class_values", False):
            proto = desc.env_class(render_mode=render_mode, **gym_kwargs)
            single_spaces = proto.observation_space, proto.action_space
            proto.close()
        else:
            single_spaces = desc.spaces()
        self._physics = {**PHYSICS[kind], **physics}
        params = {**batch_params(kind, gym_kwargs), **self._physics}
        # Thread safety: the core's guard. step is one core call; reset,
        # snapshots and set_physics run under it with Batch.exclusive, so a
        # second thread's call gets a RuntimeError instead of landing between
        # two core calls.
        self._core = _front_core.FrontBatch(
            self._kind, int(num_envs), params, int(max_episode_steps), _AUTORESET[mode],
            int(num_threads), precision,
        )
        self._core.reset_needed_error = gym.error.ResetNeeded
        self._core.done_step_error = DoneStepError
        set_action_errors(self._core)  # ccgym.InvalidAction: an AssertionError too
        # An integer max_torque / power: integer actions are refused (the core's rule).
        self._operand_kwargs = {k: v for k, v in env_kwargs.items() if k in PHYSICS[kind]}
        self._core.integer_operand = integer_operand(kind, self._operand_kwargs)
        self.precision = precision
        self.num_envs = int(num_envs)
        self.max_episode_steps = int(max_episode_steps)
        self.num_threads = int(num_threads)
        self.copy = bool(copy)
        self._core.copy_outputs = self.copy
        self.autoreset_mode = mode
        self.render_mode = render_mode
        self.metadata = {
            "render_modes": ["rgb_array"],
            "render_fps": desc.metadata["render_fps"],
            "autoreset_mode": mode,
        }
        self.single_observation_space, self.single_action_space = single_spaces
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.env_kwargs = dict(env_kwargs)

        self._stats_buffer_length = stats_buffer_length
        self.episode_statistics = bool(episode_statistics)
        # What infos carry when an episode ended (SAME_STEP's final
        # observations, the episode statistics) is this env's decision: its
        # step passes _infos to the core's vector_step_then, which calls it
        # (under its guard, so the infos are this step's whatever other
        # threads do) only then.
        self._adds_infos = mode is AutoresetMode.SAME_STEP or self.episode_statistics
        self._bind_step()
        self.episode_count = 0
        self.return_queue: deque[float] = deque(maxlen=stats_buffer_length)
        self.length_queue: deque[int] = deque(maxlen=stats_buffer_length)
        self.time_queue: deque[float] = deque(maxlen=stats_buffer_length)
        self._episode_start_times = np.zeros(self.num_envs)

    @property
    def batch(self) -> _front_core.FrontBatch:
        """The C batch behind this env (package-internal: for ccgym's
        renderer, pixel wrappers and benchmarks). Its buffers are the live
        state and outputs; its methods skip this env's checks, lock and
        bookkeeping."""
        return self._core

    @property
    def episode_start_times(self) -> np.ndarray:
        """``time.perf_counter()`` at the start of each instance's current
        episode, as RecordEpisodeStatistics's ``episode_start_times`` (a copy)."""
        return self._episode_start_times.copy()

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Resets all instances, or those in ``options["reset_mask"]``.

        ``seed``: None continues each instance's stream; an int s seeds
        instance i with s + i; a list gives one seed (or None) per instance.
        Other ``options`` are the single env's reset options.
        """
        return self._core.exclusive(self._reset, seed, options)

    def _reset(self, seed, options):
        # Everything is checked before anything is seeded: a rejected
        # reset changes nothing.
        mask, a, b = parse_reset_options(self._kind, options, self.num_envs)
        apply_seeds(self._core, batch_seeds(seed, self.num_envs), mask)
        obs = self._core.reset(mask, a, b)  # the caller's unless copy=False
        self._core.has_reset = True
        now = time.perf_counter()
        if mask is None:
            self._episode_start_times[:] = now
        else:
            self._episode_start_times[mask] = now
        return obs, {}

    def step(self, actions: npt.ArrayLike) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.bool_],
            npt.NDArray[np.bool_], dict[str, Any]]:
        """Steps every instance in one C call; returns (obs, rewards,
        terminations, truncations, infos) as SyncVectorEnv does. (Instances
        bind ``step`` straight to the core, _bind_step.)"""
        if self._adds_infos:
            return self._core.vector_step_then(self._infos, actions)
        return self._core.vector_step(actions)

    def _bind_step(self) -> None:
        # Straight to the core (no Python frame): it does all step does.
        if type(self).step is VectorEnv.step:
            self.step = (functools.partial(self._core.vector_step_then, self._infos)
                         if self._adds_infos else self._core.vector_step)

    def _infos(self, infos: dict[str, Any]) -> None:
        """Fills the infos of a step in which an episode ended (the core's
        vector_step_then calls it then, under its guard)."""
        dones = np.logical_or(self._core.terminated, self._core.truncated)
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            self._add_final(infos, dones)
        if self.episode_statistics:
            self._add_episode_stats(infos, dones)

    def close_extras(self, **kwargs: Any) -> None:
        """Releases what close() should: nothing here, as this env holds no
        rendering resources (``render`` draws into fresh arrays, no window).
        As Gymnasium's vector envs, the env stays usable: ``reset``, ``step``
        and ``render`` still work after ``close()``; ``closed`` is True
        (set by :meth:`gymnasium.vector.VectorEnv.close`, as in
        ``SyncVectorEnv``)."""

    def render(self, indices=None) -> np.ndarray | None:
        """Frames of all instances, or of ``indices`` (ints or a boolean
        mask), drawn by C in one call: a (k, H, W, 3) uint8 array (iterating
        it gives the per-instance frames SyncVectorEnv returns). None, with
        Gymnasium's warning, when render_mode is None."""
        if self.render_mode is None:
            warn_no_render_mode("gym.make_vec", gym_id(self.env_id))
            return None
        if not self._core.has_reset:
            raise reset_needed("render()")
        return render_batch(self._kind, self._core, indices, num_threads=self.num_threads)

    # ------------------------------------------------------- native extras
    @property
    def state(self) -> np.ndarray | None:
        """CartPole only, as Gymnasium's ``CartPoleVectorEnv.state``: None
        before the first reset, then the (4, num_envs) float64 state (rows
        x, x_dot, theta, theta_dot). It is a live view of the C state:
        writing into it (``envs.state[2, i] = 0.1``) or assigning a
        (4, num_envs) array sets the state the next step starts from. Unlike
        Gymnasium's, which builds a new array each step, a view kept across
        steps follows the env."""
        if not self._desc.vector_state:
            raise AttributeError(f"{type(self).__name__!r} of {self.env_id} has no attribute "
                                 "'state' (CartPole's vector env has one, as Gymnasium's)")
        if not self._core.has_reset:
            return None
        return self._state_matrix()

    @state.setter
    def state(self, value: Any) -> None:
        if not self._desc.vector_state:
            raise AttributeError(f"cannot set 'state' of a {self.env_id} vector env")
        self._core.exclusive(self._set_state_matrix, value)

    @property
    def prev_done(self) -> np.ndarray:
        """CartPole only, as ``CartPoleVectorEnv.prev_done``: which instances
        ended on the last step and are reset by the next (NEXT_STEP mode), a
        bool array (read-only: a new one on each read)."""
        if not self._desc.vector_state:
            raise AttributeError(f"{type(self).__name__!r} of {self.env_id} has no attribute "
                                 "'prev_done'")
        done = np.array(self._core.pending_reset, dtype=np.bool_)
        done.flags.writeable = False
        return done

    def _state_matrix(self) -> np.ndarray:
        info = _core.env_info(self._kind)
        fields = self._core.state_view(info.state_dtype)
        first = fields[info.state_float_fields[0]]
        # The leading float64 fields are consecutive in each C struct.
        return np.lib.stride_tricks.as_strided(
            first, shape=(len(info.state_float_fields), self.num_envs),
            strides=(8, fields.strides[0]))

    def _set_state_matrix(self, value: Any) -> None:
        if not self._core.has_reset:
            raise reset_needed("setting state")
        given = getattr(value, "dtype", None)
        if given is None and isinstance(value, (list, tuple)):
            try:
                given = np.asarray(value).dtype
            except (TypeError, ValueError):
                given = None  # np.asarray below says what is wrong
        if given is not None and np.dtype(given).kind == "f" and np.dtype(given).itemsize < 8:
            raise TypeError(
                f"state of dtype {np.dtype(given)}: Gymnasium's CartPoleVectorEnv would "
                f"step it in {np.dtype(given)}, ccgym's vector env steps float64; assign "
                "np.asarray(state, dtype=np.float64)")
        if isinstance(value, (list, tuple)) and not all(
                isinstance(row, np.ndarray) for row in value):
            # Gymnasium's step unpacks the rows and computes with each as it
            # is: tau * x_dot raises TypeError for a list or tuple row (its
            # Euler step), or numpy converts it (semi-implicit Euler).
            raise TypeError(
                f"state as a {type(value).__name__} of rows: Gymnasium's CartPoleVectorEnv "
                "steps each row as it is given (tau * x_dot raises TypeError for a list "
                "row); assign np.asarray(state, dtype=np.float64)")
        arr = np.asarray(value, dtype=np.float64)
        target = self._state_matrix()
        if arr.shape != target.shape:
            raise ValueError(f"state must have shape {target.shape}, got {arr.shape}")
        target[...] = arr

    @property
    def episode_returns(self) -> np.ndarray:
        """Running return of each instance's current episode (a read-only
        view of the core's memory, float64)."""
        return self._core.episode_return

    @property
    def episode_lengths(self) -> np.ndarray:
        """Running length of each instance's current episode (int64; a new
        array on each read, computed from the episode start steps)."""
        return self._core.episode_length

    @property
    def elapsed_steps(self) -> np.ndarray:
        """Steps since each instance's last reset (int64; a new array on each
        read, as episode_lengths)."""
        return self._core.elapsed

    def get_physics(self) -> dict[str, float | np.ndarray]:
        """The physical parameters: a float where all instances share it, else
        a float64 array of length num_envs."""
        return {k: (v.copy() if isinstance(v, np.ndarray) else v)
                for k, v in self._physics.items()}

    def set_physics(self, **params: Any) -> None:
        """Changes physical parameters (scalars or length-N arrays; names as
        in the constructor). They apply from the next step: call it between
        episodes (e.g. before ``reset``) to randomise the domain."""
        self._core.exclusive(self._set_physics, params)

    def _set_physics(self, params: dict[str, Any]) -> None:
        unknown = set(params) - set(PHYSICS[self._kind])
        if unknown:
            raise TypeError(
                f"unknown {self._kind} physical parameters {sorted(unknown)}; "
                f"expected some of {sorted(PHYSICS[self._kind])}"
            )
        physics = {**self._physics,
                   **{k: physics_value(self._kind, k, v, self.num_envs)
                      for k, v in params.items()}}
        self._core.set_params({**batch_params(self._kind, self._gym_kwargs()), **physics})
        self._physics = physics
        self._operand_kwargs.update(params)
        self._core.integer_operand = integer_operand(self._kind, self._operand_kwargs)

    def get_state(self) -> dict[str, Any]:
        """A snapshot of all instances: physics state, RNG streams, elapsed
        steps, pending autoresets, episode statistics and the last outputs.
        ``set_state`` restores it exactly, so a batch can be cloned, rolled
        forward and brought back (planning, MCTS, debugging)."""
        return self._core.exclusive(self._get_state)

    def _get_state(self) -> dict[str, Any]:
        return self._core.get_state()

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot from :meth:`get_state` of an env with the same
        id and num_envs (physical parameters are not part of it)."""
        check_snapshot(state)
        self._core.set_state(state)

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id, "num_envs": self.num_envs,
            "max_episode_steps": self.max_episode_steps,
            "autoreset_mode": self.autoreset_mode.value, "num_threads": self.num_threads,
            "copy": self.copy, "episode_statistics": self.episode_statistics,
            "precision": self.precision,
            "stats_buffer_length": self._stats_buffer_length, "render_mode": self.render_mode,
            **self._gym_kwargs(), **self.get_physics(),
        }

    def __getstate__(self) -> dict[str, Any]:
        return {
            "kwargs": self._constructor_kwargs(),
            "state": self.get_state(),  # checks open; not torn by a concurrent step
            "stats": (self.episode_count, list(self.return_queue), list(self.length_queue),
                      list(self.time_queue)),
            "spec": getattr(self, "spec", None),
            "closed": self.closed,
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        kwargs = dict(data["kwargs"])
        VectorEnv.__init__(self, kwargs.pop("env_id"), **kwargs)  # also for the id classes
        self.set_state(data["state"])
        count, returns, lengths, times = data["stats"]
        self.episode_count = count
        self.return_queue.extend(returns)
        self.length_queue.extend(lengths)
        self.time_queue.extend(times)
        if data.get("spec") is not None:
            self.spec = data["spec"]
        self.closed = bool(data.get("closed", False))

    def __repr__(self) -> str:
        return f"ccgym.VectorEnv({self.env_id}, num_envs={self.num_envs})"

    # -------------------------------------------------------------- helpers
    def _gym_kwargs(self) -> dict[str, Any]:
        """The single env's keywords among env_kwargs (the rest are physics)."""
        return {k: v for k, v in self.env_kwargs.items() if k not in PHYSICS[self._kind]}

    def _add_final(self, infos: dict[str, Any], dones: np.ndarray) -> None:
        final_obs = np.full(self.num_envs, fill_value=None, dtype=object)
        src = self._core.final_obs
        for i in np.flatnonzero(dones):
            final_obs[i] = src[i].copy()
        infos["final_obs"] = final_obs
        infos["_final_obs"] = dones.copy()
        infos["final_info"] = {}
        infos["_final_info"] = dones.copy()

    def _add_episode_stats(self, infos: dict[str, Any], dones: np.ndarray) -> None:
        if "episode" in infos or "_episode" in infos:
            raise ValueError("info already has an 'episode' key")
        now = time.perf_counter()
        elapsed = np.round(now - self._episode_start_times, 6)
        returns = np.where(dones, self._core.final_return, 0.0)
        lengths = np.where(dones, self._core.final_length, 0)
        infos["episode"] = {"r": returns, "l": lengths, "t": np.where(dones, elapsed, 0.0)}
        infos["_episode"] = dones
        idx = np.flatnonzero(dones)
        self.episode_count += len(idx)
        self.return_queue.extend(returns[idx].tolist())
        self.length_queue.extend(lengths[idx].tolist())
        self.time_queue.extend(elapsed[idx].tolist())
        # Gymnasium's wrapper restarts the clock when the next episode starts:
        # at once for SAME_STEP, on the resetting step for NEXT_STEP.
        self._episode_start_times[idx] = now


def make_vec(
    env_id: str,
    num_envs: int = 1,
    *,
    max_episode_steps: int | None = None,
    autoreset_mode: str | AutoresetMode = "NextStep",
    num_threads: int = 1,
    copy: bool = True,
    episode_statistics: bool = False,
    stats_buffer_length: int = 100,
    render_mode: str | None = None,
    precision: Literal["exact", "fast"] = "exact",
    **env_kwargs: Any,
) -> VectorEnv:
    """A native :class:`ccgym.vector.VectorEnv` of ``num_envs`` instances of
    ``env_id`` ("CartPole-v1" or "ccgym/CartPole-v1"); the keywords are
    :class:`ccgym.vector.VectorEnv`'s. ``env_kwargs`` are the env's own: its
    constructor's keywords and its physical parameters (a scalar, or one value
    per instance). Any other keyword raises TypeError naming the closest
    valid one."""
    check_env_keywords("make_vec", env_id, env_kwargs, VECTOR_KEYWORDS)
    return VectorEnv(env_id, num_envs, max_episode_steps=max_episode_steps,
                     autoreset_mode=autoreset_mode, num_threads=num_threads, copy=copy,
                     episode_statistics=episode_statistics,
                     stats_buffer_length=stats_buffer_length, render_mode=render_mode,
                     precision=precision, **env_kwargs)


def _id_class(env_id: str) -> type[VectorEnv]:
    """The registered vector entry point of ``ccgym/<env_id>``: VectorEnv
    with the id bound, called by ``gym.make_vec`` as ``cls(num_envs=N,
    max_episode_steps=..., **kwargs)``."""

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        VectorEnv.__init__(self, env_id, num_envs, **kwargs)

    name = vector_class_name(env_id)
    return type(name, (VectorEnv,), {
        "__init__": __init__, "__module__": __name__, "__qualname__": name,
        "__doc__": f"``VectorEnv(\"{env_id}\", num_envs, **kwargs)``: the vector entry "
                   f"point of ``{gym_id(env_id)}`` (``gym.make_vec``)."})



for _id in ENV_IDS:
    _cls = _id_class(_id)
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
del _id, _cls
