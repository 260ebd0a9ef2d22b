"""Gymnasium's public env attributes, live on ccgym's single envs.

Each physical constant or threshold a Gymnasium classic-control env keeps as
an attribute (``CartPoleEnv.gravity``, ``PendulumEnv.max_torque``,
``AcrobotEnv.LINK_MASS_1``, ...) is here a descriptor over one field of the
C params struct: reading gives the value last written (Gymnasium's value and
type), writing sets the field the kernel reads on the next step. The fields
are the C env table's (``_core.env_info(kind).params_dtype``); what is per
env is only which Gymnasium attribute names which field, stated once in
:data:`GYM_PARAMS`.

Derived fields follow Gymnasium's own timing. A params field that is itself a
Gymnasium attribute (CartPole's ``total_mass``, computed once in __init__)
keeps its value when another attribute changes, as in Gymnasium; a derived
field that is not an attribute (Pendulum's ``3 * g / (2 * l)``, Acrobot's
_dsdt terms, which Gymnasium computes in every step) is recomputed by the
table's params_init.

Values: Python ints (|v| <= 2**53; 2**17 where Gymnasium multiplies
attributes together, :data:`INT_PRODUCTS`) and floats everywhere, as
Gymnasium's defaults are; numpy float64/int32/int64 scalars where Gymnasium's
arithmetic with them is the same as with a Python float
(:data:`NUMPY_SCALAR_OK`), numpy float32/float16 ones where numpy promotes
them to float64 at every use (:data:`NUMPY_NARROW_OK`); and numpy
float16/float32/float64/int32/int64 scalars for the attributes whose type
the C params carry (:data:`TYPED`: the step computes with them in numpy's
promotion, ccgym/nptype.h). Anything else (those elsewhere, 0-d arrays,
unsigned or 8/16-bit ints, bools, strings) raises TypeError: with it
Gymnasium would compute in another precision or type, which ccgym does not
model (docs/compatibility.md, "Values ccgym refuses").

Package-internal.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ccgym import _core

# Gymnasium attribute -> params field (the C member's name), per env kind.
GYM_PARAMS: dict[str, dict[str, str]] = {
    "CartPole": {name: name for name in (
        "gravity", "masscart", "masspole", "total_mass", "length", "polemass_length",
        "force_mag", "tau", "theta_threshold_radians", "x_threshold")}
    | {"kinematics_integrator": "euler", "_sutton_barto_reward": "sutton_barto_reward"},
    "MountainCar": {name: name for name in (
        "min_position", "max_position", "max_speed", "goal_position", "goal_velocity",
        "force", "gravity")},
    "MountainCarContinuous": {name: name for name in (
        "min_position", "max_position", "max_speed", "goal_position", "goal_velocity",
        "power")},
    "Pendulum": {name: name for name in ("max_speed", "max_torque", "dt", "g", "m", "l")},
    "Acrobot": {name: name.lower() for name in (
        "dt", "LINK_LENGTH_1", "LINK_LENGTH_2", "LINK_MASS_1", "LINK_MASS_2",
        "LINK_COM_POS_1", "LINK_COM_POS_2", "LINK_MOI", "MAX_VEL_1", "MAX_VEL_2",
        "torque_noise_max")} | {"book_or_nips": "book"},
}

# Attributes whose value Gymnasium compares or combines only with float64
# values, so that a numpy float64 or integer scalar computes as a Python
# float does. Elsewhere (float32 state or actions) numpy's promotion makes a
# numpy scalar change the precision: those take Python numbers only.
NUMPY_SCALAR_OK: dict[str, frozenset[str]] = {
    "CartPole": frozenset(GYM_PARAMS["CartPole"]),
    "MountainCar": frozenset(GYM_PARAMS["MountainCar"]),
    "MountainCarContinuous": frozenset(),
    "Pendulum": frozenset({"g", "dt", "max_speed"}),
    # bound(ns[2], -MAX_VEL_1, MAX_VEL_1) returns a value or the bound itself
    # (into a float64 array); uniform(-t, t) takes its bounds as C doubles.
    "Acrobot": frozenset({"MAX_VEL_1", "MAX_VEL_2", "torque_noise_max"}),
}

# Attributes that also take numpy float32 and float16 scalars: every
# operation Gymnasium's step does with them has a numpy float64 operand (the
# state's elements, np.sin/np.cos/np.square of them, a float64 clip), so
# numpy promotes to float64 and the value computes as float(value) does, on
# numpy 2 (NEP 50) and on numpy 1's value-based promotion alike. Not here
# (TypeError): attributes that meet a Python number, an action or another
# attribute first, where numpy would compute in float32 (CartPole is listed,
# but not while its state is a written list of Python numbers; see
# python_number_state).
NUMPY_NARROW_OK: dict[str, frozenset[str]] = {
    "CartPole": frozenset(GYM_PARAMS["CartPole"]) - {"kinematics_integrator",
                                                      "_sutton_barto_reward"},
    # Only compared with (or clipped against) the float64 position/velocity
    # (the batched envs' rule; the single env takes all seven: TYPED).
    "MountainCar": frozenset({"min_position", "max_position", "goal_position",
                              "goal_velocity"}),
    "MountainCarContinuous": frozenset(),
    # (...) * dt and np.clip(newthdot, ...) meet the float64 newthdot.
    "Pendulum": frozenset({"dt", "max_speed"}),
    "Acrobot": frozenset({"MAX_VEL_1", "MAX_VEL_2", "torque_noise_max"}),
}

# Attributes Gymnasium multiplies with each other (Pendulum's m * l**2,
# Acrobot's _dsdt terms, up to 2 * m2 * l1 * lc2): with int values it does
# so in exact integer arithmetic, which C's doubles match only while every
# product stays below 2**53. Ints there are taken up to 2**17.
INT_PRODUCTS: dict[str, frozenset[str]] = {
    "Pendulum": frozenset({"g", "m", "l"}),
    "Acrobot": frozenset({"LINK_LENGTH_1", "LINK_MASS_1", "LINK_MASS_2", "LINK_COM_POS_1",
                          "LINK_COM_POS_2", "LINK_MOI"}),
}
_MAX_PRODUCT_INT = 2 ** 17

# Attributes whose numpy type the C params carry (a tag field "<field>_t",
# ccgym/nptype.h: 0 a Python number, 1 float16, 2 float32, 3 float64 or a
# numpy int32/int64, which compute as float64 values here): the kernel's
# typed step computes with them as numpy 2 does (NEP 50), line by line.
TYPED: dict[str, frozenset[str]] = {
    "Pendulum": frozenset({"g", "m", "l", "max_torque"}),
    "MountainCarContinuous": frozenset(GYM_PARAMS["MountainCarContinuous"]),
    # (action - 1) * force meets the action's int type; the velocity the
    # state keeps takes the sum's type (ccgym/mountain_car.h).
    "MountainCar": frozenset(GYM_PARAMS["MountainCar"]),
}
# MountainCar's force_t for a Python int force: (action - 1) * force is then
# an integer of a numpy int action's type (include/ccgym/mountain_car.h).
_MC_FORCE_INT = 4
_TAGS = {np.float16: 1, np.float32: 2, np.float64: 3, np.int32: 3, np.int64: 3}
TYPED_SCALARS = tuple(_TAGS)
# Typed attributes that numpy int32 scalars would overflow in Gymnasium's
# int32 products (m * l**2): np.int64 only.
_NO_INT32: dict[str, frozenset[str]] = {"Pendulum": frozenset({"m", "l"})}

# The attribute a continuous action meets first in Gymnasium's step
# (np.clip(u, -max_torque, ...); force * power): a float16/float32 value of
# it makes numpy compute a bool or 8/16-bit integer action in float16 or
# float32, which the env then passes to C as an array of that dtype.
ACTION_OPERAND: dict[str, str] = {"Pendulum": "max_torque", "MountainCarContinuous": "power"}


def typed_number(kind: str, name: str, value: Any) -> tuple[float, int]:
    """(the float C stores, its type tag) of a TYPED attribute's value, or
    TypeError/ValueError."""
    t = type(value)
    if t is int and kind == "MountainCar" and name == "force":
        return number(kind, name, value), _MC_FORCE_INT
    if t is float or t is int:
        return number(kind, name, value), 0
    if t in _TAGS:
        limit = _MAX_PRODUCT_INT if name in INT_PRODUCTS.get(kind, ()) else _MAX_EXACT_INT
        if t is np.int32 and name in _NO_INT32.get(kind, ()):
            raise TypeError(
                f"{name} = {value!r} (int32): Gymnasium's m * l**2 would compute in int32, "
                "which overflows; assign a Python int or np.int64")
        if t in (np.int32, np.int64) and (abs(int(value)) > limit
                                          or int(value) == np.iinfo(t).min):
            raise ValueError(f"{name} = {value!r}: beyond the ints computed exactly ({limit})")
        return float(value), _TAGS[t]
    return number(kind, name, value), 0  # raises for what no path takes


# MountainCar's action types (enum ccgym_mountain_car_action_t): a Python int,
# or a numpy int by its size, as it promotes with a numpy float16.
_MC_ACTION_BY_SIZE = {1: 1, 2: 2, 4: 3, 8: 3}


def mountain_car_action(action: Any, force: Any) -> int:
    """The action type tag of a MountainCar action (0 for a Python int and
    for what the step refuses), or Gymnasium's OverflowError (or a ValueError
    for the int wrap-around it computes) where ``(action - 1) * force`` with
    a Python int force leaves the action's int type."""
    if isinstance(action, np.ndarray):
        dt = action.dtype
    elif isinstance(action, np.generic):
        dt = np.dtype(type(action))
    else:
        return 0
    if dt.kind not in "iu":
        return 0
    if type(force) is int and action.ndim == 0 and 0 <= int(action) <= 2:
        info = np.iinfo(dt)
        if not info.min <= force <= info.max:
            raise OverflowError(f"Python integer {force} out of bounds for {dt}")
        if int(action) == 0 and force == info.min:
            raise ValueError(
                f"MountainCar: (action - 1) * force = -1 * {force} wraps around in {dt} in "
                "Gymnasium's step, which ccgym does not model; assign force as a float")
    return _MC_ACTION_BY_SIZE.get(dt.itemsize, 0)


