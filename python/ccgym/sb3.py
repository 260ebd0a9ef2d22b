"""Stable-Baselines3 front end: a native SB3 ``VecEnv`` over ccgym's C core.

:class:`VecEnv` steps all N instances in one C call (same-step autoreset) and
returns exactly what SB3's ``DummyVecEnv([lambda: gym.make(id)] * N)`` returns
for the same seeds and actions: float32 observations, float32 rewards, bool
dones, and infos with ``"TimeLimit.truncated"`` on every step and
``"terminal_observation"`` on the step an episode ends, bit for bit.

:class:`VecMonitor` is SB3's ``VecMonitor`` fed by the episode returns and
lengths the C driver already keeps; :func:`make_vec_env` mirrors SB3's
``make_vec_env``.

Importing this module imports Stable-Baselines3 (and torch): it is not
imported by ``import ccgym``.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecMonitor as _SB3VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from ccgym import _core, _front_core
from ccgym._frontend import (
    COMPENSATED_SUM,
    EpisodeSums,
    apply_seeds,
    batch_seeds,
    check_batch_args,
    check_render_mode,
    check_seed,
    env_class,
    index_mask,
    parse_reset_options,
    reset_needed,
    resolve_env_id,
    set_action_errors,
)
from ccgym._params import batch_params, keyword_defaults
from ccgym._registration import gym_id

__all__ = ["NativeBatchOffWarning", "VecEnv", "VecMonitor", "make_vec_env"]


class NativeBatchOffWarning(UserWarning):
    """:func:`make_vec_env` built SB3's vec env of N Python envs (a callable
    env_id, a wrapper_class or another vec_env_cls) instead of the native
    batch: the same results, the speed of N single envs."""


class VecEnv(_SB3VecEnv):
    """``num_envs`` instances of one ccgym env as a Stable-Baselines3 ``VecEnv``.

    Not a wrapper around Python envs: one :class:`ccgym._front_core.FrontBatch` in
    same-step autoreset mode holds every instance. Semantics are those of
    SB3's ``DummyVecEnv`` over ``gymnasium.make(env_id)``:

    - ``seed(s)`` stores seeds s, s+1, ... applied at the next ``reset()``
      (SB3 2.x); ``set_options(...)`` likewise (Gymnasium's reset options:
      ``low``/``high``, or ``x_init``/``y_init`` for Pendulum).
    - ``reset()`` returns the observations only; ``reset_infos`` holds ``{}``.
    - ``step`` returns ``(obs, rewards, dones, infos)``: ``rewards`` float32,
      ``dones = terminated | truncated``; each info has
      ``"TimeLimit.truncated"`` (truncated and not terminated) and, when the
      instance finished, ``"terminal_observation"``; the returned ``obs`` is
      then already the first observation of the next episode.
    - every returned array is a fresh copy, the caller's to keep.

    Args:
        env_id: a ccgym id, ``"CartPole-v1"`` or ``"ccgym/CartPole-v1"``.
        num_envs: the number of instances.
        max_episode_steps: the time limit; None takes the registered one
            (as ``gym.make``), 0 means none.
        num_threads: threads for each C step (results do not depend on it).
        render_mode: None, "rgb_array" (``get_images``/``render`` return C-drawn
            frames) or "human" (``render`` shows the tiled frames with pygame).
        **env_kwargs: the single env's keywords (``g``, ``goal_velocity``, ...).
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int = 1,
        *,
        max_episode_steps: int | None = None,
        num_threads: int = 1,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        self.env_id, num_envs, num_threads, max_episode_steps = check_batch_args(
            env_id, num_envs, num_threads, max_episode_steps)
        # A gym.make'd single env: validates kwargs and render_mode as
        # gym.make does, and answers get_attr for shared attributes
        # (spec, metadata, spaces, render_mode). It is never stepped.
        single_cls = env_class(self.env_id)
        check_render_mode(render_mode, single_cls.metadata["render_modes"])
        if max_episode_steps:
            with warnings.catch_warnings():
                # gym.make's "CartPole-v0 is out of date": ccgym's vector envs do not warn.
                warnings.simplefilter("ignore", DeprecationWarning)
                self._proto = gym.make(
                    gym_id(self.env_id), max_episode_steps=int(max_episode_steps),
                    render_mode=render_mode, disable_env_checker=True, **env_kwargs,
                )
        else:  # no time limit: the raw env, as gym.make cannot leave TimeLimit out
            self._proto = single_cls(render_mode=render_mode, **env_kwargs)
        self._kind = single_cls.kind
        self.env_kwargs = dict(env_kwargs)
        self.max_episode_steps = int(max_episode_steps)
        self.num_threads = int(num_threads)
        self._core = _front_core.FrontBatch(
            self._kind, int(num_envs), batch_params(self._kind, env_kwargs),
            self.max_episode_steps, _core.AUTORESET_SAME_STEP, self.num_threads,
        )
        # step_wait copies what it returns; each public call below is one
        # call under the core's guard (Batch.exclusive): a second thread's
        # call gets a RuntimeError.
        self._core.copy_outputs = False
        set_action_errors(self._core)  # ccgym.InvalidAction: an AssertionError too
        self._param_names = frozenset(keyword_defaults(self._kind))
        self._attrs: list[dict[str, Any]] = [{} for _ in range(int(num_envs))]
        self._actions: Any = None
        self._has_reset = False
        self._viewer = None
        self.closed = False
        super().__init__(int(num_envs), self._proto.observation_space, self._proto.action_space)
        self.metadata = self._proto.metadata

    # ------------------------------------------------------------- stepping
    def reset(self) -> VecEnvObs:
        """Resets every instance with the pending seeds and options (then
        clears them, as SB3 does) and returns a copy of the observations."""
        return self._core.exclusive(self._reset)

    def _reset(self) -> VecEnvObs:
        core = self._core
        apply_seeds(core, batch_seeds(self._seeds, self.num_envs))
        # DummyVecEnv passes options only when non-empty; group equal ones so
        # each group is one C call.
        groups: list[tuple[dict, list[int]]] = []
        obs = None
        for i, opt in enumerate(self._options):
            opt = opt or {}
            for g_opt, idx in groups:
                if g_opt == opt:
                    idx.append(i)
                    break
            else:
                groups.append((opt, [i]))
        for opt, idx in groups:
            _, a, b = parse_reset_options(self._kind, opt or None)
            obs = core.reset(index_mask(idx, self.num_envs) if len(groups) > 1 else None, a, b)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._has_reset = True
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Stores the actions for :meth:`step_wait` (the step itself is synchronous)."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every instance in one C call; see the class docstring."""
        return self._core.exclusive(self._step_wait)

    def _step_wait(self) -> VecEnvStepReturn:
        if not self._has_reset:
            raise reset_needed("step()")
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() called without a pending step_async(actions)")
        core = self._core
        obs, rew, term, trunc = core.step(actions)
        dones = term | trunc
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": False}
                                       for _ in range(self.num_envs)]
        if dones.any():
            final_obs = core.final_obs
            for i in np.flatnonzero(dones).tolist():
                info = infos[i]
                info["TimeLimit.truncated"] = bool(trunc[i]) and not bool(term[i])
                info["terminal_observation"] = final_obs[i].copy()
        return obs.copy(), rew.astype(np.float32), dones, infos

    def close(self) -> None:
        """Releases the render window (``render_mode="human"``) and the
        prototype env's rendering resources; as SB3's ``DummyVecEnv`` (which
        closes each env, and Gymnasium's envs stay usable), the VecEnv keeps
        working: ``reset``, ``step`` and ``render`` still work (a window is
        opened again when needed). ``closed`` becomes True (as in SB3's
        ``SubprocVecEnv``; ``DummyVecEnv`` has no such attribute)."""
        viewer, self._viewer = self._viewer, None
        if viewer is not None:
            viewer.close()
        self._proto.close()
        self.closed = True

    # ------------------------------------------------------------ rendering
    def render(self, mode: str | None = None) -> np.ndarray | None:
        """SB3's render: with render_mode="rgb_array" the frames of all
        instances (drawn by C in one call) tiled into one image; with
        render_mode="human" that image shown in a pygame window."""
        if self.render_mode == "human" and mode in (None, "human"):
            from stable_baselines3.common.vec_env.base_vec_env import tile_images

            from ccgym.rendering import Viewer

            big = tile_images(self._frames())
            if self._viewer is None:
                self._viewer = Viewer(big.shape[1], big.shape[0],
                                      self.metadata["render_fps"], "ccgym VecEnv")
            self._viewer.show(big)
            return None
        return super().render(mode)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One (H, W, 3) uint8 frame per instance (render_mode="rgb_array"),
        drawn by C in one call; None per instance otherwise, as DummyVecEnv."""
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is "
                "`rgb_array` to obtain images."
            )
            return [None for _ in range(self.num_envs)]
        return list(self._frames())

    def _frames(self) -> np.ndarray:
        from ccgym.rendering import render_batch

        if not self._has_reset:
            raise reset_needed("render()")
        return render_batch(self._kind, self._core)

    # ----------------------------------------------- attributes and methods
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """One value per instance. Looked up in order: values stored with
        :meth:`set_attr`; ``_elapsed_steps`` (per instance, from C); the
        env's keyword parameters; attributes every instance shares, as
        ``gym.make(id).get_wrapper_attr`` answers them (``spec``,
        ``metadata``, ``render_mode``, spaces, ``_max_episode_steps``).
        Per-instance physical state lives in C and is not exposed here."""
        idx = list(self._get_indices(indices))
        if attr_name == "_elapsed_steps":
            elapsed = self._core.elapsed  # computed on each read: once
            return [int(elapsed[i]) for i in idx]
        out = []
        shared: Any = _MISSING
        for i in idx:
            if attr_name in self._attrs[i]:
                out.append(self._attrs[i][attr_name])
                continue
            if shared is _MISSING:
                shared = self._shared_attr(attr_name)
            out.append(shared)
        return out

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets an attribute on instances. The env's keyword parameters (e.g.
        Pendulum's ``g``) are shared by every instance in C, so they can only
        be set on all of them at once; they take effect from the next step.
        Other names are stored per instance and returned by :meth:`get_attr`."""
        idx = list(self._get_indices(indices))
        if attr_name in self._param_names:
            if sorted(idx) != list(range(self.num_envs)):
                raise ValueError(
                    f"{attr_name!r} is a parameter shared by all {self.num_envs} instances "
                    "of a ccgym batch; set it with indices=None"
                )
            self._core.exclusive(self._set_param, attr_name, value)
            return
        if attr_name in ("render_mode", "observation_space", "action_space", "spec",
                         "metadata", "_elapsed_steps", "_max_episode_steps"):
            raise AttributeError(f"{attr_name!r} of a ccgym VecEnv cannot be changed")
        for i in idx:
            self._attrs[i][attr_name] = value

    def _set_param(self, attr_name: str, value: Any) -> None:
        kwargs = {**self.env_kwargs, attr_name: value}
        self._core.set_params(batch_params(self._kind, kwargs))
        self.env_kwargs = kwargs

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        """Calls a method on instances. Supported: ``reset(seed=None,
        options=None)`` (resets just those instances; returns ``(obs, {})``
        each), ``get_wrapper_attr(name)``, ``set_wrapper_attr(name, value)``
        and ``render()`` (each instance's frame with render_mode="rgb_array")."""
        idx = list(self._get_indices(indices))
        if method_name == "reset":
            return self._core.exclusive(lambda: self._reset_some(idx, *method_args,
                                                                 **method_kwargs))
        if method_name == "get_wrapper_attr":
            return self.get_attr(*method_args, indices=idx, **method_kwargs)
        if method_name == "set_wrapper_attr":
            self.set_attr(*method_args, indices=idx, **method_kwargs)
            return [None] * len(idx)
        if method_name == "render":
            frames = self._frames()
            return [frames[i] if self.render_mode == "rgb_array" else None for i in idx]
        raise AttributeError(
            f"ccgym's VecEnv has no per-instance method {method_name!r}; supported: "
            "reset, get_wrapper_attr, set_wrapper_attr, render"
        )

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        """What ``env_is_wrapped`` says of ``gym.make(id)`` instances: wrapped in
        ``TimeLimit`` (when there is a limit) and ``OrderEnforcing``; never in
        SB3's ``Monitor`` (episode statistics come from :class:`VecMonitor`)."""
        implied: list[type] = [gym.wrappers.OrderEnforcing]
        if self.max_episode_steps:
            implied.append(gym.wrappers.TimeLimit)
        wrapped = any(issubclass(w, wrapper_class) for w in implied)
        return [wrapped for _ in self._get_indices(indices)]

    # --------------------------------------------------------------- extras
    @property
    def batch(self) -> _front_core.FrontBatch:
        """The C batch behind this VecEnv (package-internal: for
        :class:`VecMonitor`, ccgym's renderer and benchmarks). Its buffers are
        the live state and outputs; its methods skip this VecEnv's checks."""
        return self._core

    @property
    def episode_returns(self) -> np.ndarray:
        """Running return of each instance's current episode (float64 copy)."""
        return self._core.episode_return.copy()

    @property
    def episode_lengths(self) -> np.ndarray:
        """Running length of each instance's current episode (int64 copy)."""
        return self._core.episode_length  # a new array

    def __repr__(self) -> str:
        return f"ccgym.sb3.VecEnv({self.env_id}, num_envs={self.num_envs})"

    # -------------------------------------------------------------- helpers
    def _shared_attr(self, name: str) -> Any:
        if name in self.env_kwargs:
            return self.env_kwargs[name]
        if name in self._param_names:
            return keyword_defaults(self._kind)[name]
        return self._proto.get_wrapper_attr(name)

    def _reset_some(self, idx: list[int], seed: Any = None,
                    options: dict | None = None) -> list[tuple[np.ndarray, dict]]:
        mask = index_mask(idx, self.num_envs)
        # As DummyVecEnv's env.reset(seed=s) on each: every instance gets s,
        # and seeding comes before the options are read.
        if seed is not None:
            seed = check_seed(seed)
            apply_seeds(self._core, [seed] * self.num_envs, mask)
        _, a, b = parse_reset_options(self._kind, options)
        obs = self._core.reset(mask, a, b)
        self._has_reset = self._has_reset or len(idx) == self.num_envs
        return [(obs[i].copy(), {}) for i in idx]


