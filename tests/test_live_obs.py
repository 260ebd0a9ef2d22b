"""MountainCarContinuous's observation is its state, as in Gymnasium.

Gymnasium's ``Continuous_MountainCarEnv.step`` ends with ``self.state =
np.array([position, velocity], dtype=np.float32)`` and returns
``self.state`` itself: ``obs is env.unwrapped.state``, and a caller who
edits the obs in place (``obs *= 2``, normalising in place) changes the next
step. ccgym's single env returns that one object too (the core compares it
with its own copy before each step and writes an edit back). Each check runs
Gymnasium's env beside ccgym's through ``gym.make`` (TimeLimit,
OrderEnforcing, PassiveEnvChecker), does the same to both and compares
observations, rewards, flags and ``state`` bit for bit.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from array_helpers import set_dtype, set_shape

IDS = ("MountainCarContinuous-v0", "ccgym/MountainCarContinuous-v0")


def make_pair(**kwargs):
    return tuple(gym.make(i, **kwargs) for i in IDS)


def step(env, a):
    with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return env.step(a)


def same(a, b):
    return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
            and a.tobytes() == b.tobytes())


def check_step(ref, ours, a, where=""):
    """Steps both; the same outputs and state, bit for bit, or the same error."""
    results = []
    for env in (ref, ours):
        try:
            results.append(step(env, a))
        except ValueError as e:
            results.append(e)
    r, o = results
    if isinstance(r, Exception) or isinstance(o, Exception):
        assert isinstance(r, ValueError) and isinstance(o, ValueError), (where, r, o)
        return None
    assert same(r[0], o[0]), (where, r[0], o[0])
    assert np.float64(r[1]).tobytes() == np.float64(o[1]).tobytes(), (where, r[1], o[1])
    assert r[2:4] == o[2:4], where
    assert r[0] is ref.unwrapped.state and o[0] is ours.unwrapped.state, where
    return r, o


def float32_actions(n, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.5, 1.5, size=(1,)).astype(np.float32) for _ in range(n)]


# In-place edits of an obs (a float32 array of shape (2,)); None: refused by
# both (Gymnasium's math.cos(3 * position) raises), then fixed.
EDITS = [
    ("scale", lambda o: o.__imul__(2)),
    ("shift", lambda o: o.__iadd__(np.float32(1e-3))),
    ("normalise", lambda o: o.__isub__(o.mean())),
    ("clip", lambda o: np.clip(o, -0.5, 0.5, out=o)),
    ("swap", lambda o: o.__setitem__(slice(None), o[::-1].copy())),
    ("position", lambda o: o.__setitem__(0, 0.44)),
    ("velocity", lambda o: o.__setitem__(1, 0.069)),
    ("out of bounds", lambda o: o.__setitem__(slice(None), [3.0, -0.5])),
    ("below min", lambda o: o.__setitem__(0, -7.0)),
    ("nan position", lambda o: o.__setitem__(0, np.nan)),
    ("nan velocity", lambda o: o.__setitem__(1, np.nan)),
    ("inf velocity", lambda o: o.__setitem__(1, np.inf)),
    ("-inf velocity", lambda o: o.__setitem__(1, -np.inf)),
    ("-0.0", lambda o: o.__setitem__(1, -0.0)),
    # (of a finite position: a NaN's payload is not part of the contract,
    # see test_live_state.py::test_acrobot_nan_in_place)
    ("bit flip", lambda o: np.isfinite(o[0]) and o.view(np.uint32).__setitem__(
        0, o.view(np.uint32)[0] ^ 1)),
    ("huge", lambda o: o.__setitem__(0, 1e38)),
    ("inf position", lambda o: o.__setitem__(0, np.inf)),
    ("-inf position", lambda o: o.__setitem__(0, -np.inf)),
    ("3x overflows in float32", lambda o: o.__setitem__(0, 2e38)),
    ("max float32", lambda o: o.__setitem__(0, -np.finfo(np.float32).max)),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_in_place_edits_change_the_next_steps_as_gymnasium(seed):
    ref, ours = make_pair()
    rng = np.random.default_rng(seed)
    r0, o0 = ref.reset(seed=seed)[0], ours.reset(seed=seed)[0]
    assert same(r0, o0)
    assert r0 is not ref.unwrapped.state and o0 is not ours.unwrapped.state
    pair = None
    refused = 0
    for t, a in enumerate(float32_actions(1500, seed)):
        out = check_step(ref, ours, a, f"step {t}")
        if out is None:
            refused += 1
            for env in (ref, ours):  # fix the state the step refused
                env.unwrapped.state[:] = [-0.5, 0.01]
            out = check_step(ref, ours, a, f"step {t} after the fix")
        pair = out
        (r, *_), (o, *_) = pair
        if pair[0][2] or pair[0][3]:
            r0, o0 = ref.reset()[0], ours.reset()[0]
            assert same(r0, o0)
            continue
        if rng.random() < 0.2:
            name, edit = EDITS[int(rng.integers(len(EDITS)))]
            with np.errstate(over="ignore", invalid="ignore"):
                edit(r)
                edit(o)
            assert same(r, o), name
            assert same(ref.unwrapped.state, ours.unwrapped.state), name
    assert refused > 0  # the refusing edits were drawn


def test_obs_is_the_state_until_the_next_step():
    ref, ours = make_pair()
    for env in (ref, ours):
        env.reset(seed=4)
    a = np.array([0.7], np.float32)
    (r1, *_), (o1, *_) = check_step(ref, ours, a)
    r1_copy, o1_copy = r1.copy(), o1.copy()
    (r2, *_), (o2, *_) = check_step(ref, ours, a)
    # The older obs is not changed by later steps, and no longer the state:
    assert same(r1, r1_copy) and same(o1, o1_copy)
    r1[0] = o1[0] = 0.3
    check_step(ref, ours, a)
    assert same(ref.unwrapped.state, ours.unwrapped.state)
    # Reading the state gives the obs; the step stays the core's own call.
    (r3, *_), (o3, *_) = check_step(ref, ours, a)
    assert ours.unwrapped.state is o3 and ours.unwrapped.step == ours.unwrapped.batch.step1


def test_a_refused_edit_raises_at_the_step_and_leaves_the_env_unchanged():
    ref, ours = make_pair()
    for env in (ref, ours):
        env.reset(seed=5)
    a = np.array([0.2], np.float32)
    (r, *_), (o, *_) = check_step(ref, ours, a)
    buf = ours.unwrapped.batch.state_buffer.copy()
    r[0] = o[0] = np.float32(2e38)  # 3 * position overflows float32: math.cos(inf)
    with pytest.raises(ValueError, match="math domain error"), np.errstate(over="ignore"):
        ref.step(a)
    with pytest.raises(ValueError, match="changed in place.*env is unchanged"):
        ours.step(a)
    assert np.array_equal(ours.unwrapped._core.state_buffer, buf)
    assert ours.unwrapped.state is o
    # get_state works, as deepcopy and pickle do (issue 24): the snapshot is
    # of the unchanged env, without the refused edit, and taking it changes
    # nothing (the obs keeps the edit, the next step still refuses it).
    snap = ours.unwrapped.get_state()
    assert np.array_equal(snap["state_buffer"], buf)
    assert ours.unwrapped.state is o and o[0] == np.float32(2e38)
    with pytest.raises(ValueError, match="changed in place.*env is unchanged"):
        ours.step(a)
    r[0] = o[0] = -0.6
    for t, a in enumerate(float32_actions(50, 5)):
        check_step(ref, ours, a, f"step {t}")
    # The snapshot restores the env as it was at the refused edit.
    ours.unwrapped.set_state(snap)
    assert np.array_equal(ours.unwrapped._core.state_buffer, buf)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_refused_edit_does_not_block_copies(how):
    """After the step refused an in-place edit of the obs, the env copies as
    Gymnasium's does (issue 24): the copy holds the edited state, its step
    raises Gymnasium's ValueError, and fixed in place it steps as
    Gymnasium's copy; the original is untouched by the copy."""
    ref, ours = make_pair()
    for env in (ref, ours):
        env.reset(seed=5)
    a = np.array([0.2], np.float32)
    (r, *_), (o, *_) = check_step(ref, ours, a)
    r[0] = o[0] = np.float32(2e38)
    with pytest.raises(ValueError, match="changed in place"):
        ours.step(a)
    dup = copy.deepcopy if how == "deepcopy" else (lambda e: pickle.loads(pickle.dumps(e)))
    with np.errstate(over="ignore"):
        rc, oc = dup(ref), dup(ours)
        assert same(rc.unwrapped.state, oc.unwrapped.state)
        with pytest.raises(ValueError, match="math domain error"):
            rc.step(a)
        with pytest.raises(ValueError, match="changed in place"):
            oc.step(a)
    assert ours.unwrapped.state is o
    rc.unwrapped.state[0] = oc.unwrapped.state[0] = -0.6
    r[0] = o[0] = -0.5
    for t, a in enumerate(float32_actions(30, 6)):
        check_step(rc, oc, a, f"copy step {t}")
        check_step(ref, ours, a, f"original step {t}")


