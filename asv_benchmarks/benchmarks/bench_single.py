"""Single-env benchmarks: one instance stepped from Python, as ccgym and as Gymnasium.

``library`` is "ccgym" (``ccgym.envs``) or "gymnasium" (Gymnasium's own
classic-control env, the baseline); ``api`` is "class" (the raw env class, no
wrappers) or "make" (``gymnasium.make``: order enforcing, env checker and the
time limit on top).
"""

from __future__ import annotations

from .common import (
    ENV_IDS,
    SEED,
    SINGLE_STEPS,
    ccgym_single,
    close,
    draw_actions,
    gymnasium_single,
)

LIBRARIES = ["ccgym", "gymnasium"]
APIS = ["class", "make"]


def _make(env_id: str, library: str, api: str):
    if library == "ccgym":
        return ccgym_single(env_id, api)
    return gymnasium_single(env_id, api)


class SingleStep:
    """``SINGLE_STEPS`` (100) calls of ``env.step``, resetting when an episode ends."""

    params = [ENV_IDS, LIBRARIES, APIS]
    param_names = ["env_id", "library", "api"]

    def setup(self, env_id, library, api):
        self.env = _make(env_id, library, api)
        self.env.reset(seed=SEED)
        self.actions = draw_actions(self.env.action_space, SINGLE_STEPS)

    def teardown(self, env_id, library, api):
        close(self, "env")

    def _run(self):
        env = self.env
        step = env.step
        for action in self.actions:
            _, _, terminated, truncated, _ = step(action)
            if terminated or truncated:
                env.reset()

    def time_step(self, env_id, library, api):
        self._run()

    def peakmem_step(self, env_id, library, api):
        self._run()


class SingleReset:
    """``env.reset(seed=...)``: seeding the generator and drawing the initial state."""

    params = [ENV_IDS, LIBRARIES]
    param_names = ["env_id", "library"]

    def setup(self, env_id, library):
        self.env = _make(env_id, library, "class")
        self.env.reset(seed=SEED)

    def teardown(self, env_id, library):
        close(self, "env")

    def time_reset_seed(self, env_id, library):
        self.env.reset(seed=SEED)

    def time_reset(self, env_id, library):
        self.env.reset()


class SingleConstruct:
    """Building (and closing) one env, raw class or through ``gymnasium.make``."""

    params = [ENV_IDS, LIBRARIES, APIS]
    param_names = ["env_id", "library", "api"]

    def setup(self, env_id, library, api):
        # Fail (or skip) here rather than inside the timed call.
        _make(env_id, library, api).close()

    def time_construct(self, env_id, library, api):
        _make(env_id, library, api).close()

    def peakmem_construct(self, env_id, library, api):
        _make(env_id, library, api).close()
