"""Rendering: frames drawn by ccgym's C rasteriser against Gymnasium's pygame
frames (the metric is ccgym.rendering.frame_agreement, documented there),
the render() API of single and vector envs, pixel observations and
``ccgym record``."""

from __future__ import annotations

import importlib.util
import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium.envs import classic_control as gcc  # noqa: E402

import ccgym  # noqa: E402
from ccgym import rendering  # noqa: E402
from reference import reference_id

HAVE_PYGAME = importlib.util.find_spec("pygame") is not None
needs_pygame = pytest.mark.skipif(not HAVE_PYGAME, reason="pygame is not installed")

# kind -> (ccgym single-env class, Gymnasium class, canvas (H, W))
KINDS = {
    "CartPole": (ccgym.CartPoleEnv, gcc.CartPoleEnv, (400, 600)),
    "MountainCar": (ccgym.MountainCarEnv, gcc.MountainCarEnv, (400, 600)),
    "MountainCarContinuous": (ccgym.Continuous_MountainCarEnv, gcc.Continuous_MountainCarEnv,
                              (400, 600)),
    "Pendulum": (ccgym.PendulumEnv, gcc.PendulumEnv, (500, 500)),
    "Acrobot": (ccgym.AcrobotEnv, gcc.AcrobotEnv, (500, 500)),
}
N_STATES = 60


def _random_state(kind: str, rng: np.random.Generator):
    """A state, in the ranges the env visits (and somewhat beyond), and for
    Pendulum a last torque (None one time in five)."""
    if kind == "CartPole":
        return np.array([rng.uniform(-2.6, 2.6), rng.normal(), rng.uniform(-np.pi, np.pi),
                         rng.normal()]), None
    if kind in ("MountainCar", "MountainCarContinuous"):
        return np.array([rng.uniform(-1.2, 0.6), rng.uniform(-0.07, 0.07)]), None
    if kind == "Pendulum":
        u = None if rng.random() < 0.2 else np.float32(rng.uniform(-2, 2))
        return np.array([rng.uniform(-2 * np.pi, 2 * np.pi), rng.uniform(-8, 8)]), u
    return np.array([rng.uniform(-np.pi, np.pi), rng.uniform(-np.pi, np.pi),
                     rng.uniform(-12, 12), rng.uniform(-28, 28)]), None


def _set_state(env, kind: str, state: np.ndarray, last_u) -> None:
    """Writes a state into a ccgym env's C struct."""
    view = env._core.state_view(env._state_dtype)
    if kind == "CartPole":
        for i, name in enumerate(("x", "x_dot", "theta", "theta_dot")):
            view[0][name] = state[i]
    elif kind in ("MountainCar", "MountainCarContinuous"):
        view[0]["position"], view[0]["velocity"] = state
    elif kind == "Pendulum":
        view[0]["th"], view[0]["thdot"] = state
        view[0]["last_u"] = np.nan if last_u is None else float(last_u)
    else:
        view[0]["s"] = state


def _pair(kind: str):
    ours_cls, ref_cls, _ = KINDS[kind]
    ours, ref = ours_cls(render_mode="rgb_array"), ref_cls(render_mode="rgb_array")
    ours.reset(seed=0)
    ref.reset(seed=0)
    return ours, ref


@needs_pygame
@pytest.mark.parametrize("kind", list(KINDS))
def test_frames_agree_with_gymnasium(kind):
    ours, ref = _pair(kind)
    rng = np.random.default_rng(1234)
    worst_iou, worst_close = 1.0, 1.0
    for _ in range(N_STATES):
        state, last_u = _random_state(kind, rng)
        _set_state(ours, kind, state, last_u)
        ref.state = state.astype(np.float32) if kind == "MountainCarContinuous" else state.copy()
        if kind == "Pendulum":
            ref.last_u = last_u
        a, b = ours.render(), ref.render()
        assert a.shape == b.shape == (*KINDS[kind][2], 3) and a.dtype == np.uint8
        m = rendering.frame_agreement(a, b)
        worst_iou, worst_close = min(worst_iou, m["iou"]), min(worst_close, m["close"])
    ours.close()
    ref.close()
    assert worst_iou >= 0.95, worst_iou
    assert worst_close >= 0.97, worst_close


