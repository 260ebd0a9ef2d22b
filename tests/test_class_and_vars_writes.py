"""Class-level writes and writes through ``vars(env)`` (issue 45), live
against the installed Gymnasium.

Gymnasium keeps Acrobot's physics as class attributes (a class-level write
changes every env without its own value) and every other attribute in the
env's ``__dict__`` (a class-level write changes no env that has its own; a
write through ``vars(env)`` is the attribute). Each test does the same to a
Gymnasium env and a ccgym env and steps both, bit for bit.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _attributes, _core, _kinds
from reference import reference_id

STEPS = 12


def _gym_class(env_id: str) -> type:
    entry = gym.registry[reference_id(env_id)].entry_point
    module, _, name = entry.partition(":")
    import importlib

    return getattr(importlib.import_module(module), name)


def _pair_classes(env_id: str) -> tuple[type, type]:
    """Fresh subclasses of Gymnasium's and ccgym's class (class-level writes
    on them leave the stock classes alone)."""
    ref = type("RefSub", (_gym_class(env_id),), {})
    ours = type("OurSub", (_kinds.env_class(env_id),), {})
    return ref, ours


def _changed(value):
    """Another valid value of an attribute of Gymnasium's default ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return {"euler": "semi-implicit euler", "semi-implicit euler": "euler",
                "book": "nips", "nips": "book"}[value]
    if isinstance(value, int):
        return value + 1
    return value * 1.25 if value else 0.25


