"""Ratios between measured rows, the performance goals, and the printed
and JSON reports of ``ccgym bench``."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np

from ccgym.benchmarks import peers as P
from ccgym.benchmarks.harness import Result

# What each ratio compares (printed above the tables and kept in the JSON).
RATIO_DEFINITIONS = {
    "vs_gym": "this row's steps/s / those of the Gymnasium row named in gym_ref, at the same "
              "id and N: the raw class or gymnasium.make for single envs, "
              f"{P.GYM_NUMPY} (CartPole) else {P.GYM_SYNC} for vector envs",
    "vs_ceiling": "a ccgym row's steps/s / those of the ceiling (the bare C loop of the same "
                  "physics) at the same id, N and thread count",
}

# A row whose slowest repeat took this much longer than its fastest is
# marked as measured on a busy machine.
NOISY_SPREAD = 1.3

# The performance goals ccgym aims for (shown with --targets): minimum
# ratios, and the largest us per call, seconds and memory ratio.
GOAL_CARTPOLE_VS_NUMPY = 1.6
GOAL_FAST_VS_NUMPY = 5.0
GOAL_VS_CEILING = 0.9
GOAL_N1_VS_NUMPY = 40.0
GOAL_N1_US_PER_CALL = 1.0
GOAL_SINGLE_RAW = 5.0
GOAL_SINGLE_MAKE = 2.0
GOAL_TWO_THREADS = 1.8
GOAL_RESET_SECONDS = 0.1
GOAL_MEMORY_RATIO = 2.0


def add_ratios(results: list[Result]) -> None:
    """Fills each result's vs_gym and gym_ref, and vs_ceiling (see
    RATIO_DEFINITIONS). Rows are only compared at the same N: a row with no
    Gymnasium row at its N keeps vs_gym None."""
    by_key = {(r.env_id, r.mode, r.num_envs, r.impl, r.threads): r for r in results}
    for r in results:
        ref = None
        if r.mode == "single":
            ref = by_key.get((r.env_id, "single", 1, P.SINGLE_REFS.get(r.impl, r.impl), 1))
        else:
            for impl in (P.GYM_NUMPY, P.GYM_SYNC):
                ref = by_key.get((r.env_id, "vector", r.num_envs, impl, 1))
                if ref:
                    break
        if ref is not None:
            r.vs_gym = r.steps_per_s / ref.steps_per_s
            r.gym_ref = ref.impl
        ceil = by_key.get((r.env_id, r.mode, r.num_envs, P.CEILING, r.threads))
        if ceil is not None and (r.impl.startswith("ccgym") or r.impl == P.CEILING):
            r.vs_ceiling = r.steps_per_s / ceil.steps_per_s


def check_goals(results: list[Result], resets: list[dict[str, Any]],
                memory: dict[str, Any] | None, clock: str = "wall") -> list[dict[str, Any]]:
    """ccgym's performance goals, each with the measured value (None when
    its rows were not measured, with what would measure them in "needs")."""
    get = {(r.env_id, r.mode, r.num_envs, r.impl, r.threads): r for r in results}
    out: list[dict[str, Any]] = []

    def ratio(a: Result | None, b: Result | None) -> float | None:
        return a.steps_per_s / b.steps_per_s if a and b else None

    def add(name: str, value: float | None, goal: float, higher: bool = True,
            needs: str | None = None) -> None:
        ok = None if value is None else (value >= goal if higher else value <= goal)
        out.append({"target": name, "value": value, "goal": goal,
                    "higher_is_better": higher, "met": ok,
                    "needs": needs if value is None else None})

    big = max((r.num_envs for r in results if r.mode == "vector"), default=None)
    for env_id in dict.fromkeys(r.env_id for r in results):
        if big is not None:
            vec = get.get((env_id, "vector", big, P.CC_VEC, 1))
            if env_id == P.SUBJECT:
                ref = get.get((env_id, "vector", big, P.GYM_NUMPY, 1))
                add(f"{env_id} N={big}: ccgym / {P.GYM_NUMPY}", ratio(vec, ref),
                    GOAL_CARTPOLE_VS_NUMPY)
                one = get.get((env_id, "vector", 1, P.CC_VEC, 1))
                ref1 = get.get((env_id, "vector", 1, P.GYM_NUMPY, 1))
                add(f"{env_id} N=1: ccgym / {P.GYM_NUMPY}", ratio(one, ref1),
                    GOAL_N1_VS_NUMPY, needs="N=1 in --num-envs")
                add(f"{env_id} N=1: us per ccgym step() call",
                    one.us_per_call if one else None, GOAL_N1_US_PER_CALL, higher=False,
                    needs="N=1 in --num-envs")
                fast = get.get((env_id, "vector", big, P.CC_FAST, 1))
                add(f"{env_id} N={big}: ccgym fast / {P.GYM_NUMPY}", ratio(fast, ref),
                    GOAL_FAST_VS_NUMPY, needs="the fast rows (no --no-fast)")
            add(f"{env_id} N={big}: ccgym / ceiling", vec.vs_ceiling if vec else None,
                GOAL_VS_CEILING, needs="--ceiling")
        raw = get.get((env_id, "single", 1, P.CC_RAW, 1))
        make = get.get((env_id, "single", 1, P.CC_MAKE, 1))
        add(f"{env_id} single env: {P.CC_RAW} / {P.GYM_RAW}", raw.vs_gym if raw else None,
            GOAL_SINGLE_RAW, needs="the single-env rows")
        add(f"{env_id} single env: {P.CC_MAKE} / {P.GYM_MAKE}", make.vs_gym if make else None,
            GOAL_SINGLE_MAKE, needs="the single-env rows")
        if big is not None:
            two = get.get((env_id, "vector", big, P.CC_VEC, 2)) if clock == "wall" else None
            add(f"{env_id} N={big}: ccgym 2 threads / 1 thread", ratio(two, vec),
                GOAL_TWO_THREADS,
                needs="2 in --threads, N >= 4096 and the wall clock")
    for r in resets:
        if r["impl"] == P.CC_VEC:
            add(f"{r['env_id']} reset(seed=s) N={r['num_envs']}: seconds", r["seconds"],
                GOAL_RESET_SECONDS, higher=False)
    if memory and "ratio_rss" in memory:
        add(f"{P.SUBJECT} N={memory['num_envs']}: peak RSS / state+buffers",
            memory["ratio_rss"], GOAL_MEMORY_RATIO, higher=False)
    return out


# ----------------------------------------------------------------- printing
def _fmt_rate(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f}{unit}"
    return f"{x:.1f}"


def _fmt_ratio(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}x"


def legend(results: list[Result]) -> str:
    """What the table's columns mean, for the columns it has."""
    lines = ["steps/s: env-steps per second (one vector step() call is N env-steps); "
             "us/call: microseconds per step() call (the ceiling: per step of all N)."]
    if any(r.vs_gym is not None for r in results):
        lines.append("vs gym: this row's steps/s / those of the Gymnasium row named in the "
                     "next column, at the same N.")
    if any(r.vs_ceiling is not None for r in results):
        lines.append("vs ceiling: a ccgym row's steps/s / those of the ceiling (a bare C "
                     "loop of the same physics) at the same N and threads.")
    return "\n".join(lines)


