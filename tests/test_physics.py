"""Per-instance physical parameters (domain randomisation): a ccgym vector
batch with mixed parameters equals, instance by instance, Gymnasium's own envs
with those attributes set, bit for bit, through resets; defaults reproduce
Gymnasium; set_physics between episodes (and mid-episode) matches changing
Gymnasium's attributes; bad values raise clearly."""

from __future__ import annotations

import math
import zlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

import ccgym
from reference import reference_id, CONTINUOUS_IDS

ENV_IDS = list(ccgym.ENV_IDS)
CONTINUOUS_IDS = set(CONTINUOUS_IDS)
N = 8
STEPS = 1200

# ccgym parameter name -> (Gymnasium attribute, low, high) for random draws.
RANGES = {
    "CartPole": {
        "gravity": ("gravity", 7.0, 12.0), "masscart": ("masscart", 0.5, 2.0),
        "masspole": ("masspole", 0.05, 0.3), "length": ("length", 0.3, 0.8),
        "force_mag": ("force_mag", 5.0, 15.0), "tau": ("tau", 0.01, 0.03),
    },
    "MountainCar": {"force": ("force", 0.0008, 0.0025), "gravity": ("gravity", 0.0015, 0.003)},
    "MountainCarContinuous": {"power": ("power", 0.001, 0.004)},
    "Pendulum": {
        "g": ("g", 5.0, 15.0), "m": ("m", 0.5, 2.0), "l": ("l", 0.5, 1.5),
        "max_speed": ("max_speed", 4.0, 12.0), "max_torque": ("max_torque", 1.0, 3.0),
        "dt": ("dt", 0.03, 0.07),
    },
    "Acrobot": {
        "link_length_1": ("LINK_LENGTH_1", 0.7, 1.3), "link_length_2": ("LINK_LENGTH_2", 0.7, 1.3),
        "link_mass_1": ("LINK_MASS_1", 0.6, 1.5), "link_mass_2": ("LINK_MASS_2", 0.6, 1.5),
        "link_com_pos_1": ("LINK_COM_POS_1", 0.3, 0.7),
        "link_com_pos_2": ("LINK_COM_POS_2", 0.3, 0.7),
        "link_moi": ("LINK_MOI", 0.6, 1.5), "max_vel_1": ("MAX_VEL_1", 8.0, 16.0),
        "max_vel_2": ("MAX_VEL_2", 20.0, 35.0), "torque_noise_max": ("torque_noise_max", 0.0, 0.3),
    },
}


def kind_of(env_id: str) -> str:
    """The stock kind whose Gymnasium class the id's env mirrors (the key of
    RANGES, and of the Gymnasium attributes set_gym_attributes writes)."""
    return reference_id(env_id).split("-v")[0]


def draw_params(env_id: str, rng: np.random.Generator, n: int = N) -> dict[str, np.ndarray]:
    params = {name: rng.uniform(lo, hi, size=n)
              for name, (_, lo, hi) in RANGES[kind_of(env_id)].items()}
    if "torque_noise_max" in params:
        params["torque_noise_max"][::3] = 0.0  # mixed: some instances without noise
    return params


def set_gym_attributes(env: gym.Env, kind: str, params: dict[str, float]) -> None:
    """What a user of Gymnasium does to change an env's physics."""
    raw = env.unwrapped
    for name, value in params.items():
        setattr(raw, RANGES[kind][name][0], float(value))
    if kind == "CartPole":  # computed once in Gymnasium's __init__
        raw.total_mass = raw.masspole + raw.masscart
        raw.polemass_length = raw.masspole * raw.length


def gym_vector(env_id: str, per_instance: list[dict[str, float]] | None, n: int = N):
    def make(i):
        def fn():
            env = gym.make(reference_id(env_id), disable_env_checker=True)
            if per_instance is not None:
                set_gym_attributes(env, kind_of(env_id), per_instance[i])
            return env
        return fn

    if env_id == "CartPole-v0":
        with pytest.warns(DeprecationWarning):
            return SyncVectorEnv([make(i) for i in range(n)])
    return SyncVectorEnv([make(i) for i in range(n)])


