"""Tianshou front end: Tianshou's vector-env interface over ccgym's batch.

Tianshou's ``Collector`` takes a ``tianshou.env.BaseVectorEnv``: ``len(env)``,
``step(action, id)`` on the ready envs, ``reset(env_id=...)`` of the finished
ones (its envs never autoreset), ``seed``, ``get_env_attr``/``set_env_attr``,
``render``, ``close``. :class:`VectorEnv` implements that interface over one
ccgym batch in ``DISABLED`` autoreset mode, so a step of all N envs is one C
call and the collector's resets are one masked C reset.

With the same seeds it returns what ``DummyVectorEnv([lambda: gym.make(id)] * N)``
returns (same observations, rewards, flags, ``info["env_id"]``, per-env
action spaces seeded as Tianshou seeds them), checked in a ``Collector`` by
``tests/test_tianshou.py``.

Importing this module imports Tianshou (and torch): it is not imported by
``import ccgym``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from tianshou.env import BaseVectorEnv

from ccgym._frontend import InvalidActionType, InvalidActionValue
from ccgym.vector import VectorEnv, make_vec

__all__ = ["VectorEnv"]


class VectorEnv(BaseVectorEnv):
    """``num_envs`` instances of a ccgym env as a Tianshou vector env.

    Semantics are those of Tianshou's ``DummyVectorEnv`` over
    ``gymnasium.make(env_id)`` envs:

    - ``seed(s)``: env i (and its action space) gets s + i, applied at once
      with a reset, as ``DummyEnvWorker.seed`` does; a list gives one seed per env.
    - ``reset(env_id=None, seed=..., options=...)``: resets the given envs
      (all by default); the keywords go to each env's ``reset`` as Tianshou
      passes them, so ``seed=s`` gives every listed env the seed s.
      Returns ``(obs, infos)``: obs of the listed envs, infos an object array
      of dicts.
    - ``step(action, id=None)``: steps the listed envs (all by default) with
      ``action[k]`` for ``id[k]``; a finished env must be reset before its
      next step, as in Tianshou. Each info dict has ``"env_id"``. Stepping a
      strict subset (the tail of ``Collector.collect(n_episode=...)``) steps
      the whole batch and restores the other instances' snapshots.
    - ``action_space`` / ``observation_space`` (through Tianshou's
      attribute redirect) are per-env lists of the single env's spaces.

    Args:
        env_id: a ccgym id, ``"CartPole-v1"`` or ``"ccgym/CartPole-v1"``.
        num_envs: the number of envs.
        **vec_kwargs: :class:`ccgym.vector.VectorEnv` keywords
            (``max_episode_steps``, ``num_threads``, ``render_mode``, physics, ...).
    """

    def __init__(self, env_id: str, num_envs: int = 1, **vec_kwargs: Any) -> None:
        if "autoreset_mode" in vec_kwargs:
            raise ValueError("ccgym.tianshou.VectorEnv is always autoreset_mode='Disabled': "
                             "Tianshou's collector resets finished envs itself")
        if "copy" in vec_kwargs:
            raise ValueError("ccgym.tianshou.VectorEnv always returns fresh arrays")
        # BaseVectorEnv.__init__ builds one worker per env: the batch replaces
        # them, so only its bookkeeping fields are set here.
        self._venv = make_vec(env_id, num_envs, autoreset_mode="Disabled", **vec_kwargs)
        self._env_fns = []
        self.workers = []
        self.worker_class = type(None)
        self.env_num = self._venv.num_envs
        self.wait_num = self.env_num
        self.timeout = None
        self.is_async = False
        self.waiting_conn = []
        self.waiting_id = []
        self.ready_id = list(range(self.env_num))
        self.is_closed = False
        single = self._venv.single_action_space
        self._action_spaces = [copy.deepcopy(single) for _ in range(self.env_num)]
        self._attrs: list[dict[str, Any]] = [{} for _ in range(self.env_num)]

    @property
    def venv(self) -> VectorEnv:
        """The ccgym vector env underneath (DISABLED autoreset)."""
        return self._venv

    # ------------------------------------------------------------ attributes
    def get_env_attr(self, key: str, id: Any = None) -> list[Any]:
        """Per-env attributes: the spaces, spec and metadata of the single
        env, values set with :meth:`set_env_attr`, else the vector env's."""
        self._assert_is_not_closed()
        ids = self._ids(id)
        if key == "action_space":
            return [self._action_spaces[j] for j in ids]
        if key == "observation_space":
            return [self._venv.single_observation_space] * len(ids)
        out = []
        for j in ids:
            if key in self._attrs[j]:
                out.append(self._attrs[j][key])
            elif key == "spec":
                out.append(getattr(self._venv, "spec", None))
            else:
                out.append(getattr(self._venv, key))
        return out

    def set_env_attr(self, key: str, value: Any, id: Any = None) -> None:
        """Stores a per-env attribute (returned by :meth:`get_env_attr`); the
        physics of the batch are set with ``venv.set_physics``."""
        self._assert_is_not_closed()
        for j in self._ids(id):
            if key == "action_space":
                self._action_spaces[j] = value
            else:
                self._attrs[j][key] = value

    def _ids(self, id: Any) -> np.ndarray:
        if id is None:
            return np.arange(self.env_num)
        ids = np.atleast_1d(np.asarray(id))
        if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
            raise TypeError(f"env ids must be an int or a 1-d sequence of ints, got {id!r}")
        if ids.size and (ids.min() < 0 or ids.max() >= self.env_num):
            raise IndexError(f"env ids must be in [0, {self.env_num}), got {id!r}")
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"env ids must be distinct, got {id!r}")
        return ids.astype(np.intp)

    def _mask(self, ids: np.ndarray) -> np.ndarray | None:
        if len(ids) == self.env_num:
            return None
        mask = np.zeros(self.env_num, dtype=bool)
        mask[ids] = True
        return mask

    # -------------------------------------------------------------- stepping
    def reset(self, env_id: Any = None, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Resets the listed envs (all by default) with one masked C reset."""
        self._assert_is_not_closed()
        ids = self._ids(env_id)
        seed = kwargs.pop("seed", None)
        options = dict(kwargs.pop("options", None) or {})
        if kwargs:
            raise TypeError(f"reset() got unexpected keywords {sorted(kwargs)}")
        if "reset_mask" in options:
            raise ValueError("pass env_id to choose the envs to reset, not options['reset_mask']")
        seeds: Any = None
        if seed is not None:
            seeds = [None] * self.env_num
            for j in ids:
                seeds[j] = seed
        mask = self._mask(ids)
        if mask is not None:
            options["reset_mask"] = mask
        obs, _ = self._venv.reset(seed=seeds, options=options or None)
        return obs[ids], np.array([{} for _ in ids])

    def step(self, action: Any, id: Any = None):
        """Steps the listed envs (all by default): ``(obs, rew, terminated,
        truncated, info)`` of those envs, in the order of ``id``."""
        self._assert_is_not_closed()
        if action is None:  # Tianshou's ValueError, an InvalidAction as the others
            raise InvalidActionValue("action must be not-None for non-async")
        ids = self._ids(id)
        try:
            action = np.asarray(action)
        except ValueError as e:  # ragged: as the vector env refuses it
            raise InvalidActionType(f"actions must be an array: {e}") from None
        if action.ndim == 0 or len(action) != len(ids):
            raise InvalidActionValue(
                f"expected one action for each of the {len(ids)} envs, got "
                f"{'a scalar' if action.ndim == 0 else len(action)}")
        if len(ids) == self.env_num and np.array_equal(ids, np.arange(self.env_num)):
            obs, rew, term, trunc, _ = self._venv.step(action)
        else:
            obs, rew, term, trunc = self._step_subset(action, ids)
            obs, rew, term, trunc = obs[ids], rew[ids], term[ids], trunc[ids]
        infos = np.array([{"env_id": int(j)} for j in ids])
        return obs, rew, term, trunc, infos

    def _step_subset(self, action: np.ndarray, ids: np.ndarray):
        """Steps only ``ids``: the batch steps every instance (the others
        with a copy of their last action slot, any valid value), then the
        others get their snapshots back, so their physics, RNG streams,
        counters and outputs are as before."""
        venv = self._venv
        before = venv.get_state()
        full = np.empty((self.env_num, *action.shape[1:]), dtype=action.dtype)
        full[:] = action[0] if len(action) else venv.single_action_space.sample()
        full[ids] = action
        keep = np.ones(self.env_num, dtype=bool)
        keep[ids] = False
        obs, rew, term, trunc, _ = venv.step(full)
        after = venv.get_state()
        merged = dict(after)
        for key, value in after.items():
            if isinstance(value, np.ndarray) and key != "state_buffer" \
                    and value.ndim >= 1 and value.shape[0] == self.env_num:
                merged[key] = value.copy()
                merged[key][keep] = before[key][keep]
        sb_after = after["state_buffer"].reshape(self.env_num, -1).copy()
        sb_after[keep] = before["state_buffer"].reshape(self.env_num, -1)[keep]
        merged["state_buffer"] = sb_after.reshape(-1)
        venv.set_state(merged)
        return obs, rew, term, trunc

    def seed(self, seed: int | list[int] | None = None) -> list[list[int] | None]:
        """Seeds env i and its action space with seed + i (a list: one seed
        per env; None: fresh entropy) and resets them, as Tianshou's
        ``DummyEnvWorker.seed`` does."""
        self._assert_is_not_closed()
        if seed is None:
            seeds: list[Any] = [None] * self.env_num
        elif isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(self.env_num)]
        else:
            seeds = list(seed)
            if len(seeds) != self.env_num:
                raise ValueError(f"{len(seeds)} seeds for {self.env_num} envs")
        for space, s in zip(self._action_spaces, seeds):
            space.seed(s)
        if seed is None:
            self._venv.reset()
        else:
            self._venv.reset(seed=seeds)
        return [[s] for s in seeds]

    def render(self, **kwargs: Any) -> list[Any]:
        """The frames of all envs (``render_mode="rgb_array"``), as a list."""
        self._assert_is_not_closed()
        frames = self._venv.render(**kwargs)
        return [] if frames is None else list(frames)

    def close(self) -> None:
        """Closes the batch; later calls raise."""
        self._assert_is_not_closed()
        self._venv.close()
        self.is_closed = True

    def __repr__(self) -> str:
        return f"ccgym.tianshou.VectorEnv({self._venv.env_id!r}, {self.env_num})"
