"""API of ccgym's native vector env: spaces and metadata as SyncVectorEnv
builds them, thread-count independence, fork safety, buffer ownership,
episode statistics as Gymnasium's RecordEpisodeStatistics, and bad input
(every case a clear Python exception, never a crash or a silent wrong result)."""

from __future__ import annotations

import copy
import multiprocessing
import re
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import ccgym
from ccgym.vector import VectorEnv
from vector_helpers import assert_same, bits, deprecation_ctx
from array_helpers import set_shape
from reference import reference_id

IDS = ccgym.ENV_IDS
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


# ----------------------------------------------------------------- helpers
def make_ref(env_id, n, mode=AutoresetMode.NEXT_STEP, **kwargs):
    with deprecation_ctx(env_id):
        return gym.make_vec(reference_id(env_id), num_envs=n, vectorization_mode="sync",
                            vector_kwargs={"autoreset_mode": mode}, **kwargs)


def assert_results_equal(a, b, where=""):
    """Two step() (or reset()) results are the same, bit for bit."""
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b)):
        assert_same(x, y, f"{where} item {k}")


def sample_actions(env, seed, steps, out_of_bounds=True):
    """`steps` action batches from the seeded batched action space
    (continuous ones partly out of bounds)."""
    space = env.action_space
    space.seed(seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        a = space.sample()
        if out_of_bounds and isinstance(env.single_action_space, gym.spaces.Box):
            hi = env.single_action_space.high.max()
            wild = rng.uniform(-3 * hi, 3 * hi, a.shape).astype(np.float32)
            a = np.where(rng.random(a.shape) < 0.2, wild, a).astype(np.float32)
        out.append(a)
    return out


def assert_space_equal(ours, ref):
    assert type(ours) is type(ref)
    assert ours == ref
    if isinstance(ref, gym.spaces.Box):
        assert bits(ours.low) == bits(ref.low)
        assert bits(ours.high) == bits(ref.high)
    elif isinstance(ref, gym.spaces.Discrete):
        assert (int(ours.n), int(ours.start)) == (int(ref.n), int(ref.start))
    elif isinstance(ref, gym.spaces.MultiDiscrete):
        assert bits(ours.nvec) == bits(ref.nvec)
        assert bits(ours.start) == bits(ref.start)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape


# ------------------------------------------------------- spaces and metadata
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", IDS)
def test_spaces_and_metadata_match_sync_vector_env(env_id, mode, render_mode):
    n = 5
    ref = make_ref(env_id, n, mode, render_mode=render_mode)
    with deprecation_ctx(env_id):
        via_gym = gym.make_vec(f"ccgym/{env_id}", num_envs=n, autoreset_mode=mode,
                               render_mode=render_mode)
    via_ccgym = ccgym.make_vec(env_id, num_envs=n, autoreset_mode=mode.value,
                               render_mode=render_mode)
    for ours in (via_gym, via_ccgym):
        assert isinstance(ours, VectorEnv)
        assert isinstance(ours, gym.vector.VectorEnv)
        for name in ("observation_space", "action_space", "single_observation_space",
                     "single_action_space"):
            assert_space_equal(getattr(ours, name), getattr(ref, name))
        # The vector env draws rgb_array frames only (as Gymnasium's own
        # CartPoleVectorEnv declares); SyncVectorEnv copies its sub-envs' list.
        assert ours.metadata["render_modes"] == ["rgb_array"]
        assert {k: v for k, v in ours.metadata.items() if k != "render_modes"} == {
            k: v for k, v in ref.metadata.items() if k != "render_modes"}
        assert ours.metadata["autoreset_mode"] is mode
        assert isinstance(ours.metadata["autoreset_mode"], AutoresetMode)
        assert ours.num_envs == ref.num_envs == n
        assert ours.render_mode == ref.render_mode == render_mode
        assert ours.unwrapped is ours
        ours.close()
    assert via_gym.spec is not None and via_gym.spec.id == f"ccgym/{env_id}"
    ref.close()


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_autoreset_mode_given_as_string(mode):
    env = ccgym.make_vec("CartPole-v1", 3, autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] is AutoresetMode(mode)
    assert env.autoreset_mode is AutoresetMode(mode)


def test_default_autoreset_mode_is_next_step():
    assert ccgym.make_vec("Acrobot-v1", 2).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    env = gym.make_vec("ccgym/Acrobot-v1", num_envs=2)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.max_episode_steps == 500


# ----------------------------------------------------------- thread counts
THREAD_N = 20000
THREAD_STEPS = 300
THREAD_BUFFERS = ("obs", "reward", "terminated", "truncated", "final_obs", "final_return",
                  "final_length", "episode_return", "episode_length", "elapsed",
                  "pending_reset", "rng_state", "state_buffer")

THREAD_CASES = [(env_id, AutoresetMode.SAME_STEP) for env_id in IDS] + [
    ("CartPole-v1", AutoresetMode.NEXT_STEP), ("CartPole-v1", AutoresetMode.DISABLED),
    ("Pendulum-v1", AutoresetMode.NEXT_STEP), ("Acrobot-v1", AutoresetMode.DISABLED),
]


@pytest.mark.parametrize(("env_id", "mode"), THREAD_CASES,
                         ids=[f"{i}-{m.value}" for i, m in THREAD_CASES])
def test_num_threads_give_identical_results(env_id, mode):
    """1, 2 and 3 threads (chunks of unequal size) write the same bits into
    every buffer, through autoresets, masked resets and reseeding."""
    # A short time limit so every env autoresets within the run.
    envs = [ccgym.make_vec(env_id, THREAD_N, num_threads=t, autoreset_mode=mode,
                           max_episode_steps=97, episode_statistics=True)
            for t in (1, 2, 3)]
    assert [e.num_threads for e in envs] == [1, 2, 3]
    actions = sample_actions(envs[0], 0, THREAD_STEPS)
    mask = np.random.default_rng(1).random(THREAD_N) < 0.3

    def compare(results, where):
        # Episode wall times ("t") legitimately differ between the envs.
        results = [(*r[:-1], _without_time(r[-1])) for r in results]
        for r in results[1:]:
            assert_results_equal(r, results[0], where)
        for name in THREAD_BUFFERS:
            first = bits(getattr(envs[0]._core, name))
            for e in envs[1:]:
                assert bits(getattr(e._core, name)) == first, f"{where}: buffer {name}"

    compare([e.reset(seed=123) for e in envs], "reset")
    ends = 0
    for t, a in enumerate(actions):
        if t == 150:
            compare([e.reset(seed=7, options={"reset_mask": mask}) for e in envs], "masked")
        results = [e.step(a) for e in envs]
        compare(results, f"step {t}")
        done = results[0][2] | results[0][3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            compare([e.reset(options={"reset_mask": done}) for e in envs], f"reset {t}")
    assert ends > THREAD_N
    assert list(envs[1].return_queue) == list(envs[0].return_queue)
    for e in envs:
        e.close()


def _fork_child(env, actions, conn):
    try:
        out = [env.step(a)[:4] for a in actions]
        # A fresh threaded env in the child must work too.
        fresh = ccgym.make_vec("CartPole-v1", THREAD_N, num_threads=2)
        fresh.reset(seed=5)
        fresh_out = fresh.step(np.ones(THREAD_N, dtype=np.int64))[:4]
        conn.send(("ok", out, fresh_out))
    except BaseException as e:  # report, never hang the parent
        conn.send(("error", repr(e), None))
    finally:
        conn.close()


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork()")
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_fork_after_threaded_steps(env_id):
    """Threads are joined inside each call, so a forked child can keep
    stepping (threaded) without hanging, and gets the parent's results."""
    env = ccgym.make_vec(env_id, THREAD_N, num_threads=2, max_episode_steps=50)
    env.reset(seed=3)
    actions = sample_actions(env, 3, 80)
    for a in actions[:20]:
        env.step(a)
    ctx = multiprocessing.get_context("fork")
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_fork_child, args=(env, actions[20:], child_conn))
    proc.start()
    child_conn.close()
    try:
        if not parent_conn.poll(120):
            pytest.fail("the forked child did not answer within 120 s (hung?)")
        status, child_out, fresh_out = parent_conn.recv()
    finally:
        proc.join(30)
        if proc.is_alive():
            proc.kill()
            proc.join()
    assert status == "ok", child_out
    assert proc.exitcode == 0
    for t, a in enumerate(actions[20:]):
        assert_results_equal(child_out[t], env.step(a)[:4], f"step {t}")
    fresh = ccgym.make_vec("CartPole-v1", THREAD_N, num_threads=2)
    fresh.reset(seed=5)
    assert_results_equal(fresh_out, fresh.step(np.ones(THREAD_N, dtype=np.int64))[:4])


# -------------------------------------------------------- buffer ownership
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_copy_true_returns_fresh_arrays(env_id, mode):
    env = ccgym.make_vec(env_id, 16, autoreset_mode=mode)
    twin = ccgym.make_vec(env_id, 16, autoreset_mode=mode)
    assert env.copy is True
    prev, _ = env.reset(seed=9)
    twin.reset(seed=9)
    kept = []
    for t, a in enumerate(sample_actions(env, 9, 300)):
        snapshot = prev.copy()
        out = env.step(a)
        expected = twin.step(a)
        obs = out[0]
        # The previous observation is untouched and shares nothing with the new one.
        assert bits(prev) == bits(snapshot), f"step {t}: previous obs overwritten"
        for x in out[:4]:
            assert x.flags.writeable and not x.flags.owndata  # a view of memory the core owns: .resize raises
            for y in kept[-4:]:
                assert not np.shares_memory(x, y)
        kept.extend(out[:4])
        assert_results_equal(out, expected, f"step {t}")
        # Scribbling over returned arrays does not reach the env.
        for x in out[:4]:
            x[...] = 1
        done = expected[2] | expected[3]
        if mode is AutoresetMode.DISABLED and done.any():
            prev, _ = env.reset(options={"reset_mask": done})
            twin.reset(options={"reset_mask": done})
        else:
            prev = obs


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_copy_true_reuses_only_released_arrays(mode):
    """copy=True may hand out again a set of output arrays of an earlier step,
    but only once nothing refers to them: an array still held (for one step,
    or for good), or a view of one, keeps its values; an array frozen or reshaped in place by its holder
    is never handed out again; and arrays are reused (no allocation per step)
    when the caller keeps nothing."""
    env = ccgym.make_vec("CartPole-v1", 16, autoreset_mode=mode, max_episode_steps=30)
    twin = ccgym.make_vec("CartPole-v1", 16, autoreset_mode=mode, max_episode_steps=30)
    env.reset(seed=4)
    twin.reset(seed=4)
    held, seen, reused, last = [], set(), 0, None
    for t, a in enumerate(sample_actions(env, 4, 400)):
        out = env.step(a)
        expected = twin.step(a)
        assert_results_equal(out, expected, f"step {t}")
        if last is not None:  # kept over one step, as `obs` is in a training loop
            assert bits(last[0]) == bits(last[1]), f"step {t}: the previous obs was written"
        last = (out[0], out[0].copy()) if t % 2 else None
        for x, n_dim in zip(out[:4], (2, 1, 1, 1)):
            assert x.flags.writeable and not x.flags.owndata and x.ndim == n_dim, f"step {t}"
        address = out[0].__array_interface__["data"][0]
        reused += address in seen
        seen.add(address)
        kind = t % 6
        if kind == 1:  # keep an array
            held.append((out[0], out[0].copy()))
        elif kind == 2:  # keep only a view of one
            held.append((out[1][3:], out[1][3:].copy()))
        elif kind == 3:  # freeze one, then let go of it
            out[2].flags.writeable = False
        elif kind == 4:  # reshape one in place, then let go of it
            set_shape(out[0], (-1,))
        for x, snapshot in held:
            assert bits(x) == bits(snapshot), f"step {t}: a held array was written"
        done = expected[2] | expected[3]
        if mode is AutoresetMode.DISABLED and done.any():
            env.reset(options={"reset_mask": done})
            twin.reset(options={"reset_mask": done})
        del out, x
    assert reused > 50


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCarContinuous-v0"])
def test_copy_false_returns_internal_buffers(env_id, mode):
    env = ccgym.make_vec(env_id, 16, autoreset_mode=mode, copy=False, max_episode_steps=60)
    twin = ccgym.make_vec(env_id, 16, autoreset_mode=mode, copy=True, max_episode_steps=60)
    assert env.copy is False
    obs0, _ = env.reset(seed=2)
    assert bits(obs0) == bits(twin.reset(seed=2)[0])
    first = None
    finals = []
    for t, a in enumerate(sample_actions(env, 2, 200)):
        out = env.step(a)
        expected = twin.step(a)
        assert_results_equal(out, expected, f"step {t}")
        if first is None:
            first = out
            assert out[0] is obs0 or np.shares_memory(out[0], obs0)
        else:
            # The same buffers every step, overwritten in place (documented).
            for x, y in zip(out[:4], first[:4]):
                assert np.shares_memory(x, y)
            assert bits(first[0]) == bits(expected[0])
        done = expected[2] | expected[3]
        if "final_obs" in out[4]:
            finals.append((out[4]["final_obs"], copy.deepcopy(out[4]["final_obs"])))
        if mode is AutoresetMode.DISABLED and done.any():
            o, _ = env.reset(options={"reset_mask": done})
            assert np.shares_memory(o, obs0)
            assert bits(o) == bits(twin.reset(options={"reset_mask": done})[0])
    # SAME_STEP final observations are the caller's even with copy=False.
    assert (len(finals) > 0) == (mode is AutoresetMode.SAME_STEP)
    for got, snapshot in finals:
        assert_same(got, snapshot, "final_obs changed by later steps")
        for x in (x for x in got if x is not None):
            assert not np.shares_memory(x, env._core.final_obs)
            assert not np.shares_memory(x, env._core.obs)


# ------------------------------------------------------ episode statistics
STATS_CASES = [(i, m) for i in IDS for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)]


