#!/usr/bin/env python3
"""Soak test: steps ccgym vector envs of every id for a long time (default
10^9 env-steps in total) with random seeds and random actions (continuous ones
outside the action bounds too, all finite) and checks, as it goes:

* memory stays constant: RSS is sampled; after a warm-up it may not grow by
  more than --rss-slack-mb;
* every observation and reward is finite (Gymnasium itself only produces
  NaN/inf from NaN/inf actions, which the soak does not send);
* bit-exact spot checks against Gymnasium: a few instances of each batch are
  re-seeded (reset by mask with a seed list) and a Gymnasium env (gym.make,
  so TimeLimit included) with the same seed is stepped in parallel with the
  same actions, through its own autoresets, comparing observations, rewards
  and flags (and final observations in SameStep mode) at every step; the
  tracked instances are rotated every --rotate steps.

Exit status 0 when everything held, 1 otherwise; a JSON summary (steps, wall
time, peak RSS, checks) is printed last.

    nice -n 19 python tools/soak.py                      # 1e9 steps
    python tools/soak.py --total-steps 2e7 --batch 8192  # a quick one
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import gymnasium as gym
import numpy as np

import ccgym

CONTINUOUS = {"MountainCarContinuous-v0": 1.0, "Pendulum-v1": 2.0}  # action bound
N_ACTIONS = {"CartPole-v0": 2, "CartPole-v1": 2, "MountainCar-v0": 3, "Acrobot-v1": 3}
# Autoreset mode per id (both of the modes that autoreset are soaked).
MODES = {"CartPole-v0": "SameStep", "Pendulum-v1": "SameStep"}


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Tracker:
    """A Gymnasium env shadowing instance `i` of a ccgym batch."""

    def __init__(self, env_id: str, i: int, seed: int, mode: str, gym_env: gym.Env):
        self.env_id, self.i, self.mode = env_id, i, mode
        self.env = gym_env
        self.obs, _ = self.env.reset(seed=seed)
        self.pending = False  # NextStep: Gymnasium must reset on the next step

    def step(self, action):
        """The (obs, reward, terminated, truncated, final_obs) ccgym must return."""
        if self.mode == "NextStep" and self.pending:
            self.pending = False
            obs, _ = self.env.reset()
            return obs, 0.0, False, False, None
        obs, reward, term, trunc, _ = self.env.step(action)
        if term or trunc:
            if self.mode == "NextStep":
                self.pending = True
            else:
                final = obs
                obs, _ = self.env.reset()
                return obs, reward, term, trunc, final
        return obs, reward, term, trunc, None


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = np.random.default_rng(args.seed)
        self.failures: list[str] = []
        self.envs: dict[str, ccgym.vector.VectorEnv] = {}
        self.trackers: dict[str, list[Tracker]] = {}
        self.gym_envs: dict[str, list[gym.Env]] = {}
        self.since_rotate: dict[str, int] = {}
        self.spot_steps = 0
        self.spot_resets = 0
        for env_id in args.ids:
            mode = MODES.get(env_id, "NextStep")
            env = ccgym.make_vec(env_id, num_envs=args.batch, num_threads=args.threads,
                                 autoreset_mode=mode, episode_statistics=mode == "SameStep")
            env.reset(seed=int(self.rng.integers(2**63)))
            self.envs[env_id] = env
            self.gym_envs[env_id] = [self._make_gym(env_id) for _ in range(args.spot)]
            self.rotate(env_id)

    @staticmethod
    def _make_gym(env_id: str) -> gym.Env:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # CartPole-v0
            return gym.make(env_id, disable_env_checker=True)

    def fail(self, msg: str) -> None:
        self.failures.append(msg)
        print("FAIL:", msg, flush=True)

    def rotate(self, env_id: str) -> None:
        """Re-seeds a few random instances and shadows them with Gymnasium."""
        env = self.envs[env_id]
        n = env.num_envs
        idx = self.rng.choice(n, size=min(self.args.spot, n), replace=False)
        seeds = self.rng.integers(0, 2**63, size=len(idx))
        seed_list: list[int | None] = [None] * n
        mask = np.zeros(n, dtype=bool)
        for i, s in zip(idx, seeds):
            seed_list[int(i)] = int(s)
            mask[i] = True
        obs, _ = env.reset(seed=seed_list, options={"reset_mask": mask})
        mode = env.autoreset_mode.value
        self.trackers[env_id] = [Tracker(env_id, int(i), int(s), mode, g)
                                 for i, s, g in zip(idx, seeds, self.gym_envs[env_id])]
        for t in self.trackers[env_id]:
            if not np.array_equal(obs[t.i], t.obs):
                self.fail(f"{env_id}: reset(seed) of instance {t.i} differs from Gymnasium: "
                          f"{obs[t.i]} vs {t.obs}")
        self.spot_resets += len(idx)
        self.since_rotate[env_id] = 0

    def actions(self, env_id: str, n: int) -> np.ndarray:
        if env_id in CONTINUOUS:
            bound = CONTINUOUS[env_id]
            # mostly in bounds, a good share outside them (clipped), all finite
            return self.rng.uniform(-2.5 * bound, 2.5 * bound, size=(n, 1)).astype(np.float32)
        return self.rng.integers(0, N_ACTIONS[env_id], size=n, dtype=np.int64)

    def step(self, env_id: str) -> int:
        env = self.envs[env_id]
        a = self.actions(env_id, env.num_envs)
        obs, rew, term, trunc, info = env.step(a)
        if not (np.isfinite(obs).all() and np.isfinite(rew).all()):
            bad = np.flatnonzero(~(np.isfinite(obs).all(axis=1) & np.isfinite(rew)))
            self.fail(f"{env_id}: non-finite output at instances {bad[:10].tolist()}: "
                      f"{obs[bad[:3]]} {rew[bad[:3]]}")
        for t in self.trackers[env_id]:
            act = a[t.i] if env_id in CONTINUOUS else int(a[t.i])
            e_obs, e_rew, e_term, e_trunc, e_final = t.step(act)
            ok = (np.array_equal(obs[t.i], e_obs) and rew[t.i] == e_rew
                  and bool(term[t.i]) == e_term and bool(trunc[t.i]) == e_trunc)
            if e_final is not None:
                final = info.get("final_obs")
                ok = ok and final is not None and np.array_equal(final[t.i], e_final)
            if not ok:
                self.fail(f"{env_id}: instance {t.i} differs from Gymnasium: "
                          f"ccgym {obs[t.i]} {rew[t.i]} {term[t.i]} {trunc[t.i]}, "
                          f"gymnasium {e_obs} {e_rew} {e_term} {e_trunc}")
                self.rotate(env_id)
                break
            self.spot_steps += 1
        self.since_rotate[env_id] += 1
        if self.since_rotate[env_id] >= self.args.rotate:
            self.rotate(env_id)
        return env.num_envs

    def run(self) -> dict:
        args = self.args
        total = int(args.total_steps)
        ids = list(self.envs)
        steps = 0
        start = last_report = time.perf_counter()
        baseline = None
        rss_samples = []
        max_rss_after_warmup = 0.0
        while steps < total and len(self.failures) < 20:
            for env_id in ids:
                steps += self.step(env_id)
            now = time.perf_counter()
            rss = rss_mb()
            if baseline is None and steps >= args.warmup_fraction * total:
                baseline = rss
            if baseline is not None:
                max_rss_after_warmup = max(max_rss_after_warmup, rss)
            if now - last_report >= args.report_every or steps >= total:
                last_report = now
                rss_samples.append(round(rss, 1))
                rate = steps / (now - start)
                eta = (total - steps) / rate if rate else float("inf")
                print(f"[soak] {steps:>13,d} steps  {now - start:8.1f}s  {rate / 1e6:7.2f} M/s  "
                      f"rss {rss:7.1f} MB  spot-steps {self.spot_steps:,d}  "
                      f"eta {eta:6.0f}s", flush=True)
        wall = time.perf_counter() - start
        growth = (max_rss_after_warmup - baseline) if baseline is not None else 0.0
        if growth > args.rss_slack_mb:
            self.fail(f"RSS grew by {growth:.1f} MB after warm-up (baseline {baseline:.1f} MB)")
        return {
            "ok": not self.failures,
            "env_steps": steps,
            "wall_seconds": round(wall, 1),
            "steps_per_second": round(steps / wall),
            "batch": args.batch,
            "threads": args.threads,
            "ids": ids,
            "peak_rss_mb": round(peak_rss_mb(), 1),
            "rss_baseline_mb": None if baseline is None else round(baseline, 1),
            "rss_growth_after_warmup_mb": round(growth, 1),
            "rss_samples_mb": rss_samples[:: max(1, len(rss_samples) // 40)],
            "spot_checked_steps": self.spot_steps,
            "spot_seeded_resets": self.spot_resets,
            "failures": self.failures[:20],
        }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--total-steps", type=float, default=1e9,
                   help="env-steps over all ids (default 1e9)")
    p.add_argument("--batch", type=int, default=65536, help="instances per env (default 65536)")
    p.add_argument("--threads", type=int, default=2, help="num_threads per env (default 2)")
    p.add_argument("--ids", nargs="+", default=list(ccgym.ENV_IDS), choices=list(ccgym.ENV_IDS))
    p.add_argument("--spot", type=int, default=4, help="instances per env shadowed by Gymnasium")
    p.add_argument("--rotate", type=int, default=500,
                   help="re-seed and re-pick the shadowed instances every this many steps")
    p.add_argument("--seed", type=int, default=None, help="master seed (default: random)")
    p.add_argument("--rss-slack-mb", type=float, default=32.0)
    p.add_argument("--warmup-fraction", type=float, default=0.02)
    p.add_argument("--report-every", type=float, default=30.0, help="seconds between reports")
    p.add_argument("--json", default=None, help="also write the summary to this file")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(8), "little")
    print(f"[soak] seed {args.seed}, {args.total_steps:.3g} steps, batch {args.batch}, "
          f"threads {args.threads}, ids {args.ids}", flush=True)
    summary = Soak(args).run()
    summary["seed"] = args.seed
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
