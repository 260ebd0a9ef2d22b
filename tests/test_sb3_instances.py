"""ccgym.sb3.VecEnv's per-instance calls, copies and metadata against SB3's
DummyVecEnv over the stock Gymnasium envs, live (issue 45): ``get_attr``,
``set_attr`` and ``env_method`` answer per instance as DummyVecEnv's do
(``env_i.get_wrapper_attr``, ``setattr`` on the outermost wrapper), or
refuse clearly where the batch cannot follow; the VecEnv pickles and
deep-copies; ``make_vec_env``'s metadata is DummyVecEnv's."""

from __future__ import annotations

import copy
import pickle
import tempfile
import warnings

import pytest

pytest.importorskip("stable_baselines3")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecVideoRecorder  # noqa: E402

import ccgym  # noqa: E402
from ccgym.sb3 import VecEnv, make_vec_env  # noqa: E402
from reference import reference_id, reference_kind  # noqa: E402
from test_attribute_sweep import gym_attributes, same, show  # noqa: E402

N = 3
IDS = list(ccgym.ENV_IDS)
# A physical attribute of each env the step reads (set per instance below).
PHYSICS = {"CartPole": "gravity", "MountainCar": "gravity", "MountainCarContinuous": "power",
           "Pendulum": "g", "Acrobot": "LINK_MASS_1"}


def _kind(env_id: str) -> str:
    """The stock kind env_id's env mirrors (itself for a stock id), PHYSICS's key."""
    return reference_kind(ccgym._kinds.env_class(env_id).kind)


def reference(env_id: str, n: int = N) -> DummyVecEnv:
    def make() -> gym.Env:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # CartPole-v0
            return gym.make(reference_id(env_id))
    return DummyVecEnv([make for _ in range(n)])


