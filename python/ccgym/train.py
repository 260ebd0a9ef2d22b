"""``ccgym train ENV_ID``: train a Stable-Baselines3 agent on ccgym's native VecEnv.

Its hyperparameters are the installed RL Zoo's (rl_zoo3's
``hyperparams/<algo>.yml``, read as ``python -m ccgym.zoo`` reads them, so
nothing here can drift from the Zoo); without rl_zoo3 it stops with
``pip install 'ccgym[zoo]'``. A fallback copy was not kept on purpose: a
copy is what drifted. Stable-Baselines3, torch and the Zoo's files are read
only when the command runs, so ``import ccgym`` and ``ccgym --help`` stay
light.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
from typing import Any

from ccgym import _argtypes, _core, _kinds, _registration, zoo
from ccgym._frontend import resolve_env_id
from ccgym.zoo import zoo_id  # (ccgym.train.zoo_id, as before)

ALGOS = ("ppo", "a2c", "dqn", "sac", "td3")
DISCRETE_ONLY = {"dqn"}
CONTINUOUS_ONLY = {"sac", "td3"}
def _continuous_ids() -> frozenset[str]:
    """The ids whose env takes continuous actions (action_dim > 0 in its def)."""
    return frozenset(i for i in _registration.ENV_IDS if _core.env_info(_kinds.env_kind(i)).action_dim)


CONTINUOUS_ENVS = _continuous_ids()


# The hyperparameters are the installed RL Zoo's own hyperparams/<algo>.yml,
# read on each use (no copy here, so none can drift from the Zoo). The
# algorithm's keys pass through; policy, n_envs, n_timesteps, normalize and
# noise_* are turned into objects as the Zoo's ExperimentManager does
# (prepare); these only the Zoo's own train handles:
_ZOO_ONLY = ("frame_stack", "env_wrapper", "vec_env_wrapper", "callback", "monitor_kwargs",
             "replay_buffer_class")
_SCHEDULES = ("learning_rate", "clip_range", "clip_range_vf", "delta_std")  # "lin_<x>"
_EVALUATED = ("policy_kwargs", "replay_buffer_kwargs")  # Python expressions in the YAML
NO_ZOO = ("ccgym train reads the RL Zoo's tuned hyperparameters from the installed "
          "rl_zoo3 (its hyperparams/<algo>.yml), which is missing: pip install 'ccgym[zoo]'")


def algo_env_ids(algo: str) -> tuple[str, ...]:
    """The ccgym ids `algo` can train (DQN: discrete ones, SAC/TD3: continuous)."""
    return tuple(i for i in _registration.ENV_IDS
                 if not (algo in DISCRETE_ONLY and i in CONTINUOUS_ENVS)
                 and not (algo in CONTINUOUS_ONLY and i not in CONTINUOUS_ENVS))


def zoo_table(algo: str) -> dict[str, dict[str, Any]]:
    """The installed Zoo's ``hyperparams/<algo>.yml`` as the Zoo reads it (read
    where ``python -m ccgym.zoo`` reads it, without importing rl_zoo3).
    ModuleNotFoundError naming ``pip install 'ccgym[zoo]'`` without the Zoo."""
    try:
        import yaml

        path = zoo.zoo_hyperparams_file(algo)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(f"{NO_ZOO} ({e})") from None
    with open(path) as f:
        return yaml.safe_load(f)


def default_hyperparams(env_id: str, algo: str) -> dict[str, Any]:
    """The installed Zoo's entry for (env_id, algo), as its YAML holds it (a
    copy): for an id it does not tune, that of the Gymnasium id it mirrors
    (:func:`zoo_id`: a new env needs no Zoo entry), else its ``default``
    entry (CartPole-v0), as the Zoo's own train and ``python -m ccgym.zoo``
    take; {} without one."""
    table = zoo_table(algo)
    for key in (env_id, zoo_id(env_id)):
        if key in table:
            return copy.deepcopy(table[key])
    return copy.deepcopy(table.get("default", {}))


def __getattr__(name: str) -> Any:
    # HYPERPARAMS[algo][env_id]: the installed Zoo's entries for every id the
    # algo can train, read on access (nothing here is a copy that could drift).
    if name == "HYPERPARAMS":
        return {algo: {i: default_hyperparams(i, algo) for i in algo_env_ids(algo)}
                for algo in ALGOS}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prepare(env_id: str, algo: str, hp: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Zoo entry of (env_id, algo) (or `hp`) turned into what this command
    uses, as the Zoo's ExperimentManager turns it: ``n_envs``, ``n_timesteps``
    (int), ``policy``, ``normalize`` (None or VecNormalize kwargs) and
    ``kwargs`` for the algorithm (``lin_<x>`` schedules, evaluated
    ``policy_kwargs``, action noise, ``train_freq`` lists as tuples).
    SystemExit for keys only the Zoo's own train handles."""
    hp = default_hyperparams(env_id, algo) if hp is None else copy.deepcopy(hp)
    zoo_only = [k for k in _ZOO_ONLY if k in hp]
    if zoo_only:
        raise SystemExit(f"the Zoo's {algo} entry for {env_id} uses {zoo_only}, which ccgym "
                         f"train does not handle: run python -m ccgym.zoo train --algo {algo} "
                         f"--env {env_id}")
    out: dict[str, Any] = {
        "n_envs": int(hp.pop("n_envs", 1)),
        "n_timesteps": int(hp.pop("n_timesteps", 100_000)),
        "policy": hp.pop("policy", "MlpPolicy"),
    }
    normalize = hp.pop("normalize", False)
    if isinstance(normalize, str):
        normalize = _evaluate(normalize)
    if normalize:
        out["normalize"] = dict(normalize) if isinstance(normalize, dict) else {}
        if "gamma" in hp:
            out["normalize"]["gamma"] = hp["gamma"]
    else:
        out["normalize"] = None
    noise_type = hp.pop("noise_type", None)
    noise_std = hp.pop("noise_std", None)
    for key in _SCHEDULES:
        value = hp.get(key)
        if isinstance(value, str) and value.startswith("lin_"):
            hp[key] = _linear_schedule(float(value[len("lin_"):]))
    for key in _EVALUATED:
        if isinstance(hp.get(key), str):
            hp[key] = _evaluate(hp[key])
    if isinstance(hp.get("train_freq"), list):
        hp["train_freq"] = tuple(hp["train_freq"])
    if noise_type is not None:
        import numpy as np
        from stable_baselines3.common.noise import (
            NormalActionNoise,
            OrnsteinUhlenbeckActionNoise,
        )

        dim = _core.env_info(_kinds.env_kind(env_id)).action_dim
        noise_type = noise_type.strip()
        if "normal" in noise_type:
            cls = NormalActionNoise
        elif "ornstein-uhlenbeck" in noise_type:
            cls = OrnsteinUhlenbeckActionNoise
        else:
            raise SystemExit(f"unknown noise type {noise_type!r} in the Zoo's {algo} entry")
        hp["action_noise"] = cls(mean=np.zeros(dim), sigma=noise_std * np.ones(dim))
    out["kwargs"] = hp
    return out