def _without_time(infos):
    infos = dict(infos)
    if "episode" in infos:
        ep = dict(infos["episode"])
        t = ep.pop("t")
        assert t.dtype == np.float64 and t.shape == infos["_episode"].shape
        assert np.all(t >= 0) and np.all(t[~infos["_episode"]] == 0)
        infos["episode"] = ep
    return infos


@pytest.mark.parametrize(("env_id", "mode"), STATS_CASES,
                         ids=[f"{i}-{m.value}" for i, m in STATS_CASES])
def test_episode_statistics_match_record_episode_statistics(env_id, mode):
    n = 16
    ref = RecordEpisodeStatistics(make_ref(env_id, n, mode, max_episode_steps=150),
                                  buffer_length=50)
    ours = ccgym.make_vec(env_id, n, autoreset_mode=mode, max_episode_steps=150,
                          episode_statistics=True, stats_buffer_length=50)
    # Gymnasium's wrapper over ccgym's vector env gives the same too.
    wrapped = RecordEpisodeStatistics(
        ccgym.make_vec(env_id, n, autoreset_mode=mode, max_episode_steps=150),
        buffer_length=50)
    for e in (ref, ours, wrapped):
        e.reset(seed=31)
    seen = 0
    for t, a in enumerate(sample_actions(ref, 31, 1000)):
        if t == 500:
            for e in (ref, ours, wrapped):
                e.reset(seed=77)
        r = ref.step(a)
        o = ours.step(a)
        w = wrapped.step(a)
        assert_results_equal(o[:4], r[:4], f"step {t}")
        assert_same(_without_time(o[4]), _without_time(r[4]), f"step {t} infos")
        assert_same(_without_time(w[4]), _without_time(r[4]), f"step {t} wrapped infos")
        seen += "episode" in r[4]
    assert seen > 0
    assert ref.episode_count > 50
    for e in (ours, wrapped):
        assert e.episode_count == ref.episode_count
        assert len(e.return_queue) == len(ref.return_queue) == 50
        assert bits(np.array(e.return_queue, dtype=np.float64)) == \
            bits(np.array(ref.return_queue, dtype=np.float64))
        assert list(e.length_queue) == list(ref.length_queue)
        assert len(e.time_queue) == 50


