"""custom/PointMass-v0, a ccgym env defined in C (src/pointmass.c).

Importing this package registers the env with ccgym and Gymnasium::

    import gymnasium as gym
    import ccgym_pointmass  # noqa: F401

    env = gym.make("custom/PointMass-v0")
    envs = gym.make_vec("custom/PointMass-v0", num_envs=1024)
"""

import ccgym

from ccgym_pointmass import _pointmass

#: The single-env class (ccgym's generic class over the C def); also the
#: Gymnasium entry point "ccgym_pointmass:PointMassEnv".
PointMassEnv = ccgym.register_c_env(_pointmass, id="custom/PointMass-v0",
                                    max_episode_steps=200, reward_threshold=-5.0)

__all__ = ["PointMassEnv"]
