"""ccgym ids resolve in worker processes that never ran ``import ccgym``.

Gymnasium 1.x has no plugin loading: ``import ccgym`` registers the ids in
the calling process only. The wheel installs a startup hook
(``ccgym-autoregister.pth`` -> ``_ccgym_autoregister``) that registers them
when any process imports gymnasium. Each test here launches real worker
processes (spawn and forkserver, from a ``python -c`` main, where the
children re-import nothing of the parent's ``__main__``), and, with the hook
turned off (``CCGYM_NO_AUTOREGISTER=1``), shows the failure it prevents.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import ccgym
from install_helpers import require_startup_hook

ENV_IDS = ccgym.ENV_IDS


def run_main(code: str, *, hook: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `code` as ``python -c`` (its ``__main__`` cannot be re-imported by
    spawn/forkserver children, like a notebook's); returns the process."""
    env = dict(os.environ)
    env.pop("CCGYM_NO_AUTOREGISTER", None)
    if not hook:
        env["CCGYM_NO_AUTOREGISTER"] = "1"
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env)


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc.stdout


def test_hook_installed_beside_the_package():
    site = Path(ccgym.__file__).resolve().parent.parent
    pth = site / "ccgym-autoregister.pth"
    assert pth.is_file() and (site / "_ccgym_autoregister.py").is_file()
    assert pth.read_text().startswith("import _ccgym_autoregister")
    assert str(site) in {sysconfig.get_paths()["platlib"], sysconfig.get_paths()["purelib"]} or \
        str(site) in sys.path


def test_interpreter_start_imports_nothing_heavy():
    require_startup_hook()
    out = ok(run_main("""
        import sys
        print(sorted(m for m in sys.modules
                     if m.split(".")[0] in ("numpy", "gymnasium", "ccgym", "_ccgym_autoregister")))
    """))
    assert out.strip() == "['_ccgym_autoregister']"


def test_import_gymnasium_registers_without_importing_ccgym():
    require_startup_hook()
    out = ok(run_main("""
        import sys
        import gymnasium as gym
        ids = sorted(i for i in gym.registry if i.startswith("ccgym/"))
        assert "ccgym" not in sys.modules, "the hook must not import the ccgym package"
        env = gym.make("ccgym/CartPole-v1")
        print(ids, type(env.unwrapped).__module__)
    """))
    ids = sorted(f"ccgym/{i}" for i in ENV_IDS)
    assert out.strip() == f"{ids} ccgym.envs"


def test_a_find_spec_probe_does_not_use_up_the_hook():
    require_startup_hook()
    # Optional-dependency probes (TorchRL's) ask for gymnasium's spec first.
    out = ok(run_main("""
        import importlib.util, sys
        assert importlib.util.find_spec("gymnasium") is not None
        importlib.util.find_spec("gymnasium")
        import gymnasium as gym
        print("ccgym/Acrobot-v1" in gym.registry,
              any("ccgym" in repr(f) for f in sys.meta_path))
    """))
    assert out.strip() == "True False"


def test_hook_and_import_ccgym_register_the_same_specs():
    require_startup_hook()
    out = ok(run_main("""
        import gymnasium as gym
        hooked = {i: gym.spec(i) for i in gym.registry if i.startswith("ccgym/")}
        import ccgym
        assert {i: gym.spec(i) for i in gym.registry if i.startswith("ccgym/")} == hooked
        print(sorted((s.id, s.entry_point, s.vector_entry_point, s.max_episode_steps)
                     for s in hooked.values()))
    """))
    off = ok(run_main("""
        import gymnasium as gym
        assert not any(i.startswith("ccgym/") for i in gym.registry)
        import ccgym
        print(sorted((s.id, s.entry_point, s.vector_entry_point, s.max_episode_steps)
                     for s in (gym.spec(i) for i in gym.registry if i.startswith("ccgym/"))))
    """, hook=False))
    assert out == off
    here = sorted((s.id, s.entry_point, s.vector_entry_point, s.max_episode_steps)
                  for s in (gym.spec(f"ccgym/{i}") for i in ENV_IDS))
    assert out.strip() == str(here)


def test_without_hook_the_bare_id_fails_and_the_module_prefix_works():
    proc = run_main("""
        import gymnasium as gym
        env = gym.make("ccgym:ccgym/Pendulum-v1")   # imports ccgym on the fly
        env = gym.make("ccgym/CartPole-v1")
    """, hook=False)
    assert proc.returncode == 0, proc.stderr
    proc = run_main("""
        import gymnasium as gym
        gym.make("ccgym/CartPole-v1")
    """, hook=False)
    assert proc.returncode != 0 and "Namespace ccgym not found" in proc.stderr


def test_hook_failure_does_not_break_gymnasium():
    # A broken ccgym/_registration.py must cost a warning, never `import gymnasium`.
    out = ok(run_main("""
        import importlib.util, sys, warnings
        import _ccgym_autoregister as hook
        real = importlib.util.spec_from_file_location
        importlib.util.spec_from_file_location = lambda *a, **k: 1 / 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hook._register_ids()
        importlib.util.spec_from_file_location = real
        print([str(w.message)[:40] for w in caught])
    """, hook=False))
    assert "ccgym could not register its ids" in out


