"""Live bit-for-bit parity of ccgym's single envs with the installed Gymnasium.

Every test steps a Gymnasium env and the ccgym env side by side with the same
seeds, reset options and actions, and compares after every call: float32
observations bit for bit (``.view(np.uint32)``, so NaNs must carry the same
bits too), rewards as float64 bits, terminated/truncated exactly, info dicts,
and the Gymnasium warnings both emit (e.g. CartPole's step-after-termination
warning, the PassiveEnvChecker's first-step checks).

Actions come from seeded random policies, mixed with a simple heuristic per env
so that episodes also end by termination (a goal reached, a pole balanced to
the time limit), not only by falling or truncation. Continuous actions are
float32 arrays, the action spaces' dtype (ccgym computes in float32).
"""

from __future__ import annotations

import math
import re
import struct
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs import classic_control as gcc

import ccgym
import ccgym.envs
from reference import GYM_IDS, NEWEST_GYM_IDS, class_pairs, is_continuous

# Read from Gymnasium's registry (tests/reference.py), not listed here.
ENV_IDS = list(GYM_IDS)
CONTINUOUS_IDS = [i for i in GYM_IDS if is_continuous(i)]

# Gymnasium's class and ccgym's per class, from the two registries.
GYM_CLASSES = {k: pair[0] for k, pair in class_pairs().items()}
CCGYM_CLASSES = {k: pair[1] for k, pair in class_pairs().items()}

SEEDS = [0, 1, 2, 3, 7, 42, 123, 999, 2024, 65535, 2**31 - 1, 2**32 - 1, 2**32, 2**63,
         2**64 - 1, 2**64 + 5, 2**128 + 7, 2**200]


def kind_of(env_id: str) -> str:
    return env_id.split("-v")[0]


# ----------------------------------------------------------------- comparing


def f64_bits(x: Any) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def _warning_key(w: warnings.WarningMessage) -> tuple[type, str]:
    # ccgym's ids are namespaced: "ccgym/CartPole-v1" where Gymnasium says "CartPole-v1".
    return w.category, str(w.message).replace("ccgym/", "")


def _gym_warnings(ws: list[warnings.WarningMessage]) -> list[tuple[type, str]]:
    # numpy's RuntimeWarnings (e.g. "invalid value" on NaN arithmetic) are an
    # implementation detail of Gymnasium's Python code: ccgym computes in C.
    return [_warning_key(w) for w in ws if not issubclass(w.category, RuntimeWarning)]


