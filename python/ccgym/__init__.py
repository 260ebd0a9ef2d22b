"""ccgym: Gymnasium's classic-control environments as C kernels.

``import ccgym`` registers ``ccgym/CartPole-v0``, ``ccgym/CartPole-v1``,
``ccgym/MountainCar-v0``, ``ccgym/MountainCarContinuous-v0``,
``ccgym/Pendulum-v1`` and ``ccgym/Acrobot-v1`` with Gymnasium, each with a
single-env entry point (:mod:`ccgym.envs`) and a native vector entry point
(:mod:`ccgym.vector`)::

    import gymnasium as gym
    import ccgym

    env = gym.make("ccgym/CartPole-v1")
    envs = gym.make_vec("ccgym/CartPole-v1", num_envs=1024)
"""

from __future__ import annotations

import gymnasium as gym

from ccgym import envs
from ccgym.envs import (
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)

__version__ = "0.1.0"

# id -> (single-env class name, max_episode_steps, reward_threshold), as Gymnasium registers them.
ENV_SPECS = {
    "CartPole-v0": ("CartPoleEnv", 200, 195.0),
    "CartPole-v1": ("CartPoleEnv", 500, 475.0),
    "MountainCar-v0": ("MountainCarEnv", 200, -110.0),
    "MountainCarContinuous-v0": ("Continuous_MountainCarEnv", 999, 90.0),
    "Pendulum-v1": ("PendulumEnv", 200, None),
    "Acrobot-v1": ("AcrobotEnv", 500, -100.0),
}

ENV_IDS = tuple(ENV_SPECS)


def vector_class_name(env_id: str) -> str:
    """The name in :mod:`ccgym.vector` of the vector env class of a ccgym id
    ("CartPole-v1" -> "CartPole_v1"): the registered vector entry point is
    ``"ccgym.vector:<name>"``, a string, so specs compare equal after a
    copy and ``spec.to_json()`` works, as for Gymnasium's own ids."""
    return env_id.replace("-", "_")


def _register() -> None:
    """Registers every id of ENV_SPECS as ``ccgym/<id>`` (skipping ids already
    registered): the one place ccgym touches Gymnasium's registry."""
    for env_id, (cls, max_steps, threshold) in ENV_SPECS.items():
        full_id = f"ccgym/{env_id}"
        if full_id in gym.registry:
            continue
        gym.register(
            id=full_id,
            entry_point=f"ccgym.envs:{cls}",
            vector_entry_point=f"ccgym.vector:{vector_class_name(env_id)}",
            max_episode_steps=max_steps,
            reward_threshold=threshold,
        )


_register()


def make_vec(env_id: str, num_envs: int = 1, **kwargs):
    """A native :class:`ccgym.vector.VectorEnv` of ``num_envs`` instances of
    ``env_id`` ("CartPole-v1" or "ccgym/CartPole-v1"); keyword arguments as
    :class:`ccgym.vector.VectorEnv`."""
    from ccgym.vector import VectorEnv

    return VectorEnv(env_id, num_envs=num_envs, **kwargs)


__all__ = ["ENV_IDS", "__version__", "make_vec"]
__all__ += envs.__all__
