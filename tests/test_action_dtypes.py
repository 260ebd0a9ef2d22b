"""Every action type Gymnasium accepts, computed as Gymnasium computes it.

numpy 2 (NEP 50) computes an action's terms in the action's own dtype, so
Gymnasium's Pendulum and MountainCarContinuous give other bits for a float64,
float16, integer, bool or list action than for a float32 one; ccgym picks
the same arithmetic from the action's dtype (python/ccgym/_core.pyx,
_ACTION_RULES). Each case runs ccgym and the installed Gymnasium side by
side, step by step, with random actions, in the single-env, vector and SB3
front ends; a batch's dtype applies to every row, as SyncVectorEnv and
DummyVecEnv hand each sub-env a row. Where ccgym refuses what Gymnasium
accepts, the refusal is one of the documented ones and a clear exception,
never a third answer.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.classic_control import Continuous_MountainCarEnv, PendulumEnv
from gymnasium.vector import AutoresetMode

import ccgym
import ccgym.envs
from reference import NEWEST_GYM_IDS, class_of, is_continuous, is_discrete
from vector_helpers import assert_same as _assert_same


def assert_same(ours, ref, where=""):
    """Bit-exact equality of results, tuples item by item."""
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref), f"{where}: {ours!r}"
        for k, (x, y) in enumerate(zip(ours, ref)):
            assert_same(x, y, f"{where} item {k}")
    else:
        _assert_same(ours, ref, where)

CONTINUOUS = [i for i in NEWEST_GYM_IDS if is_continuous(i)]
DISCRETE = [i for i in NEWEST_GYM_IDS if is_discrete(i)]
# Gymnasium's class and ccgym's per id, from the two registries.
REF_CLASSES = {i: class_of(i)[0] for i in NEWEST_GYM_IDS}
OUR_CLASSES = {i: class_of(i)[1] for i in NEWEST_GYM_IDS}

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
# Encodings of a batch of values v (float64, shape (N, 1)) that Gymnasium accepts.
ENCODINGS = ["float64", "float32", "float16", *INTS, "bool", "list", "tuple", "list of ints",
             "list of bools", "big-endian float64", "strided float64", "list of np.float16"]


def values(rng, shape, encoding):
    """Random action values for `encoding`: in and out of the bounds, with
    specials (inf, huge, tiny) now and then."""
    if encoding in INTS or encoding == "list of ints":
        dt = np.dtype(encoding if encoding in INTS else np.int64)
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -3), 4, shape).astype(dt)
        big = rng.random(shape) < 0.05
        # The extreme as a scalar of dt: a Python int of uint64's max does not
        # fit the int64 draws, which numpy 2.5's np.where refuses (OverflowError).
        return np.where(big, dt.type(info.max if dt.kind == "u" else info.min), v)
    if encoding in ("bool", "list of bools"):
        return rng.random(shape) < 0.5
    v = rng.uniform(-2.6, 2.6, shape)
    special = rng.random(shape)
    v = np.where(special < 0.02, np.inf, v)
    v = np.where((special >= 0.02) & (special < 0.04), -1e5, v)
    v = np.where((special >= 0.04) & (special < 0.06), 3e-6, v)
    return v


def encode(v, encoding):
    """The action object: v in `encoding` (v: one action (1,) or a batch (N, 1))."""
    if encoding in ("float64", "float32", "float16"):
        with np.errstate(over="ignore"):  # -1e5 is -inf in float16
            return v.astype(encoding)
    if encoding in INTS or encoding == "bool":
        return v
    if encoding in ("list", "list of ints", "list of bools"):
        return v.tolist()
    if encoding == "tuple":
        return tuple(tuple(r) for r in v.tolist()) if v.ndim == 2 else tuple(v.tolist())
    if encoding == "big-endian float64":
        return v.astype(">f8")
    if encoding == "strided float64":
        wide = np.repeat(v.astype(np.float64), 2, axis=-1)
        return wide[..., ::2]
    if encoding == "list of np.float16":
        with np.errstate(over="ignore"):
            v = v.astype(np.float16)
        return [[np.float16(x) for x in r] for r in v] if v.ndim == 2 else \
            [np.float16(x) for x in v]
    raise AssertionError(encoding)


def _ref_step(env, action):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf/huge actions: numpy's overflow
        return env.step(action)


def _assert_single_step(ours, ref, a, where):
    got = ours.step(a)
    want = _ref_step(ref, a)
    assert_same(got, want, where)  # obs bits; reward value and type; flags; info
    if isinstance(ref, PendulumEnv):
        assert type(ours.unwrapped.last_u) is type(ref.last_u), where
        assert_same(ours.unwrapped.state, ref.state, f"{where} state")
    else:
        assert_same(ours.unwrapped.state, ref.state, f"{where} state")
    return want


def _run_single(env_id, encoding, seeds, steps):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        ours, ref = OUR_CLASSES[env_id](), REF_CLASSES[env_id]()
        assert_same(ours.reset(seed=seed), ref.reset(seed=seed))
        for t in range(steps):
            a = encode(values(rng, (1,), encoding), encoding)
            out = _assert_single_step(ours, ref, a, f"{env_id} {encoding} seed {seed} step {t}")
            if out[2]:
                assert_same(ours.reset(seed=seed + t), ref.reset(seed=seed + t))


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_single_env_matches_gymnasium(env_id, encoding):
    _run_single(env_id, encoding, seeds=range(2), steps=50)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_single_env_matches_gymnasium_long(env_id, encoding):
    _run_single(env_id, encoding, seeds=range(100, 120), steps=400)


def test_issue_example_float64_pendulum():
    """The report in issue 16: float64 arithmetic, and an np.float64 reward."""
    ours, ref = gym.make("ccgym/Pendulum-v1"), gym.make("Pendulum-v1")
    ours.reset(seed=7)
    ref.reset(seed=7)
    got, want = ours.step(np.array([0.3])), ref.step(np.array([0.3]))
    assert want[1] == -0.6809943739632108
    assert_same(got, want)
    assert type(got[1]) is np.float64


@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_reward_types_through_gym_make(env_id):
    ours, ref = gym.make(f"ccgym/{env_id}"), gym.make(env_id)
    ours.reset(seed=0)
    ref.reset(seed=0)
    for a in (np.array([0.5], np.float32), np.array([0.5]), [0.5], np.array([1], np.int32)):
        got, want = ours.step(a), ref.step(a)
        assert type(got[1]) is type(want[1]), (a, type(got[1]), type(want[1]))
        assert_same(got, want, repr(a))


# ------------------------------------------------------------ vector, SB3
def _make_ref_vec(env_id, n):
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="sync",
                        vector_kwargs={"autoreset_mode": AutoresetMode.NEXT_STEP})


def _run_vector(env_id, encoding, seed, n, steps):
    rng = np.random.default_rng(seed)
    ours, ref = ccgym.make_vec(env_id, n), _make_ref_vec(env_id, n)
    assert_same(ours.reset(seed=seed), ref.reset(seed=seed))
    for t in range(steps):
        a = encode(values(rng, (n, 1), encoding), encoding)
        got = ours.step(a)
        want = _ref_step(ref, a)
        assert_same(got, want, f"{env_id} {encoding} step {t}")


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_vector_env_matches_sync_vector_env(env_id, encoding):
    _run_vector(env_id, encoding, seed=5, n=4, steps=40)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_vector_env_matches_sync_vector_env_long(env_id, encoding):
    _run_vector(env_id, encoding, seed=11, n=16, steps=1200)  # through time limits


def _run_sb3(env_id, encoding, seed, n, steps):
    pytest.importorskip("stable_baselines3", reason="the SB3 front end needs stable-baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    import ccgym.sb3

    rng = np.random.default_rng(seed)
    ref = DummyVecEnv([lambda: gym.make(env_id) for _ in range(n)])
    ours = ccgym.sb3.VecEnv(env_id, n)
    ref.seed(seed)
    ours.seed(seed)
    assert ref.reset().tobytes() == ours.reset().tobytes()
    for t in range(steps):
        a = encode(values(rng, (n, 1), encoding), encoding)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = ref.step(a)
        o = ours.step(a)
        where = f"{env_id} {encoding} step {t}"
        for x, y in zip(o[:3], r[:3]):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), where
        for x, y in zip(o[3], r[3]):
            assert x.keys() == y.keys(), where
            if "terminal_observation" in y:
                assert x["terminal_observation"].tobytes() == y["terminal_observation"].tobytes()


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_sb3_matches_dummy_vec_env(env_id, encoding):
    _run_sb3(env_id, encoding, seed=3, n=3, steps=30)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_sb3_matches_dummy_vec_env_long(env_id, encoding):
    _run_sb3(env_id, encoding, seed=13, n=8, steps=1100)


# ------------------------------------------------------------- float16
def _every_float16(lo, hi):
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):
        return h[(h >= lo) & (h <= hi)]


def test_pendulum_float16_actions():
    """Every 7th float16 action in [-2.5, 2.5] (the slow variant: all of them)."""
    _pendulum_float16((0.5, -1.0), 7)


@pytest.mark.slow
@pytest.mark.parametrize("state", [(0.5, -1.0), (-3.0, 7.9), (np.pi, 0.0)])
def test_pendulum_every_float16_action(state):
    _pendulum_float16(state, 1)


def _pendulum_float16(state, stride):
    """Each float16 action in [-2.5, 2.5] from a fixed state: numpy's float16
    scalar math (float32, rounded to float16 after each op) emulated bit for bit."""
    ours, ref = ccgym.envs.PendulumEnv(), PendulumEnv()
    ours.reset(seed=0)
    ref.reset(seed=0)
    view = ours.batch.state_view(ours._state_dtype)
    for u in _every_float16(-2.5, 2.5)[::stride]:
        view[0]["th"], view[0]["thdot"] = state
        ref.state = np.array(state)
        a = np.array([u], np.float16)
        assert_same(ours.step(a), ref.step(a), f"u={u!r}")
        assert type(ours.last_u) is type(ref.last_u) is np.float16


@pytest.mark.parametrize("state", [np.array([-0.5, 0.01], np.float32), np.array([-0.5, 0.0]),
                                   np.array([0.449, 0.069], np.float32)])
def test_mountain_car_continuous_every_float16_action(state):
    """Each float16 action in [-1.5, 1.5] from a float32 state (after a step)
    and a float64 one (right after reset)."""
    ours, ref = ccgym.envs.Continuous_MountainCarEnv(), Continuous_MountainCarEnv()
    ours.reset(seed=0)
    ref.reset(seed=0)
    view = ours.batch.state_view(ours._state_dtype)
    for u in _every_float16(-1.5, 1.5)[::3]:
        view[0]["position"], view[0]["velocity"] = state
        view[0]["state_f32"] = int(state.dtype == np.float32)
        ref.state = state.copy()
        a = np.array([u], np.float16)
        assert_same(ours.step(a), ref.step(a), f"u={u!r}")


# ------------------------------------------------------------ refusals
# (id, single-env action or None, vector batch of 3 or None)
CONTINUOUS_REFUSED = [
    # Gymnasium raises too (it indexes the action with [0]):
    ("python float", 0.5, None), ("0-d float64", np.array(0.5), None),
    ("np.float32", np.float32(0.5), None), ("0-d int", np.array(1), None),
    # Gymnasium would compute in long double: refused.
    ("longdouble", np.array([0.5], np.longdouble), np.full((3, 1), 0.5, np.longdouble)),
    # Leaves Gymnasium computes in different types: refused.
    ("mixed list", None, [[0.5], [np.float32(0.5)], [0.5]]),
]


@pytest.mark.parametrize(("action", "batch"), [c[1:] for c in CONTINUOUS_REFUSED],
                         ids=[c[0] for c in CONTINUOUS_REFUSED])
@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_refused_continuous_actions_are_clear_errors(env_id, action, batch):
    if np.dtype(np.longdouble).itemsize == 8 and getattr(action, "dtype", None) == np.longdouble:
        pytest.skip("long double is float64 on this platform")
    ours = OUR_CLASSES[env_id]()
    ours.reset(seed=0)
    twin = OUR_CLASSES[env_id]()
    twin.reset(seed=0)
    if action is not None:
        with pytest.raises(gym.error.InvalidAction, match="not a valid action"):
            ours.step(action)
    if batch is not None:
        vec = ccgym.make_vec(env_id, 3)
        vec.reset(seed=0)
        with pytest.raises(TypeError, match="not supported|mix values"):
            vec.step(batch)
    a = np.array([0.25], np.float32)
    assert_same(ours.step(a), twin.step(a), "after the refusal")


def test_mountain_car_continuous_square_overflow_raises_like_gymnasium():
    """math.pow(action[0], 2) overflows for a float64 of 1e200: Gymnasium raises
    OverflowError, so does ccgym, and the env is left as it was."""
    ours, ref = ccgym.envs.Continuous_MountainCarEnv(), Continuous_MountainCarEnv()
    twin = ccgym.envs.Continuous_MountainCarEnv()
    for e in (ours, ref, twin):
        e.reset(seed=1)
    with pytest.raises(OverflowError):
        ref.step(np.array([1e200]))
    with pytest.raises(OverflowError, match="math range error"):
        ours.step(np.array([1e200]))
    vec = ccgym.make_vec("MountainCarContinuous-v0", 2)
    vec.reset(seed=0)
    with pytest.raises(OverflowError, match="math range error"):
        vec.step(np.array([[0.0], [-1e200]]))
    a = np.array([0.5])
    assert_same(ours.step(a), twin.step(a))
    ref.step(a)
    assert_same(ours.step(np.array([np.inf])), ref.step(np.array([np.inf])))  # no overflow


# ------------------------------------------------------------- discrete
def _discrete_actions(n):
    """Every kind of integer action Gymnasium's discrete envs may get."""
    out = []
    for v in range(-4, n + 1):
        out.append(v)
        for dt in INTS:
            info = np.iinfo(dt)
            if info.min <= v <= info.max:
                out.append(np.dtype(dt).type(v))
                out.append(np.array(v, dt))
    out += [True, False, np.True_, np.False_, np.uint64(2**64 - 1), np.uint64(2**63),
            np.int64(-(2**63)), 2**70, -(2**70), 1.0, np.float32(1), np.array([1])]
    return out


