"""Ray RLlib's new API stack on ccgym: each EnvRunner steps its N envs in one
ccgym call (``gym_env_vectorize_mode="vector_entry_point"``), remote runners
resolve ``ccgym/<Id>`` (the startup hook), on two nodes of a simulated
cluster, with the same episodes and PPO returns as stock Gymnasium.

Small on purpose (2 cores): one PPO iteration, torch on one thread. Measured
here: ~3-4 min, almost all of it Ray start-up and RLlib's algorithm build.
"""
from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs ray[rllib] (pip install 'ccgym[rllib]')")
pytest.importorskip("ray.rllib", reason="needs ray[rllib] (pip install 'ccgym[rllib]')")
torch = pytest.importorskip("torch", reason="RLlib's PPO needs torch")

import ccgym  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")  # Ray and RLlib warn at import and build


def ppo_config(env_id: str, *, runners: int, num_envs: int = 4, seed: int = 0, batch: int = 256,
               cpus_per_runner: float = 0):
    from ray.rllib.algorithms.ppo import PPOConfig

    ours = env_id.startswith("ccgym/")
    return (
        PPOConfig()
        .environment(env_id)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=num_envs,
                     num_cpus_per_env_runner=cpus_per_runner,
                     gym_env_vectorize_mode="vector_entry_point" if ours else "sync",
                     rollout_fragment_length=batch // (max(runners, 1) * num_envs))
        .training(train_batch_size_per_learner=batch, minibatch_size=batch // 2, num_epochs=1)
        .debugging(seed=seed)
    )


def episodes_arrays(episodes):
    return [(np.asarray(e.get_observations()), np.asarray(e.get_actions()),
             np.asarray(e.get_rewards()), e.is_terminated, e.is_truncated) for e in episodes]


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_env_runner_steps_ccgym_vector_env_like_stock(env_id):
    """Every id: a local SingleAgentEnvRunner over ccgym's VectorEnv samples the
    episodes (observations, actions, rewards, flags) it samples over stock
    Gymnasium's SyncVectorEnv with the same seed, through autoresets."""
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    torch.set_num_threads(1)
    steps = 3 * (ccgym.ENV_SPECS[env_id][1] + 20)  # counted over the 3 envs: >= 1 reset each
    runs = {}
    for name in (f"ccgym/{env_id}", env_id):
        runner = SingleAgentEnvRunner(config=ppo_config(name, runners=0, num_envs=3, seed=5))
        try:
            if name.startswith("ccgym/"):
                assert type(runner.env.unwrapped).__module__ == "ccgym.vector"
                assert runner.env.unwrapped.num_envs == 3
            runs[name] = episodes_arrays(runner.sample(num_timesteps=steps, random_actions=False))
        finally:
            runner.stop()
    ours, ref = runs[f"ccgym/{env_id}"], runs[env_id]
    assert len(ours) == len(ref) > 3
    for a, b in zip(ours, ref):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


@pytest.fixture(scope="module")
def two_node_cluster():
    from ray.cluster_utils import Cluster

    torch.set_num_threads(1)
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_ppo_two_runners_on_two_nodes_matches_stock(two_node_cluster):
    """PPO, new API stack, num_env_runners=2 with one CPU each on a two-node
    cluster of one CPU per node: one runner per node, each stepping its N
    ccgym envs in one call; the first iteration's return equals stock's."""
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    results = {}
    for env_id in ("ccgym/CartPole-v1", "CartPole-v1"):
        algo = ppo_config(env_id, runners=2, cpus_per_runner=1).build_algo()
        try:
            where = algo.env_runner_group.foreach_env_runner(
                lambda r: (ray.get_runtime_context().get_node_id(),
                           type(r.env.unwrapped).__module__, r.env.unwrapped.num_envs),
                local_env_runner=False)
            result = algo.train()
            results[env_id] = (where, result["env_runners"]["episode_return_mean"],
                               result["env_runners"]["num_env_steps_sampled"])
        finally:
            algo.stop()
    where, ret, steps = results["ccgym/CartPole-v1"]
    assert len({node for node, _, _ in where}) == 2, where  # runners on both nodes
    assert [(mod, n) for _, mod, n in where] == [("ccgym.vector", 4)] * 2
    stock_where, stock_ret, stock_steps = results["CartPole-v1"]
    assert {mod for _, mod, _ in stock_where} == {"gymnasium.vector.sync_vector_env"}
    assert steps == stock_steps == 256
    assert ret == stock_ret


def test_remote_workers_resolve_the_id_through_the_startup_hook(two_node_cluster):
    """A fresh Ray worker never ran ``import ccgym``: the id resolves through the
    startup hook, and without it (CCGYM_NO_AUTOREGISTER=1) fails as it did
    before the hook (RLlib showed it as IndexError in get_spaces)."""
    @ray.remote(num_cpus=0)
    def make():
        import sys

        import gymnasium as gym

        envs = gym.make_vec("ccgym/CartPole-v1", num_envs=2, vectorization_mode="vector_entry_point")
        return type(envs).__module__, "ccgym" in sys.modules

    assert ray.get(make.remote()) == ("ccgym.vector", True)
    no_hook = make.options(runtime_env={"env_vars": {"CCGYM_NO_AUTOREGISTER": "1"}})
    with pytest.raises(Exception, match="Namespace ccgym not found"):
        ray.get(no_hook.remote())
