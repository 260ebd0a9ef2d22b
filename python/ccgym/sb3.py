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

import copy
import inspect
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

from ccgym import _attributes, _core, _front_core, rendering
from ccgym._frontend import (
    COMPENSATED_SUM,
    EpisodeSums,
    apply_seeds,
    batch_seeds,
    check_batch_args,
    check_render_mode,
    check_seed,
    index_mask,
    parse_reset_options,
    reset_needed,
    resolve_env_id,
    set_action_errors,
)
from ccgym._kinds import check_env_keywords, env_class, of_id
from ccgym._params import (
    PHYSICS,
    batch_params,
    integer_operand,
    keyword_defaults,
    physics_value,
)
from ccgym._registration import gym_id
from ccgym.rendering import render_batch

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
        # A misspelled keyword (num_thread) is this class's TypeError with a
        # did-you-mean, not the env class's that the user did not call.
        check_env_keywords("VecEnv", self.env_id, env_kwargs,
                           ("max_episode_steps", "num_threads", "render_mode"), physics=False)
        # The id's facts come from its Kind (ccgym._kinds); the gym.make'd
        # single env that answers get_attr for shared attributes (spec,
        # metadata, spaces, render_mode) is made on first use (_proto).
        desc = of_id(self.env_id)
        single_cls = desc.env_class
        check_render_mode(render_mode, desc.metadata["render_modes"])
        self._render_mode_arg = render_mode
        self._proto_env: gym.Env | None = None
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
        # An integer max_torque / power: integer actions are refused (the core's rule).
        self._core.integer_operand = integer_operand(self._kind, env_kwargs)
        self._param_names = frozenset(keyword_defaults(self._kind))
        # Instance i as DummyVecEnv's env i, for get_attr/set_attr/env_method:
        # a gym.make'd ccgym single env made on first use (_mirror) and kept
        # equal to the batch's row i (_pull after each batch call, _push
        # before it and after each call on it).
        self._mirrors: dict[int, _Mirror] = {}
        # The seed each instance's stream was last seeded with (None: not
        # known) and how often it was reseeded (a Generator handed out before
        # a reseed keeps its old stream, as Gymnasium's old Generator does).
        self._np_seeds: list[int | None] = [None] * int(num_envs)
        self._seed_count = [0] * int(num_envs)
        self._actions: Any = None
        self._viewer = None
        self.closed = False
        # Class-level values (Gymnasium's class attributes) shape the spaces
        # the single env's __init__ builds: then they are the proto's.
        obs_space, act_space = (
            (self._proto.observation_space, self._proto.action_space)
            if getattr(single_cls, "_ccgym_class_values", False) else desc.spaces())
        super().__init__(int(num_envs), obs_space, act_space)
        self.metadata = desc.metadata

    # ------------------------------------------------------------- stepping
    def reset(self) -> VecEnvObs:
        """Resets every instance with the pending seeds and options (then
        clears them, as SB3 does) and returns a copy of the observations."""
        return self._core.exclusive(self._reset)

    def _reset(self) -> VecEnvObs:
        core = self._core
        self._push_all()
        seeds = batch_seeds(self._seeds, self.num_envs)
        apply_seeds(core, seeds)
        self._seeded(seeds, range(self.num_envs))
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
        core.has_reset = True
        self._pull_all()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Stores the actions for :meth:`step_wait` (the step itself is synchronous)."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every instance in one C call; see the class docstring."""
        return self._core.exclusive(self._step_wait)

    def _step_wait(self) -> VecEnvStepReturn:
        if not self._core.has_reset:
            raise reset_needed("step()")
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() called without a pending step_async(actions)")
        core = self._core
        if self._mirrors:
            self._push_all()
        obs, rew, term, trunc = core.step(actions)
        if self._mirrors:
            self._pull_all()
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
        if self._proto_env is not None:
            self._proto_env.close()
        self.closed = True

    # ------------------------------------------------------------ rendering
    def render(self, mode: str | None = None) -> np.ndarray | None:
        """SB3's render: with render_mode="rgb_array" the frames of all
        instances (drawn by C in one call) tiled into one image; with
        render_mode="human" that image shown in a pygame window."""
        if self.render_mode == "human" and mode in (None, "human"):
            from stable_baselines3.common.vec_env.base_vec_env import tile_images

            big = tile_images(self._frames())
            if self._viewer is None:
                self._viewer = rendering.Viewer(big.shape[1], big.shape[0],
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
        if not self._core.has_reset:
            raise reset_needed("render()")
        return render_batch(self._kind, self._core)

    # ----------------------------------------------- attributes and methods
    # SB3's DummyVecEnv answers these on env i, a gym.make'd env: get_attr
    # is env_i.get_wrapper_attr(name), set_attr is setattr(env_i, ...) on
    # the outermost wrapper (TimeLimit: the env's own attribute is not
    # changed), env_method is env_i.get_wrapper_attr(method)(...). Here
    # env i is a mirror of instance i (_Mirror): the same calls on it, and
    # what they change in the env (state, RNG, physics, the TimeLimit
    # counter) goes into the batch's row i. What the batch cannot step as
    # the single env would (a time limit of its own, float32 physics, an
    # assigned Generator, ...) is refused, the instance unchanged.

    #: Read from the prototype env while instance i has no mirror: every
    #: instance answers the same (immutable values only, see get_attr).
    _SHARED = frozenset({"spec", "metadata", "render_mode", "observation_space",
                         "action_space", "_max_episode_steps", "reward_range"})

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """One value per instance, as DummyVecEnv's ``get_attr`` over
        ``gym.make(env_id)`` envs answers it (``env_i.get_wrapper_attr``):
        the outermost wrapper's (values stored by :meth:`set_attr`,
        ``_elapsed_steps``, ``_max_episode_steps``) or the env's own, per
        instance: ``state``, ``np_random`` (a Generator over the instance's
        stream: drawing from it advances what its next reset draws),
        ``np_random_seed``, physical parameters, ``unwrapped``, ..."""
        idx = list(self._get_indices(indices))
        return self._core.exclusive(self._get_attr, attr_name, idx)

    def _get_attr(self, attr_name: str, idx: list[int]) -> list[Any]:
        out = []
        elapsed = None
        for i in idx:
            m = self._mirrors.get(i)
            if m is None:
                if attr_name == "_elapsed_steps" and self.max_episode_steps \
                        and self._core.has_reset:  # (TimeLimit's is None before)
                    if elapsed is None:
                        elapsed = self._core.elapsed  # computed on each read: once
                    out.append(int(elapsed[i]))
                    continue
                value = self._proto_attr(attr_name)
                if value is not _MISSING:
                    out.append(value)
                    continue
                # A mirror made for this read is kept only if the answer is
                # an object the caller may change the env through (a state
                # array, np_random, the env): then every step keeps it
                # equal to the batch. has_attr and reads of numbers leave none.
                m = self._mirror(i)
                try:
                    value = m.env.get_wrapper_attr(attr_name)
                except BaseException:
                    del self._mirrors[i]
                    raise
                if isinstance(value, _IMMUTABLE):
                    del self._mirrors[i]
                out.append(value)
                continue
            out.append(m.env.get_wrapper_attr(attr_name))
        return out

    @property
    def _proto(self) -> gym.Env:
        """A gym.make'd single env of this id and keywords (never stepped):
        what every instance without a mirror answers for a shared attribute."""
        if self._proto_env is None:
            if self.max_episode_steps:
                with warnings.catch_warnings():
                    # gym.make's "CartPole-v0 is out of date": ccgym's vector envs do not warn.
                    warnings.simplefilter("ignore", DeprecationWarning)
                    self._proto_env = gym.make(
                        gym_id(self.env_id), max_episode_steps=self.max_episode_steps,
                        render_mode=self._render_mode_arg, disable_env_checker=True,
                        **self.env_kwargs)
            else:  # no time limit: the raw env, as gym.make cannot leave TimeLimit out
                self._proto_env = of_id(self.env_id).env_class(
                    render_mode=self._render_mode_arg, **self.env_kwargs)
        return self._proto_env

    def _proto_attr(self, name: str) -> Any:
        """What every instance without a mirror answers for name, or
        _MISSING when it depends on the instance or may be mutated."""
        if name in self._SHARED:
            return self._proto.get_wrapper_attr(name)
        if name in _core.env_info(self._kind).attributes or name in self._param_names:
            try:
                value = self._proto.get_wrapper_attr(name)
            except AttributeError:
                return _MISSING
            if isinstance(value, (int, float, str, bool, np.generic, type(None))):
                return value
        return _MISSING

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """``setattr(env_i, attr_name, value)`` on each instance's outermost
        wrapper, as DummyVecEnv does: it is read back by :meth:`get_attr`
        and does not change the env's physics (Gymnasium's wrappers keep
        their own attributes); change those with ``env_method(
        "set_wrapper_attr", name, value, indices=...)``, per instance. What
        the batch cannot step (a per-instance ``_max_episode_steps``, ...)
        is refused with a ValueError, the instance unchanged."""
        idx = list(self._get_indices(indices))
        self._core.exclusive(self._on_mirrors, idx, setattr, (attr_name, value), {})

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        """Calls a method on instances, as DummyVecEnv does
        (``env_i.get_wrapper_attr(method_name)(*args, **kwargs)``).
        ``reset(seed=None, options=None)`` resets just those instances in
        one C call (returns ``(obs, {})`` each) and ``render()`` returns each
        instance's frame (render_mode="rgb_array"); any other method runs on
        a mirror of the instance (``set_wrapper_attr("g", 2.0)`` changes
        that instance's physics), and what it changes goes into the batch.
        Stepping one instance alone (``env_method("step", ...)``) is refused:
        the batch steps every instance together."""
        idx = list(self._get_indices(indices))
        if method_name == "reset":
            return self._core.exclusive(lambda: self._reset_some(idx, *method_args,
                                                                 **method_kwargs))
        if method_name == "render":
            frames = self._frames()
            return [frames[i] if self.render_mode == "rgb_array" else None for i in idx]
        if method_name == "step":
            raise ValueError(
                "ccgym.sb3.VecEnv: env_method('step') would step one instance of a batch "
                "that steps all of them together in C; use step_async/step_wait")

        def call(env: gym.Env, *args: Any, **kwargs: Any) -> Any:
            return env.get_wrapper_attr(method_name)(*args, **kwargs)

        return self._core.exclusive(self._on_mirrors, idx, call, method_args, method_kwargs)

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

    # Pickling and deepcopy rebuild the VecEnv and restore the batch (states,
    # RNG streams, step counts, per-instance physics), the instances'
    # mirrors (what set_attr stored) and SB3's pending seeds and options:
    # the copy steps as the original from there on.
    def __getstate__(self) -> dict[str, Any]:
        return self._core.exclusive(self._get_pickle_state)

    def _get_pickle_state(self) -> dict[str, Any]:
        self._push_all()
        return {
            "kwargs": {"env_id": self.env_id, "num_envs": self.num_envs,
                       "max_episode_steps": self.max_episode_steps,
                       "num_threads": self.num_threads, "render_mode": self._render_mode_arg,
                       **self.env_kwargs},
            "core": self._core.get_state(),
            "params": self._core.params_buffer.copy(),
            "mirrors": {i: (m.env, m.seed_count) for i, m in self._mirrors.items()},
            "seeds": (list(self._np_seeds), list(self._seed_count)),
            "pending": (self._seeds, self._options, self._actions),
            "reset_infos": self.reset_infos,
            "closed": self.closed,
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        kwargs = dict(data["kwargs"])
        VecEnv.__init__(self, kwargs.pop("env_id"), kwargs.pop("num_envs"), **kwargs)
        self._mirrors = {int(i): _Mirror(env, count)
                         for i, (env, count) in data["mirrors"].items()}
        params = data["params"]
        if params.nbytes != self._core.params_buffer.nbytes:
            self._per_instance_params()
        self._core.params_buffer[...] = params
        self._core.set_state(data["core"])
        self._np_seeds, self._seed_count = (list(x) for x in data["seeds"])
        self._seeds, self._options, self._actions = data["pending"]
        self.reset_infos = data["reset_infos"]
        self.closed = bool(data["closed"])

    # -------------------------------------------------------------- helpers
    def _reset_some(self, idx: list[int], seed: Any = None,
                    options: dict | None = None) -> list[tuple[np.ndarray, dict]]:
        mask = index_mask(idx, self.num_envs)
        # As DummyVecEnv's env.reset(seed=s) on each: every instance gets s,
        # and seeding comes before the options are read.
        self._push_all()
        if seed is not None:
            seed = check_seed(seed)
            apply_seeds(self._core, [seed] * self.num_envs, mask)
            self._seeded([seed] * self.num_envs, idx)
        _, a, b = parse_reset_options(self._kind, options)
        obs = self._core.reset(mask, a, b)
        # The VecEnv counts as reset (step, render) once every instance is.
        self._core.has_reset = self._core.has_reset or len(idx) == self.num_envs
        self._pull_all()
        return [(obs[i].copy(), {}) for i in idx]

    # ------------------------------------------------------------ mirrors
    def _seeded(self, seeds: Any, idx: Any) -> None:
        """Records the seeds batch_seeds gave for instances idx."""
        if seeds is None:
            return
        for i in idx:
            s = seeds + i if isinstance(seeds, int) else seeds[i]
            if s is not None:
                self._np_seeds[i] = int(s)
                self._seed_count[i] += 1

    def _mirror(self, i: int) -> _Mirror:
        m = self._mirrors.get(i)
        if m is None:
            env = _make_mirror(self.env_id, self.max_episode_steps, self._render_mode_arg,
                               self.env_kwargs)
            m = _Mirror(env)
            if self._core.has_reset:
                self._load(i, m, self._core.get_state())
            self._mirrors[i] = m
            self._per_instance_params()
        return m

    def _per_instance_params(self) -> None:
        """Gives every instance its own C params struct (once): a mirror's
        physics go into its instance's struct alone."""
        core = self._core
        size = _core.env_info(self._kind).params_size
        if core.params_buffer.nbytes == size * self.num_envs or self.num_envs == 1:
            return
        name = next(iter(PHYSICS[self._kind]))
        value = self.env_kwargs.get(name, PHYSICS[self._kind][name])
        core.set_params({**batch_params(self._kind, self.env_kwargs),
                         name: physics_value(self._kind, name,
                                             np.full(self.num_envs, value), self.num_envs)})

    def _load(self, i: int, m: _Mirror, snap: dict[str, Any]) -> None:
        """Makes mirror m's env instance i of the batch (snapshot snap), if
        it is not already: the state, RNG stream, step count."""
        inner = m.inner
        row = _snapshot_row(snap, i, inner.batch.get_state())
        if m.seed_count != self._seed_count[i]:
            inner._drop_stream_rng()  # handed-out Generators keep the old stream
            m.seed_count = self._seed_count[i]
            buffered = (0, 0)
        else:
            st = inner._np_random.bit_generator.state
            buffered = (int(st["has_uint32"]), int(st["uinteger"]))
        if row is not None:
            seed = self._np_seeds[i]
            row["np_random_seed"] = -1 if seed is None else seed
            row["np_random_uint32"] = buffered
            inner.set_state(row)
        if m.limit is not None and snap["has_reset"]:
            m.limit._elapsed_steps = int(snap["elapsed"][i])
        if m.order is not None:
            m.order._has_reset = bool(snap["has_reset"])

    def _pull_all(self) -> None:
        if self._mirrors:
            snap = self._core.get_state()
            for i, m in self._mirrors.items():
                self._load(i, m, snap)

    def _push_all(self) -> None:
        for i, m in self._mirrors.items():
            self._push(i, m)

    def _push(self, i: int, m: _Mirror) -> None:
        """Writes what mirror m's env changed into instance i (refused with
        the instance unchanged when the batch cannot step it so)."""
        why = self._refusal(m)
        if why is not None:
            # float32 physics: the TypeError the vector env's set_physics raises.
            error = TypeError if "float32" in why else ValueError
            raise error(f"ccgym.sb3.VecEnv instance {i}: {why}")
        inner = m.inner
        inner._sync()  # an in-place edit of its state object (refused: raises)
        one = inner.batch.get_state()
        snap = self._core.get_state()
        size = _core.env_info(self._kind).state_size
        changed = False
        rows = (("state_buffer", slice(i * size, (i + 1) * size)), ("rng_state", i))
        for key, where in rows:
            if not np.array_equal(snap[key][where], one[key][0 if key == "rng_state" else
                                                             slice(None)]):
                snap[key][where] = one[key][0 if key == "rng_state" else slice(None)]
                changed = True
        if m.limit is not None and m.limit._elapsed_steps is not None \
                and int(snap["elapsed"][i]) != int(m.limit._elapsed_steps):
            snap["elapsed"][i] = int(m.limit._elapsed_steps)
            changed = True
        if changed:
            self._core.set_state(snap)
        psize = _core.env_info(self._kind).params_size
        mine = inner.batch.params_buffer[:psize]
        dst = self._core.params_buffer
        if dst.nbytes == psize * self.num_envs:
            dst[i * psize:(i + 1) * psize] = mine
        elif not np.array_equal(dst[:psize], mine):  # one instance: its own struct
            dst[:psize] = mine
        # An integer max_torque / power on any instance: the batch refuses
        # integer actions, as that instance's single env does.
        self._core.integer_operand = next(
            (o for o in [integer_operand(self._kind, self.env_kwargs),
                         *(mm.inner.batch.integer_operand for mm in self._mirrors.values())]
             if o is not None), None)

    def _refusal(self, m: _Mirror) -> str | None:
        """Why the batch cannot step mirror m's env as it would step, or None."""
        if m.limit is not None and m.limit._max_episode_steps != self.max_episode_steps:
            return (f"_max_episode_steps={m.limit._max_episode_steps!r}: every instance of "
                    f"the batch has the time limit {self.max_episode_steps}")
        inner = m.inner
        d = inner.__dict__
        narrow = _attributes.narrow_faces(inner)
        if narrow:
            return (f"{', '.join(narrow)} as numpy float32/float16: batched envs compute with "
                    "float64 (the single env computes in their type)")
        if d.get("_user_rng") is not None:
            return ("an assigned np_random Generator: the batch draws from the instance's "
                    "own stream (draw from get_attr('np_random') instead)")
        if d.get("_step_error") is not None or "_watched" in d \
                or d.get("_narrow_action") is not None or inner._action_type_matters():
            return ("its attributes or state make the single env step differently from the "
                    "batch (a typed value or a followed list)")
        return None

    def _on_mirrors(self, idx: list[int], fn: Any, args: tuple, kwargs: dict) -> list[Any]:
        """fn(env_i, *args, **kwargs) on the mirror of each instance in idx,
        then its changes into the batch; a refused change is undone."""
        out = []
        for i in idx:
            m = self._mirror(i)
            saved = copy.deepcopy(m.env)
            try:
                out.append(fn(m.env, *args, **kwargs))
                self._push(i, m)
            except BaseException:
                self._mirrors[i] = _Mirror(saved, m.seed_count)
                raise
        return out


class _Mirror:
    """A gym.make'd ccgym single env standing for one instance of a VecEnv
    (env, its TimeLimit and OrderEnforcing wrappers, the unwrapped env)."""

    __slots__ = ("env", "inner", "limit", "order", "seed_count")

    def __init__(self, env: gym.Env, seed_count: int = 0) -> None:
        self.env = env
        self.inner = env.unwrapped
        self.limit = self.order = None
        e = env
        while isinstance(e, gym.Wrapper):
            if isinstance(e, gym.wrappers.TimeLimit) and self.limit is None:
                self.limit = e
            if isinstance(e, gym.wrappers.OrderEnforcing) and self.order is None:
                self.order = e
            e = e.env
        self.seed_count = seed_count


def _make_mirror(env_id: str, max_episode_steps: int, render_mode: str | None,
                 env_kwargs: dict[str, Any]) -> gym.Env:
    """An env as DummyVecEnv's over gym.make(env_id) holds (the raw env
    without a time limit, as the prototype)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if max_episode_steps:
            return gym.make(gym_id(env_id), max_episode_steps=max_episode_steps,
                            render_mode=render_mode, disable_env_checker=True, **env_kwargs)
        return env_class(env_id)(render_mode=render_mode, **env_kwargs)


def _snapshot_row(snap: dict[str, Any], i: int, one: dict[str, Any]) -> dict[str, Any] | None:
    """Instance i of batch snapshot snap as a one-instance snapshot, or None
    when the one-instance snapshot ``one`` already holds it."""
    n = snap["num_envs"]
    row = dict(one)
    same = bool(one["has_reset"]) == bool(snap["has_reset"])
    for key, value in snap.items():
        if not isinstance(value, np.ndarray):
            continue
        if key == "state_buffer":
            size = value.shape[0] // n
            part = value[i * size:(i + 1) * size].copy()
        else:
            part = value[i:i + 1].copy()
        if key in ("state_buffer", "rng_state", "elapsed"):
            same = same and np.array_equal(part, one[key])
        row[key] = part
    row["has_reset"] = bool(snap["has_reset"])
    row["pending_reset"] = np.zeros(1, np.bool_)
    return None if same else row


_MISSING = object()
_IMMUTABLE = (int, float, complex, str, bytes, bool, np.generic, type(None))


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

    # Copies and pickles: the batch is the wrapped VecEnv's (which copies
    # itself whole), so the monitor takes the copy's.
    # (SB3's class_attributes, a dict of the class's members, is rebuilt.)
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_native_core": None, "class_attributes": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.class_attributes = dict(inspect.getmembers(self.__class__))
        if isinstance(self.venv, VecEnv):
            self._native_core = self.venv.batch

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
        # SB3's make_vec_env returns the DummyVecEnv itself, whose metadata
        # is the env's (render_fps: VecVideoRecorder's frame rate).
        self.metadata = venv.metadata
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
