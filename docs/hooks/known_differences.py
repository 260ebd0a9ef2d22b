"""MkDocs hook: the table of ccgym's known differences from Gymnasium.

``<!-- known-differences-table -->`` in a page is replaced by a table made
by running each case of :data:`CASES` on a fresh Gymnasium env and a fresh
ccgym env of the installed packages (the same code on both, then one step):
what each does (steps, raises at the write, raises at the step) and ccgym's
own message are the code's answer at build time; only the reason is
written here. The lists of attributes a rule covers are read from the env
defs (``ccgym._attributes``), and Acrobot's wrap bound from its C header.
"""

from __future__ import annotations

import glob
import math
import os
import re
import warnings

import numpy as np

MARKER = "<!-- known-differences-table -->"

# (env id, code run on `env` (an unwrapped env after reset(seed=0)) or `cls`
# (a fresh subclass of its class), the action of the step after it, why).
CASES = [
    ("MountainCar-v0", "pass", "np.uint8(0)",
     "Gymnasium computes `action - 1` in the action's unsigned dtype, where 0 wraps to "
     "the largest value (a push to the right): ccgym refuses unsigned zeros rather than "
     "model the wrap"),
    ("Acrobot-v1", "env.dt = float('nan')", "1",
     "the state becomes NaN, and which NaN's sign bit survives rk4 follows numpy's loop "
     "order, which the kernel does not reproduce"),
    ("Acrobot-v1", "env.MAX_VEL_1 = -math.inf", "1",
     "np.clip to [inf, -inf] gives -inf and rk4 makes the state NaN (as above)"),
    ("Acrobot-v1", "env.AVAIL_TORQUE = 1.0", "1",
     "a torque per action is needed at every step: refused at the write rather than at "
     "the step"),
    ("MountainCar-v0", "env.max_position = -math.inf", "1",
     "every position becomes -inf; refused at the write rather than at the step"),
    ("CartPole-v1", "del env.gravity", "1",
     "ccgym's step needs a value for every attribute: deleting one Gymnasium sets in "
     "`__init__` is refused rather than failing at the step (a class-level value "
     "makes the delete fall back to it, as in Gymnasium)"),
    ("CartPole-v1", "cls.state = [0.0, 0.0, 0.0, 0.0]", "1",
     "ccgym's `state` is live per env; a class-level value would cut every env of the "
     "class off it (Gymnasium's envs shadow it with their own `state` anyway)"),
    ("CartPole-v1", "cls.gravity = 'strong'", "1",
     "a class-level value is checked as an attribute write is, although Gymnasium's envs "
     "(which all have their own `gravity`) never read it"),
    ("CartPole-v1", "env.gravity = np.float32(9.8); env.state = [0.0, 0.0, 0.0, 0.0]", "1",
     "with a float32 attribute, Gymnasium's `x + tau * x_dot` over Python numbers of a "
     "written list computes in float32, which ccgym does not model"),
    ("CartPole-v1", "result = vars(env).get('state', 'absent')", None,
     "`state` lives in C: `vars(env)['state']` reads it, but it is no entry of "
     "`vars(env)`, so `get`, `in` and iterating `vars(env)` do not see it (the "
     "attributes, `gravity` and the rest, are entries, as in Gymnasium)"),
]


def _gym_class(env_id):
    import gymnasium as gym

    entry = gym.registry[env_id].entry_point
    module, _, name = entry.partition(":")
    import importlib

    return getattr(importlib.import_module(module), name)


def _outcome(cls, code, action):
    """What running ``code`` then one step does: a short text."""
    import gymnasium as gym  # noqa: F401

    sub = type(cls.__name__, (cls,), {})
    env = sub()
    ns = {"env": env, "cls": sub, "np": np, "math": math}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.reset(seed=0)
        try:
            exec(code, ns)
        except Exception as e:  # noqa: BLE001 - reported
            return f"refused at the write: {type(e).__name__}", str(e)
        if action is None:
            return f"gives {ns.get('result')!r}", ""
        try:
            env.step(eval(action, ns))
        except Exception as e:  # noqa: BLE001 - reported
            return f"raises at the step: {type(e).__name__}", str(e)
    return "steps", ""


def _wrap_bound() -> str:
    """Acrobot's wrap bound (turns) from its C header, wherever it lives."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    for path in glob.glob(os.path.join(root, "**", "acrobot.h"), recursive=True):
        with open(path) as f:
            m = re.search(r"#define CCGYM_ACROBOT_WRAP_MAX_TURNS\s+([0-9.e+]+)", f.read())
        if m:
            return f"{float(m.group(1)):.0f}"
    return "2**24"


def outcomes() -> list[tuple[str, str, str, str, str, str, str]]:
    """(env id, code, action, Gymnasium's outcome, ccgym's, ccgym's message,
    why) of every case: what the table shows (tests/test_known_differences.py
    checks that each is still a difference)."""
    from ccgym import _kinds

    out = []
    for env_id, code, action, why in CASES:
        r, _ = _outcome(_gym_class(env_id), code, action)
        o, message = _outcome(_kinds.env_class(env_id), code, action)
        out.append((env_id, code, action, r, o, message, why))
    return out


def _row(env_id, code, action, r, o, message, why) -> str:
    steps = [] if code == "pass" else [f"`{code}`"]
    if action is not None:
        steps.append(f"`step({action})`")
    cell = message.replace("|", "\\|").replace("\n", " ")
    return f"| {env_id}: {', then '.join(steps)} | {r} | {o} | {cell} | {why} |"


def table() -> str:
    from ccgym import _attributes, _core

    rows = ["| case | Gymnasium | ccgym | ccgym's message | why |", "|---|---|---|---|---|"]
    for case in outcomes():
        rows.append(_row(*case))
    negated = []
    for kind in _core.ENV_KINDS:
        names = _attributes.of_class(kind, "negated")
        if names:
            negated.append(f"{kind} " + ", ".join(f"`{n}`" for n in names))
    out = "\n".join(rows)
    out += (
        "\n\nAn integer zero (Python or numpy) is refused for the attributes Gymnasium's "
        "step negates (`-0` is the int 0 there, while ccgym's float carries a sign; "
        "assign `0.0`): " + "; ".join(negated) + ".\n\n"
        "Acrobot's angles past about "
        f"{_wrap_bound()} turns (|angle| > ~1e8 rad, reached by stepping with, say, "
        "`LINK_MASS_2 = -1.0` or `torque_noise_max = 131072`, single and vector envs): "
        "ccgym's wrap takes `fmod` first, so a step's time stays bounded, where "
        "Gymnasium's `wrap` subtracts 2*pi once per turn (seconds per step) and ends "
        "about 0.01 rad away from the exact remainder fmod gives. Observations then "
        "differ in those angles' sin/cos. Below the bound ccgym subtracts as Gymnasium "
        "does, bit for bit.\n")
    return out


def on_page_markdown(markdown: str, **kwargs) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, table())
    return markdown
