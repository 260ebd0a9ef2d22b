"""Timing: the clock, calibration, and the interleaved repeats of the rows
that one ratio compares."""

from __future__ import annotations

import dataclasses
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

ACTION_BATCHES = 16      # pre-drawn action batches, cycled through

# The clock of the Python-side loops: wall time, or (``--clock cpu``) the
# calling thread's CPU time for single-threaded rows, steadier on a busy
# machine because time spent descheduled does not count.
_timer: Callable[[], float] = time.perf_counter
_cpu_clock = False


def set_clock(cpu: bool) -> None:
    """Times the following measurements by thread CPU time (True) or wall time."""
    global _timer, _cpu_clock
    _timer = time.thread_time if cpu else time.perf_counter
    _cpu_clock = cpu


def timer() -> Callable[[], float]:
    """The clock that loops read now (see :func:`set_clock`)."""
    return _timer


def cpu_clock() -> bool:
    """Whether :func:`set_clock` selected thread CPU time."""
    return _cpu_clock


class Skip(Exception):
    """An implementation that cannot run here (missing package, unsupported id).

    With ``env_id``, only that id cannot run (a peer that lacks it): the
    implementation's other ids are still measured."""

    def __init__(self, message: str, *, env_id: str | None = None) -> None:
        super().__init__(message)
        self.env_id = env_id


# Each factory builds one implementation and returns (run, work_per_call,
# close): run(k) makes k calls and returns the seconds they took.
Run = Callable[[int], float]
Factory = Callable[[], tuple[Run, int, Callable[[], None]]]


@dataclasses.dataclass
class Task:
    """One row to measure: an implementation of an id at one N and thread count."""

    env_id: str
    mode: str            # "single" or "vector"
    num_envs: int
    impl: str
    threads: int
    factory: Factory

    def label(self) -> str:
        n = f" N={self.num_envs}" if self.mode == "vector" else ""
        t = f" t={self.threads}" if self.threads > 1 else ""
        return f"{self.env_id} {self.mode}{n} {self.impl}{t}"


@dataclasses.dataclass
class Result:
    """One measured row: env-steps per second of one implementation."""

    env_id: str
    mode: str            # "single" or "vector"
    num_envs: int        # 1 for single envs
    impl: str
    threads: int
    steps_per_s: float
    us_per_call: float   # one step() call (N env-steps); C loop time per step for the ceiling
    calls: int           # calls per repeat
    repeats: int
    vs_gym: float | None = None      # steps_per_s / gym_ref's, same env_id, mode and N
    gym_ref: str | None = None
    vs_ceiling: float | None = None  # steps_per_s / the ceiling's, same N and threads
    spread: float = 1.0  # slowest repeat / fastest: how steady the machine was


# ----------------------------------------------------------------- measuring
def calibrate(run: Run, budget: float, repeats: int) -> int:
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


def measure(run: Run, work_per_call: int, budget: float,
            repeats: int) -> tuple[float, float, int]:
    """Median env-steps/s of `run(k)` (k calls, returns seconds), the median
    seconds per call, and calls per repeat. Warms up, calibrates k so that
    `repeats` repeats fill `budget` seconds, then times the repeats."""
    calls = calibrate(run, budget, repeats)
    samples = [run(calls) for _ in range(repeats)]
    rate, per_call = summarize(samples, calls, work_per_call)
    return rate, per_call, calls


def cycle_loop(step: Callable[[Any], Any], actions: list) -> Run:
    """run(k): k calls of `step`, cycling through the pre-drawn actions."""
    m = len(actions)

    def run(k: int) -> float:
        clock = _timer
        t0 = clock()
        for i in range(k):
            step(actions[i % m])
        return clock() - t0

    return run


