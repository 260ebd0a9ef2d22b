"""Helpers shared by the ccgym benchmark suites.

The suites use only ccgym's public API (``ccgym.make_vec``, the
``ccgym.envs`` classes, the ``ccgym/<Id>`` registrations), so the same
benchmark code runs on every commit. A commit that lacks a feature makes
``setup`` raise ``NotImplementedError``, which asv records as a skip.

Parameter lists are spelled out here rather than read from ccgym, so that
benchmark names and parameters stay the same on every commit.
"""

from __future__ import annotations

import contextlib
import warnings

import gymnasium  # noqa: F401  (imported once in asv's fork server, not per benchmark)
import numpy  # noqa: F401

# Gymnasium ids ported by ccgym; ccgym registers each as "ccgym/<id>".
ENV_IDS = [
    "CartPole-v0",
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]

# Gymnasium's single-env class name for each id (module gymnasium.envs.classic_control).
CLASS_NAMES = {
    "CartPole-v0": "CartPoleEnv",
    "CartPole-v1": "CartPoleEnv",
    "MountainCar-v0": "MountainCarEnv",
    "MountainCarContinuous-v0": "Continuous_MountainCarEnv",
    "Pendulum-v1": "PendulumEnv",
    "Acrobot-v1": "AcrobotEnv",
}

# Gymnasium ships a native vector env (CartPoleVectorEnv) only for these.
GYMNASIUM_NATIVE_VECTOR_IDS = ("CartPole-v0", "CartPole-v1")

# SyncVectorEnv steps its envs one by one in Python; beyond this it only burns time.
GYMNASIUM_SYNC_MAX_ENVS = 64

# Steps per timed call: a call stays in the milliseconds for the big batches,
# and asv repeats the cheap ones until a sample is long enough.
SINGLE_STEPS = 100
VECTOR_STEPS = 10

SEED = 12345


class Skip(NotImplementedError):
    """Raised by setup for a parameter combination this commit (or library) lacks."""


def _preimport() -> None:
    # asv.conf.json launches benchmarks from a fork server that has imported
    # this package; importing ccgym here saves every forked benchmark the cost.
    # Errors are left for setup to raise (or skip) where they belong.
    for name in ("ccgym", "ccgym.envs", "ccgym.vector"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001
            pass


_preimport()


def close(obj, name: str) -> None:
    """teardown helper: asv calls teardown even when setup raised (skipped)."""
    env = obj.__dict__.pop(name, None)
    if env is not None:
        env.close()


@contextlib.contextmanager
def quiet():
    """Silences Gymnasium's deprecation and env-checker warnings while building envs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def feature(what: str):
    """Turns a missing module or keyword argument of ccgym into an asv skip.

    Any other error propagates: a broken feature must fail, not be skipped.
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        raise Skip(f"{what} is not available on this commit: {exc}") from exc
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        raise Skip(f"{what} is not available on this commit: {exc}") from exc


def import_ccgym():
    """ccgym itself; every commit has it, so failing to import it is an error."""
    import ccgym

    return ccgym


def ccgym_single(env_id: str, api: str):
    """A ccgym single env: the raw class (no time limit) or ``gymnasium.make``."""
    ccgym = import_ccgym()
    with quiet():
        if api == "class":
            cls = getattr(ccgym.envs, CLASS_NAMES[env_id], None)
            if cls is None:
                raise Skip(f"ccgym.envs.{CLASS_NAMES[env_id]} is not available on this commit")
            return cls()
        import gymnasium as gym

        if f"ccgym/{env_id}" not in gym.registry:
            raise Skip(f"ccgym/{env_id} is not registered on this commit")
        return gym.make(f"ccgym/{env_id}")


def gymnasium_single(env_id: str, api: str):
    """Gymnasium's own single env: the raw class or ``gymnasium.make``."""
    import gymnasium as gym
    from gymnasium.envs import classic_control

    with quiet():
        if api == "class":
            return getattr(classic_control, CLASS_NAMES[env_id])()
        return gym.make(env_id)


def ccgym_vector(env_id: str, num_envs: int, **kwargs):
    """``ccgym.make_vec``; a skip when this commit has no vector env or keyword."""
    ccgym = import_ccgym()
    make_vec = getattr(ccgym, "make_vec", None)
    if make_vec is None:
        raise Skip("ccgym.make_vec is not available on this commit")
    with feature("ccgym.make_vec" + (f" with {sorted(kwargs)}" if kwargs else "")), quiet():
        return make_vec(env_id, num_envs=num_envs, **kwargs)


def gymnasium_vector(env_id: str, num_envs: int, mode: str):
    """Gymnasium's baselines: ``SyncVectorEnv`` ("sync") or CartPoleVectorEnv ("native")."""
    import gymnasium as gym

    if mode == "sync":
        if num_envs > GYMNASIUM_SYNC_MAX_ENVS:
            raise Skip(f"SyncVectorEnv is benchmarked up to N={GYMNASIUM_SYNC_MAX_ENVS}")
        with quiet():
            return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync")
    if env_id not in GYMNASIUM_NATIVE_VECTOR_IDS:
        raise Skip(f"Gymnasium has no native vector env for {env_id}")
    with quiet():
        return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point")


def draw_actions(action_space, count: int, seed: int = SEED) -> list:
    """``count`` actions drawn up front, so the timed loop only steps."""
    action_space.seed(seed)
    return [action_space.sample() for _ in range(count)]
