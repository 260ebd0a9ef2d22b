"""Gymnasium's public env attributes, live on ccgym's single envs.

Each physical constant or threshold a Gymnasium classic-control env keeps as
an attribute (``CartPoleEnv.gravity``, ``PendulumEnv.max_torque``,
``AcrobotEnv.LINK_MASS_1``, ...) is here a descriptor over one field of the
C params struct: reading gives the value last written (Gymnasium's value and
type), writing sets the field the kernel reads on the next step. The fields
are the C env table's (``_core.env_info(kind).params_dtype``); what is per
env is only which Gymnasium attribute names which field, stated once in
its field's ``attr`` in the C env def (``_core.env_info(kind).attributes``).

Derived fields follow Gymnasium's own timing. A params field that is itself a
Gymnasium attribute (CartPole's ``total_mass``, computed once in __init__)
keeps its value when another attribute changes, as in Gymnasium; a derived
field that is not an attribute (Pendulum's ``3 * g / (2 * l)``, Acrobot's
_dsdt terms, which Gymnasium computes in every step) is recomputed by the
table's params_init.

Values: Python ints (|v| <= 2**53; 2**17 where Gymnasium multiplies
attributes together: class ``int_product``) and floats everywhere, as
Gymnasium's defaults are; numpy float64/int32/int64 scalars where Gymnasium's
arithmetic with them is the same as with a Python float
(class ``numpy``), numpy float32/float16 ones where numpy promotes
them to float64 at every use (class ``narrow``); and numpy
float16/float32/float64/int32/int64 scalars for the attributes whose type
the C params carry (class ``typed``: the step computes with them in numpy's
promotion, ccgym/nptype.h). Anything else (those elsewhere, 0-d arrays,
unsigned or 8/16-bit ints, bools, strings) raises TypeError: with it
Gymnasium would compute in another precision or type, which ccgym does not
model (docs/compatibility.md, "Values ccgym refuses").

Package-internal.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ccgym import _core

# Every fact of an attribute is its params field's in the C env def
# (CCGYM_ATTR/CCGYM_SWITCH in src/<env>.c; ccgym._core.env_info(kind):
# ``attributes`` maps each Gymnasium attribute to its field, ``attr_class``
# gives its numeric-typing class, ``switches`` the switches' choices,
# ``kept_fields`` what a write keeps). The classes (enum ccgym_attr_class):
#   numpy: Gymnasium compares or combines it only with float64 values, so a
#     numpy float64 or integer scalar computes as a Python float does.
#     Elsewhere (float32 state or actions) numpy's promotion makes a numpy
#     scalar change the precision: those take Python numbers only.
#   narrow: numpy float32/float16 scalars too: every operation Gymnasium's
#     step does with it has a numpy float64 operand (the state's elements,
#     np.sin/np.cos/np.square of them, a float64 clip), so numpy promotes to
#     float64 and the value computes as float(value) does.
#   int_product: Gymnasium multiplies it with other attributes (Pendulum's
#     m * l**2, Acrobot's _dsdt terms): with int values it does so in exact
#     integer arithmetic, which C's doubles match only while every product
#     stays below 2**53. Ints there are taken up to 2**17.
#   typed: the C params carry its numpy type (a tag field "<field>_t",
#     ccgym/nptype.h: 0 a Python number, 1 float16, 2 float32, 3 float64 or
#     a numpy int32/int64, which compute as float64 values here): the
#     kernel's typed step computes with it as numpy 2 does (NEP 50).
#   no_int32: a typed attribute numpy int32 values would overflow in
#     Gymnasium's int32 products (m * l**2): np.int64 only.
#   py_int_tag: a typed attribute for which a Python int is a type of its
#     own (MountainCar's (action - 1) * force is then an integer of a numpy
#     int action's type, include/ccgym/mountain_car.h).
#   action_operand: the attribute a continuous action meets first
#     (np.clip(u, -max_torque, ...); force * power): a float16/float32 value
#     of it makes numpy compute a bool or 8/16-bit integer action in float16
#     or float32, which the env then passes to C as an array of that dtype.
#   rebinds: a write makes the single env pick its step again.
#   negated: Gymnasium's step negates it (-force_mag, -gravity) or
#     multiplies it by -1 ((action - 1) * force): integer zeros are refused.
_CLASS = _core.ATTR_CLASSES
_MAX_PRODUCT_INT = 2 ** 17
_TAGS = {np.float16: 1, np.float32: 2, np.float64: 3, np.int32: 3, np.int64: 3}
TYPED_SCALARS = tuple(_TAGS)


def attributes(kind: str) -> dict[str, str]:
    """Gymnasium attribute -> params field of an env kind, from its C def."""
    return _core.env_info(kind).attributes


def has_class(kind: str, name: str, cls: str) -> bool:
    """Whether Gymnasium attribute ``name`` of ``kind`` is of typing class
    ``cls`` (a key of ``ccgym._core.ATTR_CLASSES``)."""
    return bool(_core.env_info(kind).attr_class.get(name, 0) & _CLASS[cls])


def of_class(kind: str, cls: str) -> list[str]:
    """The attributes of ``kind`` of typing class ``cls``, in field order."""
    return [name for name in attributes(kind) if has_class(kind, name, cls)]


@functools.cache  # a kind's def never changes once registered
def action_operand(kind: str) -> str | None:
    """The attribute a continuous action of ``kind`` meets first, or None."""
    return next(iter(of_class(kind, "action_operand")), None)


def integer_operand(kind: str, values: Mapping[str, Any]) -> str | None:
    """The name of ``kind``'s action operand (:func:`action_operand`) when
    ``values`` (attribute -> value) give it an integer (a Python or numpy
    int, or an int array), else None: numpy then computes a bool or integer
    action with it in the action's integer type, which the front ends refuse
    (``_front_core.FrontBatch.integer_operand``)."""
    if not values:
        return None
    name = action_operand(kind)
    if name is None or name not in values:
        return None
    v = values[name]
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)) or (isinstance(v, np.ndarray) and v.dtype.kind in "iu"):
        return name
    return None


def check_bounds(kind: str, name: str, value: float) -> float:
    """``value`` (the float C stores), or ValueError where attribute ``name``
    of ``kind`` is bounded (CCGYM_ATTR_BOUNDED) and the value is not finite
    or outside its [lo, hi]: one check for constructor keywords, attribute
    writes and the batched envs' physics alike."""
    bounds = _core.env_info(kind).attr_bounds.get(name)
    if bounds is not None and not (math.isfinite(value) and bounds[0] <= value <= bounds[1]):
        raise ValueError(f"{name} must be finite and in [{bounds[0]:g}, {bounds[1]:.4g}], "
                         f"got {value}")
    return value