def noisy_note(results: list[Result]) -> str | None:
    """A note when some rows' repeats disagree (they are marked * in the table)."""
    noisy = [r for r in results if r.spread > NOISY_SPREAD]
    if not noisy:
        return None
    return (f"{len(noisy)} of {len(results)} rows (marked *) had repeats differing by more "
            f"than {NOISY_SPREAD - 1:.0%}: the machine was busy; their ratios are rough. "
            "Rerun on an idle machine, or with more --repeats and --budget, or --clock cpu")


def format_table(results: list[Result]) -> str:
    """One table per id; the ratio columns only when some row has that ratio."""
    with_gym = any(r.vs_gym is not None for r in results)
    with_ceiling = any(r.vs_ceiling is not None for r in results)
    head = ["N", "implementation", "thr", "steps/s ", "us/call"]
    if with_gym:
        head += ["vs gym", "gym row (same N)"]
    if with_ceiling:
        head += ["vs ceiling"]
    right = {"N", "thr", "steps/s ", "us/call", "vs gym", "vs ceiling"}
    lines: list[str] = []
    for env_id in dict.fromkeys(r.env_id for r in results):
        rows = []
        for r in (r for r in results if r.env_id == env_id):
            cells = ["single" if r.mode == "single" else str(r.num_envs), r.impl,
                     str(r.threads),
                     _fmt_rate(r.steps_per_s) + ("*" if r.spread > NOISY_SPREAD else " "),
                     f"{r.us_per_call:.3f}"]
            if with_gym:
                is_ref = r.gym_ref == r.impl
                cells += ["" if is_ref else _fmt_ratio(r.vs_gym),
                          "(reference)" if is_ref else (r.gym_ref or "-")]
            if with_ceiling:
                cells += ["" if r.impl == P.CEILING else _fmt_ratio(r.vs_ceiling)]
            rows.append(cells)
        widths = [max(len(h), *(len(c[i]) for c in rows)) for i, h in enumerate(head)]

        def line(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) if h in right else c.ljust(w)
                             for c, w, h in zip(cells, widths, head)).rstrip()

        lines += [f"== {env_id} ==", line(head)] + [line(c) for c in rows] + [""]
    return "\n".join(lines)


