"""MountainCar (``ccgym/MountainCar-v0``): its single-env class, its action's
type tag, and the reset draw and position check it shares with
MountainCarContinuous.

The class's public home is :mod:`ccgym.envs` (``ccgym.envs.MountainCarEnv``, which
loads this module; pickles and reprs name it there); the shared single-env
machinery is ``ccgym.envs._base._CoreEnv``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ccgym import _attributes, _core, _params
from ccgym.envs._base import (
    _DiscreteEnv,
)

__all__ = ["MountainCarEnv"]


def _draw_mountain_car_state(env: Any, gen: np.random.Generator, a: float, b: float) -> Any:
    """Gymnasium's MountainCar / MountainCarContinuous reset draw."""
    return np.array([gen.uniform(low=a, high=b), 0])


def _check_position(kind: str, position: float) -> None:
    """The mountain cars' step takes math.cos(3 * position), which raises
    for an infinite position: refuse it (ValueError, as Gymnasium's step)."""
    if math.isinf(3.0 * float(position)):
        raise ValueError(
            f"{kind} state: position {position}: 3 * position is infinite; Gymnasium's step raises "
            "ValueError (math domain error) in math.cos(3 * position)")


# MountainCar's action types (enum ccgym_mountain_car_action_t): a Python int,
# or a numpy int by its size, as it promotes with a numpy float16.
_MC_ACTION_BY_SIZE = {1: 1, 2: 2, 4: 3, 8: 3}


def _action_tag(action: Any, force: Any) -> int:
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


# Past this |position| (or |min/max_position|), 3 * position may overflow:
# float32's 3 * position (MountainCarContinuous after a step) from 1.13e38.
_HUGE_POSITION = 1e38


class _Hill:
    """What both mountain cars' classes share: ``goal_velocity``, the reset
    draw, the frames' state, Gymnasium's ValueError for a huge position."""

    _draw_initial_state = _draw_mountain_car_state

    def _state_step_error(self) -> Exception | None:
        """Gymnasium's step takes math.cos(3 * position): with a position
        whose triple overflows (reset(options={"high": 1e308}), a step with
        huge bounds) it raises ValueError (math domain error); ccgym's
        kernel would step to NaN. The state setter refuses such positions."""
        core = self._core  # type: ignore[attr-defined]
        if not core.has_reset:
            return None
        st = core.state_view(self._state_dtype)[0]  # type: ignore[attr-defined]
        position = float(st["position"])
        if abs(position) <= _HUGE_POSITION:
            return None
        f32 = "state_f32" in st.dtype.names and bool(st["state_f32"])
        with np.errstate(over="ignore"):
            triple = np.float32(3) * np.float32(position) if f32 else 3.0 * position
        if math.isinf(triple):
            return ValueError(f"math domain error (Gymnasium's step takes math.cos(3 * "
                              f"position) with position = {position!r})")
        return None

    def _state_may_raise(self) -> bool:
        # A step clips the position to [min_position, max_position]: only
        # huge (or NaN) bounds let it become huge.
        if not self.__dict__.get("_attr_live"):
            return False
        info = _core.env_info(self.kind)  # type: ignore[attr-defined]
        p = self._core.params_buffer.view(info.params_dtype)[0]  # type: ignore[attr-defined]
        return not (abs(float(p["min_position"])) <= _HUGE_POSITION
                    and abs(float(p["max_position"])) <= _HUGE_POSITION)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        obs, info = super().reset(seed=seed, options=options)  # type: ignore[misc]
        # A huge position from the options (its float32 obs is then
        # infinite), or the step refused before: pick step again.
        if "_step_error" in self.__dict__ or not abs(float(obs[0])) <= _HUGE_POSITION:
            self._bind_step()  # type: ignore[attr-defined]
        return obs, info

    def set_state(self, state: dict[str, Any]) -> None:
        super().set_state(state)  # type: ignore[misc]
        self._bind_step()  # type: ignore[attr-defined]  # a snapshot's huge position

    @staticmethod
    def _states_from_observations(st: np.ndarray, obs: np.ndarray, last_u: Any) -> None:
        st["position"], st["velocity"] = obs[:, 0], obs[:, 1]

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"goal_velocity": self.goal_velocity}  # type: ignore[attr-defined]

    def _build(self, render_mode: str | None, goal_velocity: Any) -> None:
        """Both __init__s' common part: the core env, the def's attributes
        and Gymnasium's screen size."""
        params = _params.params(self.kind, goal_velocity=goal_velocity)  # type: ignore[attr-defined]
        super().__init__(render_mode=render_mode, **params)  # type: ignore[call-arg]
        self._record_attributes({"goal_velocity": goal_velocity})  # type: ignore[attr-defined]
        self.screen_height, self.screen_width = _core.env_info(self.kind).canvas_size  # type: ignore[attr-defined]


