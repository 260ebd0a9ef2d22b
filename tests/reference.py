"""The Gymnasium reference of a ccgym id, for the tests that compare with it.

A stock id (one Gymnasium registers) is its own reference. An id Gymnasium
lacks (an env ``tools/new_env.py`` scaffolded, e.g. ``PendulumCopy-v1``) is
compared with the Gymnasium id whose entry-point class is the one its C def
mirrors (``gym_class``), at the same version: ``PendulumCopy-v1`` ->
``Pendulum-v1``. Per-id and per-kind tables of the tests are keyed through
:func:`reference_id` / :func:`reference_kind`, so a new env needs no entry.
"""

from __future__ import annotations

import functools

import gymnasium as gym

import ccgym
from ccgym import _core, _frontend


def _bare(env_id: str) -> str:
    return env_id.removeprefix("ccgym/")


@functools.cache
def reference_id(env_id: str) -> str:
    """The Gymnasium id whose env ccgym's bare ``env_id`` mirrors: ``env_id``
    itself whenever Gymnasium's registry has it (so ``ccgym/<id>`` stays
    ccgym's: a helper that makes both sides may pass every id through)."""
    if env_id in gym.registry:  # a stock id, or a ccgym/ id (then ccgym's own env)
        return env_id
    gym_class = _core.env_info(_frontend.env_class(env_id).kind).gym_class
    version = env_id.rpartition("-")[2]
    found = [gid for gid, spec in gym.registry.items()
             if "/" not in gid and isinstance(spec.entry_point, str)
             and spec.entry_point.rpartition(":")[2] == gym_class
             and gid.rpartition("-")[2] == version]
    if len(found) != 1:
        raise LookupError(f"{env_id}: no single Gymnasium id of class {gym_class} "
                          f"at {version} (found {found})")
    return found[0]


def reference_kind(kind: str) -> str:
    """The stock kind whose Gymnasium class ``kind`` mirrors (itself for a
    stock kind)."""
    for env_id in STOCK_IDS:
        k = _frontend.env_class(env_id).kind
        if _core.env_info(k).gym_class == _core.env_info(kind).gym_class:
            return k
    raise LookupError(f"kind {kind}: no stock kind mirrors {_core.env_info(kind).gym_class}")


def is_stock(env_id: str) -> bool:
    """Whether ``env_id``'s registry line names no module of its own (one of
    the ids ccgym mirrors from Gymnasium under the same name)."""
    return len(ccgym.ENV_SPECS[_bare(env_id)]) == 3


# The stock ids (their registry lines name no module), in registry order.
STOCK_IDS = tuple(i for i in ccgym.ENV_IDS if is_stock(i))


def is_continuous(env_id: str) -> bool:
    """Whether the env of a ccgym id has a Box action space (its def's
    action_dim), so a test's continuous-id set needs no entry per env."""
    return _core.env_info(_frontend.env_class(_bare(env_id)).kind).action_dim > 0


# The ids with a Box action, in registry order.
CONTINUOUS_IDS = tuple(i for i in ccgym.ENV_IDS if is_continuous(i))