# ------------------------------------------------------------ real workers

SB3_MAIN = """
    import numpy as np
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    {prelude}

    def run(venv):
        venv.seed(7)
        obs = [venv.reset()]
        for t in range(60):
            obs.append(venv.step(np.array([t % 2, (t // 3) % 2]))[0])
        venv.close()
        return np.stack(obs)

    ours = run(SubprocVecEnv([lambda: gym.make("{env_id}")] * 2, start_method="{method}"))
    ref = run(DummyVecEnv([lambda: gym.make("CartPole-v1")] * 2))
    assert ours.dtype == ref.dtype and np.array_equal(ours, ref), "not the stock episodes"
    print("ok")
"""


@pytest.mark.parametrize("method, prelude, env_id", [
    ("spawn", "import ccgym", "ccgym/CartPole-v1"),
    ("forkserver", "import ccgym", "ccgym/CartPole-v1"),
    ("spawn", "", "ccgym:ccgym/CartPole-v1"),
])
def test_sb3_subproc_vec_env(method, prelude, env_id):
    # Each child imports torch (SB3): the slowest tests here (~20-50 s each on 2 busy cores).
    pytest.importorskip("stable_baselines3", reason="SubprocVecEnv needs stable-baselines3")
    if prelude:  # the children find the id through the hook
        require_startup_hook()
    code = SB3_MAIN.format(prelude=prelude, env_id=env_id, method=method)
    assert ok(run_main(code)).strip() == "ok"
    if prelude:  # what the hook prevents: the children never imported ccgym
        proc = run_main(code, hook=False)
        assert proc.returncode != 0 and "Namespace ccgym not found" in proc.stderr


ASYNC_MAIN = """
    import numpy as np
    import gymnasium as gym
    {prelude}

    def run(envs):
        obs = [envs.reset(seed=3)[0]]
        for t in range(40):
            obs.append(envs.step(np.full((2, 1), 0.5, np.float32) if "Pendulum" in "{env_id}"
                                 else np.array([t % 3, (t // 2) % 3]))[0])
        envs.close()
        return np.stack(obs)

    if "{build}" == "make_vec":
        ours = gym.make_vec("{env_id}", num_envs=2, vectorization_mode="async",
                            vector_kwargs={{"context": "{method}"}})
    else:  # the children call gym.make with the id (cloudpickled lambdas)
        ours = gym.vector.AsyncVectorEnv([lambda: gym.make("{env_id}")] * 2, context="{method}")
    ours = run(ours)
    ref = run(gym.make_vec("{stock}", num_envs=2, vectorization_mode="sync"))
    assert np.array_equal(ours, ref), "not the stock episodes"
    print("ok")
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
@pytest.mark.parametrize("build", ["make_vec", "lambdas"])
@pytest.mark.parametrize("prelude, env_id, stock", [
    ("import ccgym", "ccgym/Acrobot-v1", "Acrobot-v1"),
    ("", "ccgym:ccgym/Pendulum-v1", "Pendulum-v1"),
])
def test_gymnasium_async_vector_env(method, build, prelude, env_id, stock):
    if prelude and build == "lambdas":  # the children find the id through the hook
        require_startup_hook()
    code = ASYNC_MAIN.format(prelude=prelude, env_id=env_id, stock=stock, method=method,
                             build=build)
    assert ok(run_main(code)).strip() == "ok"
    if prelude and build == "lambdas":  # make_vec hands the children the spec, not the id
        proc = run_main(code, hook=False)
        assert proc.returncode != 0 and "Namespace ccgym not found" in proc.stderr


TORCHRL_MAIN = """
    import torch
    from torchrl.envs import GymEnv, ParallelEnv, SerialEnv
    {prelude}

    def run(env_id, batched):
        env = batched(2, lambda: GymEnv(env_id), **kw)
        env.set_seed(11)
        torch.manual_seed(0)  # the random actions, drawn in this process
        td = env.rollout(30, break_when_any_done=False)
        env.close()
        return td

    kw = {{"mp_start_method": "spawn"}}
    ours = run("{env_id}", ParallelEnv)
    kw = {{}}
    ref = run("CartPole-v1", SerialEnv)  # stock, in this process (cheaper than more workers)
    for key in ("observation", ("next", "observation"), ("next", "reward"), ("next", "done")):
        assert torch.equal(ours[key], ref[key]), key
    print("ok")
"""


def test_torchrl_parallel_env():
    # Each spawned worker imports torch and torchrl: ~2-3 min here on 2 busy cores.
    pytest.importorskip("torchrl", reason="ParallelEnv needs torchrl")
    require_startup_hook()
    code = TORCHRL_MAIN.format(prelude="import ccgym", env_id="ccgym/CartPole-v1")
    assert ok(run_main(code)).strip() == "ok"
    proc = run_main(code, hook=False)
    assert proc.returncode != 0 and "Namespace ccgym not found" in proc.stderr
