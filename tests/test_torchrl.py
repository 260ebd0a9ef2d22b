"""TorchRL over ccgym's native vector env (ccgym.torchrl.make_env).

The reference is TorchRL's GymWrapper over Gymnasium's SyncVectorEnv of the
stock envs, in the same autoreset mode (DISABLED), with the same seeds and
actions.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (pip install 'ccgym[torchrl]')")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from torchrl.envs import GymWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import ccgym  # noqa: E402
from ccgym.torchrl import make_env  # noqa: E402

torch.set_num_threads(1)
ENV_IDS = list(ccgym.ENV_IDS)
N = 4


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CartPole-v0 "out of date"; TorchRL's own notices
        return fn(*args, **kwargs)


def stock_env(env_id, n=N):
    vec = gym.vector.SyncVectorEnv(
        [lambda: gym.make(env_id) for _ in range(n)], autoreset_mode=AutoresetMode.DISABLED)
    return GymWrapper(vec)


def ccgym_env(env_id, n=N):
    return make_env(env_id, n)


def actions_for(env, steps, seed):
    """Pre-drawn actions (TorchRL's own action spec's shape and dtype)."""
    torch.manual_seed(seed)
    return [env.action_spec.rand() for _ in range(steps)]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_specs(env_id):
    env = _quiet(ccgym_env, env_id)
    _quiet(env.set_seed, 0)
    _quiet(check_env_specs, env)
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rollout_equals_stock(env_id):
    """A rollout with TorchRL's partial resets, long enough for every id to
    end episodes (MountainCarContinuous truncates at 999 steps): the same
    tensordicts, bit for bit."""
    ours, ref = _quiet(ccgym_env, env_id), _quiet(stock_env, env_id)
    acts = actions_for(ref, 1005 if env_id == "MountainCarContinuous-v0" else 510, seed=3)
    results = []
    for env in (ours, ref):
        _quiet(env.set_seed, 7)
        td = _quiet(env.reset)
        steps = []
        for a in acts:  # TorchRL's own loop: step, then reset the done instances
            td["action"] = a.clone()
            td, td_root = _quiet(env.step_and_maybe_reset, td)
            steps.append(td.clone())
            td = td_root
        results.append(torch.stack(steps, dim=1))
        env.close()
    td_o, td_r = results
    assert set(td_o.keys(True, True)) == set(td_r.keys(True, True))
    done = td_r["next", "done"]
    assert done.any(), "the rollout must end episodes (partial resets untested otherwise)"
    for key in td_r.keys(True, True):
        a, b = td_o[key], td_r[key]
        assert a.dtype == b.dtype and a.shape == b.shape, key
        assert torch.equal(a, b), f"{key} differs"


def test_make_env_rejects_autoreset_mode():
    with pytest.raises(ValueError, match="Disabled"):
        make_env("CartPole-v1", 2, autoreset_mode="NextStep")


def test_next_step_is_what_torchrl_rejects():
    """Why make_env exists: ccgym's default NEXT_STEP is refused by GymWrapper."""
    envs = gym.make_vec("ccgym/CartPole-v1", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(Exception, match="SAME_STEP or DISABLED"):
        _quiet(GymWrapper, envs)
    envs.close()


def test_batch_size_and_one_call_per_step():
    env = _quiet(ccgym_env, "CartPole-v1", 8)
    assert tuple(env.batch_size) == (8,)
    vec = env._env
    assert isinstance(vec, ccgym.vector.VectorEnv)
    assert vec.autoreset_mode is AutoresetMode.DISABLED
    td = _quiet(env.rollout, 5)
    assert td.batch_size == torch.Size([8, 5])
    assert np.asarray(td["observation"]).dtype == np.float32
    env.close()
