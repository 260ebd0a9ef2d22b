"""Gymnasium's default physical parameters per env kind, read from the C env table."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ccgym import _attributes, _core

def _defaults(kind: str, **changes: Any) -> dict[str, Any]:
    """The inputs of kind's params_init: Gymnasium's defaults as the env's C def
    states them (ccgym._core.ENV_INFO), with changes."""
    return {**_core.ENV_INFO[kind].param_defaults, **changes}


def cartpole_params(sutton_barto_reward: bool = False) -> dict[str, Any]:
    return _defaults("CartPole", sutton_barto_reward=bool(sutton_barto_reward))


def mountain_car_params(goal_velocity: float = 0) -> dict[str, Any]:
    return _defaults("MountainCar", goal_velocity=_number("goal_velocity", goal_velocity))


def continuous_mountain_car_params(goal_velocity: float = 0) -> dict[str, Any]:
    return _defaults("MountainCarContinuous",
                     goal_velocity=_number("goal_velocity", goal_velocity))


def pendulum_params(g: float = 10.0) -> dict[str, Any]:
    return _defaults("Pendulum", g=_number("g", g))


def acrobot_params(torque_noise_max: float = 0.0, book_or_nips: str = "book") -> dict[str, Any]:
    if book_or_nips not in ("book", "nips"):
        raise ValueError(f"book_or_nips must be 'book' or 'nips', got {book_or_nips!r}")
    torque_noise_max = _number("torque_noise_max", torque_noise_max)
    if not math.isfinite(torque_noise_max) or torque_noise_max < 0:
        raise ValueError(f"torque_noise_max must be finite and >= 0, got {torque_noise_max}")
    return _defaults("Acrobot", torque_noise_max=torque_noise_max, book=book_or_nips == "book",
                     use_npy_fma_trig=numpy_float32_trig_uses_fma())


# Physical parameters a vector env takes per instance (scalars or length-N
# arrays), with Gymnasium's defaults. Derived quantities (CartPole's
# total_mass, Pendulum's coefficients, Acrobot's inertia terms) are computed
# from them by the C params_init exactly as Gymnasium's __init__/step do.
PHYSICS = {
    kind: {name: info.param_defaults[name] for name in info.physics_fields}
    for kind, info in _core.ENV_INFO.items()
}


def physics_value(kind: str, name: str, value: Any, num_envs: int) -> float | np.ndarray:
    """A physical parameter of a batched env as a float or a float64 array of
    length num_envs (an array's values are taken as floats, each instance's
    value; a scalar is checked by :func:`batch_scalar`)."""
    if np.ndim(value) == 0:
        number = _number(name, value.item() if isinstance(value, np.ndarray) else value)
        if not math.isfinite(number):
            raise ValueError(f"{name} must be finite, got {number}")
        batch_scalar(kind, name, value)
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
    return arr




def batch_scalar(kind: str, name: str, value: Any) -> None:
    """Refuses a scalar keyword value of a batched env (the vector and SB3
    envs) that Gymnasium's env would compute with in its own precision or
    type. The batched kernels compute with float64 values, i.e. as
    Gymnasium does with a Python float: a numpy scalar (or 0-d array) is
    taken where the single env's attribute takes it without a type tag
    (:func:`ccgym._attributes.number`), and raises TypeError elsewhere, as
    np.float32 ``g`` for Pendulum (``3 * g`` is float32 arithmetic in
    Gymnasium's SyncVectorEnv); the single env computes those exactly."""
    attribute = next((attr for attr, field in _attributes.attributes(kind).items()
                      if field == name), None)
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


# One per kind of the registry (tests/test_env_table.py checks they match).
PARAMS = {
    "CartPole": cartpole_params,
    "MountainCar": mountain_car_params,
    "MountainCarContinuous": continuous_mountain_car_params,
    "Pendulum": pendulum_params,
    "Acrobot": acrobot_params,
}


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
        "Acrobot's reset observation may differ from Gymnasium's in the last bit",
        RuntimeWarning,
        stacklevel=2,
    )
    return True
