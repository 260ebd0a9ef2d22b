"""The single envs as Gymnasium API citizens: env_checker, registration, spaces,
metadata, seeding attributes, returned buffers, rendering, and bad input
(each a clear Python exception naming the problem, never a crash)."""

from __future__ import annotations

import copy
import inspect
import pickle
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidAction, ResetNeeded
from gymnasium.utils.env_checker import check_env

import ccgym
import ccgym.envs
from install_helpers import editable_install
from reference import (GYM_IDS, NEWEST_GYM_IDS, STOCK_IDS, class_pairs, is_continuous,
                       is_discrete, reference_id)

# The ids ccgym mirrors from Gymnasium under their own names (registry lines
# without a module of their own): this file's cases. An env tools/new_env.py
# adds is checked against its source by tests/test_new_env.py.
# Read from Gymnasium's registry (tests/reference.py), not listed here.
ENV_IDS = list(GYM_IDS)
DISCRETE_IDS = [i for i in NEWEST_GYM_IDS if is_discrete(i)]
CONTINUOUS_IDS = [i for i in NEWEST_GYM_IDS if is_continuous(i)]
# Gymnasium's class and ccgym's per class ("CartPole": (CartPoleEnv, ...)).
CLASS_PAIRS = class_pairs()
REPO_ROOT = Path(__file__).resolve().parents[1]


def kind_of(env_id: str) -> str:
    return env_id.split("-v")[0]


def make(env_id: str, **kwargs) -> gym.Env:
    """gym.make, expecting Gymnasium's deprecation warning for CartPole-v0."""
    if env_id.endswith("CartPole-v0"):
        with pytest.warns(DeprecationWarning, match="out of date"):
            return gym.make(env_id, **kwargs)
    return gym.make(env_id, **kwargs)


def raw(env_id: str, **kwargs) -> gym.Env:
    return CLASS_PAIRS[kind_of(env_id)][1](**kwargs)


def valid_action(env_id: str):
    return np.array([0.5], dtype=np.float32) if env_id in CONTINUOUS_IDS else 1


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter (from a directory outside the source tree)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, cwd="/")


# --------------------------------------------------------------- installed


def test_tests_run_against_the_installed_package():
    if editable_install():
        pytest.skip("an editable install (README, Develop) imports ccgym from the source tree "
                    "by design")
    path = Path(ccgym.__file__).resolve()
    assert REPO_ROOT / "python" not in path.parents, f"ccgym imported from the source tree: {path}"
    assert Path(ccgym._core.__file__).suffix in (".so", ".pyd")


# -------------------------------------------------------------- env_checker


def _checker_warnings(env: gym.Env) -> tuple[list[tuple[type, str]], list[str]]:
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        # The render check builds the env with each declared render mode and
        # renders: Gymnasium needs pygame for that, ccgym has no renderer yet
        # (see test_check_env_render_check_needs_the_renderer).
        check_env(env, skip_render_check=True)
    gym_ws = [(w.category, str(w.message).replace("ccgym/", "")) for w in ws
              if not issubclass(w.category, RuntimeWarning)]
    runtime = [str(w.message) for w in ws if issubclass(w.category, RuntimeWarning)]
    return gym_ws, runtime


@pytest.mark.parametrize("wrapped", [False, True], ids=["unwrapped", "make"])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_passes_with_gymnasiums_own_warnings(env_id, wrapped):
    """check_env passes, and warns exactly where it warns for Gymnasium's env
    (CartPole's infinite observation bounds, Pendulum's non-normalised action
    space, the wrapper note for gym.make, CartPole-v0's deprecation)."""
    ours = make(f"ccgym/{env_id}")
    ref = make(env_id)
    ours_ws, ours_rt = _checker_warnings(ours if wrapped else ours.unwrapped)
    ref_ws, _ = _checker_warnings(ref if wrapped else ref.unwrapped)
    assert ours_ws == ref_ws
    assert not ours_rt
    for category, message in ours_ws:  # only warnings a Gymnasium env also gets
        assert any(s in message for s in (
            "minimum value is -infinity", "maximum value is infinity", "symmetric and normalized",
            "different from the unwrapped", "out of date",
        )), message


