"""Gymnasium's default physical parameters per env kind, read from the C env table."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ccgym import _attributes, _core


class _PerKind(dict):  # type: ignore[type-arg]
    """kind -> make(kind) for every kind of the env table: the stock kinds at
    import, a registered plugin's (ccgym.register_c_env) on first use."""

    def __init__(self, make: Any) -> None:
        super().__init__((kind, make(kind)) for kind in _core.ENV_KINDS)
        self._make = make

    def __missing__(self, kind: str) -> Any:
        if kind not in _core.ENV_INFO:
            raise KeyError(kind)
        value = self[kind] = self._make(kind)
        return value


def params(kind: str, **keywords: Any) -> dict[str, Any]:
    """The inputs of kind's params_init: Gymnasium's defaults as the env's C
    def states them (``_core.env_info(kind).param_defaults``), the inputs
    ccgym sets from the running numpy, and the constructor keywords the def
    names (CCGYM_ATTR_KEYWORD: ``goal_velocity``, ``g``, ...), each read as
    its attribute is (a switch as Gymnasium's step reads it; a number
    checked against the attribute's bounds)."""
    info = _core.env_info(kind)
    out = dict(info.param_defaults)
    for field in info.numpy_fma_fields:
        out[field] = numpy_float32_trig_uses_fma()
    for key, value in keywords.items():
        attr = info.keywords.get(key)
        if attr is None:
            raise TypeError(f"{kind} got an unexpected keyword argument {key!r} (its "
                            f"keywords: {', '.join(info.keywords) or 'none'})")
        field = info.attributes[attr]
        if _attributes.is_switch(kind, attr):
            out[field] = _attributes.switch_value(kind, attr, value)
        else:  # the attribute write's check (its tag is the single env's to write)
            out[field] = _attributes.check_value(kind, attr, value)[0]
    return out


@functools.cache
def default_params(kind: str) -> np.ndarray:
    """The bytes of kind's C params struct with every default (params(kind)),
    made by the def's params_init without a Batch (once per kind)."""
    return _core.params_record(kind, params(kind))


def keyword_defaults(kind: str) -> dict[str, Any]:
    """Each constructor keyword of kind (see :func:`params`) with Gymnasium's
    default, of Gymnasium's Python type (a switch as the value that gives
    its default: True/False, or one of its choices)."""
    info = _core.env_info(kind)
    out: dict[str, Any] = {}
    for key, attr in info.keywords.items():
        value = info.param_defaults[info.attributes[attr]]
        choices = info.switches.get(attr)
        if attr in info.switches:
            value = bool(value) if choices is None else \
                choices[0] if value or len(choices) == 1 else choices[1]
        elif _attributes.has_class(kind, attr, "int_default"):
            value = int(value)
        out[key] = value
    return out


# Physical parameters a vector env takes per instance (scalars or length-N
# arrays), with Gymnasium's defaults. Derived quantities (CartPole's
# total_mass, Pendulum's coefficients, Acrobot's inertia terms) are computed
# from them by the C params_init exactly as Gymnasium's __init__/step do.
PHYSICS = _PerKind(lambda kind: {name: _core.ENV_INFO[kind].param_defaults[name]
                                  for name in _core.ENV_INFO[kind].physics_fields})