def instance_params(params: dict[str, np.ndarray], n: int = N) -> list[dict[str, float]]:
    return [{k: float(np.broadcast_to(v, (n,))[i]) for k, v in params.items()} for i in range(n)]


def actions_for(env_id: str, rng: np.random.Generator, n: int = N) -> np.ndarray:
    if env_id in CONTINUOUS_IDS:
        return rng.uniform(-3.5, 3.5, size=(n, 1)).astype(np.float32)
    return rng.integers(0, 2 if reference_id(env_id).startswith("CartPole") else 3, size=n)


def compare(ours, theirs, env_id: str, steps: int, seed: int, rng: np.random.Generator,
            reset_seed: int | None = 0) -> int:
    """Steps both vector envs with the same actions; returns the number of episode ends."""
    if reset_seed is not None:
        o1, _ = ours.reset(seed=reset_seed)
        o2, _ = theirs.reset(seed=reset_seed)
        assert np.array_equal(o1, o2)
    ends = 0
    for t in range(steps):
        a = actions_for(env_id, rng, ours.num_envs)
        r1 = ours.step(a)
        r2 = theirs.step(a)
        for k, (x, y) in enumerate(zip(r1[:4], r2[:4])):
            if not np.array_equal(np.asarray(x), np.asarray(y)):
                bad = np.flatnonzero(np.any(np.asarray(x).reshape(ours.num_envs, -1)
                                            != np.asarray(y).reshape(ours.num_envs, -1), axis=1))
                raise AssertionError(
                    f"{env_id} seed {seed}: output {k} differs at step {t}, instances "
                    f"{bad.tolist()}: {np.asarray(x)[bad]} vs {np.asarray(y)[bad]}")
        ends += int(np.sum(r1[2] | r1[3]))
    return ends


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_mixed_parameters_match_gymnasium(env_id):
    rng = np.random.default_rng(zlib.crc32(env_id.encode()))  # (hash() is salted per process)
    params = draw_params(env_id, rng)
    ours = ccgym.make_vec(env_id, num_envs=N, **params)
    for k, v in ours.get_physics().items():
        assert np.array_equal(v, params[k]), k
    theirs = gym_vector(env_id, instance_params(params))
    ends = compare(ours, theirs, env_id, STEPS, 0, rng)
    assert ends >= N, "the run must cross episode ends (resets)"
    theirs.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_shared_nondefault_scalars_match_gymnasium(env_id):
    """Scalars (one params struct shared by all instances) take the other path in C."""
    rng = np.random.default_rng(7)
    params = {k: float(v[0]) for k, v in draw_params(env_id, rng, 1).items()}
    ours = ccgym.make_vec(env_id, num_envs=4, **params)
    theirs = gym_vector(env_id, [params] * 4, n=4)
    compare(ours, theirs, env_id, 600, 1, rng)
    theirs.close()


