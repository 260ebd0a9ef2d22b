"""custom/PointMass-v0 through every ccgym front end (run after installing
the package: tools/plugin_check.sh in ccgym's repository)."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import ccgym
import ccgym_pointmass

ID = "custom/PointMass-v0"


def test_single_env_physics():
    env = gym.make(ID)
    assert env.spec.max_episode_steps == 200
    assert env.action_space == gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    assert env.observation_space.shape == (6,)
    obs, _ = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    s = env.unwrapped.state.copy()  # (x, y, vx, vy, gx, gy)
    np.testing.assert_array_equal(s[2:4], 0.0)
    obs, reward, terminated, truncated, _ = env.step(np.array([1.0, -0.5], np.float32))
    dt = env.unwrapped.dt
    vx, vy = dt * 1.0, dt * -0.5
    x, y = s[0] + dt * vx, s[1] + dt * vy
    assert obs[0] == np.float32(x) and obs[1] == np.float32(y)
    assert obs[2] == np.float32(vx) and obs[3] == np.float32(vy)
    assert reward == -np.hypot(s[4] - x, s[5] - y)
    assert not terminated and not truncated
    # Forces are clipped to [-1, 1].
    env.reset(seed=4)
    assert env.step(np.array([5.0, -5.0], np.float32))[0][2:4].tolist() == \
        [np.float32(dt), np.float32(-dt)]


def test_goal_terminates_and_limit_truncates():
    env = gym.make(ID)
    env.reset(seed=0)
    u = env.unwrapped
    u.state = [0.0, 0.0, 0.0, 0.0, 0.01, 0.0]  # within goal_radius of the goal
    assert env.step(np.zeros(2, np.float32))[2]
    env.reset(seed=0)
    u.state = [-1.0, -1.0, 0.0, 0.0, 1.0, 1.0]
    for t in range(200):
        _, _, terminated, truncated, _ = env.step(np.zeros(2, np.float32))
        assert not terminated and truncated == (t == 199)


def test_seeded_reset_draws_with_ccgym_rng():
    a, b = gym.make(ID), gym.make(ID)
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert oa.tobytes() == ob.tobytes()
    assert a.reset(seed=12)[0].tobytes() != oa.tobytes()
    # Uniform in [low, high]: the goal too (reset options of the def).
    o, _ = a.reset(seed=1, options={"low": 0.2, "high": 0.3})
    assert np.all((o[[0, 1, 4, 5]] >= 0.2) & (o[[0, 1, 4, 5]] <= 0.3))


def test_live_attributes():
    env = gym.make(ID).unwrapped
    env.reset(seed=0)
    env.dt = 0.1
    env.state = [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]
    assert env.step(np.array([1.0, 0.0], np.float32))[0][2] == np.float32(0.1)
    with pytest.raises(ValueError):
        env.dt = -1.0
    assert env.dt == 0.1
    assert gym.make(ID, dt=0.02).unwrapped.dt == 0.02


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_vector_matches_single(mode):
    n = 6
    venv = gym.make_vec(ID, num_envs=n, num_threads=2, autoreset_mode=mode)
    singles = [gym.make(ID) for _ in range(n)]
    obs, _ = venv.reset(seed=5)
    for i, e in enumerate(singles):
        assert e.reset(seed=5 + i)[0].tobytes() == obs[i].tobytes()
    rng = np.random.default_rng(0)
    pending = np.zeros(n, bool)
    episodes = 0
    for _ in range(450):
        acts = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
        obs, rew, term, trunc, info = venv.step(acts)
        for i, e in enumerate(singles):
            if pending[i]:
                if mode == "NextStep":
                    o, _ = e.reset()
                    assert o.tobytes() == obs[i].tobytes() and rew[i] == 0
                continue
            o, r, te, tr, _ = e.step(acts[i])
            assert r == rew[i] and te == term[i] and tr == trunc[i]
            if mode == "SameStep" and (te or tr):
                assert o.tobytes() == info["final_obs"][i].tobytes()
                assert e.reset()[0].tobytes() == obs[i].tobytes()
            else:
                assert o.tobytes() == obs[i].tobytes()
        done = term | trunc
        episodes += int(done.sum())
        if mode == "NextStep":
            pending = done
        elif mode == "Disabled" and done.any():
            obs, _ = venv.reset(options={"reset_mask": done})
            for i in np.flatnonzero(done):
                assert singles[i].reset()[0].tobytes() == obs[i].tobytes()
    assert episodes >= n  # the 200-step limit at least


def test_episode_statistics():
    venv = ccgym.make_vec(ID, num_envs=4, max_episode_steps=200, episode_statistics=True)
    venv.reset(seed=0)
    seen = False
    for _ in range(201):
        *_, info = venv.step(np.zeros((4, 2), np.float32))
        if "episode" in info:
            seen = True
            assert (info["episode"]["l"][info["_episode"]] == 200).all()
    assert seen


def test_sb3_vec_env():
    pytest.importorskip("stable_baselines3")
    from ccgym.sb3 import make_vec_env

    venv = make_vec_env(ID, n_envs=4, seed=0)
    obs = venv.reset()
    assert obs.shape == (4, 6)
    obs, rew, done, infos = venv.step(np.zeros((4, 2), np.float32))
    assert obs.shape == (4, 6) and rew.shape == (4,)


def test_state_pickle_deepcopy():
    env = gym.make(ID)
    env.reset(seed=2)
    env.step(np.array([0.3, 0.1], np.float32))
    snap = env.unwrapped.get_state()
    a = env.step(np.array([0.5, -0.2], np.float32))
    env.unwrapped.set_state(snap)
    assert env.step(np.array([0.5, -0.2], np.float32))[0].tobytes() == a[0].tobytes()
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        act = np.array([-0.4, 0.9], np.float32)
        assert clone.step(act)[0].tobytes() == copy.deepcopy(env).step(act)[0].tobytes()
        assert type(clone.unwrapped) is ccgym_pointmass.PointMassEnv


def test_pickle_in_fresh_process():
    """Unpickling re-imports the plugin (which registers the kind again)."""
    env = gym.make(ID)
    env.reset(seed=3)
    blob = pickle.dumps(env.unwrapped)
    code = ("import pickle, sys; e = pickle.loads(sys.stdin.buffer.read()); "
            "print(type(e).__module__, e.state.tolist())")
    r = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().split()[0] == "ccgym_pointmass._pointmass"
    assert r.stdout.decode().split(" ", 1)[1].strip() == str(env.unwrapped.state.tolist())


def test_rendering():
    env = gym.make(ID, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (500, 500, 3) and frame.dtype == np.uint8
    u = env.unwrapped
    goal = (int(250 + u.state[4] * 225), int(250 - u.state[5] * 225))  # flipped rows
    assert tuple(frame[goal[1], goal[0]]) == (60, 170, 80)
    venv = gym.make_vec(ID, num_envs=3, render_mode="rgb_array")
    venv.reset(seed=0)
    frames = venv.render()
    assert np.shape(frames) == (3, 500, 500, 3)
    assert (np.asarray(frames[0]) == frame).all()


def test_bench_cli():
    r = subprocess.run([sys.executable, "-m", "ccgym", "bench", "--quick", "--ids", ID,
                        "--num-envs", "64", "--threads", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PointMass" in r.stdout
