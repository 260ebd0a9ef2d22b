"""RL Baselines3 Zoo on ccgym (ccgym.zoo): the Zoo's hyperparameters under
``ccgym/<Id>`` keys, and the Zoo's train on ccgym's native VecEnv.

The reference is the installed rl_zoo3 itself: its hyperparams/*.yml and its
own train on stock Gymnasium with the same seed.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

pytest.importorskip("rl_zoo3", reason="RL Zoo is not installed (pip install 'ccgym[zoo]')")

import numpy as np  # noqa: E402
import yaml  # noqa: E402

import ccgym  # noqa: E402
import ccgym.zoo  # noqa: E402

CONFIG_ALGOS = ["a2c", "ddpg", "dqn", "ppo", "sac", "td3"]


def zoo_yml(algo):
    import rl_zoo3

    path = os.path.join(os.path.dirname(rl_zoo3.__file__), "hyperparams", f"{algo}.yml")
    with open(path) as f:
        return yaml.safe_load(f)


@pytest.mark.parametrize("algo", CONFIG_ALGOS)
def test_config_modules_are_the_zoos_tables(algo):
    """ccgym.zoo.<algo>.hyperparams: the Zoo's file, plus ccgym/<Id> = <Id>."""
    module = __import__(f"ccgym.zoo.{algo}", fromlist=["hyperparams"])
    table, ref = module.hyperparams, zoo_yml(algo)
    added = {k: v for k, v in table.items() if k not in ref}
    assert {k: table[k] for k in ref} == ref, "the Zoo's own entries must be untouched"
    expected = {f"ccgym/{i}": ref[i] for i in ccgym.ENV_IDS if i in ref}
    assert added == expected
    assert expected, f"the Zoo tunes no ccgym id for {algo}?"
    for key in expected:  # copies, not shared objects the Zoo would mutate twice
        assert table[key] is not table[key.removeprefix("ccgym/")]


def test_ppo_cartpole_is_the_zoos_tuned_entry():
    hp = ccgym.zoo.zoo_hyperparams("ppo")["ccgym/CartPole-v1"]
    assert hp == zoo_yml("ppo")["CartPole-v1"]
    assert hp["n_envs"] == 8 and hp["n_timesteps"] == 1e5  # what README's recorded run uses


def test_unknown_algo():
    with pytest.raises(ValueError, match="no hyperparameters"):
        ccgym.zoo.zoo_hyperparams("nope")


def test_launcher_argv_defaults():
    argv = ccgym.zoo._zoo_argv(["--algo", "dqn", "--env", "Acrobot-v1"])
    assert argv == ["--algo", "dqn", "--env", "ccgym/Acrobot-v1", "--gym-packages", "ccgym",
                    "--conf-file", "ccgym.zoo.dqn"]
    kept = ["--algo", "ppo", "--env=Pendulum-v1", "--gym-packages", "x", "-conf", "c.yml"]
    assert ccgym.zoo._zoo_argv(kept) == ["--algo", "ppo", "--env=ccgym/Pendulum-v1",
                                         "--gym-packages", "x", "-conf", "c.yml"]
    with pytest.raises(SystemExit, match="--vec-env subproc"):
        ccgym.zoo._zoo_argv(["--env", "CartPole-v1", "--vec-env", "subproc"])
    with pytest.raises(SystemExit, match="no config module"):
        ccgym.zoo._zoo_argv(["--algo", "tqc", "--env", "Pendulum-v1"])


def _train(cmd, log_folder, steps=256, seed=3):  # 256 = one rollout (8 x 32) and its update
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", *cmd, "--algo", "ppo", "-n", str(steps), "--seed", str(seed),
         "--num-threads", "1", "--eval-freq", "-1", "--log-folder", str(log_folder)],
        capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    (run_dir,) = glob.glob(f"{log_folder}/ppo/*_1")
    return proc.stdout, run_dir


def _params(run_dir):
    from stable_baselines3 import PPO

    (path,) = glob.glob(f"{run_dir}/*.zip")
    return {k: v.numpy() for k, v in PPO.load(path, device="cpu").policy.state_dict().items()}


def _config(run_dir):
    (path,) = glob.glob(f"{run_dir}/*/config.yml")
    with open(path) as f:
        return dict(yaml.unsafe_load(f))


def test_zoo_train_conf_file_applies_tuned_hyperparameters(tmp_path):
    """``rl_zoo3.train --env ccgym/CartPole-v1 --conf-file ccgym.zoo.ppo``
    (a shortened run): the tuned entry, not the Zoo's default."""
    out, run_dir = _train(["rl_zoo3.train", "--env", "ccgym/CartPole-v1", "--gym-packages",
                           "ccgym", "--conf-file", "ccgym.zoo.ppo"], tmp_path / "dummy")
    assert "Using 'default' hyperparameters" not in out
    cfg = _config(run_dir)
    assert cfg["n_envs"] == 8 and cfg["n_steps"] == 32 and cfg["n_epochs"] == 20
    assert len(glob.glob(f"{run_dir}/*.monitor.csv")) == 8  # the Zoo's DummyVecEnv of Monitors


def test_native_launcher_trains_as_the_zoo_on_stock(tmp_path):
    """``python -m ccgym.zoo train --env CartPole-v1`` trains on one native
    ccgym VecEnv (one monitor file for the batch) and, with the same seed,
    gives the same model, bit for bit, as the Zoo on stock CartPole-v1."""
    out, native = _train(["ccgym.zoo", "train", "--env", "CartPole-v1"], tmp_path / "native")
    assert "Loading hyperparameters from: ccgym.zoo.ppo" in out
    assert [os.path.basename(p) for p in glob.glob(f"{native}/*.monitor.csv")] == ["0.monitor.csv"]
    _, stock = _train(["rl_zoo3.train", "--env", "CartPole-v1"], tmp_path / "stock")
    assert _config(native) == _config(stock)
    p_native, p_stock = _params(native), _params(stock)
    assert p_native.keys() == p_stock.keys()
    for key in p_stock:
        np.testing.assert_array_equal(p_native[key], p_stock[key], err_msg=key)
