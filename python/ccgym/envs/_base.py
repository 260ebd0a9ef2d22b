"""The machinery every single env shares: ``_CoreEnv`` (a
``gymnasium.Env`` over one instance of a ``ccgym._front_core.SingleBatch``), its
discrete and continuous bases, and the spaces it builds from an env's def.

Each env's class subclasses one of the bases in a module of its own
(``ccgym.envs.cartpole``, ...); plugins' classes are ``ccgym.envs.CEnv``.
Nothing here names an env: what differs between them is in the def (C) and
in the env's own module. Public home of the classes: :mod:`ccgym.envs`.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from ccgym import _attributes, _core, _front_core, rendering
from ccgym._frontend import (
    check_open,
    check_render_mode,
    check_seed,
    check_snapshot,
    parse_reset_bounds,
    reset_needed,
    set_action_errors,
    warn_no_render_mode,
)
from ccgym._kinds import def_spaces
from ccgym.rendering import render_batch

# Whether the installed Gymnasium's Discrete.contains takes np.uint64 (1.0 and
# 1.1 do; 1.2 and later refuse it: no safe cast to int64).
_DISCRETE_TAKES_UINT64 = bool(gym.spaces.Discrete(2).contains(np.uint64(0)))


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """Runs a method that reads or rewrites the Python bookkeeping around the
    C state (_handed, _written, the step binding) under the core's guard
    (Batch.exclusive): a second thread's call meanwhile gets the core's
    RuntimeError, as a second concurrent step does, instead of seeing the
    bookkeeping half-rewritten (a bare KeyError). Nested calls in the same
    thread go through."""
    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._core.exclusive(functools.partial(method, self, *args, **kwargs))
    return guarded


#: Every single env built (weakly): a class-level write reaches the envs
#: that follow it (ccgym._attributes.set_class_value).
_ENVS: weakref.WeakSet[Any] = weakref.WeakSet()

# Names of the data descriptors (live attributes, ``state``, ...) an env
# class and ccgym's bases define, by class: a write through the env's __dict__
# of one of them goes to the attribute (_LiveDict). Cleared by every
# class-level write or delete (_EnvType).
_DATA_NAMES: dict[type, frozenset[str]] = {}


def _data_names(cls: type) -> frozenset[str]:
    names = _DATA_NAMES.get(cls)
    if names is None:
        seen: set[str] = set()
        found = set()
        for klass in cls.__mro__:
            for name, value in klass.__dict__.items():
                if name not in seen:
                    seen.add(name)
                    # ccgym's own (live attributes, state, ...), which
                    # Gymnasium keeps in its env's __dict__; not gym.Env's
                    # properties (np_random), which shadow its dict there too.
                    if (hasattr(type(value), "__set__") and not name.startswith("__")
                            and klass.__module__.startswith("ccgym")):
                        found.add(name)
        names = _DATA_NAMES[cls] = frozenset(found)
    return names


def _own_descriptor(cls: type, name: str) -> Any:
    """What cls's MRO gives for ``name`` in a class __dict__ (None if nothing)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


class _EnvType(type):
    """The single envs' metaclass: a class-level write means what it means in
    Gymnasium without replacing ccgym's live descriptors.

    ``Cls.gravity = 20.0`` (or a subclass body's ``gravity = 20.0``) on a
    live attribute is the class's value (ccgym._attributes.set_class_value):
    every env of Cls without its own value steps with it from its next step,
    existing and new ones, as with Gymnasium's class attributes (Acrobot's
    constants); an env with its own (every attribute Gymnasium's __init__
    sets) keeps it, as Gymnasium's instance dict shadows the class. The
    descriptor stays, so a later ``env.gravity = 5.0`` is still live. A
    class-level write over ccgym's other data descriptors (``state``,
    ``steps_beyond_terminated``, ...), which Gymnasium keeps per env, is
    refused: it would silently cut every env of the class off them."""

    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any],
                 **kwargs: Any) -> None:
        super().__init__(name, bases, ns, **kwargs)
        _DATA_NAMES.clear()
        for attr, value in ns.items():
            if attr.startswith("__") or hasattr(type(value), "__get__"):
                continue  # a method or the class's own descriptor: its own business
            current = next((k.__dict__[attr] for k in cls.__mro__[1:] if attr in k.__dict__),
                           None)
            if isinstance(current, _attributes.ParamAttribute):
                type.__delattr__(cls, attr)  # the class's value, beside the descriptor
                _attributes.set_class_value(cls, attr, value, ())

    def __setattr__(cls, name: str, value: Any) -> None:
        current = _own_descriptor(cls, name)
        if isinstance(current, _attributes.ParamAttribute) and not isinstance(
                value, _attributes.ParamAttribute):
            _attributes.set_class_value(cls, name, value, _ENVS)
            return
        if (hasattr(type(current), "__set__") and not isinstance(current, _attributes.ParamAttribute)
                and _ccgym_owned(cls, name) and not hasattr(type(value), "__set__")):
            raise TypeError(
                f"{cls.__name__}.{name} = {value!r}: ccgym keeps {name} live per env (as "
                "Gymnasium keeps it on each env); a class-level value would silently cut "
                "every env of the class off it. Set it on the envs")
        _DATA_NAMES.clear()
        super().__setattr__(name, value)

    def __delattr__(cls, name: str) -> None:
        if _attributes.class_key(name) in cls.__dict__ or (
                isinstance(_own_descriptor(cls, name), _attributes.ParamAttribute)
                and name not in cls.__dict__):
            _attributes.delete_class_value(cls, name, _ENVS)
            return
        _DATA_NAMES.clear()
        super().__delattr__(name)