_MISSING = object()


class VecMonitor(_SB3VecMonitor):
    """SB3's ``VecMonitor``, fed by the C driver when it wraps a ccgym
    :class:`VecEnv` directly.

    Adds ``infos[i]["episode"] = {"r", "l", "t"}`` on the step an episode
    ends, as SB3's ``VecMonitor``: ``r`` is an ``np.float32``, ``l`` an
    ``np.int32``, ``t`` the wall time since the monitor was created. The
    return is summed in float64 by C and then rounded once to float32, where
    SB3 accumulates in float32: identical for the integer rewards of
    CartPole, MountainCar and Acrobot, possibly a few float32 ulps apart
    (and more accurate) for Pendulum and MountainCarContinuous. Over any
    other VecEnv it is SB3's ``VecMonitor`` unchanged. It is a subclass of
    SB3's class, so ``evaluate_policy`` and ``is_vecenv_wrapped`` see it.
    """

    def __init__(self, venv: _SB3VecEnv, filename: str | None = None,
                 info_keywords: tuple[str, ...] = ()) -> None:
        self._native_core = venv.batch if isinstance(venv, VecEnv) else None
        super().__init__(venv, filename=filename, info_keywords=info_keywords)

    # SB3's running counters; with the C core they are read from C.
    @property
    def episode_returns(self) -> np.ndarray:
        if self._native_core is not None:
            return self._native_core.episode_return.astype(np.float32)
        return self._episode_returns

    @episode_returns.setter
    def episode_returns(self, value: np.ndarray) -> None:
        self._episode_returns = value

    @property
    def episode_lengths(self) -> np.ndarray:
        if self._native_core is not None:
            return self._native_core.episode_length.astype(np.int32)
        return self._episode_lengths

    @episode_lengths.setter
    def episode_lengths(self, value: np.ndarray) -> None:
        self._episode_lengths = value

    def step_wait(self) -> VecEnvStepReturn:
        core = self._native_core
        if core is None:
            return super().step_wait()
        obs, rewards, dones, infos = self.venv.step_wait()
        returns = self._step_returns(core, dones)
        if dones.any():
            # Our infos are fresh dicts each step: no copy needed.
            t = round(time.time() - self.t_start, 6)
            lengths = core.final_length
            for i in np.flatnonzero(dones).tolist():
                info = infos[i]
                info["episode"] = episode_info = self._episode_info(
                    returns[i], lengths[i], t, info)
                self.episode_count += 1
                if self.results_writer:
                    self.results_writer.write_row(episode_info)
        return obs, rewards, dones, infos

    def _step_returns(self, core: _core.Batch, dones: np.ndarray) -> np.ndarray:
        # The episode returns of the instances done at this step (others:
        # any value): the C driver's float64 sums, as SB3's VecMonitor's.
        return core.final_return

    def _episode_info(self, ret: float, length: int, t: float,
                      info: dict[str, Any]) -> dict[str, Any]:
        # SB3's VecMonitor's episode info: float32 return, int32 length.
        episode_info = {"r": np.float32(ret), "l": np.int32(length), "t": t}
        for key in self.info_keywords:
            episode_info[key] = info[key]
        return episode_info


