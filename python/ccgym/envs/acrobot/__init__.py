"""Acrobot (``ccgym/Acrobot-v1``): its single-env class. Its own quirk:
``AVAIL_TORQUE``, a class attribute that every env follows live.

The class's public home is :mod:`ccgym.envs` (``ccgym.envs.AcrobotEnv``, which
loads this module; pickles and reprs name it there); the shared single-env
machinery is ``ccgym.envs._base._CoreEnv``.
"""

from __future__ import annotations

import contextlib
import math
import struct
import weakref
from typing import Any, ClassVar

import numpy as np

from ccgym import _attributes, _core, _params
from ccgym.envs._base import (
    _DiscreteEnv,
    _EnvType,
    _float64_slots,
)

__all__ = ["AcrobotEnv"]


# ------------------------------------------------------------- Acrobot
# Gymnasium's AcrobotEnv.AVAIL_TORQUE is a class attribute, the list
# [-1.0, 0.0, +1] whose item `a` is the torque of action a: its step reads
# `self.AVAIL_TORQUE[a]` anew each time, so an instance's own value, a
# class-level assignment (on AcrobotEnv or a subclass) and an in-place write
# into whichever list an env reads all change that env's next step. Here the
# torques are the C params torque_0..2, and each env follows the object its
# step would read (its own value, else its class's, _torque_source):
# - the C core follows that object when it is a list (Batch.follow, over
#   the def's list attribute AVAIL_TORQUE, CCGYM_ATTR_LIST_ITEM: each step1
#   compares the list's length and item identities with those the params
#   were made from, a few pointer compares in compiled code, no Python
#   frame, and takes the items itself when they differ);
# - a class-level assignment goes through the metaclass, which points every
#   live env that follows that class (_FOLLOWERS) at the new value, taken
#   at its next step;
# - another mutable value (a numpy array) is watched from Python
#   (_CoreEnv._sync_watched, the step bound to _step_synced).
# Pickles and copies keep an env's own value (its attribute faces) and
# follow the class otherwise, as Gymnasium's do.

# One guard: an env's own torque changes (assigning, deleting) run under its
# core's guard (Batch.exclusive), as every other write does. A class-level
# assignment takes no env's guard (a step under way in another thread must
# not fail): it only points each follower at the new value, which its next
# step takes; an env that points itself checks afterwards that the object it
# read is still the one its step would read -- so a class-level change
# landing in between is never lost (_follow_torques).

#: Live Acrobot envs (weak references), told when a class-level AVAIL_TORQUE
#: changes; a plain set, so tuple(_FOLLOWERS) is one atomic snapshot.
_FOLLOWERS: set[weakref.ref[Any]] = set()
_AVAIL = "AVAIL_TORQUE"  # the def's list attribute (EnvInfo.list_attributes)
_TORQUE_FIELDS = _core.env_info("Acrobot").list_attributes[_AVAIL]


def _torque_values(kind: str, value: Any) -> tuple[float, ...]:
    """AVAIL_TORQUE's torques as C stores them, or TypeError/ValueError."""
    return _core.list_values(kind, _AVAIL, value)


def _class_torques(cls: type) -> Any:
    """The AVAIL_TORQUE an instance of cls without its own value reads."""
    for klass in cls.__mro__:
        if "_class_avail_torque" in klass.__dict__:
            return klass.__dict__["_class_avail_torque"]
    raise AttributeError("AVAIL_TORQUE")


def _set_class_torques(cls: type, value: Any) -> None:
    """cls.AVAIL_TORQUE = value: refused (TypeError/ValueError, the class
    unchanged) where an instance's write is refused; else every live env of
    cls without its own value takes it from its next step on."""
    _torque_values(cls.kind, value)
    type.__setattr__(cls, "_class_avail_torque", value)
    _tell_followers(cls)


def _tell_followers(cls: type) -> None:
    """Every live env of cls re-reads its torques at its next step."""
    for ref in tuple(_FOLLOWERS):
        env = ref()
        if isinstance(env, cls):
            env._follow_torques()


