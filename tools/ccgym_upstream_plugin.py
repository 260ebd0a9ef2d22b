"""pytest plugin: run Gymnasium's / Stable-Baselines3's own tests on ccgym.

Loaded by ``tools/run_upstream_tests.py`` with ``-p ccgym_upstream_plugin``
(it copies this file next to the upstream tests it runs; never into an
upstream source tree). A ``-p`` plugin is imported before any test module, so
everything below is in place before collection:

- Gymnasium's registry: the stock ids ``CartPole-v0/v1``, ``MountainCar-v0``,
  ``MountainCarContinuous-v0``, ``Pendulum-v1``, ``Acrobot-v1`` get ccgym's
  vector entry point; their single-env entry point string is kept and loads
  ccgym's class (next item), as does every other field of the stock spec.
- ``gymnasium.envs.classic_control.<Class>`` (and the same name in its
  submodule) is ccgym's class, so ``from gymnasium.envs.classic_control
  import CartPoleEnv`` and string entry points such as
  ``"gymnasium.envs.classic_control.cartpole:CartPoleEnv"`` give ccgym's env;
  ``CartPoleVectorEnv`` is ``ccgym.vector.CartPole_v1``, the class of
  ``CartPole-v1``'s (now ccgym's) vector entry point.
- With ``CCGYM_UPSTREAM_SB3=1`` (set for the SB3 run): SB3's
  ``make_vec_env`` builds ``ccgym.sb3.make_vec_env`` for a classic-control id
  string (when no ``wrapper_class`` / non-Dummy ``vec_env_cls`` is asked
  for), and ``DummyVecEnv(env_fns)`` whose fns all build the same plain
  ``gym.make``'d ccgym env (only TimeLimit / OrderEnforcing /
  PassiveEnvChecker around it) returns a ``ccgym.sb3.VecEnv`` instead.

Each test records, as the junit property ``ccgym_uses``, how many ccgym envs
(single, vector or SB3) it built, so the runner can tell tests that
exercised ccgym from tests that never touched a classic-control env.

``CCGYM_UPSTREAM_STOCK=1`` loads the plugin without patching anything (the
baseline run), so both runs have the same plugin-side bookkeeping.
"""

from __future__ import annotations

import functools
import os

import pytest

STOCK = os.environ.get("CCGYM_UPSTREAM_STOCK") == "1"
SB3 = os.environ.get("CCGYM_UPSTREAM_SB3") == "1"

# stock id -> (gymnasium.envs.classic_control submodule, class name)
CLASSES = {
    "CartPole-v0": ("cartpole", "CartPoleEnv"),
    "CartPole-v1": ("cartpole", "CartPoleEnv"),
    "MountainCar-v0": ("mountain_car", "MountainCarEnv"),
    "MountainCarContinuous-v0": ("continuous_mountain_car", "Continuous_MountainCarEnv"),
    "Pendulum-v1": ("pendulum", "PendulumEnv"),
    "Acrobot-v1": ("acrobot", "AcrobotEnv"),
}

_uses = [0]


def _count(cls):
    """Wrap cls.__init__ (on this class only) to count instances built."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_ccgym_counted", False):
        return

    @functools.wraps(init)
    def counted(self, *args, **kwargs):
        _uses[0] += 1
        return init(self, *args, **kwargs)

    counted._ccgym_counted = True
    cls.__init__ = counted


def _patch_gymnasium() -> None:
    import importlib

    import gymnasium as gym
    import gymnasium.envs.classic_control as cc

    import ccgym
    import ccgym.envs
    import ccgym.vector

    _count(ccgym.envs._CoreEnv)  # every ccgym single env runs its __init__
    _count(ccgym.vector.VectorEnv)

    for env_id, (module, cls_name) in CLASSES.items():
        ours = getattr(ccgym.envs, cls_name)
        setattr(cc, cls_name, ours)
        setattr(importlib.import_module(f"gymnasium.envs.classic_control.{module}"), cls_name, ours)
        spec = gym.registry[env_id]
        ccgym_spec = gym.registry[f"ccgym/{env_id}"]
        # The stock entry point string stays ("gymnasium.envs.classic_control.
        # cartpole:CartPoleEnv"): it now loads ccgym's class (patched in
        # above), and Gymnasium's tests pick the envs they parametrize over
        # by that string (tests/envs/utils.py: "gymnasium.envs." in
        # entry_point) -- ccgym's string silently dropped the six ids from 48
        # tests (test_all_env_api, test_pickle_env, test_render_modes, ...).
        assert gym.envs.registration.load_env_creator(spec.entry_point) is ours
        spec.vector_entry_point = ccgym_spec.vector_entry_point

    # ccgym's vector entry point class of CartPole-v1 (Gymnasium's
    # CartPoleVectorEnv(num_envs, **kwargs) signature): the class
    # gym.make_vec("CartPole-v1") builds, as CartPoleEnv above is the class
    # gym.make builds.
    CartPoleVectorEnv = ccgym.vector.CartPole_v1

    import gymnasium.envs.classic_control.cartpole as cartpole

    cartpole.CartPoleVectorEnv = CartPoleVectorEnv
    if hasattr(cc, "CartPoleVectorEnv"):
        cc.CartPoleVectorEnv = CartPoleVectorEnv


_PLAIN_WRAPPERS = ("TimeLimit", "OrderEnforcing", "PassiveEnvChecker")


def _plain_ccgym_id(env):
    """The stock id if env is a plain gym.make'd ccgym env, else None."""
    import ccgym.envs

    e = env
    while hasattr(e, "env") and type(e).__name__ in _PLAIN_WRAPPERS:
        e = e.env
    if e is not env.unwrapped or not isinstance(e, ccgym.envs._CoreEnv):
        return None
    spec = env.spec
    extra = {k: v for k, v in (spec.kwargs if spec else {}).items() if k != "render_mode"}
    if spec is None or extra or spec.id.split("/")[-1] not in CLASSES:
        return None
    return spec.id.split("/")[-1], spec.max_episode_steps, env.render_mode