@pytest.mark.filterwarnings("ignore::UserWarning")  # the passive checker on NaN obs/rewards
@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0"])
def test_nan_rewards_sum_as_record_episode_statistics(env_id):
    """A NaN reward (a NaN action) enters the episode return with its sign
    bit as numpy's ``episode_returns += rewards`` keeps it, on every step:
    the driver's loop copies with and without the time-limit test once
    differed (the compiler folded ``ret + -cost`` into ``ret - cost``)."""
    n = 3
    ref = RecordEpisodeStatistics(make_ref(env_id, n, max_episode_steps=5))
    ours = ccgym.make_vec(env_id, n, max_episode_steps=5, episode_statistics=True)
    for e in (ref, ours):
        e.reset(seed=4)
    rng = np.random.default_rng(4)
    nan_steps = 0
    for t in range(40):
        a = rng.uniform(-1.5, 1.5, (n, 1)).astype(np.float32)
        if t % 3 != 2:
            a[rng.integers(n)] = np.float32(np.nan) * (1 if t % 2 else -1)
        r = ref.step(a.copy())
        o = ours.step(a.copy())
        assert_results_equal(o[:4], r[:4], f"step {t}")
        assert_same(_without_time(o[4]), _without_time(r[4]), f"step {t} infos")
        assert bits(ours.episode_returns) == bits(ref.episode_returns), f"step {t}"
        nan_steps += bool(np.isnan(r[1]).any() and not (r[2] | r[3]).any())
    assert nan_steps > 5  # NaN returns on steps that end no episode as well


