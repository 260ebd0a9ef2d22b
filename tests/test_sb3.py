"""ccgym's Stable-Baselines3 front end (ccgym.sb3, ccgym.train).

The reference is SB3's own DummyVecEnv over Gymnasium's envs, run side by
side with the same seeds and actions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("stable_baselines3")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from stable_baselines3 import A2C, DQN, PPO, SAC, TD3  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402, F401
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    DummyVecEnv,
    VecCheckNan,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
    is_vecenv_wrapped,
)

import ccgym  # noqa: E402
import ccgym.sb3  # noqa: E402
from ccgym.sb3 import VecEnv, make_vec_env  # noqa: E402
from reference import reference_id, CONTINUOUS_IDS, DISCRETE_IDS

ENV_IDS = list(ccgym.ENV_IDS)
DISCRETE = list(DISCRETE_IDS)
CONTINUOUS = list(CONTINUOUS_IDS)

torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _sb3_logs_in_tmp_path(tmp_path, monkeypatch):
    """model.learn() configures SB3's default logger, which makes an
    SB3-<date> directory in the system temp dir per call: keep those in the
    test's own directory."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3-logs"))


def gym_make(env_id: str, **kwargs) -> gym.Env:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # CartPole-v0 is "out of date"
        return gym.make(reference_id(env_id), **kwargs)


def reference(env_id: str, n: int, **kwargs) -> DummyVecEnv:
    return DummyVecEnv([lambda: gym_make(env_id, **kwargs) for _ in range(n)])


def action_batches(venv, count: int, seed: int, sticky: bool = False) -> list[np.ndarray]:
    """Actions as SB3's policies hand them over: int64 (N,) or float32 (N, 1).

    With ``sticky`` the action is held for long stretches, which drives
    MountainCar to its goal and CartPole to its time limit sometimes."""
    rng = np.random.default_rng(seed)
    space = venv.action_space
    n = venv.num_envs
    out = []
    if isinstance(space, gym.spaces.Discrete):
        a = rng.integers(0, space.n, n)
        for k in range(count):
            if not sticky or k % 40 == 0:
                a = rng.integers(0, space.n, n)
            out.append(a.astype(np.int64))
    else:
        low, high = space.low, space.high
        for _ in range(count):
            a = rng.uniform(low * 1.2, high * 1.2, (n, *space.shape)).astype(np.float32)
            out.append(np.clip(a, low, high))  # SB3 clips to the space
    return out


def assert_same_step(ref_out, our_out, where: str) -> None:
    (o1, r1, d1, i1), (o2, r2, d2, i2) = ref_out, our_out
    assert o1.dtype == o2.dtype and o1.shape == o2.shape, where
    assert o1.tobytes() == o2.tobytes(), f"observations differ {where}"
    assert r1.dtype == r2.dtype == np.float32, where
    assert r1.tobytes() == r2.tobytes(), f"rewards differ {where}"
    assert d1.dtype == d2.dtype and np.array_equal(d1, d2), f"dones differ {where}"
    assert len(i1) == len(i2)
    for k, (a, b) in enumerate(zip(i1, i2)):
        assert list(a) == list(b), f"info keys differ {where}, env {k}: {a} vs {b}"
        assert type(a["TimeLimit.truncated"]) is type(b["TimeLimit.truncated"]) is bool
        assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"], where
        if "terminal_observation" in a:
            t1, t2 = a["terminal_observation"], b["terminal_observation"]
            assert t1.dtype == t2.dtype and t1.shape == t2.shape
            assert t1.tobytes() == t2.tobytes(), f"terminal_observation differs {where}"