def cast_action(action: Any, attribute_dtype: np.dtype) -> Any:
    """A bool or small-int continuous action as numpy computes it against an
    attribute of attribute_dtype (float16/float32): an array of the promoted
    float dtype, which holds its values exactly; any other action as it is."""
    if isinstance(action, np.ndarray):
        dt = action.dtype
    elif isinstance(action, (list, tuple)):
        try:
            dt = np.asarray(action).dtype
        except Exception:  # the step's own checks raise for it
            return action
    else:
        return action
    if dt.kind in "biu":
        to = np.result_type(dt, attribute_dtype)
        if to.kind == "f" and to.itemsize < 8:
            return np.asarray(action).astype(to)
    return action


def _book(value: Any) -> bool:
    # Gymnasium reads anything but "nips" as "book"; a typo is refused here.
    if not (isinstance(value, str) and value in ("book", "nips")):
        raise ValueError(f"book_or_nips must be 'book' or 'nips', got {value!r}")
    return value == "book"


# Attributes that are switches: how Gymnasium's step reads the value.
SWITCHES: dict[str, Callable[[Any], bool]] = {
    "kinematics_integrator": lambda v: isinstance(v, str) and v == "euler",
    "_sutton_barto_reward": bool,
    "book_or_nips": _book,
}

_MAX_EXACT_INT = 2 ** 53
# CartPole's np.square(theta_dot), Pendulum's thdot**2: exact in int32.
_MAX_SQUARED_INT = 46340

