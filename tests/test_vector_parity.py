"""Bit-exact parity of ccgym's native vector env with Gymnasium's SyncVectorEnv.

Both sides get the same seeds, the same actions (sampled from the action
space, with out-of-bound values mixed into continuous ones) and the same
resets; every step's observations, rewards, flags and infos must be equal bit
for bit, dtypes included. The reference is always the installed Gymnasium.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import ccgym
from vector_helpers import assert_same, deprecation_ctx
from reference import reference_id, CONTINUOUS_IDS

IDS = ccgym.ENV_IDS
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
STEPS = 2000
CONTINUOUS = set(CONTINUOUS_IDS)


# ----------------------------------------------------------------- helpers
def make_pair(env_id, num_envs, mode, *, via_registry=False, max_episode_steps=None,
              ref_kwargs=None, **env_kwargs):
    """(Gymnasium SyncVectorEnv, ccgym VectorEnv) built with the same settings;
    `ref_kwargs` go to Gymnasium's make only."""
    extra = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    with deprecation_ctx(env_id):
        ref = gym.make_vec(reference_id(env_id), num_envs=num_envs, vectorization_mode="sync",
                           vector_kwargs={"autoreset_mode": mode}, **extra, **env_kwargs,
                           **(ref_kwargs or {}))
    if via_registry:
        with deprecation_ctx(env_id):
            ours = gym.make_vec(f"ccgym/{env_id}", num_envs=num_envs, autoreset_mode=mode,
                                **extra, **env_kwargs)
    else:
        ours = ccgym.make_vec(env_id, num_envs=num_envs, autoreset_mode=mode, **extra,
                              **env_kwargs)
    assert isinstance(ours, ccgym.vector.VectorEnv)
    return ref, ours


def reset_both(ref, ours, where, **kwargs):
    # SyncVectorEnv pops "reset_mask" out of the caller's options: give each its own copy.
    r = ref.reset(**copy.deepcopy(kwargs))
    o = ours.reset(**copy.deepcopy(kwargs))
    assert_same(o[0], r[0], f"{where}: reset obs")
    assert_same(o[1], r[1], f"{where}: reset infos")
    return r


def step_both(ref, ours, actions, where):
    r = ref.step(actions)
    o = ours.step(actions.copy())
    for name, a, b in zip(("obs", "rewards", "terminated", "truncated", "infos"), o, r):
        assert_same(a, b, f"{where}: {name}")
    return r


class ActionSource:
    """Batches of actions sampled from the (seeded) batched action space; for
    continuous spaces a share of the entries is replaced by out-of-bound values,
    exact bounds, signed zeros and the float32 neighbours of the bounds."""

    def __init__(self, space, single_space, seed):
        self.space = space
        self.space.seed(seed)
        self.rng = np.random.default_rng(seed)
        self.continuous = isinstance(single_space, gym.spaces.Box)
        if self.continuous:
            hi = np.float32(single_space.high.max())
            self.specials = np.array(
                [hi, -hi, np.nextafter(hi, np.float32(np.inf)), np.nextafter(-hi, -np.inf),
                 np.nextafter(hi, np.float32(0)), 0.0, -0.0, 1e30, -1e30, 3 * hi, -3 * hi],
                dtype=np.float32)
            self.hi = hi

    def __call__(self):
        a = self.space.sample()
        if self.continuous:
            r = self.rng.random(a.shape)
            wild = self.rng.uniform(-4 * self.hi, 4 * self.hi, a.shape).astype(np.float32)
            a = np.where(r < 0.15, wild, a)
            a = np.where(r > 0.97, self.rng.choice(self.specials, a.shape), a)
            a = a.astype(np.float32)
        return a


def run(ref, ours, steps, seed, *, events=None, label=""):
    """Resets both with `seed`, then steps both `steps` times with the same
    actions, resetting done instances by mask in DISABLED mode. `events` maps a
    step index to reset kwargs (or a callable returning them) applied before
    that step. Returns the number of episode ends seen."""
    mode = ours.metadata["autoreset_mode"]
    assert ref.metadata["autoreset_mode"] == mode
    reset_both(ref, ours, f"{label} initial reset", seed=seed)
    actions = ActionSource(ref.action_space, ref.single_action_space, seed + 1)
    events = events or {}
    ends = 0
    for t in range(steps):
        if t in events:
            kw = events[t]
            kw = kw() if callable(kw) else kw
            reset_both(ref, ours, f"{label} reset before step {t} {kw}", **kw)
        _, _, term, trunc, _ = step_both(ref, ours, actions(), f"{label} step {t}")
        done = term | trunc
        ends += int(done.sum())
        if mode == AutoresetMode.DISABLED and done.any():
            reset_both(ref, ours, f"{label} masked reset after step {t}",
                       options={"reset_mask": done.copy()})
    ref.close()
    ours.close()
    return ends