class Pair:
    """A Gymnasium env and a ccgym env driven in lock-step and compared after each call."""

    def __init__(self, ref: gym.Env, ours: gym.Env, label: str) -> None:
        self.ref = ref
        self.ours = ours
        self.label = label
        self.n_steps = 0
        self.n_resets = 0
        self.n_terminated = 0
        self.n_truncated = 0
        self.history: list[str] = []

    def _where(self) -> str:
        return f"{self.label}: after {self.n_resets} resets and {self.n_steps} steps; last calls: " \
            + " | ".join(self.history[-4:])

    def _call(self, fn_name: str, ref_args=(), our_args=(), kwargs=None):
        kwargs = kwargs or {}
        with warnings.catch_warnings(record=True) as w_ref:
            warnings.simplefilter("always")
            ref_out = getattr(self.ref, fn_name)(*ref_args, **kwargs)
        with warnings.catch_warnings(record=True) as w_ours:
            warnings.simplefilter("always")
            our_out = getattr(self.ours, fn_name)(*our_args, **kwargs)
        assert _gym_warnings(w_ours) == _gym_warnings(w_ref), (
            f"warnings differ: {_gym_warnings(w_ours)} != {_gym_warnings(w_ref)}; {self._where()}"
        )
        runtime = [str(w.message) for w in w_ours if issubclass(w.category, RuntimeWarning)]
        assert not runtime, f"{runtime}; {self._where()}"
        return ref_out, our_out

    def _check_obs(self, ref_obs, our_obs) -> None:
        assert isinstance(our_obs, np.ndarray), self._where()
        assert our_obs.dtype == np.float32 == ref_obs.dtype, self._where()
        assert our_obs.shape == ref_obs.shape, self._where()
        if not np.array_equal(our_obs.view(np.uint32), ref_obs.view(np.uint32)):
            raise AssertionError(
                f"observations differ: ours {our_obs!r} ({[hex(v) for v in our_obs.view(np.uint32)]})"
                f" != gymnasium {ref_obs!r} ({[hex(v) for v in ref_obs.view(np.uint32)]}); "
                f"{self._where()}"
            )
        assert np.array_equal(our_obs, ref_obs, equal_nan=True), self._where()

    def reset(self, **kwargs):
        self.history.append(f"reset({kwargs})")
        (ref_obs, ref_info), (our_obs, our_info) = self._call("reset", kwargs=kwargs)
        self.n_resets += 1
        self._check_obs(ref_obs, our_obs)
        assert our_info == ref_info, self._where()
        return ref_obs

    def step(self, action):
        self.history.append(f"step({action!r})")
        # Each env gets its own copy: neither may see the other's mutations.
        a_ref = action.copy() if isinstance(action, np.ndarray) else action
        a_ours = action.copy() if isinstance(action, np.ndarray) else action
        ref_out, our_out = self._call("step", (a_ref,), (a_ours,))
        self.n_steps += 1
        ref_obs, ref_r, ref_term, ref_trunc, ref_info = ref_out
        our_obs, our_r, our_term, our_trunc, our_info = our_out
        self._check_obs(ref_obs, our_obs)
        assert isinstance(our_r, float), f"reward type {type(our_r)}; {self._where()}"
        if f64_bits(our_r) != f64_bits(ref_r):
            raise AssertionError(
                f"rewards differ: ours {float(our_r).hex()} != gymnasium {float(ref_r).hex()}; "
                f"{self._where()}"
            )
        assert type(our_term) is bool and type(our_trunc) is bool, self._where()
        assert our_term == bool(ref_term), f"terminated {our_term} != {ref_term}; {self._where()}"
        assert our_trunc == bool(ref_trunc), f"truncated {our_trunc} != {ref_trunc}; {self._where()}"
        assert our_info == ref_info, self._where()
        self.n_terminated += bool(ref_term)
        self.n_truncated += bool(ref_trunc)
        return ref_obs, bool(ref_term), bool(ref_trunc)

    def set_attr(self, name: str, value: Any) -> None:
        """Sets an attribute on both unwrapped envs (e.g. Acrobot's torque_noise_max)."""
        self.history.append(f"set {name}={value!r}")
        setattr(self.ref.unwrapped, name, value)
        setattr(self.ours.unwrapped, name, value)
        assert getattr(self.ours.unwrapped, name) == value


def make_pair(env_id: str, *, raw: bool, **kwargs) -> Pair:
    """Gymnasium's env and ccgym's, both via gym.make (TimeLimit, OrderEnforcing,
    PassiveEnvChecker) or both as the bare classes."""
    kind = kind_of(env_id)
    if raw:
        ref, ours = GYM_CLASSES[kind](**kwargs), CCGYM_CLASSES[kind](**kwargs)
    elif env_id == "CartPole-v0":
        with pytest.warns(DeprecationWarning, match="out of date"):
            ref = gym.make(env_id, **kwargs)
        with pytest.warns(DeprecationWarning, match="out of date"):
            ours = gym.make(f"ccgym/{env_id}", **kwargs)
    else:
        ref, ours = gym.make(env_id, **kwargs), gym.make(f"ccgym/{env_id}", **kwargs)
    assert isinstance(ours.unwrapped, CCGYM_CLASSES[kind])
    assert isinstance(ref.unwrapped, GYM_CLASSES[kind])
    label = f"{env_id} ({'raw' if raw else 'make'}, {kwargs})"
    return Pair(ref, ours, label)


# ------------------------------------------------------------------ policies


