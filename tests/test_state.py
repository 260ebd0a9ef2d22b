"""Snapshots and copies: get_state()/set_state() on single and vector envs
(physics state, elapsed steps, RNG streams, pending autoresets), deepcopy and
pickle mid-episode, cloudpickle, and ccgym envs inside Gymnasium's
AsyncVectorEnv (fork and spawn) and SB3's SubprocVecEnv. Everything is
compared bit for bit."""

from __future__ import annotations

import copy
import functools
import multiprocessing
import pickle

import cloudpickle
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

import ccgym
from reference import reference_id, CONTINUOUS_IDS

ENV_IDS = list(ccgym.ENV_IDS)
CONTINUOUS_IDS = set(CONTINUOUS_IDS)
MODES = ["NextStep", "SameStep", "Disabled"]


# ----------------------------------------------------------------- helpers
def make_vec(env_id: str, n: int = 12, **kwargs) -> ccgym.vector.VectorEnv:
    kwargs.setdefault("max_episode_steps", 7)  # many truncations and pending resets
    if env_id.startswith("Acrobot"):
        kwargs.setdefault("torque_noise_max", 0.05)  # steps draw from the RNG too
    return ccgym.make_vec(env_id, num_envs=n, **kwargs)


def random_actions(env_id: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if env_id in CONTINUOUS_IDS:
        # beyond the bounds too: clipped physics, unclipped MountainCarContinuous reward
        return rng.uniform(-3, 3, size=(n, 1)).astype(np.float32)
    n_actions = 2 if reference_id(env_id).startswith("CartPole") else 3
    return rng.integers(0, n_actions, size=n)


def roll(env, actions: list[np.ndarray]) -> list[tuple]:
    """Steps a vector env through `actions`, resetting done instances by mask
    in Disabled mode; returns every output (with final_obs infos)."""
    out = []
    for a in actions:
        if env.autoreset_mode == gym.vector.AutoresetMode.DISABLED and env._core.any_pending():
            mask = env._core.pending_reset.copy()
            obs, _ = env.reset(options={"reset_mask": mask})
            out.append(("reset", obs.copy()))
        obs, rew, term, trunc, info = env.step(a)
        final = info.get("final_obs")
        final = None if final is None else [None if f is None else f.copy() for f in final]
        out.append((obs.copy(), rew.copy(), term.copy(), trunc.copy(), final))
    return out


def assert_same_outputs(a: list, b: list) -> None:
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b)):
        assert len(x) == len(y), k
        for u, v in zip(x, y):
            if isinstance(u, list):
                assert len(u) == len(v)
                for p, q in zip(u, v):
                    assert (p is None and q is None) or np.array_equal(p, q), k
            elif isinstance(u, np.ndarray):
                assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True), k
            else:
                assert u == v, k


def assert_same_state(s1: dict, s2: dict) -> None:
    assert s1.keys() == s2.keys()
    for key in s1:
        if isinstance(s1[key], np.ndarray):
            assert s1[key].dtype == s2[key].dtype, key
            # compare bytes: NaN payloads and -0.0 included
            assert s1[key].tobytes() == s2[key].tobytes(), key
        else:
            assert s1[key] == s2[key], key


def single_actions(env_id: str, count: int, rng: np.random.Generator) -> list:
    if env_id in CONTINUOUS_IDS:
        return [rng.uniform(-3, 3, size=(1,)).astype(np.float32) for _ in range(count)]
    n_actions = 2 if reference_id(env_id).startswith("CartPole") else 3
    return [int(a) for a in rng.integers(0, n_actions, size=count)]


def single_roll(env: gym.Env, actions: list) -> list[tuple]:
    out = []
    for a in actions:
        obs, rew, term, trunc, _ = env.step(a)
        out.append((obs.copy(), float(rew), bool(term), bool(trunc)))
        if term or trunc:
            obs, _ = env.reset()
            out.append(("reset", obs.copy()))
    return out


def make_single(env_id: str, **kwargs) -> gym.Env:
    if env_id == "CartPole-v0":
        with pytest.warns(DeprecationWarning):
            return gym.make(f"ccgym/{env_id}", **kwargs)
    return gym.make(f"ccgym/{env_id}", **kwargs)


