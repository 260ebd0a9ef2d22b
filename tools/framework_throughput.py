"""Env-steps/s of ccgym vs stock Gymnasium inside each framework's own loop
(docs/frameworks.md, "What is faster"), A/B interleaved in one process, best of --repeats.

For each framework two loops: "env" (random actions drawn beforehand: the
env path alone) and "mlp" (a 64x64 torch MLP policy picks every action, as
in a rollout: what an on-policy collection costs per step).

    python tools/framework_throughput.py [--repeats 3] [--only torchrl,tianshou,cleanrl,sb3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode

import ccgym

torch.set_num_threads(1)
ENV = "CartPole-v1"


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64),
                               torch.nn.Tanh(), torch.nn.Linear(64, 2))


def act_mlp(net, obs):
    with torch.no_grad():
        return net(torch.as_tensor(obs)).argmax(-1).numpy()


# ----------------------------------------------------------------- CleanRL
def cleanrl(n, steps, policy):
    def stock():
        return gym.vector.SyncVectorEnv(
            [lambda: gym.wrappers.RecordEpisodeStatistics(gym.make(ENV)) for _ in range(n)])

    def ours():
        return gym.make_vec(f"ccgym/{ENV}", num_envs=n, vectorization_mode="vector_entry_point",
                            episode_statistics=True)

    def run(make):
        envs = make()
        obs, _ = envs.reset(seed=0)
        net = mlp()
        acts = np.random.default_rng(0).integers(0, 2, size=(steps, n))
        t = time.perf_counter()
        for k in range(steps):
            a = act_mlp(net, obs) if policy else acts[k]
            obs, _, _, _, infos = envs.step(a)
            if "episode" in infos:
                infos["_episode"].nonzero()
        dt = time.perf_counter() - t
        envs.close()
        return n * steps / dt
    return run, ours, stock


# ------------------------------------------------------------------ TorchRL
def torchrl(n, steps, policy):
    from tensordict.nn import TensorDictModule
    from torchrl.envs import GymWrapper

    from ccgym.torchrl import make_env

    def stock():
        return GymWrapper(gym.vector.SyncVectorEnv(
            [lambda: gym.make(ENV) for _ in range(n)], autoreset_mode=AutoresetMode.DISABLED))

    def ours():
        return make_env(ENV, n)

    def run(make):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = make()
            env.set_seed(0)
            pol = None
            if policy:
                net = mlp()
                pol = TensorDictModule(lambda o: torch.nn.functional.one_hot(
                    net(o).argmax(-1), 2), in_keys=["observation"], out_keys=["action"])
            t = time.perf_counter()
            with torch.no_grad():
                env.rollout(steps, pol, break_when_any_done=False)
            dt = time.perf_counter() - t
            env.close()
        return n * steps / dt
    return run, ours, stock


# ----------------------------------------------------------------- Tianshou
def tianshou(n, steps, policy):
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.data import Batch, Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    from ccgym.tianshou import VectorEnv

    class MLPPolicy(Policy):
        def __init__(self, space):
            super().__init__(action_space=space)
            self.net = mlp()

        def forward(self, batch, state=None, **kwargs):
            return Batch(act=act_mlp(self.net, np.asarray(batch.obs)), state=state)

    def stock():
        return DummyVectorEnv([lambda: gym.make(ENV) for _ in range(n)])

    def ours():
        return VectorEnv(ENV, n)

    def run(make):
        venv = make()
        venv.seed(0)
        pol = MLPPolicy(venv.get_env_attr("action_space", 0)[0])
        col = Collector(pol, venv, VectorReplayBuffer(steps * n + n, n))
        col.reset()
        t = time.perf_counter()
        with torch.no_grad():
            col.collect(n_step=steps * n, random=not policy)
        dt = time.perf_counter() - t
        venv.close()
        return n * steps / dt
    return run, ours, stock


# ---------------------------------------------------------- SB3 (the Zoo's)
def sb3(n, steps, policy):
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

    from ccgym.sb3 import make_vec_env

    def run(make):
        venv = make()
        obs = venv.reset()
        net = mlp()
        acts = np.random.default_rng(0).integers(0, 2, size=(steps, n))
        t = time.perf_counter()
        for k in range(steps):
            obs, _, _, _ = venv.step(act_mlp(net, obs) if policy else acts[k])
        dt = time.perf_counter() - t
        venv.close()
        return n * steps / dt
    return run, (lambda: make_vec_env(ENV, n, seed=0)), (lambda: sb3_make_vec_env(ENV, n, seed=0))


FRAMEWORKS = {"cleanrl": (cleanrl, 8, 1000), "sb3": (sb3, 8, 1000),
              "tianshou": (tianshou, 8, 400), "torchrl": (torchrl, 64, 300)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", default=",".join(FRAMEWORKS))
    args = p.parse_args()
    print(f"{'framework':9} {'N':>4} {'loop':4} {'ccgym steps/s':>14} {'stock steps/s':>14} {'ratio':>6}")
    for name in args.only.split(","):
        factory, n, steps = FRAMEWORKS[name]
        for policy in (False, True):
            run, ours, stock = factory(n, steps, policy)
            best_o = best_s = 0.0
            for _ in range(args.repeats):  # interleaved A/B
                best_o = max(best_o, run(ours))
                best_s = max(best_s, run(stock))
            print(f"{name:9} {n:4d} {'mlp' if policy else 'env':4} {best_o:14,.0f} {best_s:14,.0f} "
                  f"{best_o / best_s:6.1f}", flush=True)


if __name__ == "__main__":
    main()