def test_check_env_render_check(monkeypatch):
    """Without skip_render_check, check_env renders in every declared mode
    (human needs pygame: a headless SDL driver stands in for the screen)."""
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make("ccgym/MountainCar-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)


# -------------------------------------------------------------- registration


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_like_gymnasium(env_id):
    ours, ref = gym.spec(f"ccgym/{env_id}"), gym.spec(env_id)
    assert ours.max_episode_steps == ref.max_episode_steps
    assert ours.reward_threshold == ref.reward_threshold
    assert ours.nondeterministic == ref.nondeterministic
    assert ours.order_enforce == ref.order_enforce
    assert ours.disable_env_checker == ref.disable_env_checker
    assert ours.namespace == "ccgym" and ours.name == ref.name and ours.version == ref.version
    assert ours.vector_entry_point is not None
    env = make(f"ccgym/{env_id}")
    assert isinstance(env.unwrapped, CLASS_PAIRS[kind_of(env_id)][1])
    assert env.spec.max_episode_steps == ref.max_episode_steps
    assert env.unwrapped.spec.id == f"ccgym/{env_id}"


def test_env_ids_and_specs_table():
    # The stock ids are exactly these, and exactly Gymnasium's classic-control
    # ids; every other registered id (an added env) mirrors one of them.
    assert set(STOCK_IDS) == set(ENV_IDS)
    assert set(STOCK_IDS) == {i for i, s in gym.registry.items() if "/" not in i
                              and str(s.entry_point).startswith("gymnasium.envs.classic_control")}
    for env_id in ccgym.ENV_IDS:
        _, max_steps, threshold = ccgym.ENV_SPECS[env_id][:3]
        ref = gym.spec(reference_id(env_id))
        assert (max_steps, threshold) == (ref.max_episode_steps, ref.reward_threshold)


def test_max_episode_steps_override():
    env = gym.make("ccgym/Pendulum-v1", max_episode_steps=3)
    env.reset(seed=0)
    flags = [env.step(np.zeros(1, np.float32))[3] for _ in range(3)]
    assert flags == [False, False, True]


def test_make_with_module_prefix_in_fresh_interpreter():
    """'ccgym:ccgym/<id>' imports ccgym on the fly; the interpreter has not imported it."""
    proc = run_python("""
        import sys
        import gymnasium as gym
        assert "ccgym" not in sys.modules
        env = gym.make("ccgym:ccgym/CartPole-v1")
        assert "ccgym" in sys.modules
        assert type(env.unwrapped).__module__ == "ccgym.envs", type(env.unwrapped)
        obs, info = env.reset(seed=0)
        ref = gym.make("CartPole-v1").reset(seed=0)[0]
        assert (obs.view("u4") == ref.view("u4")).all()
        for env_id in sys.modules["ccgym"].ENV_IDS:  # the module gym.make imported
            gym.make(f"ccgym/{env_id}").reset(seed=1)
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_register_envs_in_fresh_interpreter():
    proc = run_python(f"""
        import gymnasium as gym
        import ccgym
        gym.register_envs(ccgym)
        import importlib; importlib.reload(ccgym)  # registering twice is harmless
        assert sum(k.startswith("ccgym/") for k in gym.registry) == {len(ccgym.ENV_IDS)}
        print(gym.make("ccgym/Acrobot-v1").spec.max_episode_steps)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "500"


# ----------------------------------------------------- spaces and metadata


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spaces_and_metadata_equal_gymnasiums(env_id):
    ours, ref = make(f"ccgym/{env_id}"), make(env_id)
    assert ours.action_space == ref.action_space
    assert ours.observation_space == ref.observation_space
    assert ours.observation_space.dtype == np.float32
    assert ours.action_space.dtype == ref.action_space.dtype
    for key in ("render_modes", "render_fps"):
        assert ours.metadata[key] == ref.metadata[key], key
    assert ours.unwrapped.metadata == {k: ref.unwrapped.metadata[k]
                                       for k in ("render_modes", "render_fps")}
    assert ours.render_mode is None
    assert_same_space(ours.observation_space, ref.observation_space)
    assert_same_space(ours.action_space, ref.action_space)


def assert_same_space(ours: gym.spaces.Space, ref: gym.spaces.Space) -> None:
    """The same space object, field by field and bit for bit (Box.__eq__
    compares bounds with np.allclose), its random generator aside."""
    assert type(ours) is type(ref)
    mine, theirs = dict(vars(ours)), dict(vars(ref))
    mine.pop("_np_random"), theirs.pop("_np_random")
    assert list(mine) == list(theirs)
    for key, value in theirs.items():
        if isinstance(value, np.ndarray):
            assert mine[key].dtype == value.dtype and mine[key].shape == value.shape, key
            assert mine[key].tobytes() == value.tobytes(), key
        else:
            assert type(mine[key]) is type(value) and mine[key] == value, key


@pytest.mark.parametrize("kind", list(CLASS_PAIRS))
def test_spaces_follow_the_constructor_as_gymnasiums(kind):
    """Built with every keyword of Gymnasium's constructor changed, the
    spaces (from the env's def) are still those of Gymnasium's env built so
    (Gymnasium's Acrobot takes none: its default spaces)."""
    ref_cls, our_cls = CLASS_PAIRS[kind]
    kwargs = {name: (not p.default) if isinstance(p.default, bool) else p.default + 0.5
              for name, p in inspect.signature(ref_cls.__init__).parameters.items()
              if name not in ("self", "render_mode")}
    ours, ref = our_cls(**kwargs), ref_cls(**kwargs)
    assert_same_space(ours.observation_space, ref.observation_space)
    assert_same_space(ours.action_space, ref.action_space)
    for name in ("low", "high", "low_state", "high_state"):  # Gymnasium's own copies
        if hasattr(ref, name):
            value = getattr(ours, name)
            assert value.tobytes() == getattr(ref, name).tobytes(), name
            assert value.dtype == np.float32 and not np.shares_memory(
                value, ours.observation_space.low) and not np.shares_memory(
                value, ours.observation_space.high), name


@pytest.mark.parametrize("kind", list(CLASS_PAIRS))
def test_constructor_keywords_cover_gymnasiums(kind):
    """Gymnasium's keyword arguments exist with the same defaults (ccgym may add more)."""
    ref_cls, our_cls = CLASS_PAIRS[kind]
    ref_sig = inspect.signature(ref_cls.__init__).parameters
    our_sig = inspect.signature(our_cls.__init__).parameters
    for name, param in ref_sig.items():
        assert name in our_sig, name
        assert our_sig[name].default == param.default, name


@pytest.mark.parametrize("kind", list(CLASS_PAIRS))
def test_public_constants_equal_gymnasiums(kind):
    """Physical constants and bounds a user may read (gravity, max_speed, ...)."""
    ref_cls, our_cls = CLASS_PAIRS[kind]
    ref, ours = ref_cls(), our_cls()
    skip = {"screen", "clock", "isopen", "state", "steps_beyond_terminated", "last_u",
            "action_arrow", "domain_fig", "render_mode", "spec"}
    names = {k for k in vars(ref) if not k.startswith("_")}
    names |= {k for k, v in vars(ref_cls).items() if not k.startswith("_") and not callable(v)
              and not isinstance(v, (property, dict))}
    for name in sorted(names - skip):
        rv, ov = getattr(ref, name), getattr(ours, name)
        if isinstance(rv, np.ndarray):
            assert isinstance(ov, np.ndarray) and ov.dtype == rv.dtype, name
            np.testing.assert_array_equal(ov, rv, err_msg=name)
        else:
            assert ov == rv, name


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_state_attribute_matches_gymnasium(env_id):
    """`state` holds the same numbers as Gymnasium's (as float64)."""
    ref_cls, our_cls = CLASS_PAIRS[kind_of(env_id)]
    ref, ours = ref_cls(), our_cls()
    # Before the first reset: None where Gymnasium's __init__ sets it, else absent.
    if hasattr(ref, "state"):
        assert ours.state is None is ref.state
    else:
        assert not hasattr(ours, "state")
    ref.reset(seed=3)
    ours.reset(seed=3)
    for t in range(30 if env_id != "CartPole-v1" else 8):  # before the pole falls
        r = np.asarray(ref.state, dtype=np.float64)
        o = np.asarray(ours.state, dtype=np.float64)
        assert np.array_equal(r.view(np.uint64), o.view(np.uint64)), (t, r, o)
        a = valid_action(env_id)
        ref.step(a)
        ours.step(a)
    if env_id == "Pendulum-v1":
        assert ours.last_u == float(ref.last_u)


# ------------------------------------------------------------ np_random


def _pcg_state(env: gym.Env):
    return env.np_random.bit_generator.state["state"]


def test_fresh_env_has_an_entropy_seed():
    a, b = ccgym.CartPoleEnv(), ccgym.CartPoleEnv()
    assert isinstance(a.np_random, np.random.Generator)
    assert isinstance(a.np_random_seed, int) and a.np_random_seed >= 0
    assert a.np_random_seed != b.np_random_seed
    assert _pcg_state(a) != _pcg_state(b)
    # The first unseeded reset draws from that entropy-seeded stream (as in Gymnasium).
    seed = a.np_random_seed
    expected = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).uniform(
        -0.05, 0.05, size=4)
    obs, _ = a.reset()
    assert np.array_equal(obs, expected.astype(np.float32))
    assert a.np_random_seed == seed


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "make"])
@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_np_random_seed_follows_gymnasium(env_id, wrapped):
    ours = make(f"ccgym/{env_id}") if wrapped else raw(env_id)
    ref = make(env_id) if wrapped else CLASS_PAIRS[kind_of(env_id)][0]()
    for seed in (0, 17, 2**64 + 5):
        ours.reset(seed=seed)
        ref.reset(seed=seed)
        assert ours.np_random_seed == ref.np_random_seed == seed
        assert _pcg_state(ours) == _pcg_state(ref)
        ours.reset()
        ref.reset()
        assert ours.np_random_seed == ref.np_random_seed == seed  # unseeded keeps the seed
        assert _pcg_state(ours) == _pcg_state(ref)