def check_value(kind: str, name: str, value: Any) -> tuple[float, dict[str, int]]:
    """The one check of a value for Gymnasium attribute ``name`` of ``kind``,
    wherever it comes from (an attribute write, a constructor keyword, a
    vector env's keyword or ``set_physics``, SB3's ``env_kwargs``): (the
    float C stores, the type tag fields to write with it), or
    TypeError/ValueError for a value the attribute write refuses. (The
    batched envs refuse more on top: :func:`ccgym._params.batch_scalar`;
    the single env adds its own quirks: ``_check_attribute``.)"""
    if is_switch(kind, name):
        return float(switch_value(kind, name, value)), {}
    if (has_class(kind, name, "negated") and isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_)) and value == 0
            and not (type(value) is int and has_class(kind, name, "py_int_tag"))):
        # (A Python int of a py_int_tag attribute is a type of its own, whose
        # zero the kernel keeps unsigned: MountainCar's (action - 1) * force.)
        raise ValueError(
            f"{name} = {value!r}: Gymnasium's step negates it, and an integer 0 "
            "negates to 0 where ccgym's -0.0 carries a sign (a zero's sign in the "
            "observation would differ); assign 0.0")
    if has_class(kind, name, "typed"):
        c_value, tag = typed_number(kind, name, value)
        tags = {attributes(kind)[name] + "_t": tag}
    else:
        c_value, tags = number(kind, name, value), {}
    return check_bounds(kind, name, c_value), tags


def is_switch(kind: str, name: str) -> bool:
    return name in _core.env_info(kind).switches


def switch_value(kind: str, name: str, value: Any) -> bool:
    """How Gymnasium's step reads switch attribute ``name``: the field's
    0/1. A switch with one choice is on when the value equals it (anything
    else is off, as Gymnasium's ``==``); one with several takes only them
    (ValueError for a typo, which Gymnasium would silently read as off); a
    switch without choices is the value's truth."""
    choices = _core.env_info(kind).switches[name]
    if choices is None:
        return bool(value)
    if len(choices) > 1 and not (isinstance(value, str) and value in choices):
        raise ValueError(f"{name} must be " + " or ".join(repr(c) for c in choices)
                         + f", got {value!r}")
    return isinstance(value, str) and value == choices[0]