# ----------------------------------------------------------- vector envs
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_vector_clone_roll_restore(env_id, mode):
    rng = np.random.default_rng(1)
    n = 12
    env = make_vec(env_id, n, autoreset_mode=mode, episode_statistics=True)
    env.reset(seed=123)
    warmup = [random_actions(env_id, n, rng) for _ in range(7)]
    roll(env, warmup)  # step 7: every instance truncates
    if mode == "NextStep":
        assert env._core.pending_reset.all(), "snapshot must hold pending NEXT_STEP resets"
    if mode == "Disabled":
        assert env._core.any_pending()
    snap = env.get_state()
    actions = [random_actions(env_id, n, rng) for _ in range(25)]
    first = roll(env, actions)
    after_first = env.get_state()

    env.set_state(snap)
    assert_same_state(env.get_state(), snap)
    assert_same_outputs(roll(env, actions), first)
    assert_same_state(env.get_state(), after_first)

    # Restoring into another env of the same id and size clones the batch.
    other = make_vec(env_id, n, autoreset_mode=mode, episode_statistics=True)
    other.reset(seed=999)
    other.set_state(snap)
    assert_same_outputs(roll(other, actions), first)
    assert_same_state(other.get_state(), after_first)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_vector_snapshot_mid_episode_partial_pending(env_id):
    """Snapshots taken at every step of a ragged batch (instances at different
    points of their episodes, some pending) restore exactly."""
    rng = np.random.default_rng(2)
    n = 9
    env = make_vec(env_id, n, max_episode_steps=5)
    env.reset(seed=[3 * i for i in range(n)])
    env.reset(options={"reset_mask": np.arange(n) % 3 == 0})  # stagger the episodes
    for _ in range(3):
        env.step(random_actions(env_id, n, rng))
    for _ in range(12):
        snap = env.get_state()
        a = random_actions(env_id, n, rng)
        ref = roll(env, [a])
        env.set_state(snap)
        assert_same_outputs(roll(env, [a]), ref)


def test_vector_snapshot_is_a_copy():
    env = make_vec("CartPole-v1", 4)
    env.reset(seed=0)
    snap = env.get_state()
    kept = copy.deepcopy(snap)
    env.step(np.ones(4, dtype=np.int64))
    assert_same_state(snap, kept)  # stepping does not write into a snapshot
    snap["state_buffer"][:] = 0  # writing into a snapshot does not touch the env
    env.set_state(kept)
    assert_same_state(env.get_state(), kept)


def test_vector_snapshot_before_reset_restores_reset_needed():
    env = make_vec("Pendulum-v1", 3)
    snap = env.get_state()
    env.reset(seed=0)
    env.set_state(snap)
    with pytest.raises(ResetNeeded):
        env.step(np.zeros((3, 1), dtype=np.float32))


def test_vector_threaded_snapshot_equals_serial():
    """A snapshot of a threaded batch restores into a serial one exactly."""
    n = 4096 + 7
    rng = np.random.default_rng(3)
    threaded = make_vec("Acrobot-v1", n, num_threads=2)
    serial = make_vec("Acrobot-v1", n, num_threads=1)
    threaded.reset(seed=5)
    roll(threaded, [random_actions("Acrobot-v1", n, rng) for _ in range(9)])
    serial.set_state(threaded.get_state())
    actions = [random_actions("Acrobot-v1", n, rng) for _ in range(9)]
    assert_same_outputs(roll(threaded, actions), roll(serial, actions))


# ------------------------------------------------------------ single envs
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_single_clone_roll_restore(env_id):
    rng = np.random.default_rng(4)
    kwargs = {"torque_noise_max": 0.05} if env_id.startswith("Acrobot") else {}
    env = getattr(ccgym.envs, ccgym.ENV_SPECS[env_id][0])(**kwargs)
    env.reset(seed=7)
    single_roll(env, single_actions(env_id, 30, rng))
    snap = env.get_state()
    actions = single_actions(env_id, 300, rng)
    first = single_roll(env, actions)
    after = env.get_state()
    env.set_state(snap)
    assert_same_outputs(single_roll(env, actions), first)
    assert_same_state(env.get_state(), after)

    clone = getattr(ccgym.envs, ccgym.ENV_SPECS[env_id][0])(**kwargs)
    clone.set_state(snap)
    assert_same_outputs(single_roll(clone, actions), first)
    assert clone._np_random_seed == env._np_random_seed == 7