def test_episode_statistics_off_adds_no_keys():
    env = ccgym.make_vec("CartPole-v1", 8)
    env.reset(seed=0)
    for a in sample_actions(env, 0, 200):
        assert env.step(a)[4] == {}


# --------------------------------------------------------------- bad input
def _twins(env_id="CartPole-v1", n=4, **kw):
    a = ccgym.make_vec(env_id, n, **kw)
    b = ccgym.make_vec(env_id, n, **kw)
    a.reset(seed=12)
    b.reset(seed=12)
    return a, b


def _assert_untouched(env, twin, steps=30):
    """After a rejected call the env behaves exactly like its untouched twin."""
    for t, a in enumerate(sample_actions(twin, 40, steps)):
        assert_results_equal(env.step(a), twin.step(a), f"step {t} after a rejected call")


N4 = 4
# (id, actions as a function of the number of discrete actions k, exception, message)
BAD_DISCRETE = [
    ("shape (N,1)", lambda k: np.zeros((N4, 1), np.int64), ValueError,
     r"expected actions of shape \(4,\)"),
    ("too long", lambda k: np.zeros(N4 + 1, np.int64), ValueError, "expected actions of shape"),
    ("too short", lambda k: np.zeros(N4 - 1, np.int64), ValueError, "expected actions of shape"),
    ("scalar", lambda k: np.int64(0), ValueError, "expected actions of shape"),
    ("python int", lambda k: 1, ValueError, "expected actions of shape"),
    ("empty", lambda k: np.zeros(0, np.int64), ValueError, "expected actions of shape"),
    ("float", lambda k: np.zeros(N4, np.float32), TypeError, "discrete actions must be integers"),
    ("float list", lambda k: [0.0, 1.0, 0.0, 1.0], TypeError,
     "discrete actions must be integers"),
    ("nan", lambda k: np.full(N4, np.nan), TypeError, "discrete actions must be integers"),
    # Gymnasium's Discrete.contains rejects np.bool_ actions (SyncVectorEnv asserts).
    ("bool", lambda k: np.zeros(N4, bool), TypeError, "discrete actions must be integers"),
    ("string", lambda k: np.array(["0", "1", "0", "1"]), TypeError,
     "discrete actions must be integers"),
    ("object", lambda k: np.array([0, 1, 0, None], dtype=object), TypeError,
     "discrete actions must be integers"),
    ("None", lambda k: None, TypeError, "discrete actions must be integers"),
    ("ragged", lambda k: [[0, 1], [0]], TypeError, "actions must be an array of integers"),
    ("too large", lambda k: np.array([0, 1, k, 0]), ValueError,
     r"action {k} at index 2 is outside the action space Discrete\({k}\)"),
    ("negative", lambda k: np.array([0, -1, 0, 0]), ValueError,
     r"action -1 at index 1 is outside the action space Discrete\({k}\)"),
    ("int64 min", lambda k: np.array([0, 0, 0, np.iinfo(np.int64).min]), ValueError,
     "at index 3 is outside the action space"),
    ("list too large", lambda k: [0, 1, 5, 0], ValueError, "action 5 at index 2"),
    ("int8 negative", lambda k: np.array([0, 0, -1, 0], np.int8), ValueError,
     "action -1 at index 2"),
    ("uint64 max", lambda k: np.full(N4, 2**64 - 1, np.uint64), ValueError, "out of range"),
    ("uint64 2**63", lambda k: np.array([0, 2**63, 0, 0], np.uint64), ValueError, "out of range"),
    ("uint64 k", lambda k: np.array([0, k, 0, 0], np.uint64), ValueError,
     "outside the action space"),
    ("huge python int", lambda k: [0, 2**70, 0, 0], TypeError,
     "discrete actions must be integers"),
    ("strided too large", lambda k: np.array([0, 0, 1, 0, 9, 0, 0, 0])[::2], ValueError,
     "action 9 at index 2"),
]


@pytest.mark.parametrize(("make_actions", "exc", "match"), [c[1:] for c in BAD_DISCRETE],
                         ids=[c[0] for c in BAD_DISCRETE])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1", "MountainCar-v0"])
def test_bad_discrete_actions(env_id, make_actions, exc, match):
    env, twin = _twins(env_id, N4)
    k = int(env.single_action_space.n)
    with pytest.raises(exc, match=match.replace("{k}", str(k))):
        env.step(make_actions(k))
    _assert_untouched(env, twin)


