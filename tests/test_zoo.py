"""RL Baselines3 Zoo on ccgym (ccgym.zoo): the Zoo's hyperparameters under
``ccgym/<Id>`` keys, and the Zoo's train on ccgym's native VecEnv.

The reference is the installed rl_zoo3 itself: its hyperparams/*.yml and its
own train on stock Gymnasium with the same seed.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import subprocess
import sys

import pytest

# Not imported here: importing rl_zoo3 patches Gymnasium's TimeLimit for the
# whole process (and so every later test in it); the training runs below run
# it in subprocesses.
if importlib.util.find_spec("rl_zoo3") is None:
    pytest.skip("RL Zoo is not installed (pip install 'ccgym[zoo]')", allow_module_level=True)

import numpy as np  # noqa: E402
import yaml  # noqa: E402

import ccgym  # noqa: E402
import ccgym.zoo  # noqa: E402
from ccgym import train  # noqa: E402

CONFIG_ALGOS = ["a2c", "ddpg", "dqn", "ppo", "sac", "td3"]


def zoo_yml(algo):
    spec = importlib.util.find_spec("rl_zoo3")
    path = os.path.join(list(spec.submodule_search_locations)[0], "hyperparams", f"{algo}.yml")
    with open(path) as f:
        return yaml.safe_load(f)


@pytest.mark.parametrize("algo", CONFIG_ALGOS)
def test_config_modules_are_the_zoos_tables(algo):
    """ccgym.zoo.<algo>.hyperparams: the Zoo's file, plus ccgym/<Id> = <Id>
    (for an id Gymnasium lacks, = the id its def mirrors, train.zoo_id)."""
    module = __import__(f"ccgym.zoo.{algo}", fromlist=["hyperparams"])
    table, ref = module.hyperparams, zoo_yml(algo)
    added = {k: v for k, v in table.items() if k not in ref}
    assert {k: table[k] for k in ref} == ref, "the Zoo's own entries must be untouched"
    source = {i: train.zoo_id(i) for i in ccgym.ENV_IDS}
    expected = {f"ccgym/{i}": ref[source[i]] for i in ccgym.ENV_IDS if source[i] in ref}
    assert added == expected
    assert expected, f"the Zoo tunes no ccgym id for {algo}?"
    for key in expected:  # copies, not shared objects the Zoo would mutate twice
        assert table[key] is not table[source[key.removeprefix("ccgym/")]]


def test_a_new_id_gets_the_mirrored_ids_entries(monkeypatch):
    """An id neither Gymnasium nor the Zoo knows whose def mirrors Pendulum's
    class (as a scaffolded PendulumCopy-v1) gets ccgym/PendulumCopy-v1 =
    the Zoo's Pendulum-v1 entry, not nothing (the Zoo would use its default)."""
    from ccgym import _kinds, _registration

    kind, real = _kinds.env_kind("Pendulum-v1"), _kinds.env_kind
    monkeypatch.setattr(_kinds, "env_kind",
                        lambda i: kind if i == "PendulumCopy-v1" else real(i))
    monkeypatch.setattr(_registration, "ENV_IDS", (*ccgym.ENV_IDS, "PendulumCopy-v1"))
    table, ref = ccgym.zoo.zoo_hyperparams("ppo"), zoo_yml("ppo")
    assert "PendulumCopy-v1" not in ref and ref["Pendulum-v1"] != ref.get("default")
    assert table["ccgym/PendulumCopy-v1"] == ref["Pendulum-v1"]


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


# A run's saved model and config.yml are read in a subprocess: unpickling the
# model (its learning-rate schedule) and config.yml's Python tags import
# rl_zoo3, which would patch Gymnasium's TimeLimit in this test process.
_INSPECT = """
import glob, json, sys, numpy as np, yaml
from stable_baselines3 import PPO
run_dir, out = sys.argv[1], sys.argv[2]
(cfg,) = glob.glob(f"{run_dir}/*/config.yml")
with open(cfg) as f:
    config = dict(yaml.unsafe_load(f))
(path,) = glob.glob(f"{run_dir}/*.zip")
params = {k: v.numpy() for k, v in PPO.load(path, device="cpu").policy.state_dict().items()}
np.savez(out, **params)
print(json.dumps({k: v for k, v in config.items() if isinstance(v, (int, float, str, bool))}))
print(repr(sorted(config.items())))
"""


def _inspect(run_dir):
    """({its scalar config entries}, the repr of all its config's sorted
    items, {name: parameter}) of a run."""
    out = os.path.join(run_dir, "inspect.npz")
    proc = subprocess.run([sys.executable, "-c", _INSPECT, run_dir, out],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    scalars, everything = proc.stdout.strip().split("\n")[-2:]
    with np.load(out) as f:
        return json.loads(scalars), everything, {k: f[k] for k in f.files}


def test_zoo_train_conf_file_applies_tuned_hyperparameters(tmp_path):
    """``rl_zoo3.train --env ccgym/CartPole-v1 --conf-file ccgym.zoo.ppo``
    (a shortened run): the tuned entry, not the Zoo's default."""
    out, run_dir = _train(["rl_zoo3.train", "--env", "ccgym/CartPole-v1", "--gym-packages",
                           "ccgym", "--conf-file", "ccgym.zoo.ppo"], tmp_path / "dummy")
    assert "Using 'default' hyperparameters" not in out
    cfg = _inspect(run_dir)[0]
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
    (_, c_native, p_native), (_, c_stock, p_stock) = _inspect(native), _inspect(stock)
    assert c_native == c_stock
    assert p_native.keys() == p_stock.keys()
    for key in p_stock:
        np.testing.assert_array_equal(p_native[key], p_stock[key], err_msg=key)


def test_reading_the_zoo_tables_leaves_gymnasium_alone():
    """ccgym.zoo's tables and argv handling never import rl_zoo3 (whose
    import replaces gymnasium.wrappers.TimeLimit process-wide)."""
    out = subprocess.run(
        [sys.executable, "-c",
         "import sys, gymnasium, ccgym.zoo, ccgym.zoo.ppo, ccgym.zoo.dqn; "
         "ccgym.zoo._zoo_argv(['--algo', 'ppo', '--env', 'CartPole-v1']); "
         "print('rl_zoo3' in sys.modules, "
         "gymnasium.wrappers.TimeLimit.__module__)"],
        capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "gymnasium.wrappers.common"]