class _TorqueAttribute:
    """AcrobotEnv.AVAIL_TORQUE: the class's list on the class, live on an env."""

    __doc__ = "Gymnasium's torques per action, ``[-1.0, 0.0, +1]`` (live; settable)."

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        return _class_torques(owner) if env is None else env._torque_source()

    def __set__(self, env: Any, value: Any) -> None:
        env._set_torques(value)

    def __delete__(self, env: Any) -> None:
        env._delete_torques()


class _AcrobotType(_EnvType):
    """AcrobotEnv's metaclass: makes ``AVAIL_TORQUE`` a class attribute as
    Gymnasium's is (a class body's value or a class-level assignment is the
    value every instance of that class without its own reads, from its next
    step), kept beside the _TorqueAttribute that makes it live."""

    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any],
                 **kwargs: Any) -> None:
        super().__init__(name, bases, ns, **kwargs)
        value = ns.get("AVAIL_TORQUE")
        if value is not None and not isinstance(value, _TorqueAttribute):
            type.__delattr__(cls, "AVAIL_TORQUE")
            _set_class_torques(cls, value)
        if not any(isinstance(k.__dict__.get("AVAIL_TORQUE"), _TorqueAttribute)
                   for k in cls.__mro__):
            type.__setattr__(cls, "AVAIL_TORQUE", _TorqueAttribute())

    def __setattr__(cls, name: str, value: Any) -> None:
        if name == "AVAIL_TORQUE":
            _set_class_torques(cls, value)
        else:
            super().__setattr__(name, value)

    def __delattr__(cls, name: str) -> None:
        if name != "AVAIL_TORQUE":
            super().__delattr__(name)
            return
        if "_class_avail_torque" not in cls.__dict__ or not any(
                "_class_avail_torque" in k.__dict__ for k in cls.__mro__[1:]):
            raise AttributeError(
                f"{cls.__name__}.AVAIL_TORQUE cannot be deleted (ccgym's step needs "
                "a torque per action); assign another list")
        type.__delattr__(cls, "_class_avail_torque")
        _tell_followers(cls)