# ------------------------------------------------------------- equivalence
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bit_exact_with_dummy_vec_env(env_id):
    n, steps = 4, 2500
    ref, ours = reference(env_id, n), VecEnv(env_id, n)
    assert ref.seed(123) == ours.seed(123) == [123, 124, 125, 126]
    o1, o2 = ref.reset(), ours.reset()
    assert o1.tobytes() == o2.tobytes() and o1.dtype == o2.dtype
    assert ours.reset_infos == ref.reset_infos
    counts = {"done": 0, "truncated": 0}
    for t, actions in enumerate(action_batches(ours, steps, seed=7,
                                               sticky=env_id.startswith(("Mountain", "Cart")))):
        r, o = ref.step(actions), ours.step(actions)
        assert_same_step(r, o, f"at step {t}")
        counts["done"] += int(r[2].sum())
        counts["truncated"] += sum(i["TimeLimit.truncated"] for i in r[3])
    assert counts["done"] > 0, counts
    # A second seed mid-run takes effect only at the next reset (SB3 2.x).
    ref.seed(5), ours.seed(5)
    a = action_batches(ours, 1, seed=8)[0]
    assert_same_step(ref.step(a), ours.step(a), "after seed() without reset")
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t, actions in enumerate(action_batches(ours, 300, seed=9)):
        assert_same_step(ref.step(actions), ours.step(actions), f"after reseed, step {t}")
    ref.close()
    ours.close()


def test_truncation_on_the_time_limit_matches():
    """MountainCar under random actions only ever stops on the time limit."""
    ref, ours = reference("MountainCar-v0", 3), VecEnv("MountainCar-v0", 3)
    ref.seed(0), ours.seed(0)
    ref.reset(), ours.reset()
    truncated = 0
    for t, a in enumerate(action_batches(ours, 450, seed=1)):
        r, o = ref.step(a), ours.step(a)
        assert_same_step(r, o, f"step {t}")
        truncated += sum(i["TimeLimit.truncated"] for i in o[3])
    assert truncated == 6


def test_terminated_on_the_last_step_is_not_time_limit_truncated():
    """Terminated and truncated on one step: done, TimeLimit.truncated False (as SB3)."""
    probe = gym_make("CartPole-v1")
    probe.reset(seed=0)
    fall = 1
    while not probe.step(1)[2]:  # always push right: the pole falls after ~10 steps
        fall += 1
    n = 2
    ref = reference("CartPole-v1", n, max_episode_steps=fall)
    ours = VecEnv("CartPole-v1", n, max_episode_steps=fall)
    ref.seed(0), ours.seed(0)
    ref.reset(), ours.reset()
    push = np.ones(n, dtype=np.int64)
    for t in range(fall):
        r, o = ref.step(push), ours.step(push)
        assert_same_step(r, o, f"step {t}")
    assert o[2][0] and o[3][0]["TimeLimit.truncated"] is False
    assert ours._core.terminated[0] and ours._core.truncated[0]
    ours.close()


def test_seed_none_and_unseeded_reset():
    ours = VecEnv("CartPole-v1", 3)
    seeds = ours.seed()
    assert len(seeds) == 3 and seeds[1] == seeds[0] + 1
    first = ours.reset()
    ref = reference("CartPole-v1", 3)
    ref.seed(seeds[0])
    assert ref.reset().tobytes() == first.tobytes()
    # seeds are used once: the next reset continues each stream, as Gymnasium's
    assert ref.reset().tobytes() == ours.reset().tobytes()


def test_set_options_like_dummy_vec_env():
    ref, ours = reference("Pendulum-v1", 3), VecEnv("Pendulum-v1", 3)
    for venv in (ref, ours):
        venv.seed(1)
        venv.set_options({"x_init": 0.5, "y_init": 0.25})
    assert ref.reset().tobytes() == ours.reset().tobytes()
    assert ref.reset().tobytes() == ours.reset().tobytes()  # options used once
    opts = [{"x_init": 0.1}, {}, {"y_init": 0.2}]
    for venv in (ref, ours):
        venv.seed(2)
        venv.set_options(opts)
    assert ref.reset().tobytes() == ours.reset().tobytes()
    ours.set_options({"x_init": "not a number"})
    with pytest.raises(ValueError):
        ours.reset()


def test_returned_arrays_are_the_callers():
    ours = VecEnv("CartPole-v1", 4)
    ours.seed(0)
    obs = ours.reset()
    keep = obs.copy()
    a = np.zeros(4, dtype=np.int64)
    o2, r2, d2, _ = ours.step(a)
    assert np.array_equal(obs, keep)
    o2_keep, r2_keep = o2.copy(), r2.copy()
    ours.step(a)
    assert np.array_equal(o2, o2_keep) and np.array_equal(r2, r2_keep)


