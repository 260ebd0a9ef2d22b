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
from ccgym import _core
from subprocess_helpers import run_isolated

DISCRETE_IDS = ["CartPole-v1", "MountainCar-v0", "Acrobot-v1"]
CONTINUOUS_IDS = ["Pendulum-v1", "MountainCarContinuous-v0"]


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
            cont = env_id in ("Pendulum-v1", "MountainCarContinuous-v0")
            for t in range(30):
                if cont:
                    a = rng.uniform(-2, 2, (n, 1)).astype(np.float32)
                    swapped = (a.astype(">f4"), a.astype(">f8"), a[:, 0].astype(">f4"))[t % 3]
                else:
                    a = np.full(n, 2 if env_id == "Acrobot-v1" else 1, np.int64)
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
            obs.shape = (n * 4,)
        elif t % 3 == 1:
            obs.dtype = np.int32
            rew.flags.writeable = False
        else:
            term.shape = (n, 1)
            trunc.dtype = np.uint8


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
    core = env.unwrapped._core
    seen = []
    inner = core.infos_hook

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

    core.infos_hook = hook
    env.step(np.zeros(2, np.int64))
    assert len(seen) == 4 and all("another thread" in s for s in seen), seen
    assert not core.busy
    core.infos_hook = inner
    env.step(np.zeros(2, np.int64))  # and it is free again


# ------------------------------------------------------------ exceptions
def test_core_knows_no_gymnasium_exceptions():
    """The core raises plain exceptions; the front ends choose Gymnasium's."""
    assert "ResetNeeded" not in vars(_core) and "InvalidAction" not in vars(_core)
    from ccgym._params import PARAMS

    b = _core.Batch("CartPole", 1, PARAMS["CartPole"]())
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
