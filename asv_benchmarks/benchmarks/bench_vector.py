"""Vector-env benchmarks: N instances stepped, reset and built in one call.

``library`` is "ccgym" (``ccgym.make_vec``, the native C vector env),
"gymnasium-sync" (``SyncVectorEnv`` over Gymnasium's envs, N <= 64 only) or
"gymnasium-native" (Gymnasium's numpy ``CartPoleVectorEnv``, CartPole only).
Combinations that do not exist are skipped (shown as n/a).
"""

from __future__ import annotations

from .common import (
    ENV_IDS,
    SEED,
    VECTOR_STEPS,
    Skip,
    ccgym_vector,
    close,
    draw_actions,
    gymnasium_vector,
)

NUM_ENVS = [1, 64, 1024, 16384]
NUM_THREADS = [1, 2]
LIBRARIES = ["ccgym", "gymnasium-sync", "gymnasium-native"]
RESET_NUM_ENVS = 65536


def _make(env_id: str, num_envs: int, num_threads: int, library: str):
    if library == "ccgym":
        kwargs = {} if num_threads == 1 else {"num_threads": num_threads}
        return ccgym_vector(env_id, num_envs, **kwargs)
    if num_threads != 1:
        raise Skip("Gymnasium's vector envs are single-threaded")
    return gymnasium_vector(env_id, num_envs, library.removeprefix("gymnasium-"))


class VectorStep:
    """``VECTOR_STEPS`` (10) calls of ``envs.step`` on N instances (next-step autoreset)."""

    params = [ENV_IDS, NUM_ENVS, NUM_THREADS, LIBRARIES]
    param_names = ["env_id", "num_envs", "num_threads", "library"]

    def setup(self, env_id, num_envs, num_threads, library):
        self.envs = _make(env_id, num_envs, num_threads, library)
        self.envs.reset(seed=SEED)
        self.actions = draw_actions(self.envs.action_space, VECTOR_STEPS)

    def teardown(self, env_id, num_envs, num_threads, library):
        close(self, "envs")

    def _run(self):
        step = self.envs.step
        for actions in self.actions:
            step(actions)

    def time_step(self, env_id, num_envs, num_threads, library):
        self._run()

    def peakmem_step(self, env_id, num_envs, num_threads, library):
        self._run()


class VectorStepNoCopy:
    """As :class:`VectorStep` for ccgym, returning its internal buffers (``copy=False``)."""

    params = [["CartPole-v1", "Pendulum-v1"], [1024, 16384], [True, False]]
    param_names = ["env_id", "num_envs", "copy"]

    def setup(self, env_id, num_envs, copy):
        self.envs = ccgym_vector(env_id, num_envs, copy=copy)
        self.envs.reset(seed=SEED)
        self.actions = draw_actions(self.envs.action_space, VECTOR_STEPS)

    def teardown(self, env_id, num_envs, copy):
        close(self, "envs")

    def time_step(self, env_id, num_envs, copy):
        step = self.envs.step
        for actions in self.actions:
            step(actions)


class VectorStepFast:
    """As :class:`VectorStep` for ccgym with ``precision="fast"`` (the
    vectorised kernels, for the CPU's instruction set) against the exact
    default, one thread."""

    params = [["CartPole-v1", "Pendulum-v1", "Acrobot-v1"], [1024, 16384], ["exact", "fast"]]
    param_names = ["env_id", "num_envs", "precision"]

    def setup(self, env_id, num_envs, precision):
        self.envs = ccgym_vector(env_id, num_envs, precision=precision)
        self.envs.reset(seed=SEED)
        self.actions = draw_actions(self.envs.action_space, VECTOR_STEPS)

    def teardown(self, env_id, num_envs, precision):
        close(self, "envs")

    def time_step(self, env_id, num_envs, precision):
        step = self.envs.step
        for actions in self.actions:
            step(actions)


class VectorReset:
    """``envs.reset`` of 65536 instances: seeded (seed s gives instance i seed s + i,
    a SeedSequence per instance) and unseeded (continuing each stream)."""

    params = [ENV_IDS, [RESET_NUM_ENVS], ["ccgym", "gymnasium-native"]]
    param_names = ["env_id", "num_envs", "library"]

    def setup(self, env_id, num_envs, library):
        self.envs = _make(env_id, num_envs, 1, library)
        self.envs.reset(seed=SEED)

    def teardown(self, env_id, num_envs, library):
        close(self, "envs")

    def time_reset_seed(self, env_id, num_envs, library):
        self.envs.reset(seed=SEED)

    def time_reset(self, env_id, num_envs, library):
        self.envs.reset()

    def peakmem_reset_seed(self, env_id, num_envs, library):
        self.envs.reset(seed=SEED)


class VectorConstruct:
    """Building (and closing) a vector env of N instances, buffers included."""

    params = [ENV_IDS, [1, 1024, RESET_NUM_ENVS]]
    param_names = ["env_id", "num_envs"]

    def setup(self, env_id, num_envs):
        # Fail (or skip) here rather than inside the timed call.
        ccgym_vector(env_id, num_envs).close()

    def time_make_vec(self, env_id, num_envs):
        ccgym_vector(env_id, num_envs).close()

    def peakmem_make_vec(self, env_id, num_envs):
        ccgym_vector(env_id, num_envs).close()


class GymMakeVec:
    """``gymnasium.make_vec("ccgym/<id>")`` reaches ccgym's native vector env."""

    params = [["CartPole-v1"], [1024]]
    param_names = ["env_id", "num_envs"]

    def setup(self, env_id, num_envs):
        import gymnasium as gym

        from .common import import_ccgym, quiet

        import_ccgym()
        with quiet():
            try:
                self.envs = gym.make_vec(
                    f"ccgym/{env_id}", num_envs=num_envs,
                    vectorization_mode="vector_entry_point",
                )
            except ModuleNotFoundError as exc:
                raise Skip(f"no native vector entry point on this commit: {exc}") from exc
        self.envs.reset(seed=SEED)
        self.actions = draw_actions(self.envs.action_space, VECTOR_STEPS)

    def teardown(self, env_id, num_envs):
        close(self, "envs")

    def time_step(self, env_id, num_envs):
        step = self.envs.step
        for actions in self.actions:
            step(actions)