def test_step_before_reset_and_after_close():
    ours = VecEnv("Acrobot-v1", 2)
    with pytest.raises(gym.error.ResetNeeded):
        ours.step(np.zeros(2, dtype=np.int64))
    ours.reset()
    with pytest.raises(ValueError, match="outside the action space"):
        ours.step(np.array([0, 3]))
    with pytest.raises(ValueError, match="shape"):
        ours.step(np.zeros(3, dtype=np.int64))
    ours.close()
    # As DummyVecEnv (whose close() closes each Gymnasium env, which stays
    # usable), the VecEnv keeps working after close().
    ref = reference("Acrobot-v1", 2)
    ref.seed(3), ours.seed(3)
    ref.reset(), ours.reset()
    ref.close()
    ours.close()
    for t, a in enumerate(action_batches(ours, 20, seed=4)):
        assert_same_step(ref.step(a), ours.step(a), f"step {t} after close")


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_usable_after_close_as_dummy_vec_env(env_id):
    """close() releases rendering resources only, as DummyVecEnv's: reset,
    step, env_method reset and rendering keep working with DummyVecEnv's
    results; close twice is fine; ``closed`` is True (as SubprocVecEnv's)."""
    pytest.importorskip("pygame", reason="the Gymnasium reference renders its frames with "
                        'pygame (pip install "ccgym[render]")')
    ref = reference(env_id, 3, render_mode="rgb_array")
    ours = VecEnv(env_id, 3, render_mode="rgb_array")
    for venv in (ref, ours):
        venv.seed(1)
        venv.reset()
        venv.close()
        venv.close()
    assert ours.closed
    assert not hasattr(ref, "closed")  # DummyVecEnv has no such attribute
    ref.seed(8), ours.seed(8)
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t, a in enumerate(action_batches(ours, 250, seed=2)):
        assert_same_step(ref.step(a), ours.step(a), f"step {t} after close")
    r_obs = [o for o, _ in ref.env_method("reset", seed=4, indices=[1])]
    o_obs = [o for o, _ in ours.env_method("reset", seed=4, indices=[1])]
    assert r_obs[0].tobytes() == o_obs[0].tobytes()
    assert ours.render().shape == ref.render().shape
    ours.close()
    ref.close()


def test_close_releases_and_reopens_the_window(monkeypatch):
    """render_mode="human": close() closes the window; a later render opens
    a new one (the VecEnv still steps in between)."""
    import ccgym.rendering

    opened, closed = [], []

    class FakeViewer:
        def __init__(self, *args):
            opened.append(self)

        def show(self, frame):
            assert frame.ndim == 3

        def close(self):
            closed.append(self)

    monkeypatch.setattr(ccgym.rendering, "Viewer", FakeViewer)
    ours = VecEnv("CartPole-v1", 2, render_mode="human")
    ours.reset()
    ours.render()
    ours.close()
    assert closed == opened and len(opened) == 1
    ours.close()  # nothing left to close
    assert len(closed) == 1
    ours.step(np.zeros(2, dtype=np.int64))
    ours.render()
    assert len(opened) == 2 and opened[1] is not opened[0]
    ours.close()
    assert closed == opened


