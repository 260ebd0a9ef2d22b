"""Vectorised envs and PPO on CartPole-v1: throughput and reward vs number of envs.

The Stable Baselines "multiprocessing" tutorial's experiment, on
Stable-Baselines3 and three vector envs: SB3's ``DummyVecEnv`` (Gymnasium
envs, one process), ``SubprocVecEnv`` (one process per env) and ccgym's
native ``VecEnv`` (all envs in one C call). For n_envs in 1, 2, 4, 8, 16 and
several seeds it trains PPO and reports training steps/s and the final mean
evaluation reward, with error bars (standard deviation over seeds).

Two experiments:

- ``steps``: the same number of training steps for every run (the
  tutorial's first plot: more envs = more steps/s, but per-step sample
  efficiency drops);
- ``budget``: the same wall-clock budget for every run; each run trains for
  budget x its measured steps/s (from the ``steps`` experiment, or a short
  calibration run), so faster setups see more data.

PPO uses the tutorial's PPO2-style settings (n_steps=128 per env, 4 epochs of
4 minibatches). Evaluation: deterministic, on ccgym's VecEnv with a
VecMonitor. Prints tables and writes PNGs.

    python examples/vecenv_scaling.py --quick          # short run, ~1-2 minutes
    python examples/vecenv_scaling.py --smoke          # seconds: tests/test_examples.py runs it
    python examples/vecenv_scaling.py                  # full: long
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import ccgym.sb3

ENV_ID = "CartPole-v1"
BACKENDS = ("dummy", "subproc", "ccgym")


def make_train_env(backend: str, n_envs: int, seed: int):
    if backend == "ccgym":
        venv = ccgym.sb3.VecEnv(ENV_ID, n_envs)
    elif backend == "dummy":
        venv = DummyVecEnv([lambda: gym.make(ENV_ID) for _ in range(n_envs)])
    else:
        venv = SubprocVecEnv([lambda: gym.make(ENV_ID) for _ in range(n_envs)])
    venv.seed(seed)
    return venv


def train_once(backend: str, n_envs: int, seed: int, steps: int, eval_episodes: int):
    """Returns (training steps/s, mean evaluation reward, steps trained)."""
    venv = make_train_env(backend, n_envs, seed)
    n_steps = 128
    model = PPO("MlpPolicy", venv, n_steps=n_steps, batch_size=max(n_steps * n_envs // 4, 2),
                n_epochs=4, learning_rate=2.5e-4, ent_coef=0.01, gae_lambda=0.95,
                max_grad_norm=0.5, seed=seed, device="cpu")
    t0 = time.perf_counter()
    model.learn(steps)
    elapsed = time.perf_counter() - t0
    trained = model.num_timesteps
    venv.close()
    eval_env = ccgym.sb3.make_vec_env(ENV_ID, n_envs=min(eval_episodes, 8), seed=10_000 + seed)
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=eval_episodes, deterministic=True)
    eval_env.close()
    return trained / elapsed, float(mean), trained


def run_experiment(name, n_envs_list, seeds, steps_for, eval_episodes):
    """results[backend][n_envs] = list of (steps/s, reward, steps)."""
    results = {b: {n: [] for n in n_envs_list} for b in BACKENDS}
    for n in n_envs_list:
        for backend in BACKENDS:
            for seed in seeds:
                steps = steps_for(backend, n)
                rate, reward, trained = train_once(backend, n, seed, steps, eval_episodes)
                results[backend][n].append((rate, reward, trained))
                print(f"  [{name}] {backend:8s} n_envs={n:2d} seed={seed}: {trained:7d} steps, "
                      f"{rate:7.0f} steps/s, mean reward {reward:6.1f}", flush=True)
    return results


def print_table(title, results, n_envs_list):
    print(f"\n{title}")
    print(f"{'n_envs':>6s} " + " ".join(f"{b + ' steps/s':>22s} {b + ' reward':>18s}"
                                         for b in BACKENDS))
    for n in n_envs_list:
        cells = []
        for b in BACKENDS:
            r = np.array(results[b][n])
            cells.append(f"{r[:, 0].mean():12.0f} +/- {r[:, 0].std():5.0f} "
                         f"{r[:, 1].mean():9.1f} +/- {r[:, 1].std():5.1f}")
        print(f"{n:6d} " + " ".join(cells))


def plot(results, n_envs_list, title, path):
    try:
        import matplotlib
    except ImportError:  # the tables are the results; the picture is a view of them
        print(f"no {path}: matplotlib is not installed (pip install matplotlib)")
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for b in BACKENDS:
        r = [np.array(results[b][n]) for n in n_envs_list]
        ax1.errorbar(n_envs_list, [x[:, 0].mean() for x in r], yerr=[x[:, 0].std() for x in r],
                     capsize=4, marker="o", label=b)
        ax2.errorbar(n_envs_list, [x[:, 1].mean() for x in r], yerr=[x[:, 1].std() for x in r],
                     capsize=4, marker="o", label=b)
    for ax, ylabel in ((ax1, "training steps/s"), (ax2, "mean evaluation reward")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(n_envs_list, [str(n) for n in n_envs_list])
        ax.set_xlabel("number of envs")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", choices=("steps", "budget", "both"), default="both")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--seeds", type=int, default=3, help="runs per configuration")
    parser.add_argument("--steps", type=int, default=20_000,
                        help="training steps per run (steps experiment)")
    parser.add_argument("--budget", type=float, default=20.0,
                        help="wall-clock seconds per run (budget experiment)")
    parser.add_argument("--eval-episodes", type=int, default=20)
    parser.add_argument("--out", default="vecenv_scaling", help="PNG file prefix")
    parser.add_argument("--quick", action="store_true",
                        help="short run: n_envs 1 4, 2 seeds, 2048 steps, 3 s budget")
    parser.add_argument("--smoke", action="store_true",
                        help="seconds: n_envs 1 2, 1 seed, 256 steps, 0.2 s budget (a check "
                             "that it runs)")
    args = parser.parse_args()
    if args.quick:
        args.n_envs, args.seeds, args.steps = [1, 4], 2, 2048
        args.budget, args.eval_episodes = 3.0, 4
    if args.smoke:
        args.n_envs, args.seeds, args.steps = [1, 2], 1, 256
        args.budget, args.eval_episodes = 0.2, 1
    torch.set_num_threads(1)
    seeds = list(range(args.seeds))

    rates: dict[tuple[str, int], float] = {}
    if args.experiment in ("steps", "both"):
        res = run_experiment("steps", args.n_envs, seeds, lambda b, n: args.steps,
                             args.eval_episodes)
        for b in BACKENDS:
            for n in args.n_envs:
                rates[b, n] = float(np.mean([r[0] for r in res[b][n]]))
        title = f"PPO {ENV_ID}, {args.steps} training steps per run"
        print_table(title, res, args.n_envs)
        same = all([r[1] for r in res[b][n]] == [r[1] for r in res["dummy"][n]]
                   for b in BACKENDS for n in args.n_envs)
        print(f"rewards identical across the three vec envs: {same} (expected: same seeds, "
              "and ccgym is bit-exact with Gymnasium, so the same training happens)")
        plot(res, args.n_envs, title, f"{args.out}_steps.png")

    if args.experiment in ("budget", "both"):
        for b in BACKENDS:
            for n in args.n_envs:
                if (b, n) not in rates:  # calibrate: a short run measures steps/s
                    rates[b, n] = train_once(b, n, 99, max(128 * n * 2, 1024), 1)[0]

        def steps_for(b, n):
            return max(int(args.budget * rates[b, n]), 128 * n)

        res = run_experiment("budget", args.n_envs, seeds, steps_for, args.eval_episodes)
        title = f"PPO {ENV_ID}, {args.budget:g} s of training per run"
        print_table(title + " (steps trained = budget x measured steps/s)", res, args.n_envs)
        print(f"{'n_envs':>6s} " + " ".join(f"{b + ' steps':>16s}" for b in BACKENDS))
        for n in args.n_envs:
            print(f"{n:6d} " + " ".join(f"{np.mean([r[2] for r in res[b][n]]):16.0f}"
                                        for b in BACKENDS))
        plot(res, args.n_envs, title, f"{args.out}_budget.png")


if __name__ == "__main__":
    main()
