"""``ccgym bench``: env-steps per second of ccgym against Gymnasium.

One run measures, for every id:

- the single env, raw class and through ``gymnasium.make``, of both libraries;
- ccgym's vector env at several N (and thread counts), exact (the default)
  and, for the ids with fast kernels, ``precision="fast"``, beside Gymnasium's
  ``SyncVectorEnv`` (small N only), Gymnasium's numpy ``CartPoleVectorEnv``
  (CartPole), optional peers when importable (SB3 ``DummyVecEnv``, EnvPool,
  gymnax) and, with ``--ceiling``, ccgym's reference ceiling: the same
  physics in a bare C loop timed inside C (see ``src/ceiling.c``);
- ``reset(seed=s)`` of a large vector env, and the peak memory of a
  1,000,000-instance CartPole vector env against its state and buffers
  (in a subprocess).

Method: actions are drawn before the clock starts (16 batches, cycled);
each measurement warms up and calibrates the number of calls, then takes the
median over ``--repeats`` repeats that share a time budget. The rows of one
id and N are timed together, their repeats interleaved, so their ratios
(against Gymnasium, against the ceiling) see the same machine. Timings are
wall-clock and only as quiet as the machine: benchmark on an idle machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import itertools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

DEFAULT_NUM_ENVS = (1, 64, 1024, 16384)
QUICK_NUM_ENVS = (1, 1024)
SYNC_MAX_N = 64          # Gymnasium's SyncVectorEnv (and SB3's DummyVecEnv) only up to here
ACTION_BATCHES = 16      # pre-drawn action batches, cycled through
# Ceiling steps per C call before its states are restored: one pass over the
# action batches, so that its memory traffic is the real path's.
CEILING_STEPS = ACTION_BATCHES
CEILING_POOL = 1024      # at least this many instances per snapshot of live states
CEILING_SNAPSHOTS = 8    # snapshots spread over one episode (the id's time limit)
RESET_NUM_ENVS = 65536
MEMORY_NUM_ENVS = 1_000_000
MIN_INSTANCES_PER_THREAD = 2048  # ccgym's CCGYM_MIN_INSTANCES_PER_THREAD

# The targets (issue 5).
TARGET_CARTPOLE_VS_NUMPY = 1.6
TARGET_FAST_VS_NUMPY = 5.0
TARGET_VS_CEILING = 0.9
TARGET_N1_VS_NUMPY = 40.0
TARGET_SINGLE_RAW = 5.0
TARGET_SINGLE_MAKE = 2.0
TARGET_TWO_THREADS = 1.8
TARGET_RESET_SECONDS = 0.1
TARGET_MEMORY_RATIO = 2.0

# Implementation labels.
GYM_RAW, CC_RAW, GYM_MAKE, CC_MAKE = "gymnasium raw", "ccgym raw", "gymnasium make", "ccgym make"
CC_VEC, CC_VEC_NOCOPY, CEILING = "ccgym", "ccgym copy=False", "ceiling"
CC_FAST, CC_FAST_NOCOPY = "ccgym fast", "ccgym fast copy=False"
# The ids whose precision="fast" has its own kernels (MountainCar's is the exact one).
FAST_IDS = ("CartPole-v0", "CartPole-v1", "Pendulum-v1", "Acrobot-v1")
GYM_SYNC, GYM_NUMPY = "gym SyncVectorEnv", "gym CartPoleVectorEnv"
SB3_DUMMY, ENVPOOL, GYMNAX = "sb3 DummyVecEnv", "envpool", "gymnax"
SINGLE_REFS = {CC_RAW: GYM_RAW, CC_MAKE: GYM_MAKE}
PEERS = (SB3_DUMMY, ENVPOOL, GYMNAX)


@dataclasses.dataclass
class Result:
    """One measurement: env-steps per second of one implementation."""

    env_id: str
    mode: str            # "single" or "vector"
    num_envs: int        # 1 for single envs
    impl: str
    threads: int
    steps_per_s: float
    us_per_call: float   # one step() call (N env-steps); C loop time per step for the ceiling
    calls: int           # calls per repeat
    repeats: int
    vs_gym: float | None = None
    gym_ref: str | None = None
    vs_ceiling: float | None = None


# The clock of the Python-side loops: wall time, or with --clock cpu the
# calling thread's CPU time for single-threaded measurements (steadier when
# the machine is busy: time spent descheduled does not count).
_timer: Callable[[], float] = time.perf_counter
_cpu_clock = False


def set_clock(cpu: bool) -> None:
    """Times the following measurements by thread CPU time (True) or wall time."""
    global _timer, _cpu_clock
    _timer = time.thread_time if cpu else time.perf_counter
    _cpu_clock = cpu


class Skip(Exception):
    """An implementation that cannot run here (missing package, unsupported id)."""


# ----------------------------------------------------------------- measuring
def calibrate(run: Callable[[int], float], budget: float, repeats: int) -> int:
    """Calls per repeat so that `repeats` repeats of `run(k)` (k calls,
    returns seconds) fill `budget` seconds, after a warm-up."""
    run(1)  # warm-up: first-call costs (lazy imports, page faults, caches)
    k, elapsed = 1, run(1)
    floor = min(0.01, budget / (4 * repeats))
    while elapsed < floor and k < 1 << 26:
        k *= 2 if elapsed > floor / 4 else 8
        elapsed = run(k)
    per_call = max(elapsed / k, 1e-9)
    return max(1, int(budget / repeats / per_call))


def summarize(samples: list[float], calls: int, work_per_call: int) -> tuple[float, float]:
    """Env-steps/s and seconds per call of the median repeat."""
    seconds = statistics.median(samples)
    return calls * work_per_call / seconds, seconds / calls


def measure(run: Callable[[int], float], work_per_call: int, budget: float,
            repeats: int) -> tuple[float, float, int]:
    """Median env-steps/s of `run(k)` (k calls, returns seconds), the median
    seconds per call, and calls per repeat. Warms up, calibrates k so that
    `repeats` repeats fill `budget` seconds, then times the repeats."""
    calls = calibrate(run, budget, repeats)
    samples = [run(calls) for _ in range(repeats)]
    rate, per_call = summarize(samples, calls, work_per_call)
    return rate, per_call, calls


def _cycle_loop(step: Callable[[Any], Any], actions: list) -> Callable[[int], float]:
    m = len(actions)

    def run(k: int) -> float:
        timer = _timer
        t0 = timer()
        for i in range(k):
            step(actions[i % m])
        return timer() - t0

    return run


def _single_loop(env: Any, actions: list) -> Callable[[int], float]:
    """Steps one env, resetting when an episode ends (the cost a training loop pays)."""
    step, reset, m = env.step, env.reset, len(actions)
    env.reset(seed=0)

    def run(k: int) -> float:
        timer = _timer
        t0 = timer()
        for i in range(k):
            _, _, terminated, truncated, _ = step(actions[i % m])
            if terminated or truncated:
                reset()
        return timer() - t0

    return run


def _draw(space: Any, seed: int = 0) -> list:
    space.seed(seed)
    return [space.sample() for _ in range(ACTION_BATCHES)]


# ----------------------------------------------------------- implementations
# Each factory returns (run, work_per_call, close).
Factory = Callable[[], tuple[Callable[[int], float], int, Callable[[], None]]]


def _gym_class(env_id: str) -> type:
    import gymnasium as gym

    module, name = gym.spec(env_id).entry_point.split(":")
    return getattr(importlib.import_module(module), name)


def single_factory(env_id: str, impl: str) -> Factory:
    def make():
        import gymnasium as gym

        import ccgym

        if impl == GYM_RAW:
            env = _gym_class(env_id)()
        elif impl == CC_RAW:
            env = getattr(ccgym.envs, ccgym.ENV_SPECS[env_id][0])()
        elif impl == GYM_MAKE:
            env = gym.make(env_id)
        else:
            env = gym.make(f"ccgym/{env_id}")
        return _single_loop(env, _draw(env.action_space)), 1, env.close

    return make


def ccgym_vector_factory(env_id: str, n: int, threads: int, copy: bool = True,
                         precision: str = "exact") -> Factory:
    def make():
        import ccgym

        envs = ccgym.make_vec(env_id, num_envs=n, num_threads=threads, copy=copy,
                              precision=precision)
        envs.reset(seed=0)
        return _cycle_loop(envs.step, _draw(envs.action_space)), n, envs.close

    return make


def gym_vector_factory(env_id: str, n: int, mode: str) -> Factory:
    def make():
        import gymnasium as gym

        envs = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode)
        envs.reset(seed=0)
        return _cycle_loop(envs.step, _draw(envs.action_space)), n, envs.close

    return make


def sb3_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            from stable_baselines3.common.vec_env import DummyVecEnv
        except ImportError:
            raise Skip("stable_baselines3 is not installed") from None
        import gymnasium as gym

        venv = DummyVecEnv([lambda: gym.make(env_id)] * n)
        venv.seed(0)
        venv.reset()
        space = venv.action_space
        space.seed(0)
        actions = [np.array([space.sample() for _ in range(n)]) for _ in range(ACTION_BATCHES)]
        return _cycle_loop(venv.step, actions), n, venv.close

    return make


def envpool_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            import envpool
        except ImportError:
            raise Skip("envpool is not installed") from None
        try:
            envs = envpool.make_gymnasium(env_id, num_envs=n, seed=0)
        except Exception as e:  # an id EnvPool does not have
            raise Skip(f"envpool has no {env_id}: {e}") from None
        envs.reset()
        space = envs.action_space
        space.seed(0)
        if isinstance(space.sample(), (int, np.integer)):
            actions = [np.array([space.sample() for _ in range(n)], dtype=np.int32)
                       for _ in range(ACTION_BATCHES)]
        else:
            actions = [np.stack([space.sample() for _ in range(n)])
                       for _ in range(ACTION_BATCHES)]
        return _cycle_loop(envs.step, actions), n, envs.close

    return make


def gymnax_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            import gymnax
            import jax
        except ImportError:
            raise Skip("gymnax (with jax) is not installed") from None
        try:
            env, params = gymnax.make(env_id)
        except Exception as e:
            raise Skip(f"gymnax has no {env_id}: {e}") from None
        key = jax.random.PRNGKey(0)
        reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
        step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        keys = jax.random.split(key, n)
        _, state = reset(keys, params)
        act_keys = jax.random.split(jax.random.PRNGKey(1), ACTION_BATCHES)
        actions = [jax.vmap(env.action_space(params).sample)(jax.random.split(k, n))
                   for k in act_keys]
        step_keys = [jax.random.split(k, n) for k in jax.random.split(key, ACTION_BATCHES)]
        box = [state]

        def run(k: int) -> float:
            st, timer = box[0], _timer
            t0 = timer()
            for i in range(k):
                out = step(step_keys[i % ACTION_BATCHES], st, actions[i % ACTION_BATCHES],
                           params)
                st = out[1]
            jax.block_until_ready(out)
            dt = timer() - t0
            box[0] = st
            return dt

        return run, n, lambda: None

    return make


def ceiling_state_pool(env_id: str, n: int) -> np.ndarray:
    """States for the ceiling in its layout, live states of ccgym's own vector
    env: at least CEILING_POOL instances (a multiple of n) stepped with random
    actions and autoreset for one episode's worth of steps (the id's time
    limit), CEILING_SNAPSHOTS snapshots spread evenly over it, so that the
    ceiling sees the same mix of states (and of branches and libm argument
    ranges in the physics) as the real path over a run. States fresh from
    reset would flatter it; states run on past a fall without reset would
    slow it down; and one snapshot alone is one phase of a fleet that
    started together. (The ceiling resets a terminated instance itself.)"""
    import ccgym

    pool = n * -(-CEILING_POOL // n)
    envs = ccgym.make_vec(env_id, num_envs=pool)
    envs.reset(seed=0)
    actions = _draw(envs.action_space)
    kind = envs._core.kind
    cls = getattr(ccgym.envs, ccgym.ENV_SPECS[env_id][0])
    every = -(-ccgym.ENV_SPECS[env_id][1] // CEILING_SNAPSHOTS)
    view = envs._core.state_view(cls._state_dtype)
    snapshots = []
    for i in range(1, CEILING_SNAPSHOTS * every + 1):
        envs.step(actions[i % len(actions)])
        if i % every == 0:
            snapshots.append(_ceiling_layout(view, kind))
    envs.close()
    return np.concatenate(snapshots)


def _ceiling_layout(view: np.ndarray, kind: str) -> np.ndarray:
    """A copy of ccgym's states (a structured view) as the ceiling's (N, state_dim)
    float64 rows."""
    from ccgym import _ceiling

    if kind == "Acrobot":
        state = np.array(view["s"], dtype=np.float64).reshape(len(view), 4)
    else:
        names = view.dtype.names[:_ceiling.state_dim(kind)]
        state = np.stack([np.asarray(view[f], dtype=np.float64) for f in names], axis=1)
    if kind == "MountainCarContinuous":  # the ceiling steps a float32 state
        state = state.astype(np.float32).astype(np.float64)
    if kind == "Pendulum":
        state[:, 2] = np.nan_to_num(state[:, 2])  # last_u (NaN after reset) is only written
    return np.ascontiguousarray(state)


def ceiling_factory(env_id: str, n: int, threads: int) -> Factory:
    def make():
        import ccgym

        try:
            from ccgym import _ceiling
        except ImportError:
            raise Skip("ccgym was built without the _ceiling module") from None
        kind = ccgym.make_vec(env_id, num_envs=1)._core.kind
        pool = ceiling_state_pool(env_id, n)
        windows = pool.shape[0] // n
        runner = _ceiling.Run(kind, pool[:n].copy(), seed=0)
        envs = ccgym.make_vec(env_id, num_envs=n)
        actions = np.stack(_draw(envs.action_space)).astype(_ceiling.action_dtype(kind))
        envs.close()
        steps = CEILING_STEPS
        box = [0]

        def run(k: int) -> float:
            total, w = 0.0, box[0]
            for _ in range(k):
                # Untimed (the clock runs in C): a fresh window of the pool.
                np.copyto(runner.state, pool[w * n:(w + 1) * n])
                w = (w + 1) % windows
                total += runner.run(actions, steps, threads, _cpu_clock)
            box[0] = w
            return total

        return run, n * steps, lambda: None

    return make


# ----------------------------------------------------------------- the plan
@dataclasses.dataclass
class Task:
    env_id: str
    mode: str
    num_envs: int
    impl: str
    threads: int
    factory: Factory


def plan(args: argparse.Namespace) -> tuple[list[Task], list[str]]:
    """The measurements to take, and notes on what is left out."""
    tasks: list[Task] = []
    notes: list[str] = []
    small = [n for n in args.num_envs if n <= SYNC_MAX_N]
    skipped_threads = sorted({(t, n) for t in args.threads if t > 1
                              for n in args.num_envs if n < MIN_INSTANCES_PER_THREAD * t})
    if skipped_threads:
        notes.append(
            "threads > 1 measured only where N >= 2048 x threads (ccgym uses fewer threads "
            "below that, so those rows would repeat the 1-thread ones): skipped "
            + ", ".join(f"t={t} N={n}" for t, n in skipped_threads))
    if any(n > SYNC_MAX_N for n in args.num_envs):
        notes.append(f"{GYM_SYNC} and {SB3_DUMMY} run only at N <= {SYNC_MAX_N}; larger N "
                     f"of ids without a numpy vector env compare against {GYM_SYNC} at the "
                     "largest N measured (marked ~): its steps/s hardly depends on N")
    for env_id in args.ids:
        if not args.no_single:
            for impl in (GYM_RAW, CC_RAW, GYM_MAKE, CC_MAKE):
                tasks.append(Task(env_id, "single", 1, impl, 1, single_factory(env_id, impl)))
        for n in args.num_envs:
            def add(impl: str, factory: Factory, threads: int = 1) -> None:
                tasks.append(Task(env_id, "vector", n, impl, threads, factory))

            threads = [t for t in args.threads if t == 1 or n >= MIN_INSTANCES_PER_THREAD * t]
            precisions = [("exact", CC_VEC, CC_VEC_NOCOPY)]
            if args.fast and env_id in FAST_IDS:
                precisions.append(("fast", CC_FAST, CC_FAST_NOCOPY))
            for precision, impl, impl_nocopy in precisions:
                for t in threads:
                    add(impl, ccgym_vector_factory(env_id, n, t, precision=precision), t)
                if not args.no_copy_false:
                    add(impl_nocopy,
                        ccgym_vector_factory(env_id, n, 1, copy=False, precision=precision))
            if args.ceiling:
                for t in threads:
                    add(CEILING, ceiling_factory(env_id, n, t), t)
            if env_id.startswith("CartPole"):
                add(GYM_NUMPY, gym_vector_factory(env_id, n, "vector_entry_point"))
            if n in small:
                add(GYM_SYNC, gym_vector_factory(env_id, n, "sync"))
            if args.peers:
                if n in small:
                    add(SB3_DUMMY, sb3_factory(env_id, n))
                add(ENVPOOL, envpool_factory(env_id, n))
                add(GYMNAX, gymnax_factory(env_id, n))
    return tasks, notes


def run_tasks(tasks: list[Task], args: argparse.Namespace,
              log: Callable[[str], None]) -> tuple[list[Result], list[str]]:
    """Measures the tasks. The tasks of one id, mode and N (the rows a ratio
    compares) are measured together: each is built and calibrated, then
    their repeats are interleaved (one repeat of each in turn), so that a
    machine that gets slower or faster during the run moves them alike."""
    results: list[Result] = []
    skips: dict[str, str] = {}
    width = len(str(len(tasks)))
    numbered = list(enumerate(tasks, 1))

    def label(task: Task) -> str:
        return (f"{task.env_id} {task.mode}" + (f" N={task.num_envs}" if task.mode == "vector"
                                                else "") + f" {task.impl}"
                + (f" t={task.threads}" if task.threads > 1 else ""))

    def use_clock(task: Task) -> None:
        set_clock(args.clock == "cpu" and task.threads == 1)

    for _, group in itertools.groupby(numbered, key=lambda it: (it[1].env_id, it[1].mode,
                                                                it[1].num_envs)):
        live = []
        try:
            for i, task in group:
                if task.impl in skips:
                    continue
                use_clock(task)
                try:
                    run, work, close = task.factory()
                    try:
                        calls = calibrate(run, args.budget, args.repeats)
                    except BaseException:
                        close()
                        raise
                except Exception as e:
                    # Optional peers are untested against every version: a
                    # failure skips that peer instead of losing the whole run.
                    if not isinstance(e, Skip) and task.impl not in PEERS:
                        raise
                    skips[task.impl] = (str(e) if isinstance(e, Skip)
                                        else f"{type(e).__name__}: {e}")
                    log(f"[{i:{width}}/{len(tasks)}] {label(task)}: skipped "
                        f"({skips[task.impl]})")
                    continue
                live.append((i, task, run, work, close, calls, []))
            for _ in range(args.repeats):
                for _, task, run, _, _, calls, samples in live:
                    use_clock(task)
                    samples.append(run(calls))
        finally:
            for entry in live:
                entry[4]()
        for i, task, _, work, _, calls, samples in live:
            rate, per_call = summarize(samples, calls, work)
            results.append(Result(task.env_id, task.mode, task.num_envs, task.impl,
                                  task.threads, rate,
                                  per_call * 1e6 if task.impl != CEILING
                                  else per_call * 1e6 * task.num_envs / work,
                                  calls, args.repeats))
            log(f"[{i:{width}}/{len(tasks)}] {label(task)}: {rate:.3g} steps/s")
    set_clock(False)
    notes = [f"{impl} skipped: {why}" for impl, why in skips.items()]
    return results, notes


def add_ratios(results: list[Result]) -> None:
    """vs_gym: against Gymnasium's reference for the row (the raw class or
    gym.make for single envs; CartPoleVectorEnv, else SyncVectorEnv, at the
    same N for vector envs). vs_ceiling: against the ceiling at the same N
    and threads."""
    by_key = {(r.env_id, r.mode, r.num_envs, r.impl, r.threads): r for r in results}
    for r in results:
        ref = None
        if r.mode == "single":
            ref = by_key.get((r.env_id, "single", 1, SINGLE_REFS.get(r.impl, r.impl), 1))
            name = ref.impl if ref else None
        else:
            for impl in (GYM_NUMPY, GYM_SYNC):
                ref = by_key.get((r.env_id, "vector", r.num_envs, impl, 1))
                if ref:
                    name = impl
                    break
            if ref is None:
                sync = [x for x in results if x.env_id == r.env_id and x.impl == GYM_SYNC]
                if sync:
                    ref = max(sync, key=lambda x: x.num_envs)
                    name = f"~{GYM_SYNC} N={ref.num_envs}"
        if ref is not None:
            r.vs_gym = r.steps_per_s / ref.steps_per_s
            r.gym_ref = name
        ceil = by_key.get((r.env_id, r.mode, r.num_envs, CEILING, r.threads))
        if ceil is not None and r.mode == "vector":
            r.vs_ceiling = r.steps_per_s / ceil.steps_per_s


# ------------------------------------------------------------ reset, memory
def bench_reset(env_ids: list[str], n: int, repeats: int,
                log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Seconds for reset(seed=s) of an N-instance vector env (median over seeds)."""
    import gymnasium as gym

    import ccgym

    out = []
    for env_id in env_ids:
        impls: list[tuple[str, Callable[[], Any]]] = [
            (CC_VEC, lambda: ccgym.make_vec(env_id, num_envs=n))]
        if env_id.startswith("CartPole"):
            impls.append((GYM_NUMPY, lambda: gym.make_vec(
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


def _memory_child(n: int) -> None:
    """Runs in a subprocess: peak memory of an n-instance CartPole vector env."""
    import gc
    import resource
    import tracemalloc

    import ccgym

    warm = ccgym.make_vec("CartPole-v1", num_envs=8)  # imports and caches, not counted
    warm.reset(seed=0)
    warm.step(warm.action_space.sample())
    warm.close()
    del warm
    gc.collect()
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as f:
        rss_before = int(f.read().split()[1]) * page
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tracemalloc.start()
    t0 = time.perf_counter()
    envs = ccgym.make_vec("CartPole-v1", num_envs=n)
    t_make = time.perf_counter() - t0
    envs.reset(seed=0)
    actions = np.zeros(n, dtype=np.int64)  # the caller's; counted below
    for _ in range(3):
        envs.step(actions)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    core = envs._core
    names = ["state_buffer", "rng_state", "params_buffer", "obs", "final_obs", "reward",
             "terminated", "truncated", "final_return", "final_length", "episode_return",
             "episode_start", "pending_reset"]
    buffers = {name: int(getattr(core, name).nbytes) for name in names}
    buffers["_episode_start_times"] = int(envs._episode_start_times.nbytes)
    spaces = 0
    for space in (envs.observation_space, envs.action_space):
        for value in vars(space).values():
            if isinstance(value, np.ndarray):
                spaces += int(value.nbytes)
    total = sum(buffers.values())
    print(json.dumps({
        "num_envs": n,
        "state_buffers_bytes": total,
        "buffers": buffers,
        "spaces_bytes": spaces,
        "actions_bytes": int(actions.nbytes),
        "rss_before_bytes": rss_before,
        "peak_rss_before_bytes": peak_before,
        "peak_rss_bytes": peak,
        "peak_increase_bytes": peak - max(rss_before, 0),
        "ratio_rss": (peak - rss_before) / total,
        "tracemalloc_peak_bytes": traced_peak,
        "ratio_tracemalloc": traced_peak / total,
        "make_seconds": t_make,
    }))


def bench_memory(n: int, log: Callable[[str], None]) -> dict[str, Any]:
    code = f"from ccgym.bench import _memory_child; _memory_child({int(n)})"
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


# ---------------------------------------------------- small-N breakdown
def bench_breakdown(env_id: str, budget: float, repeats: int,
                    log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Per-call cost of each layer of a 1-instance ccgym vector env step."""
    import ccgym

    envs = ccgym.make_vec(env_id, num_envs=1)
    envs.reset(seed=0)
    core = envs._core
    actions = [core.check_actions(a) for a in _draw(envs.action_space)]
    envs_nocopy = ccgym.make_vec(env_id, num_envs=1, copy=False)
    envs_nocopy.reset(seed=0)
    layers: list[tuple[str, Callable[[int], float]]] = [
        ("Batch.step, copy=False (driver + kernel + Cython call + action check)",
         _cycle_loop(envs_nocopy._core.step, actions)),
        ("Batch.step, copy=True (+ handing out own arrays)", _cycle_loop(core.step, actions)),
        ("VectorEnv.step, copy=False (+ Python method, infos dict)",
         _cycle_loop(envs_nocopy.step, actions)),
        ("VectorEnv.step (default, copy=True)", _cycle_loop(envs.step, actions)),
    ]
    loop_only = _cycle_loop(lambda a: None, actions)
    out = []
    _, base, _ = measure(loop_only, 1, budget, repeats)
    out.append({"layer": "empty Python loop + call of a lambda", "us_per_call": base * 1e6})
    for name, run in layers:
        _, per_call, _ = measure(run, 1, budget, repeats)
        out.append({"layer": name, "us_per_call": per_call * 1e6})
    if importlib.util.find_spec("ccgym._ceiling") is not None:
        rate, _, _ = measure(ceiling_factory(env_id, 1, 1)()[0], CEILING_STEPS, budget,
                             repeats)
        out.append({"layer": "ceiling: one step of the physics in C", "us_per_call": 1e6 / rate})
    envs.close()
    envs_nocopy.close()
    for row in out:
        log(f"breakdown {env_id} N=1: {row['layer']}: {row['us_per_call']:.3f} us")
    return out


# ------------------------------------------------------------------ targets
def check_targets(results: list[Result], resets: list[dict[str, Any]],
                  memory: dict[str, Any] | None, clock: str = "wall") -> list[dict[str, Any]]:
    """The issue's targets, each with the measured value (None when not
    measured; the threads target needs wall time for both rows)."""
    get = {(r.env_id, r.mode, r.num_envs, r.impl, r.threads): r for r in results}
    out: list[dict[str, Any]] = []

    def add(name: str, value: float | None, target: float, higher: bool = True) -> None:
        ok = None if value is None else (value >= target if higher else value <= target)
        out.append({"target": name, "value": value, "goal": target,
                    "higher_is_better": higher, "met": ok})

    big = max((r.num_envs for r in results if r.mode == "vector"), default=None)
    ids = list(dict.fromkeys(r.env_id for r in results))
    for env_id in ids:
        vec = get.get((env_id, "vector", big, CC_VEC, 1))
        if env_id == "CartPole-v1":
            ref = get.get((env_id, "vector", big, GYM_NUMPY, 1))
            add(f"CartPole-v1 N={big} vs {GYM_NUMPY}",
                vec.steps_per_s / ref.steps_per_s if vec and ref else None,
                TARGET_CARTPOLE_VS_NUMPY)
            one = get.get((env_id, "vector", 1, CC_VEC, 1))
            ref1 = get.get((env_id, "vector", 1, GYM_NUMPY, 1))
            add(f"CartPole-v1 N=1 vs {GYM_NUMPY} N=1",
                one.steps_per_s / ref1.steps_per_s if one and ref1 else None,
                TARGET_N1_VS_NUMPY)
            add("CartPole-v1 N=1 us per step() call", one.us_per_call if one else None,
                1.0, higher=False)
            fast = get.get((env_id, "vector", big, CC_FAST, 1))
            add(f"CartPole-v1 N={big} fast vs {GYM_NUMPY}",
                fast.steps_per_s / ref.steps_per_s if fast and ref else None,
                TARGET_FAST_VS_NUMPY)
        add(f"{env_id} N={big} vs ceiling", vec.vs_ceiling if vec else None, TARGET_VS_CEILING)
        raw, make = get.get((env_id, "single", 1, CC_RAW, 1)), get.get((env_id, "single", 1,
                                                                       CC_MAKE, 1))
        add(f"{env_id} single raw vs {GYM_RAW}", raw.vs_gym if raw else None, TARGET_SINGLE_RAW)
        add(f"{env_id} single make vs {GYM_MAKE}", make.vs_gym if make else None,
            TARGET_SINGLE_MAKE)
        two = get.get((env_id, "vector", big, CC_VEC, 2)) if clock == "wall" else None
        add(f"{env_id} N={big} 2 threads vs 1",
            two.steps_per_s / vec.steps_per_s if two and vec else None, TARGET_TWO_THREADS)
    for r in resets:
        if r["impl"] == CC_VEC:
            add(f"{r['env_id']} reset(seed=s) N={r['num_envs']} seconds", r["seconds"],
                TARGET_RESET_SECONDS, higher=False)
    if memory and "ratio_rss" in memory:
        add(f"CartPole N={memory['num_envs']} peak RSS / state+buffers", memory["ratio_rss"],
            TARGET_MEMORY_RATIO, higher=False)
    return out


# ----------------------------------------------------------------- printing
def _fmt_rate(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:7.2f}{unit}"
    return f"{x:7.1f} "


def _fmt_ratio(x: float | None) -> str:
    return "" if x is None else f"{x:8.2f}x"


def format_table(results: list[Result]) -> str:
    lines = []
    header = (f"{'N':>7}  {'implementation':<22}{'thr':>4} {'steps/s':>9} {'us/call':>10} "
              f"{'vs gym':>9}  {'gym reference':<26}{'vs ceiling':>10}")
    for env_id in dict.fromkeys(r.env_id for r in results):
        lines.append(f"== {env_id} ==")
        lines.append(header)
        for r in (r for r in results if r.env_id == env_id):
            n = "single" if r.mode == "single" else str(r.num_envs)
            ref = "" if r.gym_ref is None or r.gym_ref == r.impl else r.gym_ref
            lines.append(
                f"{n:>7}  {r.impl:<22}{r.threads:>4} {_fmt_rate(r.steps_per_s):>9} "
                f"{r.us_per_call:10.3f} {_fmt_ratio(r.vs_gym):>9}  {ref:<26}"
                f"{_fmt_ratio(r.vs_ceiling):>10}")
        lines.append("")
    return "\n".join(lines)


def format_targets(targets: list[dict[str, Any]], clock: str = "wall") -> str:
    lines = [f"== issue 5 targets ({clock} clock; only meaningful on a quiet machine) =="]
    for t in targets:
        v = t["value"]
        mark = {True: "met", False: "NOT MET", None: "not measured"}[t["met"]]
        op = ">=" if t["higher_is_better"] else "<="
        shown = "-" if v is None else f"{v:.3g}"
        lines.append(f"  {t['target']:<52} {shown:>9}  (goal {op} {t['goal']:g})  {mark}")
    return "\n".join(lines)


def plot(results: list[Result], path: str) -> str | None:
    """Bar chart of steps/s (log scale): per id, one bar group per
    implementation, one bar per N. Returns an error message or None."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("--plot needs matplotlib, which is not installed: "
                "pip install matplotlib (or ccgym[bench])")
    vec = [r for r in results if r.mode == "vector"]
    ids = list(dict.fromkeys(r.env_id for r in vec))
    if not ids:
        return "--plot: no vector results to plot"
    ns = sorted({r.num_envs for r in vec})
    fig, axes = plt.subplots(len(ids), 1, figsize=(11, 3.2 * len(ids)), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, env_id in zip(axes[:, 0], ids):
        rows = [r for r in vec if r.env_id == env_id]
        impls = list(dict.fromkeys(f"{r.impl}" + (f" t={r.threads}" if r.threads > 1 else "")
                                   for r in rows))
        width = 0.8 / len(ns)
        for j, n in enumerate(ns):
            xs, ys = [], []
            for g, impl in enumerate(impls):
                for r in rows:
                    label = r.impl + (f" t={r.threads}" if r.threads > 1 else "")
                    if label == impl and r.num_envs == n:
                        xs.append(g + (j - (len(ns) - 1) / 2) * width)
                        ys.append(r.steps_per_s)
            ax.bar(xs, ys, width=width, color=cmap(j / max(1, len(ns) - 1)), label=f"N={n}")
        ax.set_yscale("log")
        ax.set_xticks(range(len(impls)))
        ax.set_xticklabels(impls, rotation=15, fontsize=8)
        ax.set_ylabel("env-steps/s")
        ax.set_title(env_id)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=len(ns))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


# ---------------------------------------------------------------------- CLI
def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas: {text!r}")
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers: {text!r}")
    return values


def _id_list(text: str) -> list[str]:
    import ccgym

    ids = []
    for x in (x.strip() for x in text.split(",") if x.strip()):
        x = x[len("ccgym/"):] if x.startswith("ccgym/") else x
        if x not in ccgym.ENV_SPECS:
            raise argparse.ArgumentTypeError(
                f"unknown id {x!r}; choose from {', '.join(ccgym.ENV_IDS)}")
        ids.append(x)
    return ids


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Registers ``ccgym bench`` on the CLI's subparsers."""
    p = subparsers.add_parser(
        "bench", help="env-steps/s of ccgym against Gymnasium (and peers)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ids", type=_id_list, default=None,
                   help="comma-separated env ids (default: all six)")
    p.add_argument("--num-envs", type=_int_list, default=None,
                   help="comma-separated vector sizes N (default 1,64,1024,16384; "
                        "--quick: 1,1024)")
    p.add_argument("--threads", type=_int_list, default=None,
                   help="comma-separated thread counts for ccgym (default 1,2; --quick: 1)")
    p.add_argument("--repeats", type=int, default=None,
                   help="timed repeats per measurement; the median is reported (default 7)")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of timed repeats per measurement (default 0.5)")
    p.add_argument("--quick", action="store_true",
                   help="a short run: N=1,1024, one thread, 3 repeats, small budget, "
                        "memory at 100,000 instances")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall time (default), or the thread's CPU time for 1-thread rows: "
                        "steadier on a busy machine, but not what a user waits for")
    p.add_argument("--ceiling", action="store_true",
                   help="also run the reference ceiling (C loop of the exact physics)")
    p.add_argument("--breakdown", action="store_true",
                   help="also time each layer of a 1-instance CartPole step")
    p.add_argument("--no-peers", dest="peers", action="store_false",
                   help="skip SB3 / EnvPool / gymnax even when installed")
    p.add_argument("--no-single", action="store_true", help="skip the single-env rows")
    p.add_argument("--no-copy-false", action="store_true",
                   help="skip the ccgym copy=False rows")
    p.add_argument("--no-fast", dest="fast", action="store_false",
                   help='skip the precision="fast" rows')
    p.add_argument("--no-reset", action="store_true", help="skip the reset(seed=s) timing")
    p.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    p.add_argument("--reset-envs", type=int, default=RESET_NUM_ENVS,
                   help=f"N for the reset(seed=s) timing (default {RESET_NUM_ENVS})")
    p.add_argument("--memory-envs", type=int, default=None,
                   help=f"N for the memory measurement (default {MEMORY_NUM_ENVS:,}; "
                        "--quick: 100,000)")
    p.add_argument("--json", metavar="PATH", help="write all results as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a bar chart (needs matplotlib)")
    p.set_defaults(func=main)
    return p


def _resolve(args: argparse.Namespace) -> None:
    import ccgym

    quick = args.quick
    if args.ids is None:
        args.ids = list(ccgym.ENV_IDS)
    if args.num_envs is None:
        args.num_envs = list(QUICK_NUM_ENVS if quick else DEFAULT_NUM_ENVS)
    if args.threads is None:
        args.threads = [1] if quick else [1, 2]
    if 1 not in args.threads:
        args.threads = [1] + args.threads
    if args.repeats is None:
        args.repeats = 3 if quick else 7
    if args.budget is None:
        args.budget = 0.06 if quick else 0.5
    if args.memory_envs is None:
        args.memory_envs = 100_000 if quick else MEMORY_NUM_ENVS
    if args.repeats < 1 or args.budget <= 0:
        raise SystemExit("ccgym bench: --repeats must be >= 1 and --budget > 0")


def main(args: argparse.Namespace) -> int:
    """Runs the benchmark described by the parsed arguments; prints the table."""
    import gymnasium as gym

    import ccgym
    from ccgym import _core

    _resolve(args)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if args.plot:  # fail before the run, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("ccgym bench: --plot needs matplotlib, which is not installed: "
                  "pip install matplotlib (or ccgym[bench])", file=sys.stderr)
            return 2
    t_start = time.perf_counter()
    tasks, notes = plan(args)
    log(f"ccgym bench: {len(tasks)} measurements, ~{args.budget:g} s each")
    results, skip_notes = run_tasks(tasks, args, log)
    notes += skip_notes
    add_ratios(results)
    resets = [] if args.no_reset else bench_reset(args.ids, args.reset_envs, args.repeats, log)
    memory = None if args.no_memory else bench_memory(args.memory_envs, log)
    set_clock(args.clock == "cpu")
    breakdown = (bench_breakdown("CartPole-v1", args.budget, args.repeats, log)
                 if args.breakdown else [])
    set_clock(False)
    targets = check_targets(results, resets, memory, args.clock)
    elapsed = time.perf_counter() - t_start

    print(f"ccgym {ccgym.__version__} vs gymnasium {gym.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs; median of {args.repeats} repeats, "
          f"{args.budget:g} s per measurement, {args.clock} clock"
          + (" (threads > 1 rows: wall)" if args.clock == "cpu" else "")
          + f"; fast kernels: {_core.fast_isa()}")
    print("steps/s = env-steps per second (N per vector step() call); vs gym = this row / "
          "the Gymnasium reference; vs ceiling = this row / the C ceiling at the same N and "
          "threads\n")
    print(format_table(results))
    if resets:
        print("== reset(seed=s) ==")
        for r in resets:
            print(f"  {r['env_id']:<26} N={r['num_envs']:<7} {r['impl']:<22} "
                  f"{r['seconds'] * 1e3:9.2f} ms")
        print()
    if memory:
        print("== memory ==")
        if "error" in memory:
            print(f"  failed: {memory['error']}")
        else:
            mib = 2.0**20
            print(f"  CartPole-v1 vector env, N={memory['num_envs']:,}: state+buffers "
                  f"{memory['state_buffers_bytes'] / mib:.1f} MiB; peak RSS increase "
                  f"{memory['peak_increase_bytes'] / mib:.1f} MiB (x{memory['ratio_rss']:.2f}); "
                  f"tracemalloc peak {memory['tracemalloc_peak_bytes'] / mib:.1f} MiB "
                  f"(x{memory['ratio_tracemalloc']:.2f}); spaces' arrays "
                  f"{memory['spaces_bytes'] / mib:.1f} MiB; actions "
                  f"{memory['actions_bytes'] / mib:.1f} MiB")
        print()
    if breakdown:
        print("== CartPole-v1 N=1 step, layer by layer (us per call) ==")
        for row in breakdown:
            print(f"  {row['us_per_call']:8.3f}  {row['layer']}")
        print()
    print(format_targets(targets, args.clock))
    for note in notes:
        print(f"note: {note}")
    print(f"\n(total {elapsed:.0f} s)")

    if args.json:
        payload = {
            "meta": {
                "ccgym": ccgym.__version__, "gymnasium": gym.__version__,
                "numpy": np.__version__, "python": platform.python_version(),
                "machine": platform.machine(), "platform": platform.platform(),
                "cpus": os.cpu_count(), "repeats": args.repeats, "budget_s": args.budget,
                "ids": args.ids, "num_envs": args.num_envs, "threads": args.threads,
                "quick": args.quick, "ceiling": args.ceiling, "clock": args.clock, "elapsed_s": elapsed,
                "fast_isa": _core.fast_isa(),
            },
            "results": [dataclasses.asdict(r) for r in results],
            "reset": resets,
            "memory": memory,
            "breakdown": breakdown,
            "targets": targets,
            "notes": notes,
        }
        with open(args.json, "w") as f:
            json.dump(payload, f, indent=1, default=_json_default)
        log(f"wrote {args.json}")
    if args.plot:
        err = plot(results, args.plot)
        if err:
            print(f"ccgym bench: {err}", file=sys.stderr)
            return 2
        log(f"wrote {args.plot}")
    return 0


def _json_default(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x) if math.isfinite(x) else None
    raise TypeError(f"not JSON serialisable: {type(x)}")