class Policy:
    """Seeded actions: a heuristic that reaches each env's goal, mixed with
    uniform random actions (probability `eps`), and for continuous envs
    actions beyond the bounds."""

    def __init__(self, env_id: str, seed: int) -> None:
        self.kind = kind_of(env_id)
        self.rng = np.random.default_rng(seed)
        self.eps = 1.0

    def new_episode(self) -> None:
        self.eps = float(self.rng.choice([0.02, 0.2, 0.5, 1.0]))

    def _int(self, a: int):
        # Python ints and numpy integer scalars are both valid discrete actions.
        return a if self.rng.random() < 0.5 else np.int64(a)

    def __call__(self, obs: np.ndarray):
        rnd = self.rng.random() < self.eps
        k = self.kind
        if k == "CartPole":
            return self._int(int(self.rng.integers(2)) if rnd else int(obs[2] + 0.5 * obs[3] > 0))
        if k == "MountainCar":
            return self._int(int(self.rng.integers(3)) if rnd else (2 if obs[1] >= 0 else 0))
        if k == "Acrobot":
            return self._int(int(self.rng.integers(3)) if rnd else (2 if obs[5] >= 0 else 0))
        if k == "MountainCarContinuous":
            if rnd:
                a = self.rng.uniform(-1.8, 1.8)
            else:
                a = math.copysign(self.rng.uniform(0.4, 1.5), obs[1] if obs[1] != 0 else 1.0)
            return np.array([a], dtype=np.float32)
        if k == "Pendulum":
            u = self.rng.random()
            if u < 0.03:  # the bounds themselves, zero and negative zero
                a = float(self.rng.choice([2.0, -2.0, 0.0, -0.0]))
            elif rnd:
                a = self.rng.uniform(-3.0, 3.0)
            else:  # pump energy: torque along the angular velocity
                a = math.copysign(self.rng.uniform(1.0, 2.5), obs[2] if obs[2] != 0 else 1.0)
            return np.array([a], dtype=np.float32)
        raise AssertionError(k)


def run_episodes(pair: Pair, policy: Policy, min_steps: int, *, seeds: list[int],
                 options_list: list[dict | None] = (None,), keep_stepping_after_done: bool = False,
                 on_reset=None) -> None:
    """Episodes until `min_steps` steps: seeded and unseeded resets (an unseeded
    reset continues the stream), reset options, resets in mid-episode."""
    rng = np.random.default_rng(len(seeds) + min_steps)
    seed_iter = iter(seeds * 1000)
    obs = pair.reset(seed=next(seed_iter))
    policy.new_episode()
    while pair.n_steps < min_steps:
        ended_by = None
        action = policy(obs)
        obs, term, trunc = pair.step(action)
        if term or trunc:
            ended_by = "done"
            if keep_stepping_after_done and rng.random() < 0.5:
                for _ in range(int(rng.integers(1, 4))):  # "undefined behaviour", but Gymnasium's
                    obs, _, _ = pair.step(policy(obs))
        elif rng.random() < 0.002:
            ended_by = "interrupted"  # a reset in mid-episode
        if ended_by:
            if on_reset is not None:
                on_reset(pair, rng)
            kwargs: dict[str, Any] = {}
            if rng.random() < 0.4:
                kwargs["seed"] = next(seed_iter)
            opts = options_list[int(rng.integers(len(options_list)))]
            if opts is not None:
                kwargs["options"] = opts
            obs = pair.reset(**kwargs)
            policy.new_episode()


# ---------------------------------------------------------------- make()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_make_parity(env_id):
    """gym.make on both sides: TimeLimit truncation, PassiveEnvChecker, OrderEnforcing."""
    pair = make_pair(env_id, raw=False)
    run_episodes(pair, Policy(env_id, 1), 10_000, seeds=SEEDS)
    assert pair.n_truncated > 0
    if env_id != "Pendulum-v1":
        assert pair.n_terminated > 0


# Constructor keywords and attribute changes, with the raw classes (no TimeLimit).
RAW_VARIANTS = [
    ("CartPole-v1", {}),
    ("CartPole-v1", {"sutton_barto_reward": True}),
    ("MountainCar-v0", {}),
    ("MountainCar-v0", {"goal_velocity": 0.01}),
    ("MountainCar-v0", {"goal_velocity": -0.02}),
    ("MountainCarContinuous-v0", {}),
    ("MountainCarContinuous-v0", {"goal_velocity": 0.02}),
    ("MountainCarContinuous-v0", {"goal_velocity": -0.01}),
    ("Pendulum-v1", {}),
    ("Pendulum-v1", {"g": 9.81}),
    ("Acrobot-v1", {}),
]