# Params fields params_init sets to a constant that an attribute other than
# a GYM_PARAMS one may change (Acrobot's AVAIL_TORQUE): kept on every write.
KEPT: dict[str, set[str]] = {"Acrobot": {"torque_0", "torque_1", "torque_2"}}


def number(kind: str, name: str, value: Any) -> float:
    """``value`` as the float C stores, or TypeError/ValueError if Gymnasium
    would compute with it differently from a Python float."""
    limit = _MAX_PRODUCT_INT if name in INT_PRODUCTS.get(kind, ()) else _MAX_EXACT_INT
    if type(value) is float:
        return value
    if type(value) is int:
        if abs(value) > limit:
            why = ("Gymnasium multiplies it with other attributes in exact int arithmetic"
                   if limit < _MAX_EXACT_INT else "not exact as floats")
            raise ValueError(f"{name} = {value}: ints beyond {limit} ({why}) do not compute "
                             "as C's doubles do; assign a float")
        return float(value)
    if isinstance(value, np.ndarray):
        raise TypeError(
            f"{name} must be a scalar, got a numpy array {value!r}: Gymnasium would keep that "
            "array and see later in-place changes to it, which ccgym cannot; assign "
            "value[()] (a numpy scalar) or float(value)")
    numpy_ok = name in NUMPY_SCALAR_OK[kind]
    narrow_ok = name in NUMPY_NARROW_OK[kind]
    if isinstance(value, np.integer) and numpy_ok:
        # Unsigned and 8/16-bit ints wrap in Gymnasium's -value and products.
        if value.dtype.kind != "i" or value.dtype.itemsize < 4:
            raise TypeError(
                f"{name} = {value!r} ({type(value).__name__}): Gymnasium's arithmetic with "
                "it can wrap around; assign a Python int or np.int64")
        if abs(int(value)) > limit or int(value) == np.iinfo(value.dtype).min:
            raise ValueError(f"{name} = {value!r}: beyond the ints computed exactly")
        return float(value)
    if type(value) is np.float64 and numpy_ok:
        return float(value)
    if type(value) in (np.float32, np.float16) and narrow_ok:
        return float(value)
    if type(value) in (np.float64, np.float32, np.float16) or isinstance(value, np.integer):
        where = ", ".join(sorted(NUMPY_NARROW_OK[kind])) or "none"
        raise TypeError(
            f"{name} = {value!r} ({type(value).__name__}): Gymnasium's step would combine it "
            f"with a Python number, an action or another attribute in {value.dtype} "
            "arithmetic (numpy's promotion), which ccgym does not model; assign a Python "
            f"float (float(value)). {kind} attributes taking numpy float32/float16: {where}")
    raise TypeError(
        f"{name} must be a real number, got {value!r} ({type(value).__name__}): Gymnasium's "
        "arithmetic with it would use another precision or type, which ccgym does not model")