def test_attrs_methods_wrappers_and_render():
    ours = VecEnv("Pendulum-v1", 3, g=9.81)
    assert ours.get_attr("render_mode") == [None] * 3
    assert ours.get_attr("g") == [9.81] * 3
    assert ours.get_attr("spec")[0].id == "ccgym/Pendulum-v1"
    assert ours.get_attr("_max_episode_steps", indices=[0, 2]) == [200, 200]
    assert ours.has_attr("metadata") and not ours.has_attr("no_such_attribute")
    ours.reset()
    for _ in range(5):
        ours.step(np.zeros((3, 1), dtype=np.float32))
    assert ours.get_attr("_elapsed_steps") == [5, 5, 5]
    ours.set_attr("tag", "x", indices=1)
    assert ours.get_attr("tag", indices=[1]) == ["x"]
    # As DummyVecEnv's: set_wrapper_attr reaches each env and changes its
    # physics; set_attr sets the outermost wrapper's attribute, read back
    # per index, the physics unchanged (issue 45).
    ref = reference("Pendulum-v1", 3, g=2.0)
    same_ops = reference("Pendulum-v1", 3, g=9.81)
    for venv in (same_ops, ours):
        venv.env_method("set_wrapper_attr", "g", 2.0)
        venv.set_attr("g", 5.0, indices=[0])
    assert ours.get_attr("g") == same_ops.get_attr("g") == [5.0, 2.0, 2.0]
    ref.seed(4), ours.seed(4), same_ops.seed(4)
    ref.reset(), ours.reset(), same_ops.reset()
    for t, a in enumerate(action_batches(ours, 50, seed=0)):
        out = ours.step(a)
        assert_same_step(same_ops.step(a), out, f"step {t}")
        assert_same_step(ref.step(a), out, f"step {t}")

    obs_info = ours.env_method("reset", seed=11, indices=[2])
    single = gym_make("Pendulum-v1", g=2.0)
    assert obs_info[0][0].tobytes() == single.reset(seed=11)[0].tobytes()
    assert ours.env_method("get_wrapper_attr", "render_mode") == [None] * 3
    with pytest.raises(AttributeError):
        ours.env_method("no_such_method")

    assert ours.env_is_wrapped(gym.wrappers.TimeLimit) == [True] * 3
    assert ours.env_is_wrapped(Monitor) == [False] * 3
    assert reference("Pendulum-v1", 1).env_is_wrapped(gym.wrappers.TimeLimit) == [True]

    with pytest.warns(UserWarning, match="rgb_array"):
        assert ours.get_images() == [None] * 3
    drawn = VecEnv("CartPole-v1", 3, render_mode="rgb_array")
    drawn.seed(7)
    drawn.reset()
    images = drawn.get_images()
    assert len(images) == 3 and all(im.shape == (400, 600, 3) for im in images)
    # The frames are the single env's frames for the same state.
    for i in range(3):
        single = gym.make("ccgym/CartPole-v1", render_mode="rgb_array")
        single.reset(seed=7 + i)
        assert np.array_equal(single.render(), images[i])
    tiled = drawn.render()
    assert tiled.ndim == 3 and tiled.shape[2] == 3 and tiled.shape[0] >= 400
    with pytest.raises(ValueError):
        VecEnv("Pendulum-v1", 2, render_mode="bogus")
    with pytest.raises(gym.error.Error):
        VecEnv("LunarLander-v3", 2)
    with pytest.raises(TypeError):
        VecEnv("CartPole-v1", 2, gravity=1.0)


# ------------------------------------------------------------ VecMonitor
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_native_vec_monitor_matches_sb3_vec_monitor(env_id):
    n = 3
    ref = VecMonitor(reference(env_id, n))
    sb3_over_ours = VecMonitor(VecEnv(env_id, n))
    native = ccgym.sb3.VecMonitor(VecEnv(env_id, n))
    assert is_vecenv_wrapped(native, VecMonitor)
    venvs = (ref, sb3_over_ours, native)
    for v in venvs:
        v.seed(42)
        v.reset()
    episodes = 0
    steps = 1200 if env_id != "MountainCarContinuous-v0" else 2200
    for t, a in enumerate(action_batches(native, steps, seed=3)):
        outs = [v.step(a) for v in venvs]
        for k in range(n):
            eps = [o[3][k].get("episode") for o in outs]
            if eps[0] is None:
                assert eps[1] is None and eps[2] is None
                continue
            episodes += 1
            for ep in eps:
                assert set(ep) == {"r", "l", "t"}
                assert type(ep["r"]) is np.float32 and type(ep["l"]) is np.int32
                assert isinstance(ep["t"], float)
            assert eps[0]["r"] == eps[1]["r"] and eps[0]["l"] == eps[1]["l"] == eps[2]["l"]
            if env_id in CONTINUOUS:
                # C sums in float64, SB3 in float32: a few float32 ulps apart.
                assert eps[2]["r"] == pytest.approx(eps[0]["r"], rel=1e-5, abs=1e-3)
            else:
                assert eps[2]["r"] == eps[0]["r"]
        running = [v.episode_returns for v in venvs]
        np.testing.assert_allclose(running[2], running[0], rtol=1e-5, atol=1e-3)
        assert np.array_equal(venvs[2].episode_lengths, venvs[0].episode_lengths)
    assert episodes > 0
    assert native.episode_count == ref.episode_count == episodes


