"""The binding's three safety properties, each tried the way a user could
break it on the first version:

- one checked way into C: byte order and alignment are checked with dtype,
  shape and contiguity, for every front end;
- memory the user cannot break: nothing done to an array ccgym handed out
  (resize, in-place reshape or dtype change, flags, held views) reaches the
  memory C writes;
- one guard that no exception can leave held (signals and asynchronous
  exceptions landing anywhere in step/reset/get_state/set_state).

Cases that crashed the first version run in a subprocess, so a segfault
fails the test instead of killing pytest.
"""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from ccgym import _core, _front_core
from subprocess_helpers import run_isolated
from array_helpers import set_dtype, set_shape
from reference import NEWEST_GYM_IDS, is_continuous, is_discrete

DISCRETE_IDS = [i for i in NEWEST_GYM_IDS if is_discrete(i)]
CONTINUOUS_IDS = [i for i in NEWEST_GYM_IDS if is_continuous(i)]


def bits(x) -> bytes:
    return np.ascontiguousarray(x).tobytes()


def _actions(env_id: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if env_id in CONTINUOUS_IDS:
        return rng.uniform(-2, 2, (n, 1)).astype(np.float32)
    k = 2 if env_id.startswith("CartPole") else 3
    return rng.integers(0, k, n).astype(np.int64)


def _unaligned(a: np.ndarray) -> np.ndarray:
    """A C-contiguous, native copy of `a` whose data is not aligned."""
    buf = bytearray(a.nbytes + 1)
    out = np.frombuffer(buf, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    out[...] = a
    assert not out.flags.aligned and out.flags.c_contiguous
    return out


# ------------------------------------------------------------- byte order
def test_big_endian_vector_actions_subprocess():
    """Big-endian action arrays (whose type number is the native one) were
    read as native by the fast path: Acrobot's 2 became 2**57 (an
    out-of-bounds torque table read: segfault), the others read garbage."""
    out = run_isolated("""
        import numpy as np, ccgym
        for env_id in ccgym.ENV_IDS:
            n = 4
            env = ccgym.make_vec(env_id, num_envs=n)
            twin = ccgym.make_vec(env_id, num_envs=n)
            env.reset(seed=0)
            twin.reset(seed=0)
            rng = np.random.default_rng(1)
            cont = env.single_action_space.shape != ()
            for t in range(30):
                if cont:
                    a = rng.uniform(-2, 2, (n, 1)).astype(np.float32)
                    swapped = (a.astype(">f4"), a.astype(">f8"), a[:, 0].astype(">f4"))[t % 3]
                else:
                    a = np.full(n, env.single_action_space.n - 1, np.int64)  # the largest
                    swapped = (a.astype(">i8"), a.astype(">i4"), a.astype(">u8"))[t % 3]
                got = env.step(swapped)
                # the same values in native byte order and the same dtype (a float64
                # batch computes in float64, as Gymnasium's does)
                want = twin.step(swapped.astype(swapped.dtype.newbyteorder("=")))
                for x, y in zip(got[:4], want[:4]):
                    assert x.tobytes() == y.tobytes(), (env_id, t, swapped.dtype)
        print("OK")
    """)
    assert out.startswith("OK")


@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_big_endian_single_action_matches_gymnasium(env_id):
    ours = gym.make(f"ccgym/{env_id}")
    ref = gym.make(env_id)
    ours.reset(seed=0)
    ref.reset(seed=0)
    for u in (1.0, -0.5, 0.25, 1.5):
        a = np.array([u], ">f4")
        o1, r1, t1, tr1, _ = ours.step(a)
        o2, r2, t2, tr2, _ = ref.step(a)
        assert bits(o1) == bits(o2) and r1 == r2 and (t1, tr1) == (t2, tr2)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_big_endian_sb3_actions(env_id):
    sb3 = pytest.importorskip("ccgym.sb3")
    venv = sb3.VecEnv(env_id, 3)
    twin = sb3.VecEnv(env_id, 3)
    venv.seed(0)
    twin.seed(0)
    venv.reset()
    twin.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = _actions(env_id, 3, rng)
        got = venv.step(a.astype(a.dtype.newbyteorder(">")))
        want = twin.step(a)
        for x, y in zip(got[:3], want[:3]):
            assert bits(x) == bits(y)


# -------------------------------------------------------------- alignment
@pytest.mark.parametrize("env_id", DISCRETE_IDS + CONTINUOUS_IDS)
def test_unaligned_actions_reach_c_aligned(env_id):
    """An unaligned (but native, C-contiguous) action array is copied to an
    aligned one before C loads it (C loads int64/float32 as aligned: UB
    otherwise); the results are those of the aligned actions."""
    n = 5
    env = ccgym.make_vec(env_id, num_envs=n)
    twin = ccgym.make_vec(env_id, num_envs=n)
    env.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = _actions(env_id, n, rng)
        u = _unaligned(a)
        checked = env.unwrapped._core.check_actions(u)
        assert checked.flags.aligned and checked.flags.c_contiguous
        assert checked.dtype.isnative and bits(checked) == bits(a)
        for x, y in zip(env.step(u)[:4], twin.step(a)[:4]):
            assert bits(x) == bits(y)


@pytest.mark.parametrize("env_id", CONTINUOUS_IDS)
def test_unaligned_single_action(env_id):
    ours = ccgym.envs.PendulumEnv() if env_id == "Pendulum-v1" else \
        ccgym.envs.Continuous_MountainCarEnv()
    twin = type(ours)()
    ours.reset(seed=0)
    twin.reset(seed=0)
    for u in (0.5, -1.0, 0.75):
        a = np.array([u], np.float32)
        assert bits(ours.step(_unaligned(a))[0]) == bits(twin.step(a)[0])


def test_unaligned_and_big_endian_snapshots_and_masks():
    """Snapshot arrays and reset masks go through the same check: a
    byte-swapped or unaligned snapshot restores the same state; a wrong
    dtype is refused (ValueError) and changes nothing."""
    env = ccgym.make_vec("Pendulum-v1", num_envs=4)
    env.reset(seed=0)
    env.step(np.full((4, 1), 0.5, np.float32))
    snap = env.get_state()
    twisted = dict(snap)
    for k, v in snap.items():
        if isinstance(v, np.ndarray):
            if v.dtype.itemsize == 1:  # bytes: no alignment or order; not contiguous
                twisted[k] = np.repeat(v, 2, axis=0)[::2]
            elif k in ("obs", "rng_state"):
                twisted[k] = _unaligned(v)
            else:
                twisted[k] = v.astype(v.dtype.newbyteorder(">"))
    env.step(np.full((4, 1), -1.5, np.float32))
    env.set_state(twisted)
    again = env.get_state()
    for k, v in snap.items():
        if isinstance(v, np.ndarray):
            assert bits(again[k]) == bits(v), k
    bad = dict(snap, rng_state=snap["rng_state"].astype(np.int64))
    with pytest.raises(ValueError, match="rng_state"):
        env.set_state(bad)
    core = env.unwrapped._core
    mask = np.array([True, True, False, False, True, True, False, False])[::2]
    core.reset(mask)  # not contiguous: copied
    with pytest.raises(TypeError):
        core.reset(np.array([1, 0, 1, 0], np.int64))


# ------------------------------------------------------- owned memory
def test_resizing_handed_out_arrays_is_refused_subprocess():
    """The first version wrote through freed memory after
    env.episode_returns.resize(...) (use-after-free) and after resizing a
    step's output (heap overflow), with copy=True or copy=False. Everything
    handed out is now a view of memory the core owns: resize raises, and
    the env keeps stepping exactly."""
    out = run_isolated("""
        import numpy as np, ccgym
        def refused(f):
            try:
                f()
            except ValueError:
                return True
            return False
        for copy in (True, False):
            for env_id in ("CartPole-v1", "Pendulum-v1"):
                n = 64
                env = ccgym.make_vec(env_id, num_envs=n, copy=copy, episode_statistics=True)
                twin = ccgym.make_vec(env_id, num_envs=n, copy=copy)
                a = (np.full((n, 1), 0.5, np.float32) if env_id == "Pendulum-v1"
                     else np.ones(n, np.int64))
                obs, _ = env.reset(seed=0)
                twin.reset(seed=0)
                for fresh in (env.episode_lengths, env.elapsed_steps):  # computed copies
                    fresh.resize(1 << 20, refcheck=False)
                held = [obs, env.episode_returns]
                out = env.step(a)
                held += list(out[:4])
                core = env.unwrapped._core
                held += [getattr(core, name) for name in (
                    "obs", "reward", "terminated", "truncated", "final_obs", "final_return",
                    "final_length", "episode_return", "episode_start", "pending_reset",
                    "state_buffer", "rng_state")]
                for x in held:
                    assert not x.flags.owndata, "a view of memory the core owns"
                    for size in (1, 1 << 20):
                        assert refused(lambda: x.resize(size))
                        assert refused(lambda: x.resize(size, refcheck=False))
                twin.step(a)
                for t in range(40):
                    o1 = env.step(a)
                    o2 = twin.step(a)
                    for x, y in zip(o1[:4], o2[:4]):
                        assert x.tobytes() == y.tobytes(), (copy, env_id, t)
                    assert np.array_equal(env.episode_returns, twin.episode_returns)
                env.reset(seed=1)
                twin.reset(seed=1)
                assert env.step(a)[0].tobytes() == twin.step(a)[0].tobytes()
        print("OK")
    """)
    assert out.startswith("OK")


def test_internal_arrays_are_read_only():
    """What the core exposes as attributes cannot be written (numpy refuses
    even to set WRITEABLE back on), so nobody writes C's bookkeeping behind
    its back; episode_returns is such a view."""
    env = ccgym.make_vec("CartPole-v1", num_envs=4)
    env.reset(seed=0)
    core = env.unwrapped._core
    for x in [env.episode_returns] + [getattr(core, name) for name in (
            "obs", "reward", "terminated", "truncated", "final_obs", "final_return",
            "final_length", "episode_return", "episode_start", "pending_reset",
            "state_buffer", "rng_state")]:
        assert not x.flags.writeable and not x.flags.owndata
        with pytest.raises(ValueError):
            x.flags.writeable = True
        with pytest.raises(ValueError):
            x[...] = 0


@pytest.mark.parametrize("copy", [True, False])
def test_reshaped_dtype_changed_frozen_outputs_do_not_leak_into_later_steps(copy):
    """A caller that reshapes, re-types or freezes a returned array in place
    changes only that array object: later steps still return arrays of the
    right shape, dtype and values, and writeable."""
    n = 8
    env = ccgym.make_vec("CartPole-v1", num_envs=n, copy=copy)
    twin = ccgym.make_vec("CartPole-v1", num_envs=n, copy=copy)
    env.reset(seed=0)
    twin.reset(seed=0)
    a = np.ones(n, np.int64)
    for t in range(12):
        obs, rew, term, trunc, _ = env.step(a)
        ref = twin.step(a)
        assert obs.shape == (n, 4) and obs.dtype == np.float32 and obs.flags.writeable
        assert rew.shape == (n,) and rew.dtype == np.float64 and rew.flags.writeable
        for x, y in zip((obs, rew, term, trunc), ref[:4]):
            assert bits(x) == bits(y), t
        if t % 3 == 0:
            set_shape(obs, (n * 4,))
        elif t % 3 == 1:
            set_dtype(obs, np.int32)
            rew.flags.writeable = False
        else:
            set_shape(term, (n, 1))
            set_dtype(trunc, np.uint8)


def test_views_of_outputs_keep_their_values_and_memory():
    """A view of a copy=True output keeps the memory alive and its values
    after the env, the arrays and later steps are gone."""
    env = ccgym.make_vec("CartPole-v1", num_envs=4)
    env.reset(seed=0)
    view = env.step(np.ones(4, np.int64))[0][1:3]
    saved = view.copy()
    for _ in range(5):
        env.step(np.zeros(4, np.int64))
    env.close()
    del env
    import gc

    gc.collect()
    assert bits(view) == bits(saved)



# ------------------------------------------------ writes into handed-out arrays
MODES = ["NextStep", "SameStep", "Disabled"]


def _scribble(arrays, t):
    """What a training loop may do to the arrays it was handed: normalise or
    scale them in place, zero the done rows, or overwrite them."""
    obs, rew, term, trunc = arrays
    if t % 3 == 0:
        obs[...] = 99.0
        rew[...] = -5.0
        term[...] = True
        trunc[...] = True
    elif t % 3 == 1:
        obs -= 1.0
        rew *= 0.5
    else:
        obs[::2] = np.nan
        term[...] = ~term


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", DISCRETE_IDS + CONTINUOUS_IDS)
def test_writes_into_outputs_never_come_back(env_id, mode, copy):
    """A caller writing into arrays it was handed (held on to or dropped,
    copy=True or copy=False) changes nothing ccgym returns later: the rows a
    masked reset leaves alone are their last observations, and snapshots
    hold the last outputs, bit for bit as a twin env that nobody wrote into."""
    n = 6
    kw = dict(autoreset_mode=mode, copy=copy, max_episode_steps=25)
    env = ccgym.make_vec(env_id, num_envs=n, **kw)
    twin = ccgym.make_vec(env_id, num_envs=n, **kw)
    env.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(7)
    held = []
    for t in range(80):
        a = _actions(env_id, n, rng)
        out = env.step(a)[:4]
        want = twin.step(a)[:4]
        for x, y in zip(out, want):
            assert bits(x) == bits(y), (t, "step")
        done = want[2] | want[3]
        _scribble(out, t)
        if t % 4 == 1:
            held.append(out)  # written into and kept
        mask = done if done.any() else rng.random(n) < 0.3
        if mask.any() and (mode == "Disabled" or t % 5 == 0):
            o1, _ = env.reset(options={"reset_mask": mask.copy()})
            o2, _ = twin.reset(options={"reset_mask": mask.copy()})
            assert bits(o1) == bits(o2), (t, "masked reset")
            o1[...] = -7.0  # and the reset's own output too
        if t % 7 == 3:
            s1, s2 = env.get_state(), twin.get_state()
            for k, v in s2.items():
                if isinstance(v, np.ndarray):
                    assert bits(s1[k]) == bits(v), (t, k)
        del out


@pytest.mark.parametrize("env_id", DISCRETE_IDS + CONTINUOUS_IDS)
def test_writes_after_a_restore_never_come_back(env_id):
    """A restored snapshot's outputs are the core's own: written-into
    outputs after set_state do not leak into a masked reset or get_state."""
    n = 4
    env = ccgym.make_vec(env_id, num_envs=n, autoreset_mode="Disabled")
    twin = ccgym.make_vec(env_id, num_envs=n, autoreset_mode="Disabled")
    env.reset(seed=1)
    rng = np.random.default_rng(2)
    for _ in range(3):
        env.step(_actions(env_id, n, rng))
    snap = env.get_state()
    twin.set_state(snap)
    env.set_state(snap)
    a = _actions(env_id, n, rng)
    _scribble(env.step(a)[:4], 0)
    twin.step(a)
    mask = np.array([True, False, False, True])
    assert bits(env.reset(options={"reset_mask": mask})[0]) == bits(
        twin.reset(options={"reset_mask": mask})[0])
    env.set_state(snap)  # the snapshot's outputs, even where the state says otherwise
    twin.set_state(snap)
    obs, _ = env.reset(options={"reset_mask": mask})
    twin.reset(options={"reset_mask": mask})
    assert bits(obs[~mask]) == bits(snap["obs"][~mask])
    obs[...] = 5.0
    for k, v in twin.get_state().items():
        if isinstance(v, np.ndarray):
            assert bits(env.get_state()[k]) == bits(v), k


def test_core_outputs_written_through_batch_step_do_not_leak():
    """The same through the core itself (the single and SB3 front ends hand
    out copies; Batch.step with copy_outputs off hands out its own views)."""
    from ccgym._params import PARAMS

    for copy in (True, False):
        b = _core.Batch("Acrobot", 3, PARAMS["Acrobot"](), 0, _core.AUTORESET_DISABLED)
        ref = _core.Batch("Acrobot", 3, PARAMS["Acrobot"](), 0, _core.AUTORESET_DISABLED)
        b.copy_outputs = ref.copy_outputs = copy
        for x in (b, ref):
            x.seed_range(0)
            x.reset()
        a = np.array([0, 1, 2], np.int64)
        for t in range(5):
            _scribble(b.step(a), t)
            ref.step(a)
            mask = np.array([t % 2 == 0, False, True])
            assert bits(b.reset(mask)) == bits(ref.reset(mask)), (copy, t)
            for k in ("obs", "reward", "terminated", "truncated"):
                assert bits(b.get_state()[k]) == bits(ref.get_state()[k]), (copy, t, k)


def test_single_outputs_are_the_callers():
    """The single env (and SB3, below) return copies: writing into them
    changes nothing the env returns or snapshots later."""
    env = gym.make("ccgym/Acrobot-v1")
    twin = gym.make("ccgym/Acrobot-v1")
    o1, _ = env.reset(seed=0)
    twin.reset(seed=0)
    o1[...] = 9.0
    for t in range(5):
        o1 = env.step(t % 3)[0]
        o2 = twin.step(t % 3)[0]
        assert bits(o1) == bits(o2)
        o1[...] = 9.0
    s1, s2 = env.unwrapped.get_state(), twin.unwrapped.get_state()
    for k, v in s2.items():
        if isinstance(v, np.ndarray):
            assert bits(s1[k]) == bits(v), k


def test_sb3_outputs_are_the_callers():
    sb3 = pytest.importorskip("ccgym.sb3")
    venv, vtwin = sb3.VecEnv("Pendulum-v1", 3), sb3.VecEnv("Pendulum-v1", 3)
    for v in (venv, vtwin):
        v.seed(0)
    _scribble([venv.reset(), np.zeros(3), np.zeros(3, bool), np.zeros(3, bool)], 0)
    vtwin.reset()
    a = np.full((3, 1), 0.5, np.float32)
    for t in range(4):
        obs, rew, done, _ = venv.step(a)
        want = vtwin.step(a)
        assert bits(obs) == bits(want[0]) and bits(rew) == bits(want[1])
        obs[...] = 3.0
        rew[...] = 3.0
    got = venv.env_method("reset", indices=[1])
    exp = vtwin.env_method("reset", indices=[1])
    assert bits(got[0][0]) == bits(exp[0][0])


@pytest.mark.parametrize("mode", [_core.AUTORESET_NEXT_STEP, _core.AUTORESET_SAME_STEP,
                                  _core.AUTORESET_DISABLED])
@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_observe_rebuilds_the_last_observation_exactly(kind, mode):
    """An instance's last observation is a function of its state (Acrobot:
    and of whether a reset wrote it): the env table's observe rebuilds every
    step's and reset's observation bit for bit, through autoresets, time
    limits and masked resets, so nothing needs the arrays a caller holds."""
    from ccgym._params import PARAMS

    n = 32
    b = _core.Batch(kind, n, PARAMS[kind](), 15, mode)
    b.copy_outputs = False
    b.seed_range(11)
    rng = np.random.default_rng(0)
    obs = b.reset().copy()
    info = _core.env_info(kind)
    for t in range(120):
        assert bits(b.get_state()["obs"]) == bits(obs), t
        if mode == _core.AUTORESET_DISABLED and b.any_pending():
            mask = b.pending_reset.copy()
            mask[rng.random(n) < 0.2] = True
            obs = b.reset(mask).copy()
            continue
        if info.action_dim:
            a = rng.uniform(-2.5, 2.5, (n, info.action_dim)).astype(np.float32)
        else:
            a = rng.integers(0, info.n_actions, n)
        obs = b.step(a)[0].copy()


# ------------------------------------------------------------------ guard
_STORM = """
import ctypes, signal, sys, threading, time, warnings
warnings.simplefilter("ignore")
import numpy as np, ccgym, gymnasium as gym

FRONT, INJECT, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])

class Boom(BaseException):  # like KeyboardInterrupt: no `except Exception` swallows it
    pass

def make():
    if FRONT == "vector":
        return ccgym.make_vec("CartPole-v1", num_envs=5, autoreset_mode="SameStep",
                              episode_statistics=True, max_episode_steps=20)
    if FRONT == "vector_pendulum":
        return ccgym.make_vec("Pendulum-v1", num_envs=3, max_episode_steps=7)
    if FRONT == "single":
        return gym.make("ccgym/CartPole-v1", disable_env_checker=True)
    import importlib
    return importlib.import_module("ccgym.sb3").VecEnv("Acrobot-v1", 4, max_episode_steps=15)

def actions(t):
    if FRONT == "vector":
        return np.array([(t + i) % 2 for i in range(5)], np.int64)
    if FRONT == "vector_pendulum":
        return np.full((3, 1), ((t % 5) - 2) / 2, np.float32)
    if FRONT == "single":
        return t % 2
    return np.array([(t + i) % 3 for i in range(4)])

def reset(env, seed):
    if FRONT == "sb3":
        env.seed(seed)
        return env.reset()
    return env.reset(seed=seed)[0]

def step(env, t):
    return env.step(actions(t))

def results(env, seed, steps):
    out = [reset(env, seed)]
    for t in range(steps):
        r = step(env, t)
        out.append(r[:4] if FRONT != "sb3" else r[:3])
    return out

def flat(x):
    if isinstance(x, (tuple, list)):
        return b"".join(flat(y) for y in x)
    return np.asarray(x).tobytes()

env = make()
reset(env, 0)
snap = env.unwrapped.get_state() if FRONT != "sb3" else None
main_id = threading.get_ident()
stop = threading.Event()
counts = {"boom": 0, "ok": 0, "busy": 0}
# An exception lands only while ARMED (inside the env call below, never in
# this harness); PENDING: an asynchronous one is on its way.
ARMED = [False]
PENDING = [False]

def op(fn, *args):
    try:
        ARMED[0] = True
        fn(*args)
        ARMED[0] = False
        while PENDING[0]:  # one is on its way: take it here
            pass
        counts["ok"] += 1
    except Boom:
        ARMED[0] = False
        PENDING[0] = False
        counts["boom"] += 1
    except RuntimeError as e:
        ARMED[0] = False
        while PENDING[0]:
            pass
        if "thread" not in str(e):
            raise
        counts["busy"] += 1  # the guard left held: what must not happen

if INJECT == "signal":
    def handler(signum, frame):
        if ARMED[0]:
            raise Boom()
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.0003, 0.00017)
else:
    def shooter():
        exc = ctypes.py_object(Boom)
        while not stop.is_set():
            PENDING[0] = True
            if ARMED[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main_id), exc)
            else:
                PENDING[0] = False
            time.sleep(0.0002)
    th = threading.Thread(target=shooter, daemon=True)
    th.start()

deadline = time.monotonic() + SECONDS
t = 0
while time.monotonic() < deadline and counts["busy"] < 50:
    t += 1
    k = t % 9
    if k == 0:
        op(reset, env, t)
    elif k == 1 and snap is not None:
        op(lambda: snap.update(env.unwrapped.get_state()))
    elif k == 2 and snap is not None:
        op(env.unwrapped.set_state, snap)
    elif k == 3 and FRONT == "sb3":
        op(lambda: env.env_method("reset", indices=[1]))
    else:
        op(step, env, t)

if INJECT == "signal":
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
else:
    stop.set()
    th.join()

assert counts["busy"] == 0, counts
assert counts["boom"] > 20 and counts["ok"] > 20, counts
core = env.unwrapped._core if FRONT != "sb3" else env._core
assert not core.busy, "guard still held"
# The stormed env steps bit for bit as a fresh one from the same seed.
got = results(env, 123, 60)
want = results(make(), 123, 60)
assert len(got) == len(want)
for i, (x, y) in enumerate(zip(got, want)):
    assert flat(x) == flat(y), i
print("OK", counts)
"""


@pytest.mark.parametrize("inject", ["signal", "async"])
@pytest.mark.parametrize("front", ["vector", "vector_pendulum", "single", "sb3"])
def test_no_exception_leaves_the_guard_held(front, inject, tmp_path):
    """For seconds, an exception is raised every fraction of a millisecond
    (a SIGALRM handler, or PyThreadState_SetAsyncExc from another thread)
    wherever Python code runs while step/reset/get_state/set_state are
    hammered. No call may then find the env "being stepped by another
    thread", and afterwards it steps bit for bit as a fresh env."""
    if front == "sb3":
        pytest.importorskip("stable_baselines3")
    script = tmp_path / "storm.py"
    script.write_text(_STORM)
    proc = subprocess.run([sys.executable, str(script), front, inject, "3"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("OK"), (
        f"rc={proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-5000:]}")


def test_concurrent_calls_still_refused():
    """The one guard still refuses a second thread while a call is under way
    (here: a hook running inside the step holds it)."""
    import threading

    env = ccgym.make_vec("CartPole-v1", num_envs=2, autoreset_mode="SameStep",
                         max_episode_steps=1)
    env.reset(seed=0)
    venv = env.unwrapped
    core = venv._core
    seen = []
    inner = venv._infos  # the front end's infos, made under the core's guard

    def hook(infos):
        def other():
            for call in (lambda: env.step(np.zeros(2, np.int64)), lambda: env.reset(seed=1),
                         env.get_state, lambda: env.set_physics(gravity=9.0)):
                try:
                    call()
                    seen.append("ran")
                except RuntimeError as e:
                    seen.append(str(e))
        th = threading.Thread(target=other)
        th.start()
        th.join()
        inner(infos)

    venv._infos = hook
    venv._bind_step()
    env.step(np.zeros(2, np.int64))
    assert len(seen) == 4 and all("another thread" in s for s in seen), seen
    assert not core.busy
    del venv._infos
    venv._bind_step()
    env.step(np.zeros(2, np.int64))  # and it is free again


# ------------------------------------------------------------ exceptions
def test_core_knows_no_gymnasium_exceptions():
    """The core raises plain exceptions; the front ends choose Gymnasium's."""
    assert "ResetNeeded" not in vars(_core) and "InvalidAction" not in vars(_core)
    from ccgym._params import PARAMS

    b = _front_core.SingleBatch("CartPole", 1, PARAMS["CartPole"]())
    with pytest.raises(RuntimeError, match="before calling") as e:
        b.vector_step(np.zeros(1, np.int64))
    assert not isinstance(e.value, gym.error.Error)
    b.reset()
    b.has_reset = True
    with pytest.raises(ValueError) as e:
        b.step1(7)
    assert not isinstance(e.value, gym.error.Error)
    with pytest.raises(gym.error.ResetNeeded):
        ccgym.make_vec("CartPole-v1", 2).step(np.zeros(2, np.int64))
    with pytest.raises(gym.error.InvalidAction):
        env = ccgym.envs.CartPoleEnv()
        env.reset(seed=0)
        env.step(7)


def test_params_buffer_cannot_be_moved_or_freed_subprocess():
    """Batch.params_buffer was numpy-owned memory: params_buffer.base.resize(
    1 << 26, refcheck=False) was accepted and moved the data under C's params
    pointer. It is now a view of memory the core owns, like every buffer C
    reads: every way to resize it (its own resize, its base's, a view's) is
    refused, dropping every reference to it frees nothing C reads, and the
    batch steps on exactly as a twin that was left alone, per-instance params
    too. A write through it still reaches C (the live attributes use it)."""
    out = run_isolated("""
        import gc
        import numpy as np, ccgym
        from ccgym import _core
        from ccgym._params import PARAMS
        def refused(f):
            try:
                f()
            except (ValueError, AttributeError, TypeError):
                return True
            return False
        for kind, per_instance in (("CartPole", False), ("Pendulum", False),
                                   ("Acrobot", True)):
            n = 16
            params = PARAMS[kind]()
            if per_instance:
                params = {k: np.full(n, v) for k, v in params.items()}
            b = _core.Batch(kind, n, params)
            twin = _core.Batch(kind, n, params)
            pb = b.params_buffer
            assert not pb.flags.owndata, "a view of memory the core owns"
            assert not isinstance(pb.base, np.ndarray), type(pb.base)
            for x in (pb, pb.view(np.float64), pb[:8], b.params_buffer):
                assert refused(lambda: x.resize(1 << 26, refcheck=False))
                assert refused(lambda: x.resize(1))
                base = x.base
                while base is not None:
                    assert refused(lambda: base.resize(1 << 26, refcheck=False))
                    base = getattr(base, "base", None)
            assert refused(lambda: setattr(b, "params_buffer", np.zeros(8, np.uint8)))
            del pb, x, base
            gc.collect()
            junk = [np.full(1 << 16, 0xFF, np.uint8) for _ in range(64)]  # reuse freed memory
            b.seed_range(7); b.reset(); twin.seed_range(7); twin.reset()
            a = (np.full((n, 1), 0.5, np.float32) if kind == "Pendulum"
                 else np.ones(n, np.int64))
            for t in range(30):
                o1 = b.step(a); o2 = twin.step(a)
                for x, y in zip(o1[:4], o2[:4]):
                    assert x.tobytes() == y.tobytes(), (kind, t)
            assert b.params_buffer.tobytes() == twin.params_buffer.tobytes()
        # A write through it reaches C: the same bytes as set_params makes.
        b = _core.Batch("CartPole", 4, PARAMS["CartPole"]())
        twin = _core.Batch("CartPole", 4, {**PARAMS["CartPole"](), "force_mag": 20.0})
        info = _core.env_info("CartPole")
        b.params_buffer.view(info.params_dtype)[0] = twin.params_buffer.view(
            info.params_dtype)[0]
        b.seed_range(3); b.reset(); twin.seed_range(3); twin.reset()
        for t in range(10):
            assert b.step(np.ones(4, np.int64))[0].tobytes() == \\
                twin.step(np.ones(4, np.int64))[0].tobytes()
        print("OK")
    """)
    assert out.startswith("OK")


def _misaligned(a: np.ndarray) -> np.ndarray:
    """A copy of a's bytes starting 1 byte past an aligned address."""
    raw = np.zeros(a.nbytes + 64 + 1, np.uint8)
    start = (-raw.ctypes.data) % 64 + 1
    view = raw[start:start + a.nbytes]
    view[...] = np.frombuffer(a.tobytes(), np.uint8)
    assert view.ctypes.data % 8 == 1
    return view


def test_render_refuses_misaligned_state_and_params_subprocess():
    """_render cast a state buffer misaligned by 1 byte to struct pointers
    (undefined behaviour). It now takes its arrays through the binding's one
    checked path: a misaligned state or params buffer (np.frombuffer(...,
    offset=1) or a slice) is refused with a ValueError that says so, a wrong
    dtype with a TypeError, and the aligned copy renders as the batch."""
    out = run_isolated("""
        import numpy as np
        from ccgym import _core, _render, rendering
        from ccgym._params import PARAMS
        for kind in _core.ENV_KINDS:
            b = _core.Batch(kind, 3, PARAMS[kind]())
            b.seed_range(1); b.reset()
            good = rendering.render_batch(kind, b)
            state = b.state_buffer.tobytes()
            mis_states = [np.frombuffer(b"x" + state, np.uint8, offset=1)]
            raw = np.zeros(len(state) + 65, np.uint8)
            s0 = (-raw.ctypes.data) % 64 + 1
            raw[s0:s0 + len(state)] = np.frombuffer(state, np.uint8)
            mis_states.append(raw[s0:s0 + len(state)])
            for mis in mis_states:
                assert mis.ctypes.data % 8 != 0
                for call in (lambda: rendering.render_batch(kind, mis),
                             lambda: rendering.render_pixels(kind, mis, shape=(20, 30)),
                             lambda: _render.render(kind, mis, b.params_buffer, None,
                                                    np.empty((3, 20, 30, 3), np.uint8))):
                    try:
                        call()
                    except ValueError as e:
                        assert "aligned" in str(e), e
                    else:
                        raise AssertionError(f"{kind}: a misaligned state was drawn")
            params = b.params_buffer.tobytes()
            mis_p = np.frombuffer(b"x" + params, np.uint8, offset=1)
            try:
                rendering.render_batch(kind, b.state_buffer, params_buffer=mis_p)
            except ValueError as e:
                assert "aligned" in str(e), e
            else:
                raise AssertionError(f"{kind}: misaligned params were drawn")
            try:
                rendering.render_batch(kind, b.state_buffer.view(np.int8))
            except TypeError:
                pass
            else:
                raise AssertionError("int8 state bytes accepted")
            copy = np.array(mis_states[0])
            assert np.array_equal(rendering.render_batch(kind, copy), good)
        print("OK")
    """)
    assert out.startswith("OK")


def test_ceiling_actions_go_through_the_checked_path():
    """_ceiling.Run.run takes its actions through the binding's one checked
    path: a misaligned action array steps exactly as the native aligned one;
    a wrong dtype, byte order or shape is a clear error."""
    from ccgym import _ceiling

    for kind in ("CartPole", "Pendulum"):
        n, k = 8, 3
        dt = _ceiling.action_dtype(kind)
        rng = np.random.default_rng(0)
        acts = (rng.integers(0, 2, (k, n)) if dt == np.int64
                else rng.uniform(-2, 2, (k, n))).astype(dt)
        state = np.zeros((n, _ceiling.state_dim(kind)), np.float64)
        ref = _ceiling.Run(kind, state, seed=1)
        ref.run(acts, 7)
        mis = _misaligned(acts).view(dt).reshape(k, n)
        assert not mis.flags.aligned
        r = _ceiling.Run(kind, state, seed=1)
        r.run(mis, 7)
        assert r.states.tobytes() == ref.states.tobytes(), kind
        with pytest.raises(TypeError):
            ref.run(acts.astype(dt.newbyteorder(">")), 1)
        with pytest.raises(TypeError):
            ref.run(acts.astype(np.float64 if dt == np.float32 else np.int32), 1)
        with pytest.raises(ValueError, match="shape"):
            ref.run(acts[:, :4], 1)
