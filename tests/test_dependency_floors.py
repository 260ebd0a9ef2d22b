"""ccgym is exact on every numpy and Gymnasium that pyproject.toml allows.

- The oldest (numpy, Gymnasium) pair tools/dep_matrix.sh tests is the pair of
  floors pyproject.toml declares (so whatever pyproject allows is what the
  matrix tests), and the matrix stays inside pyproject's upper bounds.
- Every public ccgym module imports on the installed Gymnasium.
- Pendulum and MountainCarContinuous equal Gymnasium bit for bit under every
  scalar-promotion mode the installed numpy can run in: numpy >= 2 always
  uses NEP 50; numpy 1.24-1.26 default to the legacy value-based rules and can
  be switched to NEP 50 at run time with ``np._set_promotion_state`` (which
  changes which of Gymnasium's intermediates are float32 and which float64).
  The other three envs compute in float64 throughout and do not depend on it.

Run it on each matrix leg (tools/dep_matrix.sh runs the parity files; add this
one with its PAIR list, or run it in the leg's venv).
"""

from __future__ import annotations

import contextlib
import importlib
import re
import struct
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent


def _floor(requirement: str) -> tuple[int, ...]:
    m = re.search(r">=\s*([0-9][0-9.]*)", requirement)
    assert m, f"no >= floor in {requirement!r}"
    return tuple(int(x) for x in m.group(1).split("."))


def _upper(requirement: str) -> tuple[int, ...] | None:
    m = re.search(r"<\s*([0-9][0-9.]*)", requirement)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def _requirements() -> dict[str, str]:
    if tomllib is None:
        pytest.skip("needs tomllib (Python >= 3.11)")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = {}
    for dep in project["dependencies"]:
        name = re.match(r"[A-Za-z0-9_.-]+", dep).group(0).lower()
        reqs[name] = dep
    return reqs


def _matrix_pairs() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    text = (ROOT / "tools" / "dep_matrix.sh").read_text()
    block = text[text.index("pairs=(\n"):]  # the default list, not pairs=("$@")
    block = block[: block.index(")") + 1]
    pairs = re.findall(r'"([0-9.]+) ([0-9.]+)"', block)
    assert pairs, "no default pairs in tools/dep_matrix.sh"
    return [(tuple(map(int, n.split("."))), tuple(map(int, g.split(".")))) for n, g in pairs]


def test_matrix_covers_the_declared_floors():
    if not (ROOT / "tools" / "dep_matrix.sh").exists():
        pytest.skip("tools/dep_matrix.sh is not in this tree")
    reqs = _requirements()
    np_floor, gym_floor = _floor(reqs["numpy"]), _floor(reqs["gymnasium"])
    pairs = _matrix_pairs()
    oldest_np = min(n for n, _ in pairs)
    oldest_gym = min(g for _, g in pairs)
    # The oldest versions the matrix installs are the floors (same release
    # series: "numpy>=1.24" is tested with 1.24.x, "gymnasium>=1.1" with 1.1.x).
    assert oldest_np[: len(np_floor)] == np_floor, (oldest_np, reqs["numpy"])
    assert oldest_gym[: len(gym_floor)] == gym_floor, (oldest_gym, reqs["gymnasium"])
    assert (np_floor, gym_floor) in {(n[: len(np_floor)], g[: len(gym_floor)]) for n, g in pairs}, (
        "the matrix must run the floors together")
    for name, versions in (("numpy", [n for n, _ in pairs]), ("gymnasium", [g for _, g in pairs])):
        upper = _upper(reqs[name])
        if upper is not None:
            assert all(v < upper for v in versions), (name, versions, reqs[name])


def test_installed_versions_satisfy_pyproject():
    reqs = _requirements()
    for name, module in (("numpy", np), ("gymnasium", gym)):
        installed = tuple(int(x) for x in re.findall(r"\d+", module.__version__)[:3])
        assert installed >= _floor(reqs[name]), (name, module.__version__, reqs[name])


@pytest.mark.parametrize("module", ["ccgym", "ccgym.envs", "ccgym.vector"])
def test_modules_import_on_installed_gymnasium(module):
    importlib.import_module(module)


def _promotion_states() -> list[str | None]:
    if hasattr(np, "_set_promotion_state"):  # numpy 1.24-1.26
        return ["legacy", "weak"]
    return [None]  # numpy >= 2: NEP 50 only


@contextlib.contextmanager
def _promotion(state: str | None):
    if state is None:
        yield
        return
    old = np._get_promotion_state()
    np._set_promotion_state(state)
    try:
        yield
    finally:
        np._set_promotion_state(old)


def _bits(x) -> bytes:
    return np.asarray(x).tobytes()


@pytest.mark.parametrize("state", _promotion_states(), ids=lambda s: s or "nep50")
@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0"])
def test_continuous_parity_under_each_promotion_state(env_id, state):
    import ccgym  # noqa: F401  (registers the ccgym ids)

    rng = np.random.default_rng(5)
    with _promotion(state):
        ref = gym.make(env_id)
        ours = gym.make(f"ccgym/{env_id}")
        for seed in (0, 1, 42):
            r_obs, _ = ref.reset(seed=seed)
            o_obs, _ = ours.reset(seed=seed)
            assert _bits(r_obs) == _bits(o_obs)
            for t in range(120):
                # float32 actions as the action space samples them, some outside the bounds
                high = ref.action_space.high * 1.5
                action = rng.uniform(-high, high).astype(np.float32)
                r = ref.step(action)
                o = ours.step(action)
                where = f"{env_id} promotion={state} seed={seed} step={t}"
                assert _bits(r[0]) == _bits(o[0]), where
                assert struct.pack("<d", float(r[1])) == struct.pack("<d", float(o[1])), where
                assert (r[2], r[3]) == (o[2], o[3]), where
                if r[2] or r[3]:
                    break
        ref.close()
        ours.close()
