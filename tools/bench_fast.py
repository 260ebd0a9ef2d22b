"""CartPole-v1 steps per second, one thread: ccgym fast vs ccgym exact vs
Gymnasium's numpy CartPoleVectorEnv, in one run (compare the ratios).

    python tools/bench_fast.py [num_envs] [steps]
"""
import sys
import time

import gymnasium as gym
import numpy as np

import ccgym
from ccgym import _core


def rate(env, steps, actions):
    env.reset(seed=0)
    for a in actions[:10]:
        env.step(a)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for k in range(steps):
            env.step(actions[k % len(actions)])
        best = max(best, steps * env.num_envs / (time.perf_counter() - t0))
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16384
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    actions = np.random.default_rng(0).integers(0, 2, size=(64, n), dtype=np.int64)
    envs = {
        "gymnasium vector_entry_point": gym.make_vec(
            "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"),
        "ccgym exact (copy=False)": ccgym.make_vec("CartPole-v1", num_envs=n, copy=False),
        "ccgym fast (copy=False)": ccgym.make_vec("CartPole-v1", num_envs=n, copy=False,
                                                  precision="fast"),
    }
    print(f"CartPole-v1, num_envs={n}, {steps} steps x best of 3, fast isa: {_core.fast_isa()}")
    rates = {name: rate(env, steps, actions) for name, env in envs.items()}
    base = rates["gymnasium vector_entry_point"]
    for name, r in rates.items():
        print(f"  {name:32s} {r / 1e6:8.1f} M steps/s  {r / base:6.1f}x gymnasium")


if __name__ == "__main__":
    main()
