"""A tour of wrappers over ccgym envs, after the Stable Baselines wrappers tutorial.

Each section builds something, runs it, and checks what it claims:

1. time limit: ``gymnasium.wrappers.TimeLimit`` on a raw ccgym single env;
2. action normalisation: ``gymnasium.wrappers.RescaleAction`` maps the
   agent's [-1, 1] to Pendulum's [-2, 2] torque;
3. a monitor: SB3's ``Monitor`` records episode return and length;
4. a time-feature observation wrapper (written here): appends the remaining
   fraction of the episode to the observation, so a value function can tell
   a time-out from a failure;
5. vectorised wrappers on ccgym's native SB3 VecEnv: ``VecNormalize`` (with
   its statistics saved and reloaded) and ``VecFrameStack``;
6. SB3 model save/load: hyperparameters restored, training resumed.

    python examples/wrappers_tour.py --quick
    python examples/wrappers_tour.py --smoke    # seconds: tests/test_examples.py runs it
"""

from __future__ import annotations

import argparse
import os
import tempfile
import warnings

import gymnasium as gym
import numpy as np
import torch
from gymnasium.wrappers import RescaleAction, TimeLimit
from stable_baselines3 import A2C, PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecFrameStack, VecNormalize

import ccgym
import ccgym.sb3


class TimeFeatureWrapper(gym.ObservationWrapper):
    """Appends the time left, 1 - t / max_steps (1 at reset, 0 at the limit),
    to a Box observation. Put it over the TimeLimit (or give max_steps)."""

    def __init__(self, env: gym.Env, max_steps: int | None = None) -> None:
        super().__init__(env)
        space = env.observation_space
        assert isinstance(space, gym.spaces.Box) and len(space.shape) == 1
        if max_steps is None:
            max_steps = env.spec.max_episode_steps if env.spec else None
        if not max_steps:
            raise ValueError("TimeFeatureWrapper needs max_steps or a spec with a time limit")
        self.max_steps = int(max_steps)
        self.observation_space = gym.spaces.Box(
            low=np.append(space.low, np.float32(0.0)),
            high=np.append(space.high, np.float32(1.0)),
            dtype=space.dtype,
        )
        self._t = 0

    def reset(self, **kwargs):
        self._t = 0
        return super().reset(**kwargs)

    def step(self, action):
        self._t += 1
        return super().step(action)

    def observation(self, observation):
        left = 1.0 - self._t / self.max_steps
        return np.append(observation, np.float32(left)).astype(self.observation_space.dtype)


def section(title: str) -> None:
    print(f"\n== {title}")


def time_limit() -> None:
    section("1. time limit: TimeLimit(PendulumEnv(), 50)")
    env = TimeLimit(ccgym.PendulumEnv(), max_episode_steps=50)
    env.reset(seed=0)
    for t in range(1, 100):
        _, _, terminated, truncated, _ = env.step(np.zeros(1, dtype=np.float32))
        if terminated or truncated:
            break
    print(f"episode ended after {t} steps: terminated={terminated}, truncated={truncated}")
    assert t == 50 and truncated and not terminated


def action_normalisation() -> None:
    section("2. action normalisation: RescaleAction(PendulumEnv(), -1, 1)")
    raw = ccgym.PendulumEnv()
    # float32 bounds: float64 ones make Gymnasium's Box warn about lowered precision
    env = RescaleAction(ccgym.PendulumEnv(), min_action=np.float32(-1.0),
                        max_action=np.float32(1.0))
    print(f"agent's action space {env.action_space}, env's {raw.action_space}")
    raw.reset(seed=3)
    env.reset(seed=3)
    for a in (1.0, -1.0, 0.5, 0.0):
        o1 = env.step(np.array([a], dtype=np.float32))[0]
        o2 = raw.step(np.array([2.0 * a], dtype=np.float32))[0]
        print(f"  agent {a:+.1f} -> torque {2 * a:+.1f}: same next observation "
              f"{np.array_equal(o1, o2)}")
        assert np.array_equal(o1, o2)


