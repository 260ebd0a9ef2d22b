"""The descriptor layer: the one place that maps a ccgym id to its env kind
and the kind's facts.

Below the env classes: a kind's class is loaded by the module name its
registry line gives (ccgym._registration), so the single-env machinery, the
env modules and rendering can import this module. A :class:`Kind` is what a front end needs to know about an env without
building one: its spaces, metadata, physics defaults, constructor keywords,
state layout, default C params, render facts and the env's own hooks (which
its single-env class declares, in the env's own module). The vector env, the
SB3 and Tianshou front ends, rendering and the bench read a Kind and drive
the core; none reaches into a single-env class for a fact, and none builds a
single env or a C batch to learn one. Package-internal.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
from typing import Any, Callable

import numpy as np
from gymnasium import spaces

from ccgym import _core
from ccgym._frontend import resolve_env_id
from ccgym._params import PHYSICS, default_params
from ccgym._registration import ENV_SPECS


class Kind:
    """The facts of one env kind ("CartPole", a plugin's "PointMass", ...)."""

    def __init__(self, name: str, env_class: type) -> None:
        #: The C kernel ("CartPole"), as ``Batch.kind``.
        self.name = name
        #: The single-env class (its public home: ccgym.envs).
        self.env_class = env_class
        #: The def's facts (_core.EnvInfo): fields, attributes, keywords, ...
        self.info = _core.env_info(name)
        #: The C state struct's numpy dtype.
        self.state_dtype: np.dtype = env_class._state_dtype
        #: Gymnasium's metadata of the single env (render_modes, render_fps).
        self.metadata: dict[str, Any] = env_class.metadata
        #: The per-instance physics a batched env takes, with their defaults.
        self.physics: dict[str, float] = PHYSICS[name]
        # The env's own hooks and quirks (its class declares them).
        #: Its vector env has Gymnasium's CartPoleVectorEnv ``state`` and ``prev_done``.
        self.vector_state: bool = env_class._vector_state
        #: Fills C states (zeros of state_dtype) that draw as float64 observations do.
        self.states_from_observations: Callable[..., None] = env_class._states_from_observations
        #: Live states as the bench ceiling's bare loop steps them.
        self.ceiling_state: Callable[[np.ndarray], np.ndarray] = env_class._ceiling_state
        self._render_icon = env_class._render_icon

    def __repr__(self) -> str:
        return f"<ccgym Kind {self.name!r}>"

    def spaces(self) -> tuple[spaces.Box, spaces.Space]:
        """Fresh observation and action spaces from the def, as the single
        env builds them (fresh: seeding one env's spaces seeds no other's)."""
        return def_spaces(self.name)

    @functools.cached_property
    def keywords(self) -> frozenset[str]:
        """The single-env constructor's keywords (a plugin's CEnv: its def's),
        render_mode excluded."""
        names: set[str] = set()
        for name, param in inspect.signature(self.env_class.__init__).parameters.items():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                names.update(self.info.keywords)
            elif name not in ("self", "render_mode"):
                names.add(name)
        return frozenset(names)

    @functools.cached_property
    def default_params(self) -> np.ndarray:
        """The bytes of the C params struct with every default (no Batch built)."""
        return default_params(self.name)

    @functools.cached_property
    def icon(self) -> Any:
        """The ``_render.Icon`` its frames draw the last action with (Pendulum's
        torque arrow), or None."""
        return self._render_icon() if self._render_icon is not None else None

    @property
    def has_icon(self) -> bool:
        """Whether its frames draw an icon (without loading it)."""
        return self._render_icon is not None


# kind name -> Kind; id -> Kind. An id's kind never changes once registered
# (ccgym._plugins refuses a def that would take an existing kind or id).
_BY_KIND: dict[str, Kind] = {}
_BY_ID: dict[str, Kind] = {}


def _registered_class(env_id: str) -> type:
    """The class an id's registry line names: its module (a string, loaded on
    first use, as Gymnasium loads an entry point) and the class in it."""
    name, _, _, module = ENV_SPECS[env_id]
    return getattr(importlib.import_module(module), name)


def def_spaces(kind: str) -> tuple[spaces.Box, spaces.Space]:
    """The observation and action spaces of kind's def, as Gymnasium builds
    its: float32 Boxes over the def's bounds (bit for bit Gymnasium's, which
    tests/test_plugin_api.py checks), Discrete(n_actions) for a discrete
    action. Every single-env class takes its spaces from here."""
    obs_low, obs_high, act_low, act_high, _ = _core.def_spaces(kind)
    observation_space = spaces.Box(obs_low, obs_high, dtype=np.float32)
    if act_low is None:
        return observation_space, spaces.Discrete(_core.env_info(kind).n_actions)
    return observation_space, spaces.Box(act_low, act_high, dtype=np.float32)


def env_class(env_id: str) -> type:
    """The single-env class (``ccgym.envs``, or the module its registry line
    names) of a ccgym id."""
    return of_id(env_id).env_class


def of_id(env_id: str) -> Kind:
    """The Kind of a ccgym id ("CartPole-v1", "ccgym/CartPole-v1", a
    plugin's "custom/PointMass-v0")."""
    kind = _BY_ID.get(env_id)
    if kind is None:
        short = resolve_env_id(env_id)
        kind = _BY_ID.get(short)
        if kind is None:
            cls = _registered_class(short)
            kind = _BY_KIND.get(cls.kind)
            if kind is None or kind.env_class is not cls:
                kind = _BY_KIND[cls.kind] = Kind(cls.kind, cls)
            _BY_ID[short] = kind
        _BY_ID[env_id] = kind
    return kind


def of_kind(name: str) -> Kind:
    """The Kind of an env kind name ("CartPole"): its first registered id's."""
    kind = _BY_KIND.get(name)
    if kind is not None:
        return kind
    for env_id in tuple(ENV_SPECS):  # the registry's order (a plugin's ids last)
        if _registered_class(env_id).kind == name:
            return of_id(env_id)
    raise ValueError(f"no registered id runs the env kind {name!r}")



def kind_class(name: str) -> type:
    """The single-env class of an env kind (the first registered id's)."""
    return of_kind(name).env_class


def env_kind(env_id: str) -> str:
    """The C kernel ("CartPole", ...) of a ccgym id."""
    return of_id(env_id).name


# -------------------------------------------------------- constructor checks

def env_keywords(env_id: str, physics: bool = True) -> set[str]:
    """The keywords of env_id's own: its single-env constructor's (a plugin's
    CEnv: its def's keywords) and, with ``physics``, its physical parameters
    (which a vector env takes per instance)."""
    kind = of_id(env_id)
    return set(kind.keywords) | (set(kind.physics) if physics else set())


def check_env_keywords(caller: str, env_id: str, env_kwargs: dict[str, Any],
                       own: tuple[str, ...], physics: bool = True) -> None:
    """TypeError in the caller's name for a keyword that is neither the
    caller's own nor env_id's, with difflib's closest valid name: a typo such
    as num_thread must not surface as the env class's __init__ refusing it."""
    unknown = [k for k in env_kwargs if k not in own]
    if not unknown:
        return
    valid = env_keywords(env_id, physics)
    for key in unknown:
        if key not in valid:
            close = difflib.get_close_matches(key, [*own, *sorted(valid)], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            own_list = f"{caller}'s keywords: {', '.join(own)}; " if own else ""
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {key!r}{hint} ({own_list}"
                f"{resolve_env_id(env_id)}'s: {', '.join(sorted(valid))})")