def _run(env, seed: int = 3) -> list[bytes]:
    """Observations and rewards of a seeded episode prefix (actions fixed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, _ = env.reset(seed=seed)
        out = [obs.tobytes()]
        space = env.action_space
        for t in range(STEPS):
            if isinstance(space, gym.spaces.Discrete):
                a = t % int(space.n)
            else:
                a = np.array([(t % 3 - 1) * 0.7], dtype=np.float32)
            try:
                o, r, term, trunc, _ = env.step(a)
            except Exception as e:  # noqa: BLE001 - compared with Gymnasium's
                out.append(type(e).__name__)
                break
            out.append(o.tobytes() + np.float64(r).tobytes() + bytes([term, trunc]))
            if term:
                break
    return out


def _cases():
    for env_id in ccgym.ENV_IDS:
        kind = _kinds.env_class(env_id).kind
        for name in _attributes.attributes(kind):
            yield pytest.param(env_id, name, id=f"{env_id}-{name}")


def _make(env_id: str, ccgym_side: bool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gym.make(f"ccgym/{env_id}" if ccgym_side else reference_id(env_id)).unwrapped


def _default(cls: type, name: str):
    env = cls()
    return getattr(env, name)


@pytest.mark.parametrize("env_id,name", list(_cases()))
def test_class_level_write(env_id, name):
    """``Cls.X = v``: the class reads v; every env (built before or after)
    steps as Gymnasium's does (with v where it has no own value, with its
    own where it has); a later ``env.X = w`` is live; ``del Cls.X`` goes
    back."""
    ref_cls, our_cls = _pair_classes(env_id)
    value = _changed(_default(ref_cls, name))
    ref_old, our_old = ref_cls(), our_cls()
    setattr(ref_cls, name, value)
    setattr(our_cls, name, value)
    assert getattr(our_cls, name) == getattr(ref_cls, name) == value
    ref_new, our_new = ref_cls(), our_cls()
    for ref, ours, which in ((ref_old, our_old, "existing"), (ref_new, our_new, "new")):
        assert getattr(ours, name) == getattr(ref, name), (which, name)
        assert _run(ours) == _run(ref), f"{env_id} {name}: {which} env after the class write"
        other = _changed(value)
        setattr(ref, name, other)
        setattr(ours, name, other)
        assert getattr(ours, name) == other
        assert _run(ours) == _run(ref), f"{env_id} {name}: instance write after the class write"
    delattr(ref_cls, name)
    delattr(our_cls, name)
    ref_late, our_late = ref_cls(), our_cls()
    try:
        ref_expected = _run(ref_late)
    except AttributeError:
        return
    assert _run(our_late) == ref_expected


@pytest.mark.parametrize("env_id", list(ccgym.ENV_IDS))
def test_stock_class_write_keeps_instance_writes_live(env_id):
    """On the stock class itself (restored afterwards): the finding's
    ``CartPoleEnv.gravity = 20.0`` then ``env.X = 5.0``."""
    kind = _kinds.env_class(env_id).kind
    ref_cls, our_cls = _gym_class(env_id), _kinds.env_class(env_id)
    name = next(n for n in _attributes.attributes(kind)
                if not _attributes.is_switch(kind, n) and not n.startswith("_"))
    ref_saved = ref_cls.__dict__.get(name, None)
    value = _changed(_default(ref_cls, name))
    try:
        setattr(ref_cls, name, value)
        setattr(our_cls, name, value)
        ref, ours = _make(env_id, False), _make(env_id, True)
        assert _run(ours) == _run(ref)
        other = _changed(value)
        setattr(ref, name, other)
        setattr(ours, name, other)
        assert _run(ours) == _run(ref), f"{env_id}: {name} written on an env after a class write"
    finally:
        if ref_saved is None:
            delattr(ref_cls, name)
        else:
            setattr(ref_cls, name, ref_saved)
        delattr(our_cls, name)
    assert isinstance(our_cls.__dict__[name], _attributes.ParamAttribute)


def test_subclass_body_values():
    """A subclass body's value of a live attribute is the class's value."""
    ref_cls = type("RefBody", (_gym_class("Acrobot-v1"),), {"LINK_MASS_1": 1.5, "dt": 0.1})
    our_cls = type("OurBody", (_kinds.env_class("Acrobot-v1"),), {"LINK_MASS_1": 1.5,
                                                                    "dt": 0.1})
    ref, ours = ref_cls(), our_cls()
    assert _run(ours) == _run(ref)
    ref.LINK_MASS_1 = ours.LINK_MASS_1 = 0.5
    assert _run(ours) == _run(ref)
    ref_c = type("RefBodyC", (_gym_class("CartPole-v1"),), {"gravity": 20.0})
    our_c = type("OurBodyC", (_kinds.env_class("CartPole-v1"),), {"gravity": 20.0})
    ref, ours = ref_c(), our_c()
    assert ours.gravity == ref.gravity and our_c.gravity == ref_c.gravity
    assert _run(ours) == _run(ref)
    ref.gravity = ours.gravity = 3.0
    assert _run(ours) == _run(ref)


def test_class_write_refused_leaves_everything():
    """A value the attribute write refuses is refused at the class level
    too, the class and its envs unchanged; so is a class-level ``state``."""
    _, our_cls = _pair_classes("Acrobot-v1")
    env = our_cls()
    before = _run(env)
    with pytest.raises(ValueError, match="dt"):
        our_cls.dt = float("nan")
    with pytest.raises(TypeError, match="LINK_MASS_1"):
        our_cls.LINK_MASS_1 = "heavy"
    assert our_cls.dt == 0.2 and _run(env) == before
    with pytest.raises(TypeError, match="state"):
        our_cls.state = [0.0, 0.0, 0.0, 0.0]
    assert isinstance(env.state, np.ndarray)


@pytest.mark.parametrize("env_id,name", list(_cases()))
def test_vars_write(env_id, name):
    """``vars(env)[X] = v`` (and ``env.__dict__.update``) is the attribute
    write, live, as in Gymnasium."""
    ref, ours = _make(env_id, False), _make(env_id, True)
    value = _changed(getattr(ref, name))
    vars(ref)[name] = value
    vars(ours)[name] = value
    assert getattr(ours, name) == getattr(ref, name)
    assert _run(ours) == _run(ref), f"{env_id}: vars(env)[{name!r}] = {value!r}"
    other = _changed(value)
    ref.__dict__.update({name: other})
    ours.__dict__.update({name: other})
    assert _run(ours) == _run(ref), f"{env_id}: env.__dict__.update({name}={other!r})"


def test_vars_write_refused_clearly():
    """A value the attribute write refuses, through vars(env): the same
    refusal, the env unchanged."""
    ours = gym.make("ccgym/CartPole-v1").unwrapped
    before = _run(ours)
    with pytest.raises(TypeError, match="gravity"):
        vars(ours)["gravity"] = "strong"
    assert ours.gravity == 9.8 and _run(ours) == before


def test_vars_write_state():
    """``vars(env)["state"] = s`` is the state write (Gymnasium's plain
    attribute)."""
    ref = gym.make(reference_id("CartPole-v1")).unwrapped
    ours = gym.make("ccgym/CartPole-v1").unwrapped
    for env in (ref, ours):
        env.reset(seed=0)
        vars(env)["state"] = np.array([0.1, 0.0, 0.05, 0.0])
    assert ref.step(1)[0].tobytes() == ours.step(1)[0].tobytes()


def test_copies_keep_class_and_vars_writes():
    """A copy of an env that follows a class value follows it too; a
    vars write is the env's own value in its copies."""
    _, our_cls = _pair_classes("Acrobot-v1")
    ref_cls = type("RefSub2", (_gym_class("Acrobot-v1"),), {})
    our_cls.LINK_MASS_2 = ref_cls.LINK_MASS_2 = 1.5
    ours, ref = our_cls(), ref_cls()
    vars(ours)["LINK_LENGTH_1"] = vars(ref)["LINK_LENGTH_1"] = 1.2
    assert _run(copy.deepcopy(ours)) == _run(ref)
    stock = gym.make("ccgym/Acrobot-v1").unwrapped
    vars(stock)["LINK_LENGTH_1"] = 1.2
    assert pickle.loads(pickle.dumps(stock)).LINK_LENGTH_1 == 1.2