def test_np_random_assignment():
    env = ccgym.MountainCarEnv()
    env.reset(seed=1)
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(99)))
    env.np_random = g
    assert env.np_random_seed == -1
    assert _pcg_state(env) == g.bit_generator.state["state"]
    # The env draws from g itself (Gymnasium's semantics): a copy taken now
    # predicts the reset.
    expected = np.float32(copy.deepcopy(g).uniform(-0.6, -0.4))
    obs, _ = env.reset()
    assert obs[0] == expected
    assert env.np_random is g


def test_np_random_takes_other_bit_generators():
    """As Gymnasium does (issue 16; it was refused before): the env draws from
    the assigned Generator itself (tests/test_live_attributes.py compares every
    env with Gymnasium's)."""
    env = ccgym.CartPoleEnv()
    g = np.random.Generator(np.random.MT19937(0))
    env.np_random = g
    assert env.np_random is g
    expected = copy.deepcopy(g).uniform(-0.05, 0.05, size=(4,)).astype(np.float32)
    assert np.array_equal(env.reset()[0], expected)


def test_np_random_is_the_env_stream():
    """As in Gymnasium, drawing from np_random advances the env's own stream
    (it was a copy before issue 16; tests/test_live_attributes.py has more)."""
    env = ccgym.CartPoleEnv()
    env.reset(seed=5)
    before = _pcg_state(env)
    first = env.np_random.random()
    assert env.np_random.random() != first
    assert _pcg_state(env) != before
    ref = np.random.default_rng(5)
    ref.uniform(-0.05, 0.05, size=4)
    ref.random(2)
    assert _pcg_state(env) == ref.bit_generator.state["state"]