def format_goals(goals: list[dict[str, Any]], clock: str = "wall") -> str:
    lines = [f"== goals ({clock} clock; a busy machine measures below them) =="]
    width = max((len(g["target"]) for g in goals), default=0)
    for g in goals:
        v = g["value"]
        op = ">=" if g["higher_is_better"] else "<="
        if v is None:
            shown, mark = "-", "not measured" + (f" (needs {g['needs']})" if g["needs"] else "")
        else:
            shown = f"{v:.3g}"
            mark = "met" if g["met"] else ("below" if g["higher_is_better"] else "above")
        lines.append(f"  {g['target']:<{width}}  {shown:>8}  goal {op} {g['goal']:<5g}  {mark}")
    return "\n".join(lines)


def format_resets(resets: list[dict[str, Any]]) -> str:
    lines = ["== reset(seed=s), median seconds of one call =="]
    for r in resets:
        lines.append(f"  {r['env_id']:<26} N={r['num_envs']:<7} {r['impl']:<22} "
                     f"{r['seconds'] * 1e3:9.2f} ms")
    return "\n".join(lines)


def format_memory(memory: dict[str, Any]) -> str:
    lines = ["== memory =="]
    if "error" in memory:
        lines.append(f"  failed: {memory['error']}")
        return "\n".join(lines)
    mib = 2.0**20
    lines.append(
        f"  {P.SUBJECT} vector env, N={memory['num_envs']:,}: state+buffers "
        f"{memory['state_buffers_bytes'] / mib:.1f} MiB; peak RSS increase "
        f"{memory['peak_increase_bytes'] / mib:.1f} MiB ({memory['ratio_rss']:.2f}x the "
        f"state+buffers); tracemalloc peak {memory['tracemalloc_peak_bytes'] / mib:.1f} MiB "
        f"({memory['ratio_tracemalloc']:.2f}x); of which the spaces' arrays "
        f"{memory['spaces_bytes'] / mib:.1f} MiB and the actions "
        f"{memory['actions_bytes'] / mib:.1f} MiB")
    return "\n".join(lines)


def format_breakdown(env_id: str, breakdown: list[dict[str, Any]]) -> str:
    lines = [f"== {env_id} N=1 step, layer by layer (us per call) =="]
    for row in breakdown:
        lines.append(f"  {row['us_per_call']:8.3f}  {row['layer']}")
    return "\n".join(lines)


# --------------------------------------------------------------------- JSON
def payload(meta: dict[str, Any], results: list[Result], resets: list[dict[str, Any]],
            memory: dict[str, Any] | None, breakdown: list[dict[str, Any]],
            goals: list[dict[str, Any]], notes: list[str]) -> dict[str, Any]:
    """Everything one run measured, as the JSON document ``--json`` writes."""
    return {
        "meta": {**meta, "ratios": RATIO_DEFINITIONS},
        "results": [dataclasses.asdict(r) for r in results],
        "reset": resets,
        "memory": memory,
        "breakdown": breakdown,
        "targets": goals,
        "notes": notes,
    }


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, default=_json_default)


def _json_default(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x) if math.isfinite(x) else None
    raise TypeError(f"not JSON serialisable: {type(x)}")