def _ccgym_owned(cls: type, name: str) -> bool:
    """Whether ``name``'s descriptor comes from a ccgym class (not gym.Env's own)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__module__.startswith("ccgym")
    return False


class _LiveDict(dict):  # type: ignore[type-arg]
    """A single env's ``__dict__``, holding what Gymnasium's env holds there.

    Writes: a write through it (``vars(env)["gravity"] = 5.0``,
    ``env.__dict__.update(...)``) of a live attribute's name, which
    Gymnasium keeps in its env's __dict__, goes to the attribute (live, or
    refused as the attribute write refuses it); other keys are the plain
    dict's.

    Reads: an attribute the env has its own value of (every one Gymnasium's
    ``__init__`` sets, or one written on the env) is also an entry of this
    dict, its value the attribute's (``_attributes.set_face``), so
    ``vars(env)["gravity"]``, ``get``, ``in``, ``keys()`` and ``items()``
    answer as Gymnasium's do; one read from the class (Acrobot's constants,
    where Gymnasium's class holds them) is no entry, as in Gymnasium. The
    other live data (``state``, ``steps_beyond_terminated``, ``last_u``,
    ...), which only C holds, reads through ``[key]`` (``__missing__``:
    the attribute, or KeyError where Gymnasium has none yet) but is not an
    entry (``in``, ``get`` and iteration do not see it). Attribute lookups
    read the dict in C and never call these methods: the step costs the same."""

    __slots__ = ("_env",)

    def _live(self, key: Any) -> Any:
        env = self._env()
        if env is not None and type(key) is str and key in _data_names(type(env)):
            return env
        return None

    @staticmethod
    def _faced(env: Any, key: str) -> bool:
        """Whether ``key`` is one of env's attributes kept as an entry while
        env has its own value (a def attribute or list attribute)."""
        info = _core.env_info(env.kind)
        return key in info.attributes or key in info.list_attributes

    def __missing__(self, key: Any) -> Any:
        env = self._live(key)
        if env is None or self._faced(env, key):
            raise KeyError(key)
        try:
            return getattr(env, key)
        except AttributeError:
            raise KeyError(key) from None

    def __setitem__(self, key: Any, value: Any) -> None:
        env = self._live(key)
        if env is None:
            dict.__setitem__(self, key, value)
        else:
            setattr(env, key, value)

    def __delitem__(self, key: Any) -> None:
        env = self._live(key)
        if env is None:
            dict.__delitem__(self, key)
        elif self._faced(env, key) and not dict.__contains__(self, key):
            raise KeyError(key)  # read from its class: no entry to delete
        else:
            delattr(env, key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        env = self._live(key)
        if env is None:
            return dict.setdefault(self, key, default)
        if self._faced(env, key):
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
            self[key] = default  # no own value yet: Gymnasium's dict takes it
            return dict.__getitem__(self, key)
        return getattr(env, key)  # state & co. always have a value here

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> _LiveDict:
        self.update(other)
        return self

    def pop(self, key: Any, *default: Any) -> Any:
        env = self._live(key)
        if env is None:
            return dict.pop(self, key, *default)
        if self._faced(env, key) and not dict.__contains__(self, key):
            if default:
                return default[0]
            raise KeyError(key)
        value = getattr(env, key)
        delattr(env, key)
        return value

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (dict, (dict(self),))


class _CoreEnv(gym.Env, metaclass=_EnvType):
    """Shared machinery: one C instance, seeding, options, action checks."""

    #: The C kernel this class runs ("CartPole", ...), as ``batch.kind``.
    kind: ClassVar[str]
    metadata: ClassVar[dict[str, Any]]
    # An env's own quirks, which its class sets (the shared code names no env):
    #: its noise draws from ``np_random`` (Acrobot's torque noise);
    _draws_from_np_random: ClassVar[bool] = False
    #: the step's type tags depend on the state, so step is picked again after
    #: each step (MountainCar: the velocity's type after a wall hit);
    _rebind_after_step: ClassVar[bool] = False
    #: Gymnasium's render() returns None before the first reset (CartPole's
    #: and Acrobot's draw nothing then; the others raise).
    _renders_none_before_reset: ClassVar[bool] = False
    #: None, or a function giving the ``_render.Icon`` its frames draw the
    #: last action with (Pendulum's torque arrow, ccgym.rendering.asset_icon).
    _render_icon: ClassVar[Callable[[], Any] | None] = None
    #: its vector env has Gymnasium's CartPoleVectorEnv ``state`` and
    #: ``prev_done`` (ccgym.vector.VectorEnv).
    _vector_state: ClassVar[bool] = False

    @staticmethod
    def _states_from_observations(st: np.ndarray, obs: np.ndarray, last_u: Any) -> None:
        """Fills C states ``st`` (zeros of ``_state_dtype``) that draw as the
        float64 observations ``obs`` (n, obs_dim) do (ccgym.rendering)."""
        raise NotImplementedError

    @staticmethod
    def _ceiling_state(state: np.ndarray) -> np.ndarray:
        """Live states (rows of the def's leading float64 fields) as states
        the bench ceiling's bare loop steps as the real path does."""
        return state

    def _check_attribute(self, name: str, value: Any) -> None:
        """An env's own check of an attribute write (after the shared
        checks of ccgym._attributes): raises to refuse it."""

    @staticmethod
    def _gym_step_error(faces: dict[str, Any]) -> Exception | None:
        """The exception Gymnasium's step raises, whatever the state and
        action, with these attribute values (None: it steps)."""
        return None

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        check_render_mode(render_mode, None)  # any str, as Gymnasium's envs
        if type(self.__dict__) is not _LiveDict:
            live = _LiveDict(self.__dict__)
            live._env = weakref.ref(self)
            self.__dict__ = live
        self.render_mode = render_mode
        self._core = _front_core.SingleBatch(self.kind, 1, params, 0, _core.AUTORESET_DISABLED, 1)
        self._core.reset_needed_error = gym.error.ResetNeeded
        set_action_errors(self._core)  # ccgym.InvalidAction: an AssertionError too
        self._core.copy_outputs = False  # step1 and reset1 return copies
        # CartPole and MountainCar assert action_space.contains(action): refuse
        # what the installed Gymnasium's Discrete refuses (np.uint64 since 1.2).
        self._core.uint64_actions = _DISCRETE_TAKES_UINT64 or not self._core.asserts_contains
        # step is bound per instance: straight to the core's step1 (one Python
        # frame less), or stepping then drawing in render_mode="human".
        # Thread safety: every step and reset is one core call, and the core
        # refuses a call while another is under way (RuntimeError), so
        # concurrent calls never interleave.
        self._bind_step()
        # Like Gymnasium's first unseeded reset: a 128-bit seed from OS entropy.
        entropy = np.random.SeedSequence().entropy
        self._core.seed_one(0, entropy)
        self._np_random_seed = entropy
        # Gymnasium's spaces, from the env's def (one place for the bounds).
        self.observation_space, self.action_space = def_spaces(self.kind)
        # Gymnasium's rendering attributes (ccgym draws in C; see render()).
        self.screen = None
        self.clock = None
        self.isopen = True

    def _record_attributes(self, given: dict[str, Any]) -> None:
        """Gymnasium's ``__init__`` assignments of the def's attributes, from
        the def (recorded: the C params hold them already): ``given`` maps
        an attribute to the value its constructor keyword was passed; the
        others take their value from the C params just built, of Gymnasium's
        Python type (_attributes.face_of). Those Gymnasium's class body
        defines (CCGYM_ATTR_CLASS_LEVEL) are left to the class."""
        info = _core.env_info(self.kind)
        record = self._core.params_buffer.view(info.params_dtype)[0]
        for attr, field in info.attributes.items():
            if attr in given:
                setattr(self, attr, given[attr])
            elif not _attributes.has_class(self.kind, attr, "class_level"):
                setattr(self, attr, _attributes.face_of(self.kind, attr, record[field].item()))
        # The env's own values now shadow any class-level value (as
        # Gymnasium's instance dict does): the step is picked again for them
        # (a class-level Pendulum l = 0.0 no longer makes it raise). Without
        # class-level values the first pick saw the same values.
        if getattr(type(self), "_ccgym_class_values", False):
            self._bind_step()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Gymnasium's attributes are live once the env is built: the
        # assignments in __init__ only record Gymnasium's defaults, which the
        # C params already hold (ccgym._attributes).
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__ and "_state_dtype" not in cls.__dict__:
            cls._state_dtype = _core.state_dtype(cls.kind)  # a subclass for another kind
        init = cls.__dict__.get("__init__")
        if init is not None:
            @functools.wraps(init)
            def __init__(self, *args: Any, **kw: Any) -> None:
                init(self, *args, **kw)
                self.__dict__["_attr_live"] = True
                _ENVS.add(self)
                # The class-level values (Gymnasium's class attributes) of
                # those it has no own value of.
                if getattr(type(self), "_ccgym_class_values", False):
                    own = self.__dict__.get("_attr_faces", {})
                    for name in _attributes.attributes(self.kind):
                        owner, value = _attributes.class_value(type(self), name)
                        if owner is not None and name not in own:
                            _attributes.write_live(self, name, value, own=False)
                # A numpy value given to the constructor (Pendulum's g,
                # MountainCarContinuous's goal_velocity) computes in its type,
                # as Gymnasium's attribute does: written again, live.
                faces = self.__dict__.get("_attr_faces", {})
                typed = _attributes.of_class(self.kind, "typed") if hasattr(self, "kind") else ()
                for name in typed:
                    if type(faces.get(name)) in _attributes.TYPED_SCALARS:
                        setattr(self, name, faces[name])

            cls.__init__ = __init__

    def _bind_step(self) -> None:
        # Straight to the core (no Python frame) unless something must happen
        # around each step: drawing (render_mode="human"), keeping an
        # assigned Generator in step with the C stream (Acrobot's noise), or
        # writing back a handed-out `state` the caller may have mutated.
        d = self.__dict__
        faces = _attributes.effective_faces(self)
        # An integer max_torque / power: the core refuses integer actions.
        self._core.integer_operand = _attributes.integer_operand(self.kind, faces)
        error = self._gym_step_error(faces)
        if error is None:
            error = self._state_step_error()
        if error is not None:
            d["_step_error"] = error
            self.step = self._step_refused
            return
        d.pop("_step_error", None)
        synced = d.get("_user_rng") is not None and self._draws_from_np_random
        handed = d.get("_handed")
        # A mutable state object may change before the step; a written one
        # (even a tuple) stops being the state at the step.
        if synced or (handed is not None and (handed[2] is not None or handed[3])) \
                or "_watched" in d or d.get("_narrow_action") is not None \
                or self._action_type_matters() or self._state_may_raise():
            self.step = self._step_synced
        elif self.render_mode == "human":
            self.step = self._step_and_show
        else:
            self.step = self._core.step1

    @property
    def batch(self) -> _front_core.SingleBatch:
        """The one-instance C batch behind this env (package-internal: for
        ccgym's renderer, pixel wrappers and benchmarks). Its buffers are the
        env's live state (a handed-out ``state`` mutated in place is written
        back first); its methods skip this env's checks."""
        self._sync()
        return self._core

    # --------------------------------------------------------- np_random
    # Gymnasium keeps a numpy Generator in `_np_random`. ccgym's stream lives
    # in C: `_np_random` is a Generator over it (_core.StreamBitGenerator), so
    # drawing from it advances the stream the next unseeded reset continues.
    # An assigned PCG64 Generator is kept as it is (the env's np_random *is*
    # it, as in Gymnasium) and the C stream follows it: its state goes into C
    # before each C call that draws and comes back after (_rng_call).
    @property
    def _np_random(self) -> np.random.Generator | None:
        d = self.__dict__
        user = d.get("_user_rng")
        if user is not None:
            return user
        gen = d.get("_stream_rng")
        if gen is None:
            core = d.get("_core")
            if core is None:
                return None
            seed = d.get("_np_random_seed")
            bitgen = _core.StreamBitGenerator(
                core, 0, seed if isinstance(seed, int) and seed >= 0 else 0)
            gen = d["_stream_rng"] = np.random.Generator(bitgen)
        return gen

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        if value is None or value is self.__dict__.get("_stream_rng"):
            return
        if not isinstance(value, np.random.Generator):
            raise TypeError(f"np_random must be a numpy.random.Generator, got {type(value)}")
        # A PCG64 Generator drives the C stream (its state goes into C); any
        # other bit generator (MT19937, Philox, SFC64, ...) is drawn from in
        # Python, with Gymnasium's own calls (_reset_foreign).
        # (Acrobot's torque noise: _step_foreign).
        foreign = not isinstance(value.bit_generator, (np.random.PCG64, _core.StreamBitGenerator))
        self._drop_stream_rng()
        self.__dict__["_user_rng"] = value
        self.__dict__["_foreign_rng"] = foreign
        self._rng_to_core()
        self._bind_step()

    def _drop_stream_rng(self) -> None:
        """Gives a Generator handed out before its own copy of the stream (as
        Gymnasium's old Generator keeps its stream when the env gets a new one)."""
        gen = self.__dict__.pop("_stream_rng", None)
        if gen is not None:
            gen.bit_generator.detach()

    def _forget_user_rng(self) -> None:
        self.__dict__.pop("_foreign_rng", None)
        if self.__dict__.pop("_user_rng", None) is not None:
            self._bind_step()

    def _rng_to_core(self) -> None:
        user = self.__dict__.get("_user_rng")
        if user is not None and not self.__dict__.get("_foreign_rng"):
            st = user.bit_generator.state["state"]
            self._core.set_rng(0, st["state"], st["inc"])

    def _rng_from_core(self) -> None:
        user = self.__dict__.get("_user_rng")
        if user is not None and not self.__dict__.get("_foreign_rng"):
            bitgen = user.bit_generator
            old = bitgen.state
            state, inc = self._core.get_rng(0)
            bitgen.state = {**old, "state": {"state": state, "inc": inc}}

    def _rng_call(self, fn: Any, *args: Any) -> Any:
        """fn(*args), a C call that may draw, with an assigned Generator synced."""
        if self.__dict__.get("_user_rng") is None:
            return fn(*args)
        if self.__dict__.get("_foreign_rng"):
            return fn(*args)  # the C stream is not np_random: its draws are overwritten
        self._rng_to_core()
        try:
            return fn(*args)
        finally:
            self._rng_from_core()

    def _state_step_error(self) -> Exception | None:
        """The exception Gymnasium's next step raises from the state alone
        (the mountain cars' math.cos(3 * position) of a huge position), or
        None. Asked whenever step is picked again (_bind_step)."""
        return None

    def _state_may_raise(self) -> bool:
        """Whether a step may lead to a state _state_step_error refuses (the
        attributes allow it): step then goes through _step_synced, which
        picks step again after each step."""
        return False

    def _action_type_matters(self) -> bool:
        """Whether the step computes with the action's Python or numpy type
        (MountainCar), which the core's step1 does not see: then step goes
        through _step_synced, which hands it to C (_before_step)."""
        return False

    def _before_step(self, action: Any) -> None:
        """What _step_synced does before the core's step (MountainCar: the
        action's type into the C params)."""

    def _step_refused(self, action: Any):
        """step() while Gymnasium's step raises whatever the state and action
        (Pendulum with a Python zero ``l`` or ``m``: its _gym_step_error):
        the same exception, the env unchanged (Gymnasium's has set
        ``last_u`` by then). Before a reset, the reset-needed error."""
        if not self._core.has_reset:
            return self._core.step1(action)
        error = self.__dict__["_step_error"]
        raise type(error)(*error.args)

    @_guarded
    def _step_synced(self, action: Any):
        """step() when something must happen around the core's step1: a
        handed-out state written back, an assigned Generator kept in step,
        drawing in render_mode="human"."""
        handed = "_handed" in self.__dict__
        narrow = self.__dict__.get("_narrow_action")
        if narrow is not None:  # a float16/float32 max_torque or power
            action = _attributes.cast_action(action, narrow)
        self._sync()  # raises (env unchanged) for a state it refuses
        self._before_step(action)
        if self.__dict__.get("_foreign_rng"):
            result = self._step_foreign(action)
        else:
            result = self._rng_call(self._core.step1, action)
        if handed:
            # The step made a new state (as Gymnasium's makes a new object):
            # the old one is the caller's now, and step goes back to the core.
            self._drop_handed()
        if self.render_mode == "human":
            self.render()
        if self._rebind_after_step or self._state_may_raise():
            self._bind_step()  # the state's types may no longer need the action's
        return result

    @_guarded
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
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
                self._reseeding()
                self._core.seed_one(0, seed)
                self._np_random_seed = seed
            raise
        if seed is None and self.__dict__.get("_foreign_rng"):
            obs = self._reset_foreign(a, b)
        elif seed is None:
            obs = self._rng_call(self._core.reset1, None, a, b)
        else:
            obs = self._core.exclusive(self._reset_seeded, seed, a, b)
        self.__dict__.pop("_written", None)
        self._drop_handed()
        if self.render_mode == "human":
            self.render()
        return obs, {}

    def _reset_seeded(self, seed: int, a: float | None, b: float | None) -> np.ndarray:
        """reset(seed=...)'s work, under the core's guard (Batch.exclusive), so
        that concurrent resets leave np_random_seed the seed of the state."""
        self._reseeding()
        obs = self._core.reset1(seed, a, b)
        self._np_random_seed = seed
        return obs

    def _reset_foreign(self, a: float | None, b: float | None) -> np.ndarray:
        """An unseeded reset drawing from an assigned non-PCG64 Generator: the
        initial state is Gymnasium's own draw from it (_draw_initial_state),
        written into C after a reset of the bookkeeping; the observation is
        the core's of that state."""
        info = _core.env_info(self.kind)
        a = info.default_reset[0] if a is None else a
        b = info.default_reset[1] if b is None else b
        drawn = self._draw_initial_state(self.__dict__["_user_rng"], a, b)

        def apply() -> np.ndarray:
            self._core.reset1(None, a, b)  # the C stream's draw is overwritten
            self._set_state_value(drawn)
            return np.array(self._core.last_obs[0])

        return self._core.exclusive(apply)

    def _draw_initial_state(self, gen: np.random.Generator, a: float, b: float) -> Any:
        """Gymnasium's reset draw, as its reset() writes it (bounds (a, b))."""
        return gen.uniform(low=a, high=b, size=(4,))

    def _step_foreign(self, action: Any):
        """A step while np_random is a non-PCG64 Generator: only Acrobot's
        step draws (its torque noise; AcrobotEnv overrides this)."""
        return self._core.step1(action)

    def _reseeding(self) -> None:
        """reset(seed=...) is about to give the env a new stream (as Gymnasium
        gives it a new Generator): Generators handed out keep the old one."""
        self._drop_stream_rng()
        self._forget_user_rng()

    def step(self, action: Any
             ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
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
        if not self._core.has_reset:
            if self._renders_none_before_reset:  # Gymnasium's render returns None there
                return None
            raise reset_needed("render()", "env.")
        frame = render_batch(self.kind, self.batch)[0]
        if self.render_mode == "rgb_array":
            return frame
        if self.render_mode != "human":  # another mode: Gymnasium's render returns None
            return None
        viewer = self.__dict__.get("_viewer")
        if viewer is None:
            h, w = frame.shape[:2]
            viewer = self._viewer = rendering.Viewer(w, h, self.metadata["render_fps"], type(self).__name__)
        viewer.show(frame)
        return None

    def close(self) -> None:
        """Closes the render window if there is one; as in Gymnasium, that is
        all: the env can still be reset and stepped (and rendered again)."""
        viewer = self.__dict__.pop("_viewer", None)
        if viewer is not None:
            viewer.close()
            self.isopen = False

    def get_state(self) -> dict[str, Any]:
        """A snapshot of the env: physics state, RNG stream, last outputs.
        :meth:`set_state` restores it exactly. After a step refused an
        in-place edit of the state array (MountainCarContinuous's obs, a
        handed-out state), the env is as it was before the edit, and so is
        its snapshot: the edit is not in it (the next step still refuses it,
        until the array is fixed or the state assigned)."""
        return self._snapshot_and_edit()[0]

    @_guarded
    def _snapshot_and_edit(self) -> tuple[dict[str, Any], np.ndarray | None]:
        """(get_state's snapshot, a copy of the state array if it holds an
        in-place edit ccgym refuses, else None): what copies and pickles take."""
        try:
            self._sync()
        except (TypeError, ValueError):
            # The state object (a handed-out state, MountainCarContinuous's
            # obs) was edited in place to a value ccgym refuses: the env is
            # unchanged (its snapshot is taken as it is), the array keeps
            # the edit. Gymnasium's env copies it as it is, and its copy's
            # step raises too: a copy gets the same edit of its state.
            obj = self._current_state_object()
            if not isinstance(obj, np.ndarray):
                raise
            return self._snapshot_as_is(), obj.copy()
        return self._snapshot_as_is(), None

    def _snapshot_as_is(self) -> dict[str, Any]:
        """get_state() without writing back in-place edits first."""
        self._rng_to_core()
        snap = self._core.get_state()
        snap["np_random_seed"] = self._np_random_seed
        # numpy's PCG64 keeps half of a 64-bit draw for the next 32-bit one.
        # (Under a non-PCG64 np_random the snapshot's stream is the C one,
        # which no Generator wraps then: nothing buffered.)
        if self.__dict__.get("_foreign_rng"):
            snap["np_random_uint32"] = (0, 0)
        else:
            st = self._np_random.bit_generator.state
            snap["np_random_uint32"] = (int(st["has_uint32"]), int(st["uinteger"]))
        return snap

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot from :meth:`get_state` of the same env class."""
        check_snapshot(state)
        self._core.exclusive(self._set_state, state)

    def _set_state(self, state: dict[str, Any]) -> None:
        buffered = state.get("np_random_uint32", (0, 0))
        if not (isinstance(buffered, (tuple, list)) and len(buffered) == 2
                and buffered[0] in (0, 1) and isinstance(buffered[1], (int, np.integer))
                and 0 <= buffered[1] < 2 ** 32):
            raise ValueError(
                f"state['np_random_uint32'] must be (0 or 1, a uint32), got {buffered!r}")
        # The core checks the whole snapshot (its type tags too: the def's
        # CCGYM_STATE_TAG fields) before it writes anything.
        self._core.set_state(state)
        self.__dict__.pop("_state_none", None)
        self._np_random_seed = state.get("np_random_seed", -1)
        # The snapshot's stream is the env's now (not an assigned Generator's).
        self._forget_user_rng()
        self.__dict__.pop("_written", None)
        self._drop_handed()
        bitgen = self._np_random.bit_generator
        bitgen.state = {**bitgen.state, "has_uint32": int(buffered[0]),
                        "uinteger": int(buffered[1])}

    def _constructor_kwargs(self) -> dict[str, Any]:
        raise NotImplementedError

    def __copy__(self) -> _CoreEnv:
        """``copy.copy(env)`` as Gymnasium's default shallow copy: a new env
        in the same state holding the original's objects. It shares the
        ``np_random`` Generator (the copy's C draws go through it, as an
        assigned Generator's do, so both envs advance one stream until
        either is reseeded), the ``state`` object (an in-place edit of it
        changes both envs' next step until one of them steps or resets),
        the spaces and the attribute values. Everything else is the copy's
        own, as in Gymnasium, where a step or reset replaces those
        attributes rather than mutating them."""
        cls = type(self)
        new = cls.__new__(cls)
        new.__setstate__(self.__getstate__())
        new._np_random = self.np_random  # one Generator, one stream
        new.observation_space = self.observation_space
        new.action_space = self.action_space
        if self._core.has_reset:
            obj = self.state  # hands one out if none is (Gymnasium's copy holds it)
            handed = self.__dict__.get("_handed")
            new._hand_out(obj, written=bool(handed and handed[1] is obj and handed[3]))
        return new

    # Pickling and deepcopy rebuild the env and restore its state bit for bit.
    def __getstate__(self) -> dict[str, Any]:
        state, edited = self._snapshot_and_edit()
        # A state written and not stepped since is that very object in
        # Gymnasium (a list, a tuple, an int64 array...): the copy gets a
        # copy of it, not the float64 array C holds.
        handed = self.__dict__.get("_handed")
        written = (handed[1] if handed is not None and handed[3]
                   and self._handed_object() is handed[1] else None)
        return {
            "written_state": written,
            "kwargs": {"render_mode": self.render_mode, **self._constructor_kwargs()},
            "state": state,
            "edited_state": edited,
            "closed": self._core.closed,
            "spec": self.spec,
            "attributes": _attributes.faces(self),
            # An assigned MT19937/Philox/SFC64 np_random is not in the C
            # snapshot: the copy gets (a copy of) it, as Gymnasium's does.
            "foreign_np_random": self.__dict__["_user_rng"]
            if self.__dict__.get("_foreign_rng") else None,
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__(**data["kwargs"])
        for name, value in data.get("attributes", {}).items():
            setattr(self, name, value)
        self.set_state(data["state"])
        if data.get("foreign_np_random") is not None:
            self._np_random = data["foreign_np_random"]
        self._core.closed = data["closed"]
        self.spec = data["spec"]
        written = data.get("written_state")
        if written is not None:  # C holds its values already (the snapshot)
            self._hand_out(written, written=True)
        edited = data.get("edited_state")
        if edited is not None:
            obj = self.state  # handed out: the edit below is then the caller's own
            if not (isinstance(obj, np.ndarray) and obj.dtype == edited.dtype
                    and obj.shape == edited.shape):
                raise ValueError(f"{self.kind}: the state edited in place to {edited!r} "
                                 "cannot be copied")
            obj[...] = edited

    # The C state, as the Gymnasium env's attributes would show it.
    def _state_fields(self) -> np.ndarray:
        return self._core.state_view(self._state_dtype)[0]

    # ------------------------------------------------------------- state
    # Reading `state` gives Gymnasium's type for where the env is (after a
    # reset, after a step). As in Gymnasium, `state` is one object until the
    # next step or reset: every read gives it (a value written reads back as
    # that very object), and mutating it in place (`s = env.state; s[0] =
    # 0.1`, or the array or list that was assigned) changes the next step.
    # The object is kept in _handed = (C state bytes, object, snapshot,
    # written); the bytes tell whether C still holds the state it stands for
    # (the env's own writes refresh them; a step or reset through `batch`
    # does not). While it is mutable (snapshot not None) or was written,
    # step is bound to _step_synced,
    # which writes it back into C first if it differs from its snapshot,
    # then drops it (Gymnasium's step makes a new state object, so a
    # reference kept across a step no longer reaches the env) and binds
    # step straight to the core again. Every other reader of the C state
    # (render, get_state, pickling, `batch`) writes it back too. A mutated
    # state ccgym refuses raises there, the env unchanged. None un-resets.
    def _current_state_object(self) -> Any:
        """The state object Gymnasium would hold now, if one is handed out."""
        live = self._core.live_obs  # MountainCarContinuous: the last step's obs
        if live is not None:
            return live
        return self._handed_object()

    def _handed_object(self) -> Any:
        """The handed-out state object (_handed) if it still is the state."""
        handed = self.__dict__.get("_handed")
        if (handed is not None and self._core.has_reset
                and handed[0] == self._core.state_buffer.tobytes()):
            return handed[1]
        return None

    def _hand_out(self, obj: Any, written: bool = False) -> None:
        self._core.live_obs = None  # obj is the state now, not the last obs
        self.__dict__["_handed"] = (self._core.state_buffer.tobytes(), obj,
                                    _attributes.snapshot(obj), written)
        self._bind_step()

    def _write_params(self, changes: dict[str, Any]) -> None:
        """Sets C params fields (ccgym._attributes.write_params)."""
        _attributes.write_params(self._core, self.kind, changes)

    @_guarded
    def _sync(self) -> None:
        """Writes into C what the caller may have mutated in place: a handed-out
        state, a watched attribute value (Acrobot's AVAIL_TORQUE: an array from
        Python, a list through the core's watch)."""
        d = self.__dict__
        if self._core.obs_is_state:
            self._core.sync_live_obs()
        if "_handed" in d:
            self._sync_state()
        if "_watched" in d:
            self._sync_watched()
        self._core.check_follow()

    def _sync_watched(self) -> None:
        pass

    def _drop_handed(self) -> None:
        if self.__dict__.pop("_handed", None) is not None:
            self._bind_step()

    def _sync_state(self) -> None:
        """Writes a handed-out state mutated in place back into C."""
        token, obj, snap, written = self.__dict__["_handed"]
        if snap is None:
            return
        if not self._core.has_reset or token != self._core.state_buffer.tobytes():
            self._drop_handed()  # stepped or reset behind this env's back (batch)
            return
        now = _attributes.snapshot(obj)
        if not _attributes.same_snapshot(now, snap):
            try:
                self._set_state_value(obj)
            except (TypeError, ValueError) as e:
                raise _core.refused_in_place("the state array", e) from None
            self.__dict__["_handed"] = (self._core.state_buffer.tobytes(), obj, now, written)

    def _step_count(self) -> int:
        return int(self._core.episode_start[0] + self._core.elapsed[0])

    def _written_value(self, name: str) -> tuple[bool, Any]:
        entry = self.__dict__.get("_written", {}).get(name)
        if entry is not None and entry[0] == self._step_count() and self._core.has_reset:
            return True, entry[1]
        return False, None

    def _remember_written(self, name: str, value: Any) -> None:
        self.__dict__.setdefault("_written", {})[name] = (self._step_count(), value)

    def _just_reset(self) -> bool:
        return int(self._core.elapsed[0]) == 0

    def _read_state(self) -> Any:
        return None

    def _write_state(self, fields: dict[str, Any]) -> None:
        """Sets C state fields; before the first reset, the rest of the
        state as Gymnasium's __init__ leaves it and the env counts as reset."""
        first = not self._core.has_reset

        def apply() -> None:
            view = self._core.state_view(self._state_dtype)
            if first:
                for name, value in _core.env_info(self.kind).state_fill.items():
                    view[0][name] = value
                for name, value in self._fresh_state.items():
                    view[0][name] = value
            for name, value in fields.items():
                view[0][name] = value
            self._core.has_reset = True

        current = self._handed_object() is not None
        self._core.exclusive(apply)
        if current:  # still the state: C now holds its new bytes
            handed = self.__dict__["_handed"]
            self.__dict__["_handed"] = (self._core.state_buffer.tobytes(),) + handed[1:]

    #: State fields as Gymnasium's __init__ leaves them (before any reset).
    _fresh_state: ClassVar[dict[str, Any]] = {}

    #: Whether Gymnasium's __init__ sets ``state = None`` (CartPole, Acrobot);
    #: the others have no ``state`` attribute until the first reset.
    _state_at_init: ClassVar[bool] = False

    def _unset(self, name: str) -> AttributeError:
        return AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    @_guarded
    def state(self) -> Any:
        """Gymnasium's ``state`` (live; settable). Before the first reset:
        None in CartPole and Acrobot, absent (AttributeError) in the others,
        as in Gymnasium."""
        if not self._core.has_reset:
            if self._state_at_init:
                return None
            raise self._unset("state")
        handed = self._current_state_object()
        if handed is not None:
            return handed
        value = self._read_state()
        self._hand_out(value)
        return value

    # What Gymnasium's step raises on a ``state`` set to None (CartPole's and
    # Acrobot's ``assert self.state is not None``, the others' unpacking of
    # None): the step after ``env.state = None`` raises a ResetNeeded that
    # is also this, so ``except`` clauses written for either catch it.
    _state_none_error: ClassVar[type[Exception]] = TypeError

    @state.setter
    @_guarded
    def state(self, value: Any) -> None:
        if value is None:
            self._core.reset_needed_error = _STATE_NONE_ERRORS[self._state_none_error]
            self.__dict__["_state_none"] = True
            self._core.exclusive(setattr, self._core, "has_reset", False)
            self._core.live_obs = None
            self.__dict__.pop("_written", None)
            self._drop_handed()
            return
        self._set_state_value(value)
        self._hand_out(value, written=True)

    def _set_state_value(self, value: Any) -> None:
        raise NotImplementedError


class _StateNoneAssertionError(gym.error.ResetNeeded, AssertionError):
    """step() after ``env.state = None`` where Gymnasium's step asserts the state."""


class _StateNoneTypeError(gym.error.ResetNeeded, TypeError):
    """step() after ``env.state = None`` where Gymnasium's step unpacks None."""


_STATE_NONE_ERRORS = {AssertionError: _StateNoneAssertionError, TypeError: _StateNoneTypeError}


class _DiscreteEnv(_CoreEnv):
    """An env with a Discrete action space."""


class _ContinuousEnv(_CoreEnv):
    """An env with a Box action space of shape (1,), computed in float32."""


def _float64_slots(dtype: np.dtype, names: tuple[str, ...]) -> tuple[int, ...]:
    """Where the float64 fields `names` of a params record sit among its float64s."""
    for name in names:
        fdtype, offset = dtype.fields[name][:2]
        if fdtype != np.float64 or offset % 8:
            raise TypeError(f"params field {name} is not an aligned float64")
    return tuple(dtype.fields[name][1] // 8 for name in names)
