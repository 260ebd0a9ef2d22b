"""One validation path per attribute (issue 24, item 2).

Every way a value reaches a Gymnasium attribute's C field -- the single
env's attribute write, its constructor keyword, the vector env's constructor
keyword and ``set_physics`` (a scalar, and an int array of it), SB3's
``env_kwargs`` -- goes through the same check
(``ccgym._attributes.check_value``). Generic over the registry and each
env's C def (``_core.env_info(kind).attributes``, ``physics_fields``,
``keywords``; SB3's when stable-baselines3 is installed): for each attribute and each value, the other paths refuse
what the attribute write refuses; and they take what it takes, but for the
batched envs' two documented extras (finite values only; numpy scalars
Gymnasium would compute with in their own type, docs/compatibility.md). A
refused call leaves the env as it was.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _core, _kinds

try:
    import ccgym.sb3  # noqa: F401  (stable-baselines3 is an optional extra)
    HAVE_SB3 = True
except ImportError:
    HAVE_SB3 = False

# One id per kind (CartPole-v0 and -v1 share a def).
IDS = list({_kinds.env_class(i).kind: i for i in ccgym.ENV_IDS}.values())


def _values(default: float) -> list[tuple[str, Any]]:
    base = float(default) if default and math.isfinite(default) else 1.0
    out: list[tuple[str, Any]] = []
    for v in (base, -base, 0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, 5e-324):
        out.append((f"float {v!r}", v))
    for v in (0, 1, -1, 3, 2 ** 17, 2 ** 17 + 1, 2 ** 53 + 1, 2 ** 60, -(2 ** 60)):
        out.append((f"int {v}", v))
    for t in (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint32, np.uint64, np.longdouble):
        out.append((f"{t.__name__}(3)", t(3)))
    out += [("int64(0)", np.int64(0)), ("int64(2**60)", np.int64(2 ** 60)),
            ("int32(2**17+1)", np.int32(2 ** 17 + 1)), ("float64(nan)", np.float64(math.nan)),
            ("True", True), ("np.bool_", np.bool_(True)), ("None", None), ("str", "1.0"),
            ("0-d float64", np.array(base)), ("0-d int64", np.array(3)),
            ("complex", 1 + 0j)]
    return out


def _cases() -> list[Any]:
    out = []
    for env_id in IDS:
        info = _core.env_info(_kinds.env_class(env_id).kind)
        for attr, field in info.attributes.items():
            if attr in info.switches or not (field in info.physics_fields
                                             or attr in info.keywords.values()):
                continue
            for label, _ in _values(info.param_defaults.get(field, 1.0)):
                out.append(pytest.param(env_id, attr, label, id=f"{env_id}-{attr}-{label}"))
    return out


def _value(env_id: str, attr: str, label: str) -> Any:
    info = _core.env_info(_kinds.env_class(env_id).kind)
    return dict(_values(info.param_defaults.get(info.attributes[attr], 1.0)))[label]


def _outcome(f: Any) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f()
        except (TypeError, ValueError, OverflowError) as e:
            return e
    return None


def _batched_extra(value: Any, e: BaseException) -> bool:
    """A refusal the batched envs add to the attribute write's (documented)."""
    try:
        finite = math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        finite = True
    return ((not finite and "finite" in str(e))
            or (isinstance(value, (np.generic, np.ndarray))
                and "batched envs compute with float64" in str(e)))


@pytest.mark.parametrize("env_id, attr, label", _cases())
def test_every_path_refuses_what_the_attribute_write_refuses(env_id, attr, label):
    value = _value(env_id, attr, label)
    cls = _kinds.env_class(env_id)
    info = _core.env_info(cls.kind)
    field = info.attributes[attr]

    env = gym.make(f"ccgym/{env_id}").unwrapped
    env.reset(seed=0)
    by_attr = _outcome(lambda: setattr(env, attr, value))
    refused = by_attr is not None

    keyword = next((k for k, a in info.keywords.items() if a == attr), None)
    if keyword is not None:
        by_kw = _outcome(lambda: gym.make(f"ccgym/{env_id}", **{keyword: value}))
        assert (by_kw is not None) == refused, (by_attr, by_kw)
        if HAVE_SB3:  # SB3's env_kwargs: the single env's keywords, batched
            by_sb3 = _outcome(lambda: ccgym.sb3.make_vec_env(
                env_id, 2, env_kwargs={keyword: value}))
            assert (by_sb3 is not None) == refused or (
                by_sb3 is not None and _batched_extra(value, by_sb3)), (by_attr, by_sb3)
        if field not in info.physics_fields:  # else the vector keyword is physics, below
            by_vec_kw = _outcome(lambda: ccgym.make_vec(env_id, 2, **{keyword: value}))
            assert (by_vec_kw is not None) == refused or (
                by_vec_kw is not None and _batched_extra(value, by_vec_kw)), (by_attr, by_vec_kw)

    if field in info.physics_fields:
        vec = ccgym.make_vec(env_id, 2)
        vec.reset(seed=0)
        before, snap = vec.get_physics(), vec.get_state()
        for name, path in (
                ("set_physics", lambda: vec.set_physics(**{field: value})),
                ("constructor", lambda: ccgym.make_vec(env_id, 2, **{field: value}))):
            got = _outcome(path)
            if refused:
                assert got is not None, (name, by_attr)
            else:
                assert got is None or _batched_extra(value, got), (name, got)
            if got is not None:
                assert vec.get_physics() == before or np.isnan(value)
                assert vec.get_state()["state_buffer"].tobytes() == \
                    snap["state_buffer"].tobytes()
        if type(value) is int:  # per instance: an int array holding it
            got = _outcome(lambda: vec.set_physics(
                **{field: np.array([value, value], dtype=object).astype(np.int64)}))
            if abs(value) < 2 ** 63:
                assert (got is not None) == refused, (by_attr, got)
