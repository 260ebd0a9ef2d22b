"""``ccgym train``'s hyperparameters are the installed RL Zoo's: for every
ccgym id an algorithm can train, what the command uses equals the Zoo's own
``hyperparams/<algo>.yml`` entry (for an id the Zoo does not tune, that of
the Gymnasium id it mirrors, else its ``default`` entry, as the Zoo's train
takes), read independently here from the
installed rl_zoo3 package; without rl_zoo3 the command says how to install it."""

from __future__ import annotations

import importlib.util
import os

import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("stable_baselines3")
if importlib.util.find_spec("rl_zoo3") is None:
    pytest.skip("rl_zoo3 is not installed (the zoo extra)", allow_module_level=True)

import ccgym  # noqa: E402
from ccgym import train  # noqa: E402
from reference import reference_id  # noqa: E402

ZOO_DIR = list(importlib.util.find_spec("rl_zoo3").submodule_search_locations)[0]


def zoo_yaml(algo: str) -> dict:
    with open(os.path.join(ZOO_DIR, "hyperparams", f"{algo}.yml")) as f:
        return yaml.safe_load(f)


def zoo_entry(env_id: str, algo: str) -> dict:
    """Its own entry, else that of the Gymnasium id it mirrors (a scaffolded
    id: tests/reference.py), else the Zoo's default."""
    table = zoo_yaml(algo)
    ref = reference_id(env_id)
    return table[env_id] if env_id in table else table[ref] if ref in table else table["default"]


CASES = [(algo, env_id) for algo in train.ALGOS for env_id in ccgym.ENV_IDS
         if not (algo in train.DISCRETE_ONLY and env_id in train.CONTINUOUS_ENVS)
         and not (algo in train.CONTINUOUS_ONLY and env_id not in train.CONTINUOUS_ENVS)]


def test_every_trainable_id_is_covered():
    assert {a for a, _ in CASES} == set(train.ALGOS)
    assert {(a, i) for a in train.ALGOS for i in train.algo_env_ids(a)} == set(CASES)


def test_zoo_id_is_the_mirrored_gymnasium_id():
    for env_id in ccgym.ENV_IDS:
        assert train.zoo_id(env_id) == reference_id(env_id)


def test_an_id_without_an_entry_takes_the_mirrored_ids(monkeypatch):
    """An id neither Gymnasium nor the Zoo knows, whose def mirrors
    Pendulum's class (as a scaffolded PendulumCopy-v1), takes Pendulum-v1's
    entries, not the Zoo's default."""
    from ccgym import _kinds

    kind, real = _kinds.env_kind("Pendulum-v1"), _kinds.env_kind
    monkeypatch.setattr(_kinds, "env_kind",
                        lambda i: kind if i == "PendulumCopy-v1" else real(i))
    assert train.zoo_id("PendulumCopy-v1") == "Pendulum-v1"
    for algo in ("ppo", "a2c", "sac", "td3"):
        assert "PendulumCopy-v1" not in zoo_yaml(algo)
        assert zoo_yaml(algo)["Pendulum-v1"] != zoo_yaml(algo)["default"]
        assert train.default_hyperparams("PendulumCopy-v1", algo) == zoo_yaml(algo)["Pendulum-v1"]


@pytest.mark.parametrize(("algo", "env_id"), CASES)
def test_hyperparameters_equal_the_installed_zoo_yaml(algo, env_id):
    expected = zoo_entry(env_id, algo)
    assert train.default_hyperparams(env_id, algo) == expected
    assert train.HYPERPARAMS[algo][env_id] == expected


@pytest.mark.filterwarnings("ignore:You have specified a mini-batch size")  # the Zoo's values
@pytest.mark.parametrize(("algo", "env_id"), CASES)
def test_model_gets_the_zoo_values(algo, env_id):
    """What reaches the SB3 model is the Zoo's entry as its ExperimentManager
    turns it into objects: schedules, evaluated policy_kwargs, noise."""
    import numpy as np
    from stable_baselines3 import A2C, DQN, PPO, SAC, TD3

    from ccgym.sb3 import make_vec_env

    entry = zoo_entry(env_id, algo)
    prepared = train.prepare(env_id, algo)
    assert prepared["n_envs"] == entry.get("n_envs", 1)
    assert prepared["n_timesteps"] == int(entry["n_timesteps"])
    assert prepared["policy"] == entry["policy"]
    assert (prepared["normalize"] is not None) == bool(entry.get("normalize", False))
    kwargs = prepared["kwargs"]
    handled = {"policy", "n_envs", "n_timesteps", "normalize", "noise_type", "noise_std"}
    assert set(kwargs) - {"action_noise"} == set(entry) - handled
    for key, value in entry.items():
        if key in handled:
            continue
        got = kwargs[key]
        if isinstance(value, str) and value.startswith("lin_"):
            x = float(value[4:])
            assert got(1.0) == x and got(0.5) == 0.5 * x, key
        elif key == "policy_kwargs":
            assert got == eval(value, {"dict": dict}), key  # noqa: S307 (the Zoo's own YAML)
        elif key == "train_freq" and isinstance(value, list):
            assert got == tuple(value)
        else:
            assert got == value and type(got) is type(value), key
    if "noise_type" in entry:
        noise = kwargs["action_noise"]
        assert ("Ornstein" in type(noise).__name__) == ("ornstein" in entry["noise_type"])
        assert np.all(noise._sigma == entry["noise_std"])
    else:
        assert "action_noise" not in kwargs
    # SB3 takes them all (a model built on ccgym's VecEnv).
    cls = {"ppo": PPO, "a2c": A2C, "dqn": DQN, "sac": SAC, "td3": TD3}[algo]
    small = {**kwargs}
    if "buffer_size" in small:
        small["buffer_size"] = 1000  # memory only; the value itself is checked above
    venv = make_vec_env(env_id, n_envs=prepared["n_envs"], seed=0)
    try:
        model = cls(prepared["policy"], venv, seed=0, device="cpu", **small)
        if "policy_kwargs" in kwargs:
            for k, v in kwargs["policy_kwargs"].items():
                assert model.policy_kwargs[k] == v, k
    finally:
        venv.close()


def test_drifted_values_are_the_zoo_29_ones():
    """The values the old copy had drifted on (Zoo 2.9)."""
    td3 = train.default_hyperparams("Pendulum-v1", "td3")
    assert (td3["train_freq"], td3["gradient_steps"]) == (
        zoo_yaml("td3")["Pendulum-v1"]["train_freq"],
        zoo_yaml("td3")["Pendulum-v1"]["gradient_steps"])
    sac = train.prepare("MountainCarContinuous-v0", "sac")["kwargs"]
    assert sac["policy_kwargs"].get("use_expln") == eval(  # noqa: S307
        zoo_yaml("sac")["MountainCarContinuous-v0"]["policy_kwargs"], {"dict": dict}
    ).get("use_expln")


def test_without_the_zoo_train_says_how_to_install_it(monkeypatch, tmp_path):
    from ccgym import cli

    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "rl_zoo3" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(SystemExit, match=r"pip install 'ccgym\[zoo\]'"):
        cli.main(["train", "CartPole-v1", "--timesteps", "8", "--eval-freq", "0",
                  "--final-eval-episodes", "1", "--out", str(tmp_path / "run"),
                  "--no-progress-bar"])
    with pytest.raises(ModuleNotFoundError, match=r"ccgym\[zoo\]"):
        train.default_hyperparams("CartPole-v1", "ppo")
