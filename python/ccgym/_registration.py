"""The one place ccgym's ids are registered with Gymnasium.

Plain Python that imports nothing from ccgym and nothing but ``gymnasium``
(only inside :func:`register`): every entry point is a string, loaded when an
env is made. So it can run in two ways, with the same result:

- ``import ccgym`` calls :func:`register` (the documented convention);
- the startup hook ``_ccgym_autoregister`` (installed with the wheel, run by
  ``ccgym-autoregister.pth``) loads this file *without* importing the
  ``ccgym`` package when a process imports ``gymnasium``, and calls
  :func:`register`. That is what makes ``gym.make("ccgym/CartPole-v1")``
  work in worker processes that never ran ``import ccgym`` (RLlib env
  runners, SubprocVecEnv / AsyncVectorEnv with spawn or forkserver, TorchRL's
  ParallelEnv): Gymnasium 1.x has no plugin loading of its own.
"""

from __future__ import annotations

# The one registry line of an id (besides its env's line in src/envs.def):
# id -> (single-env class name, max_episode_steps, reward_threshold, module),
# as Gymnasium registers them; the module defines the class (each stock env's
# is its own, ccgym.envs.<env> in the env's folder; tools/new_env.py writes one
# for a new env), and
# ccgym.envs.<class> loads it on first use.
ENV_SPECS = {
    "CartPole-v0": ("CartPoleEnv", 200, 195.0, "ccgym.envs.cartpole"),
    "CartPole-v1": ("CartPoleEnv", 500, 475.0, "ccgym.envs.cartpole"),
    "MountainCar-v0": ("MountainCarEnv", 200, -110.0, "ccgym.envs.mountain_car"),
    "MountainCarContinuous-v0": ("Continuous_MountainCarEnv", 999, 90.0, "ccgym.envs.continuous_mountain_car"),
    "Pendulum-v1": ("PendulumEnv", 200, None, "ccgym.envs.pendulum"),
    "Acrobot-v1": ("AcrobotEnv", 500, -100.0, "ccgym.envs.acrobot"),
}

ENV_IDS = tuple(ENV_SPECS)


def vector_class_name(env_id: str) -> str:
    """The name in :mod:`ccgym.vector` of the vector env class of a ccgym id
    ("CartPole-v1" -> "CartPole_v1", a plugin's "custom/PointMass-v0" ->
    "custom_PointMass_v0"): the registered vector entry point is the string
    ``"ccgym.vector:<name>"``, so specs compare equal after a copy and
    ``spec.to_json()`` works, as for Gymnasium's own ids."""
    return env_id.replace("-", "_").replace("/", "_")


def gym_id(env_id: str) -> str:
    """The Gymnasium id of a ccgym id: "ccgym/<id>" for the stock ids
    ("CartPole-v1"), the id itself for a registered plugin's, which names
    its own namespace ("custom/PointMass-v0")."""
    return env_id if "/" in env_id else f"ccgym/{env_id}"


def load_plugins() -> bool:
    """Imports the packages that declare a ccgym env (entry point group
    "ccgym.envs"; importing one registers its ids): for a front end asked
    for an id it does not know yet. True if one was newly imported."""
    import importlib
    import sys
    from importlib.metadata import entry_points

    loaded = False
    for ep in entry_points(group="ccgym.envs"):
        if ep.module not in sys.modules:
            importlib.import_module(ep.module)
            loaded = True
    return loaded


def register() -> None:
    """Register ``ccgym/<Id>`` for every id not registered yet (idempotent)."""
    import gymnasium as gym

    for env_id, (cls, max_steps, threshold, module) in ENV_SPECS.items():
        full_id = gym_id(env_id)
        if full_id in gym.registry:
            continue
        gym.register(
            id=full_id,
            entry_point=f"{module}:{cls}",
            vector_entry_point=f"ccgym.vector:{vector_class_name(env_id)}",
            max_episode_steps=max_steps,
            reward_threshold=threshold,
        )
