"""Single-instance Gymnasium environments over ccgym's C kernels.

Each class matches its Gymnasium counterpart in
``gymnasium.envs.classic_control`` (name, constructor keywords, spaces,
metadata, ``reset`` options, info dicts and seeding): with the same seed and
actions it returns the same float32 observations, rewards and flags, bit for
bit. Like Gymnasium's raw classes they have no time limit; ``gymnasium.make``
adds it (``TimeLimit``) from the registered ``max_episode_steps``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ccgym import _core
from ccgym._frontend import (
    check_open,
    check_render_mode,
    check_seed,
    check_snapshot,
    parse_reset_bounds,
    reset_needed,
    warn_no_render_mode,
)
from ccgym._params import (
    acrobot_params,
    cartpole_params,
    continuous_mountain_car_params,
    mountain_car_params,
    pendulum_params,
)

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "Continuous_MountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
]


def _generator_from_state(state: int, inc: int) -> np.random.Generator:
    bit_generator = np.random.PCG64()
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    return np.random.Generator(bit_generator)


class _CoreEnv(gym.Env):
    """Shared machinery: one C instance, seeding, options, action checks."""

    #: The C kernel this class runs ("CartPole", ...), as ``batch.kind``.
    kind: ClassVar[str]
    metadata: ClassVar[dict[str, Any]]

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self._core = _core.Batch(self.kind, 1, params, 0, _core.AUTORESET_DISABLED, 1)
        self._core.reset_needed_error = gym.error.ResetNeeded
        self._core.invalid_action_error = gym.error.InvalidAction
        self._core.copy_outputs = False  # step1 and reset1 return copies
        # step is bound per instance: straight to the core's step1 (one Python
        # frame less), or stepping then drawing in render_mode="human".
        # Thread safety: every step and reset is one core call, and the core
        # refuses a call while another is under way (RuntimeError), so
        # concurrent calls never interleave.
        self.step = self._step_and_show if render_mode == "human" else self._core.step1
        # Like Gymnasium's first unseeded reset: a 128-bit seed from OS entropy.
        entropy = np.random.SeedSequence().entropy
        self._core.seed_one(0, entropy)
        self._np_random_seed = entropy

    @property
    def batch(self) -> _core.Batch:
        """The one-instance C batch behind this env (package-internal: for
        ccgym's renderer, pixel wrappers and benchmarks). Its buffers are the
        env's live state; its methods skip this env's checks."""
        return self._core

    # Gymnasium keeps a numpy Generator in `_np_random`; ccgym's stream lives in
    # C. Reading gives a Generator at the C stream's current state (a copy:
    # drawing from it does not advance the env); assigning one sets the stream.
    @property
    def _np_random(self) -> np.random.Generator | None:
        core = self.__dict__.get("_core")
        if core is None:
            return None
        return _generator_from_state(*core.get_rng(0))

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        if value is None:
            return
        state = value.bit_generator.state
        if state.get("bit_generator") != "PCG64":
            raise TypeError(
                f"ccgym streams are PCG64; cannot take a {state.get('bit_generator')} generator"
            )
        self._core.set_rng(0, state["state"]["state"], state["state"]["inc"])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Resets the env; ``reset(seed=s)`` gives Gymnasium's initial state for ``s``,
        an unseeded reset continues the stream. ``options`` as in Gymnasium."""
        check_open(self._core)
        if seed is not None:
            seed = check_seed(seed)
        try:
            a, b = parse_reset_bounds(self.kind, options)
        except Exception:
            # Gymnasium's super().reset(seed) seeds before the options are
            # read: a reset rejected for its options has still reseeded.
            if seed is not None:
                self._core.seed_one(0, seed)
                self._np_random_seed = seed
            raise
        obs = self._core.reset1(seed, a, b)
        if seed is not None:
            self._np_random_seed = seed
        if self.render_mode == "human":
            self.render()
        return obs, {}

    def step(self, action: Any):
        """Steps with one action; returns (obs, reward, terminated, False, {}).

        Actions are checked like Gymnasium's action space checks them (an
        integer in range; a float array of shape (1,)); a bad one raises
        gymnasium.error.InvalidAction. (Instances bind ``step`` straight to
        the core's ``step1``, which does all of this in one call.)"""
        return self._core.step1(action)

    def _step_and_show(self, action: Any):
        """step() in render_mode="human": steps, then draws, as Gymnasium does."""
        result = self._core.step1(action)
        self.render()
        return result

    def render(self):
        """The current frame, drawn by ccgym's C renderer as Gymnasium draws it:
        an (H, W, 3) uint8 array with render_mode="rgb_array"; with "human",
        shown in a pygame window (``pip install "ccgym[render]"``) and None."""
        if self.render_mode is None:
            warn_no_render_mode("gym.make", self.spec.id if self.spec else type(self).__name__)
            return None
        from ccgym.rendering import Viewer, render_batch

        if not self._core.has_reset:
            if self.kind in ("CartPole", "Acrobot"):  # Gymnasium's render returns None there
                return None
            raise reset_needed("render()", "env.")
        frame = render_batch(self.kind, self._core)[0]
        if self.render_mode == "rgb_array":
            return frame
        viewer = self.__dict__.get("_viewer")
        if viewer is None:
            h, w = frame.shape[:2]
            viewer = self._viewer = Viewer(w, h, self.metadata["render_fps"], type(self).__name__)
        viewer.show(frame)
        return None

    def close(self) -> None:
        """Marks the env closed (later steps and resets raise RuntimeError)
        and closes the render window if there is one."""
        self._core.closed = True
        viewer = self.__dict__.pop("_viewer", None)
        if viewer is not None:
            viewer.close()

    def get_state(self) -> dict[str, Any]:
        """A snapshot of the env: physics state, RNG stream, last outputs.
        :meth:`set_state` restores it exactly."""
        snap = self._core.get_state()
        snap["np_random_seed"] = self._np_random_seed
        return snap

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot from :meth:`get_state` of the same env class."""
        check_snapshot(state)
        self._core.set_state(state)
        self._np_random_seed = state.get("np_random_seed", -1)

    def _constructor_kwargs(self) -> dict[str, Any]:
        raise NotImplementedError

    # Pickling and deepcopy rebuild the env and restore its state bit for bit.
    def __getstate__(self) -> dict[str, Any]:
        return {
            "kwargs": {"render_mode": self.render_mode, **self._constructor_kwargs()},
            "state": self.get_state(),
            "closed": self._core.closed,
            "spec": self.spec,
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__(**data["kwargs"])
        self.set_state(data["state"])
        self._core.closed = data["closed"]
        self.spec = data["spec"]

    # The C state, as the Gymnasium env's attributes would show it.
    def _state_fields(self) -> np.ndarray:
        return self._core.state_view(self._state_dtype)[0]


class _DiscreteEnv(_CoreEnv):
    """An env with a Discrete action space."""


class _ContinuousEnv(_CoreEnv):
    """An env with a Box action space of shape (1,), computed in float32."""


class CartPoleEnv(_DiscreteEnv):
    """CartPole (v0 and v1): push a cart left or right to keep a pole upright.

    Same physics, spaces, rewards and options as
    ``gymnasium.envs.classic_control.CartPoleEnv``; ``sutton_barto_reward``
    gives 0 per step and -1 on failure. ``reset(options={"low": .., "high": ..})``
    sets the initial-state bounds (default +-0.05).
    """

    kind = "CartPole"
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, sutton_barto_reward: bool = False, render_mode: str | None = None):
        params = cartpole_params(sutton_barto_reward=sutton_barto_reward)
        super().__init__(render_mode=render_mode, **params)
        self._sutton_barto_reward = bool(sutton_barto_reward)
        for key in ("gravity", "masscart", "masspole", "length", "force_mag", "tau"):
            setattr(self, key, params[key])
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length
        self.kinematics_integrator = "euler"
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        high = np.array(
            [self.x_threshold * 2, np.inf, self.theta_threshold_radians * 2, np.inf],
            dtype=np.float32,
        )
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(-high, high, dtype=np.float32)
        self.screen_width = 600
        self.screen_height = 400
        self._core.after_terminated_hook = self._after_terminated

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"sutton_barto_reward": self._sutton_barto_reward}

    def _after_terminated(self) -> None:
        if self._state_fields()["steps_beyond_terminated"] == 1:
            gym.logger.warn(
                "You are calling 'step()' even though this environment has already returned "
                "terminated = True. You should always call 'reset()' once you receive "
                "'terminated = True' -- any further steps are undefined behavior."
            )

    @property
    def state(self) -> np.ndarray | None:
        """(x, x_dot, theta, theta_dot) as float64, like Gymnasium's ``state``."""
        if not self._core.has_reset:
            return None
        f = self._state_fields()
        return np.array([f["x"], f["x_dot"], f["theta"], f["theta_dot"]], dtype=np.float64)


class MountainCarEnv(_DiscreteEnv):
    """MountainCar-v0: drive an underpowered car up a hill (actions 0, 1, 2).

    Matches ``gymnasium.envs.classic_control.MountainCarEnv`` including
    ``goal_velocity`` and the reset options ``low``/``high`` (default -0.6, -0.4).
    """

    kind = "MountainCar"

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"goal_velocity": self.goal_velocity}
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        params = mountain_car_params(goal_velocity=goal_velocity)
        super().__init__(render_mode=render_mode, **params)
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.5
        self.goal_velocity = goal_velocity
        self.force = params["force"]
        self.gravity = params["gravity"]
        self.low = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.screen_width = 600
        self.screen_height = 400
        self.action_space = spaces.Discrete(3)
        self.observation_space = spaces.Box(self.low, self.high, dtype=np.float32)

    @property
    def state(self) -> tuple[float, float] | None:
        """(position, velocity)."""
        if not self._core.has_reset:
            return None
        f = self._state_fields()
        return (float(f["position"]), float(f["velocity"]))