def _reset_bounds_options(env_id):
    if env_id == "Pendulum-v1":
        return {"x_init": 1.0, "y_init": 0.25}
    if env_id.startswith("MountainCar"):
        return {"low": -0.9, "high": -0.2}
    return {"low": -0.2, "high": 0.15}


# ----------------------------------------------------------- long parity runs
def _parity(env_id, n, mode):
    # Even N builds ccgym through gymnasium.make_vec (the vector entry point),
    # odd N through ccgym.make_vec: both paths are covered.
    ref, ours = make_pair(env_id, n, mode, via_registry=(n % 2 == 0))
    ends = run(ref, ours, STEPS, seed=1000 + n, label=f"{env_id} N={n} {mode.value}")
    assert ends > 0, "the run never ended an episode: autoreset untested"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("n", [1, 7, 64])
@pytest.mark.parametrize("env_id", IDS)
def test_parity(env_id, n, mode):
    _parity(env_id, n, mode)


# The 1024-instance runs check the batch's width (every lane block, the
# chunking, many episode ends in one step); the runs above check the
# length (STEPS). 600 steps pass every id's time limit (500 at most), so
# each run still ends episodes by truncation as well as termination, at a
# third of 2000 steps' time (their 18 cases were ~16 of CI's main run's
# minutes, Gymnasium's 1024 Python envs stepping).
STEPS_1024 = 600


def _parity_1024(env_id, mode):
    ref, ours = make_pair(env_id, 1024, mode, via_registry=True)
    ends = run(ref, ours, STEPS_1024, seed=1000 + 1024, label=f"{env_id} N=1024 {mode.value}")
    assert ends > 0, "the run never ended an episode: autoreset untested"


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", IDS)
def test_parity_1024(env_id, mode):
    _parity_1024(env_id, mode)


# ------------------------------------------------------- resets, seeds, kwargs
N_SMALL = 7
SHORT = 600


def _seed_list(base, n, none_every=3):
    return [None if i % none_every == 1 else base + 17 * i for i in range(n)]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", IDS)
def test_seed_lists_and_reseeding(env_id, mode):
    """reset(seed=[...]) with None entries (those continue their stream),
    reseeding with an int mid-run, and reset(seed=None) mid-run."""
    n = N_SMALL
    ref, ours = make_pair(env_id, n, mode)
    events = {
        50: {"seed": _seed_list(500, n)},
        120: {"seed": 77},
        200: {},
        260: {"seed": tuple(_seed_list(9, n, none_every=2))},
        330: {"seed": [None] * n},
        400: {"seed": list(range(1, 3 * n, 3))},
    }
    run(ref, ours, SHORT, seed=3, events=events, label=env_id)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", IDS)
