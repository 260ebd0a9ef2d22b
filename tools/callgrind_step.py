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

    python tools/callgrind_step.py --call single|vector ID [STEPS] [N]

counts a front end's whole step call instead: the instructions inside the
binding's method that ``env.step`` is bound to (the single env's
``Batch.step1``; the vector env's ``Batch.vector_step``, N instances, 1 by
default): argument parsing, checks, the C driver, the returned objects; not
the interpreter's dispatch to it, nor the resets between episodes. STEPS
(2000) steps of ``action_space.sample()`` actions (seeded), reset on a done.
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


# The binding's method each front end's step is bound to (a callgrind glob of
# its Cython wrapper; one level, so nested calls never toggle collection off).
_CALLS = {"single": ("step1", "__pyx_pw_*Batch_*step1"),
          "vector": ("vector_step", "__pyx_pw_*Batch_*vector_step")}


def _run_call(call: str, env_id: str, steps: int, n: int) -> None:
    import gymnasium as gym

    import ccgym

    if call == "single":
        env = gym.make(env_id).unwrapped
    else:
        env = ccgym.make_vec(env_id, num_envs=n)
    step = env.step
    if getattr(step, "__name__", None) != _CALLS[call][0]:
        raise SystemExit(f"{env_id}'s {call} step is {step!r}, not Batch.{_CALLS[call][0]}")
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(steps)]
    env.reset(seed=0)
    for a in actions:
        _, _, term, trunc, _ = step(a)
        if call == "single" and (term or trunc):
            env.reset()


def _main_call(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in _CALLS:
        print(__doc__)
        return 2
    call, env_id = argv[0], argv[1]
    steps = int(argv[2]) if len(argv) > 2 else 2000
    n = int(argv[3]) if len(argv) > 3 else 1
    if os.environ.get("_CCGYM_CALLGRIND_CHILD"):
        _run_call(call, env_id, steps, n)
        return 0
    total = _callgrind(_CALLS[call][1], ["--call", call, env_id, str(steps), str(n)])
    print(f"{env_id} {call} step (Batch.{_CALLS[call][0]}, N={n}) steps={steps}: "
          f"{total:,} instructions, {total / steps:.1f} per step")
    return 0


def _callgrind(collect: str, args: list[str]) -> int:
    """Instructions callgrind counts inside functions matching `collect`
    while this script runs with `args` in a child process (none: exits 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ, _CCGYM_CALLGRIND_CHILD="1", PYTHONHASHSEED="0")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             f"--toggle-collect={collect}", sys.executable, __file__, *args],
            env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            text = f.read()
    total = int(re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M).group(1))
    if total == 0:
        raise SystemExit("no instructions counted: is the build stripped? (reinstall with "
                         "-Cinstall.strip=false)")
    return total


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--call":
        return _main_call(argv[2:])
    if len(argv) < 2:
        print(__doc__)
        return 2
    kind = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 16384
    steps = int(argv[3]) if len(argv) > 3 else 20
    if os.environ.get("_CCGYM_CALLGRIND_CHILD"):
        _run(kind, n, steps)
        return 0
    total = _callgrind("*_step_range", [kind, str(n), str(steps)])
    print(f"{kind} N={n} steps={steps}: {total:,} instructions, "
          f"{total / (n * steps):.2f} per instance-step")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
