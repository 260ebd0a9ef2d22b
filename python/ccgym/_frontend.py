"""What ccgym's front ends share: env ids, argument checks, seeds, reset
options and masks, snapshots, and the errors for a closed or not yet reset env.

The single env (``envs/``), the Gymnasium vector env (``vector.py``) and
the SB3 VecEnv (``sb3.py``) take the same inputs by the same rules, so each
rule is written here once: the three accept, convert and reject alike, with
Gymnasium's exception types where Gymnasium raises one. Package-internal:
nothing here is part of ccgym's public API.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import gymnasium as gym
import numpy as np

from ccgym import _core
from ccgym._registration import ENV_SPECS, load_plugins

CLOSED = "the environment is closed"


# ------------------------------------------------------------------ env ids

def resolve_env_id(env_id: Any) -> str:
    """The ccgym id ("CartPole-v1") that ``env_id`` names: "CartPole-v1",
    "ccgym/CartPole-v1" or gym.make's module form "ccgym:ccgym/CartPole-v1".
    Anything else raises gymnasium.error.Error listing the valid ids."""
    short = env_id
    if isinstance(short, str):
        if short.startswith("ccgym:ccgym/"):
            short = short[len("ccgym:"):]
        if short.startswith("ccgym/"):
            short = short[len("ccgym/"):]
        if short in ENV_SPECS:
            return short
        # An id of a package that declares ccgym envs and is not imported yet.
        if "/" in short and load_plugins() and short in ENV_SPECS:
            return short
    raise gym.error.Error(f"ccgym has no env {env_id!r}; available: {', '.join(ENV_SPECS)}")


def check_count(name: str, value: Any, minimum: int) -> int:
    """An int argument such as num_envs or num_threads: TypeError unless an
    int (bool excluded, numpy ints included), ValueError below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def check_batch_args(env_id: Any, num_envs: Any, num_threads: Any,
                     max_episode_steps: Any) -> tuple[str, int, int, int]:
    """What every batched front end takes; returns (ccgym id, num_envs,
    num_threads, max_episode_steps), the last defaulting (None) to the id's
    registered limit."""
    short = resolve_env_id(env_id)
    num_envs = check_count("num_envs", num_envs, 1)
    num_threads = check_count("num_threads", num_threads, 1)
    if max_episode_steps is None:
        max_episode_steps = ENV_SPECS[short][1]
    if isinstance(max_episode_steps, bool) or not isinstance(
        max_episode_steps, (int, np.integer)
    ) or max_episode_steps < 0:
        raise ValueError(
            f"max_episode_steps must be a non-negative int, got {max_episode_steps!r}"
        )
    return short, num_envs, num_threads, int(max_episode_steps)


def check_render_mode(render_mode: Any, modes: list[str] | tuple[str, ...] | None) -> None:
    """ValueError unless ``render_mode`` is None or one of ``modes``. With
    ``modes=None`` any string is taken, as Gymnasium's classic-control envs and
    CartPoleVectorEnv take any render_mode (``gym.make`` warns about one not in
    ``metadata["render_modes"]``; ``"rgb_array_list"`` reaches the env as
    ``"rgb_array"`` under gym.make's RenderCollection); other types raise
    TypeError."""
    if modes is None:
        if render_mode is not None and not isinstance(render_mode, str):
            raise TypeError(f"render_mode must be None or a str, got {render_mode!r}")
        return
    if render_mode is not None and render_mode not in modes:
        allowed = repr(modes[0]) if len(modes) == 1 else f"one of {list(modes)}"
        raise ValueError(f"render_mode must be None or {allowed}, got {render_mode!r}")


# -------------------------------------------------------------------- seeds

def check_seed(seed: Any) -> int:
    """Gymnasium's rule (gymnasium.utils.seeding.np_random): a non-negative int
    (bool included, as in Python); numpy integers are accepted too."""
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        if seed < 0:
            raise gym.error.Error(f"Seed must be greater or equal to zero, actual value: {seed}")
        return seed
    raise gym.error.Error(f"Seed must be a python integer, actual type: {type(seed)}")


