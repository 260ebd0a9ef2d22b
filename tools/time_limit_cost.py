"""The time limit's best and worst case, in one process: the C step of the
real path (Batch.step on checked actions, copy=False) on N instances whose episodes started
together (a step tests for truncation only once per max_episode_steps) and
on N instances whose starts are spread over the limit (some instance
truncates on every step, so every step tests each instance and scans the
starts). Interleaved rounds, medians, microseconds per step.

    python tools/time_limit_cost.py [env_id] [num_envs]

Use an env that does not terminate under random actions (MountainCar-v0,
Pendulum-v1), so that only the time limit ends episodes. Run it under two
builds' PYTHONPATHs to compare them.
"""
import statistics
import sys
import time

import numpy as np

import ccgym
from ccgym.benchmarks.harness import draw_actions


def main():
    env_id = sys.argv[1] if len(sys.argv) > 1 else "MountainCar-v0"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    runs = {}
    for kind in ("together", "spread"):
        env = ccgym.make_vec(env_id, num_envs=n, copy=False)
        env.reset(seed=0)
        limit = env.batch.max_episode_steps
        if kind == "spread":
            state = env.get_state()
            # Instance i is (7 i mod limit) steps into its episode.
            state["elapsed"] = (np.arange(n, dtype=np.int64) * 7) % limit
            env.set_state(state)
        actions = [env.batch.check_actions(a) for a in draw_actions(env.action_space)]
        runs[kind] = (env.batch.step, actions)
    times = {kind: [] for kind in runs}
    for r in range(40):
        for kind, (step, actions) in runs.items():
            t0 = time.perf_counter()
            for a in actions:
                step(a)
            if r >= 5:  # warm-up rounds
                times[kind].append((time.perf_counter() - t0) / len(actions) * 1e6)
    print(f"{env_id} N={n}, us per step: " + ", ".join(
        f"starts {kind} {statistics.median(t):.1f}" for kind, t in times.items()))


if __name__ == "__main__":
    main()
