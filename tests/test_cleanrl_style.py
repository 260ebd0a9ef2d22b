"""CleanRL-style training loops on ccgym vs stock Gymnasium (no cleanrl package).

CleanRL's scripts (``ppo.py``, ``dqn.py``) build
``gym.vector.SyncVectorEnv([make_env(...)] * N)`` with a
``RecordEpisodeStatistics`` per env and read Gymnasium 1.x's batched infos:
``infos["episode"]["r"][i]`` where ``infos["_episode"][i]``. The README's swap
is one line, ``gym.make_vec("ccgym/<Id>", N, vectorization_mode="vector_entry_point",
episode_statistics=True)``; these loops run both and compare what they log and
what they store, step for step.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import ccgym
from reference import reference_id

ENV_IDS = list(ccgym.ENV_IDS)
N = 4
STEPS = 700  # long enough for every id but MountainCarContinuous (999-step limit) to end episodes


def steps_for(env_id):
    return 1010 if env_id == "MountainCarContinuous-v0" else STEPS


def _quiet_make(env_id, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # CartPole-v0 is "out of date"
        return gym.make(reference_id(env_id), **kwargs)


def cleanrl_make_env(env_id):
    """CleanRL's ``make_env`` (without video capture)."""
    def thunk():
        env = _quiet_make(env_id)
        return gym.wrappers.RecordEpisodeStatistics(env)
    return thunk


def stock_envs(env_id, mode=AutoresetMode.NEXT_STEP):
    return gym.vector.SyncVectorEnv([cleanrl_make_env(env_id) for _ in range(N)],
                                    autoreset_mode=mode)


def ccgym_envs(env_id, mode=AutoresetMode.NEXT_STEP):
    """The README's one-line swap."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return gym.make_vec(f"ccgym/{env_id}", num_envs=N, vectorization_mode="vector_entry_point",
                            autoreset_mode=mode, episode_statistics=True)


def run_loop(envs, steps, seed=1):
    """A CleanRL loop over random actions: what it logs (global_step, env,
    return, length) and the replay-buffer transitions it stores under
    NEXT_STEP (the step after a done is the reset step: not a transition)."""
    envs.single_action_space.seed(seed)
    obs, _ = envs.reset(seed=seed)
    logged, stored, info_keys = [], [], []
    autoreset = np.zeros(envs.num_envs, dtype=bool)
    global_step = 0
    for _ in range(steps):
        global_step += envs.num_envs
        actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        info_keys.append(sorted(infos))
        # ppo.py / dqn.py, Gymnasium 1.x: the batched "episode" info and its mask.
        if "episode" in infos:
            for i in np.flatnonzero(infos["_episode"]):
                logged.append((global_step, int(i), float(infos["episode"]["r"][i]),
                               int(infos["episode"]["l"][i])))
        # NEXT_STEP: no final_obs in infos; next_obs of a done env is its last
        # observation, and the following step's (obs, next_obs) is no transition.
        for i in np.flatnonzero(~autoreset):
            stored.append((obs[i].tobytes(), next_obs[i].tobytes(), actions[i].tobytes(),
                           float(rewards[i]), bool(terminations[i])))
        autoreset = np.logical_or(terminations, truncations)
        obs = next_obs
    envs.close()
    return logged, stored, info_keys


def run_same_step_loop(envs, seed=2):
    """dqn.py's ``real_next_obs`` pattern under SAME_STEP (``final_obs``)."""
    envs.single_action_space.seed(seed)
    obs, _ = envs.reset(seed=seed)
    stored, logged = [], []
    for _ in range(STEPS):
        actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        real_next_obs = next_obs.copy()
        if "_final_obs" in infos:
            for i in np.flatnonzero(infos["_final_obs"]):
                real_next_obs[i] = infos["final_obs"][i]
        if "episode" in infos:
            for i in np.flatnonzero(infos["_episode"]):
                logged.append((int(i), float(infos["episode"]["r"][i]),
                               int(infos["episode"]["l"][i])))
        stored.append((obs.tobytes(), real_next_obs.tobytes(), rewards.tobytes(),
                       terminations.tobytes(), truncations.tobytes()))
        obs = next_obs
    envs.close()
    return logged, stored


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_cleanrl_next_step_loop_identical(env_id):
    ours = run_loop(ccgym_envs(env_id), steps_for(env_id))
    ref = run_loop(stock_envs(env_id), steps_for(env_id))
    assert ref[0], "the loop must see episodes end (else it tests nothing)"
    assert ours[0] == ref[0], "logged episodes (step, env, return, length) differ"
    assert ours[1] == ref[1], "stored transitions differ"
    assert ours[2] == ref[2], "info keys differ"
    assert not any("final_obs" in keys for keys in ours[2]), "NEXT_STEP has no final_obs"


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Acrobot-v1"])
def test_cleanrl_same_step_final_obs_identical(env_id):
    """SAME_STEP: ccgym puts "episode" at the top level of infos (as
    gymnasium.wrappers.vector.RecordEpisodeStatistics does), so the stock
    reference is that vector wrapper over SyncVectorEnv."""
    ours = run_same_step_loop(ccgym_envs(env_id, AutoresetMode.SAME_STEP))
    stock = gym.vector.SyncVectorEnv([lambda: _quiet_make(env_id) for _ in range(N)],
                                     autoreset_mode=AutoresetMode.SAME_STEP)
    ref = run_same_step_loop(gym.wrappers.vector.RecordEpisodeStatistics(stock))
    assert ref[0]
    assert ours[0] == ref[0]
    assert ours[1] == ref[1]


def test_cleanrl_episode_info_dtypes():
    """What CleanRL writes to TensorBoard, ``infos["episode"]["r"][i]``: the
    same numbers from ccgym's C statistics as from the per-env wrapper."""
    ours, ref = ccgym_envs("CartPole-v1"), stock_envs("CartPole-v1")
    for envs in (ours, ref):
        envs.reset(seed=0)
    actions = np.zeros(N, dtype=np.int64)
    for _ in range(200):
        _, _, _, _, io = ours.step(actions)
        _, _, _, _, ir = ref.step(actions)
        assert ("episode" in io) == ("episode" in ir)
        if "episode" in ir:
            np.testing.assert_array_equal(io["_episode"], ir["_episode"])
            np.testing.assert_array_equal(io["episode"]["r"], ir["episode"]["r"])
            np.testing.assert_array_equal(io["episode"]["l"], ir["episode"]["l"])
            break
    else:
        pytest.fail("no episode ended")
