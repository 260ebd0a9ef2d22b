"""get_attr/set_attr of Monitor's own attributes on ccgym.sb3.make_vec_env,
as on SB3's make_vec_env (a DummyVecEnv of Monitor-wrapped envs, Monitor
outermost). SB3's own tests/test_utils.py::test_vec_env_monitor_kwargs reads
``get_attr("allow_early_resets")`` (tools/upstream_tests.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("stable_baselines3", reason="the SB3 front end needs stable-baselines3")

from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env  # noqa: E402

from ccgym.sb3 import make_vec_env  # noqa: E402


@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("env_id", ["MountainCarContinuous-v0", "CartPole-v1"])
def test_monitor_attributes_as_sb3(env_id, allow):
    ours = make_vec_env("ccgym/" + env_id, n_envs=2, seed=0,
                        monitor_kwargs={"allow_early_resets": allow})
    theirs = sb3_make_vec_env(env_id, n_envs=2, seed=0,
                              monitor_kwargs={"allow_early_resets": allow})
    for name in ("allow_early_resets", "info_keywords", "reset_keywords"):
        assert ours.get_attr(name) == theirs.get_attr(name), name
        assert ours.get_attr(name, indices=[1]) == theirs.get_attr(name, indices=[1]), name
    assert [type(t) for t in ours.get_attr("t_start")] == [float, float]
    # the env's own attributes still answer through the monitor
    assert ours.get_attr("render_mode") == theirs.get_attr("render_mode")
    ours.close()
    theirs.close()


def test_set_monitor_attribute_changes_reset_check():
    venv = make_vec_env("ccgym/CartPole-v1", n_envs=2, seed=0,
                        monitor_kwargs={"allow_early_resets": True})
    venv.reset()
    venv.set_attr("allow_early_resets", False)
    assert venv.get_attr("allow_early_resets") == [False, False]
    with pytest.raises(RuntimeError, match="early resets"):
        venv.reset()
    # one instance only cannot be expressed by the batch's single monitor:
    # refused, and nothing changes
    with pytest.raises(ValueError, match="allow_early_resets"):
        venv.set_attr("allow_early_resets", True, indices=[0])
    assert venv.get_attr("allow_early_resets") == [False, False]
    venv.close()
