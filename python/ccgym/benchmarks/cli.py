"""The ``ccgym bench`` and ``ccgym render-bench`` subcommands."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from typing import Any

from ccgym import _argtypes, _core, _registration
from ccgym._version import __version__
from ccgym.benchmarks import harness, plan, report, sections
from ccgym.benchmarks.peers import PEERS, SUBJECT
from ccgym.benchmarks.plan import DEFAULT_NUM_ENVS, QUICK_NUM_ENVS, SYNC_MAX_N
from ccgym.benchmarks.plot import MISSING_MATPLOTLIB, plot
from ccgym.benchmarks.render import bench_render, save_samples
from ccgym.benchmarks.sections import MEMORY_NUM_ENVS, RESET_NUM_ENVS

BENCH_DESCRIPTION = f"""\
Env-steps per second of ccgym against Gymnasium, for every id:

  - the single env, as the raw class and through gymnasium.make, of both libraries;
  - ccgym's vector env at several N and thread counts, exact and (CartPole,
    Pendulum, Acrobot) precision="fast", beside Gymnasium's SyncVectorEnv
    (N <= {SYNC_MAX_N}), its numpy CartPoleVectorEnv (CartPole), SB3's DummyVecEnv,
    EnvPool and gymnax when installed, and with --ceiling a bare C loop of the
    same physics;
  - reset(seed=s) of a large vector env, and the peak memory of a big CartPole
    vector env.

Every ratio compares rows at the same N, timed together with their repeats
interleaved. Actions are drawn before the clock starts; each row warms up,
calibrates its number of calls and reports the median of --repeats repeats.
The clock is wall time: benchmark on an idle machine.

The method, a recorded run and how to reproduce its picture (--plot):
docs/benchmarks.md.
"""


_int_list = _argtypes.int_list_type(1, _argtypes.MAX_NUM_ENVS)
_thread_list = _argtypes.int_list_type(1, _argtypes.MAX_THREADS)


def _id_list(text: str) -> list[str]:
    ids = []
    for x in (x.strip() for x in text.split(",") if x.strip()):
        x = x[len("ccgym/"):] if x.startswith("ccgym/") else x
        if x not in _registration.ENV_SPECS:
            _registration.load_plugins()  # an id of a package that declares ccgym envs
        if x not in _registration.ENV_SPECS:
            raise argparse.ArgumentTypeError(
                f"unknown id {x!r}; choose from {', '.join(_registration.ENV_SPECS)}")
        ids.append(x)
    return ids


def _quiet_v0_warning() -> None:
    # CartPole-v0 is one of the ids on purpose: no need to warn that v1 exists.
    warnings.filterwarnings("ignore", message=r".*CartPole-v0 is out of date",
                            category=DeprecationWarning)


def _output_path(text: str) -> str:
    """An output file whose directory exists ('-' passes): refused at parse
    time, so a typo in the directory costs a usage line, not a finished
    benchmark that then dies on the write and loses its results. Refused,
    not created: a mistyped directory is more likely than a wanted new one,
    as a shell redirection to it fails too."""
    import os

    if text == "-":
        return text
    parent = os.path.dirname(text) or "."
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(
            f"the directory of {text!r} does not exist (create it first: mkdir -p {parent})")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; give a file name")
    return text


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Registers ``ccgym bench`` on the CLI's subparsers."""
    p = subparsers.add_parser(
        "bench", help="env-steps/s of ccgym against Gymnasium (and peers)",
        description=BENCH_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ids", type=_id_list, default=None,
                   help="comma-separated env ids (default: all six)")
    p.add_argument("--num-envs", type=_int_list, default=None,
                   help="comma-separated vector sizes N (default "
                        f"{','.join(map(str, DEFAULT_NUM_ENVS))}; --quick: "
                        f"{','.join(map(str, QUICK_NUM_ENVS))})")
    p.add_argument("--threads", type=_thread_list, default=None,
                   help="comma-separated thread counts for ccgym (default 1,2; --quick: 1)")
    p.add_argument("--repeats", type=_argtypes.positive, default=None,
                   help="timed repeats per row; the median is reported (default 7; "
                        "--quick: 3)")
    p.add_argument("--budget", type=_argtypes.float_type(0.0), default=None,
                   help="seconds of timed repeats per row (default 0.5; --quick: 0.06)")
    p.add_argument("--quick", action="store_true",
                   help="a short run: N=1,1024, one thread, 3 repeats, a small budget, "
                        "memory at 100,000 instances")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall time (default), or the thread's CPU time for 1-thread rows: "
                        "steadier on a busy machine, but not what a user waits for")
    p.add_argument("--ceiling", action="store_true",
                   help="also run the ceiling (a bare C loop of the same physics) and show "
                        "each row's ratio to it")
    p.add_argument("--targets", action="store_true",
                   help="also check the measurements against ccgym's performance goals")
    p.add_argument("--breakdown", action="store_true",
                   help="also time each layer of a 1-instance CartPole step")
    p.add_argument("--no-peers", dest="peers", action="store_false",
                   help="skip SB3, EnvPool and gymnax even when installed")
    p.add_argument("--no-single", action="store_true", help="skip the single-env rows")
    p.add_argument("--no-copy-false", action="store_true",
                   help="skip the ccgym copy=False rows")
    p.add_argument("--no-fast", dest="fast", action="store_false",
                   help='skip the precision="fast" rows')
    p.add_argument("--no-reset", action="store_true", help="skip the reset(seed=s) timing")
    p.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    p.add_argument("--reset-envs", type=_argtypes.num_envs, default=RESET_NUM_ENVS,
                   help=f"N for the reset(seed=s) timing (default {RESET_NUM_ENVS})")
    p.add_argument("--memory-envs", type=_argtypes.num_envs, default=None,
                   help=f"N for the memory measurement (default {MEMORY_NUM_ENVS:,}; "
                        "--quick: 100,000)")
    p.add_argument("--json", metavar="PATH", type=_output_path,
                   help="write all results as JSON to PATH ('-': to standard output, "
                        "the tables then go to standard error)")
    p.add_argument("--plot", metavar="PATH", type=_output_path,
                   help="write a bar chart of the vector rows as an image (needs matplotlib)")
    p.set_defaults(func=main)
    return p


