"""Pickles made by an earlier commit load (issue 44 item 4: a change of the
package's layout keeps them working). tests/data/pickles holds one pickle
per front end and stock id, written by tools/make_pickles.py with the build
of the commit before the layout change: each env reset with a seed and
stepped a few times. Loaded with the build under test, each steps on exactly
as an env made and driven the same way now does."""

from __future__ import annotations

import pathlib
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _kinds

DATA = pathlib.Path(__file__).parent / "data" / "pickles"
# tools/make_pickles.py's
STEPS, SEED, N = 5, 7, 3
MORE = 8


def _actions(space: gym.Space, n: int) -> list:
    space.seed(SEED)
    return [space.sample() for _ in range(n)]


def _fresh(front: str, env_id: str):
    if front == "raw":
        return _kinds.env_class(env_id)()
    if front == "make":
        return gym.make(f"ccgym/{env_id}")
    if front == "vector":
        return ccgym.make_vec(env_id, N)
    from ccgym.sb3 import VecEnv

    return VecEnv(env_id, N)


def _drive(front: str, env, acts: list) -> None:
    if front == "sb3":
        env.seed(SEED)
        env.reset()
    else:
        env.reset(seed=SEED)
    for a in acts:
        _step(front, env, a)


def _step(front: str, env, a):
    if front == "sb3":
        return env.step(np.stack([a] * N))[:3]
    return env.step(a)[:4]


CASES = sorted(p.name for p in DATA.glob("*.pkl"))


def test_the_pickles_are_there():
    fronts = {name.split("-", 1)[0] for name in CASES}
    assert {"raw", "make", "vector"} <= fronts
    assert len(CASES) >= 3 * len([i for i in ccgym.ENV_IDS if "/" not in i])


@pytest.mark.parametrize("name", CASES)
def test_an_earlier_commits_pickle_loads_and_steps_on(name):
    front, env_id = name[:-len(".pkl")].split("-", 1)
    if front == "sb3":
        pytest.importorskip("stable_baselines3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = pickle.loads((DATA / name).read_bytes())
        fresh = _fresh(front, env_id)
    acts = _actions(fresh.action_space, STEPS + MORE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _drive(front, fresh, acts[:STEPS])
    assert type(loaded) is type(fresh)
    for a in acts[STEPS:]:
        with warnings.catch_warnings():  # CartPole's step after termination warns
            warnings.simplefilter("ignore")
            got, want = _step(front, loaded, a), _step(front, fresh, a)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
            assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
