"""Invalid actions raise what code written against Gymnasium catches.

Gymnasium's discrete envs check ``assert self.action_space.contains(action)``,
so such code catches ``AssertionError``. Every ccgym front end (single env,
vector env, SB3 VecEnv, Tianshou adapter) raises ``ccgym.InvalidAction`` (an
``AssertionError`` and a ``gymnasium.error.InvalidAction``) through the same
core check, as :class:`ccgym.InvalidActionType` (also a ``TypeError``) for the
wrong type or dtype and :class:`ccgym.InvalidActionValue` (also a
``ValueError``) for a value out of range or the wrong shape: the message is
the core's, the same in every batched front end, and a refused step leaves
the env as it was.
"""

from __future__ import annotations

import importlib
import warnings

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from reference import NEWEST_GYM_IDS, is_continuous, is_discrete

N = 3
DISCRETE = [i for i in NEWEST_GYM_IDS if is_discrete(i)]
CONTINUOUS = [i for i in NEWEST_GYM_IDS if is_continuous(i)]

# (case, single-env action, batch actions, class): every one refused.
BAD_DISCRETE = [
    ("float", 1.0, np.zeros(N), ccgym.InvalidActionType),
    ("float32 array", np.float32(1), np.zeros(N, np.float32), ccgym.InvalidActionType),
    ("str", "0", np.array(["0"] * N), ccgym.InvalidActionType),
    ("None", None, None, ccgym.InvalidActionType),
    ("out of range", 7, np.array([0, 1, 7]), ccgym.InvalidActionValue),
    ("negative", -1, np.array([-1, 0, 0]), ccgym.InvalidActionValue),
]
BAD_BATCH_SHAPE = [
    ("too short", np.zeros(N - 1, np.int64), ccgym.InvalidActionValue),
    ("too long", np.zeros(N + 1, np.int64), ccgym.InvalidActionValue),
]
BAD_CONTINUOUS = [
    ("str", np.array(["a"]), np.array([["a"]] * N), ccgym.InvalidActionType),
    ("object", [object()], [[object()]] * N, ccgym.InvalidActionType),
    ("shape", np.zeros(2, np.float32), np.zeros((N, 2), np.float32), ccgym.InvalidActionValue),
]


def test_the_classes():
    """Both classes are AssertionErrors and Gymnasium's InvalidAction, and
    keep the built-in class ccgym raised before (TypeError / ValueError)."""
    for cls, builtin in ((ccgym.InvalidActionType, TypeError),
                         (ccgym.InvalidActionValue, ValueError)):
        assert issubclass(cls, ccgym.InvalidAction)
        assert issubclass(cls, AssertionError)
        assert issubclass(cls, gym.error.InvalidAction)
        assert issubclass(cls, builtin)
    assert not issubclass(ccgym.InvalidActionType, ValueError)
    assert not issubclass(ccgym.InvalidActionValue, TypeError)


def _gymnasium_refuses(env_id, action):
    """Gymnasium's own env raises AssertionError for this action (the
    behaviour ccgym's class lets the same except clause catch)."""
    env = gym.make(env_id)
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(action)


def _catch(call):
    """The exception ``call`` raises, caught as Gymnasium code catches it."""
    try:
        call()
    except AssertionError as e:
        return e
    raise AssertionError("the call did not raise")  # pragma: no cover


@pytest.mark.parametrize("env_id", DISCRETE)
@pytest.mark.parametrize("case,action,_batch,cls", BAD_DISCRETE, ids=[c[0] for c in BAD_DISCRETE])
def test_single_env_discrete(env_id, case, action, _batch, cls):
    if env_id != "Acrobot-v1":  # Gymnasium's Acrobot indexes its torques, unchecked
        _gymnasium_refuses(env_id, action)
    env = gym.make(f"ccgym/{env_id}")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    e = _catch(lambda: env.step(action))
    assert type(e) is cls, (case, type(e), e)
    assert "Discrete(" in str(e) or "integers" in str(e)
    after = env.unwrapped.get_state()
    assert before.keys() == after.keys()
    for k in before:
        assert np.array_equal(np.asarray(before[k]), np.asarray(after[k])), k
    env.step(0)  # still usable