BAD_CONTINUOUS = [
    ("shape (N,2)", np.zeros((N4, 2), np.float32), ValueError,
     r"expected actions of shape \(4, 1\)"),
    ("too long", np.zeros((N4 + 1, 1), np.float32), ValueError, "expected actions of shape"),
    ("too short flat", np.zeros(N4 - 1, np.float32), ValueError, "expected actions of shape"),
    ("3-d", np.zeros((N4, 1, 1), np.float32), ValueError, "expected actions of shape"),
    ("transposed (1,N)", np.zeros((1, N4), np.float32), ValueError, "expected actions of shape"),
    ("shape (N,0)", np.zeros((N4, 0), np.float32), ValueError, "expected actions of shape"),
    ("scalar", np.float32(0), ValueError, "expected actions of shape"),
    ("string", np.array([["0"]] * N4), TypeError, "continuous actions must be real numbers"),
    ("complex", np.zeros((N4, 1), np.complex64), TypeError,
     "continuous actions must be real numbers"),
    # bool batches are valid: Gymnasium computes them as float64 (tests/test_action_dtypes.py).
    *([("longdouble", np.zeros((N4, 1), np.longdouble), TypeError, "not supported")]
      if np.dtype(np.longdouble).itemsize > 8 else []),
    ("object", np.array([[0.0]] * 3 + [[None]], dtype=object), TypeError,
     "continuous actions must be real numbers"),
    ("None", None, TypeError, "continuous actions must be real numbers"),
    ("ragged", [[0.0], [0.0, 1.0], [0.0], [0.0]], TypeError, "actions must be an array of floats"),
]


@pytest.mark.parametrize(("actions", "exc", "match"), [c[1:] for c in BAD_CONTINUOUS],
                         ids=[c[0] for c in BAD_CONTINUOUS])
@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0"])
def test_bad_continuous_actions(env_id, actions, exc, match):
    env, twin = _twins(env_id, N4)
    with pytest.raises(exc, match=match):
        env.step(actions)
    _assert_untouched(env, twin)


def _discrete_variants(a):
    """Valid encodings of the int64 action batch `a` that are not a plain
    contiguous writeable int64 array."""
    strided = np.zeros(2 * len(a), np.int64)
    strided[::2] = a
    ro = a.copy()
    ro.setflags(write=False)
    rev = a[::-1].copy()[::-1]
    col = np.zeros((len(a), 3), np.int64)
    col[:, 1] = a
    return {
        "strided": strided[::2], "read-only": ro, "negative stride": rev,
        "column of 2-d": col[:, 1], "int32": a.astype(np.int32), "uint8": a.astype(np.uint8),
        "uint64": a.astype(np.uint64), "int16 strided": strided.astype(np.int16)[::2],
        "list": a.tolist(), "tuple": tuple(a.tolist()),
    }


def _continuous_variants(a):
    wide = np.zeros((len(a), 3), np.float32)
    wide[:, 1:2] = a
    ro = a.copy()
    ro.setflags(write=False)
    fortran = np.asfortranarray(np.repeat(a, 2, axis=1))[:, :1]
    return {
        "column of 2-d": wide[:, 1:2], "read-only": ro, "negative stride": a[::-1].copy()[::-1],
        "fortran slice": fortran, "strided rows": np.repeat(a, 2, axis=0)[::2],
        "flat (N,)": a[:, 0].copy(), "flat strided": wide[:, 1],
        # A list of float32 rows (a list of Python floats computes as Gymnasium
        # computes Python floats: tests/test_action_dtypes.py).
        "list": list(a),
    }


@pytest.mark.parametrize("env_id", IDS)
def test_non_contiguous_and_read_only_actions_are_valid(env_id):
    """Each valid encoding of an action batch gives the results of the plain
    contiguous array, bit for bit."""
    n = 33
    base = ccgym.make_vec(env_id, n, autoreset_mode="SameStep", max_episode_steps=40)
    actions = sample_actions(base, 6, 120)
    variants = _variants(env_id, base, actions[0])
    envs = {k: ccgym.make_vec(env_id, n, autoreset_mode="SameStep", max_episode_steps=40)
            for k in variants}
    base.reset(seed=6)
    for e in envs.values():
        e.reset(seed=6)
    for t, a in enumerate(actions):
        expected = base.step(a)
        for name, v in _variants(env_id, base, a).items():
            assert_results_equal(envs[name].step(v), expected, f"{name} step {t}")


def _variants(env_id, base, a):
    if base.single_action_space.shape:
        return _continuous_variants(a)
    variants = _discrete_variants(a)
    if env_id == "MountainCar-v0":
        # Gymnasium's MountainCar computes action - 1 in the action's dtype: an
        # unsigned 0 wraps around, which ccgym refuses (tests/test_action_dtypes.py).
        variants = {k: v for k, v in variants.items() if not k.startswith("uint")}
    return variants


def test_float64_actions_match_gymnasium():
    """Gymnasium steps float64 actions in float64; so does ccgym (every other
    dtype: tests/test_action_dtypes.py)."""
    ref = make_ref("Pendulum-v1", 4)
    ours = ccgym.make_vec("Pendulum-v1", 4)
    ref.reset(seed=1)
    ours.reset(seed=1)
    a = np.array([[0.82177012], [-1.38127972], [-2.75415886], [1.87962144]])
    got = ours.step(a)
    assert_results_equal(got[:4], ref.step(a)[:4])


def test_step_before_reset():
    env = ccgym.make_vec("CartPole-v1", 3)
    with pytest.raises(gym.error.ResetNeeded, match="before calling reset"):
        env.step(np.zeros(3, np.int64))
    env.reset(seed=0)
    env.step(np.zeros(3, np.int64))


