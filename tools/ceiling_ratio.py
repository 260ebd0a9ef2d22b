"""The kernel-level ratio to the ceiling, in one process: the C step of the
real path (Batch.step on checked arrays, copy=False: driver + kernel + the
fast accept of the action check, no copies) and the ceiling loop, 16 steps each, in turn, 60 times; medians.

    python tools/ceiling_ratio.py MountainCarContinuous-v0 [num_envs] [--layers]

`ccgym bench --ceiling` measures the whole VectorEnv.step instead (Python
layers and output arrays included), a few percent lower at N=16384.
--layers times every layer in between too, interleaved the same way:
Batch.step without and with copy, VectorEnv.step without and with
copy (one env each, so copy=False and copy=True see the same states).
"""
import statistics
import sys
import time

import ccgym
from ccgym.benchmarks import harness, peers


def _loop(step, actions):
    def run():
        for a in actions:
            step(a)
    return run


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    env_id = args[0] if args else "MountainCarContinuous-v0"
    n = int(args[1]) if len(args) > 1 else 16384
    ceiling_run, _, _ = peers.ceiling_factory(env_id, n, 1)()
    env = ccgym.make_vec(env_id, num_envs=n, copy=False)
    drawn = harness.draw_actions(env.action_space)
    checked = [env.batch.check_actions(a) for a in drawn]
    env.reset(seed=0)
    layers = {"kernel (Batch.step, checked actions)": _loop(env.batch.step, checked)}
    if "--layers" in sys.argv:
        copied = ccgym.make_vec(env_id, num_envs=n)
        copied.reset(seed=0)
        layers.update({
            "Batch.step, copy=False": _loop(env.batch.step, drawn),
            "Batch.step, copy=True": _loop(copied.batch.step, drawn),
            "VectorEnv.step, copy=False": _loop(env.step, drawn),
            "VectorEnv.step, copy=True": _loop(copied.step, drawn),
        })
    for run in layers.values():
        for _ in range(5):
            run()
    times = {name: [] for name in layers}
    ceiling = []
    for _ in range(60):
        for name, run in layers.items():
            t0 = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - t0) / len(drawn) * 1e6)
        ceiling.append(ceiling_run(1) / peers.CEILING_STEPS * 1e6)
    c = statistics.median(ceiling)
    print(f"{env_id} N={n}: ceiling {c:.1f} us/step")
    for name, t in times.items():
        r = statistics.median(t)
        print(f"  {name:32s} {r:8.1f} us/step, ratio {c / r:.3f}")


if __name__ == "__main__":
    main()