def step_error(kind: str, faces: dict[str, Any]) -> Exception | None:
    """The exception Gymnasium's step raises, whatever the state and action,
    with these attribute values, else None. Pendulum's step computes
    ``3 * g / (2 * l)`` and ``3.0 / (m * l**2)``: with Python numbers a zero
    divisor raises ZeroDivisionError and ``l**2`` of a huge float raises
    OverflowError (numpy scalars give inf or NaN instead, which the kernel
    computes as numpy does). Evaluated here with Gymnasium's own
    expressions on the Python numbers, so the exception is Python's."""
    if kind != "Pendulum":
        return None
    g, m, l = faces.get("g", 10.0), faces.get("m", 1.0), faces.get("l", 1.0)  # noqa: E741
    py = (int, float)
    if type(l) not in py:
        return None
    try:
        if type(g) in py:
            3 * g / (2 * l)
        squared = l**2
        if type(m) in py:
            3.0 / (m * squared)
    except (ZeroDivisionError, OverflowError) as e:
        return e
    return None


def python_number_state(value: Any) -> bool:
    """Whether a written state holds Python ints/floats (not numpy scalars):
    Gymnasium's CartPole then computes x + tau * x_dot with them directly."""
    return isinstance(value, (list, tuple)) and any(type(x) in (int, float) for x in value)


def narrow_faces(env: Any) -> list[str]:
    """The attributes of env holding numpy float32/float16 scalars."""
    return [name for name, v in env.__dict__.get("_attr_faces", {}).items()
            if type(v) in (np.float32, np.float16)]


