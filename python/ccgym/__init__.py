"""ccgym: Gymnasium's classic-control environments as C kernels.

ccgym is Gymnasium's five classic-control environments (CartPole v0 and v1,
MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1 and Acrobot-v1) as C
kernels that step N instances in one call, behind a thin Cython binding. With
the same seed and the same actions it gives the same bits as Gymnasium.

``import ccgym`` registers ``ccgym/CartPole-v0``, ``ccgym/CartPole-v1``,
``ccgym/MountainCar-v0``, ``ccgym/MountainCarContinuous-v0``,
``ccgym/Pendulum-v1`` and ``ccgym/Acrobot-v1`` with Gymnasium, each with a
single-env entry point (:mod:`ccgym.envs`) and a native vector entry point
(:mod:`ccgym.vector`); :mod:`ccgym.sb3` is a native Stable-Baselines3
``VecEnv``::

    import gymnasium as gym
    import ccgym

    env = gym.make("ccgym/CartPole-v1")
    envs = gym.make_vec("ccgym/CartPole-v1", num_envs=1024)

The documentation (``docs/`` in the source tree) has a page per front end.
"""

from __future__ import annotations

from typing import Any

from ccgym import envs
from ccgym._frontend import InvalidAction, InvalidActionType, InvalidActionValue
from ccgym._plugins import register_c_env
from ccgym._registration import ENV_SPECS, vector_class_name
from ccgym._registration import register as _register
from ccgym._version import __version__
# Every registered env's single-env class (ccgym.envs.__all__, from the
# registry lines; type checkers see ccgym.envs's re-exports).
from ccgym.envs import *  # noqa: F403
from ccgym.vector import make_vec

# The ids and their registration live in ccgym._registration (string entry
# points only), which the startup hook _ccgym_autoregister also runs in
# processes that never import ccgym; registering is idempotent.
_register()

#: Every registered ccgym id: the stock ids, then each plugin's
#: (:func:`register_c_env`), in the order registered. Read from the registry
#: each time (module ``__getattr__``), so it includes ids registered later.
ENV_IDS: tuple[str, ...]


def __getattr__(name: str) -> Any:
    if name == "ENV_IDS":
        return tuple(ENV_SPECS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_include() -> str:
    """The directory of ccgym's C headers (``#include "ccgym/ccgym.h"``, the
    public API for envs in other packages; docs/custom_env.md): the
    installed package's ``ccgym/include``, or the source tree's ``include``
    in an editable install."""
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "include"),
                 os.path.join(os.path.dirname(os.path.dirname(here)), "include")):
        if os.path.isfile(os.path.join(path, "ccgym", "ccgym.h")):
            return path
    raise FileNotFoundError(f"ccgym's headers are not installed beside {here}")


def get_cmake_dir() -> str:
    """The directory of ccgym's CMake package config (``ccgymConfig.cmake``):
    pass it as ``ccgym_DIR`` to ``find_package(ccgym)`` outside
    scikit-build-core (which finds it by itself)."""
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "cmake")


__all__ = ["ENV_IDS", "InvalidAction", "InvalidActionType", "InvalidActionValue",
           "__version__", "get_cmake_dir", "get_include", "make_vec", "register_c_env"]
__all__ += envs.__all__

# Names this module imports only for its annotations (typing's, the future
# import): not part of the package's face, so dir(ccgym) leaves them out.
_ANNOTATION_ONLY = frozenset({"annotations", "Any"})


def __dir__() -> list[str]:
    return sorted({"ENV_IDS", *(name for name in globals() if name not in _ANNOTATION_ONLY)})
