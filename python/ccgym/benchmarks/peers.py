"""The implementations a bench row can time, each behind a factory that
builds it, pre-draws its actions and returns ``(run, work_per_call, close)``
(see :mod:`ccgym.benchmarks.harness`)."""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np

from ccgym import _core, _kinds, _registration
from ccgym._registration import gym_id
from ccgym.benchmarks import harness
from ccgym.benchmarks.harness import ACTION_BATCHES, Factory, Skip, draw_actions
from ccgym.vector import make_vec

try:  # the bench ceiling's compiled loop (a build may leave it out)
    from ccgym import _ceiling
except ImportError:  # pragma: no cover
    _ceiling = None

# Row labels.
GYM_RAW, CC_RAW, GYM_MAKE, CC_MAKE = "gymnasium raw", "ccgym raw", "gymnasium make", "ccgym make"
CC_VEC, CC_VEC_NOCOPY, CEILING = "ccgym", "ccgym copy=False", "ceiling"
CC_FAST, CC_FAST_NOCOPY = "ccgym fast", "ccgym fast copy=False"
# The exact rows with the exact kernels' lanes switched off: scalar libm, one
# instance at a time (what CCGYM_EXACT_MATH=libm runs), beside the default.
CC_VEC_LIBM = "ccgym libm"
GYM_SYNC, GYM_NUMPY = "gym SyncVectorEnv", "gym CartPoleVectorEnv"
SB3_DUMMY, ENVPOOL, GYMNAX = "sb3 DummyVecEnv", "envpool", "gymnax"
# The id of the sections that time one env, not every id (peak memory, the
# layer breakdown) and of the goals against Gymnasium's own numpy vector env:
# the classic subject, and the one id Gymnasium has such a vector env for.
SUBJECT = "CartPole-v1"
# Each single-env row's Gymnasium counterpart.
SINGLE_REFS = {CC_RAW: GYM_RAW, CC_MAKE: GYM_MAKE}
# Optional peers: measured when importable; a failure skips them, not the run.
PEERS = (SB3_DUMMY, ENVPOOL, GYMNAX)
_PEER_MODULES = {SB3_DUMMY: ("stable_baselines3",), ENVPOOL: ("envpool",),
                 GYMNAX: ("gymnax", "jax")}


def has_fast(env_id: str) -> bool:
    """Whether the id's precision="fast" has kernels of its own (its def's
    fast variant; MountainCar's is the exact one)."""
    return _core.env_info(_kinds.env_kind(env_id)).has_fast


def gym_has(env_id: str) -> bool:
    """Whether Gymnasium itself registers the id (the reference rows); not a
    plugin's id (ccgym.register_c_env), which ccgym registers under that very
    name and which has no Gymnasium env to compare with."""
    import gymnasium as gym

    return env_id in gym.registry and gym_id(env_id) != env_id


def gym_has_vector(env_id: str) -> bool:
    """Whether Gymnasium has a vector env of its own for the id (CartPole's numpy one)."""
    import gymnasium as gym

    return gym_has(env_id) and gym.spec(env_id).vector_entry_point is not None

# Ceiling steps per C call before its states are restored: one pass over the
# action batches, so that its memory traffic is the real path's.
CEILING_STEPS = ACTION_BATCHES
CEILING_POOL = 1024      # at least this many instances per snapshot of live states
CEILING_SNAPSHOTS = 8    # snapshots spread over one episode (the id's time limit)


def missing_peer(impl: str) -> str | None:
    """Why the optional peer `impl` cannot run here (a module that is not
    installed), or None. Looks for the modules without importing them."""
    for module in _PEER_MODULES[impl]:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


def _gym_class(env_id: str) -> type:
    import gymnasium as gym

    module, name = gym.spec(env_id).entry_point.split(":")
    return getattr(importlib.import_module(module), name)