def write_params(core: Any, kind: str, changes: dict[str, float]) -> None:
    """Sets params fields of a one-instance C batch of ``kind`` (a single
    env's core, passed by the env: its public ``batch`` first writes back
    handed-out values, and this is one of those writes): ``changes`` (field
    -> value) verbatim, the other attribute fields kept, the non-attribute
    derived fields recomputed from the inputs by the table's params_init. One
    call under the core's guard: a concurrent step sees the old or the new set."""
    info = _core.env_info(kind)
    record = core.params_buffer.view(info.params_dtype)[:1].copy()[0]
    for field, value in changes.items():
        record[field] = value
    inputs = {f: (bool(record[f]) if f in info.bool_fields else float(record[f]))
              for f in info.param_fields}
    kept = set(GYM_PARAMS[kind].values()) | set(info.param_fields) | KEPT.get(kind, set())

    def apply() -> None:
        core.set_params(inputs)
        live = core.params_buffer.view(info.params_dtype)
        for field in kept:
            live[0][field] = record[field]

    core.exclusive(apply)


class ParamAttribute:
    """A Gymnasium attribute over one C params field of a single env."""

    def __init__(self, name: str, class_default: Any = None,
                 check: Callable[[Any, Any], None] | None = None) -> None:
        self.name = name
        self.class_default = class_default
        self.check = check
        self.__doc__ = f"Gymnasium's ``{name}`` (live: writing it changes the next steps)."

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self if self.class_default is None else self.class_default
        faces = env.__dict__.get("_attr_faces", {})
        if self.name in faces:
            return faces[self.name]
        if self.class_default is not None:
            return self.class_default
        raise AttributeError(self.name)

    def __set__(self, env: Any, value: Any) -> None:
        if not env.__dict__.get("_attr_live"):
            # In __init__: Gymnasium's defaults, which the C params already hold.
            env.__dict__.setdefault("_attr_faces", {})[self.name] = value
            return
        kind = env.kind
        field = GYM_PARAMS[kind][self.name]
        tag_change: dict[str, int] = {}
        if self.name in SWITCHES:
            c_value = float(SWITCHES[self.name](value))
        elif self.name in TYPED.get(kind, ()):
            c_value, tag = typed_number(kind, self.name, value)
            tag_change[field + "_t"] = tag
        else:
            c_value = number(kind, self.name, value)
            if (kind == "CartPole" and type(value) in (np.float32, np.float16)
                    and python_number_state(env._current_state_object())):
                raise TypeError(
                    f"{self.name} = {value!r}: the state is a written list of Python numbers, "
                    "with which Gymnasium's next step would compute x + tau * x_dot in "
                    f"{value.dtype}; assign a Python float, or the state as a float64 array")
        if self.check is not None:
            self.check(self.name, c_value)
        env._write_params({field: c_value, **tag_change})
        env.__dict__.setdefault("_attr_faces", {})[self.name] = value
        if kind in ("Pendulum", "MountainCar"):
            env._bind_step()  # step_error, or whether the action's type matters
        if ACTION_OPERAND.get(kind) == self.name:
            narrow = type(value) in (np.float16, np.float32)
            env.__dict__["_narrow_action"] = np.dtype(type(value)) if narrow else None
            env._bind_step()


def install(cls: type, checks: dict[str, Callable[[Any, Any], None]] | None = None) -> type:
    """Makes every Gymnasium attribute of cls.kind a ParamAttribute of cls
    (a class-level value there, as Acrobot's constants, becomes its default)."""
    checks = checks or {}
    for name in GYM_PARAMS[cls.kind]:
        default = cls.__dict__.get(name)
        if isinstance(default, property):
            default = None
        setattr(cls, name, ParamAttribute(name, default, checks.get(name)))
    return cls


def faces(env: Any) -> dict[str, Any]:
    """The attribute values written on env (for pickling and copies)."""
    return dict(env.__dict__.get("_attr_faces", {}))


# ------------------------------------------------------------------ state