class Continuous_MountainCarEnv(_ContinuousEnv):  # noqa: N801 (Gymnasium's name)
    """MountainCarContinuous-v0: the mountain car with a force in [-1, 1].

    Matches ``gymnasium.envs.classic_control.Continuous_MountainCarEnv``,
    including its float32 state and numpy-2 float32 arithmetic. Actions are
    taken as float32 (the action space's dtype); out-of-range actions are
    clipped for the force but, as in Gymnasium, the reward penalises the
    unclipped action.
    """

    kind = "MountainCarContinuous"

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"goal_velocity": self.goal_velocity}
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        params = continuous_mountain_car_params(goal_velocity=goal_velocity)
        super().__init__(render_mode=render_mode, **params)
        self.min_action = -1.0
        self.max_action = 1.0
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.45
        self.goal_velocity = goal_velocity
        self.power = params["power"]
        self.low_state = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high_state = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.screen_width = 600
        self.screen_height = 400
        self.action_space = spaces.Box(
            low=self.min_action, high=self.max_action, shape=(1,), dtype=np.float32
        )
        self.observation_space = spaces.Box(
            low=self.low_state, high=self.high_state, dtype=np.float32
        )

    @property
    def state(self) -> np.ndarray | None:
        """(position, velocity)."""
        if not self._core.has_reset:
            return None
        f = self._state_fields()
        dtype = np.float32 if f["state_f32"] else np.float64
        return np.array([f["position"], f["velocity"]], dtype=dtype)