def _raw_ids(params):
    env_id, kwargs = params
    return f"{env_id}-{kwargs}" if kwargs else env_id


@pytest.mark.parametrize(("env_id", "kwargs"), RAW_VARIANTS, ids=map(_raw_ids, RAW_VARIANTS))
def test_raw_class_parity(env_id, kwargs):
    """The bare classes, keyword arguments; episodes that never truncate run until
    termination or an interrupting reset, and may step on after termination."""
    pair = make_pair(env_id, raw=True, **kwargs)
    policy = Policy(env_id, 2)
    # Without a TimeLimit, run_episodes' random mid-episode resets end the episodes.
    run_episodes(pair, policy, 10_000, seeds=SEEDS[::-1], keep_stepping_after_done=True)
    if env_id != "Pendulum-v1":
        assert pair.n_terminated > 0
    assert pair.n_truncated == 0


@pytest.mark.parametrize("sutton_barto_reward", [False, True])
@pytest.mark.parametrize("env_id", ["CartPole-v0", "CartPole-v1"])
def test_cartpole_stepping_after_termination(env_id, sutton_barto_reward):
    """Gymnasium warns once and then gives 0 (or -1 with sutton_barto_reward) per extra step."""
    for raw in (True, False):
        pair = make_pair(env_id, raw=raw, sutton_barto_reward=sutton_barto_reward)
        rng = np.random.default_rng(5)
        for seed in range(40):
            pair.reset(seed=seed)
            term = trunc = False
            while not (term or trunc):
                _, term, trunc = pair.step(int(rng.integers(2)))
            if raw:  # OrderEnforcing does not stop it either, but TimeLimit would count on
                for _ in range(int(rng.integers(1, 30))):
                    pair.step(int(rng.integers(2)))
        assert pair.n_terminated >= 40


@pytest.mark.parametrize("raw", [True, False], ids=["raw", "make"])
def test_cartpole_warning_counter_written_mid_episode(raw):
    """steps_beyond_terminated written as 0 in mid-episode: Gymnasium warns at
    the step that terminates (its counter is no longer None), and so does
    ccgym (it used to warn only on a step after a terminated one)."""
    pair = make_pair("CartPole-v1", raw=raw)
    for seed in range(5):
        pair.reset(seed=seed)
        pair.set_attr("steps_beyond_terminated", 0)
        term = trunc = False
        while not (term or trunc):
            _, term, trunc = pair.step(1)
        assert term
        pair.step(0)  # counted on from 1: no second warning


def _acrobot_switch(pair: Pair, rng: np.random.Generator) -> None:
    """Between episodes, change torque noise and dynamics on both envs."""
    if rng.random() < 0.5:
        pair.set_attr("torque_noise_max", float(rng.choice([0.0, 0.1, 0.5, 1.0])))
    if rng.random() < 0.3:
        pair.set_attr("book_or_nips", str(rng.choice(["book", "nips"])))


@pytest.mark.parametrize("raw", [True, False], ids=["raw", "make"])
@pytest.mark.parametrize(
    ("noise", "dynamics"), [(0.5, "book"), (0.0, "nips"), (0.5, "nips")],
    ids=["noise0.5-book", "noise0-nips", "noise0.5-nips"],
)
def test_acrobot_torque_noise_and_nips(raw, noise, dynamics):
    """torque_noise_max draws from the env's stream (so it shifts the next reset too)."""
    pair = make_pair("Acrobot-v1", raw=raw)
    pair.set_attr("torque_noise_max", noise)
    pair.set_attr("book_or_nips", dynamics)
    run_episodes(pair, Policy("Acrobot-v1", 3), 10_000, seeds=SEEDS,
                 keep_stepping_after_done=raw)
    assert pair.n_terminated > 0


def test_acrobot_attributes_changed_between_episodes():
    pair = make_pair("Acrobot-v1", raw=False)
    run_episodes(pair, Policy("Acrobot-v1", 4), 10_000, seeds=SEEDS, on_reset=_acrobot_switch)