def test_disabled_mode_requires_resetting_done_envs():
    n = 6
    env = ccgym.make_vec("CartPole-v1", n, autoreset_mode="Disabled", max_episode_steps=5)
    twin = ccgym.make_vec("CartPole-v1", n, autoreset_mode="Disabled", max_episode_steps=5)
    env.reset(seed=0)
    twin.reset(seed=0)
    acts = np.zeros(n, np.int64)
    for _ in range(5):
        out = env.step(acts)
        twin.step(acts)
    done = out[2] | out[3]
    assert done.all()
    with pytest.raises(RuntimeError, match="autoreset is disabled"):
        env.step(acts)
    # Resetting only some of them is not enough.
    partial = done.copy()
    partial[0] = False
    env.reset(options={"reset_mask": partial})
    twin.reset(options={"reset_mask": partial})
    with pytest.raises(RuntimeError, match=r"instances \[0\] are done"):
        env.step(acts)
    first = np.zeros(n, bool)
    first[0] = True
    assert_results_equal(env.reset(options={"reset_mask": first}),
                         twin.reset(options={"reset_mask": first}))
    _assert_untouched(env, twin, 3)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_use_after_close(env_id):
    """As Gymnasium's make_vec envs (CartPoleVectorEnv for CartPole,
    SyncVectorEnv for Pendulum), close() releases rendering resources only:
    reset, step and render keep working, with the same results, and closing
    twice is fine. ``closed`` is True as SyncVectorEnv's (the base
    VectorEnv.close sets it; CartPoleVectorEnv overrides close and leaves it
    False)."""
    pytest.importorskip("pygame", reason="the Gymnasium reference renders its frames with "
                        'pygame (pip install "ccgym[render]")')
    with deprecation_ctx(env_id):
        stock = gym.make_vec(reference_id(env_id), num_envs=3, render_mode="rgb_array")
    # The results are compared with SyncVectorEnv's (CartPoleVectorEnv seeds
    # one generator for the batch: see test_vector_parity.py).
    ref = make_ref(env_id, 3, render_mode="rgb_array")
    ours = ccgym.make_vec(env_id, 3, render_mode="rgb_array")
    acts = sample_actions(ref, 0, 30)
    for env in (ours, ref, stock):
        env.reset(seed=0)
        env.step(acts[0])
        env.close()
        env.close()  # closing twice is fine
    assert ours.closed and ref.closed
    assert stock.closed is (env_id != "CartPole-v1")
    assert_results_equal(ours.reset(seed=5), ref.reset(seed=5), "reset after close")
    stock.reset(seed=5)
    for t, a in enumerate(acts):
        assert_results_equal(ours.step(a), ref.step(a), f"step {t} after close")
        assert len(stock.step(a)[1]) == 3  # Gymnasium's stock env is usable too
    assert len(ours.render()) == len(ref.render()) == len(stock.render()) == 3
    for env in (ours, ref, stock):
        env.close()
    assert_results_equal(ours.reset(options={"reset_mask": np.ones(3, bool)}),
                         ref.reset(options={"reset_mask": np.ones(3, bool)}))
    # Never reset, closed: stepping is the error of a step before reset.
    never_reset = ccgym.make_vec(env_id, 3)
    never_reset.close()
    with pytest.raises(gym.error.ResetNeeded):
        never_reset.step(acts[0])
    assert_results_equal(never_reset.reset(seed=1), ref.reset(seed=1))


def test_vector_wrappers_after_close():
    """Gymnasium's vector wrappers over a closed env keep working, as over
    Gymnasium's own: the same episode statistics and normalised observations."""
    from gymnasium.wrappers.vector import NormalizeObservation

    made = []
    for env in (ccgym.make_vec("Pendulum-v1", 3), make_ref("Pendulum-v1", 3)):
        made.append(NormalizeObservation(RecordEpisodeStatistics(env)))
    ours, ref = made
    acts = sample_actions(ref.unwrapped, 2, 420)
    for env in made:
        env.reset(seed=9)
        env.close()
        assert env.unwrapped.closed
    assert_results_equal(ours.reset(seed=4), ref.reset(seed=4))
    for t, a in enumerate(acts):
        o, r, te, tr, info = ours.step(a)
        o2, r2, te2, tr2, info2 = ref.step(a)
        assert_results_equal((o, r, te, tr), (o2, r2, te2, tr2), f"step {t}")
        assert set(info) == set(info2)
    assert list(ours.env.length_queue) == list(ref.env.length_queue) == [200] * 6
    assert list(ours.env.return_queue) == list(ref.env.return_queue)


BAD_MASKS = [
    ("list", lambda n: [True] * n),
    ("int dtype", lambda n: np.ones(n, np.int64)),
    ("uint8 dtype", lambda n: np.ones(n, np.uint8)),
    ("too long", lambda n: np.ones(n + 1, bool)),
    ("2-d", lambda n: np.ones((n, 1), bool)),
    ("scalar", lambda n: np.bool_(True)),
    ("all False", lambda n: np.zeros(n, bool)),
    ("None", lambda n: None),
]


@pytest.mark.parametrize("make_mask", [c[1] for c in BAD_MASKS], ids=[c[0] for c in BAD_MASKS])
def test_bad_reset_mask_raises_like_sync_vector_env(make_mask):
    n = 5
    ref = make_ref("CartPole-v1", n)
    env, twin = _twins("CartPole-v1", n)
    ref.reset(seed=12)
    with pytest.raises(Exception) as ref_exc:
        ref.reset(options={"reset_mask": make_mask(n)})
    with pytest.raises(type(ref_exc.value)) as our_exc:
        env.reset(options={"reset_mask": make_mask(n)})
    assert str(our_exc.value) == str(ref_exc.value)
    _assert_untouched(env, twin)