def actions(venv, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    space = venv.action_space
    if isinstance(space, gym.spaces.Discrete):
        return [rng.integers(0, space.n, venv.num_envs) for _ in range(count)]
    hi = float(space.high[0])
    return [rng.uniform(-hi, hi, (venv.num_envs, 1)).astype(np.float32) for _ in range(count)]


def step_both(ref, ours, count: int, seed: int, where: str) -> None:
    for t, a in enumerate(actions(ours, count, seed)):
        r, o = ref.step(a), ours.step(a)
        assert r[0].tobytes() == o[0].tobytes(), f"{where} step {t}: obs"
        assert r[1].tobytes() == o[1].tobytes(), f"{where} step {t}: rewards"
        assert np.array_equal(r[2], o[2]), f"{where} step {t}: dones"


def outcome(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - compared with DummyVecEnv's
            return None, e


def same_answer(r, o) -> bool:
    if isinstance(r, np.random.Generator):
        return isinstance(o, np.random.Generator)  # their draws are compared below
    if isinstance(r, (gym.Space, dict)) or r is None:
        return r == o
    if isinstance(r, gym.Env):
        return isinstance(o, gym.Env)
    return same(r, o)


def compare_attrs(ref, ours, names, where, indices=None, seeded=True) -> None:
    for name in names:
        r, rexc = outcome(ref.get_attr, name, indices)
        o, oexc = outcome(ours.get_attr, name, indices)
        if rexc is not None:
            assert isinstance(oexc, type(rexc)), f"{where}: {name}: DummyVecEnv raises " \
                f"{rexc!r}, ccgym {oexc!r} (returned {o!r})"
            continue
        assert oexc is None, f"{where}: {name}: ccgym raises {oexc!r}, DummyVecEnv gives {r!r}"
        assert len(r) == len(o), where
        for k, (x, y) in enumerate(zip(r, o)):
            if name == "np_random_seed" and not seeded:  # entropy on both sides
                assert type(x) is type(y), where
                continue
            assert same_answer(x, y), f"{where}: {name}[{k}] is {show(y)}, DummyVecEnv's {show(x)}"


# The env's own attributes (a Gymnasium env's, not a hand list), and the
# wrappers' and rng attributes get_attr reaches.
def names(env_id: str) -> list[str]:
    own = [n for n in gym_attributes(reference_id(env_id)) if n not in ("spec",)]
    return own + ["np_random_seed", "_elapsed_steps", "_max_episode_steps", "render_mode",
                  "observation_space", "action_space", "metadata", "np_random", "no_such_attr"]


@pytest.mark.parametrize("env_id", IDS)
def test_get_attr_per_instance(env_id):
    ref, ours = reference(env_id), VecEnv(env_id, N)
    watch = names(env_id)
    compare_attrs(ref, ours, watch, "before reset", seeded=False)
    ref.seed(5), ours.seed(5)
    ref.reset(), ours.reset()
    for indices in (None, 1, [2, 0]):
        compare_attrs(ref, ours, watch, f"after reset, indices={indices}", indices)
    # Each instance's np_random is its own stream, live: what is drawn from
    # it is not drawn by its next reset.
    assert [g.random() for g in ref.get_attr("np_random")] == \
        [g.random() for g in ours.get_attr("np_random")]
    rg, og = ref.get_attr("np_random", indices=[1])[0], ours.get_attr("np_random", indices=[1])[0]
    assert rg.integers(0, 2 ** 62, 3).tolist() == og.integers(0, 2 ** 62, 3).tolist()
    for t in range(3):
        step_both(ref, ours, 70, t, f"round {t}")
        compare_attrs(ref, ours, watch, f"after {70 * (t + 1)} steps")
        assert rg.random() == og.random()  # the handed-out Generator still follows


@pytest.mark.parametrize("env_id", IDS)
def test_state_edited_in_place_steps_as_dummyvecenv(env_id):
    ref, ours = reference(env_id), VecEnv(env_id, N)
    ref.seed(1), ours.seed(1)
    ref.reset(), ours.reset()
    for venv in (ref, ours):
        s = venv.get_attr("state", indices=[1])[0]
        s[0] = s[0] * 0.5  # a reset state is an ndarray: the next step reads it
    compare_attrs(ref, ours, ["state"], "after the edit")
    step_both(ref, ours, 60, 2, "after an in-place state edit")


@pytest.mark.parametrize("env_id", IDS)
def test_set_attr_and_set_wrapper_attr_per_index(env_id):
    name = PHYSICS[_kind(env_id)]
    ref, ours = reference(env_id), VecEnv(env_id, N)
    ref.seed(2), ours.seed(2)
    ref.reset(), ours.reset()
    # set_attr: the outermost wrapper's attribute; the env's physics unchanged.
    for venv in (ref, ours):
        venv.set_attr(name, 2.0, indices=[0])
        venv.set_attr("tag", "x", indices=2)
    compare_attrs(ref, ours, [name, "tag"], "after set_attr")
    step_both(ref, ours, 80, 3, "after set_attr")
    # set_wrapper_attr reaches the env: instance 1's physics alone.
    assert ref.env_method("set_wrapper_attr", name, 1.5, indices=[1]) == \
        ours.env_method("set_wrapper_attr", name, 1.5, indices=[1])
    compare_attrs(ref, ours, [name], "after set_wrapper_attr")
    compare_attrs(ref, ours, [name], "after set_wrapper_attr, unwrapped", [1])
    assert ours.get_attr("unwrapped", indices=1)[0].__getattribute__(name) == 1.5
    step_both(ref, ours, 250, 4, "after set_wrapper_attr")
    assert [r for r in ref.env_method("get_wrapper_attr", name)] == \
        ours.env_method("get_wrapper_attr", name)
    # Writes on the unwrapped env (DummyVecEnv's env.unwrapped) step too.
    for venv in (ref, ours):
        setattr(venv.get_attr("unwrapped", indices=[2])[0], name, 0.75)
    step_both(ref, ours, 120, 5, "after a write on unwrapped")


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Acrobot-v1"])
def test_what_the_batch_cannot_follow_is_refused(env_id):
    ref, ours = reference(env_id), VecEnv(env_id, N)
    ref.seed(3), ours.seed(3)
    ref.reset(), ours.reset()
    step_both(ref, ours, 5, 0, "before")
    name = PHYSICS[_kind(env_id)]
    cases = [
        (lambda v: v.set_attr("_max_episode_steps", 10, indices=[0]), "_max_episode_steps"),
        (lambda v: v.set_attr("np_random", np.random.default_rng(0), indices=[1]),
         "np_random"),
        (lambda v: v.env_method("set_wrapper_attr", name, np.float32(3.0), indices=[2]),
         "float"),
        (lambda v: v.env_method("step", v.action_space.sample(), indices=[0]), "step"),
    ]
    for call, match in cases:
        before = ours.get_attr("state")
        with pytest.raises((ValueError, TypeError), match=match):
            call(ours)
        after = ours.get_attr("state")
        assert all(same(a, b) for a, b in zip(before, after)), match
        compare_attrs(ref, ours, [name, "_max_episode_steps"], f"refused {match}")
    step_both(ref, ours, 60, 1, "after the refusals")


@pytest.mark.parametrize("env_id", IDS)
def test_pickle_and_deepcopy_step_as_the_original(env_id):
    ours = VecEnv(env_id, N)
    ours.seed(4)
    ours.reset()
    for a in actions(ours, 9, 0):
        ours.step(a)
    ours.set_attr("tag", 7, indices=[2])
    ours.env_method("set_wrapper_attr", PHYSICS[_kind(env_id)], 1.25, indices=[1])
    ours.seed(11)  # pending seeds are copied too
    twins = [pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)]
    for twin in twins:
        assert twin.get_attr("tag", indices=[2]) == ours.get_attr("tag", indices=[2]) == [7]
        assert twin.get_attr("_elapsed_steps") == ours.get_attr("_elapsed_steps")
    for t, a in enumerate(actions(ours, 260, 1)):
        if t == 130:
            for venv in [ours] + twins:
                venv.reset()
        o = ours.step(a)
        for twin in twins:
            c = twin.step(a)
            assert o[0].tobytes() == c[0].tobytes() and o[1].tobytes() == c[1].tobytes() \
                and np.array_equal(o[2], c[2]), f"step {t}"


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_make_vec_env_result_pickles_and_deepcopies_as_sb3s(env_id):
    """SB3's make_vec_env result (a DummyVecEnv of Monitor-wrapped envs)
    pickles and deep-copies; ccgym's (its monitor over the batch) too, and the
    copies step and count episodes as the original."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = sb3_make_vec_env(reference_id(env_id), n_envs=2, seed=0)
    ours = make_vec_env(env_id, n_envs=2, seed=0)
    for venv in (theirs, ours):
        venv.reset()
        for a in actions(venv, 30, 0):
            venv.step(a)
    twins = [pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)]
    sb3_twins = [pickle.loads(pickle.dumps(theirs)), copy.deepcopy(theirs)]
    for t, a in enumerate(actions(ours, 300, 1)):
        outs = [v.step(a) for v in [theirs, ours] + sb3_twins + twins]
        for k, o in enumerate(outs[1:]):
            assert o[0].tobytes() == outs[0][0].tobytes(), f"step {t}, copy {k}"
            assert np.array_equal(o[2], outs[0][2]), f"step {t}, copy {k}"
            for i in np.flatnonzero(o[2]):
                assert o[3][i]["episode"]["r"] == outs[0][3][i]["episode"]["r"]
                assert o[3][i]["episode"]["l"] == outs[0][3][i]["episode"]["l"]


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_env_metadata_is_dummyvecenvs(env_id):
    ours = make_vec_env(env_id, n_envs=2, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = sb3_make_vec_env(reference_id(env_id), n_envs=2, seed=0,
                                  env_kwargs={"render_mode": "rgb_array"})
    assert ours.metadata == theirs.metadata
    assert ours.metadata.get("render_fps", 30) == theirs.metadata.get("render_fps", 30)
    with tempfile.TemporaryDirectory() as d:
        ro = VecVideoRecorder(ours, d, lambda step: False, video_length=2)
        rt = VecVideoRecorder(theirs, d, lambda step: False, video_length=2)
        assert ro.frames_per_sec == rt.frames_per_sec
