"""Writes tests/data/pickles/<front end>-<id>.pkl: a pickle of each front
end's env (the single env, gym.make's wrapped env, the vector env, the SB3
VecEnv where SB3 is installed) for every stock id, each reset with a seed and
stepped a few times. tests/test_pickle_compat.py loads them with the build
under test and steps them beside envs made the same way now: the pickles a
previous commit made keep loading after a change of the package's layout
(issue 44 item 4). Run with the build whose pickles are to be kept:

    python tools/make_pickles.py tests/data/pickles
"""

from __future__ import annotations

import pathlib
import pickle
import sys
import warnings

import gymnasium as gym
import numpy as np

import ccgym

STEPS = 5
SEED = 7


def actions(space: gym.Space, n: int) -> list:
    space.seed(SEED)
    return [space.sample() for _ in range(n)]


def main(out: str) -> None:
    path = pathlib.Path(out)
    path.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore")
    made = []
    for env_id in ccgym.ENV_IDS:
        envs = {
            "raw": ccgym.envs.__getattr__(ccgym.ENV_SPECS[env_id][0])(),
            "make": gym.make(f"ccgym/{env_id}"),
            "vector": ccgym.make_vec(env_id, 3),
        }
        try:
            from ccgym.sb3 import VecEnv

            envs["sb3"] = VecEnv(env_id, 3)
        except ImportError:
            pass
        for front, env in envs.items():
            if front == "sb3":
                env.seed(SEED)
                env.reset()
                for a in actions(env.action_space, STEPS):
                    env.step(np.stack([a] * 3))
            else:
                env.reset(seed=SEED)
                for a in actions(env.action_space, STEPS):
                    env.step(a)
            name = f"{front}-{env_id}.pkl"
            (path / name).write_bytes(pickle.dumps(env, protocol=4))
            made.append(name)
    print(f"{len(made)} pickles in {path} (ccgym {ccgym.__version__})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/pickles")
