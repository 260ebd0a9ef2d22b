"""RLlib PPO (new API stack) on ccgym vs stock Gymnasium: iteration returns and
sampling throughput.

    python tools/rllib_report.py --iters 2 --runners 1 2 --env CartPole-v1

For each runner count it trains PPO for --iters iterations twice with the
same seed, once on stock ``<Id>`` (RLlib's default ``gym_env_vectorize_mode=
"sync"``: a SyncVectorEnv of N Python envs per runner) and once on
``ccgym/<Id>`` with ``gym_env_vectorize_mode="vector_entry_point"`` (each
runner steps its N envs in one ccgym call), printing each iteration's
``episode_return_mean`` and whether they are equal; then it times
``sample()`` of --sample-steps env steps on all runners at once (env-steps/s
over all runners, one run: the machine has 2 shared cores, so read it as an
order of magnitude). Keep it small: every iteration trains a torch model.
"""
from __future__ import annotations

import argparse
import time


def config_for(env: str, ccgym_env: bool, runners: int, num_envs: int, seed: int, batch: int):
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment(f"ccgym/{env}" if ccgym_env else env)
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=num_envs,
            num_cpus_per_env_runner=0,  # logical CPUs only: this is a 2-core machine
            gym_env_vectorize_mode="vector_entry_point" if ccgym_env else "sync",
            rollout_fragment_length=batch // (max(runners, 1) * num_envs),
        )
        .training(train_batch_size_per_learner=batch, minibatch_size=batch // 2, num_epochs=1)
        .debugging(seed=seed)
    )
    return config


def run(env: str, ccgym_env: bool, runners: int, num_envs: int, iters: int, seed: int,
        batch: int, sample_steps: int):
    algo = config_for(env, ccgym_env, runners, num_envs, seed, batch).build_algo()
    try:
        returns = []
        for _ in range(iters):
            result = algo.train()
            returns.append(result["env_runners"].get("episode_return_mean"))
        group = algo.env_runner_group
        per_runner = sample_steps // max(runners, 1)

        def sample(runner):
            runner.sample(num_timesteps=per_runner, random_actions=False)
            return per_runner

        if runners:
            group.foreach_env_runner(sample, local_env_runner=False)  # warm-up
            t = time.perf_counter()
            steps = sum(group.foreach_env_runner(sample, local_env_runner=False))
        else:
            sample(group.local_env_runner)
            t = time.perf_counter()
            steps = sample(group.local_env_runner)
        rate = steps / (time.perf_counter() - t)
        vec_type = type(group.local_env_runner.env.unwrapped).__module__ if not runners else None
        return returns, rate, vec_type
    finally:
        algo.stop()


def env_step_us(env: str, num_envs: int, steps: int = 2000, rounds: int = 5):
    """Microseconds per vector step of the env alone, as RLlib wraps it
    (DictInfoToList over gym.make_vec), ccgym vs stock, interleaved A/B."""
    import gymnasium as gym
    import numpy as np
    from gymnasium.wrappers.vector import DictInfoToList  # what RLlib's EnvRunner wraps with

    def build(ccgym_env):
        return DictInfoToList(gym.make_vec(f"ccgym/{env}" if ccgym_env else env, num_envs=num_envs,
                                           vectorization_mode="vector_entry_point" if ccgym_env
                                           else "sync"))

    envs = {k: build(k) for k in (False, True)}
    for e in envs.values():
        e.reset(seed=0)
        e.action_space.seed(0)
    actions = [envs[False].action_space.sample() for _ in range(steps)]
    best = {False: float("inf"), True: float("inf")}
    for _ in range(rounds):
        for k, e in envs.items():
            t = time.perf_counter()
            for a in actions:
                e.step(a)
            best[k] = min(best[k], (time.perf_counter() - t) / steps * 1e6)
    for e in envs.values():
        e.close()
    return best[False], best[True]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--iters", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--sample-steps", type=int, default=16384)
    args = parser.parse_args(argv)

    import ray
    import torch

    stock_us, ours_us = env_step_us(args.env, args.num_envs)
    print(f"{args.env} env.step alone (as RLlib wraps it), N={args.num_envs}: stock {stock_us:.1f} us, "
          f"ccgym {ours_us:.1f} us per vector step (best of 5 x 2000, interleaved)")

    torch.set_num_threads(1)
    ray.init(num_cpus=max(args.runners) + 1, include_dashboard=False, log_to_driver=False)
    try:
        for runners in args.runners:
            out = {}
            for ccgym_env in (False, True):
                out[ccgym_env] = run(args.env, ccgym_env, runners, args.num_envs, args.iters,
                                     args.seed, args.batch, args.sample_steps)
            (stock_ret, stock_rate, _), (ours_ret, ours_rate, _) = out[False], out[True]
            print(f"{args.env} runners={runners} N={args.num_envs}/runner seed={args.seed}")
            print(f"  returns stock  {stock_ret}")
            print(f"  returns ccgym  {ours_ret}  equal={stock_ret == ours_ret}")
            print(f"  sample env-steps/s: stock {stock_rate:,.0f}  ccgym {ours_rate:,.0f}  "
                  f"x{ours_rate / stock_rate:.2f}")
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
