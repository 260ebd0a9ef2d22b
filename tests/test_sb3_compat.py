"""ccgym.sb3.make_vec_env against SB3's own make_vec_env (issue 16, item 4),
live: Monitor's episode infos in value and type, monitor_kwargs,
env_is_wrapped, and VecVideoRecorder."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the SB3 front end needs stable-baselines3")

import gymnasium as gym  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import ccgym  # noqa: E402
import ccgym.sb3  # noqa: E402
from ccgym.sb3 import make_vec_env  # noqa: E402
from reference import reference_id  # noqa: E402

# Steps that end at least two episodes per instance under random actions
# (keyed by the Gymnasium id an env mirrors).
STEPS = {"CartPole-v1": 200, "MountainCar-v0": 420, "MountainCarContinuous-v0": 1000,
         "Pendulum-v1": 420, "Acrobot-v1": 520}


def episode_infos(venv, steps: int, seed: int):
    venv.action_space.seed(seed)
    out = []
    venv.reset()
    for _ in range(steps):
        a = np.stack([venv.action_space.sample() for _ in range(venv.num_envs)])
        obs, rew, dones, infos = venv.step(a)
        for i, info in enumerate(infos):
            if "episode" in info:
                ep = dict(info["episode"])
                ep.pop("t")
                out.append((i, ep, {k: type(v) for k, v in ep.items()}, obs.tobytes()))
    return out


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS[1:])
def test_episode_infos_equal_monitors(env_id):
    ref = sb3_make_vec_env(reference_id(env_id), n_envs=2, seed=3)
    ours = make_vec_env(env_id, n_envs=2, seed=3)
    steps = STEPS[reference_id(env_id)]
    r = episode_infos(ref, steps, 1)
    o = episode_infos(ours, steps, 1)
    assert len(r) >= 2
    assert o == r  # values (r rounded to 6 digits) and types (float, int)
    assert all(types == {"r": float, "l": int} for _, _, types, _ in o)


def test_episode_time_is_monitors():
    venv = make_vec_env("CartPole-v1", n_envs=2, seed=0)
    venv.reset()
    for _ in range(100):
        *_, infos = venv.step(np.ones(2, dtype=np.int64))
        for info in infos:
            if "episode" in info:
                t = info["episode"]["t"]
                assert type(t) is float and t == round(t, 6) and 0 <= t < 600
                return
    pytest.fail("no episode ended")


def test_env_is_wrapped_answers_as_sb3():
    ref = sb3_make_vec_env("Pendulum-v1", n_envs=3)
    ours = make_vec_env("Pendulum-v1", n_envs=3)
    for wrapper in (Monitor, gym.wrappers.TimeLimit, gym.wrappers.OrderEnforcing,
                    gym.Wrapper, gym.wrappers.RecordEpisodeStatistics, gym.wrappers.ClipAction):
        assert ours.env_is_wrapped(wrapper) == ref.env_is_wrapped(wrapper), wrapper
    assert ours.env_is_wrapped(Monitor, indices=[1]) == [True]
    # A plain VecEnv is not Monitor-wrapped, as DummyVecEnv([gym.make]) is not.
    plain = DummyVecEnv([lambda: gym.make("Pendulum-v1")])
    assert ccgym.sb3.VecEnv("Pendulum-v1", 1).env_is_wrapped(Monitor) == \
        plain.env_is_wrapped(Monitor) == [False]


def test_monitor_kwargs_as_sb3(tmp_path):
    for kwargs in ({"allow_early_resets": True}, {"allow_early_resets": False},
                   {"override_existing": True}, {}):
        ref = sb3_make_vec_env("CartPole-v1", n_envs=2, seed=1, monitor_kwargs=kwargs)
        ours = make_vec_env("CartPole-v1", n_envs=2, seed=1, monitor_kwargs=kwargs)
        assert episode_infos(ours, 120, 2) == episode_infos(ref, 120, 2)
        # A reset in mid-episode: refused by both when early resets are not allowed.
        outcomes = []
        for venv in (ref, ours):
            try:
                venv.reset()
                outcomes.append(None)
            except RuntimeError as e:
                outcomes.append(str(e))
        assert outcomes[1] == outcomes[0]
        assert (outcomes[0] is not None) == (kwargs.get("allow_early_resets") is False)
    # info_keywords name keys of the single env's info ({} for these envs):
    # Monitor raises KeyError when the first episode ends; so does ccgym.
    for make in (sb3_make_vec_env, make_vec_env):
        venv = make("CartPole-v1", n_envs=2, seed=1,
                    monitor_kwargs={"info_keywords": ("TimeLimit.truncated",)})
        with pytest.raises(KeyError, match="TimeLimit.truncated"):
            episode_infos(venv, 120, 2)
    with pytest.raises(ValueError, match="reset_keywords"):
        make_vec_env("CartPole-v1", monitor_kwargs={"reset_keywords": ("seed",)})
    with pytest.raises(TypeError):
        make_vec_env("CartPole-v1", monitor_kwargs={"no_such_kwarg": 1})


def test_monitor_file_override_existing(tmp_path):
    def run():
        venv = make_vec_env("CartPole-v1", n_envs=2, seed=0, monitor_dir=str(tmp_path),
                            monitor_kwargs={"override_existing": False})
        venv.reset()
        for _ in range(60):
            venv.step(np.ones(2, dtype=np.int64))
        venv.close()
        return venv.episode_count

    n1 = run()
    n2 = run()
    lines = (tmp_path / "0.monitor.csv").read_text().splitlines()
    rows = [ln for ln in lines if ln and not ln.startswith("#") and not ln.startswith("r,")]
    assert n1 > 0 and len(rows) == n1 + n2  # appended, as Monitor's override_existing=False


def test_render_mode_defaults_to_rgb_array_as_sb3():
    pytest.importorskip("pygame", reason="the stock reference renders its frames with pygame "
                        '(pip install "ccgym[render]")')
    ref = sb3_make_vec_env("Acrobot-v1", n_envs=2)
    ours = make_vec_env("Acrobot-v1", n_envs=2)
    assert ours.render_mode == ref.render_mode == "rgb_array"
    assert ours.get_attr("render_mode") == ref.get_attr("render_mode")
    off = make_vec_env("Acrobot-v1", n_envs=2, env_kwargs={"render_mode": None})
    assert off.render_mode is None
    ours.seed(0), ref.seed(0)
    ours.reset(), ref.reset()
    imgs, ref_imgs = ours.get_images(), ref.get_images()
    assert [i.shape for i in imgs] == [i.shape for i in ref_imgs]


def test_vec_video_recorder_on_make_vec_env(tmp_path):
    pytest.importorskip("moviepy", reason="VecVideoRecorder writes videos with moviepy")
    from stable_baselines3.common.vec_env import VecVideoRecorder

    venv = make_vec_env("CartPole-v1", n_envs=2, seed=0)
    rec = VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0,
                           video_length=15, name_prefix="ccgym")
    rec.reset()
    for _ in range(20):
        rec.step(np.ones(2, dtype=np.int64))
    rec.close()
    videos = list(tmp_path.glob("ccgym*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0


# ------------------------------------------- wrapper_class, callables (issue 24, item 6)
def _trajectory(venv, steps: int, seed: int):
    """Every step's outputs, as bytes and values (Monitor's episode time
    left out: it is a clock), for actions from a numpy Generator of ``seed``
    over the unwrapped env's action space (a wrapper's own space, such as
    ClipAction's unbounded Box, is not seeded by make_vec_env); continuous
    actions cross the bounds."""
    rng = np.random.default_rng(seed)
    space = venv.envs[0].unwrapped.action_space
    out = [venv.reset().tobytes()]
    for _ in range(steps):
        if isinstance(space, gym.spaces.Discrete):
            a = rng.integers(0, space.n, venv.num_envs)
        else:
            a = rng.uniform(1.5 * space.low, 1.5 * space.high,
                            (venv.num_envs, *space.shape)).astype(np.float32)
        obs, rew, dones, infos = venv.step(a)
        rows = []
        for info in infos:
            info = dict(info)
            if "episode" in info:
                info["episode"] = {k: v for k, v in info["episode"].items() if k != "t"}
            if "terminal_observation" in info:
                info["terminal_observation"] = info["terminal_observation"].tobytes()
            rows.append(sorted(info.items()))
        out.append((obs.tobytes(), obs.dtype, rew.tobytes(), rew.dtype, dones.tobytes(), rows))
    return out


def _scale_reward(env, factor):
    return gym.wrappers.TransformReward(env, lambda r: r * factor)


WRAPPED = [
    ("CartPole-v1", gym.wrappers.TimeLimit, {"max_episode_steps": 30}),
    ("Acrobot-v1", gym.wrappers.TimeLimit, {"max_episode_steps": 40}),
    ("Pendulum-v1", gym.wrappers.ClipAction, None),
    ("MountainCarContinuous-v0", _scale_reward, {"factor": 0.5}),
    ("MountainCar-v0", gym.wrappers.TimeAwareObservation, None),
]


@pytest.mark.parametrize("env_id,wrapper,kwargs", WRAPPED, ids=[w[0] for w in WRAPPED])
def test_wrapper_class_equals_sb3s_make_vec_env(env_id, wrapper, kwargs):
    """With a wrapper_class, ccgym's make_vec_env is SB3's over ccgym's
    single envs: step by step, bit for bit what SB3's make_vec_env gives over
    the stock env with the same wrapper, seed, start_index and actions."""
    # render_mode None: the stock envs' rgb_array (SB3's default) needs pygame.
    ref = sb3_make_vec_env(env_id, n_envs=3, seed=5, start_index=1, wrapper_class=wrapper,
                           wrapper_kwargs=kwargs, env_kwargs={"render_mode": None})
    with pytest.warns(ccgym.sb3.NativeBatchOffWarning, match="native batch is off"):
        ours = make_vec_env(env_id, n_envs=3, seed=5, start_index=1, wrapper_class=wrapper,
                            wrapper_kwargs=kwargs, env_kwargs={"render_mode": None})
    assert isinstance(ours, DummyVecEnv) and type(ours) is type(ref)
    assert ours.observation_space == ref.observation_space
    assert type(ours.envs[0].unwrapped).__module__ == "ccgym.envs"
    assert type(ref.envs[0].unwrapped).__module__.startswith("gymnasium.")
    r, o = _trajectory(ref, 150, 0), _trajectory(ours, 150, 0)
    assert len(o) == len(r)
    for t, (x, y) in enumerate(zip(r, o)):
        assert x == y, t
    if wrapper is gym.wrappers.TimeLimit:  # episodes ended (by the wrapper's limit)
        assert any(np.frombuffer(step[4], bool).any() for step in r[1:])


def test_callable_env_id_equals_sb3s_make_vec_env():
    """A callable env_id (SB3's make_vec_env(lambda **kw: ...)) and env_kwargs."""
    kw = {"g": 4.0}
    ref = sb3_make_vec_env(lambda **k: gym.make("Pendulum-v1", **k), n_envs=2, seed=2,
                           env_kwargs=kw)
    with pytest.warns(ccgym.sb3.NativeBatchOffWarning, match="callable env_id"):
        ours = make_vec_env(lambda **k: gym.make("ccgym/Pendulum-v1", **k), n_envs=2, seed=2,
                            env_kwargs=kw)
    assert ours.get_attr("g") == [4.0, 4.0]
    assert _trajectory(ours, 250, 1) == _trajectory(ref, 250, 1)


def test_fallback_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="monitor=False"):
        make_vec_env("CartPole-v1", wrapper_class=gym.wrappers.TimeLimit,
                     wrapper_kwargs={"max_episode_steps": 3}, monitor=False)
    with pytest.raises(ValueError, match="wrapper_kwargs need a wrapper_class"):
        make_vec_env("CartPole-v1", wrapper_kwargs={"max_episode_steps": 3})
    with pytest.raises(gym.error.Error, match="ccgym has no env"):
        make_vec_env("LunarLander-v3", wrapper_class=gym.wrappers.TimeLimit)


def test_native_batch_without_wrapper_stays_native_and_quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ccgym.sb3.NativeBatchOffWarning)
        venv = make_vec_env("CartPole-v1", n_envs=2, seed=0)
    assert isinstance(venv.unwrapped, ccgym.sb3.VecEnv)
