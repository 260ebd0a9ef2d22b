"""CartPole (``ccgym/CartPole-v0``, ``-v1``): its single-env class.

Its own quirks beside the C def (cartpole.c): the step-after-done
warning and ``steps_beyond_terminated`` as Gymnasium counts it.

The class's public home is :mod:`ccgym.envs` (``ccgym.envs.CartPoleEnv``, which
loads this module; pickles and reprs name it there); the shared single-env
machinery is ``ccgym.envs._base._CoreEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ccgym import _attributes, _core, _params
from ccgym.envs._base import (
    _DiscreteEnv,
)

__all__ = ["CartPoleEnv"]


class CartPoleEnv(_DiscreteEnv):
    """CartPole (v0 and v1): push a cart left or right to keep a pole upright.

    Same physics, spaces, rewards and options as
    ``gymnasium.envs.classic_control.CartPoleEnv``; ``sutton_barto_reward``
    gives 0 per step and -1 on failure. ``reset(options={"low": .., "high": ..})``
    sets the initial-state bounds (default +-0.05).
    """

    kind = "CartPole"
    # Gymnasium's attributes, live over the C params (installed at import by
    # ccgym._attributes; these lines tell type checkers, with the types
    # Gymnasium's own values have: tests/test_meta.py checks them against it).
    gravity: float
    masscart: float
    masspole: float
    total_mass: float
    length: float
    polemass_length: float
    force_mag: float
    tau: float
    theta_threshold_radians: float
    x_threshold: float
    kinematics_integrator: str
    _sutton_barto_reward: bool
    _state_none_error = AssertionError
    _renders_none_before_reset = True
    _vector_state = True

    @staticmethod
    def _states_from_observations(st: np.ndarray, obs: np.ndarray, last_u: Any) -> None:
        for i, name in enumerate(("x", "x_dot", "theta", "theta_dot")):
            st[name] = obs[:, i]
        st["steps_beyond_terminated"] = -1

    def _check_attribute(self, name: str, value: Any) -> None:
        if (type(value) in (np.float32, np.float16)
                and _attributes.python_number_state(self._current_state_object())):
            raise TypeError(
                f"{name} = {value!r}: the state is a written list of Python numbers, "
                "with which Gymnasium's next step would compute x + tau * x_dot in "
                f"{value.dtype}; assign a Python float, or the state as a float64 array")
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, sutton_barto_reward: bool = False, render_mode: str | None = None):
        params = _params.params(self.kind, sutton_barto_reward=sutton_barto_reward)
        super().__init__(render_mode=render_mode, **params)
        self._record_attributes({"_sutton_barto_reward": sutton_barto_reward})
        self.screen_height, self.screen_width = _core.env_info(self.kind).canvas_size

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"sutton_barto_reward": self._sutton_barto_reward}

    _fresh_state = {"steps_beyond_terminated": -1}
    _state_at_init = True

    def _read_state(self) -> np.ndarray:
        """(x, x_dot, theta, theta_dot) as float64, like Gymnasium's ``state``."""
        f = self._state_fields()
        return np.array([f["x"], f["x_dot"], f["theta"], f["theta_dot"]], dtype=np.float64)

    def _set_state_value(self, value: Any) -> None:
        arr, _ = _attributes.state_array(self.kind, value, 4, float32_ok=False, squared=True)
        narrow = _attributes.narrow_faces(self)
        if narrow and _attributes.python_number_state(value):
            raise TypeError(
                f"CartPole state {value!r} of Python numbers while {', '.join(narrow)} "
                "hold numpy float32/float16 scalars: Gymnasium's next step would compute "
                "x + tau * x_dot in that precision; assign the state as a float64 array")
        self._write_state(dict(zip(("x", "x_dot", "theta", "theta_dot"), arr.tolist())))

    @property
    def steps_beyond_terminated(self) -> int | None:
        """Gymnasium's counter of steps since the pole fell: None until it
        falls, then 0, 1, ... (reset to None by reset(); settable)."""
        if not self._core.has_reset:
            return None
        n = int(self._state_fields()["steps_beyond_terminated"])
        if n < 0:
            return None
        # A numpy int written keeps its type, as Gymnasium's `+= 1` does
        # (NEP 50: the Python 1 is weak), wrapping as numpy's ints do.
        t = self.__dict__.get("_sbt_type")
        return n if t is None else np.array(n).astype(t)[()]

    @steps_beyond_terminated.setter
    def steps_beyond_terminated(self, value: int | None) -> None:
        if value is None:
            n = -1
        elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            n = int(value)
            if not 0 <= n < 2 ** 63:
                raise ValueError(
                    f"steps_beyond_terminated must be None or an int >= 0, got {value}")
        else:
            raise TypeError(f"steps_beyond_terminated must be None or an int, got {value!r}")
        self._write_state({"steps_beyond_terminated": n})
        self.__dict__["_sbt_type"] = type(value) if isinstance(value, np.integer) else None

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        out = super().reset(seed=seed, options=options)
        # Gymnasium's reset sets None; the first fall then counts in Python ints.
        self.__dict__.pop("_sbt_type", None)
        return out


CartPoleEnv.__module__ = "ccgym.envs"  # its public home (ccgym.envs.__getattr__ loads it)
# Gymnasium's physical constants and thresholds: live attributes over the
# C params (ccgym._attributes).
_attributes.install(CartPoleEnv, _params.default_params(CartPoleEnv.kind))