# What Gymnasium's classic-control envs put in the info of a step: nothing.
_SINGLE_ENV_INFO: dict[str, Any] = {}


class _MonitoredVecMonitor(VecMonitor):
    """What :func:`make_vec_env` returns: :class:`VecMonitor` answering as
    SB3's ``make_vec_env`` result -- a ``DummyVecEnv`` of ``Monitor``-wrapped
    envs -- answers. Episode infos are ``Monitor``'s: ``{"r": round(return,
    6), "l": length, "t": round(seconds since creation, 6)}`` as Python
    ``float``/``int``/``float`` (the return is the float64 sum of the
    rewards in step order, as ``Monitor``'s ``sum`` of Python floats);
    ``env_is_wrapped(Monitor)`` is True; ``monitor_kwargs`` are
    ``Monitor``'s (``allow_early_resets``, ``info_keywords``,
    ``override_existing``; ``reset_keywords`` must be empty). As with
    ``Monitor``, ``info_keywords`` name keys of the single env's step info,
    which is empty for these envs: the first episode end raises KeyError."""

    def __init__(self, venv: VecEnv, filename: str | None = None,
                 allow_early_resets: bool = True, reset_keywords: tuple[str, ...] = (),
                 info_keywords: tuple[str, ...] = (), override_existing: bool = True) -> None:
        if reset_keywords:
            raise ValueError(
                f"ccgym.sb3.make_vec_env: monitor_kwargs reset_keywords={reset_keywords!r} is "
                "not supported (SB3's DummyVecEnv passes Monitor.reset only seed and "
                "options); leave it empty"
            )
        super().__init__(venv, filename=filename if override_existing else None,
                         info_keywords=tuple(info_keywords))
        if filename and not override_existing:
            from stable_baselines3.common.monitor import ResultsWriter

            self.results_writer = ResultsWriter(
                filename, header={"t_start": self.t_start, "env_id": str(None)},
                extra_keys=tuple(info_keywords), override_existing=False)
        self.allow_early_resets = bool(allow_early_resets)
        self.reset_keywords = tuple(reset_keywords)
        self._monitor_started = False
        # Monitor's return is sum() of the episode's rewards, compensated
        # from Python 3.12: kept here then (before, the C sums are the same).
        self._sums = EpisodeSums(self.num_envs) if COMPENSATED_SUM else None

    def reset(self) -> VecEnvObs:
        if not self.allow_early_resets and self._monitor_started:
            # Monitor's check: after the first reset every instance is inside
            # an episode (same-step autoreset), so each Monitor would refuse.
            raise RuntimeError(
                "Tried to reset an environment before done. If you want to allow early resets, "
                "wrap your env with Monitor(env, path, allow_early_resets=True)"
            )
        obs = super().reset()
        self._monitor_started = True
        if self._sums is not None:
            self._sums.clear()
        return obs

    def _step_returns(self, core: _core.Batch, dones: np.ndarray) -> np.ndarray:
        sums = self._sums
        if sums is None:
            return core.final_return
        sums.add(core.reward)
        returns = sums.s.copy()
        for i in np.flatnonzero(dones).tolist():
            returns[i] = sums.total(i)
        sums.clear(dones)
        return returns

    # Monitor's own attributes: SB3's get_attr on its DummyVecEnv of
    # Monitor-wrapped envs finds them on Monitor, the outermost wrapper.
    _MONITOR_ATTRS = ("allow_early_resets", "info_keywords", "reset_keywords", "t_start")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name in self._MONITOR_ATTRS:
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]
        return self.venv.get_attr(attr_name, indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if attr_name in self._MONITOR_ATTRS:
            # One monitor for the whole batch: all instances or none.
            if sorted(set(self._get_indices(indices))) != list(range(self.num_envs)):
                raise ValueError(
                    f"ccgym.sb3: {attr_name!r} is the batch monitor's, shared by every "
                    "instance; set it on all of them (indices=None)")
            if attr_name == "allow_early_resets":
                value = bool(value)
            setattr(self, attr_name, value)
            return
        self.venv.set_attr(attr_name, value, indices)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        from stable_baselines3.common.monitor import Monitor

        inner = self.venv.env_is_wrapped(wrapper_class, indices)
        return [w or issubclass(Monitor, wrapper_class) for w in inner]

    def _episode_info(self, ret: float, length: int, t: float,
                      info: dict[str, Any]) -> dict[str, Any]:
        # Monitor's episode info: Python float/int, the return rounded to 6
        # digits; its info_keywords read the single env's step info, which
        # is {} for every classic-control env: KeyError, as in SB3.
        episode_info = {"r": round(float(ret), 6), "l": int(length), "t": t}
        for key in self.info_keywords:
            episode_info[key] = _SINGLE_ENV_INFO[key]
        return episode_info


def make_vec_env(
    env_id: str | Callable[..., gym.Env],
    n_envs: int = 1,
    seed: int | None = None,
    start_index: int = 0,
    monitor_dir: str | None = None,
    wrapper_class: Any = None,
    env_kwargs: dict[str, Any] | None = None,
    vec_env_cls: Any = None,
    vec_env_kwargs: dict[str, Any] | None = None,
    monitor_kwargs: dict[str, Any] | None = None,
    wrapper_kwargs: dict[str, Any] | None = None,
    *,
    monitor: bool = True,
) -> _SB3VecEnv:
    """A ccgym :class:`VecEnv` of ``n_envs`` instances, wrapped in the native
    :class:`VecMonitor` — the counterpart of SB3's ``make_vec_env(env_id, ...)``.

    As in SB3: ``seed`` is stored with ``venv.seed(seed)`` for the first
    ``reset()`` (instance i gets seed + i; None draws a random base seed) and
    the action space is seeded with ``seed + start_index``, so
    ``action_space.sample()`` matches SB3's; ``env_kwargs`` go to the env
    constructor.

    Differences from SB3:

    - The native batch needs a ccgym id string, no ``wrapper_class`` and
      ``vec_env_cls`` None (or this :class:`VecEnv`); ``vec_env_kwargs`` are
      then :class:`VecEnv` keywords (``num_threads``, ``max_episode_steps``).
      Given a callable ``env_id``, a ``wrapper_class`` (a Gymnasium wrapper
      cannot wrap one instance of a C batch) or another ``vec_env_cls``, it
      builds what SB3's ``make_vec_env`` builds (by default a
      ``DummyVecEnv`` of N Python envs: a ccgym id is ``gym.make``'d as
      ``ccgym/<Id>``, ccgym's single env), with a
      :class:`NativeBatchOffWarning`: the same results as SB3's over the
      stock env, at the speed of N single envs. ``monitor=False`` is native
      only (SB3 always adds a ``Monitor``).
    - Monitoring is one :class:`VecMonitor` over the batch instead of a
      ``Monitor`` per env (``monitor=False`` leaves it out), but it answers
      as the ``Monitor`` wrappers would: episode infos equal ``Monitor``'s in
      value and type (``r`` a Python float rounded to 6 digits, ``l`` an
      int, ``t`` a float), ``env_is_wrapped(Monitor)`` is True and
      ``monitor_kwargs`` are ``Monitor``'s (``allow_early_resets``,
      ``info_keywords``, ``override_existing``; ``reset_keywords`` must be
      empty). With ``monitor_dir`` it writes one file,
      ``<monitor_dir>/<start_index>.monitor.csv`` (SB3: one per env), which
      SB3's ``load_results`` reads. The result is also
      ``is_vecenv_wrapped(..., VecMonitor)``, where SB3's is not.

    As SB3's, ``render_mode`` defaults to ``"rgb_array"`` (so
    ``VecVideoRecorder`` works); ``env_kwargs={"render_mode": None}`` turns
    it off.
    """
    if isinstance(env_id, str):
        env_id = resolve_env_id(env_id)  # gymnasium.error.Error for an id ccgym lacks
    elif not callable(env_id):
        raise TypeError(
            f"ccgym.sb3.make_vec_env takes a ccgym env id string or a callable returning an "
            f"env, got {env_id!r}")
    if wrapper_kwargs and wrapper_class is None:
        raise ValueError("wrapper_kwargs need a wrapper_class")
    if callable(env_id) or wrapper_class is not None or vec_env_cls not in (None, VecEnv):
        if not monitor:
            raise ValueError(
                "monitor=False needs the native batch (a ccgym id, no wrapper_class, "
                "vec_env_cls None): SB3's make_vec_env always adds a Monitor")
        why = ("a callable env_id" if callable(env_id) else
               "a wrapper_class" if wrapper_class is not None else f"vec_env_cls={vec_env_cls!r}")
        warnings.warn(
            f"ccgym.sb3.make_vec_env with {why}: the native batch is off; this is SB3's "
            f"make_vec_env over {n_envs} Python envs (ccgym's single env for a ccgym id), "
            "with SB3's results at the speed of single envs", NativeBatchOffWarning,
            stacklevel=2)
        from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

        return sb3_make_vec_env(
            gym_id(resolve_env_id(env_id)) if isinstance(env_id, str) else env_id, n_envs=n_envs,
            seed=seed, start_index=start_index, monitor_dir=monitor_dir,
            wrapper_class=wrapper_class, env_kwargs=env_kwargs, vec_env_cls=vec_env_cls,
            vec_env_kwargs=vec_env_kwargs, monitor_kwargs=monitor_kwargs,
            wrapper_kwargs=wrapper_kwargs)
    # As SB3's make_vec_env: render_mode "rgb_array" unless env_kwargs say otherwise.
    env_kwargs = {"render_mode": "rgb_array", **(env_kwargs or {})}
    venv = VecEnv(env_id, n_envs, **(vec_env_kwargs or {}), **env_kwargs)
    if seed is not None:
        venv.action_space.seed(seed + start_index)
    result: _SB3VecEnv = venv
    if monitor:
        filename = None
        if monitor_dir is not None:
            os.makedirs(monitor_dir, exist_ok=True)
            filename = os.path.join(monitor_dir, str(start_index))
        result = _MonitoredVecMonitor(venv, filename=filename, **(monitor_kwargs or {}))
    elif monitor_dir is not None:
        raise ValueError("monitor_dir needs monitor=True")
    venv.seed(seed)
    return result
