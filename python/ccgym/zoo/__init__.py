"""RL Baselines3 Zoo front end: the Zoo's tuned hyperparameters for ccgym's
ids, and Zoo training on ccgym's native SB3 VecEnv.

The Zoo looks its hyperparameters up by the literal env id, so
``--env ccgym/CartPole-v1`` silently gets its untuned ``default`` entry. The
modules ``ccgym.zoo.<algo>`` (``a2c``, ``ddpg``, ``dqn``, ``ppo``, ``sac``,
``td3``) are configs its ``--conf-file`` accepts: each one's ``hyperparams``
is the installed Zoo's own ``hyperparams/<algo>.yml``, read when the module is
imported, plus a ``ccgym/<Id>`` entry equal to the Zoo's ``<Id>`` entry for
every ccgym id the file tunes (for a new env, the entry of the Gymnasium id
its def mirrors). Nothing is copied, so nothing can drift::

    python -m rl_zoo3.train --algo ppo --env ccgym/CartPole-v1 --gym-packages ccgym \\
        --conf-file ccgym.zoo.ppo

That trains on ``DummyVecEnv`` over single ccgym envs (the Zoo hands
``make_vec_env`` a callable, which :func:`ccgym.sb3.make_vec_env` does not
take). ``python -m ccgym.zoo train <the same arguments>`` runs the Zoo's own
``train`` with one change: its ``ExperimentManager.create_envs`` builds
:func:`ccgym.sb3.make_vec_env` (one C batch, same-step autoreset, SB3's seeds)
instead, for the training and the evaluation envs; the Zoo's wrappers
(``VecNormalize``, frame stacking) and everything else stay its own. It also
fills in ``--gym-packages ccgym``, ``--conf-file ccgym.zoo.<algo>`` and the
``ccgym/`` prefix when they are left out.

Importing this package imports neither the Zoo nor SB3; :func:`zoo_hyperparams`
and :func:`main` import them.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
from typing import Any

import gymnasium as gym

from ccgym import _core, _kinds, _registration
from ccgym._registration import gym_id

__all__ = ["ExperimentManager", "main", "zoo_hyperparams", "zoo_hyperparams_file", "zoo_id"]


def zoo_id(env_id: str) -> str:
    """The id whose Zoo entry ``env_id`` takes when the Zoo has none of its
    own: an id Gymnasium registers is itself; one Gymnasium lacks (an env
    ``tools/new_env.py`` scaffolded) is the Gymnasium id whose entry-point
    class is the one its C def mirrors (the def's ``gym_class``), at the same
    version (``PendulumCopy-v1`` -> ``Pendulum-v1``); itself if there is no
    single such id."""
    if env_id in gym.registry:
        return env_id
    gym_class = _core.env_info(_kinds.env_kind(env_id)).gym_class
    version = env_id.rpartition("-")[2]
    found = [gid for gid, spec in gym.registry.items()
             if "/" not in gid and isinstance(spec.entry_point, str)
             and spec.entry_point.rpartition(":")[2] == gym_class
             and gid.rpartition("-")[2] == version]
    return found[0] if len(found) == 1 else env_id


def zoo_package_dir() -> str:
    """The installed rl_zoo3's folder, found without importing it: importing
    rl_zoo3 patches Gymnasium's TimeLimit for the whole process (its
    gym_patches add ``info["TimeLimit.truncated"]``), which reading its
    tables must not do."""
    import importlib.util

    spec = importlib.util.find_spec("rl_zoo3")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("RL Zoo is not installed (pip install 'ccgym[zoo]')")
    return list(spec.submodule_search_locations)[0]


def zoo_hyperparams_file(algo: str) -> str:
    """The path of the installed Zoo's ``hyperparams/<algo>.yml``."""
    path = os.path.join(zoo_package_dir(), "hyperparams", f"{algo}.yml")
    if not os.path.isfile(path):
        raise ValueError(f"the installed rl_zoo3 has no hyperparameters for algo {algo!r} ({path})")
    return path


def zoo_hyperparams(algo: str) -> dict[str, Any]:
    """The Zoo's hyperparameter table for ``algo`` with ``ccgym/<Id>`` keys
    added: each a copy of the Zoo's entry for ``<Id>``, or, for an id the Zoo
    and Gymnasium do not know (one ``tools/new_env.py`` scaffolded), for the
    Gymnasium id its def mirrors (:func:`zoo_id`, as
    ``ccgym train`` does). Ids the Zoo does not tune, such as CartPole-v0, get
    its ``default`` entry, as stock ids do."""
    import yaml

    with open(zoo_hyperparams_file(algo)) as f:
        table = yaml.safe_load(f)
    for env_id in _registration.ENV_IDS:
        source = zoo_id(env_id)
        if source in table:
            table[gym_id(env_id)] = copy.deepcopy(table[source])
    return table