def batch_seeds(seed: Any, num_envs: int) -> int | list[int | None] | None:
    """A batch's ``reset(seed=...)``, checked whole before anything is seeded,
    by SyncVectorEnv's rules: None (continue every stream); an int s
    (instance i gets s + i); or a sequence of num_envs seeds or Nones."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)):
        return check_seed(seed)
    if not isinstance(seed, (list, tuple, np.ndarray)):
        raise TypeError(f"seed must be None, an int or a list of ints, got {type(seed)}")
    if len(seed) != num_envs:
        raise ValueError(
            "If seeds are passed as a list the length must match "
            f"num_envs={num_envs} but got length={len(seed)}."
        )
    return [None if s is None else check_seed(s) for s in seed]


def apply_seeds(batch: Any, seeds: int | list[int | None] | None,
                mask: np.ndarray | None = None) -> None:
    """Seeds the instances of ``batch`` (those in ``mask``) from what
    :func:`batch_seeds` returned; consecutive seeds take one C call."""
    if seeds is None:
        return
    if isinstance(seeds, int):
        batch.seed_range(seeds, mask)
        return
    first = seeds[0]
    if first is not None and seeds == list(range(first, first + len(seeds))):
        batch.seed_range(first, mask)
        return
    for i, s in enumerate(seeds):
        if s is not None and (mask is None or mask[i]):
            batch.seed_one(i, s)


# ------------------------------------------------------ reset options, masks

def index_mask(indices: Any, num_envs: int) -> np.ndarray:
    """The boolean mask of ``indices`` (ints) over num_envs instances."""
    mask = np.zeros(num_envs, dtype=np.bool_)
    mask[indices] = True
    return mask


def parse_reset_mask(mask: Any, num_envs: int) -> np.ndarray:
    """``options["reset_mask"]`` checked as SyncVectorEnv checks it (same
    exceptions and messages), as a C-contiguous bool array."""
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
    if mask.shape != (num_envs,):
        raise ValueError(
            f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}"
        )
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not mask.any():
        raise ValueError(
            "`options['reset_mask']` must contain a boolean array with at least one True "
            f"value, got reset_mask={mask}"
        )
    return np.ascontiguousarray(mask)


def parse_reset_options(kind: str, options: Any, num_envs: int | None = None
                        ) -> tuple[np.ndarray | None, float | None, float | None]:
    """(mask, a, b) for the C reset from Gymnasium's reset ``options``: the
    ``reset_mask`` (vector envs, given ``num_envs``; None: every instance)
    and the bounds of :func:`parse_reset_bounds`. Nothing is changed by a
    rejected call, so front ends parse before they seed or reset."""
    mask = None
    if options is not None:
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        if num_envs is not None and "reset_mask" in options:
            mask = parse_reset_mask(options["reset_mask"], num_envs)
    a, b = parse_reset_bounds(kind, options)
    return mask, a, b


def _verify_number_and_cast(x: Any) -> float:
    """gymnasium.envs.classic_control.utils.verify_number_and_cast."""
    try:
        return float(x)
    except (ValueError, TypeError) as e:
        raise ValueError(f"An option ({x}) could not be converted to a float.") from e


def parse_reset_bounds(kind: str, options: Any) -> tuple[float | None, float | None]:
    """The (a, b) reset bounds the C kernel takes, from Gymnasium's reset options:
    (low, high) for most envs, (x_init, y_init) for Pendulum, each defaulting
    to Gymnasium's. (None, None) when ``options`` is None: the env's defaults."""
    if options is None:
        return None, None
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
    info = _core.env_info(kind)
    a, b = (_verify_number_and_cast(options[k] if k in options else default)
            for k, default in zip(info.reset_options, info.default_reset))
    if info.reset_symmetric:  # Pendulum's (x_init, y_init): uniform in [-x, x] x [-y, y]
        # np_random.uniform(low=-high, high=high) checks high - low.
        _check_uniform_range(a - -a)
        _check_uniform_range(b - -b)
    else:
        if a > b:
            raise ValueError(f"Lower bound ({a}) must be lower than higher bound ({b}).")
        _check_uniform_range(b - a)
    return a, b


def _check_uniform_range(span: float) -> None:
    """numpy's Generator.uniform checks on high - low, which Gymnasium's resets
    hit: an infinite or NaN span overflows, a negative one (sign bit, so -0.0
    too) is an error."""
    if not math.isfinite(span):
        raise OverflowError("high - low range exceeds valid bounds")
    if math.copysign(1.0, span) < 0:
        raise ValueError("high - low < 0")


# ---------------------------------------------------------------- snapshots

def check_snapshot(snap: Any) -> None:
    """The scalar entries of a get_state() snapshot, checked before the core
    copies any array (so a bad snapshot is rejected without a partial write)."""
    if not isinstance(snap, dict):
        raise TypeError(f"state must be a dict from get_state(), got {type(snap).__name__}")
    if not isinstance(snap.get("kind"), str):
        raise ValueError(f"state['kind'] must be an env kind (a str), got {snap.get('kind')!r}")
    num_envs = snap.get("num_envs")
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise ValueError(f"state['num_envs'] must be an int, got {num_envs!r}")
    if "has_reset" in snap and not isinstance(snap["has_reset"], (bool, np.bool_)):
        raise TypeError(f"state['has_reset'] must be a bool, got {snap['has_reset']!r}")
    if "np_random_seed" in snap:
        seed = snap["np_random_seed"]
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"state['np_random_seed'] must be an int, got {seed!r}")


# ------------------------------------------------------------------- errors

class InvalidAction(gym.error.InvalidAction, AssertionError):
    """An action outside the env's action space, from any ccgym front end
    (single env, vector env, SB3 VecEnv, Tianshou adapter).

    Gymnasium's envs check actions with ``assert
    self.action_space.contains(action)``, so code written against Gymnasium
    catches ``AssertionError``; this class is one, and a
    ``gymnasium.error.InvalidAction`` too. What ccgym raises is one of its two
    subclasses, which also keep the built-in class the check raised before:
    :class:`InvalidActionType` (a ``TypeError``: the wrong type or dtype, such
    as a float for a Discrete space) and :class:`InvalidActionValue` (a
    ``ValueError``: the right type, out of range or of the wrong shape)."""


class InvalidActionType(InvalidAction, TypeError):
    """An action of the wrong type or dtype (see :class:`InvalidAction`)."""


class InvalidActionValue(InvalidAction, ValueError):
    """An action out of range or of the wrong shape (see :class:`InvalidAction`)."""


def set_action_errors(batch: Any) -> None:
    """Makes the core ``batch`` raise ccgym's :class:`InvalidAction` classes
    for a bad action."""
    batch.invalid_action_error = InvalidActionValue
    batch.invalid_action_type_error = InvalidActionType


def check_open(batch: Any) -> None:
    """RuntimeError if the batch itself is closed (``Batch.closed``). No front
    end closes its batch: as Gymnasium's, ccgym's envs stay usable after
    ``close()``, which only releases rendering resources."""
    if batch.closed:
        raise RuntimeError(CLOSED)


def reset_needed(call: str, prefix: str = "") -> gym.error.ResetNeeded:
    """Gymnasium's error for ``call`` (e.g. "step()") before the first reset;
    ``prefix`` "env." words it as Gymnasium's OrderEnforcing does."""
    return gym.error.ResetNeeded(f"Cannot call {prefix}{call} before calling {prefix}reset()")