def test_single_snapshot_after_termination_keeps_cartpole_counter():
    """CartPole's steps_beyond_terminated (the warning counter) is part of the state."""
    env = ccgym.envs.CartPoleEnv()
    env.reset(seed=0)
    while not env.step(1)[2]:
        pass
    snap = env.get_state()
    clone = ccgym.envs.CartPoleEnv()
    clone.set_state(snap)
    assert_same_state(clone.get_state(), snap)
    with pytest.warns(UserWarning, match="already returned terminated"):
        clone.step(1)


# ------------------------------------------------------ deepcopy / pickle
COPIERS = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda e: pickle.loads(pickle.dumps(e)),
    "cloudpickle": lambda e: cloudpickle.loads(cloudpickle.dumps(e)),
}


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_single_made_env_copies_mid_episode(env_id, how):
    """gym.make's whole stack (TimeLimit's elapsed steps included) survives a
    copy mid-episode; the copy and the original then agree bit for bit and
    are independent."""
    rng = np.random.default_rng(5)
    env = make_single(env_id)
    env.reset(seed=11)
    # Go past a time limit once so the copy is mid-episode in a later episode.
    single_roll(env, single_actions(env_id, ccgym.ENV_SPECS[env_id][1] + 13, rng))
    dup = COPIERS[how](env)
    actions = single_actions(env_id, 2 * ccgym.ENV_SPECS[env_id][1], rng)
    ours = single_roll(env, actions)
    theirs = single_roll(dup, actions)
    assert_same_outputs(ours, theirs)
    assert any(isinstance(x[0], str) for x in ours)  # crossed an episode end after the copy
    env.close()
    dup.reset()  # closing the original does not close the copy


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_vector_env_copies_mid_episode(env_id, mode, how):
    rng = np.random.default_rng(6)
    n = 5
    env = make_vec(env_id, n, autoreset_mode=mode, episode_statistics=True,
                   **({"gravity": np.linspace(9, 11, n)} if reference_id(env_id).startswith("CartPole")
                      else {}))
    env.reset(seed=21)
    roll(env, [random_actions(env_id, n, rng) for _ in range(10)])
    dup = COPIERS[how](env)
    assert dup.get_physics().keys() == env.get_physics().keys()
    for k, v in env.get_physics().items():
        assert np.array_equal(dup.get_physics()[k], v)
    assert list(dup.return_queue) == list(env.return_queue)
    assert dup.episode_count == env.episode_count
    assert_same_state(dup.get_state(), env.get_state())
    actions = [random_actions(env_id, n, rng) for _ in range(20)]
    assert_same_outputs(roll(env, actions), roll(dup, actions))
    assert list(dup.length_queue) == list(env.length_queue)


def test_copy_of_closed_env_is_closed_and_usable():
    # A vector env stays usable after close(), as Gymnasium's: its copy is
    # closed too (as a deepcopy of SyncVectorEnv) and steps as it does.
    env = ccgym.make_vec("CartPole-v1", num_envs=2)
    env.reset(seed=4)
    env.close()
    ref = SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    ref.close()
    assert copy.deepcopy(ref).closed
    for clone in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        dup = clone(env)
        assert dup.closed
        a = np.ones(2, np.int64)
        assert np.array_equal(dup.step(a)[0], env.step(a)[0])
    # A single env stays usable after close(), as Gymnasium's: so does its copy.
    single = ccgym.envs.CartPoleEnv()
    single.close()
    dup = pickle.loads(pickle.dumps(single))
    assert np.array_equal(dup.reset(seed=3)[0], single.reset(seed=3)[0])