def test_acrobot_torque_noise_changed_mid_episode():
    pair = make_pair("Acrobot-v1", raw=True)
    rng = np.random.default_rng(9)
    pair.reset(seed=11)
    for t in range(600):
        if t % 50 == 0:
            pair.set_attr("torque_noise_max", float(rng.uniform(0, 2)))
        pair.step(int(rng.integers(3)))


# -------------------------------------------------------------- reset options

RESET_OPTIONS = {
    "CartPole": [
        {"low": -0.2, "high": 0.2}, {"low": 0.01}, {"high": -0.01}, {"low": -1, "high": 1},
        {"low": "-0.3", "high": "0.3"}, {"low": np.float32(-0.07), "high": np.float64(0.11)},
        {"low": 0.02, "high": 0.02}, {}, {"other": 1}, {"low": -2.0, "high": 2.0},
    ],
    "MountainCar": [
        {"low": -1.0, "high": 0.4}, {"low": -0.5}, {"high": -0.55}, {"low": -1, "high": 0},
        {"low": "-0.9", "high": "-0.8"}, {"low": 0.49, "high": 0.5}, {"low": -1.5, "high": 1.0},
        {"low": -0.5, "high": -0.5}, {},
    ],
    "MountainCarContinuous": [
        {"low": -1.0, "high": 0.4}, {"low": -0.5}, {"high": -0.55}, {"low": -1, "high": 0},
        {"low": "-0.9", "high": "-0.8"}, {"low": 0.44, "high": 0.46}, {"low": -1.5, "high": 1.0},
        {"low": -0.5, "high": -0.5}, {},
    ],
    "Pendulum": [
        {"x_init": 0.5, "y_init": 0.1}, {"x_init": 0.0}, {"y_init": 5.0}, {"x_init": 2, "y_init": 0},
        {"x_init": "1.5", "y_init": "0.25"}, {"x_init": 0.0, "y_init": 0.0},
        {"x_init": np.float32(3.0)}, {"x_init": 100.0, "y_init": 20.0}, {},
    ],
    "Acrobot": [
        {"low": -0.5, "high": 0.5}, {"low": 0.05}, {"high": -0.05}, {"low": -3, "high": 3},
        {"low": "-1.0", "high": "1.0"}, {"low": np.float32(-0.2), "high": 0.2},
        {"low": 0.3, "high": 0.3}, {"low": -20.0, "high": 20.0}, {},
    ],
}


@pytest.mark.parametrize("raw", [True, False], ids=["raw", "make"])
@pytest.mark.parametrize("env_id", NEWEST_GYM_IDS)
def test_reset_options_parity(env_id, raw):
    options = [None, *RESET_OPTIONS[kind_of(env_id)]]
    pair = make_pair(env_id, raw=raw)
    run_episodes(pair, Policy(env_id, 5), 10_000,
                 seeds=SEEDS, options_list=options, keep_stepping_after_done=raw)


@pytest.mark.parametrize("env_id", NEWEST_GYM_IDS)
def test_each_reset_option_from_each_seed(env_id):
    """Every option with several seeds, then a few steps and an unseeded reset."""
    pair = make_pair(env_id, raw=True)
    policy = Policy(env_id, 6)
    for opts in RESET_OPTIONS[kind_of(env_id)]:
        for seed in SEEDS[:8]:
            obs = pair.reset(seed=seed, options=opts)
            for _ in range(5):
                obs, _, _ = pair.step(policy(obs))
            pair.reset(options=opts)