def typed_number(kind: str, name: str, value: Any) -> tuple[float, int]:
    """(the float C stores, its type tag) of a typed attribute's value, or
    TypeError/ValueError."""
    t = type(value)
    if t is int and has_class(kind, name, "py_int_tag"):
        return number(kind, name, value), _core.T_PYINT
    if t is float or t is int:
        return number(kind, name, value), 0
    if t in _TAGS:
        limit = _MAX_PRODUCT_INT if has_class(kind, name, "int_product") else _MAX_EXACT_INT
        if t is np.int32 and has_class(kind, name, "no_int32"):
            raise TypeError(
                f"{name} = {value!r} (int32): Gymnasium's m * l**2 would compute in int32, "
                "which overflows; assign a Python int or np.int64")
        if t in (np.int32, np.int64) and (abs(int(value)) > limit
                                          or int(value) == np.iinfo(t).min):
            raise ValueError(f"{name} = {value!r}: beyond the ints computed exactly ({limit})")
        return float(value), _TAGS[t]
    return number(kind, name, value), 0  # raises for what no path takes


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


_MAX_EXACT_INT = 2 ** 53
# CartPole's np.square(theta_dot), Pendulum's thdot**2: exact in int32.
_MAX_SQUARED_INT = 46340

def number(kind: str, name: str, value: Any) -> float:
    """``value`` as the float C stores, or TypeError/ValueError if Gymnasium
    would compute with it differently from a Python float."""
    limit = _MAX_PRODUCT_INT if has_class(kind, name, "int_product") else _MAX_EXACT_INT
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
            f"{name} must be a real number (a scalar), got a numpy array {value!r}: Gymnasium "
            "would keep that "
            "array and see later in-place changes to it, which ccgym cannot; assign "
            "value[()] (a numpy scalar) or float(value)")
    numpy_ok = has_class(kind, name, "numpy")
    narrow_ok = has_class(kind, name, "narrow")
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
        where = ", ".join(sorted(of_class(kind, "narrow"))) or "none"
        raise TypeError(
            f"{name} = {value!r} ({type(value).__name__}): Gymnasium's step would combine it "
            f"with a Python number, an action or another attribute in {value.dtype} "
            "arithmetic (numpy's promotion), which ccgym does not model; assign a Python "
            f"float (float(value)). {kind} attributes taking numpy float32/float16: {where}")
    raise TypeError(
        f"{name} must be a real number, got {value!r} ({type(value).__name__}): Gymnasium's "
        "arithmetic with it would use another precision or type, which ccgym does not model")


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
    kept = set(info.attributes.values()) | set(info.param_fields) | set(info.kept_fields)

    def apply() -> None:
        core.set_params(inputs)
        live = core.params_buffer.view(info.params_dtype)
        for field in kept:
            live[0][field] = record[field]

    core.exclusive(apply)


class ParamAttribute:
    """A Gymnasium attribute over one C params field of a single env.

    An env's own value (written on it, or by its ``__init__``, as
    Gymnasium's instance attributes) is its face (``_attr_faces``); an env
    without one reads and steps with its class's value: a class-level write
    (``AcrobotEnv.LINK_MASS_1 = 2.0``, or a subclass body's value), kept in
    the class under :func:`class_key` by the envs' metaclass
    (``ccgym.envs._base._EnvType``) so that this descriptor stays in place and
    later instance writes stay live; else the def's default
    (``class_default``: CCGYM_ATTR_CLASS_LEVEL)."""

    def __init__(self, name: str, class_default: Any = None) -> None:
        self.name = name
        self.class_default = class_default
        self.__doc__ = f"Gymnasium's ``{name}`` (live: writing it changes the next steps)."

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            owner_cls, value = class_value(owner, self.name)
            if owner_cls is not None:
                return value
            return self if self.class_default is None else self.class_default
        faces = env.__dict__.get("_attr_faces", {})
        if self.name in faces:
            return faces[self.name]
        owner_cls, value = class_value(type(env), self.name)
        if owner_cls is not None:
            return value
        if self.class_default is not None:
            return self.class_default
        raise AttributeError(self.name)

    def __set__(self, env: Any, value: Any) -> None:
        if not env.__dict__.get("_attr_live"):
            # In __init__: Gymnasium's defaults, which the C params already hold.
            set_face(env, self.name, value)
            return
        write_live(env, self.name, value, own=True)

    def __delete__(self, env: Any) -> None:
        # As Gymnasium's ``del env.X``: the env then reads (and steps with)
        # its class's value. Where the class has none (an attribute
        # Gymnasium sets in __init__), Gymnasium's next step raises
        # AttributeError; ccgym refuses the delete instead, the env unchanged.
        faces = env.__dict__.get("_attr_faces", {})
        if self.name not in faces:
            raise AttributeError(self.name)
        owner_cls, value = class_value(type(env), self.name)
        if owner_cls is None and self.class_default is None:
            raise AttributeError(
                f"{type(env).__name__}.{self.name} cannot be deleted: its class has no "
                f"value of it, and Gymnasium's step needs one; assign another value")
        if owner_cls is None:
            value = self.class_default
        write_live(env, self.name, value, own=False)
        drop_face(env, self.name)
        env._bind_step()