def single_factory(env_id: str, impl: str) -> Factory:
    """One env stepped from Python: GYM_RAW, CC_RAW (the env classes),
    GYM_MAKE or CC_MAKE (through ``gymnasium.make`` and its wrappers)."""
    def make():
        import gymnasium as gym

        if impl == GYM_RAW:
            env = _gym_class(env_id)()
        elif impl == CC_RAW:
            env = _kinds.env_class(env_id)()
        elif impl == GYM_MAKE:
            env = gym.make(env_id)
        else:
            env = gym.make(gym_id(env_id))
        return harness.single_loop(env, draw_actions(env.action_space)), 1, env.close

    return make


def ccgym_vector_factory(env_id: str, n: int, threads: int, copy: bool = True,
                         precision: str = "exact") -> Factory:
    def make():
        envs = make_vec(env_id, num_envs=n, num_threads=threads, copy=copy,
                        precision=precision)
        envs.reset(seed=0)
        return harness.cycle_loop(envs.step, draw_actions(envs.action_space)), n, envs.close

    return make


def has_exact_lanes(env_id: str) -> bool:
    """Whether env_id's exact step runs in exact math's SIMD lanes here (then
    the bench adds a CC_VEC_LIBM row beside the exact one)."""
    return (_core.exact_math()["kernels"]
            and _kinds.env_kind(env_id) in _core.exact_lanes_kinds())


def ccgym_libm_vector_factory(env_id: str, n: int, threads: int) -> Factory:
    """ccgym_vector_factory's exact rows with the lanes off during each timed
    call (the switch is outside the clock): the scalar-libm exact step."""
    inner = ccgym_vector_factory(env_id, n, threads)

    def make():
        run, work, close = inner()

        def run_libm(k: int) -> float:
            prev = _core._exact_math_use_lanes(False)
            try:
                return run(k)
            finally:
                _core._exact_math_use_lanes(prev)

        return run_libm, work, close

    return make


def gym_vector_factory(env_id: str, n: int, mode: str) -> Factory:
    """Gymnasium's own vector env: ``mode`` "sync" (SyncVectorEnv) or
    "vector_entry_point" (its numpy CartPoleVectorEnv)."""
    def make():
        import gymnasium as gym

        envs = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode)
        envs.reset(seed=0)
        return harness.cycle_loop(envs.step, draw_actions(envs.action_space)), n, envs.close

    return make


def sb3_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            from stable_baselines3.common.vec_env import DummyVecEnv
        except ImportError:
            raise Skip("stable_baselines3 is not installed") from None
        import gymnasium as gym

        venv = DummyVecEnv([lambda: gym.make(env_id)] * n)
        venv.seed(0)
        venv.reset()
        space = venv.action_space
        space.seed(0)
        actions = [np.array([space.sample() for _ in range(n)]) for _ in range(ACTION_BATCHES)]
        return harness.cycle_loop(venv.step, actions), n, venv.close

    return make


def envpool_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            import envpool
        except ImportError:
            raise Skip("envpool is not installed") from None
        try:
            envs = envpool.make_gymnasium(env_id, num_envs=n, seed=0)
        except Exception as e:  # an id EnvPool does not have
            raise Skip(f"envpool has no {env_id}: {e}", env_id=env_id) from None
        envs.reset()
        space = envs.action_space
        space.seed(0)
        if isinstance(space.sample(), (int, np.integer)):
            actions = [np.array([space.sample() for _ in range(n)], dtype=np.int32)
                       for _ in range(ACTION_BATCHES)]
        else:
            actions = [np.stack([space.sample() for _ in range(n)])
                       for _ in range(ACTION_BATCHES)]
        return harness.cycle_loop(envs.step, actions), n, envs.close

    return make


