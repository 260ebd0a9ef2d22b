"""gym.make / gym.make_vec on a ccgym id against the same call on the stock id
(issue 16, item 3), live against the installed Gymnasium: what works on one
works on the other, with the same wrappers, spaces, spec fields, warnings and
numbers; and the CartPole vector env's ``state`` / ``prev_done`` as
Gymnasium's ``CartPoleVectorEnv`` has them."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.classic_control.cartpole import CartPoleVectorEnv
from gymnasium.vector import AutoresetMode

import ccgym
import ccgym.vector
from reference import reference_id

# CartPole-v0's "out of date" warning is Gymnasium's, on both ids.
pytestmark = pytest.mark.filterwarnings("ignore:.*out of date:DeprecationWarning")

IDS = list(ccgym.ENV_IDS)
NON_CARTPOLE = [i for i in IDS if not reference_id(i).startswith("CartPole")]


def ccgym_id(env_id: str) -> str:
    return f"ccgym/{env_id}"


def as_reference(message: str) -> str:
    """A warning's text with an added env's id (one Gymnasium lacks) read as
    the Gymnasium id it mirrors, as the namespace is dropped above: the
    messages Gymnasium prints name the id they were made with."""
    for env_id in IDS:
        if reference_id(env_id) != env_id:
            message = message.replace(f'"{env_id}"', f'"{reference_id(env_id)}"')
    return message


def outcome(fn):
    """(True, result, warnings) or (False, exception type, warnings)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            result = (True, fn())
        except Exception as e:  # noqa: BLE001 - compared by type
            result = (False, type(e))
    messages = [as_reference(str(x.message).replace("ccgym/", "")) for x in w
                if "out of date" not in str(x.message)]
    return (*result, messages)


def wrapper_names(env) -> list[str]:
    names = []
    while isinstance(env, gym.Wrapper):
        names.append(type(env).__name__)
        env = env.env
    return names


def rollout_single(env, seed: int, steps: int = 60):
    """Observations, rewards and flags of a seeded rollout with seeded actions."""
    env.action_space.seed(seed)
    out = [env.reset(seed=seed)[0].tobytes()]
    for _ in range(steps):
        obs, rew, term, trunc, _ = env.step(env.action_space.sample())
        out.append((obs.tobytes(), float(rew), bool(term), bool(trunc)))
        if term or trunc:
            out.append(env.reset()[0].tobytes())
    return out


# ------------------------------------------------------------- the specs
@pytest.mark.parametrize("env_id", IDS)
def test_spec_round_trips_like_stock(env_id):
    spec = gym.spec(ccgym_id(env_id))
    stock = gym.spec(reference_id(env_id))
    assert isinstance(spec.vector_entry_point, str)
    assert spec.vector_entry_point == f"ccgym.vector:{ccgym.vector_class_name(env_id)}"
    # What Gymnasium's own registration tests do with a spec.
    assert copy.deepcopy(spec) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert gym.envs.registration.EnvSpec.from_json(spec.to_json()) == spec
    for field in ("max_episode_steps", "reward_threshold", "nondeterministic",
                  "order_enforce", "disable_env_checker", "kwargs", "additional_wrappers"):
        assert getattr(spec, field) == getattr(stock, field), field
    env = gym.make(ccgym_id(env_id))
    ref = gym.make(reference_id(env_id))
    assert gym.envs.registration.EnvSpec.from_json(env.spec.to_json()) == env.spec
    assert env.spec.kwargs == ref.spec.kwargs
    assert env.spec.additional_wrappers == ref.spec.additional_wrappers
    # gym.make with the spec itself, and with a copy of it.
    assert rollout_single(gym.make(copy.deepcopy(spec)), 3) == rollout_single(gym.make(reference_id(env_id)), 3)


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_spec_and_vector_entry_point_class(env_id):
    envs = gym.make_vec(ccgym_id(env_id), num_envs=3)
    cls = getattr(ccgym.vector, ccgym.vector_class_name(env_id))
    assert type(envs) is cls and isinstance(envs, ccgym.vector.VectorEnv)
    assert envs.env_id == env_id
    spec = envs.spec
    assert gym.envs.registration.EnvSpec.from_json(spec.to_json()) == spec
    assert copy.deepcopy(spec) == spec
    assert spec.kwargs["num_envs"] == 3
    assert spec.kwargs["vectorization_mode"] == "vector_entry_point"
    # make_vec from the vector env's spec (Gymnasium's test_make_vec_with_spec).
    again = gym.make_vec(spec)
    assert type(again) is cls and again.num_envs == 3
    # The id class pickles (by reference) and takes VectorEnv's keywords.
    envs.reset(seed=1)
    clone = pickle.loads(pickle.dumps(envs))
    assert type(clone) is cls
    a = envs.action_space.sample()
    assert envs.step(a)[0].tobytes() == clone.step(a)[0].tobytes()
    direct = cls(2, autoreset_mode="SameStep", max_episode_steps=5)
    assert direct.num_envs == 2 and direct.max_episode_steps == 5
    assert direct.autoreset_mode is AutoresetMode.SAME_STEP


