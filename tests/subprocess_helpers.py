"""Running a snippet in a fresh interpreter, so that a crash (segfault,
sanitizer abort) fails the calling test instead of killing pytest."""
from __future__ import annotations

import subprocess
import sys
import textwrap


def run_isolated(code: str, timeout: float = 300) -> str:
    """Runs `code` (dedented) with this interpreter; returns its stdout, or
    fails with its exit status (negative: a signal) and output."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"subprocess died with {proc.returncode} (negative: a signal)\n"
        f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-5000:]}")
    return proc.stdout