def state_array(kind: str, value: Any, length: int,
                float32_ok: bool) -> tuple[np.ndarray, bool]:
    """A written ``state`` as (float64 values, was float32), or TypeError /
    ValueError for a value Gymnasium's step would compute with differently."""
    if isinstance(value, (list, tuple)):
        for x in value:
            # np.asarray would make a mixed list float64, but Gymnasium
            # unpacks it and computes with each element's own type.
            if not (type(x) in (int, float, np.float64, np.int64, np.int32)
                    or isinstance(x, np.ndarray)):
                raise TypeError(
                    f"{kind} state element {x!r} ({type(x).__name__}): Gymnasium's step "
                    "would compute with its type; use Python numbers or float64")
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu" or arr.shape != (length,):
        raise ValueError(
            f"{kind} state must be {length} real numbers (an array of shape ({length},)), "
            f"got {value!r}")
    is32 = arr.dtype == np.float32
    if arr.dtype.kind == "f" and arr.dtype != np.float64 and not (is32 and float32_ok):
        raise TypeError(
            f"{kind} state of dtype {arr.dtype}: Gymnasium's next step would compute in "
            "that precision, which ccgym does not model; assign float64 values")
    if arr.dtype.kind in "iu" and arr.dtype.itemsize < 4:
        raise TypeError(
            f"{kind} state of dtype {arr.dtype}: Gymnasium's np.sin/np.cos/np.square of it "
            "compute in float16/float32 (or wrap around); assign float64 values")
    if (kind in ("CartPole", "Pendulum") and arr.dtype.kind in "iu"
            and np.any(np.abs(arr.astype(np.float64)) > _MAX_SQUARED_INT)):
        raise ValueError(
            f"{kind} state: integers beyond {_MAX_SQUARED_INT}: Gymnasium squares them "
            "in their int type, which overflows; assign float64 values")
    if arr.dtype.kind in "iu" and np.any(np.abs(arr.astype(np.float64)) > _MAX_EXACT_INT):
        raise ValueError(f"{kind} state: integers beyond 2**53 are not exact as floats")
    return arr.astype(np.float64), bool(is32)


def snapshot(obj: Any) -> Any:
    """What a handed-out ``state`` holds now, to tell later whether it was
    mutated in place: an array's dtype, shape and bytes; a list's (or a
    tuple's holding arrays) items and their arrays' bytes; None for an
    object that cannot change (a tuple of numbers)."""
    if isinstance(obj, np.ndarray):
        return (obj.dtype, obj.shape, obj.tobytes())
    if isinstance(obj, (list, tuple)):
        items = tuple((x, snapshot(x) if isinstance(x, (np.ndarray, list, tuple)) else None)
                      for x in obj)
        if isinstance(obj, tuple) and all(s is None for _, s in items):
            return None
        return (type(obj), len(obj), items)
    return None


def same_snapshot(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a[0], np.dtype):
        return a[0] == b[0] and a[1] == b[1] and a[2] == b[2]
    return (a[0] is b[0] and a[1] == b[1] and all(
        x is y and same_snapshot(sx, sy) for (x, sx), (y, sy) in zip(a[2], b[2])))


def check_position(kind: str, position: float) -> None:
    """The mountain cars' step takes math.cos(3 * position), which raises
    for an infinite position: refuse it (ValueError, as Gymnasium's step)."""
    if math.isinf(3.0 * float(position)):
        raise ValueError(
            f"{kind} state: position {position}: 3 * position is infinite; Gymnasium's step raises "
            "ValueError (math domain error) in math.cos(3 * position)")


def torques(value: Any) -> tuple[float, float, float]:
    """Acrobot's AVAIL_TORQUE as the three torques C stores, or TypeError /
    ValueError. Gymnasium's step takes ``AVAIL_TORQUE[a]`` (a = 0, 1, 2),
    adds the noise (a Python float) and appends it to the state for rk4 in
    float64: Python ints/floats and numpy float64/int64 values compute as
    float(value) does; a numpy float32/float16 one would round the noisy
    torque to its precision (NEP 50), which ccgym does not model."""
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"AVAIL_TORQUE must be a list, tuple or array of torques, got {value!r}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"AVAIL_TORQUE must be one-dimensional, got shape {value.shape}")
    if len(value) < 3:
        raise ValueError(
            f"AVAIL_TORQUE needs a torque for each of the 3 actions, got {value!r}")
    out = []
    for x in value[:3]:
        if type(x) is float or type(x) is np.float64:
            out.append(float(x))
        elif (type(x) is int or type(x) is np.int64) and abs(int(x)) <= _MAX_EXACT_INT:
            out.append(float(x))
        else:
            raise TypeError(
                f"AVAIL_TORQUE: torque {x!r} ({type(x).__name__}) must be a Python int or "
                "float (or a numpy float64/int64): Gymnasium would compute with it in another "
                "precision or type")
    return out[0], out[1], out[2]