# ---------------------------------------------------------- render modes
STOCK_RENDER_NEEDS_PYGAME = ("Gymnasium's stock env draws its frames with pygame "
                             '(pip install "ccgym[render]")')
RENDER_MODES = [None, "rgb_array", "rgb_array_list", "ansi", "no-render-mode", "depth_array"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("render_mode", RENDER_MODES)
def test_make_render_modes_as_stock(env_id, render_mode):
    if render_mode in ("rgb_array", "rgb_array_list"):
        pytest.importorskip("pygame", reason=STOCK_RENDER_NEEDS_PYGAME)
    ok, ref, ref_warn = outcome(lambda: gym.make(reference_id(env_id), render_mode=render_mode))
    ok2, ours, our_warn = outcome(lambda: gym.make(ccgym_id(env_id), render_mode=render_mode))
    assert ok and ok2
    assert our_warn == ref_warn
    assert ours.render_mode == ref.render_mode
    assert ours.unwrapped.render_mode == ref.unwrapped.render_mode
    assert wrapper_names(ours) == wrapper_names(ref)
    frames, render_warns = [], []
    for env in (ref, ours):
        env.reset(seed=0)
        env.step(env.action_space.sample())
        ok, frame, messages = outcome(env.render)
        frames.append((ok, frame))
        render_warns.append(messages)
    assert render_warns[1] == render_warns[0]
    # A mode outside metadata: the env checker's AssertionError on both.
    assert frames[1][0] == frames[0][0] == (render_mode in (None, "rgb_array", "rgb_array_list"))
    if not frames[0][0]:
        assert frames[1][1] is frames[0][1]
        return
    frames = [f for _, f in frames]
    if render_mode in ("rgb_array", "rgb_array_list"):
        if render_mode == "rgb_array_list":
            assert isinstance(frames[1], list) and len(frames[1]) == len(frames[0])
            frames = [f[-1] for f in frames]
        assert frames[1].shape == frames[0].shape and frames[1].dtype == np.uint8
    else:
        assert frames == [None, None]
    ref.close()
    ours.close()


@pytest.mark.parametrize("render_mode", RENDER_MODES[1:])
def test_direct_construction_takes_any_render_mode(render_mode):
    """CartPoleEnv(render_mode=...) takes any string (Gymnasium's test_order_enforcing)."""
    env = ccgym.CartPoleEnv(render_mode=render_mode)
    assert env.render_mode == render_mode
    assert env.render() is None  # before reset, as Gymnasium's CartPole
    with pytest.raises(TypeError):
        ccgym.CartPoleEnv(render_mode=3)


def test_make_vec_render_modes_as_cartpole_vector_env():
    pytest.importorskip("pygame", reason=STOCK_RENDER_NEEDS_PYGAME)
    for mode in ("rgb_array", "rgb_array_list", "depth_array"):
        ref = gym.make_vec("CartPole-v1", num_envs=2, render_mode=mode)
        ours = gym.make_vec(ccgym_id("CartPole-v1"), num_envs=2, render_mode=mode)
        assert ours.render_mode == ref.render_mode == mode
        ref.reset(seed=0), ours.reset(seed=0)
        r, o = ref.render(), ours.render()
        assert len(o) == len(r) == 2 and all(f.shape == (400, 600, 3) for f in o)
        # Gymnasium's vector HumanRendering takes the frames of either.
        assert np.array(o, dtype=np.uint8).shape == np.array(r, dtype=np.uint8).shape


# ------------------------------------------------------- make's kwargs
MAKE_KWARGS = [
    {},
    {"max_episode_steps": 7},
    {"max_episode_steps": None},
    {"disable_env_checker": True},
    {"disable_env_checker": False},
    {"autoreset": True, "max_episode_steps": 5},
    {"order_enforce": False} if "order_enforce" in gym.make.__code__.co_varnames else {},
    {"no_such_kwarg": 1},
]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kwargs", MAKE_KWARGS, ids=lambda k: ",".join(k) or "none")
def test_make_kwargs_as_stock(env_id, kwargs):
    ok, ref, ref_warn = outcome(lambda: gym.make(reference_id(env_id), **kwargs))
    ok2, ours, our_warn = outcome(lambda: gym.make(ccgym_id(env_id), **kwargs))
    assert ok == ok2
    if not ok:
        assert ours is ref  # the same exception type
        return
    assert wrapper_names(ours) == wrapper_names(ref)
    assert our_warn == ref_warn
    assert ours.spec.kwargs == ref.spec.kwargs
    assert ours.spec.max_episode_steps == ref.spec.max_episode_steps
    assert rollout_single(ours, 11) == rollout_single(ref, 11)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "CartPole-v1", "MountainCarContinuous-v0"])
