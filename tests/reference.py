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
from ccgym import _core, _kinds


def _bare(env_id: str) -> str:
    return env_id.removeprefix("ccgym/")


@functools.cache
def reference_id(env_id: str) -> str:
    """The Gymnasium id whose env ccgym's bare ``env_id`` mirrors: ``env_id``
    itself whenever Gymnasium's registry has it (so ``ccgym/<id>`` stays
    ccgym's: a helper that makes both sides may pass every id through)."""
    if env_id in gym.registry:  # a stock id, or a ccgym/ id (then ccgym's own env)
        return env_id
    gym_class = _core.env_info(_kinds.env_class(env_id).kind).gym_class
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
        k = _kinds.env_class(env_id).kind
        if _core.env_info(k).gym_class == _core.env_info(kind).gym_class:
            return k
    raise LookupError(f"kind {kind}: no stock kind mirrors {_core.env_info(kind).gym_class}")


def is_stock(env_id: str) -> bool:
    """Whether ``env_id`` is one of the ids ccgym mirrors from Gymnasium under
    the same name: Gymnasium registers it, for the class the env's def
    mirrors (an added env, such as tools/new_env.py makes, has a new id)."""
    bare = _bare(env_id)
    spec = gym.registry.get(bare)
    gym_class = _core.env_info(_kinds.env_class(bare).kind).gym_class
    return (spec is not None and isinstance(spec.entry_point, str)
            and spec.entry_point.rpartition(":")[2] == gym_class)


# The stock ids (those Gymnasium registers too), in registry order.
STOCK_IDS = tuple(i for i in ccgym.ENV_IDS if is_stock(i))


def is_continuous(env_id: str) -> bool:
    """Whether the env of a ccgym id has a Box action space (its def's
    action_dim), so a test's continuous-id set needs no entry per env."""
    return _core.env_info(_kinds.env_class(_bare(env_id)).kind).action_dim > 0


# The ids with a Box action, in registry order.
CONTINUOUS_IDS = tuple(i for i in ccgym.ENV_IDS if is_continuous(i))


def is_discrete(env_id: str) -> bool:
    """Whether the env of a ccgym id has a Discrete action space."""
    return not is_continuous(env_id)


# The ids with a Discrete action, in registry order.
DISCRETE_IDS = tuple(i for i in ccgym.ENV_IDS if is_discrete(i))

# Each discrete id's number of actions (its def's n_actions).
N_ACTIONS = {i: _core.env_info(_kinds.env_class(i).kind).n_actions for i in DISCRETE_IDS}

# The discrete ids whose def refuses an unsigned action 0 (its rule
# unsigned_zero_wraps: Gymnasium's step computes action - 1 in the action's
# dtype, where 0 wraps around), in registry order.
UNSIGNED_ZERO_REFUSED_IDS = tuple(
    i for i in DISCRETE_IDS
    if _core.env_info(_kinds.env_class(i).kind).action_rules["unsigned_zero_wraps"])

# Gymnasium's own classic-control ids (its registry: no namespace, an entry
# point in gymnasium.envs.classic_control), in its registry order: the ids the
# parity files compare, read from Gymnasium instead of listed.
GYM_IDS = tuple(i for i, s in gym.registry.items() if "/" not in i
                and str(s.entry_point).startswith("gymnasium.envs.classic_control"))


def _version(env_id: str) -> int:
    return int(env_id.rpartition("-v")[2])


# Of GYM_IDS, the newest version of each Gymnasium class (CartPole-v1, not
# CartPole-v0: the versions of one class differ only in their spec's limits).
NEWEST_GYM_IDS = tuple(
    i for i in GYM_IDS
    if _version(i) == max(_version(j) for j in GYM_IDS
                          if gym.spec(j).entry_point == gym.spec(i).entry_point))


def class_of(env_id: str) -> tuple[type, type]:
    """Gymnasium's env class of a Gymnasium id and ccgym's, from Gymnasium's
    registry (the spec's entry point) and ccgym's."""
    from gymnasium.envs.registration import load_env_creator

    return load_env_creator(gym.spec(env_id).entry_point), _kinds.env_class(env_id)


def class_pairs() -> dict[str, tuple[type, type]]:
    """class_of per Gymnasium class, keyed by its ids' name ("CartPole" for
    CartPole-v1)."""
    return {i.rpartition("-v")[0]: class_of(i) for i in NEWEST_GYM_IDS}