def warn_no_render_mode(factory: str, env_id: str) -> None:
    """Gymnasium's warning for render() on an env made without a render_mode,
    naming the call that would make one (``factory``, e.g. "gym.make")."""
    gym.logger.warn(
        "You are calling render method without specifying any render mode. "
        "You can specify the render_mode at initialization, "
        f'e.g. {factory}("{env_id}", render_mode="rgb_array")'
    )


# Python 3.12 made sum() of floats compensated (Neumaier); SB3's Monitor
# logs round(sum(episode rewards), 6), so its episode returns depend on the
# Python version.
COMPENSATED_SUM = sys.version_info >= (3, 12)


class EpisodeSums:
    """Per-instance episode returns that end exactly as Python's ``sum()`` of
    the episode's float64 rewards on this Python: sequential before 3.12,
    Neumaier-compensated from 3.12 (CPython's float loop: ``t = s + x``; the
    lost low part into ``c``; ``s + c`` at the end when ``c`` is non-zero and
    finite). Starting from 0.0 instead of sum()'s int 0 changes nothing."""

    def __init__(self, n: int) -> None:
        self.s = np.zeros(n)
        self.c = np.zeros(n)

    def add(self, rewards: np.ndarray) -> None:
        """One step's float64 rewards, one per instance."""
        s = self.s
        t = s + rewards
        if COMPENSATED_SUM:
            with np.errstate(invalid="ignore", over="ignore"):
                self.c += np.where(np.abs(s) >= np.abs(rewards), (s - t) + rewards,
                                   (rewards - t) + s)
        self.s = t

    def total(self, i: int) -> float:
        """Instance i's return: what sum() of its rewards gives."""
        f, c = float(self.s[i]), float(self.c[i])
        if c and math.isfinite(c):
            f += c
        return f

    def clear(self, index: Any = slice(None)) -> None:
        """Start new episodes for ``index`` (all by default)."""
        self.s[index] = 0.0
        self.c[index] = 0.0