@pytest.mark.parametrize("name,value", [("l", 0.0), ("l", -0.0), ("m", 0.0), ("l", 1e200)])
def test_class_value_gymnasium_step_would_raise_on_is_shadowed_by_init(name, value):
    """Pendulum's __init__ sets l and m on the env: a class-level value the
    step would raise for (3 * g / (2 * l) with l = 0.0; l**2 overflowing)
    does not reach an env built after it, which steps as Gymnasium's (the
    sweep's PendulumCopy-v1 class case found ccgym's step raising)."""
    ref_cls, our_cls = _pair_classes("Pendulum-v1")
    setattr(ref_cls, name, value)
    setattr(our_cls, name, value)
    ref, ours = ref_cls(), our_cls()
    assert getattr(ours, name) == getattr(ref, name)
    assert _run(ours) == _run(ref)


# ------------------------------------------------------------ vars(env) reads

_MISSING = object()


def _live_names(env_id: str) -> list[str]:
    """Every live attribute of env_id's kind: the def's attributes and list
    attributes (Acrobot's AVAIL_TORQUE)."""
    info = _core.env_info(_kinds.env_class(env_id).kind)
    return list(info.attributes) + list(info.list_attributes)


def _as_read(value):
    """A read value as type and bits (a float's sign and NaN payload count)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_as_read(v) for v in value))
    if isinstance(value, (float, np.floating, np.integer, np.ndarray)) and not isinstance(
            value, bool):
        arr = np.asarray(value)
        return (type(value).__name__, arr.dtype.str, arr.shape, arr.tobytes())
    return (type(value).__name__, repr(value))


def _vars_reads(env, names) -> dict:
    """What each way of reading ``vars(env)`` answers for each name."""
    d = vars(env)
    keys = set(d.keys())
    items = dict(d.items())
    out = {}
    for name in names:
        try:
            item = ("value", _as_read(d[name]))
        except KeyError:
            item = ("KeyError",)
        got = d.get(name, _MISSING)
        out[name] = (item, name in d, name in keys,
                     "absent" if got is _MISSING else _as_read(got),
                     _as_read(items[name]) if name in items else "absent")
    return out


def _assert_same_reads(ref, ours, names, where):
    r, o = _vars_reads(ref, names), _vars_reads(ours, names)
    for name in names:
        assert o[name] == r[name], f"{where}: vars(env) read of {name!r}"


@pytest.mark.parametrize("env_id", list(ccgym.ENV_IDS))
def test_vars_read(env_id):
    """``vars(env)[X]``, ``.get``, ``in``, ``keys()``/``items()`` of every
    live attribute answer as Gymnasium's (issue 45): the value, of its type
    and bits, where Gymnasium's env has an instance attribute (every one
    its __init__ sets; one written on the env), KeyError where Gymnasium
    reads it from the class (Acrobot's constants), after each way of
    changing it, and in copies."""
    names = _live_names(env_id)
    ref, ours = _make(env_id, False), _make(env_id, True)
    _assert_same_reads(ref, ours, names, f"{env_id} fresh")
    ref.reset(seed=1)
    ours.reset(seed=1)
    _assert_same_reads(ref, ours, names, f"{env_id} reset")
    for name in names:
        if name == "AVAIL_TORQUE":
            value = [-2.0, 0.0, 2.0]
        else:
            value = _changed(getattr(ref, name))
        setattr(ref, name, value)
        setattr(ours, name, value)
        _assert_same_reads(ref, ours, names, f"{env_id} env.{name} = {value!r}")
        other = value + [1.0] if isinstance(value, list) else _changed(value)
        vars(ref)[name] = other
        vars(ours)[name] = other
        _assert_same_reads(ref, ours, names, f"{env_id} vars(env)[{name!r}] = {other!r}")
        assert vars(ours)[name] is getattr(ours, name), f"{env_id}: {name} read is the object"
    for make_copy in (copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))):
        _assert_same_reads(make_copy(ref), make_copy(ours), names, f"{env_id} copy")
    # A delete (Gymnasium's instance value goes; its class's shows through, or
    # ccgym refuses the delete where the step would need a value).
    for name in names:
        try:
            delattr(ours, name)
        except AttributeError:
            continue
        delattr(ref, name)
        _assert_same_reads(ref, ours, names, f"{env_id} del env.{name}")
    assert _run(ours) == _run(ref), f"{env_id}: stepping after the writes and reads"


@pytest.mark.parametrize("env_id", list(ccgym.ENV_IDS))
def test_vars_read_class_level(env_id):
    """A class-level write puts no entry in an env's ``vars`` (Gymnasium's
    class attribute); setdefault/pop through vars(env) of an attribute the
    env reads from its class answer as Gymnasium's dict does."""
    names = _live_names(env_id)
    ref_cls, our_cls = _pair_classes(env_id)
    name = next(n for n in _attributes.attributes(_kinds.env_class(env_id).kind)
                if not n.startswith("_") and isinstance(_default(ref_cls, n), float))
    value = _changed(_default(ref_cls, name))
    setattr(ref_cls, name, value)
    setattr(our_cls, name, value)
    ref, ours = ref_cls(), our_cls()
    _assert_same_reads(ref, ours, names, f"{env_id} after {name} written on the class")
    for n in names:
        if n not in vars(ref) and isinstance(getattr(ref, n), float):
            other = _changed(getattr(ref, n))
            assert vars(ours).setdefault(n, other) == vars(ref).setdefault(n, other) == other
            _assert_same_reads(ref, ours, names, f"{env_id} vars(env).setdefault({n!r})")
            assert _run(ours) == _run(ref)
            break
    for n in names:
        if n not in vars(ref):
            with pytest.raises(KeyError):
                vars(ref).pop(n)
            with pytest.raises(KeyError):
                vars(ours).pop(n)
            assert vars(ours).pop(n, "dflt") == vars(ref).pop(n, "dflt") == "dflt"
            with pytest.raises(KeyError):
                del vars(ours)[n]
            _assert_same_reads(ref, ours, names, f"{env_id} vars(env).pop({n!r})")
            break


_STATE_LIKE = ("state", "steps_beyond_terminated", "last_u")


@pytest.mark.parametrize("env_id", list(ccgym.ENV_IDS))
def test_vars_read_state(env_id):
    """``vars(env)["state"]`` (and CartPole's steps_beyond_terminated,
    Pendulum's last_u) reads the attribute, or KeyError where Gymnasium's
    env has none yet, before the first reset, after it and after steps."""
    ref, ours = _make(env_id, False), _make(env_id, True)

    def reads(env):
        out = {}
        for name in _STATE_LIKE:
            try:
                out[name] = _as_read(vars(env)[name])
            except KeyError:
                out[name] = "KeyError"
        return out

    assert reads(ours) == reads(ref), f"{env_id} before reset"
    ref.reset(seed=5)
    ours.reset(seed=5)
    assert reads(ours) == reads(ref), f"{env_id} after reset"
    for t in range(3):
        a = (t % int(ref.action_space.n) if isinstance(ref.action_space, gym.spaces.Discrete)
             else np.array([0.5], dtype=np.float32))
        ref.step(a)
        ours.step(a)
        assert reads(ours) == reads(ref), f"{env_id} after step {t}"
    assert vars(ours)["state"] is ours.state