@pytest.mark.parametrize("explicit", [False, True])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_defaults_reproduce_gymnasium(env_id, explicit):
    """No parameters, or Gymnasium's defaults given explicitly per instance."""
    rng = np.random.default_rng(11)
    kwargs = {}
    if explicit:
        kwargs = {k: np.full(N, v) for k, v in ccgym._params.PHYSICS[kind_of(env_id)].items()}
    ours = ccgym.make_vec(env_id, num_envs=N, **kwargs)
    theirs = gym_vector(env_id, None)
    compare(ours, theirs, env_id, STEPS, 2, rng, reset_seed=5)
    theirs.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_set_physics_between_episodes_and_mid_episode(env_id):
    rng = np.random.default_rng(13)
    kind = kind_of(env_id)
    first = draw_params(env_id, rng)
    ours = ccgym.make_vec(env_id, num_envs=N, **first)
    theirs = gym_vector(env_id, instance_params(first))
    compare(ours, theirs, env_id, 150, 3, rng, reset_seed=1)

    # Between episodes: new parameters (arrays for some, a scalar for one), then reset.
    second = draw_params(env_id, rng)
    names = sorted(second)
    second[names[0]] = float(second[names[0]][0])
    ours.set_physics(**second)
    got = ours.get_physics()
    for k in names:
        assert np.array_equal(got[k], second[k]), k
    assert isinstance(got[names[0]], float)
    for env, p in zip(theirs.envs, instance_params(second)):
        set_gym_attributes(env, kind, p)
    compare(ours, theirs, env_id, 400, 3, rng, reset_seed=77)

    # Mid-episode, a subset of the names: applies from the next step, like an attribute.
    third = {names[-1]: rng.uniform(*RANGES[kind][names[-1]][1:], size=N)}
    ours.set_physics(**third)
    for env, p in zip(theirs.envs, instance_params(third)):
        set_gym_attributes(env, kind, p)
    compare(ours, theirs, env_id, 300, 3, rng, reset_seed=None)
    assert np.array_equal(ours.get_physics()[names[-1]], third[names[-1]])
    theirs.close()


@pytest.mark.parametrize("mode", ["SameStep", "Disabled"])
def test_mixed_parameters_other_autoreset_modes(mode):
    rng = np.random.default_rng(17)
    params = draw_params("CartPole-v1", rng)
    ours = ccgym.make_vec("CartPole-v1", num_envs=N, autoreset_mode=mode, **params)
    fns = [lambda p=p: _made_with("CartPole-v1", p) for p in instance_params(params)]
    theirs = SyncVectorEnv(fns, autoreset_mode=mode)
    o1, _ = ours.reset(seed=3)
    o2, _ = theirs.reset(seed=3)
    assert np.array_equal(o1, o2)
    for _ in range(800):
        a = actions_for("CartPole-v1", rng)
        r1, r2 = ours.step(a), theirs.step(a)
        for x, y in zip(r1[:4], r2[:4]):
            assert np.array_equal(x, y)
        if mode == "SameStep" and "final_obs" in r1[4]:
            for f1, f2 in zip(r1[4]["final_obs"], r2[4]["final_obs"]):
                assert (f1 is None and f2 is None) or np.array_equal(f1, f2)
        done = r1[2] | r1[3]
        if mode == "Disabled" and done.any():
            o1, _ = ours.reset(options={"reset_mask": done})
            o2, _ = theirs.reset(options={"reset_mask": done})
            assert np.array_equal(o1[done], o2[done])
    theirs.close()


def _made_with(env_id, params):
    env = gym.make(reference_id(env_id), disable_env_checker=True)
    set_gym_attributes(env, kind_of(env_id), params)
    return env


def test_threaded_mixed_parameters_equal_serial():
    """Per-instance parameter strides hold across thread chunks."""
    n = 4096 + 3
    rng = np.random.default_rng(19)
    params = draw_params("Acrobot-v1", rng, n)
    a = ccgym.make_vec("Acrobot-v1", num_envs=n, num_threads=2, **params)
    b = ccgym.make_vec("Acrobot-v1", num_envs=n, num_threads=1, **params)
    a.reset(seed=0)
    b.reset(seed=0)
    for _ in range(50):
        act = actions_for("Acrobot-v1", rng, n)
        for x, y in zip(a.step(act)[:4], b.step(act)[:4]):
            assert np.array_equal(x, y)