def set_face(env: Any, name: str, value: Any) -> None:
    """Makes ``value`` env's own value of live attribute ``name`` (its face,
    which the descriptor reads), and puts it under ``name`` in the env's
    ``__dict__`` too, where Gymnasium's instance attribute is: a read through
    ``vars(env)`` (``[name]``, ``get``, ``in``, ``items()``, ...) then sees
    what Gymnasium's does. Attribute lookups never read that entry (the
    descriptor is a data descriptor, which wins over the instance dict), so
    the step path is unchanged. Every change of a face goes through here or
    :func:`drop_face`."""
    d = env.__dict__
    d.setdefault("_attr_faces", {})[name] = value
    dict.__setitem__(d, name, value)


def drop_face(env: Any, name: str) -> None:
    """Env has no own value of ``name`` any more (``del env.X``): it reads
    its class's, and ``vars(env)`` no longer holds ``name``, as in Gymnasium."""
    d = env.__dict__
    d.get("_attr_faces", {}).pop(name, None)
    dict.pop(d, name, None)


def write_live(env: Any, name: str, value: Any, own: bool) -> None:
    """Makes ``value`` the value env steps with for attribute ``name``: its
    own (``own``: an attribute write, kept as its face) or its class's (a
    class-level write; no face). Refused (TypeError/ValueError) before
    anything changes where the attribute write refuses it."""
    kind = env.kind
    field = attributes(kind)[name]
    c_value, tag_change = check_value(kind, name, value)
    if not is_switch(kind, name):
        env._check_attribute(name, value)  # the env's own quirks, if any
    env._write_params({field: c_value, **tag_change})
    if own:
        set_face(env, name, value)
    if has_class(kind, name, "action_operand"):
        narrow = type(value) in (np.float16, np.float32)
        env.__dict__["_narrow_action"] = np.dtype(type(value)) if narrow else None
    # A typed step, a step Gymnasium's would raise in (the env's
    # _gym_step_error, of any attribute), an action cast: pick the step again.
    env._bind_step()


def class_key(name: str) -> str:
    """Where a class keeps its class-level value of live attribute ``name``."""
    return "_ccgym_class_value_" + name


def class_value(cls: type | None, name: str) -> tuple[type | None, Any]:
    """(the class of cls's MRO whose class-level value of ``name`` an env
    of cls without its own reads, that value), or (None, None)."""
    if cls is None or not getattr(cls, "_ccgym_class_values", False):
        return None, None
    key = class_key(name)
    for klass in cls.__mro__:
        if key in klass.__dict__:
            return klass, klass.__dict__[key]
    return None, None


def effective_faces(env: Any) -> dict[str, Any]:
    """Each attribute's value env steps with, where Gymnasium's type of it
    matters (_gym_step_error): its own, else its class's class-level value."""
    faces = env.__dict__.get("_attr_faces", {})
    cls = type(env)
    if not getattr(cls, "_ccgym_class_values", False):
        return faces
    out = dict(faces)
    for name in attributes(env.kind):
        if name not in out:
            owner, value = class_value(cls, name)
            if owner is not None:
                out[name] = value
    return out


