"""Default physical parameters (Gymnasium's) and reset-option parsing."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ccgym import _core

# Gymnasium's defaults, as each env's C def states them (ccgym._core.ENV_INFO).
DEFAULT_X, DEFAULT_Y = _core.ENV_INFO["Pendulum"].default_reset  # Pendulum's reset bounds


def _defaults(kind: str, **changes: Any) -> dict[str, Any]:
    """The inputs of kind's params_init: Gymnasium's defaults, with changes."""
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


def physics_value(name: str, value: Any, num_envs: int) -> float | np.ndarray:
    """A physical parameter as a float or a float64 array of length num_envs."""
    if np.ndim(value) == 0:
        number = _number(name, value.item() if isinstance(value, np.ndarray) else value)
        if not math.isfinite(number):
            raise ValueError(f"{name} must be finite, got {number}")
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


def check_snapshot(snap: Any) -> None:
    """The scalar entries of a get_state() snapshot, checked before the core
    copies any array (so a bad snapshot is rejected without a partial write)."""
    if not isinstance(snap, dict):
        raise TypeError(f"state must be a dict from get_state(), got {type(snap).__name__}")
    if not isinstance(snap.get("kind"), str):
        raise ValueError(f"state['kind'] must be an env kind (a str), got {snap.get('kind')!r}")
    num_envs = snap.get("num_envs")
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise ValueError(f"state['num_envs'] must be an int, got {num_envs!r}")
    if "has_reset" in snap and not isinstance(snap["has_reset"], (bool, np.bool_)):
        raise TypeError(f"state['has_reset'] must be a bool, got {snap['has_reset']!r}")
    if "np_random_seed" in snap:
        seed = snap["np_random_seed"]
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"state['np_random_seed'] must be an int, got {seed!r}")


def _verify_number_and_cast(x: Any) -> float:
    """gymnasium.envs.classic_control.utils.verify_number_and_cast."""
    try:
        return float(x)
    except (ValueError, TypeError) as e:
        raise ValueError(f"An option ({x}) could not be converted to a float.") from e


def parse_reset_bounds(kind: str, options: dict | None) -> tuple[float | None, float | None]:
    """The (a, b) reset bounds the C kernel takes, from Gymnasium's reset options:
    (low, high) for most envs, (x_init, y_init) for Pendulum. (None, None)
    means the env's defaults."""
    if options is None:
        return None, None
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
    info = _core.env_info(kind)
    name_a, name_b = info.reset_options
    a = options.get(name_a) if name_a in options else info.default_reset[0]
    b = options.get(name_b) if name_b in options else info.default_reset[1]
    if info.reset_symmetric:  # Pendulum's (x_init, y_init)
        x = _verify_number_and_cast(a)
        y = _verify_number_and_cast(b)
        # np_random.uniform(low=-high, high=high) checks high - low.
        _check_uniform_range(x - -x)
        _check_uniform_range(y - -y)
        return x, y
    low, high = a, b
    low = _verify_number_and_cast(low)
    high = _verify_number_and_cast(high)
    if low > high:
        raise ValueError(f"Lower bound ({low}) must be lower than higher bound ({high}).")
    _check_uniform_range(high - low)
    return low, high


def _check_uniform_range(span: float) -> None:
    """numpy's Generator.uniform checks on high - low, which Gymnasium's resets
    hit: an infinite or NaN span overflows, a negative one (sign bit, so -0.0
    too) is an error."""
    if not math.isfinite(span):
        raise OverflowError("high - low range exceeds valid bounds")
    if math.copysign(1.0, span) < 0:
        raise ValueError("high - low < 0")


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