# ------------------------------------------------------------- bad values
BAD_VALUES = [
    ("wrong length", np.ones(N + 1), ValueError, "shape"),
    ("zero length", np.ones(0), ValueError, "shape"),
    ("2-D", np.ones((N, 1)), ValueError, "shape"),
    ("list wrong length", [1.0, 2.0], ValueError, "shape"),
    ("nan scalar", float("nan"), ValueError, "finite"),
    ("inf scalar", math.inf, ValueError, "finite"),
    ("-inf numpy scalar", np.float32(-np.inf), ValueError, "finite"),
    ("nan 0-d array", np.array(np.nan), ValueError, "finite"),
    ("nan in array", np.r_[np.ones(N - 1), np.nan], ValueError, "finite"),
    ("inf in array", np.r_[np.inf, np.ones(N - 1)], ValueError, "finite"),
    ("string", "heavy", TypeError, "real number"),
    ("bytes", b"1.0", TypeError, "real number"),
    ("string array", np.array(["1.0"] * N), TypeError, "real numbers"),
    ("object array", np.array([object()] * N), TypeError, "real numbers"),
    ("bool", True, TypeError, "real number"),
    ("bool array", np.ones(N, dtype=bool), TypeError, "real numbers"),
    ("complex", 1 + 2j, TypeError, "real number"),
    ("numpy complex", np.complex128(1 + 2j), TypeError, "real number"),
    ("complex array", np.ones(N, dtype=complex), TypeError, "real numbers"),
    ("None", None, TypeError, "real number"),
    ("dict", {"a": 1}, TypeError, "real number"),
    ("huge int", 10**400, OverflowError, "too large"),
]


@pytest.mark.parametrize("label,value,exc,match", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Acrobot-v1",
                                    "MountainCar-v0", "MountainCarContinuous-v0"])
def test_bad_physics_values_raise(env_id, label, value, exc, match):
    name = next(iter(RANGES[kind_of(env_id)]))
    with pytest.raises(exc, match=match):
        ccgym.make_vec(env_id, num_envs=N, **{name: value})
    env = ccgym.make_vec(env_id, num_envs=N)
    env.reset(seed=0)
    before_physics = env.get_physics()
    before = env.get_state()
    good_other = {k: 1.0 for k in list(RANGES[kind_of(env_id)])[1:2]}
    with pytest.raises(exc, match=match):
        env.set_physics(**good_other, **{name: value})  # all-or-nothing
    assert env.get_physics() == before_physics
    after = env.get_state()
    assert all(np.array_equal(before[k], after[k]) for k in before if isinstance(before[k],
                                                                              np.ndarray))
    # still steps like a default env
    ref = ccgym.make_vec(env_id, num_envs=N)
    ref.reset(seed=0)
    a = actions_for(env_id, np.random.default_rng(0))
    assert np.array_equal(env.step(a)[0], ref.step(a)[0])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_unknown_physics_names_raise(env_id):
    with pytest.raises(TypeError, match="unknown"):
        ccgym.make_vec(env_id, num_envs=2).set_physics(not_a_parameter=1.0)
    with pytest.raises(TypeError):
        ccgym.make_vec(env_id, num_envs=2, not_a_parameter=1.0)
    # a parameter of another env is unknown too
    other = "masscart" if not reference_id(env_id).startswith("CartPole") else "link_moi"
    with pytest.raises(TypeError, match="unknown"):
        ccgym.make_vec(env_id, num_envs=2).set_physics(**{other: 1.0})
    with pytest.raises(TypeError):
        ccgym.make_vec(env_id, num_envs=2, **{other: 1.0})


def test_non_physics_keywords_stay_scalar():
    with pytest.raises(TypeError, match="real number"):
        ccgym.make_vec("MountainCar-v0", num_envs=3, goal_velocity=np.zeros(3))
    with pytest.raises(TypeError):
        ccgym.make_vec("CartPole-v1", num_envs=3).set_physics(sutton_barto_reward=True)


def test_get_physics_returns_copies():
    env = ccgym.make_vec("Pendulum-v1", num_envs=3, m=np.array([1.0, 2.0, 3.0]))
    got = env.get_physics()
    got["m"][:] = 99.0
    assert np.array_equal(env.get_physics()["m"], [1.0, 2.0, 3.0])
    assert env.get_physics()["g"] == 10.0