# What ccgym refuses although Gymnasium steps it (a clear error, never a third answer):
# Acrobot's negative actions (Gymnasium indexes AVAIL_TORQUE[a]) and MountainCar's
# unsigned 0 (Gymnasium's action - 1 wraps around to the dtype's maximum).
def _documented_refusal(env_id, action):
    v = action.item() if isinstance(action, (np.generic, np.ndarray)) else action
    unsigned = getattr(action, "dtype", np.dtype(np.int64)).kind == "u"
    if env_id == "Acrobot-v1" and isinstance(v, int) and -3 <= v < 0:
        return True
    return env_id == "MountainCar-v0" and unsigned and v == 0


@pytest.mark.parametrize("env_id", DISCRETE)
def test_discrete_single_action_types(env_id):
    n = {"CartPole-v1": 2}.get(env_id, 3)
    for action in _discrete_actions(n):
        ours, ref = OUR_CLASSES[env_id](), REF_CLASSES[env_id]()
        assert_same(ours.reset(seed=3), ref.reset(seed=3))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # uint 0 - 1: overflow
                want = ref.step(action)
        except Exception:  # noqa: BLE001 - any refusal of Gymnasium's
            want = None
        # Gymnasium >= 1.2's Discrete.contains refuses uint64 (no safe cast to
        # int64): CartPole and MountainCar assert it, so ccgym refuses them too
        # (below); on Gymnasium 1.0/1.1 both step them.
        if want is None or _documented_refusal(env_id, action):
            with pytest.raises(gym.error.InvalidAction):
                ours.step(action)
            continue
        assert_same(ours.step(action), want, f"{env_id} {action!r}")
        assert_same(ours.state if env_id != "MountainCar-v0" else np.array(ours.state),
                    ref.state if env_id != "MountainCar-v0" else np.array(ref.state),
                    f"{env_id} {action!r} state")