# Options Gymnasium rejects (in its option parsing or in numpy's uniform), and
# the exception type it raises.
INVALID_RESET_OPTIONS = {
    "CartPole": [
        ({"low": 0.1, "high": -0.1}, ValueError), ({"low": "a"}, ValueError),
        ({"high": None}, ValueError), ({"low": [0.1]}, ValueError),
        ({"low": float("nan")}, OverflowError), ({"high": float("inf")}, OverflowError),
        ({"low": -1e308, "high": 1e308}, OverflowError),
        ({"low": 0.0, "high": -0.0}, ValueError),  # numpy: signbit(high - low)
    ],
    "MountainCar": [
        ({"low": -0.3, "high": -0.5}, ValueError), ({"low": "x"}, ValueError),
        ({"low": float("-inf")}, OverflowError), ({"low": 0.0, "high": -0.0}, ValueError),
    ],
    "MountainCarContinuous": [
        ({"low": -0.3, "high": -0.5}, ValueError), ({"high": object()}, ValueError),
        ({"high": float("nan")}, OverflowError), ({"low": 0.0, "high": -0.0}, ValueError),
    ],
    "Pendulum": [
        ({"x_init": "pi"}, ValueError), ({"y_init": None}, ValueError),
        ({"x_init": -1.0}, ValueError),                 # numpy: high - low < 0
        ({"x_init": 1.0, "y_init": -0.5}, ValueError),
        ({"x_init": -0.0}, ValueError),                 # numpy: signbit(-0.0 - 0.0)
        ({"x_init": float("nan")}, OverflowError),
        ({"y_init": float("inf")}, OverflowError),
        ({"x_init": 1e308}, OverflowError),             # 2 * x_init overflows
    ],
    "Acrobot": [
        ({"low": 0.2, "high": 0.1}, ValueError), ({"low": "0.1.2"}, ValueError),
        ({"high": float("inf")}, OverflowError), ({"low": 0.0, "high": -0.0}, ValueError),
    ],
}


def _invalid_ids(env_id):
    # Stable across processes (pytest-xdist's workers must collect the same
    # ids): no object addresses.
    return [re.sub(r" at 0x[0-9a-f]+", "", f"{env_id}-{o}")
            for o, _ in INVALID_RESET_OPTIONS[kind_of(env_id)]]


@pytest.mark.parametrize(
    ("env_id", "options", "exc"),
    [(e, o, x) for e in NEWEST_GYM_IDS for o, x in INVALID_RESET_OPTIONS[kind_of(e)]],
    ids=[i for e in NEWEST_GYM_IDS for i in _invalid_ids(e)],
)
def test_invalid_reset_options_raise_like_gymnasium(env_id, options, exc):
    """Where Gymnasium raises, ccgym raises the same exception type, and neither
    env's stream moves: the next unseeded reset still agrees."""
    pair = make_pair(env_id, raw=True)
    pair.reset(seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow in high - low
        with pytest.raises(exc):
            pair.ref.reset(seed=5, options=options)
    with pytest.raises(exc):
        pair.ours.reset(seed=5, options=options)
    pair.reset()
    pair.step(pair.ours.action_space.sample() if env_id in CONTINUOUS_IDS else 1)


# ------------------------------------------------------ non-finite actions

NONFINITE = [np.nan, np.inf, -np.inf]
EXTREME = [3.4e38, -3.4e38, 1e30, -1e-45, 1e-45, -0.0, 0.0, 1.0000001, -2.0000002, 1e10]


@pytest.mark.parametrize("raw", [True, False], ids=["raw", "make"])
@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_nonfinite_and_extreme_continuous_actions(env_id, raw):
    """NaN/inf actions do what Gymnasium's code does (NaN propagates into the
    state; inf is clipped for the force but not for MountainCarContinuous's
    reward). Compared with NaN-aware bitwise equality."""
    pair = make_pair(env_id, raw=raw)
    policy = Policy(env_id, 7)
    rng = np.random.default_rng(8)
    for value in NONFINITE + EXTREME:
        for seed in (0, 1, 2**64 + 5):
            # First step after make is checked by the PassiveEnvChecker (NaN obs warnings).
            obs = pair.reset(seed=seed)
            for _ in range(int(rng.integers(0, 30))):
                obs, term, trunc = pair.step(policy(obs))
                if term or trunc:
                    obs = pair.reset()
            for _ in range(int(rng.integers(1, 4))):
                obs, term, trunc = pair.step(np.array([value], dtype=np.float32))
            for _ in range(20):  # what the state became, NaN or not
                obs, term, trunc = pair.step(policy(obs))
                if term or trunc:
                    break
            pair.reset()  # unseeded: the stream is unaffected by NaN states


@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_nonfinite_action_as_first_step_after_make(env_id):
    for value in NONFINITE:
        pair = make_pair(env_id, raw=False)
        pair.reset(seed=3)
        pair.step(np.array([value], dtype=np.float32))
        pair.step(np.array([0.5], dtype=np.float32))


# ------------------------------------------------------------ np_random


@pytest.mark.parametrize("env_id", NEWEST_GYM_IDS)
def test_assigned_np_random_drives_unseeded_resets(env_id):
    """env.np_random = Generator: the next unseeded reset draws from it, as in Gymnasium."""
    pair = make_pair(env_id, raw=True)
    policy = Policy(env_id, 10)
    for s in (0, 5, 2**64 + 5):
        g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(s)))
        g.random(int(s % 7))  # mid-stream
        # Separate but identical generators: Gymnasium's is advanced in place.
        pair.ref.np_random = np.random.Generator(np.random.PCG64(0))
        pair.ref.np_random.bit_generator.state = g.bit_generator.state
        pair.ours.np_random = g
        assert pair.ours.np_random_seed == pair.ref.np_random_seed == -1
        obs = pair.reset()
        for _ in range(50):
            obs, term, _ = pair.step(policy(obs))
            if term:
                obs = pair.reset()
        pair.reset()