def _experiment_manager_class():
    from rl_zoo3 import exp_manager as zoo_exp_manager

    from ccgym import sb3  # Stable-Baselines3 and torch

    class ExperimentManager(zoo_exp_manager.ExperimentManager):
        """The Zoo's ExperimentManager with ccgym's native VecEnv: while
        ``create_envs`` runs, its ``make_vec_env`` is ccgym's."""

        def create_envs(self, n_envs: int, eval_env: bool = False, no_log: bool = False):
            env_id = self.env_name.gym_id

            def make_vec_env(env_fn, n_envs=1, seed=None, env_kwargs=None, monitor_dir=None,
                             wrapper_class=None, vec_env_cls=None, vec_env_kwargs=None,
                             monitor_kwargs=None, **kwargs):
                if wrapper_class is not None:
                    raise ValueError(
                        f"ccgym.zoo: the hyperparameters ask for env_wrapper {wrapper_class!r}, "
                        "which cannot wrap one instance of ccgym's C batch; use "
                        "rl_zoo3.train for this config")
                return sb3.make_vec_env(
                    env_id, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs,
                    monitor_dir=monitor_dir, monitor_kwargs=monitor_kwargs,
                    vec_env_kwargs=vec_env_kwargs)

            with _patched(zoo_exp_manager, "make_vec_env", make_vec_env):
                return super().create_envs(n_envs, eval_env=eval_env, no_log=no_log)

    return ExperimentManager


@contextlib.contextmanager
def _patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def __getattr__(name: str):
    if name == "ExperimentManager":  # lazily: it subclasses the Zoo's
        return _experiment_manager_class()
    raise AttributeError(f"module 'ccgym.zoo' has no attribute {name!r}")


_VALUE_FLAGS = ("--algo", "--env", "--conf-file", "-conf", "--gym-packages", "--vec-env")


def _flag_value(argv: list[str], *names: str) -> str | None:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _zoo_argv(argv: list[str]) -> list[str]:
    """The Zoo's ``train`` arguments with ccgym's defaults filled in."""
    argv = list(argv)
    algo = _flag_value(argv, "--algo") or "ppo"
    vec_env = _flag_value(argv, "--vec-env")
    if vec_env not in (None, "dummy"):
        raise SystemExit(f"ccgym.zoo: --vec-env {vec_env} is replaced by ccgym's native VecEnv "
                         "(one C batch); leave --vec-env out")
    for i, arg in enumerate(argv):
        if arg in ("--env", "-e") and i + 1 < len(argv) and argv[i + 1] in _registration.ENV_IDS:
            argv[i + 1] = f"ccgym/{argv[i + 1]}"
        elif arg.startswith("--env=") and arg[6:] in _registration.ENV_IDS:
            argv[i] = f"--env=ccgym/{arg[6:]}"
    if _flag_value(argv, "--gym-packages") is None:
        argv += ["--gym-packages", "ccgym"]
    if _flag_value(argv, "--conf-file", "-conf") is None:
        module = f"ccgym.zoo.{algo}"
        try:
            __import__(module)
        except ImportError:
            raise SystemExit(f"ccgym.zoo: no config module {module}; pass --conf-file "
                             "(ccgym.zoo.zoo_hyperparams(algo) gives the table)") from None
        argv += ["--conf-file", module]
    return argv


def main(argv: list[str] | None = None) -> None:
    """``python -m ccgym.zoo train <rl_zoo3.train arguments>``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        print("usage: python -m ccgym.zoo train [rl_zoo3.train arguments]")
        return
    if argv[0] != "train":
        raise SystemExit(f"ccgym.zoo: unknown command {argv[0]!r} (only 'train')")
    import rl_zoo3.train as zoo_train

    zoo_argv = _zoo_argv(argv[1:])
    old_argv = sys.argv
    sys.argv = ["rl_zoo3.train", *zoo_argv]
    try:
        with _patched(zoo_train, "ExperimentManager", _experiment_manager_class()):
            zoo_train.train()
    finally:
        sys.argv = old_argv