# --------------------------------------------- Async / Sync vector envs
def _run_vector(vec, env_id: str, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    obs, _ = vec.reset(seed=seed)
    out.append(obs.copy())
    for _ in range(steps):
        a = random_actions(env_id, vec.num_envs, rng)
        if env_id not in CONTINUOUS_IDS:
            a = a.astype(np.int64)
        obs, rew, term, trunc, _ = vec.step(a)
        out.append((obs.copy(), rew.copy(), term.copy(), trunc.copy()))
    return out


def _flatten(outputs):
    for item in outputs:
        yield from (item if isinstance(item, tuple) else (item,))


@pytest.mark.parametrize(
    "env_id,context",
    [("CartPole-v1", "fork"), ("CartPole-v1", "spawn"), ("Pendulum-v1", "forkserver"),
     ("Acrobot-v1", "fork")],
)
def test_async_vector_env_equals_sync(env_id, context):
    if context not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {context} start method here")
    # "ccgym:..." makes gym.make import ccgym in a fresh (spawned) process.
    fns = [functools.partial(gym.make, f"ccgym:ccgym/{env_id}") for _ in range(3)]
    steps = 700 if reference_id(env_id).startswith("CartPole") else 300
    sync = SyncVectorEnv(fns)
    expected = _run_vector(sync, env_id, steps, seed=8)
    sync.close()
    asyn = AsyncVectorEnv(fns, context=context)
    try:
        got = _run_vector(asyn, env_id, steps, seed=8)
    finally:
        asyn.close()
    for u, v in zip(_flatten(expected), _flatten(got), strict=True):
        assert u.dtype == v.dtype and np.array_equal(u, v)


def test_async_vector_env_with_lambdas_after_threaded_steps():
    """env_fns are lambdas (cloudpickled by AsyncVectorEnv), and the parent
    has already run threaded C steps before forking its workers."""
    big = ccgym.make_vec("CartPole-v1", num_envs=8192, num_threads=2)
    big.reset(seed=0)
    big.step(np.ones(8192, dtype=np.int64))
    fns = [lambda: gym.make("ccgym/MountainCar-v0") for _ in range(2)]
    sync = SyncVectorEnv(fns)
    expected = _run_vector(sync, "MountainCar-v0", 250, seed=9)
    asyn = AsyncVectorEnv(fns, context="fork" if "fork" in
                          multiprocessing.get_all_start_methods() else None)
    try:
        got = _run_vector(asyn, "MountainCar-v0", 250, seed=9)
    finally:
        asyn.close()
        sync.close()
    for u, v in zip(_flatten(expected), _flatten(got), strict=True):
        assert np.array_equal(u, v)


def _threaded_child(conn):
    env = ccgym.make_vec("Acrobot-v1", num_envs=8192, num_threads=2)
    env.reset(seed=1)
    for _ in range(5):
        obs = env.step(np.ones(8192, dtype=np.int64))[0]
    conn.send(obs)
    conn.close()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork")
def test_threaded_steps_in_forked_child():
    """The C worker pool survives fork(): a child forked after the parent ran
    threaded steps runs its own threaded steps, with the serial result."""
    env = ccgym.make_vec("Acrobot-v1", num_envs=8192, num_threads=2)
    env.reset(seed=1)
    for _ in range(5):
        expected = env.step(np.ones(8192, dtype=np.int64))[0]
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_threaded_child, args=(child,))
    proc.start()
    assert parent.poll(120), "forked child did not answer (deadlock?)"
    got = parent.recv()
    proc.join(30)
    assert proc.exitcode == 0
    assert np.array_equal(got, expected)


def test_cloudpickle_env_fns_and_envs():
    fn = lambda: gym.make("ccgym/Pendulum-v1")  # noqa: E731
    fn2 = cloudpickle.loads(cloudpickle.dumps(fn))
    a, b = fn(), fn2()
    a.reset(seed=3)
    b.reset(seed=3)
    for u in np.linspace(-2, 2, 50, dtype=np.float32):
        ra, rb = a.step(np.array([u])), b.step(np.array([u]))
        assert np.array_equal(ra[0], rb[0]) and ra[1:4] == rb[1:4]
    c = cloudpickle.loads(cloudpickle.dumps(a))
    assert np.array_equal(c.step(np.array([0.5], np.float32))[0],
                          a.step(np.array([0.5], np.float32))[0])


def test_sb3_subproc_vec_env():
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [functools.partial(gym.make, "ccgym:ccgym/CartPole-v1") for _ in range(2)]
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, size=2) for _ in range(600)]
    results = []
    for cls in (DummyVecEnv, SubprocVecEnv):
        venv = cls(fns)
        venv.seed(17)
        out = [venv.reset()]
        for a in actions:
            obs, rew, done, infos = venv.step(a)
            out += [obs, rew, done]
            out += [i["terminal_observation"] for i in infos if "terminal_observation" in i]
        venv.close()
        results.append(out)
    assert sb3 is not None
    for u, v in zip(*results, strict=True):
        assert np.array_equal(u, v)