def monitor(log_dir: str) -> None:
    section("3. monitor: SB3's Monitor over gym.make('ccgym/CartPole-v1')")
    env = Monitor(gym.make("ccgym/CartPole-v1"), filename=os.path.join(log_dir, "cartpole"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 3:
        _, _, terminated, truncated, info = env.step(int(rng.integers(2)))
        if terminated or truncated:
            print(f"  episode {episodes}: info['episode'] = {info['episode']}")
            env.reset()
            episodes += 1
    print(f"  returns {env.get_episode_rewards()}, lengths {env.get_episode_lengths()}")
    assert env.get_episode_rewards() == [float(n) for n in env.get_episode_lengths()]
    env.close()
    print(f"  written: {sorted(os.listdir(log_dir))}")


def time_feature(steps: int) -> None:
    section("4. time feature: TimeFeatureWrapper(gym.make('ccgym/Pendulum-v1'))")
    env = TimeFeatureWrapper(gym.make("ccgym/Pendulum-v1"))
    obs, _ = env.reset(seed=0)
    print(f"  observation space {env.observation_space}")
    print(f"  at reset: {obs}")
    for _ in range(199):
        obs, *_ = env.step(env.action_space.sample())
    obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
    print(f"  at the limit (truncated={truncated}): time feature {obs[-1]}")
    assert obs.shape == (4,) and obs[-1] == 0.0 and truncated
    # The agent sees it like any observation. ccgym.sb3.make_vec_env takes
    # SB3's wrapper_class as SB3's make_vec_env does (a DummyVecEnv of ccgym
    # single envs: a Gymnasium wrapper cannot wrap one instance of the C
    # batch, so it warns that the native batch is off).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ccgym.sb3.NativeBatchOffWarning)
        venv = ccgym.sb3.make_vec_env("Pendulum-v1", n_envs=2, seed=0,
                                      wrapper_class=TimeFeatureWrapper)
    model = A2C("MlpPolicy", venv, n_steps=8, seed=0, device="cpu")
    model.learn(steps)
    print(f"  A2C trained on the time-featured env: policy input {model.observation_space.shape}")


def vec_wrappers(steps: int, tmp: str) -> None:
    section("5. VecNormalize and VecFrameStack over ccgym's native SB3 VecEnv")
    venv = VecNormalize(ccgym.sb3.make_vec_env("Pendulum-v1", n_envs=8, seed=0),
                        gamma=0.9)
    model = PPO("MlpPolicy", venv, n_steps=128, gamma=0.9, seed=0, device="cpu")
    model.learn(steps)
    path = os.path.join(tmp, "vecnormalize.pkl")
    venv.save(path)
    print(f"  obs mean {np.round(venv.obs_rms.mean, 3)}, var {np.round(venv.obs_rms.var, 3)}")
    fresh = VecNormalize.load(path, ccgym.sb3.make_vec_env("Pendulum-v1", n_envs=4, seed=1))
    fresh.training, fresh.norm_reward = False, False  # evaluation: frozen, raw rewards
    assert np.array_equal(fresh.obs_rms.mean, venv.obs_rms.mean)
    mean, std = evaluate_policy(model, fresh, n_eval_episodes=4)
    print(f"  reloaded statistics into a fresh ccgym env; mean reward {mean:.1f} +/- {std:.1f}")

    stacked = VecFrameStack(ccgym.sb3.make_vec_env("CartPole-v1", n_envs=4, seed=0), n_stack=4)
    obs = stacked.reset()
    print(f"  VecFrameStack(n_stack=4): observation shape {obs.shape}")
    assert obs.shape == (4, 16)
    model = PPO("MlpPolicy", stacked, n_steps=64, seed=0, device="cpu")
    model.learn(512)


def save_load(first: int, tmp: str) -> None:
    section("6. save, load (hyperparameters restored), resume training")
    venv = ccgym.sb3.make_vec_env("CartPole-v1", n_envs=8, seed=0)
    model = PPO("MlpPolicy", venv, n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98,
                n_epochs=20, learning_rate=1e-3, ent_coef=0.0, seed=0, device="cpu")
    model.learn(first)
    path = os.path.join(tmp, "ppo_cartpole")
    model.save(path)
    before = evaluate_policy(model, venv, n_eval_episodes=8)[0]
    del model

    loaded = PPO.load(path, env=ccgym.sb3.make_vec_env("CartPole-v1", n_envs=8, seed=1),
                      device="cpu")
    restored = {k: getattr(loaded, k) for k in ("n_steps", "batch_size", "gae_lambda", "gamma",
                                                "n_epochs", "ent_coef")}
    print(f"  restored hyperparameters: {restored}; timesteps so far {loaded.num_timesteps}")
    assert restored == dict(n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98,
                            n_epochs=20, ent_coef=0.0)
    loaded.learn(first, reset_num_timesteps=False)
    after = evaluate_policy(loaded, loaded.get_env(), n_eval_episodes=8)[0]
    print(f"  resumed to {loaded.num_timesteps} timesteps; mean reward {before:.1f} "
          f"after the first part, {after:.1f} after resuming")
    assert loaded.num_timesteps >= 2 * first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short trainings")
    parser.add_argument("--smoke", action="store_true",
                        help="one rollout per training: seconds (a check that it runs)")
    args = parser.parse_args()
    # Steps of the trainings of sections 4, 5 and 6 (each is at least one rollout).
    steps = ((8, 256, 256) if args.smoke else (256, 2048, 4096) if args.quick
             else (5_000, 50_000, 40_000))
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        time_limit()
        action_normalisation()
        monitor(tmp)
        time_feature(steps[0])
        vec_wrappers(steps[1], tmp)
        save_load(steps[2], tmp)
    print("\nall sections ran and their checks passed")


if __name__ == "__main__":
    main()
