"""Envs defined in C in other packages (docs/custom_env.md).

A plugin is an extension module built against ccgym's headers
(``ccgym.get_include()``, ``find_package(ccgym)``) whose attribute
``env_def`` is a PyCapsule named "ccgym.env_def" holding its
``const ccgym_env_def *`` (``CCGYM_DEFINE_PLUGIN_MODULE`` in ccgym/ccgym.h).
:func:`register_c_env` adds the def to the binding's table of defs
(``_core.register_c_def``: checked there) and registers a Gymnasium id for
it, with ccgym's single-env class over the def and ccgym's vector env.
"""

from __future__ import annotations

import re
import types
from typing import Any

from ccgym import _core, _registration

# capsule -> kind, for the capsules registered (one def may get several ids).
_REGISTERED: list[tuple[Any, str]] = []

_ID = re.compile(r"^[A-Za-z_][\w.-]*/[A-Za-z_][\w.-]*-v\d+$")


def register_c_env(module_or_capsule: Any, *, id: str, max_episode_steps: int | None = None,
                   reward_threshold: float | None = None) -> type:
    """Registers the C env def of a plugin module (its ``env_def`` capsule)
    or of a capsule under the Gymnasium id ``id`` ("namespace/Name-vN", the
    namespace not "ccgym"), with a time limit of ``max_episode_steps``.
    Returns the single-env class (ccgym.envs.CEnv), which is also set on the
    module as ``<Kind>Env`` and is the id's entry point ("<module>:<Kind>Env"),
    so the id works wherever the module is importable. Afterwards the id
    works in gym.make, gym.make_vec, ccgym.make_vec, ccgym.sb3 and
    ``ccgym bench``.

    TypeError: not a module with ``env_def`` nor a capsule. ValueError: a
    capsule of another name, a def built for another CCGYM_API_VERSION
    (rebuild the plugin), a malformed def, a kind or id registered already
    by another def, a malformed id."""
    import gymnasium as gym

    import ccgym
    from ccgym import envs, vector

    if isinstance(module_or_capsule, types.ModuleType):
        if not hasattr(module_or_capsule, "env_def"):
            raise TypeError(f"module {module_or_capsule.__name__!r} has no env_def capsule")
        module: types.ModuleType | None = module_or_capsule
        capsule = module_or_capsule.env_def
    else:
        module, capsule = None, module_or_capsule
    if not isinstance(id, str) or not _ID.match(id) or id.startswith("ccgym/"):
        raise ValueError(f"id must be 'namespace/Name-vN' with a namespace other than "
                         f"'ccgym', got {id!r}")
    if max_episode_steps is not None and (isinstance(max_episode_steps, bool)
                                          or not isinstance(max_episode_steps, int)
                                          or max_episode_steps < 1):
        raise ValueError(f"max_episode_steps must be a positive int or None, "
                         f"got {max_episode_steps!r}")
    kind = next((k for c, k in _REGISTERED if c is capsule), None)
    spec = _registration.ENV_SPECS.get(id)
    if spec is not None:
        if kind is not None and tuple(spec[1:3]) == (max_episode_steps, reward_threshold):
            return envs._PLUGIN_CLASSES[kind]  # the same def again: its class
        raise ValueError(f"id {id!r} is registered already")
    if id in gym.registry:
        raise ValueError(f"id {id!r} is registered with Gymnasium already (not by ccgym)")
    if kind is None:
        kind = _core.register_c_def(capsule)  # the checks: TypeError / ValueError
        _REGISTERED.append((capsule, kind))
    name = f"{kind}Env"
    module_name = module.__name__ if module is not None else None
    cls = envs.c_env_class(kind, module_name, name)
    if module is not None:
        setattr(module, name, cls)
    envs.__dict__.setdefault(name, cls)
    _registration.ENV_SPECS[id] = (name, max_episode_steps, reward_threshold,
                                   module_name or "ccgym.envs")
    _registration.ENV_IDS = ccgym.ENV_IDS = tuple(_registration.ENV_SPECS)
    vcls = vector._id_class(id)
    setattr(vector, vcls.__name__, vcls)
    gym.register(id=id, entry_point=f"{module_name or 'ccgym.envs'}:{name}",
                 vector_entry_point=f"ccgym.vector:{vcls.__name__}",
                 max_episode_steps=max_episode_steps, reward_threshold=reward_threshold)
    return cls
