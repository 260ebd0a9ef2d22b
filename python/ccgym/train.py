"""``ccgym train ENV_ID``: train a Stable-Baselines3 agent on ccgym's native VecEnv.

Stable-Baselines3 and torch are imported only when the command runs, so
``import ccgym`` and ``ccgym --help`` stay light.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
from typing import Any

from ccgym import _argtypes

ALGOS = ("ppo", "a2c", "dqn", "sac", "td3")
DISCRETE_ONLY = {"dqn"}
CONTINUOUS_ONLY = {"sac", "td3"}
CONTINUOUS_ENVS = {"MountainCarContinuous-v0", "Pendulum-v1"}


def _lin(x: float) -> dict[str, Any]:
    """The Zoo's ``lin_<x>``: a learning rate / clip range decaying linearly to 0."""
    return {"linear": x}


# Default hyperparameters: the RL Baselines3 Zoo's published values for these
# envs (DLR-RM/rl-baselines3-zoo, hyperparams/{ppo,a2c,dqn,sac,td3}.yml).
# Keys as in the Zoo: n_envs, n_timesteps and normalize (VecNormalize) are
# handled here, the rest go to the algorithm. CartPole-v0 uses v1's values.
# TD3 Pendulum-v1 takes the Zoo's Pendulum-v0 entry.
HYPERPARAMS: dict[str, dict[str, dict[str, Any]]] = {
    "ppo": {  # hyperparams/ppo.yml
        "CartPole-v1": dict(
            n_envs=8, n_timesteps=100_000, n_steps=32, batch_size=256, gae_lambda=0.8,
            gamma=0.98, n_epochs=20, ent_coef=0.0, learning_rate=_lin(0.001),
            clip_range=_lin(0.2)),
        "MountainCar-v0": dict(
            normalize=True, n_envs=16, n_timesteps=1_000_000, n_steps=16, gae_lambda=0.98,
            gamma=0.99, n_epochs=4, ent_coef=0.0),
        "MountainCarContinuous-v0": dict(
            normalize=True, n_envs=1, n_timesteps=20_000, batch_size=256, n_steps=8,
            gamma=0.9999, learning_rate=7.77e-05, ent_coef=0.00429, clip_range=0.1,
            n_epochs=10, gae_lambda=0.9, max_grad_norm=5, vf_coef=0.19, use_sde=True,
            policy_kwargs=dict(log_std_init=-3.29, ortho_init=False)),
        "Pendulum-v1": dict(
            n_envs=4, n_timesteps=100_000, n_steps=1024, gae_lambda=0.95, gamma=0.9,
            n_epochs=10, ent_coef=0.0, learning_rate=1e-3, clip_range=0.2, use_sde=True,
            sde_sample_freq=4),
        "Acrobot-v1": dict(
            normalize=True, n_envs=16, n_timesteps=1_000_000, n_steps=256, gae_lambda=0.94,
            gamma=0.99, n_epochs=4, ent_coef=0.0),
    },
    "a2c": {  # hyperparams/a2c.yml
        "CartPole-v1": dict(n_envs=8, n_timesteps=500_000, ent_coef=0.0),
        "MountainCar-v0": dict(normalize=True, n_envs=16, n_timesteps=1_000_000, ent_coef=0.0),
        "Acrobot-v1": dict(normalize=True, n_envs=16, n_timesteps=500_000, ent_coef=0.0),
        "Pendulum-v1": dict(
            normalize=True, n_envs=8, n_timesteps=1_000_000, ent_coef=0.0, max_grad_norm=0.5,
            n_steps=8, gae_lambda=0.9, vf_coef=0.4, gamma=0.9, use_rms_prop=True,
            normalize_advantage=False, learning_rate=_lin(7e-4), use_sde=True,
            policy_kwargs=dict(log_std_init=-2, ortho_init=False)),
        "MountainCarContinuous-v0": dict(
            normalize=True, n_envs=4, n_steps=100, n_timesteps=100_000, ent_coef=0.0,
            use_sde=True, sde_sample_freq=16,
            policy_kwargs=dict(log_std_init=0.0, ortho_init=False)),
    },
    "dqn": {  # hyperparams/dqn.yml
        "CartPole-v1": dict(
            n_timesteps=50_000, learning_rate=2.3e-3, batch_size=64, buffer_size=100_000,
            learning_starts=1000, gamma=0.99, target_update_interval=10, train_freq=256,
            gradient_steps=128, exploration_fraction=0.16, exploration_final_eps=0.04,
            policy_kwargs=dict(net_arch=[256, 256])),
        "MountainCar-v0": dict(
            n_timesteps=120_000, learning_rate=4e-3, batch_size=128, buffer_size=10_000,
            learning_starts=1000, gamma=0.98, target_update_interval=600, train_freq=16,
            gradient_steps=8, exploration_fraction=0.2, exploration_final_eps=0.07,
            policy_kwargs=dict(net_arch=[256, 256])),
        "Acrobot-v1": dict(
            n_timesteps=100_000, learning_rate=6.3e-4, batch_size=128, buffer_size=50_000,
            learning_starts=0, gamma=0.99, target_update_interval=250, train_freq=4,
            gradient_steps=-1, exploration_fraction=0.12, exploration_final_eps=0.1,
            policy_kwargs=dict(net_arch=[256, 256])),
    },
    "sac": {  # hyperparams/sac.yml
        "MountainCarContinuous-v0": dict(
            n_timesteps=50_000, learning_rate=3e-4, buffer_size=50_000, batch_size=512,
            ent_coef=0.1, train_freq=32, gradient_steps=32, gamma=0.9999, tau=0.01,
            learning_starts=0, use_sde=True,
            policy_kwargs=dict(log_std_init=-3.67, net_arch=[64, 64])),
        "Pendulum-v1": dict(n_timesteps=20_000, learning_rate=1e-3),
    },
    "td3": {  # hyperparams/td3.yml
        "MountainCarContinuous-v0": dict(
            n_timesteps=300_000, noise_type="ornstein-uhlenbeck", noise_std=0.5),
        "Pendulum-v1": dict(
            n_timesteps=20_000, gamma=0.98, buffer_size=200_000, learning_starts=10_000,
            noise_type="normal", noise_std=0.1, gradient_steps=-1,
            train_freq=(1, "episode"), learning_rate=1e-3,
            policy_kwargs=dict(net_arch=[400, 300])),
    },
}
HYPERPARAMS["ppo"]["CartPole-v0"] = HYPERPARAMS["ppo"]["CartPole-v1"]
HYPERPARAMS["a2c"]["CartPole-v0"] = HYPERPARAMS["a2c"]["CartPole-v1"]
HYPERPARAMS["dqn"]["CartPole-v0"] = HYPERPARAMS["dqn"]["CartPole-v1"]


