#!/usr/bin/env python
"""Run Gymnasium's and Stable-Baselines3's own tests with ccgym in place of
Gymnasium's classic-control envs, and report what fails because of ccgym.

Usage (with the Python whose ccgym, Gymnasium and SB3 are to be tested)::

    python tools/run_upstream_tests.py --gymnasium-src ~/src/Gymnasium
    python tools/run_upstream_tests.py --suite sb3           # fetches SB3's sdist
    python tools/run_upstream_tests.py --gymnasium-src DIR --suite gymnasium \\
        --paths tests/vector --pytest-args "-k autoreset"

Where the upstream tests come from:

- Gymnasium: its PyPI sdist does NOT ship the test suite (gymnasium-1.4.0.tar.gz
  has only tests/test_core.py and tests/testing_env.py), so point
  ``--gymnasium-src`` at a checkout of the Gymnasium repository at the installed
  version (``git clone --depth 1 --branch v<version>
  https://github.com/Farama-Foundation/Gymnasium``; ``--clone`` does that).
- SB3: its sdist ships tests/, so by default the script runs ``pip download
  --no-binary :all: --no-deps stable-baselines3==<installed>`` and unpacks it
  (``--sb3-src DIR`` uses a checkout instead).

The upstream ``tests/`` directory and its pytest configuration are copied into
``--workdir`` (default: a fresh temp dir), next to ``ccgym_upstream_plugin.py``
(tools/), so the installed packages -- not a source tree -- are imported and
nothing is written into the upstream tree. Each suite runs twice:

1. baseline: the plugin loaded with ``CCGYM_UPSTREAM_STOCK=1`` (patches nothing);
2. ccgym: the plugin patches the stock ids and classes to ccgym's (see the
   plugin's docstring).

The report lists every test that fails in the ccgym run but not in the
baseline ("caused by ccgym"), grouped by the first line of the failure, then
the counts of tests failing in both runs (upstream / environment problems, not
ccgym's), and how many tests built a ccgym env at all. JSON with every test's
outcomes goes to ``<workdir>/report.json``. Exit status 1 if any test fails
because of ccgym.
"""

from __future__ import annotations

import argparse
import collections
import importlib.metadata as md
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "ccgym_upstream_plugin.py"

# Gymnasium's tests that build classic-control envs (directly, through the
# registry, or by parametrizing over every registered env), its vector and
# wrapper tests.
GYMNASIUM_PATHS = [
    "tests/test_core.py",
    "tests/envs/test_envs.py",
    "tests/envs/test_env_implementation.py",
    "tests/envs/test_action_dim_check.py",
    "tests/envs/test_rendering.py",
    "tests/envs/registration",
    "tests/vector",
    "tests/wrappers",
    "tests/utils/test_env_checker.py",
    "tests/utils/test_play.py",
]
# SB3's vec-env tests, and the others that make classic-control vec envs
# without training a model.
SB3_PATHS = [
    "tests/test_vec_envs.py",
    "tests/test_vec_monitor.py",
    "tests/test_vec_check_nan.py",
    "tests/test_vec_normalize.py",
    "tests/test_vec_extract_dict_obs.py",
    "tests/test_vec_stacked_obs.py",
    "tests/test_monitor.py",
    "tests/test_env_checker.py",
    "tests/test_utils.py",
]
# The CI leg (--sb3-ci, .ci/run): the SB3 files above whose tests build ccgym
# envs, without the tests that never can or only train. SubprocVecEnv workers
# are fresh interpreters without the plugin (they run stock Gymnasium, so
# they compare stock with stock) and cost 70% of the full run;
# test_vec_env_is_wrapped is SubprocVecEnv-only; test_her_normalization,
# test_vec_with_ppo (test_vec_extract_dict_obs.py) use no classic-control env;
# SAC / PPO training repeats TD3's path through VecNormalize / VecMonitor on
# ccgym at 3x its cost. test_utils.py needs ale_py (Atari) and trains.
SB3_CI_PATHS = [
    "tests/test_vec_envs.py",
    "tests/test_vec_monitor.py",
    "tests/test_monitor.py",
    "tests/test_vec_normalize.py",
    "tests/test_vec_check_nan.py",
    "tests/test_vec_stacked_obs.py",
    "tests/test_env_checker.py",
]
SB3_CI_K = ("not subproc and not test_vec_env_is_wrapped and not test_her_normalization "
            "and not SAC and not test_vec_monitor_ppo")