def set_class_value(cls: type, name: str, value: Any, envs: Any) -> None:
    """``cls.<name> = value`` for a live attribute: as in Gymnasium, the
    value of every env of cls (existing and new) without its own value
    (nor a closer class's). Refused (TypeError/ValueError, the class and
    every env unchanged) where an env's attribute write would refuse it."""
    kind = cls.kind
    check_value(kind, name, value)
    key = class_key(name)
    had = key in cls.__dict__
    old = cls.__dict__.get(key)
    flag = cls.__dict__.get("_ccgym_class_values")
    type.__setattr__(cls, "_ccgym_class_values", True)
    type.__setattr__(cls, key, value)
    try:
        followers = _followers(cls, name, envs)
        if not is_switch(kind, name):
            for env in followers:
                env._check_attribute(name, value)
    except BaseException:
        if had:
            type.__setattr__(cls, key, old)
        else:
            type.__delattr__(cls, key)
        if flag is None:
            type.__delattr__(cls, "_ccgym_class_values")
        raise
    for env in followers:
        write_live(env, name, value, own=False)


def delete_class_value(cls: type, name: str, envs: Any) -> None:
    """``del cls.<name>`` after a class-level write: the envs following it
    take the next class's value (or the def's default). Refused
    (AttributeError) where cls has no class-level value of its own."""
    key = class_key(name)
    if key not in cls.__dict__:
        raise AttributeError(
            f"{cls.__name__}.{name} cannot be deleted: ccgym's step needs a value for "
            "every env (Gymnasium's would raise AttributeError); assign another value")
    followers = _followers(cls, name, envs)
    old = cls.__dict__[key]
    type.__delattr__(cls, key)
    try:
        for env in followers:
            owner, value = class_value(type(env), name)
            if owner is None:
                value = getattr(type(env), name)  # the def's default (class_default)
                if isinstance(value, ParamAttribute):
                    raise AttributeError(
                        f"{cls.__name__}.{name} cannot be deleted: {env!r} has no value "
                        "of its own and would have none")
            write_live(env, name, value, own=False)
    except BaseException:
        type.__setattr__(cls, key, old)
        for env in followers:
            write_live(env, name, old, own=False)
        raise


def _followers(cls: type, name: str, envs: Any) -> list[Any]:
    """The built envs of cls that read cls's class-level value of ``name``."""
    out = []
    for env in list(envs):
        if (isinstance(env, cls) and env.__dict__.get("_attr_live")
                and name not in env.__dict__.get("_attr_faces", {})
                and class_value(type(env), name)[0] is cls):
            out.append(env)
    return out


def face_of(kind: str, name: str, c_value: Any) -> Any:
    """Attribute ``name``'s value as Gymnasium holds it, from its C params
    value: a switch as its choice (or a bool), an int default (the def's
    CCGYM_ATTR_INT_DEFAULT) as a Python int, any other as a Python float."""
    info = _core.env_info(kind)
    if name in info.switches:
        choices = info.switches[name]
        return bool(c_value) if choices is None else \
            choices[0] if c_value or len(choices) == 1 else choices[1]
    return int(c_value) if has_class(kind, name, "int_default") else float(c_value)


def install(cls: type, defaults: np.ndarray) -> type:
    """Makes every Gymnasium attribute of cls.kind a ParamAttribute of cls.
    One that Gymnasium's class body defines (CCGYM_ATTR_CLASS_LEVEL, as
    Acrobot's constants) gets the def's default as its class-level value,
    read from ``defaults`` (the bytes of the C params struct with every
    default: ccgym._params.default_params), unless cls's own body gives one.
    Sets cls.metadata from the def too, unless cls's own body gives it."""
    kind = cls.kind
    if "metadata" not in cls.__dict__:
        cls.metadata = {"render_modes": ["human", "rgb_array"],
                        "render_fps": _core.def_spaces(kind)[4] or 30}
    record = defaults.view(_core.env_info(kind).params_dtype)[0]
    for name in attributes(kind):
        default = cls.__dict__.get(name)
        if isinstance(default, property):
            default = None
        if default is None and has_class(kind, name, "class_level"):
            default = face_of(kind, name, record[attributes(kind)[name]].item())
        setattr(cls, name, ParamAttribute(name, default))
    return cls


def faces(env: Any) -> dict[str, Any]:
    """The attribute values written on env (for pickling and copies)."""
    return dict(env.__dict__.get("_attr_faces", {}))


# ------------------------------------------------------------------ state

def state_array(kind: str, value: Any, length: int, float32_ok: bool,
                squared: bool = False) -> tuple[np.ndarray, bool]:
    """A written ``state`` as (float64 values, was float32), or TypeError /
    ValueError for a value Gymnasium's step would compute with differently
    (``squared``: the step squares the state's elements in their own type,
    so integers past 46340 would overflow int32)."""
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
    if (squared and arr.dtype.kind in "iu"
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