def test_reset_mask_non_contiguous_is_valid():
    n = 9
    env, twin = _twins("Acrobot-v1", n)
    wide = np.zeros(2 * n, bool)
    wide[::2] = np.arange(n) % 3 == 0
    mask = wide[::2]
    assert not mask.flags.c_contiguous
    assert_results_equal(env.reset(seed=4, options={"reset_mask": mask}),
                         twin.reset(seed=4, options={"reset_mask": mask.copy()}))
    _assert_untouched(env, twin)


BAD_SEEDS = [
    ("negative", -1, gym.error.Error, "Seed must be greater or equal to zero"),
    ("float", 1.5, TypeError, "seed must be None, an int or a list"),
    ("string", "3", TypeError, "seed must be None, an int or a list"),
    ("dict", {0: 1}, TypeError, "seed must be None, an int or a list"),
    ("short list", [0, 1, 2], ValueError, "the length must match num_envs=4"),
    ("long list", [0, 1, 2, 3, 4], ValueError, "the length must match num_envs=4"),
    ("negative in list", [0, 1, -2, 3], gym.error.Error, "greater or equal to zero"),
    ("float in list", [0, 1, 2.0, 3], gym.error.Error, "Seed must be a python integer"),
    ("string in list", [0, 1, "2", 3], gym.error.Error, "Seed must be a python integer"),
]


@pytest.mark.parametrize(("seed", "exc", "match"), [c[1:] for c in BAD_SEEDS],
                         ids=[c[0] for c in BAD_SEEDS])
def test_bad_seeds(seed, exc, match):
    env, twin = _twins("CartPole-v1", N4)
    with pytest.raises(exc, match=match):
        env.reset(seed=seed)
    with pytest.raises(exc, match=match):
        env.reset(seed=seed, options={"reset_mask": np.array([True, False, True, True])})
    # Nothing was seeded or reset by the rejected calls.
    _assert_untouched(env, twin)


@pytest.mark.parametrize("seed", [True, False, [0, True, None, 3]])
def test_bool_seeds_as_gymnasium(seed):
    """Gymnasium takes a bool seed as the int it is (True + i for instance i)."""
    ref = make_ref("CartPole-v1", N4)
    ours = ccgym.make_vec("CartPole-v1", N4)
    ref.reset(seed=7)
    ours.reset(seed=7)
    for t, a in enumerate(sample_actions(ref, 7, 60)):
        if t == 30:
            assert_results_equal(ours.reset(seed=seed), ref.reset(seed=seed), "reset")
        assert_results_equal(ours.step(a), ref.step(a), f"step {t}")


def test_numpy_integer_seeds_are_accepted():
    a, _ = _twins("CartPole-v1", N4)
    b, _ = _twins("CartPole-v1", N4)
    assert_results_equal(a.reset(seed=np.int64(5)), b.reset(seed=5))
    assert_results_equal(a.reset(seed=np.array([1, 2, 3, 4])), b.reset(seed=[1, 2, 3, 4]))
    _assert_untouched(a, b)


@pytest.mark.parametrize(("options", "exc", "match"), [
    ("low", TypeError, "options must be a dict"),
    ({"low": 0.1, "high": -0.1}, ValueError, "must be lower than higher bound"),
    ({"low": "abc"}, ValueError, "could not be converted to a float"),
    ({"low": -np.inf, "high": np.inf}, OverflowError, "range exceeds valid bounds"),
])
def test_bad_reset_options(options, exc, match):
    env, twin = _twins("CartPole-v1", N4)
    with pytest.raises(exc, match=match):
        env.reset(options=options)
    _assert_untouched(env, twin)
    # A rejected reset must not have reseeded anything either.
    for seed in (3, [3, None, 4, 5]):
        with pytest.raises(exc, match=match):
            env.reset(seed=seed, options=options)
        _assert_untouched(env, twin)


CTOR_CASES = [
    ("num_envs 0", {"num_envs": 0}, ValueError, "num_envs must be at least 1"),
    ("num_envs -3", {"num_envs": -3}, ValueError, "num_envs must be at least 1"),
    ("num_envs float", {"num_envs": 2.0}, TypeError, "num_envs must be an int"),
    ("num_envs bool", {"num_envs": True}, TypeError, "num_envs must be an int"),
    ("num_envs str", {"num_envs": "4"}, TypeError, "num_envs must be an int"),
    ("num_envs None", {"num_envs": None}, TypeError, "num_envs must be an int"),
    ("num_threads 0", {"num_threads": 0}, ValueError, "num_threads must be at least 1"),
    ("num_threads -1", {"num_threads": -1}, ValueError, "num_threads must be at least 1"),
    ("num_threads float", {"num_threads": 1.5}, TypeError, "num_threads must be an int"),
    ("num_threads bool", {"num_threads": True}, TypeError, "num_threads must be an int"),
    ("autoreset str", {"autoreset_mode": "Sometimes"}, ValueError,
     "autoreset_mode must be one of"),
    ("autoreset int", {"autoreset_mode": 1}, ValueError, "autoreset_mode must be one of"),
    ("autoreset None", {"autoreset_mode": None}, ValueError, "autoreset_mode must be one of"),
    ("max steps -1", {"max_episode_steps": -1}, ValueError,
     "max_episode_steps must be a non-negative int"),
    ("max steps float", {"max_episode_steps": 2.5}, ValueError,
     "max_episode_steps must be a non-negative int"),
    ("max steps bool", {"max_episode_steps": True}, ValueError,
     "max_episode_steps must be a non-negative int"),
    ("max steps str", {"max_episode_steps": "10"}, ValueError,
     "max_episode_steps must be a non-negative int"),
    ("max steps 2**64", {"max_episode_steps": 2**64}, OverflowError, "too large"),
    ("num_threads 2**64", {"num_threads": 2**64}, OverflowError, "too large"),
    ("num_envs 2**64", {"num_envs": 2**64}, OverflowError, "too large"),
    # Any str is taken, as CartPoleVectorEnv takes it (issue 16 item 3); not other types.
    ("render_mode", {"render_mode": 3}, TypeError, "render_mode must be None or a str"),
    ("unknown kwarg", {"foo": 1}, TypeError, "unexpected keyword argument 'foo'"),
    ("kwarg of another env", {"g": 9.8}, TypeError, "unexpected keyword argument 'g'"),
]