@pytest.mark.parametrize("env_id", CONTINUOUS)
@pytest.mark.parametrize("case,action,_batch,cls", BAD_CONTINUOUS,
                         ids=[c[0] for c in BAD_CONTINUOUS])
def test_single_env_continuous(env_id, case, action, _batch, cls):
    env = gym.make(f"ccgym/{env_id}")
    env.reset(seed=0)
    state = np.array(env.unwrapped.state)
    e = _catch(lambda: env.step(action))
    assert type(e) is cls, (case, type(e), e)
    assert np.array_equal(np.array(env.unwrapped.state), state)


def _batched_front_ends(env_id):
    """(name, make, step) for the vector env, the SB3 VecEnv and the Tianshou
    adapter (the last two when installed)."""
    out = [("vector", lambda: ccgym.make_vec(env_id, N), lambda e, a: e.step(a))]
    try:
        sb3 = importlib.import_module("ccgym.sb3")
    except ImportError:
        pass
    else:
        def sb3_step(e, a):
            e.step_async(a)
            return e.step_wait()
        out.append(("sb3", lambda: sb3.VecEnv(env_id, N), sb3_step))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tianshou = importlib.import_module("ccgym.tianshou")
    except ImportError:
        pass
    else:
        out.append(("tianshou", lambda: tianshou.VectorEnv(env_id, N), lambda e, a: e.step(a)))
    return out


def _check_batched(env_id, cases):
    messages = {}
    for name, make, step in _batched_front_ends(env_id):
        env = make()
        env.reset(seed=0) if name != "sb3" else (env.seed(0), env.reset())
        venv = env.venv if name == "tianshou" else env
        for case, actions, cls in cases:
            if name == "sb3" and actions is None:
                continue  # SB3's step_wait reads None as "no step_async"
            before = venv.get_state() if hasattr(venv, "get_state") else None
            e = _catch(lambda: step(env, actions))
            if name == "tianshou" and actions is None:
                cls = ccgym.InvalidActionValue  # Tianshou's own ValueError for None
            assert type(e) is cls, (name, case, type(e), e)
            messages.setdefault(case, {})[name] = str(e)
            if before is not None:
                after = venv.get_state()
                for k in before:
                    assert np.array_equal(np.asarray(before[k]), np.asarray(after[k])), (name, k)
    for case, by_front_end in messages.items():
        # One core check: the same message in each front end (Tianshou's own
        # length check words its refusal of a wrong-length batch).
        core = {n: m for n, m in by_front_end.items() if n != "tianshou" or "shape" in m}
        assert len(set(core.values())) == 1, (case, by_front_end)


@pytest.mark.parametrize("env_id", DISCRETE)
def test_batched_discrete(env_id):
    _check_batched(env_id, [(c, b, cls) for c, _, b, cls in BAD_DISCRETE] + BAD_BATCH_SHAPE)


@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_batched_continuous(env_id):
    _check_batched(env_id, [(c, b, cls) for c, _, b, cls in BAD_CONTINUOUS])


def test_except_assertion_error_as_gymnasium_code_writes_it():
    """The pattern the issue names: ``except AssertionError`` around a step
    with a float action on a Discrete space, in the single and vector env."""
    caught = []
    for env in (gym.make("ccgym/CartPole-v1"), ccgym.make_vec("CartPole-v1", 2)):
        env.reset(seed=0)
        try:
            env.step(0.5 if isinstance(env, gym.Env) else np.full(2, 0.5))
        except AssertionError as e:
            caught.append(e)
    assert len(caught) == 2 and all(isinstance(e, TypeError) for e in caught)
