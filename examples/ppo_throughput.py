"""PPO training throughput on CartPole-v1: how much of the wall time is the env?

Trains PPO (Stable-Baselines3, CPU) for the same number of steps on three
vector envs of N instances, in one process, one after the other:

- ``dummy``: SB3's ``DummyVecEnv`` over ``gymnasium.make("CartPole-v1")``;
- ``ccgym``: ccgym's native SB3 VecEnv (one C call per step);
- ``null``: a VecEnv that returns constant arrays and costs nothing — the
  learner's ceiling.

Each env is wrapped in a thin timer (a VecEnvWrapper) that adds up the time
spent in reset/step; the table shows training timesteps/s and the env's share
of the time, by wall clock and by CPU time (the machine may be shared: the
three trainings run interleaved in chunks, and CPU time is the steadier
measure).

    python examples/ppo_throughput.py            # 8 envs, 30k steps each
    python examples/ppo_throughput.py --quick    # short run (4096 steps)
    python examples/ppo_throughput.py --smoke    # seconds: tests/test_examples.py runs it
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecEnvWrapper

import ccgym.sb3


class NullVecEnv(VecEnv):
    """CartPole's spaces, constant observations, reward 1, never done."""

    def __init__(self, num_envs: int) -> None:
        env = gym.make("CartPole-v1")
        super().__init__(num_envs, env.observation_space, env.action_space)
        env.close()
        self._obs = np.zeros((num_envs, 4), dtype=np.float32)
        self._rew = np.ones(num_envs, dtype=np.float32)
        self._done = np.zeros(num_envs, dtype=bool)
        self._infos = [{} for _ in range(num_envs)]

    def reset(self):
        return self._obs

    def step_async(self, actions):
        pass

    def step_wait(self):
        return self._obs, self._rew, self._done, self._infos

    def close(self):
        pass

    def get_attr(self, attr_name, indices=None):
        if attr_name == "render_mode":
            return [None] * self.num_envs
        raise AttributeError(attr_name)

    def set_attr(self, attr_name, value, indices=None):
        raise AttributeError(attr_name)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        raise AttributeError(method_name)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs


class EnvTimer(VecEnvWrapper):
    """Adds up the wall and CPU time spent inside the wrapped VecEnv."""

    def __init__(self, venv) -> None:
        super().__init__(venv)
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def _timed(self, fn, *args):
        t0, c0 = time.perf_counter(), time.thread_time()
        out = fn(*args)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.thread_time() - c0
        return out

    def reset(self):
        return self._timed(self.venv.reset)

    def step_async(self, actions):
        self._timed(self.venv.step_async, actions)

    def step_wait(self):
        return self._timed(self.venv.step_wait)


def make(kind: str, n: int, seed: int):
    if kind == "dummy":
        venv = DummyVecEnv([lambda: gym.make("CartPole-v1") for _ in range(n)])
    elif kind == "ccgym":
        venv = ccgym.sb3.VecEnv("CartPole-v1", n)
    else:
        venv = NullVecEnv(n)
    venv.seed(seed)
    return EnvTimer(venv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--timesteps", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hyperparams", choices=("zoo", "sb3"), default="zoo",
                        help="zoo: the RL Zoo's tuned CartPole-v1 PPO values (ccgym train's "
                             "default); sb3: SB3's PPO defaults with n_steps=256")
    parser.add_argument("--rounds", type=int, default=6,
                        help="interleaved chunks per vec env (fair under a shared CPU)")
    parser.add_argument("--quick", action="store_true", help="short run (4096 steps)")
    parser.add_argument("--smoke", action="store_true",
                        help="seconds: 2 envs, 2 rounds of one rollout (a check that it runs)")
    args = parser.parse_args()
    if args.quick:
        args.timesteps, args.rounds = 4096, 2
    if args.smoke:
        args.n_envs, args.rounds = 2, 2
    torch.set_num_threads(1)

    if args.hyperparams == "zoo":
        from ccgym.train import prepare

        # What ccgym train does with the Zoo's entry (schedules, policy_kwargs);
        # its n_envs and n_timesteps give way to this script's options.
        prepared = prepare("CartPole-v1", "ppo")
        if prepared["normalize"] is not None:
            raise SystemExit("the Zoo's CartPole-v1 PPO entry now normalizes: not handled here")
        policy, hp = prepared["policy"], prepared["kwargs"]
    else:
        policy, hp = "MlpPolicy", dict(n_steps=256)
    if args.smoke:  # one rollout of 2 x 16 steps per chunk
        hp.update(n_steps=16, batch_size=32)
        args.timesteps = 2 * args.rounds * 16

    # Round robin in chunks, rotating the order, so that the load of a shared
    # machine falls on the three alike; wall and CPU (process) time are both kept.
    kinds = ("dummy", "ccgym", "null")
    venvs = {k: make(k, args.n_envs, args.seed) for k in kinds}
    models = {k: PPO(policy, venvs[k], seed=args.seed, device="cpu", **hp) for k in kinds}
    wall = dict.fromkeys(kinds, 0.0)
    cpu = dict.fromkeys(kinds, 0.0)
    chunk = -(-args.timesteps // args.rounds)
    for r in range(args.rounds):
        for k in kinds[r % 3:] + kinds[:r % 3]:
            t0, c0 = time.perf_counter(), time.process_time()
            models[k].learn(chunk, reset_num_timesteps=(r == 0))
            wall[k] += time.perf_counter() - t0
            cpu[k] += time.process_time() - c0

    print(f"PPO on CartPole-v1, {args.n_envs} envs, {args.hyperparams} hyperparameters, "
          f"torch {torch.__version__} on 1 thread, {args.rounds} interleaved rounds")
    print(f"{'vec env':8s} {'steps':>7s} {'wall s':>7s} {'steps/s':>8s} {'env %':>6s} "
          f"{'cpu s':>7s} {'steps/cpu-s':>11s} {'env cpu %':>9s} {'env us/env-step':>15s}")
    rate = {}
    for k in kinds:
        steps, v = models[k].num_timesteps, venvs[k]
        rate[k] = steps / cpu[k]
        print(f"{k:8s} {steps:7d} {wall[k]:7.2f} {steps / wall[k]:8.0f} "
              f"{100 * v.seconds / wall[k]:6.1f} {cpu[k]:7.2f} {rate[k]:11.0f} "
              f"{100 * v.cpu_seconds / cpu[k]:9.1f} {1e6 * v.cpu_seconds / steps:15.2f}")
        v.close()
    for k in kinds[:2]:
        print(f"{k}: {100 * rate[k] / rate['null']:.0f}% of the null env's throughput "
              "(CPU-time based)")


if __name__ == "__main__":
    main()
