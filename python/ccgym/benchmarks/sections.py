"""The sections of ``ccgym bench`` beyond the step table: ``reset(seed=s)``
of a large vector env, the peak memory of a big CartPole vector env (in a
subprocess), and the per-layer cost of a 1-instance step."""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ccgym.benchmarks import peers as P
from ccgym.benchmarks.harness import cycle_loop, draw_actions, measure
from ccgym.vector import make_vec

RESET_NUM_ENVS = 65536
MEMORY_NUM_ENVS = 1_000_000


def bench_reset(env_ids: list[str], n: int, repeats: int,
                log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Seconds for reset(seed=s) of an N-instance vector env (median over seeds)."""
    import gymnasium as gym

    out = []
    for env_id in env_ids:
        impls: list[tuple[str, Callable[[], Any]]] = [
            (P.CC_VEC, lambda: make_vec(env_id, num_envs=n))]
        if P.gym_has_vector(env_id):
            impls.append((P.GYM_NUMPY, lambda: gym.make_vec(
                env_id, num_envs=n, vectorization_mode="vector_entry_point")))
        for impl, make in impls:
            envs = make()
            envs.reset(seed=0)  # warm-up
            times = []
            for s in range(1, max(3, repeats) + 1):
                t0 = time.perf_counter()
                envs.reset(seed=1000 * s)
                times.append(time.perf_counter() - t0)
            envs.close()
            sec = statistics.median(times)
            out.append({"env_id": env_id, "impl": impl, "num_envs": n, "seconds": sec})
            log(f"reset(seed=s) {env_id} N={n} {impl}: {sec * 1e3:.2f} ms")
    return out


def _rss_now() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _trim_heap() -> None:
    """Returns malloc's free memory to the OS (glibc's malloc_trim), so that
    what the env allocates next faults in new pages and shows in the peak
    RSS. Without it, the env's few MiB can come from freed pages still
    resident in the heap (Python 3.12 with numpy 2.5 left enough after the
    imports for a 10,000-instance env: a peak increase of 0)."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to trim by
        pass


def _reset_peak_rss() -> bool:
    """Restarts the kernel's peak-RSS count from the current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss() -> int:
    """This process's peak RSS. /proc's VmHWM is this program's own;
    getrusage's ru_maxrss also counts the parent's RSS at fork (Linux
    keeps it across exec), which made a large benchmark process inflate
    its child's figure."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_child(n: int) -> None:
    """Runs in a subprocess: peak memory of an n-instance CartPole vector
    env; prints one JSON line."""
    import gc
    import tracemalloc

    warm = make_vec(P.SUBJECT, num_envs=8)  # imports and caches, not counted
    warm.reset(seed=0)
    warm.step(warm.action_space.sample())
    warm.close()
    del warm
    gc.collect()
    _trim_heap()
    rss_before = _rss_now()
    peak_reset = _reset_peak_rss()
    peak_before = _peak_rss()
    tracemalloc.start()
    t0 = time.perf_counter()
    envs = make_vec(P.SUBJECT, num_envs=n)
    t_make = time.perf_counter() - t0
    envs.reset(seed=0)
    actions = np.zeros(n, dtype=np.int64)  # the caller's; counted below
    for _ in range(3):
        envs.step(actions)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = _peak_rss()
    core = envs.batch
    names = ["state_buffer", "rng_state", "params_buffer", "obs", "final_obs", "reward",
             "terminated", "truncated", "final_return", "final_length", "episode_return",
             "episode_start", "pending_reset"]
    buffers = {name: int(getattr(core, name).nbytes) for name in names}
    buffers["_episode_start_times"] = int(envs.episode_start_times.nbytes)
    spaces = 0
    for space in (envs.observation_space, envs.action_space):
        for value in vars(space).values():
            if isinstance(value, np.ndarray):
                spaces += int(value.nbytes)
    total = sum(buffers.values())
    # Without a peak reset, a peak from before (imports) can exceed the
    # env's: then only the growth over the earlier peak is known.
    base = rss_before if peak_reset else max(rss_before, peak_before)
    print(json.dumps({
        "num_envs": n,
        "state_buffers_bytes": total,
        "buffers": buffers,
        "spaces_bytes": spaces,
        "actions_bytes": int(actions.nbytes),
        "rss_before_bytes": rss_before,
        "peak_rss_before_bytes": peak_before,
        "peak_rss_bytes": peak,
        "peak_increase_bytes": peak - base,
        "ratio_rss": (peak - base) / total,
        "tracemalloc_peak_bytes": traced_peak,
        "ratio_tracemalloc": traced_peak / total,
        "make_seconds": t_make,
    }))


def bench_memory(n: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Runs :func:`memory_child` in a fresh interpreter and returns its figures
    (or ``{"num_envs": n, "error": ...}``)."""
    code = f"from ccgym.benchmarks.sections import memory_child; memory_child({int(n)})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        log(f"memory: the subprocess failed:\n{proc.stderr}")
        return {"num_envs": n, "error": proc.stderr.strip().splitlines()[-1:]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    log(f"memory N={n}: peak RSS +{out['peak_increase_bytes'] / 2**20:.1f} MiB for "
        f"{out['state_buffers_bytes'] / 2**20:.1f} MiB of state+buffers "
        f"(x{out['ratio_rss']:.2f})")
    return out


def bench_breakdown(env_id: str, budget: float, repeats: int,
                    log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Per-call cost of each layer of a 1-instance ccgym vector env step."""
    envs = make_vec(env_id, num_envs=1)
    envs.reset(seed=0)
    core = envs.batch
    actions = [core.check_actions(a) for a in draw_actions(envs.action_space)]
    envs_nocopy = make_vec(env_id, num_envs=1, copy=False)
    envs_nocopy.reset(seed=0)
    layers: list[tuple[str, Callable[[int], float]]] = [
        ("Batch.step, copy=False (driver + kernel + Cython call + action check)",
         cycle_loop(envs_nocopy.batch.step, actions)),
        ("Batch.step, copy=True (+ handing out own arrays)", cycle_loop(core.step, actions)),
        ("VectorEnv.step, copy=False (+ Python method, infos dict)",
         cycle_loop(envs_nocopy.step, actions)),
        ("VectorEnv.step (default, copy=True)", cycle_loop(envs.step, actions)),
    ]
    loop_only = cycle_loop(lambda a: None, actions)
    out = []
    _, base, _ = measure(loop_only, 1, budget, repeats)
    out.append({"layer": "empty Python loop + call of a lambda", "us_per_call": base * 1e6})
    for name, run in layers:
        _, per_call, _ = measure(run, 1, budget, repeats)
        out.append({"layer": name, "us_per_call": per_call * 1e6})
    if importlib.util.find_spec("ccgym._ceiling") is not None:
        rate, _, _ = measure(P.ceiling_factory(env_id, 1, 1)()[0], P.CEILING_STEPS, budget,
                             repeats)
        out.append({"layer": "ceiling: one step of the physics in C", "us_per_call": 1e6 / rate})
    envs.close()
    envs_nocopy.close()
    for row in out:
        log(f"breakdown {env_id} N=1: {row['layer']}: {row['us_per_call']:.3f} us")
    return out
