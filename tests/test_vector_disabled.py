"""Stepping a finished instance with autoreset disabled raises the exception
class Gymnasium's SyncVectorEnv raises (its ``assert``), found live."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import ccgym


def _stock_error(env_id: str, n: int, steps: int) -> BaseException:
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make(env_id, max_episode_steps=steps) for _ in range(n)],
        autoreset_mode=gym.vector.AutoresetMode.DISABLED)
    envs.reset(seed=0)
    acts = np.zeros(n, np.int64)
    for _ in range(steps):
        envs.step(acts)
    with pytest.raises(BaseException) as info:
        envs.step(acts)
    return info.value


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0", "Acrobot-v1"])
def test_done_step_raises_gymnasiums_class(env_id):
    n, steps = 3, 4
    stock = _stock_error(env_id, n, steps)
    envs = ccgym.make_vec(env_id, n, autoreset_mode="Disabled", max_episode_steps=steps)
    envs.reset(seed=0)
    acts = np.zeros(n, np.int64)
    for _ in range(steps):
        envs.step(acts)
    before = envs.get_state()
    with pytest.raises(type(stock)) as info:
        envs.step(acts)
    # Still the documented RuntimeError, with the message naming the instances.
    assert isinstance(info.value, RuntimeError)
    assert "autoreset is disabled" in str(info.value)
    after = envs.get_state()  # refused whole: nothing stepped
    for key, value in before.items():
        assert np.array_equal(value, after[key]), key