def test_native_vec_monitor_writes_monitor_files(tmp_path):
    import csv
    import json

    venv = make_vec_env("CartPole-v1", n_envs=4, seed=0, monitor_dir=str(tmp_path))
    assert isinstance(venv, ccgym.sb3.VecMonitor)
    venv.reset()
    for a in action_batches(venv, 300, seed=0):
        venv.step(a)
    venv.close()
    # The file SB3's load_results reads (it needs pandas; parsed by hand here).
    with open(tmp_path / "0.monitor.csv") as f:
        header = json.loads(f.readline().lstrip("#"))
        rows = list(csv.DictReader(f))
    assert header["env_id"] == "None" and "t_start" in header
    assert len(rows) == venv.episode_count > 0
    assert all(float(r["r"]) == int(r["l"]) for r in rows)  # CartPole: +1 per step


def test_make_vec_env_matches_sb3_make_vec_env():
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

    ref = sb3_make_vec_env("Acrobot-v1", n_envs=3, seed=9, start_index=2)
    ours = make_vec_env("Acrobot-v1", n_envs=3, seed=9, start_index=2)
    assert ref.action_space.sample() == ours.action_space.sample()
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t, a in enumerate(action_batches(ours, 600, seed=2)):
        r, o = ref.step(a), ours.step(a)
        assert r[0].tobytes() == o[0].tobytes() and r[1].tobytes() == o[1].tobytes()
        for i1, i2 in zip(r[3], o[3]):
            assert ("episode" in i1) == ("episode" in i2)
            if "episode" in i1:
                assert i1["episode"]["r"] == i2["episode"]["r"]
                assert i1["episode"]["l"] == i2["episode"]["l"]
    raw = make_vec_env("Pendulum-v1", n_envs=2, monitor=False, env_kwargs={"g": 3.0},
                       vec_env_kwargs={"num_threads": 2})
    assert isinstance(raw, VecEnv) and raw.get_attr("g") == [3.0, 3.0]
    # wrapper_class and callables (refused before issue 24, item 6) build
    # SB3's DummyVecEnv, with a warning: test_sb3_compat.py compares them.
    with pytest.warns(ccgym.sb3.NativeBatchOffWarning, match="wrapper_class"):
        assert isinstance(make_vec_env("CartPole-v1", wrapper_class=gym.wrappers.TimeLimit,
                                       wrapper_kwargs={"max_episode_steps": 5}), DummyVecEnv)
    with pytest.warns(ccgym.sb3.NativeBatchOffWarning, match="callable"):
        assert isinstance(make_vec_env(lambda: gym_make("CartPole-v1")), DummyVecEnv)
    with pytest.raises(TypeError):  # neither an id nor a callable
        make_vec_env(3)


# -------------------------------------------------------- SB3 wrappers
def test_vec_normalize_statistics_save_and_load(tmp_path):
    n = 4
    ref = VecNormalize(reference("Pendulum-v1", n))
    ours = VecNormalize(VecEnv("Pendulum-v1", n))
    for v in (ref, ours):
        v.seed(0)
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t, a in enumerate(action_batches(ours, 500, seed=1)):
        r, o = ref.step(a), ours.step(a)
        assert r[0].tobytes() == o[0].tobytes() and r[1].tobytes() == o[1].tobytes(), t
    assert np.array_equal(ref.obs_rms.mean, ours.obs_rms.mean)
    path = tmp_path / "vecnormalize.pkl"
    ours.save(str(path))
    fresh = VecNormalize.load(str(path), VecEnv("Pendulum-v1", 2))
    assert fresh.venv.num_envs == 2
    assert np.array_equal(fresh.obs_rms.mean, ours.obs_rms.mean)
    assert np.array_equal(fresh.obs_rms.var, ours.obs_rms.var)
    assert fresh.ret_rms.count == ours.ret_rms.count
    fresh.training = False
    fresh.seed(3)
    obs = fresh.reset()
    assert np.array_equal(obs, fresh.normalize_obs(fresh.get_original_obs()))


