"""The descriptor layer (ccgym._kinds, issue 44 item 2): one place maps an id
to its kind and the kind's facts, and the front ends read it instead of
building single envs or C batches to learn them."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import ccgym
from ccgym import _core, _kinds, rendering, vector
from ccgym._params import PARAMS

IDS = list(ccgym.ENV_IDS)
KINDS = list(dict.fromkeys(_kinds.env_kind(i) for i in IDS))


@pytest.mark.parametrize("env_id", IDS)
def test_kind_facts_are_the_single_envs(env_id):
    """Every fact a Kind gives is the single env's (spaces, metadata, state
    layout, constructor keywords), read without building one."""
    desc = _kinds.of_id(env_id)
    assert _kinds.of_id(f"ccgym/{env_id}") is desc is _kinds.of_kind(desc.name)
    env = desc.env_class()
    obs_space, act_space = desc.spaces()
    assert obs_space == env.observation_space and act_space == env.action_space
    assert obs_space is not desc.spaces()[0]  # fresh: seeding one seeds no other
    assert desc.metadata == env.metadata
    assert desc.state_dtype == env._state_dtype == _core.state_dtype(desc.name)
    assert desc.keywords == set(env._constructor_kwargs())
    env.close()


@pytest.mark.parametrize("kind", KINDS)
def test_default_params_are_a_batchs(kind):
    """params_record (no Batch) gives the bytes a Batch built with the
    default params holds."""
    batch = _core.Batch(kind, 1, PARAMS[kind]())
    assert bytes(_kinds.of_kind(kind).default_params) == bytes(batch.params_buffer)
    assert bytes(_core.params_record(kind, PARAMS[kind](**{}))) == bytes(batch.params_buffer)
    with pytest.raises(KeyError, match="missing"):
        _core.params_record(kind, {})


NO_SINGLE_ENV = r"""
import sys
import numpy as np
import ccgym
from ccgym import _front_core, vector
from ccgym.envs import _base

env_id = sys.argv[1]
expected = ccgym.make_vec(env_id, 3)


def no_single_env(self, *args, **kwargs):
    raise AssertionError("make_vec built a single env")


made = []


class CountingBatch(_front_core.FrontBatch):
    def __init__(self, *args, **kwargs):
        made.append(self)


class FrontCore:
    FrontBatch = CountingBatch


init, front = _base._CoreEnv.__init__, vector._front_core
_base._CoreEnv.__init__, vector._front_core = no_single_env, FrontCore
envs = ccgym.make_vec(env_id, 3)
_base._CoreEnv.__init__, vector._front_core = init, front
assert len(made) == 1 and envs.batch is made[0], made
assert envs.single_observation_space == expected.single_observation_space
assert envs.single_action_space == expected.single_action_space
assert envs.metadata == expected.metadata
a, _ = envs.reset(seed=4)
b, _ = expected.reset(seed=4)
np.testing.assert_array_equal(a, b)
print("ok")
"""


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_builds_no_single_env_and_one_batch(env_id):
    """ccgym.make_vec builds no single env (its constructor would raise) and
    exactly one C batch, and the env it makes equals one made before the
    check in spaces, metadata and reset. In a fresh interpreter: a class-level
    write another test made and undid leaves its class marked (then a single
    env gives the spaces, as Gymnasium's __init__ builds Acrobot's from the
    class's values)."""
    r = subprocess.run([sys.executable, "-c", NO_SINGLE_ENV, env_id],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_drawing_a_state_builds_no_batch_and_render_scans_no_registry(kind, monkeypatch):
    """Drawing raw states takes the default params from the Kind (no Batch),
    and a vector env's render() finds the kind's facts without a registry
    scan (the registry emptied, it still draws)."""
    env_id = next(i for i in IDS if _kinds.env_kind(i) == kind)
    envs = ccgym.make_vec(env_id, 2, render_mode="rgb_array")
    envs.reset(seed=1)
    expected = envs.render()
    states = np.array(envs.batch.state_buffer, copy=True)

    def no_batch(*args, **kwargs):
        raise AssertionError("built a Batch")

    monkeypatch.setattr(_core, "Batch", no_batch)
    monkeypatch.setattr(_kinds, "ENV_SPECS", {})
    np.testing.assert_array_equal(envs.render(), expected)
    frames = rendering.render_batch(kind, states, antialias=True)
    np.testing.assert_array_equal(frames, expected)  # the default params: the env's


def test_vector_env_refuses_an_unknown_keyword_in_its_own_name():
    with pytest.raises(TypeError, match=r"^VectorEnv\(\) got an unexpected keyword argument "
                                        r"'num_thread'; did you mean 'num_threads'\?"):
        vector.VectorEnv("CartPole-v1", 2, num_thread=2)
