"""Single-instance Gymnasium environments over ccgym's C kernels.

Each class matches its Gymnasium counterpart in
``gymnasium.envs.classic_control`` (name, constructor keywords, spaces,
metadata, ``reset`` options, info dicts and seeding): with the same seed and
actions it returns the same float32 observations, rewards and flags, bit for
bit. Like Gymnasium's raw classes they have no time limit; ``gymnasium.make``
adds it (``TimeLimit``) from the registered ``max_episode_steps``.

Gymnasium's public attributes are live: its physical constants and
thresholds (descriptors over the C params, ccgym._attributes), Acrobot's
``AVAIL_TORQUE``, ``state`` (one object until the next step, as in
Gymnasium: mutating it in place changes the next step),
``steps_beyond_terminated``, ``last_u``, and ``np_random``, a numpy Generator
over the env's own C stream. MountainCarContinuous's step returns its state
itself, as Gymnasium's (editing that observation in place changes the next
step); the other envs return fresh arrays, as Gymnasium's do. ``close()`` only closes a render window. The
value types ccgym refuses (Gymnasium would compute with them in another
precision) are listed in docs/compatibility.md, "Values ccgym refuses".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ccgym import _attributes, _core, _params
from ccgym._registration import ENV_SPECS
from ccgym.envs._base import _CoreEnv  # the base of every single env (and of CEnv)

# The single-env classes: one per registry line's class, each defined in the
# module its line names (ccgym.envs.<env>, or a plugin's) and loaded by
# __getattr__ below on first use.
__all__ = sorted({cls for cls, _, _, *module in ENV_SPECS.values()
                  if module and module[0].startswith("ccgym.envs.")})

if TYPE_CHECKING:  # for static type checkers, which do not run __getattr__
    from ccgym.envs.acrobot import AcrobotEnv as AcrobotEnv
    from ccgym.envs.cartpole import CartPoleEnv as CartPoleEnv
    from ccgym.envs.mountain_car import MountainCarEnv as MountainCarEnv
    from ccgym.envs.continuous_mountain_car import (
        Continuous_MountainCarEnv as Continuous_MountainCarEnv,
    )
    from ccgym.envs.pendulum import PendulumEnv as PendulumEnv


# ------------------------------------------------------------------ plugins

class CEnv(_CoreEnv):
    """The single env of an env defined in C in another package and
    registered with :func:`ccgym.register_c_env`: everything comes from its
    C def (spaces, parameters, reset options, rendering). ``register_c_env``
    makes one subclass per kind; its constructor takes ``render_mode`` and
    the def's keyword parameters (CCGYM_ATTR_KEYWORD), which are live
    attributes as the stock envs' are. ``state`` is the def's leading
    float64 state fields as a float64 array (settable)."""

    #: The module whose import registers the kind (pickling re-imports it).
    _plugin_module: ClassVar[str | None] = None

    def __init__(self, render_mode: str | None = None, **keywords: Any) -> None:
        params = _params.params(self.kind, **keywords)
        super().__init__(render_mode=render_mode, **params)
        self._record_attributes({})  # the def's attributes, as the stock classes' __init__

    def _constructor_kwargs(self) -> dict[str, Any]:
        return {key: getattr(self, attr)
                for key, attr in _core.env_info(self.kind).keywords.items()}

    def _read_state(self) -> np.ndarray:
        f = self._state_fields()
        return np.array([f[name] for name in _core.env_info(self.kind).state_float_fields],
                        dtype=np.float64)

    def _set_state_value(self, value: Any) -> None:
        names = _core.env_info(self.kind).state_float_fields
        if isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != len(names):
            raise ValueError(f"{self.kind} state must be {len(names)} numbers "
                             f"({', '.join(names)}), got {value!r}")
        arr = np.asarray(value)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{self.kind} state must be real numbers, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{self.kind} state must be finite, got {value!r}")
        self._write_state(dict(zip(names, arr.tolist())))

    def _draw_initial_state(self, gen: np.random.Generator, a: float, b: float) -> Any:
        raise TypeError(f"{self.kind} draws its initial state in C from ccgym's PCG64 "
                        "stream: assign np_random a PCG64 Generator (or seed the reset)")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_plugin_env, (self._plugin_module, self.kind), self.__getstate__())


# kind -> its CEnv subclass (ccgym.register_c_env).
_PLUGIN_CLASSES: dict[str, type[CEnv]] = {}


def c_env_class(kind: str, module: str | None, name: str) -> type[CEnv]:
    """The single-env class of a registered C def (made once per kind)."""
    cls = _PLUGIN_CLASSES.get(kind)
    if cls is None:
        cls = type(name, (CEnv,), _class_dict(kind, module, name))
        _attributes.install(cls, _params.default_params(kind))
        _PLUGIN_CLASSES[kind] = cls
    return cls


def _class_dict(kind: str, module: str | None, name: str) -> dict[str, Any]:
    """The namespace of kind's class (c_env_class): a plugin's attribute
    names may not take its keys (ccgym._plugins.env_members)."""
    return {"kind": kind, "_plugin_module": module, "__module__": module or __name__,
            "__qualname__": name,
            "__doc__": f"The single env of the C env def {kind!r} (module {module})."}


def _plugin_env(module: str | None, kind: str) -> CEnv:
    """Unpickling a plugin env: its module registers the kind again first."""
    import importlib

    if module is not None:
        importlib.import_module(module)
    if kind not in _PLUGIN_CLASSES:
        raise ValueError(f"env kind {kind!r} is not registered (its module: {module})")
    cls = _PLUGIN_CLASSES[kind]
    return cls.__new__(cls)


def __getattr__(name: str) -> type:
    """The single-env class of an env whose registry line names a module of
    its own (ccgym._registration.ENV_SPECS): imported on first use, so that
    ``ccgym.envs.<Class>`` names every registered class."""
    import importlib

    for cls, _, _, *module in ENV_SPECS.values():
        if cls == name and module:
            return getattr(importlib.import_module(module[0]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