# -------------------------------------------------------- returned buffers


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_returned_observations_are_fresh_arrays(env_id):
    env = raw(env_id)
    obs0, _ = env.reset(seed=0)
    keep = obs0.copy()
    obs1 = env.step(valid_action(env_id))[0]
    obs2 = env.step(valid_action(env_id))[0]
    assert not np.shares_memory(obs0, obs1) and not np.shares_memory(obs1, obs2)
    assert np.array_equal(obs0, keep, equal_nan=True)  # not overwritten by the steps
    assert obs1.flags.writeable and obs1.flags.c_contiguous
    # Writing into a returned observation does not touch the env, except in
    # MountainCarContinuous, whose step returns its state itself (as
    # Gymnasium's: the write changes the next step just as Gymnasium's;
    # tests/test_live_obs.py).
    if env_id == "MountainCarContinuous-v0":
        twin = gym.make(env_id).unwrapped
        assert obs2 is env.state
    else:
        twin = raw(env_id)
    twin.reset(seed=0)
    twin.step(valid_action(env_id))
    twin_obs2 = twin.step(valid_action(env_id))[0]
    obs2[:] = 123.0
    if env_id == "MountainCarContinuous-v0":
        twin_obs2[:] = 123.0
    a = env.step(valid_action(env_id))[0]
    b = twin.step(valid_action(env_id))[0]
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
    if env_id == "MountainCarContinuous-v0":  # not the stale path: the write did reach it
        plain = raw(env_id)
        plain.reset(seed=0)
        for _ in range(3):
            c = plain.step(valid_action(env_id))[0]
        assert not np.array_equal(a, c)


