"""The compatibility page's known-differences table (docs/hooks/
known_differences.py) stays true: every case it lists is still one where
ccgym does otherwise than the installed Gymnasium (a case that no longer
differs must leave the page), and ccgym's side is a clear error or a
documented value, never a crash."""

from __future__ import annotations

import importlib.util
import os

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "docs", "hooks", "known_differences.py")


def _hook():
    spec = importlib.util.spec_from_file_location("known_differences", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_listed_case_still_differs():
    hook = _hook()
    for env_id, code, action, ref, ours, message, why in hook.outcomes():
        assert ref != ours, f"{env_id} {code!r}: no longer differs ({ours}); update the page"
        if ours.startswith(("refused", "raises")):
            assert message, f"{env_id} {code!r}: ccgym's refusal has no message"


def test_page_renders_the_table():
    hook = _hook()
    with open(os.path.join(os.path.dirname(_PATH), "..", "compatibility.md")) as f:
        page = f.read()
    assert hook.MARKER in page
    out = hook.on_page_markdown(page)
    assert hook.MARKER not in out and "| case | Gymnasium | ccgym |" in out


@pytest.mark.parametrize("kind", ["MountainCar", "Pendulum", "Acrobot"])
def test_negated_attributes_listed(kind):
    from ccgym import _attributes

    table = _hook().table()
    for name in _attributes.of_class(kind, "negated"):
        assert f"`{name}`" in table