def physics_value(kind: str, name: str, value: Any, num_envs: int) -> float | np.ndarray:
    """A physical parameter of a batched env as a float or a float64 array of
    length num_envs (an array's values are taken as floats, each instance's
    value). A narrow-float value of an input of a derived attribute is
    refused (:func:`_check_init_operand`). Each value goes through the attribute write's check
    (:func:`ccgym._attributes.check_value`; an array's as the Python number
    it holds), a scalar through :func:`batch_scalar` too, and the batched
    envs take finite values only."""
    attr = _attribute_of(kind, name)
    _check_init_operand(kind, name, value)
    if np.ndim(value) == 0:
        number = _number(name, value.item() if isinstance(value, np.ndarray) else value)
        if not math.isfinite(number):
            raise ValueError(f"{name} must be finite, got {number}")
        batch_scalar(kind, name, value)
        if attr is not None:  # the attribute write's check (which refuses 0-d arrays)
            _attributes.check_value(kind, attr, value)
        return number
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.shape != (num_envs,):
        raise ValueError(
            f"{name} must be a scalar or an array of shape ({num_envs},), got {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if attr is not None:
        # Each instance's value through the attribute write's check, as the
        # Python number it holds (an int array's values as ints).
        as_int = np.asarray(value).dtype.kind in "iu"
        for v in np.unique(np.asarray(value)):
            _attributes.check_value(kind, attr, int(v) if as_int else float(v))
    return arr


@functools.cache  # a kind's def never changes once registered
def init_operands(kind: str) -> dict[str, tuple[str, ...]]:
    """Physics field -> the derived Gymnasium attributes the def's
    params_init computes from it (CartPole's masscart -> total_mass;
    masspole -> total_mass, polemass_length), read off the def itself: each
    physics input is changed in turn and the params fields that are
    attributes but no input (Gymnasium's ``__init__`` assignments such as
    ``self.total_mass = self.masspole + self.masscart``) are compared.
    Derived fields that are no attribute (Pendulum's ``3 * g / (2 * l)``,
    which Gymnasium's step recomputes with the attribute's own type) are
    not counted: the attribute's class covers those."""
    info = _core.env_info(kind)
    derived = {attr: field for attr, field in info.attributes.items()
               if field not in info.param_fields and attr not in info.switches}
    if not derived:
        return {}
    base = params(kind)

    def record(inputs: dict[str, Any]) -> Any:
        return _core.params_record(kind, inputs).view(info.params_dtype)[0].copy()

    before = record(base)
    out = {}
    for field in info.physics_fields:
        probe = dict(base)
        probe[field] = float(base[field]) * 1.5 + 0.25
        after = record(probe)
        moved = tuple(attr for attr, f in derived.items()
                      if before[f].tobytes() != after[f].tobytes())
        if moved:
            out[field] = moved
    return out


def _check_init_operand(kind: str, name: str, value: Any) -> None:
    """Refuses a numpy float32/float16 value (a scalar or an array of that
    dtype) of a physics input the def's params_init combines into a
    derived Gymnasium attribute (:func:`init_operands`): Gymnasium's
    ``__init__`` arithmetic keeps the narrow type there (``masspole +
    np.float32(masscart)`` is a float32), where the batched envs compute
    derived values in float64."""
    derived = init_operands(kind).get(name)
    if derived is None:
        return
    dtype = value.dtype if isinstance(value, (np.ndarray, np.generic)) else None
    if dtype is None or dtype not in (np.float32, np.float16):
        return
    attr = _attribute_of(kind, name) or name
    raise TypeError(
        f"{attr} = {value!r} ({dtype}): Gymnasium's __init__ computes "
        f"{', '.join(derived)} from it in {dtype} arithmetic (numpy keeps the narrow "
        "type), where ccgym's batched envs compute with float64, derived values too: "
        f"pass float(value) (or a float64 array). The single env takes it as an "
        f"attribute write, which, as Gymnasium's, leaves {', '.join(derived)} unchanged")


def _attribute_of(kind: str, field: str) -> str | None:
    """The Gymnasium attribute over params field ``field``, or None."""
    return next((attr for attr, f in _attributes.attributes(kind).items() if f == field), None)


def integer_operand(kind: str, kwargs: dict[str, Any]) -> str | None:
    """:func:`ccgym._attributes.integer_operand` over a batched env's keywords
    (params field names): the action operand's name if they give it an
    integer, else None."""
    return _attributes.integer_operand(
        kind, {(_attribute_of(kind, k) or k): v for k, v in kwargs.items()})


def _check_field_bounds(kind: str, field: str, values: np.ndarray) -> None:
    attr = _attribute_of(kind, field)
    if attr is not None:
        for v in np.unique(values):
            _attributes.check_bounds(kind, attr, float(v))




def batch_scalar(kind: str, name: str, value: Any) -> None:
    """Refuses a scalar keyword value of a batched env (the vector and SB3
    envs) that Gymnasium's env would compute with in its own precision or
    type. The batched kernels compute with float64 values, i.e. as
    Gymnasium does with a Python float: a numpy scalar (or 0-d array) is
    taken where the single env's attribute takes it without a type tag
    (:func:`ccgym._attributes.number`), and raises TypeError elsewhere, as
    np.float32 ``g`` for Pendulum (``3 * g`` is float32 arithmetic in
    Gymnasium's SyncVectorEnv); the single env computes those exactly."""
    attribute = _attribute_of(kind, name)
    if attribute is None or _attributes.is_switch(kind, attribute):
        return
    if isinstance(value, np.ndarray):
        value = value[()]
    if not isinstance(value, np.number):
        return  # Python numbers: floats to C; anything else: _number's TypeError
    try:
        _attributes.number(kind, attribute, value)
    except TypeError as e:
        raise TypeError(
            f"{e}. ccgym's batched envs compute with float64 values; Gymnasium's env's "
            "arithmetic in the value's own type is modelled by ccgym's single env "
            f"(gym.make('ccgym/{kind}...'), or make_vec with vectorization_mode='sync')"
        ) from None


def batch_params(kind: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """PARAMS[kind](**kwargs) for a batched env: each scalar checked by
    :func:`batch_scalar` first."""
    for name, value in kwargs.items():
        batch_scalar(kind, name, value)
    return PARAMS[kind](**kwargs)


# kind -> params(kind, **keywords), for every kind of the registry.
PARAMS = _PerKind(lambda kind: functools.partial(params, kind))


def _number(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_, np.complexfloating)) or not isinstance(
        value, (int, float, np.number)
    ):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        return float(value)
    except OverflowError:
        raise OverflowError(f"{name} is too large for a float: {value!r}") from None


@functools.cache
def numpy_float32_trig_uses_fma() -> bool:
    """Which of numpy's float32 sin/cos implementations this numpy runs.

    numpy computes float32 sin/cos with its own FMA-based polynomial on CPUs
    with FMA (AVX2/AVX-512, NEON) and with libm elsewhere. Gymnasium's Acrobot
    feeds float32 angles to np.cos/np.sin at reset, so ccgym must pick the
    same one: it asks numpy, on inputs where the two differ."""
    x = np.linspace(-3.5, 3.5, 4097, dtype=np.float32)
    expected = np.concatenate([np.sin(x), np.cos(x)])
    fused = np.concatenate(_core.npy_sincosf(x, True))
    unfused = np.concatenate(_core.npy_sincosf(x, False))
    if np.array_equal(expected, fused):
        return True
    if np.array_equal(expected, unfused):
        return False
    import warnings

    warnings.warn(
        "ccgym: numpy's float32 sin/cos matches neither known implementation; "
        "an env's float32 np.sin/np.cos values may differ from Gymnasium's in the last bit",
        RuntimeWarning,
        stacklevel=2,
    )
    return True
