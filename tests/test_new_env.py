"""A scaffolded env (tools/new_env.py) works everywhere its source does.

Every registered id Gymnasium lacks whose def mirrors a stock env's
Gymnasium class (what ``tools/new_env.py NAME --from KIND`` makes: a kind of
its own, with a class of its own that does not subclass its source's) is
checked against its source id, bit for bit: the single env through
gym.make, pickling and snapshots, live attributes, rendering; the vector env
through ccgym.make_vec and gym.make_vec in all three autoreset modes with two
threads and episode statistics; SB3's make_vec_env; and ``ccgym bench`` with
its ceiling. In a normal tree there is none and the tests are skipped;
``tools/scaffold_check.sh`` makes one in a scratch copy, builds it and runs
this file.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _attributes, _kinds
from reference import is_stock, reference_id


def _scaffolded() -> list[tuple[str, str]]:
    """(new id, source id) pairs: each id of ccgym's own module
    (``ccgym.envs.<env>``, not a plugin's) that Gymnasium lacks, with the stock
    id of the Gymnasium class its def mirrors, at its version."""
    pairs = []
    for env_id, spec in ccgym.ENV_SPECS.items():
        if is_stock(env_id) or not (len(spec) > 3 and spec[3].startswith("ccgym.envs.")):
            continue
        source = reference_id(env_id)
        if source in ccgym.ENV_SPECS and is_stock(source):
            pairs.append((env_id, source))
    return pairs


PAIRS = _scaffolded()
if os.environ.get("CCGYM_EXPECT_SCAFFOLD") and not PAIRS:
    raise RuntimeError("CCGYM_EXPECT_SCAFFOLD is set but this build has no scaffolded env")
pytestmark = pytest.mark.skipif(not PAIRS, reason="no scaffolded env in this build "
                                "(tools/scaffold_check.sh makes one)")
IDS = [f"{new}~{old}" for new, old in PAIRS] or ["none"]


def _bits(x) -> bytes:
    return np.asarray(x).tobytes() + str(np.asarray(x).dtype).encode()


def _actions(space: gym.Space, n: int, seed: int) -> list:
    space = copy.deepcopy(space)
    space.seed(seed)
    return [space.sample() for _ in range(n)]


@pytest.fixture(params=PAIRS or [None], ids=IDS)
def pair(request):
    return request.param


def test_new_kind_is_its_own_env(pair):
    new, old = pair
    new_cls, old_cls = _kinds.env_class(new), _kinds.env_class(old)
    assert new_cls.kind != old_cls.kind and new_cls.kind in ccgym._core.ENV_KINDS
    # A class of its own: none of the source's class's quirks come by inheritance.
    assert not issubclass(new_cls, old_cls) and not issubclass(old_cls, new_cls)
    assert gym.spec(f"ccgym/{new}").max_episode_steps == gym.spec(f"ccgym/{old}").max_episode_steps
    env = gym.make(f"ccgym/{new}")
    assert env.unwrapped.batch.kind == new_cls.kind


def test_single_env_steps_as_its_source(pair):
    new, old = pair
    a, b = gym.make(f"ccgym/{new}"), gym.make(f"ccgym/{old}")
    for seed in (0, 7):
        assert _bits(a.reset(seed=seed)[0]) == _bits(b.reset(seed=seed)[0])
        for act in _actions(b.action_space, 600, seed):
            ra, rb = a.step(act), b.step(act)
            assert [_bits(x) for x in ra[:4]] == [_bits(x) for x in rb[:4]]
            assert type(ra[1]) is type(rb[1])
            if ra[2] or ra[3]:
                a.reset()
                b.reset()
    # Copies and snapshots continue the same episode.
    for clone in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a)):
        act = b.action_space.sample()
        assert _bits(clone.step(act)[0]) == _bits(copy.deepcopy(b).step(act)[0])
    snap = a.unwrapped.get_state()
    fresh = gym.make(f"ccgym/{new}")
    fresh.reset()
    fresh.unwrapped.set_state(snap)
    assert _bits(fresh.unwrapped.state) == _bits(a.unwrapped.state)


def test_attributes_are_live_as_the_sources(pair):
    new, old = pair
    kind = _kinds.env_class(new).kind
    assert _attributes.attributes(kind) == _attributes.attributes(_kinds.env_class(old).kind)
    for name in _attributes.attributes(kind):
        if _attributes.is_switch(kind, name):
            continue
        a, b = gym.make(f"ccgym/{new}").unwrapped, gym.make(f"ccgym/{old}").unwrapped
        a.reset(seed=3)
        b.reset(seed=3)
        value = getattr(b, name) * 1.25 + 0.01
        setattr(a, name, value)
        setattr(b, name, value)
        assert getattr(a, name) == getattr(b, name)
        for act in _actions(b.action_space, 20, 1):
            assert _bits(a.step(act)[0]) == _bits(b.step(act)[0]), name


def test_renders_as_its_source(pair):
    new, old = pair
    a = gym.make(f"ccgym/{new}", render_mode="rgb_array")
    b = gym.make(f"ccgym/{old}", render_mode="rgb_array")
    a.reset(seed=5)
    b.reset(seed=5)
    for act in _actions(b.action_space, 5, 2):
        a.step(act)
        b.step(act)
        fa, fb = a.render(), b.render()
        assert fa.shape == fb.shape and fa.any()
        assert np.array_equal(fa, fb)


@pytest.mark.parametrize("mode", list(gym.vector.AutoresetMode))
def test_vector_env_steps_as_its_source(pair, mode):
    new, old = pair
    kw = dict(autoreset_mode=mode, num_threads=2, episode_statistics=True)
    a, b = ccgym.make_vec(new, 5, **kw), ccgym.make_vec(old, 5, **kw)
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert _bits(oa) == _bits(ob)
    for act in _actions(b.action_space, 700, 4):
        ra, rb = a.step(act), b.step(act)
        assert [_bits(x) for x in ra[:4]] == [_bits(x) for x in rb[:4]]
        assert ra[4].keys() == rb[4].keys()
        done = ra[2] | ra[3]
        if mode == gym.vector.AutoresetMode.DISABLED and done.any():
            oa, _ = a.reset(options={"reset_mask": done})
            ob, _ = b.reset(options={"reset_mask": done})
            assert _bits(oa) == _bits(ob)
    g = gym.make_vec(f"ccgym/{new}", num_envs=3)
    assert type(g.unwrapped).__name__ == new.replace("-", "_")


def test_sb3_vec_env_steps_as_its_source(pair):
    pytest.importorskip("stable_baselines3")
    from ccgym.sb3 import make_vec_env

    new, old = pair
    a, b = make_vec_env(new, n_envs=4, seed=2), make_vec_env(old, n_envs=4, seed=2)
    assert _bits(a.reset()) == _bits(b.reset())
    for act in _actions(b.action_space, 300, 6):
        act = np.stack([act] * 4)
        ra, rb = a.step(act), b.step(act)
        assert [_bits(x) for x in ra[:3]] == [_bits(x) for x in rb[:3]]


def test_bench_runs_it_with_its_ceiling(pair):
    new, _ = pair
    out = subprocess.run(
        [sys.executable, "-m", "ccgym", "bench", "--ids", new, "--num-envs", "64",
         "--threads", "1", "--repeats", "1", "--budget", "0.01", "--no-peers",
         "--no-single", "--no-reset", "--no-memory", "--ceiling"],
        capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert new in out.stdout and "ceiling" in out.stdout.lower()
