"""Pendulum (``ccgym/Pendulum-v1``): its single-env class, with ``last_u``
kept in the numpy type Gymnasium's step leaves it in.

The class's public home is :mod:`ccgym.envs` (``ccgym.envs.PendulumEnv``, which
loads this module; pickles and reprs name it there); the shared single-env
machinery is ``ccgym.envs._base._CoreEnv``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ccgym import _attributes, _core, _params
from ccgym.envs._base import (
    _ContinuousEnv,
)
from ccgym.rendering import asset_icon

__all__ = ["PendulumEnv"]


# Pendulum's last_u_t (ccgym/nptype.h CCGYM_T_*): u's numpy type (0: None).
_U_TYPES = {1: np.float16, 2: np.float32, 3: np.float64}


class PendulumEnv(_ContinuousEnv):
    """Pendulum-v1: swing a pendulum up with a torque in [-2, 2].

    Matches ``gymnasium.envs.classic_control.PendulumEnv`` including ``g`` and
    the reset options ``x_init``/``y_init`` (default pi, 1.0).
    """

    kind = "Pendulum"
    # Gymnasium's attributes, live over the C params (installed at import by
    # ccgym._attributes; these lines tell type checkers, with the types
    # Gymnasium's own values have: tests/test_meta.py checks them against it).
    max_speed: int
    max_torque: float
    dt: float
    g: float
    m: float
    l: float

    @staticmethod
    def _render_icon() -> Any:
        """Gymnasium's torque icon: ``assets/clockwise.png`` blitted
        ``int(scale * |last_u| / 2)`` pixels square and mirrored by the
        torque's sign, with ``scale = screen_dim / (bound * 2)`` in float32:
        every size 0..113 a torque in [-2, 2] can ask for."""
        scale = np.float32(500 / 4.4)
        return asset_icon("clockwise.png", int(scale * np.float32(2.0) / np.float32(2)))

    @staticmethod
    def _ceiling_state(state: np.ndarray) -> np.ndarray:
        state[:, 2] = np.nan_to_num(state[:, 2])  # last_u (NaN after reset) is only written
        return state

    @staticmethod
    def _states_from_observations(st: np.ndarray, obs: np.ndarray, last_u: Any) -> None:
        st["th"] = np.arctan2(obs[:, 1], obs[:, 0])
        st["thdot"] = obs[:, 2]
        st["last_u"] = np.nan if last_u is None else np.clip(
            np.asarray(last_u, dtype=np.float32).reshape(-1), -2.0, 2.0)

    @staticmethod
    def _gym_step_error(faces: dict[str, Any]) -> Exception | None:
        """Pendulum's step computes ``3 * g / (2 * l)`` and ``3.0 / (m *
        l**2)``: with Python numbers a zero divisor raises ZeroDivisionError
        and ``l**2`` of a huge float raises OverflowError (numpy scalars give
        inf or NaN instead, which the kernel computes as numpy does).
        Evaluated with Gymnasium's own expressions on the Python numbers, so
        the exception is Python's."""
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

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"g": self.g}
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, g: float = 10.0):
        params = _params.params(self.kind, g=g)
        super().__init__(render_mode=render_mode, **params)
        self._record_attributes({"g": g})
        self.screen_dim = _core.env_info(self.kind).canvas_size[0]

    _fresh_state = {"last_u": math.nan, "last_u_t": 0}

    def _read_state(self) -> np.ndarray:
        """(theta, theta_dot) as float64."""
        f = self._state_fields()
        return np.array([f["th"], f["thdot"]], dtype=np.float64)

    def _draw_initial_state(self, gen: np.random.Generator, a: float, b: float) -> Any:
        high = np.array([a, b])  # (x_init, y_init)
        return gen.uniform(low=-high, high=high)

    def _set_state_value(self, value: Any) -> None:
        # Python floats in the state would make Gymnasium's cost float32
        # (a weak Python float meets the float32 torque): numpy arrays only.
        if not isinstance(value, np.ndarray):
            raise TypeError(
                "Pendulum state must be a numpy array (Gymnasium computes the cost of a "
                f"state of Python numbers in float32), got {value!r}")
        arr, _ = _attributes.state_array(self.kind, value, 2, float32_ok=False, squared=True)
        self._write_state({"th": float(arr[0]), "thdot": float(arr[1])})

    @property
    def last_u(self) -> np.floating | None:
        """The last clipped torque as Gymnasium keeps it (``np.clip(u, ..)[0]``):
        a numpy scalar of the dtype Gymnasium's np.clip gives the action and
        max_torque (float32 for float32 actions and a Python max_torque,
        float16, else float64), kept by the C step; None before the first
        step of an episode, absent before the first reset (as in Gymnasium).
        Only rendering reads it; settable."""
        if not self._core.has_reset and not self.__dict__.get("_state_none"):
            raise self._unset("last_u")  # (after `state = None` it is kept, as in Gymnasium)
        written, value = self._written_value("last_u")
        if written:
            return value
        f = self._state_fields()
        dtype = _U_TYPES.get(int(f["last_u_t"]))  # None: no action since reset
        return None if dtype is None else dtype(float(f["last_u"]))

    @last_u.setter
    def last_u(self, value: Any) -> None:
        if value is None:
            u = math.nan
        else:
            try:
                u = float(value)
            except (TypeError, ValueError):
                raise TypeError(f"last_u must be None or a real number, got {value!r}") from None
        tag = 0 if value is None else {np.float16: 1, np.float32: 2}.get(type(value), 3)
        self._write_state({"last_u": u, "last_u_t": tag})
        self._remember_written("last_u", value)


PendulumEnv.__module__ = "ccgym.envs"  # its public home (ccgym.envs.__getattr__ loads it)
# Gymnasium's physical constants and thresholds: live attributes over the
# C params (ccgym._attributes).
_attributes.install(PendulumEnv, _params.default_params(PendulumEnv.kind))