def test_partial_resets(env_id, mode):
    """reset_mask resets mid-run: unseeded, with an int seed, with a seed list
    (some None), with reset bounds options, and full resets with options."""
    n = N_SMALL
    ref, ours = make_pair(env_id, n, mode)
    rng = np.random.default_rng(11)

    def mask():
        m = rng.random(n) < 0.4
        m[rng.integers(n)] = True
        return m

    bounds = _reset_bounds_options(env_id)
    events = {}
    for t in range(20, SHORT, 45):
        kind = (t // 45) % 6
        if kind == 0:
            events[t] = lambda: {"options": {"reset_mask": mask()}}
        elif kind == 1:
            events[t] = lambda t=t: {"seed": 1000 + t, "options": {"reset_mask": mask()}}
        elif kind == 2:
            events[t] = lambda t=t: {"seed": _seed_list(t, n),
                                     "options": {"reset_mask": mask()}}
        elif kind == 3:
            events[t] = lambda: {"options": {"reset_mask": mask(), **bounds}}
        elif kind == 4:
            events[t] = lambda t=t: {"seed": t, "options": {"reset_mask": mask(), **bounds}}
        else:
            events[t] = {"options": dict(bounds)}
    run(ref, ours, SHORT, seed=5, events=events, label=env_id)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("seed", [0, 2**32 - 3, 2**64 - N_SMALL, 2**64 - 3, 2**70 + 5])
def test_large_seeds(seed, mode):
    """Seeds crossing the 32- and 64-bit boundaries (instance i gets seed + i)."""
    ref, ours = make_pair("CartPole-v1", N_SMALL, mode)
    mask = np.array([True, False, True, True, False, False, True])
    run(ref, ours, 200, seed=seed, label=str(seed), events={
        100: {"seed": seed},
        150: {"seed": seed + 1, "options": {"reset_mask": mask}},
    })


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_terminated_and_truncated_on_the_same_step(mode):
    """A fall on the last allowed step is reported as both terminated and
    truncated, as Gymnasium's TimeLimit does."""
    probe = gym.make("CartPole-v1")
    probe.reset(seed=42)
    t_fall = 1
    while not probe.step(1)[2]:
        t_fall += 1
    probe.close()
    n = 3
    ref, ours = make_pair("CartPole-v1", n, mode, max_episode_steps=t_fall)
    reset_both(ref, ours, "reset", seed=[42, 42, 42])
    ones = np.ones(n, np.int64)
    for t in range(t_fall):
        _, _, term, trunc, _ = step_both(ref, ours, ones, f"step {t}")
    assert term.all() and trunc.all()
    ref.close()
    ours.close()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1", "Pendulum-v1"])
def test_masked_reset_of_done_instances(env_id, mode):
    """A masked reset of instances that are done (NEXT_STEP: awaiting their
    autoreset) clears the pending autoreset exactly as SyncVectorEnv does;
    unmasked done instances still autoreset on the next step."""
    n = 6
    ref, ours = make_pair(env_id, n, mode, max_episode_steps=10)
    reset_both(ref, ours, "reset", seed=0)
    src = ActionSource(ref.action_space, ref.single_action_space, 0)
    for t in range(9):
        step_both(ref, ours, src(), f"step {t}")
    # Stagger: instances 0-2 restart now so that they end 3 steps later than 3-5.
    early = np.array([True, True, True, False, False, False])
    reset_both(ref, ours, "stagger", options={"reset_mask": early})
    hit = 0
    for t in range(9, 30):
        _, _, term, trunc, _ = step_both(ref, ours, src(), f"step {t}")
        done = term | trunc
        if done[3] and not done[0]:
            mask = np.array([False, True, False, True, True, False])
            hit += 1
            reset_both(ref, ours, f"mask after {t}", seed=[None, 5, None, 7, None, None],
                       options={"reset_mask": mask})
            if mode == AutoresetMode.DISABLED and (done & ~mask).any():
                reset_both(ref, ours, "rest", options={"reset_mask": done & ~mask})
        elif mode == AutoresetMode.DISABLED and done.any():
            reset_both(ref, ours, f"reset after {t}", options={"reset_mask": done})
    assert hit


KWARG_CASES = [
    ("CartPole-v0", {"sutton_barto_reward": True}),
    ("CartPole-v1", {"sutton_barto_reward": True}),
    ("CartPole-v1", {"sutton_barto_reward": False}),
    ("MountainCar-v0", {"goal_velocity": 0.01}),
    ("MountainCar-v0", {"goal_velocity": -0.05}),
    ("MountainCarContinuous-v0", {"goal_velocity": 0.02}),
    ("MountainCarContinuous-v0", {"goal_velocity": -0.1}),
    ("Pendulum-v1", {"g": 9.81}),
    ("Pendulum-v1", {"g": 0}),
    ("Pendulum-v1", {"g": 25.5}),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize(("env_id", "kwargs"), KWARG_CASES,
                         ids=[f"{i}-{k}" for i, k in KWARG_CASES])
def test_env_kwargs(env_id, kwargs, mode):
    ref, ours = make_pair(env_id, N_SMALL, mode, via_registry=True, **kwargs)
    assert ours.env_kwargs == kwargs
    run(ref, ours, 1200, seed=21, label=f"{env_id} {kwargs}")


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("max_steps", [1, 37])
@pytest.mark.parametrize("env_id", IDS)
def test_max_episode_steps(env_id, max_steps, mode):
    ref, ours = make_pair(env_id, N_SMALL, mode, max_episode_steps=max_steps)
    assert ours.max_episode_steps == max_steps
    ends = run(ref, ours, 150, seed=8, label=f"{env_id} max={max_steps}")
    assert ends >= N_SMALL * (150 // (max_steps + 1))


@pytest.mark.parametrize("env_id", sorted(CONTINUOUS))
@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_non_finite_continuous_actions(env_id, special):
    """NaN/inf continuous actions follow Gymnasium's behaviour (bit for bit)."""
    # Gymnasium's passive env checker warns about the first non-finite
    # observation or reward; that warning is not what is compared here.
    ref, ours = make_pair(env_id, N_SMALL, AutoresetMode.NEXT_STEP,
                          ref_kwargs={"disable_env_checker": True})
    reset_both(ref, ours, "reset", seed=4)
    src = ActionSource(ref.action_space, ref.single_action_space, 4)
    for t in range(500):
        a = src()
        if t % 7 == 0:
            a[t % N_SMALL] = special
        step_both(ref, ours, a, f"{env_id} step {t}")