def test_mountain_car_unsigned_zero_is_refused_clearly():
    """Gymnasium's np.uint8(0) - 1 is 255: ccgym refuses with a clear error (single and vector)."""
    env = ccgym.envs.MountainCarEnv()
    env.reset(seed=0)
    for a in (np.uint8(0), np.array(0, np.uint16), np.uint64(0)):
        with pytest.raises(gym.error.InvalidAction, match="wraps around"):
            env.step(a)
    env.step(np.uint8(1))  # 1 - 1 does not wrap
    vec = ccgym.make_vec("MountainCar-v0", 3)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="wraps around"):
        vec.step(np.array([1, 0, 2], np.uint8))
    with pytest.raises(ValueError, match="wraps around"):
        vec.step([np.uint8(1), np.uint8(0), np.uint8(2)])
    vec.step(np.array([1, 2, 2], np.uint8))
    vec.step(np.array([1, 0, 2], np.int8))


@pytest.mark.parametrize("dtype", [*INTS, "list"])
@pytest.mark.parametrize("env_id", DISCRETE)
def test_discrete_vector_action_dtypes(env_id, dtype):
    """Batches of every integer dtype: as Gymnasium's SyncVectorEnv steps them,
    or (an unsigned 0 for MountainCar) a clear refusal."""
    n = 6
    ours, ref = ccgym.make_vec(env_id, n), _make_ref_vec(env_id, n)
    assert_same(ours.reset(seed=2), ref.reset(seed=2))
    k = int(ours.single_action_space.n)
    rng = np.random.default_rng(0)
    for t in range(40):
        a = rng.integers(0, k, n)
        a = a.tolist() if dtype == "list" else a.astype(dtype)
        if env_id == "MountainCar-v0" and dtype.startswith("uint") and 0 in list(a):
            with pytest.raises(ValueError, match="wraps around"):
                ours.step(a)
            a = np.where(np.asarray(a) == 0, 1, a).astype(dtype)
        if dtype == "uint64" and env_id != "Acrobot-v1":
            # Gymnasium >= 1.2 refuses uint64 here (Discrete.contains: no safe
            # cast to int64); ccgym steps the values as int64.
            assert_same(ours.step(a), _ref_step(ref, a.astype(np.int64)), f"{dtype} step {t}")
            continue
        assert_same(ours.step(a), _ref_step(ref, a), f"{env_id} {dtype} step {t}")