@pytest.mark.parametrize("change", ["dtype", "shape", "byteorder"])
def test_an_obs_reinterpreted_in_place_is_refused(change):
    """An edit that makes the obs another dtype or shape (which Gymnasium
    would compute with in that type or fail on): a clear error, env unchanged."""
    env = gym.make(IDS[1])
    env.reset(seed=6)
    a = np.array([0.2], np.float32)
    obs = env.step(a)[0]
    buf = env.unwrapped.batch.state_buffer.copy()
    before = obs.copy()
    if change == "dtype":
        set_dtype(obs, np.int32)
    elif change == "shape":
        set_shape(obs, (2, 1))
    else:
        set_dtype(obs, obs.dtype.newbyteorder())
    with pytest.raises((TypeError, ValueError), match="changed in place"):
        env.step(a)
    assert np.array_equal(env.unwrapped._core.state_buffer, buf)
    if change == "dtype":
        set_dtype(obs, np.float32)
    elif change == "shape":
        set_shape(obs, (2,))
    else:
        set_dtype(obs, np.float32)
    assert same(obs, before)
    env.step(a)  # back as it was: steps on


def test_snapshots_copies_and_render_see_the_edit():
    ref, ours = make_pair(render_mode="rgb_array")
    for env in (ref, ours):
        env.reset(seed=7)
    a = np.array([0.4], np.float32)
    (r, *_), (o, *_) = check_step(ref, ours, a)
    r *= 1.5
    o *= 1.5
    # render draws the edited state (the frames of a state set explicitly)
    other = ccgym.envs.Continuous_MountainCarEnv(render_mode="rgb_array")
    other.reset(seed=0)
    other.state = o.copy()
    assert np.array_equal(ours.render(), other.render())
    snap = ours.unwrapped.get_state()
    dup = pickle.loads(pickle.dumps(ours.unwrapped))
    deep = copy.deepcopy(ours.unwrapped)
    restored = ccgym.envs.Continuous_MountainCarEnv()
    restored.reset(seed=1)
    restored.set_state(snap)
    ref_dup = copy.deepcopy(ref.unwrapped)
    for clone in (dup, deep, restored):
        assert clone.state is not o and same(clone.state, o)
    acts = float32_actions(30, 7)
    for t, a in enumerate(acts):
        want = step(ref_dup, a)
        for clone in (dup, deep, restored):
            got = step(clone, a)
            assert same(want[0], got[0]) and want[1:4] == got[1:4], t
    check_step(ref, ours, acts[0])  # the original steps from the edit too


