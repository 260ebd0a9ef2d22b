"""Pixel observations: :class:`PixelObservation` (single env) and
:class:`VectorPixelObservation` (vector env) replace observations by frames
drawn and area-averaged in C."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ccgym import _core
from ccgym._kinds import of_kind
from ccgym.rendering.draw import render_observations, render_pixels

class PixelObservation(gym.ObservationWrapper):
    """Observations of a ccgym single env replaced by its frame, drawn and
    area-averaged to ``shape`` in C: uint8 (h, w, 1) with ``grayscale``
    (default; what SB3's CnnPolicy takes), else (h, w, 3).

    Example::

        env = PixelObservation(gym.make("ccgym/CartPole-v1"), shape=(84, 84))
    """

    def __init__(self, env: gym.Env, shape: tuple[int, int] = (84, 84), grayscale: bool = True,
                 antialias: bool = True) -> None:
        super().__init__(env)
        self._kind = _batch_of(
            env, "PixelObservation needs a ccgym env (gym.make('ccgym/...'))").kind
        self.shape = (int(shape[0]), int(shape[1]))
        self.grayscale = bool(grayscale)
        self.antialias = bool(antialias)
        c = 1 if grayscale else 3
        self.observation_space = spaces.Box(0, 255, (*self.shape, c), dtype=np.uint8)

    def observation(self, observation: Any) -> np.ndarray:
        """The current frame (the float observation is not used)."""
        return render_pixels(self._kind, self.env.unwrapped.batch, None, self.shape,
                             self.grayscale, antialias=self.antialias)[0]


def _batch_of(env: Any, error: str) -> _core.Batch:
    """The C batch of a (wrapped) ccgym env; TypeError ``error`` for another env."""
    batch = getattr(env.unwrapped, "batch", None)
    if not isinstance(batch, _core.Batch):
        raise TypeError(error)
    return batch


class VectorPixelObservation(gym.vector.VectorWrapper):
    """A ccgym :class:`~ccgym.vector.VectorEnv` whose observations are the
    frames of all instances, drawn and resized in one C call: (N, h, w, 1)
    uint8 with ``grayscale`` (default), else (N, h, w, 3). With same-step
    autoreset, ``infos["final_obs"]`` is redrawn from the final observations
    (Pendulum's icon from the last actions)."""

    def __init__(self, env: Any, shape: tuple[int, int] = (84, 84), grayscale: bool = True,
                 antialias: bool = True) -> None:
        super().__init__(env)
        self._kind = _batch_of(env, "VectorPixelObservation needs a ccgym VectorEnv").kind
        self.shape = (int(shape[0]), int(shape[1]))
        self.grayscale = bool(grayscale)
        self.antialias = bool(antialias)
        c = 1 if grayscale else 3
        self.single_observation_space = spaces.Box(0, 255, (*self.shape, c), dtype=np.uint8)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self._actions = None

    def reset(self, *, seed: Any = None, options: dict | None = None):
        """Resets; the observations are the frames."""
        _, infos = self.env.reset(seed=seed, options=options)
        return self.observations(None), infos

    def step(self, actions: Any):
        """Steps; observations (and final observations) as frames."""
        self._actions = actions
        _, rewards, terms, truncs, infos = self.env.step(actions)
        obs = self.observations(None)
        if "final_obs" in infos:
            infos = dict(infos)
            infos["final_obs"] = self._final_frames(infos["final_obs"], infos["_final_obs"])
        return obs, rewards, terms, truncs, infos

    def _final_frames(self, final_obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        idx = np.flatnonzero(mask)
        out = np.full(len(final_obs), None, dtype=object)
        if len(idx):
            obs = np.stack([final_obs[i] for i in idx])
            last_u = None
            if of_kind(self._kind).has_icon and self._actions is not None:
                last_u = np.asarray(self._actions, dtype=np.float32).reshape(-1)[idx]
            params = self.env.unwrapped.batch.params_buffer
            frames = render_observations(self._kind, obs, last_u, self.shape, self.grayscale,
                                         params_buffer=params, antialias=self.antialias)
            for j, i in enumerate(idx):
                out[i] = frames[j]
        return out

    def observations(self, observations: Any) -> np.ndarray:
        """The frames of all instances (the float observations are not used)."""
        batch = self.env.unwrapped.batch
        return render_pixels(self._kind, batch, None, self.shape, self.grayscale,
                             antialias=self.antialias, num_threads=batch.num_threads)