@needs_pygame
def test_pendulum_icon_matches_gymnasium_closely():
    """The torque icon is Gymnasium's PNG: its pixels agree, and its mirror
    image follows the torque's sign."""
    ours, ref = _pair("Pendulum")
    for u in (np.float32(-1.7), np.float32(1.7)):
        _set_state(ours, "Pendulum", np.array([0.3, 0.0]), u)
        ref.state, ref.last_u = np.array([0.3, 0.0]), u
        a, b = ours.render().astype(int), ref.render().astype(int)
        box = (slice(150, 350), slice(150, 350))
        assert np.abs(a[box] - b[box]).max(axis=-1).mean() < 2.0
    _set_state(ours, "Pendulum", np.array([0.3, 0.0]), np.float32(1.7))
    right = ours.render()
    _set_state(ours, "Pendulum", np.array([0.3, 0.0]), np.float32(-1.7))
    assert not np.array_equal(right, ours.render())


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_single_env_rgb_array(env_id):
    if env_id == "CartPole-v0":
        pytest.skip("same class as CartPole-v1")
    env = gym.make(f"ccgym/{env_id}", render_mode="rgb_array")
    ref_fps = gym.spec(reference_id(env_id)).entry_point
    env.reset(seed=1)
    frame = env.render()
    h, w = rendering.canvas_size(env_id)
    assert frame.shape == (h, w, 3) and frame.dtype == np.uint8
    assert (frame != 255).any() and (frame == 255).mean() > 0.5
    env.step(env.action_space.sample())
    assert not np.shares_memory(frame, env.render())
    kind_cls = KINDS[rendering.kind_of(reference_id(env_id))][1]  # keyed by the stock kind
    assert env.unwrapped.metadata["render_fps"] == kind_cls.metadata["render_fps"], ref_fps
    env.close()


def test_render_without_mode_warns_and_returns_none():
    env = ccgym.CartPoleEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_render_before_reset():
    assert ccgym.CartPoleEnv(render_mode="rgb_array").render() is None  # as Gymnasium
    with pytest.raises(gym.error.ResetNeeded):
        ccgym.PendulumEnv(render_mode="rgb_array").render()


@needs_pygame
def test_human_mode_opens_a_window_and_closes():
    env = ccgym.CartPoleEnv(render_mode="human")
    env.metadata = {**env.metadata, "render_fps": 1000}
    env.reset(seed=0)  # human mode draws on reset and step, as Gymnasium
    env.step(0)
    assert env.render() is None
    assert env._viewer is not None
    env.close()
    assert "_viewer" not in env.__dict__


