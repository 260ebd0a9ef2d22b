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

from typing import TYPE_CHECKING, Any, Literal

from ccgym import envs
from ccgym._version import __version__
from ccgym._frontend import InvalidAction, InvalidActionType, InvalidActionValue
from ccgym._kinds import check_env_keywords
from ccgym._registration import ENV_IDS, ENV_SPECS, vector_class_name
from ccgym._registration import register as _register
from ccgym._plugins import register_c_env
# Every registered env's single-env class (ccgym.envs.__all__, from the
# registry lines; type checkers see ccgym.envs's re-exports).
from ccgym.envs import *  # noqa: F403


# The ids and their registration live in ccgym._registration (string entry
# points only), which the startup hook _ccgym_autoregister also runs in
# processes that never import ccgym; registering is idempotent.
_register()


if TYPE_CHECKING:
    from gymnasium.vector import AutoresetMode

    from ccgym.vector import VectorEnv


def make_vec(
    env_id: str,
    num_envs: int = 1,
    *,
    max_episode_steps: int | None = None,
    autoreset_mode: str | AutoresetMode = "NextStep",
    num_threads: int = 1,
    copy: bool = True,
    episode_statistics: bool = False,
    stats_buffer_length: int = 100,
    render_mode: str | None = None,
    precision: Literal["exact", "fast"] = "exact",
    **env_kwargs: Any,
) -> VectorEnv:
    """A native :class:`ccgym.vector.VectorEnv` of ``num_envs`` instances of
    ``env_id`` ("CartPole-v1" or "ccgym/CartPole-v1"); the keywords are
    :class:`ccgym.vector.VectorEnv`'s. ``env_kwargs`` are the env's own: its
    constructor's keywords and its physical parameters (a scalar, or one value
    per instance). Any other keyword raises TypeError naming the closest
    valid one."""
    from ccgym.vector import VectorEnv

    check_env_keywords("make_vec", env_id, env_kwargs, _MAKE_VEC_KEYWORDS)
    return VectorEnv(env_id, num_envs, max_episode_steps=max_episode_steps,
                     autoreset_mode=autoreset_mode, num_threads=num_threads, copy=copy,
                     episode_statistics=episode_statistics,
                     stats_buffer_length=stats_buffer_length, render_mode=render_mode,
                     precision=precision, **env_kwargs)


_MAKE_VEC_KEYWORDS = ("max_episode_steps", "autoreset_mode", "num_threads", "copy",
                      "episode_statistics", "stats_buffer_length", "render_mode", "precision")


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
_ANNOTATION_ONLY = frozenset({"annotations", "Any", "Literal", "TYPE_CHECKING"})


def __dir__() -> list[str]:
    return sorted(name for name in globals() if name not in _ANNOTATION_ONLY)
