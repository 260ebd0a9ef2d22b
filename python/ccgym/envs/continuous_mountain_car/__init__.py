"""MountainCarContinuous (``ccgym/MountainCarContinuous-v0``): its single-env
class. Its own quirk: the step returns the state itself (obs-is-state), as
Gymnasium's does.

The class's public home is :mod:`ccgym.envs` (``ccgym.envs.Continuous_MountainCarEnv``, which
loads this module; pickles and reprs name it there); the shared single-env
machinery is ``ccgym.envs._base._CoreEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ccgym import _attributes, _core, _params
from ccgym.envs.mountain_car import _check_position, _Hill
from ccgym.envs._base import (
    _ContinuousEnv,
)

__all__ = ["Continuous_MountainCarEnv"]


class Continuous_MountainCarEnv(_Hill, _ContinuousEnv):  # noqa: N801 (Gymnasium's name)
    """MountainCarContinuous-v0: the mountain car with a force in [-1, 1].

    Matches ``gymnasium.envs.classic_control.Continuous_MountainCarEnv``,
    including its float32 state and numpy-2 float32 arithmetic. Actions are
    taken as float32 (the action space's dtype); out-of-range actions are
    clipped for the force but, as in Gymnasium, the reward penalises the
    unclipped action. As in Gymnasium, the observation a step returns is the
    env's ``state`` itself: editing it in place changes the next step.
    """

    kind = "MountainCarContinuous"
    # Gymnasium's attributes, live over the C params (installed at import by
    # ccgym._attributes; these lines tell type checkers, with the types
    # Gymnasium's own values have: tests/test_meta.py checks them against it).
    min_position: float
    max_position: float
    max_speed: float
    goal_position: float
    goal_velocity: int
    power: float
    min_action: float
    max_action: float

    @staticmethod
    def _ceiling_state(state: np.ndarray) -> np.ndarray:
        return state.astype(np.float32).astype(np.float64)  # the ceiling steps float32

    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        self._build(render_mode, goal_velocity)
        # Gymnasium's arrays of the observation bounds (copies, as its are).
        self.low_state = self.observation_space.low.copy()
        self.high_state = self.observation_space.high.copy()
        # Gymnasium's step returns `self.state` itself: the obs is the state
        # (mutating it in place changes the next step). The core checks it
        # before each step and, changed, reads it as a state assignment is
        # read (_state_fields_of: the class's, a pure function of the value)
        # and writes the fields itself.
        self._core.obs_state_reader = type(self)._state_fields_of

    @classmethod
    def _state_fields_of(cls, value: Any) -> dict[str, Any]:
        """The C state fields of a state value, or TypeError/ValueError
        (writes nothing: the env's state setter and the core's write-back of
        a step's observation changed in place both take them)."""
        # Gymnasium's step computes in the state's precision: float32 and
        # float64 arrays are the two it has itself (a list or an int array
        # would give it a third mix of precisions).
        if not isinstance(value, np.ndarray) or value.dtype not in (np.float32, np.float64):
            raise TypeError(
                f"{cls.kind} state must be a float32 or float64 numpy array "
                f"(Gymnasium's step computes in its precision), got {value!r}")
        arr, is32 = _attributes.state_array(cls.kind, value, 2, float32_ok=True)
        _check_position(cls.kind, arr[0])
        if is32:
            # math.cos(3 * position) with 3 * position a float32: it overflows
            # to inf (math domain error in Gymnasium) from |position| > 1.1e38.
            with np.errstate(over="ignore"):
                if np.isinf(np.float32(3) * np.float32(arr[0])):
                    raise ValueError(
                        f"{cls.kind} state: position {arr[0]}: 3 * position is infinite in "
                        "float32; Gymnasium's step raises ValueError (math domain error) in "
                        "math.cos(3 * position)")
        return {"position": float(arr[0]), "velocity": float(arr[1]), "state_f32": int(is32)}

    def _read_state(self) -> np.ndarray:
        """(position, velocity): float64 after reset, float32 after a step."""
        f = self._state_fields()
        dtype = np.float32 if f["state_f32"] else np.float64
        return np.array([f["position"], f["velocity"]], dtype=dtype)

    def _set_state_value(self, value: Any) -> None:
        self._write_state(self._state_fields_of(value))

    def _height(self, xs: Any) -> Any:
        """The hill's height at xs (Gymnasium's rendering helper)."""
        return np.sin(3 * xs) * 0.45 + 0.55


Continuous_MountainCarEnv.__module__ = "ccgym.envs"  # its public home (ccgym.envs.__getattr__ loads it)
# Gymnasium's physical constants and thresholds: live attributes over the
# C params (ccgym._attributes).
_attributes.install(Continuous_MountainCarEnv, _params.default_params(Continuous_MountainCarEnv.kind))