def test_human_mode_without_pygame(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    env = ccgym.MountainCarEnv(render_mode="human")
    with pytest.raises(gym.error.DependencyNotInstalled, match=r"ccgym\[render\]"):
        env.reset(seed=0)


@pytest.mark.parametrize("kind", list(KINDS))
def test_vector_render_is_the_single_frames(kind):
    env_id = next(i for i in ccgym.ENV_IDS if rendering.kind_of(i) == kind)
    venv = ccgym.make_vec(env_id, num_envs=5, render_mode="rgb_array")
    venv.reset(seed=7)
    for _ in range(3):
        venv.step(venv.action_space.sample())
    frames = venv.render()
    assert frames.shape == (5, *KINDS[kind][2], 3) and frames.dtype == np.uint8
    single = KINDS[kind][0](render_mode="rgb_array")
    single.reset(seed=0)
    states = venv._core.state_view(single._state_dtype)
    for i in range(5):
        single._core.state_view(single._state_dtype)[0] = states[i]
        np.testing.assert_array_equal(frames[i], single.render())
    np.testing.assert_array_equal(venv.render(indices=[3, 1]), frames[[3, 1]])
    mask = np.array([True, False, False, False, True])
    np.testing.assert_array_equal(venv.render(indices=mask), frames[mask])
    np.testing.assert_array_equal(
        rendering.render_batch(kind, venv._core, num_threads=2), frames)
    np.testing.assert_array_equal(
        rendering.render_batch(kind, venv._core.state_buffer.copy(), [4]), frames[[4]])
    venv.close()


def test_vector_render_modes():
    with pytest.raises(ValueError, match="rgb_array"):
        ccgym.make_vec("CartPole-v1", num_envs=2, render_mode="human")
    venv = gym.make_vec("ccgym/CartPole-v1", num_envs=2, render_mode="rgb_array")
    with pytest.raises(gym.error.ResetNeeded):
        venv.render()
    venv.reset(seed=0)
    assert venv.render().shape == (2, 400, 600, 3)


def test_render_batch_bad_input():
    venv = ccgym.make_vec("Acrobot-v1", num_envs=3, render_mode="rgb_array")
    venv.reset(seed=0)
    core = venv._core
    with pytest.raises(IndexError):
        rendering.render_batch("Acrobot", core, [3])
    with pytest.raises(IndexError):
        rendering.render_batch("Acrobot", core, [-1])
    with pytest.raises(ValueError, match="shape"):
        rendering.render_batch("Acrobot", core, out=np.empty((3, 10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="holds Acrobot"):
        rendering.render_batch("CartPole", core)
    with pytest.raises(ValueError, match="no renderer"):
        rendering.render_batch("Pong-v5", core)
    with pytest.raises(ValueError):
        rendering.render_batch("Acrobot", np.zeros(7, np.uint8))
    with pytest.raises(TypeError):
        rendering.render_batch("Acrobot", core, [0.5])
    assert rendering.render_batch("Acrobot", core, []).shape == (0, 500, 500, 3)


def test_extreme_states_do_not_crash():
    env = ccgym.CartPoleEnv(render_mode="rgb_array")
    env.reset(seed=0)
    for x in (1e300, -1e300, np.inf, np.nan, 40.0):
        _set_state(env, "CartPole", np.array([x, 0, x, 0]), None)
        assert env.render().shape == (400, 600, 3)


@pytest.mark.parametrize("kind", list(KINDS))
def test_pixels_are_area_averaged_frames(kind):
    env_id = next(i for i in ccgym.ENV_IDS if rendering.kind_of(i) == kind)
    venv = ccgym.make_vec(env_id, num_envs=3, render_mode="rgb_array")
    venv.reset(seed=3)
    venv.step(venv.action_space.sample())
    full = venv.render().astype(np.float64)
    h, w = KINDS[kind][2]
    # 84x84 is not a divisor of the canvas: compare with numpy's area average
    wy, wx = rendering.icons._area_weights(h, 84), rendering.icons._area_weights(w, 84)
    expect = np.einsum("ij,njkc,lk->nilc", wy, full, wx, optimize=True)
    rgb = rendering.render_pixels(kind, venv._core, shape=(84, 84))
    assert rgb.shape == (3, 84, 84, 3) and rgb.dtype == np.uint8
    assert np.abs(rgb - expect).max() <= 1.0
    gray = rendering.render_pixels(kind, venv._core, shape=(84, 84), grayscale=True)
    lum = expect @ np.array([0.2125, 0.7154, 0.0721])
    assert gray.shape == (3, 84, 84, 1) and np.abs(gray[..., 0] - lum).max() <= 1.0


def test_pixel_observation_wrapper():
    env = rendering.PixelObservation(gym.make("ccgym/Pendulum-v1"), shape=(84, 84))
    assert env.observation_space == gym.spaces.Box(0, 255, (84, 84, 1), np.uint8)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    obs2, *_ = env.step(np.array([2.0], np.float32))
    assert env.observation_space.contains(obs2) and not np.array_equal(obs, obs2)
    rgb = rendering.PixelObservation(ccgym.CartPoleEnv(), shape=(40, 60), grayscale=False)
    assert rgb.observation_space.shape == (40, 60, 3)
    obs, _ = rgb.reset(seed=0)
    assert rgb.observation_space.contains(obs)
    with pytest.raises(TypeError, match="ccgym env"):
        rendering.PixelObservation(gym.make("CartPole-v1"))


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_pixel_observation(mode):
    venv = rendering.VectorPixelObservation(
        ccgym.make_vec("CartPole-v1", num_envs=4, autoreset_mode=mode), shape=(64, 48))
    assert venv.single_observation_space.shape == (64, 48, 1)
    assert venv.observation_space.shape == (4, 64, 48, 1)
    obs, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    seen_final = False
    for _ in range(60):
        obs, _, term, trunc, infos = venv.step(np.ones(4, dtype=np.int64))
        assert obs.shape == (4, 64, 48, 1) and obs.dtype == np.uint8
        if "final_obs" in infos:
            seen_final = True
            for i in np.flatnonzero(infos["_final_obs"]):
                assert infos["final_obs"][i].shape == (64, 48, 1)
    assert seen_final == (mode == "SameStep")


def test_render_observations_matches_state_render():
    env = ccgym.AcrobotEnv(render_mode="rgb_array")
    obs, _ = env.reset(seed=5)
    for _ in range(10):
        obs, *_ = env.step(2)
    frame = rendering.render_observations("Acrobot", obs)[0]
    m = rendering.frame_agreement(frame, env.render())
    assert m["iou"] > 0.99


def test_record_cli(tmp_path):
    pytest.importorskip("PIL")
    from ccgym import cli

    out = tmp_path / "episode.gif"
    assert cli.main(["record", "Pendulum-v1", "--out", str(out), "--max-steps", "5"]) == 0
    from PIL import Image

    with Image.open(out) as im:
        assert im.size == (500, 500) and im.n_frames == 6
    assert cli.main(["record", "CartPole-v1", "--out", str(tmp_path / "x.avi")]) == 2


def test_record_with_policy(tmp_path):
    pytest.importorskip("PIL")
    from ccgym.record import record_episode

    n = record_episode("MountainCar-v0", str(tmp_path / "e.gif"), policy=lambda obs: 2,
                       max_steps=4)
    assert n == 5


def test_builtin_png_decoder_reads_gymnasium_asset():
    """The fallback used when neither Pillow nor pygame is installed."""
    pil = pytest.importorskip("PIL.Image")
    path = rendering.icons._gymnasium_asset("clockwise.png")
    with open(path, "rb") as f:
        ours = rendering.icons._decode_png(f.read())
    with pil.open(path) as im:
        np.testing.assert_array_equal(ours, np.asarray(im.convert("RGBA")))


def test_per_instance_params_are_drawn():
    """A vector env with one pole length per instance draws each with its own."""
    venv = ccgym.make_vec("CartPole-v1", num_envs=2, render_mode="rgb_array",
                          length=np.array([0.5, 1.0]))
    venv.reset(seed=0)
    frames = venv.render()
    single = ccgym.CartPoleEnv(render_mode="rgb_array")
    single.reset(seed=0)
    single._core.state_view(single._state_dtype)[0] = venv._core.state_view(
        single._state_dtype)[0]
    np.testing.assert_array_equal(frames[0], single.render())
    fg = (frames != 255).any(-1).sum(axis=(1, 2))
    assert fg[1] > fg[0] + 1000  # a pole twice as long