def _resolve(args: argparse.Namespace) -> None:
    quick = args.quick
    if args.ids is None:
        args.ids = list(_registration.ENV_SPECS)
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
    if args.reset_envs < 1 or args.memory_envs < 1:
        raise SystemExit("ccgym bench: --reset-envs and --memory-envs must be >= 1")


def main(args: argparse.Namespace) -> int:
    """Runs the benchmark described by the parsed arguments and prints the report."""
    import gymnasium as gym
    import numpy as np

    _resolve(args)
    to_stdout = args.json == "-"
    out = sys.stderr if to_stdout else sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if args.plot:  # fail before the run, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(f"ccgym bench: {MISSING_MATPLOTLIB}", file=sys.stderr)
            return 2
    _quiet_v0_warning()
    t_start = time.perf_counter()
    tasks, notes = plan.plan(args)
    log(f"ccgym bench: {len(tasks)} rows, ~{args.budget:g} s each")
    results, skip_notes = harness.run_tasks(tasks, args.budget, args.repeats, log,
                                            cpu=args.clock == "cpu", tolerate=PEERS)
    notes += skip_notes
    report.add_ratios(results)
    resets = [] if args.no_reset else sections.bench_reset(args.ids, args.reset_envs,
                                                           args.repeats, log)
    memory = None if args.no_memory else sections.bench_memory(args.memory_envs, log)
    harness.set_clock(args.clock == "cpu")
    breakdown = (sections.bench_breakdown(SUBJECT, args.budget, args.repeats, log)
                 if args.breakdown else [])
    harness.set_clock(False)
    goals = report.check_goals(results, resets, memory, args.clock) if args.targets else []
    elapsed = time.perf_counter() - t_start

    say(f"ccgym {__version__} vs gymnasium {gym.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; median of {args.repeats} repeats, "
        f"{args.budget:g} s per row, {args.clock} clock"
        + (" (rows with threads > 1: wall)" if args.clock == "cpu" else "")
        + f"; fast kernels: {_core.fast_isa()}")
    xm = _core.exact_math()
    square = "x * x where it is certainly pow's result" if xm["pow2"] else "pow"
    if xm["pow2f"] != xm["pow2"]:
        square += ", float32: " + ("x * x rounded where certain" if xm["pow2f"] else "powf")
    say(f"exact math: {xm['path']}, lanes {xm['lanes']} ({xm['reason']}); exact kernels in "
        f"lanes: {', '.join(_core.exact_lanes_kinds()) if xm['kernels'] else 'none'} "
        f"(the 'ccgym libm' rows: the same steps with scalar libm); x ** 2: {square}")
    say(report.legend(results))
    say()
    say(report.format_table(results))
    if resets:
        say(report.format_resets(resets))
        say()
    if memory:
        say(report.format_memory(memory))
        say()
    if breakdown:
        say(report.format_breakdown(SUBJECT, breakdown))
        say()
    if goals:
        say(report.format_goals(goals, args.clock))
        say()
    noisy = report.noisy_note(results)
    if noisy:
        notes.append(noisy)
    for note in notes:
        say(f"note: {note}")
    say(f"(total {elapsed:.0f} s)")

    if args.json:
        meta = {
            "ccgym": __version__, "gymnasium": gym.__version__,
            "numpy": np.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "repeats": args.repeats, "budget_s": args.budget,
            "ids": args.ids, "num_envs": args.num_envs, "threads": args.threads,
            "quick": args.quick, "ceiling": args.ceiling, "clock": args.clock,
            "elapsed_s": elapsed, "fast_isa": _core.fast_isa(),
            "exact_math": _core.exact_math(),
        }
        text = report.dumps(report.payload(meta, results, resets, memory, breakdown, goals,
                                           notes))
        if to_stdout:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
            log(f"wrote {args.json}")
    if args.plot:
        err = plot(results, args.plot)
        if err:
            print(f"ccgym bench: {err}", file=sys.stderr)
            return 2
        log(f"wrote {args.plot}")
    return 0