def test_integer_and_float32_arrays_are_accepted_exactly():
    """Integer and float32 arrays are converted to float64 exactly as Gymnasium
    would see the value assigned (float(np.float32(x)))."""
    m32 = np.array([1.25, 0.7, 1.1, 2], dtype=np.float32)
    ours = ccgym.make_vec("Pendulum-v1", num_envs=4, m=m32, l=np.array([1, 2, 1, 1]))
    theirs = gym_vector("Pendulum-v1", [{"m": float(m), "l": float(ll)}
                                        for m, ll in zip(m32, [1, 2, 1, 1])], n=4)
    compare(ours, theirs, "Pendulum-v1", 400, 0, np.random.default_rng(3))
    theirs.close()


def test_pendulum_zero_or_huge_length_computes_as_numpy_float64_values():
    """The vector env's physics are float64 values: with l = 0, a huge l or
    m * l**2 underflowing it computes numpy's inf/NaN, as Gymnasium's env
    does with np.float64 attributes (with Python floats its step raises;
    the single env raises as it does, tests/test_live_attributes.py)."""
    for bad in ({"l": 0.0}, {"m": 0.0}, {"l": 1e200}, {"l": 1e-200, "m": 1e-10}):
        ours = ccgym.make_vec("Pendulum-v1", num_envs=2, **bad)
        ours.reset(seed=[4, 5])
        refs = []
        for seed in (4, 5):
            ref = gym.make("Pendulum-v1").unwrapped
            ref.reset(seed=seed)
            for name, value in bad.items():
                setattr(ref, name, np.float64(value))
            refs.append(ref)
        with np.errstate(all="ignore"):
            for t in range(5):
                a = np.full((2, 1), 0.5 - 0.25 * t, dtype=np.float32)
                obs, rew = ours.step(a)[:2]
                for i, ref in enumerate(refs):
                    o, r = ref.step(a[i])[:2]
                    assert np.array_equal(obs[i], o, equal_nan=True), (bad, t, obs[i], o)
                    assert np.array_equal(rew[i], r, equal_nan=True), (bad, t, rew[i], r)


@pytest.mark.parametrize("make", ["vector", "sb3"])
def test_batched_numpy_scalars_gymnasium_computes_in_their_type_are_refused(make):
    """np.float32 g: Gymnasium's Pendulum (SyncVectorEnv, DummyVecEnv)
    computes 3 * g in float32; the batched kernels compute in float64, so
    the vector and SB3 envs refuse it (the single env computes it). A numpy
    float64 computes as a Python float and is taken."""
    if make == "vector":
        def build(**kw):
            return ccgym.make_vec("Pendulum-v1", num_envs=N, **kw)
    else:
        sb3 = pytest.importorskip("ccgym.sb3", reason="needs stable-baselines3",
                                  exc_type=ImportError)

        def build(**kw):
            return sb3.make_vec_env("Pendulum-v1", N, env_kwargs=kw)
    values = [np.float32(9.81), np.float16(9.81)]
    if make == "vector":  # the SB3 env's single-env prototype refuses 0-d arrays first
        values.append(np.array(9.81, dtype=np.float32))
    for value in values:
        with pytest.raises(TypeError, match="batched envs compute with float64"):
            build(g=value)
    build(g=np.float64(9.81))
    if make == "vector":
        with pytest.raises(TypeError, match="batched envs compute with float64"):
            build(m=np.float32(2.0))
        env = build()
        before = env.get_physics()
        with pytest.raises(TypeError, match="batched envs compute with float64"):
            env.set_physics(l=np.float32(2.0))
        assert env.get_physics() == before
    else:
        env = build()
        # set_wrapper_attr reaches the env's physics (set_attr sets the
        # outermost wrapper's attribute only, as DummyVecEnv's).
        with pytest.raises(TypeError, match="batched envs compute with float64"):
            env.env_method("set_wrapper_attr", "g", np.float32(3.0))
        assert env.get_attr("g") == [10.0] * N