def _evaluate(expr: str) -> Any:
    """A Python expression of the Zoo's YAML (``dict(net_arch=[64, 64])``,
    ``nn.Tanh``), evaluated as the Zoo's ExperimentManager does."""
    import torch

    return eval(expr, {"__builtins__": {}, "dict": dict, "nn": torch.nn, "th": torch,
                       "True": True, "False": False, "None": None})


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
                    "installed RL Zoo's tuned hyperparameters (read from its own "
                    "hyperparams/<algo>.yml); needs the 'zoo' extra. Evaluates "
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
            f"ccgym train needs the RL Zoo, Stable-Baselines3 and torch: install the zoo "
            f"extra, pip install 'ccgym[zoo]' ({e})"
        ) from None

    from ccgym.sb3 import make_vec_env  # Stable-Baselines3 and torch

    env_id = resolve_env_id(args.env_id)
    algo = args.algo
    if algo in DISCRETE_ONLY and env_id in CONTINUOUS_ENVS:
        raise SystemExit(f"{algo.upper()} needs a discrete action space; {env_id} is continuous")
    if algo in CONTINUOUS_ONLY and env_id not in CONTINUOUS_ENVS:
        raise SystemExit(f"{algo.upper()} needs a continuous action space; {env_id} is discrete")
    torch.set_num_threads(args.torch_threads)

    try:
        raw = default_hyperparams(env_id, algo)
    except ModuleNotFoundError as e:
        raise SystemExit(str(e)) from None
    prepared = prepare(env_id, algo, raw)
    # None: the Zoo's value (the parser refuses 0 and negatives, exit 2).
    n_envs = prepared["n_envs"] if args.n_envs is None else args.n_envs
    timesteps = prepared["n_timesteps"] if args.timesteps is None else args.timesteps
    normalize = prepared["normalize"]
    policy = prepared["policy"]
    kwargs = prepared["kwargs"]
    out = args.out or os.path.join("runs", f"{algo}-{env_id}")
    os.makedirs(out, exist_ok=True)

    venv = make_vec_env(env_id, n_envs=n_envs, seed=args.seed,
                        vec_env_kwargs={"num_threads": args.threads})
    eval_env = make_vec_env(env_id, n_envs=min(args.eval_episodes, 8), seed=args.seed + 10_000)
    if normalize is not None:
        venv = VecNormalize(venv, **normalize)
        # EvalCallback copies the training statistics into it before each evaluation.
        eval_env = VecNormalize(eval_env, **{**normalize, "training": False,
                                             "norm_reward": False})
    cls = {"ppo": PPO, "a2c": A2C, "dqn": DQN, "sac": SAC, "td3": TD3}[algo]
    model = cls(policy, venv, seed=args.seed, verbose=args.verbose, device="cpu", **kwargs)
    # SB3's training metrics go to <out>/progress.csv (and the terminal with
    # --verbose) instead of the empty SB3-<date> directory its default logger
    # makes in the system temp dir on every learn().
    model.set_logger(configure(out, ["stdout", "csv"] if args.verbose > 0 else ["csv"]))

    print(f"ccgym train: {algo.upper()} on {env_id}, {n_envs} envs, {timesteps} steps, "
          f"seed {args.seed}, normalize={normalize is not None}")
    print(f"  hyperparameters (the installed RL Zoo's): {json.dumps(raw, default=str)}")

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
    if normalize is not None:
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
          + (f" and {os.path.join(out, 'vecnormalize.pkl')}" if normalize is not None
             else "")
          + f"; training log {os.path.join(out, 'progress.csv')}")
    venv.close()
    eval_env.close()
    return 0