def test_make_with_gymnasium_wrappers(env_id):
    """Wrappers a user stacks on gym.make give the same numbers on both."""
    def stack(env):
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env = gym.wrappers.TransformObservation(env, lambda o: o * 2, env.observation_space)
        if isinstance(env.action_space, gym.spaces.Box):
            lo = np.full(env.action_space.shape, -0.5, dtype=np.float32)
            env = gym.wrappers.RescaleAction(env, lo, -lo)
            env = gym.wrappers.ClipAction(env)
        return gym.wrappers.FrameStackObservation(env, 3)

    assert rollout_single(stack(gym.make(ccgym_id(env_id))), 5, 300) == \
        rollout_single(stack(gym.make(reference_id(env_id))), 5, 300)


# ---------------------------------------------------- make_vec's kwargs
def rollout_vec(envs, seed: int, steps: int = 80):
    envs.action_space.seed(seed)
    obs, info = envs.reset(seed=seed)
    out = [obs.tobytes()]
    for _ in range(steps):
        obs, rew, term, trunc, info = envs.step(envs.action_space.sample())
        extra = {}
        for k in ("final_obs", "episode"):
            if k in info:
                extra[k] = repr(info[k]) if k == "final_obs" else (
                    info[k]["r"].tobytes(), info[k]["l"].tobytes())
        out.append((obs.tobytes(), rew.tobytes(), term.tobytes(), trunc.tobytes(),
                    sorted(info), extra))
    return out