@pytest.mark.parametrize(("kwargs", "exc", "match"), [c[1:] for c in CTOR_CASES],
                         ids=[c[0] for c in CTOR_CASES])
def test_bad_constructor_arguments(kwargs, exc, match):
    kwargs = {"num_envs": 3, **kwargs}
    with pytest.raises(exc, match=match):
        VectorEnv("CartPole-v1", **kwargs)
    with pytest.raises(exc, match=match):
        ccgym.make_vec("CartPole-v1", **kwargs)
    with pytest.raises(exc, match=match):
        gym.make_vec("ccgym/CartPole-v1", **kwargs)


def test_bad_constructor_env_kwargs():
    with pytest.raises(TypeError, match="g must be a real number"):
        ccgym.make_vec("Pendulum-v1", 2, g="x")
    with pytest.raises(TypeError, match="goal_velocity must be a real number"):
        ccgym.make_vec("MountainCar-v0", 2, goal_velocity=None)
    with pytest.raises(gym.error.Error, match="ccgym has no env 'Foo-v0'"):
        ccgym.make_vec("Foo-v0", 2)
    with pytest.raises((ValueError, MemoryError)):
        ccgym.make_vec("CartPole-v1", 2**62)


def test_max_episode_steps_zero_means_no_limit():
    env = ccgym.make_vec("Pendulum-v1", 3, max_episode_steps=0)
    env.reset(seed=0)
    for a in sample_actions(env, 0, 450):
        _, _, term, trunc, _ = env.step(a)
        assert not term.any() and not trunc.any()
    assert (env.elapsed_steps == 450).all()


def test_render_returns_each_instances_frame():
    """render() draws every instance (or the chosen ones) in one call; each
    frame is the single env's frame for the same seed."""
    env = ccgym.make_vec("CartPole-v1", 3, render_mode="rgb_array")
    env.reset(seed=5)
    frames = env.render()
    assert frames.shape == (3, 400, 600, 3) and frames.dtype == np.uint8
    for i in range(3):
        single = ccgym.CartPoleEnv(render_mode="rgb_array")
        single.reset(seed=5 + i)
        assert np.array_equal(single.render(), frames[i])
    assert np.array_equal(env.render(indices=[2]), frames[2:])


def test_options_dict_not_mutated():
    """Unlike SyncVectorEnv, the caller's options keep their reset_mask."""
    env = ccgym.make_vec("CartPole-v1", 3)
    env.reset(seed=0)
    options = {"reset_mask": np.array([True, False, True]), "low": -0.01}
    snapshot = copy.deepcopy(options)
    env.reset(options=options)
    assert options.keys() == snapshot.keys()
    assert bits(options["reset_mask"]) == bits(snapshot["reset_mask"])


def test_repr():
    assert re.fullmatch(r"ccgym\.VectorEnv\(CartPole-v1, num_envs=3\)",
                        repr(ccgym.make_vec("ccgym/CartPole-v1", 3)))


def test_make_vec_refuses_an_unknown_keyword_in_its_own_name():
    """issue 46: a misspelled keyword is make_vec's TypeError with difflib's
    closest name, not CartPoleEnv.__init__'s; the env's own keywords and
    physics stay accepted."""
    import ccgym

    cases = {"num_thread": "num_threads", "gravty": "gravity", "autoreset": "autoreset_mode",
             "sutton_barto": "sutton_barto_reward"}
    for wrong, right in cases.items():
        with pytest.raises(TypeError, match=rf"^make_vec\(\) got an unexpected keyword "
                                            rf"argument '{wrong}'; did you mean '{right}'\?"):
            ccgym.make_vec("CartPole-v1", 8, **{wrong: 2})
    with pytest.raises(TypeError, match=r"argument 'zzzz' \(make_vec's keywords"):
        ccgym.make_vec("ccgym/Pendulum-v1", 2, zzzz=1)
    # CartPole's gravity is not Pendulum's (its g is): refused, the valid names listed.
    with pytest.raises(TypeError, match=r"'gravity' \(make_vec's .*Pendulum-v1's: dt, g, l,"):
        ccgym.make_vec("Pendulum-v1", 2, gravity=9.0)
    envs = ccgym.make_vec("CartPole-v1", 2, num_threads=1, gravity=[9.0, 10.0],
                          sutton_barto_reward=True, autoreset_mode="SameStep")
    assert envs.get_physics()["gravity"].tolist() == [9.0, 10.0]
    assert ccgym.make_vec("Pendulum-v1", 2, g=9.0).get_physics()["g"] == 9.0  # shared: one value