def default_hyperparams(env_id: str, algo: str) -> dict[str, Any]:
    """A copy of the Zoo's values for (env_id, algo); {} when it has none."""
    return copy.deepcopy(HYPERPARAMS[algo].get(env_id, {}))


def _resolve(hp: dict[str, Any], n_actions_dim: int) -> dict[str, Any]:
    """Turns the table's plain values into SB3 objects (schedules, action noise)."""
    out = {}
    for key, value in hp.items():
        if isinstance(value, dict) and set(value) == {"linear"}:
            x = value["linear"]
            out[key] = _linear_schedule(x)
        else:
            out[key] = value
    noise_type = out.pop("noise_type", None)
    noise_std = out.pop("noise_std", None)
    if noise_type is not None:
        import numpy as np
        from stable_baselines3.common.noise import (
            NormalActionNoise,
            OrnsteinUhlenbeckActionNoise,
        )

        cls = {"normal": NormalActionNoise,
               "ornstein-uhlenbeck": OrnsteinUhlenbeckActionNoise}[noise_type]
        out["action_noise"] = cls(mean=np.zeros(n_actions_dim),
                                  sigma=noise_std * np.ones(n_actions_dim))
    return out


class _LinearSchedule:
    """progress_remaining (1 -> 0) times the initial value; a class, so that
    saved models unpickle without this module's closures."""

    def __init__(self, initial: float) -> None:
        self.initial = initial

    def __call__(self, progress_remaining: float) -> float:
        return progress_remaining * self.initial

    def __repr__(self) -> str:
        return f"lin_{self.initial}"