MAKE_VEC_CASES = [
    ({"vectorization_mode": "sync"}, {}),
    ({"vectorization_mode": "sync", "vector_kwargs": {"autoreset_mode": AutoresetMode.SAME_STEP}},
     {}),
    ({"vectorization_mode": "sync", "wrappers": [gym.wrappers.RecordEpisodeStatistics]}, {}),
    ({"vectorization_mode": "sync", "max_episode_steps": 9}, {}),
    ({"vectorization_mode": "sync", "disable_env_checker": True}, {}),
    ({"vectorization_mode": "vector_entry_point", "vector_kwargs": {"copy": False}}, {}),
    ({"vectorization_mode": "vector_entry_point",
      "wrappers": [gym.wrappers.RecordEpisodeStatistics]}, {}),
    ({"vectorization_mode": "bogus"}, {}),
    ({"render_mode": "rgb_array"}, {}),
    ({"max_episode_steps": 9}, {}),
]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("case", range(len(MAKE_VEC_CASES)))
def test_make_vec_kwargs_as_stock(env_id, case):
    """Each make_vec call: works on both or fails alike; same numbers where
    both build a SyncVectorEnv-semantics env. The one exception is the
    default vectorization of CartPole (Gymnasium's CartPoleVectorEnv seeds
    one generator for the batch; ccgym's vector env seeds as SyncVectorEnv
    does): compared with Gymnasium's sync mode instead."""
    kwargs, _ = MAKE_VEC_CASES[case]
    ok, ref, _ = outcome(lambda: gym.make_vec(reference_id(env_id), num_envs=3, **kwargs))
    ok2, ours, _ = outcome(lambda: gym.make_vec(ccgym_id(env_id), num_envs=3, **kwargs))
    if kwargs.get("vectorization_mode") == "vector_entry_point" and env_id in NON_CARTPOLE:
        assert not ok  # stock ids without a vector entry point; ccgym has one
    else:
        assert ok == ok2, (ref, ours)
    if not ok2:
        if not ok:
            assert ours is ref
        return
    mode = kwargs.get("vectorization_mode")
    if not ok or (mode is None and reference_id(env_id).startswith("CartPole")):
        sync_kwargs = {k: v for k, v in kwargs.items() if k != "vectorization_mode"}
        sync_kwargs.pop("vector_kwargs", None)
        ref = gym.make_vec(reference_id(env_id), num_envs=3, vectorization_mode="sync", **sync_kwargs)
    assert ours.num_envs == ref.num_envs
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.single_action_space == ref.single_action_space
    assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"]
    assert ours.render_mode == ref.render_mode
    ok, js, _ = outcome(ours.spec.to_json)
    assert ok == outcome(ref.spec.to_json)[0]  # both refuse AutoresetMode / wrapper kwargs
    if ok:
        assert gym.envs.registration.EnvSpec.from_json(js) == ours.spec
    assert rollout_vec(ours, 4) == rollout_vec(ref, 4)
    ref.close()
    ours.close()


@pytest.mark.parametrize("mode", list(AutoresetMode))
@pytest.mark.parametrize("env_id", ["Acrobot-v1", "Pendulum-v1"])
def test_make_vec_autoreset_modes_as_sync(env_id, mode):
    """The vector entry point's autoreset_mode kwarg against SyncVectorEnv's
    vector_kwargs (what make_vec(stock id) builds for these ids)."""
    ref = gym.make_vec(reference_id(env_id), num_envs=3, vector_kwargs={"autoreset_mode": mode},
                       max_episode_steps=20)
    ours = gym.make_vec(ccgym_id(env_id), num_envs=3, autoreset_mode=mode, max_episode_steps=20)
    assert ours.metadata["autoreset_mode"] is mode
    if mode is AutoresetMode.DISABLED:
        # A done instance must be reset by mask before stepping on.
        for envs in (ref, ours):
            envs.reset(seed=2)
        for t in range(45):
            a = ref.action_space.sample()
            r, o = ref.step(a), ours.step(a)
            assert [x.tobytes() for x in r[:4]] == [x.tobytes() for x in o[:4]], t
            done = r[2] | r[3]
            if done.any():
                assert ref.reset(options={"reset_mask": done})[0].tobytes() == \
                    ours.reset(options={"reset_mask": done})[0].tobytes()
        return
    assert rollout_vec(ours, 6, 50) == rollout_vec(ref, 6, 50)


@pytest.mark.slow
def test_make_vec_async_as_stock():
    kwargs = {"vectorization_mode": "async", "vector_kwargs": {"context": "spawn"}}
    ref = gym.make_vec("Pendulum-v1", num_envs=2, **kwargs)
    ours = gym.make_vec(ccgym_id("Pendulum-v1"), num_envs=2, **kwargs)
    try:
        assert rollout_vec(ours, 1, 30) == rollout_vec(ref, 1, 30)
    finally:
        ref.close()
        ours.close()


