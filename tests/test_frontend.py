"""The plumbing the front ends share (ccgym._frontend): every front end takes
ids, seeds, reset options and argument counts by the same rules, raising the
same exception with the same message; and no module reads another object's
private state."""

from __future__ import annotations

import ast
import pathlib

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _core, _frontend, _kinds, rendering
from ccgym.vector import VectorEnv

sb3 = pytest.importorskip("ccgym.sb3")

N = 4


def _error(fn):
    """(type, message) of what fn() raises."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


# ------------------------------------------------------------------ env ids

@pytest.mark.parametrize("form", ["{}", "ccgym/{}", "ccgym:ccgym/{}"])
@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_every_id_form_names_the_same_env(env_id, form):
    name = form.format(env_id)
    assert _frontend.resolve_env_id(name) == env_id
    assert ccgym.make_vec(name, 2).env_id == env_id
    assert sb3.VecEnv(name, 2).env_id == env_id
    assert rendering.kind_of(name) == _kinds.env_kind(env_id) == ccgym.make_vec(
        env_id, 1).batch.kind


@pytest.mark.parametrize("bad", ["Foo-v0", "ccgym/Foo-v0", "ccgym:CartPole-v1", "cartpole-v1",
                                 "ccgym:ccgym:ccgym/CartPole-v1", "", 3, None])
def test_bad_id_is_one_error_listing_the_valid_ids(bad):
    expected = (gym.error.Error,
                f"ccgym has no env {bad!r}; available: {', '.join(ccgym.ENV_IDS)}")
    assert _error(lambda: _frontend.resolve_env_id(bad)) == expected
    assert _error(lambda: ccgym.make_vec(bad, 2)) == expected
    assert _error(lambda: VectorEnv(bad, 2)) == expected
    assert _error(lambda: sb3.VecEnv(bad, 2)) == expected
    if isinstance(bad, str):
        with pytest.raises(ValueError, match="no renderer"):
            rendering.kind_of(bad)


# ------------------------------------------------------- constructor counts

@pytest.mark.parametrize(("kwargs", "exc"), [
    ({"num_envs": 0}, ValueError), ({"num_envs": 1.0}, TypeError),
    ({"num_envs": True}, TypeError), ({"num_threads": 0}, ValueError),
    ({"num_threads": "2"}, TypeError), ({"max_episode_steps": -1}, ValueError),
    ({"max_episode_steps": False}, ValueError),
])
def test_batch_front_ends_check_counts_alike(kwargs, exc):
    kwargs = {"num_envs": 2, **kwargs}
    num_envs = kwargs.pop("num_envs")
    vector = _error(lambda: VectorEnv("CartPole-v1", num_envs, **kwargs))
    assert vector[0] is exc
    assert _error(lambda: sb3.VecEnv("CartPole-v1", num_envs, **kwargs)) == vector


def test_numpy_int_counts_are_counts():
    env = VectorEnv("CartPole-v1", np.int64(3), num_threads=np.uint8(2),
                    max_episode_steps=np.int32(7))
    assert (env.num_envs, env.num_threads, env.max_episode_steps) == (3, 2, 7)
    assert all(type(v) is int for v in (env.num_envs, env.num_threads, env.max_episode_steps))


@pytest.mark.parametrize("mode", ["bogus", 1])
def test_render_mode_errors_name_the_modes(mode):
    # Issue 16: the single and vector envs take any string, as Gymnasium's
    # classes do (a non-string is the same TypeError in both); the SB3 VecEnv
    # renders only the modes it names, and says which.
    if isinstance(mode, str):
        assert ccgym.CartPoleEnv(render_mode=mode).render_mode == mode
        assert VectorEnv("CartPole-v1", 2, render_mode=mode).render_mode == mode
    else:
        single = _error(lambda: ccgym.CartPoleEnv(render_mode=mode))
        assert single == (TypeError, f"render_mode must be None or a str, got {mode!r}")
        assert _error(lambda: VectorEnv("CartPole-v1", 2, render_mode=mode)) == single
    assert _error(lambda: sb3.VecEnv("CartPole-v1", 2, render_mode=mode)) == (
        ValueError, f"render_mode must be None or one of ['human', 'rgb_array'], got {mode!r}")


# -------------------------------------------------------------------- seeds

BAD_SEEDS = [-1, -(2**64), 1.5, "3", np.float32(1), [1]]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_a_bad_seed_of_one_instance_is_the_same_error_everywhere(seed):
    expected = _error(lambda: ccgym.CartPoleEnv().reset(seed=seed))
    assert expected[0] is gym.error.Error
    assert _error(lambda: _frontend.check_seed(seed)) == expected
    vector = ccgym.make_vec("CartPole-v1", N)
    assert _error(lambda: vector.reset(seed=[0, 1, seed, 3])) == expected
    venv = sb3.VecEnv("CartPole-v1", N)
    venv.reset()
    assert _error(lambda: venv.env_method("reset", seed=seed, indices=[2])) == expected


def test_a_bad_sb3_seed_is_the_single_envs_error():
    venv = sb3.VecEnv("CartPole-v1", N)
    venv.seed(-2)  # instances get -2, -1, 0, 1: SB3 stores them for reset()
    assert _error(venv.reset) == _error(lambda: ccgym.CartPoleEnv().reset(seed=-2))


@pytest.mark.parametrize("seed", [True, np.uint16(9), 2**70])
def test_good_seeds_are_gymnasiums_ints(seed):
    assert _frontend.check_seed(seed) == int(seed)
    assert _frontend.batch_seeds(seed, 3) == int(seed)
    assert _frontend.batch_seeds([seed, None, 0], 3) == [int(seed), None, 0]


def _rng_states(batch):
    return [batch.get_rng(i) for i in range(batch.num_envs)]


@pytest.mark.parametrize("mask", [None, np.array([True, False, True, True])])
@pytest.mark.parametrize("seeds", [5, [5, 6, 7, 8], [5, None, 9, 1], [None] * N, None])
def test_apply_seeds_matches_seeding_one_by_one(seeds, mask):
    batch = ccgym.make_vec("Acrobot-v1", N).batch
    one_by_one = ccgym.make_vec("Acrobot-v1", N).batch
    for i in range(N):
        one_by_one.set_rng(i, *batch.get_rng(i))
    per_instance = ([None] * N if seeds is None else
                    [seeds + i for i in range(N)] if isinstance(seeds, int) else seeds)
    for i, s in enumerate(per_instance):
        if s is not None and (mask is None or mask[i]):
            one_by_one.seed_one(i, s)
    _frontend.apply_seeds(batch, _frontend.batch_seeds(seeds, N), mask)
    assert _rng_states(batch) == _rng_states(one_by_one)


@pytest.mark.parametrize(("seed", "exc"), [(1.5, TypeError), ({0: 1}, TypeError),
                                           ([0, 1], ValueError), ([0, 1, 2, 3, 4], ValueError)])
def test_batch_seed_shape_errors(seed, exc):
    expected = _error(lambda: _frontend.batch_seeds(seed, N))
    assert expected[0] is exc
    assert _error(lambda: ccgym.make_vec("CartPole-v1", N).reset(seed=seed)) == expected


# ------------------------------------------------------ reset options, masks

BAD_OPTIONS = [
    ("CartPole-v1", {"low": 0.3, "high": 0.2}),
    ("CartPole-v1", {"high": -0.1}),  # against the default low
    ("MountainCar-v0", {"low": "x"}),
    ("Acrobot-v1", {"low": -np.inf}),
    ("Pendulum-v1", {"x_init": None}),
    ("Pendulum-v1", {"y_init": np.nan}),
    ("Pendulum-v1", {"x_init": -0.0}),
]


@pytest.mark.parametrize(("env_id", "options"), BAD_OPTIONS, ids=[f"{e}-{o}" for e, o in BAD_OPTIONS])
def test_bad_reset_options_are_the_same_error_everywhere(env_id, options):
    cls = _kinds.env_class(env_id)
    expected = _error(lambda: cls().reset(seed=0, options=options))
    assert _error(lambda: _frontend.parse_reset_bounds(cls.kind, options)) == expected
    assert _error(lambda: ccgym.make_vec(env_id, N).reset(options=options)) == expected
    mask = {"reset_mask": np.array([True, False, True, False]), **options}
    assert _error(lambda: ccgym.make_vec(env_id, N).reset(options=mask)) == expected
    venv = sb3.VecEnv(env_id, N)
    venv.set_options(options)
    assert _error(venv.reset) == expected
    venv = sb3.VecEnv(env_id, N)
    venv.reset()
    assert _error(lambda: venv.env_method("reset", options=options, indices=[1])) == expected


@pytest.mark.parametrize("options", ["low", [("low", 0.1)], 3])
def test_options_that_are_not_a_dict(options):
    expected = (TypeError, f"options must be a dict or None, got {type(options).__name__}")
    assert _error(lambda: ccgym.CartPoleEnv().reset(options=options)) == expected
    assert _error(lambda: ccgym.make_vec("CartPole-v1", N).reset(options=options)) == expected
    assert _error(lambda: _frontend.parse_reset_options("CartPole", options, N)) == expected


def test_good_reset_options_parse_to_the_c_bounds():
    assert _frontend.parse_reset_options("CartPole", None, N) == (None, None, None)
    mask, a, b = _frontend.parse_reset_options(
        "Pendulum", {"reset_mask": np.array([1, 0, 0, 1], bool)[::1], "y_init": 2}, N)
    assert mask.tolist() == [True, False, False, True] and (a, b) == (np.pi, 2.0)
    # A single env (no num_envs) leaves a reset_mask key alone, as Gymnasium's envs do.
    assert _frontend.parse_reset_options("Acrobot", {"reset_mask": "x"}) == (None, -0.1, 0.1)
    assert _frontend.index_mask([0, 2], N).tolist() == [True, False, True, False]


def test_reset_mask_is_made_contiguous():
    wide = np.zeros(2 * N, bool)
    wide[::2] = [True, False, False, True]
    mask = _frontend.parse_reset_mask(wide[::2], N)
    assert mask.flags.c_contiguous and mask.tolist() == [True, False, False, True]


# ------------------------------------------------------------------- errors

@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_close_leaves_every_front_end_usable(env_id):
    """As Gymnasium's envs, vector envs and SB3's DummyVecEnv (issue 16),
    close() releases rendering resources only: each front end resets, steps
    and snapshots afterwards as a fresh one does. The error for a closed
    batch (Batch.closed, which no front end sets) is still the one message."""
    single = _kinds.env_class(env_id)()
    vector = ccgym.make_vec(env_id, N)
    venv = sb3.VecEnv(env_id, N)
    for env in (single, vector, venv):
        env.close()
    assert vector.closed and venv.closed
    fresh_single = _kinds.env_class(env_id)()
    fresh_vector = ccgym.make_vec(env_id, N)
    fresh_venv = sb3.VecEnv(env_id, N)
    assert np.array_equal(single.reset(seed=0)[0], fresh_single.reset(seed=0)[0])
    assert np.array_equal(vector.reset(seed=0)[0], fresh_vector.reset(seed=0)[0])
    venv.seed(0), fresh_venv.seed(0)
    assert np.array_equal(venv.reset(), fresh_venv.reset())
    assert np.array_equal(venv.env_method("reset", seed=2, indices=[0])[0][0],
                          fresh_venv.env_method("reset", seed=2, indices=[0])[0][0])
    actions = np.zeros((N, 1), np.float32) if "Pendulum" in env_id else np.zeros(N, np.int64)
    for a, b in ((vector, fresh_vector), (venv, fresh_venv)):
        assert all(np.array_equal(x, y) for x, y in zip(a.step(actions)[:3], b.step(actions)[:3]))
    snap = vector.get_state()
    assert all(np.array_equal(snap[k], v) for k, v in fresh_vector.get_state().items()
               if isinstance(v, np.ndarray))
    batch = _core.Batch(vector.batch.kind, N, _params_of(env_id))
    batch.closed = True
    assert _error(lambda: batch.reset()) == (RuntimeError, _frontend.CLOSED)


def _params_of(env_id):
    from ccgym._params import PARAMS

    return PARAMS[_kinds.env_class(env_id).kind]()


def test_not_reset_yet_is_gymnasiums_error():
    vector = ccgym.make_vec("CartPole-v1", N, render_mode="rgb_array")
    venv = sb3.VecEnv("CartPole-v1", N, render_mode="rgb_array")
    single = ccgym.PendulumEnv(render_mode="rgb_array")
    assert _error(lambda: vector.step(np.zeros(N, np.int64))) == (
        gym.error.ResetNeeded, "Cannot call step() before calling reset()")
    assert _error(lambda: venv.step(np.zeros(N, np.int64))) == (
        gym.error.ResetNeeded, "Cannot call step() before calling reset()")
    assert _error(vector.render) == (
        gym.error.ResetNeeded, "Cannot call render() before calling reset()")
    assert _error(venv.get_images) == (
        gym.error.ResetNeeded, "Cannot call render() before calling reset()")
    assert _error(single.render) == (
        gym.error.ResetNeeded, "Cannot call env.render() before calling env.reset()")
    assert str(_frontend.reset_needed("step()", "env.")) == (
        "Cannot call env.step() before calling env.reset()")


# --------------------------------------------------------- public surface

def test_batch_is_the_front_ends_c_batch():
    single = gym.make("ccgym/Acrobot-v1")
    vector = ccgym.make_vec("Acrobot-v1", N)
    venv = sb3.VecEnv("Acrobot-v1", N)
    for env, n in ((single.unwrapped, 1), (vector, N), (venv, N)):
        assert isinstance(env.batch, _core.Batch)
        assert env.batch is env.batch and (env.batch.kind, env.batch.num_envs) == ("Acrobot", n)
        with pytest.raises(AttributeError):
            env.batch = None
    obs, _ = single.reset(seed=3)
    assert single.unwrapped.batch.obs[0].tobytes() == obs.tobytes()
    assert ccgym.AcrobotEnv.kind == single.unwrapped.kind == "Acrobot"


def test_episode_start_times_are_a_copy_of_the_clock():
    env = ccgym.make_vec("CartPole-v1", N, episode_statistics=True)
    assert env.episode_start_times.tolist() == [0.0] * N
    env.reset(seed=0)
    times = env.episode_start_times
    assert times.shape == (N,) and (times > 0).all()
    times[:] = 0
    assert (env.episode_start_times > 0).all()


def _instance_private_names() -> set[str]:
    """The private instance attributes (``self._x = ...``) the front ends set."""
    names = set()
    for module in ("envs", "vector", "sb3"):
        tree = ast.parse(pathlib.Path(getattr(ccgym, module).__file__).read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name) and node.value.id == "self"
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                names.add(node.attr)
    return names


def test_no_module_reads_another_objects_private_state():
    """Front ends, renderer, recorder and tools go through the public surface
    (``batch``, ``kind``, ``episode_start_times``), not ``x._core``."""
    private = _instance_private_names()
    assert {"_core", "_episode_start_times", "_viewer"} <= private
    package = pathlib.Path(ccgym.__file__).parent
    reaches = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in private:
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "ccgym"):
                    continue  # its own state, or the package's module ccgym._core
                reaches.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr", "setattr")
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in private):
                reaches.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not reaches, reaches