@pytest.mark.parametrize("env_id", NEWEST_GYM_IDS)
def test_np_random_state_tracks_gymnasium(env_id):
    """The generator ccgym exposes sits where Gymnasium's does, through seeded and
    unseeded resets (and Acrobot's noise draws)."""
    pair = make_pair(env_id, raw=True)
    if env_id.startswith("Acrobot"):
        pair.set_attr("torque_noise_max", 0.3)
    policy = Policy(env_id, 11)
    for seed in SEEDS[:6]:
        obs = pair.reset(seed=seed)
        assert pair.ours.np_random_seed == pair.ref.np_random_seed == seed
        for _ in range(30):
            obs, term, _ = pair.step(policy(obs))
            assert (pair.ours.np_random.bit_generator.state
                    == pair.ref.np_random.bit_generator.state)
            if term:
                obs = pair.reset()
                assert pair.ours.np_random_seed == pair.ref.np_random_seed == seed


# ----------------------------------------------------------- long runs


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_long_make_parity_many_seeds(env_id):
    """Many seeded episodes (each seed once) plus unseeded continuations."""
    pair = make_pair(env_id, raw=False)
    n = 12_000 if env_id.startswith("Acrobot") else 40_000
    run_episodes(pair, Policy(env_id, 12), n, seeds=list(range(300, 1300)) + SEEDS,
                 options_list=[None, None, None, *RESET_OPTIONS[kind_of(env_id)][:3]])


# ------------------------------------------- MountainCarContinuous edge states
_MCC_POSITIONS = [-1.2, -1.1999, -0.5236, -0.5, 0.0, 0.4499, 0.45, 0.45001, 0.5, 0.5999, 0.6]
_MCC_VELOCITIES = [-0.07, -0.06999, -0.0015, -1e-9, 0.0, 1e-9, 0.0015, 0.06999, 0.07]
_MCC_ACTIONS = [-np.inf, -2.0, -1.0, -0.99999, -0.3, 0.0, 0.3, 0.99999, 1.0, 2.0, np.inf, np.nan]


