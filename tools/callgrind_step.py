"""Instructions per instance-step of an env's exact step, counted by callgrind.

    python tools/callgrind_step.py KIND [N] [STEPS]

(KIND as ccgym._core.env_info names it: MountainCar, Pendulum, ...) runs
itself under valgrind (callgrind, collecting only inside the env def's
``*_step_range`` function: the driver's loop and the step body, not the
binding) and prints the instructions per instance-step. Random valid actions
(seeded), Gymnasium's default parameters, N instances (16384), STEPS steps
(20) after one reset. Deterministic: compare two builds of the same code
path by running it on each. Needs valgrind and an unstripped build (the
function's name): ``pip install -Cinstall.strip=false ...``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile


def _run(kind: str, n: int, steps: int) -> None:
    import numpy as np

    from ccgym import _core, _params

    b = _core.Batch(kind, n, _params.params(kind))
    b.seed_range(0)
    b.reset()
    info = _core.env_info(kind)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if info.action_dim == 0:
            a = rng.integers(0, info.n_actions, size=n)
        else:
            a = rng.uniform(-1.0, 1.0, size=(n, info.action_dim)).astype(np.float32)
        b.step(a)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    kind = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 16384
    steps = int(argv[3]) if len(argv) > 3 else 20
    if os.environ.get("_CCGYM_CALLGRIND_CHILD"):
        _run(kind, n, steps)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ, _CCGYM_CALLGRIND_CHILD="1")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             "--toggle-collect=*_step_range", sys.executable, __file__, kind,
             str(n), str(steps)],
            env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            text = f.read()
    total = int(re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M).group(1))
    if total == 0:
        print("no instructions counted: is the build stripped? (reinstall with "
              "-Cinstall.strip=false)", file=sys.stderr)
        return 1
    print(f"{kind} N={n} steps={steps}: {total:,} instructions, "
          f"{total / (n * steps):.2f} per instance-step")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
