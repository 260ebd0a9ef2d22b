"""MkDocs hook: the table of attribute and state values ccgym takes or refuses.

``<!-- refused-values-table -->`` in a page is replaced by tables made by
asking the installed ccgym: each cell assigns one value type to one live
attribute (or ``state``) of a fresh single env and records whether ccgym
takes it or refuses it (TypeError/ValueError); the last columns write
particular values (an integer 0, signed zeros, NaN, inf, a huge int) rather
than types. This is the one list of what ccgym refuses (the attribute sweep,
tests/test_attribute_sweep.py, accepts a refusal only as a clear error). So the tables are the code's
answer at build time, never a hand-kept copy.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

MARKER = "<!-- refused-values-table -->"

SCALAR_TYPES = [
    ("float", float), ("int", int), ("np.float64", np.float64), ("np.float32", np.float32),
    ("np.float16", np.float16), ("np.int64", np.int64), ("np.int32", np.int32),
    ("np.int16", np.int16), ("np.uint8", np.uint8), ("bool", bool),
    ("0-d array", lambda v: np.array(v, dtype=np.float64)),
]
# Values refused whatever their type (bounds, an integer 0 Gymnasium's step
# negates, ints beyond those computed exactly): the value itself is written.
SPECIAL_VALUES = [("int 0", 0), ("0.0", 0.0), ("-0.0", -0.0), ("nan", float("nan")),
                  ("inf", float("inf")), ("2**60", 2 ** 60)]
SCALAR_TYPES += [(label, (lambda v, value=value: value)) for label, value in SPECIAL_VALUES]
STATE_TYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "list"]


def _envs():
    """(kind, class, its attributes) of every env of the registry, from its def."""
    from ccgym import _attributes, _core, _kinds

    return [(kind, _kinds.kind_class(kind), list(_attributes.attributes(kind)))
            for kind in _core.ENV_KINDS]


def _takes(cls, name, make):
    env = cls()
    env.reset(seed=0)
    current = getattr(env, name)
    if isinstance(current, (str, bool)) or not isinstance(current, (int, float, np.number)):
        return None
    base = float(current)
    value = base if make in (float, np.float64, np.float32, np.float16) else max(1, round(base))
    if not math.isfinite(value):
        value = 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            setattr(env, name, make(value))
    except (TypeError, ValueError):
        return False
    return True


def _takes_state(cls, dtype):
    env = cls()
    env.reset(seed=0)
    state = np.asarray(env.state, dtype=np.float64)
    value = state.tolist() if dtype == "list" else (
        np.round(state).astype(dtype) if dtype.startswith("int") else state.astype(dtype))
    try:
        env.state = value
    except (TypeError, ValueError):
        return False
    return True


def tables() -> str:
    mark = {True: "yes", False: "**no**", None: "n/a"}
    out = []
    for kind, cls, names in _envs():
        rows = [(n, [_takes(cls, n, make) for _, make in SCALAR_TYPES])
                for n in names if not n.startswith("_")]
        rows = [(n, cells) for n, cells in rows if any(c is not None for c in cells)]
        out.append(f"**{kind}** (`ccgym.envs.{cls.__name__}`)\n")
        out.append("| attribute | " + " | ".join(t for t, _ in SCALAR_TYPES) + " |")
        out.append("|---" * (len(SCALAR_TYPES) + 1) + "|")
        for n, cells in rows:
            out.append(f"| `{n}` | " + " | ".join(mark[c] for c in cells) + " |")
        out.append("")
    out.append("**`state`** (an array of the dtype, or a list of Python floats)\n")
    out.append("| env | " + " | ".join(STATE_TYPES) + " |")
    out.append("|---" * (len(STATE_TYPES) + 1) + "|")
    for kind, cls, _ in _envs():
        out.append(f"| {kind} | " + " | ".join(mark[_takes_state(cls, d)] for d in STATE_TYPES)
                   + " |")
    out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, **kwargs) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, tables())
    # The known-differences table of the same page (its own module beside
    # this one, loaded from here: mkdocs.yml registers this hook).
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "known_differences.py")
    spec = importlib.util.spec_from_file_location("ccgym_docs_known_differences", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.on_page_markdown(markdown, **kwargs)