def _patch_sb3() -> None:
    import stable_baselines3.common.env_util as env_util
    import stable_baselines3.common.vec_env as vec_env_pkg
    from stable_baselines3.common.vec_env import DummyVecEnv

    import ccgym.sb3

    _count(ccgym.sb3.VecEnv)
    original_make_vec_env = env_util.make_vec_env

    @functools.wraps(original_make_vec_env)
    def make_vec_env(env_id, n_envs=1, seed=None, start_index=0, monitor_dir=None,
                     wrapper_class=None, env_kwargs=None, vec_env_cls=None,
                     vec_env_kwargs=None, monitor_kwargs=None, wrapper_kwargs=None):
        if (isinstance(env_id, str) and env_id.split("/")[-1] in CLASSES
                and wrapper_class is None and vec_env_cls in (None, DummyVecEnv)):
            return ccgym.sb3.make_vec_env(
                "ccgym/" + env_id.split("/")[-1], n_envs=n_envs, seed=seed,
                start_index=start_index, monitor_dir=monitor_dir, env_kwargs=env_kwargs,
                vec_env_kwargs=vec_env_kwargs, monitor_kwargs=monitor_kwargs)
        return original_make_vec_env(
            env_id, n_envs=n_envs, seed=seed, start_index=start_index,
            monitor_dir=monitor_dir, wrapper_class=wrapper_class, env_kwargs=env_kwargs,
            vec_env_cls=vec_env_cls, vec_env_kwargs=vec_env_kwargs,
            monitor_kwargs=monitor_kwargs, wrapper_kwargs=wrapper_kwargs)

    env_util.make_vec_env = make_vec_env
    if hasattr(vec_env_pkg, "make_vec_env"):
        vec_env_pkg.make_vec_env = make_vec_env
    import stable_baselines3

    if hasattr(stable_baselines3, "make_vec_env"):
        stable_baselines3.make_vec_env = make_vec_env

    original_init = DummyVecEnv.__init__

    def __new__(cls, env_fns, *args, **kwargs):
        if cls is not DummyVecEnv or args or kwargs:
            return object.__new__(cls)
        envs = [fn() for fn in env_fns]
        ids = [_plain_ccgym_id(env) for env in envs]
        distinct = len({id(env.unwrapped) for env in envs}) == len(envs)
        if envs and distinct and ids[0] is not None and all(i == ids[0] for i in ids):
            env_id, max_steps, render_mode = ids[0]
            for env in envs:
                env.close()
            return ccgym.sb3.VecEnv("ccgym/" + env_id, len(envs),
                                    max_episode_steps=max_steps, render_mode=render_mode)
        self = object.__new__(cls)
        self._ccgym_prebuilt = envs  # built once: hand them to __init__
        return self

    @functools.wraps(original_init)
    def __init__(self, env_fns, *args, **kwargs):
        prebuilt = self.__dict__.pop("_ccgym_prebuilt", None)
        if prebuilt is not None:
            env_fns = [lambda env=env: env for env in prebuilt]
        original_init(self, env_fns, *args, **kwargs)

    DummyVecEnv.__new__ = __new__
    DummyVecEnv.__init__ = __init__


if not STOCK:
    _patch_gymnasium()
    if SB3:
        _patch_sb3()


def pytest_report_header(config):
    mode = "stock Gymnasium classes (baseline)" if STOCK else "ccgym classes patched in"
    return f"ccgym_upstream_plugin: {mode}{' + ccgym.sb3' if SB3 and not STOCK else ''}"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _uses[0] = 0


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    item.user_properties.append(("ccgym_uses", _uses[0]))