class PendulumEnv(_ContinuousEnv):
    """Pendulum-v1: swing a pendulum up with a torque in [-2, 2].

    Matches ``gymnasium.envs.classic_control.PendulumEnv`` including ``g`` and
    the reset options ``x_init``/``y_init`` (default pi, 1.0).
    """

    kind = "Pendulum"

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"g": self.g}
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    _state_dtype = _core.state_dtype(kind)

    def __init__(self, render_mode: str | None = None, g: float = 10.0):
        params = pendulum_params(g=g)
        super().__init__(render_mode=render_mode, **params)
        self.max_speed = 8
        self.max_torque = 2.0
        self.dt = 0.05
        self.g = g
        self.m = 1.0
        self.l = 1.0  # noqa: E741 (Gymnasium's name)
        self.screen_dim = 500
        high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
        self.action_space = spaces.Box(
            low=-self.max_torque, high=self.max_torque, shape=(1,), dtype=np.float32
        )
        self.observation_space = spaces.Box(low=-high, high=high, dtype=np.float32)

    @property
    def state(self) -> np.ndarray | None:
        """(theta, theta_dot) as float64."""
        if not self._core.has_reset:
            return None
        f = self._state_fields()
        return np.array([f["th"], f["thdot"]], dtype=np.float64)

    @property
    def last_u(self) -> float | None:
        """The last (clipped) torque, None right after reset; a numpy scalar
        of the dtype Gymnasium's np.clip gives the action (float32 for
        float32 actions, float16, else float64)."""
        if not self._core.has_reset:
            return None
        u = float(self._state_fields()["last_u"])
        return None if math.isnan(u) else self._core.last_action_dtype.type(u)


