"""Tianshou over ccgym's batch (ccgym.tianshou.VectorEnv).

The reference is Tianshou's own DummyVectorEnv over Gymnasium's envs, in a
Tianshou Collector, with the same seeds: the replay buffers and episode
statistics must be identical.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("tianshou", reason="Tianshou is not installed (pip install 'ccgym[tianshou]')")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tianshou.algorithm.algorithm_base import Policy, RandomActionPolicy  # noqa: E402
from tianshou.data import Batch, Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import BaseVectorEnv, DummyVectorEnv  # noqa: E402

import ccgym  # noqa: E402
from ccgym.tianshou import VectorEnv  # noqa: E402

torch.set_num_threads(1)
ENV_IDS = list(ccgym.ENV_IDS)
N = 4
FIELDS = ("obs", "act", "rew", "terminated", "truncated", "done", "obs_next")


def quiet_make(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # CartPole-v0 is "out of date"
        return gym.make(env_id)


def stock(env_id, n=N):
    return DummyVectorEnv([lambda: quiet_make(env_id) for _ in range(n)])


def ours(env_id, n=N):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return VectorEnv(env_id, n)


class ObsPolicy(Policy):
    """A deterministic policy of the observation (no RNG, so both runs
    see the same actions exactly when they see the same observations)."""

    def forward(self, batch, state=None, **kwargs):
        obs = np.asarray(batch.obs, dtype=np.float64)
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            act = (np.floor(np.abs(obs).sum(axis=1) * 7.0) % space.n).astype(np.int64)
        else:
            act = np.clip(obs[:, :1] * 3.0, space.low, space.high).astype(np.float32)
        return Batch(act=act, state=state)


def collect(venv, policy_kind, seed, plan):
    venv.seed(seed)
    space = venv.get_env_attr("action_space", 0)[0]
    policy = (RandomActionPolicy(space) if policy_kind == "random"
              else ObsPolicy(action_space=space))
    buf = VectorReplayBuffer(20_000, len(venv))
    collector = Collector(policy, venv, buf)
    collector.reset()
    stats = []
    for kind, amount in plan:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # n_episode < env_num notices
            result = collector.collect(**{kind: amount}, random=(policy_kind == "random"))
        stats.append((result.n_collected_steps, result.n_collected_episodes,
                      np.asarray(result.returns).tolist(), np.asarray(result.lens).tolist()))
    data = {f: getattr(buf, f) for f in FIELDS}
    data["env_id"] = buf.info.env_id
    data["len"] = len(buf)
    venv.close()
    return stats, data


def assert_same_runs(a, b):
    stats_a, data_a = a
    stats_b, data_b = b
    assert stats_a == stats_b
    assert data_a["len"] == data_b["len"]
    for key in (*FIELDS, "env_id"):
        x, y = np.asarray(data_a[key]), np.asarray(data_b[key])
        assert x.dtype == y.dtype and x.shape == y.shape, (key, x.dtype, y.dtype, x.shape, y.shape)
        assert x.tobytes() == y.tobytes(), f"{key} differs"


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0", "Pendulum-v1"])
def test_collector_random_steps_equal_dummy(env_id):
    """n_step collection with the seeded per-env action spaces (random=True),
    long enough for episodes to end (the ids with long episodes, Acrobot and
    MountainCarContinuous, are in the n_episode test: Tianshou's collector is
    slow on this machine, about 5 minutes for 2600 Acrobot steps a side)."""
    plan = [("n_step", 800), ("n_step", 400)]
    a = collect(ours(env_id), "random", 11, plan)
    b = collect(stock(env_id), "random", 11, plan)
    assert b[0][0][1] + b[0][1][1] > 0, "no episode ended: the resets are untested"
    assert_same_runs(a, b)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1", "Pendulum-v1",
                                    "MountainCarContinuous-v0"])
def test_collector_episodes_equal_dummy(env_id):
    """n_episode collection: the collector steps ever fewer envs at the end
    (strict subsets of ids), then starts again."""
    plan = [("n_episode", 6), ("n_step", 200), ("n_episode", 3)]
    a = collect(ours(env_id), "obs", 3, plan)
    b = collect(stock(env_id), "obs", 3, plan)
    assert_same_runs(a, b)


def test_interface():
    venv = ours("CartPole-v1", 3)
    assert isinstance(venv, BaseVectorEnv)
    assert len(venv) == 3
    obs, info = venv.reset(seed=[1, 2, 3][0])
    ref = stock("CartPole-v1", 3)
    obs_r, info_r = ref.reset(seed=1)
    assert obs.tobytes() == obs_r.tobytes() and obs.dtype == obs_r.dtype
    assert info.dtype == info_r.dtype and list(info) == list(info_r)
    out = venv.step(np.array([1, 0]), id=[2, 0])
    out_r = ref.step(np.array([1, 0]), id=[2, 0])
    for x, y in zip(out[:4], out_r[:4]):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
    assert list(out[4]) == list(out_r[4]) == [{"env_id": 2}, {"env_id": 0}]
    o1, _ = venv.reset(env_id=[1])
    o1_r, _ = ref.reset(env_id=[1])
    assert o1.tobytes() == o1_r.tobytes()
    assert venv.seed(4) == [[4], [5], [6]]
    assert len(venv.action_space) == 3 and venv.observation_space[0] == ref.observation_space[0]
    with pytest.raises(IndexError):
        venv.step(np.array([0]), id=[3])
    with pytest.raises(ValueError):
        venv.step(np.array([0, 1]), id=[0])
    with pytest.raises(ValueError):
        venv.step(np.array([0, 1]), id=[1, 1])
    venv.close()
    ref.close()
    with pytest.raises(AssertionError, match="after close"):
        venv.step(np.array([0, 0, 0]))


def test_not_imported_by_ccgym():
    import subprocess
    import sys
    code = "import sys, ccgym; print('tianshou' in sys.modules, 'ccgym.tianshou' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