# -------------------------------------------- CartPole's vector state
def test_cartpole_vector_state_as_cartpole_vector_env():
    ref = gym.make_vec("CartPole-v1", num_envs=4)
    ours = gym.make_vec(ccgym_id("CartPole-v1"), num_envs=4)
    assert isinstance(ref.unwrapped, CartPoleVectorEnv)
    assert ref.unwrapped.state is None and ours.state is None
    ref.reset(seed=0)
    ours.reset(seed=0)
    assert ours.state.shape == ref.unwrapped.state.shape == (4, 4)
    assert ours.state.dtype == ref.unwrapped.state.dtype == np.float64
    assert ours.prev_done.dtype == ref.unwrapped.prev_done.dtype
    # ccgym's instance i is SyncVectorEnv's (seed + i), column i of its state.
    for i in range(4):
        single = gym.make("CartPole-v1")
        single.reset(seed=i)
        assert ours.state[:, i].tobytes() == single.unwrapped.state.tobytes()
    # The same dynamics: from CartPoleVectorEnv's state, one step of each
    # gives the same bits (resets differ: one generator vs one per instance).
    rng = np.random.default_rng(1)
    checked = 0
    for t in range(400):
        ours.state = ref.unwrapped.state
        assert np.array_equal(ours.state, ref.unwrapped.state)
        assert np.array_equal(ours.prev_done, ref.unwrapped.prev_done)
        resetting = ref.unwrapped.prev_done.copy()
        a = rng.integers(0, 2, size=4)
        r, o = ref.step(a), ours.step(a)
        keep = ~resetting
        assert r[0][keep].tobytes() == o[0][keep].tobytes(), t
        # CartPoleVectorEnv's rewards are float32, SyncVectorEnv's (and ccgym's) float64.
        assert np.array_equal(r[1], o[1]), t
        assert r[2].tobytes() == o[2].tobytes() and r[3].tobytes() == o[3].tobytes(), t
        assert ref.unwrapped.state[:, keep].tobytes() == \
            np.ascontiguousarray(ours.state[:, keep]).tobytes()
        checked += int(keep.sum())
    assert checked > 1000


def test_cartpole_vector_state_is_live_and_checked():
    envs = gym.make_vec(ccgym_id("CartPole-v1"), num_envs=3)
    envs.reset(seed=5)
    envs.state[2, 1] = 0.3  # theta of instance 1, past the threshold
    obs, rew, term, trunc, _ = envs.step(np.zeros(3, dtype=np.int64))
    assert term.tolist() == [False, True, False]
    before = envs.state.copy()
    with pytest.raises(ValueError, match="shape"):
        envs.state = np.zeros((3, 4))
    assert np.array_equal(envs.state, before)  # a rejected write changes nothing
    with pytest.raises(ValueError):
        envs.prev_done[0] = True  # read-only, never silently ignored
    for env_id in NON_CARTPOLE:
        other = gym.make_vec(ccgym_id(env_id), num_envs=2)
        assert not hasattr(other, "state") and not hasattr(other, "prev_done")
        with pytest.raises(AttributeError):
            other.state = np.zeros((2, 2))


def test_readme_cartpole_vector_env_relation():
    """README's statement: make_vec("ccgym/CartPole-v1", N) equals Gymnasium's
    sync vectorization bit for bit, and differs from CartPoleVectorEnv's
    one-generator resets."""
    ours = gym.make_vec(ccgym_id("CartPole-v1"), num_envs=3)
    sync = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    native = gym.make_vec("CartPole-v1", num_envs=3)
    assert rollout_vec(ours, 8, 120) == rollout_vec(sync, 8, 120)
    o, n = ours.reset(seed=8)[0], native.reset(seed=8)[0]
    assert not np.array_equal(o, n)