class AcrobotEnv(_DiscreteEnv):
    """Acrobot-v1: swing a two-link arm above a line (torques -1, 0, +1).

    Matches ``gymnasium.envs.classic_control.AcrobotEnv`` ("book" dynamics,
    RK4 with dt = 0.2, float32 state after reset). ``torque_noise_max`` adds
    uniform torque noise drawn from the env's stream, as in Gymnasium.
    """

    kind = "Acrobot"
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 15}
    _state_dtype = _core.state_dtype(kind)

    dt = 0.2
    LINK_LENGTH_1 = 1.0
    LINK_LENGTH_2 = 1.0
    LINK_MASS_1 = 1.0
    LINK_MASS_2 = 1.0
    LINK_COM_POS_1 = 0.5
    LINK_COM_POS_2 = 0.5
    LINK_MOI = 1.0
    MAX_VEL_1 = 4 * math.pi
    MAX_VEL_2 = 9 * math.pi
    AVAIL_TORQUE = [-1.0, 0.0, +1]
    SCREEN_DIM = 500
    actions_num = 3

    def __init__(self, render_mode: str | None = None, torque_noise_max: float = 0.0):
        self._params = acrobot_params(torque_noise_max=torque_noise_max)
        super().__init__(render_mode=render_mode, **self._params)
        high = np.array(
            [1.0, 1.0, 1.0, 1.0, self.MAX_VEL_1, self.MAX_VEL_2], dtype=np.float32
        )
        self.observation_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"torque_noise_max": self.torque_noise_max}

    def __setstate__(self, data: dict[str, Any]) -> None:
        book = data["kwargs"].pop("book_or_nips", "book")
        super().__setstate__(data)
        self.book_or_nips = book

    def __getstate__(self) -> dict[str, Any]:
        data = super().__getstate__()
        data["kwargs"]["book_or_nips"] = self.book_or_nips
        return data

    def _set_param(self, **changes: Any) -> None:
        params = {**self._params, **changes}
        new = acrobot_params(
            torque_noise_max=params["torque_noise_max"],
            book_or_nips="book" if params["book"] else "nips",
        )
        self._core.set_params(new)
        self._params = new

    @property
    def torque_noise_max(self) -> float:
        """Maximum uniform torque noise per step (Gymnasium's class attribute; settable)."""
        return self._params["torque_noise_max"]

    @torque_noise_max.setter
    def torque_noise_max(self, value: float) -> None:
        self._set_param(torque_noise_max=value)

    @property
    def book_or_nips(self) -> str:
        """Which dynamics: "book" (Gymnasium's default) or "nips" (settable)."""
        return "book" if self._params["book"] else "nips"

    @book_or_nips.setter
    def book_or_nips(self, value: str) -> None:
        if value not in ("book", "nips"):
            raise ValueError(f"book_or_nips must be 'book' or 'nips', got {value!r}")
        self._set_param(book=value == "book")

    @property
    def state(self) -> np.ndarray | None:
        """(theta1, theta2, dtheta1, dtheta2) as float64."""
        if not self._core.has_reset:
            return None
        return np.array(self._state_fields()["s"], dtype=np.float64)