@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_action_array_not_modified(env_id):
    env = raw(env_id)
    env.reset(seed=0)
    action = np.array([5.0], dtype=np.float32)
    env.step(action)
    assert action[0] == 5.0


# ----------------------------------------------------------------- render


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_render_without_mode_warns_and_returns_none(env_id):
    env = make(f"ccgym/{env_id}")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert raw(env_id).render() is None


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_render_with_mode(env_id, monkeypatch):
    """rgb_array returns the frame (tests/test_render.py checks it against
    Gymnasium's); human needs pygame, named by DependencyNotInstalled."""
    env = make(f"ccgym/{env_id}", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(valid_action(env_id))
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == ref_frame_shape(env_id)
    monkeypatch.setitem(sys.modules, "pygame", None)
    human = make(f"ccgym/{env_id}", render_mode="human")
    assert human.render_mode == "human"
    with pytest.raises(gym.error.DependencyNotInstalled, match=r"ccgym\[render\]"):
        human.reset(seed=0)


def ref_frame_shape(env_id: str) -> tuple[int, int, int]:
    return (500, 500, 3) if env_id in ("Pendulum-v1", "Acrobot-v1") else (400, 600, 3)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array_list", "", "RGB_ARRAY", 3])
@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_other_render_modes_as_gymnasium(env_id, render_mode):
    """Issue 16 item 3: a render_mode string outside metadata is taken as
    Gymnasium's classes take it (stored; gym.make warns the same warning;
    render() is None, the env checker refuses it on gym.make'd envs);
    "rgb_array_list" is gym.make's own wrapper mode, so only the bare class
    sees it. A non-string is refused with a TypeError (Gymnasium stores it)."""
    if not isinstance(render_mode, str):
        with pytest.raises(TypeError, match=f"render_mode.*{render_mode!r}"):
            raw(env_id, render_mode=render_mode)
        return
    env = raw(env_id, render_mode=render_mode)
    ref = type(gym.make(env_id).unwrapped)(render_mode=render_mode)  # Gymnasium's class
    assert env.render_mode == ref.render_mode == render_mode
    env.reset(seed=0)
    assert env.render() is None
    if render_mode in ("ansi", ""):
        with pytest.warns(UserWarning, match="not in the possible render_modes"):
            made = gym.make(f"ccgym/{env_id}", render_mode=render_mode)
        assert made.render_mode == render_mode


# -------------------------------------------------------------- bad input

BAD_DISCRETE = [
    (-1, "outside the action space"), (3, "outside the action space"),
    (2**70, "outside the action space"), (np.int64(-5), "outside the action space"),
    (np.uint8(200), "outside the action space"),
    (1.0, "expected an integer"), (np.float32(1), "expected an integer"),
    ("1", "expected an integer"), (None, "expected an integer"),
    (np.array([1]), "expected an integer"), (np.array([[0]]), "expected an integer"),
    ([1], "expected an integer"), (np.array(1.0), "expected an integer"),
    (1 + 0j, "expected an integer"), (np.bool_(True), "expected an integer"),
]


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "make"])
@pytest.mark.parametrize(("action", "message"), BAD_DISCRETE, ids=[repr(a) for a, _ in BAD_DISCRETE])
@pytest.mark.parametrize("env_id", DISCRETE_IDS)
def test_bad_discrete_action(env_id, action, message, wrapped):
    env = make(f"ccgym/{env_id}") if wrapped else raw(env_id)
    if env_id == "CartPole-v1" and isinstance(action, int) and action == 3:
        message = "outside the action space Discrete\\(2\\)"
    env.reset(seed=0)
    twin = raw(env_id)
    twin.reset(seed=0)
    with pytest.raises(InvalidAction, match=message):
        env.step(action)
    # The rejected step changed nothing.
    a = env.step(1)[0]
    b = twin.step(1)[0]
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("env_id", DISCRETE_IDS)
def test_valid_discrete_action_types(env_id):
    """Python ints, numpy integer scalars and 0-d integer arrays (Discrete.contains accepts them).

    np.uint64 too where the installed Gymnasium steps it (Discrete.contains of
    Gymnasium 1.0/1.1; Acrobot, which does not assert contains); Gymnasium
    >= 1.2's CartPole and MountainCar refuse it, and so does ccgym."""
    results = []
    uint64_ok = env_id == "Acrobot-v1" or gym.spaces.Discrete(2).contains(np.uint64(1))
    actions = [1, np.int64(1), np.int8(1), np.array(1), np.array(1, np.int16)]
    for action in actions + [np.uint64(1), np.array(1, np.uint64)]:
        env = raw(env_id)
        env.reset(seed=0)
        if not uint64_ok and action.__class__ is not int and action.dtype == np.uint64:
            with pytest.raises(gym.error.InvalidAction, match="uint64"):
                env.step(action)
            continue
        results.append(env.step(action)[0])
    assert all(np.array_equal(results[0], r) for r in results)