# ------------------------------------------------------- bad snapshots
def _bad_snapshots(snap: dict, other_kind: dict, other_size: dict):
    yield "not a dict", [1, 2], TypeError, "dict"
    yield "None", None, TypeError, "dict"
    yield "other kind", other_kind, ValueError, "is for"
    yield "other size", other_size, ValueError, "is for"
    for key in ("state_buffer", "rng_state", "elapsed", "pending_reset", "obs"):
        missing = dict(snap)
        del missing[key]
        yield f"missing {key}", missing, ValueError, "missing"
        wrong_dtype = dict(snap, **{key: snap[key].view(np.uint8) if key != "state_buffer" else snap[key].view(np.int8)})
        yield f"dtype {key}", wrong_dtype, ValueError, "dtype"
        wrong_shape = dict(snap, **{key: np.concatenate([snap[key], snap[key][:1]])})
        yield f"shape {key}", wrong_shape, ValueError, "shape"
        as_list = dict(snap, **{key: snap[key].tolist()})
        yield f"list {key}", as_list, ValueError, "must be an array"
    flat = dict(snap, obs=snap["obs"].reshape(-1))
    yield "flat obs", flat, ValueError, "shape"
    yield "kind None", dict(snap, kind=None), ValueError, "kind"
    yield "kind array", dict(snap, kind=np.array([snap["kind"]] * 2)), ValueError, "kind"
    yield "has_reset array", dict(snap, has_reset=np.ones(2)), TypeError, "has_reset"
    yield "has_reset str", dict(snap, has_reset="yes"), TypeError, "has_reset"
    yield "num_envs str", dict(snap, num_envs="4"), ValueError, "num_envs"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_set_state_rejects_bad_snapshots_and_leaves_env_untouched(env_id):
    n = 4
    env = make_vec(env_id, n)
    env.reset(seed=0)
    env.step(random_actions(env_id, n, np.random.default_rng(0)))
    snap = env.get_state()
    other_id = "Acrobot-v1" if not env_id.startswith("Acrobot") else "CartPole-v1"
    other_kind = make_vec(other_id, n).get_state()
    other_size = make_vec(env_id, n + 1).get_state()
    env.reset(seed=1)
    before = env.get_state()
    for label, bad, exc, match in _bad_snapshots(snap, other_kind, other_size):
        with pytest.raises(exc, match=match):
            env.set_state(bad)
        assert_same_state(env.get_state(), before), label
    # The single env of the same id refuses a 4-instance snapshot.
    single = getattr(ccgym.envs, ccgym.ENV_SPECS[env_id][0])()
    with pytest.raises(ValueError, match="is for"):
        single.set_state(snap)


@pytest.mark.parametrize("precision", ["exact", "fast"])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_restored_older_episodes_truncate_on_time(precision, num_threads):
    """The C step skips the time-limit test while no episode can be old
    enough (start_bound); a snapshot with older episodes than the env has
    seen must bring the test back at once. Here a long-running env (its
    episodes all young) takes a snapshot whose episodes are max - 1, max - 2,
    ... steps old: each must truncate exactly when it reaches max."""
    n, limit = 4096 + 3, 50
    kw = dict(max_episode_steps=limit, num_threads=num_threads, precision=precision)
    old = make_vec("Pendulum-v1", n, **kw)
    old.reset(seed=0)
    zeros = np.zeros((n, 1), dtype=np.float32)
    snap = old.get_state()
    snap["elapsed"] = (limit - 1 - np.arange(n) % 7).astype(np.int64)
    young = make_vec("Pendulum-v1", n, **kw)
    young.reset(seed=1)
    for _ in range(3 * limit + 5):  # many steps: its clock runs far ahead of old's
        young.step(zeros)
    young.reset(seed=2)  # every episode fresh: none can truncate for limit - 1 steps
    young.set_state(snap)
    assert np.array_equal(young.elapsed_steps, snap["elapsed"])
    for k in range(1, 8):
        _, _, _, trunc, _ = young.step(zeros)
        expected = (np.arange(n) % 7 == k - 1)  # elapsed reaches limit at step k
        assert np.array_equal(trunc, expected), k
        # The truncated ones await their reset (NEXT_STEP) on the next step.
        assert np.array_equal(young._core.pending_reset, expected), k
    # Phase j truncated at step j + 1 and was reset at step j + 2 (elapsed 0
    # there); phase 6 truncated at step 7 and holds its final count.
    j = np.arange(n) % 7
    assert np.array_equal(young.elapsed_steps, np.where(j < 6, 7 - (j + 2), limit))