def test_vec_frame_stack_and_check_nan():
    ref = VecCheckNan(VecFrameStack(reference("Acrobot-v1", 2), n_stack=3), raise_exception=True)
    ours = VecCheckNan(VecFrameStack(VecEnv("Acrobot-v1", 2), n_stack=3), raise_exception=True)
    assert ours.observation_space.shape == (18,)
    ref.seed(0), ours.seed(0)
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t, a in enumerate(action_batches(ours, 800, seed=5)):
        assert_same_step(ref.step(a), ours.step(a), f"step {t}")

    checked = VecCheckNan(VecEnv("Pendulum-v1", 2), raise_exception=True)
    checked.reset()
    with pytest.raises(ValueError, match="nan"):
        checked.step(np.full((2, 1), np.nan, dtype=np.float32))


def test_evaluate_policy_native_and_reference_agree():
    class Constant:
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.ones(len(obs), dtype=np.int64), None

    ours = make_vec_env("CartPole-v1", n_envs=4, seed=3)
    ref = VecMonitor(reference("CartPole-v1", 4))
    ref.seed(3)
    r1 = evaluate_policy(Constant(), ref, n_eval_episodes=12, return_episode_rewards=True)
    r2 = evaluate_policy(Constant(), ours, n_eval_episodes=12, return_episode_rewards=True)
    assert r1 == r2
    # without a monitor, SB3 warns (and filterwarnings=error turns that into a failure)
    with pytest.warns(UserWarning, match="Monitor"):
        evaluate_policy(Constant(), VecEnv("CartPole-v1", 2), n_eval_episodes=2)


# ---------------------------------------------------------- algorithms
def small() -> dict:
    """Fresh each time: SB3 adds keys to the policy_kwargs dict it is given."""
    return dict(policy_kwargs=dict(net_arch=[32, 32]), device="cpu", seed=0)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_on_policy_algorithms_run(env_id, algo):
    venv = make_vec_env(env_id, n_envs=4, seed=0)
    if algo == "ppo":
        model = PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, **small())
    else:
        model = A2C("MlpPolicy", venv, n_steps=8, **small())
    model.learn(256)
    assert model.num_timesteps >= 256
    obs = venv.reset()
    actions, _ = model.predict(obs, deterministic=True)
    assert venv.action_space.contains(actions[0])


@pytest.mark.parametrize("env_id", DISCRETE)
def test_dqn_runs(env_id):
    venv = make_vec_env(env_id, n_envs=2, seed=0)
    model = DQN("MlpPolicy", venv, learning_starts=64, buffer_size=1000, train_freq=4,
                target_update_interval=50, **small())
    model.learn(300)
    assert model.num_timesteps >= 300


@pytest.mark.parametrize("env_id", CONTINUOUS)
@pytest.mark.parametrize("algo", [SAC, TD3])
def test_off_policy_continuous_algorithms_run(env_id, algo):
    venv = VecNormalize(make_vec_env(env_id, n_envs=2, seed=0))
    model = algo("MlpPolicy", venv, learning_starts=50, buffer_size=1000, batch_size=32,
                 **small())
    model.learn(200)
    assert model.num_timesteps >= 200
    assert model.replay_buffer.size() > 0


def test_model_save_load_predict_round_trip(tmp_path):
    venv = make_vec_env("CartPole-v1", n_envs=2, seed=0)
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, **small())
    model.learn(128)
    obs = venv.reset()
    before, _ = model.predict(obs, deterministic=True)
    model.save(tmp_path / "ppo")
    fresh = make_vec_env("CartPole-v1", n_envs=2, seed=0)
    loaded = PPO.load(tmp_path / "ppo", env=fresh, device="cpu")
    after, _ = loaded.predict(obs, deterministic=True)
    assert np.array_equal(before, after)
    for p1, p2 in zip(model.policy.parameters(), loaded.policy.parameters()):
        assert torch.equal(p1, p2)
    loaded.learn(64, reset_num_timesteps=False)  # training resumes on the new env
    assert loaded.num_timesteps >= 192


# ------------------------------------------------------------- command line
def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)