BAD_CONTINUOUS = [
    0.5, np.float32(0.5), np.array(0.5, dtype=np.float32), np.array([[0.5]], dtype=np.float32),
    np.array([0.5, 0.5], dtype=np.float32), np.zeros(0, dtype=np.float32), "a", None,
    np.array(["a"]), np.array([1 + 2j]), [[0.5]], {"a": 1}, object(),
    # long double (where it is wider than float64): Gymnasium would compute in it.
    *([np.array([0.5], np.longdouble)] if np.dtype(np.longdouble).itemsize > 8 else []),
]  # np.array([True]) is valid: Gymnasium computes it as 1.0 in float64


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "make"])
# ids stable across processes (pytest-xdist's workers must collect the same
# ids): no object addresses.
@pytest.mark.parametrize("action", BAD_CONTINUOUS,
                         ids=[re.sub(r" at 0x[0-9a-f]+", "", repr(a)) for a in BAD_CONTINUOUS])
@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_bad_continuous_action(env_id, action, wrapped):
    env = make(f"ccgym/{env_id}") if wrapped else raw(env_id)
    env.reset(seed=0)
    with pytest.raises(InvalidAction, match="not a valid action"):
        env.step(action)
    env.step(np.array([0.1], dtype=np.float32))  # still usable


@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_continuous_actions_in_other_real_dtypes_are_computed_as_gymnasium(env_id):
    """float64, float16, int, bool, list and tuple actions are computed as
    Gymnasium computes them (in float64 for float64, ...), not as float32
    (many seeds and dtypes: tests/test_action_dtypes.py)."""
    for action in (np.array([0.3], np.float32), np.array([0.3]), [0.3], (0.3,),
                   np.array([0.3], np.float16), np.array([1], np.int16), np.array([True])):
        env = raw(env_id)
        ref = gym.make(env_id).unwrapped
        env.reset(seed=1)
        ref.reset(seed=1)
        for _ in range(5):
            o, r = env.step(action), ref.step(action)
            assert np.array_equal(o[0].view(np.uint32), r[0].view(np.uint32)), action
            assert o[1] == r[1] and type(o[1]) is type(r[1]), action
    env = raw(env_id)
    env.reset(seed=1)
    a = env.step(np.array([1], dtype=np.int64))[0]
    env = raw(env_id)
    env.reset(seed=1)
    assert np.array_equal(a, env.step(np.array([1.0], np.float32))[0])


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_step_before_reset(env_id):
    with pytest.raises(ResetNeeded, match="reset"):
        raw(env_id).step(valid_action(env_id))
    with pytest.raises(ResetNeeded, match="reset"):
        gym.make(f"ccgym/{env_id}").step(valid_action(env_id))


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "make"])
@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_step_and_reset_after_close(env_id, wrapped):
    env = gym.make(f"ccgym/{env_id}") if wrapped else raw(env_id)
    env.reset(seed=0)
    env.close()
    env.close()  # closing twice is allowed
    # As in Gymnasium, close() only releases rendering resources: the env
    # still steps and resets (before issue 16 these raised RuntimeError).
    env.step(valid_action(env_id))
    env.reset()
    obs, _ = env.reset(seed=1)
    ref = gym.make(env_id)
    assert np.array_equal(obs, ref.reset(seed=1)[0])