def single_loop(env: Any, actions: list) -> Run:
    """Steps one env, resetting when an episode ends (the cost a training loop pays)."""
    step, reset, m = env.step, env.reset, len(actions)
    env.reset(seed=0)

    def run(k: int) -> float:
        clock = _timer
        t0 = clock()
        for i in range(k):
            _, _, terminated, truncated, _ = step(actions[i % m])
            if terminated or truncated:
                reset()
        return clock() - t0

    return run


def draw_actions(space: Any, seed: int = 0) -> list:
    """ACTION_BATCHES samples of `space`, drawn before any clock starts."""
    space.seed(seed)
    return [space.sample() for _ in range(ACTION_BATCHES)]


# ------------------------------------------------------------------ running
class Progress:
    """``[k/total] text`` lines, k counting every finished or skipped task
    once, in the order they finish, so that the last line reads total/total."""

    def __init__(self, total: int, log: Callable[[str], None]) -> None:
        self.total, self.done, self.log = total, 0, log
        self._width = len(str(total))

    def __call__(self, text: str) -> None:
        self.done += 1
        self.log(f"[{self.done:{self._width}}/{self.total}] {text}")


def run_tasks(tasks: list[Task], budget: float, repeats: int, log: Callable[[str], None],
              cpu: bool = False, tolerate: tuple[str, ...] = ()) -> tuple[list[Result], list[str]]:
    """Measures the tasks; returns the results and notes on what was skipped.

    The tasks of one id, mode and N (the rows a ratio compares) are measured
    together: each is built and calibrated, then their repeats are
    interleaved (one repeat of each in turn), so that a machine that gets
    slower or faster during the run moves them alike. A task raising
    :class:`Skip`, or any exception for impls in `tolerate` (optional peers,
    untested against every version), is skipped with a note, and so are the
    later tasks of that impl. With `cpu`, 1-thread rows are timed by thread
    CPU time."""
    results: list[Result] = []
    skips: dict[str, str] = {}
    progress = Progress(len(tasks), log)

    def use_clock(task: Task) -> None:
        set_clock(cpu and task.threads == 1)

    try:
        for _, group in itertools.groupby(tasks, key=lambda t: (t.env_id, t.mode, t.num_envs)):
            live = []
            try:
                for task in group:
                    if task.impl in skips or (task.impl, task.env_id) in skips:
                        progress(f"{task.label()}: skipped ({task.impl}: see above)")
                        continue
                    use_clock(task)
                    try:
                        run, work, close = task.factory()
                        try:
                            calls = calibrate(run, budget, repeats)
                        except BaseException:
                            close()
                            raise
                    except Exception as e:
                        if not isinstance(e, Skip) and task.impl not in tolerate:
                            raise
                        # An id the impl lacks skips that id only, else the impl.
                        key: str | tuple[str, str] = (
                            (task.impl, task.env_id) if getattr(e, "env_id", None) else task.impl)
                        skips[key] = (str(e) if isinstance(e, Skip)
                                      else f"{type(e).__name__}: {e}")
                        progress(f"{task.label()}: skipped ({skips[key]})")
                        continue
                    live.append((task, run, work, close, calls, []))
                for _ in range(repeats):
                    for task, run, _, _, calls, samples in live:
                        use_clock(task)
                        samples.append(run(calls))
            finally:
                for entry in live:
                    entry[3]()
            for task, _, work, _, calls, samples in live:
                rate, per_call = summarize(samples, calls, work)
                # Per step of all N: one call of the ceiling is several steps.
                us = per_call * 1e6 * task.num_envs / work
                fastest = min(samples)
                spread = max(samples) / fastest if fastest > 0 else float("inf")
                results.append(Result(task.env_id, task.mode, task.num_envs, task.impl,
                                      task.threads, rate, us, calls, repeats, spread=spread))
                progress(f"{task.label()}: {rate:.3g} steps/s")
    finally:
        set_clock(False)
    notes = [f"{key} skipped: {why}" if isinstance(key, str)
             else f"{key[0]} skipped for {key[1]}: {why}" for key, why in skips.items()]
    return results, notes