def test_set_state_accepts_non_contiguous_and_read_only_arrays():
    env = make_vec("Acrobot-v1", 6)
    env.reset(seed=0)
    env.step(np.ones(6, dtype=np.int64))
    snap = env.get_state()
    odd = {}
    for k, v in snap.items():
        if isinstance(v, np.ndarray):
            doubled = np.repeat(v, 2, axis=0)[::2]  # a strided view, same values
            assert not doubled.flags.c_contiguous or v.ndim == 0
            doubled.flags.writeable = False
            odd[k] = doubled
        else:
            odd[k] = v
    env.reset(seed=5)
    env.set_state(odd)
    assert_same_state(env.get_state(), snap)


def test_set_state_on_closed_env_restores():
    # close() leaves the vector env usable (as Gymnasium's): snapshots too.
    env = make_vec("MountainCar-v0", 2)
    env.reset(seed=0)
    snap = env.get_state()
    env.step(np.ones(2, np.int64))
    env.close()
    env.set_state(snap)
    assert_same_state(env.get_state(), snap)


def _tag_fields(env_id: str) -> dict[str, tuple[int, ...]]:
    from ccgym import _core, _kinds

    # The def's CCGYM_STATE_TAG fields (src/<env>.c), not a Python copy.
    return _core.env_info(_kinds.env_class(env_id).kind).state_tags


@pytest.mark.parametrize("env_id", [i for i in ENV_IDS if _tag_fields(i)])
def test_set_state_refuses_impossible_type_tags_whole(env_id):
    """A snapshot whose C state holds a type tag no step makes is refused
    by set_state with a ValueError naming the field, and the env is left as
    it was (its state reads, and it steps as a copy that never saw the
    snapshot); before, set_state took it and a later ``state`` read raised
    a bare KeyError."""
    env = gym.make(f"ccgym/{env_id}").unwrapped
    env.reset(seed=3)
    for a in random_actions(env_id, 3, np.random.default_rng(0)):
        env.step(a if env_id in CONTINUOUS_IDS else int(a))
    twin = copy.deepcopy(env)
    good = env.get_state()
    for name, allowed in _tag_fields(env_id).items():
        for bad in (max(allowed) + 1, -1, 2 ** 40):
            snap = dict(good)
            buf = np.array(good["state_buffer"])
            buf.view(env._state_dtype)[0][name] = bad
            snap["state_buffer"] = buf
            with pytest.raises(ValueError, match=name):
                env.set_state(snap)
            assert repr(env.state) == repr(twin.state)
            assert env.get_state()["state_buffer"].tobytes() == good["state_buffer"].tobytes()
    for a in random_actions(env_id, 10, np.random.default_rng(1)):
        a = a if env_id in CONTINUOUS_IDS else int(a)
        got, want = env.step(a), twin.step(a)
        assert got[0].tobytes() == want[0].tobytes() and got[1:4] == want[1:4]


@pytest.mark.parametrize("env_id", [i for i in ENV_IDS if _tag_fields(i)])
def test_vector_set_state_refuses_impossible_type_tags_whole(env_id):
    """The vector env's set_state goes through the same whole-snapshot check
    as the single env's (the core's, over the def's CCGYM_STATE_TAG
    fields): a snapshot with an impossible tag in any instance is refused
    with a ValueError naming the field and the instance, and the env is left
    exactly as it was (same snapshot, and it steps as a twin)."""
    env, twin = make_vec(env_id, 5), make_vec(env_id, 5)
    env.reset(seed=7)
    twin.reset(seed=7)
    rng = np.random.default_rng(2)
    for a in [random_actions(env_id, 5, rng) for _ in range(4)]:
        env.step(a)
        twin.step(a)
    good = env.get_state()
    for name, allowed in _tag_fields(env_id).items():
        for inst in (0, 3):
            for bad in (max(allowed) + 1, -1, 2 ** 40):
                snap = dict(good)
                buf = np.array(good["state_buffer"])
                buf.view(_core_state_dtype(env_id))[inst][name] = bad
                snap["state_buffer"] = buf
                with pytest.raises(ValueError, match=rf"instance {inst}'s .*{name}"):
                    env.set_state(snap)
                assert_same_state(env.get_state(), good)
    actions = [random_actions(env_id, 5, rng) for _ in range(20)]
    assert_same_outputs(roll(env, actions), roll(twin, actions))

def _core_state_dtype(env_id: str) -> np.dtype:
    from ccgym import _core, _kinds

    return _core.env_info(_kinds.env_class(env_id).kind).state_dtype