BAD_SEEDS = [(-1, "greater or equal to zero"), (-(2**70), "greater or equal to zero"),
             (1.5, "python integer"), (1.0, "python integer"), ("1", "python integer"),
             ([1], "python integer"), (np.float64(2), "python integer")]


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "make"])
@pytest.mark.parametrize(("seed", "message"), BAD_SEEDS, ids=[repr(s) for s, _ in BAD_SEEDS])
def test_invalid_seed(seed, message, wrapped):
    env = gym.make("ccgym/CartPole-v1") if wrapped else ccgym.CartPoleEnv()
    env.reset(seed=3)
    before = _pcg_state(env)
    with pytest.raises(gym.error.Error, match=message):
        env.reset(seed=seed)
    assert _pcg_state(env) == before  # a rejected seed leaves the stream alone


def test_numpy_integer_seed_is_the_same_seed():
    """ccgym also takes numpy integer seeds (Gymnasium rejects them): same stream as the int."""
    a, b = ccgym.AcrobotEnv(), ccgym.AcrobotEnv()
    assert np.array_equal(a.reset(seed=np.uint32(7))[0], b.reset(seed=7)[0])


BAD_OPTIONS = {
    "CartPole": [({"low": 0.2, "high": 0.1}, ValueError, "Lower bound"),
                 ({"low": "abc"}, ValueError, "could not be converted"),
                 ({"high": None}, ValueError, "could not be converted"),
                 ({"low": [1, 2]}, ValueError, "could not be converted"),
                 ({"low": float("nan")}, OverflowError, "range")],
    "Pendulum": [({"x_init": "abc"}, ValueError, "could not be converted"),
                 ({"y_init": None}, ValueError, "could not be converted")],
}
BAD_OPTION_CASES = [
    (env_id, opts, exc, msg)
    for env_id in ENV_IDS[1:]
    for opts, exc, msg in BAD_OPTIONS["Pendulum" if env_id == "Pendulum-v1" else "CartPole"]
]


@pytest.mark.parametrize(("env_id", "options", "exc", "message"), BAD_OPTION_CASES,
                         ids=[f"{e}-{o}" for e, o, _, _ in BAD_OPTION_CASES])
def test_invalid_reset_options(env_id, options, exc, message):
    env = raw(env_id)
    with pytest.raises(exc, match=message):
        env.reset(seed=0, options=options)
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[("low", 0.1)])
    env.reset(seed=0)  # still usable


@pytest.mark.parametrize(
    ("cls", "kwargs", "exc"),
    [
        (ccgym.PendulumEnv, {"g": "9.8"}, TypeError),
        (ccgym.PendulumEnv, {"g": None}, TypeError),
        (ccgym.MountainCarEnv, {"goal_velocity": "fast"}, TypeError),
        (ccgym.Continuous_MountainCarEnv, {"goal_velocity": [0.1]}, TypeError),
        (ccgym.AcrobotEnv, {"torque_noise_max": -0.1}, ValueError),
        (ccgym.AcrobotEnv, {"torque_noise_max": float("inf")}, ValueError),
        (ccgym.CartPoleEnv, {"unknown": 1}, TypeError),
    ],
)
def test_invalid_constructor_arguments(cls, kwargs, exc):
    with pytest.raises(exc, match=next(iter(kwargs))):
        cls(**kwargs)


@pytest.mark.parametrize(
    ("name", "value", "exc"),
    [("torque_noise_max", -1.0, ValueError), ("torque_noise_max", float("nan"), ValueError),
     ("torque_noise_max", "0.5", TypeError), ("book_or_nips", "nipps", ValueError),
     ("book_or_nips", None, ValueError)],
)
def test_invalid_acrobot_attributes_leave_the_env_unchanged(name, value, exc):
    env = ccgym.AcrobotEnv()
    env.torque_noise_max = 0.25
    with pytest.raises(exc, match=name):
        setattr(env, name, value)
    assert env.torque_noise_max == 0.25 and env.book_or_nips == "book"