class AcrobotEnv(_DiscreteEnv, metaclass=_AcrobotType):
    """Acrobot-v1: swing a two-link arm above a line (torques -1, 0, +1).

    Matches ``gymnasium.envs.classic_control.AcrobotEnv`` ("book" dynamics,
    RK4 with dt = 0.2, float32 state after reset). ``torque_noise_max`` adds
    uniform torque noise drawn from the env's ``np_random``, as in Gymnasium
    (whatever its bit generator). ``AVAIL_TORQUE`` (the torque of each
    action) is live, on an instance and on the class, as in Gymnasium.
    """

    kind = "Acrobot"
    # Gymnasium's attributes, live over the C params (installed at import by
    # ccgym._attributes; these lines tell type checkers, with the types
    # Gymnasium's own values have: tests/test_meta.py checks them against it).
    dt: float
    LINK_LENGTH_1: float
    LINK_LENGTH_2: float
    LINK_MASS_1: float
    LINK_MASS_2: float
    LINK_COM_POS_1: float
    LINK_COM_POS_2: float
    LINK_MOI: float
    MAX_VEL_1: float
    MAX_VEL_2: float
    torque_noise_max: float
    book_or_nips: str
    AVAIL_TORQUE: list[float]
    _state_none_error = AssertionError
    _draws_from_np_random = True
    _renders_none_before_reset = True

    @staticmethod
    def _gym_step_error(faces: dict[str, Any]) -> Exception | None:
        """Gymnasium's _dsdt squares LINK_LENGTH_1, LINK_COM_POS_1 and
        LINK_COM_POS_2 as Python floats (``lc1**2``): past sqrt(DBL_MAX) that
        raises OverflowError in every step (numpy float64 values give inf,
        which the kernel computes as numpy does). Evaluated with Python's
        own ``**``, so the exception is Python's."""
        for name in ("LINK_LENGTH_1", "LINK_COM_POS_1", "LINK_COM_POS_2"):
            value = faces.get(name)  # (absent: Gymnasium's default, whose square is finite)
            if type(value) is float:
                try:
                    value**2
                except OverflowError as e:
                    return e
        return None

    # Where two NaNs meet in Gymnasium's rk4, the sign bit of the NaN that
    # survives follows the operand order of numpy's array loops and of its
    # scalar math, which the kernel's arithmetic does not reproduce. So the
    # values that make the next state NaN are refused rather than stepped a
    # sign bit apart: a NaN dt, a MAX_VEL_1/2 of -inf (np.clip to [inf, -inf]
    # gives -inf, and rk4 turns it into NaN), a state holding a NaN.
    _NAN_REFUSED = "its NaN sign bits through rk4 would differ from Gymnasium's"

    def _check_attribute(self, name: str, value: Any) -> None:
        v = float(value)
        if name == "dt" and math.isnan(v):
            raise ValueError(f"Acrobot dt = {value!r} is refused: {self._NAN_REFUSED}")
        if name in ("MAX_VEL_1", "MAX_VEL_2") and v == -math.inf:
            raise ValueError(f"Acrobot {name} = {value!r} is refused: the state becomes NaN, and "
                             f"{self._NAN_REFUSED}")

    @staticmethod
    def _states_from_observations(st: np.ndarray, obs: np.ndarray, last_u: Any) -> None:
        st["s"] = np.stack([np.arctan2(obs[:, 1], obs[:, 0]), np.arctan2(obs[:, 3], obs[:, 2]),
                            obs[:, 4], obs[:, 5]], axis=1)
    _state_dtype = _core.state_dtype(kind)
    _params_dtype = _core.env_info(kind).params_dtype

    # dt, LINK_*, MAX_VEL_*, torque_noise_max and book_or_nips are
    # class-level too, from the def (CCGYM_ATTR_CLASS_LEVEL, _attributes.install).
    AVAIL_TORQUE = [-1.0, 0.0, +1]  # the class's list (_AcrobotType)
    SCREEN_DIM = _core.env_info(kind).canvas_size[0]
    action_arrow = None
    domain_fig = None
    actions_num = 3

    def __init__(self, render_mode: str | None = None, torque_noise_max: float = 0.0):
        params = _params.params(self.kind, torque_noise_max=torque_noise_max)
        super().__init__(render_mode=render_mode, **params)
        if getattr(type(self), "_ccgym_class_values", False):
            # Gymnasium's __init__ builds the observation bounds from the
            # class's MAX_VEL_1/2 (a class-level value, say): so does this.
            from gymnasium import spaces

            high = np.array([1.0, 1.0, 1.0, 1.0, self.MAX_VEL_1, self.MAX_VEL_2],
                            dtype=np.float32)
            self.observation_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        _FOLLOWERS.add(weakref.ref(self, _FOLLOWERS.discard))
        self._core.exclusive(self._follow_torques, True)
        if params["torque_noise_max"]:
            self.torque_noise_max = params["torque_noise_max"]

    # --------------------------------------------------------- AVAIL_TORQUE
    def _torque_source(self) -> Any:
        """The object Gymnasium's step would index: the env's own
        AVAIL_TORQUE, else its class's."""
        faces = self.__dict__.get("_attr_faces")
        if faces is not None and "AVAIL_TORQUE" in faces:
            return faces["AVAIL_TORQUE"]
        return _class_torques(type(self))

    def _c_torques(self) -> tuple[float, ...]:
        record = self._core.params_buffer.view(self._params_dtype)[0]
        return tuple(float(record[f]) for f in _TORQUE_FIELDS)

    def _write_torques(self, torques: tuple[float, ...]) -> None:
        # Bitwise: -0.0 and 0.0 differ (a torque of -0.0 gives other bits).
        fmt = f"<{len(_TORQUE_FIELDS)}d"
        if struct.pack(fmt, *torques) != struct.pack(fmt, *self._c_torques()):
            self._write_params(dict(zip(_TORQUE_FIELDS, torques)))

    def _follow_torques(self, now: bool = False) -> None:
        """The C torques follow the object the step reads (_torque_source):
        a list the core follows itself (Batch.follow); another value (a
        tuple, a numpy array) is watched from Python (_sync_watched).

        With `now` (at __init__, under the core's guard) its torques are
        taken at once where ccgym accepts them. Without (a class-level
        AVAIL_TORQUE changed, from any thread, or the env's own was deleted)
        nothing is written: the next step takes them, so a step under way in
        another thread is not disturbed. A value ccgym refuses is left to the
        next step, which raises (TypeError/ValueError, the env unchanged)
        until it is fixed. A class-level change landing while the env points
        itself is caught by the re-check at the end of the loop."""
        if _AVAIL in self.__dict__.get("_attr_faces", {}):
            return  # its own value: a class-level change is not its concern
        core = self._core
        while True:
            value = self._torque_source()
            if type(value) is list:
                core.follow(_AVAIL, value)
                if now:
                    with contextlib.suppress(TypeError, ValueError):
                        core.check_follow()
                if self.__dict__.pop("_watched", None) is not None:
                    self._bind_step()
            else:
                core.follow(_AVAIL, None)
                torques = None
                if now:
                    with contextlib.suppress(TypeError, ValueError):
                        torques = _torque_values(self.kind, value)
                if torques is not None:
                    self._write_torques(torques)
                self._watch(value, stale=torques is None)
            if self._torque_source() is value:
                return

    def _watch(self, value: Any, stale: bool = False) -> None:
        # A mutable value that is not a list (a numpy array), from Python.
        snap = _attributes.snapshot(value)
        if snap is None and not stale:  # a tuple of numbers cannot change
            self.__dict__.pop("_watched", None)
        else:
            self.__dict__["_watched"] = (value, None if stale else snap)
        self._bind_step()

    def _set_torques(self, value: Any) -> None:
        # (A list is checked by follow(now=True), under the guard.)
        torques = None if type(value) is list else _torque_values(self.kind, value)
        self._core.exclusive(self._set_torques_now, value, torques)

    def _set_torques_now(self, value: Any, torques: tuple[float, ...] | None) -> None:
        if type(value) is list:
            self._core.follow(_AVAIL, value, now=True)  # its items now, then followed
            _attributes.set_face(self, _AVAIL, value)
            if self.__dict__.pop("_watched", None) is not None:
                self._bind_step()
        else:
            self._write_params(dict(zip(_TORQUE_FIELDS, torques)))
            _attributes.set_face(self, _AVAIL, value)
            self._core.follow(_AVAIL, None)
            self._watch(value)

    def _delete_torques(self) -> None:
        faces = self.__dict__.get("_attr_faces", {})
        if "AVAIL_TORQUE" not in faces:
            raise AttributeError("AVAIL_TORQUE")

        def delete() -> None:
            _attributes.drop_face(self, _AVAIL)
            self._follow_torques()

        self._core.exclusive(delete)

    def _sync_watched(self) -> None:
        value, snap = self.__dict__["_watched"]
        now = _attributes.snapshot(value)
        if snap is None or not _attributes.same_snapshot(now, snap):
            try:
                torques = _torque_values(self.kind, value)
            except (TypeError, ValueError) as e:
                raise _core.refused_in_place(_AVAIL, e) from None
            self._write_params(dict(zip(_TORQUE_FIELDS, torques)))
            self._watch(value)  # a tuple is settled now: the plain step again

    def _before_step(self, action: Any) -> None:
        """Gymnasium's ``AVAIL_TORQUE[a]`` with a numpy array AVAIL_TORQUE
        and a bool action is boolean indexing, not item ``a``: True selects
        the whole array (its step then raises ValueError, shapes that do
        not broadcast), False or a bool array of another length none (it
        raises IndexError). The same exception, the env unchanged. (Only
        such an AVAIL_TORQUE is watched, so only its steps come here.)"""
        if not self._core.has_reset or not isinstance(self._torque_source(), np.ndarray):
            return
        if isinstance(action, (bool, np.bool_)) or (
                isinstance(action, np.ndarray) and action.dtype == np.bool_):
            n = len(self._torque_source())
            if np.ndim(action) == 0 and bool(action):
                raise ValueError(
                    f"Acrobot action {action!r} (a bool) indexes the numpy array AVAIL_TORQUE "
                    "as a mask: Gymnasium's step raises ValueError (operands could not be "
                    "broadcast together); use an int action")
            if np.ndim(action) == 0 or (np.ndim(action) == 1 and len(action) != n):
                raise IndexError(
                    f"Acrobot action {action!r} (a bool) indexes the numpy array AVAIL_TORQUE "
                    "as a mask that selects no torque: Gymnasium's step raises IndexError; "
                    "use an int action")

    # ----------------------------------------- noise from another generator
    def _step_foreign(self, action: Any):
        """A step while np_random is an MT19937, Philox, SFC64, ... Generator:
        the torque noise is Gymnasium's own draw from it,
        ``np_random.uniform(-torque_noise_max, torque_noise_max)``, added to
        each torque in float64 (``AVAIL_TORQUE[a] + noise``, as Gymnasium's
        ``torque +=``), and the kernel steps with those torques and no noise
        of its own, bit for bit Gymnasium's rk4 of them. All under the core's
        guard; a step that raises leaves the env, its params and np_random as
        they were."""
        self._core.check_follow()  # the torques in C are AVAIL_TORQUE's first
        return self._core.exclusive(self._noisy_step, action)

    def _noisy_step(self, action: Any):
        core = self._core
        p = core.params_buffer.view(np.float64)  # the params as float64 slots
        slots = self._noise_slots
        if not p[slots[3]] > 0:
            return core.step1(action)
        gen = self.__dict__["_user_rng"]
        # Gymnasium's step raises before its draw (not reset, a bad action):
        # a step that surely runs needs no copy of the Generator's state
        # (costly for MT19937); any other is undone on failure from one.
        sure = (core.has_reset and not core.closed
                and (type(action) is int or isinstance(action, np.signedinteger))
                and 0 <= action < 3)
        before = None if sure else gen.bit_generator.state
        saved = [float(p[k]) for k in slots]
        noise = gen.uniform(-self.torque_noise_max, self.torque_noise_max)
        done = False
        try:
            for k, torque in zip(slots[:3], saved):
                p[k] = torque + noise
            p[slots[3]] = 0.0
            result = core.step1(action)
            done = True
            return result
        finally:
            for k, v in zip(slots, saved):
                p[k] = v
            if not done and before is not None:
                gen.bit_generator.state = before

    #: torque_0..2 and torque_noise_max as indices into the params' float64s.
    _noise_slots: ClassVar[tuple[int, int, int, int]]

    # ---------------------------------------------------------------- misc
    def _constructor_kwargs(self) -> dict[str, Any]:
        return {"torque_noise_max": self.torque_noise_max}

    _state_at_init = True

    def _read_state(self) -> np.ndarray:
        """(theta1, theta2, dtheta1, dtheta2): float32 after reset (Gymnasium
        casts its draw), float64 after a step (its rk4 output)."""
        return np.array(self._state_fields()["s"],
                        dtype=np.float32 if self._just_reset() else np.float64)

    def _draw_initial_state(self, gen: np.random.Generator, a: float, b: float) -> Any:
        return gen.uniform(low=a, high=b, size=(4,)).astype(np.float32)

    def _set_state_value(self, value: Any) -> None:
        # Gymnasium's step appends the torque (float64) first: a float32
        # state computes as its float64 values do.
        arr, _ = _attributes.state_array(self.kind, value, 4, float32_ok=True)
        if np.isnan(arr).any():
            raise ValueError(f"an Acrobot state holding a NaN is refused ({value!r}): "
                             f"{self._NAN_REFUSED}")
        self._write_state({"s": arr})


AcrobotEnv._noise_slots = _float64_slots(  # type: ignore[assignment]
    AcrobotEnv._params_dtype, (*_TORQUE_FIELDS, "torque_noise_max"))

AcrobotEnv.__module__ = "ccgym.envs"  # its public home (ccgym.envs.__getattr__ loads it)
# Gymnasium's physical constants and thresholds: live attributes over the
# C params (ccgym._attributes).
_attributes.install(AcrobotEnv, _params.default_params(AcrobotEnv.kind))