def test_import_ccgym_and_help_do_not_import_torch():
    code = (
        "import sys, contextlib, io\n"
        "import ccgym, ccgym.cli\n"
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules\n"
        "for argv in (['--help'], ['train', '--help']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n"
        "            ccgym.cli.main(argv)\n"
        "        except SystemExit:\n"
        "            pass\n"
        "    assert 'train' in out.getvalue()\n"
        "bad = [m for m in ('torch', 'stable_baselines3') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    proc = _python(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_train_command_smoke(tmp_path, monkeypatch):
    import tempfile

    from ccgym import cli

    # Without SB3_LOGDIR, SB3's default logger would make its directory here.
    monkeypatch.delenv("SB3_LOGDIR")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "run"
    rc = cli.main(["train", "Pendulum-v1", "--algo", "a2c", "--timesteps", "256",
                   "--n-envs", "2", "--eval-freq", "128", "--eval-episodes", "2",
                   "--final-eval-episodes", "2", "--out", str(out), "--no-progress-bar"])
    assert rc == 0
    assert (out / "model.zip").exists() and (out / "vecnormalize.pkl").exists()
    log = (out / "progress.csv").read_text().splitlines()
    assert "time/total_timesteps" in log[0].split(",") and len(log) >= 2, log[:2]
    # The training log went to --out, not to an SB3-<date> dir in the temp dir.
    assert [p.name for p in scratch.iterdir() if p.name.startswith("SB3-")] == []
    model = A2C.load(out / "model.zip", device="cpu")
    venv = VecNormalize.load(str(out / "vecnormalize.pkl"), VecEnv("Pendulum-v1", 1))
    venv.training = False
    model.predict(venv.reset(), deterministic=True)


def test_train_rejects_wrong_action_space():
    from ccgym import cli

    with pytest.raises(SystemExit, match="discrete"):
        cli.main(["train", "Pendulum-v1", "--algo", "dqn"])
    with pytest.raises(SystemExit, match="continuous"):
        cli.main(["train", "CartPole-v1", "--algo", "sac"])


def test_zoo_hyperparameters_cover_every_env():
    import importlib.util

    from ccgym.train import CONTINUOUS_ENVS

    assert os.path.basename(ccgym.train.__file__) == "train.py"
    if importlib.util.find_spec("rl_zoo3") is None or importlib.util.find_spec("yaml") is None:
        # Without the Zoo (a build with only the test and sb3 extras, such as
        # tools/scaffold_check.sh's) there is nothing to cover: reading the
        # hyperparameters says which extra to install, for every id alike.
        with pytest.raises(ModuleNotFoundError, match=r"pip install 'ccgym\[zoo\]'"):
            ccgym.train.HYPERPARAMS
        pytest.skip("the RL Zoo (rl_zoo3, pyyaml) is not installed: checked that reading "
                    "ccgym.train.HYPERPARAMS names the zoo extra")
    from ccgym.train import HYPERPARAMS

    for env_id in ENV_IDS:
        # An id the Zoo does not tune takes the entry of the Gymnasium id its
        # def mirrors (a scaffolded PendulumCopy-v1: Pendulum-v1's), then the
        # Zoo's default (CartPole-v0).
        ref = reference_id(env_id)
        assert ccgym.train.zoo_id(env_id) == ref
        for algo in ("ppo", "a2c") + (("sac", "td3") if env_id in CONTINUOUS_ENVS else ("dqn",)):
            table = ccgym.train.zoo_table(algo)
            expected = (table[env_id] if env_id in table else table[ref] if ref in table
                        else table["default"])
            assert HYPERPARAMS[algo][env_id] == expected, (env_id, algo)
    assert os.path.basename(ccgym.train.__file__) == "train.py"


def test_misspelled_keyword_is_the_vec_envs_own_error():
    """issue 46: a typo in vec_env_kwargs or env_kwargs is ccgym.sb3's
    TypeError with a did-you-mean, not CartPoleEnv.__init__'s."""
    with pytest.raises(TypeError, match=r"^VecEnv\(\) got an unexpected keyword argument "
                                        r"'num_thread'; did you mean 'num_threads'\?"):
        ccgym.sb3.make_vec_env("CartPole-v1", 2, vec_env_kwargs={"num_thread": 2})
    with pytest.raises(TypeError, match=r"'sutton_barto_rewrd'; did you mean "
                                        r"'sutton_barto_reward'\?"):
        ccgym.sb3.make_vec_env("CartPole-v1", 2, env_kwargs={"sutton_barto_rewrd": True})
    venv = ccgym.sb3.make_vec_env("CartPole-v1", 2, env_kwargs={"sutton_barto_reward": True},
                                  vec_env_kwargs={"num_threads": 1})
    assert venv.get_attr("_sutton_barto_reward") == [True, True]