def test_a_state_assignment_replaces_the_obs():
    ref, ours = make_pair()
    for env in (ref, ours):
        env.reset(seed=8)
    a = np.array([-0.3], np.float32)
    (r, *_), (o, *_) = check_step(ref, ours, a)
    for env in (ref, ours):
        env.unwrapped.state = np.array([-0.4, 0.01], np.float32)
    r[0] = o[0] = 0.4  # no longer the state
    check_step(ref, ours, a)
    # The same values as the obs (C unchanged): still a new object.
    (r, *_), (o, *_) = check_step(ref, ours, a)
    for obs, env in ((r, ref), (o, ours)):
        env.unwrapped.state = obs.copy()
        obs[0] = 0.4
    check_step(ref, ours, a)
    # Reset makes a new state as well.
    (r, *_), (o, *_) = check_step(ref, ours, a)
    ref.reset(seed=9), ours.reset(seed=9)
    r[0] = o[0] = 0.4
    check_step(ref, ours, a)


def test_the_state_overflowing_float32_at_3x_is_refused_when_assigned():
    env = ccgym.envs.Continuous_MountainCarEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="math domain error"):
        env.state = np.array([2e38, 0.0], np.float32)
    env.state = np.array([2e38, 0.0], np.float64)  # float64: 6e38 is finite
    ref = gym.make(IDS[0]).unwrapped
    ref.reset(seed=0)
    ref.state = np.array([2e38, 0.0], np.float64)
    assert same(step(env, np.array([0.1], np.float32))[0],
                step(ref, np.array([0.1], np.float32))[0])


def test_the_vector_and_sb3_front_ends_keep_returning_copies():
    venv = ccgym.make_vec("MountainCarContinuous-v0", 3)
    twin = ccgym.make_vec("MountainCarContinuous-v0", 3)
    venv.reset(seed=1), twin.reset(seed=1)
    a = np.full((3, 1), 0.5, np.float32)
    obs = venv.step(a)[0]
    twin.step(a)
    obs *= 3
    assert np.array_equal(venv.step(a)[0], twin.step(a)[0])
    sb3 = pytest.importorskip("ccgym.sb3")
    ours, other = sb3.VecEnv("MountainCarContinuous-v0", 2), sb3.VecEnv(
        "MountainCarContinuous-v0", 2)
    ours.seed(2), other.seed(2)
    ours.reset(), other.reset()
    a = np.full((2, 1), 0.5, np.float32)
    obs = ours.step(a)[0]
    other.step(a)
    obs *= 3
    assert np.array_equal(ours.step(a)[0], other.step(a)[0])