def test_bad_inputs_never_crash_the_interpreter():
    """The gauntlet in a subprocess: every call raises a Python exception; no segfault."""
    proc = run_python("""
        import numpy as np, gymnasium as gym, ccgym
        bad_actions = [-1, 3, 2**64, -2**63 - 1, 1.5, "x", None, np.array([1]), [1], np.array([[1]]),
                       np.float64(1), object(), np.array([np.nan]), np.array([1.0] * 1000),
                       np.zeros(0), np.array([], dtype=np.int64), np.array([[0.5]])]
        n_raised = 0
        for env_id in ccgym.ENV_IDS[1:]:
            for wrapped in (False, True):
                env = gym.make(f"ccgym/{env_id}")
                if not wrapped:
                    env = env.unwrapped
                try:
                    env.step(0)
                except Exception:
                    n_raised += 1
                env.reset(seed=0)
                for a in bad_actions:
                    try:
                        env.step(a)
                    except Exception:
                        n_raised += 1
                for seed in (-1, 1.5, "s", 2**1000):
                    try:
                        env.reset(seed=seed)
                    except Exception:
                        n_raised += 1
                for options in ({"low": "a"}, {"low": 1.0, "high": 0.0}, {"x_init": "a"}, "opts",
                                {"low": float("inf")}):
                    try:
                        env.reset(options=options)
                    except Exception:
                        n_raised += 1
                env.close()
                for call in (lambda: env.step(0), env.reset, env.close):
                    try:
                        call()
                    except Exception:
                        n_raised += 1
        print("survived", n_raised)
    """)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.stdout.startswith("survived")


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_huge_seed(env_id):
    """A 1000-bit seed is a valid SeedSequence seed, as in Gymnasium."""
    ours, ref = raw(env_id), CLASS_PAIRS[kind_of(env_id)][0]()
    o = ours.reset(seed=2**1000 + 3)[0]
    r = ref.reset(seed=2**1000 + 3)[0]
    assert np.array_equal(o.view(np.uint32), r.view(np.uint32))


# ------------------------------------------------------------ copying


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_env_copies_continue_bit_exactly(env_id, how):
    """deepcopy and pickle give an independent env mid-episode that continues
    exactly as the original (Gymnasium's envs can be copied too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        env = gym.make(f"ccgym/{env_id}")
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(25):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()
    clone = {"deepcopy": copy.deepcopy,
             "pickle": lambda e: pickle.loads(pickle.dumps(e))}[how](env)
    actions = [env.action_space.sample() for _ in range(300)]

    def roll(e):
        out = []
        for a in actions:
            obs, r, term, trunc, _ = e.step(a)
            out.append((obs.tobytes(), float(r).hex(), term, trunc))
            if term or trunc:
                e.reset()
        return out

    first = roll(clone)
    assert roll(env) == first
    # The clone owns its state: stepping the original did not move it.
    assert clone.unwrapped.state is not None


def test_shallow_copy_of_a_raw_env_is_independent():
    """copy.copy of a raw ccgym env copies its C state: the copy does not move
    when the original steps, and then steps to the same place."""
    env = ccgym.CartPoleEnv()
    env.reset(seed=0)
    twin = copy.copy(env)
    before = env.state.copy()
    obs = env.step(1)[0]
    assert np.array_equal(twin.state, before)
    assert np.array_equal(twin.step(1)[0], obs)


def test_module_exports():
    for name in ("CartPoleEnv", "MountainCarEnv", "Continuous_MountainCarEnv", "PendulumEnv",
                 "AcrobotEnv", "make_vec", "ENV_IDS", "__version__"):
        assert hasattr(ccgym, name), name
    for cls in (ccgym.CartPoleEnv, ccgym.MountainCarEnv, ccgym.Continuous_MountainCarEnv,
                ccgym.PendulumEnv, ccgym.AcrobotEnv):
        assert issubclass(cls, gym.Env) and cls.__doc__
