"""Every code example of README.md and docs/ runs.

Each Markdown page is one test (``test_page[docs/vector-env.md]``): its
Python blocks run in order in one namespace (a later block may use what an
earlier one made), parsed by sybil; its ``bash`` blocks' ``ccgym ...`` lines
run as commands, with the small arguments of :data:`SMALL_ARGS` added so the
suite stays quick. Other shell lines (``pip install``, ``python -m pytest``,
``asv``) are documentation of a command, not run.

An HTML comment right before a block directs it:

- ``<!-- docs-test: slow -->``: run only in the slow selection
  (``python -m pytest -m slow``, and ``-m ""`` as CI runs it): each page with
  such blocks has a second test, ``test_page_slow[...]``, marked slow, that
  runs all of its blocks;
- ``<!-- docs-test: needs MODULE [MODULE ...] -->``: skipped when a module is
  not importable (the frameworks' optional extras);
- ``<!-- docs-test: skip (why) -->``: a fragment shown, never run; the
  reason stands in brackets after the word.

Any other directive fails the page (a misspelt one would otherwise run, or
skip, the block silently).

The pages are found from the repository root (README.md and docs/**.md,
each collected once; pytest's testpaths never reach them on their own); the
package they exercise is the installed one, as for every other test. The
examples run in the test's temporary directory, so the files they write
(videos, plots, runs/) land there.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sybil", reason="needs sybil (the test extra: pip install '.[test]')")
from sybil import Sybil  # noqa: E402
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser  # noqa: E402

# The pages' examples may use the ccgym/ ids without `import ccgym`, which an
# installed wheel's startup hook makes work (tests/test_worker_ids.py tests
# the hook); an editable install has no hook, so register the ids here.
import ccgym  # noqa: F401,E402

ROOT = Path(__file__).resolve().parent.parent
PAGES = ([p for p in [ROOT / "README.md"] if p.exists()]
         + sorted((ROOT / "docs").rglob("*.md")))
PAGE_IDS = [str(p.relative_to(ROOT)) for p in PAGES]

DIRECTIVE = re.compile(r"<!--\s*docs-test:\s*(.*?)\s*-->\s*$")

# ccgym subcommand -> options (and values) added when a docs block runs it,
# replacing the block's own value of that option: the commands as documented,
# at a size the test suite can afford.
SMALL_ARGS: dict[str, dict[str, str | None]] = {
    "demo": {"--num-envs": "8", "--steps": "10"},
    "bench": {"--ids": "CartPole-v1", "--num-envs": "1,8", "--threads": "1", "--repeats": "1",
              "--budget": "0.002", "--no-reset": None, "--no-memory": None, "--no-peers": None},
    "render-bench": {"--ids": "CartPole-v1", "--batch": "2", "--seconds": "0.01"},
    "train": {"--timesteps": "64", "--n-envs": "2", "--eval-freq": "0",
              "--final-eval-episodes": "1", "--no-progress-bar": None},
    "record": {"--max-steps": "5"},
}
NEEDS = {"train": "stable_baselines3"}


class ShellBlock:
    """A ``bash`` block: its ``ccgym`` lines, run in the test's directory."""

    def __init__(self, tmp: Path):
        self.tmp = tmp

    def __call__(self, example) -> None:
        for line in example.parsed.splitlines():
            line = line.split(" #")[0].strip()
            if not line.startswith("ccgym "):
                continue
            argv = shlex.split(line)
            sub = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else None
            if sub in NEEDS and not _importable(NEEDS[sub]):
                continue
            if "--plot" in argv and not _importable("matplotlib"):
                continue
            extra = []
            if sub is not None and "--help" not in argv:
                for opt, value in SMALL_ARGS.get(sub, {}).items():
                    if opt in argv:  # the small size replaces the documented one
                        i = argv.index(opt)
                        del argv[i:i + (1 if value is None else 2)]
                    extra += [opt] if value is None else [opt, value]
            for opt, value in zip(argv, argv[1:]):  # output paths: relative to the test's dir
                if opt in ("--plot", "--json", "--out", "--samples") and value != "-":
                    (self.tmp / value).parent.mkdir(parents=True, exist_ok=True)
            cmd = [sys.executable, "-m", "ccgym", *argv[1:], *extra]
            env = dict(os.environ, MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy")
            proc = subprocess.run(cmd, cwd=self.tmp, capture_output=True, text=True, env=env,
                                  timeout=600)
            assert proc.returncode == 0, (
                f"{line!r} (run as ccgym {shlex.join(cmd[3:])}) exited {proc.returncode}:\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a missing parent package
        return False


def _directives(document, example) -> list[str]:
    """The ``docs-test`` comments on the lines right before the block."""
    found = []
    for line in reversed(document.text[:example.start].rstrip().splitlines()):
        m = DIRECTIVE.search(line)
        if not m:
            break
        word = m.group(1).split()[0] if m.group(1) else ""
        if word not in ("slow", "needs", "skip"):
            raise AssertionError(f"{document.path}: unknown directive <!-- docs-test: {m.group(1)} -->")
        # "skip (why)" and "slow (why)" carry a reason after the word
        found.append(m.group(1) if word == "needs" else word)
    return found


def _run_page(path: Path, tmp_path: Path, *, slow: bool) -> None:
    sybil = Sybil(parsers=[PythonCodeBlockParser(),
                           CodeBlockParser(language="bash", evaluator=ShellBlock(tmp_path))])
    document = sybil.parse(path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    ran, skipped = 0, []
    try:
        for example in document:
            directives = _directives(document, example)
            needed = [m for d in directives if d.startswith("needs ") for m in d.split()[1:]]
            if ("skip" in directives or ("slow" in directives and not slow)
                    or not all(map(_importable, needed))):
                skipped.append(example.line)
                continue
            t0 = time.perf_counter()
            try:
                example.evaluate()
            except Exception as e:
                raise AssertionError(
                    f"{path.name}, the block at line {example.line}: {type(e).__name__}: {e}") from e
            ran += 1
            print(f"{path.name}:{example.line} {time.perf_counter() - t0:.2f} s")
    finally:
        os.chdir(cwd)
    print(f"{path.name}: {ran} blocks ran, skipped at lines {skipped}")


def _has_slow(path: Path) -> bool:
    return any((m := DIRECTIVE.search(line)) and m.group(1) == "slow"
               for line in path.read_text().splitlines())


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_page(page: Path, tmp_path: Path) -> None:
    _run_page(page, tmp_path, slow=False)


SLOW_PAGES = [p for p in PAGES if _has_slow(p)]


@pytest.mark.slow
@pytest.mark.parametrize("page", SLOW_PAGES, ids=[str(p.relative_to(ROOT)) for p in SLOW_PAGES])
def test_page_slow(page: Path, tmp_path: Path) -> None:
    _run_page(page, tmp_path, slow=True)