# ------------------------------------------------------------- render-bench
def add_render_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Registers ``ccgym render-bench`` on the CLI's subparsers."""
    p = subparsers.add_parser(
        "render-bench", help="frames/s of ccgym's renderer against Gymnasium's pygame render",
        description="Frames per second of ccgym's C renderer (one env; a batch of N "
                    "instances in one call; grayscale pixel observations of a batch) beside "
                    "Gymnasium's pygame render() of one env. See docs/rendering.md.")
    p.add_argument("--ids", type=_id_list, default=None,
                   help="comma-separated env ids (default: all six)")
    p.add_argument("--batch", type=_argtypes.num_envs, default=256,
                   help="instances per batch render call (default 256)")
    p.add_argument("--seconds", type=_argtypes.float_type(0.0), default=1.0,
                   help="seconds timed per measurement (default 1)")
    p.add_argument("--num-threads", type=_argtypes.threads, default=1,
                   help="threads of the batch renders (default 1)")
    p.add_argument("--samples", metavar="DIR", help="also save one PNG per env in DIR")
    p.add_argument("--json", metavar="PATH", type=_output_path,
                   help="write the rows as JSON to PATH ('-': to standard output)")
    p.set_defaults(func=render_main)
    return p


def render_main(args: argparse.Namespace) -> int:
    """Runs ``ccgym render-bench``."""
    if args.batch < 1 or args.seconds <= 0 or args.num_threads < 1:
        raise SystemExit("ccgym render-bench: --batch and --num-threads must be >= 1 "
                         "and --seconds > 0")
    _quiet_v0_warning()
    to_stdout = args.json == "-"
    out = sys.stderr if to_stdout else sys.stdout
    rows = bench_render(args.ids, batch=args.batch, seconds=args.seconds,
                        num_threads=args.num_threads, out=lambda s: print(s, file=out))
    if args.json:
        text = json.dumps({"batch": args.batch, "num_threads": args.num_threads,
                           "frames_per_s": rows}, indent=1)
        if to_stdout:
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
            print(f"wrote {args.json}", file=sys.stderr)
    if args.samples:
        for path in save_samples(args.samples):
            print(f"wrote {path}", file=sys.stderr)
    return 0
