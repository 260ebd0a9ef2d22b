"""The kernel-level ratio to the ceiling, in one process: the C step of the
real path (Batch.step_unchecked: driver + kernel, no action check, no
copies) and the ceiling loop, 16 steps each, in turn, 60 times; medians.

    python tools/ceiling_ratio.py MountainCarContinuous-v0 [num_envs]

`ccgym bench --ceiling` measures the whole VectorEnv.step instead (Python
layers and output copies included), a few percent lower at N=16384.
"""
import statistics
import sys
import time

import ccgym
from ccgym import bench


def main():
    env_id = sys.argv[1] if len(sys.argv) > 1 else "MountainCarContinuous-v0"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    run, _, _ = bench.ceiling_factory(env_id, n, 1)()
    env = ccgym.make_vec(env_id, num_envs=n, copy=False)
    actions = [env._core.check_actions(a) for a in bench._draw(env.action_space)]
    env.reset(seed=0)
    for a in actions * 5:
        env._core.step_unchecked(a)
    real, ceiling = [], []
    for _ in range(60):
        t0 = time.perf_counter()
        for a in actions:
            env._core.step_unchecked(a)
        real.append((time.perf_counter() - t0) / len(actions) * 1e6)
        ceiling.append(run(1) / bench.CEILING_STEPS * 1e6)
    r, c = statistics.median(real), statistics.median(ceiling)
    print(f"{env_id} N={n}: kernel {r:.1f} us/step, ceiling {c:.1f} us/step, ratio {c / r:.3f}")


if __name__ == "__main__":
    main()