def _mcc_step_from(ref, ours, view, state: np.ndarray, action: float) -> None:
    """Puts both envs in `state` (float32: after a step; float64: right after
    a reset), steps them with `action` and compares the results bit for bit."""
    ref.state = state.copy()
    view["position"], view["velocity"] = float(state[0]), float(state[1])
    view["state_f32"] = int(state.dtype == np.float32)
    act = np.array([action], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN/inf actions
        r_obs, r_rew, r_term, _, _ = ref.step(act)
    o_obs, o_rew, o_term, _, _ = ours.step(act)
    where = f"state {state!r} action {action!r}"
    assert o_obs.tobytes() == np.asarray(r_obs, np.float32).tobytes(), where
    assert struct.pack("<d", o_rew) == struct.pack("<d", float(r_rew)), where
    assert o_term == r_term, where
    assert ours.state.dtype == ref.state.dtype, where


@pytest.mark.parametrize("goal_velocity", [0.0, 0.07, 0.0700000001, 1e-50, -1e-50, -0.07])
@pytest.mark.parametrize("f32_state", [True, False], ids=["float32-state", "after-reset"])
def test_mountain_car_continuous_edge_states(goal_velocity, f32_state):
    """Every clipping branch of MountainCarContinuous's step from states at its
    bounds, with actions clipped or not (NaN and inf too), and goal velocities
    where float32 and float64 comparisons disagree: the float32-state path
    (every step but the first) and the float64 one (right after a reset)."""
    ref = gcc.Continuous_MountainCarEnv(goal_velocity=goal_velocity)
    ours = ccgym.envs.Continuous_MountainCarEnv(goal_velocity=goal_velocity)
    ref.reset(seed=0)
    ours.reset(seed=0)
    view = ours._core.state_view(ours._state_dtype)
    dtype = np.float32 if f32_state else np.float64
    for p in _MCC_POSITIONS:
        for v in _MCC_VELOCITIES:
            for a in _MCC_ACTIONS:
                state = np.array([p, v], dtype=dtype)
                _mcc_step_from(ref, ours, view, state, a)


def _mcc_unclipped_position(pos: np.float32, vel: np.float32, action: float) -> np.float32:
    """Gymnasium's float32 position sum before any clip (power 0.0015)."""
    force = np.float32(action)
    t = force * 0.0015 - 0.0025 * math.cos(3 * pos)  # numpy float32 scalar arithmetic
    return np.float32(pos + np.float32(vel + t))


@pytest.mark.parametrize("target,velocity", [
    (-1.2, -0.05), (-1.2, -0.01), (-1.2, -1e-4), (-1.2, 0.0),
    (0.45, 0.0), (0.45, 1e-4), (0.45, 0.03), (0.6, 0.01), (0.6, 0.05)])
@pytest.mark.parametrize("action", [0.0, 0.5, -0.7])
def test_mountain_car_continuous_lands_on_bounds(target, velocity, action):
    """States one ulp apart whose unclipped float32 step lands just short of,
    exactly on, and just past a bound (min_position, where a negative velocity
    is zeroed; goal_position; max_position): the case no random episode hits,
    where ccgym's unclipped fast path must hand over to the clipping one."""
    ref = gcc.Continuous_MountainCarEnv()
    ours = ccgym.envs.Continuous_MountainCarEnv()
    ref.reset(seed=0)
    ours.reset(seed=0)
    view = ours._core.state_view(ours._state_dtype)
    vel = np.float32(velocity)
    guess = target
    for _ in range(4):  # the drift term depends on the start position: iterate
        guess = target - (velocity - 0.0025 * math.cos(3 * guess) + action * 0.0015)
    guess = np.float32(guess)
    candidates = [guess]
    for _ in range(40):
        candidates.insert(0, np.nextafter(candidates[0], np.float32(-np.inf)))
        candidates.append(np.nextafter(candidates[-1], np.float32(np.inf)))
    landed = 0
    for pos in candidates:
        landed += _mcc_unclipped_position(pos, vel, action) == np.float32(target)
        _mcc_step_from(ref, ours, view, np.array([pos, vel], dtype=np.float32), action)
    assert landed, "no candidate state lands exactly on the bound: widen the search"


def test_acrobot_wrap_of_far_angles_matches_gymnasium():
    """Reset options as wide as +-150 give first steps whose angles pass many
    turns: Acrobot's wrap must subtract one turn at a time, as Gymnasium's
    loop does (a closed form rounds differently: 19 of these 60 seeds
    differed when ccgym took fmod past 64 turns)."""
    options = {"low": -150.0, "high": 150.0}
    for seed in range(60):
        ref = gym.make("Acrobot-v1").unwrapped
        ours = gym.make("ccgym/Acrobot-v1").unwrapped
        np.testing.assert_array_equal(ours.reset(seed=seed, options=options)[0],
                                      ref.reset(seed=seed, options=options)[0])
        for action in (1, 0, 2):
            got, want = ours.step(action), ref.step(action)
            np.testing.assert_array_equal(got[0], want[0], err_msg=f"seed {seed}")
            assert got[1:4] == want[1:4], seed