def _linear_schedule(x: float) -> _LinearSchedule:
    return _LinearSchedule(x)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds ``train`` to the ``ccgym`` command line (no SB3 import here)."""
    p = subparsers.add_parser(
        "train",
        help="train a Stable-Baselines3 agent on ccgym's native VecEnv",
        description="Train PPO/A2C/DQN/SAC/TD3 (Stable-Baselines3) on a ccgym env with the "
                    "RL Zoo's tuned hyperparameters; needs the 'sb3' extra. Evaluates "
                    "periodically, saves the model (and VecNormalize statistics) and SB3's "
                    "training log (progress.csv) in the --out directory, and prints the final "
                    "evaluation reward and env-steps/s. See docs/sb3.md.",
    )
    p.add_argument("env_id", help="e.g. CartPole-v1")
    p.add_argument("--algo", choices=ALGOS, default="ppo",
                   help="the SB3 algorithm (default: %(default)s; dqn: discrete envs only, "
                        "sac/td3: continuous only)")
    p.add_argument("--n-envs", type=_argtypes.num_envs, default=None,
                   help="parallel instances (default: the Zoo's value, or 1)")
    p.add_argument("--timesteps", type=_argtypes.positive, default=None,
                   help="total env steps (default: the Zoo's n_timesteps)")
    p.add_argument("--seed", type=_argtypes.non_negative, default=0,
                   help="seed of the training envs and the algorithm (default: %(default)s; "
                        "evaluation envs use seed + 10000)")
    p.add_argument("--out", default=None, help="output directory (default: runs/<algo>-<env>)")
    p.add_argument("--eval-freq", type=_argtypes.non_negative, default=10_000,
                   help="evaluate every this many env steps (0: only at the end)")
    p.add_argument("--eval-episodes", type=_argtypes.positive, default=10,
                   help="episodes per periodic evaluation (default: %(default)s)")
    p.add_argument("--final-eval-episodes", type=_argtypes.positive, default=20,
                   help="episodes of the evaluation after training (default: %(default)s)")
    p.add_argument("--threads", type=_argtypes.threads, default=1, help="C threads per env step (default: %(default)s)")
    p.add_argument("--torch-threads", type=_argtypes.threads, default=1,
                   help="torch intra-op threads (1 is fastest for these small MLPs)")
    p.add_argument("--no-progress-bar", action="store_true",
                   help="no SB3 progress bar (it needs tqdm and rich, in the sb3 extra)")
    p.add_argument("--verbose", type=_argtypes.int_type(0, 2), default=0,
                   help="SB3's verbosity: 1 also prints the training metrics (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Trains, evaluates and saves; prints the final mean evaluation reward
    and the training throughput in env-steps/s."""
    try:
        import torch
        from stable_baselines3 import A2C, DQN, PPO, SAC, TD3
        from stable_baselines3.common.callbacks import EvalCallback
        from stable_baselines3.common.evaluation import evaluate_policy
        from stable_baselines3.common.logger import configure
        from stable_baselines3.common.vec_env import VecNormalize
    except ImportError as e:  # pragma: no cover - depends on the install
        raise SystemExit(
            f"ccgym train needs Stable-Baselines3 and torch: install the sb3 extra, "
            f"pip install 'ccgym[sb3]' ({e})"
        ) from None

    from ccgym.sb3 import make_vec_env
    from ccgym._frontend import resolve_env_id

    env_id = resolve_env_id(args.env_id)
    algo = args.algo
    if algo in DISCRETE_ONLY and env_id in CONTINUOUS_ENVS:
        raise SystemExit(f"{algo.upper()} needs a discrete action space; {env_id} is continuous")
    if algo in CONTINUOUS_ONLY and env_id not in CONTINUOUS_ENVS:
        raise SystemExit(f"{algo.upper()} needs a continuous action space; {env_id} is discrete")
    torch.set_num_threads(args.torch_threads)

    hp = default_hyperparams(env_id, algo)
    # None: the Zoo's value (the parser refuses 0 and negatives, exit 2).
    zoo_n_envs, zoo_timesteps = hp.pop("n_envs", 1), hp.pop("n_timesteps", 100_000)
    n_envs = zoo_n_envs if args.n_envs is None else args.n_envs
    timesteps = zoo_timesteps if args.timesteps is None else args.timesteps
    normalize = hp.pop("normalize", False)
    policy = hp.pop("policy", "MlpPolicy")
    out = args.out or os.path.join("runs", f"{algo}-{env_id}")
    os.makedirs(out, exist_ok=True)

    venv = make_vec_env(env_id, n_envs=n_envs, seed=args.seed,
                        vec_env_kwargs={"num_threads": args.threads})
    eval_env = make_vec_env(env_id, n_envs=min(args.eval_episodes, 8), seed=args.seed + 10_000)
    if normalize:
        venv = VecNormalize(venv, gamma=hp.get("gamma", 0.99))
        # EvalCallback copies the training statistics into it before each evaluation.
        eval_env = VecNormalize(eval_env, training=False, norm_reward=False)
    action_dim = venv.action_space.shape[0] if env_id in CONTINUOUS_ENVS else 0
    kwargs = _resolve(hp, action_dim)
    cls = {"ppo": PPO, "a2c": A2C, "dqn": DQN, "sac": SAC, "td3": TD3}[algo]
    model = cls(policy, venv, seed=args.seed, verbose=args.verbose, device="cpu", **kwargs)
    # SB3's training metrics go to <out>/progress.csv (and the terminal with
    # --verbose) instead of the empty SB3-<date> directory its default logger
    # makes in the system temp dir on every learn().
    model.set_logger(configure(out, ["stdout", "csv"] if args.verbose > 0 else ["csv"]))

    shown = {k: (f"lin_{v['linear']}" if isinstance(v, dict) and set(v) == {"linear"}
                 else v) for k, v in hp.items()}
    print(f"ccgym train: {algo.upper()} on {env_id}, {n_envs} envs, {timesteps} steps, "
          f"seed {args.seed}, normalize={normalize}")
    print(f"  hyperparameters (RL Zoo): {json.dumps(shown, default=str)}")

    callback = None
    if args.eval_freq > 0:
        callback = EvalCallback(
            eval_env, n_eval_episodes=args.eval_episodes,
            eval_freq=max(args.eval_freq // n_envs, 1), deterministic=True,
            best_model_save_path=out, log_path=out, verbose=1,
        )
    progress_bar = not args.no_progress_bar
    if progress_bar:
        try:
            import rich  # noqa: F401  # SB3's progress bar needs tqdm and rich
            import tqdm  # noqa: F401
        except ImportError:
            print("  (no progress bar: pip install tqdm rich)")
            progress_bar = False
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=callback, progress_bar=progress_bar)
    train_time = time.perf_counter() - t0
    model.logger.close()  # progress.csv complete and closed
    steps = model.num_timesteps

    model.save(os.path.join(out, "model.zip"))
    if normalize:
        venv.save(os.path.join(out, "vecnormalize.pkl"))
        eval_env.obs_rms = venv.obs_rms.copy()  # the final statistics, for the final evaluation
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=args.final_eval_episodes,
                                deterministic=True)
    eval_note = "" if args.eval_freq <= 0 else " (including periodic evaluations)"
    print(f"final mean evaluation reward: {mean:.2f} +/- {std:.2f} "
          f"over {args.final_eval_episodes} episodes")
    print(f"training: {steps} env steps in {train_time:.1f} s{eval_note}: "
          f"{steps / train_time:,.0f} env-steps/s")
    print(f"saved {os.path.join(out, 'model.zip')}"
          + (f" and {os.path.join(out, 'vecnormalize.pkl')}" if normalize else "")
          + f"; training log {os.path.join(out, 'progress.csv')}")
    venv.close()
    eval_env.close()
    return 0