def installed(dist: str) -> str:
    return md.version(dist)


def source_version(src: Path, suite: str) -> str | None:
    try:
        if suite == "gymnasium":
            for name in ("version.py", "__init__.py"):
                path = src / "gymnasium" / name
                if path.exists():
                    m = re.search(r'__version__\s*=\s*"([^"]+)"', path.read_text())
                    if m:
                        return m.group(1)
            return None
        return (src / "stable_baselines3" / "version.txt").read_text().strip()
    except OSError:
        return None


def get_source(suite: str, args, work: Path) -> Path:
    given = args.gymnasium_src if suite == "gymnasium" else args.sb3_src
    if given:
        return Path(given).resolve()
    if suite == "gymnasium":
        if not args.clone:
            sys.exit("Gymnasium's sdist has no tests: pass --gymnasium-src DIR (a checkout "
                     "at the installed version) or --clone")
        version = installed("gymnasium")
        dest = work / "Gymnasium-src"
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", f"v{version}",
                        "https://github.com/Farama-Foundation/Gymnasium", str(dest)], check=True)
        return dest
    version = installed("stable-baselines3")
    dl = work / "sdist"
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", ":all:", "-d", str(dl), f"stable-baselines3=={version}"],
                   check=True)
    (archive,) = dl.glob("stable_baselines3-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(dl, filter="data")
    return next(p for p in dl.iterdir() if p.is_dir())


def prepare(suite: str, src: Path, work: Path) -> Path:
    """Copy src/tests + pytest config + the plugin into work/<suite>."""
    dest = work / suite
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src / "tests", dest / "tests",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for cfg in ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini"):
        if (src / cfg).exists():
            shutil.copy(src / cfg, dest / cfg)
    shutil.copy(PLUGIN, dest / PLUGIN.name)
    return dest


def pytest_command(suite: str, dest: Path, paths: list[str], stock: bool, args):
    tag = "baseline" if stock else "ccgym"
    xml = dest / f"junit-{tag}.xml"
    # Each run in its own copy: tests write files into the cwd (videos/ ...)
    # and must not see the other run's.
    run_dir = dest / tag
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir()
    for item in dest.iterdir():
        if item.name in ("baseline", "ccgym") or item.suffix in (".xml", ".log"):
            continue
        (shutil.copytree if item.is_dir() else shutil.copy)(item, run_dir / item.name)
    dest = run_dir
    env = dict(os.environ, PYTHONPATH=str(run_dir), PYTHONDONTWRITEBYTECODE="1",
               MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               CCGYM_UPSTREAM_STOCK="1" if stock else "0",
               CCGYM_UPSTREAM_SB3="1" if suite == "sb3" else "0")
    paths = [p for p in paths if (dest / p).exists()]
    cmd = [sys.executable, "-m", "pytest", "-p", "ccgym_upstream_plugin",
           "-p", "no:cacheprovider", "-q", "--tb=line", "-rN", f"--junitxml={xml}",
           "--continue-on-collection-errors", "-o", "junit_family=xunit1", *paths]
    if suite == "sb3":
        cmd += ["-m", "not expensive"]
    cmd += shlex.split(args.pytest_args)
    return tag, xml, cmd, env, dest


def run_pytests(suite: str, dest: Path, paths: list[str], args) -> dict[str, Path]:
    """The baseline and the ccgym run, side by side (--serial: one after the other)."""
    runs = [pytest_command(suite, dest, paths, stock, args)
            for stock in ((False,) if args.no_baseline else (True, False))]
    procs = []
    t0 = time.time()
    for tag, xml, cmd, env, cwd in runs:
        log = open(dest / f"pytest-{tag}.log", "w")
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        procs.append((tag, proc, log))
        if args.serial:
            wait(suite, tag, proc, log, dest, t0, args)
    if not args.serial:
        for tag, proc, log in procs:
            wait(suite, tag, proc, log, dest, t0, args)
    return {tag: xml for tag, xml, *_ in runs}


def wait(suite, tag, proc, log, dest, t0, args) -> None:
    if log.closed:
        return
    try:
        rc = proc.wait(timeout=max(1.0, args.timeout - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = "timeout"
    log.close()
    print(f"  {suite} {tag}: pytest rc={rc} after {time.time() - t0:.0f} s "
          f"(log {dest}/pytest-{tag}.log)", file=sys.stderr)


def parse(xml: Path) -> dict[str, dict]:
    """test id -> {outcome, message, uses}"""
    results: dict[str, dict] = {}
    if not xml.exists():
        return results
    for case in ET.parse(xml).getroot().iter("testcase"):
        file = case.get("file") or case.get("classname", "").replace(".", "/")
        name = f"{file}::{case.get('name')}"
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                message = (el.get("message") or el.text or "").strip()
                break
        uses = 0
        for prop in case.iter("property"):
            if prop.get("name") == "ccgym_uses":
                uses = int(prop.get("value"))
        prev = results.get(name)
        # a test with a failing teardown shows up twice: keep the worst
        if prev is None or prev["outcome"] in ("passed", "skipped"):
            results[name] = {"outcome": outcome, "message": message, "uses": uses}
    return results


def cause(message: str) -> str:
    line = message.splitlines()[0] if message else "(no message)"
    line = re.sub(r"0x[0-9a-f]+", "0x..", line)
    line = re.sub(r"\s+", " ", line)
    return line[:160]


BAD = ("failed", "error")


def report(suite: str, base: dict, ours: dict) -> dict:
    # With a baseline, only tests that ran in both runs are compared (an
    # interrupted run has fewer); without one, every failure counts.
    unmatched = [t for t in ours if base and t not in base]
    caused = {t: r for t, r in ours.items()
              if r["outcome"] in BAD and (not base or (t in base and base[t]["outcome"] not in BAD))}
    both = [t for t, r in ours.items()
            if r["outcome"] in BAD and base.get(t, {}).get("outcome") in BAD]
    fixed = [t for t, r in ours.items()
             if r["outcome"] not in BAD and base.get(t, {}).get("outcome") in BAD]
    counts = collections.Counter(r["outcome"] for r in ours.values())
    exercised = sum(1 for r in ours.values() if r["uses"])
    print(f"\n== {suite}: {len(ours)} tests under ccgym ({dict(counts)}); "
          f"{exercised} built a ccgym env")
    print(f"   baseline (stock classes): "
          f"{dict(collections.Counter(r['outcome'] for r in base.values()))}")
    print(f"   failing because of ccgym: {len(caused)}; failing in both runs: {len(both)}; "
          f"failing only on stock: {len(fixed)}; not in the baseline run: {len(unmatched)}")
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for t, r in caused.items():
        groups[cause(r["message"])].append(t)
    for msg, tests in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"\n  [{len(tests)}] {msg}")
        for t in sorted(tests):
            print(f"      {t}")
    if both:
        print("\n  failing in both runs (not ccgym's), by cause:")
        by_cause: dict[str, list[str]] = collections.defaultdict(list)
        for t in both:
            by_cause[cause(base[t]["message"])].append(t)
        for msg, tests in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
            print(f"    [{len(tests)}] {msg}")
            for t in sorted(tests)[:3]:
                print(f"        {t}")
            if len(tests) > 3:
                print(f"        ... and {len(tests) - 3} more")
    if fixed:
        print("\n  failing only on stock Gymnasium:")
        for t in sorted(fixed):
            print(f"      {t}: {cause(base[t]['message'])[:100]}")
    return {"caused_by_ccgym": caused, "failing_in_both": both, "failing_only_on_stock": fixed,
            "not_in_baseline": unmatched, "counts": dict(counts), "exercised": exercised}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=["gymnasium", "sb3", "all"], default="all")
    ap.add_argument("--gymnasium-src", help="Gymnasium checkout (with tests/) at the installed version")
    ap.add_argument("--clone", action="store_true",
                    help="git clone Gymnasium's v<installed> tag when --gymnasium-src is not given")
    ap.add_argument("--sb3-src", help="SB3 source tree with tests/ (default: its PyPI sdist)")
    ap.add_argument("--workdir", help="where tests are copied and run (default: a new temp dir)")
    ap.add_argument("--paths", nargs="*", help="test paths relative to the source root "
                    "(default: the classic-control/vector/wrapper selection)")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments, one string")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the stock run (then every failure counts as ccgym's)")
    ap.add_argument("--report-only", action="store_true",
                    help="only report on the junit files an earlier run left in --workdir")
    ap.add_argument("--serial", action="store_true",
                    help="run the baseline and the ccgym run one after the other, not side by side")
    ap.add_argument("--sb3-ci", action="store_true",
                    help="the CI leg: --suite sb3 on SB3_CI_PATHS with -k SB3_CI_K (see above)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for a suite's runs")
    args = ap.parse_args()
    if args.sb3_ci:
        if args.suite != "all" and args.suite != "sb3":
            ap.error("--sb3-ci runs the sb3 suite only")
        args.suite = "sb3"
        args.paths = args.paths or SB3_CI_PATHS
        args.pytest_args = f"-k {shlex.quote(SB3_CI_K)} {args.pytest_args}"

    work = Path(args.workdir or tempfile.mkdtemp(prefix="ccgym-upstream-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"workdir {work}; ccgym {installed('ccgym')}, gymnasium {installed('gymnasium')}, "
          f"numpy {installed('numpy')}", file=sys.stderr)
    suites = ["gymnasium", "sb3"] if args.suite == "all" else [args.suite]
    summary, status = {}, 0
    for suite in suites:
        if args.report_only:
            src = Path((args.gymnasium_src if suite == "gymnasium" else args.sb3_src) or work)
        else:
            src = get_source(suite, args, work)
        dist = "gymnasium" if suite == "gymnasium" else "stable-baselines3"
        have, want = source_version(src, suite), installed(dist)
        if have != want and not args.report_only:
            print(f"WARNING: {suite} source {src} is version {have}, installed is {want}; "
                  "the baseline run shows what that mismatch alone breaks", file=sys.stderr)
        if args.report_only:
            dest = work / suite
            xmls = {tag: dest / f"junit-{tag}.xml" for tag in ("baseline", "ccgym")
                    if (dest / f"junit-{tag}.xml").exists()}
        else:
            dest = prepare(suite, src, work)
            paths = args.paths or (GYMNASIUM_PATHS if suite == "gymnasium" else SB3_PATHS)
            xmls = run_pytests(suite, dest, paths, args)
        base = parse(xmls["baseline"]) if "baseline" in xmls else {}
        ours = parse(xmls["ccgym"]) if "ccgym" in xmls else {}
        if not ours:
            print(f"{suite}: no junit results (see {dest}/pytest-ccgym.log)", file=sys.stderr)
            status = 1
            continue
        summary[suite] = report(suite, base, ours)
        summary[suite]["all"] = {"baseline": base, "ccgym": ours}
        status |= bool(summary[suite]["caused_by_ccgym"])
        if args.sb3_ci:
            # The CI leg must run what it selects: a file that does not
            # collect (a missing test dependency) fails in both runs, which
            # would otherwise pass unnoticed; so would a run that never
            # built a ccgym env.
            uncollected = sorted(t for t, r in ours.items()
                                 if r["outcome"] == "error" and r["message"].startswith("collection failure"))
            if uncollected or not summary[suite]["exercised"]:
                print(f"--sb3-ci: not collected: {uncollected}; tests that built a ccgym env: "
                      f"{summary[suite]['exercised']}", file=sys.stderr)
                status = 1
    (work / "report.json").write_text(json.dumps(summary, indent=1))
    print(f"\nfull results: {work / 'report.json'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