class MountainCarEnv(_Hill, _DiscreteEnv):
    """MountainCar-v0: drive an underpowered car up a hill (actions 0, 1, 2).

    Matches ``gymnasium.envs.classic_control.MountainCarEnv`` including
    ``goal_velocity`` and the reset options ``low``/``high`` (default -0.6, -0.4).
    """

    kind = "MountainCar"
    # Gymnasium's attributes, live over the C params (installed at import by
    # ccgym._attributes; these lines tell type checkers, with the types
    # Gymnasium's own values have: tests/test_meta.py checks them against it).
    min_position: float
    max_position: float
    max_speed: float
    goal_position: float
    goal_velocity: int
    force: float
    gravity: float
    _rebind_after_step = True

    def _check_attribute(self, name: str, value: Any) -> None:
        if name == "max_position" and float(value) == -math.inf:
            raise ValueError(
                "max_position = -inf: Gymnasium's np.clip(position, min_position, -inf) "
                "makes every position -inf, and its next step raises ValueError (math "
                "domain error) in math.cos(3 * position); assign a finite max_position")

    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        self._build(render_mode, goal_velocity)
        # Gymnasium's arrays of the observation bounds (copies, as its are).
        self.low = self.observation_space.low.copy()
        self.high = self.observation_space.high.copy()

    def _params_record(self) -> Any:
        return self._core.params_buffer.view(_core.env_info(self.kind).params_dtype)[0]

    def _action_type_matters(self) -> bool:
        # A numpy attribute, or a float16/float32 velocity: (action - 1) * force
        # then computes in a type the action's int type decides.
        if not self.__dict__.get("_attr_live"):
            return False
        if self._params_record()["typed"]:
            return True
        st = self._core.state_view(self._state_dtype)[0]
        return bool(st["typed"]) and int(st["velocity_t"]) in (1, 2)

    def _before_step(self, action: Any) -> None:
        tag = _action_tag(action, self.force)
        if self._action_type_matters():
            self._core.exclusive(self._params_record().__setitem__, "action_t", tag)

    def _read_state(self) -> np.ndarray | tuple[Any, Any]:
        """(position, velocity) as Gymnasium keeps it: a float64 array after
        reset, a tuple of numpy float64s after a step (velocity the int 0
        when the car has just hit the left wall), or of the types the
        attributes' and action's numpy types gave (the C state's tags)."""
        f = self._state_fields()
        if self._just_reset():
            return np.array([f["position"], f["velocity"]], dtype=np.float64)
        if f["typed"]:
            types = {0: float, 1: np.float16, 2: np.float32, 3: np.float64}
            vt = int(f["velocity_t"])
            return (types[int(f["position_t"])](f["position"]),
                    0 if vt == 4 else types[vt](f["velocity"]))
        position, velocity = np.float64(f["position"]), np.float64(f["velocity"])
        if velocity == 0 and position == self._core.params_buffer.view(
                _core.env_info(self.kind).params_dtype)[0]["min_position"]:
            return position, 0
        return position, velocity

    def _set_state_value(self, value: Any) -> None:
        arr, _ = _attributes.state_array(self.kind, value, 2, float32_ok=False)
        _check_position(self.kind, arr[0])
        # Gymnasium unpacks it: a Python number computes as one (tag 0), a
        # numpy float64 or int (or a float64 array's element) as float64 (3).
        items = list(value) if isinstance(value, (list, tuple)) else [None, None]
        tags = [0 if type(x) in (int, float) else 3 for x in items]
        self._write_state({"position": float(arr[0]), "velocity": float(arr[1]),
                           "typed": 1, "position_t": tags[0], "velocity_t": tags[1]})

    def _height(self, xs: Any) -> Any:
        """The hill's height at xs (Gymnasium's rendering helper)."""
        return np.sin(3 * xs) * 0.45 + 0.55

    def get_keys_to_action(self) -> dict[tuple[int, ...], int]:
        """Gymnasium's key map for gymnasium.utils.play: left/right arrows."""
        return {(): 1, (276,): 0, (275,): 2, (275, 276): 1}


MountainCarEnv.__module__ = "ccgym.envs"  # its public home (ccgym.envs.__getattr__ loads it)
# Gymnasium's physical constants and thresholds: live attributes over the
# C params (ccgym._attributes).
_attributes.install(MountainCarEnv, _params.default_params(MountainCarEnv.kind))
