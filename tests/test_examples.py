"""Every script of examples/ runs (issue 46): each has a --smoke mode (tiny
sizes, seconds) that this test runs in a subprocess, as a user runs it, so an
example broken by a change in ccgym fails here instead of on a newcomer."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))

# What each script imports beyond ccgym (a script without an entry needs SB3
# and torch, as every example here does today).
NEEDS = {"ppo_throughput.py": ("stable_baselines3", "torch", "rl_zoo3", "yaml")}
# A line each script's smoke run must print: it ran to its end.
LAST_WORDS = {
    "ppo_throughput.py": "% of the null env's throughput",
    "vecenv_scaling.py": "steps trained = budget x measured steps/s",
    "wrappers_tour.py": "all sections ran and their checks passed",
}


def test_every_example_is_covered():
    if not SCRIPTS:
        pytest.skip("no examples/ beside the tests (not a source checkout)")
    assert sorted(p.name for p in SCRIPTS) == sorted(LAST_WORDS)


@pytest.mark.slow  # each imports torch and SB3 in a fresh process: minutes on a busy machine
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_example_smoke_run(script: Path, tmp_path: Path) -> None:
    for module in NEEDS.get(script.name, ("stable_baselines3", "torch")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{script.name} needs {module}")
    # The scripts' files (PNGs, logs) go to the temporary directory.
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, str(script), "--smoke"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert LAST_WORDS[script.name] in out.stdout, out.stdout[-3000:]


def test_every_example_is_named_on_a_docs_page():
    """Each example is shown on the docs page it belongs to (issue 46)."""
    if not SCRIPTS:
        pytest.skip("no examples/ beside the tests (not a source checkout)")
    docs = "\n".join(p.read_text() for p in (EXAMPLES.parent / "docs").glob("*.md"))
    for script in SCRIPTS:
        assert f"examples/{script.name}" in docs, script.name