def gymnax_factory(env_id: str, n: int) -> Factory:
    def make():
        try:
            import gymnax
            import jax
        except ImportError:
            raise Skip("gymnax (with jax) is not installed") from None
        try:
            env, params = gymnax.make(env_id)
        except Exception as e:
            raise Skip(f"gymnax has no {env_id}: {e}", env_id=env_id) from None
        key = jax.random.PRNGKey(0)
        reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
        step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        keys = jax.random.split(key, n)
        _, state = reset(keys, params)
        act_keys = jax.random.split(jax.random.PRNGKey(1), ACTION_BATCHES)
        actions = [jax.vmap(env.action_space(params).sample)(jax.random.split(k, n))
                   for k in act_keys]
        step_keys = [jax.random.split(k, n) for k in jax.random.split(key, ACTION_BATCHES)]
        box = [state]

        def run(k: int) -> float:
            st, clock = box[0], harness.timer()
            t0 = clock()
            for i in range(k):
                out = step(step_keys[i % ACTION_BATCHES], st, actions[i % ACTION_BATCHES],
                           params)
                st = out[1]
            jax.block_until_ready(out)
            dt = clock() - t0
            box[0] = st
            return dt

        return run, n, lambda: None

    return make


# ------------------------------------------------------------------ ceiling
def ceiling_state_pool(env_id: str, n: int) -> np.ndarray:
    """States for the ceiling in its layout, live states of ccgym's own vector
    env: at least CEILING_POOL instances (a multiple of n) stepped with random
    actions and autoreset for one episode's worth of steps (the id's time
    limit), CEILING_SNAPSHOTS snapshots spread evenly over it, so that the
    ceiling sees the same mix of states (and of branches and libm argument
    ranges in the physics) as the real path over a run. States fresh from
    reset would flatter it; states run on past a fall without reset would
    slow it down; and one snapshot alone is one phase of a fleet that
    started together. (The ceiling resets a terminated instance itself.)"""
    pool = n * -(-CEILING_POOL // n)
    envs = make_vec(env_id, num_envs=pool)
    envs.reset(seed=0)
    actions = draw_actions(envs.action_space)
    kind = envs.batch.kind
    desc = _kinds.of_id(env_id)
    snapshot = desc.ceiling_state
    every = -(-_registration.ENV_SPECS[env_id][1] // CEILING_SNAPSHOTS)
    view = envs.batch.state_view(desc.state_dtype)
    snapshots = []
    for i in range(1, CEILING_SNAPSHOTS * every + 1):
        envs.step(actions[i % len(actions)])
        if i % every == 0:
            snapshots.append(snapshot(ceiling_layout(view, kind)))
    envs.close()
    return np.concatenate(snapshots)


def ceiling_layout(view: np.ndarray, kind: str) -> np.ndarray:
    """A copy of ccgym's states (a structured view) as the ceiling's
    (N, state_dim) float64 rows: the leading float64 fields (arrays
    flattened), as the def lays them out (EnvInfo.state_float_fields); the
    env class's ``_ceiling_state`` then makes them a state its bare loop
    steps as the real path does."""
    info = _core.env_info(kind)
    cols = [np.asarray(view[f], dtype=np.float64).reshape(len(view), -1)
            for f in info.state_float_fields]
    state = np.concatenate(cols, axis=1)[:, :_ceiling.state_dim(kind)]
    return np.ascontiguousarray(state)


def ceiling_factory(env_id: str, n: int, threads: int) -> Factory:
    """The bare C loop of the id's physics, timed inside C: CEILING_STEPS
    steps per call from a fresh window of :func:`ceiling_state_pool`."""
    def make():
        if _ceiling is None:
            raise Skip("ccgym was built without the _ceiling module")
        kind = _kinds.env_kind(env_id)
        pool = ceiling_state_pool(env_id, n)
        windows = pool.shape[0] // n
        runner = _ceiling.Run(kind, pool[:n].copy(), seed=0)
        envs = make_vec(env_id, num_envs=n)
        actions = np.stack(draw_actions(envs.action_space)).astype(_ceiling.action_dtype(kind))
        envs.close()
        steps = CEILING_STEPS
        box = [0]

        def run(k: int) -> float:
            total, w = 0.0, box[0]
            for _ in range(k):
                # Untimed (the clock runs in C): a fresh window of the pool.
                np.copyto(runner.state, pool[w * n:(w + 1) * n])
                w = (w + 1) % windows
                total += runner.run(actions, steps, threads, harness.cpu_clock())
            box[0] = w
            return total

        return run, n * steps, lambda: None

    return make
